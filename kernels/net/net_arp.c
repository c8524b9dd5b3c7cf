/* net_arp.c - ARP responder and resolver table (synthesisable subset). */
#include "net_arp.h"
#include "net_rx.h"
#include "net_util.h"

void net_arp_init(struct net_arp *a)
{
	uint32_t i, j;
	for (i = 0; i < NET_ARP_ENTRIES; i++) {
		a->e[i].ip = 0;
		for (j = 0; j < 6; j++)
			a->e[i].mac[j] = 0;
		a->e[i].state = NET_ARP_FREE;
		a->e[i].pad = 0;
		a->e[i].ts_ns = 0;
		a->e[i].used_ns = 0;
	}
	a->pending_ns = NET_ARP_PENDING_NS;
}

int net_arp_find(const struct net_arp *a, uint32_t ip)
{
	uint32_t i;
	for (i = 0; i < NET_ARP_ENTRIES; i++)
		if (a->e[i].state != NET_ARP_FREE && a->e[i].ip == ip)
			return (int)i;
	return -1;
}

static int pending_expired(const struct net_arp *a, const struct net_arp_entry *e, uint64_t now)
{
	return e->state == NET_ARP_PENDING && now >= e->ts_ns && now - e->ts_ns >= a->pending_ns;
}

/* A slot for a new entry (see the replacement policy in net_arp.h), or -1. */
static int arp_slot(struct net_arp *a, struct net_stats *st, uint64_t now)
{
	uint32_t i;
	int free_i = -1, exp_i = -1, lru_i = -1;

	for (i = 0; i < NET_ARP_ENTRIES; i++) {
		const struct net_arp_entry *e = &a->e[i];
		if (e->state == NET_ARP_FREE) {
			if (free_i < 0)
				free_i = (int)i;
		} else if (e->state == NET_ARP_PENDING) {
			if (exp_i < 0 && pending_expired(a, e, now))
				exp_i = (int)i;
		} else if (lru_i < 0 || e->used_ns < a->e[lru_i].used_ns) {
			lru_i = (int)i;
		}
	}
	if (free_i >= 0)
		return free_i;
	if (exp_i >= 0) {
		st->arp.drop_pending_timeout++;
		a->e[exp_i].state = NET_ARP_FREE;
		return exp_i;
	}
	if (lru_i >= 0) {
		st->arp.evicted++;
		a->e[lru_i].state = NET_ARP_FREE;
		return lru_i;
	}
	st->arp.drop_table_full++;
	return -1;
}

static void set_entry(struct net_arp_entry *e, uint32_t ip, const uint8_t *mac, uint8_t state, uint64_t now)
{
	uint32_t j;
	e->ip = ip;
	for (j = 0; j < 6; j++)
		e->mac[j] = mac[j];
	e->state = state;
	e->ts_ns = now;
	e->used_ns = now;
}

/* The ARP packet proper at p (28 bytes). */
static void put_arp(uint8_t *p, uint16_t op, const uint8_t *sha, uint32_t spa, const uint8_t *tha, uint32_t tpa)
{
	uint32_t j;
	net_put16(p, 1);                   /* hardware: Ethernet */
	net_put16(p + 2, NET_ETHERTYPE_IPV4);
	p[4] = 6;
	p[5] = 4;
	net_put16(p + 6, op);
	net_copy_mac(p + 8, sha);
	net_put32(p + 14, spa);
	for (j = 0; j < 6; j++)
		p[18 + j] = tha[j];
	net_put32(p + 24, tpa);
}

static uint32_t frame_len(uint32_t l2)
{
	uint32_t n = l2 + NET_ARP_LEN;
	return n < NET_MIN_FRAME ? NET_MIN_FRAME : n;
}

