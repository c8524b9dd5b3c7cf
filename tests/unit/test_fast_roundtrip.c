/* test_fast_roundtrip.c - the FAST encoder against hand-derived bytes, and
 * encoder -> decoder round trips.
 *
 * (1) Small inline templates, records whose encodings were derived by hand
 *     from the FAST 1.1 rules (each derivation is in the comment above it);
 *     the expected bytes are checked against the encoder and decoded back.
 * (2) Property tests: templates covering every type x operator x presence x
 *     initial value, nested sequences and groups, decimals with individual
 *     operators, keys shared between templates; thousands of random records
 *     (fixed seed, boundary values, NULLs, long strings) encoded and decoded
 *     with and without dictionary resets; every value must come back.
 * (3) The SSE templates in conf/templates with generated ticks: encode ->
 *     STEP -> fast_stream -> fast_tick_map gives the same tick records.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "fast/fast_decode.h"
#include "fast/fast_stream.h"
#include "fast/fast_tick.h"
#include "fast/host/fast_compile.h"
#include "fast/host/fast_encode.h"
#include "feed/sse_gen.h"

static struct fast_prog prog;
static struct fast_names names;
static struct fast_enc enc;
static struct fast_dec dec;
static struct fast_rec rec, got;

static int compile(const char *xml)
{
	char err[512];
	int r = fast_compile_buffer(xml, strlen(xml), "inline", &prog, &names, err, sizeof err);
	if (r)
		fprintf(stderr, "compile failed: %s\n", err);
	CHECK_EQ(r, 0);
	return r;
}

/* ---- comparing records ------------------------------------------------ */

static void dump(const char *what, const uint8_t *p, size_t n)
{
	fprintf(stderr, "  %s:", what);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %02x", p[i]);
	fprintf(stderr, "\n");
}

/* Value by value: instruction, presence, then the value by the kind. */
static int same_rec(const struct fast_rec *a, const struct fast_rec *b, int report)
{
	int ok = a->tid == b->tid && a->tpl == b->tpl && a->nvals == b->nvals;
	if (!ok && report)
		fprintf(stderr, "  record header differs: tid %u/%u tpl %u/%u nvals %u/%u\n", a->tid,
			b->tid, a->tpl, b->tpl, a->nvals, b->nvals);
	for (uint32_t k = 0; ok && k < a->nvals; k++) {
		const struct fast_val *x = &a->v[k], *y = &b->v[k];
		const struct fast_instr *in = &prog.instr[x->instr];
		int same = x->instr == y->instr && x->present == y->present;
		if (same && x->present) {
			switch (in->kind) {
			case FAST_K_ASCII:
			case FAST_K_BYTES:
				same = x->slen == y->slen &&
				       (x->slen == 0 || memcmp(a->str + x->soff, b->str + y->soff, x->slen) == 0);
				break;
			case FAST_K_DECIMAL:
			case FAST_K_DEC_EXP:
				same = x->i == y->i && x->exp == y->exp;
				break;
			case FAST_K_GROUP:
				break;
			default:
				same = x->i == y->i;
			}
		}
		if (!same) {
			if (report)
				fprintf(stderr,
					"  value %u (%s, instr %u/%u) differs: present %d/%d i %lld/%lld exp %d/%d "
					"slen %u/%u\n",
					k, names.field[x->instr], x->instr, y->instr, x->present, y->present,
					(long long)x->i, (long long)y->i, x->exp, y->exp, x->slen, y->slen);
			ok = 0;
		}
	}
	return ok;
}

/* ---- building records by field name ----------------------------------- */

static void rb_start(struct fast_rec *r, uint32_t tid)
{
	int t = fast_prog_find(&prog, tid);
	CHECK(t >= 0);
	memset(r, 0, offsetof(struct fast_rec, v));
	r->tid = tid;
	r->tpl = (uint16_t)(t < 0 ? 0 : t);
}

static uint16_t instr_of(const struct fast_rec *r, const char *name)
{
	const struct fast_tpl *t = &prog.tpl[r->tpl];
	for (uint32_t i = t->first; i < t->end; i++)
		if (prog.instr[i].kind != FAST_K_END && prog.instr[i].kind != FAST_K_DEC_MANT &&
		    strcmp(names.field[i], name) == 0)
			return (uint16_t)i;
	fprintf(stderr, "no field %s\n", name);
	CHECK(0);
	return 0;
}

static struct fast_val *rb_val(struct fast_rec *r, const char *name, int present)
{
	struct fast_val *v = &r->v[r->nvals++];
	memset(v, 0, sizeof *v);
	v->instr = instr_of(r, name);
	v->present = (uint8_t)present;
	return v;
}

static void vi(struct fast_rec *r, const char *name, int present, int64_t i)
{
	rb_val(r, name, present)->i = present ? i : 0;
}

static void vd(struct fast_rec *r, const char *name, int present, int64_t mant, int32_t exp)
{
	struct fast_val *v = rb_val(r, name, present);
	if (present) {
		v->i = mant;
		v->exp = exp;
	}
}

static void vs(struct fast_rec *r, const char *name, int present, const void *s, size_t len)
{
	struct fast_val *v = rb_val(r, name, present);
	if (!present)
		return;
	v->soff = r->nstr;
	v->slen = (uint16_t)len;
	memcpy(r->str + r->nstr, s, len);
	r->nstr = (uint16_t)(r->nstr + len);
}

/* Encode r, expect exactly `hex`; decode `hex` and expect r back. */
static void expect(const struct fast_rec *r, const char *hex, int line)
{
	uint8_t want[256], out[1024];
	size_t wn = test_hex(hex, want, sizeof want);
	int n = fast_enc_record(&enc, r, out, sizeof out);
	CHECK_EQ(n, (long long)wn);
	if (n != (int)wn || memcmp(out, want, wn) != 0) {
		fprintf(stderr, "line %d: encoding differs (rc %d)\n", line, n);
		dump("want", want, wn);
		if (n > 0)
			dump("got ", out, (size_t)n);
		CHECK(0);
	}
	uint32_t used = 0;
	int rc = fast_dec_record(&dec, want, (uint32_t)wn, &used, &got);
	CHECK_EQ(rc, FAST_OK);
	CHECK_EQ(used, wn);
	if (rc == FAST_OK && !same_rec(r, &got, 1)) {
		fprintf(stderr, "line %d: decoded record differs\n", line);
		CHECK(0);
	}
}
#define EXPECT(r, hex) expect((r), (hex), __LINE__)

/* ---- (1) hand-derived encodings --------------------------------------- */

