/* test_rx_events.c - the receive pipeline's per-event entry points (rx_init_decode, rx_event, rx_feed,
 * rx_datagram, rx_drain), as the card's fast_top drives them.
 *
 * No frames: a stream set up by rx_init_decode (no mirror TOE, no listen
 * table) gets mirror TOE events and datagram payloads directly, built from
 * the sse_gen feed whose records are known (test_rx_common.h checks bytes,
 * gaps and records against it):
 *   - a TCP stream: OPEN, DATA events whole, a timeout GAP in the middle of
 *     a message, the rest as one DATA event handed in 64 bytes at a time
 *     (ev.data == 0, rx_feed), CLOSE; every entry carries its event's time;
 *   - UDP: STEP datagrams with one message cut at a datagram's end (a decode
 *     gap over its bytes, STEP_E_BAD_LENGTH, at the port's byte offsets) and
 *     raw FAST datagrams with one truncated (a decode gap over the datagram);
 *   - events and datagrams for streams that do not exist (counted, nothing
 *     done), configurations rx_init_decode refuses, entries left undrained,
 *     and that rx_event keeps its own copy of the event.
 */
#include "test_rx_common.h"
#include "fast/host/fast_encode.h"

static struct tr_feed feed;

/* A tr_rx on rx_init_decode (no mirror TOE buffer). */
static int ev_rx_init(struct tr_rx *t, const struct rx_cfg *cfg, uint64_t stream_cap)
{
	tr_rx_alloc(t, cfg, stream_cap);
	return rx_init_decode(t->p, cfg, &tr_prog, t->fs, t->nstreams);
}

/* Drain with rx_drain; every entry must carry time ts. Returns the entries. */
static uint32_t drain_at(struct tr_rx *t, uint64_t ts)
{
	struct rx_out o;
	uint32_t n = 0, bad_time = 0;
	while (n < 1000000 && rx_drain(t->p, &o)) {
		bad_time += o.tick.hdr.rx_ns != ts;
		tr_entry(t, &o);
		n++;
	}
	CHECK_EQ(bad_time, 0);
	return n;
}

static struct mtoe_event mk_ev(uint8_t type, uint8_t reason, uint16_t conn, uint64_t off, uint64_t len,
			       const uint8_t *data)
{
	struct mtoe_event e;
	memset(&e, 0, sizeof e);
	e.type = type;
	e.reason = reason;
	e.conn = conn;
	e.offset = off;
	e.len = len;
	e.data = data;
	return e;
}

