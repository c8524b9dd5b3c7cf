/* test_client_shm.c - libtoeclient against a producer process: filters, a
 * client that never reads, a client killed mid-read, read-only data mappings,
 * blocking waits and epoll, daemon restart / death / hang while clients wait. */
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "test_client_harness.h"

static char dir[64], path[96];

/* What the generator makes of index i (see test_client_harness.h), written out independently. */
static int g_type(uint64_t i)
{
	return i % 10 == 9 ? TOE_REC_GAP : i % 3 == 0 ? TOE_REC_ORDER : TOE_REC_TRADE;
}
static int g_chan(uint64_t i)
{
	return (int)(1 + i % 4);
}
static int g_sec(uint64_t i)
{
	return (int)(i % 7);
}

/* Check that recs are exactly the indices in [first, end) accepted by want(), in order, seq 1... */
static int check_stream(const union toe_record *recs, uint32_t n, uint64_t first, uint64_t end,
			int (*want)(uint64_t), uint64_t seq0)
{
	uint32_t k = 0;
	for (uint64_t i = first; i < end; i++) {
		if (!want(i))
			continue;
		if (k >= n || recs[k].hdr.msg_seq != i + 1 || recs[k].hdr.type != g_type(i) || recs[k].hdr.seq != seq0 + k) {
			fprintf(stderr, "stream mismatch at %u: index %llu, got msg_seq %llu seq %llu\n", k,
				(unsigned long long)i, k < n ? (unsigned long long)recs[k].hdr.msg_seq : 0ull,
				k < n ? (unsigned long long)recs[k].hdr.seq : 0ull);
			return 0;
		}
		k++;
	}
	return k == n;
}

static uint32_t count(uint64_t first, uint64_t end, int (*want)(uint64_t))
{
	uint32_t n = 0;
	for (uint64_t i = first; i < end; i++)
		n += want(i) != 0;
	return n;
}

static int w_trade_ch2(uint64_t i)
{
	return g_type(i) == TOE_REC_TRADE && g_chan(i) == 2;
}
static int w_sec35(uint64_t i)
{
	return g_type(i) == TOE_REC_GAP || g_sec(i) == 3 || g_sec(i) == 5;
}
static int w_gap(uint64_t i)
{
	return g_type(i) == TOE_REC_GAP;
}
static int w_all(uint64_t i)
{
	(void)i;
	return 1;
}

static struct toe_client *client(const struct toe_sub *sub)
{
	struct toe_client *c = NULL;
	int e = toe_connect(&c, path, NULL);
	CHECK_EQ(e, 0);
	if (e < 0)
		return NULL;
	e = toe_subscribe(c, sub);
	CHECK_EQ(e, 0);
	if (e < 0) {
		fprintf(stderr, "subscribe: %s (%s)\n", strerror(-e), toe_last_error(c));
		toe_close(c);
		return NULL;
	}
	return c;
}

