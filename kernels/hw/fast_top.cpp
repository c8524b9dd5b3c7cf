/* fast_top.cpp - HLS top: stream events and datagrams -> STEP + FAST (kernels/fast) -> 128-byte tick records.
 *
 * The decoder half of kernels/rx/rx_pipe.c, one message per call: the
 * template program is decoded from the template memory (AXI-Lite window,
 * toe_hw_prog_decode) at APPLY ("program valid"), one struct fast_stream per
 * stream id (TCP connection slots first, then the UDP ports), and each
 * message is handled as rx_pipe handles the same event:
 *
 *   OPEN  -> fast_stream_restart(0), a TOE_REC_RESET record
 *   DATA  -> fast_stream_feed (a beat at a time: the deframer takes any
 *            chunking) and every record / decode gap it yields
 *   GAP   -> fast_stream_restart(after the gap), a TOE_REC_GAP record
 *   CLOSE -> counted
 *   UDP   -> STEP: restart at the datagram (a message cut at the previous
 *            datagram's end is a decode gap), feed the whole datagram;
 *            DATAGRAM: one raw FAST message
 *
 * Records leave as two beats; only tick records (trade, order), gaps and
 * resets are written: records whose template maps to no tick, or whose value
 * does not fit its tick field, are counted only. The C-simulation checks
 * every record against rx_pipe bit for bit; this glue is the one place the
 * event handling is written twice (see kernels/hw/README.md).
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
	rx_stats st;
	fast_hw_ctrs c;
	uint64_t udp_off[TOE_HW_UDP_STREAMS]; /* stream offset of each port's next datagram */
	uint32_t nstreams, tcp_streams;
};

static_assert(TOE_NCTR(TOE_FAST_CTRS) <= TOE_FAST_CTR_HW, "fast counters overlap");
static_assert(TOE_FAST_CTR_HW + TOE_NCTR(TOE_FAST_HW_CTRS) <= TOE_FAST_CTR_ERR, "fast counters overlap");
static_assert(FAST_ERR_COUNT <= TOE_FAST_ERR_SLOTS, "error counters");
static_assert(TOE_ST_CTR0 + 2 * (TOE_FAST_CTR_ERR + TOE_FAST_ERR_SLOTS) <= TOE_STAT_WORDS, "fast status window");
static_assert(TOE_PROG_BYTES == sizeof(struct fast_prog), "template memory layout");
static_assert(TOE_PROG_BYTES / 4 <= TOE_FAST_PROG_WORDS, "template memory window");

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

static void rec_clear(union toe_record &r, uint16_t type, uint32_t sid, uint64_t now)
{
	uint32_t i;
	for (i = 0; i < TOE_RECORD_SIZE; i++)
		r.bytes[i] = 0;
	r.hdr.type = type;
	r.hdr.stream = (uint16_t)sid;
	r.hdr.rx_ns = now;
}

static void send_gap(hls::stream<hw_beat> &out, fast_state &s, uint32_t sid, uint64_t off, uint64_t len,
		     uint32_t reason, uint32_t detail, uint64_t now)
{
	union toe_record r;
	rec_clear(r, TOE_REC_GAP, sid, now);
	r.gap.offset = off;
	r.gap.length = len;
	r.gap.reason = reason;
	r.gap.detail = detail;
	s.st.gaps++;
	s.st.gap_bytes += len;
	if (reason == TOE_GAP_TIMEOUT)
		s.st.gaps_timeout++;
	else if (reason == TOE_GAP_WINDOW)
		s.st.gaps_window++;
	else if (reason == TOE_GAP_DECODE)
		s.st.gaps_decode++;
	send_record(out, r, s.c);
}

