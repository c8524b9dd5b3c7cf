/* hw_common.h - what every HLS top shares: stream types, the message format between kernels, beat helpers.
 *
 * The tops are thin C++ wrappers: each reads one message from its input
 * AXI4-Stream, hands it to a C kernel (kernels/net, toe, fast, rx), and
 * writes what the kernel produced to its output streams. The C kernels are
 * compiled as C and keep all the logic; this header only moves bytes.
 *
 * MAC side: frames from/to the CMAC are AXI4-Stream beats of HW_MAC_BYTES
 * bytes (data, keep, last; byte i of the frame in data[8i+7:8i], keep
 * contiguous from bit 0, no FCS). 64 bytes (512 bits) matches the 100G
 * CMAC kernel on the U50's QSFP28; build with -DHW_MAC_BYTES=8 for a 64-bit
 * 10G MAC.
 *
 * Between our kernels: 512-bit beats (hw_beat). A message is one header beat
 * (struct hw_msg packed into eight little-endian 64-bit words, below) and,
 * when msg.len > 0, ceil(len / 64) payload beats; `last` marks the message's
 * final beat. Tick records travel as two beats (bytes 0..63, 64..127).
 * The header's last byte is the network port (0..3) of a SEG, DGRAM or FRAME
 * message: the 4 x 10G build merges four eth_rx_tops' messages (port_mux_top).
 */
#ifndef HW_COMMON_H
#define HW_COMMON_H

#include <stdint.h>

/* Vitis headers when synthesising or when they are on the include path. */
#if defined(__SYNTHESIS__)
#define HW_VITIS 1
#elif defined(__has_include) && !defined(HW_FORCE_COMPAT)
#if __has_include(<ap_int.h>) && __has_include(<hls_stream.h>) && __has_include(<ap_axi_sdata.h>)
#define HW_VITIS 1
#endif
#endif
#if defined(HW_VITIS)
#include <ap_axi_sdata.h>
#include <ap_int.h>
#include <hls_stream.h>
#else
#include "host/hls_compat.h"
#endif

extern "C" {
#include "net/net_rx.h"
#include "net/net_arp.h"
#include "net/net_icmp.h"
#include "net/net_udp.h"
#include "net/net_counters.h"
#include "toe/mtoe.h"
#include "fast/fast_stream.h"
#include "fast/fast_tick.h"
#include "rx/rx_pipe.h"
#include "rx/rx_sess.h"
#include "toe/tick.h"
}
#include "toe_regmap.h"
extern "C" {
#include "toe_hw_cfg.h"
}

/* A pragma whose arguments are macros (the regmap offsets): the documented
 * Vitis HLS idiom, _Pragma with one level of expansion. */
#define HW_PRAGMA_STR(x) _Pragma(#x)
#define HW_PRAGMA(x) HW_PRAGMA_STR(x)

#ifndef HW_MAC_BYTES
#define HW_MAC_BYTES 64
#endif
#define HW_BEAT_BYTES 64
/* Loop bound of message payloads: a DATA event can hand out a whole
 * reassembly window at once. */
#define HW_MAX_MSG (TOE_HW_MTOE_BUF + HW_BEAT_BYTES)

typedef ap_axiu<8 * HW_MAC_BYTES, 0, 0, 0> hw_mac_beat;
typedef ap_axiu<8 * HW_BEAT_BYTES, 0, 0, 0> hw_beat;
typedef ap_uint<8 * HW_BEAT_BYTES> hw_word; /* one 64-byte HBM word */

/* Message kinds (hw_msg.kind). */
enum hw_msg_kind {
	HW_MSG_SEG = 1,   /* eth_rx -> mirror_toe: a TCP segment (header fields, payload) */
	HW_MSG_POLL = 2,  /* eth_rx -> mirror_toe: timer tick at ts_ns */
	HW_MSG_DGRAM = 3, /* eth_rx -> udp: a UDP datagram (header fields, payload) */
	HW_MSG_EV = 4,    /* mirror_toe -> fast: one mtoe_event (DATA with its bytes) */
	HW_MSG_UDP = 5,   /* udp -> fast: a listened datagram's payload for stream `stream` */
	HW_MSG_FRAME = 6, /* eth_rx -> gtoe (role tcp): a whole TCP or ARP frame received at ts_ns */
};

