/* toe-pcapdump - decode a capture from the mirror port through the receive pipeline.
 *
 *   toe-pcapdump --templates FILE.xml [--feed IP:PORT ...] [--flow SRC:SPORT-DST:DPORT ...]
 *                [--udp PORT[:step|:raw] ...] [--verify-checksums|--no-verify-checksums]
 *                [--window BYTES] [--conns N] [--gap-timeout MS]
 *                [--decoder auto|fast|reference] FILE.pcap
 *
 * Runs every frame of a pcap file (libpcap offline; Ethernet, Linux cooked
 * SLL/SLL2 as tcpdump -i any writes, or raw IP captures: net_link.h) through kernels/rx/rx_pipe (net_rx, the mirror TOE, the UDP
 * listen table, the STEP deframer and the FAST decoder) and prints one JSON
 * line per entry on stdout:
 *   records exactly as toe-fastdump --framing step prints them, with
 *     "stream":N before "msg_seq";
 *   {"event":"gap","stream":N,"offset":O,"length":L,"reason":"timeout|window|decode|acked|closed"[,"detail":"<fast_err>"]}
 *   {"event":"reset","stream":N,"reason":"syn|join"}
 * With --decoder fast (the CPU decoder of kernels/fast/host/, which decodes
 * straight into tick records and keeps no per-field values) records print
 * as their tick record instead:
 *   {"stream":N,"msg_seq":S,"tick":"trade|order","present":MASK,"security_id":"..",...}
 * (records of templates it hands to the reference print as above). auto and
 * reference use the reference decoder, whose output is every field.
 * The mirror TOE's timers run on the capture's timestamps (rx_poll after
 * every frame, and once at the end with +infinity so holes still open become
 * gaps). Every non-zero counter is printed by name on stderr at the end
 * (per-connection ones as they were before that last poll: slots it frees
 * lose their counters; a slot reused during the capture shows its last
 * connection).
 * TCP/UDP checksums are not verified unless --verify-checksums says so, as
 * Wireshark does by default: a capture taken on the sending host, or of a
 * veth or tc mirror, holds frames whose checksums were left to transmit
 * offload (not filled in), and verifying them would drop every segment.
 * When verification is on and segments fail it, a warning on stderr says how
 * many and what to do. (The IPv4 header checksum is always verified.)
 * Given none of --feed, --flow and --udp, it follows what a first pass over
 * the capture finds carrying STEP data messages (feed_detect.h) and names it
 * on stderr; a capture with none exits 2 saying so.
 * Exit status: 0 done (gaps and decode errors included), 1 a file could not
 * be read, 2 usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast/host/fast_compile.h"
#include "fast/host/fast_json.h"
#include "rx/rx_pipe.h"
#include "fast/host/fastx.h"
#include "net/host/net_link.h"
#include "feed/feed_detect.h"

#define PROG "toe-pcapdump"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --templates FILE.xml [--feed IP:PORT ...] [--flow SRC:SPORT-DST:DPORT ...]\n"
		"                    [--udp PORT[:step|:raw] ...] [--verify-checksums|--no-verify-checksums]\n"
		"                    [--window BYTES] [--conns N] [--gap-timeout MS] [--decoder D] FILE.pcap\n"
		"  --templates FILE   FAST template file (XML) read at start-up\n"
		"  --feed IP:PORT     follow TCP connections from this exchange endpoint (IP or port may be 0: any)\n"
		"  --flow S:SP-D:DP   follow the TCP connection exchange S:SP -> vendor D:DP\n"
		"  --udp PORT         decode UDP datagrams to PORT (:step STEP messages, default; :raw raw FAST)\n"
		"  --verify-checksums drop TCP/UDP segments whose checksum is wrong (off by default, as in\n"
		"                     Wireshark: captures of checksum-offloading hosts have unfilled checksums)\n"
		"  --no-verify-checksums  do not verify them (the default; --no-checksum is the old name)\n"
		"  --window BYTES     reassembly window per connection, a power of two (default %u)\n"
		"  --conns N          concurrent TCP connections, 1..%d (default %d)\n"
		"  --gap-timeout MS   a hole unfilled this long (capture time) is a gap (default %llu; 0: never)\n"
		"  --decoder D        reference or auto (records with every field, default) or fast (the CPU\n"
		"                     decoder: records printed as their tick records)\n"
		"With none of --feed, --flow and --udp, every TCP sender and UDP port whose packets\n"
		"carry STEP messages with FAST data (8=STEP. ... 96=) is followed, and named on stderr.\n",
		MTOE_DEFAULT_WINDOW, MTOE_MAX_CONNS, MTOE_DEFAULT_CONNS,
		(unsigned long long)(MTOE_DEFAULT_GAP_NS / 1000000ull));
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;
	if (!s[0] || s[0] == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* "IP:PORT" into host-order address and port. */
