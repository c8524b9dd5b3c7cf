/* test_rx_tcp.c - the receive pipeline on TCP captures without loss.
 *
 * A feed from sse_gen goes over a TCP connection cut into segments (pktbuild
 * frames) and through rx_pipe: in order with SYN/FIN and the vendor's ACKs,
 * reordered, duplicated, overlapping with other segment boundaries (and a
 * conflicting copy: first copy wins), across a 32-bit sequence wrap, as 8 KB
 * GRO-style super-frames, with 802.1Q/QinQ tags, several connections at once
 * and a reconnection on the same 4-tuple. Every case must give exactly the
 * feed's bytes and records: no gap, no missing or extra record. Also a
 * caller that does not drain, and frames that are not TCP.
 */
#include "test_rx_common.h"

static uint32_t rng_state = 2024;
static uint32_t rnd(uint32_t n)
{
	uint32_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rng_state = x;
	return x % n;
}

static struct tr_feed feed;

/* Run l through a fresh pipeline and check the one stream against the feed. */
static void run_exact(struct tr_frames *l, const struct rx_cfg *cfg, int fin, const char *what)
{
	struct tr_rx t;
	int fails = test_failures;
	tr_rx_init(&t, cfg, feed.len + 65536);
	tr_run(&t, l, 1, 1);
	int32_t sid = tr_only_stream(&t);
	if (sid >= 0) {
		CHECK_EQ(t.s[sid].resets, 1);
		tr_check(&t, (uint32_t)sid, &feed, 0, feed.len, NULL, 0);
	}
	CHECK_EQ(t.p->st.records, feed.nrec);
	CHECK_EQ(t.p->st.gaps, 0);
	CHECK_EQ(t.p->st.bytes, feed.len);
	CHECK_EQ(t.p->st.closes, fin ? 1 : 1); /* FIN, or the idle close of the end-of-capture poll */
	CHECK_EQ(t.p->net.tcp.drop_tcp_csum, 0);
	if (test_failures != fails)
		fprintf(stderr, "  in case: %s\n", what);
	tr_rx_free(&t);
}

static void test_inorder(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 1000;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, 123456789u, TR_MSS, 1, &ts);
	tr_restamp(&l, 1000, 10000);
	run_exact(&l, &cfg, 1, "in order");

	/* the details of one run: reset reason, counters of every block, rx_ns, no tap */
	cfg.flags = 0;
	tr_rx_init(&t, &cfg, 16);
	uint64_t data_entries = 0, recs = 0, last_rx = 0;
	int order = 1;
	for (uint32_t i = 0; i < l.n; i++) {
		struct rx_out o;
		CHECK_EQ(rx_frame(t.p, l.f[i].buf, l.f[i].len, l.f[i].ts), NET_RX_TCP);
		while (rx_next(t.p, &o)) {
			if (o.kind == RX_OUT_DATA)
				data_entries++;
			if (o.kind == RX_OUT_RESET) {
				CHECK_EQ(o.reason, MTOE_OPEN_SYN);
				CHECK_EQ(o.tick.hdr.rx_ns, l.f[i].ts);
			}
			if (o.kind == RX_OUT_RECORD) {
				CHECK_EQ(o.tick.hdr.rx_ns, l.f[i].ts);
				if (o.tick.hdr.rx_ns < last_rx)
					order = 0;
				last_rx = o.tick.hdr.rx_ns;
				/* the record's JSON is the truth's */
				char *j = tr_json(o.rec);
				CHECK(recs < feed.nrec && j && strcmp(j, feed.json[recs]) == 0);
				free(j);
				recs++;
			}
		}
	}
	CHECK(order);
	CHECK_EQ(data_entries, 0);
	CHECK_EQ(recs, feed.nrec);
	CHECK_EQ(t.p->st.frames, l.n);
	CHECK_EQ(t.p->st.tcp, l.n);
	CHECK_EQ(t.p->st.opens, 1);
	CHECK_EQ(t.p->st.closes, 1);
	CHECK_EQ(t.p->net.tcp.delivered, l.n);
	CHECK_EQ(t.p->mtoe.st.bytes, feed.len);
	CHECK_EQ(t.p->mtoe.st.opens, 1);
	CHECK_EQ(t.p->mtoe.conn[0].st.bytes, feed.len);
	CHECK_EQ(t.p->fs[0].messages, feed.nmsg);
	CHECK_EQ(t.p->sst[0].records, feed.nrec);
	CHECK_EQ(t.p->sst[0].bytes, feed.len);
	CHECK_EQ(t.p->sst[0].resets, 1);
	CHECK_EQ(t.p->sst[0].closes, 1);
	CHECK_EQ(t.p->sst[0].decode_errors, 0);
	/* the counter tables name every counter */
	const char *names[64];
	uint64_t vals[64];
	CHECK_EQ(rx_stats_table(&t.p->st, names, vals, 64), RX_STATS_COUNT);
	CHECK(strcmp(names[0], "frames") == 0 && vals[0] == l.n);
	CHECK_EQ(rx_stream_stats_table(&t.p->sst[0], names, vals, 64), RX_STREAM_STATS_COUNT);
	CHECK(strcmp(names[2], "records") == 0 && vals[2] == feed.nrec);
	tr_rx_free(&t);
	tr_frames_free(&l);
}

