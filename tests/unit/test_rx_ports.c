/* test_rx_ports.c - the receive pipeline with frames from several ports (rx_frame_port).
 *
 * The software backend receives [port.0]..[port.3] from one pipeline: a frame
 * carries the port it arrived on, and a feed of port N takes only frames of
 * port N. Cases: one TCP connection carried on port 1 decodes exactly through
 * port 1's flow and is ignored on port 2 (no flow there: counted not followed);
 * the same 4-tuple on two ports is two connections, each exact; the same UDP
 * port listened on two ports is two streams, and a datagram on a third port is
 * dropped and counted (rx.udp_other_port); each port has its own network
 * settings (a destination filter on port 1 only).
 */
#include "test_rx_common.h"

static struct tr_feed feed;

/* Frames of l through the pipeline as arriving on port in_port; with poll, rx_poll at each frame. */
static void run_port(struct tr_rx *t, const struct tr_frames *l, uint32_t in_port)
{
	for (uint32_t i = 0; i < l->n; i++) {
		rx_frame_port(t->p, in_port, l->f[i].buf, l->f[i].len, l->f[i].ts, NET_CSUM_UNKNOWN);
		tr_drain(t);
		rx_poll(t->p, l->f[i].ts);
		tr_drain(t);
	}
}

static void end_run(struct tr_rx *t)
{
	rx_poll(t->p, UINT64_MAX);
	tr_drain(t);
	CHECK_EQ(t->p->st.undrained, 0);
	CHECK_EQ(t->p->st.bad_stream, 0);
}

/* Flow 0 follows the exchange on port 0, flow 1 the same exchange on port 1. */
static void two_port_cfg(struct rx_cfg *cfg)
{
	tr_cfg(cfg);
	cfg->mtoe.flows[1] = cfg->mtoe.flows[0];
	cfg->mtoe.flows[1].in_port = 1;
	cfg->mtoe.nflows = 2;
}

static void test_tcp_on_its_port(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 1000;
	two_port_cfg(&cfg);
	cfg.mtoe.flows[0].ex_port = 1; /* port 0 follows another exchange port */
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, 77u, TR_MSS, 1, &ts);

	/* on port 1: exact, through flow 1 */
	tr_rx_init(&t, &cfg, feed.len + 65536);
	run_port(&t, &l, 1);
	int32_t ci = mtoe_lookup_port(&t.p->mtoe, 1, TR_EX_IP, TR_EX_PORT, TR_VE_IP, TR_VE_PORT);
	CHECK(ci >= 0 && t.p->mtoe.conn[ci].flow == 1);
	end_run(&t);
	int32_t sid = tr_only_stream(&t);
	if (sid >= 0)
		tr_check(&t, (uint32_t)sid, &feed, 0, feed.len, NULL, 0);
	CHECK_EQ(t.p->st.records, feed.nrec);
	CHECK_EQ(t.p->st.gaps, 0);
	CHECK_EQ(t.p->mtoe.st.not_followed, 0);
	tr_rx_free(&t);

	/* on port 2 (no flow) and on port 0 (a flow of another exchange port): nothing, counted */
	for (uint32_t port = 0; port <= 2; port += 2) {
		tr_rx_init(&t, &cfg, 16);
		run_port(&t, &l, port);
		end_run(&t);
		CHECK_EQ(t.p->st.records, 0);
		CHECK_EQ(t.p->st.opens, 0);
		CHECK_EQ(t.p->mtoe.st.not_followed + t.p->mtoe.st.reverse, l.n);
		CHECK(t.p->mtoe.st.not_followed > 0);
		tr_rx_free(&t);
	}
	tr_frames_free(&l);
}

