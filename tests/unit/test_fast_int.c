/* test_fast_int.c - FAST 1.1 stop-bit integers decoded from hand-written bytes.
 *
 * Spec §10.2 (stop-bit encoding), §10.4 (integers, nullable +1 offset),
 * §10.5.? presence map; errors D2 (value out of the type's range), R6
 * (overlong), plus the decoder's own limits (no stop bit within the type's
 * maximum length, truncated input). Derivations are written next to each
 * vector: a value is split into 7-bit groups, most significant first, the
 * last byte carries the stop bit 0x80; a signed value's first group must
 * carry its sign in bit 6 (0x40), so a positive value whose top group has
 * bit 6 set needs an extra 00 group and a negative one whose top group has
 * bit 6 clear an extra 7F group.
 *
 * Every record here is: pmap C0 (stop bit + bit 0 = template id present),
 * template id 8n (uInt32 n < 64 in one byte), then the field.
 */
#include "test.h"
#include "fast_vec.h"

static const char *xml = FV_XML(
	"<template name='I32' id='1'><int32 name='v'/></template>\n"
	"<template name='U32' id='2'><uInt32 name='v'/></template>\n"
	"<template name='I64' id='3'><int64 name='v'/></template>\n"
	"<template name='U64' id='4'><uInt64 name='v'/></template>\n"
	"<template name='I32o' id='5'><int32 name='v' presence='optional'/></template>\n"
	"<template name='U32o' id='6'><uInt32 name='v' presence='optional'/></template>\n"
	"<template name='I64o' id='7'><int64 name='v' presence='optional'/></template>\n"
	"<template name='U64o' id='8'><uInt64 name='v' presence='optional'/></template>\n"
	"<template name='Mix' id='9'>"
	"<int32 name='a'/><uInt32 name='b'/><int64 name='c'/><uInt64 name='d'/>"
	"<int32 name='e' presence='optional'/><uInt64 name='f' presence='optional'/></template>\n");

struct icase {
	int line;
	const char *tid; /* template id byte */
	const char *val; /* field bytes */
	int rc;
	uint32_t warn;
	int present;
	int64_t v;
};

#define OK(tid, hex, v) { __LINE__, tid, hex, FAST_OK, 0, 1, (int64_t)(v) }
#define NUL(tid, hex) { __LINE__, tid, hex, FAST_OK, 0, 0, 0 }
#define R6(tid, hex, v) { __LINE__, tid, hex, FAST_OK, W(FAST_E_OVERLONG_INT), 1, (int64_t)(v) }
#define ER(tid, hex, e) { __LINE__, tid, hex, e, 0, 0, 0 }

#define I32 "81"
#define U32 "82"
#define I64 "83"
#define U64 "84"
#define I32O "85"
#define U32O "86"
#define I64O "87"
#define U64O "88"

