/* test_rx_ack.c - the receive pipeline when the mirror loses data the vendor's ACKs account for.
 *
 * Frames are built as the mirror would show them: the exchange's segments (some lost) and the
 * vendor's ACKs (all seen). Checked against the feed (test_rx_common.h): the gap record names
 * exactly the lost bytes, with reason TOE_GAP_ACKED, soon after the ACK (the 20 ms reorder
 * allowance, not the 50 ms hole timeout nor the idle close); the records outside it are exact
 * and the decoding resumes at the next message; a lost tail with its FIN is a gap ending at the
 * stream's end and the stream closes; a new connection on the same ports decodes from its start.
 */
#include "test_rx_common.h"

static struct tr_feed feed;

static uint64_t seg_off(uint32_t k)
{
	return (uint64_t)k * TR_MSS;
}

static uint32_t seg_len(uint32_t k)
{
	uint64_t o = seg_off(k);
	return (uint32_t)(feed.len - o < TR_MSS ? feed.len - o : TR_MSS);
}

static uint32_t nsegs(void)
{
	return (uint32_t)((feed.len + TR_MSS - 1) / TR_MSS);
}

/* The connection as the mirror shows it: SYN, every segment k with lost[k] == 0, the vendor's
 * ACK after every second segment (whether or not the mirror lost it); with fin, the exchange's
 * FIN (unless fin_lost), the vendor's ACK of it and the vendor's FIN. */
static void connection(struct tr_frames *l, const struct pb_spec *s, uint32_t isn, const uint8_t *lost, int fin,
		       int fin_lost)
{
	uint32_t n = nsegs(), k;
	uint32_t end = isn + 1 + (uint32_t)feed.len;
	tr_seg(l, s, isn, TCP_SYN, NULL, 0, 0);
	for (k = 0; k < n; k++) {
		if (!lost[k])
			tr_seg(l, s, isn + 1 + (uint32_t)seg_off(k), TCP_ACK | TCP_PSH, feed.bytes + seg_off(k), seg_len(k), 0);
		if (k % 2 == 1)
			tr_vendor_seg(l, s, isn + 1 + (uint32_t)(seg_off(k) + seg_len(k)), TCP_ACK, 0);
	}
	if (fin) {
		if (!fin_lost)
			tr_seg(l, s, end, TCP_FIN | TCP_ACK, NULL, 0, 0);
		tr_vendor_seg(l, s, end + 1, TCP_ACK, 0);
		tr_vendor_seg(l, s, end + 1, TCP_ACK | TCP_FIN, 0);
	} else if (n % 2 == 1) {
		tr_vendor_seg(l, s, end, TCP_ACK, 0);
	}
}

/* Segments 10, 11, 12 lost on the mirror mid-stream: one ACKED gap over exactly their bytes,
 * declared 20 ms after the first ACK that showed them missing; the records before and after it
 * are exact. */
static void test_midstream(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint8_t lost[256] = {0};
	uint32_t first_after = 0;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	lost[10] = lost[11] = lost[12] = 1;
	connection(&l, &s, 0x10000000u, lost, 1, 0);
	tr_restamp(&l, 0, TR_MS);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &l, 1, 0);
	{
		struct tr_gap loss[1] = { { seg_off(10), 3 * TR_MSS, TOE_GAP_ACKED, 0 } };
		tr_check(&t, 0, &feed, 0, feed.len, loss, 1);
	}
	CHECK_EQ(t.p->st.gaps_acked, 1);
	CHECK_EQ(t.p->st.gaps_timeout, 0);
	CHECK_EQ(t.p->mtoe.st.ack_gap_bytes, 3 * TR_MSS);
	CHECK_EQ(t.p->st.closes, 1); /* the exchange's FIN, without the end-of-capture poll */
	/* decoding resumed: the first record after the gap is the first of the first message that
	 * starts after it, with its MsgSeqNum */
	{
		uint32_t m = tr_msg_at_or_after(&feed, seg_off(13)), r;
		for (r = 0; r < t.s[0].nrec; r++)
			if (t.s[0].rec[r].offset >= seg_off(13)) {
				first_after = r;
				break;
			}
		CHECK(r < t.s[0].nrec);
		if (r < t.s[0].nrec) {
			CHECK_EQ(t.s[0].rec[first_after].msg_seq, feed.msg[m].seq);
			CHECK_EQ(t.s[0].rec[first_after].offset, feed.msg[m].off);
		}
	}
	tr_rx_free(&t);
	tr_frames_free(&l);
}

/* The last five segments and the FIN lost on the mirror; the vendor's ACKs (of the FIN too) and
 * its FIN are seen. Without any end-of-capture poll, the gap [start of the lost tail, end of
 * the feed) is reported and the stream closes; then a new connection on the same ports (a new
 * ISN) decodes the feed again from its first record. */
static void test_tail_then_new_connection(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0}, l2 = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint8_t lost[256] = {0};
	uint32_t n = nsegs(), k, sid;
	uint64_t last;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	for (k = n - 5; k < n; k++)
		lost[k] = 1;
	connection(&l, &s, 0xfffff000u, lost, 1, 1); /* wraps the sequence space on the way */
	tr_restamp(&l, 0, TR_MS);
	last = l.f[l.n - 1].ts;
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &l, 1, 0);
	CHECK_EQ(t.p->st.gaps, 0); /* the tail is still within its reorder allowance */
	rx_poll(t.p, last + 25 * TR_MS);
	tr_drain(&t);
	sid = (uint32_t)tr_only_stream(&t);
	{
		struct tr_gap loss[1] = { { seg_off(n - 5), feed.len - seg_off(n - 5), TOE_GAP_ACKED, 0 } };
		tr_check(&t, sid, &feed, 0, feed.len, loss, 1);
	}
	CHECK_EQ(t.p->st.closes, 1);
	CHECK_EQ(t.p->mtoe.st.fin_inferred, 1);
	CHECK_EQ(t.p->st.gaps_acked, 1);
	/* every record of the messages wholly before the lost tail, none after */
	{
		uint32_t m = tr_msg_at_or_after(&feed, seg_off(n - 5)), want = 0, i;
		if (m > 0 && feed.msg[m - 1].off + feed.msg[m - 1].len > seg_off(n - 5))
			m--;
		for (i = 0; i < m; i++)
			want += feed.msg[i].n;
		CHECK_EQ(t.s[sid].nrec, want);
	}

	/* the vendor reconnects: a new stream on the same slot, exact from its first record */
	memset(lost, 0, sizeof lost);
	connection(&l2, &s, 0x20000000u, lost, 1, 0);
	tr_restamp(&l2, last + 100 * TR_MS, TR_MS);
	tr_run(&t, &l2, 1, 1);
	CHECK_EQ(t.s[sid].resets, 2);
	CHECK_EQ(t.s[sid].reset_reason, MTOE_OPEN_SYN);
	tr_check(&t, sid, &feed, 0, feed.len, NULL, 0);
	CHECK(t.s[sid].nrec > 0 && t.s[sid].rec[0].msg_seq == feed.msg[0].seq);
	tr_rx_free(&t);
	tr_frames_free(&l);
	tr_frames_free(&l2);
}

int main(void)
{
	if (tr_load() != 0)
		return test_skip("test_rx_ack", "cannot compile " TR_TEMPLATES " (run from the repository root)");
	tr_feed_make(&feed, 13, 1500, 6);
	CHECK(feed.len > 30 * TR_MSS && nsegs() < 256);
	test_midstream();
	test_tail_then_new_connection();
	tr_feed_free(&feed);
	return test_done("test_rx_ack");
}
