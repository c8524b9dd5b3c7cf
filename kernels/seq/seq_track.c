/* seq_track.c - per-channel sequence tracking, A/B arbitration, MsgSeqNum checks (synthesisable subset).
 *
 * The record path: seq_check (inline, seq_track.h) decides a settled line's
 * next record with a direct channel index and three compares against the
 * line's lane (struct seq_lane), which this file keeps up to date
 * (fast_summary) whenever the slow path changes a channel; in steady A/B
 * operation nearly every record is the channel's next (deliver) or a copy
 * (drop) that way. Everything else comes here: seq_check_slow takes a line's
 * repeat the short way, seq_check_full applies the rules below in full. See
 * seq_track.h for the rules and why they were chosen.
 */
#include <stddef.h> /* offsetof: a freestanding header, no libc */

#include "seq_track.h"

#define SEQ_HASH_BITS 7
_Static_assert((1u << SEQ_HASH_BITS) == SEQ_HASH_SIZE, "hash bits match the table");
_Static_assert(SEQ_HASH_SIZE >= 2 * SEQ_MAX_CHANNELS, "hash table at most half full");
_Static_assert(SEQ_MAX_CHANNELS < 255, "channel index + 1 fits the hash table's bytes");
_Static_assert(SEQ_QUEUE >= SEQ_MAX_HOLES + 2, "one seq_check fits an empty queue");
_Static_assert(SEQ_MAX_LINES <= 8, "line_seen is a byte");
_Static_assert(SEQ_MAX_CHANNELS <= 255, "direct[] holds channel indexes and the stand-in's");
_Static_assert(SEQ_DELIVER == 0 && SEQ_DUP == 1, "seq_chan.count[] is indexed by verdict");
_Static_assert(sizeof(struct seq_line_stats) == SEQ_LINE_NSTATS * sizeof(uint64_t), "v[] covers the stats");
_Static_assert(offsetof(struct seq_line_stats, won) == SEQ_LS_WON * sizeof(uint64_t) &&
		       offsetof(struct seq_line_stats, dups) == SEQ_LS_DUPS * sizeof(uint64_t),
	       "the fast path finds won and dups in v[]");

/* ---- keys ---------------------------------------------------------------- */

uint32_t seq_fields_sse(struct seq_field_cfg *f)
{
	f[0].tid = 0;
	f[0].chan_fid = SEQ_SSE_TRADE_CHANNEL;
	f[0].seq_fid = SEQ_SSE_BIZ_INDEX;
	f[1].tid = 0;
	f[1].chan_fid = SEQ_SSE_ORDER_CHANNEL;
	f[1].seq_fid = SEQ_SSE_BIZ_INDEX;
	return 2;
}

static int int_kind(uint8_t kind)
{
	return kind == FAST_K_I32 || kind == FAST_K_U32 || kind == FAST_K_I64 || kind == FAST_K_U64;
}

uint32_t seq_keys_resolve(struct seq_keys *k, const struct fast_prog *p, const struct seq_field_cfg *f,
			  uint32_t nf)
{
	uint32_t j, r, i, n = 0;
	for (j = 0; j < FAST_MAX_TEMPLATES; j++) {
		k->chan[j] = SEQ_NO_INSTR;
		k->seq[j] = SEQ_NO_INSTR;
		k->vchan[j] = 0;
		k->vseq[j] = 0;
	}
	for (j = 0; j < FAST_MAX_TEMPLATES; j++) {
		const struct fast_tpl *t = &p->tpl[j];
		if (j >= p->ntpl)
			break;
		for (r = 0; r < SEQ_MAX_FIELDS; r++) {
			uint32_t ci = SEQ_NO_INSTR, si = SEQ_NO_INSTR;
			if (r >= nf)
				break;
			if (f[r].tid != 0 && f[r].tid != t->id)
				continue;
			/* template-level integer fields only: a value inside a
			 * sequence has no single meaning per record */
			for (i = 0; i < FAST_MAX_INSTR; i++) {
				const struct fast_instr *in;
				if (i < t->first)
					continue;
				if (i >= t->end)
					break;
				in = &p->instr[i];
				if (in->depth != 0 || !int_kind(in->kind))
					continue;
				if (in->fid == f[r].chan_fid && ci == SEQ_NO_INSTR)
					ci = i;
				else if (in->fid == f[r].seq_fid && si == SEQ_NO_INSTR)
					si = i;
			}
			if (ci != SEQ_NO_INSTR && si != SEQ_NO_INSTR) {
				k->chan[j] = (uint16_t)ci;
				k->seq[j] = (uint16_t)si;
				n++;
				break;
			}
		}
	}
	return n;
}

