/* toeclient.c - libtoeclient: control-socket client, ring mapping, reads and waits (see toe/toeclient.h).
 *
 * The hot path (toe_read/peek/poll and toe_wait's spin phase) touches only
 * the mapped ring and this struct. System calls happen when subscribing, when
 * sleeping (futex), when arming the eventfd, and in the liveness checks that
 * run only once the ring is empty: a closed ring or a changed epoch is seen by
 * loads; the heartbeat is read every TC_HB_EVERY empty polls (clock_gettime
 * is a vDSO call, not a system call); the socket is looked at by toe_wait
 * while it sleeps, by toe_arm and by toe_check.
 */
#include "toe/toeclient.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "toe/ctl.h"
#include "toe/shm.h"
#include "wait_adapt.h"

#define TC_DEFAULT_HB_TIMEOUT_NS 2000000000ll
#define TC_DEFAULT_TIMEOUT_MS 2000
#define TC_SLEEP_SLICE_NS 50000000ll /* a sleeping toe_wait looks at the socket this often */
#define TC_PROBE_INTERVAL_NS 100000000ll
#define TC_PROBE_TIMEOUT_MS 500
#define TC_HB_EVERY 1024u

enum tc_state {
	TC_IDLE = 0, /* connected, no ring */
	TC_LIVE = 1, /* ring mapped, daemon alive as far as we know */
	TC_LOST = 2, /* daemon gone or restarted: err says which */
};

struct tc_filter {
	uint32_t types, capacity, start, nch, nsec;
	uint64_t start_arg;
	int32_t channels[TOE_CTL_MAX_CHANNELS];
	char secs[TOE_CTL_MAX_SECURITIES][TOE_SECURITY_ID_LEN];
	char stream[TOE_CTL_STREAM_LEN]; /* "" none */
};

struct toe_client {
	/* hot */
	struct toe_ring_cons ring;
	uint64_t next_seq;
	uint64_t received;
	uint64_t skipped;
	uint32_t empty_polls;
	int state;
	int err;
	uint64_t epoch;
	int64_t hb_limit_ns; /* silence that means "gone" for this ring; 0: never */
	/* cold */
	int64_t hb_timeout_ns;
	int64_t spin_ns;
	int timeout_ms;
	int sock;
	int efd;
	int epfd;
	void *data;
	size_t data_len;
	void *consmap;
	uint32_t hugetlb;
	uint32_t client_id;
	uint64_t sleeps;     /* toe_wait calls that slept at least once */
	int slept;           /* this toe_wait has slept */
	int slack_set;       /* the adaptive wait has set the thread's timer slack */
	struct wait_adapt wa;
	uint64_t reconnects;
	uint64_t last_probe_ns;
	uint32_t next_id;
	int has_sub;
	struct tc_filter *sub; /* the subscription, kept for toe_reconnect() */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[TOE_CTL_NAME_LEN];
	char errtext[TOE_CTL_TEXT_LEN];
};

/* An empty region the ring points at while nothing is mapped, so the hot
 * path needs no "is there a ring" test: it just sees an empty ring. */
static const struct toe_shm_region tc_no_region;

static void ring_reset(struct toe_client *c)
{
	memset(&c->ring, 0, sizeof(c->ring));
	c->ring.reg = &tc_no_region;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* ---- control socket I/O ------------------------------------------------- */

static int sock_open(const char *path, int *out)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	*out = fd;
	return 0;
}

static int wait_fd(int fd, short ev, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = ev};
		int r = poll(&p, 1, (int)((left + 999999) / 1000000));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const void *buf, size_t len, int64_t deadline)
{
	const char *p = buf;
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == EPIPE || errno == ECONNRESET ? -ENOTCONN : -errno;
		int e = wait_fd(fd, POLLOUT, deadline);
		if (e < 0)
			return e;
	}
	return 0;
}

