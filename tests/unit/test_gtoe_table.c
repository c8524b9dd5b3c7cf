/* test_gtoe_table.c - general TOE connection table: many connections at once, slots, events, round robin.
 *
 * 70 slots (not a multiple of 64: the slot bitmap's second word is partial):
 * 70 peers connect to one listener, the 71st SYN finds the table full
 * (dropped and counted, no RST), every connection's data stays its own,
 * segments and events come round robin from every slot, a passive open
 * reset before ESTABLISHED frees its slot without an event, released slots
 * are reused, gtoe_info and the state names report what toectl will show.
 */
#include "test.h"
#include "gtoe_harness.h"

#define N 70
#define MS 1000000ull

static struct gh h;

static void from(uint16_t port, uint64_t now, uint8_t flags, uint32_t seq, uint32_t ack, const void *p, uint32_t n)
{
	struct gtoe_seg s;
	memset(&s, 0, sizeof s);
	s.saddr = GH_PEER;
	s.daddr = GH_US;
	s.sport = port;
	s.dport = 80;
	s.flags = flags;
	s.seq = seq;
	s.ack = ack;
	s.win = 65535;
	s.data[0] = p;
	s.len[0] = n;
	gtoe_input_seg(h.g, &s, now);
}

int main(void)
{
	struct gtoe_cfg cfg;
	struct gtoe_info in;
	uint32_t iss[N + 1], i, seen[N];
	int32_t c;
	char msg[16], got[16];

	gtoe_cfg_default(&cfg);
	cfg.max_conns = N;
	CHECK_EQ(gh_init(&h, &cfg), 0);
	CHECK_EQ(gtoe_listen(h.g, GH_US, 80), 0);
	for (i = 0; i < N; i++)
		from((uint16_t)(1000 + i), 0, TCP_SYN, 100 * i, 0, NULL, 0);
	from(2000, 0, TCP_SYN, 5, 0, NULL, 0);
	CHECK_EQ(h.g->st.drop_listen_full, 1);
	CHECK_EQ(gh_out(&h, 0), N); /* one SYN-ACK each, no RST for the 71st */
	memset(seen, 0, sizeof seen);
	for (i = 0; i < N; i++) {
		uint32_t p = h.out[i].s.dport - 1000u;
		CHECK(p < N);
		if (p >= N)
			continue;
		CHECK_EQ(h.out[i].s.flags, TCP_SYN | TCP_ACK);
		CHECK_EQ(h.out[i].s.ack, 100 * p + 1);
		seen[p]++;
		iss[p] = h.out[i].s.seq;
	}
	for (i = 0; i < N; i++)
		CHECK_EQ(seen[i], 1);
	/* handshakes complete, each with 5 bytes of its own */
	for (i = 0; i < N; i++) {
		from((uint16_t)(1000 + i), 1 * MS, TCP_ACK, 100 * i + 1, iss[i] + 1, NULL, 0);
		snprintf(msg, sizeof msg, "m%04u", i);
		from((uint16_t)(1000 + i), 1 * MS, TCP_ACK | TCP_PSH, 100 * i + 1, iss[i] + 1, msg, 5);
	}
	CHECK_EQ(h.g->st.accepts, N);
	CHECK_EQ(gh_ev(&h), 2 * N);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_CONNECTED), N);
	CHECK_EQ(gh_ev_count(&h, GTOE_EV_DATA), N);
	for (i = 0; i < N; i++) {
		c = gtoe_find(h.g, GH_US, 80, GH_PEER, (uint16_t)(1000 + i));
		CHECK(c >= 0);
		if (c < 0)
			continue;
		snprintf(msg, sizeof msg, "m%04u", i);
		CHECK_EQ(gtoe_recv(h.g, c, (uint8_t *)got, sizeof got), 5);
		CHECK_MEM(got, msg, 5);
		CHECK_EQ(h.g->conn[c].listener, 0);
	}
	/* the delayed ACKs of all 70 come from the timer, round robin */
	gtoe_poll(h.g, 50 * MS);
	CHECK_EQ(gh_out(&h, 50 * MS), N);
	/* sending on the last slot and on slot 3 */
	CHECK_EQ(gtoe_send(h.g, N - 1, (const uint8_t *)"x", 1), 1);
	CHECK_EQ(gtoe_send(h.g, 3, (const uint8_t *)"y", 1), 1);
	CHECK_EQ(gh_out(&h, 51 * MS), 2);
	CHECK(h.out[0].s.conn == 3 || h.out[1].s.conn == 3);
	CHECK(h.out[0].s.conn == N - 1 || h.out[1].s.conn == N - 1);
	CHECK_EQ(gtoe_info(h.g, 3, &in), GTOE_OK);
	CHECK_EQ(in.state, GTOE_ESTABLISHED);
	CHECK_EQ(in.in_flight, 1);
	CHECK(strcmp(gtoe_state_name(in.state), "ESTABLISHED") == 0);
	CHECK(strcmp(gtoe_state_name(GTOE_TIME_WAIT), "TIME-WAIT") == 0);
	/* abort slot 5 and release it: the slot is free for the next SYN */
	c = 5;
	CHECK_EQ(gtoe_abort(h.g, c), GTOE_OK);
	CHECK_EQ(gh_out(&h, 52 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_RST | TCP_ACK);
	CHECK_EQ(gtoe_release(h.g, c), GTOE_OK);
	CHECK_EQ(gtoe_info(h.g, c, &in), GTOE_ERR_CONN);
	from(3000, 53 * MS, TCP_SYN, 7, 0, NULL, 0);
	CHECK_EQ(gtoe_find(h.g, GH_US, 80, GH_PEER, 3000), 5);
	gh_out(&h, 53 * MS);
	/* reset before ESTABLISHED: the slot goes back silently */
	from(3000, 54 * MS, TCP_RST, 8, 0, NULL, 0);
	CHECK_EQ(gtoe_find(h.g, GH_US, 80, GH_PEER, 3000), -1);
	CHECK_EQ(gh_ev(&h), 0);
	/* releasing an open connection closes it like close(): FIN, later data ACKed and discarded, no events */
	gtoe_release(h.g, 7);
	CHECK_EQ(gh_out(&h, 55 * MS), 1);
	CHECK_EQ(h.out[0].s.flags, TCP_ACK | TCP_FIN);
	CHECK_EQ(h.g->conn[7].state, GTOE_FIN_WAIT_1);
	from(1007, 56 * MS, TCP_ACK | TCP_PSH, 100 * 7 + 6, iss[7] + 2, "zz", 2);
	CHECK_EQ(gh_ev(&h), 0);
	CHECK_EQ(gtoe_readable(h.g, 7), 0);
	CHECK_EQ(h.g->conn[7].state, GTOE_FIN_WAIT_2);
	from(1007, 57 * MS, TCP_ACK | TCP_FIN, 100 * 7 + 8, iss[7] + 2, NULL, 0);
	CHECK_EQ(h.g->conn[7].state, GTOE_TIME_WAIT);
	CHECK_EQ(gh_out(&h, 57 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, 100 * 7 + 9);
	gtoe_poll(h.g, 57 * MS + 2 * GTOE_DEFAULT_MSL_NS);
	CHECK_EQ(h.g->conn[7].state, GTOE_FREE); /* released and closed: the slot is free */
	gh_free(&h);
	return test_done("gtoe_table");
}
