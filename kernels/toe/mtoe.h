/* mtoe.h - mirror TOE: receive-only TCP reassembly of exchange->vendor streams (synthesisable subset).
 *
 * A switch mirror port shows both directions of the vendor's TCP connections
 * to the exchange. The mirror TOE never transmits: it follows the connections
 * selected by the configuration and turns the exchange->vendor direction into
 * an exact byte stream (stream offsets are 64-bit and start at 0 for every
 * connection), plus events for stream starts, ends and lost byte ranges.
 *
 *   struct mtoe_cfg cfg;
 *   mtoe_cfg_default(&cfg);            // 64 conns, 32 KB window, 50 ms gap timeout, 20 ms ACK allowance
 *   cfg.flows[0] = (struct mtoe_flow){ .ex_addr = ip, .ex_port = port };
 *   cfg.nflows = 1;
 *   mtoe_init(m, &cfg, buf, MTOE_BUF_BYTES(cfg.max_conns, cfg.window));
 *   n = mtoe_segment(m, &pkt, ev, MTOE_SEG_EVENTS);    // for each TCP frame
 *   while ((n = mtoe_poll(m, now_ns, ev, cap)) > 0) ...  // every few ms
 *
 * Memory: the caller owns `struct mtoe` (connection table sized by the
 * compile-time maxima: 784 bytes per slot, about 200 KB) and one reassembly buffer of
 * max_conns * window bytes; connection i uses bytes [i*window, (i+1)*window).
 * The window is a power of two: stream offset o lives at o % window.
 *
 * Events (no function pointers): each call fills a caller array and returns
 * the number of events written, in stream order per connection:
 *   OPEN   a stream (re)starts at offset 0: the downstream resets its STEP
 *          deframer and FAST dictionary (TOE_REC_RESET). reason MTOE_OPEN_SYN,
 *          or MTOE_OPEN_JOIN when no SYN was seen (mid-stream join: offset 0
 *          is the first byte of the first segment seen; resynchronise at the
 *          next "8=STEP").
 *   DATA   len bytes at data, stream offset `offset`. data points into the
 *          segment's payload (in-order fast path, no copy) or into the
 *          reassembly buffer (a wrap of the circular buffer gives two DATA
 *          events). Buffer pointers stay valid until the next mtoe_segment()
 *          that reaches the same slot (mtoe_poll() never writes the buffer),
 *          payload pointers as long as the caller keeps the frame: consume
 *          or copy DATA before that call.
 *   GAP    bytes [offset, offset+len) were lost on the mirror and are skipped;
 *          reason TOE_GAP_TIMEOUT, TOE_GAP_WINDOW, TOE_GAP_ACKED or
 *          TOE_GAP_CLOSED (see below); the downstream resyncs.
 *   CLOSE  the stream ended at `offset`; reason MTOE_CLOSE_*.
 * DATA and GAP events of a connection tile its stream without overlap.
 *
 * Loss policy. A hole (missing bytes followed by received ones) is declared a
 * gap (TOE_GAP_TIMEOUT) once the oldest byte received beyond it has waited
 * gap_timeout_ns (time from net_pkt.ts_ns and mtoe_poll's now_ns). Window
 * pressure: once held data reaches beyond delivery point + 3/4 window, the
 * holes in front of it are gaps (TOE_GAP_WINDOW), oldest first, so the last
 * quarter stays free for the segments that follow (reordering tolerance is
 * thus 3/4 of the window). A segment that ends beyond delivery point + window
 * makes holes gaps until it fits; when nothing is buffered it jumps: the
 * whole hole up to the segment is one gap and the segment is delivered in
 * order. Space freed by delivering buffered bytes is reusable only in the
 * next call (the caller still reads them): out-of-order bytes that would land
 * in it are dropped and counted (window_drop_bytes) and end up inside a later
 * gap; the free quarter makes that rare.
 *
 * Reverse direction as evidence. The mirror also shows the vendor's segments:
 * their ACK numbers (and the sequence number of an exchange RST, its snd_nxt)
 * prove how far the exchange's stream reached, even where the mirror lost it
 * (ack_off: the highest, as a stream offset; numbers more than MTOE_MAX_AHEAD
 * ahead are ignored and counted in bad_acks). Bytes below it that the mirror
 * has not shown are lost (TOE_GAP_ACKED), with a reorder allowance because a
 * mirror may show an ACK before the data it acknowledges: at once when more
 * than ack_reorder_bytes are missing (or ack_reorder_ns is 0), else once they
 * have waited ack_reorder_ns (default 20 ms, well under the hole timeout; the
 * wait covers what was acknowledged when it began plus the rest of that hole,
 * later bytes wait again). So a lost tail is a gap shortly after the vendor's
 * ACK, not at the idle close. A FIN takes one sequence number and no byte,
 * and the mirror cannot tell a lost FIN from a lost last byte: when the
 * highest number acknowledged lies beyond every byte seen and no FIN was seen,
 * it is held back. It becomes data when later bytes or ACKs go beyond it
 * (then it is a one-byte gap of its own if it never came); it is the FIN when
 * the vendor sends its FIN too: the stream then closes (CLOSE FIN, counted in
 * fin_inferred) once every byte before it is delivered or a gap; at a RST or
 * idle close without the vendor's FIN it is taken for data (a gap one byte
 * too long rather than one byte lost without a gap).
 *
 * End of a stream. RST from either side and idle expiry deliver every held
 * range and turn every other byte up to the best evidence of what the
 * exchange sent (highest byte seen, its FIN, ACK or RST number) into gaps:
 * holes before held data or a seen FIN TOE_GAP_TIMEOUT at an idle close, the
 * rest TOE_GAP_CLOSED; then CLOSE. A FIN closes once every byte before it is
 * delivered or a gap (holes before it by the rules above). No byte the
 * exchange is known to have sent leaves without a DATA or GAP event.
 *
 * No double reporting: a declared gap is final. A copy arriving later is
 * dropped and counted (late_segs, late_bytes; the latest MTOE_LOST_RANGES
 * gaps are remembered to tell late copies from duplicates of delivered data;
 * a copy of an older gap counts as a duplicate, and is dropped all the same).
 *
 * Other rules: first copy wins on overlaps, differing overlapping bytes are
 * counted (only bytes still held in the buffer can be compared; data already
 * delivered is a duplicate). A SYN (or SYN-ACK) from the exchange opens a
 * connection, its retransmission (same ISN) is ignored, a SYN with another ISN
 * replaces the connection (its end as for a RST, CLOSE REPLACED, then OPEN).
 * Bytes beyond a FIN are ignored. RST from either side closes at once, after
 * the gaps and held data above. A closed connection keeps its slot for
 * linger_ns to absorb retransmissions, or until its slot is needed. Keep-alives (0 or 1 byte at rcv_nxt-1) are
 * counted and ignored; while the vendor advertises a zero window such probes
 * count as zero-window probes instead, and a 1-byte probe at rcv_nxt is
 * counted and delivered (it is the next stream byte; if the sender
 * retransmits it later, that copy is a duplicate). Segments of the reverse
 * direction are counted and never carry data (their ACK and FIN are
 * evidence, their RST closes, their window feeds the zero-window test).
 */
