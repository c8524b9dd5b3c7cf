/* seq_track.h - per-channel sequence tracking and A/B line arbitration (synthesisable subset).
 *
 * Exchanges number their records per channel (SSE: BizIndex, contiguous per
 * TradeChannel/OrderChannel across templates 3201 and 5801). This block
 * turns "which bytes were lost" into "which records were lost", and lets two
 * or more lines carrying the same channels fill each other's holes.
 *
 * A group is a set of lines (streams: TCP connections, UDP ports) that carry
 * the same channels. A group of one line is plain sequence tracking. For
 * each decoded record with a key (channel, sequence), seq_check() says:
 *
 *   SEQ_DELIVER  the first copy of (channel, sequence): publish it. With
 *                *late set records with higher sequences of its channel
 *                went out before it (TOE_RF_LATE): it filled a hole, or
 *                came below the channel's first record within the join
 *                wait (below).
 *   SEQ_DUP      already delivered (or declared lost): drop it, counted.
 *   SEQ_STALE    from a line still sending the numbering that preceded a
 *                restart of its channel: drop it, counted.
 *
 * and queues events (struct seq_ev) to publish before the record:
 *
 *   SEQ_EV_GAP      channel `chan` misses [first, last]. With one line
 *                   over TCP, as soon as the sequence jumps. With several
 *                   lines, or one line over UDP, a jump opens a hole; a
 *                   hole still open after wait_ns (no line
 *                   delivered it) becomes the gap, from seq_check() on its
 *                   channel or from seq_poll(). The range between a record
 *                   below the channel's start and the lowest sequence
 *                   delivered is such a hole whatever the number of lines
 *                   (the join wait, below).
 *   SEQ_EV_RESTART  channel `chan` went back to 1 (a new logon, a new day):
 *                   `last` was its sequence before. Holes still open are
 *                   declared first. Not a loss: the channel starts again.
 *
 * Choices, and why:
 * - First copy wins, delivered at once: arbitration adds no latency to the
 *   line that is ahead, the usual case. The price is that a record filling
 *   a hole arrives after higher ones (flagged); holding records back would
 *   need a record buffer per channel and add the other line's delay to
 *   every hole.
 * - The first record of a channel is accepted as its start (a mid-stream
 *   join). Lower sequences arriving within wait_ns of it (the join wait:
 *   another line that started earlier, or the first datagrams of one line
 *   reordered, 15 before 1..14) are delivered too, flagged late and counted
 *   as late (the start went out before them), and the range between such a
 *   record and the lowest sequence delivered so far becomes a hole, a gap
 *   after wait_ns unless filled. Lower sequences after the join wait are
 *   counted as before_start (in the line's dups) and dropped: the channel
 *   starts where the client's records of it start, so no range it was
 *   given is missing there.
 * - One line applies the same join wait, not its rule of a gap at once: a
 *   record below the start came out of order on that very line, so its
 *   neighbours are likely still coming. Declaring [2, 14] lost on 15, 1
 *   would drop 2..14 as copies when they come microseconds later; holding
 *   the range as a hole delivers them all (15, then 1..14 late) at the
 *   price of a gap there named wait_ns later, once, at a channel's start.
 *   Dropping the lower records instead would lose data that arrived, with
 *   no event.
 * - A forward jump on one line over TCP is a gap at once: a TCP stream
 *   hands its bytes over in order, so what it skipped never comes, and the
 *   client wants the loss named without delay. Over UDP (the caller's
 *   `reorders`) datagrams may come out of order (1, 2, 4, 3: bonded links,
 *   a multipath network, a NIC's several queues), so the range is a hole
 *   as between lines: 3 fills it, delivered at once flagged late, and an
 *   unfilled hole is the gap wait_ns later. A gap at once there would
 *   declare 3 lost and then drop it as a copy when it came microseconds
 *   later: data that arrived, thrown away. The price is a loss on UDP
 *   named wait_ns later; records are never held back. It is the record's
 *   stream that says, not the line: every ungrouped feed, TCP or UDP, is
 *   line 0 of the default group.
 * - A restart is a 1 as a line's first record on a channel after a new
 *   session of that line (seq_line_session: a new logon, a new connection)
 *   while the channel had reached 2 or more; any other 1 is a copy or a reordered
 *   record. It gives the channel a new epoch. A line that has not restarted yet still sends the old
 *   numbering: its records are stale, not new, until it sends 1 itself.
 * - A line that holds bytes behind a missing TCP segment (the caller's
 *   `held_lines`: a mirrored line whose reassembly waits for a retransmission)
 *   may hold the very records a hole lacks, released when the segment
 *   comes or its byte hole times out. While such a line has not passed a
 *   hole's first sequence, the hole waits `held_ns` more (the caller's,
 *   bounded: twice the byte-hole timeout); a line already past it, or
 *   none holding, leaves the plain wait_ns. Declaring the hole lost at
 *   wait_ns would drop those records as copies when they come: data that
 *   arrived, thrown away, and a loss reported that did not happen. The
 *   price is a gap named later when both lines lost the same records at
 *   once; records are never held back.
 * - Per line and channel, the line's own next sequence is kept, so each
 *   line's losses are counted (missed) whether or not another line covered
 *   them, and wins and lost races are counted per line. With it go the
 *   line's last SEQ_LANE_WINDOW numbers (a bit each), so that a record the
 *   line jumped over and carries late (UDP reordering), even as a copy of
 *   one another line delivered, comes off its missed count, while a repeat
 *   of one it carried does not. Further down only a record no line carried
 *   before is known to be new to the line.
 *
 * MsgSeqNum (per connection, struct seq_msg): jumps are named ranges,
 * repeats are counted, a 1 after 2 or more is a restart (new logon). On a
 * stream that may reorder (UDP), a jump is a hole that a late message may
 * still fill, as for records; what nothing filled within the wait is the
 * jump (seq_msg_expire).
 *
 * Keys: struct seq_keys says, per template index of the compiled program,
 * which instructions hold the channel and the sequence; seq_keys_resolve()
 * fills it from FAST field ids (FIX tags) once, when the templates are
 * loaded, so the record path compares instruction numbers only.
 *
 * Memory: the caller owns everything; no heap, no libc, loops bounded by
 * the maxima below.
 */
