/* fast_decode.c - FAST 1.1 decoder core: interprets a template program over bytes.
 *
 * Synthesisable subset (see doc/hacking.md): no heap, no recursion, no
 * function pointers, no libc, every loop bounded by a maximum in fast_prog.h.
 * Sequences and groups nest through an explicit stack of FAST_MAX_DEPTH
 * frames instead of recursion. Section numbers refer to the FAST 1.1 spec.
 */
#include "fast_decode.h"
#include "fast_read_exact.h"

/* Input cursor. */
struct cur {
	const uint8_t *b;
	uint32_t len;
	uint32_t pos;
};

/* A presence map being consumed bit by bit (§10.5), held as a 128-bit
 * shift register (hi:lo) with the next bit at the top of hi. Bits beyond
 * those received are zero, as the spec implies, and a set bit still left
 * when a segment ends is R8: both come for free from the representation. */
struct pmap {
	uint64_t hi, lo;
};

/* An open sequence or group. */
struct frame {
	uint16_t start;     /* SEQ/GROUP instruction */
	uint16_t is_seq;
	uint32_t remaining; /* sequence elements still to decode, this one included */
	struct pmap parent; /* the enclosing pmap, restored at the END */
};

struct ctx {
	struct fast_dec *d;
	const struct fast_prog *p;
	struct cur c;
	struct pmap pm;
	struct fast_rec *r;
	uint32_t warn;
};

/* ---- primitive entities ------------------------------------------------ */

static inline int read_pmap(struct ctx *x)
{
	return fast_pmap_exact(x->c.b, x->c.len, &x->c.pos, &x->warn, &x->pm.hi, &x->pm.lo);
}

static inline uint32_t pmap_bit(struct pmap *pm)
{
	uint32_t bit = (uint32_t)(pm->hi >> 63);
	pm->hi = (pm->hi << 1) | (pm->lo >> 63);
	pm->lo <<= 1;
	return bit;
}

/* R8: a set bit left means the sender used more bits than the template defines. */
static inline int pmap_extra(const struct pmap *pm)
{
	return (pm->hi | pm->lo) != 0;
}

/* Integer decoding (§10.6.1): the exact decoder is fast_read_exact.h, shared
 * with the CPU fast decoder; read_int below takes the common short case. */
enum { IT_I32 = FAST_IT_I32, IT_U32 = FAST_IT_U32, IT_I64 = FAST_IT_I64, IT_U64 = FAST_IT_U64 };

static int read_int_exact(struct ctx *x, uint32_t type, uint32_t nullable, int64_t *out, uint32_t *present)
{
	return fast_int_exact(x->c.b, x->c.len, &x->c.pos, &x->warn, type, nullable, out, present);
}

/* The common case: an encoding short enough that no type can overflow
 * (at most 4 bytes for 32-bit types, 8 for 64-bit ones), read in one pass.
 * Longer encodings, the end of the input and errors go to read_int_exact. */
static inline __attribute__((always_inline)) int read_int(struct ctx *x, uint32_t type, uint32_t nullable, int64_t *out, uint32_t *present)
{
	const uint8_t *b = x->c.b + x->c.pos;
	const uint32_t avail = x->c.len - x->c.pos;
	const uint32_t maxfast = (type == IT_I32 || type == IT_U32) ? 4 : 8;
	uint64_t v;
	uint32_t n;
	uint8_t c;

	if (avail < maxfast)
		return read_int_exact(x, type, nullable, out, present);
	c = b[0];
	v = ((type == IT_I32 || type == IT_I64) && (c & 0x40)) ? ~(uint64_t)0 : 0;
	v = (v << 7) | (c & 0x7f);
	for (n = 1; n < 8; n++) {
		if (c & 0x80)
			break;
		if (n >= maxfast)
			return read_int_exact(x, type, nullable, out, present);
		c = b[n];
		v = (v << 7) | (c & 0x7f);
	}
	if (!(c & 0x80))
		return read_int_exact(x, type, nullable, out, present);
	/* R6: a leading byte that only repeats the sign */
	if (n > 1 && ((b[0] == 0x00 && ((type != IT_I32 && type != IT_I64) || !(b[1] & 0x40))) ||
		      (b[0] == 0x7f && (type == IT_I32 || type == IT_I64) && (b[1] & 0x40))))
		x->warn |= 1u << FAST_E_OVERLONG_INT;
	x->c.pos += n;
	*present = 1;
	if (nullable && (int64_t)v >= 0) {
		if (v == 0) {
			*present = 0;
			*out = 0;
			return FAST_OK;
		}
		v--;
	}
	*out = (int64_t)v;
	return FAST_OK;
}

