/* test_fast_sse.c - the real SSE Level-2 templates on hand-encoded records.
 *
 * Loads conf/templates/sse-ngts-2.02-3201.xml and sse-l2-3201-5801.xml (the
 * tests run from the repository root), decodes records written out by hand
 * from the FAST 1.1 rules, and checks both the decoded values and the tick
 * records fast_tick_map() makes of them (toe/tick.h scales: prices 3
 * decimals, quantities 3, money 5 - the same as the templates'
 * decimalPlaces, so the scaled integers pass unchanged).
 *
 * Wire facts: template id 3201 = 25*128+1 = 19 81, 5801 = 45*128+41 = 2D A9.
 * Nullable (optional) integers are sent as value+1. ASCII "600000" =
 * 36 30 30 30 30 B0. Every STEP message resets the dictionary
 * (fast_dec_reset here); one global dictionary holds SecurityID and
 * BizIndex for both templates.
 *
 * Encodings used (7-bit groups, sign bit 0x40 of the first group):
 *   TradeIndex 1001 = 07 E9           TradeTime 9300000+1 = 04 37 50 A1
 *   price 10500+1 = 00 52 85          price 10510+1 = 00 52 8F
 *   qty 1000000+1 = 3D 04 C1          qty 200000+1 = 0C 1A C1
 *   qty 500000+1 = 1E 42 A1           money 1050000000+1 = 03 74 56 75 81
 *   money 210200000+1 = 00 64 1D 4B C1    money 525500000+1 = 01 7A 49 7C E1
 *   9250000+1 = 04 34 49 D1   9250010+1 = 04 34 49 DB   9250100+1 = 04 34 4A B5
 *   BuyNo 5001+1 = 27 8A   SellNo 5002+1 = 27 8B   OrderNO 7001+1 = 36 DA
 *   BizIndex 101 (mandatory) = 00 E5 (0x65 has bit 6 set)   201 = 01 C9
 */
#include "test.h"
#include "fast_vec.h"
#include "fast/fast_tick.h"
#include "toe/tick.h"

#define TF(x) (1u << TOE_TF_##x)

static void chk_secid(const char *got, const char *want, int line)
{
	char w[TOE_SECURITY_ID_LEN];
	memset(w, 0, sizeof w);
	memcpy(w, want, strlen(want));
	test_checks++;
	if (memcmp(got, w, sizeof w) != 0) {
		test_failures++;
		fprintf(stderr, "line %d: security_id \"%.16s\", expected \"%s\" NUL-padded\n", line, got, want);
	}
}

/* A code field (TOE_FLAG_LEN bytes, NUL-padded) against a string. */
static void chk_code(const char *got, const char *want, int line)
{
	char w[TOE_FLAG_LEN];
	memset(w, 0, sizeof w);
	memcpy(w, want, strlen(want) < sizeof w ? strlen(want) : sizeof w);
	test_checks++;
	if (memcmp(got, w, sizeof w) != 0) {
		test_failures++;
		fprintf(stderr, "line %d: code \"%.8s\", expected \"%s\" NUL-padded\n", line, got, want);
	}
}

/* Map the last decoded record; the union is first filled with a pattern to
 * see that the mapper writes every field (absent ones as 0). */
static int map(struct fv *t, uint64_t msg_seq, union toe_record *out)
{
	memset(out, 0xA5, sizeof *out);
	return fast_tick_map(&t->prog, &t->rec, msg_seq, out);
}