#ifndef MTOE_H
#define MTOE_H

#include <stdint.h>
#include "net/net_pkt.h"
#include "toe/tick.h"

/* Compile-time maxima (bounds of every loop and array). */
#define MTOE_MAX_CONNS 256
#define MTOE_MIN_WINDOW 64u
#define MTOE_MAX_WINDOW (1u << 20)
#define MTOE_MAX_RANGES 16 /* out-of-order ranges held per connection */
#define MTOE_MAX_FLOWS 64
#define MTOE_HASH_SIZE (4 * MTOE_MAX_CONNS) /* power of two */
#define MTOE_HASH_PROBES 32
#define MTOE_SLACK_SHIFT 2 /* window >> 2 kept free: holes are lost at 3/4 window */
#define MTOE_LOST_RANGES 4 /* latest gaps remembered per connection, to count late copies */
#define MTOE_MAX_AHEAD (1u << 30) /* evidence (ACK, RST seq) further beyond rcv_nxt is ignored */

/* Defaults set by mtoe_cfg_default(). */
#define MTOE_DEFAULT_CONNS 64
#define MTOE_DEFAULT_WINDOW 32768u
#define MTOE_DEFAULT_RANGES 8
#define MTOE_DEFAULT_GAP_NS 50000000ull       /* 50 ms */
#define MTOE_DEFAULT_IDLE_NS 300000000000ull  /* 300 s */
#define MTOE_DEFAULT_LINGER_NS 2000000000ull  /* 2 s */
#define MTOE_DEFAULT_ACK_REORDER_NS 20000000ull /* 20 ms: twice the longest CPU stall seen here */
#define MTOE_DEFAULT_ACK_REORDER_BYTES 65536u   /* two default windows */

