/* test_fast_dict.c - FAST 1.1 dictionaries and the template id.
 *
 * Spec §6.3.1-6.3.3: an operator's previous value lives in a dictionary
 * entry named by its key (default: the field name) in a dictionary (default:
 * "global"; "template" scopes it to the template). Entries are undefined,
 * assigned or empty; a reset makes them all undefined. §6.2 / §10.5: the
 * template id is the first bit of the record's pmap and behaves as a copy
 * field on a global key: a clear bit means the previous record's template;
 * undefined -> D5. An id not in the program is D9.
 *
 * Templates (ids < 64 are one byte 80|id on the wire):
 *   1 A: x copy, s copy           2 B: x copy, s copy (same names: shared)
 *   3 C: x copy, dictionary="template" on the template
 *   4 D: x copy with dictionary="template" on the operator
 *   5 E: y increment key="x" (shares the global entry "x")
 *   6 F: z (no operator)          7 H: x optional copy (global "x")
 *   8 I: x optional default key "x"
 *   3201 G: w (no operator), two-byte template id 19 81
 */
#include "test.h"
#include "fast_vec.h"

static const char *xml = FV_XML(
	"<template name='A' id='1'><uInt32 name='x'><copy/></uInt32><string name='s'><copy/></string></template>\n"
	"<template name='B' id='2'><uInt32 name='x'><copy/></uInt32><string name='s'><copy/></string></template>\n"
	"<template name='C' id='3' dictionary='template'><uInt32 name='x'><copy/></uInt32></template>\n"
	"<template name='D' id='4'><uInt32 name='x'><copy dictionary='template'/></uInt32></template>\n"
	"<template name='E' id='5'><uInt32 name='y'><increment key='x'/></uInt32></template>\n"
	"<template name='F' id='6'><uInt32 name='z'/></template>\n"
	"<template name='H' id='7'><uInt32 name='x' presence='optional'><copy/></uInt32></template>\n"
	"<template name='I' id='8'><uInt32 name='x' presence='optional'><default key='x'/></uInt32></template>\n"
	"<template name='G' id='3201'><uInt32 name='w'/></template>\n");

static void test_template_id(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* first record without a template id: the id's entry is undefined (D5) */
	DEC_ERR_RESET(t, "80 | 85", FAST_E_MANDATORY_UNDEF);
	/* unknown template ids: D9 */
	DEC_ERR_RESET(t, "C0 8A | 85", FAST_E_UNKNOWN_TEMPLATE);     /* 10 */
	DEC_ERR_RESET(t, "C0 19 82 | 85", FAST_E_UNKNOWN_TEMPLATE);  /* 3202 */
	DEC_ERR_RESET(t, "C0 80 | 85", FAST_E_UNKNOWN_TEMPLATE);     /* 0 */
	/* id 3201 = 25*128 + 1 -> 19 81 */
	DEC_OK(t, "C0 19 81 | 85");
	V_TID(t, 3201);
	V_N(t, 1);
	V_I(t, 0, 5);
	DEC_OK(t, "80 | 86");                    /* bit clear: 3201 again */
	V_TID(t, 3201);
	V_I(t, 0, 6);
	DEC_OK(t, "C0 86 | 87");                 /* F */
	V_TID(t, 6);
	V_I(t, 0, 7);
	DEC_OK(t, "80 | 88");
	V_TID(t, 6);
	V_I(t, 0, 8);
	DEC_WARN(t, "C0 00 86 | 89", W(FAST_E_OVERLONG_INT)); /* overlong id: R6, still 6 */
	V_TID(t, 6);
	V_I(t, 0, 9);
	/* a reset makes the template id undefined too */
	fast_dec_reset(&t->dec);
	DEC_ERR_RESET(t, "80 | 85", FAST_E_MANDATORY_UNDEF);
	/* an unknown id after a good record is still D9 */
	DEC_OK(t, "C0 86 | 81");
	DEC_ERR(t, "C0 8A | 85", FAST_E_UNKNOWN_TEMPLATE);
	fast_dec_reset(&t->dec);
	DEC_TRUNC_ALL(t, "C0 19 81 | 85");
	fv_free(t);
}

