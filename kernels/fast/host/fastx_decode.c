/* fastx_decode.c - the specialised record decoder, one copy per instruction set (host only).
 *
 * The decoder body lives in fastx_body.h and is included once per level
 * with its own __attribute__((target)) (scalar; AVX2 with and without pext;
 * AVX-512BW with and without pext), so no global -mavx flag is needed and
 * every copy is bit-exact with the others: only how the 64-bit stop-bit
 * window is computed and how 7-bit groups are gathered differ.
 *
 * What the common path does not take (integers longer than 4 / 8 bytes,
 * special string forms, presence maps longer than 8 bytes, fields that run
 * past the end of the input) goes to the reference's own exact readers
 * (fast/fast_read_exact.h: integers, strings, presence maps), so the two
 * decoders cannot disagree on the edge cases the vectors and the
 * differential fuzzer (tests/fuzz/fuzz_fastx_diff.c) probe.
 */
#include <stddef.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "fastx_int.h"
#include "fast/fast_tick.h"
#include "fast/fast_tick_dec.h"

/* The cold part of a record's decoder state: read on rare paths only, so it
 * lives in memory (a stack object whose address the exact readers get) and
 * its words do not compete for registers with the hot ones (callgrind: with
 * b, end and warn in callee-saved registers the presence map and the tick
 * pointer were spilled and reloaded at every field). */
struct fx_cold {
	const uint8_t *b;    /* the record's first byte (in the padded copy of a short input) */
	const uint8_t *end;  /* b + len */
	uint32_t warn;
	uint32_t pad;        /* b is a zero-padded copy (FX_PADBUF bytes) of a short input */
	uint64_t pmlo;       /* presence bits beyond the first 64 (a long map): all extra */
	uint32_t *used;      /* the caller's */
	struct fastx_dec *x; /* the arguments, read from here after the op list (fewer live words in it) */
	struct fast_dec *d;
	uint64_t seq;
};

/* Decoder state of one record (fastx_body.h): p, mr and pm are the hot
 * words; k points at the rest. */
struct fx {
	const uint8_t *p;    /* the next byte */
	uint64_t mr;         /* stop bits from p to the end of the window (fastx_body.h) */
	uint64_t pm;         /* presence map, next bits left-aligned; bit 63 = template id */
	struct fx_cold *k;
};

/* A window is taken at pos only when FX_SAFE bytes follow it: 64 of stop
 * bits and 8 more for the word load of a field that ends at the window's
 * last byte. A shorter input is copied into FX_PADBUF zeroed bytes, enough
 * for a window at any of its positions. */
#define FX_SAFE 72u
#define FX_PADBUF FASTX_PADBUF /* >= 2 * FX_SAFE, cleared as two tick records */
_Static_assert(FX_PADBUF >= 2 * FX_SAFE && FX_PADBUF == 2 * sizeof(union toe_record),
	       "a window at any position of a short input");
_Static_assert(FASTX_SBUF >= FAST_MAX_STR + 16, "a string and its last word load");

/* GCC's SLP vectoriser packed cursor fields into a vector register at every
 * field of the op loop (5 instructions per field, callgrind). Code hoisting
 * and partial redundancy elimination moved loads that only rare paths need
 * (the template pool of a string op, an op's wire type) up onto every
 * field's common path, where they took registers the hot words then lacked
 * (without both: AVX2+pext 696 -> 666 instructions a record). clang has no
 * such attribute and needs none. */
