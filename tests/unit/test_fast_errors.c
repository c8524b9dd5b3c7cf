/* test_fast_errors.c - presence maps, error codes and input bounds.
 *
 * Spec §10.5 (presence map: a stop-bit entity of 7 bits per byte, bits taken
 * in field order, missing trailing bits are zero; R7 overlong pmap, R8 a set
 * bit the template does not use), the decoder's own limits
 * (FAST_MAX_PMAP_BYTES, no stop bit within the type's maximum length), and
 * the guarantee that whatever the input, the decoder reads only
 * buf[0 .. len): every buffer here is a heap allocation of exactly the
 * input's size so ASan reports a read past its end.
 */
#include "test.h"
#include "fast_vec.h"

static const char *xml = FV_XML(
	"<template name='P1' id='1'>"
	"<uInt32 name='f1'><copy value='1'/></uInt32><uInt32 name='f2'><copy value='2'/></uInt32>"
	"<uInt32 name='f3'><copy value='3'/></uInt32><uInt32 name='f4'><copy value='4'/></uInt32>"
	"<uInt32 name='f5'><copy value='5'/></uInt32><uInt32 name='f6'><copy value='6'/></uInt32>"
	"<uInt32 name='f7'><copy value='7'/></uInt32><uInt32 name='f8'><copy value='8'/></uInt32>"
	"<uInt32 name='f9'><copy value='9'/></uInt32></template>\n"
	"<template name='P2' id='2'><uInt32 name='u2'/></template>\n"
	"<template name='P3' id='3'><uInt32 name='a3'><copy/></uInt32><string name='s3'/>"
	"<byteVector name='b3'/><decimal name='d3'/><int64 name='i3' presence='optional'/>"
	"<sequence name='q3'><length name='n3'/><uInt32 name='e3'><copy/></uInt32></sequence>"
	"<string name='o3' presence='optional'><default/></string></template>\n"
	"<template name='P4' id='4'><int32 name='i4'/><uInt32 name='u4'/><int64 name='l4'/>"
	"<uInt64 name='m4'/></template>\n"
	"<template name='P5' id='5'><group name='g5' presence='optional'><uInt32 name='x5'><copy/></uInt32>"
	"<string name='y5' presence='optional'><tail/></string></group>"
	"<byteVector name='b5' presence='optional'><delta/></byteVector></template>\n");

static void p1_values(struct fv *t, int line, int set, int64_t v)
{
	/* f1..f9 are their initial values 1..9 except field `set` (1-based) */
	for (int k = 0; k < 9; k++)
		fv_chk_int(t, (unsigned)k, k + 1 == set ? v : k + 1, line);
}

