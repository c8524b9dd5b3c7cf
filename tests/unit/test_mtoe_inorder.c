/* test_mtoe_inorder.c - mirror TOE: configuration, flow selection, in-order fast path, reverse direction. */
#include "test_mtoe_common.h"

static void test_cfg(void)
{
	struct mtoe_cfg cfg;
	struct mtoe *m = calloc(1, sizeof(*m));
	uint8_t small[64];
	uint8_t *buf;
	mtoe_cfg_default(&cfg);
	/* the paper's figures and the documented defaults */
	CHECK_EQ(cfg.max_conns, 64);
	CHECK_EQ(cfg.window, 32768);
	CHECK_EQ(cfg.max_ranges, 8);
	CHECK_EQ(cfg.gap_timeout_ns, 50000000ull);
	CHECK_EQ(cfg.nflows, 0);
	CHECK_EQ(MTOE_BUF_BYTES(64, 32768), 2097152);

	cfg.flows[0].ex_addr = 1;
	cfg.nflows = 1;
	cfg.max_conns = 2;
	cfg.window = 4096;
	buf = malloc(8192);
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_OK);
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8191), MTOE_ERR_BUF);
	CHECK_EQ(mtoe_init(m, &cfg, NULL, 8192), MTOE_ERR_BUF);
	cfg.window = 3000; /* not a power of two */
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_ERR_WINDOW);
	cfg.window = MTOE_MAX_WINDOW * 2;
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_ERR_WINDOW);
	cfg.window = 32;
	CHECK_EQ(mtoe_init(m, &cfg, small, sizeof(small)), MTOE_ERR_WINDOW);
	cfg.window = 4096;
	cfg.max_conns = MTOE_MAX_CONNS + 1;
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_ERR_CONNS);
	cfg.max_conns = 0;
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_ERR_CONNS);
	cfg.max_conns = 2;
	cfg.max_ranges = MTOE_MAX_RANGES + 1;
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_ERR_RANGES);
	cfg.max_ranges = 0;
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_ERR_RANGES);
	cfg.max_ranges = 4;
	cfg.flows[0].ex_addr = 0; /* ex_addr and ex_port both wildcards */
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_ERR_FLOWS);
	cfg.flows[0].ex_port = 9000;
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_OK);
	cfg.nflows = MTOE_MAX_FLOWS + 1;
	CHECK_EQ(mtoe_init(m, &cfg, buf, 8192), MTOE_ERR_FLOWS);
	free(buf);
	free(m);
}

/* first_conn: the slots below it are the stream numbers of toed's own connections (role = tcp on port 0);
 * the mirror TOE of the other ports takes its connections from the slots above, and with none left
 * finds the table full (it never hands out a reserved slot). */
static void test_first_conn(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct mtoe *m = calloc(1, sizeof(*m));
	uint8_t *buf;
	tm_cfg(&cfg);
	cfg.max_conns = 3;
	cfg.first_conn = 4;
	buf = malloc(MTOE_BUF_BYTES(3, cfg.window));
	CHECK_EQ(mtoe_init(m, &cfg, buf, MTOE_BUF_BYTES(3, cfg.window)), MTOE_ERR_CONNS);
	free(buf);
	free(m);
	cfg.first_conn = 2;
	tm_init(&t, &cfg, 0);
	CHECK_EQ(tm_pkt(&t, tm_flow_n(0), 0, 1000, TCP_SYN | TCP_ACK, NULL, 0, 1), 1);
	CHECK_EQ(t.ev[0].type, MTOE_EV_OPEN);
	CHECK_EQ(t.ev[0].conn, 2);
	/* slots 0 and 1 are reserved: a second connection finds no free slot */
	CHECK_EQ(tm_pkt(&t, tm_flow_n(1), 0, 5000, TCP_SYN | TCP_ACK, NULL, 0, 2), 0);
	CHECK_EQ(mtoe_lookup(t.m, tm_flow_n(1).a, tm_flow_n(1).ap, tm_flow_n(1).b, tm_flow_n(1).bp), -1);
	tm_free(&t);
	/* every slot reserved (as many own connections as [tcp] connections): valid, the mirror TOE takes none */
	cfg.first_conn = 3;
	tm_init(&t, &cfg, 0);
	CHECK_EQ(tm_pkt(&t, tm_flow_n(0), 0, 1000, TCP_SYN | TCP_ACK, NULL, 0, 1), 0);
	tm_free(&t);
}

