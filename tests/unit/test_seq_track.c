/* test_seq_track.c - per-channel sequence tracking and A/B arbitration (kernels/seq), block level.
 *
 * The expected results are computed from the test's own model of what each
 * line carried (sets of (channel, sequence)), never from the block:
 *   - one line: jumps are gaps at once naming the range, repeats are
 *     dropped, a channel back to 1 is a restart (not a gap, not a repeat);
 *   - one line over UDP: a jump is a hole that a reordered datagram fills
 *     (delivered late) or that becomes the gap after the wait;
 *   - a channel's first records reordered (15, 1..14; 15, 14..1; 15, 3, 1,
 *     2), on one line and across two: within the join wait every one is
 *     delivered, those below the first flagged late and counted, the range
 *     none carried a gap after the wait; after it, before_start drops;
 *   - MsgSeqNum: jumps, repeats, restart after a new logon; over UDP holes
 *     that reordered messages fill or the wait reports, as for records;
 *   - two lines with their own losses, copies and reorders: every record
 *     delivered exactly once when at least one line carried it, a gap
 *     exactly for each run both lines lost, naming it, the late flag
 *     exactly when a higher sequence of the channel went out first;
 *   - one line dying mid-stream: nothing lost, no gap;
 *   - a line's missed count over UDP: a record it skipped and carried late
 *     after the other line delivered it comes off (within SEQ_LANE_WINDOW
 *     of its highest), a repeat of one it carried does not;
 *   - restarts across two lines: the lagging line's old numbering is stale;
 *   - more holes than a channel holds: the oldest is declared early, counted;
 *   - keys resolved from the SSE template file (3201/5801 tracked, the
 *     2.02 set without BizIndex not).
 */
#include <stdlib.h>

#include "test.h"
#include "seq/seq_track.h"
#include "fast/host/fast_compile.h"

#define US 1000ull
#define MS 1000000ull

struct evs {
	struct seq_ev ev[4096];
	uint32_t n;
};

static void drain(struct seq_queue *q, struct evs *e)
{
	struct seq_ev x;
	while (seq_queue_pop(q, &x)) {
		CHECK(e->n < 4096);
		if (e->n < 4096)
			e->ev[e->n++] = x;
	}
}

/* One record, its events into e; reorders 1: it came over UDP. */
static int check_on(struct seq_group *g, struct seq_queue *q, struct evs *e, uint32_t line, uint32_t ch,
		    uint64_t s, uint64_t now, uint32_t reorders, int *late)
{
	int l = 0;
	int v = seq_check(g, q, line, ch, s, now, reorders, &l);
	drain(q, e);
	if (late)
		*late = l;
	return v;
}

/* One record over TCP. */
static int check(struct seq_group *g, struct seq_queue *q, struct evs *e, uint32_t line, uint32_t ch,
		 uint64_t s, uint64_t now, int *late)
{
	return check_on(g, q, e, line, ch, s, now, 0, late);
}

/* One record over UDP. */
static int check_udp(struct seq_group *g, struct seq_queue *q, struct evs *e, uint32_t line, uint32_t ch,
		     uint64_t s, uint64_t now, int *late)
{
	return check_on(g, q, e, line, ch, s, now, 1, late);
}

/* No event (e empty) until `due`; at it, one gap of channel ch, [first, last]. */
static void gap_due(struct seq_group *g, struct seq_queue *q, struct evs *e, uint64_t due, uint32_t ch,
		    uint64_t first, uint64_t last)
{
	CHECK_EQ(e->n, 0);
	CHECK_EQ(seq_poll(g, q, due - 1), 0);
	drain(q, e);
	CHECK_EQ(e->n, 0);
	seq_poll(g, q, due);
	drain(q, e);
	CHECK_EQ(e->n, 1);
	CHECK_EQ(e->ev[0].kind, SEQ_EV_GAP);
	CHECK_EQ(e->ev[0].chan, ch);
	CHECK_EQ(e->ev[0].first, first);
	CHECK_EQ(e->ev[0].last, last);
}

/* ---- one line ------------------------------------------------------------ */

