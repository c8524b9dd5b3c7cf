#!/bin/sh
# test_toed_systemd.sh - the unit file: systemd-analyze verify and security, and what toed relies on.
#
#   - `systemd-analyze verify` accepts systemd/toed.service (ExecStart pointed
#     at the built binary, which verify requires to exist);
#   - `systemd-analyze security --offline=yes` rates it at most 5.0 ("OK");
#   - the settings the daemon's behaviour depends on are there: Type=notify,
#     NotifyAccess=main, WatchdogSec, Restart=on-failure,
#     RestartPreventExitStatus=78, RuntimeDirectory=toed, ExecReload sending
#     SIGHUP, CAP_SETPCAP in the bounding set (toed shrinks it itself);
#   - the command line of ExecStart is one toed accepts (--check-config with
#     the same options parses).
# Exit 77 without systemd-analyze. Needs no root. Takes about 2 s.
. "$(dirname "$0")/toed_common.sh"

command -v systemd-analyze >/dev/null 2>&1 || skip "systemd-analyze not installed"
UNIT=systemd/toed.service
[ -f "$UNIT" ] || fail "$UNIT missing"

case $TOED in
/*) bin=$TOED ;;
*) bin=$(pwd)/$TOED ;;
esac
sed "s|^ExecStart=[^ ]*|ExecStart=$bin|" "$UNIT" >"$TMP/toed.service"
systemd-analyze verify "$TMP/toed.service" >"$TMP/verify.log" 2>&1 || fail "systemd-analyze verify: $(cat "$TMP/verify.log")"
[ -s "$TMP/verify.log" ] && fail "systemd-analyze verify warned: $(cat "$TMP/verify.log")"
say "systemd-analyze verify: clean"

systemd-analyze security --offline=yes "$TMP/toed.service" >"$TMP/security.log" 2>&1 ||
	fail "systemd-analyze security: $(tail -n 3 "$TMP/security.log")"
score=$(sed -n 's/.*Overall exposure level for toed.service: \([0-9.]*\).*/\1/p' "$TMP/security.log")
[ -n "$score" ] || fail "no exposure level in: $(tail -n 3 "$TMP/security.log")"
awk -v s="$score" 'BEGIN { exit !(s <= 5.0) }' || fail "exposure level $score above 5.0"
say "systemd-analyze security: exposure $score"

for want in '^Type=notify$' '^NotifyAccess=main$' '^WatchdogSec=' '^Restart=on-failure$' \
	'^RestartPreventExitStatus=78$' '^RuntimeDirectory=toed$' '^ExecReload=.*kill -HUP \$MAINPID' \
	'^CapabilityBoundingSet=.*CAP_SETPCAP' '^CapabilityBoundingSet=.*CAP_SYS_NICE' \
	'^CapabilityBoundingSet=.*CAP_NET_ADMIN'; do
	grep -q -- "$want" "$UNIT" || fail "$UNIT lacks $want"
done
say "unit settings toed relies on are present"

# ExecStart's options, applied to a test configuration
args=$(sed -n 's/^ExecStart=[^ ]* *//p' "$UNIT" | sed 's/-c [^ ]*//')
conf "$TMP/t.conf"
mkfeed 10 1
# shellcheck disable=SC2086
"$TOED" $args -c "$TMP/t.conf" --check-config >/dev/null 2>&1 || fail "ExecStart options ($args) refused by toed"
say "ExecStart's command line is accepted"

# --user toed: the user the unit names is one systemd/toed.sysusers creates
echo "$args" | grep -q -- '--user toed' || fail "ExecStart does not leave uid 0 (--user toed)"
if command -v systemd-sysusers >/dev/null 2>&1; then
	mkdir -p "$TMP/root/etc" "$TMP/root/usr/lib/sysusers.d"
	cp systemd/toed.sysusers "$TMP/root/usr/lib/sysusers.d/toed.conf"
	systemd-sysusers --root="$TMP/root" >"$TMP/sysusers.log" 2>&1 ||
		fail "systemd-sysusers refused systemd/toed.sysusers: $(cat "$TMP/sysusers.log")"
	grep -q '^toed:' "$TMP/root/etc/passwd" || fail "systemd/toed.sysusers creates no user toed"
	say "systemd/toed.sysusers creates the user toed"
fi
# a --user that does not exist: the start fails (78) instead of running as root
conf "$TMP/u.conf"
"$TOED" -c "$TMP/u.conf" --foreground --user nosuchuser-h9 >"$TMP/u.log" 2>&1
rc=$?
[ $rc -eq 78 ] || fail "--user nosuchuser-h9 exited $rc, not 78: $(cat "$TMP/u.log")"
grep -q "nosuchuser-h9" "$TMP/u.log" || fail "the error does not name the user: $(cat "$TMP/u.log")"
say "a --user that does not exist: exit 78"

echo "PASS: systemd unit"
exit 0
