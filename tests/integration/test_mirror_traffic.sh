#!/bin/sh
# test_mirror_traffic.sh - real Linux TCP traffic, a tc mirror, a capture, and toe-pcapdump.
#
# Three network namespaces (names unique to this process, removed on exit),
# made by tests/integration/lib_netns.sh (netns_topology):
#
#   exchange ex0 10.10.0.1 <-- veth --> ve0 10.10.0.2 vendor
#                                       ve0 ingress+egress: tc u32 match-all, mirred egress mirror dev vm0
#                                       vm0 <-- veth --> vm1 mirror (tcpdump, AF_PACKET)
#
# TSO/GSO/GRO and transmit checksum offload are off on every veth (so the
# mirrored frames carry real checksums, which toe-pcapdump verifies). The exchange sends a STEP/FAST feed
# written by toe-fastgen over a real TCP connection (tests/integration/
# mirror_peer.py) to the vendor; the mirror namespace captures it with
# tcpdump; toe-pcapdump decodes the capture; tests/integration/mirror_check.py
# compares its output with toe-fastgen --truth. Three runs:
#   1. clean:   the output is exactly the truth;
#   2. link:    a tc BPF program (lossy_tc.bpf.c) drops and duplicates 3% of the
#               data segments on ex0's egress: Linux retransmits, the mirror
#               sees what the vendor sees, the output is still exactly the truth;
#   3. mirror:  the BPF program drops and duplicates 2% of the data segments on
#               vm0's egress (the mirror leg only): the mirror really loses data;
#               the output equals the truth except inside declared gaps, and no
#               record outside the truth ever appears.
# Every run also checks that the vendor received the feed intact. Needs root,
# ip netns, tc (u32, mirred, bpf), ethtool, tcpdump, clang and libbpf-dev
# headers, /usr/bin/python3; exits 77 (SKIP) without them.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=conf/templates/sse-l2-3201-5801.xml

script_needs_root
script_needs_tools ip tc ethtool tcpdump clang gcc timeout
script_needs_python
script_needs_bpf_headers
script_needs_built "$BUILD/bin/toe-fastgen" "$BUILD/bin/toe-pcapdump"
script_workdir toe-mirror

# ---- namespaces, links, the mirror (tests/integration/lib_netns.sh) --------
script_netns netns_topology toem$$ 10.10.0
ex() { ip netns exec "$NS_EX" "$@"; }
ve() { ip netns exec "$NS_VE" "$@"; }

# ---- the feed, the BPF programs -------------------------------------------
"$BUILD/bin/toe-fastgen" --templates "$TEMPLATES" --records 20000 --seed 31 --per-msg 4 \
	--truth "$WORK/truth.jsonl" -o "$WORK/feed.step" || fail "toe-fastgen"
arch_inc=/usr/include/$(gcc -dumpmachine)
bpf() { # name drop dup
	clang -O2 -g -target bpf -I"$arch_inc" -DDROP_PERMILLE="$2" -DDUP_PERMILLE="$3" \
		-c "$here/lossy_tc.bpf.c" -o "$WORK/$1.o" || fail "clang -target bpf"
}
bpf link 30 30
bpf mirror 20 20

# ---- one run --------------------------------------------------------------
# run NAME PORT MODE [toe-pcapdump options]
run() {
	name=$1 port=$2 mode=$3
	shift 3
	pcap=$WORK/$name.pcap
	# background jobs start straight from ip netns exec (it execs), so $! is the program itself
	ip netns exec "$NS_MI" tcpdump -i vm1 -n -s 0 -B 32768 --immediate-mode -Z root -w "$pcap" 2>"$WORK/$name.tcpdump" &
	tpid=$!
	pids="$pids $tpid"
	for _ in $(seq 100); do
		grep -q "listening on" "$WORK/$name.tcpdump" 2>/dev/null && break
		sleep 0.05
	done
	grep -q "listening on" "$WORK/$name.tcpdump" || fail "$name: tcpdump did not start: $(cat "$WORK/$name.tcpdump")"

	ip netns exec "$NS_EX" timeout 60 "$PY" "$here/mirror_peer.py" serve 10.10.0.1 "$port" "$WORK/feed.step" \
		2000000 &
	spid=$!
	pids="$pids $spid"
	ve timeout 60 "$PY" "$here/mirror_peer.py" fetch 10.10.0.1 "$port" "$WORK/$name.recv" 65536 ||
		fail "$name: the vendor did not receive the feed"
	wait "$spid" || fail "$name: the exchange's sender failed"
	sleep 0.5 # frames still in flight to the mirror
	kill -INT "$tpid"
	wait "$tpid"
	cmp -s "$WORK/feed.step" "$WORK/$name.recv" || fail "$name: the vendor received other bytes than were sent"
	dropped=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$WORK/$name.tcpdump")
	[ "${dropped:-0}" = 0 ] || fail "$name: the capture itself lost $dropped packets (tcpdump)"

	"$BUILD/bin/toe-pcapdump" --templates "$TEMPLATES" --feed 10.10.0.1:"$port" --verify-checksums "$@" "$pcap" \
		>"$WORK/$name.json" 2>"$WORK/$name.err" || {
		cat "$WORK/$name.err"
		fail "$name: toe-pcapdump failed"
	}
	if ! "$PY" "$here/mirror_check.py" "$mode" "$WORK/feed.step" "$WORK/truth.jsonl" "$WORK/$name.json" \
		>"$WORK/$name.check"; then
		cat "$WORK/$name.check"
		sed -n '1,80p' "$WORK/$name.err"
		fail "$name: the decoded capture does not match the truth"
	fi
	echo "$name: $(cat "$WORK/$name.check") ($(grep -c . "$WORK/$name.json") lines, \
$(sed -n 's/^\([0-9]*\) packets captured/\1/p' "$WORK/$name.tcpdump") frames captured)"
}

start=$(date +%s)
run clean 9001 exact

ex tc filter add dev ex0 egress bpf direct-action obj "$WORK/link.o" sec tc || fail "tc bpf on ex0"
run link 9002 exact --window 1048576 --gap-timeout 10000
grep -q "mtoe.conn0.duplicates\|mtoe.conn0.out_of_order\|mtoe.conn0.dup_bytes" "$WORK/link.err" ||
	fail "link: the mirror TOE saw no retransmission or duplicate: the BPF program did nothing"
ex tc filter del dev ex0 egress

ve tc filter add dev vm0 egress bpf direct-action obj "$WORK/mirror.o" sec tc || fail "tc bpf on vm0"
run mirror 9003 lossy
ve tc filter del dev vm0 egress

echo "PASS: 3 runs in $(($(date +%s) - start)) s"
exit 0
