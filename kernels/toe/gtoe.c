/* gtoe.c - general TOE: configuration, the connection table, the application API, events and options.
 *
 * The protocol itself is in gtoe_in.c (segment arrival) and gtoe_out.c
 * (what to send, timers); this file owns slots and the calls an application
 * makes. Synthesisable subset: no libc, no heap, bounded loops.
 */
#include "gtoe_priv.h"

#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MSS 2
#define TCPOPT_WS 3
#define TCPOPT_SACK_PERM 4
#define TCPOPT_SACK 5
#define TCPOPT_TS 8

void gtoe_cfg_default(struct gtoe_cfg *cfg)
{
	cfg->max_conns = GTOE_DEFAULT_CONNS;
	cfg->rcv_buf = GTOE_DEFAULT_BUF;
	cfg->snd_buf = GTOE_DEFAULT_BUF;
	cfg->max_ranges = GTOE_DEFAULT_RANGES;
	cfg->mss = GTOE_DEFAULT_MSS;
	cfg->opt_ws = 1;
	cfg->opt_sack = 1;
	cfg->opt_ts = 1;
	cfg->quickack = 0;
	cfg->pad[0] = cfg->pad[1] = cfg->pad[2] = 0;
	cfg->delack_segs = 2;
	cfg->iw_segs = GTOE_DEFAULT_IW;
	cfg->delack_ns = GTOE_DEFAULT_DELACK_NS;
	cfg->rto_init_ns = GTOE_DEFAULT_RTO_INIT_NS;
	cfg->rto_min_ns = GTOE_DEFAULT_RTO_MIN_NS;
	cfg->rto_max_ns = GTOE_DEFAULT_RTO_MAX_NS;
	cfg->msl_ns = GTOE_DEFAULT_MSL_NS;
	cfg->ka_idle_ns = GTOE_DEFAULT_KA_IDLE_NS;
	cfg->ka_intvl_ns = GTOE_DEFAULT_KA_INTVL_NS;
	cfg->ka_probes = GTOE_DEFAULT_KA_PROBES;
	cfg->syn_retries = GTOE_DEFAULT_SYN_RETRIES;
	cfg->data_retries = GTOE_DEFAULT_DATA_RETRIES;
	cfg->isn_key = 0x5eedf00du;
}

static int pow2_ok(uint32_t v)
{
	return v >= GTOE_MIN_BUF && v <= GTOE_MAX_BUF && (v & (v - 1)) == 0;
}

static void conn_clear(struct gtoe_conn *c)
{
	struct gtoe_conn z = { 0 };
	*c = z;
	c->listener = -1;
}

static void slot_free(struct gtoe *g, uint32_t ci)
{
	conn_clear(&g->conn[ci]);
	g->used[ci >> 6] &= ~(1ull << (ci & 63));
}

int gtoe_init(struct gtoe *g, const struct gtoe_cfg *cfg, uint8_t *buf, uint64_t buf_len)
{
	uint32_t i;
	struct gtoe_stats z = { 0 };
	if (cfg->max_conns == 0 || cfg->max_conns > GTOE_MAX_CONNS)
		return GTOE_ERR_CONNS;
	if (!pow2_ok(cfg->rcv_buf) || !pow2_ok(cfg->snd_buf))
		return GTOE_ERR_BUFSZ;
	if (cfg->mss < 64 || cfg->mss > 65495)
		return GTOE_ERR_MSS;
	if (cfg->max_ranges == 0 || cfg->max_ranges > GTOE_MAX_RANGES)
		return GTOE_ERR_RANGES;
	if (!buf || buf_len < GTOE_BUF_BYTES(cfg))
		return GTOE_ERR_BUF;
	g->cfg = *cfg;
	if (g->cfg.delack_segs == 0)
		g->cfg.delack_segs = 1;
	if (g->cfg.iw_segs == 0)
		g->cfg.iw_segs = 1;
	g->buf = buf;
	g->rcv_mask = cfg->rcv_buf - 1;
	g->snd_mask = cfg->snd_buf - 1;
	g->tx_next = g->ev_next = g->poll_next = 0;
	g->nrst = g->rst_head = 0;
	g->ephemeral = 0;
	g->st = z;
	for (i = 0; i < GTOE_MAX_LISTEN; i++) {
		g->listen[i].addr = 0;
		g->listen[i].port = 0;
	}
	for (i = 0; i < GTOE_MAX_CONNS; i++)
		conn_clear(&g->conn[i]);
	for (i = 0; i < GTOE_MAX_CONNS / 64; i++)
		g->used[i] = 0;
	g->last_find = 0;
	g->pad2 = 0;
	g->dir.addr = 0;
	g->dir.seq = g->dir.len = g->dir.conn = g->dir.on = 0;
	return GTOE_OK;
}

