/* mtoe.c - mirror TOE: receive-only TCP reassembly (see mtoe.h for the rules).
 *
 * Each connection keeps its delivery point (rcv_nxt as a 32-bit sequence
 * number and as a 64-bit stream offset) and a sorted list of out-of-order
 * ranges held in its circular buffer. Sequence numbers are turned into stream
 * offsets once, relative to rcv_nxt with serial-number arithmetic, so every
 * later comparison is on 64-bit offsets and the 2^32 wrap never matters.
 * Synthesisable subset: no libc, no heap, bounded loops, no recursion.
 */
#include "mtoe.h"

/* ---- small helpers ---------------------------------------------------- */

/* b - a as a signed distance in sequence space (RFC 1982 style). */
static int64_t seq_diff(uint32_t b, uint32_t a)
{
	uint32_t d = b - a;
	if (d < 0x80000000u)
		return (int64_t)d;
	return (int64_t)d - (int64_t)0x100000000ll;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint32_t hash_tuple(uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport)
{
	uint32_t h = saddr * 0x9e3779b1u;
	h ^= daddr * 0x85ebca77u;
	h ^= (((uint32_t)sport << 16) | dport) * 0xc2b2ae3du;
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 13;
	return h & (MTOE_HASH_SIZE - 1);
}

static uint8_t *conn_buf(struct mtoe *m, uint32_t ci)
{
	return m->buf + (uint64_t)ci * m->cfg.window;
}

/* ---- configuration ---------------------------------------------------- */

void mtoe_cfg_default(struct mtoe_cfg *cfg)
{
	uint32_t i;
	cfg->max_conns = MTOE_DEFAULT_CONNS;
	cfg->window = MTOE_DEFAULT_WINDOW;
	cfg->max_ranges = MTOE_DEFAULT_RANGES;
	cfg->nflows = 0;
	cfg->gap_timeout_ns = MTOE_DEFAULT_GAP_NS;
	cfg->idle_timeout_ns = MTOE_DEFAULT_IDLE_NS;
	cfg->linger_ns = MTOE_DEFAULT_LINGER_NS;
	cfg->ack_reorder_ns = MTOE_DEFAULT_ACK_REORDER_NS;
	cfg->ack_reorder_bytes = MTOE_DEFAULT_ACK_REORDER_BYTES;
	cfg->first_conn = 0;
	for (i = 0; i < MTOE_MAX_FLOWS; i++) {
		cfg->flows[i].ex_addr = 0;
		cfg->flows[i].peer_addr = 0;
		cfg->flows[i].ex_port = 0;
		cfg->flows[i].peer_port = 0;
		cfg->flows[i].in_port = 0;
		cfg->flows[i].pad = 0;
	}
}

/* No evidence from the reverse direction, no remembered gaps. */
static void evidence_clear(struct mtoe_conn *c)
{
	uint32_t i;
	c->peer_fin = 0;
	c->ack_seen = 0;
	c->ack_wait = 0;
	c->nlost = 0;
	c->hi_off = 0;
	c->ack_off = 0;
	c->ack_wait_ts = 0;
	c->ack_wait_lim = 0;
	for (i = 0; i < MTOE_LOST_RANGES; i++) {
		c->lost[i].start = 0;
		c->lost[i].end = 0;
	}
}

static void conn_clear(struct mtoe_conn *c)
{
	struct mtoe_conn_stats z = { 0 };
	evidence_clear(c);
	c->state = MTOE_FREE;
	c->syn_seen = 0;
	c->fin_seen = 0;
	c->peer_win_zero = 0;
	c->flow = 0;
	c->nranges = 0;
	c->saddr = 0;
	c->daddr = 0;
	c->sport = 0;
	c->dport = 0;
	c->isn = 0;
	c->start_seq = 0;
	c->nxt_seq = 0;
	c->nxt_off = 0;
	c->fin_off = 0;
	c->fin_ts = 0;
	c->last_ns = 0;
	c->st = z;
}

int mtoe_init(struct mtoe *m, const struct mtoe_cfg *cfg, uint8_t *buf, uint64_t buf_len)
{
	struct mtoe_stats z = { 0 };
	uint32_t i;
	if (cfg->max_conns == 0 || cfg->max_conns > MTOE_MAX_CONNS || cfg->first_conn > cfg->max_conns)
		return MTOE_ERR_CONNS;
	if (cfg->window < MTOE_MIN_WINDOW || cfg->window > MTOE_MAX_WINDOW ||
	    (cfg->window & (cfg->window - 1)) != 0)
		return MTOE_ERR_WINDOW;
	if (cfg->max_ranges == 0 || cfg->max_ranges > MTOE_MAX_RANGES)
		return MTOE_ERR_RANGES;
	if (cfg->nflows > MTOE_MAX_FLOWS)
		return MTOE_ERR_FLOWS;
	for (i = 0; i < MTOE_MAX_FLOWS; i++) {
		if (i >= cfg->nflows)
			break;
		if (cfg->flows[i].ex_addr == 0 && cfg->flows[i].ex_port == 0)
			return MTOE_ERR_FLOWS;
	}
	if (buf == 0 || buf_len < MTOE_BUF_BYTES(cfg->max_conns, cfg->window))
		return MTOE_ERR_BUF;
	m->cfg = *cfg;
	m->buf = buf;
	m->mask = cfg->window - 1;
	m->poll_next = 0;
	m->ev = 0;
	m->cap = 0;
	m->nev = 0;
	m->now = 0;
	m->buf_out = 0;
	m->seg_conflict = 0;
	m->buf_lo = 0;
	m->seg_conn = -1;
	m->st = z;
	for (i = 0; i < MTOE_HASH_SIZE; i++)
		m->hash[i] = 0;
	for (i = 0; i < MTOE_MAX_CONNS; i++)
		conn_clear(&m->conn[i]);
	return MTOE_OK;
}

/* ---- flow selection and connection table ------------------------------ */

/* Index of the first flow entry that selects s->d as exchange->vendor, or -1. */
static int32_t match_flow(const struct mtoe *m, uint32_t in_port, uint32_t saddr, uint16_t sport, uint32_t daddr,
			  uint16_t dport)
{
	uint32_t i;
	for (i = 0; i < MTOE_MAX_FLOWS; i++) {
		const struct mtoe_flow *f = &m->cfg.flows[i];
		if (i >= m->cfg.nflows)
			break;
		if (f->in_port == in_port && (f->ex_addr == 0 || f->ex_addr == saddr) && (f->ex_port == 0 || f->ex_port == sport) &&
		    (f->peer_addr == 0 || f->peer_addr == daddr) && (f->peer_port == 0 || f->peer_port == dport))
			return (int32_t)i;
	}
	return -1;
}

int32_t mtoe_lookup(const struct mtoe *m, uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport)
{
	return mtoe_lookup_port(m, 0, saddr, sport, daddr, dport);
}

int32_t mtoe_lookup_port(const struct mtoe *m, uint32_t in_port, uint32_t saddr, uint16_t sport, uint32_t daddr,
			 uint16_t dport)
{
	uint32_t h = hash_tuple(saddr, sport, daddr, dport);
	uint32_t k;
	for (k = 0; k < MTOE_HASH_PROBES; k++) {
		uint32_t v = m->hash[(h + k) & (MTOE_HASH_SIZE - 1)];
		const struct mtoe_conn *c;
		if (v == 0)
			return -1;
		c = &m->conn[v - 1];
		if (c->saddr == saddr && c->daddr == daddr && c->sport == sport && c->dport == dport &&
		    m->cfg.flows[c->flow & (MTOE_MAX_FLOWS - 1)].in_port == in_port)
			return (int32_t)(v - 1);
	}
	return -1;
}

static int hash_insert(struct mtoe *m, uint32_t ci)
{
	const struct mtoe_conn *c = &m->conn[ci];
	uint32_t h = hash_tuple(c->saddr, c->sport, c->daddr, c->dport);
	uint32_t k;
	for (k = 0; k < MTOE_HASH_PROBES; k++) {
		uint32_t j = (h + k) & (MTOE_HASH_SIZE - 1);
		if (m->hash[j] == 0) {
			m->hash[j] = (uint16_t)(ci + 1);
			return 0;
		}
	}
	return -1;
}

/* Linear probing with backward-shift deletion: entries after the removed one
 * move back when that keeps them reachable from their home slot. */
static void hash_remove(struct mtoe *m, uint32_t ci)
{
	const struct mtoe_conn *c = &m->conn[ci];
	uint32_t h = hash_tuple(c->saddr, c->sport, c->daddr, c->dport);
	uint32_t hole = MTOE_HASH_SIZE, start, k;
	for (k = 0; k < MTOE_HASH_PROBES; k++) {
		uint32_t j = (h + k) & (MTOE_HASH_SIZE - 1);
		if (m->hash[j] == 0)
			return;
		if (m->hash[j] == ci + 1) {
			hole = j;
			break;
		}
	}
	if (hole == MTOE_HASH_SIZE)
		return;
	m->hash[hole] = 0;
	start = hole;
	for (k = 1; k < MTOE_HASH_SIZE; k++) {
		uint32_t j = (start + k) & (MTOE_HASH_SIZE - 1);
		uint32_t v = m->hash[j];
		const struct mtoe_conn *o;
		uint32_t home;
		if (v == 0)
			break;
		o = &m->conn[v - 1];
		home = hash_tuple(o->saddr, o->sport, o->daddr, o->dport);
		/* movable when the hole lies on the probe path from home to j */
		if (((j - home) & (MTOE_HASH_SIZE - 1)) >= ((j - hole) & (MTOE_HASH_SIZE - 1))) {
			m->hash[hole] = (uint16_t)v;
			m->hash[j] = 0;
			hole = j;
		}
	}
}

static void conn_free(struct mtoe *m, uint32_t ci)
{
	hash_remove(m, ci);
	conn_clear(&m->conn[ci]);
}

/* A free slot, else the closed slot closed longest ago; -1 when all are open. */
static int32_t conn_alloc(struct mtoe *m, uint32_t saddr, uint16_t sport, uint32_t daddr, uint16_t dport)
{
	int32_t best = -1, closed = -1;
	uint32_t i;
	struct mtoe_conn *c;
	for (i = 0; i < MTOE_MAX_CONNS; i++) {
		if (i >= m->cfg.max_conns)
			break;
		if (i < m->cfg.first_conn)
			continue;
		c = &m->conn[i];
		if (c->state == MTOE_FREE) {
			best = (int32_t)i;
			break;
		}
		if (c->state == MTOE_CLOSED && (closed < 0 || c->last_ns < m->conn[closed].last_ns))
			closed = (int32_t)i;
	}
	if (best < 0 && closed >= 0) {
		conn_free(m, (uint32_t)closed);
		best = closed;
	}
	if (best < 0)
		return -1;
	c = &m->conn[best];
	c->saddr = saddr;
	c->sport = sport;
	c->daddr = daddr;
	c->dport = dport;
	if (hash_insert(m, (uint32_t)best) != 0) {
		conn_clear(c);
		return -1;
	}
	return best;
}

/* ---- events ----------------------------------------------------------- */

static void emit(struct mtoe *m, uint32_t ci, uint8_t type, uint8_t reason, uint64_t off, uint64_t len,
		 const uint8_t *data)
{
	struct mtoe_event *e;
	if (m->nev >= m->cap) {
		m->st.ev_overflow++;
		return;
	}
	e = &m->ev[m->nev++];
	e->type = type;
	e->reason = reason;
	e->conn = (uint16_t)ci;
	e->flow = m->conn[ci].flow;
	e->pad = 0;
	e->offset = off;
	e->len = len;
	e->data = data;
}

static void advance(struct mtoe_conn *c, uint64_t to)
{
	c->nxt_seq += (uint32_t)(to - c->nxt_off);
	c->nxt_off = to;
}

static void deliver_payload(struct mtoe *m, uint32_t ci, const uint8_t *p, uint64_t len)
{
	struct mtoe_conn *c = &m->conn[ci];
	emit(m, ci, MTOE_EV_DATA, 0, c->nxt_off, len, p);
	c->st.bytes += len;
	m->st.bytes += len;
	advance(c, c->nxt_off + len);
}

/* Hand out the first range from the buffer (two events if it wraps) and drop it. */
static void deliver_range0(struct mtoe *m, uint32_t ci)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint8_t *b = conn_buf(m, ci);
	uint64_t s = c->range[0].start, len = c->range[0].end - s;
	uint32_t pos = (uint32_t)(s & m->mask);
	uint64_t first = (uint64_t)m->cfg.window - pos;
	uint32_t i;
	if (!m->buf_out) {
		m->buf_out = 1;
		m->buf_lo = s;
	}
	if (len <= first) {
		emit(m, ci, MTOE_EV_DATA, 0, s, len, b + pos);
	} else {
		emit(m, ci, MTOE_EV_DATA, 0, s, first, b + pos);
		emit(m, ci, MTOE_EV_DATA, 0, s + first, len - first, b);
	}
	c->st.bytes += len;
	m->st.bytes += len;
	advance(c, c->range[0].end);
	for (i = 0; i + 1 < MTOE_MAX_RANGES; i++) {
		if (i + 1 >= c->nranges)
			break;
		c->range[i] = c->range[i + 1];
	}
	c->nranges--;
}

