/* step_scan.h - the STEP message layout, parsed the same way by both whole-message parsers.
 *
 * A STEP message is "8=STEP.<ver>" SOH "9=<BodyLength>" SOH <body> "10=<ddd>" SOH.
 * Two parsers take a whole message in one go: step_fast() in step_deframe.c
 * (the synthesisable reference, word operations) and bulk() in
 * host/fastx_step.c (the CPU decoder, SIMD marks). They must accept exactly
 * the same messages as the byte-by-byte state machine, so the pieces they
 * share live here once: the header and trailer (step_scan_frame), the tag
 * reader and the decimal field values. Synthesisable subset: static inline,
 * bounded loops, no libc.
 */
#ifndef STEP_SCAN_H
#define STEP_SCAN_H

#include <stdint.h>

#define STEP_SOH 0x01
#define STEP_MAX_VER 16     /* bytes of version text after "8=STEP." */
#define STEP_MAX_LEN_DIG 6  /* digits of 9= */
#define STEP_MAX_DLEN_DIG 6 /* digits of 95= */
#define STEP_MAX_SEQ_DIG 19 /* digits of 34= */
#define STEP_IS_DIGIT(c) ((uint8_t)((c) - '0') < 10u)

/* Index of the lowest byte whose top bit is set in z (z != 0, only top bits
 * set). The builtin is one instruction; the portable form (for synthesis)
 * turns the lowest set bit 1 << (8j + 7) into j with a multiply. */
#if defined(__GNUC__) && !defined(__SYNTHESIS__)
#define STEP_FIRST_MARKED_BYTE(z) ((uint32_t)__builtin_ctzll(z) >> 3)
#else
#define STEP_FIRST_MARKED_BYTE(z) ((uint32_t)(((((z) & (~(z) + 1)) >> 7) * 0x0001020304050607ull) >> 56))
#endif

/* Little-endian 64-bit word from bytes (compilers merge these into one load;
 * no alignment or aliasing assumptions). */
static inline uint64_t step_ld64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
	       (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* Index of the first SOH in p[k..end), or end, a word at a time (fields are
 * a dozen bytes: inline beats a memchr call). p[k..k+8) must be readable for
 * every k < end: the callers have the 7-byte trailer after the body.
 * max_words bounds the loop for HLS (end - k < 8 * max_words). */
static inline uint32_t step_find_soh(const uint8_t *p, uint32_t k, uint32_t end, uint32_t max_words)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint32_t it;
	for (it = 0; it < max_words; it++) {
		uint64_t x, z;
		if (k >= end)
			return end;
		x = step_ld64(p + k) ^ ones;         /* SOH bytes become 0 */
		z = (x - ones) & ~x & highs;         /* the lowest set bit marks the first */
		if (z) {
			k += STEP_FIRST_MARKED_BYTE(z);
			return k < end ? k : end;
		}
		k += 8;
	}
	return end;
}

/* Header and trailer of a message starting at q[0] == '8', complete in
 * q[0..avail) with at least 40 bytes: 1 with *h the body's first byte, *t
 * the trailer's ("10="), *ck the checksum it states, when "8=STEP.<ver>"
 * SOH "9=<len>" SOH and "10=<ddd>" SOH are well formed and the message fits
 * both avail and max_body; 0 otherwise (the state machine then takes it). */
static inline int step_scan_frame(const uint8_t *q, uint32_t avail, uint32_t max_body, uint32_t *h, uint32_t *t,
				  uint32_t *ck)
{
	uint32_t k, v, nd, tt;
	if (avail < 40 || q[0] != '8' || q[1] != '=' || q[2] != 'S' || q[3] != 'T' || q[4] != 'E' || q[5] != 'P' ||
	    q[6] != '.')
		return 0;
	k = step_find_soh(q, 7, 7 + STEP_MAX_VER + 1, (STEP_MAX_VER + 1) / 8 + 2);
	if (k == 7 + STEP_MAX_VER + 1 || q[k + 1] != '9' || q[k + 2] != '=')
		return 0;
	k += 3;
	v = 0;
	for (nd = 0; nd < STEP_MAX_LEN_DIG; nd++) {
		uint8_t c = q[k];
		if (!STEP_IS_DIGIT(c))
			break;
		v = v * 10 + (uint32_t)(c - '0');
		k++;
	}
	if (nd == 0 || q[k] != STEP_SOH || v > max_body)
		return 0;
	*h = k + 1;
	tt = *h + v;
	if (tt + 7 > avail)
		return 0; /* not complete in this chunk */
	if (q[tt] != '1' || q[tt + 1] != '0' || q[tt + 2] != '=' || !STEP_IS_DIGIT(q[tt + 3]) ||
	    !STEP_IS_DIGIT(q[tt + 4]) || !STEP_IS_DIGIT(q[tt + 5]) || q[tt + 6] != STEP_SOH)
		return 0;
	*t = tt;
	*ck = (uint32_t)(q[tt + 3] - '0') * 100 + (uint32_t)(q[tt + 4] - '0') * 10 + (uint32_t)(q[tt + 5] - '0');
	return 1;
}

/* A tag at q[*k] up to its '=' within the body (before t): 1 with *tag and
 * *k past the '=', 0 when there is no tag, it is too long or the '=' is
 * missing. */
static inline int step_scan_tag(const uint8_t *q, uint32_t *k, uint32_t t, uint32_t *tag)
{
	uint32_t j, v = 0, k0 = *k, kk = *k;
	for (j = 0; j < 10; j++) {
		uint8_t c = q[kk];
		if (kk >= t || !STEP_IS_DIGIT(c))
			break;
		if (v >= 100000000u)
			return 0;
		v = v * 10 + (uint32_t)(c - '0');
		kk++;
	}
	if (kk == k0 || kk >= t || q[kk] != '=')
		return 0;
	*tag = v;
	*k = kk + 1;
	return 1;
}

/* The decimal value q[k..soh) of 34= (MsgSeqNum) or 95= (RawDataLength):
 * 1 with *x, 0 when it has more than max_dig digits (<= STEP_MAX_SEQ_DIG)
 * or a byte that is not a digit. */
static inline int step_scan_num(const uint8_t *q, uint32_t k, uint32_t soh, uint32_t max_dig, uint64_t *x)
{
	uint64_t v = 0;
	uint32_t j;
	if (soh - k > max_dig)
		return 0;
	for (j = 0; j < STEP_MAX_SEQ_DIG; j++) {
		uint8_t c = q[k + j];
		if (k + j >= soh)
			break;
		if (!STEP_IS_DIGIT(c))
			return 0;
		v = v * 10 + (uint64_t)(c - '0');
	}
	*x = v;
	return 1;
}

#endif
