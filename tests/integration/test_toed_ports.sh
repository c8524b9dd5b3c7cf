#!/bin/sh
# test_toed_ports.sh - the software backend on four ports: a source per port, feeds that match their own port only.
#
# Three network namespaces, five veth pairs (lib_netns.sh):
#
#   generator  g0 10.31.0.1 <-- veth --> p0 10.31.0.2   toed: [source] interface = p0 (port 0)
#              g1 10.31.1.1 <-- veth --> p1 10.31.1.2         [port.1] interface = p1, role = udp,
#                                                                      ip = 10.31.1.5 (toed's, not the host's)
#              g3 10.31.3.1 <-- veth --> p3 10.31.3.2         [port.3] interface = p3
#   exchange   e2 10.32.0.1 <-- veth --> v2 10.32.0.2 vendor
#                                        v2 ingress+egress: tc mirred -> m2
#                                        m2 <-- veth --> p2   [port.2] interface = p2 (a mirror port)
#
# Feeds: udp *:6000 on ports 0 and 1 (the same UDP port: one stream per port), udp *:6003 on
# port 3, and on port 2 a TCP connection (exchange 10.32.0.1:5261) followed on the mirror.
# For each port in turn, toe-feedsim sends a feed of its own seed (UDP to the port's address;
# on port 2 over TCP to the vendor, toe-sockrx) and toe-verify (libtoeclient, the generator's
# records regenerated from the seed) must read exactly those records: none wrong, none
# missing, no gap. Port 1 is a udp port with an address the host does not own: the generator's
# kernel finds its MAC by ARP, which only toed answers (port 1's responder, through port 1's own
# source), and Linux ping and arping (iputils; that part skipped when arping is missing) to
# 10.31.1.5 get answers, counted under port 1 (arp_replies, icmp_replies, tx_frames). The mirror
# port 2, and ports 0 and 3 (mirrors too), never send (tx_frames and tx_refused 0). A reload that changes a port's interface is reported as needing a
# restart. Then datagrams to
# UDP port 6000 arrive on port 3, which does not listen to 6000 (ports 0 and 1 do): nothing may
# be published, and toectl stats must count them under port 3 (af_packet: the pipeline's
# udp_other_port; af_xdp: port 3's XDP program passes them to the kernel, xdp_passed). Every port's
# source and pipeline counters are in toectl stats (ports[]). Both source types run
# (af_packet, then af_xdp in native mode, which skips alone where XDP cannot be attached).
# Then A/B lines on two ports ([fast] sequence_check, one group of a UDP feed on port 0 and
# one on port 1): the same feed (four channels, BizIndex per channel), half of it on port 0 and
# all of it on port 1 at once, reaches the client exactly once (the other copies dropped and
# counted, rx.seq_dups).
# Last, toed --check-config refuses configurations the software backend cannot run (a port
# without an interface, two ports on one interface, a second port of a pcap replay) with exit
# 78 and a message naming the file, the line and the key.
#
# Needs root, ip, tc (u32, mirred), ethtool, ping, python3 (arping optional). Namespaces and
# addresses are the test's own, removed on exit. Run under flock /tmp/toed-itest.lock. Takes about 20 s.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
RECORDS=${TOE_PORTS_RECORDS:-3000}
TOED=${TOED:-$BUILD/bin/toed}
TOECTL=$BUILD/bin/toectl
FEEDSIM=$BUILD/bin/toe-feedsim
VERIFY=$BUILD/bin/toe-verify
SOCKRX=$BUILD/bin/toe-sockrx
STEER=$BUILD/bpf/toe_steer.bpf.o

script_needs_root
script_needs_tools ip tc ethtool timeout ping
script_needs_python
script_build "$TOED" "$TOECTL" "$FEEDSIM" "$VERIFY" "$SOCKRX" "$STEER"

script_workdir toe-ports
chmod 755 "$WORK"
FAIL_LOG=$WORK/toed.log
. "$here/lib_e2e.sh"