/* ASCII string (§10.6.3), every form: fast_read_exact.h. */
static int read_ascii_slow(struct ctx *x, uint32_t nullable, uint8_t *dst, uint32_t *len, uint32_t *present)
{
	return fast_ascii_exact(x->c.b, x->c.len, &x->c.pos, &x->warn, nullable, dst, len, present);
}

/* ASCII string: the common case (a first byte that is neither 0x00 nor
 * 0x80, the whole string within reach) in one pass; the rest goes to
 * read_ascii_slow. */
static inline int read_ascii(struct ctx *x, uint32_t nullable, uint8_t *dst, uint32_t *len, uint32_t *present)
{
	const uint8_t *b = x->c.b + x->c.pos;
	const uint32_t avail = x->c.len - x->c.pos;
	uint32_t i;
	if (avail < 2 || b[0] == 0x00 || b[0] == 0x80)
		return read_ascii_slow(x, nullable, dst, len, present);
	for (i = 0; i < FAST_MAX_STR; i++) {
		uint8_t c;
		if (i >= avail)
			break;
		c = b[i];
		dst[i] = c & 0x7f;
		if (c & 0x80) {
			x->c.pos += i + 1;
			*len = i + 1;
			*present = 1;
			return FAST_OK;
		}
	}
	return read_ascii_slow(x, nullable, dst, len, present);
}

/* Byte vector (§10.6.5): uInt32 length (nullable when optional), then bytes. */
static int read_bytes(struct ctx *x, uint32_t nullable, uint8_t *dst, uint32_t *len, uint32_t *present)
{
	int64_t l;
	uint32_t i;
	int e = read_int(x, IT_U32, nullable, &l, present);
	if (e)
		return e;
	*len = 0;
	if (!*present)
		return FAST_OK;
	if ((uint64_t)l > FAST_MAX_STR)
		return FAST_E_STR_TOO_LONG;
	if ((uint64_t)l > x->c.len - x->c.pos) {
		x->c.pos = x->c.len;
		return FAST_E_TRUNCATED;
	}
	for (i = 0; i < FAST_MAX_STR; i++) {
		if (i >= (uint32_t)l)
			break;
		dst[i] = x->c.b[x->c.pos + i];
	}
	x->c.pos += (uint32_t)l;
	*len = (uint32_t)l;
	return FAST_OK;
}

/* ---- dictionary ---------------------------------------------------------- */

static inline struct fast_dict_entry *dict_at(struct ctx *x, const struct fast_instr *in)
{
	return &x->d->dict[in->dict & (FAST_MAX_DICT - 1)];
}

static inline uint32_t dict_state(const struct ctx *x, const struct fast_dict_entry *e)
{
	return e->gen == x->d->gen ? e->state : FAST_DICT_UNDEF;
}

static inline void dict_set_int(struct ctx *x, struct fast_dict_entry *e, int64_t i, int32_t exp)
{
	e->gen = x->d->gen;
	e->state = FAST_DICT_ASSIGNED;
	e->i = i;
	e->exp = exp;
}

static inline void dict_set_empty(struct ctx *x, struct fast_dict_entry *e)
{
	e->gen = x->d->gen;
	e->state = FAST_DICT_EMPTY;
}

static inline const struct fast_const *init_of(const struct ctx *x, const struct fast_instr *in)
{
	return &x->p->consts[in->init & (FAST_MAX_CONST - 1)];
}

/* ---- integer fields (§6.3) ------------------------------------------------ */

static uint32_t int_type(uint32_t kind)
{
	switch (kind) {
	case FAST_K_I32:
	case FAST_K_DEC_EXP:
		return IT_I32;
	case FAST_K_U32:
	case FAST_K_SEQ:
		return IT_U32;
	case FAST_K_U64:
		return IT_U64;
	default:
		return IT_I64;
	}
}

