/* test_step_deframe.c - the STEP deframer: framing, errors, resynchronisation, offsets.
 *
 * Messages are written here by hand as tag=value text; BodyLength and
 * CheckSum come from step_text.h (not from the code under test). Every stream is fed whole, one byte at a time, split in two at every
 * point and in pseudo-random chunks, and must give the same events.
 */
#include "test.h"

#include <stdlib.h>

#include "fast/step_deframe.h"
#include "step_text.h"

#define SOHC '\x01'

static struct step_deframer sd;

/* ---- building messages ---------------------------------------------------- */

/* The usual SSE body: 35, 49, 56, 34, 52, 95, 96. */
static size_t std_body(uint8_t *o, const char *type, unsigned seq, const uint8_t *data, size_t dlen)
{
	char t[256];
	size_t n;
	snprintf(t, sizeof t, "35=%s|49=VDE|56=VDR|34=%u|52=20261129-09:30:00.000|95=%zu|96=", type, seq,
		 dlen);
	n = put_txt(o, t);
	n += put_raw(o + n, data, dlen);
	n += put_txt(o + n, "|");
	return n;
}

/* A good message with sequence number seq and data "D<seq>..." */
static size_t good_msg(uint8_t *o, unsigned seq, size_t dlen)
{
	uint8_t body[512], data[256];
	size_t i;
	for (i = 0; i < dlen; i++)
		data[i] = (uint8_t)(0x80 + ((seq * 7 + i) & 0x7f));
	return frame(o, body, std_body(body, "UA3201", seq, data, dlen));
}

/* Offset of the first `needle` in hay[0..n), or -1. */
static long find(const uint8_t *hay, size_t n, const char *needle)
{
	uint8_t nb[64];
	size_t m = put_txt(nb, needle), i;
	for (i = 0; i + m <= n; i++)
		if (memcmp(hay + i, nb, m) == 0)
			return (long)i;
	return -1;
}

/* ---- running ----------------------------------------------------------------- */

struct ev {
	int st;
	int err;
	uint64_t off; /* msg.offset or err_offset */
	uint32_t len;
	uint64_t seq;
	uint32_t dlen;
	const uint8_t *data; /* expected: pointer to compare with; observed: copied below */
	uint8_t copy[512];
	char type[STEP_MAX_MSGTYPE + 1];
};

#define MAX_EV 32
static struct ev got[MAX_EV];
static int ngot;

static void record(const struct step_deframer *s, int st)
{
	struct ev *e;
	if (ngot >= MAX_EV) {
		CHECK(ngot < MAX_EV);
		return;
	}
	e = &got[ngot++];
	memset(e, 0, sizeof *e);
	e->st = st;
	if (st == STEP_ERROR) {
		e->err = s->err;
		e->off = s->err_offset;
		return;
	}
	e->off = s->msg.offset;
	e->len = s->msg.len;
	e->seq = s->msg.seq;
	e->dlen = s->msg.data_len;
	/* the data lies inside body[] and is valid now */
	CHECK(s->msg.data >= s->body && s->msg.data + s->msg.data_len <= s->body + sizeof s->body);
	memcpy(e->copy, s->msg.data, s->msg.data_len < sizeof e->copy ? s->msg.data_len : sizeof e->copy);
	memcpy(e->type, s->msg.msgtype, sizeof e->type);
	CHECK(s->msg.msgtype[STEP_MAX_MSGTYPE] == 0);
}

/* Feed one chunk, calling until STEP_NEED_MORE. */
static void feed_chunk(struct step_deframer *s, const uint8_t *p, uint32_t n)
{
	int guard;
	for (guard = 0; guard < 100000; guard++) {
		int st = -1;
		uint32_t used = step_feed(s, p, n, &st);
		CHECK(used <= n);
		if (used > n)
			return;
		p += used;
		n -= used;
		if (st == STEP_NEED_MORE) {
			CHECK_EQ(n, 0);
			return;
		}
		CHECK(st == STEP_MSG || st == STEP_ERROR);
		record(s, st);
	}
	CHECK(!"step_feed makes no progress");
}

/* Feed buf in chunks whose sizes come from `sizes` (cycled; 0 = all). */
static void feed_sizes(const uint8_t *buf, size_t n, const uint32_t *sizes, int nsizes)
{
	size_t at = 0;
	int k = 0;
	step_init(&sd);
	ngot = 0;
	while (at < n) {
		uint32_t c = sizes[k++ % nsizes];
		if (c == 0 || c > n - at)
			c = (uint32_t)(n - at);
		feed_chunk(&sd, buf + at, c);
		at += c;
	}
	feed_chunk(&sd, buf + at, 0);
}

static int same_events(const struct ev *exp, int nexp, int quiet)
{
	int i, ok = ngot == nexp;
	for (i = 0; ok && i < nexp; i++) {
		const struct ev *a = &got[i], *b = &exp[i];
		if (a->st != b->st || a->off != b->off) {
			ok = 0;
		} else if (b->st == STEP_ERROR) {
			ok = a->err == b->err;
		} else {
			ok = a->len == b->len && a->seq == b->seq && a->dlen == b->dlen &&
			     memcmp(a->copy, b->data, b->dlen < sizeof a->copy ? b->dlen : sizeof a->copy) == 0 &&
			     strcmp(a->type, b->type) == 0;
		}
	}
	if (!ok && !quiet) {
		fprintf(stderr, "  events: got %d, expected %d\n", ngot, nexp);
		for (i = 0; i < ngot; i++)
			fprintf(stderr, "  got[%d]: st %d err %d off %llu len %u seq %llu dlen %u type %s\n", i,
				got[i].st, got[i].err, (unsigned long long)got[i].off, got[i].len,
				(unsigned long long)got[i].seq, got[i].dlen, got[i].type);
		for (i = 0; i < nexp; i++)
			fprintf(stderr, "  exp[%d]: st %d err %d off %llu len %u seq %llu dlen %u type %s\n", i,
				exp[i].st, exp[i].err, (unsigned long long)exp[i].off, exp[i].len,
				(unsigned long long)exp[i].seq, exp[i].dlen, exp[i].type);
	}
	return ok;
}

