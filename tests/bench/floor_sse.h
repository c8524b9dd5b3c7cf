/* floor_sse.h - a FAST decoder written by hand for exactly SSE's 3201 and 5801 templates
 * (conf/templates/sse-l2-3201-5801.xml), for bench_fastx only.
 *
 * Not a decoder of toed: it knows two templates, trusts its input (any
 * anomaly - an overlong or out-of-range field, a record longer than its
 * window, an unknown template - just returns -1) and keeps its own small
 * dictionary. It stands for the best a per-template code generator (a JIT)
 * could emit on this CPU: every presence bit, operator, slot and tick
 * offset is a constant, fields are parsed with the same stop-bit mask and
 * pext gather as fastx's AVX2 copy, nothing is dispatched. bench_fastx
 * checks that its tick records equal fastx's for every record of the
 * input before it times it, and prints it as the floor beside fastx.
 */
#ifndef TOE_FLOOR_SSE_H
#define TOE_FLOOR_SSE_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "toe/tick.h"

#define FL_T __attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline

/* The global dictionary's entries these templates use (state 0 undefined,
 * 1 assigned, 2 empty); zeroed at each reset. */
enum { FL_TID, FL_TIDX, FL_TCH, FL_TTIME, FL_BIZ, FL_OIDX, FL_OCH, FL_OTIME, FL_N };
struct fl_dict {
	int64_t v[FL_N];
	uint8_t st[FL_N];
	uint8_t sec_st, otype_st, obs_st;
	char sec[16], otype[8], obs[8];
};

struct fl_cur {
	const uint8_t *p;
	uint64_t m; /* stop bits of the bytes from p, bit 0 = *p */
};

