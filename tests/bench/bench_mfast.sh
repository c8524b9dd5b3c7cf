#!/bin/sh
# bench_mfast.sh - toed's FAST decoders beside mFAST's, one core, same stream, from memory.
#
#   MFAST_DIR=/path/to/mFAST sh tests/bench/bench_mfast.sh
#
# Issue 11's comparison: a deterministic 1M-record mixed 3201/5801 SSE stream
# with a dictionary reset every 10 records (bench_fastx's input, written with
# BENCH_DUMP_RAW) decoded from memory by
#   mfast_generated_v2:       mFAST's fast_decoder_v2 on C++ that its
#                             fast_type_gen generated from the template XML;
#   mfast_runtime_templates:  mFAST's fast_decoder, templates parsed at run time;
#   ref_raw_decode_only / ref_raw_tick / fastx_raw_*: toed's reference decoder
#                             (without / with the tick mapping) and the CPU fast
#                             decoder into tick records (bench_fastx).
# mFAST's decoders build its message objects and toed's fast path builds tick
# records; neither maps to the other's output, so this is decode work per
# record, each doing what it is for. Rounds run interleaved
# (MFAST_ROUNDS, default 5: mFAST generated, mFAST runtime, toed), each
# process pinned to the same CPU (MFAST_CPU, default 1); times are thread CPU
# time; the best and median over rounds are printed per decoder.
#
# mFAST is not part of the project and nothing of it is copied here:
# MFAST_DIR names a checkout (https://github.com/objectcomputing/mFAST, with
# its tinyxml2 submodule; needs Boost headers). It is built once into
# MFAST_BUILD (default $BUILD/mfast-build: cmake, Release, no tests or
# examples), fast_type_gen runs on a copy of the template XML, and the
# driver tests/bench/mfast_driver.cpp (our code calling mFAST's API) is
# compiled against it. Without MFAST_DIR the script prints SKIP and exits 77.
set -u
cd "$(dirname "$0")/../.." || exit 1
root=$(pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
ROUNDS=${MFAST_ROUNDS:-5}
CPU=${MFAST_CPU:-1}
RECORDS=${BENCH_RECORDS:-1000000}
MB=${MFAST_BUILD:-$BUILD/mfast-build}
W=$BUILD/bench/mfast
XML=$root/conf/templates/sse-l2-3201-5801.xml

if [ -z "${MFAST_DIR:-}" ]; then
	echo "SKIP: no mFAST checkout given (MFAST_DIR=/path/to/mFAST, https://github.com/objectcomputing/mFAST)"
	exit 77
fi
if [ ! -f "$MFAST_DIR/CMakeLists.txt" ] || [ ! -f "$MFAST_DIR/tinyxml2/tinyxml2.cpp" ]; then
	echo "SKIP: $MFAST_DIR is not an mFAST checkout with its tinyxml2 submodule"
	exit 77
fi
for t in cmake g++ taskset; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
# toed's side brought up to date with the sources (a stale build would be timed otherwise)
make -s -C "$root" BUILD="$BUILD" "$BUILD/bench/bench_fastx" ||
	{ echo "bench_mfast: building $BUILD/bench/bench_fastx failed"; exit 1; }
mkdir -p "$MB" "$W"

# mFAST itself, once
if [ ! -x "$MB/src/fast_type_gen/fast_type_gen" ] || [ ! -f "$MB/src/mfast/libmfast.a" ]; then
	echo "building mFAST in $MB (once; several minutes on 2 CPUs)"
	(cd "$MB" && cmake "$MFAST_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTS=OFF -DBUILD_EXAMPLES=OFF \
		-DBUILD_PACKAGES=OFF -DBUILD_SHARED_LIBS=OFF >"$W/cmake.log" 2>&1 &&
		make -j2 >"$W/make.log" 2>&1) || {
		echo "bench_mfast: building mFAST failed, see $W/cmake.log and $W/make.log"
		exit 1
	}
fi

# the generated decoder: fast_type_gen on the XML (a C++ name: sse_l2)
cp "$XML" "$W/sse_l2.xml"
(cd "$W" && "$MB/src/fast_type_gen/fast_type_gen" sse_l2.xml >"$W/gen.log" 2>&1) || {
	echo "bench_mfast: fast_type_gen failed on the template XML, see $W/gen.log"
	exit 1
}
libs=""
for l in mfast_xml_parser mfast_coder mfast; do
	f=$(find "$MB/src" -name "lib$l.a" | head -n 1)
	[ -n "$f" ] || { echo "bench_mfast: lib$l.a not found under $MB/src"; exit 1; }
	libs="$libs $f"
done
tx=$(find "$MB/src" -name 'tinyxml2.cpp.o' | head -n 1)
if ! g++ -std=c++14 -O2 -DNDEBUG -I"$MFAST_DIR/src" -I"$MB/src" -I"$W" -I"$MFAST_DIR/tinyxml2" \
	-DMFAST_GEN_HEADER='"sse_l2.h"' -DMFAST_GEN_NS=sse_l2 -DMFAST_CODER_STATIC_DEFINE -DMFAST_STATIC_DEFINE \
	tests/bench/mfast_driver.cpp "$W/sse_l2.cpp" $tx $libs -o "$W/mfast_driver" >"$W/driver.log" 2>&1; then
	echo "bench_mfast: compiling the driver failed, see $W/driver.log"
	exit 1
fi

# the stream
BENCH_RECORDS=$RECORDS BENCH_DUMP_RAW="$W/raw.fast" "$BUILD/bench/bench_fastx" || exit 1

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); every decoder pinned to CPU $CPU; $ROUNDS rounds, interleaved"
: >"$W/results"
r=0
while [ $r -lt "$ROUNDS" ]; do
	taskset -c "$CPU" "$W/mfast_driver" gen "$W/raw.fast" "$W/sse_l2.xml" "$RECORDS" 10 1 >"$W/round.out" 2>&1 ||
		{ cat "$W/round.out"; exit 1; }
	grep '^RESULT' "$W/round.out" >>"$W/results"
	[ $r -eq 0 ] && grep -v '^RESULT' "$W/round.out"
	taskset -c "$CPU" "$W/mfast_driver" rt "$W/raw.fast" "$W/sse_l2.xml" "$RECORDS" 10 1 >"$W/round.out" 2>&1 ||
		{ cat "$W/round.out"; exit 1; }
	grep '^RESULT' "$W/round.out" >>"$W/results"
	[ $r -eq 0 ] && grep -v '^RESULT' "$W/round.out"
	BENCH_RECORDS=$RECORDS BENCH_REPS=1 taskset -c "$CPU" "$BUILD/bench/bench_fastx" >"$W/round.out" 2>&1 ||
		{ cat "$W/round.out"; exit 1; }
	grep '^RESULT' "$W/round.out" | grep -v '_step_' >>"$W/results"
	r=$((r + 1))
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
# best and median per decoder over the rounds (each round's one figure: its _best field)
sed -n 's/^RESULT .*"variant":"\([^"]*\)".*"ns_per_record_best":\([0-9.]*\).*/\1 \2/p' "$W/results" |
	sort -k1,1 -k2,2n | awk -v load="$(cut -d' ' -f1-3 /proc/loadavg)" -v cpu="$CPU" '
	{ v[$1] = v[$1] " " $2; n[$1]++ }
	END {
		printf "%-26s %12s %12s %8s\n", "decoder", "ns/rec best", "ns/rec p50", "rounds"
		for (k in v) {
			split(substr(v[k], 2), a, " ")
			printf "%-26s %12.1f %12.1f %8d\n", k, a[1], a[int((n[k] + 1) / 2)], n[k] | "sort"
		}
		close("sort")
		for (k in v) {
			split(substr(v[k], 2), a, " ")
			printf "RESULT {\"bench\":\"mfast_side_by_side\",\"decoder\":\"%s\",\"ns_per_record_best\":%.2f,\"ns_per_record_p50\":%.2f,\"rounds\":%d,\"cpu\":%d,\"load\":\"%s\"}\n", k, a[1], a[int((n[k] + 1) / 2)], n[k], cpu, load
		}
	}'