/* ---- set 2.02: template 3201 only, SecurityID optional ------------------- */
static void test_ngts_202(void)
{
	struct fv *t = fv_file("conf/templates/sse-ngts-2.02-3201.xml");
	union toe_record u;
	static const char *const msg[] = {
		/* 1: pmap bits tid,DS,TI,TC,SID,TT,TP | TQ,TM
		 *       = 1,0,1,1,1,1,1 -> 5F | 1,1 -> E0 (stop)
		 * TradeIndex 1001, TradeChannel 1, SecurityID "600000",
		 * TradeTime 09:30:00.00, TradePrice 10.500, TradeQty 1000.000,
		 * TradeMoney 10500.00000; DataStatus absent (default, no value) */
		"5F E0 | 19 81 | 07 E9 | 81 | 36 30 30 30 30 B0 | 04 37 50 A1 | 00 52 85 | 3D 04 C1 | 03 74 56 75 81",
		/* 2: same template (id bit clear), TradeIndex +1, copies, price 10.510,
		 * qty 200.000, money 2102.00000: bits 0,0,0,0,0,0,1 -> 01 | 1,1 -> E0 */
		"01 E0 | 00 52 8F | 0C 1A C1 | 00 64 1D 4B C1",
		/* 3: DataStatus 0 (sent 1), SecurityID NULL: bits 0,1,0,0,1 -> A4 */
		"A4 | 81 | 80",
		/* 4: nothing set: SecurityID stays absent (empty entry) */
		"80",
	};
	if (!t)
		return;
	CHECK(fast_prog_find(&t->prog, 3201) >= 0);
	fast_dec_reset(&t->dec);
	MSG(t, msg);

	MSG_OK(t);
	V_TID(t, 3201);
	V_N(t, 9);
	V_S(t, 0, "UA3201");
	V_ABS(t, 1);
	V_I(t, 2, 1001);
	V_I(t, 3, 1);
	V_S(t, 4, "600000");
	V_I(t, 5, 9300000);
	V_I(t, 6, 10500);
	V_I(t, 7, 1000000);
	V_I(t, 8, 1050000000);
	if (t->valid) {
		CHECK_EQ(map(t, 77, &u), TOE_REC_TRADE);
		CHECK_EQ(u.hdr.type, TOE_REC_TRADE);
		CHECK_EQ(u.hdr.msg_seq, 77);
		CHECK_EQ(u.hdr.seq, 0);
		CHECK_EQ(u.hdr.rx_ns, 0);
		CHECK_EQ(u.hdr.present, TF(SECURITY_ID) | TF(TRADE_INDEX) | TF(TRADE_CHANNEL) | TF(TRADE_TIME) |
						 TF(TRADE_PRICE) | TF(TRADE_QTY) | TF(TRADE_MONEY));
		CHECK_EQ(u.trade.data_status, 0);
		CHECK_EQ(u.trade.trade_index, 1001);
		CHECK_EQ(u.trade.trade_channel, 1);
		chk_secid(u.trade.security_id, "600000", __LINE__);
		CHECK_EQ(u.trade.trade_time, 9300000);
		CHECK_EQ(u.trade.trade_price, 10500);       /* 10.500 yuan at 3 decimals */
		CHECK_EQ(u.trade.trade_qty, 1000000);       /* 1000 shares at 3 decimals */
		CHECK_EQ(u.trade.trade_money, 1050000000);  /* 10500 yuan at 5 decimals */
		CHECK_EQ(u.trade.trade_buy_no, 0);
		CHECK_EQ(u.trade.trade_sell_no, 0);
		CHECK_EQ(u.trade.biz_index, 0);
		chk_code(u.trade.bs_flag, "", __LINE__);
	}

	MSG_OK(t);
	V_TID(t, 3201);
	V_ABS(t, 1);
	V_I(t, 2, 1002);
	V_I(t, 3, 1);
	V_S(t, 4, "600000");
	V_I(t, 5, 9300000);
	V_I(t, 6, 10510);
	V_I(t, 7, 200000);
	V_I(t, 8, 210200000);
	if (t->valid) {
		CHECK_EQ(map(t, 77, &u), TOE_REC_TRADE);
		CHECK_EQ(u.trade.trade_index, 1002);
		CHECK_EQ(u.trade.trade_price, 10510);
		CHECK_EQ(u.trade.trade_qty, 200000);
		CHECK_EQ(u.trade.trade_money, 210200000);
		chk_secid(u.trade.security_id, "600000", __LINE__);
	}

	MSG_OK(t);
	V_I(t, 1, 0);
	V_I(t, 2, 1003);
	V_I(t, 3, 1);
	V_ABS(t, 4);
	V_I(t, 5, 9300000);
	V_ABS(t, 6);
	V_ABS(t, 7);
	V_ABS(t, 8);
	if (t->valid) {
		CHECK_EQ(map(t, 78, &u), TOE_REC_TRADE);
		CHECK_EQ(u.hdr.msg_seq, 78);
		CHECK_EQ(u.hdr.present,
			 TF(DATA_STATUS) | TF(TRADE_INDEX) | TF(TRADE_CHANNEL) | TF(TRADE_TIME));
		CHECK_EQ(u.trade.data_status, 0);
		chk_secid(u.trade.security_id, "", __LINE__);
		CHECK_EQ(u.trade.trade_price, 0);
		CHECK_EQ(u.trade.trade_qty, 0);
		CHECK_EQ(u.trade.trade_money, 0);
	}

	MSG_OK(t);
	V_ABS(t, 1);
	V_I(t, 2, 1004);
	V_ABS(t, 4);
	V_I(t, 5, 9300000);
	fv_free(t);
}

