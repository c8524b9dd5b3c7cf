/* pktbuild.c - packet builder and pcap files for tests (see pktbuild.h).
 *
 * Deliberately written apart from kernels/net (own checksum, own byte
 * writing) so that a test of the receive path compares two implementations.
 */
#include "pktbuild.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void w16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void w32(uint8_t *p, uint32_t v)
{
	w16(p, v >> 16);
	w16(p + 2, v & 0xffff);
}

void pb_init(struct pb_spec *s)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	memset(s, 0, sizeof *s);
	memcpy(s->dst_mac, dst, 6);
	memcpy(s->src_mac, src, 6);
	s->vlan_tpid[0] = s->vlan_tpid[1] = s->vlan_tpid[2] = 0x8100;
	s->saddr = 0x0a000001;
	s->daddr = 0x0a000002;
	s->ttl = 64;
	s->ip_version = 4;
	s->ip_proto = -1;
	s->sport = 12345;
	s->dport = 8080;
	s->tcp_flags = 0x10; /* ACK */
	s->win = 65535;
	s->icmp_type = 8;
	s->arp_op = 1;
	memcpy(s->arp_sha, src, 6);
	s->arp_spa = 0x0a000001;
	s->arp_tpa = 0x0a000002;
}

void pb_reverse(const struct pb_spec *s, struct pb_spec *r)
{
	*r = *s;
	memcpy(r->dst_mac, s->src_mac, 6);
	memcpy(r->src_mac, s->dst_mac, 6);
	r->saddr = s->daddr;
	r->daddr = s->saddr;
	r->sport = s->dport;
	r->dport = s->sport;
}

