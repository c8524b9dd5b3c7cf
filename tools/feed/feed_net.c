/* feed_net.c - sockets, clocks and pacing for the feed tools (host only). */
#include "feed/feed_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int feed_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int feed_parse_addr(const char *s, struct sockaddr_in *sa)
{
	char host[INET_ADDRSTRLEN];
	uint64_t port;
	const char *colon = s ? strrchr(s, ':') : NULL;
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof host)
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	if (feed_parse_u64(colon + 1, 1, 65535, &port) || colon[1] == '0')
		return -1;
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		return -1;
	return 0;
}

const char *feed_opt_peer(struct feed_peer *p, enum feed_mode mode, const char *arg)
{
	const char *bad = NULL;
	if (p->mode != FEED_MODE_NONE)
		bad = "give one of --listen, --connect, --udp";
	else if (feed_parse_addr(arg, &p->sa))
		bad = "the address must be IPv4-ADDRESS:PORT";
	p->mode = mode;
	p->arg = arg;
	return bad;
}

const char *feed_opt_cpu(const char *arg, int64_t *cpu)
{
	uint64_t v;
	if (feed_parse_u64(arg, 0, FEED_MAX_CPU, &v))
		return "--cpu needs a CPU number";
	*cpu = (int64_t)v;
	return NULL;
}

const char *feed_opt_wait_ms(const char *arg, int64_t *wait_ms)
{
	uint64_t v;
	if (feed_parse_u64(arg, 0, 86400000, &v))
		return "--wait-ms needs a number of ms";
	*wait_ms = (int64_t)v;
	return NULL;
}

int feed_args_check(const char *tool, int argc, char **argv, int next, const char *templates,
		    const struct feed_peer *peer)
{
	if (next < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", tool, argv[next]);
		return -1;
	}
	if (!templates || (peer && peer->mode == FEED_MODE_NONE)) {
		fprintf(stderr, "%s: %s is required\n", tool,
			!templates ? "--templates" : "one of --listen, --connect, --udp");
		return -1;
	}
	return 0;
}

int feed_peer_open(const struct feed_peer *p, int64_t wait_ms, int udp_bind, int udp_rcvbuf, char *err,
		   size_t errlen)
{
	switch (p->mode) {
	case FEED_MODE_LISTEN:
		return feed_tcp_accept_one(&p->sa, wait_ms < 0 ? -1 : (int)wait_ms, err, errlen);
	case FEED_MODE_CONNECT:
		return feed_tcp_connect(&p->sa, wait_ms < 0 ? 10000 : (int)wait_ms, err, errlen);
	case FEED_MODE_UDP:
		return feed_udp_open(&p->sa, udp_bind, udp_rcvbuf, err, errlen);
	default:
		snprintf(err, errlen, "no peer given (--listen, --connect or --udp)");
		return -1;
	}
}

static const char *addr_str(const struct sockaddr_in *sa, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof ip);
	snprintf(buf, len, "%s:%u", ip, ntohs(sa->sin_port));
	return buf;
}

int feed_tcp_nodelay(int fd)
{
	int one = 1;
	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) ? -1 : 0;
}

int feed_send_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int feed_tcp_accept_one(const struct sockaddr_in *sa, int timeout_ms, char *err, size_t errlen)
{
	char a[32];
	int one = 1, fd = -1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(lfd, (const struct sockaddr *)sa, sizeof *sa) || listen(lfd, 1)) {
		snprintf(err, errlen, "listen on %s: %s", addr_str(sa, a, sizeof a), strerror(errno));
		close(lfd);
		return -1;
	}
	struct pollfd p = {.fd = lfd, .events = POLLIN};
	for (;;) {
		int r = poll(&p, 1, timeout_ms < 0 ? -1 : timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "%s: %s", addr_str(sa, a, sizeof a),
				 r == 0 ? "no connection came in time" : strerror(errno));
			break;
		}
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (fd < 0)
			snprintf(err, errlen, "accept on %s: %s", addr_str(sa, a, sizeof a), strerror(errno));
		break;
	}
	close(lfd);
	return fd;
}

int feed_tcp_connect(const struct sockaddr_in *sa, int timeout_ms, char *err, size_t errlen)
{
	char a[32];
	struct timespec pause = {0, 20 * 1000 * 1000};
	uint64_t end = feed_now_ns(CLOCK_MONOTONIC) + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			snprintf(err, errlen, "socket: %s", strerror(errno));
			return -1;
		}
		if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0)
			return fd;
		int e = errno;
		close(fd);
		int retry = e == ECONNREFUSED || e == ENETUNREACH || e == EHOSTUNREACH || e == EINTR ||
			    e == ETIMEDOUT || e == EADDRNOTAVAIL;
		if (!retry || feed_now_ns(CLOCK_MONOTONIC) >= end) {
			snprintf(err, errlen, "connect to %s: %s", addr_str(sa, a, sizeof a), strerror(e));
			return -1;
		}
		nanosleep(&pause, NULL);
	}
}

int feed_udp_open(const struct sockaddr_in *sa, int bind_it, int rcvbuf, char *err, size_t errlen)
{
	char a[32];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	if (bind_it && bind(fd, (const struct sockaddr *)sa, sizeof *sa)) {
		snprintf(err, errlen, "bind %s: %s", addr_str(sa, a, sizeof a), strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int feed_pin_cpu(int cpu)
{
	cpu_set_t set;
	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set) ? -1 : 0;
}

uint64_t feed_pace_offset_ns(uint64_t records_before, uint64_t rate)
{
	if (rate == 0)
		return 0;
	/* split so that nothing overflows: r * 1e9 < rate * 1e9 fits while rate < 1.8e10 */
	uint64_t q = records_before / rate, r = records_before % rate;
	return q * 1000000000u + r * 1000000000u / rate;
}

void feed_wait_until(uint64_t deadline_ns)
{
	uint64_t now = feed_now_ns(CLOCK_MONOTONIC);
	if (now >= deadline_ns)
		return;
	if (deadline_ns - now > FEED_SPIN_NS) {
		uint64_t wake = deadline_ns - FEED_SLEEP_MARGIN_NS;
		struct timespec ts = {(time_t)(wake / 1000000000u), (long)(wake % 1000000000u)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (feed_now_ns(CLOCK_MONOTONIC) < deadline_ns)
		;
}
