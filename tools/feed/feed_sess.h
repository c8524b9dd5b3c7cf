/* feed_sess.h - the exchange's end of a STEP session over a TCP socket, for
 * toe-feedsim --session (host only).
 *
 * The session rules are kernels/step/step_sess.c in the server role; this
 * adds the socket: what arrives is deframed (kernels/fast/step_deframe.c)
 * and given to the session, what the session queues is sent, data messages
 * are re-stamped with the session's MsgSeqNum (data and session messages
 * share one sequence) and its CompIDs. Time is the caller's (ms), so tests
 * can run a session in-process on a socketpair without waiting.
 *
 *	fs = feed_sess_new(fd, &cfg, stderr, err, sizeof err);
 *	while (feed_sess_service(fs, now_ms()) == FEED_SESS_WAIT) poll(fd, 10 ms);
 *	... feed_sess_send_data(fs, msg, len, now_ms()) for each message,
 *	    feed_sess_service() between them (heartbeats, TestRequests, Logout) ...
 *	feed_sess_logout(fs, "end of feed", now_ms()); then service until CLOSED
 */
#ifndef FEED_SESS_H
#define FEED_SESS_H

#include <stdint.h>
#include <stdio.h>

#include "step/step_sess.h"

enum feed_sess_state {
	FEED_SESS_WAIT = 0,   /* connected, no Logon yet */
	FEED_SESS_UP = 1,     /* logged on */
	FEED_SESS_CLOSED = 2, /* refused, logged out, timed out or the socket failed: see why */
};

struct feed_sess;

/* A session on the connected TCP socket fd (not owned: the caller closes it).
 * Events are printed to log as "toe-feedsim: session: ..." (NULL: silent). */
struct feed_sess *feed_sess_new(int fd, const struct step_sess_cfg *cfg, FILE *log, char *err, size_t errlen);
void feed_sess_free(struct feed_sess *fs);

/* Read what has arrived (without blocking), run the session's timers at
 * now_ms, send what it queued. Returns enum feed_sess_state. */
int feed_sess_service(struct feed_sess *fs, uint64_t now_ms);

/* Send one STEP data message (as the generator made it) re-stamped with the
 * next MsgSeqNum and the session's CompIDs. Returns the MsgSeqNum used, 0
 * when it could not be sent (not logged on, the socket failed). */
uint64_t feed_sess_send_data(struct feed_sess *fs, const uint8_t *msg, uint32_t len, uint64_t now_ms);

/* Start the Logout (58=text); keep calling feed_sess_service() until CLOSED. */
void feed_sess_logout(struct feed_sess *fs, const char *text, uint64_t now_ms);

/* Why the session is CLOSED ("" while it is not), its counters, the session itself. */
const char *feed_sess_why(const struct feed_sess *fs);
const struct step_sess *feed_sess_state(const struct feed_sess *fs);

#endif
