/* test_seq_fields.c - sequence tracking keyed by configured fields of a non-SSE exchange.
 *
 * tests/data/xchg-seq-templates.xml is a made-up exchange: trades (7001)
 * numbered by ChanNo/SeqNo (ids 501/502, fields no tick record holds) and
 * book updates (7002) by fields with ids 601/602 that land in the tick
 * record. With the rules 7001:501:502 and *:601:602 (what [fast]
 * sequence_fields = 7001:ChanNo:SeqNo, *:601:TradeIndex resolves to) a STEP
 * feed with sequence jumps, repeats, a MsgSeqNum jump and a new logon
 * (MsgSeqNum and SeqNo back to 1) goes through the rx pipeline with the
 * reference decoder and with the CPU fast decoder: both must give the same
 * entries, the gaps must name the configured channel and the missing range,
 * repeats must be dropped and counted, the logon must restart the channel.
 * The fast decoder must decode 7002 itself (its key is in the tick record)
 * and hand 7001 to the reference record by record, counted.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "rx/rx_pipe.h"
#include "fast/host/fastx.h"
#include "fast/host/fast_compile.h"
#include "fast/host/fast_encode.h"
#include "fast/host/step_frame.h"

#define TPL_FILE "tests/data/xchg-seq-templates.xml"

static struct fast_prog prog;
static struct fast_names names;

/* One record per STEP message: template id, channel, sequence, MsgSeqNum. */
struct msg {
	uint32_t tid, chan;
	uint64_t seq, msn;
};

static const struct msg feed_msgs[] = {
	{ 7001, 3, 1, 1 },  { 7001, 3, 2, 2 },   { 7002, 9, 10, 3 },  { 7001, 3, 3, 4 },
	{ 7001, 3, 6, 5 },  /* SeqNo jump: 4..5 missing on channel 3 */
	{ 7001, 3, 6, 6 },  /* repeat: dropped */
	{ 7002, 9, 11, 7 }, { 7002, 9, 15, 8 }, /* 601/602 jump: 12..14 missing on channel 9 */
	{ 7002, 9, 11, 9 }, /* repeat below: dropped */
	{ 7001, 3, 7, 12 }, /* MsgSeqNum jump: 10..11 */
	{ 7001, 3, 1, 1 },  /* a new logon: MsgSeqNum and channel 3 back to 1 */
	{ 7001, 3, 2, 2 },  { 7002, 9, 16, 3 },
};
#define NMSG (sizeof feed_msgs / sizeof feed_msgs[0])

static int tpl_index(uint32_t tid)
{
	for (uint32_t t = 0; t < prog.ntpl; t++)
		if (prog.tpl[t].id == tid)
			return (int)t;
	return -1;
}

/* The record of m in the encoder's value layout: keys and SecurityID set, the rest absent. */
static void make_rec(struct fast_rec *r, const struct msg *m)
{
	int t = tpl_index(m->tid);
	const struct fast_tpl *tp = &prog.tpl[t];
	memset(r, 0, sizeof *r);
	r->tid = m->tid;
	r->tpl = (uint16_t)t;
	for (uint32_t i = tp->first; i < tp->end; i++) {
		const struct fast_instr *in = &prog.instr[i];
		struct fast_val *v;
		if (in->depth != 0 || in->kind == FAST_K_END || in->kind == FAST_K_DEC_MANT)
			continue;
		v = &r->v[r->nvals++];
		v->instr = (uint16_t)i;
		if (in->fid == 501 || in->fid == 601) {
			v->present = 1;
			v->i = m->chan;
		} else if (in->fid == 502 || in->fid == 602) {
			v->present = 1;
			v->i = (int64_t)m->seq;
		} else if (in->fid == 48) {
			v->present = 1;
			v->soff = r->nstr;
			v->slen = 6;
			memcpy(r->str + r->nstr, "600000", 6);
			r->nstr += 6;
		}
	}
}