static void test_pmap(void)
{
	struct fv *t = fv_new(xml);
	char hex[256];
	int p;
	if (!t)
		return;
	/* P1 bits: tid, f1..f9 = 10 bits; byte 1 holds tid,f1..f6 (0x40..0x01),
	 * byte 2 f7 (0x40), f8 (0x20), f9 (0x10) */
	DEC_OK(t, "C0 81");                      /* one byte: f7..f9 implied 0 */
	V_N(t, 9);
	p1_values(t, __LINE__, 0, 0);
	DEC_OK(t, "40 C0 81 | 94");              /* f7 = 20 */
	p1_values(t, __LINE__, 7, 20);
	fast_dec_reset(&t->dec);
	DEC_OK(t, "40 90 81 | 9E");              /* f9 = 30 */
	p1_values(t, __LINE__, 9, 30);
	fast_dec_reset(&t->dec);
	DEC_OK(t, "7F F0 81 | 8B 8C 8D 8E 8F 90 91 92 93"); /* every bit: 11..19 */
	for (int k = 0; k < 9; k++)
		V_I(t, (unsigned)k, 11 + k);
	DEC_OK(t, "A0 | 95");                    /* [0,f1]: same template, f1 = 21, rest copied */
	V_I(t, 0, 21);
	V_I(t, 8, 19);
	fast_dec_reset(&t->dec);
	/* R7: trailing pmap bytes without a set bit (reportable, record delivered) */
	DEC_WARN(t, "40 80 81", W(FAST_E_OVERLONG_PMAP));
	p1_values(t, __LINE__, 0, 0);
	DEC_WARN(t, "40 00 80 81", W(FAST_E_OVERLONG_PMAP));
	p1_values(t, __LINE__, 0, 0);
	DEC_WARN(t, "40 80 | 82 | 81", W(FAST_E_OVERLONG_PMAP)); /* P2: [tid] then an empty byte */
	V_TID(t, 2);
	V_I(t, 0, 1);
	/* R8: a set bit beyond the template's bits */
	DEC_ERR_RESET(t, "40 88 81", FAST_E_PMAP_EXTRA);    /* bit 10 of P1 */
	DEC_ERR_RESET(t, "7F FF 81 | 8B 8C 8D 8E 8F 90 91 92 93", FAST_E_PMAP_EXTRA);
	DEC_ERR_RESET(t, "E0 82 | 81", FAST_E_PMAP_EXTRA);  /* P2 uses only the id bit */
	/* FAST_MAX_PMAP_BYTES (16) is the longest pmap: 40, 14 x 00, 80 = R7 only */
	p = snprintf(hex, sizeof hex, "40");
	for (int i = 0; i < FAST_MAX_PMAP_BYTES - 2; i++)
		p += snprintf(hex + p, sizeof hex - p, " 00");
	snprintf(hex + p, sizeof hex - p, " 80 | 82 | 81");
	DEC_WARN(t, hex, W(FAST_E_OVERLONG_PMAP));
	V_I(t, 0, 1);
	/* 17 bytes */
	p = snprintf(hex, sizeof hex, "40");
	for (int i = 0; i < FAST_MAX_PMAP_BYTES - 1; i++)
		p += snprintf(hex + p, sizeof hex - p, " 00");
	snprintf(hex + p, sizeof hex - p, " 80 | 82 | 81");
	DEC_ERR_RESET(t, hex, FAST_E_PMAP_TOO_LONG);
	/* 17 bytes without any stop bit before the input ends far later */
	p = snprintf(hex, sizeof hex, "40");
	for (int i = 0; i < 30; i++)
		p += snprintf(hex + p, sizeof hex - p, " 00");
	DEC_ERR_RESET(t, hex, FAST_E_PMAP_TOO_LONG);
	/* a pmap cut by the end of the input */
	DEC_ERR_RESET(t, "40 00", FAST_E_TRUNCATED);
	DEC_ERR_RESET(t, "", FAST_E_TRUNCATED);
	fv_free(t);
}

static void test_no_stop_bit(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* P4: int32, uInt32, int64, uInt64; bytes follow the bad field so the
	 * end of the input is not what stops the decoder */
	DEC_OK(t, "C0 84 | FF | 81 | FF | 81");
	V_N(t, 4);
	V_I(t, 0, -1);
	V_I(t, 1, 1);
	V_I(t, 2, -1);
	V_I(t, 3, 1);
	DEC_ERR_RESET(t, "C0 84 | 00 00 00 00 00 00 80 | 81 81 81", FAST_E_NO_STOP_BIT);
	DEC_ERR_RESET(t, "C0 84 | 80 | 00 00 00 00 00 00 80 | 81 81", FAST_E_NO_STOP_BIT);
	DEC_ERR_RESET(t, "C0 84 | 80 | 80 | 00 00 00 00 00 00 00 00 00 00 00 80 | 81",
		      FAST_E_NO_STOP_BIT);
	DEC_ERR_RESET(t, "C0 84 | 80 | 80 | 80 | 00 00 00 00 00 00 00 00 00 00 00 80",
		      FAST_E_NO_STOP_BIT);
	/* the template id is a uInt32 too */
	DEC_ERR_RESET(t, "C0 | 00 00 00 00 00 00 84 | 80 80 80 80", FAST_E_NO_STOP_BIT);
	DEC_ERR_RESET(t, "C0 | 10 00 00 00 80 | 80 80 80 80", FAST_E_RANGE); /* id 2^32 */
	fv_free(t);
}

