/* toe-sockrx - the Linux socket baseline: kernel TCP (or UDP), recv() and the project's decoder.
 *
 *   toe-sockrx --templates FILE.xml (--listen IP:PORT | --connect IP:PORT | --udp IP:PORT)
 *              [--busy-poll] [--cpu N] [--out FILE.jsonl] [--sendlog FILE] [--latency-out FILE]
 *              [--records N] [--idle-ms T] [--wait-ms W] [--label NAME]
 *              [--session [--sender-comp-id ID] [--target-comp-id ID] [--username U]
 *              [--password P] [--heartbeat-s N] [--reset-on-logon]]
 *
 * What a vendor runs without toed: its own host's kernel socket to the
 * exchange, recv() in a plain process, the same STEP deframer + FAST decoder
 * (fast_stream) and tick mapper (fast_tick_map) as toed. recv() blocks, or
 * with --busy-poll is called with MSG_DONTWAIT in a loop (one busy CPU).
 *
 * Each message is stamped with CLOCK_REALTIME read right after the recv()
 * that completed it (every message completed by one recv() shares the
 * stamp; decoding comes after the stamp). With --sendlog (toe-feedsim's send
 * log, same host, same clock) the one-way latency of each message is stamp -
 * send time, matched by MsgSeqNum; the summary (min/p50/p90/p99/p99.9/max in
 * us, and a "RESULT {json}" line in ns) goes to stderr. --latency-out writes
 * one JSON line per message: {"msg_seq":N,"rx_ns":T} plus "lat_ns" when a
 * send log was given. --out writes every decoded record as toe-fastdump
 * --framing step prints it (equal to toe-feedsim --truth when nothing was
 * lost); printing costs time in the receive loop, so measure latency in a
 * run without --out.
 *
 * --session (TCP) runs the vendor's end of a STEP session on the connection,
 * the same session layer toed uses (kernels/step/step_sess.c): a Logon
 * first, Heartbeats and TestRequest answers, MsgSeqNum checks on every
 * message; session events are printed as "toe-sockrx: session: ...". A
 * refused logon, a heartbeat timeout or a session protocol error is an error
 * (exit 1); the exchange's Logout ends the feed like a FIN.
 *
 * The feed ends at the peer's FIN (TCP), after --records N records, or
 * (UDP) after --idle-ms without a datagram once data came. Exit status: 0,
 * 1 error (socket, decoding, a message missing from the send log), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fast/fast_stream.h"
#include "fast/fast_tick.h"
#include "fast/host/fast_compile.h"
#include "fast/host/fast_json.h"
#include "feed/feed_gen.h"
#include "feed/feed_lat.h"
#include "feed/feed_net.h"
#include "feed/feed_sessopt.h"
#include "step/host/step_ev_fmt.h"
#include "step/step_sess.h"

#define RXBUF (256u << 10)
#define UDP_RCVBUF (32 << 20)
#define MAX_ERR_LINES 20

static void usage(FILE *f)
{
	fprintf(f,
		"usage: toe-sockrx --templates FILE.xml (--listen IP:PORT | --connect IP:PORT | --udp IP:PORT)\n"
		"                  [--busy-poll] [--cpu N] [--out FILE.jsonl] [--sendlog FILE]\n"
		"                  [--latency-out FILE] [--records N] [--idle-ms T] [--wait-ms W] [--label NAME]\n"
		"  --templates FILE   FAST template file (XML) read at start-up\n"
		"  --listen IP:PORT   accept one TCP connection (the exchange connects)\n"
		"  --connect IP:PORT  connect to the exchange (retries for --wait-ms, default 10000)\n"
		"  --udp IP:PORT      receive STEP messages in UDP datagrams on IP:PORT\n"
		"  --busy-poll        recv(MSG_DONTWAIT) in a loop instead of a blocking recv\n"
		"  --cpu N            run on CPU N\n"
		"  --out FILE         decoded records as JSON lines ('-': standard output)\n"
		"  --sendlog FILE     toe-feedsim's send log: compute one-way latency per message\n"
		"  --latency-out FILE per message {\"msg_seq\":..,\"rx_ns\":..[,\"lat_ns\":..]}\n"
		"  --records N        stop after N records\n"
		"  --idle-ms T        UDP: stop after T ms without data once data came (default 1000)\n"
		"  --wait-ms W        --listen: wait W ms for the connection (default forever); --connect:\n"
		"                     retry W ms; --udp: wait W ms for the first datagram (default 30000)\n"
		"  --label NAME       name in the latency summary (default sockrx-recv / sockrx-busypoll)\n"
		"  --session          TCP: log on to a STEP session first and keep it (heartbeats, TestRequest)\n"
		"  --sender-comp-id ID  --session: our SenderCompID (default TOED)\n"
		"  --target-comp-id ID  --session: the exchange's CompID (default SSE)\n"
		"  --username U       --session: Username (553=, default none)\n"
		"  --password P       --session: Password (554=, default none)\n"
		"  --heartbeat-s N    --session: HeartBtInt asked for (default 30)\n"
		"  --reset-on-logon   --session: ask both sides to restart MsgSeqNum at 1 (141=Y)\n");
}

/* ---- --session: the vendor's end of the STEP session ------------------------- */

