/* test_sse_gen.c - the SSE tick generator (sse_gen.c): determinism, the
 * continuity rules of sse_gen.h, the value layout built from a tick, and the
 * STEP feed (message sizes, MsgSeqNum, one record type per message).
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "fast/host/fast_compile.h"
#include "feed/sse_gen.h"
#include "fast/step_deframe.h"

#define N 20000
#define BIT(f) (1u << (f))

static int64_t time_cc(int32_t t)
{
	return (((int64_t)t / 1000000 * 60 + t / 10000 % 100) * 60 + t / 100 % 100) * 100 + t % 100;
}

static void test_determinism(void)
{
	struct sse_gen *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	struct sse_gen_cfg cfg;
	union toe_record ra, rb;
	int diff = 0;

	sse_gen_default(&cfg);
	cfg.seed = 7;
	CHECK_EQ(sse_gen_init(a, &cfg), 0);
	CHECK_EQ(sse_gen_init(b, &cfg), 0);
	for (int i = 0; i < 5000; i++) {
		sse_gen_next(a, &ra);
		sse_gen_next(b, &rb);
		diff += memcmp(&ra, &rb, sizeof ra) != 0;
	}
	CHECK_EQ(diff, 0);

	/* another seed gives another feed */
	cfg.seed = 8;
	CHECK_EQ(sse_gen_init(b, &cfg), 0);
	CHECK_EQ(sse_gen_init(a, &(struct sse_gen_cfg){ .seed = 7, .nsecurities = 200, .nchannels = 4,
							  .order_pct = 70, .status_pct = 10 }),
		 0);
	diff = 0;
	for (int i = 0; i < 100; i++) {
		sse_gen_next(a, &ra);
		sse_gen_next(b, &rb);
		diff += memcmp(&ra, &rb, sizeof ra) != 0;
	}
	CHECK(diff > 50);

	/* out-of-range configurations are refused */
	cfg.nsecurities = 0;
	CHECK_EQ(sse_gen_init(a, &cfg), -1);
	cfg.nsecurities = SSE_GEN_MAX_SEC + 1;
	CHECK_EQ(sse_gen_init(a, &cfg), -1);
	sse_gen_default(&cfg);
	cfg.nchannels = SSE_GEN_MAX_CHAN + 1;
	CHECK_EQ(sse_gen_init(a, &cfg), -1);
	sse_gen_default(&cfg);
	cfg.order_pct = 101;
	CHECK_EQ(sse_gen_init(a, &cfg), -1);
	sse_gen_default(&cfg);
	cfg.start_time = 9306000; /* 09:30:60.00 */
	CHECK_EQ(sse_gen_init(a, &cfg), -1);
	free(a);
	free(b);
}

static int valid_id(const char *id)
{
	for (int i = 0; i < 6; i++)
		if (id[i] < '0' || id[i] > '9')
			return 0;
	for (int i = 6; i < TOE_SECURITY_ID_LEN; i++)
		if (id[i])
			return 0;
	return 1;
}