/* Remember [s, e) as lost, newest first, so that a late copy is counted as such. */
static void remember_lost(struct mtoe_conn *c, uint64_t s, uint64_t e)
{
	uint32_t i;
	if (c->nlost && c->lost[0].end == s) {
		c->lost[0].end = e;
		return;
	}
	for (i = MTOE_LOST_RANGES - 1; i > 0; i--)
		c->lost[i] = c->lost[i - 1];
	c->lost[0].start = s;
	c->lost[0].end = e;
	if (c->nlost < MTOE_LOST_RANGES)
		c->nlost++;
}

static void skip_to(struct mtoe *m, uint32_t ci, uint64_t to, uint8_t reason)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint64_t len = to - c->nxt_off;
	emit(m, ci, MTOE_EV_GAP, reason, c->nxt_off, len, 0);
	c->st.gaps++;
	c->st.gap_bytes += len;
	m->st.gaps++;
	m->st.gap_bytes += len;
	if (reason == TOE_GAP_ACKED) {
		c->st.ack_gaps++;
		c->st.ack_gap_bytes += len;
		m->st.ack_gaps++;
		m->st.ack_gap_bytes += len;
	} else if (reason == TOE_GAP_CLOSED) {
		c->st.close_gaps++;
		c->st.close_gap_bytes += len;
		m->st.close_gaps++;
		m->st.close_gap_bytes += len;
	}
	remember_lost(c, c->nxt_off, to);
	advance(c, to);
}

