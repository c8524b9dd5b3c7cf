/* fast_vec.h - helpers shared by the hand-written FAST 1.1 vector tests.
 *
 * Each test compiles a small inline template file, feeds hand-derived byte
 * vectors to fast_dec_record() and checks the decoded values against what the
 * FAST 1.1 specification says. Every vector is copied into a heap buffer of
 * exactly its size, so that ASan reports any read past the end, also after
 * errors. Helpers check the side effects too: d->records grows by one per
 * decoded record, d->errors[code] by one per error (and per reportable
 * warning), r->warn carries exactly the expected warning bits.
 *
 * Every vector also runs through the specialised host decoder
 * (kernels/fast/host/fastx.h) from the same dictionary state, on the portable
 * scalar path and on the widest SIMD path this CPU has (with and without
 * pext): return code, consumed bytes, warnings, counters, dictionary and the
 * tick record (fast_tick_map of the reference's values) must all be the
 * reference's (fv_fastx_same). Templates the fast path is not specialised
 * for must be counted as fallbacks.
 *
 * Hex strings are parsed by test_hex(): any non-hex character (space, '|')
 * separates bytes, so vectors are written field by field with '|' between.
 */
#ifndef FAST_VEC_H
#define FAST_VEC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "fast/fast_decode.h"
#include "fast/fast_err.h"
#include "fast/fast_prog.h"
#include "fast/host/fast_compile.h"
#include "fast/fast_tick.h"
#include "fast/host/fastx.h"

#define FV_NS11 "http://www.fixprotocol.org/ns/fast/td/1.1"
#define FV_XML(body) \
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<templates xmlns=\"" FV_NS11 "\">\n" body "\n</templates>\n"

#define W(e) (1u << (e))

#define FV_MAX_MSG_RECS 32

struct fv {
	struct fast_prog prog;
	struct fast_names names;
	struct fast_dec dec;
	struct fast_dec snap;
	struct fast_rec rec;
	int valid;       /* last decode returned FAST_OK as expected: value checks apply */
	uint32_t used;
	uint32_t len;
	char label[200]; /* "line N: hex" of the last vector, printed with failures */
	/* a message of several records in one exact-size buffer */
	uint8_t *mbuf;
	uint32_t mlen, mpos;
	uint32_t moff[FV_MAX_MSG_RECS + 1];
	int mnrec, mi;
	/* the fast decoder's twin of dec, run on a copy of dec before each vector */
	struct fastx_prog *xp;
	struct fast_dec xpre, xdec;
	struct fast_rec xscratch;
	uint64_t fx_fast, fx_fallback; /* records each way, all levels */
};

static inline void fv_fail(struct fv *t, int line, const char *fmt, long long a, long long b)
{
	test_failures++;
	fprintf(stderr, "check at line %d: ", line);
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "   [%s]\n", t ? t->label : "");
}

/* a continuation line of the previous failure (not counted again) */
static inline void fv_note(struct fv *t, int line, const char *fmt, long long a, long long b)
{
	fprintf(stderr, "check at line %d: ", line);
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "   [%s]\n", t ? t->label : "");
}

static inline void fv_label(struct fv *t, const char *hex, int line)
{
	snprintf(t->label, sizeof t->label, "line %d: %.150s", line, hex);
}

/* Compile an inline template file; NULL (and a counted failure) when it
 * does not compile. */
static inline struct fv *fv_new_at(const char *xml, int line)
{
	char err[256] = "";
	struct fv *t = calloc(1, sizeof *t);
	test_checks++;
	if (!t) {
		test_failures++;
		fprintf(stderr, "line %d: out of memory\n", line);
		return NULL;
	}
	if (fast_compile_buffer(xml, strlen(xml), "inline.xml", &t->prog, &t->names, err, sizeof err) != 0) {
		test_failures++;
		fprintf(stderr, "line %d: template compile failed: %s\n", line, err);
		free(t);
		return NULL;
	}
	fast_dec_init(&t->dec, &t->prog);
	t->xp = fastx_prog_new(&t->prog);
	return t;
}
#define fv_new(xml) fv_new_at((xml), __LINE__)

