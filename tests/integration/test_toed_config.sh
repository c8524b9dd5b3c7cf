#!/bin/sh
# test_toed_config.sh - toed's command line and configuration errors.
#
#   --version and usage errors (exit 2);
#   --check-config: a good file exits 0 and says so; a bad file exits 78 and
#     names file:line, section, key, value and reason for every error;
#   starting with a bad file: exit 78 with the same messages and nothing
#     started: no control socket, no READY=1, no recording file created;
#   a feed's own window that is not a power of two: 78, file:line; a feed's
#     mss and window on a mirror port: a warning only (exit 0);
#   a file toed cannot run (backend = xrt with an xclbin that is not one) is a
#     configuration error too (78), with --check-config and at start;
#   what is not a small text file is refused at once with 78 and a message naming
#     it: /dev/zero, a FIFO (which used to block forever), a file over 1 MiB, a
#     line over 4 KiB (file:line), hugepages beyond what the rings can use.
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

# ---- a feed's own mss and window: a bad value is an error (78, file:line); on this mirror port a good
# one only has no effect, which is said and is no error
conf "$TMP/feedlim.conf" "[feed.two]
exchange = 10.1.0.11:5261
mss = 1024
window = 3K"
line_win=$(grep -n '^window = 3K' "$TMP/feedlim.conf" | cut -d: -f1)
"$TOED" --check-config -c "$TMP/feedlim.conf" >"$TMP/check.out" 2>&1
rc=$?
[ $rc -eq 78 ] && grep -q "^$TMP/feedlim.conf:$line_win: \[feed.two\] window = 3K: not a power of two" "$TMP/check.out" ||
	fail "--check-config of [feed.two] window = 3K: exit $rc: $(cat "$TMP/check.out")"
sed 's/^window = 3K$/window = 4K/' "$TMP/feedlim.conf" >"$TMP/feedlim2.conf"
"$TOED" --check-config -c "$TMP/feedlim2.conf" >"$TMP/check.out" 2>&1 ||
	fail "--check-config of a feed's mss and window on a mirror port refused: $(cat "$TMP/check.out")"
grep -q "warning: \[feed.two\] mss = 1024: has no effect: port 0 has role = mirror" "$TMP/check.out" ||
	fail "no warning for a feed's mss on a mirror port: $(cat "$TMP/check.out")"
say "[feed.NAME] window = 3K: exit 78 (file:line); mss and window on a mirror port: warned, exit 0"

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

# ---- limits of the reader: each refused at once (5 s is generous), exit 78, the file named
limit() { # NAME FILE PATTERN
	_s=$(date +%s)
	timeout 5 "$TOED" --check-config -c "$2" >"$TMP/limit.out" 2>&1
	_rc=$?
	[ $_rc -eq 124 ] && fail "$1: --check-config -c $2 still running after 5 s"
	[ $_rc -eq 78 ] || fail "$1: exited $_rc, not 78: $(head -c 300 "$TMP/limit.out")"
	grep -q -- "$3" "$TMP/limit.out" || fail "$1: no message matching '$3': $(head -c 300 "$TMP/limit.out")"
	say "$1: exit 78 in $(($(date +%s) - _s)) s: $(head -n 1 "$TMP/limit.out")"
}
limit "/dev/zero" /dev/zero "^/dev/zero: not a regular file (a character device)"
mkfifo "$TMP/fifo.conf" || fail "mkfifo"
limit "a FIFO" "$TMP/fifo.conf" "^$TMP/fifo.conf: not a regular file (a FIFO)"
head -c 3000000 /dev/zero | tr '\0' '#' >"$TMP/big.conf"
limit "a 3 MB file" "$TMP/big.conf" "^$TMP/big.conf: 3000000 bytes: larger than 1048576 bytes (1 MiB)"
conf "$TMP/line.conf" "[tcp]
mss = 1344"
{
	printf '[record]\npcap = '
	head -c 500000 /dev/zero | tr '\0' 'x'
	printf '\n'
} >>"$TMP/line.conf"
line_long=$(grep -c '' "$TMP/line.conf")
limit "a 500 KB line" "$TMP/line.conf" "^$TMP/line.conf:$line_long: line longer than 4096 bytes"
conf "$TMP/huge.conf"
sed -i 's/^hugepages = off/hugepages = 65536/' "$TMP/huge.conf"
line_huge=$(grep -n '^hugepages = 65536' "$TMP/huge.conf" | cut -d: -f1)
limit "hugepages = 65536" "$TMP/huge.conf" "^$TMP/huge.conf:$line_huge: \[shm\] hugepages = 65536: more than"

echo "PASS: toed command line and configuration errors"
exit 0
