#!/bin/sh
# build_xclbin.sh - build the TOE/FAST xclbin with Vitis: v++ -c per HLS kernel, then v++ -l.
#
#   sh kernels/hw/build_xclbin.sh PLATFORM [OUTDIR]
#
#   PLATFORM  e.g. xilinx_u50_gen3x16_xdma_5_202210_1 (a name v++ finds in
#             PLATFORM_REPO_PATHS or /opt/xilinx/platforms, or an .xpfm path)
#   OUTDIR    default build/hw (relative to the repository root); the result is OUTDIR/toed.xclbin
#
# Environment:
#   LAYOUT             100g (default): one port, cmac_0 on the QSFP28, link.cfg;
#                      4x10g: four 10G ports (a breakout of the QSFP28), eth10g_0,
#                      link_4x10g.cfg, the MAC-side tops built for 64-bit beats
#   CMAC_XO            the cmac_0 RTL kernel (.xo) for this platform (required with LAYOUT=100g),
#                      e.g. built by XUP VNx: make -C Ethernet all DEVICE=<.xpfm> INTERFACE=0
#   ETH10G_XO          LAYOUT=4x10g: the eth10g_0 RTL kernel (.xo): a four-lane 10G/25G Ethernet
#                      subsystem in 10GBASE-R, 64-bit AXI4-Stream per lane (link_4x10g.cfg)
#   POST_SYS_LINK_TCL  the hook that connects the MAC kernel's GT ports to the QSFP28 pins
#                      (VNx: post_sys_link.tcl); passed as userPostSysLinkOverlayTcl
#   FREQ_MHZ           kernel clock (default 300, the paper's)
#   JOBS               parallel jobs for v++ -l (default 8)
#
# Exit status: 0 built, 2 when the tools or inputs are missing (said why), 1 when v++ failed.
# Run it where Vitis is installed: source <Vitis>/settings64.sh and /opt/xilinx/xrt/setup.sh.

# Nothing outside the shell before this test: it must work with an empty PATH.
if ! command -v v++ >/dev/null 2>&1; then
	echo "build_xclbin.sh: v++ not found: the xclbin can only be built where Vitis is installed" >&2
	echo "  (source <Vitis install>/settings64.sh and /opt/xilinx/xrt/setup.sh, then run again)" >&2
	exit 2
fi

PLATFORM=${1:-${PLATFORM:-}}
OUT=${2:-build/hw}
FREQ_MHZ=${FREQ_MHZ:-300}
JOBS=${JOBS:-8}
if [ -z "$PLATFORM" ]; then
	echo "usage: build_xclbin.sh PLATFORM [OUTDIR]   (e.g. xilinx_u50_gen3x16_xdma_5_202210_1)" >&2
	exit 2
fi
LAYOUT=${LAYOUT:-100g}
case $LAYOUT in
100g)
	LINK_CFG=kernels/hw/link.cfg MAC_DEF="" KERNELS_EXTRA=""
	if [ -z "${CMAC_XO:-}" ] || [ ! -f "$CMAC_XO" ]; then
		echo "build_xclbin.sh: set CMAC_XO to the cmac_0 kernel object for $PLATFORM" >&2
		echo "  (cmac_usplus packaged as an RTL kernel, e.g. XUP VNx Ethernet/: make all DEVICE=<.xpfm> INTERFACE=0;" >&2
		echo "   it needs a cmac_usplus license) and POST_SYS_LINK_TCL to the hook wiring its GT pins" >&2
		exit 2
	fi
	MAC_XO=$CMAC_XO
	;;
4x10g)
	LINK_CFG=kernels/hw/link_4x10g.cfg MAC_DEF="-DHW_MAC_BYTES=8" KERNELS_EXTRA=port_mux_top
	if [ -z "${ETH10G_XO:-}" ] || [ ! -f "$ETH10G_XO" ]; then
		echo "build_xclbin.sh: set ETH10G_XO to the eth10g_0 kernel object for $PLATFORM" >&2
		echo "  (a four-lane 10G/25G Ethernet subsystem in 10GBASE-R packaged as an RTL kernel, 64-bit" >&2
		echo "   AXI4-Stream per lane, port names as in kernels/hw/link_4x10g.cfg) and POST_SYS_LINK_TCL" >&2
		exit 2
	fi
	MAC_XO=$ETH10G_XO
	;;
