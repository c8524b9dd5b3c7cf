/* test_rx_loss.c - the receive pipeline when data is lost, damaged or joined late.
 *
 * Mid-stream join (the partial first message skipped, exact from the next
 * one), IP fragments (dropped and counted: their bytes become a gap), bad
 * TCP and IP checksums (dropped; the retransmitted copy fills the hole),
 * holes never filled (timeout gaps while polling, window gaps with a small
 * window, a hole left at the end of the capture), and damaged messages (a
 * STEP checksum mismatch, a FAST error inside a valid STEP message). Gap
 * entries must have the exact byte ranges; the records outside them must be
 * exact, and no record may come from a damaged message.
 */
#include "test_rx_common.h"

static struct tr_feed feed;

/* Offset of the k-th MSS segment. */
static uint64_t seg_off(uint32_t k)
{
	return (uint64_t)k * TR_MSS;
}

static uint64_t seg_len(uint32_t k)
{
	uint64_t o = seg_off(k);
	return feed.len - o < TR_MSS ? feed.len - o : TR_MSS;
}

/* SYN, segments, FIN with no ACKs; frame 1 + k is segment k. */
static void plain_connection(struct tr_frames *l, uint32_t isn)
{
	struct pb_spec s;
	uint64_t ts = 0;
	tr_spec(&s, TR_VE_PORT);
	tr_seg(l, &s, isn, TCP_SYN, NULL, 0, 0);
	tr_segments(l, &s, &feed, isn, 0, feed.len, TR_MSS, 0, &ts);
	tr_seg(l, &s, isn + 1 + (uint32_t)feed.len, TCP_FIN | TCP_ACK, NULL, 0, 0);
}

static void test_join(void)
{
	struct rx_cfg cfg;
	struct pb_spec s;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	/* (1) inside message 5, (2) exactly at message 8's '8', (3) inside the "8=STEP" of message 11 */
	uint64_t joins[3] = { feed.msg[5].off + 37, feed.msg[8].off, feed.msg[11].off + 3 };
	for (int j = 0; j < 3; j++) {
		struct tr_frames l = {0};
		struct tr_rx t;
		uint64_t ts = 0, J = joins[j];
		uint32_t isn = 0xfffff000u;
		tr_segments(&l, &s, &feed, isn, J, feed.len, TR_MSS, 3, &ts);
		tr_seg(&l, &s, isn + 1 + (uint32_t)feed.len, TCP_FIN | TCP_ACK, NULL, 0, 0);
		tr_swap(&l, 3, 4);
		tr_restamp(&l, 0, 10000);
		tr_rx_init(&t, &cfg, feed.len);
		tr_run(&t, &l, 1, 1);
		int32_t sid = tr_only_stream(&t);
		if (sid >= 0) {
			CHECK_EQ(t.s[sid].resets, 1);
			CHECK_EQ(t.s[sid].reset_reason, MTOE_OPEN_JOIN);
			/* a garbage gap from 0 to the next message (none when joined at a message) */
			uint32_t next = tr_msg_at_or_after(&feed, J);
			CHECK_EQ(t.s[sid].ngaps, feed.msg[next].off == J ? 0 : 1);
			if (t.s[sid].ngaps == 1) {
				CHECK_EQ(t.s[sid].gap[0].off, 0);
				CHECK_EQ(t.s[sid].gap[0].len, feed.msg[next].off - J);
				CHECK_EQ(t.s[sid].gap[0].detail, STEP_E_GARBAGE);
			}
			/* the first record is the first of that message */
			CHECK(t.s[sid].nrec > 0 && t.s[sid].rec[0].msg_seq == feed.msg[next].seq);
			tr_check(&t, (uint32_t)sid, &feed, J, feed.len, NULL, 0);
		}
		CHECK_EQ(t.p->mtoe.st.joins, 1);
		tr_rx_free(&t);
		tr_frames_free(&l);
	}
}

