/* test_gtoe_send.c - general TOE send side: initial window, slow start, RTO with backoff (RFC 6298),
 * fast retransmit and NewReno recovery (RFC 5681, 6582), limited transmit (RFC 3042), early
 * retransmit (RFC 5827), zero window and persist probes.
 *
 * Established without timestamps (MSS 1000 from the peer) so segments carry
 * exactly 1000 bytes and RTT samples come from Karn-timed segments.
 */
#include "test.h"
#include "gtoe_harness.h"

#define MS 1000000ull

static struct gh h;
static uint8_t data[32768];

static int32_t setup(void)
{
	struct gtoe_seg o;
	int32_t c;
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = 1000;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gh_connect(&h, 0, 1000, &o);
	CHECK_EQ(h.g->conn[c].mss, 1000);
	return c;
}

static void ack(uint64_t now, uint32_t a, uint16_t win)
{
	gh_peer(&h, now, TCP_ACK, 1001, a, win, NULL, 0, NULL);
}

static void test_iw_and_slow_start(void)
{
	int32_t c = setup();
	uint32_t una, i;
	una = h.g->conn[c].snd_una;
	CHECK_EQ(gtoe_send(h.g, c, data, 30000), 30000);
	CHECK_EQ(gtoe_writable(h.g, c), 32768 - 30000);
	CHECK_EQ(gh_out(&h, 0), 10); /* RFC 6928: 10 segments */
	for (i = 0; i < 10; i++) {
		CHECK_EQ(h.out[i].s.seq, una + 1000 * i);
		CHECK_EQ(h.out[i].plen, 1000);
		CHECK_MEM(h.out[i].buf, data + 1000 * i, 1000);
		CHECK_EQ(h.out[i].s.flags, TCP_ACK | TCP_PSH);
	}
	/* ACK of 2 segments: cwnd grows by min(acked, MSS) (RFC 5681 3.1), 3 more go out */
	ack(10 * MS, una + 2000, 65535);
	CHECK_EQ(h.g->conn[c].cwnd, 11000);
	CHECK_EQ(gh_out(&h, 10 * MS), 3);
	CHECK_EQ(h.out[0].s.seq, una + 10000);
	gh_ev(&h);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_WRITABLE), 1);
	CHECK_EQ(gtoe_writable(h.g, c), 32768 - 28000);
	/* RFC 6298: the SYN's sample (1 us) then the timed first segment (10 ms):
	 * RTTVAR = 3/4 * 500 + 1/4 * |1000 - 10^7|, SRTT = 7/8 * 1000 + 10^7 / 8 */
	CHECK_EQ(h.g->conn[c].st.rtt_samples, 2);
	CHECK_EQ(h.g->conn[c].srtt, 875 + 1250000);
	CHECK_EQ(h.g->conn[c].rttvar, 375 + 2499750);
	CHECK_EQ(h.g->conn[c].rto, 200 * MS); /* SRTT + 4 RTTVAR = 11.25 ms, raised to the 200 ms minimum */
	/* the peer's window limits too: window 3000 from una+2000 leaves nothing new */
	ack(11 * MS, una + 3000, 3000);
	CHECK_EQ(gh_out(&h, 11 * MS), 0);
	gh_free(&h);
}