/* ---- the current set: 3201 and 5801 sharing SecurityID and BizIndex ------ */
static void test_l2_3201_5801(void)
{
	struct fv *t = fv_file("conf/templates/sse-l2-3201-5801.xml");
	union toe_record u;
	/* 3201 bits: tid,DS,TI,TC,SID,TT,TP (40..01) | TQ,TM,TBN,TSN,TBS,BIZ (40..02)
	 * 5801 bits: tid,DS,OI,OC,SID,OT,OTy (40..01) | ONO,OP,Bal,OBS,BIZ (40..04) */
	static const char *const msg1[] = {
		/* A 3201: all but DataStatus: 5F | FE. TradeIndex 1, channel 1,
		 * "600000", 09:25:00.00, 10.500, 1000.000, 10500.00000, BuyNo 5001,
		 * SellNo 5002, "B", BizIndex 101 */
		"5F FE | 19 81 | 81 | 81 | 36 30 30 30 30 B0 | 04 34 49 D1 | 00 52 85 | 3D 04 C1 |"
		" 03 74 56 75 81 | 27 8A | 27 8B | C2 | 00 E5",
		/* B 5801: SecurityID and BizIndex NOT sent: 1,0,1,1,0,1,1 -> 5B |
		 * 1,1,1,1,0 -> F8. OrderIndex 1, channel 1, 09:25:00.10, "A",
		 * OrderNO 7001, 10.510, Balance 500.000, "S"; SecurityID copied
		 * from A ("600000"), BizIndex incremented from A's 101 -> 102 */
		"5B F8 | 2D A9 | 81 | 81 | 04 34 49 DB | C1 | 36 DA | 00 52 8F | 1E 42 A1 | D3",
		/* C 3201: price, qty, money, SellNo, BSFlag: 41 | EC. TradeIndex 2
		 * (incr), BizIndex 103, BuyNo absent (default, no value) */
		"41 EC | 19 81 | 00 52 8F | 1E 42 A1 | 01 7A 49 7C E1 | 36 DA | D3",
		/* D 3201 again (id bit clear): DataStatus 1 (sent 2), SecurityID
		 * "600519", TradeTime 09:25:01.00: 0,1,0,0,1,1,0 -> A6 (stop: rest 0) */
		"A6 | 82 | 36 30 30 35 31 B9 | 04 34 4A B5",
		/* E 5801, only the id: OrderIndex 2, SecurityID "600519" (from D),
		 * copies of B, BizIndex 105 */
		"C0 | 2D A9",
	};
	static const char *const msg2[] = {
		/* after a reset: 5801 without SecurityID -> D5 */
		"58 84 | 2D A9 | 82 | 81",
	};
	static const char *const msg3[] = {
		/* 5801 with SecurityID and BizIndex: 5C | 84; OrderIndex 2, BizIndex 201 */
		"5C 84 | 2D A9 | 82 | 81 | 36 30 30 30 30 B0 | 01 C9",
	};
	static const char *const msg4[] = {
		/* 3201 with TradeIndex not sent right after a reset -> D5 */
		"C0 | 19 81",
	};
	if (!t)
		return;
	CHECK(fast_prog_find(&t->prog, 3201) >= 0);
	CHECK(fast_prog_find(&t->prog, 5801) >= 0);

	fast_dec_reset(&t->dec);
	MSG(t, msg1);
	/* A */
	MSG_OK(t);
	V_TID(t, 3201);
	V_N(t, 13);
	V_S(t, 0, "UA3201");
	V_ABS(t, 1);
	V_I(t, 2, 1);
	V_I(t, 3, 1);
	V_S(t, 4, "600000");
	V_I(t, 5, 9250000);
	V_I(t, 6, 10500);
	V_I(t, 7, 1000000);
	V_I(t, 8, 1050000000);
	V_I(t, 9, 5001);
	V_I(t, 10, 5002);
	V_S(t, 11, "B");
	V_I(t, 12, 101);
	if (t->valid) {
		CHECK_EQ(map(t, 5, &u), TOE_REC_TRADE);
		CHECK_EQ(u.hdr.present, TF(SECURITY_ID) | TF(BIZ_INDEX) | TF(TRADE_INDEX) | TF(TRADE_CHANNEL) |
						 TF(TRADE_TIME) | TF(TRADE_PRICE) | TF(TRADE_QTY) | TF(TRADE_MONEY) |
						 TF(TRADE_BUY_NO) | TF(TRADE_SELL_NO) | TF(TRADE_BS_FLAG));
		CHECK_EQ(u.trade.trade_index, 1);
		CHECK_EQ(u.trade.trade_channel, 1);
		chk_secid(u.trade.security_id, "600000", __LINE__);
		CHECK_EQ(u.trade.trade_time, 9250000);
		CHECK_EQ(u.trade.trade_price, 10500);
		CHECK_EQ(u.trade.trade_qty, 1000000);
		CHECK_EQ(u.trade.trade_money, 1050000000);
		CHECK_EQ(u.trade.trade_buy_no, 5001);
		CHECK_EQ(u.trade.trade_sell_no, 5002);
		chk_code(u.trade.bs_flag, "B", __LINE__);
		CHECK_EQ(u.trade.biz_index, 101);
		CHECK_EQ(u.trade.data_status, 0);
	}
	/* B */
	MSG_OK(t);
	V_TID(t, 5801);
	V_N(t, 12);
	V_S(t, 0, "UA5801");
	V_ABS(t, 1);
	V_I(t, 2, 1);
	V_I(t, 3, 1);
	V_S(t, 4, "600000");
	V_I(t, 5, 9250010);
	V_S(t, 6, "A");
	V_I(t, 7, 7001);
	V_I(t, 8, 10510);
	V_I(t, 9, 500000);
	V_S(t, 10, "S");
	V_I(t, 11, 102);
	if (t->valid) {
		CHECK_EQ(map(t, 5, &u), TOE_REC_ORDER);
		CHECK_EQ(u.hdr.type, TOE_REC_ORDER);
		CHECK_EQ(u.hdr.msg_seq, 5);
		CHECK_EQ(u.hdr.present, TF(SECURITY_ID) | TF(BIZ_INDEX) | TF(ORDER_INDEX) | TF(ORDER_CHANNEL) |
						 TF(ORDER_TIME) | TF(ORDER_TYPE) | TF(ORDER_NO) | TF(ORDER_PRICE) |
						 TF(BALANCE) | TF(ORDER_BS_FLAG));
		CHECK_EQ(u.order.order_index, 1);
		CHECK_EQ(u.order.order_channel, 1);
		chk_secid(u.order.security_id, "600000", __LINE__);
		CHECK_EQ(u.order.order_time, 9250010);
		chk_code(u.order.order_type, "A", __LINE__);
		CHECK_EQ(u.order.order_no, 7001);
		CHECK_EQ(u.order.order_price, 10510);
		CHECK_EQ(u.order.balance, 500000);
		chk_code(u.order.bs_flag, "S", __LINE__);
		CHECK_EQ(u.order.biz_index, 102);
		CHECK_EQ(u.order.data_status, 0);
	}
	/* C */
	MSG_OK(t);
	V_TID(t, 3201);
	V_ABS(t, 1);
	V_I(t, 2, 2);
	V_I(t, 3, 1);
	V_S(t, 4, "600000");
	V_I(t, 5, 9250000);
	V_I(t, 6, 10510);
	V_I(t, 7, 500000);
	V_I(t, 8, 525500000);
	V_ABS(t, 9);
	V_I(t, 10, 7001);
	V_S(t, 11, "S");
	V_I(t, 12, 103);
	if (t->valid) {
		CHECK_EQ(map(t, 5, &u), TOE_REC_TRADE);
		CHECK_EQ(u.trade.trade_money, 525500000);
		CHECK_EQ(u.trade.trade_buy_no, 0);
		CHECK_EQ(u.hdr.present & TF(TRADE_BUY_NO), 0);
		CHECK_EQ(u.trade.trade_sell_no, 7001);
		chk_code(u.trade.bs_flag, "S", __LINE__);
		CHECK_EQ(u.trade.biz_index, 103);
	}
	/* D */
	MSG_OK(t);
	V_TID(t, 3201);
	V_I(t, 1, 1);
	V_I(t, 2, 3);
	V_I(t, 3, 1);
	V_S(t, 4, "600519");
	V_I(t, 5, 9250100);
	for (unsigned k = 6; k <= 11; k++)
		V_ABS(t, k);
	V_I(t, 12, 104);
	if (t->valid) {
		CHECK_EQ(map(t, 5, &u), TOE_REC_TRADE);
		CHECK_EQ(u.hdr.present, TF(DATA_STATUS) | TF(SECURITY_ID) | TF(BIZ_INDEX) | TF(TRADE_INDEX) |
						 TF(TRADE_CHANNEL) | TF(TRADE_TIME));
		CHECK_EQ(u.trade.data_status, 1);
		chk_secid(u.trade.security_id, "600519", __LINE__);
		CHECK_EQ(u.trade.trade_price, 0);
		chk_code(u.trade.bs_flag, "", __LINE__);
		CHECK_EQ(u.trade.biz_index, 104);
	}
	/* E */
	MSG_OK(t);
	V_TID(t, 5801);
	V_ABS(t, 1);
	V_I(t, 2, 2);
	V_I(t, 3, 1);
	V_S(t, 4, "600519");
	V_I(t, 5, 9250010);
	V_S(t, 6, "A");
	V_ABS(t, 7);
	V_ABS(t, 8);
	V_ABS(t, 9);
	V_S(t, 10, "S");
	V_I(t, 11, 105);
	if (t->valid) {
		CHECK_EQ(map(t, 5, &u), TOE_REC_ORDER);
		chk_secid(u.order.security_id, "600519", __LINE__);
		CHECK_EQ(u.order.biz_index, 105);
		CHECK_EQ(u.order.order_no, 0);
		CHECK_EQ(u.order.order_price, 0);
		CHECK_EQ(u.order.balance, 0);
		CHECK_EQ(u.hdr.present & (TF(ORDER_NO) | TF(ORDER_PRICE) | TF(BALANCE)), 0);
	}
	CHECK_EQ(t->mpos, t->mlen);

	/* next message: dictionary reset, SecurityID undefined */
	fast_dec_reset(&t->dec);
	MSG(t, msg2);
	MSG_ERR(t, FAST_E_MANDATORY_UNDEF);
	fast_dec_reset(&t->dec);
	MSG(t, msg3);
	MSG_OK(t);
	V_TID(t, 5801);
	V_ABS(t, 1);
	V_I(t, 2, 2);
	V_S(t, 4, "600000");
	for (unsigned k = 5; k <= 10; k++)
		V_ABS(t, k);
	V_I(t, 11, 201);
	fast_dec_reset(&t->dec);
	MSG(t, msg4);
	MSG_ERR(t, FAST_E_MANDATORY_UNDEF);
	fast_dec_reset(&t->dec);
	/* every prefix of the first record is truncated */
	DEC_TRUNC_ALL(t, "5F FE | 19 81 | 81 | 81 | 36 30 30 30 30 B0 | 04 34 49 D1 | 00 52 85 | 3D 04 C1 |"
			 " 03 74 56 75 81 | 27 8A | 27 8B | C2 | 00 E5");
	DEC_TRUNC_ALL(t, "5B F8 | 2D A9 | 81 | 81 | 04 34 49 DB | C1 | 36 DA | 00 52 8F | 1E 42 A1 | D3");
	fv_free(t);
}