static int parse_ep(const char *s, uint32_t *addr, uint16_t *port)
{
	char buf[64];
	const char *colon = strrchr(s, ':');
	struct in_addr a;
	uint64_t p;
	if (!colon || (size_t)(colon - s) >= sizeof buf)
		return -1;
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = 0;
	if (inet_pton(AF_INET, buf, &a) != 1 || parse_u64(colon + 1, 0, 65535, &p))
		return -1;
	*addr = ntohl(a.s_addr);
	*port = (uint16_t)p;
	return 0;
}

static const char *gap_reason(uint32_t r)
{
	switch (r) {
	case TOE_GAP_TIMEOUT: return "timeout";
	case TOE_GAP_WINDOW: return "window";
	case TOE_GAP_DECODE: return "decode";
	case TOE_GAP_OVERFLOW: return "overflow";
	case TOE_GAP_ACKED: return "acked";
	case TOE_GAP_CLOSED: return "closed";
	default: return "unknown";
	}
}

static void counter(const char *prefix, const char *name, uint64_t v)
{
	if (v)
		fprintf(stderr, "  %s%s %" PRIu64 "\n", prefix, name, v);
}

/* The connection table's counters are zeroed when a slot is freed (the
 * end-of-capture poll frees them all): the tool prints a copy taken before it. */
static struct mtoe_conn_stats conn_snap[MTOE_MAX_CONNS];

static void print_counters(const struct rx_pipe *p, const struct fast_stream *fs)
{
	const char *names[NET_STATS_COUNT + RX_STATS_COUNT + RX_STREAM_STATS_COUNT];
	uint64_t values[NET_STATS_COUNT + RX_STATS_COUNT + RX_STREAM_STATS_COUNT];
	char prefix[64];
	uint32_t n, i, k;

	fprintf(stderr, PROG ": counters:\n");
	n = net_stats_table(&p->net, names, values, NET_STATS_COUNT);
	for (i = 0; i < n; i++)
		counter("net.", names[i], values[i]);
#define MG(name) counter("mtoe.", #name, p->mtoe.st.name);
	MTOE_STATS_FIELDS(MG)
#undef MG
	for (k = 0; k < p->cfg.mtoe.max_conns; k++) {
		const struct mtoe_conn_stats *c = &conn_snap[k];
		snprintf(prefix, sizeof prefix, "mtoe.conn%u.", k);
#define MC(name) counter(prefix, #name, c->name);
		MTOE_CONN_STATS_FIELDS(MC)
#undef MC
	}
	n = rx_stats_table(&p->st, names, values, RX_STATS_COUNT);
	for (i = 0; i < n; i++)
		counter("rx.", names[i], values[i]);
	for (k = 0; k < p->nstreams; k++) {
		snprintf(prefix, sizeof prefix, "stream%u.", k);
		n = rx_stream_stats_table(&p->sst[k], names, values, RX_STREAM_STATS_COUNT);
		for (i = 0; i < n; i++)
			counter(prefix, names[i], values[i]);
		counter(prefix, "messages", fs[k].messages);
		counter(prefix, "step.skipped_bytes", fs[k].step.skipped);
		for (i = 1; i < FAST_ERR_COUNT; i++) {
			char name[64];
			snprintf(name, sizeof name, "error.%s", fast_err_name((int)i));
			counter(prefix, name, fs[k].step.errors[i] + fs[k].dec.errors[i]);
		}
	}
}

