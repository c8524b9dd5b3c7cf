/* rx_pipe.h - the receive pipeline: frames in, tick records and stream events out (synthesisable subset).
 *
 * One block joins every receive stage, for the software backend and the card:
 *
 *   frame -> net_rx -> TCP: mtoe_segment -> per event:
 *                        OPEN  -> fast_stream_restart(0) + a TOE_REC_RESET entry
 *                        DATA  -> fast_stream_feed/next -> record entries
 *                        GAP   -> fast_stream_restart(after the gap) + a TOE_REC_GAP entry
 *                        CLOSE -> counted (every byte before it was a DATA or GAP event)
 *                    UDP: net_udp listen table -> the port's stream (STEP or DATAGRAM framing)
 *   decoder / deframer errors -> a TOE_REC_GAP entry, reason TOE_GAP_DECODE, detail = the fast_err code
 *
 * Pull model, no callbacks (no function pointers in the kernels), like fast_stream:
 *
 *   rx_frame(p, frame, len, ts_ns);          // or rx_poll(p, now_ns) for the mirror TOE's timers
 *   while (rx_next(p, &out))
 *       use out (out.rec and the DATA bytes are valid until the next rx_next/rx_frame/rx_poll);
 *
 * The frame must stay valid (unchanged) until rx_next has returned 0: DATA
 * delivered in order points into its payload. rx_frame/rx_poll called while
 * entries are still pending first run the pending work to its end, counting
 * what nobody read (rx.undrained): callers drain every time.
 *
 * Streams: stream id = mtoe connection slot for TCP (0 .. max_conns-1), and
 * max_conns + i for the UDP port cfg.udp[i]. Each stream has its own
 * struct fast_stream (STEP deframer + FAST decoder, ~100 KB: step buffer and
 * dictionary), in an array the caller provides: RX_NSTREAMS(cfg) of them.
 * The mirror TOE's reassembly buffer (MTOE_BUF_BYTES(max_conns, window)) is
 * caller memory too; struct rx_pipe itself (the connection table, the UDP
 * table, counters) is a few hundred KB the caller owns.
 *
 * Gap entries (union toe_record, struct toe_gap), byte ranges in the stream:
 *   TOE_GAP_TIMEOUT/WINDOW: the mirror TOE skipped [offset, offset+length)
 *     (a hole that timed out or blocked the window).
 *   TOE_GAP_ACKED: the vendor's ACKs show the exchange sent those bytes and
 *     the mirror did not show them within the reorder allowance (mtoe.h,
 *     "Reverse direction"): a lost tail is reported soon after the vendor's
 *     ACK, not at the idle close.
 *   TOE_GAP_CLOSED: the connection ended (RST, idle close) and those bytes,
 *     known sent, were never seen. The mirror TOE reports every byte the
 *     exchange is known to have sent as DATA or a gap, so a TCP stream's
 *     entries account for all of it; a copy arriving after its gap is dropped
 *     (mtoe late_bytes), never delivered.
 *   TOE_GAP_DECODE, detail = fast_err code:
 *     STEP_E_GARBAGE: bytes skipped while hunting for "8=STEP" (the tail of a
 *       message cut by a gap, the first partial message of a mid-stream
 *       join): [first skipped byte, the '8' of the next message);
 *     other STEP_E_*: the failed message from its '8' up to and including
 *       the byte that revealed the error (bytes after it are re-scanned for
 *       the next message and not reported again);
 *     FAST_E_* (STEP framing): the whole message whose payload failed (its
 *       records before the error were delivered); DATAGRAM framing: the
 *       datagram.
 *   Offsets count the stream's bytes from 0 (TCP: since the OPEN; UDP: all
 *   datagram payloads of the port since rx_init).
 *
 * UDP framing: STEP (each datagram holds whole STEP messages; offsets run
 * over the payloads of the port as one byte stream; the deframer restarts at
 * every datagram, so a message cut short at a datagram's end is a
 * TOE_GAP_DECODE gap with detail STEP_E_BAD_LENGTH over its bytes, reported
 * before the next datagram's entries) or DATAGRAM (each payload is raw FAST
 * with a dictionary reset, msg_seq 0).
 *
 * Sequence tracking (RX_CFG_SEQ, kernels/seq/seq_track.h), after tick
 * mapping: each record's (channel, sequence) key (cfg.seq.fields, resolved
 * against the templates at init) is checked in its stream's group:
 *   - a copy of a delivered record (the other line's, or a repeat) is
 *     dropped and counted (seq_dups), never an entry;
 *   - a jump makes a TOE_GAP_SEQUENCE entry (channel, first, last) before
 *     the record: at once on a TCP line of a one-line group, after
 *     cfg.seq.wait_ns when no other line of the group (or, over UDP, no
 *     reordered datagram) filled the hole (rx_poll or a later record of the
 *     channel); a record filling a hole carries TOE_RF_LATE. A record's
 *     arrival is its frame's time, also when a poll's timer releases it
 *     from behind a byte hole: a poll's holes expire after its timer events,
 *     so records that came in time fill them; while a mirrored line of the
 *     group holds bytes behind a byte hole and has not passed a hole, that
 *     hole waits twice the mirror TOE's gap timeout more (held_conn:
 *     seq_group.held_lines, updated at each segment and after the timers);
 *   - records below a channel's first record within cfg.seq.wait_ns of it
 *     (reordered first datagrams, or a line that started earlier; one-line
 *     groups too) are delivered with TOE_RF_LATE and the range between is
 *     such a hole; later ones are dropped, counted (seq_dups, before_start);
 *   - a channel going back to 1 makes a RESET entry, reason
 *     TOE_RESET_RESTART, with the channel and its sequence before;
 *   - every record entry carries hdr.group (from 1) and hdr.line.
 * Per stream, every STEP message's MsgSeqNum (heartbeats included) is
 * checked: a jump is a TOE_GAP_MSG_SEQ entry naming the missing numbers (at
 * once on TCP; on a UDP port a hole that a reordered message fills, counted
 * in msg_late, or the entry at the first poll after cfg.seq.wait_ns), a
 * repeat is counted, a 1 is a RESET entry (TOE_RESET_RESTART, channel
 * TOE_CHANNEL_NONE); a new connection (OPEN) starts afresh. The CLOSE of a
 * line of an arbitration group is a RESET entry, TOE_RESET_ARB_SWITCH.
 * Entries of a timed-out hole name the stream that last carried line 0.
 *
 * ARP and ICMP frames are classified and counted only: rx_frame returns the
 * net_rx verdict and leaves the parsed frame in p->pkt for a caller that
 * answers them (net_arp_input / net_icmp_input).
 *
 * Per-event entry points, for a caller whose mirror TOE and listen table run
 * elsewhere (the card's fast_top receives mtoe events and listened datagrams
 * as messages): rx_init_decode sets up only the decoder half, and
 *
 *   rx_event(p, &ev, ts_ns);                 // one mirror TOE event, as rx_frame's TCP path applies it
 *   rx_feed(p, sid, piece, n, offset);       // more bytes of a DATA event handed in piecewise (ev.data == 0)
 *   rx_datagram(p, udp_index, data, len, ts_ns);  // a listened datagram, as rx_frame's UDP path
 *   while (rx_drain(p, &out))                // rx_next without the mirror TOE's timers
 *       use out;
 *
 * They share every line of the event and datagram handling with rx_frame,
 * so the entries and counters are the same. rx_drain never calls the mirror
 * TOE (mtoe_poll): a caller of these needs no struct mtoe and no listen table.
 *
 * Session messages (cfg.sess[sid] set on a TCP stream: toed's own connection
 * on the card, whose STEP session runs on the host): every STEP message of
 * that stream without FAST data (Logon, Heartbeat, TestRequest, Logout...)
 * is an RX_OUT_SESS entry, reason RX_SESS_MSG, with the whole message
 * (data, len: valid until the next rx_drain), its MsgSeqNum and offset,
 * after the MsgSeqNum check's own entry if any; the stream's CLOSE is an
 * RX_OUT_SESS entry, reason RX_SESS_CLOSE. A data message none of whose
 * records goes out as a tick entry (every record of a template the tick
 * mapper does not map, or dropped by sequence tracking) is an RX_OUT_SESS
 * entry of reason RX_SESS_SEEN (its msg_seq only), after the record entry
 * that made it so, once per message: the host's session would otherwise take
 * the next message's MsgSeqNum for a hole. fast_top packs them into
 * card-internal ring records (rx_sess.h) that the host keeps to itself. The
 * software backend leaves cfg.sess clear (its session sees the bytes in
 * dp_tcp's hooks), so nothing else changes: no records, no counters.
 */
