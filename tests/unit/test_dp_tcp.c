/* test_dp_tcp.c - dp/dp_tcp: a port with an address answers ARP and ping, and opens its feed's connection.
 *
 * A role = tcp port (10.0.0.5/24, gateway 10.0.0.1, mac 02:00:00:00:00:05)
 * with one TCP feed at 10.9.0.1:5261, off the port's subnet. A test source
 * (the src operations with a transmit that keeps the frames) stands in for
 * AF_XDP. Frames are built by tests/lib/pktbuild (independent of kernels/net):
 *   - an ARP request for 10.0.0.5 is answered (reply to the asker, our MAC);
 *     one for another address is not;
 *   - an ICMP echo request to 10.0.0.5 is answered with the same id, sequence
 *     and data;
 *   - the first tick asks ARP for the gateway (not the exchange: off subnet);
 *     once the gateway answers, the next tick sends the SYN to the gateway's
 *     MAC with the exchange as IP destination;
 *   - the exchange's SYN-ACK makes the connection ESTABLISHED: the pipeline
 *     gets an OPEN (a RESET record), the ACK goes out; data in order goes to
 *     the decoder's stream (bytes_in); the exchange's RST ends it (a CLOSE)
 *     and a reconnect is scheduled after the backoff;
 *   - the session seam: the hooks see the open, the in-order bytes, the ticks
 *     and the close; dp_tcp_send puts bytes on the connection (a data
 *     segment carrying them), and refuses while it is not up;
 *   - the STEP session (dp/dp_sess.c as the hooks, a feed with sender_comp_id):
 *     the connection's open sends the Logon, the exchange's Logon answer logs
 *     it on; then the exchange falls silent: a TestRequest goes out, then the
 *     session gives up and closes the connection (a FIN), counted in the
 *     feed's session report; the exchange ACKs the FIN but never closes its
 *     side: toed resets the connection after DP_TCP_CLOSE_WAIT_NS, the stream
 *     closes and a reconnect is due.
 */
#include "test.h"
#include "conf_text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dp/dp_setup.h"
#include "dp/dp_sess.h"
#include "dp/dp_tcp.h"
#include "net/net_pkt.h"
#include "pktbuild.h"
#include "src/src_impl.h"
#include "tx_capture.h"

static char g_tpl[PATH_MAX];

static const uint8_t OUR_MAC[6] = { 2, 0, 0, 0, 0, 5 };
static const uint8_t GW_MAC[6] = { 2, 0, 0, 0, 0, 1 };
#define OUR_IP 0x0a000005u
#define GW_IP 0x0a000001u
#define EX_IP 0x0a090001u


struct rig {
	struct toed_config *cfg;
	struct rx_cfg rc;
	struct rx_pipe *pipe;
	struct fast_stream *fs;
	uint8_t *mbuf;
	struct dp_tcp *t;
	struct tx_capture src;
	uint8_t **held;  /* frames given to dp_tcp_frame and not yet given back */
	uint32_t nheld;
};

static int rig_up_feed(struct rig *r, const char *feed);
static int rig_up(struct rig *r) { return rig_up_feed(r, "exchange = 10.9.0.1:5261\n"); }

/* [feed.sse] holds FEED (its keys, one a line) */
static int rig_up_feed(struct rig *r, const char *feed)
{
	char text[PATH_MAX + 512], err[256];
	int rc;
	memset(r, 0, sizeof *r);
	r->cfg = malloc(sizeof *r->cfg);
	snprintf(text, sizeof text,
		 "[source]\ntype = af_xdp\ninterface = lo\n"
		 "[port]\nrole = tcp\nip = 10.0.0.5\nnetmask = 24\ngateway = 10.0.0.1\nmac = 02:00:00:00:00:05\n"
		 "[feed.sse]\n%s[tcp]\nconnections = 4\n[fast]\ntemplates = %s\n",
		 feed, g_tpl);
	rc = conf_text_load("/tmp/dp_tcp.conf", text, r->cfg);
	CHECK_EQ(rc, 0);
	if (rc)
		return -1;
	rx_cfg_default(&r->rc);
	CHECK_EQ(dp_setup_rx(r->cfg, &r->rc, NULL, err, sizeof err), 0);
	r->t = calloc(1, sizeof *r->t);
	if (dp_tcp_init(r->t, r->cfg, &r->rc.net, err, sizeof err) < 0) {
		fprintf(stderr, "dp_tcp_init: %s\n", err);
		CHECK(0);
		return -1;
	}
	uint32_t nfs = RX_NSTREAMS(&r->rc);
	uint64_t blen = MTOE_BUF_BYTES(r->rc.mtoe.max_conns, r->rc.mtoe.window);
	r->pipe = calloc(1, sizeof *r->pipe);
	r->fs = calloc(nfs, sizeof *r->fs);
	r->mbuf = malloc(blen);
	CHECK_EQ(rx_init(r->pipe, &r->rc, &r->cfg->fast.prog, r->fs, nfs, r->mbuf, blen), RX_OK);
	tx_capture_init(&r->src);
	r->t->resp.src = &r->src.base;
	return 0;
}

/* Frames go back (freed: ASan reports a read of one later) once dp_tcp_pump returned 0. */
static void frames_back(struct rig *r)
{
	for (uint32_t i = 0; i < r->nheld; i++)
		free(r->held[i]);
	r->nheld = 0;
}