static const char hand_xml[] =
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">"
	"<template name=\"T1\" id=\"1\"><int32 name=\"a1\"><copy/></int32></template>"
	"<template name=\"T2\" id=\"2\">"
	" <int32 name=\"A\"/><int32 name=\"B\"/><uInt32 name=\"C\" presence=\"optional\"/>"
	" <uInt32 name=\"D\" presence=\"optional\"/><int32 name=\"E\" presence=\"optional\"/>"
	" <int64 name=\"F\"/><uInt64 name=\"G\" presence=\"optional\"/>"
	" <int32 name=\"H\" presence=\"optional\"/>"
	" <string name=\"S1\"/><string name=\"S2\"/><string name=\"S3\" presence=\"optional\"/>"
	" <string name=\"S4\" presence=\"optional\"/><string name=\"S5\"/>"
	" <byteVector name=\"V\" presence=\"optional\"/>"
	" <decimal name=\"X\"/><decimal name=\"Y\" presence=\"optional\"/>"
	" <uInt64 name=\"U\"/><int64 name=\"I\" presence=\"optional\"/>"
	"</template>"
	"<template name=\"T3\" id=\"3\"><uInt32 name=\"a3\" presence=\"optional\"><copy/></uInt32></template>"
	"<template name=\"T4\" id=\"4\">"
	" <int32 name=\"a4\" presence=\"optional\"><default value=\"0\"/></int32>"
	" <int32 name=\"b4\" presence=\"optional\"><default/></int32></template>"
	"<template name=\"T5\" id=\"5\"><uInt32 name=\"n5\"><increment value=\"10\"/></uInt32></template>"
	"<template name=\"T6\" id=\"6\"><int64 name=\"p6\"><delta/></int64></template>"
	"<template name=\"T7\" id=\"7\"><string name=\"s7\"><delta/></string></template>"
	"<template name=\"T8\" id=\"8\"><string name=\"t8\"><tail/></string></template>"
	"<template name=\"T9\" id=\"9\"><uInt32 name=\"a9\"/>"
	" <sequence name=\"L9\"><length name=\"NoL9\"/><uInt32 name=\"x9\"><copy/></uInt32></sequence>"
	" <group name=\"G9\" presence=\"optional\"><uInt32 name=\"y9\"/></group></template>"
	"<template name=\"T10\" id=\"10\">"
	" <decimal name=\"d10\" presence=\"optional\"><exponent><copy value=\"-2\"/></exponent>"
	"  <mantissa><delta/></mantissa></decimal></template>"
	"<template name=\"T11\" id=\"11\">"
	" <string name=\"c11\" presence=\"optional\"><constant value=\"X\"/></string>"
	" <int32 name=\"k11\"><constant value=\"7\"/></int32></template>"
	"<template name=\"T12\" id=\"12\"><int32 name=\"m12\"/><string name=\"s12\"/></template>"
	"<template name=\"T14\" id=\"14\"><uInt64 name=\"u14\"><delta/></uInt64></template>"
	"<template name=\"T13\" id=\"13\">"
	" <string name=\"t13\" presence=\"optional\"><tail value=\"AAAA\"/></string></template>"
	"</templates>";

