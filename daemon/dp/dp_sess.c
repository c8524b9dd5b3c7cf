/* dp_sess.c - the STEP session on toed's own connections (see dp_sess.h). Data-plane thread only. */
#include "dp/dp_sess.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "step/host/step_ev_fmt.h"

static uint64_t clock_ms(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000ull + (uint64_t)ts.tv_nsec / 1000000ull;
}

static uint64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A record for the feed's clients (ev's, or code's when ev is NULL), behind the
 * records queued before it; counted when the queue is full, and then the feed's
 * next record says events were lost. */
static void queue_rec(struct dp_sess *s, uint32_t i, const struct step_ev *ev, uint32_t code, uint64_t a1,
		      uint64_t a2, const char *text)
{
	struct dp_sess_feed *sf = &s->f[i];
	struct dp_tcp_sess *rep = &s->t->f[i].sess;
	uint64_t d = sf->l.s.st.ev_dropped; /* the session's own queue ran over: events never seen here */
	if (d != sf->ev_dropped_seen) {
		rep->records_lost += d - sf->ev_dropped_seen;
		sf->ev_dropped_seen = d;
		sf->lost = 1;
	}
	if (ev && !step_rec_code(ev->type))
		return; /* not one for clients */
	if (s->rq_n == DP_SESS_REC_MAX) {
		rep->records_lost++;
		sf->lost = 1;
		return;
	}
	union toe_record *r = &s->rq[(s->rq_head + s->rq_n) % DP_SESS_REC_MAX];
	uint32_t fl = sf->lost ? TOE_SESS_F_EVENTS_LOST : 0;
	sf->where.rx_ns = real_ns();
	if (ev)
		step_rec_from_ev(r, ev, fl, &sf->l.s, &sf->where);
	else
		step_rec_build(r, code, a1, a2, text, fl, &sf->l.s, &sf->where);
	s->rq_n++;
	sf->lost = 0;
	rep->records++;
}

void dp_sess_take_passwords(struct dp_sess *s, const struct dp_sess_passwords *pw)
{
	for (uint32_t i = 0; i < s->nfeeds; i++) {
		uint32_t f = s->t->f[i].feed;
		if (!s->f[i].on || f >= TOED_MAX_FEEDS || !pw->set[f])
			continue;
		memcpy(s->f[i].l.s.cfg.password, pw->pw[f], STEP_PW_MAX);
		s->f[i].l.s.cfg.password[STEP_PW_MAX - 1] = 0;
	}
}

int dp_sess_record(struct dp_sess *s, union toe_record *out)
{
	if (!s->rq_n)
		return 0;
	*out = s->rq[s->rq_head];
	s->rq_head = (s->rq_head + 1) % DP_SESS_REC_MAX;
	s->rq_n--;
	return 1;
}

void dp_sess_set_where(struct dp_sess *s, const struct rx_cfg *rc)
{
	for (uint32_t i = 0; i < s->nfeeds; i++) {
		struct step_rec_where *w = &s->f[i].where;
		uint32_t flow = s->t->f[i].stream;
		memset(w, 0, sizeof *w);
		w->stream = (uint16_t)flow;
		w->clock = TOE_CLK_POLL; /* the daemon's time when it happened */
		if ((rc->flags & RX_CFG_SEQ) && flow < MTOE_MAX_FLOWS && rc->seq.flow_group[flow] < RX_MAX_GROUPS) {
			w->group = (uint8_t)(rc->seq.flow_group[flow] + 1);
			w->line = rc->seq.flow_line[flow];
		}
	}
}

int dp_sess_init(struct dp_sess *s, struct dp_tcp *t, const struct toed_config *cfg, char *err, size_t errlen)
{
	int any = 0;
	memset(s, 0, sizeof *s);
	s->t = t;
	s->nfeeds = t->nfeeds;
	s->utc_off_ms = (int64_t)clock_ms(CLOCK_REALTIME) - (int64_t)clock_ms(CLOCK_MONOTONIC);
	for (uint32_t i = 0; i < t->nfeeds; i++) {
		const struct toed_feed *fc = &cfg->feed[t->f[i].feed];
		struct step_sess_cfg sc;
		char why[TOED_PATH_MAX + 256];
		if (!toed_feed_has_session(fc))
			continue;
		if (toed_feed_session_cfg(fc, &sc, why, sizeof why) < 0) {
			snprintf(err, errlen, "%s: %s", cfg->path, why);
			return -1;
		}
		step_link_init(&s->f[i].l, &sc, s->utc_off_ms);
		explicit_bzero(&sc, sizeof sc); /* the password stays in the session's settings only */
		s->f[i].on = 1;
		t->f[i].sess.on = 1;
		any = 1;
	}
	return any;
}

