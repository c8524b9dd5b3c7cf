/* test_fast_string.c - FAST 1.1 ASCII strings, unicode strings and byte vectors.
 *
 * Spec §10.6.3 (ASCII string: 7-bit characters, stop bit on the last byte;
 * mandatory 80 = "", 00 80 = "\0"; nullable 80 = NULL, 00 80 = "",
 * 00 00 80 = "\0"; any other leading 00 is overlong, R9), §10.6.4/§10.6.5
 * (unicode string and byte vector: uInt32 length, nullable when optional,
 * then raw bytes). Strings are limited to FAST_MAX_STR bytes
 * (FAST_E_STR_TOO_LONG beyond).
 *
 * Characters: 'A' = 41 (last: C1), 'B' = 42 (C2), 'H' 48, 'e' 65, 'l' 6C,
 * 'o' 6F (last: EF).
 */
#include "test.h"
#include "fast_vec.h"

static const char *xml = FV_XML(
	"<template name='S' id='1'><string name='s1'/></template>\n"
	"<template name='So' id='2'><string name='s2' presence='optional'/></template>\n"
	"<template name='B' id='3'><byteVector name='b3'/></template>\n"
	"<template name='Bo' id='4'><byteVector name='b4' presence='optional'/></template>\n"
	"<template name='U' id='5'><string name='u5' charset='unicode'/></template>\n"
	"<template name='Uo' id='6'><string name='u6' charset='unicode' presence='optional'/></template>\n"
	"<template name='M' id='7'><string name='a7'/><byteVector name='b7'/>"
	"<string name='c7' presence='optional'/><uInt32 name='n7'/></template>\n"
	"<template name='SA' id='8'><string name='s8' charset='ascii'/></template>\n");

static void test_ascii_mandatory(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	DEC_OK(t, "C0 81 | 80");               /* "" */
	V_N(t, 1);
	V_S(t, 0, "");
	DEC_OK(t, "C0 81 | 00 80");            /* "\0": the only legal leading 00 */
	V_SN(t, 0, "\0", 1);
	DEC_OK(t, "C0 81 | C1");               /* "A" */
	V_S(t, 0, "A");
	DEC_OK(t, "C0 81 | 48 65 6C 6C EF");   /* "Hello" */
	V_S(t, 0, "Hello");
	DEC_OK(t, "C0 81 | 41 00 C2");         /* "A\0B": a zero byte inside is a character */
	V_SN(t, 0, "A\0B", 3);
	DEC_OK(t, "C0 81 | 7F FF");            /* two DEL characters */
	V_SN(t, 0, "\x7f\x7f", 2);
	/* R9: leading 00 followed by something else than the 80 of "\0".
	 * The record is delivered; the value is "A" once the redundant zero is
	 * dropped (checked loosely: it ends with 'A'). */
	if (DEC_WARN(t, "C0 81 | 00 C1", W(FAST_E_OVERLONG_STR))) {
		const struct fast_val *v = &t->rec.v[0];
		CHECK(v->present && v->slen >= 1 && v->slen <= 2 && t->rec.str[v->soff + v->slen - 1] == 'A');
	}
	DEC_WARN(t, "C0 81 | 00 00 80", W(FAST_E_OVERLONG_STR));
	/* the explicit charset='ascii' means the same */
	DEC_OK(t, "C0 88 | 41 C2");
	V_S(t, 0, "AB");
	fv_free(t);
}

static void test_ascii_optional(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	DEC_OK(t, "C0 82 | 80");               /* NULL */
	V_N(t, 1);
	V_ABS(t, 0);
	DEC_OK(t, "C0 82 | 00 80");            /* "" */
	V_S(t, 0, "");
	DEC_OK(t, "C0 82 | 00 00 80");         /* "\0" */
	V_SN(t, 0, "\0", 1);
	DEC_OK(t, "C0 82 | C1");               /* "A" (no +1 offset for strings) */
	V_S(t, 0, "A");
	DEC_OK(t, "C0 82 | 48 65 6C 6C EF");
	V_S(t, 0, "Hello");
	DEC_WARN(t, "C0 82 | 00 C1", W(FAST_E_OVERLONG_STR));
	DEC_WARN(t, "C0 82 | 00 00 C1", W(FAST_E_OVERLONG_STR));
	fv_free(t);
}

static void test_ascii_limits(void)
{
	struct fv *t = fv_new(xml);
	char hex[1024];
	int p;
	if (!t)
		return;
	/* FAST_MAX_STR characters: 63 x 'A' then 'A'|0x80 */
	p = snprintf(hex, sizeof hex, "C0 81 |");
	for (int i = 0; i < FAST_MAX_STR - 1; i++)
		p += snprintf(hex + p, sizeof hex - p, " 41");
	snprintf(hex + p, sizeof hex - p, " C1");
	DEC_OK(t, hex);
	{
		char want[FAST_MAX_STR];
		memset(want, 'A', sizeof want);
		V_SN(t, 0, want, FAST_MAX_STR);
	}
	/* one more character */
	p = snprintf(hex, sizeof hex, "C0 81 |");
	for (int i = 0; i < FAST_MAX_STR; i++)
		p += snprintf(hex + p, sizeof hex - p, " 41");
	snprintf(hex + p, sizeof hex - p, " C1");
	DEC_ERR_RESET(t, hex, FAST_E_STR_TOO_LONG);
	/* a string without its stop bit at the end of the input */
	DEC_TRUNC_ALL(t, "C0 81 | 48 65 6C 6C EF");
	DEC_TRUNC_ALL(t, "C0 82 | 00 00 80");
	fv_free(t);
}

