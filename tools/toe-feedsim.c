/* toe-feedsim - play the exchange: send a deterministic SSE Level-2 STEP feed over TCP or UDP.
 *
 *   toe-feedsim --templates FILE.xml [--records N] [--seed S] [--rate R | --fast] [--burst B]
 *               [--per-msg K] [--securities N] [--channels N] [--order-pct P] [--biz-global]
 *               (--listen IP:PORT | --connect IP:PORT | --udp IP:PORT)
 *               [--truth FILE.jsonl] [--sendlog FILE] [--cpu N] [--delay-ms D] [--wait-ms W]
 *               [--ahead-mb M] [--session [--sender-comp-id ID] [--target-comp-id ID] [--username U]
 *               [--password P | --password-file F] [--heartbeat-s N] [--logon-timeout-ms T]
 *               [--hold-ms H] [--logout TEXT]]
 *
 * The feed is the one toe-fastgen writes for the same options (sse_gen.c,
 * feed_gen.c): trades and orders, BizIndex 1, 2, ... per channel as SSE
 * numbers it (--biz-global: 1, 2, 3, ... across channels), STEP messages of
 * 1..K records of one type with MsgSeqNum from 1. Over TCP each message is
 * one send() (TCP_NODELAY on), over UDP one datagram. The connection ends
 * with a FIN once everything is sent (the tool then waits up to --wait-ms for
 * the peer to close its side).
 *
 * Pacing (--rate R records/s): messages go in bursts of B (default 1); the
 * first message of a burst is due R records/s after the start of the feed
 * counted in records sent before it (absolute schedule on CLOCK_MONOTONIC,
 * so a late send is caught up, never accumulated), the others follow back to
 * back. Waits shorter than 100 us are busy-waited, longer ones sleep with
 * an absolute clock_nanosleep and spin the last 60 us. --fast sends as fast
 * as the socket takes it.
 *
 * Messages are encoded ahead into a queue (--ahead-mb, default 64 MiB, about
 * 700k records), filled before the connection starts and refilled in the
 * gaps of the schedule (--fast: whenever it runs empty), so encoding and the
 * --truth output stay out of the send path as far as the rate allows.
 *
 * --truth writes every record as toe-fastdump --framing step prints it;
 * --sendlog writes, per message, MsgSeqNum, the CLOCK_REALTIME ns read right
 * before its send(), its record count and first BizIndex (binary format in
 * tools/feed/feed_lat.h), written completely before the FIN / the end
 * of the feed, so a receiver that saw the end can read it. Nothing is added
 * to the FAST data: receivers match by MsgSeqNum.
 *
 * --session makes it a STEP session server (tools/feed/feed_sess.c over
 * kernels/step/step_sess.c), as an exchange's TCP gateway is: the peer must
 * log on first (35=A with the expected SenderCompID/TargetCompID and, when
 * given, Username 553 / Password 554); a wrong one is answered with a Logout
 * whose Text says why, and the tool exits 1. Once logged on, the feed is
 * streamed with every data message re-stamped into the session's sequence
 * (MsgSeqNum shared with the session messages, CompIDs the session's; the
 * sendlog records the numbers sent, --truth keeps the feed's own message
 * numbers), Heartbeats go out when idle, TestRequests are answered and a
 * silent peer is tested and dropped. After the feed the session is held for
 * --hold-ms (heartbeats only), then ended with a Logout when --logout is given.
 *
 * Summary on stderr. Exit status: 0 done, 1 error, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "feed/feed_gen.h"
#include "feed/feed_lat.h"
#include "feed/feed_net.h"
#include "feed/feed_sess.h"
#include "feed/feed_sessopt.h"
#include "fast/step_deframe.h"

#define AHEAD_MB_DEFAULT 64  /* encoded messages held ahead */
#define AHEAD_MB_MAX 2048
#define GEN_MARGIN_NS 20000u /* encode in a gap only when this much longer than the estimate */
#define LATE_NS 100000u      /* a send this late is counted as late */
#define UDP_UNFRAGMENTED 1472 /* largest UDP payload in one 1500-byte IPv4 frame */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: toe-feedsim --templates FILE.xml (--listen IP:PORT | --connect IP:PORT | --udp IP:PORT)\n"
		"                   [--records N] [--seed S] [--rate R | --fast] [--burst B] [--per-msg K]\n"
		"                   [--securities N] [--channels N] [--order-pct P] [--truth FILE.jsonl]\n"
		"                   [--sendlog FILE] [--cpu N] [--delay-ms D] [--wait-ms W] [--ahead-mb M]\n"
		"  --templates FILE   FAST template file (XML) to encode with\n"
		"  --listen IP:PORT   accept one TCP connection (the vendor connects) and send to it\n"
		"  --connect IP:PORT  connect to the vendor over TCP and send (retries for --wait-ms)\n"
		"  --udp IP:PORT      send one STEP message per UDP datagram to IP:PORT\n"
		"  --records N        records to send (default 100000)\n"
		"  --seed S           generator seed (default 1); same seed, same feed as toe-fastgen\n"
		"  --rate R           pace at R records/s (default 10000)\n"
		"  --fast             send as fast as possible instead\n"
		"  --burst B          paced: B messages back to back, then a pause (default 1)\n"
		"  --per-msg K        at most K records per STEP message, 1..%d (default 4)\n"
		"  --securities N     securities traded, 1..%d (default 200)\n"
		"  --channels N       channels, 1..%d (default 4)\n"
		"  --order-pct P      share of orders in percent (default 70)\n"
		"  --biz-global       BizIndex 1, 2, 3, ... across channels (default: 1, 2, ... per channel, as SSE\n"
		"                     numbers it; --biz-per-channel says so)\n"
		"  --truth FILE       every record as JSON, as toe-fastdump --framing step prints it\n"
		"  --sendlog FILE     per message: MsgSeqNum, send time, records, first BizIndex (binary)\n"
		"  --cpu N            run on CPU N\n"
		"  --delay-ms D       wait D ms between connecting and the first message (default 0)\n"
		"  --wait-ms W        --listen: wait W ms for the connection (default: forever);\n"
		"                     --connect: retry W ms (default 10000); after the FIN: wait W ms for the\n"
		"                     peer's (default 5000)\n"
		"  --ahead-mb M       encode up to M MiB of messages ahead (default %d; ~90 bytes a record):\n"
		"                     a feed that fits is encoded before the first send\n"
		"  --session          TCP: be a STEP session server; the peer must log on before the feed\n"
		"  --sender-comp-id ID  --session: our SenderCompID (49=, default SSE)\n"
		"  --target-comp-id ID  --session: the CompID the peer must log on as (default: any)\n"
		"  --username U       --session: the Username (553=) the peer must give (default: any)\n"
		"  --password P       --session: the Password (554=) the peer must give (default: any)\n"
		"  --password-file F  --session: the same, read from the first line of F\n"
		"  --heartbeat-s N    --session: HeartBtInt when the peer's Logon has none (default 30)\n"
		"  --logon-timeout-ms T  --session: wait T ms for the Logon (default 10000)\n"
		"  --hold-ms H        --session: after the feed, keep the session (heartbeats) H ms (default 0)\n"
		"  --logout TEXT      --session: end with a Logout carrying TEXT (default: the FIN only)\n",
		FEED_MAX_PER_MSG, SSE_GEN_MAX_SEC, SSE_GEN_MAX_CHAN, AHEAD_MB_DEFAULT);
}

