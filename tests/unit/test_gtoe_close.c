/* test_gtoe_close.c - general TOE: FIN in every state, TIME-WAIT, RST (RFC 5961) and keepalive.
 *
 * Crafted segments against an established connection (peer ISN 1000, no
 * options): active close (FIN-WAIT-1, FIN-WAIT-2, TIME-WAIT, 2 MSL), the
 * FIN and its ACK in one segment (FIN-WAIT-1 straight to TIME-WAIT), passive
 * close (CLOSE-WAIT, LAST-ACK), simultaneous close (CLOSING), a FIN before
 * missing data, a FIN retransmitted into TIME-WAIT, our FIN retransmitted,
 * RST exactly at rcv_nxt, in the window (challenge ACK) and outside it, a
 * RST in TIME-WAIT, abort, keepalive probes and giving up.
 */
#include "test.h"
#include "gtoe_harness.h"

#define MS 1000000ull

static struct gh h;

static int32_t setup(const struct gtoe_cfg *cfg)
{
	struct gtoe_seg o;
	memset(&o, 0, sizeof o);
	CHECK_EQ(gh_init(&h, cfg), 0);
	return gh_connect(&h, 0, 1000, &o);
}

static void peer(uint64_t now, uint8_t flags, uint32_t seq, uint32_t ack)
{
	gh_peer(&h, now, flags, seq, ack, 65535, NULL, 0, NULL);
}

static void test_active_close(void)
{
	int32_t c = setup(NULL);
	uint32_t una = h.g->conn[c].snd_una;
	CHECK_EQ(gtoe_send(h.g, c, (const uint8_t *)"bye", 3), 3);
	CHECK_EQ(gtoe_shutdown(h.g, c), GTOE_OK);
	CHECK_EQ(gtoe_send(h.g, c, (const uint8_t *)"x", 1), GTOE_ERR_CONN);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_ACK | TCP_PSH | TCP_FIN); /* the FIN rides on the data */
	CHECK_EQ(h.out[0].plen, 3);
	CHECK_EQ(h.g->conn[c].state, GTOE_FIN_WAIT_1);
	/* the FIN is lost: retransmitted with the data after the RTO */
	gtoe_poll(h.g, 200 * MS);
	CHECK_EQ(gh_out(&h, 200 * MS), 1);
	CHECK_EQ(h.out[0].s.flags & TCP_FIN, TCP_FIN);
	CHECK_EQ(h.out[0].s.seq, una);
	peer(201 * MS, TCP_ACK, 1001, una + 4);
	CHECK_EQ(h.g->conn[c].state, GTOE_FIN_WAIT_2);
	/* the peer may still send data in FIN-WAIT-2 */
	gh_peer(&h, 202 * MS, TCP_ACK | TCP_FIN, 1001, una + 4, 100, "ok", 2, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_TIME_WAIT);
	CHECK_EQ(gh_out(&h, 202 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1004); /* 2 bytes + FIN */
	gh_ev(&h);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_PEER_CLOSED), 1);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_CLOSED), 1);
	CHECK_EQ(gtoe_readable(h.g, c), 2);
	/* the peer did not get our ACK and sends its FIN again: ACK again, 2 MSL restart */
	peer(30000 * MS, TCP_ACK | TCP_FIN, 1003, una + 4);
	CHECK_EQ(gh_out(&h, 30000 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1004);
	gtoe_poll(h.g, 202 * MS + 60000 * MS);
	CHECK_EQ(h.g->conn[c].state, GTOE_TIME_WAIT);
	gtoe_poll(h.g, 30000 * MS + 60000 * MS);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSED);
	/* still held for the application until released */
	CHECK_EQ(gtoe_release(h.g, c), GTOE_OK);
	CHECK_EQ(h.g->conn[c].state, GTOE_FREE);
	gh_free(&h);
}

static void test_fin_ack_together(void)
{
	int32_t c = setup(NULL);
	uint32_t una = h.g->conn[c].snd_una;
	gtoe_shutdown(h.g, c);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_ACK | TCP_FIN);
	peer(1 * MS, TCP_ACK | TCP_FIN, 1001, una + 1);
	CHECK_EQ(h.g->conn[c].state, GTOE_TIME_WAIT);
	gh_free(&h);
}

