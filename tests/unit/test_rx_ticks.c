/* test_rx_ticks.c - rx_ticks (the batch form of rx_next) gives rx_next's entries, in order, with its counters.
 *
 * Two pipelines (rx_init: net_rx + mirror TOE + STEP + FAST) get the same
 * frames: an SSE STEP feed (bench_step_feed) cut into TCP segments of
 * varying size, some swapped with the next, some lost (holes that the
 * vendor's ACKs and the timers turn into gaps), some payload bytes damaged
 * (decode gaps), with rx_poll now and then and at the end. One is drained
 * with rx_next alone; the other as toed's data plane does, rx_ticks with
 * batches of a varying size and rx_next for what it does not batch. Every
 * entry (kind, stream, the tick record's bytes) and every counter must match,
 * with the reference decoder and the CPU fast decoder at every instruction-set
 * level this CPU runs (the VBMI level with and without pext: rx_ticks runs
 * its own copy of the stream loop there, fastx_run.h, which must give what
 * fastx_stream_next's record-at-a-time path gives), and with one template
 * unmapped (its records are RECORD entries with tick_type 0 that rx_ticks
 * must hand over to rx_next in place). With RX_CFG_SEQ too: rx_ticks
 * tracks sequences as rx_next does (gaps before the records that show
 * them, copies dropped), on one line and on an A/B pair of lines.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "bench.h"
#include "pktbuild.h"
#include "rx/rx_pipe.h"
#include "fast/host/fastx.h"
#include "fast/host/fast_compile.h"

#define NREC 4000
#define MAXE 32768
#define AB_LINES 0x80000000u /* run(): two flows, lines A and B of one group */

static struct fast_prog prog, prog_unmapped;
static struct fast_names names;
static struct rx_stats last; /* the counters of the last run (both sides agree) */

/* An entry as a client sees it: its kind, stream and tick record. */
struct ent {
	uint8_t kind;
	uint16_t stream;
	int32_t tick_type;
	union toe_record tick;
};

struct side {
	struct rx_pipe p;
	struct fast_stream fs[4];
	uint8_t *mbuf;
	struct ent *e;
	uint32_t n;
	uint64_t batched; /* entries that came from rx_ticks */
	int ticks;        /* drain with rx_ticks */
	uint32_t cap;     /* its batch size, varied */
};

static void put(struct side *s, uint8_t kind, uint32_t stream, int32_t t, const union toe_record *tick)
{
	if (s->n >= MAXE)
		return;
	s->e[s->n].kind = kind;
	s->e[s->n].stream = (uint16_t)stream;
	s->e[s->n].tick_type = t;
	s->e[s->n].tick = *tick;
	s->n++;
}

static void drain(struct side *s)
{
	union toe_record recs[17];
	struct rx_out o;
	uint32_t sid = 0, n, k;
	for (;;) {
		if (s->ticks) {
			s->cap = s->cap % 17 + 1; /* 1..17: batches end anywhere */
			n = rx_ticks(&s->p, recs, s->cap, &sid);
			/* the fast decoder wrote into recs[] in place; it must not keep
			 * pointing there once rx_ticks returns (rx_next reads its own) */
			if (s->p.fastx)
				CHECK(s->p.fastx->dst == &s->p.fastx->tick);
			if (n > s->cap) {
				CHECK(n <= s->cap);
				return;
			}
			if (n) {
				for (k = 0; k < n; k++)
					put(s, RX_OUT_RECORD, sid, recs[k].hdr.type, &recs[k]);
				s->batched += n;
				continue;
			}
		}
		if (!rx_next(&s->p, &o))
			break;
		/* a mapped record's tick_type is its hdr.type: the batch has only the latter */
		put(s, o.kind, o.stream, o.kind == RX_OUT_RECORD && o.tick_type <= 0 ? 0 : o.tick.hdr.type, &o.tick);
	}
}

struct frame {
	uint8_t b[1600];
	size_t len;
};

/* The capture: SYN, the segments (1% swapped with the next, 2% lost unless
 * lossless), a vendor ACK every 4 segments. */
