/* toectl - ask a running toed for its state, its counters, its clients, or to reload.
 *
 *   toectl [-s SOCKET] status|stats|clients|reload|latency|seq [--json]
 *   toectl [-s SOCKET] wait-ready [--timeout S]
 *
 * wait-ready asks for the status every 50 ms (a daemon not yet listening is
 * asked again) until toed reports itself ready: its data plane went live,
 * the moment it sends systemd READY=1 or a detaching toed's parent exits. It
 * is the way to wait for a toed started with --foreground from a script.
 *
 * Talks to the daemon's control socket (toe/ctl.h: TOE_CTL_ADMIN requests;
 * the socket is -s, else $TOED_SOCKET, else /run/toed/toed.sock). The daemon
 * renders the report, as text or as one JSON document (--json), in one or
 * more TOE_CTL_ADMIN_OK parts; toectl prints them as they come.
 *
 * Exit status: 0 done, 1 no daemon or an error, 2 usage, 3 reload refused
 * (the configuration file has errors: the report names them; the running
 * configuration stays), 4 not allowed (reload needs root or toed's user),
 * 5 wait-ready: not ready within the timeout (1: the daemon failed or stopped).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "toe/ctl.h"

#define TIMEOUT_MS 10000 /* a reload compiles the templates: give it time */
#define WAIT_READY_DEFAULT_S 30.0
#define WAIT_READY_POLL_MS 50
#define CMD_WAIT_READY 0xffffffffu /* not an admin request: toectl's own loop over status */

static void usage(FILE *f)
{
	fprintf(f, "usage: toectl [-s SOCKET] status|stats|clients|reload|latency|seq [--json]\n"
		   "       toectl [-s SOCKET] wait-ready [--timeout S]\n"
		   "  status    the daemon's state: source, data plane, watchdog, reloads, live settings\n"
		   "  stats     counters of every block: frames and drops by reason, connections, streams,\n"
		   "            decoder errors by code, publisher, clients\n"
		   "  clients   the control socket's clients and their rings (delivered, dropped, backlog)\n"
		   "  reload    reload the configuration file (as SIGHUP does) and print what changed\n"
		   "  latency   with [dataplane] trace = yes: percentiles of each record's time inside toed,\n"
		   "            from the frame's arrival stamp to decoded and to visible in the clients' rings\n"
		   "  seq       with [fast] sequence_check = yes: per arbitration group its lines and per channel\n"
		   "            the last sequence, records delivered, duplicates, gaps and numbers missing\n"
		   "  wait-ready  wait until toed is ready (its data plane is live: clients get ticks), also\n"
		   "            while it is still starting and not yet listening; for scripts that start\n"
		   "            toed --foreground. Exit 0 ready, 5 not within the timeout, 1 toed failed\n"
		   "  --timeout S  wait-ready gives up after S seconds (default 30; decimals allowed)\n"
		   "  -s PATH   control socket (default $" TOE_CTL_PATH_ENV ", else " TOE_CTL_DEFAULT_PATH ")\n"
		   "  --json    one JSON document instead of text\n");
}

