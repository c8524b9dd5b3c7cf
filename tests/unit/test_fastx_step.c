/* test_fastx_step.c - the fast path's STEP framing (fastx_step_feed) against the state machine (step_feed).
 *
 * fastx_step_feed frames whole messages in bulk and holds the clean head of
 * a message split across chunks until the rest arrives; step_feed
 * (kernels/fast/step_deframe.c) is the definition. The same bytes go through
 * both on separate deframers, cut into chunks at every position (two chunks,
 * and three around the split message), and every call must agree: status,
 * bytes consumed, the message (offset, length, sequence, type, data bytes,
 * raw bytes of a message without data), the error and its offset, and after
 * every chunk the counters, step_pending() and msg_start. Streams: good
 * messages, a heartbeat without 96=, junk between messages, and one message
 * damaged at every byte with several values (its checksum left wrong, or
 * repaired so the damage meets the field rules), at every instruction-set
 * level the CPU has; and a head held by the fast path handed to step_feed
 * alone (the decoder choice is live on reload); messages whose values
 * change length (9=, 34=, 95= digit counts) framed by the header memo. Also checks that split
 * messages were joined by the fast path (step_joined), not left to the
 * state machine.
 */
#include "test.h"

#include <stdlib.h>

#include "fast/step_deframe.h"
#include "fast/host/fastx.h"
#include "step_text.h"

static struct step_deframer ra, rb;
static struct fastx_dec xd;
static int nbad;
static int b_ref; /* deframer b is fed by step_feed too (a decoder switch after a held head) */

static size_t data_msg(uint8_t *o, unsigned seq, size_t dlen)
{
	uint8_t body[2048];
	char t[128];
	size_t n, i;
	snprintf(t, sizeof t, "35=UA3201|49=VDE|56=VDR|34=%u|52=20261129-09:30:00.000|95=%zu|96=", seq, dlen);
	n = put_txt(body, t);
	for (i = 0; i < dlen; i++)
		body[n++] = (uint8_t)(i % 3 == 0 ? 0x01 : 0x80 + i); /* SOH inside the data too */
	body[n++] = 0x01;
	return frame(o, body, n);
}

/* A message without data with one long ordinary field (58= text): a head
 * cut inside it and growing in small pieces goes to the state machine. */
static size_t long_text(uint8_t *o, unsigned seq, size_t tlen)
{
	uint8_t body[1024];
	char t[96];
	size_t n, i;
	snprintf(t, sizeof t, "35=B|49=VDE|56=VDR|34=%u|58=", seq);
	n = put_txt(body, t);
	for (i = 0; i < tlen && n < sizeof body - 2; i++)
		body[n++] = (uint8_t)('a' + i % 26);
	body[n++] = 0x01;
	return frame(o, body, n);
}

static size_t heartbeat(uint8_t *o, unsigned seq)
{
	uint8_t body[128];
	char t[96];
	snprintf(t, sizeof t, "35=0|49=VDE|56=VDR|34=%u|52=20261129-09:30:01.000|", seq);
	return frame(o, body, put_txt(body, t));
}

/* Recompute the trailer of the message at m[0..n) when it still has the shape "10=ddd|". */
static void repair_ck(uint8_t *m, size_t n)
{
	unsigned sum = 0;
	size_t i;
	if (n < 7 || m[n - 7] != '1' || m[n - 6] != '0' || m[n - 5] != '=' || m[n - 1] != 0x01)
		return;
	for (i = 0; i < n - 7; i++)
		sum += m[i];
	sum %= 256;
	m[n - 4] = (uint8_t)('0' + sum / 100);
	m[n - 3] = (uint8_t)('0' + sum % 100 / 10);
	m[n - 2] = (uint8_t)('0' + sum % 10);
}

