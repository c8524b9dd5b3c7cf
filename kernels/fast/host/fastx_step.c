/* fastx_step.c - STEP framing in bulk for the fast path (host only).
 *
 * The common case, a whole message at the start of the chunk while the
 * deframer is between messages (state S_HUNT, nothing buffered, nothing
 * pending), is parsed here straight from the caller's bytes: the header and
 * the trailer with word operations (BodyLength's digits converted eight at
 * a time), then one pass over the message (32 bytes a step with AVX2 where
 * the CPU has it) makes a bitmap of its SOH bytes and the checksum's byte
 * sum (SAD, psadbw); the fields are walked with a count-trailing-zeros per
 * SOH (two-digit tags checked in one word test, 34= and 95= converted in
 * one go), and the 96= data is not copied: msg.data points into the chunk,
 * which fast_stream keeps valid while it decodes the message.
 *
 * Consecutive messages mostly share their header's fields: the last one's
 * tag sequence is kept (x->smemo) and, while the next one's tags are checked
 * equal to it field by field (ends found in the SOH bitmap, so values may
 * change length), only the fields with rules of their own are read. Where
 * the fields before 95= also keep their places, AVX2 or AVX-512 checks them
 * by compares of their bytes, 95= and 96= are read with word operations,
 * and the message needs no SOH bitmap at all, only its byte sum (fixed_fast:
 * bench_fastx framing alone at the AVX-512 level, 2 records a message, 15.1
 * -> 13.3 ns a record).
 *
 * A message split across chunks keeps that path too: its head, when the
 * state machine would take it without an event ("clean", checked by the
 * same field walk stopping at the chunk's end), is held in body[] as
 * pending bytes; the rest is appended when it comes and the whole is framed
 * as above (see "messages split across chunks" below).
 *
 * The rules are exactly those of the reference's state machine
 * (kernels/fast/step_deframe.c: step_run; the header and trailer shapes are
 * shared in step_scan.h), and the deframer's state and counters end up as
 * step_feed() leaves them. Anything else (junk, any message this parser
 * does not accept, errors) goes to step_feed() unchanged, whose state
 * machine stays the one definition of errors and their offsets;
 * tests/unit/test_fastx_step.c (every cut of good and damaged streams) and
 * fuzz_fastx_diff compare the two byte for byte.
 */
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "fastx.h"

#include "fast/step_scan.h"

#define SOH STEP_SOH
#define IS_DIGIT(c) STEP_IS_DIGIT(c)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* SOH bitmap words (bit i % 64 of w[i / 64]) for a whole message. */
#define SCAN_WORDS ((7 + STEP_MAX_VER + 1 + 2 + STEP_MAX_LEN_DIG + 1 + STEP_MAX_BODY + 63) / 64 + 1)


static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* Eight bytes at q[k] of q[0..n): zero beyond n. */
static inline uint64_t ld64_in(const uint8_t *q, uint32_t k, uint32_t n)
{
	uint64_t w = 0;
	if (LIKELY(k + 8 <= n))
		return ld64(q + k);
	if (k < n)
		memcpy(&w, q + k, n - k);
	return w;
}

/* High bit set in each byte of w that is not an ASCII digit ('0'..'9').
 * A byte >= 0x8a carries into the next one: only the lowest flag is exact,
 * which is the one the callers use (they look for the first non-digit). */
static inline uint64_t nondigits(uint64_t w)
{
	uint64_t a = w ^ 0x3030303030303030ull; /* digits become 0..9 */
	return ((a + 0x7676767676767676ull) | a) & HIGHS;
}

/* The value of the nd (1..8) ASCII digits at the bottom of w (first digit
 * in the lowest byte). */
static inline uint64_t digits8(uint64_t w, uint32_t nd)
{
	uint64_t v = (w & 0x0f0f0f0f0f0f0f0full) << (8 * (8 - nd)); /* leading zero digits */
	v = (v * 2561) >> 8 & 0x00ff00ff00ff00ffull;
	v = (v * 6553601) >> 16 & 0x0000ffff0000ffffull;
	return (v * 42949672960001ull) >> 32;
}

/* ---- the byte sum ---- */

/* Sum of q[0..t) (the checksum wants it modulo 256), a word at a time. */
static uint32_t sum_scalar(const uint8_t *q, uint32_t t)
{
	uint32_t i = 0, s = 0;
	while (i + 8 <= t) {
		/* 16-bit lanes fold before they can carry: at most 64 words */
		uint32_t e = t - i >= 512 ? i + 512 : t & ~7u, k;
		uint64_t acc = 0;
		for (; i < e; i += 8) {
			uint64_t w = ld64(q + i);
			acc += (w & 0x00ff00ff00ff00ffull) + (w >> 8 & 0x00ff00ff00ff00ffull);
		}
		for (k = 0; k < 4; k++)
			s += (uint32_t)(acc >> (16 * k) & 0xffff);
	}
	for (; i < t; i++)
		s += q[i];
	return s;
}

#if defined(__x86_64__)
/* 32 bytes of 0 then 32 of 0xff: loading 32 bytes at keep_hi + r keeps the
 * last r bytes of a vector. */
static const uint8_t keep_hi[64] = {
	[32] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* The same with SAD (psadbw), 64 bytes a step; the last bytes come from
 * the vector ending at t, the ones already summed masked off, so nothing
 * past t is read. */
__attribute__((target("avx2"))) static uint32_t sum_avx2(const uint8_t *q, uint32_t t)
{
	const __m256i z = _mm256_setzero_si256();
	__m256i a0 = z, a1 = z;
	uint32_t i = 0;
	if (t < 32)
		return sum_scalar(q, t);
	for (; i + 64 <= t; i += 64) {
		a0 = _mm256_add_epi64(a0, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(q + i)), z));
		a1 = _mm256_add_epi64(a1, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(q + i + 32)), z));
	}
	if (i + 32 <= t) {
		a0 = _mm256_add_epi64(a0, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(q + i)), z));
		i += 32;
	}
	if (i < t) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(q + t - 32));
		v = _mm256_and_si256(v, _mm256_loadu_si256((const __m256i *)(keep_hi + (t - i))));
		a1 = _mm256_add_epi64(a1, _mm256_sad_epu8(v, z));
	}
	a0 = _mm256_add_epi64(a0, a1);
	return (uint32_t)(_mm256_extract_epi64(a0, 0) + _mm256_extract_epi64(a0, 1) + _mm256_extract_epi64(a0, 2) +
			  _mm256_extract_epi64(a0, 3));
}

/* A psadbw accumulator's total modulo 256, which is all the checksum wants
 * (every sum here is only ever read modulo 256): the 8 lanes' low bytes
 * (vpmovqb) summed by one more psadbw. A message is a few vectors, so the
 * full horizontal add cost as much as the loop (bench_rx ~1%). */
__attribute__((target("avx512bw"))) static inline uint32_t lanes_mod256(__m512i acc)
{
	return (uint32_t)_mm_cvtsi128_si32(_mm_sad_epu8(_mm512_cvtepi64_epi8(acc), _mm_setzero_si128()));
}

/* The byte sum alone (no bitmap), as scan_avx512 takes it, two chains. */
__attribute__((target("avx512bw"))) static uint32_t sum_avx512(const uint8_t *q, uint32_t t)
{
	const __m512i z = _mm512_setzero_si512();
	__m512i a0 = z, a1 = z;
	uint32_t i = 0;
	for (; i + 128 <= t; i += 128) {
		a0 = _mm512_add_epi64(a0, _mm512_sad_epu8(_mm512_loadu_si512((const void *)(q + i)), z));
		a1 = _mm512_add_epi64(a1, _mm512_sad_epu8(_mm512_loadu_si512((const void *)(q + i + 64)), z));
	}
	if (i + 64 <= t) {
		a0 = _mm512_add_epi64(a0, _mm512_sad_epu8(_mm512_loadu_si512((const void *)(q + i)), z));
		i += 64;
	}
	if (i < t)
		a1 = _mm512_add_epi64(a1, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(~0ull >> (64 - (t - i)),
										   (const void *)(q + i)), z));
	return lanes_mod256(_mm512_add_epi64(a0, a1));
}
#endif

static inline uint32_t sum_bytes(int isa, const uint8_t *q, uint32_t t)
{
#if defined(__x86_64__)
	if (isa >= FASTX_ISA_AVX512)
		return sum_avx512(q, t);
	if (isa >= FASTX_ISA_AVX2)
		return sum_avx2(q, t);
#endif
	(void)isa;
	return sum_scalar(q, t);
}

/* ---- the SOH bitmap and the byte sum ---- */

/* One pass over q[0..t): SOH positions into w[] (bits past t clear) and the
 * byte sum the checksum wants (modulo 256 at least: lanes_mod256); avail
 * (>= t) bytes are readable at q. */
