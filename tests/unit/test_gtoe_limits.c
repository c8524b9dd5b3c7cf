/* test_gtoe_limits.c - general TOE: per-connection MSS and receive window (gtoe_set_limits, gtoe_listen_limits).
 *
 * The card's connection table gives each entry its own MSS and window
 * (gtoe_top); the endpoint takes them per connection: the SYN and SYN-ACK
 * offer the connection's MSS and window (and the window scale that window
 * needs), the negotiated MSS is min(ours, peer's), the advertised window
 * and the acceptability test stop at the connection's window although the
 * slot's buffer is the configuration's. Out-of-range values and limits set
 * after the SYN left are refused.
 */
#include "test.h"
#include "gtoe_harness.h"

#define MS 1000000ull

static struct gh h;

static void test_active(void)
{
	struct gtoe_seg o;
	struct gtoe_info in;
	struct gtoe_cfg cfg;
	int32_t c;
	uint32_t iss;
	gtoe_cfg_default(&cfg);
	cfg.rcv_buf = 1u << 17; /* 128 KB: a scale of 2 for the whole buffer */
	cfg.quickack = 1;
	CHECK_EQ(gh_init(&h, &cfg), 0);
	c = gtoe_connect(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, 0);
	CHECK(c >= 0);
	/* refused: MSS above the configuration's or below 64, window beyond the buffer or below the minimum */
	CHECK_EQ(gtoe_set_limits(h.g, c, 1409, 0), GTOE_ERR_MSS);
	CHECK_EQ(gtoe_set_limits(h.g, c, 63, 0), GTOE_ERR_MSS);
	CHECK_EQ(gtoe_set_limits(h.g, c, 0, (1u << 17) + 1), GTOE_ERR_BUFSZ);
	CHECK_EQ(gtoe_set_limits(h.g, c, 0, 1024), GTOE_ERR_BUFSZ);
	CHECK_EQ(gtoe_set_limits(h.g, c + 1, 512, 4096), GTOE_ERR_CONN);
	CHECK_EQ(gtoe_set_limits(h.g, c, 512, 4096), GTOE_OK);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_SYN);
	CHECK_EQ(h.out[0].s.mss, 512);
	CHECK_EQ(h.out[0].s.win, 4096);
	CHECK_EQ(h.out[0].s.has_ws, 1);
	CHECK_EQ(h.out[0].s.ws, 0); /* 4 KB needs no scale; the 128 KB buffer would */
	iss = h.out[0].s.seq;
	/* too late once the SYN is out */
	CHECK_EQ(gtoe_set_limits(h.g, c, 1000, 0), GTOE_ERR_CONN);
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = 1460;
	o.has_ws = 1;
	o.ws = 0;
	gh_peer(&h, 1 * MS, TCP_SYN | TCP_ACK, 1000, iss + 1, 60000, NULL, 0, &o);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	CHECK_EQ(gtoe_info(h.g, c, &in), GTOE_OK);
	CHECK_EQ(in.mss, 512); /* min(ours, 1460) */
	CHECK_EQ(in.cwnd, 10 * 512);
	CHECK_EQ(in.rcv_wnd, 4096);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.win, 4096);
	/* data: the window shrinks from 4096, not from the buffer's size */
	{
		static uint8_t d[4096];
		gh_peer(&h, 2 * MS, TCP_ACK, 1001, iss + 1, 60000, d, 1000, &o);
		CHECK_EQ(gh_out(&h, 2 * MS), 1);
		CHECK_EQ(h.out[0].s.ack, 2001);
		CHECK_EQ(h.out[0].s.win, 3096);
		/* beyond the connection's window: trimmed to it although the buffer has room */
		gh_peer(&h, 3 * MS, TCP_ACK, 2001, iss + 1, 60000, d, 4000, &o);
		CHECK_EQ(gh_out(&h, 3 * MS), 1);
		CHECK_EQ(h.out[0].s.ack, 2001 + 3096);
		CHECK_EQ(h.out[0].s.win, 0);
		CHECK_EQ(gtoe_readable(h.g, c), 4096);
		/* reading it all opens the window to 4096 again (a window update) */
		CHECK_EQ(gtoe_consume(h.g, c, 4096), 4096);
		CHECK_EQ(gh_out(&h, 4 * MS), 1);
		CHECK_EQ(h.out[0].s.win, 4096);
	}
	/* a second connection without limits: the configuration's */
	c = gtoe_connect(h.g, GH_US, GH_PORT + 1, GH_PEER, GH_PEER_PORT, 5 * MS);
	CHECK(c >= 0);
	CHECK_EQ(gtoe_set_limits(h.g, c, 0, 0), GTOE_OK);
	CHECK_EQ(gh_out(&h, 5 * MS), 1);
	CHECK_EQ(h.out[0].s.mss, 1408);
	CHECK_EQ(h.out[0].s.win, 65535);
	CHECK_EQ(h.out[0].s.ws, 2);
	gh_free(&h);
}

static void test_passive(void)
{
	struct gtoe_seg o;
	struct gtoe_info in;
	int32_t l, l2, c;
	uint32_t iss;
	CHECK_EQ(gh_init(&h, NULL), 0);
	l = gtoe_listen(h.g, GH_US, GH_PORT);
	CHECK(l >= 0);
	CHECK_EQ(gtoe_listen_limits(h.g, l, 2000, 0), GTOE_ERR_MSS);
	CHECK_EQ(gtoe_listen_limits(h.g, l, 0, 65536), GTOE_ERR_BUFSZ); /* beyond the 32 KB buffer */
	CHECK_EQ(gtoe_listen_limits(h.g, l + 1, 1024, 8192), GTOE_ERR_CONN);
	CHECK_EQ(gtoe_listen_limits(h.g, l, 1024, 8192), GTOE_OK);
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = 1460;
	gh_peer(&h, 0, TCP_SYN, 5000, 0, 30000, NULL, 0, &o);
	c = gtoe_find(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT);
	CHECK(c >= 0);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_SYN | TCP_ACK);
	CHECK_EQ(h.out[0].s.mss, 1024);
	CHECK_EQ(h.out[0].s.win, 8192);
	iss = h.out[0].s.seq;
	gh_peer(&h, 1 * MS, TCP_ACK, 5001, iss + 1, 30000, NULL, 0, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	CHECK_EQ(gtoe_info(h.g, c, &in), GTOE_OK);
	CHECK_EQ(in.mss, 1024);
	CHECK_EQ(in.rcv_wnd, 8192);
	/* a listener taken again starts without limits: a SYN from another port of the peer */
	CHECK_EQ(gtoe_unlisten(h.g, l), GTOE_OK);
	l2 = gtoe_listen(h.g, GH_US, GH_PORT);
	CHECK_EQ(l2, l);
	o.saddr = GH_PEER;
	o.daddr = GH_US;
	o.sport = GH_PEER_PORT + 1;
	o.dport = GH_PORT;
	o.flags = TCP_SYN;
	o.seq = 9000;
	o.win = 30000;
	gtoe_input_seg(h.g, &o, 2 * MS);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_SYN | TCP_ACK);
	CHECK_EQ(h.out[0].s.mss, 1408);
	CHECK_EQ(h.out[0].s.win, 32768);
	gh_free(&h);
}

int main(void)
{
	test_active();
	test_passive();
	return test_done("gtoe_limits");
}