/* Adjacent swaps and segments held back a few positions. */
static void test_reorder(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct pb_spec s;
	uint64_t ts = 0;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, 1000, TR_MSS, 1, &ts);
	for (uint32_t i = 2; i + 1 < l.n - 1; i++) {
		uint32_t r = rnd(10);
		if (r < 3) {
			tr_swap(&l, i, i + 1);
			i++;
		} else if (r == 3 && i + 6 < l.n - 1) {
			/* hold frame i back by 5 positions */
			for (uint32_t k = i; k < i + 5; k++)
				tr_swap(&l, k, k + 1);
			i += 5;
		}
	}
	tr_restamp(&l, 0, 10000);
	run_exact(&l, &cfg, 1, "reordered");
	tr_frames_free(&l);
}

/* Copies right away, copies much later (already delivered), a repeated SYN. */
static void test_duplicates(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0}, d = {0};
	struct pb_spec s;
	uint64_t ts = 0;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, 77, TR_MSS, 1, &ts);
	for (uint32_t i = 0; i < l.n; i++) {
		tr_add(&d, l.f[i].buf, l.f[i].len, 0);
		if (i == 0 || rnd(5) == 0)
			tr_add(&d, l.f[i].buf, l.f[i].len, 0); /* immediate copy (the SYN too) */
		if (i > 12 && i + 1 < l.n && rnd(7) == 0) {
			uint32_t back = i - 1 - rnd(10);
			tr_add(&d, l.f[back].buf, l.f[back].len, 0); /* late retransmission */
		}
	}
	tr_restamp(&d, 0, 10000);
	run_exact(&d, &cfg, 1, "duplicates");
	tr_frames_free(&l);
	tr_frames_free(&d);
}

/* Two segmentations of the same bytes (1408 from 0, 1000 from 500),
 * interleaved and locally shuffled: every segment overlaps others. */