NS_G=tpg$$
NS_D=tpd$$
NS_V=tpv$$
script_netns netns_add "$NS_G" "$NS_D" "$NS_V"
for k in 0 1 3; do
	script_netns netns_veth "$NS_G" "g$k" "$NS_D" "p$k"
	ip -n "$NS_G" addr add "10.31.$k.1/24" dev "g$k" || fail "address on g$k"
	ip -n "$NS_D" addr add "10.31.$k.2/24" dev "p$k" || fail "address on p$k"
done
EX_IP=10.32.0.1
script_netns netns_veth "$NS_G" e2 "$NS_V" v2
ip -n "$NS_G" addr add "$EX_IP/24" dev e2 || fail "address on e2"
ip -n "$NS_V" addr add 10.32.0.2/24 dev v2 || fail "address on v2"
script_netns netns_veth "$NS_V" m2 "$NS_D" p2
script_netns netns_mirror "$NS_V" v2 m2

udp_port() { [ "$1" = 3 ] && echo 6003 || echo 6000; }
P1_IP=10.31.1.5 # port 1's own address (role = udp): no host in NS_D owns it, only toed answers for it
port_ip() { [ "$1" = 1 ] && echo "$P1_IP" || echo "10.31.$1.2"; }

write_conf() { # TYPE
	{
		echo "[source]"
		echo "type = $1"
		echo "interface = p0"
		if [ "$1" = af_xdp ]; then
			# four UMEMs: keep each small (the default is 256 MiB a port)
			printf 'xdp_mode = native\nxsk_rx_ring = 4K\nxsk_fill_ring = 4K\nxsk_frames = 8K\n'
		fi
		for k in 1 2 3; do
			printf '\n[port.%s]\ninterface = p%s\n' "$k" "$k"
			# port 1 speaks for an address of its own (ARP, ping): the sender finds it by ARP
			[ "$k" = 1 ] && printf 'role = udp\nip = %s\nnetmask = 24\n' "$P1_IP"
		done
		for k in 0 1 3; do
			printf '\n[feed.u%s]\nprotocol = udp\nvendor = *:%s\nport = %s\n' "$k" "$(udp_port $k)" "$k"
		done
		printf '\n[feed.t2]\nexchange = %s:5261\nport = 2\n' "$EX_IP"
		cat <<EOF

[fast]
templates = $TEMPLATES

EOF
		e2e_conf_tail
	} >"$WORK/toed.conf"
}

start_toed() { # TYPE: 0 ready, 2 toed exited before ready
	write_conf "$1"
	e2e_run_toed "$NS_D" --bpf-object "$STEER"
}

# verifier NAME SEED [toe-verify options]: a client checking the feed of SEED, subscribed (pid p_v)
verifier() {
	w=$WORK/$1
	_name=$1 _seed=$2
	shift 2
	"$VERIFY" --templates "$TEMPLATES" --socket "$SOCK" --expect "$RECORDS" --seed "$_seed" --label "$_name" \
		--ready "$w.ready" --idle-ms 2000 --timeout 60 "$@" >"$w.out" 2>"$w.err" &
	p_v=$!
	pids="$pids $p_v"
	wait_file "$w.ready" 10 || fail "$_name: the client did not subscribe: $(cat "$w.err")"
}

# verified NAME: the client's verdict: exactly the feed
verified() {
	wait "$p_v"
	_rc=$?
	[ $_rc -eq 0 ] || fail "$1: toe-verify exited $_rc: $(cat "$WORK/$1.out") $(tail -n 5 "$WORK/$1.err")"
	e2e_verify_exact "$WORK/$1.out" "$1" "$RECORDS"
}

stats() { "$TOECTL" -s "$SOCK" stats --json >"$1" || fail "toectl stats"; }
pget() { jget "$1" "[p for p in d['ports'] if p['port'] == $2][0]['$3']"; }

