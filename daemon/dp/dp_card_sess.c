/* dp_card_sess.c - the STEP session over the card's connections (see dp_card_sess.h). Data-plane thread only. */
#include "dp/dp_card_sess.h"

#include <stdio.h>
#include <string.h>

#include "base/log.h"

static int32_t card_send(void *arg, uint32_t i, const uint8_t *data, uint32_t len)
{
	struct dp_card_sess *d = arg;
	if (!d->xrt)
		return -1;
	/* never waits: 0 while the mailbox holds an earlier message (the session keeps the bytes and
	 * pushes them again every turn) */
	int n = toe_xrt_tcp_send(d->xrt, i, data, len);
	if (n == TOE_XRT_TX_DOWN)
		return -1;
	if (n < 0) {
		log_warn("card: feed %s: the TX mailbox failed: %s", d->t.f[i].name, toe_xrt_error(d->xrt));
		return -1;
	}
	return n;
}

/* The session asked to close: gtoe_top closes when the entry's enable bit is cleared. */
static int card_close(void *arg, uint32_t i)
{
	struct dp_card_sess *d = arg;
	if (!d->xrt || toe_xrt_tcp_enable(d->xrt, i, 0) < 0)
		return -1;
	return 0;
}

int dp_card_sess_init(struct dp_card_sess *d, const struct toed_config *cfg, const struct toe_hw_gtoe_conn *conns,
		      const uint32_t *feeds, uint32_t n, struct rx_cfg *rc, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	card_sess_init(&d->cs);
	if (n > TOED_MAX_FEEDS)
		n = TOED_MAX_FEEDS;
	d->t.role = TOED_ROLE_TCP;
	d->t.nfeeds = n;
	for (uint32_t i = 0; i < n; i++) {
		struct dp_tcp_feed *f = &d->t.f[i];
		f->feed = feeds[i];
		f->stream = conns[i].stream;
		f->raddr = conns[i].raddr;
		f->rport = conns[i].rport;
		f->lport = conns[i].lport;
		f->accept = conns[i].accept; /* open = accept: gtoe_top listens, the exchange connects */
		f->conn = -1;
		f->listener = -1;
		f->phase = DP_TCP_WAIT;
		f->attempts = 1; /* the card connects at once: later attempts are the session's reconnects */
		d->att_pend[i] = 1; /* ... and counts that one in its attempts counter (from 0 at APPLY) */
		snprintf(f->name, sizeof f->name, "%s", cfg->feed[feeds[i]].name);
	}
	int any = dp_sess_init(&d->s, &d->t, cfg, err, errlen);
	if (any <= 0)
		return any;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t sid = d->t.f[i].stream;
		if (!d->s.f[i].on)
			continue;
		if (sid >= CARD_SESS_STREAMS || sid >= MTOE_MAX_CONNS) {
			snprintf(err, errlen, "%s: feed %s: stream %u beyond the card's session streams", cfg->path,
				 d->t.f[i].name, sid);
			return -1;
		}
		d->sess_of_stream[sid] = i + 1;
		rc->sess[sid] = 1;
	}
	d->t.hooks = dp_sess_hooks(&d->s);
	d->t.remote.arg = d;
	d->t.remote.send = card_send;
	d->t.remote.close = card_close;
	dp_sess_set_where(&d->s, rc);
	return 1;
}

void dp_card_sess_attach(struct dp_card_sess *d, struct toe_xrt *xrt)
{
	d->xrt = xrt;
}

/* Attempts the card made on entry i since the last read (its counter, TOE_GTOE_CS_ATTEMPTS) into
 * t.f[i].attempts, less those the host counted itself; the session's RECONNECTING event follows. */
