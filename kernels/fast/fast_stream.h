/* fast_stream.h - one feed's byte stream to decoded records (synthesisable subset).
 *
 * Joins the STEP deframer and the FAST decoder: bytes in, records out, with
 * the dictionary reset at every message and every error reported with its
 * stream offset so the caller can publish a gap. Framing is STEP (a byte
 * stream, as over TCP) or DATAGRAM (each fast_stream_feed() is one complete
 * message of raw FAST, as over UDP).
 *
 *   fast_stream_feed(fs, bytes, n);
 *   while ((ev = fast_stream_next(fs)) != FS_NONE)
 *       ev == FS_RECORD ? use fs->rec, fs->msg_seq : report fs->err at fs->err_offset;
 */
#ifndef FAST_STREAM_H
#define FAST_STREAM_H

#include <stdint.h>
#include "fast_decode.h"
#include "step_deframe.h"

enum fast_framing { FAST_FRAMING_STEP = 0, FAST_FRAMING_DATAGRAM = 1 };
enum fast_stream_event {
	FS_NONE = 0,
	FS_RECORD = 1,
	FS_ERROR = 2,
	FS_MESSAGE = 3, /* only with msg_events set: a STEP message was deframed (fs->msg_seq,
			   fs->step.msg), heartbeats and logons included; its records come next */
};

struct fast_stream {
	int framing;
	/* input not yet consumed */
	const uint8_t *in;
	uint32_t in_len;
	uint32_t more;        /* the deframer may hold a message without new input */
	/* FAST payload of the current message being decoded */
	const uint8_t *data;
	uint32_t data_len;
	uint32_t data_pos;
	uint64_t data_offset; /* stream offset of the current message (its first byte) */
	uint64_t dgram_offset;
	/* results */
	uint64_t msg_seq;     /* of the message the current record came from */
	int err;              /* FS_ERROR: code */
	uint64_t err_offset;  /* FS_ERROR: stream offset of the message in error (framing: where detected) */
	uint64_t err_skipped; /* FS_ERROR: payload bytes of the message left undecoded */
	/* counters */
	uint64_t messages;
	uint64_t records;
	/* set by the caller after fast_stream_init: also return FS_MESSAGE (for
	 * MsgSeqNum checks, which must see every message, not only those with records) */
	uint32_t msg_events;
	struct step_deframer step;
	struct fast_dec dec;
	struct fast_rec rec;
};

void fast_stream_init(struct fast_stream *fs, const struct fast_prog *prog, int framing);

/* Start of a new stream (new connection, or after a declared gap):
 * forget the partial message and resynchronise at the next message. */
void fast_stream_restart(struct fast_stream *fs, uint64_t offset);

void fast_stream_feed(struct fast_stream *fs, const uint8_t *p, uint32_t n);
int fast_stream_next(struct fast_stream *fs);

/* fast_stream_next's two bookkeeping steps, shared with the pull loop of
 * the CPU fast path (kernels/fast/host/fastx_stream.c), which swaps the
 * decoder and the deframer but must leave every field meaning the same;
 * always inlined, as they run per record: GCC inlines nothing else into the
 * fast path's copies compiled for another CPU target and tuning
 * (fastx_run.h). */

/* The bookkeeping around one decoded record (err FAST_OK: `used` bytes). */
static inline __attribute__((always_inline)) int fast_stream_record_done(struct fast_stream *fs, int err, uint32_t used)
{
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

/* The bookkeeping after the deframer took `used` input bytes with status
 * st: FS_MESSAGE or FS_ERROR to return, FS_NONE to go on pulling. */
static inline __attribute__((always_inline)) int fast_stream_step_done(struct fast_stream *fs, uint32_t used, int st)
{
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
	return FS_NONE;
}

#endif
