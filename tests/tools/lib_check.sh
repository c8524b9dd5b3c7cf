# lib_check.sh - the head of the tools' test scripts (sourced, POSIX sh): a work folder W removed at exit, and
#   check DESCRIPTION COMMAND...   runs COMMAND: prints "ok   DESCRIPTION", or "FAIL DESCRIPTION" and sets fail=1
#   built TARGET...                makes the targets (quietly), or prints FAIL and ends the script
#   records FILE                   the records in a tool's JSON-lines output (lines that are not events)
# with BUILD (default build), BIN (the ASan builds of the tools) and T (the SSE template file) set.
# A script ends with [ $fail -eq 0 ].
BUILD=${BUILD:-build}
BIN=$BUILD/asan/bin
T=conf/templates/sse-l2-3201-5801.xml
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
check() { # description, condition...
	d=$1; shift
	if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fail=1; fi
}
built() {
	make -s BUILD="$BUILD" "$@" >/dev/null 2>&1 || { echo "FAIL: cannot build $*"; exit 1; }
}
records() { grep -vc '"event"' "$1"; }
