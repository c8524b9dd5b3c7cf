/* toe-verify - a strategy that checks every tick it gets from toed against the feed simulator's ground truth.
 *
 *   toe-verify --templates FILE.xml [--socket PATH] [--expect N] [--seed S] [--per-msg K]
 *              [--securities N] [--channels N] [--order-pct P] [--biz-global]
 *              [--types trade,order] [--channel N]... [--security ID]... [--capacity N]
 *              [--busy-poll] [--spin NS] [--cpu N] [--priority N] [--slow US] [--sendlog FILE]
 *              [--latency-out FILE]
 *              [--label NAME] [--idle-ms T] [--timeout S] [--ready FILE] [--hold FILE] [--join]
 *              [--from-start] [--ahead N] [--stream NAME]
 *
 * It connects with libtoeclient, subscribes (to one stream with --stream, else
 * to every stream; with the filters given), and
 * regenerates in-process, from the same options as toe-feedsim (templates,
 * seed, securities, channels, order share, BizIndex numbering, records per
 * message, record count), the feed the simulator sends: the value layouts
 * the FAST encoder put on the wire, mapped to tick records with the same
 * fast_tick_map the daemon uses. Every trade and order read must then be:
 *   - the next one of the truth (records the filter keeps), matched by its
 *     channel and BizIndex (TradeChannel/OrderChannel): each exactly once and
 *     in the feed's order. The match works for both numberings of the
 *     generator, SSE's 1, 2, ... per channel (the default) and the global
 *     1, 2, 3, ... (--biz-global): within a channel BizIndex only grows, so
 *     the record's place in the truth is the first record of its channel at
 *     or above its BizIndex, and one at or below the last handled of its
 *     channel is a duplicate;
 *   - equal to it field by field (type, present mask, MsgSeqNum and every
 *     byte of the body; the ring sequence, the stream index and the receive
 *     time are the daemon's and not compared).
 * BizIndex values may be skipped only across a gap record (TOE_REC_GAP) or a
 * ring drop (a jump of hdr.seq, or at the end drops the daemon counted for
 * this ring that no later record showed) seen since the previous tick; such
 * records are counted as missing in gaps or dropped. Anything else - a wrong
 * record, a duplicate, a record out of order, an unexplained skip, a tail of
 * the feed missing with no gap or drop after the last record - is a violation.
 *
 * A reset record (TOE_REC_RESET) after ticks starts a new feed (a new
 * connection of the simulator): the truth starts again at its first record. So
 * does an earlier BizIndex of a channel right after a ring drop (the reset was
 * dropped).
 *
 * The run ends when the last record of the feed (--expect N, the simulator's
 * --records; the last one the filters keep) has been handled, when the daemon
 * goes away, after --idle-ms
 * without a record once one came, or at --timeout (--drain FILE: after
 * the last record, read on until FILE exists). --slow US sleeps that many
 * microseconds after each record (a slow strategy: the daemon drops records
 * for it when its ring fills). --hold FILE keeps the subscription after the
 * summary until FILE exists, so that a test can compare toectl's counters
 * for this client with what it saw. --busy-poll spins on the ring; otherwise
 * toe_wait() waits with the library's policy (--spin: adaptive by default).
 *
 * Latency (--sendlog, toe-feedsim's send log; same host, CLOCK_REALTIME): the
 * time a message's first record was seen in the ring (CLOCK_REALTIME read
 * right after the read that returned it) minus the simulator's send time,
 * matched by MsgSeqNum; also the daemon's capture stamp (hdr.rx_ns) minus the
 * send time. Summaries use feed_lat_summarize; RESULT {json} lines (ns).
 * --latency-out writes one line per message {"msg_seq":..,"rx_ns":..,
 * "lat_ns":..,"cap_ns":..}.
 *
 * Output on stdout: one line
 *   VERIFY name=L received=.. expected=.. matched=.. missing_in_gaps=.. dropped=.. wrong=.. ...
 * and the RESULT lines; details of violations on stderr.
 * Exit status: 0 every record checked out, 1 a violation (or an error), 2
 * usage, 3 nothing arrived / the connection failed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fast/fast_tick.h"
#include "feed/feed_gen.h"
#include "feed/feed_lat.h"
#include "feed/feed_net.h"
#include "toe/toeclient.h"

#define MAX_CHAN TOE_CTL_MAX_CHANNELS
#define MAX_SEC 64
#define MAX_REPORT 10         /* violations described in detail */
#define AHEAD_DEFAULT 262144u /* expected records generated ahead (32 MiB) */
#define OPT_STREAM 256        /* --stream: a long option only */
#define OPT_DRAIN 257         /* --drain: a long option only */

static volatile sig_atomic_t stop;
/* --any-msg-seq: a STEP session re-stamps the data messages into its own sequence
 * (toe-feedsim --session), so the truth's msg_seq is not the wire's */
