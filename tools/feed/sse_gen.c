/* sse_gen.c - deterministic SSE Level-2 tick generator and feed encoder (host only).
 *
 * See sse_gen.h for the continuity rules. Randomness is splitmix64 on the
 * configured seed, so a seed names the same feed everywhere.
 */
#include "feed/sse_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast/fast_tick_dec.h"
#include "fast/host/step_frame.h"

static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0); the bias of the modulo is irrelevant here. */
static uint32_t rnd(uint64_t *s, uint32_t n)
{
	return (uint32_t)(next_u64(s) % n);
}

void sse_gen_default(struct sse_gen_cfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->seed = 1;
	cfg->nsecurities = 200;
	cfg->nchannels = 4;
	cfg->order_pct = 70;
	cfg->status_pct = 10;
	cfg->start_time = 9295800;
	cfg->biz_per_channel = 1; /* as SSE numbers it; 0 for the old global count */
}

/* ---- time in HHMMSScc ------------------------------------------------- */

static int64_t time_to_cc(int32_t t)
{
	int64_t hh = t / 1000000, mm = t / 10000 % 100, ss = t / 100 % 100, cc = t % 100;
	return ((hh * 60 + mm) * 60 + ss) * 100 + cc;
}

static int32_t cc_to_time(int64_t cc)
{
	int64_t ss = cc / 100, mm = ss / 60, hh = mm / 60;
	return (int32_t)(hh * 1000000 + mm % 60 * 10000 + ss % 60 * 100 + cc % 100);
}

static int valid_time(int32_t t)
{
	return t >= 0 && t < 24000000 && t / 10000 % 100 < 60 && t / 100 % 100 < 60;
}

static void advance_time(struct sse_gen *g)
{
	int64_t cc = time_to_cc(g->time) + rnd(&g->rng, 3);
	const int64_t lunch = time_to_cc(11300000), resume = time_to_cc(13000000);
	const int64_t close = time_to_cc(15000000);
	if (cc >= lunch && cc < resume)
		cc = resume;
	if (cc > close)
		cc = close;
	if (cc > time_to_cc(g->time))
		g->time = cc_to_time(cc);
}

/* ---- securities ------------------------------------------------------- */

static void make_ids(struct sse_gen *g)
{
	/* The first two are the well-known 600000 and 688981; the rest spread
	 * over the main-board and STAR-market ranges without repeats. */
	static const int prefix[5] = { 600, 601, 603, 605, 688 };
	int counter[5] = { 1, 1, 1, 1, 1 };
	for (uint32_t i = 0; i < g->cfg.nsecurities; i++) {
		int code;
		if (i == 0) {
			code = 600000;
		} else if (i == 1) {
			code = 688981;
		} else {
			int b = (int)((i - 2) % 5);
			do {
				code = prefix[b] * 1000 + counter[b] * 37 % 1000;
				counter[b]++;
			} while (code == 600000 || code == 688981);
		}
		snprintf(g->sec[i].id, sizeof g->sec[i].id, "%06d", code);
	}
}

int sse_gen_init(struct sse_gen *g, const struct sse_gen_cfg *cfg)
{
	if (cfg->nsecurities < 1 || cfg->nsecurities > SSE_GEN_MAX_SEC || cfg->nchannels < 1 ||
	    cfg->nchannels > SSE_GEN_MAX_CHAN || cfg->order_pct > 100 || cfg->status_pct > 100)
		return -1;
	int32_t start = cfg->start_time ? cfg->start_time : 9295800;
	if (!valid_time(start))
		return -1;
	memset(g, 0, sizeof *g);
	g->cfg = *cfg;
	g->rng = cfg->seed;
	g->time = start;
	make_ids(g);
	for (uint32_t i = 0; i < cfg->nsecurities; i++) {
		struct sse_sec *s = &g->sec[i];
		/* 2.00 .. 199.99 yuan on a 0.01 tick */
		s->price = (int32_t)(200 + rnd(&g->rng, 19800)) * 10;
		s->channel = (uint16_t)(i % cfg->nchannels + 1);
	}
	return 0;
}