static uint32_t scan_scalar(const uint8_t *q, uint32_t t, uint32_t avail, uint64_t *w)
{
	uint32_t i, s = 0;
	(void)avail;
	for (i = 0; i < t; i += 64) {
		uint64_t m = 0;
		uint32_t j, e = t - i < 64 ? t - i : 64;
		for (j = 0; j < e; j++) {
			s += q[i + j];
			m |= (uint64_t)(q[i + j] == SOH) << j;
		}
		w[i >> 6] = m;
	}
	return s;
}

#if defined(__x86_64__)
/* 64 bytes of 0xff then 64 of 0: loading 32 bytes at keep_lo + 64 - r and
 * at keep_lo + 96 - r keeps the first r bytes of 64. */
static const uint8_t keep_lo[128] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* 64 bytes of 0 then 64 of 0xff: loading 32 bytes at drop_lo + 64 - r and
 * at drop_lo + 96 - r clears the first r bytes of 64. */
static const uint8_t drop_lo[128] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* The last r = t - i (< 64) bytes when the 64 bytes at q + i are not all
 * readable (the message ends its chunk, or a head does): the 64 bytes
 * ending at avail are read instead and cut to q[i..t); from a zero-padded
 * copy, a vector at a time, when avail < 64. Out of line (rare, and so
 * that scan_avx2 needs no aligned stack frame). */
__attribute__((target("avx2"), noinline)) static uint64_t scan_tail_avx2(const uint8_t *q, uint32_t i, uint32_t t,
									uint32_t avail, __m256i *acc)
{
	const __m256i soh = _mm256_set1_epi8(SOH), z = _mm256_setzero_si256();
	uint64_t m = 0;
	uint32_t h;
	if (LIKELY(avail >= 64)) {
		uint32_t base = avail - 64, sh = i - base, e = sh + (t - i); /* q[i..t) is window[sh..e), e <= 64 */
		__m256i a = _mm256_loadu_si256((const __m256i *)(q + base));
		__m256i b = _mm256_loadu_si256((const __m256i *)(q + base + 32));
		a = _mm256_and_si256(a, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(keep_lo + 64 - e)),
							 _mm256_loadu_si256((const __m256i *)(drop_lo + 64 - sh))));
		b = _mm256_and_si256(b, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(keep_lo + 96 - e)),
							 _mm256_loadu_si256((const __m256i *)(drop_lo + 96 - sh))));
		m = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, soh)) |
		    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, soh)) << 32;
		*acc = _mm256_add_epi64(*acc, _mm256_add_epi64(_mm256_sad_epu8(a, z), _mm256_sad_epu8(b, z)));
		return m >> sh; /* (the bits below sh are clear: SOH is not 0) */
	}
	for (h = 0; h < 64 && i + h < t; h += 32) {
		uint32_t r = t - i - h, at = i + h;
		__m256i v;
		if (at + 32 <= avail) {
			v = _mm256_loadu_si256((const __m256i *)(q + at));
		} else {
			uint8_t tmp[32] = {0};
			memcpy(tmp, q + at, avail - at);
			v = _mm256_loadu_si256((const __m256i *)tmp);
		}
		if (r < 32)
			v = _mm256_and_si256(v, _mm256_loadu_si256((const __m256i *)(keep_lo + 64 - r)));
		m |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, soh)) << h;
		*acc = _mm256_add_epi64(*acc, _mm256_sad_epu8(v, z));
	}
	return m;
}

/* The last 64 bytes are read whole when they fit in avail and cut to the
 * bytes before t; else scan_tail_avx2. */
__attribute__((target("avx2"))) static uint32_t scan_avx2(const uint8_t *q, uint32_t t, uint32_t avail,
							    uint64_t *w)
{
	const __m256i soh = _mm256_set1_epi8(SOH), z = _mm256_setzero_si256();
	__m256i acc = z;
	__m128i s;
	uint32_t i = 0;
	for (; i + 64 <= t; i += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(q + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(q + i + 32));
		w[i >> 6] = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, soh)) |
			    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, soh)) << 32;
		acc = _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_sad_epu8(a, z), _mm256_sad_epu8(b, z)));
	}
	if (i < t) {
		if (LIKELY(i + 64 <= avail)) {
			uint32_t r = t - i;
			__m256i a = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(q + i)),
						     _mm256_loadu_si256((const __m256i *)(keep_lo + 64 - r)));
			__m256i b = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(q + i + 32)),
						     _mm256_loadu_si256((const __m256i *)(keep_lo + 96 - r)));
			w[i >> 6] = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, soh)) |
				    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, soh)) << 32;
			acc = _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_sad_epu8(a, z), _mm256_sad_epu8(b, z)));
		} else {
			w[i >> 6] = scan_tail_avx2(q, i, t, avail, &acc);
		}
	}
	s = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
	s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
	return (uint32_t)_mm_cvtsi128_si64(s);
}
#endif

#if defined(__x86_64__)
/* The same 64 bytes a step with AVX-512BW: one compare into a mask word,
 * one SAD; the last bytes with a masked load, which reads nothing past t. */
__attribute__((target("avx512bw"))) static uint32_t scan_avx512(const uint8_t *q, uint32_t t, uint64_t *w)
{
	const __m512i soh = _mm512_set1_epi8(SOH), z = _mm512_setzero_si512();
	__m512i acc = z;
	uint32_t i;
	for (i = 0; i + 64 <= t; i += 64) {
		__m512i v = _mm512_loadu_si512((const void *)(q + i));
		w[i >> 6] = _mm512_cmpeq_epi8_mask(v, soh);
		acc = _mm512_add_epi64(acc, _mm512_sad_epu8(v, z));
	}
	if (i < t) {
		__m512i v = _mm512_maskz_loadu_epi8(~0ull >> (64 - (t - i)), (const void *)(q + i));
		w[i >> 6] = _mm512_cmpeq_epi8_mask(v, soh);
		acc = _mm512_add_epi64(acc, _mm512_sad_epu8(v, z));
	}
	return lanes_mod256(acc);
}
#endif

static inline uint32_t scan(int isa, const uint8_t *q, uint32_t t, uint32_t avail, uint64_t *w)
{
#if defined(__x86_64__)
	if (isa >= FASTX_ISA_AVX512)
		return scan_avx512(q, t, w);
	if (isa >= FASTX_ISA_AVX2)
		return scan_avx2(q, t, avail, w);
#endif
	(void)isa;
	return scan_scalar(q, t, avail, w);
}

/* First SOH at or after k by the bitmap (which ends at lim: bits past it are
 * clear), or lim. */
static inline uint32_t next_soh(const uint64_t *w, uint32_t k, uint32_t lim)
{
	uint32_t wi = k >> 6;
	uint64_t m;
	if (UNLIKELY(k >= lim))
		return lim; /* (w[wi] may be past the last word written) */
	m = w[wi] >> (k & 63);
	if (LIKELY(m != 0))
		return k + (uint32_t)__builtin_ctzll(m);
	for (wi++; wi * 64 < lim; wi++)
		if (w[wi])
			return wi * 64 + (uint32_t)__builtin_ctzll(w[wi]);
	return lim;
}

/* The value of a 34= or 95= field q[j + 1 .. e) (at most max digits): 1 with *v. */
static inline int num_field(const uint8_t *q, uint32_t j, uint32_t e, uint32_t n, uint32_t max, uint64_t *v)
{
	uint32_t nd = e - (j + 1), i;
	*v = 0;
	if (nd > max)
		return 0;
	if (LIKELY(nd <= 8)) {
		uint64_t d = ld64_in(q, j + 1, n);
		if (nondigits(d) & (nd == 8 ? ~0ull : (1ull << (8 * nd)) - 1))
			return 0;
		if (nd)
			*v = digits8(d, nd);
		return 1;
	}
	for (i = j + 1; i < e; i++) {
		if (!IS_DIGIT(q[i]))
			return 0;
		*v = *v * 10 + (uint64_t)(q[i] - '0');
	}
	return 1;
}

/* ---- the body's fields ---- */

struct walk {
	uint64_t seq;
	uint32_t dl, have95, have96;
	uint32_t cut_e; /* W_CUT inside the 96= data: where its SOH will be; else 0 */
	const uint8_t *data;
};

enum { W_BAD = 0, W_END = 1, W_CUT = 2 };

/* Tags with rules of their own: 10 (the trailer: not in a body), 34, 35, 95, 96. */
#define SPECIAL_LO ((1ull << 10) | (1ull << 34) | (1ull << 35))
#define SPECIAL_HI ((1ull << (95 - 64)) | (1ull << (96 - 64)))

