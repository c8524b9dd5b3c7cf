/* test_mtoe_gap.c - mirror TOE: loss on the mirror. Holes older than the gap timeout (by poll and
 * by a later segment), holes blocking a full window, jumps, bytes dropped for want of buffer
 * space, FIN after a hole, idle flush, poll with a short event array, and a randomized loss test
 * whose declared gaps must be exactly the bytes the mirror never delivered. */
#include "test_mtoe_common.h"

static const uint32_t ISN = 0x7ffff000u;
#define SEQ(off) (ISN + 1 + (uint32_t)(off))

static int open_conn(struct tm *t, struct tm_flow f)
{
	CHECK_EQ(tm_pkt(t, f, 0, ISN, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	return t->ev[0].conn;
}

static void test_timeout_poll(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(0);
	uint8_t s[6000];
	struct tm_gap exp[2] = { { 1000, 500, TOE_GAP_TIMEOUT }, { 3500, 500, TOE_GAP_TIMEOUT } };
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 30);
	ci = open_conn(&t, f);
	c = &t.m->conn[ci];
	CHECK_EQ(tm_fwd(&t, f, SEQ(0), s, 1000, 5 * TM_NS), 1);
	/* [1000,1500) lost; [1500,3500) at 10 ms; [3500,4000) lost; [4000,6000) at 40 ms */
	CHECK_EQ(tm_fwd(&t, f, SEQ(1500), s + 1500, 1000, 10 * TM_NS), 0);
	CHECK_EQ(tm_fwd(&t, f, SEQ(2500), s + 2500, 1000, 20 * TM_NS), 0);
	CHECK_EQ(tm_fwd(&t, f, SEQ(4000), s + 4000, 2000, 40 * TM_NS), 0);
	CHECK_EQ(tm_poll(&t, 59 * TM_NS), 0);
	/* 50 ms after the first byte beyond the first hole */
	CHECK_EQ(tm_poll(&t, 60 * TM_NS), 2);
	CHECK_EQ(t.ev[0].type, MTOE_EV_GAP);
	CHECK_EQ(t.ev[0].reason, TOE_GAP_TIMEOUT);
	CHECK_EQ(t.ev[0].offset, 1000);
	CHECK_EQ(t.ev[0].len, 500);
	CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[1].offset, 1500);
	CHECK_EQ(t.ev[1].len, 2000);
	CHECK_EQ(c->st.gaps, 1);
	/* the second hole only has data from 40 ms beyond it */
	CHECK_EQ(tm_poll(&t, 89 * TM_NS), 0);
	/* the lost segment shows up after all: late for its gap, dropped and counted */
	CHECK_EQ(tm_fwd(&t, f, SEQ(1000), s + 1000, 500, 85 * TM_NS), 0);
	CHECK_EQ(c->st.duplicates, 0);
	CHECK_EQ(c->st.late_segs, 1);
	CHECK_EQ(c->st.late_bytes, 500);
	CHECK_EQ(c->st.dup_bytes, 0);
	CHECK_EQ(t.m->st.late_bytes, 500);
	CHECK_EQ(tm_poll(&t, 90 * TM_NS), 2);
	tm_check_stream(&t, ci, s, sizeof(s), exp, 2);
	CHECK_EQ(c->st.gaps, 2);
	CHECK_EQ(c->st.gap_bytes, 1000);
	CHECK_EQ(c->st.bytes, 5000);
	CHECK_EQ(t.m->st.gaps, 2);
	CHECK_EQ(t.m->st.gap_bytes, 1000);
	tm_free(&t);
}