FL_T uint64_t fl_stops(const uint8_t *p)
{
	__m256i a = _mm256_loadu_si256((const __m256i *)p), b = _mm256_loadu_si256((const __m256i *)(p + 32));
	return (uint32_t)_mm256_movemask_epi8(a) | ((uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32);
}

FL_T uint64_t fl_groups(const uint8_t *p) /* eight 7-bit groups, left-aligned */
{
	uint64_t w;
	memcpy(&w, p, 8);
	return _pext_u64(__builtin_bswap64(w), 0x7f7f7f7f7f7f7f7full) << 8;
}

FL_T uint32_t fl_z(struct fl_cur *c) /* the next field's length - 1 */
{
	if (__builtin_expect(c->m == 0, 0))
		c->m = fl_stops(c->p);
	return (uint32_t)_tzcnt_u64(c->m);
}

FL_T void fl_eat(struct fl_cur *c, uint32_t z)
{
	c->p += z + 1;
	c->m = (c->m >> z) >> 1;
}

FL_T int64_t fl_int(struct fl_cur *c, int *bad) /* signed, at most 8 bytes */
{
	uint32_t z = fl_z(c);
	int64_t v;
	*bad |= z >= 8;
	v = (int64_t)fl_groups(c->p) >> (57 - 7 * (z & 7));
	fl_eat(c, z & 63);
	return v;
}

FL_T int fl_int_opt(struct fl_cur *c, int64_t *v, int *bad) /* nullable: 1 when present */
{
	int64_t x = fl_int(c, bad);
	*v = x - (x > 0);
	return x != 0;
}

/* An ASCII string of at most 16 bytes into dst[16] (NUL-padded); -1 for a
 * null (nullable), else its length. */
FL_T int fl_str(struct fl_cur *c, char *dst, int nullable, int *bad)
{
	uint32_t z = fl_z(c), n = z + 1;
	uint64_t w0, w1;
	if (__builtin_expect(n > 16 || (nullable && c->p[0] == 0x80), 0)) { /* dst written on every path */
		memset(dst, 0, 16);
		*bad |= n > 16;
		fl_eat(c, 0);
		return n > 16 ? 0 : -1;
	}
	*bad |= c->p[0] == 0x00 || c->p[0] == 0x80;
	memcpy(&w0, c->p, 8);
	memcpy(&w1, c->p + 8, 8);
	w0 &= 0x7f7f7f7f7f7f7f7full;
	w1 &= 0x7f7f7f7f7f7f7f7full;
	if (n < 8) {
		w0 &= (1ull << (8 * n)) - 1;
		w1 = 0;
	} else {
		w1 &= n == 8 ? 0 : n < 16 ? (1ull << (8 * (n - 8))) - 1 : ~0ull;
	}
	memcpy(dst, &w0, 8);
	memcpy(dst + 8, &w1, 8);
	fl_eat(c, z);
	return (int)n;
}

FL_T int64_t fl_incr(struct fl_cur *c, struct fl_dict *D, int k, int set, int *bad)
{
	int64_t v;
	if (set)
		v = fl_int(c, bad);
	else {
		*bad |= D->st[k] != 1;
		v = D->v[k] + 1;
	}
	D->v[k] = v;
	D->st[k] = 1;
	return v;
}

FL_T int64_t fl_copy(struct fl_cur *c, struct fl_dict *D, int k, int set, int *bad)
{
	if (set) {
		D->v[k] = fl_int(c, bad);
		D->st[k] = 1;
	} else {
		*bad |= D->st[k] != 1;
	}
	return D->v[k];
}

/* optional copy: 1 when the dictionary holds a value after the field */
FL_T int fl_copy_opt(struct fl_cur *c, struct fl_dict *D, int k, int set, int *bad)
{
	if (set) {
		int64_t v;
		if (fl_int_opt(c, &v, bad))
			D->v[k] = v, D->st[k] = 1;
		else
			D->st[k] = 2;
	}
	return D->st[k] == 1;
}

FL_T int fl_scopy_opt(struct fl_cur *c, char *dv, uint8_t *st, int set, int *bad)
{
	if (set) {
		char s[16];
		if (fl_str(c, s, 1, bad) >= 0)
			memcpy(dv, s, 8), *st = 1;
		else
			*st = 2;
	}
	return *st == 1;
}

#define FL_BIT(k) ((pm >> (63 - (k))) & 1)
#define FL_OPT(k, field, tf)                                   \
	do {                                                   \
		int64_t v_;                                    \
		if (FL_BIT(k) && fl_int_opt(&c, &v_, &bad)) {  \
			field = v_;                            \
			pres |= 1u << (tf);                    \
		}                                              \
	} while (0)

/* One record at b (readable 64 bytes past its end) into *tk; 0 with the
 * bytes used, or -1. */
__attribute__((target("avx2,bmi,bmi2"))) static int fl_record(struct fl_dict *D, const uint8_t *b,
							      union toe_record *tk, uint32_t *used)
{
	struct fl_cur c = {b, fl_stops(b)};
	int bad = 0;
	uint32_t z = fl_z(&c), tid, pres = 0;
	uint64_t pm;
	if (z >= 8)
		return -1;
	pm = fl_groups(c.p) & (~0ull << (57 - 7 * z));
	fl_eat(&c, z);
	if (FL_BIT(0)) {
		D->v[FL_TID] = fl_int(&c, &bad);
		D->st[FL_TID] = 1;
	} else if (D->st[FL_TID] != 1) {
		return -1;
	}
	tid = (uint32_t)D->v[FL_TID];
	memset(tk, 0, sizeof *tk);
	if (tid == 3201) {
		struct toe_trade *t = &tk->trade;
		FL_OPT(1, t->data_status, TOE_TF_DATA_STATUS);
		t->trade_index = (int32_t)fl_incr(&c, D, FL_TIDX, (int)FL_BIT(2), &bad);
		t->trade_channel = (int32_t)fl_copy(&c, D, FL_TCH, (int)FL_BIT(3), &bad);
		if (FL_BIT(4))
			D->sec_st = 1, fl_str(&c, D->sec, 0, &bad);
		bad |= D->sec_st != 1;
		memcpy(t->security_id, D->sec, 16);
		if (fl_copy_opt(&c, D, FL_TTIME, (int)FL_BIT(5), &bad))
			t->trade_time = (int32_t)D->v[FL_TTIME], pres |= 1u << TOE_TF_TRADE_TIME;
		FL_OPT(6, t->trade_price, TOE_TF_TRADE_PRICE);
		FL_OPT(7, t->trade_qty, TOE_TF_TRADE_QTY);
		FL_OPT(8, t->trade_money, TOE_TF_TRADE_MONEY);
		FL_OPT(9, t->trade_buy_no, TOE_TF_TRADE_BUY_NO);
		FL_OPT(10, t->trade_sell_no, TOE_TF_TRADE_SELL_NO);
		if (FL_BIT(11)) {
			char s[16];
			if (fl_str(&c, s, 1, &bad) >= 0)
				memcpy(t->bs_flag, s, 8), pres |= 1u << TOE_TF_TRADE_BS_FLAG;
		}
		t->biz_index = fl_incr(&c, D, FL_BIZ, (int)FL_BIT(12), &bad);
		pres |= (1u << TOE_TF_TRADE_INDEX) | (1u << TOE_TF_TRADE_CHANNEL) | (1u << TOE_TF_SECURITY_ID) |
			(1u << TOE_TF_BIZ_INDEX);
		tk->hdr.type = TOE_REC_TRADE;
	} else if (tid == 5801) {
		struct toe_order *t = &tk->order;
		FL_OPT(1, t->data_status, TOE_TF_DATA_STATUS);
		t->order_index = (int32_t)fl_incr(&c, D, FL_OIDX, (int)FL_BIT(2), &bad);
		t->order_channel = (int32_t)fl_copy(&c, D, FL_OCH, (int)FL_BIT(3), &bad);
		if (FL_BIT(4))
			D->sec_st = 1, fl_str(&c, D->sec, 0, &bad);
		bad |= D->sec_st != 1;
		memcpy(t->security_id, D->sec, 16);
		if (fl_copy_opt(&c, D, FL_OTIME, (int)FL_BIT(5), &bad))
			t->order_time = (int32_t)D->v[FL_OTIME], pres |= 1u << TOE_TF_ORDER_TIME;
		if (fl_scopy_opt(&c, D->otype, &D->otype_st, (int)FL_BIT(6), &bad))
			memcpy(t->order_type, D->otype, 8), pres |= 1u << TOE_TF_ORDER_TYPE;
		FL_OPT(7, t->order_no, TOE_TF_ORDER_NO);
		FL_OPT(8, t->order_price, TOE_TF_ORDER_PRICE);
		FL_OPT(9, t->balance, TOE_TF_BALANCE);
		if (fl_scopy_opt(&c, D->obs, &D->obs_st, (int)FL_BIT(10), &bad))
			memcpy(t->bs_flag, D->obs, 8), pres |= 1u << TOE_TF_ORDER_BS_FLAG;
		t->biz_index = fl_incr(&c, D, FL_BIZ, (int)FL_BIT(11), &bad);
		pres |= (1u << TOE_TF_ORDER_INDEX) | (1u << TOE_TF_ORDER_CHANNEL) | (1u << TOE_TF_SECURITY_ID) |
			(1u << TOE_TF_BIZ_INDEX);
		tk->hdr.type = TOE_REC_ORDER;
	} else {
		return -1;
	}
	if (bad)
		return -1;
	tk->hdr.present = pres;
	*used = (uint32_t)(c.p - b);
	return 0;
}

#undef FL_OPT
#undef FL_BIT
#undef FL_T

#endif