/* Event array capacity: mtoe_segment() needs cap >= MTOE_SEG_EVENTS (it
 * writes at most that many); mtoe_poll() needs cap >= MTOE_POLL_EVENTS and
 * stops early when full: call it again until it returns 0. */
#define MTOE_SEG_EVENTS (3 * MTOE_MAX_RANGES + 16)
#define MTOE_POLL_EVENTS 4

/* Bytes of reassembly buffer mtoe_init() needs. */
#define MTOE_BUF_BYTES(conns, window) ((uint64_t)(conns) * (uint64_t)(window))

/* mtoe_init() results */
#define MTOE_OK 0
#define MTOE_ERR_CONNS (-1)  /* max_conns 0 or above MTOE_MAX_CONNS */
#define MTOE_ERR_WINDOW (-2) /* not a power of two in [MTOE_MIN_WINDOW, MTOE_MAX_WINDOW] */
#define MTOE_ERR_RANGES (-3) /* max_ranges 0 or above MTOE_MAX_RANGES */
#define MTOE_ERR_FLOWS (-4)  /* nflows above MTOE_MAX_FLOWS, or a flow with ex_addr and ex_port both 0 */
#define MTOE_ERR_BUF (-5)    /* buffer missing or smaller than MTOE_BUF_BYTES */

enum mtoe_ev_type { MTOE_EV_DATA = 1, MTOE_EV_GAP = 2, MTOE_EV_OPEN = 3, MTOE_EV_CLOSE = 4 };
enum mtoe_open_reason { MTOE_OPEN_SYN = 1, MTOE_OPEN_JOIN = 2 };
enum mtoe_close_reason {
	MTOE_CLOSE_FIN = 1,      /* every byte up to the exchange's FIN delivered */
	MTOE_CLOSE_RST = 2,      /* RST from the exchange */
	MTOE_CLOSE_PEER_RST = 3, /* RST from the vendor (reverse direction) */
	MTOE_CLOSE_REPLACED = 4, /* SYN with a new ISN: an OPEN of the same slot follows */
	MTOE_CLOSE_IDLE = 5,     /* nothing seen for idle_timeout_ns (mtoe_poll) */
};

struct mtoe_event {
	uint8_t type;        /* enum mtoe_ev_type */
	uint8_t reason;      /* OPEN: mtoe_open_reason; GAP: toe_gap_reason; CLOSE: mtoe_close_reason */
	uint16_t conn;       /* connection slot */
	uint16_t flow;       /* index of the cfg.flows entry that selected the connection */
	uint16_t pad;
	uint64_t offset;     /* stream offset: DATA/GAP first byte, OPEN 0, CLOSE end of stream */
	uint64_t len;        /* DATA/GAP: bytes */
	const uint8_t *data; /* DATA only */
};

/* A followed flow: the exchange (sender) endpoint and optionally the vendor
 * endpoint. A zero field matches anything; ex_addr and ex_port must not both
 * be zero (the direction would be ambiguous). Host byte order. */
