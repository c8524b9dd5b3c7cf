/* gtoe.h - general TOE: a full TCP endpoint table (synthesisable subset).
 *
 * The mirror TOE (mtoe.h) only listens; the general TOE holds TCP connections
 * itself: active open (gtoe_connect) and passive open (gtoe_listen), data in
 * both directions, close, abort. It sees segments, never frames: the network
 * layer parses a frame (net_rx) and calls gtoe_input_pkt(), and turns each
 * segment descriptor that gtoe_tx_next() returns into a frame (net_tx_tcp()).
 *
 *   struct gtoe_cfg cfg;
 *   gtoe_cfg_default(&cfg);                     // 64 conns, 32 KB buffers, MSS 1408
 *   gtoe_init(g, &cfg, buf, GTOE_BUF_BYTES(&cfg));
 *   c = gtoe_connect(g, laddr, lport, raddr, rport, now);   or gtoe_listen(g, laddr, lport)
 *   per received TCP frame:  gtoe_input_pkt(g, &pkt, now);
 *   every millisecond or so: gtoe_poll(g, now);             // timers
 *   then:  while (gtoe_tx_next(g, now, &seg)) build and send a frame of seg;
 *          while (gtoe_ev_next(g, &ev)) handle ev (CONNECTED, DATA, ...);
 *   application: gtoe_send(), gtoe_recv() or gtoe_peek()/gtoe_consume(),
 *                gtoe_shutdown() (FIN), gtoe_abort() (RST), gtoe_release().
 *
 * Pull model, no callbacks: gtoe_input/poll/send only change state and set
 * per-connection flags ("an ACK is due", "retransmit from snd_una", "event
 * DATA pending"); gtoe_tx_next() and gtoe_ev_next() turn the flags into
 * segments and events, round robin over the connections. A segment's
 * payload points into the connection's send buffer and stays valid until
 * the next gtoe_input*() (only an ACK frees send-buffer bytes).
 *
 * RFC coverage:
 *  - RFC 9293 state machine, all eleven states: active and passive open,
 *    simultaneous open (SYN in SYN-SENT -> SYN-RECEIVED), simultaneous close
 *    (FIN in FIN-WAIT-1 -> CLOSING), TIME-WAIT of 2*MSL (configurable),
 *    segment acceptability test and window trimming, RST in SYN-SENT only
 *    with an acceptable ACK, RST for segments to no connection (from a small
 *    queue: gtoe_stats.rst_queue_full counts overflow), sequence-number
 *    arithmetic mod 2^32 everywhere (buffers are indexed by seq & mask, so
 *    the wrap needs no special case). ISNs per RFC 6528 shape: a 4 us clock
 *    plus a keyed mix of the 4-tuple (cfg.isn_key; not cryptographic).
 *  - RFC 5961: RST in window but not at rcv_nxt and a SYN on a synchronised
 *    connection get a challenge ACK (rate limited per second, counted);
 *    ACKs beyond snd_max are answered with an ACK and dropped, ACKs older
 *    than snd_una - max window dropped.
 *  - Options (RFC 9293, 7323, 2018): MSS, window scale, SACK-permitted and
 *    timestamps offered in SYN/SYN-ACK (each switchable), used only when both
 *    sides sent them. Timestamps: TSval from a 1 ms clock, TS.Recent per RFC
 *    7323 section 4.3, PAWS (segments with an older TSval dropped and ACKed),
 *    RTT from TSecr. SACK blocks (up to 4, 3 with timestamps) describe the
 *    out-of-order ranges, most recently changed first. Received SACK blocks
 *    feed a small scoreboard (below).
 *  - Receive side: a circular buffer per connection (cfg.rcv_buf, 32 KB),
 *    out-of-order data stored in place with a sorted range list (at most
 *    cfg.max_ranges holes; a segment that would need more is dropped and
 *    counted). The advertised window is the real free space: its right edge
 *    is (first unread byte + buffer size), so it never shrinks (a FIN right
 *    at that edge is taken: it uses a sequence number, not room); receiver
 *    silly-window avoidance (RFC 9293 3.8.6.2.2): a window update is sent
 *    when the space grows by min(buf/2, MSS) after a small window was
 *    advertised. ACKs (RFC 5681 4.2, RFC 1122 4.2.3.2): at once for every
 *    out-of-order or duplicate segment (one each, even when several arrive
 *    between two gtoe_tx_next calls: the peer's fast retransmit counts them),
 *    for data that fills a hole and for a FIN; in-order data is ACKed after
 *    cfg.delack_segs (2) segments or cfg.delack_ns (40 ms), whichever comes
 *    first; quick-ACK mode (cfg.quickack, or gtoe_set_quickack per
 *    connection; cfg.delack_ns 0 too) ACKs every segment at once.
 *  - Send side: a circular send buffer (cfg.snd_buf); RFC 6298 RTO (SRTT,
 *    RTTVAR, K=4, min cfg.rto_min_ns, max cfg.rto_max_ns, exponential backoff,
 *    Karn's rule without timestamps), RFC 5681 slow start and congestion
 *    avoidance, fast retransmit on the third duplicate ACK, RFC 6582 NewReno
 *    recovery (partial ACKs retransmit the next hole, full ACK deflates),
 *    with SACK (RFC 2018/6675 in part): during recovery every further
 *    duplicate or partial ACK retransmits the next hole below the highest
 *    SACKed byte (so several holes are repaired in one round trip, each
 *    taking the MSS its ACK freed from cwnd); the scoreboard is dropped at
 *    an RTO (RFC 2018 section 8: the receiver may have reneged).
 *    RFC 3042 limited transmit (a new segment on each of the first two
 *    duplicate ACKs), RFC 5827 early retransmit (fewer than 4 segments out
 *    and nothing new may go: oseg - 1 duplicates suffice),
 *    RFC 6928 initial window of cfg.iw_segs (10) segments, loss window 1 MSS
 *    after an RTO. Segments carry at most MSS minus the option bytes of
 *    data (RFC 6691: 1396 with timestamps). The peer's window (with
 *    its scale) limits sending; a zero window starts the persist timer: probes
 *    (seq snd_una - 1, no data, the form Linux uses) back off like the RTO and
 *    never time the connection out while answered. Nagle is off (a market
 *    data session wants every message out at once).
 *  - Keepalive (RFC 1122 4.2.3.6): after cfg.ka_idle_ns idle, probes every
 *    cfg.ka_intvl_ns; cfg.ka_probes unanswered probes reset the connection
 *    (error event, reason GTOE_ERR_KEEPALIVE).
 *  - Give up: cfg.syn_retries SYN retransmissions or cfg.data_retries RTO
 *    retransmissions of the same data -> RST sent, ERROR event (TIMEOUT).
 * Not here: urgent data (URG ignored, counted), IP options, path MTU
 * discovery (the MSS is min(ours, peer's)); see also the end of this comment.
 *
 * Memory: struct gtoe (the table sized by the compile-time maxima: 768 bytes
 * per slot, about 200 KB) and a buffer of max_conns * (rcv_buf + snd_buf)
 * bytes (64 * 64 KB = 4 MB by default) that the caller owns. Connection i
 * uses [i * (rcv_buf + snd_buf), ...): its receive buffer, then its send
 * buffer; byte seq lives at seq & (size - 1) in either.
 *
 * Handles: a slot number from gtoe_connect() or a CONNECTED event of a
 * listener stays the application's until gtoe_release(), whatever happens
 * to the connection (RESET, ERROR, CLOSED leave the slot CLOSED, not
 * free). A CLOSED slot no longer owns its 4-tuple.
 *
 * Not here yet: full RFC 6675 (its pipe estimate and loss marking: here the
 * scoreboard only picks which hole NewReno's ACK clock fills next), D-SACK, RFC 6191 TIME-WAIT reuse, SYN cookies (a full table
 * drops SYNs, counted), PAWS's 24-day idle rule, RACK/TLP.
 */
