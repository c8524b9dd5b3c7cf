/* fast_encode.c - FAST 1.1 encoder for a compiled template program (host only).
 *
 * Written from the specification (FAST 1.x.1, and ../shared/fast/README.md),
 * independently of fast_decode.c, so that the round-trip tests compare two
 * separate readings of the spec. The encoder keeps its own dictionary and
 * updates it exactly as a decoder must when it reads the bytes written here;
 * wherever the spec lets the encoder choose (pmap bit clear or not, back or
 * front string delta), it picks the shortest encoding that a decoder maps
 * back to the very same value.
 *
 * Layout of one record on the wire: presence map, template id (a copy field
 * on the global key: slot FAST_DICT_TEMPLATE_ID, bit 0 of the pmap), then the
 * fields. A segment (the record, one sequence element, one group) is encoded
 * body first, then its pmap is inserted in front of the body once every bit
 * is known. This is host code: recursion over nested segments is fine here.
 *
 * After an error the dictionary may be partly updated: reset before reuse,
 * as with the decoder.
 */
#include "fast/host/fast_encode.h"

#include <string.h>

/* Value types as the wire sees them. */
enum vtype { T_I32, T_U32, T_I64, T_U64, T_ASCII, T_BYTES, T_DEC, T_EXP };

/* One scalar value: integer, decimal (i = mantissa), string or bytes. */
struct sval {
	int present;
	int64_t i;
	int32_t exp;
	const uint8_t *s;
	uint32_t len;
};

#define PMAP_MAX_BITS (FAST_MAX_PMAP_BYTES * 7)

struct pmap {
	uint8_t bit[PMAP_MAX_BITS];
	uint32_t n;   /* bits appended */
	int overflow; /* a set bit beyond PMAP_MAX_BITS */
};

struct ctx {
	struct fast_enc *e;
	const struct fast_prog *p;
	const struct fast_rec *r;
	uint32_t k; /* next value of r->v */
	uint8_t *out;
	uint32_t cap;
	uint32_t n;
	int err; /* first fast_err met, FAST_OK while none */
};

static void fail(struct ctx *c, int err)
{
	if (c->err == FAST_OK)
		c->err = err;
}

/* ---- primitive writers ------------------------------------------------ */

static void put_byte(struct ctx *c, uint8_t b)
{
	if (c->n >= c->cap) {
		fail(c, FAST_E_TOO_MANY_VALUES);
		return;
	}
	c->out[c->n++] = b;
}

/* Stop-bit unsigned integer, fewest 7-bit groups (values up to 2^70-1). */
static void put_uint(struct ctx *c, unsigned __int128 v)
{
	int groups = 1;
	while (groups < 10 && (v >> (7 * groups)) != 0)
		groups++;
	for (int g = groups - 1; g >= 0; g--) {
		uint8_t b = (uint8_t)((v >> (7 * g)) & 0x7f);
		put_byte(c, g == 0 ? (uint8_t)(b | 0x80) : b);
	}
}

/* Stop-bit signed integer: two's complement, the top data bit of the first
 * byte is the sign. n groups hold -2^(7n-1) .. 2^(7n-1)-1. */
static void put_int(struct ctx *c, __int128 v)
{
	int groups = 1;
	while (groups < 10) {
		__int128 lim = (__int128)1 << (7 * groups - 1);
		if (v >= -lim && v < lim)
			break;
		groups++;
	}
	unsigned __int128 u = (unsigned __int128)v; /* same low bits */
	for (int g = groups - 1; g >= 0; g--) {
		uint8_t b = (uint8_t)((u >> (7 * g)) & 0x7f);
		put_byte(c, g == 0 ? (uint8_t)(b | 0x80) : b);
	}
}

static void put_null(struct ctx *c)
{
	put_byte(c, 0x80);
}

/* Nullable integers (§10.4): non-negative values are sent as value+1. */
static void put_uint_n(struct ctx *c, uint64_t v, int nullable)
{
	put_uint(c, (unsigned __int128)v + (nullable ? 1u : 0u));
}

