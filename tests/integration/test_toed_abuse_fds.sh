#!/bin/sh
# test_toed_abuse_fds.sh - descriptors pushed at the control socket cannot freeze the control plane (issue 10, 2).
#
# A client passes 16 TCP sockets whose send queue is stuck (the peer never reads) with SO_LINGER 30 s over
# SCM_RIGHTS, then closes its own copies. Closing such a socket waits for the linger time; toed used to do
# that on its control thread (46 s of silence, no WATCHDOG=1, SIGTERM ignored). Now the kernel refuses the
# descriptors (SO_PASSRIGHTS, Linux 6.16+) or toed disposes of them without waiting (ctl_fds.h): toectl
# answers within 1 s, WATCHDOG=1 keeps coming, the subscribed client keeps receiving, SIGTERM stops toed
# within 3 s. Takes about 8 s.
. "$(dirname "$0")/toed_common.sh"
. "$(dirname "$0")/lib_abuse.sh"

abuse_start
# the abuser closes its copies before toed can read them: both on one CPU, the abuser at a real-time
# priority, so toed's control thread runs only once the abuser sleeps
command -v taskset >/dev/null 2>&1 && taskset -pc 0 "$TOED_PID" >/dev/null && export ABUSE_RT_CPU=0
"$ABUSE" linger "$TMP/toed.sock" 16 30 8 >"$TMP/abuse.out" 2>"$TMP/abuse.err" &
ABUSER=$!
bg_pid $ABUSER
wait_for "$TMP/abuse.out" 'sent\|refused' 5 || fail "the abuser did not get to pass its sockets: $(cat "$TMP/abuse.out")"
res=$(cat "$TMP/abuse.out")
case "$res" in
"refused EPERM") how="the kernel refused them (SO_PASSRIGHTS)" ;;
sent) how="toed received and disposed of them" ;;
*) fail "unexpected result of passing descriptors: $res" ;;
esac
ctl_answers "lingering sockets passed"
t1=$CTL_MS
watchdog_during "lingering sockets passed" 2
victim_moves "lingering sockets passed"
ctl_answers "lingering sockets passed (again)"
"$TOECTL" -s "$TMP/toed.sock" stats --json >"$TMP/stats.json" || fail "toectl stats"
python3 - "$TMP/stats.json" "$res" <<'PY' || fail "toectl stats does not account for the passed descriptors"
import json, sys
s = json.load(open(sys.argv[1]))["control"]
if sys.argv[2] == "sent":
    assert s["fds_refused"] == 16 and s["passed_fds_closed"] == 16, s
else:
    assert s["kernel_refuses_fds"] is True and s["fds_refused"] == 0, s
PY
t0=$(now_ms)
stop_toed
dt=$(($(now_ms) - t0))
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC after SIGTERM"
[ "$dt" -le 3000 ] || fail "SIGTERM took $dt ms"
say "16 lingering sockets passed: $how; toectl in $t1 ms, $WD_N watchdog pings in 2 s, SIGTERM in $dt ms"
echo "PASS: passed lingering sockets cost the control plane nothing"
