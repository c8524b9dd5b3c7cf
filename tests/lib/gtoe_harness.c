/* gtoe_harness.c - one general-TOE endpoint and an imaginary peer, for unit tests (see gtoe_harness.h). */
#include "gtoe_harness.h"

#include <stdlib.h>
#include <string.h>

int gh_init(struct gh *h, const struct gtoe_cfg *cfg)
{
	struct gtoe_cfg d;
	int r;
	memset(h, 0, sizeof *h);
	if (!cfg) {
		gtoe_cfg_default(&d);
		cfg = &d;
	}
	h->g = calloc(1, sizeof *h->g);
	h->mem = calloc(1, GTOE_BUF_BYTES(cfg));
	if (!h->g || !h->mem)
		return -100;
	r = gtoe_init(h->g, cfg, h->mem, GTOE_BUF_BYTES(cfg));
	return r;
}

void gh_free(struct gh *h)
{
	free(h->g);
	free(h->mem);
	h->g = NULL;
	h->mem = NULL;
}

uint32_t gh_out(struct gh *h, uint64_t now)
{
	struct gtoe_seg s;
	h->nout = 0;
	while (h->nout < GH_MAX_OUT && gtoe_tx_next(h->g, now, &s)) {
		struct gh_seg *o = &h->out[h->nout++];
		uint32_t k;
		o->s = s;
		o->plen = 0;
		for (k = 0; k < 2; k++) {
			if (s.len[k] && o->plen + s.len[k] <= GH_DATA_MAX) {
				memcpy(o->buf + o->plen, s.data[k], s.len[k]);
				o->plen += s.len[k];
			}
		}
		o->s.data[0] = o->buf;
		o->s.len[0] = o->plen;
		o->s.data[1] = NULL;
		o->s.len[1] = 0;
	}
	return h->nout;
}

uint32_t gh_ev(struct gh *h)
{
	h->nev = 0;
	while (h->nev < GH_MAX_EV && gtoe_ev_next(h->g, &h->ev[h->nev]))
		h->nev++;
	return h->nev;
}

uint32_t gh_ev_count(const struct gh *h, uint8_t type)
{
	uint32_t i, n = 0;
	for (i = 0; i < h->nev; i++)
		n += h->ev[i].type == type;
	return n;
}

void gh_peer(struct gh *h, uint64_t now, uint8_t flags, uint32_t seq, uint32_t ack, uint16_t win, const void *p,
	     uint32_t n, const struct gtoe_seg *opt)
{
	struct gtoe_seg s;
	memset(&s, 0, sizeof s);
	if (opt)
		s = *opt;
	s.saddr = GH_PEER;
	s.daddr = GH_US;
	s.sport = GH_PEER_PORT;
	s.dport = GH_PORT;
	s.flags = flags;
	s.seq = seq;
	s.ack = ack;
	s.win = win;
	s.data[0] = p;
	s.len[0] = n;
	s.data[1] = NULL;
	s.len[1] = 0;
	gtoe_input_seg(h->g, &s, now);
}

int32_t gh_connect(struct gh *h, uint64_t now, uint32_t irs, const struct gtoe_seg *opt)
{
	int32_t c = gtoe_connect(h->g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, now);
	uint32_t iss;
	if (c < 0 || gh_out(h, now) != 1)
		return -1;
	iss = h->out[0].s.seq;
	gh_peer(h, now + 1000, TCP_SYN | TCP_ACK, irs, iss + 1, 65535, NULL, 0, opt);
	gh_out(h, now + 1000);
	gh_ev(h);
	return c;
}

int32_t gh_establish(struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport, uint32_t irs,
		     uint16_t mss, int ts, uint64_t now)
{
	struct gtoe_seg s, o;
	int32_t c = gtoe_connect(g, laddr, lport, raddr, rport, now);
	if (c < 0 || !gtoe_tx_next(g, now, &s))
		return -1;
	memset(&o, 0, sizeof o);
	o.saddr = raddr;
	o.daddr = laddr;
	o.sport = rport;
	o.dport = lport;
	o.seq = irs;
	o.ack = s.seq + 1;
	o.flags = TCP_SYN | TCP_ACK;
	o.win = 65535;
	o.has_mss = 1;
	o.mss = mss;
	if (ts) {
		o.has_ts = 1;
		o.tsval = 1;
		o.tsecr = s.tsval;
	}
	gtoe_input_seg(g, &o, now + 1000);
	while (gtoe_tx_next(g, now + 1000, &s))
		;
	return g->conn[c].state == GTOE_ESTABLISHED ? c : -1;
}

