#!/bin/sh
# test_fuzz_corpus.sh - the committed seed corpus of fuzz_net_rx is what its generator writes today.
#
# tests/fuzz/corpus/fuzz_net_rx/ holds binary files made by
# tests/fuzz/gen_corpus_net_rx.c (pktbuild frames, SSE STEP messages). A change
# to the frame format (fuzz_frames.h), the packet builder or the feed
# generator must come with regenerated seeds, or the fuzzer would start from
# inputs that no longer reach the pipeline: this test regenerates them into a
# temporary folder and compares file by file. Files named found_* are inputs
# a fuzzing run found (kept as regressions, listed in the corpus README), not
# the generator's.
set -u
BUILD=${BUILD:-build}
make -s BUILD="$BUILD" "$BUILD/fuzz-gen/gen_corpus_net_rx" >/dev/null 2>&1 || { echo "FAIL: cannot build the generator"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$BUILD/fuzz-gen/gen_corpus_net_rx" "$W" || { echo "FAIL: the generator failed"; exit 1; }
C=tests/fuzz/corpus/fuzz_net_rx
fail=0
for f in "$W"/*; do
	n=$(basename "$f")
	if ! cmp -s "$f" "$C/$n"; then
		echo "FAIL: $C/$n differs from the generator's output (regenerate: $BUILD/fuzz-gen/gen_corpus_net_rx $C)"
		fail=1
	fi
done
for f in "$C"/*; do
	case "$(basename "$f")" in found_*) continue ;; esac
	[ -e "$W/$(basename "$f")" ] || { echo "FAIL: $f is not written by the generator"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok   $(ls "$W" | wc -l) seeds equal to the generator's output"
exit $fail
