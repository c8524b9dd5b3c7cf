/* notify_listen.c - stands in for systemd's notification socket in tests (systemd is not PID 1 here).
 *
 *   notify_listen SOCKET_PATH LOG_FILE
 *
 * Binds a datagram socket at SOCKET_PATH (give it to the daemon as
 * $NOTIFY_SOCKET) and appends every line of every message to LOG_FILE as
 *   <ms since start> <sender pid> <line>
 * flushed at once, so a test script can follow READY=1, WATCHDOG=1,
 * RELOADING=1, STATUS=..., STOPPING=1 as they come. Runs until SIGTERM/SIGINT;
 * removes the socket file on exit. The socket is mode 0666, as systemd's is.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_sig(int s)
{
	(void)s;
	stop = 1;
}

static long long ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: notify_listen SOCKET_PATH LOG_FILE\n");
		return 2;
	}
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(argv[1]) >= sizeof sa.sun_path) {
		fprintf(stderr, "notify_listen: path too long\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int one = 1;
	unlink(argv[1]);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) {
		fprintf(stderr, "notify_listen: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	chmod(argv[1], 0666); /* like systemd's: a daemon that dropped root can still notify */
	FILE *log = fopen(argv[2], "a");
	if (!log) {
		fprintf(stderr, "notify_listen: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	struct sigaction act = {.sa_handler = on_sig};
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	long long t0 = ms_now();
	static char buf[65536];
	while (!stop) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 200) <= 0)
			continue;
		union {
			char b[CMSG_SPACE(sizeof(struct ucred))];
			struct cmsghdr align;
		} cm;
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf - 1};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof cm.b};
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0)
			continue;
		buf[n] = 0;
		long pid = -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
				struct ucred cr;
				memcpy(&cr, CMSG_DATA(c), sizeof cr);
				pid = cr.pid;
			}
		long long t = ms_now() - t0;
		for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			fprintf(log, "%lld %ld %s\n", t, pid, l);
		fflush(log);
	}
	unlink(argv[1]);
	fclose(log);
	return 0;
}