/* Segment 6 arrives only as IP fragments: counted, dropped, a timeout gap. */
static void test_fragments(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0}, m = {0};
	struct tr_rx t;
	uint8_t frag[2000];
	uint32_t k = 6, nfrag = 0;
	tr_cfg(&cfg);
	plain_connection(&l, 1);
	for (uint32_t i = 0; i < l.n; i++) {
		if (i != 1 + k) {
			tr_add(&m, l.f[i].buf, l.f[i].len, 0);
			continue;
		}
		size_t n;
		for (size_t idx = 0; (n = pb_ipv4_fragment(l.f[i].buf, l.f[i].len, 600, idx, frag, sizeof frag)) > 0;
		     idx++) {
			tr_add(&m, frag, n, 0);
			nfrag++;
		}
	}
	CHECK_EQ(nfrag, 3);
	/* 5 ms apart: the 50 ms timeout comes before the window fills */
	tr_restamp(&m, 0, 5 * TR_MS);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &m, 1, 1);
	struct tr_gap loss[1] = { { seg_off(k), seg_len(k), TOE_GAP_TIMEOUT, 0 } };
	tr_check(&t, 0, &feed, 0, feed.len, loss, 1);
	CHECK_EQ(t.p->net.ip.drop_ip_frag, nfrag);
	CHECK_EQ(t.p->st.dropped, nfrag);
	CHECK_EQ(t.p->st.gaps_timeout, 1);
	tr_rx_free(&t);
	tr_frames_free(&l);
	tr_frames_free(&m);
}

/* Bad TCP checksum on segment 3 and bad IP header checksum on segment 9;
 * the good copies come a few frames later. With checksums off a segment
 * whose checksum field is wrong (bytes intact) is taken. */
static void test_bad_checksums(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 0;
	uint32_t isn = 31337;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_seg(&l, &s, isn, TCP_SYN, NULL, 0, 0);
	for (uint32_t k = 0; seg_off(k) < feed.len; k++) {
		struct pb_spec b = s;
		if (k == 3)
			b.l4_csum = PB_CSUM_BAD;
		if (k == 9)
			b.ip_csum = PB_CSUM_BAD;
		tr_seg(&l, &b, isn + 1 + (uint32_t)seg_off(k), TCP_ACK | TCP_PSH, feed.bytes + seg_off(k),
		       (uint32_t)seg_len(k), ts++);
		if (k == 5 || k == 11)
			tr_seg(&l, &s, isn + 1 + (uint32_t)seg_off(k - 2), TCP_ACK | TCP_PSH,
			       feed.bytes + seg_off(k - 2), (uint32_t)seg_len(k - 2), ts++);
	}
	tr_seg(&l, &s, isn + 1 + (uint32_t)feed.len, TCP_FIN | TCP_ACK, NULL, 0, 0);
	tr_restamp(&l, 0, 10000);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &l, 1, 1);
	tr_check(&t, 0, &feed, 0, feed.len, NULL, 0);
	CHECK_EQ(t.p->net.tcp.drop_tcp_csum, 1);
	CHECK_EQ(t.p->net.ip.drop_ip_csum, 1);
	CHECK_EQ(t.p->st.dropped, 2);
	CHECK_EQ(t.p->st.gaps, 0);
	tr_rx_free(&t);

	/* checksums off: the frame with the bad TCP checksum is used, no copy needed */
	tr_frames_free(&l);
	ts = 0;
	tr_seg(&l, &s, isn, TCP_SYN, NULL, 0, 0);
	for (uint32_t k = 0; seg_off(k) < feed.len; k++) {
		struct pb_spec b = s;
		if (k % 4 == 1)
			b.l4_csum = k % 8 == 1 ? PB_CSUM_BAD : PB_CSUM_ZERO;
		tr_seg(&l, &b, isn + 1 + (uint32_t)seg_off(k), TCP_ACK | TCP_PSH, feed.bytes + seg_off(k),
		       (uint32_t)seg_len(k), ts++);
	}
	tr_restamp(&l, 0, 10000);
	cfg.net.flags &= ~(NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &l, 1, 1);
	tr_check(&t, 0, &feed, 0, feed.len, NULL, 0);
	CHECK_EQ(t.p->net.tcp.drop_tcp_csum, 0);
	CHECK_EQ(t.p->net.tcp.csum_unchecked, l.n);
	tr_rx_free(&t);
	tr_frames_free(&l);
}