static void rig_down(struct rig *r)
{
	frames_back(r);
	free(r->held);
	dp_tcp_free(r->t);
	free(r->t);
	free(r->pipe);
	free(r->fs);
	free(r->mbuf);
	free(r->cfg);
}

/* the pipeline's entries after a frame or a tick: counts by kind */
static void pump(struct rig *r, uint64_t ts, uint32_t *resets, uint32_t *others)
{
	struct rx_out o;
	while (rx_next(r->pipe, &o))
		;
	while (dp_tcp_pump(r->t, r->pipe, ts))
		while (rx_next(r->pipe, &o)) {
			if (o.kind == RX_OUT_RESET)
				(*resets)++;
			else
				(*others)++;
		}
	/* dp_tcp_pump's contract: once it returned 0 the endpoint holds no byte in a frame */
	CHECK_EQ(r->t->g->dir.len, 0);
	frames_back(r);
}

/* A received frame, in memory of its own as a source's (it stays until the next pump ends). */
static void frame_in(struct rig *r, const uint8_t *f, size_t n, uint64_t now)
{
	uint8_t *m = malloc(n ? n : 1);
	uint8_t **h = realloc(r->held, (r->nheld + 1) * sizeof *h);
	CHECK(m && h);
	if (!m || !h)
		abort();
	memcpy(m, f, n);
	r->held = h;
	r->held[r->nheld++] = m;
	dp_tcp_frame(r->t, r->pipe, m, (uint32_t)n, now, SRC_CSUM_UNKNOWN, now);
}

/* The gateway answers our ARP request for its MAC. */
static void gw_arp_reply(struct rig *r, uint64_t now)
{
	struct pb_spec s;
	uint8_t f[512];
	pb_init(&s);
	memcpy(s.dst_mac, OUR_MAC, 6);
	memcpy(s.src_mac, GW_MAC, 6);
	s.arp_op = 2;
	memcpy(s.arp_sha, GW_MAC, 6);
	memcpy(s.arp_tha, OUR_MAC, 6);
	s.arp_spa = GW_IP;
	s.arp_tpa = OUR_IP;
	frame_in(r, f, pb_arp(f, sizeof f, &s), now);
}

/* The exchange (through the gateway) answers our SYN from local port lport with ISS iss: SYN-ACK,
 * its ISN 5000, window 65535. s keeps the connection's addresses for the segments that follow. */
static void exchange_synack(struct rig *r, struct pb_spec *s, uint16_t lport, uint32_t iss, uint64_t now)
{
	uint8_t f[512];
	pb_init(s);
	memcpy(s->dst_mac, OUR_MAC, 6);
	memcpy(s->src_mac, GW_MAC, 6);
	s->saddr = EX_IP;
	s->daddr = OUR_IP;
	s->sport = 5261;
	s->dport = lport;
	s->seq = 5000;
	s->ack = iss + 1;
	s->tcp_flags = 0x12;
	s->win = 65535;
	frame_in(r, f, pb_tcp(f, sizeof f, s, NULL, 0), now);
}

static void test_arp_icmp(void)
{
	struct rig r;
	struct pb_spec s;
	uint8_t f[256];
	size_t n;
	if (rig_up(&r) < 0)
		return;
	/* who has 10.0.0.5? from 10.0.0.9 */
	pb_init(&s);
	memset(s.dst_mac, 0xff, 6);
	s.src_mac[5] = 9;
	s.arp_op = 1;
	memcpy(s.arp_sha, s.src_mac, 6);
	s.arp_spa = 0x0a000009;
	s.arp_tpa = OUR_IP;
	n = pb_arp(f, sizeof f, &s);
	frame_in(&r, f, n, 1000);
	CHECK_EQ(r.src.n, 1);
	CHECK_EQ(r.t->resp.st.arp_replies, 1);
	if (r.src.n == 1) {
		const uint8_t *p = r.src.frame[0];
		CHECK_MEM(p, s.src_mac, 6);         /* to the asker */
		CHECK_MEM(p + 6, OUR_MAC, 6);        /* from us */
		CHECK_EQ(be16(p + 12), 0x0806);
		CHECK_EQ(be16(p + 14 + 6), 2);       /* reply */
		CHECK_MEM(p + 14 + 8, OUR_MAC, 6);   /* sender hardware address: ours */
		CHECK_EQ(be32(p + 14 + 14), OUR_IP);
	}
	/* another address: not ours to answer */
	s.arp_tpa = 0x0a000007;
	n = pb_arp(f, sizeof f, &s);
	frame_in(&r, f, n, 2000);
	CHECK_EQ(r.src.n, 1);

	/* ping 10.0.0.5 */
	static const uint8_t data[] = "0123456789abcdef";
	pb_init(&s);
	memcpy(s.dst_mac, OUR_MAC, 6);
	s.saddr = 0x0a000009;
	s.daddr = OUR_IP;
	s.icmp_type = 8;
	s.icmp_id = 0x1234;
	s.icmp_seq = 7;
	n = pb_icmp(f, sizeof f, &s, data, sizeof data);
	frame_in(&r, f, n, 3000);
	CHECK_EQ(r.src.n, 2);
	CHECK_EQ(r.t->resp.st.icmp_replies, 1);
	if (r.src.n == 2) {
		const uint8_t *p = r.src.frame[1];
		CHECK_MEM(p + 6, OUR_MAC, 6);
		CHECK_EQ(be32(p + 14 + 12), OUR_IP);      /* source: us */
		CHECK_EQ(be32(p + 14 + 16), 0x0a000009u); /* to the pinger */
		CHECK_EQ(p[14 + 20], 0);                  /* echo reply */
		CHECK_EQ(be16(p + 14 + 24), 0x1234);
		CHECK_EQ(be16(p + 14 + 26), 7);
		CHECK_MEM(p + 14 + 28, data, sizeof data);
	}
	rig_down(&r);
}

