/* test_fastx_vec.c - the VBMI level's vector path (fastx_vec.c): taken, and left, per record.
 *
 * Every record goes through the reference (fast_dec_record + fast_tick_map)
 * and through the VBMI level (fastx_record_isa) on separate dictionaries fed
 * the same records, and must match in return code, consumed bytes,
 * warnings, tick record and dictionary contents. Beyond that each case says
 * which way the record must go: the vector path (fastx_dec.vec grows), or
 * the AVX2 body (vec_fallback grows) for each reason the vector path stands
 * aside: an integer longer than its lane, a string longer than 8 bytes, an
 * overlong integer, an undefined dictionary entry (a mandatory one: an
 * error; an optional one: a record), a field that ends past the 64-byte
 * window or past the input, a 32-bit copy of a wider value under a shared
 * key (RANGE). Templates with more than 8 integer or 8 string dictionary
 * entries check the dictionary stores' second block of 8 (wide_cases).
 * SKIP on a CPU without the level.
 *
 * Records of conf/templates/sse-l2-3201-5801.xml, hand-encoded (wire facts
 * in test_fast_sse.c): 3201 = 19 81; presence map bits after the template
 * id's: DataStatus, TradeIndex, TradeChannel, SecurityID, TradeTime,
 * TradePrice, TradeQty, TradeMoney, TradeBuyNo, TradeSellNo, TradeBSFlag,
 * BizIndex.
 */
#include "test.h"

#include <stdlib.h>

#include "fast/fast_decode.h"
#include "fast/fast_tick.h"
#include "fast/host/fast_compile.h"
#include "fast/host/fastx.h"
#include "fastx_tpl.h"

static struct fast_prog prog;
static struct fast_names names;
static struct fast_dec dr, dx;
static struct fast_rec rec, scratch;
static struct fastx_prog *xp;
static struct fastx_dec x;

enum { VEC, FALLBACK };

static void same_dict(int line)
{
	test_checks++;
	if (dr.records != dx.records || dr.gen != dx.gen || memcmp(dr.errors, dx.errors, sizeof dr.errors) != 0) {
		test_failures++;
		fprintf(stderr, "line %d: counters differ (records %llu vs %llu)\n", line,
			(unsigned long long)dr.records, (unsigned long long)dx.records);
		return;
	}
	for (uint32_t k = 0; k < prog.ndict && k < FAST_MAX_DICT; k++) {
		const struct fast_dict_entry *u = &dr.dict[k], *v = &dx.dict[k];
		uint32_t su = u->gen == dr.gen ? u->state : 0, sv = v->gen == dx.gen ? v->state : 0;
		/* every word, not only current values: a NULL keeps the old value in
		 * place, and a word one decoder writes where the other does not is
		 * read back later (another type under the key, after a reset) */
		if (su != sv || u->i != v->i || u->exp != v->exp || u->len != v->len || memcmp(u->s, v->s, u->len) != 0) {
			test_failures++;
			fprintf(stderr, "line %d: dictionary entry %u differs (state %u vs %u, i %lld vs %lld)\n", line,
				k, su, sv, (long long)u->i, (long long)v->i);
			return;
		}
	}
}

/* One record (hex, or n bytes of it when n > 0) through both; way: VEC or
 * FALLBACK. Returns the reference's return code. */
