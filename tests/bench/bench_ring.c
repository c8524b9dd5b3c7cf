/* bench_ring.c - producer -> consumer latency and throughput of the shared-memory rings, against a Unix socket.
 *
 * Two processes, one per CPU: the child (CPU 0) runs a publisher and control
 * server on socket A, the parent (CPU 1) one on socket B; each subscribes to
 * the other with libtoeclient, so every record goes through pub_publish() and
 * the library exactly as in the daemon. The parent drives the phases by
 * publishing command records on B; the child reports the end of a phase over
 * a socketpair (which also carries the Unix-socket phases' data).
 *
 *   pingpong   parent publishes, child echoes, parent measures round trip / 2
 *   shm 1-way  child publishes TSC-stamped records every 5 us, parent busy-polls
 *   unix 1-way the same records over a Unix stream socket, busy-polled recv
 *   futex      shm, paced at 50 us, parent sleeps in toe_wait (no spin)
 *   blocking   Unix socket, paced at 50 us, blocking recv
 *   throughput child publishes batches of 256 for 1 s, parent drains zero-copy:
 *              flooding (drops allowed), then lossless (producer waits for space)
 *
 * Machine notes (../shared/design.md): 2 shared CPUs, a hypervisor that stalls
 * now and then; trust p50/p90 and the ratios, treat p99.9/max as noise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "ctl/ctl_server.h"
#include "dp/dp_pub.h"
#include "dp/dp_shm.h"
#include "toe/toeclient.h"
#include "feed/feed_lat.h"

enum {
	PH_ONEWAY = 1,
	PH_THROUGHPUT = 2,
	PH_UNIX_BUSY = 3,
	PH_UNIX_BLOCK = 4,
	PH_FUTEX = 5,
	PH_THROUGHPUT_NODROP = 6,
	PH_EXIT = 9,
	PING_N = 100000,
	ONEWAY_N = 100000,
	SLOW_N = 10000,
	THRU_BATCH = 256,
};

static double tsc_per_ns = 1.0;
static uint64_t negative; /* one-way samples where the receiver's TSC was behind the sender's */

/* Receive time minus send stamp, in cycles; CPUs whose TSCs disagree can make it negative. */
static inline uint64_t delta(uint64_t now, uint64_t stamp)
{
	if (now < stamp) {
		negative++;
		return 0;
	}
	return now - stamp;
}

static inline uint64_t tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	_mm_pause();
#endif
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void calibrate(void)
{
	uint64_t n0 = mono_ns(), t0 = tsc();
	while (mono_ns() - n0 < 100000000ull)
		;
	uint64_t n1 = mono_ns(), t1 = tsc();
	tsc_per_ns = (double)(t1 - t0) / (double)(n1 - n0);
}

static int pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

static void die(const char *what, int e)
{
	fprintf(stderr, "bench_ring: %s: %s\n", what, strerror(e < 0 ? -e : e));
	exit(1);
}

/* Serve a control server until it has `want` subscribed clients. */
static void serve_until(struct ctl_server *srv, struct pub *pub, uint32_t want)
{
	struct pub_stats ps;
	uint64_t end = mono_ns() + 10000000000ull;
	do {
		ctl_server_poll(srv, 1);
		pub_tick(pub, mono_ns());
		pub_get_stats(pub, &ps);
	} while (ps.clients < want && mono_ns() < end);
	if (ps.clients < want)
		die("peer did not subscribe", ETIMEDOUT);
}

static struct toe_client *subscribe(const char *path, uint32_t cap)
{
	struct toe_client *c = NULL;
	/* no heartbeat check: the phases do not stop to beat */
	struct toe_opts o = {.spin_ns = -1, .name = "bench", .heartbeat_timeout_ns = -1};
	int e = -ENOENT;
	for (int i = 0; i < 2000 && e < 0; i++) {
		e = toe_connect(&c, path, &o);
		if (e < 0)
			usleep(1000);
	}
	if (e < 0)
		die("connect", e);
	e = toe_subscribe(c, &(struct toe_sub){.capacity = cap});
	if (e < 0)
		die("subscribe", e);
	return c;
}