static void test_tcp_events(void)
{
	struct rx_cfg cfg;
	struct tr_rx t;
	struct mtoe_event e;
	struct rx_out o;
	const uint16_t sid = 2;
	/* a timeout gap from the middle of message 20 over 3000 bytes */
	const uint64_t gap_off = feed.msg[20].off + 10, gap_len = 3000, rest = gap_off + gap_len;
	struct tr_gap loss[1] = { { gap_off, gap_len, TOE_GAP_TIMEOUT, 0 } };
	uint64_t ts = 7000, off;
	uint32_t whole = 0, pieces = 0;

	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 4;
	cfg.flags = RX_CFG_TAP_DATA;
	CHECK(rest + 5000 < feed.len);
	CHECK_EQ(ev_rx_init(&t, &cfg, feed.len + 65536), RX_OK);
	CHECK_EQ(t.p->nstreams, 4);

	/* OPEN: one RESET entry, with the reason and the event's time */
	e = mk_ev(MTOE_EV_OPEN, MTOE_OPEN_SYN, sid, 0, 0, NULL);
	CHECK_EQ(rx_event(t.p, &e, ts), 1);
	CHECK_EQ(rx_drain(t.p, &o), 1);
	CHECK_EQ(o.kind, RX_OUT_RESET);
	CHECK_EQ(o.stream, sid);
	CHECK_EQ(o.reason, MTOE_OPEN_SYN);
	CHECK_EQ(o.tick.hdr.type, TOE_REC_RESET);
	CHECK_EQ(o.tick.hdr.stream, sid);
	CHECK_EQ(o.tick.hdr.rx_ns, ts);
	tr_entry(&t, &o);
	CHECK_EQ(rx_drain(t.p, &o), 0);

	/* DATA events of 1000 bytes (the last shorter) up to the gap */
	for (off = 0; off < gap_off; off += 1000) {
		uint64_t n = gap_off - off < 1000 ? gap_off - off : 1000;
		e = mk_ev(MTOE_EV_DATA, 0, sid, off, n, feed.bytes + off);
		CHECK_EQ(rx_event(t.p, &e, ++ts), 1);
		drain_at(&t, ts);
		whole++;
	}
	e = mk_ev(MTOE_EV_GAP, TOE_GAP_TIMEOUT, sid, gap_off, gap_len, NULL);
	CHECK_EQ(rx_event(t.p, &e, ++ts), 1);
	CHECK_EQ(drain_at(&t, ts), 1);
	/* the rest: one DATA event, its bytes 64 at a time */
	e = mk_ev(MTOE_EV_DATA, 0, sid, rest, feed.len - rest, NULL);
	CHECK_EQ(rx_event(t.p, &e, ++ts), 1);
	CHECK_EQ(drain_at(&t, ts), 0);
	for (off = rest; off < feed.len; off += 64) {
		uint32_t n = (uint32_t)(feed.len - off < 64 ? feed.len - off : 64);
		CHECK_EQ(rx_feed(t.p, sid, feed.bytes + off, n, off), 1);
		drain_at(&t, ts); /* rx_feed keeps the event's time */
		pieces++;
	}
	e = mk_ev(MTOE_EV_CLOSE, MTOE_CLOSE_FIN, sid, feed.len, 0, NULL);
	CHECK_EQ(rx_event(t.p, &e, ++ts), 1);
	CHECK_EQ(drain_at(&t, ts), 0);

	tr_check(&t, sid, &feed, 0, feed.len, loss, 1);
	CHECK_EQ(t.s[sid].resets, 1);
	CHECK_EQ(t.s[sid].reset_reason, MTOE_OPEN_SYN);
	CHECK(pieces > 10);
	CHECK_EQ(t.p->st.opens, 1);
	CHECK_EQ(t.p->st.resets, 1);
	CHECK_EQ(t.p->st.closes, 1);
	CHECK_EQ(t.p->sst[sid].closes, 1);
	CHECK_EQ(t.p->st.data_events, whole + 1); /* a piecewise event counts once */
	CHECK_EQ(t.p->st.bytes, feed.len - gap_len);
	CHECK_EQ(t.p->sst[sid].bytes, feed.len - gap_len);
	CHECK_EQ(t.p->st.gaps_timeout, 1);
	/* the garbage from the gap's end up to the next message, unless one starts right there */
	CHECK_EQ(t.p->st.gaps_decode, feed.msg[tr_msg_at_or_after(&feed, rest)].off != rest);
	CHECK_EQ(t.p->st.records, t.s[sid].nrec);
	CHECK(t.s[sid].nrec > 200);
	CHECK_EQ(t.p->st.undrained, 0);
	CHECK_EQ(t.p->st.bad_stream, 0);
	CHECK_EQ(t.p->st.frames, 0);
	tr_rx_free(&t);
}

