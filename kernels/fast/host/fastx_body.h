/* fastx_body.h - the specialised decoder body, included once per instruction set.
 *
 * Included by fastx_decode.c with FX_NAME (suffix), FX_TARGET (target
 * attribute), FX_MASK (stop bits of 64 bytes), FX_GATHER (eight 7-bit
 * groups of a byte-reversed word into one integer), FX_TZ (trailing zeros,
 * 64 for 0) and FX_SEL (the copy's FASTX_SEL_*) defined; undefines them.
 *
 * The window: c->mr holds the stop bits of the bytes from c->p to the end of
 * the last 64-byte SIMD pass (bit 0 = *c->p); a field's length is its count
 * of trailing zeros + 1, and eating it shifts mr. A field whose stop bit is
 * not in the window refills it at the field; a field that does not end
 * within 64 bytes or within the input goes to the exact reader. A window is
 * only computed where FX_SAFE bytes follow (or in the zero-padded copy of a
 * short input), so every 8-byte load of a field inside it is in bounds
 * without a test.
 *
 * Register pressure decides the speed of this function (callgrind: every
 * spilled cursor field is a load and a store per field), so the hot state is
 * few words: the byte pointer, the window, the presence map, the op pointer;
 * the record's start, end and warnings are touched only on rare paths, and
 * the scratch buffers live in struct fastx_dec (no aligned stack frame).
 */

static FX_TARGET inline __attribute__((always_inline)) void FX_NAME(x_refill)(struct fx *c)
{
	if (LIKELY(c->k->end - c->p >= (ptrdiff_t)FX_SAFE) || c->k->pad)
		c->mr = FX_MASK(c->p);
	else
		c->mr = 0; /* the last bytes of an unpadded input: the exact readers */
}

/* Bytes up to and including the next stop bit, 0 when not in reach (the
 * caller takes the exact reader). */
static FX_TARGET inline __attribute__((always_inline)) uint32_t FX_NAME(x_span)(struct fx *c)
{
	if (UNLIKELY(c->mr == 0)) {
		FX_NAME(x_refill)(c);
		if (c->mr == 0)
			return 0;
	}
	return (uint32_t)__builtin_ctzll(c->mr) + 1;
}

/* Consume n bytes of the window (1 <= n <= 64). */
static inline __attribute__((always_inline)) void FX_NAME(x_eat)(struct fx *c, uint32_t n)
{
	c->p += n;
	c->mr = (c->mr >> (n - 1)) >> 1;
}

/* The eight 7-bit groups of the word at p, left-aligned: the first byte's
 * group in bits 63..57, the eighth's in 14..8. */
static FX_TARGET inline __attribute__((always_inline)) uint64_t FX_NAME(x_groups)(const uint8_t *p)
{
	return FX_GATHER(__builtin_bswap64(x_ld8(p))) << 8;
}

/* The exact readers get a copy of the cursor, so that the cursor's address
 * never escapes and the compiler keeps it in registers on the common path. */
static FX_TARGET inline __attribute__((always_inline)) int FX_NAME(x_pmap_slow)(struct fx *c)
{
	struct fx t = *c;
	int e = x_pmap_exact(&t);
	c->p = t.p; /* not k: it stays the known &ck, a stack address, not a value to keep */
	c->mr = t.mr;
	c->pm = t.pm;
	FX_NAME(x_refill)(c);
	return e;
}

static FX_TARGET inline __attribute__((always_inline)) int FX_NAME(x_int_slow)(struct fx *c, uint32_t type,
									      uint32_t nullable, int64_t *out,
									      uint32_t *present)
{
	struct fx t = *c;
	int64_t v = 0;
	uint32_t p = 0;
	int e = x_int_exact(&t, type, nullable, &v, &p);
	c->p = t.p; /* not k: it stays the known &ck, a stack address, not a value to keep */
	c->mr = t.mr;
	c->pm = t.pm;
	FX_NAME(x_refill)(c);
	*out = v;
	*present = p;
	return e;
}

