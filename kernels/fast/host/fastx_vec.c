/* fastx_vec.c - the VBMI level: a whole record decoded in vector registers (host only).
 *
 * The AVX2 body (fastx_body.h) walks a record field by field: per field a
 * presence-bit branch, a stop-bit length and a gather; with presence bits
 * that change from record to record those branches are mispredicted, and
 * the walk is a dependency chain through the cursor. Here the fields of a
 * record are handled side by side, one 64-bit lane per field slot
 * (fastx_vlower.c), with no branch on any field:
 *   - the record's (up to) 64 bytes in one register; their stop bits; the
 *     ends and starts of the 1st, 2nd, ... field that has bytes with
 *     vpcompressb over an index vector, moved to their slots with vpexpandb
 *     (which slots have bytes is the presence map read with vpshufbitqmb);
 *   - each slot's bytes gathered into its lane with vpermb (integers byte
 *     reversed, so the last 7-bit group is the low one; strings as they
 *     are), the 7-bit groups packed with shifts and selects;
 *   - sign, nullability, overlong forms, operators, dictionary values
 *     (vpgatherqq) as lane masks; the tick record written with two vpermt2b.
 * Whatever the lanes cannot hold exactly as the reference would decode it
 * (a field longer than its lane, an overlong form, an undefined or empty
 * dictionary entry, a 32-bit value out of range, a record that ends past
 * 64 bytes or past its input, an unknown template...) sends the record,
 * untouched, to the AVX2 body, which then does everything the reference
 * does (errors, offsets, warnings). Only records with nothing to report are
 * committed here, so nothing but the tick record, the dictionary entries,
 * *used and the counters is ever written.
 */
#include <stddef.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "fastx_run.h"

/* The entry's words written together (v_rec's dictionary stores). */
_Static_assert(offsetof(struct fast_dict_entry, i) == 0 && offsetof(struct fast_dict_entry, exp) == 8 &&
		       offsetof(struct fast_dict_entry, gen) == 12 && offsetof(struct fast_dict_entry, state) == 16 &&
		       offsetof(struct fast_dict_entry, len) == 17 && offsetof(struct fast_dict_entry, s) == 18 &&
		       FAST_MAX_STR >= 8,
	       "fast_dict_entry layout");

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#if defined(__x86_64__)

#define VTGT __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx512bitalg,bmi,bmi2,popcnt,tune=icelake-server")))
#define VT VTGT __attribute__((always_inline)) static inline

/* Uniform constants, read as memory broadcasts: vpbroadcastq from memory
 * takes a load port only, where the compiler's own choice (a mov of the
 * immediate, then vpbroadcast from the register) costs a shuffle-port uop
 * each, on the port the record's permutes, compresses and expands already
 * crowd. K() reads the table through a pointer the compiler cannot see
 * through, so that it does not fold the value back into an immediate. */
enum { K_B8, K_ONE, K_7F8, K_7F16, K_14, K_28, K_7F64, K_FF, K_40B, K_8, K_HI32, K_408, K_018, K_N };
static const uint64_t v_k[K_N] __attribute__((aligned(64))) = {
	[K_B8] = 0x0706050403020100ULL, [K_ONE] = 1, [K_7F8] = 0x7f7f7f7f7f7f7f7fULL,
	[K_7F16] = 0x007f007f007f007fULL, [K_14] = 0x00003fff00003fffULL, [K_28] = 0x0fffffff,
	[K_7F64] = 0x7f, [K_FF] = 0xff, [K_40B] = 0xffffffffffULL, [K_8] = 8, [K_HI32] = 0xffffffff00000000ULL,
	[K_408] = 0x4040404040404040ULL, [K_018] = 0x0101010101010101ULL,
};
#define K(kp, i) _mm512_set1_epi64((long long)(kp)[i])
#define KP(kp) const uint64_t *kp = v_k; __asm__("" : "+r"(kp))

/* 64 bytes of a table into a register. An index vector loaded with
 * _mm512_loadu_si512 (an index operand must be a register) was stored to
 * the stack and loaded back by GCC 12 before its use: two instructions and
 * a store forward on the record's path. */
