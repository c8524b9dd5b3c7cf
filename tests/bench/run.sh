#!/bin/sh
# tests/bench/run.sh - `make bench`: run every benchmark and write one report.
#
# Each $BUILD/bench/bench_* program prints human-readable lines and lines of
# the form "RESULT {json}"; this script collects both into
# $BUILD/bench/report.txt and $BUILD/bench/report.json, headed by a
# description of the machine. Timings on these shared 2-core machines are
# noisy: compare variants within one run, trust p50/p90 and ratios.
set -u
BUILD=${BUILD:-build}
out=$BUILD/bench
txt=$out/report.txt
json=$out/report.json
mkdir -p "$out"
{
	echo "toed benchmark report, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "machine: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo
} >"$txt"
results=""
rc=0
for b in "$out"/bench_*; do
	[ -x "$b" ] || continue
	name=$(basename "$b")
	echo "== $name" | tee -a "$txt"
	if ! "$b" >"$out/$name.out" 2>&1; then
		echo "FAILED: $name" | tee -a "$txt"
		rc=1
	fi
	grep -v '^RESULT ' "$out/$name.out" | tee -a "$txt"
	for r in $(grep '^RESULT ' "$out/$name.out" | sed 's/^RESULT //; s/ /_SP_/g'); do
		results="$results${results:+,}$(echo "$r" | sed 's/_SP_/ /g')"
	done
	echo | tee -a "$txt"
done
printf '{"date":"%s","machine":"%s","cpus":%s,"results":[%s]}\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	"$(uname -srm)" "$(nproc)" "$results" >"$json"
echo "report: $txt $json"
exit $rc
