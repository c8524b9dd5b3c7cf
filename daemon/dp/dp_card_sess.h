/* dp_card_sess.h - the STEP session of toed's own connections on the card (backend = xrt, role = tcp).
 *
 * The same session as the software backend (dp/dp_sess.c over kernels/step,
 * one step_link per feed with sender_comp_id) with the card as its transport:
 *
 *   - gtoe_top holds the connection; its bytes go to fast_top, which sends
 *     the stream's messages without FAST data (Logon answer, Heartbeat,
 *     TestRequest, Logout...) and the connection's end as card-internal
 *     TOE_REC_CARD_SESS records (kernels/rx/rx_sess.h) through the HBM ring;
 *   - the ring drain hands every record to dp_card_sess_record, in ring
 *     order: the stream's RESET (reason SYN) is the connection's open, its
 *     TOE_REC_CARD_SESS pieces are reassembled (card/card_sess.c) and each
 *     whole message goes to the session as its bytes, a close is the
 *     connection's close, and every other record of the stream with a new
 *     MsgSeqNum is a data message for the session's sequence check and
 *     silence timer, as is a TOE_CSESS_SEEN record (fast_top's word for a
 *     data message none of whose records became a tick: all of templates the
 *     tick mapper does not map); TOE_REC_CARD_SESS records are never published;
 *   - the session answers through gtoe_top's TX mailbox (toe_xrt_tcp_send),
 *     which never waits: one message is posted at a time for every entry and
 *     its answer looked at in the next send or dp_card_sess_tick
 *     (toe_xrt_tcp_poll); meanwhile sends take nothing and the session keeps
 *     its bytes (dp_sess's queue, DP_SESS_PEND_MAX: an overflow is counted,
 *     logged and closes the connection); the rest of a message the card's
 *     send buffer partly took is posted again by the backend; a message the
 *     card does not take within TOE_XRT_TX_MS is logged once (host.tx_late);
 *     and closes by clearing the entry's enable bit (toe_xrt_tcp_enable); the
 *     entry is enabled again once the card reports the close, after a
 *     backoff (100 ms doubling to 5 s, reset by a logon) as dp_tcp does;
 *   - reconnects the card makes on its own (after a failure or the
 *     exchange's close) are seen in its attempts counter (TOE_GTOE_CS_ATTEMPTS),
 *     read every DP_CARD_SESS_ATT_NS for session entries that are not up and
 *     once at each open: each new attempt is a TOE_SESS_RECONNECTING event
 *     as with the software backend (attempts counted as the host's own re-
 *     enables are not counted twice); its backoff is the host's estimate of
 *     the card's rule (100 ms after a connection that was up, doubling to 5 s
 *     after failures), which the register map does not show;
 *   - heartbeats and TestRequests run on the host's clock (dp_card_sess_tick
 *     every turn of the card loop);
 *   - events reach clients as TOE_REC_SESSION records (dp_card_sess_pub) and
 *     the log, as with the software backend; the feed's report (struct
 *     dp_tcp_sess) goes to toectl's tcp_connections.
 *
 * Losses: a session message the ring lost (a piece missing, an overflow) is
 * counted (cs.st.lost, t.f[i].sess.in_lost per feed), logged, and never handed on
 * (a partial message is worthless): the session's MsgSeqNum
 * check sees the hole at the next message (TOE_SESS_SEQ_GAP). A data
 * message whose records are all unmapped is no hole: fast_top sends its
 * TOE_CSESS_SEEN record instead of nothing.
 */
#ifndef TOED_DP_CARD_SESS_H
#define TOED_DP_CARD_SESS_H

#include <stddef.h>
#include <stdint.h>

#include "card/card_backend.h"
#include "card/card_sess.h"
#include "conf/config.h"
#include "dp/dp_sess.h"
#include "dp/dp_tcp.h"

struct dp_card_sess {
	struct toe_xrt *xrt;
	struct dp_tcp t;    /* a shell: one feed per gtoe_top entry (same index), no general TOE here */
	struct dp_sess s;
	struct card_sess cs;
	uint32_t sess_of_stream[CARD_SESS_STREAMS]; /* entry + 1 of each TCP stream (0: no session) */
	uint64_t data_seq[TOED_MAX_FEEDS];          /* the last data MsgSeqNum handed to the session */
	uint64_t enable_at[TOED_MAX_FEEDS];         /* CLOCK_MONOTONIC ns: enable the entry again (0: no) */
	/* the card's own reconnects: its attempts counter per entry (TOE_GTOE_CS_ATTEMPTS) */
	uint32_t card_att[TOED_MAX_FEEDS];          /* as last read */
	uint32_t att_pend[TOED_MAX_FEEDS];          /* attempts t.f[i].attempts counted already (the first,
						       the host's re-enables) that card_att does not show yet */
	uint8_t att_fresh[TOED_MAX_FEEDS];          /* no attempt seen since an up connection ended */
	uint64_t att_read_ns;                       /* CLOCK_MONOTONIC: the next read of the counters */
	uint64_t att_reads;                         /* entry state reads for it (register reads cost) */
	uint64_t tx_err_log_ns;                     /* the next log line of a mailbox register error */
};

#define DP_CARD_SESS_ATT_NS 100000000ull /* the attempts counters of entries not up: read every 100 ms */

/* The sessions of the card's entries (conns[0..n): gtoe_top's connection table, feeds[k] the
 * configuration feed of entry k), their streams marked in rc->sess so that fast_top sends their
 * messages. 1 when any entry has a session, 0 none, -1 with err. */
int dp_card_sess_init(struct dp_card_sess *d, const struct toed_config *cfg, const struct toe_hw_gtoe_conn *conns,
		      const uint32_t *feeds, uint32_t n, struct rx_cfg *rc, char *err, size_t errlen);
/* The card is open: the transport. */
void dp_card_sess_attach(struct dp_card_sess *d, struct toe_xrt *xrt);
/* A ring record, in ring order (CLOCK_MONOTONIC now_ns). Returns 1 when the record is the card's
 * own (TOE_REC_CARD_SESS: not to be published), 0 when it goes on to the clients. */
int dp_card_sess_record(struct dp_card_sess *d, const union toe_record *r, uint64_t now_ns);
/* Heartbeats, TestRequests, re-enabling closed entries: every turn; the attempts counters of
 * session entries not up every DP_CARD_SESS_ATT_NS (a TOE_SESS_RECONNECTING per new attempt seen). */
void dp_card_sess_tick(struct dp_card_sess *d, uint64_t now_ns);
/* The oldest TOE_REC_SESSION record for clients: 1, or 0 when none. */
int dp_card_sess_pub(struct dp_card_sess *d, union toe_record *out);

#endif
