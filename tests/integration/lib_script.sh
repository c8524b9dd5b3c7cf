# lib_script.sh - the common head of the namespace test and bench scripts: checks that SKIP, a work folder, cleanup (sourced, POSIX sh).
# shellcheck shell=sh disable=SC2034 # here, root, BUILD, PY, WORK and pids are read by the scripts
#
# The integration scripts (tests/integration/test_mirror_*.sh, test_feedsim.sh,
# test_e2e_mirror.sh) and the benches (tests/bench/bench_burst.sh,
# bench_e2e.sh) all start the same way: check what they need and SKIP (exit 77)
# with the reason when something is missing, make a work folder, and on any
# exit kill what they started, delete their namespaces (lib_netns.sh, which
# this file sources) and the work folder.
#
#   skip REASON...            print "SKIP: REASON" and exit 77
#   fail REASON...            print "FAIL: REASON", then the last FAIL_LOG_LINES (20) lines of
#                             $FAIL_LOG when it is set and exists (toed's log), and exit 1
#                             (a script may define its own after sourcing)
#   script_needs_root         skip "needs root for network namespaces" unless root
#   script_needs_tools T...   skip "T is not installed" unless every T is on PATH
#   script_needs_python       skip "$PY is not installed" unless $PY is executable
#   script_needs_bpf_headers  skip unless libbpf-dev's bpf/bpf_helpers.h is installed
#   script_needs_built F...   skip "F is not built (make first)" unless every F exists
#                             (and is executable, unless it is a .o)
#   script_build F...         make every F that does not exist yet; skip "cannot build: F..."
#                             when make fails
#   script_netns CMD ARGS...  run a lib_netns.sh function: on 77 skip "$NETNS_WHY", on
#                             another failure fail "$NETNS_WHY"
#   script_workdir NAME       WORK=a new folder /tmp/NAME.XXXXXX, pids="" and the EXIT trap
#                             (script_cleanup), INT/TERM/HUP exit 1
#   script_cleanup            kill and reap $pids and $TOED_PID (lib_e2e.sh's daemon) when
#                             set, netns_cleanup, then delete $WORK, or print "kept: $WORK"
#                             when SCRIPT_KEEP is not empty
#
# Sourced by bash or sh first thing, from a script two folders below the
# repository (tests/integration, tests/bench), as . "$(dirname "$0")/lib_script.sh"
# (or ../integration/lib_script.sh): sets here (the script's folder), root (the
# repository, made the current folder), BUILD (absolute; build by default) and
# PY (/usr/bin/python3); defines skip, fail, the script_* functions, those of
# lib_util.sh (asan_fresh, wait_for, wait_file, vget), and WORK and pids (script_workdir).

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 1
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$root/$BUILD ;; esac
PY=/usr/bin/python3

. "$root/tests/integration/lib_netns.sh"
. "$root/tests/integration/lib_util.sh"

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	if [ -n "${FAIL_LOG:-}" ] && [ -f "$FAIL_LOG" ]; then
		echo "--- $(basename "$FAIL_LOG") (last ${FAIL_LOG_LINES:-20} lines):"
		tail -n "${FAIL_LOG_LINES:-20}" "$FAIL_LOG"
	fi
	exit 1
}

script_needs_root() {
	[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
}

script_needs_tools() { # T...
	for _t in "$@"; do
		command -v "$_t" >/dev/null 2>&1 || skip "$_t is not installed"
	done
}

script_needs_python() {
	[ -x "$PY" ] || skip "$PY is not installed"
}

script_needs_bpf_headers() {
	[ -f /usr/include/bpf/bpf_helpers.h ] || skip "libbpf-dev (bpf/bpf_helpers.h) is not installed"
}

script_needs_built() { # F...
	for _f in "$@"; do
		case $_f in
		*.o) [ -e "$_f" ] ;;
		*) [ -x "$_f" ] ;;
		esac || skip "$_f is not built (make first)"
	done
}

script_build() { # F...
	_missing=
	for _f in "$@"; do
		[ -e "$_f" ] || _missing="$_missing $_f"
	done
	# shellcheck disable=SC2086 # a list of files
	[ -z "$_missing" ] || make -s BUILD="$BUILD" $_missing >/dev/null 2>&1 || skip "cannot build:$_missing"
}

script_netns() { # CMD ARGS...
	"$@"
	case $? in
	0) ;;
	77) skip "$NETNS_WHY" ;;
	*) fail "$NETNS_WHY" ;;
	esac
}

# shellcheck disable=SC2317 # called by the trap
script_cleanup() {
	for _p in $pids ${TOED_PID:-}; do
		kill "$_p" 2>/dev/null
	done
	for _p in $pids ${TOED_PID:-}; do
		wait "$_p" 2>/dev/null
	done
	netns_cleanup
	if [ -n "${SCRIPT_KEEP:-}" ]; then
		echo "kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}

script_workdir() { # NAME
	WORK=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
	pids=""
	trap script_cleanup EXIT
	trap 'exit 1' INT TERM HUP
}