static void cmp_state(const char *what, size_t at)
{
	int bad = ra.messages != rb.messages || ra.bytes != rb.bytes || ra.skipped != rb.skipped ||
		  ra.no_data != rb.no_data || ra.offset != rb.offset || ra.msg_start != rb.msg_start ||
		  step_pending(&ra) != step_pending(&rb) || memcmp(ra.errors, rb.errors, sizeof ra.errors) != 0;
	test_checks++;
	if (bad && nbad++ < 10) {
		test_failures++;
		fprintf(stderr, "%s, chunk ending at %zu: state differs (messages %llu/%llu skipped %llu/%llu pending %u/%u "
				"start %llu/%llu)\n",
			what, at, (unsigned long long)ra.messages, (unsigned long long)rb.messages,
			(unsigned long long)ra.skipped, (unsigned long long)rb.skipped, step_pending(&ra),
			step_pending(&rb), (unsigned long long)ra.msg_start, (unsigned long long)rb.msg_start);
	}
}

/* One chunk through both until STEP_NEED_MORE; every call compared. */
static void feed_both(const char *what, const uint8_t *p, uint32_t n, size_t at)
{
	const uint8_t *pa = p, *pb = p;
	uint32_t na = n, nb = n, guard;
	for (guard = 0; guard < 4 * n + 64; guard++) {
		int sa = -1, sb = -1, bad = 0;
		uint32_t ua = step_feed(&ra, pa, na, &sa);
		uint32_t ub = b_ref ? step_feed(&rb, pb, nb, &sb) : fastx_step_feed(&xd, &rb, pb, nb, &sb);
		if (sa != sb || ua != ub) {
			bad = 1;
		} else if (sa == STEP_ERROR) {
			bad = ra.err != rb.err || ra.err_offset != rb.err_offset;
		} else if (sa == STEP_MSG) {
			const struct step_msg *a = &ra.msg, *b = &rb.msg;
			/* msgtype: the session messages' (raw); the fast path leaves a data message's empty */
			bad = a->offset != b->offset || a->len != b->len || a->seq != b->seq ||
			      a->data_len != b->data_len ||
			      strcmp((a->raw || b_ref) ? a->msgtype : "", b->msgtype) != 0 ||
			      memcmp(a->data, b->data, a->data_len) != 0 || !a->raw != !b->raw ||
			      (a->raw && memcmp(a->raw, b->raw, a->len) != 0);
		}
		test_checks++;
		if (bad && nbad++ < 10) {
			test_failures++;
			fprintf(stderr, "%s, chunk ending at %zu: status %d/%d used %u/%u err %d/%d at %llu/%llu\n", what,
				at, sa, sb, ua, ub, ra.err, rb.err, (unsigned long long)ra.err_offset,
				(unsigned long long)rb.err_offset);
		}
		if (bad)
			return;
		pa += ua;
		na -= ua;
		pb += ub;
		nb -= ub;
		if (sa == STEP_NEED_MORE)
			break;
	}
	cmp_state(what, at);
}

/* buf cut at the positions cut[0..ncut) (increasing, inside buf). */
static void run_cuts(const char *what, const uint8_t *buf, size_t n, const size_t *cut, int ncut)
{
	size_t at = 0;
	step_init(&ra);
	step_init(&rb);
	for (int i = 0; i <= ncut && nbad < 10; i++) {
		size_t end = i < ncut ? cut[i] : n;
		feed_both(what, buf + at, (uint32_t)(end - at), end);
		at = end;
	}
	feed_both(what, buf + n, 0, n);
}

/* The first chunk through the fast path, the rest through the state machine
 * alone (the daemon's decoder choice is live on reload): a held head must
 * read back the same. */
static void run_switch(const char *what, const uint8_t *buf, size_t n, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi && i < n && nbad < 10; i++) {
		step_init(&ra);
		step_init(&rb);
		feed_both(what, buf, (uint32_t)i, i);
		b_ref = 1;
		feed_both(what, buf + i, (uint32_t)(n - i), n);
		feed_both(what, buf + n, 0, n);
		b_ref = 0;
	}
}

/* Every two-chunk cut in [lo, hi), every three-chunk cut when `three`, and byte by byte. */
static void run_all(const char *what, const uint8_t *buf, size_t n, size_t lo, size_t hi, int three)
{
	size_t cut[2] = {0, 0};
	run_cuts(what, buf, n, cut, 0);
	for (size_t i = lo; i < hi && i < n; i++) {
		cut[0] = i;
		run_cuts(what, buf, n, cut, 1);
		for (size_t j = i + 1; three && j < hi && j < n; j++) {
			cut[1] = j;
			run_cuts(what, buf, n, cut, 2);
		}
	}
	{
		/* byte by byte */
		step_init(&ra);
		step_init(&rb);
		for (size_t i = 0; i < n; i++)
			feed_both(what, buf + i, 1, i + 1);
	}
}

