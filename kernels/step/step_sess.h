/* step_sess.h - the STEP session layer: logon, heartbeats, TestRequest, logout and
 * MsgSeqNum tracking over one TCP connection (synthesisable subset).
 *
 * One struct step_sess per connection, either end: role STEP_SESS_CLIENT is
 * toed's side (it sends the Logon), STEP_SESS_SERVER the exchange's (the
 * toe-feedsim session server and the tests). It is an explicit state machine
 * with no I/O and no clock of its own: the caller feeds it events and sends
 * what it produces. It fits the synthesisable subset naturally (fixed-size
 * strings, integer time, no heap), so it lives in kernels/ and a card could
 * run it beside the general TOE; the daemon runs the same code in software.
 *
 * Driving it (every call returns a mask of STEP_SESS_SEND | STEP_SESS_CLOSE |
 * STEP_SESS_EVENT saying what the caller must now do):
 *
 *	struct step_sess s;
 *	step_sess_init(&s, &cfg);                      // cfg: CompIDs, credentials, HeartBtInt
 *	s.utc_off_ms = realtime_ms - monotonic_ms;     // SendingTime = now + utc_off_ms
 *	r = step_sess_connected(&s, now_ms);           // TCP up: the client queues its Logon
 *	...
 *	// each STEP message the deframer delivers (step_feed() == STEP_MSG, or
 *	// fast_stream_next() == FS_MESSAGE with fs->msg_events set: d.msg is fs->step.msg):
 *	if (step_is_admin(d.msg.msgtype))
 *		r |= step_sess_on_msg(&s, d.msg.raw, d.msg.len, now_ms);
 *	else
 *		r |= step_sess_on_data(&s, d.msg.seq, now_ms); // sequence check only
 *	// at least every 100 ms or so:
 *	r |= step_sess_tick(&s, now_ms);
 *	// after each call:
 *	if (r & STEP_SESS_SEND) { tcp_send(s.out, s.out_len); step_sess_sent(&s); }
 *	while (step_sess_event(&s, &ev)) log_and_forward(&ev);   // step_ev_format() for text
 *	if (r & STEP_SESS_CLOSE) tcp_close();         // after sending what is queued
 *	// TCP gone (reset, FIN, our close): step_sess_disconnected(&s, now_ms);
 *	// reconnect later (backoff is the caller's): step_sess_connected() again.
 *	// orderly end: step_sess_logout(&s, "shutdown", now_ms), then wait for STEP_SESS_CLOSE.
 *
 * Sequence numbers: out_seq is the next MsgSeqNum sent, in_expect the next
 * one expected. Both survive a disconnect (a STEP session spans connections);
 * with reset_on_logon the client sends 141=Y and starts again at 1. An
 * inbound Logon whose MsgSeqNum is 1 (or carries 141=Y) while more was
 * expected is a restart of the peer's sequence (STEP_EV_SEQ_RESET, counted);
 * a higher number than expected is a gap (STEP_EV_SEQ_GAP, the missing count
 * in in_gap_msgs); a lower one a repeat (STEP_EV_SEQ_REPEAT, in_repeats;
 * possible duplicates, 43=Y, are counted in in_possdup instead). No
 * ResendRequest is sent: market data gaps are the data plane's to report.
 * A peer's ResendRequest is answered with a SequenceReset-GapFill to out_seq
 * (only session messages are ever sent, and those are never resent).
 *
 * Heartbeats: HeartBtInt is the client's configured value, or what the
 * server's Logon answer says. A Heartbeat goes out when nothing was sent for
 * HeartBtInt; when nothing arrived for HeartBtInt + 20 % (at least 1 s) a
 * TestRequest goes out (STEP_EV_HB_MISSED), and when still nothing arrived
 * after as long again the session is given up (STEP_EV_HB_TIMEOUT, CLOSE).
 * HeartBtInt 0 means no heartbeats and no silence checks.
 */
#ifndef STEP_SESS_H
#define STEP_SESS_H

#include <stdint.h>
#include "step_msg.h"

#define STEP_SESS_OUT_MAX 2048 /* queued outbound bytes (a few session messages) */
#define STEP_SESS_MSG_MAX 512  /* one outbound session message */
#define STEP_SESS_EV_MAX 16    /* queued events */
#define STEP_SESS_HB_MAX 3600  /* largest HeartBtInt accepted, s */
#define STEP_SESS_LOGOUT_WAIT_MS 2000 /* after our Logout: wait this long for the peer's */

enum step_sess_role { STEP_SESS_CLIENT = 0, STEP_SESS_SERVER = 1 };

enum step_sess_state {
	STEP_SESS_DOWN = 0,    /* no connection */
	STEP_SESS_LOGON_SENT,  /* client: Logon sent, waiting for the answer */
	STEP_SESS_LOGON_WAIT,  /* server: connected, waiting for the peer's Logon */
	STEP_SESS_ACTIVE,      /* logged on */
	STEP_SESS_LOGOUT_SENT, /* our Logout sent, waiting for the peer's */
	STEP_SESS_CLOSING,     /* finished: the caller closes the connection */
};

/* What a call asks of the caller. */
#define STEP_SESS_SEND 0x1u  /* out[0..out_len) holds bytes to send */
#define STEP_SESS_CLOSE 0x2u /* close the connection (after sending out[]) */
#define STEP_SESS_EVENT 0x4u /* events are queued: step_sess_event() */

