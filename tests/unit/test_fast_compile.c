/* test_fast_compile.c - the XML template compiler against the program format.
 *
 * Expected instructions come from the layout rules (doc/template-program.md)
 * applied by hand to the XML in each case, not from the compiler's output.
 * Inline XML cases put one element per line so that error messages can be
 * checked for the exact line number.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fast/host/fast_compile.h"
#include "test.h"
#include "toe/tick.h"

#define NS11 "http://www.fixprotocol.org/ns/fast/td/1.1"
#define NS10 "http://www.fixprotocol.org/ns/template-definition"
#define NS12 "http://www.fixprotocol.org/ns/fast/td/1.2"
#define NODICT 0xffff

/* One template "T" id 1 around `body`; the body starts on line 3. */
#define T1(body) "<templates xmlns=\"" NS11 "\">\n<template name=\"T\" id=\"1\">\n" body "</template>\n</templates>\n"

static struct fast_prog P;
static struct fast_names N;
static char E[512];

static int comp(const char *xml)
{
	return fast_compile_buffer(xml, strlen(xml), "t.xml", &P, &N, E, sizeof E);
}

#define COMPILES(xml)                                                        \
	do {                                                                 \
		int rc_ = comp(xml);                                         \
		if (rc_)                                                     \
			fprintf(stderr, "%s:%d: unexpected error: %s\n", __FILE__, __LINE__, E); \
		CHECK_EQ(rc_, 0);                                            \
	} while (0)

/* Compilation fails with "t.xml:<line>: ...<what>...". */
#define CHECK_ERR(xml, line, what)                                           \
	do {                                                                 \
		char w_[32];                                                 \
		int rc_ = comp(xml);                                         \
		snprintf(w_, sizeof w_, "t.xml:%d: ", (int)(line));          \
		CHECK_EQ(rc_, -1);                                           \
		if (strncmp(E, w_, strlen(w_)) || !strstr(E, (what)))        \
			fprintf(stderr, "%s:%d: error was \"%s\", expected \"%s...%s\"\n", __FILE__, \
				__LINE__, E, w_, (what));                    \
		CHECK(strncmp(E, w_, strlen(w_)) == 0);                      \
		CHECK(strstr(E, (what)) != NULL);                            \
		CHECK_EQ(P.ninstr, 0);                                       \
		CHECK_EQ(P.magic, 0);                                        \
	} while (0)

/* Compiles with n fields noted as not mapped, the note containing `what`
 * (the caller checks which instructions map). */
#define NOT_MAPPED(xml, n, what)                                             \
	do {                                                                 \
		COMPILES(xml);                                               \
		CHECK_EQ(N.nnotes, (n));                                     \
		if (!strstr(N.note, (what)))                                 \
			fprintf(stderr, "%s:%d: note was \"%s\", expected \"...%s...\"\n", __FILE__, \
				__LINE__, N.note, (what));                   \
		CHECK(strstr(N.note, (what)) != NULL);                       \
	} while (0)

#define CHECK_INSTR(i, k, o, fl, tk, d, in, sc, dp, fd, nm)                  \
	do {                                                                 \
		const struct fast_instr *x_ = &P.instr[i];                   \
		CHECK_EQ(x_->kind, k);                                       \
		CHECK_EQ(x_->op, o);                                         \
		CHECK_EQ(x_->flags, fl);                                     \
		CHECK_EQ(x_->tick, tk);                                      \
		CHECK_EQ(x_->dict, d);                                       \
		CHECK_EQ(x_->init, in);                                      \
		CHECK_EQ(x_->scale, sc);                                     \
		CHECK_EQ(x_->depth, dp);                                     \
		CHECK_EQ(x_->fid, fd);                                       \
		if (strcmp(N.field[i], nm))                                  \
			fprintf(stderr, "%s:%d: field %d is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
				(int)(i), N.field[i], nm);                   \
		CHECK(strcmp(N.field[i], nm) == 0);                          \
	} while (0)

static int pool_is(int c, const char *s)
{
	const struct fast_const *k = &P.consts[c];
	size_t n = strlen(s);
	return k->len == n && k->off + n <= P.npool && memcmp(P.pool + k->off, s, n) == 0;
}

enum { OPT = FAST_F_OPTIONAL, INIT = FAST_F_HAS_INIT, PM = FAST_F_PMAP, UNI = FAST_F_UNICODE, SC = FAST_F_SCALED };
#define NI FAST_NO_INIT

static void test_layout(void)
{
	/* the byte offsets doc/template-program.md gives for the card's template memory */
	CHECK_EQ(offsetof(struct fast_instr, kind), 0);
	CHECK_EQ(offsetof(struct fast_instr, op), 1);
	CHECK_EQ(offsetof(struct fast_instr, flags), 2);
	CHECK_EQ(offsetof(struct fast_instr, tick), 3);
	CHECK_EQ(offsetof(struct fast_instr, dict), 4);
	CHECK_EQ(offsetof(struct fast_instr, aux), 6);
	CHECK_EQ(offsetof(struct fast_instr, init), 8);
	CHECK_EQ(offsetof(struct fast_instr, scale), 10);
	CHECK_EQ(offsetof(struct fast_instr, depth), 11);
	CHECK_EQ(offsetof(struct fast_instr, fid), 12);
	CHECK_EQ(offsetof(struct fast_prog, tpl), 16);
	CHECK_EQ(offsetof(struct fast_prog, instr), 16 + 12 * FAST_MAX_TEMPLATES);
	CHECK_EQ(offsetof(struct fast_prog, consts), 16 + 12 * FAST_MAX_TEMPLATES + 16 * FAST_MAX_INSTR);
	CHECK_EQ(offsetof(struct fast_prog, pool),
		 16 + 12 * FAST_MAX_TEMPLATES + 16 * FAST_MAX_INSTR + 16 * FAST_MAX_CONST);
	CHECK_EQ(sizeof(struct fast_prog),
		 16 + 12 * FAST_MAX_TEMPLATES + 16 * FAST_MAX_INSTR + 16 * FAST_MAX_CONST + FAST_MAX_POOL);
}

static void test_sse_202(void)
{
	int rc = fast_compile_file("conf/templates/sse-ngts-2.02-3201.xml", &P, &N, E, sizeof E);

	if (rc)
		fprintf(stderr, "error: %s\n", E);
	CHECK_EQ(rc, 0);
	CHECK_EQ(P.magic, FAST_PROG_MAGIC);
	CHECK_EQ(P.version, FAST_PROG_VERSION);
	CHECK_EQ(P.ntpl, 1);
	CHECK_EQ(P.ninstr, 9);
	CHECK_EQ(P.ndict, 9);
	CHECK_EQ(P.nconst, 1);
	CHECK_EQ(P.npool, 6);
	CHECK_EQ(P.tpl[0].id, 3201);
	CHECK_EQ(P.tpl[0].first, 0);
	CHECK_EQ(P.tpl[0].end, 9);
	CHECK_EQ(P.tpl[0].kind, TOE_REC_TRADE);
	CHECK(strcmp(N.tpl[0], "NGTSTransaction") == 0);
	CHECK_INSTR(0, FAST_K_ASCII, FAST_OP_CONST, INIT, 0, NODICT, 0, 0, 0, 35, "MessageType");
	CHECK(pool_is(0, "UA3201"));
	CHECK_INSTR(1, FAST_K_I32, FAST_OP_DEFAULT, OPT, TOE_TF_DATA_STATUS, 1, NI, 0, 0, 10121, "DataStatus");
	CHECK_INSTR(2, FAST_K_I32, FAST_OP_INCR, 0, TOE_TF_TRADE_INDEX, 2, NI, 0, 0, 10011, "TradeIndex");
	CHECK_INSTR(3, FAST_K_I32, FAST_OP_COPY, 0, TOE_TF_TRADE_CHANNEL, 3, NI, 0, 0, 10115, "TradeChannel");
	CHECK_INSTR(4, FAST_K_ASCII, FAST_OP_COPY, OPT, TOE_TF_SECURITY_ID, 4, NI, 0, 0, 48, "SecurityID");
	CHECK_INSTR(5, FAST_K_I32, FAST_OP_COPY, OPT, TOE_TF_TRADE_TIME, 5, NI, 0, 0, 10013, "TradeTime");
	CHECK_INSTR(6, FAST_K_I32, FAST_OP_DEFAULT, OPT | SC, TOE_TF_TRADE_PRICE, 6, NI, 3, 0, 10014, "TradePrice");
	CHECK_INSTR(7, FAST_K_I64, FAST_OP_DEFAULT, OPT | SC, TOE_TF_TRADE_QTY, 7, NI, 3, 0, 10015, "TradeQty");
	CHECK_INSTR(8, FAST_K_I64, FAST_OP_DEFAULT, OPT | SC, TOE_TF_TRADE_MONEY, 8, NI, 5, 0, 10016, "TradeMoney");
	CHECK_EQ(fast_prog_find(&P, 3201), 0);
	CHECK_EQ(fast_prog_find(&P, 5801), -1);
}

