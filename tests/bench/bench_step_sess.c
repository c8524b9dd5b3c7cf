/* bench_step_sess.c - what the STEP session layer adds to the receive path, on one core, from memory.
 *
 * The deterministic 1,000,000-record SSE feed as STEP messages (bench_step_feed), fed in 1408-byte
 * chunks as TCP segments arrive, through:
 *   (a) fast_stream: deframe + decode (the receive path without a session, the baseline);
 *   (b) (a) with msg_events and every FS_MESSAGE given to the session (step_sess_on_data for data,
 *       step_sess_on_msg for session messages): the wiring that reuses the pipeline's deframer;
 *   (c) (a) plus step_link_bytes() on the same chunks: the wiring through a connection hook that sees
 *       bytes, which deframes everything a second time.
 * Each variant runs REPS times interleaved; best and median in ns/record, and the ratios b/a and c/a
 * (the figures that matter on a shared machine). BENCH_RECORDS and BENCH_REPS override the size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fast/fast_stream.h"
#include "fast/host/fast_compile.h"
#include "step/host/step_link.h"

#define REPS_DEFAULT 5
#define CHUNK 1408

static struct fast_prog prog;
static struct fast_names names;
static struct fast_stream fs;
static struct step_link link_;
static struct step_sess sess;
static uint32_t RECORDS = 1000000u;
static int REPS = REPS_DEFAULT;

static void sess_up(struct step_sess *s)
{
	struct step_sess_cfg c;
	memset(&c, 0, sizeof c);
	c.role = STEP_SESS_CLIENT;
	c.heartbeat_s = 30;
	step_sess_init(s, &c);
	step_sess_connected(s, 0);
	s->state = STEP_SESS_ACTIVE; /* as after the Logon answer: data is sequence-checked */
	s->in_expect = 1;
	step_sess_sent(s);
}

/* variant: 0 baseline, 1 FS_MESSAGE to the session, 2 step_link on the bytes */
static uint64_t run(const uint8_t *buf, size_t len, int variant)
{
	size_t off = 0;
	uint64_t n = 0;
	fast_stream_init(&fs, &prog, FAST_FRAMING_STEP);
	fs.msg_events = variant == 1;
	if (variant == 1)
		sess_up(&sess);
	if (variant == 2) {
		sess_up(&link_.s);
		step_init(&link_.d);
	}
	while (off < len) {
		uint32_t c = len - off < CHUNK ? (uint32_t)(len - off) : CHUNK;
		int ev;
		if (variant == 2)
			step_link_bytes(&link_, buf + off, c, 1);
		fast_stream_feed(&fs, buf + off, c);
		while ((ev = fast_stream_next(&fs)) != FS_NONE) {
			if (ev == FS_MESSAGE) {
				const struct step_msg *m = &fs.step.msg;
				if (m->raw)
					step_sess_on_msg(&sess, m->raw, m->len, 1);
				else
					step_sess_on_data(&sess, m->seq, 1);
				continue;
			}
			if (ev != FS_RECORD)
				return 0;
			n++;
		}
		off += c;
	}
	return n;
}

int main(void)
{
	char err[256];
	if (bench_env(&RECORDS, &REPS))
		return 1;
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "bench_step_sess: %s\n", err);
		return 1;
	}
	size_t cap = (size_t)RECORDS * 160 + 4096, len = 0;
	uint8_t *buf = malloc(cap);
	if (!buf || bench_step_feed(&prog, RECORDS, buf, cap, &len) != 0)
		return 1;
	double t[3][BENCH_MAX_REPS];
	for (int r = 0; r < REPS; r++) {
		for (int v = 0; v < 3; v++) {
			double t0 = bench_now_s();
			uint64_t n = run(buf, len, v);
			t[v][r] = bench_now_s() - t0;
			if (n != RECORDS) {
				fprintf(stderr, "bench_step_sess: variant %d decoded %lu of %u records\n", v,
					(unsigned long)n, RECORDS);
				return 1;
			}
		}
	}
	/* the sessions saw every message, in sequence */
	if (sess.st.in_data == 0 || sess.st.in_gaps || sess.st.in_repeats || link_.s.st.in_data != sess.st.in_data ||
	    link_.s.st.in_gaps || link_.s.st.in_repeats) {
		fprintf(stderr, "bench_step_sess: the sessions did not see the feed in sequence\n");
		return 1;
	}
	static const char *const name[3] = { "stream_no_session", "stream_fs_message_sess", "stream_plus_step_link" };
	printf("input: %u records in %lu STEP messages, %zu bytes, %d-byte chunks\n", RECORDS,
	       (unsigned long)sess.st.in_data, len, CHUNK);
	printf("%-24s %12s %12s %10s\n", "variant", "ns/rec best", "ns/rec p50", "p50 ratio");
	for (int v = 0; v < 3; v++)
		bench_sort(t[v], REPS);
	for (int v = 0; v < 3; v++) {
		double best = t[v][0] * 1e9 / RECORDS, med = t[v][REPS / 2] * 1e9 / RECORDS;
		printf("%-24s %12.1f %12.1f %10.3f\n", name[v], best, med, t[v][REPS / 2] / t[0][REPS / 2]);
		printf("RESULT {\"name\":\"%s\",\"unit\":\"ns/record\",\"best\":%.2f,\"p50\":%.2f,\"ratio_p50\":%.4f}\n",
		       name[v], best, med, t[v][REPS / 2] / t[0][REPS / 2]);
	}
	free(buf);
	return 0;
}
