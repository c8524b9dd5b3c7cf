/* test_rx_seq.c - sequence tracking and A/B arbitration inside the receive pipeline (RX_CFG_SEQ).
 *
 * STEP messages are encoded here from tick records whose channel and
 * BizIndex the test chooses (sse_encode_msg), and handed to rx_pipe as the
 * mirror TOE's events (rx_init_decode + rx_event: OPEN, DATA, CLOSE), so
 * each TCP connection is one line. Expected entries come from the test's
 * own bookkeeping of what each line carried:
 *   - one line: a BizIndex jump is a TOE_GAP_SEQUENCE entry naming channel
 *     and range before the record; a repeated message's records are dropped
 *     (counted); a heartbeat between messages is no MsgSeqNum jump; a real
 *     MsgSeqNum jump is a TOE_GAP_MSG_SEQ entry; after a new logon (MsgSeqNum
 *     1) a RESET RESTART for the MsgSeqNum, then one for the channel going
 *     back to 1 - neither is a gap;
 *   - one line, a channel's first records out of order (15, 3, 1, 2): all
 *     delivered, those below 15 with TOE_RF_LATE, 4..14 a gap after the wait;
 *   - one line over UDP (datagrams through the whole pipeline), reordered
 *     1, 2, 4, 3 and then losing one: every record that came delivered (3
 *     late), the lost one a gap after the wait;
 *   - the end-of-capture poll: records it releases from behind a byte hole
 *     (a jump of an A/B group) have their hole reported by that poll too;
 *   - a poll's timer events come before its holes' expiry: records a byte
 *     hole's timeout releases fill the group's hole instead of being
 *     declared lost and then dropped as copies;
 *   - two lines in group 2 (hdr.group 2), each missing its own messages,
 *     the second lagging: every record delivered exactly once if a line
 *     carried it, with the line that carried it first; a gap exactly for
 *     each run both lost, after the wait (rx_poll); then the first line
 *     closes (RESET ARB_SWITCH) and the second carries on alone, nothing lost.
 */
#include "test_rx_common.h"
#include "fast/host/fast_encode.h"
#include "fast/host/step_frame.h"

#define US 1000ull

static struct fast_enc enc;

/* A STEP message of n records of `type` on channel ch with BizIndex biz[0..n). */
static int make_msg(uint8_t *out, size_t cap, uint64_t msgseq, int type, uint32_t ch, const uint64_t *biz,
		    uint32_t n)
{
	union toe_record r[16];
	uint32_t k;
	memset(r, 0, sizeof r);
	for (k = 0; k < n && k < 16; k++) {
		r[k].hdr.type = (uint16_t)type;
		if (type == TOE_REC_TRADE) {
			r[k].trade.trade_channel = (int32_t)ch;
			r[k].trade.trade_index = (int32_t)biz[k];
			r[k].trade.biz_index = (int64_t)biz[k];
			memcpy(r[k].trade.security_id, "600000", 6);
			r[k].hdr.present = (1u << TOE_TF_TRADE_CHANNEL) | (1u << TOE_TF_TRADE_INDEX) |
					   (1u << TOE_TF_BIZ_INDEX) | (1u << TOE_TF_SECURITY_ID);
		} else {
			r[k].order.order_channel = (int32_t)ch;
			r[k].order.order_index = (int32_t)biz[k];
			r[k].order.biz_index = (int64_t)biz[k];
			memcpy(r[k].order.security_id, "600519", 6);
			r[k].hdr.present = (1u << TOE_TF_ORDER_CHANNEL) | (1u << TOE_TF_ORDER_INDEX) |
					   (1u << TOE_TF_BIZ_INDEX) | (1u << TOE_TF_SECURITY_ID);
		}
	}
	return sse_encode_msg(&tr_prog, &enc, r, n, msgseq, out, cap, NULL);
}

/* A message without FAST data (a heartbeat or a logon). */
static int make_hb(uint8_t *out, size_t cap, uint64_t msgseq, const char *type)
{
	struct step_hdr h = {type, "SSE", "VDE", msgseq, "20261201-09:30:00.000"};
	return step_frame(&h, NULL, 0, out, cap);
}

struct got {
	struct rx_out o[512];
	uint32_t n;
};

static struct rx_pipe *pipe_;
static struct fast_stream *fs_;
static uint64_t off_[4];

static void drain_into(struct got *g)
{
	struct rx_out o;
	while (rx_drain(pipe_, &o)) {
		if (o.kind == RX_OUT_RECORD || o.kind == RX_OUT_GAP || o.kind == RX_OUT_RESET) {
			CHECK(g->n < 512);
			if (g->n < 512)
				g->o[g->n++] = o;
		}
	}
}

static void ev_open(uint16_t conn, uint16_t flow, uint64_t ts, struct got *g)
{
	struct mtoe_event e = {MTOE_EV_OPEN, MTOE_OPEN_SYN, conn, flow, 0, 0, 0, NULL};
	off_[conn] = 0;
	CHECK_EQ(rx_event(pipe_, &e, ts), 1);
	drain_into(g);
}

static void ev_close(uint16_t conn, uint16_t flow, uint64_t ts, struct got *g)
{
	struct mtoe_event e = {MTOE_EV_CLOSE, MTOE_CLOSE_FIN, conn, flow, 0, off_[conn], 0, NULL};
	CHECK_EQ(rx_event(pipe_, &e, ts), 1);
	drain_into(g);
}