/* Scale conversion: a template whose decimalPlaces differ from the ABI's,
 * and a FAST decimal. */
static void test_scales(void)
{
	static const char *xml = FV_XML(
		"<template name='Transaction' id='3201'>"
		"<int32 name='TradeIndex'/>"
		"<int32 name='TradePrice' decimalPlaces='2'/>"
		"<int64 name='TradeQty' decimalPlaces='0'/>"
		"<decimal name='TradeMoney'/>"
		"<string name='SecurityID'/>"
		"</template>\n"
		"<template name='Other' id='7'><uInt32 name='Foo'/></template>\n");
	struct fv *t = fv_new(xml);
	union toe_record u;
	if (!t)
		return;
	/* TradeIndex 5; TradePrice 10.50 at 2 places = 1050 = 08 9A; TradeQty
	 * 1000 = 07 E8; TradeMoney decimal 1050000e-2 (FE | 00 40 0B 90: 1050000
	 * = 64<<14 | 11<<7 | 16, 64 has bit 6 set so 00 first) */
	DEC_OK(t, "C0 19 81 | 85 | 08 9A | 07 E8 | FE 00 40 0B 90 | 36 30 30 30 30 B0");
	V_I(t, 1, 1050);
	V_D(t, 3, 1050000, -2);
	if (t->valid) {
		CHECK_EQ(map(t, 9, &u), TOE_REC_TRADE);
		CHECK_EQ(u.trade.trade_index, 5);
		CHECK_EQ(u.trade.trade_price, 10500);      /* 2 -> 3 decimals */
		CHECK_EQ(u.trade.trade_qty, 1000000);      /* 0 -> 3 decimals */
		CHECK_EQ(u.trade.trade_money, 1050000000); /* 10^-2 -> 5 decimals */
		chk_secid(u.trade.security_id, "600000", __LINE__);
	}
	/* 3000000.00 at 2 places: 300000000 = 01 0F 06 46 80; at 3 places it
	 * is 3e9: SSE prices are N13(3), the ABI's 64-bit price holds it */
	DEC_OK(t, "C0 19 81 | 85 | 01 0F 06 46 80 | 07 E8 | FE 00 40 0B 90 | 36 30 30 30 30 B0");
	V_I(t, 1, 300000000);
	if (t->valid) {
		CHECK_EQ(map(t, 9, &u), TOE_REC_TRADE);
		CHECK_EQ(u.trade.trade_price, 3000000000LL);
		CHECK_EQ(u.hdr.flags, 0);
		CHECK_EQ(u.hdr.bad_fields, 0);
	}
	/* TradeMoney 1050001e-7 has more decimals than the ABI's 5: not exact,
	 * so the field is flagged and reads 0; the record is still delivered */
	DEC_OK(t, "C0 19 81 | 85 | 08 9A | 07 E8 | F9 00 40 0B 91 | 36 30 30 30 30 B0");
	if (t->valid) {
		CHECK_EQ(map(t, 9, &u), TOE_REC_TRADE);
		CHECK_EQ(u.hdr.flags, TOE_RF_RANGE);
		CHECK_EQ(u.hdr.bad_fields, TF(TRADE_MONEY));
		CHECK(u.hdr.present & TF(TRADE_MONEY));
		CHECK_EQ(u.trade.trade_money, 0);
		CHECK_EQ(u.trade.trade_price, 10500);
		CHECK_EQ(u.trade.trade_index, 5);
	}
	/* a template that maps to no tick type: out untouched */
	DEC_OK(t, "C0 87 | 85");
	if (t->valid) {
		union toe_record before;
		memset(&u, 0x5A, sizeof u);
		memcpy(&before, &u, sizeof u);
		CHECK_EQ(fast_tick_map(&t->prog, &t->rec, 9, &u), TOE_REC_NONE);
		CHECK_MEM(&u, &before, sizeof u);
	}
	fv_free(t);
}

