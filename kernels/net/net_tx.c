/* net_tx.c - TCP/IPv4/Ethernet frame builder and next-hop resolution (synthesisable subset; see net_tx.h). */
#include "net_tx.h"
#include "net_csum.h"
#include "net_pkt.h"
#include "net_util.h"

#define IP_DF 0x4000u

uint32_t net_tx_tcp(const struct net_tx_l2 *l2, const struct net_tcp_tx *t, uint8_t *out, uint32_t cap)
{
	uint32_t eth = l2->vlan ? NET_ETH_HLEN + 4 : NET_ETH_HLEN, thl, plen, tot, n, k, i, off;
	uint8_t *ip, *tcp;
	struct net_csum c;

	if (t->optlen > 40 || (t->optlen & 3))
		return 0;
	thl = 20 + t->optlen;
	plen = t->len[0] + t->len[1];
	if (plen > 65535u - 20u - thl)
		return 0;
	tot = 20 + thl + plen;
	n = eth + tot;
	if (n < NET_MIN_FRAME)
		n = NET_MIN_FRAME;
	if (cap < n)
		return 0;
	net_copy_mac(out, l2->dst);
	net_copy_mac(out + 6, l2->src);
	if (l2->vlan) {
		net_put16(out + 12, NET_ETHERTYPE_VLAN);
		net_put16(out + 14, (uint16_t)((uint16_t)(l2->pcp & 7) << 13 | (l2->vlan & 0x0fff)));
	}
	net_put16(out + eth - 2, NET_ETHERTYPE_IPV4);
	ip = out + eth;
	ip[0] = 0x45;
	ip[1] = t->tos;
	net_put16(ip + 2, (uint16_t)tot);
	net_put16(ip + 4, t->ip_id);
	net_put16(ip + 6, IP_DF);
	ip[8] = t->ttl ? t->ttl : NET_TX_TTL;
	ip[9] = NET_PROTO_TCP;
	net_put16(ip + 10, 0);
	net_put32(ip + 12, t->saddr);
	net_put32(ip + 16, t->daddr);
	net_put16(ip + 10, net_csum_buf(ip, 20));
	tcp = ip + 20;
	net_put16(tcp, t->sport);
	net_put16(tcp + 2, t->dport);
	net_put32(tcp + 4, t->seq);
	net_put32(tcp + 8, t->ack);
	tcp[12] = (uint8_t)((thl / 4) << 4);
	tcp[13] = t->flags;
	net_put16(tcp + 14, t->win);
	net_put16(tcp + 16, 0);
	net_put16(tcp + 18, 0);
	for (i = 0; i < 40; i++) {
		if (i >= t->optlen)
			break;
		tcp[20 + i] = t->opt[i];
	}
	off = thl;
	for (k = 0; k < 2; k++) {
		if (t->len[k] == 0)
			continue;
		net_copy(tcp + off, t->data[k], t->len[k]);
		off += t->len[k];
	}
	net_csum_init(&c);
	net_csum_add32(&c, t->saddr);
	net_csum_add32(&c, t->daddr);
	net_csum_add32(&c, (uint32_t)NET_PROTO_TCP << 16 | (thl + plen));
	net_csum_add(&c, tcp, thl + plen);
	net_put16(tcp + 16, net_csum_final(&c));
	net_zero_pad(out, eth + tot, n);
	return n;
}

uint32_t net_next_hop(const struct net_cfg *cfg, uint32_t gateway, uint32_t dst)
{
	uint32_t i;
	if (gateway == 0)
		return dst;
	for (i = 0; i < NET_MAX_ADDRS; i++) {
		if (i >= cfg->naddr)
			break;
		if ((dst & cfg->addr[i].mask) == (cfg->addr[i].ip & cfg->addr[i].mask))
			return dst;
	}
	return gateway;
}

enum net_arp_result net_tx_route(struct net_arp *a, const struct net_cfg *cfg, struct net_stats *st, uint32_t gateway,
				 uint32_t saddr, uint32_t dst, uint64_t now_ns, struct net_tx_l2 *l2, uint8_t *arp_out,
				 uint32_t arp_cap, uint32_t *arp_len)
{
	enum net_arp_result r;
	int ours = net_cfg_find(cfg, saddr);
	*arp_len = 0;
	if (ours < 0) {
		st->arp.drop_no_addr++;
		return NET_ARP_FAIL;
	}
	r = net_arp_resolve(a, cfg, st, net_next_hop(cfg, gateway, dst), now_ns, l2->dst, arp_out, arp_cap, arp_len);
	if (r == NET_ARP_OK) {
		net_copy_mac(l2->src, cfg->addr[ours].mac);
		l2->vlan = cfg->addr[ours].vlan;
		l2->pcp = 0;
		l2->pad = 0;
	}
	return r;
}