/* The byte range a deframer/decoder error lost (rx_pipe.h, "Gap entries"). */
static void decode_range(const fast_stream &fs, uint64_t &off, uint64_t &len)
{
	uint64_t o, end;
	if (fs.err == STEP_E_GARBAGE) {
		o = fs.err_offset;
		end = fs.step.msg_start;
	} else if (fs.err >= STEP_E_GARBAGE) {
		o = fs.step.msg_start;
		end = fs.err_offset + 1;
	} else if (fs.framing == FAST_FRAMING_DATAGRAM) {
		o = fs.err_offset;
		end = o + fs.data_len;
	} else {
		o = fs.err_offset;
		end = o + fs.step.msg.len;
	}
	off = o;
	len = end > o ? end - o : 0;
}

/* Every record and decode gap stream sid has for the input fed so far. */
static void drain(hls::stream<hw_beat> &out, fast_state &s, uint32_t sid, uint64_t now)
{
	fast_stream &fs = s.fs[sid];
	uint32_t k;
	for (k = 0; k < FAST_DRAIN_MAX; k++) {
		int ev = fast_stream_next(&fs);
		if (ev == FS_RECORD) {
			union toe_record r;
			int t = fast_tick_map(&s.prog, &fs.rec, fs.msg_seq, &r);
			if (t > 0) {
				r.hdr.stream = (uint16_t)sid;
				r.hdr.seq = 0;
				r.hdr.rx_ns = now;
				send_record(out, r, s.c);
			} else if (t == TOE_REC_NONE) {
				s.st.tick_unmapped++;
			} else {
				s.st.tick_range++;
			}
			if (fs.rec.warn)
				s.st.warnings++;
			s.st.records++;
		} else if (ev == FS_ERROR) {
			uint64_t off, len;
			decode_range(fs, off, len);
			send_gap(out, s, sid, off, len, TOE_GAP_DECODE, (uint32_t)fs.err, now);
		} else {
			break;
		}
	}
}

static void on_event(hls::stream<hw_beat> &in, hls::stream<hw_beat> &out, fast_state &s, const hw_msg &m)
{
	uint32_t sid = m.stream;
	if (sid >= s.tcp_streams) {
		s.st.bad_stream++;
		if (m.len > 0)
			hw_drop_msg(in);
		return;
	}
	if (m.type == MTOE_EV_OPEN) {
		union toe_record r;
		fast_stream_restart(&s.fs[sid], 0);
		s.st.opens++;
		s.st.resets++;
		rec_clear(r, TOE_REC_RESET, sid, m.ts_ns);
		send_record(out, r, s.c);
	} else if (m.type == MTOE_EV_DATA) {
		uint32_t off, i;
		s.st.data_events++;
		s.st.bytes += m.len;
		for (off = 0; off < HW_MAX_MSG; off += HW_BEAT_BYTES) {
			uint8_t chunk[HW_BEAT_BYTES];
			uint32_t n = m.len - off < HW_BEAT_BYTES ? m.len - off : HW_BEAT_BYTES;
			hw_beat b;
			if (off >= m.len)
				break;
			b = in.read();
			for (i = 0; i < HW_BEAT_BYTES; i++)
				chunk[i] = (uint8_t)b.data.range(8 * i + 7, 8 * i).to_uint();
			fast_stream_feed(&s.fs[sid], chunk, n);
			drain(out, s, sid, m.ts_ns);
		}
	} else if (m.type == MTOE_EV_GAP) {
		fast_stream_restart(&s.fs[sid], m.offset + m.ev_len);
		send_gap(out, s, sid, m.offset, m.ev_len, m.reason, 0, m.ts_ns);
	} else if (m.type == MTOE_EV_CLOSE) {
		s.st.closes++;
	}
}