VT __m512i v_ld(const void *p)
{
	__m512i v;
	__asm__("vmovdqu64 %1, %0" : "=v"(v) : "m"(*(const uint8_t(*)[64])p));
	return v;
}

/* A slot mask's 8-slot half h: a byte load (little-endian), not a shift. */
#define MH(m, h) ((__mmask8)((const uint8_t *)&(m))[h])

/* Per 8-slot half h: byte 8q + b of the result is byte 8h + q of the source
 * (a slot's byte-wide fact spread over its lane). */
static const uint8_t v_spread[2][64] __attribute__((aligned(64))) = {
#define S8(q) q, q, q, q, q, q, q, q
	{S8(0), S8(1), S8(2), S8(3), S8(4), S8(5), S8(6), S8(7)},
	{S8(8), S8(9), S8(10), S8(11), S8(12), S8(13), S8(14), S8(15)},
#undef S8
};

/* 64 - 7n for a field of n bytes (n <= 8; 64 for an empty lane): the shift
 * that sign-extends its 7n-bit value (vpshufb table). */
static const uint8_t v_sext[16] __attribute__((aligned(16))) = {64, 57, 50, 43, 36, 29, 22, 15, 8, 64, 64, 64, 64, 64, 64, 64};

/* The lanes of one 8-slot half: bytes gathered and turned into values.
 * bse: the slots' end bytes (0..15) and start bytes (16..31); l their
 * lengths, sx the sign-extension shifts. Returns the lanes; *bad gets the
 * strings in a special form; *nul the nullable integers sent as NULL; *lq
 * the wire lengths per lane. (Overlong integers are found in the record's
 * bytes, v_rec.) */
VT __m512i v_half(const struct fastx_vtpl *vt, int h, __m512i in, __m512i bse, __m128i l, __m128i sx, __mmask8 w,
		  __mmask8 *bad, __mmask8 *nul, __m512i *lq)
{
	KP(kp);
	const __m512i spread = _mm512_load_si512((const void *)v_spread[h]);
	const __m512i b8 = K(kp, K_B8); /* byte index within a lane */
	const __m512i one = K(kp, K_ONE), z = _mm512_setzero_si512();
	const __mmask8 mint = MH(vt->m_int, h), msgn = MH(vt->m_sgn, h);
	const __mmask8 mstr = MH(vt->m_str, h), mnul = MH(vt->m_null, h);
	/* integers from their last byte backwards, strings from their first
	 * (the per-template spread and step tables, fastx_vlower.c) */
	__m512i idx = _mm512_add_epi8(_mm512_permutexvar_epi8(v_ld(vt->spr[h]), bse),
				      _mm512_loadu_si512((const void *)vt->dlt[h]));
	__mmask64 valid = _mm512_cmplt_epu8_mask(b8, _mm512_permutexvar_epi8(spread, _mm512_castsi128_si512(l)));
	__m512i g = _mm512_and_si512(_mm512_maskz_permutexvar_epi8(valid, idx, in), K(kp, K_7F8));
	__m512i a, c;
	__mmask8 wi = w & mint;
	/* 8 x 7 bits -> 56: pairs of groups, pairs of pairs, then the two 28-bit
	 * halves, each step a shift and a bitwise select (2 cycles; a vpmaddwd
	 * for the middle step took 5, on the record's longest path) */
	a = _mm512_ternarylogic_epi64(K(kp, K_7F16), g, _mm512_srli_epi16(g, 1), 0xca);
	a = _mm512_ternarylogic_epi64(K(kp, K_14), a, _mm512_srli_epi32(a, 2), 0xca);
	a = _mm512_ternarylogic_epi64(K(kp, K_28), a, _mm512_srli_epi64(a, 4), 0xca);
	/* signed: extend from bit 7n - 1 */
	c = _mm512_cvtepu8_epi64(h ? _mm_srli_si128(sx, 8) : sx);
	a = _mm512_mask_srav_epi64(a, msgn, _mm512_sllv_epi64(a, c), c);
	/* nullable integers: 0 is NULL, a positive value one more than sent */
	*nul = _mm512_mask_cmpeq_epi64_mask(wi & mnul, a, z);
	a = _mm512_mask_sub_epi64(a, _mm512_mask_cmpgt_epi64_mask(wi & mnul, a, z), a, one);
	/* strings: a first byte 0x00 or 0x80 is a special form (NULL, empty, overlong) */
	*bad = w & mstr & ~_mm512_test_epi64_mask(g, K(kp, K_7F64));
	*lq = _mm512_cvtepu8_epi64(h ? _mm_srli_si128(l, 8) : l);
	return _mm512_mask_mov_epi64(g, mint, a);
}

