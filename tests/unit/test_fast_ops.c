/* test_fast_ops.c - every FAST 1.1 field operator, mandatory and optional.
 *
 * Spec §6.3 (field operators) and the table in shared/fast/README.md:
 *   constant   mandatory: no bit, never sent; optional: 1 bit, set = constant
 *   copy/incr/default: 1 bit; optional values are nullable
 *   delta: no bit; optional delta is nullable
 *   tail: 1 bit; optional value is nullable
 * Dictionary rules §6.3.1: entries undefined / assigned / empty.
 *
 * Records start with the pmap. Bit order: template id first, then one bit
 * per field that needs one, in field order. A pmap byte holds 7 bits,
 * 0x40 first; 0x80 is the stop bit. Examples: [tid] = C0, [tid,f] = E0,
 * [0,f] = A0, [0,0] = 80, [tid,f,g] = F0, [tid,f,g,h] = F8.
 * Template ids < 64 are one byte 80|id. Field names are distinct per
 * template (the dictionary is global, keyed by name) unless sharing is meant.
 */
#include "test.h"
#include "fast_vec.h"

static const char *xml = FV_XML(
	/* 1: constants */
	"<template name='Const' id='1'>"
	"<uInt32 name='c1'><constant value='7'/></uInt32>"
	"<uInt32 name='c1o' presence='optional'><constant value='9'/></uInt32>"
	"<uInt32 name='x1'/>"
	"<string name='cs1'><constant value='ABC'/></string>"
	"<string name='cs1o' presence='optional'><constant value='Q'/></string>"
	"</template>\n"
	/* 2..8: copy */
	"<template name='Cp2' id='2'><uInt32 name='cp2'><copy/></uInt32></template>\n"
	"<template name='Cp3' id='3'><uInt32 name='cp3'><copy value='10'/></uInt32></template>\n"
	"<template name='Cp4' id='4'><uInt32 name='cp4' presence='optional'><copy/></uInt32></template>\n"
	"<template name='Cp5' id='5'><uInt32 name='cp5' presence='optional'><copy value='3'/></uInt32></template>\n"
	"<template name='Cp6' id='6'><string name='cp6'><copy/></string></template>\n"
	"<template name='Cp7' id='7'><string name='cp7' presence='optional'><copy/></string></template>\n"
	"<template name='Cp8' id='8'><string name='cp8'><copy value=''/></string></template>\n"
	/* 9: default */
	"<template name='Df9' id='9'>"
	"<uInt32 name='df9'><default value='4'/></uInt32>"
	"<uInt32 name='df9o' presence='optional'><default/></uInt32>"
	"<uInt32 name='df9i' presence='optional'><default value='5'/></uInt32>"
	"<string name='df9s'><default value='XY'/></string>"
	"</template>\n"
	/* 10..15: increment */
	"<template name='In10' id='10'><uInt32 name='in10'><increment/></uInt32></template>\n"
	"<template name='In11' id='11'><int32 name='in11'><increment/></int32></template>\n"
	"<template name='In12' id='12'><uInt64 name='in12'><increment/></uInt64></template>\n"
	"<template name='In13' id='13'><int64 name='in13'><increment/></int64></template>\n"
	"<template name='In14' id='14'><uInt32 name='in14'><increment value='100'/></uInt32></template>\n"
	"<template name='In15' id='15'><uInt32 name='in15' presence='optional'><increment/></uInt32></template>\n"
	/* 16..20: integer delta */
	"<template name='Dl16' id='16'><int32 name='dl16'><delta/></int32></template>\n"
	"<template name='Dl17' id='17'><int32 name='dl17' presence='optional'><delta value='10'/></int32></template>\n"
	"<template name='Dl18' id='18'><int64 name='dl18'><delta/></int64></template>\n"
	"<template name='Dl19' id='19'><uInt64 name='dl19'><delta/></uInt64></template>\n"
	"<template name='Dl20' id='20'><uInt32 name='dl20'><delta/></uInt32></template>\n"
	/* 21..23: string and byte vector delta */
	"<template name='Ds21' id='21'><string name='ds21'><delta/></string></template>\n"
	"<template name='Ds22' id='22'><string name='ds22' presence='optional'><delta value='HELLO'/></string></template>\n"
	"<template name='Bd23' id='23'><byteVector name='bd23'><delta/></byteVector></template>\n"
	/* 24..29: tail */
	"<template name='Tl24' id='24'><string name='tl24'><tail value='ABCDE'/></string></template>\n"
	"<template name='Tl25' id='25'><string name='tl25'><tail/></string></template>\n"
	"<template name='Tl26' id='26'><string name='tl26'><tail value=''/></string></template>\n"
	"<template name='Tl27' id='27'><string name='tl27' presence='optional'><tail value='ABCDE'/></string></template>\n"
	"<template name='Tl28' id='28'><string name='tl28' presence='optional'><tail/></string></template>\n"
	"<template name='Tb29' id='29'><byteVector name='tb29'><tail/></byteVector></template>\n"
	/* 30..33: a key shared between an optional and a mandatory field */
	"<template name='K30' id='30'>"
	"<uInt32 name='k30a' presence='optional'><copy key='K30'/></uInt32>"
	"<uInt32 name='k30b'><copy key='K30'/></uInt32></template>\n"
	"<template name='K31' id='31'>"
	"<string name='k31a' presence='optional'><tail key='K31'/></string>"
	"<string name='k31b'><tail key='K31'/></string></template>\n"
	"<template name='K32' id='32'>"
	"<uInt32 name='k32a' presence='optional'><copy key='K32'/></uInt32>"
	"<uInt32 name='k32b'><delta key='K32'/></uInt32></template>\n"
	"<template name='K33' id='33'>"
	"<uInt32 name='k33a' presence='optional'><increment key='K33'/></uInt32>"
	"<uInt32 name='k33b'><increment key='K33'/></uInt32></template>\n"
	/* 34, 35: 64-bit copies whose values look like -1 */
	"<template name='Cp34' id='34'><uInt64 name='cp34' presence='optional'><copy/></uInt64></template>\n"
	"<template name='Cp35' id='35'><int64 name='cp35' presence='optional'><copy/></int64>"
	"<uInt32 name='in35' presence='optional'><increment value='5'/></uInt32>"
	"<string name='tl35'><tail/></string></template>\n");

