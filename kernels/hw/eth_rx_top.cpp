/* eth_rx_top.cpp - HLS top: Ethernet frames from the CMAC -> net_rx -> ARP/ICMP replies, TCP, UDP.
 *
 * One frame per call: the beats are gathered into a frame buffer, net_rx
 * (kernels/net) classifies it, and the result goes out as a message: TCP
 * segments to the mirror TOE, UDP datagrams to udp_top, ARP requests and
 * ICMP echo requests for our addresses answered on tx_out when the port's
 * role is MAIN (a mirror port never transmits; the reply is counted as
 * suppressed). Frames are stamped with the host-written clock (TIME_*);
 * every new TIME_SEQ is also a timer tick for the mirror TOE, sent before
 * the next frame, as the software backend calls rx_poll before it.
 *
 * Role tcp (TOE_ROLE_TCP): TCP and ARP frames go whole (HW_MSG_FRAME) to
 * gtoe_top on gtoe_out, and every tick too: the general TOE parses the
 * TCP options itself and keeps the ARP table its transmit path resolves
 * with, so it answers ARP; ICMP echo is still answered here. The software
 * backend splits the work the same way (dp_tcp_frame).
 *
 * Ports: the 4 x 10G build has one instance per port (eth_rx_top_1..4);
 * TOE_ETH_CF_PORT says which port an instance is, and its SEG, DGRAM and
 * FRAME messages carry it (hw_msg.port) through the port_mux_top in front of
 * the shared kernels, as the software backend's rx_frame_port tags frames.
 * Only the instance without NO_TICK sends the mirror TOE its timer ticks.
 */
#include "hw_tops.h"

struct eth_ctrs {
#define ETH_FIELD(name) uint64_t name;
	TOE_ETH_CTRS(ETH_FIELD)
#undef ETH_FIELD
};

static_assert(TOE_NCTR(TOE_ETH_CTRS) <= TOE_ETH_CTR_NET, "eth counters overlap the net counters");
static_assert(TOE_ST_CTR0 + 2 * (TOE_ETH_CTR_NET + NET_STATS_COUNT) <= TOE_STAT_WORDS, "eth status window");

/* Gather one frame; returns its length (bytes kept), *whole = 0 when it was
 * longer than the buffer. */
static uint32_t mac_read(hls::stream<hw_mac_beat> &in, uint8_t *frame, uint64_t &beats, int &whole)
{
	uint32_t len = 0, k, i;
	whole = 1;
	for (k = 0; k < HW_MAX_MSG / HW_MAC_BYTES; k++) {
#pragma HLS PIPELINE II = 1
		hw_mac_beat b = in.read();
		uint32_t n = 0;
		beats++;
		for (i = 0; i < HW_MAC_BYTES; i++)
			if (b.keep.range(i, i).to_uint())
				n = i + 1;
		for (i = 0; i < HW_MAC_BYTES; i++)
			if (i < n && len + i < TOE_HW_MAX_FRAME)
				frame[len + i] = (uint8_t)b.data.range(8 * i + 7, 8 * i).to_uint();
		if (len + n > TOE_HW_MAX_FRAME)
			whole = 0;
		len = len + n > TOE_HW_MAX_FRAME ? TOE_HW_MAX_FRAME : len + n;
		if (b.last)
			break;
	}
	return len;
}

/* The header fields of a TCP/UDP packet as a message. */
static void pkt_msg(hw_msg &m, uint8_t kind, const net_pkt &p)
{
	hw_msg_clear(m);
	m.kind = kind;
	m.nvlan = p.nvlan;
	m.tcp_flags = p.tcp_flags;
	m.len = p.payload_len;
	m.win = p.win;
	m.saddr = p.saddr;
	m.daddr = p.daddr;
	m.sport = p.sport;
	m.dport = p.dport;
	m.vlan0 = p.vlan[0];
	m.vlan1 = p.vlan[1];
	m.seq = p.seq;
	m.ack = p.ack;
	m.ts_ns = p.ts_ns;
}

/* The kernel's body. INST only gives each instance of the C-simulation its
 * own state (the statics): on the card every compute unit is its own
 * hardware and the top uses instance 0. */