/* A 34= MsgSeqNum or 95= RawDataLength value read from q[..e) of a message whose trailer starts at t:
 * kept, the data length checked against what follows; 0 when it cannot fit (both walks). */
static inline __attribute__((always_inline)) int take_num(struct walk *o, uint32_t tag, uint64_t v, uint32_t t,
							  uint32_t e)
{
	if (tag == 34) {
		o->seq = v;
		return 1;
	}
	if (v > t - e - 1)
		return 0;
	o->dl = (uint32_t)v;
	o->have95 = 1;
	return 1;
}

/* The fields of the body q[h..t) as the state machine reads them (S_TAG0 to
 * S_DATA_END), up to lim = min(t, n) where q[0..n) is what there is: W_END
 * when every field up to lim is clean and lim is a field boundary, W_CUT
 * when q ends (lim == n) inside a field whose bytes so far are clean, W_BAD
 * when a rule is broken in q[0..lim] (a field running into the body's end,
 * t < n, counts). w is the SOH bitmap of q[0..lim). With msgtype, 35= is
 * copied there as the state machine does. */
static inline __attribute__((always_inline)) int walk(const uint8_t *q, uint32_t h, uint32_t t, uint32_t lim,
						      uint32_t n, const uint64_t *w, char *msgtype, struct walk *o)
{
	uint32_t k = h, nf;
	o->seq = 0;
	o->dl = 0;
	o->have95 = 0;
	o->have96 = 0;
	o->cut_e = 0;
	o->data = q;
	for (nf = 0; nf < STEP_MAX_BODY / 2 + 1; nf++) {
		uint32_t tag, j, e, a;
		if (k >= lim)
			return W_END;
		a = (uint32_t)ld64_in(q, k, n) ^ 0x3d3030u; /* "dd=" becomes 0..9, 0..9, 0 */
		if (LIKELY((((a + 0x7676u) | a) & 0x8080u) == 0 && (a & 0xff0000u) == 0 && k + 2 < lim)) {
			/* the usual two-digit tag */
			tag = (a & 0xfu) * 10 + (a >> 8 & 0xfu);
			j = k + 2;
		} else {
			uint32_t v = 0;
			for (j = k; j < lim && IS_DIGIT(q[j]); j++) {
				if (v >= 100000000u)
					return W_BAD;
				v = v * 10 + (uint32_t)(q[j] - '0');
			}
			if (j == lim)
				return lim == n ? W_CUT : W_BAD;
			if (j == k || q[j] != '=')
				return W_BAD;
			tag = v;
		}
		/* q[j] is the '=' */
		if (LIKELY(tag >= 128 || !((tag < 64 ? SPECIAL_LO >> tag : SPECIAL_HI >> (tag - 64)) & 1))) {
			/* an ordinary field: a value that is not empty, then SOH */
			e = next_soh(w, j + 1, lim);
			if (UNLIKELY(e <= j + 1 || e >= lim)) {
				if (e < lim)
					return W_BAD; /* empty value */
				return lim == n ? W_CUT : W_BAD;
			}
			k = e + 1;
			continue;
		}
		if (tag == 96) {
			if (!o->have95 || o->have96 || o->dl + 2 > t - j)
				return W_BAD;
			e = j + 1 + o->dl; /* the SOH after the data, < t */
			if (e >= n) {
				o->cut_e = e;
				return W_CUT;
			}
			if (q[e] != SOH)
				return W_BAD;
			o->data = q + j + 1;
			o->have96 = 1;
			k = e + 1;
			continue;
		}
		if (tag == 10 || (tag == 95 && o->have95))
			return W_BAD;
		e = next_soh(w, j + 1, lim);
		if (e == j + 1 && e < lim)
			return W_BAD; /* empty value */
		if (tag != 35) {
			/* 34= MsgSeqNum, 95= RawDataLength: digits only */
			uint64_t v;
			if (!num_field(q, j, e, n, tag == 34 ? STEP_MAX_SEQ_DIG : STEP_MAX_DLEN_DIG, &v))
				return W_BAD;
			if (e < lim && !take_num(o, tag, v, t, e))
				return W_BAD;
		} else if (msgtype && e < lim) {
			uint32_t len = e - (j + 1) < STEP_MAX_MSGTYPE ? e - (j + 1) : STEP_MAX_MSGTYPE;
			memcpy(msgtype, q + j + 1, len);
			msgtype[len] = 0;
		}
		if (e == lim)
			return lim == n ? W_CUT : W_BAD;
		k = e + 1;
	}
	return W_BAD;
}

/* ---- the header fields of the last message ----
 *
 * Consecutive messages of a feed mostly share their header's fields: the
 * same tags in the same order ("35=UA5801|49=SSE|56=VDE|34=n|52=time|
 * 95=len|96="), only values changing -- and with them the values' lengths:
 * 9= (where the body starts), 34= and 95= gain and lose digits from one
 * message to the next (in the SSE feed of bench_rx, about 4 messages in 10
 * differ in some digit count from the one before). So x->smemo keeps the
 * tag sequence of the last message framed, not its positions: memo_walk()
 * finds each field's end from the SOH bitmap as walk() does, checks the
 * field's "dd=" bytes equal to the recorded ones, and reads only the fields
 * with rules of their own (34=, 35=, 95=, 96=) as walk() reads them. A
 * recorded tag is two digits then '=' (walk()'s usual case), never 10=, and
 * the sequence was accepted by walk() once: one 95= and then 96= last. With
 * equal tag bytes walk() reads the same tags, finds the same SOH, makes the
 * same checks; what memo_walk() does not settle itself (a field cut by the
 * end of q, an empty value, bytes after the 96= data, another tag) it
 * leaves to walk(), which reads the message from its start. */

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* 64 bits of the bitmap from bit a; words at or past bit lim (not
 * written) read as 0. */
static inline uint64_t bits64(const uint64_t *w, uint32_t a, uint32_t lim)
{
	uint32_t wi = a >> 6, sh = a & 63;
	uint64_t r = wi * 64 < lim ? w[wi] >> sh : 0;
	if (sh && (wi + 1) * 64 < lim)
		r |= w[wi + 1] << (64 - sh);
	return r;
}

/* Whether "dd=" (two digits and '=') is the low three bytes of a. */
static inline int tag2(uint32_t a)
{
	a ^= 0x3d3030u;
	return (((a + 0x7676u) | a) & 0x8080u) == 0 && (a & 0xff0000u) == 0;
}

/* Record the tag sequence of the whole message q (body q[h..t), accepted
 * by walk()) when memo_walk() can use it (see above); else none. */
static void memo_build(struct fastx_step_memo *m, const uint8_t *q, uint32_t h, uint32_t t, const uint64_t *w)
{
	uint32_t k = h, nf, have95 = 0;
	m->nf = 0;
	m->builds++;
	for (nf = 0; nf < 16 && k + 3 < t; nf++) {
		uint32_t a = ld32(q + k) & 0xffffffu, tag;
		if (!tag2(a))
			return;
		tag = (a & 0xfu) * 10 + (a >> 8 & 0xfu);
		if (tag == 10 || (tag == 95 && have95))
			return;
		have95 |= tag == 95;
		m->tagw[nf] = a | (tag == 34 || tag == 35 || tag == 95 || tag == 96 ? tag : 0) << 24;
		if (tag == 96) {
			if (have95)
				m->nf = nf + 1;
			return;
		}
		k = next_soh(w, k + 3, t) + 1;
	}
}

/* memo_walk()'s field of tag word tw (kind its special tag or 0) at q[k]
 * when q ends (lim == n) before that field's SOH: W_CUT when walk() would
 * say W_CUT there (or W_END, the head ending right at the field: the same
 * for a head) -- the tag bytes there equal to the recorded ones, no SOH in
 * the value so far, a 34= or 95= value so far digits it may have -- else
 * W_BAD (walk() decides). Reads nothing at or past lim. */
static inline int memo_cut(const uint8_t *q, uint32_t k, uint32_t lim, uint32_t n, uint32_t tw, uint32_t kind)
{
	uint32_t r = lim - k, i;
	uint64_t v;
	if (lim != n)
		return W_BAD; /* the body ends there: a field running into it is an error */
	for (i = 0; i < r && i < 3; i++)
		if (q[k + i] != (uint8_t)(tw >> (8 * i)))
			return W_BAD;
	if (r <= 3)
		return W_CUT;
	for (i = k + 3; i < lim; i++)
		if (q[i] == SOH)
			return W_BAD;
	if ((kind == 34 || kind == 95) &&
	    !num_field(q, k + 2, lim, n, kind == 34 ? STEP_MAX_SEQ_DIG : STEP_MAX_DLEN_DIG, &v))
		return W_BAD;
	return W_CUT;
}