/* Counters every way of feeding must agree on. */
struct counts {
	uint64_t messages, skipped;
	uint64_t errors[FAST_ERR_COUNT];
};

static void snap(struct counts *c)
{
	c->messages = sd.messages;
	c->skipped = sd.skipped;
	memcpy(c->errors, sd.errors, sizeof c->errors);
}

/* Feed buf every way and compare with exp; returns with sd in the state of
 * the whole-buffer run (for counter checks). */
static void run_all(const char *name, const uint8_t *buf, size_t n, const struct ev *exp, int nexp)
{
	static const uint32_t whole[] = {0}, one[] = {1};
	static const uint32_t odd[] = {3, 1, 7, 2, 64, 5, 13, 1, 1, 200};
	uint32_t split[2];
	struct counts ref, c;
	size_t k;
	unsigned rnd = 12345;
	int bad = 0;

	feed_sizes(buf, n, one, 1);
	if (!same_events(exp, nexp, 0)) {
		fprintf(stderr, "%s: byte by byte differs\n", name);
		bad++;
	}
	snap(&ref);
	for (k = 1; k < n && bad < 3; k++) {
		split[0] = (uint32_t)k;
		split[1] = 0;
		feed_sizes(buf, n, split, 2);
		snap(&c);
		if (!same_events(exp, nexp, 1) || memcmp(&c, &ref, sizeof c) != 0) {
			fprintf(stderr, "%s: split at %zu differs\n", name, k);
			same_events(exp, nexp, 0);
			bad++;
		}
	}
	feed_sizes(buf, n, odd, (int)(sizeof odd / sizeof odd[0]));
	snap(&c);
	if (!same_events(exp, nexp, 0) || memcmp(&c, &ref, sizeof c) != 0) {
		fprintf(stderr, "%s: odd chunks differ\n", name);
		bad++;
	}
	for (k = 0; k < 20; k++) {
		uint32_t sz[16];
		int j;
		for (j = 0; j < 16; j++) {
			rnd = rnd * 1103515245u + 12345u;
			sz[j] = 1 + (rnd >> 16) % 97;
		}
		feed_sizes(buf, n, sz, 16);
		snap(&c);
		if (!same_events(exp, nexp, 1) || memcmp(&c, &ref, sizeof c) != 0) {
			fprintf(stderr, "%s: random chunks %zu differ\n", name, k);
			bad++;
			break;
		}
	}
	feed_sizes(buf, n, whole, 1);
	snap(&c);
	if (!same_events(exp, nexp, 0) || memcmp(&c, &ref, sizeof c) != 0) {
		fprintf(stderr, "%s: whole differs\n", name);
		bad++;
	}
	CHECK_EQ(sd.bytes, n);
	if (bad)
		fprintf(stderr, "%s: FAILED\n", name);
	CHECK_EQ(bad, 0);
}

static struct ev msg_ev(uint64_t off, uint32_t len, uint64_t seq, const uint8_t *data, uint32_t dlen,
			const char *type)
{
	struct ev e;
	memset(&e, 0, sizeof e);
	e.st = STEP_MSG;
	e.off = off;
	e.len = len;
	e.seq = seq;
	e.data = data;
	e.dlen = dlen;
	snprintf(e.type, sizeof e.type, "%s", type);
	return e;
}

static struct ev err_ev(int err, uint64_t off)
{
	struct ev e;
	memset(&e, 0, sizeof e);
	e.st = STEP_ERROR;
	e.err = err;
	e.off = off;
	return e;
}

/* The 96= data of a message built by good_msg / std_body. */
static const uint8_t *data_of(const uint8_t *m, size_t n)
{
	return m + find(m, n, "|96=") + 4;
}

static uint64_t total_errors(void)
{
	uint64_t t = 0;
	int k;
	for (k = 0; k < FAST_ERR_COUNT; k++)
		t += sd.errors[k];
	return t;
}

/* ---- cases ----------------------------------------------------------------- */

static void test_good(void)
{
	uint8_t m[512];
	size_t n = good_msg(m, 42, 20);
	struct ev e = msg_ev(0, (uint32_t)n, 42, data_of(m, n), 20, "UA3201");

	/* the text is what the spec says: check our own builder once */
	CHECK(memcmp(m, "8=STEP.1.0.0\x01" "9=", 15) == 0);
	CHECK(find(m, n, "|10=") == (long)n - 8);

	run_all("good", m, n, &e, 1);
	CHECK_EQ(sd.messages, 1);
	CHECK_EQ(sd.skipped, 0);
	CHECK_EQ(total_errors(), 0);
	CHECK_EQ(sd.msg.len, n);
	CHECK_EQ(sd.msg.data_len, 20);
	CHECK(sd.msg.data >= sd.body && sd.msg.data + 20 <= sd.body + sizeof sd.body);
	CHECK_MEM(sd.msg.data, data_of(m, n), 20);
	CHECK(strcmp(sd.msg.msgtype, "UA3201") == 0);
}