static void test_one_line(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	int late;
	seq_group_init(&g, 3, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	/* channel 4 from 100 (a join: no gap before its first record) */
	CHECK_EQ(check(&g, &q, &e, 0, 4, 100, 1, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 4, 101, 2, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 0);
	/* BizIndex jump 101 -> 105: gap 102..104 at once, before the record is used */
	CHECK_EQ(check(&g, &q, &e, 0, 4, 105, 3, &late), SEQ_DELIVER);
	CHECK_EQ(late, 0);
	CHECK_EQ(e.n, 1);
	CHECK_EQ(e.ev[0].kind, SEQ_EV_GAP);
	CHECK_EQ(e.ev[0].chan, 4);
	CHECK_EQ(e.ev[0].first, 102);
	CHECK_EQ(e.ev[0].last, 104);
	CHECK_EQ(e.ev[0].group, 3);
	/* a late 103 on the only line: already declared lost, dropped */
	CHECK_EQ(check(&g, &q, &e, 0, 4, 103, 4, NULL), SEQ_DUP);
	/* repeats */
	CHECK_EQ(check(&g, &q, &e, 0, 4, 105, 5, NULL), SEQ_DUP);
	CHECK_EQ(check(&g, &q, &e, 0, 4, 100, 6, NULL), SEQ_DUP);
	/* another channel is independent: its 1 is its start */
	CHECK_EQ(check(&g, &q, &e, 0, 7, 1, 7, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 7, 2, 8, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 4, 106, 9, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 1);
	/* a 1 without a new session, after the join wait: not a restart, and
	 * below the channel's start (before_start, a copy). Within the wait it
	 * would be a reordered first record (test_one_line_reordered_start). */
	CHECK_EQ(check(&g, &q, &e, 0, 4, 1, 2 * MS + 10, NULL), SEQ_DUP);
	/* restart: channel 4 back to 1 after a new logon: a restart event, no gap, delivered */
	seq_line_session(&g, 0);
	CHECK_EQ(check(&g, &q, &e, 0, 4, 1, 2 * MS + 10, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 2);
	CHECK_EQ(e.ev[1].kind, SEQ_EV_RESTART);
	CHECK_EQ(e.ev[1].chan, 4);
	CHECK_EQ(e.ev[1].last, 106);
	CHECK_EQ(check(&g, &q, &e, 0, 4, 2, 2 * MS + 11, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 4, 3, 2 * MS + 12, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 4, 2, 2 * MS + 13, NULL), SEQ_DUP);
	CHECK_EQ(e.n, 2);
	/* a 1 right after 1 is a repeat, not a restart */
	CHECK_EQ(check(&g, &q, &e, 0, 9, 1, 2 * MS + 14, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 9, 1, 2 * MS + 15, NULL), SEQ_DUP);
	CHECK_EQ(e.n, 2);
	uint64_t rec, del, dups;
	seq_group_sum(&g, &rec, &del, &dups);
	CHECK_EQ(rec, 16);
	CHECK_EQ(del, 10);
	CHECK_EQ(dups, 6);
	CHECK_EQ(g.st.gaps, 1);
	CHECK_EQ(g.st.missing, 3);
	CHECK_EQ(g.st.restarts, 1);
	CHECK_EQ(g.st.before_start, 1);
	CHECK_EQ(g.st.late, 0);
	CHECK_EQ(g.line[0].jumps, 1);
	CHECK_EQ(g.line[0].missed, 2); /* 102 and 104: the line carried 103, late */
	CHECK_EQ(g.nchan, 3);
	CHECK_EQ(g.chan[0].dups + g.chan[1].dups + g.chan[2].dups, 6);
}

/* Feed seqs[0..n) of channel 5 on line 0 of a one-line group, 1 us apart
 * from t0; late[i] gets each record's late flag, -1 when not delivered. */
static void feed_one_line(struct seq_group *g, struct seq_queue *q, struct evs *e, const uint64_t *seqs,
			  uint32_t n, uint64_t t0, int *late)
{
	uint32_t i;
	for (i = 0; i < n; i++) {
		int l = 0;
		int v = check(g, q, e, 0, 5, seqs[i], t0 + i * US, &l);
		late[i] = v == SEQ_DELIVER ? l : -1;
	}
}

/* One line whose first datagrams came reordered: within the join wait the
 * records below the first one are delivered, flagged late and counted, and
 * the range between is a hole (filled by the rest, else a gap after the
 * wait), never a gap at once that would make the rest copies. */
static void test_one_line_reordered_start(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	uint64_t seqs[16];
	int late[16];
	uint32_t i;
	uint64_t rec, del, dups;

	/* 15, 1, 2, ..., 14: all 15 delivered, 1..14 late, no gap */
	seq_group_init(&g, 0, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	seqs[0] = 15;
	for (i = 1; i < 15; i++)
		seqs[i] = i;
	feed_one_line(&g, &q, &e, seqs, 15, 1 * MS, late);
	CHECK_EQ(late[0], 0);
	for (i = 1; i < 15; i++)
		CHECK_EQ(late[i], 1);
	CHECK_EQ(e.n, 0);
	CHECK_EQ(g.chan[0].nholes, 0); /* 2..14 filled the hole 1 opened */
	seq_poll(&g, &q, 10 * MS);
	drain(&q, &e);
	CHECK_EQ(e.n, 0);
	seq_group_sum(&g, &rec, &del, &dups);
	CHECK_EQ(del, 15);
	CHECK_EQ(dups, 0);
	CHECK_EQ(g.st.late, 14);
	CHECK_EQ(g.line[0].filled, 14);
	CHECK_EQ(g.chan[0].late, 14);
	CHECK_EQ(g.st.holes, 1);
	CHECK_EQ(g.st.gaps, 0);
	CHECK_EQ(g.st.before_start, 0);
	/* the line goes on the usual way: 16 in order, not late; a repeat of 3 a copy */
	CHECK_EQ(check(&g, &q, &e, 0, 5, 16, 10 * MS, &late[0]), SEQ_DELIVER);
	CHECK_EQ(late[0], 0);
	CHECK_EQ(check(&g, &q, &e, 0, 5, 3, 10 * MS + 1, NULL), SEQ_DUP);
	/* and a forward jump on one line over TCP is still a gap at once (over UDP: test_one_line_udp) */
	CHECK_EQ(check(&g, &q, &e, 0, 5, 20, 10 * MS + 2, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 1);
	CHECK_EQ(e.ev[0].first, 17);
	CHECK_EQ(e.ev[0].last, 19);

	/* 15, 14, ..., 1: each one below the last, no range between: all late, no hole */
	seq_group_init(&g, 0, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	for (i = 0; i < 15; i++)
		seqs[i] = 15 - i;
	feed_one_line(&g, &q, &e, seqs, 15, 1 * MS, late);
	CHECK_EQ(late[0], 0);
	for (i = 1; i < 15; i++)
		CHECK_EQ(late[i], 1);
	seq_poll(&g, &q, 10 * MS);
	drain(&q, &e);
	CHECK_EQ(e.n, 0);
	CHECK_EQ(g.st.late, 14);
	CHECK_EQ(g.st.holes, 0);
	CHECK_EQ(g.line[0].won, 15);

	/* 15, 3, 1, 2: all delivered (3, 1, 2 late); 4..14 never came: one gap,
	 * named once the wait of the hole 3 opened ran out, not before */
	seq_group_init(&g, 0, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	seqs[0] = 15;
	seqs[1] = 3;
	seqs[2] = 1;
	seqs[3] = 2;
	feed_one_line(&g, &q, &e, seqs, 4, 1 * MS, late);
	CHECK_EQ(late[0], 0);
	CHECK_EQ(late[1], 1);
	CHECK_EQ(late[2], 1);
	CHECK_EQ(late[3], 1);
	CHECK_EQ(e.n, 0);
	gap_due(&g, &q, &e, 1 * MS + US + SEQ_DEFAULT_WAIT_NS, 5, 4, 14);
	CHECK_EQ(g.st.gaps, 1);
	CHECK_EQ(g.st.missing, 11);
	CHECK_EQ(g.st.late, 3);
	CHECK_EQ(g.line[0].won, 4);
	/* declared lost: a 9 now is a copy, dropped, no second gap */
	CHECK_EQ(check(&g, &q, &e, 0, 5, 9, 5 * MS, NULL), SEQ_DUP);
	CHECK_EQ(e.n, 1);

	/* the hole outlives the join wait: 10 near its end opens 11..14, and 12
	 * after the join wait but within the hole's own wait still fills it;
	 * a lower record after the join wait is before_start, dropped, counted */
	seq_group_init(&g, 0, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	CHECK_EQ(check(&g, &q, &e, 0, 5, 15, 1 * MS, &late[0]), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 5, 10, 1 * MS + 900 * US, &late[0]), SEQ_DELIVER);
	CHECK_EQ(late[0], 1);
	CHECK_EQ(check(&g, &q, &e, 0, 5, 12, 2 * MS + 500 * US, &late[0]), SEQ_DELIVER);
	CHECK_EQ(late[0], 1);
	CHECK_EQ(check(&g, &q, &e, 0, 5, 9, 2 * MS + 600 * US, NULL), SEQ_DUP);
	CHECK_EQ(g.st.before_start, 1);
	CHECK_EQ(g.line[0].dups, 1);
	seq_poll(&g, &q, 3 * MS);
	drain(&q, &e);
	CHECK_EQ(e.n, 2); /* 11, 13..14: what 10 opened and 12 did not fill */
	CHECK_EQ(e.ev[0].first, 11);
	CHECK_EQ(e.ev[0].last, 11);
	CHECK_EQ(e.ev[1].first, 13);
	CHECK_EQ(e.ev[1].last, 14);

	/* no join wait (wait 0): a lower record is before_start at once, as it was */
	seq_group_init(&g, 0, 1, 0);
	seq_queue_init(&q);
	e.n = 0;
	CHECK_EQ(check(&g, &q, &e, 0, 5, 15, 1 * MS, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 5, 1, 1 * MS, NULL), SEQ_DUP);
	CHECK_EQ(g.st.before_start, 1);
	CHECK_EQ(e.n, 0);
}

/* One line over UDP: datagrams may come reordered, so a forward jump
 * opens a hole, not a gap at once. The record that fills it is delivered
 * (late), and a hole nobody fills is the gap after the wait, once. Over
 * TCP, in the same group, a jump stays a gap at once. */
static void test_one_line_udp(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	int late = -1;
	uint64_t rec, del, dups;
	const uint64_t t = 1 * MS;

	seq_group_init(&g, 0, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	/* 1, 2, 4, 5, 3: every record delivered once, 3 late, no gap ever */
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 1, t, NULL), SEQ_DELIVER);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 2, t + 1 * US, NULL), SEQ_DELIVER);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 4, t + 2 * US, &late), SEQ_DELIVER);
	CHECK_EQ(late, 0);
	CHECK_EQ(e.n, 0); /* a hole, not a gap */
	CHECK_EQ(g.st.holes, 1);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 5, t + 3 * US, &late), SEQ_DELIVER);
	CHECK_EQ(late, 0);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 3, t + 4 * US, &late), SEQ_DELIVER);
	CHECK_EQ(late, 1);
	CHECK_EQ(g.chan[0].nholes, 0);
	/* a copy of 3 now is a copy */
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 3, t + 5 * US, NULL), SEQ_DUP);
	seq_poll(&g, &q, t + 10 * MS);
	drain(&q, &e);
	CHECK_EQ(e.n, 0);
	CHECK_EQ(g.st.gaps, 0);
	CHECK_EQ(g.st.late, 1);
	CHECK_EQ(g.line[0].filled, 1);
	CHECK_EQ(g.line[0].jumps, 1);  /* 2 -> 4 */
	CHECK_EQ(g.line[0].missed, 0); /* but 3 came: the line missed nothing */

	/* 6, 9 and nothing more: no event until the wait ran out, then one gap
	 * [7, 8]; a 7 after that was declared lost: a copy */
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 6, 20 * MS, NULL), SEQ_DELIVER);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 9, 20 * MS + US, NULL), SEQ_DELIVER);
	gap_due(&g, &q, &e, 20 * MS + US + SEQ_DEFAULT_WAIT_NS, 5, 7, 8);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 7, 22 * MS, NULL), SEQ_DUP);
	CHECK_EQ(e.n, 1);
	CHECK_EQ(g.line[0].missed, 1); /* 8: 7 came, if only after the two were reported lost */

	/* a hole that ran out is declared by the line's next record too, before it */
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 12, 30 * MS, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 1);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 5, 13, 30 * MS + 2 * SEQ_DEFAULT_WAIT_NS, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 2);
	CHECK_EQ(e.ev[1].first, 10);
	CHECK_EQ(e.ev[1].last, 11);

	/* the same group over TCP (another channel): a jump is a gap at once */
	CHECK_EQ(check(&g, &q, &e, 0, 8, 1, 40 * MS, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 8, 4, 40 * MS + US, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 3);
	CHECK_EQ(e.ev[2].chan, 8);
	CHECK_EQ(e.ev[2].first, 2);
	CHECK_EQ(e.ev[2].last, 3);
	CHECK_EQ(check(&g, &q, &e, 0, 8, 2, 40 * MS + 2 * US, NULL), SEQ_DUP);

	seq_group_sum(&g, &rec, &del, &dups);
	CHECK_EQ(del, 11);
	CHECK_EQ(dups, 3);
	CHECK_EQ(g.st.gaps, 3);
	CHECK_EQ(g.st.missing, 6);
}

