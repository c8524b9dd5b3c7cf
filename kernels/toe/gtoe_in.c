/* gtoe_in.c - general TOE: segment arrival (RFC 9293 3.10.7 "SEGMENT ARRIVES", with RFC 5961, 7323, 2018,
 * 5681, 6582 and 6298 folded in). See gtoe.h for the rules.
 *
 * Input only changes state and sets flags; gtoe_out.c decides what to send.
 * Received data is written into the circular buffer at seq & mask whether in
 * order or not; out-of-order ranges are a sorted list of sequence intervals
 * (like the mirror TOE's, but kept in sequence numbers relative to rcv_nxt
 * and with a recency clock for the SACK order instead of arrival times for
 * gap timeouts, so the two lists are separate). Synthesisable subset.
 */
#include "gtoe_priv.h"
#include "net/net_rx.h"

/* ---- out-of-order ranges ---------------------------------------------------- */

/* Add [a, b) to the sorted list, merging overlapping and adjacent ranges.
 * Returns 0 when the list is full and nothing merges. */
static int range_add(struct gtoe *g, struct gtoe_conn *c, uint32_t a, uint32_t b)
{
	uint32_t i, n = 0, overl = 0, pos;
	struct gtoe_range *r = c->range;
	for (i = 0; i < GTOE_MAX_RANGES; i++) {
		if (i >= c->nranges)
			break;
		if (seq_le(r[i].start, b) && seq_le(a, r[i].end))
			overl++;
	}
	if (overl == 0 && c->nranges >= g->cfg.max_ranges)
		return 0;
	/* drop the merged ranges, widening [a, b) */
	for (i = 0; i < GTOE_MAX_RANGES; i++) {
		if (i >= c->nranges)
			break;
		if (seq_le(r[i].start, b) && seq_le(a, r[i].end)) {
			a = seq_min(a, r[i].start);
			b = seq_max(b, r[i].end);
		} else {
			r[n++] = r[i];
		}
	}
	c->nranges = (uint8_t)n;
	pos = n;
	for (i = 0; i < GTOE_MAX_RANGES; i++) {
		if (i >= n)
			break;
		if (seq_lt(a, r[i].start)) {
			pos = i;
			break;
		}
	}
	for (i = GTOE_MAX_RANGES - 1; i > 0; i--) {
		if (i <= pos)
			break;
		if (i <= n)
			r[i] = r[i - 1];
	}
	r[pos].start = a;
	r[pos].end = b;
	r[pos].age = ++c->range_clock;
	c->nranges = (uint8_t)(n + 1);
	return 1;
}

/* rcv_nxt advanced: swallow the ranges it reached. Returns 1 when one was. */
static int range_pull(struct gtoe_conn *c)
{
	uint32_t i, n = 0, got = 0;
	struct gtoe_range *r = c->range;
	for (i = 0; i < GTOE_MAX_RANGES; i++) {
		if (i >= c->nranges)
			break;
		if (seq_le(r[i].start, c->rcv_nxt)) {
			c->rcv_nxt = seq_max(c->rcv_nxt, r[i].end);
			got = 1;
		} else {
			r[n++] = r[i];
		}
	}
	c->nranges = (uint8_t)n;
	return (int)got;
}

/* ---- helpers ------------------------------------------------------------------ */

/* Byte copy into the circular buffer, 32 bytes per step in four runs of
 * eight so the compiler merges each run into one word move (no memcpy in
 * the subset) and the loop costs little per byte; n <= 65535. Host builds
 * (TOE_HOST_FAST, the Makefile's DEFS; never the card) call memcpy, which
 * moves a 1408-byte segment in ~90 instructions where this loop takes ~460
 * (callgrind, bench_rx gtoe_fastx_in_order). */
static void copy_run(uint8_t *restrict d, const uint8_t *restrict p, uint32_t n)
{
#ifdef TOE_HOST_FAST
	__builtin_memcpy(d, p, n);
#else
	uint32_t i, j, w = n >> 5;
	for (i = 0; i < (65536u >> 5); i++) {
		if (i >= w)
			break;
		for (j = 0; j < 32; j += 8) {
			d[32 * i + j + 0] = p[32 * i + j + 0];
			d[32 * i + j + 1] = p[32 * i + j + 1];
			d[32 * i + j + 2] = p[32 * i + j + 2];
			d[32 * i + j + 3] = p[32 * i + j + 3];
			d[32 * i + j + 4] = p[32 * i + j + 4];
			d[32 * i + j + 5] = p[32 * i + j + 5];
			d[32 * i + j + 6] = p[32 * i + j + 6];
			d[32 * i + j + 7] = p[32 * i + j + 7];
		}
	}
	for (i = w << 5; i < n && i < (w << 5) + 32u; i++)
		d[i] = p[i];
#endif
}

