/* test_seq_fast.c - seq_check's shortcuts never skip the full rules' duties (kernels/seq).
 *
 * seq_check decides the common records (a settled line's next record: the
 * channel's next, or a copy in no hole) inline and leaves the rest to
 * seq_check_slow, which takes a settled line's repeat the short way too and
 * leaves the rest to seq_check_full. The header promises all give the same
 * result for every input; this test holds them to that:
 *   - differential: random streams over TCP, UDP or both (seq_check's
 *     reorders) with jumps, repeats, reorders, restarts,
 *     new sessions, sequences near 0 and UINT64_MAX, lines and channels out
 *     of range, time going back and holes running out, fed to two groups,
 *     one through seq_check and one through seq_check_full only: verdicts,
 *     late flags, events and the whole group state (memcmp, the lines'
 *     windows of carried numbers aligned first) must match after every
 *     record;
 *   - the edges by name, with the results the rules in seq_track.h give:
 *     a copy at an open hole fills it (late), not a plain copy; a copy
 *     above a hole both lines lost stays a copy; a hole due makes the next
 *     record declare it; after a restart the other line's old numbering is
 *     stale, even right after it went the fast way; a numbering that
 *     reaches UINT64_MAX wraps the way the slow path takes it.
 */
#include <stdlib.h>

#include "test.h"
#include "seq/seq_track.h"

#define US 1000ull
#define MS 1000000ull

static struct seq_group ga, gb;
static struct seq_queue qa, qb;

/* ---- differential -------------------------------------------------------- */

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((rng >> 33) % n);
}

/* One record through both groups; 0 when they disagree (reported once). */
static int both(uint32_t line, uint32_t ch, uint64_t s, uint64_t now, uint32_t reorders, int *v_out)
{
	int la = -1, lb = -1;
	int va = seq_check(&ga, &qa, line, ch, s, now, reorders, &la);
	int vb = seq_check_full(&gb, &qb, line, ch, s, now, reorders);
	struct seq_ev ea, eb;
	int ok;
	lb = (vb & SEQ_LATE) != 0;
	vb &= 0xff;
	ok = va == vb && la == lb && seq_queue_len(&qa) == seq_queue_len(&qb);
	while (ok && seq_queue_pop(&qa, &ea)) {
		seq_queue_pop(&qb, &eb);
		ok = memcmp(&ea, &eb, sizeof ea) == 0;
	}
	seq_group_align(&ga); /* the fast path leaves the lines' windows to the slow one */
	ok = ok && memcmp(&ga, &gb, sizeof ga) == 0 && memcmp(&qa, &qb, sizeof qa) == 0;
	if (!ok) {
		const uint8_t *pa = (const uint8_t *)&ga, *pb = (const uint8_t *)&gb;
		size_t o;
		for (o = 0; o < sizeof ga && pa[o] == pb[o]; o++)
			;
		fprintf(stderr, "group state differs first at byte %zu (chan[] from %zu, %zu bytes each): %u/%u\n", o,
			(size_t)((const uint8_t *)ga.chan - pa), sizeof ga.chan[0], pa[o], pb[o]);
	}
	if (!ok)
		fprintf(stderr, "differ at line %u chan %u seq %llu now %llu reorders %u: %d/%d late %d/%d\n", line,
			ch, (unsigned long long)s, (unsigned long long)now, reorders, va, vb, la, lb);
	*v_out = va;
	return ok;
}

