/* dp_sess.h - the STEP session on toed's own connections: the dp_tcp hooks that drive it.
 *
 * One step_link (session + deframer) per feed with sender_comp_id set, driven
 * from the data-plane thread through struct dp_tcp_hooks: the connection's
 * open sends the Logon, its in-order bytes feed the session (they also go to
 * the decoder as before), the tick runs heartbeats and TestRequests, and a
 * session that asks to close (logon refused, heartbeat timeout, logout done)
 * closes the connection with dp_tcp_close(), so the reconnect backs off.
 * Outbound bytes the TCP send buffer does not take at once wait in a bounded
 * queue (counted); what does not fit there is counted and the connection is
 * closed (a session stream with a hole in it is worthless).
 *
 * The password is never read here (no file I/O on the data plane): the
 * control plane reads each password_file at start (dp_sess_init, from
 * toed_dp_prepare) and at each reload, and hands the passwords over with
 * toed_dp_set_passwords(); the thread gives them to the sessions with
 * dp_sess_take_passwords(), for the next Logon.
 *
 * Events go to the log (at most DP_SESS_LOG_BURST lines per feed per second,
 * the rest counted), their effect to the feed's struct dp_tcp_sess report
 * (toectl stats, tcp_connections), and to clients as TOE_REC_SESSION records
 * (kernels/step/step_rec.h): queued here (DP_SESS_REC_MAX; more are counted and
 * the feed's next record says TOE_SESS_F_EVENTS_LOST) and taken by the thread
 * with dp_sess_record() into the one publication path, before the pipeline's
 * output of the same turn. Besides the session's own events, toed's notes:
 * TOE_SESS_LOGON_SENT at each connection, TOE_SESS_RECONNECTING at each new
 * attempt after the first, TOE_SESS_LOGOUT_SENT when toed stops.
 */
#ifndef TOED_DP_SESS_H
#define TOED_DP_SESS_H

#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "dp/dp_tcp.h"
#include "step/host/step_link.h"
#include "step/step_rec.h"

#define DP_SESS_PEND_MAX 4096u /* outbound bytes waiting for room in the TCP send buffer, per feed */
#define DP_SESS_LOG_BURST 10u  /* event lines per feed per second; more are counted, not logged */
#define DP_SESS_REC_MAX 64u    /* session records waiting for the publisher (a turn makes a few per feed) */

/* The sessions' passwords by configuration feed, as the control plane read them; set[f] 0: feed f
 * keeps the one it has (no password_file, or it could not be read: the control plane said why). */
struct dp_sess_passwords {
	uint32_t set[TOED_MAX_FEEDS];
	char pw[TOED_MAX_FEEDS][STEP_PW_MAX];
};

struct dp_sess_feed {
	uint32_t on;
	struct step_link l;
	uint32_t pend_len;
	uint8_t pend[DP_SESS_PEND_MAX];
	uint64_t log_sec;  /* the second (monotonic) of the log budget */
	uint32_t log_n;
	struct step_rec_where where; /* the feed's stream, group and line in its records */
	uint32_t lost;     /* events lost since the feed's last record: the next one says so */
	uint64_t ev_dropped_seen; /* the session's own event-queue drops, counted so far */
	uint64_t attempts_seen;   /* connection attempts seen (TOE_SESS_RECONNECTING) */
};

struct dp_sess {
	struct dp_tcp *t;
	uint32_t nfeeds; /* the dp_tcp's */
	int64_t utc_off_ms;
	struct dp_sess_feed f[TOED_MAX_FEEDS];
	/* records for the publisher, oldest first */
	uint32_t rq_head, rq_n;
	union toe_record rq[DP_SESS_REC_MAX];
};

/* The sessions of t's feeds (cfg's settings, passwords read now): 1 when any
 * feed has one (then install dp_sess_hooks()), 0 none, -1 with err. */
int dp_sess_init(struct dp_sess *s, struct dp_tcp *t, const struct toed_config *cfg, char *err, size_t errlen);
struct dp_tcp_hooks dp_sess_hooks(struct dp_sess *s);
/* Where each feed's records belong: its pipeline stream, and with sequence
 * tracking (RX_CFG_SEQ) its group (from 1) and line, as its ticks say. */
void dp_sess_set_where(struct dp_sess *s, const struct rx_cfg *rc);
/* Data-plane thread: the passwords for each feed's next Logon. */
void dp_sess_take_passwords(struct dp_sess *s, const struct dp_sess_passwords *pw);
/* A data message (MsgSeqNum seq) arrived on feed i's connection, known only by the records it
 * yielded (the card: its bytes went to fast_top): the session's sequence check and silence timer. */
void dp_sess_data(struct dp_sess *s, uint32_t i, uint64_t seq, uint64_t now_ns);
/* Feed i's connection attempts (t->f[i].attempts) changed: a TOE_SESS_RECONNECTING record (with
 * t->f[i].backoff_ns) for a connecting feed. on_tick does it every turn; the card's session calls it
 * when it learns of attempts the card made, so the event comes before the new connection's. */
void dp_sess_attempts(struct dp_sess *s, uint32_t i);
/* The oldest queued session record: 1, or 0 when none. */
int dp_sess_record(struct dp_sess *s, union toe_record *out);
/* Start an orderly Logout on every logged-on session (text as 58=); the
 * caller keeps ticking until dp_sess_busy() is 0 or its own deadline. */
void dp_sess_logout(struct dp_sess *s, const char *text, uint64_t now_ns);
int dp_sess_busy(const struct dp_sess *s);

#endif