/* Wrap or range-check an integer result of increment/delta for its type. */
static int fit(uint32_t type, int64_t v, int64_t *out)
{
	switch (type) {
	case IT_I32:
		if (v < -2147483648LL || v > 2147483647LL)
			return FAST_E_RANGE;
		break;
	case IT_U32:
		if (v < 0 || v > 4294967295LL)
			return FAST_E_RANGE;
		break;
	default:
		break;
	}
	*out = v;
	return FAST_OK;
}

/* v may be a wider field's value under a shared key (fit then refuses the
 * result): adding in uint64 keeps INT64_MAX + 1 defined */
static int64_t incr(uint32_t type, int64_t v)
{
	switch (type) {
	case IT_I32:
		return v == 2147483647LL ? -2147483648LL : (int64_t)((uint64_t)v + 1);
	case IT_U32:
		return v == 4294967295LL ? 0 : (int64_t)((uint64_t)v + 1);
	default:
		return (int64_t)((uint64_t)v + 1); /* wraps at 2^64 */
	}
}

/* Decode an integer field (also a decimal's exponent or mantissa, and a
 * sequence length) with its operator. */
static inline __attribute__((always_inline)) int dec_int(struct ctx *x, const struct fast_instr *in, int64_t *val, uint32_t *present)
{
	const uint32_t type = int_type(in->kind);
	const uint32_t opt = in->flags & FAST_F_OPTIONAL;
	struct fast_dict_entry *e;
	uint32_t st;
	int err;

	switch (in->op) {
	case FAST_OP_NONE:
		return read_int(x, type, opt, val, present);
	case FAST_OP_CONST:
		*present = opt ? pmap_bit(&x->pm) : 1;
		*val = in->kind == FAST_K_DEC_EXP ? init_of(x, in)->exp : init_of(x, in)->i;
		return FAST_OK;
	case FAST_OP_DEFAULT:
		if (pmap_bit(&x->pm))
			return read_int(x, type, opt, val, present);
		if (in->flags & FAST_F_HAS_INIT) {
			*present = 1;
			*val = in->kind == FAST_K_DEC_EXP ? init_of(x, in)->exp : init_of(x, in)->i;
			return FAST_OK;
		}
		*present = 0;
		return opt ? FAST_OK : FAST_E_MANDATORY_UNDEF;
	case FAST_OP_COPY:
	case FAST_OP_INCR:
		e = dict_at(x, in);
		if (pmap_bit(&x->pm)) {
			err = read_int(x, type, opt, val, present);
			if (err)
				return err;
			if (*present) {
				dict_set_int(x, e, *val, 0);
				fast_dict_mark(in->flags, e, type == IT_U64);
			} else {
				dict_set_empty(x, e);
			}
			return FAST_OK;
		}
		st = dict_state(x, e);
		if (st == FAST_DICT_ASSIGNED) {
			/* the entry may hold another integer field's value (fields of any widths may share a
			 * key): D4, out of this field's range */
			if (fast_dict_sign_clash(in->flags, e, type == IT_U64))
				return FAST_E_RANGE;
			err = fit(type, in->op == FAST_OP_INCR ? incr(type, e->i) : e->i, val);
			if (err)
				return err;
			*present = 1;
			e->i = *val;
			fast_dict_mark(in->flags, e, type == IT_U64);
			return FAST_OK;
		}
		if (st == FAST_DICT_UNDEF && (in->flags & FAST_F_HAS_INIT)) {
			*val = in->kind == FAST_K_DEC_EXP ? init_of(x, in)->exp : init_of(x, in)->i;
			*present = 1;
			dict_set_int(x, e, *val, 0);
			fast_dict_mark(in->flags, e, type == IT_U64);
			return FAST_OK;
		}
		*present = 0;
		if (st == FAST_DICT_UNDEF) {
			if (!opt)
				return FAST_E_MANDATORY_UNDEF;
			dict_set_empty(x, e);
			return FAST_OK;
		}
		return opt ? FAST_OK : FAST_E_MANDATORY_EMPTY;
	case FAST_OP_DELTA: {
		int64_t delta, base;
		e = dict_at(x, in);
		err = read_int(x, IT_I64, opt, &delta, present);
		if (err || !*present)
			return err;
		st = dict_state(x, e);
		if (st == FAST_DICT_ASSIGNED && fast_dict_sign_clash(in->flags, e, type == IT_U64))
			return FAST_E_RANGE;
		if (st == FAST_DICT_ASSIGNED)
			base = e->i;
		else if (st == FAST_DICT_EMPTY)
			return FAST_E_MANDATORY_EMPTY;
		else if (in->flags & FAST_F_HAS_INIT)
			base = in->kind == FAST_K_DEC_EXP ? init_of(x, in)->exp : init_of(x, in)->i;
		else
			base = 0;
		if (type == IT_U64) {
			uint64_t r = (uint64_t)base + (uint64_t)delta;
			if (delta >= 0 ? r < (uint64_t)base : r > (uint64_t)base)
				return FAST_E_RANGE;
			*val = (int64_t)r;
		} else {
			int64_t r;
			if (__builtin_add_overflow(base, delta, &r))
				return FAST_E_RANGE;
			err = fit(type, r, val);
			if (err)
				return err;
		}
		dict_set_int(x, e, *val, 0);
		fast_dict_mark(in->flags, e, type == IT_U64);
		return FAST_OK;
	}
	default:
		return FAST_E_RANGE;
	}
}

