#!/bin/sh
# test_toed_seq.sh - sequence tracking in toed, seen through toectl seq and stats (text and --json).
#
# toe-fastgen writes 400 records on one channel, one record per STEP message,
# so BizIndex runs 1..400 on channel 1 (SSE numbers BizIndex per channel across
# 3201 and 5801). The feed is then edited: message 100 (BizIndex 100) removed,
# message 200 sent twice. toed replays it with [fast] sequence_check = yes and
# the keys named in [fast] sequence_fields (SSE's, by name per template), and
# toectl seq (and stats) must show channel 1 with last sequence 400, one gap of
# one missing number and one duplicate, delivered 399 (text and JSON), and the
# rx counters to match (a MsgSeqNum jump too). Then the same with the default
# keys (sse). Then the feed as UDP datagrams with two of them swapped: the
# reordered one is delivered late, not lost, and its MsgSeqNum is late, not a
# jump. Last, --check-config refuses an
# unknown field (exit 78).
# Needs no root and python3 (SKIP without it). Takes about 4 s.
. "$(dirname "$0")/toed_common.sh"

PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" -c 'import json' 2>/dev/null || skip "no python3 (the feed is edited and the JSON read with it)"

"$BUILD/bin/toe-fastgen" --templates "$T" --records 400 --seed 5 --channels 1 --framing step --per-msg 1 \
	-o "$TMP/feed.orig" || fail "toe-fastgen"
# drop the 100th message, repeat the 200th
"$PY" - "$TMP/feed.orig" "$TMP/feed.step" <<'EOF' || fail "editing the feed"
import sys
data = open(sys.argv[1], "rb").read()
parts = data.split(b"8=STEP")
assert parts[0] == b"" and len(parts) == 401, len(parts)
msgs = [b"8=STEP" + p for p in parts[1:]]
out = msgs[:99] + msgs[100:199] + [msgs[199], msgs[199]] + msgs[200:]
open(sys.argv[2], "wb").write(b"".join(out))
EOF
"$OUT/mkpcap" --fin "$TMP/feed.step" "$TMP/feed.pcap" >/dev/null || fail "mkpcap"

