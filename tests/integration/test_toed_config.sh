#!/bin/sh
# test_toed_config.sh - toed's command line and configuration errors.
#
#   --version and usage errors (exit 2);
#   --check-config: a good file exits 0 and says so; a bad file exits 78 and
#     names file:line, section, key, value and reason for every error;
#   starting with a bad file: exit 78 with the same messages and nothing
#     started: no control socket, no READY=1, no recording file created;
#   a file toed cannot run (backend = xrt with an xclbin that is not one) is a
#     configuration error too (78), with --check-config and at start.
# Needs no root. Takes about 2 s.
. "$(dirname "$0")/toed_common.sh"

mkfeed 200 3

# ---- version, usage
"$TOED" --version | grep -q '^toed [0-9]' || fail "--version"
"$TOED" --no-such-option >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option must exit 2"

# ---- a good file
conf "$TMP/good.conf"
out=$("$TOED" --check-config -c "$TMP/good.conf" 2>&1)
[ $? -eq 0 ] || fail "--check-config of a good file: $out"
echo "$out" | grep -q "configuration OK" || fail "--check-config did not say OK: $out"
say "good file accepted"

# ---- a bad file: two errors on known lines, and a warning
conf "$TMP/bad.conf" "[tcp]
mss = 1500
windwo = 32K
[record]
ticks = $TMP/ticks.bin"
line_mss=$(grep -n '^mss = 1500' "$TMP/bad.conf" | cut -d: -f1)
line_typo=$(grep -n '^windwo' "$TMP/bad.conf" | cut -d: -f1)
"$TOED" --check-config -c "$TMP/bad.conf" >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 78 ] || fail "--check-config of a bad file exited $rc, not 78"
grep -q "^$TMP/bad.conf:$line_mss: \[tcp\] mss = 1500: above 1460" "$TMP/check.out" ||
	fail "no file:line message for mss: $(cat "$TMP/check.out")"
grep -q "^$TMP/bad.conf:$line_typo: \[tcp\] windwo" "$TMP/check.out" ||
	fail "no file:line message for the unknown key: $(cat "$TMP/check.out")"
say "--check-config: exit 78, file:line for each error"

# ---- starting with the bad file: 78, nothing started
start_notify
start_toed "$TMP/bad.conf"
wait_exit "$TOED_PID" 10 || fail "toed with a bad file is still running"
rc=$WAIT_RC
TOED_PID=
[ $rc -eq 78 ] || fail "toed with a bad file exited $rc, not 78"
grep -q "$TMP/bad.conf:$line_mss: \[tcp\] mss = 1500" "$TMP/toed.log" || fail "the start-up log lacks file:line"
[ -e "$TMP/toed.sock" ] && fail "a control socket was created"
[ -e "$TMP/ticks.bin" ] && fail "the recording file was created"
grep -q 'READY=1' "$TMP/notify.log" && fail "READY=1 was sent"
say "start with a bad file: exit 78, no socket, no READY=1, no file"

# ---- a file this build cannot run
conf "$TMP/xrt.conf" "[device]
backend = xrt
xclbin = $TMP/feed.pcap"
"$TOED" --check-config -c "$TMP/xrt.conf" >"$TMP/xrt.out" 2>&1
rc=$?
[ $rc -eq 78 ] || fail "--check-config with backend = xrt exited $rc: $(cat "$TMP/xrt.out")"
grep -q 'backend = xrt' "$TMP/xrt.out" || fail "no message about the backend: $(cat "$TMP/xrt.out")"
: >"$TMP/toed.log"
start_toed "$TMP/xrt.conf"
wait_exit "$TOED_PID" 10 || fail "toed with backend = xrt is still running"
rc=$WAIT_RC
TOED_PID=
[ $rc -eq 78 ] || fail "toed with backend = xrt exited $rc, not 78"
[ -e "$TMP/toed.sock" ] && fail "a control socket was created (xrt)"
say "backend = xrt: exit 78"

echo "PASS: toed command line and configuration errors"
exit 0
