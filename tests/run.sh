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
trap 'rm -f "$log"' EXIT

run() { # name command...
	name=$1; shift
	case "$name" in *"${TEST_FILTER:-}"*) ;; *) return ;; esac
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS $name (${secs}s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP $name: $(grep -h 'SKIP' "$log" | head -n 1)"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL $name (exit $rc, ${secs}s)"; tail -n 40 "$log" | sed 's/^/    /'
	fi
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
for f in "$BUILD"/fuzz/*; do
	[ -x "$f" ] || continue
	n=$(basename "$f")
	mkdir -p "$BUILD/fuzz-corpus/$n" "$BUILD/fuzz-artifacts/$n"
	seeds=""
	[ -d "tests/fuzz/corpus/$n" ] && seeds="tests/fuzz/corpus/$n"
	run "fuzz/$n" "$f" -max_total_time="${FUZZ_TEST_SECONDS:-20}" -timeout=10 -error_exitcode=1 \
		-artifact_prefix="$BUILD/fuzz-artifacts/$n/" "$BUILD/fuzz-corpus/$n" $seeds
done

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