static void test_constant(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* bits [tid, c1o, cs1o]: mandatory constants take none */
	DEC_OK(t, "F0 81 | 85");                 /* c1o and cs1o set, x1 = 5 */
	V_N(t, 5);
	V_I(t, 0, 7);
	V_I(t, 1, 9);
	V_I(t, 2, 5);
	V_S(t, 3, "ABC");
	V_S(t, 4, "Q");
	for (unsigned k = 0; k < 5; k++)
		V_INSTR(t, k, k);
	DEC_OK(t, "80 | 86");                    /* both optional constants absent */
	V_N(t, 5);
	V_I(t, 0, 7);
	V_ABS(t, 1);
	V_I(t, 2, 6);
	V_S(t, 3, "ABC");
	V_ABS(t, 4);
	DEC_OK(t, "A0 | 87");                    /* [0,1,0]: c1o only */
	V_I(t, 1, 9);
	V_ABS(t, 4);
	DEC_TRUNC_ALL(t, "F0 81 | 85");
	fv_free(t);
}

static void test_copy(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* mandatory, no initial value */
	DEC_ERR_RESET(t, "C0 82", FAST_E_MANDATORY_UNDEF);   /* D5 */
	DEC_OK(t, "E0 82 | 85");
	V_I(t, 0, 5);
	DEC_OK(t, "80");
	V_I(t, 0, 5);
	DEC_OK(t, "A0 | 8A");
	V_I(t, 0, 10);
	DEC_OK(t, "80");
	V_I(t, 0, 10);
	/* mandatory, initial value 10 */
	DEC_OK(t, "C0 83");
	V_I(t, 0, 10);
	DEC_OK(t, "80");
	V_I(t, 0, 10);
	DEC_OK(t, "A0 | 81");
	V_I(t, 0, 1);
	DEC_OK(t, "80");
	V_I(t, 0, 1);
	/* optional, no initial value: undefined -> absent (and empty) */
	DEC_OK(t, "C0 84");
	V_ABS(t, 0);
	DEC_OK(t, "80");
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 86");                    /* 5 sent as 6 */
	V_I(t, 0, 5);
	DEC_OK(t, "80");
	V_I(t, 0, 5);
	DEC_OK(t, "A0 | 80");                    /* NULL: absent, entry empty */
	V_ABS(t, 0);
	DEC_OK(t, "80");
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 81");                    /* 0 */
	V_I(t, 0, 0);
	/* optional, initial value 3: empty is not undefined */
	DEC_OK(t, "C0 85");
	V_I(t, 0, 3);
	DEC_OK(t, "A0 | 80");
	V_ABS(t, 0);
	DEC_OK(t, "80");                         /* empty -> absent, not the initial value */
	V_ABS(t, 0);
	/* strings */
	DEC_ERR_RESET(t, "C0 86", FAST_E_MANDATORY_UNDEF);
	DEC_OK(t, "E0 86 | 41 C2");
	V_S(t, 0, "AB");
	DEC_OK(t, "80");
	V_S(t, 0, "AB");
	DEC_OK(t, "A0 | 80");                    /* "" is a value */
	V_S(t, 0, "");
	DEC_OK(t, "80");
	V_S(t, 0, "");
	DEC_OK(t, "E0 87 | 80");                 /* optional NULL */
	V_ABS(t, 0);
	DEC_OK(t, "80");
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 00 80");                 /* optional "" */
	V_S(t, 0, "");
	DEC_OK(t, "80");
	V_S(t, 0, "");
	/* initial value "" is an initial value (not "none"): no D5 */
	DEC_OK(t, "C0 88");
	V_S(t, 0, "");
	DEC_OK(t, "A0 | C1");
	V_S(t, 0, "A");
	DEC_OK(t, "80");
	V_S(t, 0, "A");
	fv_free(t);
}