/* Dictionary values of the slots in ad (copy/increment, absent): the value
 * of an assigned entry; *bad the slots whose entry is not assigned in this
 * generation, or whose value the slot's type cannot take (a string longer
 * than the lane, a wider integer under a shared key). *dl: string lengths. */
VT __m512i v_dict(const struct fastx_vtpl *vt, int h, __m512i hv, __m512i dv, uint32_t gen, __mmask8 ad,
		  __mmask8 *bad, __m512i *dl)
{
	KP(kp);
	const __m512i one = K(kp, K_ONE);
	const __mmask8 mstr = MH(vt->m_str, h), mincr = MH(vt->m_incr, h);
	const __mmask8 m32 = MH(vt->m_i32, h), mu32 = MH(vt->m_u32, h);
	__m512i len = _mm512_and_si512(_mm512_srli_epi64(hv, 40), K(kp, K_FF));
	__mmask8 asg = _mm512_mask_cmpeq_epi64_mask(
		ad, _mm512_and_si512(hv, K(kp, K_40B)),
		_mm512_set1_epi64((int64_t)gen | ((int64_t)FAST_DICT_ASSIGNED << 32)));
	__mmask8 b = ad & ~asg;
	__m512i w;
	/* strings: the entry's bytes past its length are not its value */
	b |= _mm512_mask_cmpgt_epu64_mask(ad & mstr, len, K(kp, K_8));
	dv = _mm512_mask_andnot_epi64(dv, ad & mstr, _mm512_sllv_epi64(_mm512_set1_epi64(-1), _mm512_slli_epi64(len, 3)),
				      dv);
	/* increment, then the reference's range rule for a 32-bit field (its
	 * wrap at the type's maximum is left to the AVX2 body too) */
	dv = _mm512_mask_add_epi64(dv, ad & mincr, dv, one);
	w = _mm512_srai_epi64(_mm512_slli_epi64(dv, 32), 32);
	b |= _mm512_mask_cmpneq_epi64_mask(ad & m32, w, dv);
	b |= _mm512_mask_test_epi64_mask(ad & mu32, dv, K(kp, K_HI32));
	*bad = b;
	*dl = len;
	return dv;
}

/* The m (1..8) entries of a block, each by E(j, its lane pair): entries
 * 0, 2, 4, 6 are the 128-bit lanes of w0, 1, 3, 5, 7 those of w1. */
#define V_BLOCK(E)                    \
	do {                          \
		E(0, w0);             \
		if (m > 1)            \
			E(1, w1);     \
		if (m > 2)            \
			E(2, w0);     \
		if (m > 3)            \
			E(3, w1);     \
		if (m > 4)            \
			E(4, w0);     \
		if (m > 5)            \
			E(5, w1);     \
		if (m > 6)            \
			E(6, w0);     \
		if (m > 7)            \
			E(7, w1);     \
	} while (0)

/* One entry's i, exp and gen (bytes 0..15) from a 128-bit lane: i's two
 * dwords where km's bits 0-1 say, exp's (0) where bit 2 does, gen's always;
 * then the state byte. A store with a clear mask bit writes nothing; a
 * 4-dword store reads only the mask's low 4 bits (the next entry's are above). */