/* transport: 0 every record over TCP, 1 over UDP (may reorder), 2 each at random */
static void run_diff(uint64_t seed, uint32_t nlines, uint32_t transport, uint32_t steps)
{
	/* per line and channel slot: the line's cursor in its numbering */
	static const uint32_t chans[6] = {0, 3, 255, 256, 1000003, 7};
	uint64_t cur[SEQ_MAX_LINES + 2][6];
	uint64_t now = 5 * MS, fast_seen = 0;
	uint32_t i, L, k, bad = 0;
	rng = seed;
	seq_group_init(&ga, 1, nlines, 300 * US);
	seq_group_init(&gb, 1, nlines, 300 * US);
	seq_queue_init(&qa);
	seq_queue_init(&qb);
	for (L = 0; L < SEQ_MAX_LINES + 2; L++)
		for (k = 0; k < 6; k++)
			cur[L][k] = 100 + rnd(3);
	for (i = 0; i < steps && !bad; i++) {
		uint32_t r = rnd(1000), ck = rnd(100) < 85 ? rnd(3) : rnd(6);
		uint64_t s;
		int v;
		/* lines: mostly in range, now and then beyond the group or SEQ_MAX_LINES */
		L = rnd(100) < 97 ? rnd(nlines) : rnd(SEQ_MAX_LINES + 2);
		if (r < 700)
			s = cur[L][ck]++; /* in order */
		else if (r < 780)
			s = cur[L][ck] += rnd(4); /* a jump (this line lost some) */
		else if (r < 860)
			s = cur[L][ck] - 1 - rnd(3); /* a repeat or a reorder */
		else if (r < 900)
			s = cur[L][ck] + 1 + rnd(3); /* ahead, then back */
		else if (r < 915) {
			seq_line_session(&ga, L);
			seq_line_session(&gb, L);
			s = cur[L][ck] = 1; /* a new logon: back to 1 */
			cur[L][ck]++;
		} else if (r < 925)
			s = cur[L][ck] = 1 + rnd(2); /* 1 or 2 without a new session */
		else if (r < 935)
			s = rnd(2); /* 0 (no sequence) or 1 */
		else if (r < 950) {
			s = cur[L][ck] = UINT64_MAX - rnd(4); /* the end of the numbering */
			cur[L][ck]++;
		} else if (r < 960) {
			seq_poll(&ga, &qa, now);
			seq_poll(&gb, &qb, now);
			s = cur[L][ck]++;
		} else
			s = cur[L][ck]++;
		/* time: mostly forward by up to 40 us, sometimes past the wait, rarely back */
		r = rnd(100);
		now += r < 90 ? rnd(40 * US) : r < 97 ? 400 * US : 0;
		if (r == 99)
			now -= 50 * US;
		if (chans[ck] < SEQ_DIRECT && L < SEQ_MAX_LINES) {
			/* would the fast path decide it? (white box: the test must reach it) */
			const struct seq_chan *c = &ga.chan[ga.direct[chans[ck]]];
			const struct seq_lane *ln = &c->lane[L];
			if (s == ln->next && now < c->hole_due && s < ln->lim[s != c->next])
				fast_seen++;
		}
		if (!both(L, chans[ck], s, now, transport == 2 ? rnd(2) : transport, &v))
			bad++;
	}
	CHECK_EQ(bad, 0);
	if (getenv("SEQ_FAST_VERBOSE"))
		fprintf(stderr, "seed %llu lines %u transport %u: %llu of %u on the fast path\n",
			(unsigned long long)seed, nlines, transport, (unsigned long long)fast_seen, steps);
	CHECK(fast_seen > steps / 8); /* the streams do reach the fast path (about a quarter of them) */
	seq_poll(&ga, &qa, now + 10 * MS);
	seq_poll(&gb, &qb, now + 10 * MS);
	CHECK_MEM(&ga, &gb, sizeof ga);
	CHECK_MEM(&qa, &qb, sizeof qa);
}

static void test_differential(void)
{
	uint64_t seed;
	for (seed = 1; seed <= 60; seed++)
		run_diff(seed * 7919, 1 + (uint32_t)(seed % SEQ_MAX_LINES), (uint32_t)(seed / SEQ_MAX_LINES % 3), 6000);
}

/* ---- named edges ----------------------------------------------------------- */

static int chk(struct seq_group *g, struct seq_queue *q, uint32_t line, uint32_t ch, uint64_t s, uint64_t now,
	       int *late)
{
	int l = -1, v = seq_check(g, q, line, ch, s, now, 0, &l);
	if (late)
		*late = l;
	return v;
}

static void settle_two_lines(struct seq_group *g, struct seq_queue *q, uint64_t upto, uint64_t *now)
{
	uint64_t s;
	for (s = 1; s <= upto; s++) {
		CHECK_EQ(chk(g, q, 0, 4, s, (*now)++, NULL), SEQ_DELIVER);
		CHECK_EQ(chk(g, q, 1, 4, s, (*now)++, NULL), SEQ_DUP);
	}
}

