/* step_rec.c - session events as client records (see step_rec.h) (synthesisable subset). */
#include "step_rec.h"

/* enum step_ev_type -> enum toe_sess_event (0: not published) */
static const uint8_t codes[STEP_EV_COUNT] = {
	[STEP_EV_NONE] = 0,
	[STEP_EV_LOGGED_ON] = TOE_SESS_LOGGED_ON,
	[STEP_EV_LOGON_REFUSED] = TOE_SESS_LOGON_REFUSED,
	[STEP_EV_REFUSED_PEER] = 0,
	[STEP_EV_LOGON_TIMEOUT] = TOE_SESS_LOGON_TIMEOUT,
	[STEP_EV_HB_MISSED] = TOE_SESS_HB_MISSED,
	[STEP_EV_HB_TIMEOUT] = TOE_SESS_HB_TIMEOUT,
	[STEP_EV_PEER_LOGOUT] = TOE_SESS_PEER_LOGOUT,
	[STEP_EV_LOGGED_OUT] = TOE_SESS_LOGGED_OUT,
	[STEP_EV_DISCONNECTED] = TOE_SESS_DISCONNECTED,
	[STEP_EV_SEQ_RESET] = TOE_SESS_SEQ_RESET,
	[STEP_EV_SEQ_GAP] = TOE_SESS_SEQ_GAP,
	[STEP_EV_SEQ_REPEAT] = TOE_SESS_SEQ_REPEAT,
	[STEP_EV_SEQ_SET] = TOE_SESS_SEQ_SET,
	[STEP_EV_PROTOCOL] = TOE_SESS_PROTOCOL,
};

uint32_t step_rec_code(uint32_t step_ev_type)
{
	return step_ev_type < STEP_EV_COUNT ? codes[step_ev_type] : 0;
}

void step_rec_build(union toe_record *r, uint32_t code, uint64_t arg1, uint64_t arg2, const char *text,
		    uint32_t flags, const struct step_sess *s, const struct step_rec_where *w)
{
	struct toe_session *e = &r->session;
	uint32_t i, n = 0;
	for (i = 0; i < (uint32_t)TOE_RECORD_SIZE; i++)
		r->bytes[i] = 0;
	e->hdr.type = TOE_REC_SESSION;
	e->hdr.stream = w->stream;
	e->hdr.group = w->group;
	e->hdr.line = w->group ? w->line : 0;
	e->hdr.rx_ns = w->rx_ns;
	e->hdr.present = (w->clock << TOE_CLK_SHIFT) & TOE_CLK_MASK;
	e->event = code;
	e->flags = flags;
	e->next_in = s->in_expect;
	e->next_out = s->out_seq;
	e->arg1 = arg1;
	e->arg2 = arg2;
	if (!text)
		return;
	/* up to TOE_SESS_TEXT_LEN - 1 characters; one more present means the text was longer */
	for (i = 0; i < (uint32_t)TOE_SESS_TEXT_LEN; i++) {
		if (!text[i])
			break;
		n++;
	}
	if (n == TOE_SESS_TEXT_LEN) {
		e->flags |= TOE_SESS_F_TEXT_CUT;
		n = TOE_SESS_TEXT_LEN - 1;
	}
	for (i = 0; i < (uint32_t)TOE_SESS_TEXT_LEN - 1; i++) {
		if (i >= n)
			break;
		e->text[i] = text[i];
	}
}

int step_rec_from_ev(union toe_record *r, const struct step_ev *ev, uint32_t flags, const struct step_sess *s,
		     const struct step_rec_where *w)
{
	uint32_t code = step_rec_code(ev->type);
	if (!code)
		return 0;
	step_rec_build(r, code, ev->a, ev->b, ev->text, flags, s, w);
	return 1;
}
