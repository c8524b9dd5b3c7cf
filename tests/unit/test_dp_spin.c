/* test_dp_spin.c - busy polling that yields a shared CPU (daemon/dp/dp_spin.c): the policy from crafted
 * run-queue wait samples (a brief wait per turn on the CPU is no reason to yield), the thread's own counter read for real, a CPU's ticks from a crafted /proc/stat of
 * a large host, the short scheduler slice, a SCHED_FIFO data plane that always spins. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dp/dp_spin.h"
#include "test.h"

#define MS 1000000ull
#define W DP_SPIN_WINDOW_NS

static struct dp_spin fresh(void)
{
	struct dp_spin s;
	memset(&s, 0, sizeof s);
	s.hold_ns = DP_SPIN_HOLD_MIN_NS;
	s.fd = s.stat_fd = -1;
	return s;
}

/* A CPU of its own: windows with little run-queue wait keep the loop spinning. */
static void test_alone(void)
{
	struct dp_spin s = fresh();
	uint64_t t = 1000 * MS, wait = 5 * MS;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, 0, 0), 1);
	for (int i = 1; i <= 50; i++) {
		/* 1 % of each window waiting (a kworker now and then), checked ten times a window */
		for (int k = 1; k <= 10; k++)
			CHECK_EQ(dp_spin_update(&s, t + (uint64_t)i * W - W + (uint64_t)k * W / 10,
						wait + (uint64_t)(i - 1) * W / 100 + (uint64_t)k * W / 1000, 0, 0, 0), 1);
	}
	CHECK_EQ(s.yields, 0);
	CHECK_EQ(s.sleeping, 0);
	CHECK_EQ(s.last_wait_pct, 1);
	/* exactly the threshold still spins */
	t += 50 * W;
	wait += 50 * W / 100;
	CHECK_EQ(dp_spin_update(&s, t + W, wait + W * DP_SPIN_SHARED_PCT / 100, 0, 0, 0), 1);
	CHECK_EQ(s.yields, 0);
}

/* A shared CPU: two windows in a row that waited too long turn spinning off
 * for the hold (one is a burst); the try after it spins one window, and one
 * shared window ends it; failed tries double the hold
 * up to the maximum; a good window resets it. */
static void test_shared(void)
{
	struct dp_spin s = fresh();
	uint64_t t = 1000 * MS, wait = 0;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, 0, 0), 1);
	/* within the window nothing is decided, however much it waited */
	CHECK_EQ(dp_spin_update(&s, t + W / 2, wait + W / 2, 0, 0, 0), 1);
	/* the window ends with 40 % waited: one such window keeps spinning (a burst), the second sleeps */
	wait += W * 40 / 100;
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, 0, 0), 1);
	CHECK_EQ(s.yields, 0);
	wait += W * 40 / 100;
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, 0, 0), 0);
	CHECK_EQ(s.yields, 1);
	CHECK_EQ(s.sleeping, 1);
	CHECK_EQ(s.last_wait_pct, 40);
	/* sleeping for the hold (1 s) */
	CHECK_EQ(dp_spin_update(&s, t + DP_SPIN_HOLD_MIN_NS - 1, wait, 0, 0, 0), 0);
	uint64_t hold = DP_SPIN_HOLD_MIN_NS, tries = 0;
	for (int round = 0; round < 6; round++) {
		t += hold;
		CHECK_EQ(dp_spin_update(&s, t, wait, 0, 0, 0), 1); /* a try */
		CHECK_EQ(s.retries, ++tries);
		wait += W / 2;
		t += W;
		CHECK_EQ(dp_spin_update(&s, t, wait, 0, 0, 0), 0); /* still shared */
		hold = hold * 2 > DP_SPIN_HOLD_MAX_NS ? DP_SPIN_HOLD_MAX_NS : hold * 2;
		CHECK_EQ(dp_spin_update(&s, t + hold - 1, wait, 0, 0, 0), 0);
	}
	CHECK_EQ(hold, DP_SPIN_HOLD_MAX_NS);
	CHECK_EQ(s.yields, 7);
	/* the load went: the next try passes and the hold is back to its minimum */
	t += hold;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, 0, 0), 1);
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait + W / 100, 0, 0, 0), 1);
	CHECK_EQ(s.hold_ns, DP_SPIN_HOLD_MIN_NS);
	CHECK_EQ(s.sleeping, 0);
	/* and a new bout of load (two windows) sleeps for the minimum hold again */
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait + W / 100 + W / 2, 0, 0, 0), 1);
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait + W / 100 + W, 0, 0, 0), 0);
	CHECK_EQ(s.wake_at, t + DP_SPIN_HOLD_MIN_NS);
}

