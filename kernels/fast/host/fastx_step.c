/* fastx_step.c - STEP framing in bulk for the fast path (host only).
 *
 * The common case, a whole message at the start of the chunk while the
 * deframer is between messages (state S_HUNT, nothing buffered, nothing
 * pending), is parsed here straight from the caller's bytes: one pass over
 * the message (32 bytes a step with AVX2 where the CPU has it) makes a
 * bitmap of its SOH bytes and the checksum's byte sum (SAD, psadbw), the
 * fields are then walked with a count-trailing-zeros per SOH (tags of two
 * digits read directly), and the 96= data is not
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

#include "fast/step_scan.h"

#define SOH STEP_SOH
#define IS_DIGIT(c) STEP_IS_DIGIT(c)

/* One pass over q[0..t), the message up to its trailer: SOH positions as
 * a bitmap (bit i % 32 of w[i / 32]) and the byte sum the checksum wants.
 * The field walk then finds each SOH with a count-trailing-zeros instead of
 * a search per field. w has room for (t + 31) / 32 words. */
#define SCAN_WORDS ((7 + STEP_MAX_VER + 1 + 2 + STEP_MAX_LEN_DIG + 1 + STEP_MAX_BODY + 31) / 32 + 1)

static uint32_t scan_scalar(const uint8_t *q, uint32_t t, uint32_t *w)
{
	uint32_t i, s = 0, m = 0;
	for (i = 0; i < t; i++) {
		s += q[i];
		m |= (uint32_t)(q[i] == SOH) << (i & 31);
		if ((i & 31) == 31) {
			w[i >> 5] = m;
			m = 0;
		}
	}
	if (t & 31)
		w[t >> 5] = m;
	return s;
}

#if defined(__x86_64__)
/* 32 bytes of 0xff then 32 of 0: loading 32 bytes at keep_lo + 32 - r keeps
 * the first r bytes of a vector. */
static const uint8_t keep_lo[64] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* avail: readable bytes at q (>= t); the last vector is read whole when it
 * fits in them, else from a zero-padded copy. */
__attribute__((target("avx2"))) static uint32_t scan_avx2(const uint8_t *q, uint32_t t, uint32_t avail,
							    uint32_t *w)
{
	const __m256i soh = _mm256_set1_epi8(SOH), z = _mm256_setzero_si256();
	__m256i acc = z;
	uint32_t i;
	for (i = 0; i + 32 <= t; i += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(q + i));
		w[i >> 5] = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, soh));
		acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, z));
	}
	if (i < t) {
		uint32_t r = t - i;
		__m256i v;
		if (i + 32 <= avail) {
			v = _mm256_loadu_si256((const __m256i *)(q + i));
		} else {
			uint8_t tmp[32] = {0};
			memcpy(tmp, q + i, r);
			v = _mm256_loadu_si256((const __m256i *)tmp);
		}
		v = _mm256_and_si256(v, _mm256_loadu_si256((const __m256i *)(keep_lo + 32 - r)));
		w[i >> 5] = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, soh));
		acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, z));
	}
	return (uint32_t)(_mm256_extract_epi64(acc, 0) + _mm256_extract_epi64(acc, 1) + _mm256_extract_epi64(acc, 2) +
			  _mm256_extract_epi64(acc, 3));
}
#endif

/* First SOH in [k, end) by the bitmap, or end; end <= t. */
static inline uint32_t mask_soh(const uint32_t *w, uint32_t k, uint32_t end)
{
	uint32_t wi = k >> 5, m, r;
	if (k >= end)
		return end;
	m = w[wi] & (~0u << (k & 31));
	while (m == 0) {
		wi++;
		if (wi * 32 >= end)
			return end;
		m = w[wi];
	}
	r = wi * 32 + (uint32_t)__builtin_ctz(m);
	return r < end ? r : end;
}

/* step_fast()'s rules on q[0..avail), q[0] == '8'; 0 when not taken. */
static uint32_t bulk(struct step_deframer *s, const uint8_t *q, uint32_t avail)
{
	uint32_t k, h, t, soh, dl = 0, ck, have95 = 0, have96 = 0, nfields;
	uint64_t seq = 0;
	const uint8_t *data = q;
	char mt[STEP_MAX_MSGTYPE + 1];
	uint32_t w[SCAN_WORDS], sum;

	mt[0] = 0;
	if (!step_scan_frame(q, avail, STEP_MAX_BODY, &h, &t, &ck))
		return 0;
#if defined(__x86_64__)
	if (fastx_isa_get() >= FASTX_ISA_AVX2)
		sum = scan_avx2(q, t, avail, w);
	else
#endif
		sum = scan_scalar(q, t, w);
	k = h;
	for (nfields = 0; nfields < STEP_MAX_BODY / 4 + 1 && k < t; nfields++) {
		uint32_t tag;
		uint8_t c0 = q[k], c1 = q[k + 1]; /* k + 2 < t + 7 <= avail */
		if (IS_DIGIT(c0) && IS_DIGIT(c1) && q[k + 2] == '=' && k + 2 < t) {
			/* the usual two-digit tag: what the loop below finds */
			tag = (uint32_t)(c0 - '0') * 10 + (uint32_t)(c1 - '0');
			k += 3;
		} else if (!step_scan_tag(q, &k, t, &tag)) {
			return 0;
		}
		if (tag == 96) {
			if (!have95 || have96 || dl + 1 > t - k || q[k + dl] != SOH)
				return 0;
			data = q + k;
			k += dl + 1;
			have96 = 1;
			continue;
		}
		soh = mask_soh(w, k, t);
		if (soh == t || soh == k)
			return 0; /* value empty or running past the body */
		switch (tag) {
		case 35: {
			uint32_t n = soh - k < STEP_MAX_MSGTYPE ? soh - k : STEP_MAX_MSGTYPE;
			memcpy(mt, q + k, n);
			mt[n] = 0;
			break;
		}
		case 34:
		case 95: {
			uint64_t x;
			if (!step_scan_num(q, k, soh, tag == 34 ? STEP_MAX_SEQ_DIG : STEP_MAX_DLEN_DIG, &x))
				return 0;
			if (tag == 34) {
				seq = x;
			} else {
				if (have95 || x > t - soh - 1)
					return 0;
				dl = (uint32_t)x;
				have95 = 1;
			}
			break;
		}
		case 10:
			return 0;
		default:
			break;
		}
		k = soh + 1;
	}
	if ((have95 && !have96) || (sum & 0xffu) != ck)
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