struct mtoe_flow {
	uint32_t ex_addr;
	uint32_t peer_addr;
	uint16_t ex_port;
	uint16_t peer_port;
	uint16_t in_port;  /* the port (net_pkt.in_port, 0..3) whose frames it selects: a flow of port 1
			    * never takes a frame that arrived on port 0, and a connection belongs to
			    * its flow's port (the same 4-tuple on two ports is two connections) */
	uint16_t pad;
};

struct mtoe_cfg {
	uint32_t max_conns;       /* concurrent connections, 1..MTOE_MAX_CONNS */
	uint32_t window;          /* reassembly bytes per connection, power of two */
	uint32_t max_ranges;      /* out-of-order ranges per connection, 1..MTOE_MAX_RANGES */
	uint32_t nflows;
	uint64_t gap_timeout_ns;  /* age of a hole that makes it a gap; 0: only window gaps */
	uint64_t idle_timeout_ns; /* open connection silent this long is closed; 0: never */
	uint64_t linger_ns;       /* closed connection keeps its slot this long */
	uint64_t ack_reorder_ns;  /* acknowledged bytes missing on the mirror wait this long for their copy; 0: none */
	uint32_t ack_reorder_bytes; /* more acknowledged bytes than this missing: a gap at once; 0: no byte limit */
	uint32_t first_conn;      /* slots below it are never allocated: the pipeline's stream numbers of the
				     general TOE's own connections (role = tcp), which share the numbering
				     with this mirror TOE's slots; 0..max_conns */
	struct mtoe_flow flows[MTOE_MAX_FLOWS];
};

/* Per-connection counters; zeroed when the slot opens a new stream. */
struct mtoe_conn_stats {
	uint64_t segments;          /* forward segments handled while open */
	uint64_t bytes;             /* bytes delivered in DATA events */
	uint64_t in_order;          /* segments that started at or before the delivery point */
	uint64_t out_of_order;      /* segments stored in the buffer with new bytes */
	uint64_t duplicates;        /* segments with no new byte (retransmissions) */
	uint64_t dup_bytes;         /* bytes received again */
	uint64_t conflicts;         /* segments with overlapping bytes that differ */
	uint64_t conflict_bytes;    /* overlapping bytes that differ (first copy kept) */
	uint64_t range_full;        /* segments dropped: range list full, segment inside the first hole */
	uint64_t range_evictions;   /* oldest holes given up (gap) to make room in a full range list */
	uint64_t window_drops;      /* segments (partly) dropped: no buffer space this call */
	uint64_t window_drop_bytes;
	uint64_t beyond_window;     /* segments ending beyond delivery point + window */
	uint64_t gaps;              /* GAP events */
	uint64_t gap_bytes;
	uint64_t keepalives;
	uint64_t zero_window_probes;
	uint64_t syn_retrans;       /* retransmitted SYNs ignored */
	uint64_t after_fin_bytes;   /* bytes beyond the FIN ignored */
	uint64_t after_close;       /* forward segments absorbed while closed */
	uint64_t reverse;           /* vendor->exchange segments */
	uint64_t ack_gaps;          /* gaps the vendor's ACKs proved (TOE_GAP_ACKED), also in gaps */
	uint64_t ack_gap_bytes;
	uint64_t close_gaps;        /* gaps declared when the stream ended (TOE_GAP_CLOSED), also in gaps */
	uint64_t close_gap_bytes;
	uint64_t late_segs;         /* segments with bytes of a range already declared a gap */
	uint64_t late_bytes;        /* those bytes, dropped (not counted in dup_bytes) */
	uint64_t fin_inferred;      /* the exchange's FIN taken from the vendor's ACK (or a RST), never seen */
	uint64_t bad_acks;          /* ACK or RST numbers more than MTOE_MAX_AHEAD ahead, ignored */
};