/* ---- slots ---------------------------------------------------------------- */

static int tuple_is(const struct gtoe_conn *c, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport)
{
	return c->lport == lport && c->rport == rport && c->raddr == raddr && c->laddr == laddr;
}

/* A CLOSED slot (waiting for gtoe_release) no longer owns its 4-tuple: a new
 * connection may use it meanwhile, and segments for it meet "no connection". */
int32_t gtoe_find(struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport)
{
	uint32_t i, h = g->last_find;
	if (h < g->cfg.max_conns && gtoe_slot_used(g, h) && g->conn[h].state != GTOE_CLOSED &&
	    tuple_is(&g->conn[h], laddr, lport, raddr, rport))
		return (int32_t)h;
	for (i = 0; i < GTOE_MAX_CONNS; i++) {
		if (i >= g->cfg.max_conns)
			break;
		if (gtoe_slot_used(g, i) && g->conn[i].state != GTOE_CLOSED &&
		    tuple_is(&g->conn[i], laddr, lport, raddr, rport)) {
			g->last_find = i;
			return (int32_t)i;
		}
	}
	return -1;
}

static int32_t free_slot(const struct gtoe *g)
{
	uint32_t i;
	for (i = 0; i < GTOE_MAX_CONNS; i++) {
		if (i >= g->cfg.max_conns)
			break;
		if (!gtoe_slot_used(g, i))
			return (int32_t)i;
	}
	return -1;
}

/* RFC 6528 shape: M (4 us clock) + F(4-tuple, key). F is a keyed integer mix, not a cryptographic hash. */
static uint32_t isn(const struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport,
		    uint64_t now)
{
	uint32_t h = g->cfg.isn_key;
	h ^= laddr * 0x9e3779b1u;
	h = (h << 13 | h >> 19) * 0x85ebca77u;
	h ^= raddr * 0xc2b2ae3du;
	h = (h << 11 | h >> 21) * 0x27d4eb2fu;
	h ^= ((uint32_t)lport << 16 | rport) * 0x165667b1u;
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 13;
	return h + (uint32_t)(now / 4000u);
}

/* The window scale a receive window of win bytes needs. */
uint8_t gtoe_our_ws(uint32_t win)
{
	uint8_t s = 0;
	uint32_t k;
	for (k = 0; k < 14; k++)
		if ((win >> s) > 65535u)
			s++;
	return s;
}

/* The MSS a connection offers (and sends until the peer's SYN says less), its
 * receive window, and what follows from them before the handshake: window
 * scale and initial window (RFC 6928). */
static void conn_limits(const struct gtoe *g, struct gtoe_conn *c, uint16_t mss, uint32_t win)
{
	c->our_mss = mss;
	c->mss = mss;
	c->cwnd = g->cfg.iw_segs * (uint32_t)mss;
	c->rcv_win = win;
	c->rcv_ws = g->cfg.opt_ws ? gtoe_our_ws(win) : 0;
}