/* Raw FAST datagrams of one record each, encoded from a reset dictionary. */
static void raw_datagrams(struct tr_feed *f, uint32_t n)
{
	struct sse_gen *g = calloc(1, sizeof *g);
	struct fast_enc *enc = calloc(1, sizeof *enc);
	struct fast_rec rec;
	struct sse_gen_cfg gc;
	uint32_t d;
	memset(f, 0, sizeof *f);
	f->bytes = malloc((size_t)n * 600);
	f->msg = calloc(n, sizeof *f->msg);
	f->json = calloc(n, sizeof *f->json);
	f->tick = calloc(n, sizeof *f->tick);
	sse_gen_default(&gc);
	gc.seed = 77;
	CHECK_EQ(sse_gen_init(g, &gc), 0);
	fast_enc_init(enc, &tr_prog);
	for (d = 0; d < n; d++) {
		union toe_record tk;
		int len;
		fast_enc_reset(enc);
		sse_gen_next(g, &tk);
		len = sse_encode_raw(&tr_prog, enc, &tk, f->bytes + f->len, 600, &rec);
		CHECK(len > 0);
		if (len <= 0)
			break;
		f->msg[d].off = f->len;
		f->msg[d].len = (uint32_t)len;
		f->msg[d].first = f->nrec;
		f->msg[d].n = 1;
		f->json[f->nrec] = tr_json(&rec);
		f->tick[f->nrec] = tk;
		f->nrec++;
		f->nmsg++;
		f->len += (uint64_t)len;
	}
	free(g);
	free(enc);
}

static void test_datagrams(void)
{
	struct rx_cfg cfg;
	struct tr_rx t;
	struct tr_feed g, r;
	const uint32_t cutm = 6, cutd = 3, nmsg = 40, ndgram = 8;
	uint32_t sstep, sraw, m, d, half = feed.msg[cutm].len / 2;
	uint64_t ts = 1000, want;

	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 3;
	cfg.nudp = 2; /* ports are not needed: no listen table */
	cfg.udp[0].framing = FAST_FRAMING_STEP;
	cfg.udp[1].framing = FAST_FRAMING_DATAGRAM;
	cfg.flags = RX_CFG_TAP_DATA;
	sstep = cfg.mtoe.max_conns;
	sraw = cfg.mtoe.max_conns + 1;
	CHECK_EQ(ev_rx_init(&t, &cfg, feed.len + 65536), RX_OK);
	CHECK_EQ(t.p->nstreams, 5);

	/* STEP: one message per datagram, message cutm cut after half its bytes */
	memset(&g, 0, sizeof g);
	g.bytes = malloc(feed.len);
	g.msg = calloc(nmsg, sizeof *g.msg);
	g.json = feed.json;
	g.tick = feed.tick;
	g.nrec = feed.nrec;
	for (m = 0; m < nmsg; m++) {
		uint32_t len = m == cutm ? half : feed.msg[m].len;
		g.msg[m] = feed.msg[m];
		g.msg[m].off = g.len;
		g.msg[m].len = len;
		memcpy(g.bytes + g.len, feed.bytes + feed.msg[m].off, len);
		CHECK_EQ(rx_datagram(t.p, 0, g.bytes + g.len, len, ++ts), 1);
		drain_at(&t, ts);
		g.len += len;
		g.nmsg++;
	}
	/* raw FAST: datagram cutd loses its last byte */
	raw_datagrams(&r, ndgram);
	for (d = 0; d < r.nmsg; d++) {
		uint32_t len = r.msg[d].len - (d == cutd);
		if (d == cutd) {
			/* close the hole in the truth: later datagrams move up a byte */
			memmove(r.bytes + r.msg[d].off + len, r.bytes + r.msg[d].off + len + 1,
				r.len - (r.msg[d].off + len + 1));
			r.len--;
			r.msg[d].len = len;
			for (uint32_t k = d + 1; k < r.nmsg; k++)
				r.msg[k].off--;
		}
		CHECK_EQ(rx_datagram(t.p, 1, r.bytes + r.msg[d].off, len, ++ts), 1);
		drain_at(&t, ts);
	}
	{
		/* the cut message: reported before the next datagram's records, at the port's offsets */
		struct tr_gap cut[1] = { { g.msg[cutm].off, half, TOE_GAP_DECODE, STEP_E_BAD_LENGTH } };
		struct tr_gap trunc[1] = { { r.msg[cutd].off, r.msg[cutd].len, TOE_GAP_DECODE, FAST_E_TRUNCATED } };
		tr_check_ex(&t, sstep, &g, 0, g.len, NULL, 0, cut, 1);
		tr_check_ex(&t, sraw, &r, 0, r.len, NULL, 0, trunc, 1);
	}
	CHECK_EQ(t.p->st.udp_listened, nmsg + ndgram);
	CHECK_EQ(t.p->sst[sstep].datagrams, nmsg);
	CHECK_EQ(t.p->sst[sraw].datagrams, ndgram);
	CHECK_EQ(t.p->sst[sstep].bytes, g.len);
	CHECK_EQ(t.p->st.bytes, g.len + r.len);
	want = ndgram - 1;
	for (m = 0; m < nmsg; m++)
		if (m != cutm)
			want += feed.msg[m].n;
	CHECK_EQ(t.p->st.records, want);
	CHECK_EQ(t.p->st.gaps_decode, 2);
	CHECK_EQ(t.p->st.udp, 0); /* no frames */
	CHECK_EQ(t.p->st.undrained, 0);
	CHECK_EQ(t.p->st.bad_stream, 0);
	tr_rx_free(&t);
	free(g.bytes);
	free(g.msg);
	tr_feed_free(&r);
}

