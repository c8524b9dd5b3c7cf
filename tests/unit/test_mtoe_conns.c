/* test_mtoe_conns.c - mirror TOE: 64 concurrent connections (the default table) interleaved
 * packet by packet, each with its own stream, ISN (some near 2^32), reordering, duplicates,
 * reverse ACKs and keep-alives; some joined mid-stream, one losing a segment. Every stream must
 * come out exactly; a 65th connection finds the table full. */
#include "test_mtoe_common.h"

enum { NC = 64, LEN = 30000, MAXPK = 600, D = 5 };

struct pk {
	uint32_t off, len, key;
	uint8_t kind; /* 0 data, 1 reverse ACK, 2 keep-alive */
};

struct cstate {
	uint8_t s[LEN];
	struct pk p[MAXPK];
	uint32_t np, next;
	uint32_t isn;
	int join;    /* no SYN: the first packet is data at offset `base` */
	uint32_t base;
	int lossy;   /* segment `lost` is never sent */
	uint32_t lost_off, lost_len;
	int ci;
	uint64_t dups, sent_bytes;
};

static int cmp_key(const void *a, const void *b)
{
	const struct pk *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static struct cstate cs[NC];

static void build(int i)
{
	struct cstate *c = &cs[i];
	uint32_t off = 0, nseg = 0, k;
	static struct pk seg[MAXPK];
	tm_fill(c->s, LEN, 500 + (uint32_t)i);
	c->isn = i % 4 == 0 ? 0xffffffffu - (uint32_t)i * 3000u : tm_rand();
	c->join = i % 8 == 3;
	c->lossy = i == 10;
	c->np = 0;
	c->next = 0;
	while (off < LEN) {
		uint32_t n = tm_range(200, 1460);
		if (n > LEN - off)
			n = LEN - off;
		if (LEN - off - n < 2 && off + n < LEN)
			n = LEN - off;
		seg[nseg].off = off;
		seg[nseg].len = n;
		seg[nseg].key = nseg * 4 + 4 * tm_range(0, D);
		seg[nseg].kind = 0;
		nseg++;
		off += n;
	}
	seg[0].key = 0; /* the first segment first (the join point) */
	c->base = 0;
	for (k = 0; k < nseg; k++) {
		if (c->lossy && k == nseg / 2) {
			c->lost_off = seg[k].off;
			c->lost_len = seg[k].len;
			continue;
		}
		c->p[c->np++] = seg[k];
		c->sent_bytes += seg[k].len;
		if (k > 0 && tm_range(0, 99) < 10) {
			struct pk r = seg[k];
			r.key += 1 + 4 * tm_range(0, D);
			c->p[c->np++] = r;
			c->dups++;
			c->sent_bytes += r.len;
		}
		if (k % 3 == 0) {
			struct pk a = { seg[k].off, 0, seg[k].key + 2, 1 };
			c->p[c->np++] = a;
		}
	}
	/* a keep-alive at the very end, when everything is in order */
	{
		struct pk ka = { LEN, 0, 0xffffffffu, 2 };
		c->p[c->np++] = ka;
	}
	qsort(c->p, c->np, sizeof(c->p[0]), cmp_key);
}

int main(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	uint64_t ts = 1;
	uint32_t remaining = 0;
	int i, seen_slots[NC];
	tm_cfg(&cfg);
	CHECK_EQ(cfg.max_conns, NC);
	tm_init(&t, &cfg, LEN);
	for (i = 0; i < NC; i++) {
		build(i);
		remaining += cs[i].np + (cs[i].join ? 0 : 1);
		cs[i].ci = -1;
		seen_slots[i] = 0;
	}
	/* all SYNs first (those not joining), so that the 64 slots fill */
	for (i = 0; i < NC; i++) {
		struct tm_flow f = tm_flow_n(i);
		if (cs[i].join)
			continue;
		CHECK_EQ(tm_pkt(&t, f, 0, cs[i].isn, TCP_SYN | TCP_ACK, NULL, 0, ts++), 1);
		cs[i].ci = t.ev[0].conn;
		remaining--;
	}
	/* interleave the connections packet by packet, in random order */
	while (remaining > 0) {
		int j = (int)tm_range(0, NC - 1), k;
		struct cstate *c;
		const struct pk *p;
		struct tm_flow f;
		for (k = 0; k < NC && cs[j].next >= cs[j].np; k++)
			j = (j + 1) % NC;
		c = &cs[j];
		p = &c->p[c->next++];
		remaining--;
		f = tm_flow_n(j);
		if (p->kind == 1) {
			/* acknowledges nothing: this test is about the forward direction */
			tm_ack(&t, f, 77, c->isn + (c->join ? 0 : 1), 65535, ts++);
		} else if (p->kind == 2) {
			tm_fwd(&t, f, c->isn + (c->join ? 0 : 1) + LEN - 1, NULL, 0, ts++);
		} else {
			uint32_t seq = c->isn + (c->join ? 0 : 1) + p->off;
			tm_fwd(&t, f, seq, c->s + p->off, p->len, ts);
			ts += 1000;
			if (c->ci < 0 && t.n > 0 && t.ev[0].type == MTOE_EV_OPEN) {
				CHECK(c->join);
				CHECK_EQ(t.ev[0].reason, MTOE_OPEN_JOIN);
				c->ci = t.ev[0].conn;
			}
		}
	}
	/* the lossy connection's hole times out */
	tm_poll(&t, ts + 100 * TM_NS);
	for (i = 0; i < NC; i++) {
		struct cstate *c = &cs[i];
		const struct mtoe_conn *k;
		CHECK(c->ci >= 0 && c->ci < NC);
		if (c->ci < 0 || c->ci >= NC)
			continue;
		k = &t.m->conn[c->ci];
		seen_slots[c->ci]++;
		if (c->lossy) {
			struct tm_gap g = { c->lost_off, c->lost_len, TOE_GAP_TIMEOUT };
			tm_check_stream(&t, c->ci, c->s, LEN, &g, 1);
			CHECK_EQ(k->st.gap_bytes, c->lost_len);
			CHECK_EQ(k->st.bytes, LEN - c->lost_len);
		} else {
			tm_check_stream(&t, c->ci, c->s, LEN, NULL, 0);
			CHECK_EQ(k->st.gaps, 0);
			CHECK_EQ(k->st.bytes, LEN);
		}
		/* the keep-alive at the end is at rcv_nxt - 1 unless the hole is still open */
		CHECK_EQ(k->st.keepalives, c->lossy ? 0 : 1);
		CHECK_EQ(k->st.dup_bytes + k->st.bytes, c->sent_bytes);
		CHECK_EQ(k->st.range_full, 0);
		CHECK_EQ(k->st.conflict_bytes, 0);
		CHECK_EQ(k->st.beyond_window, 0);
		CHECK_EQ(k->syn_seen, !c->join);
		CHECK_EQ(t.out[c->ci].opens, 1);
	}
	for (i = 0; i < NC; i++)
		CHECK_EQ(seen_slots[i], 1); /* 64 distinct slots */
	CHECK_EQ(t.m->st.opens, NC - NC / 8);
	CHECK_EQ(t.m->st.joins, NC / 8);
	CHECK_EQ(t.m->st.no_slot, 0);
	CHECK_EQ(t.m->st.ev_overflow, 0);
	/* a 65th connection: table full */
	CHECK_EQ(tm_pkt(&t, tm_flow_n(NC), 0, 1, TCP_SYN | TCP_ACK, NULL, 0, ts++), 0);
	CHECK_EQ(t.m->st.no_slot, 1);
	/* close them all */
	for (i = 0; i < NC; i++) {
		uint32_t seq = cs[i].isn + (cs[i].join ? 0 : 1) + LEN;
		CHECK_EQ(tm_pkt(&t, tm_flow_n(i), 0, seq, TCP_FIN | TCP_ACK, NULL, 0, ts++), 1);
		CHECK_EQ(t.ev[0].type, MTOE_EV_CLOSE);
		CHECK_EQ(t.ev[0].offset, LEN);
	}
	CHECK_EQ(t.m->st.closes, NC);
	/* now the 65th gets a (closed) slot */
	CHECK_EQ(tm_pkt(&t, tm_flow_n(NC), 0, 1, TCP_SYN | TCP_ACK, NULL, 0, ts++), 1);
	tm_free(&t);
	return test_done("mtoe_conns");
}
