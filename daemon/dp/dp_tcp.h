/* dp_tcp.h - a role = tcp port in the software backend: toed's own TCP connections, ARP and ICMP echo.
 *
 * A mirror port only listens. A port with role = tcp has an address (one the
 * host does not own: the XDP program steers its ARP, ICMP and connection
 * frames to toed, so the host stack never sees them and never answers with an
 * RST) and speaks for it:
 *
 *   - ARP and ICMP echo: answered by the port's responder (dp/dp_resp, which a
 *     role = udp port has too); peers are resolved with its 128-entry table of
 *     kernels/net (500 ms pending timeout), off-subnet peers through the port's
 *     gateway;
 *   - one connection per TCP feed of the port, opened by the
 *     general TOE (kernels/toe/gtoe) to the feed's exchange address:port,
 *     reopened after a failure or close with a backoff (DP_TCP_BACKOFF_MIN_NS
 *     doubling to DP_TCP_BACKOFF_MAX_NS). The bytes received in order go into
 *     the receive pipeline exactly as a mirrored connection's do (rx_event
 *     OPEN / DATA / CLOSE on the feed's TCP stream: STEP -> FAST -> ticks).
 *
 * The data-plane thread calls, per received frame, dp_tcp_frame() instead of
 * rx_frame_csum(), then dp_tcp_pump() until it returns 0, draining the
 * pipeline after each call (rx_event's contract); dp_tcp_tick() every turn
 * (timers, reconnects) followed by the same pump; dp_tcp_flush() once per
 * burst (segments and replies out, the source kicked). The frame must stay
 * valid until that pump returned 0: an in-order segment's bytes go to the
 * pipeline from the frame itself (gtoe_direct_on), and the last pump moves
 * whatever is left unread into the endpoint's buffer (gtoe_settle).
 *
 * Session seam (the STEP session layer, dp/dp_sess.c, plugs in here when a
 * feed has sender_comp_id): struct dp_tcp_hooks gets each connection's open
 * and close, every in-order byte before the decoder sees it, and a tick; it
 * answers with dp_tcp_send() (bytes out on the feed's connection) and
 * dp_tcp_close(), and reports in the feed's struct dp_tcp_sess. NULL hooks:
 * a plain connection whose bytes all go to the decoder.
 *
 * Nothing here runs on a mirror port: the thread does not create it, and
 * the source is opened without transmit there (src_tx refuses and counts).
 */
#ifndef TOED_DP_TCP_H
#define TOED_DP_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "dp/dp_resp.h"
#include "net/net_arp.h"
#include "net/net_cfg.h"
#include "net/net_counters.h"
#include "net/net_tx.h"
#include "rx/rx_pipe.h"
#include "src/src.h"
#include "toe/gtoe.h"

#define DP_TCP_BACKOFF_MIN_NS 100000000ull   /* first reconnect 100 ms after a failure */
#define DP_TCP_BACKOFF_MAX_NS 5000000000ull  /* doubling up to 5 s */
#define DP_TCP_ARP_RETRY_NS 100000000ull     /* a next hop not resolved yet is asked again after this */
#define DP_TCP_CLOSE_WAIT_NS 2000000000ull   /* dp_tcp_close: a peer that has not closed its side by then is reset */

enum dp_tcp_phase {
	DP_TCP_WAIT = 0,     /* backing off / not started */
	DP_TCP_RESOLVING = 1, /* asking ARP for the next hop */
	DP_TCP_CONNECTING = 2,
	DP_TCP_UP = 3,
	DP_TCP_LISTEN = 4,    /* open = accept: waiting for the exchange to connect */
};

/* Counters of the port (besides net_stats, gtoe_stats and src_stats). arp_replies, icmp_replies and
 * tx_fail are the port's responder's (t->resp.st), shown here too by the snapshot. */