static void ev_data(uint16_t conn, uint16_t flow, const uint8_t *d, int len, uint64_t ts, struct got *g)
{
	struct mtoe_event e = {MTOE_EV_DATA, 0, conn, flow, 0, off_[conn], (uint64_t)len, d};
	CHECK(len > 0);
	if (len <= 0)
		return;
	CHECK_EQ(rx_event(pipe_, &e, ts), 1);
	off_[conn] += (uint64_t)len;
	drain_into(g);
}

static void setup(struct rx_cfg *cfg)
{
	rx_cfg_default(cfg);
	cfg->mtoe.max_conns = 4;
	cfg->mtoe.nflows = 2;
	cfg->flags = RX_CFG_SEQ;
	if (!pipe_)
		pipe_ = calloc(1, sizeof *pipe_);
	if (!fs_)
		fs_ = calloc(RX_NSTREAMS(cfg), sizeof *fs_);
}

static uint64_t biz_of(const struct rx_out *o)
{
	return o->tick.hdr.type == TOE_REC_TRADE ? (uint64_t)o->tick.trade.biz_index : (uint64_t)o->tick.order.biz_index;
}

static uint32_t chan_of(const struct rx_out *o)
{
	return o->tick.hdr.type == TOE_REC_TRADE ? (uint32_t)o->tick.trade.trade_channel
						 : (uint32_t)o->tick.order.order_channel;
}

/* o is a TOE_GAP_SEQUENCE entry: channel ch misses [first, last]. */
static void seq_gap_is(const struct rx_out *o, uint32_t ch, uint64_t first, uint64_t last)
{
	CHECK_EQ(o->kind, RX_OUT_GAP);
	CHECK_EQ(o->tick.gap.reason, TOE_GAP_SEQUENCE);
	CHECK_EQ(o->tick.gap.channel, ch);
	CHECK_EQ(o->tick.gap.first, first);
	CHECK_EQ(o->tick.gap.last, last);
}

/* ---- one line ------------------------------------------------------------ */

static void test_one_line(void)
{
	static struct got g;
	static uint8_t b[4096];
	struct rx_cfg cfg;
	uint64_t biz[4];
	int n;
	uint32_t i;
	setup(&cfg);
	CHECK_EQ(rx_init_decode(pipe_, &cfg, &tr_prog, fs_, RX_NSTREAMS(&cfg)), RX_OK);
	g.n = 0;
	ev_open(0, 0, 1, &g);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.o[0].kind, RX_OUT_RESET);
	CHECK_EQ(g.o[0].tick.reset.reason, TOE_RESET_SYN);
	CHECK_EQ(g.o[0].tick.hdr.group, 1);

	biz[0] = 1, biz[1] = 2, biz[2] = 3;
	ev_data(0, 0, b, make_msg(b, sizeof b, 1, TOE_REC_TRADE, 1, biz, 3), 2, &g);
	ev_data(0, 0, b, make_hb(b, sizeof b, 2, "UA1201"), 3, &g); /* a heartbeat takes MsgSeqNum 2 */
	biz[0] = 4;
	ev_data(0, 0, b, make_msg(b, sizeof b, 3, TOE_REC_ORDER, 1, biz, 1), 4, &g); /* 5801 shares BizIndex */
	CHECK_EQ(g.n, 5);
	for (i = 1; i < 5; i++) {
		CHECK_EQ(g.o[i].kind, RX_OUT_RECORD);
		CHECK_EQ(biz_of(&g.o[i]), i);
		CHECK_EQ(chan_of(&g.o[i]), 1);
		CHECK_EQ(g.o[i].tick.hdr.group, 1);
		CHECK_EQ(g.o[i].tick.hdr.line, 0);
		CHECK_EQ(g.o[i].tick.hdr.flags, 0);
	}
	/* BizIndex 4 -> 7: the gap names channel 1, 5..6, before record 7 */
	biz[0] = 7, biz[1] = 8;
	n = make_msg(b, sizeof b, 4, TOE_REC_TRADE, 1, biz, 2);
	ev_data(0, 0, b, n, 5, &g);
	CHECK_EQ(g.n, 8);
	seq_gap_is(&g.o[5], 1, 5, 6);
	CHECK_EQ(g.o[5].tick.gap.records, 2);
	CHECK_EQ(g.o[5].tick.hdr.group, 1);
	CHECK_EQ(biz_of(&g.o[6]), 7);
	CHECK_EQ(biz_of(&g.o[7]), 8);
	/* the same message again: no entry at all (MsgSeqNum repeat, BizIndex copies) */
	ev_data(0, 0, b, n, 6, &g);
	CHECK_EQ(g.n, 8);
	CHECK_EQ(pipe_->st.seq_dups, 2);
	CHECK_EQ(pipe_->st.msg_repeats, 1);
	/* MsgSeqNum 4 -> 7: messages 5..6 never came; channel 2 starts (no BizIndex gap) */
	biz[0] = 1;
	ev_data(0, 0, b, make_msg(b, sizeof b, 7, TOE_REC_TRADE, 2, biz, 1), 7, &g);
	CHECK_EQ(g.n, 10);
	CHECK_EQ(g.o[8].kind, RX_OUT_GAP);
	CHECK_EQ(g.o[8].tick.gap.reason, TOE_GAP_MSG_SEQ);
	CHECK_EQ(g.o[8].tick.gap.first, 5);
	CHECK_EQ(g.o[8].tick.gap.last, 6);
	CHECK_EQ(g.o[8].tick.hdr.msg_seq, 7);
	CHECK_EQ(chan_of(&g.o[9]), 2);
	CHECK_EQ(biz_of(&g.o[9]), 1);
	biz[0] = 9;
	ev_data(0, 0, b, make_msg(b, sizeof b, 8, TOE_REC_ORDER, 1, biz, 1), 8, &g);
	CHECK_EQ(g.n, 11);
	CHECK_EQ(biz_of(&g.o[10]), 9);

	/* a new logon: MsgSeqNum 1 again, then channel 1 from BizIndex 1 */
	ev_data(0, 0, b, make_hb(b, sizeof b, 1, "A"), 9, &g);
	CHECK_EQ(g.n, 12);
	CHECK_EQ(g.o[11].kind, RX_OUT_RESET);
	CHECK_EQ(g.o[11].tick.reset.reason, TOE_RESET_RESTART);
	CHECK_EQ(g.o[11].tick.reset.channel, TOE_CHANNEL_NONE);
	CHECK_EQ(g.o[11].tick.reset.last, 8);
	biz[0] = 1, biz[1] = 2;
	ev_data(0, 0, b, make_msg(b, sizeof b, 2, TOE_REC_TRADE, 1, biz, 2), 10, &g);
	CHECK_EQ(g.n, 15);
	CHECK_EQ(g.o[12].kind, RX_OUT_RESET);
	CHECK_EQ(g.o[12].tick.reset.reason, TOE_RESET_RESTART);
	CHECK_EQ(g.o[12].tick.reset.channel, 1);
	CHECK_EQ(g.o[12].tick.reset.last, 9);
	CHECK_EQ(biz_of(&g.o[13]), 1);
	CHECK_EQ(biz_of(&g.o[14]), 2);

	CHECK_EQ(pipe_->st.seq_gaps, 1);
	CHECK_EQ(pipe_->st.seq_missing, 2);
	CHECK_EQ(pipe_->st.msg_jumps, 1);
	CHECK_EQ(pipe_->st.msg_missing, 2);
	CHECK_EQ(pipe_->st.msg_restarts, 1);
	CHECK_EQ(pipe_->st.seq_restarts, 1);
	CHECK_EQ(pipe_->st.seq_unkeyed, 0);
	CHECK_EQ(pipe_->sst[0].msg_jumps, 1);
	CHECK_EQ(pipe_->sst[0].msg_repeats, 1);
	CHECK_EQ(pipe_->grp[0].nlines, 1);
	CHECK_EQ(pipe_->st.undrained, 0);
	/* nothing pending */
	rx_poll(pipe_, 100 * TR_MS);
	drain_into(&g);
	CHECK_EQ(g.n, 15);
}

