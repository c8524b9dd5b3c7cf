/* test_fast_seq.c - FAST 1.1 sequences and groups, hand-written bytes.
 *
 * Spec §6.2.5 (sequence: a uInt32 length field with its own operator,
 * nullable when the sequence is optional, then the elements; each element
 * has its own pmap only when a field inside needs a bit) and §6.2.4 (group:
 * an optional group takes one bit of the enclosing pmap; a group whose
 * fields need bits has its own pmap).
 *
 * Value layout (fast_decode.h): a SEQ gives one value (i = length, absent
 * when an optional sequence is NULL) followed by each element's values; a
 * GROUP gives one value (present 1/0) followed by its fields when present.
 * Instruction indices: SEQ/GROUP, body..., END, so a field after a body of
 * n instructions is at +n+2.
 */
#include "test.h"
#include "fast_vec.h"

static const char *xml = FV_XML(
	"<template name='S1' id='1'><sequence name='s1'><length name='n1'/>"
	"<uInt32 name='a1'/><string name='b1'/></sequence></template>\n"
	"<template name='S2' id='2'><uInt32 name='pre2'/><sequence name='s2'><length name='n2'/>"
	"<uInt32 name='a2'><copy/></uInt32><uInt32 name='b2'/></sequence><uInt32 name='post2'/></template>\n"
	"<template name='S3' id='3'><sequence name='s3'><length name='n3'><copy/></length>"
	"<uInt32 name='a3'/></sequence></template>\n"
	"<template name='S4' id='4'><sequence name='s4' presence='optional'><length name='n4'/>"
	"<uInt32 name='a4'/></sequence><uInt32 name='z4'/></template>\n"
	"<template name='S5' id='5'><sequence name='o5'><length name='no5'/><uInt32 name='x5'/>"
	"<sequence name='i5'><length name='ni5'/><uInt32 name='y5'/></sequence></sequence>"
	"<uInt32 name='z5'/></template>\n"
	"<template name='S6' id='6'><sequence name='o6'><length name='no6'/>"
	"<uInt32 name='x6'><copy/></uInt32>"
	"<sequence name='i6'><length name='ni6'/><uInt32 name='y6'><increment/></uInt32></sequence>"
	"</sequence></template>\n"
	"<template name='G7' id='7'><uInt32 name='a7'/><group name='g7' presence='optional'>"
	"<uInt32 name='x7'/><string name='y7'/></group><uInt32 name='b7'><copy/></uInt32></template>\n"
	"<template name='G8' id='8'><group name='g8'><uInt32 name='x8'><copy/></uInt32>"
	"<uInt32 name='w8'/></group><uInt32 name='c8'><copy/></uInt32></template>\n"
	"<template name='S9' id='9'><sequence name='s9'><length name='n9'><constant value='2'/></length>"
	"<uInt32 name='a9'/></sequence></template>\n"
	"<template name='S10' id='10'><sequence name='s10' presence='optional'>"
	"<length name='n10'><copy/></length><uInt32 name='a10'/></sequence></template>\n"
	"<template name='S11' id='11'><sequence name='s11'><length name='n11'/>"
	"<group name='g11' presence='optional'><uInt32 name='x11'/></group></sequence></template>\n"
	"<template name='S12' id='12'><sequence name='s12'><length name='n12'/>"
	"<uInt32 name='a12'/></sequence></template>\n"
	"<template name='S13' id='13'><sequence name='s13'><length name='n13'/>"
	"<string name='t13'/></sequence></template>\n"
	"<template name='G14' id='14'><group name='g14' presence='optional'><uInt32 name='x14'><copy/></uInt32>"
	"</group><uInt32 name='c14'><copy/></uInt32></template>\n");

static void test_plain(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* length 2 (82), elements (1,"A") (2,"B"); no field needs a bit: no element pmaps */
	DEC_OK(t, "C0 81 | 82 | 81 C1 | 82 C2");
	V_N(t, 5);
	V_I(t, 0, 2);
	V_I(t, 1, 1);
	V_S(t, 2, "A");
	V_I(t, 3, 2);
	V_S(t, 4, "B");
	V_INSTR(t, 0, 0);
	V_INSTR(t, 1, 1);
	V_INSTR(t, 2, 2);
	V_INSTR(t, 3, 1);
	V_INSTR(t, 4, 2);
	DEC_OK(t, "C0 81 | 80");                 /* empty sequence */
	V_N(t, 1);
	V_I(t, 0, 0);
	DEC_TRUNC_ALL(t, "C0 81 | 82 | 81 C1 | 82 C2");
	fv_free(t);
}

