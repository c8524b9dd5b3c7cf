/* fast_tick.h - map a decoded FAST record onto a fixed-size tick record.
 *
 * The template compiler tags each instruction with the tick field its name
 * maps to (TradePrice -> TOE_TF_TRADE_PRICE, ...) and each template with the
 * record type it maps to. This mapper copies the values and converts scaled
 * integers (decimalPlaces) and decimals (exponent) to the ABI's fixed scales
 * (toe/tick.h). Synthesisable subset.
 */
#ifndef FAST_TICK_H
#define FAST_TICK_H

#include <stdint.h>
#include "toe/tick.h"
#include "fast_decode.h"

/* Fill *out from r (msg_seq goes into the header; seq and rx_ns are left 0,
 * group and line 0). Returns the record type written
 * (TOE_REC_TRADE/ORDER), or TOE_REC_NONE when the record's template maps to
 * no tick type (out is then untouched). A value that does not fit its tick
 * field after scaling sets its bit in hdr.bad_fields and TOE_RF_RANGE in
 * hdr.flags (the field reads 0, a string its first bytes); a record decoded
 * with a reportable FAST error gets TOE_RF_WARN. */
int fast_tick_map(const struct fast_prog *p, const struct fast_rec *r, uint64_t msg_seq,
		  union toe_record *out);

#endif
