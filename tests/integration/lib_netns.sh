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
#   netns_impair NS DEV OBJ     attach a tc BPF program (OBJ, section tc) to DEV's egress
#   netns_impair_off NS DEV
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

netns_topology() { # PREFIX NET
	NS_EX=${1}ex
	NS_VE=${1}ve
	NS_MI=${1}mi
	netns_add "$NS_EX" "$NS_VE" "$NS_MI" || return $?
	netns_veth "$NS_EX" ex0 "$NS_VE" ve0 || return $?
	netns_veth "$NS_VE" vm0 "$NS_MI" vm1 || return $?
	if ! ip -n "$NS_EX" addr add "$2.1/24" dev ex0 || ! ip -n "$NS_VE" addr add "$2.2/24" dev ve0; then
		NETNS_WHY="cannot address ex0/ve0"
		return 1
	fi
	netns_mirror "$NS_VE" ve0 vm0 || return 1
	netns_clsact "$NS_EX" ex0 || return 1
	netns_clsact "$NS_VE" vm0 || return 1
	return 0
}