static void test_sse_current(void)
{
	int rc = fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &P, &N, E, sizeof E);

	if (rc)
		fprintf(stderr, "error: %s\n", E);
	CHECK_EQ(rc, 0);
	CHECK_EQ(P.ntpl, 2);
	CHECK_EQ(P.ninstr, 25);
	CHECK_EQ(P.tpl[0].id, 3201);
	CHECK_EQ(P.tpl[0].first, 0);
	CHECK_EQ(P.tpl[0].end, 13);
	CHECK_EQ(P.tpl[0].kind, TOE_REC_TRADE);
	CHECK_EQ(P.tpl[1].id, 5801);
	CHECK_EQ(P.tpl[1].first, 13);
	CHECK_EQ(P.tpl[1].end, 25);
	CHECK_EQ(P.tpl[1].kind, TOE_REC_ORDER);
	CHECK(strcmp(N.tpl[0], "Transaction") == 0);
	CHECK(strcmp(N.tpl[1], "Order") == 0);
	CHECK_EQ(fast_prog_find(&P, 3201), 0);
	CHECK_EQ(fast_prog_find(&P, 5801), 1);
	CHECK_EQ(fast_prog_find(&P, 0), -1);
	/* slots in order of first use; DataStatus, SecurityID and BizIndex shared (global dictionary) */
	CHECK_EQ(P.ndict, 21);
	CHECK_EQ(P.nconst, 2);
	CHECK_EQ(P.npool, 12);
	CHECK_INSTR(0, FAST_K_ASCII, FAST_OP_CONST, INIT, 0, NODICT, 0, 0, 0, 35, "MessageType");
	CHECK(pool_is(0, "UA3201"));
	CHECK_INSTR(1, FAST_K_I32, FAST_OP_DEFAULT, OPT, TOE_TF_DATA_STATUS, 1, NI, 0, 0, 10121, "DataStatus");
	CHECK_INSTR(2, FAST_K_I32, FAST_OP_INCR, 0, TOE_TF_TRADE_INDEX, 2, NI, 0, 0, 10011, "TradeIndex");
	CHECK_INSTR(3, FAST_K_I32, FAST_OP_COPY, 0, TOE_TF_TRADE_CHANNEL, 3, NI, 0, 0, 10115, "TradeChannel");
	CHECK_INSTR(4, FAST_K_ASCII, FAST_OP_COPY, 0, TOE_TF_SECURITY_ID, 4, NI, 0, 0, 48, "SecurityID");
	CHECK_INSTR(5, FAST_K_I32, FAST_OP_COPY, OPT, TOE_TF_TRADE_TIME, 5, NI, 0, 0, 10013, "TradeTime");
	CHECK_INSTR(6, FAST_K_I32, FAST_OP_DEFAULT, OPT | SC, TOE_TF_TRADE_PRICE, 6, NI, 3, 0, 10014, "TradePrice");
	CHECK_INSTR(7, FAST_K_I64, FAST_OP_DEFAULT, OPT | SC, TOE_TF_TRADE_QTY, 7, NI, 3, 0, 10015, "TradeQty");
	CHECK_INSTR(8, FAST_K_I64, FAST_OP_DEFAULT, OPT | SC, TOE_TF_TRADE_MONEY, 8, NI, 5, 0, 10016, "TradeMoney");
	CHECK_INSTR(9, FAST_K_I64, FAST_OP_DEFAULT, OPT, TOE_TF_TRADE_BUY_NO, 9, NI, 0, 0, 10116, "TradeBuyNo");
	CHECK_INSTR(10, FAST_K_I64, FAST_OP_DEFAULT, OPT, TOE_TF_TRADE_SELL_NO, 10, NI, 0, 0, 10117, "TradeSellNo");
	CHECK_INSTR(11, FAST_K_ASCII, FAST_OP_DEFAULT, OPT, TOE_TF_TRADE_BS_FLAG, 11, NI, 0, 0, 10118, "TradeBSFlag");
	CHECK_INSTR(12, FAST_K_I64, FAST_OP_INCR, 0, TOE_TF_BIZ_INDEX, 12, NI, 0, 0, 10196, "BizIndex");
	CHECK_INSTR(13, FAST_K_ASCII, FAST_OP_CONST, INIT, 0, NODICT, 1, 0, 0, 35, "MessageType");
	CHECK(pool_is(1, "UA5801"));
	CHECK_INSTR(14, FAST_K_I32, FAST_OP_DEFAULT, OPT, TOE_TF_DATA_STATUS, 1, NI, 0, 0, 10121, "DataStatus");
	CHECK_INSTR(15, FAST_K_I32, FAST_OP_INCR, 0, TOE_TF_ORDER_INDEX, 13, NI, 0, 0, 10147, "OrderIndex");
	CHECK_INSTR(16, FAST_K_I32, FAST_OP_COPY, 0, TOE_TF_ORDER_CHANNEL, 14, NI, 0, 0, 10148, "OrderChannel");
	CHECK_INSTR(17, FAST_K_ASCII, FAST_OP_COPY, 0, TOE_TF_SECURITY_ID, 4, NI, 0, 0, 48, "SecurityID");
	CHECK_INSTR(18, FAST_K_I32, FAST_OP_COPY, OPT, TOE_TF_ORDER_TIME, 15, NI, 0, 0, 10149, "OrderTime");
	CHECK_INSTR(19, FAST_K_ASCII, FAST_OP_COPY, OPT, TOE_TF_ORDER_TYPE, 16, NI, 0, 0, 40, "OrderType");
	CHECK_INSTR(20, FAST_K_I64, FAST_OP_DEFAULT, OPT, TOE_TF_ORDER_NO, 17, NI, 0, 0, 37, "OrderNO");
	CHECK_INSTR(21, FAST_K_I32, FAST_OP_DEFAULT, OPT | SC, TOE_TF_ORDER_PRICE, 18, NI, 3, 0, 44, "OrderPrice");
	CHECK_INSTR(22, FAST_K_I64, FAST_OP_DEFAULT, OPT | SC, TOE_TF_BALANCE, 19, NI, 3, 0, 10150, "Balance");
	CHECK_INSTR(23, FAST_K_ASCII, FAST_OP_COPY, OPT, TOE_TF_ORDER_BS_FLAG, 20, NI, 0, 0, 54, "OrderBSFlag");
	CHECK_INSTR(24, FAST_K_I64, FAST_OP_INCR, 0, TOE_TF_BIZ_INDEX, 12, NI, 0, 0, 10196, "BizIndex");
	CHECK_EQ(P.instr[4].dict, P.instr[17].dict);
	CHECK_EQ(P.instr[12].dict, P.instr[24].dict);
	CHECK(P.instr[2].dict != P.instr[15].dict);
	/* unused instructions past the program are zero */
	CHECK_EQ(P.instr[25].kind, 0);
}

/* The same template written in each accepted namespace form. */
static void test_namespaces(void)
{
	static const char *const forms[] = {
		"<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"7\">\n"
		"<uInt32 name=\"X\" id=\"11\"><copy/></uInt32>\n</template>\n</templates>\n",
		"<templates xmlns=\"" NS10 "\">\n<template name=\"A\" id=\"7\">\n"
		"<uInt32 name=\"X\" id=\"11\"><copy/></uInt32>\n</template>\n</templates>\n",
		"<templates>\n<template name=\"A\" id=\"7\">\n"
		"<uInt32 name=\"X\" id=\"11\"><copy/></uInt32>\n</template>\n</templates>\n",
		"<f:templates xmlns:f=\"" NS11 "\">\n<f:template name=\"A\" id=\"7\">\n"
		"<f:uInt32 name=\"X\" id=\"11\"><f:copy/></f:uInt32>\n</f:template>\n</f:templates>\n",
		/* a single template as the root */
		"<template xmlns=\"" NS11 "\" name=\"A\" id=\"7\">\n"
		"<uInt32 name=\"X\" id=\"11\"><copy/></uInt32>\n</template>\n",
		/* foreign elements and unknown attributes are ignored */
		"<templates xmlns=\"" NS11 "\" xmlns:v=\"urn:vendor\" vendor=\"x\">\n<v:note/>\n"
		"<template name=\"A\" id=\"7\" windid=\"3\"><v:doc>text</v:doc>\n"
		"<uInt32 name=\"X\" id=\"11\" windid=\"620\" v:hint=\"1\"><v:x/><copy/></uInt32>\n"
		"<v:int32 name=\"Ignored\"/>\n</template>\n</templates>\n",
	};
	size_t i;

	for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		COMPILES(forms[i]);
		CHECK_EQ(P.ntpl, 1);
		CHECK_EQ(P.tpl[0].id, 7);
		CHECK_EQ(P.tpl[0].kind, TOE_REC_NONE);
		CHECK_EQ(P.ninstr, 1);
		CHECK_INSTR(0, FAST_K_U32, FAST_OP_COPY, 0, 0, 1, NI, 0, 0, 11, "X");
		CHECK(strcmp(N.tpl[0], "A") == 0);
	}
	/* a FAST element in another FAST namespace than its parent is still FAST */
	COMPILES("<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"7\">\n"
		 "<int64 xmlns=\"" NS10 "\" name=\"Y\"/>\n</template>\n</templates>\n");
	CHECK_EQ(P.ninstr, 1);
	CHECK_EQ(P.instr[0].kind, FAST_K_I64);
	/* the names pointer may be NULL */
	CHECK_EQ(fast_compile_buffer(forms[0], strlen(forms[0]), "t.xml", &P, NULL, E, sizeof E), 0);
	CHECK_EQ(P.ninstr, 1);
}