static size_t build_feed(uint8_t *buf, size_t cap)
{
	static struct fast_enc enc;
	struct fast_rec *r = malloc(sizeof *r);
	uint8_t fast[512];
	size_t len = 0;
	fast_enc_init(&enc, &prog);
	for (uint32_t k = 0; k < NMSG; k++) {
		struct step_hdr h = { "UA7000", "XCHG", "VDE", feed_msgs[k].msn, "20261201-09:30:00.000" };
		make_rec(r, &feed_msgs[k]);
		fast_enc_reset(&enc); /* the decoder resets its dictionary at every STEP message */
		int n = fast_enc_record(&enc, r, fast, sizeof fast);
		CHECK(n > 0);
		if (n <= 0)
			break;
		int m = step_frame(&h, fast, (uint32_t)n, buf + len, cap - len);
		CHECK(m > 0);
		if (m <= 0)
			break;
		len += (size_t)m;
	}
	free(r);
	return len;
}

struct side {
	struct rx_pipe p;
	struct fast_stream fs[2];
	struct rx_out out[256];
	int n;
};

/* Run the feed through a fresh pipe, one message per DATA event; entries into s->out. */
static void run(struct side *s, struct fastx_dec *xd, const struct fastx_prog *xp, const uint8_t *feed, size_t len)
{
	struct rx_cfg cfg;
	struct mtoe_event ev;
	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 2;
	cfg.flags |= RX_CFG_SEQ;
	cfg.seq.nfields = 2;
	cfg.seq.fields[0].tid = 7001;
	cfg.seq.fields[0].chan_fid = 501;
	cfg.seq.fields[0].seq_fid = 502;
	cfg.seq.fields[1].tid = 0;
	cfg.seq.fields[1].chan_fid = 601;
	cfg.seq.fields[1].seq_fid = 602;
	CHECK_EQ(rx_init_decode(&s->p, &cfg, &prog, s->fs, 2), RX_OK);
	if (xd) {
		fastx_dec_init(xd, xp, &s->fs[0].rec);
		s->p.fastx = xd;
	}
	s->n = 0;
	memset(&ev, 0, sizeof ev);
	ev.type = MTOE_EV_OPEN;
	ev.reason = MTOE_OPEN_SYN;
	ev.conn = 1;
	rx_event(&s->p, &ev, 1);
	for (size_t at = 0, k = 0; at <= len; k++) {
		while (s->n < 256 && rx_drain(&s->p, &s->out[s->n]))
			s->n++;
		if (at == len)
			break;
		/* cut at the next "8=STEP" so each event is one message */
		size_t e = at + 1;
		while (e < len && memcmp(feed + e, "8=STEP", 6) != 0)
			e++;
		memset(&ev, 0, sizeof ev);
		ev.type = MTOE_EV_DATA;
		ev.conn = 1;
		ev.offset = at;
		ev.len = e - at;
		ev.data = feed + at;
		rx_event(&s->p, &ev, 1000 + k);
		at = e;
	}
}


static void check_side(const struct side *s)
{
	const struct toe_gap *g[4];
	const struct toe_reset *r[4];
	int ng = 0, nr = 0, nrec = 0;
	for (int i = 0; i < s->n; i++) {
		const struct rx_out *o = &s->out[i];
		if (o->kind == RX_OUT_GAP && ng < 4)
			g[ng++] = &o->tick.gap;
		else if (o->kind == RX_OUT_RESET && o->tick.reset.reason == TOE_RESET_RESTART && nr < 4)
			r[nr++] = &o->tick.reset;
		else if (o->kind == RX_OUT_RECORD)
			nrec++;
	}
	if (getenv("SEQF_DEBUG"))
		for (int i = 0; i < s->n; i++)
			fprintf(stderr, "entry %d kind %d reason %u detail %u first %llu last %llu ch %u\n", i, s->out[i].kind,
				s->out[i].tick.gap.reason, s->out[i].tick.gap.detail,
				(unsigned long long)s->out[i].tick.gap.first, (unsigned long long)s->out[i].tick.gap.last,
				s->out[i].tick.gap.channel);
	/* 13 messages, 2 repeats dropped */
	CHECK_EQ(nrec, (int)NMSG - 2);
	CHECK_EQ(ng, 3);
	if (ng == 3) {
		CHECK_EQ(g[0]->reason, TOE_GAP_SEQUENCE);
		CHECK_EQ(g[0]->channel, 3);
		CHECK_EQ(g[0]->first, 4);
		CHECK_EQ(g[0]->last, 5);
		CHECK_EQ(g[1]->reason, TOE_GAP_SEQUENCE);
		CHECK_EQ(g[1]->channel, 9);
		CHECK_EQ(g[1]->first, 12);
		CHECK_EQ(g[1]->last, 14);
		CHECK_EQ(g[2]->reason, TOE_GAP_MSG_SEQ);
		CHECK_EQ(g[2]->first, 10);
		CHECK_EQ(g[2]->last, 11);
	}
	/* the logon: MsgSeqNum restarts (last 12), then channel 3 (last 7); channel 9 goes on */
	CHECK_EQ(nr, 2);
	if (nr == 2) {
		CHECK_EQ(r[0]->channel, TOE_CHANNEL_NONE);
		CHECK_EQ(r[0]->last, 12);
		CHECK_EQ(r[1]->channel, 3);
		CHECK_EQ(r[1]->last, 7);
	}
	CHECK_EQ(s->p.st.seq_records, NMSG);
	CHECK_EQ(s->p.st.seq_unkeyed, 0);
	CHECK_EQ(s->p.st.seq_dups, 2);
	CHECK_EQ(s->p.st.seq_gaps, 2);
	CHECK_EQ(s->p.st.seq_missing, 5);
	CHECK_EQ(s->p.st.seq_restarts, 1);
	CHECK_EQ(s->p.st.msg_jumps, 1);
	CHECK_EQ(s->p.st.msg_restarts, 1);
}