static void test_bad_and_undrained(void)
{
	struct rx_cfg cfg;
	struct rx_pipe *p = calloc(1, sizeof *p);
	struct fast_stream *fs = calloc(RX_MAX_STREAMS, sizeof *fs);
	struct mtoe_event e;
	struct rx_out o;
	uint8_t buf[64] = { 0 };
	uint32_t i;

	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 4;
	cfg.nudp = 2;
	/* refused: too many ports, too many connections, too few or no decoders */
	cfg.nudp = RX_MAX_UDP + 1;
	CHECK_EQ(rx_init_decode(p, &cfg, &tr_prog, fs, RX_MAX_STREAMS), RX_ERR_UDP);
	cfg.nudp = 2;
	cfg.mtoe.max_conns = MTOE_MAX_CONNS + 1;
	CHECK_EQ(rx_init_decode(p, &cfg, &tr_prog, fs, RX_MAX_STREAMS), RX_ERR_STREAMS);
	CHECK_EQ(p->nstreams, 0);
	cfg.mtoe.max_conns = 4;
	CHECK_EQ(rx_init_decode(p, &cfg, &tr_prog, fs, 5), RX_ERR_STREAMS);
	CHECK_EQ(rx_init_decode(p, &cfg, &tr_prog, NULL, 6), RX_ERR_STREAMS);
	/* ports all 0: no listen table here, so no duplicate */
	CHECK_EQ(rx_init_decode(p, &cfg, &tr_prog, fs, 6), RX_OK);
	CHECK_EQ(p->nstreams, 6);

	/* streams that do not exist: each counted once, nothing to drain */
	e = mk_ev(MTOE_EV_DATA, 0, 4, 0, sizeof buf, buf); /* slot 4 is the first UDP stream */
	CHECK_EQ(rx_event(p, &e, 1), 0);
	e = mk_ev(MTOE_EV_OPEN, MTOE_OPEN_SYN, 0xffff, 0, 0, NULL);
	CHECK_EQ(rx_event(p, &e, 1), 0);
	CHECK_EQ(rx_datagram(p, 2, buf, sizeof buf, 1), 0);
	CHECK_EQ(rx_datagram(p, 0xffffffffu, buf, sizeof buf, 1), 0);
	CHECK_EQ(rx_feed(p, 6, buf, sizeof buf, 0), 0);
	CHECK_EQ(rx_drain(p, &o), 0);
	CHECK_EQ(p->st.bad_stream, 5);
	CHECK_EQ(p->st.data_events, 0);
	CHECK_EQ(p->st.udp_listened, 0);
	CHECK_EQ(p->st.bytes, 0);
	for (i = 0; i < 6; i++)
		CHECK_EQ(p->sst[i].bytes, 0);

	/* rx_event copies the event: the caller's may change before the drain */
	e = mk_ev(MTOE_EV_GAP, TOE_GAP_WINDOW, 1, 100, 50, NULL);
	CHECK_EQ(rx_event(p, &e, 20), 1);
	e.conn = 3;
	e.offset = 999;
	CHECK_EQ(rx_drain(p, &o), 1);
	CHECK_EQ(o.kind, RX_OUT_GAP);
	CHECK_EQ(o.stream, 1);
	CHECK_EQ(o.tick.gap.offset, 100);
	CHECK_EQ(o.tick.gap.length, 50);
	CHECK_EQ(o.tick.gap.reason, TOE_GAP_WINDOW);
	CHECK_EQ(o.tick.hdr.rx_ns, 20);
	CHECK_EQ(rx_drain(p, &o), 0);

	/* entries nobody read: counted when the next event comes, not delivered */
	e = mk_ev(MTOE_EV_OPEN, MTOE_OPEN_JOIN, 0, 0, 0, NULL);
	CHECK_EQ(rx_event(p, &e, 30), 1);
	e = mk_ev(MTOE_EV_OPEN, MTOE_OPEN_SYN, 3, 0, 0, NULL);
	CHECK_EQ(rx_event(p, &e, 31), 1);
	CHECK_EQ(p->st.undrained, 1);
	CHECK_EQ(rx_drain(p, &o), 1);
	CHECK_EQ(o.kind, RX_OUT_RESET);
	CHECK_EQ(o.stream, 3);
	CHECK_EQ(o.reason, MTOE_OPEN_SYN);
	CHECK_EQ(o.tick.hdr.rx_ns, 31);
	CHECK_EQ(rx_drain(p, &o), 0);
	CHECK_EQ(p->st.opens, 2); /* the undrained OPEN was applied */
	CHECK_EQ(p->sst[0].resets, 1);
	free(p);
	free(fs);
}

