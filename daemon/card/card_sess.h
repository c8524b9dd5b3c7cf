/* card_sess.h - the host's side of the card's session records: TOE_REC_CARD_SESS pieces back into messages.
 *
 * fast_top sends a session stream's STEP messages without FAST data (and its
 * close) as card-internal ring records (kernels/rx/rx_sess.h). The ring
 * drain gives every such record to card_sess_put, which puts the pieces of
 * each stream's message back together and says what the record completed: a
 * whole message (its bytes, MsgSeqNum and MsgType), a close, or nothing yet.
 * Loss is never silent: a record whose number or piece index is not the one
 * expected, a message cut short by the next one, a message the card could not
 * send (too long) and an overflow of the ring while a message was half
 * assembled (card_sess_overflow) are counted and reported in `lost` of the
 * next result of that stream; the incomplete message is dropped, never handed
 * on, so the session's MsgSeqNum check sees the hole. A TOE_CSESS_SEEN record
 * (a data message none of whose records became a tick) is outside that
 * numbering: it is reported as CARD_SESS_SEEN at once, whatever is being
 * assembled.
 */
#ifndef TOED_CARD_SESS_H
#define TOED_CARD_SESS_H

#include <stdint.h>

#include "rx/rx_sess.h"
#include "hw/toe_regmap.h"

#define CARD_SESS_STREAMS TOE_HW_TCP_STREAMS

enum card_sess_what {
	CARD_SESS_NONE = 0,  /* nothing complete yet (or a record that was lost on its own) */
	CARD_SESS_MSG = 1,   /* a whole message: msg[0..len) */
	CARD_SESS_CLOSE = 2, /* the stream's connection ended */
	CARD_SESS_SEEN = 3,  /* a data message without a tick record (TOE_CSESS_SEEN): msg_seq */
};

struct card_sess_out {
	uint32_t what;        /* enum card_sess_what */
	uint32_t stream;
	uint32_t lost;        /* messages (or closes) of this stream lost before this result */
	uint64_t msg_seq;     /* MSG, SEEN: its MsgSeqNum */
	char msgtype[8];      /* MSG: its MsgType */
	const uint8_t *msg;   /* MSG: valid until the next card_sess_put for the stream */
	uint32_t len;
};

#define CARD_SESS_STATS(X)                                                               \
	X(records, "TOE_REC_CARD_SESS records read from the ring")                       \
	X(msgs, "whole session messages reassembled and handed to the session")          \
	X(closes, "connection ends reported by the card")                                \
	X(seen, "data messages without a tick record the card reported (TOE_CSESS_SEEN)") \
	X(lost, "session messages lost on the way (pieces missing, ring overflow, too long)") \
	X(pieces_lost, "records of lost messages that did arrive (discarded)")           \
	X(too_long, "messages the card could not send: longer than it splits")           \
	X(bad, "records that make no sense (stream out of range, bad sizes): discarded")

struct card_sess_stats {
#define CARD_SESS_FIELD_(f, d) uint64_t f;
	CARD_SESS_STATS(CARD_SESS_FIELD_)
#undef CARD_SESS_FIELD_
};

struct card_sess_stream {
	uint32_t last_no;   /* msg_no of the last record number completed or given up (0: none yet) */
	uint32_t cur_no;    /* msg_no being assembled (0: none) */
	uint32_t next_piece;
	uint32_t npieces;
	uint32_t len;
	uint32_t lost;      /* losses not reported yet */
	uint8_t buf[TOE_CSESS_MAX_BYTES];
};

struct card_sess {
	struct card_sess_stream s[CARD_SESS_STREAMS];
	struct card_sess_stats st;
};

void card_sess_init(struct card_sess *c);
/* One TOE_REC_CARD_SESS record (any other type: CARD_SESS_NONE, counted bad). */
void card_sess_put(struct card_sess *c, const union toe_record *r, struct card_sess_out *out);
/* The ring overflowed (a TOE_GAP_OVERFLOW record): half-assembled messages are lost. */
void card_sess_overflow(struct card_sess *c);

#endif