/* SYN-ACK from the exchange, then segments of various sizes in order: every
 * byte comes straight from the segment payload, offsets start at 0. */
static void test_inorder(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(0);
	enum { LEN = 100000 };
	uint8_t *s = malloc(LEN);
	uint32_t isn = 1000, off = 0, nseg = 0;
	int ci;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, LEN);
	tm_fill(s, LEN, 1);

	/* the vendor's SYN is reverse direction: ignored */
	CHECK_EQ(tm_pkt(&t, f, 1, 777, TCP_SYN, NULL, 0, 1), 0);
	CHECK_EQ(t.m->st.reverse, 1);
	CHECK_EQ(t.m->st.opens, 0);
	CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 2), 1);
	CHECK_EQ(t.ev[0].type, MTOE_EV_OPEN);
	CHECK_EQ(t.ev[0].reason, MTOE_OPEN_SYN);
	CHECK_EQ(t.ev[0].offset, 0);
	CHECK_EQ(t.ev[0].flow, 0);
	ci = t.ev[0].conn;
	CHECK_EQ(mtoe_lookup(t.m, f.a, f.ap, f.b, f.bp), ci);
	CHECK_EQ(mtoe_lookup(t.m, f.b, f.bp, f.a, f.ap), -1);
	CHECK_EQ(t.m->st.opens, 1);
	/* the vendor's ACK completing the handshake */
	CHECK_EQ(tm_ack(&t, f, 778, isn + 1, 65535, 3), 0);

	while (off < LEN) {
		uint32_t n = 1 + (nseg * 7919u) % 1460;
		if (n > LEN - off)
			n = LEN - off;
		CHECK_EQ(tm_fwd(&t, f, isn + 1 + off, s + off, n, 10 + nseg), 1);
		CHECK_EQ(t.ev[0].type, MTOE_EV_DATA);
		CHECK_EQ(t.ev[0].offset, off);
		CHECK_EQ(t.ev[0].len, n);
		CHECK(t.ev[0].data == s + off); /* no copy */
		/* every other segment acked back */
		if (nseg % 2)
			CHECK_EQ(tm_ack(&t, f, 778, isn + 1 + off + n, 65535, 10 + nseg), 0);
		off += n;
		nseg++;
	}
	tm_check_stream(&t, ci, s, LEN, NULL, 0);
	CHECK_EQ(t.m->conn[ci].st.bytes, LEN);
	CHECK_EQ(t.m->conn[ci].st.segments, 1 + nseg);
	CHECK_EQ(t.m->conn[ci].st.in_order, nseg);
	CHECK_EQ(t.m->conn[ci].st.out_of_order, 0);
	CHECK_EQ(t.m->conn[ci].st.duplicates, 0);
	CHECK_EQ(t.m->conn[ci].st.gaps, 0);
	CHECK_EQ(t.m->conn[ci].st.reverse, 1 + nseg / 2);
	CHECK_EQ(t.m->st.reverse, 1 + 1 + nseg / 2);
	CHECK_EQ(t.m->st.bytes, LEN);
	CHECK_EQ(t.m->conn[ci].nxt_seq, isn + 1 + LEN);
	CHECK_EQ(t.m->conn[ci].nxt_off, LEN);

	/* vendor -> exchange data (logon, heartbeats) never becomes stream data */
	CHECK_EQ(tm_pkt(&t, f, 1, 778, TCP_ACK | TCP_PSH, s, 100, 1000), 0);
	CHECK_EQ(t.m->conn[ci].st.bytes, LEN);

	/* a pure ACK from the exchange: nothing */
	CHECK_EQ(tm_fwd(&t, f, isn + 1 + LEN, NULL, 0, 1001), 0);
	/* FIN: close at the end of the stream */
	CHECK_EQ(tm_pkt(&t, f, 0, isn + 1 + LEN, TCP_FIN | TCP_ACK, NULL, 0, 1002), 1);
	CHECK_EQ(t.ev[0].type, MTOE_EV_CLOSE);
	CHECK_EQ(t.ev[0].reason, MTOE_CLOSE_FIN);
	CHECK_EQ(t.ev[0].offset, LEN);
	CHECK_EQ(t.m->conn[ci].state, MTOE_CLOSED);
	CHECK_EQ(t.m->st.closes, 1);
	CHECK_EQ(t.m->st.ev_overflow, 0);
	tm_free(&t);
	free(s);
}