static void test_element_pmap(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* pre2 = 5, length 3, elements each with a pmap [a2]:
	 *   C0: a2 = 1, b2 = 10;  80: a2 copied 1, b2 = 11;  C0: a2 = 2, b2 = 12
	 * then post2 = 6 */
	DEC_OK(t, "C0 82 | 85 | 83 | C0 81 8A | 80 8B | C0 82 8C | 86");
	V_N(t, 9);
	V_I(t, 0, 5);
	V_I(t, 1, 3);
	V_I(t, 2, 1);
	V_I(t, 3, 10);
	V_I(t, 4, 1);
	V_I(t, 5, 11);
	V_I(t, 6, 2);
	V_I(t, 7, 12);
	V_I(t, 8, 6);
	V_INSTR(t, 1, 1);
	V_INSTR(t, 6, 2);
	V_INSTR(t, 7, 3);
	V_INSTR(t, 8, 5);                        /* pre2, SEQ, a2, b2, END, post2 */
	/* the copy entry lives on across records */
	DEC_OK(t, "80 | 85 | 81 | 80 8D | 86");
	V_N(t, 5);
	V_I(t, 2, 2);
	V_I(t, 3, 13);
	/* element pmap 40 80: a2's bit then an empty byte, R7 (reportable) */
	DEC_WARN(t, "C0 82 | 85 | 81 | 40 80 81 8A | 86", W(FAST_E_OVERLONG_PMAP));
	V_N(t, 5);
	V_I(t, 2, 1);
	V_I(t, 3, 10);
	V_I(t, 4, 6);
	/* element pmap with a bit set beyond the element's fields: R8 */
	DEC_ERR_RESET(t, "C0 82 | 85 | 81 | E0 81 8A | 86", FAST_E_PMAP_EXTRA);
	DEC_TRUNC_ALL(t, "C0 82 | 85 | 83 | C0 81 8A | 80 8B | C0 82 8C | 86");
	fv_free(t);
}

static void test_length_operators(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* length with copy: bits [tid, n3] */
	DEC_OK(t, "E0 83 | 82 | 81 82");
	V_N(t, 3);
	V_I(t, 0, 2);
	V_I(t, 1, 1);
	V_I(t, 2, 2);
	DEC_OK(t, "80 | 83 84");                 /* length copied */
	V_N(t, 3);
	V_I(t, 0, 2);
	V_I(t, 1, 3);
	V_I(t, 2, 4);
	fast_dec_reset(&t->dec);
	DEC_ERR_RESET(t, "C0 83 | 81", FAST_E_MANDATORY_UNDEF);
	/* constant length: nothing on the wire */
	DEC_OK(t, "C0 89 | 81 82");
	V_N(t, 3);
	V_I(t, 0, 2);
	V_I(t, 1, 1);
	V_I(t, 2, 2);
	/* optional sequence, length copy: bits [tid, n10]; NULL -> absent, empty */
	DEC_OK(t, "E0 8A | 80");
	V_N(t, 1);
	V_ABS(t, 0);
	DEC_OK(t, "80");                         /* empty entry: absent */
	V_N(t, 1);
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 82 | 87");               /* length 1 (sent 2), a10 = 7 */
	V_N(t, 2);
	V_I(t, 0, 1);
	V_I(t, 1, 7);
	DEC_OK(t, "80 | 88");                    /* length copied */
	V_N(t, 2);
	V_I(t, 0, 1);
	V_I(t, 1, 8);
	fv_free(t);
}

static void test_optional(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	DEC_OK(t, "C0 84 | 80 | 85");            /* absent sequence, z4 = 5 */
	V_N(t, 2);
	V_ABS(t, 0);
	V_I(t, 1, 5);
	V_INSTR(t, 1, 3);
	DEC_OK(t, "C0 84 | 81 | 85");            /* present, length 0 */
	V_N(t, 2);
	V_I(t, 0, 0);
	V_I(t, 1, 5);
	DEC_OK(t, "C0 84 | 83 | 81 82 | 85");    /* length 2 */
	V_N(t, 4);
	V_I(t, 0, 2);
	V_I(t, 1, 1);
	V_I(t, 2, 2);
	V_I(t, 3, 5);
	fv_free(t);
}

