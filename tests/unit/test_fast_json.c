/* test_fast_json.c - the JSON record printer and the error names.
 *
 * Records are built by hand in the decoder's value layout (fast_decode.h):
 * one value per field instruction, a decimal once at its first instruction,
 * a sequence as its length then each element's values, a group as a presence
 * value then its body when present. The expected JSON text is written out
 * from the printing rules in fast_json.h.
 */
#include <stdlib.h>
#include <string.h>

#include "fast/host/fast_json.h"
#include "test.h"

#define NS11 "http://www.fixprotocol.org/ns/fast/td/1.1"

static struct fast_prog P;
static struct fast_names N;
static struct fast_rec R;
static char E[512];

static void rec_start(uint32_t tid)
{
	memset(&R, 0, sizeof R);
	R.tid = tid;
	R.tpl = (uint16_t)fast_prog_find(&P, tid);
}

static struct fast_val *val(int instr, int present)
{
	struct fast_val *v = &R.v[R.nvals++];
	v->instr = (uint16_t)instr;
	v->present = (uint8_t)present;
	return v;
}

static void val_i(int instr, int64_t i)
{
	val(instr, 1)->i = i;
}

static void val_absent(int instr)
{
	val(instr, 0);
}

static void val_dec(int instr, int64_t m, int32_t e)
{
	struct fast_val *v = val(instr, 1);
	v->i = m;
	v->exp = e;
}

static void val_bytes(int instr, const char *s, size_t n)
{
	struct fast_val *v = val(instr, 1);
	v->soff = R.nstr;
	v->slen = (uint16_t)n;
	memcpy(R.str + R.nstr, s, n);
	R.nstr = (uint16_t)(R.nstr + n);
}

static void val_s(int instr, const char *s)
{
	val_bytes(instr, s, strlen(s));
}

static char *json(const struct fast_names *names, const char *extra)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fast_json_record(f, &P, names, &R, extra);
	fclose(f);
	return buf;
}

#define CHECK_JSON_N(names, extra, want)                                                \
	do {                                                                            \
		char *got_ = json((names), (extra));                                    \
		if (strcmp(got_, (want)))                                               \
			fprintf(stderr, "%s:%d:\n  got  %s\n  want %s\n", __FILE__, __LINE__, got_, (want)); \
		CHECK(strcmp(got_, (want)) == 0);                                       \
		free(got_);                                                             \
	} while (0)
#define CHECK_JSON(extra, want) CHECK_JSON_N(&N, extra, want)

static int compile(const char *xml)
{
	int rc = fast_compile_buffer(xml, strlen(xml), "t.xml", &P, &N, E, sizeof E);
	if (rc)
		fprintf(stderr, "compile: %s\n", E);
	CHECK_EQ(rc, 0);
	return rc;
}