/* A data message with a header of the caller's choice (text before the data, "...|96=" at its end). */
static size_t hdr_msg(uint8_t *o, const char *hdr, size_t dlen)
{
	uint8_t body[2048];
	size_t n = put_txt(body, hdr), i;
	for (i = 0; i < dlen; i++)
		body[n++] = (uint8_t)(i % 5 == 0 ? 0x01 : 'a' + i % 26);
	body[n++] = 0x01;
	return frame(o, body, n);
}

/* Messages whose values change length from one to the next -- 9= (2, 3
 * and 4 digits), 34= and 95= gaining and losing digits, 52= and 35=
 * longer or shorter -- keep the same tag sequence: each is framed by the
 * memo (smemo.hits), not walked again (smemo.builds), in bulk (step_bulk),
 * with the same results as the state machine, whole and at every cut; a
 * different tag order is walked and recorded once, then read by the memo. */
static void digit_counts(void)
{
	static uint8_t buf[16384];
	static const struct {
		unsigned long long seq;
		size_t dlen;
		const char *stime, *type;
	} m[] = {
		{9, 5, "20261129-09:30:00.000", "UA3201"},   {10, 9, "20261129-09:30:00.000", "UA3201"},
		{99, 10, "20261129-09:30:00.000", "UA5801"}, {100, 99, "20261129-09:30:00.5", "UA5801"},
		{1000, 100, "20261129-09:30:01.000", "X"},  {7, 1000, "20261129-09:30:01.000", "UA3201"},
		{123456789012ull, 0, "20261129-09:30:01.000", "UA3201"},
		{5, 37, "20261129-09:30:01.000", "UA3201"},
	};
	size_t n = 0, at[16], i, nm = sizeof m / sizeof m[0];
	uint64_t bulk0, mach0, hits0, builds0, fx0;
	char t[160];

	for (i = 0; i < nm; i++) {
		at[i] = n;
		snprintf(t, sizeof t, "35=%s|49=VDE|56=VDR|34=%llu|52=%s|95=%zu|96=", m[i].type, m[i].seq, m[i].stime,
			 m[i].dlen);
		n += hdr_msg(buf + n, t, m[i].dlen);
	}
	at[nm] = n;
	/* one layout recorded first, then message by message, each chunk one message */
	step_init(&ra);
	step_init(&rb);
	feed_both("digit counts, first", buf, (uint32_t)at[1], at[1]);
	bulk0 = xd.step_bulk;
	mach0 = xd.step_machine;
	hits0 = xd.smemo.hits;
	builds0 = xd.smemo.builds;
	fx0 = xd.smemo.fx_hits;
	for (i = 1; i < nm; i++)
		feed_both("digit counts", buf + at[i], (uint32_t)(at[i + 1] - at[i]), at[i + 1]);
	feed_both("digit counts", buf + n, 0, n);
	CHECK_EQ(ra.messages, nm);
	CHECK_EQ(xd.step_bulk - bulk0, nm - 1);
	CHECK_EQ(xd.step_machine - mach0, nm); /* only the empty call after each chunk (and the last) */
	CHECK_EQ(xd.smemo.hits - hits0, nm - 1);
	CHECK_EQ(xd.smemo.builds - builds0, 0);
	/* the fields before 95= read by place where they kept their lengths
	 * (seq 10 then 99: the same digit count, 35= as long) and only there */
	CHECK_EQ(xd.smemo.fx_hits - fx0, 1);
	/* the whole stream in one chunk, and every cut */
	run_all("digit counts", buf, n, 1, n, 0);

	/* another tag order: walked and recorded once, then the memo's */
	n = 0;
	for (i = 0; i < 3; i++) {
		at[i] = n;
		snprintf(t, sizeof t, "35=UA3201|56=VDR|49=VDE|34=%zu|52=20261129-09:30:00.000|95=%zu|96=", 8 + i,
			 9 + i);
		n += hdr_msg(buf + n, t, 9 + i);
	}
	at[3] = n;
	step_init(&ra);
	step_init(&rb);
	hits0 = xd.smemo.hits;
	builds0 = xd.smemo.builds;
	for (i = 0; i < 3; i++)
		feed_both("tag order", buf + at[i], (uint32_t)(at[i + 1] - at[i]), at[i + 1]);
	CHECK_EQ(ra.messages, 3);
	CHECK_EQ(xd.smemo.builds - builds0, 1);
	CHECK_EQ(xd.smemo.hits - hits0, 2);
}