/* Value x as a key part: 0 when absent (or, for the sequence, not a sequence number). */
static int key_val(const struct fast_val *x, int is_seq)
{
	return x->present && (!is_seq || x->i > 0);
}

int seq_key(struct seq_keys *k, const struct fast_rec *r, uint32_t *chan, uint64_t *seq)
{
	uint32_t v, got = 0, hc, hs;
	uint16_t ci, si;
	if (r->tpl >= FAST_MAX_TEMPLATES)
		return 0;
	ci = k->chan[r->tpl];
	si = k->seq[r->tpl];
	if (ci == SEQ_NO_INSTR)
		return 0;
	/* where they were last time: two compares instead of a scan */
	hc = k->vchan[r->tpl];
	hs = k->vseq[r->tpl];
	if (hc < r->nvals && hs < r->nvals && hc < FAST_MAX_VALUES && hs < FAST_MAX_VALUES &&
	    r->v[hc].instr == ci && r->v[hs].instr == si) {
		if (!key_val(&r->v[hc], 0) || !key_val(&r->v[hs], 1))
			return 0;
		*chan = (uint32_t)r->v[hc].i;
		*seq = (uint64_t)r->v[hs].i;
		return 1;
	}
	for (v = 0; v < FAST_MAX_VALUES; v++) {
		const struct fast_val *x;
		if (v >= r->nvals)
			break;
		x = &r->v[v];
		if (x->instr == ci) {
			if (!key_val(x, 0))
				return 0;
			*chan = (uint32_t)x->i;
			k->vchan[r->tpl] = (uint16_t)v;
			got |= 1;
		} else if (x->instr == si) {
			/* sequences start at 1: 0 or a negative value is no sequence */
			if (!key_val(x, 1))
				return 0;
			*seq = (uint64_t)x->i;
			k->vseq[r->tpl] = (uint16_t)v;
			got |= 2;
		}
		if (got == 3)
			return 1;
	}
	return 0;
}

/* ---- event queue --------------------------------------------------------- */

void seq_queue_init(struct seq_queue *q)
{
	uint32_t i;
	q->head = 0;
	q->tail = 0;
	for (i = 0; i < SEQ_QUEUE; i++) {
		q->ev[i].kind = SEQ_EV_NONE;
		q->ev[i].line = 0;
		q->ev[i].group = 0;
		q->ev[i].pad = 0;
		q->ev[i].chan = 0;
		q->ev[i].first = 0;
		q->ev[i].last = 0;
	}
}

static int q_push(struct seq_group *g, struct seq_queue *q, uint8_t kind, uint32_t line, uint32_t chan,
		  uint64_t first, uint64_t last)
{
	struct seq_ev *e;
	if (q->head - q->tail >= SEQ_QUEUE) {
		g->st.queue_full++; /* callers keep room (seq_track.h): never expected */
		return 0;
	}
	e = &q->ev[q->head % SEQ_QUEUE];
	e->kind = kind;
	e->line = (uint8_t)line;
	e->group = (uint8_t)g->id;
	e->pad = 0;
	e->chan = chan;
	e->first = first;
	e->last = last;
	q->head++;
	return 1;
}

int seq_queue_pop(struct seq_queue *q, struct seq_ev *ev)
{
	if (q->head == q->tail)
		return 0;
	*ev = q->ev[q->tail % SEQ_QUEUE];
	q->tail++;
	return 1;
}

/* ---- groups -------------------------------------------------------------- */

static void chan_init(struct seq_chan *c, uint32_t id)
{
	uint32_t i;
	c->id = id;
	c->nholes = 0;
	c->hole_due = UINT64_MAX;
	c->line_ok = 0;
	c->epoch = 0;
	c->line_seen = 0;
	c->next = 0;
	c->low = 0;
	c->start_ns = 0;
	for (i = 0; i < SEQ_MAX_LINES; i++) {
		c->line_epoch[i] = 0;
		c->line_sess[i] = 0;
		c->line_first[i] = 0;
		c->lane[i].next = 0;
		c->lane[i].lim[0] = 0;
		c->lane[i].lim[1] = 0;
	}
	c->delivered = 0;
	c->dups = 0;
	c->gaps = 0;
	c->missing = 0;
	c->late = 0;
	c->restarts = 0;
	for (i = 0; i < SEQ_MAX_HOLES; i++) {
		c->hole[i].first = 0;
		c->hole[i].last = 0;
		c->hole[i].since = 0;
		c->hole[i].held = 0;
		c->hole[i].pad = 0;
	}
}

