/* fastx_stream.c - fast_stream_next with the specialised decoder (host only).
 *
 * The seam between the synthesisable stream glue and the CPU fast path: the
 * same pull loop as kernels/fast/fast_stream.c, on the same struct
 * fast_stream (its deframer, dictionary, offsets and counters), with two
 * calls swapped: fastx_step_feed for step_feed (whole messages framed in
 * bulk) and fastx_record (straight into a tick record) for fast_dec_record
 * + fast_tick_map. So every field the rx pipeline reads after an event
 * (err, err_offset, err_skipped, data_offset, msg_seq, step.msg.len,
 * step.msg_start) means the same thing, and fast_stream_feed/restart are
 * shared unchanged. Keep the loop in step with fast_stream_next.
 */
#include "fastx.h"

int fastx_stream_next(struct fastx_dec *x, struct fast_stream *fs)
{
	uint32_t iter;
	for (iter = 0; iter < 0xffffffffu; iter++) {
		int st;
		uint32_t used;
		if (fs->data_pos < fs->data_len) {
			int err = fastx_record(x, &fs->dec, fs->data + fs->data_pos, fs->data_len - fs->data_pos,
					       fs->msg_seq, &used);
			if (err != FAST_OK) {
				fs->err = err;
				fs->err_offset = fs->data_offset;
				fs->err_skipped = fs->data_len - fs->data_pos;
				fs->data_pos = fs->data_len;
				return FS_ERROR;
			}
			fs->data_pos += used;
			fs->records++;
			return FS_RECORD;
		}
		if (fs->framing == FAST_FRAMING_DATAGRAM || (fs->in_len == 0 && !fs->more))
			return FS_NONE;
		used = fastx_step_feed(x, &fs->step, fs->in, fs->in_len, &st);
		fs->in += used;
		fs->in_len -= used;
		fs->more = st != STEP_NEED_MORE;
		if (st == STEP_MSG) {
			fs->messages++;
			fs->data = fs->step.msg.data;
			fs->data_len = fs->step.msg.data_len;
			fs->data_pos = 0;
			fs->data_offset = fs->step.msg.offset;
			fs->msg_seq = fs->step.msg.seq;
			fast_dec_reset(&fs->dec);
			if (fs->msg_events)
				return FS_MESSAGE; /* its records follow at the next calls */
		} else if (st == STEP_ERROR) {
			fs->err = fs->step.err;
			fs->err_offset = fs->step.err_offset;
			fs->err_skipped = 0;
			return FS_ERROR;
		}
	}
	return FS_NONE;
}
