/* bench_fastx.c - the specialised host decoder beside the reference, one core, from memory.
 *
 * A deterministic 1,000,000-record mixed 3201/5801 SSE feed (sse_gen, the
 * project's encoder) with a dictionary reset every 10 records is decoded
 * into tick records from memory:
 *   raw:  the FAST records back to back, both decoders resetting at every
 *         10th record as the encoder did;
 *   step: each 10 records framed as one STEP message (step_frame; 35= is a
 *         label only), fed in 1408-byte chunks (TCP segments), framed,
 *         decoded and mapped (fast_stream_next + fast_tick_map, or
 *         fastx_stream_run into batches of 64 records, as the pipeline's
 *         rx_ticks does);
 *   step framing only: fastx_step_feed over the same chunks, nothing
 *         decoded (the STEP part of fastx_step_tick, per record).
 * Variants run interleaved REPS times in one process on one core: the
 * reference (fast_dec_record + fast_tick_map), the reference without the
 * tick mapping, and the fast decoder at every instruction-set level this CPU
 * has (raw: fastx_raw_<level>; STEP: fastx_step_tick at the default level,
 * fastx_step_tick_<level> at a forced one). The VBMI level's vector-path
 * share (fastx_dec.vec) is printed before the table. Times are the
 * thread's CPU time (bench_cpu_s: the machines are shared, wall time would
 * count other processes' slices). Best and median in ns/record and MB/s of
 * FAST input; ratios against the reference of the same run; cyc/rec, each
 * run's time x the clock measured right after it (bench_clock_ghz), is what
 * compares across runs on guests whose vCPUs change speed. floor_hand_sse
 * is tests/bench/floor_sse.h, a decoder written by hand for exactly these two templates (what a
 * per-template code generator could emit at best), checked equal to fastx
 * on every record before it is timed. BENCH_RECORDS, BENCH_REPS override the
 * size; BENCH_ONLY=name[,name...] runs only those variants (for callgrind: instructions per
 * record = difference of two runs with different BENCH_RECORDS).
 * BENCH_PER_MSG=K resets (and frames a STEP message) every K records
 * instead of 10: K=1 shows the per-message cost of STEP framing (a feed of
 * one record per message). BENCH_DUMP_RAW=file writes the raw stream (records
 * back to back, reset every K) to file and exits: the input of
 * tests/bench/bench_mfast.sh.
 * Targets (issue 11): raw decode into ticks <= 20 ns/record, STEP + decode
 * + ticks <= 30 ns/record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fast/fast_stream.h"
#include "fast/fast_tick.h"
#include "fast/host/fastx.h"
#include "fast/host/fast_compile.h"
#include "feed/sse_gen.h"
#include "fast/host/step_frame.h"
#include "floor_sse.h"

#define REPS_DEFAULT 5
#define CHUNK 1408
#define BATCH 64 /* records a fastx_stream_run call at most (toed's DP_BATCH) */
static uint32_t PER_MSG = 10; /* BENCH_PER_MSG */

static struct fast_prog prog;
static struct fast_names names;
static struct fast_dec dec;
static struct fast_rec rec;
static struct fast_stream fs;
static struct fastx_prog *xp;
static struct fastx_dec xd;
static volatile uint64_t sink;
static uint32_t RECORDS = 1000000u;
static int REPS = REPS_DEFAULT;

static uint8_t *raw, *step;
static size_t raw_len, step_len;
static uint32_t *bounds; /* raw: offset of each message, then raw_len */
static uint32_t nmsg;

enum {
	V_REF_RAW,
	V_REF_RAW_NOTICK,
	V_FX_RAW_SCALAR,
	V_FX_RAW_AVX2,
	V_FX_RAW_AVX512,
	V_FX_RAW_VBMI,
	V_FLOOR,
	V_REF_STEP,
	V_FX_STEP,
	V_FX_STEP_AVX2,
	V_FX_STEP_VBMI,
	V_FX_FRAME,
	V_N
};
static const char *vname[V_N] = {"ref_raw_tick",     "ref_raw_decode_only", "fastx_raw_scalar", "fastx_raw_avx2",
				 "fastx_raw_avx512", "fastx_raw_avx512vbmi", "floor_hand_sse",      "ref_step_tick",       "fastx_step_tick",  "fastx_step_tick_avx2", "fastx_step_tick_avx512vbmi",
				 "fastx_step_frame_only"};

static uint64_t run_ref_raw(int map)
{
	uint64_t n = 0, acc = 0;
	union toe_record t;
	fast_dec_init(&dec, &prog);
	for (uint32_t m = 0; m < nmsg; m++) {
		uint32_t off = bounds[m], end = bounds[m + 1];
		fast_dec_reset(&dec);
		while (off < end) {
			uint32_t used;
			if (fast_dec_record(&dec, raw + off, end - off, &used, &rec) != FAST_OK)
				return 0;
			if (map && fast_tick_map(&prog, &rec, 0, &t) > 0)
				acc += t.hdr.present;
			off += used;
			n++;
		}
	}
	sink = acc;
	return n;
}

