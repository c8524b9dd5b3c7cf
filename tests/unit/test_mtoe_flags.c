/* test_mtoe_flags.c - mirror TOE: SYN (retransmitted, new ISN, with data), FIN (in order, early,
 * data beyond it), RST from either side, keep-alives, zero-window probes, table full, idle close
 * and lingering closed slots. */
#include "test_mtoe_common.h"

static void test_syn(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(0);
	uint8_t s[3000], s2[3000];
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 20);
	tm_fill(s2, sizeof(s2), 21);
	/* SYN carrying data (TFO style): the data starts at ISN+1, offset 0 */
	CHECK_EQ(tm_pkt(&t, f, 0, 100, TCP_SYN | TCP_ACK, s, 500, 1), 2);
	CHECK_EQ(t.ev[0].type, MTOE_EV_OPEN);
	CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[1].offset, 0);
	CHECK_EQ(t.ev[1].len, 500);
	ci = t.ev[0].conn;
	c = &t.m->conn[ci];
	/* retransmitted SYN (same ISN): ignored */
	CHECK_EQ(tm_pkt(&t, f, 0, 100, TCP_SYN | TCP_ACK, s, 500, 2), 0);
	CHECK_EQ(c->st.syn_retrans, 1);
	CHECK_EQ(c->st.duplicates, 0);
	CHECK_EQ(tm_fwd(&t, f, 601, s + 500, 500, 3), 1);
	/* hold [1500,2000) then a SYN with a new ISN: the old stream ends, the new one starts at 0 */
	CHECK_EQ(tm_fwd(&t, f, 1601, s + 1500, 500, 4), 0);
	CHECK_EQ(c->nranges, 1);
	/* (its hole is a gap and its held bytes are delivered before the CLOSE: nothing vanishes) */
	CHECK_EQ(tm_pkt(&t, f, 0, 90000, TCP_SYN | TCP_ACK, NULL, 0, 5), 4);
	CHECK_EQ(t.ev[0].type, MTOE_EV_GAP);
	CHECK_EQ(t.ev[0].reason, TOE_GAP_CLOSED);
	CHECK_EQ(t.ev[0].offset, 1000);
	CHECK_EQ(t.ev[0].len, 500);
	CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[1].offset, 1500);
	CHECK_EQ(t.ev[1].len, 500);
	CHECK_EQ(t.ev[2].type, MTOE_EV_CLOSE);
	CHECK_EQ(t.ev[2].reason, MTOE_CLOSE_REPLACED);
	CHECK_EQ(t.ev[2].offset, 2000);
	CHECK_EQ(t.ev[3].type, MTOE_EV_OPEN);
	CHECK_EQ(t.ev[3].conn, ci);
	CHECK_EQ(c->nranges, 0);
	CHECK_EQ(c->st.segments, 1);
	CHECK_EQ(t.m->st.restarts, 1);
	/* the new stream, out of order: nothing of the old buffered range leaks into it */
	CHECK_EQ(tm_fwd(&t, f, 90001 + 1000, s2 + 1000, 2000, 6), 0);
	CHECK_EQ(tm_fwd(&t, f, 90001, s2, 1000, 7), 2);
	tm_check_stream(&t, ci, s2, 3000, NULL, 0);
	CHECK_EQ(t.out[ci].opens, 2);
	CHECK_EQ(c->st.bytes, 3000);
	tm_free(&t);
}