static inline struct fv *fv_file_at(const char *path, int line)
{
	char err[256] = "";
	struct fv *t = calloc(1, sizeof *t);
	test_checks++;
	if (!t) {
		test_failures++;
		return NULL;
	}
	if (fast_compile_file(path, &t->prog, &t->names, err, sizeof err) != 0) {
		test_failures++;
		fprintf(stderr, "line %d: compile of %s failed: %s\n", line, path, err);
		free(t);
		return NULL;
	}
	fast_dec_init(&t->dec, &t->prog);
	t->xp = fastx_prog_new(&t->prog);
	return t;
}
#define fv_file(path) fv_file_at((path), __LINE__)

static inline void fv_free(struct fv *t)
{
	if (t) {
		/* a program the fast path fully takes never needs the reference */
		test_checks++;
		if (t->xp && fastx_prog_fallback(t->xp) == 0 && t->fx_fallback != 0)
			fv_fail(t, 0, "fast decoder fell back %lld times on a specialised program", (long long)t->fx_fallback, 0);
		fastx_prog_free(t->xp);
		free(t->mbuf);
		free(t);
	}
}

/* Structural sanity of a record the decoder said was fine. */
static inline void fv_sane(struct fv *t, int line)
{
	struct fast_rec *r = &t->rec;
	test_checks++;
	if (r->nvals > FAST_MAX_VALUES || r->nstr > FAST_MAX_STRBUF) {
		fv_fail(t, line, "record out of bounds: nvals %lld nstr %lld", r->nvals, r->nstr);
		return;
	}
	for (unsigned k = 0; k < r->nvals; k++) {
		if (r->v[k].instr >= t->prog.ninstr) {
			fv_fail(t, line, "v[%lld].instr %lld beyond the program", k, r->v[k].instr);
			return;
		}
	}
	if (r->tpl >= t->prog.ntpl || t->prog.tpl[r->tpl].id != r->tid)
		fv_fail(t, line, "rec.tpl %lld does not hold rec.tid %lld", r->tpl, r->tid);
	else if (r->nvals > 0 && r->v[0].instr != t->prog.tpl[r->tpl].first)
		fv_fail(t, line, "v[0].instr %lld is not the template's first instruction %lld", r->v[0].instr,
			t->prog.tpl[r->tpl].first);
}

/* Run buf[0..n) through the fast decoder from t->xpre (the dictionary before
 * the reference's call) on each instruction-set level and compare with the
 * reference's outcome (rc, t->used, t->rec, t->dec). */
static inline void fv_fastx_same(struct fv *t, const uint8_t *buf, uint32_t n, int rc, int line)
{
	/* every level this CPU runs, each SIMD one with and without pext (BMI2) */
	int levels[2 * FASTX_ISA_COUNT], pexts[2 * FASTX_ISA_COUNT], nl = 0;
	union toe_record tick;
	int tr = TOE_REC_NONE;
	if (!t->xp)
		return;
	for (int i = FASTX_ISA_SCALAR; i <= fastx_isa_max(); i++) {
		levels[nl] = i;
		pexts[nl++] = 0;
		if (i > FASTX_ISA_SCALAR && __builtin_cpu_supports("bmi2")) {
			levels[nl] = i;
			pexts[nl++] = 1;
		}
	}
	if (rc == FAST_OK)
		tr = fast_tick_map(&t->prog, &t->rec, 5, &tick);
	for (int l = 0; l < nl; l++) {
		struct fastx_dec x;
		uint32_t used = 0xFFFFFFFFu;
		int xr;
		memcpy(&t->xdec, &t->xpre, sizeof t->xdec);
		fastx_dec_init(&x, t->xp, &t->xscratch);
		xr = fastx_record_isa(levels[l], pexts[l], &x, &t->xdec, buf, n, 5, &used);
		t->fx_fast += x.fast;
		t->fx_fallback += x.fallback;
		test_checks++;
		if (xr != rc || used != t->used) {
			fv_fail(t, line, "fast decoder at level*2+pext %lld returned %lld", levels[l] * 2 + pexts[l], xr);
			fv_note(t, line, "used %lld, reference %lld", used, t->used);
			continue;
		}
		if (rc == FAST_OK && (x.warn != t->rec.warn || x.tick_type != tr ||
				      (tr > 0 && memcmp(&x.tick, &tick, sizeof tick) != 0))) {
			fv_fail(t, line, "fast decoder: warn 0x%llx / tick type %lld differ", x.warn, x.tick_type);
			continue;
		}
		if (t->xdec.records != t->dec.records || memcmp(t->xdec.errors, t->dec.errors, sizeof t->dec.errors)) {
			fv_fail(t, line, "fast decoder: counters differ (records %lld vs %lld)", (long long)t->xdec.records,
				(long long)t->dec.records);
			continue;
		}
		for (uint32_t k = 0; k < t->prog.ndict && k < FAST_MAX_DICT; k++) {
			const struct fast_dict_entry *a = &t->dec.dict[k], *b = &t->xdec.dict[k];
			uint32_t sa = a->gen == t->dec.gen ? a->state : 0, sb = b->gen == t->xdec.gen ? b->state : 0;
			if (sa != sb || (sa == FAST_DICT_ASSIGNED && (a->i != b->i || a->exp != b->exp ||
								     a->len != b->len || memcmp(a->s, b->s, a->len)))) {
				fv_fail(t, line, "fast decoder: dictionary slot %lld differs (state %lld)", k, sb);
				break;
			}
		}
	}
}

