/* fuzz_gen_fast.h - template programs and records generated from fuzz input (fuzz_fastx_diff's program 3).
 *
 * gen_program turns input bytes into FAST 1.1 template XML (1-3 templates
 * of tick-mapped and plain fields, every type, presence and operator,
 * key=, decimalPlaces=, rarely a sequence or group); gen_data turns the
 * bytes after it into records of the compiled program, encoded with
 * fast_enc_record (its own dictionary, reset where the decoders reset
 * theirs) as raw records, STEP messages (step_frame) or datagrams
 * (gen_cuts: each message's length). The templates are what nobody here
 * wrote: the fast path must decode them as the reference does. Counters
 * for FUZZ_VERBOSE (gen_stats in fuzz_fastx_diff.c). Included once, by
 * fuzz_fastx_diff.c, after fuzz_common.h.
 */
#ifndef FUZZ_GEN_FAST_H
#define FUZZ_GEN_FAST_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "fast/fast_prog.h"
#include "fast/host/fast_encode.h"
#include "fast/host/step_frame.h"

/* the generated mode's counters (FUZZ_VERBOSE) */
static int gen_verbose;
static uint64_t g_inputs, g_compiled, g_refused, g_tpl_spec, g_tpl_fb, g_keyed, g_enc, g_enc_fail, g_fast, g_fb,
	g_dec_ok, g_dec_err;

/* A cursor over the input; past its end every byte reads as 0. */
struct rd {
	const uint8_t *p;
	size_t n, at;
};

static uint8_t rd8(struct rd *r)
{
	return r->at < r->n ? r->p[r->at++] : 0;
}

#define GEN_XML_MAX 32768

struct xbuf {
	char s[GEN_XML_MAX];
	size_t n;
	int over; /* did not fit: the input is dropped */
};

__attribute__((format(printf, 2, 3))) static void xput(struct xbuf *b, const char *fmt, ...)
{
	va_list ap;
	int l;
	if (b->over)
		return;
	va_start(ap, fmt);
	l = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
	va_end(ap);
	if (l < 0 || (size_t)l >= sizeof b->s - b->n)
		b->over = 1;
	else
		b->n += (size_t)l;
}

/* The names fast_compile.c's tick_of maps (rec: 0 either record type, 1
 * trade, 2 order; str: must be an ascii string). OrderNo, OrderNO's other
 * spelling, is left out: both in one template would map one tick twice. */
static const struct {
	const char *name;
	uint8_t str, rec;
} gen_ticks[] = {
	{"DataStatus", 0, 0},   {"SecurityID", 1, 0},   {"BizIndex", 0, 0},     {"TradeIndex", 0, 1},
	{"TradeChannel", 0, 1}, {"TradeTime", 0, 1},    {"TradePrice", 0, 1},   {"TradeQty", 0, 1},
	{"TradeMoney", 0, 1},   {"TradeBuyNo", 0, 1},   {"TradeSellNo", 0, 1},  {"TradeBSFlag", 1, 1},
	{"OrderIndex", 0, 2},   {"OrderChannel", 0, 2}, {"OrderTime", 0, 2},    {"OrderType", 1, 2},
	{"OrderNO", 0, 2},      {"OrderPrice", 0, 2},   {"Balance", 0, 2},      {"OrderBSFlag", 1, 2},
};
#define GEN_NTICKS (sizeof gen_ticks / sizeof gen_ticks[0])

/* Field types: integers, ascii and unicode strings, byte vectors, decimals
 * with one operator or with individual exponent/mantissa operators. */
enum { GT_I32, GT_U32, GT_I64, GT_U64, GT_ASCII, GT_UNI, GT_BYTES, GT_DEC, GT_DECI };
static const char *const gen_el[] = {"int32",  "uInt32",     "int64",   "uInt64", "string",
				     "string", "byteVector", "decimal", "decimal"};
/* dictionary classes of fast_compile.c: fields sharing an entry must agree */
static const char gen_cls[] = {'i', 'i', 'i', 'i', 'a', 'b', 'b', 'd', 'i'};