static void test_truncation_everywhere(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	/* P3, bits [tid, a3, o3]: a3 = 5, s3 = "AB", b3 = [01 02], d3 = 9427.55,
	 * i3 = 63 (nullable: 00 C0), q3 length 2 with element pmaps [e3]:
	 * C0 81 (e3 = 1), 80 (copied 1); o3 = "Z" */
	DEC_OK(t, "F0 83 | 85 | 41 C2 | 82 01 02 | FE 39 45 A3 | 00 C0 | 82 | C0 81 | 80 | DA");
	V_N(t, 9);
	V_I(t, 0, 5);
	V_S(t, 1, "AB");
	V_B(t, 2, "01 02");
	V_D(t, 3, 942755, -2);
	V_I(t, 4, 63);
	V_I(t, 5, 2);
	V_I(t, 6, 1);
	V_I(t, 7, 1);
	V_S(t, 8, "Z");
	fast_dec_reset(&t->dec);
	DEC_TRUNC_ALL(t, "F0 83 | 85 | 41 C2 | 82 01 02 | FE 39 45 A3 | 00 C0 | 82 | C0 81 | 80 | DA");
	/* with the dictionary assigned (record using copies) */
	DEC_TRUNC_ALL(t, "80 | 80 | 82 FF 80 | 80 80 | 80 | 81 | 80");
	/* P5: optional group with a pmap (x5 copy, y5 tail), optional byte vector delta */
	DEC_TRUNC_ALL(t, "E0 85 | E0 85 42 C2 | 81 82 01 02");
	DEC_TRUNC_ALL(t, "A0 | A0 C3 | 80");
	DEC_TRUNC_ALL(t, "80 | 81 81 03");
	fv_free(t);
}

/* Several records in one buffer: the decoder stops at each record's end,
 * and a record cut by the end of the buffer is TRUNCATED. */
static void test_message(void)
{
	struct fv *t = fv_new(xml);
	static const char *const recs[] = {
		"C0 82 | 81",
		"80 | 82",
		"C0 84 | FF | 81 | FF | 81",
		"C0 82 | 83",
		"C0 84 | FF | 81 | FF", /* cut: m4 missing */
	};
	if (!t)
		return;
	MSG(t, recs);
	MSG_OK(t);
	V_TID(t, 2);
	V_I(t, 0, 1);
	MSG_OK(t);
	V_TID(t, 2);
	V_I(t, 0, 2);
	MSG_OK(t);
	V_TID(t, 4);
	MSG_OK(t);
	V_I(t, 0, 3);
	MSG_ERR(t, FAST_E_TRUNCATED);
	fv_free(t);
}

/* After an error and a reset the decoder is usable again. */
static void test_recovery(void)
{
	struct fv *t = fv_new(xml);
	if (!t)
		return;
	DEC_ERR_RESET(t, "C0 84 | 08 00 00 00 80 | 81 | 81 | 81", FAST_E_RANGE);
	DEC_OK(t, "C0 84 | 81 | 81 | 81 | 81");
	V_I(t, 0, 1);
	DEC_ERR_RESET(t, "C0 BF | 81", FAST_E_UNKNOWN_TEMPLATE);
	DEC_OK(t, "C0 82 | 85");
	V_I(t, 0, 5);
	fv_free(t);
}

/* Bounds: one byte of a valid record changed to each of a few values, in
 * an exact-size buffer, from the same dictionary state. Whatever the code
 * returned, it must be a FAST code, the offset within the input, the
 * counters consistent (the error counted once; reportable warnings met on
 * the way may be counted as well), and a delivered record within its
 * arrays. */
