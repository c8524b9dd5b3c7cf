/* test_rx_udp.c - the receive pipeline on UDP datagrams.
 *
 * Two listened ports: one carrying STEP messages (one or two per datagram),
 * one carrying raw FAST (each datagram decoded with a fresh dictionary,
 * msg_seq 0), interleaved with a TCP connection, datagrams to other ports
 * (dropped, counted), damaged datagrams with bad checksums (dropped: if they
 * were taken, wrong records would appear) and datagrams without a checksum
 * (taken). Then damage that gets through: a STEP message cut short at the end
 * of its datagram (a decode gap over exactly its bytes, the next datagram
 * exact) and a truncated raw FAST datagram (a decode gap over the datagram).
 * Stream ids: max_conns + the port's index.
 */
#include "test_rx_common.h"
#include "fast/host/fast_encode.h"

#define PORT_STEP 5000
#define PORT_RAW 5001

static struct tr_feed feed;

static void udp_spec(struct pb_spec *s, uint16_t dport)
{
	pb_init(s);
	s->saddr = 0x0a000101u;
	s->daddr = 0x0a000202u;
	s->sport = 6000;
	s->dport = dport;
}

static void udp_cfg(struct rx_cfg *cfg)
{
	tr_cfg(cfg);
	cfg->nudp = 2;
	cfg->udp[0].port = PORT_STEP;
	cfg->udp[0].framing = FAST_FRAMING_STEP;
	cfg->udp[1].port = PORT_RAW;
	cfg->udp[1].framing = FAST_FRAMING_DATAGRAM;
}

static void add_udp(struct tr_frames *l, const struct pb_spec *s, const uint8_t *p, uint32_t n)
{
	tr_add(l, tr_scratch, pb_udp(tr_scratch, sizeof tr_scratch, s, p, n), 0);
}

/* A raw FAST "feed": datagrams of 1..3 records, each encoded from a reset dictionary. */
static void raw_feed(struct tr_feed *f, uint32_t ndgram)
{
	struct sse_gen *g = calloc(1, sizeof *g);
	struct fast_enc *e = calloc(1, sizeof *e);
	struct fast_rec *rec = calloc(1, sizeof *rec);
	struct sse_gen_cfg cfg;
	memset(f, 0, sizeof *f);
	f->bytes = malloc((size_t)ndgram * 3 * 200);
	f->msg = calloc(ndgram, sizeof *f->msg);
	f->json = calloc((size_t)ndgram * 3, sizeof *f->json);
	f->tick = calloc((size_t)ndgram * 3, sizeof *f->tick);
	sse_gen_default(&cfg);
	cfg.seed = 4242;
	CHECK_EQ(sse_gen_init(g, &cfg), 0);
	fast_enc_init(e, &tr_prog);
	for (uint32_t d = 0; d < ndgram; d++) {
		uint32_t n = 1 + d % 3;
		fast_enc_reset(e);
		f->msg[d].off = f->len;
		f->msg[d].seq = 0;
		f->msg[d].first = f->nrec;
		f->msg[d].n = n;
		for (uint32_t k = 0; k < n; k++) {
			union toe_record t;
			sse_gen_next(g, &t);
			int len = sse_encode_raw(&tr_prog, e, &t, f->bytes + f->len, 600, rec);
			CHECK(len > 0);
			if (len <= 0)
				break;
			f->len += (uint64_t)len;
			f->json[f->nrec] = tr_json(rec);
			f->tick[f->nrec] = t;
			f->nrec++;
		}
		f->msg[d].len = (uint32_t)(f->len - f->msg[d].off);
		f->nmsg++;
	}
	free(g);
	free(e);
	free(rec);
}