int32_t gtoe_open_slot(struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport,
		       uint64_t now)
{
	int32_t ci = free_slot(g);
	struct gtoe_conn *c;
	if (ci < 0)
		return GTOE_ERR_FULL;
	c = &g->conn[ci];
	conn_clear(c);
	g->used[(uint32_t)ci >> 6] |= 1ull << ((uint32_t)ci & 63);
	c->state = GTOE_CLOSED;
	c->laddr = laddr;
	c->raddr = raddr;
	c->lport = lport;
	c->rport = rport;
	conn_limits(g, c, g->cfg.mss, g->cfg.rcv_buf);
	c->iss = isn(g, laddr, lport, raddr, rport, now);
	c->snd_una = c->snd_nxt = c->snd_max = c->iss;
	c->snd_end = c->iss + 1; /* the SYN takes one sequence number */
	c->recover = c->iss;
	c->rto = g->cfg.rto_init_ns;
	c->ssthresh = 0xffffffffu;
	c->last_rx_ns = now;
	if (g->cfg.quickack)
		c->flags |= GTOE_F_QUICKACK;
	return ci;
}

int32_t gtoe_connect(struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport, uint64_t now_ns)
{
	int32_t ci;
	uint32_t i;
	if (lport == 0) {
		for (i = 0; i < 16384; i++) {
			uint16_t p = (uint16_t)(49152u + ((g->ephemeral + i) & 16383u));
			if (gtoe_find(g, laddr, p, raddr, rport) < 0) {
				lport = p;
				g->ephemeral = (uint16_t)(g->ephemeral + i + 1);
				break;
			}
		}
		if (lport == 0)
			return GTOE_ERR_BUSY;
	} else if (gtoe_find(g, laddr, lport, raddr, rport) >= 0) {
		return GTOE_ERR_BUSY;
	}
	ci = gtoe_open_slot(g, laddr, lport, raddr, rport, now_ns);
	if (ci < 0)
		return ci;
	g->conn[ci].state = GTOE_SYN_SENT;
	g->conn[ci].flags |= GTOE_F_SYN;
	g->st.connects++;
	return ci;
}

int32_t gtoe_listen(struct gtoe *g, uint32_t laddr, uint16_t lport)
{
	uint32_t i;
	int32_t fr = -1;
	if (lport == 0)
		return GTOE_ERR_CONN;
	for (i = 0; i < GTOE_MAX_LISTEN; i++) {
		if (g->listen[i].port == lport && g->listen[i].addr == laddr)
			return GTOE_ERR_BUSY;
		if (g->listen[i].port == 0 && fr < 0)
			fr = (int32_t)i;
	}
	if (fr < 0)
		return GTOE_ERR_FULL;
	g->listen[fr].addr = laddr;
	g->listen[fr].port = lport;
	g->listen[fr].mss = 0;
	g->listen[fr].win = 0;
	return fr;
}

int32_t gtoe_limits_check(const struct gtoe_cfg *cfg, uint32_t mss, uint32_t win)
{
	if (mss && (mss < 64 || mss > cfg->mss))
		return GTOE_ERR_MSS;
	if (win && (win < GTOE_MIN_BUF || win > cfg->rcv_buf))
		return GTOE_ERR_BUFSZ;
	return GTOE_OK;
}

int32_t gtoe_set_limits(struct gtoe *g, int32_t ci, uint16_t mss, uint32_t win)
{
	struct gtoe_conn *c;
	int32_t r = gtoe_limits_check(&g->cfg, mss, win);
	if (r != GTOE_OK)
		return r;
	if (ci < 0 || (uint32_t)ci >= g->cfg.max_conns)
		return GTOE_ERR_CONN;
	c = &g->conn[ci];
	if (c->state != GTOE_SYN_SENT || c->st.segs_out != 0)
		return GTOE_ERR_CONN; /* the SYN told the peer already */
	conn_limits(g, c, mss ? mss : g->cfg.mss, win ? win : g->cfg.rcv_buf);
	return GTOE_OK;
}