static void test_filters(void)
{
	struct th_prod p;
	struct pub_config pc = {.history = 1024, .no_hugepages = 1};
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	CHECK_EQ(th_publish(&p, 0, 20), 0); /* history: indices 0..19 */

	int32_t ch2 = 2;
	const char *secs[] = {"600003", "600005"};
	struct toe_sub s1 = {.types = TOE_TYPE_BIT(TOE_REC_TRADE), .nchannels = 1, .channels = &ch2};
	struct toe_sub s2 = {.nsecurities = 2, .securities = secs, .capacity = 4096};
	struct toe_sub s3 = {.types = TOE_TYPE_BIT(TOE_REC_GAP), .capacity = 1024};
	struct toe_sub s4 = {.start = TOE_START_LAST, .start_arg = 5};
	struct toe_client *c1 = client(&s1), *c2 = client(&s2), *c3 = client(&s3), *c4 = client(&s4);
	if (!c1 || !c2 || !c3 || !c4)
		goto out;
	enum { FIRST = 100, N = 3000 };
	CHECK_EQ(th_publish(&p, FIRST, N), 0);
	static union toe_record buf[N + 100];
	uint32_t want = count(FIRST, FIRST + N, w_trade_ch2);
	uint32_t got = th_read_n(c1, buf, want, 3000);
	CHECK_EQ(got, want);
	CHECK(check_stream(buf, got, FIRST, FIRST + N, w_trade_ch2, 1));
	want = count(FIRST, FIRST + N, w_sec35);
	got = th_read_n(c2, buf, want, 3000);
	CHECK_EQ(got, want);
	CHECK(check_stream(buf, got, FIRST, FIRST + N, w_sec35, 1));
	want = count(FIRST, FIRST + N, w_gap);
	got = th_read_n(c3, buf, want, 3000);
	CHECK_EQ(got, want);
	CHECK(check_stream(buf, got, FIRST, FIRST + N, w_gap, 1));
	/* c4: the 5 newest history records (15..19), then everything live */
	got = th_read_n(c4, buf, 5 + N, 3000);
	CHECK_EQ(got, 5 + N);
	CHECK(check_stream(buf, 5, 15, 20, w_all, 1));
	CHECK(check_stream(buf + 5, got - 5, FIRST, FIRST + N, w_all, 6));
	/* nothing more for anyone */
	CHECK_EQ(toe_read(c1, buf, 1, NULL), -EAGAIN);
	CHECK_EQ(toe_wait(c3, 0), -EAGAIN);

	struct toe_stats st1, st4;
	toe_stats(c1, &st1);
	toe_stats(c4, &st4);
	CHECK_EQ(st1.received, count(FIRST, FIRST + N, w_trade_ch2));
	CHECK_EQ(st1.skipped, 0);
	CHECK_EQ(st1.dropped, 0);
	CHECK_EQ(st1.capacity, TOE_SHM_DEFAULT_CAPACITY);
	CHECK(st1.epoch != 0);
	CHECK_EQ(st4.epoch, st1.epoch);
	CHECK(st1.client_id != st4.client_id);

	/* change c1's filter on the same ring: now channel 3 orders; seq continues */
	int32_t ch3 = 3;
	struct toe_sub s1b = {.types = TOE_TYPE_BIT(TOE_REC_ORDER), .nchannels = 1, .channels = &ch3};
	CHECK_EQ(toe_subscribe(c1, &s1b), 0);
	CHECK_EQ(th_publish(&p, 0, 40), 0);
	got = th_read_n(c1, buf, 3, 2000); /* orders on channel 3 in 0..39: 6, 18, 30 */
	CHECK_EQ(got, 3);
	CHECK_EQ(buf[0].hdr.msg_seq, 7);
	CHECK_EQ(buf[2].hdr.msg_seq, 31);
	CHECK_EQ(buf[0].hdr.seq, st1.received + 1);

	/* a filter the daemon refuses leaves the old one in place */
	struct toe_sub bad = {.capacity = 4096, .types = 1u << 20};
	CHECK_EQ(toe_subscribe(c1, &bad), -EINVAL);
	CHECK(strlen(toe_last_error(c1)) > 0);
	const char *toolong[] = {"12345678901234567"};
	struct toe_sub bad2 = {.nsecurities = 1, .securities = toolong};
	CHECK_EQ(toe_subscribe(c1, &bad2), -EINVAL);
	CHECK_EQ(th_publish(&p, 0, 40), 0);
	CHECK_EQ(th_read_n(c1, buf, 3, 2000), 3);
out:
	toe_close(c1);
	toe_close(c2);
	toe_close(c3);
	toe_close(c4);
	th_quit(&p);
}

