/* ctl_instance.c - the single-instance lock and the liveness hello (see ctl_instance.h). */
#include "ctl/ctl_instance.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "toe/ctl.h"

static pid_t read_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	long v = strtol(buf, NULL, 10);
	return v > 0 ? (pid_t)v : 0;
}

int ctl_instance_lock(const char *sock_path, pid_t *other)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
	if ((size_t)snprintf(path, sizeof(path), "%s.lock", sock_path) >= sizeof(path))
		return -ENAMETOOLONG;
	/* the socket's folder (ctl_server makes it too; the lock comes first) */
	char dir[sizeof(path)];
	snprintf(dir, sizeof(dir), "%s", sock_path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		if (other)
			*other = read_pid(fd);
		close(fd);
		return e == EWOULDBLOCK ? -EEXIST : -e;
	}
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		/* the lock holds without the pid in it: only the message loses the number */
	}
	return fd;
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for ev on fd until deadline (ms). 1 ready, 0 timeout or error. */
static int wait_until(int fd, short ev, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - mono_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = {.fd = fd, .events = ev};
		int r = poll(&p, 1, (int)left);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return 0;
	}
}

int ctl_instance_alive(const char *sock_path, int timeout_ms, pid_t *pid)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int64_t deadline = mono_ms() + timeout_ms;
	if (pid)
		*pid = 0;
	if (strlen(sock_path) >= sizeof(sa.sun_path))
		return 0;
	memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
	int fd = -1;
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return 0;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		int e = errno;
		close(fd);
		/* a full backlog: somebody listens but is slow; try again until the deadline */
		if (e != EAGAIN || mono_ms() >= deadline)
			return 0;
		struct timespec ts = {0, 20 * 1000000L};
		nanosleep(&ts, NULL);
	}
	struct toe_ctl_hello m;
	memset(&m, 0, sizeof(m));
	toe_ctl_hdr_init(&m.hdr, TOE_CTL_HELLO, sizeof(m), 1);
	snprintf(m.name, sizeof(m.name), "toed-instance-check");
	int alive = 0;
	if (send(fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(m) ||
	    errno == EPIPE || errno == ECONNRESET) {
		/* a refusal may already be waiting even when the send failed */
		union {
			struct toe_ctl_hdr h;
			struct toe_ctl_hello_ok ok;
			char raw[sizeof(struct toe_ctl_error)];
		} r;
		size_t got = 0;
		while (got < sizeof(r.ok) && wait_until(fd, POLLIN, deadline)) { /* both replies are this long at least */
			ssize_t n = recv(fd, r.raw + got, sizeof(r.ok) - got, MSG_DONTWAIT);
			if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)))
				break;
			if (n > 0)
				got += (size_t)n;
		}
		if (got >= sizeof(r.h) && r.h.magic == TOE_CTL_MAGIC &&
		    (r.h.type == TOE_CTL_HELLO_OK || r.h.type == TOE_CTL_ERROR)) {
			alive = 1;
			if (r.h.type == TOE_CTL_HELLO_OK && got >= sizeof(r.ok) && pid)
				*pid = (pid_t)r.ok.server_pid;
		}
	}
	close(fd);
	return alive;
}