void seq_group_init(struct seq_group *g, uint32_t id, uint32_t nlines, uint64_t wait_ns)
{
	uint32_t i, L;
	g->id = id;
	g->nlines = nlines == 0 ? 1 : nlines > SEQ_MAX_LINES ? SEQ_MAX_LINES : nlines;
	g->nchan = 0;
	g->pad = 0;
	g->wait_ns = wait_ns;
	g->held_ns = 0;
	g->held_lines = 0;
	for (i = 0; i < SEQ_DIRECT; i++)
		g->direct[i] = SEQ_MAX_CHANNELS;
#define SEQ_ZERO(name) g->st.name = 0;
	SEQ_GROUP_STATS(SEQ_ZERO)
#undef SEQ_ZERO
	for (i = 0; i < SEQ_MAX_LINES; i++) {
		g->sess[i] = 0;
#define SEQ_ZERO(name) g->line[i].name = 0;
		SEQ_LINE_STATS(SEQ_ZERO)
#undef SEQ_ZERO
	}
	for (i = 0; i < SEQ_HASH_SIZE; i++)
		g->hash[i] = 0;
	for (i = 0; i < SEQ_MAX_CHANNELS + 1; i++) {
		chan_init(&g->chan[i], 0);
		for (L = 0; L < SEQ_MAX_LINES; L++)
			g->win[i][L] = (struct seq_window){0, 0};
	}
}

/* Index of channel id, added when new; -1 when the table is full. */
static int32_t chan_find(struct seq_group *g, uint32_t id)
{
	uint32_t h, probe;
	if (id < SEQ_DIRECT && g->direct[id] < SEQ_MAX_CHANNELS)
		return (int32_t)g->direct[id];
	h = (id * 2654435761u) >> (32 - SEQ_HASH_BITS);
	for (probe = 0; probe < SEQ_HASH_SIZE; probe++) {
		uint32_t slot = (h + probe) & (SEQ_HASH_SIZE - 1);
		uint32_t e = g->hash[slot];
		if (e == 0) {
			if (g->nchan >= SEQ_MAX_CHANNELS)
				return -1;
			e = ++g->nchan;
			chan_init(&g->chan[e - 1], id);
			if (id < SEQ_DIRECT)
				g->direct[id] = (uint8_t)(e - 1);
			else
				g->hash[slot] = (uint8_t)e;
			return (int32_t)(e - 1);
		}
		if (g->chan[e - 1].id == id)
			return (int32_t)(e - 1);
	}
	return -1;
}

static void gap(struct seq_group *g, struct seq_queue *q, struct seq_chan *c, uint32_t line, uint64_t first,
		uint64_t last)
{
	if (!q_push(g, q, SEQ_EV_GAP, line, c->id, first, last))
		return;
	g->st.gaps++;
	g->st.missing += last - first + 1;
	c->gaps++;
	c->missing += last - first + 1;
}

/* The fast path's summary of c (struct seq_lane): after the slow path
 * changed its holes or a line's state. Per line, the first sequence from
 * the line's next on that is in a hole (the line's next itself when it is
 * inside one: its next record goes the slow way), not one lowest hole for
 * all: a hole every line missed stays open for wait_ns, and the lagging
 * line's copies above it must not all go the slow way meanwhile. */
static void fast_summary(const struct seq_group *g, struct seq_chan *c)
{
	uint32_t i, L, odd = 0;
	/* holes lie below next, except after a numbering ran past UINT64_MAX
	 * (the slow path then starts the channel again, holes and all): no
	 * fast path on such a channel, whose "new" would not be new */
	for (i = 0; i < SEQ_MAX_HOLES; i++) {
		if (i >= c->nholes)
			break;
		if (c->hole[i].last >= c->next)
			odd = 1;
	}
	/* lanes from nlines on are never settled: their lim stays 0 (chan_init) */
	for (L = 0; L < SEQ_MAX_LINES; L++) {
		uint64_t p = c->lane[L].next, m = UINT64_MAX;
		if (L >= g->nlines)
			break;
		if (!((c->line_ok >> L) & 1u) || odd) {
			c->lane[L].lim[0] = 0;
			c->lane[L].lim[1] = 0;
			continue;
		}
		for (i = 0; i < SEQ_MAX_HOLES; i++) {
			uint64_t f;
			if (i >= c->nholes)
				break;
			if (c->hole[i].last < p)
				continue;
			f = c->hole[i].first > p ? c->hole[i].first : p;
			if (f < m)
				m = f;
		}
		c->lane[L].lim[SEQ_DELIVER] = UINT64_MAX;
		c->lane[L].lim[SEQ_DUP] = m;
	}
	c->hole_due = c->nholes == 0 ? UINT64_MAX
		      : c->hole[0].since > UINT64_MAX - g->wait_ns ? UINT64_MAX - 1
								    : c->hole[0].since + g->wait_ns;
}