/* Read exactly len bytes, collecting any descriptors passed with them. */
static int recv_all(int fd, void *buf, size_t len, int64_t deadline, int *fds, int *nfds, int maxfds)
{
	char *p = buf;
	while (len) {
		union {
			char b[CMSG_SPACE(sizeof(int) * 8)];
			struct cmsghdr align;
		} cm;
		struct iovec iov = {.iov_base = p, .iov_len = len};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof(cm.b)};
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n > 0) {
			for (struct cmsghdr *ch = CMSG_FIRSTHDR(&mh); ch; ch = CMSG_NXTHDR(&mh, ch)) {
				if (ch->cmsg_level != SOL_SOCKET || ch->cmsg_type != SCM_RIGHTS)
					continue;
				size_t k = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				for (size_t i = 0; i < k; i++) {
					int f;
					memcpy(&f, CMSG_DATA(ch) + i * sizeof(int), sizeof(int));
					if (fds && *nfds < maxfds)
						fds[(*nfds)++] = f;
					else
						close(f);
				}
			}
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ENOTCONN;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == ECONNRESET ? -ENOTCONN : -errno;
		int e = wait_fd(fd, POLLIN, deadline);
		if (e < 0)
			return e;
	}
	return 0;
}

/* Read one message into buf (cap bytes). Returns its type or -errno. */
static int recv_msg(int fd, void *buf, size_t cap, int64_t deadline, int *fds, int *nfds, int maxfds)
{
	struct toe_ctl_hdr *h = buf;
	int e = recv_all(fd, h, sizeof(*h), deadline, fds, nfds, maxfds);
	if (e < 0)
		return e;
	if (h->magic != TOE_CTL_MAGIC || h->length < sizeof(*h) || h->length > TOE_CTL_MAX_MSG)
		return -EPROTO;
	if (h->version != TOE_CTL_VERSION)
		return -EPROTONOSUPPORT;
	size_t body = h->length - sizeof(*h), keep = body;
	if (sizeof(*h) + keep > cap)
		keep = cap - sizeof(*h);
	e = recv_all(fd, (char *)buf + sizeof(*h), keep, deadline, fds, nfds, maxfds);
	if (e < 0)
		return e;
	char sink[256];
	for (size_t rest = body - keep; rest;) { /* a longer reply from a newer daemon: skip the tail */
		size_t k = rest < sizeof(sink) ? rest : sizeof(sink);
		if ((e = recv_all(fd, sink, k, deadline, fds, nfds, maxfds)) < 0)
			return e;
		rest -= k;
	}
	return h->type;
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* Send a request and wait for its reply (or an ERROR). Returns 0 or -errno. */
static int request(struct toe_client *c, int fd, const void *msg, size_t len, int want, void *reply, size_t cap,
		   int *fds, int *nfds, int maxfds, int timeout_ms)
{
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
	const struct toe_ctl_hdr *req = msg;
	int e = send_all(fd, msg, len, deadline);
	/* the daemon may have refused the connection and hung up before our request went out:
	 * its ERROR (say EUSERS, too many connections) is still waiting to be read */
	int sent_failed = e == -ENOTCONN;
	if (e < 0 && !sent_failed)
		return e;
	for (;;) {
		_Alignas(8) char buf[512];
		int got = 0;
		int t = recv_msg(fd, buf, sizeof(buf), deadline, fds, &got, maxfds);
		if (t < 0) {
			close_fds(fds, got);
			return sent_failed ? -ENOTCONN : t;
		}
		const struct toe_ctl_hdr *h = (const void *)buf;
		if (t == TOE_CTL_BYE) {
			close_fds(fds, got);
			return -ENOTCONN;
		}
		/* id 0 answers no request: the connection itself is refused or closed
		 * (too many connections, no request in time, descriptors passed) */
		int conn_err = t == TOE_CTL_ERROR && h->id == 0 && req->id != 0;
		if (h->id != req->id && !conn_err) { /* not ours: ignore */
			close_fds(fds, got);
			continue;
		}
		if (t == TOE_CTL_ERROR) {
			const struct toe_ctl_error *er = (const void *)buf;
			close_fds(fds, got);
			if (h->length < sizeof(*er))
				return -EPROTO;
			if (c) {
				memcpy(c->errtext, er->text, sizeof(c->errtext));
				c->errtext[sizeof(c->errtext) - 1] = 0;
			}
			return er->error > 0 ? -er->error : -EPROTO;
		}
		if (t != want) {
			close_fds(fds, got);
			return -EPROTO;
		}
		size_t n = h->length < cap ? h->length : cap;
		memset(reply, 0, cap);
		memcpy(reply, buf, n < sizeof(buf) ? n : sizeof(buf));
		if (nfds)
			*nfds = got;
		else
			close_fds(fds, got);
		return 0;
	}
}

static int hello(struct toe_client *c, int fd, uint64_t *epoch, int timeout_ms)
{
	struct toe_ctl_hello m;
	struct toe_ctl_hello_ok r;
	memset(&m, 0, sizeof(m));
	toe_ctl_hdr_init(&m.hdr, TOE_CTL_HELLO, sizeof(m), c->next_id++);
	memcpy(m.name, c->name, sizeof(m.name));
	int e = request(c, fd, &m, sizeof(m), TOE_CTL_HELLO_OK, &r, sizeof(r), NULL, NULL, 0, timeout_ms);
	if (e == 0)
		*epoch = r.epoch;
	return e;
}

/* ---- ring mapping ------------------------------------------------------- */

static void unmap_ring(struct toe_client *c)
{
	if (c->data)
		munmap(c->data, c->data_len);
	if (c->consmap)
		munmap(c->consmap, TOE_SHM_CONS_SIZE);
	if (c->efd >= 0) {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->efd, NULL);
		close(c->efd);
	}
	c->data = NULL;
	c->consmap = NULL;
	c->efd = -1;
	ring_reset(c);
}

