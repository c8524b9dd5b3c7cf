/* step_deframe.h - streaming deframer of SSE STEP messages (synthesisable subset).
 *
 * Input arrives in chunks of any size (a message may span TCP segments). A
 * message is
 *   8=STEP.1.0.0<SOH>9=<BodyLength><SOH>35=<MsgType><SOH>...34=<MsgSeqNum><SOH>
 *   ...95=<n><SOH>96=<n bytes of FAST><SOH>10=<CheckSum><SOH>
 * BodyLength counts the bytes after the 9= field up to and including the SOH
 * before 10=; CheckSum is the sum of every byte before "10=" modulo 256, as
 * three digits. 96= data may contain SOH bytes: its length comes from 95=.
 * A message without 95=/96= (heartbeat, logon, ...) is valid and delivered
 * with data_len 0 (counted in no_data); 95= without 96= is STEP_E_NO_DATA.
 * Any error skips to the next "8=STEP", the resynchronisation point.
 * STEP_MSG and STEP_ERROR may come with 0 bytes consumed (bytes of a failed
 * message are re-read): call step_feed() until it says STEP_NEED_MORE.
 */
#ifndef STEP_DEFRAME_H
#define STEP_DEFRAME_H

#include <stdint.h>
#include "fast_err.h"

#define STEP_MAX_BODY 32768 /* largest BodyLength accepted */
#define STEP_MAX_MSGTYPE 15

enum step_status {
	STEP_NEED_MORE = 0, /* every byte given was consumed, no message complete */
	STEP_MSG = 1,       /* a validated message is in s->msg */
	STEP_ERROR = 2,     /* s->err says why; the deframer is resynchronising */
};

struct step_msg {
	uint64_t seq;        /* 34= MsgSeqNum (0 when absent) */
	uint64_t offset;     /* stream offset of the message's first byte ('8') */
	uint32_t len;        /* bytes of the whole message, 8= to the final SOH */
	uint32_t data_len;   /* 95= value */
	const uint8_t *data; /* 96= bytes; valid until the next step_feed() */
	const uint8_t *raw;  /* messages without 96= (data_len 0: logon, heartbeat...): the
			      * whole message, len bytes, valid until the next step_feed(), for
			      * the session layer (kernels/step/); NULL for data messages */
	char msgtype[STEP_MAX_MSGTYPE + 1]; /* 35= value, NUL-terminated (the host's fast
					     * deframer, fastx_step_feed, leaves it empty
					     * for data messages: raw NULL) */
};

struct step_deframer {
	/* parser state: private to step_deframe.c, except msg_start */
	uint32_t state;
	uint32_t pos;        /* bytes of the current message buffered in body[] */
	uint32_t body_len;
	uint32_t val;
	uint32_t sum;
	uint32_t match;      /* bytes of "8=STEP" matched while hunting */
	uint64_t offset;     /* stream offset of the next byte to consume */
	uint64_t msg_start;  /* public: stream offset of the message being parsed */
	/* results */
	struct step_msg msg;
	int err;             /* last error (STEP_ERROR) */
	uint64_t err_offset; /* stream offset at which it was detected */
	/* counters */
	uint64_t messages;
	uint64_t bytes;
	uint64_t skipped;    /* bytes discarded while resynchronising */
	uint64_t no_data;    /* valid messages without FAST data (heartbeats, logons) */
	uint64_t errors[FAST_ERR_COUNT];
	uint8_t body[STEP_MAX_BODY + 64];
};

/* s->match while hunting (state 0): bytes body[rd .. end) held to be read
 * again before any new input, rd in the low half, end in the high. The
 * state machine holds a failed message's bytes there (rd >= 1: its '8' is
 * skipped); the CPU fast path (host/fastx_step.c) holds the head of a
 * message split across chunks there with rd = 0 once it has checked that the
 * state machine would take it without an event, and step_feed() reads them
 * back the same way if it is handed the stream. */
#define STEP_PEND_RD(m) ((m) & 0xffffu)
#define STEP_PEND_END(m) ((m) >> 16)
#define STEP_PEND(rd, end) ((uint32_t)(rd) | (uint32_t)(end) << 16)

void step_init(struct step_deframer *s);

/* Drop any partial message and hunt for the next "8=STEP" (stream gap,
 * mid-stream join). `offset` is the stream offset of the next byte fed. */
void step_resync(struct step_deframer *s, uint64_t offset);

/* Bytes held of a message not yet complete (or of a failed one still to be
 * re-read). Non-zero when the input has ended means it ended inside a
 * message: those bytes were never decoded. */
uint32_t step_pending(const struct step_deframer *s);

/* Consume bytes from p[0..n). Returns the number consumed and sets *status:
 * STEP_MSG (s->msg valid until the next call), STEP_ERROR (s->err, counted in
 * s->errors) or STEP_NEED_MORE (all n consumed). Call again with the rest. */
uint32_t step_feed(struct step_deframer *s, const uint8_t *p, uint32_t n, int *status);

#endif