/* Drop frames for segments in `drop` (list ends with -1) from a plain connection. */
static void drop_segments(struct tr_frames *l, const int *drop)
{
	for (int i = 0; drop[i] >= 0; i++)
		tr_remove(l, (uint32_t)(1 + drop[i] - i));
}

static void test_holes(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	uint32_t nseg = (uint32_t)((feed.len + TR_MSS - 1) / TR_MSS);

	/* (1) timeouts while polling: segments 4; 10, 11; 20 never arrive */
	static const int d1[] = { 4, 10, 11, 20, -1 };
	tr_cfg(&cfg);
	plain_connection(&l, 1000);
	drop_segments(&l, d1);
	tr_restamp(&l, 0, 5 * TR_MS);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &l, 1, 1);
	{
		struct tr_gap loss[3] = {
			{ seg_off(4), TR_MSS, TOE_GAP_TIMEOUT, 0 },
			{ seg_off(10), 2 * TR_MSS, TOE_GAP_TIMEOUT, 0 },
			{ seg_off(20), TR_MSS, TOE_GAP_TIMEOUT, 0 },
		};
		tr_check(&t, 0, &feed, 0, feed.len, loss, 3);
		CHECK_EQ(t.p->st.gaps_timeout, 3);
		CHECK_EQ(t.p->mtoe.st.gap_bytes, 4 * TR_MSS);
		/* some records of every stretch between the holes arrived */
		CHECK(t.s[0].nrec > feed.nrec / 2 && t.s[0].nrec < feed.nrec);
	}
	tr_rx_free(&t);
	tr_frames_free(&l);

	/* (2) a small window (8 KB): the hole is given up when 3/4 of it is held */
	static const int d2[] = { 7, -1 };
	tr_cfg(&cfg);
	cfg.mtoe.window = 8192;
	plain_connection(&l, 2000);
	drop_segments(&l, d2);
	tr_restamp(&l, 0, 10000);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &l, 1, 1);
	{
		struct tr_gap loss[1] = { { seg_off(7), TR_MSS, TOE_GAP_WINDOW, 0 } };
		tr_check(&t, 0, &feed, 0, feed.len, loss, 1);
		CHECK_EQ(t.p->st.gaps_window, 1);
	}
	tr_rx_free(&t);
	tr_frames_free(&l);

	/* (3) more than a window lost at once (segments 5..12, 11 KB > 8 KB): one gap up to the next segment */
	static const int d3[] = { 5, 6, 7, 8, 9, 10, 11, 12, -1 };
	plain_connection(&l, 3000);
	drop_segments(&l, d3);
	tr_restamp(&l, 0, 10000);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &l, 1, 1);
	{
		struct tr_gap loss[1] = { { seg_off(5), 8 * TR_MSS, TOE_GAP_WINDOW, 0 } };
		tr_check(&t, 0, &feed, 0, feed.len, loss, 1);
	}
	tr_rx_free(&t);
	tr_frames_free(&l);

	/* (4) a hole just before the end, no polling: the end-of-capture poll declares it */
	int d4[] = { (int)nseg - 2, -1 };
	tr_cfg(&cfg);
	plain_connection(&l, 4000);
	drop_segments(&l, d4);
	tr_restamp(&l, 0, 10000);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &l, 0, 0);
	CHECK_EQ(t.p->st.gaps, 0);
	CHECK_EQ(t.p->st.closes, 0); /* the FIN waits for the hole */
	rx_poll(t.p, UINT64_MAX);
	tr_drain(&t);
	{
		struct tr_gap loss[1] = { { seg_off(nseg - 2), TR_MSS, TOE_GAP_TIMEOUT, 0 } };
		tr_check(&t, 0, &feed, 0, feed.len, loss, 1);
		CHECK_EQ(t.p->st.closes, 1);
	}
	tr_rx_free(&t);
	tr_frames_free(&l);
}