/* Queued bytes into the TCP send buffer, as much as it takes. */
static void push(struct dp_sess *s, uint32_t i)
{
	struct dp_sess_feed *sf = &s->f[i];
	if (!sf->pend_len)
		return;
	int32_t n = dp_tcp_send(s->t, i, sf->pend, sf->pend_len);
	if (n <= 0)
		return;
	memmove(sf->pend, sf->pend + n, sf->pend_len - (uint32_t)n);
	sf->pend_len -= (uint32_t)n;
}

static void log_event(struct dp_sess *s, uint32_t i, const struct step_ev *ev, uint64_t now_ms)
{
	struct dp_sess_feed *sf = &s->f[i];
	struct dp_tcp_sess *r = &s->t->f[i].sess;
	char line[256];
	if (now_ms / 1000 != sf->log_sec) {
		if (sf->log_n > DP_SESS_LOG_BURST)
			log_warn("data plane: feed %s: session: %u event lines not logged in the last second "
				 "(toectl stats: log_suppressed)", s->t->f[i].name, sf->log_n - DP_SESS_LOG_BURST);
		sf->log_sec = now_ms / 1000;
		sf->log_n = 0;
	}
	if (++sf->log_n > DP_SESS_LOG_BURST) {
		r->log_suppressed++;
		return;
	}
	step_ev_format(ev, line, sizeof line);
	int warn = ev->type == STEP_EV_LOGON_REFUSED || ev->type == STEP_EV_LOGON_TIMEOUT ||
		   ev->type == STEP_EV_HB_MISSED || ev->type == STEP_EV_HB_TIMEOUT || ev->type == STEP_EV_PROTOCOL ||
		   ev->type == STEP_EV_SEQ_GAP || ev->type == STEP_EV_PEER_LOGOUT;
	toed_log(warn ? TOED_LOG_WARNING : TOED_LOG_INFO, "data plane: feed %s: session: %s", s->t->f[i].name, line);
}

/* What a session call asked for: bytes out, events logged, the connection closed. */
static void act(struct dp_sess *s, uint32_t i, uint32_t r, uint64_t now_ms)
{
	struct dp_sess_feed *sf = &s->f[i];
	struct dp_tcp_feed *tf = &s->t->f[i];
	struct dp_tcp_sess *rep = &tf->sess;
	struct step_sess *ss = &sf->l.s;
	int hole = 0;
	if (r & STEP_SESS_SEND) {
		push(s, i); /* older bytes first */
		uint32_t off = 0;
		if (!sf->pend_len && tf->phase == DP_TCP_UP) {
			int32_t n = dp_tcp_send(s->t, i, ss->out, ss->out_len);
			off = n > 0 ? (uint32_t)n : 0;
		}
		if (tf->phase == DP_TCP_UP && off < ss->out_len) {
			uint32_t rest = ss->out_len - off;
			if (rest <= DP_SESS_PEND_MAX - sf->pend_len) {
				memcpy(sf->pend + sf->pend_len, ss->out + off, rest);
				sf->pend_len += rest;
				rep->out_queued += rest;
			} else {
				rep->out_dropped += rest;
				hole = 1;
			}
		}
		/* not up: the session's bytes belong to a connection that is gone */
		step_sess_sent(ss);
	}
	struct step_ev ev;
	while (step_sess_event(ss, &ev)) {
		log_event(s, i, &ev, now_ms);
		queue_rec(s, i, &ev, 0, 0, 0, NULL);
		if (ev.type == STEP_EV_LOGGED_ON)
			tf->backoff_ns = 0; /* logged on: the next reconnect starts from the shortest wait */
		if (ev.type == STEP_EV_LOGON_REFUSED || ev.type == STEP_EV_PEER_LOGOUT) {
			snprintf(rep->last_logout, sizeof rep->last_logout, "%.*s", (int)sizeof rep->last_logout - 1,
				 ev.text);
		}
	}
	rep->state = ss->state;
	rep->logons = ss->st.logons;
	rep->refusals = ss->st.logon_refused;
	rep->hb_missed = ss->st.hb_missed;
	rep->hb_timeouts = ss->st.hb_timeouts;
	rep->peer_logouts = ss->st.peer_logouts;
	rep->out_heartbeats = ss->st.out_heartbeats;
	rep->out_test_requests = ss->st.out_test_requests;
	rep->in_msgs = ss->st.in_msgs;
	if (hole) {
		log_warn("data plane: feed %s: session: %u outbound bytes did not fit the queue; closing the connection",
			 tf->name, DP_SESS_PEND_MAX);
	}
	/* a closing session asks again on every tick until the connection is down: count it once */
	if (((r & STEP_SESS_CLOSE) || hole) && !tf->asked_close && dp_tcp_close(s->t, i) == 0)
		rep->closes++;
}