/* A layout that keeps the fields before 95= but adds one after them: the
 * second message passes the places of the first's fields before 95= and
 * then fails the memo, is walked and recorded (with its own places); the
 * third, laid out like the second, is read by the memo and its places. */
static void layout_after_places(void)
{
	static uint8_t buf[1024];
	static const char *const h[] = {
		"35=UA3201|49=VDE|56=VDR|34=11|52=20261129-09:30:00.000|95=4|96=",
		"35=UA3201|49=VDE|56=VDR|34=12|52=20261129-09:30:00.000|58=x|95=4|96=",
		"35=UA3201|49=VDE|56=VDR|34=13|52=20261129-09:30:00.000|58=y|95=4|96=",
	};
	size_t n = 0, at[4], i;
	uint64_t hits0, builds0, fx0;
	for (i = 0; i < 3; i++) {
		at[i] = n;
		n += hdr_msg(buf + n, h[i], 4);
	}
	at[3] = n;
	step_init(&ra);
	step_init(&rb);
	feed_both("layout after places", buf, (uint32_t)at[1], at[1]);
	hits0 = xd.smemo.hits;
	builds0 = xd.smemo.builds;
	fx0 = xd.smemo.fx_hits;
	for (i = 1; i < 3; i++)
		feed_both("layout after places", buf + at[i], (uint32_t)(at[i + 1] - at[i]), at[i + 1]);
	CHECK_EQ(ra.messages, 3);
	CHECK_EQ(xd.smemo.builds - builds0, 1);
	CHECK_EQ(xd.smemo.hits - hits0, 1);
	CHECK_EQ(xd.smemo.fx_hits - fx0, 1);
	run_all("layout after places", buf, n, 1, n, 0);
	/* then, laid out like those, an empty 95= before an empty 96=: an
	 * error for the state machine, whatever reads the fields before it */
	n += hdr_msg(buf + n, "35=UA3201|49=VDE|56=VDR|34=14|52=20261129-09:30:00.000|58=z|95=|96=", 0);
	step_init(&ra);
	step_init(&rb);
	feed_both("empty 95=", buf, (uint32_t)n, n);
	CHECK_EQ(ra.messages, 3);
	run_all("empty 95=", buf, n, 1, n, 0);
}

/* Versions other than SSE's 1.0.0 (which frame_head() recognises without a
 * search): shorter, longer, the longest the state machine takes and one
 * byte more, a 1.0.0 prefix with more after it: framed in bulk where the
 * state machine takes them, with its results whole and at every cut. */
static void versions(void)
{
	static uint8_t buf[4096];
	static const char *const v[] = {"8=STEP.1.0.1|", "8=STEP.2|", "8=STEP.1.0.0.7|", "8=STEP.1.0|",
					 "8=STEP.0123456789abcdef|", "8=STEP.0123456789abcdefg|", "8=STEP.1.0.0|"};
	uint8_t body[128];
	size_t n = 0, i, bl = put_txt(body, "35=UA3201|49=VDE|56=VDR|34=7|52=20261129-09:30:00.000|95=2|96=ab|");
	uint64_t bulk0 = xd.step_bulk;
	for (i = 0; i < sizeof v / sizeof v[0]; i++)
		n += frame_v(buf + n, v[i], body, bl, 0, 0, NULL);
	step_init(&ra);
	step_init(&rb);
	feed_both("versions", buf, (uint32_t)n, n);
	feed_both("versions", buf + n, 0, n);
	/* all but the one with 17 version bytes (an error for both) */
	CHECK_EQ(ra.messages, sizeof v / sizeof v[0] - 1);
	CHECK(xd.step_bulk - bulk0 >= sizeof v / sizeof v[0] - 2);
	run_all("versions", buf, n, 1, n, 0);
}