/* Global counters. */
struct mtoe_stats {
	uint64_t packets;      /* mtoe_segment() calls */
	uint64_t not_tcp;
	uint64_t not_followed; /* no flow entry matches either direction */
	uint64_t reverse;      /* vendor->exchange segments (known connection or flow) */
	uint64_t no_conn;      /* followed forward segment without data/SYN and no connection (ACK, FIN, RST) */
	uint64_t no_slot;      /* new connection dropped: table full */
	uint64_t opens;        /* OPEN events (SYN) */
	uint64_t joins;        /* OPEN events (mid-stream join) */
	uint64_t restarts;     /* SYN with a new ISN on an open connection */
	uint64_t closes;       /* CLOSE events */
	uint64_t after_close;  /* forward segments absorbed by closed connections */
	uint64_t bytes;        /* bytes delivered, all connections */
	uint64_t gaps;
	uint64_t gap_bytes;
	uint64_t ev_short;     /* calls refused: cap below the documented minimum */
	uint64_t ev_overflow;  /* events lost to a full array (a bug if nonzero) */
	uint64_t ack_gaps;     /* gaps proved by the vendor's ACKs (TOE_GAP_ACKED), also in gaps */
	uint64_t ack_gap_bytes;
	uint64_t close_gaps;   /* gaps declared when a stream ended (TOE_GAP_CLOSED), also in gaps */
	uint64_t close_gap_bytes;
	uint64_t late_bytes;   /* bytes of declared gaps that arrived later, dropped */
	uint64_t fin_inferred; /* exchange FINs taken from the vendor's ACK, never seen */
	uint64_t bad_acks;     /* ACK/RST numbers more than MTOE_MAX_AHEAD ahead, ignored */
};

/* The counters of both structs by name, in field order, for the tools that
 * print them (toectl, toe-pcapdump): X(field) for every field. */
#define MTOE_STATS_FIELDS(X)                                                                       \
	X(packets) X(not_tcp) X(not_followed) X(reverse) X(no_conn) X(no_slot) X(opens) X(joins)    \
	X(restarts) X(closes) X(after_close) X(bytes) X(gaps) X(gap_bytes) X(ev_short) X(ev_overflow) \
	X(ack_gaps) X(ack_gap_bytes) X(close_gaps) X(close_gap_bytes) X(late_bytes) X(fin_inferred)  \
	X(bad_acks)
#define MTOE_CONN_STATS_FIELDS(X)                                                                  \
	X(segments) X(bytes) X(in_order) X(out_of_order) X(duplicates) X(dup_bytes) X(conflicts)     \
	X(conflict_bytes) X(range_full) X(range_evictions) X(window_drops) X(window_drop_bytes)      \
	X(beyond_window) X(gaps) X(gap_bytes) X(keepalives) X(zero_window_probes) X(syn_retrans)     \
	X(after_fin_bytes) X(after_close) X(reverse) X(ack_gaps) X(ack_gap_bytes) X(close_gaps)       \
	X(close_gap_bytes) X(late_segs) X(late_bytes) X(fin_inferred) X(bad_acks)
/* a field added to a struct but not to its list fails here */
#define MTOE_ONE_(f) +1
#if defined(__cplusplus)
#define MTOE_STATIC_ASSERT static_assert
#else
#define MTOE_STATIC_ASSERT _Static_assert
#endif
MTOE_STATIC_ASSERT(sizeof(struct mtoe_stats) == 8 * (0 MTOE_STATS_FIELDS(MTOE_ONE_)), "MTOE_STATS_FIELDS lists every field");
MTOE_STATIC_ASSERT(sizeof(struct mtoe_conn_stats) == 8 * (0 MTOE_CONN_STATS_FIELDS(MTOE_ONE_)),
	       "MTOE_CONN_STATS_FIELDS lists every field");

enum mtoe_state { MTOE_FREE = 0, MTOE_OPEN = 1, MTOE_CLOSED = 2 };

struct mtoe_range {
	uint64_t start, end; /* stream offsets [start, end), start > delivery point */
	uint64_t ts;         /* arrival time of its oldest byte */
};