/* ---- the queue of encoded messages ----------------------------------------- */

struct qmsg {
	uint32_t off, len, nrecs;
	uint64_t seq, first_biz;
};

struct queue {
	uint8_t *buf;
	uint32_t bytes;       /* room in buf */
	struct qmsg *d;       /* descriptors: nd, a power of two */
	uint32_t nd;
	uint32_t head, count; /* oldest descriptor, descriptors held */
	uint32_t wpos;        /* where the next message's bytes go */
};

/* Room for len bytes: the offset to write at, or -1 when full. */
static int64_t q_room(const struct queue *q, uint32_t len)
{
	if (q->count == q->nd)
		return -1;
	if (q->count == 0)
		return len <= q->bytes ? 0 : -1;
	uint32_t roff = q->d[q->head].off;
	if (q->wpos > roff) { /* free: [wpos, bytes) and [0, roff) */
		if (q->bytes - q->wpos >= len)
			return q->wpos;
		return roff > len ? 0 : -1;
	}
	if (roff - q->wpos > len) /* free: [wpos, roff) */
		return q->wpos;
	return -1;
}

struct sim {
	struct feed_src *src;
	struct queue *q;
	FILE *truth;
	uint64_t records, generated; /* records wanted, records encoded */
	uint64_t gen_est;            /* estimated ns to encode one message */
};

