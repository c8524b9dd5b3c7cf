/* tick_client.c - a test client of toed: subscribe, print the ticks as toe-fastgen's truth lines.
 *
 *   tick_client [--socket PATH] [--types trade,order,gap,reset,session] [--channel N]... [--security ID]...
 *               [--from-start] [--count N] [--idle-ms MS] [--timeout S] [--until-gone]
 *               [--capacity N] [--pause-ms MS] [--ready FILE] [--quiet] [-o FILE]
 *               [--stream NAME] [--brief]
 *   tick_client --file TICKS.bin [-o FILE]      (a file written by [record] ticks)
 *
 * Trades and orders are printed exactly as toe-fastgen --truth / toe-fastdump
 * print the records of the SSE 3201/5801 templates in
 * conf/templates/sse-l2-3201-5801.xml (same keys, same order, fields whose
 * present bit is clear left out), so the output of a filtered subscription
 * can be compared with cmp against the matching lines of the truth file.
 * Gaps, resets and session events are printed as {"event":"gap",...} /
 * {"event":"reset",...} / {"event":"session","session":"logged_on",...}.
 * --brief prints one line of numbers per record instead (print_brief), with
 * each record's group and line; --stream subscribes to one named stream.
 *
 * Stops after --count records, after --idle-ms without a record (once at
 * least one came), at --timeout, or with --until-gone when the daemon goes
 * away (prints "GONE ENOTCONN" or "GONE ESTALE" on stderr). --pause-ms waits
 * that long after subscribing before reading (a slow reader: with a small
 * --capacity the daemon drops records for it). Exit status: 0,
 * 1 error, 2 usage, 3 timeout before --count records or before the daemon went
 * away, 4 the ring dropped records (seq jumps).
 * --quiet prints no record (a counting reader fast enough for a benchmark).
 * At the end, stderr has "CLOCKS unknown=N nic=N kernel=N poll=N capture=N
 * card=N": how many records each clock stamped (enum toe_rx_clock).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toe/toeclient.h"

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#define HAS(r, f) ((r)->hdr.present & (1u << (f)))

static void put_str(FILE *o, const char *key, const char *s, size_t max)
{
	fprintf(o, ",\"%s\":\"", key);
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

/* a NUL-padded code field (TOE_FLAG_LEN bytes) */
static void put_code(FILE *o, const char *key, const char *c)
{
	put_str(o, key, c, TOE_FLAG_LEN);
}

static void print_trade(FILE *o, const union toe_record *r)
{
	const struct toe_trade *t = &r->trade;
	fprintf(o, "{\"template\":3201,\"msg_seq\":%" PRIu64 ",\"MessageType\":\"UA3201\"", r->hdr.msg_seq);
	if (HAS(r, TOE_TF_DATA_STATUS))
		fprintf(o, ",\"DataStatus\":%d", t->data_status);
	if (HAS(r, TOE_TF_TRADE_INDEX))
		fprintf(o, ",\"TradeIndex\":%d", t->trade_index);
	if (HAS(r, TOE_TF_TRADE_CHANNEL))
		fprintf(o, ",\"TradeChannel\":%d", t->trade_channel);
	if (HAS(r, TOE_TF_SECURITY_ID))
		put_str(o, "SecurityID", t->security_id, TOE_SECURITY_ID_LEN);
	if (HAS(r, TOE_TF_TRADE_TIME))
		fprintf(o, ",\"TradeTime\":%d", t->trade_time);
	if (HAS(r, TOE_TF_TRADE_PRICE))
		fprintf(o, ",\"TradePrice\":%" PRId64, t->trade_price);
	if (HAS(r, TOE_TF_TRADE_QTY))
		fprintf(o, ",\"TradeQty\":%" PRId64, t->trade_qty);
	if (HAS(r, TOE_TF_TRADE_MONEY))
		fprintf(o, ",\"TradeMoney\":%" PRId64, t->trade_money);
	if (HAS(r, TOE_TF_TRADE_BUY_NO))
		fprintf(o, ",\"TradeBuyNo\":%" PRId64, t->trade_buy_no);
	if (HAS(r, TOE_TF_TRADE_SELL_NO))
		fprintf(o, ",\"TradeSellNo\":%" PRId64, t->trade_sell_no);
	if (HAS(r, TOE_TF_TRADE_BS_FLAG))
		put_code(o, "TradeBSFlag", t->bs_flag);
	if (HAS(r, TOE_TF_BIZ_INDEX))
		fprintf(o, ",\"BizIndex\":%" PRId64, t->biz_index);
	fprintf(o, "}\n");
}