/* A copy of the feed with other bytes (same messages and records). */
static void feed_copy(struct tr_feed *g, const struct tr_feed *f)
{
	*g = *f;
	g->bytes = malloc(f->len);
	memcpy(g->bytes, f->bytes, f->len);
}

/* Rewrite the CheckSum of the message at m (len bytes). */
static void step_fix_checksum(uint8_t *m, uint32_t len)
{
	uint32_t sum = 0, k, t = len - 7; /* "10=ddd<SOH>" */
	for (k = 0; k < t; k++)
		sum += m[k];
	sum &= 0xff;
	m[t + 3] = (uint8_t)('0' + sum / 100);
	m[t + 4] = (uint8_t)('0' + sum / 10 % 10);
	m[t + 5] = (uint8_t)('0' + sum % 10);
}

/* Offset of the FAST data (after "96=") inside message m. */
static uint32_t step_data_off(const uint8_t *m, uint32_t len)
{
	for (uint32_t k = 0; k + 4 < len; k++)
		if (m[k] == 1 && m[k + 1] == '9' && m[k + 2] == '6' && m[k + 3] == '=')
			return k + 4;
	return 0;
}

static void test_damaged(void)
{
	struct rx_cfg cfg;
	struct tr_feed g;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 0;
	uint32_t a = 10, b = 17;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	feed_copy(&g, &feed);
	/* message a: one payload bit flipped, STEP checksum left as it was */
	uint8_t *ma = g.bytes + g.msg[a].off;
	uint32_t da = step_data_off(ma, g.msg[a].len);
	CHECK(da > 0);
	ma[da + 5] ^= 0x04;
	/* message b: the first record's template id made unknown (3201 -> 3202, 5801 -> 5802), checksum fixed */
	uint8_t *mb = g.bytes + g.msg[b].off;
	uint32_t db = step_data_off(mb, g.msg[b].len), k = db;
	CHECK(db > 0);
	while (k < db + FAST_MAX_PMAP_BYTES && !(mb[k] & 0x80))
		k++; /* the presence map ends at its stop bit; the template id follows */
	CHECK((mb[k + 1] == 0x19 && mb[k + 2] == 0x81) || (mb[k + 1] == 0x2d && mb[k + 2] == 0xa9));
	mb[k + 2]++;
	step_fix_checksum(mb, g.msg[b].len);

	tr_seg(&l, &s, 1, TCP_SYN, NULL, 0, 0);
	tr_segments(&l, &s, &g, 1, 0, g.len, TR_MSS, 2, &ts);
	tr_restamp(&l, 0, 10000);
	tr_rx_init(&t, &cfg, g.len);
	tr_run(&t, &l, 1, 1);
	struct tr_gap dec[2] = {
		{ g.msg[a].off, g.msg[a].len, TOE_GAP_DECODE, STEP_E_BAD_CHECKSUM },
		{ g.msg[b].off, g.msg[b].len, TOE_GAP_DECODE, FAST_E_UNKNOWN_TEMPLATE },
	};
	tr_check_ex(&t, 0, &g, 0, g.len, NULL, 0, dec, 2);
	CHECK_EQ(t.p->st.records, feed.nrec - feed.msg[a].n - feed.msg[b].n);
	CHECK_EQ(t.p->st.gaps_decode, 2);
	CHECK_EQ(t.p->sst[0].decode_errors, 2);
	CHECK_EQ(t.p->fs[0].step.errors[STEP_E_BAD_CHECKSUM], 1);
	CHECK_EQ(t.p->fs[0].dec.errors[FAST_E_UNKNOWN_TEMPLATE], 1);
	tr_rx_free(&t);
	tr_frames_free(&l);
	free(g.bytes);
}

int main(void)
{
	if (tr_load() != 0)
		return test_skip("test_rx_loss", "cannot compile " TR_TEMPLATES " (run from the repository root)");
	tr_feed_make(&feed, 11, 1500, 6);
	CHECK(feed.len > 30 * TR_MSS);
	test_join();
	test_fragments();
	test_bad_checksums();
	test_holes();
	test_damaged();
	tr_feed_free(&feed);
	return test_done("test_rx_loss");
}