static void card_attempts(struct dp_card_sess *d, uint32_t i)
{
	struct dp_tcp_feed *f = &d->t.f[i];
	struct toe_xrt_tcpconn c;
	d->att_reads++;
	if (toe_xrt_tcp_conn(d->xrt, i, &c) < 0)
		return; /* tried again at the next read */
	if (c.attempts < d->card_att[i]) {
		d->card_att[i] = c.attempts; /* the card's counters started again (APPLY): a new base */
		return;
	}
	uint32_t k = c.attempts - d->card_att[i], own = k < d->att_pend[i] ? k : d->att_pend[i];
	d->card_att[i] = c.attempts;
	d->att_pend[i] -= own;
	k -= own;
	if (!k)
		return;
	/* the card's backoff, as far as the host knows its rule: 100 ms after an up connection's end
	 * (down() set it), doubled after each attempt that did not come up */
	if (!d->att_fresh[i] || !f->backoff_ns)
		dp_tcp_backoff(f);
	for (uint32_t n = 1; n < k && n < 8; n++)
		dp_tcp_backoff(f);
	d->att_fresh[i] = 0;
	f->attempts += k;
	d->t.st.connects += k;
	dp_sess_attempts(&d->s, i);
}

/* Feed i's connection ended (the card's close record, or the wait for it ran out). */
static void down(struct dp_card_sess *d, uint32_t i, uint64_t now_ns)
{
	struct dp_tcp_feed *f = &d->t.f[i];
	if (f->phase != DP_TCP_UP)
		return;
	f->phase = DP_TCP_WAIT;
	f->downs++;
	if (d->xrt)
		toe_xrt_tcp_forget(d->xrt, i); /* not for the entry's next connection */
	d->t.st.closes++;
	d->data_seq[i] = 0;
	d->t.hooks.on_close(d->t.hooks.arg, &d->t, i);
	if (f->asked_close) {
		/* the session closed it (refusal, timeout, logout): back off before the card tries again */
		d->enable_at[i] = now_ns + dp_tcp_backoff(f);
		f->asked_close = 0;
	} else {
		/* the card reconnects on its own, 100 ms after a connection that was up */
		f->backoff_ns = DP_TCP_BACKOFF_MIN_NS;
		d->att_fresh[i] = 1;
	}
}

/* Feed i's connection is up (its RESET record, or a message of a connection whose RESET the ring lost). */
static void up(struct dp_card_sess *d, uint32_t i, uint64_t now_ns)
{
	struct dp_tcp_feed *f = &d->t.f[i];
	if (f->phase == DP_TCP_UP)
		down(d, i, now_ns); /* the close record was lost: a new connection means the old one ended */
	if (d->xrt && d->s.f[i].on)
		card_attempts(d, i); /* the attempt that made it, before the new connection's events */
	f->phase = DP_TCP_UP;
	f->ups++;
	f->offset = 0;
	d->t.st.established++;
	d->data_seq[i] = 0;
	d->t.hooks.on_open(d->t.hooks.arg, &d->t, i);
}

static void lost(struct dp_card_sess *d, uint32_t i, uint32_t n)
{
	d->t.f[i].sess.in_lost += n; /* toectl stats: session_msgs_lost */
	log_warn("card: feed %s: session: %u message%s from the exchange lost on the way from the card "
		 "(%llu so far); the session sees the hole at the next one",
		 d->t.f[i].name, n, n == 1 ? "" : "s", (unsigned long long)d->t.f[i].sess.in_lost);
}

/* A data message of feed i (a tick record's MsgSeqNum, or a TOE_CSESS_SEEN record's): once per
 * message, for the session's sequence check and silence timer. */
static void data_msg(struct dp_card_sess *d, uint32_t i, uint64_t seq, uint64_t now_ns)
{
	if (!seq || seq == d->data_seq[i] || d->t.f[i].phase != DP_TCP_UP)
		return;
	d->data_seq[i] = seq;
	dp_sess_data(&d->s, i, seq, now_ns);
}