C="$TOECTL -s $TMP/toed.sock"
json_get() { # FILE PYTHON-EXPRESSION (d is the document)
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

run() { # LABEL SEQUENCE_FIELDS-LINE
	conf "$TMP/toed.conf"
	# [fast] is written by conf(): the keys go under its templates line
	sed -i "s|^templates = .*|&\nsequence_check = yes\n$2|" "$TMP/toed.conf"
	: >"$TMP/toed.log"
	start_notify
	start_toed "$TMP/toed.conf"
	wait_for "$TMP/toed.log" 'pcap replay over' 10 || fail "$1: the replay did not end ($(tail -n 3 "$TMP/toed.log"))"
	for cmd in seq stats; do
		$C $cmd >"$TMP/$cmd.txt" || fail "$1: toectl $cmd exited $?"
		line=$(grep -E '^ +channel 1 +last' "$TMP/$cmd.txt")
		[ -n "$line" ] || fail "$1: toectl $cmd shows no channel 1: $(cat "$TMP/$cmd.txt")"
		echo "$line" | grep -Eq 'last 400 +delivered 399 +dups 1 +gaps 1 +missing 1 ' ||
			fail "$1: toectl $cmd: channel 1 should be last 400, delivered 399, 1 dup, 1 gap of 1: $line"
	done
	grep -Eq '^ *sequence_check +yes' "$TMP/seq.txt" || fail "$1: toectl seq: $(head -n 3 "$TMP/seq.txt")"
	$C seq --json >"$TMP/seq.json" || fail "$1: toectl seq --json exited $?"
	got=$(json_get "$TMP/seq.json" \
		'(d["sequence_check"], d["seq_gaps"], d["seq_dups"], d["msg_jumps"], [(c["channel"], c["last"], c["gaps"], c["duplicates"]) for g in d["sequence_groups"] for c in g["channels"]])')
	[ "$got" = "(True, 1, 1, 1, [(1, 400, 1, 1)])" ] || fail "$1: toectl seq --json: $got"
	$C stats --json >"$TMP/stats.json" || fail "$1: toectl stats --json exited $?"
	got=$(json_get "$TMP/stats.json" \
		'[(c["channel"], c["last"], c["gaps"], c["missing"], c["duplicates"]) for g in d["sequence_groups"] for c in g["channels"]]')
	[ "$got" = "[(1, 400, 1, 1, 1)]" ] || fail "$1: --json channels $got, want [(1, 400, 1, 1, 1)]"
	got=$(json_get "$TMP/stats.json" \
		'(d["rx"]["seq_records"], d["rx"]["seq_dups"], d["rx"]["seq_gaps"], d["rx"]["seq_missing"], d["rx"]["msg_jumps"], d["rx"]["seq_unkeyed"])')
	[ "$got" = "(400, 1, 1, 1, 1, 0)" ] ||
		fail "$1: rx (seq_records, seq_dups, seq_gaps, seq_missing, msg_jumps, seq_unkeyed) $got, want (400, 1, 1, 1, 1, 0)"
	stop_toed
	[ "$TOED_RC" -eq 0 ] || fail "$1: toed exited $TOED_RC"
	say "$1: channel 1 last 400, 1 gap (BizIndex 100), 1 duplicate (200), text and JSON"
}

run "sequence_fields by name" "sequence_fields = 3201:TradeChannel:BizIndex, 5801:OrderChannel:BizIndex"
run "sequence_fields default" ""

# The same feed as UDP datagrams, with BizIndex 301 sent before 300 as well (a reordered datagram): over UDP
# the jump to 301 waits arbitration_wait_us for 300, which comes 100 us later, is delivered late and is no
# loss; the jump over 100 (never sent) is the one gap, once that wait ran out.
"$PY" - "$TMP/feed.step" "$TMP/feed-udp.step" <<'EOF' || fail "editing the UDP feed"
import sys
data = open(sys.argv[1], "rb").read()
msgs = [b"8=STEP" + p for p in data.split(b"8=STEP")[1:]]
assert len(msgs) == 400, len(msgs)
# msgs holds BizIndex 1..99, 101..200, 200, 201..400: 300 is at index 299
msgs[299], msgs[300] = msgs[300], msgs[299]
open(sys.argv[2], "wb").write(b"".join(msgs))
EOF
"$OUT/mkpcap" --udp "$TMP/feed-udp.step" "$TMP/feed.pcap" >/dev/null || fail "mkpcap --udp"
conf "$TMP/toed.conf"
sed -i -e 's/^exchange = 10.1.0.10:5261/protocol = udp\nvendor = *:40001/' \
	-e "s|^templates = .*|&\nsequence_check = yes|" "$TMP/toed.conf"
: >"$TMP/toed.log"
start_notify
start_toed "$TMP/toed.conf"
wait_for "$TMP/toed.log" 'pcap replay over' 10 || fail "udp: the replay did not end ($(tail -n 3 "$TMP/toed.log"))"
$C stats --json >"$TMP/stats.json" || fail "udp: toectl stats --json exited $?"
got=$(json_get "$TMP/stats.json" \
	'[(c["channel"], c["last"], c["delivered"], c["gaps"], c["missing"], c["duplicates"], c["late"]) for g in d["sequence_groups"] for c in g["channels"]]')
[ "$got" = "[(1, 400, 399, 1, 1, 1, 1)]" ] ||
	fail "udp: channels (channel, last, delivered, gaps, missing, duplicates, late) $got, want [(1, 400, 399, 1, 1, 1, 1)]"
got=$(json_get "$TMP/stats.json" '(d["rx"]["seq_gaps"], d["rx"]["seq_missing"], d["rx"]["seq_late"])')
[ "$got" = "(1, 1, 1)" ] || fail "udp: rx (seq_gaps, seq_missing, seq_late) $got, want (1, 1, 1)"
# MsgSeqNum alike: 301's message before 300's is late, not a jump; 100's never came; 200's came twice
got=$(json_get "$TMP/stats.json" \
	'(d["rx"]["msg_jumps"], d["rx"]["msg_missing"], d["rx"]["msg_late"], d["rx"]["msg_repeats"])')
[ "$got" = "(1, 1, 1, 1)" ] ||
	fail "udp: rx (msg_jumps, msg_missing, msg_late, msg_repeats) $got, want (1, 1, 1, 1)"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "udp: toed exited $TOED_RC"
say "udp: 301 before 300 delivered late, no loss; the one gap is BizIndex 100"

# a field the templates do not have: refused at check time, exit 78, naming the line
conf "$TMP/bad.conf"
sed -i "s|^templates = .*|&\nsequence_check = yes\nsequence_fields = 3201:TradeChannel:SeqNo|" "$TMP/bad.conf"
"$TOED" -c "$TMP/bad.conf" --check-config >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 78 ] || fail "--check-config with an unknown field exited $rc, not 78: $(cat "$TMP/check.out")"
grep -q "bad.conf:[0-9]*: \[fast\] sequence_fields = 3201:TradeChannel:SeqNo: template 3201 has no field SeqNo" \
	"$TMP/check.out" || fail "--check-config message: $(cat "$TMP/check.out")"
say "an unknown sequence field: exit 78, file, line and key named"
echo "PASS"