#ifndef SEQ_TRACK_H
#define SEQ_TRACK_H

#include <stdint.h>
#include "fast/fast_prog.h"
#include "fast/fast_decode.h"

#define SEQ_MAX_LINES 4        /* lines in one group */
#define SEQ_MAX_CHANNELS 64    /* channels tracked per group */
#define SEQ_HASH_SIZE 128      /* channel lookup table (power of two, >= 2 * SEQ_MAX_CHANNELS) */
#define SEQ_MAX_HOLES 16       /* open holes per channel (several lines; one line: below its start, UDP jumps) */
#define SEQ_QUEUE 32           /* pending events (>= SEQ_MAX_HOLES + 2: one seq_check's worst case) */
#define SEQ_MAX_FIELDS 16      /* entries of a key configuration */
#define SEQ_DIRECT 256         /* channel numbers below this are found by direct index */
#define SEQ_DEFAULT_WAIT_NS 1000000ull /* 1 ms */

#define SEQ_NO_INSTR 0xffffu

/* SSE: TradeChannel (10115) / OrderChannel (10148) with BizIndex (10196). */
#define SEQ_SSE_TRADE_CHANNEL 10115u
#define SEQ_SSE_ORDER_CHANNEL 10148u
#define SEQ_SSE_BIZ_INDEX 10196u

enum seq_verdict { SEQ_DELIVER = 0, SEQ_DUP = 1, SEQ_STALE = 2 }; /* seq_check's fast path relies on 0 and 1 */
#define SEQ_LATE 0x100 /* seq_check_slow/_full: or'ed into SEQ_DELIVER when higher sequences went out first */
enum seq_ev_kind { SEQ_EV_NONE = 0, SEQ_EV_GAP = 1, SEQ_EV_RESTART = 2 };

/* One key rule: in template `tid` (0: every template having both fields),
 * the field with id chan_fid is the channel and seq_fid the sequence. */
