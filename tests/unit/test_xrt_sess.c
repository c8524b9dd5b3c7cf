/* test_xrt_sess.c - the STEP session over the card's connection (backend = xrt, role = tcp) on the fake card.
 *
 * The whole conversation through the card path, the exchange played by a
 * server-side step_link: toed.conf's session feed marks its stream for
 * fast_top (SESS_LO); the connection comes up on the card (a RESET record)
 * and the session's Logon leaves through the TX mailbox; the exchange's
 * Logon answer comes back as TOE_REC_CARD_SESS records, split in 64-byte
 * pieces, reassembled, given to the session, and clients get the logged-on
 * event (TOE_REC_SESSION), never the card's own records; a TestRequest is
 * answered and a heartbeat sent through the mailbox; a piece of a split
 * heartbeat lost on the way is counted, the message never handed on, and the
 * session reports the hole at the next one (TOE_SESS_SEQ_GAP); the
 * exchange's Logout is reported, answered, the connection closed by
 * clearing the entry's enable bit, its close reported, and the entry
 * enabled again after the backoff (a reconnecting event).
 */
#include "test_xrt_common.h"

#include "dp/dp_card_sess.h"
#include "dp/dp_setup.h"
#include "step/host/step_link.h"

#define EX_IP TX_TCP_EX_IP
#define MS 1000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Feed a with a STEP session, feed b a plain connection, both on the card. */
static struct toed_config *sess_config(void)
{
	static const char *const names[2] = { "a", "b" };
	struct toed_config *c = tx_tcp_config(2, names, 64, 32768);
	if (!c)
		return NULL;
	snprintf(c->feed[0].sender_comp_id, TOED_NAME_MAX, "VENDOR01");
	snprintf(c->feed[0].target_comp_id, TOED_NAME_MAX, "SSE");
	c->feed[0].heartbeat_s = 30;
	return c;
}

struct rig {
	struct toed_config *c;
	struct rx_cfg rx;
	struct toe_xrt_params p;
	struct toe_fake *f;
	struct toe_xrt *be;
	struct dp_card_sess *d;
	struct step_link ex;       /* the exchange */
	uint32_t sent_seen;        /* mailbox bytes already looked at */
	/* what the last drain saw */
	uint32_t ncard;            /* TOE_REC_CARD_SESS records read */
	uint32_t npub;             /* records for clients */
	union toe_record pub[64];
};

/* Read the ring: every record to the sessions, in order (the `drop`-th card session record, from 1,
 * is lost on the way); what clients would get collected in pub[]. */
static void drain(struct rig *g, uint32_t drop)
{
	union toe_record recs[64], r;
	int n;
	g->ncard = 0;
	g->npub = 0;
	while ((n = toe_xrt_poll(g->be, recs, 64)) > 0) {
		for (int i = 0; i < n; i++) {
			if (recs[i].hdr.type == TOE_REC_CARD_SESS && ++g->ncard == drop)
				continue;
			if (!dp_card_sess_record(g->d, &recs[i], mono_ns()) && g->npub < 64)
				g->pub[g->npub++] = recs[i];
			while (dp_card_sess_pub(g->d, &r))
				if (g->npub < 64)
					g->pub[g->npub++] = r;
		}
	}
	CHECK_EQ(n, 0);
}

static void tick(struct rig *g, uint64_t now)
{
	union toe_record r;
	g->npub = 0;
	dp_card_sess_tick(g->d, now);
	while (dp_card_sess_pub(g->d, &r))
		if (g->npub < 64)
			g->pub[g->npub++] = r;
}

/* The session events among the last records for clients, in order; 0 when absent. */
static const struct toe_session *find_ev(const struct rig *g, uint32_t ev)
{
	for (uint32_t i = 0; i < g->npub; i++)
		if (g->pub[i].hdr.type == TOE_REC_SESSION && g->pub[i].session.event == ev)
			return &g->pub[i].session;
	return NULL;
}

