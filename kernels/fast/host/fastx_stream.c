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
 */
#include "fastx.h"

int fastx_stream_next(struct fastx_dec *x, struct fast_stream *fs)
{
	uint32_t iter;
	for (iter = 0; iter < 0xffffffffu; iter++) {
		int st, ev;
		uint32_t used;
		if (fs->data_pos < fs->data_len) {
			int err = fastx_record(x, &fs->dec, fs->data + fs->data_pos, fs->data_len - fs->data_pos,
					       fs->msg_seq, &used);
			return fast_stream_record_done(fs, err, used);
		}
		if (fs->framing == FAST_FRAMING_DATAGRAM || (fs->in_len == 0 && !fs->more))
			return FS_NONE;
		used = fastx_step_feed(x, &fs->step, fs->in, fs->in_len, &st);
		ev = fast_stream_step_done(fs, used, st);
		if (ev != FS_NONE)
			return ev;
	}
	return FS_NONE;
}
