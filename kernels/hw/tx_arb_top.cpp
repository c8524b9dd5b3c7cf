/* tx_arb_top.cpp - HLS top: the transmit arbiter in front of the CMAC.
 *
 * Two producers send frames: eth_rx_top (ICMP echo replies, and ARP replies
 * outside role tcp) and gtoe_top (TCP segments, ARP requests and replies).
 * The CMAC has one tx stream. Each call moves one whole frame from one
 * input to the MAC, so beats of two frames never interleave (the MAC would
 * send garbage otherwise); when both inputs hold a frame the one not served
 * last goes first (round robin: neither can starve the other). Both
 * producers write a frame's beats in one go, so once a frame's first beat is
 * there the rest follows without a bubble longer than its producer's.
 */
#include "hw_tops.h"

struct txarb_ctrs {
#define TA_FIELD(name) uint64_t name;
	TOE_TXARB_CTRS(TA_FIELD)
#undef TA_FIELD
};

/* One frame from in to out; returns its bytes. */
static uint32_t move_frame(hls::stream<hw_mac_beat> &in, hls::stream<hw_mac_beat> &out, uint64_t &beats)
{
	uint32_t k, i, len = 0;
	for (k = 0; k < TOE_HW_MAX_FRAME / HW_MAC_BYTES + 1; k++) {
#pragma HLS PIPELINE II = 1
		hw_mac_beat b = in.read();
		uint32_t n = 0;
		for (i = 0; i < HW_MAC_BYTES; i++)
			if (b.keep.range(i, i).to_uint())
				n = i + 1;
		len += n;
		out.write(b);
		beats++;
		if (b.last)
			break;
	}
	return len;
}

void tx_arb_top(hls::stream<hw_mac_beat> &eth_in, hls::stream<hw_mac_beat> &gtoe_in, hls::stream<hw_mac_beat> &mac_out,
		uint32_t stat[TOE_STAT_WORDS])
{
#pragma HLS INTERFACE axis port = eth_in
#pragma HLS INTERFACE axis port = gtoe_in
#pragma HLS INTERFACE axis port = mac_out
	HW_PRAGMA(HLS INTERFACE s_axilite port = stat offset = TOE_REG_STAT bundle = control)
#pragma HLS INTERFACE ap_ctrl_none port = return

	static txarb_ctrs c;
	static uint32_t last = 1; /* input served last: 0 eth, 1 gtoe */
	uint32_t i = 0;
	bool e = !eth_in.empty(), g = !gtoe_in.empty();

	if (e || g) {
		uint32_t pick = e && g ? 1 - last : (e ? 0 : 1);
		if (e && g)
			c.contended++;
		if (pick == 0) {
			c.octets += move_frame(eth_in, mac_out, c.beats);
			c.frames_eth++;
		} else {
			c.octets += move_frame(gtoe_in, mac_out, c.beats);
			c.frames_gtoe++;
		}
		last = pick;
	}

	hw_stat_hdr(stat, TOE_KID_TXARB, 1, TOE_STATUS_OK, TOE_NCTR(TOE_TXARB_CTRS));
#define TA_PUT(name) hw_ctr(stat, i++, c.name);
	TOE_TXARB_CTRS(TA_PUT)
#undef TA_PUT
}
