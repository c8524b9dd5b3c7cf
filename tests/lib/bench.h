/* bench.h - what the benchmarks in tests/bench/ share (host code).
 *
 * A monotonic clock in seconds, the sort of a variant's timings (best is
 * t[0], median t[reps / 2]), the BENCH_RECORDS / BENCH_REPS overrides, and
 * the deterministic SSE feed as STEP messages that the decode benchmarks run
 * on (sse_gen defaults, at most 8 records per message).
 */
#ifndef TOE_BENCH_H
#define TOE_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "fast/fast_prog.h"

/* Most repetitions a benchmark runs (the size of its arrays of timings). */
#define BENCH_MAX_REPS 100

/* CLOCK_MONOTONIC in seconds. */
double bench_now_s(void);

/* The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID): on
 * the shared machines wall time also counts other processes' slices. */
double bench_cpu_s(void);

/* The calling thread's clock in GHz as it runs now: 40 million dependent
 * adds (one a cycle) timed in the thread's CPU time, ~15 ms. The guests
 * here run their vCPUs between 2.3 and 3.6 GHz from one minute to the next
 * (and CPU time also counts time the host took the vCPU away), so a time
 * alone does not compare across runs; time x this clock, the cycles, does.
 * 0 where there is no such loop (not x86-64). */
double bench_clock_ghz(void);

/* Sort n timings in ascending order. */
void bench_sort(double *t, int n);

/* Apply BENCH_RECORDS and BENCH_REPS when they are set. Returns 0, or -1
 * when the result is out of range (no records, reps outside 1..BENCH_MAX_REPS). */
int bench_env(uint32_t *records, int *reps);

/* Encode `records` records of the default SSE feed (sse_gen_default) with
 * prog as STEP messages of at most 8 records into buf[0..cap). Returns 0 with
 * the length in *len, or -1 (out of memory, an encoding error, cap too small). */
int bench_step_feed(const struct fast_prog *prog, uint32_t records, uint8_t *buf, size_t cap, size_t *len);

#endif
