/* gtoe_out.c - general TOE: what to send next (gtoe_tx_next) and the timers (gtoe_poll). See gtoe.h.
 *
 * Per connection, in priority order: a pending RST, our SYN or SYN-ACK, one
 * retransmitted segment at snd_una (fast retransmit, NewReno partial ACK,
 * RTO), in recovery the next hole the peer's SACK blocks show, data from
 * snd_nxt within min(cwnd, peer window) (after an RTO snd_nxt is
 * back at snd_una: go-back-N), our FIN, a probe (zero window, keepalive),
 * and finally a pure ACK when one is due. Every segment but the first SYN
 * carries the current ACK and window, so any of them settles a due ACK.
 * Synthesisable subset.
 */
#include "gtoe_priv.h"

#define TS_OPT_BYTES 12u

static void seg_init(struct gtoe_seg *s, const struct gtoe_conn *c, int32_t ci)
{
	uint32_t i;
	s->saddr = c->laddr;
	s->daddr = c->raddr;
	s->sport = c->lport;
	s->dport = c->rport;
	s->seq = c->snd_nxt;
	s->ack = 0;
	s->win = 0;
	s->flags = 0;
	s->nsack = 0;
	s->conn = ci;
	s->has_mss = s->has_ws = s->sack_ok = s->has_ts = 0;
	s->mss = 0;
	s->ws = 0;
	s->pad = 0;
	s->tsval = s->tsecr = 0;
	for (i = 0; i < GTOE_MAX_SACK; i++)
		s->sack[i][0] = s->sack[i][1] = 0;
	s->data[0] = s->data[1] = 0;
	s->len[0] = s->len[1] = 0;
}

/* SACK blocks: the ranges most recently changed first (RFC 2018 section 4). */
static void sack_fill(struct gtoe_conn *c, struct gtoe_seg *s)
{
	uint32_t k, i, best, nmax = c->ts_ok ? 3u : 4u, taken = 0, bi;
	for (k = 0; k < GTOE_MAX_SACK; k++) {
		if (k >= nmax || k >= c->nranges)
			break;
		best = 0;
		bi = GTOE_MAX_RANGES;
		for (i = 0; i < GTOE_MAX_RANGES; i++) {
			if (i >= c->nranges)
				break;
			if (!(taken & (1u << i)) && c->range[i].age >= best) {
				best = c->range[i].age;
				bi = i;
			}
		}
		if (bi == GTOE_MAX_RANGES)
			break;
		taken |= 1u << bi;
		s->sack[k][0] = c->range[bi].start;
		s->sack[k][1] = c->range[bi].end;
		s->nsack = (uint8_t)(k + 1);
	}
	if (s->nsack)
		c->st.sacks_out++;
}

/* ACK, window, timestamps and SACK of a segment; settles a due ACK. */
static void seg_ack(struct gtoe *g, struct gtoe_conn *c, struct gtoe_seg *s, uint64_t now)
{
	uint32_t space = gtoe_rcv_space(g, c), w;
	s->flags |= TCP_ACK;
	s->ack = c->rcv_nxt;
	w = space >> c->rcv_ws;
	if (w > 65535u)
		w = 65535u;
	if (s->flags & TCP_SYN) /* never scaled in a SYN (RFC 7323 2.2) */
		w = min_u32(space, 65535u);
	s->win = (uint16_t)w;
	if (w == 0 && c->rcv_adv != c->last_ack_sent) /* the window closes now (it was open) */
		c->st.zero_win_out++;
	if (!(s->flags & TCP_SYN))
		c->rcv_adv = c->rcv_nxt + (w << c->rcv_ws);
	else
		c->rcv_adv = c->rcv_nxt + w;
	c->last_ack_sent = c->rcv_nxt;
	if (c->ts_ok) {
		s->has_ts = 1;
		s->tsval = gtoe_ts_now(now);
		s->tsecr = c->ts_recent;
	}
	if (c->sack_ok && c->nranges && !(s->flags & TCP_SYN))
		sack_fill(c, s);
	c->flags &= (uint16_t)~GTOE_F_ACK_NOW;
	c->delack_at = 0;
	c->unacked_segs = 0;
}

