/* test_mtoe_overlap.c - mirror TOE: retransmissions, duplicates, overlaps with identical and with
 * conflicting bytes (first copy wins), partial overlaps of delivered data. */
#include "test_mtoe_common.h"

static const uint32_t ISN = 0x12345678;

static int open_conn(struct tm *t, struct tm_flow f)
{
	CHECK_EQ(tm_pkt(t, f, 0, ISN, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	return t->ev[0].conn;
}

/* A copy of s[off..off+len) with every byte of [coff, coff+clen) flipped. */
static uint8_t *altered(const uint8_t *s, uint32_t off, uint32_t len, uint32_t coff, uint32_t clen)
{
	static uint8_t b[4][4096];
	static int k;
	uint8_t *p = b[k++ & 3];
	uint32_t i;
	memcpy(p, s + off, len);
	for (i = coff; i < coff + clen; i++)
		p[i - off] ^= 0x5a;
	return p;
}

static void test_out_of_order_overlaps(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(0);
	uint8_t s[2000];
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 7);
	ci = open_conn(&t, f);
	c = &t.m->conn[ci];

	/* held: [100,200) */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 100, s + 100, 100, 1), 0);
	/* identical overlap [150,300): 50 duplicate bytes, no conflict */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 150, s + 150, 150, 1), 0);
	CHECK_EQ(c->st.dup_bytes, 50);
	CHECK_EQ(c->st.conflict_bytes, 0);
	CHECK_EQ(c->nranges, 1);
	CHECK_EQ(c->range[0].end, 300);
	/* conflicting overlap [250,400), bytes 250..279 differ: first copy kept */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 250, altered(s, 250, 150, 250, 30), 150, 1), 0);
	CHECK_EQ(c->st.dup_bytes, 100);
	CHECK_EQ(c->st.conflict_bytes, 30);
	CHECK_EQ(c->st.conflicts, 1);
	/* exact duplicate of held data: no new byte */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 120, s + 120, 60, 1), 0);
	CHECK_EQ(c->st.duplicates, 1);
	CHECK_EQ(c->st.dup_bytes, 160);
	/* second range [600,700), then a segment [350,650) covering the hole
	 * between, overlapping both ranges: 50 + 50 bytes compared, 10 differ in the second */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 600, s + 600, 100, 1), 0);
	CHECK_EQ(c->nranges, 2);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 350, altered(s, 350, 300, 640, 10), 300, 1), 0);
	CHECK_EQ(c->nranges, 1);
	CHECK_EQ(c->range[0].start, 100);
	CHECK_EQ(c->range[0].end, 700);
	CHECK_EQ(c->st.dup_bytes, 260);
	CHECK_EQ(c->st.conflict_bytes, 40);
	CHECK_EQ(c->st.conflicts, 2);
	/* in-order segment [0,150) overlapping the held range, bytes 120..129 differ:
	 * delivered 0..100 from the segment, 100..700 from the buffer (first copy) */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1, altered(s, 0, 150, 120, 10), 150, 2), 2);
	CHECK_EQ(t.ev[0].len, 100);
	CHECK_EQ(t.ev[1].offset, 100);
	CHECK_EQ(t.ev[1].len, 600);
	CHECK_EQ(c->st.dup_bytes, 310);
	CHECK_EQ(c->st.conflict_bytes, 50);
	CHECK_EQ(c->st.conflicts, 3);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 700, s + 700, 1300, 3), 1);
	/* the stream holds the first copies everywhere */
	tm_check_stream(&t, ci, s, sizeof(s), NULL, 0);
	CHECK_EQ(c->st.bytes, sizeof(s));
	CHECK_EQ(c->st.out_of_order, 5);
	CHECK_EQ(c->st.duplicates, 1);
	tm_free(&t);
}

static void test_old_data(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(1);
	uint8_t s[3000];
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 8);
	ci = open_conn(&t, f);
	c = &t.m->conn[ci];
	CHECK_EQ(tm_fwd(&t, f, ISN + 1, s, 1000, 1), 1);
	/* retransmission of delivered data (also with other bytes: not comparable, just a duplicate) */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1, s, 1000, 2), 0);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 500, altered(s, 500, 500, 500, 500), 500, 2), 0);
	CHECK_EQ(c->st.duplicates, 2);
	CHECK_EQ(c->st.dup_bytes, 1500);
	CHECK_EQ(c->st.conflict_bytes, 0);
	/* partly old: [900,1200) delivers 100 new bytes straight from the payload */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 900, s + 900, 300, 3), 1);
	CHECK(t.ev[0].data == s + 1000);
	CHECK_EQ(t.ev[0].offset, 1000);
	CHECK_EQ(t.ev[0].len, 200);
	CHECK_EQ(c->st.dup_bytes, 1600);
	/* a re-cut retransmission spanning delivered, held and new data:
	 * held [1500,1600); segment [1100,1700) */
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 1500, s + 1500, 100, 4), 0);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 1100, s + 1100, 600, 5), 3);
	CHECK(t.ev[0].data == s + 1200);
	CHECK_EQ(t.ev[0].len, 300);
	CHECK_EQ(t.ev[1].offset, 1500);
	CHECK_EQ(t.ev[1].len, 100);
	CHECK(t.ev[2].data == s + 1600);
	CHECK_EQ(t.ev[2].len, 100);
	CHECK_EQ(c->st.dup_bytes, 1800);
	CHECK_EQ(tm_fwd(&t, f, ISN + 1 + 1700, s + 1700, 1300, 6), 1);
	tm_check_stream(&t, ci, s, sizeof(s), NULL, 0);
	CHECK_EQ(c->st.duplicates, 2);
	CHECK_EQ(c->st.in_order, 4);
	CHECK_EQ(c->st.out_of_order, 1);
	CHECK_EQ(c->st.gaps, 0);
	tm_free(&t);
}

int main(void)
{
	test_out_of_order_overlaps();
	test_old_data();
	return test_done("mtoe_overlap");
}
