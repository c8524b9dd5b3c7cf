/* test_gtoe_recv.c - general TOE receive side: ACK generation, SACK blocks, the receive window.
 *
 * Crafted data segments against an established connection (peer ISN 1000,
 * timestamps and SACK negotiated): in-order data with delayed ACKs (timer
 * and every second segment, small segments too), quick-ACK mode, out-of-order data with SACK
 * blocks in RFC 2018 order, the hole filled (immediate ACK, ranges merged),
 * duplicates, a window that shrinks with unread data down to zero, bytes
 * beyond the window trimmed, the window update after the application reads,
 * zero-copy peek/consume across the buffer wrap, PAWS, a FIN right at the
 * window's edge (it takes a sequence number, no room: window 0, not wrapped).
 */
#include "test.h"
#include "gtoe_harness.h"

#define MS 1000000ull

static struct gh h;
static uint8_t data[70000];

static struct gtoe_seg opts(uint32_t tsval)
{
	struct gtoe_seg o;
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = 1408;
	o.sack_ok = 1;
	o.has_ts = 1;
	o.tsval = tsval;
	return o;
}

/* Peer data [off, off+n) of the stream (stream offset 0 = seq 1001). */
static void pdata(uint64_t now, uint32_t off, uint32_t n, uint32_t ack)
{
	struct gtoe_seg o = opts(100 + (uint32_t)(now / MS));
	o.has_mss = o.sack_ok = 0;
	gh_peer(&h, now, TCP_ACK, 1001 + off, ack, 65535, data + off, n, &o);
}

static void test_delack_quickack(void)
{
	struct gtoe_seg o = opts(100);
	int32_t c;
	uint32_t ack;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gh_connect(&h, 0, 1000, &o);
	ack = h.g->conn[c].snd_nxt;
	/* one segment: no ACK yet, the delayed-ACK timer (40 ms) runs */
	pdata(1 * MS, 0, 1000, ack);
	CHECK_EQ(gh_out(&h, 1 * MS), 0);
	gtoe_poll(h.g, 40 * MS);
	CHECK_EQ(gh_out(&h, 40 * MS), 0);
	gtoe_poll(h.g, 41 * MS);
	CHECK_EQ(gh_out(&h, 41 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 2001);
	CHECK_EQ(h.g->conn[c].st.delayed_acks, 1);
	/* two segments: ACK at once (RFC 5681 4.2: at least every second segment) */
	pdata(50 * MS, 1000, 1000, ack);
	CHECK_EQ(gh_out(&h, 50 * MS), 0);
	pdata(50 * MS, 2000, 1000, ack);
	CHECK_EQ(gh_out(&h, 50 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 4001);
	gtoe_poll(h.g, 100 * MS);
	CHECK_EQ(gh_out(&h, 100 * MS), 0); /* the timer was cancelled */
	/* quick-ACK mode: every segment */
	gtoe_set_quickack(h.g, c, 1);
	pdata(110 * MS, 3000, 10, ack);
	CHECK_EQ(gh_out(&h, 110 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 4011);
	CHECK_EQ(h.out[0].s.tsecr, 210); /* TS.Recent of that segment (now 110 ms + 100) */
	gh_ev(&h);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_DATA), 1);
	CHECK_EQ(gtoe_readable(h.g, c), 3010);
	gh_free(&h);
}

/* Market-data-sized segments (a STEP message of ~100 bytes each, far below
 * the MSS): the delayed-ACK rule counts segments, not full-sized ones, so the
 * second small segment is ACKed at once (RFC 1122 4.2.3.2, RFC 5681 4.2);
 * a lone one waits for the timer. In quick-ACK mode (what toed's own
 * connections use, dp_tcp.c) every small segment is ACKed at once, and a
 * burst taken in before the endpoint transmits gets one cumulative ACK. */
static void test_small_segments(void)
{
	struct gtoe_seg o = opts(100);
	struct gtoe_cfg cfg;
	int32_t c;
	uint32_t ack, off = 0;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gh_connect(&h, 0, 1000, &o);
	ack = h.g->conn[c].snd_nxt;
	pdata(1 * MS, off, 103, ack);
	off += 103;
	CHECK_EQ(gh_out(&h, 1 * MS), 0);
	pdata(1 * MS, off, 103, ack);
	off += 103;
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1001 + off);
	CHECK_EQ(h.g->conn[c].st.quick_acks, 1);
	CHECK_EQ(h.g->conn[c].st.delayed_acks, 0);
	/* three before the endpoint transmits: one ACK for all of them, at once */
	for (int i = 0; i < 3; i++, off += 103)
		pdata(2 * MS, off, 103, ack);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1001 + off);
	/* a lone small segment: the timer (40 ms) */
	pdata(3 * MS, off, 103, ack);
	off += 103;
	CHECK_EQ(gh_out(&h, 3 * MS), 0);
	gtoe_poll(h.g, 43 * MS);
	CHECK_EQ(gh_out(&h, 43 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1001 + off);
	CHECK_EQ(h.g->conn[c].st.delayed_acks, 1);
	gh_free(&h);

	/* quick-ACK mode from the configuration, as dp_tcp sets it */
	gtoe_cfg_default(&cfg);
	cfg.quickack = 1;
	CHECK_EQ(gh_init(&h, &cfg), 0);
	c = gh_connect(&h, 0, 1000, &o);
	ack = h.g->conn[c].snd_nxt;
	off = 0;
	for (int i = 0; i < 5; i++, off += 103) {
		pdata(1 * MS, off, 103, ack);
		CHECK_EQ(gh_out(&h, 1 * MS), 1);
		CHECK_EQ(h.out[0].s.ack, 1001 + off + 103);
	}
	for (int i = 0; i < 4; i++, off += 103)
		pdata(2 * MS, off, 103, ack);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1001 + off);
	CHECK_EQ(h.g->conn[c].st.quick_acks, 9);
	CHECK_EQ(h.g->conn[c].st.delayed_acks, 0);
	gtoe_poll(h.g, 100 * MS);
	CHECK_EQ(gh_out(&h, 100 * MS), 0); /* no timer was left running */
	gh_free(&h);
}