static void put_int_n(struct ctx *c, int64_t v, int nullable)
{
	put_int(c, (__int128)v + (nullable && v >= 0 ? 1 : 0));
}

/* ASCII string (§10.6.3). Mandatory: "" = 80, "\0" = 00 80. Nullable:
 * NULL = 80, "" = 00 80, "\0" = 00 00 80. A string whose first character
 * is NUL followed by more characters has no encoding (it would read as an
 * overlong form of the rest). */
static void put_ascii(struct ctx *c, const uint8_t *s, uint32_t len, int nullable)
{
	for (uint32_t j = 0; j < len; j++)
		if (s[j] & 0x80) {
			fail(c, FAST_E_RANGE);
			return;
		}
	if (len > 1 && s[0] == 0) {
		fail(c, FAST_E_RANGE);
		return;
	}
	if (len == 0) {
		if (nullable)
			put_byte(c, 0x00);
		put_byte(c, 0x80);
		return;
	}
	if (len == 1 && s[0] == 0) {
		if (nullable)
			put_byte(c, 0x00);
		put_byte(c, 0x00);
		put_byte(c, 0x80);
		return;
	}
	for (uint32_t j = 0; j < len; j++)
		put_byte(c, j + 1 == len ? (uint8_t)(s[j] | 0x80) : s[j]);
}

/* Byte vector (§10.6.5): uInt32 length (nullable when optional), then the bytes. */
static void put_bytes(struct ctx *c, const uint8_t *s, uint32_t len, int nullable)
{
	put_uint_n(c, len, nullable);
	for (uint32_t j = 0; j < len; j++)
		put_byte(c, s[j]);
}

/* ---- presence map ----------------------------------------------------- */

static void pmap_add(struct pmap *m, int set)
{
	if (m->n < PMAP_MAX_BITS)
		m->bit[m->n] = (uint8_t)(set != 0);
	else if (set)
		m->overflow = 1;
	m->n++;
}

/* Insert the pmap of the segment that starts at `start` (its body already
 * written at out[start .. c->n)). Minimal length: trailing zero bits are not
 * sent, but at least one byte is. */
static void pmap_insert(struct ctx *c, const struct pmap *m, uint32_t start)
{
	uint32_t last = 0; /* bits that matter: up to the last set one */
	uint32_t nb = m->n < PMAP_MAX_BITS ? m->n : PMAP_MAX_BITS;
	for (uint32_t j = 0; j < nb; j++)
		if (m->bit[j])
			last = j + 1;
	if (m->overflow) {
		fail(c, FAST_E_PMAP_TOO_LONG);
		return;
	}
	uint32_t bytes = last == 0 ? 1 : (last + 6) / 7;
	if (bytes > FAST_MAX_PMAP_BYTES) {
		fail(c, FAST_E_PMAP_TOO_LONG);
		return;
	}
	if (c->err != FAST_OK)
		return;
	if (c->n + bytes > c->cap) {
		fail(c, FAST_E_TOO_MANY_VALUES);
		return;
	}
	memmove(c->out + start + bytes, c->out + start, c->n - start);
	for (uint32_t b = 0; b < bytes; b++) {
		uint8_t v = 0;
		for (uint32_t j = 0; j < 7; j++) {
			uint32_t idx = b * 7 + j;
			if (idx < nb && m->bit[idx])
				v |= (uint8_t)(0x40 >> j);
		}
		if (b + 1 == bytes)
			v |= 0x80;
		c->out[start + b] = v;
	}
	c->n += bytes;
}

/* ---- values and the dictionary ---------------------------------------- */