static void test_overlap(void)
{
	struct rx_cfg cfg;
	struct tr_frames a = {0}, b = {0}, m = {0};
	struct pb_spec s;
	uint64_t ts = 0;
	uint32_t isn = 5555, i = 0, j = 0;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_seg(&m, &s, isn, TCP_SYN, NULL, 0, 0);
	tr_segments(&a, &s, &feed, isn, 0, feed.len, TR_MSS, 0, &ts);
	tr_segments(&b, &s, &feed, isn, 0, 500, 500, 0, &ts);
	tr_segments(&b, &s, &feed, isn, 500, feed.len, 1000, 0, &ts);
	while (i < a.n || j < b.n) {
		if (i < a.n && (j >= b.n || rnd(2)))
			tr_add(&m, a.f[i].buf, a.f[i].len, 0), i++;
		else
			tr_add(&m, b.f[j].buf, b.f[j].len, 0), j++;
	}
	for (uint32_t k = 1; k + 3 < m.n; k++)
		if (rnd(3) == 0)
			tr_swap(&m, k, k + 1 + rnd(3));
	tr_restamp(&m, 0, 10000);
	run_exact(&m, &cfg, 0, "overlaps");

	/* a conflicting copy of a held segment: the first copy wins and is counted */
	struct tr_frames c = {0};
	struct tr_rx t;
	uint8_t *bad = malloc(TR_MSS);
	uint64_t o2 = 3 * TR_MSS; /* the 4th segment is held while the 3rd is missing */
	memcpy(bad, feed.bytes + o2, TR_MSS);
	for (int k = 0; k < 10; k++)
		bad[100 + 7 * k] ^= 0x20;
	tr_seg(&c, &s, isn, TCP_SYN, NULL, 0, 0);
	ts = 0;
	tr_segments(&c, &s, &feed, isn, 0, 2 * TR_MSS, TR_MSS, 0, &ts);
	tr_segments(&c, &s, &feed, isn, 3 * TR_MSS, 4 * TR_MSS, TR_MSS, 0, &ts);
	{
		/* the conflicting copy starts 50 bytes early: 50 good bytes of the hole, then the held bytes changed */
		uint8_t *seg = malloc(TR_MSS + 50);
		memcpy(seg, feed.bytes + o2 - 50, 50);
		memcpy(seg + 50, bad, TR_MSS);
		tr_seg(&c, &s, isn + 1 + (uint32_t)(o2 - 50), TCP_ACK | TCP_PSH, seg, TR_MSS + 50, 0);
		free(seg);
	}
	tr_segments(&c, &s, &feed, isn, 2 * TR_MSS, 3 * TR_MSS, TR_MSS, 0, &ts);
	tr_segments(&c, &s, &feed, isn, 4 * TR_MSS, feed.len, TR_MSS, 0, &ts);
	tr_restamp(&c, 0, 10000);
	tr_rx_init(&t, &cfg, feed.len + 65536);
	tr_run(&t, &c, 1, 0);
	CHECK_EQ(t.p->mtoe.conn[0].st.conflicts, 1);
	CHECK_EQ(t.p->mtoe.conn[0].st.conflict_bytes, 10);
	rx_poll(t.p, UINT64_MAX);
	tr_drain(&t);
	tr_check(&t, 0, &feed, 0, feed.len, NULL, 0);
	tr_rx_free(&t);
	free(bad);
	tr_frames_free(&a);
	tr_frames_free(&b);
	tr_frames_free(&m);
	tr_frames_free(&c);
}

/* Sequence numbers wrap past 2^32 inside the feed, with reordering there. */
static void test_wrap(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct pb_spec s;
	uint64_t ts = 0;
	uint32_t isn = 0xffffffffu - 3 * TR_MSS - 100;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, isn, TR_MSS, 1, &ts);
	/* the frames around the wrap (SYN, 4 segments, 1 ACK, ...) arrive shuffled */
	tr_swap(&l, 3, 5);
	tr_swap(&l, 4, 7);
	tr_swap(&l, 8, 9);
	tr_restamp(&l, 0, 10000);
	run_exact(&l, &cfg, 1, "sequence wrap");
	tr_frames_free(&l);
}

/* 8 KB GRO-style super-frames (above the MTU), mixed with MSS segments and a
 * coalesced retransmission that overlaps both. */
static void test_superframes(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 0, half = (feed.len / 2) & ~(uint64_t)7;
	uint32_t isn = 42;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_seg(&l, &s, isn, TCP_SYN, NULL, 0, 0);
	tr_segments(&l, &s, &feed, isn, 0, half, 8192, 2, &ts);
	tr_segments(&l, &s, &feed, isn, half, half + 3 * TR_MSS, TR_MSS, 0, &ts);
	/* a retransmission coalesced from MSS segments, overlapping what came before */
	tr_segments(&l, &s, &feed, isn, half - 1000, half + 3 * TR_MSS + 5000, 20000, 0, &ts);
	tr_segments(&l, &s, &feed, isn, half + 3 * TR_MSS + 5000, feed.len, 8192, 0, &ts);
	tr_seg(&l, &s, isn + 1 + (uint32_t)feed.len, TCP_FIN | TCP_ACK, NULL, 0, 0);
	tr_restamp(&l, 0, 10000);
	run_exact(&l, &cfg, 1, "super-frames");
	tr_rx_init(&t, &cfg, 16);
	tr_run(&t, &l, 0, 1);
	CHECK(t.p->net.ip.in_oversize > 0);
	CHECK_EQ(t.p->st.records, feed.nrec);
	tr_rx_free(&t);
	tr_frames_free(&l);
}