/* ---- decimal fields (§10.6.2) ---------------------------------------------- */

static int read_decimal(struct ctx *x, uint32_t nullable, int64_t *exp, int64_t *mant, uint32_t *present)
{
	int err = read_int(x, IT_I32, nullable, exp, present);
	if (err || !*present)
		return err;
	if (*exp < -63 || *exp > 63)
		return FAST_E_EXPONENT;
	return read_int(x, IT_I64, 0, mant, present);
}

/* A decimal with one operator on the whole value. */
static int dec_decimal(struct ctx *x, const struct fast_instr *in, struct fast_val *v)
{
	const uint32_t opt = in->flags & FAST_F_OPTIONAL;
	const struct fast_const *k = init_of(x, in);
	struct fast_dict_entry *e = dict_at(x, in);
	int64_t exp = 0, mant = 0;
	uint32_t present = 1, st;
	int err = FAST_OK;

	switch (in->op) {
	case FAST_OP_NONE:
		err = read_decimal(x, opt, &exp, &mant, &present);
		break;
	case FAST_OP_CONST:
		present = opt ? pmap_bit(&x->pm) : 1;
		exp = k->exp;
		mant = k->i;
		break;
	case FAST_OP_DEFAULT:
		if (pmap_bit(&x->pm)) {
			err = read_decimal(x, opt, &exp, &mant, &present);
		} else if (in->flags & FAST_F_HAS_INIT) {
			exp = k->exp;
			mant = k->i;
		} else {
			present = 0;
			if (!opt)
				err = FAST_E_MANDATORY_UNDEF;
		}
		break;
	case FAST_OP_COPY:
		if (pmap_bit(&x->pm)) {
			err = read_decimal(x, opt, &exp, &mant, &present);
			if (!err) {
				if (present)
					dict_set_int(x, e, mant, (int32_t)exp);
				else
					dict_set_empty(x, e);
			}
			break;
		}
		st = dict_state(x, e);
		if (st == FAST_DICT_ASSIGNED) {
			exp = e->exp;
			mant = e->i;
		} else if (st == FAST_DICT_UNDEF && (in->flags & FAST_F_HAS_INIT)) {
			exp = k->exp;
			mant = k->i;
			dict_set_int(x, e, mant, (int32_t)exp);
		} else {
			present = 0;
			if (st == FAST_DICT_UNDEF) {
				if (!opt)
					err = FAST_E_MANDATORY_UNDEF;
				else
					dict_set_empty(x, e);
			} else if (!opt) {
				err = FAST_E_MANDATORY_EMPTY;
			}
		}
		break;
	case FAST_OP_DELTA: {
		int64_t de, dm, bexp = 0, bmant = 0;
		err = read_int(x, IT_I64, opt, &de, &present);
		if (err || !present)
			break;
		err = read_int(x, IT_I64, 0, &dm, &present);
		if (err)
			break;
		st = dict_state(x, e);
		if (st == FAST_DICT_ASSIGNED) {
			bexp = e->exp;
			bmant = e->i;
		} else if (st == FAST_DICT_EMPTY) {
			err = FAST_E_MANDATORY_EMPTY;
			break;
		} else if (in->flags & FAST_F_HAS_INIT) {
			bexp = k->exp;
			bmant = k->i;
		}
		if (__builtin_add_overflow(bexp, de, &exp) || __builtin_add_overflow(bmant, dm, &mant)) {
			err = FAST_E_RANGE;
			break;
		}
		if (exp < -63 || exp > 63) {
			err = FAST_E_EXPONENT;
			break;
		}
		dict_set_int(x, e, mant, (int32_t)exp);
		break;
	}
	default:
		err = FAST_E_RANGE;
		break;
	}
	v->present = (uint8_t)present;
	v->i = present ? mant : 0;
	v->exp = present ? (int32_t)exp : 0;
	return err;
}