/* The mailbox bytes of entry 0 sent since the last call, NUL-terminated in buf. */
static uint32_t new_sent(struct rig *g, char *buf, uint32_t cap)
{
	uint32_t n;
	const uint8_t *s = toe_fake_gtoe_sent(g->f, 0, &n);
	uint32_t k = n - g->sent_seen;
	if (k >= cap)
		k = cap - 1;
	if (k)
		memcpy(buf, s + g->sent_seen, k);
	buf[k] = 0;
	g->sent_seen = n;
	return k;
}

/* The exchange's queued bytes to the card's connection. */
static void ex_send(struct rig *g)
{
	CHECK(g->ex.s.out_len > 0);
	CHECK_EQ(toe_fake_gtoe_data(g->f, 0, g->ex.s.out, g->ex.s.out_len), 0);
	step_sess_sent(&g->ex.s);
}

static uint64_t counter(struct rig *g, const char *name)
{
	static struct toe_xrt_counter ctr[TOE_XRT_MAX_COUNTERS];
	int n = toe_xrt_counters(g->be, ctr, TOE_XRT_MAX_COUNTERS);
	for (int i = 0; i < n; i++)
		if (!strcmp(ctr[i].name, name))
			return ctr[i].value;
	return ~0ull;
}

/* The card open with feed a's session logged on (the exchange's Logon answer taken); unmap: the
 * order template maps to no tick type on the card. 0, or -1 when the card did not open. */