/* One line whose channel's first records come out of order (15, 3, 1, 2):
 * what the client sees. Every record is an entry; those below the first
 * carry TOE_RF_LATE; the range nobody sent (4..14) is a TOE_GAP_SEQUENCE
 * entry once the wait ran out (rx_poll), not at once and not never. */
static void test_one_line_join(void)
{
	static struct got g;
	static uint8_t b[4096];
	struct rx_cfg cfg;
	uint64_t biz[2];
	uint32_t i;
	static const uint64_t want[4] = {15, 3, 1, 2};
	setup(&cfg);
	CHECK_EQ(rx_init_decode(pipe_, &cfg, &tr_prog, fs_, RX_NSTREAMS(&cfg)), RX_OK);
	g.n = 0;
	ev_open(0, 0, 1 * TR_MS, &g);
	biz[0] = 15;
	ev_data(0, 0, b, make_msg(b, sizeof b, 1, TOE_REC_TRADE, 1, biz, 1), 1 * TR_MS + 10 * US, &g);
	biz[0] = 3;
	ev_data(0, 0, b, make_msg(b, sizeof b, 2, TOE_REC_ORDER, 1, biz, 1), 1 * TR_MS + 20 * US, &g);
	biz[0] = 1, biz[1] = 2;
	ev_data(0, 0, b, make_msg(b, sizeof b, 3, TOE_REC_TRADE, 1, biz, 2), 1 * TR_MS + 30 * US, &g);
	CHECK_EQ(g.n, 5); /* the SYN reset, four records, no gap yet */
	for (i = 0; i < 4 && i + 1 < g.n; i++) {
		CHECK_EQ(g.o[i + 1].kind, RX_OUT_RECORD);
		CHECK_EQ(biz_of(&g.o[i + 1]), want[i]);
		CHECK_EQ(!!(g.o[i + 1].tick.hdr.flags & TOE_RF_LATE), i > 0);
	}
	rx_poll(pipe_, 1 * TR_MS + 20 * US + SEQ_DEFAULT_WAIT_NS - 1);
	drain_into(&g);
	CHECK_EQ(g.n, 5);
	rx_poll(pipe_, 1 * TR_MS + 20 * US + SEQ_DEFAULT_WAIT_NS);
	drain_into(&g);
	CHECK_EQ(g.n, 6);
	seq_gap_is(&g.o[5], 1, 4, 14);
	CHECK_EQ(pipe_->st.seq_late, 3);
	CHECK_EQ(pipe_->st.seq_gaps, 1);
	CHECK_EQ(pipe_->st.seq_missing, 11);
	CHECK_EQ(pipe_->st.seq_dups, 0);
}

/* ---- one line over UDP ----------------------------------------------------- */

/* Records and gaps of a frame or a poll (rx_next) into g. */
static void next_into(struct rx_pipe *p, struct got *g)
{
	struct rx_out o;
	while (rx_next(p, &o))
		if ((o.kind == RX_OUT_RECORD || o.kind == RX_OUT_GAP) && g->n < 512)
			g->o[g->n++] = o;
}