/* Encode one message into the queue. Returns 1 done, 0 the queue is full,
 * -1 error (reported). */
static int produce(struct sim *s)
{
	struct feed_src *src = s->src;
	if (s->generated >= s->records)
		return 0;
	/* room for the largest message accepted before one is drawn: the
	 * generator cannot put a message back */
	if (q_room(s->q, STEP_MAX_BODY) < 0)
		return 0;
	uint64_t left = s->records - s->generated;
	int len = feed_src_next(src, left > FEED_MAX_PER_MSG ? FEED_MAX_PER_MSG : (uint32_t)left);
	if (len < 0) {
		fprintf(stderr, "toe-feedsim: message %" PRIu64 " cannot be encoded with these templates\n",
			src->seq);
		return -1;
	}
	if ((uint32_t)len > STEP_MAX_BODY) {
		fprintf(stderr,
			"toe-feedsim: message %" PRIu64 " is %d bytes, more than the STEP body limit (%d); "
			"lower --per-msg\n",
			src->seq, len, STEP_MAX_BODY);
		return -1;
	}
	int64_t off = q_room(s->q, (uint32_t)len);
	if (off < 0) { /* cannot happen: room for STEP_MAX_BODY was checked */
		fprintf(stderr, "toe-feedsim: internal error: queue full\n");
		return -1;
	}
	memcpy(s->q->buf + off, src->msg, (size_t)len);
	struct qmsg *m = &s->q->d[(s->q->head + s->q->count) & (s->q->nd - 1)];
	m->off = (uint32_t)off;
	m->len = (uint32_t)len;
	m->nrecs = src->nrecs;
	m->seq = src->seq;
	m->first_biz = (uint64_t)(src->ticks[0].hdr.type == TOE_REC_TRADE ? src->ticks[0].trade.biz_index
									     : src->ticks[0].order.biz_index);
	s->q->count++;
	s->q->wpos = (uint32_t)off + (uint32_t)len;
	s->generated += src->nrecs;
	if (s->truth)
		feed_src_truth(src, s->truth);
	return 1;
}

/* Encode one message and update the cost estimate (max, slowly decaying). */
static int produce_timed(struct sim *s)
{
	uint64_t t0 = feed_now_ns(CLOCK_MONOTONIC);
	int r = produce(s);
	uint64_t dt = feed_now_ns(CLOCK_MONOTONIC) - t0;
	s->gen_est = dt > s->gen_est ? dt : s->gen_est - s->gen_est / 64;
	return r;
}

/* TCP: the whole message, however the socket splits it. UDP (to != NULL):
 * one datagram; the socket is not connected, so an ICMP "port unreachable"
 * from a host nobody listens on (a mirror-only test) never fails a send. */