static void test_hand(void)
{
	if (compile(hand_xml))
		return;
	fast_enc_init(&enc, &prog);
	fast_dec_init(&dec, &prog);

	/* T1: mandatory int32 copy, values 5, 5, 6 in one stream.
	 * 1st: pmap bits tid=1 (no previous id), a1=1 (entry undefined, no
	 *      initial value) -> 1100000 -> E0; tid 1 -> 81; 5 -> 85.
	 * 2nd: same tid -> 0, same value -> 0: pmap 80, nothing else.
	 * 3rd: bits 0,1 -> 0100000 -> A0; 6 -> 86. */
	rb_start(&rec, 1);
	vi(&rec, "a1", 1, 5);
	EXPECT(&rec, "E0 81 85");
	EXPECT(&rec, "80");
	rec.v[0].i = 6;
	EXPECT(&rec, "A0 86");

	/* T2: operator none everywhere (no pmap bits but the template id's).
	 * pmap 1000000 -> C0, tid 2 -> 82;
	 * A  +64: needs 2 bytes (1 byte holds -64..63): 0000000 1000000 -> 00 C0
	 * B  -8193: 3 bytes; 2^21 - 8193 = 2088959 = 1111111 0111111 1111111 -> 7F 3F FF
	 *    (the FAST spec's example; README's "73 3F FF" decodes to -204801)
	 * C  optional NULL -> 80;  D optional 0 -> 0+1 -> 81;  E optional -1 -> unchanged -> FF
	 * F  INT64_MIN: 10 bytes, 70-bit two's complement 1111111 then 63 zero bits
	 *    -> 7F 00 00 00 00 00 00 00 00 80
	 * G  optional UINT64_MAX -> 2^64: bit 64 = bit 1 of the top group
	 *    -> 02 00 00 00 00 00 00 00 00 80
	 * H  optional INT32_MAX -> 2^31: 5 bytes (holds up to 2^34-1), bit 31 = bit 3
	 *    of the top group -> 08 00 00 00 80
	 * S1 "" -> 80;  S2 "\0" -> 00 80;  S3 NULL -> 80;  S4 "" (nullable) -> 00 80
	 * S5 "AB" -> 41 C2
	 * V  optional {FF 00}: length 2 nullable -> 83, then FF 00
	 * X  9.4 = 94e-1: exponent -1 -> FF, mantissa 94 (>63: 2 bytes) -> 00 DE
	 * Y  optional NULL: exponent NULL -> 80, no mantissa
	 * U  uInt64 mandatory UINT64_MAX: 64 one bits in 10 groups -> 01 7F x8 FF
	 * I  optional INT64_MAX -> 2^63: signed needs 10 bytes (9 hold < 2^62); bit 63
	 *    is bit 0 of the top group (bits 63..69) -> 01 00 00 00 00 00 00 00 00 80 */
	rb_start(&rec, 2);
	vi(&rec, "A", 1, 64);
	vi(&rec, "B", 1, -8193);
	vi(&rec, "C", 0, 0);
	vi(&rec, "D", 1, 0);
	vi(&rec, "E", 1, -1);
	vi(&rec, "F", 1, INT64_MIN);
	vi(&rec, "G", 1, (int64_t)UINT64_MAX);
	vi(&rec, "H", 1, INT32_MAX);
	vs(&rec, "S1", 1, "", 0);
	vs(&rec, "S2", 1, "\0", 1);
	vs(&rec, "S3", 0, NULL, 0);
	vs(&rec, "S4", 1, "", 0);
	vs(&rec, "S5", 1, "AB", 2);
	vs(&rec, "V", 1, "\xff\x00", 2);
	vd(&rec, "X", 1, 94, -1);
	vd(&rec, "Y", 0, 0, 0);
	vi(&rec, "U", 1, (int64_t)UINT64_MAX);
	vi(&rec, "I", 1, INT64_MAX);
	EXPECT(&rec, "C0 82  00 C0  7F 3F FF  80  81  FF  7F 00 00 00 00 00 00 00 00 80"
		     "  02 00 00 00 00 00 00 00 00 80  08 00 00 00 80"
		     "  80  00 80  80  00 80  41 C2  83 FF 00  FF 00 DE  80"
		     "  01 7F 7F 7F 7F 7F 7F 7F 7F FF  01 00 00 00 00 00 00 00 00 80");
	/* Changed: D = 63 (nullable -> 64, fits 7 unsigned bits -> C0), E = -64
	 * (1 byte holds -64 -> C0), S3 = "\0" (nullable: 00 00 80), V NULL -> 80,
	 * X = -1e63: exponent 63 (1 byte -> BF), mantissa -1 -> FF,
	 * Y = 0e0: exponent 0 nullable -> 81, mantissa 0 -> 80; U 0 -> 80, I NULL -> 80.
	 * The template id equals the previous one: pmap 80. */
	rec.nvals = 0;
	rec.nstr = 0;
	vi(&rec, "A", 1, 64);
	vi(&rec, "B", 1, -8193);
	vi(&rec, "C", 0, 0);
	vi(&rec, "D", 1, 63);
	vi(&rec, "E", 1, -64);
	vi(&rec, "F", 1, INT64_MIN);
	vi(&rec, "G", 1, (int64_t)UINT64_MAX);
	vi(&rec, "H", 1, INT32_MAX);
	vs(&rec, "S1", 1, "", 0);
	vs(&rec, "S2", 1, "\0", 1);
	vs(&rec, "S3", 1, "\0", 1);
	vs(&rec, "S4", 1, "", 0);
	vs(&rec, "S5", 1, "AB", 2);
	vs(&rec, "V", 0, NULL, 0);
	vd(&rec, "X", 1, -1, 63);
	vd(&rec, "Y", 1, 0, 0);
	vi(&rec, "U", 1, 0);
	vi(&rec, "I", 0, 0);
	EXPECT(&rec, "80  00 C0  7F 3F FF  80  C0  C0  7F 00 00 00 00 00 00 00 00 80"
		     "  02 00 00 00 00 00 00 00 00 80  08 00 00 00 80"
		     "  80  00 80  00 00 80  00 80  41 C2  80  BF FF  81 80  80  80");

	/* T3: optional copy going absent.
	 * 7: bits tid,a3 = 1,1 -> E0; tid 83; 7 nullable -> 88.
	 * absent with 7 in the dictionary: explicit NULL, bit set -> A0 80 (entry empty).
	 * absent again: entry empty -> bit clear -> 80.
	 * 7 again: entry empty, so bit set -> A0 88. */
	fast_enc_reset(&enc);
	fast_dec_reset(&dec);
	rb_start(&rec, 3);
	vi(&rec, "a3", 1, 7);
	EXPECT(&rec, "E0 83 88");
	rec.v[0].present = 0;
	rec.v[0].i = 0;
	EXPECT(&rec, "A0 80");
	EXPECT(&rec, "80");
	rec.v[0].present = 1;
	rec.v[0].i = 7;
	EXPECT(&rec, "A0 88");

	/* T4: default. a4 = 0 (the initial value) and b4 absent (no initial
	 * value): both bits clear -> bits 1,0,0 -> C0, tid 84.
	 * a4 absent (has an initial value: bit set + NULL), b4 = 5 (bit set,
	 * 5+1): bits 0,1,1 -> 0110000 -> B0; 80; 86. */
	rb_start(&rec, 4);
	vi(&rec, "a4", 1, 0);
	vi(&rec, "b4", 0, 0);
	EXPECT(&rec, "C0 84");
	rec.nvals = 0;
	vi(&rec, "a4", 0, 0);
	vi(&rec, "b4", 1, 5);
	EXPECT(&rec, "B0 80 86");

	/* T5: increment with initial value 10: 10 (undefined entry -> the
	 * initial value: bit clear) -> C0 85; 11 = 10+1 -> 80; 13 -> A0 8D. */
	fast_enc_reset(&enc);
	fast_dec_reset(&dec);
	rb_start(&rec, 5);
	vi(&rec, "n5", 1, 10);
	EXPECT(&rec, "C0 85");
	rec.v[0].i = 11;
	EXPECT(&rec, "80");
	rec.v[0].i = 13;
	EXPECT(&rec, "A0 8D");
	/* UINT32_MAX (32 one bits: 5 groups, the top one 0001111) -> A0 0F 7F 7F 7F FF;
	 * then 0: the increment wraps at the type's maximum -> bit clear: 80. */
	rec.v[0].i = UINT32_MAX;
	EXPECT(&rec, "A0 0F 7F 7F 7F FF");
	rec.v[0].i = 0;
	EXPECT(&rec, "80");

	/* T6: int64 delta, no bit. 100 - 0 = 100 (2 bytes: 00 E4); 98 - 100 = -2 -> FE. */
	rb_start(&rec, 6);
	vi(&rec, "p6", 1, 100);
	EXPECT(&rec, "C0 86 00 E4");
	rec.v[0].i = 98;
	EXPECT(&rec, "80 FE");

	/* T7: string delta.
	 * "ABCD" from "": subtract 0 (80) + "ABCD" (41 42 43 C4); front would
	 *   cost the same (FF + 4 bytes): the back edit is taken on a tie.
	 * "ABCE" from "ABCD": back: subtract 1 (81) + "E" (C5) = 2 bytes.
	 * "XBCE" from "ABCE": front: remove 1 char from the front, excess-1 -> -2
	 *   (FE) + "X" (D8) = 2 bytes (back would be 84 + 4 bytes). */
	rb_start(&rec, 7);
	vs(&rec, "s7", 1, "ABCD", 4);
	EXPECT(&rec, "C0 87 80 41 42 43 C4");
	rec.nvals = 0;
	rec.nstr = 0;
	vs(&rec, "s7", 1, "ABCE", 4);
	EXPECT(&rec, "80 81 C5");
	rec.nvals = 0;
	rec.nstr = 0;
	vs(&rec, "s7", 1, "XBCE", 4);
	EXPECT(&rec, "80 FE D8");

	/* T8: tail. "ABCD": no base (""), longer -> whole value: E0 88 41 42 43 C4.
	 * "ABXY": same length, differs from index 2 -> "XY": A0 58 D9.
	 * "ABXYZ": longer than the base -> whole: A0 41 42 58 59 DA.
	 * "AB": shorter than the base "ABXYZ": no tail encoding exists. */
	rb_start(&rec, 8);
	vs(&rec, "t8", 1, "ABCD", 4);
	EXPECT(&rec, "E0 88 41 42 43 C4");
	rec.nvals = 0;
	rec.nstr = 0;
	vs(&rec, "t8", 1, "ABXY", 4);
	EXPECT(&rec, "A0 58 D9");
	rec.nvals = 0;
	rec.nstr = 0;
	vs(&rec, "t8", 1, "ABXYZ", 5);
	EXPECT(&rec, "A0 41 42 58 59 DA");
	rec.nvals = 0;
	rec.nstr = 0;
	vs(&rec, "t8", 1, "AB", 2);
	uint8_t buf[64];
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_RANGE);

	/* T9: sequence and group. a9=1, L9 = 2 elements with x9 = 3, 3, G9 present
	 * with y9 = 4. Record pmap: tid, G9 -> 1,1 -> E0; tid 89; a9 81; length 82;
	 * element 1: pmap (x9 undefined: bit set) C0, 83; element 2: x9 copied ->
	 * pmap 80; group (no pmap of its own): y9 84. */
	fast_enc_reset(&enc);
	fast_dec_reset(&dec);
	rb_start(&rec, 9);
	vi(&rec, "a9", 1, 1);
	vi(&rec, "L9", 1, 2);
	vi(&rec, "x9", 1, 3);
	vi(&rec, "x9", 1, 3);
	vi(&rec, "G9", 1, 0);
	vi(&rec, "y9", 1, 4);
	EXPECT(&rec, "E0 89 81 82 C0 83 80 84");
	/* empty sequence, absent group: pmap bits 0 (tid), 0 (group) -> 80; a9 81; length 80 */
	rec.nvals = 0;
	vi(&rec, "a9", 1, 1);
	vi(&rec, "L9", 1, 0);
	vi(&rec, "G9", 0, 0);
	EXPECT(&rec, "80 81 80");

	/* T10: optional decimal, exponent copy (initial -2), mantissa delta.
	 * 1.25: exponent = initial value -> bit clear; mantissa 125 - 0 -> 00 FD.
	 *   pmap bits tid 1, exp 0 -> C0; 8A; 00 FD.
	 * absent: exponent entry assigned -> explicit NULL with bit set: A0 80;
	 *   no mantissa.
	 * 1.30: exponent entry empty -> bit set, -2 -> FE; mantissa 130 - 125 = 5 -> 85. */
	rb_start(&rec, 10);
	vd(&rec, "d10", 1, 125, -2);
	EXPECT(&rec, "C0 8A 00 FD");
	rec.v[0].present = 0;
	EXPECT(&rec, "A0 80");
	rec.v[0].present = 1;
	rec.v[0].i = 130;
	EXPECT(&rec, "A0 FE 85");

	/* T11: optional constant has a bit (set = present), mandatory one none.
	 * bits tid 1, c11 1 -> E0, 8B. Then c11 absent: 80. */
	rb_start(&rec, 11);
	vs(&rec, "c11", 1, "X", 1);
	vi(&rec, "k11", 1, 7);
	EXPECT(&rec, "E0 8B");
	rec.nvals = 0;
	rec.nstr = 0;
	vs(&rec, "c11", 0, NULL, 0);
	vi(&rec, "k11", 1, 7);
	EXPECT(&rec, "80");
	/* a constant that differs from the template's cannot be sent */
	rec.v[1].i = 8;
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_RANGE);

	/* T13: optional tail with initial value "AAAA".
	 * "AAAB": entry undefined, bit set, base = the initial value: tail "B"
	 *   (nullable string "B" -> C2): pmap E0, 8D, C2.
	 * absent: entry assigned -> bit set + NULL: A0 80.
	 * "AAAA": entry empty -> a clear bit would mean absent: bit set, base =
	 *   the initial value, nothing differs: tail "" -> nullable "" = 00 80. */
	fast_enc_reset(&enc);
	fast_dec_reset(&dec);
	rb_start(&rec, 13);
	vs(&rec, "t13", 1, "AAAB", 4);
	EXPECT(&rec, "E0 8D C2");
	rec.v[0].present = 0;
	EXPECT(&rec, "A0 80");
	rec.nvals = 0;
	rec.nstr = 0;
	vs(&rec, "t13", 1, "AAAA", 4);
	EXPECT(&rec, "A0 00 80");

	/* Errors: mandatory absent, out of range, leading-NUL string, buffer too small. */
	fast_enc_reset(&enc);
	rb_start(&rec, 12);
	vi(&rec, "m12", 0, 0);
	vs(&rec, "s12", 1, "x", 1);
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_NULL_MANDATORY);
	rec.v[0].present = 1;
	rec.v[0].i = (int64_t)INT32_MAX + 1;
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_RANGE);
	rec.v[0].i = INT32_MIN;
	rec.nvals = 1;
	rec.nstr = 0;
	vs(&rec, "s12", 1, "\0A", 2);
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_RANGE);
	rec.nvals = 1;
	rec.nstr = 0;
	vs(&rec, "s12", 1, "\x80", 1);
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_RANGE);
	rec.nvals = 1;
	rec.nstr = 0;
	vs(&rec, "s12", 1, "hello", 5);
	/* C0 8C + INT32_MIN (5 bytes) + 5 = 12 bytes */
	fast_enc_reset(&enc);
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, 11), -FAST_E_TOO_MANY_VALUES);
	fast_enc_reset(&enc);
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, 12), 12);
	/* INT32_MIN = -2^31: 5 bytes, 35-bit two's complement 1110000 0000000 ... */
	uint8_t want12[12];
	test_hex("C0 8C 78 00 00 00 80 68 65 6C 6C EF", want12, sizeof want12);
	CHECK_MEM(buf, want12, 12);
	/* a value list that does not fit the template */
	rec.nvals = 1;
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_TOO_MANY_VALUES);
	rec.nvals = 2;
	rec.tid = 99;
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_UNKNOWN_TEMPLATE);

	/* Integer deltas are int64 on the wire and the sum must fit the type.
	 * int64: INT64_MIN - 0 fits (10 bytes 7F 00.. 80); INT64_MAX - INT64_MIN
	 * does not: no encoding. */
	fast_enc_reset(&enc);
	fast_dec_reset(&dec);
	rb_start(&rec, 6);
	vi(&rec, "p6", 1, INT64_MIN);
	EXPECT(&rec, "C0 86 7F 00 00 00 00 00 00 00 00 80");
	rec.v[0].i = INT64_MAX;
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_RANGE);
	/* uInt64: 2^63-1 from 0: 63 one bits, signed needs 10 bytes -> 00 7F x8 FF;
	 * UINT64_MAX from there: difference 2^63 does not fit an int64. */
	fast_enc_reset(&enc);
	fast_dec_reset(&dec);
	rb_start(&rec, 14);
	vi(&rec, "u14", 1, INT64_MAX);
	EXPECT(&rec, "C0 8E 00 7F 7F 7F 7F 7F 7F 7F 7F FF");
	rec.v[0].i = (int64_t)UINT64_MAX;
	CHECK_EQ(fast_enc_record(&enc, &rec, buf, sizeof buf), -FAST_E_RANGE);
	/* ... while UINT64_MAX - 1 (difference 2^63 - 1) still fits */
	fast_enc_reset(&enc);
	fast_dec_reset(&dec);
	rec.nvals = 0;
	vi(&rec, "u14", 1, INT64_MAX);
	EXPECT(&rec, "C0 8E 00 7F 7F 7F 7F 7F 7F 7F 7F FF");
	rec.v[0].i = (int64_t)(UINT64_MAX - 1);
	EXPECT(&rec, "80 00 7F 7F 7F 7F 7F 7F 7F 7F FF");
}

