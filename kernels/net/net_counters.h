/* net_counters.h - MIB-style counters of the network layers (synthesisable subset).
 *
 * One struct per block (eth, ip, tcp, udp, icmp, arp), all uint64_t, gathered
 * in struct net_stats that the caller owns and passes to net_rx(),
 * net_arp_*(), net_icmp_input() and net_udp_input(). "in_*" counts what
 * arrived at a block, "delivered"/"out_*" what it passed on or produced, and
 * every "drop_*" one reason something was discarded: a frame (each frame
 * net_rx drops increments exactly one drop_ counter of eth/ip/tcp/udp), a
 * reply that did not fit, or an ARP entry. The lists are X-macros so the
 * counter table for tools (net_stats_table()) cannot drift from the structs.
 */
#ifndef NET_COUNTERS_H
#define NET_COUNTERS_H

#include <stdint.h>

#define NET_ETH_STATS(X)                                                              \
	X(in_frames)       /* frames given to net_rx */                               \
	X(in_octets)       /* their bytes */                                          \
	X(in_vlan)         /* frames with at least one VLAN tag */                    \
	X(in_qinq)         /* frames with two tags */                                 \
	X(in_ipv4)         /* frames passed to IPv4 */                                \
	X(in_arp)          /* frames passed to ARP */                                 \
	X(drop_runt)       /* shorter than the Ethernet header and its tags */        \
	X(drop_vlan_depth) /* more than two VLAN tags */                              \
	X(drop_ethertype)  /* EtherType neither IPv4 nor ARP */

#define NET_IP_STATS(X)                                                               \
	X(in_receives)     /* IPv4 packets seen */                                    \
	X(in_octets)       /* IPv4 total length of delivered packets */               \
	X(in_options)      /* delivered packets with IP options (skipped) */          \
	X(in_oversize)     /* delivered packets larger than the MTU (super-frames) */ \
	X(in_delivers)     /* packets passed to TCP, UDP or ICMP */                   \
	X(drop_ip_trunc)   /* frame shorter than the IPv4 header (IHL) */             \
	X(drop_ip_version) /* version field not 4 */                                  \
	X(drop_ip_hdr)     /* IHL below 5 */                                          \
	X(drop_ip_csum)    /* header checksum wrong */                                \
	X(drop_ip_len)     /* total length below the header or beyond the frame */    \
	X(drop_ip_frag)    /* a fragment (MF set or offset != 0) */                   \
	X(drop_ip_dst)     /* not for us (only with NET_CFG_FILTER_DST) */            \
	X(drop_ip_proto)   /* protocol neither TCP, UDP nor ICMP */

#define NET_TCP_STATS(X)                                                              \
	X(in_segments)     /* TCP segments seen */                                    \
	X(in_octets)       /* payload bytes of delivered segments */                  \
	X(in_options)      /* delivered segments with TCP options (skipped) */        \
	X(csum_unchecked)  /* delivered without a checksum check (flag off) */        \
	X(csum_not_ready)  /* delivered unchecked: source says left to offload */     \
	X(csum_source_ok)  /* delivered unchecked: source says already verified */    \
	X(delivered)       /* segments returned as NET_RX_TCP */                      \
	X(drop_tcp_hdr)    /* shorter than 20 bytes, data offset < 5 or too long */   \
	X(drop_tcp_csum)   /* checksum wrong */

#define NET_UDP_STATS(X)                                                              \
	X(in_datagrams)    /* UDP datagrams seen */                                   \
	X(in_octets)       /* payload bytes of datagrams returned as NET_RX_UDP */    \
	X(no_csum)         /* checksum field 0 (none sent) */                         \
	X(csum_unchecked)  /* non-zero checksum not verified (flag off) */            \
	X(csum_not_ready)  /* not verified: source says left to offload */            \
	X(csum_source_ok)  /* not verified: source says already verified */           \
	X(delivered)       /* datagrams handed to a listener by net_udp_input */      \
	X(drop_udp_hdr)    /* shorter than the 8-byte header */                       \
	X(drop_udp_len)    /* length field below 8 or beyond the IP payload */        \
	X(drop_udp_csum)   /* checksum wrong */                                       \
	X(drop_udp_port)   /* destination port not listened */