struct hw_msg {
	uint8_t kind;      /* enum hw_msg_kind */
	uint8_t type;      /* EV: mtoe_ev_type */
	uint8_t reason;    /* EV: event reason */
	uint8_t nvlan;     /* SEG/DGRAM */
	uint8_t tcp_flags; /* SEG */
	uint8_t framing;   /* UDP: FAST_FRAMING_* of the stream */
	uint16_t stream;   /* EV: connection slot; UDP: stream id */
	uint32_t len;      /* payload bytes that follow */
	uint16_t flow;     /* EV */
	uint16_t win;      /* SEG */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint16_t vlan0, vlan1;
	uint32_t seq, ack; /* SEG */
	uint64_t offset;   /* EV: stream offset; UDP: listen-table index */
	uint64_t ts_ns;    /* receive (or timer) time */
	uint64_t ev_len;   /* EV: the event's len (GAP bytes, DATA bytes); 56 bits on the wire */
	uint8_t port;      /* SEG/DGRAM/FRAME: the network port it came in on (eth_rx_top's TOE_ETH_CF_PORT) */
};

static inline void hw_msg_clear(hw_msg &m)
{
	m.kind = m.type = m.reason = m.nvlan = m.tcp_flags = m.framing = 0;
	m.stream = m.flow = m.win = 0;
	m.len = m.saddr = m.daddr = m.seq = m.ack = 0;
	m.sport = m.dport = m.vlan0 = m.vlan1 = 0;
	m.offset = m.ts_ns = m.ev_len = 0;
	m.port = 0;
}

static inline hw_word hw_msg_pack(const hw_msg &m)
{
	hw_word d = 0;
	d.range(63, 0) = (uint64_t)m.kind | (uint64_t)m.type << 8 | (uint64_t)m.reason << 16 |
			 (uint64_t)m.nvlan << 24 | (uint64_t)m.tcp_flags << 32 | (uint64_t)m.framing << 40 |
			 (uint64_t)m.stream << 48;
	d.range(127, 64) = (uint64_t)m.len | (uint64_t)m.flow << 32 | (uint64_t)m.win << 48;
	d.range(191, 128) = (uint64_t)m.saddr | (uint64_t)m.daddr << 32;
	d.range(255, 192) = (uint64_t)m.sport | (uint64_t)m.dport << 16 | (uint64_t)m.vlan0 << 32 |
			    (uint64_t)m.vlan1 << 48;
	d.range(319, 256) = (uint64_t)m.seq | (uint64_t)m.ack << 32;
	d.range(383, 320) = m.offset;
	d.range(447, 384) = m.ts_ns;
	d.range(503, 448) = m.ev_len & 0xffffffffffffffull;
	d.range(511, 504) = (uint64_t)m.port;
	return d;
}

static inline void hw_msg_unpack(const hw_word &d, hw_msg &m)
{
	uint64_t w0 = d.range(63, 0).to_uint64(), w1 = d.range(127, 64).to_uint64();
	uint64_t w2 = d.range(191, 128).to_uint64(), w3 = d.range(255, 192).to_uint64();
	uint64_t w4 = d.range(319, 256).to_uint64();
	m.kind = (uint8_t)w0;
	m.type = (uint8_t)(w0 >> 8);
	m.reason = (uint8_t)(w0 >> 16);
	m.nvlan = (uint8_t)(w0 >> 24);
	m.tcp_flags = (uint8_t)(w0 >> 32);
	m.framing = (uint8_t)(w0 >> 40);
	m.stream = (uint16_t)(w0 >> 48);
	m.len = (uint32_t)w1;
	m.flow = (uint16_t)(w1 >> 32);
	m.win = (uint16_t)(w1 >> 48);
	m.saddr = (uint32_t)w2;
	m.daddr = (uint32_t)(w2 >> 32);
	m.sport = (uint16_t)w3;
	m.dport = (uint16_t)(w3 >> 16);
	m.vlan0 = (uint16_t)(w3 >> 32);
	m.vlan1 = (uint16_t)(w3 >> 48);
	m.seq = (uint32_t)w4;
	m.ack = (uint32_t)(w4 >> 32);
	m.offset = d.range(383, 320).to_uint64();
	m.ts_ns = d.range(447, 384).to_uint64();
	m.ev_len = d.range(503, 448).to_uint64();
	m.port = (uint8_t)d.range(511, 504).to_uint();
}

static inline uint64_t hw_keep_all(int bytes)
{
	return bytes >= 64 ? ~0ull : ((1ull << bytes) - 1);
}

/* Write one frame of len bytes (len <= TOE_HW_MAX_FRAME) to a MAC stream: full beats, then the rest with
 * keep covering its bytes and `last` set (eth_rx_top's ARP/ICMP replies, gtoe_top's segments). */
