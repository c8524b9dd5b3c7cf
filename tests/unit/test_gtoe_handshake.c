/* test_gtoe_handshake.c - general TOE: opening connections (RFC 9293 3.5) and the options (RFC 7323, 2018).
 *
 * Crafted segments against one endpoint: active open, passive open, a
 * retransmitted SYN in SYN-RECEIVED, simultaneous open, options negotiated
 * both ways (all offered, none offered: MSS 536 default), an RST to a closed
 * port, RST and bad ACKs in SYN-SENT, SYN retransmission with exponential
 * backoff and giving up.
 */
#include "test.h"
#include "gtoe_harness.h"

#define MS 1000000ull

static struct gh h;

static struct gtoe_seg all_opts(uint16_t mss, uint8_t ws)
{
	struct gtoe_seg o;
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = mss;
	o.has_ws = 1;
	o.ws = ws;
	o.sack_ok = 1;
	o.has_ts = 1;
	o.tsval = 777;
	return o;
}

static void test_active_open(void)
{
	struct gtoe_seg o = all_opts(1460, 7);
	struct gtoe_info in;
	int32_t c;
	uint32_t iss;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gtoe_connect(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, 0);
	CHECK(c >= 0);
	CHECK_EQ(h.g->conn[c].state, GTOE_SYN_SENT);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_SYN);
	CHECK_EQ(h.out[0].s.has_mss, 1);
	CHECK_EQ(h.out[0].s.mss, 1408);
	CHECK_EQ(h.out[0].s.has_ws, 1);
	CHECK_EQ(h.out[0].s.ws, 0); /* 32 KB fits 16 bits */
	CHECK_EQ(h.out[0].s.sack_ok, 1);
	CHECK_EQ(h.out[0].s.has_ts, 1);
	CHECK_EQ(h.out[0].s.win, 32768);
	iss = h.out[0].s.seq;
	CHECK_EQ(gh_out(&h, 0), 0); /* nothing more until the timer */
	gh_peer(&h, 5 * MS, TCP_SYN | TCP_ACK, 1000, iss + 1, 40000, NULL, 0, &o);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	CHECK_EQ(gh_out(&h, 5 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_ACK);
	CHECK_EQ(h.out[0].s.seq, iss + 1);
	CHECK_EQ(h.out[0].s.ack, 1001);
	CHECK_EQ(h.out[0].s.has_ts, 1);
	CHECK_EQ(h.out[0].s.tsecr, 777);
	CHECK_EQ(h.out[0].s.tsval, 5);
	CHECK_EQ(gh_ev(&h), 1);
	CHECK_EQ(h.ev[0].type, GTOE_EV_CONNECTED);
	CHECK_EQ(h.ev[0].listener, -1);
	CHECK_EQ(gtoe_info(h.g, c, &in), GTOE_OK);
	CHECK_EQ(in.mss, 1408); /* min(ours, 1460) */
	CHECK_EQ(in.snd_ws, 7);
	CHECK_EQ(in.sack_ok, 1);
	CHECK_EQ(in.ts_ok, 1);
	CHECK_EQ(in.snd_wnd, 40000); /* a SYN-ACK's window is never scaled */
	CHECK_EQ(in.cwnd, 10 * 1408); /* RFC 6928 */
	CHECK(in.srtt_ns >= 4 * MS && in.srtt_ns <= 6 * MS); /* timed SYN: 5 ms */
	CHECK_EQ(in.st.rtt_samples, 1);
	/* the peer's window now scales by 2^7 */
	gh_peer(&h, 6 * MS, TCP_ACK, 1001, iss + 1, 100, NULL, 0, &o);
	gtoe_info(h.g, c, &in);
	CHECK_EQ(in.snd_wnd, 100u << 7);
	/* an echoed timestamp from the future gives no RTT sample (a broken or hostile peer) */
	CHECK_EQ(gtoe_send(h.g, c, (const uint8_t *)"0123456789", 10), 10);
	CHECK_EQ(gh_out(&h, 7 * MS), 1);
	o.tsecr = 0x7fffffffu;
	gh_peer(&h, 8 * MS, TCP_ACK, 1001, iss + 11, 100, NULL, 0, &o);
	CHECK_EQ(h.g->conn[c].snd_una, iss + 11);
	CHECK_EQ(h.g->conn[c].st.rtt_samples, 1);
	CHECK_EQ(gtoe_connect(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, 0), GTOE_ERR_BUSY);
	CHECK_EQ(h.g->st.connects, 1);
	gh_free(&h);
}

