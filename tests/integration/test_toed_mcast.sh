#!/bin/sh
# test_toed_mcast.sh - UDP feeds sent to a multicast group: toed joins the group on its port's interface.
#
# Two network namespaces, one veth pair (lib_netns.sh):
#
#   generator  g0 10.33.0.1 <-- veth --> p0 10.33.0.2   toed: [source] interface = p0
#              route 224.0.0.0/4 dev g0
#
# Feeds: m, vendor = 239.31.7.1:6100 (any source), and s, vendor = 232.31.7.2:6101 with
# exchange = 10.33.0.1 (a source-specific join). While toed runs, the kernel lists both groups
# on p0 (ip maddr: the membership that programs a NIC's filter and answers IGMP queries); toed
# logs one notice per group and toectl stats shows them under port 0 (multicast_joined). A feed
# sent by toe-feedsim to each group from the generator reaches a client (toe-verify) exactly:
# none wrong, none missing, no gap. Once toed stops, p0 has left both groups. Both source types
# run (af_packet, then af_xdp in native mode, which skips alone where XDP cannot be attached).
# Last, a join the kernel refuses (net.ipv4.igmp_max_memberships = 0 in toed's namespace) stops
# the start with an error naming the feed, the group and the interface.
#
# Needs root, ip, ethtool, python3. Namespaces and addresses are the test's own, removed on
# exit. Run under flock /tmp/toed-itest.lock. Takes about 10 s.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/lib_script.sh"
TEMPLATES=$root/conf/templates/sse-l2-3201-5801.xml
RECORDS=${TOE_MCAST_RECORDS:-2000}
TOED=${TOED:-$BUILD/bin/toed}
TOECTL=$BUILD/bin/toectl
FEEDSIM=$BUILD/bin/toe-feedsim
VERIFY=$BUILD/bin/toe-verify
STEER=$BUILD/bpf/toe_steer.bpf.o

script_needs_root
script_needs_tools ip ethtool timeout
script_needs_python
script_build "$TOED" "$TOECTL" "$FEEDSIM" "$VERIFY" "$STEER"

script_workdir toe-mcast
chmod 755 "$WORK"
FAIL_LOG=$WORK/toed.log
. "$here/lib_e2e.sh"

NS_G=tmg$$
NS_D=tmd$$
script_netns netns_add "$NS_G" "$NS_D"
script_netns netns_veth "$NS_G" g0 "$NS_D" p0
ip -n "$NS_G" addr add 10.33.0.1/24 dev g0 || fail "address on g0"
ip -n "$NS_D" addr add 10.33.0.2/24 dev p0 || fail "address on p0"
# the generator sends the groups out of g0 (there is no default route)
ip -n "$NS_G" route add 224.0.0.0/4 dev g0 || fail "multicast route on g0"

G_ANY=239.31.7.1
G_SSM=232.31.7.2
EX_IP=10.33.0.1

write_conf() { # TYPE
	{
		printf '[source]\ntype = %s\ninterface = p0\n' "$1"
		[ "$1" = af_xdp ] && printf 'xdp_mode = native\nxsk_rx_ring = 4K\nxsk_fill_ring = 4K\nxsk_frames = 8K\n'
		printf '\n[feed.m]\nprotocol = udp\nvendor = %s:6100\n' "$G_ANY"
		printf '\n[feed.s]\nprotocol = udp\nvendor = %s:6101\nexchange = %s\n' "$G_SSM" "$EX_IP"
		printf '\n[fast]\ntemplates = %s\n\n' "$TEMPLATES"
		e2e_conf_tail
	} >"$WORK/toed.conf"
}

joined() { # GROUP: 0 when p0 has joined it (the kernel's list of the interface's memberships)
	ip -n "$NS_D" maddr show dev p0 | grep -Eq "inet +${1//./\\.}( |\$)"
}