#ifndef GTOE_H
#define GTOE_H

#include <stdint.h>
#include "net/net_pkt.h"

/* Compile-time maxima (bounds of every loop and array). */
#define GTOE_MAX_CONNS 256     /* a multiple of 64 (the slot bitmap) */
#define GTOE_MAX_LISTEN 16
#define GTOE_MAX_RANGES 16     /* out-of-order ranges per connection */
#define GTOE_MAX_SACK 4        /* SACK blocks in one segment */
#define GTOE_MAX_SACKED 8      /* ranges the peer reported SACKed (send-side scoreboard) */
#define GTOE_MIN_BUF 2048u
#define GTOE_MAX_BUF (1u << 24)
#define GTOE_RST_QUEUE 16      /* RSTs owed to segments of no connection */
#define GTOE_OPT_MAX 40        /* TCP option bytes */
#define GTOE_MAX_OWED 8        /* duplicate ACKs owed per connection */

/* Defaults set by gtoe_cfg_default(). */
#define GTOE_DEFAULT_CONNS 64
#define GTOE_DEFAULT_BUF 32768u
#define GTOE_DEFAULT_MSS 1408
#define GTOE_DEFAULT_RANGES 8
#define GTOE_DEFAULT_IW 10
#define GTOE_DEFAULT_RTO_INIT_NS 1000000000ull   /* RFC 6298 2.1: 1 s */
#define GTOE_DEFAULT_RTO_MIN_NS 200000000ull     /* 200 ms (Linux; RFC 6298 says 1 s) */
#define GTOE_DEFAULT_RTO_MAX_NS 60000000000ull   /* 60 s */
#define GTOE_DEFAULT_DELACK_NS 40000000ull       /* 40 ms */
#define GTOE_DEFAULT_MSL_NS 30000000000ull       /* TIME-WAIT is 2 * MSL = 60 s */
#define GTOE_DEFAULT_KA_IDLE_NS 0ull             /* keepalive off */
#define GTOE_DEFAULT_KA_INTVL_NS 75000000000ull
#define GTOE_DEFAULT_KA_PROBES 9
#define GTOE_DEFAULT_SYN_RETRIES 6
#define GTOE_DEFAULT_DATA_RETRIES 15
#define GTOE_CHALLENGE_PER_S 100                 /* RFC 5961 section 7 rate limit */