/* Decode buf[0..n) (exactly n bytes on the heap) and check the outcome:
 * expect == FAST_OK: returns OK, consumes all n bytes, r->warn == wmask,
 * records +1, errors[] +1 for each warning bit and unchanged otherwise;
 * expect != FAST_OK: returns that code, used <= n, errors[expect] +1, records
 * unchanged. Returns 1 when the outcome matched. */
static inline int fv_run_buf(struct fv *t, const uint8_t *src, uint32_t n, int expect, uint32_t wmask,
			     int line)
{
	uint64_t before[FAST_ERR_COUNT];
	uint64_t recs = t->dec.records;
	/* exactly n bytes so ASan sees overreads; for n == 0 the end of a
	 * 1-byte block (ASan does not flag a read of malloc(0)'s pointer) */
	uint8_t *blk = malloc(n ? n : 1);
	uint8_t *buf = n ? blk : blk + 1;
	int ok = 1, rc;
	if (n)
		memcpy(buf, src, n);
	memcpy(before, t->dec.errors, sizeof before);
	memset(&t->rec, 0xEE, sizeof t->rec);
	t->used = 0xFFFFFFFFu;
	t->len = n;
	memcpy(&t->xpre, &t->dec, sizeof t->xpre);
	rc = fast_dec_record(&t->dec, buf, n, &t->used, &t->rec);
	fv_fastx_same(t, buf, n, rc, line);
	free(blk);
	test_checks++;
	if (rc != expect) {
		fv_fail(t, line, "fast_dec_record returned %lld, expected %lld", rc, expect);
		ok = 0;
	}
	if (rc == FAST_OK && expect == FAST_OK) {
		test_checks++;
		if (t->used != n) {
			fv_fail(t, line, "consumed %lld bytes, expected %lld", t->used, n);
			ok = 0;
		}
		test_checks++;
		if (t->rec.warn != wmask) {
			fv_fail(t, line, "warn 0x%llx, expected 0x%llx", t->rec.warn, wmask);
			ok = 0;
		}
		test_checks++;
		if (t->dec.records != recs + 1) {
			fv_fail(t, line, "records counter %lld, expected %lld", (long long)t->dec.records,
				(long long)recs + 1);
			ok = 0;
		}
		for (int e = 1; e < FAST_ERR_COUNT; e++) {
			uint64_t want = before[e] + ((wmask >> e) & 1u);
			if (t->dec.errors[e] != want) {
				test_checks++;
				fv_fail(t, line, "errors[%lld] changed to %lld", e, (long long)t->dec.errors[e]);
				ok = 0;
			}
		}
		fv_sane(t, line);
	} else if (rc != FAST_OK) {
		test_checks++;
		if (t->used > n) {
			fv_fail(t, line, "error offset %lld beyond the %lld input bytes", t->used, n);
			ok = 0;
		}
		if (rc > 0 && rc < FAST_ERR_COUNT) {
			test_checks++;
			if (t->dec.errors[rc] != before[rc] + 1) {
				fv_fail(t, line, "errors[%lld] is %lld, expected one more", rc, (long long)t->dec.errors[rc]);
				ok = 0;
			}
		}
		test_checks++;
		if (t->dec.records != recs) {
			fv_fail(t, line, "records counter moved on an error: %lld", (long long)t->dec.records, 0);
			ok = 0;
		}
	}
	t->valid = ok && expect == FAST_OK;
	return ok;
}

