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

#include "fastx_int.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#if defined(__x86_64__)

#define VTGT __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx512bitalg,bmi,bmi2,popcnt")))
#define VT VTGT __attribute__((always_inline)) static inline

/* Per 8-slot half h: byte 8q + b of the result is byte 8h + q of the source
 * (a slot's byte-wide fact spread over its lane). */
static const uint8_t v_spread[2][64] __attribute__((aligned(64))) = {
#define S8(q) q, q, q, q, q, q, q, q
	{S8(0), S8(1), S8(2), S8(3), S8(4), S8(5), S8(6), S8(7)},
	{S8(8), S8(9), S8(10), S8(11), S8(12), S8(13), S8(14), S8(15)},
#undef S8
};

/* The lanes of one 8-slot half: bytes gathered and turned into values.
 * Returns the lanes; *bad gets the lanes that cannot be committed; *nul the
 * nullable integers sent as NULL; *lq the wire lengths per lane. */
VT __m512i v_half(const struct fastx_vtpl *vt, int h, __m512i in, __m128i es, __m128i ss, __m128i l, __mmask8 w,
		  __mmask8 *bad, __mmask8 *nul, __m512i *lq)
{
	const __m512i spread = _mm512_load_si512((const void *)v_spread[h]);
	const __m512i b8 = _mm512_set1_epi64(0x0706050403020100LL); /* byte index within a lane */
	const __m512i one = _mm512_set1_epi64(1);
	const __mmask8 mint = (__mmask8)(vt->m_int >> (8 * h)), msgn = (__mmask8)(vt->m_sgn >> (8 * h));
	const __mmask8 mstr = (__mmask8)(vt->m_str >> (8 * h)), mnul = (__mmask8)(vt->m_null >> (8 * h));
	__m512i eb = _mm512_permutexvar_epi8(spread, _mm512_castsi128_si512(es));
	__m512i sb = _mm512_permutexvar_epi8(spread, _mm512_castsi128_si512(ss));
	__m512i lb = _mm512_permutexvar_epi8(spread, _mm512_castsi128_si512(l));
	/* integers from their last byte backwards, strings from their first */
	__m512i idx = _mm512_mask_blend_epi8(vt->strb[h], _mm512_sub_epi8(eb, b8), _mm512_add_epi8(sb, b8));
	__mmask64 valid = _mm512_cmplt_epu8_mask(b8, lb);
	__m512i g = _mm512_and_si512(_mm512_maskz_permutexvar_epi8(valid, idx, in), _mm512_set1_epi8(0x7f));
	__m512i a, c, c2, t, len;
	__mmask8 ov, wi = w & mint;
	/* 8 x 7 bits -> 56: pairs of groups, pairs of pairs, then the two 28-bit halves */
	a = _mm512_ternarylogic_epi64(_mm512_set1_epi16(0x007f), g, _mm512_srli_epi16(g, 1), 0xca);
	a = _mm512_madd_epi16(a, _mm512_set1_epi32(0x40000001));
	a = _mm512_ternarylogic_epi64(_mm512_set1_epi64(0x0fffffff), a, _mm512_srli_epi64(a, 4), 0xca);
	/* signed: extend from bit 7n - 1 */
	len = h ? _mm512_cvtepu8_epi64(_mm_srli_si128(l, 8)) : _mm512_cvtepu8_epi64(l);
	c = _mm512_sub_epi64(_mm512_set1_epi64(64), _mm512_sub_epi64(_mm512_slli_epi64(len, 3), len));
	a = _mm512_mask_srav_epi64(a, msgn, _mm512_sllv_epi64(a, c), c);
	/* overlong (the reference warns): the value fits in one group fewer */
	c2 = _mm512_add_epi64(c, _mm512_set1_epi64(7));
	t = _mm512_sllv_epi64(a, c2);
	t = _mm512_mask_srav_epi64(_mm512_srlv_epi64(t, c2), msgn, t, c2);
	ov = _mm512_mask_cmpeq_epi64_mask(wi & _mm512_cmpgt_epu64_mask(len, one), t, a);
	/* nullable integers: 0 is NULL, a positive value one more than sent */
	*nul = _mm512_mask_cmpeq_epi64_mask(wi & mnul, a, _mm512_setzero_si512());
	a = _mm512_mask_sub_epi64(a, _mm512_mask_cmpgt_epi64_mask(wi & mnul, a, _mm512_setzero_si512()), a, one);
	/* strings: a first byte 0x00 or 0x80 is a special form (NULL, empty, overlong) */
	*bad = ov | (w & mstr & ~_mm512_test_epi64_mask(g, _mm512_set1_epi64(0x7f)));
	*lq = len;
	return _mm512_mask_mov_epi64(g, mint, a);
}