struct seq_field_cfg {
	uint32_t tid;
	uint32_t chan_fid;
	uint32_t seq_fid;
};

/* Resolved rules: instruction indexes per template index, SEQ_NO_INSTR when
 * untracked; and where in a record's values they were last found (a hint:
 * template-level values keep their place unless a sequence before them
 * changes length). */
struct seq_keys {
	uint16_t chan[FAST_MAX_TEMPLATES];
	uint16_t seq[FAST_MAX_TEMPLATES];
	uint16_t vchan[FAST_MAX_TEMPLATES];
	uint16_t vseq[FAST_MAX_TEMPLATES];
};

struct seq_ev {
	uint8_t kind;  /* enum seq_ev_kind */
	uint8_t line;  /* the line whose record revealed it (a GAP from a timeout: 0, every line missed it) */
	uint8_t group; /* seq_group.id of the group */
	uint8_t pad;
	uint32_t chan;
	uint64_t first; /* GAP: first missing; RESTART: 1 */
	uint64_t last;  /* GAP: last missing (inclusive); RESTART: the sequence before the restart */
};

struct seq_queue {
	uint32_t head, tail; /* events [tail, head) pending, indexes mod SEQ_QUEUE */
	struct seq_ev ev[SEQ_QUEUE];
};

struct seq_hole {
	uint64_t first, last; /* missing [first, last] */
	uint64_t since;       /* when it opened (ns) */
	uint32_t held;        /* kept open past wait_ns for a holding line (counted in held_waits) */
	uint32_t pad;
};

/* Per line of a group. */
#define SEQ_LINE_STATS(X)                                                                 \
	X(won)         /* keyed records the line delivered (the first copy) */            \
	X(filled)      /* of the won, those delivered late (TOE_RF_LATE): filled a hole,  \
			  or came below the channel's start in the join wait */               \
	X(dups)        /* lost the race: another line (or an earlier copy) delivered it;  \
			  won + dups + stale = the keyed records the line carried */          \
	X(stale)       /* old numbering after a restart of the channel */                 \
	X(jumps)       /* times the line's own sequence jumped (it lost records) */       \
	X(missed)      /* sequence numbers the line never carried (covered or not); one it \
			  skipped and then carried (reordered), within SEQ_LANE_WINDOW of \
			  its highest or first of all lines, is not */

/* Per group (all channels); records delivered and copies dropped are the
 * sums of the lines' won and dups (seq_group_sum). */
#define SEQ_GROUP_STATS(X)                                                                \
	X(stale)        /* dropped: pre-restart numbering */                              \
	X(before_start) /* dropped (in the lines' dups): below the channel's first record, after the join wait */ \
	X(late)         /* delivered after higher sequences (TOE_RF_LATE; the lines' filled) */ \
	X(holes)        /* holes opened (several lines; one line: below a start, or a jump over UDP) */   \
	X(gaps)         /* gap events: ranges no line delivered */                        \
	X(missing)      /* sequence numbers in them */                                    \
	X(hole_overflow) /* holes declared early because a channel had SEQ_MAX_HOLES open */ \
	X(held_waits)   /* holes kept open past wait_ns for a line holding bytes (held_lines), once each */ \
	X(restarts)                                                                       \
	X(untracked)    /* records of channels beyond SEQ_MAX_CHANNELS: delivered unchecked */ \
	X(queue_full)   /* timeouts postponed because the event queue was full (retried) */

#define SEQ_STAT_FIELD(name) uint64_t name;
#define SEQ_STAT_COUNT(name) +1
#define SEQ_LINE_NSTATS (0 SEQ_LINE_STATS(SEQ_STAT_COUNT))
/* v[]: the same counters by index, so seq_check's fast path bumps won
 * (v[0]) or dups (v[2]) with one computed index instead of two adds */
struct seq_line_stats {
	union {
		struct { SEQ_LINE_STATS(SEQ_STAT_FIELD) };
		uint64_t v[SEQ_LINE_NSTATS];
	};
};
#define SEQ_LS_WON 0u  /* v[] index of won; dups is at 2 (checked in seq_track.c) */
#define SEQ_LS_DUPS 2u
struct seq_group_stats { SEQ_GROUP_STATS(SEQ_STAT_FIELD) };