static void test_types_ops(void)
{
	COMPILES(T1("<int32 name=\"a\"/>\n"
		    "<uInt32 name=\"b\" presence=\"optional\"><copy value=\"7\"/></uInt32>\n"
		    "<int64 name=\"c\"><delta/></int64>\n"
		    "<uInt64 name=\"d\"><increment value=\"18446744073709551615\"/></uInt64>\n"
		    "<string name=\"e\" presence=\"optional\"><default value=\"abc\"/></string>\n"
		    "<string name=\"f\" charset=\"unicode\"><tail/></string>\n"
		    "<byteVector name=\"g\"><constant value=\"0a FF\"/></byteVector>\n"
		    "<decimal name=\"h\"><copy value=\"1.25\"/></decimal>\n"
		    "<string name=\"i\" charset=\"ascii\" presence=\"optional\"><constant value=\"\"/></string>\n"
		    "<byteVector name=\"j\" presence=\"optional\"><length name=\"jlen\"/><tail value=\"\"/></byteVector>\n"
		    "<string name=\"k\" charset=\"unicode\"><default value=\"\xc3\xa9t\xc3\xa9\"/></string>\n"
		    "<decimal name=\"l\" presence=\"optional\"><delta/></decimal>\n"
		    "<int32 name=\"m\"><increment value=\"-2147483648\"/></int32>\n"));
	CHECK_EQ(P.ninstr, 13);
	CHECK_EQ(P.nconst, 9);
	CHECK_INSTR(0, FAST_K_I32, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 0, 0, "a");
	CHECK_INSTR(1, FAST_K_U32, FAST_OP_COPY, OPT | INIT, 0, 1, 0, 0, 0, 0, "b");
	CHECK_EQ(P.consts[0].i, 7);
	CHECK_INSTR(2, FAST_K_I64, FAST_OP_DELTA, 0, 0, 2, NI, 0, 0, 0, "c");
	CHECK_INSTR(3, FAST_K_U64, FAST_OP_INCR, INIT, 0, 3, 1, 0, 0, 0, "d");
	CHECK_EQ((uint64_t)P.consts[1].i, UINT64_MAX);
	CHECK_INSTR(4, FAST_K_ASCII, FAST_OP_DEFAULT, OPT | INIT, 0, 4, 2, 0, 0, 0, "e");
	CHECK(pool_is(2, "abc"));
	CHECK_INSTR(5, FAST_K_BYTES, FAST_OP_TAIL, UNI, 0, 5, NI, 0, 0, 0, "f");
	CHECK_INSTR(6, FAST_K_BYTES, FAST_OP_CONST, INIT, 0, NODICT, 3, 0, 0, 0, "g");
	CHECK(pool_is(3, "\x0a\xff"));
	CHECK_INSTR(7, FAST_K_DECIMAL, FAST_OP_COPY, INIT, 0, 6, 4, 0, 0, 0, "h");
	CHECK_EQ(P.consts[4].i, 125);
	CHECK_EQ(P.consts[4].exp, -2);
	CHECK_INSTR(8, FAST_K_ASCII, FAST_OP_CONST, OPT | INIT, 0, NODICT, 5, 0, 0, 0, "i");
	CHECK_EQ(P.consts[5].len, 0);
	CHECK_INSTR(9, FAST_K_BYTES, FAST_OP_TAIL, OPT | INIT, 0, 7, 6, 0, 0, 0, "j");
	CHECK_EQ(P.consts[6].len, 0);
	CHECK_INSTR(10, FAST_K_BYTES, FAST_OP_DEFAULT, UNI | INIT, 0, 8, 7, 0, 0, 0, "k");
	CHECK(pool_is(7, "\xc3\xa9t\xc3\xa9"));
	CHECK_INSTR(11, FAST_K_DECIMAL, FAST_OP_DELTA, OPT, 0, 9, NI, 0, 0, 0, "l");
	CHECK_INSTR(12, FAST_K_I32, FAST_OP_INCR, INIT, 0, 10, 8, 0, 0, 0, "m");
	CHECK_EQ(P.consts[8].i, INT32_MIN);
	CHECK_EQ(P.ndict, 11);
	CHECK_EQ(P.npool, 3 + 2 + 5);
	/* an optional default without a value is legal; a mandatory one is not (below) */
	COMPILES(T1("<int32 name=\"a\" presence=\"optional\"><default/></int32>\n"));
	CHECK_INSTR(0, FAST_K_I32, FAST_OP_DEFAULT, OPT, 0, 1, NI, 0, 0, 0, "a");
}

/* Integer initial values are range-checked for the field's type. */
static void test_int_ranges(void)
{
	static const struct {
		const char *type, *val;
		int ok;
		int64_t want;
	} cases[] = {
		{"int32", "2147483647", 1, INT32_MAX},
		{"int32", "-2147483648", 1, INT32_MIN},
		{"int32", "2147483648", 0, 0},
		{"int32", "-2147483649", 0, 0},
		{"uInt32", "4294967295", 1, UINT32_MAX},
		{"uInt32", "4294967296", 0, 0},
		{"uInt32", "-1", 0, 0},
		{"int64", "9223372036854775807", 1, INT64_MAX},
		{"int64", "-9223372036854775808", 1, INT64_MIN},
		{"int64", "9223372036854775808", 0, 0},
		{"uInt64", "18446744073709551616", 0, 0},
		{"uInt64", "-5", 0, 0},
		{"int32", " +12 ", 1, 12},
		{"int32", "12x", 0, 0},
		{"int32", "", 0, 0},
		{"int32", "1.5", 0, 0},
		{"int64", "0x10", 0, 0},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char xml[512];
		snprintf(xml, sizeof xml, T1("<%s name=\"a\"><copy value=\"%s\"/></%s>\n"), cases[i].type, cases[i].val,
			 cases[i].type);
		if (cases[i].ok) {
			COMPILES(xml);
			CHECK_EQ(P.consts[0].i, cases[i].want);
		} else {
			CHECK_ERR(xml, 3, "not a valid");
		}
	}
}

/* Decimal initial values, normalised: no trailing zeros in the mantissa, 0 is 0e0. */
static void test_decimal_values(void)
{
	static const struct {
		const char *val;
		int ok;
		int64_t m;
		int32_t e;
	} cases[] = {
		{"1.25", 1, 125, -2},
		{"-0.5", 1, -5, -1},
		{"100", 1, 1, 2},
		{"1e3", 1, 1, 3},
		{"0", 1, 0, 0},
		{"-0.000", 1, 0, 0},
		{"1.500", 1, 15, -1},
		{"12E-2", 1, 12, -2},
		{"+7", 1, 7, 0},
		{"007.10", 1, 71, -1},
		{".5", 1, 5, -1},
		{"5.", 1, 5, 0},
		{"1000000000000000000000", 1, 1, 21},
		{"9223372036854775807", 1, INT64_MAX, 0},
		{"-9223372036854775808", 1, INT64_MIN, 0},
		{"9223372036854775808", 0, 0, 0},
		{"1e63", 1, 1, 63},
		{"1e64", 0, 0, 0},
		{"0.001e-60", 1, 1, -63},
		{"0.001e-61", 0, 0, 0},
		{"0e999", 1, 0, 0},
		{"abc", 0, 0, 0},
		{"1.2.3", 0, 0, 0},
		{"1e", 0, 0, 0},
		{"-", 0, 0, 0},
		{"", 0, 0, 0},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char xml[512];
		snprintf(xml, sizeof xml, T1("<decimal name=\"p\">\n<default value=\"%s\"/></decimal>\n"), cases[i].val);
		if (cases[i].ok) {
			COMPILES(xml);
			CHECK_EQ(P.consts[0].i, cases[i].m);
			CHECK_EQ(P.consts[0].exp, cases[i].e);
		} else {
			CHECK_ERR(xml, 4, "value");
		}
	}
}