static void test_continuity(void)
{
	struct sse_gen *g = malloc(sizeof *g);
	struct sse_gen_cfg cfg;
	union toe_record r;
	static int32_t trade_idx[SSE_GEN_MAX_CHAN + 1], order_idx[SSE_GEN_MAX_CHAN + 1];
	static char chan_of[1000000]; /* channel seen per numeric security id */
	static int64_t chan_biz[SSE_GEN_MAX_CHAN + 1];
	int64_t max_order_no = 0;
	int32_t last_time = 0;
	int orders = 0, trades = 0, with_status = 0, bad = 0, deletes = 0, nflag = 0, seen_600000 = 0,
	    seen_688981 = 0;
	const uint32_t trade_mask = BIT(TOE_TF_SECURITY_ID) | BIT(TOE_TF_BIZ_INDEX) | BIT(TOE_TF_TRADE_INDEX) |
				    BIT(TOE_TF_TRADE_CHANNEL) | BIT(TOE_TF_TRADE_TIME) |
				    BIT(TOE_TF_TRADE_PRICE) | BIT(TOE_TF_TRADE_QTY) |
				    BIT(TOE_TF_TRADE_MONEY) | BIT(TOE_TF_TRADE_BUY_NO) |
				    BIT(TOE_TF_TRADE_SELL_NO) | BIT(TOE_TF_TRADE_BS_FLAG);
	const uint32_t order_mask = BIT(TOE_TF_SECURITY_ID) | BIT(TOE_TF_BIZ_INDEX) | BIT(TOE_TF_ORDER_INDEX) |
				    BIT(TOE_TF_ORDER_CHANNEL) | BIT(TOE_TF_ORDER_TIME) |
				    BIT(TOE_TF_ORDER_TYPE) | BIT(TOE_TF_ORDER_NO) |
				    BIT(TOE_TF_ORDER_PRICE) | BIT(TOE_TF_BALANCE) |
				    BIT(TOE_TF_ORDER_BS_FLAG);

	sse_gen_default(&cfg);
	cfg.seed = 2024;
	cfg.nsecurities = 50;
	cfg.nchannels = 3;
	cfg.order_pct = 70;
	cfg.status_pct = 20;
	cfg.start_time = 11295000; /* 11:29:50.00: crosses the lunch break */
	CHECK_EQ(sse_gen_init(g, &cfg), 0);

	for (int i = 0; i < N; i++) {
		int type = sse_gen_next(g, &r);
		int ok = 1;
		const char *id;
		int32_t chan, t, idx;
		int64_t rbiz;
		uint32_t mask = r.hdr.present & ~BIT(TOE_TF_DATA_STATUS);
		CHECK(type == TOE_REC_TRADE || type == TOE_REC_ORDER);
		ok &= r.hdr.type == type && r.hdr.msg_seq == 0 && r.hdr.seq == 0 && r.hdr.rx_ns == 0;
		with_status += (r.hdr.present & BIT(TOE_TF_DATA_STATUS)) != 0;
		if (type == TOE_REC_TRADE) {
			const struct toe_trade *tr = &r.trade;
			trades++;
			ok &= mask == trade_mask;
			id = tr->security_id;
			chan = tr->trade_channel;
			t = tr->trade_time;
			rbiz = tr->biz_index;
			idx = tr->trade_index;
			ok &= idx == ++trade_idx[chan < 1 || chan > 3 ? 0 : chan];
			ok &= tr->trade_price > 0 && tr->trade_price % 10 == 0;
			ok &= tr->trade_qty > 0 && tr->trade_qty % 100000 == 0;
			/* money at 5 decimals = price (3) * qty (3) / 10 */
			ok &= tr->trade_money == (int64_t)tr->trade_price * tr->trade_qty / 10;
			ok &= tr->trade_buy_no > 0 && tr->trade_buy_no <= max_order_no + 2;
			ok &= tr->trade_sell_no > 0 && tr->trade_sell_no <= max_order_no + 2;
			if (tr->trade_buy_no > max_order_no)
				max_order_no = tr->trade_buy_no;
			if (tr->trade_sell_no > max_order_no)
				max_order_no = tr->trade_sell_no;
			if (t < 9300000) {
				ok &= tr->bs_flag[0] == 'N';
				nflag++;
			} else {
				ok &= tr->bs_flag[0] == 'B' || tr->bs_flag[0] == 'S';
			}
			ok &= tr->data_status >= 0 && ((r.hdr.present & BIT(TOE_TF_DATA_STATUS)) || !tr->data_status);
		} else {
			const struct toe_order *o = &r.order;
			orders++;
			ok &= mask == order_mask;
			id = o->security_id;
			chan = o->order_channel;
			t = o->order_time;
			rbiz = o->biz_index;
			idx = o->order_index;
			ok &= idx == ++order_idx[chan < 1 || chan > 3 ? 0 : chan];
			ok &= o->order_price > 0 && o->order_price % 10 == 0;
			ok &= o->balance > 0 && o->balance % 100000 == 0;
			ok &= o->bs_flag[0] == 'B' || o->bs_flag[0] == 'S';
			if (o->order_type[0] == 'A') {
				ok &= o->order_no > max_order_no; /* new orders get new numbers */
				max_order_no = o->order_no;
			} else {
				ok &= o->order_type[0] == 'D' && o->order_no > 0 && o->order_no <= max_order_no;
				deletes++;
			}
		}
		ok &= valid_id(id);
		ok &= chan >= 1 && chan <= 3;
		/* a security stays on its channel */
		int num = atoi(id);
		if (chan_of[num] == 0)
			chan_of[num] = (char)chan;
		ok &= chan_of[num] == chan;
		seen_600000 |= num == 600000;
		seen_688981 |= num == 688981;
		ok &= rbiz == ++chan_biz[chan < 1 || chan > 3 ? 0 : chan]; /* SSE: per channel, both kinds */
		/* HHMMSScc, never decreasing, no trading at lunch, not after 15:00 */
		ok &= t / 10000 % 100 < 60 && t / 100 % 100 < 60;
		ok &= t >= last_time;
		ok &= !(t >= 11300000 && t < 13000000) && t <= 15000000;
		last_time = t;
		if (!ok && bad++ < 5)
			fprintf(stderr, "record %d (type %d) breaks a rule\n", i, type);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(orders + trades, N);
	/* shares near the configured percentages (binomial sd ~ 0.3%) */
	CHECK(orders > N * 68 / 100 && orders < N * 72 / 100);
	CHECK(with_status > N * 18 / 100 && with_status < N * 22 / 100);
	CHECK(deletes > 0);
	CHECK(seen_600000 && seen_688981);
	CHECK_EQ(nflag, 0); /* started after 09:30 */
	CHECK(time_cc(last_time) > time_cc(13000000)); /* went past the lunch break */
	free(g);

	/* the default start has a few call-auction trades ('N') before 09:30 */
	g = malloc(sizeof *g);
	sse_gen_default(&cfg);
	CHECK_EQ(sse_gen_init(g, &cfg), 0);
	nflag = 0;
	for (int i = 0; i < 2000; i++)
		if (sse_gen_next(g, &r) == TOE_REC_TRADE && r.trade.bs_flag[0] == 'N')
			nflag++;
	CHECK(nflag > 0);
	free(g);
}

/* sse_rec_from_tick on the current SSE templates: the values the decoder
 * would produce, field by field (scales from the template: price and qty 3,
 * money 5 decimals, the same as the ABI). */
static void test_rec_from_tick(void)
{
	static struct fast_prog prog;
	static struct fast_names names;
	static struct fast_rec rec;
	char err[256];
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		CHECK(0);
		return;
	}
	union toe_record t;
	memset(&t, 0, sizeof t);
	t.hdr.type = TOE_REC_TRADE;
	t.trade.trade_index = 17;
	t.trade.trade_channel = 2;
	memcpy(t.trade.security_id, "600000", 6);
	t.trade.trade_time = 9300012;
	t.trade.trade_price = 10250;  /* 10.250 */
	t.trade.trade_qty = 300000;   /* 300 shares */
	t.trade.trade_money = 307500000; /* 3075.00000 */
	t.trade.trade_buy_no = 5;
	t.trade.trade_sell_no = 6;
	t.trade.bs_flag[0] = 'S';
	t.trade.biz_index = 99;
	t.hdr.present = BIT(TOE_TF_TRADE_INDEX) | BIT(TOE_TF_TRADE_CHANNEL) | BIT(TOE_TF_SECURITY_ID) |
			BIT(TOE_TF_TRADE_TIME) | BIT(TOE_TF_TRADE_PRICE) | BIT(TOE_TF_TRADE_QTY) |
			BIT(TOE_TF_TRADE_MONEY) | BIT(TOE_TF_TRADE_BUY_NO) | BIT(TOE_TF_TRADE_SELL_NO) |
			BIT(TOE_TF_TRADE_BS_FLAG) | BIT(TOE_TF_BIZ_INDEX);
	CHECK_EQ(sse_rec_from_tick(&prog, &t, &rec), 0);
	CHECK_EQ(rec.tid, 3201);
	/* MessageType, DataStatus, TradeIndex, TradeChannel, SecurityID, TradeTime,
	 * TradePrice, TradeQty, TradeMoney, TradeBuyNo, TradeSellNo, TradeBSFlag, BizIndex */
	CHECK_EQ(rec.nvals, 13);
	static const int64_t want_i[13] = { 0, 0, 17, 2, 0, 9300012, 10250, 300000, 307500000, 5, 6, 0, 99 };
	static const int want_present[13] = { 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	for (int k = 0; k < 13 && k < rec.nvals; k++) {
		CHECK_EQ(rec.v[k].instr, prog.tpl[rec.tpl].first + k);
		CHECK_EQ(rec.v[k].present, want_present[k]);
		if (k != 0 && k != 4 && k != 11)
			CHECK_EQ(rec.v[k].i, want_i[k]);
	}
	CHECK_EQ(rec.v[0].slen, 6);
	CHECK_MEM(rec.str + rec.v[0].soff, "UA3201", 6);
	CHECK_EQ(rec.v[4].slen, 6);
	CHECK_MEM(rec.str + rec.v[4].soff, "600000", 6);
	CHECK_EQ(rec.v[11].slen, 1);
	CHECK_MEM(rec.str + rec.v[11].soff, "S", 1);

	/* a type without a template, and a value that does not fit its field */
	t.hdr.type = TOE_REC_GAP;
	CHECK_EQ(sse_rec_from_tick(&prog, &t, &rec), -1);
}

/* The feed: MsgSeqNum 1, 2, 3...; 1..per_msg records of one type per message;
 * the message type names the template; records continue the generator. */
static void test_stream(void)
{
	static struct fast_prog prog;
	static struct fast_names names;
	char err[256];
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		CHECK(0);
		return;
	}
	struct sse_stream *s = malloc(sizeof *s);
	struct sse_gen *g = malloc(sizeof *g);
	struct step_deframer *d = malloc(sizeof *d);
	static uint8_t buf[1 << 16];
	union toe_record ticks[5], ref;
	struct sse_gen_cfg cfg;
	sse_gen_default(&cfg);
	cfg.seed = 99;
	CHECK_EQ(sse_stream_init(s, &prog, &cfg, 5), 0);
	CHECK_EQ(sse_gen_init(g, &cfg), 0);
	step_init(d);
	int total = 0, sizes[6] = { 0 }, bad = 0;
	for (uint64_t m = 1; total < 3000; m++) {
		uint32_t n = 0;
		int len = sse_stream_next_msg(s, (uint32_t)(3000 - total), buf, sizeof buf, NULL, ticks, &n);
		CHECK(len > 0);
		if (len <= 0)
			break;
		CHECK(n >= 1 && n <= 5);
		if (n < 1 || n > 5)
			break;
		sizes[n]++;
		for (uint32_t k = 0; k < n; k++) {
			sse_gen_next(g, &ref); /* same order as the plain generator */
			if (memcmp(&ref, &ticks[k], sizeof ref) != 0 || ticks[k].hdr.type != ticks[0].hdr.type)
				bad++;
		}
		int st;
		uint32_t used = step_feed(d, buf, (uint32_t)len, &st);
		CHECK_EQ(st, STEP_MSG);
		CHECK_EQ(used, (uint32_t)len);
		if (st == STEP_MSG) {
			CHECK_EQ(d->msg.seq, m);
			CHECK(strcmp(d->msg.msgtype, ticks[0].hdr.type == TOE_REC_TRADE ? "UA3201" : "UA5801") == 0);
		}
		total += (int)n;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(total, 3000);
	/* every size occurs (a type change can cut a message short) */
	for (int k = 1; k <= 5; k++)
		CHECK(sizes[k] > 0);
	free(s);
	free(g);
	free(d);
}

/* The default numbering is SSE's, 1, 2, ... per channel across trades and
 * orders; biz_per_channel = 0 gives the global count 1, 2, 3, ... and
 * everything else (every other field, the draws) is the same record. */
static void test_biz_per_channel(void)
{
	static struct sse_gen ga, gb;
	struct sse_gen_cfg cfg;
	union toe_record a, b;
	int64_t next[SSE_GEN_MAX_CHAN + 1];
	uint32_t bad = 0, other = 0;
	sse_gen_default(&cfg);
	CHECK_EQ(cfg.biz_per_channel, 1);
	CHECK_EQ(sse_gen_init(&gb, &cfg), 0);
	cfg.biz_per_channel = 0;
	CHECK_EQ(sse_gen_init(&ga, &cfg), 0);
	for (int c = 0; c <= SSE_GEN_MAX_CHAN; c++)
		next[c] = 1;
	for (int i = 0; i < 5000; i++) {
		sse_gen_next(&ga, &a);
		sse_gen_next(&gb, &b);
		int32_t ch = b.hdr.type == TOE_REC_TRADE ? b.trade.trade_channel : b.order.order_channel;
		int64_t *bb = b.hdr.type == TOE_REC_TRADE ? &b.trade.biz_index : &b.order.biz_index;
		int64_t *ab = a.hdr.type == TOE_REC_TRADE ? &a.trade.biz_index : &a.order.biz_index;
		CHECK(ch >= 1 && ch <= 4);
		if (ch < 1 || ch > 4)
			return;
		bad += *bb != next[ch]++;
		other += *ab != i + 1;
		*ab = *bb = 0;
		other += memcmp(&a, &b, sizeof a) != 0;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(other, 0);
	CHECK(next[1] > 1000 && next[4] > 1000); /* every channel numbered on its own */
}

int main(void)
{
	test_determinism();
	test_continuity();
	test_rec_from_tick();
	test_stream();
	test_biz_per_channel();
	return test_done("sse_gen");
}