/* Payload [seq, seq+len) of the send buffer as one or two slices. */
static void seg_payload(struct gtoe *g, uint32_t ci, struct gtoe_seg *s, uint32_t seq, uint32_t len)
{
	uint8_t *sb = gtoe_sbuf(g, ci);
	uint32_t pos = seq & g->snd_mask, run = g->cfg.snd_buf - pos;
	s->data[0] = sb + pos;
	s->len[0] = min_u32(len, run);
	if (len > run) {
		s->data[1] = sb;
		s->len[1] = len - run;
	}
}

static void sent(struct gtoe *g, struct gtoe_conn *c)
{
	c->st.segs_out++;
	g->st.out_segs++;
}

/* Our SYN (SYN-SENT) or SYN-ACK (SYN-RECEIVED). */
static void tx_syn(struct gtoe *g, struct gtoe_conn *c, int32_t ci, struct gtoe_seg *s, uint64_t now)
{
	int active = c->state == GTOE_SYN_SENT;
	seg_init(s, c, ci);
	s->seq = c->iss;
	s->flags = TCP_SYN;
	s->has_mss = 1;
	s->mss = c->our_mss;
	/* a SYN offers what we are configured for; a SYN-ACK only what the peer offered */
	if (active ? g->cfg.opt_ws : c->ws_ok) {
		s->has_ws = 1;
		s->ws = gtoe_our_ws(c->rcv_win);
	}
	s->sack_ok = active ? g->cfg.opt_sack : c->sack_ok;
	if (active ? g->cfg.opt_ts : c->ts_ok) {
		s->has_ts = 1;
		s->tsval = gtoe_ts_now(now);
		s->tsecr = 0;
	}
	if (active) {
		s->win = (uint16_t)min_u32(c->rcv_win, 65535u);
	} else {
		seg_ack(g, c, s, now);
		if (!c->ts_ok)
			s->has_ts = 0;
		s->tsecr = c->ts_recent;
	}
	if (c->snd_max == c->iss) { /* first transmission: time it (Karn: never a retransmission) */
		c->rtt_seq = c->iss;
		c->rtt_ts = now;
		c->flags |= GTOE_F_TIMING;
	}
	c->snd_nxt = c->iss + 1;
	c->snd_max = seq_max(c->snd_max, c->iss + 1);
	if (c->rto_at == 0)
		gtoe_arm_rto(c, now);
	c->flags &= (uint16_t)~GTOE_F_SYN;
	sent(g, c);
}

/* Data (and FIN) from seq; returns its sequence length, 0 when nothing fits. */
static uint32_t tx_data(struct gtoe *g, struct gtoe_conn *c, int32_t ci, struct gtoe_seg *s, uint64_t now,
			uint32_t seq, uint32_t limit, int rtx)
{
	uint32_t data_end = (c->flags & GTOE_F_FIN_Q) ? c->fin_seq : c->snd_end;
	uint32_t eff = c->mss - (c->ts_ok ? TS_OPT_BYTES : 0u), len = 0, fin = 0;
	if (seq_lt(seq, data_end)) {
		len = min_u32(eff, data_end - seq);
		if (seq_lt(limit, seq + len)) {
			uint32_t room = seq_gt(limit, seq) ? limit - seq : 0;
			/* sender SWS avoidance: a partial segment only when it holds half the largest window */
			if (!rtx && room < len && room < c->max_snd_wnd / 2 && c->snd_una != c->snd_max)
				return 0;
			len = room;
		}
	}
	if ((c->flags & GTOE_F_FIN_Q) && seq + len == c->fin_seq && (len > 0 || seq == c->fin_seq))
		fin = 1;
	if (len == 0 && !fin)
		return 0;
	seg_init(s, c, ci);
	s->seq = seq;
	if (len)
		seg_payload(g, (uint32_t)ci, s, seq, len);
	s->flags = (uint8_t)((len ? TCP_PSH : 0) | (fin ? TCP_FIN : 0));
	seg_ack(g, c, s, now);
	if (seq_lt(seq, c->snd_max)) {
		c->st.retrans++;
		c->st.retrans_bytes += len;
	} else {
		c->st.bytes_out += len;
		if (!c->ts_ok && !(c->flags & GTOE_F_TIMING)) {
			c->rtt_seq = seq;
			c->rtt_ts = now;
			c->flags |= GTOE_F_TIMING;
		}
	}
	if (fin) {
		if (c->state == GTOE_ESTABLISHED)
			c->state = GTOE_FIN_WAIT_1;
		else if (c->state == GTOE_CLOSE_WAIT)
			c->state = GTOE_LAST_ACK;
	}
	c->snd_max = seq_max(c->snd_max, seq + len + fin);
	if (c->rto_at == 0 || (c->flags & GTOE_F_PERSIST)) {
		c->flags &= (uint16_t)~GTOE_F_PERSIST;
		gtoe_arm_rto(c, now);
	}
	sent(g, c);
	return len + fin;
}