int dp_card_sess_record(struct dp_card_sess *d, const union toe_record *r, uint64_t now_ns)
{
	uint32_t sid = r->hdr.stream, i;
	if (r->hdr.type == TOE_REC_CARD_SESS) {
		struct card_sess_out o;
		card_sess_put(&d->cs, r, &o);
		if (sid >= CARD_SESS_STREAMS || !d->sess_of_stream[sid])
			return 1; /* counted bad by card_sess, or a stream without a session here */
		i = d->sess_of_stream[sid] - 1;
		if (o.lost)
			lost(d, i, o.lost);
		if (o.what == CARD_SESS_MSG) {
			if (d->t.f[i].phase != DP_TCP_UP)
				up(d, i, now_ns); /* its RESET was lost in an overflow */
			d->t.st.bytes_in += o.len;
			d->t.hooks.on_bytes(d->t.hooks.arg, &d->t, i, o.msg, o.len);
		} else if (o.what == CARD_SESS_CLOSE) {
			down(d, i, now_ns);
		} else if (o.what == CARD_SESS_SEEN) {
			data_msg(d, i, o.msg_seq, now_ns); /* a data message whose records are all unmapped */
		}
		return 1;
	}
	if (r->hdr.type == TOE_REC_GAP && sid == TOE_HW_STREAM_ALL && r->gap.reason == TOE_GAP_OVERFLOW) {
		card_sess_overflow(&d->cs); /* the losses show at each stream's next record */
		return 0;
	}
	if (sid >= CARD_SESS_STREAMS || !d->sess_of_stream[sid])
		return 0;
	i = d->sess_of_stream[sid] - 1;
	if (r->hdr.type == TOE_REC_RESET && r->reset.reason == TOE_RESET_SYN) {
		up(d, i, now_ns);
		return 0;
	}
	if (r->hdr.type == TOE_REC_TRADE || r->hdr.type == TOE_REC_ORDER)
		data_msg(d, i, r->hdr.msg_seq, now_ns);
	return 0;
}

void dp_card_sess_tick(struct dp_card_sess *d, uint64_t now_ns)
{
	if (d->xrt) {
		/* the mailbox's outstanding message, before the sessions push what they keep */
		int r = toe_xrt_tcp_poll(d->xrt, now_ns);
		if (r > 0 || (r < 0 && now_ns >= d->tx_err_log_ns)) {
			log_warn("card: the TX mailbox: %s", toe_xrt_error(d->xrt));
			if (r < 0)
				d->tx_err_log_ns = now_ns + 1000000000ull; /* a register error: once a second */
		}
	}
	for (uint32_t i = 0; i < d->t.nfeeds; i++) {
		struct dp_tcp_feed *f = &d->t.f[i];
		if (f->asked_close && now_ns >= f->close_by_ns) {
			/* no close record from the card in time (lost in an overflow?): take it as closed */
			down(d, i, now_ns);
		}
		if (d->enable_at[i] && now_ns >= d->enable_at[i] && d->xrt) {
			if (toe_xrt_tcp_enable(d->xrt, i, 1) < 0)
				continue; /* tried again next turn */
			d->enable_at[i] = 0;
			f->attempts++;
			d->att_pend[i]++; /* the card will count this one too */
			d->t.st.connects++;
		}
	}
	if (d->xrt && now_ns >= d->att_read_ns) {
		/* register reads cost: at a bounded rate, and only where a reconnect may be under way */
		d->att_read_ns = now_ns + DP_CARD_SESS_ATT_NS;
		for (uint32_t i = 0; i < d->t.nfeeds; i++)
			if (d->s.f[i].on && d->t.f[i].phase != DP_TCP_UP && !d->enable_at[i])
				card_attempts(d, i);
	}
	d->t.hooks.on_tick(d->t.hooks.arg, &d->t, now_ns);
}

int dp_card_sess_pub(struct dp_card_sess *d, union toe_record *out)
{
	return dp_sess_record(&d->s, out);
}