#ifndef RX_PIPE_H
#define RX_PIPE_H

#include <stdint.h>
#include "net/net_rx.h"
#include "net/net_udp.h"
#include "net/net_counters.h"
#include "toe/mtoe.h"
#include "toe/tick.h"
#include "fast/fast_stream.h"
#include "fast/fast_prog.h"
#include "seq/seq_track.h"

#define RX_MAX_UDP 64
#define RX_MAX_STREAMS (MTOE_MAX_CONNS + RX_MAX_UDP)

/* Streams (and struct fast_stream entries) a configuration needs. */
#define RX_NSTREAMS(cfg) ((cfg)->mtoe.max_conns + (cfg)->nudp)

/* rx_cfg.flags */
#define RX_CFG_TAP_DATA 0x1u /* also return RX_OUT_DATA entries: the stream bytes as they reach the deframer */
#define RX_CFG_NO_TICK 0x2u  /* do not map records to tick records (out.tick.hdr.type stays TOE_REC_NONE) */
#define RX_CFG_SEQ 0x4u      /* sequence tracking (cfg.seq): per-channel gaps and duplicates, A/B arbitration,
				MsgSeqNum checks; see "Sequence tracking" above */

/* rx_out.reason of RX_OUT_SESS entries */
#define RX_SESS_MSG 1   /* a session message: data[0..len) */
#define RX_SESS_CLOSE 2 /* the connection ended */
#define RX_SESS_SEEN 3  /* a data message none of whose records became a tick entry (unmapped, or dropped by
			   sequence tracking): msg_seq only, so the host's session sees its MsgSeqNum */