static void close_conn(struct mtoe *m, uint32_t ci, uint8_t reason)
{
	struct mtoe_conn *c = &m->conn[ci];
	emit(m, ci, MTOE_EV_CLOSE, reason, c->nxt_off, 0, 0);
	c->state = MTOE_CLOSED;
	c->nranges = 0;
	c->last_ns = m->now;
	m->st.closes++;
}

/* FIN reached: every byte before it was delivered or skipped. */
static int check_fin(struct mtoe *m, uint32_t ci)
{
	struct mtoe_conn *c = &m->conn[ci];
	if (c->state == MTOE_OPEN && c->fin_seen && c->nxt_off >= c->fin_off) {
		close_conn(m, ci, MTOE_CLOSE_FIN);
		return 1;
	}
	return 0;
}

/* (Re)start slot ci as a new stream whose offset 0 is sequence number `start`. */
static void open_conn(struct mtoe *m, uint32_t ci, uint32_t flow, uint32_t start, int syn, uint32_t isn)
{
	struct mtoe_conn *c = &m->conn[ci];
	struct mtoe_conn_stats z = { 0 };
	c->state = MTOE_OPEN;
	c->syn_seen = (uint8_t)(syn != 0);
	c->fin_seen = 0;
	c->peer_win_zero = 0;
	c->flow = (uint16_t)flow;
	c->nranges = 0;
	c->isn = syn ? isn : 0;
	c->start_seq = start;
	c->nxt_seq = start;
	c->nxt_off = 0;
	c->fin_off = 0;
	c->fin_ts = 0;
	c->last_ns = m->now;
	c->st = z;
	evidence_clear(c);
	emit(m, ci, MTOE_EV_OPEN, syn ? MTOE_OPEN_SYN : MTOE_OPEN_JOIN, 0, 0, 0);
	if (syn)
		m->st.opens++;
	else
		m->st.joins++;
}

/* ---- gap timeouts ----------------------------------------------------- */

/* Declare the holes whose oldest later byte waited gap_timeout_ns (all of
 * them when force). Returns 1 if it stopped because the event array is short. */