/* More channels than the table: delivered unchecked, counted. */
static void test_channel_table(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	uint32_t c;
	seq_group_init(&g, 0, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	for (c = 0; c < SEQ_MAX_CHANNELS + 5; c++)
		CHECK_EQ(check(&g, &q, &e, 0, 1000 + c * 7, 1, c, NULL), SEQ_DELIVER);
	CHECK_EQ(g.nchan, SEQ_MAX_CHANNELS);
	CHECK_EQ(g.st.untracked, 5);
	/* the tracked ones still catch repeats, whatever the hash order */
	for (c = 0; c < SEQ_MAX_CHANNELS; c++)
		CHECK_EQ(check(&g, &q, &e, 0, 1000 + c * 7, 1, 100 + c, NULL), SEQ_DUP);
	CHECK_EQ(e.n, 0);
}

/* ---- MsgSeqNum ----------------------------------------------------------- */

static void test_msg_seq(void)
{
	struct seq_msg m;
	uint64_t a = 0, b = 0;
	seq_msg_init(&m);
	CHECK_EQ(seq_msg_check(&m, 0, 0, 0, &a, &b), SEQ_MSG_OK); /* no MsgSeqNum: not counted */
	CHECK_EQ(m.messages, 0);
	CHECK_EQ(seq_msg_check(&m, 1, 0, 0, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 1, 0, 0, &a, &b), SEQ_MSG_REPEAT); /* a repeated logon message, not a restart */
	seq_msg_init(&m);
	CHECK_EQ(seq_msg_check(&m, 7, 0, 0, &a, &b), SEQ_MSG_OK); /* first seen: a join */
	CHECK_EQ(seq_msg_check(&m, 8, 0, 0, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 12, 0, 0, &a, &b), SEQ_MSG_JUMP);
	CHECK_EQ(a, 9);
	CHECK_EQ(b, 11);
	CHECK_EQ(seq_msg_check(&m, 12, 0, 0, &a, &b), SEQ_MSG_REPEAT);
	CHECK_EQ(seq_msg_check(&m, 10, 0, 0, &a, &b), SEQ_MSG_REPEAT);
	CHECK_EQ(seq_msg_check(&m, 13, 0, 0, &a, &b), SEQ_MSG_OK);
	/* a new logon: back to 1 */
	CHECK_EQ(seq_msg_check(&m, 1, 0, 0, &a, &b), SEQ_MSG_RESTART);
	CHECK_EQ(b, 13);
	CHECK_EQ(seq_msg_check(&m, 2, 0, 0, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 4, 0, 0, &a, &b), SEQ_MSG_JUMP);
	CHECK_EQ(a, 3);
	CHECK_EQ(b, 3);
	CHECK_EQ(m.messages, 9);
	CHECK_EQ(m.jumps, 2);
	CHECK_EQ(m.missing, 4);
	CHECK_EQ(m.repeats, 2);
	CHECK_EQ(m.restarts, 1);
}

/* MsgSeqNum over UDP (reorders 1): a jump is a hole a reordered message
 * fills (LATE, no report), or that seq_msg_expire reports once the wait ran
 * out; splits keep both parts; a full hole list gives up its oldest (or
 * the lower part of a split) at once; after a restart the old numbering's
 * holes are due at once and not filled by the new numbering. */
static void test_msg_seq_udp(void)
{
	struct seq_msg m;
	uint64_t a = 0, b = 0, s;
	const uint64_t W = SEQ_DEFAULT_WAIT_NS;
	seq_msg_init(&m);
	for (s = 1; s <= 2; s++)
		CHECK_EQ(seq_msg_check(&m, s, 10, 1, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 4, 20, 1, &a, &b), SEQ_MSG_OK); /* a hole, not a jump */
	CHECK_EQ(m.nholes, 1);
	CHECK_EQ(seq_msg_check(&m, 3, 30, 1, &a, &b), SEQ_MSG_LATE);
	CHECK_EQ(m.nholes, 0);
	CHECK_EQ(seq_msg_check(&m, 3, 31, 1, &a, &b), SEQ_MSG_REPEAT); /* filled already */
	CHECK_EQ(seq_msg_check(&m, 5, 40, 1, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_expire(&m, UINT64_MAX, W, &a, &b), 0);
	/* 6 never comes: reported exactly at the end of the wait */
	CHECK_EQ(seq_msg_check(&m, 7, 100, 1, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_expire(&m, 100 + W - 1, W, &a, &b), 0);
	CHECK_EQ(seq_msg_expire(&m, 100 + W, W, &a, &b), 1);
	CHECK_EQ(a, 6);
	CHECK_EQ(b, 6);
	CHECK_EQ(seq_msg_check(&m, 6, 100 + W + 1, 1, &a, &b), SEQ_MSG_REPEAT); /* too late: a repeat */
	/* a split: 12 opens 8..11; 10 leaves 8..9 and 11; 8 leaves 9 */
	CHECK_EQ(seq_msg_check(&m, 12, 200, 1, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 10, 201, 1, &a, &b), SEQ_MSG_LATE);
	CHECK_EQ(m.nholes, 2);
	CHECK_EQ(seq_msg_check(&m, 8, 202, 1, &a, &b), SEQ_MSG_LATE);
	CHECK_EQ(seq_msg_expire(&m, UINT64_MAX, W, &a, &b), 1);
	CHECK_EQ(a, 9);
	CHECK_EQ(b, 9);
	CHECK_EQ(seq_msg_expire(&m, UINT64_MAX, W, &a, &b), 1);
	CHECK_EQ(a, 11);
	CHECK_EQ(b, 11);
	CHECK_EQ(seq_msg_expire(&m, UINT64_MAX, W, &a, &b), 0);
	CHECK_EQ(m.late, 3);
	CHECK_EQ(m.jumps, 3);
	CHECK_EQ(m.missing, 3);
	/* SEQ_MSG_HOLES holes (13, 15, 17, 19 missing), then one more: the oldest goes at once */
	for (s = 14; s < 14 + 2 * SEQ_MSG_HOLES; s += 2)
		CHECK_EQ(seq_msg_check(&m, s, 300, 1, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(m.nholes, SEQ_MSG_HOLES);
	CHECK_EQ(seq_msg_check(&m, s, 301, 1, &a, &b), SEQ_MSG_JUMP);
	CHECK_EQ(a, 13);
	CHECK_EQ(b, 13);
	CHECK_EQ(m.nholes, SEQ_MSG_HOLES);
	/* a split with every slot taken */
	for (s = 15; s <= 19; s += 2)
		CHECK_EQ(seq_msg_check(&m, s, 302, 1, &a, &b), SEQ_MSG_LATE);
	CHECK_EQ(m.nholes, 1);                                         /* 21 */
	CHECK_EQ(seq_msg_check(&m, 24, 303, 1, &a, &b), SEQ_MSG_OK);   /* 23 */
	CHECK_EQ(seq_msg_check(&m, 26, 303, 1, &a, &b), SEQ_MSG_OK);   /* 25 */
	CHECK_EQ(seq_msg_check(&m, 31, 303, 1, &a, &b), SEQ_MSG_OK);   /* 27..30 */
	CHECK_EQ(seq_msg_check(&m, 30, 304, 1, &a, &b), SEQ_MSG_LATE); /* 27..29 */
	CHECK_EQ(seq_msg_check(&m, 33, 305, 1, &a, &b), SEQ_MSG_JUMP); /* 32 makes a 5th: 21 goes */
	CHECK_EQ(a, 21);
	CHECK_EQ(b, 21);
	CHECK_EQ(seq_msg_check(&m, 28, 306, 1, &a, &b), SEQ_MSG_JUMP); /* splits 27..29, no room: 27 goes */
	CHECK_EQ(a, 27);
	CHECK_EQ(b, 27);
	CHECK_EQ(m.nholes, SEQ_MSG_HOLES); /* 23, 25, 29, 32 */
	/* a new logon: the old holes are due at once, and the new numbering does not fill them */
	CHECK_EQ(seq_msg_check(&m, 1, 400, 1, &a, &b), SEQ_MSG_RESTART);
	CHECK_EQ(b, 33);
	CHECK_EQ(seq_msg_check(&m, 2, 401, 1, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 30, 402, 1, &a, &b), SEQ_MSG_JUMP); /* the new hole 3..29 evicts 23 */
	CHECK_EQ(a, 23);
	CHECK_EQ(b, 23);
	CHECK_EQ(seq_msg_check(&m, 29, 404, 1, &a, &b), SEQ_MSG_LATE); /* the new hole (3..28 left), not the old 29 */
	{
		static const uint64_t old[3] = {25, 29, 32};
		for (int i = 0; i < 3; i++) {
			CHECK_EQ(seq_msg_expire(&m, 405, W, &a, &b), 1); /* not waited for */
			CHECK_EQ(a, old[i]);
			CHECK_EQ(b, old[i]);
		}
	}
	CHECK_EQ(seq_msg_expire(&m, 405, W, &a, &b), 0); /* 3..28 is new: it waits */
	CHECK_EQ(seq_msg_expire(&m, 402 + W, W, &a, &b), 1);
	CHECK_EQ(a, 3);
	CHECK_EQ(b, 28);
	CHECK_EQ(m.late, 9); /* 28 too: it came, though its split gave up 27 */
	CHECK_EQ(m.jumps, 11);
	CHECK_EQ(m.nholes, 0);
}

/* Restarts beyond the first: a second logon, a restart whose numbering jumps at
 * once, a channel only at 1 (no restart: a repeat), a restart of one channel
 * leaving another alone; MsgSeqNum likewise. A 1 restarts a channel (or the
 * MsgSeqNum) whose highest number was 2 or more (seq_track.c: next > 2). */
static void test_restart_edges(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	struct seq_msg m;
	uint64_t a = 0, b = 0;
	seq_group_init(&g, 0, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	for (uint64_t s = 1; s <= 9; s++) {
		CHECK_EQ(check(&g, &q, &e, 0, 2, s, s, NULL), SEQ_DELIVER);
		CHECK_EQ(check(&g, &q, &e, 0, 5, 100 + s, s, NULL), SEQ_DELIVER);
	}
	CHECK_EQ(check(&g, &q, &e, 0, 7, 1, 10, NULL), SEQ_DELIVER);
	/* logon 1: channel 2 back to 1, then a jump in the new numbering (1 -> 4: 2..3 lost) */
	seq_line_session(&g, 0);
	CHECK_EQ(check(&g, &q, &e, 0, 2, 1, 20, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 2, 4, 21, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 2);
	CHECK_EQ(e.ev[0].kind, SEQ_EV_RESTART);
	CHECK_EQ(e.ev[0].chan, 2);
	CHECK_EQ(e.ev[0].last, 9);
	CHECK_EQ(e.ev[1].kind, SEQ_EV_GAP);
	CHECK_EQ(e.ev[1].chan, 2);
	CHECK_EQ(e.ev[1].first, 2);
	CHECK_EQ(e.ev[1].last, 3);
	CHECK_EQ(check(&g, &q, &e, 0, 2, 3, 22, NULL), SEQ_DUP); /* declared lost: dropped */
	/* channel 5 goes on unrestarted in the same session: 110 is its next */
	CHECK_EQ(check(&g, &q, &e, 0, 5, 110, 23, NULL), SEQ_DELIVER);
	/* channel 7 only had 1: its 1 after the logon is a repeat, not a restart */
	CHECK_EQ(check(&g, &q, &e, 0, 7, 1, 24, NULL), SEQ_DUP);
	CHECK_EQ(check(&g, &q, &e, 0, 7, 2, 25, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 2);
	/* logon 2: channel 2 was at 4: a second restart */
	seq_line_session(&g, 0);
	CHECK_EQ(check(&g, &q, &e, 0, 2, 1, 30, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 3);
	CHECK_EQ(e.ev[2].kind, SEQ_EV_RESTART);
	CHECK_EQ(e.ev[2].chan, 2);
	CHECK_EQ(e.ev[2].last, 4);
	CHECK_EQ(check(&g, &q, &e, 0, 2, 2, 31, NULL), SEQ_DELIVER);
	/* a 1 again in the same session: a repeat */
	CHECK_EQ(check(&g, &q, &e, 0, 2, 1, 32, NULL), SEQ_DUP);
	CHECK_EQ(e.n, 3);
	CHECK_EQ(g.st.restarts, 2);
	CHECK_EQ(g.st.gaps, 1);
	CHECK_EQ(g.st.missing, 2);

	/* MsgSeqNum: two logons, the second with an immediate jump; 1 right after 1 is a repeat */
	seq_msg_init(&m);
	for (uint64_t s = 1; s <= 5; s++)
		CHECK_EQ(seq_msg_check(&m, s, 0, 0, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 1, 0, 0, &a, &b), SEQ_MSG_RESTART);
	CHECK_EQ(b, 5);
	CHECK_EQ(seq_msg_check(&m, 1, 0, 0, &a, &b), SEQ_MSG_REPEAT);
	CHECK_EQ(seq_msg_check(&m, 2, 0, 0, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 3, 0, 0, &a, &b), SEQ_MSG_OK);
	CHECK_EQ(seq_msg_check(&m, 1, 0, 0, &a, &b), SEQ_MSG_RESTART);
	CHECK_EQ(b, 3);
	CHECK_EQ(seq_msg_check(&m, 6, 0, 0, &a, &b), SEQ_MSG_JUMP);
	CHECK_EQ(a, 2);
	CHECK_EQ(b, 5);
	CHECK_EQ(seq_msg_check(&m, 6, 0, 0, &a, &b), SEQ_MSG_REPEAT);
	CHECK_EQ(m.restarts, 2);
	CHECK_EQ(m.jumps, 1);
	CHECK_EQ(m.missing, 4);
	CHECK_EQ(m.repeats, 2);
}

/* ---- two lines ----------------------------------------------------------- */

#define NCH 3
#define NSEQ 6000 /* per channel */

struct arrival {
	uint64_t t;
	uint32_t line, ch;
	uint64_t seq;
};

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((rng_state >> 33) % n);
}

static int arr_cmp(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint8_t carried[2][NCH][NSEQ + 2]; /* copies line L carried of (ch, seq) */
static uint8_t delivered[NCH][NSEQ + 2];
static uint8_t in_gap[NCH][NSEQ + 2];
static struct arrival arr[2 * NCH * NSEQ * 2 + 16];
static struct evs ev;

/* Line L's schedule: record (ch, s) is due at base = (s * NCH + ch) us; each
 * line adds its own delay (line 1 lags by 100..300 us, jitter makes local
 * reorders), drops bursts, and sends some records twice. dead_at: line
 * dead_line sends nothing from that sequence on (0: never dies); the other
 * line then loses nothing from shortly before. */
static uint32_t make_arrivals(uint64_t seed, uint32_t dead_line, uint32_t dead_at, int lossy)
{
	uint32_t n = 0, L, ch, s;
	uint32_t keeper = dead_at ? 1 - dead_line : 0;
	rng_state = seed;
	memset(carried, 0, sizeof carried);
	for (L = 0; L < 2; L++) {
		for (ch = 0; ch < NCH; ch++) {
			uint32_t burst = 0;
			uint64_t drift = L ? 200 : 10; /* us: line 1 lags 100..300 us, line 0 0..20 */
			for (s = 1; s <= NSEQ; s++) {
				uint64_t base = ((uint64_t)s * NCH + ch) * US;
				uint64_t delay;
				/* the delay drifts by at most 1 us per record (spacing 3 us):
				 * in order, except an occasional record 5 us late (a reorder) */
				drift = drift + rnd(3) - 1;
				if (drift < (L ? 100u : 0u))
					drift = L ? 100 : 0;
				if (drift > (L ? 300u : 20u))
					drift = L ? 300 : 20;
				delay = drift * US;
				if (rnd(100) == 0)
					delay += 5 * US;
				if (dead_at && L == dead_line && s >= dead_at)
					break;
				/* the keeper always carries each channel's first and last
				 * record: a range nobody saw before the first or after the
				 * last is invisible to any receiver */
				if (lossy && !(L == keeper && (s == 1 || s == NSEQ || (dead_at && s + 50 >= dead_at)))) {
					if (burst) {
						burst--;
						continue;
					}
					if (rnd(1000) < 15) {
						burst = rnd(12); /* this one and up to 11 more */
						continue;
					}
				}
				arr[n++] = (struct arrival){base + delay, L, ch, s};
				carried[L][ch][s]++;
				if (lossy && rnd(100) == 0) { /* a copy on the same line, a bit later */
					arr[n++] = (struct arrival){base + delay + rnd(50) * US, L, ch, s};
					carried[L][ch][s]++;
				}
			}
		}
	}
	qsort(arr, n, sizeof arr[0], arr_cmp);
	return n;
}

/* Run the arrivals through a two-line group and check every rule. */
static void run_two_lines(uint64_t seed, uint32_t dead_line, uint32_t dead_at, int lossy)
{
	static struct seq_group g;
	static struct seq_queue q;
	uint32_t n = make_arrivals(seed, dead_line, dead_at, lossy), i, ch, s;
	uint64_t now = 0, late = 0, dups_expected = 0, missing = 0, runs = 0;
	uint64_t maxdel[NCH] = {0}; /* per channel, the highest delivered so far */
	uint32_t wrong_late = 0;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	ev.n = 0;
	memset(delivered, 0, sizeof delivered);
	memset(in_gap, 0, sizeof in_gap);
	for (i = 0; i < n; i++) {
		int l = 0, v;
		now = arr[i].t;
		if (i % 64 == 0) { /* the pipeline's timer */
			seq_poll(&g, &q, now);
			drain(&q, &ev);
		}
		v = check(&g, &q, &ev, arr[i].line, arr[i].ch, arr[i].seq, now, &l);
		if (v == SEQ_DELIVER) {
			delivered[arr[i].ch][arr[i].seq]++;
			late += l;
			/* the flag's promise: late exactly when a higher one went out first */
			if (l != (arr[i].seq < maxdel[arr[i].ch]))
				wrong_late++;
			if (arr[i].seq > maxdel[arr[i].ch])
				maxdel[arr[i].ch] = arr[i].seq;
		}
	}
	/* the end: every hole has waited long enough */
	seq_poll(&g, &q, now + 2 * MS);
	drain(&q, &ev);
	for (i = 0; i < ev.n; i++) {
		CHECK_EQ(ev.ev[i].kind, SEQ_EV_GAP);
		CHECK(ev.ev[i].chan < NCH);
		CHECK(ev.ev[i].first >= 1 && ev.ev[i].first <= ev.ev[i].last && ev.ev[i].last <= NSEQ);
		if (ev.ev[i].chan >= NCH || ev.ev[i].last > NSEQ || ev.ev[i].first > ev.ev[i].last)
			continue;
		for (s = (uint32_t)ev.ev[i].first; s <= ev.ev[i].last; s++)
			in_gap[ev.ev[i].chan][s]++;
	}
	/* exactly once whenever a line carried it; a gap exactly when none did */
	uint32_t wrong_once = 0, wrong_gap = 0;
	for (ch = 0; ch < NCH; ch++) {
		int in_run = 0;
		for (s = 1; s <= NSEQ; s++) {
			uint32_t c = carried[0][ch][s] + carried[1][ch][s];
			if (c)
				dups_expected += c - 1;
			if (delivered[ch][s] != (c ? 1 : 0))
				wrong_once++;
			if (in_gap[ch][s] != (c ? 0 : 1))
				wrong_gap++;
			if (!c)
				missing++;
			if (!c && !in_run)
				runs++;
			in_run = !c;
		}
	}
	CHECK_EQ(wrong_once, 0);
	CHECK_EQ(wrong_gap, 0);
	CHECK_EQ(wrong_late, 0);
	/* one gap per run both lines lost: no run reported in pieces */
	CHECK_EQ(ev.n, runs);
	CHECK_EQ(g.st.gaps, runs);
	CHECK_EQ(g.st.missing, missing);
	uint64_t rec, del, dups;
	seq_group_sum(&g, &rec, &del, &dups);
	CHECK_EQ(dups, dups_expected);
	CHECK_EQ(g.st.late, late);
	CHECK_EQ(g.st.hole_overflow, 0);
	CHECK_EQ(g.st.queue_full, 0);
	CHECK_EQ(del, (uint64_t)NCH * NSEQ - missing);
	/* per line: wins add up, and each line's record count is what it carried */
	CHECK_EQ(g.line[0].won + g.line[1].won, del);
	CHECK_EQ(g.line[0].dups + g.line[1].dups, dups);
	uint64_t c0 = 0, c1 = 0;
	for (ch = 0; ch < NCH; ch++)
		for (s = 1; s <= NSEQ; s++) {
			c0 += carried[0][ch][s];
			c1 += carried[1][ch][s];
		}
	CHECK_EQ(g.line[0].won + g.line[0].dups + g.line[0].stale, c0);
	CHECK_EQ(g.line[1].won + g.line[1].dups + g.line[1].stale, c1);
	CHECK_EQ(rec, c0 + c1);
	if (lossy) {
		CHECK(runs > 0);          /* the seeds do make both lose something */
		CHECK(g.line[1].won > 0); /* and the lagging line fills holes */
		CHECK(g.line[1].filled > 0);
		CHECK(g.line[0].missed > 0 && g.line[1].missed > 0);
	}
	if (!lossy && !dead_at) {
		/* clean lines: the leader wins everything, every copy of the other is dropped */
		CHECK_EQ(g.line[0].won, (uint64_t)NCH * NSEQ);
		CHECK_EQ(g.line[1].dups, (uint64_t)NCH * NSEQ);
	}
}

static void test_two_lines(void)
{
	run_two_lines(1, 0, 0, 1);
	run_two_lines(2, 0, 0, 1);
	run_two_lines(3, 0, 0, 1);
	run_two_lines(4, 0, 0, 0);
}

/* One line dies mid-stream: the other carries on, nothing it carried is
 * lost; gaps only for what both lost before. */
/* Two UDP lines: line 0 skips 3 and 5, line 1 delivers them, then line 0's
 * late 3 (a copy: lost the race) still counts as carried by line 0; a repeat
 * of a record it carried does not take a second one off. Further down than
 * SEQ_LANE_WINDOW a late copy cannot be told from a repeat and stays missed. */
static void test_missed_late_copy(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	const uint64_t far = SEQ_LANE_WINDOW + 20;
	uint64_t s, t = 0;
	seq_group_init(&g, 2, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	for (s = 1; s <= 6; s++)
		CHECK_EQ(check_udp(&g, &q, &e, 1, 9, s, t += US, NULL), SEQ_DELIVER);
	for (s = 1; s <= 6; s++)
		if (s != 3 && s != 5)
			CHECK_EQ(check_udp(&g, &q, &e, 0, 9, s, t += US, NULL), SEQ_DUP);
	CHECK_EQ(g.line[0].jumps, 2);
	CHECK_EQ(g.line[0].missed, 2);
	/* line 0's 3 comes late: a copy, and one number line 0 did carry */
	CHECK_EQ(check_udp(&g, &q, &e, 0, 9, 3, t += US, NULL), SEQ_DUP);
	CHECK_EQ(g.line[0].missed, 1);
	/* its 3 again and its 4 again: repeats, nothing changes */
	CHECK_EQ(check_udp(&g, &q, &e, 0, 9, 3, t += US, NULL), SEQ_DUP);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 9, 4, t += US, NULL), SEQ_DUP);
	CHECK_EQ(g.line[0].missed, 1);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 9, 5, t += US, NULL), SEQ_DUP);
	CHECK_EQ(g.line[0].missed, 0);
	/* line 1 carries 7 .. 7 + far; line 0 jumps from 6 to the last */
	for (s = 7; s <= 7 + far; s++)
		CHECK_EQ(check_udp(&g, &q, &e, 1, 9, s, t += US, NULL), SEQ_DELIVER);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 9, 7 + far, t += US, NULL), SEQ_DUP);
	CHECK_EQ(g.line[0].missed, far);
	/* within the window of line 0's highest: off the count, once */
	CHECK_EQ(check_udp(&g, &q, &e, 0, 9, 7 + far - 3, t += US, NULL), SEQ_DUP);
	CHECK_EQ(check_udp(&g, &q, &e, 0, 9, 7 + far - 3, t += US, NULL), SEQ_DUP);
	CHECK_EQ(g.line[0].missed, far - 1);
	/* below it: a copy that may be a repeat, left as it is */
	CHECK_EQ(check_udp(&g, &q, &e, 0, 9, 8, t += US, NULL), SEQ_DUP);
	CHECK_EQ(g.line[0].missed, far - 1);
	CHECK_EQ(e.n, 0); /* no gap: line 1 carried everything */
	CHECK_EQ(g.line[1].missed, 0);
}

static void test_line_dies(void)
{
	uint32_t i;
	run_two_lines(5, 0, NSEQ / 2, 0); /* the leader dies, clean lines: no gap at all */
	CHECK_EQ(ev.n, 0);
	run_two_lines(6, 1, NSEQ / 2, 0);
	CHECK_EQ(ev.n, 0);
	run_two_lines(7, 0, NSEQ / 2, 1); /* lossy before: gaps only where both lost, all before the death */
	for (i = 0; i < ev.n; i++)
		CHECK(ev.ev[i].last < NSEQ / 2);
	run_two_lines(8, 1, NSEQ / 3, 1);
	for (i = 0; i < ev.n; i++)
		CHECK(ev.ev[i].last < NSEQ / 3);
}

/* Both lines restart their channel's numbering, one after the other. */
static void test_restart_two_lines(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	uint64_t t = 0;
	uint32_t s;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	for (s = 1; s <= 50; s++) {
		CHECK_EQ(check(&g, &q, &e, 0, 1, s, t += US, NULL), SEQ_DELIVER);
		CHECK_EQ(check(&g, &q, &e, 1, 1, s, t += US, NULL), SEQ_DUP);
	}
	/* line 0 restarts first; line 1 still sends 51..53 of the old numbering */
	seq_line_session(&g, 0);
	seq_line_session(&g, 1); /* line 1 logs on again too, but its numbering lags */
	CHECK_EQ(check(&g, &q, &e, 0, 1, 1, t += US, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 1);
	CHECK_EQ(e.ev[0].kind, SEQ_EV_RESTART);
	CHECK_EQ(e.ev[0].last, 50);
	CHECK_EQ(e.ev[0].line, 0);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 51, t += US, NULL), SEQ_STALE);
	CHECK_EQ(check(&g, &q, &e, 0, 1, 2, t += US, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 52, t += US, NULL), SEQ_STALE);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 53, t += US, NULL), SEQ_STALE);
	/* line 1 restarts too: its new numbering is copies of what line 0 delivered */
	CHECK_EQ(check(&g, &q, &e, 1, 1, 1, t += US, NULL), SEQ_DUP);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 2, t += US, NULL), SEQ_DUP);
	/* and it can win again */
	CHECK_EQ(check(&g, &q, &e, 1, 1, 3, t += US, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 1, 3, t += US, NULL), SEQ_DUP);
	CHECK_EQ(e.n, 1); /* one restart, no gap */
	CHECK_EQ(g.st.stale, 3);
	CHECK_EQ(g.st.restarts, 1);
	CHECK_EQ(g.line[1].stale, 3);
}