/* ---- fixed places ----
 *
 * In a feed the fields before 95= mostly keep their lengths too (35=, 49=,
 * 56=, 52= do; 34= gains a digit now and then): memo_fix() records where
 * each of them starts (from the body's first byte) and the SOH bitmap of
 * their bytes. When the next message's bitmap over those bytes is the same,
 * every one of those fields ends where it did, each value is non-empty and
 * holds no SOH, as the recorded message's were; what is left to check is
 * each field's "dd=" bytes, at known places and independent of each other,
 * and to read 34= and 35= -- instead of one field after the other, each end
 * found from the last (memo_walk's loop). Anything else (another bitmap, a
 * tag not equal) goes to that loop from the first field. */

static inline uint64_t low_bits(uint32_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* Record the places of the fields before 95= of the whole message q (body
 * q[h..t), read by the tag sequence m); none when they do not fit (more
 * than 128 bytes, 34= or 35= twice). */
static void memo_fix(struct fastx_step_memo *m, const uint8_t *q, uint32_t h, uint32_t t, const uint64_t *w)
{
	uint32_t i, k = h, p = 0, e, kind;
	m->fx_n = 0;
	while (p < m->nf && (m->tagw[p] >> 24) != 95)
		p++;
	if (p == 0 || p >= m->nf)
		return;
	memset(m->fx_img, 0, sizeof m->fx_img);
	memset(m->fx_msk, 0, sizeof m->fx_msk);
	m->fx_tags[0] = m->fx_tags[1] = 0;
	m->fx_v34[0] = m->fx_v34[1] = m->fx_v35[0] = m->fx_v35[1] = 0;
	for (i = 0; i < p; i++) {
		if (((ld32(q + k) ^ m->tagw[i]) & 0xffffffu) != 0)
			return;
		e = next_soh(w, k + 3, t);
		if (e <= k + 3 || e >= t || e + 1 - h > 128)
			return; /* (not so in a message the walk accepted) */
		memcpy(m->fx_img + (k - h), q + k, 3);
		memset(m->fx_msk + (k - h), 0xff, 3);
		m->fx_tags[(k - h) >> 6] |= 7ull << ((k - h) & 63);
		if (((k - h) & 63) > 61) /* "dd=" across the two words */
			m->fx_tags[1] |= 7ull >> (64 - ((k - h) & 63));
		kind = m->tagw[i] >> 24;
		if (kind == 34 || kind == 35) {
			uint8_t *v = kind == 34 ? m->fx_v34 : m->fx_v35;
			if (v[1] != 0)
				return;
			v[0] = (uint8_t)(k + 3 - h);
			v[1] = (uint8_t)(e - h);
		}
		k = e + 1;
	}
	m->fx_len = k - h;
	m->fx_bits[0] = bits64(w, h, t) & low_bits(m->fx_len);
	m->fx_bits[1] = m->fx_len > 64 ? bits64(w, h + 64, t) & low_bits(m->fx_len - 64) : 0;
	m->fx_n = p;
}

/* Whether the tag bytes of p[0..len) are those of the image (len <= 128;
 * round_up(len, 32) bytes readable at p when vec). */
static inline int tags_scalar(const struct fastx_step_memo *m, const uint8_t *p, uint32_t len)
{
	uint64_t bad = 0;
	uint32_t i;
	for (i = 0; i + 8 <= len; i += 8)
		bad |= (ld64(p + i) ^ ld64(m->fx_img + i)) & ld64(m->fx_msk + i);
	for (; i < len; i++)
		bad |= (uint64_t)((p[i] ^ m->fx_img[i]) & m->fx_msk[i]);
	return bad == 0;
}

/* 35='s value q[j1..e) into msgtype, cut at STEP_MAX_MSGTYPE; one fixed-size copy where the input
 * has the bytes (n: the input's end), the exact length only at its end. */
static inline __attribute__((always_inline)) void copy_msgtype(char *msgtype, const uint8_t *q, uint32_t j1,
							       uint32_t e, uint32_t n)
{
	uint32_t l = e - j1 < STEP_MAX_MSGTYPE ? e - j1 : STEP_MAX_MSGTYPE;
	if (LIKELY(j1 + STEP_MAX_MSGTYPE + 1 <= n))
		memcpy(msgtype, q + j1, STEP_MAX_MSGTYPE + 1); /* (cut at l below) */
	else
		memcpy(msgtype, q + j1, l);
	msgtype[l] = 0;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static int tags_avx2(const struct fastx_step_memo *m, const uint8_t *p, uint32_t len)
{
	__m256i bad = _mm256_and_si256(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)p),
							 _mm256_load_si256((const __m256i *)m->fx_img)),
				       _mm256_load_si256((const __m256i *)m->fx_msk));
	uint32_t i;
	for (i = 32; i < len; i += 32)
		bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(p + i)),
									     _mm256_load_si256((const __m256i *)(m->fx_img + i))),
							    _mm256_load_si256((const __m256i *)(m->fx_msk + i))));
	return _mm256_testz_si256(bad, bad);
}
#endif

/* The fields before 95= of the body at q[h..) by their recorded places (see
 * above), h + fx_len <= lim, sb the bitmap from h: 1 with 34= and 35= read
 * into *o and msgtype as memo_walk()'s loop reads them; 0 when not so (the
 * loop decides). */
static inline __attribute__((always_inline)) int fixed_places(const struct fastx_step_memo *m, const uint8_t *q,
							      uint32_t h, uint32_t lim, uint32_t n,
							      const uint64_t *w, uint64_t sb, char *msgtype,
							      struct walk *o, int isa)
{
	uint32_t len = m->fx_len;
	if ((sb & low_bits(len)) != m->fx_bits[0])
		return 0;
	if (len > 64 && (bits64(w, h + 64, lim) & low_bits(len - 64)) != m->fx_bits[1])
		return 0;
#if defined(__x86_64__)
	if (isa >= FASTX_ISA_AVX2 && h + ((len + 31) & ~31u) <= n) {
		if (!tags_avx2(m, q + h, len))
			return 0;
	} else
#endif
	if (!tags_scalar(m, q + h, len))
		return 0;
	(void)isa;
	if (m->fx_v35[1]) {
		copy_msgtype(msgtype, q, h + m->fx_v35[0], h + m->fx_v35[1], n);
	}
	if (m->fx_v34[1]) {
		uint64_t v;
		if (!num_field(q, h + m->fx_v34[0] - 1, h + m->fx_v34[1], n, STEP_MAX_SEQ_DIG, &v))
			return 0;
		o->seq = v;
	}
	return 1;
}

/* A head (lim == n) ending inside the fields before 95= (h + fx_len > lim,
 * sb the bitmap from h): the places' test over the L = lim - h bytes there
 * are. Equal SOH bits say each field wholly before lim ends where it did
 * (its value not empty) and the field lim cuts holds no SOH so far; equal
 * tag bytes up to lim are memo_cut()'s compare for the cut field's "dd="
 * too; 34= and 35= read when whole, a cut 34= value's digits checked as
 * memo_cut() does. W_CUT (the loop's answer field by field) with *o and
 * msgtype as the loop leaves them; W_BAD when not so (the loop decides). */
static inline __attribute__((always_inline)) int fixed_cut(const struct fastx_step_memo *m, const uint8_t *q,
							   uint32_t h, uint32_t lim, const uint64_t *w, uint64_t sb,
							   char *msgtype, struct walk *o)
{
	uint32_t L = lim - h, n = lim;
	uint64_t v;
	if (((sb ^ m->fx_bits[0]) & low_bits(L)) != 0)
		return W_BAD;
	if (L > 64 && ((bits64(w, h + 64, lim) ^ m->fx_bits[1]) & low_bits(L - 64)) != 0)
		return W_BAD;
	if (L >= 8) {
		/* tags_scalar() with its last bytes read as the word ending at lim */
		uint64_t bad = 0;
		uint32_t i;
		for (i = 0; i + 8 <= L; i += 8)
			bad |= (ld64(q + h + i) ^ ld64(m->fx_img + i)) & ld64(m->fx_msk + i);
		i = L - 8;
		bad |= (ld64(q + h + i) ^ ld64(m->fx_img + i)) & ld64(m->fx_msk + i);
		if (bad != 0)
			return W_BAD;
	} else if (!tags_scalar(m, q + h, L)) {
		return W_BAD;
	}
	if (m->fx_v35[1] && m->fx_v35[1] < L) {
		copy_msgtype(msgtype, q, h + m->fx_v35[0], h + m->fx_v35[1], n);
	}
	if (m->fx_v34[1] && m->fx_v34[0] < L) {
		uint32_t e = m->fx_v34[1] < L ? m->fx_v34[1] : L;
		if (!num_field(q, h + m->fx_v34[0] - 1, h + e, n, STEP_MAX_SEQ_DIG, &v))
			return W_BAD;
		if (m->fx_v34[1] < L)
			o->seq = v; /* (a cut value is not taken yet) */
	}
	return W_CUT;
}