/* ---- string and byte vector fields ---------------------------------------- */

/* Copy n bytes (n <= FAST_MAX_STR). */
static inline void copy_str(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint32_t i;
	for (i = 0; i < FAST_MAX_STR; i++) {
		if (i >= n)
			break;
		dst[i] = src[i];
	}
}

static inline int read_str(struct ctx *x, uint32_t kind, uint32_t nullable, uint8_t *dst, uint32_t *len,
			   uint32_t *present)
{
	return kind == FAST_K_ASCII ? read_ascii(x, nullable, dst, len, present)
				    : read_bytes(x, nullable, dst, len, present);
}

/* The initial value of a string field, bounded by the pool. */
static inline uint32_t init_str(const struct ctx *x, const struct fast_instr *in, uint8_t *dst)
{
	const struct fast_const *k = init_of(x, in);
	uint32_t i, n = k->len;
	if (!(in->flags & FAST_F_HAS_INIT))
		return 0;
	if (n > FAST_MAX_STR)
		n = FAST_MAX_STR;
	if ((uint32_t)k->off + n > FAST_MAX_POOL)
		n = k->off < FAST_MAX_POOL ? FAST_MAX_POOL - k->off : 0;
	for (i = 0; i < FAST_MAX_STR; i++) {
		if (i >= n)
			break;
		dst[i] = x->p->pool[k->off + i];
	}
	return n;
}

static inline void dict_set_str(struct ctx *x, struct fast_dict_entry *e, const uint8_t *s, uint32_t n)
{
	e->gen = x->d->gen;
	e->state = FAST_DICT_ASSIGNED;
	e->len = (uint8_t)n;
	copy_str(e->s, s, n);
}