static void test_err_names(void)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{FAST_E_TRUNCATED, "truncated"},
		{FAST_E_NO_STOP_BIT, "no_stop_bit"},
		{FAST_E_RANGE, "D2_range"},
		{FAST_E_OVERLONG_INT, "R6_overlong_int"},
		{FAST_E_OVERLONG_PMAP, "R7_overlong_pmap"},
		{FAST_E_PMAP_EXTRA, "R8_pmap_extra"},
		{FAST_E_OVERLONG_STR, "R9_overlong_string"},
		{FAST_E_PMAP_TOO_LONG, "pmap_too_long"},
		{FAST_E_UNKNOWN_TEMPLATE, "D9_unknown_template"},
		{FAST_E_MANDATORY_UNDEF, "D5_mandatory_undefined"},
		{FAST_E_MANDATORY_EMPTY, "D6_mandatory_empty"},
		{FAST_E_SUBTRACT_LEN, "D7_subtraction_length"},
		{FAST_E_EXPONENT, "R1_exponent"},
		{FAST_E_STR_TOO_LONG, "string_too_long"},
		{FAST_E_SEQ_TOO_LONG, "sequence_too_long"},
		{FAST_E_TOO_MANY_VALUES, "too_many_values"},
		{FAST_E_NULL_MANDATORY, "null_mandatory"},
		{STEP_E_GARBAGE, "step_garbage"},
		{STEP_E_BAD_HEADER, "step_bad_header"},
		{STEP_E_TOO_LONG, "step_too_long"},
		{STEP_E_BAD_FIELD, "step_bad_field"},
		{STEP_E_BAD_DATA_LEN, "step_bad_data_len"},
		{STEP_E_BAD_LENGTH, "step_bad_length"},
		{STEP_E_BAD_CHECKSUM, "step_bad_checksum"},
		{STEP_E_NO_DATA, "step_no_data"},
		{-1, "unknown"},
		{FAST_ERR_COUNT, "unknown"},
		{1000, "unknown"},
	};
	size_t i, j;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *got = fast_err_name(names[i].e);
		if (strcmp(got, names[i].name))
			fprintf(stderr, "fast_err_name(%d) = %s, want %s\n", names[i].e, got, names[i].name);
		CHECK(strcmp(got, names[i].name) == 0);
	}
	/* every code has its own name */
	for (i = 1; i < FAST_ERR_COUNT; i++)
		for (j = i + 1; j < FAST_ERR_COUNT; j++)
			CHECK(strcmp(fast_err_name((int)i), fast_err_name((int)j)) != 0);
}

static void test_sse(void)
{
	int rc = fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &P, &N, E, sizeof E);

	if (rc)
		fprintf(stderr, "compile: %s\n", E);
	CHECK_EQ(rc, 0);
	rec_start(3201);
	val_s(0, "UA3201");
	val_absent(1);        /* DataStatus */
	val_i(2, 1001);       /* TradeIndex */
	val_i(3, 1);          /* TradeChannel */
	val_s(4, "600000");   /* SecurityID */
	val_i(5, 9300000);    /* TradeTime */
	val_i(6, 10250);      /* TradePrice, decimalPlaces 3: printed as the scaled integer */
	val_i(7, 100000);     /* TradeQty */
	val_absent(8);        /* TradeMoney */
	val_i(9, 5);          /* TradeBuyNo */
	val_i(10, 6);         /* TradeSellNo */
	val_s(11, "B");       /* TradeBSFlag */
	val_i(12, 77);        /* BizIndex */
	CHECK_JSON("\"msg_seq\":7,",
		   "{\"template\":3201,\"msg_seq\":7,\"MessageType\":\"UA3201\",\"TradeIndex\":1001,"
		   "\"TradeChannel\":1,\"SecurityID\":\"600000\",\"TradeTime\":9300000,\"TradePrice\":10250,"
		   "\"TradeQty\":100000,\"TradeBuyNo\":5,\"TradeSellNo\":6,\"TradeBSFlag\":\"B\",\"BizIndex\":77}");
	/* extra: absent, empty, without the trailing comma */
	CHECK_JSON(NULL,
		   "{\"template\":3201,\"MessageType\":\"UA3201\",\"TradeIndex\":1001,"
		   "\"TradeChannel\":1,\"SecurityID\":\"600000\",\"TradeTime\":9300000,\"TradePrice\":10250,"
		   "\"TradeQty\":100000,\"TradeBuyNo\":5,\"TradeSellNo\":6,\"TradeBSFlag\":\"B\",\"BizIndex\":77}");
	CHECK_JSON("",
		   "{\"template\":3201,\"MessageType\":\"UA3201\",\"TradeIndex\":1001,"
		   "\"TradeChannel\":1,\"SecurityID\":\"600000\",\"TradeTime\":9300000,\"TradePrice\":10250,"
		   "\"TradeQty\":100000,\"TradeBuyNo\":5,\"TradeSellNo\":6,\"TradeBSFlag\":\"B\",\"BizIndex\":77}");
	CHECK_JSON("\"a\":1,\"b\":\"x\"",
		   "{\"template\":3201,\"a\":1,\"b\":\"x\",\"MessageType\":\"UA3201\",\"TradeIndex\":1001,"
		   "\"TradeChannel\":1,\"SecurityID\":\"600000\",\"TradeTime\":9300000,\"TradePrice\":10250,"
		   "\"TradeQty\":100000,\"TradeBuyNo\":5,\"TradeSellNo\":6,\"TradeBSFlag\":\"B\",\"BizIndex\":77}");

	/* 5801: the second template of the program */
	rec_start(5801);
	CHECK_EQ(R.tpl, 1);
	val_s(13, "UA5801");
	val_i(14, 0);
	val_i(15, 1);
	val_i(16, 2);
	val_s(17, "688001");
	val_absent(18);
	val_s(19, "A");
	val_i(20, 123456789012LL);
	val_i(21, 15500);
	val_i(22, 200000);
	val_s(23, "S");
	val_i(24, 9);
	CHECK_JSON("\"msg_seq\":8,",
		   "{\"template\":5801,\"msg_seq\":8,\"MessageType\":\"UA5801\",\"DataStatus\":0,\"OrderIndex\":1,"
		   "\"OrderChannel\":2,\"SecurityID\":\"688001\",\"OrderType\":\"A\",\"OrderNO\":123456789012,"
		   "\"OrderPrice\":15500,\"Balance\":200000,\"OrderBSFlag\":\"S\",\"BizIndex\":9}");
	/* with no template and no extra: nothing after the id; unknown template: id only */
	R.nvals = 0;
	CHECK_JSON("\"m\":1,", "{\"template\":5801,\"m\":1}");
	rec_start(42);
	R.tpl = 0;
	val_i(0, 1);
	CHECK_JSON(NULL, "{\"template\":42}");
}