/* An ungrouped UDP feed (line 0 of the default group, as every ungrouped
 * TCP connection is too), through the whole pipeline (frames, rx_init).
 * Datagrams 1, 2, 4, 3, 5 then 7 (6 lost; BizIndex and MsgSeqNum alike):
 * every record that came is an entry (3 with TOE_RF_LATE), and 6 is a
 * TOE_GAP_SEQUENCE and a TOE_GAP_MSG_SEQ entry only once the wait ran out,
 * not at once (3 would then have been dropped as a copy, and its message
 * reported missing when it was only late).
 * (TCP beside UDP in one group, record by record: test_seq_track.) */
static void test_udp_line(void)
{
	static struct tr_rx t;
	static struct got g;
	static uint8_t b[4096];
	struct rx_cfg cfg;
	struct pb_spec u;
	static const uint64_t order[6] = {1, 2, 4, 3, 5, 7};
	uint64_t biz[1], ts = 1 * TR_MS;
	uint32_t i, sid;
	tr_cfg(&cfg);
	cfg.flags = RX_CFG_SEQ;
	cfg.nudp = 1;
	cfg.udp[0].port = 5000;
	cfg.udp[0].framing = FAST_FRAMING_STEP;
	sid = cfg.mtoe.max_conns; /* the UDP port's stream */
	tr_rx_init(&t, &cfg, 1 << 16);
	pb_init(&u);
	u.saddr = 0x0a000101u;
	u.daddr = 0x0a000202u;
	u.sport = 6000;
	u.dport = 5000;
	g.n = 0;
	for (i = 0; i < 6; i++) {
		int n;
		biz[0] = order[i];
		n = make_msg(b, sizeof b, order[i], TOE_REC_TRADE, 1, biz, 1); /* MsgSeqNum reordered too */
		CHECK(n > 0);
		ts += 10 * US;
		rx_frame(t.p, tr_scratch, pb_udp(tr_scratch, sizeof tr_scratch, &u, b, (uint32_t)n), ts);
		next_into(t.p, &g);
	}
	CHECK_EQ(g.n, 6); /* six records, no gap yet */
	for (i = 0; i < 6 && i < g.n; i++) {
		CHECK_EQ(g.o[i].kind, RX_OUT_RECORD);
		CHECK_EQ(g.o[i].stream, sid);
		CHECK_EQ(biz_of(&g.o[i]), order[i]);
		CHECK_EQ(!!(g.o[i].tick.hdr.flags & TOE_RF_LATE), order[i] == 3);
	}
	CHECK_EQ(t.p->st.msg_jumps, 0); /* MsgSeqNum 4 before 3: no jump reported */
	CHECK_EQ(t.p->st.msg_late, 1);
	CHECK_EQ(t.p->st.msg_repeats, 0);
	/* the holes 7 opened at ts (BizIndex and MsgSeqNum 6): gaps at ts + wait, not a nanosecond before */
	rx_poll(t.p, ts + SEQ_DEFAULT_WAIT_NS - 1);
	next_into(t.p, &g);
	CHECK_EQ(g.n, 6);
	rx_poll(t.p, ts + SEQ_DEFAULT_WAIT_NS);
	next_into(t.p, &g);
	CHECK_EQ(g.n, 8);
	for (i = 6; i < 8 && i < g.n; i++) {
		CHECK_EQ(g.o[i].kind, RX_OUT_GAP);
		CHECK_EQ(g.o[i].stream, sid);
		if (g.o[i].tick.gap.reason == TOE_GAP_MSG_SEQ) {
			CHECK_EQ(g.o[i].tick.gap.first, 6);
			CHECK_EQ(g.o[i].tick.gap.last, 6);
			CHECK_EQ(g.o[i].tick.hdr.msg_seq, 7); /* the last message seen */
			CHECK_EQ(g.o[i].tick.hdr.group, 1);
		} else {
			seq_gap_is(&g.o[i], 1, 6, 6);
		}
	}
	CHECK(g.o[6].tick.gap.reason != g.o[7].tick.gap.reason);
	CHECK_EQ(t.p->st.seq_late, 1);
	CHECK_EQ(t.p->st.seq_gaps, 1);
	CHECK_EQ(t.p->st.seq_dups, 0);
	CHECK_EQ(t.p->st.msg_jumps, 1);
	CHECK_EQ(t.p->st.msg_missing, 1);
	CHECK_EQ(t.p->sst[sid].msg_late, 1);
	tr_rx_free(&t);
}

/* ---- the end-of-capture poll ------------------------------------------------ */

/* A whole pipeline (frames) whose mirror flows 0 and 1 (exchange ports
 * TR_EX_PORT and TR_EX_PORT + 1) are lines 0 and 1 of A/B group 1. */
static void ab_pipe(struct tr_rx *t, struct rx_cfg *cfg)
{
	tr_cfg(cfg);
	cfg->flags = RX_CFG_SEQ;
	cfg->mtoe.flows[1] = cfg->mtoe.flows[0];
	cfg->mtoe.flows[1].ex_port = TR_EX_PORT + 1;
	cfg->mtoe.nflows = 2;
	cfg->seq.ngroups = 2;
	cfg->seq.flow_group[0] = 1;
	cfg->seq.flow_line[0] = 0;
	cfg->seq.flow_group[1] = 1;
	cfg->seq.flow_line[1] = 1;
	tr_rx_init(t, cfg, 1 << 16);
}

