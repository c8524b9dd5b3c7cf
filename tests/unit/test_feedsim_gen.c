/* test_feedsim_gen.c - the feed source of toe-feedsim (feed_gen.c): the
 * messages it encodes decode (STEP deframer + FAST decoder) to exactly the
 * truth it prints, MsgSeqNum and BizIndex (per channel) run on without holes, message sizes
 * respect the limits, and the bytes are those of the plain sse_stream feed
 * (so toe-feedsim sends what toe-fastgen writes for the same options); the
 * generator's options the tools share.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "fast/fast_stream.h"
#include "feed/feed_gen.h"

#define TPL "conf/templates/sse-l2-3201-5801.xml"
#define TPL_3201 "conf/templates/sse-ngts-2.02-3201.xml"

static int64_t biz(const union toe_record *t)
{
	return t->hdr.type == TOE_REC_TRADE ? t->trade.biz_index : t->order.biz_index;
}

static int32_t chan(const union toe_record *t)
{
	return t->hdr.type == TOE_REC_TRADE ? t->trade.trade_channel : t->order.order_channel;
}

static void test_errors(void)
{
	struct sse_gen_cfg cfg;
	char err[512];
	sse_gen_default(&cfg);
	CHECK(feed_src_new(TPL, &cfg, 0, err, sizeof err) == NULL);
	CHECK(feed_src_new(TPL, &cfg, FEED_MAX_PER_MSG + 1, err, sizeof err) == NULL);
	err[0] = 0;
	CHECK(feed_src_new("/nonexistent/t.xml", &cfg, 4, err, sizeof err) == NULL);
	CHECK(strstr(err, "/nonexistent/t.xml") != NULL);
	cfg.nsecurities = 0;
	CHECK(feed_src_new(TPL, &cfg, 4, err, sizeof err) == NULL);
}

static void test_roundtrip(void)
{
	struct sse_gen_cfg cfg;
	char err[512];
	sse_gen_default(&cfg);
	cfg.seed = 99;
	struct feed_src *s = feed_src_new(TPL, &cfg, 5, err, sizeof err);
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	/* an independent stream with the same configuration */
	struct sse_stream *ref = calloc(1, sizeof *ref);
	uint8_t *rbuf = malloc(s->cap);
	CHECK_EQ(sse_stream_init(ref, &s->prog, &cfg, 5), 0);

	struct fast_stream *fs = calloc(1, sizeof *fs);
	fast_stream_init(fs, &s->prog, FAST_FRAMING_STEP);
	char *tbuf = NULL, *dbuf = NULL;
	size_t tlen = 0, dlen = 0;
	FILE *truth = open_memstream(&tbuf, &tlen);
	FILE *dec = open_memstream(&dbuf, &dlen);

	uint64_t records = 0, want = 3000, decoded = 0, errors = 0, bad_size = 0, bad_seq = 0, bad_biz = 0;
	uint64_t same_bytes = 0, msgs = 0, trades = 0, orders = 0;
	int64_t next_biz[SSE_GEN_MAX_CHAN + 1] = {0};
	while (records < want) {
		uint64_t left = want - records;
		int len = feed_src_next(s, left > 5 ? 5 : (uint32_t)left);
		CHECK(len > 0);
		if (len <= 0)
			break;
		msgs++;
		if (s->nrecs < 1 || s->nrecs > 5 || s->len != len)
			bad_size++;
		if (s->seq != msgs)
			bad_seq++;
		for (uint32_t k = 0; k < s->nrecs; k++) {
			/* SSE's numbering: 1, 2, ... per channel across both kinds */
			int32_t ch = chan(&s->ticks[k]);
			if (ch < 1 || ch > SSE_GEN_MAX_CHAN || biz(&s->ticks[k]) != ++next_biz[ch])
				bad_biz++;
			if (s->ticks[k].hdr.type == TOE_REC_TRADE)
				trades++;
			else
				orders++;
		}
		/* same bytes as the plain stream */
		uint32_t rn = 0;
		int rlen = sse_stream_next_msg(ref, left > 5 ? 5 : (uint32_t)left, rbuf, s->cap, NULL, NULL, &rn);
		if (rlen == len && rn == s->nrecs && memcmp(rbuf, s->msg, (size_t)len) == 0)
			same_bytes++;
		/* decode the message as a receiver would */
		fast_stream_feed(fs, s->msg, (uint32_t)len);
		int ev;
		while ((ev = fast_stream_next(fs)) != FS_NONE) {
			if (ev == FS_ERROR) {
				errors++;
				continue;
			}
			if (fs->msg_seq != s->seq)
				bad_seq++;
			feed_json_line(dec, &s->prog, &s->names, &fs->rec, fs->msg_seq);
			decoded++;
		}
		feed_src_truth(s, truth);
		records += s->nrecs;
	}
	fclose(truth);
	fclose(dec);
	CHECK_EQ(records, want); /* max_records honoured: exactly the count asked */
	CHECK_EQ(decoded, want);
	CHECK_EQ(errors, 0);
	CHECK_EQ(bad_size, 0);
	CHECK_EQ(bad_seq, 0);
	CHECK_EQ(bad_biz, 0);
	CHECK_EQ(same_bytes, msgs);
	CHECK(trades > 0 && orders > 0);
	CHECK_EQ(tlen, dlen);
	CHECK(tlen > 0 && dlen == tlen && memcmp(tbuf, dbuf, tlen) == 0);
	/* one line per record, each naming its message */
	uint64_t lines = 0;
	for (size_t i = 0; i < tlen; i++)
		lines += tbuf[i] == '\n';
	CHECK_EQ(lines, want);
	CHECK(strncmp(tbuf, "{\"template\":", 12) == 0);
	CHECK(strstr(tbuf, ",\"msg_seq\":1,") != NULL && strstr(tbuf, ",\"msg_seq\":1,") < strchr(tbuf, '\n'));
	CHECK(strstr(tbuf, "\"BizIndex\":1}") != NULL && strstr(tbuf, "\"BizIndex\":1}") < strchr(tbuf, '\n'));
	free(tbuf);
	free(dbuf);
	free(fs);
	free(ref);
	free(rbuf);
	feed_src_free(s);
}

