/* dp_trace.h - the data plane's opt-in latency trace: where a record's time goes inside toed.
 *
 * With [dataplane] trace = yes (live), the data-plane thread stamps each
 * frame's records at five points, all on the clock of the frame's arrival
 * stamp (src_frame.ts_ns: the NIC or XDP stamp where there is one):
 *
 *   arrival  the frame's own stamp (NIC, XDP program, kernel, or capture time)
 *   pickup   the source found the frame in the socket's ring (src_frame.pick_ns:
 *            AF_XDP only, the burst's clock read right after the ring's peek);
 *            arrival -> pickup is the kernel's delivery (the XDP redirect, the
 *            copy into the UMEM, the ring's publication, the cache line's way
 *            to the polling CPU) plus the poll loop's reaction time
 *   taken    the data plane starts on the frame (after the frames before it
 *            in the same burst)
 *   decoded  the receive pipeline has turned the frame into records
 *   visible  the records are committed to every client's ring (before any
 *            reader is woken: a wake-up is the reader's latency, not toed's)
 *
 * and adds (stage - arrival) per record to one histogram per stage, and
 * (visible - pickup), toed's own part, to one more. arrival -> pickup also
 * holds the wait of a frame that arrived while the data plane was busy with
 * earlier ones; the frames a poll found right after an empty poll (the data
 * plane was free) go to one more histogram too: the kernel's delivery and
 * the loop's reaction alone, what a raw AF_XDP reader measures (xsk_floor).
 * Off, it costs one predictable branch per frame.
 *
 * The histograms have fixed memory and constant-time insertion: values are
 * binned by their top 5 significant bits (16 linear sub-bins per power of
 * two, so a percentile is within 1/16 = 6% of the true value), from 0 to
 * 2^40 ns (18 minutes; larger values go to the last bin). The thread copies
 * them into its counter snapshot; `toectl latency` prints their percentiles.
 */
#ifndef DP_TRACE_H
#define DP_TRACE_H

#include <stdint.h>

#define DP_HIST_SUB 16u   /* linear sub-bins per power of two */
#define DP_HIST_POW 40u   /* powers of two covered: up to 2^40 ns */
#define DP_HIST_BINS (DP_HIST_SUB * (DP_HIST_POW - 3u))

struct dp_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t bin[DP_HIST_BINS];
};

enum dp_trace_stage {
	DP_TRACE_DECODED = 0, /* arrival -> records out of the pipeline */
	DP_TRACE_VISIBLE = 1, /* arrival -> records committed to the clients' rings */
	DP_TRACE_TAKEN = 2,   /* arrival -> the data plane starts on the frame */
	DP_TRACE_PICKUP = 3,  /* arrival -> the source found it in the ring (the kernel's delivery) */
	DP_TRACE_OWN = 4,     /* pickup -> visible: toed's own processing (not from arrival) */
	DP_TRACE_PICKUP_IDLE = 5, /* arrival -> pickup of the frames a poll found right after an empty
				   * poll: the data plane was free, no wait behind earlier frames */
	DP_TRACE_STAGES = 6,
};

struct dp_trace {
	uint64_t since_ns;     /* CLOCK_MONOTONIC when tracing (re)started, 0: off */
	uint64_t late_stamps;  /* stamps after the stage (clock steps): counted, not binned */
	uint64_t unordered;    /* records whose stamps were not arrival <= pickup <= taken <= decoded <= visible */
	struct dp_hist h[DP_TRACE_STAGES];
};

/* Bin of a value and the smallest value of a bin (the inverse, for percentiles). */
uint32_t dp_hist_bin(uint64_t ns);
uint64_t dp_hist_floor(uint32_t bin);

void dp_hist_add(struct dp_hist *h, uint64_t ns, uint64_t n);

/* The value at quantile ppm/1e6: the upper edge of the bin holding it
 * (never below the true value, at most 1/16 above it); 0 when empty. */
uint64_t dp_hist_pct(const struct dp_hist *h, uint32_t ppm);

/* Add n records that arrived at `arrival` and reached `stage` at `now` (DP_TRACE_OWN: picked up at
 * `arrival`, visible at `now`); now < arrival (a clock step) is counted in late_stamps. */
void dp_trace_add(struct dp_trace *t, int stage, uint64_t arrival, uint64_t now, uint64_t n);

/* One frame's stamps (CLOCK_REALTIME ns, the arrival stamp's clock); pickup 0: the source has none. */
struct dp_trace_stamps {
	uint64_t arrival, pickup, taken, decoded, visible;
	int idle; /* the poll that found the frame came right after one that found nothing */
};

/* The n records of one frame into every stage's histogram (the pickup stage and toed's own part
 * only with a pickup stamp); stamps out of order are also counted in `unordered`. */
void dp_trace_frame(struct dp_trace *t, const struct dp_trace_stamps *s, uint64_t n);

void dp_trace_reset(struct dp_trace *t, uint64_t since_ns);

#endif