static void test_sack_and_holes(void)
{
	struct gtoe_seg o = opts(100);
	struct gtoe_cfg cfg;
	int32_t c;
	uint32_t ack;
	uint8_t got[8000];
	gtoe_cfg_default(&cfg);
	cfg.max_ranges = 4;
	CHECK_EQ(gh_init(&h, &cfg), 0);
	c = gh_connect(&h, 0, 1000, &o);
	ack = h.g->conn[c].snd_nxt;
	/* stream offset o is seq 1001 + o; the hole is [0,1000) */
	pdata(1 * MS, 1000, 1000, ack);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1001);
	CHECK_EQ(h.out[0].s.nsack, 1);
	CHECK_EQ(h.out[0].s.sack[0][0], 2001);
	CHECK_EQ(h.out[0].s.sack[0][1], 3001);
	pdata(1 * MS, 3000, 1000, ack);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.nsack, 2);
	CHECK_EQ(h.out[0].s.sack[0][0], 4001); /* the newest first (RFC 2018 4) */
	CHECK_EQ(h.out[0].s.sack[1][0], 2001);
	/* two out-of-order segments before the endpoint transmits: still two duplicate ACKs */
	pdata(1 * MS, 5000, 500, ack);
	pdata(1 * MS, 6000, 500, ack);
	CHECK_EQ(gh_out(&h, 1 * MS), 2);
	CHECK_EQ(h.out[0].s.ack, 1001);
	CHECK_EQ(h.out[1].s.ack, 1001);
	CHECK_EQ(h.out[1].s.nsack, 3); /* at most 3 beside timestamps */
	CHECK_EQ(h.out[1].s.sack[0][0], 7001);
	CHECK_EQ(h.out[1].s.sack[1][0], 6001);
	CHECK_EQ(h.out[1].s.sack[2][0], 4001);
	CHECK_EQ(h.g->conn[c].nranges, 4);
	/* a fifth separate range does not fit max_ranges = 4: dropped, counted, ACKed */
	pdata(1 * MS, 8000, 500, ack);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.g->conn[c].nranges, 4);
	CHECK_EQ(h.g->conn[c].st.ooo_drops, 1);
	CHECK_EQ(h.g->st.drop_ranges_full, 1);
	/* [2000,3000) joins two ranges */
	pdata(2 * MS, 2000, 1000, ack);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.sack[0][0], 2001);
	CHECK_EQ(h.out[0].s.sack[0][1], 5001);
	CHECK_EQ(h.g->conn[c].nranges, 3);
	/* a duplicate inside a range changes nothing */
	pdata(2 * MS, 3500, 100, ack);
	gh_out(&h, 2 * MS);
	CHECK_EQ(h.g->conn[c].nranges, 3);
	/* the first hole fills: immediate ACK up to the next hole */
	pdata(3 * MS, 0, 1000, ack);
	CHECK_EQ(gh_out(&h, 3 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 5001);
	CHECK_EQ(h.out[0].s.nsack, 2);
	CHECK_EQ(h.out[0].s.sack[0][0], 7001);
	CHECK_EQ(h.out[0].s.sack[1][0], 6001);
	CHECK_EQ(gtoe_recv(h.g, c, got, sizeof got), 4000);
	CHECK_MEM(got, data, 4000);
	/* old data entirely: a duplicate, ACKed at once */
	pdata(4 * MS, 0, 1000, ack);
	CHECK_EQ(gh_out(&h, 4 * MS), 1);
	CHECK_EQ(h.g->conn[c].st.dup_segs, 1);
	/* partly old, filling [4000,5000): joins [5000,5500) */
	pdata(4 * MS, 3500, 1500, ack);
	CHECK_EQ(gh_out(&h, 4 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1001 + 5500);
	CHECK_EQ(gtoe_recv(h.g, c, got, sizeof got), 1500);
	CHECK_MEM(got, data + 4000, 1500);
	gh_free(&h);
}

static void test_window(void)
{
	struct gtoe_seg o = opts(100);
	int32_t c;
	uint32_t ack, off = 0, k, n;
	const uint8_t *p;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gh_connect(&h, 0, 1000, &o);
	ack = h.g->conn[c].snd_nxt;
	gtoe_set_quickack(h.g, c, 1);
	/* 23 full segments of 1396: the window shrinks with the unread data */
	for (k = 0; k < 23; k++) {
		pdata(1 * MS, off, 1396, ack);
		off += 1396;
		CHECK_EQ(gh_out(&h, 1 * MS), 1);
		CHECK_EQ(h.out[0].s.win, 32768 - off);
	}
	/* the rest of the buffer, and 100 bytes more: those are trimmed */
	n = 32768 - off;
	pdata(2 * MS, off, n + 100, ack);
	off += n;
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.win, 0);
	CHECK_EQ(h.out[0].s.ack, 1001 + 32768);
	CHECK_EQ(h.g->conn[c].st.trimmed_bytes, 100);
	CHECK_EQ(h.g->conn[c].st.zero_win_out, 1);
	/* zero window: only a segment at rcv_nxt with no data is acceptable; a probe gets an ACK */
	pdata(3 * MS, off, 1, ack);
	CHECK_EQ(gh_out(&h, 3 * MS), 1);
	CHECK_EQ(h.out[0].s.win, 0);
	CHECK_EQ(h.out[0].s.ack, 1001 + 32768);
	CHECK(h.g->st.drop_out_of_window >= 1);
	/* the data starts at seq 1001: the first run ends at the buffer's end */
	CHECK_EQ(gtoe_peek(h.g, c, &p), 32768 - 1001);
	CHECK_MEM(p, data, 32768 - 1001);
	/* reading less than an MSS sends nothing (receiver SWS avoidance) */
	CHECK_EQ(gtoe_consume(h.g, c, 1000), 1000);
	CHECK_EQ(gh_out(&h, 4 * MS), 0);
	/* reading an MSS worth sends a window update */
	CHECK_EQ(gtoe_consume(h.g, c, 1000), 1000);
	CHECK_EQ(gh_out(&h, 4 * MS), 1);
	CHECK_EQ(h.out[0].s.win, 2000);
	CHECK_EQ(h.g->conn[c].st.win_updates, 1);
	pdata(5 * MS, off, 2000, ack);
	CHECK_EQ(gtoe_readable(h.g, c), 32768);
	/* everything in at most two runs per wrap */
	for (k = 0, off = 2000; k < 4 && (n = gtoe_peek(h.g, c, &p)) > 0; k++) {
		CHECK_MEM(p, data + off, n);
		off += n;
		gtoe_consume(h.g, c, n);
	}
	CHECK_EQ(off, 2000 + 32768);
	gh_free(&h);
}

