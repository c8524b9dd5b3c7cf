/* net_rx.h - the receive path: Ethernet/VLAN, IPv4, TCP/UDP headers to struct net_pkt (synthesisable subset).
 *
 * net_rx() takes one Ethernet II frame (no FCS) and either classifies it
 * (TCP, UDP, ARP, ICMP) with struct net_pkt filled, or drops it, counting the
 * reason in struct net_stats and leaving it in st->last_drop.
 *
 *  - Ethernet: 0, 1 or 2 tags (TPID 0x8100 or 0x88a8, any order); the VLAN
 *    ids go to pkt->vlan[] outer first. EtherType IPv4 or ARP, all else dropped.
 *  - IPv4: version 4, IHL >= 5 (options skipped), header checksum always
 *    verified, total length within the frame (trailing Ethernet padding is
 *    ignored; frames above the MTU, e.g. GRO/TSO super-frames, are accepted),
 *    fragments dropped, destination filtered only with NET_CFG_FILTER_DST.
 *  - TCP: data offset >= 5 (options skipped), checksum over the pseudo-header
 *    with NET_CFG_TCP_CSUM; payload = the bytes after the header up to the IP
 *    total length. tcp_flags keeps the six classic bits (TCP_FIN..TCP_URG).
 *  - UDP: length field within the IP payload, checksum 0 = none, otherwise
 *    verified with NET_CFG_UDP_CSUM; payload = length field - 8 bytes.
 *  - The source's word on the TCP/UDP checksum (net_rx_csum): a capture
 *    socket knows when the checksum was left to transmit offload (Linux
 *    TP_STATUS_CSUMNOTREADY: a copy of an outgoing or tc-mirrored frame whose
 *    checksum field holds only the pseudo-header sum) or was already
 *    verified by the NIC or kernel (TP_STATUS_CSUM_VALID). With
 *    NET_CFG_CSUM_HINTS such a frame is delivered without a check and
 *    counted (tcp/udp csum_not_ready, csum_source_ok); the IPv4 header
 *    checksum is always verified (offload never leaves it empty).
 *  - ICMP: pkt->payload/payload_len are the whole ICMP message (checked by
 *    net_icmp_input()).
 *  - ARP: pkt->payload is the ARP packet, payload_len the rest of the frame
 *    (checked by net_arp_input()).
 *
 * The IPv4 header of a TCP/UDP/ICMP packet starts at frame + net_pkt_l3(pkt).
 */
#ifndef NET_RX_H
#define NET_RX_H

#include <stdint.h>
#include "net_pkt.h"
#include "net_cfg.h"
#include "net_counters.h"

enum net_rx_verdict {
	NET_RX_DROP = 0,
	NET_RX_TCP = 1,
	NET_RX_UDP = 2,
	NET_RX_ARP = 3,
	NET_RX_ICMP = 4,
};

/* Why net_rx dropped a frame (st->last_drop); each maps to one counter. */
enum net_drop {
	NET_DROP_NONE = 0,
	NET_DROP_RUNT,        /* eth.drop_runt */
	NET_DROP_VLAN_DEPTH,  /* eth.drop_vlan_depth */
	NET_DROP_ETHERTYPE,   /* eth.drop_ethertype */
	NET_DROP_IP_TRUNC,    /* ip.drop_ip_trunc */
	NET_DROP_IP_VERSION,  /* ip.drop_ip_version */
	NET_DROP_IP_HDR,      /* ip.drop_ip_hdr */
	NET_DROP_IP_CSUM,     /* ip.drop_ip_csum */
	NET_DROP_IP_LEN,      /* ip.drop_ip_len */
	NET_DROP_IP_FRAG,     /* ip.drop_ip_frag */
	NET_DROP_IP_DST,      /* ip.drop_ip_dst */
	NET_DROP_IP_PROTO,    /* ip.drop_ip_proto */
	NET_DROP_TCP_HDR,     /* tcp.drop_tcp_hdr */
	NET_DROP_TCP_CSUM,    /* tcp.drop_tcp_csum */
	NET_DROP_UDP_HDR,     /* udp.drop_udp_hdr */
	NET_DROP_UDP_LEN,     /* udp.drop_udp_len */
	NET_DROP_UDP_CSUM,    /* udp.drop_udp_csum */
	NET_DROP_COUNT
};

/* net_rx_csum's csum: what the source says of the frame's TCP/UDP checksum. */
#define NET_CSUM_UNKNOWN 0u   /* nothing: verify as cfg->flags say */
#define NET_CSUM_VALID 1u     /* verified by the NIC or kernel */
#define NET_CSUM_NOT_READY 2u /* left to transmit offload: the field is not the checksum */

enum net_rx_verdict net_rx(const struct net_cfg *cfg, struct net_stats *st, const uint8_t *frame, uint32_t len,
			   uint64_t ts_ns, struct net_pkt *pkt);

/* net_rx with the source's word on the checksum (NET_CSUM_*), used only with NET_CFG_CSUM_HINTS. */
enum net_rx_verdict net_rx_csum(const struct net_cfg *cfg, struct net_stats *st, const uint8_t *frame, uint32_t len,
				uint64_t ts_ns, uint32_t csum, struct net_pkt *pkt);

/* Offset of the IPv4 header (or ARP packet) in pkt->frame. */
static inline uint32_t net_pkt_l3(const struct net_pkt *pkt)
{
	return 14u + 4u * pkt->nvlan;
}

/* "runt", "ip_csum", ... (static strings; for tools). */
const char *net_drop_name(uint32_t reason);

#endif
