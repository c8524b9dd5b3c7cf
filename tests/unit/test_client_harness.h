/* test_client_harness.h - a producer process for the multi-process client tests.
 *
 * th_start() forks a child that runs a publisher (pub_ring) and a control
 * server (ctl_server) on a socket path, single-threaded, and obeys commands
 * sent over a pipe: publish records from the generator below, report stats,
 * quit gracefully. The parent plays the clients with libtoeclient or raw
 * sockets. Header-only (static functions) so each test program carries its
 * own copy; included only by tests/unit/test_client_*.c.
 *
 * Generator: record i (i = 0, 1, ...) has msg_seq i + 1 and is
 *   i % 10 == 9      a GAP event (offset i, length 100, reason TIMEOUT)
 *   else i % 3 == 0  an ORDER, channel 1 + i % 4, security "6000%02d" % (i % 7), order_index i
 *   else             a TRADE, channel 1 + i % 4, security "6000%02d" % (i % 7), trade_index i
 * and comes from source i % 3 (pub_publish_src: which feed carried it, for
 * subscriptions by stream name; the names are the ctl_config's streams).
 */
#ifndef TEST_CLIENT_HARNESS_H
#define TEST_CLIENT_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl_server.h"
#include "dp/dp_pub.h"
#include "dp/dp_shm.h"
#include "test.h"
#include "toe/toeclient.h"

enum { TH_PUBLISH = 1, TH_STATS = 2, TH_QUIT = 3 };

struct th_cmd {
	uint32_t op;
	uint32_t n;     /* records to publish */
	uint64_t first; /* generator index of the first */
	uint32_t batch; /* records per pub_publish() call (0: 64) */
	uint32_t pad;
};

struct th_ack {
	int32_t rc;
	uint32_t pad;
	uint64_t ns; /* time spent publishing */
	struct pub_stats ps;
	struct ctl_stats cs;
};

struct th_prod {
	pid_t pid;
	int cmd; /* write end */
	int ack; /* read end */
};

static inline uint64_t th_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void th_record(uint64_t i, union toe_record *r)
{
	memset(r, 0, sizeof(*r));
	r->hdr.msg_seq = i + 1;
	r->hdr.rx_ns = i;
	if (i % 10 == 9) {
		r->hdr.type = TOE_REC_GAP;
		r->gap.offset = i;
		r->gap.length = 100;
		r->gap.reason = TOE_GAP_TIMEOUT;
	} else if (i % 3 == 0) {
		r->hdr.type = TOE_REC_ORDER;
		r->order.order_channel = (int32_t)(1 + i % 4);
		snprintf(r->order.security_id, sizeof(r->order.security_id), "6000%02d", (int)(i % 7));
		r->order.order_index = (int32_t)i;
		r->order.order_no = (int64_t)i;
		r->order.bs_flag[0] = 'B';
	} else {
		r->hdr.type = TOE_REC_TRADE;
		r->trade.trade_channel = (int32_t)(1 + i % 4);
		snprintf(r->trade.security_id, sizeof(r->trade.security_id), "6000%02d", (int)(i % 7));
		r->trade.trade_index = (int32_t)i;
		r->trade.trade_price = 12345;
		r->trade.bs_flag[0] = 'S';
	}
}

static inline void th_child(const char *path, const struct pub_config *pc, const struct ctl_config *cc, int cmd, int ack)
{
	int err = 0;
	struct pub *pub = pub_create(pc, &err);
	struct ctl_config c = {.allow_gid = -1};
	if (cc)
		c = *cc;
	c.path = path;
	struct ctl_server *srv = pub ? ctl_server_open(&c, pub, &err) : NULL;
	struct th_ack a = {.rc = srv ? 0 : err};
	if (write(ack, &a, sizeof(a)) != (ssize_t)sizeof(a) || !srv)
		_exit(1);
	fcntl(cmd, F_SETFL, O_NONBLOCK);
	static union toe_record recs[256];
	static uint8_t srcs[256];
	for (;;) {
		ctl_server_poll(srv, 1);
		pub_tick(pub, shm_now_ns());
		struct th_cmd m;
		ssize_t n = read(cmd, &m, sizeof(m));
		if (n == 0)
			break; /* parent gone */
		if (n != (ssize_t)sizeof(m))
			continue;
		memset(&a, 0, sizeof(a));
		if (m.op == TH_PUBLISH) {
			uint32_t batch = m.batch ? m.batch : 64;
			if (batch > 256)
				batch = 256;
			uint64_t t0 = shm_now_ns();
			for (uint32_t done = 0; done < m.n;) {
				uint32_t k = m.n - done < batch ? m.n - done : batch;
				for (uint32_t j = 0; j < k; j++) {
					th_record(m.first + done + j, &recs[j]);
					srcs[j] = (uint8_t)((m.first + done + j) % 3);
				}
				pub_publish_src(pub, recs, srcs, k);
				done += k;
			}
			a.ns = shm_now_ns() - t0;
		} else if (m.op == TH_QUIT) {
			ctl_server_close(srv);
			pub_destroy(pub);
			(void)!write(ack, &a, sizeof(a));
			_exit(0);
		}
		pub_get_stats(pub, &a.ps);
		ctl_server_get_stats(srv, &a.cs);
		if (write(ack, &a, sizeof(a)) != (ssize_t)sizeof(a))
			break;
	}
	_exit(0);
}