static void test_decimal_split(void)
{
	COMPILES("<templates xmlns=\"" NS11 "\">\n"
		 "<template name=\"T\" id=\"1\">\n"
		 "<decimal name=\"Px\" id=\"44\" presence=\"optional\">\n"
		 "<exponent><copy value=\"-2\"/></exponent>\n"
		 "<mantissa><delta value=\"100\"/></mantissa>\n"
		 "</decimal>\n"
		 "<decimal name=\"Qty\"><mantissa><copy/></mantissa></decimal>\n"
		 "<decimal name=\"Amt\"><exponent><default value=\"3\"/></exponent></decimal>\n"
		 "<int64 name=\"Other\"><copy key=\"Px/mantissa\"/></int64>\n"
		 "<int32 name=\"Other2\"><copy key=\"Px/exponent\"/></int32>\n"
		 "<decimal name=\"K\"><exponent><copy key=\"kexp\"/></exponent><mantissa><copy key=\"kman\"/></mantissa></decimal>\n"
		 "<int32 name=\"Other3\"><copy key=\"kman\"/></int32>\n"
		 "</template>\n</templates>\n");
	CHECK_EQ(P.ninstr, 11);
	CHECK_INSTR(0, FAST_K_DEC_EXP, FAST_OP_COPY, OPT | INIT, 0, 1, 0, 0, 0, 44, "Px");
	CHECK_EQ(P.consts[0].exp, -2);
	CHECK_INSTR(1, FAST_K_DEC_MANT, FAST_OP_DELTA, INIT, 0, 2, 1, 0, 0, 44, "Px");
	CHECK_EQ(P.consts[1].i, 100);
	/* exponent without an <exponent> element: operator none; mantissa mandatory */
	CHECK_INSTR(2, FAST_K_DEC_EXP, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 0, 0, "Qty");
	CHECK_INSTR(3, FAST_K_DEC_MANT, FAST_OP_COPY, 0, 0, 3, NI, 0, 0, 0, "Qty");
	CHECK_INSTR(4, FAST_K_DEC_EXP, FAST_OP_DEFAULT, INIT, 0, 4, 2, 0, 0, 0, "Amt");
	CHECK_EQ(P.consts[2].exp, 3);
	CHECK_INSTR(5, FAST_K_DEC_MANT, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 0, 0, "Amt");
	/* default keys "<name>/exponent" and "<name>/mantissa" */
	CHECK_INSTR(6, FAST_K_I64, FAST_OP_COPY, 0, 0, 2, NI, 0, 0, 0, "Other");
	CHECK_INSTR(7, FAST_K_I32, FAST_OP_COPY, 0, 0, 1, NI, 0, 0, 0, "Other2");
	/* own keys */
	CHECK_INSTR(8, FAST_K_DEC_EXP, FAST_OP_COPY, 0, 0, 5, NI, 0, 0, 0, "K");
	CHECK_INSTR(9, FAST_K_DEC_MANT, FAST_OP_COPY, 0, 0, 6, NI, 0, 0, 0, "K");
	CHECK_INSTR(10, FAST_K_I32, FAST_OP_COPY, 0, 0, 6, NI, 0, 0, 0, "Other3");
	CHECK_EQ(P.ndict, 7);

	CHECK_ERR(T1("<decimal name=\"p\"><copy/>\n<exponent><copy/></exponent></decimal>\n"), 3,
		  "both a field operator");
	CHECK_ERR(T1("<decimal name=\"p\">\n<exponent><copy value=\"64\"/></exponent></decimal>\n"), 4, "-63..63");
	CHECK_ERR(T1("<decimal name=\"p\">\n<exponent><copy value=\"1.5\"/></exponent></decimal>\n"), 4, "-63..63");
	CHECK_ERR(T1("<decimal name=\"p\" presence=\"optional\"><exponent><default/></exponent>\n"
		     "<mantissa><default/></mantissa></decimal>\n"),
		  4, "default operator of mandatory p needs a value");
	CHECK_ERR(T1("<decimal name=\"p\"><exponent><tail/></exponent>\n</decimal>\n"), 3, "tail operator");
	CHECK_ERR(T1("<decimal name=\"p\"><exponent/>\n<exponent/></decimal>\n"), 4, "two <exponent>");
	CHECK_ERR(T1("<decimal name=\"p\"><mantissa/>\n<mantissa/></decimal>\n"), 4, "two <mantissa>");
	CHECK_ERR(T1("<decimal name=\"p\"><exponent><copy/>\n<delta/></exponent></decimal>\n"), 4,
		  "more than one operator");
	/* increment applies to exponent and mantissa (integers), not to a whole decimal */
	COMPILES(T1("<decimal name=\"p\"><exponent><increment/></exponent><mantissa><increment/></mantissa></decimal>\n"));
	CHECK_ERR(T1("<decimal name=\"p\">\n<increment/></decimal>\n"), 4, "increment operator");
}

static void test_sequences(void)
{
	COMPILES("<templates xmlns=\"" NS11 "\">\n"
		 "<template name=\"S\" id=\"1\">\n"
		 "<uInt32 name=\"A\"/>\n"
		 "<sequence name=\"Legs\">\n"
		 "<length name=\"NoLegs\" id=\"555\"><copy/></length>\n"
		 "<string name=\"Sym\"><copy/></string>\n"
		 "<int32 name=\"Qty\"/>\n"
		 "</sequence>\n"
		 "<sequence name=\"Plain\" presence=\"optional\"><int32 name=\"X\"/></sequence>\n"
		 "<group name=\"G\" presence=\"optional\">\n"
		 "<int32 name=\"Y\"><delta/></int32>\n"
		 "<sequence name=\"Inner\"><length name=\"NoInner\"/>\n"
		 "<group name=\"G2\"><int64 name=\"Z\"><copy/></int64></group>\n"
		 "</sequence>\n"
		 "</group>\n"
		 "<sequence name=\"Opt\"><length><increment value=\"2\"/></length>\n"
		 "<group name=\"G3\" presence=\"optional\"><int32 name=\"W\"/></group>\n"
		 "</sequence>\n"
		 "<group name=\"G4\"><int32 name=\"V\"><constant value=\"1\"/></int32></group>\n"
		 "</template>\n"
		 "<template name=\"U\" id=\"2\">\n"
		 "<uInt32 name=\"NoLegs\"><copy/></uInt32>\n"
		 "<uInt32 name=\"L\"><copy key=\"Opt/length\"/></uInt32>\n"
		 "</template>\n"
		 "</templates>\n");
	CHECK_EQ(P.ntpl, 2);
	CHECK_EQ(P.tpl[0].first, 0);
	CHECK_EQ(P.tpl[0].end, 24);
	CHECK_EQ(P.tpl[1].first, 24);
	CHECK_EQ(P.tpl[1].end, 26);
	CHECK_EQ(P.ninstr, 26);
	CHECK_INSTR(0, FAST_K_U32, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 0, 0, "A");
	CHECK_INSTR(1, FAST_K_SEQ, FAST_OP_COPY, PM, 0, 1, NI, 0, 0, 555, "Legs");
	CHECK_INSTR(2, FAST_K_ASCII, FAST_OP_COPY, 0, 0, 2, NI, 0, 1, 0, "Sym");
	CHECK_INSTR(3, FAST_K_I32, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 1, 0, "Qty");
	CHECK_INSTR(4, FAST_K_END, 0, 0, 0, NODICT, NI, 0, 0, 0, "");
	CHECK_EQ(P.instr[1].aux, 4);
	CHECK_EQ(P.instr[4].aux, 1);
	/* no <length>: operator none, no slot; optional: nullable length */
	CHECK_INSTR(5, FAST_K_SEQ, FAST_OP_NONE, OPT, 0, NODICT, NI, 0, 0, 0, "Plain");
	CHECK_INSTR(6, FAST_K_I32, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 1, 0, "X");
	CHECK_INSTR(7, FAST_K_END, 0, 0, 0, NODICT, NI, 0, 0, 0, "");
	CHECK_EQ(P.instr[5].aux, 7);
	CHECK_EQ(P.instr[7].aux, 5);
	/* G: no field in its body needs a bit (delta; a length without operator) */
	CHECK_INSTR(8, FAST_K_GROUP, FAST_OP_NONE, OPT, 0, NODICT, NI, 0, 0, 0, "G");
	CHECK_INSTR(9, FAST_K_I32, FAST_OP_DELTA, 0, 0, 3, NI, 0, 1, 0, "Y");
	CHECK_INSTR(10, FAST_K_SEQ, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 1, 0, "Inner");
	/* G2 mandatory: no bit in Inner's element pmap; Z copy: G2 carries a pmap */
	CHECK_INSTR(11, FAST_K_GROUP, FAST_OP_NONE, PM, 0, NODICT, NI, 0, 2, 0, "G2");
	CHECK_INSTR(12, FAST_K_I64, FAST_OP_COPY, 0, 0, 4, NI, 0, 3, 0, "Z");
	CHECK_INSTR(13, FAST_K_END, 0, 0, 0, NODICT, NI, 0, 2, 0, "");
	CHECK_INSTR(14, FAST_K_END, 0, 0, 0, NODICT, NI, 0, 1, 0, "");
	CHECK_INSTR(15, FAST_K_END, 0, 0, 0, NODICT, NI, 0, 0, 0, "");
	CHECK_EQ(P.instr[8].aux, 15);
	CHECK_EQ(P.instr[15].aux, 8);
	CHECK_EQ(P.instr[10].aux, 14);
	CHECK_EQ(P.instr[14].aux, 10);
	CHECK_EQ(P.instr[11].aux, 13);
	CHECK_EQ(P.instr[13].aux, 11);
	/* Opt: length with an initial value; an optional group in the body needs a bit */
	CHECK_INSTR(16, FAST_K_SEQ, FAST_OP_INCR, PM | INIT, 0, 5, 0, 0, 0, 0, "Opt");
	CHECK_EQ(P.consts[0].i, 2);
	CHECK_INSTR(17, FAST_K_GROUP, FAST_OP_NONE, OPT, 0, NODICT, NI, 0, 1, 0, "G3");
	CHECK_INSTR(18, FAST_K_I32, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 2, 0, "W");
	CHECK_EQ(P.instr[17].aux, 19);
	CHECK_EQ(P.instr[16].aux, 20);
	/* mandatory constant: no bit */
	CHECK_INSTR(21, FAST_K_GROUP, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 0, 0, "G4");
	CHECK_INSTR(22, FAST_K_I32, FAST_OP_CONST, INIT, 0, NODICT, 1, 0, 1, 0, "V");
	CHECK_EQ(P.instr[21].aux, 23);
	CHECK_EQ(P.instr[23].kind, FAST_K_END);
	/* length keys: the <length> name, else "<sequence>/length" */
	CHECK_INSTR(24, FAST_K_U32, FAST_OP_COPY, 0, 0, 1, NI, 0, 0, 0, "NoLegs");
	CHECK_INSTR(25, FAST_K_U32, FAST_OP_COPY, 0, 0, 5, NI, 0, 0, 0, "L");
	CHECK_EQ(P.ndict, 6);

	/* a sequence length is an integer */
	CHECK_ERR(T1("<sequence name=\"s\"><length>\n<tail/></length></sequence>\n"), 4, "tail operator");
	CHECK_ERR(T1("<sequence name=\"s\"><length>\n<constant/></length></sequence>\n"), 4, "needs a value");
	CHECK_ERR(T1("<sequence name=\"s\"><length>\n<default/></length></sequence>\n"), 4, "needs a value");
	CHECK_ERR(T1("<sequence name=\"s\"><length>\n<copy value=\"-1\"/></length></sequence>\n"), 4, "uInt32");
	CHECK_ERR(T1("<sequence name=\"s\"><length/>\n<length/></sequence>\n"), 4, "two <length>");
	COMPILES(T1("<sequence name=\"s\" presence=\"optional\"><length><default/></length></sequence>\n"));
	CHECK_EQ(P.instr[0].flags, OPT);
	CHECK_EQ(P.instr[1].kind, FAST_K_END);
	/* <length> outside a sequence is not a field */
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<length name=\"x\"/>\n"), 4, "unexpected element <length>");
}