static void test_fin(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(1);
	uint8_t s[3000];
	uint32_t isn = 7;
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 22);
	CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 1), 1);
	ci = t.ev[0].conn;
	c = &t.m->conn[ci];
	CHECK_EQ(tm_fwd(&t, f, isn + 1, s, 1000, 2), 1);
	/* the last segment carries the FIN and arrives before the one in front of it */
	CHECK_EQ(tm_pkt(&t, f, 0, isn + 1 + 2000, TCP_FIN | TCP_ACK | TCP_PSH, s + 2000, 1000, 3), 0);
	CHECK_EQ(c->fin_seen, 1);
	CHECK_EQ(c->fin_off, 3000);
	CHECK_EQ(c->state, MTOE_OPEN);
	/* data beyond the FIN is ignored */
	CHECK_EQ(tm_fwd(&t, f, isn + 1 + 2500, s + 2500, 800, 3), 0);
	CHECK_EQ(c->st.after_fin_bytes, 300);
	CHECK_EQ(c->st.dup_bytes, 500);
	CHECK_EQ(tm_fwd(&t, f, isn + 1 + 1000, s + 1000, 1000, 4), 3);
	CHECK_EQ(t.ev[0].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[2].type, MTOE_EV_CLOSE);
	CHECK_EQ(t.ev[2].reason, MTOE_CLOSE_FIN);
	CHECK_EQ(t.ev[2].offset, 3000);
	tm_check_stream(&t, ci, s, sizeof(s), NULL, 0);
	CHECK_EQ(c->state, MTOE_CLOSED);
	/* retransmitted FIN and late data after the close: absorbed */
	CHECK_EQ(tm_pkt(&t, f, 0, isn + 1 + 2000, TCP_FIN | TCP_ACK, s + 2000, 1000, 5), 0);
	CHECK_EQ(tm_fwd(&t, f, isn + 1 + 3000, s, 10, 5), 0);
	CHECK_EQ(c->st.after_close, 2);
	CHECK_EQ(t.m->st.after_close, 2);
	/* the vendor's FIN is reverse direction: ignored */
	CHECK_EQ(tm_pkt(&t, f, 1, 1, TCP_FIN | TCP_ACK, NULL, 0, 5), 0);
	/* a SYN with the old ISN is a retransmission of the old one: absorbed too */
	CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 6), 0);
	CHECK_EQ(t.m->st.after_close, 3);
	/* a new SYN reopens the slot, without a CLOSE (already closed) */
	CHECK_EQ(tm_pkt(&t, f, 0, 555, TCP_SYN | TCP_ACK, NULL, 0, 7), 1);
	CHECK_EQ(t.ev[0].type, MTOE_EV_OPEN);
	CHECK_EQ(t.ev[0].conn, ci);
	CHECK_EQ(c->state, MTOE_OPEN);
	/* a FIN with no data at rcv_nxt closes at once */
	CHECK_EQ(tm_pkt(&t, f, 0, 556, TCP_FIN | TCP_ACK, NULL, 0, 8), 1);
	CHECK_EQ(t.ev[0].type, MTOE_EV_CLOSE);
	CHECK_EQ(t.ev[0].offset, 0);
	tm_free(&t);
}

static void test_rst(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(2), g = tm_flow_n(3);
	uint8_t s[2000];
	int ci, gi;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 23);
	CHECK_EQ(tm_pkt(&t, f, 0, 1000, TCP_SYN | TCP_ACK, NULL, 0, 1), 1);
	ci = t.ev[0].conn;
	CHECK_EQ(tm_fwd(&t, f, 1001, s, 500, 2), 1);
	CHECK_EQ(tm_fwd(&t, f, 1001 + 1000, s + 1000, 500, 2), 0); /* held */
	/* the RST ends the stream: the hole is a gap, the held bytes are delivered, nothing vanishes */
	CHECK_EQ(tm_pkt(&t, f, 0, 1001 + 500, TCP_RST, NULL, 0, 3), 3);
	CHECK_EQ(t.ev[0].type, MTOE_EV_GAP);
	CHECK_EQ(t.ev[0].reason, TOE_GAP_CLOSED);
	CHECK_EQ(t.ev[0].offset, 500);
	CHECK_EQ(t.ev[0].len, 500);
	CHECK_EQ(t.ev[1].type, MTOE_EV_DATA);
	CHECK_EQ(t.ev[1].offset, 1000);
	CHECK_EQ(t.ev[1].len, 500);
	CHECK_MEM(t.ev[1].data, s + 1000, 500);
	CHECK_EQ(t.ev[2].type, MTOE_EV_CLOSE);
	CHECK_EQ(t.ev[2].reason, MTOE_CLOSE_RST);
	CHECK_EQ(t.ev[2].offset, 1500);
	CHECK_EQ(t.m->conn[ci].st.close_gaps, 1);
	CHECK_EQ(t.m->conn[ci].st.close_gap_bytes, 500);
	CHECK_EQ(t.m->conn[ci].state, MTOE_CLOSED);
	CHECK_EQ(t.m->conn[ci].nranges, 0);
	CHECK_EQ(tm_fwd(&t, f, 1001 + 500, s + 500, 500, 4), 0);
	CHECK_EQ(t.m->conn[ci].st.after_close, 1);

	/* RST from the vendor */
	CHECK_EQ(tm_pkt(&t, g, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 5), 1);
	gi = t.ev[0].conn;
	CHECK(gi != ci);
	CHECK_EQ(tm_fwd(&t, g, 2, s, 100, 6), 1);
	CHECK_EQ(tm_pkt(&t, g, 1, 99, TCP_RST | TCP_ACK, NULL, 0, 7), 1);
	CHECK_EQ(t.ev[0].type, MTOE_EV_CLOSE);
	CHECK_EQ(t.ev[0].reason, MTOE_CLOSE_PEER_RST);
	CHECK_EQ(t.ev[0].conn, gi);
	CHECK_EQ(t.ev[0].offset, 100);
	CHECK_EQ(t.m->st.closes, 2);
	tm_free(&t);
}