/* memo_walk()'s and fixed_fast()'s *o before the first field. */
static inline __attribute__((always_inline)) void walk_clear(struct walk *o)
{
	o->seq = 0;
	o->dl = 0;
	o->have95 = 0;
	o->have96 = 0;
	o->cut_e = 0;
}

/* The 96= field at q[k..), last in the tag sequence m, after 95= gave o->dl:
 * its data, its SOH, and the body q[..t) ends there (q[0..n) is what there
 * is, lim = min(n, t)). W_END with o->data, W_CUT when q ends inside the
 * data (o->cut_e: where its SOH will be), else W_BAD. */
static inline __attribute__((always_inline)) int memo_last96(const struct fastx_step_memo *m, const uint8_t *q,
							     uint32_t k, uint32_t t, uint32_t lim, uint32_t n,
							     struct walk *o)
{
	uint32_t j, e;
	if (k + 4 > n || ((ld32(q + k) ^ m->tagw[m->nf - 1]) & 0xffffffu) != 0 || k + 2 >= lim)
		return W_BAD;
	j = k + 2;
	if (o->dl + 2 > t - j)
		return W_BAD;
	e = j + 1 + o->dl;
	if (e >= n) {
		o->cut_e = e;
		return W_CUT;
	}
	if (q[e] != SOH || e + 1 != t)
		return W_BAD;
	o->data = q + j + 1;
	o->have96 = 1;
	return W_END;
}

/* walk() of the body q[h..t) by the tag sequence m, with q[0..n) there and
 * w the SOH bitmap of q[0..lim), lim = min(n, t): W_END (the whole body,
 * n > t) or W_CUT (q ends in the 96= data, or, a head, in a field before
 * it: memo_cut()) with *o as walk() leaves it,
 * W_BAD when not decided here (then walk() reads the message). padded
 * (a constant): q[0..lim + 4) is readable (bulk: the trailer follows). */
static inline __attribute__((always_inline)) int memo_walk(const struct fastx_step_memo *m, const uint8_t *q,
							   uint32_t h, uint32_t t, uint32_t lim, uint32_t n,
							   const uint64_t *w, char *msgtype, struct walk *o,
							   const int padded, uint32_t *fixed, int isa)
{
	uint32_t i = 0, k = h, j, e, base = h, last = m->nf - 1;
	uint64_t sb; /* the SOH bits from base not yet consumed: each field's end is the next one */
	if (m->nf == 0)
		return W_BAD;
	walk_clear(o);
	sb = bits64(w, h, lim);
	*fixed = 0;
	if (m->fx_n != 0 && h + m->fx_len <= lim && fixed_places(m, q, h, lim, n, w, sb, msgtype, o, isa)) {
		/* the fields before 95= read by place: on from 95= */
		*fixed = 1;
		i = m->fx_n;
		k = base = h + m->fx_len;
		sb = bits64(w, k, lim);
		if (padded && i + 1 == last && (m->tagw[i] >> 24) == 95) {
			/* the usual rest, 95= then 96= (memo_fix ends the places at the
			 * first 95=): the loop's steps for that one field, its kind known */
			uint64_t v;
			if (((ld32(q + k) ^ m->tagw[i]) & 0xffffffu) != 0 || sb == 0)
				return W_BAD;
			e = k + (uint32_t)__builtin_ctzll(sb);
			if (e == k + 3 || !num_field(q, k + 2, e, n, STEP_MAX_DLEN_DIG, &v) || !take_num(o, 95, v, t, e))
				return W_BAD;
			k = e + 1;
			i = last;
		}
	} else if (!padded && m->fx_n != 0 && lim == n && h + m->fx_len > lim) {
		/* a head cut in the fields before 95= */
		if (fixed_cut(m, q, h, lim, w, sb, msgtype, o) == W_CUT) {
			*fixed = 1;
			return W_CUT;
		}
		o->seq = 0;
		msgtype[0] = 0;
	}
	for (; i < last; i++) {
		uint32_t tw = m->tagw[i], kind = tw >> 24;
		/* q[k..k+4) must be readable: padded, or a whole field needs "dd=",
		 * a byte of value and its SOH before lim anyway */
		if (!padded && k + 4 >= lim)
			return memo_cut(q, k, lim, n, tw, kind); /* a head ending in this field */
		if (((ld32(q + k) ^ tw) & 0xffffffu) != 0)
			return W_BAD;
		/* fields are consecutive and q[k..k+3) is "dd=": the first SOH bit
		 * left (all are at or after k, none at or past lim) is
		 * next_soh(w, k + 3, lim), k + 3 <= e < lim; none left (k too near
		 * lim for a whole field, in the padded case too) is W_BAD */
		if (UNLIKELY(sb == 0)) {
			base = k;
			sb = bits64(w, k, lim);
			if (sb == 0) {
				/* no SOH in q[k..k + 64): a head ending in this field's value, or a long value */
				if (!padded && lim - k <= 64)
					return memo_cut(q, k, lim, n, tw, kind);
				return W_BAD;
			}
		}
		e = base + (uint32_t)__builtin_ctzll(sb);
		sb &= sb - 1;
		if (e == k + 3)
			return W_BAD; /* empty value */
		if (UNLIKELY(kind != 0)) {
			j = k + 2; /* the '=' */
			if (kind == 35) {
				copy_msgtype(msgtype, q, j + 1, e, n);
			} else {
				uint64_t v;
				if (!num_field(q, j, e, n, kind == 34 ? STEP_MAX_SEQ_DIG : STEP_MAX_DLEN_DIG, &v) ||
				    !take_num(o, kind, v, t, e))
					return W_BAD;
			}
		}
		k = e + 1;
	}
	return memo_last96(m, q, k, t, lim, n, o);
}

#if defined(__x86_64__)
/* fixed_fast()'s test of the fields before 95= at q[0..len) (len <= 128,
 * q[0..round_up(len, 32)) readable for AVX2): 1 when their SOH bytes are
 * where the recorded message had them and only there, and their tag bytes
 * equal -- fixed_places()' test, without the SOH bitmap. */
__attribute__((target("avx512bw,bmi2"))) static int places_avx512(const struct fastx_step_memo *m,
								    const uint8_t *q, uint32_t len)
{
	const __m512i soh = _mm512_set1_epi8(SOH);
	__m512i a = _mm512_maskz_loadu_epi8(_bzhi_u64(~0ull, len), (const void *)q);
	if (_mm512_cmpeq_epi8_mask(a, soh) != m->fx_bits[0] ||
	    _mm512_mask_cmpneq_epi8_mask(m->fx_tags[0], a, _mm512_loadu_si512((const void *)m->fx_img)) != 0)
		return 0;
	if (len <= 64)
		return 1;
	a = _mm512_maskz_loadu_epi8(_bzhi_u64(~0ull, len - 64), (const void *)(q + 64));
	return _mm512_cmpeq_epi8_mask(a, soh) == m->fx_bits[1] &&
	       _mm512_mask_cmpneq_epi8_mask(m->fx_tags[1], a, _mm512_loadu_si512((const void *)(m->fx_img + 64))) == 0;
}

__attribute__((target("avx2"))) static int places_avx2(const struct fastx_step_memo *m, const uint8_t *q,
						       uint32_t len)
{
	const __m256i soh = _mm256_set1_epi8(SOH);
	uint64_t sb[2] = {0, 0};
	uint32_t i;
	for (i = 0; i < len; i += 32)
		sb[i >> 6] |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
				      _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(q + i)), soh))
			      << (i & 63);
	return (sb[0] & low_bits(len)) == m->fx_bits[0] &&
	       (len <= 64 || (sb[1] & low_bits(len - 64)) == m->fx_bits[1]) && tags_avx2(m, q, len);
}
#endif

/* memo_walk()'s usual case for a whole body (bulk), with AVX2 or AVX-512:
 * the fields before 95= at their recorded places (places_avx2/_avx512),
 * followed by 95= and 96= alone, read without the SOH bitmap: 95= ends at
 * the first byte after its digits, which must be its SOH; 96= as
 * memo_walk() reads it. 1 with *o as memo_walk() leaves it for W_END (35=
 * not copied: the message has 96= data), 0 when not so (the caller takes
 * the bitmap path, which decides). n (>= t + 7) bytes are readable at q. */