/* Line 0 of an A/B group (a mirrored connection, joined mid-stream) loses
 * the segment carrying BizIndex 3..4; the segments after it wait in the
 * mirror TOE behind the byte hole until the end-of-capture poll times it
 * out, which releases 5..6: a jump there, a hole of the group, that this
 * very poll must also report (TOE_GAP_SEQUENCE 3..4), since no poll comes
 * after it. */
static void test_final_poll_hole(void)
{
	static struct tr_rx t;
	static struct got g;
	static uint8_t b[3][1024];
	struct tr_frames l = {0};
	struct rx_cfg cfg;
	struct pb_spec sp;
	uint64_t biz[2];
	int n[3];
	uint32_t i, seq = 5000, seqgaps = 0;
	ab_pipe(&t, &cfg); /* line 1 sends nothing here */
	tr_spec(&sp, TR_VE_PORT);
	for (i = 0; i < 3; i++) {
		biz[0] = 1 + 2 * i, biz[1] = 2 + 2 * i;
		n[i] = make_msg(b[i], sizeof b[i], i + 1, TOE_REC_TRADE, 1, biz, 2);
		CHECK(n[i] > 0);
	}
	/* segments 0 and 2, all at one time: nothing times out before the end */
	tr_seg(&l, &sp, seq, TCP_ACK | TCP_PSH, b[0], (uint32_t)n[0], 1 * TR_MS);
	tr_seg(&l, &sp, seq + (uint32_t)n[0] + (uint32_t)n[1], TCP_ACK | TCP_PSH, b[2], (uint32_t)n[2], 1 * TR_MS);
	g.n = 0;
	for (i = 0; i < l.n; i++) {
		rx_frame(t.p, l.f[i].buf, l.f[i].len, l.f[i].ts);
		next_into(t.p, &g);
	}
	rx_poll(t.p, UINT64_MAX);
	next_into(t.p, &g);
	for (i = 0; i < g.n; i++)
		if (g.o[i].kind == RX_OUT_GAP && g.o[i].tick.gap.reason == TOE_GAP_SEQUENCE) {
			seq_gap_is(&g.o[i], 1, 3, 4);
			seqgaps++;
		}
	CHECK_EQ(seqgaps, 1);
	CHECK_EQ(t.p->st.seq_gaps, 1);
	CHECK_EQ(t.p->grp[1].st.holes, 1);
	tr_frames_free(&l);
	tr_rx_free(&t);
}

/* ---- a poll's timer events before its holes ------------------------------- */

/* Lines 0 and 1 of an A/B group, both mirrored connections joined
 * mid-stream, carry the same messages: m1 (BizIndex 1, 2), a heartbeat,
 * m2 (3, 4), m3 (5, 6). Line 0 loses the heartbeat's segment, so m2 and m3
 * wait behind its byte hole; line 1 goes from the heartbeat to m3, so its 5
 * opens the group's hole 3..4. One poll, late enough for both the byte hole's timeout and the
 * hole's wait (at a run's pace, or the end-of-capture poll), first releases
 * line 0's bytes: 3 and 4 come (late) and fill the hole, and no
 * TOE_GAP_SEQUENCE is reported. Expiring the holes before the mirror TOE's
 * timers would declare 3..4 lost and then drop them as copies. With
 * early_ns, a poll first comes after the hole's wait but before the byte
 * hole's timeout: line 0 still holds bytes and has not passed 3, so the
 * hole waits for it (seq_track.h, Choices) instead of being declared lost. */
