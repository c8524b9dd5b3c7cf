/* gtoe_frame.c - a general-TOE segment descriptor into an Ethernet frame (synthesisable subset).
 *
 * The glue between kernels/toe and kernels/net: options into wire bytes
 * (gtoe_opt_build), then net_tx_tcp() for the headers and checksums.
 */
#include "gtoe_frame.h"

uint32_t gtoe_frame(const struct gtoe_seg *s, const struct net_tx_l2 *l2, uint16_t ip_id, uint8_t *out, uint32_t cap)
{
	uint8_t opt[GTOE_OPT_MAX];
	struct net_tcp_tx t;
	t.saddr = s->saddr;
	t.daddr = s->daddr;
	t.sport = s->sport;
	t.dport = s->dport;
	t.seq = s->seq;
	t.ack = s->ack;
	t.win = s->win;
	t.flags = s->flags;
	t.tos = 0;
	t.ip_id = ip_id;
	t.ttl = 0;
	t.pad = 0;
	t.optlen = gtoe_opt_build(s, opt);
	t.opt = opt;
	t.data[0] = s->data[0];
	t.data[1] = s->data[1];
	t.len[0] = s->len[0];
	t.len[1] = s->len[1];
	return net_tx_tcp(l2, &t, out, cap);
}