/* A message without FAST data (a heartbeat or logon) is valid: delivered
 * with no data, counted in no_data, no error. */
static void test_no_data(void)
{
	uint8_t body[128], m[256];
	size_t bl = put_txt(body, "35=UA1201|49=SSE|56=VDE|34=7|52=20261129-09:30:00.000|");
	size_t n = frame(m, body, bl);
	struct ev e = msg_ev(0, (uint32_t)n, 7, body, 0, "UA1201");
	run_all("no_data", m, n, &e, 1);
	CHECK_EQ(sd.messages, 1);
	CHECK_EQ(sd.no_data, 1);
	CHECK_EQ(total_errors(), 0);
	CHECK_EQ(sd.msg.data_len, 0);
}

static void test_back_to_back(void)
{
	uint8_t buf[2048];
	size_t n = 0, at[4], len[4];
	struct ev e[4];
	int k;
	for (k = 0; k < 4; k++) {
		at[k] = n;
		len[k] = good_msg(buf + n, 100 + (unsigned)k, (size_t)(k * 13));
		n += len[k];
	}
	for (k = 0; k < 4; k++)
		e[k] = msg_ev(at[k], (uint32_t)len[k], 100 + (unsigned)k, data_of(buf + at[k], len[k]),
			      (uint32_t)(k * 13), "UA3201");
	run_all("back to back", buf, n, e, 4);
	CHECK_EQ(sd.messages, 4);
	CHECK_EQ(sd.skipped, 0);
	CHECK_EQ(total_errors(), 0);
}

/* 96= data holding SOH, '=' and a whole STEP message: the length rules. */
static void test_data_with_framing_bytes(void)
{
	uint8_t inner[256], data[300], body[512], m[1024];
	size_t ni = good_msg(inner, 7, 5), nd = 0, n;
	struct ev e;
	nd += put_txt(data, "|=|8=STEP|==");
	nd += put_raw(data + nd, inner, ni);
	nd += put_txt(data + nd, "|10=000|");
	n = frame(m, body, std_body(body, "UA5801", 9, data, nd));
	e = msg_ev(0, (uint32_t)n, 9, data, (uint32_t)nd, "UA5801");
	run_all("data with framing bytes", m, n, &e, 1);
	CHECK_EQ(sd.messages, 1);
	CHECK_EQ(total_errors(), 0);
}

static void test_checksum(void)
{
	uint8_t buf[2048], body[512];
	size_t n1, n2, n;
	struct ev e[2];
	uint8_t data[4] = {0x19, 0x81, 0x80, 0x81};
	size_t bl = std_body(body, "UA3201", 1, data, 4);

	/* wrong value: detected at the final SOH; the next message is found */
	n1 = frame_x(buf, body, bl, 0, 1, NULL);
	n2 = good_msg(buf + n1, 2, 10);
	n = n1 + n2;
	e[0] = err_ev(STEP_E_BAD_CHECKSUM, n1 - 1);
	e[1] = msg_ev(n1, (uint32_t)n2, 2, data_of(buf + n1, n2), 10, "UA3201");
	run_all("bad checksum", buf, n, e, 2);
	CHECK_EQ(sd.errors[STEP_E_BAD_CHECKSUM], 1);
	CHECK_EQ(sd.errors[STEP_E_GARBAGE], 0);
	CHECK_EQ(sd.messages, 1);
	CHECK_EQ(sd.skipped, n1);
	CHECK_EQ(sd.bytes, n1 + n2);

	/* malformed: a letter, too few digits, too many digits */
	n1 = frame_x(buf, body, bl, 0, 0, "10=1a3|");
	e[0] = err_ev(STEP_E_BAD_CHECKSUM, n1 - 3);
	run_all("checksum letter", buf, n1, e, 1);
	n1 = frame_x(buf, body, bl, 0, 0, "10=12|");
	e[0] = err_ev(STEP_E_BAD_CHECKSUM, n1 - 1);
	run_all("checksum 2 digits", buf, n1, e, 1);
	n1 = frame_x(buf, body, bl, 0, 0, "10=1234|");
	e[0] = err_ev(STEP_E_BAD_CHECKSUM, n1 - 2);
	run_all("checksum 4 digits", buf, n1, e, 1);
	CHECK_EQ(sd.messages, 0);
}