static void test_passive_close(void)
{
	int32_t c = setup(NULL);
	uint32_t una = h.g->conn[c].snd_una;
	gh_peer(&h, 1 * MS, TCP_ACK | TCP_FIN, 1001, una, 100, "end", 3, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSE_WAIT);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1005);
	/* data may still go out in CLOSE-WAIT */
	CHECK_EQ(gtoe_send(h.g, c, (const uint8_t *)"last", 4), 4);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	gtoe_shutdown(h.g, c);
	CHECK_EQ(gh_out(&h, 3 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_ACK | TCP_FIN);
	CHECK_EQ(h.out[0].s.seq, una + 4);
	CHECK_EQ(h.g->conn[c].state, GTOE_LAST_ACK);
	peer(4 * MS, TCP_ACK, 1005, una + 4); /* acknowledges the data only */
	CHECK_EQ(h.g->conn[c].state, GTOE_LAST_ACK);
	peer(4 * MS, TCP_ACK, 1005, una + 5);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSED);
	gh_ev(&h);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_PEER_CLOSED), 1);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_CLOSED), 1);
	gh_free(&h);
}

static void test_simultaneous_close(void)
{
	int32_t c = setup(NULL);
	uint32_t una = h.g->conn[c].snd_una;
	gtoe_shutdown(h.g, c);
	gh_out(&h, 0);
	/* the peer's FIN crosses ours: it does not acknowledge our FIN */
	peer(1 * MS, TCP_ACK | TCP_FIN, 1001, una);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSING);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1002);
	peer(2 * MS, TCP_ACK, 1002, una + 1);
	CHECK_EQ(h.g->conn[c].state, GTOE_TIME_WAIT);
	gh_free(&h);
}

static void test_fin_before_hole(void)
{
	int32_t c = setup(NULL);
	uint32_t una = h.g->conn[c].snd_una;

	/* FIN after bytes [1001,1011) that have not arrived */
	gh_peer(&h, 1 * MS, TCP_ACK | TCP_FIN, 1011, una, 100, "tail", 4, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	/* bytes claimed beyond the FIN do not exist: trimmed */
	gh_peer(&h, 1 * MS, TCP_ACK, 1015, una, 100, "beyond", 6, NULL);
	CHECK_EQ(h.g->conn[c].st.trimmed_bytes, 6);
	gh_peer(&h, 2 * MS, TCP_ACK, 1001, una, 100, "0123456789", 10, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSE_WAIT);
	CHECK_EQ(gtoe_readable(h.g, c), 14);
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 1016);
	gh_free(&h);
	/* a FIN below data already held is ignored (first data wins) */
	c = setup(NULL);
	una = h.g->conn[c].snd_una;
	gh_peer(&h, 1 * MS, TCP_ACK, 1021, una, 100, "later", 5, NULL);
	gh_peer(&h, 1 * MS, TCP_ACK | TCP_FIN, 1011, una, 100, NULL, 0, NULL);
	CHECK_EQ(h.g->conn[c].st.fin_ignored, 1);
	gh_peer(&h, 2 * MS, TCP_ACK, 1001, una, 100, "0123456789abcdefghij", 20, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	CHECK_EQ(gtoe_readable(h.g, c), 25);
	gh_free(&h);
}

static void test_rst(void)
{
	int32_t c = setup(NULL);
	uint32_t una = h.g->conn[c].snd_una;
	/* outside the window: dropped, no answer */
	peer(1 * MS, TCP_RST, 1001 + 100000, 0);
	CHECK_EQ(gh_out(&h, 1 * MS), 0);
	CHECK_EQ(h.g->st.drop_rst_out_of_window, 1);
	/* in the window but not at rcv_nxt: challenge ACK (RFC 5961 3.2) */
	peer(1 * MS, TCP_RST, 1001 + 10, 0);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_ACK);
	CHECK_EQ(h.out[0].s.ack, 1001);
	CHECK_EQ(h.out[0].s.seq, una);
	CHECK_EQ(h.g->st.challenge_acks, 1);
	/* exactly at rcv_nxt: reset */
	peer(2 * MS, TCP_RST, 1001, 0);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSED);
	CHECK_EQ(gh_out(&h, 2 * MS), 0);
	gh_ev(&h);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_RESET), 1);
	CHECK_EQ(h.g->st.resets_in, 1);
	/* segments for the closed connection get an RST */
	peer(3 * MS, TCP_ACK, 1001, una);
	CHECK_EQ(gh_out(&h, 3 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_RST);
	gh_free(&h);
}

