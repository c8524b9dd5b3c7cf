/* net_counters.c - zeroing and the name/value table of struct net_stats. */
#include "net_counters.h"
#include "net_rx.h"

void net_stats_init(struct net_stats *s)
{
#define ZERO_ETH(n) s->eth.n = 0;
#define ZERO_IP(n) s->ip.n = 0;
#define ZERO_TCP(n) s->tcp.n = 0;
#define ZERO_UDP(n) s->udp.n = 0;
#define ZERO_ICMP(n) s->icmp.n = 0;
#define ZERO_ARP(n) s->arp.n = 0;
	NET_ETH_STATS(ZERO_ETH)
	NET_IP_STATS(ZERO_IP)
	NET_TCP_STATS(ZERO_TCP)
	NET_UDP_STATS(ZERO_UDP)
	NET_ICMP_STATS(ZERO_ICMP)
	NET_ARP_STATS(ZERO_ARP)
	s->last_drop = NET_DROP_NONE;
#undef ZERO_ETH
#undef ZERO_IP
#undef ZERO_TCP
#undef ZERO_UDP
#undef ZERO_ICMP
#undef ZERO_ARP
}

uint32_t net_stats_table(const struct net_stats *s, const char **names, uint64_t *values, uint32_t cap)
{
	uint32_t n = 0;
#define ROW(blk, name)                                 \
	if (n < cap) {                                 \
		names[n] = #blk "." #name;             \
		values[n] = s->blk.name;               \
	}                                              \
	n++;
#define ROW_ETH(name) ROW(eth, name)
#define ROW_IP(name) ROW(ip, name)
#define ROW_TCP(name) ROW(tcp, name)
#define ROW_UDP(name) ROW(udp, name)
#define ROW_ICMP(name) ROW(icmp, name)
#define ROW_ARP(name) ROW(arp, name)
	NET_ETH_STATS(ROW_ETH)
	NET_IP_STATS(ROW_IP)
	NET_TCP_STATS(ROW_TCP)
	NET_UDP_STATS(ROW_UDP)
	NET_ICMP_STATS(ROW_ICMP)
	NET_ARP_STATS(ROW_ARP)
#undef ROW
#undef ROW_ETH
#undef ROW_IP
#undef ROW_TCP
#undef ROW_UDP
#undef ROW_ICMP
#undef ROW_ARP
	return n;
}

const char *net_drop_name(uint32_t reason)
{
	switch (reason) {
	case NET_DROP_NONE: return "none";
	case NET_DROP_RUNT: return "runt";
	case NET_DROP_VLAN_DEPTH: return "vlan_depth";
	case NET_DROP_ETHERTYPE: return "ethertype";
	case NET_DROP_IP_TRUNC: return "ip_trunc";
	case NET_DROP_IP_VERSION: return "ip_version";
	case NET_DROP_IP_HDR: return "ip_hdr";
	case NET_DROP_IP_CSUM: return "ip_csum";
	case NET_DROP_IP_LEN: return "ip_len";
	case NET_DROP_IP_FRAG: return "ip_frag";
	case NET_DROP_IP_DST: return "ip_dst";
	case NET_DROP_IP_PROTO: return "ip_proto";
	case NET_DROP_TCP_HDR: return "tcp_hdr";
	case NET_DROP_TCP_CSUM: return "tcp_csum";
	case NET_DROP_UDP_HDR: return "udp_hdr";
	case NET_DROP_UDP_LEN: return "udp_len";
	case NET_DROP_UDP_CSUM: return "udp_csum";
	default: return "unknown";
	}
}