static void test_body_length(void)
{
	uint8_t buf[2048], body[512];
	uint8_t data[6] = {1, 2, 3, 0x3d, 5, 6};
	size_t bl = std_body(body, "UA3201", 5, data, 6), n1, n2;
	struct ev e[2];

#define NEXT_GOOD()                                                                              \
	do {                                                                                     \
		n2 = good_msg(buf + n1, 6, 3);                                                   \
		e[1] = msg_ev(n1, (uint32_t)n2, 6, data_of(buf + n1, n2), 3, "UA3201");         \
	} while (0)

	/* one too long: the body ends after the '1' of "10=", inside a tag */
	n1 = frame_x(buf, body, bl, 1, 0, NULL);
	NEXT_GOOD();
	e[0] = err_ev(STEP_E_BAD_LENGTH, n1 - 6);
	run_all("length +1", buf, n1 + n2, e, 2);
	CHECK_EQ(sd.errors[STEP_E_BAD_LENGTH], 1);
	CHECK_EQ(sd.skipped, n1);

	/* two or more too long: tag 10 inside the body, detected at its '=' */
	n1 = frame_x(buf, body, bl, 2, 0, NULL);
	NEXT_GOOD();
	e[0] = err_ev(STEP_E_BAD_LENGTH, n1 - 5);
	run_all("length +2", buf, n1 + n2, e, 2);
	n1 = frame_x(buf, body, bl, 300, 0, NULL);
	NEXT_GOOD();
	e[0] = err_ev(STEP_E_BAD_LENGTH, n1 - 5);
	run_all("length +300", buf, n1 + n2, e, 2);

	/* one too short: 96= data and its SOH no longer fit (detected at 96's '=') */
	n1 = frame_x(buf, body, bl, -1, 0, NULL);
	NEXT_GOOD();
	e[0] = err_ev(STEP_E_BAD_DATA_LEN, (uint64_t)find(buf, n1, "|96=") + 3);
	run_all("length -1", buf, n1 + n2, e, 2);

	/* a field after 96=: too short by 2 ends the body inside it */
	{
		uint8_t b2[512];
		size_t l2 = bl;
		memcpy(b2, body, bl);
		l2 += put_txt(b2 + l2, "58=xyz|");
		n1 = frame_x(buf, b2, l2, -2, 0, NULL);
		NEXT_GOOD();
		/* the body ends after "58=xy": 'z' is the first byte past it */
		e[0] = err_ev(STEP_E_BAD_LENGTH, (uint64_t)find(buf, n1, "58=xyz") + 5);
		run_all("length -2 mid-field", buf, n1 + n2, e, 2);

		/* too short by the whole last field: "58=" is where "10=" should be */
		n1 = frame_x(buf, b2, l2, -7, 0, NULL);
		NEXT_GOOD();
		e[0] = err_ev(STEP_E_BAD_LENGTH, (uint64_t)find(buf, n1, "58=xyz"));
		run_all("length -7 at boundary", buf, n1 + n2, e, 2);
	}
#undef NEXT_GOOD
}

static void test_header(void)
{
	uint8_t buf[2048], body[512];
	uint8_t data[2] = {0x19, 0x81};
	size_t bl = std_body(body, "UA3201", 5, data, 2), n, n2, h;
	struct ev e[2];
	char t[64];

	static const struct {
		const char *len;
		int err;
		int at; /* offset of the bad byte after "9=" */
	} cases[] = {
		{"12a|", STEP_E_BAD_HEADER, 2}, {"|", STEP_E_BAD_HEADER, 0},
		{"-5|", STEP_E_BAD_HEADER, 0},  {" 5|", STEP_E_BAD_HEADER, 0},
		{"+5|", STEP_E_BAD_HEADER, 0},  {"1234567|", STEP_E_TOO_LONG, 6},
		{"32769|", STEP_E_TOO_LONG, 5}, {"99999|", STEP_E_TOO_LONG, 5},
	};
	size_t k;
	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		n = put_txt(buf, "8=STEP.1.0.0|9=");
		h = n;
		n += put_txt(buf + n, cases[k].len);
		n += put_raw(buf + n, body, bl);
		n2 = good_msg(buf + n, 8, 4);
		e[0] = err_ev(cases[k].err, h + (size_t)cases[k].at);
		e[1] = msg_ev(n, (uint32_t)n2, 8, data_of(buf + n, n2), 4, "UA3201");
		snprintf(t, sizeof t, "length field '%s'", cases[k].len);
		run_all(t, buf, n + n2, e, 2);
		CHECK_EQ(sd.errors[cases[k].err], 1);
		CHECK_EQ(sd.errors[STEP_E_GARBAGE], 0);
	}

	/* other versions are accepted; a missing '.', a missing 9= or an
	 * endless version text are not */
	n = frame_v(buf, "8=STEP.2.0|", body, bl, 0, 0, NULL);
	e[0] = msg_ev(0, (uint32_t)n, 5, data, 2, "UA3201");
	run_all("version 2.0", buf, n, e, 1);
	n = frame_v(buf, "8=STEP.|", body, bl, 0, 0, NULL);
	e[0] = msg_ev(0, (uint32_t)n, 5, data, 2, "UA3201");
	run_all("empty version", buf, n, e, 1);
	n = put_txt(buf, "8=STEPX1.0.0|9=5|");
	e[0] = err_ev(STEP_E_BAD_HEADER, 6);
	run_all("no dot", buf, n, e, 1);
	n = put_txt(buf, "8=STEP.1.0.0|35=UA|");
	e[0] = err_ev(STEP_E_BAD_HEADER, 13);
	run_all("no 9=", buf, n, e, 1);
	n = put_txt(buf, "8=STEP.1.0.0|9|");
	e[0] = err_ev(STEP_E_BAD_HEADER, 14);
	run_all("9 without =", buf, n, e, 1);
	n = put_txt(buf, "8=STEP.0123456789abcdefg|9=5|");
	e[0] = err_ev(STEP_E_BAD_HEADER, 7 + 16);
	run_all("long version", buf, n, e, 1);
}