/* A STEP datagram with no message start anywhere in it: the whole datagram
 * becomes a decode gap (step_garbage) at its stream offset, and the next
 * datagram, a good message, decodes. */
static void test_junk_datagram(void)
{
	struct rx_cfg cfg;
	struct rx_pipe *p = calloc(1, sizeof *p);
	struct fast_stream *fs = calloc(5, sizeof *fs);
	struct rx_out o;
	static const uint8_t junk[] = "no message starts here";
	uint32_t n = (uint32_t)sizeof junk - 1, recs = 0;

	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 4;
	cfg.nudp = 1;
	cfg.udp[0].framing = FAST_FRAMING_STEP;
	CHECK_EQ(rx_init_decode(p, &cfg, &tr_prog, fs, 5), RX_OK);
	CHECK_EQ(rx_datagram(p, 0, junk, n, 7), 1);
	CHECK_EQ(rx_drain(p, &o), 1);
	CHECK_EQ(o.kind, RX_OUT_GAP);
	CHECK_EQ(o.stream, 4);
	CHECK_EQ(o.tick.hdr.type, TOE_REC_GAP);
	CHECK_EQ(o.tick.gap.offset, 0);
	CHECK_EQ(o.tick.gap.length, n);
	CHECK_EQ(o.tick.gap.reason, TOE_GAP_DECODE);
	CHECK_EQ(o.tick.gap.detail, STEP_E_GARBAGE);
	CHECK_EQ(rx_drain(p, &o), 0);
	CHECK_EQ(p->sst[4].decode_errors, 1);
	/* the next datagram is message 0 of the feed: its records come, offsets continue */
	CHECK_EQ(rx_datagram(p, 0, feed.bytes + feed.msg[0].off, feed.msg[0].len, 8), 1);
	while (rx_drain(p, &o) == 1) {
		CHECK_EQ(o.kind, RX_OUT_RECORD);
		CHECK_EQ(o.offset, n);
		recs++;
	}
	CHECK_EQ(recs, feed.msg[0].n);
	free(fs);
	free(p);
}

int main(void)
{
	if (tr_load() != 0)
		return test_skip("test_rx_events", "cannot compile " TR_TEMPLATES " (run from the repository root)");
	tr_feed_make(&feed, 5, 800, 4);
	test_tcp_events();
	test_datagrams();
	test_bad_and_undrained();
	test_junk_datagram();
	tr_feed_free(&feed);
	return test_done("test_rx_events");
}
