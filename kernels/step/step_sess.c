/* step_sess.c - the STEP session state machine (synthesisable subset).
 *
 * See step_sess.h for the rules. Everything here is driven by the caller's
 * calls; the only loops are over bounded strings and the event queue.
 */
#include "step_sess.h"

#define LOGON_TIMEOUT_DEF_MS 10000u

static const char *const ev_names[STEP_EV_COUNT] = {
	"none",     "logged_on",   "logon_refused", "refused_peer", "logon_timeout", "heartbeat_missed",
	"heartbeat_timeout", "peer_logout", "logged_out", "disconnected", "seq_reset", "seq_gap",
	"seq_repeat", "seq_set", "protocol",
};

static const char *const state_names[] = {
	"down", "logon_sent", "logon_wait", "active", "logout_sent", "closing",
};

const char *step_ev_name(uint32_t type)
{
	return type < STEP_EV_COUNT ? ev_names[type] : "?";
}

const char *step_sess_state_name(uint32_t state)
{
	return state <= STEP_SESS_CLOSING ? state_names[state] : "?";
}

void step_sess_init(struct step_sess *s, const struct step_sess_cfg *cfg)
{
	uint8_t *z = (uint8_t *)s;
	uint32_t i;
	for (i = 0; i < (uint32_t)sizeof *s; i++)
		z[i] = 0;
	s->cfg = *cfg;
	s->cfg.sender[STEP_ID_MAX - 1] = 0;
	s->cfg.target[STEP_ID_MAX - 1] = 0;
	s->cfg.username[STEP_ID_MAX - 1] = 0;
	s->cfg.password[STEP_PW_MAX - 1] = 0;
	if (s->cfg.heartbeat_s > STEP_SESS_HB_MAX)
		s->cfg.heartbeat_s = STEP_SESS_HB_MAX;
	if (!s->cfg.logon_timeout_ms)
		s->cfg.logon_timeout_ms = LOGON_TIMEOUT_DEF_MS;
	s->out_seq = 1;
	s->state = STEP_SESS_DOWN;
}

/* ---- events -------------------------------------------------------------------- */

static uint32_t event(struct step_sess *s, uint32_t type, uint64_t a, uint64_t b, const char *text, uint64_t now)
{
	struct step_ev *e;
	if (s->ev_count == STEP_SESS_EV_MAX) {
		s->st.ev_dropped++;
		return STEP_SESS_EVENT;
	}
	e = &s->ev[(s->ev_head + s->ev_count) % STEP_SESS_EV_MAX];
	s->ev_count++;
	e->type = type;
	e->pad = 0;
	e->a = a;
	e->b = b;
	e->at_ms = now;
	step_strcpy(e->text, text, STEP_TEXT_MAX);
	return STEP_SESS_EVENT;
}

int step_sess_event(struct step_sess *s, struct step_ev *ev)
{
	if (!s->ev_count)
		return 0;
	*ev = s->ev[s->ev_head];
	s->ev_head = (s->ev_head + 1) % STEP_SESS_EV_MAX;
	s->ev_count--;
	return 1;
}

/* ---- outbound ------------------------------------------------------------------ */

static void begin(struct step_sess *s, struct step_enc *e, const char *mt, uint64_t seq, uint64_t now)
{
	step_enc_begin(e, s->scratch, STEP_SESS_MSG_MAX, mt, s->cfg.sender, s->cfg.target, seq,
		       (uint64_t)((int64_t)now + s->utc_off_ms));
}

/* Append the encoded message to out[]. */
static uint32_t finish(struct step_sess *s, struct step_enc *e, uint64_t now)
{
	uint32_t n = step_enc_end(e), i;
	if (!n || n > STEP_SESS_OUT_MAX - s->out_len) {
		s->st.out_dropped++;
		return 0;
	}
	for (i = 0; i < n; i++)
		s->out[s->out_len + i] = e->buf[e->start + i];
	s->out_len += n;
	s->st.out_msgs++;
	s->last_out_ms = now;
	return STEP_SESS_SEND;
}

