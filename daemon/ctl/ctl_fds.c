/* ctl_fds.c - refusing and disposing of descriptors clients pass (see ctl_fds.h). */
#include "ctl/ctl_fds.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83 /* Linux 6.16, asm-generic value (the arches toed runs on) */
#endif

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static int q_fd[CTL_FDS_QUEUE];
static unsigned q_head, q_len;
static int q_thread_started;
static struct ctl_fds_stats q_st;

int ctl_fds_refuse(int fd)
{
	int off = 0;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &off, sizeof(off)) < 0)
		return -errno;
	return 0;
}

/* The closer: may block as long as a close takes; the control thread never waits for it. */
static void *closer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&q_lock);
	for (;;) {
		while (!q_len)
			pthread_cond_wait(&q_cond, &q_lock);
		int fd = q_fd[q_head];
		q_head = (q_head + 1) % CTL_FDS_QUEUE;
		q_len--;
		pthread_mutex_unlock(&q_lock);
		close(fd);
		pthread_mutex_lock(&q_lock);
	}
	return NULL;
}

static int hand_off(int fd)
{
	int ok = 0;
	pthread_mutex_lock(&q_lock);
	if (!q_thread_started) {
		pthread_t th;
		pthread_attr_t a;
		sigset_t all, old;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 64 * 1024);
		/* the closer takes no signals: the control loop reads them through its signalfd */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		q_thread_started = pthread_create(&th, &a, closer, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&a);
	}
	if (q_thread_started && q_len < CTL_FDS_QUEUE) {
		q_fd[(q_head + q_len) % CTL_FDS_QUEUE] = fd;
		q_len++;
		q_st.handed_off++;
		pthread_cond_signal(&q_cond);
		ok = 1;
	} else {
		q_st.kept_open++;
	}
	pthread_mutex_unlock(&q_lock);
	return ok;
}

void ctl_fds_dispose(int fd)
{
	struct stat st;
	int domain = -1;
	socklen_t dl = sizeof(domain);
	if (fd < 0)
		return;
	/* only an IP socket closes here: a Unix socket may hold descriptors in flight in its
	 * queue (passed to it, never read), whose last close would then happen in this thread */
	if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dl) == 0 &&
	    (domain == AF_INET || domain == AF_INET6)) {
		struct linger lg = {.l_onoff = 0, .l_linger = 0};
		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) == 0) {
			close(fd); /* without linger, a socket's close does not wait */
			pthread_mutex_lock(&q_lock);
			q_st.closed_here++;
			pthread_mutex_unlock(&q_lock);
			return;
		}
	}
	hand_off(fd);
}

void ctl_fds_get_stats(struct ctl_fds_stats *st)
{
	pthread_mutex_lock(&q_lock);
	*st = q_st;
	pthread_mutex_unlock(&q_lock);
}