/* Frames untagged, with one 802.1Q tag and with two tags (0x88a8 outer), mixed. */
static void test_vlan(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s0, s1, s2;
	uint64_t ts = 0;
	uint32_t isn = 900000;
	tr_cfg(&cfg);
	tr_spec(&s0, TR_VE_PORT);
	s1 = s0;
	s1.nvlan = 1;
	s1.vlan_tci[0] = 100;
	s2 = s0;
	s2.nvlan = 2;
	s2.vlan_tpid[0] = 0x88a8;
	s2.vlan_tci[0] = 200;
	s2.vlan_tci[1] = 100;
	tr_seg(&l, &s1, isn, TCP_SYN, NULL, 0, 0);
	uint32_t k = 0, n1 = 0, n2 = 0;
	for (uint64_t o = 0; o < feed.len; o += TR_MSS, k++) {
		uint32_t n = (uint32_t)(feed.len - o < TR_MSS ? feed.len - o : TR_MSS);
		const struct pb_spec *sp = k % 3 == 0 ? &s0 : k % 3 == 1 ? &s1 : &s2;
		n1 += k % 3 == 1;
		n2 += k % 3 == 2;
		tr_seg(&l, sp, isn + 1 + (uint32_t)o, TCP_ACK | TCP_PSH, feed.bytes + o, n, ts++);
	}
	tr_seg(&l, &s2, isn + 1 + (uint32_t)feed.len, TCP_FIN | TCP_ACK, NULL, 0, 0);
	tr_restamp(&l, 0, 10000);
	run_exact(&l, &cfg, 1, "vlan");
	tr_rx_init(&t, &cfg, 16);
	tr_run(&t, &l, 0, 1);
	CHECK_EQ(t.p->net.eth.in_vlan, n1 + n2 + 2);
	CHECK_EQ(t.p->net.eth.in_qinq, n2 + 1);
	CHECK_EQ(t.p->st.records, feed.nrec);
	tr_rx_free(&t);
	tr_frames_free(&l);
}

/* Three connections at once (three feeds), interleaved, each locally
 * reordered; plus frames of an unfollowed flow and the vendors' ACKs. */
static void test_multi(void)
{
	struct rx_cfg cfg;
	struct tr_frames c[3] = {{0}}, m = {0};
	struct tr_feed f[3];
	struct tr_rx t;
	uint64_t ts = 0;
	uint32_t pos[3] = {0, 0, 0};
	tr_cfg(&cfg);
	for (int i = 0; i < 3; i++) {
		struct pb_spec s;
		tr_feed_make(&f[i], 100 + (uint64_t)i, 400 + 150 * (uint32_t)i, 5);
		tr_spec(&s, (uint16_t)(TR_VE_PORT + i));
		tr_connection(&c[i], &s, &f[i], 1000u * (uint32_t)(i + 1), TR_MSS, 1, &ts);
		for (uint32_t k = 1; k + 2 < c[i].n; k += 4)
			tr_swap(&c[i], k, k + 1);
	}
	{
		/* another exchange port: not followed */
		struct pb_spec o;
		tr_spec(&o, TR_VE_PORT);
		o.sport = 9999;
		tr_seg(&m, &o, 1, TCP_ACK | TCP_PSH, f[0].bytes, 500, 0);
	}
	while (pos[0] < c[0].n || pos[1] < c[1].n || pos[2] < c[2].n) {
		int i = (int)rnd(3);
		if (pos[i] < c[i].n) {
			tr_add(&m, c[i].f[pos[i]].buf, c[i].f[pos[i]].len, 0);
			pos[i]++;
		}
	}
	tr_restamp(&m, 0, 10000);
	tr_rx_init(&t, &cfg, 200000);
	tr_run(&t, &m, 1, 0);
	int32_t sid[3];
	for (int i = 0; i < 3; i++) {
		sid[i] = mtoe_lookup(&t.p->mtoe, TR_EX_IP, TR_EX_PORT, TR_VE_IP, (uint16_t)(TR_VE_PORT + i));
		CHECK(sid[i] >= 0);
	}
	CHECK(sid[0] != sid[1] && sid[1] != sid[2] && sid[0] != sid[2]);
	CHECK_EQ(t.p->mtoe.st.not_followed, 1);
	rx_poll(t.p, UINT64_MAX);
	tr_drain(&t);
	for (int i = 0; i < 3; i++)
		if (sid[i] >= 0) {
			CHECK_EQ(t.s[sid[i]].resets, 1);
			tr_check(&t, (uint32_t)sid[i], &f[i], 0, f[i].len, NULL, 0);
			CHECK_EQ(t.p->sst[sid[i]].records, f[i].nrec);
		}
	CHECK_EQ(t.p->st.records, f[0].nrec + f[1].nrec + f[2].nrec);
	tr_rx_free(&t);
	for (int i = 0; i < 3; i++) {
		tr_frames_free(&c[i]);
		tr_feed_free(&f[i]);
	}
	tr_frames_free(&m);
}