static void test_fields(void)
{
	uint8_t buf[2048], body[512];
	size_t n, n2;
	struct ev e[2];
	static const struct {
		const char *body;
		int err;
		const char *at; /* the error is at the last byte of this text's first match */
	} cases[] = {
		{"35=UA|4a=x|95=1|96=A|", STEP_E_BAD_FIELD, "4a"},
		{"35=UA|49|95=1|96=A|", STEP_E_BAD_FIELD, "49|"},
		{"35=UA|=x|95=1|96=A|", STEP_E_BAD_FIELD, "|="},
		{"35=UA|49=|95=1|96=A|", STEP_E_BAD_FIELD, "49=|"},
		{"35=|95=1|96=A|", STEP_E_BAD_FIELD, "35=|"},
		{"35=UA|34=12x|95=1|96=A|", STEP_E_BAD_FIELD, "12x"},
		{"35=UA|34=|95=1|96=A|", STEP_E_BAD_FIELD, "34=|"},
		{"35=UA|34=-1|95=1|96=A|", STEP_E_BAD_FIELD, "34=-"},
		{"35=UA|95=1x|96=A|", STEP_E_BAD_DATA_LEN, "1x"},
		{"35=UA|95=|96=A|", STEP_E_BAD_DATA_LEN, "95=|"},
		{"35=UA|95=1234567|96=A|", STEP_E_BAD_DATA_LEN, "1234567"},
		/* 96 without 95, 95 without 96, neither, twice */
		{"35=UA|96=A|", STEP_E_BAD_DATA_LEN, "96="},
		{"35=UA|95=1|96=A|95=1|96=A|", STEP_E_BAD_DATA_LEN, "=A|95="},
		{"35=UA|95=1|49=VDE|", STEP_E_NO_DATA, NULL},
		/* 95 with nothing left of the body for its data */
		{"35=UA|95=1|", STEP_E_BAD_DATA_LEN, "95=1|"},
		/* 95 larger than what is left of the body: at its SOH */
		{"35=UA|95=50|96=0123456789|", STEP_E_BAD_DATA_LEN, "95=50|"},
		/* fits at 95 (12 <= 14 left) but not at 96 (12 + SOH > 11) */
		{"35=UA|95=12|96=0123456789|", STEP_E_BAD_DATA_LEN, "96="},
		/* shorter than the data: the byte after 9 data bytes is not SOH */
		{"35=UA|95=9|96=0123456789|", STEP_E_BAD_DATA_LEN, "0123456789"},
	};
	size_t k;
	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		size_t bl = put_txt(body, cases[k].body);
		char t[80];
		n = frame(buf, body, bl);
		n2 = good_msg(buf + n, 8, 4);
		if (cases[k].at)
			e[0] = err_ev(cases[k].err, (uint64_t)find(buf, n, cases[k].at) +
							    strlen(cases[k].at) - 1);
		else
			e[0] = err_ev(cases[k].err, n - 1); /* final SOH */
		e[1] = msg_ev(n, (uint32_t)n2, 8, data_of(buf + n, n2), 4, "UA3201");
		snprintf(t, sizeof t, "field case %zu '%s'", k, cases[k].body);
		run_all(t, buf, n + n2, e, 2);
		CHECK_EQ(sd.errors[cases[k].err], 1);
		CHECK_EQ(total_errors(), 1);
		CHECK_EQ(sd.messages, 1);
		CHECK_EQ(sd.skipped, n);
	}

	/* minimal body, no 34 (seq 0), long msgtype truncated, empty data,
	 * leading zeros in 95, data of '=' and SOH only */
	{
		uint8_t m[256];
		size_t bl = put_txt(body, "35=ABCDEFGHIJKLMNOPQRST|95=0|96=|");
		n = frame(m, body, bl);
		e[0] = msg_ev(0, (uint32_t)n, 0, m, 0, "ABCDEFGHIJKLMNO");
		run_all("long msgtype, empty data", m, n, e, 1);
		bl = put_txt(body, "95=003|96=|=||");
		n = frame(m, body, bl);
		e[0] = msg_ev(0, (uint32_t)n, 0, (const uint8_t *)"\x01=\x01", 3, "");
		run_all("data of SOH and =", m, n, e, 1);
		/* 34 with 19 digits is taken, 20 digits is not */
		bl = put_txt(body, "34=1234567890123456789|95=1|96=x|");
		n = frame(m, body, bl);
		e[0] = msg_ev(0, (uint32_t)n, 1234567890123456789ull, (const uint8_t *)"x", 1, "");
		run_all("seq 19 digits", m, n, e, 1);
		bl = put_txt(body, "34=12345678901234567890|95=1|96=x|");
		n = frame(m, body, bl);
		e[0] = err_ev(STEP_E_BAD_FIELD, (uint64_t)find(m, n, "890|") + 2);
		run_all("seq 20 digits", m, n, e, 1);

		/* any byte but SOH inside ordinary values (NUL, 0xff, '=', high
		 * bytes next to SOH), tags with leading zeros, several 35= and 34=
		 * (the last wins), a field after 96= */
		{
			static const uint8_t v1[] = {'4', '9', '=', 0x00, 0xff, '=', 0x80, 0x01};
			static const uint8_t v2[] = {'5', '8', '=', 0x00, 0x01, '5', '6', '=', 0x02, 0x00, 0x00, 0x01};
			bl = put_txt(body, "35=FIRST|034=5|");
			bl += put_raw(body + bl, v1, sizeof v1);
			bl += put_raw(body + bl, v2, sizeof v2);
			bl += put_txt(body + bl, "35=UA5801|34=77|95=2|96=\x01\x01|0058=end|");
			n = frame(m, body, bl);
			e[0] = msg_ev(0, (uint32_t)n, 77, (const uint8_t *)"\x01\x01", 2, "UA5801");
			run_all("binary values", m, n, e, 1);
		}
	}
}