static void test_depth(void)
{
	/* four levels of nesting are allowed, a fifth is not */
	COMPILES(T1("<group name=\"g1\"><sequence name=\"s2\"><group name=\"g3\"><sequence name=\"s4\">\n"
		    "<int32 name=\"deep\"/>\n</sequence></group></sequence></group>\n"));
	CHECK_EQ(P.ninstr, 9);
	CHECK_EQ(P.instr[4].depth, 4);
	CHECK_EQ(P.instr[4].kind, FAST_K_I32);
	CHECK_EQ(P.instr[3].depth, 3);
	CHECK_EQ(P.instr[3].aux, 5);
	CHECK_EQ(P.instr[0].aux, 8);
	CHECK_ERR(T1("<group name=\"g1\"><sequence name=\"s2\"><group name=\"g3\"><sequence name=\"s4\">\n"
		     "<group name=\"g5\"><int32 name=\"deep\"/></group>\n</sequence></group></sequence></group>\n"),
		  4, "nested deeper than 4");
	CHECK_ERR(T1("<group name=\"g1\"><sequence name=\"s2\"><group name=\"g3\"><sequence name=\"s4\">\n"
		     "<sequence name=\"s5\"><int32 name=\"deep\"/></sequence>\n</sequence></group></sequence></group>\n"),
		  4, "nested deeper than 4");
}

static void test_template_ref(void)
{
	COMPILES("<templates xmlns=\"" NS11 "\">\n"
		 "<template name=\"Main\" id=\"10\">\n"
		 "<int32 name=\"A\"/>\n"
		 "<templateRef name=\"Hdr\"/>\n"
		 "<sequence name=\"S\"><templateRef name=\"Leg\"/></sequence>\n"
		 "<int32 name=\"B\"/>\n"
		 "</template>\n"
		 "<template name=\"Hdr\">\n"
		 "<string name=\"SecurityID\"><copy/></string>\n"
		 "<templateRef name=\"Leg\"/>\n"
		 "</template>\n"
		 "<template name=\"Leg\" id=\"11\">\n"
		 "<int32 name=\"Seq\"><increment/></int32>\n"
		 "</template>\n"
		 "</templates>\n");
	/* Hdr has no id: it is not a decodable template */
	CHECK_EQ(P.ntpl, 2);
	CHECK_EQ(P.tpl[0].id, 10);
	CHECK_EQ(P.tpl[1].id, 11);
	CHECK(strcmp(N.tpl[1], "Leg") == 0);
	CHECK_EQ(P.tpl[0].first, 0);
	CHECK_EQ(P.tpl[0].end, 7);
	CHECK_INSTR(0, FAST_K_I32, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 0, 0, "A");
	CHECK_INSTR(1, FAST_K_ASCII, FAST_OP_COPY, 0, TOE_TF_SECURITY_ID, 1, NI, 0, 0, 0, "SecurityID");
	CHECK_INSTR(2, FAST_K_I32, FAST_OP_INCR, 0, 0, 2, NI, 0, 0, 0, "Seq");
	CHECK_INSTR(3, FAST_K_SEQ, FAST_OP_NONE, PM, 0, NODICT, NI, 0, 0, 0, "S");
	CHECK_INSTR(4, FAST_K_I32, FAST_OP_INCR, 0, 0, 2, NI, 0, 1, 0, "Seq");
	CHECK_INSTR(5, FAST_K_END, 0, 0, 0, NODICT, NI, 0, 0, 0, "");
	CHECK_INSTR(6, FAST_K_I32, FAST_OP_NONE, 0, 0, NODICT, NI, 0, 0, 0, "B");
	CHECK_EQ(P.tpl[1].first, 7);
	CHECK_EQ(P.tpl[1].end, 8);
	CHECK_INSTR(7, FAST_K_I32, FAST_OP_INCR, 0, 0, 2, NI, 0, 0, 0, "Seq");

	CHECK_ERR(T1("<int32 name=\"a\"/>\n<templateRef/>\n"), 4, "dynamic templateRef not supported");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<templateRef name=\"Nope\"/>\n"), 4, "unknown template \"Nope\"");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<templateRef name=\"T\"/>\n"), 4, "cycle");
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n"
		  "<template name=\"A\" id=\"1\"><templateRef name=\"B\"/></template>\n"
		  "<template name=\"B\">\n<templateRef name=\"A\"/></template>\n"
		  "</templates>\n",
		  4, "cycle");
	/* the same template referenced twice in a row is not a cycle */
	COMPILES("<templates xmlns=\"" NS11 "\">\n"
		 "<template name=\"A\" id=\"1\"><templateRef name=\"B\"/><templateRef name=\"B\"/></template>\n"
		 "<template name=\"B\"><int32 name=\"x\"/></template>\n"
		 "</templates>\n");
	CHECK_EQ(P.ninstr, 2);
	/* tick fields brought in by a reference still map, and are still counted once */
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n"
		  "<template name=\"A\" id=\"1\"><templateRef name=\"B\"/><templateRef name=\"B\"/></template>\n"
		  "<template name=\"B\">\n<int32 name=\"TradePrice\"/></template>\n"
		  "</templates>\n",
		  4, "twice");
}