/* A copy at an open hole fills it: delivered late, never dropped as a copy. */
static void test_hole_bypasses_fast_path(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	struct seq_ev e;
	uint64_t now = 1000;
	int late;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	settle_two_lines(&g, &q, 10, &now);
	/* line 0 loses 11..12 */
	CHECK_EQ(chk(&g, &q, 0, 4, 13, now++, &late), SEQ_DELIVER);
	CHECK_EQ(seq_queue_len(&q), 0); /* a hole, not yet a gap */
	/* line 1 is at 11, its next record: the first copy of 11 */
	CHECK_EQ(chk(&g, &q, 1, 4, 11, now++, &late), SEQ_DELIVER);
	CHECK_EQ(late, 1);
	CHECK_EQ(chk(&g, &q, 1, 4, 12, now++, &late), SEQ_DELIVER);
	CHECK_EQ(late, 1);
	CHECK_EQ(chk(&g, &q, 1, 4, 13, now++, &late), SEQ_DUP);
	CHECK_EQ(late, 0);
	CHECK_EQ(g.line[1].won, 2);
	CHECK_EQ(g.line[1].filled, 2);
	CHECK_EQ(g.st.late, 2);
	CHECK_EQ(g.chan[0].nholes, 0);
	/* nothing lost: no gap even after the wait */
	seq_poll(&g, &q, now + 2 * SEQ_DEFAULT_WAIT_NS);
	CHECK(!seq_queue_pop(&q, &e));
}

/* A hole both lines lost: the lagging line's copies above it stay copies,
 * and when its wait is over the next record declares it before anything. */
static void test_hole_both_lost_then_due(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	struct seq_ev e;
	uint64_t now = 1000, s;
	int late;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	settle_two_lines(&g, &q, 5, &now);
	/* both lose 6..7 */
	for (s = 8; s <= 20; s++)
		CHECK_EQ(chk(&g, &q, 0, 4, s, now++, NULL), SEQ_DELIVER);
	for (s = 8; s <= 20; s++) {
		CHECK_EQ(chk(&g, &q, 1, 4, s, now++, &late), SEQ_DUP);
		CHECK_EQ(late, 0);
	}
	CHECK_EQ(g.line[1].jumps, 1);
	CHECK_EQ(g.line[1].missed, 2);
	CHECK_EQ(seq_queue_len(&q), 0);
	CHECK_EQ(g.chan[0].nholes, 1);
	/* the wait runs out: the next record, an ordinary next one, declares 6..7 first */
	now += SEQ_DEFAULT_WAIT_NS;
	CHECK_EQ(chk(&g, &q, 0, 4, 21, now, &late), SEQ_DELIVER);
	CHECK_EQ(seq_queue_len(&q), 1);
	CHECK(seq_queue_pop(&q, &e));
	CHECK_EQ(e.kind, SEQ_EV_GAP);
	CHECK_EQ(e.chan, 4);
	CHECK_EQ(e.first, 6);
	CHECK_EQ(e.last, 7);
	CHECK_EQ(g.st.gaps, 1);
	CHECK_EQ(g.st.missing, 2);
	/* a late copy of 6 now: declared lost already, a copy */
	CHECK_EQ(chk(&g, &q, 1, 4, 6, now + 1, &late), SEQ_DUP);
	CHECK_EQ(late, 0);
}

/* A restart by line 0: line 1, settled and on the fast path a moment ago,
 * now sends the old numbering: stale, not a copy and not new. */