static void test_slow_client(void)
{
	struct th_prod p;
	struct pub_config pc = {.no_hugepages = 1};
	struct th_ack a0, a1;
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	struct toe_sub sa = {.capacity = 64}, sb = {.capacity = 32768};
	struct toe_client *b = client(&sb);
	enum { N = 20000 };
	static union toe_record buf[N];
	/* reference: the same publish with only the reader */
	CHECK_EQ(th_cmd(&p, TH_PUBLISH, N, 0, 64, &a0), 0);
	CHECK_EQ(th_read_n(b, buf, N, 5000), N);
	struct toe_client *a = client(&sa);
	if (!a || !b)
		goto out;
	/* A never reads: the producer still finishes at once, B loses nothing */
	CHECK_EQ(th_cmd(&p, TH_PUBLISH, N, 0, 64, &a1), 0);
	printf("test_client_shm: publishing %d records: %.2f ms with a reader, %.2f ms with a reader and a stalled client\n",
	       N, a0.ns / 1e6, a1.ns / 1e6);
	uint32_t got = th_read_n(b, buf, N, 5000);
	CHECK_EQ(got, N);
	int ok = 1;
	for (uint32_t k = 0; k < got; k++)
		ok &= buf[k].hdr.seq == N + 1 + k && buf[k].hdr.msg_seq == k + 1;
	CHECK(ok);
	struct toe_stats st;
	toe_stats(b, &st);
	CHECK_EQ(st.skipped, 0);
	CHECK_EQ(st.dropped, 0);
	CHECK_EQ(a1.ps.dropped, N - 64);

	toe_stats(a, &st);
	CHECK_EQ(st.dropped, N - 64); /* visible before reading anything */
	CHECK_EQ(st.backlog, 64);
	uint64_t sk = 99;
	CHECK_EQ(toe_read(a, buf, N, &sk), 64);
	CHECK_EQ(sk, 0);
	CHECK_EQ(buf[0].hdr.seq, 1);
	CHECK_EQ(buf[63].hdr.seq, 64);
	CHECK_EQ(buf[63].hdr.msg_seq, 64);
	CHECK_EQ(th_publish(&p, 777, 1), 0);
	CHECK_EQ(th_read_n(b, buf, 1, 2000), 1);
	CHECK_EQ(toe_wait(a, 2000000000ll), 1);
	CHECK_EQ(toe_read(a, buf, N, &sk), 1);
	CHECK_EQ(buf[0].hdr.seq, N + 1);
	CHECK_EQ(buf[0].hdr.msg_seq, 778);
	CHECK_EQ(sk, N - 64); /* the read says how many were skipped */
	toe_stats(a, &st);
	CHECK_EQ(st.skipped, N - 64);
	CHECK_EQ(st.received, 65);
	/* the zero-copy path reports the same */
	CHECK_EQ(th_publish(&p, 0, 200), 0);
	const union toe_record *pr;
	uint32_t total = 0;
	uint64_t sk_total = 0;
	int n;
	while ((n = toe_peek(a, &pr, 0, &sk)) > 0) {
		if (total == 0)
			CHECK_EQ(pr[0].hdr.seq, N + 2);
		total += (uint32_t)n;
		sk_total += sk;
		toe_release(a, (unsigned)n);
	}
	CHECK_EQ(n, -EAGAIN);
	CHECK_EQ(total, 64);
	CHECK_EQ(sk_total, 0);
	CHECK_EQ(th_publish(&p, 0, 1), 0);
	CHECK_EQ(toe_wait(a, 2000000000ll), 1);
	CHECK_EQ(toe_peek(a, &pr, 0, &sk), 1);
	CHECK_EQ(sk, 200 - 64);
	CHECK_EQ(pr[0].hdr.seq, N + 2 + 200);
	toe_release(a, 1);
	toe_stats(a, &st);
	CHECK_EQ(st.skipped, N - 64 + 200 - 64);
	CHECK_EQ(st.received, 65 + 64 + 1);
out:
	toe_close(a);
	toe_close(b);
	th_quit(&p);
}