/* Dictionary values of the slots in ad (copy/increment, absent): the value
 * of an assigned entry; *bad the slots whose entry is not assigned in this
 * generation, or whose value the slot's type cannot take (a string longer
 * than the lane, a wider integer under a shared key). *dl: string lengths. */
VT __m512i v_dict(const struct fastx_vtpl *vt, int h, const uint8_t *dict, uint32_t gen, __mmask8 ad, __mmask8 *bad,
		  __m512i *dl)
{
	const __m512i z = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
	const __mmask8 mstr = (__mmask8)(vt->m_str >> (8 * h)), mincr = (__mmask8)(vt->m_incr >> (8 * h));
	const __mmask8 m32 = (__mmask8)(vt->m_i32 >> (8 * h)), mu32 = (__mmask8)(vt->m_u32 >> (8 * h));
	__m512i hv = _mm512_mask_i64gather_epi64(z, ad, _mm512_loadu_si512((const void *)&vt->hoff[8 * h]), dict, 1);
	__m512i dv = _mm512_mask_i64gather_epi64(z, ad, _mm512_loadu_si512((const void *)&vt->voff[8 * h]), dict, 1);
	__m512i len = _mm512_and_si512(_mm512_srli_epi64(hv, 40), _mm512_set1_epi64(0xff));
	__mmask8 asg = _mm512_mask_cmpeq_epi64_mask(
		ad, _mm512_and_si512(hv, _mm512_set1_epi64(0xffffffffffLL)),
		_mm512_set1_epi64((int64_t)gen | ((int64_t)FAST_DICT_ASSIGNED << 32)));
	__mmask8 b = ad & ~asg;
	__m512i w;
	/* strings: the entry's bytes past its length are not its value */
	b |= _mm512_mask_cmpgt_epu64_mask(ad & mstr, len, _mm512_set1_epi64(8));
	dv = _mm512_mask_andnot_epi64(dv, ad & mstr, _mm512_sllv_epi64(_mm512_set1_epi64(-1), _mm512_slli_epi64(len, 3)),
				      dv);
	/* increment, then the reference's range rule for a 32-bit field (its
	 * wrap at the type's maximum is left to the AVX2 body too) */
	dv = _mm512_mask_add_epi64(dv, ad & mincr, dv, one);
	w = _mm512_srai_epi64(_mm512_slli_epi64(dv, 32), 32);
	b |= _mm512_mask_cmpneq_epi64_mask(ad & m32, w, dv);
	b |= _mm512_mask_test_epi64_mask(ad & mu32, dv, _mm512_set1_epi64((int64_t)0xffffffff00000000ULL));
	*bad = b;
	*dl = len;
	return dv;
}