/* gtoe_init() results */
#define GTOE_OK 0
#define GTOE_ERR_CONNS (-1)  /* max_conns 0 or above GTOE_MAX_CONNS */
#define GTOE_ERR_BUFSZ (-2)  /* rcv_buf/snd_buf not a power of two in [GTOE_MIN_BUF, GTOE_MAX_BUF] */
#define GTOE_ERR_MSS (-3)    /* mss outside 64..65495 */
#define GTOE_ERR_RANGES (-4) /* max_ranges 0 or above GTOE_MAX_RANGES */
#define GTOE_ERR_BUF (-5)    /* buffer missing or smaller than GTOE_BUF_BYTES */
/* other API results */
#define GTOE_ERR_FULL (-6)   /* no free connection / listener slot */
#define GTOE_ERR_CONN (-7)   /* no such connection, or not in a state allowing it */
#define GTOE_ERR_BUSY (-8)   /* 4-tuple (or listening port) already in use */

#define GTOE_BUF_BYTES(cfg) ((uint64_t)(cfg)->max_conns * ((uint64_t)(cfg)->rcv_buf + (cfg)->snd_buf))

enum gtoe_state {
	GTOE_FREE = 0, GTOE_CLOSED, GTOE_SYN_SENT, GTOE_SYN_RCVD, GTOE_ESTABLISHED, GTOE_FIN_WAIT_1,
	GTOE_FIN_WAIT_2, GTOE_CLOSE_WAIT, GTOE_CLOSING, GTOE_LAST_ACK, GTOE_TIME_WAIT, GTOE_NSTATES
};