/* Code fields are TOE_FLAG_LEN bytes: "BS" arrives whole; a longer value,
 * a too-long security id and an index beyond 32 bits are flagged, never cut
 * silently. */
static void test_codes(void)
{
	static const char *xml = FV_XML(
		"<template name='Transaction' id='3201'>"
		"<string name='TradeBSFlag'/>"
		"<string name='SecurityID'/>"
		"<int64 name='TradeIndex'/>"
		"</template>\n");
	struct fv *t = fv_new(xml);
	union toe_record u;
	if (!t)
		return;
	/* "BS", "600000", 5 */
	DEC_OK(t, "C0 19 81 | 42 D3 | 36 30 30 30 30 B0 | 85");
	if (t->valid) {
		CHECK_EQ(map(t, 1, &u), TOE_REC_TRADE);
		chk_code(u.trade.bs_flag, "BS", __LINE__);
		CHECK_EQ(u.hdr.flags, 0);
		CHECK_EQ(u.hdr.bad_fields, 0);
		CHECK_EQ(u.hdr.group, 0);
		CHECK_EQ(u.hdr.line, 0);
	}
	/* exactly TOE_FLAG_LEN characters: whole, no NUL, not flagged */
	DEC_OK(t, "C0 19 81 | 41 42 43 44 45 46 47 C8 | 36 30 30 30 30 B0 | 85");
	if (t->valid) {
		CHECK_EQ(map(t, 1, &u), TOE_REC_TRADE);
		CHECK_MEM(u.trade.bs_flag, "ABCDEFGH", 8);
		CHECK_EQ(u.hdr.flags, 0);
	}
	/* "ABCDEFGHI", a 16-character id, TradeIndex 3000000000 (beyond int32) */
	DEC_OK(t, "C0 19 81 | 41 42 43 44 45 46 47 48 C9 | 31 32 33 34 35 36 37 38 39 30 31 32 33 34 35 B6 |"
		  " 0B 16 41 3C 80");
	if (t->valid) {
		CHECK_EQ(map(t, 1, &u), TOE_REC_TRADE);
		CHECK_EQ(u.hdr.flags, TOE_RF_RANGE);
		CHECK_EQ(u.hdr.bad_fields, TF(TRADE_BS_FLAG) | TF(SECURITY_ID) | TF(TRADE_INDEX));
		CHECK_EQ(u.hdr.present, TF(TRADE_BS_FLAG) | TF(SECURITY_ID) | TF(TRADE_INDEX));
		CHECK_MEM(u.trade.bs_flag, "ABCDEFGH", 8);
		CHECK_MEM(u.trade.security_id, "123456789012345", 16); /* 15 characters and the NUL */
		CHECK_EQ(u.trade.trade_index, 0);
	}
	fv_free(t);
}

int main(void)
{
	FILE *f = fopen("conf/templates/sse-l2-3201-5801.xml", "r");
	if (!f)
		return test_skip("fast_sse", "run from the repository root (conf/templates/ not found)");
	fclose(f);
	test_ngts_202();
	test_l2_3201_5801();
	test_scales();
	test_codes();
	return test_done("fast_sse");
}