static void on_open(void *arg, struct dp_tcp *t, uint32_t i)
{
	struct dp_sess *s = arg;
	if (i >= s->nfeeds || !s->f[i].on)
		return;
	struct dp_sess_feed *sf = &s->f[i];
	(void)t;
	uint64_t now = clock_ms(CLOCK_MONOTONIC);
	s->f[i].pend_len = 0;
	act(s, i, step_link_open(&s->f[i].l, now), now);
	if (sf->l.s.state == STEP_SESS_LOGON_SENT)
		queue_rec(s, i, NULL, TOE_SESS_LOGON_SENT, sf->l.s.cfg.heartbeat_s, 0, NULL);
}

static void on_close(void *arg, struct dp_tcp *t, uint32_t i)
{
	struct dp_sess *s = arg;
	(void)t;
	if (i >= s->nfeeds || !s->f[i].on)
		return;
	uint64_t now = clock_ms(CLOCK_MONOTONIC);
	s->f[i].pend_len = 0;
	act(s, i, step_link_close(&s->f[i].l, now), now);
}

static void on_bytes(void *arg, struct dp_tcp *t, uint32_t i, const uint8_t *data, uint32_t len)
{
	struct dp_sess *s = arg;
	(void)t;
	if (i >= s->nfeeds || !s->f[i].on)
		return;
	uint64_t now = clock_ms(CLOCK_MONOTONIC);
	act(s, i, step_link_bytes(&s->f[i].l, data, len, now), now);
}

void dp_sess_data(struct dp_sess *s, uint32_t i, uint64_t seq, uint64_t now_ns)
{
	if (i >= s->nfeeds || !s->f[i].on)
		return;
	uint64_t now = now_ns / 1000000ull;
	act(s, i, step_sess_on_data(&s->f[i].l.s, seq, now), now);
}

void dp_sess_attempts(struct dp_sess *s, uint32_t i)
{
	if (i >= s->nfeeds || !s->f[i].on || s->t->f[i].attempts == s->f[i].attempts_seen)
		return;
	struct dp_tcp_feed *tf = &s->t->f[i];
	/* dp_tcp_tick (or the card) started an attempt, after waiting backoff_ns */
	if (s->f[i].attempts_seen && !tf->accept)
		queue_rec(s, i, NULL, TOE_SESS_RECONNECTING, tf->attempts, tf->backoff_ns / 1000000ull, NULL);
	s->f[i].attempts_seen = tf->attempts;
}

static void on_tick(void *arg, struct dp_tcp *t, uint64_t now_ns)
{
	struct dp_sess *s = arg;
	uint64_t now = now_ns / 1000000ull;
	(void)t;
	for (uint32_t i = 0; i < s->nfeeds; i++) {
		if (!s->f[i].on)
			continue;
		dp_sess_attempts(s, i);
		push(s, i);
		act(s, i, step_link_tick(&s->f[i].l, now), now);
	}
}

struct dp_tcp_hooks dp_sess_hooks(struct dp_sess *s)
{
	struct dp_tcp_hooks h = {.arg = s, .on_open = on_open, .on_close = on_close, .on_bytes = on_bytes,
				 .on_tick = on_tick};
	return h;
}

void dp_sess_logout(struct dp_sess *s, const char *text, uint64_t now_ns)
{
	uint64_t now = now_ns / 1000000ull;
	for (uint32_t i = 0; i < s->nfeeds; i++)
		if (s->f[i].on && s->f[i].l.s.state == STEP_SESS_ACTIVE) {
			act(s, i, step_sess_logout(&s->f[i].l.s, text, now), now);
			if (s->f[i].l.s.state == STEP_SESS_LOGOUT_SENT)
				queue_rec(s, i, NULL, TOE_SESS_LOGOUT_SENT, 0, 0, text);
		}
}

int dp_sess_busy(const struct dp_sess *s)
{
	for (uint32_t i = 0; i < s->nfeeds; i++)
		if (s->f[i].on && (s->f[i].l.s.state == STEP_SESS_LOGOUT_SENT || s->f[i].pend_len))
			return 1;
	return 0;
}