/* the session seam: what the hooks saw */
struct seen {
	uint32_t opens, closes, ticks, bytes;
};
static void h_open(void *arg, struct dp_tcp *t, uint32_t feed)
{
	(void)t;
	CHECK_EQ(feed, 0);
	((struct seen *)arg)->opens++;
}
static void h_close(void *arg, struct dp_tcp *t, uint32_t feed)
{
	(void)t, (void)feed;
	((struct seen *)arg)->closes++;
}
static void h_bytes(void *arg, struct dp_tcp *t, uint32_t feed, const uint8_t *data, uint32_t len)
{
	(void)t, (void)feed, (void)data;
	((struct seen *)arg)->bytes += len;
}
static void h_tick(void *arg, struct dp_tcp *t, uint64_t now)
{
	(void)t, (void)now;
	((struct seen *)arg)->ticks++;
}

static void test_connect(void)
{
	struct seen seen = { 0, 0, 0, 0 };
	struct rig r;
	struct pb_spec s;
	uint8_t f[512];
	size_t n;
	uint32_t resets = 0, others = 0;
	uint64_t now = 1000000000ull;
	if (rig_up(&r) < 0)
		return;
	CHECK_EQ(r.t->nfeeds, 1);
	r.t->hooks = (struct dp_tcp_hooks){ &seen, h_open, h_close, h_bytes, h_tick };
	CHECK_EQ(dp_tcp_send(r.t, 0, (const uint8_t *)"x", 1), -1); /* not up yet */
	/* the first tick asks for the gateway's MAC: the exchange is off the subnet */
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.src.n, 1);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_RESOLVING);
	if (r.src.n >= 1) {
		const uint8_t *p = r.src.frame[0];
		CHECK_EQ(be16(p + 12), 0x0806);
		CHECK_EQ(be16(p + 14 + 6), 1);
		CHECK_EQ(be32(p + 14 + 24), GW_IP);
	}
	/* the gateway answers */
	gw_arp_reply(&r, now);
	now += 20000000ull;
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_CONNECTING);
	CHECK_EQ(r.src.n, 2);
	uint32_t iss = 0;
	uint16_t lport = 0;
	if (r.src.n >= 2) {
		const uint8_t *p = r.src.frame[1];
		CHECK_MEM(p, GW_MAC, 6);                 /* to the gateway */
		CHECK_EQ(be16(p + 12), 0x0800);
		CHECK_EQ(be32(p + 14 + 12), OUR_IP);
		CHECK_EQ(be32(p + 14 + 16), EX_IP);      /* for the exchange */
		CHECK_EQ(be16(p + 34 + 2), 5261);
		CHECK_EQ(p[34 + 13] & 0x12, 0x02);       /* SYN */
		lport = be16(p + 34);
		iss = be32(p + 34 + 4);
	}
	/* SYN-ACK from the exchange */
	exchange_synack(&r, &s, lport, iss, now);
	pump(&r, now, &resets, &others);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_UP);
	CHECK_EQ(r.t->st.established, 1);
	CHECK_EQ(resets, 1); /* the OPEN: a RESET record on the stream */
	CHECK_EQ(r.src.n, 3); /* the ACK */
	if (r.src.n >= 3)
		CHECK_EQ(r.src.frame[2][34 + 13] & 0x17, 0x10);
	/* 100 bytes of data in order: to the decoder's stream */
	static uint8_t junk[100];
	memset(junk, 'x', sizeof junk);
	s.seq = 5001;
	s.tcp_flags = 0x18;
	n = pb_tcp(f, sizeof f, &s, junk, sizeof junk);
	frame_in(&r, f, n, now);
	pump(&r, now, &resets, &others);
	CHECK_EQ(r.t->st.bytes_in, 100);
	CHECK_EQ(r.t->f[0].offset, 100);
	CHECK_EQ(r.pipe->sst[0].bytes, 100);
	CHECK_EQ(seen.opens, 1);
	CHECK_EQ(seen.bytes, 100);
	CHECK(seen.ticks >= 2);
	/* that one small segment is ACKed at once: toed's connections are in quick-ACK mode, so the
	 * exchange's TCP (its congestion window, its pacing) never waits for a delayed ACK */
	{
		uint32_t b = r.src.n;
		dp_tcp_flush(r.t, r.pipe, now);
		CHECK_EQ(r.src.n, b + 1);
		if (r.src.n == b + 1) {
			const uint8_t *p = r.src.frame[b];
			CHECK_EQ(p[34 + 13] & 0x17, 0x10);
			CHECK_EQ(be32(p + 34 + 8), 5101);
		}
	}
	/* bytes out on the connection (a logon, a heartbeat): a data segment to the exchange */
	static const char logon[] = "8=STEP.1.0.0\x01" "35=A\x01";
	uint32_t before = r.src.n;
	CHECK_EQ(dp_tcp_send(r.t, 0, (const uint8_t *)logon, sizeof logon - 1), (int32_t)(sizeof logon - 1));
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK(r.src.n > before);
	if (r.src.n > before) {
		const uint8_t *p = r.src.frame[r.src.n - 1];
		uint32_t doff = (uint32_t)(p[34 + 12] >> 4) * 4;
		CHECK_EQ(be16(p + 14 + 2) - 20 - doff, sizeof logon - 1);
		CHECK_MEM(p + 34 + doff, logon, sizeof logon - 1);
	}
	/* RST: the connection ends, the stream closes, a reconnect is due after the backoff */
	s.seq = 5101;
	s.tcp_flags = 0x04;
	n = pb_tcp(f, sizeof f, &s, NULL, 0);
	frame_in(&r, f, n, now);
	pump(&r, now, &resets, &others);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_WAIT);
	CHECK_EQ(r.t->f[0].conn, -1);
	CHECK_EQ(r.t->st.closes, 1);
	CHECK_EQ(r.pipe->sst[0].closes, 1);
	CHECK_EQ(r.t->f[0].backoff_ns, DP_TCP_BACKOFF_MIN_NS);
	CHECK_EQ(seen.closes, 1);
	rig_down(&r);
}

