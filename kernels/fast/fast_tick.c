/* fast_tick.c - decoded FAST record -> fixed-size tick record (synthesisable subset).
 *
 * The template compiler resolved field names to tick fields; here values are
 * copied and rescaled to the ABI's fixed decimals, so a strategy reads the
 * same units whether the exchange sends a scaled integer (decimalPlaces) or a
 * FAST decimal. A value that cannot be represented exactly (a price with
 * more decimals than the ABI's, an index beyond 32 bits, a code longer than
 * TOE_FLAG_LEN) is never silently rounded or cut: the field is flagged in
 * hdr.bad_fields (TOE_RF_RANGE) and the record is still delivered, so its
 * channel and sequence stay visible.
 */
#include "fast_tick.h"
#include "fast_tick_dec.h"

/* String value v into dst[0..cap), NUL-padded; longer values are cut (the caller flags them). */
static void copy_str(const struct fast_rec *r, const struct fast_val *v, char *dst, uint32_t cap)
{
	uint32_t i;
	for (i = 0; i < TOE_FLAG_LEN + TOE_SECURITY_ID_LEN; i++) {
		if (i >= cap || i >= v->slen || (uint32_t)v->soff + i >= FAST_MAX_STRBUF)
			break;
		dst[i] = (char)r->str[v->soff + i];
	}
}

static inline int fits32(int64_t v)
{
	return v >= -2147483648LL && v <= 2147483647LL;
}

int fast_tick_map(const struct fast_prog *p, const struct fast_rec *r, uint64_t msg_seq,
		  union toe_record *out)
{
	uint32_t kind, k, i;
	uint32_t present = 0, bad = 0;
	union toe_record t;

	if (r->tpl >= FAST_MAX_TEMPLATES)
		return TOE_REC_NONE;
	kind = p->tpl[r->tpl].kind;
	if (kind != TOE_REC_TRADE && kind != TOE_REC_ORDER)
		return TOE_REC_NONE;
	for (i = 0; i < TOE_RECORD_SIZE; i++)
		t.bytes[i] = 0;

	for (k = 0; k < FAST_MAX_VALUES; k++) {
		const struct fast_val *v;
		const struct fast_instr *in;
		int64_t x = 0;
		int32_t src_dec = 0;
		uint32_t tf;
		if (k >= r->nvals)
			break;
		v = &r->v[k];
		in = &p->instr[v->instr & (FAST_MAX_INSTR - 1)];
		tf = in->tick;
		if (tf == TOE_TF_NONE || tf >= TOE_TF_COUNT || in->depth != 0 || !v->present)
			continue;
		present |= 1u << tf;

		if (tf == TOE_TF_SECURITY_ID) {
			/* at most LEN-1 characters: the id stays NUL-terminated */
			char *sid = kind == TOE_REC_TRADE ? t.trade.security_id : t.order.security_id;
			copy_str(r, v, sid, TOE_SECURITY_ID_LEN - 1);
			if (v->slen >= TOE_SECURITY_ID_LEN)
				bad |= 1u << tf;
			continue;
		}
		if (tf == TOE_TF_TRADE_BS_FLAG || tf == TOE_TF_ORDER_BS_FLAG || tf == TOE_TF_ORDER_TYPE) {
			char *f = tf == TOE_TF_TRADE_BS_FLAG ? t.trade.bs_flag
				  : tf == TOE_TF_ORDER_BS_FLAG ? t.order.bs_flag : t.order.order_type;
			copy_str(r, v, f, TOE_FLAG_LEN);
			if (v->slen > TOE_FLAG_LEN)
				bad |= 1u << tf;
			continue;
		}

		if (in->kind == FAST_K_DECIMAL || in->kind == FAST_K_DEC_EXP)
			src_dec = -v->exp;
		else if (in->flags & FAST_F_SCALED)
			src_dec = in->scale;
		/* a value that does not fit is flagged and reads 0: the record still
		 * carries its other fields and its place in the channel's sequence */
		if (fast_rescale(v->i, src_dec, fast_tick_decimals(tf), &x) != 0) {
			bad |= 1u << tf;
			continue;
		}

		switch (tf) {
		case TOE_TF_DATA_STATUS:
		case TOE_TF_TRADE_INDEX:
		case TOE_TF_TRADE_CHANNEL:
		case TOE_TF_TRADE_TIME:
		case TOE_TF_ORDER_INDEX:
		case TOE_TF_ORDER_CHANNEL:
		case TOE_TF_ORDER_TIME:
			if (!fits32(x)) {
				bad |= 1u << tf;
				continue;
			}
			break;
		default:
			break;
		}
		switch (tf) {
		case TOE_TF_BIZ_INDEX:
			if (kind == TOE_REC_TRADE)
				t.trade.biz_index = x;
			else
				t.order.biz_index = x;
			break;
		case TOE_TF_DATA_STATUS:
			if (kind == TOE_REC_TRADE)
				t.trade.data_status = (int32_t)x;
			else
				t.order.data_status = (int32_t)x;
			break;
		case TOE_TF_TRADE_INDEX: t.trade.trade_index = (int32_t)x; break;
		case TOE_TF_TRADE_CHANNEL: t.trade.trade_channel = (int32_t)x; break;
		case TOE_TF_TRADE_TIME: t.trade.trade_time = (int32_t)x; break;
		case TOE_TF_TRADE_PRICE: t.trade.trade_price = x; break;
		case TOE_TF_TRADE_QTY: t.trade.trade_qty = x; break;
		case TOE_TF_TRADE_MONEY: t.trade.trade_money = x; break;
		case TOE_TF_TRADE_BUY_NO: t.trade.trade_buy_no = x; break;
		case TOE_TF_TRADE_SELL_NO: t.trade.trade_sell_no = x; break;
		case TOE_TF_ORDER_INDEX: t.order.order_index = (int32_t)x; break;
		case TOE_TF_ORDER_CHANNEL: t.order.order_channel = (int32_t)x; break;
		case TOE_TF_ORDER_TIME: t.order.order_time = (int32_t)x; break;
		case TOE_TF_ORDER_PRICE: t.order.order_price = x; break;
		case TOE_TF_ORDER_NO: t.order.order_no = x; break;
		case TOE_TF_BALANCE: t.order.balance = x; break;
		default: break;
		}
	}
	t.hdr.type = (uint16_t)kind;
	t.hdr.present = present;
	t.hdr.msg_seq = msg_seq;
	t.hdr.bad_fields = bad;
	if (bad)
		t.hdr.flags |= TOE_RF_RANGE;
	if (r->warn)
		t.hdr.flags |= TOE_RF_WARN;
	*out = t;
	return (int)kind;
}