/* Flow selection: endpoint entries, full 4-tuples, other protocols. */
static void test_flows(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	uint8_t d[10] = "0123456789";
	struct tm_flow ep = tm_flow(0x0a000001u, 9000, 0x0a000002u, 5555);
	struct tm_flow other_port = tm_flow(0x0a000001u, 9001, 0x0a000002u, 5555);
	struct tm_flow full_ok = tm_flow(0xc0a80001u, 7000, 0xc0a80002u, 6000);
	struct tm_flow full_bad = tm_flow(0xc0a80001u, 7000, 0xc0a80002u, 6001);
	struct tm_flow any_port = tm_flow(0xc0a80009u, 1234, 0x0a0a0a0au, 80);
	struct net_pkt udp;
	mtoe_cfg_default(&cfg);
	cfg.flows[0].ex_addr = 0x0a000001u;
	cfg.flows[0].ex_port = 9000;
	cfg.flows[1].ex_addr = 0xc0a80001u;
	cfg.flows[1].ex_port = 7000;
	cfg.flows[1].peer_addr = 0xc0a80002u;
	cfg.flows[1].peer_port = 6000;
	cfg.flows[2].ex_addr = 0xc0a80009u; /* any port of this exchange host */
	cfg.nflows = 3;
	tm_init(&t, &cfg, 64);

	CHECK_EQ(tm_pkt(&t, ep, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 1), 1);
	CHECK_EQ(t.ev[0].flow, 0);
	CHECK_EQ(tm_pkt(&t, other_port, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 1), 0);
	CHECK_EQ(t.m->st.not_followed, 1);
	CHECK_EQ(tm_pkt(&t, full_ok, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 1), 1);
	CHECK_EQ(t.ev[0].flow, 1);
	CHECK_EQ(tm_pkt(&t, full_bad, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 1), 0);
	CHECK_EQ(t.m->st.not_followed, 2);
	/* the reverse of a followed endpoint without a connection: counted as reverse */
	CHECK_EQ(tm_pkt(&t, full_bad, 1, 1, TCP_ACK, d, 10, 1), 0);
	CHECK_EQ(t.m->st.not_followed, 3); /* 4-tuple entry does not match port 6001 */
	CHECK_EQ(tm_pkt(&t, other_port, 1, 1, TCP_ACK, NULL, 0, 1), 0);
	CHECK_EQ(t.m->st.not_followed, 4);
	CHECK_EQ(tm_pkt(&t, tm_flow(0x0a000001u, 9000, 0x0a000003u, 1), 1, 1, TCP_ACK, NULL, 0, 1), 0);
	CHECK_EQ(t.m->st.reverse, 1);
	CHECK_EQ(tm_pkt(&t, any_port, 0, 50, TCP_ACK, d, 10, 1), 2); /* joins */
	CHECK_EQ(t.ev[0].flow, 2);
	CHECK_EQ(t.ev[0].reason, MTOE_OPEN_JOIN);
	CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[1].len, 10);
	CHECK_EQ(t.ev[1].flow, 2);

	memset(&udp, 0, sizeof(udp));
	udp.l4proto = NET_PROTO_UDP;
	udp.saddr = 0x0a000001u;
	udp.sport = 9000;
	udp.payload = d;
	udp.payload_len = 10;
	CHECK_EQ(mtoe_segment(t.m, &udp, t.ev, MTOE_SEG_EVENTS), 0);
	CHECK_EQ(t.m->st.not_tcp, 1);
	/* an event array below the documented minimum: refused and counted */
	CHECK_EQ(mtoe_segment(t.m, &udp, t.ev, MTOE_SEG_EVENTS - 1), 0);
	CHECK_EQ(t.m->st.ev_short, 1);
	CHECK_EQ(mtoe_poll(t.m, 0, t.ev, MTOE_POLL_EVENTS - 1), 0);
	CHECK_EQ(t.m->st.ev_short, 2);
	CHECK_EQ(t.m->st.opens, 2);
	CHECK_EQ(t.m->st.joins, 1);
	CHECK_EQ(t.m->st.packets, 10);
	tm_free(&t);
}

int main(void)
{
	test_cfg();
	test_first_conn();
	test_inorder();
	test_flows();
	return test_done("mtoe_inorder");
}