static uint64_t run_fx_raw(int isa)
{
	uint64_t n = 0, acc = 0;
	int pext = isa > FASTX_ISA_SCALAR && fastx_pext_fast();
	fast_dec_init(&dec, &prog);
	fastx_dec_init(&xd, xp, &rec);
	for (uint32_t m = 0; m < nmsg; m++) {
		uint32_t off = bounds[m], end = bounds[m + 1];
		fast_dec_reset(&dec);
		while (off < end) {
			uint32_t used;
			if (fastx_record_isa(isa, pext, &xd, &dec, raw + off, end - off, 0, &used) != FAST_OK)
				return 0;
			acc += xd.tick.hdr.present;
			off += used;
			n++;
		}
	}
	sink = acc;
	return n;
}

/* The hand-written floor over the raw stream; check: compare every tick
 * record and length with fastx's (returns 0 at the first difference). */
static uint64_t run_floor(int check)
{
	static struct fl_dict D;
	uint64_t n = 0, acc = 0;
	union toe_record t;
	if (check) {
		fast_dec_init(&dec, &prog);
		fastx_dec_init(&xd, xp, &rec);
	}
	for (uint32_t m = 0; m < nmsg; m++) {
		uint32_t off = bounds[m], end = bounds[m + 1];
		memset(&D, 0, sizeof D);
		if (check)
			fast_dec_reset(&dec);
		while (off < end) {
			uint32_t used, xused;
			if (fl_record(&D, raw + off, &t, &used) != 0)
				return 0;
			if (check && (fastx_record(&xd, &dec, raw + off, end - off, 0, &xused) != FAST_OK ||
				      xused != used || memcmp(&t, &xd.tick, sizeof t) != 0))
				return 0;
			acc += t.hdr.present;
			off += used;
			n++;
		}
	}
	sink = acc;
	return n;
}

static uint64_t run_step(int fast)
{
	size_t off = 0;
	uint64_t n = 0, acc = 0;
	union toe_record t;
	static union toe_record batch[BATCH];
	fast_stream_init(&fs, &prog, FAST_FRAMING_STEP);
	fastx_dec_init(&xd, xp, &fs.rec);
	while (off < step_len) {
		uint32_t c = step_len - off < CHUNK ? (uint32_t)(step_len - off) : CHUNK;
		int ev;
		fast_stream_feed(&fs, step + off, c);
		while (fast) {
			/* as rx_ticks does: runs of records straight into a batch */
			uint32_t warns, k = fastx_stream_run(&xd, &fs, batch, BATCH, &warns, &ev);
			if (k) {
				acc += batch[k - 1].hdr.present;
				n += k;
			}
			if (ev == FS_NONE)
				break;
			if (ev == FS_RECORD) {
				n++; /* a record mapped to no tick type: counted, as the reference's loop does */
				continue;
			}
			if (ev != -1)
				return 0;
		}
		for (; !fast;) {
			ev = fast_stream_next(&fs);
			if (ev == FS_NONE)
				break;
			if (ev != FS_RECORD)
				return 0;
			if (fast_tick_map(&prog, &fs.rec, fs.msg_seq, &t) > 0)
				acc += t.hdr.present;
			n++;
		}
		off += c;
	}
	sink = acc;
	return n;
}

/* The stream path at one level (fastx_step_tick: the default one). */
static uint64_t run_step_at(int isa)
{
	int was = fastx_isa_get(), pext = fastx_pext_get();
	uint64_t n;
	fastx_isa_set(isa);
	fastx_pext_set(pext);
	n = run_step(1);
	fastx_isa_set(was);
	fastx_pext_set(pext);
	return n;
}

/* STEP framing alone: fastx_step_feed over the same chunks, records not
 * decoded (counted from the raw stream's message bounds, so the result
 * check still holds). */
static uint64_t run_frame(void)
{
	size_t off = 0;
	uint64_t n = 0, bytes = 0;
	fast_stream_init(&fs, &prog, FAST_FRAMING_STEP);
	fastx_dec_init(&xd, xp, &fs.rec);
	while (off < step_len) {
		uint32_t c = step_len - off < CHUNK ? (uint32_t)(step_len - off) : CHUNK, at = 0;
		while (at < c) {
			int st;
			at += fastx_step_feed(&xd, &fs.step, step + off + at, c - at, &st);
			if (st == STEP_MSG) {
				bytes += fs.step.msg.data_len;
				n++;
			} else if (st == STEP_ERROR) {
				return 0;
			}
		}
		off += c;
	}
	sink = bytes;
	return n == nmsg && bytes == raw_len ? RECORDS : 0;
}