int32_t gtoe_listen_limits(struct gtoe *g, int32_t l, uint16_t mss, uint32_t win)
{
	int32_t r = gtoe_limits_check(&g->cfg, mss, win);
	if (r != GTOE_OK)
		return r;
	if (l < 0 || l >= GTOE_MAX_LISTEN || g->listen[l].port == 0)
		return GTOE_ERR_CONN;
	g->listen[l].mss = mss;
	g->listen[l].win = win;
	return GTOE_OK;
}

int32_t gtoe_unlisten(struct gtoe *g, int32_t l)
{
	if (l < 0 || l >= GTOE_MAX_LISTEN || g->listen[l].port == 0)
		return GTOE_ERR_CONN;
	g->listen[l].port = 0;
	g->listen[l].addr = 0;
	g->listen[l].mss = 0;
	g->listen[l].win = 0;
	return GTOE_OK;
}

static struct gtoe_conn *conn_of(struct gtoe *g, int32_t ci)
{
	if (ci < 0 || (uint32_t)ci >= g->cfg.max_conns || g->conn[ci].state == GTOE_FREE)
		return 0;
	return &g->conn[ci];
}

/* ---- application data ------------------------------------------------------ */

uint32_t gtoe_writable(const struct gtoe *g, int32_t ci)
{
	const struct gtoe_conn *c;
	uint32_t used;
	if (ci < 0 || (uint32_t)ci >= g->cfg.max_conns || g->conn[ci].state == GTOE_FREE)
		return 0;
	c = &g->conn[ci];
	/* bytes not yet acknowledged; the SYN (before ESTABLISHED) is not in the buffer */
	used = c->snd_end - seq_max(c->snd_una, c->iss + 1);
	return g->cfg.snd_buf - used;
}

int32_t gtoe_send(struct gtoe *g, int32_t ci, const uint8_t *data, uint32_t len)
{
	struct gtoe_conn *c = conn_of(g, ci);
	uint8_t *sb;
	uint32_t n, i;
	if (!c || (c->flags & GTOE_F_FIN_Q) ||
	    (c->state != GTOE_SYN_SENT && c->state != GTOE_SYN_RCVD && c->state != GTOE_ESTABLISHED &&
	     c->state != GTOE_CLOSE_WAIT))
		return GTOE_ERR_CONN;
	n = min_u32(len, gtoe_writable(g, ci));
	sb = gtoe_sbuf(g, (uint32_t)ci);
	for (i = 0; i < GTOE_MAX_BUF; i++) {
		if (i >= n)
			break;
		sb[(c->snd_end + i) & g->snd_mask] = data[i];
	}
	c->snd_end += n;
	return (int32_t)n;
}

uint32_t gtoe_readable(const struct gtoe *g, int32_t ci)
{
	if (ci < 0 || (uint32_t)ci >= g->cfg.max_conns || g->conn[ci].state == GTOE_FREE)
		return 0;
	return gtoe_rcv_held(&g->conn[ci]);
}

uint32_t gtoe_peek(const struct gtoe *g, int32_t ci, const uint8_t **data)
{
	uint32_t n = gtoe_readable(g, ci), pos, run;
	if (n == 0) {
		*data = 0;
		return 0;
	}
#ifdef TOE_HOST_FAST
	if (g->dir.len && g->dir.conn == (uint32_t)ci) { /* still in the caller's frame (gtoe_direct_on) */
		pos = g->conn[ci].rd_seq - g->dir.seq;
		*data = (const uint8_t *)(uintptr_t)g->dir.addr + pos;
		return min_u32(n, g->dir.len - pos);
	}
#endif
	pos = g->conn[ci].rd_seq & g->rcv_mask;
	run = g->cfg.rcv_buf - pos;
	*data = g->buf + (uint64_t)ci * ((uint64_t)g->cfg.rcv_buf + g->cfg.snd_buf) + pos;
	return min_u32(n, run);
}