/* Decode a string/byte vector field into s[0..*len). */
static int dec_str(struct ctx *x, const struct fast_instr *in, uint8_t *s, uint32_t *len, uint32_t *present)
{
	const uint32_t opt = in->flags & FAST_F_OPTIONAL;
	struct fast_dict_entry *e = dict_at(x, in);
	uint32_t st;
	int err;

	*present = 1;
	*len = 0;
	switch (in->op) {
	case FAST_OP_NONE:
		return read_str(x, in->kind, opt, s, len, present);
	case FAST_OP_CONST:
		*present = opt ? pmap_bit(&x->pm) : 1;
		*len = init_str(x, in, s);
		return FAST_OK;
	case FAST_OP_DEFAULT:
		if (pmap_bit(&x->pm))
			return read_str(x, in->kind, opt, s, len, present);
		if (in->flags & FAST_F_HAS_INIT) {
			*len = init_str(x, in, s);
			return FAST_OK;
		}
		*present = 0;
		return opt ? FAST_OK : FAST_E_MANDATORY_UNDEF;
	case FAST_OP_COPY:
	case FAST_OP_TAIL:
		st = dict_state(x, e);
		if (pmap_bit(&x->pm)) {
			uint8_t t[FAST_MAX_STR];
			uint32_t tl = 0, bl, i;
			err = read_str(x, in->kind, opt, in->op == FAST_OP_TAIL ? t : s,
				       in->op == FAST_OP_TAIL ? &tl : len, present);
			if (err)
				return err;
			if (!*present) {
				dict_set_empty(x, e);
				return FAST_OK;
			}
			if (in->op == FAST_OP_TAIL) {
				/* §6.3.7.3: the tail replaces the end of the base */
				if (st == FAST_DICT_ASSIGNED) {
					bl = e->len;
					copy_str(s, e->s, bl);
				} else {
					bl = init_str(x, in, s);
				}
				if (tl >= bl) {
					copy_str(s, t, tl);
					*len = tl;
				} else {
					for (i = 0; i < FAST_MAX_STR; i++) {
						if (i >= tl)
							break;
						s[bl - tl + i] = t[i];
					}
					*len = bl;
				}
			}
			dict_set_str(x, e, s, *len);
			return FAST_OK;
		}
		if (st == FAST_DICT_ASSIGNED) {
			*len = e->len;
			copy_str(s, e->s, e->len);
			return FAST_OK;
		}
		if (st == FAST_DICT_UNDEF && (in->flags & FAST_F_HAS_INIT)) {
			*len = init_str(x, in, s);
			dict_set_str(x, e, s, *len);
			return FAST_OK;
		}
		*present = 0;
		if (st == FAST_DICT_UNDEF) {
			if (!opt)
				return FAST_E_MANDATORY_UNDEF;
			dict_set_empty(x, e);
			return FAST_OK;
		}
		return opt ? FAST_OK : FAST_E_MANDATORY_EMPTY;
	case FAST_OP_DELTA: {
		/* §6.3.7.4: subtraction length, then the bytes to append (or to
		 * prepend when the length is negative, in excess-1 form) */
		int64_t sub;
		uint8_t t[FAST_MAX_STR];
		uint32_t tl = 0, bl, i, tp;
		err = read_int(x, IT_I32, opt, &sub, present);
		if (err || !*present)
			return err;
		err = read_str(x, in->kind, 0, t, &tl, &tp);
		if (err)
			return err;
		st = dict_state(x, e);
		if (st == FAST_DICT_EMPTY)
			return FAST_E_MANDATORY_EMPTY;
		if (st == FAST_DICT_ASSIGNED) {
			bl = e->len;
			copy_str(s, e->s, bl);
		} else {
			bl = init_str(x, in, s);
		}
		if (sub >= 0) {
			if ((uint64_t)sub > bl)
				return FAST_E_SUBTRACT_LEN;
			bl -= (uint32_t)sub;
			if (bl + tl > FAST_MAX_STR)
				return FAST_E_STR_TOO_LONG;
			for (i = 0; i < FAST_MAX_STR; i++) {
				if (i >= tl)
					break;
				s[bl + i] = t[i];
			}
			*len = bl + tl;
		} else {
			uint32_t cut = (uint32_t)(-(sub + 1));
			uint32_t keep;
			if (cut > bl)
				return FAST_E_SUBTRACT_LEN;
			keep = bl - cut;
			if (keep + tl > FAST_MAX_STR)
				return FAST_E_STR_TOO_LONG;
			/* move the kept tail right behind the prefix */
			if (tl >= cut) {
				for (i = 0; i < FAST_MAX_STR; i++) {
					if (i >= keep)
						break;
					s[tl + keep - 1 - i] = s[cut + keep - 1 - i];
				}
			} else {
				for (i = 0; i < FAST_MAX_STR; i++) {
					if (i >= keep)
						break;
					s[tl + i] = s[cut + i];
				}
			}
			copy_str(s, t, tl);
			*len = keep + tl;
		}
		dict_set_str(x, e, s, *len);
		return FAST_OK;
	}
	default:
		return FAST_E_RANGE;
	}
}

/* ---- records ------------------------------------------------------------- */

static inline struct fast_val *emit(struct ctx *x, uint32_t pc)
{
	struct fast_val *v;
	if (x->r->nvals >= FAST_MAX_VALUES)
		return 0;
	v = &x->r->v[x->r->nvals++];
	v->instr = (uint16_t)pc;
	v->present = 1;
	v->i = 0;
	v->exp = 0;
	v->soff = 0;
	v->slen = 0;
	return v;
}