/* A record the fast decoder produced: its tick record (no per-field values exist). */
static void print_tick(const struct rx_out *o)
{
	const union toe_record *t = &o->tick;
	printf("{\"stream\":%u,\"msg_seq\":%" PRIu64 ",", o->stream, o->msg_seq);
	if (o->tick_type == TOE_REC_TRADE) {
		const struct toe_trade *r = &t->trade;
		printf("\"tick\":\"trade\",\"present\":%u,\"flags\":%u,\"bad_fields\":%u,\"security_id\":\"%.*s\","
		       "\"data_status\":%d,\"trade_index\":%d,\"trade_channel\":%d,\"trade_time\":%d,"
		       "\"trade_price\":%" PRId64 ",\"trade_qty\":%" PRId64 ",\"trade_money\":%" PRId64
		       ",\"trade_buy_no\":%" PRId64 ",\"trade_sell_no\":%" PRId64 ",\"bs_flag\":\"%.*s\","
		       "\"biz_index\":%" PRId64 "}\n",
		       r->hdr.present, r->hdr.flags, r->hdr.bad_fields, TOE_SECURITY_ID_LEN, r->security_id,
		       r->data_status, r->trade_index, r->trade_channel, r->trade_time, r->trade_price, r->trade_qty,
		       r->trade_money, r->trade_buy_no, r->trade_sell_no, TOE_FLAG_LEN, r->bs_flag, r->biz_index);
	} else if (o->tick_type == TOE_REC_ORDER) {
		const struct toe_order *r = &t->order;
		printf("\"tick\":\"order\",\"present\":%u,\"flags\":%u,\"bad_fields\":%u,\"security_id\":\"%.*s\","
		       "\"data_status\":%d,\"order_index\":%d,\"order_channel\":%d,\"order_time\":%d,"
		       "\"order_type\":\"%.*s\",\"order_no\":%" PRId64 ",\"order_price\":%" PRId64
		       ",\"balance\":%" PRId64 ",\"bs_flag\":\"%.*s\",\"biz_index\":%" PRId64 "}\n",
		       r->hdr.present, r->hdr.flags, r->hdr.bad_fields, TOE_SECURITY_ID_LEN, r->security_id,
		       r->data_status, r->order_index, r->order_channel, r->order_time, TOE_FLAG_LEN, r->order_type,
		       r->order_no, r->order_price, r->balance, TOE_FLAG_LEN, r->bs_flag, r->biz_index);
	} else {
		printf("\"tick\":null,\"tick_type\":%d}\n", o->tick_type);
	}
}

static void print_entry(const struct rx_pipe *p, const struct fast_prog *prog, const struct fast_names *names,
			const struct rx_out *o)
{
	switch (o->kind) {
	case RX_OUT_RECORD: {
		char extra[64];
		if (!o->rec) {
			print_tick(o);
			break;
		}
		if (o->rec->warn)
			for (int e = 1; e < FAST_ERR_COUNT; e++)
				if (o->rec->warn & (1u << e))
					fprintf(stderr, PROG ": stream %u offset %" PRIu64 ": %s (reportable; record delivered)\n",
						o->stream, o->offset, fast_err_name(e));
		snprintf(extra, sizeof extra, "\"stream\":%u,\"msg_seq\":%" PRIu64 ",", o->stream, o->msg_seq);
		fast_json_record(stdout, prog, names, o->rec, extra);
		putchar('\n');
		break;
	}
	case RX_OUT_GAP:
		printf("{\"event\":\"gap\",\"stream\":%u,\"offset\":%" PRIu64 ",\"length\":%" PRIu64
		       ",\"reason\":\"%s\"",
		       o->stream, o->tick.gap.offset, o->tick.gap.length, gap_reason(o->tick.gap.reason));
		if (o->tick.gap.reason == TOE_GAP_DECODE)
			printf(",\"detail\":\"%s\"", fast_err_name((int)o->tick.gap.detail));
		printf("}\n");
		break;
	case RX_OUT_RESET:
		printf("{\"event\":\"reset\",\"stream\":%u,\"reason\":\"%s\"}\n", o->stream,
		       o->reason == MTOE_OPEN_SYN ? "syn" : o->reason == MTOE_OPEN_JOIN ? "join" : "udp");
		break;
	default:
		break;
	}
	(void)p;
}

