/* test_mtoe_common.h - helpers shared by the test_mtoe_*.c programs.
 *
 * A harness around one struct mtoe: build net_pkt structs by hand, feed them,
 * and rebuild each connection's stream from the events while checking the
 * event contract (DATA/GAP/CLOSE offsets tile the stream, at most cap events,
 * DATA never empty). Expected values in the tests come from the stream the
 * test generated, never from the code under test.
 */
#ifndef TEST_MTOE_COMMON_H
#define TEST_MTOE_COMMON_H

#include <stdlib.h>
#include "test.h"
#include "toe/mtoe.h"

#define TM_MAX_GAPS 64
#define TM_NS 1000000ull /* 1 ms */

struct tm_gap {
	uint64_t off, len;
	int reason;
};

struct tm_out {
	uint8_t *bytes;        /* rebuilt stream, byte o at bytes[o] (when o < cap) */
	uint64_t cap;
	uint64_t next;         /* offset the next DATA/GAP/CLOSE must have */
	uint64_t data_events;
	int opens, closes, open_reason, close_reason;
	uint64_t close_off;
	int ngaps;
	struct tm_gap gaps[TM_MAX_GAPS];
	int order_errors;      /* events at an unexpected offset, empty DATA, ... */
};

struct tm {
	struct mtoe *m;
	uint8_t *buf;
	struct mtoe_cfg cfg;
	struct mtoe_event ev[MTOE_SEG_EVENTS];
	uint32_t n;            /* events of the last call */
	uint64_t out_cap;
	struct tm_out out[MTOE_MAX_CONNS];
};

/* A flow as the test sends it: exchange (a:ap) -> vendor (b:bp). */
struct tm_flow {
	uint32_t a, b;
	uint16_t ap, bp;
};

static inline struct tm_flow tm_flow(uint32_t a, uint16_t ap, uint32_t b, uint16_t bp)
{
	struct tm_flow f = { a, b, ap, bp };
	return f;
}

/* Exchange 10.0.0.1:9000, vendor 10.0.0.2:40000 + i. */
static inline struct tm_flow tm_flow_n(int i)
{
	return tm_flow(0x0a000001u, 9000, 0x0a000002u, (uint16_t)(40000 + i));
}

static inline void tm_cfg(struct mtoe_cfg *cfg)
{
	mtoe_cfg_default(cfg);
	cfg->flows[0].ex_addr = 0x0a000001u;
	cfg->flows[0].ex_port = 9000;
	cfg->nflows = 1;
}

static inline void tm_init(struct tm *t, const struct mtoe_cfg *cfg, uint64_t out_cap)
{
	int rc;
	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	t->m = calloc(1, sizeof(*t->m));
	t->buf = malloc(MTOE_BUF_BYTES(cfg->max_conns, cfg->window));
	memset(t->buf, 0xEE, MTOE_BUF_BYTES(cfg->max_conns, cfg->window));
	t->out_cap = out_cap;
	rc = mtoe_init(t->m, cfg, t->buf, MTOE_BUF_BYTES(cfg->max_conns, cfg->window));
	CHECK_EQ(rc, MTOE_OK);
}

static inline void tm_free(struct tm *t)
{
	int i;
	for (i = 0; i < MTOE_MAX_CONNS; i++)
		free(t->out[i].bytes);
	free(t->m);
	free(t->buf);
}

static inline struct tm_out *tm_out(struct tm *t, int conn)
{
	struct tm_out *o = &t->out[conn];
	if (!o->bytes && t->out_cap) {
		o->bytes = calloc(1, t->out_cap);
		o->cap = t->out_cap;
	}
	return o;
}