static void test_rto_backoff(void)
{
	int32_t c = setup();
	uint32_t una = h.g->conn[c].snd_una, i;
	uint64_t t = 0, rto = 200 * MS; /* the handshake's sample (1 us) gives the minimum */
	gtoe_send(h.g, c, data, 3000);
	CHECK_EQ(gh_out(&h, 0), 3);
	for (i = 0; i < 3; i++) {
		gtoe_poll(h.g, t + rto - 1);
		CHECK_EQ(gh_out(&h, t + rto - 1), 0);
		t += rto;
		gtoe_poll(h.g, t);
		/* loss window: one segment from snd_una */
		CHECK_EQ(gh_out(&h, t), 1);
		CHECK_EQ(h.out[0].s.seq, una);
		CHECK_EQ(h.out[0].plen, 1000);
		CHECK_EQ(h.g->conn[c].cwnd, 1000);
		rto *= 2;
	}
	CHECK_EQ(h.g->conn[c].ssthresh, 2000);
	CHECK_EQ(h.g->conn[c].st.rto_expiries, 3);
	CHECK_EQ(h.g->conn[c].st.retrans, 3);
	CHECK_EQ(h.g->conn[c].rto, 1600 * MS);
	/* the ACK arrives: no RTT sample (Karn), the rest goes out again in slow start */
	ack(t + 5 * MS, una + 1000, 65535);
	CHECK_EQ(h.g->conn[c].st.rtt_samples, 1);
	CHECK_EQ(h.g->conn[c].cwnd, 2000);
	CHECK_EQ(gh_out(&h, t + 5 * MS), 2);
	CHECK_EQ(h.out[0].s.seq, una + 1000);
	CHECK_EQ(h.out[1].s.seq, una + 2000);
	CHECK_EQ(h.g->conn[c].st.retrans, 5);
	ack(t + 6 * MS, una + 3000, 65535);
	CHECK_EQ(h.g->conn[c].rto_at, 0);
	gh_free(&h);
}

static void test_give_up(void)
{
	struct gtoe_cfg cfg;
	struct gtoe_seg o;
	int32_t c;
	uint64_t t = 0;
	uint32_t i;
	gtoe_cfg_default(&cfg);
	cfg.data_retries = 2;
	memset(&o, 0, sizeof o);
	CHECK_EQ(gh_init(&h, &cfg), 0);
	c = gh_connect(&h, 0, 1000, &o);
	gtoe_send(h.g, c, data, 10);
	gh_out(&h, 0);
	for (i = 0; i < 3; i++) {
		t += 60000 * MS;
		gtoe_poll(h.g, t);
		gh_out(&h, t);
	}
	CHECK_EQ(h.nout, 1);
	CHECK_EQ(h.out[0].s.flags, TCP_RST | TCP_ACK);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSED);
	gh_ev(&h);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_ERROR), 1);
	gh_free(&h);
}

static void test_fast_retransmit_newreno(void)
{
	int32_t c = setup();
	uint32_t una = h.g->conn[c].snd_una, i;
	gtoe_send(h.g, c, data, 20000);
	CHECK_EQ(gh_out(&h, 0), 10);
	/* segments 0 and 3 lost; the peer ACKs una again for each later arrival */
	ack(1 * MS, una, 65535);
	CHECK_EQ(gh_out(&h, 1 * MS), 1); /* RFC 3042 limited transmit: a new segment per early duplicate */
	CHECK_EQ(h.out[0].s.seq, una + 10000);
	ack(1 * MS, una, 65535);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, una + 11000);
	CHECK_EQ(h.g->conn[c].cwnd, 10000); /* cwnd itself unchanged */
	ack(1 * MS, una, 65535); /* third duplicate: fast retransmit */
	CHECK_EQ(h.g->conn[c].st.fast_retrans, 1);
	CHECK_EQ(h.g->conn[c].ssthresh, 6000); /* flight 12000 / 2 */
	CHECK_EQ(h.g->conn[c].cwnd, 9000);   /* ssthresh + 3 MSS */
	CHECK_EQ(h.g->conn[c].recover, una + 12000);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, una);
	/* more duplicates inflate cwnd by an MSS each: at 13000 (flight 12000) one new segment fits */
	for (i = 0; i < 3; i++)
		ack(2 * MS, una, 65535);
	CHECK_EQ(h.g->conn[c].cwnd, 12000);
	CHECK_EQ(gh_out(&h, 2 * MS), 0);
	ack(2 * MS, una, 65535);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, una + 12000);
	/* partial ACK up to the second hole: segment 3 is retransmitted at once (RFC 6582 3.2 step 5) */
	ack(3 * MS, una + 3000, 65535);
	CHECK_EQ(h.g->conn[c].st.partial_acks, 1);
	CHECK(h.g->conn[c].flags & GTOE_F_RECOVERY);
	CHECK(gh_out(&h, 3 * MS) >= 1);
	CHECK_EQ(h.out[0].s.seq, una + 3000);
	CHECK_EQ(h.out[0].plen, 1000);
	/* full ACK of everything up to recover: recovery ends, cwnd deflates to ssthresh at most */
	ack(4 * MS, una + 12000, 65535);
	CHECK(!(h.g->conn[c].flags & GTOE_F_RECOVERY));
	CHECK(h.g->conn[c].cwnd <= 6000);
	CHECK_EQ(h.g->conn[c].st.recoveries, 1);
	CHECK_EQ(h.g->conn[c].st.rto_expiries, 0);
	gh_free(&h);
}

