#!/bin/sh
# tests/run.sh - run every test and print "N passed, N failed, N skipped".
#
# Runs each unit test program in $BUILD/test/, each test script
# tests/*/test_*.sh, and a bounded run of each fuzz target. Exit status 0 is
# a pass, 77 a skip (the program says why), anything else a failure, whose
# output is shown. TEST_FILTER=substring runs a subset.
BUILD=${BUILD:-build}
export BUILD
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
pass=0 fail=0 skip=0 failed=""
log=$(mktemp)
trap 'rm -f "$log" "$log".*' EXIT

want() { case "$1" in *"${TEST_FILTER:-}"*) return 0 ;; esac; return 1; }

record() { # name exit-status seconds output-file
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS $1 ($3s)"
	elif [ "$2" -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP $1: $(grep -h 'SKIP' "$4" | head -n 1)"
	else
		fail=$((fail + 1)); failed="$failed $1"
		echo "FAIL $1 (exit $2, $3s)"; tail -n 40 "$4" | sed 's/^/    /'
	fi
}

run() { # name command...
	name=$1; shift
	want "$name" || return 0
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	record "$name" $rc $(( $(date +%s) - start )) "$log"
}

for t in "$BUILD"/test/*; do
	[ -x "$t" ] && run "unit/$(basename "$t")" "$t"
done
for t in "$BUILD"/tsan/*; do
	[ -x "$t" ] && run "tsan/$(basename "$t")" "$t"
done
for t in tests/*/test_*.sh; do
	[ -f "$t" ] && run "${t#tests/}" sh "$t"
done
# The bounded fuzz runs last a fixed time each, so they run FUZZ_JOBS at a
# time (2: the CPUs of CI's machine); their results are printed in order.
fuzz_bg() { # name binary
	mkdir -p "$BUILD/fuzz-corpus/$1" "$BUILD/fuzz-artifacts/$1"
	seeds=""
	[ -d "tests/fuzz/corpus/$1" ] && seeds="tests/fuzz/corpus/$1"
	(
		start=$(date +%s)
		"$2" -max_total_time="${FUZZ_TEST_SECONDS:-20}" -timeout=10 -error_exitcode=1 \
			-artifact_prefix="$BUILD/fuzz-artifacts/$1/" "$BUILD/fuzz-corpus/$1" $seeds >"$log.$1" 2>&1
		echo "$? $(( $(date +%s) - start ))" >"$log.$1.rc"
	) &
}
fuzz_collect() {
	wait
	for n in $pending; do
		read -r rc secs <"$log.$n.rc"
		record "fuzz/$n" "$rc" "$secs" "$log.$n"
		rm -f "$log.$n" "$log.$n.rc"
	done
	pending="" npending=0
}
pending="" npending=0
for f in "$BUILD"/fuzz/*; do
	[ -x "$f" ] || continue
	n=$(basename "$f")
	want "fuzz/$n" || continue
	fuzz_bg "$n" "$f"
	pending="$pending $n" npending=$((npending + 1))
	[ "$npending" -ge "${FUZZ_JOBS:-2}" ] && fuzz_collect
done
fuzz_collect

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