/* A join: line 1 started earlier than line 0; within the wait its lower
 * records are delivered, late (100 went out before them), and the range
 * between becomes a hole. */
static void test_join_below_start(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	int late;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	CHECK_EQ(check(&g, &q, &e, 0, 2, 100, 10 * US, &late), SEQ_DELIVER);
	CHECK_EQ(late, 0);
	CHECK_EQ(check(&g, &q, &e, 1, 2, 97, 20 * US, &late), SEQ_DELIVER);  /* below the start, in time */
	CHECK_EQ(late, 1);
	CHECK_EQ(check(&g, &q, &e, 1, 2, 98, 21 * US, &late), SEQ_DELIVER);  /* fills 98..99 */
	CHECK_EQ(late, 1);
	CHECK_EQ(check(&g, &q, &e, 1, 2, 100, 22 * US, &late), SEQ_DUP);
	CHECK_EQ(g.st.late, 2);
	CHECK_EQ(g.chan[0].late, 2);
	CHECK_EQ(g.line[1].filled, 2);
	CHECK_EQ(g.line[0].filled, 0);
	CHECK_EQ(e.n, 0);
	/* 99 never comes: a gap after the wait */
	seq_poll(&g, &q, 22 * US + SEQ_DEFAULT_WAIT_NS);
	drain(&q, &e);
	CHECK_EQ(e.n, 1);
	CHECK_EQ(e.ev[0].first, 99);
	CHECK_EQ(e.ev[0].last, 99);
	/* long after the start, lower numbers are not news */
	CHECK_EQ(check(&g, &q, &e, 1, 2, 50, 5 * MS, NULL), SEQ_DUP);
	CHECK_EQ(g.st.before_start, 1);
	CHECK_EQ(g.st.late, 2);
}