static void copy_in(struct gtoe *g, uint32_t ci, uint32_t seq, const uint8_t *p, uint32_t n)
{
	uint8_t *rb = gtoe_rbuf(g, ci);
	uint32_t pos = seq & g->rcv_mask, run = g->cfg.rcv_buf - pos;
	if (n <= run) {
		copy_run(rb + pos, p, n);
	} else {
		copy_run(rb + pos, p, run);
		copy_run(rb, p + run, n - run);
	}
}

/* RFC 5681 4.2: an out-of-order or duplicate segment is ACKed at once, each
 * one: the duplicate ACKs drive the peer's fast retransmit, so a batch of
 * input must not merge them into one. */
static void ack_each(struct gtoe_conn *c)
{
	if ((c->flags & GTOE_F_ACK_NOW) && c->acks_owed < GTOE_MAX_OWED)
		c->acks_owed++;
	c->flags |= GTOE_F_ACK_NOW;
}

static void challenge_ack(struct gtoe *g, struct gtoe_conn *c, uint64_t now)
{
	if (now - c->chal_window_ns >= 1000000000ull) {
		c->chal_window_ns = now;
		c->chal_count = 0;
	}
	if (c->chal_count >= GTOE_CHALLENGE_PER_S) {
		g->st.challenge_limited++;
		return;
	}
	c->chal_count++;
	c->flags |= GTOE_F_ACK_NOW;
	c->st.challenge_acks++;
	g->st.challenge_acks++;
}

/* RTT from an echoed timestamp (RFC 7323 4.1); an echo from the future or
 * older than the longest RTO is a broken or hostile peer: no sample. */
static void ts_sample(struct gtoe *g, struct gtoe_conn *c, const struct gtoe_seg *s, uint64_t now)
{
	uint32_t ms = gtoe_ts_now(now) - s->tsecr;
	if (ms < 0x80000000u && (uint64_t)ms * 1000000u <= g->cfg.rto_max_ns)
		gtoe_rtt_sample(g, c, (uint64_t)ms * 1000000u);
}

/* Options of a SYN or SYN-ACK: what both sides agreed on. */
static void negotiate(struct gtoe *g, struct gtoe_conn *c, const struct gtoe_seg *s)
{
	uint32_t peer_mss = s->has_mss ? s->mss : 536u; /* RFC 9293 3.7.1 default */
	c->mss = (uint16_t)min_u32(c->our_mss, peer_mss);
	if (c->mss < 64)
		c->mss = 64;
	c->ws_ok = g->cfg.opt_ws && s->has_ws;
	c->snd_ws = c->ws_ok ? s->ws : 0;
	c->rcv_ws = c->ws_ok ? gtoe_our_ws(c->rcv_win) : 0;
	c->sack_ok = g->cfg.opt_sack && s->sack_ok;
	c->ts_ok = g->cfg.opt_ts && s->has_ts;
	if (c->ts_ok)
		c->ts_recent = s->tsval;
	c->cwnd = g->cfg.iw_segs * (uint32_t)c->mss;
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->rd_seq = c->rcv_nxt;
	c->rcv_adv = c->rcv_nxt;
}

static void established(struct gtoe *g, struct gtoe_conn *c)
{
	c->state = GTOE_ESTABLISHED;
	c->ev |= GTOE_EVB_CONNECTED;
	g->st.established++;
	if (c->flags & GTOE_F_PASSIVE)
		g->st.accepts++;
}

/* The peer's FIN reached in order. */
static void fin_reached(struct gtoe *g, struct gtoe_conn *c, uint64_t now)
{
	c->rcv_nxt += 1;
	c->flags |= GTOE_F_ACK_NOW;
	c->ev |= GTOE_EVB_PEER_CLOSED;
	switch (c->state) {
	case GTOE_SYN_RCVD:
	case GTOE_ESTABLISHED:
		c->state = GTOE_CLOSE_WAIT;
		break;
	case GTOE_FIN_WAIT_1:
		if ((c->flags & GTOE_F_FIN_Q) && seq_gt(c->snd_una, c->fin_seq))
			gtoe_time_wait(g, c, now);
		else
			c->state = GTOE_CLOSING;
		break;
	case GTOE_FIN_WAIT_2:
		gtoe_time_wait(g, c, now);
		break;
	default:
		break;
	}
}