static enum vtype type_of(const struct fast_instr *ins)
{
	switch (ins->kind) {
	case FAST_K_I32: return T_I32;
	case FAST_K_U32: return T_U32;
	case FAST_K_I64: return T_I64;
	case FAST_K_U64: return T_U64;
	case FAST_K_ASCII: return T_ASCII;
	case FAST_K_BYTES: return T_BYTES;
	case FAST_K_DECIMAL: return T_DEC;
	case FAST_K_DEC_EXP: return T_EXP;
	case FAST_K_DEC_MANT: return T_I64;
	case FAST_K_SEQ: return T_U32; /* the length field */
	default: return T_I64;
	}
}

static int is_str(enum vtype t)
{
	return t == T_ASCII || t == T_BYTES;
}

static int is_int(enum vtype t)
{
	return t == T_I32 || t == T_U32 || t == T_I64 || t == T_U64 || t == T_EXP;
}

/* Whether an integer fits the type (uInt64 is carried as a bit pattern). */
static int fits(enum vtype t, int64_t i)
{
	switch (t) {
	case T_I32: return i >= INT32_MIN && i <= INT32_MAX;
	case T_U32: return i >= 0 && i <= (int64_t)UINT32_MAX;
	case T_EXP: return i >= -63 && i <= 63;
	default: return 1;
	}
}

static int sval_eq(enum vtype t, const struct sval *a, const struct sval *b)
{
	if (is_str(t))
		return a->len == b->len && (a->len == 0 || memcmp(a->s, b->s, a->len) == 0);
	if (t == T_DEC)
		return a->i == b->i && a->exp == b->exp;
	return a->i == b->i;
}

/* The previous value plus one, wrapping at the type's maximum. The entry
 * may hold a wider field's value under a shared key (INT64_MAX): adding in
 * uint64 keeps that defined, and the result then matches no value of the
 * field, so it is sent. */
static int64_t incr(enum vtype t, int64_t i)
{
	switch (t) {
	case T_I32: return i == INT32_MAX ? INT32_MIN : (int64_t)((uint64_t)i + 1u);
	case T_U32: return i == (int64_t)UINT32_MAX ? 0 : (int64_t)((uint64_t)i + 1u);
	case T_EXP: return (int64_t)((uint64_t)i + 1u);
	default: return (int64_t)((uint64_t)i + 1u); /* int64 and uInt64 bit patterns */
	}
}

/* The instruction's initial value; 0 when it has none. The compiler keeps
 * an exponent's initial value in fast_const.exp; here it becomes the
 * integer `i` the exponent field is handled as. */
static int init_of(const struct fast_prog *p, const struct fast_instr *ins, enum vtype t,
		   struct sval *out)
{
	if (!(ins->flags & FAST_F_HAS_INIT) || ins->init == FAST_NO_INIT || ins->init >= p->nconst)
		return 0;
	const struct fast_const *k = &p->consts[ins->init];
	if (is_str(t) && (k->len > FAST_MAX_STR || (uint32_t)k->off + k->len > FAST_MAX_POOL))
		return 0; /* malformed program: no usable initial value */
	memset(out, 0, sizeof *out);
	out->present = 1;
	out->i = t == T_EXP ? k->exp : k->i;
	out->exp = k->exp;
	if (is_str(t)) {
		out->s = p->pool + k->off;
		out->len = k->len;
	}
	return 1;
}

static int dict_state(const struct fast_enc *e, uint16_t slot)
{
	const struct fast_dict_entry *d = &e->dict[slot];
	return d->gen == e->gen ? d->state : FAST_DICT_UNDEF;
}

static void dict_value(const struct fast_enc *e, uint16_t slot, struct sval *out)
{
	const struct fast_dict_entry *d = &e->dict[slot];
	memset(out, 0, sizeof *out);
	out->present = 1;
	out->i = d->i;
	out->exp = d->exp;
	out->s = d->s;
	out->len = d->len;
}

static void dict_assign(struct fast_enc *e, uint16_t slot, const struct sval *v)
{
	struct fast_dict_entry *d = &e->dict[slot];
	d->gen = e->gen;
	d->state = FAST_DICT_ASSIGNED;
	d->i = v->i;
	d->exp = v->exp;
	d->len = (uint8_t)v->len;
	if (v->len)
		memmove(d->s, v->s, v->len); /* v->s may point into d->s */
}