/* Fork a producer serving path. Returns 0 once it listens, or -errno. */
static inline int th_start(struct th_prod *p, const char *path, const struct pub_config *pc, const struct ctl_config *cc)
{
	int cmdp[2], ackp[2];
	if (pipe2(cmdp, O_CLOEXEC) < 0 || pipe2(ackp, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(cmdp[1]);
		close(ackp[0]);
		th_child(path, pc, cc, cmdp[0], ackp[1]);
		_exit(0);
	}
	close(cmdp[0]);
	close(ackp[1]);
	p->pid = pid;
	p->cmd = cmdp[1];
	p->ack = ackp[0];
	struct th_ack a;
	struct pollfd pf = {.fd = p->ack, .events = POLLIN};
	if (poll(&pf, 1, 5000) != 1 || read(p->ack, &a, sizeof(a)) != (ssize_t)sizeof(a))
		return -EIO;
	return a.rc;
}

/* Send a command and wait for its acknowledgement (10 s at most). */
static inline int th_cmd(struct th_prod *p, uint32_t op, uint32_t n, uint64_t first, uint32_t batch, struct th_ack *out)
{
	struct th_cmd m = {.op = op, .n = n, .first = first, .batch = batch};
	struct th_ack a;
	if (write(p->cmd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return -EIO;
	struct pollfd pf = {.fd = p->ack, .events = POLLIN};
	if (poll(&pf, 1, 10000) != 1 || read(p->ack, &a, sizeof(a)) != (ssize_t)sizeof(a))
		return -ETIMEDOUT;
	if (out)
		*out = a;
	return a.rc;
}

static inline int th_publish(struct th_prod *p, uint64_t first, uint32_t n)
{
	return th_cmd(p, TH_PUBLISH, n, first, 0, NULL);
}

static inline int th_stats(struct th_prod *p, struct th_ack *a)
{
	return th_cmd(p, TH_STATS, 0, 0, 0, a);
}

static inline void th_close_pipes(struct th_prod *p)
{
	close(p->cmd);
	close(p->ack);
	p->cmd = p->ack = -1;
	p->pid = 0;
}

/* Graceful stop: rings closed, socket unlinked. */
static inline int th_quit(struct th_prod *p)
{
	int rc = th_cmd(p, TH_QUIT, 0, 0, 0, NULL);
	int st = 0;
	waitpid(p->pid, &st, 0);
	th_close_pipes(p);
	return rc;
}

/* Crash: nothing cleaned up. */
static inline void th_kill(struct th_prod *p)
{
	int st = 0;
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &st, 0);
	th_close_pipes(p);
}

/* A raw connection to the control socket at p (the wire without libtoeclient), with a receive timeout of
 * rcv_timeout_s seconds when not 0: the descriptor, or -1. */
static inline int th_connect(const char *p, int rcv_timeout_s)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", p);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (s >= 0)
			close(s);
		return -1;
	}
	if (rcv_timeout_s) {
		struct timeval tv = {.tv_sec = rcv_timeout_s};
		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	return s;
}

/* A private folder for sockets; removed by th_rmdir. */
static inline void th_tmpdir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/toe-test-XXXXXX");
	if (!mkdtemp(dir))
		dir[0] = 0;
}

static inline void th_rmdir(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

/* Read until n records arrived or timeout_ms passed; returns records read. */
static inline uint32_t th_read_n(struct toe_client *c, union toe_record *out, uint32_t n, int timeout_ms)
{
	uint32_t got = 0;
	uint64_t end = th_now() + (uint64_t)timeout_ms * 1000000ull;
	while (got < n && th_now() < end) {
		int r = toe_read(c, out + got, n - got, NULL);
		if (r > 0) {
			got += (uint32_t)r;
			continue;
		}
		if (r != -EAGAIN)
			break;
		toe_wait(c, 100000000ll);
	}
	return got;
}

#endif