static void test_default(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* bits [tid, df9, df9o, df9i, df9s] */
	DEC_OK(t, "C0 89");
	V_N(t, 4);
	V_I(t, 0, 4);
	V_ABS(t, 1);
	V_I(t, 2, 5);
	V_S(t, 3, "XY");
	/* [1,1,1,1,1] = FC: df9 = 1, df9o = 1 (sent 2), df9i NULL, df9s = "Z" */
	DEC_OK(t, "FC 89 | 81 | 82 | 80 | DA");
	V_I(t, 0, 1);
	V_I(t, 1, 1);
	V_ABS(t, 2);
	V_S(t, 3, "Z");
	/* all clear again: the defaults, whatever was sent before */
	DEC_OK(t, "80");
	V_I(t, 0, 4);
	V_ABS(t, 1);
	V_I(t, 2, 5);
	V_S(t, 3, "XY");
	/* [0,1,0,0] = A0: df9 = 0 */
	DEC_OK(t, "A0 | 80");
	V_I(t, 0, 0);
	V_I(t, 2, 5);
	DEC_TRUNC_ALL(t, "FC 89 | 81 | 82 | 80 | DA");
	fv_free(t);
}

static void test_increment(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	DEC_ERR_RESET(t, "C0 8A", FAST_E_MANDATORY_UNDEF);
	DEC_OK(t, "E0 8A | 85");
	V_I(t, 0, 5);
	DEC_OK(t, "80");
	V_I(t, 0, 6);
	DEC_OK(t, "80");
	V_I(t, 0, 7);
	DEC_OK(t, "A0 | 81");
	V_I(t, 0, 1);
	DEC_OK(t, "80");
	V_I(t, 0, 2);
	/* wrap at the type's maximum */
	DEC_OK(t, "A0 | 0F 7F 7F 7F FF");        /* UINT32_MAX */
	V_I(t, 0, 4294967295u);
	DEC_OK(t, "80");
	V_I(t, 0, 0);
	DEC_OK(t, "E0 8B | 07 7F 7F 7F FF");     /* INT32_MAX */
	V_I(t, 0, 2147483647);
	DEC_OK(t, "80");
	V_I(t, 0, -2147483647 - 1);
	DEC_OK(t, "80");
	V_I(t, 0, -2147483647);
	DEC_OK(t, "E0 8C | 01 7F 7F 7F 7F 7F 7F 7F 7F FF"); /* UINT64_MAX */
	V_U64(t, 0, UINT64_MAX);
	DEC_OK(t, "80");
	V_U64(t, 0, 0);
	DEC_OK(t, "E0 8D | 00 7F 7F 7F 7F 7F 7F 7F 7F FF"); /* INT64_MAX */
	V_I(t, 0, INT64_MAX);
	DEC_OK(t, "80");
	V_I(t, 0, INT64_MIN);
	/* initial value 100 */
	DEC_OK(t, "C0 8E");
	V_I(t, 0, 100);
	DEC_OK(t, "80");
	V_I(t, 0, 101);
	/* optional */
	DEC_OK(t, "C0 8F");                      /* undefined, no initial value: absent */
	V_ABS(t, 0);
	DEC_OK(t, "80");                         /* empty: absent */
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 83");                    /* 2 */
	V_I(t, 0, 2);
	DEC_OK(t, "80");
	V_I(t, 0, 3);
	DEC_OK(t, "A0 | 80");                    /* NULL: empty */
	V_ABS(t, 0);
	DEC_OK(t, "80");
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 81");                    /* 0 */
	V_I(t, 0, 0);
	DEC_OK(t, "80");
	V_I(t, 0, 1);
	fv_free(t);
}