static void hole_remove(struct seq_chan *c, uint32_t at)
{
	uint32_t i;
	for (i = 0; i + 1 < SEQ_MAX_HOLES; i++) {
		if (i < at)
			continue;
		if (i + 1 >= c->nholes)
			break;
		c->hole[i] = c->hole[i + 1];
	}
	c->nholes--;
}

/* Open hole [first, last] at position `at` (holes stay oldest first). A
 * full table declares its oldest hole first. */
static void hole_insert(struct seq_group *g, struct seq_queue *q, struct seq_chan *c, uint32_t at,
			uint64_t first, uint64_t last, uint64_t since, uint32_t held)
{
	uint32_t i;
	if (c->nholes >= SEQ_MAX_HOLES) {
		gap(g, q, c, 0, c->hole[0].first, c->hole[0].last);
		hole_remove(c, 0);
		g->st.hole_overflow++;
		if (at > 0)
			at--;
	}
	if (at > c->nholes)
		at = c->nholes;
	for (i = SEQ_MAX_HOLES - 1; i > 0; i--) {
		if (i > c->nholes)
			continue;
		if (i <= at)
			break;
		c->hole[i] = c->hole[i - 1];
	}
	c->hole[at].first = first;
	c->hole[at].last = last;
	c->hole[at].since = since;
	c->hole[at].held = held;
	c->hole[at].pad = 0;
	c->nholes++;
}

/* How long hole h waits: wait_ns, and held_ns more while a line holding
 * bytes behind a missing segment has not passed its first sequence (that
 * line may carry it; seq_track.h, Choices). A later hole opened no
 * earlier and waits no less (its first is higher), so expire() may stop at
 * the first one still waiting. */
static uint64_t hole_wait(const struct seq_group *g, const struct seq_chan *c, const struct seq_hole *h)
{
	uint32_t l;
	if (g->held_lines == 0 || g->held_ns == 0)
		return g->wait_ns;
	for (l = 0; l < SEQ_MAX_LINES; l++)
		if (l < g->nlines && ((g->held_lines >> l) & 1u) && c->lane[l].next <= h->first)
			return g->wait_ns > UINT64_MAX - g->held_ns ? UINT64_MAX : g->wait_ns + g->held_ns;
	return g->wait_ns;
}

/* Holes of c whose wait ran out: gaps, oldest first, while q has room. 1 when some had to wait. */
static int expire(struct seq_group *g, struct seq_queue *q, struct seq_chan *c, uint64_t now)
{
	uint32_t i;
	for (i = 0; i < SEQ_MAX_HOLES; i++) {
		struct seq_hole *h = &c->hole[0];
		if (c->nholes == 0)
			return 0;
		if (now < h->since || now - h->since < g->wait_ns)
			return 0;
		if (now - h->since < hole_wait(g, c, h)) {
			g->st.held_waits += !h->held;
			h->held = 1;
			return 0;
		}
		if (q->head - q->tail >= SEQ_QUEUE) {
			g->st.queue_full++;
			return 1;
		}
		gap(g, q, c, 0, c->hole[0].first, c->hole[0].last);
		hole_remove(c, 0);
	}
	return 0;
}

/* s fills hole i: shrink or split it. */
static void fill(struct seq_group *g, struct seq_queue *q, struct seq_chan *c, uint32_t i, uint64_t s)
{
	struct seq_hole *h = &c->hole[i];
	if (h->first == h->last) {
		hole_remove(c, i);
	} else if (s == h->first) {
		h->first++;
	} else if (s == h->last) {
		h->last--;
	} else {
		uint64_t upper_last = h->last, since = h->since;
		uint32_t held = h->held; /* the upper part is the same hole: counted once */
		h->last = s - 1;
		hole_insert(g, q, c, i + 1, s + 1, upper_last, since, held);
	}
}

/* Line L's window brought up to its own next ln (> 0): the numbers from
 * w->at to ln were carried on the fast path, one by one. */