static uint64_t run(int v)
{
	switch (v) {
	case V_REF_RAW: return run_ref_raw(1);
	case V_REF_RAW_NOTICK: return run_ref_raw(0);
	case V_FX_RAW_SCALAR: return run_fx_raw(FASTX_ISA_SCALAR);
	case V_FX_RAW_AVX2: return run_fx_raw(FASTX_ISA_AVX2);
	case V_FX_RAW_AVX512: return run_fx_raw(FASTX_ISA_AVX512);
	case V_FX_RAW_VBMI: return run_fx_raw(FASTX_ISA_VBMI);
	case V_FLOOR: return run_floor(0);
	case V_REF_STEP: return run_step(0);
	case V_FX_FRAME: return run_frame();
	case V_FX_STEP_AVX2: return run_step_at(FASTX_ISA_AVX2);
	case V_FX_STEP_VBMI: return run_step_at(FASTX_ISA_VBMI);
	default: return run_step(1);
	}
}

/* BENCH_ONLY: one variant's name, or several separated by commas. */
static int only_has(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == 0 || p[n] == ','))
			return 1;
	return 0;
}

static int build_input(void)
{
	struct sse_gen_cfg cfg;
	static struct sse_gen gen;
	static struct fast_enc enc;
	size_t cap = (size_t)RECORDS * 160 + 4096;
	uint32_t maxmsg = RECORDS / PER_MSG + 2;
	sse_gen_default(&cfg);
	raw = malloc(cap);
	step = malloc(cap);
	bounds = malloc(sizeof *bounds * (maxmsg + 1));
	if (!raw || !step || !bounds || sse_gen_init(&gen, &cfg) != 0)
		return -1;
	fast_enc_init(&enc, &prog);
	for (uint32_t i = 0; i < RECORDS; i++) {
		union toe_record t;
		int n;
		if (i % PER_MSG == 0) {
			/* a new message: both sides reset the dictionary */
			fast_enc_reset(&enc);
			if (nmsg > 0) {
				struct step_hdr h = {"UA5801", "SSE", "VDE", nmsg, "20261129-09:30:00.000"};
				int m = step_frame(&h, raw + bounds[nmsg - 1], (uint32_t)(raw_len - bounds[nmsg - 1]),
						   step + step_len, cap - step_len);
				if (m < 0)
					return -1;
				step_len += (size_t)m;
			}
			bounds[nmsg++] = (uint32_t)raw_len;
		}
		sse_gen_next(&gen, &t);
		n = sse_encode_raw(&prog, &enc, &t, raw + raw_len, cap - raw_len, NULL);
		if (n < 0)
			return -1;
		raw_len += (size_t)n;
	}
	{
		struct step_hdr h = {"UA5801", "SSE", "VDE", nmsg, "20261129-09:30:00.000"};
		int m = step_frame(&h, raw + bounds[nmsg - 1], (uint32_t)(raw_len - bounds[nmsg - 1]), step + step_len,
				   cap - step_len);
		if (m < 0)
			return -1;
		step_len += (size_t)m;
	}
	bounds[nmsg] = (uint32_t)raw_len;
	return 0;
}