static uint32_t capture_from(const uint8_t *feed, size_t len, struct frame *f, uint32_t cap, int lossless,
			     uint16_t sport, uint32_t rng)
{
	struct pb_spec s, a;
	uint32_t n = 0, k = 0, isn = 5000;
	size_t at = 0;
	struct frame held;
	int have_held = 0;
	pb_init(&s);
	s.sport = sport;
	s.dport = 40000;
	s.win = 65535;
	pb_reverse(&s, &a);
	a.tcp_flags = TCP_ACK;
	a.seq = 1;
	s.seq = isn;
	s.tcp_flags = TCP_SYN;
	f[n].len = pb_tcp(f[n].b, sizeof f[n].b, &s, NULL, 0);
	n++;
	while (at < len && n + 3 < cap) {
		size_t c = 1 + (k * 7919u) % 1460u;
		if (c > len - at)
			c = len - at;
		s.seq = isn + 1 + (uint32_t)at;
		s.ack = 1;
		s.tcp_flags = TCP_ACK | TCP_PSH;
		rng ^= rng << 13;
		rng ^= rng >> 17;
		rng ^= rng << 5;
		if (!lossless && rng % 1000 < 20) {
			/* lost on the mirror */
		} else if (have_held) {
			f[n].len = pb_tcp(f[n].b, sizeof f[n].b, &s, feed + at, c);
			n++;
			f[n++] = held;
			have_held = 0;
		} else if (rng % 100 == 7 && at + c < len) {
			held.len = pb_tcp(held.b, sizeof held.b, &s, feed + at, c);
			have_held = 1;
		} else {
			f[n].len = pb_tcp(f[n].b, sizeof f[n].b, &s, feed + at, c);
			n++;
		}
		at += c;
		if (k % 4 == 3) {
			a.ack = isn + 1 + (uint32_t)at;
			f[n].len = pb_tcp(f[n].b, sizeof f[n].b, &a, NULL, 0);
			n++;
		}
		k++;
	}
	if (have_held)
		f[n++] = held;
	return n;
}

static uint32_t capture(const uint8_t *feed, size_t len, struct frame *f, uint32_t cap, int lossless)
{
	return capture_from(feed, len, f, cap, lossless, 9000, 777);
}

/* Line A (port 9000) and line B (port 9001) of one arbitration group: the
 * same feed, A losing segments, B too unless b_lossless, their frames
 * interleaved with B `lag` frames behind (at 50 us a frame, a lag past the
 * group's 1 ms wait makes A's holes expire before B could fill them: the
 * expiry shows at the next record of the channel, from either line). */
static uint32_t capture_ab(const uint8_t *feed, size_t len, struct frame *f, uint32_t cap, uint32_t lag,
			   int b_lossless)
{
	static struct frame a[4096], b[4096];
	uint32_t na = capture_from(feed, len, a, 4096, 0, 9000, 777);
	uint32_t nb = capture_from(feed, len, b, 4096, b_lossless, 9001, 4242);
	uint32_t n = 0, i = 0, j = 0;
	while ((i < na || j < nb) && n < cap) {
		if (i < na && (j >= nb || i <= j + lag))
			f[n++] = a[i++];
		else
			f[n++] = b[j++];
	}
	return n;
}

static void side_init(struct side *s, const struct rx_cfg *cfg, const struct fast_prog *pr, struct fastx_dec *xd)
{
	uint64_t mlen = MTOE_BUF_BYTES(cfg->mtoe.max_conns, cfg->mtoe.window);
	if (!s->mbuf)
		s->mbuf = malloc(mlen);
	if (!s->e)
		s->e = malloc(sizeof(struct ent) * MAXE);
	CHECK(s->mbuf != NULL && s->e != NULL);
	CHECK_EQ(rx_init(&s->p, cfg, pr, s->fs, 4, s->mbuf, mlen), RX_OK);
	s->p.fastx = xd;
	s->n = 0;
	s->batched = 0;
	s->cap = 0;
}

/* Decoder modes: the reference, then the CPU fast decoder at a level (and pext). */
struct mode {
	const char *name;
	int isa, pext;
};
static const struct mode modes[] = {
	{"reference", -1, 0},
	{"scalar", FASTX_ISA_SCALAR, 0},
	{"avx2", FASTX_ISA_AVX2, 1},
	{"avx2-no-pext", FASTX_ISA_AVX2, 0},
	{"avx512", FASTX_ISA_AVX512, 1},
	{"avx512vbmi", FASTX_ISA_VBMI, 1},
	{"avx512vbmi-no-pext", FASTX_ISA_VBMI, 0},
};
#define NMODES (sizeof modes / sizeof modes[0])

