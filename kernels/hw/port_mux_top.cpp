/* port_mux_top.cpp - HLS top: four ports' message streams merged into one, a whole message at a time.
 *
 * The 4 x 10G build (link_4x10g.cfg) has one eth_rx_top per port and one
 * mirror_toe_top, udp_top and gtoe_top for all of them. An instance of this
 * kernel sits in front of each shared input (seg_mux_1 -> mirror_toe_top,
 * udp_mux_1 -> udp_top, gtoe_mux_1 -> gtoe_top): each call moves one whole
 * message (header beat and payload beats up to `last`) from one input to
 * the output, round robin among the inputs that hold a message, so no port
 * starves another and beats of two messages never interleave. The messages
 * carry their port already (hw_msg.port, set by eth_rx_top): the mux does
 * not look into them. It drops nothing and has no configuration, so it has
 * no registers: the daemon only checks that the xclbin has it.
 */
#include "hw_tops.h"

/* Copy one message from in to out (call when in is not empty). */
static void move_msg(hls::stream<hw_beat> &in, hls::stream<hw_beat> &out)
{
	uint32_t k;
	for (k = 0; k < HW_MAX_MSG / HW_BEAT_BYTES + 2; k++) {
#pragma HLS PIPELINE II = 1
		hw_beat b = in.read();
		out.write(b);
		if (b.last)
			break;
	}
}

/* INST: each instance of the C-simulation its own state (see eth_rx_top.cpp). */
template <int INST>
static void port_mux_body(hls::stream<hw_beat> &in0, hls::stream<hw_beat> &in1, hls::stream<hw_beat> &in2,
			  hls::stream<hw_beat> &in3, hls::stream<hw_beat> &out)
{
#pragma HLS INLINE
	static uint32_t next = 0; /* the input served first on this call */
	uint32_t k, i;
	for (k = 0; k < TOE_HW_MAX_PORTS; k++) {
		i = (next + k) % TOE_HW_MAX_PORTS;
		if (i == 0 && !in0.empty()) {
			move_msg(in0, out);
			break;
		}
		if (i == 1 && !in1.empty()) {
			move_msg(in1, out);
			break;
		}
		if (i == 2 && !in2.empty()) {
			move_msg(in2, out);
			break;
		}
		if (i == 3 && !in3.empty()) {
			move_msg(in3, out);
			break;
		}
	}
	if (k < TOE_HW_MAX_PORTS)
		next = (i + 1) % TOE_HW_MAX_PORTS;
}

void port_mux_top(hls::stream<hw_beat> &in0, hls::stream<hw_beat> &in1, hls::stream<hw_beat> &in2,
		  hls::stream<hw_beat> &in3, hls::stream<hw_beat> &out)
{
#pragma HLS INTERFACE axis port = in0
#pragma HLS INTERFACE axis port = in1
#pragma HLS INTERFACE axis port = in2
#pragma HLS INTERFACE axis port = in3
#pragma HLS INTERFACE axis port = out
#pragma HLS INTERFACE ap_ctrl_none port = return
	port_mux_body<0>(in0, in1, in2, in3, out);
}

#ifndef __SYNTHESIS__
void port_mux_top_inst(int inst, hls::stream<hw_beat> &in0, hls::stream<hw_beat> &in1, hls::stream<hw_beat> &in2,
		       hls::stream<hw_beat> &in3, hls::stream<hw_beat> &out)
{
	switch (inst) {
	case 0:
		port_mux_body<0>(in0, in1, in2, in3, out);
		break;
	case 1:
		port_mux_body<1>(in0, in1, in2, in3, out);
		break;
	default:
		port_mux_body<2>(in0, in1, in2, in3, out);
		break;
	}
}
#endif