int main(void)
{
	char err[256];
	static struct side ref, fx;
	static struct fastx_dec xd;
	static uint8_t feed[16384];
	FILE *f = fopen(TPL_FILE, "r");
	if (!f)
		return test_skip("seq_fields", "run from the repository root (" TPL_FILE ")");
	fclose(f);
	if (fast_compile_file(TPL_FILE, &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	size_t len = build_feed(feed, sizeof feed);
	CHECK(len > 0);

	run(&ref, NULL, NULL, feed, len);
	check_side(&ref);

	struct fastx_prog *xp = fastx_prog_new(&prog);
	CHECK(xp != NULL);
	/* 7002's key is in its tick: decoded fast; 7001's is not: the reference,
	 * counted; at every level this CPU runs (the VBMI level looks its
	 * templates up in its own table, fastx_dec.vhome, which must leave 7001
	 * to the reference too) */
	uint32_t n7001 = 0, n7002 = 0;
	for (uint32_t k = 0; k < NMSG; k++)
		n7001 += feed_msgs[k].tid == 7001, n7002 += feed_msgs[k].tid == 7002;
	for (int isa = FASTX_ISA_SCALAR; isa <= fastx_isa_max(); isa++) {
		CHECK_EQ(fastx_isa_set(isa), 0);
		if (isa > FASTX_ISA_SCALAR)
			fastx_pext_set(1); /* where the CPU has BMI2: the copy the daemon runs */
		memset(&fx, 0, sizeof fx);
		run(&fx, &xd, xp, feed, len);
		check_side(&fx);
		/* the same entries either way */
		CHECK_EQ(fx.n, ref.n);
		for (int i = 0; i < ref.n && i < fx.n; i++) {
			CHECK_EQ(fx.out[i].kind, ref.out[i].kind);
			if (fx.out[i].kind != RX_OUT_RECORD || fx.out[i].tick_type > 0)
				CHECK(memcmp(&fx.out[i].tick, &ref.out[i].tick, sizeof fx.out[i].tick) == 0);
		}
		CHECK_EQ(xd.keys_ok, 0);
		CHECK_EQ(xd.fast, n7002);
		CHECK_EQ(xd.key_fallback, n7001);
		CHECK_EQ(fx.p.st.seq_key_fallback, n7001);
		if (isa == FASTX_ISA_VBMI)
			CHECK_EQ(xd.vec, n7002); /* 7002's records whole in vectors, 7001's not */
		printf("level %d: %llu records fast (%llu whole in vectors), %llu to the reference for their key\n", isa,
		       (unsigned long long)xd.fast, (unsigned long long)xd.vec, (unsigned long long)xd.key_fallback);
	}
	CHECK_EQ(ref.p.st.seq_key_fallback, 0);
	fastx_prog_free(xp);
	return test_done("seq_fields");
}
