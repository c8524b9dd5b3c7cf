# lib_abuse.sh - shared by tests/integration/test_toed_abuse_*.sh (sourced after toed_common.sh, POSIX sh).
#
# The abuse tests (issue 10) each attack toed's control socket as a hostile local client would and assert
# the same three things throughout: toectl still answers within a bound, WATCHDOG=1 keeps coming (the
# control loop is not stuck), and a client subscribed before the attack keeps receiving ticks.
#   abuse_start [SHM KEYS]   a looping live replay, toed with WATCHDOG_USEC=400000 (a ping every 200 ms),
#                            a victim tick_client; SHM KEYS (lines) go into [shm]
#   ctl_answers LABEL [MS]   toectl status answers within MS (default 1000) ms
#   watchdog_during LABEL S  sleep S seconds and check the pings kept coming (at least 5 a second, less 2)
#   victim_moves LABEL       the victim received records in the last second
#   as_nobody CMD...         run CMD as uid/gid 65534 (setpriv)
#   as_other CMD...          run CMD as uid/gid 65533
ABUSE=$OUT/ctl_abuse
if [ ! -x "$ABUSE" ] || [ "$ABUSE" -ot tests/integration/ctl_abuse.c ]; then
	make -s BUILD="$BUILD" "$ABUSE" >/dev/null 2>&1 || fail "cannot build $ABUSE"
fi

now_ms() { date +%s%3N; }

abuse_start() { # [SHM KEYS]
	mkfeed 3000 5 --interval-us 2000
	PACE=recorded LOOPS=0 conf "$TMP/abuse.conf"
	if [ -n "${1:-}" ]; then
		printf '%s\n' "$1" >"$TMP/shm.keys"
		sed -i "/^\[shm\]/r $TMP/shm.keys" "$TMP/abuse.conf"
	fi
	start_notify
	WATCHDOG_USEC=400000 start_toed "$TMP/abuse.conf"
	wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 within 10 s"
	"$OUT/tick_client" --socket "$TMP/toed.sock" --count 100000000 --timeout 120 -o "$TMP/victim.jsonl" \
		2>"$TMP/victim.err" &
	VICTIM=$!
	bg_pid $VICTIM
	wait_for "$TMP/victim.jsonl" '"template"' 10 || fail "the victim client receives nothing: $(cat "$TMP/victim.err")"
}

ctl_answers() { # LABEL [MS]
	_t0=$(now_ms)
	timeout 10 "$TOECTL" -s "$TMP/toed.sock" status >"$TMP/status.out" 2>&1 ||
		fail "$1: toectl status failed: $(cat "$TMP/status.out")"
	_dt=$(($(now_ms) - _t0))
	[ "$_dt" -le "${2:-1000}" ] || fail "$1: toectl status took $_dt ms (bound ${2:-1000} ms)"
	CTL_MS=$_dt
}

wd_count() { grep -c 'WATCHDOG=1' "$TMP/notify.log"; }

watchdog_during() { # LABEL SECONDS
	_w0=$(wd_count)
	sleep "$2"
	_w1=$(wd_count)
	_need=$(($2 * 5 - 2))
	[ $((_w1 - _w0)) -ge "$_need" ] || fail "$1: only $((_w1 - _w0)) WATCHDOG=1 in $2 s (at least $_need expected)"
	WD_N=$((_w1 - _w0))
}

victim_moves() { # LABEL
	_v0=$(wc -l <"$TMP/victim.jsonl")
	sleep 1
	_v1=$(wc -l <"$TMP/victim.jsonl")
	kill -0 "$VICTIM" 2>/dev/null || fail "$1: the victim client died: $(cat "$TMP/victim.err")"
	[ "$_v1" -gt "$_v0" ] || fail "$1: the victim client received nothing in 1 s ($_v0 lines)"
}

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_other() { setpriv --reuid=65533 --regid=65533 --clear-groups "$@"; }

need_root_setpriv() {
	[ "$(id -u)" = 0 ] || skip "needs root (attacks from other uids with setpriv)"
	command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) not installed"
}