/* Read one byte of each 4 KB page of the ring once, when it is mapped:
 * MAP_POPULATE fills the page tables, but on a guest with shadow paging
 * the first read from user space of each page still costs several
 * microseconds (about 1 us per page here), which the first lap of the ring
 * would otherwise pay every 32 records (the daemon does the same for its
 * side: daemon/base/mem_touch.h). */
static void touch_pages(const void *p, size_t len)
{
	const volatile unsigned char *b = p;
	for (size_t i = 0; i < len; i += 4096)
		(void)b[i];
}

static int map_ring(struct toe_client *c, const struct toe_ctl_subscribed *r, const int fds[TOE_CTL_NFDS])
{
	struct stat st;
	int e = -EPROTO;
	if (fstat(fds[0], &st) < 0 || (uint64_t)st.st_size < r->data_size || r->data_size < TOE_SHM_HDR_SIZE ||
	    r->data_size > SIZE_MAX || r->cons_size != TOE_SHM_CONS_SIZE)
		goto out;
	void *d = mmap(NULL, (size_t)r->data_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fds[0], 0);
	if (d == MAP_FAILED) {
		e = -errno;
		goto out;
	}
	const struct toe_shm_region *reg = d;
	uint32_t cap = reg->capacity;
	if (reg->magic != TOE_SHM_MAGIC || reg->shm_version != TOE_SHM_VERSION || reg->abi_version != TOE_ABI_VERSION ||
	    reg->hdr_size != TOE_SHM_HDR_SIZE || reg->record_size != TOE_RECORD_SIZE || cap != r->capacity ||
	    cap == 0 || (cap & (cap - 1)) || reg->ring_offset != TOE_SHM_HDR_SIZE ||
	    reg->ring_offset + (uint64_t)cap * TOE_RECORD_SIZE > r->data_size || reg->epoch != r->epoch) {
		e = reg->magic == TOE_SHM_MAGIC &&
				    (reg->abi_version != TOE_ABI_VERSION || reg->shm_version != TOE_SHM_VERSION)
			    ? -EPROTONOSUPPORT
			    : -EPROTO;
		munmap(d, (size_t)r->data_size);
		goto out;
	}
	touch_pages(d, (size_t)r->data_size);
	void *cp = mmap(NULL, TOE_SHM_CONS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fds[1], 0);
	if (cp == MAP_FAILED) {
		e = -errno;
		munmap(d, (size_t)r->data_size);
		goto out;
	}
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fds[2]};
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fds[2], &ev) < 0) {
		e = -errno;
		munmap(d, (size_t)r->data_size);
		munmap(cp, TOE_SHM_CONS_SIZE);
		goto out;
	}
	c->data = d;
	c->data_len = (size_t)r->data_size;
	c->consmap = cp;
	c->efd = fds[2];
	c->hugetlb = (reg->flags & TOE_SHM_F_HUGETLB) != 0;
	c->client_id = r->client_id;
	c->epoch = r->epoch;
	/* never stricter than four of the daemon's beat periods */
	c->hb_limit_ns = c->hb_timeout_ns;
	if (c->hb_limit_ns > 0 && reg->heartbeat_period_ns < (uint64_t)INT64_MAX / 4 &&
	    c->hb_limit_ns < 4 * (int64_t)reg->heartbeat_period_ns)
		c->hb_limit_ns = 4 * (int64_t)reg->heartbeat_period_ns;
	c->ring.reg = reg;
	c->ring.recs = (const union toe_record *)((const char *)d + reg->ring_offset);
	c->ring.cons = cp;
	c->ring.cap = cap;
	c->ring.mask = cap - 1;
	c->ring.tail = __atomic_load_n(&c->ring.cons->tail, __ATOMIC_RELAXED);
	c->ring.head_cache = c->ring.tail;
	__atomic_store_n(&c->ring.cons->client_pid, (uint32_t)getpid(), __ATOMIC_RELAXED);
	c->next_seq = 1;
	close(fds[0]);
	close(fds[1]);
	return 0;