static int expire(struct mtoe *m, uint32_t ci, int force)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint32_t it, i;
	for (it = 0; it < MTOE_MAX_RANGES + 2; it++) {
		uint64_t hole_ts = 0;
		int have = 0;
		if (c->state != MTOE_OPEN)
			break;
		for (i = 0; i < MTOE_MAX_RANGES; i++) {
			if (i >= c->nranges)
				break;
			if (!have || c->range[i].ts < hole_ts)
				hole_ts = c->range[i].ts;
			have = 1;
		}
		if (c->fin_seen && c->fin_off > c->nxt_off && (!have || c->fin_ts < hole_ts)) {
			hole_ts = c->fin_ts;
			have = 1;
		}
		if (!have)
			break;
		if (!force) {
			if (m->cfg.gap_timeout_ns == 0 || m->now < hole_ts ||
			    m->now - hole_ts < m->cfg.gap_timeout_ns)
				break;
		}
		if (m->cap - m->nev < MTOE_POLL_EVENTS)
			return 1;
		if (c->nranges) {
			skip_to(m, ci, c->range[0].start, TOE_GAP_TIMEOUT);
			deliver_range0(m, ci);
		} else {
			skip_to(m, ci, c->fin_off, TOE_GAP_TIMEOUT);
		}
		check_fin(m, ci);
	}
	return 0;
}


/* ---- evidence from the reverse direction -------------------------------- */

/* The exchange is known to have sent every sequence number before `seq`
 * (a vendor ACK, or the sequence number of an exchange RST): keep the
 * highest such stream offset. Numbers at or behind the delivery point say
 * nothing new; numbers absurdly far ahead are not from this stream. */
static void note_sent(struct mtoe *m, uint32_t ci, uint32_t seq)
{
	struct mtoe_conn *c = &m->conn[ci];
	int64_t d = seq_diff(seq, c->nxt_seq);
	uint64_t off;
	if (d <= 0)
		return;
	if (d > (int64_t)MTOE_MAX_AHEAD) {
		c->st.bad_acks++;
		m->st.bad_acks++;
		return;
	}
	off = c->nxt_off + (uint64_t)d;
	if (!c->ack_seen || off > c->ack_off) {
		c->ack_off = off;
		c->ack_seen = 1;
	}
}

/* Whether the highest acknowledged sequence number lies beyond every data
 * byte seen and no FIN was seen: it may be the exchange's FIN (a FIN takes
 * one sequence number and no stream byte), so it is held back. */
static int ack_top_unsure(const struct mtoe_conn *c)
{
	return c->ack_seen && !c->fin_seen && c->ack_off > c->hi_off && c->ack_off > c->nxt_off;
}

/* Stream offset below which the evidence proves every byte was sent. */
static uint64_t ack_limit(const struct mtoe_conn *c)
{
	if (!c->ack_seen)
		return 0;
	if (c->fin_seen)
		return min_u64(c->ack_off, c->fin_off);
	if (ack_top_unsure(c))
		return c->ack_off - 1;
	return c->ack_off;
}

/* Bytes of [delivery point, lim) the buffer does not hold. */
static uint64_t missing_below(const struct mtoe_conn *c, uint64_t lim)
{
	uint64_t miss;
	uint32_t i;
	if (lim <= c->nxt_off)
		return 0;
	miss = lim - c->nxt_off;
	for (i = 0; i < MTOE_MAX_RANGES; i++) {
		uint64_t e;
		if (i >= c->nranges || c->range[i].start >= lim)
			break;
		e = min_u64(c->range[i].end, lim);
		miss -= e - c->range[i].start;
	}
	return miss;
}

/* Every byte before lim that the buffer does not hold becomes a gap
 * (reason), the held ranges starting before lim are delivered. Returns 1
 * when it stopped because the event array is short (mtoe_poll resumes). */
static int give_up_to(struct mtoe *m, uint32_t ci, uint64_t lim, uint8_t reason)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint32_t it;
	for (it = 0; it < 2 * MTOE_MAX_RANGES + 2; it++) {
		if (c->state != MTOE_OPEN)
			break;
		if (c->nranges && c->range[0].start <= c->nxt_off) {
			/* a range the last gap made contiguous */
			if (m->cap - m->nev < MTOE_POLL_EVENTS)
				return 1;
			deliver_range0(m, ci);
			continue;
		}
		if (c->nxt_off >= lim)
			break;
		if (m->cap - m->nev < MTOE_POLL_EVENTS)
			return 1;
		skip_to(m, ci, c->nranges && c->range[0].start < lim ? c->range[0].start : lim, reason);
	}
	return 0;
}

/* Both FINs: the vendor sent its FIN and acknowledged one sequence number
 * beyond every data byte, and every byte before it was delivered or is a
 * gap: that number is the exchange's FIN the mirror missed. */
static int check_end(struct mtoe *m, uint32_t ci)
{
	struct mtoe_conn *c = &m->conn[ci];
	if (c->state == MTOE_OPEN && c->peer_fin && ack_top_unsure(c) && c->nxt_off + 1 >= c->ack_off) {
		c->st.fin_inferred++;
		m->st.fin_inferred++;
		close_conn(m, ci, MTOE_CLOSE_FIN);
		return 1;
	}
	return 0;
}

/* End of the hole that lim lies in (lim itself when a held range starts at
 * or covers it), at most cap. */
static uint64_t hole_end(const struct mtoe_conn *c, uint64_t lim, uint64_t cap)
{
	uint32_t i;
	for (i = 0; i < MTOE_MAX_RANGES; i++) {
		if (i >= c->nranges)
			break;
		if (c->range[i].end <= lim)
			continue;
		if (c->range[i].start <= lim)
			return lim;
		return min_u64(cap, c->range[i].start);
	}
	return cap;
}