#define RX_MAX_GROUPS 4 /* sequence/arbitration groups */

/* rx_init() results (mtoe_init's codes pass through: MTOE_ERR_*) */
#define RX_OK 0
#define RX_ERR_UDP (-10)     /* nudp above RX_MAX_UDP, or a (port, in_port) listed twice */
#define RX_ERR_STREAMS (-11) /* fewer fast_streams than RX_NSTREAMS(cfg) */
#define RX_ERR_SEQ (-12)     /* RX_CFG_SEQ: ngroups 0 or above RX_MAX_GROUPS, a group or line out of range,
				nfields above SEQ_MAX_FIELDS */

struct rx_udp_cfg {
	uint16_t port;    /* UDP destination port listened to */
	uint8_t framing;  /* FAST_FRAMING_STEP or FAST_FRAMING_DATAGRAM */
	uint8_t in_port;  /* on this port only (net_pkt.in_port): the same UDP port on two ports is two
			     streams (A/B lines), a datagram on a port without that entry is dropped
			     (rx.udp_other_port) */
};

/* Sequence tracking (RX_CFG_SEQ). Every stream belongs to a group (its
 * lines carry the same channels): a TCP connection through the mtoe flow
 * that selected it, a UDP port through its index. A group whose streams use
 * one line is plain tracking; lines 0..n-1 make it an arbitration group. */