/* The peer fills the window to its edge and closes in the same segment:
 * the FIN takes a sequence number but no room, so the ACK of it says
 * window 0 (not a window wrapped past the buffer), toectl's free space is 0
 * and the data still reads whole, then end of stream. */
static void test_fin_at_window_edge(void)
{
	struct gtoe_seg o = opts(100);
	struct gtoe_info in;
	int32_t c;
	uint32_t ack, n;
	const uint8_t *p;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gh_connect(&h, 0, 1000, &o);
	ack = h.g->conn[c].snd_nxt;
	gtoe_set_quickack(h.g, c, 1);
	for (n = 0; n + 1396 < 32768; n += 1396) {
		pdata(1 * MS, n, 1396, ack);
		CHECK_EQ(gh_out(&h, 1 * MS), 1);
	}
	o = opts(101);
	o.has_mss = o.sack_ok = 0;
	gh_peer(&h, 2 * MS, TCP_ACK | TCP_FIN, 1001 + n, ack, 65535, data + n, 32768 - n, &o);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSE_WAIT);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1001 + 32768 + 1);
	CHECK_EQ(h.out[0].s.win, 0);
	CHECK_EQ(gtoe_info(h.g, c, &in), GTOE_OK);
	CHECK_EQ(in.rcv_wnd, 0);
	CHECK_EQ(in.readable, 32768);
	for (n = 0; (ack = gtoe_peek(h.g, c, &p)) > 0; n += ack) {
		CHECK_MEM(p, data + n, ack);
		gtoe_consume(h.g, c, ack);
	}
	CHECK_EQ(n, 32768);
	CHECK_EQ(gtoe_readable(h.g, c), 0);
	CHECK_EQ(gtoe_info(h.g, c, &in), GTOE_OK);
	CHECK_EQ(in.rcv_wnd, 32768);
	CHECK(gh_invariants(h.g) == NULL);
	gh_free(&h);
}

static void test_paws(void)
{
	struct gtoe_seg o = opts(5000);
	int32_t c;
	uint32_t ack;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gh_connect(&h, 0, 1000, &o);
	ack = h.g->conn[c].snd_nxt;
	o.has_mss = o.sack_ok = 0;
	o.tsval = 4000; /* older than TS.Recent 5000: an old duplicate */
	gh_peer(&h, 1 * MS, TCP_ACK, 1001, ack, 65535, data, 100, &o);
	CHECK_EQ(gtoe_readable(h.g, c), 0);
	CHECK_EQ(h.g->st.drop_paws, 1);
	CHECK_EQ(gh_out(&h, 1 * MS), 1); /* ACKed */
	o.tsval = 5001;
	gh_peer(&h, 1 * MS, TCP_ACK, 1001, ack, 65535, data, 100, &o);
	CHECK_EQ(gtoe_readable(h.g, c), 100);
	gh_free(&h);
}

int main(void)
{
	uint32_t i;
	for (i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7 + (i >> 8));
	test_delack_quickack();
	test_small_segments();
	test_sack_and_holes();
	test_window();
	test_fin_at_window_edge();
	test_paws();
	return test_done("gtoe_recv");
}