/* Nothing to follow was given: follow what carries STEP data messages (feed_detect.h), said on
 * stderr. Returns 0, or the exit status: 1 the capture cannot be read, 2 nothing found. */
static int follow_detected(struct rx_cfg *cfg, const char *path)
{
	static struct feed_found f[MTOE_MAX_FLOWS + RX_MAX_UDP];
	char err[512];
	int n = feed_detect_pcap(path, f, MTOE_MAX_FLOWS + RX_MAX_UDP, err, sizeof err);
	if (n < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (f[i].udp && cfg->nudp < RX_MAX_UDP) {
			cfg->udp[cfg->nudp].port = f[i].port;
			cfg->udp[cfg->nudp].framing = FAST_FRAMING_STEP;
			cfg->nudp++;
			fprintf(stderr, PROG ": following --udp %u (%" PRIu64 " datagrams with STEP data messages)\n",
				f[i].port, f[i].packets);
		} else if (!f[i].udp && cfg->mtoe.nflows < MTOE_MAX_FLOWS) {
			struct mtoe_flow fl = {0};
			fl.ex_addr = f[i].addr;
			fl.ex_port = f[i].port;
			cfg->mtoe.flows[cfg->mtoe.nflows++] = fl;
			fprintf(stderr,
				PROG ": following --feed %u.%u.%u.%u:%u (%" PRIu64 " segments with STEP data messages)\n",
				f[i].addr >> 24, (f[i].addr >> 16) & 255, (f[i].addr >> 8) & 255, f[i].addr & 255,
				f[i].port, f[i].packets);
		}
	}
	if (n == 0) {
		fprintf(stderr, PROG ": nothing to follow: no --feed, --flow or --udp given, and no STEP message with "
				"FAST data (8=STEP. ... 96=) in %s; name the feed (raw FAST over UDP: --udp PORT:raw)\n",
			path);
		return 2;
	}
	fprintf(stderr, PROG ": (no --feed, --flow or --udp given: these carry STEP data messages; name them to "
			"choose)\n");
	return 0;
}

