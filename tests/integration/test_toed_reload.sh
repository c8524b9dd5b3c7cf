#!/bin/sh
# test_toed_reload.sh - SIGHUP: live keys applied, restart keys reported, a bad file keeps the running config.
#
#   good file: RELOADING=1 then READY=1; "[log] level changed (info -> debug):
#     applied", "[tcp] mss changed (1408 -> 1344): needs a restart"; and the
#     live keys really act: [source] pcap_loop goes from forever to 1 (the
#     endless replay ends), [record] ticks starts a recording;
#   bad file: RELOADING=1 then READY=1, the log names file:line and says the
#     running configuration stays; the daemon keeps serving clients, and a
#     later good reload works again;
#   toectl reload (when toectl is built): the same report over the socket.
# Needs no root. Takes about 6 s.
. "$(dirname "$0")/toed_common.sh"

mkfeed 1000 21 --interval-us 1000
start_notify
PACE=recorded LOOPS=0 conf "$TMP/toed.conf"
cp "$TMP/toed.conf" "$TMP/orig.conf"
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1"

# ---- good file
PACE=recorded LOOPS=0 LEVEL=debug conf "$TMP/toed.conf" "[tcp]
mss = 1344
gap_timeout_ms = 80
[record]
ticks = $TMP/ticks.bin"
kill -HUP "$TOED_PID"
wait_for "$TMP/toed.log" 'reload: ' 10 || fail "no reload report in the log"
wait_for "$TMP/toed.log" 'need.* a restart' 5 || fail "no reload summary"
grep -q '\[log\] level changed (info -> debug): applied' "$TMP/toed.log" || fail "log level not reported as applied"
grep -q '\[tcp\] mss changed (1408 -> 1344): needs a restart' "$TMP/toed.log" || fail "mss not reported as needing a restart"
grep -q '\[tcp\] gap_timeout_ms changed (50 -> 80): applied' "$TMP/toed.log" || fail "gap_timeout_ms not applied"
# RELOADING=1, then READY=1 after it
awk '$3 == "RELOADING=1" { r = NR } $3 == "READY=1" && r && NR > r { ok = 1 } END { exit !ok }' "$TMP/notify.log" ||
	fail "no RELOADING=1 followed by READY=1: $(cat "$TMP/notify.log")"
grep -q '^[0-9]* [0-9]* MONOTONIC_USEC=[0-9]' "$TMP/notify.log" || fail "RELOADING=1 without MONOTONIC_USEC"
# the live keys act: the tick file fills (each play of the endless replay is decoded again)
i=0
while [ "$(stat -c %s "$TMP/ticks.bin" 2>/dev/null || echo 0)" -lt 192 ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ "$(stat -c %s "$TMP/ticks.bin" 2>/dev/null || echo 0)" -ge 192 ] || fail "[record] ticks did not start a recording"
# then the endless replay is told to stop after its current play
PACE=recorded LOOPS=1 LEVEL=debug conf "$TMP/toed.conf" "[tcp]
mss = 1344
gap_timeout_ms = 80
[record]
ticks = $TMP/ticks.bin"
kill -HUP "$TOED_PID"
wait_for "$TMP/toed.log" '\[source\] pcap_loop changed (forever -> 1): applied' 10 ||
	fail "pcap_loop not applied: $(grep pcap_loop "$TMP/toed.log")"
wait_for "$TMP/toed.log" 'pcap replay over' 10 || fail "pcap_loop = 1 did not end the endless replay"
kill -0 "$TOED_PID" || fail "toed died during the reloads"
say "good file: live keys applied (log level, gap timeout, recording, replay loops), mss needs a restart"

# ---- bad file
cp "$TMP/toed.conf" "$TMP/good.conf"
printf '[udp]\nports = 9000-8000\n' >>"$TMP/toed.conf"
bad_line=$(grep -n '^ports = 9000-8000' "$TMP/toed.conf" | cut -d: -f1)
: >"$TMP/notify.log"
kill -HUP "$TOED_PID"
wait_for "$TMP/toed.log" 'reload refused' 10 || fail "a bad file was not refused"
grep -q "$TMP/toed.conf:$bad_line: \[udp\] ports" "$TMP/toed.log" || fail "the refusal does not name file:line"
wait_for "$TMP/notify.log" 'READY=1' 5 || fail "no READY=1 after a refused reload"
grep -q 'RELOADING=1' "$TMP/notify.log" || fail "no RELOADING=1 for the refused reload"
kill -0 "$TOED_PID" || fail "toed died on a bad file"
"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --types trade,order --count 100 --timeout 10 \
	>/dev/null 2>&1 || fail "toed stopped serving after a refused reload"
say "bad file: refused with file:line, running configuration kept, still serving"

# ---- toectl reload
if [ -x "$TOECTL" ]; then
	cp "$TMP/orig.conf" "$TMP/toed.conf"
	out=$("$TOECTL" -s "$TMP/toed.sock" reload 2>&1)
	rc=$?
	[ $rc -eq 0 ] || fail "toectl reload exited $rc: $out"
	echo "$out" | grep -q '\[log\] level changed (debug -> info): applied' || fail "toectl reload report: $out"
	printf '[tcp]\nmss = 99999\n' >>"$TMP/toed.conf"
	out=$("$TOECTL" -s "$TMP/toed.sock" reload 2>&1)
	rc=$?
	[ $rc -eq 3 ] || fail "toectl reload of a bad file exited $rc, not 3: $out"
	echo "$out" | grep -q "$TMP/toed.conf:[0-9]*: \[tcp\] mss = 99999" || fail "toectl reload refusal: $out"
	say "toectl reload: report over the socket, exit 3 when refused"
fi

stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
[ -n "${SHOW_LOG:-}" ] && cat "$TMP/toed.log"
echo "PASS: reload with good and bad files"
exit 0