#define NET_ICMP_STATS(X)                                                             \
	X(in_msgs)         /* ICMP messages seen */                                   \
	X(in_echo_req)     /* echo requests to one of our addresses */               \
	X(in_echo_other)   /* echo requests to other hosts (ignored: mirror) */       \
	X(in_other)        /* other types (ignored) */                                \
	X(out_echo_reply)  /* echo reply frames produced */                           \
	X(drop_icmp_short) /* shorter than the 8-byte header */                       \
	X(drop_icmp_csum)  /* checksum wrong */                                       \
	X(drop_tx_space)   /* reply does not fit the caller's buffer */

#define NET_ARP_STATS(X)                                                              \
	X(in_packets)      /* ARP packets seen */                                     \
	X(in_requests)                                                                \
	X(in_replies)                                                                 \
	X(in_not_ours)     /* target address not ours (ignored after merging) */      \
	X(out_replies)     /* reply frames produced */                                \
	X(out_requests)    /* request frames produced */                              \
	X(learned)         /* new resolved entries */                                 \
	X(updated)         /* resolved entries refreshed */                           \
	X(resolved)        /* pending entries answered */                             \
	X(evicted)         /* resolved entries replaced by new ones (LRU) */          \
	X(hits)            /* resolve calls answered from the table */                \
	X(drop_arp_short)  /* shorter than the 28-byte Ethernet/IPv4 ARP packet */    \
	X(drop_arp_format) /* hardware/protocol type or sizes, or opcode, unknown */  \
	X(drop_pending_timeout) /* pending entries unanswered for 500 ms */           \
	X(drop_table_full) /* no free, expired or resolved entry to replace */        \
	X(drop_no_addr)    /* request needed but no address configured */             \
	X(drop_tx_space)   /* frame does not fit the caller's buffer */

#define NET_STAT_FIELD(name) uint64_t name;
#define NET_STAT_ONE(name) +1

struct net_eth_stats { NET_ETH_STATS(NET_STAT_FIELD) };
struct net_ip_stats { NET_IP_STATS(NET_STAT_FIELD) };
struct net_tcp_stats { NET_TCP_STATS(NET_STAT_FIELD) };
struct net_udp_stats { NET_UDP_STATS(NET_STAT_FIELD) };
struct net_icmp_stats { NET_ICMP_STATS(NET_STAT_FIELD) };
struct net_arp_stats { NET_ARP_STATS(NET_STAT_FIELD) };

struct net_stats {
	struct net_eth_stats eth;
	struct net_ip_stats ip;
	struct net_tcp_stats tcp;
	struct net_udp_stats udp;
	struct net_icmp_stats icmp;
	struct net_arp_stats arp;
	uint32_t last_drop; /* enum net_drop of the last frame net_rx dropped (not a counter) */
};

/* Number of counters in the table. */
#define NET_STATS_COUNT (0 NET_ETH_STATS(NET_STAT_ONE) NET_IP_STATS(NET_STAT_ONE)          \
	NET_TCP_STATS(NET_STAT_ONE) NET_UDP_STATS(NET_STAT_ONE) NET_ICMP_STATS(NET_STAT_ONE) \
	NET_ARP_STATS(NET_STAT_ONE))

void net_stats_init(struct net_stats *s);

/* Fill names[i] ("eth.in_frames", ...) and values[i] for up to cap counters,
 * in declaration order; returns NET_STATS_COUNT. The names are static
 * strings. For tools; not meant for synthesis. */
uint32_t net_stats_table(const struct net_stats *s, const char **names, uint64_t *values, uint32_t cap);

#endif