static void dict_empty(struct fast_enc *e, uint16_t slot)
{
	struct fast_dict_entry *d = &e->dict[slot];
	d->gen = e->gen;
	d->state = FAST_DICT_EMPTY;
	d->len = 0;
}

/* ---- whole values on the wire ----------------------------------------- */

/* A complete value (operator none, or the value sent after a set bit). */
static void put_value(struct ctx *c, enum vtype t, int nullable, const struct sval *v)
{
	if (!v->present) {
		if (!nullable)
			fail(c, FAST_E_NULL_MANDATORY);
		else
			put_null(c); /* for a decimal: NULL exponent, no mantissa */
		return;
	}
	switch (t) {
	case T_I32:
	case T_I64:
	case T_EXP:
		put_int_n(c, v->i, nullable);
		break;
	case T_U32:
	case T_U64:
		put_uint_n(c, (uint64_t)v->i, nullable);
		break;
	case T_ASCII:
		put_ascii(c, v->s, v->len, nullable);
		break;
	case T_BYTES:
		put_bytes(c, v->s, v->len, nullable);
		break;
	case T_DEC:
		put_int_n(c, v->exp, nullable);
		put_int_n(c, v->i, 0);
		break;
	}
}

/* Bytes an ASCII string / byte vector takes (0 when it has no encoding). */
static uint32_t str_cost(enum vtype t, const uint8_t *s, uint32_t len)
{
	if (t == T_BYTES) {
		uint32_t n = 1;
		for (uint64_t v = len; v >= 0x80; v >>= 7)
			n++;
		return n + len;
	}
	if (len > 1 && s[0] == 0)
		return 0;
	if (len == 0)
		return 1;
	if (len == 1 && s[0] == 0)
		return 2;
	return len;
}

static uint32_t int_cost(__int128 v)
{
	uint32_t groups = 1;
	while (groups < 10) {
		__int128 lim = (__int128)1 << (7 * groups - 1);
		if (v >= -lim && v < lim)
			break;
		groups++;
	}
	return groups;
}

/* The delta of an integer is sent as an int64 (§6.3.7.1) and the sum must
 * fit the field's type, so the exact difference must fit an int64: a uInt64
 * going from 0 to UINT64_MAX, or an int64 from INT64_MIN to INT64_MAX, has
 * no delta encoding (sending the difference wrapped modulo 2^64 would
 * decode as an overflow, D2). Returns 0, or -1 when it does not fit. */
static int int_delta(enum vtype t, int64_t base, int64_t v, int64_t *out)
{
	__int128 d;
	if (t == T_U64)
		d = (__int128)(uint64_t)v - (__int128)(uint64_t)base;
	else
		d = (__int128)v - (__int128)base;
	if (d < INT64_MIN || d > INT64_MAX)
		return -1;
	*out = (int64_t)d;
	return 0;
}