/* ---- (2) property tests ----------------------------------------------- */

/* One template per type with every operator x presence x initial value
 * the spec allows; "Shared" uses one global key across all of them. */
#define INT_FIELDS(T, P, V)                                                                        \
	"<" T " name=\"" P "NoneM\"/>"                                                             \
	"<" T " name=\"" P "NoneO\" presence=\"optional\"/>"                                        \
	"<" T " name=\"" P "ConstM\"><constant value=\"" V "\"/></" T ">"                          \
	"<" T " name=\"" P "ConstO\" presence=\"optional\"><constant value=\"" V "\"/></" T ">"    \
	"<" T " name=\"" P "CopyM\"><copy/></" T ">"                                                \
	"<" T " name=\"" P "CopyMI\"><copy value=\"" V "\"/></" T ">"                              \
	"<" T " name=\"" P "CopyO\" presence=\"optional\"><copy/></" T ">"                          \
	"<" T " name=\"" P "CopyOI\" presence=\"optional\"><copy value=\"" V "\"/></" T ">"        \
	"<" T " name=\"" P "DefMI\"><default value=\"" V "\"/></" T ">"                            \
	"<" T " name=\"" P "DefO\" presence=\"optional\"><default/></" T ">"                        \
	"<" T " name=\"" P "DefOI\" presence=\"optional\"><default value=\"" V "\"/></" T ">"      \
	"<" T " name=\"" P "IncM\"><increment/></" T ">"                                            \
	"<" T " name=\"" P "IncMI\"><increment value=\"" V "\"/></" T ">"                          \
	"<" T " name=\"" P "IncO\" presence=\"optional\"><increment/></" T ">"                      \
	"<" T " name=\"" P "IncOI\" presence=\"optional\"><increment value=\"" V "\"/></" T ">"    \
	"<" T " name=\"" P "DeltaM\"><delta/></" T ">"                                              \
	"<" T " name=\"" P "DeltaMI\"><delta value=\"" V "\"/></" T ">"                            \
	"<" T " name=\"" P "DeltaO\" presence=\"optional\"><delta/></" T ">"                        \
	"<" T " name=\"" P "DeltaOI\" presence=\"optional\"><delta value=\"" V "\"/></" T ">"

