/* fast_int_exact.h - the exact FAST integer decoder (FAST 1.1 §10.6.1), one copy for both decoders.
 *
 * The reference interpreter (fast_decode.c) calls it for every integer that
 * its one-pass common case does not take; the CPU fast decoder
 * (cpu/fastx_decode.c) for the same cases on its slow path. Keeping one copy
 * is what makes their errors, warnings and consumed bytes identical by
 * construction (fuzz_fastx_diff checks it). Synthesisable subset.
 *
 * The wire value is up to 70 bits; it is kept as hi:lo (hi holds the bits
 * above 64, sign-extended) so that range checks and the nullable -1 are exact
 * for every type, including the nullable uInt64 / int64 values that need 65
 * bits on the wire. *pos advances over what was read; R6 (a redundant leading
 * byte) sets FAST_E_OVERLONG_INT in *warn.
 */
#ifndef FAST_INT_EXACT_H
#define FAST_INT_EXACT_H

#include <stdint.h>
#include "fast_err.h"

/* Integer wire types. */
enum { FAST_IT_I32 = 0, FAST_IT_U32, FAST_IT_I64, FAST_IT_U64 };

static inline int fast_int_exact(const uint8_t *buf, uint32_t len, uint32_t *pos, uint32_t *warn, uint32_t type,
				 uint32_t nullable, int64_t *out, uint32_t *present)
{
	const uint32_t maxb = (type == FAST_IT_I32 || type == FAST_IT_U32) ? 5 : 10;
	const uint32_t is_signed = (type == FAST_IT_I32 || type == FAST_IT_I64);
	uint64_t lo = 0;
	uint32_t hi = 0, neg = 0, i, n = 0;
	uint8_t first = 0, second = 0;

	for (i = 0; i < 10; i++) {
		uint8_t b;
		if (i >= maxb)
			return FAST_E_NO_STOP_BIT;
		if (*pos >= len)
			return FAST_E_TRUNCATED;
		b = buf[(*pos)++];
		if (i == 0) {
			first = b;
			if (is_signed && (b & 0x40)) {
				neg = 1;
				lo = ~(uint64_t)0;
				hi = 0xffffffffu;
			}
		} else if (i == 1) {
			second = b;
		}
		hi = (hi << 7) | (uint32_t)(lo >> 57);
		lo = (lo << 7) | (b & 0x7f);
		n = i + 1;
		if (b & 0x80)
			break;
	}
	if (n == 0 || !(buf[*pos - 1] & 0x80))
		return FAST_E_NO_STOP_BIT;

	/* R6: redundant leading byte */
	if (n > 1) {
		if (is_signed ? ((first == 0x00 && !(second & 0x40)) || (first == 0x7f && (second & 0x40)))
			      : first == 0x00)
			*warn |= 1u << FAST_E_OVERLONG_INT;
	}

	if (nullable && !neg) {
		if (hi == 0 && lo == 0) {
			*present = 0;
			*out = 0;
			return FAST_OK;
		}
		if (lo == 0)
			hi--;
		lo--;
	}
	*present = 1;
	if (neg) {
		if (hi != 0xffffffffu || !(lo >> 63))
			return FAST_E_RANGE;
		if (type == FAST_IT_I32 && (int64_t)lo < -2147483648LL)
			return FAST_E_RANGE;
	} else {
		if (hi != 0)
			return FAST_E_RANGE;
		if (type == FAST_IT_I64 && (lo >> 63))
			return FAST_E_RANGE;
		if (type == FAST_IT_I32 && lo > 2147483647ULL)
			return FAST_E_RANGE;
		if (type == FAST_IT_U32 && lo > 4294967295ULL)
			return FAST_E_RANGE;
	}
	*out = (int64_t)lo;
	return FAST_OK;
}

#endif
