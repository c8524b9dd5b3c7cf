/* test_gtoe_loopback.c - two general-TOE endpoints through a bad in-memory wire, frames and all.
 *
 * Endpoint A (10.0.0.1) connects to endpoint B (10.0.0.2, listening) across
 * an Ethernet "wire" that loses, duplicates, delays (reorders) and corrupts
 * frames in both directions, in simulated time. Each side is what the
 * daemon will be: net_rx (checksums verified) -> ARP responder / gtoe
 * input; gtoe_tx_next -> net_tx_route (ARP resolver: the first segments
 * wait for ARP and are dropped, TCP retransmits them) -> gtoe_frame. Both
 * ISNs are set just below 2^32 so the sequence numbers wrap early.
 * B sends 2 MB and A 256 KB at the same time; every byte is checked. Then B
 * closes (active close: FIN-WAIT, TIME-WAIT for 2 MSL), A closes on B's FIN
 * (CLOSE-WAIT, LAST-ACK). The counters must show that loss
 * recovery really ran (retransmissions, SACK blocks, out-of-order data,
 * checksum drops) and that the whole transfer finished without a timeout.
 */
#include <stdlib.h>

#include "test.h"
#include "toe/gtoe.h"
#include "toe/gtoe_frame.h"
#include "net/net_rx.h"
#include "net/net_tx.h"
#include "net/net_arp.h"

#define US 1000ull
#define MS 1000000ull
#define WIRE_MAX 8192
#define FRAME_MAX 1600
#define B_BYTES (2u << 20)
#define A_BYTES (256u << 10)

struct wframe {
	uint64_t at;
	uint32_t len;
	int to;       /* 0: to A, 1: to B */
	uint8_t b[FRAME_MAX];
};

struct side {
	struct gtoe g;
	uint8_t *mem;
	struct net_cfg nc;
	struct net_stats ns;
	struct net_arp arp;
	uint16_t ip_id;
	int32_t conn;
	uint64_t sent, rcvd;   /* application bytes */
	uint32_t total;        /* bytes to send */
	uint8_t salt;
	int peer_closed, closed, shut;
	uint64_t arp_wait_drops;
};

static struct side S[2];
static struct wframe *wire;
static uint32_t nwire;
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t lost, duped, delayed, corrupted;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static uint8_t pattern(uint8_t salt, uint64_t i)
{
	return (uint8_t)(salt ^ (i * 131) ^ (i >> 9));
}

static void wire_put(int to, const uint8_t *f, uint32_t len, uint64_t now)
{
	uint32_t r = rnd() % 1000, copies = 1, k;
	if (r < 15) { /* 1.5% loss */
		lost++;
		return;
	}
	if (r < 20) { /* 0.5% duplicated */
		copies = 2;
		duped++;
	}
	for (k = 0; k < copies && nwire < WIRE_MAX; k++) {
		struct wframe *w = &wire[nwire++];
		w->at = now + 100 * US;
		if (rnd() % 100 < 5) { /* 5% held back up to 2 ms: reordering */
			w->at += (rnd() % 2000) * US;
			delayed++;
		}
		w->len = len;
		w->to = to;
		memcpy(w->b, f, len);
		if (rnd() % 1000 < 2 && len > 60) { /* 0.2% corrupted: the checksums must catch it */
			w->b[len - 1 - rnd() % 40] ^= 0x10;
			corrupted++;
		}
	}
}

static void side_init(struct side *s, uint32_t ip, uint8_t last, uint8_t salt, uint32_t total)
{
	struct gtoe_cfg cfg;
	uint8_t mac[6] = { 0x02, 0, 0, 0, 0, last };
	gtoe_cfg_default(&cfg);
	cfg.msl_ns = 500 * MS;
	cfg.max_conns = 4;
	cfg.isn_key = salt;
	s->mem = calloc(1, GTOE_BUF_BYTES(&cfg));
	CHECK(s->mem != NULL);
	CHECK_EQ(gtoe_init(&s->g, &cfg, s->mem, GTOE_BUF_BYTES(&cfg)), GTOE_OK);
	net_cfg_init(&s->nc);
	net_cfg_add(&s->nc, ip, 0xffffff00u, mac, 0);
	net_stats_init(&s->ns);
	net_arp_init(&s->arp);
	s->conn = -1;
	s->salt = salt;
	s->total = total;
}

static void set_iss(struct gtoe_conn *c, uint32_t iss)
{
	c->iss = c->snd_una = c->snd_nxt = c->snd_max = c->recover = iss;
	c->snd_end = iss + 1;
}