static int one_bytes(const uint8_t *tmp, uint32_t n, int way, int line)
{
	uint32_t ur = 0, ux = 0;
	uint64_t v0 = x.vec, f0 = x.vec_fallback;
	union toe_record t;
	uint8_t *buf;
	int er, ex, tr = TOE_REC_NONE;
	buf = malloc(n ? n : 1); /* exact size: ASan sees any read past the input */
	memcpy(buf, tmp, n);
	memset(&t, 0, sizeof t);
	er = fast_dec_record(&dr, buf, n, &ur, &rec);
	if (er == FAST_OK)
		tr = fast_tick_map(&prog, &rec, 7, &t);
	ex = fastx_record_isa(FASTX_ISA_VBMI, 0, &x, &dx, buf, n, 7, &ux);
	free(buf);
	test_checks++;
	if (er != ex || ur != ux) {
		test_failures++;
		fprintf(stderr, "line %d: return %d used %u, reference %d used %u\n", line, ex, ux, er, ur);
	}
	if (er == FAST_OK && ex == FAST_OK) {
		CHECK_EQ(x.warn, rec.warn);
		CHECK_EQ(x.tick_type, tr);
		if (tr > 0 && x.tick_type == tr && memcmp(&t, &x.tick, sizeof t) != 0) {
			test_failures++;
			for (int i = 0; i < TOE_RECORD_SIZE; i++)
				if (t.bytes[i] != x.tick.bytes[i]) {
					fprintf(stderr, "line %d: tick byte %d: %02x, reference %02x\n", line, i,
						x.tick.bytes[i], t.bytes[i]);
					break;
				}
		}
	}
	same_dict(line);
	test_checks++;
	if (way == VEC ? (x.vec != v0 + 1 || x.vec_fallback != f0) : (x.vec != v0 || x.vec_fallback != f0 + 1)) {
		test_failures++;
		fprintf(stderr, "line %d: expected the %s, vec %llu -> %llu, fallback %llu -> %llu\n", line,
			way == VEC ? "vector path" : "AVX2 body", (unsigned long long)v0, (unsigned long long)x.vec,
			(unsigned long long)f0, (unsigned long long)x.vec_fallback);
	}
	return er;
}

static int one(const char *hex, uint32_t cut, int way, int line)
{
	uint8_t tmp[256];
	uint32_t n = (uint32_t)test_hex(hex, tmp, sizeof tmp);
	return one_bytes(tmp, cut && cut < n ? cut : n, way, line);
}

static void reset(void)
{
	fast_dec_reset(&dr);
	fast_dec_reset(&dx);
}

/* A first record after a reset: template id, TradeIndex 1001, TradeChannel 1,
 * SecurityID 600000, TradeTime 9300000, price 10500, qty 1000000, money
 * 1050000000, BizIndex 101. */
#define FIRST "5f e2 19 81 07 e9 81 36 30 30 30 30 b0 04 37 50 a1 00 52 85 3d 04 c1 03 74 56 75 81 00 e5"

