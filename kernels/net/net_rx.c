/* net_rx.c - Ethernet/VLAN, IPv4, TCP and UDP header parsing (synthesisable subset).
 *
 * One pass over the headers; the only loops over data are the checksums.
 * Every return of NET_RX_DROP goes through drop(), which counts the reason.
 */
#include "net_rx.h"
#include "net_csum.h"
#include "net_util.h"

#define IP_MF 0x2000u
#define IP_OFFSET 0x1fffu

static enum net_rx_verdict drop(struct net_stats *st, uint64_t *counter, enum net_drop reason)
{
	(*counter)++;
	st->last_drop = (uint32_t)reason;
	return NET_RX_DROP;
}

static void pkt_clear(struct net_pkt *pkt, const uint8_t *frame, uint32_t len, uint64_t ts_ns)
{
	pkt->frame = frame;
	pkt->frame_len = len;
	pkt->vlan[0] = 0;
	pkt->vlan[1] = 0;
	pkt->nvlan = 0;
	pkt->l4proto = 0;
	pkt->tcp_flags = 0;
	pkt->pad = 0;
	pkt->saddr = 0;
	pkt->daddr = 0;
	pkt->sport = 0;
	pkt->dport = 0;
	pkt->seq = 0;
	pkt->ack = 0;
	pkt->win = 0;
	pkt->pad2 = 0;
	pkt->payload = 0;
	pkt->payload_len = 0;
	pkt->ts_ns = ts_ns;
	pkt->in_port = 0;
	pkt->pad3 = 0;
}

/* Broadcast, multicast or one of ours: what NET_CFG_FILTER_DST keeps. */
static int dst_accepted(const struct net_cfg *cfg, uint32_t daddr)
{
	uint32_t i;
	if (daddr == 0xffffffffu || (daddr & 0xf0000000u) == 0xe0000000u)
		return 1;
	for (i = 0; i < NET_MAX_ADDRS; i++) {
		if (i >= cfg->naddr)
			break;
		if (daddr == cfg->addr[i].ip)
			return 1;
		/* subnet-directed broadcast */
		if (cfg->addr[i].mask != 0 && cfg->addr[i].mask != 0xffffffffu &&
		    (daddr & cfg->addr[i].mask) == (cfg->addr[i].ip & cfg->addr[i].mask) &&
		    (daddr | cfg->addr[i].mask) == 0xffffffffu)
			return 1;
	}
	return 0;
}

static void pseudo_header(struct net_csum *c, uint32_t saddr, uint32_t daddr, uint8_t proto, uint32_t len)
{
	net_csum_add32(c, saddr);
	net_csum_add32(c, daddr);
	net_csum_add32(c, (uint32_t)proto << 16 | len);
}

/* 1: verify the TCP/UDP checksum of this frame (flag on and the source had no word on it). */
static int csum_check(const struct net_cfg *cfg, uint32_t flag, uint32_t csum, uint64_t *not_ready, uint64_t *source_ok,
		      uint64_t *unchecked)
{
	if (!(cfg->flags & flag)) {
		(*unchecked)++;
		return 0;
	}
	if (cfg->flags & NET_CFG_CSUM_HINTS) {
		if (csum == NET_CSUM_NOT_READY) {
			(*not_ready)++;
			return 0;
		}
		if (csum == NET_CSUM_VALID) {
			(*source_ok)++;
			return 0;
		}
	}
	return 1;
}