static void carried_align(struct seq_window *w, uint64_t ln)
{
	uint64_t d = ln - w->at;
	if (d == 0)
		return;
	w->bits = d >= SEQ_LANE_WINDOW ? ~0ull : w->bits << d | ((1ull << d) - 1);
	w->at = ln;
}

/* Line L carries s, below its own next ln (no restart). Between L's first
 * record and ln, L's jump over s counted it missed; if L had not carried s
 * before, it came after all (reordered) and is not missed. Within
 * SEQ_LANE_WINDOW of ln the window tells a record L skipped from one it
 * repeats; further down only a record no line carried before (first, which
 * the caller knows once it has looked at the holes) is known to be new to L. */
static void carried_below(struct seq_group *g, struct seq_chan *c, uint32_t L, uint64_t s, uint64_t ln, int first)
{
	struct seq_window *w = &g->win[c - g->chan][L];
	if (s <= c->line_first[L] || s >= ln)
		return;
	if (ln - s <= SEQ_LANE_WINDOW) {
		uint64_t bit = 1ull << (ln - 1 - s);
		carried_align(w, ln);
		if (w->bits & bit)
			return; /* a repeat */
		w->bits |= bit;
	} else if (!first) {
		return;
	}
	if (g->line[L].missed)
		g->line[L].missed--;
}

/* Line L carries s at or above its own next ln (0: nothing yet, or reset:
 * a new start); its next becomes s + 1. */
static void carried_up(struct seq_group *g, struct seq_chan *c, uint32_t L, uint64_t s, uint64_t ln, int restart)
{
	struct seq_window *w = &g->win[c - g->chan][L];
	uint64_t d = s + 1 - ln;
	if (ln == 0 || restart || d >= SEQ_LANE_WINDOW) {
		w->bits = 1;
	} else {
		carried_align(w, ln);
		w->bits = w->bits << d | 1;
	}
	w->at = s + 1;
	c->lane[L].next = s + 1;
}

static int deliver(struct seq_group *g, struct seq_line_stats *ls, struct seq_chan *c)
{
	(void)g;
	ls->won++;
	c->delivered++;
	return SEQ_DELIVER;
}

static int dup(struct seq_group *g, struct seq_line_stats *ls, struct seq_chan *c)
{
	(void)g;
	ls->dups++;
	c->dups++;
	return SEQ_DUP;
}

/* 1 when s lies in one of c's holes. */
static int in_hole(const struct seq_chan *c, uint64_t s)
{
	uint32_t i;
	for (i = 0; i < SEQ_MAX_HOLES; i++) {
		if (i >= c->nholes)
			break;
		if (s >= c->hole[i].first && s <= c->hole[i].last)
			return 1;
	}
	return 0;
}

/* The settled-line bit the fast path reads, after the slow path ran for
 * line L of c. Besides epoch and session it promises low <= lane[L].next
 * <= next, so the fast path need not compare the record with low and next:
 * a later record of L on the fast path only raises lane[L].next to next at
 * most, and the slow path only lowers low (a line that started earlier) or
 * clears every bit (restart). A numbering that wrapped (next 0) gets no
 * fast path at all: the slow path takes 0 as "nothing yet". */
static void settle(const struct seq_group *g, struct seq_chan *c, uint32_t L)
{
	if (c->next == 0)
		c->line_ok = 0;
	else if (c->line_epoch[L] == c->epoch && c->line_sess[L] == g->sess[L] && c->lane[L].next >= c->low &&
		 c->lane[L].next <= c->next)
		c->line_ok |= (uint8_t)(1u << L);
	else
		c->line_ok &= (uint8_t)~(1u << L);
}

static int check(struct seq_group *g, struct seq_queue *q, uint32_t L, struct seq_chan *c, uint64_t s,
		 uint64_t now, uint32_t reorders);

/* The rules in full for line L (clamped) on channel index idx. */
static int full(struct seq_group *g, struct seq_queue *q, uint32_t L, int32_t idx, uint64_t s, uint64_t now,
		uint32_t reorders)
{
	int v;
	if (idx < 0) {
		g->st.untracked++;
		g->line[L].won++;
		return SEQ_DELIVER;
	}
	v = check(g, q, L, &g->chan[idx], s, now, reorders);
	if ((v & 0xff) != SEQ_STALE)
		settle(g, &g->chan[idx], L);
	fast_summary(g, &g->chan[idx]);
	return v;
}