/* ---- passive open and SYN-SENT ---------------------------------------------- */

static int32_t listener_of(const struct gtoe *g, uint32_t addr, uint16_t port)
{
	uint32_t i;
	for (i = 0; i < GTOE_MAX_LISTEN; i++)
		if (g->listen[i].port == port && (g->listen[i].addr == 0 || g->listen[i].addr == addr))
			return (int32_t)i;
	return -1;
}

static void no_conn(struct gtoe *g, const struct gtoe_seg *s, uint32_t seglen, uint64_t now)
{
	int32_t l, ci;
	struct gtoe_conn *c;
	if ((s->flags & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN && (l = listener_of(g, s->daddr, s->dport)) >= 0) {
		ci = gtoe_open_slot(g, s->daddr, s->dport, s->saddr, s->sport, now);
		if (ci < 0) {
			g->st.drop_listen_full++; /* no RST: the client retries its SYN */
			return;
		}
		c = &g->conn[ci];
		c->state = GTOE_SYN_RCVD;
		c->flags |= GTOE_F_PASSIVE | GTOE_F_SYN;
		c->listener = (int16_t)l;
		if (g->listen[l].mss)
			c->our_mss = g->listen[l].mss;
		if (g->listen[l].win)
			c->rcv_win = g->listen[l].win;
		negotiate(g, c, s);
		c->snd_wnd = s->win; /* never scaled in a SYN (RFC 7323 2.2) */
		c->max_snd_wnd = c->snd_wnd;
		c->snd_wl1 = s->seq;
		c->snd_wl2 = c->iss;
		c->st.segs_in++;
		if (s->len[0])
			c->st.trimmed_bytes += s->len[0]; /* data on a SYN is not kept: the peer sends it again */
		return;
	}
	g->st.drop_no_conn++;
	gtoe_queue_rst(g, s, seglen);
}

static void syn_sent(struct gtoe *g, uint32_t ci, const struct gtoe_seg *s, uint32_t seglen, uint64_t now)
{
	struct gtoe_conn *c = &g->conn[ci];
	int ack_ok = 0;
	if (s->flags & TCP_ACK) {
		if (seq_le(s->ack, c->iss) || seq_gt(s->ack, c->snd_max)) {
			g->st.drop_syn_sent_bad++;
			gtoe_queue_rst(g, s, seglen);
			return;
		}
		ack_ok = 1;
	}
	if (s->flags & TCP_RST) {
		if (ack_ok) {
			g->st.resets_in++;
			c->err = GTOE_ERR_REFUSED;
			c->ev |= GTOE_EVB_ERROR;
			gtoe_to_closed(g, ci);
		} else {
			g->st.drop_syn_sent_bad++;
		}
		return;
	}
	if (!(s->flags & TCP_SYN)) {
		g->st.drop_not_syn++;
		return;
	}
	c->st.segs_in++;
	c->last_rx_ns = now;
	negotiate(g, c, s);
	if (s->len[0])
		c->st.trimmed_bytes += s->len[0]; /* data on a SYN(-ACK) is not kept: our ACK asks for it again */
	c->snd_wl1 = s->seq;
	c->flags |= GTOE_F_ACK_NOW;
	if (ack_ok) {
		c->snd_una = s->ack;
		c->snd_wnd = s->win; /* unscaled in a SYN-ACK */
		c->max_snd_wnd = c->snd_wnd;
		c->snd_wl2 = s->ack;
		c->retries = 0;
		if (c->ts_ok && s->has_ts && s->tsecr)
			ts_sample(g, c, s, now);
		else if ((c->flags & GTOE_F_TIMING) && seq_gt(s->ack, c->rtt_seq))
			gtoe_rtt_sample(g, c, now - c->rtt_ts);
		c->flags &= (uint16_t)~(GTOE_F_TIMING | GTOE_F_SYN);
		c->rto_at = c->snd_una == c->snd_max ? 0 : c->rto_at;
		established(g, c);
	} else {
		/* simultaneous open: answer with SYN-ACK of our ISN */
		c->state = GTOE_SYN_RCVD;
		c->snd_wnd = s->win;
		c->max_snd_wnd = c->snd_wnd;
		c->flags |= GTOE_F_SYN;
		c->flags &= (uint16_t)~GTOE_F_ACK_NOW; /* the SYN-ACK carries the ACK */
	}
}

/* ---- synchronised states -------------------------------------------------- */

static int acceptable(const struct gtoe *g, const struct gtoe_conn *c, uint32_t seq, uint32_t seglen)
{
	uint32_t wnd = gtoe_rcv_space(g, c);
	if (seglen == 0) {
		if (wnd == 0)
			return seq == c->rcv_nxt;
		return seq_le(c->rcv_nxt, seq) && seq_lt(seq, c->rcv_nxt + wnd);
	}
	if (wnd == 0)
		return 0;
	return (seq_le(c->rcv_nxt, seq) && seq_lt(seq, c->rcv_nxt + wnd)) ||
	       (seq_le(c->rcv_nxt, seq + seglen - 1) && seq_lt(seq + seglen - 1, c->rcv_nxt + wnd));
}

/* ---- send-side scoreboard -------------------------------------------------- */

/* Forget what snd_una has passed. */
static void sb_prune(struct gtoe_conn *c)
{
	uint32_t i, n = 0;
	for (i = 0; i < GTOE_MAX_SACKED; i++) {
		if (i >= c->nsacked)
			break;
		if (seq_le(c->sacked[i][1], c->snd_una))
			continue;
		c->sacked[n][0] = seq_max(c->sacked[i][0], c->snd_una);
		c->sacked[n][1] = c->sacked[i][1];
		n++;
	}
	c->nsacked = n;
}

/* Merge one SACK block; blocks outside (snd_una, snd_max] are ignored, and
 * one that fits nowhere in a full board too (it only sharpens the choice). */
static void sb_add(struct gtoe_conn *c, uint32_t a, uint32_t b)
{
	uint32_t i, n = 0, overl = 0, pos;
	if (!seq_lt(a, b) || !seq_gt(b, c->snd_una) || seq_gt(b, c->snd_max) || seq_lt(a, c->snd_una - 0x40000000u))
		return;
	a = seq_max(a, c->snd_una);
	for (i = 0; i < GTOE_MAX_SACKED; i++) {
		if (i >= c->nsacked)
			break;
		if (seq_le(c->sacked[i][0], b) && seq_le(a, c->sacked[i][1]))
			overl++;
	}
	if (overl == 0 && c->nsacked >= GTOE_MAX_SACKED)
		return;
	for (i = 0; i < GTOE_MAX_SACKED; i++) {
		if (i >= c->nsacked)
			break;
		if (seq_le(c->sacked[i][0], b) && seq_le(a, c->sacked[i][1])) {
			a = seq_min(a, c->sacked[i][0]);
			b = seq_max(b, c->sacked[i][1]);
		} else {
			c->sacked[n][0] = c->sacked[i][0];
			c->sacked[n][1] = c->sacked[i][1];
			n++;
		}
	}
	pos = n;
	for (i = 0; i < GTOE_MAX_SACKED; i++) {
		if (i >= n)
			break;
		if (seq_lt(a, c->sacked[i][0])) {
			pos = i;
			break;
		}
	}
	for (i = GTOE_MAX_SACKED - 1; i > 0; i--) {
		if (i <= pos)
			break;
		if (i <= n) {
			c->sacked[i][0] = c->sacked[i - 1][0];
			c->sacked[i][1] = c->sacked[i - 1][1];
		}
	}
	c->sacked[pos][0] = a;
	c->sacked[pos][1] = b;
	c->nsacked = n + 1;
}

/* Could a new segment go out under the peer's window (RFC 5827's test)? */
static int new_data_fits(const struct gtoe_conn *c)
{
	uint32_t unsent = c->snd_end - c->snd_max - ((c->flags & GTOE_F_FIN_Q) && seq_le(c->snd_max, c->fin_seq) ? 1u : 0u);
	return unsent > 0 && seq_le(c->snd_max + min_u32(unsent, c->mss), c->snd_una + c->snd_wnd);
}

/* ACK processing of an acceptable segment; returns 0 when the segment is to be dropped. */
static int ack_in(struct gtoe *g, uint32_t ci, const struct gtoe_seg *s, uint64_t now)
{
	struct gtoe_conn *c = &g->conn[ci];
	uint32_t acked, wnd = (uint32_t)s->win << c->snd_ws, mss = c->mss;
	uint32_t syn = 0; /* this ACK covers our SYN's sequence number */
	if (c->state == GTOE_SYN_RCVD) {
		if (!(seq_lt(c->snd_una, s->ack) && seq_le(s->ack, c->snd_max))) {
			g->st.drop_bad_ack++;
			gtoe_queue_rst(g, s, 0);
			return 0;
		}
		c->snd_wnd = wnd;
		c->max_snd_wnd = max_u32(c->max_snd_wnd, wnd);
		c->snd_wl1 = s->seq;
		c->snd_wl2 = s->ack;
		c->flags &= (uint16_t)~GTOE_F_SYN;
		syn = 1;
		established(g, c);
	}
	if (seq_gt(s->ack, c->snd_max)) { /* RFC 5961 5.2: ACK of data never sent */
		g->st.drop_bad_ack++;
		c->flags |= GTOE_F_ACK_NOW;
		return 0;
	}
	if (seq_lt(s->ack, c->snd_una - max_u32(c->max_snd_wnd, 1u))) {
		g->st.drop_old_ack++;
		c->flags |= GTOE_F_ACK_NOW;
		return 0;
	}
	c->st.sack_blocks_in += s->nsack;
	if (c->sack_ok) {
		uint32_t k;
		for (k = 0; k < GTOE_MAX_SACK; k++) {
			if (k >= s->nsack)
				break;
			sb_add(c, s->sack[k][0], s->sack[k][1]);
		}
	}
	if (seq_gt(s->ack, c->snd_una)) {
		acked = s->ack - c->snd_una;
		if (c->ts_ok && s->has_ts && s->tsecr)
			ts_sample(g, c, s, now);
		else if ((c->flags & GTOE_F_TIMING) && seq_gt(s->ack, c->rtt_seq)) {
			gtoe_rtt_sample(g, c, now - c->rtt_ts);
			c->flags &= (uint16_t)~GTOE_F_TIMING;
		}
		if (c->flags & GTOE_F_RECOVERY) {
			if (seq_ge(s->ack, c->recover)) { /* RFC 6582 3.2 step 3: full ACK */
				c->cwnd = min_u32(c->ssthresh, max_u32(c->snd_max - s->ack, mss) + mss);
				c->flags &= (uint16_t)~GTOE_F_RECOVERY;
				c->dupacks = 0;
			} else { /* partial ACK: retransmit the next hole, deflate */
				/* snd_una itself, unless the scoreboard already had it sent again */
				c->flags |= seq_le(c->rtx_next, s->ack) ? GTOE_F_RTX_ONE : GTOE_F_RTX_HOLE;
				c->st.partial_acks++;
				c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
				if (acked >= mss)
					c->cwnd += mss;
				c->cwnd = max_u32(c->cwnd, mss);
			}
		} else {
			c->dupacks = 0;
			/* RFC 5681 3.1: the ACK of our SYN-ACK does not grow the window
			 * (the SYN's sequence number carried no data), so the passive
			 * side starts at the same 10 segments as the active one */
			if (acked <= syn)
				;
			else if (c->cwnd < c->ssthresh)
				c->cwnd += min_u32(acked - syn, mss); /* slow start */
			else
				c->cwnd += max_u32(1u, (uint32_t)((uint64_t)mss * mss / c->cwnd));
		}
		c->snd_una = s->ack;
		if (seq_lt(c->snd_nxt, c->snd_una))
			c->snd_nxt = c->snd_una;
		sb_prune(c);
		c->st.bytes_acked += acked;
		c->retries = 0;
		if (c->snd_una == c->snd_max)
			c->rto_at = 0;
		else if (!(c->flags & GTOE_F_PERSIST))
			gtoe_arm_rto(c, now);
		if (seq_gt(s->ack - acked, c->iss)) /* send-buffer bytes freed (not just our SYN acknowledged) */
			c->ev |= GTOE_EVB_WRITABLE;
	} else if (s->ack == c->snd_una && s->len[0] == 0 && !(s->flags & (TCP_SYN | TCP_FIN)) &&
		   wnd == c->snd_wnd && c->snd_max != c->snd_una) {
		/* a duplicate ACK (RFC 5681 section 2) */
		uint32_t thresh = 3, oseg = (gtoe_flight(c) + mss - 1) / mss;
		c->dupacks++;
		c->st.dup_acks_in++;
		/* RFC 5827 early retransmit: with fewer than 4 segments out and nothing new
		 * allowed to go, three duplicates can never come; oseg - 1 must do */
		if (oseg >= 2 && oseg < 4 && !new_data_fits(c))
			thresh = oseg - 1;
		if (c->flags & GTOE_F_RECOVERY) {
			c->cwnd += mss; /* inflation: a segment left the network */
			if (c->nsacked)
				c->flags |= GTOE_F_RTX_HOLE;
		} else if (c->dupacks >= thresh && seq_gt(c->snd_una, c->recover)) {
			c->ssthresh = max_u32(gtoe_flight(c) / 2, 2 * mss);
			c->recover = c->snd_max;
			c->cwnd = c->ssthresh + c->dupacks * mss;
			c->rtx_next = c->snd_una;
			c->flags |= GTOE_F_RECOVERY | GTOE_F_RTX_ONE;
			c->flags &= (uint16_t)~GTOE_F_TIMING;
			c->st.fast_retrans++;
			c->st.recoveries++;
			if (thresh < 3)
				c->st.early_retrans++;
		}
	}
	/* send window update (RFC 9293 3.10.7.4) */
	if (seq_lt(c->snd_wl1, s->seq) || (c->snd_wl1 == s->seq && seq_le(c->snd_wl2, s->ack))) {
		if (wnd == 0 && c->snd_wnd != 0)
			c->st.zero_win_in++;
		if (wnd == 0)
			c->retries = 0; /* a live peer with a closed window: probes, never a timeout */
		c->snd_wnd = wnd;
		c->max_snd_wnd = max_u32(c->max_snd_wnd, wnd);
		c->snd_wl1 = s->seq;
		c->snd_wl2 = s->ack;
		if (wnd && (c->flags & GTOE_F_PERSIST)) {
			c->flags &= (uint16_t)~GTOE_F_PERSIST;
			c->rto_at = c->snd_una == c->snd_max ? 0 : c->rto_at;
			c->retries = 0;
		}
	}
	/* our FIN acknowledged? */
	if ((c->flags & GTOE_F_FIN_Q) && seq_gt(c->snd_una, c->fin_seq)) {
		if (c->state == GTOE_FIN_WAIT_1) {
			c->state = GTOE_FIN_WAIT_2;
		} else if (c->state == GTOE_CLOSING) {
			gtoe_time_wait(g, c, now);
		} else if (c->state == GTOE_LAST_ACK) {
			c->ev |= GTOE_EVB_CLOSED;
			gtoe_to_closed(g, ci);
			return 0;
		}
	}
	return 1;
}

static void data_in(struct gtoe *g, uint32_t ci, const struct gtoe_seg *s, uint64_t now, int *fin)
{
	struct gtoe_conn *c = &g->conn[ci];
	const uint8_t *p = s->data[0];
	uint32_t len = s->len[0], seq = s->seq, d, right;
	if (len == 0)
		return;
	if (c->state != GTOE_ESTABLISHED && c->state != GTOE_FIN_WAIT_1 && c->state != GTOE_FIN_WAIT_2) {
		c->st.trimmed_bytes += len; /* after the peer's FIN: nothing more is valid */
		return;
	}
	if (seq_lt(seq, c->rcv_nxt)) {
		d = c->rcv_nxt - seq;
		if (d >= len) {
			c->st.dup_segs++;
			c->st.dup_bytes += len;
			ack_each(c);
			return;
		}
		c->st.dup_bytes += d;
		p += d;
		len -= d;
		seq = c->rcv_nxt;
	}
	right = c->rd_seq + c->rcv_win;
	if ((c->flags & GTOE_F_FIN_RCVD) && seq_lt(c->peer_fin, right))
		right = c->peer_fin; /* nothing exists beyond the peer's FIN */
	if (seq_gt(seq + len, right)) {
		d = seq + len - right;
		c->st.trimmed_bytes += d;
		*fin = 0; /* the FIN lies beyond the window too */
		if (d >= len) {
			c->flags |= GTOE_F_ACK_NOW;
			return;
		}
		len -= d;
	}
	if (seq == c->rcv_nxt) {
#ifdef TOE_HOST_FAST
		if (g->dir.on && c->rd_seq == seq && c->nranges == 0 && !(c->flags & GTOE_F_RELEASED)) {
			/* nothing unread: the reader takes the bytes from the frame (gtoe_direct_on) */
			g->dir.addr = (uint64_t)(uintptr_t)p;
			g->dir.seq = seq;
			g->dir.len = len;
			g->dir.conn = ci;
			c->st.direct_segs++;
		} else
#endif
			copy_in(g, ci, seq, p, len);
		c->rcv_nxt += len;
		c->st.in_order++;
		c->st.bytes_in += len;
		c->ev |= GTOE_EVB_DATA;
		if (c->flags & GTOE_F_RELEASED)
			c->rd_seq = c->rcv_nxt; /* nobody reads: discard */
		if (c->nranges && range_pull(c)) {
			c->flags |= GTOE_F_ACK_NOW; /* RFC 5681 4.2: ACK at once when a hole fills */
			c->st.quick_acks++;
			return;
		}
		c->unacked_segs++;
		if ((c->flags & GTOE_F_QUICKACK) || g->cfg.delack_ns == 0 || c->unacked_segs >= g->cfg.delack_segs) {
			c->flags |= GTOE_F_ACK_NOW;
			c->st.quick_acks++;
		} else if (c->delack_at == 0) {
			c->delack_at = now + g->cfg.delack_ns;
		}
		return;
	}
	if (!range_add(g, c, seq, seq + len)) {
		c->st.ooo_drops++;
		g->st.drop_ranges_full++;
		ack_each(c);
		*fin = 0;
		return;
	}
	copy_in(g, ci, seq, p, len);
	c->st.out_of_order++;
	c->st.bytes_in += len;
	ack_each(c);
}

#ifdef TOE_HOST_FAST
void gtoe_settle(struct gtoe *g)
{
	struct gtoe_direct *d = &g->dir;
	uint32_t rd, off;
	if (d->len == 0)
		return;
	rd = g->conn[d->conn].rd_seq;
	off = rd - d->seq;
	/* rd_seq lies in [seq, seq + len] while bytes are held (gtoe_consume, gtoe_release) */
	if (off < d->len)
		copy_in(g, d->conn, rd, (const uint8_t *)(uintptr_t)d->addr + off, d->len - off);
	d->len = 0;
}

void gtoe_direct_on(struct gtoe *g, uint32_t on)
{
	gtoe_settle(g);
	g->dir.on = on != 0;
}
#endif

void gtoe_input_seg(struct gtoe *g, const struct gtoe_seg *s0, uint64_t now)
{
	struct gtoe_seg sa;
	const struct gtoe_seg *s = s0;
	int32_t ci;
	struct gtoe_conn *c;
	uint32_t seglen = s->len[0] + ((s->flags & TCP_SYN) ? 1u : 0u) + ((s->flags & TCP_FIN) ? 1u : 0u);
	int fin;

#ifdef TOE_HOST_FAST
	if (g->dir.len)
		gtoe_settle(g); /* the bytes held from the last segment into the buffer, before anything moves */
#endif
	g->st.in_segs++;
	if (s->flags & TCP_URG)
		g->st.urg_ignored++;
	ci = gtoe_find(g, s->daddr, s->dport, s->saddr, s->sport);
	if (ci < 0) {
		no_conn(g, s, seglen, now);
		return;
	}
	c = &g->conn[ci];
	if (c->state == GTOE_SYN_SENT) {
		syn_sent(g, (uint32_t)ci, s, seglen, now);
		return;
	}
	c->st.segs_in++;
	/* simultaneous open: the peer's SYN-ACK in SYN-RECEIVED acknowledges our SYN; its SYN is the
	 * one already received (the RFC 5961 4.2 exception Linux makes too): take it as a plain ACK */
	if (c->state == GTOE_SYN_RCVD && !(c->flags & GTOE_F_PASSIVE) &&
	    (s->flags & (TCP_SYN | TCP_ACK | TCP_RST)) == (TCP_SYN | TCP_ACK) && s->seq == c->irs) {
		sa = *s;
		sa.seq = s->seq + 1;
		sa.flags = (uint8_t)(s->flags & ~TCP_SYN);
		s = &sa;
		seglen--;
	}
	/* a retransmitted SYN while we are in SYN-RECEIVED: send the SYN-ACK again */
	if (c->state == GTOE_SYN_RCVD && (s->flags & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN && s->seq == c->irs) {
		c->flags |= GTOE_F_SYN;
		return;
	}
	/* PAWS (RFC 7323 5.3) */
	if (c->ts_ok && s->has_ts && !(s->flags & TCP_RST) && seq_lt(s->tsval, c->ts_recent)) {
		g->st.drop_paws++;
		c->st.paws_drops++;
		c->flags |= GTOE_F_ACK_NOW;
		return;
	}
	if (!acceptable(g, c, s->seq, seglen)) {
		if (s->flags & TCP_RST) {
			g->st.drop_rst_out_of_window++;
			return;
		}
		g->st.drop_out_of_window++;
		if (seq_lt(s->seq, c->rcv_nxt)) {
			c->st.dup_segs++;
			c->st.dup_bytes += s->len[0];
		}
		if (c->state == GTOE_TIME_WAIT && (s->flags & TCP_FIN))
			gtoe_time_wait(g, c, now); /* retransmitted FIN: restart 2 MSL (the ACK was lost) */
		c->flags |= GTOE_F_ACK_NOW;
		return;
	}
	c->last_rx_ns = now;
	c->ka_sent = 0;
	if (s->flags & TCP_RST) {
		if (s->seq != c->rcv_nxt) { /* RFC 5961 3.2 */
			challenge_ack(g, c, now);
			g->st.drop_rst_out_of_window++;
			return;
		}
		g->st.resets_in++;
		if (c->state == GTOE_SYN_RCVD && !(c->flags & GTOE_F_PASSIVE)) {
			c->err = GTOE_ERR_REFUSED;
			c->ev |= GTOE_EVB_ERROR;
		} else if (c->state != GTOE_TIME_WAIT) {
			c->ev |= GTOE_EVB_RESET;
		}
		gtoe_to_closed(g, (uint32_t)ci);
		return;
	}
	if (s->flags & TCP_SYN) { /* RFC 5961 4.2: SYN on a synchronised connection */
		challenge_ack(g, c, now);
		g->st.drop_out_of_window++;
		return;
	}
	if (!(s->flags & TCP_ACK)) {
		g->st.drop_no_ack++;
		return;
	}
	/* TS.Recent (RFC 7323 4.3): the segment covers the last ACK we sent */
	if (c->ts_ok && s->has_ts && seq_le(s->seq, c->last_ack_sent))
		c->ts_recent = s->tsval;
	if (!ack_in(g, (uint32_t)ci, s, now))
		return;
	fin = (s->flags & TCP_FIN) != 0;
	data_in(g, (uint32_t)ci, s, now, &fin);
	if (fin && !(c->flags & GTOE_F_FIN_RCVD) &&
	    (c->state == GTOE_ESTABLISHED || c->state == GTOE_FIN_WAIT_1 || c->state == GTOE_FIN_WAIT_2)) {
		uint32_t f = s->seq + s->len[0];
		/* a FIN below data already held contradicts it: first data wins, the FIN is ignored
		 * (the peer sends it again if it meant it) */
		if (c->nranges && seq_gt(c->range[c->nranges - 1].end, f)) {
			c->st.fin_ignored++;
		} else {
			c->flags |= GTOE_F_FIN_RCVD;
			c->peer_fin = f;
		}
		c->flags |= GTOE_F_ACK_NOW;
	}
	if ((c->flags & GTOE_F_FIN_RCVD) && c->rcv_nxt == c->peer_fin)
		fin_reached(g, c, now);
}

void gtoe_input_pkt(struct gtoe *g, const struct net_pkt *pkt, uint64_t now)
{
	struct gtoe_seg s;
	const uint8_t *ip = pkt->frame + net_pkt_l3(pkt);
	const uint8_t *tcp = ip + (uint32_t)(ip[0] & 0x0f) * 4u;
	uint32_t doff = (uint32_t)(tcp[12] >> 4) * 4u;
	s.saddr = pkt->saddr;
	s.daddr = pkt->daddr;
	s.sport = pkt->sport;
	s.dport = pkt->dport;
	s.seq = pkt->seq;
	s.ack = pkt->ack;
	s.win = pkt->win;
	s.flags = pkt->tcp_flags;
	s.conn = -1;
	s.mss = 0;
	s.ws = 0;
	s.pad = 0;
	s.tsval = s.tsecr = 0;
	gtoe_opt_parse(tcp + 20, doff > 20 ? doff - 20 : 0, &s);
	s.data[0] = pkt->payload;
	s.len[0] = pkt->payload_len;
	s.data[1] = 0;
	s.len[1] = 0;
	gtoe_input_seg(g, &s, now);
}