static void test_global(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* A: [tid,x,s] = F0: x = 5, s = "AB" */
	DEC_OK(t, "F0 81 | 85 | 41 C2");
	V_TID(t, 1);
	V_I(t, 0, 5);
	V_S(t, 1, "AB");
	DEC_OK(t, "80");                         /* A again, both copied */
	V_TID(t, 1);
	V_I(t, 0, 5);
	V_S(t, 1, "AB");
	/* B has fields of the same names: the global entries are shared */
	DEC_OK(t, "C0 82");
	V_TID(t, 2);
	V_I(t, 0, 5);
	V_S(t, 1, "AB");
	DEC_OK(t, "E0 82 | 87");                 /* B sets x = 7 */
	V_I(t, 0, 7);
	DEC_OK(t, "C0 81");                      /* A sees it */
	V_I(t, 0, 7);
	V_S(t, 1, "AB");
	/* E increments the entry "x" through its own key */
	DEC_OK(t, "C0 85");
	V_I(t, 0, 8);
	DEC_OK(t, "80");
	V_I(t, 0, 9);
	DEC_OK(t, "C0 81");                      /* copy of the incremented entry */
	V_I(t, 0, 9);
	/* reset: everything undefined */
	fast_dec_reset(&t->dec);
	DEC_ERR_RESET(t, "C0 81", FAST_E_MANDATORY_UNDEF);
	DEC_ERR_RESET(t, "C0 85", FAST_E_MANDATORY_UNDEF);
	DEC_ERR_RESET(t, "E0 81 | 85", FAST_E_MANDATORY_UNDEF); /* s still undefined */
	fv_free(t);
}

static void test_template_scope(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	DEC_OK(t, "F0 81 | 87 | C1");            /* A: global x = 7, s = "A" */
	V_I(t, 0, 7);
	/* C's x lives in C's template dictionary: undefined there */
	DEC_ERR_RESET(t, "C0 83", FAST_E_MANDATORY_UNDEF);
	DEC_OK(t, "F0 81 | 87 | C1");
	DEC_OK(t, "E0 83 | 89");                 /* C: x = 9 in C's dictionary */
	V_I(t, 0, 9);
	DEC_OK(t, "C0 81");                      /* A: global x still 7 */
	V_I(t, 0, 7);
	V_S(t, 1, "A");
	DEC_OK(t, "C0 83");                      /* C: still 9 */
	V_I(t, 0, 9);
	DEC_OK(t, "C0 82");                      /* B: the global 7 */
	V_I(t, 0, 7);
	/* D: dictionary="template" on the operator, same effect */
	DEC_ERR_RESET(t, "C0 84", FAST_E_MANDATORY_UNDEF);
	DEC_OK(t, "F0 81 | 87 | C1");
	DEC_OK(t, "E0 84 | 8B");                 /* D: 11 */
	V_I(t, 0, 11);
	DEC_OK(t, "E0 83 | 8C");                 /* C: 12, not D's 11 */
	V_I(t, 0, 12);
	DEC_OK(t, "C0 84");
	V_I(t, 0, 11);
	DEC_OK(t, "C0 81");
	V_I(t, 0, 7);
	/* a reset also clears template-scoped entries */
	fast_dec_reset(&t->dec);
	DEC_ERR_RESET(t, "C0 83", FAST_E_MANDATORY_UNDEF);
	DEC_ERR_RESET(t, "C0 84", FAST_E_MANDATORY_UNDEF);
	fv_free(t);
}

static void test_states(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* H (optional copy of the global x), undefined, no initial value:
	 * absent, and the entry becomes empty; A's mandatory x is then D6, not D5 */
	DEC_OK(t, "C0 87");
	V_ABS(t, 0);
	DEC_ERR_RESET(t, "C0 81", FAST_E_MANDATORY_EMPTY);
	/* an optional NULL empties the entry */
	DEC_OK(t, "F0 81 | 85 | C1");            /* x = 5 */
	DEC_OK(t, "E0 87 | 80");                 /* H: NULL */
	V_ABS(t, 0);
	DEC_ERR_RESET(t, "C0 81", FAST_E_MANDATORY_EMPTY);
	/* a default NULL leaves the entry alone */
	DEC_OK(t, "F0 81 | 85 | C1");            /* x = 5 */
	DEC_OK(t, "E0 88 | 80");                 /* I: NULL */
	V_ABS(t, 0);
	DEC_OK(t, "C0 81");                      /* still 5 */
	V_I(t, 0, 5);
	DEC_OK(t, "C0 87");                      /* H copies it too */
	V_I(t, 0, 5);
	/* an optional value re-assigns an empty entry */
	DEC_OK(t, "E0 87 | 80");
	DEC_OK(t, "E0 87 | 83");                 /* 2 */
	V_I(t, 0, 2);
	DEC_OK(t, "C0 81");
	V_I(t, 0, 2);
	fv_free(t);
}