/* Keep-alives and zero-window probes: counted apart, never data, never errors. */
static void test_probes(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow f = tm_flow_n(4);
	uint8_t s[2000], junk = 0xAB;
	uint32_t isn = 40000;
	int ci;
	const struct mtoe_conn *c;
	tm_cfg(&cfg);
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 24);
	CHECK_EQ(tm_pkt(&t, f, 0, isn, TCP_SYN | TCP_ACK, NULL, 0, 1), 1);
	ci = t.ev[0].conn;
	c = &t.m->conn[ci];
	CHECK_EQ(tm_fwd(&t, f, isn + 1, s, 1000, 2), 1);
	/* keep-alives: 0 bytes and 1 garbage byte at rcv_nxt - 1 */
	CHECK_EQ(tm_fwd(&t, f, isn + 1000, NULL, 0, 3), 0);
	CHECK_EQ(tm_fwd(&t, f, isn + 1000, &junk, 1, 4), 0);
	CHECK_EQ(c->st.keepalives, 2);
	/* the vendor's window closes */
	CHECK_EQ(tm_ack(&t, f, 9, isn + 1001, 0, 5), 0);
	CHECK_EQ(c->peer_win_zero, 1);
	/* Linux-style probe: 0 bytes at rcv_nxt - 1 */
	CHECK_EQ(tm_fwd(&t, f, isn + 1000, NULL, 0, 6), 0);
	/* BSD-style probe: the next byte at rcv_nxt: counted, and it is stream data */
	CHECK_EQ(tm_fwd(&t, f, isn + 1001, s + 1000, 1, 7), 1);
	CHECK_EQ(t.ev[0].len, 1);
	CHECK_EQ(c->st.zero_window_probes, 2);
	/* the window opens; the sender resends from the probe byte */
	CHECK_EQ(tm_ack(&t, f, 9, isn + 1002, 65535, 8), 0);
	CHECK_EQ(c->peer_win_zero, 0);
	CHECK_EQ(tm_fwd(&t, f, isn + 1001, s + 1000, 1000, 9), 1);
	CHECK_EQ(t.ev[0].len, 999);
	tm_check_stream(&t, ci, s, sizeof(s), NULL, 0);
	CHECK_EQ(c->st.keepalives, 2);
	CHECK_EQ(c->st.zero_window_probes, 2);
	CHECK_EQ(c->st.duplicates, 0);
	CHECK_EQ(c->st.dup_bytes, 1);
	CHECK_EQ(c->st.conflict_bytes, 0);
	CHECK_EQ(c->st.gaps, 0);
	CHECK_EQ(c->st.reverse, 2);
	tm_free(&t);
}

/* max_conns 2: a third connection is dropped until a slot closes; closed
 * slots are reused; idle connections and lingering closed slots are freed by poll. */
