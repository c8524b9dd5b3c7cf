#!/bin/sh
# tests/fuzz/run.sh - run every libFuzzer target in $BUILD/fuzz/ for a while.
#
#   BUILD=build FUZZ_SECONDS=300 sh tests/fuzz/run.sh     (what `make fuzz` runs)
#
# Each target runs for $FUZZ_SECONDS seconds (default 300), one after the
# other (the machines here have 2 cores), from the repository root (targets
# read conf/templates/), on its seed corpus tests/fuzz/corpus/<name>/ and a
# scratch corpus $BUILD/fuzz-corpus/<name>/ that keeps what it finds between
# runs. Crash inputs go to $BUILD/fuzz-artifacts/<name>/, full logs to
# $BUILD/fuzz-logs/<name>.log. FUZZ_FILTER=substring runs a subset. Prints
# PASS/FAIL per target and "N passed, N failed"; exits non-zero on any crash.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-300}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
pass=0 fail=0 failed=""

found=0
for f in "$BUILD"/fuzz/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	n=$(basename "$f")
	case "$n" in *"${FUZZ_FILTER:-}"*) ;; *) continue ;; esac
	found=1
	mkdir -p "$BUILD/fuzz-corpus/$n" "$BUILD/fuzz-artifacts/$n" "$BUILD/fuzz-logs"
	log="$BUILD/fuzz-logs/$n.log"
	seeds=""
	[ -d "tests/fuzz/corpus/$n" ] && seeds="tests/fuzz/corpus/$n"
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$f" -max_total_time="$FUZZ_SECONDS" -timeout=25 -print_final_stats=1 \
		-artifact_prefix="$BUILD/fuzz-artifacts/$n/" \
		"$BUILD/fuzz-corpus/$n" $seeds >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS fuzz/$n (${secs}s, ${runs:-?} runs)"
	else
		fail=$((fail + 1))
		failed="$failed $n"
		echo "FAIL fuzz/$n (exit $rc, ${secs}s; log $log, inputs in $BUILD/fuzz-artifacts/$n/)"
		grep -E 'ERROR|SUMMARY|fuzz_[a-z_]*:|Test unit written|^ *#[0-9]+ ' "$log" | head -n 30 | sed 's/^/    /'
	fi
done

if [ $found -eq 0 ]; then
	echo "no fuzz targets in $BUILD/fuzz/ (make BUILD=$BUILD fuzz builds them)"
	exit 1
fi
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