#define V_INT_ENTRY(j, w)                                                                                   \
	do {                                                                                                \
		uint8_t *const e_ = dict + vt->ient[o + (j)];                                               \
		_mm_mask_storeu_epi32(e_, (__mmask8)(km >> 4 * (j)), _mm512_extracti32x4_epi32(w, (j) >> 1)); \
		e_[offsetof(struct fast_dict_entry, state)] = (uint8_t)(st >> 8 * (j));                     \
	} while (0)

/* The integer entries a committed record writes (see v_rec), 8 a block:
 * each entry's slot value moved to its place in entry order (vpermt2q), then
 * interleaved with the (exp, gen) word, so that an entry is one masked
 * 16-byte store and its state byte, with no branch on its lane's facts. */
VT void v_dict_ints(const struct fastx_vtpl *vt, uint8_t *dict, __m512i a0, __m512i a1, uint32_t gen,
		    __mmask16 nul, __mmask16 wv)
{
	const __m512i g = _mm512_set1_epi64((int64_t)((uint64_t)gen << 32)); /* exp 0, gen */
	const uint32_t n = vt->nidict;
	uint32_t o;
	_Static_assert(FAST_DICT_EMPTY == FAST_DICT_ASSIGNED + 1, "state = ASSIGNED + NULL bit");
	for (o = 0; o < n; o += 8) {
		const __m128i ib = _mm_loadl_epi64((const __m128i *)(vt->islot + o));
		const __m512i p = _mm512_permutex2var_epi64(a0, _mm512_cvtepu8_epi64(ib), a1);
		const __m512i w0 = _mm512_unpacklo_epi64(p, g), w1 = _mm512_unpackhi_epi64(p, g);
		/* per entry, in entry order: NULL (keeps i, exp), a value sent (exp = 0) */
		const uint32_t ne = (uint32_t)_mm_bitshuffle_epi64_mask(_mm_set1_epi64x(nul), ib);
		const uint32_t we = (uint32_t)_mm_bitshuffle_epi64_mask(_mm_set1_epi64x(wv), ib);
		/* four dword bits an entry: i (2), exp, gen */
		const uint64_t km = _pdep_u64(~ne & 0xff, 0x11111111u) * 3 | _pdep_u64(we & 0xff, 0x11111111u) << 2 |
				    0x88888888u;
		/* the state bytes of the 8 entries, one a byte */
		const uint64_t st = _pdep_u64(ne & 0xff, 0x0101010101010101ULL) + FAST_DICT_ASSIGNED * 0x0101010101010101ULL;
		const uint32_t m = n - o;
		V_BLOCK(V_INT_ENTRY);
	}
}
#undef V_INT_ENTRY

/* One string entry's bytes 12..25: gen, state, len and 8 bytes of s. */
#define V_STR_ENTRY(j, w)                                                                                   \
	_mm_mask_storeu_epi8(dict + vt->sent[o + (j)] + offsetof(struct fast_dict_entry, gen), 0x3fff,            \
			     _mm512_extracti32x4_epi32(w, (j) >> 1))

/* The string entries (always assigned: the vector path takes no NULL
 * string), 8 a block, each one masked 14-byte store. */
VT void v_dict_strs(const struct fastx_vtpl *vt, uint8_t *dict, __m512i a0, __m512i a1, __m512i lq0, __m512i lq1,
		    uint32_t gen)
{
	const uint32_t n = vt->nsdict;
	uint32_t o;
	for (o = 0; o < n; o += 8) {
		const __m512i ix = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(vt->sslot + o)));
		const __m512i sv = _mm512_permutex2var_epi64(a0, ix, a1);
		const __m512i ln = _mm512_permutex2var_epi64(lq0, ix, lq1);
		/* gen, state, len (6 bytes), then the string's 8 */
		const __m512i h = _mm512_or_si512(
			_mm512_set1_epi64((int64_t)gen | ((int64_t)FAST_DICT_ASSIGNED << 32)), _mm512_slli_epi64(ln, 40));
		const __m512i q0 = _mm512_or_si512(h, _mm512_slli_epi64(sv, 48)), q1 = _mm512_srli_epi64(sv, 16);
		const __m512i w0 = _mm512_unpacklo_epi64(q0, q1), w1 = _mm512_unpackhi_epi64(q0, q1);
		const uint32_t m = n - o;
		V_BLOCK(V_STR_ENTRY);
	}
}
#undef V_STR_ENTRY
#undef V_BLOCK

