/* test_dp_trace.c - the trace histograms (daemon/dp/dp_trace.c): binning, its inverse, percentiles against a sort. */
#include <stdlib.h>

#include "dp/dp_trace.h"
#include "test.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_bins(void)
{
	/* small values are exact */
	for (uint64_t v = 0; v < 32; v++)
		CHECK_EQ(dp_hist_bin(v), v);
	/* every bin's floor maps back to it, bins are increasing, and a value is never below its bin's floor */
	int bad = 0;
	for (uint32_t b = 0; b + 1 < DP_HIST_BINS; b++) {
		if (dp_hist_bin(dp_hist_floor(b)) != b || dp_hist_floor(b + 1) <= dp_hist_floor(b))
			bad++;
		if (dp_hist_bin(dp_hist_floor(b + 1) - 1) != b)
			bad++;
	}
	CHECK_EQ(bad, 0);
	/* relative width of a bin: at most 1/16 */
	for (uint32_t b = 32; b + 1 < DP_HIST_BINS; b++)
		if ((dp_hist_floor(b + 1) - dp_hist_floor(b)) * 16 > dp_hist_floor(b))
			bad++;
	CHECK_EQ(bad, 0);
	CHECK_EQ(dp_hist_bin(1000), dp_hist_bin(1023));
	CHECK(dp_hist_bin(1000) != dp_hist_bin(1100));
	CHECK_EQ(dp_hist_bin(~0ull), DP_HIST_BINS - 1);
}

static void test_percentiles(void)
{
	static struct dp_hist h;
	enum { N = 20000 };
	static uint64_t v[N];
	srand(3);
	for (int i = 0; i < N; i++) {
		v[i] = (uint64_t)(rand() % 5000) + (rand() % 50 == 0 ? (uint64_t)(rand() % 2000000) : 0);
		dp_hist_add(&h, v[i], 1);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	CHECK_EQ(h.count, N);
	CHECK_EQ(h.max_ns, v[N - 1]);
	static const uint32_t q[] = {0, 500000, 900000, 990000, 999000, 1000000};
	for (unsigned i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		uint64_t exact = v[(uint64_t)(N - 1) * q[i] / 1000000u], got = dp_hist_pct(&h, q[i]);
		/* never below the true value, at most a bin width (1/16) above */
		CHECK(got >= exact);
		CHECK(got <= exact + exact / 16 + 1);
	}
	struct dp_hist empty = {0};
	CHECK_EQ(dp_hist_pct(&empty, 500000), 0);
}

static void test_trace(void)
{
	static struct dp_trace t;
	dp_trace_reset(&t, 5);
	CHECK_EQ(t.since_ns, 5);
	dp_trace_add(&t, DP_TRACE_DECODED, 1000, 1300, 4);
	dp_trace_add(&t, DP_TRACE_VISIBLE, 1000, 1500, 4);
	dp_trace_add(&t, DP_TRACE_VISIBLE, 2000, 1500, 2); /* a stamp after the stage: a clock step */
	CHECK_EQ(t.h[DP_TRACE_DECODED].count, 4);
	CHECK_EQ(t.h[DP_TRACE_DECODED].sum_ns, 1200);
	CHECK_EQ(t.h[DP_TRACE_VISIBLE].count, 4);
	CHECK_EQ(t.late_stamps, 2);
	CHECK(dp_hist_pct(&t.h[DP_TRACE_VISIBLE], 500000) >= 500);
	CHECK(dp_hist_pct(&t.h[DP_TRACE_VISIBLE], 500000) <= 500 + 500 / 16);
}

/* One frame's stamps into every stage: the pickup stamp splits arrival -> visible into the
 * kernel's delivery and toed's own part; without one (AF_PACKET, pcap) neither is binned. */
static void test_frame(void)
{
	static struct dp_trace t;
	dp_trace_reset(&t, 1);
	struct dp_trace_stamps a = {10000, 11800, 11900, 12500, 12700, 0}; /* found right after other frames */
	dp_trace_frame(&t, &a, 3);
	CHECK_EQ(t.h[DP_TRACE_PICKUP_IDLE].count, 0);
	CHECK_EQ(t.h[DP_TRACE_PICKUP].count, 3);
	CHECK_EQ(t.h[DP_TRACE_PICKUP].sum_ns, 3 * 1800);
	CHECK_EQ(t.h[DP_TRACE_OWN].count, 3);
	CHECK_EQ(t.h[DP_TRACE_OWN].sum_ns, 3 * 900);
	CHECK_EQ(t.h[DP_TRACE_TAKEN].sum_ns, 3 * 1900);
	CHECK_EQ(t.h[DP_TRACE_DECODED].sum_ns, 3 * 2500);
	CHECK_EQ(t.h[DP_TRACE_VISIBLE].sum_ns, 3 * 2700);
	CHECK_EQ(t.unordered, 0);
	/* kernel delivery + toed's own = arrival -> visible, record by record */
	CHECK_EQ(t.h[DP_TRACE_PICKUP].sum_ns + t.h[DP_TRACE_OWN].sum_ns, t.h[DP_TRACE_VISIBLE].sum_ns);
	struct dp_trace_stamps b = {20000, 0, 20400, 20500, 20600, 1}; /* no pickup stamp */
	dp_trace_frame(&t, &b, 2);
	CHECK_EQ(t.h[DP_TRACE_PICKUP_IDLE].count, 0);
	CHECK_EQ(t.h[DP_TRACE_PICKUP].count, 3);
	CHECK_EQ(t.h[DP_TRACE_OWN].count, 3);
	CHECK_EQ(t.h[DP_TRACE_VISIBLE].count, 5);
	CHECK_EQ(t.unordered, 0);
	/* found right after an empty poll: the data plane was free, the span is the kernel's alone */
	struct dp_trace_stamps e = {50000, 50700, 50800, 51000, 51100, 1};
	dp_trace_frame(&t, &e, 2);
	CHECK_EQ(t.h[DP_TRACE_PICKUP_IDLE].count, 2);
	CHECK_EQ(t.h[DP_TRACE_PICKUP_IDLE].sum_ns, 2 * 700);
	CHECK_EQ(t.h[DP_TRACE_PICKUP].count, 5);
	struct dp_trace_stamps c = {30000, 30500, 30400, 30600, 30700, 0}; /* picked up after taken: a bug */
	dp_trace_frame(&t, &c, 1);
	CHECK_EQ(t.unordered, 1);
	struct dp_trace_stamps d = {40000, 39000, 40100, 40200, 40300, 1}; /* picked up before arrival */
	dp_trace_frame(&t, &d, 4);
	CHECK_EQ(t.unordered, 5);
	CHECK_EQ(t.late_stamps, 8); /* and that span is not binned (in either pickup histogram) */
	CHECK_EQ(t.h[DP_TRACE_PICKUP].count, 6);
	CHECK_EQ(t.h[DP_TRACE_PICKUP_IDLE].count, 2);
}

int main(void)
{
	test_bins();
	test_percentiles();
	test_trace();
	test_frame();
	return test_done("dp_trace");
}
