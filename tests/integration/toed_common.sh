# toed_common.sh - shared by the tests/integration/test_toed_*.sh scripts (sourced, POSIX sh).
#
# Sets BUILD, OUT ($BUILD/itest), TOED (the ASan build when there is a fresh one), TOED_TEST (toed with test doubles:
# tests/integration/toed_test.c), TMP (a temporary folder removed at exit), builds what the tests need when missing,
# and provides:
#   mkfeed RECORDS SEED [mkpcap options]   feed.step, truth.jsonl, feed.pcap in $TMP
#   conf FILE [EXTRA]                       a pcap-replay configuration for $TMP/feed.pcap (+ EXTRA lines)
#   start_notify                            notification socket at $TMP/notify.sock -> $TMP/notify.log
#   start_toed CONF [toed options]          toed in the foreground, log in $TMP/toed.log, pid TOED_PID
#   wait_for FILE PATTERN SECONDS           wait until grep -q PATTERN FILE
#   wait_file FILE SECONDS                  wait until FILE exists
#   wait_exit PID SECONDS                   wait for a process to end, status in WAIT_RC
#   stop_toed [SIGNAL]                      signal toed (TERM) and wait for it; status in TOED_RC
#   xdp_plain                               true when toed loaded toe_steer_plain (AF_XDP stamps at the poll)
#   bg_pid PID                              kill PID at exit
# Every background process is killed and $TMP removed by the EXIT trap.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$BUILD/itest
T=conf/templates/sse-l2-3201-5801.xml
TEMPLATES=$(pwd)/$T

skip() { echo "SKIP: $*"; exit 77; }
fail() {
	echo "FAIL: $*"
	if [ -n "${TMP:-}" ] && [ -f "$TMP/toed.log" ]; then
		echo "--- toed log (last 30 lines):"
		tail -n 30 "$TMP/toed.log"
	fi
	exit 1
}
say() { echo "== $*"; }

# ---- build -------------------------------------------------------------------
need="$BUILD/bin/toed $BUILD/bin/toectl $BUILD/bin/toe-fastgen $BUILD/bin/toe-dump $OUT/mkpcap $OUT/tick_client $OUT/notify_listen
	$OUT/toed_test"
missing=
for f in $need; do
	[ -x "$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	make -s BUILD="$BUILD" $missing >/dev/null 2>&1 || {
		echo "FAIL: cannot build:$missing"
		exit 1
	}
fi
# the ASan/UBSan build of toed when `make test-build` made it: memory errors, leaks at exit and undefined
# behaviour in the daemon then fail the tests (TOED=... picks another binary)
. tests/integration/lib_util.sh
TOED=${TOED:-$(asan_fresh "$BUILD/bin/toed" "$BUILD/asan/bin/toed")}
# toed's main with test options (a fake card, a stalled data plane; the release toed has none), ASan too when fresh
TOED_TEST=${TOED_TEST:-$(asan_fresh "$OUT/toed_test" "$BUILD/asan/itest/toed_test")}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
TOECTL=$BUILD/bin/toectl

# ---- cleanup -------------------------------------------------------------------
TMP=$(mktemp -d /tmp/toed-test.XXXXXX) || fail "mktemp"
chmod 755 "$TMP"
PIDS=
TOED_PID=
bg_pid() { PIDS="$PIDS $1"; }
# shellcheck disable=SC2317 # called by the trap
toed_cleanup() {
	for p in $TOED_PID $PIDS; do
		kill "$p" 2>/dev/null
	done
	sleep 0.1
	for p in $TOED_PID $PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	[ -n "${EXTRA_CLEANUP:-}" ] && eval "$EXTRA_CLEANUP"
	rm -rf "$TMP"
}
trap toed_cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# ---- helpers ---------------------------------------------------------------------
mkfeed() { # RECORDS SEED [mkpcap options...]   (FASTGEN_OPTS: more toe-fastgen options)
	_n=$1 _seed=$2
	shift 2
	# shellcheck disable=SC2086 # FASTGEN_OPTS is a list of options
	"$BUILD/bin/toe-fastgen" --templates "$T" --records "$_n" --seed "$_seed" --framing step --per-msg 4 ${FASTGEN_OPTS:-} \
		--truth "$TMP/truth.jsonl" -o "$TMP/feed.step" || fail "toe-fastgen"
	"$OUT/mkpcap" "$@" "$TMP/feed.step" "$TMP/feed.pcap" >/dev/null || fail "mkpcap"
}

