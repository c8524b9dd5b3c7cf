/* fastx_stream.c - fast_stream_next with the specialised decoder (host only).
 *
 * The seam between the synthesisable stream glue and the CPU fast path: the
 * same pull loop as kernels/fast/fast_stream.c, on the same struct
 * fast_stream (its deframer, dictionary, offsets and counters), with two
 * calls swapped: fastx_step_feed for step_feed (whole messages framed in
 * bulk) and fastx_record (straight into a tick record) for fast_dec_record
 * + fast_tick_map; the bookkeeping around them is fast_stream's own
 * (fast_stream_record_done, fast_stream_step_done). So every field the rx pipeline reads after an event
 * (err, err_offset, err_skipped, data_offset, msg_seq, step.msg.len,
 * step.msg_start) means the same thing, and fast_stream_feed/restart are
 * shared unchanged.
 *
 * Most calls (ten records a message in the SSE feed) only decode the next
 * record of the current message: that path is kept apart from the pull loop
 * so it is a test, one call and the bookkeeping, without the loop's register
 * saves (callgrind: ~20 instructions a record less). fastx_stream_run is
 * the same call in a loop for a run of records into consecutive slots
 * (rx_ticks), without a call per record.
 */
#include "fastx.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)

static inline int next_record(struct fastx_dec *x, struct fast_stream *fs)
{
	uint32_t used;
	int err = fastx_record(x, &fs->dec, fs->data + fs->data_pos, fs->data_len - fs->data_pos, fs->msg_seq, &used);
	return fast_stream_record_done(fs, err, used);
}

/* The pull loop: frame the next message (or report an error) and decode
 * its first record. */
static inline __attribute__((always_inline)) int pull_body(struct fastx_dec *x, struct fast_stream *fs)
{
	uint32_t iter;
	for (iter = 0; iter < 0xffffffffu; iter++) {
		int st, ev;
		uint32_t used;
		if (fs->data_pos < fs->data_len)
			return next_record(x, fs);
		if (fs->framing == FAST_FRAMING_DATAGRAM || (fs->in_len == 0 && !fs->more))
			return FS_NONE;
		used = fastx_step_feed(x, &fs->step, fs->in, fs->in_len, &st);
		ev = fast_stream_step_done(fs, used, st);
		if (ev != FS_NONE)
			return ev;
	}
	return FS_NONE;
}

__attribute__((noinline)) static int pull(struct fastx_dec *x, struct fast_stream *fs)
{
	return pull_body(x, fs);
}

int fastx_stream_next(struct fastx_dec *x, struct fast_stream *fs)
{
	if (LIKELY(fs->data_pos < fs->data_len))
		return next_record(x, fs);
	return pull(x, fs);
}

uint32_t fastx_stream_run(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
			  uint32_t *warns, int *ev)
{
	uint32_t n = 0, w = 0;
	*ev = -1;
	while (n < cap) {
		int e;
		x->dst = &recs[n];
		e = LIKELY(fs->data_pos < fs->data_len) ? next_record(x, fs) : pull_body(x, fs);
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