# One port: its feed (seed 10 + port) sent to its address, read exactly by a client.
run_port() { # TYPE PORT
	k=$2 seed=$((10 + $2))
	verifier "$1-port$k" $seed
	if [ "$k" = 2 ]; then # TCP, exchange -> vendor, seen on the mirror
		ip netns exec "$NS_G" timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --listen "$EX_IP:5261" \
			--records "$RECORDS" --seed "$seed" --rate 20000 --wait-ms 20000 2>"$w.feedsim.err" &
		p_fs=$!
		ip netns exec "$NS_V" timeout 60 "$SOCKRX" --templates "$TEMPLATES" --connect "$EX_IP:5261" \
			--wait-ms 20000 2>"$w.sockrx.err" &
		p_rx=$!
		pids="$pids $p_fs $p_rx"
		wait "$p_fs" || fail "$1 port $k: toe-feedsim failed: $(cat "$w.feedsim.err")"
		wait "$p_rx" || fail "$1 port $k: toe-sockrx (the vendor) failed: $(cat "$w.sockrx.err")"
	else
		# port 1's address is found by ARP (toed's answer) before the feed starts: datagrams sent while the
		# generator's kernel resolves it wait in its neighbour queue, and the first ones sent after the
		# answer can overtake them (seen: 14 records of 3000 out of order, af_packet)
		if [ "$k" = 1 ]; then
			ip netns exec "$NS_G" ping -c 1 -W 2 "$P1_IP" >"$w.resolve.out" 2>&1 ||
				fail "$1: port 1 ($P1_IP) answered neither ARP nor ping before its feed: $(cat "$w.resolve.out")"
		fi
		ip netns exec "$NS_G" timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --udp "$(port_ip "$k"):$(udp_port "$k")" \
			--records "$RECORDS" --seed "$seed" --rate 20000 2>"$w.feedsim.err" ||
			fail "$1 port $k: toe-feedsim failed: $(cat "$w.feedsim.err")"
	fi
	verified "$1-port$k"
}

# Port 1 (role = udp, its own address) answers Linux's ping and arping; the mirror ports never send.
answers() { # TYPE
	ip netns exec "$NS_G" ping -c 3 -i 0.2 -W 2 "$P1_IP" >"$WORK/$1.ping.out" 2>&1 ||
		fail "$1: ping $P1_IP (port 1) got no answer: $(cat "$WORK/$1.ping.out")"
	grep -q "3 received" "$WORK/$1.ping.out" || fail "$1: ping $P1_IP: $(tail -n 2 "$WORK/$1.ping.out")"
	arps=0
	if command -v arping >/dev/null 2>&1; then
		ip netns exec "$NS_G" arping -c 3 -w 5 -I g1 "$P1_IP" >"$WORK/$1.arping.out" 2>&1 ||
			fail "$1: arping $P1_IP (port 1) got no answer: $(cat "$WORK/$1.arping.out")"
		grep -q "Received 3 response" "$WORK/$1.arping.out" ||
			fail "$1: arping $P1_IP: $(tail -n 2 "$WORK/$1.arping.out")"
		arps=3
	else
		echo "SKIP (arping part): arping is not installed (iputils-arping)"
	fi
	sleep 0.3 # the counters are published every 100 ms
	stats "$WORK/$1.sa.json"
	icmp=$(pget "$WORK/$1.sa.json" 1 icmp_replies)
	[ "$icmp" -ge 3 ] || fail "$1: port 1 counted $icmp ICMP echo replies, expected 3"
	arp=$(($(pget "$WORK/$1.sa.json" 1 arp_replies) - $(pget "$WORK/$1.s0.json" 1 arp_replies)))
	[ "$arp" -ge "$arps" ] || fail "$1: port 1 counted $arp ARP replies to arping's $arps requests"
	[ "$(pget "$WORK/$1.sa.json" 1 tx_frames)" -ge $((icmp + arp)) ] ||
		fail "$1: port 1's source sent $(pget "$WORK/$1.sa.json" 1 tx_frames) frames for $icmp + $arp replies"
	[ "$(pget "$WORK/$1.sa.json" 1 tx_fail)" = 0 ] || fail "$1: port 1's source refused replies (tx_fail)"
	for k in 0 2 3; do # mirrors: never a frame out, not even an attempt
		for c in tx_frames tx_refused arp_replies icmp_replies; do
			[ "$(pget "$WORK/$1.sa.json" $k $c)" = 0 ] || fail "$1: mirror port $k: $c = $(pget "$WORK/$1.sa.json" $k $c)"
		done
	done
	echo "== $1: port 1 ($P1_IP, role = udp) answered ping ($icmp echo replies) and ARP ($arp replies, arping: $arps); mirror ports sent nothing"
}