static uint32_t send_logon(struct step_sess *s, uint64_t now, uint32_t reset)
{
	struct step_enc e;
	begin(s, &e, STEP_MT_LOGON, s->out_seq++, now);
	step_enc_u64(&e, STEP_TAG_ENCRYPT_METHOD, 0);
	step_enc_u64(&e, STEP_TAG_HEARTBT_INT, s->cfg.role == STEP_SESS_CLIENT ? s->cfg.heartbeat_s : s->hb_s);
	if (reset)
		step_enc_str(&e, STEP_TAG_RESET_SEQ_NUM, "Y");
	if (s->cfg.role == STEP_SESS_CLIENT) {
		if (s->cfg.username[0])
			step_enc_str(&e, STEP_TAG_USERNAME, s->cfg.username);
		if (s->cfg.password[0])
			step_enc_str(&e, STEP_TAG_PASSWORD, s->cfg.password);
	}
	return finish(s, &e, now);
}

static uint32_t send_heartbeat(struct step_sess *s, uint64_t now, const char *test_id)
{
	struct step_enc e;
	begin(s, &e, STEP_MT_HEARTBEAT, s->out_seq++, now);
	if (test_id && test_id[0])
		step_enc_str(&e, STEP_TAG_TEST_REQ_ID, test_id);
	s->st.out_heartbeats++;
	return finish(s, &e, now);
}

static uint32_t send_logout(struct step_sess *s, uint64_t now, const char *text)
{
	struct step_enc e;
	begin(s, &e, STEP_MT_LOGOUT, s->out_seq++, now);
	if (text && text[0])
		step_enc_str(&e, STEP_TAG_TEXT, text);
	return finish(s, &e, now);
}

/* TestReqID "T<n>" */
static uint32_t send_test_request(struct step_sess *s, uint64_t now)
{
	struct step_enc e;
	uint8_t d[12];
	uint32_t n = 0, v = ++s->test_n, i;
	for (i = 0; i < 10; i++) {
		d[n++] = (uint8_t)('0' + v % 10);
		v /= 10;
		if (!v)
			break;
	}
	s->test_id[0] = 'T';
	for (i = 0; i < n; i++)
		s->test_id[1 + i] = (char)d[n - 1 - i];
	s->test_id[1 + n] = 0;
	begin(s, &e, STEP_MT_TEST_REQUEST, s->out_seq++, now);
	step_enc_str(&e, STEP_TAG_TEST_REQ_ID, s->test_id);
	s->test_pending = 1;
	s->test_ms = now;
	s->st.out_test_requests++;
	return finish(s, &e, now);
}

/* A peer's ResendRequest: we only ever send session messages, which are never
 * resent, so the whole range is filled with one SequenceReset-GapFill. */
static uint32_t send_gap_fill(struct step_sess *s, uint64_t begin_seq, uint64_t now)
{
	struct step_enc e;
	if (!begin_seq || begin_seq >= s->out_seq)
		return 0; /* nothing was sent in that range yet */
	begin(s, &e, STEP_MT_SEQUENCE_RESET, begin_seq, now);
	step_enc_str(&e, STEP_TAG_POSS_DUP, "Y");
	step_enc_str(&e, STEP_TAG_GAP_FILL, "Y");
	step_enc_u64(&e, STEP_TAG_NEW_SEQ_NO, s->out_seq);
	return finish(s, &e, now);
}

void step_sess_sent(struct step_sess *s)
{
	s->out_len = 0;
}

uint64_t step_sess_next_seq(struct step_sess *s, uint64_t now_ms)
{
	s->last_out_ms = now_ms;
	return s->out_seq++;
}

/* ---- state changes ----------------------------------------------------------- */

static void set_state(struct step_sess *s, uint32_t st, uint64_t now)
{
	s->state = st;
	s->state_ms = now;
}

/* Give up: CLOSING, the caller closes after sending what is queued. */
static uint32_t closing(struct step_sess *s, uint64_t now)
{
	set_state(s, STEP_SESS_CLOSING, now);
	s->test_pending = 0;
	return STEP_SESS_CLOSE | (s->out_len ? STEP_SESS_SEND : 0);
}

uint32_t step_sess_connected(struct step_sess *s, uint64_t now_ms)
{
	uint32_t r = 0;
	if (s->state != STEP_SESS_DOWN)
		r |= step_sess_disconnected(s, now_ms);
	s->out_len = 0;
	s->last_in_ms = now_ms;
	s->last_out_ms = now_ms;
	s->test_pending = 0;
	if (s->cfg.role == STEP_SESS_SERVER) {
		set_state(s, STEP_SESS_LOGON_WAIT, now_ms);
		return r;
	}
	if (s->cfg.reset_on_logon)
		s->out_seq = 1;
	set_state(s, STEP_SESS_LOGON_SENT, now_ms);
	return r | send_logon(s, now_ms, s->cfg.reset_on_logon);
}