/* The wait per turn on the CPU: 30 % of every window waited in turns of 3 us (a strategy pinned to this
 * CPU, woken by the data plane 1,000 times a window) keeps spinning, window after window; the same 30 % in
 * turns of 1.5 ms (a CPU hog's slices) sleeps after two windows, as without a turn count; exactly at
 * DP_SPIN_BRIEF_WAIT_NS a turn is not brief. */
static void test_brief_turns(void)
{
	struct dp_spin s = fresh();
	uint64_t t = 1000 * MS, wait = 0, turns = 500;
	CHECK_EQ(dp_spin_update(&s, t, wait, turns, 0, 0), 1);
	for (int i = 0; i < 20; i++) {
		wait += W * 30 / 100;
		turns += W * 30 / 100 / 3000; /* 10,000 turns of 3 us */
		t += W;
		CHECK_EQ(dp_spin_update(&s, t, wait, turns, 0, 0), 1);
	}
	CHECK_EQ(s.yields, 0);
	CHECK_EQ(s.last_wait_pct, 30);
	CHECK_EQ(s.last_turn_wait_ns, 3000);
	/* a hog arrives: 30 % in 1.5 ms turns */
	wait += W * 30 / 100;
	turns += W * 30 / 100 / 1500000;
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait, turns, 0, 0), 1);
	wait += W * 30 / 100;
	turns += W * 30 / 100 / 1500000;
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait, turns, 0, 0), 0);
	CHECK_EQ(s.yields, 1);
	CHECK_EQ(s.last_turn_wait_ns, 1500000);
	/* the boundary: a turn of exactly DP_SPIN_BRIEF_WAIT_NS counts as a hog's */
	s = fresh();
	t = 1000 * MS, wait = 0, turns = 1;
	CHECK_EQ(dp_spin_update(&s, t, wait, turns, 0, 0), 1);
	for (int i = 0; i < 2; i++) {
		wait += W * 25 / 100;
		turns += W * 25 / 100 / DP_SPIN_BRIEF_WAIT_NS;
		t += W;
		CHECK_EQ(dp_spin_update(&s, t, wait, turns, 0, 0), i == 0);
	}
	CHECK_EQ(s.yields, 1);
}

/* Sleeping and pinned, idle windows of a CPU 10 % idle (20 ticks each) until the loop tries spinning:
 * not before the hold is over, and in the first idle window after it. */
static void busy_until_try(struct dp_spin *s, uint64_t *t, uint64_t wait, uint64_t turns, uint64_t *idle,
			   uint64_t *total)
{
	const uint64_t IW = DP_SPIN_IDLE_WINDOW_NS, wake = s->wake_at;
	int tried = 0;
	while (!tried) {
		*t += IW;
		*total += 20;
		*idle += 2;
		tried = dp_spin_update(s, *t, wait, turns, *idle, *total);
		CHECK(!tried || *t >= wake);
		CHECK(*t < wake + 2 * IW);
		if (*t >= wake + 2 * IW)
			return;
	}
}

/* Pinned, with a turn count: a CPU that stays busy gets a try after each hold (never before), and a try
 * whose window waited in brief turns spins on; one that met a hog's slices sleeps for twice the hold. */