/* A message cut inside its header ("8=STEP.1.0.0|9=1" | "23|35=..."), at
 * every byte of it: the fast path holds the clean prefix and joins the
 * message when the rest comes (step_joined), with the state machine's
 * results at every call. */
static void header_cuts(void)
{
	static uint8_t buf[1024];
	size_t n = 0, b0, hl, cut[1];
	n += data_msg(buf + n, 1, 14);
	b0 = n;
	n += data_msg(buf + n, 2, 40);
	n += data_msg(buf + n, 3, 7);
	/* the header: up to the SOH after 9='s digits */
	for (hl = 0; buf[b0 + hl] != '9' || buf[b0 + hl + 1] != '='; hl++)
		;
	for (hl += 2; buf[b0 + hl] != 0x01; hl++)
		;
	for (size_t i = b0 + 1; i <= b0 + hl && nbad < 10; i++) {
		uint64_t j0 = xd.step_joined;
		cut[0] = i;
		run_cuts("header cut", buf, n, cut, 1);
		CHECK_EQ(xd.step_joined - j0, 1);
	}
}

static void cases(void)
{
	static uint8_t buf[4096], mut[4096];
	static const uint8_t vals[] = {'8', 0x01, '=', 'x', '9', 0x80};
	size_t n = 0, ns, b0, b1;
	uint64_t joined0 = xd.step_joined;

	/* (the first message has the second's header layout: the damaged second
	 * one meets fastx_step.c's memo of it) */
	n += data_msg(buf + n, 1, 14);
	b0 = n;
	n += data_msg(buf + n, 2, 12);
	b1 = n;
	n += heartbeat(buf + n, 3);
	n += put_txt(buf + n, "junk8=STE");
	n += data_msg(buf + n, 4, 0);
	n += data_msg(buf + n, 5, 200);
	ns = n; /* the damaged streams below stop here */
	n += long_text(buf + n, 6, 700);
	n += data_msg(buf + n, 7, 900); /* a head growing inside long data */

	/* good stream: every cut, three-chunk cuts around the second message */
	run_all("good", buf, n, 1, n, 0);
	run_all("good, three chunks", buf, n, b0 - 5, b1 + 5, 1);
	CHECK(xd.step_joined > joined0);
	CHECK(xd.smemo.hits > 0); /* the header layout of the last message was used */
	run_switch("good, then the state machine", buf, n, 1, n);

	/* the second message damaged at every byte, checksum wrong or repaired */
	for (size_t i = b0; i < b1 && nbad < 10; i++) {
		for (size_t v = 0; v < sizeof vals; v++) {
			char what[96];
			if (buf[i] == vals[v])
				continue;
			for (int rep = 0; rep < 2; rep++) {
				memcpy(mut, buf, ns);
				mut[i] = vals[v];
				if (rep)
					repair_ck(mut + b0, b1 - b0);
				snprintf(what, sizeof what, "byte %zu = 0x%02x%s", i - b0, vals[v],
					 rep ? " (checksum repaired)" : "");
				run_all(what, mut, ns, b0 - 2, b1 + 2, 0);
			}
		}
	}
	/* truncated: the second message cut short, the next one follows */
	for (size_t k = b0 + 1; k < b1 && nbad < 10; k += 3) {
		size_t m = 0;
		char what[64];
		memcpy(mut, buf, k);
		m = k;
		memcpy(mut + m, buf + b1, ns - b1);
		m += ns - b1;
		snprintf(what, sizeof what, "truncated at %zu", k - b0);
		run_all(what, mut, m, b0 - 2, k + 40, 0);
	}
}

int main(void)
{
	/* every instruction-set level this CPU runs (the SOH bitmap and the sum differ per level) */
	for (int l = FASTX_ISA_SCALAR; l <= fastx_isa_max(); l++) {
		CHECK_EQ(fastx_isa_set(l), 0);
		memset(&xd, 0, sizeof xd);
		cases();
		CHECK(xd.step_bulk > 0);
		header_cuts();
		digit_counts();
		versions();
		layout_after_places();
	}
	return test_done("fastx_step");
}
