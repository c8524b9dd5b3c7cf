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

#endif