static void test_integers(void)
{
	if (compile("<templates xmlns=\"" NS11 "\"><template name=\"I\" id=\"5\">"
		    "<uInt32 name=\"u32\"/><uInt64 name=\"u64\"/><int64 name=\"i64\"/><int32 name=\"i32\"/>"
		    "<int64 name=\"opt\" presence=\"optional\"/>"
		    "</template></templates>"))
		return;
	rec_start(5);
	val_i(0, 4294967295LL);
	val_i(1, -1); /* uInt64 max as its bit pattern */
	val_i(2, INT64_MIN);
	val_i(3, -2147483648LL);
	val_absent(4);
	CHECK_JSON(NULL, "{\"template\":5,\"u32\":4294967295,\"u64\":18446744073709551615,"
			 "\"i64\":-9223372036854775808,\"i32\":-2147483648}");
	rec_start(5);
	val_i(0, 0);
	val_i(1, (int64_t)0x8000000000000000ULL);
	val_i(2, INT64_MAX);
	val_i(3, 0);
	val_i(4, -7);
	CHECK_JSON(NULL, "{\"template\":5,\"u32\":0,\"u64\":9223372036854775808,"
			 "\"i64\":9223372036854775807,\"i32\":0,\"opt\":-7}");
	/* the first field absent: no stray comma */
	rec_start(5);
	val_absent(0);
	CHECK_JSON("\"x\":1,", "{\"template\":5,\"x\":1}");
	/* no names: fields are called by their instruction index */
	rec_start(5);
	val_i(0, 1);
	val_i(1, 2);
	CHECK_JSON_N(NULL, NULL, "{\"template\":5,\"_0\":1,\"_1\":2}");
}