static void test_challenge_rate_limit(void)
{
	int32_t c = setup(NULL);
	uint32_t i;
	for (i = 0; i < GTOE_CHALLENGE_PER_S + 5; i++) {
		peer(1 * MS, TCP_RST, 1001 + 10, 0);
		gh_out(&h, 1 * MS);
	}
	CHECK_EQ(h.g->conn[c].st.challenge_acks, GTOE_CHALLENGE_PER_S);
	CHECK_EQ(h.g->st.challenge_limited, 5);
	peer(1001 * MS, TCP_RST, 1001 + 10, 0); /* a new second */
	CHECK_EQ(h.g->conn[c].st.challenge_acks, GTOE_CHALLENGE_PER_S + 1);
	gh_free(&h);
}

static void test_abort(void)
{
	int32_t c = setup(NULL);
	uint32_t una = h.g->conn[c].snd_una;
	CHECK_EQ(gtoe_abort(h.g, c), GTOE_OK);
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_RST | TCP_ACK);
	CHECK_EQ(h.out[0].s.seq, una);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSED);
	gtoe_release(h.g, c);
	CHECK_EQ(h.g->conn[c].state, GTOE_FREE);
	gh_free(&h);
}

static void test_keepalive(void)
{
	struct gtoe_cfg cfg;
	int32_t c;
	uint32_t una;
	gtoe_cfg_default(&cfg);
	cfg.ka_idle_ns = 1000 * MS;
	cfg.ka_intvl_ns = 100 * MS;
	cfg.ka_probes = 3;
	c = setup(&cfg);
	una = h.g->conn[c].snd_una;
	CHECK_EQ(gtoe_next_deadline(h.g), 1000 * MS + 1000); /* idle since the SYN-ACK at 1 us */
	gtoe_poll(h.g, 999 * MS);
	CHECK_EQ(gh_out(&h, 999 * MS), 0);
	gtoe_poll(h.g, 1001 * MS);
	CHECK_EQ(gh_out(&h, 1001 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, una - 1);
	CHECK_EQ(h.out[0].plen, 0);
	/* answered: the idle time starts again */
	peer(1050 * MS, TCP_ACK, 1001, una);
	gtoe_poll(h.g, 2000 * MS);
	CHECK_EQ(gh_out(&h, 2000 * MS), 0);
	/* unanswered: probes at idle, +100, +200 ms, then reset */
	gtoe_poll(h.g, 2050 * MS);
	CHECK_EQ(gh_out(&h, 2050 * MS), 1);
	gtoe_poll(h.g, 2150 * MS);
	CHECK_EQ(gh_out(&h, 2150 * MS), 1);
	gtoe_poll(h.g, 2250 * MS);
	CHECK_EQ(gh_out(&h, 2250 * MS), 1);
	CHECK_EQ(h.g->conn[c].st.ka_out, 4);
	gtoe_poll(h.g, 2350 * MS);
	CHECK_EQ(gh_out(&h, 2350 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_RST | TCP_ACK);
	gh_ev(&h);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_ERROR), 1);
	CHECK_EQ(h.ev[h.nev - 1].reason, GTOE_ERR_KEEPALIVE);
	gh_free(&h);
}

/* Passive open whose completing ACK carries data and the FIN: straight to CLOSE-WAIT. */
static void test_fin_on_handshake_ack(void)
{
	int32_t c;
	uint32_t iss;
	CHECK_EQ(gh_init(&h, NULL), 0);
	gtoe_listen(h.g, 0, GH_PORT);
	peer(0, TCP_SYN, 500, 0);
	c = gtoe_find(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT);
	CHECK_EQ(gh_out(&h, 0), 1);
	iss = h.out[0].s.seq;
	CHECK_EQ(gtoe_next_deadline(h.g), 1000 * MS); /* the SYN-ACK's retransmission timer */
	gh_peer(&h, 1 * MS, TCP_ACK | TCP_FIN | TCP_PSH, 501, iss + 1, 100, "req", 3, NULL);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSE_WAIT);
	gh_ev(&h);
	CHECK_EQ(h.nev, 3);
	CHECK_EQ(h.ev[0].type, GTOE_EV_CONNECTED);
	CHECK_EQ(h.ev[1].type, GTOE_EV_DATA);
	CHECK_EQ(h.ev[2].type, GTOE_EV_PEER_CLOSED);
	CHECK_EQ(gtoe_readable(h.g, c), 3);
	CHECK_EQ(gh_out(&h, 1 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 505);
	CHECK_EQ(gtoe_next_deadline(h.g), 0); /* nothing outstanding, no keepalive */
	gh_free(&h);
}

int main(void)
{
	test_fin_on_handshake_ack();
	test_active_close();
	test_fin_ack_together();
	test_passive_close();
	test_simultaneous_close();
	test_fin_before_hole();
	test_rst();
	test_challenge_rate_limit();
	test_abort();
	test_keepalive();
	return test_done("gtoe_close");
}
