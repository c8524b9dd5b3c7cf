/* toe-dump - an example strategy: subscribe to toed and print every tick and gap event.
 *
 * It shows the intended use of libtoeclient: connect, subscribe with a
 * filter, then loop on toe_poll() (a handler per record, zero-copy) and
 * toe_wait() (spin briefly, then sleep until the daemon wakes us). Records the
 * daemon had to drop because this reader was slow show up as a DROPPED line
 * (from the jump in the ring sequence numbers). When the daemon restarts, the
 * client resubscribes and carries on.
 *
 *   toe-dump [--socket PATH] [--stream NAME] [--types trade,order,gap,reset,session] [--channel N]...
 *            [--security ID]... [--last N | --from-msg-seq N] [--capacity N]
 *            [--count N] [--timeout SECONDS] [--no-reconnect] [--quiet]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "toe/toeclient.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct dump {
	uint64_t count; /* stop after this many records (0: never) */
	uint64_t seen;
	int quiet;
};

/* v / 10^dec as a decimal string. */
static const char *scaled(char *buf, size_t len, int64_t v, int dec)
{
	int64_t p = 1;
	for (int i = 0; i < dec; i++)
		p *= 10;
	const char *sign = v < 0 ? "-" : "";
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64, sign, a / (uint64_t)p, dec, a % (uint64_t)p);
	return buf;
}

static const char *gap_reason(uint32_t r)
{
	switch (r) {
	case TOE_GAP_TIMEOUT:
		return "timeout";
	case TOE_GAP_WINDOW:
		return "window";
	case TOE_GAP_DECODE:
		return "decode";
	case TOE_GAP_OVERFLOW:
		return "overflow";
	case TOE_GAP_ACKED:
		return "acked";
	case TOE_GAP_CLOSED:
		return "closed";
	case TOE_GAP_SEQUENCE:
		return "sequence";
	case TOE_GAP_MSG_SEQ:
		return "msg_seq";
	default:
		return "unknown";
	}
}

static const char *reset_reason(uint32_t r)
{
	switch (r) {
	case TOE_RESET_SYN:
		return "syn";
	case TOE_RESET_JOIN:
		return "join";
	case TOE_RESET_RESTART:
		return "restart";
	case TOE_RESET_ARB_SWITCH:
		return "line_down";
	default:
		return "unknown";
	}
}

/* A NUL-padded code field of TOE_FLAG_LEN bytes as a string ("-" when empty). */
static const char *code(char *buf, const char *f)
{
	memcpy(buf, f, TOE_FLAG_LEN);
	buf[TOE_FLAG_LEN] = 0;
	return buf[0] ? buf : "-";
}

/* " line=L" for a record a line of a group delivered, " flags=..." for flagged ones. */
static const char *extras(char *buf, size_t len, const struct toe_rec_hdr *h)
{
	int n = 0;
	buf[0] = 0;
	if (h->group)
		n += snprintf(buf + n, len - (size_t)n, " group=%u line=%u", h->group, h->line);
	if (h->flags & TOE_RF_RANGE)
		n += snprintf(buf + n, len - (size_t)n, " RANGE(fields=0x%x)", h->bad_fields);
	if (h->flags & TOE_RF_WARN)
		n += snprintf(buf + n, len - (size_t)n, " WARN");
	if (h->flags & TOE_RF_LATE)
		snprintf(buf + n, len - (size_t)n, " LATE");
	return buf;
}