static int fixed_fast(const struct fastx_step_memo *m, const uint8_t *q, uint32_t h, uint32_t t, uint32_t n,
		      struct walk *o, int isa)
{
	const uint32_t len = m->fx_len, k = h + len, last = m->nf - 1;
	uint64_t v, d, nd_m;
	uint32_t nd, e;
	if (m->fx_n == 0 || m->fx_n + 1 != last || k + 4 > t)
		return 0;
#if defined(__x86_64__)
	if (isa >= FASTX_ISA_AVX512) {
		if (!places_avx512(m, q + h, len))
			return 0;
	} else if (isa >= FASTX_ISA_AVX2 && h + ((len + 31) & ~31u) <= n) {
		if (!places_avx2(m, q + h, len))
			return 0;
	} else
#endif
	{
		(void)isa;
		return 0;
	}
	walk_clear(o);
	/* (35= not copied: a data message's msgtype stays empty, see
	 * fastx_step_feed) */
	if (m->fx_v34[1]) {
		if (!num_field(q, h + m->fx_v34[0] - 1, h + m->fx_v34[1], n, STEP_MAX_SEQ_DIG, &v))
			return 0;
		o->seq = v;
	}
	/* 95= (k + 11 <= t + 7 <= n: the eight bytes after "95=" are readable) */
	if (((ld32(q + k) ^ m->tagw[m->fx_n]) & 0xffffffu) != 0)
		return 0;
	d = ld64(q + k + 3);
	nd_m = nondigits(d);
	nd = nd_m ? (uint32_t)__builtin_ctzll(nd_m) >> 3 : 8;
	e = k + 3 + nd;
	if (nd == 0 || nd > STEP_MAX_DLEN_DIG || q[e] != SOH || !take_num(o, 95, digits8(d, nd), t, e))
		return 0;
	/* 96=, last (n >= t + 7: never cut) */
	return memo_last96(m, q, e + 1, t, t, n, o) == W_END;
}

/* ---- whole messages ---- */

/* The trailer "10=ddd" SOH at q[t..t+7) (t >= 1, all readable): 1 with
 * *ck the checksum it states. */
static inline int trailer(const uint8_t *q, uint32_t t, uint32_t *ck)
{
	/* q[t - 1 .. t + 7): the body's last byte, "10=", three digits, SOH */
	uint64_t tr = ld64(q + t - 1);
	if ((tr & 0xff000000ffffff00ull) != 0x010000003d303100ull || (nondigits(tr) & 0x00ffffff00000000ull) != 0)
		return 0;
	*ck = (uint32_t)(tr >> 32 & 0xf) * 100 + (uint32_t)(tr >> 40 & 0xf) * 10 + (uint32_t)(tr >> 48 & 0xf);
	return 1;
}

/* The header "8=STEP.v" SOH "9=n" SOH of q[0..avail) (avail >= 40), as
 * step_scan_frame() reads it, with word operations: 1 with *h the body's
 * first byte and *v its length. */
static inline __attribute__((always_inline)) int frame_head(const uint8_t *q, uint32_t avail, uint32_t *h, uint32_t *v)
{
	uint32_t k, nd;
	uint64_t x, nd_m;
	if (UNLIKELY(avail < 40))
		return 0;
	if (LIKELY(ld64(q) == 0x312e504554533d38ull && (ld64(q + 8) & 0x00ffffffffffffffull) == 0x3d3901302e302eull)) {
		k = 12; /* "8=STEP.1.0.0" SOH "9=", the version SSE sends: its SOH found without a search */
	} else {
		if ((ld64(q) & 0x00ffffffffffffffull) != 0x2e504554533d38ull) /* "8=STEP." */
			return 0;
		k = step_find_soh(q, 7, 7 + STEP_MAX_VER + 1, (STEP_MAX_VER + 1) / 8 + 2);
		if (k == 7 + STEP_MAX_VER + 1 || q[k + 1] != '9' || q[k + 2] != '=')
			return 0;
	}
	x = ld64(q + k + 3); /* k + 11 <= 35 < avail */
	nd_m = nondigits(x);
	nd = nd_m ? (uint32_t)__builtin_ctzll(nd_m) >> 3 : 8;
	if (nd == 0 || nd > STEP_MAX_LEN_DIG || q[k + 3 + nd] != SOH)
		return 0;
	*v = (uint32_t)digits8(x, nd);
	if (*v > STEP_MAX_BODY)
		return 0;
	*h = k + 4 + nd;
	return 1;
}

/* The trailer's three checksum digits for each byte sum mod 256, as the
 * little-endian bytes "ddd" of the word read at "10=": one compare checks
 * both that they are digits and that they state the sum. */
static const uint32_t ck_digits[256] = {
	0x303030, 0x313030, 0x323030, 0x333030, 0x343030, 0x353030, 0x363030, 0x373030, 0x383030, 0x393030,
	0x303130, 0x313130, 0x323130, 0x333130, 0x343130, 0x353130, 0x363130, 0x373130, 0x383130, 0x393130,
	0x303230, 0x313230, 0x323230, 0x333230, 0x343230, 0x353230, 0x363230, 0x373230, 0x383230, 0x393230,
	0x303330, 0x313330, 0x323330, 0x333330, 0x343330, 0x353330, 0x363330, 0x373330, 0x383330, 0x393330,
	0x303430, 0x313430, 0x323430, 0x333430, 0x343430, 0x353430, 0x363430, 0x373430, 0x383430, 0x393430,
	0x303530, 0x313530, 0x323530, 0x333530, 0x343530, 0x353530, 0x363530, 0x373530, 0x383530, 0x393530,
	0x303630, 0x313630, 0x323630, 0x333630, 0x343630, 0x353630, 0x363630, 0x373630, 0x383630, 0x393630,
	0x303730, 0x313730, 0x323730, 0x333730, 0x343730, 0x353730, 0x363730, 0x373730, 0x383730, 0x393730,
	0x303830, 0x313830, 0x323830, 0x333830, 0x343830, 0x353830, 0x363830, 0x373830, 0x383830, 0x393830,
	0x303930, 0x313930, 0x323930, 0x333930, 0x343930, 0x353930, 0x363930, 0x373930, 0x383930, 0x393930,
	0x303031, 0x313031, 0x323031, 0x333031, 0x343031, 0x353031, 0x363031, 0x373031, 0x383031, 0x393031,
	0x303131, 0x313131, 0x323131, 0x333131, 0x343131, 0x353131, 0x363131, 0x373131, 0x383131, 0x393131,
	0x303231, 0x313231, 0x323231, 0x333231, 0x343231, 0x353231, 0x363231, 0x373231, 0x383231, 0x393231,
	0x303331, 0x313331, 0x323331, 0x333331, 0x343331, 0x353331, 0x363331, 0x373331, 0x383331, 0x393331,
	0x303431, 0x313431, 0x323431, 0x333431, 0x343431, 0x353431, 0x363431, 0x373431, 0x383431, 0x393431,
	0x303531, 0x313531, 0x323531, 0x333531, 0x343531, 0x353531, 0x363531, 0x373531, 0x383531, 0x393531,
	0x303631, 0x313631, 0x323631, 0x333631, 0x343631, 0x353631, 0x363631, 0x373631, 0x383631, 0x393631,
	0x303731, 0x313731, 0x323731, 0x333731, 0x343731, 0x353731, 0x363731, 0x373731, 0x383731, 0x393731,
	0x303831, 0x313831, 0x323831, 0x333831, 0x343831, 0x353831, 0x363831, 0x373831, 0x383831, 0x393831,
	0x303931, 0x313931, 0x323931, 0x333931, 0x343931, 0x353931, 0x363931, 0x373931, 0x383931, 0x393931,
	0x303032, 0x313032, 0x323032, 0x333032, 0x343032, 0x353032, 0x363032, 0x373032, 0x383032, 0x393032,
	0x303132, 0x313132, 0x323132, 0x333132, 0x343132, 0x353132, 0x363132, 0x373132, 0x383132, 0x393132,
	0x303232, 0x313232, 0x323232, 0x333232, 0x343232, 0x353232, 0x363232, 0x373232, 0x383232, 0x393232,
	0x303332, 0x313332, 0x323332, 0x333332, 0x343332, 0x353332, 0x363332, 0x373332, 0x383332, 0x393332,
	0x303432, 0x313432, 0x323432, 0x333432, 0x343432, 0x353432, 0x363432, 0x373432, 0x383432, 0x393432,
	0x303532, 0x313532, 0x323532, 0x333532, 0x343532, 0x353532,
};

/* Header and trailer of a whole message q[0..avail) (q[0] == '8', avail >=
 * 40), as step_scan_frame() reads them, with word operations; *ckd the
 * trailer's three digit bytes (checked against the sum by the caller:
 * ck_digits), the shape around them checked here. */