struct rx_seq_cfg {
	uint32_t ngroups;  /* groups in use, 1..RX_MAX_GROUPS */
	uint32_t nfields;  /* key rules in fields[] */
	uint64_t wait_ns;  /* how long a hole waits for another line, and the join wait (default SEQ_DEFAULT_WAIT_NS) */
	uint8_t flow_group[MTOE_MAX_FLOWS]; /* group (0-based) of the connections of mtoe flow i */
	uint8_t flow_line[MTOE_MAX_FLOWS];  /* their line in it */
	uint8_t udp_group[RX_MAX_UDP];      /* group of UDP port i */
	uint8_t udp_line[RX_MAX_UDP];
	struct seq_field_cfg fields[SEQ_MAX_FIELDS]; /* which fields are channel and sequence */
};

#define RX_MAX_PORTS 4 /* ports frames arrive on (rx_frame_port): the software backend's [port.0..3] */

struct rx_cfg {
	struct net_cfg net;   /* addresses, checksum switches (port 0's) */
	struct net_cfg net_port[RX_MAX_PORTS - 1]; /* ports 1..3's (rx_frame_port); net_cfg_init by default */
	struct mtoe_cfg mtoe; /* followed flows, connections, window, timeouts */
	uint32_t nudp;
	uint32_t flags;       /* RX_CFG_* */
	struct rx_udp_cfg udp[RX_MAX_UDP];
	struct rx_seq_cfg seq; /* used with RX_CFG_SEQ */
	uint8_t sess[MTOE_MAX_CONNS]; /* non-zero: TCP stream i is toed's own connection with a STEP session
					 whose messages the caller needs (the card: RX_OUT_SESS entries,
					 "Session messages" above); 0 everywhere by default */
};

/* net_cfg_init + mtoe_cfg_default (no flows), no UDP ports, flags 0, no session streams; seq:
 * one group, every stream on its line 0, wait 1 ms, the SSE key rules. */
void rx_cfg_default(struct rx_cfg *cfg);

enum rx_out_kind {
	RX_OUT_NONE = 0,
	RX_OUT_RECORD = 1, /* a decoded record: rec, msg_seq, tick */
	RX_OUT_GAP = 2,    /* tick.gap: a lost byte range */
	RX_OUT_RESET = 3,  /* tick.hdr: the stream (re)started (new TCP connection); reason = mtoe_open_reason */
	RX_OUT_DATA = 4,   /* RX_CFG_TAP_DATA only: data[0..len) at stream offset `offset` */
	RX_OUT_SESS = 5,   /* a session stream (cfg.sess): reason RX_SESS_MSG, a STEP message without FAST
			      data (data[0..len) the whole message, msg_seq, offset), RX_SESS_CLOSE, or
			      RX_SESS_SEEN (msg_seq, offset: a data message that yields no tick entry) */
};

struct rx_out {
	uint8_t kind;               /* enum rx_out_kind */
	uint8_t reason;             /* RESET: enum toe_reset_reason (SYN/JOIN from the mirror TOE, RESTART and
				       ARB_SWITCH from sequence tracking) */
	uint16_t stream;
	int32_t tick_type;          /* RECORD: fast_tick_map's result (TOE_REC_TRADE/ORDER, 0 unmapped) */
	uint64_t msg_seq;           /* RECORD: STEP MsgSeqNum (0 in DATAGRAM framing) */
	uint64_t offset;            /* RECORD: stream offset of the carrying message; DATA: of data[0] */
	uint64_t len;               /* DATA: bytes */
	const struct fast_rec *rec; /* RECORD: the stream's decoder output, overwritten by the next rx_next;
				       0 when p->fastx decoded it (the tick only: no value array) */
	const uint8_t *data;        /* DATA */
	union toe_record tick;      /* RECORD: the mapped tick (hdr.stream, hdr.msg_seq, hdr.rx_ns set);
				       GAP: struct toe_gap; RESET: struct toe_reset (reason) */
};