static FX_TARGET inline __attribute__((always_inline)) int FX_NAME(x_ascii_slow)(struct fx *c, uint32_t nullable,
										uint8_t *dst, uint32_t *len,
										uint32_t *present)
{
	struct fx t = *c;
	uint32_t l = 0, p = 0;
	int e = x_ascii_exact(&t, nullable, dst, &l, &p);
	c->p = t.p; /* not k: it stays the known &ck, a stack address, not a value to keep */
	c->mr = t.mr;
	c->pm = t.pm;
	FX_NAME(x_refill)(c);
	*len = l;
	*present = p;
	return e;
}

/* The presence map: up to 8 bytes on the word path, left-aligned in c->pm
 * (zeros below its 7n bits); overlong when its last byte is 0x80 (a last
 * group of zeros after the first byte). */
static FX_TARGET inline __attribute__((always_inline)) int FX_NAME(x_pmap)(struct fx *c)
{
	uint32_t z = FX_TZ(c->mr);
	uint64_t g;
	if (UNLIKELY(z >= 8))
		return FX_NAME(x_pmap_slow)(c);
	g = FX_NAME(x_groups)(c->p);
	if (UNLIKELY(z != 0 && ((g >> x_sh[z]) & 0x7f) == 0))
		c->k->warn |= 1u << FAST_E_OVERLONG_PMAP;
	c->pm = g & (~0ull << x_sh[z]); /* pmlo stays 0 (fastx_rec) */
	c->p += z + 1;
	c->mr >>= z + 1;
	return FAST_OK;
}

/* read_int of the reference's word path: the integer of the z + 1 bytes at
 * c->p (z < the type's maxn), nullable or not.
 *
 * The field's bytes are gathered left-aligned (x_groups: the field's 7n
 * bits on top, the next bytes' below), so one shift right (arithmetic for
 * signed types: the sign is the first group's bit 6, now bit 63) leaves the
 * value, and the reference's overlong rule is a look at the top bits: an
 * unsigned field starting 0x00, or a signed one whose first group and the
 * next group's top bit are all equal (0x00 then bit 6 clear, 0x7f then bit 6
 * set). */