static void test_dictionaries(void)
{
	COMPILES("<templates xmlns=\"" NS11 "\">\n"
		 "<template name=\"T1\" id=\"1\">\n"
		 "<int32 name=\"A\"><copy/></int32>\n"                            /* 0: global A -> 1 */
		 "<int32 name=\"B\"><copy dictionary=\"template\"/></int32>\n"    /* 1: T1/B -> 2 */
		 "<int32 name=\"C\"><copy dictionary=\"type\"/></int32>\n"        /* 2: type T1/C -> 3 */
		 "<int32 name=\"D\"><copy dictionary=\"mine\"/></int32>\n"        /* 3: mine/D -> 4 */
		 "<int32 name=\"E\"><copy key=\"A\"/></int32>\n"                  /* 4: global A -> 1 */
		 "<int32 name=\"F\"><default value=\"1\"/></int32>\n"             /* 5: global F -> 5 */
		 "<int32 name=\"A2\"><constant value=\"1\" key=\"A\"/></int32>\n" /* 6: no slot */
		 "</template>\n"
		 "<template name=\"T2\" id=\"2\" dictionary=\"template\">\n"
		 "<typeRef name=\"Ty\"/>\n"
		 "<int32 name=\"A\"><copy/></int32>\n"                               /* 7: T2/A -> 6 */
		 "<int32 name=\"B\"><copy/></int32>\n"                               /* 8: T2/B -> 7 */
		 "<int32 name=\"C\"><copy dictionary=\"type\"/></int32>\n"           /* 9: Ty/C -> 8 */
		 "<int32 name=\"D\"><copy dictionary=\"mine\"/></int32>\n"           /* 10: mine/D -> 4 */
		 "<int32 name=\"G\"><copy dictionary=\"global\" key=\"A\"/></int32>\n" /* 11: global A -> 1 */
		 "</template>\n"
		 "<template name=\"T3\" id=\"3\">\n"
		 "<typeRef name=\"Ty\"/>\n"
		 "<int32 name=\"C\"><copy dictionary=\"type\"/></int32>\n"     /* 12: Ty/C -> 8 */
		 "<int32 name=\"B\"><copy dictionary=\"T1\"/></int32>\n"       /* 13: user T1/B -> 9 */
		 "<int32 name=\"C\"><copy dictionary=\"template\"/></int32>\n" /* 14: T3/C -> 10 */
		 "</template>\n"
		 "<template name=\"T4\" id=\"4\">\n"
		 "<group name=\"Gr\" dictionary=\"template\"><int32 name=\"A\"><copy/></int32></group>\n" /* 16: T4/A -> 11 */
		 "<int32 name=\"A\"><increment/></int32>\n"                                              /* 18: global A */
		 "<sequence name=\"Sq\" dictionary=\"mine\"><length name=\"D\"><copy/></length>\n"       /* 19: mine/D */
		 "<int32 name=\"B\"><delta dictionary=\"template\"/></int32></sequence>\n"               /* 20: T4/B -> 12 */
		 "</template>\n"
		 "</templates>\n");
	CHECK_EQ(P.instr[0].dict, 1);
	CHECK_EQ(P.instr[1].dict, 2);
	CHECK_EQ(P.instr[2].dict, 3);
	CHECK_EQ(P.instr[3].dict, 4);
	CHECK_EQ(P.instr[4].dict, 1);
	CHECK_EQ(P.instr[5].dict, 5);
	CHECK_EQ(P.instr[6].dict, NODICT);
	CHECK_EQ(P.instr[7].dict, 6);
	CHECK_EQ(P.instr[8].dict, 7);
	CHECK_EQ(P.instr[9].dict, 8);
	CHECK_EQ(P.instr[10].dict, 4);
	CHECK_EQ(P.instr[11].dict, 1);
	CHECK_EQ(P.instr[12].dict, 8);
	CHECK_EQ(P.instr[13].dict, 9);
	CHECK_EQ(P.instr[14].dict, 10);
	CHECK_EQ(P.instr[15].kind, FAST_K_GROUP);
	CHECK_EQ(P.instr[16].dict, 11);
	CHECK_EQ(P.instr[18].dict, 1);
	CHECK_EQ(P.instr[19].kind, FAST_K_SEQ);
	CHECK_EQ(P.instr[19].dict, 4);
	CHECK_EQ(P.instr[20].dict, 12);
	CHECK_EQ(P.ndict, 13);

	/* a dictionary on <templates> applies to every template */
	COMPILES("<templates xmlns=\"" NS11 "\" dictionary=\"template\">\n"
		 "<template name=\"X\" id=\"1\"><int32 name=\"A\"><copy/></int32></template>\n"
		 "<template name=\"Y\" id=\"2\"><int32 name=\"A\"><copy/></int32>\n"
		 "<int32 name=\"B\"><copy dictionary=\"global\" key=\"A\"/></int32></template>\n"
		 "</templates>\n");
	CHECK_EQ(P.instr[0].dict, 1);
	CHECK_EQ(P.instr[1].dict, 2);
	CHECK_EQ(P.instr[2].dict, 3);

	/* fields sharing a slot must have compatible kinds */
	COMPILES("<templates xmlns=\"" NS11 "\">\n"
		 "<template name=\"X\" id=\"1\"><int32 name=\"A\"><copy/></int32>\n"
		 "<string name=\"U\" charset=\"unicode\"><copy/></string></template>\n"
		 "<template name=\"Y\" id=\"2\"><uInt64 name=\"A\"><delta/></uInt64>\n"
		 "<byteVector name=\"U\"><copy/></byteVector></template>\n"
		 "</templates>\n");
	CHECK_EQ(P.instr[0].dict, P.instr[2].dict);
	CHECK_EQ(P.instr[1].dict, P.instr[3].dict);
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n"
		  "<template name=\"X\" id=\"1\"><int32 name=\"A\"><copy/></int32></template>\n"
		  "<template name=\"Y\" id=\"2\">\n<string name=\"A\"><copy/></string></template>\n"
		  "</templates>\n",
		  4, "incompatible type");
	CHECK_ERR(T1("<decimal name=\"A\"><copy/></decimal>\n<int64 name=\"A\"><copy/></int64>\n"), 4,
		  "incompatible type");
	CHECK_ERR(T1("<string name=\"A\"><copy/></string>\n<string name=\"A\" charset=\"unicode\"><copy/></string>\n"),
		  4, "incompatible type");
	CHECK_ERR(T1("<byteVector name=\"A\"><copy/></byteVector>\n<string name=\"B\"><tail key=\"A\"/></string>\n"),
		  4, "incompatible type");
	/* a constant or none does not touch the dictionary: no conflict */
	COMPILES(T1("<decimal name=\"A\"><copy/></decimal>\n<string name=\"A\"><constant value=\"x\"/></string>\n"
		    "<int32 name=\"A\"/>\n"));
}