/* Pipeline counters (besides those of net_stats, mtoe and each fast_stream). */
#define RX_STATS(X)                                                                        \
	X(frames)          /* rx_frame calls */                                        \
	X(tcp)             /* frames net_rx classified as TCP (given to the mirror TOE) */ \
	X(udp)             /* frames classified as UDP */                              \
	X(udp_listened)    /* UDP datagrams fed to a stream */                         \
	X(arp)             /* ARP frames (not answered here) */                        \
	X(icmp)            /* ICMP frames (not answered here) */                       \
	X(dropped)         /* frames net_rx dropped (reason in net_stats) */           \
	X(udp_other_port)  /* datagrams to a UDP port listened on another port only: dropped */ \
	X(polls)           /* rx_poll calls */                                         \
	X(opens)           /* OPEN events: streams (re)started */                      \
	X(closes)          /* CLOSE events */                                          \
	X(data_events)     /* DATA events fed to a deframer */                         \
	X(bytes)           /* stream bytes fed to deframers (TCP and UDP) */           \
	X(records)         /* records decoded: RECORD entries + those sequence tracking dropped */ \
	X(tick_unmapped)   /* records whose template maps to no tick type */          \
	X(tick_range)      /* records delivered flagged TOE_RF_RANGE (a value did not fit its tick field) */ \
	X(warnings)        /* records delivered with a reportable FAST error */        \
	X(resets)          /* RESET entries */                                         \
	X(gaps)            /* GAP entries, all reasons */                              \
	X(gap_bytes)       /* bytes they cover */                                      \
	X(gaps_timeout)                                                                \
	X(gaps_window)                                                                 \
	X(gaps_decode)                                                                 \
	X(gaps_acked)      /* bytes the vendor acknowledged, never on the mirror */    \
	X(gaps_closed)     /* bytes never seen when a connection ended (RST, idle) */  \
	X(undrained)       /* entries produced but not read (rx_frame/rx_poll called early) */ \
	X(bad_stream)      /* events for a stream id without a fast_stream (a bug if nonzero) */ \
	X(seq_records)     /* RX_CFG_SEQ: records with a (channel, sequence) key, checked */ \
	X(seq_unkeyed)     /* records without a key (template untracked, key field absent): delivered */ \
	X(seq_key_fallback) /* records the CPU fast decoder left to the reference because their  \
			      template's key is not readable from the tick record */ \
	X(seq_dups)        /* dropped: (channel, sequence) already delivered (A/B copies, repeats) */ \
	X(seq_stale)       /* dropped: a line still on the numbering before its channel restarted */ \
	X(seq_late)        /* delivered after higher sequences (TOE_RF_LATE) */        \
	X(seq_gaps)        /* TOE_GAP_SEQUENCE entries */                              \
	X(seq_missing)     /* sequence numbers they name */                            \
	X(seq_restarts)    /* channels whose sequence went back to 1 (RESET entries, RESTART) */ \
	X(msg_jumps)       /* MsgSeqNum jumps (TOE_GAP_MSG_SEQ entries) */             \
	X(msg_missing)     /* MsgSeqNums they skip */                                  \
	X(msg_repeats)     /* MsgSeqNum repeats or steps back (counted only) */       \
	X(msg_late)        /* UDP: messages that filled a MsgSeqNum hole (reordered, not lost) */ \
	X(msg_restarts)    /* MsgSeqNum back to 1 (a new logon; RESET entries, RESTART) */ \
	X(line_downs)      /* lines of arbitration groups that closed (RESET entries, ARB_SWITCH) */

/* Per-stream counters. */
#define RX_STREAM_STATS(X)                                                                 \
	X(bytes)           /* stream bytes fed to the deframer */                      \
	X(datagrams)       /* UDP: datagrams */                                        \
	X(records)                                                                     \
	X(tick_unmapped)                                                               \
	X(tick_range)                                                                  \
	X(warnings)                                                                    \
	X(resets)                                                                      \
	X(closes)                                                                      \
	X(gaps)                                                                        \
	X(gap_bytes)                                                                   \
	X(decode_errors)   /* deframer + decoder errors (by code: fs[i].step.errors, fs[i].dec.errors) */ \
	X(seq_won)         /* RX_CFG_SEQ: keyed records this stream delivered first */ \
	X(seq_dups)        /* keyed records dropped as copies (or stale) */            \
	X(msg_jumps)                                                                   \
	X(msg_missing)                                                                 \
	X(msg_repeats)                                                                 \
	X(msg_late)                                                                    \
	X(msg_restarts)