static void print_record(void *arg, const union toe_record *r, uint64_t skipped)
{
	struct dump *d = arg;
	char a[32], b[32], c[32], f1[TOE_FLAG_LEN + 1], f2[TOE_FLAG_LEN + 1], x[96];
	d->seen++;
	if (skipped)
		printf("DROPPED %" PRIu64 " records before seq=%" PRIu64 " (this reader fell behind)\n", skipped, r->hdr.seq);
	if (d->quiet)
		return;
	const struct toe_rec_hdr *h = &r->hdr;
	switch (h->type) {
	case TOE_REC_TRADE: {
		const struct toe_trade *t = &r->trade;
		printf("TRADE  seq=%" PRIu64 " stream=%u msg=%" PRIu64 " sec=%.16s ch=%d idx=%d time=%08d px=%s qty=%s "
		       "amt=%s buy=%" PRId64 " sell=%" PRId64 " bs=%s%s\n",
		       h->seq, h->stream, h->msg_seq, t->security_id, t->trade_channel, t->trade_index, t->trade_time,
		       scaled(a, sizeof(a), t->trade_price, TOE_PRICE_DECIMALS),
		       scaled(b, sizeof(b), t->trade_qty, TOE_QTY_DECIMALS),
		       scaled(c, sizeof(c), t->trade_money, TOE_MONEY_DECIMALS), t->trade_buy_no, t->trade_sell_no,
		       code(f1, t->bs_flag), extras(x, sizeof x, h));
		break;
	}
	case TOE_REC_ORDER: {
		const struct toe_order *o = &r->order;
		printf("ORDER  seq=%" PRIu64 " stream=%u msg=%" PRIu64 " sec=%.16s ch=%d idx=%d time=%08d type=%s px=%s "
		       "qty=%s no=%" PRId64 " bs=%s%s\n",
		       h->seq, h->stream, h->msg_seq, o->security_id, o->order_channel, o->order_index, o->order_time,
		       code(f1, o->order_type), scaled(a, sizeof(a), o->order_price, TOE_PRICE_DECIMALS),
		       scaled(b, sizeof(b), o->balance, TOE_QTY_DECIMALS), o->order_no, code(f2, o->bs_flag),
		       extras(x, sizeof x, h));
		break;
	}
	case TOE_REC_GAP: {
		const struct toe_gap *g = &r->gap;
		if (g->reason == TOE_GAP_SEQUENCE || g->reason == TOE_GAP_MSG_SEQ)
			printf("GAP    seq=%" PRIu64 " stream=%u msg=%" PRIu64 " reason=%s channel=%u first=%" PRIu64
			       " last=%" PRIu64 "%s\n",
			       h->seq, h->stream, h->msg_seq, gap_reason(g->reason), g->channel, g->first, g->last,
			       extras(x, sizeof x, h));
		else
			printf("GAP    seq=%" PRIu64 " stream=%u msg=%" PRIu64 " offset=%" PRIu64 " length=%" PRIu64
			       " reason=%s detail=%s records=%" PRIu64 "%s\n",
			       h->seq, h->stream, h->msg_seq, g->offset, g->length, gap_reason(g->reason),
			       g->reason == TOE_GAP_DECODE ? toe_decode_err_name(g->detail) : "-", g->records,
			       extras(x, sizeof x, h));
		break;
	}
	case TOE_REC_RESET: {
		const struct toe_reset *z = &r->reset;
		printf("RESET  seq=%" PRIu64 " stream=%u msg=%" PRIu64 " reason=%s", h->seq, h->stream, h->msg_seq,
		       reset_reason(z->reason));
		if (z->reason == TOE_RESET_RESTART && z->channel == TOE_CHANNEL_NONE)
			printf(" msg_seq_before=%" PRIu64, z->last);
		else if (z->reason == TOE_RESET_RESTART)
			printf(" channel=%u last=%" PRIu64, z->channel, z->last);
		printf("%s\n", extras(x, sizeof x, h));
		break;
	}
	case TOE_REC_SESSION: {
		const struct toe_session *e = &r->session;
		printf("SESSION seq=%" PRIu64 " stream=%u event=%s next_in=%" PRIu64 " next_out=%" PRIu64 " arg1=%" PRIu64
		       " arg2=%" PRIu64 "%s%s text=\"%.*s\"%s\n",
		       h->seq, h->stream, toe_sess_event_name(e->event), e->next_in, e->next_out, e->arg1, e->arg2,
		       e->flags & TOE_SESS_F_TEXT_CUT ? " text_cut" : "",
		       e->flags & TOE_SESS_F_EVENTS_LOST ? " events_lost" : "", TOE_SESS_TEXT_LEN - 1, e->text,
		       extras(x, sizeof x, h));
		break;
	}
	default: /* a type newer than this program: skipped, as every client must */
		printf("RECORD seq=%" PRIu64 " type=%u stream=%u\n", h->seq, h->type, h->stream);
	}
}

