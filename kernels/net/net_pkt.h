/* net_pkt.h - a received frame after the network layers, as handed to the TOE and UDP.
 *
 * The receive path (eth/VLAN -> IPv4 -> TCP/UDP) fills this from one frame;
 * the mirror TOE and the UDP listener consume it. Pointers point into the
 * frame; addresses and ports are in host byte order. Synthesisable subset.
 */
#ifndef NET_PKT_H
#define NET_PKT_H

#include <stdint.h>

#define NET_PROTO_ICMP 1
#define NET_PROTO_TCP 6
#define NET_PROTO_UDP 17

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20

struct net_pkt {
	const uint8_t *frame;   /* whole Ethernet frame */
	uint32_t frame_len;
	uint16_t vlan[2];       /* VLAN ids, outer first */
	uint8_t nvlan;
	uint8_t l4proto;        /* NET_PROTO_* */
	uint8_t tcp_flags;      /* TCP_* */
	uint8_t pad;
	uint32_t saddr, daddr;  /* IPv4 */
	uint16_t sport, dport;
	uint32_t seq, ack;      /* TCP */
	uint16_t win;           /* TCP window (unscaled) */
	uint16_t pad2;
	const uint8_t *payload; /* TCP/UDP payload */
	uint32_t payload_len;
	uint64_t ts_ns;         /* receive time */
	uint32_t in_port;       /* the port (0..3) the frame arrived on: net_rx sets 0, rx_frame_port the caller's */
	uint32_t pad3;
};

#endif