#define RX_STAT_FIELD(name) uint64_t name;
#define RX_STAT_ONE(name) +1
#define RX_STATS_COUNT (0 RX_STATS(RX_STAT_ONE))
#define RX_STREAM_STATS_COUNT (0 RX_STREAM_STATS(RX_STAT_ONE))

struct rx_stats { RX_STATS(RX_STAT_FIELD) };
struct rx_stream_stats { RX_STREAM_STATS(RX_STAT_FIELD) };

struct fastx_dec; /* host only: kernels/fast/host/fastx.h */

struct rx_pipe {
	struct rx_cfg cfg;
	const struct fast_prog *prog;
	/* Host builds (TOE_CPU_DECODER defined, as the Makefile does): when set
	 * (after rx_init / rx_init_decode, which clear it), records are decoded
	 * by the specialised CPU decoder straight into tick records; the card
	 * build and the C-simulation compile without the macro and never look
	 * at it. See "The CPU decoder seam" in rx_pipe.c. */
	struct fastx_dec *fastx;
	struct fastx_dec *fx_keyed; /* the decoder whose sequence keys were set from keys (host only) */
	struct fast_stream *fs;  /* caller's array, RX_NSTREAMS(cfg) entries */
	uint32_t nstreams;
	struct net_stats net;
	struct rx_stats st;
	struct rx_stream_stats sst[RX_MAX_STREAMS];
	/* the frame of the last rx_frame call */
	struct net_pkt pkt;
	int32_t verdict;         /* enum net_rx_verdict */
	/* pending work (private) */
	uint64_t now;            /* rx_ns of the entries: frame, poll, event or datagram time */
	uint64_t now_poll;       /* time given to mtoe_poll */
	uint64_t now_rx;         /* time of the last frame, event or datagram: what the sequence checks
				    take as a record's arrival (a poll's timers release records that came
				    before it, held behind a byte hole, and they may still fill a hole) */
	uint32_t nev, ev_pos;
	int32_t active;          /* stream whose fast_stream holds fed input, -1 none */
	uint8_t polling;         /* events come from mtoe_poll: refill until it returns 0 */
	uint8_t cut_pending;     /* a UDP message cut at a datagram end: report cut_* first */
	uint8_t tap_pending;     /* RX_CFG_TAP_DATA: the DATA entry of the bytes just fed comes next */
	uint8_t pad;
	uint32_t cut_stream;
	uint64_t cut_offset, cut_len;
	uint8_t junk_pending;    /* a UDP STEP datagram with no message start: report junk_* */
	uint32_t junk_stream;
	uint64_t junk_offset, junk_len;
	uint64_t tap_offset, tap_len;
	uint8_t sess_pend;       /* RX_SESS_*: a session entry of stream sess_sid comes next (0 none) */
	uint32_t sess_sid;
	uint32_t sess_no[MTOE_MAX_CONNS]; /* RX_OUT_SESS entries per stream since init (toe_card_sess.msg_no);
					     RX_SESS_SEEN entries take no number */
	uint8_t sess_told[MTOE_MAX_CONNS]; /* the host knows the stream's current data message: a mapped record
					      of it went out, or its RX_SESS_SEEN entry */
	const uint8_t *tap_data;
	uint64_t udp_off[RX_MAX_UDP]; /* stream offset of each port's next datagram */
	/* sequence tracking (RX_CFG_SEQ) */
	uint8_t held;            /* a delivered record waits in held_out behind sq's events */
	uint8_t seq_polling;     /* a poll's expired holes still to turn into gaps */
	uint8_t mirror;          /* rx_init: the pipe runs its mirror TOE (rx_next fetches its timers) */
	uint16_t line_sid[RX_MAX_GROUPS][SEQ_MAX_LINES]; /* stream that last carried each line */
	uint16_t conn_flow[MTOE_MAX_CONNS]; /* mtoe flow of each TCP stream (from its events) */
	struct rx_out held_out;
	struct seq_queue sq;
	struct seq_keys keys;
	struct seq_msg msg[RX_MAX_STREAMS];  /* MsgSeqNum per stream */
	struct seq_group grp[RX_MAX_GROUPS];
	struct mtoe_event ev[MTOE_SEG_EVENTS];
	struct net_udp_table udp;
	struct mtoe mtoe;
};