out:
	close_fds((int *)fds, TOE_CTL_NFDS);
	return e;
}

/* ---- connection --------------------------------------------------------- */

static int attach_sock(struct toe_client *c)
{
	int e = sock_open(c->path, &c->sock);
	if (e < 0) {
		c->sock = -1;
		return e;
	}
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.fd = c->sock};
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->sock, &ev) < 0) {
		e = -errno;
		close(c->sock);
		c->sock = -1;
		return e;
	}
	uint64_t epoch = 0;
	e = hello(c, c->sock, &epoch, c->timeout_ms);
	if (e < 0) {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->sock, NULL);
		close(c->sock);
		c->sock = -1;
		return e;
	}
	c->epoch = epoch;
	return 0;
}

static void detach(struct toe_client *c)
{
	unmap_ring(c);
	if (c->sock >= 0) {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->sock, NULL);
		close(c->sock);
	}
	c->sock = -1;
}

TOE_API int toe_connect(struct toe_client **out, const char *path, const struct toe_opts *opts)
{
	struct toe_client *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->sock = c->efd = -1;
	c->next_id = 1;
	ring_reset(c);
	if (!path)
		path = getenv(TOE_CTL_PATH_ENV);
	if (!path || !*path)
		path = TOE_CTL_DEFAULT_PATH;
	if (strlen(path) >= sizeof(c->path)) {
		free(c);
		return -ENAMETOOLONG;
	}
	memcpy(c->path, path, strlen(path) + 1);
	const char *name = opts && opts->name ? opts->name : program_invocation_short_name;
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
	c->spin_ns = opts && opts->spin_ns ? (opts->spin_ns < 0 ? -1 : opts->spin_ns) : 0; /* 0: adaptive */
	c->hb_timeout_ns = opts && opts->heartbeat_timeout_ns ? opts->heartbeat_timeout_ns : TC_DEFAULT_HB_TIMEOUT_NS;
	if (c->hb_timeout_ns < 0)
		c->hb_timeout_ns = 0;
	c->timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : TC_DEFAULT_TIMEOUT_MS;
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epfd < 0) {
		int e = -errno;
		free(c);
		return e;
	}
	int e = attach_sock(c);
	if (e < 0) {
		close(c->epfd);
		free(c);
		return e;
	}
	c->state = TC_IDLE;
	*out = c;
	return 0;
}

