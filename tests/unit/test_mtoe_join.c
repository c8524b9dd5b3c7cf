/* test_mtoe_join.c - mirror TOE: mid-stream join (no SYN seen), a late SYN of the joined stream,
 * and the downstream contract: after OPEN(JOIN) a STEP deframer resynchronises at the next
 * "8=STEP" and recovers every later message. */
#include "test_mtoe_common.h"
#include "fast/step_deframe.h"
#include "fast/host/step_frame.h"

static void test_join_basic(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(0);
	uint8_t s[5000];
	uint32_t j = 0x80000000u; /* sequence number of the first segment seen */
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 12);
	/* a pure ACK of an unknown flow opens nothing */
	CHECK_EQ(tm_fwd(&t, f, j, NULL, 0, 1), 0);
	CHECK_EQ(t.m->st.no_conn, 1);
	/* nor does a RST or a FIN without data */
	CHECK_EQ(tm_pkt(&t, f, 0, j, TCP_RST, NULL, 0, 1), 0);
	CHECK_EQ(tm_pkt(&t, f, 0, j, TCP_FIN | TCP_ACK, NULL, 0, 1), 0);
	CHECK_EQ(t.m->st.no_conn, 3);
	CHECK_EQ(mtoe_lookup(t.m, f.a, f.ap, f.b, f.bp), -1);
	/* the first data segment: OPEN(JOIN) at offset 0, its bytes are offset 0.. */
	CHECK_EQ(tm_fwd(&t, f, j, s, 1000, 2), 2);
	CHECK_EQ(t.ev[0].type, MTOE_EV_OPEN);
	CHECK_EQ(t.ev[0].reason, MTOE_OPEN_JOIN);
	CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[1].offset, 0);
	CHECK(t.ev[1].data == s);
	ci = t.ev[0].conn;
	c = &t.m->conn[ci];
	CHECK_EQ(c->syn_seen, 0);
	CHECK_EQ(c->start_seq, j);
	CHECK_EQ(t.m->st.joins, 1);
	CHECK_EQ(t.m->st.opens, 0);
	/* data from before the join point is old */
	CHECK_EQ(tm_fwd(&t, f, j - 500, s, 500, 3), 0);
	CHECK_EQ(c->st.duplicates, 1);
	/* the SYN of this very stream arrives late: adopted, no reset */
	CHECK_EQ(tm_pkt(&t, f, 0, j - 1, TCP_SYN | TCP_ACK, NULL, 0, 4), 0);
	CHECK_EQ(c->syn_seen, 1);
	CHECK_EQ(c->isn, j - 1);
	CHECK_EQ(tm_pkt(&t, f, 0, j - 1, TCP_SYN | TCP_ACK, NULL, 0, 5), 0);
	CHECK_EQ(c->st.syn_retrans, 1);
	CHECK_EQ(tm_fwd(&t, f, j + 1000, s + 1000, 4000, 6), 1);
	tm_check_stream(&t, ci, s, sizeof(s), NULL, 0);
	CHECK_EQ(t.out[ci].opens, 1);

	/* a second flow joined by a segment with FIN: open, data, close */
	{
		struct tm_flow g = tm_flow_n(1);
		CHECK_EQ(tm_pkt(&t, g, 0, 77, TCP_FIN | TCP_ACK | TCP_PSH, s, 300, 7), 3);
		CHECK_EQ(t.ev[0].type, MTOE_EV_OPEN);
		CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
		CHECK_EQ(t.ev[1].len, 300);
		CHECK_EQ(t.ev[2].type, MTOE_EV_CLOSE);
		CHECK_EQ(t.ev[2].reason, MTOE_CLOSE_FIN);
		CHECK_EQ(t.ev[2].offset, 300);
	}
	/* a joined stream followed by a SYN with another ISN: that is a new connection */
	{
		struct tm_flow h = tm_flow_n(2);
		int hi;
		CHECK_EQ(tm_fwd(&t, h, 1000, s, 100, 8), 2);
		hi = t.ev[0].conn;
		CHECK_EQ(tm_pkt(&t, h, 0, 5000, TCP_SYN | TCP_ACK, NULL, 0, 9), 2);
		CHECK_EQ(t.ev[0].type, MTOE_EV_CLOSE);
		CHECK_EQ(t.ev[0].reason, MTOE_CLOSE_REPLACED);
		CHECK_EQ(t.ev[0].offset, 100);
		CHECK_EQ(t.ev[1].type, MTOE_EV_OPEN);
		CHECK_EQ(t.ev[1].reason, MTOE_OPEN_SYN);
		CHECK_EQ(t.ev[1].conn, hi);
		CHECK_EQ(t.m->conn[hi].start_seq, 5001);
		CHECK_EQ(t.m->st.restarts, 1);
	}
	tm_free(&t);
}

/* A feed of STEP messages; the mirror starts following in the middle of
 * message 3. The deframer fed from the events (restarted at every OPEN)
 * must produce exactly messages 4..N with their stream offsets. */
static void test_join_resync(void)
{
	enum { NMSG = 30, CAP = 20000 };
	static uint8_t s[CAP];
	static struct step_deframer sd;
	static uint64_t moff[NMSG + 1];
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(3);
	uint32_t len = 0, i, base = 123456789, join, pos, got = 0;
	uint64_t got_seq[NMSG];
	uint64_t got_off[NMSG];
	uint64_t join_off = 0;
	uint8_t fast[200];
	tm_cfg(&cfg);
	tm_init(&t, &cfg, CAP);
	for (i = 0; i < NMSG; i++) {
		struct step_hdr h = { "UA3201", "SSE", "VDE", 100 + i, "20240102-09:30:00.000" };
		int n;
		tm_fill(fast, sizeof(fast), 50 + i);
		moff[i] = len;
		n = step_frame(&h, fast, 20 + i * 5, s + len, CAP - len);
		CHECK(n > 0);
		len += (uint32_t)n;
	}
	moff[NMSG] = len;
	join = (uint32_t)(moff[3] + (moff[4] - moff[3]) / 2); /* middle of message 3 */
	step_init(&sd);
	/* segments of 97 bytes from the join point */
	for (pos = join; pos < len;) {
		uint32_t n = len - pos < 97 ? len - pos : 97, k;
		tm_fwd(&t, f, base + pos, s + pos, n, 1);
		for (k = 0; k < t.n; k++) {
			const struct mtoe_event *e = &t.ev[k];
			uint32_t used = 0;
			int st = STEP_NEED_MORE;
			if (e->type == MTOE_EV_OPEN) {
				step_resync(&sd, 0);
				join_off = pos;
			}
			if (e->type != MTOE_EV_DATA)
				continue;
			do {
				used += step_feed(&sd, e->data + used, (uint32_t)e->len - used, &st);
				if (st == STEP_MSG && got < NMSG) {
					got_seq[got] = sd.msg.seq;
					got_off[got] = sd.msg.offset;
					got++;
				}
			} while (used < e->len || st != STEP_NEED_MORE);
		}
		pos += n;
	}
	CHECK_EQ(join_off, join);
	CHECK_EQ(got, NMSG - 4);
	for (i = 0; i < got && i + 4 < NMSG; i++) {
		CHECK_EQ(got_seq[i], 104 + i);
		CHECK_EQ(got_off[i], moff[4 + i] - join); /* stream offset 0 = join point */
	}
	tm_free(&t);
}

int main(void)
{
	test_join_basic();
	test_join_resync();
	return test_done("mtoe_join");
}