static uint32_t parse_types(const char *s)
{
	uint32_t m = 0;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", s);
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

static void usage(FILE *f)
{
	fprintf(f, "usage: toe-dump [--socket PATH] [--stream NAME] [--types trade,order,gap,reset,session] [--channel N]...\n"
		   "                [--security ID]... [--last N | --from-msg-seq N] [--capacity N] [--count N] [--timeout SECONDS]\n"
		   "                [--no-reconnect] [--quiet]\n"
		   "Prints the ticks, gap and session events toed publishes. The socket defaults to $" TOE_CTL_PATH_ENV
		   " or " TOE_CTL_DEFAULT_PATH ".\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, 0, 's'},   {"types", required_argument, 0, 't'},
		{"channel", required_argument, 0, 'c'},  {"security", required_argument, 0, 'i'},
		{"last", required_argument, 0, 'l'},     {"from-msg-seq", required_argument, 0, 'm'},
		{"capacity", required_argument, 0, 'C'}, {"count", required_argument, 0, 'n'},
		{"timeout", required_argument, 0, 'T'},  {"no-reconnect", no_argument, 0, 'R'},
		{"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
		{"stream", required_argument, 0, 'S'},
		{0, 0, 0, 0},
	};
	const char *path = NULL;
	static int32_t channels[TOE_CTL_MAX_CHANNELS];
	static const char *securities[TOE_CTL_MAX_SECURITIES];
	struct toe_sub sub = {.channels = channels, .securities = securities};
	struct dump d = {0};
	double timeout = 0;
	int reconnect = 1, o;
	while ((o = getopt_long(argc, argv, "s:S:t:c:i:l:m:C:n:T:Rqh", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			path = optarg;
			break;
		case 'S':
			sub.stream = optarg; /* a feed's stream name, a group name or udp-PORT */
			break;
		case 't':
			sub.types = parse_types(optarg);
			if (sub.types == UINT32_MAX) {
				fprintf(stderr, "toe-dump: unknown record type in '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c':
			if (sub.nchannels == TOE_CTL_MAX_CHANNELS)
				return fprintf(stderr, "toe-dump: too many channels\n"), 2;
			channels[sub.nchannels++] = (int32_t)strtol(optarg, NULL, 0);
			break;
		case 'i':
			if (sub.nsecurities == TOE_CTL_MAX_SECURITIES)
				return fprintf(stderr, "toe-dump: too many securities\n"), 2;
			securities[sub.nsecurities++] = optarg;
			break;
		case 'l':
			sub.start = TOE_START_LAST;
			sub.start_arg = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			sub.start = TOE_START_MSG_SEQ;
			sub.start_arg = strtoull(optarg, NULL, 0);
			break;
		case 'C':
			sub.capacity = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			d.count = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			timeout = strtod(optarg, NULL);
			break;
		case 'R':
			reconnect = 0;
			break;
		case 'q':
			d.quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: a signal ends toe_wait() */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	struct toe_client *c;
	int e = toe_connect(&c, path, &(struct toe_opts){.name = "toe-dump"});
	if (e < 0) {
		fprintf(stderr, "toe-dump: cannot connect to toed: %s\n", strerror(-e));
		return 1;
	}
	e = toe_subscribe(c, &sub);
	if (e < 0) {
		fprintf(stderr, "toe-dump: subscribe refused: %s (%s)\n", strerror(-e), toe_last_error(c));
		toe_close(c);
		return 1;
	}
	struct toe_stats st;
	toe_stats(c, &st);
	fprintf(stderr, "toe-dump: subscribed (ring of %u records in %s pages, daemon epoch %016" PRIx64 ")\n",
		st.capacity, st.hugetlb ? "2 MB" : "4 KB", st.epoch);

	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = 0;
	while (!stop && (!d.count || d.seen < d.count)) {
		unsigned max = d.count ? (unsigned)(d.count - d.seen < 4096 ? d.count - d.seen : 4096) : 0;
		int n = toe_poll(c, print_record, &d, max);
		if (n > 0)
			continue;
		if (n == -EAGAIN)
			n = toe_wait(c, 200000000ll);
		if (n > 0 || n == -EAGAIN || n == -EINTR) {
			if (timeout > 0) {
				struct timespec t;
				clock_gettime(CLOCK_MONOTONIC, &t);
				if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > timeout)
					break;
			}
			continue;
		}
		if (n != -ESTALE && n != -ENOTCONN) {
			fprintf(stderr, "toe-dump: %s\n", strerror(-n));
			rc = 1;
			break;
		}
		uint64_t old = st.epoch;
		printf("# daemon %s\n", n == -ESTALE ? "restarted" : "gone");
		if (!reconnect) {
			rc = 1;
			break;
		}
		while (!stop && (e = toe_reconnect(c)) < 0)
			usleep(500000);
		if (e == 0) {
			toe_stats(c, &st);
			printf("# resubscribed (epoch %016" PRIx64 " -> %016" PRIx64 ")\n", old, st.epoch);
		}
	}
	toe_stats(c, &st);
	fprintf(stderr, "toe-dump: %" PRIu64 " records received, %" PRIu64 " dropped by the daemon for this reader, %" PRIu64
			" reconnects\n",
		st.received, st.dropped, st.reconnects);
	toe_close(c);
	return rc;
}
