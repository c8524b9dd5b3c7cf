/* test_fast_decimal.c - FAST 1.1 decimals, hand-written bytes.
 *
 * Spec §10.6.2: a decimal is an int32 exponent (-63..63, else R1) followed
 * by an int64 mantissa. Optional decimal: the exponent is nullable, the
 * mantissa is not, and no mantissa follows a NULL exponent. §6.3.? with one
 * operator on the whole decimal (copy/default/delta...) or individual
 * operators on <exponent> and <mantissa>: then the mantissa's pmap bit
 * exists only when the exponent is present. The decoder yields ONE value
 * per decimal: i = mantissa, exp = exponent, instr = its first instruction.
 *
 * 942755 = 39 45 A3 (spec example), -2 = FE, 2 = 82 (nullable 2 = 83).
 */
#include "test.h"
#include "fast_vec.h"

static const char *xml = FV_XML(
	"<template name='D' id='1'><decimal name='d1'/></template>\n"
	"<template name='Do' id='2'><decimal name='d2' presence='optional'/></template>\n"
	"<template name='Copy' id='3'><decimal name='d3'><copy/></decimal><uInt32 name='n3'/></template>\n"
	"<template name='CopyO' id='4'><decimal name='d4' presence='optional'><copy/></decimal></template>\n"
	"<template name='Def' id='5'><decimal name='d5'><default value='1.5'/></decimal></template>\n"
	"<template name='DefO' id='6'><decimal name='d6' presence='optional'><default/></decimal></template>\n"
	"<template name='Delta' id='7'><decimal name='d7'><delta/></decimal></template>\n"
	"<template name='DeltaO' id='8'><decimal name='d8' presence='optional'><delta/></decimal></template>\n"
	"<template name='Ind' id='9'><decimal name='d9'><exponent><copy/></exponent>"
	"<mantissa><delta/></mantissa></decimal></template>\n"
	"<template name='IndO' id='10'><decimal name='d10' presence='optional'>"
	"<exponent><default value='-2'/></exponent><mantissa><copy/></mantissa></decimal>"
	"<uInt32 name='q10'><copy/></uInt32></template>\n"
	"<template name='Const' id='11'><decimal name='d11'><constant value='12.34'/></decimal></template>\n"
	"<template name='Two' id='12'><decimal name='d12a'/><decimal name='d12b' presence='optional'/>"
	"<uInt32 name='n12'/></template>\n");