/* Set the decoder level of mode m; 0 when this CPU cannot run it. */
static int mode_set(const struct mode *m)
{
	if (m->isa < 0)
		return 1;
	if (fastx_isa_set(m->isa) != 0)
		return 0;
	if (fastx_pext_set(m->pext) != 0)
		fastx_pext_set(0); /* no BMI2: the level's copy without pext */
	return 1;
}

/* One run: the capture through both sides; returns the entries compared. */
static uint32_t run(const struct frame *f, uint32_t nf, const struct fast_prog *pr, int fast, uint32_t flags,
		    uint64_t *batched)
{
	static struct side a, b;
	static struct fastx_dec xa, xb;
	struct fastx_prog *xp = NULL;
	struct rx_cfg cfg;
	uint64_t ts = 1000000000ull;
	uint32_t i, ndiff = 0;
	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 4;
	cfg.mtoe.flows[0].ex_addr = 0x0a000001; /* pb_init's source */
	cfg.mtoe.flows[0].ex_port = 9000;
	cfg.mtoe.nflows = 1;
	if (flags & AB_LINES) {
		/* the second line: its own flow, line 1 of the default group */
		cfg.mtoe.flows[1] = cfg.mtoe.flows[0];
		cfg.mtoe.flows[1].ex_port = 9001;
		cfg.mtoe.nflows = 2;
		cfg.seq.flow_line[1] = 1;
		flags &= ~AB_LINES;
	}
	cfg.flags |= flags;
	if (fast) {
		xp = fastx_prog_new(pr);
		CHECK(xp != NULL);
	}
	side_init(&a, &cfg, pr, NULL);
	side_init(&b, &cfg, pr, NULL);
	if (fast) {
		fastx_dec_init(&xa, xp, &a.fs[0].rec);
		fastx_dec_init(&xb, xp, &b.fs[0].rec);
		a.p.fastx = &xa;
		b.p.fastx = &xb;
	}
	a.ticks = 0;
	b.ticks = 1;
	for (i = 0; i < nf; i++) {
		rx_frame(&a.p, f[i].b, (uint32_t)f[i].len, ts);
		rx_frame(&b.p, f[i].b, (uint32_t)f[i].len, ts);
		drain(&a);
		drain(&b);
		ts += 50000; /* 50 us a frame: holes time out within the run */
		if (i % 16 == 15) {
			rx_poll(&a.p, ts);
			rx_poll(&b.p, ts);
			drain(&a);
			drain(&b);
		}
	}
	rx_poll(&a.p, UINT64_MAX);
	rx_poll(&b.p, UINT64_MAX);
	drain(&a);
	drain(&b);
	CHECK(a.n < MAXE);
	CHECK_EQ(a.n, b.n);
	for (i = 0; i < a.n && i < b.n; i++) {
		const struct ent *x = &a.e[i], *y = &b.e[i];
		if ((x->kind != y->kind || x->stream != y->stream || x->tick_type != y->tick_type ||
		     memcmp(&x->tick, &y->tick, sizeof x->tick) != 0) &&
		    ndiff++ < 5) {
			test_failures++;
			fprintf(stderr, "entry %u: kind %d/%d stream %d/%d type %d/%d\n", i, x->kind, y->kind, x->stream,
				y->stream, x->tick_type, y->tick_type);
		}
		test_checks++;
	}
	CHECK(memcmp(&a.p.st, &b.p.st, sizeof a.p.st) == 0);
	CHECK(memcmp(a.p.sst, b.p.sst, sizeof a.p.sst) == 0);
	CHECK(memcmp(&a.p.net, &b.p.net, sizeof a.p.net) == 0);
	CHECK(memcmp(&a.p.mtoe.st, &b.p.mtoe.st, sizeof a.p.mtoe.st) == 0);
	for (i = 0; i < 4; i++) {
		/* each stream's decoder state and counters (fast_stream, its dictionary) */
		CHECK_EQ(a.fs[i].messages, b.fs[i].messages);
		CHECK_EQ(a.fs[i].records, b.fs[i].records);
		CHECK_EQ(a.fs[i].dec.records, b.fs[i].dec.records);
		CHECK(memcmp(a.fs[i].dec.errors, b.fs[i].dec.errors, sizeof a.fs[i].dec.errors) == 0);
		CHECK(memcmp(a.fs[i].dec.dict, b.fs[i].dec.dict, sizeof a.fs[i].dec.dict) == 0);
	}
	if (fast) {
		/* the same decoder paths taken record for record */
		CHECK_EQ(xa.fast, xb.fast);
		CHECK_EQ(xa.fallback, xb.fallback);
		CHECK_EQ(xa.vec, xb.vec);
		CHECK_EQ(xa.vec_fallback, xb.vec_fallback);
		CHECK_EQ(xa.step_bulk, xb.step_bulk);
		CHECK_EQ(xa.step_joined, xb.step_joined);
		if (fastx_isa_get() == FASTX_ISA_VBMI)
			CHECK(xb.vec > 0);
	}
	CHECK_EQ(a.batched, 0);
	*batched = b.batched;
	last = a.p.st;
	if (xp)
		fastx_prog_free(xp);
	return a.n;
}