static void test_int_delta(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* int32, mandatory, base 0 */
	DEC_OK(t, "C0 90 | 85");
	V_I(t, 0, 5);
	DEC_OK(t, "80 | FF");
	V_I(t, 0, 4);
	DEC_OK(t, "80 | 80");
	V_I(t, 0, 4);
	DEC_OK(t, "80 | 07 7F 7F 7F FB");        /* + 2147483643 = INT32_MAX */
	V_I(t, 0, 2147483647);
	DEC_ERR_RESET(t, "80 | 81", FAST_E_RANGE); /* INT32_MAX + 1 does not fit int32 */
	DEC_OK(t, "C0 90 | 78 00 00 00 80");     /* 0 - 2^31 = INT32_MIN */
	V_I(t, 0, -2147483647 - 1);
	DEC_OK(t, "80 | 0F 7F 7F 7F FF");        /* + (2^32 - 1): an int64 delta -> INT32_MAX */
	V_I(t, 0, 2147483647);
	DEC_OK(t, "80 | 70 00 00 00 81");        /* - (2^32 - 1) -> INT32_MIN */
	V_I(t, 0, -2147483647 - 1);
	DEC_ERR_RESET(t, "80 | FF", FAST_E_RANGE);
	/* int32, optional, initial value 10: nullable delta */
	DEC_OK(t, "C0 91 | 80");                 /* NULL: absent */
	V_ABS(t, 0);
	DEC_OK(t, "80 | 83");                    /* base 10 (initial) + 2 */
	V_I(t, 0, 12);
	DEC_OK(t, "80 | 80");
	V_ABS(t, 0);
	DEC_OK(t, "80 | FF");                    /* -1, unchanged: NULL did not touch the base */
	V_I(t, 0, 11);
	DEC_OK(t, "80 | 81");                    /* +0 */
	V_I(t, 0, 11);
	/* int64 edges (no signed overflow inside the decoder: UBSan watches) */
	DEC_OK(t, "C0 92 | 00 7F 7F 7F 7F 7F 7F 7F 7F FF");  /* 0 + INT64_MAX */
	V_I(t, 0, INT64_MAX);
	DEC_OK(t, "80 | 7F 00 00 00 00 00 00 00 00 80");     /* + INT64_MIN = -1 */
	V_I(t, 0, -1);
	DEC_ERR_RESET(t, "80 | 7F 00 00 00 00 00 00 00 00 80", FAST_E_RANGE); /* -1 + INT64_MIN */
	DEC_OK(t, "C0 92 | 7F 00 00 00 00 00 00 00 00 80");  /* INT64_MIN */
	V_I(t, 0, INT64_MIN);
	DEC_OK(t, "80 | 00 7F 7F 7F 7F 7F 7F 7F 7F FF");     /* + INT64_MAX = -1 */
	V_I(t, 0, -1);
	DEC_OK(t, "80 | 81");
	V_I(t, 0, 0);
	DEC_OK(t, "80 | 7F 00 00 00 00 00 00 00 00 80");     /* INT64_MIN again */
	V_I(t, 0, INT64_MIN);
	DEC_ERR_RESET(t, "80 | FF", FAST_E_RANGE);
	/* uInt64: results up to UINT64_MAX through int64 deltas */
	DEC_OK(t, "C0 93 | 00 7F 7F 7F 7F 7F 7F 7F 7F FF");  /* 2^63 - 1 */
	V_U64(t, 0, INT64_MAX);
	DEC_OK(t, "80 | 00 7F 7F 7F 7F 7F 7F 7F 7F FF");     /* 2^64 - 2 */
	V_U64(t, 0, UINT64_MAX - 1);
	DEC_OK(t, "80 | 81");
	V_U64(t, 0, UINT64_MAX);
	DEC_OK(t, "80 | FF");
	V_U64(t, 0, UINT64_MAX - 1);
	DEC_OK(t, "80 | 81");
	V_U64(t, 0, UINT64_MAX);
	DEC_ERR_RESET(t, "80 | 81", FAST_E_RANGE);           /* 2^64 */
	DEC_ERR_RESET(t, "C0 93 | FF", FAST_E_RANGE);        /* 0 - 1 */
	/* uInt32 */
	DEC_OK(t, "C0 94 | 0F 7F 7F 7F FF");     /* UINT32_MAX */
	V_I(t, 0, 4294967295u);
	DEC_OK(t, "80 | 70 00 00 00 81");        /* - (2^32 - 1) */
	V_I(t, 0, 0);
	DEC_ERR_RESET(t, "80 | FF", FAST_E_RANGE);
	fv_free(t);
}