/* Acknowledged bytes the mirror has not shown (see "Reverse direction" in
 * mtoe.h): a gap at once when more than ack_reorder_bytes are missing (or
 * ack_reorder_ns is 0), else once the oldest of them waited ack_reorder_ns.
 * The wait covers what was acknowledged when it began, and the rest of the
 * hole that ends in (bytes lost together, acknowledged a little later);
 * bytes beyond start a new wait. Returns 1 when the event array is short. */
static int ack_check(struct mtoe *m, uint32_t ci)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint32_t it;
	for (it = 0; it < 3; it++) {
		uint64_t lim, miss;
		if (c->state != MTOE_OPEN) {
			c->ack_wait = 0;
			return 0;
		}
		lim = ack_limit(c);
		miss = missing_below(c, lim);
		if (miss == 0) {
			c->ack_wait = 0;
			check_fin(m, ci);
			check_end(m, ci);
			return 0;
		}
		if (!c->ack_wait) {
			c->ack_wait = 1;
			c->ack_wait_ts = m->now;
			c->ack_wait_lim = c->ack_off;
		}
		if (m->cfg.ack_reorder_ns == 0 || (m->cfg.ack_reorder_bytes && miss > m->cfg.ack_reorder_bytes)) {
			/* at once: the data cannot still be on its way in any plausible reordering */
		} else if (m->now >= c->ack_wait_ts && m->now - c->ack_wait_ts >= m->cfg.ack_reorder_ns) {
			lim = hole_end(c, min_u64(lim, c->ack_wait_lim), lim);
		} else {
			return 0;
		}
		if (give_up_to(m, ci, lim, TOE_GAP_ACKED))
			return 1;
		c->ack_wait = 0;
		if (check_fin(m, ci) || check_end(m, ci))
			return 0;
	}
	return 0;
}

/* The stream ends without its FIN reached (RST, idle): every byte up to the
 * best evidence of what the exchange sent (highest byte seen, FIN, ACK or
 * RST number) is delivered or a gap: holes before held data or a seen FIN
 * are hole_reason, the rest TOE_GAP_CLOSED. An unsure last acknowledged
 * number (ack_top_unsure) is the exchange's FIN when the vendor sent its FIN
 * too (counted in fin_inferred), else a data byte: when in doubt, a gap one
 * byte too long rather than a byte lost without a gap. Returns 1 when the
 * event array is short (mtoe_poll resumes). */
static int flush_end(struct mtoe *m, uint32_t ci, uint8_t hole_reason)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint64_t held = c->nranges ? c->range[c->nranges - 1].end : 0, end;
	if (c->fin_seen)
		held = max_u64(held, c->fin_off);
	end = max_u64(held, c->hi_off);
	if (ack_top_unsure(c) && !c->peer_fin)
		end = max_u64(end, c->ack_off);
	else
		end = max_u64(end, ack_limit(c));
	if (give_up_to(m, ci, held, hole_reason))
		return 1;
	if (give_up_to(m, ci, end, TOE_GAP_CLOSED))
		return 1;
	if (c->state == MTOE_OPEN && ack_top_unsure(c) && c->nxt_off + 1 == c->ack_off) {
		c->st.fin_inferred++;
		m->st.fin_inferred++;
	}
	return 0;
}

/* ---- data ------------------------------------------------------------- */

/* Compare held buffer bytes [off, off+n) with p; count the differing ones. */
static void compare_held(struct mtoe *m, uint32_t ci, const uint8_t *p, uint64_t off, uint64_t n)
{
	struct mtoe_conn *c = &m->conn[ci];
	const uint8_t *b = conn_buf(m, ci);
	uint64_t diff = 0;
	uint32_t i;
	for (i = 0; i < MTOE_MAX_WINDOW; i++) {
		if (i >= n)
			break;
		if (b[(off + i) & m->mask] != p[i])
			diff++;
	}
	c->st.dup_bytes += n;
	if (diff) {
		c->st.conflict_bytes += diff;
		m->seg_conflict = 1;
	}
}

static void write_buf(struct mtoe *m, uint32_t ci, const uint8_t *p, uint64_t off, uint64_t n)
{
	uint8_t *b = conn_buf(m, ci);
	uint32_t i;
	for (i = 0; i < MTOE_MAX_WINDOW; i++) {
		if (i >= n)
			break;
		b[(off + i) & m->mask] = p[i];
	}
}

/* Segment bytes [s, e) (p = byte s) start at or before the delivery point:
 * deliver them from the payload, except where the buffer already holds a
 * range (first copy wins), and every range that becomes contiguous. */
static void in_order(struct mtoe *m, uint32_t ci, const uint8_t *p, uint64_t s, uint64_t e)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint32_t it;
	c->st.in_order++;
	for (it = 0; it < 2 * MTOE_MAX_RANGES + 2; it++) {
		uint64_t n = c->nxt_off;
		if (c->nranges && c->range[0].start <= n) {
			if (e > n) {
				uint64_t oe = min_u64(e, c->range[0].end);
				compare_held(m, ci, p + (n - s), n, oe - n);
			}
			deliver_range0(m, ci);
			continue;
		}
		if (e > n) {
			uint64_t le = e;
			if (c->nranges && c->range[0].start < le)
				le = c->range[0].start;
			deliver_payload(m, ci, p + (n - s), le - n);
			continue;
		}
		break;
	}
}

/* Segment bytes [s, e) (p = byte s) lie beyond the delivery point: store the
 * bytes no range holds yet, compare the others, merge the range list. */