/* Set up p from cfg (copied). prog: the compiled templates, kept by the
 * caller. fs: nfs >= RX_NSTREAMS(cfg) stream decoders (initialised here).
 * mtoe_buf: MTOE_BUF_BYTES(cfg->mtoe.max_conns, cfg->mtoe.window) bytes.
 * Returns RX_OK, RX_ERR_* or MTOE_ERR_*. */
int rx_init(struct rx_pipe *p, const struct rx_cfg *cfg, const struct fast_prog *prog, struct fast_stream *fs,
	    uint32_t nfs, uint8_t *mtoe_buf, uint64_t buf_len);

/* One Ethernet frame (no FCS) received at ts_ns. Returns the net_rx verdict. */
int32_t rx_frame(struct rx_pipe *p, const uint8_t *frame, uint32_t len, uint64_t ts_ns);

/* rx_frame with the source's word on the frame's TCP/UDP checksum (NET_CSUM_*,
 * net_rx.h), heeded when cfg.net.flags has NET_CFG_CSUM_HINTS. */
int32_t rx_frame_csum(struct rx_pipe *p, const uint8_t *frame, uint32_t len, uint64_t ts_ns, uint32_t csum);
/* rx_frame_csum for a frame that arrived on port in_port (0..3): TCP frames are matched only against
 * that port's mirror TOE flows (mtoe_flow.in_port) and connections, UDP datagrams only against its
 * listened ports (rx_udp_cfg.in_port). rx_frame and rx_frame_csum are port 0. */
int32_t rx_frame_port(struct rx_pipe *p, uint32_t in_port, const uint8_t *frame, uint32_t len, uint64_t ts_ns,
		      uint32_t csum);

/* The mirror TOE's timers at now_ns (gap timeouts, idle connections):
 * call every few ms, and with UINT64_MAX at the end of a capture to turn
 * every remaining hole into a gap. */
void rx_poll(struct rx_pipe *p, uint64_t now_ns);

/* The next output entry: 1 with *out filled, 0 when the frame (or poll) is done. */
int rx_next(struct rx_pipe *p, struct rx_out *out);

/* Batch form of rx_next for a caller that publishes tick records (the
 * daemon): the entries rx_next would return next, as long as they are
 * mapped RECORD entries of one stream, decoded straight into recs[0..n)
 * (n <= cap; the same bytes as rx_next's out.tick, the same counters); *sid
 * is their stream. Returns 0 when the next entry is anything else (a gap, a
 * reset, an unmapped record, DATA, a sequence event, a record dropped as a
 * copy that brought a sequence event) or the call cannot batch
 * (RX_CFG_NO_TICK, RX_CFG_TAP_DATA): rx_next returns it. With RX_CFG_SEQ
 * each record goes through its group as rx_next's would (group, line and
 * TOE_RF_LATE set; copies dropped), one decoder call a record instead of
 * the CPU decoder's runs (the sequence key is read from the decoder's
 * state right after each record).
 * Mixed freely with rx_next, every entry comes once and in rx_next's order:
 *
 *   for (;;) {
 *       if ((n = rx_ticks(p, recs, cap, &sid)) > 0) { use recs[0..n); continue; }
 *       if (!rx_next(p, &out)) break;
 *       use out;
 *   }
 *
 * It saves rx_next's per-entry work (a call, a struct rx_out, a copy of the
 * tick record, ~80 instructions per record): bench_rx fastx_rx_next against fastx_in_order. */