static FX_TARGET inline __attribute__((always_inline)) int FX_NAME(x_int_word)(struct fx *c, uint32_t z,
									      uint32_t is_signed, uint32_t nullable,
									      int64_t *out, uint32_t *present)
{
	uint64_t g, v;
	g = FX_NAME(x_groups)(c->p);
	if (is_signed) {
		v = (uint64_t)((int64_t)g >> x_sh[z]);
		if (UNLIKELY(z != 0 && (uint64_t)(((int64_t)g >> 56) + 1) <= 1))
			c->k->warn |= 1u << FAST_E_OVERLONG_INT;
	} else {
		v = g >> x_sh[z];
		if (UNLIKELY(z != 0 && (g >> 57) == 0))
			c->k->warn |= 1u << FAST_E_OVERLONG_INT;
	}
	c->p += z + 1;
	c->mr >>= z + 1;
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

/* An integer not on the word path at the window as it stands: an empty
 * window is refilled and the word path taken when the field fits it, else
 * the exact reader. Out of line (cold), on a copy of the cursor: inlined,
 * its loads (the input's end, the op's wire type) were hoisted onto the
 * common path of every integer field (callgrind). The wire type is tfix, or
 * o->type when tfix < 0. */
static FX_TARGET __attribute__((noinline, cold)) int FX_NAME(x_int_cold)(struct fx *c, const struct fastx_op *o,
									 int32_t tfix, uint32_t maxn,
									 uint32_t is_signed, uint32_t nullable,
									 int64_t *out, uint32_t *present)
{
	uint32_t type = tfix >= 0 ? (uint32_t)tfix : o->type;
	if (c->mr == 0 && (c->k->end - c->p >= (ptrdiff_t)FX_SAFE || c->k->pad)) {
		FX_NAME(x_refill)(c);
		if (c->mr != 0 && FX_TZ(c->mr) < maxn)
			return FX_NAME(x_int_word)(c, FX_TZ(c->mr), is_signed, nullable, out, present);
	}
	return FX_NAME(x_int_slow)(c, type, nullable, out, present);
}

/* read_int of the reference: integer of wire type tfix (o->type when
 * tfix < 0; maxn and sgn: what the type implies), nullable or not. tzcnt of
 * an empty window is 64, which the length test sends to the cold path with
 * the long fields. */
static FX_TARGET inline __attribute__((always_inline)) int FX_NAME(x_int)(struct fx *c, const struct fastx_op *o,
									 int32_t tfix, uint32_t maxn,
									 uint32_t is_signed, uint32_t nullable,
									 int64_t *out, uint32_t *present)
{
	uint32_t z = FX_TZ(c->mr);
	if (UNLIKELY(z >= maxn)) {
		struct fx t = *c;
		int64_t v = 0;
		uint32_t pr = 0;
		int e = FX_NAME(x_int_cold)(&t, o, tfix, maxn, is_signed, nullable, &v, &pr);
		c->p = t.p; /* not k: it stays the known &ck (x_pmap_slow) */
		c->mr = t.mr;
		c->pm = t.pm;
		*out = v;
		*present = pr;
		return e;
	}
	return FX_NAME(x_int_word)(c, z, is_signed, nullable, out, present);
}

/* The clean (7-bit) bytes of an n-byte string (1 <= n <= FAST_MAX_STR) in
 * whole words: dst has room up to n rounded up to 8 (sb[], a dictionary
 * entry's s[]); one word for the common short string (codes, security ids). */
static inline __attribute__((always_inline)) void FX_NAME(x_wcopy)(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint32_t i;
	for (i = 0;; i += 8) {
		uint64_t w = x_ld8(src + i) & 0x7f7f7f7f7f7f7f7fULL;
		memcpy(dst + i, &w, 8);
		if (LIKELY(i + 8 >= n))
			break;
	}
}

/* Whether x_ascii takes a string of n bytes (x_span) at p on its word path. */
#define FX_ASCII_WORD(n, p) ((n) != 0 && (n) <= FAST_MAX_STR && (p)[0] != 0x00 && (p)[0] != 0x80)

/* An ASCII string into sb[] (clean 7-bit bytes; sb has room for 64 + 8). */
static FX_TARGET inline __attribute__((always_inline)) int FX_NAME(x_ascii)(struct fx *c, uint32_t nullable,
									   uint8_t *sb, uint32_t *len,
									   uint32_t *present)
{
	uint32_t n = FX_NAME(x_span)(c);
	/* a stop bit in the window is within the input (a padded copy has no
	 * stop bits past its end), so n bytes are there: no length test */
	if (UNLIKELY(!FX_ASCII_WORD(n, c->p)))
		return FX_NAME(x_ascii_slow)(c, nullable, sb, len, present);
	FX_NAME(x_wcopy)(sb, c->p, n);
	FX_NAME(x_eat)(c, n);
	*len = n;
	*present = 1;
	return FAST_OK;
}

/* Low n bytes of a word (n may exceed 8). */
static inline uint64_t FX_NAME(x_lowbytes)(uint64_t w, uint32_t n)
{
	return n >= 8 ? w : w & ((1ull << (8 * n)) - 1);
}

static FX_TARGET inline __attribute__((always_inline)) void FX_NAME(x_dict_str)(struct fast_dict_entry *e,
									       uint32_t gen, const uint8_t *s,
									       uint32_t n)
{
	uint32_t i;
	e->gen = gen;
	e->state = FAST_DICT_ASSIGNED;
	e->len = (uint8_t)n;
	if (s == e->s || n == 0)
		return;
	for (i = 0;; i += 8) {
		memcpy(e->s + i, s + i, 8);
		if (LIKELY(i + 8 >= n))
			break;
	}
}

/* The op's dictionary entry, from its precomputed byte offset. */
#define FX_DENT(dict, o) ((struct fast_dict_entry *)((dict) + (o)->doff))

/* One integer field; op and opt are constants in each dispatch case, the
 * wire type is the op's data. */
static FX_TARGET inline __attribute__((always_inline)) int
FX_NAME(x_fint)(struct fx *c, const struct fastx_op *o, uint8_t *dict, const uint32_t gen, const uint32_t op,
		const uint32_t opt, const int32_t tfix, const uint32_t maxn, const uint32_t sgn, int64_t *vp,
		uint32_t *pp)
{
	const uint32_t type = tfix >= 0 ? (uint32_t)tfix : o->type;
	struct fast_dict_entry *de;
	uint32_t st;
	int err;
	switch (op) {
	case XO_INT_NONE:
		return FX_NAME(x_int)(c, o, tfix, maxn, sgn, opt, vp, pp);
	case XO_INT_CONST:
		*pp = opt ? (c->pm & o->pmask) != 0 : 1;
		*vp = o->init;
		return FAST_OK;
	case XO_INT_DEFAULT:
		if (c->pm & o->pmask)
			return FX_NAME(x_int)(c, o, tfix, maxn, sgn, opt, vp, pp);
		if (o->has_init) {
			*pp = 1;
			*vp = o->init;
			return FAST_OK;
		}
		*pp = 0;
		return opt ? FAST_OK : FAST_E_MANDATORY_UNDEF;
	case XO_INT_COPY:
	case XO_INT_INCR:
		de = FX_DENT(dict, o);
		if (c->pm & o->pmask) {
			err = FX_NAME(x_int)(c, o, tfix, maxn, sgn, opt, vp, pp);
			if (UNLIKELY(err))
				return err;
			de->gen = gen;
			if (!opt || *pp) {
				de->state = FAST_DICT_ASSIGNED;
				de->i = *vp;
				de->exp = 0;
			} else {
				de->state = FAST_DICT_EMPTY;
			}
			return FAST_OK;
		}
		st = de->gen == gen ? de->state : FAST_DICT_UNDEF;
		if (LIKELY(st == FAST_DICT_ASSIGNED)) {
			int64_t v = op == XO_INT_INCR ? x_incr(type, de->i) : de->i;
			/* a wider field's value under a shared key: out of range, as the reference (fit) */
			if (UNLIKELY((type == XT_I32 && (v < -2147483648LL || v > 2147483647LL)) ||
				     (type == XT_U32 && (v < 0 || v > 4294967295LL))))
				return FAST_E_RANGE;
			de->i = v;
			*vp = v;
			*pp = 1;
			return FAST_OK;
		}
		if (st == FAST_DICT_UNDEF && o->has_init) {
			*vp = o->init;
			*pp = 1;
			de->gen = gen;
			de->state = FAST_DICT_ASSIGNED;
			de->i = o->init;
			de->exp = 0;
			return FAST_OK;
		}
		*pp = 0;
		if (st == FAST_DICT_UNDEF) {
			if (!opt)
				return FAST_E_MANDATORY_UNDEF;
			de->gen = gen;
			de->state = FAST_DICT_EMPTY;
			return FAST_OK;
		}
		return opt ? FAST_OK : FAST_E_MANDATORY_EMPTY;
	default: { /* XO_INT_DELTA */
		int64_t delta, base, v;
		de = FX_DENT(dict, o);
		err = FX_NAME(x_int)(c, o, XT_I64, 8, 1, opt, &delta, pp);
		if (UNLIKELY(err) || !*pp)
			return err;
		st = de->gen == gen ? de->state : FAST_DICT_UNDEF;
		if (st == FAST_DICT_ASSIGNED)
			base = de->i;
		else if (st == FAST_DICT_EMPTY)
			return FAST_E_MANDATORY_EMPTY;
		else
			base = o->has_init ? o->init : 0;
		if (type == XT_U64) {
			uint64_t r = (uint64_t)base + (uint64_t)delta;
			if (delta >= 0 ? r < (uint64_t)base : r > (uint64_t)base)
				return FAST_E_RANGE;
			v = (int64_t)r;
		} else if (__builtin_add_overflow(base, delta, &v) ||
			   (type == XT_I32 && (v < -2147483648LL || v > 2147483647LL)) ||
			   (type == XT_U32 && (v < 0 || v > 4294967295LL))) {
			return FAST_E_RANGE;
		}
		de->gen = gen;
		de->state = FAST_DICT_ASSIGNED;
		de->i = v;
		de->exp = 0;
		*vp = v;
		return FAST_OK;
	}
	}
}

/* One ASCII field into (*svp, *snp): sb, or the dictionary entry's bytes. */
static FX_TARGET inline __attribute__((always_inline)) int
FX_NAME(x_fstr)(struct fx *c, const struct fastx_op *o, uint8_t *dict, const uint32_t gen,
		const struct fast_prog *p, const uint32_t op, const uint32_t opt, uint8_t *sb, const uint8_t **svp,
		uint32_t *snp, uint32_t *pp)
{
	struct fast_dict_entry *de;
	uint32_t st;
	int err;
	switch (op) {
	case XO_STR_NONE:
		return FX_NAME(x_ascii)(c, opt, sb, snp, pp);
	case XO_STR_CONST:
		*pp = opt ? (c->pm & o->pmask) != 0 : 1;
		if (o->tbit) {
			memcpy(sb, p->pool + o->ioff, o->ilen);
			*snp = o->ilen;
		}
		return FAST_OK;
	case XO_STR_DEFAULT:
		if (c->pm & o->pmask)
			return FX_NAME(x_ascii)(c, opt, sb, snp, pp);
		if (o->has_init) {
			*pp = 1;
			memcpy(sb, p->pool + o->ioff, o->ilen);
			*snp = o->ilen;
			return FAST_OK;
		}
		*pp = 0;
		return opt ? FAST_OK : FAST_E_MANDATORY_UNDEF;
	default: /* XO_STR_COPY */
		de = FX_DENT(dict, o);
		if (c->pm & o->pmask) {
			uint32_t n = FX_NAME(x_span)(c);
			if (LIKELY(FX_ASCII_WORD(n, c->p))) {
				/* x_ascii's word path straight into the entry (one copy,
				 * not two); nothing is written where x_ascii would fail */
				FX_NAME(x_wcopy)(de->s, c->p, n);
				FX_NAME(x_eat)(c, n);
				de->gen = gen;
				de->state = FAST_DICT_ASSIGNED;
				de->len = (uint8_t)n;
				*svp = de->s;
				*snp = n;
				*pp = 1;
				return FAST_OK;
			}
			err = FX_NAME(x_ascii)(c, opt, sb, snp, pp);
			if (UNLIKELY(err))
				return err;
			if (*pp) {
				FX_NAME(x_dict_str)(de, gen, sb, *snp);
			} else {
				de->gen = gen;
				de->state = FAST_DICT_EMPTY;
			}
			return FAST_OK;
		}
		st = de->gen == gen ? de->state : FAST_DICT_UNDEF;
		if (LIKELY(st == FAST_DICT_ASSIGNED)) {
			*svp = de->s;
			*snp = de->len;
			*pp = 1;
			return FAST_OK;
		}
		if (st == FAST_DICT_UNDEF && o->has_init) {
			memcpy(sb, p->pool + o->ioff, o->ilen);
			*snp = o->ilen;
			*pp = 1;
			FX_NAME(x_dict_str)(de, gen, sb, o->ilen);
			return FAST_OK;
		}
		*pp = 0;
		if (st == FAST_DICT_UNDEF) {
			if (!opt)
				return FAST_E_MANDATORY_UNDEF;
			de->gen = gen;
			de->state = FAST_DICT_EMPTY;
			return FAST_OK;
		}
		return opt ? FAST_OK : FAST_E_MANDATORY_EMPTY;
	}
}

/* Threaded dispatch: every case ends by jumping straight to the next op's
 * label (a switch costs a bounds check and one shared, badly predicted
 * indirect jump per field; callgrind put it at ~7 instructions a field).
 * The labels are per copy: fastx_prog_new asks each copy for its table
 * (a call with fastx_x_probe as input, tested on the short-input path so
 * the common path has no extra test) and stores every op's label in the op (fastx_op.h[FX_SEL]). */
static const void *const *FX_NAME(x_tab);

/* Hand out the label table, decode nothing (cold: out of the hot function's way). */
__attribute__((noinline, cold)) static int FX_NAME(x_export)(const void *const *tab, uint32_t *used)
{
	__atomic_store_n(&FX_NAME(x_tab), tab, __ATOMIC_RELAXED); /* the same value from any thread */
	*used = 0;
	return FAST_OK;
}
#define FX_NEXT                                                                                         \
	do {                                                                                            \
		o++;                                                                                    \
		goto *o->h[FX_SEL];                                                                     \
	} while (0)
#define FX_L(op, opt, cls) fx_##op##_##opt##_##cls
#define FX_T(op, opt, cls) [XCODE3(op, opt, cls)] = &&FX_L(op, opt, cls),
#define FX_T4(op, opt) FX_T(op, opt, XWC_NONE) FX_T(op, opt, XWC_A) FX_T(op, opt, XWC_B) FX_T(op, opt, XWC_C)
#define FX_TO(op) FX_T4(op, 0) FX_T4(op, 1)

/* An integer case: decode, then (class A, B, C) the tick write when present;
 * the class fixes the wire type's (type, maxn, sgn) where it can (fastx_int.h). */
#define FX_CI1(op, opt, cls, tail)                                                                      \
	FX_L(op, opt, cls) :                                                                            \
	{                                                                                               \
		err = FX_NAME(x_fint)(&c, o, dict, gen, op, opt, cls == XWC_A ? (int32_t)XT_I32 : -1,     \
				      cls == XWC_A ? 4u : o->maxn, cls == XWC_A || cls == XWC_B ? 1u : o->sgn, \
				      &v, &present);                                                    \
		if (UNLIKELY(err))                                                                      \
			goto fail;                                                                      \
		tail;                                                                                   \
		FX_NEXT;                                                                                \
	}
#define FX_CI(op, opt)                                                                                  \
	FX_CI1(op, opt, XWC_NONE, (void)0)                                                              \
	FX_CI1(op, opt, XWC_A, if (present) { pres |= o->tbit; goto w_i32; })                           \
	FX_CI1(op, opt, XWC_B, if (present) { pres |= o->tbit; goto w_i64; })                           \
	FX_CI1(op, opt, XWC_C, if (present) { pres |= o->tbit; goto w_scaled; })
#define FX_CO(op) FX_CI(op, 0) FX_CI(op, 1)
#define FX_CS1(op, opt, cls, tail)                                                                      \
	FX_L(op, opt, cls) :                                                                            \
	{                                                                                               \
		sv = sb;                                                                                \
		sn = 0;                                                                                 \
		err = FX_NAME(x_fstr)(&c, o, dict, gen, ck.x->xp->p, op, opt, sb, &sv, &sn, &present);  \
		if (UNLIKELY(err))                                                                      \
			goto fail;                                                                      \
		tail;                                                                                   \
		FX_NEXT;                                                                                \
	}
/* strings have no class C (fastx_lower.c); its label decodes without a write */
#define FX_CS2(op, opt)                                                                                 \
	FX_CS1(op, opt, XWC_NONE, (void)0)                                                              \
	FX_CS1(op, opt, XWC_A, if (present) { pres |= o->tbit; goto w_char; })                          \
	FX_CS1(op, opt, XWC_B, if (present) { pres |= o->tbit; goto w_sid; })                           \
	FX_CS1(op, opt, XWC_C, (void)0)
#define FX_CS(op) FX_CS2(op, 0) FX_CS2(op, 1)

/* Copy a short input (n < FX_SAFE) into the zeroed pad: whole words, then the
 * last word again (overlapping) so the tail needs no byte loop. */
static inline __attribute__((always_inline)) void FX_NAME(x_padcopy)(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint32_t i;
	if (n < 8) {
		for (i = 0; i < n; i++)
			dst[i] = src[i];
		return;
	}
	for (i = 0; i + 8 < n; i += 8)
		memcpy(dst + i, src + i, 8);
	memcpy(dst + n - 8, src + n - 8, 8);
}

FX_NOSLP int FX_TARGET FX_NAME(fastx_rec)(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len,
				 uint64_t seq, uint32_t *used)
{
	const struct fastx_prog *xp = x->xp;
	const struct fastx_tpl *xt;
	const struct fastx_op *o;
	struct fast_dict_entry *te = &d->dict[FAST_DICT_TEMPLATE_ID];
	const uint32_t gen = d->gen;
	uint8_t *const dict = (uint8_t *)d->dict;
	struct fx c;
	struct fx_cold ck;
	union toe_record *tk = x->dst;
	uint8_t *sb = x->sbuf;
	int64_t tid;
	uint32_t present, pres = 0, bad = 0, e;
	int err, t;

	static const void *const fx_tab[XC_END + 1] = {
		FX_TO(XO_INT_NONE) FX_TO(XO_INT_CONST) FX_TO(XO_INT_COPY) FX_TO(XO_INT_DEFAULT)
		FX_TO(XO_INT_INCR) FX_TO(XO_INT_DELTA) FX_TO(XO_STR_NONE) FX_TO(XO_STR_CONST)
		FX_TO(XO_STR_COPY) FX_TO(XO_STR_DEFAULT)[XC_END] = &&done,
	};

	c.k = &ck;
	ck.used = used;
	ck.x = x;
	ck.d = d;
	ck.seq = seq;
	ck.b = b;
	c.p = b;
	ck.end = b + len;
	ck.warn = 0;
	ck.pmlo = 0;
	ck.pad = 0;
	if (UNLIKELY(len < FX_SAFE)) {
		/* a short input (the last record of a message): decoded from a
		 * zero-padded copy, so that every load in the window stays in
		 * bounds without a check per field */
		uint8_t *pad;
		if (UNLIKELY(b == fastx_x_probe)) /* fastx_x_tabs asks for the table */
			return FX_NAME(x_export)(fx_tab, used);
		pad = x->pbuf;
		FX_ZERO((union toe_record *)pad);
		FX_ZERO((union toe_record *)(pad + sizeof(union toe_record)));
		FX_NAME(x_padcopy)(pad, b, len);
		ck.b = pad;
		c.p = pad;
		ck.end = pad + len;
		ck.pad = 1;
	}
	c.mr = FX_MASK(c.p);

	err = FX_NAME(x_pmap)(&c);
	if (UNLIKELY(err))
		goto fail;
	if (c.pm >> 63) {
		err = FX_NAME(x_int)(&c, NULL, XT_U32, 4, 0, 0, &tid, &present);
		if (UNLIKELY(err))
			goto fail;
		t = fastx_find_fast(xp, (uint32_t)tid);
		if (UNLIKELY(t >= 0 && x->tref[t]))
			return fastx_fallback(x, d, b, len, seq, used); /* nothing changed yet */
		te->gen = gen;
		te->state = FAST_DICT_ASSIGNED;
		te->i = tid;
		te->exp = 0;
	} else if (te->gen == gen && te->state == FAST_DICT_ASSIGNED) {
		tid = te->i;
		t = fastx_find_fast(xp, (uint32_t)tid);
		if (UNLIKELY(t >= 0 && x->tref[t]))
			return fastx_fallback(x, d, b, len, seq, used);
	} else {
		err = FAST_E_MANDATORY_UNDEF;
		goto fail;
	}
	x->tid = (uint32_t)tid;
	x->used_fallback = 0;
	if (UNLIKELY(t < 0)) {
		err = FAST_E_UNKNOWN_TEMPLATE;
		goto fail;
	}
	x->tpl = (uint16_t)t;
	xt = &xp->tpl[t];
	FX_ZERO(tk);

	/* One case per (operator, nullability, tick-write class): the write
	 * into the tick record (fast_tick_map's rules, ABI 2, decided at load
	 * time) is compiled into the case. A value that does not fit sets its
	 * bit in bad (the field keeps what it held, 0; a string its first
	 * bytes); the record is still delivered. */
	{
		int64_t v = 0;
		const uint8_t *sv = sb;
		uint32_t sn = 0;
		o = &xp->ops[xt->first];
		goto *o->h[FX_SEL];
		FX_CO(XO_INT_NONE)
		FX_CO(XO_INT_CONST)
		FX_CO(XO_INT_COPY)
		FX_CO(XO_INT_DEFAULT)
		FX_CO(XO_INT_INCR)
		FX_CO(XO_INT_DELTA)
		FX_CS(XO_STR_NONE)
		FX_CS(XO_STR_CONST)
		FX_CS(XO_STR_COPY)
		FX_CS(XO_STR_DEFAULT)
	w_scaled:
		/* class C (rare): rescaled when the tick field's decimals differ
		 * from the template's, then its 32- or 64-bit write */
		if (o->rescale) {
			int64_t r; /* not &v: an escaping address would keep v in memory in every case */
			if (x_rescale(v, o->src_dec, o->dst_dec, &r) != 0) {
				bad |= o->tbit;
				FX_NEXT;
			}
			v = r;
		}
		if (o->tw == XW_I64)
			goto w_i64;
		/* fall through: XW_I32 */
	w_i32:
		if (UNLIKELY((uint64_t)v + 2147483648ULL > 4294967295ULL)) {
			bad |= o->tbit;
			FX_NEXT;
		}
		{
			int32_t w = (int32_t)v;
			memcpy(tk->bytes + o->toff, &w, 4);
		}
		FX_NEXT;
	w_i64:
		memcpy(tk->bytes + o->toff, &v, 8);
		FX_NEXT;
	w_char: {
		/* TOE_FLAG_LEN bytes, NUL-padded; longer codes are cut and flagged */
		uint64_t w;
		_Static_assert(TOE_FLAG_LEN == 8, "a code field is one 64-bit word");
		memcpy(&w, sv, 8);
		w = FX_NAME(x_lowbytes)(w, sn);
		memcpy(tk->bytes + o->toff, &w, 8);
		if (UNLIKELY(sn > TOE_FLAG_LEN))
			bad |= o->tbit;
		FX_NEXT;
	}
	w_sid: {
		/* at most LEN-1 characters (the id stays NUL-terminated); longer ids are cut and flagged */
		uint64_t w0, w1;
		uint32_t n = sn;
		if (UNLIKELY(n >= TOE_SECURITY_ID_LEN)) {
			n = TOE_SECURITY_ID_LEN - 1;
			bad |= o->tbit;
		}
		memcpy(&w0, sv, 8);
		memcpy(&w1, sv + 8, 8);
		w0 = FX_NAME(x_lowbytes)(w0, n);
		w1 = n > 8 ? FX_NAME(x_lowbytes)(w1, n - 8) : 0;
		memcpy(tk->bytes + o->toff, &w0, 8);
		memcpy(tk->bytes + o->toff + 8, &w1, 8);
		FX_NEXT;
	}
	}
done:
	/* xp and xt are not kept across the op list (fewer live words there) */
	xt = &ck.x->xp->tpl[ck.x->tpl];
	if (UNLIKELY(((c.pm & ~xt->used) | ck.pmlo) != 0)) {
		err = FAST_E_PMAP_EXTRA;
		goto fail;
	}
	*ck.used = (uint32_t)(c.p - ck.b);
	ck.x->warn = ck.warn;
	if (UNLIKELY(ck.warn)) {
		for (e = 0; e < FAST_ERR_COUNT; e++)
			if (ck.warn & (1u << e))
				ck.d->errors[e]++;
	}
	ck.d->records++;
	ck.x->fast++;
	if (xt->kind == TOE_REC_NONE) {
		ck.x->tick_type = TOE_REC_NONE;
	} else {
		tk->hdr.type = xt->kind;
		tk->hdr.present = pres;
		tk->hdr.msg_seq = ck.seq;
		tk->hdr.bad_fields = bad;
		tk->hdr.flags = (uint16_t)((bad ? TOE_RF_RANGE : 0) | (ck.warn ? TOE_RF_WARN : 0));
		ck.x->tick_type = xt->kind;
	}
	return FAST_OK;

fail:
	*ck.used = (uint32_t)(c.p - ck.b);
	ck.x->warn = ck.warn;
	ck.x->tick_type = TOE_REC_NONE;
	if (ck.warn) {
		for (e = 0; e < FAST_ERR_COUNT; e++)
			if (ck.warn & (1u << e))
				ck.d->errors[e]++;
	}
	ck.d->errors[err < FAST_ERR_COUNT ? err : 0]++;
	return err;
}

#undef FX_NEXT
#undef FX_ASCII_WORD
#undef FX_DENT
#undef FX_L
#undef FX_T
#undef FX_T4
#undef FX_TO
#undef FX_CI1
#undef FX_CI
#undef FX_CO
#undef FX_CS1
#undef FX_CS2
#undef FX_CS
#undef FX_NAME
#undef FX_TARGET
#undef FX_MASK
#undef FX_GATHER
#undef FX_TZ
#undef FX_SEL
#undef FX_ZERO