/* The next hole the scoreboard shows at or after rtx_next and below the
 * highest SACKed byte: retransmit one segment of it. Its ACK's cwnd
 * inflation pays for it, so cwnd gives that MSS back. */
static uint32_t tx_hole(struct gtoe *g, struct gtoe_conn *c, int32_t ci, struct gtoe_seg *s, uint64_t now)
{
	uint32_t seq = seq_max(c->rtx_next, c->snd_una), i, hi = 0, found = 0, n;
	for (i = 0; i < GTOE_MAX_SACKED; i++) { /* sorted: step over the SACKed ranges seq falls in */
		if (i >= c->nsacked)
			break;
		if (seq_le(c->sacked[i][0], seq) && seq_lt(seq, c->sacked[i][1]))
			seq = c->sacked[i][1];
		else if (seq_lt(seq, c->sacked[i][0])) {
			hi = c->sacked[i][0];
			found = 1;
			break;
		}
	}
	if (!found)
		return 0; /* nothing known to be missing beyond rtx_next */
	n = tx_data(g, c, ci, s, now, seq, seq_min(hi, seq + c->mss), 1);
	if (n) {
		c->rtx_next = seq + n;
		c->cwnd = c->cwnd > c->mss + c->mss ? c->cwnd - c->mss : c->mss;
		c->st.sack_rtx++;
	}
	return n;
}

static int can_send_data(uint32_t st)
{
	return st == GTOE_ESTABLISHED || st == GTOE_CLOSE_WAIT || st == GTOE_FIN_WAIT_1 || st == GTOE_CLOSING ||
	       st == GTOE_LAST_ACK;
}