static void test_killed_client(void)
{
	struct th_prod p;
	struct pub_config pc = {.no_hugepages = 1};
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	struct toe_sub s = {.capacity = 256};
	struct toe_client *survivor = client(&s);
	int rp[2];
	CHECK_EQ(pipe(rp), 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct toe_client *c;
		if (toe_connect(&c, path, NULL) < 0 || toe_subscribe(c, &s) < 0)
			_exit(2);
		(void)!write(rp[1], "R", 1);
		union toe_record r[16];
		for (;;) { /* read slowly until killed */
			if (toe_read(c, r, 16, NULL) == -EAGAIN)
				toe_wait(c, 1000000);
			usleep(100);
		}
	}
	char ch = 0;
	struct pollfd pf = {.fd = rp[0], .events = POLLIN};
	CHECK(poll(&pf, 1, 5000) == 1 && read(rp[0], &ch, 1) == 1 && ch == 'R');
	struct th_ack a;
	CHECK_EQ(th_stats(&p, &a), 0);
	CHECK_EQ(a.ps.clients, 2);
	union toe_record buf[1000];
	for (int k = 0; k < 5; k++) { /* keep it busy reading */
		CHECK_EQ(th_publish(&p, (uint64_t)k * 200, 200), 0);
		CHECK_EQ(th_read_n(survivor, buf, 200, 2000), 200);
	}
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st));
	/* the hang-up is noticed and the ring reclaimed */
	uint64_t end = th_now() + 3000000000ull;
	do {
		CHECK_EQ(th_stats(&p, &a), 0);
	} while ((a.ps.clients != 1 || a.ps.rings_reclaimed != 1) && th_now() < end);
	CHECK_EQ(a.ps.clients, 1);
	CHECK_EQ(a.ps.rings_reclaimed, 1);
	CHECK_EQ(a.cs.hangups, 1);
	CHECK_EQ(a.cs.connections, 1);
	/* the others carry on */
	CHECK_EQ(th_publish(&p, 5000, 10), 0);
	CHECK_EQ(th_read_n(survivor, buf, 10, 2000), 10);
	CHECK_EQ(buf[9].hdr.msg_seq, 5010);
	close(rp[0]);
	close(rp[1]);
	toe_close(survivor);
	th_quit(&p);
}