static int send_subscribe(struct toe_client *c, const struct tc_filter *f)
{
	_Alignas(8) uint8_t buf[TOE_CTL_MAX_MSG];
	struct toe_ctl_subscribe *m = (void *)buf;
	uint32_t flags = f->stream[0] ? TOE_SUB_F_STREAM : 0;
	uint32_t len = toe_ctl_subscribe_size(f->nch, f->nsec, flags);
	memset(buf, 0, len);
	toe_ctl_hdr_init(&m->hdr, TOE_CTL_SUBSCRIBE, len, c->next_id++);
	m->types = f->types;
	m->capacity = f->capacity;
	m->start = f->start;
	m->start_arg = f->start_arg;
	m->nchannels = (uint16_t)f->nch;
	m->nsecurities = (uint16_t)f->nsec;
	memcpy(buf + sizeof(*m), f->channels, 4u * f->nch);
	memcpy(buf + sizeof(*m) + 4u * f->nch, f->secs, (size_t)TOE_SECURITY_ID_LEN * f->nsec);
	if (flags) {
		/* a daemon older than stream names refuses the flag (EINVAL) rather than ignore it */
		m->flags = flags;
		memcpy(buf + toe_ctl_subscribe_len(f->nch, f->nsec), f->stream, TOE_CTL_STREAM_LEN);
	}

	struct toe_ctl_subscribed r;
	int fds[TOE_CTL_NFDS], nfds = 0;
	int e = request(c, c->sock, buf, len, TOE_CTL_SUBSCRIBED, &r, sizeof(r), fds, &nfds, TOE_CTL_NFDS,
			c->timeout_ms);
	if (e < 0)
		return e;
	if (!c->data) {
		if (nfds != TOE_CTL_NFDS || r.nfds != TOE_CTL_NFDS) {
			close_fds(fds, nfds);
			return -EPROTO;
		}
		return map_ring(c, &r, fds);
	}
	close_fds(fds, nfds); /* filter change on the existing ring */
	return 0;
}

TOE_API int toe_subscribe(struct toe_client *c, const struct toe_sub *sub)
{
	if (!c || !sub)
		return -EINVAL;
	if (c->state == TC_LOST)
		return c->err;
	if (c->sock < 0)
		return -ENOTCONN;
	if (sub->nchannels > TOE_CTL_MAX_CHANNELS || sub->nsecurities > TOE_CTL_MAX_SECURITIES ||
	    (sub->nchannels && !sub->channels) || (sub->nsecurities && !sub->securities) || sub->flags)
		return -EINVAL;
	for (uint32_t i = 0; i < sub->nsecurities; i++) {
		const char *s = sub->securities[i];
		if (!s || !*s || strlen(s) > TOE_SECURITY_ID_LEN)
			return -EINVAL;
	}
	if (sub->stream && (!sub->stream[0] || strlen(sub->stream) >= TOE_CTL_STREAM_LEN)) {
		snprintf(c->errtext, sizeof(c->errtext), "a stream name has 1 to %d bytes", TOE_CTL_STREAM_LEN - 1);
		return -EINVAL;
	}
	struct tc_filter *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->types = sub->types;
	f->capacity = sub->capacity;
	f->start = sub->start;
	f->start_arg = sub->start_arg;
	f->nch = sub->nchannels;
	f->nsec = sub->nsecurities;
	if (f->nch)
		memcpy(f->channels, sub->channels, 4u * f->nch);
	for (uint32_t i = 0; i < f->nsec; i++)
		memcpy(f->secs[i], sub->securities[i], strlen(sub->securities[i]));
	if (sub->stream)
		memcpy(f->stream, sub->stream, strlen(sub->stream));
	c->errtext[0] = 0;
	int e = send_subscribe(c, f);
	if (e < 0) {
		free(f); /* the previous subscription, if any, stays */
		return e;
	}
	free(c->sub);
	c->sub = f;
	c->has_sub = 1;
	c->state = TC_LIVE;
	return 0;
}

/* ---- liveness ----------------------------------------------------------- */

/* Is there a daemon at our path, and is it a new instance? */
static int probe(struct toe_client *c)
{
	int fd, e;
	uint64_t epoch = 0;
	c->last_probe_ns = (uint64_t)now_ns();
	if (sock_open(c->path, &fd) < 0)
		return -ENOTCONN;
	int t = c->timeout_ms < TC_PROBE_TIMEOUT_MS ? c->timeout_ms : TC_PROBE_TIMEOUT_MS;
	e = hello(c, fd, &epoch, t);
	close(fd);
	if (e == 0 && epoch != c->epoch)
		return -ESTALE;
	return -ENOTCONN;
}

/* The daemon is gone. err 0: probe now whether a new instance answers
 * (slow path only); -ENOTCONN from the hot path: no system call, the next
 * toe_check/toe_wait/toe_arm probes. */
static int lose(struct toe_client *c, int err)
{
	c->state = TC_LOST;
	if (err == -ENOTCONN)
		c->last_probe_ns = 0;
	c->err = err ? err : probe(c);
	return c->err;
}

/* Loads only: a closed ring or a changed epoch; the heartbeat now and then
 * (clock_gettime is a vDSO call). Never a system call. */