static inline int frame(const uint8_t *q, uint32_t avail, uint32_t *h, uint32_t *t, uint32_t *ckd)
{
	uint32_t v, tt;
	uint64_t tr;
	if (!frame_head(q, avail, h, &v))
		return 0;
	tt = *h + v;
	if (tt + 7 > avail)
		return 0; /* not complete in this chunk */
	*t = tt;
	/* q[t - 1 .. t + 7): the body's last byte SOH, "10=", three bytes, SOH */
	tr = ld64(q + tt - 1);
	if ((tr & 0xff000000ffffff00ull) != 0x010000003d303100ull)
		return 0;
	*ckd = (uint32_t)(tr >> 32) & 0xffffffu;
	return 1;
}

/* s->msg for the whole message q[0..t + 7) whose fields bulk() read into o,
 * as the state machine fills it; returns its length. */
static inline __attribute__((always_inline)) uint32_t taken(struct step_deframer *s, const uint8_t *q, uint32_t t,
							    const struct walk *o)
{
	s->msg.seq = o->seq;
	s->msg.len = t + 7;
	if (!o->have96) {
		s->msg.data = s->body;
		s->msg.data_len = 0;
		s->msg.raw = q; /* the whole message, for the session layer */
		s->no_data++;
	} else {
		s->msg.data = o->data; /* in the caller's chunk (or body[]): no copy */
		s->msg.data_len = o->dl;
		s->msg.raw = 0;
	}
	return t + 7;
}

/* bulk() for a message fixed_fast() did not take: its SOH bitmap, the fields
 * walked by the memo's tag sequence or one by one (memo_walk, walk), the
 * memo recorded again when they changed. Out of line: its bitmap (4 KB, for
 * the longest body) and the walks' registers stay out of the usual path's
 * frame. */
__attribute__((noinline)) static uint32_t bulk_walk(struct fastx_dec *x, struct step_deframer *s, const uint8_t *q,
						    uint32_t avail, int isa, uint32_t h, uint32_t t, uint32_t ckd)
{
	uint32_t sum, walked = 0, fixed = 0;
	uint64_t w[SCAN_WORDS];
	struct walk o;

	sum = scan(isa, q, t, avail, w);
	if (memo_walk(&x->smemo, q, h, t, t, avail, w, s->msg.msgtype, &o, 1, &fixed, isa) == W_END) {
		x->smemo.hits++;
	} else {
		if (walk(q, h, t, t, avail, w, s->msg.msgtype, &o) != W_END)
			return 0;
		walked = 1;
	}
	if ((o.have95 && !o.have96) || ckd != ck_digits[sum & 0xffu])
		return 0;
	if (o.have96)
		s->msg.msgtype[0] = 0; /* a data message: see fastx_step_feed */
	if (walked)
		memo_build(&x->smemo, q, h, t, w);
	if (fixed && !walked)
		x->smemo.fx_hits++;
	else
		memo_fix(&x->smemo, q, h, t, w); /* a new layout, or other lengths before 95= */
	return taken(s, q, t, &o);
}

/* A whole message at q[0..avail), q[0] == '8', when the state machine would
 * deliver it: fills s->msg as it would (msg.data into q, no copy) and
 * returns its length; 0 when not taken. */
static uint32_t bulk(struct fastx_dec *x, struct step_deframer *s, const uint8_t *q, uint32_t avail, int isa)
{
	uint32_t h, t, ckd;
	struct walk o;

	if (!frame(q, avail, &h, &t, &ckd))
		return 0;
	/* msg.msgtype: fixed_fast() does not read 35=; the bitmap path
	 * (bulk_walk) copies it as it walks, as step_fast() does, and empties
	 * it again for a data message (msg is only meaningful after STEP_MSG,
	 * and the state machine rewrites it) */
	s->msg.msgtype[0] = 0;
	if (LIKELY(fixed_fast(&x->smemo, q, h, t, avail, &o, isa))) {
		/* the usual message: no bitmap wanted, only the byte sum (the
		 * counters as the bitmap path leaves them) */
		x->smemo.hits++;
		if (ckd != ck_digits[sum_bytes(isa, q, t) & 0xffu])
			return 0;
		x->smemo.fx_hits++;
		return taken(s, q, t, &o);
	}
	return bulk_walk(x, s, q, avail, isa, h, t, ckd);
}

/* The reference state machine on the same state (anything bulk() does not
 * settle), a data message's msgtype then emptied as bulk() leaves it. */
static uint32_t machine(struct fastx_dec *x, struct step_deframer *s, const uint8_t *p, uint32_t n, int *status)
{
	uint32_t used = step_feed(s, p, n, status);
	x->step_machine++;
	if (*status == STEP_MSG && !s->msg.raw)
		s->msg.msgtype[0] = 0;
	return used;
}

/* ---- messages split across chunks ----
 *
 * The state machine would take the head of a split message byte by byte
 * (~7 instructions a byte, ~2,700 a message, callgrind) and then its tail.
 * Instead, when the head is "clean" -- the state machine, from state S_HUNT
 * with nothing held, would consume every byte of it without an event -- it
 * is copied into body[] (where the state machine keeps it too) and held as
 * pending bytes body[0..m) (STEP_PEND(0, m), step_deframe.h); the message's
 * length goes in body_len, which the state machine does not read while
 * hunting. When the rest arrives it is appended and the whole message is
 * framed by bulk() from body[]. Every other case (the head is not clean, the
 * whole is not accepted) is handed to step_feed() on that same state: it
 * reads the held bytes again first, from their stream offset, exactly as it
 * would have read them from the chunk, so events, errors and offsets stay
 * the state machine's. A clean head produces no event at its chunk, so
 * holding it silently changes nothing the caller sees: offsets, byte
 * counters, step_pending() and msg_start are what the state machine leaves.
 */

/* The header of q[0..n): 1 with *h its first body byte and *t the trailer's
 * when it is complete and the state machine passes it (the rules of S_HUNT
 * to S_LEN); 0 otherwise. */
static inline __attribute__((always_inline)) int head_ok(const uint8_t *q, uint32_t n, uint32_t *h, uint32_t *t)
{
	uint32_t k, j, v = 0, nd;
	if (n >= 40) {
		/* the same rules read with word operations */
		if (!frame_head(q, n, h, &v))
			return 0;
		*t = *h + v;
		return 1;
	}
	if (n < 7 || q[0] != '8' || q[1] != '=' || q[2] != 'S' || q[3] != 'T' || q[4] != 'E' || q[5] != 'P' ||
	    q[6] != '.')
		return 0;
	for (k = 7; k < n && k < 7 + STEP_MAX_VER + 1; k++)
		if (q[k] == SOH)
			break;
	if (k > 7 + STEP_MAX_VER || k + 3 > n || q[k] != SOH || q[k + 1] != '9' || q[k + 2] != '=')
		return 0;
	j = k + 3;
	for (nd = 0; nd < STEP_MAX_LEN_DIG && j < n && IS_DIGIT(q[j]); nd++, j++)
		v = v * 10 + (uint32_t)(q[j] - '0');
	if (j >= n || nd == 0 || q[j] != SOH || v > STEP_MAX_BODY)
		return 0;
	*h = j + 1;
	*t = j + 1 + v;
	return 1;
}

/* Whether q[0..n), q[0] == '8', n < 40, is a clean prefix of a header the
 * state machine is still reading (S_HUNT to S_LEN, no event on the way):
 * "8=STEP." cut anywhere, at most STEP_MAX_VER version bytes, its SOH,
 * "9=", at most STEP_MAX_LEN_DIG digits, and the chunk ends before the
 * SOH after them (a complete header is head_ok()'s). */
static int head_prefix(const uint8_t *q, uint32_t n)
{
	uint32_t k, nd;
	for (k = 0; k < n && k < 7; k++)
		if (q[k] != (uint8_t)"8=STEP."[k])
			return 0;
	for (nd = 0; k < n && q[k] != SOH; k++, nd++)
		if (nd == STEP_MAX_VER)
			return 0;
	if (k + 1 < n && q[k + 1] != '9')
		return 0;
	if (k + 2 < n && q[k + 2] != '=')
		return 0;
	for (k += 3, nd = 0; k < n; k++, nd++)
		if (!IS_DIGIT(q[k]) || nd == STEP_MAX_LEN_DIG)
			return 0;
	return 1;
}

/* What a clean head leaves for the rest of its message. */
struct head {
	uint32_t total; /* the message's length */
	uint32_t sum;   /* byte sum of its first min(n, t) bytes (the checksum's part of the head) */
	struct walk o;  /* the fields read; o.cut_e when the head ends in the 96= data */
};

/* Whether q[0..n), q[0] == '8', is a clean head (see above) of a message
 * not complete in it: 1 with *hd filled (35= copied to msgtype); 0 when the
 * state machine would report something in it, the message is complete, or
 * the header is not (then the state machine takes it). */