static int any_msg_seq;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: toe-verify --templates FILE.xml [--socket PATH] [--expect N] [--seed S] [--per-msg K]\n"
		"                  [--securities N] [--channels N] [--order-pct P] [--biz-global]\n"
		"                  [--types trade,order] [--channel N]... [--security ID]... [--capacity N]\n"
		"                  [--busy-poll] [--spin NS] [--cpu N] [--priority N] [--slow US] [--sendlog FILE]\n"
		"                  [--latency-out FILE]\n"
		"                  [--label NAME] [--idle-ms T] [--timeout S] [--ready FILE] [--hold FILE] [--join]\n"
		"                  [--any-msg-seq] [--drain FILE]\n"
		"                  [--from-start] [--ahead N] [--stream NAME]\n"
		"  --templates FILE   the FAST template file toe-feedsim encodes with\n"
		"  --socket PATH      toed's control socket (default $TOED_SOCKET, else %s)\n"
		"  --expect N         the feed has N records (toe-feedsim --records; default 100000):\n"
		"                     stop once its last record (that the filters keep) is handled\n"
		"  --seed, --per-msg, --securities, --channels, --order-pct, --biz-global\n"
		"                     the generator options given to toe-feedsim (same defaults); records\n"
		"                     are matched by channel and BizIndex, whichever the numbering\n"
		"  --stream NAME      only this stream (a feed's [feed.NAME] stream, a group, udp-PORT;\n"
		"                     default every stream: with two feeds their records would interleave)\n"
		"  --types LIST       subscribe to trade and/or order (gaps and resets always come)\n"
		"  --channel N        only this channel (repeatable)\n"
		"  --security ID      only this security (repeatable)\n"
		"  --capacity N       ring size in records (power of two; default: the daemon's)\n"
		"  --busy-poll        spin on the ring (one busy CPU) instead of toe_wait()\n"
		"  --spin NS          toe_wait's spin: 0 adaptive (the library's default), >0 fixed, <0 never\n"
		"  --cpu N            run on CPU N\n"
		"  --priority N       run SCHED_FIFO at priority N (1..99; above the data plane's to wake on its CPU)\n"
		"  --slow US          sleep US microseconds after each record (a slow strategy)\n"
		"  --sendlog FILE     toe-feedsim's send log: one-way latency per message\n"
		"  --latency-out FILE per message {\"msg_seq\",\"rx_ns\",\"lat_ns\",\"cap_ns\"} (JSON lines)\n"
		"  --label NAME       name in the summary and RESULT lines (default toe-verify)\n"
		"  --idle-ms T        stop after T ms without a record once one came (default 3000)\n"
		"  --timeout S        stop after S seconds in all (default 120)\n"
		"  --ready FILE       create FILE once subscribed\n"
		"  --hold FILE        after the summary, stay subscribed until FILE exists (or --timeout)\n"
		"  --drain FILE       after the feed's last record, keep reading (gap and reset records)\n"
		"                     until FILE exists, then until the ring stays empty for 100 ms, before\n"
		"                     the summary: a filtered client then counts the gaps declared after\n"
		"                     its own last record, as an unfiltered one does\n"
		"  --join             the first record may be any of the feed (subscribed mid-stream)\n"
		"  --any-msg-seq      do not compare msg_seq (toe-feedsim --session re-stamps it)\n"
		"  --from-start       start with every record still in the daemon's history (a feed that\n"
		"                     began before this client subscribed)\n"
		"  --ahead N          expected records generated ahead before subscribing (default %u)\n",
		TOE_CTL_DEFAULT_PATH, AHEAD_DEFAULT);
}

/* ---- the truth ------------------------------------------------------------ */

struct filter {
	uint32_t types; /* TOE_TYPE_BIT mask of trade/order; 0 = both */
	int32_t chan[MAX_CHAN];
	uint32_t nchan;
	char sec[MAX_SEC][TOE_SECURITY_ID_LEN + 1];
	uint32_t nsec;
};

static int filter_keeps(const struct filter *f, const union toe_record *r)
{
	if (f->types && !(f->types & TOE_TYPE_BIT(r->hdr.type)))
		return 0;
	const char *id = r->hdr.type == TOE_REC_TRADE ? r->trade.security_id : r->order.security_id;
	int32_t ch = r->hdr.type == TOE_REC_TRADE ? r->trade.trade_channel : r->order.order_channel;
	if (f->nchan) {
		uint32_t i;
		for (i = 0; i < f->nchan && f->chan[i] != ch; i++)
			;
		if (i == f->nchan)
			return 0;
	}
	if (f->nsec) {
		uint32_t i;
		for (i = 0; i < f->nsec && strncmp(f->sec[i], id, TOE_SECURITY_ID_LEN); i++)
			;
		if (i == f->nsec)
			return 0;
	}
	return 1;
}

static int64_t biz_of(const union toe_record *r)
{
	return r->hdr.type == TOE_REC_TRADE ? r->trade.biz_index : r->order.biz_index;
}

static int32_t chan_of(const union toe_record *r)
{
	return r->hdr.type == TOE_REC_TRADE ? r->trade.trade_channel : r->order.order_channel;
}

/* The expected records of one feed, generated ahead into a ring. */
struct truth {
	const char *templates;
	struct sse_gen_cfg cfg;
	uint32_t per_msg;
	uint64_t records;   /* records in the feed */
	struct feed_src *src;
	uint64_t generated; /* records of the feed generated so far */
	union toe_record *q;
	uint64_t qmask, head, count;
	const struct filter *filt;
	uint64_t kept; /* records the filter keeps among those generated */
	/* per channel, the BizIndex of the last record taken off the queue (handled or skipped) */
	int64_t done_biz[SSE_GEN_MAX_CHAN + 1];
};

static int truth_start(struct truth *t, char *err, size_t errlen)
{
	feed_src_free(t->src);
	t->src = feed_src_new(t->templates, &t->cfg, t->per_msg, err, errlen);
	t->generated = t->kept = 0;
	t->head = t->count = 0;
	memset(t->done_biz, 0, sizeof t->done_biz);
	return t->src ? 0 : -1;
}

/* Generate one more message into the queue. Returns 1, 0 when the feed is
 * over or the queue has no room for a message, -1 on an encoding error. */
static int truth_gen(struct truth *t)
{
	if (t->generated >= t->records || t->count + FEED_MAX_PER_MSG > t->qmask + 1)
		return 0;
	uint64_t left = t->records - t->generated;
	struct feed_src *s = t->src;
	if (feed_src_next(s, left > FEED_MAX_PER_MSG ? FEED_MAX_PER_MSG : (uint32_t)left) < 0)
		return -1;
	for (uint32_t i = 0; i < s->nrecs; i++) {
		union toe_record *e = &t->q[(t->head + t->count) & t->qmask];
		memset(e, 0, sizeof *e);
		int ty = fast_tick_map(&s->prog, &s->recs[i], s->seq, e);
		if (ty != TOE_REC_TRADE && ty != TOE_REC_ORDER)
			return -1;
		if (filter_keeps(t->filt, e)) {
			t->count++;
			t->kept++;
		}
	}
	t->generated += s->nrecs;
	return 1;
}