/* Check and apply events to the rebuilt streams. */
static inline void tm_apply(struct tm *t, const struct mtoe_event *ev, uint32_t n, uint32_t cap)
{
	uint32_t i;
	CHECK(n <= cap);
	for (i = 0; i < n; i++) {
		const struct mtoe_event *e = &ev[i];
		struct tm_out *o = tm_out(t, e->conn);
		CHECK(e->conn < t->cfg.max_conns);
		switch (e->type) {
		case MTOE_EV_OPEN:
			CHECK_EQ(e->offset, 0);
			o->next = 0;
			o->ngaps = 0;
			o->closes = 0; /* per stream; opens counts the slot's streams */
			o->opens++;
			o->open_reason = e->reason;
			if (o->bytes)
				memset(o->bytes, 0, o->cap);
			break;
		case MTOE_EV_DATA:
			if (e->offset != o->next || e->len == 0 || e->data == NULL) {
				o->order_errors++;
				fprintf(stderr, "conn %u: DATA at %llu len %llu, expected offset %llu\n", e->conn,
					(unsigned long long)e->offset, (unsigned long long)e->len,
					(unsigned long long)o->next);
			}
			if (o->bytes && e->offset + e->len <= o->cap)
				memcpy(o->bytes + e->offset, e->data, e->len);
			o->next = e->offset + e->len;
			o->data_events++;
			break;
		case MTOE_EV_GAP:
			if (e->offset != o->next || e->len == 0) {
				o->order_errors++;
				fprintf(stderr, "conn %u: GAP at %llu, expected %llu\n", e->conn,
					(unsigned long long)e->offset, (unsigned long long)o->next);
			}
			if (o->ngaps < TM_MAX_GAPS) {
				o->gaps[o->ngaps].off = e->offset;
				o->gaps[o->ngaps].len = e->len;
				o->gaps[o->ngaps].reason = e->reason;
			}
			o->ngaps++;
			o->next = e->offset + e->len;
			break;
		case MTOE_EV_CLOSE:
			if (e->offset != o->next)
				o->order_errors++;
			o->closes++;
			o->close_reason = e->reason;
			o->close_off = e->offset;
			break;
		default:
			CHECK(0);
		}
	}
}

static inline uint32_t tm_pkt(struct tm *t, struct tm_flow f, int reverse, uint32_t seq, uint8_t flags,
			      const uint8_t *p, uint32_t len, uint64_t ts)
{
	struct net_pkt k;
	memset(&k, 0, sizeof(k));
	k.l4proto = NET_PROTO_TCP;
	k.tcp_flags = flags;
	k.saddr = reverse ? f.b : f.a;
	k.daddr = reverse ? f.a : f.b;
	k.sport = reverse ? f.bp : f.ap;
	k.dport = reverse ? f.ap : f.bp;
	k.seq = seq;
	k.win = 65535;
	k.payload = p;
	k.payload_len = len;
	k.ts_ns = ts;
	t->n = mtoe_segment(t->m, &k, t->ev, MTOE_SEG_EVENTS);
	tm_apply(t, t->ev, t->n, MTOE_SEG_EVENTS);
	return t->n;
}

/* exchange -> vendor segment, ACK set */
static inline uint32_t tm_fwd(struct tm *t, struct tm_flow f, uint32_t seq, const uint8_t *p, uint32_t len,
			      uint64_t ts)
{
	return tm_pkt(t, f, 0, seq, TCP_ACK | (len ? TCP_PSH : 0), p, len, ts);
}

/* vendor -> exchange ACK of `ack` (the exchange's next sequence number) with a window */
static inline uint32_t tm_ack(struct tm *t, struct tm_flow f, uint32_t seq, uint32_t ack, uint16_t win, uint64_t ts)
{
	struct net_pkt k;
	memset(&k, 0, sizeof(k));
	k.l4proto = NET_PROTO_TCP;
	k.tcp_flags = TCP_ACK;
	k.saddr = f.b;
	k.daddr = f.a;
	k.sport = f.bp;
	k.dport = f.ap;
	k.seq = seq;
	k.ack = ack;
	k.win = win;
	k.ts_ns = ts;
	t->n = mtoe_segment(t->m, &k, t->ev, MTOE_SEG_EVENTS);
	tm_apply(t, t->ev, t->n, MTOE_SEG_EVENTS);
	return t->n;
}