/* a peer on the subnet (PEER_IP + k) ARPs for us, then opens a connection to port 7000 from sport */
#define PEER_IP 0x0a000009u
static const uint8_t PEER_MAC[6] = { 2, 0, 0, 0, 0, 9 };
/* A segment from peer ip:sport to our port 7000 (window 65535): the caller sets seq, ack, flags. */
static void peer_spec(struct pb_spec *s, uint32_t ip, uint16_t sport)
{
	pb_init(s);
	memcpy(s->dst_mac, OUR_MAC, 6);
	memcpy(s->src_mac, PEER_MAC, 6);
	s->saddr = ip;
	s->daddr = OUR_IP;
	s->sport = sport;
	s->dport = 7000;
	s->win = 65535;
}

/* Peer ip asks for our MAC (our answer is dropped from r->src). */
static void peer_arp(struct rig *r, uint32_t ip, uint64_t now)
{
	struct pb_spec s;
	uint8_t f[256];
	pb_init(&s);
	memcpy(s.dst_mac, OUR_MAC, 6);
	memcpy(s.src_mac, PEER_MAC, 6);
	s.arp_op = 1;
	memcpy(s.arp_sha, PEER_MAC, 6);
	s.arp_spa = ip;
	s.arp_tpa = OUR_IP;
	frame_in(r, f, pb_arp(f, sizeof f, &s), now);
	r->src.n = 0;
}

static uint32_t peer_open(struct rig *r, uint32_t ip, uint16_t sport, uint64_t now, uint32_t *resets,
			  uint32_t *others)
{
	struct pb_spec s;
	uint8_t f[256];
	size_t n;
	uint32_t syn_ack = 0;
	peer_arp(r, ip, now);
	peer_spec(&s, ip, sport);
	s.seq = 9000;
	s.tcp_flags = 0x02;
	n = pb_tcp(f, sizeof f, &s, NULL, 0);
	frame_in(r, f, n, now);
	pump(r, now, resets, others);
	dp_tcp_flush(r->t, r->pipe, now);
	CHECK_EQ(r->src.n, 1);
	if (r->src.n >= 1) {
		const uint8_t *p = r->src.frame[0];
		CHECK_MEM(p, PEER_MAC, 6);
		CHECK_EQ(p[34 + 13] & 0x17, 0x12); /* SYN-ACK */
		syn_ack = be32(p + 34 + 4);
	}
	r->src.n = 0;
	s.seq = 9001;
	s.ack = syn_ack + 1;
	s.tcp_flags = 0x10;
	n = pb_tcp(f, sizeof f, &s, NULL, 0);
	frame_in(r, f, n, now);
	pump(r, now, resets, others);
	dp_tcp_flush(r->t, r->pipe, now);
	return syn_ack;
}

/* open = accept: toed listens, takes the exchange's connection, resets others, listens again after a close */
static void test_accept(void)
{
	struct rig r;
	uint32_t resets = 0, others = 0;
	uint64_t now = 1000000000ull;
	if (rig_up_feed(&r, "exchange = 10.0.0.9\nvendor = *:7000\nopen = accept\n") < 0)
		return;
	CHECK_EQ(r.t->nfeeds, 1);
	CHECK_EQ(r.t->f[0].accept, 1);
	CHECK(r.t->f[0].listener >= 0);
	/* [tcp] mss and window (defaults), the listener's limits as gtoe_top's entry gets them */
	CHECK_EQ(r.t->f[0].mss, 1408);
	CHECK_EQ(r.t->f[0].window, 32768);
	CHECK_EQ(r.t->g->listen[r.t->f[0].listener].mss, 1408);
	CHECK_EQ(r.t->g->listen[r.t->f[0].listener].win, 32768);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_LISTEN);
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.src.n, 0); /* no SYN, no ARP: it waits */
	/* a stranger (10.0.0.8): its handshake completes in TCP, then toed resets it */
	peer_open(&r, PEER_IP - 1, 4000, now, &resets, &others);
	CHECK_EQ(r.t->st.accept_refused, 1);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_LISTEN);
	CHECK_EQ(r.t->f[0].conn, -1);
	CHECK_EQ(r.src.n, 1);
	if (r.src.n >= 1)
		CHECK_EQ(r.src.frame[0][34 + 13] & 0x04, 0x04); /* RST */
	CHECK_EQ(resets, 0);
	/* the exchange: accepted, the stream opens, its bytes reach the decoder */
	uint32_t iss = peer_open(&r, PEER_IP, 4001, now, &resets, &others);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_UP);
	CHECK(r.t->f[0].conn >= 0);
	CHECK_EQ(r.t->st.established, 1);
	CHECK_EQ(r.t->f[0].ups, 1);
	CHECK_EQ(resets, 1); /* the OPEN */
	struct pb_spec s;
	uint8_t f[256];
	size_t n;
	static uint8_t junk[64];
	peer_spec(&s, PEER_IP, 4001);
	s.seq = 9001;
	s.ack = iss + 1;
	s.tcp_flags = 0x18;
	n = pb_tcp(f, sizeof f, &s, junk, sizeof junk);
	frame_in(&r, f, n, now);
	pump(&r, now, &resets, &others);
	dp_tcp_flush(r.t, r.pipe, now); /* its ACK */
	CHECK_EQ(r.t->st.bytes_in, sizeof junk);
	/* a second connection from the exchange while one is up: reset */
	peer_open(&r, PEER_IP, 4002, now, &resets, &others);
	CHECK_EQ(r.t->st.accept_refused, 2);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_UP);
	/* the exchange resets: the stream closes, toed listens again (no reconnect) */
	s.seq = 9001 + sizeof junk;
	s.tcp_flags = 0x04;
	n = pb_tcp(f, sizeof f, &s, NULL, 0);
	frame_in(&r, f, n, now);
	pump(&r, now, &resets, &others);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_LISTEN);
	CHECK_EQ(r.t->f[0].conn, -1);
	CHECK_EQ(r.pipe->sst[0].closes, 1);
	r.src.n = 0;
	now += 10 * DP_TCP_BACKOFF_MAX_NS;
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.src.n, 0);
	/* and takes the next one */
	peer_open(&r, PEER_IP, 4003, now, &resets, &others);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_UP);
	CHECK_EQ(r.t->f[0].ups, 2);
	rig_down(&r);
}