#define DP_TCP_STATS(X)                                                                          \
	X(arp_replies, "ARP replies sent for the port's address")                                \
	X(arp_requests, "ARP requests sent to resolve a next hop")                               \
	X(icmp_replies, "ICMP echo replies sent")                                                \
	X(segs_out, "TCP segments sent")                                                          \
	X(segs_no_route, "TCP segments dropped: next hop not resolved (TCP sends them again)")  \
	X(tx_fail, "frames the source did not take (its tx counters say why)")                  \
	X(frame_too_big, "segments that did not fit a frame (a bug if nonzero)")               \
	X(connects, "connections opened (SYN sent)")                                             \
	X(established, "connections established")                                               \
	X(closes, "connections ended (any reason)")                                              \
	X(bytes_in, "in-order bytes handed to the decoder")                                      \
	X(accept_refused, "connections accepted then reset: not from the feed's exchange, or one already up")

struct dp_tcp_stats {
#define DP_TCP_FIELD_(f, d) uint64_t f;
	DP_TCP_STATS(DP_TCP_FIELD_)
#undef DP_TCP_FIELD_
};

/* The session layer's report on a feed (written by the hooks, dp/dp_sess.c; read by the snapshot). */
#define DP_TCP_SESS_TEXT 64
struct dp_tcp_sess {
	uint32_t on;          /* the feed has a STEP session */
	uint32_t state;       /* enum step_sess_state */
	uint64_t logons, refusals, hb_missed, hb_timeouts, peer_logouts;
	uint64_t out_heartbeats, out_test_requests, in_msgs;
	uint64_t out_queued, out_dropped; /* bytes the TCP send buffer did not take at once / at all */
	uint64_t closes;      /* connections the session closed (refusal, timeout, logout) */
	uint64_t log_suppressed; /* event lines over the log's rate limit */
	uint64_t records, records_lost; /* TOE_REC_SESSION records queued for clients / events lost on the way */
	uint64_t in_lost;     /* backend = xrt: the exchange's session messages lost between the card and the
				 session (ring overflow, a piece missing); the session saw the hole */
	char last_logout[DP_TCP_SESS_TEXT]; /* the last refusal's or peer Logout's text */
};

/* One TCP feed of the port: its connection and reconnect state. */
struct dp_tcp_feed {
	char name[TOED_NAME_MAX]; /* the feed's, for the log */
	uint32_t feed;        /* index in the configuration's feeds */
	uint32_t stream;      /* the pipeline's TCP stream (the feed's mirror flow index) */
	uint32_t raddr;
	uint16_t rport, lport; /* lport 0: ephemeral; open = accept: rport 0 any */
	uint32_t accept;      /* open = accept: toed listens on lport */
	int32_t listener;     /* its gtoe listener, -1 none */
	uint16_t mss;         /* the connection's MSS and receive window: its feed's (dp_setup_tcp_conns; */
	uint32_t window;      /* the card's table entry gets the same) */
	int32_t conn;         /* gtoe slot, -1 none */
	uint32_t phase;       /* enum dp_tcp_phase */
	uint64_t next_try_ns; /* CLOCK_MONOTONIC */
	uint64_t backoff_ns;
	uint64_t offset;      /* stream bytes since the connection's OPEN */
	uint64_t attempts, ups, downs;
	uint32_t last_down;   /* gtoe event type that ended the last connection (0 none) */
	uint32_t last_reason; /* its reason (GTOE_ERR_*) */
	struct gtoe_info last; /* the last established connection's report, taken as it ended */
	uint32_t asked_close; /* dp_tcp_close() ended the connection: back off as after a failure */
	uint32_t aborted;     /* ... and reset it after DP_TCP_CLOSE_WAIT_NS (a hung peer never sends its FIN) */
	uint64_t close_by_ns; /* CLOCK_MONOTONIC: when */
	struct dp_tcp_sess sess;
};

struct dp_tcp;

/* The session seam (see the top). Called in the data-plane thread. */
struct dp_tcp_hooks {
	void *arg;
	void (*on_open)(void *arg, struct dp_tcp *t, uint32_t feed);
	void (*on_close)(void *arg, struct dp_tcp *t, uint32_t feed);
	/* in-order bytes of the feed's connection, before the decoder */
	void (*on_bytes)(void *arg, struct dp_tcp *t, uint32_t feed, const uint8_t *data, uint32_t len);
	void (*on_tick)(void *arg, struct dp_tcp *t, uint64_t now_ns);
};

