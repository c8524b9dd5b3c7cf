/* rx_sess.h - the card-internal ring record of a session message (synthesisable subset).
 *
 * On the card (backend = xrt, role = tcp) the STEP session runs on the host
 * (daemon/dp/dp_sess.c, the same code as the software backend) while the
 * connection's bytes go to fast_top. fast_top therefore hands the host every
 * RX_OUT_SESS entry of a session stream (rx_pipe.h, "Session messages") as
 * ring records of type TOE_REC_CARD_SESS: a STEP message without FAST data
 * split over as many 128-byte records as it needs (TOE_CSESS_DATA bytes
 * each), or one record saying the connection ended. The host reassembles the
 * pieces (daemon/card/card_sess.c), gives whole messages to the session and
 * never publishes these records to clients (clients get TOE_REC_SESSION
 * events from the session, as with the software backend).
 *
 * Loss: the ring drops records when full (then a TOE_GAP_OVERFLOW record
 * follows), so every piece carries its message's number on the stream
 * (msg_no, counting from 1 since the stream's session was set up; a CLOSE
 * record takes a number too) and its index: a missing piece, a missing
 * message or an incomplete message is seen by the host, counted, and the
 * message is not given to the session (whose MsgSeqNum check then sees the
 * hole). A message longer than TOE_CSESS_MAX_PIECES pieces is sent as one
 * record of kind TOE_CSESS_TOO_LONG (header fields only): counted, not lost
 * silently.
 *
 * A data message whose records all map to no tick type (or that sequence
 * tracking dropped) is one record of kind TOE_CSESS_SEEN carrying only its
 * MsgSeqNum, so the session's sequence check and silence timer see it; it
 * takes no msg_no (a lost one is a ring overflow, already a gap for clients).
 *
 * This record type is not part of the client ABI (client-lib/include/toe/
 * tick.h): its number is above every public one and the daemon filters it
 * out of the publication path.
 */
#ifndef RX_SESS_H
#define RX_SESS_H

#include <stdint.h>
#include "toe/tick.h"
#include "rx_pipe.h"

#define TOE_REC_CARD_SESS 0x80u   /* card-internal: never published */
#define TOE_CSESS_DATA 64u        /* message bytes per record */
#define TOE_CSESS_MAX_PIECES 64u  /* a message of up to 4096 bytes (a session message is a few hundred) */
#define TOE_CSESS_MAX_BYTES (TOE_CSESS_DATA * TOE_CSESS_MAX_PIECES)

enum toe_csess_kind {
	TOE_CSESS_PIECE = 1,    /* bytes [piece * TOE_CSESS_DATA, + len) of message msg_no */
	TOE_CSESS_TOO_LONG = 2, /* message msg_no (msg_len bytes) did not fit TOE_CSESS_MAX_PIECES: not sent */
	TOE_CSESS_CLOSE = 3,    /* the connection ended (FIN or RST): the session's disconnect */
	TOE_CSESS_SEEN = 4,     /* a data message (hdr.msg_seq) none of whose records the ring carries as a
				   tick (RX_SESS_SEEN): header only, no msg_no (0), one record */
};

/* hdr.type TOE_REC_CARD_SESS, hdr.stream the connection's stream, hdr.msg_seq
 * the message's MsgSeqNum (34=), hdr.rx_ns as the stream's other records. */
struct toe_card_sess {
	struct toe_rec_hdr hdr;
	uint8_t kind;       /* enum toe_csess_kind */
	uint8_t pad;
	uint16_t piece;     /* this record's index, 0 .. npieces - 1 */
	uint16_t npieces;   /* records of the message */
	uint16_t len;       /* bytes of data[] used */
	uint32_t msg_len;   /* bytes of the whole message */
	uint32_t msg_no;    /* the stream's session record number (messages and closes), from 1 */
	char msgtype[8];    /* 35= value, NUL-padded (cut to 7 characters) */
	uint8_t data[TOE_CSESS_DATA];
};

TOE_STATIC_ASSERT(sizeof(struct toe_card_sess) == TOE_RECORD_SIZE, "toe_card_sess is 128 bytes");

/* Records an RX_OUT_SESS entry needs: 1 for a close, a SEEN or a message too long,
 * else ceil(len / TOE_CSESS_DATA) (at least 1). */
uint32_t rx_sess_records(const struct rx_out *o);

/* Record k (< rx_sess_records(o)) of entry o, the msg_no-th of its stream. */
void rx_sess_record(union toe_record *r, const struct rx_out *o, uint32_t k);

#endif