static void test_plain(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* mandatory: exponent int32, mantissa int64 */
	DEC_OK(t, "C0 81 | 82 | 39 45 A3");      /* 942755e2 */
	V_N(t, 1);
	V_D(t, 0, 942755, 2);
	V_INSTR(t, 0, 0);
	DEC_OK(t, "C0 81 | FE | 39 45 A3");      /* 9427.55 */
	V_D(t, 0, 942755, -2);
	DEC_OK(t, "C0 81 | 80 | 80");
	V_D(t, 0, 0, 0);
	DEC_OK(t, "C0 81 | FE | 46 3A DD");      /* -9427.55 */
	V_D(t, 0, -942755, -2);
	DEC_OK(t, "C0 81 | BF | 81");            /* exponent 63: the maximum */
	V_D(t, 0, 1, 63);
	DEC_OK(t, "C0 81 | C1 | 81");            /* exponent -63: the minimum */
	V_D(t, 0, 1, -63);
	DEC_OK(t, "C0 81 | FE | 00 7F 7F 7F 7F 7F 7F 7F 7F FF");
	V_D(t, 0, INT64_MAX, -2);
	DEC_OK(t, "C0 81 | FE | 7F 00 00 00 00 00 00 00 00 80");
	V_D(t, 0, INT64_MIN, -2);
	/* R1: exponent outside -63..63 */
	DEC_ERR_RESET(t, "C0 81 | 00 C0 | 81", FAST_E_EXPONENT); /* 64 */
	DEC_ERR_RESET(t, "C0 81 | C0 | 81", FAST_E_EXPONENT);    /* -64 */
	DEC_ERR_RESET(t, "C0 81 | 01 80 | 81", FAST_E_EXPONENT); /* 128 */
	/* mantissa beyond int64 (D2) */
	DEC_ERR_RESET(t, "C0 81 | FE | 01 00 00 00 00 00 00 00 00 80", FAST_E_RANGE);
	/* overlong exponent: R6, value unchanged */
	DEC_WARN(t, "C0 81 | 7F FE | 39 45 A3", W(FAST_E_OVERLONG_INT));
	V_D(t, 0, 942755, -2);
	DEC_TRUNC_ALL(t, "C0 81 | FE | 39 45 A3");

	/* optional: nullable exponent, plain mantissa */
	DEC_OK(t, "C0 82 | 80");                 /* NULL: nothing follows */
	V_N(t, 1);
	V_ABS(t, 0);
	DEC_OK(t, "C0 82 | 83 | 39 45 A3");      /* exponent 2 sent as 3 */
	V_D(t, 0, 942755, 2);
	DEC_OK(t, "C0 82 | 81 | 80");            /* exponent 0 sent as 1, mantissa 0 is not NULL */
	V_D(t, 0, 0, 0);
	DEC_OK(t, "C0 82 | FE | 39 45 A3");      /* negative exponent: unchanged */
	V_D(t, 0, 942755, -2);
	DEC_OK(t, "C0 82 | 00 C0 | 81");         /* 63 sent as 64 */
	V_D(t, 0, 1, 63);
	DEC_OK(t, "C0 82 | C1 | 81");
	V_D(t, 0, 1, -63);
	DEC_ERR_RESET(t, "C0 82 | 00 C1 | 81", FAST_E_EXPONENT); /* 64 sent as 65 */
	DEC_ERR_RESET(t, "C0 82 | C0 | 81", FAST_E_EXPONENT);    /* -64 */
	DEC_TRUNC_ALL(t, "C0 82 | 83 | 39 45 A3");

	/* two decimals and an integer: the NULL exponent consumes one byte only */
	DEC_OK(t, "C0 8C | FE 39 45 A3 | 80 | 85");
	V_N(t, 3);
	V_D(t, 0, 942755, -2);
	V_ABS(t, 1);
	V_I(t, 2, 5);
	V_INSTR(t, 1, 1);
	V_INSTR(t, 2, 2);
	DEC_OK(t, "C0 8C | 80 80 | FF 81 | 86");
	V_D(t, 0, 0, 0);
	V_D(t, 1, 1, -1);
	V_I(t, 2, 6);
	fv_free(t);
}

static void test_whole_operators(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* copy, mandatory, no initial value: bits [tid, d3] */
	DEC_ERR_RESET(t, "C0 83 | 85", FAST_E_MANDATORY_UNDEF);  /* D5 */
	DEC_OK(t, "E0 83 | FE 39 45 A3 | 81");
	V_N(t, 2);
	V_D(t, 0, 942755, -2);
	V_I(t, 1, 1);
	DEC_OK(t, "80 | 82");                    /* same template, d3 copied */
	V_TID(t, 3);
	V_D(t, 0, 942755, -2);
	V_I(t, 1, 2);
	DEC_OK(t, "A0 | 81 81 | 83");            /* bits [0,1]: new value 1e1 */
	V_D(t, 0, 1, 1);
	V_I(t, 1, 3);

	/* copy, optional: NULL makes the entry empty, then absent */
	DEC_OK(t, "E0 84 | 80");
	V_ABS(t, 0);
	DEC_OK(t, "80");
	V_TID(t, 4);
	V_ABS(t, 0);
	DEC_OK(t, "A0 | FE 39 45 A3");
	V_D(t, 0, 942755, -2);
	DEC_OK(t, "80");
	V_D(t, 0, 942755, -2);

	/* default with initial value 1.5, mandatory */
	DEC_OK(t, "C0 85");
	V_DNUM(t, 0, 15, -1);
	DEC_OK(t, "A0 | FE 39 45 A3");
	V_D(t, 0, 942755, -2);
	DEC_OK(t, "80");                         /* default does not remember */
	V_DNUM(t, 0, 15, -1);

	/* default, optional, no initial value */
	DEC_OK(t, "C0 86");
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 80");
	V_ABS(t, 0);
	DEC_OK(t, "A0 | 83 81");                 /* exponent 2 (sent 3), mantissa 1 */
	V_D(t, 0, 1, 2);

	/* constant 12.34 */
	DEC_OK(t, "C0 8B");
	V_N(t, 1);
	V_DNUM(t, 0, 1234, -2);
	fv_free(t);
}

