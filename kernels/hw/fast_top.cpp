/* fast_top.cpp - HLS top: stream events and datagrams -> STEP + FAST (kernels/fast) -> 128-byte tick records.
 *
 * The decoder half of kernels/rx/rx_pipe.c, one message per call: the
 * template program is decoded from the template memory (AXI-Lite window,
 * toe_hw_prog_decode) at APPLY ("program valid") and the streams are set up
 * by rx_init_decode (TCP connection slots first, then the UDP ports). Each
 * message goes to rx_pipe's per-event entry points, the same code rx_frame
 * runs for the software backend:
 *
 *   EV  -> rx_event (OPEN: reset record; GAP: gap record; CLOSE: counted);
 *          a DATA event's bytes follow a beat at a time through rx_feed
 *          (the deframer takes any chunking: a DATA event can be a whole
 *          reassembly window, too large to buffer)
 *   UDP -> rx_datagram (STEP: a message cut at the previous datagram's end
 *          is a decode gap; DATAGRAM: one raw FAST message)
 *
 * A TCP stream marked in SESS_LO/HI (toed's own connection whose STEP session
 * the host runs) also yields its messages without FAST data (Logon,
 * Heartbeat, TestRequest, Logout...) and its close as card-internal
 * TOE_REC_CARD_SESS records, split as kernels/rx/rx_sess.h says; the host
 * hands them to its session and never publishes them.
 *
 * and every entry rx_drain yields after each is sent. Records leave as two
 * beats; only tick records (trade, order), gaps and resets are written:
 * records whose template maps to no tick, or whose value does not fit its
 * tick field, are counted only. rx_drain never calls the mirror TOE, so the
 * struct rx_pipe here uses only its decoder part (its mtoe and listen table
 * stay untouched). The C-simulation checks every record and counter against
 * rx_pipe driven by frames.
 */
#include "hw_tops.h"

#define FAST_NSTREAMS (TOE_HW_TCP_STREAMS + TOE_HW_UDP_STREAMS)
#define FAST_DRAIN_MAX (2u * STEP_MAX_BODY + 16u) /* entries one input chunk can yield */

struct fast_hw_ctrs {
#define FAST_FIELD(name) uint64_t name;
	TOE_FAST_HW_CTRS(FAST_FIELD)
#undef FAST_FIELD
};

struct fast_state {
	fast_prog prog;
	fast_stream fs[FAST_NSTREAMS];
	rx_pipe p; /* counters (p.st), pending entries, UDP stream offsets */
	fast_hw_ctrs c;
};

static_assert(TOE_NCTR(TOE_FAST_CTRS) <= TOE_FAST_CTR_HW, "fast counters overlap");
static_assert(TOE_FAST_CTR_HW + TOE_NCTR(TOE_FAST_HW_CTRS) <= TOE_FAST_CTR_ERR, "fast counters overlap");
static_assert(FAST_ERR_COUNT <= TOE_FAST_ERR_SLOTS, "error counters");
static_assert(TOE_ST_CTR0 + 2 * (TOE_FAST_CTR_ERR + TOE_FAST_ERR_SLOTS) <= TOE_STAT_WORDS, "fast status window");
static_assert(TOE_PROG_BYTES == sizeof(struct fast_prog), "template memory layout");
static_assert(TOE_PROG_BYTES / 4 <= TOE_FAST_PROG_WORDS, "template memory window");
static_assert(TOE_HW_TCP_STREAMS <= MTOE_MAX_CONNS && TOE_HW_UDP_STREAMS <= RX_MAX_UDP, "rx_pipe capacity");

static void send_record(hls::stream<hw_beat> &out, const union toe_record &r, fast_hw_ctrs &c)
{
	uint32_t h, i;
	for (h = 0; h < 2; h++) {
		hw_beat b;
		for (i = 0; i < HW_BEAT_BYTES; i++)
			b.data.range(8 * i + 7, 8 * i) = r.bytes[HW_BEAT_BYTES * h + i];
		b.keep = hw_keep_all(HW_BEAT_BYTES);
		b.strb = b.keep;
		b.last = h == 1 ? 1 : 0;
		out.write(b);
	}
	c.records_out++;
}