static void sse_cases(void)
{
	reset();
	CHECK_EQ(one(FIRST, 0, VEC, __LINE__), FAST_OK);
	/* price, qty, money sent; index and BizIndex incremented, channel,
	 * security id and time copied from the dictionary */
	CHECK_EQ(one("41 e0 19 81 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, VEC, __LINE__), FAST_OK);
	/* no template id: the previous one's */
	CHECK_EQ(one("01 e0 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, VEC, __LINE__), FAST_OK);
	/* price sent as NULL; BuyNo, SellNo, BSFlag sent */
	CHECK_EQ(one("41 fc 19 81 80 0c 1a c1 00 64 1d 4b c1 27 8a 27 8b c2", 0, VEC, __LINE__), FAST_OK);

	/* an integer longer than a lane: money 2^60 (9 bytes) */
	CHECK_EQ(one("41 e0 19 81 00 52 8f 0c 1a c1 10 00 00 00 00 00 00 00 81", 0, FALLBACK, __LINE__), FAST_OK);
	/* a string longer than 8 bytes: SecurityID 600000ABC */
	CHECK_EQ(one("c4 19 81 36 30 30 30 30 30 41 42 c3", 0, FALLBACK, __LINE__), FAST_OK);
	/* the dictionary holds the 9-byte id now: a copy of it also stands aside */
	CHECK_EQ(one("c1 19 81 00 52 8f", 0, FALLBACK, __LINE__), FAST_OK);
	CHECK_EQ(one("c4 19 81 36 30 30 30 30 b1", 0, VEC, __LINE__), FAST_OK);
	/* an overlong integer (a warning): BizIndex 101 as 00 00 e5 */
	CHECK_EQ(one("40 82 19 81 00 00 e5", 0, FALLBACK, __LINE__), FAST_OK);
	/* a record that ends past the 64-byte window: a 62-character id
	 * (its last byte the 65th) */
	{
		uint8_t r[3 + 62] = {0xc4, 0x19, 0x81};
		memset(r + 3, 'A', 62);
		r[3 + 61] |= 0x80;
		CHECK_EQ(one_bytes(r, sizeof r, FALLBACK, __LINE__), FAST_OK);
		/* 61 characters end in the window, but are longer than a lane */
		r[3 + 60] |= 0x80;
		CHECK_EQ(one_bytes(r, sizeof r - 1, FALLBACK, __LINE__), FAST_OK);
	}
	CHECK_EQ(one("c4 19 81 36 30 30 30 30 b1", 0, VEC, __LINE__), FAST_OK);
	/* ... and one whose last field runs past its input (truncated: an error) */
	CHECK(one(FIRST, 20, FALLBACK, __LINE__) != FAST_OK);

	/* after a reset: an absent mandatory copy (the channel) is an error */
	reset();
	CHECK(one("57 e2 19 81 07 e9 36 30 30 30 30 b0 04 37 50 a1 00 52 85 3d 04 c1 03 74 56 75 81 00 e5", 0,
		  FALLBACK, __LINE__) != FAST_OK);
	/* an absent optional copy (the time) leaves its entry empty: a record */
	reset();
	CHECK_EQ(one("5d e2 19 81 07 e9 81 36 30 30 30 30 b0 00 52 85 3d 04 c1 03 74 56 75 81 00 e5", 0, FALLBACK,
		     __LINE__),
		 FAST_OK);
	/* the empty entry copied again: still not the vector path's */
	CHECK_EQ(one("41 e0 19 81 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, FALLBACK, __LINE__), FAST_OK);
	/* the time sent: the vector path again */
	CHECK_EQ(one("43 e0 19 81 04 37 50 a1 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, VEC, __LINE__), FAST_OK);
	CHECK_EQ(one("41 e0 19 81 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, VEC, __LINE__), FAST_OK);
	/* the time sent as NULL: the entry empty, its old value kept in place
	 * (the reference writes neither i nor exp for a NULL; same_dict
	 * compares every word) */
	CHECK_EQ(one("43 e0 19 81 80 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, VEC, __LINE__), FAST_OK);
	/* an unknown template id */
	CHECK(one("c0 9f", 0, FALLBACK, __LINE__) != FAST_OK);

	/* words left in the entries (a key another template set used as a
	 * decimal, before a reload): an absent copy or increment keeps the old
	 * exp, a NULL keeps both i and exp, a value sent sets exp to 0 */
	reset();
	CHECK_EQ(one(FIRST, 0, VEC, __LINE__), FAST_OK);
	for (uint32_t k = 0; k < prog.ndict && k < FAST_MAX_DICT; k++)
		dr.dict[k].exp = dx.dict[k].exp = (int32_t)(0x5a5a00 + k);
	CHECK_EQ(one("41 e0 19 81 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, VEC, __LINE__), FAST_OK);
	CHECK_EQ(one("43 e0 19 81 80 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, VEC, __LINE__), FAST_OK);
	CHECK_EQ(one("43 e0 19 81 04 37 50 a1 00 52 8f 0c 1a c1 00 64 1d 4b c1", 0, VEC, __LINE__), FAST_OK);
}

/* Both decoders on fresh dictionaries of a two-template program made from
 * xml, whose templates must both take the vector path; NULL when it does
 * not compile. */
static struct fastx_prog *two_vec(const char *xml, size_t len, const char *name)
{
	char err[256];
	struct fastx_prog *xs;
	if (fast_compile_buffer(xml, len, name, &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", name, err);
		test_failures++;
		return NULL;
	}
	xs = fastx_prog_new(&prog);
	CHECK(xs != NULL);
	if (!xs)
		return NULL;
	CHECK_EQ(fastx_prog_vwhy(xs, 0)[0], 0);
	CHECK_EQ(fastx_prog_vwhy(xs, 1)[0], 0);
	fast_dec_init(&dr, &prog);
	fast_dec_init(&dx, &prog);
	fastx_dec_init(&x, xs, &scratch);
	return xs;
}

/* A 32-bit copy of a wider value under a shared key: RANGE. */
static const char shared_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
	"<template name=\"A\" id=\"1\"><int64 name=\"K\" id=\"1\"><copy/></int64></template>\n"
	"<template name=\"B\" id=\"2\"><int32 name=\"K\" id=\"1\"><copy/></int32></template>\n"
	"</templates>\n";

static void range_cases(void)
{
	struct fastx_prog *xs = two_vec(shared_xml, sizeof shared_xml - 1, "shared");
	if (!xs)
		return;
	CHECK_EQ(one("e0 81 20 00 00 00 00 80", 0, VEC, __LINE__), FAST_OK); /* A: K = 2^40 */
	CHECK(one("c0 82", 0, FALLBACK, __LINE__) == FAST_E_RANGE);    /* B copies it */
	CHECK_EQ(one("e0 81 05 80", 0, VEC, __LINE__), FAST_OK);             /* A: K = 640 */
	CHECK_EQ(one("c0 82", 0, VEC, __LINE__), FAST_OK);                   /* B copies it */
	fastx_prog_free(xs);
}

/* Templates with more than 8 integer (W1) or string (W2) dictionary
 * entries: the entries' stores go 8 a block, and the second block's must
 * be written as the first's (I8 sent and NULL, I9 NULL and sent; S8). */
static const char wide_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
	"<template name=\"W1\" id=\"20\">"
	"<int32 name=\"I0\"><copy/></int32><int32 name=\"I1\"><copy/></int32><int32 name=\"I2\"><copy/></int32>"
	"<int32 name=\"I3\"><copy/></int32><int32 name=\"I4\"><copy/></int32><int32 name=\"I5\"><copy/></int32>"
	"<int32 name=\"I6\"><copy/></int32><int32 name=\"I7\"><increment/></int32>"
	"<int32 name=\"I8\" presence=\"optional\"><copy/></int32><int32 name=\"I9\" presence=\"optional\"><copy/></int32>"
	"<string name=\"S0\"><copy/></string><string name=\"S1\"><copy/></string><string name=\"S2\"><copy/></string>"
	"</template>\n"
	"<template name=\"W2\" id=\"21\">"
	"<string name=\"S0\"><copy/></string><string name=\"S1\"><copy/></string><string name=\"S2\"><copy/></string>"
	"<string name=\"S3\"><copy/></string><string name=\"S4\"><copy/></string><string name=\"S5\"><copy/></string>"
	"<string name=\"S6\"><copy/></string><string name=\"S7\"><copy/></string><string name=\"S8\"><copy/></string>"
	"<int32 name=\"J0\"><copy/></int32><int32 name=\"J1\"><copy/></int32><int32 name=\"J2\"><copy/></int32>"
	"<int32 name=\"J3\"><copy/></int32>"
	"</template>\n"
	"</templates>\n";

static void wide_cases(void)
{
	struct fastx_prog *xs = two_vec(wide_xml, sizeof wide_xml - 1, "wide");
	if (!xs)
		return;
	/* W1, all sent: I8 = 4, I9 NULL */
	CHECK_EQ(one("7f ff 94 81 82 83 84 85 86 87 88 85 80 c1 42 c3 c4", 0, VEC, __LINE__), FAST_OK);
	/* template id and most fields copied; I7 = 15, I9 = 2, S1 = "Z" sent */
	CHECK_EQ(one("00 aa 8f 83 da", 0, VEC, __LINE__), FAST_OK);
	CHECK_EQ(one("80", 0, VEC, __LINE__), FAST_OK); /* all copied, I7 incremented */
	/* I8 NULL, I9 = 4 */
	CHECK_EQ(one("7f ff 94 81 82 83 84 85 86 87 88 80 85 c1 42 c3 c4", 0, VEC, __LINE__), FAST_OK);
	/* W2, all sent; then S6..S8 and the integers; then all copied */
	CHECK_EQ(one("7f ff 95 c1 c2 c3 c4 c5 c6 c7 c8 c9 81 82 83 84", 0, VEC, __LINE__), FAST_OK);
	CHECK_EQ(one("00 ff f8 f9 7a fa 91 92 93 94", 0, VEC, __LINE__), FAST_OK);
	CHECK_EQ(one("80", 0, VEC, __LINE__), FAST_OK);
	/* back to W1: its entries as W1 and W2 left them; I8 is empty (a
	 * copy of it is the AVX2 body's), so sent: 2 */
	CHECK_EQ(one("c0 94", 0, FALLBACK, __LINE__), FAST_OK);
	CHECK_EQ(one("40 90 94 83", 0, VEC, __LINE__), FAST_OK);
	CHECK_EQ(one("80", 0, VEC, __LINE__), FAST_OK);
	fastx_prog_free(xs);
}

/* Two template ids in the same home slot of the id hash (1 and 234): the
 * second (fastx_prog_new inserts in template order) sits in the next slot,
 * which the vector path does not probe; its records go to the AVX2 body,
 * decoded as the reference does, the first's stay on the vector path. */
static const char collide_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
	"<template name=\"A\" id=\"1\"><int32 name=\"K\" id=\"1\"><copy/></int32></template>\n"
	"<template name=\"B\" id=\"234\"><int32 name=\"L\" id=\"2\"><copy/></int32></template>\n"
	"</templates>\n";

static void collide_cases(void)
{
	struct fastx_prog *xs = two_vec(collide_xml, sizeof collide_xml - 1, "collide");
	if (!xs)
		return;
	CHECK_EQ(one("e0 81 85", 0, VEC, __LINE__), FAST_OK);         /* A: K = 5 */
	CHECK_EQ(one("e0 01 ea 87", 0, FALLBACK, __LINE__), FAST_OK); /* B: L = 7 */
	CHECK_EQ(one("a0 82", 0, FALLBACK, __LINE__), FAST_OK);       /* B again (its id copied): L = 2 */
	CHECK_EQ(one("c0 81", 0, VEC, __LINE__), FAST_OK);            /* A: K copied */
	CHECK_EQ(one("80", 0, VEC, __LINE__), FAST_OK);
	fastx_prog_free(xs);
}

/* Template id 0 (legal): a record that copies it after one that sent it
 * went to the AVX2 body takes the vector path (the last id sent that the
 * vector path committed, fastx_dec.vlast, starts as id 0's template). */
static const char zero_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
	"<template name=\"Z\" id=\"0\"><int32 name=\"K\" id=\"1\"><copy/></int32></template>\n"
	"<template name=\"O\" id=\"1\"><int32 name=\"L\" id=\"2\"><copy/></int32></template>\n"
	"</templates>\n";

static void zero_cases(void)
{
	struct fastx_prog *xs = two_vec(zero_xml, sizeof zero_xml - 1, "zero");
	if (!xs)
		return;
	CHECK_EQ(one("e0 80 07 7f 7f 7f ff", 0, FALLBACK, __LINE__), FAST_OK); /* Z: K = 2^31 - 1, 5 bytes */
	CHECK_EQ(one("80", 0, VEC, __LINE__), FAST_OK);                        /* Z again, K copied */
	CHECK_EQ(one("e0 81 85", 0, VEC, __LINE__), FAST_OK);                  /* O: L = 5 */
	CHECK_EQ(one("e0 80 83", 0, VEC, __LINE__), FAST_OK);                  /* Z: K = 3 */
	CHECK_EQ(one("80", 0, VEC, __LINE__), FAST_OK);
	fastx_prog_free(xs);
}

/* The fuzzer's template made for the vector path qualifies (else the
 * fuzzer would not compare it); the others say why not. */
static void spec_cases(void)
{
	char err[256];
	struct fastx_prog *xs;
	int vec = 0;
	if (fast_compile_buffer(fastx_spec_xml, sizeof fastx_spec_xml - 1, "spec", &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "spec: %s\n", err);
		test_failures++;
		return;
	}
	xs = fastx_prog_new(&prog);
	CHECK(xs != NULL);
	if (!xs)
		return;
	for (uint32_t t = 0; t < prog.ntpl; t++) {
		if (prog.tpl[t].id == 14 || prog.tpl[t].id == 13)
			CHECK_EQ(fastx_prog_vwhy(xs, t)[0], 0);
		else
			CHECK(fastx_prog_vwhy(xs, t)[0] != 0);
		vec += !fastx_prog_vwhy(xs, t)[0];
	}
	CHECK(vec >= 2); /* Vec and Plain */
	fastx_prog_free(xs);
}

int main(void)
{
	char err[256];
	if (fastx_isa_max() < FASTX_ISA_VBMI)
		return test_skip("fastx_vec", "the CPU lacks AVX-512 VBMI2/BITALG (the VBMI level)");
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	xp = fastx_prog_new(&prog);
	CHECK(xp != NULL);
	if (!xp)
		return test_done("fastx_vec");
	for (uint32_t t = 0; t < prog.ntpl; t++)
		CHECK_EQ(fastx_prog_vwhy(xp, t)[0], 0); /* both SSE templates qualify */
	fast_dec_init(&dr, &prog);
	fast_dec_init(&dx, &prog);
	fastx_dec_init(&x, xp, &scratch);
	sse_cases();
	fastx_prog_free(xp);
	range_cases();
	wide_cases();
	collide_cases();
	zero_cases();
	spec_cases();
	return test_done("fastx_vec");
}