static void test_delta(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* delta, mandatory: exponent delta and mantissa delta added to the
	 * previous value, base 0e0 when undefined (no pmap bit) */
	DEC_OK(t, "C0 87 | 82 | 39 45 A3");      /* 0+2, 0+942755 */
	V_D(t, 0, 942755, 2);
	DEC_OK(t, "80 | FE | 81");               /* 2-2, 942755+1 */
	V_D(t, 0, 942756, 0);
	DEC_OK(t, "80 | 80 | FF");
	V_D(t, 0, 942755, 0);
	DEC_OK(t, "80 | BF | 80");               /* exponent 0+63 = 63 is fine */
	V_D(t, 0, 942755, 63);
	DEC_ERR_RESET(t, "80 | 81 | 80", FAST_E_EXPONENT); /* 63+1 = 64: R1 */

	/* delta, optional: nullable exponent delta, NULL = absent, no mantissa */
	DEC_OK(t, "C0 88 | 80");
	V_ABS(t, 0);
	DEC_OK(t, "80 | 83 | 39 45 A3");         /* +2 (sent 3), +942755 */
	V_D(t, 0, 942755, 2);
	DEC_OK(t, "80 | 80");                    /* absent; the dictionary keeps 942755e2 */
	V_ABS(t, 0);
	DEC_OK(t, "80 | 81 | 81");               /* +0 (sent 1), +1 */
	V_D(t, 0, 942756, 2);
	DEC_OK(t, "80 | FF | 80");               /* -1 (negative unchanged), +0 */
	V_D(t, 0, 942756, 1);
	DEC_TRUNC_ALL(t, "80 | 81 | 81");
	fv_free(t);
}

static void test_individual(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* exponent copy (1 bit), mantissa delta (no bit): bits [tid, exp] */
	DEC_OK(t, "E0 89 | FE | 39 45 A3");
	V_N(t, 1);                               /* one value for the whole decimal */
	V_D(t, 0, 942755, -2);
	V_INSTR(t, 0, 0);
	DEC_OK(t, "80 | 81");                    /* exponent copied, mantissa +1 */
	V_D(t, 0, 942756, -2);
	DEC_OK(t, "A0 | 82 | FF");               /* exponent 2, mantissa -1 */
	V_D(t, 0, 942755, 2);
	DEC_ERR_RESET(t, "A0 | 00 C0 | 80", FAST_E_EXPONENT); /* copy of 64: R1 */
	DEC_ERR_RESET(t, "C0 89 | 81", FAST_E_MANDATORY_UNDEF); /* exponent copy, undefined: D5 */

	/* optional decimal, exponent default -2 (nullable), mantissa copy;
	 * then q10 copy. Bits: [tid, exp, mant (only if exp present), q10]. */
	/* [1,0,1,1] = D8: exponent -2 by default, mantissa sent, q10 = 5 */
	DEC_OK(t, "D8 8A | 39 45 A3 | 85");
	V_N(t, 2);
	V_D(t, 0, 942755, -2);
	V_I(t, 1, 5);
	V_INSTR(t, 1, 2);                        /* q10 follows DEC_EXP and DEC_MANT */
	/* [0,1,1] = B0: exponent NULL -> absent, no mantissa bit, q10 = 6.
	 * A decoder that took a mantissa bit anyway would read q10's bit as 0
	 * and copy 5. */
	DEC_OK(t, "B0 | 80 | 86");
	V_ABS(t, 0);
	V_I(t, 1, 6);
	/* [0,0,0,0] = 80: exponent default -2, mantissa copied, q10 copied */
	DEC_OK(t, "80");
	V_D(t, 0, 942755, -2);
	V_I(t, 1, 6);
	/* [0,1,1,0] = B0: exponent -1 (FF), mantissa 1, q10 copied */
	DEC_OK(t, "B0 | FF | 81");
	V_D(t, 0, 1, -1);
	V_I(t, 1, 6);
	DEC_TRUNC_ALL(t, "D8 8A | 39 45 A3 | 85");
	fv_free(t);
}

int main(void)
{
	test_plain();
	test_whole_operators();
	test_delta();
	test_individual();
	return test_done("fast_decimal");
}