static void test_udp(void)
{
	struct rx_cfg cfg;
	struct tr_feed raw;
	struct tr_frames l = {0};
	struct tr_rx t;
	struct pb_spec ss, sr, other, tcp;
	uint64_t ts = 0;
	uint32_t m = 0, d = 0, dropped_port = 0, dropped_csum = 0, nocsum = 0;
	udp_cfg(&cfg);
	udp_spec(&ss, PORT_STEP);
	udp_spec(&sr, PORT_RAW);
	udp_spec(&other, 5002);
	tr_spec(&tcp, TR_VE_PORT);
	raw_feed(&raw, 200);

	/* a TCP connection carrying the same STEP feed, interleaved */
	struct tr_frames c = {0};
	tr_connection(&c, &tcp, &feed, 99, TR_MSS, 1, &ts);
	uint32_t ci = 0;
	uint8_t junk[600];
	for (uint32_t k = 0; k < sizeof junk; k++)
		junk[k] = (uint8_t)(k * 7 + 1);

	while (m < feed.nmsg || d < raw.nmsg) {
		if (m < feed.nmsg) {
			uint32_t n = (m % 5 == 4 && m + 1 < feed.nmsg) ? 2 : 1; /* some datagrams hold two messages */
			uint64_t off = feed.msg[m].off, len = feed.msg[m + n - 1].off + feed.msg[m + n - 1].len - off;
			struct pb_spec s = ss;
			if (m % 7 == 3) {
				/* a damaged copy with a bad checksum first: must be dropped */
				struct pb_spec b = ss;
				uint8_t *bad = malloc(len);
				memcpy(bad, feed.bytes + off, len);
				bad[len / 2] ^= 0x55;
				b.l4_csum = PB_CSUM_BAD;
				add_udp(&l, &b, bad, (uint32_t)len);
				free(bad);
				dropped_csum++;
			}
			if (m % 11 == 5) {
				s.l4_csum = PB_CSUM_ZERO; /* no checksum sent */
				nocsum++;
			}
			add_udp(&l, &s, feed.bytes + off, (uint32_t)len);
			m += n;
		}
		if (d < raw.nmsg) {
			add_udp(&l, &sr, raw.bytes + raw.msg[d].off, raw.msg[d].len);
			d++;
		}
		if (d % 9 == 0) {
			add_udp(&l, &other, junk, sizeof junk);
			dropped_port++;
		}
		for (int k = 0; k < 2 && ci < c.n; k++, ci++)
			tr_add(&l, c.f[ci].buf, c.f[ci].len, 0);
	}
	for (; ci < c.n; ci++)
		tr_add(&l, c.f[ci].buf, c.f[ci].len, 0);
	tr_restamp(&l, 0, 10000);
	tr_rx_init(&t, &cfg, feed.len + 65536);
	tr_run(&t, &l, 1, 1);
	uint32_t sstep = cfg.mtoe.max_conns, sraw = cfg.mtoe.max_conns + 1;
	CHECK_EQ(t.nstreams, cfg.mtoe.max_conns + 2);
	tr_check(&t, sstep, &feed, 0, feed.len, NULL, 0);
	tr_check(&t, sraw, &raw, 0, raw.len, NULL, 0);
	tr_check(&t, 0, &feed, 0, feed.len, NULL, 0); /* the TCP connection */
	CHECK_EQ(t.s[sstep].resets, 0);
	CHECK_EQ(t.p->net.udp.drop_udp_port, dropped_port);
	CHECK_EQ(t.p->net.udp.drop_udp_csum, dropped_csum);
	CHECK_EQ(t.p->net.udp.no_csum, nocsum);
	CHECK_EQ(t.p->st.udp_listened, t.p->sst[sstep].datagrams + t.p->sst[sraw].datagrams);
	CHECK_EQ(t.p->sst[sraw].datagrams, raw.nmsg);
	CHECK_EQ(t.p->sst[sstep].records, feed.nrec);
	CHECK_EQ(t.p->sst[sraw].records, raw.nrec);
	CHECK_EQ(t.p->sst[sstep].bytes, feed.len);
	CHECK_EQ(t.p->st.records, 2 * feed.nrec + raw.nrec);
	CHECK_EQ(t.p->st.gaps, 0);
	tr_rx_free(&t);
	tr_frames_free(&l);
	tr_frames_free(&c);

	/* damage that gets through: message 6 cut after half its bytes; raw datagram 3 loses its last byte */
	struct tr_feed g = feed, r = raw;
	uint32_t cutm = 6, cutd = 3, /* datagram 3 holds one record */ half = feed.msg[cutm].len / 2;
	g.bytes = malloc(feed.len);
	g.msg = malloc(feed.nmsg * sizeof *g.msg);
	r.msg = malloc(raw.nmsg * sizeof *r.msg);
	r.bytes = malloc(raw.len);
	g.len = 0;
	for (m = 0; m < feed.nmsg; m++) {
		uint32_t len = m == cutm ? half : feed.msg[m].len;
		g.msg[m] = feed.msg[m];
		g.msg[m].off = g.len;
		g.msg[m].len = len;
		memcpy(g.bytes + g.len, feed.bytes + feed.msg[m].off, len);
		add_udp(&l, &ss, g.bytes + g.len, len);
		g.len += len;
	}
	r.len = 0;
	for (d = 0; d < 10; d++) {
		uint32_t len = raw.msg[d].len - (d == cutd);
		r.msg[d] = raw.msg[d];
		r.msg[d].off = r.len;
		r.msg[d].len = len;
		memcpy(r.bytes + r.len, raw.bytes + raw.msg[d].off, len);
		add_udp(&l, &sr, r.bytes + r.len, len);
		r.len += len;
	}
	r.nmsg = 10;
	tr_restamp(&l, 0, 10000);
	tr_rx_init(&t, &cfg, feed.len + 65536);
	tr_run(&t, &l, 1, 1);
	{
		struct tr_gap cut[1] = { { g.msg[cutm].off, half, TOE_GAP_DECODE, STEP_E_BAD_LENGTH } };
		tr_check_ex(&t, sstep, &g, 0, g.len, NULL, 0, cut, 1);
		/* reported before the next datagram's records: right after message 5's */
		struct tr_gap trunc[1] = { { r.msg[cutd].off, r.msg[cutd].len, TOE_GAP_DECODE, FAST_E_TRUNCATED } };
		tr_check_ex(&t, sraw, &r, 0, r.len, NULL, 0, trunc, 1);
		uint64_t want = feed.nrec - feed.msg[cutm].n;
		for (d = 0; d < 10; d++)
			if (d != cutd)
				want += raw.msg[d].n;
		CHECK_EQ(t.p->st.records, want);
	}
	tr_rx_free(&t);
	tr_frames_free(&l);
	free(g.bytes);
	free(g.msg);
	free(r.bytes);
	free(r.msg);
	tr_feed_free(&raw);
}