/* Without poll: the timestamp of a later segment declares the gap. */
static void test_timeout_segment(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(1);
	uint8_t s[3000];
	struct tm_gap exp[1] = { { 1000, 500, TOE_GAP_TIMEOUT } };
	int ci;
	tm_cfg(&cfg);
	cfg.gap_timeout_ns = 20 * TM_NS;
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 31);
	ci = open_conn(&t, f);
	CHECK_EQ(tm_fwd(&t, f, SEQ(0), s, 1000, 1 * TM_NS), 1);
	CHECK_EQ(tm_fwd(&t, f, SEQ(1500), s + 1500, 500, 10 * TM_NS), 0);
	CHECK_EQ(tm_fwd(&t, f, SEQ(2000), s + 2000, 500, 29 * TM_NS), 0);
	/* 30 ms: the range [1500,2500) has waited 20 ms: gap, then the whole held range and this segment */
	CHECK_EQ(tm_fwd(&t, f, SEQ(2500), s + 2500, 500, 30 * TM_NS), 2);
	CHECK_EQ(t.ev[0].type, MTOE_EV_GAP);
	CHECK_EQ(t.ev[0].offset, 1000);
	CHECK_EQ(t.ev[1].offset, 1500);
	CHECK_EQ(t.ev[1].len, 1500);
	tm_check_stream(&t, ci, s, sizeof(s), exp, 1);
	/* a keep-alive also carries the time */
	CHECK_EQ(tm_fwd(&t, f, SEQ(3500), s, 100, 31 * TM_NS), 0);
	CHECK_EQ(tm_fwd(&t, f, SEQ(2999), NULL, 0, 60 * TM_NS), 2);
	CHECK_EQ(t.m->conn[ci].st.keepalives, 1);
	CHECK_EQ(t.ev[0].offset, 3000);
	CHECK_EQ(t.ev[0].len, 500);
	tm_free(&t);
}

/* Window 4096: holes are lost once held data reaches 3/4 window (3072)
 * beyond the delivery point, whatever the time. */
static void test_window_gap(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(2);
	enum { LEN = 16000 };
	static uint8_t s[LEN];
	struct tm_gap exp[4] = { { 3000, 100, TOE_GAP_WINDOW },
				 { 6200, 800, TOE_GAP_WINDOW },
				 { 9272, 228, TOE_GAP_WINDOW },
				 { 10000, 4500, TOE_GAP_WINDOW } };
	uint32_t off;
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	cfg.window = 4096;
	tm_init(&t, &cfg, LEN);
	tm_fill(s, LEN, 32);
	ci = open_conn(&t, f);
	c = &t.m->conn[ci];
	CHECK_EQ(tm_fwd(&t, f, SEQ(0), s, 3000, 1), 1);
	/* hole [3000,3100); held [3100,6072): exactly 3/4 window beyond 3000 */
	for (off = 3100; off < 6072; off += 1000) {
		uint32_t n = 6072 - off < 1000 ? 6072 - off : 1000;
		CHECK_EQ(tm_fwd(&t, f, SEQ(off), s + off, n, 2), 0);
	}
	CHECK_EQ(c->nranges, 1);
	CHECK_EQ(c->range[0].end, 6072);
	CHECK_EQ(c->st.gaps, 0);
	/* one byte more: the hole is lost; the held range (now with this
	 * segment) wraps the circular buffer at 4096: two DATA events */
	CHECK_EQ(tm_fwd(&t, f, SEQ(6072), s + 6072, 128, 3), 3);
	CHECK_EQ(t.ev[0].type, MTOE_EV_GAP);
	CHECK_EQ(t.ev[0].reason, TOE_GAP_WINDOW);
	CHECK_EQ(t.ev[0].offset, 3000);
	CHECK_EQ(t.ev[0].len, 100);
	CHECK_EQ(t.ev[1].offset, 3100);
	CHECK_EQ(t.ev[1].len, 4096 - 3100);
	CHECK_EQ(t.ev[2].offset, 4096);
	CHECK_EQ(t.ev[2].len, 6200 - 4096);
	CHECK_EQ(c->st.beyond_window, 0);
	CHECK_EQ(c->nxt_off, 6200);
	/* [7000,9272) held: exactly 3/4 window beyond 6200 */
	CHECK_EQ(tm_fwd(&t, f, SEQ(7000), s + 7000, 2272, 4), 0);
	/* [9500,10000) reaches beyond: the hole [6200,7000) is lost and [7000,9272)
	 * handed out (wrapping at 8192); then the rest fits, [9500,10000) stays held */
	CHECK_EQ(tm_fwd(&t, f, SEQ(9500), s + 9500, 500, 4), 3);
	CHECK_EQ(t.ev[0].type, MTOE_EV_GAP);
	CHECK_EQ(t.ev[0].offset, 6200);
	CHECK_EQ(t.ev[0].len, 800);
	CHECK_EQ(t.ev[1].offset, 7000);
	CHECK_EQ(t.ev[1].len, 8192 - 7000);
	CHECK_EQ(t.ev[2].offset, 8192);
	CHECK_EQ(t.ev[2].len, 9272 - 8192);
	CHECK_EQ(c->nranges, 1);
	CHECK_EQ(c->st.beyond_window, 0);
	/* a segment ending beyond the whole window: the hole [9272,9500) is lost,
	 * [9500,10000) handed out, then nothing is held: one gap up to the
	 * segment (jump), which is delivered from its payload */
	CHECK_EQ(tm_fwd(&t, f, SEQ(14500), s + 14500, 1500, 5), 4);
	CHECK_EQ(t.ev[0].offset, 9272);
	CHECK_EQ(t.ev[0].len, 228);
	CHECK_EQ(t.ev[1].offset, 9500);
	CHECK_EQ(t.ev[1].len, 500);
	CHECK_EQ(t.ev[2].type, MTOE_EV_GAP);
	CHECK_EQ(t.ev[2].offset, 10000);
	CHECK_EQ(t.ev[2].len, 4500);
	CHECK(t.ev[3].data == s + 14500);
	CHECK_EQ(c->st.beyond_window, 1);
	tm_check_stream(&t, ci, s, LEN, exp, 4);
	CHECK_EQ(c->st.gaps, 4);
	CHECK_EQ(c->st.gap_bytes, 100 + 800 + 228 + 4500);
	CHECK_EQ(c->st.window_drops, 0);
	tm_free(&t);
}