VT int v_rec(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq, uint32_t *used)
{
	const struct fastx_prog *xp = x->xp;
	const struct fastx_vtpl *vt;
	const __m512i iota = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45,
					     44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26,
					     25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
					     5, 4, 3, 2, 1, 0);
	struct fast_dict_entry *te = &d->dict[FAST_DICT_TEMPLATE_ID];
	uint8_t *const dict = (uint8_t *)d->dict;
	const uint32_t gen = d->gen;
	/* a masked load never touches the bytes past len (no fault, no ASan report) */
	__m512i in = _mm512_maskz_loadu_epi8(len >= 64 ? ~0ull : _bzhi_u64(~0ull, len), b);
	uint64_t s = _mm512_movepi8_mask(in), w8 = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(in)), sf;
	uint32_t z0 = (uint32_t)_tzcnt_u64(s), pm, f, k, end, tidnew = 0, i;
	int64_t tid;
	int t;
	__m128i pmv, es, ss, l;
	__mmask16 pb, wm, nul, ad, da, pr;
	__mmask8 bad0, bad1, nul0, nul1, db0 = 0, db1 = 0;
	__m512i a0, a1, lq0, lq1, dl0, dl1, d0, d1;
	uint64_t vals[FASTX_VSLOTS], lens[FASTX_VSLOTS];

	/* presence map of one or two bytes; its first 14 bits in pm */
	if (z0 > 1)
		return -1;
	pm = (uint32_t)((w8 & 0x7f) << 7) | (z0 ? (uint32_t)(w8 >> 8) & 0x7f : 0);
	if (z0 && ((w8 >> 8) & 0xff) == 0x80)
		return -1; /* overlong map (a warning) */
	f = z0 + 1;
	if (pm & 0x2000) {
		uint32_t z1 = (uint32_t)_tzcnt_u64(s >> f);
		uint64_t g;
		if (z1 > 3)
			return -1; /* the AVX2 body's exact reader (or its error) */
		g = _pext_u64(__builtin_bswap64(w8 >> (8 * f)), 0x7f7f7f7f7f7f7f7fULL) << 8;
		if (z1 && (g >> 57) == 0)
			return -1; /* overlong */
		tid = (int64_t)(g >> (57 - 7 * z1));
		f += z1 + 1;
		tidnew = 1;
	} else if (te->gen == gen && te->state == FAST_DICT_ASSIGNED) {
		tid = te->i;
	} else {
		return -1;
	}
	t = fastx_find_fast(xp, (uint32_t)tid);
	if (t < 0 || x->tref[t] || !xp->vt[t].ok)
		return -1;
	vt = &xp->vt[t];
	if (pm & vt->pm_extra)
		return -1;

	/* which slots have bytes, where each starts and ends */
	pmv = _mm_set1_epi64x((long long)(pm | (1ull << 63)));
	pb = _mm_bitshuffle_epi64_mask(pmv, _mm_loadu_si128((const __m128i *)vt->pbidx));
	wm = _mm_bitshuffle_epi64_mask(pmv, _mm_loadu_si128((const __m128i *)vt->widx));
	k = (uint32_t)__builtin_popcount(wm);
	sf = s & (~0ull << f);
	if ((uint32_t)_mm_popcnt_u64(sf) < k)
		return -1; /* a field ends past the window or the input */
	end = k ? (uint32_t)_tzcnt_u64(_pdep_u64(1ull << (k - 1), sf)) + 1 : f;
	es = _mm_maskz_expand_epi8(wm, _mm512_castsi512_si128(_mm512_maskz_compress_epi8(sf, iota)));
	ss = _mm_maskz_expand_epi8(wm, _mm512_castsi512_si128(_mm512_maskz_compress_epi8((sf << 1) | (1ull << f), iota)));
	l = _mm_maskz_add_epi8(wm, _mm_sub_epi8(es, ss), _mm_set1_epi8(1));
	if (_mm_cmpgt_epu8_mask(l, _mm_loadu_si128((const __m128i *)vt->maxlen)))
		return -1; /* longer than a lane (or than the type's word path) */

	a0 = v_half(vt, 0, in, es, ss, l, (__mmask8)wm, &bad0, &nul0, &lq0);
	a1 = v_half(vt, 1, in, es, ss, l, (__mmask8)(wm >> 8), &bad1, &nul1, &lq1);
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
		d0 = v_dict(vt, 0, dict, gen, (__mmask8)ad, &db0, &dl0);
		d1 = v_dict(vt, 1, dict, gen, (__mmask8)(ad >> 8), &db1, &dl1);
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
			tk->hdr.present = (uint32_t)_mm512_mask_reduce_or_epi32(
				pr, _mm512_loadu_si512((const void *)vt->tbit));
			tk->hdr.msg_seq = seq;
			x->tick_type = vt->kind;
		} else {
			x->tick_type = TOE_REC_NONE;
		}
	}
	_mm512_storeu_si512((void *)&vals[0], a0);
	_mm512_storeu_si512((void *)&vals[8], a1);
	_mm512_storeu_si512((void *)&lens[0], lq0);
	_mm512_storeu_si512((void *)&lens[8], lq1);
	for (i = 0; i < vt->ndict; i++) {
		const uint32_t sl = vt->dslot[i];
		uint8_t *e = dict + vt->hoff[sl] - offsetof(struct fast_dict_entry, gen);
		if ((vt->m_str >> sl) & 1) {
			/* gen, state, len and the bytes (an absent copy rewrites what it read) */
			uint64_t h = gen | ((uint64_t)FAST_DICT_ASSIGNED << 32) | (lens[sl] << 40);
			memcpy(e + offsetof(struct fast_dict_entry, gen), &h, 6);
			memcpy(e + offsetof(struct fast_dict_entry, s), &vals[sl], 8);
		} else {
			/* i and exp = 0 (no decimal shares the entry, fastx_vlower.c); a NULL
			 * leaves the entry empty, its value unread */
			uint64_t h = (uint64_t)gen << 32;
			memcpy(e + offsetof(struct fast_dict_entry, i), &vals[sl], 8);
			memcpy(e + offsetof(struct fast_dict_entry, exp), &h, 8);
			e[offsetof(struct fast_dict_entry, state)] =
				(nul >> sl) & 1 ? FAST_DICT_EMPTY : FAST_DICT_ASSIGNED;
		}
	}
	if (tidnew) {
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

VTGT int fastx_rec_vbmi(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		   uint32_t *used)
{
	if (LIKELY(v_rec(x, d, b, len, seq, used) == FAST_OK))
		return FAST_OK;
	x->vec_fallback++;
	return fastx_rec_avx2(x, d, b, len, seq, used);
}

VTGT int fastx_rec_vbmi_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
			uint32_t *used)
{
	if (LIKELY(v_rec(x, d, b, len, seq, used) == FAST_OK))
		return FAST_OK;
	x->vec_fallback++;
	return fastx_rec_avx2_pext(x, d, b, len, seq, used);
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
#endif