/* Two lines, the join orders of test_one_line_reordered_start: line 0
 * carries 15 first, line 1 (which started earlier) the lower ones. Every
 * record below 15 is late; what no line carried is a gap after the wait. */
static void run_two_line_join(const uint64_t *seqs, uint32_t n, uint64_t gap_first, uint64_t gap_last)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	uint32_t i;
	uint64_t rec, del, dups, t = 1 * MS;
	int late;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	CHECK_EQ(check(&g, &q, &e, 0, 6, seqs[0], t, &late), SEQ_DELIVER);
	CHECK_EQ(late, 0);
	for (i = 1; i < n; i++) {
		CHECK_EQ(check(&g, &q, &e, 1, 6, seqs[i], t + i * US, &late), SEQ_DELIVER);
		CHECK_EQ(late, 1);
	}
	/* line 1 reaches 15: a copy */
	CHECK_EQ(check(&g, &q, &e, 1, 6, seqs[0], t + n * US, &late), SEQ_DUP);
	CHECK_EQ(e.n, 0);
	seq_poll(&g, &q, t + 10 * MS);
	drain(&q, &e);
	CHECK_EQ(e.n, gap_first ? 1 : 0);
	if (gap_first && e.n == 1) {
		CHECK_EQ(e.ev[0].kind, SEQ_EV_GAP);
		CHECK_EQ(e.ev[0].chan, 6);
		CHECK_EQ(e.ev[0].first, gap_first);
		CHECK_EQ(e.ev[0].last, gap_last);
	}
	seq_group_sum(&g, &rec, &del, &dups);
	CHECK_EQ(del, n);
	CHECK_EQ(dups, 1);
	CHECK_EQ(g.st.late, n - 1);
	CHECK_EQ(g.line[1].filled, n - 1);
	CHECK_EQ(g.line[1].won, n - 1);
	CHECK_EQ(g.st.before_start, 0);
}