/* ---- records ---------------------------------------------------------- */

#define BIT(f) (1u << (f))

/* Price a few ticks away from the last one, never below 0.01 yuan. */
static int32_t walk_price(struct sse_gen *g, struct sse_sec *s)
{
	int32_t p = s->price + ((int32_t)rnd(&g->rng, 5) - 2) * 10;
	if (p < 10)
		p = 10;
	return p;
}

/* 100 .. 5000 shares, mostly small lots; scaled by 1000. */
static int64_t lot_qty(struct sse_gen *g)
{
	uint32_t lots = 1 + rnd(&g->rng, 10);
	if (rnd(&g->rng, 8) == 0)
		lots += rnd(&g->rng, 40);
	return (int64_t)lots * 100 * 1000;
}

static void fill_trade(struct sse_gen *g, struct sse_sec *s, struct toe_trade *t)
{
	uint32_t ch = s->channel;
	t->hdr.type = TOE_REC_TRADE;
	t->trade_index = ++g->trade_index[ch - 1];
	t->trade_channel = (int32_t)ch;
	t->trade_time = g->time;
	s->price = walk_price(g, s);
	t->trade_price = s->price;
	t->trade_qty = lot_qty(g);
	/* yuan: price/1000 * qty/1000 ; at 5 decimals: price*qty/10 (qty is a
	 * multiple of 100000, so exact) */
	t->trade_money = (int64_t)t->trade_price * t->trade_qty / 10;
	/* name the standing orders on both sides, creating them if needed */
	if (!s->last_buy)
		s->last_buy = ++g->order_no;
	if (!s->last_sell)
		s->last_sell = ++g->order_no;
	t->trade_buy_no = s->last_buy;
	t->trade_sell_no = s->last_sell;
	if (g->time < 9300000)
		t->bs_flag[0] = 'N'; /* call auction */
	else
		t->bs_flag[0] = t->trade_buy_no > t->trade_sell_no ? 'B' : 'S';
	memcpy(t->security_id, s->id, 6);
	t->hdr.present = BIT(TOE_TF_SECURITY_ID) | BIT(TOE_TF_BIZ_INDEX) | BIT(TOE_TF_TRADE_INDEX) |
			 BIT(TOE_TF_TRADE_CHANNEL) | BIT(TOE_TF_TRADE_TIME) |
			 BIT(TOE_TF_TRADE_PRICE) | BIT(TOE_TF_TRADE_QTY) | BIT(TOE_TF_TRADE_MONEY) |
			 BIT(TOE_TF_TRADE_BUY_NO) | BIT(TOE_TF_TRADE_SELL_NO) |
			 BIT(TOE_TF_TRADE_BS_FLAG);
}

static void fill_order(struct sse_gen *g, struct sse_sec *s, struct toe_order *o)
{
	uint32_t ch = s->channel;
	o->hdr.type = TOE_REC_ORDER;
	o->order_index = ++g->order_index[ch - 1];
	o->order_channel = (int32_t)ch;
	o->order_time = g->time;
	if (s->last_order && rnd(&g->rng, 10) == 0) {
		/* cancel the security's latest order */
		o->order_type[0] = 'D';
		o->order_no = s->last_order;
		o->bs_flag[0] = (char)s->side;
		o->order_price = s->price;
		o->balance = lot_qty(g);
		if (s->last_buy == s->last_order)
			s->last_buy = 0;
		if (s->last_sell == s->last_order)
			s->last_sell = 0;
		s->last_order = 0;
	} else {
		o->order_type[0] = 'A';
		o->order_no = ++g->order_no;
		o->bs_flag[0] = rnd(&g->rng, 2) ? 'B' : 'S';
		o->order_price = walk_price(g, s);
		o->balance = lot_qty(g);
		if (o->bs_flag[0] == 'B')
			s->last_buy = o->order_no;
		else
			s->last_sell = o->order_no;
		s->last_order = o->order_no;
		s->side = (uint8_t)o->bs_flag[0];
	}
	memcpy(o->security_id, s->id, 6);
	o->hdr.present = BIT(TOE_TF_SECURITY_ID) | BIT(TOE_TF_BIZ_INDEX) | BIT(TOE_TF_ORDER_INDEX) |
			 BIT(TOE_TF_ORDER_CHANNEL) | BIT(TOE_TF_ORDER_TIME) | BIT(TOE_TF_ORDER_TYPE) |
			 BIT(TOE_TF_ORDER_NO) | BIT(TOE_TF_ORDER_PRICE) | BIT(TOE_TF_BALANCE) |
			 BIT(TOE_TF_ORDER_BS_FLAG);
}