static void test_strings(void)
{
	static const struct {
		int instr;
		const char *in;
		size_t n;
		const char *out;
	} cases[] = {
		/* ascii: ", \ and control characters escaped; DEL passes; bytes >= 0x80 escaped */
		{0, "plain", 5, "\"plain\""},
		{0, "a\"b\\c\n\x01\x1f\x7f", 9, "\"a\\\"b\\\\c\\u000a\\u0001\\u001f\x7f\""},
		{0, "\x80\xff", 2, "\"\\u0080\\u00ff\""},
		{0, "a\0b", 3, "\"a\\u0000b\""},
		{0, "", 0, "\"\""},
		/* unicode: valid UTF-8 passes, invalid bytes escaped one by one */
		{1, "\xc3\xa9t\xc3\xa9", 5, "\"\xc3\xa9t\xc3\xa9\""},
		{1, "\xe2\x82\xac", 3, "\"\xe2\x82\xac\""},
		{1, "\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\""},
		{1, "\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\""},
		{1, "x\xff", 2, "\"x\\u00ff\""},
		{1, "\xc0\x80", 2, "\"\\u00c0\\u0080\""},             /* overlong NUL */
		{1, "\xe0\x80\xaf", 3, "\"\\u00e0\\u0080\\u00af\""},  /* overlong '/' */
		{1, "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\""},  /* surrogate */
		{1, "\xf4\x90\x80\x80", 4, "\"\\u00f4\\u0090\\u0080\\u0080\""}, /* above U+10FFFF */
		{1, "\xe2\x82", 2, "\"\\u00e2\\u0082\""},             /* truncated */
		{1, "\xe2\x82z", 3, "\"\\u00e2\\u0082z\""},
		{1, "q\"\t", 3, "\"q\\\"\\u0009\""},
		/* byte vectors: lowercase hex */
		{2, "\x00\x0a\xff\x7f", 4, "\"000aff7f\""},
		{2, "", 0, "\"\""},
	};
	static const char *const names[] = {"a", "u", "b"};
	size_t i;

	if (compile("<templates xmlns=\"" NS11 "\"><template name=\"S\" id=\"6\">"
		    "<string name=\"a\" presence=\"optional\"/><string name=\"u\" charset=\"unicode\" presence=\"optional\"/>"
		    "<byteVector name=\"b\" presence=\"optional\"/>"
		    "</template></templates>"))
		return;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char want[256];
		int k;
		rec_start(6);
		for (k = 0; k < 3; k++) {
			if (k == cases[i].instr)
				val_bytes(k, cases[i].in, cases[i].n);
			else
				val_absent(k);
		}
		snprintf(want, sizeof want, "{\"template\":6,\"%s\":%s}", names[cases[i].instr], cases[i].out);
		CHECK_JSON(NULL, want);
	}
	/* a value pointing outside the string buffer is clamped, not read past it */
	rec_start(6);
	val_absent(0);
	val_absent(1);
	val(2, 1)->soff = FAST_MAX_STRBUF - 1;
	R.v[2].slen = 100;
	R.str[FAST_MAX_STRBUF - 1] = 0xab;
	CHECK_JSON(NULL, "{\"template\":6,\"b\":\"ab\"}");
}

static void test_decimals(void)
{
	static const struct {
		int64_t m;
		int32_t e;
		const char *out;
	} cases[] = {
		{12345, -2, "123.45"},
		{-5, -3, "-0.005"},
		{1, 2, "100"},
		{-12, 3, "-12000"},
		{0, 0, "0"},
		{0, 5, "0"},
		{7, 0, "7"},
		{15, -1, "1.5"},
		{123, -3, "0.123"},
		{-123, -2, "-1.23"},
		{100, -2, "1.00"},
		{INT64_MIN, 0, "-9223372036854775808"},
		{INT64_MAX, -19, "0.9223372036854775807"},
		{INT64_MIN, -1, "-922337203685477580.8"},
		{1, -63, "0.000000000000000000000000000000000000000000000000000000000000001"},
		{3, 63, "3000000000000000000000000000000000000000000000000000000000000000"},
		/* outside FAST's exponent range (never from the decoder): exact and bounded */
		{25, 1000, "25e1000"},
		{-25, -1000, "-25e-1000"},
	};
	size_t i;

	if (compile("<templates xmlns=\"" NS11 "\"><template name=\"D\" id=\"7\">"
		    "<decimal name=\"d\" presence=\"optional\"/>"
		    "<decimal name=\"px\" presence=\"optional\"><exponent><copy/></exponent><mantissa><delta/></mantissa></decimal>"
		    "<int32 name=\"n\" presence=\"optional\"/>"
		    "</template></templates>"))
		return;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char want[256];
		rec_start(7);
		val_dec(0, cases[i].m, cases[i].e);
		val_absent(1);
		val_absent(3);
		snprintf(want, sizeof want, "{\"template\":7,\"d\":%s}", cases[i].out);
		CHECK_JSON(NULL, want);
	}
	/* a decimal with individual operators is one value at its DEC_EXP; the next value is n (instruction 3) */
	rec_start(7);
	val_absent(0);
	val_dec(1, 10125, -3);
	val_i(3, 4);
	CHECK_JSON(NULL, "{\"template\":7,\"px\":10.125,\"n\":4}");
}