static void cmd(struct pub *pub, uint32_t type, uint64_t v)
{
	union toe_record r;
	memset(&r, 0, sizeof(r));
	r.hdr.type = (uint16_t)type;
	r.hdr.msg_seq = v;
	pub_publish(pub, &r, 1);
}

static int read_one(struct toe_client *c, union toe_record *r)
{
	int n;
	while ((n = toe_read(c, r, 1, NULL)) == -EAGAIN)
		relax();
	return n;
}

/* ---- child: CPU 0 ---------------------------------------------------------- */

static void paced_shm(struct pub *pub, uint32_t n, uint64_t interval_ns)
{
	union toe_record r;
	memset(&r, 0, sizeof(r));
	r.hdr.type = TOE_REC_TRADE;
	uint64_t step = (uint64_t)(interval_ns * tsc_per_ns), next = tsc() + step;
	for (uint32_t i = 0; i < n; i++) {
		while (tsc() < next)
			relax();
		next += step;
		r.hdr.msg_seq = i;
		r.trade.trade_qty = (int64_t)tsc();
		pub_publish(pub, &r, 1);
	}
}

static void paced_unix(int sock, uint32_t n, uint64_t interval_ns)
{
	union toe_record r;
	memset(&r, 0, sizeof(r));
	r.hdr.type = TOE_REC_TRADE;
	uint64_t step = (uint64_t)(interval_ns * tsc_per_ns), next = tsc() + step;
	for (uint32_t i = 0; i < n; i++) {
		while (tsc() < next)
			relax();
		next += step;
		r.hdr.msg_seq = i;
		r.trade.trade_qty = (int64_t)tsc();
		if (send(sock, &r, sizeof(r), MSG_NOSIGNAL) != (ssize_t)sizeof(r))
			die("send", errno);
	}
}

static void done(int sock, uint64_t a, uint64_t b)
{
	union toe_record r;
	memset(&r, 0, sizeof(r));
	r.hdr.type = TOE_REC_RESET;
	r.gap.offset = a;
	r.gap.length = b;
	if (send(sock, &r, sizeof(r), MSG_NOSIGNAL) != (ssize_t)sizeof(r))
		die("send", errno);
}

static void child(const char *path_a, const char *path_b, int sock)
{
	if (pin(0) < 0)
		fprintf(stderr, "bench_ring: cannot pin the producer to CPU 0\n");
	struct pub_config pc = {.max_capacity = 1u << 16};
	int e;
	struct pub *pub = pub_create(&pc, &e);
	if (!pub)
		die("pub_create", e);
	struct ctl_config cc = {.path = path_a, .allow_gid = -1};
	struct ctl_server *srv = ctl_server_open(&cc, pub, &e);
	if (!srv)
		die("ctl_server_open", e);
	struct toe_client *cb = subscribe(path_b, 1024);
	serve_until(srv, pub, 1);
	static union toe_record batch[THRU_BATCH];
	for (int k = 0; k < THRU_BATCH; k++) {
		batch[k].hdr.type = TOE_REC_TRADE;
		batch[k].hdr.msg_seq = (uint64_t)k;
	}
	for (;;) {
		union toe_record r;
		if (read_one(cb, &r) < 0)
			die("read", EIO);
		if (r.hdr.type == TOE_REC_TRADE) { /* ping */
			pub_publish(pub, &r, 1);
			continue;
		}
		switch (r.hdr.msg_seq) {
		case PH_ONEWAY:
			paced_shm(pub, ONEWAY_N, 5000);
			done(sock, ONEWAY_N, 0);
			break;
		case PH_FUTEX:
			paced_shm(pub, SLOW_N, 50000);
			done(sock, SLOW_N, 0);
			break;
		case PH_UNIX_BUSY:
			paced_unix(sock, ONEWAY_N, 5000);
			done(sock, ONEWAY_N, 0);
			break;
		case PH_UNIX_BLOCK:
			paced_unix(sock, SLOW_N, 50000);
			done(sock, SLOW_N, 0);
			break;
		case PH_THROUGHPUT:
		case PH_THROUGHPUT_NODROP: {
			/* the only subscriber of this producer is the parent: client id 1 */
			struct pub_client *pcl = pub_client_find(pub, 1);
			int wait_space = r.hdr.msg_seq == PH_THROUGHPUT_NODROP;
			uint64_t t0 = mono_ns(), n = 0, now;
			do {
				for (int k = 0; k < 64; k++) {
					if (wait_space)
						while (pub_client_space(pcl) < THRU_BATCH)
							relax();
					pub_publish(pub, batch, THRU_BATCH);
					n += THRU_BATCH;
				}
				now = mono_ns();
			} while (now - t0 < 1000000000ull);
			done(sock, n, now - t0);
			break;
		}
		case PH_EXIT:
			toe_close(cb);
			ctl_server_close(srv);
			pub_destroy(pub);
			_exit(0);
		}
		pub_tick(pub, mono_ns());
	}
}