/* Strings and byte vectors: increment is not allowed, tail is. Tail initial
 * values are 6 long and the generator keeps tail values 6 long, so a tail
 * encoding always exists (it cannot shorten a value). */
#define STR_FIELDS(T, ATTR, P, V, V6)                                                              \
	"<" T " name=\"" P "NoneM\"" ATTR "/>"                                                     \
	"<" T " name=\"" P "NoneO\"" ATTR " presence=\"optional\"/>"                                \
	"<" T " name=\"" P "ConstM\"" ATTR "><constant value=\"" V "\"/></" T ">"                  \
	"<" T " name=\"" P "ConstO\"" ATTR " presence=\"optional\"><constant value=\"" V "\"/></" T ">" \
	"<" T " name=\"" P "CopyM\"" ATTR "><copy/></" T ">"                                        \
	"<" T " name=\"" P "CopyMI\"" ATTR "><copy value=\"" V "\"/></" T ">"                      \
	"<" T " name=\"" P "CopyO\"" ATTR " presence=\"optional\"><copy/></" T ">"                  \
	"<" T " name=\"" P "CopyOI\"" ATTR " presence=\"optional\"><copy value=\"" V "\"/></" T ">" \
	"<" T " name=\"" P "DefMI\"" ATTR "><default value=\"" V "\"/></" T ">"                    \
	"<" T " name=\"" P "DefO\"" ATTR " presence=\"optional\"><default/></" T ">"                \
	"<" T " name=\"" P "DefOI\"" ATTR " presence=\"optional\"><default value=\"" V "\"/></" T ">" \
	"<" T " name=\"" P "DeltaM\"" ATTR "><delta/></" T ">"                                      \
	"<" T " name=\"" P "DeltaMI\"" ATTR "><delta value=\"" V "\"/></" T ">"                    \
	"<" T " name=\"" P "DeltaO\"" ATTR " presence=\"optional\"><delta/></" T ">"                \
	"<" T " name=\"" P "DeltaOI\"" ATTR " presence=\"optional\"><delta value=\"" V "\"/></" T ">" \
	"<" T " name=\"" P "TailM\"" ATTR "><tail/></" T ">"                                        \
	"<" T " name=\"" P "TailMI\"" ATTR "><tail value=\"" V6 "\"/></" T ">"                     \
	"<" T " name=\"" P "TailO\"" ATTR " presence=\"optional\"><tail/></" T ">"                  \
	"<" T " name=\"" P "TailOI\"" ATTR " presence=\"optional\"><tail value=\"" V6 "\"/></" T ">"

#define SHARED "<uInt32 name=\"Shared\"><copy/></uInt32>"

static const char prop_xml[] =
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">"
	"<template name=\"PI32\" id=\"101\">" SHARED INT_FIELDS("int32", "i32", "-5") "</template>"
	"<template name=\"PU32\" id=\"102\">" INT_FIELDS("uInt32", "u32", "7") SHARED "</template>"
	"<template name=\"PI64\" id=\"103\">" INT_FIELDS("int64", "i64", "-9000000000") SHARED "</template>"
	"<template name=\"PU64\" id=\"104\">" SHARED INT_FIELDS("uInt64", "u64", "18446744073709551615")
	"</template>"
	"<template name=\"PStr\" id=\"105\">" STR_FIELDS("string", "", "as", "init", "ABCDEF") SHARED
	"<string name=\"SharedS\" presence=\"optional\"><delta/></string></template>"
	"<template name=\"PUni\" id=\"106\">" STR_FIELDS("string", " charset=\"unicode\"", "un", "uni", "UVWXYZ")
	"<string name=\"SharedS\" presence=\"optional\"><delta/></string>" SHARED "</template>"
	"<template name=\"PBytes\" id=\"107\">" STR_FIELDS("byteVector", "", "bv", "00ff", "414243444546")
	SHARED "</template>"
	"<template name=\"PDec\" id=\"108\">" SHARED
	"<decimal name=\"deNoneM\"/><decimal name=\"deNoneO\" presence=\"optional\"/>"
	"<decimal name=\"deConstM\"><constant value=\"1.25\"/></decimal>"
	"<decimal name=\"deConstO\" presence=\"optional\"><constant value=\"-0.5\"/></decimal>"
	"<decimal name=\"deCopyM\"><copy/></decimal>"
	"<decimal name=\"deCopyMI\"><copy value=\"100\"/></decimal>"
	"<decimal name=\"deCopyO\" presence=\"optional\"><copy/></decimal>"
	"<decimal name=\"deCopyOI\" presence=\"optional\"><copy value=\"9.99\"/></decimal>"
	"<decimal name=\"deDefMI\"><default value=\"0.001\"/></decimal>"
	"<decimal name=\"deDefO\" presence=\"optional\"><default/></decimal>"
	"<decimal name=\"deDefOI\" presence=\"optional\"><default value=\"12e3\"/></decimal>"
	"<decimal name=\"deDeltaM\"><delta/></decimal>"
	"<decimal name=\"deDeltaMI\"><delta value=\"3.5\"/></decimal>"
	"<decimal name=\"deDeltaO\" presence=\"optional\"><delta/></decimal>"
	"<decimal name=\"deDeltaOI\" presence=\"optional\"><delta value=\"-7.25\"/></decimal>"
	/* individual operators */
	"<decimal name=\"diA\"><exponent><copy value=\"-2\"/></exponent><mantissa><delta/></mantissa></decimal>"
	"<decimal name=\"diB\" presence=\"optional\"><exponent><default value=\"0\"/></exponent>"
	"<mantissa><copy/></mantissa></decimal>"
	"<decimal name=\"diC\" presence=\"optional\"><exponent><constant value=\"-3\"/></exponent>"
	"<mantissa><increment value=\"1\"/></mantissa></decimal>"
	"<decimal name=\"diD\" presence=\"optional\"><exponent><delta/></exponent>"
	"<mantissa><delta value=\"5\"/></mantissa></decimal>"
	"<decimal name=\"diE\"><exponent><increment value=\"1\"/></exponent><mantissa/></decimal>"
	"<decimal name=\"diF\" presence=\"optional\"><exponent/><mantissa><default value=\"0\"/></mantissa>"
	"</decimal>"
	"</template>"
	"<template name=\"PNest\" id=\"109\">"
	"<uInt32 name=\"nA\"><copy/></uInt32>"
	"<sequence name=\"Seq1\" presence=\"optional\"><length name=\"Seq1Len\"><copy/></length>"
	" <int32 name=\"sX\"><delta/></int32>"
	" <string name=\"sS\" presence=\"optional\"><copy/></string>"
	" <group name=\"sG\" presence=\"optional\">"
	"  <int64 name=\"gY\"><increment/></int64>"
	"  <sequence name=\"Seq2\"><length name=\"Seq2Len\"/>"
	"   <uInt64 name=\"s2Z\" presence=\"optional\"><default value=\"5\"/></uInt64>"
	"   <string name=\"s2S\"/></sequence>"
	" </group>"
	"</sequence>"
	"<group name=\"G2\"><decimal name=\"gD\"><copy/></decimal><uInt32 name=\"gN\"/></group>"
	"<sequence name=\"Seq3\"><length name=\"Seq3Len\"><increment value=\"1\"/></length>"
	" <int32 name=\"s3\"/></sequence>"
	"<group name=\"G3\" presence=\"optional\"><string name=\"g3S\"><tail/></string>"
	" <byteVector name=\"g3B\" presence=\"optional\"/></group>"
	"<sequence name=\"Seq4\" presence=\"optional\"><length name=\"Seq4Len\"><default value=\"2\"/></length>"
	" <uInt32 name=\"s4\" presence=\"optional\"><copy/></uInt32></sequence>"
	SHARED
	"</template>"
	"</templates>";