static int rig_up(struct rig *g, const char *xclbin, int unmap, uint64_t *ex_now_out)
{
	char err[768], out[2048];
	uint16_t flow_feed[TOED_MAX_FEEDS];
	uint64_t t0 = mono_ns(), ex_now = 1000;
	struct step_sess_cfg sc;
	const struct toe_session *ev;

	memset(g, 0, sizeof *g);
	g->c = sess_config();
	if (unmap)
		for (uint32_t k = 0; k < FAST_MAX_TEMPLATES; k++)
			if (g->c->fast.prog.tpl[k].kind == TOE_REC_ORDER)
				g->c->fast.prog.tpl[k].kind = TOE_REC_NONE;
	g->d = calloc(1, sizeof *g->d);
	rx_cfg_default(&g->rx);
	CHECK_EQ(dp_setup_rx(g->c, &g->rx, flow_feed, err, sizeof err), 0);
	dp_setup_card(&g->p, g->c, &g->rx);
	CHECK_EQ(g->p.ngconn, 2);
	/* the session feed's stream (its mirror flow, 0) is marked for fast_top; the plain one is not */
	CHECK_EQ(dp_card_sess_init(g->d, g->c, g->p.gconn, g->p.gconn_feed, g->p.ngconn, &g->rx, err, sizeof err), 1);
	CHECK_EQ(g->rx.sess[0], 1);
	CHECK_EQ(g->rx.sess[1], 0);
	CHECK_EQ(g->d->s.f[0].on, 1);
	CHECK_EQ(g->d->s.f[1].on, 0);
	g->p.xclbin = xclbin;
	g->p.hw.ring_slots = 64;
	g->p.link_timeout_ms = 0;
	g->f = toe_fake_new(NULL);
	CHECK_EQ(toe_xrt_open(&g->be, &toe_devops_fake, g->f, &g->p, err, sizeof err), 0);
	if (!g->be) {
		fprintf(stderr, "open: %s\n", err);
		return -1;
	}
	dp_card_sess_attach(g->d, g->be);
	CHECK_EQ(toe_fake_cfg_word(g->f, TOE_KID_FAST, TOE_FAST_CF_SESS_LO), 1u);
	CHECK_EQ(toe_fake_cfg_word(g->f, TOE_KID_FAST, TOE_FAST_CF_SESS_HI), 0u);
	tick(g, t0); /* the first turn: no connection yet, nothing sent */
	CHECK_EQ(new_sent(g, out, sizeof out), 0);

	/* the exchange */
	memset(&sc, 0, sizeof sc);
	sc.role = STEP_SESS_SERVER;
	snprintf(sc.sender, sizeof sc.sender, "SSE");
	snprintf(sc.target, sizeof sc.target, "VENDOR01");
	sc.heartbeat_s = 30;
	step_link_init(&g->ex, &sc, 0);
	step_link_open(&g->ex, ex_now);

	/* the card's connection comes up: its RESET reaches clients, the Logon leaves through the mailbox */
	CHECK_EQ(toe_fake_gtoe_open(g->f, 0), 0);
	drain(g, 0);
	CHECK_EQ(g->ncard, 0);
	CHECK(g->npub >= 2 && g->pub[0].hdr.type == TOE_REC_RESET && g->pub[0].reset.reason == TOE_RESET_SYN);
	CHECK((ev = find_ev(g, TOE_SESS_LOGON_SENT)) != NULL && ev->arg1 == 30 && ev->hdr.stream == 0);
	uint32_t n = new_sent(g, out, sizeof out);
	CHECK(n > 0 && strstr(out, "\00135=A\001") && strstr(out, "\00149=VENDOR01\001") && strstr(out, "\00156=SSE\001"));
	CHECK_EQ(g->d->t.f[0].phase, DP_TCP_UP);

	/* the exchange accepts: its Logon answer arrives as card session records, split in pieces */
	step_link_bytes(&g->ex, (const uint8_t *)out, n, ex_now);
	CHECK_EQ(g->ex.s.state, STEP_SESS_ACTIVE);
	uint32_t alen = g->ex.s.out_len;
	CHECK(alen > TOE_CSESS_DATA); /* more than one record's worth */
	ex_send(g);
	drain(g, 0);
	CHECK_EQ(g->ncard, (alen + TOE_CSESS_DATA - 1) / TOE_CSESS_DATA);
	CHECK((ev = find_ev(g, TOE_SESS_LOGGED_ON)) != NULL && ev->arg1 == 30 && !strcmp(ev->text, "SSE"));
	for (uint32_t i = 0; i < g->npub; i++)
		CHECK(g->pub[i].hdr.type != TOE_REC_CARD_SESS); /* never for clients */
	CHECK_EQ(g->d->s.f[0].l.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(g->d->cs.st.msgs, 1);
	CHECK_EQ(g->d->cs.st.lost, 0);
	CHECK_EQ(counter(g, "fast_top.sess_msgs"), 1);
	CHECK_EQ(counter(g, "fast_top.sess_records"), g->ncard);
	CHECK_EQ(counter(g, "host.bad_records"), 0);

	*ex_now_out = ex_now;
	return 0;
}

static void rig_down(struct rig *g)
{
	toe_xrt_close(g->be);
	toe_fake_free(g->f);
	free(g->d);
	free(g->c);
}

static void test_session(const char *xclbin)
{
	struct rig g;
	char out[2048];
	uint64_t ex_now;
	uint32_t n;
	const struct toe_session *ev;

	if (rig_up(&g, xclbin, 0, &ex_now) < 0)
		goto out;

	/* the exchange's data messages: their ticks reach clients; the session counts them by the
	 * MsgSeqNums of the records (their bytes went to the decoder), no gap */
	{
		struct sse_stream *ss = calloc(1, sizeof *ss);
		struct sse_gen_cfg gc;
		static uint8_t m[65536];
		union toe_record t[4];
		uint32_t nr, nticks = 0, got = 0;
		uint64_t in0 = g.d->s.f[0].l.s.st.in_msgs, last = 0;
		sse_gen_default(&gc);
		gc.seed = 5;
		CHECK_EQ(sse_stream_init(ss, &tx_prog, &gc, 4), 0);
		for (uint32_t k = 0; k < 3; k++) {
			ss->seq = last = step_sess_next_seq(&g.ex.s, ex_now); /* data and session share the numbering */
			int len = sse_stream_next_msg(ss, 4, m, sizeof m, NULL, t, &nr);
			CHECK(len > 0);
			nticks += nr;
			CHECK_EQ(toe_fake_gtoe_data(g.f, 0, m, (uint32_t)len), 0);
		}
		drain(&g, 0);
		for (uint32_t i = 0; i < g.npub; i++)
			if (g.pub[i].hdr.type == TOE_REC_TRADE || g.pub[i].hdr.type == TOE_REC_ORDER)
				got++;
		CHECK(nticks > 0);
		CHECK_EQ(got, nticks);
		CHECK_EQ(g.ncard, 0);
		CHECK_EQ(g.d->s.f[0].l.s.st.in_msgs, in0 + 3);
		CHECK_EQ(g.d->s.f[0].l.s.in_expect, last + 1);
		CHECK(find_ev(&g, TOE_SESS_SEQ_GAP) == NULL && find_ev(&g, TOE_SESS_SEQ_REPEAT) == NULL);
		free(ss);
	}

	/* the exchange's TestRequest (toed silent past HeartBtInt + 20 %) is answered through the mailbox */
	ex_now += 40000;
	step_sess_tick(&g.ex.s, ex_now);
	CHECK_EQ(g.ex.s.test_pending, 1);
	ex_send(&g);
	drain(&g, 0);
	n = new_sent(&g, out, sizeof out);
	CHECK(n > 0 && strstr(out, "\00135=0\001") && strstr(out, "\001112=") != NULL);
	step_link_bytes(&g.ex, (const uint8_t *)out, n, ex_now);
	CHECK_EQ(g.ex.s.test_pending, 0); /* the exchange took the answer */

	/* toed's own heartbeat on its clock: nothing sent for HeartBtInt */
	tick(&g, mono_ns() + 31000 * MS);
	n = new_sent(&g, out, sizeof out);
	CHECK(n > 0 && strstr(out, "\00135=0\001") && !strstr(out, "\001112="));
	CHECK_EQ(g.d->s.f[0].l.s.st.out_heartbeats, 2); /* the TestRequest's answer was one too */

	/* the exchange's heartbeat loses a piece on the way: counted, not handed on; the next one shows
	 * the hole to the session */
	uint64_t in0 = g.d->s.f[0].l.s.st.in_msgs, exp = g.d->s.f[0].l.s.in_expect;
	ex_now += 31000;
	step_sess_tick(&g.ex.s, ex_now);
	CHECK(g.ex.s.out_len > TOE_CSESS_DATA); /* two pieces */
	ex_send(&g);
	drain(&g, 2);
	CHECK_EQ(g.d->s.f[0].l.s.st.in_msgs, in0); /* never given to the session */
	ex_now += 31000;
	step_sess_tick(&g.ex.s, ex_now);
	ex_send(&g);
	drain(&g, 0);
	CHECK_EQ(g.d->cs.st.lost, 1);
	CHECK_EQ(g.d->cs.st.pieces_lost, 1);
	CHECK_EQ(g.d->t.f[0].sess.in_lost, 1); /* toectl's session_msgs_lost */
	CHECK_EQ(g.d->s.f[0].l.s.st.in_msgs, in0 + 1);
	CHECK((ev = find_ev(&g, TOE_SESS_SEQ_GAP)) != NULL && ev->arg1 == exp && ev->arg2 == exp + 1);

	/* the exchange logs out: reported, answered, the connection closed through the enable bit */
	step_sess_logout(&g.ex.s, "end of day", ex_now);
	ex_send(&g);
	drain(&g, 0);
	CHECK((ev = find_ev(&g, TOE_SESS_PEER_LOGOUT)) != NULL && !strcmp(ev->text, "end of day"));
	n = new_sent(&g, out, sizeof out);
	CHECK(n > 0 && strstr(out, "\00135=5\001") != NULL);
	CHECK_EQ(toe_fake_gtoe_conn_word(g.f, 0, 3) & 1u, 0); /* disabled: gtoe_top closed (FIN) */
	/* the close the card reported (the fake closes at once: in the same drain) */
	CHECK((ev = find_ev(&g, TOE_SESS_DISCONNECTED)) != NULL && ev->arg1 == 1);
	CHECK_EQ(g.d->t.f[0].phase, DP_TCP_WAIT);
	CHECK_EQ(g.d->cs.st.closes, 1);
	CHECK_EQ(g.d->t.f[0].sess.closes, 1);
	/* enabled again after the backoff, not before; a reconnecting event */
	tick(&g, mono_ns() + 50 * MS);
	CHECK_EQ(toe_fake_gtoe_conn_word(g.f, 0, 3) & 1u, 0);
	tick(&g, mono_ns() + 150 * MS);
	CHECK_EQ(toe_fake_gtoe_conn_word(g.f, 0, 3) & 1u, 1);
	CHECK((ev = find_ev(&g, TOE_SESS_RECONNECTING)) != NULL && ev->arg1 == 2 && ev->arg2 == 100);
	/* the plain feed's entry was never touched */
	CHECK_EQ(toe_fake_gtoe_conn_word(g.f, 1, 3) & 1u, 1);
	CHECK_EQ(toe_fake_errors(g.f, NULL), 0);
out:
	rig_down(&g);
}

/* The order template maps to no tick type on the card: a data message of orders between two of
 * trades yields no tick record, only fast_top's TOE_CSESS_SEEN record; the session counts it (no
 * MsgSeqNum gap, the next expected number past the last message), clients never see it, and
 * fast_top still counts the records unmapped. Without the SEEN record the third message would be a
 * false TOE_SESS_SEQ_GAP. */
static void test_unmapped(const char *xclbin)
{
	struct rig g;
	uint64_t ex_now;
	struct sse_stream *ss = calloc(1, sizeof *ss);
	struct sse_gen_cfg gc;
	static uint8_t m[65536];
	union toe_record t[4];
	uint32_t nr, k = 0, order_recs = 0, ntrade = 0, norder = 0, state = 0;
	uint64_t in0, last = 0, seq;

	if (rig_up(&g, xclbin, 1, &ex_now) < 0)
		goto out;
	in0 = g.d->s.f[0].l.s.st.in_msgs;
	sse_gen_default(&gc);
	gc.seed = 5;
	CHECK_EQ(sse_stream_init(ss, &tx_prog, &gc, 4), 0);
	/* trade(s), order(s), trade: drawn messages sent while they fit the pattern, numbered on */
	seq = step_sess_next_seq(&g.ex.s, ex_now); /* the exchange's next number; the rest follow it */
	for (k = 0; k < 64 && state < 3; k++) {
		ss->seq = seq;
		int len = sse_stream_next_msg(ss, 4, m, sizeof m, NULL, t, &nr);
		int trade = t[0].hdr.type == TOE_REC_TRADE;
		CHECK(len > 0);
		if (state == 0 && !trade)
			continue; /* not sent: its number goes to the next one */
		state = state == 0 ? 1 : state == 1 ? (trade ? 1 : 2) : (trade ? 3 : 2);
		if (trade) {
			ntrade++;
		} else {
			norder++;
			order_recs += nr;
		}
		last = seq++;
		CHECK_EQ(toe_fake_gtoe_data(g.f, 0, m, (uint32_t)len), 0);
	}
	CHECK_EQ(state, 3);
	drain(&g, 0);
	CHECK_EQ(g.d->cs.st.seen, norder); /* one SEEN record per order message */
	CHECK_EQ(g.ncard, norder);
	for (uint32_t i = 0; i < g.npub; i++)
		CHECK(g.pub[i].hdr.type != TOE_REC_CARD_SESS && g.pub[i].hdr.type != TOE_REC_ORDER);
	CHECK(find_ev(&g, TOE_SESS_SEQ_GAP) == NULL && find_ev(&g, TOE_SESS_SEQ_REPEAT) == NULL);
	CHECK_EQ(g.d->s.f[0].l.s.st.in_msgs, in0 + ntrade + norder);
	CHECK_EQ(g.d->s.f[0].l.s.in_expect, last + 1);
	CHECK_EQ(counter(&g, "fast_top.tick_unmapped"), order_recs);
	CHECK_EQ(toe_fake_errors(g.f, NULL), 0);
out:
	rig_down(&g);
	free(ss);
}

/* The card reconnects on its own after the exchange's close: the host sees its attempts counter
 * grow (read at most every 100 ms, only while the entry is not up, and once at the open) and the
 * session reports each new attempt as TOE_SESS_RECONNECTING, with the card's backoff as the host
 * knows it; the card's first attempt (counted by the host at start) is not reported. */
static void test_card_reconnect(const char *xclbin)
{
	struct rig g;
	uint64_t ex_now, T = mono_ns() + 1000 * MS, reads;
	const struct toe_session *ev;

	if (rig_up(&g, xclbin, 0, &ex_now) < 0)
		goto out;
	toe_fake_gtoe_set_cst(g.f, 0, TOE_GTOE_CS_ATTEMPTS, 1); /* the card's first attempt */
	tick(&g, T);
	CHECK(find_ev(&g, TOE_SESS_RECONNECTING) == NULL);
	/* the exchange closes; the card's counter still says 1: nothing to report */
	CHECK_EQ(toe_fake_gtoe_close(g.f, 0), 0);
	drain(&g, 0);
	CHECK(find_ev(&g, TOE_SESS_DISCONNECTED) != NULL);
	CHECK_EQ(g.d->t.f[0].phase, DP_TCP_WAIT);
	tick(&g, T + 100 * MS);
	CHECK(find_ev(&g, TOE_SESS_RECONNECTING) == NULL);
	reads = g.d->att_reads;
	CHECK(reads > 0);
	/* the card tries again: seen at the next read, not before (a thousand turns read nothing) */
	toe_fake_gtoe_set_cst(g.f, 0, TOE_GTOE_CS_ATTEMPTS, 2);
	for (uint32_t k = 0; k < 1000; k++) {
		tick(&g, T + 150 * MS);
		CHECK(find_ev(&g, TOE_SESS_RECONNECTING) == NULL);
	}
	CHECK_EQ(g.d->att_reads, reads);
	tick(&g, T + 200 * MS);
	CHECK((ev = find_ev(&g, TOE_SESS_RECONNECTING)) != NULL && ev->arg1 == 2 && ev->arg2 == 100);
	CHECK_EQ(g.d->att_reads, reads + 1); /* one entry not up (the plain feed's is not read) */
	/* it failed; the next attempt after the card's doubled backoff */
	toe_fake_gtoe_set_cst(g.f, 0, TOE_GTOE_CS_ATTEMPTS, 3);
	tick(&g, T + 400 * MS);
	CHECK((ev = find_ev(&g, TOE_SESS_RECONNECTING)) != NULL && ev->arg1 == 3 && ev->arg2 == 200);
	/* the next one connects between two reads: its event comes with the open, before the Logon's */
	toe_fake_gtoe_set_cst(g.f, 0, TOE_GTOE_CS_ATTEMPTS, 4);
	CHECK_EQ(toe_fake_gtoe_open(g.f, 0), 0);
	drain(&g, 0);
	{
		int at_rec = -1, at_logon = -1;
		for (uint32_t i = 0; i < g.npub; i++) {
			if (g.pub[i].hdr.type != TOE_REC_SESSION)
				continue;
			if (g.pub[i].session.event == TOE_SESS_RECONNECTING && at_rec < 0) {
				at_rec = (int)i;
				CHECK(g.pub[i].session.arg1 == 4 && g.pub[i].session.arg2 == 400);
			}
			if (g.pub[i].session.event == TOE_SESS_LOGON_SENT && at_logon < 0)
				at_logon = (int)i;
		}
		CHECK(at_rec >= 0 && at_logon > at_rec);
	}
	CHECK_EQ(g.d->t.f[0].attempts, 4);
	/* up: no more reads */
	reads = g.d->att_reads;
	tick(&g, T + 1000 * MS);
	tick(&g, T + 2000 * MS);
	CHECK_EQ(g.d->att_reads, reads);
	CHECK(find_ev(&g, TOE_SESS_RECONNECTING) == NULL);
	CHECK_EQ(toe_fake_errors(g.f, NULL), 0);
out:
	rig_down(&g);
}

/* gtoe_top stops taking mailbox messages: toed's heartbeat is posted and the data plane goes on
 * (no wait: the session's next message, a TestRequest's answer, is kept in its queue, a thousand
 * turns post nothing more); the late message is logged once; once the kernel runs again both
 * reach the exchange in order and nothing is lost. */
static void test_mailbox_stall(const char *xclbin)
{
	struct rig g;
	char out[2048];
	uint64_t ex_now, T = mono_ns() + 31000 * MS;
	uint32_t n, nw;

	if (rig_up(&g, xclbin, 0, &ex_now) < 0)
		goto out;
	new_sent(&g, out, sizeof out); /* (the Logon) */
	toe_fake_gtoe_stall(g.f, 1);
	tick(&g, T); /* HeartBtInt passed: toed's heartbeat, posted, not taken */
	CHECK_EQ(g.d->s.f[0].l.s.st.out_heartbeats, 1);
	CHECK_EQ(toe_xrt_tcp_tx_busy(g.be), 1);
	CHECK_EQ(new_sent(&g, out, sizeof out), 0);
	/* the exchange's TestRequest: its answer waits in the session's queue */
	ex_now += 40000;
	step_sess_tick(&g.ex.s, ex_now);
	CHECK_EQ(g.ex.s.test_pending, 1);
	ex_send(&g);
	drain(&g, 0);
	CHECK(g.d->s.f[0].pend_len > 0);
	CHECK_EQ(g.d->t.f[0].sess.out_queued, g.d->s.f[0].pend_len);
	toe_fake_clear_logs(g.f);
	for (uint32_t k = 0; k < 1000; k++)
		tick(&g, T + MS);
	toe_fake_writes(g.f, &nw);
	CHECK_EQ(nw, 0); /* nothing posted over the outstanding message (the poll only reads) */
	CHECK_EQ(toe_xrt_host_stats(g.be)->tx_late, 1); /* reported once */
	CHECK_EQ(new_sent(&g, out, sizeof out), 0);
	/* the kernel runs again: the heartbeat, then the answer */
	toe_fake_gtoe_stall(g.f, 0);
	tick(&g, T + 2 * MS);
	CHECK_EQ(g.d->s.f[0].pend_len, 0);
	CHECK_EQ(toe_xrt_tcp_tx_busy(g.be), 0);
	n = new_sent(&g, out, sizeof out);
	{
		const char *hb = strstr(out, "\00135=0\001"), *ans = strstr(out, "\001112=");
		CHECK(n > 0 && hb && ans && hb < ans && strstr(hb + 1, "\00135=0\001") != NULL);
	}
	step_link_bytes(&g.ex, (const uint8_t *)out, n, ex_now);
	CHECK_EQ(g.ex.s.test_pending, 0); /* the exchange took the answer */
	CHECK_EQ(g.ex.s.st.logon_refused + g.ex.s.st.hb_timeouts, 0);
	CHECK_EQ(g.d->t.f[0].sess.out_dropped, 0);
	CHECK_EQ(toe_fake_errors(g.f, NULL), 0);
out:
	rig_down(&g);
}

/* card_sess alone: pieces out of order, a message cut by the next, a stray piece, a record that is
 * not a session record, an overflow while a message is half assembled, a message too long. */
static void test_reassembly(void)
{
	struct card_sess *c = calloc(1, sizeof *c);
	struct card_sess_out o;
	union toe_record r[4];
	struct rx_out e;
	uint8_t msg[200];
	for (uint32_t i = 0; i < sizeof msg; i++)
		msg[i] = (uint8_t)(i * 7 + 1);
	card_sess_init(c);
	/* a 200-byte message: 4 records of 64, 64, 64, 8 bytes */
	memset(&e, 0, sizeof e);
	e.kind = RX_OUT_SESS;
	e.reason = RX_SESS_MSG;
	e.data = msg;
	e.len = sizeof msg;
	e.tick.hdr.type = TOE_REC_CARD_SESS;
	e.tick.hdr.stream = 3;
	e.tick.hdr.msg_seq = 77;
	((struct toe_card_sess *)e.tick.bytes)->kind = TOE_CSESS_PIECE;
	((struct toe_card_sess *)e.tick.bytes)->msg_len = sizeof msg;
	((struct toe_card_sess *)e.tick.bytes)->msg_no = 1;
	memcpy(((struct toe_card_sess *)e.tick.bytes)->msgtype, "0", 2);
	CHECK_EQ(rx_sess_records(&e), 4);
	for (uint32_t k = 0; k < 4; k++)
		rx_sess_record(&r[k], &e, k);
	CHECK_EQ(((struct toe_card_sess *)r[3].bytes)->len, 8);
	CHECK_EQ(((struct toe_card_sess *)r[2].bytes)->npieces, 4);
	for (uint32_t k = 0; k < 4; k++) {
		card_sess_put(c, &r[k], &o);
		CHECK_EQ(o.what, k == 3 ? CARD_SESS_MSG : CARD_SESS_NONE);
		CHECK_EQ(o.lost, 0);
	}
	CHECK(o.len == sizeof msg && !memcmp(o.msg, msg, sizeof msg) && o.msg_seq == 77 && !strcmp(o.msgtype, "0"));
	/* message 2: piece 1 before piece 0 (its start lost), then message 3 whole: two losses... */
	((struct toe_card_sess *)e.tick.bytes)->msg_no = 2;
	for (uint32_t k = 0; k < 4; k++)
		rx_sess_record(&r[k], &e, k);
	card_sess_put(c, &r[1], &o); /* a piece of a message whose start never came */
	CHECK_EQ(o.what, CARD_SESS_NONE);
	CHECK_EQ(o.lost, 1);
	card_sess_put(c, &r[2], &o); /* more of the same: not counted twice */
	CHECK_EQ(o.lost, 0);
	((struct toe_card_sess *)e.tick.bytes)->msg_no = 4; /* message 3 never came at all */
	for (uint32_t k = 0; k < 4; k++)
		rx_sess_record(&r[k], &e, k);
	card_sess_put(c, &r[0], &o);
	CHECK_EQ(o.lost, 1);
	card_sess_put(c, &r[1], &o);
	card_sess_overflow(c); /* the ring overflowed: message 4 will never be whole */
	card_sess_put(c, &r[2], &o); /* (its later pieces: strays) */
	CHECK_EQ(o.what, CARD_SESS_NONE);
	CHECK_EQ(o.lost, 1);
	CHECK_EQ(c->st.lost, 3);
	CHECK_EQ(c->st.msgs, 1);
	/* too long for the card to send: one record saying so, counted as lost */
	e.len = TOE_CSESS_MAX_BYTES + 1;
	((struct toe_card_sess *)e.tick.bytes)->msg_no = 5;
	CHECK_EQ(rx_sess_records(&e), 1);
	rx_sess_record(&r[0], &e, 0);
	CHECK_EQ(((struct toe_card_sess *)r[0].bytes)->kind, TOE_CSESS_TOO_LONG);
	card_sess_put(c, &r[0], &o);
	CHECK_EQ(o.lost, 1);
	CHECK_EQ(c->st.too_long, 1);
	/* a close; a tick record handed by mistake; a stream beyond the card's */
	e.reason = RX_SESS_CLOSE;
	((struct toe_card_sess *)e.tick.bytes)->kind = TOE_CSESS_CLOSE;
	((struct toe_card_sess *)e.tick.bytes)->msg_no = 6;
	rx_sess_record(&r[0], &e, 0);
	card_sess_put(c, &r[0], &o);
	CHECK_EQ(o.what, CARD_SESS_CLOSE);
	CHECK_EQ(o.lost, 0);
	r[0].hdr.type = TOE_REC_TRADE;
	card_sess_put(c, &r[0], &o);
	r[0].hdr.type = TOE_REC_CARD_SESS;
	r[0].hdr.stream = CARD_SESS_STREAMS;
	card_sess_put(c, &r[0], &o);
	CHECK_EQ(c->st.bad, 2);
	free(c);
}

int main(void)
{
	struct tx_xclbin xd;
	char path[64];
	if (tx_load_prog() != 0)
		return test_skip("xrt_sess", "cannot compile " TX_TEMPLATES);
	tx_xclbin_default(&xd);
	xd.tcp = 1;
	if (tx_xclbin_file(&xd, path) != 0)
		return test_skip("xrt_sess", "cannot write a temporary xclbin in /tmp");
	test_reassembly();
	test_session(path);
	test_unmapped(path);
	test_card_reconnect(path);
	test_mailbox_stall(path);
	unlink(path);
	return test_done("xrt_sess");
}