/* A line on a channel. lim[] is the fast path's summary of the slow
 * path's state (fast_summary() in seq_track.c), indexed by the verdict
 * (SEQ_DELIVER: the record is the channel's next; SEQ_DUP: below it): the
 * record (the line's next) takes the fast path when below lim[verdict].
 * Both 0 while the line is not settled (line_ok); else lim[SEQ_DELIVER] is
 * UINT64_MAX and lim[SEQ_DUP] the first sequence from the line's next on
 * that lies in a hole (UINT64_MAX: none). */
struct seq_lane {
	uint64_t next;        /* the line's own next expected */
	uint64_t lim[2];
};

/* How far below its own next a line's records are remembered (seq_window): a record of the
 * line that far below, which it had jumped over, comes off its missed count. */
#define SEQ_LANE_WINDOW 64

/* A line's last numbers on a channel: bit i says it carried at - 1 - i. The
 * fast path moves lane.next up one carried record at a time and leaves this
 * alone (no cost there): every number from at to lane.next was carried,
 * which the slow path adds when it looks (seq_group_align). */
struct seq_window {
	uint64_t bits;
	uint64_t at;
};

struct seq_chan {
	/* hot: what the fast path of seq_check reads */
	uint64_t next;        /* one past the highest delivered (0: nothing yet) */
	uint64_t hole_due;    /* when the oldest hole expires (UINT64_MAX: none) */
	struct seq_lane lane[SEQ_MAX_LINES];
	union {               /* per-channel counters (toectl); count[] by verdict (SEQ_DELIVER, SEQ_DUP) */
		struct { uint64_t delivered, dups; };
		uint64_t count[2];
	};
	uint64_t low;         /* lowest sequence delivered since the start / restart */
	uint8_t nholes;
	uint8_t line_ok;      /* bit per line the fast path may take: seen on the channel's epoch and its
			       * session, and low <= lane.next <= next (settle() in seq_track.c) */
	uint8_t epoch;        /* restarts seen, mod 256 */
	uint8_t line_seen;    /* bit per line that carried the channel */
	uint32_t id;          /* channel number */
	/* cold */
	uint8_t line_epoch[SEQ_MAX_LINES];
	uint8_t line_sess[SEQ_MAX_LINES];  /* the line's session when it last carried the channel */
	uint64_t line_first[SEQ_MAX_LINES]; /* the line's first record on the channel (since a restart):
					       its missed counts from there */
	uint64_t start_ns;    /* when the first record (or the restart) came */
	uint64_t gaps, missing, late, restarts;
	struct seq_hole hole[SEQ_MAX_HOLES]; /* oldest first */
};

struct seq_group {
	uint32_t id;      /* the caller's number for it, copied into its events */
	uint32_t nlines;  /* 1: plain tracking (gaps at once over TCP, but for the join wait); more: arbitration */
	uint32_t nchan;
	uint32_t pad;
	uint64_t wait_ns;
	/* the caller's, at any time: lines holding bytes behind a missing
	 * segment (bit per line), and how much longer a hole waits for them */
	uint64_t held_ns;
	uint8_t held_lines;
	uint8_t direct[SEQ_DIRECT];  /* channel index of channel numbers below SEQ_DIRECT, SEQ_MAX_CHANNELS none */
	uint8_t sess[SEQ_MAX_LINES]; /* session generation of each line */
	struct seq_group_stats st;
	struct seq_line_stats line[SEQ_MAX_LINES];
	uint8_t hash[SEQ_HASH_SIZE]; /* channel index + 1, 0 empty (numbers from SEQ_DIRECT up) */
	/* chan[SEQ_MAX_CHANNELS] is a stand-in that never takes the fast path
	 * (line_ok 0): direct[] of an unknown channel points there, so the
	 * fast path needs no "known?" test */
	struct seq_chan chan[SEQ_MAX_CHANNELS + 1];
	/* each channel's lines' windows: kept out of seq_chan, whose size the fast path's indexing pays for */
	struct seq_window win[SEQ_MAX_CHANNELS + 1][SEQ_MAX_LINES];
};