static int fv_any(struct fv *t, const uint8_t *buf, uint32_t n)
{
	uint8_t *blk = malloc(n ? n : 1); /* exact size; n == 0: the end of a 1-byte block */
	uint8_t *b = n ? blk : blk + 1;
	uint64_t recs = t->dec.records;
	uint64_t before[FAST_ERR_COUNT];
	int rc, bad = 0;
	if (n)
		memcpy(b, buf, n);
	memcpy(before, t->dec.errors, sizeof before);
	t->used = 0xFFFFFFFFu;
	rc = fast_dec_record(&t->dec, b, n, &t->used, &t->rec);
	free(blk);
	if (rc < 0 || rc >= STEP_E_GARBAGE || t->used > n)
		bad = 1;
	if (rc == FAST_OK) {
		const struct fast_rec *r = &t->rec;
		if (t->dec.records != recs + 1 || r->nvals > FAST_MAX_VALUES || r->nstr > FAST_MAX_STRBUF)
			bad = 1;
		for (unsigned k = 0; !bad && k < r->nvals; k++) {
			const struct fast_val *v = &r->v[k];
			if (v->instr >= t->prog.ninstr)
				bad = 1;
			else if (v->present && (t->prog.instr[v->instr].kind == FAST_K_ASCII ||
						t->prog.instr[v->instr].kind == FAST_K_BYTES) &&
				 (uint32_t)v->soff + v->slen > r->nstr)
				bad = 1;
		}
	} else if (t->dec.records != recs || t->dec.errors[rc] != before[rc] + 1) {
		bad = 1;
	} else {
		/* reportable warnings met before the error may be counted too;
		 * no other error may */
		for (int e = 1; e < STEP_E_GARBAGE; e++)
			if (e != rc && !fast_err_is_reportable(e) && t->dec.errors[e] != before[e])
				bad = 1;
	}
	if (bad) {
		fprintf(stderr, "bounds: rc %d used %u of %u:", rc, t->used, n);
		for (uint32_t i = 0; i < n; i++)
			fprintf(stderr, " %02X", buf[i]);
		fprintf(stderr, "\n");
	}
	return bad;
}

static void test_bounds(void)
{
	static const char *const seeds[] = {
		"F0 83 | 85 | 41 C2 | 82 01 02 | FE 39 45 A3 | 00 C0 | 82 | C0 81 | 80 | DA",
		"7F F0 81 | 8B 8C 8D 8E 8F 90 91 92 93",
		"E0 85 | E0 85 42 C2 | 81 82 01 02",
		"C0 84 | 07 7F 7F 7F FF | 0F 7F 7F 7F FF | 00 7F 7F 7F 7F 7F 7F 7F 7F FF | 01 7F 7F 7F 7F 7F 7F 7F 7F FF",
	};
	static const uint8_t repl[] = { 0x00, 0x01, 0x3F, 0x40, 0x7F, 0x80, 0x81, 0xC0, 0xFF };
	struct fv *t = fv_new(xml);
	uint8_t buf[128];
	int bad = 0, runs = 0;
	uint32_t seed = 12345;
	if (!t)
		return;
	for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
		uint32_t n = (uint32_t)test_hex(seeds[s], buf, sizeof buf);
		/* the dictionary as it is after the seed decoded once (copies assigned) */
		fast_dec_reset(&t->dec);
		fv_any(t, buf, n);
		memcpy(&t->snap, &t->dec, sizeof t->snap);
		for (uint32_t i = 0; i < n; i++) {
			uint8_t orig = buf[i];
			for (size_t r = 0; r <= sizeof repl; r++) {
				buf[i] = r < sizeof repl ? repl[r] : (uint8_t)(orig ^ 0x80);
				memcpy(&t->dec, &t->snap, sizeof t->dec);
				bad += fv_any(t, buf, n);
				/* and the same with the buffer cut right after the changed byte */
				memcpy(&t->dec, &t->snap, sizeof t->dec);
				bad += fv_any(t, buf, i + 1);
				runs += 2;
			}
			buf[i] = orig;
		}
	}
	/* random records (fixed LCG, a few thousand): start with a pmap holding
	 * the id bit and a known id so the field code is reached */
	for (int k = 0; k < 3000; k++) {
		uint32_t n = 2;
		seed = seed * 1103515245u + 12345u;
		n += (seed >> 16) % 40;
		buf[0] = (uint8_t)(0x40 | ((seed >> 8) & 0xBF));
		buf[1] = (uint8_t)(0x81 + (seed >> 24) % 5);
		for (uint32_t i = 2; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = (uint8_t)(seed >> 16);
		}
		fast_dec_reset(&t->dec);
		bad += fv_any(t, buf, n);
		bad += fv_any(t, buf, n); /* again, with whatever the first left in the dictionary */
		runs += 2;
	}
	CHECK_EQ(bad, 0);
	CHECK(runs > 1000);
	fv_free(t);
}

int main(void)
{
	test_pmap();
	test_no_stop_bit();
	test_truncation_everywhere();
	test_message();
	test_recovery();
	test_bounds();
	return test_done("fast_errors");
}