/* Whether [s, e) overlaps or adjoins a held range. */
static int touches_range(const struct mtoe_conn *c, uint64_t s, uint64_t e)
{
	uint32_t i;
	for (i = 0; i < MTOE_MAX_RANGES; i++) {
		if (i >= c->nranges)
			break;
		if (c->range[i].start <= e && c->range[i].end >= s)
			return 1;
	}
	return 0;
}

static void store(struct mtoe *m, uint32_t ci, const uint8_t *p, uint64_t s, uint64_t e)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint64_t limit, pos, newb = 0, ns, ne, ts;
	uint32_t first = 0, last, i, n, touch;

	/* The range list is full and this segment, beyond the first hole, needs
	 * a range of its own. Dropping it would make a hole of its own (on a
	 * mirror, lost copies are never sent again), and under steady loss one
	 * lost segment would cost every segment after it. Give up the oldest
	 * hole instead: it becomes a gap, the range after it is delivered, and
	 * the segment takes the freed slot. */
	if (c->nranges >= m->cfg.max_ranges && c->nranges > 0 && s > c->range[0].end &&
	    !touches_range(c, s, e)) {
		skip_to(m, ci, c->range[0].start, TOE_GAP_WINDOW);
		deliver_range0(m, ci);
		c->st.range_evictions++;
	}
	limit = (m->buf_out ? m->buf_lo : c->nxt_off) + m->cfg.window;
	n = c->nranges;
	if (e > limit) {
		uint64_t from = max_u64(s, limit);
		c->st.window_drops++;
		c->st.window_drop_bytes += e - from;
		e = from;
		if (e <= s)
			return;
	}
	/* ranges [first, last) touch [s, e) (overlap or adjacency) */
	for (i = 0; i < MTOE_MAX_RANGES; i++) {
		if (i >= n || c->range[i].end >= s)
			break;
		first++;
	}
	last = first;
	for (i = 0; i < MTOE_MAX_RANGES; i++) {
		if (last >= n || c->range[last].start > e)
			break;
		last++;
	}
	touch = last - first;
	if (touch == 0 && n >= m->cfg.max_ranges) {
		c->st.range_full++;
		return;
	}
	pos = s;
	for (i = 0; i < MTOE_MAX_RANGES; i++) {
		const struct mtoe_range *r;
		uint64_t oe;
		if (first + i >= last)
			break;
		r = &c->range[first + i];
		if (pos < r->start) {
			write_buf(m, ci, p + (pos - s), pos, r->start - pos);
			newb += r->start - pos;
			pos = r->start;
		}
		oe = min_u64(e, r->end);
		if (pos < oe) {
			compare_held(m, ci, p + (pos - s), pos, oe - pos);
			pos = oe;
		}
	}
	if (pos < e) {
		write_buf(m, ci, p + (pos - s), pos, e - pos);
		newb += e - pos;
	}
	if (newb)
		c->st.out_of_order++;
	else
		c->st.duplicates++;
	if (touch == 0) {
		for (i = MTOE_MAX_RANGES - 1; i > 0; i--) {
			if (i <= first)
				break;
			if (i <= n)
				c->range[i] = c->range[i - 1];
		}
		c->range[first].start = s;
		c->range[first].end = e;
		c->range[first].ts = m->now;
		c->nranges++;
		return;
	}
	ns = min_u64(s, c->range[first].start);
	ne = max_u64(e, c->range[last - 1].end);
	ts = m->now;
	for (i = 0; i < MTOE_MAX_RANGES; i++) {
		if (first + i >= last)
			break;
		ts = min_u64(ts, c->range[first + i].ts);
	}
	c->range[first].start = ns;
	c->range[first].end = ne;
	c->range[first].ts = ts;
	for (i = 0; i < MTOE_MAX_RANGES; i++) {
		if (last + i >= n)
			break;
		c->range[first + 1 + i] = c->range[last + i];
	}
	c->nranges = (uint16_t)(n - (touch - 1));
}

/* Keep the last quarter of the window free for the segments that follow:
 * while held data reaches beyond delivery point + 3/4 window, the hole in
 * front is lost (TOE_GAP_WINDOW). Doing it after the store, when the space
 * is needed by the next call rather than this one, avoids dropping bytes
 * that would land in space handed out during the same call. */
static void press(struct mtoe *m, uint32_t ci)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint64_t lim = m->cfg.window - (m->cfg.window >> MTOE_SLACK_SHIFT);
	uint32_t it;
	for (it = 0; it < MTOE_MAX_RANGES; it++) {
		if (c->nranges == 0 || c->range[c->nranges - 1].end <= c->nxt_off + lim)
			break;
		skip_to(m, ci, c->range[0].start, TOE_GAP_WINDOW);
		deliver_range0(m, ci);
	}
}

/* Bytes [s, e) behind the delivery point arrived again: those inside a
 * remembered gap are late (dropped, counted), the rest duplicates. */
static void count_behind(struct mtoe_conn *c, uint64_t s, uint64_t e)
{
	uint64_t late = 0;
	uint32_t i;
	for (i = 0; i < MTOE_LOST_RANGES; i++) {
		uint64_t a, b;
		if (i >= c->nlost)
			break;
		a = max_u64(s, c->lost[i].start);
		b = min_u64(e, c->lost[i].end);
		if (a < b)
			late += b - a;
	}
	if (late) {
		c->st.late_segs++;
		c->st.late_bytes += late;
	}
	c->st.dup_bytes += (e - s) - late;
}

/* Payload and FIN of a forward segment on an open connection; seq is the
 * sequence number of p[0]. */