static void test_two_line_join_orders(void)
{
	uint64_t seqs[16];
	uint32_t i;
	seqs[0] = 15;
	for (i = 1; i < 15; i++)
		seqs[i] = i;
	run_two_line_join(seqs, 15, 0, 0); /* 15, 1..14 */
	for (i = 0; i < 15; i++)
		seqs[i] = 15 - i;
	run_two_line_join(seqs, 15, 0, 0); /* 15, 14..1 */
	seqs[0] = 15;
	seqs[1] = 3;
	seqs[2] = 1;
	seqs[3] = 2;
	run_two_line_join(seqs, 4, 4, 14); /* 15, 3, 1, 2 */
}

/* The wait: a hole is a gap only after wait_ns, and not when filled in time. */
static void test_wait(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	uint64_t w = 3 * MS;
	seq_group_init(&g, 0, 2, w);
	seq_queue_init(&q);
	e.n = 0;
	CHECK_EQ(check(&g, &q, &e, 0, 1, 1, 0, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 0, 1, 5, 1 * MS, NULL), SEQ_DELIVER); /* hole 2..4 */
	CHECK_EQ(g.chan[0].nholes, 1);
	CHECK_EQ(seq_poll(&g, &q, 1 * MS + w - 1), 0);
	drain(&q, &e);
	CHECK_EQ(e.n, 0);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 3, 2 * MS, NULL), SEQ_DELIVER); /* splits it: 2, 4 */
	CHECK_EQ(g.chan[0].nholes, 2);
	/* a record of the channel after the wait declares what is left, oldest first */
	CHECK_EQ(check(&g, &q, &e, 0, 1, 6, 1 * MS + w, NULL), SEQ_DELIVER);
	CHECK_EQ(e.n, 2);
	CHECK_EQ(e.ev[0].first, 2);
	CHECK_EQ(e.ev[0].last, 2);
	CHECK_EQ(e.ev[1].first, 4);
	CHECK_EQ(e.ev[1].last, 4);
	CHECK_EQ(g.chan[0].nholes, 0);
	/* too late now */
	CHECK_EQ(check(&g, &q, &e, 1, 1, 4, 1 * MS + w + 1, NULL), SEQ_DUP);
}