uint32_t step_sess_disconnected(struct step_sess *s, uint64_t now_ms)
{
	uint32_t expected = s->state == STEP_SESS_CLOSING || s->state == STEP_SESS_LOGOUT_SENT;
	if (s->state == STEP_SESS_DOWN)
		return 0;
	set_state(s, STEP_SESS_DOWN, now_ms);
	s->out_len = 0; /* nobody to send it to */
	s->test_pending = 0;
	s->st.disconnects++;
	return event(s, STEP_EV_DISCONNECTED, expected, 0, "", now_ms);
}

uint32_t step_sess_logout(struct step_sess *s, const char *text, uint64_t now_ms)
{
	uint32_t r;
	if (s->state == STEP_SESS_DOWN || s->state == STEP_SESS_CLOSING || s->state == STEP_SESS_LOGOUT_SENT)
		return s->state == STEP_SESS_CLOSING ? STEP_SESS_CLOSE : 0;
	r = send_logout(s, now_ms, text);
	if (s->state != STEP_SESS_ACTIVE) /* not logged on yet: nothing to wait for */
		return r | closing(s, now_ms);
	set_state(s, STEP_SESS_LOGOUT_SENT, now_ms);
	return r;
}

/* ---- inbound -------------------------------------------------------------------- */

/* The sequence rules of step_sess.h. A Logon may restart the sequence. */
static uint32_t seq_check(struct step_sess *s, uint64_t seq, uint32_t poss_dup, uint32_t logon_reset, uint64_t now)
{
	uint64_t x = s->in_expect;
	if (!seq) {
		s->st.in_no_seq++; /* no 34=: nothing to check against */
		return 0;
	}
	if (logon_reset) {
		s->in_expect = seq + 1;
		if (x > 1 && seq < x) {
			s->st.seq_resets++;
			return event(s, STEP_EV_SEQ_RESET, x, seq, "", now);
		}
	}
	if (x == 0 || seq == x) {
		s->in_expect = seq + 1;
		return 0;
	}
	if (seq > x) {
		s->st.in_gaps++;
		s->st.in_gap_msgs += seq - x;
		s->in_expect = seq + 1;
		return event(s, STEP_EV_SEQ_GAP, x, seq, "", now);
	}
	if (poss_dup) {
		s->st.in_possdup++;
		return 0;
	}
	s->st.in_repeats++;
	return event(s, STEP_EV_SEQ_REPEAT, x, seq, "", now);
}

uint32_t step_sess_on_data(struct step_sess *s, uint64_t seq, uint64_t now_ms)
{
	if (s->state == STEP_SESS_DOWN || s->state == STEP_SESS_CLOSING) {
		s->st.in_ignored++;
		return 0;
	}
	s->last_in_ms = now_ms;
	s->test_pending = 0;
	s->st.in_msgs++;
	s->st.in_data++;
	return seq_check(s, seq, 0, 0, now_ms);
}

/* A protocol error: report it, log out with the reason and close. */
static uint32_t violation(struct step_sess *s, const char *why, uint64_t now)
{
	uint32_t r = event(s, STEP_EV_PROTOCOL, 0, 0, why, now);
	r |= send_logout(s, now, why);
	return r | closing(s, now);
}