static int send_all(int fd, const struct sockaddr_in *to, const uint8_t *p, size_t n)
{
	while (to) {
		ssize_t w = sendto(fd, p, n, 0, (const struct sockaddr *)to, sizeof *to);
		if (w < 0 && errno == EINTR)
			continue;
		return w == (ssize_t)n ? 0 : -1;
	}
	return feed_send_all(fd, p, n);
}

/* ---- --session ------------------------------------------------------------ */

static uint64_t now_ms(void)
{
	return feed_now_ns(CLOCK_MONOTONIC) / 1000000u;
}

/* Service the session until it is up (0) or over (-1), polling the socket. */
static int sess_until_up(struct feed_sess *fs, int fd)
{
	for (;;) {
		int st = feed_sess_service(fs, now_ms());
		if (st != FEED_SESS_WAIT)
			return st == FEED_SESS_UP ? 0 : -1;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, 10);
	}
}

/* Service the session until deadline_ns (CLOCK_MONOTONIC), sleeping in the
 * socket's poll; the last 2 ms are left to feed_wait_until's precise wait.
 * Returns -1 when the session ended. */
static int sess_wait(struct feed_sess *fs, int fd, uint64_t deadline_ns)
{
	for (;;) {
		if (feed_sess_service(fs, now_ms()) == FEED_SESS_CLOSED)
			return -1;
		uint64_t now = feed_now_ns(CLOCK_MONOTONIC);
		if (now + 2000000u >= deadline_ns)
			break;
		uint64_t left_ms = (deadline_ns - now - 2000000u) / 1000000u;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, left_ms > 10 ? 10 : (int)left_ms);
	}
	feed_wait_until(deadline_ns);
	return 0;
}

static int read_password_file(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "toe-feedsim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char line[256];
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\r\n")] = 0;
	if (!line[0] || strlen(line) >= len) {
		fprintf(stderr, "toe-feedsim: %s: the first line must hold a password of 1 to %zu characters\n", path,
			len - 1);
		return -1;
	}
	memcpy(out, line, strlen(line) + 1); /* fits: checked above */
	return 0;
}