/* ---- parent: CPU 1 --------------------------------------------------------- */

struct dist {
	uint64_t n, min, p50, p90, p99, p999, max;
};

/* samples in TSC cycles (or ns when cycles == 0) -> percentiles in ns, by
 * the project's one percentile rule (feed_lat.h) */
static struct dist summarize(uint64_t *s, uint64_t n, int cycles)
{
	struct dist d = {.n = n};
	struct feed_lat_summary fl;
	int64_t *ns = (int64_t *)s; /* converted in place */
	double k = cycles ? 1.0 / tsc_per_ns : 1.0;
	for (uint64_t i = 0; i < n; i++)
		ns[i] = (int64_t)((double)s[i] * k + 0.5);
	feed_lat_summarize(ns, n, &fl);
	d.min = (uint64_t)fl.min;
	d.p50 = (uint64_t)fl.p50;
	d.p90 = (uint64_t)fl.p90;
	d.p99 = (uint64_t)fl.p99;
	d.p999 = (uint64_t)fl.p999;
	d.max = (uint64_t)fl.max;
	return d;
}

static void report(const char *name, const char *what, struct dist d)
{
	printf("%-16s %-44s n=%-7llu min %6llu  p50 %6llu  p90 %6llu  p99 %7llu  p99.9 %7llu  max %8llu ns\n", name,
	       what, (unsigned long long)d.n, (unsigned long long)d.min, (unsigned long long)d.p50,
	       (unsigned long long)d.p90, (unsigned long long)d.p99, (unsigned long long)d.p999,
	       (unsigned long long)d.max);
	printf("RESULT {\"bench\":\"ring\",\"name\":\"%s\",\"unit\":\"ns\",\"n\":%llu,\"min\":%llu,\"p50\":%llu,"
	       "\"p90\":%llu,\"p99\":%llu,\"p999\":%llu,\"max\":%llu}\n",
	       name, (unsigned long long)d.n, (unsigned long long)d.min, (unsigned long long)d.p50,
	       (unsigned long long)d.p90, (unsigned long long)d.p99, (unsigned long long)d.p999,
	       (unsigned long long)d.max);
}

static int recv_rec(int sock, union toe_record *r, int flags)
{
	ssize_t n = recv(sock, r, sizeof(*r), flags | MSG_WAITALL);
	if (n == (ssize_t)sizeof(*r))
		return 1;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n > 0) { /* partial record in non-blocking mode: finish it */
		ssize_t m = recv(sock, (char *)r + n, sizeof(*r) - (size_t)n, MSG_WAITALL);
		if (m == (ssize_t)sizeof(*r) - n)
			return 1;
	}
	die("recv", n < 0 ? errno : EPIPE);
	return -1;
}

/* Shared-memory one-way: busy-poll (wait = 0) or futex sleep (wait = 1). */
static struct dist oneway_shm(struct pub *pub, struct toe_client *ca, int sock, uint32_t n, int wait, uint64_t *samples)
{
	cmd(pub, TOE_REC_RESET, wait ? PH_FUTEX : PH_ONEWAY);
	uint64_t got = 0, next_check = 0;
	union toe_record recs[32], end;
	int ended = 0;
	for (;;) {
		int k = toe_read(ca, recs, 32, NULL);
		if (k > 0) {
			uint64_t now = tsc();
			for (int i = 0; i < k; i++)
				if (got < n)
					samples[got++] = delta(now, (uint64_t)recs[i].trade.trade_qty);
			continue;
		}
		if (got >= n || ended)
			break;
		uint64_t now = tsc();
		if (!wait && now < next_check)
			continue; /* busy-poll: look at the control socket only every ~100 us */
		next_check = now + (uint64_t)(100000 * tsc_per_ns);
		if (recv_rec(sock, &end, MSG_DONTWAIT) == 1)
			ended = 1; /* the producer is done: one more pass drains the ring */
		else if (wait)
			toe_wait(ca, 200000000ll);
	}
	if (!ended)
		recv_rec(sock, &end, 0);
	return summarize(samples, got, 1);
}

