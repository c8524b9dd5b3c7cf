/* dp_spin.h - busy polling only while the data plane has its CPU to itself.
 *
 * A data plane that spins ([dataplane] busy_poll = yes) sees a frame about a
 * microsecond after the kernel put it in the ring, as long as nothing else
 * wants its CPU. When other threads are runnable there, the scheduler treats
 * the spinner as the CPU hog it is: it runs in turn with them and waits its
 * turn (milliseconds on a loaded host), and frames, the clients' records and
 * (role = tcp) the ACKs the exchange's TCP is clocked by all wait with it. A
 * thread that sleeps in poll() instead has used little of its share and is
 * run at once when a frame wakes it. bench_e2e_tcp.sh at load 8-10 on
 * 2 CPUs: frame arrival -> toed's ACK p50 124 us spinning against 21 us
 * sleeping; under more load the spinner's ACK gaps reached 100 ms and held
 * the sender at its congestion window.
 *
 * So the loop measures what spinning costs: the time the thread spent
 * runnable but not running (the run-queue wait of /proc/thread-self/schedstat)
 * over each window (DP_SPIN_WINDOW_NS). A window that lost more than
 * DP_SPIN_SHARED_PCT of its time to waiting means the CPU is shared: the
 * thread sleeps between frames for at least DP_SPIN_HOLD_MIN_NS. Unless the
 * wait came in brief turns (under DP_SPIN_BRIEF_WAIT_NS each on average, from
 * the same file's count of turns on the CPU): threads that run a moment and
 * sleep again, above all the strategy that the README's 2-CPU placement pins
 * to this very CPU and that the data plane itself wakes for each message.
 * Their turns are the pipeline's work, not a hog's slices (milliseconds
 * each), and sleeping would not give them more CPU; it would only make every
 * frame wake the data plane, which on a virtual machine means bringing a
 * halted vCPU back through the hypervisor: 100 us p50 on the AMD EPYC guest
 * of 2026-12-02 against 2.5 us for a wake-up on a running CPU. There,
 * bench_e2e_tcp.sh with the strategies on the data plane's CPU (waiting
 * 16-23 % of each window, in turns of a few us) measured p50 75-86 us
 * yielding against 25-28 us spinning, beside recv()'s 27-61 us. A data
 * plane pinned to one CPU then watches that CPU's idle time (/proc/stat):
 * while it sleeps, the CPU is idle unless other threads want it, so it
 * spins again only after a window (DP_SPIN_IDLE_WINDOW_NS) in which the CPU
 * was idle at least DP_SPIN_IDLE_PCT of the time; while the CPU stays busy
 * it tries blindly only where the kernel counts turns (a try costs a window
 * of spinner latency, and only the turns tell whether the CPU is busy with a
 * hog or with brief wake-ups, such as the data plane's own while it sleeps,
 * which kept it from ever spinning again). Not pinned, it has no such view:
 * after the hold it tries spinning for one window. Each failed try doubles
 * the hold (up to DP_SPIN_HOLD_MAX_NS, so a host that stays loaded loses at
 * most one window in 80 to the test), a window that passes resets it. A
 * kernel without schedstat (no CONFIG_SCHED_INFO) leaves busy polling as
 * configured, and so does a
 * SCHED_FIFO/RR data plane ([dataplane] priority > 0): nothing of normal
 * priority takes its CPU, and its only wait is the kernel's real-time
 * throttling, not a reason to sleep.
 *
 * Sleeping, the thread still has to be run soon after a frame wakes it,
 * while a CPU hog holds the CPU. At normal priority it asks the scheduler
 * for a short slice (dp_spin_short_slice: EEVDF's latency hint, Linux >= 6.12,
 * no privilege needed): a waking task with a shorter slice than the running
 * one preempts it, so the wake-up is not left to wait for the hog's slice.
 *
 * Pure logic (dp_spin_update) plus the reader of the thread's counter, so
 * the policy is tested from crafted samples (tests/unit/test_dp_spin.c).
 */
#ifndef DP_SPIN_H
#define DP_SPIN_H

