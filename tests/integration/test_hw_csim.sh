#!/bin/sh
# test_hw_csim.sh - C-simulation of the HLS tops (kernels/hw) against the software pipeline.
#
# Builds kernels/hw/csim/*.cpp and the tops with g++ (C++14, the
# hls_compat types where the Vitis headers are absent), links the C kernels
# compiled as C11 by gcc, and runs it twice: with 512-bit MAC beats (the
# 100G CMAC) and with 64-bit beats (a 10G MAC). Both under ASan+UBSan.
# Also checks that build_xclbin.sh refuses cleanly without v++ and that
# link.cfg names only kernels and ports that exist.
# Exit 0 pass, 1 fail, 77 skip.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
out=$BUILD/hw-csim

for tool in gcc g++ pkg-config; do
	command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool not found"; exit 77; }
done
pkg-config --exists libxml-2.0 libpcap || { echo "SKIP: libxml-2.0 or libpcap development files missing"; exit 77; }

SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
INC="-Iclient-lib/include -Ikernels -Itools -Itests/lib"
CFLAGS="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE $INC -O1 -g $SAN $(pkg-config --cflags libxml-2.0 libpcap)"
# -Wno-unknown-pragmas: the HLS pragmas are for Vitis; g++ ignores them
CXXFLAGS="-std=c++14 -Wall -Wextra -Werror -Wno-unknown-pragmas -D_GNU_SOURCE $INC -O1 -g $SAN"
LIBS="$(pkg-config --libs libxml-2.0 libpcap) -lm"
# the kernels, the feed generator and the test helpers (not the fake card nor the capturing frame
# source: they need the daemon)
CSRC="$(ls kernels/*/*.c kernels/*/host/*.c tools/feed/*.c tests/lib/*.c | grep -v '^tests/lib/card_\|^tests/lib/tx_capture')"
CXXSRC="$(ls kernels/hw/*.cpp kernels/hw/csim/*.cpp)"

