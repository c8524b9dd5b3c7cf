/* bench.c - what the benchmarks share: clock, timings, size overrides, the STEP feed. */
#include "bench.h"

#include <stdlib.h>
#include <time.h>

#include "feed/sse_gen.h"

double bench_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double bench_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double bench_clock_ghz(void)
{
#if defined(__x86_64__)
	const uint64_t n = 40000000;
	uint64_t x = 0;
	double t0 = bench_cpu_s(), t;
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("add $1, %0" : "+r"(x)); /* each add waits for the one before */
	t = bench_cpu_s() - t0;
	return t > 0 ? (double)n / t / 1e9 : 0;
#else
	return 0;
#endif
}

void bench_sort(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(double), cmp_double);
}

int bench_env(uint32_t *records, int *reps)
{
	if (getenv("BENCH_RECORDS"))
		*records = (uint32_t)strtoul(getenv("BENCH_RECORDS"), NULL, 10);
	if (getenv("BENCH_REPS"))
		*reps = atoi(getenv("BENCH_REPS"));
	return *records == 0 || *reps < 1 || *reps > BENCH_MAX_REPS ? -1 : 0;
}

int bench_step_feed(const struct fast_prog *prog, uint32_t records, uint8_t *buf, size_t cap, size_t *len)
{
	struct sse_gen_cfg cfg;
	struct sse_stream *ss = calloc(1, sizeof *ss);
	int rc = -1;
	sse_gen_default(&cfg);
	*len = 0;
	if (!ss || sse_stream_init(ss, prog, &cfg, 8) != 0)
		goto out;
	for (uint32_t got = 0; got < records;) {
		uint32_t nrec;
		int n = sse_stream_next_msg(ss, records - got, buf + *len, cap - *len, NULL, NULL, &nrec);
		if (n < 0)
			goto out;
		*len += (size_t)n;
		got += nrec;
	}
	rc = 0;
out:
	free(ss);
	return rc;
}