uint16_t pb_csum(const void *p, size_t n, uint32_t initial)
{
	const uint8_t *b = p;
	uint64_t sum = initial;
	size_t i;
	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t pseudo(const struct pb_spec *s, uint8_t proto, size_t len)
{
	return (s->saddr >> 16) + (s->saddr & 0xffff) + (s->daddr >> 16) + (s->daddr & 0xffff) + proto +
	       (uint32_t)len;
}

size_t pb_l3_off(const struct pb_spec *s)
{
	return 14 + 4 * (size_t)s->nvlan;
}

/* Ethernet header with tags; returns its length. */
static size_t eth_hdr(uint8_t *out, const struct pb_spec *s, uint16_t type)
{
	size_t off = 12;
	int i;
	memcpy(out, s->dst_mac, 6);
	memcpy(out + 6, s->src_mac, 6);
	for (i = 0; i < s->nvlan && i < 3; i++) {
		w16(out + off, s->vlan_tpid[i]);
		w16(out + off + 2, s->vlan_tci[i]);
		off += 4;
	}
	w16(out + off, type);
	return off + 2;
}

static size_t pad(uint8_t *out, size_t len, size_t cap, const struct pb_spec *s)
{
	if (s->no_pad || len >= 60)
		return len;
	if (cap < 60)
		return 0;
	memset(out + len, 0, 60 - len);
	return 60;
}

size_t pb_eth(uint8_t *out, size_t cap, const struct pb_spec *s, uint16_t type, const void *payload, size_t n)
{
	size_t l2 = pb_l3_off(s);
	if (l2 + n > cap)
		return 0;
	memmove(out + l2, payload, n);
	eth_hdr(out, s, type);
	return pad(out, l2 + n, cap, s);
}

size_t pb_ipv4(uint8_t *out, size_t cap, const struct pb_spec *s, uint8_t proto, const void *l4, size_t n)
{
	size_t l2 = pb_l3_off(s), hl = 20 + s->ip_optlen;
	uint8_t *ip = out + l2;
	int ihl = s->ip_ihl ? s->ip_ihl : (int)(hl / 4);
	uint16_t c;

	if (l2 + hl + n > cap || s->ip_optlen > 40)
		return 0;
	memmove(ip + hl, l4, n);
	ip[0] = (uint8_t)(s->ip_version << 4 | (ihl & 15));
	ip[1] = s->tos;
	w16(ip + 2, (unsigned)((int)(hl + n) + s->ip_len_delta));
	w16(ip + 4, s->ip_id);
	w16(ip + 6, s->ip_frag);
	ip[8] = s->ttl;
	ip[9] = (uint8_t)(s->ip_proto >= 0 ? s->ip_proto : proto);
	w16(ip + 10, 0);
	w32(ip + 12, s->saddr);
	w32(ip + 16, s->daddr);
	if (s->ip_optlen)
		memcpy(ip + 20, s->ip_opts, s->ip_optlen);
	c = pb_csum(ip, hl, 0);
	if (s->ip_csum == PB_CSUM_BAD)
		c ^= 0x5a5a;
	else if (s->ip_csum == PB_CSUM_ZERO)
		c = 0;
	w16(ip + 10, c);
	eth_hdr(out, s, 0x0800);
	return pad(out, l2 + hl + n, cap, s);
}

static uint16_t l4_csum(const struct pb_spec *s, uint16_t c, int udp, uint32_t ph)
{
	if (s->l4_csum == PB_CSUM_ZERO)
		return 0;
	if (s->l4_csum == PB_CSUM_PARTIAL) /* the folded pseudo-header sum, not complemented */
		return (uint16_t)~pb_csum(&c, 0, ph);
	if (udp && c == 0)
		c = 0xffff; /* RFC 768: a computed 0 is sent as all ones */
	if (s->l4_csum == PB_CSUM_BAD) {
		c ^= 0x5a5a;
		if (udp && c == 0)
			c = 0x5a5b;
	}
	return c;
}

size_t pb_tcp(uint8_t *out, size_t cap, const struct pb_spec *s, const void *payload, size_t n)
{
	size_t hl = 20 + s->tcp_optlen, r;
	uint8_t *seg;
	int doff = s->tcp_doff ? s->tcp_doff : (int)(hl / 4);

	if (s->tcp_optlen > 40)
		return 0;
	seg = malloc(hl + n + 1);
	if (!seg)
		return 0;
	w16(seg, s->sport);
	w16(seg + 2, s->dport);
	w32(seg + 4, s->seq);
	w32(seg + 8, s->ack);
	seg[12] = (uint8_t)((doff & 15) << 4);
	seg[13] = s->tcp_flags;
	w16(seg + 14, s->win);
	w16(seg + 16, 0);
	w16(seg + 18, s->urg);
	if (s->tcp_optlen)
		memcpy(seg + 20, s->tcp_opts, s->tcp_optlen);
	if (n)
		memcpy(seg + hl, payload, n);
	w16(seg + 16, l4_csum(s, pb_csum(seg, hl + n, pseudo(s, 6, hl + n)), 0, pseudo(s, 6, hl + n)));
	r = pb_ipv4(out, cap, s, 6, seg, hl + n);
	free(seg);
	return r;
}

size_t pb_udp(uint8_t *out, size_t cap, const struct pb_spec *s, const void *payload, size_t n)
{
	size_t r;
	uint8_t *d = malloc(8 + n);
	if (!d)
		return 0;
	w16(d, s->sport);
	w16(d + 2, s->dport);
	w16(d + 4, (unsigned)((int)(8 + n) + s->udp_len_delta));
	w16(d + 6, 0);
	if (n)
		memcpy(d + 8, payload, n);
	/* the checksum covers the real datagram whatever the length field says */
	w16(d + 4, (unsigned)(8 + n));
	{
		uint16_t c = l4_csum(s, pb_csum(d, 8 + n, pseudo(s, 17, 8 + n)), 1, pseudo(s, 17, 8 + n));
		w16(d + 6, c);
	}
	w16(d + 4, (unsigned)((int)(8 + n) + s->udp_len_delta));
	r = pb_ipv4(out, cap, s, 17, d, 8 + n);
	free(d);
	return r;
}

size_t pb_icmp(uint8_t *out, size_t cap, const struct pb_spec *s, const void *data, size_t n)
{
	size_t r;
	uint8_t *m = malloc(8 + n);
	if (!m)
		return 0;
	m[0] = s->icmp_type;
	m[1] = s->icmp_code;
	w16(m + 2, 0);
	w16(m + 4, s->icmp_id);
	w16(m + 6, s->icmp_seq);
	if (n)
		memcpy(m + 8, data, n);
	w16(m + 2, l4_csum(s, pb_csum(m, 8 + n, 0), 0, 0));
	r = pb_ipv4(out, cap, s, 1, m, 8 + n);
	free(m);
	return r;
}

size_t pb_arp(uint8_t *out, size_t cap, const struct pb_spec *s)
{
	uint8_t a[28];
	w16(a, 1);
	w16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	w16(a + 6, s->arp_op);
	memcpy(a + 8, s->arp_sha, 6);
	w32(a + 14, s->arp_spa);
	memcpy(a + 18, s->arp_tha, 6);
	w32(a + 24, s->arp_tpa);
	return pb_eth(out, cap, s, 0x0806, a, sizeof a);
}

size_t pb_ipv4_fragment(const uint8_t *frame, size_t len, size_t max_payload, size_t idx, uint8_t *out, size_t cap)
{
	size_t l2 = 12, hl, tot, plen, chunk, off, piece, n;
	unsigned type, frag, flags, base;
	uint8_t *ip;

	for (;;) {
		if (l2 + 2 > len)
			return 0;
		type = (unsigned)(frame[l2] << 8 | frame[l2 + 1]);
		if (type != 0x8100 && type != 0x88a8)
			break;
		l2 += 4;
	}
	l2 += 2;
	if (type != 0x0800 || l2 + 20 > len)
		return 0;
	hl = (size_t)(frame[l2] & 15) * 4;
	tot = (size_t)(frame[l2 + 2] << 8 | frame[l2 + 3]);
	if (hl < 20 || tot < hl || l2 + tot > len)
		return 0;
	plen = tot - hl;
	chunk = max_payload & ~(size_t)7;
	if (chunk == 0)
		return 0;
	off = idx * chunk;
	if (off >= plen)
		return 0;
	piece = plen - off < chunk ? plen - off : chunk;
	n = l2 + hl + piece;
	if (n > cap || (n < 60 && cap < 60))
		return 0;
	frag = (unsigned)(frame[l2 + 6] << 8 | frame[l2 + 7]);
	flags = frag & (PB_IP_DF | PB_IP_MF);
	base = frag & 0x1fff;
	if (off + piece < plen)
		flags |= PB_IP_MF;
	memcpy(out, frame, l2 + hl);
	memcpy(out + l2 + hl, frame + l2 + hl + off, piece);
	ip = out + l2;
	w16(ip + 2, (unsigned)(hl + piece));
	w16(ip + 6, flags | (unsigned)(base + off / 8));
	w16(ip + 10, 0);
	w16(ip + 10, pb_csum(ip, hl, 0));
	if (n < 60) {
		memset(out + n, 0, 60 - n);
		n = 60;
	}
	return n;
}

/* ---- pcap ---- */

struct pb_pcap {
	pcap_t *p;
	pcap_dumper_t *d;
	int nano;
	int dlt;
	uint8_t conv[262144 + 20]; /* a frame with its link header replaced */
};

struct pb_pcap *pb_pcap_create(const char *path, int nano)
{
	return pb_pcap_create_link(path, nano, DLT_EN10MB);
}

struct pb_pcap *pb_pcap_create_link(const char *path, int nano, int dlt)
{
	struct pb_pcap *w;
	if (dlt != DLT_EN10MB && dlt != DLT_LINUX_SLL && dlt != DLT_LINUX_SLL2 && dlt != DLT_RAW) {
		fprintf(stderr, "pb_pcap_create: link type %d not written\n", dlt);
		return NULL;
	}
	w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->nano = nano;
	w->dlt = dlt;
	w->p = pcap_open_dead_with_tstamp_precision(dlt, 262144,
						    nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
	if (!w->p) {
		fprintf(stderr, "pb_pcap_create: pcap_open_dead failed\n");
		free(w);
		return NULL;
	}
	w->d = pcap_dump_open(w->p, path);
	if (!w->d) {
		fprintf(stderr, "pb_pcap_create: %s: %s\n", path, pcap_geterr(w->p));
		pcap_close(w->p);
		free(w);
		return NULL;
	}
	return w;
}

int pb_pcap_write(struct pb_pcap *w, const uint8_t *frame, size_t len, uint64_t ts_ns)
{
	struct pcap_pkthdr h;
	memset(&h, 0, sizeof h);
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(w->nano ? ts_ns % 1000000000u : ts_ns % 1000000000u / 1000u);
	if (w->dlt != DLT_EN10MB) {
		/* the Ethernet header replaced: the source MAC and EtherType kept in a cooked
		 * header (SLL: pkttype hatype halen addr[8] protocol; SLL2: protocol reserved
		 * ifindex hatype pkttype halen addr[8]), or dropped (raw IP) */
		uint8_t *c = w->conv;
		size_t hl = w->dlt == DLT_LINUX_SLL ? 16 : w->dlt == DLT_LINUX_SLL2 ? 20 : 0;
		if (len < 14 || len - 14 + hl > sizeof w->conv)
			return -1;
		memset(c, 0, hl);
		if (w->dlt == DLT_LINUX_SLL) {
			c[3] = 1;	       /* ARPHRD_ETHER */
			c[5] = 6;
			memcpy(c + 6, frame + 6, 6);
			memcpy(c + 14, frame + 12, 2);
		} else if (w->dlt == DLT_LINUX_SLL2) {
			memcpy(c, frame + 12, 2);
			c[7] = 1;	       /* ifindex */
			c[9] = 1;	       /* ARPHRD_ETHER */
			c[11] = 6;
			memcpy(c + 12, frame + 6, 6);
		}
		memcpy(c + hl, frame + 14, len - 14);
		frame = c;
		len = len - 14 + hl;
	}
	h.caplen = (bpf_u_int32)len;
	h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)w->d, &h, frame);
	return 0;
}

struct pb_pcap *pb_pcap_open(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pb_pcap *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->nano = 1;
	r->p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!r->p) {
		fprintf(stderr, "pb_pcap_open: %s: %s\n", path, err);
		free(r);
		return NULL;
	}
	return r;
}

int pb_pcap_next(struct pb_pcap *r, const uint8_t **frame, uint32_t *len, uint64_t *ts_ns)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(r->p, &h, &data);
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1)
		return -1;
	*frame = data;
	*len = h->caplen;
	*ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
	return 1;
}

void pb_pcap_close(struct pb_pcap *p)
{
	if (!p)
		return;
	if (p->d)
		pcap_dump_close(p->d);
	if (p->p)
		pcap_close(p->p);
	free(p);
}