static int lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static int le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }

const char *gh_invariants(const struct gtoe *g)
{
	uint32_t i, k;
	if (g->dir.len) { /* bytes held in a frame (gtoe_direct_on): the whole unread stream of a live slot */
		const struct gtoe_conn *c = &g->conn[g->dir.conn];
		uint32_t fin = (c->flags & GTOE_F_FIN_RCVD) && c->rcv_nxt == c->peer_fin + 1 ? 1u : 0u;
		if (!g->dir.on || g->dir.conn >= g->cfg.max_conns || c->state == GTOE_FREE)
			return "bytes held for no connection";
		if (c->rd_seq - g->dir.seq >= g->dir.len || c->rcv_nxt - fin != g->dir.seq + g->dir.len ||
		    c->nranges || (c->flags & GTOE_F_RELEASED))
			return "bytes held in a frame are not the connection's unread stream";
	}
	for (i = 0; i < g->cfg.max_conns; i++) {
		const struct gtoe_conn *c = &g->conn[i];
		int used = (int)((g->used[i >> 6] >> (i & 63)) & 1u);
		if (used != (c->state != GTOE_FREE))
			return "slot bitmap disagrees with the state";
		if (c->state == GTOE_FREE)
			continue;
		if (c->state >= GTOE_NSTATES)
			return "state out of range";
		if (c->nranges > g->cfg.max_ranges)
			return "too many ranges";
		/* (the peer's FIN takes a sequence number after the data, but no room) */
		if (c->rcv_nxt - c->rd_seq > g->cfg.rcv_buf + ((c->flags & GTOE_F_FIN_RCVD) ? 1u : 0u) ||
		    gtoe_readable(g, (int32_t)i) > c->rcv_win)
			return "unread data beyond the receive buffer";
		{
			struct gtoe_info in;
			if (gtoe_info(g, (int32_t)i, &in) != GTOE_OK || in.rcv_wnd > c->rcv_win)
				return "free receive space beyond the window";
		}
		for (k = 0; k < c->nranges; k++) {
			const struct gtoe_range *r = &c->range[k];
			if (!lt(c->rcv_nxt, r->start) || !lt(r->start, r->end))
				return "range not beyond rcv_nxt or empty";
			if (lt(c->rd_seq + g->cfg.rcv_buf, r->end))
				return "range beyond the buffer";
			if (k > 0 && !lt(c->range[k - 1].end, r->start))
				return "ranges unsorted, overlapping or adjacent";
		}
		if (c->state == GTOE_SYN_SENT || c->state == GTOE_CLOSED)
			continue;
		if (c->nsacked > GTOE_MAX_SACKED)
			return "scoreboard overflow";
		for (k = 0; k < c->nsacked; k++) {
			if (!le(c->snd_una, c->sacked[k][0]) || !lt(c->sacked[k][0], c->sacked[k][1]) ||
			    !le(c->sacked[k][1], c->snd_max))
				return "scoreboard range outside (snd_una, snd_max]";
			if (k > 0 && !lt(c->sacked[k - 1][1], c->sacked[k][0]))
				return "scoreboard unsorted or overlapping";
		}
		if (!le(c->snd_una, c->snd_nxt) || !le(c->snd_nxt, c->snd_max))
			return "snd_una <= snd_nxt <= snd_max broken";
		if (!le(c->snd_max, c->snd_end))
			return "sent beyond what was written";
		if (c->snd_end - c->snd_una > g->cfg.snd_buf + 2u)
			return "send buffer overcommitted";
		if (gtoe_readable(g, (int32_t)i) > g->cfg.rcv_buf)
			return "readable beyond the buffer";
	}
	return NULL;
}

const char *gh_seg_ok(const struct gtoe *g, const struct gtoe_seg *s)
{
	const struct gtoe_conn *c;
	const uint8_t *lo, *hi;
	uint32_t k, len = s->len[0] + s->len[1];
	if (s->conn < 0)
		return (s->flags & TCP_RST) ? NULL : "connectionless segment without RST";
	if ((uint32_t)s->conn >= g->cfg.max_conns)
		return "segment of a slot out of range";
	c = &g->conn[s->conn];
	if (len > c->mss)
		return "payload above the MSS";
	lo = g->buf + (uint64_t)s->conn * ((uint64_t)g->cfg.rcv_buf + g->cfg.snd_buf) + g->cfg.rcv_buf;
	hi = lo + g->cfg.snd_buf;
	for (k = 0; k < 2; k++)
		if (s->len[k] && (s->data[k] < lo || s->data[k] + s->len[k] > hi))
			return "payload outside the send buffer";
	if (len && lt(c->snd_end, s->seq + len))
		return "payload beyond what was written";
	return NULL;
}

