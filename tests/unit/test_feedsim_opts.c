/* test_feedsim_opts.c - the command line the feed tools share (feed_net.c):
 * --listen/--connect/--udp, --cpu, --wait-ms, the checks once getopt is done
 * and opening the peer's socket; the session options (feed_sessopt.c). The complaints are the ones the tools print
 * (toe-feedsim, toe-sockrx; test_feedsim.sh runs the tools themselves).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"
#include "feed/feed_net.h"
#include "feed/feed_sessopt.h"

static const char *const BAD_ADDR = "the address must be IPv4-ADDRESS:PORT";
static const char *const TWO_PEERS = "give one of --listen, --connect, --udp";

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static void test_peer_opt(void)
{
	struct feed_peer p = {.mode = FEED_MODE_NONE};
	const char *arg = "10.1.2.3:9000";
	CHECK(feed_opt_peer(&p, FEED_MODE_UDP, arg) == NULL);
	CHECK_EQ(p.mode, FEED_MODE_UDP);
	CHECK(p.arg == arg);
	CHECK_EQ(p.sa.sin_family, AF_INET);
	CHECK_EQ(ntohs(p.sa.sin_port), 9000);
	CHECK_EQ(ntohl(p.sa.sin_addr.s_addr), 0x0a010203);
	/* a second peer option, even a valid one, is refused */
	CHECK(streq(feed_opt_peer(&p, FEED_MODE_LISTEN, "10.1.2.3:9001"), TWO_PEERS));
	CHECK(streq(feed_opt_peer(&p, FEED_MODE_UDP, "10.1.2.3:9000"), TWO_PEERS));

	struct feed_peer q = {.mode = FEED_MODE_NONE};
	CHECK(feed_opt_peer(&q, FEED_MODE_LISTEN, "127.0.0.1:65535") == NULL);
	CHECK_EQ(q.mode, FEED_MODE_LISTEN);
	CHECK_EQ(ntohs(q.sa.sin_port), 65535);
	struct feed_peer r = {.mode = FEED_MODE_NONE};
	CHECK(feed_opt_peer(&r, FEED_MODE_CONNECT, "0.0.0.0:1") == NULL);
	CHECK_EQ(r.mode, FEED_MODE_CONNECT);

	static const char *bad[] = {"10.1.2.3", "10.1.2.3:0", "10.1.2.3:65536", "host:80", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct feed_peer b = {.mode = FEED_MODE_NONE};
		const char *m = feed_opt_peer(&b, FEED_MODE_CONNECT, bad[i]);
		CHECK(streq(m, BAD_ADDR));
		if (!streq(m, BAD_ADDR))
			fprintf(stderr, "  '%s': %s\n", bad[i], m ? m : "accepted");
	}
}

static void test_cpu_wait_opts(void)
{
	int64_t cpu = -1, w = -2;
	CHECK(feed_opt_cpu("0", &cpu) == NULL);
	CHECK_EQ(cpu, 0);
	CHECK(feed_opt_cpu("1023", &cpu) == NULL); /* FEED_MAX_CPU */
	CHECK_EQ(cpu, 1023);
	CHECK(feed_opt_cpu("0x10", &cpu) == NULL); /* numbers as feed_parse_u64 reads them */
	CHECK_EQ(cpu, 16);
	cpu = 7;
	CHECK(streq(feed_opt_cpu("1024", &cpu), "--cpu needs a CPU number"));
	CHECK(streq(feed_opt_cpu("-1", &cpu), "--cpu needs a CPU number"));
	CHECK(streq(feed_opt_cpu("x", &cpu), "--cpu needs a CPU number"));
	CHECK_EQ(cpu, 7); /* a refused value leaves it alone */

	CHECK(feed_opt_wait_ms("0", &w) == NULL);
	CHECK_EQ(w, 0);
	CHECK(feed_opt_wait_ms("86400000", &w) == NULL); /* one day */
	CHECK_EQ(w, 86400000);
	w = 5;
	CHECK(streq(feed_opt_wait_ms("86400001", &w), "--wait-ms needs a number of ms"));
	CHECK(streq(feed_opt_wait_ms("-1", &w), "--wait-ms needs a number of ms"));
	CHECK(streq(feed_opt_wait_ms("", &w), "--wait-ms needs a number of ms"));
	CHECK_EQ(w, 5);
}

/* What a call prints on stderr: cap_begin() before it, cap_end() after. */
struct cap {
	FILE *tmp;
	int saved;
};

static int cap_begin(struct cap *c, char *out)
{
	out[0] = 0;
	c->tmp = tmpfile();
	c->saved = dup(2);
	if (!c->tmp || c->saved < 0) {
		CHECK(!"tmpfile/dup");
		return -1;
	}
	fflush(stderr);
	dup2(fileno(c->tmp), 2);
	return 0;
}