int sse_gen_next(struct sse_gen *g, union toe_record *out)
{
	memset(out, 0, sizeof *out);
	advance_time(g);
	struct sse_sec *s = &g->sec[rnd(&g->rng, g->cfg.nsecurities)];
	int type = rnd(&g->rng, 100) < g->cfg.order_pct ? TOE_REC_ORDER : TOE_REC_TRADE;
	int with_status = rnd(&g->rng, 100) < g->cfg.status_pct;
	int32_t status = (int32_t)rnd(&g->rng, 4);
	int64_t biz = ++g->biz_index;
	if (g->cfg.biz_per_channel)
		biz = ++g->chan_biz[s->channel <= SSE_GEN_MAX_CHAN ? s->channel : 0];
	if (type == TOE_REC_TRADE) {
		fill_trade(g, s, &out->trade);
		out->trade.biz_index = biz;
		if (with_status) {
			out->trade.data_status = status;
			out->hdr.present |= BIT(TOE_TF_DATA_STATUS);
		}
	} else {
		fill_order(g, s, &out->order);
		out->order.biz_index = biz;
		if (with_status) {
			out->order.data_status = status;
			out->hdr.present |= BIT(TOE_TF_DATA_STATUS);
		}
	}
	g->count++;
	return type;
}

/* ---- tick record -> value layout -------------------------------------- */

int sse_tpl_for_kind(const struct fast_prog *p, int rec_type)
{
	for (uint32_t j = 0; j < p->ntpl && j < FAST_MAX_TEMPLATES; j++)
		if (p->tpl[j].kind == rec_type)
			return (int)j;
	return -1;
}

/* A tick field as a number (characters as their code) or a string.
 * Returns 1 number, 2 string, 0 when the record type has no such field. */
