# lib_netns.sh - network namespaces, veth links and a tc mirror for the integration tests (sourced, POSIX sh).
# shellcheck disable=SC2034 # NETNS_WHY and NS_* are read by the scripts that source this file
#
# The exchange / vendor / mirror-port topology of the real-traffic tests
# (test_mirror_traffic.sh, test_e2e_*.sh):
#
#   exchange ex0 NET.1 <-- veth --> ve0 NET.2 vendor
#                                   ve0 ingress+egress: tc u32 match-all, mirred egress mirror dev vm0
#                                   vm0 <-- veth --> vm1 mirror (the switch's mirror port)
#
# TSO/GSO/GRO and transmit checksum offload are off on every veth: frames are
# MTU-sized and carry real checksums (a NIC would put them on the wire), so
# the mirrored copies are what a switch would deliver. ex0 and vm0 get a
# clsact qdisc for impairment programs (lossy_tc.bpf.c): on ex0 egress the
# exchange<->vendor link loses data (Linux retransmits, the mirror sees what
# the vendor sees), on vm0 egress only the mirror leg loses data.
#
#   netns_topology PREFIX NET   create it; namespaces ${PREFIX}ex ${PREFIX}ve ${PREFIX}mi
#                               in NS_EX NS_VE NS_MI; NET is the first three octets (10.10.0).
#                               Returns 77 (with the reason in NETNS_WHY) when namespaces or
#                               veth pairs cannot be made here, 1 on a later failure.
#   netns_add NAME...           one namespace each (IPv6 off, lo up), deleted by netns_cleanup
#   netns_veth NS1 DEV1 NS2 DEV2  a veth pair, both ends up with offloads off
#   netns_offloads_off NS DEV
#   netns_mirror NS DEV TODEV   copy both directions of DEV to TODEV's egress (tc u32 + mirred)
#   netns_link_mirror EXDEV VEDEV NET MIDEV MIPEER
#                               one more exchange-vendor link of the topology (a second
#                               line, another NIC): EXDEV NET.1 in NS_EX <-> VEDEV NET.2
#                               in NS_VE, both directions of VEDEV mirrored to MIDEV <-> MIPEER
#                               (in NS_MI: a mirror port of its own); clsact on EXDEV and MIDEV
#   netns_impair NS DEV OBJ     attach a tc BPF program (OBJ, section tc) to DEV's egress
#   netns_impair_off NS DEV
#   netns_slow_class NS DEV BITS  an HTB root on DEV whose class 1:2 sends BITS bit/s: the slow
#                               class lossy_tc.bpf.c (REORDER_*) delays segments through, so
#                               that later ones overtake them (no netem here)
#   netns_slow_sent NS DEV      packets class 1:2 sent (the pacers included)
#   netns_cleanup               delete every namespace created (call it from the EXIT trap)
#
# Needs root, ip (iproute2), tc, ethtool. Sourced by bash or sh; defines only
# netns_* functions and NETNS_* / NS_* variables.

NETNS_CREATED=
NETNS_WHY=

netns_add() { # NAME...
	for _n in "$@"; do
		if ! _e=$(ip netns add "$_n" 2>&1); then
			NETNS_WHY="cannot create network namespaces: $_e"
			return 77
		fi
		NETNS_CREATED="$NETNS_CREATED $_n"
		ip netns exec "$_n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
		ip -n "$_n" link set lo up
	done
	return 0
}

netns_cleanup() {
	for _n in $NETNS_CREATED; do
		ip netns del "$_n" 2>/dev/null
	done
	NETNS_CREATED=
}

netns_offloads_off() { # NS DEV
	ip netns exec "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1 || {
		NETNS_WHY="ethtool -K $2 tso/gso/gro off failed"
		return 1
	}
	# checksums computed in software, as a NIC would put them on the wire
	ip netns exec "$1" ethtool -K "$2" tx off >/dev/null 2>&1 || {
		NETNS_WHY="ethtool -K $2 tx off failed"
		return 1
	}
}

netns_veth() { # NS1 DEV1 NS2 DEV2
	if ! _e=$(ip -n "$1" link add "$2" type veth peer name "$4" netns "$3" 2>&1); then
		NETNS_WHY="cannot create a veth pair: $_e"
		return 77
	fi
	for _x in "$1 $2" "$3 $4"; do
		# shellcheck disable=SC2086
		set -- $_x
		ip -n "$1" link set "$2" up || {
			NETNS_WHY="cannot bring $2 up"
			return 1
		}
		netns_offloads_off "$1" "$2" || return 1
	done
	return 0
}

netns_clsact() { # NS DEV
	ip netns exec "$1" tc qdisc add dev "$2" clsact 2>/dev/null || {
		NETNS_WHY="tc qdisc clsact on $2 failed"
		return 1
	}
}

netns_mirror() { # NS DEV TODEV
	netns_clsact "$1" "$2" || return 1
	for _d in ingress egress; do
		ip netns exec "$1" tc filter add dev "$2" "$_d" protocol all u32 match u32 0 0 \
			action mirred egress mirror dev "$3" 2>/dev/null || {
			NETNS_WHY="tc u32 + mirred ($_d) on $2 failed"
			return 1
		}
	done
}

netns_impair() { # NS DEV OBJ
	ip netns exec "$1" tc filter add dev "$2" egress bpf direct-action obj "$3" sec tc 2>/dev/null || {
		NETNS_WHY="tc bpf $3 on $2 egress failed"
		return 1
	}
}

netns_impair_off() { # NS DEV
	ip netns exec "$1" tc filter del dev "$2" egress 2>/dev/null
}

netns_slow_class() { # NS DEV BITS
	ip netns exec "$1" tc qdisc del dev "$2" root 2>/dev/null
	ip netns exec "$1" tc qdisc add dev "$2" root handle 1: htb 2>/dev/null &&
		ip netns exec "$1" tc class add dev "$2" parent 1: classid 1:2 htb rate "${3}bit" ceil "${3}bit" \
			burst 1 cburst 1 2>/dev/null || {
		NETNS_WHY="cannot set up the slow HTB class on $2"
		return 1
	}
}

netns_slow_sent() { # NS DEV
	ip netns exec "$1" tc -s class show dev "$2" classid 1:2 | sed -n 's/^ *Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p'
}

netns_link_mirror() { # EXDEV VEDEV NET MIDEV MIPEER
	netns_veth "$NS_EX" "$1" "$NS_VE" "$2" || return $?
	netns_veth "$NS_VE" "$4" "$NS_MI" "$5" || return $?
	if ! ip -n "$NS_EX" addr add "$3.1/24" dev "$1" || ! ip -n "$NS_VE" addr add "$3.2/24" dev "$2"; then
		NETNS_WHY="cannot address $1/$2"
		return 1
	fi
	netns_mirror "$NS_VE" "$2" "$4" || return 1
	netns_clsact "$NS_EX" "$1" || return 1
	netns_clsact "$NS_VE" "$4" || return 1
	return 0
}

netns_topology() { # PREFIX NET
	NS_EX=${1}ex
	NS_VE=${1}ve
	NS_MI=${1}mi
	netns_add "$NS_EX" "$NS_VE" "$NS_MI" || return $?
	netns_link_mirror ex0 ve0 "$2" vm0 vm1
}