/* Subscribe by hand to get the descriptors the library would map. */
static int raw_subscribe(int fds[3], uint64_t *data_size)
{
	int s = th_connect(path, 0);
	if (s < 0)
		return -1;
	struct toe_ctl_subscribe m;
	memset(&m, 0, sizeof(m));
	toe_ctl_hdr_init(&m.hdr, TOE_CTL_SUBSCRIBE, sizeof(m), 42);
	m.capacity = 64;
	if (write(s, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return -1;
	struct toe_ctl_subscribed r;
	union {
		char b[CMSG_SPACE(sizeof(int) * 3)];
		struct cmsghdr a;
	} cm;
	struct iovec iov = {.iov_base = &r, .iov_len = sizeof(r)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof(cm.b)};
	if (recvmsg(s, &mh, MSG_WAITALL) != (ssize_t)sizeof(r) || r.hdr.type != TOE_CTL_SUBSCRIBED || r.hdr.id != 42)
		return -1;
	struct cmsghdr *ch = CMSG_FIRSTHDR(&mh);
	if (!ch || ch->cmsg_type != SCM_RIGHTS || ch->cmsg_len != CMSG_LEN(sizeof(int) * 3))
		return -1;
	memcpy(fds, CMSG_DATA(ch), sizeof(int) * 3);
	*data_size = r.data_size;
	return s;
}

static void test_readonly(void)
{
	struct th_prod p;
	CHECK_EQ(th_start(&p, path, NULL, NULL), 0);
	int fds[3];
	uint64_t size = 0;
	int s = raw_subscribe(fds, &size);
	CHECK(s >= 0);
	if (s >= 0) {
		void *w = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
		CHECK(w == MAP_FAILED);
		CHECK_EQ(errno, EPERM);
		const struct toe_shm_region *reg = mmap(NULL, size, PROT_READ, MAP_SHARED, fds[0], 0);
		CHECK(reg != MAP_FAILED);
		CHECK_EQ(mprotect((void *)reg, size, PROT_READ | PROT_WRITE), -1);
		CHECK_EQ(reg->magic, TOE_SHM_MAGIC);
		char b = 0;
		CHECK_EQ(pwrite(fds[0], &b, 1, 0), -1);
		CHECK_EQ(ftruncate(fds[0], 4096), -1);
		/* the consumer page is the client's to write, but not to resize */
		struct toe_shm_consumer *cons = mmap(NULL, TOE_SHM_CONS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
		CHECK(cons != MAP_FAILED);
		CHECK_EQ(ftruncate(fds[1], 0), -1);
		/* the ring works through these mappings */
		CHECK_EQ(th_publish(&p, 0, 3), 0);
		CHECK_EQ(__atomic_load_n(&reg->head, __ATOMIC_ACQUIRE), 3);
		const union toe_record *recs = (const void *)((const char *)reg + reg->ring_offset);
		CHECK_EQ(recs[2].hdr.msg_seq, 3);
		munmap((void *)reg, size);
		munmap(cons, TOE_SHM_CONS_SIZE);
		for (int k = 0; k < 3; k++)
			close(fds[k]);
		close(s);
	}
	th_quit(&p);
}

struct delayed {
	struct th_prod *p;
	int ms;
};

static void *publish_later(void *arg)
{
	struct delayed *d = arg;
	usleep((useconds_t)d->ms * 1000);
	th_publish(d->p, 0, 1);
	return NULL;
}

struct paced {
	struct th_prod *p;
	int count, us;
};

static void *publish_paced(void *arg)
{
	struct paced *d = arg;
	for (int i = 0; i < d->count; i++) {
		usleep((useconds_t)d->us);
		th_publish(d->p, (uint64_t)i, 1);
	}
	return NULL;
}

/* The default (adaptive) wait: a paced feed, every record found, at most one sleep per wait. */
static void test_adaptive_wait(void)
{
	struct th_prod p;
	struct pub_config pc = {.no_hugepages = 1};
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	struct toe_client *c;
	struct toe_opts o = {.name = "adaptive"};
	CHECK_EQ(toe_connect(&c, path, &o), 0);
	struct toe_sub s = {0};
	CHECK_EQ(toe_subscribe(c, &s), 0);
	struct paced d = {&p, 200, 500};
	pthread_t t;
	pthread_create(&t, NULL, publish_paced, &d);
	int got = 0, waits = 0;
	union toe_record r[8];
	while (got < d.count) {
		int n = toe_wait(c, 2000000000ll);
		if (n <= 0)
			break;
		waits++;
		int k = toe_read(c, r, 8, NULL);
		CHECK(k >= 1);
		got += k > 0 ? k : 0;
	}
	pthread_join(t, NULL);
	CHECK_EQ(got, d.count);
	struct toe_stats st;
	toe_stats(c, &st);
	CHECK_EQ(st.received, (uint64_t)d.count);
	CHECK(st.sleeps <= (uint64_t)waits);
	toe_close(c);
	th_quit(&p);
}

static void test_wait_and_epoll(void)
{
	struct th_prod p;
	struct pub_config pc = {.no_hugepages = 1};
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	struct toe_opts o = {.spin_ns = -1, .name = "waiter"};
	struct toe_client *c;
	CHECK_EQ(toe_connect(&c, path, &o), 0);
	struct toe_sub s = {0};
	CHECK_EQ(toe_subscribe(c, &s), 0);
	/* futex wait: sleeps, woken by the producer */
	pthread_t t;
	struct delayed d = {&p, 150};
	pthread_create(&t, NULL, publish_later, &d);
	uint64_t t0 = th_now();
	int n = toe_wait(c, 3000000000ll);
	uint64_t dt = th_now() - t0;
	pthread_join(t, NULL);
	CHECK_EQ(n, 1);
	CHECK(dt >= 100000000ull && dt < 2000000000ull);
	struct toe_stats st;
	toe_stats(c, &st);
	/* 150 ms in futex slices is several futex sleeps, but one toe_wait that slept (toeclient.3) */
	CHECK_EQ(st.sleeps, 1);
	union toe_record r[8];
	CHECK_EQ(toe_read(c, r, 8, NULL), 1);
	/* a timeout says "nothing yet" */
	t0 = th_now();
	CHECK_EQ(toe_wait(c, 80000000ll), -EAGAIN);
	CHECK(th_now() - t0 >= 80000000ull);
	toe_stats(c, &st);
	CHECK_EQ(st.sleeps, 2); /* a wait that timed out asleep counts too */
	CHECK_EQ(toe_wait(c, 0), -EAGAIN); /* only a check: no sleep */
	toe_stats(c, &st);
	CHECK_EQ(st.sleeps, 2);

	/* epoll: armed -> readable when records arrive */
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN};
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, toe_fd(c), &ev), 0);
	CHECK_EQ(toe_arm(c), 0);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 50), 0);
	CHECK_EQ(th_publish(&p, 0, 3), 0);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 2000), 1);
	CHECK_EQ(toe_read(c, r, 8, NULL), 3);
	CHECK_EQ(toe_arm(c), 0);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 50), 0); /* the eventfd was drained by toe_arm */
	CHECK_EQ(th_publish(&p, 0, 2), 0);
	CHECK_EQ(toe_arm(c), 2); /* already there: do not sleep */
	CHECK_EQ(toe_read(c, r, 8, NULL), 2);
	CHECK_EQ(toe_arm(c), 0);
	/* the daemon dies: the fd becomes readable and toe_arm says why */
	th_kill(&p);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 2000), 1);
	CHECK_EQ(toe_arm(c), -ENOTCONN);
	CHECK_EQ(toe_read(c, r, 8, NULL), -ENOTCONN);
	close(ep);
	toe_close(c);
}

