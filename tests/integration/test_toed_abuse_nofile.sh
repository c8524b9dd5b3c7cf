#!/bin/sh
# test_toed_abuse_nofile.sh - descriptors: enough at start, and no busy loop when they run out (issue 10, 6).
#
#   - with a hard limit of 300 descriptors, max_clients = 256 (about 720 needed) is a configuration
#     error naming the key: --check-config and a start both exit 78;
#   - toed raises its soft limit to the hard one;
#   - the limit lowered under a running toed (prlimit) and connections piled up beyond it: accept fails
#     with EMFILE, toed logs it once and leaves the listening socket alone for a while instead of spinning
#     (the control thread uses under 15 % of a CPU meanwhile); WATCHDOG=1 and the victim go on; once the
#     connections go, toectl answers again within a second.
# Needs root (prlimit on another process). Takes about 10 s.
. "$(dirname "$0")/toed_common.sh"
. "$(dirname "$0")/lib_abuse.sh"
[ "$(id -u)" = 0 ] || skip "needs root (prlimit)"
command -v prlimit >/dev/null 2>&1 || skip "prlimit (util-linux) not installed"

mkfeed 100 3
conf "$TMP/big.conf"
sed -i '/^\[shm\]/a max_clients = 256' "$TMP/big.conf"
out=$(ulimit -n 300 && "$TOED" -c "$TMP/big.conf" --check-config 2>&1)
rc=$?
[ $rc -eq 78 ] || fail "max_clients = 256 under a 300-descriptor limit: --check-config exited $rc: $out"
echo "$out" | grep -q 'max_clients = 256: needs about 720 file descriptors, but the limit is 300' ||
	fail "the message does not name the key and the numbers: $out"
out=$(ulimit -n 300 && "$TOED" -c "$TMP/big.conf" --foreground 2>&1)
rc=$?
[ $rc -eq 78 ] || fail "a start under a 300-descriptor limit exited $rc"
say "max_clients beyond the descriptor limit: exit 78 naming the key"

abuse_start
soft=$(awk '/^Max open files/ { print $4 }' "/proc/$TOED_PID/limits")
hard=$(awk '/^Max open files/ { print $5 }' "/proc/$TOED_PID/limits")
[ "$soft" = "$hard" ] || fail "soft descriptor limit $soft not raised to the hard one ($hard)"

nfd=$(ls "/proc/$TOED_PID/fd" | wc -l)
lim=$((nfd + 6))
prlimit --pid "$TOED_PID" --nofile="$lim:$hard" || fail "prlimit" # the soft one: toed may raise it back
ticks() { awk '{ print $14 + $15 }' "/proc/$TOED_PID/task/$TOED_PID/stat"; }
mkfifo "$TMP/hold"
"$ABUSE" fill "$TMP/toed.sock" 40 20 <"$TMP/hold" >"$TMP/fill.out" 2>&1 &
F=$!
bg_pid $F
exec 7>"$TMP/hold"
wait_for "$TMP/fill.out" 'served' 30 || fail "the filler did not finish connecting"
c0=$(ticks)
watchdog_during "out of descriptors" 2
c1=$(ticks)
hz=$(getconf CLK_TCK)
pct=$(((c1 - c0) * 100 / hz / 2))
[ "$pct" -lt 15 ] || fail "the control thread used $pct % of a CPU while accept had no descriptors"
victim_moves "out of descriptors"
n=$(grep -c 'cannot accept a connection: Too many open files' "$TMP/toed.log")
[ "$n" -eq 1 ] || fail "EMFILE logged $n times, not once"
exec 7>&-
wait_exit $F 5 || fail "the filler did not stop"
prlimit --pid "$TOED_PID" --nofile="$hard:$hard" || fail "prlimit (restoring)"
sleep 0.3
ctl_answers "descriptors back" 1000
"$TOECTL" -s "$TMP/toed.sock" stats --json >"$TMP/stats.json" || fail "toectl stats"
python3 -c "
import json, sys
c = json.load(open('$TMP/stats.json'))['control']
assert c['accept_errors'] >= 1 and c['accept_pauses'] >= 1, c" || fail "no accept_errors counted"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
say "out of descriptors: $(cat "$TMP/fill.out"); control thread at $pct % of a CPU, EMFILE logged once; toectl back in $CTL_MS ms"
echo "PASS: descriptor limits"