/* Space freed in a call is not reused in that call: bytes of a segment that
 * would overwrite data just handed out are dropped, and later declared. */
static void test_window_drop(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(3);
	enum { LEN = 5000 };
	static uint8_t s[LEN];
	struct tm_gap exp[3] = {
		{ 0, 100, TOE_GAP_WINDOW }, { 2000, 100, TOE_GAP_TIMEOUT }, { 4196, 400, TOE_GAP_TIMEOUT } };
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	cfg.window = 4096;
	tm_init(&t, &cfg, LEN);
	tm_fill(s, LEN, 33);
	ci = open_conn(&t, f);
	c = &t.m->conn[ci];
	/* holes [0,100) and [2000,2100), held up to 3072 (3/4 window) */
	CHECK_EQ(tm_fwd(&t, f, SEQ(100), s + 100, 1900, 1 * TM_NS), 0);
	CHECK_EQ(tm_fwd(&t, f, SEQ(2100), s + 2100, 972, 2 * TM_NS), 0);
	CHECK_EQ(c->nranges, 2);
	CHECK_EQ(c->st.gaps, 0);
	/* [4000,4596) ends beyond the window: the hole [0,100) is lost and
	 * [100,2000) handed out; the segment is still out of order and only
	 * [4000,4196) may be stored now (it lands where the hole was);
	 * [4196,4596) would overwrite [100,500) before the caller read it */
	CHECK_EQ(tm_fwd(&t, f, SEQ(4000), s + 4000, 596, 3 * TM_NS), 2);
	CHECK_EQ(t.ev[0].type, MTOE_EV_GAP);
	CHECK_EQ(t.ev[0].len, 100);
	CHECK_EQ(t.ev[1].offset, 100);
	CHECK_EQ(t.ev[1].len, 1900);
	CHECK_EQ(c->st.beyond_window, 1);
	CHECK_EQ(c->st.window_drops, 1);
	CHECK_EQ(c->st.window_drop_bytes, 400);
	CHECK_EQ(c->nranges, 2);
	CHECK_EQ(c->range[1].start, 4000);
	CHECK_EQ(c->range[1].end, 4196);
	CHECK_EQ(tm_fwd(&t, f, SEQ(3072), s + 3072, 928, 10 * TM_NS), 0);
	CHECK_EQ(tm_fwd(&t, f, SEQ(4596), s + 4596, 404, 10 * TM_NS), 0);
	CHECK_EQ(c->nranges, 2);
	/* gap, [2100,4196) wrapping the buffer (two DATA), gap, [4596,5000) */
	CHECK_EQ(tm_poll(&t, 60 * TM_NS), 5);
	tm_check_stream(&t, ci, s, LEN, exp, 3);
	CHECK_EQ(c->st.gap_bytes, 600);
	tm_free(&t);
}