int32_t gtoe_consume(struct gtoe *g, int32_t ci, uint32_t n)
{
	struct gtoe_conn *c = conn_of(g, ci);
	uint32_t adv, space, thresh;
	if (!c)
		return GTOE_ERR_CONN;
	n = min_u32(n, gtoe_readable(g, ci));
	c->rd_seq += n;
#ifdef TOE_HOST_FAST
	if (g->dir.len && g->dir.conn == (uint32_t)ci && c->rd_seq - g->dir.seq >= g->dir.len)
		g->dir.len = 0; /* every byte held was read */
#endif
	/* receiver SWS avoidance: announce the window once it grew enough after a small one */
	if (n && gtoe_synced(c->state) && c->state != GTOE_TIME_WAIT) {
		adv = seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
		space = gtoe_rcv_space(g, c);
		thresh = min_u32(c->rcv_win / 2, c->mss);
		if (adv < c->rcv_win / 2 && space >= adv + thresh) {
			c->flags |= GTOE_F_ACK_NOW;
			c->st.win_updates++;
		}
	}
	return (int32_t)n;
}

int32_t gtoe_recv(struct gtoe *g, int32_t ci, uint8_t *out, uint32_t cap)
{
	uint32_t got = 0, k, i, n;
	const uint8_t *p;
	if (!conn_of(g, ci))
		return GTOE_ERR_CONN;
	for (k = 0; k < 2; k++) { /* at most two runs: the buffer wraps once */
		n = min_u32(gtoe_peek(g, ci, &p), cap - got);
		for (i = 0; i < GTOE_MAX_BUF; i++) {
			if (i >= n)
				break;
			out[got + i] = p[i];
		}
		got += n;
		gtoe_consume(g, ci, n);
		if (n == 0 || got == cap)
			break;
	}
	return (int32_t)got;
}

int32_t gtoe_shutdown(struct gtoe *g, int32_t ci)
{
	struct gtoe_conn *c = conn_of(g, ci);
	if (!c)
		return GTOE_ERR_CONN;
	if (c->flags & GTOE_F_FIN_Q)
		return GTOE_OK;
	if (c->state == GTOE_SYN_SENT) { /* nothing to close on the wire yet */
		gtoe_to_closed(g, (uint32_t)ci);
		return GTOE_OK;
	}
	if (c->state != GTOE_SYN_RCVD && c->state != GTOE_ESTABLISHED && c->state != GTOE_CLOSE_WAIT)
		return GTOE_ERR_CONN;
	c->flags |= GTOE_F_FIN_Q;
	c->fin_seq = c->snd_end;
	c->snd_end += 1; /* the FIN's sequence number */
	/* the state moves (FIN-WAIT-1 / LAST-ACK) when the FIN is sent (gtoe_out.c) */
	return GTOE_OK;
}

int32_t gtoe_abort(struct gtoe *g, int32_t ci)
{
	struct gtoe_conn *c = conn_of(g, ci);
	if (!c)
		return GTOE_ERR_CONN;
	if (c->state == GTOE_SYN_RCVD || gtoe_synced(c->state)) {
		if (c->state != GTOE_TIME_WAIT) {
			c->flags |= GTOE_F_RST; /* gtoe_tx_next sends it and closes */
			return GTOE_OK;
		}
	}
	gtoe_to_closed(g, (uint32_t)ci);
	return GTOE_OK;
}

int32_t gtoe_release(struct gtoe *g, int32_t ci)
{
	struct gtoe_conn *c = conn_of(g, ci);
	if (!c)
		return GTOE_ERR_CONN;
	/* like close(): an open connection is shut down (FIN after the queued
	 * data); what arrives from now on is acknowledged and discarded */
	if (c->state == GTOE_SYN_RCVD || c->state == GTOE_ESTABLISHED || c->state == GTOE_CLOSE_WAIT)
		gtoe_shutdown(g, ci);
	else if (c->state == GTOE_SYN_SENT)
		gtoe_to_closed(g, (uint32_t)ci);
	c->flags |= GTOE_F_RELEASED;
	c->ev = 0;
	c->rd_seq = c->rcv_nxt - ((c->flags & GTOE_F_FIN_RCVD) && seq_gt(c->rcv_nxt, c->peer_fin) ? 1u : 0u);
	/* bytes held in a frame (gtoe_direct_on) are discarded with the rest; every
	 * slot is released before it is freed, so none outlive their slot */
	if (g->dir.conn == (uint32_t)ci)
		g->dir.len = 0;
	if (c->state == GTOE_CLOSED)
		slot_free(g, (uint32_t)ci);
	return GTOE_OK;
}

