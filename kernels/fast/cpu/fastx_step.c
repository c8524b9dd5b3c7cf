/* fastx_step.c - STEP framing in bulk for the fast path (host only).
 *
 * The common case, a whole message at the start of the chunk while the
 * deframer is between messages (state S_HUNT, nothing buffered, nothing
 * pending), is parsed here straight from the caller's bytes: SOH bytes are
 * found with memchr (SIMD in glibc), the checksum is summed 32 bytes at a
 * time with AVX2 SAD (psadbw) where the CPU has it, and the 96= data is not
 * copied: msg.data points into the chunk, which fast_stream keeps valid
 * while it decodes the message. The rules are exactly those of the
 * reference's step_fast() (kernels/fast/step_deframe.c), and the deframer's
 * state and counters end up as step_feed() leaves them after that message.
 * Anything else (a message split across chunks, junk, any message this
 * parser does not accept, errors) goes to step_feed() unchanged, whose state
 * machine stays the one definition of errors and their offsets;
 * fuzz_fastx_diff compares the two byte for byte.
 */
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "fastx.h"

#define SOH 0x01
#define STEP_MAX_VER 16
#define STEP_MAX_LEN_DIG 6
#define STEP_MAX_DLEN_DIG 6
#define STEP_MAX_SEQ_DIG 19
#define IS_DIGIT(c) ((uint8_t)((c) - '0') < 10u)

static uint32_t sum_scalar(const uint8_t *p, uint32_t n)
{
	uint32_t s = 0, i = 0;
	uint64_t acc = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		acc += (w & 0x00ff00ff00ff00ffull) + (w >> 8 & 0x00ff00ff00ff00ffull);
		if ((i & 1023) == 1016) { /* fold before a 16-bit lane can carry */
			s += (uint32_t)(acc & 0xffff) + (uint32_t)(acc >> 16 & 0xffff) + (uint32_t)(acc >> 32 & 0xffff) +
			     (uint32_t)(acc >> 48);
			acc = 0;
		}
	}
	s += (uint32_t)(acc & 0xffff) + (uint32_t)(acc >> 16 & 0xffff) + (uint32_t)(acc >> 32 & 0xffff) +
	     (uint32_t)(acc >> 48);
	for (; i < n; i++)
		s += p[i];
	return s;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static uint32_t sum_avx2(const uint8_t *p, uint32_t n)
{
	__m256i acc = _mm256_setzero_si256(), z = _mm256_setzero_si256();
	uint32_t i = 0, s;
	for (; i + 32 <= n; i += 32)
		acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(p + i)), z));
	s = (uint32_t)(_mm256_extract_epi64(acc, 0) + _mm256_extract_epi64(acc, 1) + _mm256_extract_epi64(acc, 2) +
		       _mm256_extract_epi64(acc, 3));
	for (; i < n; i++)
		s += p[i];
	return s;
}
#endif

static uint32_t sum_bytes(const uint8_t *p, uint32_t n)
{
#if defined(__x86_64__)
	if (fastx_isa_get() >= FASTX_ISA_AVX2)
		return sum_avx2(p, n);
#endif
	return sum_scalar(p, n);
}

/* First SOH in p[k..end), or end. */
static inline uint32_t find_soh(const uint8_t *p, uint32_t k, uint32_t end)
{
	const uint8_t *f;
	if (k >= end)
		return end;
	f = memchr(p + k, SOH, end - k);
	return f ? (uint32_t)(f - p) : end;
}

