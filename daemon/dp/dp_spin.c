/* dp_spin.c - busy polling only while the data plane has its CPU to itself (see dp_spin.h). */
#include "dp/dp_spin.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

void dp_spin_init(struct dp_spin *s)
{
	memset(s, 0, sizeof *s);
	s->hold_ns = DP_SPIN_HOLD_MIN_NS;
	s->fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	s->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
}

void dp_spin_close(struct dp_spin *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->stat_fd >= 0)
		close(s->stat_fd);
	s->fd = s->stat_fd = -1;
}

/* One line of /proc/stat: the ticks after "cpuN " (user nice system idle iowait irq softirq steal; guest time
 * is inside user). */
static int cpu_line(const char *p, uint64_t *idle, uint64_t *total)
{
	uint64_t v[8];
	if (sscanf(p, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		return -1;
	*idle = v[3] + v[4];
	*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	return 0;
}

/* The file is read a chunk at a time, a line at a time: the per-CPU lines come first, but with more than
 * about 90 CPUs they run past any buffer of a fixed size. read() after a seek to 0, not pread() at growing
 * offsets: the kernel renders the whole file on the first read and the next ones continue in that rendering,
 * where each pread() elsewhere than 0 renders it anew, so a line could be stitched from two renderings. The
 * scan stops at the first line that is not a CPU's (the interrupt counts after them are long). */
int dp_spin_cpu_ticks(struct dp_spin *s, int cpu, uint64_t *idle, uint64_t *total)
{
	char buf[4096], name[16], line[256];
	size_t ll = 0;
	ssize_t n;
	if (s->stat_fd < 0 || cpu < 0 || lseek(s->stat_fd, 0, SEEK_SET) < 0)
		return -1;
	size_t len = (size_t)snprintf(name, sizeof name, "cpu%d ", cpu);
	for (;;) {
		n = read(s->stat_fd, buf, sizeof buf);
		if (n < 0 || (n == 0 && ll == 0))
			return -1;
		if (n == 0) {
			buf[0] = '\n'; /* the file's last line had no newline */
			n = 1;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (ll < sizeof line - 1)
					line[ll++] = buf[i]; /* a longer line is cut: its first fields are what counts */
				continue;
			}
			line[ll] = 0;
			if (strncmp(line, "cpu", 3))
				return -1;
			if (!strncmp(line, name, len))
				return cpu_line(line + len, idle, total);
			ll = 0;
		}
	}
}

int64_t dp_spin_read(struct dp_spin *s, uint64_t *turns)
{
	char buf[96];
	uint64_t run, wait;
	ssize_t n;
	*turns = 0;
	if (s->fd < 0)
		return -1;
	n = pread(s->fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* "time on the CPU, time runnable but waiting, time slices" (turns on the CPU) */
	if (sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64, &run, &wait, turns) < 2)
		return -1;
	return (int64_t)wait; /* (*turns stays 0 where the kernel gives two fields) */
}

int dp_spin_update(struct dp_spin *s, uint64_t now, uint64_t runq_wait_ns, uint64_t turns, uint64_t cpu_idle,
		   uint64_t cpu_total)
{
	if (s->sleeping && cpu_total) {
		/* pinned: spin again once the CPU is seen idle (nobody else wants it); while it stays busy, never
		 * blindly without a turn count (a try would cost a window of spinner latency), with one a try
		 * after each hold, as unpinned: its window tells a hog's slices from brief wake-ups */
		if (!s->idle_start || cpu_total < s->total0 || cpu_idle < s->idle0) {
			s->idle_start = now;
			s->idle0 = cpu_idle;
			s->total0 = cpu_total;
			return 0;
		}
		if (now - s->idle_start < DP_SPIN_IDLE_WINDOW_NS || cpu_total == s->total0)
			return 0;
		s->last_idle_pct = (cpu_idle - s->idle0) * 100u / (cpu_total - s->total0);
		s->idle_start = now;
		s->idle0 = cpu_idle;
		s->total0 = cpu_total;
		if (now < s->wake_at || (s->last_idle_pct < DP_SPIN_IDLE_PCT && !turns))
			return 0;
	} else if (s->sleeping && now < s->wake_at) {
		return 0;
	}
	if (s->sleeping) {
		/* try spinning for one window */
		s->sleeping = 0;
		s->idle_start = 0;
		s->retries++;
		s->shared_wins = DP_SPIN_SHARED_WINS - 1; /* a try: one shared window ends it */
		s->win_start = now;
		s->win_wait = runq_wait_ns;
		s->win_turns = turns;
		return 1;
	}
	if (s->win_start == 0 || runq_wait_ns < s->win_wait || turns < s->win_turns) {
		s->win_start = now;
		s->win_wait = runq_wait_ns;
		s->win_turns = turns;
		return 1;
	}
	uint64_t span = now - s->win_start;
	if (span < DP_SPIN_WINDOW_NS)
		return 1;
	uint64_t waited = runq_wait_ns - s->win_wait;
	/* the turns it waited for (each turn on the CPU but the first came after a wait or a sleep; spinning,
	 * after a wait): a known count that makes the average wait brief means wake-ups of short-lived
	 * threads, not a hog's slices (dp_spin.h) */
	uint64_t nturns = turns && s->win_turns ? turns - s->win_turns : 0;
	s->last_wait_pct = waited * 100u / span;
	s->last_turn_wait_ns = nturns ? waited / nturns : 0;
	s->win_start = now;
	s->win_wait = runq_wait_ns;
	s->win_turns = turns;
	if (waited * 100u <= span * DP_SPIN_SHARED_PCT || (nturns && s->last_turn_wait_ns < DP_SPIN_BRIEF_WAIT_NS)) {
		s->hold_ns = DP_SPIN_HOLD_MIN_NS; /* the CPU is ours: spinning pays */
		s->shared_wins = 0;
		return 1;
	}
	/* from steady spinning one window is not enough: a burst of start-up work (clients connecting, a reload)
	 * put the data plane to sleep for seconds, and a sleeping data plane's own wake-ups keep its CPU looking
	 * busy, so it rarely came back (bench_e2e_tcp: 1 run in 10 kept spinning, 8 in 10 with two windows) */
	if (++s->shared_wins < DP_SPIN_SHARED_WINS)
		return 1;
	s->shared_wins = 0;
	s->sleeping = 1;
	s->yields++;
	s->wake_at = now + s->hold_ns;
	s->hold_ns = s->hold_ns * 2 > DP_SPIN_HOLD_MAX_NS ? DP_SPIN_HOLD_MAX_NS : s->hold_ns * 2;
	return 0;
}

int dp_spin_should(struct dp_spin *s, uint64_t now, int cpu)
{
	if (s->fd < 0)
		return 1;
	uint64_t idle = 0, total = 0;
	if (!s->sleeping && s->win_start && now - s->win_start < DP_SPIN_WINDOW_NS)
		return 1; /* the loop's common case: no system call */
	/* A SCHED_FIFO/RR data plane spins as told: its only run-queue wait is the kernel's real-time throttling
	 * (sched_rt_runtime_us: 50 ms of every second by default), which counted as 49 % waiting in a window and
	 * made it sleep between frames, though nothing of normal priority could take the CPU from it anyway.
	 * Asked once a window while spinning, and on every wake-up while sleeping (a reload may raise the
	 * priority then). */
	int pol = sched_getscheduler(0);
	if (pol == SCHED_FIFO || pol == SCHED_RR) {
		s->sleeping = 0;
		s->idle_start = 0;
		s->win_start = now;
		return 1;
	}
	if (s->sleeping &&
	    (cpu < 0 ? now < s->wake_at : s->idle_start && now - s->idle_start < DP_SPIN_IDLE_WINDOW_NS))
		return 0;
	uint64_t turns;
	int64_t w = dp_spin_read(s, &turns);
	if (w < 0)
		return 1;
	if (cpu >= 0 && dp_spin_cpu_ticks(s, cpu, &idle, &total) < 0)
		idle = total = 0;
	return dp_spin_update(s, now, (uint64_t)w, turns, idle, total);
}

/* struct sched_attr as in linux/sched/types.h (glibc before 2.41 has no wrapper) */
struct dp_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

int dp_spin_short_slice(uint64_t slice_ns)
{
#ifdef SYS_sched_setattr
	struct dp_sched_attr a;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, (id_t)tid);
	if (nice == -1 && errno)
		nice = 0;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.sched_policy = 0; /* SCHED_OTHER */
	a.sched_nice = nice;
	a.sched_runtime = slice_ns;
	return (int)syscall(SYS_sched_setattr, 0, &a, 0u);
#else
	(void)slice_ns;
	errno = ENOSYS;
	return -1;
#endif
}