static void test_ticks(void)
{
	/* OrderNo accepted too; fields inside groups/sequences are not mapped */
	COMPILES(T1("<int64 name=\"OrderNo\"/>\n<string name=\"SecurityID\"/>\n"
		    "<group name=\"G\"><int32 name=\"OrderPrice\"/></group>\n"
		    "<sequence name=\"S\"><int32 name=\"BizIndex\"/></sequence>\n"));
	CHECK_EQ(P.tpl[0].kind, TOE_REC_ORDER);
	CHECK_EQ(P.instr[0].tick, TOE_TF_ORDER_NO);
	CHECK_EQ(P.instr[1].tick, TOE_TF_SECURITY_ID);
	CHECK_EQ(P.instr[3].tick, 0);
	CHECK_EQ(P.instr[6].tick, 0);
	/* Balance alone makes an order; neutral fields alone make nothing */
	COMPILES(T1("<uInt64 name=\"Balance\"/>\n"));
	CHECK_EQ(P.tpl[0].kind, TOE_REC_ORDER);
	CHECK_EQ(P.instr[0].tick, TOE_TF_BALANCE);
	COMPILES(T1("<string name=\"SecurityID\"/>\n<int64 name=\"BizIndex\"/>\n<int32 name=\"DataStatus\"/>\n"
		    "<int32 name=\"tradeprice\"/>\n"));
	CHECK_EQ(P.tpl[0].kind, TOE_REC_NONE);
	CHECK_EQ(P.instr[0].tick, TOE_TF_SECURITY_ID);
	CHECK_EQ(P.instr[1].tick, TOE_TF_BIZ_INDEX);
	CHECK_EQ(P.instr[2].tick, TOE_TF_DATA_STATUS);
	CHECK_EQ(P.instr[3].tick, 0);
	/* a decimal maps at its first instruction */
	COMPILES(T1("<decimal name=\"TradePrice\"><exponent><copy/></exponent><mantissa><delta/></mantissa></decimal>\n"
		    "<decimal name=\"TradeQty\"/>\n<uInt32 name=\"TradeIndex\"/>\n"));
	CHECK_EQ(P.tpl[0].kind, TOE_REC_TRADE);
	CHECK_EQ(P.instr[0].tick, TOE_TF_TRADE_PRICE);
	CHECK_EQ(P.instr[1].tick, 0);
	CHECK_EQ(P.instr[2].tick, TOE_TF_TRADE_QTY);
	CHECK_EQ(P.instr[3].tick, TOE_TF_TRADE_INDEX);

	/* trade and order fields in one template: not SSE's, decoded but the template maps nothing */
	NOT_MAPPED(T1("<int32 name=\"TradePrice\"/>\n<int32 name=\"OrderPrice\"/>\n<string name=\"SecurityID\"/>\n"), 1,
		   "t.xml:4: template T has both trade fields (TradePrice) and order fields (OrderPrice): decoded, "
		   "not mapped to tick records");
	CHECK_EQ(P.tpl[0].kind, TOE_REC_NONE);
	CHECK_EQ(P.instr[0].tick, 0);
	CHECK_EQ(P.instr[1].tick, 0);
	CHECK_EQ(P.instr[2].tick, 0);
	NOT_MAPPED(T1("<int32 name=\"OrderTime\"/>\n<int32 name=\"TradeTime\"/>\n"), 1,
		   "t.xml:4: template T has both trade fields (TradeTime) and order fields (OrderTime)");
	CHECK_EQ(P.tpl[0].kind, TOE_REC_NONE);
	/* only that template: the next one still maps */
	NOT_MAPPED("<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"1\">\n<int32 name=\"TradeQty\"/>\n"
		   "<int32 name=\"Balance\"/>\n</template>\n<template name=\"B\" id=\"2\">\n<int32 name=\"TradeQty\"/>\n"
		   "</template>\n</templates>\n",
		   1, "t.xml:4: template A has both");
	CHECK_EQ(P.tpl[0].kind, TOE_REC_NONE);
	CHECK_EQ(P.tpl[1].kind, TOE_REC_TRADE);
	CHECK_EQ(P.instr[P.tpl[1].first].tick, TOE_TF_TRADE_QTY);
	/* a tick field's name on a type that field cannot take (another exchange's numeric SecurityID):
	 * the file compiles, the field decodes but is not mapped, and the first such field is noted */
	NOT_MAPPED(T1("<int32 name=\"x\"/>\n<int32 name=\"SecurityID\"/>\n"), 1,
		   "t.xml:4: SecurityID in template T is not an ascii string: decoded, not mapped to the tick record");
	CHECK_EQ(P.instr[1].tick, 0);
	CHECK_EQ(P.tpl[0].kind, TOE_REC_NONE);
	NOT_MAPPED(T1("<int32 name=\"x\"/>\n<string name=\"OrderBSFlag\" charset=\"unicode\"/>\n"), 1,
		   "t.xml:4: OrderBSFlag in template T is not an ascii string");
	CHECK_EQ(P.instr[1].tick, 0);
	NOT_MAPPED(T1("<int32 name=\"x\"/>\n<string name=\"TradePrice\"/>\n"), 1,
		   "t.xml:4: TradePrice in template T is not an integer or a decimal");
	CHECK_EQ(P.instr[1].tick, 0);
	CHECK_EQ(P.tpl[0].kind, TOE_REC_NONE);
	NOT_MAPPED(T1("<int32 name=\"x\"/>\n<byteVector name=\"BizIndex\"/>\n"), 1, "t.xml:4: BizIndex");
	CHECK_EQ(P.instr[1].tick, 0);
	NOT_MAPPED(T1("<int32 name=\"x\"/>\n<sequence name=\"TradeQty\"/>\n"), 1, "t.xml:4: TradeQty");
	CHECK_EQ(P.instr[1].tick, 0);
	/* the rest of the template still maps; two such fields: counted, the first one named */
	NOT_MAPPED(T1("<uInt32 name=\"SecurityID\"/>\n<int64 name=\"TradePrice\"/>\n<string name=\"TradeQty\"/>\n"), 2,
		   "t.xml:3: SecurityID in template T is not an ascii string: decoded, not mapped to the tick record "
		   "(2 such notes in all)");
	CHECK_EQ(P.tpl[0].kind, TOE_REC_TRADE);
	CHECK_EQ(P.instr[0].tick, 0);
	CHECK_EQ(P.instr[1].tick, TOE_TF_TRADE_PRICE);
	CHECK_EQ(P.instr[2].tick, 0);
	/* a file that maps everything it names has no note */
	COMPILES(T1("<string name=\"SecurityID\"/>\n<int64 name=\"TradePrice\"/>\n"));
	CHECK_EQ(N.nnotes, 0);
	CHECK_EQ(N.note[0], 0);
	CHECK_ERR(T1("<int32 name=\"TradeIndex\"/>\n<int32 name=\"TradeIndex\"/>\n"), 4, "twice");
}

static void test_scale(void)
{
	COMPILES(T1("<int32 name=\"a\" decimalPlaces=\"0\"/>\n<uInt64 name=\"b\" decimalPlaces=\"18\"/>\n"));
	CHECK_EQ(P.instr[0].flags, SC);
	CHECK_EQ(P.instr[0].scale, 0);
	CHECK_EQ(P.instr[1].flags, SC);
	CHECK_EQ(P.instr[1].scale, 18);
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\" decimalPlaces=\"19\"/>\n"), 4, "0..18");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\" decimalPlaces=\"-1\"/>\n"), 4, "0..18");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\" decimalPlaces=\"two\"/>\n"), 4, "0..18");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<string name=\"b\" decimalPlaces=\"2\"/>\n"), 4, "integer fields only");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<decimal name=\"b\" decimalPlaces=\"2\"/>\n"), 4, "integer fields only");
}

/* Operator legality and other errors, each with its line. */
static void test_errors(void)
{
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\"><constant/></int32>\n"), 4, "constant operator of b needs a value");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\"><default/></int32>\n"), 4, "default operator of mandatory b");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<string name=\"b\"><increment/></string>\n"), 4, "increment operator");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<byteVector name=\"b\"><increment/></byteVector>\n"), 4, "increment operator");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\"><tail/></int32>\n"), 4, "tail operator");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<decimal name=\"b\"><tail/></decimal>\n"), 4, "tail operator");
	CHECK_ERR(T1("<int32 name=\"a\"><copy/>\n<delta/></int32>\n"), 4, "more than one operator");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<float name=\"b\"/>\n"), 4, "unexpected element <float>");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\"><copy/><bogus/></int32>\n"), 4, "unexpected element <bogus>");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 id=\"5\"/>\n"), 4, "needs a name");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"\"/>\n"), 4, "needs a name");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\" presence=\"maybe\"/>\n"), 4, "presence");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<string name=\"b\" charset=\"latin1\"/>\n"), 4, "charset");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b\" id=\"x\"/>\n"), 4, "not a uInt32");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<string name=\"b\"><copy value=\"caf\xc3\xa9\"/></string>\n"), 4, "not ASCII");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<string name=\"b\"><copy value=\""
		     "01234567890123456789012345678901234567890123456789012345678901234\"/></string>\n"),
		  4, "longer than 64");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<byteVector name=\"b\"><copy value=\"abc\"/></byteVector>\n"), 4, "not hex");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<byteVector name=\"b\"><copy value=\"zz\"/></byteVector>\n"), 4, "not hex");
	CHECK_ERR(T1("<int32 name=\"a\"/>\n<int32 name=\"b234567890123456789012345678901234567890123456789012345678901234\"/>\n"),
		  4, "too long");
	/* 64 characters fit exactly; names up to 63 bytes */
	COMPILES(T1("<string name=\"b23456789012345678901234567890123456789012345678901234567890123\"><copy value=\""
		    "0123456789012345678901234567890123456789012345678901234567890123\"/></string>\n"));
	CHECK_EQ(P.consts[0].len, 64);
	CHECK_EQ(strlen(N.field[0]), 63);

	/* template-level errors */
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"1\"/>\n<template name=\"B\" id=\"1\"/>\n</templates>\n",
		  3, "duplicate template id 1");
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"1\"/>\n<template name=\"A\" id=\"2\"/>\n</templates>\n",
		  3, "duplicate template name");
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n<template id=\"1\"/>\n</templates>\n", 2, "needs a name");
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"-3\"/>\n</templates>\n", 2, "not a uInt32");
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n</templates>\n", 1, "no templates");
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n<template name=\"A\"/>\n</templates>\n", 1, "no templates");
	CHECK_ERR("<templates xmlns=\"urn:other\">\n<template name=\"A\" id=\"1\"/>\n</templates>\n", 1,
		  "root element <templates> is in namespace \"urn:other\"; FAST template files use " NS11);
	/* FAST 1.2's namespace: its 1.1 elements compile as in 1.1, the types 1.2 added are refused by name */
	COMPILES("<templates xmlns=\"" NS12 "\">\n<template name=\"A\" id=\"5\">\n<uInt32 name=\"x\"><copy/></uInt32>\n"
		 "</template>\n</templates>\n");
	CHECK_EQ(P.ntpl, 1);
	CHECK_EQ(P.tpl[0].id, 5);
	CHECK_EQ(P.instr[P.tpl[0].first].op, FAST_OP_COPY);
	CHECK_ERR("<templates xmlns=\"" NS12 "\">\n<define name=\"E\"/>\n<template name=\"A\" id=\"1\"/>\n</templates>\n",
		  2, "<define> in <templates>: a FAST 1.2 element, not supported");
	CHECK_ERR("<templates xmlns=\"" NS12 "\">\n<template name=\"A\" id=\"1\">\n<uInt32 name=\"x\"/>\n"
		  "<timestamp name=\"t\" unit=\"nanosecond\"/>\n</template>\n</templates>\n",
		  4, "<timestamp> in <template>: a FAST 1.2 element");
	CHECK_ERR(T1("<boolean name=\"b\"/>\n"), 3, "<boolean> in <template>: a FAST 1.2 element");
	CHECK_ERR("<foo/>\n", 1, "root element must be");
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"1\"/>\n<int32 name=\"x\"/>\n</templates>\n", 3,
		  "unexpected element <int32> in <templates>");
	/* an empty template is legal: a record of just the template id */
	COMPILES("<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"4294967295\"/>\n</templates>\n");
	CHECK_EQ(P.tpl[0].id, UINT32_MAX);
	CHECK_EQ(P.tpl[0].first, P.tpl[0].end);
}