static void cap_end(struct cap *c, char *out, size_t outlen)
{
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	rewind(c->tmp);
	size_t n = fread(out, 1, outlen - 1, c->tmp);
	out[n] = 0;
	fclose(c->tmp);
}

/* feed_args_check's return value and what it printed on stderr. */
static int args_check(char *out, size_t outlen, int argc, char **argv, int next, const char *templates,
		      const struct feed_peer *peer)
{
	struct cap c;
	if (cap_begin(&c, out))
		return -2;
	int rc = feed_args_check("toe-x", argc, argv, next, templates, peer);
	cap_end(&c, out, outlen);
	return rc;
}

static void test_args_check(void)
{
	char *argv[] = {"toe-x", "--templates", "t.xml", "--udp", "1.2.3.4:5", "extra", "more", NULL};
	struct feed_peer none = {.mode = FEED_MODE_NONE}, udp = {.mode = FEED_MODE_UDP};
	char out[256];

	CHECK_EQ(args_check(out, sizeof out, 5, argv, 5, "t.xml", &udp), 0);
	CHECK(streq(out, ""));
	/* the first argument left over is named */
	CHECK_EQ(args_check(out, sizeof out, 7, argv, 5, "t.xml", &udp), -1);
	CHECK(streq(out, "toe-x: unexpected argument 'extra'\n"));
	/* --templates is named before a missing peer */
	CHECK_EQ(args_check(out, sizeof out, 5, argv, 5, NULL, &none), -1);
	CHECK(streq(out, "toe-x: --templates is required\n"));
	CHECK_EQ(args_check(out, sizeof out, 5, argv, 5, NULL, &udp), -1);
	CHECK(streq(out, "toe-x: --templates is required\n"));
	CHECK_EQ(args_check(out, sizeof out, 5, argv, 5, "t.xml", &none), -1);
	CHECK(streq(out, "toe-x: one of --listen, --connect, --udp is required\n"));
	/* a leftover argument is reported first */
	CHECK_EQ(args_check(out, sizeof out, 6, argv, 5, NULL, &none), -1);
	CHECK(streq(out, "toe-x: unexpected argument 'extra'\n"));
	/* no peer asked for: only --templates counts */
	CHECK_EQ(args_check(out, sizeof out, 5, argv, 5, "t.xml", NULL), 0);
	CHECK(streq(out, ""));
	CHECK_EQ(args_check(out, sizeof out, 5, argv, 5, NULL, NULL), -1);
	CHECK(streq(out, "toe-x: --templates is required\n"));
}

/* A loopback address with a port the kernel picked (bound, not listening:
 * a TCP connect there is refused). Returns the socket holding it, or -1. */