static void side_rx(int me, const uint8_t *f, uint32_t len, uint64_t now)
{
	struct side *s = &S[me];
	struct net_pkt pkt;
	uint8_t out[128];
	uint32_t n;
	enum net_rx_verdict v = net_rx(&s->nc, &s->ns, f, len, now, &pkt);
	if (v == NET_RX_ARP) {
		n = net_arp_input(&s->arp, &s->nc, &s->ns, &pkt, now, out, sizeof out);
		if (n)
			wire_put(!me, out, n, now);
	} else if (v == NET_RX_TCP) {
		gtoe_input_pkt(&s->g, &pkt, now);
		if (s->conn < 0) { /* B: the passive open just appeared; move its ISN near the wrap */
			int32_t c = gtoe_find(&s->g, pkt.daddr, pkt.dport, pkt.saddr, pkt.sport);
			if (c >= 0 && s->g.conn[c].state == GTOE_SYN_RCVD && s->g.conn[c].snd_max == s->g.conn[c].iss) {
				set_iss(&s->g.conn[c], 0xffffff00u);
				s->conn = c;
			}
		}
	}
}

static void side_tx(int me, uint64_t now)
{
	struct side *s = &S[me];
	struct gtoe_seg seg;
	struct net_tx_l2 l2;
	uint8_t f[FRAME_MAX], arpf[NET_ARP_FRAME_MAX];
	uint32_t n, alen;
	enum net_arp_result r;
	while (gtoe_tx_next(&s->g, now, &seg)) {
		r = net_tx_route(&s->arp, &s->nc, &s->ns, 0, seg.saddr, seg.daddr, now, &l2, arpf, sizeof arpf, &alen);
		if (alen)
			wire_put(!me, arpf, alen, now);
		if (r != NET_ARP_OK) {
			s->arp_wait_drops++; /* the daemon counts these too; TCP sends again */
			continue;
		}
		n = gtoe_frame(&seg, &l2, s->ip_id++, f, sizeof f);
		CHECK(n > 0);
		wire_put(!me, f, n, now);
	}
}

static void side_app(int me, uint64_t now)
{
	struct side *s = &S[me];
	struct gtoe_event ev;
	uint8_t buf[4096];
	int32_t n, i;
	(void)now;
	while (gtoe_ev_next(&s->g, &ev)) {
		if (ev.type == GTOE_EV_PEER_CLOSED)
			s->peer_closed = 1;
		if (ev.type == GTOE_EV_CLOSED)
			s->closed = 1;
		CHECK(ev.type != GTOE_EV_RESET && ev.type != GTOE_EV_ERROR);
	}
	if (s->conn < 0)
		return;
	for (;;) {
		n = gtoe_recv(&s->g, s->conn, buf, sizeof buf);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			if (buf[i] != pattern(S[!me].salt, s->rcvd + (uint64_t)i)) {
				CHECK(buf[i] == pattern(S[!me].salt, s->rcvd + (uint64_t)i));
				break;
			}
		s->rcvd += (uint64_t)n;
	}
	while (s->sent < s->total) {
		uint32_t k, want = (uint32_t)(s->total - s->sent < sizeof buf ? s->total - s->sent : sizeof buf);
		for (k = 0; k < want; k++)
			buf[k] = pattern(s->salt, s->sent + k);
		n = gtoe_send(&s->g, s->conn, buf, want);
		if (n <= 0)
			break;
		s->sent += (uint64_t)n;
	}
}