enum gtoe_ev_type {
	GTOE_EV_CONNECTED = 1,   /* ESTABLISHED reached (active or passive: see ev.listener) */
	GTOE_EV_DATA = 2,        /* bytes are readable (ev.len: readable now) */
	GTOE_EV_WRITABLE = 3,    /* send-buffer space was freed (ev.len: free bytes) */
	GTOE_EV_PEER_CLOSED = 4, /* the peer's FIN: every byte before it is readable, no more follow */
	GTOE_EV_CLOSED = 5,      /* orderly end: both FINs exchanged and acknowledged */
	GTOE_EV_RESET = 6,       /* RST received */
	GTOE_EV_ERROR = 7,       /* gave up (ev.reason: GTOE_ERR_*) */
};

enum gtoe_err_reason {
	GTOE_ERR_REFUSED = 1,     /* RST answering our SYN */
	GTOE_ERR_TIMEOUT = 2,     /* retransmissions exhausted */
	GTOE_ERR_KEEPALIVE = 3,   /* keepalive probes unanswered */
};

struct gtoe_event {
	uint8_t type;     /* enum gtoe_ev_type */
	uint8_t reason;   /* ERROR: enum gtoe_err_reason */
	uint16_t conn;
	int16_t listener; /* CONNECTED: the listener index of a passive open, else -1 */
	uint16_t pad;
	uint32_t len;
};

/* A TCP segment: what gtoe_tx_next() produces and gtoe_input_seg() takes.
 * Addresses/ports are the sender's (s) and receiver's (d), host order. */
struct gtoe_seg {
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint16_t win;         /* as on the wire (scaled) */
	uint8_t flags;        /* TCP_* */
	uint8_t nsack;        /* SACK blocks */
	int32_t conn;         /* output: connection slot, -1 for an RST to no connection */
	/* options; has_* 0 means absent */
	uint8_t has_mss, has_ws, sack_ok, has_ts;
	uint16_t mss;
	uint8_t ws;
	uint8_t pad;
	uint32_t tsval, tsecr;
	uint32_t sack[GTOE_MAX_SACK][2]; /* [start, end) */
	/* payload: data[0] then data[1] (a wrap of the send buffer) */
	const uint8_t *data[2];
	uint32_t len[2];
};

struct gtoe_cfg {
	uint32_t max_conns;     /* 1..GTOE_MAX_CONNS */
	uint32_t rcv_buf;       /* receive buffer bytes per connection, power of two */
	uint32_t snd_buf;       /* send buffer bytes per connection, power of two */
	uint32_t max_ranges;    /* out-of-order ranges per connection */
	uint16_t mss;           /* our MSS (advertised; the most we send) */
	uint8_t opt_ws, opt_sack, opt_ts; /* offer window scaling, SACK, timestamps */
	uint8_t quickack;       /* ACK every data segment at once */
	uint8_t pad[3];
	uint32_t delack_segs;   /* ACK at once after this many unacknowledged full segments (2) */
	uint32_t iw_segs;       /* initial window in segments (RFC 6928: 10) */
	uint64_t delack_ns;
	uint64_t rto_init_ns, rto_min_ns, rto_max_ns;
	uint64_t msl_ns;        /* TIME-WAIT lasts 2 * msl_ns */
	uint64_t ka_idle_ns;    /* 0: no keepalive */
	uint64_t ka_intvl_ns;
	uint32_t ka_probes;
	uint32_t syn_retries, data_retries;
	uint32_t isn_key;       /* secret of the ISN function */
};

/* Global counters: every dropped segment increments exactly one drop_* counter. */
#define GTOE_STATS_FIELDS(X)                                                                       \
	X(in_segs) X(out_segs) X(out_rst) X(drop_no_conn) X(drop_not_syn) X(drop_listen_full)        \
	X(drop_bad_ack) X(drop_old_ack) X(drop_out_of_window) X(drop_paws) X(drop_rst_out_of_window)  \
	X(drop_syn_sent_bad) X(drop_no_ack) X(drop_ranges_full) X(challenge_acks)      \
	X(challenge_limited) X(rst_queue_full) X(urg_ignored) X(accepts) X(connects) X(established) X(resets_in)     \
	X(timeouts)
struct gtoe_stats {
#define GTOE_FIELD_(f) uint64_t f;
	GTOE_STATS_FIELDS(GTOE_FIELD_)
};

