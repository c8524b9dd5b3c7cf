#!/bin/sh
# test_toed_notify.sh - toed and the service manager: readiness, status, watchdog (systemd emulated).
#
# systemd is not PID 1 here: notify_listen stands in for $NOTIFY_SOCKET.
#   - READY=1 comes once, from toed's own pid, when the pipeline is live: the
#     control socket already answers and a client subscribing then gets the
#     ticks; STATUS= lines carry the counters;
#   - a source that cannot open (af_packet on a missing interface, or no
#     privilege for it): exit 1 and no READY=1;
#   - WATCHDOG=1 keeps coming at WatchdogSec/2 while the data plane runs
#     (WATCHDOG_USEC=400000: every 200 ms);
#   - toed_test (toed with test hooks, tests/integration/toed_test.c) with
#     --test-stall-dataplane=800: the data plane stops 800 ms
#     after going live: WATCHDOG=1 stops, STATUS= says so, the log says why,
#     and SIGTERM still stops the daemon;
#   - without systemd and without --foreground toed detaches: the starting
#     process exits 0 once the daemon is ready (1 when the daemon fails first).
# Needs no root. Takes about 10 s.
. "$(dirname "$0")/toed_common.sh"

mkfeed 3000 5 --interval-us 2000
PACE=recorded LOOPS=0 conf "$TMP/live.conf"

# ---- readiness, status, watchdog
start_notify
WATCHDOG_USEC=400000 start_toed "$TMP/live.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 within 10 s"
[ -S "$TMP/toed.sock" ] || fail "READY=1 before the control socket exists"
pid=$(grep -m1 'READY=1' "$TMP/notify.log" | cut -d' ' -f2)
[ "$pid" = "$TOED_PID" ] || fail "READY=1 sent by pid $pid, not toed's $TOED_PID"
grep -q 'ready: ' "$TMP/toed.log" || fail "the log does not say ready"
"$OUT/tick_client" --socket "$TMP/toed.sock" --types trade,order --count 50 --timeout 10 >"$TMP/first.jsonl" ||
	fail "a client subscribing after READY=1 got no ticks"
t_ready=$(grep -m1 'READY=1' "$TMP/notify.log" | cut -d' ' -f1)
sleep 2.2
n=$(awk -v t="$t_ready" '$3 == "WATCHDOG=1" && $1 >= t' "$TMP/notify.log" | wc -l)
[ "$n" -ge 6 ] || fail "only $n WATCHDOG=1 in 2.2 s with WATCHDOG_USEC=400000"
[ "$(grep -c 'READY=1' "$TMP/notify.log")" -eq 1 ] || fail "READY=1 sent more than once"
grep -q 'STATUS=live; [0-9]* frames, [0-9]* records' "$TMP/notify.log" || fail "no STATUS= with counters"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC after SIGTERM"
grep -q 'STOPPING=1' "$TMP/notify.log" || fail "no STOPPING=1"
say "READY=1 once when live, STATUS=, $n watchdog pings, STOPPING=1"

# ---- a source that cannot open: no READY=1
conf "$TMP/nosrc.conf"
sed -i 's/^type = pcap/type = af_packet\ninterface = toenone0/' "$TMP/nosrc.conf"
start_notify
: >"$TMP/toed.log"
start_toed "$TMP/nosrc.conf"
wait_exit "$TOED_PID" 10 || fail "toed without a source is still running"
rc=$WAIT_RC
TOED_PID=
[ $rc -eq 1 ] || fail "toed without a source exited $rc, not 1"
grep -q 'READY=1' "$TMP/notify.log" && fail "READY=1 although the source did not open"
grep -q 'source: ' "$TMP/toed.log" || fail "the log does not say why: $(cat "$TMP/toed.log")"
say "source that cannot open: exit 1, no READY=1"

# ---- a stalled data plane gets no watchdog pings
start_notify
: >"$TMP/toed.log"
REL_TOED=$TOED
TOED=$TOED_TEST
WATCHDOG_USEC=400000 start_toed "$TMP/live.conf" --test-stall-dataplane=800
TOED=$REL_TOED
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 (stall run)"
t_ready=$(grep -m1 'READY=1' "$TMP/notify.log" | cut -d' ' -f1)
sleep 3
before=$(awk -v t="$t_ready" '$3 == "WATCHDOG=1" && $1 < t + 800' "$TMP/notify.log" | wc -l)
last=$(awk '$3 == "WATCHDOG=1" {t = $1} END {print t + 0}' "$TMP/notify.log")
[ "$before" -ge 2 ] || fail "only $before WATCHDOG=1 before the stall"
# the stall starts at +800 ms; one check interval (200 ms) may still see the last beat
[ "$last" -le $((t_ready + 800 + 450)) ] ||
	fail "WATCHDOG=1 at +$((last - t_ready)) ms, after the data plane stalled at +800 ms"
grep -q 'STATUS=data plane stalled' "$TMP/notify.log" || fail "STATUS= does not report the stall"
grep -q 'heartbeat stopped' "$TMP/toed.log" || fail "the log does not report the stall"
grep -q 'stalling on purpose' "$TMP/toed.log" || fail "toed_test did not stall the data plane (its hook never ran)"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "a stalled toed exited $TOED_RC after SIGTERM"
say "stalled data plane: last WATCHDOG=1 at +$((last - t_ready)) ms, none after; SIGTERM still works"

# ---- detached start (no systemd, no --foreground)
: >"$TMP/toed.log"
"$TOED" -c "$TMP/live.conf" >>"$TMP/toed.log" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "a detached start exited $rc"
[ -S "$TMP/toed.sock" ] || fail "the detached daemon has no socket once the start returned"
dpid=$(pgrep -f -- "-c $TMP/live.conf" | head -n 1)
[ -n "$dpid" ] || fail "the detached daemon is not running"
bg_pid "$dpid"
kill -TERM "$dpid"
n=0
while kill -0 "$dpid" 2>/dev/null && [ $n -lt 100 ]; do
	sleep 0.05
	n=$((n + 1))
done
kill -0 "$dpid" 2>/dev/null && fail "the detached daemon did not stop"
"$TOED" -c "$TMP/nosrc.conf" >>"$TMP/toed.log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a detached start that fails exited $rc, not 1"
say "detached start: 0 once ready, 1 when the daemon fails"

echo "PASS: readiness, status, watchdog, stall, detached start"
exit 0
