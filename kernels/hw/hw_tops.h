/* hw_tops.h - the Vitis HLS top functions (one kernel each, free-running, ap_ctrl_none).
 *
 * Port names are the names link.cfg connects (kernel_1.port). Each call
 * handles at most one input message and returns; on the card the function
 * restarts at once (ap_ctrl_none), in the C-simulation the driver calls the
 * tops in a loop. cfg/stat are the AXI-Lite windows of toe_regmap.h.
 */
#ifndef HW_TOPS_H
#define HW_TOPS_H

#include "hw_common.h"

/* Frames from the MAC -> net_rx; ARP/ICMP replies to tx_out (main and tcp
 * roles), TCP segments to tcp_out (mirror_toe_top), UDP datagrams to udp_out
 * (udp_top); timer ticks (TIME_SEQ) to tcp_out. Role tcp: TCP and ARP frames
 * whole, and the ticks, to gtoe_out (gtoe_top). */
void eth_rx_top(hls::stream<hw_mac_beat> &rx_in, hls::stream<hw_mac_beat> &tx_out, hls::stream<hw_beat> &tcp_out,
		hls::stream<hw_beat> &udp_out, hls::stream<hw_beat> &gtoe_out, const uint32_t cfg[TOE_CFG_WORDS],
		uint32_t stat[TOE_STAT_WORDS]);

/* The 4 x 10G build's merge in front of a shared kernel: four ports'
 * message streams into one, a whole message at a time, round robin. */
void port_mux_top(hls::stream<hw_beat> &in0, hls::stream<hw_beat> &in1, hls::stream<hw_beat> &in2,
		  hls::stream<hw_beat> &in3, hls::stream<hw_beat> &out);

#ifndef __SYNTHESIS__
/* The C-simulation's further instances (own state each): eth_rx_top as
 * instance inst (0..3; 0 is eth_rx_top itself), port_mux_top as instance
 * inst (0..2; 0 is port_mux_top itself). */
void eth_rx_top_inst(int inst, hls::stream<hw_mac_beat> &rx_in, hls::stream<hw_mac_beat> &tx_out,
		     hls::stream<hw_beat> &tcp_out, hls::stream<hw_beat> &udp_out, hls::stream<hw_beat> &gtoe_out,
		     const uint32_t cfg[TOE_CFG_WORDS], uint32_t stat[TOE_STAT_WORDS]);
void port_mux_top_inst(int inst, hls::stream<hw_beat> &in0, hls::stream<hw_beat> &in1, hls::stream<hw_beat> &in2,
		       hls::stream<hw_beat> &in3, hls::stream<hw_beat> &out);
#endif

/* Segments and timer ticks -> mtoe -> one EV message per event. */
void mirror_toe_top(hls::stream<hw_beat> &seg_in, hls::stream<hw_beat> &ev_out, const uint32_t cfg[TOE_CFG_WORDS],
		    uint32_t stat[TOE_STAT_WORDS]);

/* The general TOE (role tcp): frames and ticks from eth_rx_top, the
 * connection table (conn) and the TX mailbox (txd) -> EV messages (OPEN,
 * DATA, CLOSE) on ev_out, frames to transmit on tx_out. mev_in: the mirror
 * TOE's events, passed on whole to ev_out (fast_top has one TCP input).
 * cst: per-connection state, read by the host. */
void gtoe_top(hls::stream<hw_beat> &frame_in, hls::stream<hw_beat> &mev_in, hls::stream<hw_beat> &ev_out,
	      hls::stream<hw_mac_beat> &tx_out, const uint32_t cfg[TOE_CFG_WORDS],
	      const uint32_t conn[TOE_GTOE_CONN_WORDS], const uint32_t txd[TOE_GTOE_TXD_WORDS],
	      uint32_t cst[TOE_GTOE_CST_WORDS], uint32_t stat[TOE_STAT_WORDS]);

/* Frames of eth_rx_top and gtoe_top onto the MAC's tx stream: round robin, a whole frame at a time. */
void tx_arb_top(hls::stream<hw_mac_beat> &eth_in, hls::stream<hw_mac_beat> &gtoe_in, hls::stream<hw_mac_beat> &mac_out,
		uint32_t stat[TOE_STAT_WORDS]);

/* Datagrams -> the listen table -> payloads of listened ports, with their stream id. */
void udp_top(hls::stream<hw_beat> &dgram_in, hls::stream<hw_beat> &udp_out, const uint32_t cfg[TOE_CFG_WORDS],
	     uint32_t stat[TOE_STAT_WORDS]);

/* Stream events and datagrams -> STEP + FAST + tick mapping -> 128-byte
 * records (ticks, gaps, resets). prog: the template memory. */
void fast_top(hls::stream<hw_beat> &tcp_in, hls::stream<hw_beat> &udp_in, hls::stream<hw_beat> &rec_out,
	      const uint32_t cfg[TOE_CFG_WORDS], const uint32_t prog[TOE_FAST_PROG_WORDS],
	      uint32_t stat[TOE_STAT_WORDS]);

/* Records -> the ring striped over four HBM pseudo-channels. */
void hbm_writer_top(hls::stream<hw_beat> &rec_in, hw_word *hbm0, hw_word *hbm1, hw_word *hbm2, hw_word *hbm3,
		    const uint32_t cfg[TOE_CFG_WORDS], uint32_t stat[TOE_STAT_WORDS]);

#endif
