/* dp_trace.c - fixed-memory latency histograms for the data plane's trace mode (see dp_trace.h). */
#include "dp/dp_trace.h"

#include <string.h>

/* Values below 2*DP_HIST_SUB are their own bin; above, a bin is (power, top bits). */
uint32_t dp_hist_bin(uint64_t ns)
{
	if (ns < 2 * DP_HIST_SUB)
		return (uint32_t)ns;
	uint32_t p = 63u - (uint32_t)__builtin_clzll(ns); /* ns in [2^p, 2^(p+1)), p >= 5 */
	if (p >= DP_HIST_POW)
		return DP_HIST_BINS - 1;
	uint32_t sub = (uint32_t)(ns >> (p - 4)) & (DP_HIST_SUB - 1);
	return (p - 3) * DP_HIST_SUB + sub;
}

uint64_t dp_hist_floor(uint32_t bin)
{
	if (bin < 2 * DP_HIST_SUB)
		return bin;
	uint32_t p = bin / DP_HIST_SUB + 3, sub = bin % DP_HIST_SUB;
	return (1ull << p) | ((uint64_t)sub << (p - 4));
}

void dp_hist_add(struct dp_hist *h, uint64_t ns, uint64_t n)
{
	h->bin[dp_hist_bin(ns)] += n;
	h->count += n;
	h->sum_ns += ns * n;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

uint64_t dp_hist_pct(const struct dp_hist *h, uint32_t ppm)
{
	if (!h->count)
		return 0;
	/* the same rank rule as feed_lat_pct: index floor((n - 1) * q) of the sorted values */
	uint64_t rank = (h->count - 1) * (uint64_t)ppm / 1000000u, seen = 0;
	for (uint32_t b = 0; b < DP_HIST_BINS; b++) {
		seen += h->bin[b];
		if (seen > rank) {
			uint64_t hi = b + 1 < DP_HIST_BINS ? dp_hist_floor(b + 1) - 1 : h->max_ns;
			return hi < h->max_ns ? hi : h->max_ns;
		}
	}
	return h->max_ns;
}

void dp_trace_add(struct dp_trace *t, int stage, uint64_t arrival, uint64_t now, uint64_t n)
{
	if (now < arrival) {
		t->late_stamps += n;
		return;
	}
	dp_hist_add(&t->h[stage], now - arrival, n);
}

void dp_trace_frame(struct dp_trace *t, const struct dp_trace_stamps *s, uint64_t n)
{
	uint64_t first = s->pickup ? s->pickup : s->arrival;
	if (first < s->arrival || s->taken < first || s->decoded < s->taken || s->visible < s->decoded)
		t->unordered += n;
	if (s->pickup) {
		dp_trace_add(t, DP_TRACE_PICKUP, s->arrival, s->pickup, n);
		if (s->idle)
			dp_trace_add(t, DP_TRACE_PICKUP_IDLE, s->arrival, s->pickup, n);
		dp_trace_add(t, DP_TRACE_OWN, s->pickup, s->visible, n);
	}
	dp_trace_add(t, DP_TRACE_TAKEN, s->arrival, s->taken, n);
	dp_trace_add(t, DP_TRACE_DECODED, s->arrival, s->decoded, n);
	dp_trace_add(t, DP_TRACE_VISIBLE, s->arrival, s->visible, n);
}

void dp_trace_reset(struct dp_trace *t, uint64_t since_ns)
{
	memset(t, 0, sizeof(*t));
	t->since_ns = since_ns;
}
