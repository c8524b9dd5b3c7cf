/* step_pair.h - two STEP session ends connected back to back, for the session
 * tests: what one end queues goes through a real deframer (step_deframe.c)
 * into the other, as it would through a TCP connection. */
#ifndef TEST_STEP_PAIR_H
#define TEST_STEP_PAIR_H

#include <string.h>

#include "fast/step_deframe.h"
#include "step/step_sess.h"

struct end {
	struct step_sess s;
	struct step_deframer d;
	uint32_t r;          /* STEP_SESS_* bits accumulated since last cleared */
	uint32_t nev;
	struct step_ev ev[64]; /* events taken from the session, in order */
	uint32_t cut;        /* nonzero: what this end sends is lost (a dead link) */
};

static inline void end_init(struct end *e, uint32_t role, const char *sender, const char *target, const char *user,
			    const char *pw, uint32_t hb)
{
	struct step_sess_cfg c;
	memset(&c, 0, sizeof c);
	c.role = role;
	snprintf(c.sender, sizeof c.sender, "%s", sender);
	snprintf(c.target, sizeof c.target, "%s", target);
	snprintf(c.username, sizeof c.username, "%s", user);
	snprintf(c.password, sizeof c.password, "%s", pw);
	c.heartbeat_s = hb;
	memset(e, 0, sizeof *e);
	step_sess_init(&e->s, &c);
	step_init(&e->d);
}

static inline void end_events(struct end *e)
{
	while (e->nev < 64 && step_sess_event(&e->s, &e->ev[e->nev]))
		e->nev++;
}

/* Count of events of a type taken so far; *last gets the last one. */
static inline int end_count(const struct end *e, uint32_t type, const struct step_ev **last)
{
	int n = 0;
	for (uint32_t i = 0; i < e->nev; i++)
		if (e->ev[i].type == type) {
			n++;
			if (last)
				*last = &e->ev[i];
		}
	return n;
}

/* Move from's queued bytes into to; returns the messages delivered. */
static inline int end_deliver(struct end *from, struct end *to, uint64_t now)
{
	int msgs = 0, st;
	uint32_t off = 0, n = from->s.out_len;
	uint8_t buf[STEP_SESS_OUT_MAX];
	memcpy(buf, from->s.out, n);
	step_sess_sent(&from->s);
	if (from->cut)
		return 0;
	for (int guard = 0; guard < 1000; guard++) {
		off += step_feed(&to->d, buf + off, n - off, &st);
		if (st == STEP_MSG) {
			msgs++;
			if (to->d.msg.raw)
				to->r |= step_sess_on_msg(&to->s, to->d.msg.raw, to->d.msg.len, now);
			else
				to->r |= step_sess_on_data(&to->s, to->d.msg.seq, now);
		}
		if (st == STEP_NEED_MORE)
			break;
	}
	end_events(to);
	return msgs;
}

/* Deliver both ways until nothing is queued. */
static inline void pump(struct end *a, struct end *b, uint64_t now)
{
	for (int i = 0; i < 10 && (a->s.out_len || b->s.out_len); i++) {
		end_deliver(a, b, now);
		end_deliver(b, a, now);
	}
	end_events(a);
	end_events(b);
}

static inline void tick(struct end *e, uint64_t now)
{
	e->r |= step_sess_tick(&e->s, now);
	end_events(e);
}

/* The usual pair: a client TOED (HeartBtInt hb) and a server SSE (5 s) with one Username and Password. */
static inline void pair_setup(struct end *cli, struct end *srv, uint32_t hb)
{
	end_init(cli, STEP_SESS_CLIENT, "TOED", "SSE", "user", "secret", hb);
	end_init(srv, STEP_SESS_SERVER, "SSE", "TOED", "user", "secret", 5);
}

/* Both ends connected at now, the client's Logon and the server's answer exchanged. */
static inline void pair_logon(struct end *cli, struct end *srv, uint64_t now)
{
	srv->r |= step_sess_connected(&srv->s, now);
	cli->r |= step_sess_connected(&cli->s, now);
	pump(cli, srv, now);
}

#endif
