#!/bin/sh
# test_toed_privs.sh - toed drops what it does not need once set up, and fails soft when it cannot.
#
#   1. as root (pcap source): once ready, the effective, permitted and bounding
#      capability sets hold CAP_SYS_NICE only (the data plane's priority is a
#      live key), the inheritable and ambient sets are empty, no_new_privs is
#      set, and the daemon still serves clients and reloads;
#   2. as root with --user nobody: uid/gid 65534, CAP_SYS_NICE kept across
#      the switch, clients served, SIGHUP reload works, SIGTERM exits 0;
#   3. started as nobody (setpriv), with the default socket path and
#      [shm] hugepages = auto: warnings only (no huge pages, no /run/toed,
#      cannot switch user), the socket falls back to $XDG_RUNTIME_DIR/toed/,
#      READY=1, clients served, exit 0.
# Needs root (to be able to lose it). Takes about 5 s.
. "$(dirname "$0")/toed_common.sh"

[ "$(id -u)" = 0 ] || skip "needs root (the test drops privileges)"
command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) not installed"
id nobody >/dev/null 2>&1 || skip "no user nobody"
nobody_uid=$(id -u nobody)
nobody_gid=$(id -g nobody)

mkfeed 1000 61
truth_filter trades >"$TMP/want.trades"
ntrades=$(wc -l <"$TMP/want.trades")
status() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$TOED_PID/status"; }

served() { # SOCKET LABEL
	"$OUT/tick_client" --socket "$1" --from-start --types trade --count "$ntrades" --timeout 15 \
		-o "$TMP/got.trades" 2>"$TMP/client.err" || fail "$2: client failed: $(cat "$TMP/client.err")"
	cmp -s "$TMP/got.trades" "$TMP/want.trades" || fail "$2: ticks differ from the truth"
}

# ---- 1. root
start_notify
conf "$TMP/toed.conf"
start_toed "$TMP/toed.conf"
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1"
for set in CapEff CapPrm CapBnd; do
	[ "$(status $set)" = "0000000000800000" ] || fail "$set = $(status $set), expected cap_sys_nice only"
done
[ "$(status CapInh)" = "0000000000000000" ] || fail "CapInh = $(status CapInh)"
[ "$(status CapAmb)" = "0000000000000000" ] || fail "CapAmb = $(status CapAmb)"
[ "$(status NoNewPrivs)" = "1" ] || fail "no_new_privs not set"
served "$TMP/toed.sock" "root"
kill -HUP "$TOED_PID"
wait_for "$TMP/toed.log" 'reload: nothing changed' 5 || fail "reload after the drop"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
say "root: capabilities cut to cap_sys_nice (effective, permitted, bounding), no_new_privs; serves and reloads"

# ---- 2. --user nobody
start_notify
chmod 777 "$TMP/notify.sock" # as systemd's own socket is
: >"$TMP/toed.log"
start_toed "$TMP/toed.conf" --user nobody
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 (--user)"
uids=$(status Uid | head -n 1)
[ "$(awk '/^Uid:/ { print $2 $3 $4 $5 }' "/proc/$TOED_PID/status")" = "$nobody_uid$nobody_uid$nobody_uid$nobody_uid" ] ||
	fail "uids after --user nobody: $(grep Uid: "/proc/$TOED_PID/status")"
[ "$(awk '/^Gid:/ { print $2 }' "/proc/$TOED_PID/status")" = "$nobody_gid" ] || fail "gid not switched"
[ "$(status CapEff)" = "0000000000800000" ] || fail "CapEff = $(status CapEff) after the switch"
served "$TMP/toed.sock" "--user nobody"
kill -HUP "$TOED_PID"
wait_for "$TMP/toed.log" 'reload: nothing changed' 5 || fail "reload as nobody"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed --user nobody exited $TOED_RC"
say "--user nobody: uid $uids, cap_sys_nice kept, serves, reloads, exits 0"

# ---- 3. started without privileges
mkdir -p "$TMP/nobody/run"
chown -R nobody "$TMP/nobody"
start_notify
chmod 777 "$TMP/notify.sock"
conf "$TMP/np.conf"
sed -i '/^socket = /d; s/^hugepages = off/hugepages = auto/' "$TMP/np.conf"
chmod 644 "$TMP/np.conf" "$TMP/feed.pcap"
: >"$TMP/toed.log"
NOTIFY_SOCKET=$TMP/notify.sock XDG_RUNTIME_DIR=$TMP/nobody/run \
	setpriv --reuid="$nobody_uid" --regid="$nobody_gid" --clear-groups \
	"$TOED" -c "$TMP/np.conf" --foreground --user root >>"$TMP/toed.log" 2>&1 &
TOED_PID=$!
wait_for "$TMP/notify.log" 'READY=1' 10 || fail "no READY=1 without privileges"
sock=$TMP/nobody/run/toed/toed.sock
[ -S "$sock" ] || fail "no fallback socket at $sock"
grep -q "using $sock" "$TMP/toed.log" || fail "the fallback is not logged"
grep -q 'cannot switch to user root: not running as root' "$TMP/toed.log" || fail "no warning about --user"
served "$sock" "unprivileged"
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "unprivileged toed exited $TOED_RC"
say "unprivileged: warnings only, socket in \$XDG_RUNTIME_DIR/toed, normal pages, serves, exits 0"

echo "PASS: privileges dropped, and fail-soft without them"
exit 0