static uint32_t tx_conn(struct gtoe *g, int32_t ci, uint64_t now, struct gtoe_seg *s)
{
	struct gtoe_conn *c = &g->conn[ci];
	uint32_t n, wnd, limit;
	/* The usual call on a receiving connection: nothing asked for and no
	 * byte unsent, so every branch below would return 0 (one test instead
	 * of the walk through them, once a segment). A flag that makes a
	 * branch below send belongs in GTOE_F_TX_WANTED. */
	if (!(c->flags & GTOE_F_TX_WANTED) && c->acks_owed == 0 && c->snd_nxt == c->snd_end)
		return 0;
	if (c->flags & GTOE_F_RST) {
		seg_init(s, c, ci);
		s->seq = c->snd_max;
		s->ack = c->rcv_nxt;
		s->flags = TCP_RST | TCP_ACK;
		g->st.out_rst++;
		sent(g, c);
		gtoe_to_closed(g, (uint32_t)ci);
		return 1;
	}
	if (c->flags & GTOE_F_SYN) {
		if (c->state == GTOE_SYN_SENT || c->state == GTOE_SYN_RCVD) {
			tx_syn(g, c, ci, s, now);
			return 1;
		}
		c->flags &= (uint16_t)~GTOE_F_SYN;
	}
	if (c->state == GTOE_SYN_SENT || c->state == GTOE_SYN_RCVD)
		return 0; /* nothing but the handshake before ESTABLISHED */
	if (can_send_data(c->state)) {
		if (c->flags & GTOE_F_RTX_ONE) {
			/* one segment at snd_una whatever the windows say (fast retransmit, partial
			 * ACK, RTO: with a zero window it doubles as the probe) */
			c->flags &= (uint16_t)~GTOE_F_RTX_ONE;
			n = tx_data(g, c, ci, s, now, c->snd_una, c->snd_una + c->mss, 1);
			if (n) {
				if (seq_lt(c->snd_nxt, c->snd_una + n))
					c->snd_nxt = c->snd_una + n;
				if (seq_lt(c->rtx_next, c->snd_una + n))
					c->rtx_next = c->snd_una + n;
				return 1;
			}
		}
		if (c->flags & GTOE_F_RTX_HOLE) {
			c->flags &= (uint16_t)~GTOE_F_RTX_HOLE;
			if ((c->flags & GTOE_F_RECOVERY) && tx_hole(g, c, ci, s, now))
				return 1;
		}
		wnd = c->cwnd;
		if (!(c->flags & GTOE_F_RECOVERY)) /* RFC 3042 limited transmit: one new segment per early dup ACK */
			wnd += min_u32(c->dupacks, 2u) * c->mss;
		wnd = min_u32(c->snd_wnd, wnd);
		limit = c->snd_una + wnd;
		n = tx_data(g, c, ci, s, now, c->snd_nxt, limit, 0);
		if (n) {
			c->snd_nxt += n;
			return 1;
		}
		/* peer window closed with data waiting and nothing in flight: persist timer */
		if (c->snd_wnd == 0 && seq_lt(c->snd_nxt, c->snd_end) && c->snd_una == c->snd_max &&
		    !(c->flags & GTOE_F_PERSIST)) {
			c->flags |= GTOE_F_PERSIST;
			gtoe_arm_rto(c, now);
		}
	}
	if (c->flags & GTOE_F_PROBE) {
		c->flags &= (uint16_t)~GTOE_F_PROBE;
		seg_init(s, c, ci);
		s->seq = c->snd_una - 1; /* an old sequence number: the peer answers with an ACK */
		seg_ack(g, c, s, now);
		sent(g, c);
		return 1;
	}
	if ((c->flags & GTOE_F_ACK_NOW) || c->acks_owed) {
		if (!(c->flags & GTOE_F_ACK_NOW))
			c->acks_owed--;
		seg_init(s, c, ci);
		s->seq = c->snd_nxt;
		seg_ack(g, c, s, now);
		c->st.acks_out++;
		sent(g, c);
		return 1;
	}
	return 0;
}

uint32_t gtoe_tx_next(struct gtoe *g, uint64_t now, struct gtoe_seg *s)
{
	uint32_t k, ci, covered;
	if (g->nrst) {
		struct gtoe_rst *r = &g->rst[g->rst_head];
		seg_init(s, &g->conn[0], -1);
		s->saddr = r->saddr;
		s->daddr = r->daddr;
		s->sport = r->sport;
		s->dport = r->dport;
		s->seq = r->seq;
		s->ack = r->ack;
		s->flags = r->flags;
		g->rst_head = (g->rst_head + 1) % GTOE_RST_QUEUE;
		g->nrst--;
		g->st.out_rst++;
		g->st.out_segs++;
		return 1;
	}
	ci = g->tx_next < g->cfg.max_conns ? g->tx_next : 0;
	covered = 0;
	for (k = 0; k < GTOE_MAX_CONNS; k++) {
		if (covered >= g->cfg.max_conns)
			break;
		if (gtoe_slot_used(g, ci) && g->conn[ci].state != GTOE_CLOSED && tx_conn(g, (int32_t)ci, now, s)) {
			g->tx_next = ci + 1 >= g->cfg.max_conns ? 0 : ci + 1;
			return 1;
		}
		covered += gtoe_scan_step(g, &ci);
	}
	return 0;
}

/* ---- timers ------------------------------------------------------------------- */

static void give_up(struct gtoe *g, struct gtoe_conn *c, uint32_t ci, uint8_t reason)
{
	g->st.timeouts++;
	c->err = reason;
	c->ev |= GTOE_EVB_ERROR;
	if (c->state == GTOE_SYN_SENT)
		gtoe_to_closed(g, ci);
	else
		c->flags |= GTOE_F_RST;
}