static void test_restart_stops_fast_path(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	struct seq_ev e;
	uint64_t now = 1000;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	settle_two_lines(&g, &q, 30, &now);
	CHECK_EQ(chk(&g, &q, 0, 4, 31, now++, NULL), SEQ_DELIVER);
	seq_line_session(&g, 0);
	CHECK_EQ(chk(&g, &q, 0, 4, 1, now++, NULL), SEQ_DELIVER);
	CHECK(seq_queue_pop(&q, &e));
	CHECK_EQ(e.kind, SEQ_EV_RESTART);
	CHECK_EQ(e.last, 31);
	CHECK_EQ(chk(&g, &q, 0, 4, 2, now++, NULL), SEQ_DELIVER);
	/* line 1's next record in its old numbering */
	CHECK_EQ(chk(&g, &q, 1, 4, 31, now++, NULL), SEQ_STALE);
	CHECK_EQ(chk(&g, &q, 1, 4, 32, now++, NULL), SEQ_STALE);
	CHECK_EQ(g.line[1].stale, 2);
	CHECK_EQ(g.st.stale, 2);
	/* until it sends 1 itself: then copies again */
	CHECK_EQ(chk(&g, &q, 1, 4, 1, now++, NULL), SEQ_DUP);
	CHECK_EQ(chk(&g, &q, 1, 4, 2, now++, NULL), SEQ_DUP);
	CHECK_EQ(chk(&g, &q, 1, 4, 3, now++, NULL), SEQ_DELIVER); /* it is ahead now */
	CHECK_EQ(chk(&g, &q, 0, 4, 3, now++, NULL), SEQ_DUP);
	CHECK_EQ(seq_queue_len(&q), 0);
}

/* One line: a repeat right after the record and a jump are not the fast
 * path's; the next record after them is again. */
static void test_one_line_edges(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	struct seq_ev e;
	uint64_t now = 1000, s;
	seq_group_init(&g, 0, 1, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	for (s = 50; s <= 60; s++)
		CHECK_EQ(chk(&g, &q, 0, 9, s, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(chk(&g, &q, 0, 9, 60, now++, NULL), SEQ_DUP);
	CHECK_EQ(chk(&g, &q, 0, 9, 64, now++, NULL), SEQ_DELIVER);
	CHECK(seq_queue_pop(&q, &e));
	CHECK_EQ(e.first, 61);
	CHECK_EQ(e.last, 63);
	CHECK_EQ(chk(&g, &q, 0, 9, 65, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(chk(&g, &q, 0, 9, 62, now++, NULL), SEQ_DUP); /* declared lost already */
	CHECK_EQ(g.line[0].won, 13);
	CHECK_EQ(g.line[0].dups, 2);
	CHECK_EQ(g.chan[0].delivered, 13);
	CHECK_EQ(g.chan[0].dups, 2);
	/* a line number beyond the group counts as its last line */
	CHECK_EQ(chk(&g, &q, 3, 9, 66, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(chk(&g, &q, 200, 9, 67, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(g.line[0].won, 15);
	CHECK_EQ(seq_queue_len(&q), 0);
}

/* The end of the numbering: UINT64_MAX is delivered, and the slow path then
 * takes the channel as not started (next 0): the record after it starts it
 * again, with no gap. The fast path must not carry on past the wrap. */
static void test_wrap(void)
{
	static struct seq_group g;
	static struct seq_queue q;
	uint64_t now = 1000;
	seq_group_init(&g, 0, 2, SEQ_DEFAULT_WAIT_NS);
	seq_queue_init(&q);
	CHECK_EQ(chk(&g, &q, 0, 2, UINT64_MAX - 2, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(chk(&g, &q, 1, 2, UINT64_MAX - 2, now++, NULL), SEQ_DUP);
	CHECK_EQ(chk(&g, &q, 0, 2, UINT64_MAX - 1, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(chk(&g, &q, 1, 2, UINT64_MAX - 1, now++, NULL), SEQ_DUP);
	CHECK_EQ(chk(&g, &q, 0, 2, UINT64_MAX, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(g.chan[0].next, 0);
	/* line 1's next record is UINT64_MAX: the channel's first again */
	CHECK_EQ(chk(&g, &q, 1, 2, UINT64_MAX, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(chk(&g, &q, 0, 2, 0, now++, NULL), SEQ_DELIVER);
	CHECK_EQ(g.chan[0].next, 1);
	CHECK_EQ(g.chan[0].low, 0);
	CHECK_EQ(seq_queue_len(&q), 0);
}

int main(void)
{
	test_hole_bypasses_fast_path();
	test_hole_both_lost_then_due();
	test_restart_stops_fast_path();
	test_one_line_edges();
	test_wrap();
	test_differential();
	return test_done("seq_fast");
}