static void test_garbage(void)
{
	uint8_t buf[2048];
	size_t n = 0, a, b, la, lb, j1, j2, j3;
	struct ev e[4];

	j1 = put_txt(buf, "xyz8=ST");
	n = j1;
	a = n;
	la = good_msg(buf + n, 1, 8);
	n += la;
	j2 = put_txt(buf + n, "junk 8=STE8=S88|");
	n += j2;
	b = n;
	lb = good_msg(buf + n, 2, 9);
	n += lb;
	j3 = put_txt(buf + n, "trailing 8=STE");
	n += j3;

	e[0] = err_ev(STEP_E_GARBAGE, 0);
	e[1] = msg_ev(a, (uint32_t)la, 1, data_of(buf + a, la), 8, "UA3201");
	e[2] = err_ev(STEP_E_GARBAGE, a + la);
	e[3] = msg_ev(b, (uint32_t)lb, 2, data_of(buf + b, lb), 9, "UA3201");
	run_all("garbage", buf, n, e, 4);
	CHECK_EQ(sd.errors[STEP_E_GARBAGE], 2);
	CHECK_EQ(total_errors(), 2);
	CHECK_EQ(sd.messages, 2);
	/* trailing junk is counted; its final "8=STE" is held as a possible start */
	CHECK_EQ(sd.skipped, j1 + j2 + j3 - 5);
	CHECK_EQ(sd.bytes, la + lb + sd.skipped + 5);

	/* junk then a lone "8=STEP": the run is reported when 8=STEP is seen */
	n = put_txt(buf, "ab8=STEP");
	e[0] = err_ev(STEP_E_GARBAGE, 0);
	run_all("junk then 8=STEP", buf, n, e, 1);
	CHECK_EQ(sd.skipped, 2);
}

/* A message cut short, followed by a good one: the good one must be found
 * inside the bytes the broken one swallowed. */
static void test_truncated(void)
{
	uint8_t buf[4096], m1[512];
	size_t n1 = good_msg(m1, 1, 40), n2, cut, n;
	long d = find(m1, n1, "|96=") + 4;
	struct ev e[3];

	/* cut inside the 96= data: the body takes 40 - 10 bytes of the next
	 * message as data, then wants an SOH */
	cut = (size_t)d + 10;
	memcpy(buf, m1, cut);
	n2 = good_msg(buf + cut, 2, 40);
	n = cut + n2;
	CHECK(buf[cut + 30] != 0x01);
	e[0] = err_ev(STEP_E_BAD_DATA_LEN, cut + 30);
	e[1] = msg_ev(cut, (uint32_t)n2, 2, data_of(buf + cut, n2), 40, "UA3201");
	run_all("truncated in data", buf, n, e, 2);
	CHECK_EQ(sd.skipped, cut);
	CHECK_EQ(sd.errors[STEP_E_GARBAGE], 0);

	/* cut inside 9=: "9=1" then "8=STEP": BodyLength 18, then '=' */
	cut = 16;
	memcpy(buf, m1, cut);
	CHECK(buf[cut - 1] == m1[15] && m1[13] == '9');
	n2 = good_msg(buf + cut, 3, 5);
	n = cut + n2;
	e[0] = err_ev(STEP_E_BAD_HEADER, cut + 1);
	e[1] = msg_ev(cut, (uint32_t)n2, 3, data_of(buf + cut, n2), 5, "UA3201");
	run_all("truncated in 9=", buf, n, e, 2);

	/* cut in the body header: the next message's bytes read as fields; its
	 * "10=" tag comes inside the body (BodyLength too long) */
	{
		uint8_t m3[512];
		size_t n3 = good_msg(m3, 1, 120);
		cut = (size_t)find(m3, n3, "|34=") + 1;
		memcpy(buf, m3, cut);
	}
	n2 = good_msg(buf + cut, 4, 5);
	n = cut + n2;
	e[0] = err_ev(STEP_E_BAD_LENGTH, cut + (size_t)find(buf + cut, n2, "|10=") + 3);
	e[1] = msg_ev(cut, (uint32_t)n2, 4, data_of(buf + cut, n2), 5, "UA3201");
	run_all("truncated in body", buf, n, e, 2);

	/* two truncated messages, then a good one: nested resynchronisation */
	{
		size_t c1 = (size_t)find(m1, n1, "|52=") + 1, c2 = (size_t)d + 3;
		memcpy(buf, m1, c1);
		memcpy(buf + c1, m1, c2);
		n2 = good_msg(buf + c1 + c2, 5, 30);
		n = c1 + c2 + n2;
		feed_sizes(buf, n, (const uint32_t[]){0}, 1);
		CHECK(ngot >= 2);
		CHECK_EQ(got[ngot - 1].st, STEP_MSG);
		CHECK_EQ(got[ngot - 1].off, c1 + c2);
		CHECK_EQ(got[ngot - 1].seq, 5);
		CHECK_EQ(sd.messages, 1);
		CHECK_EQ(sd.errors[STEP_E_GARBAGE], 0);
		CHECK_EQ(sd.skipped, c1 + c2);
		/* and byte by byte */
		feed_sizes(buf, n, (const uint32_t[]){1}, 1);
		CHECK_EQ(sd.messages, 1);
		CHECK_EQ(sd.skipped, c1 + c2);
		CHECK(ngot >= 2 && got[ngot - 1].st == STEP_MSG && got[ngot - 1].off == c1 + c2);
	}
}