static void test_string_delta(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* subtraction length (int32) then the string; base "" */
	DEC_OK(t, "C0 95 | 80 | 41 42 43 C4");   /* remove 0, append "ABCD" */
	V_S(t, 0, "ABCD");
	DEC_OK(t, "80 | 82 | 45 C6");            /* remove 2 from the end, append "EF" */
	V_S(t, 0, "ABEF");
	DEC_OK(t, "80 | FF | D8");               /* -1: front, remove 0 (excess-1), prepend "X" */
	V_S(t, 0, "XABEF");
	DEC_OK(t, "80 | FD | 59 DA");            /* -3: front, remove 2, prepend "YZ" */
	V_S(t, 0, "YZBEF");
	DEC_OK(t, "80 | 80 | 80");               /* nothing changes */
	V_S(t, 0, "YZBEF");
	DEC_OK(t, "80 | 85 | 80");               /* remove all 5 */
	V_S(t, 0, "");
	DEC_ERR_RESET(t, "80 | 81 | 80", FAST_E_SUBTRACT_LEN); /* D7: 1 > 0 */
	DEC_OK(t, "C0 95 | 80 | 48 45 4C 4C CF"); /* "HELLO" */
	V_S(t, 0, "HELLO");
	DEC_OK(t, "80 | FA | 80");               /* -6: remove 5 from the front */
	V_S(t, 0, "");
	DEC_OK(t, "80 | 80 | 48 45 4C 4C CF");
	V_S(t, 0, "HELLO");
	DEC_ERR_RESET(t, "80 | F9 | 80", FAST_E_SUBTRACT_LEN); /* -7: remove 6 > 5 */
	DEC_OK(t, "C0 95 | 80 | 48 45 4C 4C CF");
	DEC_ERR_RESET(t, "80 | 86 | 80", FAST_E_SUBTRACT_LEN); /* 6 > 5 */
	/* optional with initial value "HELLO": nullable subtraction length */
	DEC_OK(t, "C0 96 | 80");                 /* NULL: absent, no string follows */
	V_ABS(t, 0);
	DEC_OK(t, "80 | 82 | 50 A1");            /* 1 (sent 2): "HELL" + "P!" */
	V_S(t, 0, "HELLP!");
	DEC_OK(t, "80 | FF | BE");               /* -1 (negative unchanged): prepend ">" */
	V_S(t, 0, ">HELLP!");
	DEC_OK(t, "80 | 81 | 80");               /* 0, "" */
	V_S(t, 0, ">HELLP!");
	DEC_TRUNC_ALL(t, "80 | 82 | 50 A1");
	/* extreme subtraction lengths: INT32_MIN means "remove 2^31 - 1 from the
	 * front" (excess-1; a decoder negating it overflows), INT32_MAX "remove
	 * 2^31 - 1 from the end": both larger than the base, D7 */
	DEC_OK(t, "C0 95 | 80 | 48 45 4C 4C CF");
	DEC_ERR_RESET(t, "80 | 78 00 00 00 80 | 80", FAST_E_SUBTRACT_LEN);
	DEC_OK(t, "C0 95 | 80 | 48 45 4C 4C CF");
	DEC_ERR_RESET(t, "80 | 07 7F 7F 7F FF | 80", FAST_E_SUBTRACT_LEN);
	/* a subtraction length outside int32 is D7 by the spec's delta rules
	 * (or D2 when read as an int32 first): either way an error */
	DEC_OK(t, "C0 95 | 80 | 48 45 4C 4C CF");
	{
		uint8_t *b = malloc(7);
		int rc;
		memcpy(b, "\x80\x08\x00\x00\x00\x80\x80", 7); /* 80 | 08 00 00 00 80 | 80 */
		rc = fast_dec_record(&t->dec, b, 7, &t->used, &t->rec);
		CHECK(rc == FAST_E_SUBTRACT_LEN || rc == FAST_E_RANGE);
		CHECK(t->used <= 7);
		free(b);
		fast_dec_reset(&t->dec);
	}
	/* growing past FAST_MAX_STR (64) by appending or prepending: the
	 * decoder must refuse rather than write past its dictionary entry */
	{
		char hex[512];
		int p = snprintf(hex, sizeof hex, "C0 95 | 80 |");
		for (int i = 0; i < FAST_MAX_STR - 5; i++)
			p += snprintf(hex + p, sizeof hex - p, " 61");
		snprintf(hex + p, sizeof hex - p, " E1");          /* 60 x 'a' */
		DEC_OK(t, hex);
		DEC_OK(t, "80 | 80 | 62 62 62 E2");                /* + "bbbb": 64 */
		if (t->valid)
			CHECK_EQ(t->rec.v[0].slen, FAST_MAX_STR);
		memcpy(&t->snap, &t->dec, sizeof t->snap);
		DEC_ERR(t, "80 | 80 | E3", FAST_E_STR_TOO_LONG);  /* append: 65 */
		memcpy(&t->dec, &t->snap, sizeof t->dec);
		DEC_ERR(t, "80 | FF | E3", FAST_E_STR_TOO_LONG);  /* prepend: 65 */
		memcpy(&t->dec, &t->snap, sizeof t->dec);
		DEC_OK(t, "80 | 81 | E3");                         /* replace the last: 64 */
		if (t->valid)
			CHECK(t->rec.v[0].slen == FAST_MAX_STR && t->rec.str[t->rec.v[0].soff + 63] == 'c');
		fast_dec_reset(&t->dec);
	}
	/* byte vector delta: the appended part is a length-prefixed byte vector */
	DEC_OK(t, "C0 97 | 80 | 82 01 02");
	V_B(t, 0, "01 02");
	DEC_OK(t, "80 | 81 | 82 03 04");         /* remove 1 from the end */
	V_B(t, 0, "01 03 04");
	DEC_OK(t, "80 | FE | 81 09");            /* -2: remove 1 from the front, prepend 09 */
	V_B(t, 0, "09 03 04");
	fv_free(t);
}

