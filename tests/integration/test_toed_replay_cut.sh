#!/bin/sh
# test_toed_replay_cut.sh - a capture cut short (mid-record, mid-header) or corrupt ends the play, not the daemon.
#
# A copy of a capture still being written, or a disk that filled up, leaves a
# pcap whose last record is incomplete. toed must treat that like the end of
# the file: deliver every record before the cut, log libpcap's reason, count
# it (source.pcap_cut), end the replay, and keep answering toectl and its
# clients. For each cut: toed stays up after the replay ended, toectl status
# and stats answer, the log carries libpcap's words, and the ticks the client
# received are exactly the first ticks of the truth (nothing invented, nothing
# before the cut lost). Needs no root. Takes about 10 s.
. "$(dirname "$0")/toed_common.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to find record boundaries"

mkfeed 3000 11 --fin
all=$(wc -l <"$TMP/truth.jsonl")
cp "$TMP/feed.pcap" "$TMP/whole.pcap"

# The byte offset of a cut inside record K (counted from the end when negative):
# WHERE = header (5 bytes into the 16-byte record header) or data (10 bytes into its data).
cut_at() { # K WHERE
	python3 - "$TMP/whole.pcap" "$1" "$2" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
k, where = int(sys.argv[2]), sys.argv[3]
end = '<' if data[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
offs, off = [], 24
while off + 16 <= len(data):
    offs.append(off)
    incl = struct.unpack(end + 'I', data[off + 8:off + 12])[0]
    off += 16 + incl
rec = offs[k]
print(rec + 5 if where == 'header' else rec + 16 + 10)
PY
}

run_cut() { # LABEL BYTES
	label=$1 bytes=$2
	head -c "$bytes" "$TMP/whole.pcap" >"$TMP/feed.pcap" || fail "head"
	start_notify
	: >"$TMP/toed.log"
	conf "$TMP/toed.conf"
	start_toed "$TMP/toed.conf"
	wait_for "$TMP/notify.log" 'READY=1' 10 || fail "$label: no READY=1"
	"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --idle-ms 1500 --timeout 20 -o "$TMP/got.$label" \
		2>>"$TMP/clients.log" || fail "$label: client failed ($(tail -n 2 "$TMP/clients.log"))"
	wait_for "$TMP/toed.log" 'pcap replay over' 10 || fail "$label: the replay did not end"
	kill -0 "$TOED_PID" 2>/dev/null || fail "$label: toed died at the cut"
	grep -q "ends early.*truncated dump file" "$TMP/toed.log" ||
		fail "$label: the log does not say why the play ended (libpcap's reason)"
	"$TOECTL" -s "$TMP/toed.sock" status >"$TMP/status.txt" 2>&1 || fail "$label: toectl status failed after the cut"
	"$TOECTL" -s "$TMP/toed.sock" stats --json >"$TMP/stats.json" 2>&1 || fail "$label: toectl stats failed"
	grep -q '"pcap_cut": *1' "$TMP/stats.json" || fail "$label: source.pcap_cut is not 1: $(grep -o '"pcap_cut":[^,]*' "$TMP/stats.json")"
	sleep 0.3
	kill -0 "$TOED_PID" 2>/dev/null || fail "$label: toed exited after the replay"
	stop_toed
	[ "$TOED_RC" -eq 0 ] || fail "$label: toed exited $TOED_RC"
	grep -v '"event"' "$TMP/got.$label" >"$TMP/ticks.$label"
	got=$(wc -l <"$TMP/ticks.$label")
	[ "$got" -gt 0 ] && [ "$got" -lt "$all" ] || fail "$label: $got ticks of $all"
	head -n "$got" "$TMP/truth.jsonl" | cmp -s - "$TMP/ticks.$label" ||
		fail "$label: the ticks received are not the first $got ticks of the truth"
	say "$label: toed up and answering after the cut, $got of $all ticks (the truth's first ones), reason logged"
}

run_cut "mid-record" "$(cut_at 40 data)"
run_cut "mid-header" "$(cut_at 60 header)"

echo "PASS: a cut capture ends the play with libpcap's reason; toed keeps running"
exit 0