int main(void)
{
	char err[256];
	size_t cap = (size_t)NREC * 200 + 4096, len = 0;
	uint8_t *feed = malloc(cap);
	struct frame *f = malloc(sizeof(struct frame) * 8192);
	uint32_t nf, nl, i, n;
	uint64_t batched;
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	CHECK(feed != NULL && f != NULL);
	CHECK_EQ(bench_step_feed(&prog, NREC, feed, cap, &len), 0);
	/* the same templates with the order template (5801) mapped to nothing */
	prog_unmapped = prog;
	for (i = 0; i < FAST_MAX_TEMPLATES; i++)
		if (prog_unmapped.tpl[i].kind == TOE_REC_ORDER)
			prog_unmapped.tpl[i].kind = TOE_REC_NONE;
	/* lossless first: every record delivered, nearly all through the batch */
	nl = capture(feed, len, f, 8192, 1);
	for (size_t m = 0; m < NMODES; m++) {
		int fast = modes[m].isa >= 0;
		if (!mode_set(&modes[m])) {
			printf("level %s: not on this CPU\n", modes[m].name);
			continue;
		}
		printf("level %s\n", modes[m].name);
		n = run(f, nl, &prog, fast, 0, &batched);
		CHECK(n >= NREC);
		CHECK(batched > NREC * 9 / 10);
	}
	/* damage some payload bytes (decode gaps; the frames' checksums are made for them) and lose segments */
	for (size_t k = 1000; k + 8 < len; k += 7919) {
		if (k % 2)
			feed[k] ^= 0x40;
		else
			feed[k] = 0x80;
	}
	for (size_t m = 0; m < NMODES; m++) {
		int fast = modes[m].isa >= 0;
		if (!mode_set(&modes[m]))
			continue;
		nf = capture(feed, len, f, 8192, 0); /* (the A/B cases below capture into f too) */
		n = run(f, nf, &prog, fast, 0, &batched);
		CHECK(n > NREC / 2);
		CHECK(batched > NREC / 2);
		CHECK(last.gaps_decode > 0);
		CHECK(last.gaps_window + last.gaps_acked + last.gaps_timeout > 0); /* the lost segments */
		CHECK_EQ(last.undrained, 0);
		/* unmapped records interleaved with mapped ones */
		n = run(f, nf, &prog_unmapped, fast, 0, &batched);
		CHECK(n > NREC / 2);
		CHECK(batched > NREC / 4);
		CHECK(last.tick_unmapped > NREC / 4);
		/* sequence tracking: the gaps the lost segments make come before the records that show them */
		n = run(f, nf, &prog, fast, RX_CFG_SEQ, &batched);
		CHECK(n > NREC / 2);
		CHECK(batched > NREC / 2);
		CHECK(last.seq_records > NREC / 2);
		CHECK(last.seq_gaps > 0);
		/* A/B lines: each copy once (the other dropped), what one line lost filled by the other */
		nf = capture_ab(feed, len, f, 8192, 0, 0);
		n = run(f, nf, &prog, fast, RX_CFG_SEQ | AB_LINES, &batched);
		CHECK(n > NREC / 2);
		CHECK(batched > NREC / 2);
		CHECK(last.seq_dups > NREC / 2);
		CHECK(last.seq_records > NREC);
		/* B 1.5 ms behind: A's holes expire before B's copies come (gaps, some shown at a copy of B's) */
		nf = capture_ab(feed, len, f, 8192, 30, 1);
		n = run(f, nf, &prog, fast, RX_CFG_SEQ | AB_LINES, &batched);
		CHECK(batched > NREC / 2);
		CHECK(last.seq_dups > NREC / 2);
		CHECK(last.seq_gaps > 0);
	}
	free(f);
	free(feed);
	return test_done("rx_ticks");
}