static void test_pinned_turns(void)
{
	struct dp_spin s = fresh();
	uint64_t t = 1000 * MS, wait = 0, turns = 100, idle = 5000, total = 100000;
	CHECK_EQ(dp_spin_update(&s, t, wait, turns, idle, total), 1);
	for (int i = 0; i < 2; i++) { /* two windows of 50 % in 2 ms turns: a hog */
		wait += W / 2;
		turns += W / 2 / 2000000;
		t += W;
		total += 10;
		CHECK_EQ(dp_spin_update(&s, t, wait, turns, idle, total), i == 0);
	}
	CHECK_EQ(s.yields, 1);
	/* a busy CPU (10 % idle): asleep until the hold is over, then a try */
	busy_until_try(&s, &t, wait, turns, &idle, &total);
	CHECK_EQ(s.retries, 1);
	/* the try meets the hog again: asleep, the hold doubled */
	wait += W / 2;
	turns += W / 2 / 2000000;
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait, turns, idle, total), 0);
	CHECK_EQ(s.yields, 2);
	CHECK_EQ(s.wake_at, t + 2 * DP_SPIN_HOLD_MIN_NS);
	/* the next try finds brief turns only (the hog left, the CPU still busy with wake-ups): it spins on */
	busy_until_try(&s, &t, wait, turns, &idle, &total);
	for (int i = 0; i < 5; i++) {
		wait += W * 30 / 100;
		turns += W * 30 / 100 / 5000; /* 5 us turns */
		t += W;
		CHECK_EQ(dp_spin_update(&s, t, wait, turns, idle, total), 1);
	}
	CHECK_EQ(s.yields, 2);
	CHECK_EQ(s.hold_ns, DP_SPIN_HOLD_MIN_NS);
}

/* Pinned: sleeping, the CPU's idle time decides; without a turn count no blind tries while it stays busy,
 * spinning again once it was idle at least half of a window (and the minimum hold is over). With one,
 * test_pinned_turns. */
static void test_pinned(void)
{
	struct dp_spin s = fresh();
	const uint64_t IW = DP_SPIN_IDLE_WINDOW_NS, TPW = 20; /* ticks per idle window (10 ms ticks) */
	uint64_t t = 1000 * MS, wait = 0, idle = 5000, total = 100000;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 1);
	wait += W / 2;
	t += W;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 1); /* one shared window: spinning on */
	wait += W / 2;
	t += W;
	total += 10;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 0);
	CHECK_EQ(s.yields, 1);
	/* 30 s of a busy CPU (10 % idle): asleep all along, not one try */
	for (int i = 0; i < 150; i++) {
		t += IW;
		total += TPW;
		idle += TPW / 10;
		CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 0);
	}
	CHECK_EQ(s.retries, 0);
	CHECK_EQ(s.last_idle_pct, 10);
	/* the CPU goes idle: the next full window sees it and the loop spins again */
	t += IW;
	total += TPW;
	idle += TPW * 9 / 10;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 1);
	CHECK_EQ(s.retries, 1);
	CHECK_EQ(s.last_idle_pct, 90);
	/* a second yield; an idle CPU within the minimum hold does not end it early */
	t += W;
	wait += W / 2;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 0);
	CHECK_EQ(s.yields, 2);
	t += IW;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 0); /* the idle window starts */
	t += IW;
	total += TPW;
	idle += TPW;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 0); /* idle, but within the hold */
	CHECK_EQ(s.last_idle_pct, 100);
	t = s.wake_at + IW;
	total += TPW;
	idle += TPW;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 1);
	CHECK_EQ(s.retries, 2);
	/* inside a window nothing is decided, and a counter that went backwards starts a new one */
	t += W;
	wait += W / 2;
	CHECK_EQ(dp_spin_update(&s, t, wait, 0, idle, total), 0);
	CHECK_EQ(dp_spin_update(&s, t + 1, wait, 0, idle, total), 0);
	CHECK_EQ(dp_spin_update(&s, t + IW / 2, wait, 0, idle + 5, total + 10), 0);
	CHECK_EQ(dp_spin_update(&s, t + IW + 1, wait, 0, 0, 10), 0);
	CHECK_EQ(s.idle_start, t + IW + 1);
}

/* A counter that went backwards (a new thread's, or a read that failed) starts a new window. */
static void test_counter_reset(void)
{
	struct dp_spin s = fresh();
	CHECK_EQ(dp_spin_update(&s, 10 * W, 5 * W, 0, 0, 0), 1);
	CHECK_EQ(dp_spin_update(&s, 11 * W, 0, 0, 0, 0), 1);
	CHECK_EQ(dp_spin_update(&s, 12 * W, W / 100, 0, 0, 0), 1);
	CHECK_EQ(s.yields, 0);
}