/* The client runs in a child and reports progress through a pipe. */
static int expect_byte(int fd, char want, int ms)
{
	char ch = 0;
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	if (poll(&pf, 1, ms) != 1 || read(fd, &ch, 1) != 1)
		return 0;
	if (ch != want)
		fprintf(stderr, "client reported '%c', expected '%c'\n", ch, want);
	return ch == want;
}

static void restart_client(int out)
{
	struct toe_client *c;
	union toe_record r[4];
	struct toe_stats st;
	if (toe_connect(&c, path, NULL) < 0 || toe_subscribe(c, &(struct toe_sub){0}) < 0)
		_exit(2);
	toe_stats(c, &st);
	uint64_t epoch_a = st.epoch;
	(void)!write(out, "R", 1);
	if (th_read_n(c, r, 1, 3000) != 1 || r[0].hdr.msg_seq != 1)
		_exit(3);
	/* producer A is replaced by B while we wait */
	int e = toe_wait(c, 5000000000ll);
	if (e != -ESTALE) {
		fprintf(stderr, "restart_client: wait -> %d, expected -ESTALE\n", e);
		_exit(4);
	}
	if (toe_read(c, r, 4, NULL) != -ESTALE || toe_check(c) != -ESTALE)
		_exit(5);
	if (toe_reconnect(c) != 0)
		_exit(6);
	toe_stats(c, &st);
	if (st.epoch == epoch_a || st.epoch == 0 || st.reconnects != 1)
		_exit(7);
	(void)!write(out, "C", 1);
	if (th_read_n(c, r, 1, 3000) != 1 || r[0].hdr.msg_seq != 51 || r[0].hdr.seq != 1)
		_exit(8); /* a new ring: seq starts again */
	/* B crashes, nobody replaces it */
	e = toe_wait(c, 5000000000ll);
	if (e != -ENOTCONN) {
		fprintf(stderr, "restart_client: wait -> %d, expected -ENOTCONN\n", e);
		_exit(9);
	}
	if (toe_reconnect(c) >= 0)
		_exit(10);
	if (toe_read(c, r, 4, NULL) != -ENOTCONN)
		_exit(11);
	(void)!write(out, "N", 1);
	/* keep trying until producer C appears */
	uint64_t end = th_now() + 5000000000ull;
	while (toe_reconnect(c) < 0 && th_now() < end)
		usleep(20000);
	if (th_now() >= end)
		_exit(12);
	(void)!write(out, "D", 1);
	/* C stops cleanly: the closed ring is seen at once, not after a heartbeat timeout */
	uint64_t t0 = th_now();
	e = toe_wait(c, 5000000000ll);
	if (e != -ENOTCONN || th_now() - t0 > 1500000000ull) {
		fprintf(stderr, "restart_client: wait -> %d after %.0f ms, expected -ENOTCONN\n", e, (th_now() - t0) / 1e6);
		_exit(13);
	}
	toe_close(c);
	_exit(0);
}

