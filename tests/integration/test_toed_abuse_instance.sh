#!/bin/sh
# test_toed_abuse_instance.sh - a second toed on the same socket leaves the first one alone (issue 10, 5).
#
#   - B started on A's socket exits 75 within seconds, saying "already running (pid A)"; A keeps its
#     socket (same inode) and answers toectl; the subscribed client keeps receiving; A's watchdog goes on;
#   - with the lock file removed, B still finds A by a hello, and exits 75;
#   - a detached start (no --foreground, no systemd) reports 75 too;
#   - A killed with -9: C starts at once on the same socket (the lock died with A; the stale socket
#     answers no hello) and serves.
# Takes about 8 s.
. "$(dirname "$0")/toed_common.sh"
. "$(dirname "$0")/lib_abuse.sh"

abuse_start
A=$TOED_PID
ino=$(stat -c %i "$TMP/toed.sock")

second() { # LABEL [toed options]: B must exit 75 without touching A
	_l=$1
	shift
	: >"$TMP/b.log"
	NOTIFY_SOCKET= timeout 10 "$TOED" -c "$TMP/abuse.conf" "$@" >"$TMP/b.log" 2>&1
	_rc=$?
	[ $_rc -eq 75 ] || fail "$_l: the second toed exited $_rc, not 75: $(cat "$TMP/b.log")"
	grep -q "already running (pid $A)" "$TMP/b.log" || fail "$_l: no 'already running (pid $A)': $(cat "$TMP/b.log")"
	[ "$(stat -c %i "$TMP/toed.sock" 2>/dev/null)" = "$ino" ] || fail "$_l: the socket of the first toed was replaced"
	ctl_answers "$_l"
	grep -q "pid $A," "$TMP/status.out" || fail "$_l: toectl does not reach the first toed: $(head -n 1 "$TMP/status.out")"
}

second "second toed" --foreground
watchdog_during "second toed" 1
victim_moves "second toed"
rm -f "$TMP/toed.sock.lock"
second "second toed, lock file removed" --foreground
second "second toed, detached"
say "a second toed exits 75 (lock, hello, detached); the first keeps its socket and answers"

kill -9 "$A"
wait "$A" 2>/dev/null
TOED_PID=
: >"$TMP/toed.log"
start_notify
start_toed "$TMP/abuse.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 after kill -9 of the first toed: $(tail -n 5 "$TMP/toed.log")"
ctl_answers "restart after kill -9"
grep -q "pid $TOED_PID," "$TMP/status.out" || fail "toectl does not reach the new toed"
"$OUT/tick_client" --socket "$TMP/toed.sock" --count 20 --timeout 10 >/dev/null 2>"$TMP/c.err" ||
	fail "the new toed serves no client: $(cat "$TMP/c.err")"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
[ -e "$TMP/toed.sock" ] && fail "the socket is still there after SIGTERM"
say "after kill -9, a new toed starts at once on the same socket"
echo "PASS: one toed per socket"