/* Delta (§6.3.7) of v against base; nothing else is sent for the field. */
static void put_delta(struct ctx *c, enum vtype t, int nullable, const struct sval *base,
		      const struct sval *v)
{
	if (!v->present) {
		put_null(c);
		return;
	}
	if (t == T_DEC) {
		int64_t d;
		if (int_delta(T_I64, base->i, v->i, &d)) {
			fail(c, FAST_E_RANGE);
			return;
		}
		put_int_n(c, (int64_t)v->exp - base->exp, nullable);
		put_int_n(c, d, 0);
		return;
	}
	if (is_int(t)) {
		int64_t d;
		if (int_delta(t, base->i, v->i, &d)) {
			fail(c, FAST_E_RANGE);
			return;
		}
		put_int_n(c, d, nullable);
		return;
	}
	/* Strings: remove from the back and append, or remove from the front
	 * and prepend; whichever is shorter. */
	uint32_t pre = 0, suf = 0;
	uint32_t m = base->len < v->len ? base->len : v->len;
	while (pre < m && base->s[pre] == v->s[pre])
		pre++;
	while (suf < m && base->s[base->len - 1 - suf] == v->s[v->len - 1 - suf])
		suf++;
	/* back: subtract base->len - pre, append v[pre..] */
	int64_t back_sub = (int64_t)base->len - pre;
	uint32_t back_cost = str_cost(t, v->s + pre, v->len - pre);
	if (back_cost)
		back_cost += int_cost(back_sub + (nullable ? 1 : 0));
	/* front: subtract base->len - suf (sent excess-1 as -(n)-1), prepend v[..len-suf] */
	int64_t front_sub = -((int64_t)base->len - suf) - 1;
	uint32_t front_cost = str_cost(t, v->s, v->len - suf);
	if (front_cost)
		front_cost += int_cost(front_sub);
	if (!back_cost && !front_cost) {
		fail(c, FAST_E_RANGE);
		return;
	}
	if (back_cost && (!front_cost || back_cost <= front_cost)) {
		put_int_n(c, back_sub, nullable);
		if (t == T_ASCII)
			put_ascii(c, v->s + pre, v->len - pre, 0);
		else
			put_bytes(c, v->s + pre, v->len - pre, 0);
	} else {
		put_int_n(c, front_sub, nullable);
		if (t == T_ASCII)
			put_ascii(c, v->s, v->len - suf, 0);
		else
			put_bytes(c, v->s, v->len - suf, 0);
	}
}

/* Tail (§6.3.8): the received string replaces the last len characters of
 * the base; one longer than the base replaces all of it. So only values at
 * least as long as the base can be sent. */
static void put_tail(struct ctx *c, enum vtype t, int nullable, const struct sval *base,
		     const struct sval *v)
{
	uint32_t from;
	if (v->len < base->len) {
		fail(c, FAST_E_RANGE);
		return;
	}
	if (v->len > base->len) {
		from = 0;
	} else {
		from = 0;
		while (from < v->len && base->s[from] == v->s[from])
			from++;
	}
	if (t == T_ASCII && v->len - from > 1 && v->s[from] == 0) {
		/* not encodable as a suffix from here: try an earlier start */
		while (from > 0 && v->s[from] == 0)
			from--;
		if (v->s[from] == 0) {
			fail(c, FAST_E_RANGE);
			return;
		}
	}
	if (t == T_ASCII)
		put_ascii(c, v->s + from, v->len - from, nullable);
	else
		put_bytes(c, v->s + from, v->len - from, nullable);
}

/* ---- one field with its operator -------------------------------------- */

static int need_bit(struct ctx *c, struct pmap *pm)
{
	if (!pm) {
		/* a field that needs a pmap bit in a segment without a pmap */
		fail(c, FAST_E_PMAP_EXTRA);
		return 0;
	}
	return 1;
}

/* Encode one scalar field (or the exponent / mantissa of a decimal with
 * individual operators, or a sequence length) with its operator. */