int seq_check_full(struct seq_group *g, struct seq_queue *q, uint32_t line, uint32_t chan, uint64_t s,
		   uint64_t now, uint32_t reorders)
{
	return full(g, q, line < g->nlines ? line : g->nlines - 1, chan_find(g, chan), s, now, reorders);
}

int seq_check_slow(struct seq_group *g, struct seq_queue *q, uint32_t line, uint32_t chan, uint64_t s,
		   uint64_t now, uint32_t reorders)
{
	uint32_t L = line < g->nlines ? line : g->nlines - 1;
	int32_t idx = chan_find(g, chan);
	if (idx >= 0 && ((g->chan[idx].line_ok >> L) & 1u) && s < g->chan[idx].lane[L].next &&
	    s >= g->chan[idx].low && now < g->chan[idx].hole_due && !in_hole(&g->chan[idx], s)) {
		/* a settled line repeating a record it carried (or a reordered
		 * one): a copy and nothing else (check() would find the same: no
		 * restart, no jump, no hole to fill or expire, settled still) */
		struct seq_chan *c = &g->chan[idx];
		carried_below(g, c, L, s, c->lane[L].next, 0);
		return dup(g, &g->line[L], c);
	}
	return full(g, q, L, idx, s, now, reorders);
}

static int check(struct seq_group *g, struct seq_queue *q, uint32_t L, struct seq_chan *c, uint64_t s,
		 uint64_t now, uint32_t reorders)
{
	uint32_t bit = 1u << L, i;
	struct seq_line_stats *ls = &g->line[L];
	int caught_up = 0, restart;
	uint64_t ln;

	if (c->nholes)
		expire(g, q, c, now);

	/* a line still on the numbering before the channel's restart */
	if (!(c->line_seen & bit)) {
		c->line_seen |= (uint8_t)bit;
		c->line_epoch[L] = c->epoch;
		c->line_sess[L] = g->sess[L];
		c->lane[L].next = 0;
	} else if (c->line_epoch[L] != c->epoch) {
		if (s != 1) {
			g->st.stale++;
			ls->stale++;
			return SEQ_STALE;
		}
		c->line_epoch[L] = c->epoch;
		c->lane[L].next = 0;
		caught_up = 1;
	}

	/* the line's own continuity: what this line lost, covered or not */
	/* a restart: the line's first record on this channel since a new
	 * session (seq_line_session) is a 1, and the channel had reached 2 or more; any
	 * other 1 is a copy or a reordered first record */
	restart = s == 1 && c->line_sess[L] != g->sess[L] && c->next > 2 && !caught_up;
	c->line_sess[L] = g->sess[L];
	ln = c->lane[L].next;
	if (ln && s > ln) {
		ls->jumps++;
		ls->missed += s - ln;
	}
	if (s >= ln || restart)
		carried_up(g, c, L, s, ln, restart);
	if (ln == 0 || restart)
		c->line_first[L] = s;

	if (restart) {
		/* a new numbering: what is still open of the old one is lost */
		uint64_t before = c->next - 1;
		for (i = 0; i < SEQ_MAX_HOLES; i++) {
			if (c->nholes == 0)
				break;
			gap(g, q, c, L, c->hole[0].first, c->hole[0].last);
			hole_remove(c, 0);
		}
		q_push(g, q, SEQ_EV_RESTART, L, c->id, 1, before);
		c->epoch++;
		c->line_epoch[L] = c->epoch;
		c->line_ok = 0; /* every other line is on the old numbering now */
		c->next = 2;
		c->low = 1;
		c->start_ns = now;
		c->restarts++;
		g->st.restarts++;
		return deliver(g, ls, c);
	}
	if (c->next == 0) {
		/* the channel's first record: its start as far as we know (a join) */
		c->next = s + 1;
		c->low = s;
		c->start_ns = now;
		return deliver(g, ls, c);
	}
	if (s == c->next) {
		c->next = s + 1;
		return deliver(g, ls, c);
	}
	if (s > c->next) {
		/* one line: a gap at once, unless its transport reorders (UDP):
		 * then the range is a hole like one between lines, a gap after
		 * wait_ns unless the line itself fills it (seq_track.h, Choices) */
		if (g->nlines <= 1 && !reorders) {
			gap(g, q, c, L, c->next, s - 1);
		} else {
			hole_insert(g, q, c, SEQ_MAX_HOLES, c->next, s - 1, now, 0);
			g->st.holes++;
		}
		c->next = s + 1;
		return deliver(g, ls, c);
	}
	if (s >= c->low) {
		for (i = 0; i < SEQ_MAX_HOLES; i++) {
			if (i >= c->nholes)
				break;
			if (s >= c->hole[i].first && s <= c->hole[i].last) {
				fill(g, q, c, i, s);
				g->st.late++;
				ls->filled++;
				c->late++;
				carried_below(g, c, L, s, ln, 1);
				return deliver(g, ls, c) | SEQ_LATE;
			}
		}
		carried_below(g, c, L, s, ln, 0);
		return dup(g, ls, c);
	}
	/* below the channel's start, within the join wait: another line that
	 * started earlier, or (one line) the first datagrams reordered. The
	 * start already went out, so this record is late: flagged and counted
	 * like a filled hole. The range between becomes a hole on one line
	 * too, not a gap at once as a forward jump there: records below the
	 * start came out of order on this very line, so its neighbours are
	 * likely still coming, and a gap declared now would make them copies
	 * (dropped) when they come microseconds later (seq_track.h, Choices). */
	if (now >= c->start_ns && now - c->start_ns < g->wait_ns) {
		if (s + 1 < c->low) {
			hole_insert(g, q, c, SEQ_MAX_HOLES, s + 1, c->low - 1, now, 0);
			g->st.holes++;
		}
		c->low = s;
		g->st.late++;
		ls->filled++;
		c->late++;
		carried_below(g, c, L, s, ln, 1);
		return deliver(g, ls, c) | SEQ_LATE;
	}
	g->st.before_start++;
	carried_below(g, c, L, s, ln, 0);
	return dup(g, ls, c);
}