static int check_cheap(struct toe_client *c)
{
	if (c->state == TC_LOST)
		return c->err;
	const struct toe_shm_region *reg = c->ring.reg;
	if (__atomic_load_n(&reg->epoch, __ATOMIC_RELAXED) != c->epoch)
		return lose(c, -ESTALE);
	if (__atomic_load_n(&reg->state, __ATOMIC_ACQUIRE) == TOE_SHM_STATE_CLOSED)
		return lose(c, -ENOTCONN);
	if (c->hb_limit_ns > 0 && (++c->empty_polls % TC_HB_EVERY) == 0) {
		int64_t hb = (int64_t)__atomic_load_n(&reg->heartbeat_ns, __ATOMIC_RELAXED);
		if (now_ns() - hb > c->hb_limit_ns)
			return lose(c, -ENOTCONN);
	}
	return 0;
}

/* Everything, with system calls: socket state and unsolicited messages too. */
static int check_full(struct toe_client *c)
{
	if (c->state == TC_LOST) {
		if (c->err == -ENOTCONN && (uint64_t)now_ns() - c->last_probe_ns >= (uint64_t)TC_PROBE_INTERVAL_NS)
			c->err = probe(c);
		return c->err;
	}
	if (!c->data)
		return c->sock < 0 ? -ENOTCONN : 0;
	c->empty_polls = TC_HB_EVERY - 1; /* make check_cheap look at the heartbeat */
	int e = check_cheap(c);
	if (e < 0)
		return check_full(c); /* now lost: probe for a new instance */
	for (;;) {
		char b;
		ssize_t n = recv(c->sock, &b, 1, MSG_PEEK | MSG_DONTWAIT);
		if (n == 0)
			return lose(c, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return lose(c, 0);
		}
		/* a message from the daemon we did not ask for (BYE): read it */
		_Alignas(8) char buf[256];
		int t = recv_msg(c->sock, buf, sizeof(buf), now_ns() + 100000000ll, NULL, NULL, 0);
		if (t < 0 || t == TOE_CTL_BYE)
			return lose(c, 0);
	}
}

TOE_API int toe_check(struct toe_client *c)
{
	return check_full(c);
}

/* ---- reading ------------------------------------------------------------ */

/* The ring is empty: say why. */
static int empty_result(struct toe_client *c)
{
	if (!c->data)
		return c->state == TC_LOST ? c->err : -EINVAL;
	int e = check_cheap(c);
	return e < 0 ? e : -EAGAIN;
}

static inline uint64_t batch_skipped(const struct toe_client *c, const union toe_record *last, uint32_t n)
{
	uint64_t s = last->hdr.seq;
	uint64_t expect = c->next_seq + n - 1;
	return s > expect ? s - expect : 0;
}

TOE_API int toe_read(struct toe_client *c, union toe_record *out, unsigned max, uint64_t *skipped)
{
	if (max == 0)
		return -EINVAL;
	uint32_t n = toe_ring_cons_avail(&c->ring);
	if (n == 0)
		return empty_result(c);
	if (n > max)
		n = max;
	for (uint32_t i = 0; i < n; i++)
		out[i] = *toe_ring_cons_at(&c->ring, i);
	uint64_t sk = batch_skipped(c, &out[n - 1], n);
	c->next_seq = out[n - 1].hdr.seq + 1;
	c->skipped += sk;
	c->received += n;
	toe_ring_cons_release(&c->ring, n);
	if (skipped)
		*skipped = sk;
	return (int)n;
}

TOE_API int toe_peek(struct toe_client *c, const union toe_record **recs, unsigned max, uint64_t *skipped)
{
	uint32_t n = toe_ring_cons_avail(&c->ring);
	if (n == 0)
		return empty_result(c);
	n = toe_ring_cons_contig(&c->ring, n);
	if (max && n > max)
		n = max;
	*recs = toe_ring_cons_at(&c->ring, 0);
	if (skipped)
		*skipped = batch_skipped(c, toe_ring_cons_at(&c->ring, n - 1), n);
	return (int)n;
}