/* Server: the peer's Logon. */
static uint32_t server_logon(struct step_sess *s, const struct step_fields *f, uint64_t now)
{
	const char *why = 0;
	uint32_t hb = f->has_heartbeat ? f->heartbeat_s : s->cfg.heartbeat_s, r;

	if (f->too_long)
		why = "a field of the Logon is too long";
	else if (s->cfg.target[0] && !step_streq(f->sender, s->cfg.target, STEP_ID_MAX))
		why = "unknown SenderCompID";
	else if (s->cfg.sender[0] && !step_streq(f->target, s->cfg.sender, STEP_ID_MAX))
		why = "wrong TargetCompID";
	else if (s->cfg.username[0] && !step_streq(f->username, s->cfg.username, STEP_ID_MAX))
		why = "unknown Username";
	else if (s->cfg.password[0] && !step_streq(f->password, s->cfg.password, STEP_PW_MAX))
		why = "wrong Password";
	else if (f->has_encrypt && f->encrypt != 0)
		why = "EncryptMethod must be 0";
	else if (hb > STEP_SESS_HB_MAX)
		why = "HeartBtInt out of range";
	else if (!f->seq)
		why = "Logon without MsgSeqNum";
	if (why) {
		s->st.logon_refused++;
		r = event(s, STEP_EV_REFUSED_PEER, 0, 0, why, now);
		r |= send_logout(s, now, why);
		return r | closing(s, now);
	}
	r = seq_check(s, f->seq, f->poss_dup, f->reset_seq || f->seq == 1, now);
	if (f->reset_seq)
		s->out_seq = 1;
	if (!s->cfg.target[0]) /* any peer was accepted: answer to the one that logged on */
		step_strcpy(s->cfg.target, f->sender, STEP_ID_MAX);
	s->hb_s = hb;
	r |= send_logon(s, now, f->reset_seq);
	set_state(s, STEP_SESS_ACTIVE, now);
	s->st.logons++;
	return r | event(s, STEP_EV_LOGGED_ON, hb, f->seq, f->sender, now);
}

/* Client: the answer to our Logon. */
static uint32_t client_logon(struct step_sess *s, const struct step_fields *f, uint64_t now)
{
	uint32_t r;
	if (s->cfg.target[0] && !step_streq(f->sender, s->cfg.target, STEP_ID_MAX))
		return violation(s, "Logon answer from an unexpected SenderCompID", now);
	if (s->cfg.sender[0] && !step_streq(f->target, s->cfg.sender, STEP_ID_MAX))
		return violation(s, "Logon answer for another TargetCompID", now);
	if (f->has_heartbeat && f->heartbeat_s > STEP_SESS_HB_MAX)
		return violation(s, "HeartBtInt out of range", now);
	if (!f->seq)
		return violation(s, "Logon without MsgSeqNum", now);
	s->hb_s = f->has_heartbeat ? f->heartbeat_s : s->cfg.heartbeat_s;
	r = seq_check(s, f->seq, f->poss_dup, f->reset_seq || f->seq == 1, now);
	set_state(s, STEP_SESS_ACTIVE, now);
	s->st.logons++;
	return r | event(s, STEP_EV_LOGGED_ON, s->hb_s, f->seq, f->sender, now);
}

static uint32_t on_logout(struct step_sess *s, const struct step_fields *f, uint64_t now)
{
	uint32_t r = 0;
	if (s->state == STEP_SESS_LOGON_SENT) {
		s->st.logon_refused++;
		r = event(s, STEP_EV_LOGON_REFUSED, 0, 0, f->text, now);
	} else if (s->state == STEP_SESS_LOGOUT_SENT) {
		r = event(s, STEP_EV_LOGGED_OUT, 0, 0, f->text, now);
	} else {
		s->st.peer_logouts++;
		r = event(s, STEP_EV_PEER_LOGOUT, 0, 0, f->text, now);
		if (s->state == STEP_SESS_ACTIVE)
			r |= send_logout(s, now, ""); /* the answer the peer waits for */
	}
	return r | closing(s, now);
}