template <int INST>
static void eth_rx_body(hls::stream<hw_mac_beat> &rx_in, hls::stream<hw_mac_beat> &tx_out,
			hls::stream<hw_beat> &tcp_out, hls::stream<hw_beat> &udp_out, hls::stream<hw_beat> &gtoe_out,
			const uint32_t cfg[TOE_CFG_WORDS], uint32_t stat[TOE_STAT_WORDS])
{
#pragma HLS INLINE
	static net_cfg ncfg;
	static net_stats st;
	static net_arp arp;
	static eth_ctrs c;
	static uint32_t applied = 0, status = TOE_STATUS_HELD, role = TOE_ROLE_MIRROR, time_seq = 0;
	static uint32_t port = 0, ticks = 1;
	static uint64_t now = 0;
	static uint8_t frame[TOE_HW_MAX_FRAME];
	static uint8_t reply[TOE_HW_MAX_FRAME];
	uint32_t i = 0;

	if (cfg[TOE_CF_APPLY] != applied) {
		applied = cfg[TOE_CF_APPLY];
		net_stats_init(&st);
		net_arp_init(&arp);
#define ETH_ZERO(name) c.name = 0;
		TOE_ETH_CTRS(ETH_ZERO)
#undef ETH_ZERO
		port = cfg[TOE_ETH_CF_PORT] & TOE_ETH_PORT_MASK;
		ticks = (cfg[TOE_ETH_CF_PORT] & TOE_ETH_PORT_NO_TICK) ? 0 : 1;
		if (applied == 0)
			status = TOE_STATUS_HELD;
		else if (toe_hw_eth_decode(cfg, &ncfg, &role) != 0)
			status = TOE_STATUS_BAD_CFG | (uint32_t)TOE_ETH_BAD_ADDRS << 16;
		else if (port >= TOE_HW_MAX_PORTS || (role == TOE_ROLE_TCP && port != 0))
			status = TOE_STATUS_BAD_CFG | (uint32_t)TOE_ETH_BAD_PORT << 16; /* gtoe_top serves port 0 */
		else
			status = TOE_STATUS_OK;
	}

	if (cfg[TOE_ETH_CF_TIME_SEQ] != time_seq) {
		time_seq = cfg[TOE_ETH_CF_TIME_SEQ];
		now = (uint64_t)cfg[TOE_ETH_CF_TIME_HI] << 32 | cfg[TOE_ETH_CF_TIME_LO];
		if (status == TOE_STATUS_OK) {
			hw_msg m;
			hw_msg_clear(m);
			m.kind = HW_MSG_POLL;
			m.ts_ns = now;
			m.port = (uint8_t)port;
			if (ticks) {
				hw_send(tcp_out, m, 0);
				c.polls++;
			}
			if (role == TOE_ROLE_TCP) {
				hw_send(gtoe_out, m, 0);
				c.gtoe_out++;
			}
		}
	}

	if (!rx_in.empty()) {
		int whole;
		uint32_t len = mac_read(rx_in, frame, c.beats, whole);
		c.frames++;
		c.octets += len;
		if (!whole) {
			c.oversize++;
		} else if (status != TOE_STATUS_OK) {
			c.held++;
		} else {
			net_pkt pkt;
			hw_msg m;
			uint32_t n = 0;
			enum net_rx_verdict v = net_rx(&ncfg, &st, frame, len, now, &pkt);
			if (role == TOE_ROLE_TCP && (v == NET_RX_TCP || v == NET_RX_ARP)) {
				hw_msg_clear(m);
				m.kind = HW_MSG_FRAME;
				m.port = (uint8_t)port;
				m.len = len;
				m.ts_ns = now;
				hw_send(gtoe_out, m, frame);
				c.gtoe_out++;
				v = NET_RX_DROP; /* handled there */
			}
			switch (v) {
			case NET_RX_TCP:
				pkt_msg(m, HW_MSG_SEG, pkt);
				m.port = (uint8_t)port;
				hw_send(tcp_out, m, pkt.payload);
				c.tcp_out++;
				break;
			case NET_RX_UDP:
				pkt_msg(m, HW_MSG_DGRAM, pkt);
				m.port = (uint8_t)port;
				hw_send(udp_out, m, pkt.payload);
				c.udp_out++;
				break;
			case NET_RX_ARP:
				n = net_arp_input(&arp, &ncfg, &st, &pkt, now, reply, TOE_HW_MAX_FRAME);
				break;
			case NET_RX_ICMP:
				n = net_icmp_input(&ncfg, &st, &pkt, reply, TOE_HW_MAX_FRAME);
				break;
			default:
				break;
			}
			if (n > 0 && role != TOE_ROLE_MIRROR) {
				hw_mac_write(tx_out, reply, n);
				c.tx_frames++;
				c.tx_octets += n;
			} else if (n > 0) {
				c.tx_suppressed++;
			}
		}
	}

	hw_stat_hdr(stat, TOE_KID_ETH_RX, applied, status, TOE_ETH_CTR_NET + NET_STATS_COUNT);
	stat[TOE_ETH_ST_PORT] = port;
#define ETH_PUT(name) hw_ctr(stat, i++, c.name);
	TOE_ETH_CTRS(ETH_PUT)
#undef ETH_PUT
	i = TOE_ETH_CTR_NET;
#define NET_PUT_ETH(name) hw_ctr(stat, i++, st.eth.name);
#define NET_PUT_IP(name) hw_ctr(stat, i++, st.ip.name);
#define NET_PUT_TCP(name) hw_ctr(stat, i++, st.tcp.name);
#define NET_PUT_UDP(name) hw_ctr(stat, i++, st.udp.name);
#define NET_PUT_ICMP(name) hw_ctr(stat, i++, st.icmp.name);
#define NET_PUT_ARP(name) hw_ctr(stat, i++, st.arp.name);
	NET_ETH_STATS(NET_PUT_ETH)
	NET_IP_STATS(NET_PUT_IP)
	NET_TCP_STATS(NET_PUT_TCP)
	NET_UDP_STATS(NET_PUT_UDP)
	NET_ICMP_STATS(NET_PUT_ICMP)
	NET_ARP_STATS(NET_PUT_ARP)
}

