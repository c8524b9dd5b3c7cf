/* fast_tick_dec.h - the decimal places each tick field has in the ABI (synthesisable subset).
 *
 * One table for the tick mapper (fast_tick.c, decoded values -> tick fields)
 * and the feed generator (host/sse_gen.c, tick fields -> values to encode),
 * so both scale by the same rule: the units are those of toe/tick.h.
 */
#ifndef FAST_TICK_DEC_H
#define FAST_TICK_DEC_H

#include <stdint.h>
#include "toe/tick.h"

/* Decimals the ABI uses for tick field tf (enum toe_tick_field); 0 for the
 * fields that are plain integers, characters or strings. */
static inline int32_t fast_tick_decimals(uint32_t tf)
{
	switch (tf) {
	case TOE_TF_TRADE_PRICE:
	case TOE_TF_ORDER_PRICE:
		return TOE_PRICE_DECIMALS;
	case TOE_TF_TRADE_QTY:
	case TOE_TF_BALANCE:
		return TOE_QTY_DECIMALS;
	case TOE_TF_TRADE_MONEY:
		return TOE_MONEY_DECIMALS;
	default:
		return 0;
	}
}

/* value * 10^-src_dec expressed with dst_dec decimals, exactly: 0 and *out,
 * or -1 when it overflows or would lose digits. The tick mapper's rule, and
 * the CPU fast decoder's (host/fastx_decode.c), so both flag the same values. */
static inline int fast_rescale(int64_t v, int32_t src_dec, int32_t dst_dec, int64_t *out)
{
	static const int64_t pow10_tab[19] = {
		1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL, 100000000LL,
		1000000000LL, 10000000000LL, 100000000000LL, 1000000000000LL, 10000000000000LL,
		100000000000000LL, 1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
		1000000000000000000LL,
	};
	int32_t d = dst_dec - src_dec;
	if (d == 0) {
		*out = v;
		return 0;
	}
	if (d > 0) {
		if (d > 18 || __builtin_mul_overflow(v, pow10_tab[d], out))
			return -1;
		return 0;
	}
	if (-d > 18) {
		if (v != 0)
			return -1;
		*out = 0;
		return 0;
	}
	if (v % pow10_tab[-d] != 0)
		return -1;
	*out = v / pow10_tab[-d];
	return 0;
}

#endif