static void test_no_options(void)
{
	struct gtoe_info in;
	int32_t c;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gh_connect(&h, 0, 5000, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	gtoe_info(h.g, c, &in);
	CHECK_EQ(in.mss, 536); /* RFC 9293 3.7.1: no MSS option */
	CHECK_EQ(in.sack_ok, 0);
	CHECK_EQ(in.ts_ok, 0);
	CHECK_EQ(in.snd_ws, 0);
	CHECK_EQ(in.rcv_ws, 0);
	CHECK_EQ(h.out[0].s.has_ts, 0);
	gh_free(&h);
}

static void test_passive_open(void)
{
	struct gtoe_seg o;
	int32_t l, c;
	uint32_t iss;
	struct gtoe_cfg cfg;
	gtoe_cfg_default(&cfg);
	cfg.rcv_buf = 1u << 18; /* 256 KB: needs a window scale of 3 */
	CHECK_EQ(gh_init(&h, &cfg), 0);
	l = gtoe_listen(h.g, 0, GH_PORT);
	CHECK_EQ(l, 0);
	CHECK_EQ(gtoe_listen(h.g, 0, GH_PORT), GTOE_ERR_BUSY);
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = 1000;
	o.has_ts = 1;
	o.tsval = 5;
	o.has_ws = 1;
	o.ws = 3;
	gh_peer(&h, 0, TCP_SYN, 0xfffffff0u, 0, 8192, NULL, 0, &o);
	c = gtoe_find(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT);
	CHECK(c >= 0);
	CHECK_EQ(h.g->conn[c].state, GTOE_SYN_RCVD);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_SYN | TCP_ACK);
	CHECK_EQ(h.out[0].s.ack, 0xfffffff1u);
	CHECK_EQ(h.out[0].s.sack_ok, 0); /* not offered by the peer: not in the SYN-ACK */
	CHECK_EQ(h.out[0].s.has_ts, 1);
	CHECK_EQ(h.out[0].s.tsecr, 5);
	CHECK_EQ(h.out[0].s.has_ws, 1);
	CHECK_EQ(h.out[0].s.ws, 3); /* 2^18 >> 2 is 65536: one too many for 16 bits */
	CHECK_EQ(h.out[0].s.win, 65535); /* unscaled in a SYN */
	iss = h.out[0].s.seq;
	/* the peer retransmits its SYN: the SYN-ACK again, same ISN */
	gh_peer(&h, 1 * MS, TCP_SYN, 0xfffffff0u, 0, 8192, NULL, 0, &o);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_SYN | TCP_ACK);
	CHECK_EQ(h.out[0].s.seq, iss);
	CHECK_EQ(gh_ev(&h), 0);
	o.tsval = 6;
	o.tsecr = 0;
	gh_peer(&h, 2 * MS, TCP_ACK, 0xfffffff1u, iss + 1, 100, NULL, 0, &o);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	CHECK_EQ(gh_ev(&h), 1);
	CHECK_EQ(h.ev[0].type, GTOE_EV_CONNECTED);
	CHECK_EQ(h.ev[0].listener, 0);
	CHECK_EQ(h.g->conn[c].snd_wnd, 800u); /* 100 << 3 */
	CHECK_EQ(h.g->conn[c].mss, 1000);
	CHECK_EQ(h.g->conn[c].cwnd, 10 * 1000); /* RFC 6928; the SYN-ACK's ACK grows nothing (RFC 5681 3.1) */
	CHECK_EQ(h.g->st.accepts, 1);
	/* our window is scaled by 8 now */
	gh_peer(&h, 3 * MS, TCP_ACK | TCP_PSH, 0xfffffff1u, iss + 1, 100, "abc", 3, &o);
	gtoe_set_quickack(h.g, c, 1);
	gh_peer(&h, 3 * MS, TCP_ACK | TCP_PSH, 0xfffffff4u, iss + 1, 100, "def", 3, &o);
	CHECK_EQ(gh_out(&h, 3 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 0xfffffff7u);
	CHECK_EQ(h.out[0].s.win, ((1u << 18) - 6) >> 3);
	/* a SYN on the established connection, in window: challenge ACK (RFC 5961 4.2), state kept */
	gh_peer(&h, 4 * MS, TCP_SYN, 0xfffffff7u + 100, 0, 100, NULL, 0, NULL);
	CHECK_EQ(gh_out(&h, 4 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_ACK);
	CHECK_EQ(h.out[0].s.ack, 0xfffffff7u);
	CHECK_EQ(h.g->st.challenge_acks, 1);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	/* out of window: an ACK too (the acceptability test), no challenge counted */
	gh_peer(&h, 4 * MS, TCP_SYN, 0x70000000u, 0, 100, NULL, 0, NULL);
	CHECK_EQ(gh_out(&h, 4 * MS), 1);
	CHECK_EQ(h.g->st.challenge_acks, 1);
	gtoe_unlisten(h.g, l);
	gh_free(&h);
}

static void test_rst_closed_port(void)
{
	CHECK_EQ(gh_init(&h, NULL), 0);
	gh_peer(&h, 0, TCP_SYN, 100, 0, 100, NULL, 0, NULL);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_RST | TCP_ACK);
	CHECK_EQ(h.out[0].s.seq, 0);
	CHECK_EQ(h.out[0].s.ack, 101);
	CHECK_EQ(h.out[0].s.conn, -1);
	gh_peer(&h, 0, TCP_ACK, 100, 5555, 100, "xy", 2, NULL);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_RST);
	CHECK_EQ(h.out[0].s.seq, 5555);
	gh_peer(&h, 0, TCP_RST, 100, 0, 100, NULL, 0, NULL);
	CHECK_EQ(gh_out(&h, 0), 0); /* never answer an RST */
	CHECK_EQ(h.g->st.drop_no_conn, 3);
	CHECK_EQ(h.g->st.out_rst, 2);
	gh_free(&h);
}