/* One connection mirrored to two ports (A/B taps of one line): two connections, each exact. */
static void test_same_tuple_two_ports(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 1000;
	two_port_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, 4000000000u, TR_MSS, 1, &ts);
	tr_rx_init(&t, &cfg, feed.len + 65536);
	/* interleaved: each frame on port 0, then on port 1 */
	for (uint32_t i = 0; i < l.n; i++)
		for (uint32_t port = 0; port < 2; port++) {
			rx_frame_port(t.p, port, l.f[i].buf, l.f[i].len, l.f[i].ts, NET_CSUM_UNKNOWN);
			tr_drain(&t);
		}
	/* each connection is found on its own port only, through its port's flow (before the end frees them) */
	int32_t c0 = mtoe_lookup_port(&t.p->mtoe, 0, TR_EX_IP, TR_EX_PORT, TR_VE_IP, TR_VE_PORT);
	int32_t c1 = mtoe_lookup_port(&t.p->mtoe, 1, TR_EX_IP, TR_EX_PORT, TR_VE_IP, TR_VE_PORT);
	CHECK(c0 >= 0 && c1 >= 0 && c0 != c1);
	if (c0 >= 0 && c1 >= 0) {
		CHECK_EQ(t.p->mtoe.conn[c0].flow, 0);
		CHECK_EQ(t.p->mtoe.conn[c1].flow, 1);
	}
	CHECK_EQ(mtoe_lookup_port(&t.p->mtoe, 3, TR_EX_IP, TR_EX_PORT, TR_VE_IP, TR_VE_PORT), -1);
	end_run(&t);
	uint32_t streams = 0;
	for (uint32_t i = 0; i < t.nstreams; i++) {
		if (!t.s[i].resets)
			continue;
		streams++;
		CHECK_EQ(t.s[i].resets, 1);
		tr_check(&t, i, &feed, 0, feed.len, NULL, 0);
	}
	CHECK_EQ(streams, 2);
	CHECK_EQ(t.p->st.records, 2 * feed.nrec);
	CHECK_EQ(t.p->st.gaps, 0);
	CHECK_EQ(t.p->mtoe.st.opens, 2);
	tr_rx_free(&t);
	tr_frames_free(&l);
}

static void test_udp_ports(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	tr_cfg(&cfg);
	cfg.nudp = 2;
	cfg.udp[0].port = 5000;
	cfg.udp[0].in_port = 0;
	cfg.udp[1].port = 5000;
	cfg.udp[1].in_port = 3;
	pb_init(&s);
	s.saddr = 0x0a000101u;
	s.daddr = 0x0a000202u;
	s.sport = 6000;
	s.dport = 5000;
	for (uint32_t m = 0; m < feed.nmsg; m++)
		tr_add(&l, tr_scratch, pb_udp(tr_scratch, sizeof tr_scratch, &s, feed.bytes + feed.msg[m].off,
					      feed.msg[m].len), 1000 + m);
	tr_rx_init(&t, &cfg, feed.len + 65536);
	run_port(&t, &l, 3);
	run_port(&t, &l, 1); /* listened on 0 and 3 only */
	end_run(&t);
	uint32_t s3 = cfg.mtoe.max_conns + 1, s0 = cfg.mtoe.max_conns;
	CHECK_EQ(t.s[s3].nrec, feed.nrec);
	CHECK_EQ(t.s[s0].nrec, 0);
	CHECK_EQ(t.p->sst[s3].datagrams, feed.nmsg);
	CHECK_EQ(t.p->st.udp_other_port, feed.nmsg);
	CHECK_EQ(t.p->net.udp.drop_udp_port, 0);
	for (uint32_t k = 0; k < t.s[s3].nrec && k < feed.nrec; k++)
		CHECK(strcmp(t.s[s3].rec[k].json, feed.json[k]) == 0);
	tr_rx_free(&t);

	/* the same (UDP port, port) twice is refused */
	cfg.udp[1].in_port = 0;
	struct rx_pipe *p = calloc(1, sizeof *p);
	struct fast_stream *fs = calloc(RX_NSTREAMS(&cfg), sizeof *fs);
	uint64_t blen = MTOE_BUF_BYTES(cfg.mtoe.max_conns, cfg.mtoe.window);
	uint8_t *mb = malloc(blen);
	CHECK_EQ(rx_init(p, &cfg, &tr_prog, fs, RX_NSTREAMS(&cfg), mb, blen), RX_ERR_UDP);
	free(p);
	free(fs);
	free(mb);
	tr_frames_free(&l);
}