void seq_line_session(struct seq_group *g, uint32_t line)
{
	uint32_t ci;
	if (line >= SEQ_MAX_LINES)
		return;
	g->sess[line]++;
	/* its next record on each channel goes the slow way (a 1 is a restart) */
	for (ci = 0; ci < SEQ_MAX_CHANNELS; ci++) {
		if (ci >= g->nchan)
			break;
		g->chan[ci].line_ok &= (uint8_t)~(1u << line);
		fast_summary(g, &g->chan[ci]);
	}
}

void seq_group_align(struct seq_group *g)
{
	uint32_t ci, L;
	for (ci = 0; ci < SEQ_MAX_CHANNELS; ci++) {
		if (ci >= g->nchan)
			break;
		for (L = 0; L < SEQ_MAX_LINES; L++) {
			uint64_t ln = g->chan[ci].lane[L].next;
			if (ln != 0 && ln >= g->win[ci][L].at)
				carried_align(&g->win[ci][L], ln);
		}
	}
}

void seq_group_sum(const struct seq_group *g, uint64_t *records, uint64_t *delivered, uint64_t *dups)
{
	uint32_t i;
	*records = 0;
	*delivered = 0;
	*dups = 0;
	for (i = 0; i < SEQ_MAX_LINES; i++) {
		*records += g->line[i].won + g->line[i].dups + g->line[i].stale;
		*delivered += g->line[i].won;
		*dups += g->line[i].dups;
	}
}

int seq_poll(struct seq_group *g, struct seq_queue *q, uint64_t now)
{
	uint32_t ci;
	for (ci = 0; ci < SEQ_MAX_CHANNELS; ci++) {
		if (ci >= g->nchan)
			break;
		if (g->chan[ci].nholes) {
			int more = expire(g, q, &g->chan[ci], now);
			fast_summary(g, &g->chan[ci]);
			if (more)
				return 1;
		}
	}
	return 0;
}

/* ---- MsgSeqNum ----------------------------------------------------------- */

void seq_msg_init(struct seq_msg *m)
{
	m->next = 0;
	m->messages = 0;
	m->jumps = 0;
	m->missing = 0;
	m->repeats = 0;
	m->restarts = 0;
	m->late = 0;
	m->nholes = 0;
}

/* Hole i out of the list (the order, oldest first, kept). */
static void msg_hole_remove(struct seq_msg *m, uint32_t i)
{
	uint32_t k;
	for (k = 0; k < SEQ_MSG_HOLES - 1; k++)
		if (k >= i && k + 1 < m->nholes)
			m->hole[k] = m->hole[k + 1];
	m->nholes--;
}

/* Hole i's range reported: counted, handed out, removed. */
static int msg_report(struct seq_msg *m, uint32_t i, uint64_t *first, uint64_t *last)
{
	*first = m->hole[i].first;
	*last = m->hole[i].last;
	m->jumps++;
	m->missing += *last - *first + 1;
	msg_hole_remove(m, i);
	return SEQ_MSG_JUMP;
}