run_type() { # TYPE
	# the generator must ask ARP for port 1's address again (not use the last run's answer)
	ip -n "$NS_G" neigh flush dev g1
	start_toed "$1"
	rc=$?
	if [ $rc = 2 ]; then
		[ "$1" = af_xdp ] || fail "$1: toed exited before it was ready: $(tail -n 5 "$WORK/toed.log")"
		echo "SKIP (af_xdp only): toed could not start: $(grep -m1 -i 'error\|af_xdp' "$WORK/toed.log")"
		return 0
	fi
	grep -q "port 3: .*p3" "$WORK/toed.log" || fail "$1: the log does not describe port 3's source"
	for k in 1 2 3 0; do
		run_port "$1" "$k"
	done
	sleep 0.3 # the counters are published every 100 ms
	stats "$WORK/$1.s0.json"
	for k in 0 1 2 3; do
		pf=$(pget "$WORK/$1.s0.json" $k pipeline_frames)
		[ "$pf" -ge $((RECORDS / 4)) ] || fail "$1: port $k gave the pipeline $pf frames" # <= 4 records a message
		[ "$pf" = "$(pget "$WORK/$1.s0.json" $k frames)" ] ||
			fail "$1: port $k: its source delivered $(pget "$WORK/$1.s0.json" $k frames) frames, the pipeline got $pf"
		pget "$WORK/$1.s0.json" $k describe | grep -q "p$k" || fail "$1: port $k's source is not on p$k"
	done
	recs0=$(jget "$WORK/$1.s0.json" "d['rx']['records']")
	[ "$recs0" = $((4 * RECORDS)) ] || fail "$1: $recs0 records decoded, expected $((4 * RECORDS))"
	# the feed to port 1 reached it only because toed answered the generator's ARP for its address
	[ "$(pget "$WORK/$1.s0.json" 1 arp_replies)" -ge 1 ] || fail "$1: port 1 answered no ARP request"
	answers "$1"

	# UDP port 6000 on port 3: listened on ports 0 and 1 only, so not decoded, and counted under port 3
	ip netns exec "$NS_G" timeout 30 "$FEEDSIM" --templates "$TEMPLATES" --udp "10.31.3.2:6000" \
		--records 400 --seed 99 --rate 20000 2>"$WORK/$1.other.err" || fail "$1: toe-feedsim to port 3 failed"
	sleep 0.3 # the counters are published every 100 ms
	stats "$WORK/$1.s1.json"
	[ "$(jget "$WORK/$1.s1.json" "d['rx']['records']")" = "$recs0" ] ||
		fail "$1: datagrams for UDP port 6000 on port 3 were decoded"
	# af_packet sees them and the pipeline drops them (udp_other_port); af_xdp's program on p3 steers
	# only port 3's feed to the socket and passes the rest to the kernel (xdp_passed)
	ctr=udp_other_port
	[ "$1" = af_xdp ] && ctr=xdp_passed
	other=$(($(pget "$WORK/$1.s1.json" 3 $ctr) - $(pget "$WORK/$1.s0.json" 3 $ctr)))
	[ "$other" -ge 100 ] || fail "$1: port 3 counted $other datagrams to another port's UDP port ($ctr)"
	for k in 0 1 2; do
		[ "$(pget "$WORK/$1.s1.json" $k udp_other_port)" = 0 ] || fail "$1: port $k counted udp_other_port"
	done
	# a port's interface is read at start: a reload says so and keeps the running one
	sed -i 's/^interface = p3$/interface = p9/' "$WORK/toed.conf"
	"$TOECTL" -s "$SOCK" reload >"$WORK/$1.reload.out" 2>&1
	grep -qF '[port.3] interface changed (p3 -> p9): needs a restart' "$WORK/$1.reload.out" ||
		fail "$1: reload: $(cat "$WORK/$1.reload.out")"
	e2e_stop_toed
	echo "== $1: four ports each decoded their own feed of $RECORDS records exactly (three UDP, one TCP on a mirror); port 3 left $other datagrams of another port's feed undecoded (counted: $ctr)"
}

