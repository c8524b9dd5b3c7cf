/* mirror_toe_top.cpp - HLS top: TCP segments and timer ticks -> mirror TOE (kernels/toe/mtoe) -> stream events.
 *
 * A SEG message becomes the struct net_pkt net_rx produced (only the fields
 * the mirror TOE reads) and goes to mtoe_segment(); a POLL message runs
 * mtoe_poll() until it has nothing more, as rx_poll() does in software.
 * Each event leaves as one EV message, DATA with its bytes (copied out of
 * the segment or the reassembly buffer before the next segment can reuse it),
 * stamped with the time of the segment or tick that caused it.
 * A segment keeps the port it came in on (hw_msg.port -> net_pkt.in_port):
 * the 4 x 10G build's four ports share this mirror TOE, each feed filter
 * selects one port's frames (mtoe_flow.in_port).
 */
#include "hw_tops.h"

struct mtoe_ctrs {
#define MTOE_FIELD(name) uint64_t name;
	TOE_MTOE_CTRS(MTOE_FIELD)
#undef MTOE_FIELD
};

static_assert(TOE_NCTR(TOE_MTOE_CTRS) <= TOE_MTOE_CTR_STATS, "mtoe counters overlap");
static_assert(TOE_ST_CTR0 + 2 * (TOE_MTOE_CTR_STATS + TOE_NCTR(TOE_MTOE_STATS)) <= TOE_STAT_WORDS,
	      "mtoe status window");
static_assert(sizeof(struct mtoe_stats) == 8 * TOE_NCTR(TOE_MTOE_STATS), "TOE_MTOE_STATS lists every counter");

static void send_events(hls::stream<hw_beat> &out, const mtoe_event *ev, uint32_t n, uint64_t ts, mtoe_ctrs &c)
{
	uint32_t k;
	for (k = 0; k < MTOE_SEG_EVENTS; k++) {
		hw_msg m;
		if (k >= n)
			break;
		hw_msg_clear(m);
		m.kind = HW_MSG_EV;
		m.type = ev[k].type;
		m.reason = ev[k].reason;
		m.stream = ev[k].conn;
		m.flow = ev[k].flow;
		m.offset = ev[k].offset;
		m.ev_len = ev[k].len;
		m.len = ev[k].type == MTOE_EV_DATA ? (uint32_t)ev[k].len : 0;
		m.ts_ns = ts;
		hw_send(out, m, ev[k].data);
		c.events++;
		c.data_bytes += m.len;
	}
}

void mirror_toe_top(hls::stream<hw_beat> &seg_in, hls::stream<hw_beat> &ev_out, const uint32_t cfg[TOE_CFG_WORDS],
		    uint32_t stat[TOE_STAT_WORDS])
{
#pragma HLS INTERFACE axis port = seg_in
#pragma HLS INTERFACE axis port = ev_out
	HW_PRAGMA(HLS INTERFACE s_axilite port = cfg offset = TOE_REG_CFG bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = stat offset = TOE_REG_STAT bundle = control)
#pragma HLS INTERFACE ap_ctrl_none port = return

	static mtoe m;
	static uint8_t buf[TOE_HW_MTOE_BUF]; /* reassembly windows (URAM) */
	static mtoe_event ev[MTOE_SEG_EVENTS];
	static uint8_t seg[TOE_HW_MAX_FRAME];
	static mtoe_ctrs c;
	static uint32_t applied = 0, status = TOE_STATUS_HELD;
	uint32_t i = 0;

	if (cfg[TOE_CF_APPLY] != applied) {
		mtoe_cfg mc;
		int rc;
		applied = cfg[TOE_CF_APPLY];
#define MTOE_ZERO(name) c.name = 0;
		TOE_MTOE_CTRS(MTOE_ZERO)
#undef MTOE_ZERO
		rc = toe_hw_mtoe_decode(cfg, &mc) != 0 ? MTOE_ERR_FLOWS : mtoe_init(&m, &mc, buf, TOE_HW_MTOE_BUF);
		if (applied == 0)
			status = TOE_STATUS_HELD;
		else if (rc != MTOE_OK)
			status = TOE_STATUS_BAD_CFG | (uint32_t)(-rc) << 16;
		else
			status = TOE_STATUS_OK;
	}

	if (!seg_in.empty()) {
		hw_msg msg;
		hw_recv_hdr(seg_in, msg);
		if (status != TOE_STATUS_OK) {
			if (msg.len > 0)
				hw_drop_msg(seg_in);
			c.held++;
		} else if (msg.kind == HW_MSG_SEG) {
			net_pkt pkt;
			uint32_t n, len = hw_recv_payload(seg_in, msg, seg, TOE_HW_MAX_FRAME);
			pkt.frame = seg;
			pkt.frame_len = len;
			pkt.vlan[0] = msg.vlan0;
			pkt.vlan[1] = msg.vlan1;
			pkt.nvlan = msg.nvlan;
			pkt.l4proto = NET_PROTO_TCP;
			pkt.tcp_flags = msg.tcp_flags;
			pkt.pad = 0;
			pkt.saddr = msg.saddr;
			pkt.daddr = msg.daddr;
			pkt.sport = msg.sport;
			pkt.dport = msg.dport;
			pkt.seq = msg.seq;
			pkt.ack = msg.ack;
			pkt.win = msg.win;
			pkt.pad2 = 0;
			pkt.payload = seg;
			pkt.payload_len = len;
			pkt.ts_ns = msg.ts_ns;
			pkt.in_port = msg.port; /* eth_rx_top's port: flows and connections are per port */
			pkt.pad3 = 0;
			c.segments++;
			n = mtoe_segment(&m, &pkt, ev, MTOE_SEG_EVENTS);
			send_events(ev_out, ev, n, msg.ts_ns, c);
		} else if (msg.kind == HW_MSG_POLL) {
			uint32_t k;
			c.polls++;
			/* each batch holds at least one event; a connection gives a few */
			for (k = 0; k < MTOE_MAX_CONNS + 2; k++) {
				uint32_t n = mtoe_poll(&m, msg.ts_ns, ev, MTOE_SEG_EVENTS);
				if (n == 0)
					break;
				send_events(ev_out, ev, n, msg.ts_ns, c);
			}
		} else if (msg.len > 0) {
			hw_drop_msg(seg_in);
		}
	}

	hw_stat_hdr(stat, TOE_KID_MTOE, applied, status, TOE_MTOE_CTR_STATS + TOE_NCTR(TOE_MTOE_STATS));
#define MTOE_PUT(name) hw_ctr(stat, i++, c.name);
	TOE_MTOE_CTRS(MTOE_PUT)
#undef MTOE_PUT
	i = TOE_MTOE_CTR_STATS;
#define MTOE_PUT_ST(name) hw_ctr(stat, i++, m.st.name);
	TOE_MTOE_STATS(MTOE_PUT_ST)
#undef MTOE_PUT_ST
}
