/* fastx_lower.c - lower a template program into straight-line field ops (host only).
 *
 * Runs once per template load (and reload). Each depth-0 field instruction
 * of a template becomes one struct fastx_op with its operator, nullability,
 * presence bit, slot, initial value and tick destination resolved; see
 * fastx_int.h. What the specialised decoder does not handle marks the whole
 * template for the reference (fastx_tpl.ok = 0, with the reason in fastx_prog.why[]):
 * sequences, groups, decimals, byte vectors and unicode strings, string
 * delta/tail, a dictionary entry a uInt64 shares with another integer type
 * (FAST_F_MIXED), more than 63 presence bits or more values than the
 * reference accepts. The reasons are reported by fastx_prog_why() (toe-fastdump
 * --stats), so a template file that misses the fast path says so.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastx_int.h"
#include "fast/fast_tick_dec.h"

static int fail(struct fastx_prog *xp, uint32_t t, const char *why, uint32_t pc)
{
	snprintf(xp->why[t], sizeof xp->why[t], "%.60s (instruction %u)", why, pc);
	xp->tpl[t].ok = 0;
	return -1;
}

/* Where tick field tf goes in a record of kind `kind`, and how (ABI 2: prices
 * are 64-bit, the code fields TOE_FLAG_LEN-byte strings). */
static int tick_dest(uint32_t tf, uint32_t kind, uint16_t *off, uint8_t *tw)
{
	int trade = kind == TOE_REC_TRADE;
	switch (tf) {
	case TOE_TF_SECURITY_ID:
		*off = trade ? offsetof(struct toe_trade, security_id) : offsetof(struct toe_order, security_id);
		*tw = XW_SID;
		return 0;
	case TOE_TF_TRADE_BS_FLAG: *off = offsetof(struct toe_trade, bs_flag); *tw = XW_CHAR; return 0;
	case TOE_TF_ORDER_BS_FLAG: *off = offsetof(struct toe_order, bs_flag); *tw = XW_CHAR; return 0;
	case TOE_TF_ORDER_TYPE: *off = offsetof(struct toe_order, order_type); *tw = XW_CHAR; return 0;
	case TOE_TF_BIZ_INDEX:
		*off = trade ? offsetof(struct toe_trade, biz_index) : offsetof(struct toe_order, biz_index);
		*tw = XW_I64;
		return 0;
	case TOE_TF_DATA_STATUS:
		*off = trade ? offsetof(struct toe_trade, data_status) : offsetof(struct toe_order, data_status);
		*tw = XW_I32;
		return 0;
	case TOE_TF_TRADE_INDEX: *off = offsetof(struct toe_trade, trade_index); *tw = XW_I32; return 0;
	case TOE_TF_TRADE_CHANNEL: *off = offsetof(struct toe_trade, trade_channel); *tw = XW_I32; return 0;
	case TOE_TF_TRADE_TIME: *off = offsetof(struct toe_trade, trade_time); *tw = XW_I32; return 0;
	case TOE_TF_TRADE_PRICE: *off = offsetof(struct toe_trade, trade_price); *tw = XW_I64; return 0;
	case TOE_TF_TRADE_QTY: *off = offsetof(struct toe_trade, trade_qty); *tw = XW_I64; return 0;
	case TOE_TF_TRADE_MONEY: *off = offsetof(struct toe_trade, trade_money); *tw = XW_I64; return 0;
	case TOE_TF_TRADE_BUY_NO: *off = offsetof(struct toe_trade, trade_buy_no); *tw = XW_I64; return 0;
	case TOE_TF_TRADE_SELL_NO: *off = offsetof(struct toe_trade, trade_sell_no); *tw = XW_I64; return 0;
	case TOE_TF_ORDER_INDEX: *off = offsetof(struct toe_order, order_index); *tw = XW_I32; return 0;
	case TOE_TF_ORDER_CHANNEL: *off = offsetof(struct toe_order, order_channel); *tw = XW_I32; return 0;
	case TOE_TF_ORDER_TIME: *off = offsetof(struct toe_order, order_time); *tw = XW_I32; return 0;
	case TOE_TF_ORDER_PRICE: *off = offsetof(struct toe_order, order_price); *tw = XW_I64; return 0;
	case TOE_TF_ORDER_NO: *off = offsetof(struct toe_order, order_no); *tw = XW_I64; return 0;
	case TOE_TF_BALANCE: *off = offsetof(struct toe_order, balance); *tw = XW_I64; return 0;
	default: return -1;
	}
}

