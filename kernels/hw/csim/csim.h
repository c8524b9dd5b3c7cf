/* csim.h - what the C-simulation's files share: the simulated card, the register access of the host,
 * the software path, the feed generator (definitions in csim_main.cpp).
 */
#ifndef CSIM_H
#define CSIM_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hw/hw_tops.h"
extern "C" {
#include "test.h"
#include "pktbuild.h"
#include "fast/host/fast_compile.h"
#include "feed/sse_gen.h"
}

static const uint32_t OUR_IP = 0x0a010002;   /* 10.1.0.2: the vendor, our address */
static const uint32_t EXA_IP = 0x0a010001;   /* exchange, connection A */
static const uint32_t EXB_IP = 0x0a010003;   /* exchange, connection B (joined) */
static const uint32_t OTHER_IP = 0x0a010009; /* a neighbour (ARP, ping, UDP sender) */
static const uint16_t PORT_A = 9000, PORT_B = 9001, VPORT_A = 40000, VPORT_B = 40001;
static const uint16_t UDP_STEP = 5000, UDP_DGRAM = 5001, UDP_OTHER = 6000;
static const uint32_t MAX_CONNS = 16;
static const uint32_t MSS = 1408;
static const uint8_t OUR_MAC[6] = { 0x02, 0, 0, 0, 0, 0x02 };

/* ---- the simulated card: the tops' streams and AXI-Lite windows ---- */

struct device {
	hls::stream<hw_mac_beat> mac_rx{ "mac_rx" }, mac_tx{ "mac_tx" }, eth_tx{ "eth_tx" }, gtoe_tx{ "gtoe_tx" };
	hls::stream<hw_beat> eth_tcp{ "eth_tcp" }, eth_udp{ "eth_udp" }, eth_gtoe{ "eth_gtoe" }, ev{ "mtoe_ev" },
		gev{ "gtoe_ev" }, udp{ "udp_out" }, rec{ "records" };
	uint32_t cfg[TOE_KID_ALL][TOE_CFG_WORDS];
	uint32_t stat[TOE_KID_ALL][TOE_STAT_WORDS];
	uint32_t gconn[TOE_GTOE_CONN_WORDS], gtxd[TOE_GTOE_TXD_WORDS], gcst[TOE_GTOE_CST_WORDS];
	uint32_t prog[TOE_FAST_PROG_WORDS];
	uint64_t hbm_addr[TOE_HW_HBM_CHANNELS];
	std::vector<hw_word> hbm[TOE_HW_HBM_CHANNELS];
	uint32_t slots, rd, time_seq;
};

extern device D;

void reg_write(uint32_t kid, uint32_t off, uint32_t val);
uint32_t reg_read(uint32_t kid, uint32_t off);
/* Counter i of a kernel, read as the host must (high, low, high). */
uint64_t ctr(uint32_t kid, uint32_t i);
/* Run every kernel until nothing moves. */
void run();
/* One call each of mirror_toe_top, gtoe_top, tx_arb_top, udp_top, fast_top, hbm_writer_top on these inputs. */
void run_shared(hls::stream<hw_beat> &seg, hls::stream<hw_beat> &gtoe, hls::stream<hw_beat> &udp);
/* The host's clock write: one timer tick. */
void set_time(uint64_t t);
/* A frame as MAC beats into an eth_rx_top's input (any length: the oversize case too). */
void push_frame(const std::vector<uint8_t> &f, hls::stream<hw_mac_beat> &mac = D.mac_rx);
std::vector<uint8_t> pop_frame(hls::stream<hw_mac_beat> &s);
/* Every record between the host's read index and WRITE_INDEX. */
void host_drain(std::vector<union toe_record> &got);

/* ---- the software path ---- */

struct swpath {
	rx_pipe *p;
	fast_stream *fs;
	uint8_t *buf;
	uint64_t buf_len;
	std::vector<union toe_record> ring; /* what the software backend's ring gets */
};

void sw_init(swpath &s, const rx_cfg *cfg, const fast_prog *prog);
void sw_free(swpath &s);
void sw_drain(swpath &s);

struct feed {
	std::vector<uint8_t> bytes;
	std::vector<size_t> msg_end;            /* end offset of each message */
	std::vector<union toe_record> ticks;
	std::vector<size_t> tick_msg;           /* message index of each tick */
};

void make_feed(const fast_prog *prog, uint64_t seed, int nmsgs, feed &f);
bool same_tick(const union toe_record &a, const union toe_record &b);
void base_cfg(rx_cfg &cfg);
void check_header(uint32_t kid, uint32_t gen, uint32_t status);
void check_rings(const std::vector<union toe_record> &hw, const std::vector<union toe_record> &sw);
/* mirror_toe_top and fast_top counters against the software path's. */
void check_shared_ctrs(const swpath &sw, uint32_t nticks);

/* Frames built with pktbuild, to OUR_MAC: a TCP segment; a UDP datagram from OTHER_IP to OUR_IP. */
std::vector<uint8_t> tcp_frame(uint32_t sa, uint16_t sp, uint32_t da, uint16_t dp, uint32_t seq, uint32_t ack,
			       uint8_t flags, const uint8_t *p, size_t n);
std::vector<uint8_t> udp_frame(uint16_t dport, const uint8_t *p, size_t n);

/* csim_ports.cpp: the 4 x 10G layout (four eth_rx_tops, port_mux_top) */
void csim_ports(const fast_prog *prog);

/* csim_gtoe.cpp: role tcp (gtoe_top, tx_arb_top) */
void csim_gtoe(const fast_prog *prog);
void csim_gtoe_accept(const fast_prog *prog);
void csim_tx_arb(void);

#endif