/* A line holding bytes behind a missing segment (the caller's held mask)
 * and not yet past a hole makes the hole wait held_ns more; a line past
 * it, or no line holding, leaves wait_ns; the bound holds while the line
 * still holds; by a record, as by a poll. */
static void test_held_line(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	uint64_t w = 1 * MS, hn = 100 * MS;
	seq_group_init(&g, 0, 2, w);
	seq_queue_init(&q);
	e.n = 0;
	g.held_ns = hn;
	CHECK_EQ(check(&g, &q, &e, 0, 1, 1, 0, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 1, 1, NULL), SEQ_DUP);
	/* line 1 holds (its 2 may be behind its missing segment); line 0 jumps to 4: hole 2..3 */
	g.held_lines = 1u << 1;
	CHECK_EQ(check(&g, &q, &e, 0, 1, 4, 1 * MS, NULL), SEQ_DELIVER);
	CHECK_EQ(g.chan[0].nholes, 1);
	CHECK_EQ(seq_poll(&g, &q, 1 * MS + w), 0); /* the plain wait is over: still open */
	CHECK_EQ(check(&g, &q, &e, 0, 1, 5, 1 * MS + w + 1, NULL), SEQ_DELIVER);
	drain(&q, &e);
	CHECK_EQ(e.n, 0);
	/* line 1's bytes come: 2 fills the hole, late */
	CHECK_EQ(g.st.held_waits, 1); /* once, though looked at twice */
	CHECK_EQ(check(&g, &q, &e, 1, 1, 2, 20 * MS, NULL), SEQ_DELIVER);
	CHECK_EQ(g.chan[0].nholes, 1); /* 3 */
	/* line 1 is past 2 but not 3 and still holds: 3 still waits, until the bound */
	gap_due(&g, &q, &e, 1 * MS + w + hn, 1, 3, 3);
	CHECK_EQ(g.st.holes, 1);
	CHECK_EQ(g.st.held_waits, 1);

	/* a holding line already past the hole does not make it wait */
	e.n = 0;
	g.held_lines = 1u << 1;
	CHECK_EQ(check(&g, &q, &e, 1, 1, 3, 200 * MS, NULL), SEQ_DUP); /* too late: declared */
	CHECK_EQ(check(&g, &q, &e, 1, 1, 4, 200 * MS, NULL), SEQ_DUP);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 5, 200 * MS, NULL), SEQ_DUP);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 8, 200 * MS, NULL), SEQ_DELIVER); /* hole 6..7, line 1 at 9 */
	CHECK_EQ(g.chan[0].nholes, 1);
	gap_due(&g, &q, &e, 200 * MS + w, 1, 6, 7); /* line 0 is not held: the plain wait */

	/* the mask cleared (the byte hole closed without it): the plain wait again */
	e.n = 0;
	g.held_lines = 1u << 0;
	CHECK_EQ(check(&g, &q, &e, 1, 1, 11, 300 * MS, NULL), SEQ_DELIVER); /* hole 9..10; line 0 at 6 */
	CHECK_EQ(seq_poll(&g, &q, 300 * MS + w), 0);
	drain(&q, &e);
	CHECK_EQ(e.n, 0);
	g.held_lines = 0;
	seq_poll(&g, &q, 300 * MS + w);
	drain(&q, &e);
	CHECK_EQ(e.n, 1);
	CHECK_EQ(e.ev[0].first, 9);
	CHECK_EQ(e.ev[0].last, 10);
	/* held_ns 0 (no byte timeout): never longer */
	e.n = 0;
	g.held_lines = 1u << 0;
	g.held_ns = 0;
	CHECK_EQ(check(&g, &q, &e, 1, 1, 13, 400 * MS, NULL), SEQ_DELIVER); /* hole 12 */
	gap_due(&g, &q, &e, 400 * MS + w, 1, 12, 12);
}