static void test_simultaneous_open(void)
{
	struct gtoe_seg o = all_opts(1408, 0);
	int32_t c;
	uint32_t iss;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gtoe_connect(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, 0);
	gh_out(&h, 0);
	iss = h.out[0].s.seq;
	/* the peer's SYN crosses ours */
	gh_peer(&h, 1 * MS, TCP_SYN, 9000, 0, 30000, NULL, 0, &o);
	CHECK_EQ(h.g->conn[c].state, GTOE_SYN_RCVD);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_SYN | TCP_ACK);
	CHECK_EQ(h.out[0].s.seq, iss);
	CHECK_EQ(h.out[0].s.ack, 9001);
	/* then its SYN-ACK answering our SYN */
	gh_peer(&h, 2 * MS, TCP_SYN | TCP_ACK, 9000, iss + 1, 30000, NULL, 0, &o);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	CHECK_EQ(gh_ev(&h), 1);
	CHECK_EQ(h.ev[0].type, GTOE_EV_CONNECTED);
	CHECK_EQ(h.g->st.challenge_acks, 0);
	CHECK_EQ(gtoe_send(h.g, c, (const uint8_t *)"hi", 2), 2);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, iss + 1);
	CHECK_EQ(h.out[0].plen, 2);
	gh_free(&h);
}