uint32_t net_arp_input(struct net_arp *a, const struct net_cfg *cfg, struct net_stats *st, const struct net_pkt *pkt,
		       uint64_t now_ns, uint8_t *out, uint32_t cap)
{
	const uint8_t *p = pkt->payload;
	const uint8_t *sha;
	uint32_t spa, tpa, l2, n, i;
	uint16_t op;
	int idx, ours, merged = 0;

	st->arp.in_packets++;
	if (pkt->payload_len < NET_ARP_LEN) {
		st->arp.drop_arp_short++;
		return 0;
	}
	op = net_get16(p + 6);
	if (net_get16(p) != 1 || net_get16(p + 2) != NET_ETHERTYPE_IPV4 || p[4] != 6 || p[5] != 4 ||
	    (op != NET_ARP_OP_REQUEST && op != NET_ARP_OP_REPLY)) {
		st->arp.drop_arp_format++;
		return 0;
	}
	if (op == NET_ARP_OP_REQUEST)
		st->arp.in_requests++;
	else
		st->arp.in_replies++;
	sha = p + 8;
	spa = net_get32(p + 14);
	tpa = net_get32(p + 24);

	/* RFC 826 merge: refresh what we already know about the sender
	 * (0.0.0.0 is an RFC 5227 probe, nothing to learn) */
	if (spa != 0) {
		idx = net_arp_find(a, spa);
		if (idx >= 0) {
			if (a->e[idx].state == NET_ARP_PENDING)
				st->arp.resolved++;
			else
				st->arp.updated++;
			set_entry(&a->e[idx], spa, sha, NET_ARP_RESOLVED, now_ns);
			merged = 1;
		}
	}
	ours = net_cfg_find(cfg, tpa);
	if (ours < 0) {
		st->arp.in_not_ours++;
		return 0;
	}
	if (!merged && spa != 0 && net_cfg_find(cfg, spa) < 0) {
		idx = arp_slot(a, st, now_ns);
		if (idx >= 0) {
			set_entry(&a->e[idx], spa, sha, NET_ARP_RESOLVED, now_ns);
			st->arp.learned++;
		}
	}
	if (op != NET_ARP_OP_REQUEST)
		return 0;

	l2 = net_pkt_l3(pkt);
	n = frame_len(l2);
	if (cap < n) {
		st->arp.drop_tx_space++;
		return 0;
	}
	net_copy_mac(out, sha);
	net_copy_mac(out + 6, cfg->addr[ours].mac);
	for (i = 0; i < 4u * NET_MAX_VLAN; i++) {
		if (12 + i >= l2 - 2)
			break;
		out[12 + i] = pkt->frame[12 + i]; /* the request's tags, as they were */
	}
	net_put16(out + l2 - 2, NET_ETHERTYPE_ARP);
	put_arp(out + l2, NET_ARP_OP_REPLY, cfg->addr[ours].mac, tpa, sha, spa);
	net_zero_pad(out, l2 + NET_ARP_LEN, n);
	st->arp.out_replies++;
	return n;
}

enum net_arp_result net_arp_resolve(struct net_arp *a, const struct net_cfg *cfg, struct net_stats *st, uint32_t ip,
				    uint64_t now_ns, uint8_t mac[6], uint8_t *out, uint32_t cap, uint32_t *out_len)
{
	const uint8_t zero[6] = { 0, 0, 0, 0, 0, 0 };
	const struct net_if_addr *src;
	uint32_t i, l2, n;
	int idx;

	*out_len = 0;
	idx = net_arp_find(a, ip);
	if (idx >= 0) {
		struct net_arp_entry *e = &a->e[idx];
		if (e->state == NET_ARP_RESOLVED) {
			net_copy_mac(mac, e->mac);
			e->used_ns = now_ns;
			st->arp.hits++;
			return NET_ARP_OK;
		}
		if (!pending_expired(a, e, now_ns))
			return NET_ARP_WAIT;
		/* unanswered: drop it and ask again */
		e->state = NET_ARP_FREE;
		st->arp.drop_pending_timeout++;
	}
	if (cfg->naddr == 0) {
		st->arp.drop_no_addr++;
		return NET_ARP_FAIL;
	}
	src = &cfg->addr[0];
	for (i = 0; i < NET_MAX_ADDRS; i++) {
		if (i >= cfg->naddr)
			break;
		if (cfg->addr[i].mask != 0 && (ip & cfg->addr[i].mask) == (cfg->addr[i].ip & cfg->addr[i].mask)) {
			src = &cfg->addr[i];
			break;
		}
	}
	l2 = src->vlan ? NET_ETH_HLEN + 4 : NET_ETH_HLEN;
	n = frame_len(l2);
	if (cap < n) {
		st->arp.drop_tx_space++;
		return NET_ARP_FAIL;
	}
	idx = arp_slot(a, st, now_ns);
	if (idx < 0)
		return NET_ARP_FAIL;
	set_entry(&a->e[idx], ip, zero, NET_ARP_PENDING, now_ns);

	for (i = 0; i < 6; i++)
		out[i] = 0xff;
	net_copy_mac(out + 6, src->mac);
	if (src->vlan) {
		net_put16(out + 12, NET_ETHERTYPE_VLAN);
		net_put16(out + 14, (uint16_t)(src->vlan & 0x0fff));
	}
	net_put16(out + l2 - 2, NET_ETHERTYPE_ARP);
	put_arp(out + l2, NET_ARP_OP_REQUEST, src->mac, src->ip, zero, ip);
	net_zero_pad(out, l2 + NET_ARP_LEN, n);
	st->arp.out_requests++;
	*out_len = n;
	return NET_ARP_WAIT;
}

uint32_t net_arp_expire(struct net_arp *a, struct net_stats *st, uint64_t now_ns)
{
	uint32_t i, n = 0;
	for (i = 0; i < NET_ARP_ENTRIES; i++) {
		if (pending_expired(a, &a->e[i], now_ns)) {
			a->e[i].state = NET_ARP_FREE;
			st->arp.drop_pending_timeout++;
			n++;
		}
	}
	return n;
}