# one group's feed, sent from the generator, read exactly by a client of that stream
run_feed() { # TYPE FEED GROUP PORT SEED
	w=$WORK/$1-$2
	"$VERIFY" --templates "$TEMPLATES" --socket "$SOCK" --expect "$RECORDS" --seed "$5" --label "$1-$2" \
		--stream "$2" --ready "$w.ready" --idle-ms 2000 --timeout 60 >"$w.out" 2>"$w.err" &
	p_v=$!
	pids="$pids $p_v"
	wait_file "$w.ready" 10 || fail "$1 $2: the client did not subscribe: $(cat "$w.err")"
	ip netns exec "$NS_G" timeout 60 "$FEEDSIM" --templates "$TEMPLATES" --udp "$3:$4" \
		--records "$RECORDS" --seed "$5" --rate 20000 2>"$w.feedsim.err" ||
		fail "$1 $2: toe-feedsim to $3:$4 failed: $(cat "$w.feedsim.err")"
	wait "$p_v"
	_rc=$?
	[ $_rc -eq 0 ] || fail "$1 $2: toe-verify exited $_rc: $(cat "$w.out") $(tail -n 5 "$w.err")"
	e2e_verify_exact "$w.out" "$1 $2" "$RECORDS"
}

run_type() { # TYPE
	joined "$G_ANY" && fail "$1: p0 is in $G_ANY before toed started"
	write_conf "$1"
	e2e_run_toed "$NS_D" --bpf-object "$STEER"
	rc=$?
	if [ $rc = 2 ]; then
		[ "$1" = af_xdp ] || fail "$1: toed exited before it was ready: $(tail -n 5 "$WORK/toed.log")"
		echo "SKIP (af_xdp only): toed could not start: $(grep -m1 -i 'error\|af_xdp' "$WORK/toed.log")"
		return 0
	fi
	grep -q "notice: port 0: joined multicast group $G_ANY on p0 for \[feed.m\]" "$WORK/toed.log" ||
		fail "$1: no notice of the join of $G_ANY"
	grep -q "notice: port 0: joined multicast group $G_SSM from $EX_IP on p0 for \[feed.s\]" "$WORK/toed.log" ||
		fail "$1: no notice of the source-specific join of $G_SSM"
	joined "$G_ANY" || fail "$1: p0 has not joined $G_ANY: $(ip -n "$NS_D" maddr show dev p0)"
	joined "$G_SSM" || fail "$1: p0 has not joined $G_SSM: $(ip -n "$NS_D" maddr show dev p0)"
	"$TOECTL" -s "$SOCK" stats --json >"$WORK/$1.stats.json" || fail "$1: toectl stats"
	mj=$(jget "$WORK/$1.stats.json" "[p for p in d['ports'] if p['port'] == 0][0]['multicast_joined']")
	[ "$mj" = "$G_ANY (feed m), $G_SSM from $EX_IP (feed s)" ] || fail "$1: toectl stats: multicast_joined = '$mj'"
	"$TOECTL" -s "$SOCK" stats >"$WORK/$1.stats.txt" || fail "$1: toectl stats (text)"
	grep -Eq "^ +multicast_joined +$G_ANY \(feed m\)" "$WORK/$1.stats.txt" ||
		fail "$1: toectl stats (text) does not show the groups: $(grep -A3 'port 0' "$WORK/$1.stats.txt")"

	run_feed "$1" m "$G_ANY" 6100 31
	run_feed "$1" s "$G_SSM" 6101 32

	e2e_stop_toed
	joined "$G_ANY" && fail "$1: p0 is still in $G_ANY after toed stopped"
	joined "$G_SSM" && fail "$1: p0 is still in $G_SSM after toed stopped"
	echo "== $1: joined $G_ANY and $G_SSM (from $EX_IP) on p0 while running, left them at exit; both feeds ($RECORDS records each) reached a client exactly"
}

run_type af_packet
run_type af_xdp

# ---- a join the kernel refuses: no start, and the message names feed, group and interface
ip netns exec "$NS_D" sysctl -qw net.ipv4.igmp_max_memberships=0 || fail "sysctl igmp_max_memberships"
write_conf af_packet
: >"$WORK/toed.log"
ip netns exec "$NS_D" timeout 20 "$TOED" -c "$WORK/toed.conf" --foreground >>"$WORK/toed.log" 2>&1
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "a refused join: toed exited $rc"
grep -q "cannot join multicast group $G_ANY on p0 (port 0): the kernel refused another membership" "$WORK/toed.log" ||
	fail "a refused join: no message naming the group and the interface"
grep -q "\[feed.m\]: cannot join" "$WORK/toed.log" || fail "a refused join: the message does not name the feed"
grep -q "notice: ready" "$WORK/toed.log" && fail "a refused join: toed became ready"
joined "$G_ANY" && fail "a refused join: p0 is in $G_ANY"
echo "== a join the kernel refuses (igmp_max_memberships = 0): toed exits $rc naming feed, group and interface"

echo "PASS: multicast UDP feeds: groups joined on the port's interface"
exit 0