static inline int fv_run(struct fv *t, const char *hex, int expect, uint32_t wmask, int line)
{
	size_t n = test_hex(hex, NULL, 0);
	uint8_t *tmp = malloc(n ? n : 1);
	int ok;
	test_hex(hex, tmp, n);
	fv_label(t, hex, line);
	ok = fv_run_buf(t, tmp, (uint32_t)n, expect, wmask, line);
	free(tmp);
	return ok;
}

#define DEC_OK(t, hex) fv_run((t), (hex), FAST_OK, 0, __LINE__)
#define DEC_WARN(t, hex, wmask) fv_run((t), (hex), FAST_OK, (wmask), __LINE__)
#define DEC_ERR(t, hex, code) fv_run((t), (hex), (code), 0, __LINE__)

/* Error, then reset the dictionary as the stream layer does. */
#define DEC_ERR_RESET(t, hex, code)                       \
	do {                                              \
		DEC_ERR((t), (hex), (code));              \
		fast_dec_reset(&(t)->dec);                \
	} while (0)

/* Every proper prefix of a valid record (0 .. n-1 bytes, each in an exact
 * heap buffer) must fail with FAST_E_TRUNCATED from the same dictionary
 * state; then the whole record is decoded (dictionary moves on) and must be
 * fine. */
static inline int fv_trunc_all(struct fv *t, const char *hex, int line)
{
	size_t n = test_hex(hex, NULL, 0);
	uint8_t *tmp = malloc(n ? n : 1);
	int ok = 1;
	test_hex(hex, tmp, n);
	fv_label(t, hex, line);
	memcpy(&t->snap, &t->dec, sizeof t->snap);
	for (size_t k = 0; k < n; k++) {
		memcpy(&t->dec, &t->snap, sizeof t->dec);
		if (!fv_run_buf(t, tmp, (uint32_t)k, FAST_E_TRUNCATED, 0, line)) {
			fprintf(stderr, "    (prefix of %zu of %zu bytes)\n", k, n);
			ok = 0;
		}
	}
	memcpy(&t->dec, &t->snap, sizeof t->dec);
	if (!fv_run_buf(t, tmp, (uint32_t)n, FAST_OK, 0, line))
		ok = 0;
	free(tmp);
	return ok;
}
#define DEC_TRUNC_ALL(t, hex) fv_trunc_all((t), (hex), __LINE__)

/* --- a message: several records in one exact-size buffer ------------------ */

static inline void fv_msg_at(struct fv *t, const char *const *recs, int nrec, int line)
{
	uint32_t total = 0;
	free(t->mbuf);
	t->mbuf = NULL;
	for (int i = 0; i < nrec && i < FV_MAX_MSG_RECS; i++) {
		t->moff[i] = total;
		total += (uint32_t)test_hex(recs[i], NULL, 0);
	}
	t->moff[nrec] = total;
	t->mbuf = malloc(total ? total : 1);
	for (int i = 0; i < nrec; i++)
		test_hex(recs[i], t->mbuf + t->moff[i], t->moff[i + 1] - t->moff[i]);
	t->mlen = total;
	t->mpos = 0;
	t->mnrec = nrec;
	t->mi = 0;
	(void)line;
}
#define MSG(t, recs) fv_msg_at((t), (recs), (int)(sizeof(recs) / sizeof((recs)[0])), __LINE__)

/* Decode the next record of the message from mbuf[mpos .. mlen) (the rest of
 * the exact-size buffer). A record must consume exactly its own bytes. */