/* Connections that live elsewhere (backend = xrt: gtoe_top on the card, dp/dp_card_sess.c): a
 * struct dp_tcp without a general TOE (g NULL) whose feeds only carry names, streams, phases and
 * the session reports, and whose dp_tcp_send and dp_tcp_close go to these. */
struct dp_tcp_remote {
	void *arg;
	int32_t (*send)(void *arg, uint32_t feed, const uint8_t *data, uint32_t len);
	int (*close)(void *arg, uint32_t feed);
};

struct dp_tcp {
	uint32_t role;            /* enum toed_role of the port */
	uint32_t laddr, gateway;
	uint16_t ip_id;
	uint16_t pad;
	uint32_t nfeeds;
	struct dp_tcp_feed f[TOED_MAX_FEEDS];
	struct dp_resp resp;      /* ARP and ICMP answered, the ARP table, the source (set by the thread once open) */
	struct gtoe *g;
	uint8_t *gbuf;
	struct dp_tcp_stats st;
	struct dp_tcp_hooks hooks;
	struct dp_tcp_remote remote; /* set: the connections are on the card (see above) */
	/* the DATA handed to the pipeline, consumed at the next pump */
	int32_t owe_conn;
	uint32_t owe_len;
	uint8_t tx[NET_TX_HDR_MAX + 65536];
};

/* For port 0 of cfg (role = tcp is port 0's): its role,
 * address, gateway and the TCP feeds it connects (stream = the feed's flow
 * index in the mirror TOE's configuration, which dp_setup_mtoe built in the
 * same order). net: the pipeline's network settings; a zero MAC is replaced
 * by the interface's own (read from ifname). 0, or -1 with err. */
int dp_tcp_init(struct dp_tcp *t, const struct toed_config *cfg, struct net_cfg *net, char *err, size_t errlen);
void dp_tcp_free(struct dp_tcp *t);

/* The feed's next reconnect wait after a failure or a close the session asked for: 100 ms, then
 * doubled up to DP_TCP_BACKOFF_MAX_NS (kept in f->backoff_ns, which a logon resets). */
uint64_t dp_tcp_backoff(struct dp_tcp_feed *f);

/* A received frame: TCP to the endpoint, ARP and ICMP answered, UDP to the
 * pipeline's listen table. Returns the net_rx verdict. */
int32_t dp_tcp_frame(struct dp_tcp *t, struct rx_pipe *p, const uint8_t *frame, uint32_t len, uint64_t ts_ns,
		     uint32_t csum, uint64_t now_ns);
/* Hand the next piece of work (an OPEN, DATA or CLOSE) to the pipeline: 1
 * when something was handed over (drain the pipeline, call again), 0 done. */
int dp_tcp_pump(struct dp_tcp *t, struct rx_pipe *p, uint64_t ts_ns);
/* Timers and reconnects (CLOCK_MONOTONIC now_ns). */
void dp_tcp_tick(struct dp_tcp *t, struct rx_pipe *p, uint64_t now_ns);
/* Segments due, to the source; kick it. */
void dp_tcp_flush(struct dp_tcp *t, struct rx_pipe *p, uint64_t now_ns);
/* Bytes out on feed i's connection (index in t->f): bytes taken, -1 not up. */
int32_t dp_tcp_send(struct dp_tcp *t, uint32_t i, const uint8_t *data, uint32_t len);

/* Close feed i's connection after what was sent (FIN); a peer that has not
 * closed its side within DP_TCP_CLOSE_WAIT_NS is reset (a hung exchange's
 * kernel still ACKs but never sends the FIN). The reconnect then backs off as
 * after a failure (the session refused or gave up: hammering the exchange
 * would not help). 0 (also when closing already), or -1 when not up. */
int dp_tcp_close(struct dp_tcp *t, uint32_t i);

const char *dp_tcp_phase_name(uint32_t phase);

#endif