static struct dist oneway_unix(struct pub *pub, int sock, uint32_t n, int blocking, uint64_t *samples)
{
	cmd(pub, TOE_REC_RESET, blocking ? PH_UNIX_BLOCK : PH_UNIX_BUSY);
	uint64_t got = 0;
	union toe_record r;
	for (;;) {
		int k = recv_rec(sock, &r, blocking ? 0 : MSG_DONTWAIT);
		if (k == 0) {
			relax();
			continue;
		}
		uint64_t now = tsc();
		if (r.hdr.type == TOE_REC_RESET)
			break;
		if (got < n)
			samples[got++] = delta(now, (uint64_t)r.trade.trade_qty);
	}
	return summarize(samples, got, 1);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	calibrate();
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char dir[] = "/tmp/toe-bench-XXXXXX";
	if (!mkdtemp(dir))
		die("mkdtemp", errno);
	char path_a[64], path_b[64];
	snprintf(path_a, sizeof(path_a), "%s/a.sock", dir);
	snprintf(path_b, sizeof(path_b), "%s/b.sock", dir);
	/* measure the configuration the daemon aims for: rings in huge pages (as root; restored at exit) */
	unsigned long huge_was = shm_hugepages_reserved(), huge_now = huge_was;
	int huge_changed = getenv("TOE_BENCH_NO_HUGEPAGES") == NULL && shm_reserve_hugepages(huge_was + 8, &huge_now) == 0 &&
			   huge_now != huge_was;
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		die("socketpair", errno);