/* The frame of the last segment is given back: settle, then poison it. */
static void frame_back(struct gh *h, uint8_t *frame, uint32_t n)
{
#ifdef TOE_HOST_FAST
	if (h->direct)
		gtoe_settle(h->g);
#else
	(void)h;
#endif
	memset(frame, 0xee, n);
}

/* Check n bytes read at sequence number rd. */
static const char *bytes_check(struct gh *h, const uint8_t *p, uint32_t rd, uint32_t n)
{
	uint32_t k;
	for (k = 0; k < n; k++)
		if (p[k] != gh_byte(rd + k))
			return "a byte read differs from the peer's";
	h->bytes_read += n;
	return NULL;
}

/* Read up to cap bytes of c and check them: gtoe_recv, or (peek) the runs
 * gtoe_peek gives, each consumed after its check. Either way min(cap,
 * readable) bytes, so a run copying every segment and one with direct
 * delivery (whose runs differ: the held segment, or the buffer up to its
 * wrap) read the same. */
static const char *read_check(struct gh *h, int32_t c, uint8_t *out, uint32_t cap, int peek)
{
	uint32_t rd = h->g->conn[c].rd_seq, got = 0, n, k;
	const uint8_t *p;
	const char *e;
	if (!peek) {
		int32_t r = gtoe_recv(h->g, c, out, cap);
		return bytes_check(h, out, rd, r > 0 ? (uint32_t)r : 0);
	}
	for (k = 0; k < 2 && got < cap; k++) { /* at most two runs: the buffer wraps once */
		n = gtoe_peek(h->g, c, &p);
		if (n > gtoe_readable(h->g, c))
			return "peek beyond the readable bytes";
		n = n < cap - got ? n : cap - got;
		if (n == 0)
			break;
		if ((e = bytes_check(h, p, rd + got, n)) != NULL)
			return e;
		if (gtoe_consume(h->g, c, n) != (int32_t)n)
			return "consume took less than peek gave";
		got += n;
	}
	return NULL;
}