static void test_syn_sent_rst_and_bad_ack(void)
{
	int32_t c;
	uint32_t iss;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gtoe_connect(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, 0);
	gh_out(&h, 0);
	iss = h.out[0].s.seq;
	/* an ACK of something else: RST with that sequence number, stay in SYN-SENT */
	gh_peer(&h, 1, TCP_SYN | TCP_ACK, 50, iss + 7, 100, NULL, 0, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_SYN_SENT);
	CHECK_EQ(gh_out(&h, 1), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_RST);
	CHECK_EQ(h.out[0].s.seq, iss + 7);
	/* RST without ACK: ignored */
	gh_peer(&h, 2, TCP_RST, 50, 0, 0, NULL, 0, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_SYN_SENT);
	/* RST with the right ACK: refused */
	gh_peer(&h, 3, TCP_RST | TCP_ACK, 0, iss + 1, 0, NULL, 0, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSED);
	CHECK_EQ(gh_ev(&h), 1);
	CHECK_EQ(h.ev[0].type, GTOE_EV_ERROR);
	CHECK_EQ(h.ev[0].reason, GTOE_ERR_REFUSED);
	CHECK_EQ(h.g->st.drop_syn_sent_bad, 2);
	CHECK_EQ(gtoe_release(h.g, c), GTOE_OK);
	CHECK_EQ(h.g->conn[c].state, GTOE_FREE);
	gh_free(&h);
}

static void test_syn_retransmission(void)
{
	struct gtoe_cfg cfg;
	int32_t c;
	uint64_t t = 0, gap;
	uint32_t iss, i;
	gtoe_cfg_default(&cfg);
	cfg.syn_retries = 3;
	CHECK_EQ(gh_init(&h, &cfg), 0);
	c = gtoe_connect(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, 0);
	gh_out(&h, 0);
	iss = h.out[0].s.seq;
	gap = 1000 * MS; /* initial RTO 1 s, then 2, 4 */
	for (i = 0; i < 3; i++) {
		gtoe_poll(h.g, t + gap - 1);
		CHECK_EQ(gh_out(&h, t + gap - 1), 0);
		t += gap;
		gtoe_poll(h.g, t);
		CHECK_EQ(gh_out(&h, t), 1);
		CHECK_EQ(h.out[0].s.flags, TCP_SYN);
		CHECK_EQ(h.out[0].s.seq, iss);
		gap *= 2;
	}
	CHECK_EQ(h.g->conn[c].st.syn_retrans, 3);
	t += gap;
	gtoe_poll(h.g, t);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSED);
	CHECK_EQ(gh_out(&h, t), 0);
	CHECK_EQ(gh_ev(&h), 1);
	CHECK_EQ(h.ev[0].type, GTOE_EV_ERROR);
	CHECK_EQ(h.ev[0].reason, GTOE_ERR_TIMEOUT);
	CHECK_EQ(h.g->st.timeouts, 1);
	gh_free(&h);
}

static void test_init_errors(void)
{
	struct gtoe_cfg cfg;
	gtoe_cfg_default(&cfg);
	cfg.rcv_buf = 3000;
	CHECK_EQ(gh_init(&h, &cfg), GTOE_ERR_BUFSZ);
	gh_free(&h);
	gtoe_cfg_default(&cfg);
	cfg.max_conns = GTOE_MAX_CONNS + 1;
	CHECK_EQ(gh_init(&h, &cfg), GTOE_ERR_CONNS);
	gh_free(&h);
	gtoe_cfg_default(&cfg);
	cfg.max_conns = 1;
	CHECK_EQ(gh_init(&h, &cfg), 0);
	CHECK(gtoe_connect(h.g, GH_US, 0, GH_PEER, 80, 0) >= 0);
	CHECK_EQ(gtoe_connect(h.g, GH_US, 0, GH_PEER, 80, 0), GTOE_ERR_FULL);
	gh_free(&h);
}

int main(void)
{
	test_active_open();
	test_no_options();
	test_passive_open();
	test_rst_closed_port();
	test_simultaneous_open();
	test_syn_sent_rst_and_bad_ack();
	test_syn_retransmission();
	test_init_errors();
	return test_done("gtoe_handshake");
}