/* The next expected record, generating when the queue is empty; NULL at the
 * end of the feed (*err set on an encoding error). */
static const union toe_record *truth_peek(struct truth *t, int *err)
{
	while (t->count == 0) {
		int r = truth_gen(t);
		if (r < 0)
			*err = 1;
		if (r <= 0)
			return NULL;
	}
	return &t->q[t->head & t->qmask];
}

static void truth_pop(struct truth *t)
{
	const union toe_record *e = &t->q[t->head & t->qmask];
	int32_t ch = chan_of(e);
	if (ch >= 1 && ch <= SSE_GEN_MAX_CHAN)
		t->done_biz[ch] = biz_of(e);
	t->head++;
	t->count--;
}

/* The BizIndex last taken off the queue on channel ch (0: none yet). */
static int64_t truth_done(const struct truth *t, int32_t ch)
{
	return ch >= 1 && ch <= SSE_GEN_MAX_CHAN ? t->done_biz[ch] : 0;
}

/* Where a record of channel ch with BizIndex b belongs: the offset from the
 * queue's head of the first record of channel ch with a BizIndex at or above
 * b (generating as needed; *exact when it is b). Returns 1 and *off, or 0
 * when there is none in the rest of the feed (*off: the queue's length), or
 * -1 when the queue is full before one is found (a skip longer than --ahead:
 * everything queued lies before it). */
static int truth_find(struct truth *t, int32_t ch, int64_t b, uint64_t *off, int *exact, int *err)
{
	for (uint64_t i = 0;; i++) {
		while (i >= t->count) {
			int r = truth_gen(t);
			if (r < 0)
				*err = 1;
			if (r <= 0) {
				*off = i;
				return r == 0 && t->generated < t->records ? -1 : 0;
			}
		}
		const union toe_record *e = &t->q[(t->head + i) & t->qmask];
		if (chan_of(e) == ch && biz_of(e) >= b) {
			*off = i;
			*exact = biz_of(e) == b;
			return 1;
		}
	}
}

/* ---- checking --------------------------------------------------------------- */

struct counts {
	uint64_t received;   /* trades and orders read */
	uint64_t matched;    /* equal to the truth */
	uint64_t wrong;      /* at their place in the truth, but different */
	uint64_t out_of_order; /* BizIndex at or before one already handled (duplicate) */
	uint64_t not_in_truth; /* BizIndex beyond the feed */
	uint64_t unexplained;  /* truth records skipped with no gap or drop to explain it */
	uint64_t missing_in_gaps;
	uint64_t dropped;      /* truth records skipped across a ring drop */
	uint64_t gaps, gap_bytes, resets, other, seq_skipped, feeds;
	uint64_t assumed_resets; /* new feeds recognised after a drop that took their reset */
	uint64_t read;           /* every record read (ticks, gaps, resets, others) */
	uint64_t expected;     /* truth records (filter applied) of the feeds checked */
};

struct stamp {
	uint64_t msg_seq, rx_ns, cap_ns;
};

struct verify {
	struct truth t;
	struct counts c;
	const char *label;
	int join, started, gen_err;
	uint64_t join_skipped;  /* truth records before the first one read (--join) */
	uint64_t next_seq;      /* ring sequence expected next */
	uint64_t skip_pending;  /* ring records dropped since the last tick */
	int gap_pending;        /* a gap record since the last tick */
	int done;               /* the feed's last record (for the filters) handled */
	uint64_t ticks_in_feed;
	/* latency */
	int want_lat;
	struct stamp *st;
	size_t nst, capst;
	uint64_t last_msg_seq;
};

static const char *type_name(int t)
{
	return t == TOE_REC_TRADE ? "trade" : t == TOE_REC_ORDER ? "order" : t == TOE_REC_GAP ? "gap"
	       : t == TOE_REC_RESET ? "reset" : "other";
}