/* Generated files that hit each limit of fast_prog.h. */
static char *gen(const char *field_fmt, int nfields, int ntemplates)
{
	size_t cap = (size_t)(nfields + ntemplates + 8) * 200;
	char *s = malloc(cap), *o = s;
	int t, i;

	o += sprintf(o, "<templates xmlns=\"%s\">\n", NS11); /* line 1 */
	for (t = 0; t < ntemplates; t++) {
		o += sprintf(o, "<template name=\"T%d\" id=\"%d\">\n", t, t + 1);
		for (i = 0; i < nfields; i++) {
			o += sprintf(o, field_fmt, i, i);
			*o++ = '\n';
		}
		o += sprintf(o, "</template>\n");
	}
	sprintf(o, "</templates>\n");
	return s;
}

static void test_limits(void)
{
	char *s;

	/* templates: one per line pair; the 65th template element is on line 2 + 64*2 */
	s = gen("<int32 name=\"f%d\" id=\"%d\"/>", 0, FAST_MAX_TEMPLATES);
	COMPILES(s);
	CHECK_EQ(P.ntpl, FAST_MAX_TEMPLATES);
	free(s);
	s = gen("<int32 name=\"f%d\" id=\"%d\"/>", 0, FAST_MAX_TEMPLATES + 1);
	CHECK_ERR(s, 2 + 2 * FAST_MAX_TEMPLATES, "too many templates");
	free(s);
	/* instructions: field k is on line 3 + k */
	s = gen("<int32 name=\"f%d\" id=\"%d\"/>", FAST_MAX_INSTR, 1);
	COMPILES(s);
	CHECK_EQ(P.ninstr, FAST_MAX_INSTR);
	free(s);
	s = gen("<int32 name=\"f%d\" id=\"%d\"/>", FAST_MAX_INSTR + 1, 1);
	CHECK_ERR(s, 3 + FAST_MAX_INSTR, "too many instructions");
	free(s);
	/* dictionary slots: slot 0 is the template id's, so 511 fields fit (delta: no pmap bits) */
	s = gen("<int32 name=\"f%d\" id=\"%d\"><delta/></int32>", FAST_MAX_DICT - 1, 1);
	COMPILES(s);
	CHECK_EQ(P.ndict, FAST_MAX_DICT);
	free(s);
	s = gen("<int32 name=\"f%d\" id=\"%d\"><delta/></int32>", FAST_MAX_DICT, 1);
	CHECK_ERR(s, 3 + FAST_MAX_DICT - 1, "too many dictionary entries");
	free(s);
	/* initial values */
	s = gen("<int32 name=\"f%d\" id=\"%d\"><constant value=\"1\"/></int32>", FAST_MAX_CONST, 1);
	COMPILES(s);
	CHECK_EQ(P.nconst, FAST_MAX_CONST);
	free(s);
	s = gen("<int32 name=\"f%d\" id=\"%d\"><constant value=\"1\"/></int32>", FAST_MAX_CONST + 1, 1);
	CHECK_ERR(s, 3 + FAST_MAX_CONST, "too many initial values");
	free(s);
	/* pool: 64 strings of 64 bytes fill it exactly */
	s = gen("<string name=\"f%d\" id=\"%d\"><constant value=\""
		"0123456789012345678901234567890123456789012345678901234567890123\"/></string>",
		FAST_MAX_POOL / 64, 1);
	COMPILES(s);
	CHECK_EQ(P.npool, FAST_MAX_POOL);
	free(s);
	s = gen("<string name=\"f%d\" id=\"%d\"><constant value=\""
		"0123456789012345678901234567890123456789012345678901234567890123\"/></string>",
		FAST_MAX_POOL / 64 + 1, 1);
	CHECK_ERR(s, 3 + FAST_MAX_POOL / 64, "pool");
	free(s);
	/* presence map: the template id takes one of the 112 bits */
	s = gen("<int32 name=\"f%d\" id=\"%d\"><copy/></int32>", FAST_MAX_PMAP_BYTES * 7 - 1, 1);
	COMPILES(s);
	free(s);
	s = gen("<int32 name=\"f%d\" id=\"%d\"><copy/></int32>", FAST_MAX_PMAP_BYTES * 7, 1);
	CHECK_ERR(s, 2, "presence map bits");
	free(s);
	{
		/* a sequence element's pmap has all 112 bits (no template id) */
		char *b = malloc(200 * 120), *o = b;
		int i;
		o += sprintf(o, "<templates xmlns=\"%s\">\n<template name=\"T\" id=\"1\">\n<sequence name=\"s\">\n", NS11);
		for (i = 0; i < FAST_MAX_PMAP_BYTES * 7 + 1; i++)
			o += sprintf(o, "<int32 name=\"f%d\"><copy/></int32>\n", i);
		sprintf(o, "</sequence>\n</template>\n</templates>\n");
		CHECK_ERR(b, 3, "presence map bits");
		o = b;
		o += sprintf(o, "<templates xmlns=\"%s\">\n<template name=\"T\" id=\"1\">\n<sequence name=\"s\">\n", NS11);
		for (i = 0; i < FAST_MAX_PMAP_BYTES * 7; i++)
			o += sprintf(o, "<int32 name=\"f%d\"><copy/></int32>\n", i);
		sprintf(o, "</sequence>\n</template>\n</templates>\n");
		COMPILES(b);
		CHECK_EQ(P.instr[0].flags, PM);
		free(b);
	}
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"",
		"<",
		"<templates>",
		"<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"1\">\n</templates>\n",
		"<templates><template name=\"A\" id=\"1\"><int32 name=\"a></template></templates>",
		"\x00\x01\x02\xff\xfe garbage",
		"<?xml version=\"1.0\"?><!DOCTYPE t [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><templates>&e;</templates>",
		"<templates xmlns=\"" NS11 "\"><template name=\"A\" id=\"1\"><int32 name=\"a\" name=\"b\"/></template></templates>",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		size_t n = i == 5 ? 13 : strlen(bad[i]);
		E[0] = 0;
		CHECK_EQ(fast_compile_buffer(bad[i], n, "t.xml", &P, &N, E, sizeof E), -1);
		CHECK(strncmp(E, "t.xml:", 6) == 0);
		CHECK_EQ(P.ninstr, 0);
	}
	/* the mismatched end tag is reported on its line */
	CHECK_ERR("<templates xmlns=\"" NS11 "\">\n<template name=\"A\" id=\"1\">\n<int32 name=\"a\">\n</uInt32>\n"
		  "</template>\n</templates>\n",
		  4, "XML error");
	/* a truncated file at every length never crashes */
	{
		const char *x = T1("<sequence name=\"s\"><length><copy value=\"1\"/></length>\n"
				   "<decimal name=\"d\"><exponent><copy/></exponent></decimal></sequence>\n");
		size_t n, len = strlen(x);
		for (n = 0; n < len; n++)
			fast_compile_buffer(x, n, "t.xml", &P, &N, E, sizeof E);
		CHECK_EQ(fast_compile_buffer(x, len, "t.xml", &P, &N, E, sizeof E), 0);
	}
	/* a small error buffer is truncated, not overrun; no buffer at all is fine */
	{
		char small[8];
		memset(small, 'x', sizeof small);
		CHECK_EQ(fast_compile_buffer("<", 1, "t.xml", &P, &N, small, 5), -1);
		CHECK_EQ(small[4], 0);
		CHECK_EQ(small[5], 'x');
		CHECK_EQ(fast_compile_buffer("<", 1, "t.xml", &P, &N, NULL, 0), -1);
	}
	CHECK_EQ(fast_compile_file("conf/templates/does-not-exist.xml", &P, &N, E, sizeof E), -1);
	CHECK(strncmp(E, "conf/templates/does-not-exist.xml:", 34) == 0);
}

int main(void)
{
	test_layout();
	test_sse_202();
	test_sse_current();
	test_namespaces();
	test_types_ops();
	test_int_ranges();
	test_decimal_values();
	test_decimal_split();
	test_sequences();
	test_depth();
	test_template_ref();
	test_dictionaries();
	test_ticks();
	test_scale();
	test_errors();
	test_limits();
	test_malformed();
	return test_done("fast_compile");
}
