/* net_icmp.h - ICMP echo responder (synthesisable subset).
 *
 * net_icmp_input() takes an ICMP packet from net_rx (verdict NET_RX_ICMP),
 * verifies the ICMP checksum and answers an echo request (type 8, code 0)
 * addressed to one of our IPv4 addresses with an echo reply frame: Ethernet
 * addresses swapped (source = our MAC for that address) with the request's
 * VLAN tags, IPv4 header without options (TOS and identification copied,
 * TTL 64, addresses swapped, new checksum), ICMP type 0 with the request's
 * identifier, sequence number and data and a new checksum. Frames are
 * zero-padded to 60 bytes. Other types and echo requests for other hosts
 * (a mirror port sees them) are counted and ignored.
 */
#ifndef NET_ICMP_H
#define NET_ICMP_H

#include <stdint.h>
#include "net_pkt.h"
#include "net_cfg.h"
#include "net_counters.h"

#define NET_ICMP_ECHO_REPLY 0
#define NET_ICMP_ECHO_REQUEST 8
#define NET_ICMP_REPLY_TTL 64

/* Returns the length of the reply frame written to out[0..cap), or 0. */
uint32_t net_icmp_input(const struct net_cfg *cfg, struct net_stats *st, const struct net_pkt *pkt, uint8_t *out,
			uint32_t cap);

#endif