static const struct icase cases[] = {
	/* ---- int32, mandatory (§10.4.1: two's complement, sign in bit 6 of the first group) */
	OK(I32, "80", 0),
	OK(I32, "81", 1),
	OK(I32, "BF", 63),            /* 0x3F: largest one-byte positive (bit 6 clear) */
	OK(I32, "00 C0", 64),         /* 64 = 0x40 has bit 6 set: needs a sign group 00 */
	OK(I32, "FF", -1),            /* 0x7F in 7 bits = -1 */
	OK(I32, "C0", -64),           /* 0x40 in 7 bits = -64: smallest one-byte value */
	OK(I32, "C1", -63),
	OK(I32, "7F BF", -65),        /* 2^14 - 65 = 0x3FBF -> 7F 3F */
	OK(I32, "3F FF", 8191),       /* 0x1FFF -> 3F 7F, bit 6 of 0x3F clear */
	OK(I32, "00 40 80", 8192),    /* 0x2000 -> 40 00 has bit 6 set: extra 00 */
	OK(I32, "40 80", -8192),      /* 0x2000 - 0x4000 */
	OK(I32, "00 40 81", 8193),    /* spec appendix example */
	OK(I32, "7F 3F FF", -8193),   /* spec appendix example: 2^21 - 8193 = 0x1FDFFF -> 7F 3F 7F.
				       * (the README's "73 3F FF" is a typo: see the next line) */
	OK(I32, "73 3F FF", -204801), /* 0x73<<14 | 0x3F<<7 | 0x7F = 0x1CDFFF; - 2^21 = -204801 */
	OK(I32, "39 45 A3", 942755),  /* spec example: 57<<14 + 69<<7 + 35 */
	OK(I32, "46 3A DD", -942755), /* spec example: 2^21 - 942755 = 1154397 = 70,58,93 */
	OK(I32, "07 7F 7F 7F FF", 2147483647),       /* INT32_MAX: 0x7FFFFFFF in 5 groups */
	OK(I32, "78 00 00 00 80", -2147483647 - 1),  /* INT32_MIN: 2^35 - 2^31 = 0x780000000 */
	ER(I32, "08 00 00 00 80", FAST_E_RANGE),     /* 2^31: fits the encoding, not int32 (D2) */
	ER(I32, "77 7F 7F 7F FF", FAST_E_RANGE),     /* -2^31 - 1 (D2) */
	ER(I32, "40 00 00 00 80", FAST_E_RANGE),     /* -2^34: the low 32 bits alone would read 0 */
	ER(I32, "70 00 00 00 80", FAST_E_RANGE),     /* 0x700000000 - 2^35 = -2^32 */
	ER(I32, "7F 7F 7F 7F 7F FF", FAST_E_NO_STOP_BIT), /* 5 bytes without a stop bit */
	ER(I32, "00 00 00 00 00 80", FAST_E_NO_STOP_BIT),
	/* overlong (R6): dropping the first group leaves the same value */
	R6(I32, "00 81", 1),                 /* 81 alone is 1 */
	R6(I32, "7F FF", -1),                /* FF alone is -1 */
	R6(I32, "7F C0", -64),               /* C0 alone is -64 */
	R6(I32, "00 00 C0", 64),             /* 00 C0 is 64 */
	R6(I32, "7F 40 80", -8192),          /* 40 80 is -8192 */
	R6(I32, "00 00 00 00 81", 1),        /* 5 bytes, still within int32's maximum length */
	R6(I32, "7F 7F 7F 7F FF", -1),
	/* not overlong: the first group is needed for the sign */
	OK(I32, "00 FF", 127),               /* FF alone would be -1 */
	OK(I32, "7F 80", -128),              /* 0x3F80 - 0x4000; 80 alone would be 0 */

	/* ---- uInt32, mandatory (§10.4.2: no sign, every group is magnitude) */
	OK(U32, "80", 0),
	OK(U32, "C0", 64),             /* unsigned: bit 6 is data */
	OK(U32, "FF", 127),
	OK(U32, "01 80", 128),
	OK(U32, "7F FF", 16383),
	OK(U32, "01 00 80", 16384),
	OK(U32, "40 80", 8192),
	OK(U32, "39 45 A3", 942755),   /* spec example */
	OK(U32, "0F 7F 7F 7F FF", 4294967295u), /* UINT32_MAX = 0x0F,7F,7F,7F,7F; the brief's "8F 7F.."
						 * would end at its first byte (stop bit) */
	ER(U32, "10 00 00 00 80", FAST_E_RANGE), /* 2^32 (D2) */
	ER(U32, "7F 7F 7F 7F FF", FAST_E_RANGE), /* 2^35 - 1 */
	ER(U32, "20 00 00 00 80", FAST_E_RANGE), /* 2^33: the low 32 bits alone would read 0 */
	ER(U32, "00 00 00 00 00 80", FAST_E_NO_STOP_BIT),
	R6(U32, "00 81", 1),           /* any leading 00 group is redundant for unsigned */
	R6(U32, "00 C0", 64),
	R6(U32, "00 00 00 00 80", 0),
	R6(U32, "00 0F 7F 7F FF", 33554431), /* 0x0F<<21 | 0x1FFFFF: 00 dropped leaves 0F 7F 7F FF */

	/* ---- int64, mandatory: at most 10 bytes (70 bits) */
	OK(I64, "FF", -1),
	OK(I64, "08 00 00 00 80", 2147483648ll),   /* 2^31 fits int64 */
	OK(I64, "77 7F 7F 7F FF", -2147483649ll),
	OK(I64, "00 7F 7F 7F 7F 7F 7F 7F 7F FF", INT64_MAX),  /* 63 one-bits + sign group 00 */
	OK(I64, "7F 00 00 00 00 00 00 00 00 80", INT64_MIN),  /* 2^70 - 2^63: top group 7F */
	ER(I64, "01 00 00 00 00 00 00 00 00 80", FAST_E_RANGE), /* 2^63 */
	ER(I64, "7E 7F 7F 7F 7F 7F 7F 7F 7F FF", FAST_E_RANGE), /* -2^63 - 1 */
	ER(I64, "3F 7F 7F 7F 7F 7F 7F 7F 7F FF", FAST_E_RANGE), /* 2^69 - 1 */
	ER(I64, "40 00 00 00 00 00 00 00 00 80", FAST_E_RANGE), /* -2^69: low 64 bits are 0 */
	ER(I64, "02 00 00 00 00 00 00 00 00 80", FAST_E_RANGE), /* 2^64: low 64 bits are 0 */
	ER(I64, "00 00 00 00 00 00 00 00 00 00 80", FAST_E_NO_STOP_BIT), /* 10 bytes, no stop bit */
	R6(I64, "00 00 00 00 00 00 00 00 00 81", 1),
	R6(I64, "7F 7F 7F 7F 7F 7F 7F 7F 7F FF", -1),

	/* ---- uInt64, mandatory (value is the bit pattern in i) */
	OK(U64, "80", 0),
	OK(U64, "7F 7F 7F 7F 7F 7F 7F 7F FF", INT64_MAX),          /* 2^63 - 1 in 9 bytes */
	OK(U64, "01 00 00 00 00 00 00 00 00 80", INT64_MIN),       /* 2^63 -> 0x8000000000000000 */
	OK(U64, "01 7F 7F 7F 7F 7F 7F 7F 7F FF", -1),              /* UINT64_MAX in 10 bytes */
	ER(U64, "02 00 00 00 00 00 00 00 00 80", FAST_E_RANGE),    /* 2^64 */
	ER(U64, "7F 7F 7F 7F 7F 7F 7F 7F 7F FF", FAST_E_RANGE),    /* 2^70 - 1 */
	ER(U64, "04 00 00 00 00 00 00 00 00 80", FAST_E_RANGE),    /* 2^65: low 64 bits are 0 */
	ER(U64, "00 00 00 00 00 00 00 00 00 00 80", FAST_E_NO_STOP_BIT),
	R6(U64, "00 7F 7F 7F 7F 7F 7F 7F 7F FF", INT64_MAX),       /* the 00 group is redundant */

	/* ---- nullable int32 (§10.4.1: NULL = 80, x >= 0 sent as x+1, x < 0 unchanged) */
	NUL(I32O, "80"),
	OK(I32O, "81", 0),
	OK(I32O, "82", 1),
	OK(I32O, "FF", -1),
	OK(I32O, "C0", -64),
	OK(I32O, "C1", -63),
	OK(I32O, "00 C0", 63),                 /* 63 + 1 = 64 -> 00 C0 */
	OK(I32O, "39 45 A4", 942755),          /* spec example: 942756 */
	OK(I32O, "46 3A DD", -942755),         /* negative: unchanged */
	OK(I32O, "08 00 00 00 80", 2147483647),   /* INT32_MAX + 1 = 2^31 is on the wire */
	OK(I32O, "78 00 00 00 80", -2147483647 - 1),
	ER(I32O, "08 00 00 00 81", FAST_E_RANGE), /* 2^31 + 1 - 1 = 2^31 */
	ER(I32O, "77 7F 7F 7F FF", FAST_E_RANGE),
	R6(I32O, "00 81", 0),
	R6(I32O, "7F FF", -1),

	/* ---- nullable uInt32 */
	NUL(U32O, "80"),
	OK(U32O, "81", 0),
	OK(U32O, "82", 1),
	OK(U32O, "39 45 A4", 942755),
	OK(U32O, "10 00 00 00 80", 4294967295u), /* UINT32_MAX + 1 = 2^32 on the wire */
	ER(U32O, "10 00 00 00 81", FAST_E_RANGE),
	R6(U32O, "00 82", 1),

	/* ---- nullable int64 */
	NUL(I64O, "80"),
	OK(I64O, "81", 0),
	OK(I64O, "FF", -1),
	OK(I64O, "01 00 00 00 00 00 00 00 00 80", INT64_MAX),   /* 2^63 on the wire */
	OK(I64O, "7F 00 00 00 00 00 00 00 00 80", INT64_MIN),
	ER(I64O, "01 00 00 00 00 00 00 00 00 81", FAST_E_RANGE),
	ER(I64O, "7E 7F 7F 7F 7F 7F 7F 7F 7F FF", FAST_E_RANGE),

	/* ---- nullable uInt64: UINT64_MAX + 1 = 2^64 still fits 10 bytes */
	NUL(U64O, "80"),
	OK(U64O, "81", 0),
	OK(U64O, "01 7F 7F 7F 7F 7F 7F 7F 7F FF", -2),            /* 2^64 - 1 - 1 */
	OK(U64O, "02 00 00 00 00 00 00 00 00 80", -1),            /* UINT64_MAX */
	ER(U64O, "02 00 00 00 00 00 00 00 00 81", FAST_E_RANGE),
	ER(U64O, "00 00 00 00 00 00 00 00 00 00 80", FAST_E_NO_STOP_BIT),
};

