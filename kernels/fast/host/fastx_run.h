/* fastx_run.h - fastx_stream_run's loop, compiled into each decoder copy that runs it (private).
 *
 * fastx_stream_run (fastx_stream.c) decodes a run of records of a stream
 * into consecutive tick slots, pulling the next STEP message whenever the
 * current one is used up. Through fastx_record every record cost an
 * indirect call into its instruction-set copy, whose prologue saved five
 * registers and realigned the stack for its vectors, and the run's
 * bookkeeping around it. The VBMI level (fastx_vec.c) compiles this loop
 * with its own target instead, the record's vector path inlined: one call
 * per run (~3 % of bench_rx's receive path, doc/fast-cpu-decoder.md). The other levels run the
 * same loop around fastx_record. One loop, so the two cannot differ in what
 * they tell the caller; test_rx_ticks compares it with fastx_stream_next's
 * record-at-a-time path at every level the CPU runs.
 */
#ifndef FASTX_RUN_H
#define FASTX_RUN_H

#include "fastx_int.h"

#define FASTX_PULL_READY (-2) /* fastx_pull_msg: the current message has a record to decode */

/* fast_stream_next's pull loop up to the record: frame messages until one
 * has data (FASTX_PULL_READY) or there is an event to return (FS_MESSAGE,
 * FS_ERROR) or nothing more to frame (FS_NONE). */
static inline __attribute__((always_inline)) int fastx_pull_msg(struct fastx_dec *x, struct fast_stream *fs)
{
	uint32_t iter;
	for (iter = 0; iter < 0xffffffffu; iter++) {
		int st, ev;
		uint32_t used;
		if (fs->data_pos < fs->data_len)
			return FASTX_PULL_READY;
		if (fs->framing == FAST_FRAMING_DATAGRAM || (fs->in_len == 0 && !fs->more))
			return FS_NONE;
		used = fastx_step_feed(x, &fs->step, fs->in, fs->in_len, &st);
		ev = fast_stream_step_done(fs, used, st);
		if (ev != FS_NONE)
			return ev;
	}
	return FS_NONE;
}

/* The next record of the current message (there is one) with rec, and
 * fast_stream's bookkeeping: FS_RECORD or FS_ERROR. */
static inline __attribute__((always_inline)) int fastx_next_with(fastx_rec_fn *rec, struct fastx_dec *x,
								 struct fast_stream *fs)
{
	uint32_t used;
	int err = rec(x, &fs->dec, fs->data + fs->data_pos, fs->data_len - fs->data_pos, fs->msg_seq, &used);
	return fast_stream_record_done(fs, err, used);
}

/* fastx_stream_run (fastx.h) with rec as the record decoder: a constant at
 * every use, so the call is direct (or inlined). */
static inline __attribute__((always_inline)) uint32_t fastx_run_with(fastx_rec_fn *rec, struct fastx_dec *x,
								     struct fast_stream *fs, union toe_record *recs,
								     uint32_t cap, uint32_t *warns, int *ev)
{
	uint32_t n = 0, w = 0;
	*ev = -1;
	while (n < cap) {
		int e;
		x->dst = &recs[n];
		if (__builtin_expect(fs->data_pos >= fs->data_len, 0) && (e = fastx_pull_msg(x, fs)) != FASTX_PULL_READY) {
			*ev = e;
			break;
		}
		e = fastx_next_with(rec, x, fs);
		if (e != FS_RECORD || x->tick_type <= 0) {
			*ev = e;
			break;
		}
		w += x->warn != 0;
		n++;
	}
	*warns = w;
	return n;
}

#endif