static void print_order(FILE *o, const union toe_record *r)
{
	const struct toe_order *t = &r->order;
	fprintf(o, "{\"template\":5801,\"msg_seq\":%" PRIu64 ",\"MessageType\":\"UA5801\"", r->hdr.msg_seq);
	if (HAS(r, TOE_TF_DATA_STATUS))
		fprintf(o, ",\"DataStatus\":%d", t->data_status);
	if (HAS(r, TOE_TF_ORDER_INDEX))
		fprintf(o, ",\"OrderIndex\":%d", t->order_index);
	if (HAS(r, TOE_TF_ORDER_CHANNEL))
		fprintf(o, ",\"OrderChannel\":%d", t->order_channel);
	if (HAS(r, TOE_TF_SECURITY_ID))
		put_str(o, "SecurityID", t->security_id, TOE_SECURITY_ID_LEN);
	if (HAS(r, TOE_TF_ORDER_TIME))
		fprintf(o, ",\"OrderTime\":%d", t->order_time);
	if (HAS(r, TOE_TF_ORDER_TYPE))
		put_code(o, "OrderType", t->order_type);
	if (HAS(r, TOE_TF_ORDER_NO))
		fprintf(o, ",\"OrderNO\":%" PRId64, t->order_no);
	if (HAS(r, TOE_TF_ORDER_PRICE))
		fprintf(o, ",\"OrderPrice\":%" PRId64, t->order_price);
	if (HAS(r, TOE_TF_BALANCE))
		fprintf(o, ",\"Balance\":%" PRId64, t->balance);
	if (HAS(r, TOE_TF_ORDER_BS_FLAG))
		put_code(o, "OrderBSFlag", t->bs_flag);
	if (HAS(r, TOE_TF_BIZ_INDEX))
		fprintf(o, ",\"BizIndex\":%" PRId64, t->biz_index);
	fprintf(o, "}\n");
}

/* --brief: one line of numbers per record, for scripts that check lines and sequences:
 *   T|O channel biz group line msg_seq flags stream
 *   G reason channel first last group line stream offset length
 *   X reason group line stream channel last
 *   S event group line stream next_in next_out arg1 arg2 flags text */
static int brief;

static void print_brief(FILE *o, const union toe_record *r)
{
	const struct toe_rec_hdr *h = &r->hdr;
	switch (h->type) {
	case TOE_REC_TRADE:
	case TOE_REC_ORDER: {
		int t = h->type == TOE_REC_TRADE;
		fprintf(o, "%s %d %" PRId64 " %u %u %" PRIu64 " %u %u\n", t ? "T" : "O",
			t ? r->trade.trade_channel : r->order.order_channel, t ? r->trade.biz_index : r->order.biz_index,
			h->group, h->line, h->msg_seq, h->flags, h->stream);
		break;
	}
	case TOE_REC_GAP:
		fprintf(o, "G %u %u %" PRIu64 " %" PRIu64 " %u %u %u %" PRIu64 " %" PRIu64 "\n", r->gap.reason,
			r->gap.channel, r->gap.first, r->gap.last, h->group, h->line, h->stream, r->gap.offset,
			r->gap.length);
		break;
	case TOE_REC_RESET:
		fprintf(o, "X %u %u %u %u %u %" PRIu64 "\n", r->reset.reason, h->group, h->line, h->stream,
			r->reset.channel, r->reset.last);
		break;
	case TOE_REC_SESSION:
		fprintf(o, "S %s %u %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %.*s\n",
			toe_sess_event_name(r->session.event), h->group, h->line, h->stream, r->session.next_in,
			r->session.next_out, r->session.arg1, r->session.arg2, r->session.flags, TOE_SESS_TEXT_LEN - 1,
			r->session.text);
		break;
	default: fprintf(o, "U %u\n", h->type); break;
	}
}