/* Port 1 filters by destination (role udp with an address), port 0 is a mirror. */
static void test_net_per_port(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 1000;
	two_port_cfg(&cfg);
	uint8_t mac[6] = {2, 0, 0, 0, 0, 9};
	cfg.net_port[0].flags |= NET_CFG_FILTER_DST;
	net_cfg_add(&cfg.net_port[0], 0x0b000001u, 0xffffff00u, mac, 0);
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, 5u, TR_MSS, 1, &ts);
	tr_rx_init(&t, &cfg, feed.len + 65536);
	run_port(&t, &l, 1);
	CHECK_EQ(t.p->st.records, 0);
	CHECK_EQ(t.p->st.dropped, l.n);
	run_port(&t, &l, 0);
	end_run(&t);
	CHECK_EQ(t.p->st.records, feed.nrec);
	tr_rx_free(&t);
	tr_frames_free(&l);
}

/* A/B lines on two ports: the same UDP port on ports 0 and 1, one arbitration group; line 0 carries
 * the first half of the feed, line 1 all of it, interleaved: every record once, no gap, the copies
 * dropped and counted. */
static void test_ab_across_ports(void)
{
	struct tr_feed feed; /* four channels, BizIndex per channel as sequence tracking expects */
	tr_feed_make(&feed, 12, 300, 3);
	struct rx_cfg cfg;
	struct tr_rx t;
	struct pb_spec s;
	uint8_t *frame = malloc(70000);
	tr_cfg(&cfg);
	cfg.flags = RX_CFG_SEQ;
	cfg.seq.ngroups = 2;
	cfg.nudp = 2;
	for (uint32_t i = 0; i < 2; i++) {
		cfg.udp[i].port = 6000;
		cfg.udp[i].in_port = (uint8_t)i;
		cfg.seq.udp_group[i] = 1;
		cfg.seq.udp_line[i] = (uint8_t)i;
	}
	pb_init(&s);
	s.saddr = 0x0a000101u;
	s.daddr = 0x0a000202u;
	s.sport = 6000;
	s.dport = 6000;
	tr_rx_init(&t, &cfg, 16);
	uint32_t half = feed.nmsg / 2, recs_half = 0, gaps = 0, recs = 0;
	for (uint32_t m = 0; m < feed.nmsg; m++) {
		uint32_t len = (uint32_t)pb_udp(frame, 70000, &s, feed.bytes + feed.msg[m].off, feed.msg[m].len);
		for (uint32_t port = 0; port < 2; port++) {
			if (port == 0 && m >= half)
				continue;
			rx_frame_port(t.p, port, frame, len, 1000 + m, NET_CSUM_UNKNOWN);
			struct rx_out o;
			while (rx_next(t.p, &o)) {
				recs += o.kind == RX_OUT_RECORD;
				gaps += o.kind == RX_OUT_GAP;
			}
		}
		if (m == half - 1)
			recs_half = feed.msg[m].first + feed.msg[m].n;
	}
	rx_poll(t.p, UINT64_MAX);
	struct rx_out o;
	while (rx_next(t.p, &o)) {
		recs += o.kind == RX_OUT_RECORD;
		gaps += o.kind == RX_OUT_GAP;
	}
	CHECK_EQ(recs, feed.nrec);
	CHECK_EQ(gaps, 0);
	CHECK_EQ(t.p->st.seq_dups, recs_half);
	CHECK(recs_half > 0);
	tr_rx_free(&t);
	tr_feed_free(&feed);
	free(frame);
}

int main(void)
{
	if (tr_load() != 0)
		return test_skip("test_rx_ports", "cannot compile " TR_TEMPLATES " (run from the repository root)");
	tr_feed_make(&feed, 11, 300, 3);
	test_tcp_on_its_port();
	test_same_tuple_two_ports();
	test_udp_ports();
	test_net_per_port();
	test_ab_across_ports();
	tr_feed_free(&feed);
	return test_done("test_rx_ports");
}
