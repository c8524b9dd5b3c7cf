/* feed_gen.c - a deterministic STEP feed and its ground truth (host only). */
#include "feed/feed_gen.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fast/host/fast_json.h"
#include "feed/feed_net.h"

struct feed_src *feed_src_new(const char *templates, const struct sse_gen_cfg *cfg_in, uint32_t per_msg,
			      char *err, size_t errlen)
{
	if (per_msg < 1 || per_msg > FEED_MAX_PER_MSG) {
		snprintf(err, errlen, "records per message must be 1..%d", FEED_MAX_PER_MSG);
		return NULL;
	}
	struct feed_src *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->per_msg = per_msg;
	s->cap = (size_t)per_msg * (FAST_MAX_STRBUF + FAST_MAX_VALUES * 12) + 4096;
	s->recs = calloc(per_msg, sizeof *s->recs);
	s->ticks = calloc(per_msg, sizeof *s->ticks);
	s->msg = malloc(s->cap);
	if (!s->recs || !s->ticks || !s->msg) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (fast_compile_file(templates, &s->prog, &s->names, err, errlen))
		goto fail;
	struct sse_gen_cfg cfg = *cfg_in;
	int has_trade = sse_tpl_for_kind(&s->prog, TOE_REC_TRADE) >= 0;
	int has_order = sse_tpl_for_kind(&s->prog, TOE_REC_ORDER) >= 0;
	if (!has_trade && !has_order) {
		snprintf(err, errlen, "%s: no template maps to trades (3201 fields) or orders (5801 fields)",
			 templates);
		goto fail;
	}
	if (!has_order)
		cfg.order_pct = 0;
	if (!has_trade)
		cfg.order_pct = 100;
	if (sse_stream_init(&s->stream, &s->prog, &cfg, per_msg)) {
		snprintf(err, errlen, "bad generator configuration");
		goto fail;
	}
	return s;
fail:
	feed_src_free(s);
	return NULL;
}

void feed_src_free(struct feed_src *s)
{
	if (!s)
		return;
	free(s->recs);
	free(s->ticks);
	free(s->msg);
	free(s);
}

int feed_src_next(struct feed_src *s, uint32_t max_records)
{
	uint32_t n = 0;
	uint64_t seq = s->stream.seq;
	int len = sse_stream_next_msg(&s->stream, max_records, s->msg, s->cap, s->recs, s->ticks, &n);
	s->len = len < 0 ? 0 : len;
	s->nrecs = len < 0 ? 0 : n;
	s->seq = seq;
	return len;
}

void feed_json_line(FILE *f, const struct fast_prog *p, const struct fast_names *names, const struct fast_rec *r,
		    uint64_t msg_seq)
{
	char extra[48];
	snprintf(extra, sizeof extra, "\"msg_seq\":%" PRIu64 ",", msg_seq);
	fast_json_record(f, p, names, r, extra);
	fputc('\n', f);
}

void feed_src_truth(const struct feed_src *s, FILE *f)
{
	for (uint32_t k = 0; k < s->nrecs; k++)
		feed_json_line(f, &s->prog, &s->names, &s->recs[k], s->seq);
}

int feed_gen_opt(int opt, const char *arg, struct sse_gen_cfg *cfg, uint64_t *per_msg, const char **bad)
{
	uint64_t v;
	*bad = NULL;
	switch (opt) {
	case 's':
		if (feed_parse_u64(arg, 0, UINT64_MAX, &cfg->seed))
			*bad = "--seed needs a number";
		return 1;
	case 'k':
		if (feed_parse_u64(arg, 1, FEED_MAX_PER_MSG, per_msg))
			*bad = "--per-msg needs a number in 1..1000";
		return 1;
	case 'S':
		if (feed_parse_u64(arg, 1, SSE_GEN_MAX_SEC, &v))
			*bad = "--securities out of range";
		else
			cfg->nsecurities = (uint32_t)v;
		return 1;
	case 'c':
		if (feed_parse_u64(arg, 1, SSE_GEN_MAX_CHAN, &v))
			*bad = "--channels out of range";
		else
			cfg->nchannels = (uint32_t)v;
		return 1;
	case 'p':
		if (feed_parse_u64(arg, 0, 100, &v))
			*bad = "--order-pct needs a number in 0..100";
		else
			cfg->order_pct = (uint32_t)v;
		return 1;
	default: return 0;
	}
}