run_type af_packet
run_type af_xdp

# ---- A/B lines on two ports: one arbitration group across the ports (one pipeline)
ab_run() {
	w=$WORK/ab
	{
		printf '[source]\ntype = af_packet\ninterface = p0\n\n[port.1]\ninterface = p1\n\n'
		printf '[feed.a]\nprotocol = udp\nvendor = *:6000\ngroup = ab\n\n'
		printf '[feed.b]\nprotocol = udp\nvendor = *:6000\nport = 1\ngroup = ab\n\n'
		printf '[fast]\ntemplates = %s\nsequence_check = yes\n\n' "$TEMPLATES"
		e2e_conf_tail
	} >"$WORK/toed.conf"
	e2e_run_toed "$NS_D" || fail "A/B: toed exited before it was ready"
	# four channels, BizIndex per channel (the generator's default, as SSE and sequence tracking number it)
	verifier ab 21
	# line A (port 0) carries the first half only, line B (port 1) all of it, at the same time
	half=$((RECORDS / 2))
	ip netns exec "$NS_G" timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --udp 10.31.0.2:6000 \
		--records "$half" --seed 21 --rate 20000 2>"$w.a.err" &
	p_a=$!
	pids="$pids $p_a"
	ip netns exec "$NS_G" timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --udp 10.31.1.2:6000 \
		--records "$RECORDS" --seed 21 --rate 20000 2>"$w.b.err" || fail "A/B: toe-feedsim (line B) failed"
	wait "$p_a" || fail "A/B: toe-feedsim (line A) failed"
	verified ab
	sleep 0.3 # the counters are published every 100 ms
	stats "$w.s.json"
	dups=$(jget "$w.s.json" "d['rx']['seq_dups']")
	[ "$dups" = "$half" ] || fail "A/B: $dups copies dropped, expected $half (line A's records)"
	e2e_stop_toed
	echo "== A/B: one group, a line on port 0 (half the feed) and one on port 1 (all of it): $RECORDS records delivered once, $dups copies dropped"
}
ab_run

# ---- configurations the software backend cannot run: exit 78, file, line and key named
check_bad() { # NAME EXPECTED-MESSAGE CONFIG-TEXT
	printf '%s\n[fast]\ntemplates = %s\n[feed.a]\nprotocol = udp\nvendor = *:6000\n' "$3" "$TEMPLATES" \
		>"$WORK/bad-$1.conf"
	"$TOED" --check-config -c "$WORK/bad-$1.conf" >"$WORK/bad-$1.out" 2>&1
	rc=$?
	[ $rc = 78 ] || fail "check-config $1: exit $rc, expected 78: $(cat "$WORK/bad-$1.out")"
	grep -qF "$WORK/bad-$1.conf:$2" "$WORK/bad-$1.out" ||
		fail "check-config $1: no \"$2\" in: $(cat "$WORK/bad-$1.out")"
}
check_bad no-interface '4: [port.2] interface: not set' "[source]
type = af_xdp
interface = p0
[port.2]
role = mirror"
check_bad same-interface '5: [port.1] interface = p0: already the interface of [port]' "[source]
type = af_packet
interface = p0
[port.1]
interface = p0"
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$WORK/x.pcap"
check_bad pcap-two-ports '4: [port.1]: type = pcap replays one capture as port 0' "[source]
type = pcap
pcap_file = $WORK/x.pcap
[port.1]
interface = p1"
echo "== check-config: a port without an interface, two ports on one interface, a second port of a replay: exit 78"

echo "PASS: four ports in the software backend"
exit 0
