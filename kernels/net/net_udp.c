/* net_udp.c - UDP listen-port table (synthesisable subset). */
#include "net_udp.h"

void net_udp_init(struct net_udp_table *t)
{
	uint32_t i;
	for (i = 0; i < NET_UDP_PORTS / 32; i++)
		t->bits[i] = 0;
	for (i = 0; i < NET_UDP_PORTS; i++)
		t->stream[i] = 0;
}

void net_udp_listen(struct net_udp_table *t, uint16_t port, uint16_t stream)
{
	t->bits[port >> 5] |= 1u << (port & 31u);
	t->stream[port] = stream;
}

void net_udp_unlisten(struct net_udp_table *t, uint16_t port)
{
	t->bits[port >> 5] &= ~(1u << (port & 31u));
	t->stream[port] = 0;
}

int net_udp_input(const struct net_udp_table *t, struct net_stats *st, const struct net_pkt *pkt, uint16_t *stream)
{
	if (!net_udp_listened(t, pkt->dport)) {
		st->udp.drop_udp_port++;
		return 0;
	}
	*stream = t->stream[pkt->dport];
	st->udp.delivered++;
	return 1;
}
