/* test_rx_common.h - helpers shared by the test_rx_*.c programs (the receive pipeline).
 *
 * The ground truth comes from sse_gen: a feed of STEP messages whose records
 * (their JSON as toe-fastdump prints it, and their tick records) are known
 * before anything is sent. Frames are built with pktbuild (its own header
 * and checksum code), run through rx_pipe with RX_CFG_TAP_DATA, and the
 * results are checked against the feed:
 *   - the bytes handed to the deframer equal the feed outside the expected
 *     loss gaps, and DATA/GAP entries tile the stream;
 *   - the gap entries are exactly the expected loss gaps plus the decode gaps
 *     their resynchronisation implies ([end of a loss gap or start of a join,
 *     next "8=STEP")), derived here from the feed's message offsets;
 *   - the records are exactly those of the messages that lie wholly in the
 *     delivered range and touch no gap, in order, with their msg_seq, offset,
 *     JSON and tick record; so no record that is not in the truth ever
 *     appears.
 */
#ifndef TEST_RX_COMMON_H
#define TEST_RX_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "pktbuild.h"
#include "rx/rx_pipe.h"
#include "fast/host/fast_compile.h"
#include "fast/host/fast_json.h"
#include "feed/sse_gen.h"

#define TR_TEMPLATES "conf/templates/sse-l2-3201-5801.xml"
#define TR_EX_IP 0x0a000001u   /* exchange 10.0.0.1:9000 */
#define TR_EX_PORT 9000
#define TR_VE_IP 0x0a000002u   /* vendor 10.0.0.2:40000 */
#define TR_VE_PORT 40000
#define TR_MAX_GAPS 256
#define TR_MSS 1408
#define TR_MS 1000000ull

static struct fast_prog tr_prog;
static struct fast_names tr_names;