static enum net_rx_verdict rx_tcp(const struct net_cfg *cfg, struct net_stats *st, const uint8_t *l4, uint32_t l4len,
				  uint32_t csum, struct net_pkt *pkt)
{
	uint32_t doff;
	struct net_csum c;

	st->tcp.in_segments++;
	if (l4len < 20)
		return drop(st, &st->tcp.drop_tcp_hdr, NET_DROP_TCP_HDR);
	doff = (uint32_t)(l4[12] >> 4) * 4u;
	if (doff < 20 || doff > l4len)
		return drop(st, &st->tcp.drop_tcp_hdr, NET_DROP_TCP_HDR);
	if (csum_check(cfg, NET_CFG_TCP_CSUM, csum, &st->tcp.csum_not_ready, &st->tcp.csum_source_ok,
		       &st->tcp.csum_unchecked)) {
		net_csum_init(&c);
		pseudo_header(&c, pkt->saddr, pkt->daddr, NET_PROTO_TCP, l4len);
		net_csum_add(&c, l4, l4len);
		if (net_csum_fold(&c) != 0xffff)
			return drop(st, &st->tcp.drop_tcp_csum, NET_DROP_TCP_CSUM);
	}
	pkt->sport = net_get16(l4);
	pkt->dport = net_get16(l4 + 2);
	pkt->seq = net_get32(l4 + 4);
	pkt->ack = net_get32(l4 + 8);
	pkt->tcp_flags = (uint8_t)(l4[13] & 0x3f);
	pkt->win = net_get16(l4 + 14);
	pkt->payload = l4 + doff;
	pkt->payload_len = l4len - doff;
	if (doff > 20)
		st->tcp.in_options++;
	st->tcp.in_octets += pkt->payload_len;
	st->tcp.delivered++;
	return NET_RX_TCP;
}

static enum net_rx_verdict rx_udp(const struct net_cfg *cfg, struct net_stats *st, const uint8_t *l4, uint32_t l4len,
				  uint32_t csum, struct net_pkt *pkt)
{
	uint32_t ulen;
	struct net_csum c;

	st->udp.in_datagrams++;
	if (l4len < 8)
		return drop(st, &st->udp.drop_udp_hdr, NET_DROP_UDP_HDR);
	ulen = net_get16(l4 + 4);
	if (ulen < 8 || ulen > l4len)
		return drop(st, &st->udp.drop_udp_len, NET_DROP_UDP_LEN);
	if (net_get16(l4 + 6) == 0) {
		st->udp.no_csum++;
	} else if (csum_check(cfg, NET_CFG_UDP_CSUM, csum, &st->udp.csum_not_ready, &st->udp.csum_source_ok,
			      &st->udp.csum_unchecked)) {
		net_csum_init(&c);
		pseudo_header(&c, pkt->saddr, pkt->daddr, NET_PROTO_UDP, ulen);
		net_csum_add(&c, l4, ulen);
		if (net_csum_fold(&c) != 0xffff)
			return drop(st, &st->udp.drop_udp_csum, NET_DROP_UDP_CSUM);
	}
	pkt->sport = net_get16(l4);
	pkt->dport = net_get16(l4 + 2);
	pkt->payload = l4 + 8;
	pkt->payload_len = ulen - 8;
	st->udp.in_octets += pkt->payload_len;
	return NET_RX_UDP;
}