/* Per-connection counters and state for toectl; zeroed when the slot opens.
 * direct_segs: in-order segments the reader took from the frame, not copied (gtoe_direct_on). */
#define GTOE_CONN_STATS_FIELDS(X)                                                                  \
	X(segs_in) X(segs_out) X(bytes_in) X(bytes_out) X(bytes_acked) X(in_order) X(out_of_order)   \
	X(dup_segs) X(dup_bytes) X(trimmed_bytes) X(ooo_drops) X(acks_out) X(delayed_acks)           \
	X(quick_acks) X(dup_acks_in) X(sacks_out) X(sack_blocks_in) X(retrans) X(retrans_bytes)      \
	X(rto_expiries) X(fast_retrans) X(partial_acks) X(recoveries) X(syn_retrans) X(zwp_out)      \
	X(zero_win_in) X(zero_win_out) X(win_updates) X(ka_out) X(challenge_acks) X(paws_drops)      \
	X(rtt_samples) X(fin_ignored) X(early_retrans) X(sack_rtx) X(direct_segs)
struct gtoe_conn_stats {
	GTOE_CONN_STATS_FIELDS(GTOE_FIELD_)
};

/* a field added to a struct but not to its list fails here (C and the C++ of the HLS tops) */
#define GTOE_ONE_(f) +1
#if defined(__cplusplus)
#define GTOE_STATIC_ASSERT static_assert
#else
#define GTOE_STATIC_ASSERT _Static_assert
#endif
GTOE_STATIC_ASSERT(sizeof(struct gtoe_stats) == 8 * (0 GTOE_STATS_FIELDS(GTOE_ONE_)), "GTOE_STATS_FIELDS lists every field");
GTOE_STATIC_ASSERT(sizeof(struct gtoe_conn_stats) == 8 * (0 GTOE_CONN_STATS_FIELDS(GTOE_ONE_)),
		   "GTOE_CONN_STATS_FIELDS lists every field");

struct gtoe_range {
	uint32_t start, end; /* sequence numbers [start, end), beyond rcv_nxt */
	uint32_t age;        /* conn's range clock when last grown (SACK order) */
};

/* Connection flags (gtoe_conn.flags) */
#define GTOE_F_ACK_NOW 0x0001u    /* send an ACK at the next tx_next */
#define GTOE_F_SYN 0x0002u        /* (re)send our SYN / SYN-ACK */
#define GTOE_F_RST 0x0004u        /* send an RST and close */
#define GTOE_F_FIN_Q 0x0008u      /* application shut down: FIN after the send buffer */
#define GTOE_F_PROBE 0x0010u      /* send a zero-window or keepalive probe */
#define GTOE_F_PASSIVE 0x0020u    /* opened by a listener */
#define GTOE_F_RELEASED 0x0040u   /* application released the handle */
#define GTOE_F_QUICKACK 0x0080u
#define GTOE_F_RECOVERY 0x0100u   /* NewReno fast recovery */
#define GTOE_F_RTX_ONE 0x0200u    /* retransmit one segment at snd_una (fast retransmit / partial ACK) */
#define GTOE_F_FIN_RCVD 0x0400u   /* the peer's FIN is known (fin_seq) */
#define GTOE_F_TIMING 0x0800u     /* rtt_seq/rtt_ts time a segment (no timestamps) */
#define GTOE_F_PERSIST 0x1000u    /* persist timer runs */
#define GTOE_F_RTX_HOLE 0x2000u   /* in recovery: retransmit the next hole the peer's SACK blocks show */
/* The flags that ask tx_next for a segment: with none set, no ACK owed and
 * nothing unsent, a connection has nothing to send (gtoe_out.c tx_conn). */
#define GTOE_F_TX_WANTED \
	(GTOE_F_ACK_NOW | GTOE_F_SYN | GTOE_F_RST | GTOE_F_FIN_Q | GTOE_F_PROBE | GTOE_F_RTX_ONE | GTOE_F_RTX_HOLE)

