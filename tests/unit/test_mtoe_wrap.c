/* test_mtoe_wrap.c - mirror TOE: 32-bit sequence wrap (in order, out of order, keep-alive at the
 * wrap, FIN at the wrap) and 64-bit stream offsets beyond 4 GB. */
#include "test_mtoe_common.h"

static void test_inorder_wrap(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(0);
	enum { LEN = 16384 };
	static uint8_t s[LEN];
	uint32_t isn = 0xfffff000u, off = 0;
	int ci;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, LEN);
	tm_fill(s, LEN, 9);
	CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	ci = t.ev[0].conn;
	while (off < LEN) {
		uint32_t n = LEN - off < 1000 ? LEN - off : 1000;
		CHECK_EQ(tm_fwd(&t, f, isn + 1 + off, s + off, n, 1), 1);
		off += n;
	}
	tm_check_stream(&t, ci, s, LEN, NULL, 0);
	CHECK_EQ(t.m->conn[ci].nxt_seq, (uint32_t)(isn + 1 + LEN));
	CHECK_EQ(t.m->conn[ci].nxt_seq, 0x3001); /* wrapped */
	CHECK_EQ(t.m->conn[ci].st.duplicates, 0);
	/* a retransmission from before the wrap is old data */
	CHECK_EQ(tm_fwd(&t, f, isn + 1 + 100, s + 100, 1000, 2), 0);
	CHECK_EQ(t.m->conn[ci].st.duplicates, 1);
	tm_free(&t);
}

/* Holes on both sides of sequence 0, a segment straddling it, filled in
 * reverse order; a keep-alive at 0xffffffff when rcv_nxt is 0. */
static void test_reorder_wrap(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(1);
	enum { LEN = 6000 };
	static uint8_t s[LEN];
	/* stream offset 3000 is sequence 0 */
	uint32_t isn = (uint32_t)(0u - 3000u - 1u);
	uint32_t base = isn + 1;
	int ci;
	const struct mtoe_conn *c;
	uint8_t ka = 0;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, LEN);
	tm_fill(s, LEN, 10);
	CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	ci = t.ev[0].conn;
	c = &t.m->conn[ci];
	CHECK_EQ(tm_fwd(&t, f, base, s, 2000, 1), 1);                 /* [0,2000) */
	CHECK_EQ(tm_fwd(&t, f, base + 3000, s + 3000, 1000, 1), 0);   /* seq 0.. */
	CHECK_EQ(tm_fwd(&t, f, base + 2500, s + 2500, 400, 1), 0);    /* [2500,2900): seq ...-500 */
	CHECK_EQ(tm_fwd(&t, f, base + 4500, s + 4500, 1500, 1), 0);
	CHECK_EQ(c->nranges, 3);
	CHECK_EQ(c->range[0].start, 2500);
	CHECK_EQ(c->range[1].start, 3000);
	CHECK_EQ(c->range[2].start, 4500);
	CHECK_EQ(tm_fwd(&t, f, base + 2900, s + 2900, 100, 1), 0);    /* [2900,3000) joins 2 ranges across the wrap */
	CHECK_EQ(c->nranges, 2);
	CHECK_EQ(c->range[0].end, 4000);
	CHECK_EQ(tm_fwd(&t, f, base + 3900, s + 3900, 700, 1), 0);    /* overlaps, bridges: one range */
	CHECK_EQ(c->nranges, 1);
	CHECK_EQ(c->st.dup_bytes, 100 + 100);
	CHECK_EQ(tm_fwd(&t, f, base + 2000, s + 2000, 500, 1), 2);
	CHECK_EQ(t.ev[1].offset, 2500);
	CHECK_EQ(t.ev[1].len, 3500);
	tm_check_stream(&t, ci, s, LEN, NULL, 0);
	CHECK_EQ(c->nxt_seq, 3000); /* 6000 - 3000 past sequence 0 */

	/* keep-alive exactly at the wrap: rcv_nxt = 0, probe at 0xffffffff */
	tm_free(&t);
	tm_init(&t, &cfg, LEN);
	isn = (uint32_t)(0u - 1000u - 1u);
	CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	ci = t.ev[0].conn;
	c = &t.m->conn[ci];
	CHECK_EQ(tm_fwd(&t, f, isn + 1, s, 1000, 1), 1);
	CHECK_EQ(c->nxt_seq, 0);
	CHECK_EQ(tm_fwd(&t, f, 0xffffffffu, NULL, 0, 2), 0);
	CHECK_EQ(tm_fwd(&t, f, 0xffffffffu, &ka, 1, 3), 0);
	CHECK_EQ(c->st.keepalives, 2);
	CHECK_EQ(c->st.duplicates, 0);
	CHECK_EQ(c->st.bytes, 1000);
	/* FIN whose sequence number is 0 after wrapping: data [1000,1500) then FIN */
	CHECK_EQ(tm_pkt(&t, f, 0, 500, TCP_FIN | TCP_ACK, NULL, 0, 4), 0); /* FIN before the data */
	CHECK_EQ(c->fin_off, 1500);
	CHECK_EQ(tm_fwd(&t, f, 0, s + 1000, 500, 5), 2);
	CHECK_EQ(t.ev[0].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[1].type, MTOE_EV_CLOSE);
	CHECK_EQ(t.ev[1].offset, 1500);
	tm_check_stream(&t, ci, s, 1500, NULL, 0);
	tm_free(&t);
}