# Rebuild everything when any source or header is newer than the last build;
# once more when one changed during the build (others edit the tree).
changed() {
	[ ! -f "$1" ] || [ -n "$(find kernels client-lib/include tools/feed tests/lib "$0" -newer "$1" -type f | head -n 1)" ]
}
# The C kernels: the Makefile's ASan build of them when it is up to date
# (make test has just built it, same flags), else compiled here.
SANLIB="$BUILD/asan/lib/libtoetest.a $BUILD/asan/lib/libtoefeed.a $BUILD/asan/lib/libtoecore.a"
build() {
	rm -f "$out"/obj/*.o "$out"/csim_*
	touch "$out/stamp.new"
	cobjs=$SANLIB
	for a in $SANLIB; do
		changed "$a" && cobjs=""
	done
	if [ -z "$cobjs" ]; then
		# shellcheck disable=SC2086
		printf '%s\n' $CSRC | xargs -P 2 -I{} sh -c 'gcc $0 -c "$1" -o "$2/obj/c_$(echo "$1" | tr / _).o"' \
			"$CFLAGS" {} "$out" || { echo "FAIL: compiling the C kernels as C"; return 1; }
		cobjs="$out/obj/c_*.o"
	fi
	for mac in 64 8; do
		objs=""
		for src in $CXXSRC; do
			o="$out/obj/mac${mac}_$(echo "$src" | tr / _).o"
			# only the tops on the MAC side and the driver see the MAC width
			case $mac:$src in
			8:*eth_rx_top.cpp | 8:*gtoe_top.cpp | 8:*tx_arb_top.cpp | 8:*csim/*.cpp | 64:*) ;;
			*) o="$out/obj/mac64_$(echo "$src" | tr / _).o" objs="$objs $o"; continue ;;
			esac
			# shellcheck disable=SC2086
			g++ $CXXFLAGS -DHW_MAC_BYTES=$mac -c "$src" -o "$o" || { echo "FAIL: compiling $src"; return 1; }
			objs="$objs $o"
		done
		# shellcheck disable=SC2086
		g++ $SAN $objs $cobjs $LIBS -o "$out/csim_mac$mac" || { echo "FAIL: linking"; return 1; }
	done
}
mkdir -p "$out/obj" || exit 1
for try in 1 2; do
	changed "$out/stamp" || break
	build || exit 1
	mv "$out/stamp.new" "$out/stamp"
	[ $try -eq 1 ] && ! changed "$out/stamp" && break
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rc=0
for mac in 64 8; do
	"$out/csim_mac$mac" || { echo "FAIL: csim with ${mac}-byte MAC beats"; rc=1; }
done

# build_xclbin.sh without v++ (an empty PATH): a clear message and exit 2
msg=$(PATH=/nonexistent /bin/sh kernels/hw/build_xclbin.sh xilinx_u50_gen3x16_xdma_5_202210_1 2>&1)
st=$?
if [ $st -ne 2 ] || ! echo "$msg" | grep -q "v++"; then
	echo "FAIL: build_xclbin.sh without v++ exited $st: $msg"
	rc=1
fi

# build_xclbin.sh with a stand-in v++ that records its command lines: one
# v++ -c per kernel with its top, one v++ -l with link.cfg and the CMAC kernel
fake=$(mktemp -d) || exit 1
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\necho "v++ $*" >> "%s/log"\n' "$fake" > "$fake/v++"
chmod +x "$fake/v++"
touch "$fake/cmac_0.xo"
if ! PATH="$fake:$PATH" CMAC_XO="$fake/cmac_0.xo" sh kernels/hw/build_xclbin.sh \
	xilinx_u50_gen3x16_xdma_5_202210_1 "$fake/out" >/dev/null 2>&1; then
	echo "FAIL: build_xclbin.sh with a stand-in v++"
	rc=1
fi
for k in eth_rx_top mirror_toe_top udp_top fast_top hbm_writer_top gtoe_top tx_arb_top; do
	grep -q "^v++ -c .*-k $k .*kernels/hw/$k.cpp" "$fake/log" 2>/dev/null || { echo "FAIL: no v++ -c for $k"; rc=1; }
done
grep -q "^v++ -l .*--config kernels/hw/link.cfg.*cmac_0.xo" "$fake/log" 2>/dev/null || { echo "FAIL: no v++ -l"; rc=1; }

# The 4 x 10G layout: LAYOUT=4x10g, the eth10g_0 kernel, link_4x10g.cfg, the port mux, 64-bit MAC beats
: > "$fake/log"
touch "$fake/eth10g_0.xo"
if ! PATH="$fake:$PATH" LAYOUT=4x10g ETH10G_XO="$fake/eth10g_0.xo" sh kernels/hw/build_xclbin.sh \
	xilinx_u50_gen3x16_xdma_5_202210_1 "$fake/out4" >/dev/null 2>&1; then
	echo "FAIL: build_xclbin.sh LAYOUT=4x10g with a stand-in v++"
	rc=1
fi
for k in eth_rx_top mirror_toe_top udp_top fast_top hbm_writer_top gtoe_top tx_arb_top port_mux_top; do
	grep -q "^v++ -c .*-k $k .*kernels/hw/$k.cpp" "$fake/log" 2>/dev/null || { echo "FAIL: 4x10g: no v++ -c for $k"; rc=1; }
done
grep -q "^v++ -c .*-k eth_rx_top .*-DHW_MAC_BYTES=8" "$fake/log" || { echo "FAIL: 4x10g: eth_rx_top not for 64-bit beats"; rc=1; }
grep -q "^v++ -c .*-k fast_top .*-DHW_MAC_BYTES" "$fake/log" && { echo "FAIL: 4x10g: fast_top given a MAC width"; rc=1; }
grep -q "^v++ -l .*--config kernels/hw/link_4x10g.cfg.*eth10g_0.xo" "$fake/log" 2>/dev/null ||
	{ echo "FAIL: 4x10g: no v++ -l"; rc=1; }
msg=$(PATH="$fake:$PATH" LAYOUT=4x10g sh kernels/hw/build_xclbin.sh xilinx_u50_gen3x16_xdma_5_202210_1 "$fake/o" 2>&1)
st=$?
[ $st -eq 2 ] && echo "$msg" | grep -q ETH10G_XO || { echo "FAIL: 4x10g without ETH10G_XO exited $st: $msg"; rc=1; }

# link.cfg and link_4x10g.cfg: every kernel instance is declared by nk=, every stream port is a
# top's parameter, and every stream port of every instance of a top is connected exactly once
ports=$(grep -o '&[a-z_0-9]*' kernels/hw/hw_tops.h | tr -d '&' | sort -u)
# top:port,port,... for each top of hw_tops.h (not the C-simulation's *_inst)
tops=$(tr '\n\t' '  ' < kernels/hw/hw_tops.h | tr ';' '\n' | sed -n 's/.*void \([a-z_0-9]*\)(\(.*\))\s*$/\1:\2/p' |
	sed 's/ //g' | grep -v '^[a-z_0-9]*_inst:')
for cfgf in kernels/hw/link.cfg kernels/hw/link_4x10g.cfg; do
	insts=$(sed -n 's/^nk=[a-z_0-9]*:[0-9]*:\(.*\)$/\1/p' "$cfgf" | tr '.' '\n')
	for end in $(sed -n 's/^stream_connect=\([^:]*\):\([^:]*\).*$/\1 \2/p' "$cfgf"); do
		inst=${end%%.*}
		port=${end#*.}
		echo "$insts" | grep -qx "$inst" || { echo "FAIL: $cfgf: $inst has no nk= line"; rc=1; }
		case $inst in cmac_* | eth10g_*) continue ;; esac
		echo "$ports" | grep -qx "$port" || { echo "FAIL: $cfgf: $inst.$port is no port of the tops"; rc=1; }
	done
	conns=$(sed -n 's/^stream_connect=\([^:]*\):\([^:]*\).*$/\1 \2/p' "$cfgf")
	for decl in $tops; do
		top=${decl%%:*}
		kinsts=$(sed -n "s/^nk=$top:[0-9]*:\\(.*\\)\$/\\1/p" "$cfgf" | tr '.' ' ')
		case $top:$cfgf in port_mux_top:*link.cfg) [ -z "$kinsts" ] || { echo "FAIL: link.cfg has port_mux_top"; rc=1; } ;; esac
		[ -n "$kinsts" ] || case $top in port_mux_top) continue ;; *) echo "FAIL: $cfgf: no nk= for $top"; rc=1 ;; esac
		n=$(sed -n "s/^nk=$top:\\([0-9]*\\):.*/\\1/p" "$cfgf")
		[ "$n" = "$(echo $kinsts | wc -w)" ] || { echo "FAIL: $cfgf: nk=$top count $n for: $kinsts"; rc=1; }
		for ki in $kinsts; do
			for port in $(echo "${decl#*:}" | grep -o 'stream<[a-z_]*>&[a-z_0-9]*' | sed 's/.*&//'); do
				c=$(echo "$conns" | tr ' ' '\n' | grep -cx "$ki\.$port")
				[ "$c" -eq 1 ] || { echo "FAIL: $cfgf: $ki.$port connected $c times"; rc=1; }
			done
		done
	done
	[ "$(grep -c '^nk=eth_rx_top:' "$cfgf")" -eq 1 ] || { echo "FAIL: $cfgf: eth_rx_top"; rc=1; }
done
grep -q '^nk=eth_rx_top:1:eth_rx_top_1$' kernels/hw/link.cfg || { echo "FAIL: link.cfg is not the one-port build"; rc=1; }
grep -q '^nk=eth_rx_top:4:eth_rx_top_1.eth_rx_top_2.eth_rx_top_3.eth_rx_top_4$' kernels/hw/link_4x10g.cfg ||
	{ echo "FAIL: link_4x10g.cfg: not four eth_rx_tops named as toe_regmap.h says"; rc=1; }
for cfgf in kernels/hw/link.cfg kernels/hw/link_4x10g.cfg; do
	for p in hbm0 hbm1 hbm2 hbm3; do
		grep -q "^sp=hbm_writer_top_1\.$p:HBM\[" "$cfgf" || { echo "FAIL: $cfgf: no sp= for $p"; rc=1; }
	done
done
exit $rc
