/* net_csum_host.c - the Internet checksum's bulk with AVX2 (host only; see net_csum_host.h).
 *
 * The scalar sum (net_csum_add_syn) costs ~680 instructions for a 1428-byte
 * TCP segment (callgrind, bench_rx), about 128 ns of the receive path's
 * ~2,200 ns per segment. Here the bulk of a chunk is summed 32 bytes a step
 * as little-endian 16-bit words with vpmaddwd: each word's top bit flipped
 * (u - 32768 as a signed word), pairs of them multiplied by one and added
 * into 32-bit lanes (u1 + u2 - 65536), the 65536 per lane and step added
 * back at the end. Little-endian words folded are the big-endian sum with
 * its bytes swapped, i.e. times 2^8 mod 0xffff (RFC 1071 2.(B)), as
 * net_csum_add_syn does with its 64-bit words. The last bytes are a vector
 * ending at the chunk's end with the bytes already summed masked off.
 */
#include "net_csum_host.h"

#include "net/net_cfg.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static int level = -1; /* -1: not chosen yet */

int net_csum_level_max(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		return NET_CSUM_AVX2;
#endif
	return NET_CSUM_SCALAR;
}

int net_csum_level_get(void)
{
	if (UNLIKELY(level < 0))
		level = net_csum_level_max();
	return level;
}

void net_csum_level_set(int l)
{
	int max = net_csum_level_max();
	level = l < NET_CSUM_SCALAR ? NET_CSUM_SCALAR : l > max ? max : l;
}

#if defined(__x86_64__)
/* 32 bytes of 0 then 32 of 0xff: 32 bytes loaded at keep_hi + r keep the last r of a vector. */
static const uint8_t keep_hi[64] = {
	[32] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* The sum of the little-endian 16-bit words of p[0..n), 32 <= n <= NET_MAX_FRAME
 * (a last odd byte is the low byte of a word whose high byte is 0); each
 * 32-bit lane stays below 2^28 in size. Reads nothing outside p[0..n). */
__attribute__((target("avx2"))) static uint64_t le_words_avx2(const uint8_t *p, uint32_t n)
{
	const __m256i flip = _mm256_set1_epi16((short)0x8000), one = _mm256_set1_epi16(1);
	__m256i a = _mm256_setzero_si256(), b = a, c = a, d = a, v;
	__m128i s, h;
	uint32_t i = 0, vecs, re = n & ~1u;
	int64_t t;
#define STEP(acc, at) acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_xor_si256( \
		_mm256_loadu_si256((const __m256i *)(p + (at))), flip), one))
	for (; i + 128 <= re; i += 128) {
		STEP(a, i);
		STEP(b, i + 32);
		STEP(c, i + 64);
		STEP(d, i + 96);
	}
	for (; i + 32 <= re; i += 32)
		STEP(a, i);
#undef STEP
	vecs = i / 32;
	if (i < re) {
		/* the last re - i (< 32, even) bytes: the vector ending at re, the bytes
		 * before i zeroed (the word pairs stay aligned: re - 32 is even) */
		v = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(p + re - 32)),
				     _mm256_loadu_si256((const __m256i *)(keep_hi + (re - i))));
		b = _mm256_add_epi32(b, _mm256_madd_epi16(_mm256_xor_si256(v, flip), one));
		vecs++;
	}
	a = _mm256_add_epi32(_mm256_add_epi32(a, b), _mm256_add_epi32(c, d)); /* signed, |lane| < 2^28 */
	/* the eight signed lanes summed in 64 bits */
	s = _mm256_castsi256_si128(a);
	h = _mm256_extracti128_si256(a, 1);
	s = _mm_add_epi64(_mm_add_epi64(_mm_cvtepi32_epi64(s), _mm_cvtepi32_epi64(_mm_unpackhi_epi64(s, s))),
			  _mm_add_epi64(_mm_cvtepi32_epi64(h), _mm_cvtepi32_epi64(_mm_unpackhi_epi64(h, h))));
	t = _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
	/* every word of every vector (zeroed ones too) counted 32768 short: 16 a vector */
	t += (int64_t)vecs * 16 * 32768;
	if (n & 1)
		t += p[n - 1];
	return (uint64_t)t;
}
#endif

void net_csum_add_level(int l, struct net_csum *c, const uint8_t *p, uint32_t n)
{
#if defined(__x86_64__)
	if (l >= NET_CSUM_AVX2 && n >= 64) {
		uint32_t odd = c->odd;
		if (n > NET_MAX_FRAME)
			n = NET_MAX_FRAME;
		/* the previous chunk ended in the high byte of a word: p[0] is its low
		 * byte, and p[odd] starts a word; the rest's little-endian sum times
		 * 2^8 is its big-endian one (< 2^36: a chunk still adds below 2^44) */
		c->sum += (odd ? p[0] : 0u) + (le_words_avx2(p + odd, n - odd) << 8);
		c->odd = (odd + n) & 1u;
		return;
	}
#endif
	(void)l;
	net_csum_add_syn(c, p, n);
}

void net_csum_add_host(struct net_csum *c, const uint8_t *p, uint32_t n)
{
	net_csum_add_level(net_csum_level_get(), c, p, n);
}