uint32_t rx_ticks(struct rx_pipe *p, union toe_record *recs, uint32_t cap, uint32_t *sid);

/* ---- per-event entry points (see the top of this file) ----
 *
 * Like rx_frame, each of rx_event / rx_feed / rx_datagram first runs what
 * the caller left undrained (counted in rx.undrained), but without the
 * mirror TOE: an rx_poll's remaining timer events are not fetched (drain an
 * rx_poll with rx_next). Entries carry the time ts_ns of the last rx_event /
 * rx_datagram (rx_feed keeps it). */

/* The decoder half of rx_init: p->cfg = *cfg, counters and pending work
 * cleared, fs[0 .. RX_NSTREAMS(cfg)) initialised (TCP streams 0 ..
 * cfg->mtoe.max_conns-1, then the UDP streams with cfg->udp[i].framing).
 * Only cfg->mtoe.max_conns, cfg->nudp, cfg->udp[i].framing, cfg->flags and
 * cfg->sess are used: ports need not be set, p->net, p->mtoe and the listen table are
 * not touched. Returns RX_OK, RX_ERR_UDP (nudp above RX_MAX_UDP) or
 * RX_ERR_STREAMS (max_conns above MTOE_MAX_CONNS, fewer than
 * RX_NSTREAMS(cfg) fast_streams). */
int rx_init_decode(struct rx_pipe *p, const struct rx_cfg *cfg, const struct fast_prog *prog,
		   struct fast_stream *fs, uint32_t nfs);

/* One mirror TOE event received at ts_ns (ev->conn: the TCP stream). DATA:
 * ev->data[0..ev->len) is fed and must stay valid until rx_drain returns 0;
 * with ev->data == 0 the event is only counted and its bytes follow through
 * rx_feed. Returns 1, or 0 for a connection slot beyond cfg.mtoe.max_conns
 * (counted in rx.bad_stream, nothing done). */
int rx_event(struct rx_pipe *p, const struct mtoe_event *ev, uint64_t ts_ns);

/* Bytes data[0..len) of stream sid at stream offset `offset` (the next part
 * of a DATA event handed in piecewise; offset is only reported in
 * RX_CFG_TAP_DATA entries). Drain with rx_drain before the next piece;
 * data must stay valid until then. Returns 1, or 0 for sid not below
 * p->nstreams (counted in rx.bad_stream). */
int rx_feed(struct rx_pipe *p, uint32_t sid, const uint8_t *data, uint32_t len, uint64_t offset);

/* A datagram's payload data[0..len) for the UDP port cfg.udp[udp_index]
 * (stream cfg.mtoe.max_conns + udp_index), received at ts_ns: rx_frame's
 * handling of a listened datagram after the listen table. data must stay
 * valid until rx_drain returns 0. Returns 1, or 0 for udp_index not below
 * cfg.nudp (counted in rx.bad_stream). */
int rx_datagram(struct rx_pipe *p, uint32_t udp_index, const uint8_t *data, uint32_t len, uint64_t ts_ns);

/* The next entry of the work handed in (rx_event, rx_feed, rx_datagram, or a
 * frame's events): rx_next without fetching the mirror TOE's timer events. */
int rx_drain(struct rx_pipe *p, struct rx_out *out);

/* Name/value tables for tools (static names, declaration order; return the
 * table size). Not meant for synthesis. */
uint32_t rx_stats_table(const struct rx_stats *s, const char **names, uint64_t *values, uint32_t cap);
uint32_t rx_stream_stats_table(const struct rx_stream_stats *s, const char **names, uint64_t *values,
			       uint32_t cap);

#endif