static enum net_rx_verdict rx_ipv4(const struct net_cfg *cfg, struct net_stats *st, const uint8_t *ip, uint32_t avail,
				   uint32_t csum, struct net_pkt *pkt)
{
	uint32_t ihl, tot;
	uint16_t frag;
	uint8_t proto;

	st->ip.in_receives++;
	if (avail < 20)
		return drop(st, &st->ip.drop_ip_trunc, NET_DROP_IP_TRUNC);
	if ((ip[0] >> 4) != 4)
		return drop(st, &st->ip.drop_ip_version, NET_DROP_IP_VERSION);
	ihl = (uint32_t)(ip[0] & 0x0f) * 4u;
	if (ihl < 20)
		return drop(st, &st->ip.drop_ip_hdr, NET_DROP_IP_HDR);
	if (ihl > avail)
		return drop(st, &st->ip.drop_ip_trunc, NET_DROP_IP_TRUNC);
	if (net_csum_buf(ip, ihl) != 0)
		return drop(st, &st->ip.drop_ip_csum, NET_DROP_IP_CSUM);
	tot = net_get16(ip + 2);
	if (tot < ihl || tot > avail)
		return drop(st, &st->ip.drop_ip_len, NET_DROP_IP_LEN);
	frag = net_get16(ip + 6);
	if (frag & (IP_MF | IP_OFFSET))
		return drop(st, &st->ip.drop_ip_frag, NET_DROP_IP_FRAG);
	pkt->saddr = net_get32(ip + 12);
	pkt->daddr = net_get32(ip + 16);
	if ((cfg->flags & NET_CFG_FILTER_DST) && !dst_accepted(cfg, pkt->daddr))
		return drop(st, &st->ip.drop_ip_dst, NET_DROP_IP_DST);
	proto = ip[9];
	if (proto != NET_PROTO_TCP && proto != NET_PROTO_UDP && proto != NET_PROTO_ICMP)
		return drop(st, &st->ip.drop_ip_proto, NET_DROP_IP_PROTO);
	pkt->l4proto = proto;
	st->ip.in_delivers++;
	st->ip.in_octets += tot;
	if (ihl > 20)
		st->ip.in_options++;
	if (tot > cfg->mtu)
		st->ip.in_oversize++;
	if (proto == NET_PROTO_TCP)
		return rx_tcp(cfg, st, ip + ihl, tot - ihl, csum, pkt);
	if (proto == NET_PROTO_UDP)
		return rx_udp(cfg, st, ip + ihl, tot - ihl, csum, pkt);
	pkt->payload = ip + ihl;
	pkt->payload_len = tot - ihl;
	return NET_RX_ICMP;
}

enum net_rx_verdict net_rx(const struct net_cfg *cfg, struct net_stats *st, const uint8_t *frame, uint32_t len,
			   uint64_t ts_ns, struct net_pkt *pkt)
{
	return net_rx_csum(cfg, st, frame, len, ts_ns, NET_CSUM_UNKNOWN, pkt);
}

enum net_rx_verdict net_rx_csum(const struct net_cfg *cfg, struct net_stats *st, const uint8_t *frame, uint32_t len,
				uint64_t ts_ns, uint32_t csum, struct net_pkt *pkt)
{
	uint32_t off = 12, i;
	uint16_t type;

	pkt_clear(pkt, frame, len, ts_ns);
	st->eth.in_frames++;
	st->eth.in_octets += len;
	if (len < NET_ETH_HLEN)
		return drop(st, &st->eth.drop_runt, NET_DROP_RUNT);
	type = net_get16(frame + off);
	for (i = 0; i < NET_MAX_VLAN; i++) {
		if (type != NET_ETHERTYPE_VLAN && type != NET_ETHERTYPE_QINQ)
			break;
		if (off + 6 > len)
			return drop(st, &st->eth.drop_runt, NET_DROP_RUNT);
		pkt->vlan[i] = (uint16_t)(net_get16(frame + off + 2) & 0x0fff);
		pkt->nvlan = (uint8_t)(i + 1);
		off += 4;
		type = net_get16(frame + off);
	}
	if (type == NET_ETHERTYPE_VLAN || type == NET_ETHERTYPE_QINQ)
		return drop(st, &st->eth.drop_vlan_depth, NET_DROP_VLAN_DEPTH);
	if (pkt->nvlan)
		st->eth.in_vlan++;
	if (pkt->nvlan == 2)
		st->eth.in_qinq++;
	off += 2;
	if (type == NET_ETHERTYPE_ARP) {
		st->eth.in_arp++;
		pkt->payload = frame + off;
		pkt->payload_len = len - off;
		return NET_RX_ARP;
	}
	if (type != NET_ETHERTYPE_IPV4)
		return drop(st, &st->eth.drop_ethertype, NET_DROP_ETHERTYPE);
	st->eth.in_ipv4++;
	return rx_ipv4(cfg, st, frame + off, len - off, csum, pkt);
}