/* Per connection: STEP MsgSeqNum. */
#define SEQ_MSG_HOLES 4 /* MsgSeqNum ranges a reordering stream waits for at once */

struct seq_msg_hole {
	uint64_t first, last; /* messages not seen yet */
	uint64_t since;       /* when the jump over them came (ns) */
	uint32_t old;         /* of the numbering before a restart: due at once, never filled */
	uint32_t pad;
};

struct seq_msg {
	uint64_t next;     /* next expected, 0 before the first message */
	uint64_t messages; /* messages checked (with a MsgSeqNum) */
	uint64_t jumps, missing, repeats, restarts; /* jumps and missing: reported ones */
	uint64_t late;     /* messages that filled a hole (came after higher numbers) */
	uint32_t nholes;   /* open holes, oldest first (reordering streams) */
	uint32_t pad;
	struct seq_msg_hole hole[SEQ_MSG_HOLES];
};

enum seq_msg_result {
	SEQ_MSG_OK = 0,
	SEQ_MSG_JUMP = 1,    /* [*first, *last] never came: report it */
	SEQ_MSG_REPEAT = 2,  /* seen before (counted only) */
	SEQ_MSG_RESTART = 3, /* a 1: a new logon */
	SEQ_MSG_LATE = 4,    /* filled (part of) a hole: a reordered message, nothing lost */
};

/* ---- keys ---- */

/* The SSE rules (both channels with BizIndex, every template) into f[0..2); returns 2. */
uint32_t seq_fields_sse(struct seq_field_cfg *f);

/* Resolve rules f[0..nf) against program p. Returns the number of templates
 * with a key (0: nothing would be tracked). */
uint32_t seq_keys_resolve(struct seq_keys *k, const struct fast_prog *p, const struct seq_field_cfg *f,
			  uint32_t nf);

/* The key of a decoded record: 1 with *chan, *seq set, 0 when its template
 * has no key or the record left a key field absent. */
int seq_key(struct seq_keys *k, const struct fast_rec *r, uint32_t *chan, uint64_t *seq);

/* ---- groups ---- */

void seq_group_init(struct seq_group *g, uint32_t id, uint32_t nlines, uint64_t wait_ns);
void seq_queue_init(struct seq_queue *q);

/* Record (chan, seq) carried by `line` at time now (ns); reorders is 1
 * when the stream that carried it may reorder (UDP datagrams; 0 for a
 * TCP byte stream): on a one-line group it makes a forward jump a hole,
 * not a gap at once. Returns enum seq_verdict; *late is set when a
 * delivered record came after higher sequences of its channel (it filled a hole, or came below the start in
 * the join wait). Events
 * it causes are appended to q (the caller drains q before the next call,
 * so it has room for SEQ_MAX_HOLES + 2). seq_check is the fast path (the
 * next record of a settled line: the channel's next, or a copy in no hole,
 * while no hole is due) and falls back on seq_check_slow for everything
 * else. seq_check_slow takes one more common case the short way (a settled
 * line repeating a record: a copy) and leaves the rest to seq_check_full,
 * the rules with no shortcut. Both return the verdict with SEQ_LATE or'ed
 * in for a late record (no pointer: the caller's late flag
 * stays in a register). All three give the same result and leave the same
 * state for every input, once the lines' windows are aligned
 * (seq_group_align; tests/unit/test_seq_fast.c compares seq_check with
 * seq_check_full). */
int seq_check_slow(struct seq_group *g, struct seq_queue *q, uint32_t line, uint32_t chan, uint64_t seq,
		   uint64_t now, uint32_t reorders);
int seq_check_full(struct seq_group *g, struct seq_queue *q, uint32_t line, uint32_t chan, uint64_t seq,
		   uint64_t now, uint32_t reorders);