/* Stream offsets are 64-bit: three jumps of 0x70000000 bytes (mirror loss
 * larger than the window with nothing buffered) carry the stream past 4 GB
 * while sequence numbers wrap; offsets and gap lengths stay exact. */
static void test_offsets_past_4g(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(2);
	uint8_t s[3000];
	uint32_t isn = 0xf0000000u, seq;
	uint64_t off;
	int ci, i;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, 0);
	tm_fill(s, sizeof(s), 11);
	CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	ci = t.ev[0].conn;
	c = &t.m->conn[ci];
	seq = isn + 1;
	CHECK_EQ(tm_fwd(&t, f, seq, s, 1000, 1), 1);
	off = 1000;
	seq += 1000;
	for (i = 0; i < 3; i++) {
		seq += 0x70000000u;
		CHECK_EQ(tm_fwd(&t, f, seq, s + 1000, 1000, 2 + i), 2);
		CHECK_EQ(t.ev[0].type, MTOE_EV_GAP);
		CHECK_EQ(t.ev[0].reason, TOE_GAP_WINDOW);
		CHECK_EQ(t.ev[0].offset, off);
		CHECK_EQ(t.ev[0].len, 0x70000000ull);
		CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
		CHECK_EQ(t.ev[1].offset, off + 0x70000000ull);
		CHECK(t.ev[1].data == s + 1000);
		off += 0x70000000ull + 1000;
		seq += 1000;
	}
	CHECK(off > 0x100000000ull);
	CHECK_EQ(c->nxt_off, off);
	CHECK_EQ(c->nxt_seq, seq);
	CHECK_EQ(c->st.gaps, 3);
	CHECK_EQ(c->st.gap_bytes, 3 * 0x70000000ull);
	CHECK_EQ(c->st.beyond_window, 3);
	/* out of order beyond 4 GB: hole of 500, then fill it */
	CHECK_EQ(tm_fwd(&t, f, seq + 500, s + 500, 500, 10), 0);
	CHECK_EQ(c->range[0].start, off + 500);
	CHECK_EQ(tm_fwd(&t, f, seq, s, 500, 10), 2);
	CHECK_EQ(t.ev[1].offset, off + 500);
	CHECK_EQ(c->nxt_off, off + 1000);
	CHECK_EQ(t.out[ci].order_errors, 0);
	CHECK_EQ(t.out[ci].next, off + 1000);
	tm_free(&t);
}

int main(void)
{
	test_inorder_wrap();
	test_reorder_wrap();
	test_offsets_past_4g();
	return test_done("mtoe_wrap");
}