	int e;
	struct pub_config pc = {0};
	struct pub *pub = pub_create(&pc, &e);
	if (!pub)
		die("pub_create", e);
	struct ctl_config cc = {.path = path_b, .allow_gid = -1};
	struct ctl_server *srv = ctl_server_open(&cc, pub, &e);
	if (!srv)
		die("ctl_server_open", e);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(sp[0]);
		child(path_a, path_b, sp[1]);
		_exit(0);
	}
	close(sp[1]);
	int sock = sp[0];
	if (pin(ncpu > 1 ? 1 : 0) < 0)
		fprintf(stderr, "bench_ring: cannot pin the consumer to CPU 1\n");
	serve_until(srv, pub, 1);
	struct toe_client *ca = subscribe(path_a, 1u << 16);
	struct toe_stats st;
	toe_stats(ca, &st);
	double load[1] = {0};
	getloadavg(load, 1);
	printf("bench_ring: producer (child) on CPU 0, consumer (parent) on CPU %d of %ld; TSC %.3f GHz; "
	       "rings in %s pages; records %d bytes; load average %.2f (other work on these CPUs inflates every figure)\n",
	       ncpu > 1 ? 1 : 0, ncpu, tsc_per_ns, st.hugetlb ? "2 MB huge" : "4 KB", TOE_RECORD_SIZE, load[0]);

	static uint64_t samples[PING_N > ONEWAY_N ? PING_N : ONEWAY_N];
	union toe_record r;
	memset(&r, 0, sizeof(r));
	r.hdr.type = TOE_REC_TRADE;
	/* ping-pong: round trip / 2 */
	for (uint32_t i = 0; i < 2000 + PING_N; i++) {
		uint64_t t0 = tsc();
		r.hdr.msg_seq = i;
		pub_publish(pub, &r, 1);
		union toe_record back;
		if (read_one(ca, &back) < 0 || back.hdr.msg_seq != i)
			die("pingpong", EPROTO);
		if (i >= 2000)
			samples[i - 2000] = (tsc() - t0) / 2;
	}
	struct dist pp = summarize(samples, PING_N, 1);
	report("shm_pingpong", "shm ping-pong, round trip / 2, busy-poll", pp);

	struct dist shm = oneway_shm(pub, ca, sock, ONEWAY_N, 0, samples);
	report("shm_oneway", "shm one-way (TSC), 1 rec / 5 us, busy-poll", shm);
	struct dist ux = oneway_unix(pub, sock, ONEWAY_N, 0, samples);
	report("unix_oneway", "unix stream one-way, 1 rec / 5 us, busy recv", ux);
	struct dist fx = oneway_shm(pub, ca, sock, SLOW_N, 1, samples);
	report("shm_futex_oneway", "shm one-way, 1 rec / 50 us, toe_wait (futex)", fx);
	struct dist ub = oneway_unix(pub, sock, SLOW_N, 1, samples);
	report("unix_block_oneway", "unix stream one-way, 1 rec / 50 us, blocking", ub);

	/* throughput: flooding (drops allowed), then with the producer waiting for space (lossless) */
	for (int mode = 0; mode < 2; mode++) {
		struct toe_stats s0, s1;
		toe_stats(ca, &s0);
		cmd(pub, TOE_REC_RESET, mode ? PH_THROUGHPUT_NODROP : PH_THROUGHPUT);
		uint64_t got = 0, next_check = 0, sum = 0;
		union toe_record end;
		for (;;) {
			const union toe_record *pr;
			int k = toe_peek(ca, &pr, 0, NULL);
			if (k > 0) {
				/* touch both cache lines of every record, as a strategy would */
				for (int i = 0; i < k; i++)
					sum += pr[i].hdr.seq + (uint64_t)pr[i].trade.trade_price;
				got += (uint64_t)k;
				toe_release(ca, (unsigned)k);
				continue;
			}
			uint64_t now = tsc();
			if (now < next_check)
				continue;
			next_check = now + (uint64_t)(100000 * tsc_per_ns);
			if (recv_rec(sock, &end, MSG_DONTWAIT) == 1)
				break;
		}
		while (toe_read(ca, &r, 1, NULL) > 0)
			got++;
		if (sum == 1) /* keep the loads */
			printf(" ");
		toe_stats(ca, &s1);
		double secs = (double)end.gap.length / 1e9;
		double offered = (double)end.gap.offset / secs, recvd = (double)got / secs;
		uint64_t dropped = s1.dropped - s0.dropped;
		const char *name = mode ? "shm_throughput_lossless" : "shm_throughput_flood";
		printf("%-16s producer %.2f M records/s offered, consumer %.2f M records/s received (%.1f%% dropped), "
		       "%.2f GB/s, batches of %d, ring of %u\n",
		       name, offered / 1e6, recvd / 1e6, 100.0 * (double)dropped / (double)end.gap.offset,
		       recvd * TOE_RECORD_SIZE / 1e9, THRU_BATCH, s1.capacity);
		printf("RESULT {\"bench\":\"ring\",\"name\":\"%s\",\"unit\":\"records/s\",\"offered\":%.0f,"
		       "\"received\":%.0f,\"dropped\":%llu,\"batch\":%d}\n",
		       name, offered, recvd, (unsigned long long)dropped, THRU_BATCH);
	}

	if (negative)
		printf("note             %llu one-way samples had the receiver's TSC behind the sender's (counted as 0)\n",
		       (unsigned long long)negative);
	double r_busy = shm.p50 ? (double)ux.p50 / (double)shm.p50 : 0;
	double r_block = fx.p50 ? (double)ub.p50 / (double)fx.p50 : 0;
	printf("ratio            unix/shm one-way p50: %.1fx busy-polled, %.1fx sleeping (blocking recv vs futex)\n",
	       r_busy, r_block);
	printf("RESULT {\"bench\":\"ring\",\"name\":\"unix_over_shm_oneway_p50\",\"unit\":\"ratio\",\"busy\":%.2f,"
	       "\"sleeping\":%.2f}\n",
	       r_busy, r_block);

	cmd(pub, TOE_REC_RESET, PH_EXIT);
	int wst = 0;
	waitpid(pid, &wst, 0);
	toe_close(ca);
	ctl_server_close(srv);
	pub_destroy(pub);
	close(sock);
	rmdir(dir);
	if (huge_changed) {
		FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");
		if (f) {
			fprintf(f, "%lu\n", huge_was);
			fclose(f);
		}
	}
	return WIFEXITED(wst) && WEXITSTATUS(wst) == 0 ? 0 : 1;
}