int main(void)
{
	uint64_t now = 0, end;
	uint32_t i, j, k;
	struct gtoe_info ia, ib;

	wire = calloc(WIRE_MAX, sizeof *wire);
	CHECK(wire != NULL);
	side_init(&S[0], 0x0a000001u, 1, 0x11, A_BYTES);
	side_init(&S[1], 0x0a000002u, 2, 0x22, B_BYTES);
	CHECK_EQ(gtoe_listen(&S[1].g, 0x0a000002u, 9000), 0);
	S[0].conn = gtoe_connect(&S[0].g, 0x0a000001u, 0, 0x0a000002u, 9000, 0);
	CHECK(S[0].conn >= 0);
	set_iss(&S[0].g.conn[S[0].conn], 0xfffffff0u);

	end = 60000 * MS;
	for (now = 0; now < end; now += 50 * US) {
		/* deliver due frames in time order */
		for (k = 0; k < WIRE_MAX; k++) {
			uint32_t best = nwire;
			for (i = 0; i < nwire; i++)
				if (wire[i].at <= now && (best == nwire || wire[i].at < wire[best].at))
					best = i;
			if (best == nwire)
				break;
			{
				static struct wframe w;
				w = wire[best];
				wire[best] = wire[--nwire];
				side_rx(w.to, w.b, w.len, now);
			}
		}
		for (j = 0; j < 2; j++) {
			gtoe_poll(&S[j].g, now);
			side_app((int)j, now);
			side_tx((int)j, now);
		}
		/* B closes after its last byte; A closes after B's FIN and its own last byte */
		if (!S[1].shut && S[1].sent == B_BYTES) {
			CHECK_EQ(gtoe_shutdown(&S[1].g, S[1].conn), GTOE_OK);
			S[1].shut = 1;
		}
		if (!S[0].shut && S[0].peer_closed && S[0].sent == A_BYTES) {
			CHECK_EQ(gtoe_shutdown(&S[0].g, S[0].conn), GTOE_OK);
			S[0].shut = 1;
		}
		if (S[0].shut && S[1].closed && S[0].g.conn[S[0].conn].state == GTOE_CLOSED)
			break;
	}
	printf("loopback: simulated %.3f s; wire lost %llu dup %llu delayed %llu corrupted %llu\n", (double)now / 1e9,
	       (unsigned long long)lost, (unsigned long long)duped, (unsigned long long)delayed,
	       (unsigned long long)corrupted);
	CHECK_EQ(S[0].rcvd, B_BYTES);
	CHECK_EQ(S[1].rcvd, A_BYTES);
	CHECK(S[0].peer_closed);
	CHECK(S[1].peer_closed);
	CHECK(S[1].closed);
	CHECK(S[0].closed);
	CHECK(now < end);
	CHECK_EQ(S[0].g.conn[S[0].conn].state, GTOE_CLOSED); /* after LAST-ACK */
	CHECK_EQ(S[1].g.conn[S[1].conn].state, GTOE_TIME_WAIT);
	gtoe_poll(&S[1].g, now + 999 * MS);
	CHECK_EQ(S[1].g.conn[S[1].conn].state, GTOE_TIME_WAIT);
	gtoe_poll(&S[1].g, now + 1001 * MS); /* 2 MSL = 1 s here */
	CHECK_EQ(S[1].g.conn[S[1].conn].state, GTOE_CLOSED);
	CHECK_EQ(gtoe_info(&S[0].g, S[0].conn, &ia), GTOE_OK);
	CHECK_EQ(gtoe_info(&S[1].g, S[1].conn, &ib), GTOE_OK);
	printf("B->A: segs %llu retrans %llu (by SACK %llu) fast %llu partial %llu rto %llu | A: ooo %llu dup %llu sacks_out %llu | "
	       "B sack_blocks_in %llu | srtt %.3f ms\n",
	       (unsigned long long)ib.st.segs_out, (unsigned long long)ib.st.retrans, (unsigned long long)ib.st.sack_rtx,
	       (unsigned long long)ib.st.fast_retrans, (unsigned long long)ib.st.partial_acks,
	       (unsigned long long)ib.st.rto_expiries, (unsigned long long)ia.st.out_of_order,
	       (unsigned long long)ia.st.dup_segs, (unsigned long long)ia.st.sacks_out,
	       (unsigned long long)ib.st.sack_blocks_in, (double)ib.srtt_ns / 1e6);
	printf("B dup_acks_in %llu recoveries %llu\n", (unsigned long long)ib.st.dup_acks_in, (unsigned long long)ib.st.recoveries);
	printf("A->B: retrans %llu fast %llu rto %llu | csum drops A %llu B %llu | arp waits A %llu B %llu\n",
	       (unsigned long long)ia.st.retrans, (unsigned long long)ia.st.fast_retrans,
	       (unsigned long long)ia.st.rto_expiries,
	       (unsigned long long)(S[0].ns.tcp.drop_tcp_csum + S[0].ns.ip.drop_ip_csum),
	       (unsigned long long)(S[1].ns.tcp.drop_tcp_csum + S[1].ns.ip.drop_ip_csum),
	       (unsigned long long)S[0].arp_wait_drops, (unsigned long long)S[1].arp_wait_drops);
	CHECK(ib.st.retrans > 0);
	CHECK(ib.st.fast_retrans > 0);
	CHECK(ib.st.sack_rtx > 0);
	CHECK(ia.st.out_of_order > 0);
	CHECK(ia.st.sacks_out > 0);
	CHECK(ib.st.sack_blocks_in > 0);
	CHECK(ia.st.dup_segs > 0);
	CHECK(lost > 0 && duped > 0 && delayed > 0);
	CHECK(S[0].arp_wait_drops > 0);  /* the SYN waited for ARP */
	CHECK(S[0].ns.arp.out_requests >= 1 && S[1].ns.arp.out_replies >= 1);
	CHECK_EQ(S[0].g.st.timeouts + S[1].g.st.timeouts, 0);
	CHECK(ib.srtt_ns > 100 * US && ib.srtt_ns < 50 * MS);
	free(S[0].mem);
	free(S[1].mem);
	free(wire);
	return test_done("gtoe_loopback");
}