/* A connection ends (FIN) and a new one on the same 4-tuple (new ISN) sends
 * another feed: a second RESET on the same stream, the dictionary and the
 * deframer start afresh, the second feed is exact too. Also a RST mid-message
 * followed by a new connection: the cut message gives no record. */
static void test_reconnect(void)
{
	struct rx_cfg cfg;
	struct tr_frames a = {0}, b = {0};
	struct tr_feed f2;
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 0;
	tr_cfg(&cfg);
	tr_spec(&s, TR_VE_PORT);
	tr_feed_make(&f2, 555, 300, 4);
	tr_connection(&a, &s, &feed, 10, TR_MSS, 1, &ts);
	tr_connection(&b, &s, &f2, 0x80000000u, TR_MSS, 1, &ts);
	tr_restamp(&a, 0, 10000);
	tr_restamp(&b, 1000000000ull, 10000);
	tr_rx_init(&t, &cfg, feed.len + 65536);
	tr_run(&t, &a, 1, 0);
	tr_check(&t, 0, &feed, 0, feed.len, NULL, 0);
	tr_run(&t, &b, 1, 1);
	CHECK_EQ(t.s[0].resets, 2);
	CHECK_EQ(t.p->st.opens, 2);
	tr_check(&t, 0, &f2, 0, f2.len, NULL, 0);
	tr_rx_free(&t);
	tr_frames_free(&a);
	tr_frames_free(&b);

	/* RST in the middle of message 3, then a new connection with f2 */
	uint64_t cut = feed.msg[3].off + feed.msg[3].len / 2;
	ts = 0;
	tr_seg(&a, &s, 10, TCP_SYN, NULL, 0, 0);
	tr_segments(&a, &s, &feed, 10, 0, cut, TR_MSS, 0, &ts);
	tr_seg(&a, &s, 11 + (uint32_t)cut, TCP_RST, NULL, 0, 0);
	tr_connection(&a, &s, &f2, 0x12345678u, TR_MSS, 1, &ts);
	tr_restamp(&a, 0, 10000);
	tr_rx_init(&t, &cfg, feed.len + 65536);
	tr_run_range(&t, &a, 0, 1 + (uint32_t)((cut + TR_MSS - 1) / TR_MSS) + 1, 1);
	/* messages 0..2 decoded, nothing of message 3 */
	CHECK_EQ(t.s[0].nrec, feed.msg[3].first);
	CHECK_EQ(t.p->st.closes, 1);
	tr_run_range(&t, &a, 1 + (uint32_t)((cut + TR_MSS - 1) / TR_MSS) + 1, a.n, 1);
	rx_poll(t.p, UINT64_MAX);
	tr_drain(&t);
	CHECK_EQ(t.s[0].resets, 2);
	tr_check(&t, 0, &f2, 0, f2.len, NULL, 0);
	tr_rx_free(&t);
	tr_frames_free(&a);
	tr_feed_free(&f2);
}