/* A FIN after a hole: the hole times out, then the connection closes. */
static void test_fin_after_hole(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(4), g = tm_flow_n(5);
	uint8_t s[2000];
	struct tm_gap exp[1] = { { 1000, 500, TOE_GAP_TIMEOUT } };
	int ci, gi;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 34);
	ci = open_conn(&t, f);
	gi = open_conn(&t, g);
	CHECK_EQ(tm_fwd(&t, f, SEQ(0), s, 1000, 1 * TM_NS), 1);
	CHECK_EQ(tm_pkt(&t, f, 0, SEQ(1500), TCP_FIN | TCP_ACK, s + 1500, 500, 10 * TM_NS), 0);
	CHECK_EQ(tm_fwd(&t, g, SEQ(0), s, 1000, 1 * TM_NS), 1);
	CHECK_EQ(tm_pkt(&t, g, 0, SEQ(1500), TCP_FIN | TCP_ACK, NULL, 0, 10 * TM_NS), 0); /* bare FIN */
	CHECK_EQ(tm_poll(&t, 60 * TM_NS), 5);
	tm_check_stream(&t, ci, s, 2000, exp, 1);
	tm_check_stream(&t, gi, s, 1500, exp, 1);
	CHECK_EQ(t.out[ci].closes, 1);
	CHECK_EQ(t.out[ci].close_reason, MTOE_CLOSE_FIN);
	CHECK_EQ(t.out[ci].close_off, 2000);
	CHECK_EQ(t.out[gi].closes, 1);
	CHECK_EQ(t.out[gi].close_off, 1500);
	tm_free(&t);
}

/* gap_timeout 0: holes never time out; an idle close flushes them. */
static void test_no_timeout_idle_flush(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(6);
	uint8_t s[3000];
	struct tm_gap exp[2] = { { 0, 500, TOE_GAP_TIMEOUT }, { 1000, 1000, TOE_GAP_TIMEOUT } };
	int ci;
	tm_cfg(&cfg);
	cfg.gap_timeout_ns = 0;
	cfg.idle_timeout_ns = 5000 * TM_NS;
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 35);
	ci = open_conn(&t, f);
	CHECK_EQ(tm_fwd(&t, f, SEQ(500), s + 500, 500, 1 * TM_NS), 0);
	CHECK_EQ(tm_fwd(&t, f, SEQ(2000), s + 2000, 1000, 2 * TM_NS), 0);
	CHECK_EQ(tm_poll(&t, 4000 * TM_NS), 0);
	CHECK_EQ(tm_poll(&t, 5002 * TM_NS), 5);
	tm_check_stream(&t, ci, s, sizeof(s), exp, 2);
	CHECK_EQ(t.out[ci].close_reason, MTOE_CLOSE_IDLE);
	CHECK_EQ(t.out[ci].close_off, 3000);
	tm_free(&t);
}

/* Ten connections with two expired holes each, polled with the smallest
 * array: every event still comes out, in order, over several calls. */
static void test_poll_short_array(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	uint8_t s[3000];
	struct tm_gap exp[2] = { { 0, 500, TOE_GAP_TIMEOUT }, { 1000, 500, TOE_GAP_TIMEOUT } };
	int i, ci[10], calls = 0;
	uint32_t n, total = 0;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 36);
	for (i = 0; i < 10; i++) {
		struct tm_flow f = tm_flow_n(20 + i);
		ci[i] = open_conn(&t, f);
		CHECK_EQ(tm_fwd(&t, f, SEQ(500), s + 500, 500, 1 * TM_NS), 0);
		CHECK_EQ(tm_fwd(&t, f, SEQ(1500), s + 1500, 1500, 1 * TM_NS), 0);
	}
	while ((n = mtoe_poll(t.m, 100 * TM_NS, t.ev, MTOE_POLL_EVENTS)) > 0 && calls < 1000) {
		CHECK(n <= MTOE_POLL_EVENTS);
		tm_apply(&t, t.ev, n, MTOE_POLL_EVENTS);
		total += n;
		calls++;
	}
	CHECK_EQ(total, 10 * 4);
	CHECK(calls >= 10);
	for (i = 0; i < 10; i++)
		tm_check_stream(&t, ci[i], s, sizeof(s), exp, 2);
	CHECK_EQ(t.m->st.ev_overflow, 0);
	tm_free(&t);
}

/* Random loss: segments dropped (never sent), the rest reordered within a
 * bound and sometimes duplicated, time advancing 20 us per segment. The
 * declared gaps must be exactly the runs of bytes never sent (computed from
 * what was sent) when no bytes had to be dropped for buffer space; in any
 * case every delivered byte is right and every byte never sent is in a gap. */