static int hold_port(int type, struct sockaddr_in *sa)
{
	socklen_t len = sizeof *sa;
	int fd = socket(AF_INET, type, 0);
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof *sa) || getsockname(fd, (struct sockaddr *)sa, &len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void test_peer_open(void)
{
	char err[256], want[128];
	struct feed_peer p = {.mode = FEED_MODE_NONE};
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	int fd, held;

	err[0] = 0;
	CHECK_EQ(feed_peer_open(&p, -1, 0, 0, err, sizeof err), -1);
	CHECK(err[0] != 0);

	/* UDP, bound: the socket has the address asked for */
	p.mode = FEED_MODE_UDP;
	p.sa.sin_family = AF_INET;
	p.sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p.sa.sin_port = 0;
	fd = feed_peer_open(&p, -1, 1, 1 << 16, err, sizeof err);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_EQ(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
		CHECK_EQ(ntohl(sa.sin_addr.s_addr), INADDR_LOOPBACK);
		CHECK(sa.sin_port != 0);
		close(fd);
	}
	/* UDP, unbound (a sender): not bound to any port yet */
	fd = feed_peer_open(&p, -1, 0, 0, err, sizeof err);
	CHECK(fd >= 0);
	if (fd >= 0) {
		len = sizeof sa;
		CHECK_EQ(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
		CHECK_EQ(sa.sin_port, 0);
		close(fd);
	}

	/* CONNECT with wait 0: one attempt, refused */
	held = hold_port(SOCK_STREAM, &p.sa);
	if (held < 0) {
		CHECK(!"cannot bind a loopback TCP port");
		return;
	}
	p.mode = FEED_MODE_CONNECT;
	CHECK_EQ(feed_peer_open(&p, 0, 0, 0, err, sizeof err), -1);
	snprintf(want, sizeof want, "connect to 127.0.0.1:%u: %s", ntohs(p.sa.sin_port), strerror(ECONNREFUSED));
	CHECK(streq(err, want));
	if (!streq(err, want))
		fprintf(stderr, "  got '%s', want '%s'\n", err, want);
	close(held);

	/* LISTEN with wait 0: nobody connects in time */
	held = hold_port(SOCK_STREAM, &p.sa);
	if (held < 0) {
		CHECK(!"cannot bind a loopback TCP port");
		return;
	}
	close(held); /* free the port again: the listener binds it */
	p.mode = FEED_MODE_LISTEN;
	CHECK_EQ(feed_peer_open(&p, 0, 0, 0, err, sizeof err), -1);
	snprintf(want, sizeof want, "127.0.0.1:%u: no connection came in time", ntohs(p.sa.sin_port));
	CHECK(streq(err, want));
	if (!streq(err, want))
		fprintf(stderr, "  got '%s', want '%s'\n", err, want);
}

/* The session options toe-feedsim and toe-sockrx share (feed_sessopt.c): each taken into the session's
 * settings and counted, bad values refused with the message the tools print, other options left alone; the
 * checks after parsing. */
static void test_sessopt(void)
{
	struct feed_sessopt o = {0};
	struct step_sess_cfg cfg;
	const char *bad = "unset";
	char long_id[40], out[256];
	memset(&cfg, 0, sizeof cfg);
	memset(long_id, 'A', sizeof long_id - 1);
	long_id[sizeof long_id - 1] = 0;

	CHECK_EQ(feed_sessopt_take(&o, 't', "x.xml", &cfg, &bad), 0);
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_SESS_NEXT, "x", &cfg, &bad), 0);
	CHECK(o.session == 0 && o.given == 0);
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_SENDER, "VENDOR1", &cfg, &bad), 1);
	CHECK(bad == NULL && streq(cfg.sender, "VENDOR1"));
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_TARGET, "SSE", &cfg, &bad), 1);
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_USERNAME, "v1", &cfg, &bad), 1);
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_PASSWORD, "secret", &cfg, &bad), 1);
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_HEARTBEAT, "3600", &cfg, &bad), 1);
	CHECK(bad == NULL);
	CHECK(streq(cfg.target, "SSE") && streq(cfg.username, "v1") && streq(cfg.password, "secret"));
	CHECK_EQ(cfg.heartbeat_s, 3600);
	CHECK(o.session == 0 && o.given == 5);
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_SESSION, NULL, &cfg, &bad), 1);
	CHECK(bad == NULL && o.session == 1 && o.given == 5);

	const char *ids[] = {"", "A=B", "A\001B", long_id};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		CHECK_EQ(feed_sessopt_take(&o, FEED_O_TARGET, ids[i], &cfg, &bad), 1);
		CHECK(streq(bad, "needs 1 to 31 characters, no SOH and no '='"));
	}
	CHECK(streq(cfg.target, "SSE"));
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_PASSWORD, "", &cfg, &bad), 1);
	CHECK(streq(bad, "--password needs 1 to 63 characters"));
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_HEARTBEAT, "3601", &cfg, &bad), 1);
	CHECK(streq(bad, "--heartbeat-s needs a number of seconds in 0..3600"));
	CHECK_EQ(feed_sessopt_take(&o, FEED_O_HEARTBEAT, "-1", &cfg, &bad), 1);
	CHECK(bad != NULL);
	CHECK_EQ(cfg.heartbeat_s, 3600);

	struct feed_peer tcp = {.mode = FEED_MODE_CONNECT}, udp = {.mode = FEED_MODE_UDP};
	struct feed_sessopt none = {0}, opts_only = {.given = 1}, sess_udp = {.session = 1};
	struct cap c;
	CHECK_EQ(feed_sessopt_check(&o, "toe-x", &tcp), 0);
	CHECK_EQ(feed_sessopt_check(&none, "toe-x", &udp), 0);
	if (cap_begin(&c, out) == 0) {
		CHECK_EQ(feed_sessopt_check(&opts_only, "toe-x", &tcp), -1);
		cap_end(&c, out, sizeof out);
		CHECK(streq(out, "toe-x: the session options need --session\n"));
	}
	if (cap_begin(&c, out) == 0) {
		CHECK_EQ(feed_sessopt_check(&sess_udp, "toe-x", &udp), -1);
		cap_end(&c, out, sizeof out);
		CHECK(streq(out, "toe-x: --session needs a TCP connection (--listen or --connect), not --udp\n"));
	}
}

int main(void)
{
	test_peer_opt();
	test_cpu_wait_opts();
	test_args_check();
	test_peer_open();
	test_sessopt();
	return test_done("feedsim_opts");
}