static void test_one_kind(void)
{
	/* a file with only 3201: every record is a trade */
	struct sse_gen_cfg cfg;
	char err[512];
	sse_gen_default(&cfg);
	struct feed_src *s = feed_src_new(TPL_3201, &cfg, 3, err, sizeof err);
	CHECK(s != NULL);
	if (!s)
		return;
	uint64_t trades = 0, others = 0;
	for (int m = 0; m < 200; m++) {
		CHECK(feed_src_next(s, 3) > 0);
		for (uint32_t k = 0; k < s->nrecs; k++) {
			if (s->ticks[k].hdr.type == TOE_REC_TRADE)
				trades++;
			else
				others++;
		}
	}
	CHECK(trades >= 200);
	CHECK_EQ(others, 0);
	/* with max_records 1, one record per message */
	CHECK(feed_src_next(s, 1) > 0);
	CHECK_EQ(s->nrecs, 1);
	feed_src_free(s);
}

/* The generator's options the feed tools share (feed_gen_opt): taken into the settings, bounds from
 * sse_gen.h and FEED_MAX_PER_MSG, a refused value leaves the setting, other letters are not taken. */
static void test_gen_opts(void)
{
	struct sse_gen_cfg cfg;
	uint64_t per_msg = 4;
	const char *bad = "unset";
	char num[32];
	sse_gen_default(&cfg);
	struct sse_gen_cfg def = cfg;

	CHECK_EQ(feed_gen_opt('t', "x.xml", &cfg, &per_msg, &bad), 0);
	CHECK_EQ(feed_gen_opt('B', NULL, &cfg, &per_msg, &bad), 0);
	CHECK_EQ(feed_gen_opt('s', "0x10", &cfg, &per_msg, &bad), 1);
	CHECK(bad == NULL);
	CHECK_EQ(cfg.seed, 16);
	CHECK_EQ(feed_gen_opt('k', "1000", &cfg, &per_msg, &bad), 1);
	CHECK(bad == NULL);
	CHECK_EQ(per_msg, 1000);
	snprintf(num, sizeof num, "%d", SSE_GEN_MAX_SEC);
	CHECK_EQ(feed_gen_opt('S', num, &cfg, &per_msg, &bad), 1);
	CHECK(bad == NULL);
	CHECK_EQ(cfg.nsecurities, SSE_GEN_MAX_SEC);
	CHECK_EQ(feed_gen_opt('c', "1", &cfg, &per_msg, &bad), 1);
	CHECK(bad == NULL);
	CHECK_EQ(cfg.nchannels, 1);
	CHECK_EQ(feed_gen_opt('p', "0", &cfg, &per_msg, &bad), 1);
	CHECK(bad == NULL);
	CHECK_EQ(cfg.order_pct, 0);

	cfg = def;
	per_msg = 4;
	CHECK_EQ(feed_gen_opt('s', "-1", &cfg, &per_msg, &bad), 1);
	CHECK(bad && strcmp(bad, "--seed needs a number") == 0);
	CHECK_EQ(feed_gen_opt('k', "1001", &cfg, &per_msg, &bad), 1);
	CHECK(bad && strcmp(bad, "--per-msg needs a number in 1..1000") == 0);
	CHECK_EQ(feed_gen_opt('k', "0", &cfg, &per_msg, &bad), 1);
	CHECK(bad != NULL);
	snprintf(num, sizeof num, "%d", SSE_GEN_MAX_SEC + 1);
	CHECK_EQ(feed_gen_opt('S', num, &cfg, &per_msg, &bad), 1);
	CHECK(bad && strcmp(bad, "--securities out of range") == 0);
	snprintf(num, sizeof num, "%d", SSE_GEN_MAX_CHAN + 1);
	CHECK_EQ(feed_gen_opt('c', num, &cfg, &per_msg, &bad), 1);
	CHECK(bad && strcmp(bad, "--channels out of range") == 0);
	CHECK_EQ(feed_gen_opt('p', "101", &cfg, &per_msg, &bad), 1);
	CHECK(bad && strcmp(bad, "--order-pct needs a number in 0..100") == 0);
	CHECK_EQ(per_msg, 4);
	CHECK(cfg.seed == def.seed && cfg.nsecurities == def.nsecurities && cfg.nchannels == def.nchannels &&
	      cfg.order_pct == def.order_pct);
}

int main(void)
{
	test_errors();
	test_roundtrip();
	test_one_kind();
	test_gen_opts();
	return test_done("feedsim_gen");
}