*)
	echo "build_xclbin.sh: LAYOUT=$LAYOUT: 100g or 4x10g" >&2
	exit 2
	;;
esac

abspath() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
MAC_XO=$(abspath "$MAC_XO")
[ -n "${POST_SYS_LINK_TCL:-}" ] && POST_SYS_LINK_TCL=$(abspath "$POST_SYS_LINK_TCL")
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$OUT" || exit 2
INC="-I client-lib/include -I kernels -I kernels/hw"
COMMON="-t hw --platform $PLATFORM --save-temps"

# kernel -> its top and the C kernels it wraps (compiled by HLS as C)
srcs() {
	case $1 in
	eth_rx_top) echo kernels/hw/eth_rx_top.cpp kernels/net/net_rx.c kernels/net/net_arp.c \
		kernels/net/net_icmp.c kernels/net/net_csum.c kernels/net/net_counters.c ;;
	mirror_toe_top) echo kernels/hw/mirror_toe_top.cpp kernels/toe/mtoe.c ;;
	udp_top) echo kernels/hw/udp_top.cpp kernels/net/net_udp.c kernels/net/net_counters.c ;;
	# fast_top calls rx_pipe's decode half (rx_event/rx_feed/rx_datagram/rx_drain); rx_pipe.c also
	# holds rx_frame, which refers to the network layers and the mirror TOE: they come along,
	# unused by this kernel
	fast_top) echo kernels/hw/fast_top.cpp kernels/rx/rx_pipe.c kernels/fast/fast_stream.c \
		kernels/fast/step_deframe.c kernels/fast/fast_decode.c kernels/fast/fast_tick.c \
		kernels/toe/mtoe.c kernels/net/net_rx.c kernels/net/net_udp.c kernels/net/net_csum.c \
		kernels/net/net_counters.c ;;
	hbm_writer_top) echo kernels/hw/hbm_writer_top.cpp ;;
	gtoe_top) echo kernels/hw/gtoe_top.cpp kernels/toe/gtoe.c kernels/toe/gtoe_in.c kernels/toe/gtoe_out.c \
		kernels/toe/gtoe_frame.c kernels/net/net_tx.c kernels/net/net_rx.c kernels/net/net_arp.c \
		kernels/net/net_csum.c kernels/net/net_counters.c ;;
	tx_arb_top) echo kernels/hw/tx_arb_top.cpp ;;
	port_mux_top) echo kernels/hw/port_mux_top.cpp ;;
	esac
}
# the tops that see the MAC's beat width (hw_common.h HW_MAC_BYTES)
macdef() {
	case $1 in eth_rx_top | gtoe_top | tx_arb_top) echo "$MAC_DEF" ;; esac
}

XOS=""
for k in eth_rx_top mirror_toe_top udp_top fast_top hbm_writer_top gtoe_top tx_arb_top $KERNELS_EXTRA; do
	echo "== v++ -c $k"
	# shellcheck disable=SC2046,SC2086
	v++ -c $COMMON -k $k $INC $(macdef $k) --hls.clock "${FREQ_MHZ}000000:$k" --temp_dir "$OUT/_x.$k" \
		-o "$OUT/$k.xo" $(srcs $k) || { echo "build_xclbin.sh: v++ -c $k failed" >&2; exit 1; }
	XOS="$XOS $OUT/$k.xo"
done

HOOK=""
if [ -n "${POST_SYS_LINK_TCL:-}" ]; then
	HOOK="--advanced.param compiler.userPostSysLinkOverlayTcl=$POST_SYS_LINK_TCL"
else
	echo "build_xclbin.sh: warning: POST_SYS_LINK_TCL unset: the MAC kernel's GT pins stay unconnected unless the platform does it" >&2
fi

echo "== v++ -l toed.xclbin"
# shellcheck disable=SC2086
v++ -l $COMMON --config $LINK_CFG --kernel_frequency "$FREQ_MHZ" -j "$JOBS" $HOOK \
	--temp_dir "$OUT/_x.link" -o "$OUT/toed.xclbin" $XOS "$MAC_XO" || { echo "build_xclbin.sh: v++ -l failed" >&2; exit 1; }
echo "built $OUT/toed.xclbin"