#include <stdint.h>

#define DP_SPIN_WINDOW_NS 100000000ull      /* 100 ms per measurement */
#define DP_SPIN_SHARED_PCT 20u              /* run-queue wait above 20 % of a window: shared */
#define DP_SPIN_BRIEF_WAIT_NS 250000ull     /* ... unless it averaged less than 250 us a turn: brief wake-ups */
#define DP_SPIN_SHARED_WINS 2u              /* ... in this many windows in a row: sleep (a try after sleeping: one) */
#define DP_SPIN_HOLD_MIN_NS 1000000000ull   /* sleep 1 s before trying to spin again */
#define DP_SPIN_HOLD_MAX_NS 8000000000ull   /* ... doubling up to 8 s */
#define DP_SPIN_SLICE_NS 100000ull          /* the slice asked for at normal priority (the kernel's least) */
#define DP_SPIN_IDLE_WINDOW_NS 200000000ull /* sleeping, pinned: the CPU's idle time over 200 ms (20 ticks) */
#define DP_SPIN_IDLE_PCT 50u                /* ... at least half of it idle: nobody else wants the CPU */

struct dp_spin {
	int sleeping;           /* 1: the CPU is shared, sleep between frames */
	uint64_t win_start;     /* the current window began (0: not yet) */
	uint64_t win_wait;      /* run-queue wait counter at win_start */
	uint64_t win_turns;     /* turns-on-the-CPU counter at win_start */
	uint64_t wake_at;       /* sleeping: when to try spinning again */
	uint64_t hold_ns;       /* the next hold */
	uint64_t yields;        /* spinning -> sleeping */
	uint64_t retries;       /* sleeping -> spinning (a try) */
	uint64_t last_wait_pct; /* run-queue wait of the last full window, % */
	uint64_t last_turn_wait_ns; /* ... per turn on the CPU (0: not known) */
	uint32_t shared_wins;   /* windows in a row above DP_SPIN_SHARED_PCT */
	uint64_t idle_start;    /* sleeping, pinned: the idle window began (0: not yet) */
	uint64_t idle0, total0; /* the CPU's idle and total ticks then */
	uint64_t last_idle_pct; /* the CPU's idle time in the last idle window, % */
	int fd;                 /* /proc/thread-self/schedstat, -1: none */
	int stat_fd;            /* /proc/stat, -1: none */
};

/* Open the calling thread's counter (call it on the data-plane thread). */
void dp_spin_init(struct dp_spin *s);
void dp_spin_close(struct dp_spin *s);

/* The calling thread's run-queue wait so far (ns), or -1 when the kernel has none;
 * *turns its turns on the CPU so far (0: not known). */
int64_t dp_spin_read(struct dp_spin *s, uint64_t *turns);

/* CPU cpu's idle (idle + iowait) and total ticks from /proc/stat: 0, or -1. */
int dp_spin_cpu_ticks(struct dp_spin *s, int cpu, uint64_t *idle, uint64_t *total);

/* The policy: now (monotonic ns), the thread's run-queue wait counter (ns)
 * and turns-on-the-CPU counter (0: not known; then any wait counts) and, when
 * it is pinned to one CPU, that CPU's idle and total ticks (total 0: not
 * known). Returns 1 to spin, 0 to sleep between frames. */
int dp_spin_update(struct dp_spin *s, uint64_t now, uint64_t runq_wait_ns, uint64_t turns, uint64_t cpu_idle,
		   uint64_t cpu_total);

/* The loop's call: 1 spin, 0 sleep (reads the counters once a window). cpu:
 * the one CPU the thread is pinned to, or -1. */
int dp_spin_should(struct dp_spin *s, uint64_t now, int cpu);

/* Ask for a scheduler slice of slice_ns for the calling SCHED_OTHER thread
 * (sched_setattr's sched_runtime; its nice value kept). 0, or -1 with errno
 * (a kernel before 6.12 takes the call and ignores the slice). */
int dp_spin_short_slice(uint64_t slice_ns);

#endif