int main(void)
{
	char err[256];
	const char *only = getenv("BENCH_ONLY");
	int maxisa = fastx_isa_max();
	double tv[V_N][BENCH_MAX_REPS], cv[V_N][BENCH_MAX_REPS]; /* times; times x the clock after them */
	int on[V_N];
	if (bench_env(&RECORDS, &REPS))
		return 1;
	if (getenv("BENCH_PER_MSG") && atoi(getenv("BENCH_PER_MSG")) > 0)
		PER_MSG = (uint32_t)atoi(getenv("BENCH_PER_MSG"));
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "bench_fastx: %s\n", err);
		return 1;
	}
	xp = fastx_prog_new(&prog);
	if (!xp || build_input() != 0) {
		fprintf(stderr, "bench_fastx: cannot build the input\n");
		return 1;
	}
	if (getenv("BENCH_DUMP_RAW")) {
		FILE *f = fopen(getenv("BENCH_DUMP_RAW"), "wb");
		if (!f || fwrite(raw, 1, raw_len, f) != raw_len || fclose(f) != 0) {
			fprintf(stderr, "bench_fastx: cannot write %s\n", getenv("BENCH_DUMP_RAW"));
			return 1;
		}
		printf("raw stream: %u records, %zu bytes, dictionary reset every %u records -> %s\n", RECORDS, raw_len,
		       PER_MSG, getenv("BENCH_DUMP_RAW"));
		return 0;
	}
	printf("input: %u records in %u STEP messages (%.2f records/message, dictionary reset per message); raw FAST "
	       "%zu bytes (%.1f B/record); STEP %zu bytes\n",
	       RECORDS, nmsg, (double)RECORDS / nmsg, raw_len, (double)raw_len / RECORDS, step_len);
	printf("cpu: widest level %s (default %s), pext %s; templates specialised %u, fallback %u\n",
	       fastx_isa_name(maxisa), fastx_isa_name(fastx_isa_get()),
	       fastx_pext_fast() ? "fast (used)" : "absent or slow (not used)", fastx_prog_specialised(xp),
	       fastx_prog_fallback(xp));
	for (int v = 0; v < V_N; v++) {
		on[v] = !only || only_has(only, vname[v]);
		if ((v == V_FX_RAW_AVX2 && maxisa < FASTX_ISA_AVX2) || (v == V_FX_RAW_AVX512 && maxisa < FASTX_ISA_AVX512) ||
		    ((v == V_FX_RAW_VBMI || v == V_FX_STEP_VBMI) && maxisa < FASTX_ISA_VBMI) ||
		    (v == V_FX_STEP_AVX2 && maxisa < FASTX_ISA_AVX2))
			on[v] = 0;
	}
	if (on[V_FLOOR] && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"))) {
		printf("floor_hand_sse: not run (needs AVX2 and BMI2)\n");
		on[V_FLOOR] = 0;
	}
	if (on[V_FLOOR] && run_floor(1) != RECORDS) {
		fprintf(stderr, "bench_fastx: the hand-written floor differs from fastx\n");
		return 1;
	}
	if (on[V_FX_RAW_VBMI]) {
		/* how many records the vector path takes, and why templates do not */
		if (run(V_FX_RAW_VBMI) != RECORDS) {
			fprintf(stderr, "bench_fastx: the avx512vbmi level failed\n");
			return 1;
		}
		printf("avx512vbmi: %llu of %u records on the vector path (%.1f %%), %llu to the AVX2 body\n",
		       (unsigned long long)xd.vec, RECORDS, 100.0 * (double)xd.vec / RECORDS,
		       (unsigned long long)xd.vec_fallback);
		for (uint32_t t = 0; t < prog.ntpl; t++)
			if (fastx_prog_vwhy(xp, t)[0])
				printf("avx512vbmi: template %u not on the vector path: %s\n", prog.tpl[t].id,
				       fastx_prog_vwhy(xp, t));
	}
	for (int r = 0; r < REPS; r++) {
		for (int v = 0; v < V_N; v++) {
			if (!on[v])
				continue;
			double t0 = bench_cpu_s();
			uint64_t n = run(v);
			tv[v][r] = bench_cpu_s() - t0;
			cv[v][r] = tv[v][r] * bench_clock_ghz() * 1e9;
			if (n != RECORDS) {
				fprintf(stderr, "bench_fastx: %s decoded %lu of %u records\n", vname[v], (unsigned long)n,
					RECORDS);
				return 1;
			}
		}
	}
	printf("%-24s %12s %12s %12s %12s %12s\n", "variant", "ns/rec best", "ns/rec p50", "MB/s p50", "x ref p50",
	       "cyc/rec p50");
	for (int v = 0; v < V_N; v++) {
		if (!on[v])
			continue;
		bench_sort(tv[v], REPS);
		bench_sort(cv[v], REPS);
	}
	for (int v = 0; v < V_N; v++) {
		if (!on[v])
			continue;
		double best = tv[v][0], med = tv[v][REPS / 2];
		int ref = v >= V_REF_STEP ? V_REF_STEP : V_REF_RAW;
		double ratio = on[ref] ? tv[ref][REPS / 2] / med : 0;
		size_t bytes = raw_len;
		printf("%-24s %12.1f %12.1f %12.1f %12.2f %12.1f\n", vname[v], best * 1e9 / RECORDS, med * 1e9 / RECORDS,
		       bytes / med / 1e6, ratio, cv[v][REPS / 2] / RECORDS);
		printf("RESULT {\"bench\":\"fastx\",\"variant\":\"%s\",\"records\":%u,\"fast_bytes\":%zu,"
		       "\"ns_per_record_best\":%.2f,\"ns_per_record_p50\":%.2f,\"speedup_vs_reference_p50\":%.2f,"
		       "\"cycles_per_record_p50\":%.1f,\"target_ns_per_record\":%d}\n",
		       vname[v], RECORDS, bytes, best * 1e9 / RECORDS, med * 1e9 / RECORDS, ratio, cv[v][REPS / 2] / RECORDS,
		       v == V_FX_FRAME ? 10 : v >= V_REF_STEP ? 30 : 20);
	}
	printf("targets: raw decode into ticks <= 20 ns/record, STEP + decode + ticks <= 30 ns/record "
	       "(so STEP framing alone ~10)\n");
	fastx_prog_free(xp);
	free(raw);
	free(step);
	free(bounds);
	return 0;
}