const char *gh_drive(struct gh *h, const uint8_t *in, size_t n)
{
	static uint8_t frames[2][1600], scratch[70000];
	uint32_t cur = 0; /* frames[cur]: the last segment's payload (the other one is given back) */
	uint64_t now = 1000;
	size_t i = 0;
	int32_t c = -1;
	const char *e;
	struct gtoe_seg s, o;
	struct gtoe_event ev;
	uint32_t k;
#ifdef TOE_HOST_FAST
	gtoe_direct_on(h->g, h->direct);
#else
	h->direct = 0; /* the card's build (tests/integration/test_hw_csim.sh) always copies */
#endif
	gtoe_listen(h->g, GH_US, GH_PORT);
	while (i + 8 <= n) {
		const uint8_t *b = in + i;
		const struct gtoe_conn *cc;
		i += 8;
		/* the connection the operations talk about: the peer's 4-tuple */
		c = gtoe_find(h->g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT);
		cc = c >= 0 ? &h->g->conn[c] : NULL;
		switch (b[0] % 10) {
		case 0: /* our active open */
			if (c < 0)
				gtoe_connect(h->g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, now);
			break;
		case 1:
		case 2:
		case 3: { /* a peer segment near the current numbers */
			uint8_t flags;
			uint32_t seq, ack, len = (uint32_t)(b[5] | (b[6] & 7) << 8) % 1500u;
			memset(&o, 0, sizeof o);
			if (b[1] & 0x40) {
				o.has_mss = 1;
				o.mss = (uint16_t)(b[7] * 8);
				o.has_ws = (b[7] & 1);
				o.ws = b[7] & 15;
				o.sack_ok = (b[7] >> 1) & 1;
			}
			o.has_ts = (b[1] >> 7) & 1;
			o.tsval = (uint32_t)(now / 1000000u) + (b[2] & 3) - 1u;
			if (b[2] & 0x80) {
				o.nsack = 1;
				o.sack[0][0] = cc ? cc->snd_una + b[3] : 0;
				o.sack[0][1] = o.sack[0][0] + 100;
			}
			/* mostly plausible numbers (in order, acknowledging what is in flight), sometimes wild */
			seq = cc ? cc->rcv_nxt : 7000u;
			if (b[3] & 0x80)
				seq += (uint32_t)(int32_t)(int8_t)(b[3] << 1) * 977u;
			else if (b[3] & 0x40)
				seq += (uint32_t)(b[3] & 0x3f) * 700u;
			ack = cc ? cc->snd_una : 0u;
			if (b[4] & 0x80)
				ack += (uint32_t)(int32_t)(int8_t)(b[4] << 1) * 61u;
			else if (cc)
				ack += (uint32_t)b[4] % (cc->snd_max - cc->snd_una + 1u);
			if (cc && cc->state == GTOE_SYN_SENT && (b[1] & 0x12) == 0x12)
				ack = cc->iss + 1; /* a SYN-ACK that fits */
			flags = (uint8_t)(b[1] & 0x3f);
			if (cc && (cc->state == GTOE_SYN_SENT || cc->state == GTOE_SYN_RCVD) && (b[7] & 1)) {
				/* the handshake's answer, often enough to get past it */
				flags = cc->state == GTOE_SYN_SENT ? (TCP_SYN | TCP_ACK) : TCP_ACK;
				ack = cc->iss + 1;
				if (cc->state == GTOE_SYN_RCVD)
					seq = cc->rcv_nxt;
			}
			if (cc && cc->state >= GTOE_ESTABLISHED && (b[7] & 7) != 0) /* mostly plain data and ACKs */
				flags = (uint8_t)(TCP_ACK | (flags & TCP_PSH) | ((b[7] & 0x38) == 0 ? TCP_FIN : 0));
			/* the last frame given back now, or kept until this segment's input settles it */
			if (b[5] & 0x80)
				frame_back(h, frames[cur], sizeof frames[cur]);
			cur ^= 1;
			for (k = 0; k < len; k++) /* the data of a SYN starts after its sequence number */
				frames[cur][k] = gh_byte(seq + ((flags & TCP_SYN) ? 1u : 0u) + k);
			gh_peer(h, now, flags, seq, ack, (uint16_t)(b[2] << 8 | b[6]), frames[cur], len, &o);
			memset(frames[cur ^ 1], 0xee, sizeof frames[cur ^ 1]); /* the input settled it */
			h->held += h->g->dir.len != 0;
			break;
		}
		case 4:
			if (c >= 0)
				gtoe_send(h->g, c, scratch, (uint32_t)(b[1] << 8 | b[2]));
			break;
		case 5:
			if (c >= 0 && (e = read_check(h, c, scratch, (uint32_t)(b[1] << 8 | b[2]), 0)) != NULL)
				return e;
			break;
		case 8: /* a zero-copy read of part of what is readable */
			if (c >= 0 && (e = read_check(h, c, scratch, (uint32_t)(b[1] << 8 | b[2]) >> (b[3] & 7), 1)) != NULL)
				return e;
			break;
		case 9:
			if (b[1] & 1)
				frame_back(h, frames[cur], sizeof frames[cur]);
			break;
		case 6:
			if (c >= 0) {
				if (b[1] < 200)
					gtoe_shutdown(h->g, c);
				else if (b[1] < 230)
					gtoe_abort(h->g, c);
				else
					gtoe_release(h->g, c);
			}
			break;
		case 7: /* time passes */
			now += (uint64_t)(b[1] | b[2] << 8) * ((b[3] & 3) == 3 ? 1000000u : 1000u);
			gtoe_poll(h->g, now);
			break;
		default:
			break;
		}
		for (k = 0; k < 64 && gtoe_tx_next(h->g, now, &s); k++)
			if ((e = gh_seg_ok(h->g, &s)) != NULL)
				return e;
		for (k = 0; k < 64 && gtoe_ev_next(h->g, &ev); k++)
			if (ev.type == GTOE_EV_CLOSED || ev.type == GTOE_EV_RESET || ev.type == GTOE_EV_ERROR)
				gtoe_release(h->g, ev.conn);
		/* what an application does after its own abort (no event tells it): release the handle */
		for (k = 0; k < h->g->cfg.max_conns; k++)
			if (h->g->conn[k].state == GTOE_CLOSED && h->g->conn[k].ev == 0)
				gtoe_release(h->g, (int32_t)k);
		if ((e = gh_invariants(h->g)) != NULL)
			return e;
	}
	return NULL;
}