static int head_clean(struct fastx_step_memo *m, const uint8_t *q, uint32_t n, int isa, char *msgtype,
		      struct head *hd)
{
	uint32_t h, t, lim, k, fixed;
	uint64_t w[SCAN_WORDS];
	int r;
	if (!head_ok(q, n, &h, &t) || n >= t + 7)
		return 0;
	hd->total = t + 7;
	lim = n < t ? n : t;
	hd->sum = scan(isa, q, lim, n, w);
	msgtype[0] = 0;
	r = memo_walk(m, q, h, t, lim, n, w, msgtype, &hd->o, 0, &fixed, isa);
	if (r == W_CUT) {
		m->hits++;
		m->fx_hits += fixed;
		return 1; /* the usual cuts: inside the 96= data, or a field before it */
	}
	if (r != W_END) /* (W_END: the whole body, as walk() would find it: the trailer below) */
		r = walk(q, h, t, lim, n, w, msgtype, &hd->o);
	else
		m->hits++;
	if (r == W_BAD)
		return 0;
	if (r == W_CUT || lim == n)
		return 1;
	/* the whole body is here: the trailer's first bytes, "10=" and digits
	 * (S_T1 to S_CK; its final SOH would complete the message) */
	for (k = t; k < n; k++) {
		uint32_t i = k - t;
		if (i < 3 ? q[k] != (uint8_t)"10="[i] : !IS_DIGIT(q[k]))
			return 0;
	}
	return 1;
}

/* Deliver the message bulk() accepted: `len` bytes of it were taken from
 * the caller (all of it, or the tail of a held head). */
static inline uint32_t delivered(struct fastx_dec *x, struct step_deframer *s, uint32_t len, int *status)
{
	s->msg.offset = s->msg_start;
	s->messages++;
	s->offset += len;
	s->bytes += len;
	x->step_bulk++;
	*status = STEP_MSG;
	return len;
}

/* Hold p[0..n) after the m bytes in body[] as a clean head: the state
 * machine's words it does not read while hunting keep what the rest needs
 * (body_len the length, sum the head's byte sum, val where the 96= data
 * ends when the head ends inside it), msg the fields read so far. */
static uint32_t hold(struct step_deframer *s, uint32_t m, uint32_t n, const struct head *hd, int *status)
{
	s->match = STEP_PEND(0, m + n);
	s->body_len = hd->total;
	s->sum = hd->sum;
	s->val = hd->o.cut_e;
	s->msg.seq = hd->o.seq;
	s->msg.data_len = hd->o.dl;
	s->offset += n;
	s->bytes += n;
	*status = STEP_NEED_MORE;
	return n;
}

/* Hold p[0..n) after the m bytes in body[] as a clean header prefix
 * (head_prefix): its length is not known yet, body_len 0 says so. */
static uint32_t hold_prefix(struct step_deframer *s, uint32_t m, uint32_t n, int *status)
{
	s->match = STEP_PEND(0, m + n);
	s->body_len = 0;
	s->sum = 0;
	s->val = 0;
	s->offset += n;
	s->bytes += n;
	*status = STEP_NEED_MORE;
	return n;
}

/* The held head ended inside the 96= data and the message is now whole in
 * body[0..total): what is left to check is the data's SOH, that the body
 * ends there, the trailer and the checksum (the head's sum plus the rest). */
static int join_data(struct step_deframer *s, uint32_t m, uint32_t total, int isa)
{
	uint32_t e = s->val, t = total - 7, ck, m0 = m < t ? m : t;
	const uint8_t *q = s->body;
	if (q[e] != SOH || e + 1 != t || !trailer(q, t, &ck) ||
	    ((s->sum + sum_bytes(isa, q + m0, t - m0)) & 0xffu) != ck)
		return 0;
	s->msg.data = q + e - s->msg.data_len;
	s->msg.raw = 0;
	s->msg.msgtype[0] = 0; /* a data message: see fastx_step_feed */
	s->msg.len = total;
	return 1;
}

/* A head not ending in the 96= data is checked again whole when more of it
 * comes; past this size the state machine takes it instead, so a long
 * field arriving in small pieces costs linear time, not quadratic. */
#define JOIN_RECHECK_MAX 512u

/* With a clean header prefix body[0..m) held (body_len 0): the header
 * completed from p (its 9= gives the message's length), then as join(). */
static uint32_t join_prefix(struct fastx_dec *x, struct step_deframer *s, uint32_t m, const uint8_t *p,
			    uint32_t n, int isa, int *status)
{
	uint32_t c = n < 64 ? n : 64, h, t, need;
	struct head hd;
	memcpy(s->body + m, p, c); /* (body[] has 64 bytes of room past the largest message) */
	if (head_ok(s->body, m + c, &h, &t)) {
		need = t + 7 - m;
		if (n >= need) {
			memcpy(s->body + m, p, need);
			if (bulk(x, s, s->body, t + 7, isa) == t + 7) {
				s->match = 0;
				x->step_joined++;
				return delivered(x, s, need, status);
			}
		} else if (m + n <= JOIN_RECHECK_MAX) {
			memcpy(s->body + m, p, n);
			if (head_clean(&x->smemo, s->body, m + n, isa, s->msg.msgtype, &hd))
				return hold(s, m, n, &hd, status);
		}
	} else if (c == n && m + n < 40 && head_prefix(s->body, m + n)) {
		return hold_prefix(s, m, n, status);
	}
	return machine(x, s, p, n, status);
}

/* With a head body[0..m) held: the rest of the message from p[0..n). */
static uint32_t join(struct fastx_dec *x, struct step_deframer *s, uint32_t m, const uint8_t *p, uint32_t n,
		     int isa, int *status)
{
	uint32_t total = s->body_len, need = total - m;
	struct head hd;
	if (total == 0)
		return join_prefix(x, s, m, p, n, isa, status);
	if (n >= need) {
		memcpy(s->body + m, p, need);
		if ((s->val && join_data(s, m, total, isa)) || bulk(x, s, s->body, total, isa) == total) {
			s->match = 0;
			x->step_joined++;
			return delivered(x, s, need, status);
		}
	} else if (s->val && m + n <= s->val) {
		/* still inside the 96= data: the head stays clean, its sum grows */
		memcpy(s->body + m, p, n);
		s->sum += sum_bytes(isa, p, n);
		s->match = STEP_PEND(0, m + n);
		s->offset += n;
		s->bytes += n;
		*status = STEP_NEED_MORE;
		return n;
	} else if (m + n <= JOIN_RECHECK_MAX) {
		memcpy(s->body + m, p, n);
		if (head_clean(&x->smemo, s->body, m + n, isa, s->msg.msgtype, &hd))
			return hold(s, m, n, &hd, status);
	}
	/* not clean after all: the state machine reads the head again, then p */
	return machine(x, s, p, n, status);
}

/* What fastx_step_feed does not settle at once: a chunk starting with a
 * message that is not whole in it (its head held when clean), the rest of a
 * held head, or anything for the state machine. Out of line, so that the
 * usual call (a whole message in bulk) saves few registers. */
__attribute__((noinline)) static uint32_t feed_rest(struct fastx_dec *x, struct step_deframer *s, const uint8_t *p,
						    uint32_t n, int *status)
{
	if (s->state == 0 && s->pos == 0) {
		int isa = fastx_isa_get();
		if (s->match == 0 && n > 0 && p[0] == '8') {
			struct head hd; /* (bulk() did not take it) */
			/* (msg is only meaningful after STEP_MSG: the held head's fields may go there) */
			if (head_clean(&x->smemo, p, n, isa, s->msg.msgtype, &hd)) {
				memcpy(s->body, p, n);
				return hold(s, 0, n, &hd, status);
			}
			if (n < 40 && head_prefix(p, n)) {
				/* cut inside the header: held too, its length known at the join */
				memcpy(s->body, p, n);
				return hold_prefix(s, 0, n, status);
			}
		} else if (STEP_PEND_RD(s->match) == 0 && s->match != 0) {
			return join(x, s, STEP_PEND_END(s->match), p, n, isa, status);
		}
	}
	return machine(x, s, p, n, status);
}

uint32_t fastx_step_feed(struct fastx_dec *x, struct step_deframer *s, const uint8_t *p, uint32_t n, int *status)
{
	if (LIKELY(s->state == 0 && s->pos == 0 && s->match == 0 && n > 0 && p[0] == '8')) {
		uint32_t len;
		s->msg_start = s->offset; /* as the state machine sets it at this '8' */
		len = bulk(x, s, p, n, fastx_isa_get());
		if (LIKELY(len != 0))
			return delivered(x, s, len, status);
		return feed_rest(x, s, p, n, status);
	}
	return feed_rest(x, s, p, n, status);
}