static inline int seq_check(struct seq_group *g, struct seq_queue *q, uint32_t line, uint32_t chan,
			    uint64_t seq, uint64_t now, uint32_t reorders, int *late)
{
	int v;
	if (chan < SEQ_DIRECT && line < SEQ_MAX_LINES) {
		struct seq_chan *c = &g->chan[g->direct[chan]];
		struct seq_lane *ln = &c->lane[line];
		/* a settled line's next record (so low <= seq <= next: settle()
		 * in seq_track.c) while no hole is due: the channel's next (new),
		 * or a copy in no hole. Holes change only in the slow path, which
		 * recomputes lim; the fast path only moves ln->next up inside it. */
		/* new or copy: an index, not a branch (on A/B lines which of the
		 * two comes is a coin toss); one branch for the whole test.
		 * lim[0] is UINT64_MAX, so seq + 1 cannot wrap. */
		uint32_t is_dup = seq != c->next;
		if ((uint32_t)(seq == ln->next) & (uint32_t)(now < c->hole_due) & (uint32_t)(seq < ln->lim[is_dup])) {
			ln->next = seq + 1;
			c->next += 1 - is_dup;
			c->count[is_dup]++;
			g->line[line].v[is_dup * SEQ_LS_DUPS]++; /* won or dups */
			*late = 0;
			return (int)is_dup; /* SEQ_DELIVER 0, SEQ_DUP 1 */
		}
	}
	v = seq_check_slow(g, q, line, chan, seq, now, reorders);
	*late = v >> 8;
	return v & 0xff;
}

/* Brings every line's window of carried numbers (seq_window) up to its
 * next, as the slow path does before it looks: after it, seq_check and
 * seq_check_full leave byte for byte the same state (tests). */
void seq_group_align(struct seq_group *g);

/* Totals over the lines: keyed records checked, delivered, copies dropped. */
void seq_group_sum(const struct seq_group *g, uint64_t *records, uint64_t *delivered, uint64_t *dups);

/* Line `line` started a new session (a logon, a new connection): its next
 * 1 on a channel is a restart of that channel's numbering. */
void seq_line_session(struct seq_group *g, uint32_t line);

/* Holes whose wait ran out by `now` become gap events, oldest first, as
 * long as q has room. Returns 1 when holes are left that have expired but
 * did not fit (call again after draining q), else 0. */
int seq_poll(struct seq_group *g, struct seq_queue *q, uint64_t now);

/* Events pending in q. */
static inline uint32_t seq_queue_len(const struct seq_queue *q)
{
	return q->head - q->tail;
}

/* The next pending event: 1 with *ev filled, 0 when none. */
int seq_queue_pop(struct seq_queue *q, struct seq_ev *ev);

/* ---- MsgSeqNum ---- */

void seq_msg_init(struct seq_msg *m);

/* Message number s (0: the message had none, not checked), received at
 * now. JUMP: [*first, *last] never came; RESTART: *last is the number
 * before the 1.
 * reorders 0 (TCP): a jump is a JUMP at once, anything below next a REPEAT.
 * reorders 1 (UDP): a jump opens a hole (OK); a message inside a hole
 * fills it (LATE); a JUMP comes only when a hole must make room (the
 * oldest, with SEQ_MSG_HOLES open, or the lower part of one split while
 * they are all taken): the rest is reported by seq_msg_expire. A restart
 * leaves the old numbering's holes due at once and closed to fills. */
int seq_msg_check(struct seq_msg *m, uint64_t s, uint64_t now, uint32_t reorders, uint64_t *first,
		  uint64_t *last);

/* The oldest hole, when it is of the old numbering or nothing filled it
 * for wait_ns up to now: removed, counted as a jump, 1 with [*first,
 * *last]; 0 when none is due. Call until 0 (now UINT64_MAX: every hole). */
int seq_msg_expire(struct seq_msg *m, uint64_t now, uint64_t wait_ns, uint64_t *first, uint64_t *last);

/* Counter tables for tools (static names, declaration order; return the table size). */
uint32_t seq_group_stats_table(const struct seq_group_stats *s, const char **names, uint64_t *values,
			       uint32_t cap);
uint32_t seq_line_stats_table(const struct seq_line_stats *s, const char **names, uint64_t *values,
			      uint32_t cap);

#endif