static inline int fv_msg_next(struct fv *t, int expect, uint32_t wmask, int line)
{
	uint64_t before[FAST_ERR_COUNT];
	uint64_t recs = t->dec.records;
	int rc, ok = 1, i = t->mi;
	uint32_t want;
	snprintf(t->label, sizeof t->label, "line %d: message record %d", line, i);
	if (i >= t->mnrec) {
		fv_fail(t, line, "no record %lld left in the message (%lld)", i, t->mnrec);
		t->valid = 0;
		return 0;
	}
	want = t->moff[i + 1] - t->moff[i];
	memcpy(before, t->dec.errors, sizeof before);
	memset(&t->rec, 0xEE, sizeof t->rec);
	memcpy(&t->xpre, &t->dec, sizeof t->xpre);
	rc = fast_dec_record(&t->dec, t->mbuf + t->mpos, t->mlen - t->mpos, &t->used, &t->rec);
	fv_fastx_same(t, t->mbuf + t->mpos, t->mlen - t->mpos, rc, line);
	test_checks++;
	if (rc != expect) {
		fv_fail(t, line, "fast_dec_record returned %lld, expected %lld", rc, expect);
		ok = 0;
	}
	if (rc == FAST_OK) {
		test_checks++;
		if (t->used != want) {
			fv_fail(t, line, "record consumed %lld bytes, expected %lld", t->used, want);
			ok = 0;
		}
		test_checks++;
		if (t->rec.warn != wmask) {
			fv_fail(t, line, "warn 0x%llx, expected 0x%llx", t->rec.warn, wmask);
			ok = 0;
		}
		test_checks++;
		if (t->dec.records != recs + 1) {
			fv_fail(t, line, "records counter %lld, expected %lld", (long long)t->dec.records,
				(long long)recs + 1);
			ok = 0;
		}
		fv_sane(t, line);
	} else if (rc > 0 && rc < FAST_ERR_COUNT) {
		test_checks++;
		if (t->dec.errors[rc] != before[rc] + 1) {
			fv_fail(t, line, "errors[%lld] is %lld, expected one more", rc, (long long)t->dec.errors[rc]);
			ok = 0;
		}
	}
	/* the next record starts where this one was supposed to end */
	t->mpos = t->moff[i + 1];
	t->mi++;
	t->valid = ok && expect == FAST_OK;
	return ok;
}
#define MSG_OK(t) fv_msg_next((t), FAST_OK, 0, __LINE__)
#define MSG_ERR(t, code) fv_msg_next((t), (code), 0, __LINE__)

/* --- value checks (skipped when the decode itself already failed) ---------- */

static inline const struct fast_val *fv_val(struct fv *t, unsigned k, int line)
{
	if (!t->valid)
		return NULL;
	test_checks++;
	if (k >= t->rec.nvals || k >= FAST_MAX_VALUES) {
		fv_fail(t, line, "value %lld missing: record has %lld values", k, t->rec.nvals);
		return NULL;
	}
	return &t->rec.v[k];
}

static inline void fv_chk_n(struct fv *t, unsigned n, int line)
{
	if (!t->valid)
		return;
	test_checks++;
	if (t->rec.nvals != n)
		fv_fail(t, line, "record has %lld values, expected %lld", t->rec.nvals, n);
}

static inline void fv_chk_tid(struct fv *t, uint32_t tid, int line)
{
	if (!t->valid)
		return;
	test_checks++;
	if (t->rec.tid != tid)
		fv_fail(t, line, "template id %lld, expected %lld", t->rec.tid, tid);
}

static inline void fv_chk_int(struct fv *t, unsigned k, int64_t want, int line)
{
	const struct fast_val *v = fv_val(t, k, line);
	if (!v)
		return;
	test_checks++;
	if (!v->present)
		fv_fail(t, line, "v[%lld] absent, expected %lld", k, want);
	else if (v->i != want)
		fv_fail(t, line, "v[%lld].i == %lld", k, v->i), fv_note(t, line, "   v[%lld] expected %lld", k, want);
}

static inline void fv_chk_pres(struct fv *t, unsigned k, int line)
{
	const struct fast_val *v = fv_val(t, k, line);
	if (!v)
		return;
	test_checks++;
	if (!v->present)
		fv_fail(t, line, "v[%lld] absent, expected present", k, 0);
}

static inline void fv_chk_abs(struct fv *t, unsigned k, int line)
{
	const struct fast_val *v = fv_val(t, k, line);
	if (!v)
		return;
	test_checks++;
	if (v->present)
		fv_fail(t, line, "v[%lld] present (i=%lld), expected absent", k, v->i);
}

static inline void fv_chk_dec(struct fv *t, unsigned k, int64_t mant, int32_t exp, int line)
{
	const struct fast_val *v = fv_val(t, k, line);
	if (!v)
		return;
	test_checks++;
	if (!v->present)
		fv_fail(t, line, "decimal v[%lld] absent, expected mantissa %lld", k, mant);
	else if (v->i != mant || v->exp != exp) {
		fv_fail(t, line, "decimal v[%lld] mantissa %lld", k, v->i);
		fv_note(t, line, "   exponent %lld, expected mantissa %lld", v->exp, mant);
		fv_note(t, line, "   and exponent %lld (v %lld)", exp, k);
	}
}

/* Decimal from a template's initial value: compare numerically (the
 * specification does not fix the mantissa/exponent split of "1.5"). */