/* The data of a corrupted message holds "8=STEP": the hunt resumes inside it. */
static void test_inner_step(void)
{
	uint8_t buf[4096], body[1024], data[512], inner[256];
	size_t ni = good_msg(inner, 77, 6), nd, n1, n2, pi;
	struct ev e[4];

	/* a fragment only: resynchronising on it gives a second error */
	nd = put_txt(data, "ab8=STEPxy");
	n1 = frame_x(buf, body, std_body(body, "UA3201", 1, data, nd), 0, 3, NULL);
	n2 = good_msg(buf + n1, 2, 7);
	e[0] = err_ev(STEP_E_BAD_CHECKSUM, n1 - 1);
	e[1] = err_ev(STEP_E_BAD_HEADER, (uint64_t)find(buf, n1, "8=STEPxy") + 6);
	e[2] = msg_ev(n1, (uint32_t)n2, 2, data_of(buf + n1, n2), 7, "UA3201");
	run_all("inner fragment", buf, n1 + n2, e, 3);
	CHECK_EQ(sd.errors[STEP_E_BAD_CHECKSUM], 1);
	CHECK_EQ(sd.errors[STEP_E_BAD_HEADER], 1);
	CHECK_EQ(sd.errors[STEP_E_GARBAGE], 0);
	CHECK_EQ(sd.skipped, n1);

	/* a whole valid message inside a corrupted one is delivered */
	nd = put_txt(data, "zz");
	memcpy(data + nd, inner, ni);
	nd += ni;
	nd += put_txt(data + nd, "q");
	n1 = frame_x(buf, body, std_body(body, "UA3201", 1, data, nd), 0, 1, NULL);
	n2 = good_msg(buf + n1, 2, 7);
	pi = (size_t)find(buf + 1, n1 - 1, "8=STEP") + 1;
	e[0] = err_ev(STEP_E_BAD_CHECKSUM, n1 - 1);
	e[1] = msg_ev(pi, (uint32_t)ni, 77, data_of(inner, ni), 6, "UA3201");
	/* what follows the inner message is junk after a good message */
	e[2] = err_ev(STEP_E_GARBAGE, pi + ni);
	e[3] = msg_ev(n1, (uint32_t)n2, 2, data_of(buf + n1, n2), 7, "UA3201");
	run_all("inner message", buf, n1 + n2, e, 4);
	CHECK_EQ(sd.messages, 2);
	CHECK_EQ(sd.skipped, n1 - ni);

	/* a valid message whose data holds a corrupted one: no error at all */
	n1 = frame(buf, body, std_body(body, "UA3201", 3, data, nd));
	e[0] = msg_ev(0, (uint32_t)n1, 3, data, (uint32_t)nd, "UA3201");
	run_all("inner message, outer good", buf, n1, e, 1);
}

static void test_resync(void)
{
	uint8_t m1[512], m2[512];
	size_t n1 = good_msg(m1, 1, 30), n2 = good_msg(m2, 2, 30);
	int st;
	uint32_t used;

	step_init(&sd);
	used = step_feed(&sd, m1, (uint32_t)(n1 / 2), &st);
	CHECK_EQ(used, n1 / 2);
	CHECK_EQ(st, STEP_NEED_MORE);
	/* a gap: the stream continues at offset 1000 with a new message */
	step_resync(&sd, 1000);
	CHECK_EQ(sd.skipped, n1 / 2);
	used = step_feed(&sd, m2, (uint32_t)n2, &st);
	CHECK_EQ(used, n2);
	CHECK_EQ(st, STEP_MSG);
	CHECK_EQ(sd.msg.offset, 1000);
	CHECK_EQ(sd.msg.seq, 2);
	CHECK_EQ(total_errors(), 0);
	CHECK_EQ(sd.bytes, n1 / 2 + n2);

	/* resynchronising mid-stream: the tail of the old message is junk */
	step_resync(&sd, 5000);
	used = step_feed(&sd, m1 + 20, (uint32_t)(n1 - 20), &st);
	CHECK_EQ(used, n1 - 20);
	CHECK_EQ(st, STEP_NEED_MORE);
	used = step_feed(&sd, m2, (uint32_t)n2, &st);
	CHECK_EQ(st, STEP_ERROR);
	CHECK_EQ(sd.err, STEP_E_GARBAGE);
	CHECK_EQ(sd.err_offset, 5000);
	CHECK_EQ(used, 6);
	used += step_feed(&sd, m2 + used, (uint32_t)(n2 - used), &st);
	CHECK_EQ(used, n2);
	CHECK_EQ(st, STEP_MSG);
	CHECK_EQ(sd.msg.offset, 5000 + n1 - 20);
	CHECK_EQ(sd.skipped, n1 / 2 + n1 - 20);
	CHECK_EQ(sd.errors[STEP_E_GARBAGE], 1);

	/* resync while resynchronising after an error drops the pending bytes */
	{
		uint8_t bad[512];
		size_t nb = n1;
		memcpy(bad, m1, n1);
		bad[nb - 2] ^= 1; /* checksum digit */
		step_init(&sd);
		used = step_feed(&sd, bad, (uint32_t)nb, &st);
		CHECK_EQ(st, STEP_ERROR);
		CHECK_EQ(sd.err, STEP_E_BAD_CHECKSUM);
		CHECK_EQ(sd.err_offset, nb - 1);
		CHECK_EQ(used, nb);
		step_resync(&sd, 0);
		CHECK_EQ(sd.skipped, used);
		used = step_feed(&sd, m2, (uint32_t)n2, &st);
		CHECK_EQ(st, STEP_MSG);
		CHECK_EQ(sd.msg.offset, 0);
	}
}