static void seg_data(struct mtoe *m, uint32_t ci, uint32_t seq, const uint8_t *p, uint32_t len, int fin)
{
	struct mtoe_conn *c = &m->conn[ci];
	int64_t rs = seq_diff(seq, c->nxt_seq);
	int64_t re = rs + (int64_t)len;
	uint64_t s, e, late_before = c->st.late_bytes;
	uint32_t it;
	m->seg_conflict = 0;
	if (fin && !c->fin_seen) {
		c->fin_seen = 1;
		c->fin_ts = m->now;
		c->fin_off = c->nxt_off + (re > 0 ? (uint64_t)re : 0);
	}
	if (c->fin_seen) {
		int64_t lim = (int64_t)(c->fin_off - c->nxt_off);
		if (re > lim) {
			int64_t from = rs > lim ? rs : lim;
			c->st.after_fin_bytes += (uint64_t)(re - from);
			re = from;
		}
	}
	if (re <= rs)
		goto done;
	if (re > 0)
		c->hi_off = max_u64(c->hi_off, c->nxt_off + (uint64_t)re);
	if (rs < 0) {
		/* bytes behind the delivery point (the stream starts at offset 0) */
		uint64_t back = (uint64_t)(-rs), fwd, bs, be, late_segs = c->st.late_segs;
		bs = back > c->nxt_off ? 0 : c->nxt_off - back;
		be = c->nxt_off;
		if (re <= 0) {
			fwd = (uint64_t)(-re);
			be = fwd > c->nxt_off ? 0 : c->nxt_off - fwd;
		}
		if (bs < be)
			count_behind(c, bs, be);
		if (re <= 0) {
			if (c->st.late_segs == late_segs)
				c->st.duplicates++;
			goto done;
		}
		p += -rs;
		rs = 0;
	}
	s = c->nxt_off + (uint64_t)rs;
	e = c->nxt_off + (uint64_t)re;
	if (s > c->nxt_off && e > c->nxt_off + m->cfg.window) {
		/* a hole blocks a full window: skip holes, oldest first */
		c->st.beyond_window++;
		for (it = 0; it < MTOE_MAX_RANGES; it++) {
			if (c->nranges == 0 || s <= c->nxt_off || e <= c->nxt_off + m->cfg.window)
				break;
			skip_to(m, ci, c->range[0].start, TOE_GAP_WINDOW);
			deliver_range0(m, ci);
		}
		if (s > c->nxt_off && e > c->nxt_off + m->cfg.window)
			skip_to(m, ci, s, TOE_GAP_WINDOW);
	}
	if (s <= c->nxt_off) {
		if (s < c->nxt_off) {
			/* skipped for the window: those bytes were delivered from the buffer */
			c->st.dup_bytes += c->nxt_off - s;
			p += c->nxt_off - s;
			s = c->nxt_off;
		}
		in_order(m, ci, p, s, e);
	} else {
		store(m, ci, p, s, e);
		press(m, ci);
	}
	if (m->seg_conflict)
		c->st.conflicts++;
done:
	m->st.late_bytes += c->st.late_bytes - late_before;
	if (check_fin(m, ci))
		return;
	expire(m, ci, 0);
	ack_check(m, ci);
}

/* ---- segments --------------------------------------------------------- */

static void begin(struct mtoe *m, struct mtoe_event *ev, uint32_t cap, uint64_t now)
{
	m->ev = ev;
	m->cap = cap;
	m->nev = 0;
	m->now = now;
	m->buf_out = 0;
	m->buf_lo = 0;
	m->seg_conflict = 0;
	m->seg_conn = -1;
}

static void reverse_seg(struct mtoe *m, uint32_t ci, const struct net_pkt *pkt)
{
	struct mtoe_conn *c = &m->conn[ci];
	c->st.reverse++;
	m->st.reverse++;
	if (c->state != MTOE_OPEN)
		return;
	c->last_ns = m->now;
	if (pkt->tcp_flags & TCP_ACK)
		note_sent(m, ci, pkt->ack);
	if (pkt->tcp_flags & TCP_RST) {
		flush_end(m, ci, TOE_GAP_CLOSED);
		if (c->state == MTOE_OPEN)
			close_conn(m, ci, MTOE_CLOSE_PEER_RST);
		return;
	}
	if (pkt->tcp_flags & TCP_ACK)
		c->peer_win_zero = (uint8_t)(pkt->win == 0);
	if (pkt->tcp_flags & TCP_FIN)
		c->peer_fin = 1;
	ack_check(m, ci);
}

static void known_seg(struct mtoe *m, uint32_t ci, const struct net_pkt *pkt)
{
	struct mtoe_conn *c = &m->conn[ci];
	uint8_t fl = pkt->tcp_flags;
	uint32_t seq = pkt->seq;
	if (c->state == MTOE_CLOSED) {
		if ((fl & TCP_SYN) && !(fl & TCP_RST) && (!c->syn_seen || seq != c->isn)) {
			open_conn(m, ci, c->flow, seq + 1, 1, seq);
			c->last_ns = m->now;
			c->st.segments++;
			seg_data(m, ci, seq + 1, pkt->payload, pkt->payload_len, fl & TCP_FIN);
			return;
		}
		c->st.after_close++;
		m->st.after_close++;
		return;
	}
	c->st.segments++;
	c->last_ns = m->now;
	if (fl & TCP_RST) {
		/* its sequence number is the exchange's snd_nxt: what it sent */
		note_sent(m, ci, seq);
		flush_end(m, ci, TOE_GAP_CLOSED);
		if (c->state == MTOE_OPEN)
			close_conn(m, ci, MTOE_CLOSE_RST);
		return;
	}
	if (fl & TCP_SYN) {
		if (c->syn_seen && seq == c->isn) {
			c->st.syn_retrans++;
			return;
		}
		if (!c->syn_seen && seq + 1 == c->start_seq) {
			/* the SYN of the stream we joined: nothing to reset */
			c->syn_seen = 1;
			c->isn = seq;
			return;
		}
		/* the old stream ends: what it is known to have sent is delivered or a gap */
		flush_end(m, ci, TOE_GAP_CLOSED);
		close_conn(m, ci, MTOE_CLOSE_REPLACED);
		open_conn(m, ci, c->flow, seq + 1, 1, seq);
		m->st.restarts++;
		c->st.segments++;
		seg_data(m, ci, seq + 1, pkt->payload, pkt->payload_len, fl & TCP_FIN);
		return;
	}
	if (!(fl & TCP_FIN) && pkt->payload_len <= 1 && seq == c->nxt_seq - 1) {
		if (c->peer_win_zero)
			c->st.zero_window_probes++;
		else
			c->st.keepalives++;
		expire(m, ci, 0);
		ack_check(m, ci);
		return;
	}
	if (!(fl & TCP_FIN) && pkt->payload_len == 1 && seq == c->nxt_seq && c->peer_win_zero)
		c->st.zero_window_probes++;
	seg_data(m, ci, seq, pkt->payload, pkt->payload_len, fl & TCP_FIN);
}