/* vendor -> exchange segment with flags (TCP_ACK, TCP_FIN, TCP_RST) acknowledging `ack` */
static inline uint32_t tm_ack_flags(struct tm *t, struct tm_flow f, uint8_t flags, uint32_t ack, uint64_t ts)
{
	struct net_pkt k;
	memset(&k, 0, sizeof(k));
	k.l4proto = NET_PROTO_TCP;
	k.tcp_flags = flags;
	k.saddr = f.b;
	k.daddr = f.a;
	k.sport = f.bp;
	k.dport = f.ap;
	k.seq = 1;
	k.ack = ack;
	k.win = 65535;
	k.ts_ns = ts;
	t->n = mtoe_segment(t->m, &k, t->ev, MTOE_SEG_EVENTS);
	tm_apply(t, t->ev, t->n, MTOE_SEG_EVENTS);
	return t->n;
}

/* Poll with a given capacity until it returns 0; returns all events seen. */
static inline uint32_t tm_poll_cap(struct tm *t, uint64_t now, uint32_t cap)
{
	uint32_t total = 0, n;
	int rounds = 0;
	while ((n = mtoe_poll(t->m, now, t->ev, cap)) > 0 && rounds++ < 100000) {
		tm_apply(t, t->ev, n, cap);
		total += n;
	}
	t->n = total;
	return total;
}

static inline uint32_t tm_poll(struct tm *t, uint64_t now)
{
	return tm_poll_cap(t, now, MTOE_SEG_EVENTS);
}

/* Pseudo-random bytes (xorshift32) from a seed. */
static inline void tm_fill(uint8_t *p, uint64_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	uint64_t i;
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)(x >> 11);
	}
}

static uint32_t tm_rng_state = 12345;
static inline uint32_t tm_rand(void)
{
	uint32_t x = tm_rng_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	tm_rng_state = x;
	return x;
}

/* rand in [lo, hi] */
static inline uint32_t tm_range(uint32_t lo, uint32_t hi)
{
	return lo + tm_rand() % (hi - lo + 1);
}

/* A segment of a random test feed: bytes [off, off + len), sent in the order of key. */
struct rseg {
	uint32_t off, len, key;
};

static inline int tm_cmp_key(const void *a, const void *b)
{
	const struct rseg *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Cut len bytes into random segments of 2..maxseg bytes (a 1-byte copy at rcv_nxt-1 would be a keep-alive),
 * keyed for a bounded displacement: segment k arrives at most d positions late, the first in place (no
 * SYN-less join needed). Returns the segments. */
static inline uint32_t tm_cut(struct rseg *seg, uint32_t len, uint32_t maxseg, uint32_t d)
{
	uint32_t off = 0, nseg = 0;
	while (off < len) {
		uint32_t n = tm_range(2, maxseg);
		if (n > len - off)
			n = len - off;
		if (len - off - n == 1)
			n++;
		seg[nseg].off = off;
		seg[nseg].len = n;
		seg[nseg].key = nseg * 2 + 2 * tm_range(0, d);
		nseg++;
		off += n;
	}
	seg[0].key = 0;
	return nseg;
}

/* The rebuilt stream of conn equals ref[0..len) outside the expected gaps,
 * and the gaps are exactly exp[0..nexp). */
static inline int tm_check_stream(struct tm *t, int conn, const uint8_t *ref, uint64_t len,
				  const struct tm_gap *exp, int nexp)
{
	struct tm_out *o = tm_out(t, conn);
	int fails = test_failures, i;
	uint64_t pos = 0;
	CHECK_EQ(o->order_errors, 0);
	CHECK_EQ(o->next, len);
	CHECK_EQ(o->ngaps, nexp);
	for (i = 0; i < nexp && i < o->ngaps && i < TM_MAX_GAPS; i++) {
		CHECK_EQ(o->gaps[i].off, exp[i].off);
		CHECK_EQ(o->gaps[i].len, exp[i].len);
		if (exp[i].reason)
			CHECK_EQ(o->gaps[i].reason, exp[i].reason);
	}
	for (i = 0; i <= nexp; i++) {
		uint64_t end = i < nexp ? exp[i].off : len;
		if (end > pos && end <= o->cap && o->next >= end)
			CHECK_MEM(o->bytes + pos, ref + pos, end - pos);
		if (i < nexp)
			pos = exp[i].off + exp[i].len;
	}
	return test_failures == fails;
}

#endif
