#!/bin/sh
# tests/bench/run.sh - `make bench`: run every benchmark and write one report.
#
# Runs each $BUILD/bench/bench_* program (built from tests/bench/bench_*.c)
# and each tests/bench/bench_*.sh script (BUILD exported; the end-to-end
# benchmark needs root and network namespaces). Each prints human-readable
# lines and lines of the form "RESULT {json}"; this script collects both into
# $BUILD/bench/report.txt and $BUILD/bench/report.json, headed by a
# description of the machine (CPU model, CPUs, memory, kernel, load average at
# the start: the machines are shared), and lists the plots (PNG) the
# benchmarks left in $BUILD/bench/. Exit status 77 from a benchmark is a skip
# (its "SKIP: reason" line is reported), anything else non-zero a failure.
# Timings on these shared 2-core machines are noisy: compare variants within
# one run, trust p50/p90 and ratios.
set -u
BUILD=${BUILD:-build}
export BUILD
out=$BUILD/bench
txt=$out/report.txt
json=$out/report.json
mkdir -p "$out"
rm -f "$out"/*.png

json_str() { # a JSON string literal of $1
	printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\n\r\t')"
}
cpu_model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
mem_mb=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
load=$(cut -d' ' -f1-3 /proc/loadavg)
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "toed benchmark report, $date"
	echo "machine: $(uname -srm), $(nproc) CPUs, $cpu_model, $mem_mb MB"
	echo "load average at start: $load (other work on the machine disturbs the timings)"
	echo "commit: $commit"
	echo
} >"$txt"
results=""
skipped=""
failed=""
rc=0

collect() { # NAME OUTPUT-FILE STATUS
	name=$1 f=$2 st=$3
	if [ "$st" -eq 77 ]; then
		echo "SKIPPED: $name: $(grep -m1 'SKIP' "$f")" | tee -a "$txt"
		skipped="$skipped${skipped:+,}$(json_str "$name")"
	elif [ "$st" -ne 0 ]; then
		echo "FAILED: $name (exit $st)" | tee -a "$txt"
		failed="$failed${failed:+,}$(json_str "$name")"
		rc=1
	fi
	grep -v '^RESULT ' "$f" | tee -a "$txt"
	for r in $(grep '^RESULT ' "$f" | sed 's/^RESULT //; s/ /_SP_/g'); do
		results="$results${results:+,}$(echo "$r" | sed 's/_SP_/ /g')"
	done
	echo | tee -a "$txt"
}

for b in "$out"/bench_*; do
	[ -x "$b" ] && [ -f "$b" ] || continue
	case "$b" in *.out | *.dat | *.png | *.titles) continue ;; esac
	name=$(basename "$b")
	echo "== $name" | tee -a "$txt"
	"$b" >"$out/$name.out" 2>&1
	collect "$name" "$out/$name.out" $?
done
for s in tests/bench/bench_*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	echo "== $name" | tee -a "$txt"
	sh "$s" >"$out/$name.out" 2>&1
	collect "$name" "$out/$name.out" $?
done

plots=""
for p in "$out"/*.png; do
	[ -f "$p" ] || continue
	echo "plot: $p" | tee -a "$txt"
	plots="$plots${plots:+,}$(json_str "$p")"
done
printf '{"date":"%s","commit":"%s","machine":{"kernel":%s,"cpus":%s,"cpu_model":%s,"mem_mb":%s,"load_avg":%s},"cpus":%s,"results":[%s],"plots":[%s],"skipped":[%s],"failed":[%s]}\n' \
	"$date" "$commit" "$(json_str "$(uname -srm)")" "$(nproc)" "$(json_str "$cpu_model")" "${mem_mb:-0}" \
	"$(json_str "$load")" "$(nproc)" "$results" "$plots" "$skipped" "$failed" >"$json"
echo "report: $txt $json"
exit $rc