static int find_template(const struct fast_dec *d, uint32_t tid)
{
	uint32_t k;
	for (k = 0; k < FAST_MAX_TEMPLATES; k++) {
		if (k >= d->prog->ntpl)
			break;
		if (d->prog->tpl[k].id == tid)
			return (int)k;
	}
	return -1;
}

/* The body of fast_dec_record: returns a fast_err. */
static int decode(struct ctx *x)
{
	const struct fast_prog *p = x->p;
	struct frame stack[FAST_MAX_DEPTH];
	uint32_t sp = 0, pc, end, steps;
	struct fast_dict_entry *te = &x->d->dict[FAST_DICT_TEMPLATE_ID];
	int64_t tid;
	uint32_t present;
	int err, t;

	err = read_pmap(x);
	if (err)
		return err;
	/* the template id: a copy field on a global key (§10.5) */
	if (pmap_bit(&x->pm)) {
		err = read_int(x, IT_U32, 0, &tid, &present);
		if (err)
			return err;
		dict_set_int(x, te, tid, 0);
	} else if (dict_state(x, te) == FAST_DICT_ASSIGNED) {
		tid = te->i;
	} else {
		return FAST_E_MANDATORY_UNDEF;
	}
	x->r->tid = (uint32_t)tid;
	t = find_template(x->d, (uint32_t)tid);
	if (t < 0)
		return FAST_E_UNKNOWN_TEMPLATE;
	x->r->tpl = (uint16_t)t;
	pc = p->tpl[t].first;
	end = p->tpl[t].end;
	if (end > FAST_MAX_INSTR)
		end = FAST_MAX_INSTR;

	for (steps = 0; steps < FAST_MAX_STEPS; steps++) {
		const struct fast_instr *in;
		struct fast_val *v;
		if (pc >= end && sp == 0)
			return pmap_extra(&x->pm) ? FAST_E_PMAP_EXTRA : FAST_OK;
		if (pc >= end)
			return FAST_E_RANGE; /* malformed program: unclosed group */
		in = &p->instr[pc];

		if (in->kind == FAST_K_END) {
			struct frame *f;
			if (sp == 0)
				return FAST_E_RANGE;
			f = &stack[sp - 1];
			if ((p->instr[f->start].flags & FAST_F_PMAP) && pmap_extra(&x->pm))
				return FAST_E_PMAP_EXTRA;
			if (f->is_seq && f->remaining > 1) {
				f->remaining--;
				if (p->instr[f->start].flags & FAST_F_PMAP) {
					err = read_pmap(x);
					if (err)
						return err;
				}
				pc = (uint32_t)f->start + 1;
				continue;
			}
			if (p->instr[f->start].flags & FAST_F_PMAP)
				x->pm = f->parent;
			sp--;
			pc++;
			continue;
		}

		v = emit(x, pc);
		if (!v)
			return FAST_E_TOO_MANY_VALUES;

		switch (in->kind) {
		case FAST_K_I32:
		case FAST_K_U32:
		case FAST_K_I64:
		case FAST_K_U64:
			err = dec_int(x, in, &v->i, &present);
			v->present = (uint8_t)present;
			if (err)
				return err;
			pc++;
			break;
		case FAST_K_ASCII:
		case FAST_K_BYTES: {
			uint32_t len = 0;
			uint8_t *s;
			if (x->r->nstr + FAST_MAX_STR > FAST_MAX_STRBUF)
				return FAST_E_TOO_MANY_VALUES;
			s = &x->r->str[x->r->nstr];
			err = dec_str(x, in, s, &len, &present);
			v->present = (uint8_t)present;
			if (err)
				return err;
			v->soff = x->r->nstr;
			v->slen = (uint16_t)(present ? len : 0);
			x->r->nstr = (uint16_t)(x->r->nstr + v->slen);
			pc++;
			break;
		}
		case FAST_K_DECIMAL:
			err = dec_decimal(x, in, v);
			if (err)
				return err;
			pc++;
			break;
		case FAST_K_DEC_EXP: {
			int64_t exp = 0, mant = 0;
			err = dec_int(x, in, &exp, &present);
			v->present = (uint8_t)present;
			if (err)
				return err;
			if (present && (exp < -63 || exp > 63))
				return FAST_E_EXPONENT;
			if (present && pc + 1 < end && p->instr[pc + 1].kind == FAST_K_DEC_MANT) {
				err = dec_int(x, &p->instr[pc + 1], &mant, &present);
				if (err)
					return err;
				if (!present)
					return FAST_E_NULL_MANDATORY;
			}
			v->exp = (int32_t)exp;
			v->i = mant;
			pc += 2; /* the mantissa instruction is consumed with its exponent */
			break;
		}
		case FAST_K_SEQ: {
			int64_t n = 0;
			err = dec_int(x, in, &n, &present);
			v->present = (uint8_t)present;
			v->i = present ? n : 0;
			if (err)
				return err;
			if (!present || n == 0) {
				pc = (uint32_t)in->aux + 1;
				break;
			}
			if (n > FAST_MAX_SEQ_LEN)
				return FAST_E_SEQ_TOO_LONG;
			if (sp >= FAST_MAX_DEPTH)
				return FAST_E_RANGE;
			stack[sp].start = (uint16_t)pc;
			stack[sp].is_seq = 1;
			stack[sp].remaining = (uint32_t)n;
			stack[sp].parent = x->pm;
			sp++;
			if (in->flags & FAST_F_PMAP) {
				err = read_pmap(x);
				if (err)
					return err;
			}
			pc++;
			break;
		}
		case FAST_K_GROUP:
			present = (in->flags & FAST_F_OPTIONAL) ? pmap_bit(&x->pm) : 1;
			v->present = (uint8_t)present;
			if (!present) {
				pc = (uint32_t)in->aux + 1;
				break;
			}
			if (sp >= FAST_MAX_DEPTH)
				return FAST_E_RANGE;
			stack[sp].start = (uint16_t)pc;
			stack[sp].is_seq = 0;
			stack[sp].remaining = 1;
			stack[sp].parent = x->pm;
			sp++;
			if (in->flags & FAST_F_PMAP) {
				err = read_pmap(x);
				if (err)
					return err;
			}
			pc++;
			break;
		default:
			return FAST_E_RANGE; /* DEC_MANT out of place: malformed program */
		}
	}
	return FAST_E_TOO_MANY_VALUES;
}

