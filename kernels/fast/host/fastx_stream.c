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
 * (rx_ticks): fastx_run.h's loop, which the VBMI level compiles with its
 * record's vector path inlined.
 */
#include "fastx_run.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)

/* The pull loop: frame the next message (or report an event) and decode
 * its first record. */
static inline __attribute__((always_inline)) int pull_body(struct fastx_dec *x, struct fast_stream *fs)
{
	int e = fastx_pull_msg(x, fs);
	return e == FASTX_PULL_READY ? fastx_next_with(fastx_record, x, fs) : e;
}

__attribute__((noinline)) static int pull(struct fastx_dec *x, struct fast_stream *fs)
{
	return pull_body(x, fs);
}

int fastx_stream_next(struct fastx_dec *x, struct fast_stream *fs)
{
	if (LIKELY(fs->data_pos < fs->data_len))
		return fastx_next_with(fastx_record, x, fs);
	return pull(x, fs);
}

uint32_t fastx_stream_run(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
			  uint32_t *warns, int *ev)
{
	int sel = fastx_sel;
	if (__builtin_expect(sel < 0, 0))
		sel = fastx_sel_init();
	if (sel == FASTX_SEL_VBMI_PEXT)
		return fastx_run_vbmi_pext(x, fs, recs, cap, warns, ev);
	if (sel == FASTX_SEL_VBMI)
		return fastx_run_vbmi(x, fs, recs, cap, warns, ev);
	return fastx_run_with(fastx_record, x, fs, recs, cap, warns, ev);
}