#if defined(__GNUC__) && !defined(__clang__)
#define FX_NOSLP __attribute__((optimize("no-tree-slp-vectorize", "no-code-hoisting", "no-tree-pre")))
#else
#define FX_NOSLP
#endif

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- exact readers (the reference's rules, for everything uncommon) ---- */

__attribute__((noinline)) static int x_pmap_exact(struct fx *c)
{
	uint32_t pos = (uint32_t)(c->p - c->k->b);
	int e = fast_pmap_exact(c->k->b, (uint32_t)(c->k->end - c->k->b), &pos, &c->k->warn, &c->pm, &c->k->pmlo);
	c->p = c->k->b + pos;
	return e;
}

__attribute__((noinline)) static int x_int_exact(struct fx *c, uint32_t type, uint32_t nullable, int64_t *out,
						 uint32_t *present)
{
	uint32_t pos = (uint32_t)(c->p - c->k->b);
	int e = fast_int_exact(c->k->b, (uint32_t)(c->k->end - c->k->b), &pos, &c->k->warn, type, nullable, out, present);
	c->p = c->k->b + pos;
	return e;
}

/* dst gets the clean (7-bit) bytes. */
__attribute__((noinline)) static int x_ascii_exact(struct fx *c, uint32_t nullable, uint8_t *dst, uint32_t *len,
						   uint32_t *present)
{
	uint32_t pos = (uint32_t)(c->p - c->k->b);
	int e = fast_ascii_exact(c->k->b, (uint32_t)(c->k->end - c->k->b), &pos, &c->k->warn, nullable, dst, len, present);
	c->p = c->k->b + pos;
	return e;
}

/* ---- arithmetic shared by every copy (the reference's rules) ---- */

/* fast_tick_dec.h's fast_rescale, out of line: rescaling is rare on the record path. */
__attribute__((noinline)) static int x_rescale(int64_t v, int32_t src_dec, int32_t dst_dec, int64_t *out)
{
	return fast_rescale(v, src_dec, dst_dec, out);
}

static inline int64_t x_incr(uint32_t type, int64_t v)
{
	switch (type) {
	/* v may be a wider field's value under a shared key: no signed overflow at INT64_MAX (the reference's incr) */
	case XT_I32: return v == 2147483647LL ? -2147483648LL : (int64_t)((uint64_t)v + 1);
	case XT_U32: return v == 4294967295LL ? 0 : (int64_t)((uint64_t)v + 1);
	default: return (int64_t)((uint64_t)v + 1);
	}
}

/* 64 - 7n for a field of n = z + 1 bytes (z < 8): the shift that leaves the
 * value of a left-aligned gather (fastx_body.h x_int); a load is cheaper
 * than the multiply and subtract. */
static const uint8_t x_sh[8] = {57, 50, 43, 36, 29, 22, 15, 8};

static inline uint32_t x_tz_c(uint64_t m)
{
	return m ? (uint32_t)__builtin_ctzll(m) : 64;
}

static inline uint64_t x_ld8(const uint8_t *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* The portable gather of eight 7-bit groups (group 0 in the low byte). */
static inline uint64_t x_gather_swar(uint64_t w)
{
	w = (w & 0x007f007f007f007fULL) | ((w & 0x7f007f007f007f00ULL) >> 1);
	w = (w & 0x00003fff00003fffULL) | ((w & 0x3fff00003fff0000ULL) >> 2);
	return (w & 0x000000000fffffffULL) | ((w & 0x0fffffff00000000ULL) >> 4);
}

/* Stop bits of 64 bytes, portable: the high bit of each byte gathered with
 * one multiply per 8 bytes. */
static inline uint64_t x_mask_swar(const uint8_t *p)
{
	uint64_t m = 0;
	uint32_t i;
	for (i = 0; i < 8; i++) {
		uint64_t w = (x_ld8(p + 8 * i) & 0x8080808080808080ULL) >> 7;
		m |= ((w * 0x0102040810204080ULL) >> 56) << (8 * i);
	}
	return m;
}

#if defined(__x86_64__)
__attribute__((target("avx2"), always_inline)) static inline uint64_t x_mask_avx2(const uint8_t *p)
{
	__m256i a = _mm256_loadu_si256((const __m256i *)p);
	__m256i b = _mm256_loadu_si256((const __m256i *)(p + 32));
	return (uint64_t)(uint32_t)_mm256_movemask_epi8(a) | ((uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32);
}

__attribute__((target("avx512f,avx512bw"), always_inline)) static inline uint64_t x_mask_avx512(const uint8_t *p)
{
	return (uint64_t)_mm512_movepi8_mask(_mm512_loadu_si512((const void *)p));
}

/* The tick record cleared with four 32-byte stores: memset of 128 bytes
 * became `rep stos` (a slow start for so few bytes). The AVX-512 copy uses
 * them too: two 64-byte stores measured no faster here, and keeping zmm
 * use to the one mask compare spares the wide-vector frequency penalty. */
__attribute__((target("avx2"), always_inline)) static inline void x_zero_avx2(union toe_record *tk)
{
	__m256i z = _mm256_setzero_si256();
	_mm256_storeu_si256((__m256i *)tk->bytes, z);
	_mm256_storeu_si256((__m256i *)(tk->bytes + 32), z);
	_mm256_storeu_si256((__m256i *)(tk->bytes + 64), z);
	_mm256_storeu_si256((__m256i *)(tk->bytes + 96), z);
}

/* tzcnt (BMI1, which every AVX2 CPU has; fastx_isa_max checks): 64 for an
 * empty window with no separate test, where ctz would need one. */
__attribute__((target("bmi"), always_inline)) static inline uint32_t x_tz_bmi(uint64_t m)
{
	return (uint32_t)_tzcnt_u64(m);
}

__attribute__((target("bmi2"), always_inline)) static inline uint64_t x_gather_pext(uint64_t w)
{
	return _pext_u64(w, 0x7f7f7f7f7f7f7f7fULL);
}
#endif

/* ---- the fallback: the reference itself ---- */

int fastx_fallback(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		   uint32_t *used)
{
	int err = fast_dec_record(d, b, len, used, x->scratch);
	x->used_fallback = 1;
	x->fallback++;
	x->warn = x->scratch->warn;
	x->tid = x->scratch->tid;
	x->tpl = x->scratch->tpl;
	if (x->tpl < FAST_MAX_TEMPLATES && x->kref[x->tpl])
		x->key_fallback++;
	x->tick_type = TOE_REC_NONE;
	if (err != FAST_OK)
		return err;
	x->tick_type = fast_tick_map(d->prog, x->scratch, seq, x->dst);
	return FAST_OK;
}

/* ---- one copy of the body per instruction set ---- */

/* The input that makes a copy hand out its label table (fastx_x_tabs). */
static const uint8_t fastx_x_probe[1];

#define FX_NAME(n) n##_scalar
#define FX_SEL FASTX_SEL_SCALAR
#define FX_TARGET
#define FX_MASK(p) x_mask_swar(p)
#define FX_GATHER(w) x_gather_swar(w)
#define FX_TZ(m) x_tz_c(m)
#define FX_ZERO(tk) memset(tk, 0, sizeof *tk)
#include "fastx_body.h"

#if defined(__x86_64__)
#define FX_NAME(n) n##_avx2
#define FX_SEL FASTX_SEL_AVX2
#define FX_TARGET __attribute__((target("avx2,bmi")))
#define FX_MASK(p) x_mask_avx2(p)
#define FX_GATHER(w) x_gather_swar(w)
#define FX_TZ(m) x_tz_bmi(m)
#define FX_ZERO(tk) x_zero_avx2(tk)
#include "fastx_body.h"

#define FX_NAME(n) n##_avx2_pext
#define FX_SEL FASTX_SEL_AVX2_PEXT
#define FX_TARGET __attribute__((target("avx2,bmi,bmi2")))
#define FX_MASK(p) x_mask_avx2(p)
#define FX_GATHER(w) x_gather_pext(w)
#define FX_TZ(m) x_tz_bmi(m)
#define FX_ZERO(tk) x_zero_avx2(tk)
#include "fastx_body.h"

#define FX_NAME(n) n##_avx512
#define FX_SEL FASTX_SEL_AVX512
#define FX_TARGET __attribute__((target("avx2,bmi,avx512f,avx512bw")))
#define FX_MASK(p) x_mask_avx512(p)
#define FX_GATHER(w) x_gather_swar(w)
#define FX_TZ(m) x_tz_bmi(m)
#define FX_ZERO(tk) x_zero_avx2(tk)
#include "fastx_body.h"

#define FX_NAME(n) n##_avx512_pext
#define FX_SEL FASTX_SEL_AVX512_PEXT
#define FX_TARGET __attribute__((target("avx2,bmi,avx512f,avx512bw,bmi2")))
#define FX_MASK(p) x_mask_avx512(p)
#define FX_GATHER(w) x_gather_pext(w)
#define FX_TZ(m) x_tz_bmi(m)
#define FX_ZERO(tk) x_zero_avx2(tk)
#include "fastx_body.h"
#else
/* other architectures: every level is the portable one */
int fastx_rec_avx2(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		   uint32_t *used)
{
	return fastx_rec_scalar(x, d, b, len, seq, used);
}
int fastx_rec_avx2_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
			uint32_t *used)
{
	return fastx_rec_scalar(x, d, b, len, seq, used);
}
int fastx_rec_avx512(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		     uint32_t *used)
{
	return fastx_rec_scalar(x, d, b, len, seq, used);
}
int fastx_rec_avx512_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
			  uint32_t *used)
{
	return fastx_rec_scalar(x, d, b, len, seq, used);
}
#endif

void fastx_x_tabs(const void *const *tabs[FASTX_NSEL])
{
	static struct fastx_dec dummy;
	static struct fast_dec dd;
	uint32_t used;
	int max = fastx_isa_max(), bmi2 = 0, k;
	for (k = 0; k < FASTX_NSEL; k++)
		tabs[k] = NULL;
	fastx_rec_scalar(&dummy, &dd, fastx_x_probe, 0, 0, &used);
	tabs[FASTX_SEL_SCALAR] = __atomic_load_n(&x_tab_scalar, __ATOMIC_RELAXED);
#if defined(__x86_64__)
	__builtin_cpu_init();
	bmi2 = __builtin_cpu_supports("bmi2");
	if (max >= FASTX_ISA_AVX2) {
		fastx_rec_avx2(&dummy, &dd, fastx_x_probe, 0, 0, &used);
		tabs[FASTX_SEL_AVX2] = __atomic_load_n(&x_tab_avx2, __ATOMIC_RELAXED);
		if (bmi2) {
			fastx_rec_avx2_pext(&dummy, &dd, fastx_x_probe, 0, 0, &used);
			tabs[FASTX_SEL_AVX2_PEXT] = __atomic_load_n(&x_tab_avx2_pext, __ATOMIC_RELAXED);
		}
	}
	if (max >= FASTX_ISA_AVX512) {
		fastx_rec_avx512(&dummy, &dd, fastx_x_probe, 0, 0, &used);
		tabs[FASTX_SEL_AVX512] = __atomic_load_n(&x_tab_avx512, __ATOMIC_RELAXED);
		if (bmi2) {
			fastx_rec_avx512_pext(&dummy, &dd, fastx_x_probe, 0, 0, &used);
			tabs[FASTX_SEL_AVX512_PEXT] = __atomic_load_n(&x_tab_avx512_pext, __ATOMIC_RELAXED);
		}
	}
#else
	(void)max;
	(void)bmi2;
	for (k = 1; k < FASTX_NSEL; k++)
		tabs[k] = tabs[FASTX_SEL_SCALAR]; /* every level is the portable copy */
#endif
}

void fastx_dec_init(struct fastx_dec *x, const struct fastx_prog *xp, struct fast_rec *scratch)
{
	uint32_t t;
	memset(x, 0, sizeof *x);
	x->xp = xp;
	x->scratch = scratch;
	x->dst = &x->tick;
	for (t = 0; t < FAST_MAX_TEMPLATES; t++)
		x->tref[t] = !xp->tpl[t].ok;
	fastx_vhome_build(x);
}

/* The copies by fastx_sel (isa * 2 + pext; scalar has no pext copy): one
 * load and an indirect tail call per record, where a switch cost a bounds
 * check and a jump table (callgrind: 11 instructions a record). */
static fastx_rec_fn *const fastx_fns[8] = { /* 8: indexed by sel & 7 */
	[FASTX_SEL_SCALAR] = fastx_rec_scalar,    [FASTX_SEL_SCALAR + 1] = fastx_rec_scalar,
	[FASTX_SEL_AVX2] = fastx_rec_avx2,        [FASTX_SEL_AVX2_PEXT] = fastx_rec_avx2_pext,
	[FASTX_SEL_AVX512] = fastx_rec_avx512,    [FASTX_SEL_AVX512_PEXT] = fastx_rec_avx512_pext,
	[FASTX_SEL_VBMI] = fastx_rec_vbmi,        [FASTX_SEL_VBMI_PEXT] = fastx_rec_vbmi_pext,
};
_Static_assert(FASTX_NSEL <= 8, "fastx_fns");

int fastx_record_isa(int isa, int pext, struct fastx_dec *x, struct fast_dec *d, const uint8_t *buf, uint32_t len,
		     uint64_t msg_seq, uint32_t *used)
{
	int sel = isa > FASTX_ISA_SCALAR && isa < FASTX_ISA_COUNT ? isa * 2 + !!pext : FASTX_SEL_SCALAR;
	return fastx_fns[sel](x, d, buf, len, msg_seq, used);
}

int fastx_record(struct fastx_dec *x, struct fast_dec *d, const uint8_t *buf, uint32_t len, uint64_t msg_seq,
		 uint32_t *used)
{
	int sel = fastx_sel;
	if (UNLIKELY(sel < 0))
		sel = fastx_sel_init();
	return fastx_fns[sel & 7](x, d, buf, len, msg_seq, used);
}