enum step_ev_type {
	STEP_EV_NONE = 0,
	STEP_EV_LOGGED_ON,     /* a: HeartBtInt in force (s); b: the peer's first MsgSeqNum */
	STEP_EV_LOGON_REFUSED, /* the peer answered our Logon with a Logout; text: its reason */
	STEP_EV_REFUSED_PEER,  /* server: we refused the peer's Logon; text: why */
	STEP_EV_LOGON_TIMEOUT, /* no Logon (answer) within the logon timeout */
	STEP_EV_HB_MISSED,     /* peer silent past HeartBtInt + margin: TestRequest sent; a: ms silent */
	STEP_EV_HB_TIMEOUT,    /* still silent after the TestRequest: giving up; a: ms silent */
	STEP_EV_PEER_LOGOUT,   /* the peer logged out; text: its 58= */
	STEP_EV_LOGGED_OUT,    /* our Logout was answered (or timed out: a = 1) */
	STEP_EV_DISCONNECTED,  /* the connection went away; a: 1 when the session expected it */
	STEP_EV_SEQ_RESET,     /* the peer restarted its MsgSeqNum; a: expected, b: received */
	STEP_EV_SEQ_GAP,       /* a: expected, b: received (b - a messages missing) */
	STEP_EV_SEQ_REPEAT,    /* a: expected, b: received (a lower number, not a possible duplicate) */
	STEP_EV_SEQ_SET,       /* SequenceReset: a: expected before, b: expected now */
	STEP_EV_PROTOCOL,      /* a message that breaks the session rules; text: what */
	STEP_EV_COUNT
};

struct step_ev {
	uint32_t type; /* enum step_ev_type */
	uint32_t pad;
	uint64_t a, b;
	uint64_t at_ms; /* the caller's now_ms when it happened */
	char text[STEP_TEXT_MAX];
};

struct step_sess_cfg {
	uint32_t role;                   /* enum step_sess_role */
	char sender[STEP_ID_MAX];        /* 49= we send (our CompID) */
	char target[STEP_ID_MAX];        /* 56= we send (the peer's CompID); server: the CompID the peer
					  * must log on as, or "" for any (then set to the one that did) */
	char username[STEP_ID_MAX];      /* client: 553= sent; server: required when not empty */
	char password[STEP_PW_MAX];      /* client: 554= sent; server: required when not empty */
	uint32_t heartbeat_s;            /* client: HeartBtInt asked for; server: used if the peer sends none */
	uint32_t reset_on_logon;         /* client: 141=Y, both sides start again at 1 on each logon */
	uint32_t logon_timeout_ms;       /* wait for the Logon (answer); 0: 10 s */
};

struct step_sess_stats {
	uint64_t in_msgs, in_admin, in_data;
	uint64_t in_gaps, in_gap_msgs, in_repeats, in_possdup, seq_resets;
	uint64_t in_ignored;        /* arrived with no session (DOWN or CLOSING) */
	uint64_t in_bad;            /* unreadable session messages */
	uint64_t in_no_seq;         /* messages without MsgSeqNum (not sequence-checked) */
	uint64_t out_msgs, out_heartbeats, out_test_requests;
	uint64_t logons, logon_refused, hb_missed, hb_timeouts, peer_logouts, disconnects;
	uint64_t out_dropped;       /* session messages that did not fit out[] (the caller is not sending) */
	uint64_t ev_dropped;        /* events that did not fit the queue */
};

struct step_sess {
	struct step_sess_cfg cfg;
	uint32_t state;             /* enum step_sess_state */
	uint32_t hb_s;              /* HeartBtInt in force */
	uint64_t out_seq;           /* next MsgSeqNum we send */
	uint64_t in_expect;         /* next MsgSeqNum expected from the peer (0: none yet) */
	int64_t utc_off_ms;         /* SendingTime = now_ms + utc_off_ms */
	uint64_t last_in_ms, last_out_ms, state_ms;
	uint32_t test_pending;      /* a TestRequest is outstanding (sent at test_ms) */
	uint64_t test_ms;
	uint32_t test_n;            /* TestReqIDs sent */
	char test_id[STEP_ID_MAX];  /* the outstanding TestReqID */
	/* outbound bytes for the caller */
	uint32_t out_len;
	uint8_t out[STEP_SESS_OUT_MAX];
	uint8_t scratch[STEP_SESS_MSG_MAX];
	/* events */
	uint32_t ev_head, ev_count;
	struct step_ev ev[STEP_SESS_EV_MAX];
	struct step_sess_stats st;
};

void step_sess_init(struct step_sess *s, const struct step_sess_cfg *cfg);
uint32_t step_sess_connected(struct step_sess *s, uint64_t now_ms);
uint32_t step_sess_disconnected(struct step_sess *s, uint64_t now_ms);
/* One whole session message (msgtype 0 1 2 3 4 5 A), as framed on the wire. A
 * data message given here is sequence-checked like step_sess_on_data(). */
uint32_t step_sess_on_msg(struct step_sess *s, const uint8_t *msg, uint32_t len, uint64_t now_ms);
/* A data message's MsgSeqNum (no need to read its other fields). */
uint32_t step_sess_on_data(struct step_sess *s, uint64_t seq, uint64_t now_ms);
uint32_t step_sess_tick(struct step_sess *s, uint64_t now_ms);
/* Start an orderly logout with text as 58= (may be empty). */
uint32_t step_sess_logout(struct step_sess *s, const char *text, uint64_t now_ms);
/* The caller sent out[0..out_len): the queue is empty again. */
void step_sess_sent(struct step_sess *s);
/* Server side: take the next MsgSeqNum for a data message the caller sends
 * itself (so data and session messages share one sequence) and note the send
 * for the heartbeat timer. */
uint64_t step_sess_next_seq(struct step_sess *s, uint64_t now_ms);
/* Pop the oldest event: 1, or 0 when none. */
int step_sess_event(struct step_sess *s, struct step_ev *ev);

const char *step_ev_name(uint32_t type);       /* "logged_on", ... */
const char *step_sess_state_name(uint32_t state); /* "down", "logon_sent", ... */

#endif