static void test_poll_fills_hole(uint64_t early_ns, uint64_t poll_ns)
{
	static struct tr_rx t;
	static struct got g;
	static uint8_t b[4][1024];
	struct tr_frames l = {0};
	struct rx_cfg cfg;
	struct pb_spec sp[2];
	uint64_t biz[2];
	int n[4];
	uint32_t i, seqgaps = 0, count[7] = {0}, isn[2] = {5000, 90000}, off[4] = {0};
	ab_pipe(&t, &cfg);
	tr_spec(&sp[0], TR_VE_PORT);
	tr_spec(&sp[1], TR_VE_PORT + 1);
	sp[1].sport = TR_EX_PORT + 1;
	for (i = 0; i < 3; i++) { /* m1, m2, m3 in message slots 0, 2, 3 (MsgSeqNum = slot + 1) */
		uint32_t k = i ? i + 1 : 0;
		biz[0] = 1 + 2 * i, biz[1] = 2 + 2 * i;
		n[k] = make_msg(b[k], sizeof b[k], k + 1, TOE_REC_TRADE, 1, biz, 2);
	}
	n[1] = make_hb(b[1], sizeof b[1], 2, "0");
	for (i = 0; i < 4; i++) {
		CHECK(n[i] > 0);
		off[i] = i ? off[i - 1] + (uint32_t)n[i - 1] : 0;
	}
	/* line 0: m1, (heartbeat lost), m2, m3; line 1 never sent m2 (its bytes
	 * are m1, heartbeat, m3: only its MsgSeqNum jumps) */
	tr_seg(&l, &sp[0], isn[0] + off[0], TCP_ACK | TCP_PSH, b[0], (uint32_t)n[0], 1 * TR_MS);
	tr_seg(&l, &sp[1], isn[1] + off[0], TCP_ACK | TCP_PSH, b[0], (uint32_t)n[0], 1 * TR_MS);
	tr_seg(&l, &sp[0], isn[0] + off[2], TCP_ACK | TCP_PSH, b[2], (uint32_t)n[2], 1 * TR_MS);
	tr_seg(&l, &sp[0], isn[0] + off[3], TCP_ACK | TCP_PSH, b[3], (uint32_t)n[3], 1 * TR_MS);
	tr_seg(&l, &sp[1], isn[1] + off[1], TCP_ACK | TCP_PSH, b[1], (uint32_t)n[1], 1 * TR_MS);
	tr_seg(&l, &sp[1], isn[1] + off[2], TCP_ACK | TCP_PSH, b[3], (uint32_t)n[3], 1 * TR_MS);
	g.n = 0;
	for (i = 0; i < l.n; i++) {
		rx_frame(t.p, l.f[i].buf, l.f[i].len, l.f[i].ts);
		next_into(t.p, &g);
	}
	CHECK_EQ(t.p->grp[1].st.holes, 1); /* 3..4, opened by line 1's 5 */
	CHECK_EQ(t.p->grp[1].held_lines, 1u << 0); /* line 0's m2 and m3 wait behind the heartbeat's segment */
	if (early_ns) {
		rx_poll(t.p, early_ns);
		next_into(t.p, &g);
		for (i = 0; i < g.n; i++)
			CHECK(!(g.o[i].kind == RX_OUT_GAP && g.o[i].tick.gap.reason == TOE_GAP_SEQUENCE));
		CHECK_EQ(t.p->st.seq_gaps, 0);
		CHECK_EQ(t.p->grp[1].chan[0].nholes, 1);
		CHECK_EQ(t.p->grp[1].held_lines, 1u << 0);
	}
	rx_poll(t.p, poll_ns);
	next_into(t.p, &g);
	for (i = 0; i < g.n; i++) {
		if (g.o[i].kind == RX_OUT_GAP && g.o[i].tick.gap.reason == TOE_GAP_SEQUENCE)
			seqgaps++;
		if (g.o[i].kind == RX_OUT_RECORD && biz_of(&g.o[i]) >= 1 && biz_of(&g.o[i]) <= 6)
			count[biz_of(&g.o[i])]++;
	}
	for (i = 1; i <= 6; i++)
		CHECK_EQ(count[i], 1);
	CHECK_EQ(seqgaps, 0);
	CHECK_EQ(t.p->st.seq_gaps, 0);
	CHECK_EQ(t.p->st.seq_late, 2);
	CHECK_EQ(t.p->grp[1].held_lines, 0); /* the byte hole timed out: nothing held */
	CHECK_EQ(t.p->grp[1].st.held_waits, early_ns ? 1 : 0); /* (one poll: the timers first, no wait) */
	tr_frames_free(&l);
	tr_rx_free(&t);
}

/* ---- two lines ----------------------------------------------------------- */

#define NMSG 300
#define MAXB 400

struct tmsg {
	int type;
	uint32_t ch, n;
	uint64_t biz[4];
};

static struct tmsg tm[NMSG + 40];
static uint8_t carried[3][MAXB * 2]; /* [ch][biz] lines that carried it (bits) */
static uint8_t seen[3][MAXB * 2];
static uint8_t first_line[3][MAXB * 2];
static uint8_t gapped[3][MAXB * 2];

static int lost_on(uint32_t line, uint32_t i)
{
	/* each line its own losses; both lose i = 3 (mod 77), 3 of them in a row at 150..152 */
	if (line == 0)
		return i % 7 == 3 || (i >= 150 && i <= 152);
	return i % 11 == 3 || (i >= 150 && i <= 152);
}