/* A caller that does not drain: rx_frame/rx_poll run the pending work to
 * its end (counted as undrained), and decoding stays consistent. Also
 * RX_CFG_NO_TICK, and the frames the pipeline only classifies (ARP, ICMP)
 * or drops (another EtherType). */
static void test_undrained_and_other_frames(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec s;
	struct rx_out o;
	uint64_t ts = 0, seen = 0, recs = 0;
	tr_cfg(&cfg);
	cfg.flags = RX_CFG_NO_TICK;
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, 4242, TR_MSS, 1, &ts);
	tr_restamp(&l, 0, 10000);
	tr_rx_init(&t, &cfg, 16);
	for (uint32_t i = 0; i < l.n; i++) {
		rx_frame(t.p, l.f[i].buf, l.f[i].len, l.f[i].ts);
		if (i % 3 == 0)
			continue; /* entries left unread */
		while (rx_next(t.p, &o)) {
			seen++;
			if (o.kind == RX_OUT_RECORD) {
				recs++;
				CHECK_EQ(o.tick_type, TOE_REC_NONE);
				CHECK_EQ(o.tick.hdr.type, TOE_REC_NONE);
			}
		}
	}
	rx_poll(t.p, UINT64_MAX);
	while (rx_next(t.p, &o))
		seen++;
	CHECK(t.p->st.undrained > 0);
	CHECK(recs < feed.nrec);
	CHECK_EQ(seen + t.p->st.undrained, feed.nrec + 1); /* the records and one RESET */
	CHECK_EQ(t.p->st.records, feed.nrec);
	CHECK_EQ(t.p->st.tick_unmapped, 0);

	/* ARP, ICMP echo: classified, counted, left in p->pkt; IPv6: dropped */
	struct pb_spec a;
	uint8_t fr[256];
	size_t n;
	pb_init(&a);
	a.arp_op = 1;
	a.arp_spa = TR_VE_IP;
	a.arp_tpa = TR_EX_IP;
	n = pb_arp(fr, sizeof fr, &a);
	CHECK_EQ(rx_frame(t.p, fr, (uint32_t)n, 1), NET_RX_ARP);
	CHECK(!rx_next(t.p, &o));
	pb_init(&a);
	a.icmp_type = 8;
	n = pb_icmp(fr, sizeof fr, &a, "ping", 4);
	CHECK_EQ(rx_frame(t.p, fr, (uint32_t)n, 2), NET_RX_ICMP);
	CHECK_EQ(t.p->pkt.l4proto, NET_PROTO_ICMP);
	CHECK(!rx_next(t.p, &o));
	n = pb_eth(fr, sizeof fr, &a, 0x86dd, "ipv6 ipv6 ipv6 ipv6 ipv6 ipv6 ipv6 ipv6", 40);
	CHECK_EQ(rx_frame(t.p, fr, (uint32_t)n, 3), NET_RX_DROP);
	CHECK(!rx_next(t.p, &o));
	CHECK_EQ(t.p->st.arp, 1);
	CHECK_EQ(t.p->st.icmp, 1);
	CHECK_EQ(t.p->st.dropped, 1);
	CHECK_EQ(t.p->net.eth.drop_ethertype, 1);
	tr_rx_free(&t);
	tr_frames_free(&l);
}

int main(void)
{
	if (tr_load() != 0)
		return test_skip("test_rx_tcp", "cannot compile " TR_TEMPLATES " (run from the repository root)");
	tr_feed_make(&feed, 7, 1500, 6);
	CHECK(feed.len > 20 * TR_MSS);
	test_inorder();
	test_reorder();
	test_duplicates();
	test_overlap();
	test_wrap();
	test_superframes();
	test_vlan();
	test_multi();
	test_reconnect();
	test_undrained_and_other_frames();
	tr_feed_free(&feed);
	return test_done("test_rx_tcp");
}