conf() { # FILE [EXTRA]: a pcap replay of $TMP/feed.pcap; EXTRA (ini lines, sections) is appended
	{
		cat <<EOF
[source]
type = pcap
pcap_file = $TMP/feed.pcap
pcap_pace = ${PACE:-fast}
pcap_loop = ${LOOPS:-1}

[feed.sse]
exchange = 10.1.0.10:5261

[fast]
templates = $TEMPLATES

[shm]
hugepages = off
socket = $TMP/toed.sock

[log]
target = stderr
level = ${LEVEL:-info}
EOF
		[ -n "${2:-}" ] && printf '%s\n' "$2"
	} >"$1"
}

start_notify() { # (a new listener each time: the previous one is stopped first)
	if [ -n "${NOTIFY_PID:-}" ]; then
		kill "$NOTIFY_PID" 2>/dev/null
		wait "$NOTIFY_PID" 2>/dev/null
	fi
	rm -f "$TMP/notify.log" "$TMP/notify.sock"
	: >"$TMP/notify.log"
	"$OUT/notify_listen" "$TMP/notify.sock" "$TMP/notify.log" &
	NOTIFY_PID=$!
	bg_pid $NOTIFY_PID
	_i=0
	while [ ! -S "$TMP/notify.sock" ] && [ $_i -lt 50 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	[ -S "$TMP/notify.sock" ] || fail "notification socket not created"
}

start_toed() { # CONF [options]
	_c=$1
	shift
	NOTIFY_SOCKET=$TMP/notify.sock "$TOED" -c "$_c" --foreground "$@" >>"$TMP/toed.log" 2>&1 &
	TOED_PID=$!
}

wait_exit() { # PID SECONDS: wait for a process to end; status in WAIT_RC (255: still running)
	_x=$(($2 * 20))
	while [ $_x -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.05
		_x=$((_x - 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		WAIT_RC=255
		return 1
	fi
	wait "$1"
	WAIT_RC=$?
	return 0
}

xdp_plain() { # true when the running toed's AF_XDP source loaded toe_steer_plain: this kernel's
	# verifier refused bpf_xdp_adjust_meta, so frames carry no arrival stamp and are stamped at the poll
	# (the phrase is SRC_DESC_XDP_PLAIN in daemon/src/src.h, in the source's description toed logs)
	grep -q 'this kernel refuses XDP metadata' "$TMP/toed.log"
}

stop_toed() { # [SIGNAL]
	kill -"${1:-TERM}" "$TOED_PID" 2>/dev/null
	wait_exit "$TOED_PID" 10 || fail "toed did not stop within 10 s after SIG${1:-TERM}"
	TOED_RC=$WAIT_RC
	TOED_PID=
}

# The truth lines a filter keeps: awk over the flat JSON of toe-fastgen --truth.
truth_filter() { # AWK-CONDITION (uses t = template, ch = channel, sec = security)
	awk -v cond="$1" '
	function field(k,   m) {
		if (match($0, "\"" k "\":\"?[^,\"}]*")) { m = substr($0, RSTART, RLENGTH); sub(/^[^:]*:"?/, "", m); return m }
		return ""
	}
	{
		t = field("template"); ch = field(t == 3201 ? "TradeChannel" : "OrderChannel"); sec = field("SecurityID")
		keep = 0
		if (cond == "trades") keep = (t == 3201)
		else if (cond == "orders") keep = (t == 5801)
		else if (cond ~ /^orders-ch:/) { split(substr(cond, 11), a, ","); for (i in a) if (t == 5801 && ch == a[i]) keep = 1 }
		else if (cond ~ /^sec:/) keep = (sec == substr(cond, 5))
		else keep = 1
		if (keep) print
	}' "$TMP/truth.jsonl"
}
