/* test_mtoe_reorder.c - mirror TOE: out-of-order segments, several holes, buffer wrap, range list
 * limit, and a randomized test (permutations and duplicates within the window, output == input). */
#include "test_mtoe_common.h"

static const uint32_t ISN = 5000;

static int open_conn(struct tm *t, struct tm_flow f, uint32_t isn)
{
	CHECK_EQ(tm_pkt(t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	return t->ev[0].conn;
}

static int in_buf(struct tm *t, int ci, const uint8_t *p)
{
	const uint8_t *b = t->buf + (size_t)ci * t->cfg.window;
	return p >= b && p < b + t->cfg.window;
}

/* Two segments swapped, then three holes filled in reverse order. */
static void test_swap_and_holes(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(0);
	uint8_t s[8000];
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 2);
	ci = open_conn(&t, f, ISN);
	c = &t.m->conn[ci];

	/* [1000,2000) before [0,1000) */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 1000, s + 1000, 1000, 1), 0);
	CHECK_EQ(c->nranges, 1);
	CHECK_EQ(c->range[0].start, 1000);
	CHECK_EQ(c->range[0].end, 2000);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1, s, 1000, 2), 2);
	CHECK(t.ev[0].data == s);          /* from the segment */
	CHECK_EQ(t.ev[0].len, 1000);
	CHECK(in_buf(&t, ci, t.ev[1].data)); /* from the buffer */
	CHECK_EQ(t.ev[1].offset, 1000);
	CHECK_EQ(t.ev[1].len, 1000);
	CHECK_EQ(c->nranges, 0);

	/* holes: [2000,2500) [3000,3500) [4000,4500); data 2500..3000, 3500..4000, 4500..5000 */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 4500, s + 4500, 500, 3), 0);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 2500, s + 2500, 500, 3), 0);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 3500, s + 3500, 500, 3), 0);
	CHECK_EQ(c->nranges, 3);
	CHECK_EQ(c->range[0].start, 2500);
	CHECK_EQ(c->range[1].start, 3500);
	CHECK_EQ(c->range[2].start, 4500);
	/* fill the last hole first: merges two ranges, delivers nothing */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 4000, s + 4000, 500, 4), 0);
	CHECK_EQ(c->nranges, 2);
	CHECK_EQ(c->range[1].start, 3500);
	CHECK_EQ(c->range[1].end, 5000);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 3000, s + 3000, 500, 4), 0);
	CHECK_EQ(c->nranges, 1);
	CHECK_EQ(c->range[0].start, 2500);
	CHECK_EQ(c->range[0].end, 5000);
	/* first hole: the segment, then 2500 buffered bytes */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 2000, s + 2000, 500, 5), 2);
	CHECK_EQ(t.ev[0].len, 500);
	CHECK_EQ(t.ev[1].offset, 2500);
	CHECK_EQ(t.ev[1].len, 2500);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 5000, s + 5000, 3000, 6), 1);
	tm_check_stream(&t, ci, s, sizeof(s), NULL, 0);
	CHECK_EQ(c->st.out_of_order, 6);
	CHECK_EQ(c->st.in_order, 3);
	CHECK_EQ(c->st.duplicates, 0);
	CHECK_EQ(c->st.dup_bytes, 0);
	CHECK_EQ(c->st.bytes, sizeof(s));
	CHECK_EQ(c->st.gaps, 0);
	tm_free(&t);
}

/* A buffered range that straddles the end of the circular buffer comes out
 * as two DATA events. Window 4096: offsets 3000..5000 wrap at 4096. */
static void test_buffer_wrap(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(1);
	uint8_t s[6000];
	int ci;
	tm_cfg(&cfg);
	cfg.window = 4096;
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 3);
	ci = open_conn(&t, f, ISN);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1, s, 2500, 1), 1);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 3000, s + 3000, 2000, 2), 0);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 2500, s + 2500, 500, 3), 3);
	CHECK(t.ev[0].data == s + 2500);
	CHECK_EQ(t.ev[1].offset, 3000);
	CHECK_EQ(t.ev[1].len, 4096 - 3000);
	CHECK(t.ev[1].data == t.buf + (size_t)ci * 4096 + 3000);
	CHECK_EQ(t.ev[2].offset, 4096);
	CHECK_EQ(t.ev[2].len, 5000 - 4096);
	CHECK(t.ev[2].data == t.buf + (size_t)ci * 4096);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 5000, s + 5000, 1000, 4), 1);
	tm_check_stream(&t, ci, s, sizeof(s), NULL, 0);
	/* the other slot's buffer region was not touched */
	CHECK_EQ(t.buf[(size_t)(ci ^ 1) * 4096], 0xEE);
	tm_free(&t);
}

/* max_ranges 2. A segment that extends or bridges held ranges is accepted
 * as always. One that needs a third range beyond the first hole makes the
 * oldest hole a gap (the lost copy will not come again on a mirror) and is
 * stored; one inside the first hole, with no slot and nothing to give up in
 * front of it, is dropped and counted. */