/* RFC 5827: two segments out, nothing more to send, the first lost: one
 * duplicate ACK triggers the retransmission (no RTO wait). */
static void test_early_retransmit(void)
{
	int32_t c = setup();
	uint32_t una = h.g->conn[c].snd_una;
	gtoe_send(h.g, c, data, 2000);
	CHECK_EQ(gh_out(&h, 0), 2);
	ack(1 * MS, una, 65535);
	CHECK_EQ(h.g->conn[c].st.early_retrans, 1);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, una);
	ack(2 * MS, una + 2000, 65535);
	CHECK(!(h.g->conn[c].flags & GTOE_F_RECOVERY));
	CHECK_EQ(h.g->conn[c].st.rto_expiries, 0);
	gh_free(&h);
}

static void test_zero_window_probe(void)
{
	int32_t c = setup();
	uint32_t una = h.g->conn[c].snd_una;
	uint64_t t = 10 * MS;
	ack(t, una, 0); /* the peer closes its window */
	CHECK_EQ(h.g->conn[c].st.zero_win_in, 1);
	gtoe_send(h.g, c, data, 500);
	CHECK_EQ(gh_out(&h, t), 0); /* nothing may be sent; the persist timer starts */
	CHECK(h.g->conn[c].flags & GTOE_F_PERSIST);
	gtoe_poll(h.g, t + 1000 * MS);
	CHECK_EQ(gh_out(&h, t + 1000 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, una - 1); /* probe: old sequence number, no data */
	CHECK_EQ(h.out[0].plen, 0);
	ack(t + 1001 * MS, una, 0);
	gtoe_poll(h.g, t + 3000 * MS); /* backed off: 2 s later */
	CHECK_EQ(gh_out(&h, t + 3000 * MS), 1);
	CHECK_EQ(h.g->conn[c].st.zwp_out, 2);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED); /* answered probes never time out */
	/* the window opens: the data goes */
	ack(t + 3001 * MS, una, 1000);
	CHECK(!(h.g->conn[c].flags & GTOE_F_PERSIST));
	CHECK_EQ(gh_out(&h, t + 3001 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, una);
	CHECK_EQ(h.out[0].plen, 500);
	gh_free(&h);
}

/* The window closes while data is in flight and the ACKs stop: the RTO
 * retransmission goes out anyway (it is the probe), and a peer that keeps
 * answering with a zero window never times the connection out. */
static void test_zero_window_in_flight(void)
{
	struct gtoe_cfg cfg;
	struct gtoe_seg o;
	int32_t c;
	uint32_t una, i;
	uint64_t t = 0;
	gtoe_cfg_default(&cfg);
	cfg.data_retries = 3;
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = 1000;
	CHECK_EQ(gh_init(&h, &cfg), 0);
	c = gh_connect(&h, 0, 1000, &o);
	una = h.g->conn[c].snd_una;
	gtoe_send(h.g, c, data, 2000);
	CHECK_EQ(gh_out(&h, 0), 2);
	ack(1 * MS, una + 1000, 0); /* first segment taken, window now 0 */
	for (i = 0; i < 6; i++) {
		t += 60000 * MS;
		gtoe_poll(h.g, t);
		CHECK_EQ(gh_out(&h, t), 1);
		CHECK_EQ(h.out[0].s.seq, una + 1000);
		CHECK_EQ(h.out[0].plen, 1000);
		ack(t + 1 * MS, una + 1000, 0); /* still closed, but answering */
	}
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	ack(t + 2 * MS, una + 2000, 1000);
	CHECK_EQ(h.g->conn[c].snd_una, una + 2000);
	CHECK_EQ(h.g->conn[c].rto_at, 0);
	gh_free(&h);
}

/* With SACK: three segments of one window lost (0, 3, 6); the duplicate
 * ACKs' SACK blocks show the holes, and all three are retransmitted before
 * any partial ACK (NewReno alone would take three round trips). */
static void sack_ack(uint64_t now, uint32_t a, uint32_t n, const uint32_t (*blk)[2])
{
	struct gtoe_seg o;
	uint32_t i;
	memset(&o, 0, sizeof o);
	o.nsack = (uint8_t)n;
	for (i = 0; i < n; i++) {
		o.sack[i][0] = blk[i][0];
		o.sack[i][1] = blk[i][1];
	}
	gh_peer(&h, now, TCP_ACK, 1001, a, 65535, NULL, 0, &o);
}

static void test_sack_recovery(void)
{
	struct gtoe_seg o;
	int32_t c;
	uint32_t u, b[3][2];
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = 1000;
	o.sack_ok = 1;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gh_connect(&h, 0, 1000, &o);
	CHECK_EQ(h.g->conn[c].sack_ok, 1);
	u = h.g->conn[c].snd_una;
	gtoe_send(h.g, c, data, 10000); /* exactly the initial window: no new data to send */
	CHECK_EQ(gh_out(&h, 0), 10);
	b[0][0] = u + 1000; b[0][1] = u + 2000;
	sack_ack(1 * MS, u, 1, b);
	b[0][1] = u + 3000;
	sack_ack(1 * MS, u, 1, b);
	CHECK_EQ(gh_out(&h, 1 * MS), 0); /* nothing new to send (limited transmit has no data) */
	b[1][0] = b[0][0]; b[1][1] = b[0][1];
	b[0][0] = u + 4000; b[0][1] = u + 5000;
	sack_ack(1 * MS, u, 2, b); /* third duplicate: snd_una again */
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, u);
	b[0][1] = u + 6000;
	sack_ack(1 * MS, u, 2, b); /* the hole at 3000 */
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, u + 3000);
	CHECK_EQ(h.out[0].plen, 1000);
	b[2][0] = b[1][0]; b[2][1] = b[1][1];
	b[1][0] = b[0][0]; b[1][1] = b[0][1];
	b[0][0] = u + 7000; b[0][1] = u + 8000;
	sack_ack(1 * MS, u, 3, b); /* the hole at 6000 */
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, u + 6000);
	CHECK_EQ(h.g->conn[c].st.sack_rtx, 2);
	CHECK_EQ(h.g->conn[c].nsacked, 3);
	/* no hole is known beyond 8000: more duplicates send nothing again */
	b[0][1] = u + 10000;
	sack_ack(1 * MS, u, 3, b);
	gh_out(&h, 1 * MS);
	CHECK_EQ(h.g->conn[c].st.retrans, 3);
	/* one ACK of everything: recovery over, no partial ACK was needed */
	ack(2 * MS, u + 10000, 65535);
	CHECK(!(h.g->conn[c].flags & GTOE_F_RECOVERY));
	CHECK_EQ(h.g->conn[c].st.partial_acks, 0);
	CHECK_EQ(h.g->conn[c].nsacked, 0);
	CHECK_EQ(h.g->conn[c].st.rto_expiries, 0);
	gh_free(&h);
}

int main(void)
{
	uint32_t i;
	for (i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 13 + (i >> 10));
	test_iw_and_slow_start();
	test_rto_backoff();
	test_give_up();
	test_fast_retransmit_newreno();
	test_early_retransmit();
	test_sack_recovery();
	test_zero_window_probe();
	test_zero_window_in_flight();
	return test_done("gtoe_send");
}