static void rto_fired(struct gtoe *g, struct gtoe_conn *c, uint32_t ci, uint64_t now)
{
	uint32_t mss = c->mss;
	c->rto = min_u64(c->rto * 2, g->cfg.rto_max_ns); /* RFC 6298 5.5 */
	if (c->flags & GTOE_F_PERSIST) { /* zero-window probe; never gives up while answered */
		c->flags |= GTOE_F_PROBE;
		c->st.zwp_out++;
		gtoe_arm_rto(c, now);
		return;
	}
	if (c->state == GTOE_SYN_SENT || c->state == GTOE_SYN_RCVD) {
		if (++c->retries > g->cfg.syn_retries) {
			give_up(g, c, ci, GTOE_ERR_TIMEOUT);
			return;
		}
		c->flags |= GTOE_F_SYN;
		c->flags &= (uint16_t)~GTOE_F_TIMING;
		c->st.syn_retrans++;
		gtoe_arm_rto(c, now);
		return;
	}
	if (c->snd_una == c->snd_max) {
		c->rto_at = 0;
		return;
	}
	if (++c->retries > g->cfg.data_retries) {
		give_up(g, c, ci, GTOE_ERR_TIMEOUT);
		return;
	}
	/* RFC 5681 3.1 eq. 4 and the loss window; RFC 6582 4.1 recover; go back to snd_una */
	c->ssthresh = max_u32(gtoe_flight(c) / 2, 2 * mss);
	c->cwnd = mss;
	c->recover = c->snd_max;
	c->flags &= (uint16_t)~(GTOE_F_RECOVERY | GTOE_F_TIMING | GTOE_F_RTX_HOLE);
	c->flags |= GTOE_F_RTX_ONE;
	c->nsacked = 0; /* RFC 2018 section 8: the receiver may have reneged */
	c->dupacks = 0;
	c->snd_nxt = c->snd_una;
	c->st.rto_expiries++;
	gtoe_arm_rto(c, now);
}

void gtoe_poll(struct gtoe *g, uint64_t now)
{
	uint32_t ci;
	for (ci = 0; ci < GTOE_MAX_CONNS; ci++) {
		struct gtoe_conn *c = &g->conn[ci];
		if (ci >= g->cfg.max_conns)
			break;
		if (!gtoe_slot_used(g, ci) || c->state == GTOE_CLOSED)
			continue;
		if (c->state == GTOE_TIME_WAIT) {
			if (c->tw_at && now >= c->tw_at)
				gtoe_to_closed(g, ci);
			continue;
		}
		if (c->delack_at && now >= c->delack_at) {
			c->delack_at = 0;
			c->flags |= GTOE_F_ACK_NOW;
			c->st.delayed_acks++;
		}
		if (c->rto_at && now >= c->rto_at) {
			c->rto_at = 0;
			rto_fired(g, c, ci, now);
		}
		if (g->cfg.ka_idle_ns && (c->state == GTOE_ESTABLISHED || c->state == GTOE_CLOSE_WAIT) &&
		    c->snd_una == c->snd_max && now - c->last_rx_ns >= g->cfg.ka_idle_ns + c->ka_sent * g->cfg.ka_intvl_ns) {
			if (c->ka_sent >= g->cfg.ka_probes) {
				give_up(g, c, ci, GTOE_ERR_KEEPALIVE);
			} else {
				c->ka_sent++;
				c->flags |= GTOE_F_PROBE;
				c->st.ka_out++;
			}
		}
	}
}

static uint64_t earlier(uint64_t best, uint64_t t)
{
	return t && (best == 0 || t < best) ? t : best;
}

uint64_t gtoe_next_deadline(const struct gtoe *g)
{
	uint64_t best = 0;
	uint32_t ci;
	for (ci = 0; ci < GTOE_MAX_CONNS; ci++) {
		const struct gtoe_conn *c = &g->conn[ci];
		if (ci >= g->cfg.max_conns)
			break;
		if (!gtoe_slot_used(g, ci) || c->state == GTOE_CLOSED)
			continue;
		best = earlier(best, c->rto_at);
		best = earlier(best, c->delack_at);
		best = earlier(best, c->tw_at);
		if (g->cfg.ka_idle_ns && (c->state == GTOE_ESTABLISHED || c->state == GTOE_CLOSE_WAIT) &&
		    c->snd_una == c->snd_max)
			best = earlier(best, c->last_rx_ns + g->cfg.ka_idle_ns + c->ka_sent * g->cfg.ka_intvl_ns);
	}
	return best;
}
