/* fast_stream.c - STEP deframer + FAST decoder for one feed (synthesisable subset).
 *
 * Pull model without callbacks (no function pointers in the kernels): the
 * caller feeds a chunk and pulls events until FS_NONE. A message's FAST
 * payload is decoded record by record only after the deframer validated the
 * whole message (length and checksum), so a corrupted message never yields a
 * record. Each message starts with a dictionary reset (SSE rule).
 */
#include "fast_stream.h"

void fast_stream_init(struct fast_stream *fs, const struct fast_prog *prog, int framing)
{
	fs->framing = framing;
	fs->in = 0;
	fs->in_len = 0;
	fs->more = 0;
	fs->data = 0;
	fs->data_len = 0;
	fs->data_pos = 0;
	fs->data_offset = 0;
	fs->dgram_offset = 0;
	fs->msg_seq = 0;
	fs->err = FAST_OK;
	fs->err_offset = 0;
	fs->err_skipped = 0;
	fs->messages = 0;
	fs->records = 0;
	fs->msg_events = 0;
	step_init(&fs->step);
	fast_dec_init(&fs->dec, prog);
}

void fast_stream_restart(struct fast_stream *fs, uint64_t offset)
{
	fs->data_len = 0;
	fs->data_pos = 0;
	fs->in_len = 0;
	fs->more = 0;
	fs->dgram_offset = offset;
	step_resync(&fs->step, offset);
}

void fast_stream_feed(struct fast_stream *fs, const uint8_t *p, uint32_t n)
{
	if (fs->framing == FAST_FRAMING_DATAGRAM) {
		/* one datagram = one message of raw FAST */
		fs->data = p;
		fs->data_len = n;
		fs->data_pos = 0;
		fs->data_offset = fs->dgram_offset;
		fs->dgram_offset += n;
		fs->msg_seq = 0;
		fs->messages++;
		fast_dec_reset(&fs->dec);
		fs->in_len = 0;
		return;
	}
	fs->in = p;
	fs->in_len = n;
}

int fast_stream_next(struct fast_stream *fs)
{
	uint32_t iter;
	/* Each pass returns, consumes input, or drains bytes the deframer holds
	 * for re-reading (after an error); `more` says the deframer may still
	 * have a message without new input. */
	for (iter = 0; iter < 0xffffffffu; iter++) {
		int st, ev;
		uint32_t used;
		if (fs->data_pos < fs->data_len) {
			int err = fast_dec_record(&fs->dec, fs->data + fs->data_pos, fs->data_len - fs->data_pos,
						  &used, &fs->rec);
			return fast_stream_record_done(fs, err, used);
		}
		if (fs->framing == FAST_FRAMING_DATAGRAM || (fs->in_len == 0 && !fs->more))
			return FS_NONE;
		used = step_feed(&fs->step, fs->in, fs->in_len, &st);
		ev = fast_stream_step_done(fs, used, st);
		if (ev != FS_NONE)
			return ev;
	}
	return FS_NONE;
}
