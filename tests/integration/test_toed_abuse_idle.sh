#!/bin/sh
# test_toed_abuse_idle.sh - idle connections cannot lock clients or toectl out (issue 10, 3).
#
# [shm] max_clients = 8 gives 24 connections, the last 4 kept for root; max_clients_per_uid = 6;
# handshake_timeout_ms = 1000.
#   1. nobody opens 30 connections that never speak: 6 are held, the rest refused with EUSERS at once;
#      toectl answers, another user subscribes and receives, the watchdog and the victim go on; after
#      the handshake timeout the 6 are closed with ETIMEDOUT (and the log says so).
#   2. root opens 40 such connections (root is not limited per uid): every slot is taken, yet within
#      the handshake timeout (plus a tick) toectl answers again, the idle ones closed.
# Needs root (setpriv). Takes about 10 s.
. "$(dirname "$0")/toed_common.sh"
. "$(dirname "$0")/lib_abuse.sh"
need_root_setpriv

abuse_start "max_clients = 8
max_clients_per_uid = 6
handshake_timeout_ms = 1000
socket_mode = 0666"

# ---- 1. another user's idle connections
as_nobody "$ABUSE" idle "$TMP/toed.sock" 30 2 >"$TMP/idle1.out" 2>&1 &
A=$!
bg_pid $A
sleep 0.3
ctl_answers "30 idle connections from uid 65534"
t1=$CTL_MS
as_other "$OUT/tick_client" --socket "$TMP/toed.sock" --count 20 --timeout 5 >"$TMP/other.jsonl" 2>"$TMP/other.err" ||
	fail "uid 65533 cannot subscribe while uid 65534 holds idle connections: $(cat "$TMP/other.err")"
watchdog_during "idle connections" 1
victim_moves "idle connections"
wait_exit $A 10 || fail "the idle abuser did not finish"
res=$(tail -n 1 "$TMP/idle1.out")
[ "$res" = "closed 30 timeouts 6 refused 24" ] || fail "uid 65534's 30 idle connections: $res (want 6 timed out, 24 refused)"
grep -q 'too many connections from uid 65534' "$TMP/toed.log" || fail "no log line about the per-uid limit"
grep -q 'sent no request within 1000 ms' "$TMP/toed.log" || fail "no log line about the handshake timeout"
say "uid 65534: 6 idle connections held then closed after 1 s, 24 refused; toectl in $t1 ms, others served"

# ---- 2. root fills every slot
"$ABUSE" idle "$TMP/toed.sock" 40 3 >"$TMP/idle2.out" 2>&1 &
B=$!
bg_pid $B
sleep 0.3
t0=$(now_ms)
ok=0
while [ $(($(now_ms) - t0)) -lt 3000 ]; do
	if timeout 5 "$TOECTL" -s "$TMP/toed.sock" status >/dev/null 2>"$TMP/ctl.err"; then
		ok=1
		break
	fi
	sleep 0.1
done
dt=$(($(now_ms) - t0))
[ $ok = 1 ] || fail "toectl locked out for 3 s by root's idle connections: $(cat "$TMP/ctl.err")"
watchdog_during "root's idle connections" 1
victim_moves "root's idle connections"
wait_exit $B 10 || fail "the second idle abuser did not finish"
res=$(tail -n 1 "$TMP/idle2.out")
case "$res" in "closed 40 "*) ;; *) fail "root's 40 idle connections: $res (want all closed)" ;; esac
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
say "root's 40 idle connections: toectl answered again after $dt ms ($res)"
echo "PASS: idle connections lock nobody out"