int32_t gtoe_set_quickack(struct gtoe *g, int32_t ci, uint32_t on)
{
	struct gtoe_conn *c = conn_of(g, ci);
	if (!c)
		return GTOE_ERR_CONN;
	if (on)
		c->flags |= GTOE_F_QUICKACK;
	else
		c->flags &= (uint16_t)~GTOE_F_QUICKACK;
	return GTOE_OK;
}

/* ---- shared state changes -------------------------------------------------- */

void gtoe_to_closed(struct gtoe *g, uint32_t ci)
{
	struct gtoe_conn *c = &g->conn[ci];
	/* a passive open that never reached ESTABLISHED was never the application's */
	if (c->state == GTOE_SYN_RCVD && (c->flags & GTOE_F_PASSIVE))
		c->flags |= GTOE_F_RELEASED;
	c->state = GTOE_CLOSED;
	c->rto_at = c->delack_at = c->tw_at = 0;
	c->flags &= (uint16_t)(GTOE_F_RELEASED | GTOE_F_PASSIVE | GTOE_F_FIN_RCVD | GTOE_F_FIN_Q);
	if (c->flags & GTOE_F_RELEASED)
		slot_free(g, ci);
}

void gtoe_queue_rst(struct gtoe *g, const struct gtoe_seg *in, uint32_t seglen)
{
	struct gtoe_rst *r;
	if (in->flags & TCP_RST)
		return; /* never answer an RST */
	if (g->nrst >= GTOE_RST_QUEUE) {
		g->st.rst_queue_full++;
		return;
	}
	r = &g->rst[(g->rst_head + g->nrst) % GTOE_RST_QUEUE];
	g->nrst++;
	r->saddr = in->daddr;
	r->daddr = in->saddr;
	r->sport = in->dport;
	r->dport = in->sport;
	/* RFC 9293 3.10.7.1 */
	if (in->flags & TCP_ACK) {
		r->seq = in->ack;
		r->ack = 0;
		r->flags = TCP_RST;
	} else {
		r->seq = 0;
		r->ack = in->seq + seglen;
		r->flags = TCP_RST | TCP_ACK;
	}
}

void gtoe_arm_rto(struct gtoe_conn *c, uint64_t now)
{
	c->rto_at = now + c->rto;
	if (c->rto_at == 0)
		c->rto_at = 1;
}

void gtoe_rtt_sample(struct gtoe *g, struct gtoe_conn *c, uint64_t r)
{
	uint64_t d;
	if (r == 0)
		r = 1;
	if (c->srtt == 0) { /* RFC 6298 2.2 */
		c->srtt = r;
		c->rttvar = r / 2;
	} else { /* 2.3: beta 1/4, alpha 1/8 */
		d = c->srtt > r ? c->srtt - r : r - c->srtt;
		c->rttvar = (3 * c->rttvar + d) / 4;
		c->srtt = (7 * c->srtt + r) / 8;
	}
	c->rto = c->srtt + max_u64(4 * c->rttvar, 1000000u); /* G: 1 ms clock granularity */
	c->rto = max_u64(c->rto, g->cfg.rto_min_ns);
	c->rto = min_u64(c->rto, g->cfg.rto_max_ns);
	c->st.rtt_samples++;
}