static int lower_tpl(struct fastx_prog *xp, uint32_t t)
{
	const struct fast_prog *p = xp->p;
	struct fastx_tpl *xt = &xp->tpl[t];
	uint32_t first = p->tpl[t].first, end = p->tpl[t].end, pc, bit = 1, nstr = 0;
	xt->ok = 1;
	xp->why[t][0] = 0;
	xt->kind = p->tpl[t].kind == TOE_REC_TRADE || p->tpl[t].kind == TOE_REC_ORDER ? p->tpl[t].kind : TOE_REC_NONE;
	xt->first = xp->nops;
	xt->nops = 0;
	xt->used = 1ull << 63; /* the template id's bit */
	if (end > FAST_MAX_INSTR)
		end = FAST_MAX_INSTR;
	if (end > first && end - first > FAST_MAX_VALUES)
		return fail(xp, t, "more fields than the reference's value array", first);
	for (pc = first; pc < end; pc++) {
		const struct fast_instr *in = &p->instr[pc];
		struct fastx_op *o = &xp->ops[xp->nops + xt->nops];
		const struct fast_const *k = &p->consts[in->init & (FAST_MAX_CONST - 1)];
		int is_int = in->kind >= FAST_K_I32 && in->kind <= FAST_K_U64;
		memset(o, 0, sizeof *o);
		if (in->depth != 0 || in->kind == FAST_K_SEQ || in->kind == FAST_K_GROUP || in->kind == FAST_K_END)
			return fail(xp, t, "sequence or group", pc);
		if (!is_int && in->kind != FAST_K_ASCII)
			return fail(xp, t, "decimal, byte vector or unicode field", pc);
		if (in->flags & FAST_F_MIXED) /* the reference keeps which type wrote the entry */
			return fail(xp, t, "entry shared by a uInt64 and another integer type", pc);
		o->opt = (in->flags & FAST_F_OPTIONAL) ? 1 : 0;
		o->has_init = (in->flags & FAST_F_HAS_INIT) ? 1 : 0;
		o->dict = in->dict & (FAST_MAX_DICT - 1);
		o->doff = (uint32_t)(o->dict * sizeof(struct fast_dict_entry));
		o->init = k->i;
		if (is_int) {
			static const uint8_t types[] = {0, XT_I32, XT_U32, XT_I64, XT_U64};
			o->type = types[in->kind];
			switch (in->op) {
			case FAST_OP_NONE: o->op = XO_INT_NONE; break;
			case FAST_OP_CONST: o->op = XO_INT_CONST; break;
			case FAST_OP_COPY: o->op = XO_INT_COPY; break;
			case FAST_OP_DEFAULT: o->op = XO_INT_DEFAULT; break;
			case FAST_OP_INCR: o->op = XO_INT_INCR; break;
			case FAST_OP_DELTA: o->op = XO_INT_DELTA; break;
			default: return fail(xp, t, "operator not specialised for integers", pc);
			}
		} else {
			uint32_t n = k->len;
			switch (in->op) {
			case FAST_OP_NONE: o->op = XO_STR_NONE; break;
			case FAST_OP_CONST: o->op = XO_STR_CONST; break;
			case FAST_OP_COPY: o->op = XO_STR_COPY; break;
			case FAST_OP_DEFAULT: o->op = XO_STR_DEFAULT; break;
			default: return fail(xp, t, "string delta/tail", pc);
			}
			/* the reference's init_str(): bounded by FAST_MAX_STR and the pool */
			if (n > FAST_MAX_STR)
				n = FAST_MAX_STR;
			if ((uint32_t)k->off + n > FAST_MAX_POOL)
				n = k->off < FAST_MAX_POOL ? FAST_MAX_POOL - k->off : 0;
			o->ioff = k->off;
			o->ilen = (uint16_t)(o->has_init ? n : 0);
			if (++nstr > 63)
				return fail(xp, t, "more strings than the reference's string buffer", pc);
		}
		o->code = (uint8_t)XCODE3(o->op, o->opt, XWC_NONE);
		o->sgn = is_int && (o->type == XT_I32 || o->type == XT_I64);
		o->maxn = (o->type == XT_I32 || o->type == XT_U32) ? 4 : 8;
		/* a presence bit: copy, default, increment (tail), optional constant */
		if (in->op == FAST_OP_COPY || in->op == FAST_OP_DEFAULT || in->op == FAST_OP_INCR ||
		    (in->op == FAST_OP_CONST && o->opt)) {
			if (bit > 63)
				return fail(xp, t, "more than 63 presence bits", pc);
			o->pmask = 1ull << (63 - bit);
			xt->used |= o->pmask;
			bit++;
		}
		if (xt->kind != TOE_REC_NONE && in->tick != TOE_TF_NONE && in->tick < TOE_TF_COUNT) {
			if (tick_dest(in->tick, xt->kind, &o->toff, &o->tw) != 0)
				return fail(xp, t, "unknown tick field", pc);
			if ((o->tw == XW_SID || o->tw == XW_CHAR) != !is_int)
				return fail(xp, t, "tick field of an unexpected type", pc);
			o->tbit = 1u << in->tick;
			o->code = (uint8_t)XCODE3(o->op, o->opt,
						  o->tw == XW_I32 || o->tw == XW_CHAR ? XWC_A : XWC_B);
			if (is_int) {
				uint32_t cls;
				o->src_dec = (in->flags & FAST_F_SCALED) ? in->scale : 0;
				o->dst_dec = (int8_t)fast_tick_decimals(in->tick);
				o->rescale = o->src_dec != o->dst_dec;
				/* the classes' wire types (fastx_int.h) */
				if (o->rescale)
					cls = XWC_C;
				else if (o->tw == XW_I32 && o->type == XT_I32)
					cls = XWC_A;
				else if (o->tw == XW_I64 && o->sgn)
					cls = XWC_B;
				else
					cls = XWC_C;
				o->code = (uint8_t)XCODE3(o->op, o->opt, cls);
			}
		}
		xt->nops++;
	}
	memset(&xp->ops[xp->nops + xt->nops], 0, sizeof xp->ops[0]);
	xp->ops[xp->nops + xt->nops].op = XO_END;
	xp->ops[xp->nops + xt->nops].code = XC_END;
	xp->nops += xt->nops + 1u;
	return 0;
}

