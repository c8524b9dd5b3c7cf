/* wait_adapt.h - toe_wait()'s default policy: learn when the next record is due, spin only around then.
 *
 * A waiting client has two ways to notice a record: spinning on the ring (it
 * sees the record within ~100 ns, but burns its CPU) or sleeping on the futex
 * (free, but the daemon's FUTEX_WAKE and the scheduler hand-off cost 10-20 us,
 * more across CPUs). A fixed spin budget is wrong both ways: at 20k msgs/s a
 * 50 us spin burns half a CPU and still sleeps through most arrivals.
 *
 * Market data arrives in runs with a typical spacing, so this policy keeps an
 * average of the spacing between arrivals (the moments a wait found records
 * after the ring had been empty) and, at each wait, expects the next arrival
 * at last + gap:
 *
 *   - well before it: sleep on the futex until `lead` before it (the daemon
 *     still wakes the client at once if the record comes early), then spin;
 *   - close to it: spin until a window after it, then sleep until woken.
 *
 * The spin per arrival is bounded by a share of the gap (WA_DUTY_PCT), so a
 * waiting client never burns more than about that share of a CPU however the
 * feed behaves, and by spin_max_ns. Until a few arrivals have been seen (or
 * after a long silence) it spins for a short fixed time and then sleeps.
 *
 * Pure arithmetic on times the caller passes in: unit-tested without a ring.
 */
#ifndef TOE_WAIT_ADAPT_H
#define TOE_WAIT_ADAPT_H

#include <stdint.h>

#define WA_DUTY_PCT 40          /* at most this share of the gap is spent spinning */
#define WA_SPIN_MAX_NS 50000    /* never spin longer than this in one wait */
#define WA_COLD_SPIN_NS 5000    /* spin before sleeping while the spacing is unknown */
#define WA_LEAD_NS 8000         /* wake from a timed sleep this long before the expected arrival */
#define WA_MIN_SLEEP_NS 20000   /* a timed sleep shorter than this is not worth the system call */
#define WA_IDLE_NS 100000000ll  /* a silence this long resets what was learnt (100 ms) */
#define WA_WARM 4               /* arrivals seen before the spacing is trusted */

struct wait_adapt {
	int64_t gap_ns;  /* average spacing of arrivals (exponential, 1/8) */
	int64_t last_ns; /* the last arrival; 0: none yet */
	uint32_t seen;   /* arrivals since the last reset, up to WA_WARM */
};

/* What one wait should do, decided when it finds the ring empty at `now`. */
struct wait_plan {
	int64_t sleep_until; /* sleep (timed, futex) until then before spinning; 0: no timed sleep */
	int64_t spin_until;  /* spin until then, then sleep until woken */
};

void wait_adapt_plan(const struct wait_adapt *w, int64_t now, struct wait_plan *p);

/* A wait found records at `now` after the ring had been empty. */
void wait_adapt_arrival(struct wait_adapt *w, int64_t now);

#endif