static void test_nested(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* outer length 2; e1: x5 = 1, inner length 2, y5 = 10, 11; e2: x5 = 2,
	 * inner length 0; z5 = 3 */
	DEC_OK(t, "C0 85 | 82 | 81 82 8A 8B | 82 80 | 83");
	V_N(t, 8);
	V_I(t, 0, 2);
	V_I(t, 1, 1);
	V_I(t, 2, 2);
	V_I(t, 3, 10);
	V_I(t, 4, 11);
	V_I(t, 5, 2);
	V_I(t, 6, 0);
	V_I(t, 7, 3);
	V_INSTR(t, 2, 2);
	V_INSTR(t, 3, 3);
	V_INSTR(t, 7, 6);                        /* o5 x5 i5 y5 END END z5 */
	DEC_TRUNC_ALL(t, "C0 85 | 82 | 81 82 8A 8B | 82 80 | 83");
	/* both levels with element pmaps:
	 * outer length 2
	 *  e1: pmap C0 (x6 set) x6 = 1, inner length 2:
	 *      pmap C0 y6 = 10; pmap 80 y6 incremented = 11
	 *  e2: pmap 80 (x6 copied = 1), inner length 1: pmap C0 y6 = 20 */
	DEC_OK(t, "C0 86 | 82 | C0 81 82 C0 8A 80 | 80 81 C0 94");
	V_N(t, 8);
	V_I(t, 0, 2);
	V_I(t, 1, 1);
	V_I(t, 2, 2);
	V_I(t, 3, 10);
	V_I(t, 4, 11);
	V_I(t, 5, 1);
	V_I(t, 6, 1);
	V_I(t, 7, 20);
	/* next record: e1 pmap 80: x6 = 1, inner: pmap 80 y6 = 21 */
	DEC_OK(t, "80 | 81 | 80 81 80");
	V_N(t, 4);
	V_I(t, 1, 1);
	V_I(t, 3, 21);
	fv_free(t);
}

static void test_groups(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* bits [tid, g7, b7] */
	DEC_OK(t, "F0 87 | 81 | 82 C1 | 83");    /* a7 = 1, group (2, "A"), b7 = 3 */
	V_N(t, 5);
	V_I(t, 0, 1);
	V_PRES(t, 1);                            /* group present */
	V_I(t, 2, 2);
	V_S(t, 3, "A");
	V_I(t, 4, 3);
	V_INSTR(t, 1, 1);
	V_INSTR(t, 4, 5);                        /* a7 g7 x7 y7 END b7 */
	DEC_OK(t, "80 | 84");                    /* group absent, b7 copied */
	V_N(t, 3);
	V_I(t, 0, 4);
	V_ABS(t, 1);
	V_I(t, 2, 3);
	V_INSTR(t, 2, 5);
	DEC_OK(t, "A0 | 85 | 86 C2");            /* [0,1,0] */
	V_N(t, 5);
	V_I(t, 2, 6);
	V_S(t, 3, "B");
	V_I(t, 4, 3);
	/* mandatory group with its own pmap [x8]; template bits [tid, c8] */
	DEC_OK(t, "E0 88 | C0 85 86 | 87");
	V_N(t, 4);
	V_PRES(t, 0);
	V_I(t, 1, 5);
	V_I(t, 2, 6);
	V_I(t, 3, 7);
	DEC_OK(t, "80 | 80 88");                 /* x8 copied, c8 copied */
	V_N(t, 4);
	V_I(t, 1, 5);
	V_I(t, 2, 8);
	V_I(t, 3, 7);
	DEC_TRUNC_ALL(t, "E0 88 | C0 85 86 | 87");
	/* optional group with a pmap of its own: bits [tid, g14, c14], group pmap [x14] */
	DEC_OK(t, "F0 8E | C0 85 | 86");
	V_N(t, 3);
	V_PRES(t, 0);
	V_I(t, 1, 5);
	V_I(t, 2, 6);
	DEC_OK(t, "80");                         /* group absent: no group pmap read */
	V_N(t, 2);
	V_ABS(t, 0);
	V_I(t, 1, 6);
	DEC_OK(t, "E0 8E | 80");                 /* [tid,g14]: group present, x14 and c14 copied */
	V_N(t, 3);
	V_PRES(t, 0);
	V_I(t, 1, 5);
	V_I(t, 2, 6);
	/* optional group inside a sequence element: its bit is in the element pmap */
	DEC_OK(t, "C0 8B | 82 | C0 85 | 80");
	V_N(t, 4);
	V_I(t, 0, 2);
	V_PRES(t, 1);
	V_I(t, 2, 5);
	V_ABS(t, 3);
	fv_free(t);
}

