/* fast_read_exact.h - the exact FAST readers (presence map, integer, ASCII string), one copy for both decoders.
 *
 * The reference interpreter (fast_decode.c) calls them for every entity that
 * its one-pass common case does not take; the CPU fast decoder
 * (host/fastx_decode.c) for the same cases on its slow path. Keeping one copy
 * is what makes their errors, warnings and consumed bytes identical by
 * construction (fuzz_fastx_diff checks it). Synthesisable subset: bounded
 * loops, no libc.
 *
 * Each reader takes the input (buf, len), the cursor *pos, which it advances
 * over what it read, and *warn, where it sets the bit of a recoverable
 * finding (R6/R7/R9 overlong encodings).
 *
 * Integers (§10.6.1): the wire value is up to 70 bits; it is kept as hi:lo (hi holds the bits
 * above 64, sign-extended) so that range checks and the nullable -1 are exact
 * for every type, including the nullable uInt64 / int64 values that need 65
 * bits on the wire. *pos advances over what was read; R6 (a redundant leading
 * byte) sets FAST_E_OVERLONG_INT in *warn.
 */
#ifndef FAST_READ_EXACT_H
#define FAST_READ_EXACT_H

#include <stdint.h>
#include "fast_err.h"
#include "fast_prog.h" /* FAST_MAX_PMAP_BYTES, FAST_MAX_STR */

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

/* Presence map (§10.5): the 7 * n bits received, left-aligned in hi:lo
 * (bit 63 of hi first). An input that ends inside the map leaves *pos at
 * len; a map longer than FAST_MAX_PMAP_BYTES is an error with *pos past
 * that many bytes. R7: a trailing byte that carries no set bit. */
static inline int fast_pmap_exact(const uint8_t *buf, uint32_t len, uint32_t *pos, uint32_t *warn, uint64_t *phi,
				  uint64_t *plo)
{
	const uint8_t *b = buf + *pos;
	const uint32_t avail = len - *pos;
	uint64_t hi = 0, lo = 0;
	uint32_t i, shift;
	for (i = 0; i < FAST_MAX_PMAP_BYTES; i++) {
		uint8_t c;
		if (i >= avail) {
			*pos = len;
			return FAST_E_TRUNCATED;
		}
		c = b[i];
		hi = (hi << 7) | (lo >> 57);
		lo = (lo << 7) | (c & 0x7f);
		if (c & 0x80)
			break;
	}
	if (i == FAST_MAX_PMAP_BYTES) {
		*pos += FAST_MAX_PMAP_BYTES;
		return FAST_E_PMAP_TOO_LONG;
	}
	if (i > 0 && b[i] == 0x80)
		*warn |= 1u << FAST_E_OVERLONG_PMAP;
	*pos += i + 1;
	shift = 128 - 7 * (i + 1);
	if (shift >= 64) {
		hi = lo << (shift - 64);
		lo = 0;
	} else {
		hi = (hi << shift) | (lo >> (64 - shift));
		lo <<= shift;
	}
	*phi = hi;
	*plo = lo;
	return FAST_OK;
}

/* ASCII string (§10.6.3), every form, into dst[0..FAST_MAX_STR) as clean
 * 7-bit bytes. A leading 0x00 byte marks the special forms: mandatory
 * "00 80" is "\0"; nullable "80" is NULL, "00 80" is "" and "00 00 80" is
 * "\0". Any other leading zero is R9 (skipped, warned). */
static inline int fast_ascii_exact(const uint8_t *buf, uint32_t len, uint32_t *pos, uint32_t *warn,
				   uint32_t nullable, uint8_t *dst, uint32_t *dlen, uint32_t *present)
{
	uint8_t t[FAST_MAX_STR + 2];
	uint32_t i, n = 0, skip = 0, stop = 0;
	for (i = 0; i < FAST_MAX_STR + 2; i++) {
		uint8_t b;
		if (*pos >= len)
			return FAST_E_TRUNCATED;
		b = buf[(*pos)++];
		t[i] = b;
		n = i + 1;
		if (b & 0x80) {
			stop = 1;
			break;
		}
	}
	if (!stop)
		return FAST_E_STR_TOO_LONG;
	*present = 1;
	*dlen = 0;
	if (t[0] == 0x80) {
		if (nullable)
			*present = 0;
		return FAST_OK;
	}
	if (t[0] == 0x00) {
		if (n == 2 && t[1] == 0x80) {
			if (!nullable) {
				dst[0] = 0;
				*dlen = 1;
			}
			return FAST_OK;
		}
		if (nullable && n == 3 && t[1] == 0x00 && t[2] == 0x80) {
			dst[0] = 0;
			*dlen = 1;
			return FAST_OK;
		}
		*warn |= 1u << FAST_E_OVERLONG_STR;
		skip = 1;
	}
	if (n - skip > FAST_MAX_STR)
		return FAST_E_STR_TOO_LONG;
	for (i = 0; i < FAST_MAX_STR; i++) {
		if (i + skip >= n)
			break;
		dst[i] = t[i + skip] & 0x7f;
	}
	*dlen = n - skip;
	return FAST_OK;
}

#endif