static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, TIMEOUT_MS);
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n == 0) {
			errno = ECONNRESET;
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

/* One admin request: the reply's text to out. Returns the exit status (0, 1, 2, 3, 4);
 * quiet: no message when the daemon cannot be reached (wait-ready asks again). */
static int admin(const char *path, uint32_t cmd, int json, FILE *out, int quiet)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "toectl: socket path too long: %s\n", path);
		return 2;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (quiet)
			return 1;
		fprintf(stderr, "toectl: cannot reach toed at %s: %s%s\n", path, strerror(e),
			e == ENOENT || e == ECONNREFUSED ? " (is toed running? -s or $" TOE_CTL_PATH_ENV " name another socket)"
			: e == EACCES ? " (connecting needs write permission on the socket: root or its group)" : "");
		return 1;
	}
	struct toe_ctl_admin req;
	memset(&req, 0, sizeof req);
	toe_ctl_hdr_init(&req.hdr, TOE_CTL_ADMIN, sizeof req, 1);
	req.cmd = cmd;
	req.flags = json ? TOE_ADMIN_F_JSON : 0;
	/* MSG_NOSIGNAL: a daemon that refused us (too many connections) has hung up, and its
	 * reason is waiting to be read below; SIGPIPE would kill us silently instead */
	if (send(fd, &req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req && errno != EPIPE && errno != ECONNRESET) {
		fprintf(stderr, "toectl: sending the request: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	static union {
		struct toe_ctl_hdr hdr;
		struct toe_ctl_admin_ok ok;
		struct toe_ctl_error err;
		char raw[TOE_CTL_MAX_MSG];
	} m;
	int rc = 0;
	for (;;) {
		if (read_full(fd, &m.hdr, sizeof m.hdr) < 0) {
			fprintf(stderr, "toectl: reading the reply: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (m.hdr.magic != TOE_CTL_MAGIC || m.hdr.length < sizeof m.hdr || m.hdr.length > TOE_CTL_MAX_MSG) {
			fprintf(stderr, "toectl: not a toed reply\n");
			rc = 1;
			break;
		}
		if (read_full(fd, (char *)&m + sizeof m.hdr, m.hdr.length - sizeof m.hdr) < 0) {
			fprintf(stderr, "toectl: reading the reply: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (m.hdr.type == TOE_CTL_ERROR && m.hdr.length >= sizeof m.err) {
			m.err.text[sizeof m.err.text - 1] = 0;
			if (m.err.error == EOPNOTSUPP && m.err.ref_type == TOE_CTL_ADMIN)
				fprintf(stderr, "toectl: this toed does not answer admin requests (older version?): %s\n",
					m.err.text);
			else
				fprintf(stderr, "toectl: toed refused the request: %s (%s)\n", m.err.text,
					strerror(m.err.error));
			rc = 1;
			break;
		}
		if (m.hdr.type == TOE_CTL_BYE) {
			fprintf(stderr, "toectl: toed is stopping\n");
			rc = 1;
			break;
		}
		if (m.hdr.type != TOE_CTL_ADMIN_OK || m.hdr.length < sizeof m.ok)
			continue; /* nothing else is expected; skip it */
		fwrite(m.raw + sizeof m.ok, 1, m.hdr.length - sizeof m.ok, out);
		if (!m.ok.more) {
			if (m.ok.status == EINVAL)
				rc = 3;
			else if (m.ok.status == EPERM)
				rc = 4;
			else if (m.ok.status)
				rc = 1;
			break;
		}
	}
	fflush(out);
	close(fd);
	return rc;
}


/* The value of the first "key":"value" after "section": in a JSON status ("" when absent). */
static void json_field(const char *js, const char *section, const char *key, char *v, size_t vlen)
{
	char pat[64];
	v[0] = 0;
	snprintf(pat, sizeof pat, "\"%s\":", section);
	const char *p = strstr(js, pat);
	if (!p)
		return;
	snprintf(pat, sizeof pat, "\"%s\":\"", key);
	p = strstr(p, pat);
	if (!p)
		return;
	p += strlen(pat);
	size_t n = strcspn(p, "\"");
	if (n >= vlen)
		n = vlen - 1;
	memcpy(v, p, n);
	v[n] = 0;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* wait-ready: the status until the daemon says "ready" (0), fails or stops (1), or the time is up (5). */
static int wait_ready(const char *path, double timeout_s)
{
	double end = mono_s() + timeout_s;
	char daemon[32] = "", dp[32] = "";
	int reached = 0;
	for (;;) {
		char *js = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&js, &len);
		if (!m) {
			fprintf(stderr, "toectl: %s\n", strerror(errno));
			return 1;
		}
		int rc = admin(path, TOE_ADMIN_STATUS, 1, m, 1);
		fclose(m);
		if (rc == 0) {
			reached = 1;
			json_field(js, "daemon", "state", daemon, sizeof daemon);
			json_field(js, "dataplane", "state", dp, sizeof dp);
		}
		free(js);
		if (rc == 2)
			return 2;
		if (rc == 0 && !strcmp(daemon, "ready")) {
			printf("toed is ready (data plane %s)\n", dp);
			return 0;
		}
		if (rc == 0 && (!strcmp(dp, "failed") || !strcmp(daemon, "stopping"))) {
			fprintf(stderr, "toectl: toed will not become ready: daemon %s, data plane %s (see its log)\n",
				daemon, dp);
			return 1;
		}
		if (mono_s() >= end)
			break;
		struct timespec sl = {0, WAIT_READY_POLL_MS * 1000000L};
		nanosleep(&sl, NULL);
	}
	if (reached)
		fprintf(stderr, "toectl: toed not ready after %g s: daemon %s, data plane %s\n", timeout_s, daemon, dp);
	else
		fprintf(stderr, "toectl: toed not ready after %g s: nothing answers at %s\n", timeout_s, path);
	return 5;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"socket", required_argument, 0, 's'},
		{"json", no_argument, 0, 'j'},
		{"timeout", required_argument, 0, 't'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *path = getenv(TOE_CTL_PATH_ENV);
	int json = 0, c, timeout_set = 0;
	double timeout_s = WAIT_READY_DEFAULT_S;
	while ((c = getopt_long(argc, argv, "s:jt:h", lopts, NULL)) != -1) {
		switch (c) {
		case 's': path = optarg; break;
		case 'j': json = 1; break;
		case 't': {
			char *end;
			errno = 0;
			timeout_s = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(timeout_s >= 0) || timeout_s > 86400) {
				fprintf(stderr, "toectl: --timeout needs seconds in 0..86400, not '%s'\n", optarg);
				return 2;
			}
			timeout_set = 1;
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	/* --json may also come after the command */
	const char *cmd_name = NULL;
	for (int i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!cmd_name)
			cmd_name = argv[i];
		else {
			fprintf(stderr, "toectl: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
	}
	uint32_t cmd;
	if (!cmd_name) {
		usage(stderr);
		return 2;
	} else if (!strcmp(cmd_name, "status")) {
		cmd = TOE_ADMIN_STATUS;
	} else if (!strcmp(cmd_name, "stats")) {
		cmd = TOE_ADMIN_STATS;
	} else if (!strcmp(cmd_name, "clients")) {
		cmd = TOE_ADMIN_CLIENTS;
	} else if (!strcmp(cmd_name, "reload")) {
		cmd = TOE_ADMIN_RELOAD;
	} else if (!strcmp(cmd_name, "latency")) {
		cmd = TOE_ADMIN_LATENCY;
	} else if (!strcmp(cmd_name, "seq")) {
		cmd = TOE_ADMIN_SEQ;
	} else if (!strcmp(cmd_name, "wait-ready")) {
		cmd = CMD_WAIT_READY;
	} else {
		fprintf(stderr, "toectl: unknown command '%s'\n", cmd_name);
		usage(stderr);
		return 2;
	}
	if (timeout_set && cmd != CMD_WAIT_READY) {
		fprintf(stderr, "toectl: --timeout goes with wait-ready only\n");
		return 2;
	}
	if (!path || !*path)
		path = TOE_CTL_DEFAULT_PATH;
	if (cmd == CMD_WAIT_READY)
		return wait_ready(path, timeout_s);
	return admin(path, cmd, json, stdout, 0);
}