static void test_tail(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* mandatory, initial value "ABCDE" */
	DEC_OK(t, "C0 98");                      /* undefined: the initial value */
	V_S(t, 0, "ABCDE");
	DEC_OK(t, "A0 | 58 D9");                 /* "XY" replaces the last 2 */
	V_S(t, 0, "ABCXY");
	DEC_OK(t, "80");
	V_S(t, 0, "ABCXY");
	DEC_OK(t, "A0 | 31 32 33 34 35 36 B7");  /* longer than the base: the whole value */
	V_S(t, 0, "1234567");
	DEC_OK(t, "A0 | 80");                    /* empty tail: unchanged */
	V_S(t, 0, "1234567");
	/* mandatory, no initial value */
	DEC_ERR_RESET(t, "C0 99", FAST_E_MANDATORY_UNDEF);
	DEC_OK(t, "E0 99 | 58 D9");              /* base "" */
	V_S(t, 0, "XY");
	DEC_OK(t, "A0 | DA");
	V_S(t, 0, "XZ");
	DEC_OK(t, "80");
	V_S(t, 0, "XZ");
	/* initial value "" */
	DEC_OK(t, "C0 9A");
	V_S(t, 0, "");
	DEC_OK(t, "A0 | C1");
	V_S(t, 0, "A");
	/* optional, initial value "ABCDE" */
	DEC_OK(t, "C0 9B");
	V_S(t, 0, "ABCDE");
	DEC_OK(t, "A0 | 80");                    /* NULL: absent, entry empty */
	V_ABS(t, 0);
	DEC_OK(t, "80");
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 58 D9");                 /* base of an empty entry: the initial value */
	V_S(t, 0, "ABCXY");
	DEC_OK(t, "80");
	V_S(t, 0, "ABCXY");
	/* optional, no initial value */
	DEC_OK(t, "C0 9C");
	V_ABS(t, 0);
	DEC_OK(t, "A0 | C1");
	V_S(t, 0, "A");
	DEC_OK(t, "80");
	V_S(t, 0, "A");
	DEC_OK(t, "A0 | 00 80");                 /* optional "" tail: unchanged */
	V_S(t, 0, "A");
	/* byte vector */
	DEC_OK(t, "E0 9D | 82 01 02");
	V_B(t, 0, "01 02");
	DEC_OK(t, "A0 | 81 09");
	V_B(t, 0, "01 09");
	DEC_OK(t, "80");
	V_B(t, 0, "01 09");
	DEC_TRUNC_ALL(t, "A0 | 81 09");
	fv_free(t);
}