static void test_range_full(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(2);
	uint8_t s[1000];
	int ci;
	const struct mtoe_conn *c;
	const struct tm_gap gaps[] = {{0, 100, TOE_GAP_WINDOW}};
	tm_cfg(&cfg);
	cfg.max_ranges = 2;
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 4);
	ci = open_conn(&t, f, ISN);
	c = &t.m->conn[ci];
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 100, s + 100, 100, 1), 0);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 300, s + 300, 100, 1), 0);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 450, s + 450, 50, 1), 2);  /* needs a third range: GAP + DATA */
	/* that was a third range beyond the first hole: [0,100) became a gap,
	 * [100,200) was delivered, and the new range took the freed slot */
	CHECK_EQ(c->st.range_evictions, 1);
	CHECK_EQ(c->st.range_full, 0);
	CHECK_EQ(c->nranges, 2);
	CHECK_EQ(c->range[0].start, 300);
	CHECK_EQ(c->range[1].start, 450);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 220, s + 220, 30, 1), 0);  /* inside the first hole, no slot */
	CHECK_EQ(c->st.range_full, 1);
	CHECK_EQ(c->nranges, 2);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 400, s + 400, 50, 1), 0);  /* bridges [300,400) and [450,500) */
	CHECK_EQ(c->nranges, 1);
	CHECK_EQ(c->range[0].start, 300);
	CHECK_EQ(c->range[0].end, 500);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 200, s + 200, 100, 1), 2); /* fills the hole: delivers all */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 500, s + 500, 500, 1), 1);
	tm_check_stream(&t, ci, s, sizeof(s), gaps, 1);
	CHECK_EQ(c->st.range_evictions, 1);
	tm_free(&t);
}

/* Random segmentation, bounded displacement (every segment more than D
 * positions earlier has arrived, so all data stays within the window and at
 * most D ranges are held), random retransmissions of whole segments and of
 * re-cut slices. Output must equal the input exactly. */
static void test_random(void)
{
	enum { LEN = 40000, MAXSEG = 1460, D = 8, TRIALS = 500 };
	static uint8_t s[LEN];
	static struct rseg seg[LEN], order[3 * LEN];
	struct mtoe_cfg cfg;
	struct tm t;
	int trial;
	uint64_t total_dup = 0, total_ooo = 0;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, LEN);
	for (trial = 0; trial < TRIALS; trial++) {
		struct tm_flow f = tm_flow_n(trial);
		uint32_t isn = tm_rand(), nseg, nord = 0, i;
		uint32_t maxseg = trial % 3 == 0 ? 64 : MAXSEG;
		int ci;
		const struct mtoe_conn *c;
		uint64_t expect_segments;
		tm_fill(s, LEN, 100 + (uint32_t)trial);
		nseg = tm_cut(seg, LEN, maxseg, D);
		for (i = 0; i < nseg; i++)
			order[nord++] = seg[i];
		/* retransmissions: a whole segment or a slice of recent data, arriving a bit later */
		for (i = 1; i < nseg; i++) {
			if (tm_range(0, 99) < 20) {
				struct rseg r = seg[i];
				if (tm_range(0, 1)) {
					/* re-cut: from an earlier segment's start to inside this one */
					uint32_t j = i > 3 ? i - tm_range(0, 3) : i;
					r.len = seg[i].off + seg[i].len - seg[j].off;
					r.off = seg[j].off;
					if (r.len > 4000)
						r.len = 4000;
				}
				r.key = seg[i].key + 1 + 2 * tm_range(0, D);
				order[nord++] = r;
			}
		}
		qsort(order, nord, sizeof(order[0]), tm_cmp_key);
		/* the SYN arrives first */
		CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
		ci = t.ev[0].conn;
		c = &t.m->conn[ci];
		for (i = 0; i < nord; i++)
			tm_fwd(&t, f, isn + 1 + order[i].off, s + order[i].off, order[i].len, 1);
		if (!tm_check_stream(&t, ci, s, LEN, NULL, 0))
			fprintf(stderr, "random trial %d failed (isn %u)\n", trial, isn);
		expect_segments = 1 + nord;
		CHECK_EQ(c->st.segments, expect_segments);
		CHECK_EQ(c->st.bytes, LEN);
		CHECK_EQ(c->st.gaps, 0);
		CHECK_EQ(c->st.range_full, 0);
		CHECK_EQ(c->st.window_drops, 0);
		CHECK_EQ(c->st.beyond_window, 0);
		CHECK_EQ(c->st.conflict_bytes, 0);
		CHECK_EQ(c->nranges, 0);
		/* every extra copy is counted as duplicate bytes: total received - LEN */
		{
			uint64_t recv = 0;
			for (i = 0; i < nord; i++)
				recv += order[i].len;
			CHECK_EQ(c->st.dup_bytes, recv - LEN);
		}
		total_dup += c->st.duplicates;
		total_ooo += c->st.out_of_order;
		/* close with FIN so the slot is reusable */
		CHECK_EQ(tm_pkt(&t, f, 0, isn + 1 + LEN, TCP_FIN | TCP_ACK, NULL, 0, 2), 1);
		CHECK_EQ(t.ev[0].type, MTOE_EV_CLOSE);
	}
	/* the generator really reordered and duplicated */
	CHECK(total_dup > 100);
	CHECK(total_ooo > 1000);
	CHECK_EQ(t.m->st.ev_overflow, 0);
	CHECK_EQ(t.m->st.no_slot, 0);
	tm_free(&t);
}

int main(void)
{
	test_swap_and_holes();
	test_buffer_wrap();
	test_range_full();
	test_random();
	return test_done("mtoe_reorder");
}
