#!/bin/sh
# test_toed_record.sh - [record]: raw frames to pcap and decoded ticks to a file, through io_uring.
#
#   1. a replay with both recordings on: the tick file holds exactly the
#      truth's records (read back with tick_client --file), and the recorded
#      pcap decodes (toe-pcapdump) to exactly what the input capture decodes to;
#   2. a reload that moves the tick file while an endless replay runs: the old
#      file is closed, the new one fills, both hold whole records only;
#   3. a directory that disappears: the reload reports the error and the
#      daemon goes on.
# Needs no root. Takes about 5 s.
. "$(dirname "$0")/toed_common.sh"

mkfeed 3000 41 --fin --swap-every 5
start_notify
conf "$TMP/toed.conf" "[record]
pcap = $TMP/rec.pcap
ticks = $TMP/rec.ticks"
start_toed "$TMP/toed.conf"
wait_for "$TMP/toed.log" 'pcap replay over' 15 || fail "the replay did not end"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"

# ---- 1. contents
"$OUT/tick_client" --file "$TMP/rec.ticks" -o "$TMP/rec.jsonl" || fail "the tick file is unreadable"
head -n 1 "$TMP/rec.jsonl" | grep -q '"event":"reset"' || fail "the tick file does not start with the stream's reset"
grep -v '"event"' "$TMP/rec.jsonl" >"$TMP/rec.ticks.jsonl"
cmp -s "$TMP/rec.ticks.jsonl" "$TMP/truth.jsonl" || {
	diff "$TMP/rec.ticks.jsonl" "$TMP/truth.jsonl" | head -n 6
	fail "recorded ticks differ from the truth"
}
"$BUILD/bin/toe-pcapdump" --templates "$T" --feed 10.1.0.10:5261 "$TMP/feed.pcap" >"$TMP/in.dump" 2>"$TMP/in.err" ||
	fail "toe-pcapdump of the input"
"$BUILD/bin/toe-pcapdump" --templates "$T" --feed 10.1.0.10:5261 "$TMP/rec.pcap" >"$TMP/rec.dump" 2>"$TMP/rec.err" ||
	fail "toe-pcapdump of the recording: $(cat "$TMP/rec.err")"
cmp -s "$TMP/in.dump" "$TMP/rec.dump" || fail "the recorded pcap does not decode like the input"
nin=$(grep -o '^toe-pcapdump: [0-9]* frames' "$TMP/in.err")
nrec=$(grep -o '^toe-pcapdump: [0-9]* frames' "$TMP/rec.err")
[ "$nin" = "$nrec" ] || fail "frames: input '$nin', recording '$nrec'"
say "recording: $(wc -l <"$TMP/rec.ticks.jsonl") ticks equal to the truth; pcap with the input's frames (${nin#toe-pcapdump: })"

# ---- 2. moving the tick file while running
mkfeed 2000 42 --interval-us 1000
start_notify
: >"$TMP/toed.log"
PACE=recorded LOOPS=0 conf "$TMP/toed.conf" "[record]
ticks = $TMP/a.ticks"
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1"
sleep 0.5
PACE=recorded LOOPS=0 conf "$TMP/toed.conf" "[record]
ticks = $TMP/b.ticks"
kill -HUP "$TOED_PID"
wait_for "$TMP/toed.log" "record: $TMP/a.ticks closed" 5 || fail "the old tick file was not closed"
sleep 0.5
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
for f in a b; do
	sz=$(stat -c %s "$TMP/$f.ticks")
	[ "$sz" -gt 64 ] || fail "$f.ticks holds no record"
	[ $(((sz - 64) % 128)) -eq 0 ] || fail "$f.ticks holds a partial record ($sz bytes)"
	"$OUT/tick_client" --file "$TMP/$f.ticks" -o "$TMP/$f.jsonl" || fail "$f.ticks unreadable"
done
# together they are a run of the endless replay: every tick is a truth line
cat "$TMP/a.jsonl" "$TMP/b.jsonl" | grep -v '"event"' | sort -u >"$TMP/ab.sorted"
sort -u "$TMP/truth.jsonl" >"$TMP/truth.sorted"
[ -z "$(comm -23 "$TMP/ab.sorted" "$TMP/truth.sorted")" ] || fail "a recorded tick is not in the truth"
say "reload moved the tick file: a.ticks closed ($(wc -l <"$TMP/a.jsonl") records), b.ticks $(wc -l <"$TMP/b.jsonl") records"

# ---- 3. a file that cannot be opened on reload
mkdir "$TMP/gone"
PACE=recorded LOOPS=0 conf "$TMP/toed.conf" "[record]
ticks = $TMP/gone/c.ticks"
start_notify
: >"$TMP/toed.log"
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 (3)"
rm -rf "$TMP/gone"
PACE=recorded LOOPS=0 conf "$TMP/toed.conf" "[record]
ticks = $TMP/gone/d.ticks"
kill -HUP "$TOED_PID"
wait_for "$TMP/toed.log" 'reload refused' 5 || fail "the reload did not refuse a path whose directory is gone"
grep -q "\[record\] ticks = $TMP/gone/d.ticks" "$TMP/toed.log" || fail "the refusal does not name the key"
kill -0 "$TOED_PID" || fail "toed died"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC (3)"
say "a recording directory removed under a running daemon: the reload says so, the daemon goes on"

echo "PASS: recording frames and ticks"
exit 0