static void put_field(struct ctx *c, struct pmap *pm, const struct fast_instr *ins, enum vtype t,
		      int optional, const struct sval *v)
{
	struct fast_enc *e = c->e;
	struct sval init, prev;
	int has_init = init_of(c->p, ins, t, &init);
	uint16_t slot = ins->dict;

	if (v->present && is_int(t) && !fits(t, v->i)) {
		fail(c, t == T_EXP ? FAST_E_EXPONENT : FAST_E_RANGE);
		return;
	}
	if (v->present && t == T_DEC && (v->exp < -63 || v->exp > 63)) {
		fail(c, FAST_E_EXPONENT);
		return;
	}
	if (!v->present && !optional) {
		fail(c, FAST_E_NULL_MANDATORY);
		return;
	}
	if (ins->op != FAST_OP_NONE && ins->op != FAST_OP_CONST && ins->op != FAST_OP_DEFAULT &&
	    slot >= FAST_MAX_DICT) {
		fail(c, FAST_E_RANGE);
		return;
	}

	switch (ins->op) {
	case FAST_OP_NONE:
		put_value(c, t, optional, v);
		return;

	case FAST_OP_CONST:
		if (!has_init || (v->present && !sval_eq(t, v, &init))) {
			fail(c, FAST_E_RANGE);
			return;
		}
		if (optional && need_bit(c, pm))
			pmap_add(pm, v->present);
		return;

	case FAST_OP_DEFAULT:
		/* Bit clear: the initial value, or absent for an optional field
		 * without one. The dictionary is not involved. */
		if (!need_bit(c, pm))
			return;
		if (v->present ? (has_init && sval_eq(t, v, &init)) : !has_init) {
			pmap_add(pm, 0);
			return;
		}
		pmap_add(pm, 1);
		put_value(c, t, optional, v);
		return;

	case FAST_OP_COPY:
	case FAST_OP_INCR:
	case FAST_OP_TAIL: {
		if (!need_bit(c, pm))
			return;
		if (ins->op == FAST_OP_INCR && !is_int(t)) {
			fail(c, FAST_E_RANGE);
			return;
		}
		if (ins->op == FAST_OP_TAIL && !is_str(t)) {
			fail(c, FAST_E_RANGE);
			return;
		}
		int st = dict_state(e, slot);
		/* What a decoder derives from a clear bit in this state. */
		int clear_ok;
		if (st == FAST_DICT_ASSIGNED) {
			dict_value(e, slot, &prev);
			if (ins->op == FAST_OP_INCR)
				prev.i = incr(t, prev.i);
			clear_ok = v->present && sval_eq(t, v, &prev) &&
				   !fast_dict_sign_clash(ins->flags, &e->dict[slot], t == T_U64);
		} else if (st == FAST_DICT_UNDEF) {
			/* the initial value (entry assigned), or, without one, absent
			 * for an optional field (entry becomes empty) */
			if (has_init)
				clear_ok = v->present && sval_eq(t, v, &init);
			else
				clear_ok = !v->present && optional;
		} else {
			clear_ok = !v->present && optional; /* empty: absent */
		}
		if (clear_ok) {
			pmap_add(pm, 0);
			if (v->present) {
				dict_assign(e, slot, v);
				fast_dict_mark(ins->flags, &e->dict[slot], t == T_U64);
			} else {
				dict_empty(e, slot);
			}
			return;
		}
		pmap_add(pm, 1);
		if (!v->present) {
			put_null(c); /* explicit NULL: the entry becomes empty */
			dict_empty(e, slot);
			return;
		}
		if (ins->op == FAST_OP_TAIL) {
			struct sval base;
			if (st == FAST_DICT_ASSIGNED)
				dict_value(e, slot, &base);
			else if (has_init)
				base = init;
			else
				base = (struct sval){ .present = 1 };
			put_tail(c, t, optional, &base, v);
		} else {
			put_value(c, t, optional, v);
		}
		dict_assign(e, slot, v);
		fast_dict_mark(ins->flags, &e->dict[slot], t == T_U64);
		return;
	}

	case FAST_OP_DELTA: {
		/* No bit. Base: the previous value, else the initial value, else
		 * 0 / "" ; an empty entry has no base (D6). */
		struct sval base = { .present = 1 };
		int st = dict_state(e, slot);
		if (st == FAST_DICT_ASSIGNED && v->present &&
		    fast_dict_sign_clash(ins->flags, &e->dict[slot], t == T_U64)) {
			fail(c, FAST_E_RANGE); /* no base a decoder would take */
			return;
		}
		if (st == FAST_DICT_ASSIGNED)
			dict_value(e, slot, &base);
		else if (st == FAST_DICT_UNDEF && has_init)
			base = init;
		else if (st == FAST_DICT_EMPTY && v->present) {
			fail(c, FAST_E_MANDATORY_EMPTY);
			return;
		}
		put_delta(c, t, optional, &base, v);
		if (v->present) {
			dict_assign(e, slot, v);
			fast_dict_mark(ins->flags, &e->dict[slot], t == T_U64);
		}
		return;
	}

	default:
		fail(c, FAST_E_RANGE);
		return;
	}
}