static void test_limits(void)
{
	struct fv *t = fv_new(xml);
	uint8_t *b;
	uint32_t n;
	if (!t)
		return;
	b = malloc(8 + 2 * (FAST_MAX_SEQ_LEN + 1) + 8 + FAST_MAX_STRBUF * 2);
	/* FAST_MAX_SEQ_LEN + 1 = 1025 = 08 81 elements of (1, "A"), all supplied */
	n = 0;
	b[n++] = 0xC0, b[n++] = 0x81, b[n++] = 0x08, b[n++] = 0x81;
	for (int i = 0; i < FAST_MAX_SEQ_LEN + 1; i++)
		b[n++] = 0x81, b[n++] = 0xC1;
	fv_label(t, "sequence of 1025 elements", __LINE__);
	fv_run_buf(t, b, n, FAST_E_SEQ_TOO_LONG, 0, __LINE__);
	fast_dec_reset(&t->dec);
	/* 255 elements of one uInt32: 256 values, exactly FAST_MAX_VALUES */
	n = 0;
	b[n++] = 0xC0, b[n++] = 0x8C, b[n++] = 0x01, b[n++] = 0xFF; /* 255 */
	for (int i = 0; i < 255; i++)
		b[n++] = 0x81;
	fv_label(t, "255 elements: 256 values", __LINE__);
	fv_run_buf(t, b, n, FAST_OK, 0, __LINE__);
	V_N(t, FAST_MAX_VALUES);
	V_I(t, 255, 1);
	/* 300 elements (02 AC): more values than a record holds */
	n = 0;
	b[n++] = 0xC0, b[n++] = 0x8C, b[n++] = 0x02, b[n++] = 0xAC;
	for (int i = 0; i < 300; i++)
		b[n++] = 0x81;
	fv_label(t, "300 elements", __LINE__);
	fv_run_buf(t, b, n, FAST_E_TOO_MANY_VALUES, 0, __LINE__);
	fast_dec_reset(&t->dec);
	/* 64 strings of 64 characters: exactly FAST_MAX_STRBUF bytes */
	n = 0;
	b[n++] = 0xC0, b[n++] = 0x8D, b[n++] = 0xC0; /* 64 */
	for (int i = 0; i < 64; i++) {
		for (int j = 0; j < FAST_MAX_STR - 1; j++)
			b[n++] = 'a';
		b[n++] = 'a' | 0x80;
	}
	fv_label(t, "64 x 64 characters", __LINE__);
	fv_run_buf(t, b, n, FAST_OK, 0, __LINE__);
	V_N(t, 65);
	/* 65 of them: 4160 string bytes */
	n = 0;
	b[n++] = 0xC0, b[n++] = 0x8D, b[n++] = 0xC1; /* 65 (unsigned: one byte) */
	for (int i = 0; i < 65; i++) {
		for (int j = 0; j < FAST_MAX_STR - 1; j++)
			b[n++] = 'a';
		b[n++] = 'a' | 0x80;
	}
	fv_label(t, "65 x 64 characters", __LINE__);
	fv_run_buf(t, b, n, FAST_E_TOO_MANY_VALUES, 0, __LINE__);
	fast_dec_reset(&t->dec);
	free(b);
	fv_free(t);
}

int main(void)
{
	test_plain();
	test_element_pmap();
	test_length_operators();
	test_optional();
	test_nested();
	test_groups();
	test_limits();
	return test_done("fast_seq");
}