static void test_random_loss(void)
{
	enum { LEN = 60000, D = 4, TRIALS = 200 };
	static uint8_t s[LEN], sent[LEN];
	static struct rseg seg[LEN], order[2 * LEN];
	static struct tm_gap exp[TM_MAX_GAPS * 4];
	struct mtoe_cfg cfg;
	struct tm t;
	int trial, exact = 0, lossy = 0;
	tm_cfg(&cfg);
	cfg.window = 16384;
	cfg.max_ranges = 16;
	tm_init(&t, &cfg, LEN);
	for (trial = 0; trial < TRIALS; trial++) {
		struct tm_flow f = tm_flow_n(100 + trial);
		uint32_t nseg, nord = 0, i, nexp = 0;
		uint32_t drop_pct = 1 + (uint32_t)trial % 5;
		uint64_t ts = 0;
		int ci, k;
		const struct mtoe_conn *c;
		struct tm_out *o;
		tm_fill(s, LEN, 1000 + (uint32_t)trial);
		memset(sent, 0, LEN);
		nseg = tm_cut(seg, LEN, 1460, D);
		for (i = 0; i < nseg; i++) {
			if (i > 0 && tm_range(0, 99) < drop_pct)
				continue;
			order[nord++] = seg[i];
			if (tm_range(0, 99) < 5) {
				struct rseg r = seg[i];
				r.key += 1 + 2 * tm_range(0, D);
				order[nord++] = r;
			}
		}
		for (i = 0; i < nord; i++)
			memset(sent + order[i].off, 1, order[i].len);
		/* expected gaps: maximal runs of bytes never sent */
		for (i = 0; i < LEN;) {
			uint32_t j = i;
			if (sent[i]) {
				i++;
				continue;
			}
			while (j < LEN && !sent[j])
				j++;
			if (nexp < TM_MAX_GAPS) {
				exp[nexp].off = i;
				exp[nexp].len = j - i;
				exp[nexp].reason = 0;
			}
			nexp++;
			i = j;
		}
		qsort(order, nord, sizeof(order[0]), tm_cmp_key);
		CHECK_EQ(tm_pkt(&t, f, 0, ISN, TCP_SYN | TCP_ACK, NULL, 0, ts), 1);
		ci = t.ev[0].conn;
		c = &t.m->conn[ci];
		for (i = 0; i < nord; i++) {
			ts += 20000;
			tm_fwd(&t, f, SEQ(order[i].off), s + order[i].off, order[i].len, ts);
			if (i % 50 == 0)
				tm_poll(&t, ts);
		}
		/* the FIN marks the end, so a lost tail is a hole too */
		tm_pkt(&t, f, 0, SEQ(LEN), TCP_FIN | TCP_ACK, NULL, 0, ts);
		tm_poll(&t, ts + 1000 * TM_NS);
		o = tm_out(&t, ci);
		CHECK_EQ(o->closes, 1);
		CHECK_EQ(o->close_off, LEN);
		if (nexp > 0)
			lossy++;
		if (c->st.window_drop_bytes == 0 && nexp <= TM_MAX_GAPS) {
			exact++;
			if (!tm_check_stream(&t, ci, s, LEN, exp, (int)nexp))
				fprintf(stderr, "random loss trial %d failed\n", trial);
			CHECK_EQ(c->st.range_full, 0);
		} else {
			/* delivered bytes right, declared gaps cover every byte never sent */
			uint64_t pos = 0;
			CHECK_EQ(o->order_errors, 0);
			CHECK_EQ(o->next, LEN);
			for (k = 0; k <= o->ngaps && k <= TM_MAX_GAPS; k++) {
				uint64_t end = k < o->ngaps && k < TM_MAX_GAPS ? o->gaps[k].off : LEN;
				CHECK_MEM(o->bytes + pos, s + pos, end - pos);
				for (i = (uint32_t)pos; i < end; i++)
					if (!sent[i])
						break;
				CHECK_EQ(i, end);
				if (k < o->ngaps && k < TM_MAX_GAPS) {
					pos = o->gaps[k].off + o->gaps[k].len;
				}
			}
		}
		CHECK_EQ(c->st.bytes + c->st.gap_bytes, LEN);
		CHECK_EQ(t.m->st.ev_overflow, 0);
	}
	/* the strong check ran on most trials, and most trials lost data */
	printf("random loss: %d trials, %d with loss, %d checked exactly\n", TRIALS, lossy, exact);
	CHECK(exact > TRIALS * 3 / 4);
	CHECK(lossy > TRIALS * 3 / 4);
	tm_free(&t);
}

int main(void)
{
	test_timeout_poll();
	test_timeout_segment();
	test_window_gap();
	test_window_drop();
	test_fin_after_hole();
	test_no_timeout_idle_flush();
	test_poll_short_array();
	test_random_loss();
	return test_done("mtoe_gap");
}