void fast_dec_init(struct fast_dec *d, const struct fast_prog *prog)
{
	uint32_t i;
	d->prog = prog;
	d->gen = 1;
	d->records = 0;
	for (i = 0; i < FAST_MAX_DICT; i++) {
		d->dict[i].gen = 0;
		d->dict[i].state = FAST_DICT_UNDEF;
	}
	for (i = 0; i < FAST_ERR_COUNT; i++)
		d->errors[i] = 0;
}

void fast_dec_reset(struct fast_dec *d)
{
	uint32_t i;
	d->gen++;
	if (d->gen == 0) { /* wrapped: entries of generation 0 must not look current */
		for (i = 0; i < FAST_MAX_DICT; i++)
			d->dict[i].gen = 0;
		d->gen = 1;
	}
}

int fast_dec_record(struct fast_dec *d, const uint8_t *buf, uint32_t len, uint32_t *used,
		    struct fast_rec *out)
{
	struct ctx x;
	uint32_t e;
	int err;

	x.d = d;
	x.p = d->prog;
	x.c.b = buf;
	x.c.len = len;
	x.c.pos = 0;
	x.r = out;
	x.warn = 0;
	x.pm.hi = 0;
	x.pm.lo = 0;
	out->nvals = 0;
	out->nstr = 0;
	out->tid = 0;
	out->tpl = 0;

	err = decode(&x);
	*used = x.c.pos;
	out->warn = x.warn;
	if (x.warn) {
		for (e = 0; e < FAST_ERR_COUNT; e++)
			if (x.warn & (1u << e))
				d->errors[e]++;
	}
	if (err) {
		d->errors[err < FAST_ERR_COUNT ? err : 0]++;
		return err;
	}
	d->records++;
	return FAST_OK;
}