static void test_nested(void)
{
	if (compile("<templates xmlns=\"" NS11 "\">\n"
		    "<template name=\"Sq\" id=\"8\">\n"
		    "<int32 name=\"h\" presence=\"optional\"/>\n"                 /* 0 */
		    "<sequence name=\"Legs\"><length name=\"NoLegs\"/>\n"         /* 1 */
		    "<string name=\"Sym\"/>\n"                                    /* 2 */
		    "<int32 name=\"Qty\" presence=\"optional\"/>\n"               /* 3 */
		    "<group name=\"Ext\" presence=\"optional\">\n"                /* 4 */
		    "<int32 name=\"E\"/>\n"                                       /* 5 */
		    "</group>\n"                                                  /* 6 END */
		    "</sequence>\n"                                               /* 7 END */
		    "<sequence name=\"Opt\" presence=\"optional\">\n"             /* 8 */
		    "<int32 name=\"X\"/>\n"                                       /* 9 */
		    "</sequence>\n"                                               /* 10 END */
		    "<group name=\"G\" presence=\"optional\">\n"                  /* 11 */
		    "<decimal name=\"Px\"/>\n"                                    /* 12 */
		    "</group>\n"                                                  /* 13 END */
		    "<int32 name=\"t\"/>\n"                                       /* 14 */
		    "</template>\n</templates>\n"))
		return;
	CHECK_EQ(P.ninstr, 15);
	rec_start(8);
	val_absent(0);
	val_i(1, 2);
	val_s(2, "A");
	val_i(3, 1);
	val_i(4, 1);
	val_i(5, 9);
	val_s(2, "B");
	val_absent(3);
	val_absent(4);
	val_i(8, 0);
	val_i(11, 1);
	val_dec(12, 15, -1);
	val_i(14, 3);
	CHECK_JSON("\"s\":1,", "{\"template\":8,\"s\":1,\"Legs\":[{\"Sym\":\"A\",\"Qty\":1,\"Ext\":{\"E\":9}},"
			      "{\"Sym\":\"B\"}],\"Opt\":[],\"G\":{\"Px\":1.5},\"t\":3}");
	/* empty sequence, absent optional sequence and group */
	rec_start(8);
	val_i(0, 1);
	val_i(1, 0);
	val_absent(8);
	val_absent(11);
	val_i(14, 4);
	CHECK_JSON(NULL, "{\"template\":8,\"h\":1,\"Legs\":[],\"t\":4}");
	/* a record that ends early (a decoder bug) is printed as far as it goes, still closed */
	rec_start(8);
	val_i(0, 1);
	val_i(1, 3);
	val_s(2, "A");
	CHECK_JSON(NULL, "{\"template\":8,\"h\":1,\"Legs\":[{\"Sym\":\"A\"},{},{}]}");
	/* an absurd length is bounded by FAST_MAX_SEQ_LEN and by the values present */
	rec_start(8);
	val_i(0, 1);
	val_i(1, INT64_MAX);
	{
		char *got = json(&N, NULL);
		size_t want = strlen("{\"template\":8,\"h\":1,\"Legs\":[]}") + FAST_MAX_SEQ_LEN * 3 - 1;
		CHECK_EQ(strlen(got), want);
		free(got);
	}
}

int main(void)
{
	test_err_names();
	test_sse();
	test_integers();
	test_strings();
	test_decimals();
	test_nested();
	return test_done("fast_json");
}