void eth_rx_top(hls::stream<hw_mac_beat> &rx_in, hls::stream<hw_mac_beat> &tx_out, hls::stream<hw_beat> &tcp_out,
		hls::stream<hw_beat> &udp_out, hls::stream<hw_beat> &gtoe_out, const uint32_t cfg[TOE_CFG_WORDS],
		uint32_t stat[TOE_STAT_WORDS])
{
#pragma HLS INTERFACE axis port = rx_in
#pragma HLS INTERFACE axis port = tx_out
#pragma HLS INTERFACE axis port = tcp_out
#pragma HLS INTERFACE axis port = udp_out
#pragma HLS INTERFACE axis port = gtoe_out
	HW_PRAGMA(HLS INTERFACE s_axilite port = cfg offset = TOE_REG_CFG bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = stat offset = TOE_REG_STAT bundle = control)
#pragma HLS INTERFACE ap_ctrl_none port = return
	eth_rx_body<0>(rx_in, tx_out, tcp_out, udp_out, gtoe_out, cfg, stat);
}

#ifndef __SYNTHESIS__
void eth_rx_top_inst(int inst, hls::stream<hw_mac_beat> &rx_in, hls::stream<hw_mac_beat> &tx_out,
		     hls::stream<hw_beat> &tcp_out, hls::stream<hw_beat> &udp_out, hls::stream<hw_beat> &gtoe_out,
		     const uint32_t cfg[TOE_CFG_WORDS], uint32_t stat[TOE_STAT_WORDS])
{
	switch (inst) {
	case 0:
		eth_rx_body<0>(rx_in, tx_out, tcp_out, udp_out, gtoe_out, cfg, stat);
		break;
	case 1:
		eth_rx_body<1>(rx_in, tx_out, tcp_out, udp_out, gtoe_out, cfg, stat);
		break;
	case 2:
		eth_rx_body<2>(rx_in, tx_out, tcp_out, udp_out, gtoe_out, cfg, stat);
		break;
	default:
		eth_rx_body<3>(rx_in, tx_out, tcp_out, udp_out, gtoe_out, cfg, stat);
		break;
	}
}
#endif