static uint64_t rng = 0x1234567887654321ull;

static uint64_t r64(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rn(uint32_t n)
{
	return (uint32_t)(r64() % n);
}

/* Last value generated per instruction, so that copy/increment/delta/tail
 * see repeated, incremented and nearby values often. */
static struct {
	int have;
	int64_t i;
	int32_t exp;
	uint8_t s[FAST_MAX_STR];
	uint32_t len;
} last[FAST_MAX_INSTR];

static int64_t clamp_kind(int kind, uint64_t bits)
{
	switch (kind) {
	case FAST_K_I32: return (int32_t)(uint32_t)bits;
	case FAST_K_U32: case FAST_K_SEQ: return (uint32_t)bits;
	default: return (int64_t)bits; /* int64, uInt64 bit pattern */
	}
}

/* Values of 64-bit delta fields stay where any two, and the base a reset
 * gives (the initial value, else 0), differ by less than 2^63: a delta is an
 * int64 on the wire (the overflow case is a hand test). uInt64: the half of
 * the range the base is in. */
static int64_t delta_safe(int idx, int kind, int64_t v)
{
	const struct fast_instr *in = &prog.instr[idx];
	if (kind == FAST_K_U64) {
		int upper = in->init < prog.nconst && prog.consts[in->init].i < 0;
		return upper ? (int64_t)((uint64_t)v | (1ull << 63)) : (int64_t)((uint64_t)v & ~(1ull << 63));
	}
	if (kind == FAST_K_I64 && (v < -((int64_t)1 << 62) || v >= ((int64_t)1 << 62)))
		return v / 2;
	return v;
}

static int64_t gen_int_any(int idx, int kind);

static int64_t gen_int(int idx, int kind, int is_delta)
{
	int64_t v = gen_int_any(idx, kind);
	return is_delta ? delta_safe(idx, kind, v) : v;
}

static int64_t gen_int_any(int idx, int kind)
{
	static const int64_t b_i32[] = { INT32_MIN, INT32_MIN + 1, INT32_MAX, 0, -1, 1, 63, 64, -64, -65,
					 8191, 8192, -8192, -8193 };
	static const int64_t b_u32[] = { 0, 1, 63, 64, 127, 128, 16383, 16384, INT32_MAX,
					 (int64_t)INT32_MAX + 1, UINT32_MAX, UINT32_MAX - 1 };
	static const int64_t b_i64[] = { INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, 0, -1, 1, 63,
					 64, -64, -65, INT32_MIN, INT32_MAX, (int64_t)1 << 62,
					 -((int64_t)1 << 62) - 1 };
	static const int64_t b_u64[] = { 0, 1, 127, 128, -1 /* UINT64_MAX */, INT64_MAX, INT64_MIN,
					 (int64_t)UINT32_MAX, -2 };
	const struct fast_instr *in = &prog.instr[idx];
	struct fast_const *k = in->init < prog.nconst ? &prog.consts[in->init] : NULL;
	switch (rn(8)) {
	case 0:
	case 1:
		if (last[idx].have)
			return last[idx].i;
		break;
	case 2:
		if (last[idx].have) {
			uint64_t v = (uint64_t)last[idx].i + 1; /* wraps at the type's width */
			return clamp_kind(kind, v);
		}
		break;
	case 3:
		if (k)
			return k->i;
		break;
	case 4:
		switch (kind) {
		case FAST_K_I32: return b_i32[rn(sizeof b_i32 / sizeof b_i32[0])];
		case FAST_K_U32: return b_u32[rn(sizeof b_u32 / sizeof b_u32[0])];
		case FAST_K_I64: return b_i64[rn(sizeof b_i64 / sizeof b_i64[0])];
		default: return b_u64[rn(sizeof b_u64 / sizeof b_u64[0])];
		}
	case 5:
		if (last[idx].have)
			return clamp_kind(kind, (uint64_t)last[idx].i + (uint64_t)(int64_t)((int)rn(2001) - 1000));
		break;
	default:
		break;
	}
	/* random width: small numbers are as likely as huge ones */
	uint32_t bits = 1 + rn(64);
	uint64_t v = r64() >> (64 - bits);
	if (rn(2))
		v = ~v + 1; /* negative when signed */
	return clamp_kind(kind, v);
}

static int32_t gen_exp(int idx)
{
	const struct fast_instr *in = &prog.instr[idx];
	struct fast_const *k = in->init < prog.nconst ? &prog.consts[in->init] : NULL;
	switch (rn(6)) {
	case 0:
	case 1:
		if (last[idx].have)
			return last[idx].exp;
		break;
	case 2:
		if (last[idx].have && last[idx].exp < 63)
			return last[idx].exp + 1;
		break;
	case 3:
		if (k)
			return k->exp;
		break;
	case 4:
		return rn(2) ? 63 : -63;
	}
	return (int32_t)rn(127) - 63;
}

static void gen_bytes(int idx, int ascii, int tail, uint8_t *s, uint32_t *len)
{
	const struct fast_instr *in = &prog.instr[idx];
	struct fast_const *k = in->init < prog.nconst ? &prog.consts[in->init] : NULL;
	uint32_t n = 0;
	int choice = (int)rn(9);
	if (choice <= 1 && last[idx].have) {
		n = last[idx].len;
		memcpy(s, last[idx].s, n);
	} else if (choice == 2 && k) {
		n = k->len;
		memcpy(s, prog.pool + k->off, n);
	} else if ((choice == 3 || choice == 4) && last[idx].have) {
		/* edit the last value: change, add or drop at either end */
		n = last[idx].len;
		memcpy(s, last[idx].s, n);
		int what = (int)rn(5);
		if (what == 0 && n) {
			s[rn(n)] = (uint8_t)(ascii ? 'a' + rn(26) : rn(256));
		} else if (what == 1 && n < FAST_MAX_STR) {
			s[n++] = (uint8_t)(ascii ? 'A' + rn(26) : rn(256));
		} else if (what == 2 && n < FAST_MAX_STR) {
			memmove(s + 1, s, n++);
			s[0] = (uint8_t)(ascii ? '0' + rn(10) : rn(256));
		} else if (what == 3 && n) {
			n--;
		} else if (what == 4 && n) {
			memmove(s, s + 1, --n);
		}
	} else if (choice == 5 && !tail) {
		n = rn(2); /* "" or "\0" */
		s[0] = 0;
	} else {
		n = tail ? 6 : rn(4) == 0 ? FAST_MAX_STR - rn(3) : rn(12);
		for (uint32_t j = 0; j < n; j++)
			s[j] = (uint8_t)(ascii ? 1 + rn(127) : rn(256));
	}
	if (tail && n != 6) {
		/* keep tail values 6 long: pad or cut */
		while (n < 6)
			s[n++] = (uint8_t)(ascii ? 'a' + rn(26) : rn(256));
		n = 6;
	}
	if (ascii && n > 1 && s[0] == 0)
		s[0] = 'z'; /* "\0..." has no ASCII encoding */
	*len = n;
}

static void gen_range(struct fast_rec *r, uint32_t first, uint32_t end);

/* Generate the value(s) of instruction idx; returns the next instruction. */
static uint32_t gen_instr(struct fast_rec *r, uint32_t idx)
{
	const struct fast_instr *in = &prog.instr[idx];
	int optional = (in->flags & FAST_F_OPTIONAL) != 0;
	struct fast_val *v = &r->v[r->nvals++];
	const struct fast_const *k = in->init < prog.nconst ? &prog.consts[in->init] : NULL;

	memset(v, 0, sizeof *v);
	v->instr = (uint16_t)idx;

	if (in->kind == FAST_K_SEQ) {
		v->present = !(optional && rn(5) == 0);
		if (v->present) {
			uint32_t len = rn(4);
			if (rn(3) == 0 && last[idx].have)
				len = (uint32_t)last[idx].i + (rn(2) ? 1 : 0);
			if (len > 3)
				len = 3;
			if (k && rn(3) == 0)
				len = (uint32_t)k->i;
			v->i = len;
			last[idx].have = 1;
			last[idx].i = len;
			for (uint32_t e = 0; e < len; e++)
				gen_range(r, idx + 1, in->aux);
		}
		return (uint32_t)in->aux + 1;
	}
	if (in->kind == FAST_K_GROUP) {
		v->present = !(optional && rn(3) == 0);
		if (v->present)
			gen_range(r, idx + 1, in->aux);
		return (uint32_t)in->aux + 1;
	}

	int is_const = in->op == FAST_OP_CONST;
	v->present = !(optional && rn(5) == 0);
	uint32_t next = in->kind == FAST_K_DEC_EXP ? idx + 2 : idx + 1;
	if (!v->present)
		return next;
	switch (in->kind) {
	case FAST_K_I32:
	case FAST_K_U32:
	case FAST_K_I64:
	case FAST_K_U64:
		v->i = is_const ? k->i : gen_int((int)idx, in->kind, in->op == FAST_OP_DELTA);
		last[idx].i = v->i;
		break;
	case FAST_K_DECIMAL:
		v->i = is_const ? k->i : gen_int((int)idx, FAST_K_I64, in->op == FAST_OP_DELTA);
		v->exp = is_const ? k->exp : gen_exp((int)idx);
		last[idx].i = v->i;
		last[idx].exp = v->exp;
		break;
	case FAST_K_DEC_EXP: {
		const struct fast_instr *mi = &prog.instr[idx + 1];
		const struct fast_const *mk = mi->init < prog.nconst ? &prog.consts[mi->init] : NULL;
		v->exp = is_const ? k->exp : gen_exp((int)idx);
		v->i = mi->op == FAST_OP_CONST ? mk->i
					       : gen_int((int)idx, FAST_K_I64, mi->op == FAST_OP_DELTA);
		if (mi->op == FAST_OP_INCR && last[idx].have && rn(2))
			v->i = (int64_t)((uint64_t)last[idx].i + 1);
		last[idx].i = v->i;
		last[idx].exp = v->exp;
		break;
	}
	case FAST_K_ASCII:
	case FAST_K_BYTES: {
		uint8_t s[FAST_MAX_STR];
		uint32_t len;
		if (is_const) {
			len = k->len;
			memcpy(s, prog.pool + k->off, len);
		} else {
			gen_bytes((int)idx, in->kind == FAST_K_ASCII, in->op == FAST_OP_TAIL, s, &len);
		}
		v->soff = r->nstr;
		v->slen = (uint16_t)len;
		memcpy(r->str + r->nstr, s, len);
		r->nstr = (uint16_t)(r->nstr + len);
		memcpy(last[idx].s, s, len);
		last[idx].len = len;
		break;
	}
	default:
		CHECK(0);
	}
	last[idx].have = 1;
	return next;
}

static void gen_range(struct fast_rec *r, uint32_t first, uint32_t end)
{
	for (uint32_t idx = first; idx < end;)
		idx = gen_instr(r, idx);
}

static void gen_record(struct fast_rec *r, int tpl)
{
	memset(r, 0, offsetof(struct fast_rec, v));
	r->tpl = (uint16_t)tpl;
	r->tid = prog.tpl[tpl].id;
	gen_range(r, prog.tpl[tpl].first, prog.tpl[tpl].end);
}

/* Encode `count` random records one after the other into one stream and
 * decode each right behind the encoder. reset_mode 0: never reset; 1: reset
 * encoder and decoder together every 1..4 records (as at STEP message
 * boundaries). After a failure both sides are reset, so that one
 * disagreement is reported once and does not cascade. */
static void prop_run(int count, int reset_mode)
{
	static uint8_t stream[4 << 20];
	uint32_t n = 0;
	int enc_fail = 0, dec_fail = 0, val_fail = 0;

	memset(last, 0, sizeof last);
	fast_enc_init(&enc, &prog);
	fast_dec_init(&dec, &prog);
	int until_reset = 1 + (int)rn(4);
	for (int j = 0; j < count; j++) {
		if (reset_mode && --until_reset == 0) {
			fast_enc_reset(&enc);
			fast_dec_reset(&dec);
			until_reset = 1 + (int)rn(4);
		}
		gen_record(&rec, (int)rn(prog.ntpl));
		if (n > sizeof stream - 65536)
			n = 0; /* plenty of room for the next record */
		int w = fast_enc_record(&enc, &rec, stream + n, (uint32_t)(sizeof stream - n));
		if (w < 0) {
			if (enc_fail++ < 5)
				fprintf(stderr, "record %d (template %u): encode error %d\n", j, rec.tid, -w);
			fast_enc_reset(&enc);
			fast_dec_reset(&dec);
			continue;
		}
		/* the decoder sees the rest of the buffer too: it must stop at the record's end */
		uint32_t used = 0;
		stream[n + (uint32_t)w] = 0x00; /* a byte without stop bit after the record */
		int rc = fast_dec_record(&dec, stream + n, (uint32_t)w + 1, &used, &got);
		int bad = 0;
		if (rc != FAST_OK) {
			if (dec_fail++ < 8) {
				fprintf(stderr, "record %d (template %u): decode error %d at +%u\n", j, rec.tid,
					rc, used);
				dump("bytes", stream + n, (size_t)w);
			}
			bad = 1;
		} else if (used != (uint32_t)w) {
			if (dec_fail++ < 8)
				fprintf(stderr, "record %d: decoder used %u of %d bytes\n", j, used, w);
			bad = 1;
		} else if (got.warn) {
			if (dec_fail++ < 8)
				fprintf(stderr, "record %d: decoder reported warnings 0x%x\n", j, got.warn);
		}
		if (!bad && !same_rec(&rec, &got, val_fail < 8)) {
			if (val_fail++ < 8) {
				fprintf(stderr, "record %d (template %u) differs after the round trip\n", j,
					rec.tid);
				dump("bytes", stream + n, (size_t)w);
			}
			bad = 1;
		}
		if (bad) {
			fast_enc_reset(&enc);
			fast_dec_reset(&dec);
		}
		n += (uint32_t)w;
	}
	CHECK_EQ(enc_fail, 0);
	CHECK_EQ(dec_fail, 0);
	CHECK_EQ(val_fail, 0);
	printf("property run (%s resets): %d records, %d encode errors, %d decode errors, %d mismatches\n",
	       reset_mode ? "with" : "without", count, enc_fail, dec_fail, val_fail);
}

static void test_properties(void)
{
	if (compile(prop_xml))
		return;
	prop_run(15000, 0);
	prop_run(15000, 1);
}

/* ---- (3) SSE templates with generated ticks --------------------------- */

static void sse_roundtrip(const char *path, int full)
{
	char err[512];
	if (fast_compile_file(path, &prog, &names, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", path, err);
		CHECK(0);
		return;
	}
	int ttpl = sse_tpl_for_kind(&prog, TOE_REC_TRADE);
	int otpl = sse_tpl_for_kind(&prog, TOE_REC_ORDER);
	CHECK(ttpl >= 0);
	if (full)
		CHECK(otpl >= 0);

	/* the fields each template maps: ticks compare on these only */
	uint32_t maps[3] = { 0, 0, 0 };
	for (int t = 0; t < prog.ntpl; t++)
		if (prog.tpl[t].kind == TOE_REC_TRADE || prog.tpl[t].kind == TOE_REC_ORDER)
			for (uint32_t i = prog.tpl[t].first; i < prog.tpl[t].end; i++)
				if (prog.instr[i].tick && prog.instr[i].depth == 0)
					maps[prog.tpl[t].kind] |= 1u << prog.instr[i].tick;

	struct sse_stream *ss = malloc(sizeof *ss);
	struct fast_stream *fs = malloc(sizeof *fs);
	static uint8_t msg[1 << 16];
	union toe_record ticks[8];
	CHECK(ss && fs);
	if (!ss || !fs)
		goto out;
	struct sse_gen_cfg cfg;
	sse_gen_default(&cfg);
	cfg.seed = 42;
	cfg.status_pct = 30;
	if (!full)
		cfg.order_pct = 0; /* the 2.02 file has no order template */
	CHECK_EQ(sse_stream_init(ss, &prog, &cfg, 8), 0);
	fast_stream_init(fs, &prog, FAST_FRAMING_STEP);

	int total = 0, msgs = 0, bad = 0;
	uint64_t want_seq = 1;
	while (total < 4000) {
		uint32_t n = 0;
		int len = sse_stream_next_msg(ss, 4000 - (uint32_t)total, msg, sizeof msg, NULL, ticks, &n);
		CHECK(len > 0);
		if (len <= 0)
			break;
		msgs++;
		fast_stream_feed(fs, msg, (uint32_t)len);
		uint32_t k = 0;
		int ev;
		while ((ev = fast_stream_next(fs)) != FS_NONE) {
			CHECK_EQ(ev, FS_RECORD);
			if (ev != FS_RECORD) {
				fprintf(stderr, "stream error %d at %llu\n", fs->err,
					(unsigned long long)fs->err_offset);
				bad++;
				continue;
			}
			CHECK(k < n);
			if (k >= n)
				break;
			CHECK_EQ(fs->msg_seq, want_seq);
			union toe_record out;
			int type = fast_tick_map(&prog, &fs->rec, fs->msg_seq, &out);
			CHECK_EQ(type, ticks[k].hdr.type);
			union toe_record want = ticks[k];
			want.hdr.msg_seq = want_seq;
			want.hdr.present &= maps[want.hdr.type];
			if (!full) {
				/* fields the template does not carry read as 0 */
				union toe_record w2;
				memset(&w2, 0, sizeof w2);
				w2.hdr = want.hdr;
				if (want.hdr.type == TOE_REC_TRADE) {
					struct toe_trade *a = &w2.trade, *b = &want.trade;
					uint32_t m = want.hdr.present;
					a->trade_qty = m & (1u << TOE_TF_TRADE_QTY) ? b->trade_qty : 0;
					a->trade_money = m & (1u << TOE_TF_TRADE_MONEY) ? b->trade_money : 0;
					a->trade_buy_no = m & (1u << TOE_TF_TRADE_BUY_NO) ? b->trade_buy_no : 0;
					a->trade_sell_no = m & (1u << TOE_TF_TRADE_SELL_NO) ? b->trade_sell_no : 0;
					a->biz_index = m & (1u << TOE_TF_BIZ_INDEX) ? b->biz_index : 0;
					a->data_status = m & (1u << TOE_TF_DATA_STATUS) ? b->data_status : 0;
					a->trade_index = m & (1u << TOE_TF_TRADE_INDEX) ? b->trade_index : 0;
					a->trade_channel = m & (1u << TOE_TF_TRADE_CHANNEL) ? b->trade_channel : 0;
					a->trade_time = m & (1u << TOE_TF_TRADE_TIME) ? b->trade_time : 0;
					a->trade_price = m & (1u << TOE_TF_TRADE_PRICE) ? b->trade_price : 0;
					if (m & (1u << TOE_TF_SECURITY_ID))
						memcpy(a->security_id, b->security_id, sizeof a->security_id);
					if (m & (1u << TOE_TF_TRADE_BS_FLAG))
						memcpy(a->bs_flag, b->bs_flag, sizeof a->bs_flag);
				}
				want = w2;
			}
			if (memcmp(&out, &want, sizeof out) != 0) {
				if (bad++ < 5) {
					fprintf(stderr, "%s: message %d record %u: tick differs\n", path, msgs, k);
					dump("want", want.bytes, sizeof want.bytes);
					dump("got ", out.bytes, sizeof out.bytes);
				}
			}
			k++;
		}
		CHECK_EQ(k, n);
		want_seq++;
		total += (int)n;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(fs->records, 4000);
	printf("%s: %d messages, %llu records decoded\n", path, msgs, (unsigned long long)fs->records);
out:
	free(ss);
	free(fs);
}

/* A key a uInt64 shares with an int32 and an int64 (FAST_F_MIXED): the uInt64's 2^64 - 1 is not a copy
 * of the int32's -1 (a decoder refuses that copy: out of range), so -1 is sent; and no delta can start
 * from it for the int64 (out of range, as the decoder says). */
static const char mixed_xml[] =
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">"
	"<template name=\"A\" id=\"1\"><uInt64 name=\"v\"><copy key=\"k\"/></uInt64></template>"
	"<template name=\"B\" id=\"2\"><int32 name=\"v\"><copy key=\"k\"/></int32></template>"
	"<template name=\"E\" id=\"3\"><int64 name=\"v\"><delta key=\"k\"/></int64></template>"
	"</templates>";

static void test_shared_u64(void)
{
	uint8_t out[64];
	if (compile(mixed_xml))
		return;
	fast_enc_init(&enc, &prog);
	fast_dec_init(&dec, &prog);
	rb_start(&rec, 1);
	vi(&rec, "v", 1, -1); /* 2^64 - 1 */
	EXPECT(&rec, "E0 81 | 01 7F 7F 7F 7F 7F 7F 7F 7F FF");
	rb_start(&rec, 2);
	vi(&rec, "v", 1, -1);
	EXPECT(&rec, "E0 82 | FF"); /* sent, not "C0 82" */
	rb_start(&rec, 3);
	vi(&rec, "v", 1, 4);
	EXPECT(&rec, "C0 83 | 85"); /* a delta of 5 from the int32's -1 */
	rb_start(&rec, 1);
	vi(&rec, "v", 1, INT64_MIN); /* 2^63 */
	EXPECT(&rec, "E0 81 | 01 00 00 00 00 00 00 00 00 80");
	rb_start(&rec, 3);
	vi(&rec, "v", 1, 0);
	CHECK(fast_enc_record(&enc, &rec, out, sizeof out) < 0); /* no delta from 2^63 for an int64 */
}

int main(void)
{
	test_hand();
	test_shared_u64();
	test_properties();
	sse_roundtrip("conf/templates/sse-l2-3201-5801.xml", 1);
	sse_roundtrip("conf/templates/sse-ngts-2.02-3201.xml", 0);
	return test_done("fast_roundtrip");
}