/* A segment's TCP header as toed sent it (frame p, untagged IPv4 without options): the window field
 * and the MSS and window-scale options (-1 when absent), read here from the wire bytes. */
struct syn_opts {
	uint32_t win;
	int32_t mss, ws;
};

static struct syn_opts tcp_opts_of(const uint8_t *p)
{
	struct syn_opts o = { be16(p + 34 + 14), -1, -1 };
	uint32_t doff = (uint32_t)(p[34 + 12] >> 4) * 4, i = 20;
	while (i < doff) {
		uint8_t kind = p[34 + i];
		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		uint8_t len = p[34 + i + 1];
		if (len < 2)
			break;
		if (kind == 2 && len == 4)
			o.mss = be16(p + 34 + i + 2);
		if (kind == 3 && len == 3)
			o.ws = p[34 + i + 2];
		i += len;
	}
	return o;
}

/* Two feeds with their own mss and window: each connection offers and advertises its own. Feed a
 * (connect to 10.9.0.1:5261) mss 1024, window 4K; feed b (accept from 10.0.0.9 on 7000) mss 1280,
 * window 64K. The slots' buffers are the largest window (64K), the endpoint's MSS the largest. */
static void test_feed_limits(void)
{
	struct rig r;
	struct pb_spec s;
	uint8_t f[512];
	uint32_t resets = 0, others = 0;
	uint64_t now = 1000000000ull;
	/* mss and window per feed; [tcp] keeps its defaults (1408, 32K) */
	if (rig_up_feed(&r, "exchange = 10.9.0.1:5261\nmss = 1024\nwindow = 4K\n"
			    "[feed.b]\nexchange = 10.0.0.9\nvendor = *:7000\nopen = accept\nmss = 1280\nwindow = 64K\n") < 0)
		return;
	CHECK_EQ(r.t->nfeeds, 2);
	CHECK_EQ(r.t->f[0].mss, 1024);
	CHECK_EQ(r.t->f[0].window, 4096);
	CHECK_EQ(r.t->f[1].mss, 1280);
	CHECK_EQ(r.t->f[1].window, 65536);
	CHECK_EQ(r.t->g->cfg.rcv_buf, 65536); /* every slot holds the largest window */
	CHECK_EQ(r.t->g->cfg.mss, 1280);
	CHECK_EQ(r.t->g->listen[r.t->f[1].listener].mss, 1280);
	CHECK_EQ(r.t->g->listen[r.t->f[1].listener].win, 65536);

	/* feed b: the exchange's SYN (MSS 1460, window scale 7) is answered with b's MSS and window:
	 * 64K is 65535 in the SYN-ACK's 16 bits (RFC 7323: a SYN's window is never scaled) and a
	 * window scale of 1 (the least shift that fits 65536 in 16 bits) */
	{
		static const uint8_t opts[8] = { 2, 4, 0x05, 0xb4, 1, 3, 3, 7 };
		peer_arp(&r, PEER_IP, now);
		peer_spec(&s, PEER_IP, 4001);
		s.seq = 9000;
		s.tcp_flags = 0x02;
		s.tcp_opts = opts;
		s.tcp_optlen = sizeof opts;
		frame_in(&r, f, pb_tcp(f, sizeof f, &s, NULL, 0), now);
		pump(&r, now, &resets, &others);
		dp_tcp_flush(r.t, r.pipe, now);
		CHECK_EQ(r.src.n, 1);
		uint32_t iss = 0;
		if (r.src.n >= 1) {
			const uint8_t *p = r.src.frame[0];
			struct syn_opts o = tcp_opts_of(p);
			CHECK_EQ(p[34 + 13] & 0x17, 0x12); /* SYN-ACK */
			CHECK_EQ(o.mss, 1280);
			CHECK_EQ(o.win, 65535);
			CHECK_EQ(o.ws, 1);
			iss = be32(p + 34 + 4);
		}
		/* the handshake's ACK, then 100 bytes: the ACK of them advertises b's window, scaled */
		static uint8_t junk[100];
		r.src.n = 0;
		s.tcp_opts = NULL;
		s.tcp_optlen = 0;
		s.seq = 9001;
		s.ack = iss + 1;
		s.tcp_flags = 0x10;
		frame_in(&r, f, pb_tcp(f, sizeof f, &s, NULL, 0), now);
		pump(&r, now, &resets, &others);
		CHECK_EQ(r.t->f[1].phase, DP_TCP_UP);
		s.tcp_flags = 0x18;
		frame_in(&r, f, pb_tcp(f, sizeof f, &s, junk, sizeof junk), now);
		pump(&r, now, &resets, &others);
		dp_tcp_flush(r.t, r.pipe, now);
		CHECK_EQ(r.t->st.bytes_in, 100);
		CHECK_EQ(r.src.n, 1);
		if (r.src.n >= 1) {
			const uint8_t *p = r.src.frame[0];
			CHECK_EQ(p[34 + 13] & 0x17, 0x10);
			CHECK_EQ(be32(p + 34 + 8), 9101);
			/* the bytes went on to the decoder: the whole 64K free again, 32768 << 1 */
			CHECK_EQ(tcp_opts_of(p).win, 32768);
		}
	}

	/* feed a: its SYN offers 1024 and 4K (a window scale of 0: 4096 fits 16 bits) */
	r.src.n = 0;
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	gw_arp_reply(&r, now);
	now += 20000000ull;
	r.src.n = 0;
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_CONNECTING);
	CHECK_EQ(r.src.n, 1);
	uint32_t iss = 0;
	uint16_t lport = 0;
	if (r.src.n >= 1) {
		const uint8_t *p = r.src.frame[0];
		struct syn_opts o = tcp_opts_of(p);
		CHECK_EQ(p[34 + 13] & 0x12, 0x02); /* SYN */
		CHECK_EQ(be32(p + 14 + 16), EX_IP);
		CHECK_EQ(o.mss, 1024);
		CHECK_EQ(o.win, 4096);
		CHECK_EQ(o.ws, 0);
		lport = be16(p + 34);
		iss = be32(p + 34 + 4);
	}
	/* the exchange's SYN-ACK (no options): up, and the ACK advertises 4096 */
	r.src.n = 0;
	exchange_synack(&r, &s, lport, iss, now);
	pump(&r, now, &resets, &others);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_UP);
	CHECK_EQ(r.src.n, 1);
	if (r.src.n >= 1)
		CHECK_EQ(tcp_opts_of(r.src.frame[0]).win, 4096);
	/* what toectl shows: the feed's limits beside the connection's negotiated MSS (the smaller of
	 * ours and the peer's: no MSS option means 536, RFC 9293 3.7.1) */
	{
		struct gtoe_info in;
		CHECK_EQ(gtoe_info(r.t->g, r.t->f[0].conn, &in), 0);
		CHECK_EQ(in.mss, 536);
		CHECK_EQ(gtoe_info(r.t->g, r.t->f[1].conn, &in), 0);
		CHECK_EQ(in.mss, 1280);
	}
	rig_down(&r);
}