/* The decoder's counters: one per record, one per error. */
static void test_counters(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	CHECK_EQ(t->dec.records, 0);
	for (int e = 0; e < FAST_ERR_COUNT; e++)
		CHECK_EQ(t->dec.errors[e], 0);
	DEC_OK(t, "C0 86 | 81");
	DEC_OK(t, "80 | 82");
	DEC_ERR(t, "C0 8A", FAST_E_UNKNOWN_TEMPLATE);
	fast_dec_reset(&t->dec);
	DEC_ERR(t, "80", FAST_E_MANDATORY_UNDEF);
	fast_dec_reset(&t->dec);
	DEC_WARN(t, "C0 86 | 00 81", W(FAST_E_OVERLONG_INT));
	CHECK_EQ(t->dec.records, 3);
	CHECK_EQ(t->dec.errors[FAST_E_UNKNOWN_TEMPLATE], 1);
	CHECK_EQ(t->dec.errors[FAST_E_MANDATORY_UNDEF], 1);
	CHECK_EQ(t->dec.errors[FAST_E_OVERLONG_INT], 1);
	/* a reset does not clear the counters */
	fast_dec_reset(&t->dec);
	CHECK_EQ(t->dec.records, 3);
	CHECK_EQ(t->dec.errors[FAST_E_UNKNOWN_TEMPLATE], 1);
	fv_free(t);
}

/* An int64 and an int32 field may share a key (one integer class): an int32 copy or increment that
 * finds the int64's value beyond its range is out of range (D4: the entry's last type differs), not a
 * 64-bit value in a 32-bit field (fuzz_fast_raw found it); in range it is taken as usual. */
static void test_shared_wider(void)
{
	struct fv *t = fv_new(FV_XML(
		"<template name='L' id='1'><int64 name='v'><copy key='k'/></int64></template>\n"
		"<template name='M' id='2'><int32 name='v'><copy key='k'/></int32></template>\n"
		"<template name='N' id='3'><int32 name='v'><increment key='k'/></int32></template>\n"
		"<template name='P' id='4'><uInt32 name='v'><copy key='k'/></uInt32></template>\n"
		"<template name='Q' id='5'><uInt32 name='v'><increment key='k'/></uInt32></template>\n"));
	if (!t)
		return;
	/* L sets k = 2^36 (the 7-bit groups 02 00 00 00 00 00, the last with its stop bit) */
	DEC_OK(t, "E0 81 | 02 00 00 00 00 80");
	V_I(t, 0, 68719476736LL);
	DEC_ERR(t, "C0 82", FAST_E_RANGE);      /* M: copy of 2^36 into an int32 */
	DEC_ERR(t, "C0 83", FAST_E_RANGE);      /* N: its increment */
	DEC_ERR(t, "C0 84", FAST_E_RANGE);      /* P: uInt32 */
	/* L sets k = -5: M takes it, N increments it, P (unsigned) refuses it */
	DEC_OK(t, "E0 81 | FB");
	V_I(t, 0, -5);
	DEC_OK(t, "C0 82");
	V_I(t, 0, -5);
	DEC_OK(t, "C0 83");
	V_I(t, 0, -4);
	DEC_ERR(t, "C0 84", FAST_E_RANGE);
	/* L sets k = INT64_MAX: a 32-bit increment of it is out of range too, computed without a signed
	 * overflow (the increment added 1 in int64 first: undefined behaviour; fuzz_fastx_diff's generated
	 * programs found it in the encoder, the reference and the fast path) */
	DEC_OK(t, "E0 81 | 00 7F 7F 7F 7F 7F 7F 7F 7F FF");
	V_I(t, 0, INT64_MAX);
	DEC_ERR(t, "C0 83", FAST_E_RANGE);
	DEC_ERR(t, "C0 85", FAST_E_RANGE);
	fv_free(t);
}