void gtoe_time_wait(struct gtoe *g, struct gtoe_conn *c, uint64_t now)
{
	c->state = GTOE_TIME_WAIT;
	c->rto_at = 0;
	c->tw_at = now + 2 * g->cfg.msl_ns;
	if (c->tw_at == 0)
		c->tw_at = 1;
	c->ev |= GTOE_EVB_CLOSED;
}

/* ---- events ---------------------------------------------------------------- */

uint32_t gtoe_ev_next(struct gtoe *g, struct gtoe_event *ev)
{
	uint32_t k, ci, b;
	uint32_t covered = 0;
	ci = g->ev_next < g->cfg.max_conns ? g->ev_next : 0;
	for (k = 0; k < GTOE_MAX_CONNS; k++, covered += gtoe_scan_step(g, &ci)) {
		struct gtoe_conn *c;
		if (covered >= g->cfg.max_conns)
			break;
		if (!gtoe_slot_used(g, ci))
			continue;
		c = &g->conn[ci];
		if (c->flags & GTOE_F_RELEASED)
			c->ev = 0;
		if (c->ev == 0)
			continue;
		for (b = 0; b < 7; b++)
			if (c->ev & (1u << b))
				break;
		c->ev &= (uint8_t)~(1u << b);
		ev->type = (uint8_t)(b + 1); /* GTOE_EVB_x == 1 << (GTOE_EV_x - 1) */
		ev->reason = ev->type == GTOE_EV_ERROR ? c->err : 0;
		ev->conn = (uint16_t)ci;
		ev->listener = c->listener;
		ev->pad = 0;
		ev->len = ev->type == GTOE_EV_DATA ? gtoe_readable(g, (int32_t)ci)
			  : ev->type == GTOE_EV_WRITABLE ? gtoe_writable(g, (int32_t)ci) : 0;
		g->ev_next = c->ev ? ci : (ci + 1) % g->cfg.max_conns;
		return 1;
	}
	return 0;
}

/* ---- options ---------------------------------------------------------------- */