uint32_t step_sess_on_msg(struct step_sess *s, const uint8_t *msg, uint32_t len, uint64_t now_ms)
{
	struct step_fields f;
	uint32_t r = 0;
	char t;

	if (s->state == STEP_SESS_DOWN || s->state == STEP_SESS_CLOSING) {
		s->st.in_ignored++;
		return s->state == STEP_SESS_CLOSING ? STEP_SESS_CLOSE : 0;
	}
	s->last_in_ms = now_ms;
	s->test_pending = 0;
	s->st.in_msgs++;
	if (step_fields_read(msg, len, &f) < 0) {
		s->st.in_bad++;
		return event(s, STEP_EV_PROTOCOL, 0, 0, "unreadable session message", now_ms);
	}
	if (!step_is_admin(f.msgtype)) {
		s->st.in_data++;
		if (s->state != STEP_SESS_ACTIVE && s->state != STEP_SESS_LOGOUT_SENT)
			return violation(s, "data before Logon", now_ms);
		return seq_check(s, f.seq, f.poss_dup, 0, now_ms);
	}
	s->st.in_admin++;
	t = f.msgtype[0];

	if (s->state == STEP_SESS_LOGON_WAIT) {
		if (t != 'A')
			return violation(s, "the first message must be a Logon", now_ms);
		return server_logon(s, &f, now_ms);
	}
	if (s->state == STEP_SESS_LOGON_SENT) {
		if (t == 'A')
			return client_logon(s, &f, now_ms);
		if (t == '5')
			return on_logout(s, &f, now_ms);
		return violation(s, "expected the Logon answer", now_ms);
	}

	/* ACTIVE or LOGOUT_SENT */
	if (t == '4' && !f.gap_fill) {
		/* SequenceReset-Reset: MsgSeqNum is not checked, NewSeqNo is the next expected */
		uint64_t x = s->in_expect;
		if (!f.has_new_seq || !f.new_seq)
			return event(s, STEP_EV_PROTOCOL, 0, 0, "SequenceReset without NewSeqNo", now_ms);
		s->in_expect = f.new_seq;
		return event(s, STEP_EV_SEQ_SET, x, f.new_seq, "", now_ms);
	}
	r |= seq_check(s, f.seq, f.poss_dup, 0, now_ms);
	switch (t) {
	case '0': /* Heartbeat: arriving at all is what matters */
		break;
	case '1':
		r |= send_heartbeat(s, now_ms, f.test_req_id);
		break;
	case '2':
		r |= send_gap_fill(s, f.begin_seq, now_ms);
		break;
	case '3':
		r |= event(s, STEP_EV_PROTOCOL, f.seq, 0, f.text[0] ? f.text : "the peer rejected a message", now_ms);
		break;
	case '4': /* GapFill: the numbers up to NewSeqNo will not come */
		if (f.has_new_seq && f.new_seq > s->in_expect) {
			uint64_t x = s->in_expect;
			s->in_expect = f.new_seq;
			r |= event(s, STEP_EV_SEQ_SET, x, f.new_seq, "gap fill", now_ms);
		}
		break;
	case '5':
		r |= on_logout(s, &f, now_ms);
		break;
	default: /* 'A' */
		r |= event(s, STEP_EV_PROTOCOL, f.seq, 0, "Logon while logged on", now_ms);
		break;
	}
	return r;
}

/* ---- time ------------------------------------------------------------------------ */

uint32_t step_sess_tick(struct step_sess *s, uint64_t now_ms)
{
	uint64_t hb_ms = (uint64_t)s->hb_s * 1000u, lim, margin;
	uint32_t r = 0;

	switch (s->state) {
	case STEP_SESS_LOGON_SENT:
	case STEP_SESS_LOGON_WAIT:
		if (now_ms - s->state_ms < s->cfg.logon_timeout_ms)
			return 0;
		r = event(s, STEP_EV_LOGON_TIMEOUT, now_ms - s->state_ms, 0, "", now_ms);
		if (s->state == STEP_SESS_LOGON_WAIT)
			r |= send_logout(s, now_ms, "no Logon received");
		return r | closing(s, now_ms);
	case STEP_SESS_LOGOUT_SENT:
		if (now_ms - s->state_ms < STEP_SESS_LOGOUT_WAIT_MS)
			return 0;
		r = event(s, STEP_EV_LOGGED_OUT, 1, 0, "no Logout answer", now_ms);
		return r | closing(s, now_ms);
	case STEP_SESS_CLOSING:
		return STEP_SESS_CLOSE | (s->out_len ? STEP_SESS_SEND : 0);
	case STEP_SESS_ACTIVE:
		break;
	default:
		return 0;
	}
	if (!hb_ms)
		return 0;
	margin = hb_ms / 5 > 1000 ? hb_ms / 5 : 1000;
	lim = hb_ms + margin;
	if (s->test_pending && now_ms - s->test_ms >= lim) {
		s->st.hb_timeouts++;
		r = event(s, STEP_EV_HB_TIMEOUT, now_ms - s->last_in_ms, 0, "", now_ms);
		r |= send_logout(s, now_ms, "heartbeat timeout");
		return r | closing(s, now_ms);
	}
	if (!s->test_pending && now_ms - s->last_in_ms >= lim) {
		s->st.hb_missed++;
		r |= event(s, STEP_EV_HB_MISSED, now_ms - s->last_in_ms, 0, "", now_ms);
		r |= send_test_request(s, now_ms);
	}
	if (now_ms - s->last_out_ms >= hb_ms)
		r |= send_heartbeat(s, now_ms, 0);
	return r;
}