/* The largest BodyLength accepted, and one more. */
static void test_max_size(void)
{
	static uint8_t buf[2 * STEP_MAX_BODY + 256], body[STEP_MAX_BODY + 64], data[STEP_MAX_BODY];
	size_t hl, dl, bl, n, n2, k;
	struct ev e[2];
	char t[64];

	/* BodyLength = hl + len("95=") + digits + 1 + len("96=") + dl + 1 */
	hl = put_txt(body, "35=UA3201|34=9|");
	dl = STEP_MAX_BODY - hl - 3 - 5 - 1 - 3 - 1;
	for (k = 0; k < dl; k++)
		data[k] = (uint8_t)(k * 31 + 7);
	snprintf(t, sizeof t, "95=%zu|96=", dl);
	bl = hl + put_txt(body + hl, t);
	bl += put_raw(body + bl, data, dl);
	bl += put_txt(body + bl, "|");
	CHECK_EQ(bl, STEP_MAX_BODY);
	n = frame(buf, body, bl);
	e[0] = msg_ev(0, (uint32_t)n, 9, data, (uint32_t)dl, "UA3201");
	feed_sizes(buf, n, (const uint32_t[]){0}, 1);
	CHECK(same_events(e, 1, 0));
	CHECK_EQ(sd.msg.data_len, dl);
	CHECK_MEM(sd.msg.data, data, dl);
	feed_sizes(buf, n, (const uint32_t[]){1000, 1, 77}, 3);
	CHECK(same_events(e, 1, 0));
	CHECK_MEM(sd.msg.data, data, dl);

	/* one byte more */
	hl = put_txt(body, "35=UA3201|34=99|");
	bl = hl + put_txt(body + hl, t);
	bl += put_raw(body + bl, data, dl);
	bl += put_txt(body + bl, "|");
	CHECK_EQ(bl, STEP_MAX_BODY + 1);
	n = frame(buf, body, bl);
	n2 = good_msg(buf + n, 3, 3);
	e[0] = err_ev(STEP_E_TOO_LONG, (uint64_t)find(buf, n, "|35=")); /* SOH ending 9= */
	e[1] = msg_ev(n, (uint32_t)n2, 3, data_of(buf + n, n2), 3, "UA3201");
	feed_sizes(buf, n + n2, (const uint32_t[]){0}, 1);
	CHECK(same_events(e, 2, 0));
	feed_sizes(buf, n + n2, (const uint32_t[]){1}, 1);
	CHECK(same_events(e, 2, 0));
	CHECK_EQ(sd.skipped, n);

	/* a too-long message full of junk that is really a message stream:
	 * every message inside the pending bytes is still found */
	{
		size_t at = 0, cnt = 0;
		at = put_txt(buf, "8=STEP.1.0.0|9=900|");
		while (at < 2000) {
			at += good_msg(buf + at, (unsigned)(10 + cnt), 20);
			cnt++;
		}
		feed_sizes(buf, at, (const uint32_t[]){0}, 1);
		CHECK_EQ(sd.messages, cnt);
		CHECK_EQ(sd.bytes, at);
		feed_sizes(buf, at, (const uint32_t[]){1}, 1);
		CHECK_EQ(sd.messages, cnt);
		CHECK_EQ(got[ngot - 1].st, STEP_MSG);
		CHECK_EQ(got[ngot - 1].seq, 10 + cnt - 1);
	}
}

/* Random corruption: no crash, counters add up, good messages after the
 * damage are found, and whole and byte-by-byte feeding agree. */
static void test_random_damage(void)
{
	static uint8_t buf[8192], ref_copy[8192];
	unsigned rnd = 99;
	int round;
	for (round = 0; round < 300; round++) {
		size_t n = 0, k, last_at = 0;
		int nm = 1 + round % 5, j;
		struct counts c1, c2;
		int g1;
		for (j = 0; j < nm; j++)
			n += good_msg(buf + n, (unsigned)j, (size_t)(round % 40));
		for (k = 0; k < 3; k++) {
			rnd = rnd * 1103515245u + 12345u;
			buf[(rnd >> 8) % n] = (uint8_t)(rnd >> 24);
		}
		last_at = n;
		n += good_msg(buf + n, 999, 11);
		memcpy(ref_copy, buf, n);
		feed_sizes(buf, n, (const uint32_t[]){0}, 1);
		snap(&c1);
		g1 = ngot;
		CHECK(ngot >= 1 && got[ngot - 1].st == STEP_MSG && got[ngot - 1].seq == 999 &&
		      got[ngot - 1].off == last_at);
		feed_sizes(buf, n, (const uint32_t[]){1}, 1);
		snap(&c2);
		CHECK(memcmp(&c1, &c2, sizeof c1) == 0);
		CHECK_EQ(ngot, g1);
		CHECK(sd.skipped <= n);
		CHECK_MEM(buf, ref_copy, n);
	}
}

int main(void)
{
	test_good();
	test_no_data();
	test_back_to_back();
	test_data_with_framing_bytes();
	test_checksum();
	test_body_length();
	test_header();
	test_fields();
	test_garbage();
	test_truncated();
	test_inner_step();
	test_resync();
	test_max_size();
	test_random_damage();
	return test_done("step_deframe");
}