TOE_API void toe_release(struct toe_client *c, unsigned n)
{
	uint64_t have = c->ring.head_cache - c->ring.tail;
	if (n > have)
		n = (unsigned)have;
	if (n == 0)
		return;
	const union toe_record *last = toe_ring_cons_at(&c->ring, n - 1);
	c->skipped += batch_skipped(c, last, n);
	c->next_seq = last->hdr.seq + 1;
	c->received += n;
	toe_ring_cons_release(&c->ring, n);
}

TOE_API int toe_poll(struct toe_client *c, toe_handler fn, void *arg, unsigned max)
{
	uint32_t n = toe_ring_cons_avail(&c->ring);
	if (n == 0)
		return empty_result(c);
	if (max && n > max)
		n = max;
	for (uint32_t i = 0; i < n; i++) {
		const union toe_record *r = toe_ring_cons_at(&c->ring, i);
		uint64_t s = r->hdr.seq, sk = s > c->next_seq ? s - c->next_seq : 0;
		c->next_seq = s + 1;
		c->skipped += sk;
		fn(arg, r, sk);
	}
	c->received += n;
	toe_ring_cons_release(&c->ring, n);
	return (int)n;
}

/* ---- waiting ------------------------------------------------------------ */

static long futex_wait(uint32_t *addr, uint32_t val, int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000ll, .tv_nsec = ns % 1000000000ll};
	return syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* Sleep on the futex until records come, `until` passes, or the daemon is
 * gone. Returns the records available (>0), or 0 with *err set (-EAGAIN at
 * `until`, -EINTR, or the daemon's state from check_full). */
static uint32_t sleep_until(struct toe_client *c, int64_t until, int *err)
{
	uint32_t *word = &c->ring.cons->wait;
	uint32_t n = 0;
	int e = -EAGAIN;
	for (;;) {
		uint32_t bits;
		if ((n = toe_ring_cons_prepare_wait(&c->ring, TOE_SHM_WAIT_FUTEX, &bits)))
			break;
		int64_t now = now_ns();
		if (now >= until)
			break;
		int64_t slice = until - now < TC_SLEEP_SLICE_NS ? until - now : TC_SLEEP_SLICE_NS;
		c->slept = 1;
		if (futex_wait(word, bits, slice) < 0 && errno == EINTR) {
			e = -EINTR;
			break;
		}
		if ((n = toe_ring_cons_avail(&c->ring)))
			break;
		if ((e = check_full(c)) < 0)
			break;
		e = -EAGAIN;
	}
	__atomic_fetch_and(word, ~TOE_SHM_WAIT_FUTEX, __ATOMIC_RELAXED);
	if (!n)
		n = toe_ring_cons_avail(&c->ring); /* the daemon may have gone right after writing */
	*err = e;
	return n;
}

/* Spin on the ring until `until`. Returns the records available, or 0 with
 * *err set (-EAGAIN at `until`, or the daemon's state). */
static uint32_t spin_until(struct toe_client *c, int64_t until, int *err)
{
	uint32_t n;
	for (;;) {
		for (int i = 0; i < 64; i++) {
			if ((n = toe_ring_cons_avail(&c->ring)))
				return n;
			cpu_relax();
		}
		int e = check_cheap(c);
		if (e < 0) {
			*err = e == -ENOTCONN ? check_full(c) : e;
			return 0;
		}
		if (now_ns() >= until) {
			*err = -EAGAIN;
			return 0;
		}
	}
}

/* Whether this thread runs on the CPU the daemon's data plane busy-polls on
 * (toe_shm_region.busy_cpu; sched_getcpu is a vDSO call). */
static int on_busy_cpu(const struct toe_client *c)
{
	uint32_t bc = __atomic_load_n(&c->ring.reg->busy_cpu, __ATOMIC_RELAXED);
	return bc && sched_getcpu() == (int)(bc - 1);
}

/* The phases of one wait, in order: an optional timed sleep, a spin, a sleep
 * until woken. Fixed spin (opts.spin_ns > 0): no timed sleep; adaptive
 * (default): wait_adapt.h decides both. */
static uint32_t wait_phases(struct toe_client *c, int64_t start, int64_t deadline, int *err)
{
	int64_t spin_end = start;
	uint32_t n;
	if (c->spin_ns > 0) {
		spin_end = start + c->spin_ns;
	} else if (c->spin_ns == 0 && on_busy_cpu(c)) {
		/* the producer busy-polls this CPU: a spin here only keeps it from
		 * publishing, and its wake-up is a local one (a few us) */
		return sleep_until(c, deadline, err);
	} else if (c->spin_ns == 0) {
		struct wait_plan p;
		wait_adapt_plan(&c->wa, start, &p);
		if (p.sleep_until) {
			if (!c->slack_set) {
				/* the timed sleep must end on time: the default 50 us slack would eat the lead */
				prctl(PR_SET_TIMERSLACK, 1000ul, 0, 0, 0);
				c->slack_set = 1;
			}
			n = sleep_until(c, p.sleep_until < deadline ? p.sleep_until : deadline, err);
			if (n || *err != -EAGAIN)
				return n;
		}
		spin_end = p.spin_until;
	}
	if (spin_end > deadline)
		spin_end = deadline;
	if (spin_end > now_ns()) {
		n = spin_until(c, spin_end, err);
		if (n || *err != -EAGAIN)
			return n;
	}
	return sleep_until(c, deadline, err);
}

TOE_API int toe_wait(struct toe_client *c, int64_t timeout_ns)
{
	uint32_t n = toe_ring_cons_avail(&c->ring);
	if (n)
		return (int)n;
	int e = empty_result(c);
	if (e == -ENOTCONN)
		e = check_full(c); /* a new daemon instance may answer: -ESTALE */
	if (e != -EAGAIN || timeout_ns == 0)
		return e;
	int64_t start = now_ns();
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : start + timeout_ns;
	c->slept = 0;
	n = wait_phases(c, start, deadline, &e);
	if (c->slept) {
		c->sleeps++;
		__atomic_store_n(&c->ring.cons->sleeps, c->sleeps, __ATOMIC_RELAXED);
	}
	if (!n)
		return e;
	wait_adapt_arrival(&c->wa, now_ns());
	return (int)n;
}

TOE_API int toe_fd(const struct toe_client *c)
{
	return c->epfd;
}

TOE_API int toe_arm(struct toe_client *c)
{
	if (!c->data)
		return c->state == TC_LOST ? c->err : -EINVAL;
	uint64_t v;
	while (read(c->efd, &v, sizeof(v)) > 0) {
	}
	uint32_t n = toe_ring_cons_avail(&c->ring);
	if (n)
		return (int)n;
	int e = check_full(c);
	if (e < 0)
		return (n = toe_ring_cons_avail(&c->ring)) ? (int)n : e;
	uint32_t bits;
	n = toe_ring_cons_prepare_wait(&c->ring, TOE_SHM_WAIT_EVENTFD, &bits);
	return (int)n;
}

/* ---- reconnect, stats, close -------------------------------------------- */

TOE_API int toe_reconnect(struct toe_client *c)
{
	detach(c);
	c->state = TC_LOST;
	c->err = -ENOTCONN;
	c->errtext[0] = 0;
	int e = attach_sock(c);
	if (e < 0)
		return e;
	if (c->has_sub) {
		e = send_subscribe(c, c->sub);
		if (e < 0) {
			detach(c);
			return e;
		}
		c->state = TC_LIVE;
	} else {
		c->state = TC_IDLE;
	}
	c->err = 0;
	c->empty_polls = 0;
	c->reconnects++;
	return 0;
}

TOE_API void toe_stats(const struct toe_client *c, struct toe_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->received = c->received;
	st->skipped = c->skipped;
	st->epoch = c->epoch;
	st->reconnects = c->reconnects;
	st->sleeps = c->sleeps;
	if (c->data) {
		const struct toe_shm_region *reg = c->ring.reg;
		st->dropped = __atomic_load_n(&reg->dropped, __ATOMIC_RELAXED);
		uint64_t head = __atomic_load_n(&reg->head, __ATOMIC_ACQUIRE);
		st->backlog = head - c->ring.tail > c->ring.cap ? c->ring.cap : head - c->ring.tail;
		st->capacity = c->ring.cap;
		st->hugetlb = c->hugetlb;
		st->client_id = c->client_id;
	}
}

TOE_API const char *toe_last_error(const struct toe_client *c)
{
	return c->errtext;
}

TOE_API void toe_close(struct toe_client *c)
{
	if (!c)
		return;
	detach(c); /* the daemon sees the hang-up and reclaims the ring */
	close(c->epfd);
	free(c->sub);
	free(c);
}
