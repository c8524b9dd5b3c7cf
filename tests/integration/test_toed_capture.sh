#!/bin/sh
# test_toed_capture.sh - toed capturing live with AF_PACKET and AF_XDP in a network namespace.
#
# Two namespaces joined by a veth pair (offloads off). toed runs in B on vb
# (source type af_packet, then af_xdp in native mode with its steering
# program), clients subscribe, and tcpreplay plays the capture of a TCP
# connection (mkpcap, from a toe-fastgen feed, every 10th pair of segments
# swapped: reordering crafted into the capture) out of va in A, as a mirror
# port would deliver it. Each client's ticks must equal the truth lines its
# filter keeps. After the AF_XDP daemon stops, its XDP program must be gone
# from vb (toed keeps CAP_NET_ADMIN for that and nothing else but
# CAP_SYS_NICE).
# Exit 0 pass, 77 skip (no root, namespaces, tcpreplay, or XDP for the
# second half after AF_PACKET passed), else fail. The AF_XDP daemon busy-polls
# ([dataplane] busy_poll = yes: one CPU at 100 % for about a second). Both run with
# [dataplane] trace = yes: toectl latency must show every record's stages, in order (AF_XDP: with
# the pickup stamp between arrival and taken).
# Takes about 3 s.
. "$(dirname "$0")/toed_common.sh"
. "$(dirname "$0")/lib_netns.sh"

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, raw sockets, XDP)"
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) not installed"
command -v tcpreplay >/dev/null 2>&1 || skip "tcpreplay not installed"
BPF=$BUILD/bpf/toe_steer.bpf.o
[ -f "$BPF" ] || make -s BUILD="$BUILD" "$BPF" >/dev/null 2>&1

NS_A=toed-cap-a-$$
NS_B=toed-cap-b-$$
EXTRA_CLEANUP='netns_cleanup'
netns_add "$NS_A" "$NS_B" || skip "$NETNS_WHY"
netns_veth "$NS_A" va "$NS_B" vb
case $? in 0) ;; 77) skip "$NETNS_WHY" ;; *) fail "$NETNS_WHY" ;; esac
ip -n "$NS_A" link set va address 02:00:00:00:00:0a || fail "va address"
ip -n "$NS_B" link set vb address 02:00:00:00:00:02 || fail "vb address"

mkfeed 3000 51 --fin --swap-every 10 # a crafted capture with reordered segments
truth_filter trades >"$TMP/want.trades"
truth_filter orders-ch:1,4 >"$TMP/want.orders14"