/* step_fast()'s rules on q[0..avail), q[0] == '8'; 0 when not taken. */
static uint32_t bulk(struct step_deframer *s, const uint8_t *q, uint32_t avail)
{
	uint32_t k, h, t, v, nd, soh, dl = 0, ck, j, have95 = 0, have96 = 0, nfields;
	uint64_t seq = 0;
	const uint8_t *data = q;
	char mt[STEP_MAX_MSGTYPE + 1];

	mt[0] = 0;
	if (avail < 40 || q[1] != '=' || q[2] != 'S' || q[3] != 'T' || q[4] != 'E' || q[5] != 'P' || q[6] != '.')
		return 0;
	k = find_soh(q, 7, 7 + STEP_MAX_VER + 1);
	if (k == 7 + STEP_MAX_VER + 1 || q[k + 1] != '9' || q[k + 2] != '=')
		return 0;
	k += 3;
	v = 0;
	for (nd = 0; nd < STEP_MAX_LEN_DIG; nd++) {
		uint8_t c = q[k];
		if (!IS_DIGIT(c))
			break;
		v = v * 10 + (uint32_t)(c - '0');
		k++;
	}
	if (nd == 0 || q[k] != SOH || v > STEP_MAX_BODY)
		return 0;
	h = k + 1;
	t = h + v;
	if (t + 7 > avail)
		return 0;
	if (q[t] != '1' || q[t + 1] != '0' || q[t + 2] != '=' || !IS_DIGIT(q[t + 3]) || !IS_DIGIT(q[t + 4]) ||
	    !IS_DIGIT(q[t + 5]) || q[t + 6] != SOH)
		return 0;
	ck = (uint32_t)(q[t + 3] - '0') * 100 + (uint32_t)(q[t + 4] - '0') * 10 + (uint32_t)(q[t + 5] - '0');
	k = h;
	for (nfields = 0; nfields < STEP_MAX_BODY / 4 + 1; nfields++) {
		uint32_t tag = 0, t0 = k;
		if (k >= t)
			break;
		for (j = 0; j < 10; j++) {
			uint8_t c = q[k];
			if (k >= t || !IS_DIGIT(c))
				break;
			if (tag >= 100000000u)
				return 0;
			tag = tag * 10 + (uint32_t)(c - '0');
			k++;
		}
		if (k == t0 || k >= t || q[k] != '=')
			return 0;
		k++;
		if (tag == 96) {
			if (!have95 || have96 || dl + 1 > t - k || q[k + dl] != SOH)
				return 0;
			data = q + k;
			k += dl + 1;
			have96 = 1;
			continue;
		}
		soh = find_soh(q, k, t);
		if (soh == t || soh == k)
			return 0;
		if (tag == 35) {
			for (j = 0; j < STEP_MAX_MSGTYPE; j++) {
				if (k + j >= soh)
					break;
				mt[j] = (char)q[k + j];
			}
			mt[j] = 0;
		} else if (tag == 34 || tag == 95) {
			uint64_t x = 0;
			if (soh - k > (tag == 34 ? STEP_MAX_SEQ_DIG : STEP_MAX_DLEN_DIG))
				return 0;
			for (j = 0; k + j < soh; j++) {
				uint8_t c = q[k + j];
				if (!IS_DIGIT(c))
					return 0;
				x = x * 10 + (uint64_t)(c - '0');
			}
			if (tag == 34) {
				seq = x;
			} else {
				if (have95 || x > t - soh - 1)
					return 0;
				dl = (uint32_t)x;
				have95 = 1;
			}
		} else if (tag == 10) {
			return 0;
		}
		k = soh + 1;
	}
	if ((have95 && !have96) || (sum_bytes(q, t) & 0xffu) != ck)
		return 0;
	/* accepted: what step_fast + step_run leave behind */
	memcpy(s->msg.msgtype, mt, sizeof mt);
	s->msg.seq = seq;
	s->msg.len = t + 7;
	if (!have96) {
		s->msg.data = s->body;
		s->msg.data_len = 0;
		s->no_data++;
	} else {
		s->msg.data = data; /* in the caller's chunk: no copy */
		s->msg.data_len = dl;
	}
	return t + 7;
}

uint32_t fastx_step_feed(struct fastx_dec *x, struct step_deframer *s, const uint8_t *p, uint32_t n, int *status)
{
	if (s->state == 0 && s->pos == 0 && s->match == 0 && n > 0 && p[0] == '8') {
		uint32_t len = bulk(s, p, n);
		if (len) {
			s->msg_start = s->offset;
			s->msg.offset = s->offset;
			s->messages++;
			s->offset += len;
			s->bytes += len;
			x->step_bulk++;
			*status = STEP_MSG;
			return len;
		}
	}
	x->step_machine++;
	return step_feed(s, p, n, status);
}
