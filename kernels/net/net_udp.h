/* net_udp.h - UDP listen-port table over all 65,536 ports (synthesisable subset).
 *
 * A bitmap of listened ports (8 KB) and a 16-bit stream id per port (128 KB,
 * host memory or URAM). net_udp_input() takes a datagram from net_rx
 * (verdict NET_RX_UDP): a listened destination port yields its stream id
 * with pkt->payload (one STEP message or raw FAST) for the decoder; any other
 * port is counted (udp.drop_udp_port) and dropped. Ports only: the
 * destination address was already filtered (or not) by net_rx.
 */
#ifndef NET_UDP_H
#define NET_UDP_H

#include <stdint.h>
#include "net_pkt.h"
#include "net_counters.h"

#define NET_UDP_PORTS 65536u

struct net_udp_table {
	uint32_t bits[NET_UDP_PORTS / 32];  /* bit (port & 31) of word (port >> 5) */
	uint16_t stream[NET_UDP_PORTS];     /* stream id of each listened port */
};

void net_udp_init(struct net_udp_table *t);
void net_udp_listen(struct net_udp_table *t, uint16_t port, uint16_t stream);
void net_udp_unlisten(struct net_udp_table *t, uint16_t port);

static inline int net_udp_listened(const struct net_udp_table *t, uint16_t port)
{
	return (int)((t->bits[port >> 5] >> (port & 31u)) & 1u);
}

/* 1 with *stream set when pkt->dport is listened, else 0 (counted). */
int net_udp_input(const struct net_udp_table *t, struct net_stats *st, const struct net_pkt *pkt, uint16_t *stream);

#endif