/* The thread's own counter: present on kernels with schedstat, increasing; without it the loop spins as told. */
static void test_read(void)
{
	uint64_t ta = 0, tb = 0;
	struct dp_spin s;
	dp_spin_init(&s);
	if (s.fd < 0) {
		printf("note: no /proc/thread-self/schedstat here: dp_spin_should spins as configured\n");
		CHECK_EQ(dp_spin_read(&s, &ta), -1);
		CHECK_EQ(dp_spin_should(&s, 1, -1), 1);
		return;
	}
	int64_t a = dp_spin_read(&s, &ta);
	CHECK(a >= 0);
	struct timespec sl = {0, 2000000};
	nanosleep(&sl, NULL);
	int64_t b = dp_spin_read(&s, &tb);
	CHECK(b >= a);
	CHECK(ta > 0);
	CHECK(tb > ta); /* the sleep ended in a new turn on the CPU */
	CHECK_EQ(dp_spin_should(&s, 5 * W, 0), 1);
	uint64_t idle = 0, total = 0;
	CHECK_EQ(dp_spin_cpu_ticks(&s, 0, &idle, &total), s.stat_fd >= 0 ? 0 : -1);
	if (s.stat_fd >= 0) {
		CHECK(total > 0 && idle <= total);
		CHECK_EQ(dp_spin_cpu_ticks(&s, 100000, &idle, &total), -1); /* no such CPU */
	}
	dp_spin_close(&s);
	CHECK_EQ(s.fd, -1);
	CHECK_EQ(dp_spin_should(&s, 6 * W, 0), 1);
}

/* A file in place of /proc/stat, read through s->stat_fd. */
static int stat_file(struct dp_spin *s, const char *text)
{
	char path[] = "/tmp/test_dp_spin.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	unlink(path);
	size_t len = strlen(text);
	CHECK_EQ(write(fd, text, len), (long long)len);
	*s = fresh();
	s->stat_fd = fd;
	return 0;
}

/* /proc/stat of a host with 200 CPUs: the CPU lines run to about 12 KB, past the 8 KB the reader once took in
 * one read, so the upper CPUs were "not found". Every CPU's line is found (cpu1 is not cpu1x's), a CPU
 * beyond the last is not, nor one named only after the CPU lines; a last line without a newline is read. */
static void test_cpu_ticks_many(void)
{
	enum { NCPU = 200 };
	static char text[64 * 1024];
	size_t at = 0, off150 = 0;
	struct dp_spin s;
	uint64_t idle, total;
	at += (size_t)snprintf(text + at, sizeof text - at, "cpu  1 2 3 4 5 6 7 8 0 0\n");
	for (int c = 0; c < NCPU; c++) {
		if (c == 150)
			off150 = at;
		/* user nice system idle iowait irq softirq steal guest guest_nice */
		at += (size_t)snprintf(text + at, sizeof text - at, "cpu%d %d %d %d %d %d %d %d %d 0 0\n", c,
				       1000000 + c, 2000000 + c, 3000000 + c, 40000000 + c, 500 + c, 600 + c, 700 + c,
				       800 + c);
	}
	at += (size_t)snprintf(text + at, sizeof text - at, "intr 4242");
	for (int i = 0; i < 3000; i++)
		at += (size_t)snprintf(text + at, sizeof text - at, " %d", i);
	snprintf(text + at, sizeof text - at, "\nctxt 77\ncpu999 1 1 1 1 1 1 1 1 0 0\n");
	CHECK(off150 > 8192);
	if (stat_file(&s, text) < 0)
		return;
	const int cpus[] = {0, 1, 12, 91, 150, 199};
	for (size_t k = 0; k < sizeof cpus / sizeof cpus[0]; k++) {
		uint64_t c = (uint64_t)cpus[k];
		idle = total = 0;
		CHECK_EQ(dp_spin_cpu_ticks(&s, cpus[k], &idle, &total), 0);
		CHECK_EQ(idle, (40000000 + c) + (500 + c)); /* idle + iowait */
		CHECK_EQ(total, 1000000 + 2000000 + 3000000 + 40000000 + 500 + 600 + 700 + 800 + 8 * c);
	}
	CHECK_EQ(dp_spin_cpu_ticks(&s, 150, &idle, &total), 0); /* again: read from the start each time */
	CHECK_EQ(idle, 40000000 + 150 + 500 + 150);
	CHECK_EQ(dp_spin_cpu_ticks(&s, NCPU, &idle, &total), -1);
	CHECK_EQ(dp_spin_cpu_ticks(&s, 999, &idle, &total), -1); /* after the CPU lines: not looked at */
	CHECK_EQ(dp_spin_cpu_ticks(&s, -1, &idle, &total), -1);
	close(s.stat_fd);

	if (stat_file(&s, "cpu  2 0 0 0 0 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8") < 0)
		return;
	CHECK_EQ(dp_spin_cpu_ticks(&s, 0, &idle, &total), 0);
	CHECK_EQ(idle, 4 + 5);
	CHECK_EQ(total, 36);
	close(s.stat_fd);

	if (stat_file(&s, "cpu  2 0 0 0 0 0 0 0 0 0\ncpu0 1 2 3\n") < 0) /* a line short of its fields */
		return;
	CHECK_EQ(dp_spin_cpu_ticks(&s, 0, &idle, &total), -1);
	close(s.stat_fd);
}