static void test_table(void)
{
	struct fv *t = fv_new(xml);
	char hex[256];
	if (!t)
		return;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct icase *c = &cases[i];
		snprintf(hex, sizeof hex, "C0 %s | %s", c->tid, c->val);
		fv_run(t, hex, c->rc, c->warn, c->line);
		if (c->rc != FAST_OK)
			continue;
		fv_chk_n(t, 1, c->line);
		fv_chk_tid(t, (uint32_t)(strtoul(c->tid, NULL, 16) & 0x7f), c->line);
		if (c->present)
			fv_chk_int(t, 0, c->v, c->line);
		else
			fv_chk_abs(t, 0, c->line);
		fv_chk_instr(t, 0, 0, c->line);
	}
	fv_free(t);
}

/* Several integers back to back: each one ends exactly at its stop bit. */
static void test_mixed(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* a=-1 (FF) b=1 (81) c=64 (00 C0) d=0 (80) e=NULL (80) f=UINT64_MAX (nullable: 2^64) */
	DEC_OK(t, "C0 89 | FF | 81 | 00 C0 | 80 | 80 | 02 00 00 00 00 00 00 00 00 80");
	V_N(t, 6);
	V_TID(t, 9);
	V_I(t, 0, -1);
	V_I(t, 1, 1);
	V_I(t, 2, 64);
	V_I(t, 3, 0);
	V_ABS(t, 4);
	V_U64(t, 5, UINT64_MAX);
	for (unsigned k = 0; k < 6; k++)
		V_INSTR(t, k, k);
	/* an R6 in the middle is reported once and the rest still decodes */
	DEC_WARN(t, "C0 89 | FF | 00 81 | 81 | 81 | 82 | 81", W(FAST_E_OVERLONG_INT));
	V_I(t, 0, -1);
	V_I(t, 1, 1);
	V_I(t, 2, 1);
	V_I(t, 3, 1);
	V_I(t, 4, 1);
	V_U64(t, 5, 0);
	fv_free(t);
}

/* Input ending anywhere inside a record is FAST_E_TRUNCATED (exact-size
 * buffers: ASan catches a read of the byte after the end). */
static void test_truncated(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	DEC_TRUNC_ALL(t, "C0 81 | 07 7F 7F 7F FF");
	DEC_TRUNC_ALL(t, "C0 83 | 7F 00 00 00 00 00 00 00 00 80");
	DEC_TRUNC_ALL(t, "C0 84 | 01 7F 7F 7F 7F 7F 7F 7F 7F FF");
	DEC_TRUNC_ALL(t, "C0 88 | 02 00 00 00 00 00 00 00 00 80");
	DEC_TRUNC_ALL(t, "C0 89 | FF | 81 | 00 C0 | 80 | 80 | 81");
	/* an integer that has not ended when the input ends */
	DEC_ERR(t, "C0 81 | 07 7F", FAST_E_TRUNCATED);
	DEC_ERR(t, "C0 81", FAST_E_TRUNCATED);
	fv_free(t);
}

int main(void)
{
	test_table();
	test_mixed();
	test_truncated();
	return test_done("fast_int");
}