static void print_record(FILE *o, const union toe_record *r)
{
	if (brief) {
		print_brief(o, r);
		return;
	}
	switch (r->hdr.type) {
	case TOE_REC_TRADE: print_trade(o, r); break;
	case TOE_REC_ORDER: print_order(o, r); break;
	case TOE_REC_GAP:
		fprintf(o,
			"{\"event\":\"gap\",\"stream\":%u,\"offset\":%" PRIu64 ",\"length\":%" PRIu64
			",\"reason\":%u,\"detail\":%u}\n",
			r->hdr.stream, r->gap.offset, r->gap.length, r->gap.reason, r->gap.detail);
		break;
	case TOE_REC_RESET: fprintf(o, "{\"event\":\"reset\",\"stream\":%u}\n", r->hdr.stream); break;
	case TOE_REC_SESSION:
		fprintf(o, "{\"event\":\"session\",\"stream\":%u,\"session\":\"%s\",\"next_in\":%" PRIu64
			",\"next_out\":%" PRIu64 ",\"arg1\":%" PRIu64 ",\"arg2\":%" PRIu64 ",\"flags\":%u",
			r->hdr.stream, toe_sess_event_name(r->session.event), r->session.next_in, r->session.next_out,
			r->session.arg1, r->session.arg2, r->session.flags);
		put_str(o, "text", r->session.text, TOE_SESS_TEXT_LEN);
		fprintf(o, "}\n");
		break;
	default: fprintf(o, "{\"event\":\"unknown\",\"type\":%u}\n", r->hdr.type); break;
	}
}