static void test_bytes(void)
{
	struct fv *t = fv_new(xml);
	char hex[1024];
	int p;
	if (!t)
		return;
	/* mandatory: uInt32 length then raw bytes (stop bits mean nothing inside) */
	DEC_OK(t, "C0 83 | 80");                 /* length 0 */
	V_N(t, 1);
	V_B(t, 0, "");
	DEC_OK(t, "C0 83 | 83 | 01 02 03");
	V_B(t, 0, "01 02 03");
	DEC_OK(t, "C0 83 | 82 | FF 80");         /* bytes with the top bit set */
	V_B(t, 0, "FF 80");
	DEC_OK(t, "C0 83 | 81 | 00");
	V_B(t, 0, "00");
	DEC_WARN(t, "C0 83 | 00 82 | 41 42", W(FAST_E_OVERLONG_INT)); /* overlong length: R6 */
	V_B(t, 0, "41 42");
	/* optional: nullable length, NULL 80, length n sent as n+1 */
	DEC_OK(t, "C0 84 | 80");
	V_ABS(t, 0);
	DEC_OK(t, "C0 84 | 81");                 /* empty, present */
	V_B(t, 0, "");
	DEC_OK(t, "C0 84 | 84 | 01 02 FF");      /* 3 bytes */
	V_B(t, 0, "01 02 FF");
	/* unicode strings are byte vectors holding UTF-8 */
	DEC_OK(t, "C0 85 | 83 | E4 B8 AD");      /* U+4E2D */
	V_B(t, 0, "E4 B8 AD");
	DEC_OK(t, "C0 85 | 80");
	V_B(t, 0, "");
	DEC_OK(t, "C0 86 | 80");
	V_ABS(t, 0);
	DEC_OK(t, "C0 86 | 81");
	V_B(t, 0, "");
	DEC_OK(t, "C0 86 | 82 | C3");
	V_B(t, 0, "C3");
	/* the length promises more bytes than the input has */
	DEC_ERR(t, "C0 83 | 85 | 01 02", FAST_E_TRUNCATED);
	DEC_TRUNC_ALL(t, "C0 83 | 83 | 01 02 03");
	DEC_TRUNC_ALL(t, "C0 84 | 84 | 01 02 FF");
	/* FAST_MAX_STR bytes fit; one more does not (all bytes supplied) */
	p = snprintf(hex, sizeof hex, "C0 83 | C0 |"); /* 64 = 0x40 unsigned: C0 */
	for (int i = 0; i < FAST_MAX_STR; i++)
		p += snprintf(hex + p, sizeof hex - p, " %02X", i);
	DEC_OK(t, hex);
	if (t->valid)
		CHECK_EQ(t->rec.v[0].slen, FAST_MAX_STR);
	p = snprintf(hex, sizeof hex, "C0 83 | C1 |");
	for (int i = 0; i < FAST_MAX_STR + 1; i++)
		p += snprintf(hex + p, sizeof hex - p, " %02X", i);
	DEC_ERR_RESET(t, hex, FAST_E_STR_TOO_LONG);
	/* a huge length: rejected without reading (or claiming) 4 GB */
	{
		uint8_t b[] = { 0xC0, 0x83, 0x0F, 0x7F, 0x7F, 0x7F, 0xFF, 0x01, 0x02 };
		int rc;
		fv_label(t, "huge byte vector length", __LINE__);
		rc = fast_dec_record(&t->dec, b, sizeof b, &t->used, &t->rec);
		CHECK(rc == FAST_E_STR_TOO_LONG || rc == FAST_E_TRUNCATED);
		CHECK(t->used <= sizeof b);
		fast_dec_reset(&t->dec);
	}
	fv_free(t);
}

/* Several strings in one record: each value points at its own bytes. */
static void test_multi(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* a7="AB" (41 C2) b7=[C3 C4] (82 C3 C4) c7="" (optional: 00 80) n7=5 (85) */
	DEC_OK(t, "C0 87 | 41 C2 | 82 C3 C4 | 00 80 | 85");
	V_N(t, 4);
	V_S(t, 0, "AB");
	V_B(t, 1, "C3 C4");
	V_S(t, 2, "");
	V_I(t, 3, 5);
	for (unsigned k = 0; k < 4; k++)
		V_INSTR(t, k, k);
	if (t->valid) {
		const struct fast_val *v = t->rec.v;
		/* the two non-empty values do not overlap in str[] */
		CHECK(v[0].soff + v[0].slen <= v[1].soff || v[1].soff + v[1].slen <= v[0].soff);
	}
	/* a7="" b7=[] c7=NULL n7=0 */
	DEC_OK(t, "C0 87 | 80 | 80 | 80 | 80");
	V_N(t, 4);
	V_S(t, 0, "");
	V_B(t, 1, "");
	V_ABS(t, 2);
	V_I(t, 3, 0);
	DEC_TRUNC_ALL(t, "C0 87 | 41 C2 | 82 C3 C4 | 00 80 | 85");
	fv_free(t);
}

int main(void)
{
	test_ascii_mandatory();
	test_ascii_optional();
	test_ascii_limits();
	test_bytes();
	test_multi();
	return test_done("fast_string");
}