struct rx_sess {
	struct step_sess s;
	int fd;
	int over;       /* the session ended: stop reading */
	int failed;     /* ... because of an error */
	int logged_on;
	uint64_t last_tick_ms;
};

static uint64_t mono_ms(void)
{
	return feed_now_ns(CLOCK_MONOTONIC) / 1000000u;
}

/* Act on what a session call returned: send, print events, note the end. */
static void rx_sess_act(struct rx_sess *rs, uint32_t r)
{
	struct step_ev ev;
	char line[256];
	if (rs->s.out_len) {
		if (feed_send_all(rs->fd, rs->s.out, rs->s.out_len) < 0) {
			fprintf(stderr, "toe-sockrx: session: send: %s\n", strerror(errno));
			rs->over = rs->failed = 1;
		}
		step_sess_sent(&rs->s);
	}
	while (step_sess_event(&rs->s, &ev)) {
		step_ev_format(&ev, line, sizeof line);
		fprintf(stderr, "toe-sockrx: session: %s\n", line);
		if (ev.type == STEP_EV_LOGGED_ON)
			rs->logged_on = 1;
		if (ev.type == STEP_EV_LOGON_REFUSED || ev.type == STEP_EV_LOGON_TIMEOUT || ev.type == STEP_EV_HB_TIMEOUT ||
		    ev.type == STEP_EV_PROTOCOL)
			rs->failed = 1;
	}
	if (r & STEP_SESS_CLOSE)
		rs->over = 1;
}

static void rx_sess_tick(struct rx_sess *rs)
{
	uint64_t now = mono_ms();
	if (now - rs->last_tick_ms < 10)
		return;
	rs->last_tick_ms = now;
	rx_sess_act(rs, step_sess_tick(&rs->s, now));
}

enum { O_RESET = FEED_O_SESS_NEXT }; /* after the shared session options (feed_sessopt.h) */

