/* test_gtoe_wrap.c - general TOE: sequence numbers across 2^32 in both directions.
 *
 * Our ISN and the peer's just below 2^32: out-of-order data and SACK
 * blocks that straddle the wrap, retransmission and the FIN after it,
 * buffers addressed by seq & mask on both sides of zero.
 */
#include "test.h"
#include "gtoe_harness.h"

#define MS 1000000ull

static struct gh h;
static uint8_t data[8000];

int main(void)
{
	struct gtoe_seg o;
	int32_t c;
	uint32_t irs = 0xfffffa00u, iss = 0xfffff900u, i;
	uint8_t got[8000];
	struct gtoe_conn *k;

	for (i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 29 + 3);
	memset(&o, 0, sizeof o);
	o.has_mss = 1;
	o.mss = 1000;
	o.sack_ok = 1;
	CHECK_EQ(gh_init(&h, NULL), 0);
	c = gtoe_connect(h.g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, 0);
	k = &h.g->conn[c];
	k->iss = k->snd_una = k->snd_nxt = k->snd_max = k->recover = iss;
	k->snd_end = iss + 1;
	CHECK_EQ(gh_out(&h, 0), 1);
	CHECK_EQ(h.out[0].s.seq, iss);
	gh_peer(&h, 1 * MS, TCP_SYN | TCP_ACK, irs, iss + 1, 65535, NULL, 0, &o);
	CHECK_EQ(k->state, GTOE_ESTABLISHED);
	gh_out(&h, 1 * MS);
	o.has_mss = o.sack_ok = 0;

	/* receive: stream offset x is seq irs + 1 + x; 0 is crossed at x = 0x5ff */
	gh_peer(&h, 2 * MS, TCP_ACK, irs + 1 + 2000, iss + 1, 65535, data + 2000, 1000, &o); /* beyond the wrap */
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, irs + 1);
	CHECK_EQ(h.out[0].s.nsack, 1);
	CHECK_EQ(h.out[0].s.sack[0][0], irs + 1 + 2000);
	CHECK_EQ(h.out[0].s.sack[0][1], irs + 1 + 3000);
	gh_peer(&h, 2 * MS, TCP_ACK, irs + 1 + 1000, iss + 1, 65535, data + 1000, 1000, &o); /* straddles 0 */
	CHECK_EQ(gh_out(&h, 2 * MS), 1);
	CHECK_EQ(h.out[0].s.sack[0][0], irs + 1 + 1000);
	CHECK_EQ(h.out[0].s.sack[0][1], irs + 1 + 3000); /* merged across the wrap */
	CHECK(h.out[0].s.sack[0][0] > h.out[0].s.sack[0][1]); /* numerically: 0xfffffde9.. then 0x3b9 */
	gh_peer(&h, 3 * MS, TCP_ACK, irs + 1, iss + 1, 65535, data, 1000, &o);
	CHECK_EQ(gh_out(&h, 3 * MS), 1);
	CHECK_EQ(h.out[0].s.ack, irs + 1 + 3000);
	CHECK_EQ(h.out[0].s.nsack, 0);
	CHECK_EQ(gtoe_recv(h.g, c, got, sizeof got), 3000);
	CHECK_MEM(got, data, 3000);

	/* send 4000 bytes from iss + 1: the wrap is at byte 0x6ff */
	CHECK_EQ(gtoe_send(h.g, c, data, 4000), 4000);
	CHECK_EQ(gh_out(&h, 4 * MS), 4);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(h.out[i].s.seq, iss + 1 + 1000 * i);
		CHECK_MEM(h.out[i].buf, data + 1000 * i, 1000);
	}
	/* the first two are lost: ACK of nothing new three times, then the fast retransmit */
	for (i = 0; i < 3; i++)
		gh_peer(&h, 5 * MS, TCP_ACK, irs + 3001, iss + 1, 65535, NULL, 0, &o);
	CHECK_EQ(gh_out(&h, 5 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, iss + 1);
	CHECK_MEM(h.out[0].buf, data, 1000);
	/* partial ACK across the wrap: the second segment (straddling 0) is retransmitted */
	gh_peer(&h, 6 * MS, TCP_ACK, irs + 3001, iss + 1001, 65535, NULL, 0, &o);
	CHECK_EQ(gh_out(&h, 6 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, iss + 1001);
	CHECK_EQ(h.out[0].plen, 1000);
	CHECK_MEM(h.out[0].buf, data + 1000, 1000);
	gh_peer(&h, 7 * MS, TCP_ACK, irs + 3001, iss + 4001, 65535, NULL, 0, &o);
	CHECK_EQ(k->snd_una, iss + 4001);
	CHECK(k->snd_una < 0x1000u);
	CHECK_EQ(k->rto_at, 0);
	/* FIN after the wrap */
	gtoe_shutdown(h.g, c);
	CHECK_EQ(gh_out(&h, 8 * MS), 1);
	CHECK_EQ(h.out[0].s.seq, iss + 4001);
	gh_peer(&h, 9 * MS, TCP_ACK | TCP_FIN, irs + 3001, iss + 4002, 65535, NULL, 0, &o);
	CHECK_EQ(k->state, GTOE_TIME_WAIT);
	CHECK_EQ(k->st.retrans, 2);
	gh_free(&h);
	return test_done("gtoe_wrap");
}