/* More holes than a channel keeps: the oldest becomes a gap early, counted. */
static void test_hole_overflow(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	static struct evs e;
	uint32_t k;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	e.n = 0;
	CHECK_EQ(check(&g, &q, &e, 0, 1, 1, 0, NULL), SEQ_DELIVER);
	for (k = 1; k <= SEQ_MAX_HOLES + 2; k++)
		CHECK_EQ(check(&g, &q, &e, 0, 1, 1 + 2 * k, k, NULL), SEQ_DELIVER); /* holes 2, 4, 6, ... */
	CHECK_EQ(g.st.hole_overflow, 2);
	CHECK_EQ(e.n, 2);
	CHECK_EQ(e.ev[0].first, 2);
	CHECK_EQ(e.ev[1].first, 4);
	/* the ones still open can be filled */
	CHECK_EQ(check(&g, &q, &e, 1, 1, 6, 100, NULL), SEQ_DELIVER);
	CHECK_EQ(check(&g, &q, &e, 1, 1, 4, 101, NULL), SEQ_DUP);
}

/* ---- keys from the template file ---------------------------------------- */

static void test_keys(void)
{
	static struct fast_prog prog;
	static struct fast_names names;
	static struct seq_keys k;
	struct seq_field_cfg f[SEQ_MAX_FIELDS];
	char err[256];
	uint32_t nf = seq_fields_sse(f), j;
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		CHECK(0);
		return;
	}
	CHECK_EQ(seq_keys_resolve(&k, &prog, f, nf), 2);
	for (j = 0; j < prog.ntpl; j++) {
		const struct fast_tpl *t = &prog.tpl[j];
		CHECK(k.chan[j] != SEQ_NO_INSTR && k.seq[j] != SEQ_NO_INSTR);
		if (k.chan[j] == SEQ_NO_INSTR || k.seq[j] == SEQ_NO_INSTR)
			continue;
		CHECK_EQ(prog.instr[k.chan[j]].fid, t->id == 3201 ? SEQ_SSE_TRADE_CHANNEL : SEQ_SSE_ORDER_CHANNEL);
		CHECK_EQ(prog.instr[k.seq[j]].fid, SEQ_SSE_BIZ_INDEX);
		CHECK(k.chan[j] >= t->first && k.chan[j] < t->end);
		CHECK(k.seq[j] >= t->first && k.seq[j] < t->end);
	}
	/* a rule for one template only */
	f[0].tid = 5801;
	f[0].chan_fid = SEQ_SSE_ORDER_CHANNEL;
	f[0].seq_fid = SEQ_SSE_BIZ_INDEX;
	CHECK_EQ(seq_keys_resolve(&k, &prog, f, 1), 1);
	/* the 2.02 set has no BizIndex: nothing to track */
	nf = seq_fields_sse(f);
	if (fast_compile_file("conf/templates/sse-ngts-2.02-3201.xml", &prog, &names, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		CHECK(0);
		return;
	}
	CHECK_EQ(seq_keys_resolve(&k, &prog, f, nf), 0);
}

int main(void)
{
	FILE *f = fopen("conf/templates/sse-l2-3201-5801.xml", "r");
	if (!f)
		return test_skip("seq_track", "run from the repository root (conf/templates/ not found)");
	fclose(f);
	test_one_line();
	test_one_line_reordered_start();
	test_one_line_udp();
	test_channel_table();
	test_msg_seq();
	test_msg_seq_udp();
	test_restart_edges();
	test_two_lines();
	test_line_dies();
	test_missed_late_copy();
	test_restart_two_lines();
	test_join_below_start();
	test_two_line_join_orders();
	test_wait();
	test_held_line();
	test_hole_overflow();
	test_keys();
	return test_done("seq_track");
}