/* ---- instructions, segments ------------------------------------------- */

/* The next value of the record, which must belong to instruction idx. */
static const struct fast_val *next_val(struct ctx *c, uint32_t idx)
{
	if (c->k >= c->r->nvals || c->k >= FAST_MAX_VALUES || c->r->v[c->k].instr != idx) {
		fail(c, FAST_E_TOO_MANY_VALUES);
		return NULL;
	}
	return &c->r->v[c->k++];
}

static int to_sval(struct ctx *c, const struct fast_val *fv, enum vtype t, struct sval *out)
{
	memset(out, 0, sizeof *out);
	out->present = fv->present != 0;
	out->i = fv->i;
	out->exp = fv->exp;
	if (out->present && is_str(t)) {
		if (fv->slen > FAST_MAX_STR) {
			fail(c, FAST_E_STR_TOO_LONG);
			return -1;
		}
		if ((uint32_t)fv->soff + fv->slen > FAST_MAX_STRBUF) {
			fail(c, FAST_E_TOO_MANY_VALUES);
			return -1;
		}
		out->s = c->r->str + fv->soff;
		out->len = fv->slen;
	}
	return 0;
}

static void put_segment(struct ctx *c, uint32_t first, uint32_t end, int has_pmap, int top,
			int depth);

/* The END that closes the SEQ or GROUP at idx, or 0 (FAST_E_RANGE set) when
 * the program does not close it there or nests it deeper than FAST_MAX_DEPTH. */
static uint32_t segment_end(struct ctx *c, uint32_t idx, int depth)
{
	const struct fast_prog *p = c->p;
	uint32_t end = p->instr[idx].aux;
	if (end <= idx || end >= p->ninstr || p->instr[end].kind != FAST_K_END || depth >= FAST_MAX_DEPTH) {
		fail(c, FAST_E_RANGE);
		return 0;
	}
	return end;
}

/* Encode instruction idx (and whatever it owns); returns the next instruction. */
static uint32_t put_instr(struct ctx *c, struct pmap *pm, uint32_t idx, int depth)
{
	const struct fast_prog *p = c->p;
	const struct fast_instr *ins = &p->instr[idx];
	int optional = (ins->flags & FAST_F_OPTIONAL) != 0;
	const struct fast_val *fv;
	struct sval v;

	switch (ins->kind) {
	case FAST_K_I32:
	case FAST_K_U32:
	case FAST_K_I64:
	case FAST_K_U64:
	case FAST_K_ASCII:
	case FAST_K_BYTES:
	case FAST_K_DECIMAL:
		if (!(fv = next_val(c, idx)) || to_sval(c, fv, type_of(ins), &v))
			return idx + 1;
		put_field(c, pm, ins, type_of(ins), optional, &v);
		return idx + 1;

	case FAST_K_DEC_EXP: {
		/* Decimal with individual operators: the exponent (nullable when
		 * the decimal is optional) then, only when it is present, the
		 * mandatory int64 mantissa, each with its own operator. */
		if (idx + 1 >= p->ninstr || p->instr[idx + 1].kind != FAST_K_DEC_MANT) {
			fail(c, FAST_E_RANGE);
			return idx + 1;
		}
		if (!(fv = next_val(c, idx)) || to_sval(c, fv, T_EXP, &v))
			return idx + 2;
		struct sval ex = v, mant = v;
		ex.i = v.exp;
		put_field(c, pm, ins, T_EXP, optional, &ex);
		if (v.present)
			put_field(c, pm, &p->instr[idx + 1], T_I64, 0, &mant);
		return idx + 2;
	}

	case FAST_K_SEQ: {
		uint32_t end = segment_end(c, idx, depth);
		if (!end)
			return idx + 1;
		if (!(fv = next_val(c, idx)))
			return end + 1;
		to_sval(c, fv, T_U32, &v);
		if (v.present && (v.i < 0 || v.i > FAST_MAX_SEQ_LEN)) {
			fail(c, FAST_E_SEQ_TOO_LONG);
			return end + 1;
		}
		put_field(c, pm, ins, T_U32, optional, &v);
		if (v.present)
			for (int64_t el = 0; el < v.i && c->err == FAST_OK; el++)
				put_segment(c, idx + 1, end, (ins->flags & FAST_F_PMAP) != 0, 0,
					    depth + 1);
		return end + 1;
	}

	case FAST_K_GROUP: {
		uint32_t end = segment_end(c, idx, depth);
		if (!end)
			return idx + 1;
		if (!(fv = next_val(c, idx)))
			return end + 1;
		if (!fv->present && !optional) {
			fail(c, FAST_E_NULL_MANDATORY);
			return end + 1;
		}
		if (optional && need_bit(c, pm))
			pmap_add(pm, fv->present);
		if (fv->present)
			put_segment(c, idx + 1, end, (ins->flags & FAST_F_PMAP) != 0, 0, depth + 1);
		return end + 1;
	}

	default: /* END outside its SEQ/GROUP, a lone DEC_MANT, unknown kind */
		fail(c, FAST_E_RANGE);
		return idx + 1;
	}
}

