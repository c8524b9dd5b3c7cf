#!/bin/sh
# test_toed_dataplane.sh - the data-plane thread: placement and priority, at start and on reload.
#
#   - [dataplane] cpu = 0 and priority = 10: the thread "toed-dataplane" is
#     pinned to CPU 0 and runs SCHED_FIFO 10 (when the machine refuses
#     real-time scheduling, the log must say so and the daemon must go on);
#   - a reload to cpu = 1, priority = 0 moves and demotes the running thread
#     (live keys); cpu = none unpins it;
#   - unprivileged (setpriv, as root only): priority = 10 is refused with a
#     warning and the daemon still serves.
# Needs no root for the first two parts. Takes about 3 s.
. "$(dirname "$0")/toed_common.sh"

ncpu=$(getconf _NPROCESSORS_ONLN)
mkfeed 500 81 --interval-us 2000
dp_tid() { # the data-plane thread of TOED_PID
	for t in /proc/"$TOED_PID"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "toed-dataplane" ] && basename "$t"
	done
}
allowed() { awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$TOED_PID/task/$1/status"; }
policy() { awk '{ print $41 " " $40 }' "/proc/$TOED_PID/task/$1/stat"; } # policy, rt_priority

start_notify
PACE=recorded LOOPS=0 conf "$TMP/toed.conf" "[dataplane]
cpu = 0
priority = 10"
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1"
sleep 0.2
tid=$(dp_tid)
[ -n "$tid" ] || fail "no thread named toed-dataplane"
[ "$(allowed "$tid")" = "0" ] || fail "data plane allowed on CPUs $(allowed "$tid"), expected 0"
rt=1
if [ "$(policy "$tid")" != "1 10" ]; then
	grep -q 'cannot set SCHED_FIFO priority 10' "$TMP/toed.log" ||
		fail "data plane policy/priority $(policy "$tid") and no warning"
	rt=0
fi
"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --count 100 --timeout 10 >/dev/null 2>&1 ||
	fail "no ticks from a pinned data plane"
say "start: pinned to CPU 0, $([ $rt = 1 ] && echo 'SCHED_FIFO 10' || echo 'real time refused (warned)')"

if [ "$ncpu" -ge 2 ]; then
	PACE=recorded LOOPS=0 conf "$TMP/toed.conf" "[dataplane]
cpu = 1
priority = 0"
	kill -HUP "$TOED_PID"
	wait_for "$TMP/toed.log" '\[dataplane\] cpu changed (0 -> 1): applied' 5 || fail "cpu change not reported"
	n=0
	while [ "$(allowed "$tid")" != "1" ] && [ $n -lt 40 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	[ "$(allowed "$tid")" = "1" ] || fail "after the reload the data plane is on CPUs $(allowed "$tid"), expected 1"
	[ "$(policy "$tid")" = "0 0" ] || fail "after the reload the policy is $(policy "$tid"), expected SCHED_OTHER"
	PACE=recorded LOOPS=0 conf "$TMP/toed.conf"
	kill -HUP "$TOED_PID"
	wait_for "$TMP/toed.log" '\[dataplane\] cpu changed (1 -> none): applied' 5 || fail "unpinning not reported"
	n=0
	while [ "$(allowed "$tid")" = "1" ] && [ $n -lt 40 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	[ "$(allowed "$tid")" = "0-$((ncpu - 1))" ] || fail "unpinned data plane allowed on $(allowed "$tid")"
	say "reload: moved to CPU 1 at normal priority, then unpinned ($(allowed "$tid"))"
fi
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"

# (an RLIMIT_RTPRIO above 0 would let an unprivileged process have real time)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && [ "$(awk '/^Max realtime priority/ { print $4 }' /proc/self/limits)" = 0 ]; then
	mkdir -p "$TMP/np"
	chown nobody "$TMP/np"
	PACE=fast LOOPS=1 conf "$TMP/np.conf" "[dataplane]
priority = 10"
	sed -i "s|^socket = .*|socket = $TMP/np/toed.sock|" "$TMP/np.conf"
	start_notify
	: >"$TMP/toed.log"
	NOTIFY_SOCKET=$TMP/notify.sock setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TOED" -c "$TMP/np.conf" --foreground >>"$TMP/toed.log" 2>&1 &
	TOED_PID=$!
	wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 (unprivileged)"
	grep -q 'cannot set SCHED_FIFO priority 10' "$TMP/toed.log" || fail "no warning for a refused priority"
	"$OUT/tick_client" --socket "$TMP/np/toed.sock" --from-start --count 100 --timeout 10 >/dev/null 2>&1 ||
		fail "no ticks from an unprivileged daemon"
	stop_toed
	[ "$TOED_RC" -eq 0 ] || fail "unprivileged toed exited $TOED_RC"
	say "unprivileged: priority refused with a warning, still serving"
fi

echo "PASS: data-plane placement and priority"
exit 0