uint32_t gtoe_opt_build(const struct gtoe_seg *s, uint8_t *o)
{
	uint32_t n = 0, i, nsack, k;
	if (s->has_mss) {
		o[n++] = TCPOPT_MSS;
		o[n++] = 4;
		o[n++] = (uint8_t)(s->mss >> 8);
		o[n++] = (uint8_t)s->mss;
	}
	if (s->has_ts) {
		if (s->sack_ok) { /* SACK-permitted fills the two NOPs */
			o[n++] = TCPOPT_SACK_PERM;
			o[n++] = 2;
		} else {
			o[n++] = TCPOPT_NOP;
			o[n++] = TCPOPT_NOP;
		}
		o[n++] = TCPOPT_TS;
		o[n++] = 10;
		for (k = 0; k < 4; k++)
			o[n++] = (uint8_t)(s->tsval >> (24 - 8 * k));
		for (k = 0; k < 4; k++)
			o[n++] = (uint8_t)(s->tsecr >> (24 - 8 * k));
	} else if (s->sack_ok) {
		o[n++] = TCPOPT_NOP;
		o[n++] = TCPOPT_NOP;
		o[n++] = TCPOPT_SACK_PERM;
		o[n++] = 2;
	}
	if (s->has_ws) {
		o[n++] = TCPOPT_NOP;
		o[n++] = TCPOPT_WS;
		o[n++] = 3;
		o[n++] = s->ws;
	}
	nsack = min_u32(s->nsack, (GTOE_OPT_MAX - n - 4) / 8);
	nsack = min_u32(nsack, GTOE_MAX_SACK);
	if (nsack) {
		o[n++] = TCPOPT_NOP;
		o[n++] = TCPOPT_NOP;
		o[n++] = TCPOPT_SACK;
		o[n++] = (uint8_t)(2 + 8 * nsack);
		for (i = 0; i < GTOE_MAX_SACK; i++) {
			if (i >= nsack)
				break;
			for (k = 0; k < 4; k++)
				o[n++] = (uint8_t)(s->sack[i][0] >> (24 - 8 * k));
			for (k = 0; k < 4; k++)
				o[n++] = (uint8_t)(s->sack[i][1] >> (24 - 8 * k));
		}
	}
	return n;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void gtoe_opt_parse(const uint8_t *o, uint32_t len, struct gtoe_seg *s)
{
	uint32_t i = 0, k, l, kind, j;
	s->has_mss = s->has_ws = s->sack_ok = s->has_ts = 0;
	s->nsack = 0;
	for (k = 0; k < GTOE_OPT_MAX; k++) {
		if (i >= len)
			break;
		kind = o[i];
		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			break;
		l = o[i + 1];
		if (l < 2 || i + l > len)
			break; /* malformed: ignore the rest */
		if (kind == TCPOPT_MSS && l == 4) {
			s->has_mss = 1;
			s->mss = (uint16_t)(o[i + 2] << 8 | o[i + 3]);
		} else if (kind == TCPOPT_WS && l == 3) {
			s->has_ws = 1;
			s->ws = o[i + 2] > 14 ? 14 : o[i + 2]; /* RFC 7323 2.3 */
		} else if (kind == TCPOPT_SACK_PERM && l == 2) {
			s->sack_ok = 1;
		} else if (kind == TCPOPT_TS && l == 10) {
			s->has_ts = 1;
			s->tsval = get32(o + i + 2);
			s->tsecr = get32(o + i + 6);
		} else if (kind == TCPOPT_SACK && l >= 10 && (l - 2) % 8 == 0) {
			for (j = 0; j < GTOE_MAX_SACK; j++) {
				if (j >= (l - 2) / 8)
					break;
				s->sack[j][0] = get32(o + i + 2 + 8 * j);
				s->sack[j][1] = get32(o + i + 6 + 8 * j);
			}
			s->nsack = (uint8_t)j;
		}
		i += l;
	}
}

/* ---- reports --------------------------------------------------------------- */

int32_t gtoe_info(const struct gtoe *g, int32_t ci, struct gtoe_info *in)
{
	const struct gtoe_conn *c;
	if (ci < 0 || (uint32_t)ci >= g->cfg.max_conns || g->conn[ci].state == GTOE_FREE)
		return GTOE_ERR_CONN;
	c = &g->conn[ci];
	in->state = c->state;
	in->sack_ok = c->sack_ok;
	in->ts_ok = c->ts_ok;
	in->snd_ws = c->snd_ws;
	in->rcv_ws = c->rcv_ws;
	in->mss = c->mss;
	in->srtt_ns = c->srtt;
	in->rttvar_ns = c->rttvar;
	in->rto_ns = c->rto;
	in->cwnd = c->cwnd;
	in->ssthresh = c->ssthresh;
	in->snd_wnd = c->snd_wnd;
	in->rcv_wnd = gtoe_rcv_space(g, c);
	in->in_flight = gtoe_flight(c);
	in->unsent = c->snd_end - c->snd_max;
	in->readable = gtoe_readable(g, ci);
	in->st = c->st;
	return GTOE_OK;
}

const char *gtoe_state_name(uint32_t s)
{
	switch (s) {
	case GTOE_FREE: return "FREE";
	case GTOE_CLOSED: return "CLOSED";
	case GTOE_SYN_SENT: return "SYN-SENT";
	case GTOE_SYN_RCVD: return "SYN-RECEIVED";
	case GTOE_ESTABLISHED: return "ESTABLISHED";
	case GTOE_FIN_WAIT_1: return "FIN-WAIT-1";
	case GTOE_FIN_WAIT_2: return "FIN-WAIT-2";
	case GTOE_CLOSE_WAIT: return "CLOSE-WAIT";
	case GTOE_CLOSING: return "CLOSING";
	case GTOE_LAST_ACK: return "LAST-ACK";
	case GTOE_TIME_WAIT: return "TIME-WAIT";
	default: return "?";
	}
}