VT int v_rec(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq, uint32_t *used)
{
	const struct fastx_vtpl *vt;
	const struct fastx_vhome *vh;
	const __m512i iota = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45,
					     44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26,
					     25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
					     5, 4, 3, 2, 1, 0);
	struct fast_dict_entry *te = &d->dict[FAST_DICT_TEMPLATE_ID];
	uint8_t *const dict = (uint8_t *)d->dict;
	const uint32_t gen = d->gen;
	__m512i in;
	uint64_t s, w8, sb, sf, ep;
	uint32_t z0, pm, f, k, kk, end, tidnew = 0;
	int64_t tid;
	int t;
	__m128i pmv, es, ss, l;
	__mmask16 pb, wm, wf, nul, ad, da, pr;
	__mmask8 bad0, bad1, nul0, nul1, db0 = 0, db1 = 0;
	__m512i a0, a1, lq0, lq1, dl0, dl1, d0, d1;

	/* a masked load never touches the bytes past len (no fault, no ASan report) */
	/* w8 read with a scalar load, not moved out of the vector: ~6 cycles
	 * less on the path to the next record's start (the vector load and a
	 * move to a general register take ~11, a scalar load ~5). A short
	 * record (the last of a message) too, when 8 bytes are there: w8's
	 * bytes past len are then not the vector's zeros, but every use of w8
	 * below stops at a stop bit of s, which has none past len. */
	if (LIKELY(len >= 64))
		in = _mm512_loadu_si512((const void *)b);
	else
		in = _mm512_maskz_loadu_epi8(_bzhi_u64(~0ull, len), b);
	if (LIKELY(len >= 8))
		memcpy(&w8, b, 8);
	else
		w8 = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(in));
	s = (uint64_t)_mm512_movepi8_mask(in);
	/* The record's end is where the next record starts: in a stream, the
	 * path from one record's bytes to the next's. Guessed here from the
	 * presence map's bits alone (each set bit a field with bytes, the
	 * template id's included, plus the map itself), so that the template
	 * lookup stays off that path; right for every template whose presence
	 * bits all mean bytes and that has no field without one (SSE's), and
	 * checked below for every template. */
	kk = (uint32_t)_mm_popcnt_u64(w8 & (0x7f7fu >> ((w8 >> 4) & 8))) + 1; /* one map byte when byte 0 stops */
	ep = _pdep_u64(1ull << (kk - 1), s);
	/* The map's and the template id's lengths from w8's stop bits, not s's:
	 * the template lookup, on the record's own longest path, starts ~8
	 * cycles sooner than behind the vector load and its mask move (both
	 * fields end in w8's bytes, or the record goes to the AVX2 body) */
	sb = w8 & 0x8080808080808080ull;
	z0 = (uint32_t)_tzcnt_u64(sb) >> 3;

	/* presence map of one or two bytes; its first 14 bits in pm */
	if (z0 > 1)
		return -1;
	pm = (uint32_t)((w8 & 0x7f) << 7) | (z0 ? (uint32_t)(w8 >> 8) & 0x7f : 0);
	if (z0 && ((w8 >> 8) & 0xff) == 0x80)
		return -1; /* overlong map (a warning) */
	f = z0 + 1;
	if (pm & 0x2000) {
		uint32_t z1 = (uint32_t)_tzcnt_u64(sb >> (8 * f)) >> 3;
		uint64_t g;
		if (z1 > 3)
			return -1; /* the AVX2 body's exact reader (or its error) */
		g = _pext_u64(__builtin_bswap64(w8 >> (8 * f)), 0x7f7f7f7f7f7f7f7fULL) << 8;
		if (z1 && (g >> 57) == 0)
			return -1; /* overlong */
		tid = (int64_t)(g >> (57 - 7 * z1));
		f += z1 + 1;
		tidnew = 1;
		/* the template: one load from its id (fastx_dec.vhome); an id
		 * not in its home slot, unknown, or not the vector path's goes to
		 * the AVX2 body, which looks further. (The check is written in
		 * each branch: one check after them both measured 3 % slower in
		 * bench_rx fastx_decode_only.) */
		vh = &x->vhome[fastx_home((uint32_t)tid)];
		if (vh->tid != (uint32_t)tid || vh->vt == NULL)
			return -1;
	} else if (te->gen == gen && te->state == FAST_DICT_ASSIGNED) {
		/* the template id copied: most often the one of the last record
		 * this path took with its id sent (vlast), whose template is then
		 * there already, the check a predicted branch beside it */
		tid = te->i;
		vh = LIKELY(tid == (int64_t)x->vlast.tid) ? &x->vlast : &x->vhome[fastx_home((uint32_t)tid)];
		if (vh->tid != (uint32_t)tid || vh->vt == NULL)
			return -1;
	} else {
		return -1;
	}
	vt = vh->vt;
	t = (int)vh->t;
	if (pm & vt->pm_extra)
		return -1;

	/* which slots have bytes, where each starts and ends */
	KP(kp1);
	pmv = _mm_set1_epi64x((long long)(pm | (1ull << 63)));
	pb = _mm_bitshuffle_epi64_mask(pmv, _mm_loadu_si128((const __m128i *)vt->pbidx));
	wm = _mm_bitshuffle_epi64_mask(pmv, _mm_loadu_si128((const __m128i *)vt->widx));
	k = (uint32_t)__builtin_popcount(wm);
	sf = s & (~0ull << f);
	if (UNLIKELY(k + 1 + tidnew != kk)) /* the guess above was wrong: the template's own count */
		ep = _pdep_u64(1ull << (k + tidnew), s);
	if (ep == 0)
		return -1; /* a field ends past the window or the input */
	end = (uint32_t)_tzcnt_u64(ep) + 1;
	/* ends and starts in field order (the bytes' order), then in slot order */
	wf = _mm_bitshuffle_epi64_mask(pmv, _mm_loadu_si128((const __m128i *)vt->widxf));
	es = _mm_maskz_expand_epi8(wf, _mm512_castsi512_si128(_mm512_maskz_compress_epi8(sf, iota)));
	ss = _mm_maskz_expand_epi8(wf, _mm512_castsi512_si128(_mm512_maskz_compress_epi8((sf << 1) | (1ull << f), iota)));
	es = _mm_permutexvar_epi8(_mm_loadu_si128((const __m128i *)vt->perm), es);
	ss = _mm_permutexvar_epi8(_mm_loadu_si128((const __m128i *)vt->perm), ss);
	l = _mm_maskz_add_epi8(wm, _mm_sub_epi8(es, ss), _mm512_castsi512_si128(K(kp1, K_018)));
	if (_mm_cmpgt_epu8_mask(l, _mm_loadu_si128((const __m128i *)vt->maxlen)))
		return -1; /* longer than a lane (or than the type's word path) */

	/* overlong integers (the reference warns), from the record's bytes: a
	 * field that starts 0x00 with bit 6 of its next byte clear, or 0x7f
	 * with it set (signed rule; also any string so starting, which then
	 * takes the AVX2 body); with an unsigned integer in the template, any
	 * field starting 0x00 */
	{
		const uint64_t fs = ((s << 1) | (1ull << f)) & _bzhi_u64(~0ull, end) & (~0ull << f);
		const uint64_t z = _mm512_cmpeq_epi8_mask(in, _mm512_setzero_si512());
		KP(kp);
		const uint64_t b6 = _mm512_test_epi8_mask(in, K(kp, K_408)) >> 1;
		const uint64_t f7 = _mm512_cmpeq_epi8_mask(in, K(kp, K_7F8));
		if (fs & ((z & (vt->uns ? ~0ull : ~b6)) | (f7 & b6)))
			return -1;
	}
	{
		const __m512i bse = _mm512_inserti32x4(_mm512_castsi128_si512(es), ss, 1);
		const __m128i sx = _mm_shuffle_epi8(_mm_load_si128((const __m128i *)v_sext), l);
		a0 = v_half(vt, 0, in, bse, l, sx, (__mmask8)wm, &bad0, &nul0, &lq0);
		a1 = v_half(vt, 1, in, bse, l, sx, (__mmask8)(wm >> 8), &bad1, &nul1, &lq1);
	}
	if (bad0 | bad1)
		return -1;
	nul = (__mmask16)(nul0 | (nul1 << 8));

	/* operators: copy/increment absent -> the dictionary; default absent ->
	 * the initial value, or NULL when optional; constants */
	ad = vt->m_dict & ~pb;
	da = vt->m_def & ~pb;
	if (da & ~vt->m_init & ~vt->m_opt)
		return -1; /* a mandatory default without a value: an error */
	dl0 = dl1 = _mm512_setzero_si512();
	d0 = d1 = _mm512_setzero_si512();
	if (ad) {
		/* the entries' words, gathered (scalar loads, which would take
		 * them straight from the previous record's stores, measured no
		 * faster); the second half only for a template with more than 8
		 * dictionary fields */
		const __m512i z = _mm512_setzero_si512();
		const __m512i h0 = _mm512_mask_i64gather_epi64(z, (__mmask8)ad, v_ld(&vt->hoff[0]), dict, 1);
		const __m512i v0 = _mm512_mask_i64gather_epi64(z, (__mmask8)ad, v_ld(&vt->voff[0]), dict, 1);
		d0 = v_dict(vt, 0, h0, v0, gen, (__mmask8)ad, &db0, &dl0);
		if (ad >> 8) {
			const __m512i h1 = _mm512_mask_i64gather_epi64(z, (__mmask8)(ad >> 8), v_ld(&vt->hoff[8]), dict, 1);
			const __m512i v1 = _mm512_mask_i64gather_epi64(z, (__mmask8)(ad >> 8), v_ld(&vt->voff[8]), dict, 1);
			d1 = v_dict(vt, 1, h1, v1, gen, (__mmask8)(ad >> 8), &db1, &dl1);
		}
		if (db0 | db1)
			return -1;
	}
	{
		const __mmask16 ini = (__mmask16)((da & vt->m_init) | vt->m_const);
		const __m512i i0 = _mm512_loadu_si512((const void *)&vt->init[0]);
		const __m512i i1 = _mm512_loadu_si512((const void *)&vt->init[8]);
		const __m512i il0 = _mm512_loadu_si512((const void *)&vt->ilen[0]);
		const __m512i il1 = _mm512_loadu_si512((const void *)&vt->ilen[8]);
		pr = (__mmask16)((wm & ~nul) | ad | (da & vt->m_init) | (vt->m_const & (~vt->m_opt | pb)));
		a0 = _mm512_mask_mov_epi64(_mm512_mask_mov_epi64(a0, (__mmask8)ad, d0), (__mmask8)ini, i0);
		a1 = _mm512_mask_mov_epi64(_mm512_mask_mov_epi64(a1, (__mmask8)(ad >> 8), d1), (__mmask8)(ini >> 8), i1);
		a0 = _mm512_maskz_mov_epi64((__mmask8)pr, a0);
		a1 = _mm512_maskz_mov_epi64((__mmask8)(pr >> 8), a1);
		lq0 = _mm512_mask_mov_epi64(_mm512_mask_mov_epi64(lq0, (__mmask8)ad, dl0), (__mmask8)ini, il0);
		lq1 = _mm512_mask_mov_epi64(_mm512_mask_mov_epi64(lq1, (__mmask8)(ad >> 8), dl1), (__mmask8)(ini >> 8), il1);
	}

	/* commit: nothing above wrote anything */
	{
		union toe_record *tk = x->dst;
		const __m512i o0 = _mm512_maskz_permutex2var_epi8(vt->tmask[0], a0,
								  _mm512_loadu_si512((const void *)vt->tidx), a1);
		const __m512i o1 = _mm512_maskz_permutex2var_epi8(vt->tmask[1], a0,
								  _mm512_loadu_si512((const void *)(vt->tidx + 64)), a1);
		_mm512_storeu_si512((void *)tk->bytes, o0);
		_mm512_storeu_si512((void *)(tk->bytes + 64), o1);
		if (vt->kind != TOE_REC_NONE) {
			tk->hdr.type = vt->kind;
			tk->hdr.present = (uint32_t)_mm256_bitshuffle_epi64_mask(
				_mm256_set1_epi64x(pr), _mm256_loadu_si256((const __m256i *)vt->tpres));
			tk->hdr.msg_seq = seq;
			x->tick_type = vt->kind;
		} else {
			x->tick_type = TOE_REC_NONE;
		}
	}
	/* the dictionary, exactly the words the reference writes, since an
	 * entry's other words stay readable (a field of another type under the
	 * same key) and survive a reset: integers gen and state; i and exp = 0
	 * when a value came on the wire (no decimal shares the entry,
	 * fastx_vlower.c); i alone when an absent copy or increment took it from
	 * the entry; neither for a NULL (the entry empty, its old words kept).
	 * Strings gen, state, len and the bytes. */
	v_dict_ints(vt, dict, a0, a1, gen, nul, (uint16_t)(wm & ~nul));
	v_dict_strs(vt, dict, a0, a1, lq0, lq1, gen);
	if (tidnew) {
		x->vlast = *vh;
		te->gen = gen;
		te->state = FAST_DICT_ASSIGNED;
		te->i = tid;
		te->exp = 0;
	}
	*used = end;
	x->warn = 0;
	x->tid = (uint32_t)tid;
	x->tpl = (uint16_t)t;
	x->used_fallback = 0;
	d->records++;
	x->fast++;
	x->vec++;
	return FAST_OK;
}