static inline void fv_chk_dec_num(struct fv *t, unsigned k, int64_t mant, int32_t exp, int line)
{
	const struct fast_val *v = fv_val(t, k, line);
	int64_t m1, m2;
	int32_t e1, e2;
	if (!v)
		return;
	test_checks++;
	if (!v->present) {
		fv_fail(t, line, "decimal v[%lld] absent, expected mantissa %lld", k, mant);
		return;
	}
	m1 = v->i, e1 = v->exp, m2 = mant, e2 = exp;
	while (m1 != 0 && m1 % 10 == 0)
		m1 /= 10, e1++;
	while (m2 != 0 && m2 % 10 == 0)
		m2 /= 10, e2++;
	if (m1 == 0)
		e1 = 0;
	if (m2 == 0)
		e2 = 0;
	if (m1 != m2 || e1 != e2) {
		fv_fail(t, line, "decimal v[%lld] = %lld", k, v->i);
		fv_note(t, line, "   e%lld, expected numerically %lld", v->exp, mant);
		fv_note(t, line, "   e%lld (v %lld)", exp, k);
	}
}

static inline void fv_chk_bytes(struct fv *t, unsigned k, const void *s, size_t n, int line)
{
	const struct fast_val *v = fv_val(t, k, line);
	if (!v)
		return;
	test_checks++;
	if (!v->present) {
		fv_fail(t, line, "string v[%lld] absent, expected %lld bytes", k, (long long)n);
		return;
	}
	if ((uint32_t)v->soff + v->slen > t->rec.nstr || (uint32_t)v->soff + v->slen > FAST_MAX_STRBUF) {
		fv_fail(t, line, "string v[%lld] outside str[]: end %lld", k, (long long)v->soff + v->slen);
		return;
	}
	if (v->slen != n || memcmp(t->rec.str + v->soff, s, n) != 0) {
		fv_fail(t, line, "string v[%lld] has %lld bytes:", k, v->slen);
		fprintf(stderr, "      got      \"");
		for (unsigned j = 0; j < v->slen; j++)
			fprintf(stderr, "%c", t->rec.str[v->soff + j] >= 32 && t->rec.str[v->soff + j] < 127
						      ? t->rec.str[v->soff + j]
						      : '.');
		fprintf(stderr, "\"\n      expected \"%.*s\" (%zu bytes)\n", (int)n, (const char *)s, n);
	}
}

static inline void fv_chk_hexbytes(struct fv *t, unsigned k, const char *hex, int line)
{
	uint8_t b[FAST_MAX_STR + 8];
	size_t n = test_hex(hex, b, sizeof b);
	fv_chk_bytes(t, k, b, n, line);
}

/* v[k] came from instruction `rel` of the record's template (relative to
 * its first instruction). */
static inline void fv_chk_instr(struct fv *t, unsigned k, unsigned rel, int line)
{
	const struct fast_val *v = fv_val(t, k, line);
	if (!v)
		return;
	test_checks++;
	if (v->instr != t->prog.tpl[t->rec.tpl].first + rel)
		fv_fail(t, line, "v[%lld].instr is template instruction %lld", k,
			(long long)v->instr - t->prog.tpl[t->rec.tpl].first),
			fv_note(t, line, "   expected %lld (v %lld)", rel, k);
}

#define V_N(t, n) fv_chk_n((t), (n), __LINE__)
#define V_TID(t, id) fv_chk_tid((t), (id), __LINE__)
#define V_I(t, k, val) fv_chk_int((t), (k), (int64_t)(val), __LINE__)
#define V_U64(t, k, val) fv_chk_int((t), (k), (int64_t)(uint64_t)(val), __LINE__)
#define V_ABS(t, k) fv_chk_abs((t), (k), __LINE__)
#define V_PRES(t, k) fv_chk_pres((t), (k), __LINE__)
#define V_D(t, k, m, e) fv_chk_dec((t), (k), (m), (e), __LINE__)
#define V_DNUM(t, k, m, e) fv_chk_dec_num((t), (k), (m), (e), __LINE__)
#define V_S(t, k, s) fv_chk_bytes((t), (k), (s), strlen(s), __LINE__)
#define V_SN(t, k, s, n) fv_chk_bytes((t), (k), (s), (n), __LINE__)
#define V_B(t, k, hex) fv_chk_hexbytes((t), (k), (hex), __LINE__)
#define V_INSTR(t, k, rel) fv_chk_instr((t), (k), (rel), __LINE__)

#endif