/* its own session options, after the shared ones (feed_sessopt.h) */
enum { O_PASSWORD_FILE = FEED_O_SESS_NEXT, O_LOGON_TIMEOUT, O_HOLD, O_LOGOUT };

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		/* --session (long options only) */
		FEED_SESS_LOPTS, {"password-file", required_argument, 0, O_PASSWORD_FILE},
		{"logon-timeout-ms", required_argument, 0, O_LOGON_TIMEOUT},
		{"hold-ms", required_argument, 0, O_HOLD}, {"logout", required_argument, 0, O_LOGOUT},
		{"templates", required_argument, 0, 't'}, {"records", required_argument, 0, 'n'},
		{"seed", required_argument, 0, 's'},      {"rate", required_argument, 0, 'r'},
		{"fast", no_argument, 0, 'F'},            {"burst", required_argument, 0, 'b'},
		{"per-msg", required_argument, 0, 'k'},   {"securities", required_argument, 0, 'S'},
		{"channels", required_argument, 0, 'c'},  {"order-pct", required_argument, 0, 'p'},
		{"listen", required_argument, 0, 'l'},    {"connect", required_argument, 0, 'C'},
		{"udp", required_argument, 0, 'u'},       {"truth", required_argument, 0, 'T'},
		{"sendlog", required_argument, 0, 'L'},   {"cpu", required_argument, 0, 'P'},
		{"delay-ms", required_argument, 0, 'd'},  {"wait-ms", required_argument, 0, 'w'},
		{"ahead-mb", required_argument, 0, 'A'},  {"help", no_argument, 0, 'h'},
		{"biz-per-channel", no_argument, 0, 'B'},
		{"biz-global", no_argument, 0, 'G'},
		{0, 0, 0, 0},
	};
	const char *templates = NULL, *truth_path = NULL, *sendlog_path = NULL;
	uint64_t records = 100000, per_msg = 4, rate = 10000, burst = 1, v, delay_ms = 0;
	uint64_t ahead_mb = AHEAD_MB_DEFAULT;
	int64_t cpu = -1, wait_ms = -2; /* -2: the mode's default */
	int fast = 0, rate_given = 0, c;
	struct feed_peer peer = {.mode = FEED_MODE_NONE};
	struct sse_gen_cfg cfg;
	sse_gen_default(&cfg);
	struct feed_sessopt so = {0};
	const char *password_file = NULL, *logout_text = NULL;
	uint64_t hold_ms = 0;
	struct step_sess_cfg scfg;
	memset(&scfg, 0, sizeof scfg);
	snprintf(scfg.sender, sizeof scfg.sender, "SSE");
	scfg.heartbeat_s = 30;
	scfg.logon_timeout_ms = 10000;

	while ((c = getopt_long(argc, argv, "t:n:s:r:Fb:k:S:c:p:l:C:u:T:L:P:d:w:A:BGh", lopts, NULL)) != -1) {
		const char *bad = NULL;
		if (feed_gen_opt(c, optarg, &cfg, &per_msg, &bad) || feed_sessopt_take(&so, c, optarg, &scfg, &bad))
			c = 0; /* taken */
		switch (c) {
		case 0: break;
		case 't': templates = optarg; break;
		case 'n':
			if (feed_parse_u64(optarg, 1, UINT64_MAX / 2, &records))
				bad = "--records needs a positive number";
			break;
		case 'r':
			if (feed_parse_u64(optarg, 1, 1000000000, &rate))
				bad = "--rate needs a number of records/s in 1..1000000000";
			rate_given = 1;
			break;
		case 'F': fast = 1; break;
		case 'b':
			if (feed_parse_u64(optarg, 1, 1000000, &burst))
				bad = "--burst needs a number in 1..1000000";
			break;
		case 'B': cfg.biz_per_channel = 1; break;
		case 'G': cfg.biz_per_channel = 0; break;
		case 'l': bad = feed_opt_peer(&peer, FEED_MODE_LISTEN, optarg); break;
		case 'C': bad = feed_opt_peer(&peer, FEED_MODE_CONNECT, optarg); break;
		case 'u': bad = feed_opt_peer(&peer, FEED_MODE_UDP, optarg); break;
		case 'T': truth_path = optarg; break;
		case 'L': sendlog_path = optarg; break;
		case 'P': bad = feed_opt_cpu(optarg, &cpu); break;
		case 'd':
			if (feed_parse_u64(optarg, 0, 3600000, &delay_ms))
				bad = "--delay-ms needs a number of ms";
			break;
		case 'w': bad = feed_opt_wait_ms(optarg, &wait_ms); break;
		case 'A':
			if (feed_parse_u64(optarg, 1, AHEAD_MB_MAX, &ahead_mb))
				bad = "--ahead-mb needs a number in 1..2048";
			break;
		case O_PASSWORD_FILE: password_file = optarg; so.given++; break;
		case O_LOGON_TIMEOUT:
			if (feed_parse_u64(optarg, 1, 3600000, &v))
				bad = "--logon-timeout-ms needs a number of ms in 1..3600000";
			scfg.logon_timeout_ms = (uint32_t)v;
			so.given++;
			break;
		case O_HOLD:
			if (feed_parse_u64(optarg, 0, 86400000, &hold_ms))
				bad = "--hold-ms needs a number of ms";
			so.given++;
			break;
		case O_LOGOUT: logout_text = optarg; so.given++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad) {
			fprintf(stderr, "toe-feedsim: %s, not '%s'\n", bad, optarg);
			usage(stderr);
			return 2;
		}
	}
	if (feed_args_check("toe-feedsim", argc, argv, optind, templates, &peer)) {
		usage(stderr);
		return 2;
	}
	if (feed_sessopt_check(&so, "toe-feedsim", &peer)) {
		usage(stderr);
		return 2;
	}
	if (password_file && scfg.password[0]) {
		fprintf(stderr, "toe-feedsim: --password and --password-file exclude each other\n");
		usage(stderr);
		return 2;
	}
	if (password_file && read_password_file(password_file, scfg.password, sizeof scfg.password))
		return 2;
	if (fast && rate_given) {
		fprintf(stderr, "toe-feedsim: --rate and --fast exclude each other\n");
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);

	int rc = 1, fd = -1;
	char err[512];
	struct feed_sess *fsess = NULL;
	uint64_t last_service_ns = 0;
	FILE *sendlog = NULL;
	struct feed_sendlog_ent *log = NULL;
	size_t nlog = 0, caplog = 0;
	struct sim s = {.records = records};
	s.q = calloc(1, sizeof *s.q);
	if (s.q) {
		s.q->bytes = (uint32_t)(ahead_mb << 20);
		for (s.q->nd = 1024; s.q->nd < s.q->bytes / 128; s.q->nd *= 2)
			;
		s.q->buf = malloc(s.q->bytes);
		s.q->d = malloc(s.q->nd * sizeof *s.q->d);
	}
	if (!s.q || !s.q->buf || !s.q->d) {
		fprintf(stderr, "toe-feedsim: out of memory\n");
		goto done;
	}
	s.src = feed_src_new(templates, &cfg, (uint32_t)per_msg, err, sizeof err);
	if (!s.src) {
		fprintf(stderr, "toe-feedsim: %s\n", err);
		goto done;
	}
	if (truth_path) {
		if (!(s.truth = fopen(truth_path, "w"))) {
			fprintf(stderr, "toe-feedsim: %s: %s\n", truth_path, strerror(errno));
			goto done;
		}
		setvbuf(s.truth, NULL, _IOFBF, 1 << 16);
	}
	if (sendlog_path && !(sendlog = fopen(sendlog_path, "wb"))) {
		fprintf(stderr, "toe-feedsim: %s: %s\n", sendlog_path, strerror(errno));
		goto done;
	}
	if (cpu >= 0 && feed_pin_cpu((int)cpu))
		fprintf(stderr, "toe-feedsim: cannot run on CPU %" PRId64 ": %s (continuing)\n", cpu, strerror(errno));

	/* encode ahead before anyone waits on us */
	int r;
	while ((r = produce_timed(&s)) == 1)
		;
	if (r < 0)
		goto done;

	fd = feed_peer_open(&peer, wait_ms, 0, 0, err, sizeof err);
	if (fd < 0) {
		fprintf(stderr, "toe-feedsim: %s\n", err);
		goto done;
	}
	if (peer.mode != FEED_MODE_UDP && feed_tcp_nodelay(fd))
		fprintf(stderr, "toe-feedsim: TCP_NODELAY: %s (continuing)\n", strerror(errno));
	if (so.session) {
		if (!(fsess = feed_sess_new(fd, &scfg, stderr, err, sizeof err))) {
			fprintf(stderr, "toe-feedsim: %s\n", err);
			goto done;
		}
		if (sess_until_up(fsess, fd)) {
			fprintf(stderr, "toe-feedsim: no session: %s\n", feed_sess_why(fsess));
			goto done;
		}
	}

	uint64_t t0 = feed_now_ns(CLOCK_MONOTONIC) + delay_ms * 1000000u;
	uint64_t sent_recs = 0, sent_msgs = 0, sent_bytes = 0, late = 0, late_max = 0, in_burst = 0;
	uint64_t fragmented = 0;
	if (fsess ? sess_wait(fsess, fd, t0) : (feed_wait_until(t0), 0))
		goto sess_over;
	t0 = feed_now_ns(CLOCK_MONOTONIC);
	for (;;) {
		if (s.q->count == 0) {
			/* --fast, or encoding fell behind the schedule: refill (fast) or one message */
			if (s.generated >= s.records)
				break;
			while ((r = produce_timed(&s)) == 1 && fast)
				;
			if (r < 0)
				goto done;
			continue;
		}
		struct qmsg m = s.q->d[s.q->head];
		if (!fast && in_burst == 0) {
			uint64_t due = t0 + feed_pace_offset_ns(sent_recs, rate);
			/* use the gap to encode ahead */
			while (s.generated < s.records &&
			       feed_now_ns(CLOCK_MONOTONIC) + s.gen_est + GEN_MARGIN_NS < due) {
				if ((r = produce_timed(&s)) < 0)
					goto done;
				if (r == 0)
					break;
			}
			if (fsess ? sess_wait(fsess, fd, due) : (feed_wait_until(due), 0))
				goto sess_over;
			uint64_t now = feed_now_ns(CLOCK_MONOTONIC);
			if (now - due > LATE_NS)
				late++;
			if (now - due > late_max)
				late_max = now - due;
		}
		uint64_t send_ns = feed_now_ns(CLOCK_REALTIME);
		if (fsess) {
			/* read the peer and run the timers at most every ms: cheap at any rate */
			uint64_t mono = feed_now_ns(CLOCK_MONOTONIC);
			if (mono - last_service_ns >= 1000000u) {
				last_service_ns = mono;
				if (feed_sess_service(fsess, mono / 1000000u) == FEED_SESS_CLOSED)
					goto sess_over;
			}
			m.seq = feed_sess_send_data(fsess, s.q->buf + m.off, m.len, mono / 1000000u);
			if (!m.seq)
				goto sess_over;
		} else if (send_all(fd, peer.mode == FEED_MODE_UDP ? &peer.sa : NULL, s.q->buf + m.off, m.len)) {
			fprintf(stderr, "toe-feedsim: send (message %" PRIu64 "): %s\n", m.seq, strerror(errno));
			goto done;
		}
		if (sendlog) {
			if (nlog == caplog) {
				size_t nc = caplog ? caplog * 2 : 65536;
				struct feed_sendlog_ent *nl = realloc(log, nc * sizeof *log);
				if (!nl) {
					fprintf(stderr, "toe-feedsim: out of memory\n");
					goto done;
				}
				log = nl;
				caplog = nc;
			}
			log[nlog++] = (struct feed_sendlog_ent){m.seq, send_ns, m.first_biz, m.nrecs, m.len};
		}
		s.q->head = (s.q->head + 1) & (s.q->nd - 1);
		s.q->count--;
		if (peer.mode == FEED_MODE_UDP && m.len > UDP_UNFRAGMENTED)
			fragmented++;
		sent_recs += m.nrecs;
		sent_msgs++;
		sent_bytes += m.len;
		in_burst = in_burst + 1 == burst ? 0 : in_burst + 1;
	}
	uint64_t t_end = feed_now_ns(CLOCK_MONOTONIC);

	/* the ground truth is complete before the receiver can see the end */
	if (s.truth && (fflush(s.truth) || ferror(s.truth))) {
		fprintf(stderr, "toe-feedsim: %s: write failed\n", truth_path);
		goto done;
	}
	if (sendlog && (feed_sendlog_write(sendlog, log, nlog) || fflush(sendlog) || ferror(sendlog))) {
		fprintf(stderr, "toe-feedsim: %s: write failed\n", sendlog_path);
		goto done;
	}
	if (fsess) {
		if (hold_ms && sess_wait(fsess, fd, feed_now_ns(CLOCK_MONOTONIC) + hold_ms * 1000000u))
			goto sess_over;
		if (logout_text) {
			feed_sess_logout(fsess, logout_text, now_ms());
			/* the peer's answer, or step_sess's own give-up after STEP_SESS_LOGOUT_WAIT_MS */
			uint64_t until = feed_now_ns(CLOCK_MONOTONIC) + 3000000000u;
			while (feed_now_ns(CLOCK_MONOTONIC) < until &&
			       feed_sess_service(fsess, now_ms()) != FEED_SESS_CLOSED) {
				struct pollfd p = {.fd = fd, .events = POLLIN};
				poll(&p, 1, 10);
			}
		}
	}
	if (peer.mode != FEED_MODE_UDP) {
		/* FIN, then let the peer finish reading and close its side */
		shutdown(fd, SHUT_WR);
		int wms = wait_ms == -2 ? 5000 : (int)wait_ms;
		uint64_t until = feed_now_ns(CLOCK_MONOTONIC) + (uint64_t)wms * 1000000u;
		for (;;) {
			uint64_t now = feed_now_ns(CLOCK_MONOTONIC);
			if (now >= until)
				break;
			struct pollfd p = {.fd = fd, .events = POLLIN};
			int pr = poll(&p, 1, (int)((until - now) / 1000000u) + 1);
			if (pr <= 0)
				break;
			char junk[4096];
			ssize_t n = recv(fd, junk, sizeof junk, 0);
			if (n <= 0)
				break;
		}
	}

	double secs = (double)(t_end - t0) / 1e9;
	fprintf(stderr,
		"toe-feedsim: %s %s: %" PRIu64 " records in %" PRIu64 " messages, %" PRIu64 " bytes in %.3f s: "
		"%.0f records/s, %.0f messages/s, %.2f MB/s\n",
		peer.mode == FEED_MODE_UDP ? "udp" : "tcp", peer.arg, sent_recs, sent_msgs, sent_bytes, secs,
		secs > 0 ? sent_recs / secs : 0.0, secs > 0 ? sent_msgs / secs : 0.0,
		secs > 0 ? sent_bytes / secs / 1e6 : 0.0);
	if (fast)
		fprintf(stderr, "toe-feedsim: as fast as possible\n");
	else
		fprintf(stderr,
			"toe-feedsim: paced at %" PRIu64 " records/s, bursts of %" PRIu64 " messages: %" PRIu64
			" bursts more than %u us late (max %.1f us)\n",
			rate, burst, late, LATE_NS / 1000, late_max / 1e3);
	if (fragmented)
		fprintf(stderr,
			"toe-feedsim: warning: %" PRIu64 " datagrams were larger than %d bytes and went IP-fragmented "
			"at MTU 1500 (toed drops IP fragments); lower --per-msg\n",
			fragmented, UDP_UNFRAGMENTED);
	if (fsess) {
		const struct step_sess *ss = feed_sess_state(fsess);
		fprintf(stderr,
			"toe-feedsim: session: %" PRIu64 " heartbeats and %" PRIu64 " TestRequests sent, %" PRIu64
			" messages received (%" PRIu64 " gaps, %" PRIu64 " repeats)\n",
			ss->st.out_heartbeats, ss->st.out_test_requests, ss->st.in_msgs, ss->st.in_gaps,
			ss->st.in_repeats);
	}
	rc = 0;
	goto done;
sess_over:
	fprintf(stderr, "toe-feedsim: the session ended before the feed did: %s\n",
		fsess ? feed_sess_why(fsess) : "?");
done:
	feed_sess_free(fsess);
	if (fd >= 0)
		close(fd);
	if (s.truth && fclose(s.truth) && rc == 0) {
		fprintf(stderr, "toe-feedsim: %s: %s\n", truth_path, strerror(errno));
		rc = 1;
	}
	if (sendlog && fclose(sendlog) && rc == 0) {
		fprintf(stderr, "toe-feedsim: %s: %s\n", sendlog_path, strerror(errno));
		rc = 1;
	}
	free(log);
	if (s.q) {
		free(s.q->buf);
		free(s.q->d);
	}
	free(s.q);
	feed_src_free(s.src);
	return rc;
}
