/* udp_top.cpp - HLS top: UDP datagrams -> listen table (kernels/net/net_udp) -> payloads of listened ports.
 *
 * The table (a bitmap over all 65,536 ports and a stream index per port,
 * 136 KB: URAM) is rebuilt from the port list at APPLY. A listened
 * datagram goes to fast_top with its stream id (STREAM_BASE + list index, as
 * the software pipeline numbers UDP streams after the TCP connections) and
 * its framing; the others are counted and dropped. Each entry belongs to a
 * network port (the 4 x 10G build): a datagram is taken only by the entry
 * of the port it came in on (hw_msg.port), so the same UDP port on two
 * ports is two streams (A/B lines), as in the software backend.
 */
#include "hw_tops.h"

struct udp_ctrs {
#define UDP_FIELD(name) uint64_t name;
	TOE_UDP_CTRS(UDP_FIELD)
#undef UDP_FIELD
};

/* The entry of (UDP port, network port): the table names one entry per UDP
 * port (the last listed); with the same UDP port on several network ports
 * the entry of this one is searched, as rx_pipe's udp_for_port does. 0 when
 * the port is listened on other network ports only (counted). */
static int udp_port_entry(const uint16_t *lport, const uint8_t *inport, uint32_t n, uint16_t dport, uint8_t in,
			  uint16_t &idx, udp_ctrs &c)
{
	uint32_t i;
	if (inport[idx] == in)
		return 1;
	for (i = 0; i < TOE_HW_UDP_STREAMS; i++) {
		if (i >= n)
			break;
		if (lport[i] == dport && inport[i] == in) {
			idx = (uint16_t)i;
			return 1;
		}
	}
	c.other_port++;
	return 0;
}

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
	static uint16_t lport[TOE_HW_UDP_STREAMS]; /* the listened UDP port of entry i */
	static uint8_t inport[TOE_HW_UDP_STREAMS]; /* the network port it is listened on */
	static uint32_t nports = 0;
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
		nports = np;
		for (i = 0; i < TOE_HW_UDP_STREAMS; i++) {
			uint32_t w = cfg[TOE_UDP_CF_PORT(i)];
			if (i >= np)
				break;
			for (j = 0; j < i; j++)
				if ((cfg[TOE_UDP_CF_PORT(j)] & 0xff00ffffu) == (w & 0xff00ffffu))
					status = TOE_STATUS_BAD_CFG; /* a (UDP port, network port) listed twice */
			framing[i] = (uint8_t)(w >> 16);
			lport[i] = (uint16_t)w;
			inport[i] = (uint8_t)(w >> 24);
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
			pkt.in_port = msg.port;
			pkt.pad3 = 0;
			if (net_udp_input(&tab, &st, &pkt, &idx) && idx < TOE_HW_UDP_STREAMS &&
			    udp_port_entry(lport, inport, nports, msg.dport, msg.port, idx, c)) {
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