/* A uInt64 sharing a key with signed or 32-bit integer fields (FAST_F_MIXED): a uInt64's value from
 * 2^63 up is not a negative number to the others, nor a negative value a large one to a uInt64; each
 * reads back as itself or is out of range (D4), whichever field wrote it and whatever operator reads
 * it. Such templates take the reference (counted fallbacks); the others stay on the fast path. */
static void test_shared_u64(void)
{
	uint32_t i;
	struct fv *t = fv_new(FV_XML(
		"<template name='A' id='1'><uInt64 name='v'><copy key='k'/></uInt64></template>\n"
		"<template name='B' id='2'><int32 name='v'><copy key='k'/></int32></template>\n"
		"<template name='C' id='3'><int64 name='v'><copy key='k'/></int64></template>\n"
		"<template name='D' id='4'><uInt64 name='v'><increment key='k'/></uInt64></template>\n"
		"<template name='E' id='5'><int64 name='v'><delta key='k'/></int64></template>\n"
		"<template name='F' id='6'><uInt64 name='v'><delta key='k'/></uInt64></template>\n"
		"<template name='G' id='7'><int64 name='w'><copy key='j'/></int64></template>\n"
		"<template name='H' id='8'><int32 name='w'><copy key='j'/></int32></template>\n"));
	if (!t)
		return;
	for (i = 0; i < 8; i++) {
		int mixed = i < 6;
		CHECK_EQ((t->prog.instr[t->prog.tpl[i].first].flags & FAST_F_MIXED) != 0, mixed);
		CHECK_EQ(fastx_prog_why(t->xp, i)[0] != 0, mixed);
	}
	/* A sets k = 2^64 - 1: the others' copy and delta refuse it, D's increment wraps as a uInt64's */
	DEC_OK(t, "E0 81 | 01 7F 7F 7F 7F 7F 7F 7F 7F FF");
	V_I(t, 0, -1); /* (the bit pattern of 2^64 - 1) */
	DEC_ERR(t, "C0 82", FAST_E_RANGE); /* B: not -1 */
	DEC_ERR(t, "C0 83", FAST_E_RANGE); /* C */
	DEC_ERR(t, "C0 85 | 80", FAST_E_RANGE); /* E: 2^64 - 1 + 0 */
	DEC_OK(t, "C0 81");
	V_I(t, 0, -1);
	/* A sets k = 2^63: F subtracts 1 (a uInt64 reading a uInt64's), then C reads 2^63 - 1 */
	DEC_OK(t, "E0 81 | 01 00 00 00 00 00 00 00 00 80");
	V_I(t, 0, INT64_MIN);
	DEC_ERR(t, "C0 83", FAST_E_RANGE);
	DEC_OK(t, "C0 86 | FF");
	V_I(t, 0, INT64_MAX);
	DEC_OK(t, "C0 83");
	V_I(t, 0, INT64_MAX);
	/* C sets k = -5: B takes it; a uInt64 refuses it by copy, increment and delta */
	DEC_OK(t, "E0 83 | FB");
	V_I(t, 0, -5);
	DEC_OK(t, "C0 82");
	V_I(t, 0, -5);
	DEC_ERR(t, "C0 81", FAST_E_RANGE);
	DEC_ERR(t, "C0 84", FAST_E_RANGE);
	DEC_ERR(t, "C0 86 | 80", FAST_E_RANGE);
	/* C sets k = 7: a uInt64 takes it, D increments it to 8, and B and C read the uInt64's 8 */
	DEC_OK(t, "E0 83 | 87");
	DEC_OK(t, "C0 81");
	V_I(t, 0, 7);
	DEC_OK(t, "C0 84");
	V_I(t, 0, 8);
	DEC_OK(t, "C0 82");
	V_I(t, 0, 8);
	DEC_OK(t, "C0 83");
	V_I(t, 0, 8);
	fv_free(t);
}

int main(void)
{
	test_template_id();
	test_global();
	test_template_scope();
	test_states();
	test_counters();
	test_shared_wider();
	test_shared_u64();
	return test_done("fast_dict");
}