/* the last frame the source took whose TCP payload holds text; NULL none */
static const uint8_t *frame_with(const struct rig *r, const char *text, uint32_t *plen)
{
	for (uint32_t k = r->src.n; k-- > 0;) {
		const uint8_t *p = r->src.frame[k];
		if (r->src.len[k] < 54 || be16(p + 12) != 0x0800 || p[23] != 6)
			continue;
		uint32_t doff = (uint32_t)(p[34 + 12] >> 4) * 4, len = be16(p + 16) - 20 - doff;
		if (len && memmem(p + 34 + doff, len, text, strlen(text))) {
			*plen = len;
			return p + 34 + doff;
		}
	}
	return NULL;
}

static uint64_t mono_ns_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_session(void)
{
	static struct dp_sess sess; /* 2 deframers of 32 KB and more: not on the stack */
	struct rig r;
	struct pb_spec s;
	static uint8_t f[2048];
	size_t n;
	uint32_t resets = 0, others = 0, len = 0;
	char err[256];
	/* the session reads CLOCK_MONOTONIC itself: the rig's clock is the same one */
	uint64_t now = mono_ns_now();
	if (rig_up_feed(&r, "exchange = 10.9.0.1:5261\nsender_comp_id = VENDOR1\ntarget_comp_id = SSE\n"
			    "heartbeat_s = 1\n") < 0)
		return;
	CHECK_EQ(dp_sess_init(&sess, r.t, r.cfg, err, sizeof err), 1);
	r.t->hooks = dp_sess_hooks(&sess);
	dp_sess_set_where(&sess, &r.pipe->cfg);
	CHECK_EQ(r.t->f[0].sess.on, 1);
	/* a password handed over by the control plane (a reload) goes into the next Logon; the data plane
	 * reads no file */
	static struct dp_sess_passwords pw;
	memset(&pw, 0, sizeof pw);
	snprintf(pw.pw[r.t->f[0].feed], sizeof pw.pw[0], "n3w");
	dp_sess_take_passwords(&sess, &pw); /* set[] 0: not taken */
	CHECK_EQ(sess.f[0].l.s.cfg.password[0], 0);
	pw.set[r.t->f[0].feed] = 1;
	dp_sess_take_passwords(&sess, &pw);
	CHECK(strcmp(sess.f[0].l.s.cfg.password, "n3w") == 0);
	/* the gateway's MAC, then the SYN */
	dp_tcp_tick(r.t, r.pipe, now);
	gw_arp_reply(&r, now);
	now += 20000000ull;
	r.src.n = 0;
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.src.n, 1);
	if (r.src.n < 1) {
		rig_down(&r);
		return;
	}
	uint16_t lport = be16(r.src.frame[0] + 34);
	uint32_t iss = be32(r.src.frame[0] + 34 + 4);
	/* SYN-ACK: up, and the hooks' open queues the Logon */
	r.src.n = 0;
	exchange_synack(&r, &s, lport, iss, now);
	pump(&r, now, &resets, &others);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_UP);
	const uint8_t *logon = frame_with(&r, "\x01" "35=A\x01", &len);
	CHECK(logon != NULL);
	CHECK_EQ(r.t->f[0].sess.state, STEP_SESS_LOGON_SENT);
	if (!logon) {
		rig_down(&r);
		return;
	}
	CHECK(memmem(logon, len, "\x01" "49=VENDOR1\x01", 11) != NULL);
	CHECK(memmem(logon, len, "\x01" "108=1\x01", 7) != NULL);
	CHECK(memmem(logon, len, "\x01" "554=n3w\x01", 9) != NULL);
	/* the exchange's end reads it and answers with its Logon (acking ours) */
	struct step_sess_cfg sc;
	static struct step_sess ex;
	memset(&sc, 0, sizeof sc);
	sc.role = STEP_SESS_SERVER;
	snprintf(sc.sender, sizeof sc.sender, "SSE");
	snprintf(sc.target, sizeof sc.target, "VENDOR1");
	step_sess_init(&ex, &sc);
	uint64_t now_ms = now / 1000000ull;
	step_sess_connected(&ex, now_ms);
	CHECK(step_sess_on_msg(&ex, logon, len, now_ms) & STEP_SESS_SEND);
	CHECK_EQ(ex.state, STEP_SESS_ACTIVE);
	s.seq = 5001;
	s.ack = iss + 1 + len;
	s.tcp_flags = 0x18;
	n = pb_tcp(f, sizeof f, &s, ex.out, ex.out_len);
	uint32_t answer = ex.out_len;
	step_sess_sent(&ex);
	frame_in(&r, f, n, now);
	pump(&r, now, &resets, &others);
	CHECK_EQ(r.t->f[0].sess.state, STEP_SESS_ACTIVE);
	CHECK_EQ(r.t->f[0].sess.logons, 1);
	CHECK_EQ(r.t->f[0].sess.in_msgs, 1);
	/* silence past HeartBtInt + margin (20 %, 1 s at least: 2 s): a TestRequest (and heartbeats) go out */
	r.src.n = 0;
	now += 2500000000ull;
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.t->f[0].sess.hb_missed, 1);
	CHECK_EQ(r.t->f[0].sess.out_test_requests, 1);
	CHECK(frame_with(&r, "\x01" "35=1\x01", &len) != NULL);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_UP);
	/* as long again: the session gives up, the connection is closed (a FIN after the bytes) */
	r.src.n = 0;
	now += 2500000000ull;
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	CHECK_EQ(r.t->f[0].sess.hb_timeouts, 1);
	CHECK_EQ(r.t->f[0].sess.closes, 1);
	CHECK_EQ(r.t->f[0].asked_close, 1);
	int fin = 0;
	for (uint32_t k = 0; k < r.src.n; k++)
		fin |= be16(r.src.frame[k] + 12) == 0x0800 && (r.src.frame[k][34 + 13] & 0x01);
	CHECK(fin);
	/* the exchange's kernel ACKs the FIN but it never sends its own (a hung exchange): after
	 * DP_TCP_CLOSE_WAIT_NS toed resets the connection; down, the session too, a reconnect is due */
	s.seq = 5001 + answer;
	s.ack = r.t->g->conn[r.t->f[0].conn].snd_max; /* all of it, the FIN too */
	s.tcp_flags = 0x10;
	n = pb_tcp(f, sizeof f, &s, NULL, 0);
	frame_in(&r, f, n, now);
	pump(&r, now, &resets, &others);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_UP);
	r.src.n = 0;
	now += DP_TCP_CLOSE_WAIT_NS + 500000000ull;
	dp_tcp_tick(r.t, r.pipe, now);
	dp_tcp_flush(r.t, r.pipe, now);
	int rst = 0;
	for (uint32_t k = 0; k < r.src.n; k++)
		rst |= be16(r.src.frame[k] + 12) == 0x0800 && (r.src.frame[k][34 + 13] & 0x04);
	CHECK(rst);
	CHECK_EQ(r.t->f[0].sess.closes, 1); /* asked on every tick while closing, counted once */
	pump(&r, now, &resets, &others);
	CHECK_EQ(r.t->f[0].phase, DP_TCP_WAIT);
	CHECK_EQ(r.t->f[0].conn, -1);
	CHECK_EQ(r.t->f[0].sess.state, STEP_SESS_DOWN);
	CHECK_EQ(r.t->f[0].asked_close, 0);
	CHECK_EQ(r.t->f[0].aborted, 0);
	CHECK_EQ(r.pipe->sst[0].closes, 1);
	CHECK(r.t->f[0].backoff_ns >= DP_TCP_BACKOFF_MIN_NS);
	/* a refused connection attempt now (not up): nothing is sent by the session */
	CHECK_EQ(dp_tcp_send(r.t, 0, (const uint8_t *)"x", 1), -1);
	/* the next attempt, after the backoff: a reconnect note */
	uint64_t before = r.t->f[0].attempts, wait_ms = r.t->f[0].backoff_ns / 1000000ull;
	now += 6000000000ull;
	dp_tcp_tick(r.t, r.pipe, now);
	CHECK_EQ(r.t->f[0].attempts, before + 1);
	/* what the clients get, in order: toed's notes and the session's events as TOE_REC_SESSION records,
	 * on the feed's stream, with the MsgSeqNums in force */
	static const uint32_t want[] = {TOE_SESS_LOGON_SENT, TOE_SESS_LOGGED_ON, TOE_SESS_HB_MISSED,
					TOE_SESS_HB_TIMEOUT, TOE_SESS_DISCONNECTED, TOE_SESS_RECONNECTING};
	union toe_record rec[8];
	uint32_t nrec = 0;
	while (nrec < 8 && dp_sess_record(&sess, &rec[nrec]))
		nrec++;
	CHECK_EQ(nrec, 6);
	for (uint32_t k = 0; k < nrec && k < 6; k++) {
		CHECK_EQ(rec[k].hdr.type, TOE_REC_SESSION);
		CHECK_EQ(rec[k].session.event, want[k]);
		CHECK_EQ(rec[k].hdr.stream, r.t->f[0].stream);
		CHECK_EQ(rec[k].session.flags, 0);
		CHECK(rec[k].hdr.rx_ns > 1600000000ull * 1000000000ull); /* CLOCK_REALTIME */
		CHECK_EQ(toe_rx_clock(&rec[k].hdr), TOE_CLK_POLL);
	}
	if (nrec == 6) {
		CHECK_EQ(rec[0].session.arg1, 1);      /* HeartBtInt asked */
		CHECK_EQ(rec[0].session.next_out, 2);  /* the Logon was 1 */
		CHECK_EQ(rec[1].session.arg1, 1);      /* HeartBtInt in force */
		CHECK(strcmp(rec[1].session.text, "SSE") == 0);
		CHECK_EQ(rec[1].session.next_in, 2);   /* the exchange's Logon was its 1 */
		CHECK(rec[2].session.arg1 >= 2000);    /* ms silent */
		CHECK(rec[3].session.arg1 >= rec[2].session.arg1);
		CHECK_EQ(rec[4].session.arg1, 1);      /* the session ended it */
		CHECK_EQ(rec[5].session.arg1, before + 1);
		CHECK_EQ(rec[5].session.arg2, wait_ms);
	}
	CHECK_EQ(r.t->f[0].sess.records, 6);
	CHECK_EQ(r.t->f[0].sess.records_lost, 0);
	CHECK_EQ(dp_sess_record(&sess, &rec[0]), 0);
	rig_down(&r);
}