struct rx_stamp {
	uint64_t msg_seq, rx_ns;
};

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"templates", required_argument, 0, 't'}, {"listen", required_argument, 0, 'l'},
		{"connect", required_argument, 0, 'C'},   {"udp", required_argument, 0, 'u'},
		{"busy-poll", no_argument, 0, 'B'},       {"cpu", required_argument, 0, 'P'},
		{"out", required_argument, 0, 'o'},       {"sendlog", required_argument, 0, 'L'},
		{"latency-out", required_argument, 0, 'O'}, {"records", required_argument, 0, 'n'},
		{"idle-ms", required_argument, 0, 'i'},   {"wait-ms", required_argument, 0, 'w'},
		{"label", required_argument, 0, 'N'},     {"help", no_argument, 0, 'h'},
		FEED_SESS_LOPTS, {"reset-on-logon", no_argument, 0, O_RESET},
		{0, 0, 0, 0},
	};
	const char *templates = NULL, *out_path = NULL, *sendlog_path = NULL, *lat_path = NULL;
	const char *label = NULL;
	uint64_t max_records = 0, idle_ms = 1000;
	int64_t cpu = -1, wait_ms = -2;
	int busy = 0, c;
	struct feed_peer peer = {.mode = FEED_MODE_NONE};
	struct feed_sessopt so = {0};
	struct step_sess_cfg scfg;
	memset(&scfg, 0, sizeof scfg);
	scfg.role = STEP_SESS_CLIENT;
	snprintf(scfg.sender, sizeof scfg.sender, "TOED");
	snprintf(scfg.target, sizeof scfg.target, "SSE");
	scfg.heartbeat_s = 30;

	while ((c = getopt_long(argc, argv, "t:l:C:u:BP:o:L:O:n:i:w:N:h", lopts, NULL)) != -1) {
		const char *bad = NULL;
		if (feed_sessopt_take(&so, c, optarg, &scfg, &bad))
			c = 0; /* taken */
		switch (c) {
		case 0: break;
		case 't': templates = optarg; break;
		case 'l': bad = feed_opt_peer(&peer, FEED_MODE_LISTEN, optarg); break;
		case 'C': bad = feed_opt_peer(&peer, FEED_MODE_CONNECT, optarg); break;
		case 'u': bad = feed_opt_peer(&peer, FEED_MODE_UDP, optarg); break;
		case 'B': busy = 1; break;
		case 'P': bad = feed_opt_cpu(optarg, &cpu); break;
		case 'o': out_path = optarg; break;
		case 'L': sendlog_path = optarg; break;
		case 'O': lat_path = optarg; break;
		case 'n':
			if (feed_parse_u64(optarg, 1, UINT64_MAX, &max_records))
				bad = "--records needs a positive number";
			break;
		case 'i':
			if (feed_parse_u64(optarg, 1, 3600000, &idle_ms))
				bad = "--idle-ms needs a number of ms";
			break;
		case 'w': bad = feed_opt_wait_ms(optarg, &wait_ms); break;
		case 'N': label = optarg; break;
		case O_RESET: scfg.reset_on_logon = 1; so.given++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad) {
			fprintf(stderr, "toe-sockrx: %s, not '%s'\n", bad, optarg);
			usage(stderr);
			return 2;
		}
	}
	if (feed_args_check("toe-sockrx", argc, argv, optind, templates, &peer)) {
		usage(stderr);
		return 2;
	}
	if (feed_sessopt_check(&so, "toe-sockrx", &peer)) {
		usage(stderr);
		return 2;
	}
	if (!label)
		label = busy ? "sockrx-busypoll" : "sockrx-recv";
	struct rx_sess *rs = NULL;

	int rc = 1, fd = -1, failed = 0;
	char err[512];
	FILE *out = NULL, *latf = NULL;
	struct fast_prog *prog = calloc(1, sizeof *prog);
	struct fast_names *names = calloc(1, sizeof *names);
	struct fast_stream *fs = calloc(1, sizeof *fs);
	uint8_t *buf = malloc(RXBUF);
	struct rx_stamp *st = NULL;
	struct feed_sendlog_ent *slog = NULL;
	int64_t *lat = NULL;
	size_t nst = 0, capst = 0, nslog = 0;
	if (!prog || !names || !fs || !buf) {
		fprintf(stderr, "toe-sockrx: out of memory\n");
		goto done;
	}
	if (fast_compile_file(templates, prog, names, err, sizeof err)) {
		fprintf(stderr, "toe-sockrx: %s\n", err);
		goto done;
	}
	if (names->nnotes)
		fprintf(stderr, "toe-sockrx: note: %s\n", names->note);
	if (out_path) {
		out = strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
		if (!out) {
			fprintf(stderr, "toe-sockrx: %s: %s\n", out_path, strerror(errno));
			goto done;
		}
		setvbuf(out, NULL, _IOFBF, 1 << 20);
	}
	if (lat_path && !(latf = fopen(lat_path, "w"))) {
		fprintf(stderr, "toe-sockrx: %s: %s\n", lat_path, strerror(errno));
		goto done;
	}
	if (cpu >= 0 && feed_pin_cpu((int)cpu))
		fprintf(stderr, "toe-sockrx: cannot run on CPU %" PRId64 ": %s (continuing)\n", cpu, strerror(errno));

	fd = feed_peer_open(&peer, wait_ms, 1, UDP_RCVBUF, err, sizeof err);
	if (fd < 0) {
		fprintf(stderr, "toe-sockrx: %s\n", err);
		goto done;
	}
	if (peer.mode == FEED_MODE_UDP && !busy) {
		/* a blocking recv() that returns now and then to notice the end of a UDP feed */
		struct timeval tv = {(time_t)(idle_ms / 1000), (suseconds_t)(idle_ms % 1000 * 1000)};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	}

	fast_stream_init(fs, prog, FAST_FRAMING_STEP);
	if (so.session) {
		if (!(rs = calloc(1, sizeof *rs))) {
			fprintf(stderr, "toe-sockrx: out of memory\n");
			goto done;
		}
		rs->fd = fd;
		step_sess_init(&rs->s, &scfg);
		rs->s.utc_off_ms = (int64_t)(feed_now_ns(CLOCK_REALTIME) / 1000000u) - (int64_t)mono_ms();
		fs->msg_events = 1; /* every message, heartbeats included, goes to the session */
		if (!busy) { /* a blocking recv() that returns to run the session's timers */
			struct timeval tv = {0, 100000};
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		}
		rx_sess_act(rs, step_sess_connected(&rs->s, mono_ms()));
	}
	uint64_t records = 0, bytes = 0, recvs = 0, trades = 0, orders = 0, unmapped = 0, errors = 0;
	uint64_t last_seq = UINT64_MAX, t_first = 0, t_last = 0, max_seq = 0;
	uint64_t start = feed_now_ns(CLOCK_MONOTONIC);
	uint64_t first_wait_ns = (uint64_t)(wait_ms == -2 ? 30000 : wait_ms) * 1000000u;
	int flags = busy ? MSG_DONTWAIT : 0;
	for (;;) {
		ssize_t n = recv(fd, buf, RXBUF, flags);
		uint64_t rx_ns = feed_now_ns(CLOCK_REALTIME);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (rs) {
					rx_sess_tick(rs);
					if (rs->over)
						break;
				}
				if (peer.mode != FEED_MODE_UDP)
					continue;
				/* UDP: the end is a silence */
				uint64_t now = feed_now_ns(CLOCK_MONOTONIC);
				if (bytes ? now - t_last >= idle_ms * 1000000u : now - start >= first_wait_ns)
					break;
				continue;
			}
			fprintf(stderr, "toe-sockrx: recv: %s\n", strerror(errno));
			goto done;
		}
		if (n == 0 && peer.mode != FEED_MODE_UDP)
			break; /* FIN */
		recvs++;
		bytes += (uint64_t)n;
		t_last = feed_now_ns(CLOCK_MONOTONIC);
		if (!t_first)
			t_first = t_last;
		fast_stream_feed(fs, buf, (uint32_t)n);
		int ev;
		while ((ev = fast_stream_next(fs)) != FS_NONE) {
			if (ev == FS_MESSAGE) {
				const struct step_msg *m = &fs->step.msg;
				if (rs && !rs->over)
					rx_sess_act(rs, m->raw ? step_sess_on_msg(&rs->s, m->raw, m->len, mono_ms())
							       : step_sess_on_data(&rs->s, m->seq, mono_ms()));
				continue;
			}
			if (ev == FS_ERROR) {
				if (errors++ < MAX_ERR_LINES)
					fprintf(stderr, "toe-sockrx: offset %" PRIu64 ": %s; resynchronising\n",
						fs->err_offset, fast_err_name(fs->err));
				continue;
			}
			if (fs->rec.warn) {
				if (errors++ < MAX_ERR_LINES)
					fprintf(stderr, "toe-sockrx: offset %" PRIu64 ": reportable error(s) 0x%x\n",
						fs->data_offset, fs->rec.warn);
			}
			union toe_record tick;
			int t = fast_tick_map(prog, &fs->rec, fs->msg_seq, &tick);
			if (t == TOE_REC_TRADE)
				trades++;
			else if (t == TOE_REC_ORDER)
				orders++;
			else
				unmapped++;
			records++;
			if (fs->msg_seq != last_seq) {
				if (nst == capst) {
					size_t nc = capst ? capst * 2 : 65536;
					struct rx_stamp *ns = realloc(st, nc * sizeof *st);
					if (!ns) {
						fprintf(stderr, "toe-sockrx: out of memory\n");
						goto done;
					}
					st = ns;
					capst = nc;
				}
				st[nst++] = (struct rx_stamp){fs->msg_seq, rx_ns};
				last_seq = fs->msg_seq;
				if (fs->msg_seq > max_seq)
					max_seq = fs->msg_seq;
			}
			if (out)
				feed_json_line(out, prog, names, &fs->rec, fs->msg_seq);
		}
		if (max_records && records >= max_records)
			break;
		if (rs) {
			rx_sess_tick(rs);
			if (rs->over)
				break;
		}
	}
	if (rs) {
		const struct step_sess *ss = &rs->s;
		fprintf(stderr,
			"toe-sockrx: session: %s; %" PRIu64 " messages (%" PRIu64 " session), %" PRIu64 " gaps (%" PRIu64
			" messages missing), %" PRIu64 " repeats, %" PRIu64 " restarts; %" PRIu64 " heartbeats, %" PRIu64
			" TestRequests sent\n",
			rs->logged_on ? "was logged on" : "never logged on", ss->st.in_msgs, ss->st.in_admin, ss->st.in_gaps,
			ss->st.in_gap_msgs, ss->st.in_repeats, ss->st.seq_resets, ss->st.out_heartbeats,
			ss->st.out_test_requests);
		if (rs->failed || !rs->logged_on || ss->st.in_gaps || ss->st.in_repeats)
			failed = 1;
	}
	if (peer.mode == FEED_MODE_UDP && !bytes) {
		fprintf(stderr, "toe-sockrx: udp %s: no datagram came\n", peer.arg);
		goto done;
	}
	double secs = t_last > t_first ? (double)(t_last - t_first) / 1e9 : 0.0;
	fprintf(stderr,
		"toe-sockrx: %s %s (%s): %" PRIu64 " records (%" PRIu64 " trades, %" PRIu64 " orders, %" PRIu64
		" other) in %zu messages, %" PRIu64 " bytes, %" PRIu64 " recv calls, %.3f s from first to last data; "
		"%" PRIu64 " decoding errors\n",
		peer.mode == FEED_MODE_UDP ? "udp" : "tcp", peer.arg, busy ? "busy-polled recv" : "blocking recv",
		records, trades, orders, unmapped, nst, bytes, recvs, secs, errors);
	if (errors)
		failed = 1;
	if (out && (fflush(out) || ferror(out))) {
		fprintf(stderr, "toe-sockrx: %s: write failed\n", out_path);
		goto done;
	}

	if (sendlog_path) {
		/* the sender writes its log before its FIN; a UDP sender may still be writing: retry */
		if (feed_sendlog_wait(sendlog_path, max_seq, 51, &slog, &nslog, err, sizeof err)) {
			fprintf(stderr, "toe-sockrx: %s\n", err);
			goto done;
		}
		lat = malloc((nst ? nst : 1) * sizeof *lat);
		if (!lat) {
			fprintf(stderr, "toe-sockrx: out of memory\n");
			goto done;
		}
	}
	size_t nlat = 0, missing = 0;
	for (size_t i = 0; i < nst; i++) {
		const struct feed_sendlog_ent *e = slog ? feed_sendlog_find(slog, nslog, st[i].msg_seq) : NULL;
		if (slog && !e) {
			if (missing++ < MAX_ERR_LINES)
				fprintf(stderr, "toe-sockrx: message %" PRIu64 " is not in the send log\n", st[i].msg_seq);
		}
		if (e)
			lat[nlat++] = (int64_t)(st[i].rx_ns - e->send_ns);
		if (latf) {
			fprintf(latf, "{\"msg_seq\":%" PRIu64 ",\"rx_ns\":%" PRIu64, st[i].msg_seq, st[i].rx_ns);
			if (e)
				fprintf(latf, ",\"lat_ns\":%" PRId64, (int64_t)(st[i].rx_ns - e->send_ns));
			fputs("}\n", latf);
		}
	}
	if (missing) {
		fprintf(stderr, "toe-sockrx: %zu messages are not in the send log\n", missing);
		failed = 1;
	}
	if (slog) {
		char name[128];
		snprintf(name, sizeof name, "toe-sockrx: %s one-way latency", label);
		feed_lat_report(lat, nlat, stderr, name, stderr, label);
		if (nslog > nst)
			fprintf(stderr, "toe-sockrx: %zu messages of the send log were not received\n", nslog - nst);
	}
	if (latf && (fflush(latf) || ferror(latf))) {
		fprintf(stderr, "toe-sockrx: %s: write failed\n", lat_path);
		goto done;
	}
	rc = failed;
done:
	free(rs);
	if (fd >= 0)
		close(fd);
	if (out && out != stdout && fclose(out) && rc == 0) {
		fprintf(stderr, "toe-sockrx: %s: %s\n", out_path, strerror(errno));
		rc = 1;
	}
	if (out == stdout)
		fflush(stdout);
	if (latf && fclose(latf) && rc == 0) {
		fprintf(stderr, "toe-sockrx: %s: %s\n", lat_path, strerror(errno));
		rc = 1;
	}
	free(prog);
	free(names);
	free(fs);
	free(buf);
	free(st);
	free(slog);
	free(lat);
	return rc;
}