struct fastx_prog *fastx_prog_new(const struct fast_prog *prog)
{
	struct fastx_prog *xp = calloc(1, sizeof *xp);
	const void *const *tabs[FASTX_NSEL];
	uint32_t t, ntpl, i, k;
	if (!xp)
		return NULL;
	xp->p = prog;
	fastx_x_tabs(tabs);
	ntpl = prog->ntpl < FAST_MAX_TEMPLATES ? prog->ntpl : FAST_MAX_TEMPLATES;
	for (t = 0; t < ntpl; t++) {
		uint32_t h = fastx_home(prog->tpl[t].id);
		uint32_t save = xp->nops;
		if (lower_tpl(xp, t) != 0)
			xp->nops = save; /* ops of a fallback template are dropped */
		if (xp->tpl[t].ok)
			xp->nspec++;
		else
			xp->nfall++;
		/* the first template with an id wins, as the reference's linear search */
		for (i = 0; i < FASTX_HASH; i++) {
			uint32_t k = (h + i) & (FASTX_HASH - 1);
			if (xp->hash[k] && xp->hkey[k] == prog->tpl[t].id)
				break;
			if (!xp->hash[k]) {
				xp->hash[k] = (int16_t)(t + 1);
				xp->hkey[k] = prog->tpl[t].id;
				break;
			}
		}
	}
	fastx_vec_lower(xp);
	/* threaded code: each op's label in every copy this CPU runs */
	for (i = 0; i < xp->nops; i++)
		for (k = 0; k < FASTX_NSEL; k++)
			xp->ops[i].h[k] = tabs[k] ? tabs[k][xp->ops[i].code] : NULL;
	return xp;
}

void fastx_prog_free(struct fastx_prog *xp)
{
	free(xp);
}

uint32_t fastx_prog_specialised(const struct fastx_prog *xp)
{
	return xp->nspec;
}

uint32_t fastx_prog_fallback(const struct fastx_prog *xp)
{
	return xp->nfall;
}

const char *fastx_prog_why(const struct fastx_prog *xp, uint32_t t)
{
	return t < FAST_MAX_TEMPLATES ? xp->why[t] : "";
}

int fastx_choice_parse(const char *s)
{
	if (!strcmp(s, "auto"))
		return FASTX_AUTO;
	if (!strcmp(s, "fast"))
		return FASTX_FAST;
	if (!strcmp(s, "reference"))
		return FASTX_REFERENCE;
	return -1;
}

const char *fastx_choice_name(int c)
{
	return c == FASTX_FAST ? "fast" : c == FASTX_REFERENCE ? "reference" : "auto";
}