/* Pending events (gtoe_conn.ev) */
#define GTOE_EVB_CONNECTED 0x01u
#define GTOE_EVB_DATA 0x02u
#define GTOE_EVB_WRITABLE 0x04u
#define GTOE_EVB_PEER_CLOSED 0x08u
#define GTOE_EVB_CLOSED 0x10u
#define GTOE_EVB_RESET 0x20u
#define GTOE_EVB_ERROR 0x40u

struct gtoe_conn {
	uint8_t state;         /* enum gtoe_state */
	uint8_t ev;            /* GTOE_EVB_* pending */
	uint8_t err;           /* enum gtoe_err_reason of a pending ERROR */
	uint8_t nranges;
	uint16_t flags;        /* GTOE_F_* */
	int16_t listener;      /* passive open: listener index, else -1 */
	uint32_t laddr, raddr;
	uint16_t lport, rport;
	/* negotiated */
	uint16_t mss;          /* segment size we send */
	uint16_t our_mss;      /* the MSS we offer: cfg.mss, or a per-connection value (gtoe_set_limits) */
	uint32_t rcv_win;      /* our receive window: cfg.rcv_buf, or a smaller per-connection value */
	uint8_t snd_ws, rcv_ws; /* shift of the peer's / our window (0 without scaling) */
	uint8_t sack_ok, ts_ok, ws_ok; /* negotiated: both sides sent the option */
	uint8_t acks_owed;     /* extra ACKs due: one per out-of-order segment, so a batch of
				* input still yields the duplicate ACKs fast retransmit needs */
	/* send side (RFC 9293 names) */
	uint32_t iss, snd_una, snd_nxt, snd_max; /* snd_max: highest sequence sent + 1 */
	uint32_t snd_end;      /* sequence after the last byte the application wrote */
	uint32_t snd_wnd;      /* peer's window, scaled */
	uint32_t max_snd_wnd;
	uint32_t snd_wl1, snd_wl2;
	uint32_t cwnd, ssthresh, recover;
	uint32_t dupacks;
	uint32_t fin_seq;      /* sequence number of our FIN when GTOE_F_FIN_Q */
	/* receive side */
	uint32_t irs, rcv_nxt, rd_seq; /* rd_seq: first byte the application has not consumed */
	uint32_t rcv_adv;      /* right edge last advertised */
	uint32_t peer_fin;     /* sequence number of the peer's FIN when GTOE_F_FIN_RCVD */
	uint32_t ts_recent, last_ack_sent;
	uint32_t unacked_segs; /* in-order segments not yet acknowledged */
	uint32_t range_clock;
	/* RTT (RFC 6298), in ns */
	uint64_t srtt, rttvar, rto;
	uint32_t rtt_seq;
	uint32_t retries;      /* consecutive RTO expiries / probes unanswered */
	uint64_t rtt_ts;
	/* timers: absolute ns, 0 = off */
	uint64_t rto_at, delack_at, tw_at; /* the persist timer is rto_at with GTOE_F_PERSIST */
	uint64_t last_rx_ns;
	uint64_t chal_window_ns;
	uint32_t chal_count;
	uint32_t ka_sent;      /* keepalive probes unanswered */
	struct gtoe_range range[GTOE_MAX_RANGES]; /* sorted, disjoint, non-adjacent */
	/* send-side scoreboard: what the peer's SACK blocks report held beyond snd_una */
	uint32_t nsacked;
	uint32_t rtx_next;     /* in recovery: holes below this were retransmitted */
	uint32_t sacked[GTOE_MAX_SACKED][2]; /* sorted, disjoint [start, end) in (snd_una, snd_max] */
	struct gtoe_conn_stats st;
};

struct gtoe_listener {
	uint32_t addr;   /* 0: any of ours */
	uint16_t port;   /* 0: free */
	uint16_t mss;    /* the MSS its connections offer; 0: cfg.mss */
	uint32_t win;    /* their receive window; 0: cfg.rcv_buf */
};

struct gtoe_rst {
	uint32_t saddr, daddr;  /* of the RST */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint8_t pad[3];
};

