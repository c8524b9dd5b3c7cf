/* bench_arb.c - cost of sequence tracking and A/B arbitration per record (kernels/seq), one core.
 *
 * A deterministic schedule of 8 channels x 250,000 BizIndexes is carried by
 * two lines (line 1 lags line 0 by 100-300 us, each loses about 1.5% in
 * bursts and repeats 1%), merged in arrival order into one array before
 * timing, so only the block is measured. Variants, run interleaved REPS
 * times, each over the same array:
 *   loop         the same walk over the arrivals, summing keys: the peer
 *                (memory traffic and loop cost, nothing of the block)
 *   track_1line  seq_check on line 0's arrivals only, a one-line group
 *   arb_2lines   seq_check on both lines' arrivals, a two-line group
 *                (deliver first copy, drop the other, holes, late fills)
 *   key          seq_key on decoded SSE records (finding channel and
 *                BizIndex among a record's values)
 * The arrivals are copied block by block into a cache-resident buffer
 * outside the timed part (in the pipeline the record is in cache). Results
 * in ns per arrival (a record offered by one line), best and median; the target is under 5 ns/record for arbitration. The CPU
 * is the one the process runs on (BENCH_CPU=n pins it); other work on the
 * shared machine disturbs timings: compare variants within the run.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "seq/seq_track.h"
#include "fast/fast_stream.h"
#include "fast/host/fast_compile.h"

#define NCH 8
#define NSEQ_DEFAULT 250000
#define REPS_DEFAULT 7

struct arrival {
	uint64_t t;
	uint32_t line, ch;
	uint64_t seq;
};

static struct arrival *arr, *arr0;
static uint32_t narr, narr0;
static struct seq_group grp;
static struct seq_queue q;
static volatile uint64_t sink;
static uint64_t rng = 12345;
static uint32_t NSEQ = NSEQ_DEFAULT;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((rng >> 33) % n);
}

static int cmp(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

static void schedule(void)
{
	uint32_t L, ch, s;
	arr = malloc(sizeof *arr * (size_t)NCH * NSEQ * 3);
	for (L = 0; L < 2; L++)
		for (ch = 0; ch < NCH; ch++) {
			uint32_t burst = 0;
			/* delay in 100 ns steps, drifting by at most one step per record
			 * (a channel's records are 800 ns apart): each line in order */
			uint64_t drift = L ? 2000 : 100;
			for (s = 1; s <= NSEQ; s++) {
				uint64_t base = ((uint64_t)s * NCH + ch) * 100; /* 100 ns apart: 10 M records/s */
				drift = drift + rnd(3) - 1;
				if (drift < (L ? 1000u : 0u))
					drift = L ? 1000 : 0;
				if (drift > (L ? 3000u : 200u))
					drift = L ? 3000 : 200;
				if (burst) {
					burst--;
					continue;
				}
				if (s > 1 && rnd(1000) < 3) {
					burst = rnd(10);
					continue;
				}
				arr[narr++] = (struct arrival){base + drift * 100, L, ch, s};
				if (rnd(100) == 0)
					arr[narr++] = (struct arrival){base + drift * 100 + 1, L, ch, s};
			}
		}
	qsort(arr, narr, sizeof *arr, cmp);
}

/* The arrivals go through a cache-resident block (copied outside the timed
 * part): the timings are the block's work, not the walk over a 95 MB array. */
#define BLOCK 8192
static struct arrival hot[BLOCK];

static uint64_t loop_block(uint32_t n)
{
	uint64_t acc = 0;
	for (uint32_t i = 0; i < n; i++)
		acc += hot[i].seq ^ hot[i].ch ^ hot[i].t;
	return acc;
}

/* seq_check over hot[0..n), then the pipeline's timer. Its own function
 * (the call per block costs nothing against 8192 records; noipa: not
 * merged into one by identical code folding) so that
 * `valgrind --tool=callgrind --toggle-collect=track_block` (or arb_block)
 * counts the instructions of exactly the timed work. */
static inline uint64_t seq_block(uint32_t n)
{
	struct seq_ev e;
	uint64_t delivered = 0;
	for (uint32_t i = 0; i < n; i++) {
		int late;
		if (seq_check(&grp, &q, hot[i].line, hot[i].ch, hot[i].seq, hot[i].t, 0, &late) == SEQ_DELIVER)
			delivered++;
		if (seq_queue_len(&q))
			while (seq_queue_pop(&q, &e))
				sink += e.first;
	}
	/* the pipeline's timer, once per block (every 800 us of feed) */
	seq_poll(&grp, &q, hot[n - 1].t);
	while (seq_queue_pop(&q, &e))
		sink += e.first;
	return delivered;
}

__attribute__((noipa)) static uint64_t track_block(uint32_t n)
{
	return seq_block(n);
}

__attribute__((noipa)) static uint64_t arb_block(uint32_t n)
{
	return seq_block(n);
}

/* One pass over src[0..n): kind 0 the peer loop, else seq_check with `kind` lines. Returns seconds. */
static double run(const struct arrival *src, uint32_t n, uint32_t kind, uint64_t *delivered)
{
	double t = 0;
	uint64_t d = 0, acc = 0;
	if (kind) {
		seq_group_init(&grp, 0, kind, SEQ_DEFAULT_WAIT_NS);
		seq_queue_init(&q);
	}
	for (uint32_t off = 0; off < n; off += BLOCK) {
		uint32_t m = n - off < BLOCK ? n - off : BLOCK;
		memcpy(hot, src + off, sizeof hot[0] * m);
		double t0 = bench_now_s();
		if (kind)
			d += kind == 1 ? track_block(m) : arb_block(m);
		else
			acc += loop_block(m);
		t += bench_now_s() - t0;
	}
	sink += acc;
	*delivered = d;
	return t;
}

