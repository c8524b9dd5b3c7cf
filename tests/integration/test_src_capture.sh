#!/bin/sh
# test_src_capture.sh - the live frame sources (daemon/src/src_afpacket.c, daemon/src/src_afxdp.c) on a veth pair.
#
# Two network namespaces joined by a veth pair (MTU 9000, offloads off so no
# super-packets), side A sends the frames of src_capture_frames.h with
# src_capture_send, side B captures with src_capture_check through an
# AF_PACKET source, then an AF_XDP source in native mode, then in generic
# (skb) mode. While AF_XDP is attached, a ping from A (after an ARP
# exchange) must still be answered (ARP and ICMP are not stolen), non-feed
# UDP must still reach B's sockets, the program must show on the interface, and
# it must be gone after the source closes. Takes about 6 s.
# Exit 0 pass, 77 skip (no root, no namespaces, no XDP), else fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$BUILD/itest

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, XDP)"
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) not installed"
pkg-config --exists libxdp libbpf libpcap 2>/dev/null || skip "libxdp-dev, libbpf-dev or libpcap-dev not installed"
command -v clang >/dev/null 2>&1 || skip "clang not installed (builds the XDP program)"

# ---- build ---------------------------------------------------------------
# `make test-build` builds the helpers ($BUILD/itest) and the XDP object
# ($BUILD/bpf); make brings anything missing or older than its sources up to
# date here (the Makefile is the one recipe: it links what the sources need).
BPF=$BUILD/bpf/toe_steer.bpf.o
make -s BUILD="$BUILD" "$OUT/src_capture_check" "$OUT/src_capture_send" "$BPF" >"${TMPDIR:-/tmp}/src_capture_build.$$" 2>&1 ||
	fail "building src_capture_check, src_capture_send and the XDP program: $(tail -5 "${TMPDIR:-/tmp}/src_capture_build.$$")"
rm -f "${TMPDIR:-/tmp}/src_capture_build.$$"

# ---- namespaces ----------------------------------------------------------
. "$(dirname "$0")/lib_netns.sh"
NS_A=toe-srca-$$
NS_B=toe-srcb-$$
TMP=$(mktemp -d) || fail "mktemp"
CHECK_PID=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "$CHECK_PID" ] && kill "$CHECK_PID" 2>/dev/null
	netns_cleanup
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

netns_add "$NS_A" "$NS_B" || skip "$NETNS_WHY"
netns_veth "$NS_A" va "$NS_B" vb
case $? in 0) ;; 77) skip "$NETNS_WHY" ;; *) fail "$NETNS_WHY" ;; esac
ip -n "$NS_A" link set va address 02:00:00:99:00:01 mtu 9000 || fail "va setup"
ip -n "$NS_B" link set vb address 02:00:00:99:00:02 mtu 9000 || fail "vb setup"
ip -n "$NS_A" addr add 10.99.0.1/24 dev va || fail "address A"
ip -n "$NS_B" addr add 10.99.0.2/24 dev vb || fail "address B"

# ---- one capture run -----------------------------------------------------
# run MODE: prints the checker's report; returns its exit status
run() {
	mode=$1
	rm -f "$TMP/ready" "$TMP/done"
	ip netns exec "$NS_B" "$OUT/src_capture_check" --mode "$mode" --if vb --bpf "$BPF" \
		--ready "$TMP/ready" --done "$TMP/done" >"$TMP/$mode.log" 2>&1 &
	CHECK_PID=$!
	i=0
	while [ ! -f "$TMP/ready" ] && kill -0 "$CHECK_PID" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	extra=0
	if [ -f "$TMP/ready" ]; then
		ip netns exec "$NS_A" "$OUT/src_capture_send" va >"$TMP/send.log" 2>&1 ||
			{ echo "$mode: sender failed:"; cat "$TMP/send.log"; extra=1; }
		case $mode in
		xdp*)
			if ! ip -n "$NS_B" link show dev vb | grep -q 'prog/xdp\|xdp'; then
				echo "$mode: no XDP program on vb while the source is open"
				extra=1
			fi
			# forget B's MAC so that the ping needs an ARP exchange too
			ip -n "$NS_A" neigh flush dev va 2>/dev/null
			if ! ip netns exec "$NS_A" "$OUT/src_capture_send" --ping 10.99.0.2 3 >"$TMP/ping.log" 2>&1; then
				echo "$mode: ping through the XDP interface failed:"
				cat "$TMP/ping.log"
				extra=1
			fi
			;;
		esac
		touch "$TMP/done"
	fi
	wait "$CHECK_PID"
	rc=$?
	CHECK_PID=
	cat "$TMP/$mode.log"
	case $mode in
	xdp*)
		if ip -n "$NS_B" link show dev vb | grep -q 'prog/xdp\|xdp'; then
			echo "$mode: the XDP program is still attached after the source closed"
			extra=1
		fi
		;;
	esac
	[ $rc -eq 0 ] && [ $extra -ne 0 ] && rc=1
	return $rc
}

status=0
skipped=
run afpacket || status=1
for mode in xdp xdpskb; do
	run $mode
	rc=$?
	if [ $rc -eq 77 ]; then
		skipped="$skipped $mode"
	elif [ $rc -ne 0 ]; then
		status=1
	fi
done
[ $status -ne 0 ] && fail "see above"
[ -n "$skipped" ] && skip "XDP not possible here for:$skipped (AF_PACKET passed)"
echo "PASS: AF_PACKET and AF_XDP (native and skb) capture"
exit 0