capture() { # TYPE [extra [source] line] [extra sections]
	type=$1
	start_notify
	: >"$TMP/toed.log"
	conf "$TMP/$type.conf" "${3:-}"
	sed -i "s|^type = pcap|type = $type\ninterface = vb${2:+\n$2}|; /^pcap_/d" "$TMP/$type.conf"
	NOTIFY_SOCKET=$TMP/notify.sock ip netns exec "$NS_B" "$TOED" -c "$TMP/$type.conf" --foreground \
		--bpf-object "$BPF" >>"$TMP/toed.log" 2>&1 &
	TOED_PID=$!
	if ! wait_for "$TMP/notify.log" 'READY=1' 15; then
		kill -0 "$TOED_PID" 2>/dev/null || { wait "$TOED_PID"; TOED_PID=; }
		return 2
	fi
	"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --types trade --count "$(wc -l <"$TMP/want.trades")" \
		--timeout 20 -o "$TMP/got.trades" 2>"$TMP/c1.err" &
	c1=$!
	"$OUT/tick_client" --socket "$TMP/toed.sock" --from-start --types order --channel 1 --channel 4 \
		--count "$(wc -l <"$TMP/want.orders14")" --timeout 20 -o "$TMP/got.orders14" 2>"$TMP/c2.err" &
	c2=$!
	bg_pid "$c1 $c2"
	sleep 0.3
	ip netns exec "$NS_A" tcpreplay -q -i va --pps 4000 "$TMP/feed.pcap" >"$TMP/replay.log" 2>&1 ||
		fail "$type: tcpreplay failed: $(cat "$TMP/replay.log")"
	wait "$c1" || fail "$type: trades client exited $? ($(cat "$TMP/c1.err"))"
	wait "$c2" || fail "$type: orders client exited $? ($(cat "$TMP/c2.err"))"
	cmp -s "$TMP/got.trades" "$TMP/want.trades" || fail "$type: trades differ from the truth"
	cmp -s "$TMP/got.orders14" "$TMP/want.orders14" || fail "$type: orders differ from the truth"
	caps=$(awk '/^CapEff:/ { print $2 }' "/proc/$TOED_PID/status" 2>/dev/null)
	# [dataplane] trace = yes: every published record has its time inside toed measured
	# (the counters reach toectl through the data plane's snapshot, every 100 ms)
	_i=0
	while :; do
		"$TOECTL" -s "$TMP/toed.sock" latency --json >"$TMP/lat.json" || fail "$type: toectl latency failed"
		grep -q '"arrival_to_visible":{"records":0' "$TMP/lat.json" || break
		_i=$((_i + 1))
		[ $_i -lt 20 ] || break
		sleep 0.1
	done
	# toe_steer_plain (xdp_plain): frames are stamped at the poll, so arrival and pickup are one stamp
	plain=0
	xdp_plain && plain=1
	python3 - "$TMP/lat.json" "$type" "$plain" <<'PY' || fail "$type: toectl latency: $(cat "$TMP/lat.json")"
import json, sys
d = json.load(open(sys.argv[1]))
dec, vis = d["arrival_to_decoded"], d["arrival_to_visible"]
pick, taken, own = d["arrival_to_pickup"], d["arrival_to_taken"], d["pickup_to_visible"]
assert d["tracing"] is True
assert dec["records"] > 0 and vis["records"] == dec["records"] == taken["records"], (dec, vis, taken)
# visible comes after decoded, both after the arrival stamp, and within a second here
assert 0 < dec["p50_ns"] <= vis["p50_ns"] < 10**9, (dec, vis)
assert vis["max_ns"] >= vis["p99_ns"] >= vis["p50_ns"]
# every record's stamps in order: arrival <= pickup <= taken <= decoded <= visible
assert d["unordered"] == 0 and d["late_stamps"] == 0, d
if sys.argv[2] == "af_xdp":
    # the source's pickup stamp splits the span: the kernel's delivery, then toed's own part
    assert pick["records"] == vis["records"] == own["records"], (pick, vis, own)
    plain = sys.argv[3] == "1"
    for q in ("p50_ns", "p99_ns", "max_ns"):
        if plain:
            assert pick[q] == 0 and own[q] == vis[q], (q, pick, own, vis)
        assert (0 if plain else 1) <= pick[q] <= taken[q] <= dec[q] <= vis[q], (q, pick, taken, dec, vis)
        assert own[q] <= vis[q], (q, own, vis)
    # the frames found right after an empty poll: a part of them (a replay at 4000 frames/s leaves
    # the data plane idle between most frames), never slower than the slowest of all
    idle = d["arrival_to_pickup_idle"]
    assert 0 < idle["records"] <= pick["records"] and idle["max_ns"] <= pick["max_ns"], (idle, pick)
else:
    # AF_PACKET reads no clock per burst: no pickup stamp
    assert pick["records"] == 0 and own["records"] == 0, (pick, own)
    assert d["arrival_to_pickup_idle"]["records"] == 0, d
PY
	say "$type: toectl latency p50 over the replay: $(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print("arrival -> pickup %d ns, -> visible %d ns; pickup -> visible %d ns" % (d["arrival_to_pickup"]["p50_ns"],
      d["arrival_to_visible"]["p50_ns"], d["pickup_to_visible"]["p50_ns"]))' "$TMP/lat.json")"
	stop_toed
	[ "$TOED_RC" -eq 0 ] || fail "$type: toed exited $TOED_RC"
	return 0
}

capture af_packet "" "[dataplane]
trace = yes" || fail "af_packet: toed did not become ready: $(tail -n 5 "$TMP/toed.log")"
[ "$caps" = "0000000000800000" ] || fail "af_packet: effective capabilities $caps, expected cap_sys_nice only"
say "AF_PACKET: $(wc -l <"$TMP/want.trades") trades and $(wc -l <"$TMP/want.orders14") orders (channels 1, 4) equal to the truth"

capture af_xdp "xdp_mode = native" "[dataplane]
busy_poll = yes
trace = yes"
rc=$?
if [ $rc -eq 2 ]; then
	skip "AF_XDP not possible here ($(grep -m1 'source:' "$TMP/toed.log")); AF_PACKET passed"
fi
[ "$caps" = "0000000000801000" ] || fail "af_xdp: effective capabilities $caps, expected cap_net_admin,cap_sys_nice"
if ip -n "$NS_B" link show dev vb | grep -q 'xdp'; then
	fail "the XDP program is still attached to vb after toed stopped"
fi
say "AF_XDP (native, busy-polling data plane): the same ticks; XDP program detached at exit"

echo "PASS: live capture with AF_PACKET and AF_XDP"
exit 0