/* Describe how a record differs from the truth (names of the fields). */
static void describe_diff(const union toe_record *got, const union toe_record *want)
{
	char buf[512];
	size_t n = 0;
#define DIFF(cond, name)                                                                   \
	do {                                                                               \
		if ((cond) && n < sizeof buf - 40)                                         \
			n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", name);        \
	} while (0)
	DIFF(got->hdr.type != want->hdr.type, "type");
	DIFF((got->hdr.present & TOE_PRESENT_FIELDS) != (want->hdr.present & TOE_PRESENT_FIELDS), "present"); /* not the clock bits */
	DIFF(!any_msg_seq && got->hdr.msg_seq != want->hdr.msg_seq, "msg_seq");
	if (got->hdr.type == want->hdr.type && got->hdr.type == TOE_REC_TRADE) {
		const struct toe_trade *a = &got->trade, *b = &want->trade;
		DIFF(a->trade_qty != b->trade_qty, "TradeQty");
		DIFF(a->trade_money != b->trade_money, "TradeMoney");
		DIFF(a->trade_buy_no != b->trade_buy_no, "TradeBuyNo");
		DIFF(a->trade_sell_no != b->trade_sell_no, "TradeSellNo");
		DIFF(a->biz_index != b->biz_index, "BizIndex");
		DIFF(a->data_status != b->data_status, "DataStatus");
		DIFF(a->trade_index != b->trade_index, "TradeIndex");
		DIFF(a->trade_channel != b->trade_channel, "TradeChannel");
		DIFF(a->trade_time != b->trade_time, "TradeTime");
		DIFF(a->trade_price != b->trade_price, "TradePrice");
		DIFF(memcmp(a->security_id, b->security_id, sizeof a->security_id), "SecurityID");
		DIFF(memcmp(a->bs_flag, b->bs_flag, sizeof a->bs_flag), "TradeBSFlag");
	} else if (got->hdr.type == want->hdr.type && got->hdr.type == TOE_REC_ORDER) {
		const struct toe_order *a = &got->order, *b = &want->order;
		DIFF(a->order_no != b->order_no, "OrderNO");
		DIFF(a->balance != b->balance, "Balance");
		DIFF(a->biz_index != b->biz_index, "BizIndex");
		DIFF(a->data_status != b->data_status, "DataStatus");
		DIFF(a->order_index != b->order_index, "OrderIndex");
		DIFF(a->order_channel != b->order_channel, "OrderChannel");
		DIFF(a->order_time != b->order_time, "OrderTime");
		DIFF(a->order_price != b->order_price, "OrderPrice");
		DIFF(memcmp(a->security_id, b->security_id, sizeof a->security_id), "SecurityID");
		DIFF(memcmp(a->order_type, b->order_type, sizeof a->order_type), "OrderType");
		DIFF(memcmp(a->bs_flag, b->bs_flag, sizeof a->bs_flag), "OrderBSFlag");
		DIFF(memcmp(a->pad, b->pad, sizeof a->pad), "pad");
	}
#undef DIFF
	buf[n] = 0;
	fprintf(stderr, "  differs in:%s\n", n ? buf : " (unknown)");
}

static int same_record(const union toe_record *a, const union toe_record *b)
{
	const size_t body = sizeof(struct toe_rec_hdr);
	return a->hdr.type == b->hdr.type && ((a->hdr.present ^ b->hdr.present) & TOE_PRESENT_FIELDS) == 0 &&
	       (any_msg_seq || a->hdr.msg_seq == b->hdr.msg_seq) &&
	       memcmp(a->bytes + body, b->bytes + body, TOE_RECORD_SIZE - body) == 0;
}

static uint64_t violations(const struct counts *c)
{
	return c->wrong + c->out_of_order + c->not_in_truth + c->unexplained;
}

/* Truth records skipped (n of them): explained by a ring drop or a gap since
 * the last tick, or a violation. */
static void account_skip(struct verify *v, uint64_t n, int32_t from_ch, int64_t from_biz, const char *where)
{
	if (n == 0)
		return;
	if (v->skip_pending || v->gap_pending) {
		uint64_t d = v->skip_pending < n ? v->skip_pending : n;
		v->c.dropped += d;
		if (n > d) {
			if (v->gap_pending) {
				v->c.missing_in_gaps += n - d;
			} else {
				/* dropped ring records were more than the skipped ticks of
				 * the truth only if gap records were among them */
				v->c.dropped += n - d;
			}
		}
		return;
	}
	if (violations(&v->c) < MAX_REPORT)
		fprintf(stderr, "toe-verify %s: %" PRIu64 " record(s) from channel %" PRId32 " BizIndex %" PRId64
				" missing %s, with no gap record and no ring drop\n",
			v->label, n, from_ch, from_biz, where);
	v->c.unexplained += n;
}


/* The end of a feed: the records of the truth not seen yet are missing. */
static void finish_feed(struct verify *v)
{
	if (!v->started)
		return;
	uint64_t n = 0;
	int64_t first = 0;
	int32_t first_ch = 0;
	for (;;) {
		while (v->t.count) {
			if (!first) {
				first = biz_of(&v->t.q[v->t.head & v->t.qmask]);
				first_ch = chan_of(&v->t.q[v->t.head & v->t.qmask]);
			}
			truth_pop(&v->t);
			n++;
		}
		int r = truth_gen(&v->t);
		if (r < 0)
			v->gen_err = 1;
		if (r <= 0)
			break;
	}
	account_skip(v, n, first_ch, first, "at the end of the feed");
	v->c.expected += v->t.kept - v->join_skipped;
	v->c.feeds++;
	v->started = 0;
	v->join_skipped = 0;
	v->skip_pending = 0;
	v->gap_pending = 0;
}

static void report_record(const struct verify *v, const char *what, const union toe_record *r)
{
	fprintf(stderr,
		"toe-verify %s: %s: %s channel %" PRId32 " BizIndex %" PRId64 " msg_seq %" PRIu64 " (ring seq %" PRIu64
		", %" PRIu64 " records checked)\n",
		v->label, what, type_name(r->hdr.type), chan_of(r), biz_of(r), r->hdr.msg_seq, r->hdr.seq,
		v->c.received);
}

static void handle_tick(struct verify *v, const union toe_record *r, uint64_t now)
{
	struct truth *t = &v->t;
	v->c.received++;
	v->ticks_in_feed++;
	if (v->want_lat && v->c.feeds == 0 && r->hdr.msg_seq != v->last_msg_seq) {
		if (v->nst == v->capst) {
			size_t nc = v->capst ? v->capst * 2 : 65536;
			struct stamp *ns = realloc(v->st, nc * sizeof *ns);
			if (!ns) {
				v->want_lat = 0; /* reported at the end */
				v->gen_err = 2;
			} else {
				v->st = ns;
				v->capst = nc;
			}
		}
		if (v->nst < v->capst)
			v->st[v->nst++] = (struct stamp){r->hdr.msg_seq, now, r->hdr.rx_ns};
		v->last_msg_seq = r->hdr.msg_seq;
	}
	int64_t b = biz_of(r);
	int32_t ch = chan_of(r);
	if (b < 1 || (uint64_t)b > t->records || ch < 1 || ch > SSE_GEN_MAX_CHAN) {
		if (violations(&v->c) < MAX_REPORT)
			report_record(v, "BizIndex or channel outside the feed", r);
		v->c.not_in_truth++;
		return;
	}
	if (!filter_keeps(t->filt, r)) {
		if (violations(&v->c) < MAX_REPORT)
			report_record(v, "a record outside the subscription's filter", r);
		v->c.not_in_truth++;
		return;
	}
	if (v->started && v->skip_pending && b <= truth_done(t, ch)) {
		/* back to an earlier BizIndex of its channel right after a ring
		 * drop: the reset of a new feed was among the records dropped */
		char err[256];
		uint64_t sp = v->skip_pending;
		finish_feed(v);
		v->c.assumed_resets++;
		if (truth_start(t, err, sizeof err)) {
			fprintf(stderr, "toe-verify: %s\n", err);
			v->gen_err = 1;
			return;
		}
		v->ticks_in_feed = 1;
		v->skip_pending = sp;
	}
	if (b <= truth_done(t, ch)) {
		/* at or before a record of its channel already handled: a
		 * duplicate, or out of order */
		if (violations(&v->c) < MAX_REPORT)
			report_record(v, "duplicate or out of order", r);
		v->c.out_of_order++;
		v->started = 1;
		return;
	}
	/* its place in the truth: every record before it there was skipped */
	const union toe_record *e;
	uint64_t off = 0, popped = 0;
	int exact = 0, f;
	int64_t first = 0;
	int32_t first_ch = 0;
	while ((f = truth_find(t, ch, b, &off, &exact, &v->gen_err)) != 0) {
		if (f == 1 && !exact)
			break;
		/* before its place (f == 1), or the whole queue when its place lies beyond (-1) */
		for (uint64_t i = 0; i < off; i++, popped++) {
			e = &t->q[t->head & t->qmask];
			if (!first) {
				first = biz_of(e);
				first_ch = chan_of(e);
			}
			truth_pop(t);
		}
		if (f == 1 || off == 0)
			break; /* found; or a queue too small to hold one message (nothing to make room for) */
	}
	if (!v->started && v->join)
		v->join_skipped += popped; /* joined mid-stream: what came before is nobody's loss */
	else
		account_skip(v, popped, first_ch, first, "before this record");
	v->started = 1;
	if (f != 1 || !exact || !(e = truth_peek(t, &v->gen_err))) {
		/* a BizIndex its channel does not have (beyond the channel's last
		 * record, or between two of the truth) */
		if (violations(&v->c) < MAX_REPORT)
			report_record(v, "not in the feed", r);
		v->c.not_in_truth++;
		return;
	}
	if (same_record(r, e)) {
		v->c.matched++;
	} else {
		if (violations(&v->c) < MAX_REPORT) {
			report_record(v, "differs from the truth", r);
			describe_diff(r, e);
		}
		v->c.wrong++;
	}
	truth_pop(t);
	v->skip_pending = 0;
	v->gap_pending = 0;
	if (!truth_peek(t, &v->gen_err))
		v->done = 1; /* nothing of the feed is left for this filter */
}

static void handle(struct verify *v, const union toe_record *r, uint64_t now)
{
	if (r->hdr.seq > v->next_seq) {
		v->skip_pending += r->hdr.seq - v->next_seq;
		v->c.seq_skipped += r->hdr.seq - v->next_seq;
	}
	v->next_seq = r->hdr.seq + 1;
	v->c.read++;
	switch (r->hdr.type) {
	case TOE_REC_TRADE:
	case TOE_REC_ORDER:
		handle_tick(v, r, now);
		break;
	case TOE_REC_GAP:
		v->c.gaps++;
		v->c.gap_bytes += r->gap.length;
		v->gap_pending = 1;
		break;
	case TOE_REC_RESET:
		v->c.resets++;
		if (v->ticks_in_feed) {
			char err[256];
			finish_feed(v);
			v->ticks_in_feed = 0;
			if (truth_start(&v->t, err, sizeof err)) {
				fprintf(stderr, "toe-verify: %s\n", err);
				v->gen_err = 1;
			}
		}
		break;
	default:
		v->c.other++;
		break;
	}
}

/* ---- latency ---------------------------------------------------------------- */

static int latency(struct verify *v, const char *sendlog, const char *lat_path)
{
	struct feed_sendlog_ent *slog = NULL;
	size_t nslog = 0, nlat = 0, ncap = 0, missing = 0;
	uint64_t max_seq = 0;
	char err[512];
	int rc = 1;
	for (size_t i = 0; i < v->nst; i++)
		if (v->st[i].msg_seq > max_seq)
			max_seq = v->st[i].msg_seq;
	/* the simulator writes its log when it has sent everything: wait for it */
	if (feed_sendlog_wait(sendlog, max_seq, 101, &slog, &nslog, err, sizeof err)) {
		fprintf(stderr, "toe-verify: %s\n", err);
		return 1;
	}
	int64_t *lat = malloc((v->nst ? v->nst : 1) * sizeof *lat);
	int64_t *cap = malloc((v->nst ? v->nst : 1) * sizeof *cap);
	FILE *lf = NULL;
	if (!lat || !cap) {
		fprintf(stderr, "toe-verify: out of memory\n");
		goto out;
	}
	if (lat_path && !(lf = fopen(lat_path, "w"))) {
		fprintf(stderr, "toe-verify: %s: %s\n", lat_path, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < v->nst; i++) {
		const struct feed_sendlog_ent *e = feed_sendlog_find(slog, nslog, v->st[i].msg_seq);
		if (!e) {
			missing++;
			continue;
		}
		int64_t l = (int64_t)(v->st[i].rx_ns - e->send_ns);
		lat[nlat++] = l;
		int64_t c = v->st[i].cap_ns ? (int64_t)(v->st[i].cap_ns - e->send_ns) : 0;
		if (v->st[i].cap_ns)
			cap[ncap++] = c;
		if (lf) {
			fprintf(lf, "{\"msg_seq\":%" PRIu64 ",\"rx_ns\":%" PRIu64 ",\"lat_ns\":%" PRId64, v->st[i].msg_seq,
				v->st[i].rx_ns, l);
			if (v->st[i].cap_ns)
				fprintf(lf, ",\"cap_ns\":%" PRId64, c);
			fputs("}\n", lf);
		}
	}
	if (missing)
		fprintf(stderr, "toe-verify: %zu messages are not in the send log\n", missing);
	char name[160], label[160];
	snprintf(name, sizeof name, "toe-verify: %s one-way latency (send -> client read)", v->label);
	feed_lat_report(lat, nlat, stderr, name, stdout, v->label);
	snprintf(name, sizeof name, "toe-verify: %s send -> toed capture stamp", v->label);
	snprintf(label, sizeof label, "%s-capture", v->label);
	feed_lat_report(cap, ncap, stderr, name, stdout, label);
	rc = missing ? 1 : 0;
out:
	if (lf && fclose(lf) && rc == 0) {
		fprintf(stderr, "toe-verify: %s: %s\n", lat_path, strerror(errno));
		rc = 1;
	}
	free(lat);
	free(cap);
	free(slog);
	return rc;
}

/* ---- main ---------------------------------------------------------------------- */

static int parse_types(const char *s, uint32_t *mask)
{
	char buf[64];
	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	*mask = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "trade") || !strcmp(tok, "trades"))
			*mask |= TOE_TYPE_BIT(TOE_REC_TRADE);
		else if (!strcmp(tok, "order") || !strcmp(tok, "orders"))
			*mask |= TOE_TYPE_BIT(TOE_REC_ORDER);
		else
			return -1;
	}
	return *mask ? 0 : -1;
}