/* Initial values per type, edges included (8 each: index 0..7). */
static const char *const gen_init[][8] = {
	[GT_I32] = {"0", "1", "-1", "7", "127", "-64", "2147483647", "-2147483648"},
	[GT_U32] = {"0", "1", "2", "127", "128", "16383", "2147483648", "4294967295"},
	[GT_I64] = {"0", "-1", "100", "-8193", "2147483648", "-4294967296", "9223372036854775807",
		    "-9223372036854775808"},
	[GT_U64] = {"0", "1", "5", "16384", "4294967296", "9223372036854775808", "18446744073709551614",
		    "18446744073709551615"},
	[GT_ASCII] = {"", "a", "abc", "B", "600000", "xyzw", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0"},
	[GT_UNI] = {"", "a", "abc", "B", "600000", "xyzw", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0"},
	[GT_BYTES] = {"", "00", "0a0b", "ff", "414243", "80", "0102030405", "7f"},
	[GT_DEC] = {"0", "1.5", "-2.25", "100", "1e3", "0.001", "-9223372036854775808", "9e-63"},
};
static const char *const gen_exp_init[8] = {"0", "-2", "2", "-63", "63", "-1", "1", "5"};

static const uint8_t gen_ops[8] = {FAST_OP_NONE,  FAST_OP_CONST, FAST_OP_DEFAULT, FAST_OP_COPY,
				   FAST_OP_INCR,  FAST_OP_DELTA, FAST_OP_TAIL,    FAST_OP_COPY};
static const char *const gen_opname[] = {"", "constant", "copy", "default", "increment", "delta", "tail"};

struct gen {
	struct rd *r;
	struct xbuf *x;
	uint32_t used;  /* tick names the template has (bit per gen_ticks index) */
	int nested;     /* the template has its sequence or group */
	int plain;      /* keep to what the fast path specialises */
	/* default dictionary keys (the field's name) met so far, and their
	 * class: a name met again with another class gets a key of its own,
	 * which the compiler would otherwise refuse */
	char kname[256][24];
	char kcls[256];
	int nk;
};

/* Whether a field named `name` of class `cls` may keep its name as key. */
static int gen_key_ok(struct gen *g, const char *name, char cls)
{
	for (int i = 0; i < g->nk; i++)
		if (!strcmp(g->kname[i], name))
			return g->kcls[i] == cls;
	if (g->nk < 256) {
		snprintf(g->kname[g->nk], sizeof g->kname[0], "%s", name);
		g->kcls[g->nk++] = cls;
	}
	return 1;
}

/* A tick name for a template of record class rec (0 none: only the shared
 * ones), starting the search at `pick`; -1 when all are taken. */
static int gen_pick_tick(struct gen *g, int rec, uint32_t pick)
{
	for (uint32_t k = 0; k < GEN_NTICKS; k++) {
		uint32_t i = (pick + k) % GEN_NTICKS;
		if ((gen_ticks[i].rec == 0 || gen_ticks[i].rec == rec) && !(g->used & (1u << i))) {
			g->used |= 1u << i;
			return (int)i;
		}
	}
	return -1;
}

/* The operator element of a field (or of an exponent / mantissa). */
static void gen_op(struct gen *g, const char *name, int ty, int op, int optional, int want_val, uint32_t vi,
		   int keyed, uint32_t kn)
{
	char cls = gen_cls[ty];
	if (op == FAST_OP_NONE)
		return;
	xput(g->x, "<%s", gen_opname[op]);
	if (op == FAST_OP_CONST || (op == FAST_OP_DEFAULT && !optional) || (want_val && op != FAST_OP_NONE))
		xput(g->x, " value=\"%s\"", ty == GT_DECI ? gen_exp_init[vi & 7] : gen_init[ty][vi & 7]);
	/* the compiler gives default a dictionary entry too (unused) */
	if (op != FAST_OP_CONST && name) {
		if (keyed)
			xput(g->x, " key=\"K%c%u\"", cls, kn & 1);
		else if (!gen_key_ok(g, name, cls))
			xput(g->x, " key=\"%s.%c\"", name, cls);
	}
	xput(g->x, "/>");
}

static void gen_field(struct gen *g, int depth, int rec, int j);

/* A sequence (with its length's operator) or a group of 1-3 fields. */
static void gen_nested(struct gen *g, uint8_t f0, uint8_t f1, uint8_t f2, int j)
{
	int optional = f2 & 1, n = 1 + f1 % 3;
	g->nested = 1;
	if (f0 & 0x20) {
		xput(g->x, "  <group name=\"G%d\"%s>\n", j, optional ? " presence=\"optional\"" : "");
	} else {
		static const uint8_t lops[8] = {FAST_OP_NONE, FAST_OP_CONST, FAST_OP_DEFAULT, FAST_OP_COPY,
						FAST_OP_INCR, FAST_OP_DELTA, FAST_OP_NONE,    FAST_OP_COPY};
		static const char *const lens[4] = {"0", "1", "2", "3"};
		int op = lops[(f2 >> 1) & 7];
		xput(g->x, "  <sequence name=\"S%d\"%s><length name=\"L%d\">", j,
		     optional ? " presence=\"optional\"" : "", j);
		if (op != FAST_OP_NONE) {
			xput(g->x, "<%s", gen_opname[op]);
			if (op == FAST_OP_CONST || (op == FAST_OP_DEFAULT && !optional) || (f2 & 0x10))
				xput(g->x, " value=\"%s\"", lens[(f1 >> 4) & 3]);
			xput(g->x, "/>");
		}
		xput(g->x, "</length>\n");
	}
	for (int k = 0; k < n; k++)
		gen_field(g, 1, 0, k);
	xput(g->x, (f0 & 0x20) ? "  </group>\n" : "  </sequence>\n");
}

/* One field from 4 bytes: f0 name (or a nested sequence/group), f1 type, f2
 * presence (bit 0), operator (bits 1-3), initial value (bit 4), key= (bits
 * 5-6), decimalPlaces= (bit 7), f3 the values of those. */
static void gen_field(struct gen *g, int depth, int rec, int j)
{
	static const uint8_t plain_t[8] = {GT_I32, GT_U32, GT_I64, GT_U64, GT_ASCII, GT_ASCII, GT_I32, GT_U64};
	static const uint8_t any_t[16] = {GT_I32,   GT_I32,   GT_U32,   GT_U32, GT_I64, GT_I64, GT_U64,   GT_U64,
					  GT_ASCII, GT_ASCII, GT_ASCII, GT_DEC, GT_DEC, GT_DECI, GT_BYTES, GT_UNI};
	uint8_t f0 = rd8(g->r), f1 = rd8(g->r), f2 = rd8(g->r), f3 = rd8(g->r);
	char name[24];
	int tick = -1, ty, optional = f2 & 1, op = gen_ops[(f2 >> 1) & 7], scale = -1;

	if (depth == 0 && !g->plain && !g->nested && (f0 & 0x1f) == 0x1f) {
		gen_nested(g, f0, f1, f2, j);
		return;
	}
	if (depth == 0 && (rec ? (f0 & 3) != 0 : (f0 & 3) == 3))
		tick = gen_pick_tick(g, rec, f0 >> 2);
	if (tick >= 0) {
		snprintf(name, sizeof name, "%s", gen_ticks[tick].name);
		if (gen_ticks[tick].str)
			ty = GT_ASCII;
		else
			ty = g->plain ? (int)(f1 & 3) : (int)(f1 % 6 < 4 ? f1 % 6 : f1 % 6 == 4 ? GT_DEC : GT_DECI);
		if ((f2 & 0x80) && ty <= GT_U64)
			scale = f3 % 12;
	} else {
		snprintf(name, sizeof name, depth ? "N%d" : "F%d", j);
		ty = g->plain ? plain_t[f1 & 7] : any_t[f1 & 15];
	}
	if (op == FAST_OP_INCR && ty > GT_U64 && ty != GT_DECI)
		op = FAST_OP_COPY;
	if (op == FAST_OP_TAIL && ty != GT_ASCII && ty != GT_UNI && ty != GT_BYTES)
		op = FAST_OP_DELTA;
	if (g->plain && ty == GT_ASCII && (op == FAST_OP_DELTA || op == FAST_OP_TAIL))
		op = FAST_OP_COPY;
	xput(g->x, "  %s<%s name=\"%s\"%s%s", depth ? " " : "", gen_el[ty], name,
	     ty == GT_UNI ? " charset=\"unicode\"" : "", optional ? " presence=\"optional\"" : "");
	if (scale >= 0)
		xput(g->x, " decimalPlaces=\"%d\"", scale);
	xput(g->x, ">");
	if (ty == GT_DECI) {
		/* exponent and mantissa each with an operator (f3 the mantissa's) */
		int mop = gen_ops[(f3 >> 1) & 7];
		char key[40];
		if (mop == FAST_OP_TAIL)
			mop = FAST_OP_DELTA;
		xput(g->x, "<exponent>");
		snprintf(key, sizeof key, "%s/exponent", name);
		gen_op(g, key, GT_DECI, op == FAST_OP_TAIL ? FAST_OP_DELTA : op, optional, f2 & 0x10, f3 >> 5, 0, 0);
		xput(g->x, "</exponent><mantissa>");
		snprintf(key, sizeof key, "%s/mantissa", name);
		gen_op(g, key, GT_I64, mop, 0, f3 & 1, f3 >> 4, 0, 0);
		xput(g->x, "</mantissa>");
	} else {
		gen_op(g, name, ty, op, optional, f2 & 0x10, f3 >> 5, (f2 & 0x60) == 0x60, f3);
	}
	xput(g->x, "</%s>\n", gen_el[ty]);
}

/* The templates' XML from the input: first a byte with the count (1-3),
 * then per template a class/size byte (bits 0-1 class: 1 trade, 2 order,
 * else none; bits 2-5 fields: 1-16, or 66 (more than 63 presence bits) for
 * 15 with the id byte's bit 2; bits 6-7 both set: dictionary="template")
 * and an id byte (0xf0.. one of the large ids, else index + 1; bits 0-1 not
 * both clear: plain, the fast path's field types and operators only), then
 * its fields. */
static void gen_program(struct rd *r, struct xbuf *x)
{
	static const uint32_t big[8] = {127, 128, 16383, 16384, 2097152, 268435455, 4294967295u, 1000};
	static struct gen g;
	uint32_t ids[3];
	int ntpl = 1 + rd8(r) % 3;

	memset(&g, 0, sizeof g);
	g.r = r;
	g.x = x;
	xput(x, "<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n");
	for (int t = 0; t < ntpl; t++) {
		uint8_t tb = rd8(r), ib = rd8(r);
		int rec = (tb & 3) == 3 ? 0 : tb & 3, v = (tb >> 2) & 15, nf = v == 15 && (ib & 4) ? 66 : 1 + v;
		uint32_t id = ib >= 0xf0 ? big[ib & 7] : (uint32_t)t + 1;
		for (int u = 0; u < t; u++)
			if (ids[u] == id)
				id = (uint32_t)t + 1;
		ids[t] = id;
		g.used = 0;
		g.nested = 0;
		g.plain = (ib & 3) != 0;
		xput(x, " <template name=\"T%d\" id=\"%u\"%s>\n", t, id,
		     (tb & 0xc0) == 0xc0 ? " dictionary=\"template\"" : "");
		for (int j = 0; j < nf; j++)
			gen_field(&g, 0, rec, j);
		xput(x, " </template>\n");
	}
	xput(x, "</templates>\n");
}

/* Per instruction, the last value generated for it: "the same again" and
 * "plus one" make copy, increment and delta fields compress. */
static struct gprev {
	int64_t i;
	int32_t exp;
	uint8_t have, absent, len;
	uint8_t s[FAST_MAX_STR];
} gprev[FAST_MAX_INSTR];

static const int64_t gen_edge[32] = {
	0,          -1,          1,          INT32_MAX,  INT32_MIN, (int64_t)UINT32_MAX, INT64_MAX, INT64_MIN,
	-2,         63,          64,         -64,        -65,       8191,                8192,      -8192,
	-8193,      1ll << 31,   -(1ll << 31) - 1, 1ll << 32, 127,  128,                 1ll << 62, -(1ll << 62),
	1ll << 56,  (1ll << 56) - 1, 1ll << 49, -(1ll << 49), 100000, -100000,          16383,     16384,
};

static int64_t gen_int(struct rd *r, uint8_t b, const struct gprev *pv)
{
	uint32_t q = b >> 3;
	int64_t base = pv->have ? pv->i : 0;
	switch (b & 7) {
	case 0: return base;
	case 1: return (int64_t)((uint64_t)base + 1u);
	case 2: return (int64_t)((uint64_t)base + (uint64_t)(int64_t)(int8_t)rd8(r));
	case 3: return q;
	case 4: return -(int64_t)q - 1;
	case 5: return gen_edge[q];
	case 6: return (int16_t)(rd8(r) | rd8(r) << 8);
	default: {
		uint64_t v = 0;
		for (int k = 0; k < 8; k++)
			v = v << 8 | rd8(r);
		return (int64_t)v;
	}
	}
}

/* The value as the field's type holds it (uInt64 as its bit pattern). */
static int64_t gen_fit(int kind, int64_t v)
{
	switch (kind) {
	case FAST_K_I32: return (int32_t)v;
	case FAST_K_U32: return (uint32_t)v;
	default: return v;
	}
}

static struct fast_enc genc; /* the encoder (gen_record) */
/* integer values given earlier in the record being generated, per slot
 * (stamp == gstamp): a later field on the same key has them as its base */
static int64_t gsh_i[FAST_MAX_DICT];
static uint32_t gsh_stamp[FAST_MAX_DICT], gstamp;

static void gen_shadow(const struct fast_instr *in, int64_t v)
{
	if (in->op == FAST_OP_COPY || in->op == FAST_OP_INCR || in->op == FAST_OP_DELTA) {
		gsh_i[in->dict % FAST_MAX_DICT] = v;
		gsh_stamp[in->dict % FAST_MAX_DICT] = gstamp;
	}
}

/* A delta field's value whose difference from its base (the encoder's
 * dictionary entry, else the initial value, else 0) does not fit an int64
 * has no encoding (fast_encode.c int_delta): keep it near the base
 * instead, so that such records are not all refused. */
static int64_t gen_near(const struct fast_prog *p, const struct fast_instr *in, int kind, int64_t v)
{
	const struct fast_dict_entry *e = &genc.dict[in->dict % FAST_MAX_DICT];
	int64_t base = 0;
	__int128 d;
	if (gsh_stamp[in->dict % FAST_MAX_DICT] == gstamp)
		base = gsh_i[in->dict % FAST_MAX_DICT];
	else if (e->gen == genc.gen && e->state == FAST_DICT_ASSIGNED)
		base = e->i;
	else if ((in->flags & FAST_F_HAS_INIT) && in->init < p->nconst)
		base = p->consts[in->init].i;
	d = kind == FAST_K_U64 ? (__int128)(uint64_t)v - (__int128)(uint64_t)base : (__int128)v - (__int128)base;
	if (d >= INT64_MIN && d <= INT64_MAX)
		return v;
	d = (int16_t)v;
	/* a uInt64 goes the way that stays in 0 .. UINT64_MAX */
	if (kind == FAST_K_U64 && (d < 0 ? (uint64_t)base < (uint64_t)-d : (uint64_t)base > UINT64_MAX - (uint64_t)d))
		d = -d;
	return (int64_t)((uint64_t)base + (uint64_t)(int64_t)d);
}

static int32_t gen_exp(struct rd *r, const struct gprev *pv)
{
	static const int8_t edge[8] = {-63, 63, 0, -1, 1, 18, -18, 62};
	uint8_t e = rd8(r);
	switch (e & 3) {
	case 0: return pv->have ? pv->exp : 0;
	case 1: return (int32_t)((e >> 2) % 9) - 4;
	case 2: return edge[(e >> 2) & 7];
	default: return (int32_t)((e >> 2) % 127) - 63;
	}
}

/* A string of 0..FAST_MAX_STR bytes into s (ascii: 7-bit, no NUL first
 * unless it is the whole string, which the encoder could not send). */
static uint32_t gen_str(struct rd *r, uint8_t b, const struct gprev *pv, int ascii, uint8_t *s)
{
	uint32_t q = b >> 3, n = pv->have ? pv->len : 0, k, m;
	if (pv->have)
		memcpy(s, pv->s, n);
	switch (b & 7) {
	case 0: break;
	case 1: /* append */
		for (k = 0; k <= q % 4 && n < FAST_MAX_STR; k++)
			s[n++] = (uint8_t)(0x20 + rd8(r) % 95);
		break;
	case 2: /* the tail changed, same length */
		for (k = 0; k <= q % 4 && k < n; k++)
			s[n - 1 - k] = (uint8_t)(0x20 + rd8(r) % 95);
		break;
	case 3: /* the front dropped, or a prefix added */
		m = q % 3 + 1;
		if (q & 8) {
			m = m < n ? m : n;
			memmove(s, s + m, n - m);
			n -= m;
		} else {
			if (n + m > FAST_MAX_STR)
				n = FAST_MAX_STR - m;
			memmove(s + m, s, n);
			for (k = 0; k < m; k++)
				s[k] = (uint8_t)(0x20 + rd8(r) % 95);
			n += m;
		}
		break;
	case 4: n = 0; break;
	case 5:
	case 6:
		n = (b & 7) == 5 ? q : 32 + q > FAST_MAX_STR ? FAST_MAX_STR : 32 + q;
		if ((b & 7) == 6 && q == 31)
			n = FAST_MAX_STR;
		for (k = 0; k < n; k++)
			s[k] = (uint8_t)(0x20 + rd8(r) % 95);
		break;
	default: /* raw bytes: any 7-bit value in an ascii string */
		n = q % 9;
		for (k = 0; k < n; k++)
			s[k] = ascii ? rd8(r) & 0x7f : rd8(r);
		if (ascii && n > 1 && s[0] == 0)
			s[0] = 'A';
		break;
	}
	return n;
}

struct genrec {
	struct rd *r;
	const struct fast_prog *p;
	struct fast_rec *rec;
	int steady; /* every field its previous value (plus one for increment) where it has one */
};

static int gen_const(const struct fast_prog *p, const struct fast_instr *in, const struct fast_const **k)
{
	*k = (in->flags & FAST_F_HAS_INIT) && in->init < p->nconst ? &p->consts[in->init] : NULL;
	return *k != NULL;
}

/* Values for the instructions [first, end) appended to c->rec in the
 * layout fast_enc_record takes. -1 when the record is full. A constant
 * takes its value; a default its initial value now and then, so that its
 * bit is clear. */
static int gen_vals(struct genrec *c, uint32_t first, uint32_t end, int depth)
{
	const struct fast_prog *p = c->p;
	struct fast_rec *rc = c->rec;
	for (uint32_t i = first; i < end && i < p->ninstr;) {
		const struct fast_instr *in = &p->instr[i];
		const struct fast_const *k;
		struct gprev *pv = &gprev[i];
		int opt = (in->flags & FAST_F_OPTIONAL) != 0, hk = gen_const(p, in, &k);
		int steady = c->steady && pv->have, incr = in->op == FAST_OP_INCR;
		uint8_t b = steady ? 0 : rd8(c->r);
		int init = hk && (in->op == FAST_OP_CONST || (in->op == FAST_OP_DEFAULT && !(b & 0x18)));
		struct fast_val *v;
		if (rc->nvals >= FAST_MAX_VALUES)
			return -1;
		v = &rc->v[rc->nvals++];
		memset(v, 0, sizeof *v);
		v->instr = (uint16_t)i;
		v->present = !opt || (steady ? !pv->absent : (b & 0xf8) < 0xe0);
		switch (in->kind) {
		case FAST_K_SEQ:
			v->i = init ? k->i : steady ? pv->i + incr : (b >> 3) & 3;
			if (!v->present || v->i < 0 || v->i > 4 || depth + 1 >= FAST_MAX_DEPTH)
				v->i = 0;
			pv->have = 1;
			pv->i = v->i;
			pv->absent = !v->present;
			for (int64_t e = 0; e < v->i; e++)
				if (gen_vals(c, i + 1, in->aux, depth + 1))
					return -1;
			i = (uint32_t)in->aux + 1;
			continue;
		case FAST_K_GROUP:
			pv->have = 1;
			pv->absent = !v->present;
			if (v->present && gen_vals(c, i + 1, in->aux, depth + 1))
				return -1;
			i = (uint32_t)in->aux + 1;
			continue;
		case FAST_K_DECIMAL:
			if (init) {
				v->i = k->i;
				v->exp = k->exp;
			} else if (steady) {
				v->i = pv->i;
				v->exp = pv->exp;
			} else {
				v->i = gen_int(c->r, b, pv);
				v->exp = gen_exp(c->r, pv);
			}
			if (in->op == FAST_OP_DELTA)
				v->i = gen_near(p, in, FAST_K_I64, v->i);
			i++;
			break;
		case FAST_K_DEC_EXP: {
			/* one value: the exponent's operator, then the mantissa's (instruction i + 1) */
			const struct fast_instr *mi = &p->instr[i + 1 < p->ninstr ? i + 1 : i];
			const struct fast_const *mk;
			int mhk = gen_const(p, mi, &mk);
			if (init)
				v->exp = k->exp;
			else if (steady)
				v->exp = pv->exp + incr;
			else
				v->exp = gen_exp(c->r, pv);
			if (mhk && (mi->op == FAST_OP_CONST || (mi->op == FAST_OP_DEFAULT && !(b & 0x60))))
				v->i = mk->i;
			else if (steady)
				v->i = (int64_t)((uint64_t)pv->i + (mi->op == FAST_OP_INCR));
			else
				v->i = gen_int(c->r, b, pv);
			if (mi->op == FAST_OP_DELTA)
				v->i = gen_near(p, mi, FAST_K_I64, v->i);
			if (v->present) {
				gen_shadow(in, v->exp);
				gen_shadow(mi, v->i);
			}
			if (v->exp < -63 || v->exp > 63)
				v->exp = 0;
			i += 2;
			break;
		}
		case FAST_K_ASCII:
		case FAST_K_BYTES: {
			uint8_t s[FAST_MAX_STR];
			uint32_t n;
			if (init) {
				n = k->len <= FAST_MAX_STR ? k->len : FAST_MAX_STR;
				memcpy(s, p->pool + k->off, n);
			} else {
				const struct fast_dict_entry *e = &genc.dict[in->dict % FAST_MAX_DICT];
				n = gen_str(c->r, b, pv, in->kind == FAST_K_ASCII, s);
				/* tail sends only values at least as long as the base: keep
				 * the base's head in front of a shorter one */
				if (in->op == FAST_OP_TAIL && e->gen == genc.gen && e->state == FAST_DICT_ASSIGNED &&
				    n < e->len) {
					memmove(s + e->len - n, s, n);
					memcpy(s, e->s, e->len - n);
					n = e->len;
				}
			}
			if (v->present) {
				if (rc->nstr + n > FAST_MAX_STRBUF)
					return -1;
				v->soff = rc->nstr;
				v->slen = (uint16_t)n;
				memcpy(rc->str + rc->nstr, s, n);
				rc->nstr = (uint16_t)(rc->nstr + n);
				memcpy(pv->s, s, n);
				pv->len = (uint8_t)n;
			}
			i++;
			break;
		}
		default: /* the integers */
			if (init)
				v->i = k->i;
			else if (steady)
				v->i = gen_fit(in->kind, (int64_t)((uint64_t)pv->i + incr));
			else
				v->i = gen_fit(in->kind, gen_int(c->r, b, pv));
			if (in->op == FAST_OP_DELTA)
				v->i = gen_fit(in->kind, gen_near(p, in, in->kind, v->i));
			if (v->present)
				gen_shadow(in, v->i);
			i++;
			break;
		}
		if (v->present) {
			pv->have = 1;
			pv->i = v->i;
			pv->exp = v->exp;
		}
		pv->absent = !v->present;
	}
	return 0;
}

#define GEN_MAX_RECS 48 /* records per input */
#define GEN_MAX_MSGS 16 /* STEP messages / datagrams per input */
#define GEN_MSG_MAX 8192 /* FAST bytes of one message */

static struct fast_dict_entry genc_save[FAST_MAX_DICT];
static struct fast_rec genv;
static uint8_t gen_out[1 << 17];
static uint32_t gen_cuts[GEN_MAX_MSGS];

/* One record from its control byte rc (bits 0-5 the template, bit 6 steady)
 * and the values' bytes, encoded at out; its size, or 0 when the encoder
 * refuses it (its dictionary then put back as it was). reset: the
 * dictionary is reset before it, as the decoders will. */
static uint32_t gen_record(struct rd *r, const struct fast_prog *p, uint8_t rc, int reset, uint8_t *out,
			   uint32_t cap)
{
	uint32_t t = (rc & 0x3fu) % p->ntpl, gen = genc.gen;
	struct genrec c = {r, p, &genv, (rc & 0x40) != 0};
	int n;
	memset(&genv, 0, offsetof(struct fast_rec, v));
	gstamp++;
	genv.tid = p->tpl[t].id;
	genv.tpl = (uint16_t)t;
	memcpy(genc_save, genc.dict, p->ndict * sizeof genc.dict[0]);
	if (reset)
		fast_enc_reset(&genc);
	n = gen_vals(&c, p->tpl[t].first, p->tpl[t].end, 0) ? -FAST_E_TOO_MANY_VALUES
							     : fast_enc_record(&genc, &genv, out, cap);
	if (n <= 0) {
		genc.gen = gen;
		memcpy(genc.dict, genc_save, p->ndict * sizeof genc.dict[0]);
		g_enc_fail++;
		if (gen_verbose > 1)
			fprintf(stderr, "fuzz_fastx_diff: encoder refused a record: error %d\n", -n);
		/* FUZZ_VERBOSE=4: the values, to see which one the encoder refused */
		for (uint32_t j = 0; gen_verbose > 3 && j < genv.nvals; j++) {
			const struct fast_instr *in = &p->instr[genv.v[j].instr];
			fprintf(stderr, "  value %u: instruction %u kind %u op %u slot %u present %u %lld/%d\n", j,
				genv.v[j].instr, in->kind, in->op, in->dict, genv.v[j].present, (long long)genv.v[j].i,
				genv.v[j].exp);
		}
		return 0;
	}
	g_enc++;
	return (uint32_t)n;
}

/* The records into gen_out: framing -1 raw (back to back, the encoder's
 * dictionary reset where run_raw's pattern resets the decoders'), else
 * messages of 1-8 records (a record's control byte bit 7 ends its message),
 * each from a reset dictionary: STEP messages, or datagrams whose sizes go
 * to gen_cuts. Returns the bytes written. */
static uint32_t gen_data(struct rd *r, const struct fast_prog *p, int framing, const uint8_t *pat, uint32_t *ncuts)
{
	static uint8_t msg[GEN_MSG_MAX];
	uint32_t n = 0, nrec = 0, nmsg = 0;
	fast_enc_init(&genc, p);
	memset(gprev, 0, sizeof gprev);
	*ncuts = 0;
	if (framing < 0) {
		while (r->at < r->n && nrec < GEN_MAX_RECS) {
			uint8_t rc = rd8(r);
			uint32_t l = gen_record(r, p, rc, pat[nrec % 4] & 0x80, gen_out + n, sizeof gen_out - n);
			n += l;
			nrec += l != 0;
		}
		return n;
	}
	while (r->at < r->n && nmsg < GEN_MAX_MSGS && nrec < GEN_MAX_RECS) {
		uint32_t mlen = 0;
		fast_enc_reset(&genc);
		for (uint32_t k = 0; k < 8 && r->at < r->n && nrec < GEN_MAX_RECS; k++) {
			uint8_t rc = rd8(r);
			uint32_t l = gen_record(r, p, rc, 0, msg + mlen, sizeof msg - mlen);
			mlen += l;
			nrec += l != 0;
			if (rc & 0x80)
				break;
		}
		if (!mlen)
			continue;
		if (framing == FAST_FRAMING_STEP) {
			struct step_hdr h = {"UA3201", "SSE", "TOE", nmsg + 1, "20260105-09:30:00.000"};
			int l = step_frame(&h, msg, mlen, gen_out + n, sizeof gen_out - n);
			if (l < 0)
				break;
			n += (uint32_t)l;
		} else {
			memcpy(gen_out + n, msg, mlen);
			gen_cuts[nmsg] = mlen;
			n += mlen;
		}
		nmsg++;
	}
	*ncuts = nmsg;
	return n;
}

#endif