static int dump_file(const char *path, FILE *o)
{
	FILE *f = fopen(path, "rb");
	unsigned char hdr[64];
	union toe_record r;
	if (!f) {
		fprintf(stderr, "tick_client: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (fread(hdr, 1, sizeof hdr, f) != sizeof hdr || memcmp(hdr, "TOETICKS", 8) != 0) {
		fprintf(stderr, "tick_client: %s: not a toed ticks file\n", path);
		fclose(f);
		return 1;
	}
	while (fread(&r, sizeof r, 1, f) == 1)
		print_record(o, &r);
	fclose(f);
	return 0;
}

static uint32_t parse_types(const char *s)
{
	uint32_t m = 0;
	char buf[128];
	snprintf(buf, sizeof buf, "%s", s);
	for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "trade"))
			m |= TOE_TYPE_BIT(TOE_REC_TRADE);
		else if (!strcmp(t, "order"))
			m |= TOE_TYPE_BIT(TOE_REC_ORDER);
		else if (!strcmp(t, "gap"))
			m |= TOE_TYPE_BIT(TOE_REC_GAP);
		else if (!strcmp(t, "reset"))
			m |= TOE_TYPE_BIT(TOE_REC_RESET);
		else if (!strcmp(t, "session"))
			m |= TOE_TYPE_BIT(TOE_REC_SESSION);
		else
			return UINT32_MAX;
	}
	return m;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"socket", required_argument, 0, 's'},  {"types", required_argument, 0, 't'},
		{"channel", required_argument, 0, 'c'}, {"security", required_argument, 0, 'i'},
		{"from-start", no_argument, 0, 'S'},    {"count", required_argument, 0, 'n'},
		{"idle-ms", required_argument, 0, 'I'}, {"timeout", required_argument, 0, 'T'},
		{"until-gone", no_argument, 0, 'G'},    {"ready", required_argument, 0, 'r'},
		{"file", required_argument, 0, 'f'},    {"output", required_argument, 0, 'o'},
		{"capacity", required_argument, 0, 'C'}, {"pause-ms", required_argument, 0, 'P'},
		{"quiet", no_argument, 0, 'q'},         {"stream", required_argument, 0, 'N'},
		{"brief", no_argument, 0, 'B'},         {0, 0, 0, 0},
	};
	static int32_t channels[TOE_CTL_MAX_CHANNELS];
	static const char *securities[TOE_CTL_MAX_SECURITIES];
	struct toe_sub sub = {.channels = channels, .securities = securities};
	const char *path = NULL, *ready = NULL, *file = NULL, *out = NULL;
	uint64_t count = 0, idle_ms = 0, seen = 0, pause_ms = 0;
	double timeout = 30;
	int until_gone = 0, quiet = 0, c;
	while ((c = getopt_long(argc, argv, "s:t:c:i:Sn:I:T:Gr:f:o:C:P:qN:B", lopts, NULL)) != -1) {
		switch (c) {
		case 's': path = optarg; break;
		case 't':
			sub.types = parse_types(optarg);
			if (sub.types == UINT32_MAX)
				return fprintf(stderr, "tick_client: bad --types\n"), 2;
			break;
		case 'c':
			if (sub.nchannels == TOE_CTL_MAX_CHANNELS)
				return 2;
			channels[sub.nchannels++] = (int32_t)strtol(optarg, NULL, 0);
			break;
		case 'i':
			if (sub.nsecurities == TOE_CTL_MAX_SECURITIES)
				return 2;
			securities[sub.nsecurities++] = optarg;
			break;
		case 'S':
			sub.start = TOE_START_MSG_SEQ;
			sub.start_arg = 0;
			break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'I': idle_ms = strtoull(optarg, NULL, 0); break;
		case 'T': timeout = strtod(optarg, NULL); break;
		case 'G': until_gone = 1; break;
		case 'r': ready = optarg; break;
		case 'f': file = optarg; break;
		case 'o': out = optarg; break;
		case 'C': sub.capacity = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'P': pause_ms = strtoull(optarg, NULL, 0); break;
		case 'q': quiet = 1; break;
		case 'N': sub.stream = optarg; break;
		case 'B': brief = 1; break;
		default: return 2;
		}
	}
	FILE *o = stdout;
	if (out && !(o = fopen(out, "w"))) {
		fprintf(stderr, "tick_client: %s: %s\n", out, strerror(errno));
		return 1;
	}
	if (file) {
		int rc = dump_file(file, o);
		if (o != stdout)
			fclose(o);
		return rc;
	}
	struct toe_client *cl;
	int e = toe_connect(&cl, path, &(struct toe_opts){.name = "tick_client"});
	if (e < 0) {
		fprintf(stderr, "tick_client: connect: %s\n", strerror(-e));
		return 1;
	}
	e = toe_subscribe(cl, &sub);
	if (e < 0) {
		fprintf(stderr, "tick_client: subscribe: %s (%s)\n", strerror(-e), toe_last_error(cl));
		toe_close(cl);
		return 1;
	}
	if (ready) {
		FILE *rf = fopen(ready, "w");
		if (rf)
			fclose(rf);
	}
	if (pause_ms) {
		struct timespec ts = {(time_t)(pause_ms / 1000), (long)(pause_ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	uint64_t t0 = now_ms(), last = t0, dropped = 0;
	int rc = 3;
	uint64_t clocks[8] = {0};
	static union toe_record buf[256];
	for (;;) {
		uint64_t skipped = 0;
		unsigned max = 256;
		if (count && count - seen < max)
			max = (unsigned)(count - seen);
		int n = toe_read(cl, buf, max, &skipped);
		uint64_t now = now_ms();
		if (n > 0) {
			dropped += skipped;
			for (int i = 0; i < n; i++) {
				if (!quiet)
					print_record(o, &buf[i]);
				else if (buf[i].hdr.type == TOE_REC_GAP)
					fprintf(o, "{\"event\":\"gap\"}\n"); /* counted by the caller */
				clocks[toe_rx_clock(&buf[i].hdr)]++;
			}
			seen += (uint64_t)n;
			last = now;
			if (count && seen >= count) {
				rc = 0;
				break;
			}
			continue;
		}
		if (n == -ENOTCONN || n == -ESTALE) {
			fprintf(stderr, "GONE %s\n", n == -ENOTCONN ? "ENOTCONN" : "ESTALE");
			rc = until_gone ? 0 : 1;
			break;
		}
		if (n != -EAGAIN) {
			fprintf(stderr, "tick_client: %s\n", strerror(-n));
			rc = 1;
			break;
		}
		if (idle_ms && seen && now - last >= idle_ms) {
			rc = 0;
			break;
		}
		if ((double)(now - t0) / 1000.0 >= timeout)
			break;
		n = toe_wait(cl, 20000000ll);
		if (n == -ENOTCONN || n == -ESTALE) {
			fprintf(stderr, "GONE %s\n", n == -ENOTCONN ? "ENOTCONN" : "ESTALE");
			rc = until_gone ? 0 : 1;
			break;
		}
	}
	fflush(o);
	struct toe_stats st;
	toe_stats(cl, &st);
	fprintf(stderr, "tick_client: %" PRIu64 " records, %" PRIu64 " skipped, ring %u (%s pages)\n", seen, dropped,
		st.capacity, st.hugetlb ? "huge" : "normal");
	fprintf(stderr, "CLOCKS unknown=%" PRIu64 " nic=%" PRIu64 " kernel=%" PRIu64 " poll=%" PRIu64 " capture=%" PRIu64
		" card=%" PRIu64 "\n", clocks[TOE_CLK_UNKNOWN], clocks[TOE_CLK_NIC], clocks[TOE_CLK_KERNEL],
		clocks[TOE_CLK_POLL], clocks[TOE_CLK_CAPTURE], clocks[TOE_CLK_CARD]);
	if (rc == 0 && dropped)
		rc = 4;
	if (rc == 3)
		fprintf(stderr, "tick_client: timeout after %" PRIu64 " records\n", seen);
	toe_close(cl);
	if (o != stdout)
		fclose(o);
	return rc;
}
