/* udp_top.cpp - HLS top: UDP datagrams -> listen table (kernels/net/net_udp) -> payloads of listened ports.
 *
 * The table (a bitmap over all 65,536 ports and a stream index per port,
 * 136 KB: URAM) is rebuilt from the port list at APPLY. A listened
 * datagram goes to fast_top with its stream id (STREAM_BASE + list index, as
 * the software pipeline numbers UDP streams after the TCP connections) and
 * its framing; the others are counted and dropped.
 */
#include "hw_tops.h"

struct udp_ctrs {
#define UDP_FIELD(name) uint64_t name;
	TOE_UDP_CTRS(UDP_FIELD)
#undef UDP_FIELD
};

void udp_top(hls::stream<hw_beat> &dgram_in, hls::stream<hw_beat> &udp_out, const uint32_t cfg[TOE_CFG_WORDS],
	     uint32_t stat[TOE_STAT_WORDS])
{
#pragma HLS INTERFACE axis port = dgram_in
#pragma HLS INTERFACE axis port = udp_out
	HW_PRAGMA(HLS INTERFACE s_axilite port = cfg offset = TOE_REG_CFG bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = stat offset = TOE_REG_STAT bundle = control)
#pragma HLS INTERFACE ap_ctrl_none port = return

	static net_udp_table tab;
	static net_stats st; /* udp.delivered, udp.drop_udp_port */
	static uint8_t framing[TOE_HW_UDP_STREAMS];
	static uint8_t pay[TOE_HW_MAX_FRAME];
	static udp_ctrs c;
	static uint32_t applied = 0, status = TOE_STATUS_HELD, base = 0;
	uint32_t i = 0, j;

	if (cfg[TOE_CF_APPLY] != applied) {
		uint32_t np = cfg[TOE_UDP_CF_NPORTS];
		applied = cfg[TOE_CF_APPLY];
		base = cfg[TOE_UDP_CF_STREAM_BASE];
		net_stats_init(&st);
		net_udp_init(&tab);
#define UDP_ZERO(name) c.name = 0;
		TOE_UDP_CTRS(UDP_ZERO)
#undef UDP_ZERO
		status = applied == 0 ? TOE_STATUS_HELD : TOE_STATUS_OK;
		if (np > TOE_HW_UDP_STREAMS)
			status = TOE_STATUS_BAD_CFG;
		for (i = 0; i < TOE_HW_UDP_STREAMS; i++) {
			uint32_t w = cfg[TOE_UDP_CF_PORT(i)];
			if (i >= np)
				break;
			for (j = 0; j < i; j++)
				if ((uint16_t)cfg[TOE_UDP_CF_PORT(j)] == (uint16_t)w)
					status = TOE_STATUS_BAD_CFG; /* a port listed twice */
			framing[i] = (uint8_t)(w >> 16);
			net_udp_listen(&tab, (uint16_t)w, (uint16_t)i);
		}
	}

	if (!dgram_in.empty()) {
		hw_msg msg;
		hw_recv_hdr(dgram_in, msg);
		c.datagrams++;
		if (status != TOE_STATUS_OK || msg.kind != HW_MSG_DGRAM) {
			if (msg.len > 0)
				hw_drop_msg(dgram_in);
			c.held++;
		} else {
			net_pkt pkt;
			uint16_t idx;
			uint32_t len = hw_recv_payload(dgram_in, msg, pay, TOE_HW_MAX_FRAME);
			pkt.frame = pay;
			pkt.frame_len = len;
			pkt.vlan[0] = msg.vlan0;
			pkt.vlan[1] = msg.vlan1;
			pkt.nvlan = msg.nvlan;
			pkt.l4proto = NET_PROTO_UDP;
			pkt.tcp_flags = 0;
			pkt.pad = 0;
			pkt.saddr = msg.saddr;
			pkt.daddr = msg.daddr;
			pkt.sport = msg.sport;
			pkt.dport = msg.dport;
			pkt.seq = pkt.ack = 0;
			pkt.win = pkt.pad2 = 0;
			pkt.payload = pay;
			pkt.payload_len = len;
			pkt.ts_ns = msg.ts_ns;
			pkt.in_port = 0; /* the card's one port */
			pkt.pad3 = 0;
			if (net_udp_input(&tab, &st, &pkt, &idx) && idx < TOE_HW_UDP_STREAMS) {
				hw_msg m;
				hw_msg_clear(m);
				m.kind = HW_MSG_UDP;
				m.stream = (uint16_t)(base + idx);
				m.offset = idx;
				m.framing = framing[idx];
				m.len = len;
				m.ts_ns = msg.ts_ns;
				hw_send(udp_out, m, pay);
				c.bytes += len;
			}
		}
	}

	c.delivered = st.udp.delivered;
	c.drop_udp_port = st.udp.drop_udp_port;
	hw_stat_hdr(stat, TOE_KID_UDP, applied, status, TOE_NCTR(TOE_UDP_CTRS));
	i = 0;
#define UDP_PUT(name) hw_ctr(stat, i++, c.name);
	TOE_UDP_CTRS(UDP_PUT)
#undef UDP_PUT
}
