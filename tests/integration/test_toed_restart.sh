#!/bin/sh
# test_toed_restart.sh - toed with an AF_XDP source killed with SIGKILL and started again at once, five times.
#
# The kernel releases a dead process's XDP socket asynchronously: for some
# 10-40 ms a new bind to the same queue fails with EBUSY. toed retries the
# bind for up to 2 s (daemon/src/src_afxdp.c), so every immediate restart
# must become ready. Two namespaces joined by a veth pair; toed runs on vb in
# B (af_xdp, native mode). After the fifth start, a capture is replayed from A:
# the ticks must equal the truth, and every record must say that the kernel
# (the XDP program) or the NIC stamped it at arrival (hdr.present bits 29..31,
# toe_rx_clock). Exit 0 pass, 77 skip (no root, namespaces, tcpreplay or XDP),
# else fail. Takes about 3 s.
. "$(dirname "$0")/toed_common.sh"
. "$(dirname "$0")/lib_netns.sh"

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, XDP)"
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) not installed"
command -v tcpreplay >/dev/null 2>&1 || skip "tcpreplay not installed"
BPF=$BUILD/bpf/toe_steer.bpf.o
[ -f "$BPF" ] || make -s BUILD="$BUILD" "$BPF" >/dev/null 2>&1
[ -f "$BPF" ] || fail "cannot build $BPF"

NS_A=toed-rst-a-$$
NS_B=toed-rst-b-$$
EXTRA_CLEANUP='netns_cleanup'
netns_add "$NS_A" "$NS_B" || skip "$NETNS_WHY"
netns_veth "$NS_A" va "$NS_B" vb
case $? in 0) ;; 77) skip "$NETNS_WHY" ;; *) fail "$NETNS_WHY" ;; esac
ip -n "$NS_A" link set va address 02:00:00:00:00:0a || fail "va address"
ip -n "$NS_B" link set vb address 02:00:00:00:00:02 || fail "vb address"

mkfeed 2000 61 --fin
truth_filter trades >"$TMP/want.trades"
conf "$TMP/xdp.conf" "[dataplane]
busy_poll = no"
sed -i "s|^type = pcap|type = af_xdp\ninterface = vb\nxdp_mode = native|; /^pcap_/d" "$TMP/xdp.conf"

# start: toed in B; 0 ready, 2 it exited (status in START_RC), 1 no ready within 10 s
start() {
	start_notify
	: >"$TMP/toed.log"
	NOTIFY_SOCKET=$TMP/notify.sock ip netns exec "$NS_B" "$TOED" -c "$TMP/xdp.conf" --foreground \
		--bpf-object "$BPF" >>"$TMP/toed.log" 2>&1 &
	TOED_PID=$!
	_w=0
	while [ $_w -lt 200 ]; do
		grep -q 'READY=1' "$TMP/notify.log" 2>/dev/null && return 0
		if ! kill -0 "$TOED_PID" 2>/dev/null; then
			wait "$TOED_PID"
			START_RC=$?
			TOED_PID=
			return 2
		fi
		sleep 0.05
		_w=$((_w + 1))
	done
	return 1
}

start
case $? in
0) ;;
2) grep -q 'Operation not supported\|XDP attach' "$TMP/toed.log" &&
	skip "AF_XDP not possible here: $(grep -m1 'error' "$TMP/toed.log")"
   fail "the first start exited $START_RC" ;;
*) fail "the first start did not become ready within 10 s" ;;
esac
waits=
for i in 1 2 3 4 5; do
	kill -9 "$TOED_PID"
	wait "$TOED_PID" 2>/dev/null
	TOED_PID=
	# at once: the kernel is still releasing the dead daemon's socket
	start
	case $? in
	0) ;;
	2) fail "restart $i after kill -9: toed exited $START_RC" ;;
	*) fail "restart $i after kill -9: not ready within 10 s" ;;
	esac
	w=$(sed -n 's/.*bound after \([0-9]*\) ms.*/\1/p' "$TMP/toed.log" | head -n 1)
	waits="$waits ${w:-0}"
done
say "5 restarts right after kill -9 became ready; the bind waited (ms):$waits"

# the fifth daemon works, and says which clock stamped each record
"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --types trade --count "$(wc -l <"$TMP/want.trades")" \
	--timeout 20 -o "$TMP/got.trades" 2>"$TMP/c1.err" &
c1=$!
bg_pid "$c1"
sleep 0.3
ip netns exec "$NS_A" tcpreplay -q -i va --pps 4000 "$TMP/feed.pcap" >"$TMP/replay.log" 2>&1 ||
	fail "tcpreplay failed: $(cat "$TMP/replay.log")"
wait "$c1" || fail "trades client exited $? ($(cat "$TMP/c1.err"))"
cmp -s "$TMP/got.trades" "$TMP/want.trades" || fail "trades differ from the truth"
clocks=$(grep '^CLOCKS' "$TMP/c1.err")
n=$(wc -l <"$TMP/want.trades")
kernel=$(echo "$clocks" | sed -n 's/.* kernel=\([0-9]*\).*/\1/p')
nic=$(echo "$clocks" | sed -n 's/.* nic=\([0-9]*\).*/\1/p')
if xdp_plain; then
	poll=$(echo "$clocks" | sed -n 's/.* poll=\([0-9]*\).*/\1/p')
	[ "$poll" -eq "$n" ] || fail "of $n trades, $poll stamped at the poll, the only clock without XDP metadata ($clocks)"
	say "$n trades equal to the truth, each stamped at the poll: this kernel refuses XDP metadata ($clocks)"
else
	[ $((kernel + nic)) -eq "$n" ] || fail "of $n trades, $kernel stamped by the kernel and $nic by the NIC ($clocks)"
	say "$n trades equal to the truth, each stamped at arrival ($clocks)"
fi
stop_toed
[ "$TOED_RC" -eq 0 ] || fail "toed exited $TOED_RC"
echo "PASS: AF_XDP toed restarts at once after kill -9; arrival stamps in the records"
exit 0