static void test_table(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	struct tm_flow a = tm_flow_n(10), b = tm_flow_n(11), x = tm_flow_n(12);
	uint8_t s[100];
	int ai, bi, xi;
	tm_cfg(&cfg);
	cfg.max_conns = 2;
	cfg.idle_timeout_ns = 1000 * TM_NS;
	cfg.linger_ns = 100 * TM_NS;
	tm_init(&t, &cfg, sizeof(s));
	tm_fill(s, sizeof(s), 25);
	CHECK_EQ(tm_pkt(&t, a, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	ai = t.ev[0].conn;
	CHECK_EQ(tm_pkt(&t, b, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
	bi = t.ev[0].conn;
	CHECK(ai != bi);
	CHECK_EQ(tm_pkt(&t, x, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 0), 0);
	CHECK_EQ(tm_fwd(&t, x, 2, s, 10, 0), 0); /* nor by a join */
	CHECK_EQ(t.m->st.no_slot, 2);
	/* a closes; x takes its slot */
	CHECK_EQ(tm_pkt(&t, a, 0, 2, TCP_FIN | TCP_ACK, NULL, 0, 10 * TM_NS), 1);
	CHECK_EQ(tm_pkt(&t, x, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 11 * TM_NS), 1);
	xi = t.ev[0].conn;
	CHECK_EQ(xi, ai);
	CHECK_EQ(mtoe_lookup(t.m, a.a, a.ap, a.b, a.bp), -1);
	CHECK_EQ(mtoe_lookup(t.m, x.a, x.ap, x.b, x.bp), xi);
	CHECK_EQ(mtoe_lookup(t.m, b.a, b.ap, b.b, b.bp), bi);
	/* a's late FIN retransmission: its slot is gone, nothing to do */
	CHECK_EQ(tm_pkt(&t, a, 0, 2, TCP_FIN | TCP_ACK, NULL, 0, 12 * TM_NS), 0);
	CHECK_EQ(t.m->st.no_conn, 1);

	/* b stays active, x goes silent: at 1000 ms x is closed as idle and freed */
	CHECK_EQ(tm_fwd(&t, b, 2, s, 10, 900 * TM_NS), 1);
	CHECK_EQ(tm_poll(&t, 1005 * TM_NS), 0);
	CHECK_EQ(tm_poll(&t, 1011 * TM_NS), 1);
	CHECK_EQ(t.ev[0].type, MTOE_EV_CLOSE);
	CHECK_EQ(t.ev[0].reason, MTOE_CLOSE_IDLE);
	CHECK_EQ(t.ev[0].conn, xi);
	CHECK_EQ(t.m->conn[xi].state, MTOE_FREE);
	CHECK_EQ(mtoe_lookup(t.m, x.a, x.ap, x.b, x.bp), -1);
	/* x speaks again: a join (its stream continues, the downstream resyncs) */
	CHECK_EQ(tm_fwd(&t, x, 2, s, 10, 1020 * TM_NS), 2);
	CHECK_EQ(t.ev[0].reason, MTOE_OPEN_JOIN);
	/* b closes with RST; its slot lingers 100 ms, then poll frees it */
	CHECK_EQ(tm_pkt(&t, b, 0, 12, TCP_RST, NULL, 0, 1030 * TM_NS), 1);
	CHECK_EQ(tm_poll(&t, 1100 * TM_NS), 0);
	CHECK_EQ(t.m->conn[bi].state, MTOE_CLOSED);
	CHECK_EQ(tm_poll(&t, 1130 * TM_NS), 0);
	CHECK_EQ(t.m->conn[bi].state, MTOE_FREE);
	CHECK_EQ(mtoe_lookup(t.m, b.a, b.ap, b.b, b.bp), -1);
	CHECK_EQ(t.m->st.no_slot, 2);
	tm_free(&t);
}

/* The connection hash: many connections opened and closed in turn (backward
 * shift deletion) never lose one that is still open. */
static void test_hash_churn(void)
{
	struct mtoe_cfg cfg;
	struct tm t;
	int i, k, open[256];
	tm_cfg(&cfg);
	cfg.max_conns = 256;
	cfg.window = 1024;
	cfg.linger_ns = 0;
	tm_init(&t, &cfg, 16);
	for (i = 0; i < 256; i++)
		open[i] = -1;
	for (k = 0; k < 5000; k++) {
		int slot = (int)tm_range(0, 255);
		struct tm_flow f = tm_flow(0x0a000001u, 9000, 0x0b000000u + (uint32_t)slot * 7919u, (uint16_t)slot);
		if (open[slot] < 0) {
			CHECK_EQ(tm_pkt(&t, f, 0, 1, TCP_SYN | TCP_ACK, NULL, 0, 0), 1);
			open[slot] = t.ev[0].conn;
		} else {
			CHECK_EQ(tm_pkt(&t, f, 0, 2, TCP_RST, NULL, 0, 0), 1);
			tm_poll(&t, 0); /* linger 0: freed now */
			CHECK_EQ(t.m->conn[open[slot]].state, MTOE_FREE);
			open[slot] = -1;
		}
		if (k % 500 == 0) {
			for (i = 0; i < 256; i++) {
				struct tm_flow g = tm_flow(0x0a000001u, 9000, 0x0b000000u + (uint32_t)i * 7919u, (uint16_t)i);
				CHECK_EQ(mtoe_lookup(t.m, g.a, g.ap, g.b, g.bp), open[i]);
			}
		}
	}
	CHECK_EQ(t.m->st.no_slot, 0);
	tm_free(&t);
}

int main(void)
{
	test_syn();
	test_fin();
	test_rst();
	test_probes();
	test_table();
	test_hash_churn();
	return test_done("mtoe_flags");
}