static void test_empty_mandatory(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* copy: [tid,a,b] = E0: a NULL empties K30, b clear -> D6 */
	DEC_ERR_RESET(t, "E0 9E | 80", FAST_E_MANDATORY_EMPTY);
	/* a optional copy undefined, no initial value: absent and K30 empty -> b: D6 */
	DEC_ERR_RESET(t, "C0 9E", FAST_E_MANDATORY_EMPTY);
	/* both through the same entry: a = 2, then b = 5 overwrites it */
	DEC_OK(t, "F0 9E | 83 | 85");
	V_I(t, 0, 2);
	V_I(t, 1, 5);
	DEC_OK(t, "80");
	V_I(t, 0, 5);
	V_I(t, 1, 5);
	/* tail */
	DEC_ERR_RESET(t, "E0 9F | 80", FAST_E_MANDATORY_EMPTY);
	/* delta on an empty base: D6 */
	DEC_ERR_RESET(t, "E0 A0 | 80 | 81", FAST_E_MANDATORY_EMPTY);
	/* increment */
	DEC_ERR_RESET(t, "E0 A1 | 80", FAST_E_MANDATORY_EMPTY);
	DEC_OK(t, "E0 A1 | 83");                 /* a = 2, b = 3 */
	V_I(t, 0, 2);
	V_I(t, 1, 3);
	DEC_OK(t, "80");                         /* a = 4, b = 5 */
	V_I(t, 0, 4);
	V_I(t, 1, 5);
	fv_free(t);
}

static void test_64bit_and_misc(void)
{
	struct fv *t = fv_new(xml);
	char hex[512];
	int p;
	if (!t)
		return;
	/* optional uInt64 copy of UINT64_MAX (nullable: 2^64 on the wire): the
	 * stored bit pattern is all ones and must not read as NULL/empty */
	DEC_OK(t, "E0 A2 | 02 00 00 00 00 00 00 00 00 80");
	V_U64(t, 0, UINT64_MAX);
	DEC_OK(t, "80");
	V_U64(t, 0, UINT64_MAX);
	DEC_OK(t, "A0 | 80");
	V_ABS(t, 0);
	DEC_OK(t, "80");
	V_ABS(t, 0);
	/* optional int64 copy of -1 (FF), optional increment with initial value
	 * 5, mandatory tail: bits [tid, cp35, in35, tl35] */
	DEC_OK(t, "F8 A3 | FF | 80 | C1");       /* -1, NULL, "A" */
	V_I(t, 0, -1);
	V_ABS(t, 1);
	V_S(t, 2, "A");
	DEC_OK(t, "80");                         /* -1 copied, empty -> absent, "A" */
	V_I(t, 0, -1);
	V_ABS(t, 1);
	V_S(t, 2, "A");
	fast_dec_reset(&t->dec);
	DEC_OK(t, "E8 A3 | 81 | C2");            /* [tid,cp35,0,tl35]: 0, in35 undefined -> 5, "B" */
	V_I(t, 0, 0);
	V_I(t, 1, 5);
	V_S(t, 2, "B");
	DEC_OK(t, "80");
	V_I(t, 0, 0);
	V_I(t, 1, 6);
	V_S(t, 2, "B");
	/* a tail longer than FAST_MAX_STR */
	p = snprintf(hex, sizeof hex, "88 |");   /* [0,0,0,tl35] */
	for (int i = 0; i < FAST_MAX_STR; i++)
		p += snprintf(hex + p, sizeof hex - p, " 61");
	snprintf(hex + p, sizeof hex - p, " E1");
	DEC_ERR_RESET(t, hex, FAST_E_STR_TOO_LONG);
	fv_free(t);
}

int main(void)
{
	test_constant();
	test_copy();
	test_default();
	test_increment();
	test_int_delta();
	test_string_delta();
	test_tail();
	test_empty_mandatory();
	test_64bit_and_misc();
	return test_done("fast_ops");
}