/* s, below next, on a reordering stream: fills the hole holding it (LATE),
 * or is a REPEAT. A split with every slot taken reports the lower part. */
static int msg_fill(struct seq_msg *m, uint64_t s, uint64_t *first, uint64_t *last)
{
	uint32_t i, k;
	for (i = 0; i < SEQ_MSG_HOLES; i++) {
		struct seq_msg_hole *h = &m->hole[i];
		if (i >= m->nholes)
			break;
		if (h->old || s < h->first || s > h->last)
			continue;
		m->late++;
		if (h->first == h->last) {
			msg_hole_remove(m, i);
			return SEQ_MSG_LATE;
		}
		if (s == h->first) {
			h->first = s + 1;
			return SEQ_MSG_LATE;
		}
		if (s == h->last) {
			h->last = s - 1;
			return SEQ_MSG_LATE;
		}
		if (m->nholes == SEQ_MSG_HOLES) {
			/* no room for the upper part: the lower one is given up */
			*first = h->first;
			*last = s - 1;
			h->first = s + 1;
			m->jumps++;
			m->missing += *last - *first + 1;
			return SEQ_MSG_JUMP;
		}
		/* the upper part right after it: same age, the order kept */
		for (k = SEQ_MSG_HOLES - 1; k > 0; k--)
			if (k > i + 1 && k <= m->nholes)
				m->hole[k] = m->hole[k - 1];
		m->hole[i + 1] = *h;
		m->hole[i + 1].first = s + 1;
		h->last = s - 1;
		m->nholes++;
		return SEQ_MSG_LATE;
	}
	m->repeats++;
	return SEQ_MSG_REPEAT;
}

int seq_msg_check(struct seq_msg *m, uint64_t s, uint64_t now, uint32_t reorders, uint64_t *first,
		  uint64_t *last)
{
	uint32_t i;
	int r = SEQ_MSG_OK;
	if (s == 0)
		return SEQ_MSG_OK;
	m->messages++;
	if (m->next == 0 || s == m->next) {
		m->next = s + 1;
		return SEQ_MSG_OK;
	}
	if (s == 1 && m->next > 2) {
		/* a new logon starts again at 1: not a loss, not a repeat; what
		 * the old numbering still waits for is lost */
		*last = m->next - 1;
		m->next = 2;
		m->restarts++;
		for (i = 0; i < SEQ_MSG_HOLES; i++)
			m->hole[i].old = 1;
		return SEQ_MSG_RESTART;
	}
	if (s < m->next) {
		if (reorders)
			return msg_fill(m, s, first, last);
		m->repeats++;
		return SEQ_MSG_REPEAT;
	}
	if (!reorders) {
		*first = m->next;
		*last = s - 1;
		m->jumps++;
		m->missing += s - m->next;
		m->next = s + 1;
		return SEQ_MSG_JUMP;
	}
	if (m->nholes == SEQ_MSG_HOLES)
		r = msg_report(m, 0, first, last); /* the oldest makes room */
	m->hole[m->nholes].first = m->next;
	m->hole[m->nholes].last = s - 1;
	m->hole[m->nholes].since = now;
	m->hole[m->nholes].old = 0;
	m->hole[m->nholes].pad = 0;
	m->nholes++;
	m->next = s + 1;
	return r;
}

int seq_msg_expire(struct seq_msg *m, uint64_t now, uint64_t wait_ns, uint64_t *first, uint64_t *last)
{
	const struct seq_msg_hole *h = &m->hole[0];
	if (m->nholes == 0)
		return 0;
	if (!h->old && (now < h->since || now - h->since < wait_ns))
		return 0;
	msg_report(m, 0, first, last);
	return 1;
}

/* ---- counter tables (host tools) ----------------------------------------- */

#define SEQ_ROW(name)                    \
	if (n < cap) {                   \
		names[n] = #name;        \
		values[n] = s->name;     \
	}                                \
	n++;

uint32_t seq_group_stats_table(const struct seq_group_stats *s, const char **names, uint64_t *values,
			       uint32_t cap)
{
	uint32_t n = 0;
	SEQ_GROUP_STATS(SEQ_ROW)
	return n;
}

uint32_t seq_line_stats_table(const struct seq_line_stats *s, const char **names, uint64_t *values,
			      uint32_t cap)
{
	uint32_t n = 0;
	SEQ_LINE_STATS(SEQ_ROW)
	return n;
}