/* rx_init refuses a port listed twice and too few stream decoders. */
static void test_config(void)
{
	struct rx_cfg cfg;
	struct rx_pipe *p = calloc(1, sizeof *p);
	struct fast_stream *fs = calloc(RX_MAX_STREAMS, sizeof *fs);
	uint8_t *buf = malloc(MTOE_BUF_BYTES(4, MTOE_DEFAULT_WINDOW));
	udp_cfg(&cfg);
	CHECK_EQ(rx_init(p, &cfg, &tr_prog, fs, 5, buf, MTOE_BUF_BYTES(4, MTOE_DEFAULT_WINDOW)), RX_ERR_STREAMS);
	CHECK_EQ(rx_init(p, &cfg, &tr_prog, fs, 6, buf, MTOE_BUF_BYTES(4, MTOE_DEFAULT_WINDOW)), RX_OK);
	cfg.udp[1].port = PORT_STEP;
	CHECK_EQ(rx_init(p, &cfg, &tr_prog, fs, 6, buf, MTOE_BUF_BYTES(4, MTOE_DEFAULT_WINDOW)), RX_ERR_UDP);
	udp_cfg(&cfg);
	cfg.nudp = RX_MAX_UDP + 1;
	CHECK_EQ(rx_init(p, &cfg, &tr_prog, fs, RX_MAX_STREAMS, buf, MTOE_BUF_BYTES(4, MTOE_DEFAULT_WINDOW)),
		 RX_ERR_UDP);
	udp_cfg(&cfg);
	CHECK_EQ(rx_init(p, &cfg, &tr_prog, fs, 6, buf, 100), MTOE_ERR_BUF);
	free(p);
	free(fs);
	free(buf);
}

int main(void)
{
	if (tr_load() != 0)
		return test_skip("test_rx_udp", "cannot compile " TR_TEMPLATES " (run from the repository root)");
	tr_feed_make(&feed, 3, 600, 4);
	test_udp();
	test_config();
	tr_feed_free(&feed);
	return test_done("test_rx_udp");
}
