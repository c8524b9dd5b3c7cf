/* ctl_abuse.c - a hostile local client of toed's control socket, for the abuse tests (issue 10).
 *
 *   ctl_abuse linger SOCKET N SECS HOLD   pass N TCP sockets whose send queue is stuck (the peer never
 *                                         reads) with SO_LINGER SECS over SCM_RIGHTS, close our copies,
 *                                         keep the peers for HOLD s; prints "sent" or "refused ERRNO"
 *   ctl_abuse idle SOCKET N HOLD          open N connections that never speak; prints per connection
 *                                         "open", or what the daemon answered ("error ERRNO"), then
 *                                         after HOLD s how many the daemon has closed ("closed K")
 *   ctl_abuse rings SOCKET N CAPACITY HOLD  N subscriptions of CAPACITY records (libtoeclient); prints
 *                                         "ok" or the errno's name for each; holds them HOLD s
 *   ctl_abuse hello SOCKET HEXNAME HOLD   say HELLO with these raw name bytes (hex), hold HOLD s
 *   ctl_abuse fill SOCKET N HOLD          N connections that each say HELLO; prints how many were
 *                                         served; holds them HOLD s (or until stdin closes)
 * Output lines go to stdout, flushed at once. Exit 0 unless the arguments are wrong (2).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "stuck_sock.h"
#include "toe/ctl.h"
#include "toe/toeclient.h"

static const char *path;

static int uconnect(void)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		if (s >= 0)
			close(s);
		errno = e;
		return -1;
	}
	return s;
}

static const char *ename(int e)
{
	switch (e) {
	case EUSERS: return "EUSERS";
	case EDQUOT: return "EDQUOT";
	case ENOSPC: return "ENOSPC";
	case EPERM: return "EPERM";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENOTCONN: return "ENOTCONN";
	case EACCES: return "EACCES";
	case EAGAIN: return "EAGAIN";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EINVAL: return "EINVAL";
	default: return strerror(e);
	}
}

static int do_linger(int n, int secs, int hold)
{
	int fds[64], peers[64], lsts[64];
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		fds[i] = stuck_socket(secs, &peers[i], &lsts[i]);
	/* $ABUSE_RT_CPU: from here to the closes, run on that CPU (the daemon's) at a real-time
	 * priority, so the daemon cannot read the descriptors before our copies are gone */
	const char *cpu = getenv("ABUSE_RT_CPU");
	if (cpu && *cpu) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(atoi(cpu), &set);
		struct sched_param sp = {.sched_priority = 10};
		if (sched_setaffinity(0, sizeof(set), &set) < 0 || sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			fprintf(stderr, "ctl_abuse: real-time on cpu %s: %s\n", cpu, strerror(errno));
	}
	int s = uconnect();
	if (s < 0) {
		printf("connect %s\n", ename(errno));
		return 0;
	}
	struct toe_ctl_hello m;
	memset(&m, 0, sizeof(m));
	toe_ctl_hdr_init(&m.hdr, TOE_CTL_HELLO, sizeof(m), 1);
	union {
		char b[CMSG_SPACE(sizeof(int) * 64)];
		struct cmsghdr a;
	} cm;
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			    .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n)};
	struct cmsghdr *ch = CMSG_FIRSTHDR(&mh);
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(ch), fds, sizeof(int) * (size_t)n);
	ssize_t r = sendmsg(s, &mh, MSG_NOSIGNAL);
	int e = errno;
	/* our copies go at once: the daemon's (if it got them) are the last ones (run this at a
	 * real-time priority on the daemon's CPU and the daemon reads only after these closes) */
	for (int i = 0; i < n; i++) {
		if (r < 0) { /* refused: ours are the last copies, and we do not want to wait either */
			struct linger off = {0, 0};
			setsockopt(fds[i], SOL_SOCKET, SO_LINGER, &off, sizeof(off));
		}
		close(fds[i]);
	}
	struct sched_param sp0 = {.sched_priority = 0};
	sched_setscheduler(0, SCHED_OTHER, &sp0);
	if (r < 0)
		printf("refused %s\n", ename(e));
	else
		printf("sent\n");
	fflush(stdout);
	sleep((unsigned)hold);
	return 0;
}