/* A session stream's message (or close) for the host: as many
 * TOE_REC_CARD_SESS records as it needs (kernels/rx/rx_sess.h). */
static void send_sess(hls::stream<hw_beat> &out, const rx_out &o, fast_hw_ctrs &c)
{
	uint32_t k, n = rx_sess_records(&o);
	c.sess_msgs++;
	for (k = 0; k < TOE_CSESS_MAX_PIECES; k++) {
		union toe_record r;
		if (k >= n)
			break;
		rx_sess_record(&r, &o, k);
		send_record(out, r, c);
		c.sess_records++;
	}
}

/* Send every entry the input handed in so far yields that the ring takes:
 * tick records, gaps and resets (as the software backend's ring). */
static void drain(hls::stream<hw_beat> &out, fast_state &s)
{
	rx_out o;
	uint32_t k;
	for (k = 0; k < FAST_DRAIN_MAX; k++) {
		if (!rx_drain(&s.p, &o))
			break;
		if ((o.kind == RX_OUT_RECORD && o.tick_type > 0) || o.kind == RX_OUT_GAP || o.kind == RX_OUT_RESET)
			send_record(out, o.tick, s.c);
		else if (o.kind == RX_OUT_SESS)
			send_sess(out, o, s.c);
	}
}

static void on_event(hls::stream<hw_beat> &in, hls::stream<hw_beat> &out, fast_state &s, const hw_msg &m)
{
	mtoe_event ev;
	uint32_t off;
	ev.type = m.type;
	ev.reason = m.reason;
	ev.conn = m.stream;
	ev.flow = m.flow;
	ev.pad = 0;
	ev.offset = m.offset;
	ev.len = m.ev_len;
	ev.data = 0; /* DATA: the bytes follow beat by beat */
	if (!rx_event(&s.p, &ev, m.ts_ns)) {
		if (m.len > 0)
			hw_drop_msg(in);
		return;
	}
	drain(out, s);
	if (m.type != MTOE_EV_DATA)
		return;
	for (off = 0; off < HW_MAX_MSG; off += HW_BEAT_BYTES) {
		uint8_t chunk[HW_BEAT_BYTES];
		uint32_t n = m.len - off < HW_BEAT_BYTES ? m.len - off : HW_BEAT_BYTES;
		if (off >= m.len)
			break;
		hw_recv_beat(in, chunk, 0, n);
		rx_feed(&s.p, m.stream, chunk, n, m.offset + off);
		drain(out, s);
	}
}

static void on_datagram(hls::stream<hw_beat> &in, hls::stream<hw_beat> &out, fast_state &s, const hw_msg &m)
{
	static uint8_t pay[TOE_HW_MAX_FRAME];
	uint32_t idx = (uint32_t)m.offset, len = hw_recv_payload(in, m, pay, TOE_HW_MAX_FRAME);
	/* udp_top numbers its streams from its own register: it must equal our TCP stream count */
	if (m.stream != s.p.cfg.mtoe.max_conns + idx) {
		s.p.st.bad_stream++;
		return;
	}
	/* a port index beyond ours: counted there */
	if (rx_datagram(&s.p, idx, pay, len, m.ts_ns))
		drain(out, s);
}

/* Clear the counters; for gen != 0 load the program and size the streams.
 * Returns TOE_STATUS_* | detail << 16. */
