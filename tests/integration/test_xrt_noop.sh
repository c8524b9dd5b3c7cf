#!/bin/sh
# test_xrt_noop.sh - toed's real XRT device operations against XRT's noop shim, and the real shim without a card.
#
# Builds daemon/card/card_xrt.c (TOED_HAVE_XRT), daemon/card/card_ip.cpp, the backend and
# tests/integration/xrt_noop_smoke.cpp twice: linked with -lxrt_noop (a shim
# that opens a device, loads an xclbin and allocates buffers without a card,
# but refuses register access) and with -lxrt_core (the real shim; this
# machine has no card). Generates a metadata-only xclbin from XRT's xclbin.h
# structures (xrt_mkxclbin.c). Our code runs under ASan+UBSan. Checks:
#   - xclbin.h's offsets are those daemon/card/card_xclbin.c reads (static_assert),
#     and the parser finds in the generated file the UUID, the compute units,
#     the HBM bank and register offset of each of hbm_writer_top's ports;
#   - noop: open (first device; a BDF it lacks is "no card"), load the
#     xclbin, the device's UUID is the file's, 1 MB buffers allocated,
#     mapped and synced in the four HBM banks, xrt::ip opened for every
#     compute unit, register reads and writes refused with an error (no
#     crash, no exception escaping), toe_xrt_open failing with a clear line;
#   - real shim: toe_xrt_open at a BDF with no card says so;
#   - XRT prints nothing (its banner and log are quieted).
# Exit 0 pass, 1 fail, 77 skip (libxrt-dev / uuid-dev missing).
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
out=$BUILD/xrt-noop

for tool in gcc g++ pkg-config; do
	command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool not found"; exit 77; }
done
for h in /usr/include/xrt/xrt/xrt_device.h /usr/include/xrt/experimental/xrt_ip.h /usr/include/xrt/xclbin.h; do
	[ -f "$h" ] || { echo "SKIP: $h missing (apt-get install libxrt-dev)"; exit 77; }
done
[ -f /usr/include/uuid/uuid.h ] || { echo "SKIP: uuid/uuid.h missing (apt-get install uuid-dev)"; exit 77; }
for lib in xrt_noop xrt_core xrt_coreutil; do
	case $(gcc -print-file-name=lib$lib.so) in
	/*) ;;
	*) echo "SKIP: lib$lib.so missing (apt-get install libxrt-dev)"; exit 77 ;;
	esac
done
pkg-config --exists libxml-2.0 || { echo "SKIP: libxml-2.0 development files missing"; exit 77; }

INC="-Iclient-lib/include -Ikernels -Idaemon -Itools -Itests/lib"
XRT="-DTOED_HAVE_XRT -isystem /usr/include/xrt"
# our code under ASan+UBSan (XRT's libraries run uninstrumented inside)
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
CFLAGS="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE $INC -O1 -g $SAN $(pkg-config --cflags libxml-2.0)"
CXXFLAGS="-std=c++17 -Wall -Wextra -Werror -D_GNU_SOURCE $INC -O1 -g $SAN"
LIBS="$(pkg-config --libs libxml-2.0) -luuid -lm -lpthread"

mkdir -p "$out/obj" || exit 1
rm -f "$out"/obj/*.o "$out"/smoke_* "$out"/mkxclbin

# The C kernels: the Makefile's ASan library when it is up to date, else compiled here.
core=$BUILD/asan/lib/libtoecore.a
if [ ! -f "$core" ] || [ -n "$(find kernels -name '*.[ch]' -newer "$core" | head -n 1)" ]; then
	for src in kernels/*/*.c kernels/*/host/*.c; do
		# shellcheck disable=SC2086
		gcc $CFLAGS -c "$src" -o "$out/obj/core_$(echo "$src" | tr / _).o" || { echo "FAIL: compiling $src"; exit 1; }
	done
	core="$out/obj/core_*.o"
fi
for src in daemon/card/card_backend.c daemon/card/card_xclbin.c daemon/card/card_xrt.c; do
	# shellcheck disable=SC2086
	gcc $CFLAGS $XRT -c "$src" -o "$out/obj/$(basename "$src" .c).o" || { echo "FAIL: compiling $src"; exit 1; }
done
# shellcheck disable=SC2086
g++ $CXXFLAGS $XRT -c daemon/card/card_ip.cpp -o "$out/obj/xrt_ip.o" || { echo "FAIL: compiling daemon/card/card_ip.cpp"; exit 1; }
# shellcheck disable=SC2086
g++ $CXXFLAGS $XRT -c tests/integration/xrt_noop_smoke.cpp -o "$out/obj/smoke.o" ||
	{ echo "FAIL: compiling xrt_noop_smoke.cpp (xclbin.h offsets?)"; exit 1; }
objs="$out/obj/smoke.o $out/obj/card_backend.o $out/obj/card_xclbin.o $out/obj/card_xrt.o $out/obj/xrt_ip.o"
# shellcheck disable=SC2086
g++ $SAN $objs $core -Wl,--no-as-needed -lxrt_noop -Wl,--as-needed -lxrt_coreutil $LIBS -o "$out/smoke_noop" ||
	{ echo "FAIL: linking with -lxrt_noop"; exit 1; }
# shellcheck disable=SC2086
g++ $SAN $objs $core -Wl,--no-as-needed -lxrt_core -Wl,--as-needed -lxrt_coreutil $LIBS -o "$out/smoke_real" ||
	{ echo "FAIL: linking with -lxrt_core"; exit 1; }
gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 tests/integration/xrt_mkxclbin.c -o "$out/mkxclbin" ||
	{ echo "FAIL: compiling xrt_mkxclbin.c"; exit 1; }

uuid=5e1f0c0ffee0d00d0123456789abcdef
"$out/mkxclbin" "$out/toed-meta.xclbin" $uuid || { echo "FAIL: xrt_mkxclbin"; exit 1; }

rc=0
unset XILINX_XRT TOED_XRT_VERBOSITY
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if ! "$out/smoke_noop" noop "$out/toed-meta.xclbin" $uuid >"$out/noop.out" 2>"$out/noop.err"; then
	echo "FAIL: noop shim"; rc=1
fi
if ! "$out/smoke_real" real "$out/toed-meta.xclbin" >"$out/real.out" 2>"$out/real.err"; then
	echo "FAIL: real shim without a card"; rc=1
fi
cat "$out/noop.out" "$out/real.out"
# XRT's console log is off: no banner, no "[XRT]" lines
for e in "$out/noop.err" "$out/real.err"; do
	if [ -s "$e" ]; then
		echo "FAIL: XRT (or the program) wrote to stderr:"; sed 's/^/    /' "$e"; rc=1
	fi
done
# and it comes back when asked for
TOED_XRT_VERBOSITY=6 "$out/smoke_real" real "$out/toed-meta.xclbin" >/dev/null 2>"$out/verbose.err"
grep -q "XRT" "$out/verbose.err" || { echo "FAIL: TOED_XRT_VERBOSITY=6 did not give XRT's log back"; rc=1; }
exit $rc