static void on_datagram(hls::stream<hw_beat> &in, hls::stream<hw_beat> &out, fast_state &s, const hw_msg &m)
{
	static uint8_t pay[TOE_HW_MAX_FRAME];
	uint32_t sid = m.stream, idx = (uint32_t)m.offset, len;
	fast_stream *fs;
	if (sid >= s.nstreams || idx >= TOE_HW_UDP_STREAMS || sid != s.tcp_streams + idx) {
		s.st.bad_stream++;
		if (m.len > 0)
			hw_drop_msg(in);
		return;
	}
	fs = &s.fs[sid];
	len = hw_recv_payload(in, m, pay, TOE_HW_MAX_FRAME);
	s.st.udp_listened++;
	s.st.bytes += len;
	if (fs->framing == FAST_FRAMING_STEP) {
		/* whole messages per datagram: anything left over was cut short */
		uint64_t before = fs->step.skipped, dropped;
		fast_stream_restart(fs, s.udp_off[idx]);
		dropped = fs->step.skipped - before;
		if (dropped)
			send_gap(out, s, sid, s.udp_off[idx] - dropped, dropped, TOE_GAP_DECODE, STEP_E_BAD_LENGTH,
				 m.ts_ns);
	}
	s.udp_off[idx] += len;
	fast_stream_feed(fs, pay, len);
	drain(out, s, sid, m.ts_ns);
}

/* Clear the counters; for gen != 0 load the program and size the streams.
 * Returns TOE_STATUS_* | detail << 16. */
static uint32_t apply(fast_state &s, uint32_t gen, const uint32_t *cfg, const uint32_t *prog)
{
	uint32_t i, rc, mask = cfg[TOE_FAST_CF_DGRAM_MASK];
#define FAST_ZERO(name) s.st.name = 0;
	RX_STATS(FAST_ZERO)
#undef FAST_ZERO
#define FAST_ZERO(name) s.c.name = 0;
	TOE_FAST_HW_CTRS(FAST_ZERO)
#undef FAST_ZERO
	for (i = 0; i < TOE_HW_UDP_STREAMS; i++)
		s.udp_off[i] = 0;
	s.nstreams = 0;
	s.tcp_streams = 0;
	if (gen == 0)
		return TOE_STATUS_HELD;
	rc = (uint32_t)toe_hw_prog_decode(prog, &s.prog);
	if (rc != 0)
		return TOE_STATUS_BAD_PROG | rc << 16;
	if (cfg[TOE_FAST_CF_TCP_STREAMS] > TOE_HW_TCP_STREAMS || cfg[TOE_FAST_CF_NUDP] > TOE_HW_UDP_STREAMS)
		return TOE_STATUS_BAD_CFG | (uint32_t)TOE_FAST_BAD_STREAMS << 16;
	s.tcp_streams = cfg[TOE_FAST_CF_TCP_STREAMS];
	s.nstreams = s.tcp_streams + cfg[TOE_FAST_CF_NUDP];
	for (i = 0; i < FAST_NSTREAMS; i++) {
		int framing = FAST_FRAMING_STEP;
		if (i >= s.nstreams)
			break;
		if (i >= s.tcp_streams && ((mask >> (i - s.tcp_streams)) & 1u))
			framing = FAST_FRAMING_DATAGRAM;
		fast_stream_init(&s.fs[i], &s.prog, framing);
	}
	return TOE_STATUS_OK;
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
#define FAST_PUT(name) hw_ctr(stat, i++, s.st.name);
	TOE_FAST_CTRS(FAST_PUT)
#undef FAST_PUT
	i = TOE_FAST_CTR_HW;
#define FAST_PUT(name) hw_ctr(stat, i++, s.c.name);
	TOE_FAST_HW_CTRS(FAST_PUT)
#undef FAST_PUT
	for (e = 0; e < TOE_FAST_ERR_SLOTS; e++) {
		uint64_t n = 0;
		for (sid = 0; sid < FAST_NSTREAMS; sid++) {
			if (sid >= s.nstreams)
				break;
			if (e < FAST_ERR_COUNT)
				n += s.fs[sid].step.errors[e] + s.fs[sid].dec.errors[e];
		}
		hw_ctr(stat, TOE_FAST_CTR_ERR + e, n);
	}
}