static void drain(struct rx_pipe *p, const struct fast_prog *prog, const struct fast_names *names)
{
	struct rx_out o;
	while (rx_next(p, &o))
		print_entry(p, prog, names, &o);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"templates", required_argument, 0, 't'}, {"feed", required_argument, 0, 'f'},
		{"flow", required_argument, 0, 'F'},      {"udp", required_argument, 0, 'u'},
		{"no-checksum", no_argument, 0, 'n'},     {"no-verify-checksums", no_argument, 0, 'n'},
		{"verify-checksums", no_argument, 0, 'V'}, {"window", required_argument, 0, 'w'},
		{"conns", required_argument, 0, 'c'},     {"gap-timeout", required_argument, 0, 'g'},
		{"decoder", required_argument, 0, 'd'},   {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	static struct rx_cfg cfg;
	int decoder = FASTX_AUTO;
	const char *templates = NULL;
	uint64_t v;
	int c;

	rx_cfg_default(&cfg);
	cfg.net.flags &= ~(NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM); /* Wireshark's default: see the top */
	while ((c = getopt_long(argc, argv, "t:f:F:u:nVw:c:g:d:h", lopts, NULL)) != -1) {
		const char *bad = NULL;
		switch (c) {
		case 't': templates = optarg; break;
		case 'f':
		case 'F': {
			struct mtoe_flow fl = {0};
			if (cfg.mtoe.nflows >= MTOE_MAX_FLOWS) {
				bad = "too many --feed/--flow options";
				break;
			}
			if (c == 'f') {
				if (parse_ep(optarg, &fl.ex_addr, &fl.ex_port) || (!fl.ex_addr && !fl.ex_port))
					bad = "--feed needs IP:PORT (not both 0)";
			} else {
				char buf[128];
				char *dash;
				snprintf(buf, sizeof buf, "%s", optarg);
				dash = strchr(buf, '-');
				if (!dash) {
					bad = "--flow needs SRC:SPORT-DST:DPORT";
					break;
				}
				*dash = 0;
				if (parse_ep(buf, &fl.ex_addr, &fl.ex_port) ||
				    parse_ep(dash + 1, &fl.peer_addr, &fl.peer_port) || (!fl.ex_addr && !fl.ex_port))
					bad = "--flow needs SRC:SPORT-DST:DPORT";
			}
			if (!bad)
				cfg.mtoe.flows[cfg.mtoe.nflows++] = fl;
			break;
		}
		case 'u': {
			char buf[32];
			char *colon;
			uint8_t framing = FAST_FRAMING_STEP;
			snprintf(buf, sizeof buf, "%s", optarg);
			colon = strchr(buf, ':');
			if (colon) {
				*colon = 0;
				if (!strcmp(colon + 1, "raw"))
					framing = FAST_FRAMING_DATAGRAM;
				else if (strcmp(colon + 1, "step"))
					bad = "--udp framing must be step or raw";
			}
			if (!bad && parse_u64(buf, 0, 65535, &v))
				bad = "--udp needs a port number";
			else if (!bad && cfg.nudp >= RX_MAX_UDP)
				bad = "too many --udp options";
			if (!bad) {
				for (uint32_t i = 0; i < cfg.nudp; i++)
					if (cfg.udp[i].port == v)
						bad = "--udp port given twice";
			}
			if (!bad) {
				cfg.udp[cfg.nudp].port = (uint16_t)v;
				cfg.udp[cfg.nudp].framing = framing;
				cfg.nudp++;
			}
			break;
		}
		case 'n': cfg.net.flags &= ~(NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM); break;
		case 'V': cfg.net.flags |= NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM; break;
		case 'w':
			if (parse_u64(optarg, MTOE_MIN_WINDOW, MTOE_MAX_WINDOW, &v) || (v & (v - 1)))
				bad = "--window needs a power of two in 64..1048576";
			else
				cfg.mtoe.window = (uint32_t)v;
			break;
		case 'c':
			if (parse_u64(optarg, 1, MTOE_MAX_CONNS, &v))
				bad = "--conns needs a number in 1..256";
			else
				cfg.mtoe.max_conns = (uint32_t)v;
			break;
		case 'g':
			if (parse_u64(optarg, 0, UINT64_MAX / 1000000ull, &v))
				bad = "--gap-timeout needs a number of milliseconds";
			else
				cfg.mtoe.gap_timeout_ns = v * 1000000ull;
			break;
		case 'd':
			decoder = fastx_choice_parse(optarg);
			if (decoder < 0) {
				fprintf(stderr, PROG ": --decoder must be auto, fast or reference, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad) {
			fprintf(stderr, PROG ": %s, not '%s'\n", bad, optarg);
			usage(stderr);
			return 2;
		}
	}
	if (!templates || optind != argc - 1) {
		fprintf(stderr, PROG ": %s\n", !templates ? "--templates is required" : "one capture file is needed");
		usage(stderr);
		return 2;
	}
	const char *path = argv[optind];

	static struct fast_prog prog;
	static struct fast_names names;
	char err[512];
	if (fast_compile_file(templates, &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (names.nnotes)
		fprintf(stderr, PROG ": note: %s\n", names.note);
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!pc) {
		fprintf(stderr, PROG ": %s: %s\n", path, perr);
		return 1;
	}
	int dlt = pcap_datalink(pc);
	if (!net_link_supported(dlt)) {
		fprintf(stderr, PROG ": %s: link type %d (%s) not supported; need Ethernet, Linux cooked (SLL/SLL2) or "
			"raw IPv4\n", path, dlt, pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "?");
		pcap_close(pc);
		return 1;
	}
	if (cfg.mtoe.nflows == 0 && cfg.nudp == 0) {
		/* (after the checks above: an unreadable capture or link type is told as when feeds are named) */
		int rc = follow_detected(&cfg, path);
		if (rc) {
			pcap_close(pc);
			return rc;
		}
	}

	uint32_t nfs = RX_NSTREAMS(&cfg);
	struct rx_pipe *p = calloc(1, sizeof *p);
	struct fast_stream *fs = calloc(nfs, sizeof *fs);
	uint64_t buf_len = MTOE_BUF_BYTES(cfg.mtoe.max_conns, cfg.mtoe.window);
	uint8_t *mbuf = malloc(buf_len);
	uint8_t *cooked = malloc(NET_MAX_FRAME);
	if (!p || !fs || !mbuf || !cooked) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	int rc = rx_init(p, &cfg, &prog, fs, nfs, mbuf, buf_len);
	if (rc != RX_OK) {
		fprintf(stderr, PROG ": bad configuration (rx_init %d)\n", rc);
		return 2;
	}
	/* records print with every field: only an explicit --decoder fast trades them for tick records */
	struct fastx_prog *xp = NULL;
	static struct fastx_dec xd;
	if (decoder == FASTX_FAST) {
		xp = fastx_prog_new(&prog);
		if (!xp) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		fastx_dec_init(&xd, xp, &fs[0].rec);
		p->fastx = &xd;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

	struct pcap_pkthdr *h;
	const u_char *data;
	int status = 0, r;
	uint64_t frames = 0;
	while ((r = pcap_next_ex(pc, &h, &data)) == 1) {
		uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec; /* ns precision */
		uint32_t len;
		const uint8_t *frame = net_link_frame(dlt, data, h->caplen, cooked, &len);
		frames++;
		rx_frame(p, frame, len, ts);
		drain(p, &prog, &names);
		rx_poll(p, ts);
		drain(p, &prog, &names);
	}
	if (r == -1) {
		fprintf(stderr, PROG ": %s: %s\n", path, pcap_geterr(pc));
		status = 1;
	}
	for (uint32_t k = 0; k < cfg.mtoe.max_conns; k++)
		conn_snap[k] = p->mtoe.conn[k].st;
	rx_poll(p, UINT64_MAX);
	drain(p, &prog, &names);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": writing the output failed\n");
		status = 1;
	}
	fprintf(stderr, PROG ": %" PRIu64 " frames, %" PRIu64 " records, %" PRIu64 " gaps\n", frames,
		p->st.records, p->st.gaps);
	uint64_t bad = p->net.tcp.drop_tcp_csum + p->net.udp.drop_udp_csum;
	uint64_t l4 = p->net.tcp.in_segments + p->net.udp.in_datagrams;
	if (bad)
		fprintf(stderr,
			PROG ": warning: %" PRIu64 " of %" PRIu64 " TCP/UDP segments failed checksum verification and "
			"were dropped%s; a capture taken on the sending host or of a veth/tc mirror has checksums left "
			"to transmit offload (not filled in): decode it with --no-verify-checksums\n",
			bad, l4, bad == l4 ? " (all of them)" : "");
	print_counters(p, fs);
	if (xp)
		fprintf(stderr,
			PROG ": decoder fast (%s): %" PRIu64 " records fast (%" PRIu64 " of them in vector registers, %" PRIu64
			     " handed to AVX2), %" PRIu64 " by the reference\n",
			fastx_isa_name(fastx_isa_get()), xd.fast, xd.vec, xd.vec_fallback, xd.fallback);
	fastx_prog_free(xp);
	pcap_close(pc);
	free(p);
	free(fs);
	free(mbuf);
	free(cooked);
	return status;
}