static inline int tr_load(void)
{
	char err[512];
	if (fast_compile_file(TR_TEMPLATES, &tr_prog, &tr_names, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

/* JSON of a record as toe-fastdump prints it (no extra), malloc'd. */
static inline char *tr_json(const struct fast_rec *r)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	if (!f)
		return NULL;
	fast_json_record(f, &tr_prog, &tr_names, r, NULL);
	fclose(f);
	return s;
}

/* ---- the feed --------------------------------------------------------- */

struct tr_msg {
	uint64_t off;       /* feed offset of its '8' */
	uint32_t len;
	uint64_t seq;       /* MsgSeqNum */
	uint32_t first, n;  /* its records in tr_feed.json/ticks */
};

struct tr_feed {
	uint8_t *bytes;
	uint64_t len;
	struct tr_msg *msg;
	uint32_t nmsg;
	char **json;            /* per record */
	union toe_record *tick; /* per record (generator output: msg_seq 0) */
	uint32_t nrec;
};

/* A STEP feed of about nrec records, 1..per_msg per message. */

static inline void tr_feed_make(struct tr_feed *f, uint64_t seed, uint32_t nrec, uint32_t per_msg)
{
	struct sse_stream *ss = calloc(1, sizeof *ss);
	struct fast_rec *recs = calloc(per_msg, sizeof *recs);
	union toe_record *ticks = calloc(per_msg, sizeof *ticks);
	struct sse_gen_cfg cfg;
	static uint8_t buf[1 << 16];
	uint64_t cap = (uint64_t)nrec * 200 + 65536;
	memset(f, 0, sizeof *f);
	f->bytes = malloc(cap);
	f->msg = calloc(nrec, sizeof *f->msg);
	f->json = calloc(nrec, sizeof *f->json);
	f->tick = calloc(nrec, sizeof *f->tick);
	sse_gen_default(&cfg);
	cfg.seed = seed;
	CHECK_EQ(sse_stream_init(ss, &tr_prog, &cfg, per_msg), 0);
	while (f->nrec < nrec) {
		uint32_t n = 0, k;
		int len = sse_stream_next_msg(ss, nrec - f->nrec, buf, sizeof buf, recs, ticks, &n);
		CHECK(len > 0);
		if (len <= 0 || f->len + (uint64_t)len > cap)
			break;
		f->msg[f->nmsg].off = f->len;
		f->msg[f->nmsg].len = (uint32_t)len;
		f->msg[f->nmsg].seq = ss->seq - 1;
		f->msg[f->nmsg].first = f->nrec;
		f->msg[f->nmsg].n = n;
		f->nmsg++;
		memcpy(f->bytes + f->len, buf, (size_t)len);
		f->len += (uint64_t)len;
		for (k = 0; k < n; k++) {
			f->json[f->nrec] = tr_json(&recs[k]);
			f->tick[f->nrec] = ticks[k];
			f->nrec++;
		}
	}
	free(ss);
	free(recs);
	free(ticks);
}

static inline void tr_feed_free(struct tr_feed *f)
{
	uint32_t i;
	for (i = 0; i < f->nrec; i++)
		free(f->json[i]);
	free(f->json);
	free(f->tick);
	free(f->msg);
	free(f->bytes);
}

/* Index of the first message starting at or after feed offset off (nmsg if none). */
static inline uint32_t tr_msg_at_or_after(const struct tr_feed *f, uint64_t off)
{
	uint32_t i;
	for (i = 0; i < f->nmsg; i++)
		if (f->msg[i].off >= off)
			return i;
	return f->nmsg;
}

/* ---- frames ----------------------------------------------------------- */

struct tr_frame {
	uint8_t *buf;
	uint32_t len;
	uint64_t ts;
};

struct tr_frames {
	struct tr_frame *f;
	uint32_t n, cap;
};

static inline void tr_add(struct tr_frames *l, const uint8_t *buf, size_t len, uint64_t ts)
{
	CHECK(len > 0);
	if (len == 0)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->f = realloc(l->f, l->cap * sizeof *l->f);
	}
	l->f[l->n].buf = malloc(len);
	memcpy(l->f[l->n].buf, buf, len);
	l->f[l->n].len = (uint32_t)len;
	l->f[l->n].ts = ts;
	l->n++;
}

static inline void tr_frames_free(struct tr_frames *l)
{
	uint32_t i;
	for (i = 0; i < l->n; i++)
		free(l->f[i].buf);
	free(l->f);
	memset(l, 0, sizeof *l);
}

static inline void tr_swap(struct tr_frames *l, uint32_t a, uint32_t b)
{
	struct tr_frame t = l->f[a];
	l->f[a] = l->f[b];
	l->f[b] = t;
}

/* Remove frame i (keeping the order of the rest). */
static inline void tr_remove(struct tr_frames *l, uint32_t i)
{
	free(l->f[i].buf);
	memmove(&l->f[i], &l->f[i + 1], (l->n - i - 1) * sizeof *l->f);
	l->n--;
}

/* Restamp the frames 1 ms apart from t0, in list order. */
static inline void tr_restamp(struct tr_frames *l, uint64_t t0, uint64_t step)
{
	uint32_t i;
	for (i = 0; i < l->n; i++)
		l->f[i].ts = t0 + (uint64_t)i * step;
}

/* A connection as a pb_spec: exchange -> vendor, the vendor port given. */
static inline void tr_spec(struct pb_spec *s, uint16_t vport)
{
	pb_init(s);
	s->saddr = TR_EX_IP;
	s->daddr = TR_VE_IP;
	s->sport = TR_EX_PORT;
	s->dport = vport;
	s->win = 65535;
}

static uint8_t tr_scratch[70000];

/* One exchange -> vendor TCP segment. */
static inline void tr_seg(struct tr_frames *l, const struct pb_spec *base, uint32_t seq, uint8_t flags,
		   const uint8_t *p, uint32_t n, uint64_t ts)
{
	struct pb_spec s = *base;
	s.seq = seq;
	s.ack = 1;
	s.tcp_flags = flags;
	tr_add(l, tr_scratch, pb_tcp(tr_scratch, sizeof tr_scratch, &s, p, n), ts);
}

/* A vendor -> exchange segment without data acknowledging `ack`, with flags (TCP_ACK, TCP_FIN). */
static inline void tr_vendor_seg(struct tr_frames *l, const struct pb_spec *base, uint32_t ack, uint8_t flags,
				 uint64_t ts)
{
	struct pb_spec s = *base;
	s.saddr = base->daddr;
	s.daddr = base->saddr;
	s.sport = base->dport;
	s.dport = base->sport;
	s.seq = 1;
	s.ack = ack;
	s.tcp_flags = flags;
	memcpy(s.src_mac, base->dst_mac, 6);
	memcpy(s.dst_mac, base->src_mac, 6);
	tr_add(l, tr_scratch, pb_tcp(tr_scratch, sizeof tr_scratch, &s, NULL, 0), ts);
}

/* The vendor's ACK of `ack`. */
static inline void tr_ack(struct tr_frames *l, const struct pb_spec *base, uint32_t ack, uint64_t ts)
{
	tr_vendor_seg(l, base, ack, TCP_ACK, ts);
}

/* Feed bytes [from, to) as segments of at most mss bytes with sequence
 * numbers from isn+1 (+ from); a vendor ACK after every `ack_every` segments
 * (0: none). */
static inline void tr_segments(struct tr_frames *l, const struct pb_spec *s, const struct tr_feed *f, uint32_t isn,
			uint64_t from, uint64_t to, uint32_t mss, uint32_t ack_every, uint64_t *ts)
{
	uint64_t o;
	uint32_t k = 0;
	for (o = from; o < to; o += mss) {
		uint32_t n = (uint32_t)(to - o < mss ? to - o : mss);
		tr_seg(l, s, isn + 1 + (uint32_t)o, TCP_ACK | TCP_PSH, f->bytes + o, n, (*ts)++);
		if (ack_every && ++k % ack_every == 0)
			tr_ack(l, s, isn + 1 + (uint32_t)(o + n), (*ts)++);
	}
}

/* SYN, the whole feed in mss segments, FIN. */
static inline void tr_connection(struct tr_frames *l, const struct pb_spec *s, const struct tr_feed *f, uint32_t isn,
			  uint32_t mss, int fin, uint64_t *ts)
{
	tr_seg(l, s, isn, TCP_SYN, NULL, 0, (*ts)++);
	tr_segments(l, s, f, isn, 0, f->len, mss, 4, ts);
	if (fin)
		tr_seg(l, s, isn + 1 + (uint32_t)f->len, TCP_FIN | TCP_ACK, NULL, 0, (*ts)++);
}

/* ---- running the pipeline ---------------------------------------------- */

struct tr_gap {
	uint64_t off, len;
	uint32_t reason, detail;
};

struct tr_rec {
	char *json;
	uint64_t msg_seq, offset;
	int32_t tick_type;
	union toe_record tick;
};

struct tr_stream {
	uint8_t *bytes;      /* rebuilt stream (DATA entries) */
	uint64_t cap;
	uint64_t next;       /* offset the next DATA or loss GAP must have */
	int order_errors;
	int resets, reset_reason;
	struct tr_gap gap[TR_MAX_GAPS];
	int ngaps;
	struct tr_rec *rec;
	uint32_t nrec, rcap;
};

struct tr_rx {
	struct rx_cfg cfg;
	struct rx_pipe *p;
	struct fast_stream *fs;
	uint8_t *mbuf;
	uint32_t nstreams;
	struct tr_stream *s;
	uint64_t entries;
};

/* Default configuration: follow exchange 10.0.0.1:9000, tap the data. */
static inline void tr_cfg(struct rx_cfg *cfg)
{
	rx_cfg_default(cfg);
	cfg->mtoe.flows[0].ex_addr = TR_EX_IP;
	cfg->mtoe.flows[0].ex_port = TR_EX_PORT;
	cfg->mtoe.nflows = 1;
	cfg->mtoe.max_conns = 4;
	cfg->flags = RX_CFG_TAP_DATA;
}

/* The pipeline, its streams and what each stream collects (stream_cap bytes), not initialised yet. */
static inline void tr_rx_alloc(struct tr_rx *t, const struct rx_cfg *cfg, uint64_t stream_cap)
{
	uint32_t i;
	memset(t, 0, sizeof *t);
	t->cfg = *cfg;
	t->nstreams = RX_NSTREAMS(cfg);
	t->p = calloc(1, sizeof *t->p);
	t->fs = calloc(t->nstreams, sizeof *t->fs);
	t->s = calloc(t->nstreams, sizeof *t->s);
	for (i = 0; i < t->nstreams; i++) {
		t->s[i].bytes = calloc(1, stream_cap);
		t->s[i].cap = stream_cap;
	}
}

static inline void tr_rx_init(struct tr_rx *t, const struct rx_cfg *cfg, uint64_t stream_cap)
{
	uint64_t blen = MTOE_BUF_BYTES(cfg->mtoe.max_conns, cfg->mtoe.window);
	tr_rx_alloc(t, cfg, stream_cap);
	t->mbuf = malloc(blen);
	CHECK_EQ(rx_init(t->p, cfg, &tr_prog, t->fs, t->nstreams, t->mbuf, blen), RX_OK);
}

static inline void tr_rx_free(struct tr_rx *t)
{
	uint32_t i, k;
	for (i = 0; i < t->nstreams; i++) {
		for (k = 0; k < t->s[i].nrec; k++)
			free(t->s[i].rec[k].json);
		free(t->s[i].rec);
		free(t->s[i].bytes);
	}
	free(t->s);
	free(t->p);
	free(t->fs);
	free(t->mbuf);
}

static inline void tr_entry(struct tr_rx *t, const struct rx_out *o)
{
	struct tr_stream *s;
	t->entries++;
	CHECK(o->stream < t->nstreams);
	if (o->stream >= t->nstreams)
		return;
	s = &t->s[o->stream];
	CHECK_EQ(o->tick.hdr.stream, o->stream);
	switch (o->kind) {
	case RX_OUT_RESET:
		CHECK_EQ(o->tick.hdr.type, TOE_REC_RESET);
		/* the record says why: SYN or mid-stream join, as the mirror TOE saw it */
		CHECK_EQ(o->tick.reset.reason, o->reason);
		CHECK(o->reason == TOE_RESET_SYN || o->reason == TOE_RESET_JOIN);
		/* a new stream: what is checked is the stream since its last RESET */
		s->resets++;
		s->reset_reason = o->reason;
		s->next = 0;
		s->ngaps = 0;
		memset(s->bytes, 0, s->cap);
		while (s->nrec)
			free(s->rec[--s->nrec].json);
		break;
	case RX_OUT_DATA:
		if (o->offset != s->next || o->len == 0 || !o->data) {
			s->order_errors++;
			fprintf(stderr, "stream %u: DATA at %llu len %llu, expected %llu\n", o->stream,
				(unsigned long long)o->offset, (unsigned long long)o->len,
				(unsigned long long)s->next);
		}
		if (o->offset + o->len <= s->cap)
			memcpy(s->bytes + o->offset, o->data, o->len);
		s->next = o->offset + o->len;
		break;
	case RX_OUT_GAP:
		CHECK_EQ(o->tick.hdr.type, TOE_REC_GAP);
		CHECK_EQ(o->tick.gap.offset, o->offset);
		CHECK_EQ(o->tick.gap.length, o->len);
		if (o->tick.gap.reason != TOE_GAP_DECODE) {
			if (o->offset != s->next || o->len == 0) {
				s->order_errors++;
				fprintf(stderr, "stream %u: GAP at %llu, expected %llu\n", o->stream,
					(unsigned long long)o->offset, (unsigned long long)s->next);
			}
			s->next = o->offset + o->len;
		}
		if (s->ngaps < TR_MAX_GAPS) {
			s->gap[s->ngaps].off = o->tick.gap.offset;
			s->gap[s->ngaps].len = o->tick.gap.length;
			s->gap[s->ngaps].reason = o->tick.gap.reason;
			s->gap[s->ngaps].detail = o->tick.gap.detail;
		}
		s->ngaps++;
		break;
	case RX_OUT_RECORD: {
		struct tr_rec *r;
		CHECK(o->rec != NULL);
		if (!o->rec)
			break;
		if (s->nrec == s->rcap) {
			s->rcap = s->rcap ? 2 * s->rcap : 1024;
			s->rec = realloc(s->rec, s->rcap * sizeof *s->rec);
		}
		r = &s->rec[s->nrec++];
		r->json = tr_json(o->rec);
		r->msg_seq = o->msg_seq;
		r->offset = o->offset;
		r->tick_type = o->tick_type;
		r->tick = o->tick;
		break;
	}
	default:
		CHECK(0);
	}
}

static inline void tr_drain(struct tr_rx *t)
{
	struct rx_out o;
	uint32_t guard = 0;
	while (rx_next(t->p, &o) && guard++ < 1000000)
		tr_entry(t, &o);
}

/* Run frames [from, to) of l; with poll, rx_poll at each frame's time. */
static inline void tr_run_range(struct tr_rx *t, const struct tr_frames *l, uint32_t from, uint32_t to, int poll)
{
	uint32_t i;
	for (i = from; i < to && i < l->n; i++) {
		rx_frame(t->p, l->f[i].buf, l->f[i].len, l->f[i].ts);
		tr_drain(t);
		if (poll) {
			rx_poll(t->p, l->f[i].ts);
			tr_drain(t);
		}
	}
}

/* Every frame, then (final) the end-of-capture poll. */
static inline void tr_run(struct tr_rx *t, const struct tr_frames *l, int poll, int final)
{
	tr_run_range(t, l, 0, l->n, poll);
	if (final) {
		rx_poll(t->p, UINT64_MAX);
		tr_drain(t);
	}
	CHECK_EQ(t->p->st.undrained, 0);
	CHECK_EQ(t->p->st.bad_stream, 0);
	CHECK_EQ(t->p->mtoe.st.ev_overflow, 0);
}

/* ---- checking against the truth ---------------------------------------- */

static inline int tr_gap_cmp(const void *a, const void *b)
{
	const struct tr_gap *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* a loss gap before the decode gap that starts where it ends (zero-length loss gaps do not exist) */
	return (x->reason == TOE_GAP_DECODE) - (y->reason == TOE_GAP_DECODE);
}

/* The gaps expected on a stream whose offset 0 is feed offset `base` and
 * whose data ends at feed offset `end`, given the loss gaps (stream offsets,
 * sorted): the loss gaps plus the garbage runs that follow each of them and
 * a join (when offset 0 is not a message start). Returns the count. */
static inline int tr_expected_gaps(const struct tr_feed *f, uint64_t base, uint64_t end, const struct tr_gap *loss,
			    int nloss, struct tr_gap *out, int cap)
{
	int n = 0, i;
	for (i = -1; i < nloss; i++) {
		uint64_t from = i < 0 ? 0 : loss[i].off + loss[i].len; /* stream offset where hunting starts */
		uint32_t m;
		uint64_t s;
		int j, cut = 0;
		if (i >= 0 && n < cap)
			out[n++] = loss[i];
		if (base + from >= end)
			continue;
		m = tr_msg_at_or_after(f, base + from);
		if (m == f->nmsg)
			continue;
		s = f->msg[m].off - base;
		if (s == from)
			continue;
		/* a later loss gap that begins before "8=STEP" is whole restarts the hunt silently */
		for (j = i + 1; j < nloss; j++)
			if (loss[j].off < s + 6)
				cut = 1;
		if (cut || base + s + 6 > end)
			continue;
		if (n < cap) {
			out[n].off = from;
			out[n].len = s - from;
			out[n].reason = TOE_GAP_DECODE;
			out[n].detail = STEP_E_GARBAGE;
			n++;
		}
	}
	qsort(out, (size_t)n, sizeof *out, tr_gap_cmp);
	return n;
}

/* Tick record of the truth with the header a decoded record gets. */
static inline int tr_same_tick(const union toe_record *got, const union toe_record *truth, uint16_t stream,
			uint64_t msg_seq)
{
	union toe_record a = *got, b = *truth;
	if (a.hdr.stream != stream || a.hdr.msg_seq != msg_seq)
		return 0;
	a.hdr.rx_ns = 0;
	b.hdr.stream = stream;
	b.hdr.msg_seq = msg_seq;
	b.hdr.rx_ns = 0;
	return memcmp(&a, &b, sizeof a) == 0;
}

/* Check stream sid against the feed (see the top of this file). extra_gaps
 * (may be NULL): gaps other than loss and garbage ones, e.g. a decode error
 * the test caused, merged into the expected list. */
static inline void tr_check_ex(struct tr_rx *t, uint32_t sid, const struct tr_feed *f, uint64_t base, uint64_t end,
			const struct tr_gap *loss, int nloss, const struct tr_gap *extra, int nextra)
{
	struct tr_stream *s = &t->s[sid];
	struct tr_gap exp[TR_MAX_GAPS];
	int nexp, i;
	uint32_t m, k, r = 0;
	uint64_t pos = 0, len = end - base;
	int fails = test_failures;

	CHECK_EQ(s->order_errors, 0);
	CHECK_EQ(s->next, len);
	/* bytes outside the loss gaps */
	for (i = 0; i <= nloss; i++) {
		uint64_t e = i < nloss ? loss[i].off : len;
		if (e > pos && e <= s->cap && s->next >= e)
			CHECK_MEM(s->bytes + pos, f->bytes + base + pos, e - pos);
		if (i < nloss)
			pos = loss[i].off + loss[i].len;
	}
	/* gaps */
	nexp = tr_expected_gaps(f, base, end, loss, nloss, exp, TR_MAX_GAPS);
	for (i = 0; i < nextra && nexp < TR_MAX_GAPS; i++)
		exp[nexp++] = extra[i];
	qsort(exp, (size_t)nexp, sizeof *exp, tr_gap_cmp);
	CHECK_EQ(s->ngaps, nexp);
	for (i = 0; i < nexp && i < s->ngaps; i++) {
		CHECK_EQ(s->gap[i].off, exp[i].off);
		CHECK_EQ(s->gap[i].len, exp[i].len);
		CHECK_EQ(s->gap[i].reason, exp[i].reason);
		if (exp[i].reason == TOE_GAP_DECODE)
			CHECK_EQ(s->gap[i].detail, exp[i].detail);
	}
	/* records: messages wholly in [base, end) that touch no gap */
	for (m = 0; m < f->nmsg; m++) {
		const struct tr_msg *msg = &f->msg[m];
		uint64_t mo, me;
		int hit = 0;
		if (msg->off < base || msg->off + msg->len > end)
			continue;
		mo = msg->off - base;
		me = mo + msg->len;
		for (i = 0; i < nexp; i++)
			if (exp[i].off < me && exp[i].off + exp[i].len > mo)
				hit = 1;
		if (hit)
			continue;
		for (k = 0; k < msg->n; k++, r++) {
			const struct tr_rec *g;
			if (r >= s->nrec) {
				CHECK(r < s->nrec);
				break;
			}
			g = &s->rec[r];
			CHECK_EQ(g->msg_seq, msg->seq);
			CHECK_EQ(g->offset, mo);
			CHECK(g->json && strcmp(g->json, f->json[msg->first + k]) == 0);
			CHECK_EQ(g->tick_type, f->tick[msg->first + k].hdr.type);
			CHECK(tr_same_tick(&g->tick, &f->tick[msg->first + k], (uint16_t)sid, msg->seq));
			if (test_failures - fails > 20)
				break;
		}
		if (test_failures - fails > 20)
			break;
	}
	CHECK_EQ(s->nrec, r);
	if (test_failures != fails)
		fprintf(stderr, "  (stream %u: %u records, %d gaps, expected %d gaps)\n", sid, s->nrec, s->ngaps,
			nexp);
}

static inline void tr_check(struct tr_rx *t, uint32_t sid, const struct tr_feed *f, uint64_t base, uint64_t end,
		     const struct tr_gap *loss, int nloss)
{
	tr_check_ex(t, sid, f, base, end, loss, nloss, NULL, 0);
}

/* The only stream that saw a RESET (-1, counted as a failure, if not exactly one). */
static inline int32_t tr_only_stream(struct tr_rx *t)
{
	int32_t sid = -1;
	uint32_t i, n = 0;
	for (i = 0; i < t->nstreams; i++)
		if (t->s[i].resets) {
			sid = (int32_t)i;
			n++;
		}
	CHECK_EQ(n, 1);
	return n == 1 ? sid : -1;
}

#endif