/* A record at this level: the vector path, else the AVX2 copy (with or
 * without pext), which does everything the reference does. */
VT int v_record(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		uint32_t *used)
{
	if (LIKELY(v_rec(x, d, b, len, seq, used) == FAST_OK))
		return FAST_OK;
	x->vec_fallback++;
	return fastx_rec_avx2(x, d, b, len, seq, used);
}

VT int v_record_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		     uint32_t *used)
{
	if (LIKELY(v_rec(x, d, b, len, seq, used) == FAST_OK))
		return FAST_OK;
	x->vec_fallback++;
	return fastx_rec_avx2_pext(x, d, b, len, seq, used);
}

VTGT int fastx_rec_vbmi(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		   uint32_t *used)
{
	return v_record(x, d, b, len, seq, used);
}

VTGT int fastx_rec_vbmi_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
			uint32_t *used)
{
	return v_record_pext(x, d, b, len, seq, used);
}

/* fastx_stream_run's loop (fastx_run.h) with the record inlined. */
VTGT uint32_t fastx_run_vbmi(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
			     uint32_t *warns, int *ev)
{
	return fastx_run_with(v_record, x, fs, recs, cap, warns, ev);
}

VTGT uint32_t fastx_run_vbmi_pext(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
				  uint32_t *warns, int *ev)
{
	return fastx_run_with(v_record_pext, x, fs, recs, cap, warns, ev);
}

#else
/* other architectures: no vector path */
int fastx_rec_vbmi(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		   uint32_t *used)
{
	return fastx_rec_scalar(x, d, b, len, seq, used);
}
int fastx_rec_vbmi_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
			uint32_t *used)
{
	return fastx_rec_scalar(x, d, b, len, seq, used);
}
uint32_t fastx_run_vbmi(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
			uint32_t *warns, int *ev)
{
	return fastx_run_with(fastx_rec_scalar, x, fs, recs, cap, warns, ev);
}
uint32_t fastx_run_vbmi_pext(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
			     uint32_t *warns, int *ev)
{
	return fastx_run_with(fastx_rec_scalar, x, fs, recs, cap, warns, ev);
}
#endif