static void test_two_lines(void)
{
	static struct got g;
	static uint8_t b[4096];
	struct rx_cfg cfg;
	uint64_t next[3] = {0, 1, 1}, t = 0;
	uint32_t maxdel[3] = {0, 0, 0};
	uint32_t i, k, ch, s;
	uint32_t msgs = NMSG + 40;
	uint32_t rng = 7;
	setup(&cfg);
	cfg.seq.ngroups = 2;
	cfg.seq.flow_group[0] = 1;
	cfg.seq.flow_group[1] = 1;
	cfg.seq.flow_line[0] = 0;
	cfg.seq.flow_line[1] = 1;
	CHECK_EQ(rx_init_decode(pipe_, &cfg, &tr_prog, fs_, RX_NSTREAMS(&cfg)), RX_OK);
	CHECK_EQ(pipe_->grp[1].nlines, 2);
	memset(carried, 0, sizeof carried);
	memset(seen, 0, sizeof seen);
	memset(gapped, 0, sizeof gapped);
	memset(first_line, 0xff, sizeof first_line);
	/* the exchange's messages: channels 1 and 2, 1..4 records, trades or orders */
	for (i = 0; i < msgs; i++) {
		rng = rng * 1103515245u + 12345u;
		tm[i].ch = 1 + (rng >> 16) % 2;
		if (i == msgs - 1)
			tm[i].ch = tm[msgs - 3].ch; /* reveals line 1's last loss (below) */
		tm[i].type = (rng >> 20) & 1 ? TOE_REC_TRADE : TOE_REC_ORDER;
		tm[i].n = 1 + (rng >> 24) % 4;
		for (k = 0; k < tm[i].n; k++)
			tm[i].biz[k] = next[tm[i].ch]++;
	}
	g.n = 0;
	ev_open(0, 0, t, &g);
	ev_open(1, 1, t, &g);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.o[0].tick.hdr.group, 2);
	CHECK_EQ(g.o[1].tick.hdr.line, 1);
	/* line 0 sends message i at step i, line 1 at step i + 2 (it lags);
	 * line 0 closes after NMSG messages, line 1 carries the rest alone */
	for (i = 0; i < msgs + 2; i++) {
		uint32_t L;
		for (L = 0; L < 2; L++) {
			uint32_t m = L == 0 ? i : i - 2;
			int n;
			if (L == 1 && i < 2)
				continue;
			if (m >= msgs || (L == 0 && m >= NMSG))
				continue;
			t += 10 * US;
			if (lost_on(L, m) && m < NMSG)
				continue;
			/* alone, line 1 loses one more: only the timer (rx_poll) can declare it */
			if (L == 1 && m == msgs - 3)
				continue;
			n = make_msg(b, sizeof b, m + 1, tm[m].type, tm[m].ch, tm[m].biz, tm[m].n);
			for (k = 0; k < tm[m].n; k++)
				carried[tm[m].ch][tm[m].biz[k]] |= (uint8_t)(1u << L);
			g.n = 0;
			ev_data((uint16_t)L, (uint16_t)L, b, n, t, &g);
			for (k = 0; k < g.n; k++) {
				const struct rx_out *o = &g.o[k];
				CHECK_EQ(o->tick.hdr.group, 2);
				if (o->kind == RX_OUT_RECORD) {
					ch = chan_of(o);
					s = (uint32_t)biz_of(o);
					CHECK(ch >= 1 && ch <= 2 && s < MAXB * 2);
					if (ch < 1 || ch > 2 || s >= MAXB * 2)
						continue;
					seen[ch][s]++;
					first_line[ch][s] = o->tick.hdr.line;
					CHECK_EQ(o->tick.hdr.line, L);
					CHECK_EQ(o->stream, L);
					/* while line 0 runs, a record only line 1 carried filled its hole */
					/* late: a higher BizIndex of its channel went out before it */
					CHECK_EQ(!!(o->tick.hdr.flags & TOE_RF_LATE), s < maxdel[ch]);
					if (s > maxdel[ch])
						maxdel[ch] = s;
				} else if (o->kind == RX_OUT_GAP && o->tick.gap.reason == TOE_GAP_SEQUENCE) {
					uint64_t x;
					for (x = o->tick.gap.first; x <= o->tick.gap.last && x < MAXB * 2; x++)
						gapped[o->tick.gap.channel % 3][x]++;
				} else if (o->kind == RX_OUT_GAP) {
					CHECK_EQ(o->tick.gap.reason, TOE_GAP_MSG_SEQ);
					CHECK_EQ(o->tick.hdr.line, L);
				} else {
					CHECK(0); /* no reset while both lines run */
				}
			}
		}
		if (i == NMSG) {
			/* line 0 goes away: clients of the group see it */
			g.n = 0;
			ev_close(0, 0, t, &g);
			CHECK_EQ(g.n, 1);
			CHECK_EQ(g.o[0].kind, RX_OUT_RESET);
			CHECK_EQ(g.o[0].tick.reset.reason, TOE_RESET_ARB_SWITCH);
			CHECK_EQ(g.o[0].tick.hdr.group, 2);
			CHECK_EQ(g.o[0].tick.hdr.line, 0);
		}
		if (i % 8 == 0) {
			g.n = 0;
			rx_poll(pipe_, t);
			drain_into(&g);
			for (k = 0; k < g.n; k++) {
				CHECK_EQ(g.o[k].kind, RX_OUT_GAP);
				CHECK_EQ(g.o[k].tick.gap.reason, TOE_GAP_SEQUENCE);
				uint64_t x;
				for (x = g.o[k].tick.gap.first; x <= g.o[k].tick.gap.last && x < MAXB * 2; x++)
					gapped[g.o[k].tick.gap.channel % 3][x]++;
			}
		}
	}
	/* the end: every hole has waited its 1 ms */
	g.n = 0;
	rx_poll(pipe_, t + 2 * TR_MS);
	drain_into(&g);
	CHECK_EQ(g.n, 1);
	for (k = 0; k < g.n; k++) {
		uint64_t x;
		CHECK_EQ(g.o[k].tick.gap.reason, TOE_GAP_SEQUENCE);
		for (x = g.o[k].tick.gap.first; x <= g.o[k].tick.gap.last && x < MAXB * 2; x++)
			gapped[g.o[k].tick.gap.channel % 3][x]++;
	}
	uint32_t wrong_once = 0, wrong_gap = 0, wrong_line = 0, both = 0;
	for (ch = 1; ch <= 2; ch++) {
		for (s = 1; s < next[ch]; s++) {
			uint8_t c = carried[ch][s];
			if (seen[ch][s] != (c ? 1 : 0))
				wrong_once++;
			if (gapped[ch][s] != (c ? 0 : 1)) {
				if (wrong_gap++ < 10)
					fprintf(stderr, "channel %u BizIndex %u: carried by 0x%x, in %u gaps\n", ch, s, c,
						gapped[ch][s]);
			}
			/* line 0 is ahead: it wins whatever it carried */
			if (c && first_line[ch][s] != ((c & 1) ? 0 : 1))
				wrong_line++;
			both += !c;
		}
	}
	CHECK_EQ(wrong_once, 0);
	CHECK_EQ(wrong_gap, 0);
	CHECK_EQ(wrong_line, 0);
	CHECK(both > 0); /* the scenario does lose records on both lines */
	CHECK_EQ(pipe_->st.seq_missing, both);
	CHECK(pipe_->st.seq_dups > 0);
	CHECK(pipe_->st.seq_late > 0);
	CHECK_EQ(pipe_->st.line_downs, 1);
	CHECK(pipe_->grp[1].line[0].won > 0 && pipe_->grp[1].line[1].won > 0);
	uint64_t rec, del, dups;
	seq_group_sum(&pipe_->grp[1], &rec, &del, &dups);
	CHECK_EQ(pipe_->grp[1].line[0].won + pipe_->grp[1].line[1].won, del);
	CHECK_EQ(dups, pipe_->st.seq_dups);
	CHECK_EQ(rec, pipe_->st.seq_records);
	CHECK(pipe_->grp[1].line[0].missed > 0 && pipe_->grp[1].line[1].missed > 0);
	/* each line's MsgSeqNum jumps: one per run of messages it missed */
	CHECK(pipe_->sst[0].msg_jumps > 0 && pipe_->sst[1].msg_jumps > 0);
	seq_group_sum(&pipe_->grp[0], &rec, &del, &dups);
	CHECK_EQ(rec, 0); /* group 1 unused */
	CHECK_EQ(pipe_->st.undrained, 0);
}