/* The short slice: taken by the kernel and shown in /proc/thread-self/sched (se.slice, Linux >= 6.12),
 * in a thread of its own so the test's main thread keeps its slice. */
static void *slice_thread(void *arg)
{
	int *ok = arg;
	char line[256];
	unsigned long long v = 0;
	int found = 0;
	ok[0] = dp_spin_short_slice(DP_SPIN_SLICE_NS);
	ok[3] = errno;
	FILE *f = fopen("/proc/thread-self/sched", "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "se.slice", 8) && sscanf(strchr(line, ':') + 1, "%llu", &v) == 1)
			found = 1;
	if (f)
		fclose(f);
	ok[1] = found;
	ok[2] = (int)(v / 1000);
	return NULL;
}

static void test_slice(void)
{
	pthread_t t;
	int ok[4] = {-2, 0, 0, 0};
	CHECK_EQ(pthread_create(&t, NULL, slice_thread, ok), 0);
	pthread_join(t, NULL);
	if (ok[0] != 0 && (ok[3] == EPERM || ok[3] == ENOSYS)) {
		printf("note: sched_setattr refused here (%s): the data plane logs that and runs on\n", strerror(ok[3]));
		return;
	}
	CHECK_EQ(ok[0], 0);
	if (!ok[1]) {
		printf("note: this kernel shows no se.slice (before 6.12?): the slice is not checked\n");
		return;
	}
	CHECK_EQ(ok[2], (int)(DP_SPIN_SLICE_NS / 1000));
}

/* A SCHED_FIFO data plane spins as told, even from the sleeping state the policy would keep it in (the
 * kernel's real-time throttling shows as run-queue wait; doc/config.md, [dataplane] priority). In a thread of
 * its own, so the test's main thread keeps its policy. */
static void *fifo_thread(void *arg)
{
	int *r = arg;
	struct sched_param sp = {.sched_priority = 1};
	struct dp_spin s;
	r[0] = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (r[0])
		return NULL;
	dp_spin_init(&s);
	s.sleeping = 1;
	s.wake_at = UINT64_MAX; /* the policy alone would sleep until then */
	r[1] = dp_spin_should(&s, 10 * W, -1);
	r[2] = s.sleeping;
	r[3] = dp_spin_should(&s, 10 * W + 1, 0); /* pinned to CPU 0 too */
	dp_spin_close(&s);
	return NULL;
}

static void test_fifo(void)
{
	pthread_t t;
	int r[4] = {-1, -1, -1, -1};
	CHECK_EQ(pthread_create(&t, NULL, fifo_thread, r), 0);
	pthread_join(t, NULL);
	if (r[0]) {
		printf("note: SCHED_FIFO refused here (%s): the real-time case is not checked\n", strerror(r[0]));
		return;
	}
	CHECK_EQ(r[1], 1);
	CHECK_EQ(r[2], 0);
	CHECK_EQ(r[3], 1);
}

int main(void)
{
	test_alone();
	test_shared();
	test_brief_turns();
	test_pinned_turns();
	test_counter_reset();
	test_pinned();
	test_read();
	test_cpu_ticks_many();
	test_slice();
	test_fifo();
	return test_done("dp_spin");
}