/* More session events at once than the record queue holds: the excess is counted, and the feed's
 * next record says events were lost; nothing else is disturbed. */
static void test_session_records_lost(void)
{
	static struct dp_sess sess;
	struct rig r;
	char err[256];
	if (rig_up_feed(&r, "exchange = 10.9.0.1:5261\nsender_comp_id = VENDOR1\ntarget_comp_id = SSE\n") < 0)
		return;
	CHECK_EQ(dp_sess_init(&sess, r.t, r.cfg, err, sizeof err), 1);
	struct dp_tcp_hooks h = dp_sess_hooks(&sess);
	/* each open of a session not down yet: its disconnect, then a Logon sent: two records */
	for (uint32_t k = 0; k < DP_SESS_REC_MAX; k++)
		h.on_open(h.arg, r.t, 0);
	CHECK_EQ(r.t->f[0].sess.records, DP_SESS_REC_MAX);
	CHECK_EQ(r.t->f[0].sess.records_lost, 2 * DP_SESS_REC_MAX - 1 - DP_SESS_REC_MAX);
	union toe_record rec;
	uint32_t n = 0, flagged = 0;
	while (dp_sess_record(&sess, &rec)) {
		n++;
		flagged += (rec.session.flags & TOE_SESS_F_EVENTS_LOST) != 0;
	}
	CHECK_EQ(n, DP_SESS_REC_MAX);
	CHECK_EQ(flagged, 0); /* the ones queued came before any loss */
	h.on_open(h.arg, r.t, 0);
	CHECK_EQ(dp_sess_record(&sess, &rec), 1);
	CHECK_EQ(rec.session.event, TOE_SESS_DISCONNECTED);
	CHECK_EQ(rec.session.flags, TOE_SESS_F_EVENTS_LOST);
	CHECK_EQ(dp_sess_record(&sess, &rec), 1);
	CHECK_EQ(rec.session.event, TOE_SESS_LOGON_SENT);
	CHECK_EQ(rec.session.flags, 0); /* said once */
	CHECK_EQ(dp_sess_record(&sess, &rec), 0);
	rig_down(&r);
}

int main(void)
{
	if (test_sse_templates(g_tpl, sizeof g_tpl) < 0)
		return test_skip("dp_tcp", "run from the repository root (conf/templates needed)");
	test_arp_icmp();
	test_connect();
	test_accept();
	test_feed_limits();
	test_session();
	test_session_records_lost();
	return test_done("dp_tcp");
}