/* Direct delivery (used by host builds only, see gtoe_direct_on): the
 * in-order bytes of one connection still in the caller's frame, [seq,
 * seq + len) at address addr. In every build, unused on the card, so that
 * struct gtoe has one layout: the card's C-simulation links tops compiled
 * without TOE_HOST_FAST against kernels compiled with it. */
struct gtoe_direct {
	uint64_t addr;      /* the bytes' address (a host pointer) */
	uint32_t seq, len;  /* len 0: none held */
	uint32_t conn;
	uint32_t on;
};

struct gtoe {
	struct gtoe_cfg cfg;
	uint8_t *buf;
	uint32_t rcv_mask, snd_mask;
	uint32_t tx_next, ev_next, poll_next;  /* round-robin cursors */
	uint32_t nrst, rst_head;
	uint16_t ephemeral;
	uint16_t pad;
	uint32_t last_find;    /* slot of the last gtoe_find hit: one feed is most of the traffic */
	uint32_t pad2;
	uint64_t used[GTOE_MAX_CONNS / 64]; /* bit per slot not FREE: scans skip free slots without
					     * touching their (cache-cold) structs */
	struct gtoe_rst rst[GTOE_RST_QUEUE];
	struct gtoe_listener listen[GTOE_MAX_LISTEN];
	struct gtoe_stats st;
	struct gtoe_direct dir;
	struct gtoe_conn conn[GTOE_MAX_CONNS];
};

/* Per-connection report for toectl (a copy). */
struct gtoe_info {
	uint8_t state;
	uint8_t sack_ok, ts_ok, snd_ws, rcv_ws;
	uint16_t mss;
	uint64_t srtt_ns, rttvar_ns, rto_ns;
	uint32_t cwnd, ssthresh, snd_wnd, rcv_wnd, in_flight, unsent, readable;
	struct gtoe_conn_stats st;
};

void gtoe_cfg_default(struct gtoe_cfg *cfg);
int gtoe_init(struct gtoe *g, const struct gtoe_cfg *cfg, uint8_t *buf, uint64_t buf_len);

/* Open: returns the connection slot (>= 0) or GTOE_ERR_*. lport 0 picks an
 * ephemeral port. The SYN goes out at the next gtoe_tx_next(). */
int32_t gtoe_connect(struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport, uint64_t now_ns);
/* Listen on laddr:lport (laddr 0: any). Returns the listener index or GTOE_ERR_*. */
int32_t gtoe_listen(struct gtoe *g, uint32_t laddr, uint16_t lport);
int32_t gtoe_unlisten(struct gtoe *g, int32_t listener);
/* Per-connection limits: the MSS a connection offers (and the most it sends)
 * and its receive window, each at most the configuration's (cfg.mss,
 * cfg.rcv_buf: the buffer every slot has), 0 keeping the configuration's.
 * gtoe_set_limits: an active open before its SYN left (right after
 * gtoe_connect); gtoe_listen_limits: every connection the listener opens from
 * then on. GTOE_ERR_MSS (mss not 64..cfg.mss), GTOE_ERR_BUFSZ (win not
 * GTOE_MIN_BUF..cfg.rcv_buf), GTOE_ERR_CONN (no such connection or listener,
 * or the SYN was sent). */
int32_t gtoe_set_limits(struct gtoe *g, int32_t conn, uint16_t mss, uint32_t win);
/* The rule both apply (and the card's connection table, toe_hw_cfg.h and
 * gtoe_top): GTOE_OK, GTOE_ERR_MSS or GTOE_ERR_BUFSZ for limits under cfg. */
int32_t gtoe_limits_check(const struct gtoe_cfg *cfg, uint32_t mss, uint32_t win);
int32_t gtoe_listen_limits(struct gtoe *g, int32_t listener, uint16_t mss, uint32_t win);

