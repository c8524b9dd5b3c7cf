/* net_tx.h - transmit side of the network layers: TCP/IPv4/Ethernet frames and the next hop (synthesisable subset).
 *
 * net_tx_tcp() writes one frame from a segment description: Ethernet II
 * (optionally one 802.1Q tag), IPv4 without options (DF set, identification
 * from the caller, TTL, TOS, header checksum) and TCP (header, options bytes
 * as given, payload gathered from up to two slices, the checksum over the
 * pseudo-header). Frames are zero-padded to 60 bytes (no FCS).
 *
 * net_tx_route() picks the next hop (the peer itself when one of our
 * subnets holds it, else the gateway) and asks the ARP resolver (net_arp.h:
 * 128 entries, 500 ms pending timeout) for its MAC: NET_ARP_OK fills the
 * Ethernet header fields (our MAC and VLAN for the source address), WAIT
 * means a request is outstanding (the request frame, when a new one is due,
 * is in arp_out) and the caller holds or drops the segment.
 *
 * ARP replies and ICMP echo replies are built by net_arp_input() and
 * net_icmp_input() themselves.
 */
#ifndef NET_TX_H
#define NET_TX_H

#include <stdint.h>
#include "net_cfg.h"
#include "net_arp.h"
#include "net_counters.h"

#define NET_TX_TTL 64
#define NET_TX_HDR_MAX (18u + 20u + 60u) /* Ethernet with a tag, IPv4, TCP with 40 option bytes */

struct net_tx_l2 {
	uint8_t dst[6], src[6];
	uint16_t vlan;  /* 0: untagged */
	uint8_t pcp;    /* 802.1p priority of a tagged frame */
	uint8_t pad;
};

struct net_tcp_tx {
	uint32_t saddr, daddr;   /* host order */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint16_t win;
	uint8_t flags;           /* TCP_* */
	uint8_t tos;
	uint16_t ip_id;
	uint8_t ttl;             /* 0: NET_TX_TTL */
	uint8_t pad;
	const uint8_t *opt;      /* option bytes, optlen a multiple of 4, <= 40 */
	uint32_t optlen;
	const uint8_t *data[2];  /* payload slices */
	uint32_t len[2];
};

/* Returns the frame length written to out[0..cap), or 0 when it does not
 * fit, the options are malformed (length not a multiple of 4 or above 40)
 * or the IP datagram would exceed 65535 bytes. */
uint32_t net_tx_tcp(const struct net_tx_l2 *l2, const struct net_tcp_tx *t, uint8_t *out, uint32_t cap);

/* The next hop toward dst: dst when a configured subnet holds it (or no
 * gateway is set), else gateway. */
uint32_t net_next_hop(const struct net_cfg *cfg, uint32_t gateway, uint32_t dst);

/* Resolve the link-layer header toward dst (saddr: our source address, its
 * MAC and VLAN are used). See above; arp_out needs NET_ARP_FRAME_MAX bytes. */
enum net_arp_result net_tx_route(struct net_arp *a, const struct net_cfg *cfg, struct net_stats *st, uint32_t gateway,
				 uint32_t saddr, uint32_t dst, uint64_t now_ns, struct net_tx_l2 *l2, uint8_t *arp_out,
				 uint32_t arp_cap, uint32_t *arp_len);

#endif