/* Every entry of a line says its group and line: the mirror TOE's byte gaps and
 * the decoder's gaps too, not only records and sequence events. */
static void test_gap_lines(void)
{
	static struct got g;
	static uint8_t b[4096];
	struct rx_cfg cfg;
	uint64_t biz[2] = {1, 2};
	uint32_t k;
	setup(&cfg);
	cfg.seq.ngroups = 2;
	cfg.seq.flow_group[0] = 1;
	cfg.seq.flow_group[1] = 1;
	cfg.seq.flow_line[0] = 0;
	cfg.seq.flow_line[1] = 1;
	CHECK_EQ(rx_init_decode(pipe_, &cfg, &tr_prog, fs_, RX_NSTREAMS(&cfg)), RX_OK);
	g.n = 0;
	ev_open(2, 1, 0, &g);
	int n = make_msg(b, sizeof b, 1, TOE_REC_TRADE, 1, biz, 2);
	ev_data(2, 1, b, n, 10 * US, &g);
	/* the mirror lost 100 bytes, then garbage the deframer skips */
	struct mtoe_event e = {MTOE_EV_GAP, TOE_GAP_TIMEOUT, 2, 1, 0, off_[2], 100, NULL};
	CHECK_EQ(rx_event(pipe_, &e, 20 * US), 1);
	off_[2] += 100;
	drain_into(&g);
	ev_data(2, 1, (const uint8_t *)"junk junk", 9, 30 * US, &g);
	n = make_msg(b, sizeof b, 2, TOE_REC_TRADE, 1, biz, 0);
	biz[0] = 3;
	n = make_msg(b, sizeof b, 2, TOE_REC_TRADE, 1, biz, 1);
	ev_data(2, 1, b, n, 40 * US, &g);
	uint32_t gaps = 0, decode = 0;
	for (k = 0; k < g.n; k++) {
		CHECK_EQ(g.o[k].tick.hdr.group, 2);
		CHECK_EQ(g.o[k].tick.hdr.line, 1);
		CHECK_EQ(g.o[k].tick.hdr.stream, 2);
		gaps += g.o[k].kind == RX_OUT_GAP && g.o[k].tick.gap.reason == TOE_GAP_TIMEOUT;
		decode += g.o[k].kind == RX_OUT_GAP && g.o[k].tick.gap.reason == TOE_GAP_DECODE;
	}
	CHECK_EQ(gaps, 1);
	CHECK_EQ(decode, 1);
	CHECK(g.n >= 6); /* reset, 2 records, 2 gaps, the record after */
}

/* A configuration naming a group beyond ngroups is refused. */
static void test_bad_cfg(void)
{
	struct rx_cfg cfg;
	setup(&cfg);
	cfg.seq.flow_group[1] = 1; /* ngroups is 1 */
	CHECK_EQ(rx_init_decode(pipe_, &cfg, &tr_prog, fs_, RX_NSTREAMS(&cfg)), RX_ERR_SEQ);
	setup(&cfg);
	cfg.seq.flow_line[0] = SEQ_MAX_LINES;
	CHECK_EQ(rx_init_decode(pipe_, &cfg, &tr_prog, fs_, RX_NSTREAMS(&cfg)), RX_ERR_SEQ);
	setup(&cfg);
	cfg.seq.ngroups = RX_MAX_GROUPS + 1;
	CHECK_EQ(rx_init_decode(pipe_, &cfg, &tr_prog, fs_, RX_NSTREAMS(&cfg)), RX_ERR_SEQ);
	/* flows beyond nflows are not looked at */
	setup(&cfg);
	cfg.seq.flow_group[5] = 9;
	CHECK_EQ(rx_init_decode(pipe_, &cfg, &tr_prog, fs_, RX_NSTREAMS(&cfg)), RX_OK);
}

int main(void)
{
	if (tr_load() != 0)
		return test_skip("rx_seq", "run from the repository root (" TR_TEMPLATES " not found)");
	fast_enc_init(&enc, &tr_prog);
	test_one_line();
	test_one_line_join();
	test_udp_line();
	test_final_poll_hole();
	test_poll_fills_hole(0, 1 * TR_MS + MTOE_DEFAULT_GAP_NS + SEQ_DEFAULT_WAIT_NS);
	test_poll_fills_hole(0, UINT64_MAX);
	test_poll_fills_hole(1 * TR_MS + SEQ_DEFAULT_WAIT_NS + 1000, 1 * TR_MS + MTOE_DEFAULT_GAP_NS + SEQ_DEFAULT_WAIT_NS);
	test_poll_fills_hole(1 * TR_MS + SEQ_DEFAULT_WAIT_NS + 1000, UINT64_MAX);
	test_two_lines();
	test_gap_lines();
	test_bad_cfg();
	free(pipe_);
	free(fs_);
	return test_done("rx_seq");
}