/* Append up to len bytes to the send buffer; returns bytes taken or GTOE_ERR_CONN. */
int32_t gtoe_send(struct gtoe *g, int32_t conn, const uint8_t *data, uint32_t len);
/* Copy up to cap readable bytes and consume them; returns bytes or GTOE_ERR_CONN. */
int32_t gtoe_recv(struct gtoe *g, int32_t conn, uint8_t *out, uint32_t cap);
/* Zero-copy read: the first contiguous run of readable bytes (the buffer
 * wraps: a second call after gtoe_consume gives the rest). */
uint32_t gtoe_peek(const struct gtoe *g, int32_t conn, const uint8_t **data);
int32_t gtoe_consume(struct gtoe *g, int32_t conn, uint32_t n);
/* Readable bytes and free send-buffer bytes. */
uint32_t gtoe_readable(const struct gtoe *g, int32_t conn);
uint32_t gtoe_writable(const struct gtoe *g, int32_t conn);
/* Send a FIN once every written byte is sent (half close). */
int32_t gtoe_shutdown(struct gtoe *g, int32_t conn);
/* Send an RST and close at once. */
int32_t gtoe_abort(struct gtoe *g, int32_t conn);
/* The application is done with the handle (close()): an open connection is
 * shut down (FIN after the queued data), data arriving later is ACKed and
 * discarded, no more events; the slot is freed once the connection is
 * CLOSED (at once if it is; after LAST-ACK or TIME-WAIT otherwise). */
int32_t gtoe_release(struct gtoe *g, int32_t conn);
int32_t gtoe_set_quickack(struct gtoe *g, int32_t conn, uint32_t on);

/* A received TCP segment (pkt from net_rx, verdict NET_RX_TCP): its options
 * are parsed from the frame. */
void gtoe_input_pkt(struct gtoe *g, const struct net_pkt *pkt, uint64_t now_ns);
/* A segment as a descriptor (seg.data[0]/len[0] the payload). */
void gtoe_input_seg(struct gtoe *g, const struct gtoe_seg *seg, uint64_t now_ns);

#ifdef TOE_HOST_FAST
/* Direct delivery (host builds only; the card always copies). With it on, a
 * segment that arrives in order on a connection with nothing unread and no
 * out-of-order data is not copied into the receive buffer: gtoe_peek()
 * returns its bytes where they are, in the caller's frame, and they stay
 * readable there until gtoe_consume() passes them. The caller promises the
 * frame stays valid until it calls gtoe_settle(), which copies what is left
 * unread into the receive buffer; the next gtoe_input_*() settles first, so
 * only the last segment is ever held. A market-data reader consumes every
 * byte of a segment before the next one comes, so the copy is skipped for
 * almost all of them. gtoe_direct_on(g, 0) settles and turns it off. */
void gtoe_direct_on(struct gtoe *g, uint32_t on);
void gtoe_settle(struct gtoe *g);
#endif

/* Timers: retransmission, persist, delayed ACK, keepalive, TIME-WAIT. */
void gtoe_poll(struct gtoe *g, uint64_t now_ns);
/* The earliest time gtoe_poll() has something to do (0: no timer runs), so
 * a caller can sleep until then instead of polling every millisecond. */
uint64_t gtoe_next_deadline(const struct gtoe *g);
/* Next segment to send: 1 with *seg filled, 0 when nothing is due. */
uint32_t gtoe_tx_next(struct gtoe *g, uint64_t now_ns, struct gtoe_seg *seg);
/* Next application event: 1 with *ev filled, 0 when none. */
uint32_t gtoe_ev_next(struct gtoe *g, struct gtoe_event *ev);

/* Options of seg in wire form into out[GTOE_OPT_MAX]; returns their length (multiple of 4). */
uint32_t gtoe_opt_build(const struct gtoe_seg *seg, uint8_t *out);
/* Parse options[0..len) into seg's option fields (unknown kinds skipped). */
void gtoe_opt_parse(const uint8_t *opt, uint32_t len, struct gtoe_seg *seg);

int32_t gtoe_info(const struct gtoe *g, int32_t conn, struct gtoe_info *info);
const char *gtoe_state_name(uint32_t state);
/* Slot of the connection laddr:lport <-> raddr:rport (not CLOSED), or -1. */
int32_t gtoe_find(struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport);

#endif