static int tick_field(const union toe_record *t, int f, int64_t *num, const char **str,
		      uint32_t *slen, char chr[2])
{
	const struct toe_trade *tr = &t->trade;
	const struct toe_order *o = &t->order;
	int trade = t->hdr.type == TOE_REC_TRADE, order = t->hdr.type == TOE_REC_ORDER;
	const char *id = NULL;
	const char *c = NULL;
	int is_char = 0;

	switch (f) {
	case TOE_TF_DATA_STATUS:
		if (!trade && !order)
			return 0;
		*num = trade ? tr->data_status : o->data_status;
		return 1;
	case TOE_TF_SECURITY_ID:
		if (!trade && !order)
			return 0;
		id = trade ? tr->security_id : o->security_id;
		break;
	case TOE_TF_BIZ_INDEX:
		if (!trade && !order)
			return 0;
		*num = trade ? tr->biz_index : o->biz_index;
		return 1;
	case TOE_TF_TRADE_INDEX: if (!trade) return 0; *num = tr->trade_index; return 1;
	case TOE_TF_TRADE_CHANNEL: if (!trade) return 0; *num = tr->trade_channel; return 1;
	case TOE_TF_TRADE_TIME: if (!trade) return 0; *num = tr->trade_time; return 1;
	case TOE_TF_TRADE_PRICE: if (!trade) return 0; *num = tr->trade_price; return 1;
	case TOE_TF_TRADE_QTY: if (!trade) return 0; *num = tr->trade_qty; return 1;
	case TOE_TF_TRADE_MONEY: if (!trade) return 0; *num = tr->trade_money; return 1;
	case TOE_TF_TRADE_BUY_NO: if (!trade) return 0; *num = tr->trade_buy_no; return 1;
	case TOE_TF_TRADE_SELL_NO: if (!trade) return 0; *num = tr->trade_sell_no; return 1;
	case TOE_TF_TRADE_BS_FLAG: if (!trade) return 0; c = tr->bs_flag; is_char = 1; break;
	case TOE_TF_ORDER_INDEX: if (!order) return 0; *num = o->order_index; return 1;
	case TOE_TF_ORDER_CHANNEL: if (!order) return 0; *num = o->order_channel; return 1;
	case TOE_TF_ORDER_TIME: if (!order) return 0; *num = o->order_time; return 1;
	case TOE_TF_ORDER_TYPE: if (!order) return 0; c = o->order_type; is_char = 1; break;
	case TOE_TF_ORDER_NO: if (!order) return 0; *num = o->order_no; return 1;
	case TOE_TF_ORDER_PRICE: if (!order) return 0; *num = o->order_price; return 1;
	case TOE_TF_BALANCE: if (!order) return 0; *num = o->balance; return 1;
	case TOE_TF_ORDER_BS_FLAG: if (!order) return 0; c = o->bs_flag; is_char = 1; break;
	default:
		return 0;
	}
	if (is_char) {
		/* a code field: NUL-padded, TOE_FLAG_LEN at most; as a number, its first character */
		uint32_t n = 0;
		while (n < TOE_FLAG_LEN && c[n])
			n++;
		(void)chr;
		*num = (unsigned char)c[0];
		*str = c;
		*slen = n;
		return 2;
	}
	uint32_t n = 0;
	while (n < TOE_SECURITY_ID_LEN && id[n])
		n++;
	*str = id;
	*slen = n;
	/* a numeric id as a number too */
	*num = 0;
	for (uint32_t j = 0; j < n; j++)
		*num = id[j] >= '0' && id[j] <= '9' ? *num * 10 + (id[j] - '0') : *num;
	return 2;
}

static int fits_kind(int kind, __int128 v)
{
	switch (kind) {
	case FAST_K_I32: return v >= INT32_MIN && v <= INT32_MAX;
	case FAST_K_U32: return v >= 0 && v <= UINT32_MAX;
	case FAST_K_U64: return v >= 0 && v <= (__int128)UINT64_MAX;
	default: return v >= INT64_MIN && v <= INT64_MAX;
	}
}

/* value * 10^(to - from), exactly, or -1. */
static int rescale(int64_t v, int from, int to, __int128 *out)
{
	__int128 r = v;
	for (int d = from; d < to; d++) {
		r *= 10;
		if (r > INT64_MAX || r < INT64_MIN)
			return -1;
	}
	for (int d = to; d < from; d++) {
		if (r % 10)
			return -1;
		r /= 10;
	}
	*out = r;
	return 0;
}

struct builder {
	const struct fast_prog *p;
	const union toe_record *t;
	struct fast_rec *r;
};

static struct fast_val *add_val(struct builder *b, uint32_t idx)
{
	if (b->r->nvals >= FAST_MAX_VALUES)
		return NULL;
	struct fast_val *v = &b->r->v[b->r->nvals++];
	memset(v, 0, sizeof *v);
	v->instr = (uint16_t)idx;
	return v;
}

static int add_str(struct builder *b, struct fast_val *v, const void *s, uint32_t len)
{
	if (len > FAST_MAX_STR || b->r->nstr + len > FAST_MAX_STRBUF)
		return -1;
	v->soff = b->r->nstr;
	v->slen = (uint16_t)len;
	if (len)
		memcpy(b->r->str + b->r->nstr, s, len);
	b->r->nstr = (uint16_t)(b->r->nstr + len);
	return 0;
}

static int build_range(struct builder *b, uint32_t first, uint32_t end, int depth);