static inline void hw_mac_write(hls::stream<hw_mac_beat> &out, const uint8_t *frame, uint32_t len)
{
	uint32_t off, i;
	for (off = 0; off < TOE_HW_MAX_FRAME; off += HW_MAC_BYTES) {
#pragma HLS PIPELINE II = 1
		hw_mac_beat b;
		uint32_t n = len - off < HW_MAC_BYTES ? len - off : HW_MAC_BYTES;
		if (off >= len)
			break;
		b.data = 0;
		for (i = 0; i < HW_MAC_BYTES; i++)
			if (i < n)
				b.data.range(8 * i + 7, 8 * i) = frame[off + i];
		b.keep = hw_keep_all((int)n);
		b.strb = b.keep;
		b.last = off + n >= len ? 1 : 0;
		out.write(b);
	}
}

/* Write a message: header beat, then len bytes of p (len == m.len). */
static inline void hw_send(hls::stream<hw_beat> &out, const hw_msg &m, const uint8_t *p)
{
	hw_beat b;
	uint32_t off, i, nbeats = (m.len + HW_BEAT_BYTES - 1) / HW_BEAT_BYTES;
	b.data = hw_msg_pack(m);
	b.keep = hw_keep_all(HW_BEAT_BYTES);
	b.strb = b.keep;
	b.last = m.len == 0 ? 1 : 0;
	out.write(b);
	for (off = 0; off < HW_MAX_MSG; off += HW_BEAT_BYTES) {
#pragma HLS PIPELINE II = 1
		uint32_t n = m.len - off < HW_BEAT_BYTES ? m.len - off : HW_BEAT_BYTES;
		if (off >= m.len)
			break;
		b.data = 0;
		for (i = 0; i < HW_BEAT_BYTES; i++)
			if (i < n)
				b.data.range(8 * i + 7, 8 * i) = p[off + i];
		b.keep = hw_keep_all((int)n);
		b.strb = b.keep;
		b.last = off / HW_BEAT_BYTES + 1 == nbeats ? 1 : 0;
		out.write(b);
	}
}

/* Read a message's header beat (call only when the stream is not empty). */
static inline void hw_recv_hdr(hls::stream<hw_beat> &in, hw_msg &m)
{
	hw_beat b = in.read();
	hw_msg_unpack(b.data, m);
}

/* Read one payload beat: its bytes 0..n-1 into p[at..at+n) (n <= HW_BEAT_BYTES). */
static inline void hw_recv_beat(hls::stream<hw_beat> &in, uint8_t *p, uint32_t at, uint32_t n)
{
	hw_beat b = in.read();
	uint32_t i;
	for (i = 0; i < HW_BEAT_BYTES; i++)
		if (i < n)
			p[at + i] = (uint8_t)b.data.range(8 * i + 7, 8 * i).to_uint();
}

/* Read the message's payload: m.len bytes into p[0..cap); bytes beyond cap
 * are read and discarded. Returns the bytes stored. */
static inline uint32_t hw_recv_payload(hls::stream<hw_beat> &in, const hw_msg &m, uint8_t *p, uint32_t cap)
{
	uint32_t off, n, stored = 0;
	for (off = 0; off < HW_MAX_MSG; off += HW_BEAT_BYTES) {
#pragma HLS PIPELINE II = 1
		if (off >= m.len)
			break;
		n = m.len - off < HW_BEAT_BYTES ? m.len - off : HW_BEAT_BYTES;
		if (off >= cap)
			n = 0;
		else if (cap - off < n)
			n = cap - off;
		hw_recv_beat(in, p, off, n);
		if (n > 0)
			stored = off + n;
	}
	return stored;
}

/* A 64-bit counter into status words (low, high). */
static inline void hw_ctr(uint32_t *stat, uint32_t i, uint64_t v)
{
	stat[TOE_ST_CTR0 + 2 * i] = (uint32_t)v;
	stat[TOE_ST_CTR0 + 2 * i + 1] = (uint32_t)(v >> 32);
}

/* The status header every kernel keeps. */
static inline void hw_stat_hdr(uint32_t *stat, uint32_t kid, uint32_t applied, uint32_t status, uint32_t nctr)
{
	stat[TOE_ST_MAGIC] = TOE_HW_MAGIC;
	stat[TOE_ST_VERSION] = TOE_REGMAP_VERSION;
	stat[TOE_ST_KERNEL] = kid;
	stat[TOE_ST_APPLIED] = applied;
	stat[TOE_ST_STATUS] = status;
	stat[TOE_ST_NCTR] = nctr;
}

/* Consume and drop one whole message (held kernels). */
static inline void hw_drop_msg(hls::stream<hw_beat> &in)
{
	uint32_t k;
	for (k = 0; k < HW_MAX_MSG / HW_BEAT_BYTES + 2; k++) {
#pragma HLS PIPELINE II = 1
		hw_beat b = in.read();
		if (b.last)
			break;
	}
}

#endif