static int do_idle(int n, int hold)
{
	int *s = calloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++) {
		s[i] = uconnect();
		if (s[i] < 0)
			printf("connect %s\n", ename(errno));
		else
			printf("open\n");
	}
	fflush(stdout);
	sleep((unsigned)hold);
	int closed = 0, timeouts = 0, refused = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < 0)
			continue;
		struct toe_ctl_error e;
		ssize_t k = recv(s[i], &e, sizeof(e), MSG_DONTWAIT);
		if (k == (ssize_t)sizeof(e) && e.hdr.type == TOE_CTL_ERROR) {
			timeouts += e.error == ETIMEDOUT;
			refused += e.error == EUSERS;
			k = recv(s[i], &e, 1, MSG_DONTWAIT);
		}
		closed += k == 0;
	}
	printf("closed %d timeouts %d refused %d\n", closed, timeouts, refused);
	return 0;
}

static int do_rings(int n, uint32_t cap, int hold)
{
	struct toe_client **c = calloc((size_t)n, sizeof(*c));
	for (int i = 0; i < n; i++) {
		int e = toe_connect(&c[i], path, &(struct toe_opts){.name = "ring-abuse"});
		if (e == 0)
			e = toe_subscribe(c[i], &(struct toe_sub){.capacity = cap});
		if (e == 0)
			printf("ok\n");
		else
			printf("%s %s\n", ename(-e), c[i] ? toe_last_error(c[i]) : "");
		fflush(stdout);
	}
	sleep((unsigned)hold);
	return 0;
}

static int do_hello(const char *hex, int hold)
{
	struct toe_ctl_hello m;
	memset(&m, 0, sizeof(m));
	toe_ctl_hdr_init(&m.hdr, TOE_CTL_HELLO, sizeof(m), 1);
	for (size_t i = 0; hex[2 * i] && hex[2 * i + 1] && i < sizeof(m.name); i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return 2;
		m.name[i] = (char)v;
	}
	int s = uconnect();
	if (s < 0 || send(s, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m)) {
		printf("failed %s\n", ename(errno));
		return 0;
	}
	struct toe_ctl_hello_ok r;
	printf(recv(s, &r, sizeof(r), MSG_WAITALL) == (ssize_t)sizeof(r) && r.hdr.type == TOE_CTL_HELLO_OK ? "hello\n"
														 : "no hello\n");
	fflush(stdout);
	sleep((unsigned)hold);
	return 0;
}

static int do_fill(int n, int hold)
{
	int served = 0, failed = 0;
	for (int i = 0; i < n; i++) {
		int s = uconnect();
		if (s < 0) {
			failed++;
			continue;
		}
		struct toe_ctl_hello m;
		memset(&m, 0, sizeof(m));
		toe_ctl_hdr_init(&m.hdr, TOE_CTL_HELLO, sizeof(m), 1);
		struct toe_ctl_hello_ok r;
		struct timeval tv = {.tv_sec = 0, .tv_usec = 300000};
		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (send(s, &m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m) &&
		    recv(s, &r, sizeof(r), MSG_WAITALL) == (ssize_t)sizeof(r) && r.hdr.type == TOE_CTL_HELLO_OK)
			served++;
		else
			failed++; /* kept open all the same: it waits in the backlog */
	}
	printf("served %d unserved %d\n", served, failed);
	fflush(stdout);
	struct pollfd p = {.fd = 0, .events = POLLIN};
	poll(&p, 1, hold * 1000);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	path = argv[2];
	const char *mode = argv[1];
	if (!strcmp(mode, "linger") && argc == 6)
		return do_linger(atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (!strcmp(mode, "idle") && argc == 5)
		return do_idle(atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(mode, "rings") && argc == 6)
		return do_rings(atoi(argv[3]), (uint32_t)strtoul(argv[4], NULL, 0), atoi(argv[5]));
	if (!strcmp(mode, "hello") && argc == 5)
		return do_hello(argv[3], atoi(argv[4]));
	if (!strcmp(mode, "fill") && argc == 5)
		return do_fill(atoi(argv[3]), atoi(argv[4]));
	return 2;
}
