/* toectl - ask a running toed for its state, its counters, its clients, or to reload.
 *
 *   toectl [-s SOCKET] status|stats|clients|reload|latency [--json]
 *
 * Talks to the daemon's control socket (toe/ctl.h: TOE_CTL_ADMIN requests;
 * the socket is -s, else $TOED_SOCKET, else /run/toed/toed.sock). The daemon
 * renders the report, as text or as one JSON document (--json), in one or
 * more TOE_CTL_ADMIN_OK parts; toectl prints them as they come.
 *
 * Exit status: 0 done, 1 no daemon or an error, 2 usage, 3 reload refused
 * (the configuration file has errors: the report names them; the running
 * configuration stays), 4 not allowed (reload needs root or toed's user).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "toe/ctl.h"

#define TIMEOUT_MS 10000 /* a reload compiles the templates: give it time */

static void usage(FILE *f)
{
	fprintf(f, "usage: toectl [-s SOCKET] status|stats|clients|reload|latency [--json]\n"
		   "  status    the daemon's state: source, data plane, watchdog, reloads, live settings\n"
		   "  stats     counters of every block: frames and drops by reason, connections, streams,\n"
		   "            decoder errors by code, publisher, clients\n"
		   "  clients   the control socket's clients and their rings (delivered, dropped, backlog)\n"
		   "  reload    reload the configuration file (as SIGHUP does) and print what changed\n"
		   "  latency   with [dataplane] trace = yes: percentiles of each record's time inside toed,\n"
		   "            from the frame's arrival stamp to decoded and to visible in the clients' rings\n"
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

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"socket", required_argument, 0, 's'},
		{"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *path = getenv(TOE_CTL_PATH_ENV);
	int json = 0, c;
	while ((c = getopt_long(argc, argv, "s:jh", lopts, NULL)) != -1) {
		switch (c) {
		case 's': path = optarg; break;
		case 'j': json = 1; break;
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
	} else {
		fprintf(stderr, "toectl: unknown command '%s'\n", cmd_name);
		usage(stderr);
		return 2;
	}
	if (!path || !*path)
		path = TOE_CTL_DEFAULT_PATH;

	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "toectl: socket path too long: %s\n", path);
		return 2;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
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
		fwrite(m.raw + sizeof m.ok, 1, m.hdr.length - sizeof m.ok, stdout);
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
	fflush(stdout);
	close(fd);
	return rc;
}