static void test_restart(void)
{
	struct th_prod a, b, c;
	struct pub_config pc = {.no_hugepages = 1};
	int rp[2];
	CHECK_EQ(pipe(rp), 0);
	CHECK_EQ(th_start(&a, path, &pc, NULL), 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(rp[0]);
		restart_client(rp[1]);
	}
	close(rp[1]);
	CHECK(expect_byte(rp[0], 'R', 5000));
	CHECK_EQ(th_publish(&a, 0, 1), 0);
	usleep(100000); /* the client is now waiting */
	CHECK_EQ(th_start(&b, path, &pc, NULL), 0); /* takes the socket path over */
	th_kill(&a);
	CHECK(expect_byte(rp[0], 'C', 5000));
	CHECK_EQ(th_publish(&b, 50, 1), 0);
	usleep(100000);
	th_kill(&b);
	CHECK(expect_byte(rp[0], 'N', 5000));
	usleep(50000);
	CHECK_EQ(th_start(&c, path, &pc, NULL), 0);
	CHECK(expect_byte(rp[0], 'D', 5000));
	usleep(100000);
	th_quit(&c);
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	close(rp[0]);
}

static void test_heartbeat(void)
{
	struct th_prod p;
	struct pub_config pc = {.no_hugepages = 1, .heartbeat_period_ns = 20000000};
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	struct toe_opts o = {.heartbeat_timeout_ns = 300000000};
	struct toe_client *c;
	CHECK_EQ(toe_connect(&c, path, &o), 0);
	CHECK_EQ(toe_subscribe(c, &(struct toe_sub){0}), 0);
	CHECK_EQ(toe_wait(c, 500000000ll), -EAGAIN); /* alive and beating: a plain timeout */
	kill(p.pid, SIGSTOP); /* hung: socket open, no heartbeat, no answers */
	uint64_t t0 = th_now();
	int e = toe_wait(c, 5000000000ll);
	uint64_t dt = th_now() - t0;
	CHECK_EQ(e, -ENOTCONN);
	CHECK(dt >= 250000000ull && dt < 2500000000ull);
	kill(p.pid, SIGCONT);
	CHECK_EQ(toe_reconnect(c), 0);
	CHECK_EQ(th_publish(&p, 0, 2), 0);
	union toe_record r[2];
	CHECK_EQ(th_read_n(c, r, 2, 2000), 2);
	toe_close(c);
	th_quit(&p);
}

int main(void)
{
	th_tmpdir(dir, sizeof(dir));
	if (!dir[0])
		return test_skip("test_client_shm", "cannot create a temporary folder");
	snprintf(path, sizeof(path), "%s/toed.sock", dir);
	test_filters();
	test_slow_client();
	test_killed_client();
	test_readonly();
	test_wait_and_epoll();
	test_adaptive_wait();
	test_restart();
	test_heartbeat();
	th_rmdir(dir);
	return test_done("test_client_shm");
}
