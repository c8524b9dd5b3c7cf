/* bench_filter.c - the cost of a subscription's filter per record (pub_filter_match), one core.
 *
 * The publisher runs every client's filter on every record it publishes, so
 * a stream name (toe_sub.stream) must not make that noticeably dearer. A
 * set of 4096 records (trades, orders, a gap every tenth; four channels;
 * sources 0..3, as two feeds of a group and two other feeds would tag them)
 * stays in cache and is walked 256 times per repetition. Variants, run
 * interleaved REPS times:
 *   loop      the same walk summing the record types: the peer
 *   all       a filter with no list (every record passes)
 *   types     trades only
 *   stream    the stream of sources 0 and 1 (a two-line group)
 *   stream_ch the same stream and two channels
 * Results in ns per record, best and median, and the ratio of each median
 * to the loop's. BENCH_REPS overrides the repetitions; BENCH_CPU is not
 * read: the process runs where the scheduler puts it (say so with a figure).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dp/dp_pub.h"

#define NREC 4096
#define PASSES 256
#define REPS_DEFAULT 9

static union toe_record recs[NREC];
static uint8_t srcs[NREC];
static volatile uint64_t sink;

static void make_records(void)
{
	for (uint32_t i = 0; i < NREC; i++) {
		union toe_record *r = &recs[i];
		memset(r, 0, sizeof *r);
		srcs[i] = (uint8_t)(i % 4);
		if (i % 10 == 9) {
			r->hdr.type = TOE_REC_GAP;
		} else if (i % 3 == 0) {
			r->hdr.type = TOE_REC_ORDER;
			r->order.order_channel = (int32_t)(1 + i % 4);
			snprintf(r->order.security_id, sizeof r->order.security_id, "6000%02u", i % 50);
		} else {
			r->hdr.type = TOE_REC_TRADE;
			r->trade.trade_channel = (int32_t)(1 + i % 4);
			snprintf(r->trade.security_id, sizeof r->trade.security_id, "6000%02u", i % 50);
		}
	}
}

static double run(const struct pub_filter *f)
{
	uint64_t n = 0;
	double t0 = bench_now_s();
	for (int p = 0; p < PASSES; p++)
		for (uint32_t i = 0; i < NREC; i++)
			n += f ? (uint64_t)pub_filter_match(f, &recs[i], srcs[i]) : recs[i].hdr.type;
	double t = bench_now_s() - t0;
	sink += n;
	return t;
}

int main(void)
{
	uint32_t records = NREC;
	int reps = REPS_DEFAULT;
	if (bench_env(&records, &reps) < 0) {
		fprintf(stderr, "bench_filter: BENCH_REPS out of range\n");
		return 2;
	}
	make_records();
	static struct pub_filter fa, ft, fs, fc;
	fa.types = 0;
	ft.types = TOE_TYPE_BIT(TOE_REC_TRADE);
	fs.has_stream = 1;
	fs.srcs[0] = 0x3;
	fc = fs;
	fc.nchannels = 2;
	fc.channels[0] = 1;
	fc.channels[1] = 3;
	if (pub_filter_normalise(&fa) || pub_filter_normalise(&ft) || pub_filter_normalise(&fs) ||
	    pub_filter_normalise(&fc))
		return 1;
	const struct {
		const char *name;
		const struct pub_filter *f;
	} v[] = { {"loop", NULL}, {"all", &fa}, {"types", &ft}, {"stream", &fs}, {"stream_ch", &fc} };
	enum { NV = sizeof v / sizeof v[0] };
	static double t[NV][BENCH_MAX_REPS];
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < NV; k++)
			t[k][r] = run(v[k].f);
	for (int k = 0; k < NV; k++)
		bench_sort(t[k], reps);
	double n = (double)NREC * PASSES, loop = t[0][reps / 2] * 1e9 / n;
	printf("%-10s %12s %12s %10s\n", "variant", "ns/rec best", "ns/rec p50", "p50/loop");
	for (int k = 0; k < NV; k++) {
		double best = t[k][0] * 1e9 / n, med = t[k][reps / 2] * 1e9 / n;
		printf("%-10s %12.2f %12.2f %10.1f\n", v[k].name, best, med, med / loop);
		printf("RESULT {\"bench\":\"filter\",\"variant\":\"%s\",\"records\":%u,\"ns_per_record_best\":%.2f,"
		       "\"ns_per_record_p50\":%.2f}\n",
		       v[k].name, NREC * PASSES, best, med);
	}
	return 0;
}