uint32_t mtoe_segment(struct mtoe *m, const struct net_pkt *pkt, struct mtoe_event *ev, uint32_t cap)
{
	int32_t ci, f;
	uint8_t fl = pkt->tcp_flags;
	begin(m, ev, cap, pkt->ts_ns);
	m->st.packets++;
	if (cap < MTOE_SEG_EVENTS) {
		m->st.ev_short++;
		return 0;
	}
	if (pkt->l4proto != NET_PROTO_TCP) {
		m->st.not_tcp++;
		return 0;
	}
	ci = mtoe_lookup_port(m, pkt->in_port, pkt->saddr, pkt->sport, pkt->daddr, pkt->dport);
	if (ci >= 0) {
		m->seg_conn = ci;
		known_seg(m, (uint32_t)ci, pkt);
		return m->nev;
	}
	ci = mtoe_lookup_port(m, pkt->in_port, pkt->daddr, pkt->dport, pkt->saddr, pkt->sport);
	if (ci >= 0) {
		m->seg_conn = ci;
		reverse_seg(m, (uint32_t)ci, pkt);
		return m->nev;
	}
	f = match_flow(m, pkt->in_port, pkt->saddr, pkt->sport, pkt->daddr, pkt->dport);
	if (f < 0) {
		if (match_flow(m, pkt->in_port, pkt->daddr, pkt->dport, pkt->saddr, pkt->sport) >= 0)
			m->st.reverse++;
		else
			m->st.not_followed++;
		return 0;
	}
	if ((fl & TCP_RST) || (!(fl & TCP_SYN) && pkt->payload_len == 0)) {
		m->st.no_conn++;
		return 0;
	}
	ci = conn_alloc(m, pkt->saddr, pkt->sport, pkt->daddr, pkt->dport);
	if (ci < 0) {
		m->st.no_slot++;
		return 0;
	}
	m->seg_conn = ci;
	if (fl & TCP_SYN) {
		open_conn(m, (uint32_t)ci, (uint32_t)f, pkt->seq + 1, 1, pkt->seq);
		m->conn[ci].st.segments++;
		seg_data(m, (uint32_t)ci, pkt->seq + 1, pkt->payload, pkt->payload_len, fl & TCP_FIN);
	} else {
		open_conn(m, (uint32_t)ci, (uint32_t)f, pkt->seq, 0, 0);
		m->conn[ci].st.segments++;
		seg_data(m, (uint32_t)ci, pkt->seq, pkt->payload, pkt->payload_len, fl & TCP_FIN);
	}
	return m->nev;
}

/* ---- timers ----------------------------------------------------------- */

uint32_t mtoe_poll(struct mtoe *m, uint64_t now_ns, struct mtoe_event *ev, uint32_t cap)
{
	uint32_t k;
	begin(m, ev, cap, now_ns);
	if (cap < MTOE_POLL_EVENTS) {
		m->st.ev_short++;
		return 0;
	}
	if (m->poll_next >= m->cfg.max_conns)
		m->poll_next = 0;
	for (k = 0; k < MTOE_MAX_CONNS; k++) {
		uint32_t ci = m->poll_next;
		struct mtoe_conn *c = &m->conn[ci];
		if (k >= m->cfg.max_conns)
			break;
		if (c->state == MTOE_OPEN) {
			int idle = m->cfg.idle_timeout_ns != 0 && now_ns >= c->last_ns &&
				   now_ns - c->last_ns >= m->cfg.idle_timeout_ns;
			if (ack_check(m, ci))
				return m->nev;
			if (!idle && c->state == MTOE_OPEN && expire(m, ci, 0))
				return m->nev;
			if (idle && c->state == MTOE_OPEN) {
				/* holes before held data or a seen FIN stay TOE_GAP_TIMEOUT, as when they expire */
				if (flush_end(m, ci, TOE_GAP_TIMEOUT))
					return m->nev;
				if (m->cap - m->nev < 1)
					return m->nev;
				if (check_fin(m, ci))
					idle = 0; /* the FIN was reached: closed, the slot lingers */
			}
			if (idle && c->state == MTOE_OPEN) {
				if (m->cap - m->nev < 1)
					return m->nev;
				close_conn(m, ci, MTOE_CLOSE_IDLE);
				conn_free(m, ci);
			}
		}
		if (c->state == MTOE_CLOSED && now_ns >= c->last_ns && now_ns - c->last_ns >= m->cfg.linger_ns)
			conn_free(m, ci);
		m->poll_next = ci + 1 >= m->cfg.max_conns ? 0 : ci + 1;
	}
	return m->nev;
}
