/* step_rec.h - session events as client records (TOE_REC_SESSION, toe/tick.h) (synthesisable subset).
 *
 * The session layer's events (struct step_ev) become struct toe_session
 * records so that strategies see their feed's session in the ring, in order
 * with its ticks: what happened (enum toe_sess_event), the MsgSeqNums in force
 * afterwards and the exchange's reason text, cut to the record's field and
 * flagged. The caller says where the record belongs (the feed's pipeline
 * stream, its sequence group and line) and when; the publisher stamps seq.
 */
#ifndef STEP_REC_H
#define STEP_REC_H

#include <stdint.h>
#include "toe/tick.h"
#include "step_sess.h"

/* Where and when a record belongs: hdr.stream, hdr.group, hdr.line, hdr.rx_ns (and its clock). */
struct step_rec_where {
	uint16_t stream;
	uint8_t group, line;
	uint32_t clock; /* enum toe_rx_clock of rx_ns */
	uint64_t rx_ns;
};

/* The record code (enum toe_sess_event) of a session event type; 0 for those
 * clients are not sent (STEP_EV_REFUSED_PEER: the server side's). */
uint32_t step_rec_code(uint32_t step_ev_type);

/* Fill all 128 bytes of r as a TOE_REC_SESSION record: code, arg1, arg2, text
 * (read up to its NUL, at most TOE_SESS_TEXT_LEN bytes; a longer one is cut to
 * TOE_SESS_TEXT_LEN - 1 characters and flagged TOE_SESS_F_TEXT_CUT; NULL: none)
 * and the session's next_in / next_out. flags: further TOE_SESS_F_* bits. */
void step_rec_build(union toe_record *r, uint32_t code, uint64_t arg1, uint64_t arg2, const char *text,
		    uint32_t flags, const struct step_sess *s, const struct step_rec_where *w);

/* A session event as its record (its a, b and text as arg1, arg2 and text):
 * 1, or 0 when the event has no record (r untouched). */
int step_rec_from_ev(union toe_record *r, const struct step_ev *ev, uint32_t flags, const struct step_sess *s,
		     const struct step_rec_where *w);

#endif