static int build_field(struct builder *b, uint32_t idx, uint32_t *next, int depth)
{
	const struct fast_prog *p = b->p;
	const struct fast_instr *ins = &p->instr[idx];
	int optional = (ins->flags & FAST_F_OPTIONAL) != 0;
	struct fast_val *v = add_val(b, idx);
	if (!v)
		return -1;
	*next = idx + 1;

	if (ins->kind == FAST_K_SEQ || ins->kind == FAST_K_GROUP) {
		if (ins->aux <= idx || ins->aux >= p->ninstr || depth >= FAST_MAX_DEPTH)
			return -1;
		*next = (uint32_t)ins->aux + 1;
		if (optional)
			return 0; /* absent */
		v->present = 1;
		if (ins->kind == FAST_K_SEQ)
			return 0; /* no elements */
		return build_range(b, idx + 1, ins->aux, depth + 1);
	}
	if (ins->kind == FAST_K_DEC_EXP)
		*next = idx + 2; /* the mantissa instruction yields no value of its own */

	int is_string = ins->kind == FAST_K_ASCII || ins->kind == FAST_K_BYTES;
	int is_dec = ins->kind == FAST_K_DECIMAL || ins->kind == FAST_K_DEC_EXP;

	/* a decimal with a constant exponent: the mantissa follows it */
	int fixed_exp = 0, has_fixed_exp = 0;
	if (ins->kind == FAST_K_DEC_EXP && ins->op == FAST_OP_CONST && ins->init < p->nconst) {
		fixed_exp = p->consts[ins->init].exp;
		has_fixed_exp = 1;
	}

	if (ins->op == FAST_OP_CONST && !has_fixed_exp && ins->init != FAST_NO_INIT &&
	    ins->init < p->nconst) {
		const struct fast_const *k = &p->consts[ins->init];
		v->present = 1;
		v->i = k->i;
		v->exp = k->exp;
		if (is_string)
			return add_str(b, v, p->pool + k->off, k->len);
		return 0;
	}

	int64_t num = 0;
	const char *str = NULL;
	uint32_t slen = 0;
	char chr[2];
	int have = 0; /* 1: number, 2: string */
	if (ins->tick && ins->tick < TOE_TF_COUNT && (b->t->hdr.present & (1u << ins->tick)))
		have = tick_field(b->t, ins->tick, &num, &str, &slen, chr);
	if (!have) {
		if (optional)
			return 0;
		v->present = 1; /* mandatory without a source: 0 or "" */
		v->exp = fixed_exp;
		return 0;
	}
	v->present = 1;
	if (is_string) {
		if (have == 2)
			return add_str(b, v, str, slen);
		char buf[24];
		int n = snprintf(buf, sizeof buf, "%lld", (long long)num);
		return add_str(b, v, buf, (uint32_t)n);
	}
	int adec = have == 1 ? fast_tick_decimals(ins->tick) : 0;
	__int128 val;
	if (is_dec) {
		if (!has_fixed_exp) {
			v->i = num;
			v->exp = -adec;
			return 0;
		}
		if (rescale(num, adec, -fixed_exp, &val) || !fits_kind(FAST_K_I64, val))
			return -1;
		v->i = (int64_t)val;
		v->exp = fixed_exp;
		return 0;
	}
	int scale = (ins->flags & FAST_F_SCALED) ? ins->scale : 0;
	if (rescale(num, adec, scale, &val) || !fits_kind(ins->kind, val))
		return -1;
	v->i = (int64_t)(uint64_t)val;
	return 0;
}

static int build_range(struct builder *b, uint32_t first, uint32_t end, int depth)
{
	for (uint32_t idx = first; idx < end;) {
		uint32_t next;
		if (build_field(b, idx, &next, depth))
			return -1;
		idx = next;
	}
	return 0;
}

int sse_rec_from_tick(const struct fast_prog *p, const union toe_record *t, struct fast_rec *out)
{
	int tpl = sse_tpl_for_kind(p, t->hdr.type);
	if (tpl < 0)
		return -1;
	out->tid = p->tpl[tpl].id;
	out->tpl = (uint16_t)tpl;
	out->nvals = 0;
	out->nstr = 0;
	out->pad = 0;
	out->warn = 0;
	struct builder b = { p, t, out };
	return build_range(&b, p->tpl[tpl].first, p->tpl[tpl].end, 0);
}

/* ---- feeds ------------------------------------------------------------ */

