/* bench_fast_decode.c - FAST decode throughput on one core, from memory.
 *
 * A deterministic 1,000,000-record mixed 3201/5801 SSE feed (sse_gen, the
 * project's encoder) is decoded from memory: (a) as one raw FAST stream with
 * fast_dec_record, (b) as STEP messages through fast_stream (deframe + decode)
 * fed in 1408-byte chunks as TCP segments would arrive, (c) as (b) plus the
 * tick mapping into 128-byte records. Each variant runs REPS times
 * interleaved; best and median are printed, in ns/record and MB/s of input.
 * BENCH_RECORDS and BENCH_REPS override the size (for profiling runs).
 * The target: 1.25 GB/s of FAST input (10 GbE line rate) on one core.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fast/fast_stream.h"
#include "fast/fast_tick.h"
#include "fast/host/fast_compile.h"
#include "feed/sse_gen.h"

#define REPS_DEFAULT 5
#define CHUNK 1408

static struct fast_prog prog;
static struct fast_names names;
static struct fast_dec dec;
static struct fast_rec rec;
static struct fast_stream fs;
static volatile uint64_t sink;
static uint32_t RECORDS = 1000000u;
static int REPS = REPS_DEFAULT;

static uint64_t run_raw(const uint8_t *buf, size_t len)
{
	size_t off = 0;
	uint64_t n = 0;
	fast_dec_init(&dec, &prog);
	while (off < len) {
		uint32_t used;
		if (fast_dec_record(&dec, buf + off, (uint32_t)(len - off), &used, &rec) != FAST_OK)
			return 0;
		off += used;
		n++;
	}
	return n;
}

static uint64_t run_step(const uint8_t *buf, size_t len, int map)
{
	size_t off = 0;
	uint64_t n = 0, acc = 0;
	union toe_record t;
	fast_stream_init(&fs, &prog, FAST_FRAMING_STEP);
	while (off < len) {
		uint32_t c = len - off < CHUNK ? (uint32_t)(len - off) : CHUNK;
		int ev;
		fast_stream_feed(&fs, buf + off, c);
		while ((ev = fast_stream_next(&fs)) != FS_NONE) {
			if (ev != FS_RECORD)
				return 0;
			if (map && fast_tick_map(&prog, &fs.rec, fs.msg_seq, &t) > 0)
				acc += (uint64_t)t.hdr.present;
			n++;
		}
		off += c;
	}
	sink = acc;
	return n;
}

int main(void)
{
	char err[256];
	if (bench_env(&RECORDS, &REPS))
		return 1;
	const char *tf = "conf/templates/sse-l2-3201-5801.xml";
	if (fast_compile_file(tf, &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "bench_fast_decode: %s\n", err);
		return 1;
	}
	/* build both inputs from the same records */
	struct sse_gen_cfg cfg;
	sse_gen_default(&cfg);
	static struct sse_gen gen;
	static struct fast_enc enc;
	size_t cap = (size_t)RECORDS * 96 + 4096, raw_len = 0, step_len = 0, payload = 0;
	uint8_t *raw = malloc(cap), *step = malloc(cap);
	if (!raw || !step || sse_gen_init(&gen, &cfg) != 0)
		return 1;
	fast_enc_init(&enc, &prog);
	for (uint32_t i = 0; i < RECORDS; i++) {
		union toe_record t;
		sse_gen_next(&gen, &t);
		int n = sse_encode_raw(&prog, &enc, &t, raw + raw_len, cap - raw_len, NULL);
		if (n < 0)
			return 1;
		raw_len += (size_t)n;
	}
	if (bench_step_feed(&prog, RECORDS, step, cap, &step_len) != 0)
		return 1;
	/* FAST payload inside the STEP messages, for MB/s of FAST input */
	{
		static struct step_deframer sd;
		size_t off = 0;
		step_init(&sd);
		while (off < step_len) {
			int st;
			off += step_feed(&sd, step + off, (uint32_t)(step_len - off), &st);
			if (st == STEP_MSG)
				payload += sd.msg.data_len;
		}
	}
	printf("input: %u records; raw FAST %zu bytes (%.1f B/record); STEP %zu bytes, FAST payload %zu bytes\n",
	       RECORDS, raw_len, (double)raw_len / RECORDS, step_len, payload);

	double t_raw[BENCH_MAX_REPS], t_step[BENCH_MAX_REPS], t_map[BENCH_MAX_REPS];
	for (int r = 0; r < REPS; r++) {
		double t0 = bench_now_s();
		uint64_t n1 = run_raw(raw, raw_len);
		double t1 = bench_now_s();
		uint64_t n2 = run_step(step, step_len, 0);
		double t2 = bench_now_s();
		uint64_t n3 = run_step(step, step_len, 1);
		double t3 = bench_now_s();
		if (n1 != RECORDS || n2 != RECORDS || n3 != RECORDS) {
			fprintf(stderr, "bench_fast_decode: decoded %lu/%lu/%lu of %u records\n", (unsigned long)n1,
				(unsigned long)n2, (unsigned long)n3, RECORDS);
			return 1;
		}
		t_raw[r] = t1 - t0;
		t_step[r] = t2 - t1;
		t_map[r] = t3 - t2;
	}
	bench_sort(t_raw, REPS);
	bench_sort(t_step, REPS);
	bench_sort(t_map, REPS);

	struct {
		const char *name;
		double *t;
		size_t bytes;
		const char *what;
	} v[] = {
		{"fast_raw_decode", t_raw, raw_len, "FAST"},
		{"step_deframe_decode", t_step, payload, "FAST payload"},
		{"step_decode_tickmap", t_map, payload, "FAST payload"},
	};
	printf("%-22s %12s %12s %14s %14s\n", "variant", "ns/rec best", "ns/rec p50", "MB/s best", "MB/s p50");
	for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
		double best = v[i].t[0], med = v[i].t[REPS / 2];
		printf("%-22s %12.1f %12.1f %14.1f %14.1f  (MB/s of %s)\n", v[i].name, best * 1e9 / RECORDS,
		       med * 1e9 / RECORDS, v[i].bytes / best / 1e6, v[i].bytes / med / 1e6, v[i].what);
		printf("RESULT {\"bench\":\"fast_decode\",\"variant\":\"%s\",\"records\":%u,\"bytes\":%zu,"
		       "\"ns_per_record_best\":%.2f,\"ns_per_record_p50\":%.2f,\"mb_per_s_best\":%.1f,"
		       "\"mb_per_s_p50\":%.1f,\"target_mb_per_s\":1250}\n",
		       v[i].name, RECORDS, v[i].bytes, best * 1e9 / RECORDS, med * 1e9 / RECORDS,
		       v[i].bytes / best / 1e6, v[i].bytes / med / 1e6);
	}
	printf("target: 1250 MB/s of FAST input on one core (10 GbE line rate)\n");
	free(raw);
	free(step);
	return 0;
}