/* seq_key over records decoded from the SSE feed. */
#define NKEY 256
static struct fast_rec keyrec[NKEY];
static struct seq_keys keys;
static uint32_t nkey;

static int key_setup(void)
{
	static struct fast_prog prog;
	static struct fast_names names;
	static struct fast_stream fs;
	struct seq_field_cfg f[SEQ_MAX_FIELDS];
	char err[256];
	size_t len = 0, cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	int ev;
	if (!buf || fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err) != 0 ||
	    bench_step_feed(&prog, NKEY, buf, cap, &len) != 0)
		return -1;
	if (seq_keys_resolve(&keys, &prog, f, seq_fields_sse(f)) == 0)
		return -1;
	fast_stream_init(&fs, &prog, FAST_FRAMING_STEP);
	fast_stream_feed(&fs, buf, (uint32_t)len);
	while ((ev = fast_stream_next(&fs)) != FS_NONE && nkey < NKEY)
		if (ev == FS_RECORD)
			keyrec[nkey++] = fs.rec;
	free(buf);
	return nkey == NKEY ? 0 : -1;
}

static uint64_t run_key(uint32_t n)
{
	uint64_t acc = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t ch;
		uint64_t s;
		if (seq_key(&keys, &keyrec[i & (NKEY - 1)], &ch, &s))
			acc += s + ch;
	}
	sink = acc;
	return acc;
}

int main(void)
{
	uint32_t records = NCH * NSEQ_DEFAULT;
	int reps = REPS_DEFAULT;
	const char *cpu = getenv("BENCH_CPU");
	if (bench_env(&records, &reps))
		return 1;
	NSEQ = records / NCH > 0 ? records / NCH : 1;
	if (cpu) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(atoi(cpu), &set);
		if (sched_setaffinity(0, sizeof set, &set) != 0)
			perror("bench_arb: sched_setaffinity");
	}
	schedule();
	arr0 = malloc(sizeof *arr0 * (size_t)narr);
	for (uint32_t i = 0; i < narr; i++)
		if (arr[i].line == 0)
			arr0[narr0++] = arr[i];
	if (key_setup() != 0) {
		printf("SKIP: bench_arb: conf/templates/sse-l2-3201-5801.xml not usable (run from the repository root)\n");
		return 77;
	}
	printf("schedule: %u channels x %u BizIndexes, %u arrivals (line 0: %u), CPU %d\n", NCH, NSEQ, narr, narr0,
	       sched_getcpu());

	double t_loop[BENCH_MAX_REPS], t_one[BENCH_MAX_REPS], t_arb[BENCH_MAX_REPS], t_key[BENCH_MAX_REPS];
	uint64_t d1 = 0, d2 = 0;
	for (int r = 0; r < reps; r++) {
		uint64_t d0;
		t_loop[r] = run(arr, narr, 0, &d0);
		t_one[r] = run(arr0, narr0, 1, &d1);
		t_arb[r] = run(arr, narr, 2, &d2);
		double t3 = bench_now_s();
		run_key(narr);
		t_key[r] = bench_now_s() - t3;
	}
	bench_sort(t_loop, reps);
	bench_sort(t_one, reps);
	bench_sort(t_arb, reps);
	bench_sort(t_key, reps);
	uint64_t rec, del, dups;
	seq_group_sum(&grp, &rec, &del, &dups);
	printf("arbitration: %lu delivered of %u arrivals, %lu copies dropped, %lu gaps (%lu BizIndexes), %lu late\n",
	       (unsigned long)d2, narr, (unsigned long)dups, (unsigned long)grp.st.gaps,
	       (unsigned long)grp.st.missing, (unsigned long)grp.st.late);
	printf("line 0 won %lu, line 1 won %lu (filled %lu); line 0 missed %lu, line 1 missed %lu\n",
	       (unsigned long)grp.line[0].won, (unsigned long)grp.line[1].won, (unsigned long)grp.line[1].filled,
	       (unsigned long)grp.line[0].missed, (unsigned long)grp.line[1].missed);
	if (d2 + grp.st.missing != (uint64_t)NCH * NSEQ || d1 == 0) { /* every BizIndex delivered or declared */
		fprintf(stderr, "bench_arb: %lu delivered + %lu missing != %u records\n", (unsigned long)d2,
			(unsigned long)grp.st.missing, NCH * NSEQ);
		return 1;
	}

	struct {
		const char *name;
		double *t;
		uint32_t n;
	} v[] = {
		{"loop", t_loop, narr},
		{"track_1line", t_one, narr0},
		{"arb_2lines", t_arb, narr},
		{"key", t_key, narr},
	};
	printf("%-12s %12s %12s %10s\n", "variant", "ns/rec best", "ns/rec p50", "p50/loop");
	for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
		double best = v[i].t[0] * 1e9 / v[i].n, med = v[i].t[reps / 2] * 1e9 / v[i].n;
		double loop_med = t_loop[reps / 2] * 1e9 / narr;
		printf("%-12s %12.2f %12.2f %10.1f\n", v[i].name, best, med, med / loop_med);
		printf("RESULT {\"bench\":\"arb\",\"variant\":\"%s\",\"records\":%u,\"ns_per_record_best\":%.2f,"
		       "\"ns_per_record_p50\":%.2f,\"target_ns\":5}\n",
		       v[i].name, v[i].n, best, med);
	}
	printf("target: arbitration under 5 ns/record on one core\n");
	free(arr);
	free(arr0);
	return 0;
}