static uint64_t mono_ms(void)
{
	return feed_now_ns(CLOCK_MONOTONIC) / 1000000u;
}

/* CPU time this process used (user + system): what waiting cost */
static double cpu_seconds(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 0.0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* --drain: the run ended at the last record this client's filters keep,
 * but gap records for data after it (records of other channels, say) may
 * still come, and an unfiltered client, whose last record is the feed's last,
 * reads them. Keep reading (and checking: a tick now is a violation) until
 * FILE exists - the test creates it once the unfiltered client has finished,
 * so every gap it saw is in this ring too - and then until the ring has
 * stayed empty for 100 ms (the daemon commits the rings of one batch one
 * after the other), or until the deadline. */
static void drain_ring(struct toe_client *cl, struct verify *v, const char *file, uint64_t deadline_ms)
{
	uint64_t seen = 0, last = mono_ms();
	while (!stop && mono_ms() < deadline_ms) {
		const union toe_record *recs;
		int n = toe_peek(cl, &recs, 0, NULL);
		if (n > 0) {
			uint64_t now = feed_now_ns(CLOCK_REALTIME);
			for (int i = 0; i < n; i++)
				handle(v, &recs[i], now);
			toe_release(cl, (unsigned)n);
			last = mono_ms();
			continue;
		}
		if (n != -EAGAIN)
			return;
		if (!seen && access(file, F_OK) == 0) {
			seen = 1;
			last = mono_ms();
		}
		if (seen && mono_ms() - last >= 100)
			return;
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"templates", required_argument, 0, 't'}, {"socket", required_argument, 0, 'x'},
		{"expect", required_argument, 0, 'n'},    {"records", required_argument, 0, 'n'},
		{"seed", required_argument, 0, 's'},      {"per-msg", required_argument, 0, 'k'},
		{"securities", required_argument, 0, 'S'}, {"channels", required_argument, 0, 'c'},
		{"order-pct", required_argument, 0, 'p'}, {"types", required_argument, 0, 'y'},
		{"channel", required_argument, 0, 'C'},   {"security", required_argument, 0, 'I'},
		{"capacity", required_argument, 0, 'q'},  {"busy-poll", no_argument, 0, 'B'},
		{"cpu", required_argument, 0, 'P'},       {"slow", required_argument, 0, 'w'},
		{"sendlog", required_argument, 0, 'L'},   {"latency-out", required_argument, 0, 'O'},
		{"label", required_argument, 0, 'N'},     {"idle-ms", required_argument, 0, 'i'},
		{"timeout", required_argument, 0, 'T'},   {"ready", required_argument, 0, 'r'},
		{"join", no_argument, 0, 'j'},            {"any-msg-seq", no_argument, 0, 'M'},
		{"ahead", required_argument, 0, 'A'},
		{"hold", required_argument, 0, 'H'},      {"from-start", no_argument, 0, 'R'},
		{"spin", required_argument, 0, 'W'},      {"priority", required_argument, 0, 'Q'},
		{"biz-global", no_argument, 0, 'G'},      {"biz-per-channel", no_argument, 0, 'b'},
		{"stream", required_argument, 0, OPT_STREAM}, {"drain", required_argument, 0, OPT_DRAIN},
		{"help", no_argument, 0, 'h'},            {0, 0, 0, 0},
	};
	static struct filter filt;
	static struct verify v;
	const char *sock_path = NULL, *sendlog = NULL, *lat_path = NULL, *ready = NULL, *hold = NULL;
	const char *stream = NULL, *drain = NULL;
	int from_start = 0;
	uint64_t per_msg = 4, capacity = 0, slow_us = 0, idle_ms = 3000, timeout_s = 120, ahead = AHEAD_DEFAULT, x;
	int64_t cpu = -1, spin_ns = 0, prio = 0;
	int busy = 0, c;
	sse_gen_default(&v.t.cfg);
	v.t.records = 100000;
	v.label = "toe-verify";

	while ((c = getopt_long(argc, argv, "t:x:n:s:k:S:c:p:y:C:I:q:BP:w:L:O:N:i:T:r:jA:H:RhW:Q:Gb", lopts, NULL)) != -1) {
		const char *bad = NULL;
		if (feed_gen_opt(c, optarg, &v.t.cfg, &per_msg, &bad))
			c = 0; /* taken */
		switch (c) {
		case 0: break;
		case 't': v.t.templates = optarg; break;
		case 'x': sock_path = optarg; break;
		case 'n':
			if (feed_parse_u64(optarg, 1, UINT64_MAX / 2, &v.t.records))
				bad = "--expect needs a positive number";
			break;
		case 'y':
			if (parse_types(optarg, &filt.types))
				bad = "--types takes trade, order or trade,order";
			break;
		case 'C':
			if (filt.nchan == MAX_CHAN || feed_parse_u64(optarg, 0, INT32_MAX, &x))
				bad = "--channel needs a channel number (at most 64 of them)";
			else
				filt.chan[filt.nchan++] = (int32_t)x;
			break;
		case 'I':
			if (filt.nsec == MAX_SEC || strlen(optarg) == 0 || strlen(optarg) > TOE_SECURITY_ID_LEN)
				bad = "--security needs an id of 1..16 characters (at most 64 of them)";
			else
				snprintf(filt.sec[filt.nsec++], sizeof filt.sec[0], "%s", optarg);
			break;
		case 'q':
			if (feed_parse_u64(optarg, 1, 1u << 30, &capacity) || (capacity & (capacity - 1)))
				bad = "--capacity needs a power of two";
			break;
		case 'B': busy = 1; break;
		case 'W': spin_ns = strtoll(optarg, NULL, 10); break;
		case 'Q':
			prio = strtoll(optarg, NULL, 10);
			if (prio < 1 || prio > 99)
				bad = "--priority needs a SCHED_FIFO priority in 1..99";
			break;
		case 'P': bad = feed_opt_cpu(optarg, &cpu); break;
		case 'w':
			if (feed_parse_u64(optarg, 0, 10000000, &slow_us))
				bad = "--slow needs microseconds";
			break;
		case 'L': sendlog = optarg; break;
		case 'O': lat_path = optarg; break;
		case 'N': v.label = optarg; break;
		case 'i':
			if (feed_parse_u64(optarg, 1, 86400000, &idle_ms))
				bad = "--idle-ms needs a number of ms";
			break;
		case 'T':
			if (feed_parse_u64(optarg, 1, 86400, &timeout_s))
				bad = "--timeout needs a number of seconds";
			break;
		case 'r': ready = optarg; break;
		case 'H': hold = optarg; break;
		case OPT_DRAIN: drain = optarg; break;
		case OPT_STREAM:
			if (strlen(optarg) == 0 || strlen(optarg) >= TOE_CTL_STREAM_LEN)
				bad = "--stream needs a stream name of 1..31 characters";
			else
				stream = optarg;
			break;
		case 'R': from_start = 1; break;
		case 'j': v.join = 1; break;
		case 'M': any_msg_seq = 1; break;
		case 'A':
			if (feed_parse_u64(optarg, 1024, 1u << 26, &ahead))
				bad = "--ahead needs a number of records in 1024..67108864";
			break;
		case 'G': v.t.cfg.biz_per_channel = 0; break;
		case 'b': v.t.cfg.biz_per_channel = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad) {
			fprintf(stderr, "toe-verify: %s, not '%s'\n", bad, optarg);
			usage(stderr);
			return 2;
		}
	}
	if (feed_args_check("toe-verify", argc, argv, optind, v.t.templates, NULL)) {
		usage(stderr);
		return 2;
	}
	if (lat_path && !sendlog) {
		fprintf(stderr, "toe-verify: --latency-out needs --sendlog\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	char err[512];
	int rc = 1;
	struct toe_client *cl = NULL;
	v.t.per_msg = (uint32_t)per_msg;
	v.t.filt = &filt;
	v.want_lat = sendlog != NULL;
	v.next_seq = 1;
	v.last_msg_seq = UINT64_MAX;
	uint64_t qsize = 1;
	while (qsize < ahead + FEED_MAX_PER_MSG)
		qsize *= 2;
	v.t.q = malloc(qsize * sizeof *v.t.q);
	v.t.qmask = qsize - 1;
	if (!v.t.q) {
		fprintf(stderr, "toe-verify: out of memory\n");
		goto done;
	}
	if (truth_start(&v.t, err, sizeof err)) {
		fprintf(stderr, "toe-verify: %s\n", err);
		goto done;
	}
	/* the truth is generated ahead, before any record can wait for it */
	int g;
	while (v.t.count < ahead && (g = truth_gen(&v.t)) > 0)
		;
	if (cpu >= 0 && feed_pin_cpu((int)cpu))
		fprintf(stderr, "toe-verify: cannot run on CPU %" PRId64 ": %s (continuing)\n", cpu, strerror(errno));
	if (prio) {
		struct sched_param sp = {.sched_priority = (int)prio};
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			fprintf(stderr, "toe-verify: cannot run SCHED_FIFO %" PRId64 ": %s (continuing)\n", prio,
				strerror(errno));
	}

	struct toe_opts opts = {.name = v.label, .spin_ns = spin_ns};
	int e = toe_connect(&cl, sock_path, &opts);
	if (e < 0) {
		fprintf(stderr, "toe-verify: connect %s: %s\n", sock_path ? sock_path : "(default socket)", strerror(-e));
		rc = 3;
		goto done;
	}
	const char *secs[MAX_SEC];
	for (uint32_t i = 0; i < filt.nsec; i++)
		secs[i] = filt.sec[i];
	struct toe_sub sub = {
		.types = filt.types ? filt.types | TOE_TYPE_BIT(TOE_REC_GAP) | TOE_TYPE_BIT(TOE_REC_RESET) : 0,
		.capacity = (uint32_t)capacity,
		.start = from_start ? TOE_START_MSG_SEQ : TOE_START_NOW,
		.start_arg = 0,
		.nchannels = filt.nchan,
		.channels = filt.chan,
		.securities = secs,
		.nsecurities = filt.nsec,
		.stream = stream,
	};
	e = toe_subscribe(cl, &sub);
	if (e < 0) {
		fprintf(stderr, "toe-verify: subscribe: %s (%s)\n", strerror(-e), toe_last_error(cl));
		rc = 3;
		goto done;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");
		if (f)
			fclose(f);
	}

	uint64_t t_start = mono_ms(), t_last = 0, t_first = 0;
	const char *end = "timeout";
	while (!stop) {
		const union toe_record *recs;
		int n = toe_peek(cl, &recs, slow_us ? 1 : 0, NULL);
		if (n > 0) {
			uint64_t now = feed_now_ns(CLOCK_REALTIME);
			int i;
			for (i = 0; i < n && !v.done; i++)
				handle(&v, &recs[i], now);
			toe_release(cl, (unsigned)i);
			if (slow_us) {
				struct timespec ts = {(time_t)(slow_us / 1000000), (long)(slow_us % 1000000) * 1000};
				nanosleep(&ts, NULL);
			}
			t_last = mono_ms();
			if (!t_first)
				t_first = t_last;
			if (v.done) {
				end = "the feed's last record";
				break;
			}
			if (t_last - t_start >= timeout_s * 1000) {
				end = "timeout";
				break;
			}
			continue;
		}
		if (n != -EAGAIN) {
			end = n == -ESTALE ? "the daemon restarted" : n == -ENOTCONN ? "the daemon went away" : "an error";
			if (n != -ESTALE && n != -ENOTCONN)
				fprintf(stderr, "toe-verify: read: %s\n", strerror(-n));
			break;
		}
		/* nothing to read: generate a little of the truth ahead, check the clocks */
		if (v.t.count < (v.t.qmask + 1) / 2 && truth_gen(&v.t) < 0)
			v.gen_err = 1;
		uint64_t now = mono_ms();
		if (t_last && now - t_last >= idle_ms) {
			end = "idle";
			break;
		}
		if (now - t_start >= timeout_s * 1000) {
			end = "timeout";
			break;
		}
		if (!busy) {
			n = toe_wait(cl, 10000000ll);
			if (n < 0 && n != -EAGAIN && n != -EINTR) {
				end = n == -ESTALE ? "the daemon restarted" : "the daemon went away";
				break;
			}
		}
	}
	if (stop)
		end = "a signal";
	if (drain && v.done && !stop)
		drain_ring(cl, &v, drain, t_start + timeout_s * 1000);
	/* drops the daemon counted after the last record read are drops too */
	struct toe_stats ts;
	toe_stats(cl, &ts);
	if (ts.dropped > v.c.seq_skipped)
		v.skip_pending += ts.dropped - v.c.seq_skipped;
	finish_feed(&v);
	const struct counts *k = &v.c;
	double secs_run = t_last > t_first ? (double)(t_last - t_first) / 1e3 : 0.0;
	printf("VERIFY name=%s received=%" PRIu64 " expected=%" PRIu64 " matched=%" PRIu64 " missing_in_gaps=%" PRIu64
	       " dropped=%" PRIu64 " wrong=%" PRIu64 " out_of_order=%" PRIu64 " not_in_truth=%" PRIu64
	       " unexplained=%" PRIu64 " gaps=%" PRIu64 " gap_bytes=%" PRIu64 " resets=%" PRIu64 " feeds=%" PRIu64
	       " assumed_resets=%" PRIu64 " read=%" PRIu64 " seq_skipped=%" PRIu64 " lib_skipped=%" PRIu64 " ring_dropped=%" PRIu64 " client_id=%u"
	       " capacity=%u seconds=%.3f cpu_seconds=%.3f waits_slept=%" PRIu64 " end=\"%s\"\n",
	       v.label, k->received, k->expected, k->matched, k->missing_in_gaps, k->dropped, k->wrong, k->out_of_order,
	       k->not_in_truth, k->unexplained, k->gaps, k->gap_bytes, k->resets, k->feeds, k->assumed_resets, k->read,
	       k->seq_skipped,
	       ts.skipped, ts.dropped, ts.client_id, ts.capacity, secs_run, cpu_seconds(), ts.sleeps, end);
	fflush(stdout);
	rc = 0;
	if (violations(k)) {
		fprintf(stderr, "toe-verify %s: FAILED: %" PRIu64 " wrong, %" PRIu64 " duplicate/out of order, %" PRIu64
				" outside the truth, %" PRIu64 " missing without a gap or drop\n",
			v.label, k->wrong, k->out_of_order, k->not_in_truth, k->unexplained);
		rc = 1;
	}
	if (v.gen_err) {
		fprintf(stderr, "toe-verify: %s\n",
			v.gen_err == 2 ? "out of memory for the latency stamps" : "the truth could not be generated");
		rc = 1;
	}
	if (k->received == 0) {
		fprintf(stderr, "toe-verify %s: no record arrived (%s)\n", v.label, end);
		if (rc == 0)
			rc = 3;
	}
	if (sendlog && k->received && latency(&v, sendlog, lat_path) && rc == 0)
		rc = 1;
	fflush(stdout);
	/* keep the subscription (and its counters in toectl) until told */
	while (hold && access(hold, F_OK) != 0 && !stop && mono_ms() - t_start < timeout_s * 1000) {
		struct timespec hs = {0, 20 * 1000 * 1000};
		nanosleep(&hs, NULL);
	}
done:
	toe_close(cl);
	feed_src_free(v.t.src);
	free(v.t.q);
	free(v.st);
	return rc;
}
