/* card_sess.c - TOE_REC_CARD_SESS pieces back into session messages (see card_sess.h). */
#include "card/card_sess.h"

#include <string.h>

void card_sess_init(struct card_sess *c)
{
	memset(c, 0, sizeof *c);
}

/* The message being assembled on st is lost (the records that came are discarded). */
static void drop_cur(struct card_sess *c, struct card_sess_stream *st)
{
	if (!st->cur_no)
		return;
	c->st.lost++;
	c->st.pieces_lost += st->next_piece;
	st->lost++;
	st->last_no = st->cur_no;
	st->cur_no = 0;
}

/* Record numbers between the last one handled and `no` never came: those messages are lost. */
static void skipped(struct card_sess *c, struct card_sess_stream *st, uint32_t no)
{
	uint32_t d = no - st->last_no - 1u; /* numbers wrap at 2^32 */
	if (no == st->last_no || d >= 0x80000000u)
		return; /* a number already handled (a stray piece of a message given up) */
	c->st.lost += d;
	st->lost += d;
}

void card_sess_put(struct card_sess *c, const union toe_record *r, struct card_sess_out *out)
{
	const struct toe_card_sess *cs = (const struct toe_card_sess *)r->bytes;
	struct card_sess_stream *st;
	memset(out, 0, sizeof *out);
	out->stream = r->hdr.stream;
	if (r->hdr.type != TOE_REC_CARD_SESS || r->hdr.stream >= CARD_SESS_STREAMS) {
		c->st.bad++;
		return;
	}
	c->st.records++;
	st = &c->s[r->hdr.stream];
	if (cs->kind == TOE_CSESS_SEEN) {
		/* not numbered: never part of a message's pieces (fast_top sends those back to back) */
		c->st.seen++;
		out->what = CARD_SESS_SEEN;
		out->msg_seq = cs->hdr.msg_seq;
		return;
	}
	if (st->cur_no && (cs->msg_no != st->cur_no || cs->piece != st->next_piece || cs->kind != TOE_CSESS_PIECE))
		drop_cur(c, st); /* the rest of the message in progress never came */
	if (!st->cur_no) {
		skipped(c, st, cs->msg_no);
		if (cs->kind == TOE_CSESS_PIECE && cs->piece != 0) {
			/* a piece of a message whose start was lost */
			if (cs->msg_no != st->last_no) {
				c->st.lost++;
				st->lost++;
			}
			c->st.pieces_lost++;
			st->last_no = cs->msg_no;
			goto report;
		}
	}
	switch (cs->kind) {
	case TOE_CSESS_CLOSE:
		c->st.closes++;
		st->last_no = cs->msg_no;
		out->what = CARD_SESS_CLOSE;
		break;
	case TOE_CSESS_TOO_LONG:
		c->st.too_long++;
		c->st.lost++;
		st->lost++;
		st->last_no = cs->msg_no;
		break;
	case TOE_CSESS_PIECE:
		if (cs->piece == 0) {
			if (cs->npieces == 0 || cs->npieces > TOE_CSESS_MAX_PIECES || cs->msg_len > TOE_CSESS_MAX_BYTES) {
				c->st.bad++;
				st->last_no = cs->msg_no;
				break;
			}
			st->cur_no = cs->msg_no;
			st->next_piece = 0;
			st->npieces = cs->npieces;
			st->len = 0;
		}
		if (cs->len > TOE_CSESS_DATA || st->len + cs->len > TOE_CSESS_MAX_BYTES || cs->npieces != st->npieces) {
			c->st.bad++;
			drop_cur(c, st);
			break;
		}
		memcpy(st->buf + st->len, cs->data, cs->len);
		st->len += cs->len;
		st->next_piece++;
		if (st->next_piece < st->npieces)
			break;
		st->last_no = st->cur_no;
		st->cur_no = 0;
		if (st->len != cs->msg_len) {
			c->st.bad++;
			c->st.lost++;
			st->lost++;
			break;
		}
		c->st.msgs++;
		out->what = CARD_SESS_MSG;
		out->msg = st->buf;
		out->len = st->len;
		out->msg_seq = cs->hdr.msg_seq;
		memcpy(out->msgtype, cs->msgtype, sizeof out->msgtype);
		out->msgtype[sizeof out->msgtype - 1] = 0;
		break;
	default:
		c->st.bad++;
		break;
	}
report:
	out->lost = st->lost;
	st->lost = 0;
}

void card_sess_overflow(struct card_sess *c)
{
	for (uint32_t i = 0; i < CARD_SESS_STREAMS; i++)
		drop_cur(c, &c->s[i]);
}