static void put_segment(struct ctx *c, uint32_t first, uint32_t end, int has_pmap, int top,
			int depth)
{
	struct pmap pm;
	uint32_t start = c->n;

	memset(&pm, 0, sizeof pm);
	if (top) {
		/* Template id: a mandatory uInt32 copy field on the global key. */
		struct fast_enc *e = c->e;
		struct fast_dict_entry *d = &e->dict[FAST_DICT_TEMPLATE_ID];
		int same = dict_state(e, FAST_DICT_TEMPLATE_ID) == FAST_DICT_ASSIGNED &&
			   (uint64_t)d->i == c->r->tid;
		pmap_add(&pm, !same);
		if (!same)
			put_uint(c, c->r->tid);
		struct sval t = { .present = 1, .i = c->r->tid };
		dict_assign(e, FAST_DICT_TEMPLATE_ID, &t);
	}
	for (uint32_t idx = first; idx < end && c->err == FAST_OK;)
		idx = put_instr(c, has_pmap ? &pm : NULL, idx, depth);
	if (has_pmap && c->err == FAST_OK)
		pmap_insert(c, &pm, start);
}

/* ---- public API ------------------------------------------------------- */

void fast_enc_init(struct fast_enc *e, const struct fast_prog *prog)
{
	memset(e, 0, sizeof *e);
	e->prog = prog;
	e->gen = 1; /* entries start with gen 0: undefined */
}

void fast_enc_reset(struct fast_enc *e)
{
	e->gen++;
	if (e->gen == 0) {
		/* wrapped: old generations could match again */
		for (uint32_t j = 0; j < FAST_MAX_DICT; j++)
			e->dict[j].gen = 0;
		e->gen = 1;
	}
}

int fast_enc_record(struct fast_enc *e, const struct fast_rec *r, uint8_t *out, uint32_t cap)
{
	const struct fast_prog *p = e->prog;
	struct ctx c = { .e = e, .p = p, .r = r, .k = 0, .out = out, .cap = cap, .n = 0,
			 .err = FAST_OK };

	if (!p || r->tpl >= p->ntpl || p->tpl[r->tpl].id != r->tid)
		return -FAST_E_UNKNOWN_TEMPLATE;
	const struct fast_tpl *t = &p->tpl[r->tpl];
	if (t->end > p->ninstr || t->first > t->end)
		return -FAST_E_RANGE;
	put_segment(&c, t->first, t->end, 1, 1, 0);
	if (c.err == FAST_OK && c.k != r->nvals)
		fail(&c, FAST_E_TOO_MANY_VALUES); /* values left over */
	if (c.err != FAST_OK)
		return -c.err;
	return (int)c.n;
}
