#!/bin/sh
# test_toed_sigterm.sh - stopping: STOPPING=1, clients told, memory released, exit 0.
#
# toed (the ASan/LSan build when there is one, see toed_common.sh: a leak or a
# use after free at shutdown fails the test) replays a capture forever at its recorded pace
# while two clients read. On SIGTERM:
#   - STOPPING=1 reaches the notification socket;
#   - both clients see the daemon go (-ENOTCONN: BYE on the socket, ring
#     closed) and end by themselves;
#   - toed exits 0 within 10 s, its control socket file is gone, and no
#     sanitizer report was printed;
#   - huge pages taken for the rings (when the machine has some reserved) are
#     all free again once the clients have unmapped their rings.
# Then the same with SIGINT. Needs no root. Takes about 6 s.
. "$(dirname "$0")/toed_common.sh"

hp_free() { awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo; }
hp_total=$(awk '/^HugePages_Total:/ { print $2 }' /proc/meminfo)

mkfeed 2000 31 --interval-us 1000
# hugepages = 0: use pages already reserved, reserve none
PACE=recorded LOOPS=0 conf "$TMP/toed.conf"
sed -i 's/^hugepages = off/hugepages = 0/' "$TMP/toed.conf"

run() { # SIGNAL
	sig=$1
	start_notify
	: >"$TMP/toed.log"
	free0=$(hp_free)
	start_toed "$TMP/toed.conf"
	wait_for "$TMP/notify.log" 'READY=1' 15 || fail "no READY=1"
	rm -f "$TMP/c1.ready" "$TMP/c2.ready"
	"$OUT/tick_client" --socket "$TMP/toed.sock" --until-gone --timeout 30 --ready "$TMP/c1.ready" \
		-o "$TMP/c1.out" 2>"$TMP/c1.err" &
	c1=$!
	bg_pid $c1
	"$OUT/tick_client" --socket "$TMP/toed.sock" --types trade --until-gone --timeout 30 --ready "$TMP/c2.ready" \
		-o "$TMP/c2.out" 2>"$TMP/c2.err" &
	c2=$!
	bg_pid $c2
	wait_file "$TMP/c1.ready" 10 || fail "client 1 did not subscribe"
	wait_file "$TMP/c2.ready" 10 || fail "client 2 did not subscribe"
	sleep 1
	[ -s "$TMP/c1.out" ] || fail "client 1 received nothing before SIG$sig"
	stop_toed "$sig"
	[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC after SIG$sig"
	grep -q 'STOPPING=1' "$TMP/notify.log" || fail "no STOPPING=1 after SIG$sig"
	for c in 1 2; do
		eval "p=\$c$c"
		wait_exit "$p" 10 || fail "client $c still running after the daemon stopped"
		[ "$WAIT_RC" -eq 0 ] || fail "client $c exited $WAIT_RC: $(cat "$TMP/c$c.err")"
		grep -q 'GONE ENOTCONN' "$TMP/c$c.err" || fail "client $c was not told: $(cat "$TMP/c$c.err")"
	done
	[ -e "$TMP/toed.sock" ] && fail "the control socket file is still there after SIG$sig"
	grep -q 'Sanitizer' "$TMP/toed.log" && fail "sanitizer report: $(grep -A20 Sanitizer "$TMP/toed.log" | head -n 30)"
	if [ "${hp_total:-0}" -gt 0 ]; then
		[ "$(hp_free)" -eq "$free0" ] || fail "huge pages not released: $free0 free before, $(hp_free) after"
	fi
	say "SIG$sig: STOPPING=1, both clients saw -ENOTCONN, exit 0, socket removed, memory released"
}

run TERM
run INT
echo "PASS: clean stop on SIGTERM and SIGINT"
exit 0