static uint32_t apply(fast_state &s, uint32_t gen, const uint32_t *cfg, const uint32_t *prog)
{
	rx_cfg rc = {}; /* no streams unless the configuration is good */
	uint32_t i, status = TOE_STATUS_OK, err;
#define FAST_ZERO(name) s.c.name = 0;
	TOE_FAST_HW_CTRS(FAST_ZERO)
#undef FAST_ZERO
	if (gen == 0) {
		status = TOE_STATUS_HELD;
	} else if ((err = (uint32_t)toe_hw_prog_decode(prog, &s.prog)) != 0) {
		status = TOE_STATUS_BAD_PROG | err << 16;
	} else if (cfg[TOE_FAST_CF_TCP_STREAMS] > TOE_HW_TCP_STREAMS || cfg[TOE_FAST_CF_NUDP] > TOE_HW_UDP_STREAMS) {
		status = TOE_STATUS_BAD_CFG | (uint32_t)TOE_FAST_BAD_STREAMS << 16;
	} else {
		rc.mtoe.max_conns = cfg[TOE_FAST_CF_TCP_STREAMS];
		rc.nudp = cfg[TOE_FAST_CF_NUDP];
		for (i = 0; i < TOE_HW_TCP_STREAMS; i++)
			rc.sess[i] = (uint8_t)((cfg[i < 32 ? TOE_FAST_CF_SESS_LO : TOE_FAST_CF_SESS_HI] >> (i & 31)) & 1u);
		for (i = 0; i < TOE_HW_UDP_STREAMS; i++)
			rc.udp[i].framing = ((cfg[TOE_FAST_CF_DGRAM_MASK] >> i) & 1u) ? FAST_FRAMING_DATAGRAM
										   : FAST_FRAMING_STEP;
	}
	/* cannot fail: the counts are within FAST_NSTREAMS, checked above */
	rx_init_decode(&s.p, &rc, &s.prog, s.fs, FAST_NSTREAMS);
	return status;
}

static void on_message(hls::stream<hw_beat> &in, hls::stream<hw_beat> &out, fast_state &s, uint32_t status)
{
	hw_msg m;
	hw_recv_hdr(in, m);
	s.c.messages++;
	if (status != TOE_STATUS_OK) {
		if (m.len > 0)
			hw_drop_msg(in);
		s.c.held++;
	} else if (m.kind == HW_MSG_EV) {
		on_event(in, out, s, m);
	} else if (m.kind == HW_MSG_UDP) {
		on_datagram(in, out, s, m);
	} else if (m.len > 0) {
		hw_drop_msg(in);
	}
}

void fast_top(hls::stream<hw_beat> &tcp_in, hls::stream<hw_beat> &udp_in, hls::stream<hw_beat> &rec_out,
	      const uint32_t cfg[TOE_CFG_WORDS], const uint32_t prog[TOE_FAST_PROG_WORDS],
	      uint32_t stat[TOE_STAT_WORDS])
{
#pragma HLS INTERFACE axis port = tcp_in
#pragma HLS INTERFACE axis port = udp_in
#pragma HLS INTERFACE axis port = rec_out
	HW_PRAGMA(HLS INTERFACE s_axilite port = cfg offset = TOE_REG_CFG bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = prog offset = TOE_FAST_REG_PROG bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = stat offset = TOE_REG_STAT bundle = control)
#pragma HLS INTERFACE ap_ctrl_none port = return

	static fast_state s; /* program, stream decoders (URAM), counters */
	static uint32_t applied = 0, status = TOE_STATUS_HELD;
	uint32_t i = 0, e, sid;

	if (cfg[TOE_FAST_CF_PROG_VALID] != applied) {
		applied = cfg[TOE_FAST_CF_PROG_VALID];
		status = apply(s, applied, cfg, prog);
	}

	/* the mirror TOE first; each input keeps its own order */
	if (!tcp_in.empty())
		on_message(tcp_in, rec_out, s, status);
	else if (!udp_in.empty())
		on_message(udp_in, rec_out, s, status);

	hw_stat_hdr(stat, TOE_KID_FAST, applied, status, TOE_FAST_CTR_ERR + TOE_FAST_ERR_SLOTS);
#define FAST_PUT(name) hw_ctr(stat, i++, s.p.st.name);
	TOE_FAST_CTRS(FAST_PUT)
#undef FAST_PUT
	i = TOE_FAST_CTR_HW;
#define FAST_PUT(name) hw_ctr(stat, i++, s.c.name);
	TOE_FAST_HW_CTRS(FAST_PUT)
#undef FAST_PUT
	for (e = 0; e < TOE_FAST_ERR_SLOTS; e++) {
		uint64_t n = 0;
		for (sid = 0; sid < FAST_NSTREAMS; sid++) {
			if (sid >= s.p.nstreams)
				break;
			if (e < FAST_ERR_COUNT)
				n += s.fs[sid].step.errors[e] + s.fs[sid].dec.errors[e];
		}
		hw_ctr(stat, TOE_FAST_CTR_ERR + e, n);
	}
}