static int32_t rec_time(const union toe_record *t)
{
	return t->hdr.type == TOE_REC_TRADE ? t->trade.trade_time : t->order.order_time;
}

int sse_encode_raw(const struct fast_prog *p, struct fast_enc *e, const union toe_record *rec,
		   uint8_t *out, size_t cap, struct fast_rec *rec_out)
{
	struct fast_rec *r = rec_out ? rec_out : malloc(sizeof *r);
	int n = -1;
	if (!r)
		return -1;
	if (sse_rec_from_tick(p, rec, r) == 0) {
		n = fast_enc_record(e, r, out, cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap);
		if (n < 0)
			n = -1;
	}
	if (!rec_out)
		free(r);
	return n;
}

int sse_encode_msg(const struct fast_prog *p, struct fast_enc *e, const union toe_record *recs,
		   uint32_t n, uint64_t seq, uint8_t *out, size_t cap, struct fast_rec *recs_out)
{
	if (n == 0)
		return -1;
	size_t dcap = (size_t)n * (FAST_MAX_STRBUF + FAST_MAX_VALUES * 12) + 64;
	uint8_t *data = malloc(dcap);
	struct fast_rec *tmp = malloc(sizeof *tmp);
	int ret = -1;
	if (!data || !tmp)
		goto out;
	fast_enc_reset(e);
	size_t len = 0;
	for (uint32_t j = 0; j < n; j++) {
		if (recs[j].hdr.type != recs[0].hdr.type)
			goto out;
		int w = sse_encode_raw(p, e, &recs[j], data + len, dcap - len,
				       recs_out ? &recs_out[j] : tmp);
		if (w < 0)
			goto out;
		len += (size_t)w;
	}
	int tpl = sse_tpl_for_kind(p, recs[0].hdr.type);
	char msgtype[16], stime[32];
	snprintf(msgtype, sizeof msgtype, "UA%u", p->tpl[tpl].id);
	int32_t t = rec_time(&recs[0]);
	snprintf(stime, sizeof stime, "20250102-%02d:%02d:%02d.%03d", t / 1000000 % 100,
		 t / 10000 % 100, t / 100 % 100, t % 100 * 10);
	struct step_hdr h = { msgtype, "SSE", "VDE", seq, stime };
	ret = step_frame(&h, data, (uint32_t)len, out, cap);
out:
	free(data);
	free(tmp);
	return ret;
}

int sse_stream_init(struct sse_stream *s, const struct fast_prog *p, const struct sse_gen_cfg *cfg,
		    uint32_t per_msg)
{
	if (per_msg < 1)
		return -1;
	memset(s, 0, sizeof *s);
	if (sse_gen_init(&s->gen, cfg))
		return -1;
	s->prog = p;
	s->per_msg = per_msg;
	s->seq = 1;
	s->rng = cfg->seed ^ 0x5354455046454544ull; /* "STEPFEED" */
	fast_enc_init(&s->enc, p);
	return 0;
}

int sse_stream_next_msg(struct sse_stream *s, uint32_t max_records, uint8_t *out, size_t cap,
			struct fast_rec *recs, union toe_record *ticks, uint32_t *nrecs)
{
	uint32_t want = 1 + rnd(&s->rng, s->per_msg);
	if (want > max_records)
		want = max_records;
	*nrecs = 0;
	if (want == 0)
		return -1;
	union toe_record *batch = ticks ? ticks : malloc(sizeof *batch * s->per_msg);
	if (!batch)
		return -1;
	uint32_t n = 0;
	while (n < want) {
		union toe_record t;
		if (s->have_pending) {
			t = s->pending;
			s->have_pending = 0;
		} else {
			sse_gen_next(&s->gen, &t);
		}
		if (n > 0 && t.hdr.type != batch[0].hdr.type) {
			s->pending = t;
			s->have_pending = 1;
			break;
		}
		batch[n++] = t;
	}
	int len = sse_encode_msg(s->prog, &s->enc, batch, n, s->seq, out, cap, recs);
	if (len >= 0) {
		s->seq++;
		*nrecs = n;
	}
	if (!ticks)
		free(batch);
	return len;
}