struct mtoe_conn {
	uint8_t state;         /* enum mtoe_state */
	uint8_t syn_seen;      /* 0: joined mid-stream */
	uint8_t fin_seen;
	uint8_t peer_win_zero; /* the vendor's last ACK advertised window 0 */
	uint8_t peer_fin;      /* the vendor sent its FIN */
	uint8_t ack_seen;      /* ack_off holds evidence */
	uint8_t ack_wait;      /* acknowledged bytes missing since ack_wait_ts */
	uint8_t nlost;         /* entries of lost[] in use */
	uint16_t flow;
	uint16_t nranges;
	/* forward direction: exchange (s) -> vendor (d) */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint32_t isn;          /* exchange ISN when syn_seen */
	uint32_t start_seq;    /* sequence number of stream offset 0 */
	uint32_t nxt_seq;      /* next expected sequence number (rcv_nxt) */
	uint64_t nxt_off;      /* its stream offset: bytes delivered or skipped */
	uint64_t fin_off;      /* stream offset of the FIN when fin_seen */
	uint64_t fin_ts;
	uint64_t last_ns;      /* last activity (open) or close time (closed) */
	uint64_t hi_off;       /* end of the highest data byte seen (kept or not) */
	uint64_t ack_off;      /* highest offset the vendor acknowledged or an exchange RST named (may count the FIN) */
	uint64_t ack_wait_ts;  /* when acknowledged bytes were first seen missing */
	uint64_t ack_wait_lim; /* ack_off at that time: what the wait is for */
	struct mtoe_lost { uint64_t start, end; } lost[MTOE_LOST_RANGES]; /* latest gaps, lost[0] newest */
	struct mtoe_range range[MTOE_MAX_RANGES]; /* sorted, disjoint, non-adjacent */
	struct mtoe_conn_stats st;
};

struct mtoe {
	struct mtoe_cfg cfg;
	uint8_t *buf;
	uint32_t mask;         /* window - 1 */
	uint32_t poll_next;    /* mtoe_poll resumes here */
	/* current call (private) */
	struct mtoe_event *ev;
	uint32_t cap, nev;
	uint64_t now;
	uint8_t buf_out;       /* buffer bytes were handed out in this call */
	uint8_t seg_conflict;
	uint64_t buf_lo;       /* lowest stream offset handed out from the buffer in this call */
	int32_t seg_conn;      /* the connection the last mtoe_segment concerned, -1 none (rx_pipe: its
				* reassembly may now hold bytes behind a hole, or no longer) */
	struct mtoe_stats st;
	uint16_t hash[MTOE_HASH_SIZE]; /* connection slot + 1, 0 empty */
	struct mtoe_conn conn[MTOE_MAX_CONNS];
};

void mtoe_cfg_default(struct mtoe_cfg *cfg);

/* Copy cfg, clear every connection. buf: MTOE_BUF_BYTES(max_conns, window)
 * bytes the caller keeps for the lifetime of m. Returns MTOE_OK or MTOE_ERR_*. */
int mtoe_init(struct mtoe *m, const struct mtoe_cfg *cfg, uint8_t *buf, uint64_t buf_len);

/* One received frame (any protocol). Fills ev[0..n) and returns n; does
 * nothing (counted in ev_short) when cap < MTOE_SEG_EVENTS. */
uint32_t mtoe_segment(struct mtoe *m, const struct net_pkt *pkt, struct mtoe_event *ev, uint32_t cap);

/* Timers: gap timeouts, idle connections, lingering closed slots. Returns the
 * number of events written; when cap ran short it resumes where it stopped
 * on the next call, so call until it returns 0. */
uint32_t mtoe_poll(struct mtoe *m, uint64_t now_ns, struct mtoe_event *ev, uint32_t cap);

/* Slot of the connection with this exchange->vendor 4-tuple, or -1. */
int32_t mtoe_lookup(const struct mtoe *m, uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport);
/* The same among the connections of port in_port's flows (mtoe_lookup: port 0). */
int32_t mtoe_lookup_port(const struct mtoe *m, uint32_t in_port, uint32_t saddr, uint16_t sport, uint32_t daddr,
			 uint16_t dport);

#endif
