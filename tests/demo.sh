#!/bin/sh
# tests/demo.sh - `make demo`: toed decoding a sample SSE Level-2 capture, a client printing the ticks.
#
#   1. a sample capture: toe-fastgen writes 2000 SSE records (3201 trades,
#      5801 orders) as STEP/FAST with the project's own encoder, and mkpcap
#      (tests/integration/mkpcap.c, the test packet builder) turns it into a
#      pcap of the TCP connection from the exchange, as a mirror port sees it;
#   2. toed starts with the software backend replaying that capture at its
#      recorded pace (configuration and control socket in a temporary folder,
#      so no root is needed);
#   3. toe-dump, an example client (client-lib/examples), subscribes and
#      prints the decoded ticks;
#   4. toectl stats shows the counters; SIGTERM stops toed cleanly.
# Takes a few seconds. Works as root or not; leaves only $BUILD/demo/.
set -u
BUILD=${BUILD:-build}
T=conf/templates/sse-l2-3201-5801.xml
D=$BUILD/demo
RECORDS=2000

[ -x "$BUILD/itest/mkpcap" ] || {
	echo "demo: $BUILD/itest/mkpcap is missing: run it as 'make demo'" >&2
	exit 1
}
mkdir -p "$D"
DA=$(cd "$D" && pwd) # absolute: the configuration's paths
TMP=$(mktemp -d /tmp/toed-demo.XXXXXX) || exit 1
TOED_PID=
cleanup() {
	[ -n "$TOED_PID" ] && kill "$TOED_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

echo "== 1. a sample capture: $RECORDS SSE Level-2 records as one TCP connection"
"$BUILD/bin/toe-fastgen" --templates "$T" --records $RECORDS --seed 1 --framing step --per-msg 4 \
	--truth "$D/truth.jsonl" -o "$D/sample.step" || exit 1
frames=$("$BUILD/itest/mkpcap" --fin --interval-us 8000 "$D/sample.step" "$D/sample.pcap") || exit 1
echo "   $D/sample.pcap: $frames (exchange 10.1.0.10:5261 -> vendor 10.1.0.2:40001)"

cat >"$TMP/toed.conf" <<EOF
# toed.conf of the demo: the software backend replays a capture
[source]
type = pcap
pcap_file = $DA/sample.pcap
pcap_pace = recorded

[feed.sse]
exchange = 10.1.0.10:5261

[fast]
templates = $(pwd)/$T

[shm]
hugepages = 0
socket = $TMP/toed.sock

[log]
target = stderr
EOF

echo "== 2. toed, software backend, replaying the capture at its recorded pace (~1.5 s)"
"$BUILD/bin/toed" -c "$TMP/toed.conf" --foreground 2>"$TMP/toed.log" &
TOED_PID=$!
i=0
while [ ! -S "$TMP/toed.sock" ] && kill -0 "$TOED_PID" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
if [ ! -S "$TMP/toed.sock" ]; then
	echo "demo: toed did not start:" >&2
	cat "$TMP/toed.log" >&2
	exit 1
fi
grep 'ready:' "$TMP/toed.log" | sed 's/^/   /'

echo "== 3. toe-dump, a client of toed, prints the decoded ticks as they come"
# --from-msg-seq 0: start with what toed already published (its history), then live
"$BUILD/bin/toe-dump" --socket "$TMP/toed.sock" --from-msg-seq 0 --count $((RECORDS + 1)) --timeout 20 \
	>"$D/ticks.txt" 2>"$TMP/dump.err" &
DUMP=$!
sleep 0.5
head -n 8 "$D/ticks.txt" | cut -c1-150
wait $DUMP
echo "   ... (all of them in $D/ticks.txt)"
tail -n 2 "$D/ticks.txt" | cut -c1-150
sed 's/^/   /' "$TMP/dump.err"
ticks=$(grep -c '^TRADE\|^ORDER' "$D/ticks.txt")

echo "== 4. toectl stats: the counters of every block (here: the connection, its stream, the publisher)"
if [ -x "$BUILD/bin/toectl" ]; then
	"$BUILD/bin/toectl" -s "$TMP/toed.sock" stats >"$D/stats.txt" 2>&1
	awk '/^\[/ { show = ($0 ~ /^\[(connection 0|stream 0|publisher)/) } show' "$D/stats.txt" |
		grep -v 'epoch\|wakeups\|rings_\|zombies' | sed 's/^/   /'
	echo "   (every counter in $D/stats.txt; toectl status, toectl clients, --json)"
fi

kill -TERM "$TOED_PID"
wait "$TOED_PID"
rc=$?
TOED_PID=
echo "== toed stopped on SIGTERM (exit status $rc)"
if [ "$ticks" -ne $RECORDS ] || [ $rc -ne 0 ]; then
	echo "demo: FAILED: $ticks ticks of $RECORDS, toed exit status $rc" >&2
	cat "$TMP/toed.log" >&2
	exit 1
fi
echo "== done: $ticks ticks decoded by toed from the capture and delivered to a client"
