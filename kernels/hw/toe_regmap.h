/* toe_regmap.h - the card's register map, shared by the HLS tops and the daemon (C and C++).
 *
 * Every kernel (compute unit) of the xclbin has its own AXI-Lite slave; the
 * offsets below are relative to that CU's base address (xrt::ip
 * read_register/write_register take exactly these offsets). All registers
 * are 32 bits. The HLS tops place their ports at these offsets with
 * `#pragma HLS INTERFACE s_axilite ... offset=` (hw_common.h), so this file
 * is the one place the numbers live. Numbers used in pragmas carry no
 * integer suffix.
 *
 * Layout common to every kernel:
 *
 *   TOE_REG_STAT + 4*w   read-only status words (TOE_STAT_WORDS):
 *       w = TOE_ST_MAGIC    TOE_HW_MAGIC ("TOE1")
 *           TOE_ST_VERSION  TOE_REGMAP_VERSION
 *           TOE_ST_KERNEL   TOE_KID_* of this kernel
 *           TOE_ST_APPLIED  the TOE_CF_APPLY value the kernel runs with (0: held)
 *           TOE_ST_STATUS   TOE_STATUS_* | detail << 16
 *           TOE_ST_NCTR     number of 64-bit counters that follow
 *           TOE_ST_CTR0 + 2*i, +1: counter i, low word then high word
 *   TOE_REG_CFG + 4*w    read-write configuration words (TOE_CFG_WORDS):
 *       w = TOE_CF_APPLY    written last: a new non-zero value makes the kernel
 *                           read its configuration words again and restart
 *                           (state and counters cleared); 0 holds it (input is
 *                           consumed and dropped, counted as `held`).
 *
 * Counters are 64 bits wide and only grow (until the next APPLY). Read the
 * high word, the low word, then the high word again, and retry when the two
 * high words differ.
 *
 * Program a kernel: write its configuration words, then TOE_CF_APPLY with a
 * value different from the one it runs with (a generation number). Apply the
 * kernels downstream first (hbm_writer, fast, udp, mirror_toe, eth_rx) so
 * nothing upstream sends to a kernel that is still held. toe_hw_cfg.h builds
 * the writes from a struct rx_cfg.
 *
 * Kernel graph (link.cfg):
 *   cmac_0 -> eth_rx_top -> mirror_toe_top -> gtoe_top -> fast_top -> hbm_writer_top -> HBM[0..3]
 *                 | |  \-----------------------/ (role tcp)   /
 *                 | \----> udp_top -----------------------/
 *                 \--> tx_arb_top <-- gtoe_top; tx_arb_top -> cmac_0 (replies, the general TOE's frames)
 */
#ifndef TOE_REGMAP_H
#define TOE_REGMAP_H

#define TOE_REGMAP_VERSION 1
#define TOE_HW_MAGIC 0x31454f54u /* "TOE1" as little-endian bytes */

/* ---- compute units: kernel name, instance name (xrt::ip "kernel:{cu}") ---- */
#define TOE_KID_ETH_RX 1
#define TOE_KID_MTOE 2
#define TOE_KID_UDP 3
#define TOE_KID_FAST 4
#define TOE_KID_HBM 5
#define TOE_KID_COUNT 6   /* the receive-path kernels the daemon programs (1..5) */
#define TOE_KID_GTOE 6    /* gtoe_top: the general TOE (role = tcp) */
#define TOE_KID_TXARB 7   /* tx_arb_top: the transmit arbiter */
#define TOE_KID_ALL 8     /* every kernel of the xclbin (ids 1..7) */

#define TOE_IP_ETH_RX "eth_rx_top:{eth_rx_top_1}"
#define TOE_IP_MTOE "mirror_toe_top:{mirror_toe_top_1}"
#define TOE_IP_UDP "udp_top:{udp_top_1}"
#define TOE_IP_FAST "fast_top:{fast_top_1}"
#define TOE_IP_HBM "hbm_writer_top:{hbm_writer_top_1}"
#define TOE_IP_GTOE "gtoe_top:{gtoe_top_1}"
#define TOE_IP_TXARB "tx_arb_top:{tx_arb_top_1}"
#define TOE_IP_CMAC "cmac_0:{cmac_0}"

/* ---- ports: the 4 x 10G layout (link_4x10g.cfg) ----
 * The 100G build (link.cfg) has one port: eth_rx_top_1 behind cmac_0 on the
 * QSFP28. The 4 x 10G build breaks the QSFP28 out into four 10G lanes
 * (a four-lane 10G/25G Ethernet subsystem, 64-bit AXI4-Stream per lane) and
 * has one eth_rx_top per lane, eth_rx_top_1..4 for ports 0..3, each with its
 * own configuration block (addresses, MAC, role, filters: the software
 * backend's [port.N]). Their TCP segments and UDP datagrams are merged in
 * front of the one mirror_toe_top and udp_top by port_mux_top instances
 * (seg_mux_1, udp_mux_1; gtoe_mux_1 in front of gtoe_top), a whole message
 * at a time; every SEG and DGRAM message carries its port (hw_msg.port) so
 * the mirror TOE's flows and connections and the UDP listen table are per
 * port, as in the software backend's rx_frame_port: the same 4-tuple on two
 * ports is two connections. The daemon tells the layout by the compute units
 * in the xclbin's IP_LAYOUT (eth_rx_top_2..4 and the muxes present or not).
 * TOE_KID_ETH_PORT(n) addresses port n's eth_rx_top in toe_hw_wr (port 0 is
 * TOE_KID_ETH_RX); every eth_rx_top reports kernel id TOE_KID_ETH_RX. */
#define TOE_HW_MAX_PORTS 4
#define TOE_KID_ETH_PORT(n) ((n) ? 16 + (n) : TOE_KID_ETH_RX) /* 17..19 for ports 1..3 */
#define TOE_KID_PORT_MAX 20  /* array bound for kernel ids including the port ids */
#define TOE_IP_ETH_RX_2 "eth_rx_top:{eth_rx_top_2}"
#define TOE_IP_ETH_RX_3 "eth_rx_top:{eth_rx_top_3}"
#define TOE_IP_ETH_RX_4 "eth_rx_top:{eth_rx_top_4}"
#define TOE_IP_SEG_MUX "port_mux_top:{seg_mux_1}"   /* no registers: present or not */
#define TOE_IP_UDP_MUX "port_mux_top:{udp_mux_1}"
#define TOE_IP_GTOE_MUX "port_mux_top:{gtoe_mux_1}"
#define TOE_IP_ETH10G "eth10g_0:{eth10g_0}"         /* the four-lane 10G MAC (RTL kernel, not ours) */

/* ---- capacities of this hardware build ---- */
#define TOE_HW_TCP_STREAMS 64     /* mirror TOE connections (paper: 64) */
#define TOE_HW_MTOE_BUF (64u * 32768u) /* reassembly bytes: 64 x 32 KB */
#define TOE_HW_UDP_STREAMS 16     /* listened UDP ports */
#define TOE_HW_MAX_FRAME 9600u    /* longest Ethernet frame (jumbo), bytes without FCS */
#define TOE_HW_HBM_CHANNELS 4     /* ring striped over HBM pseudo-channels 0..3 */

/* ---- common layout ---- */
#define TOE_REG_STAT 0x1000
#define TOE_REG_CFG 0x2000
#define TOE_STAT_WORDS 256
#define TOE_CFG_WORDS 256
#define TOE_STAT(w) (TOE_REG_STAT + 4 * (w))
#define TOE_CFG(w) (TOE_REG_CFG + 4 * (w))

#define TOE_ST_MAGIC 0
#define TOE_ST_VERSION 1
#define TOE_ST_KERNEL 2
#define TOE_ST_APPLIED 3
#define TOE_ST_STATUS 4
#define TOE_ST_NCTR 5
#define TOE_ST_CTR0 8
#define TOE_CTR_LO(i) TOE_STAT(TOE_ST_CTR0 + 2 * (i))
#define TOE_CTR_HI(i) (TOE_CTR_LO(i) + 4)

#define TOE_CF_APPLY 0

/* TOE_ST_STATUS low 16 bits; bits 31..16 hold a kernel-specific detail */
#define TOE_STATUS_OK 0
#define TOE_STATUS_HELD 1     /* APPLY is 0: not configured, input dropped */
#define TOE_STATUS_BAD_CFG 2  /* configuration refused (detail: reason), input dropped */
#define TOE_STATUS_BAD_PROG 3 /* fast_top: template program refused (detail: reason) */

/* ---- eth_rx_top: Ethernet/VLAN, IPv4, ARP, ICMP (kernels/net) ---- */
#define TOE_ETH_CF_FLAGS 1     /* NET_CFG_* (checksums, destination filter) */
#define TOE_ETH_CF_MTU 2
#define TOE_ETH_CF_ROLE 3      /* TOE_ROLE_*: a mirror port never transmits */
#define TOE_ETH_CF_GATEWAY 4   /* IPv4 next hop (host order); for the general TOE, unused by the mirror path */
#define TOE_ETH_CF_MSS 5       /* TCP MSS of the general TOE (paper: 1408); unused by the mirror path */
#define TOE_ETH_CF_TIME_LO 6   /* host clock, ns (CLOCK_REALTIME): frames are stamped with it */
#define TOE_ETH_CF_TIME_HI 7
#define TOE_ETH_CF_TIME_SEQ 8  /* write after TIME_LO/HI: each new value is one timer tick downstream */
#define TOE_ETH_CF_NADDR 9     /* our IPv4 addresses in use, 0..4 */
/* Arrival timestamps (design; RESERVED: not implemented by eth_rx_top yet, which
 * stamps every frame with the last host time written to TIME_LO/HI above, i.e.
 * the time of the last timer tick, and the daemon marks card records
 * TOE_CLK_CARD only once TS_MODE is implemented).
 *
 * Goal: every frame stamped when its first beat leaves the MAC, on a clock the
 * host can compare with CLOCK_REALTIME, carried in hw_msg.ts_ns to the record's
 * rx_ns (hdr.present clock bits = TOE_CLK_CARD).
 *
 *   clock     a 64-bit ns counter in eth_rx_top's clock domain (300 MHz): every
 *             cycle it adds TS_INC, an unsigned 8.24 fixed-point ns increment
 *             (3.333... ns = 0x03555555 at 300 MHz), so the host trims the rate
 *             (PTP-style frequency adjustment, ~0.06 ppb steps) without a second
 *             clock domain. The low 24 bits are the fraction, not visible.
 *   set       the host writes TS_SET_LO/HI, then bumps TS_SET_SEQ: the counter
 *             takes that value (a step, e.g. at start-up from CLOCK_REALTIME).
 *   compare   the host reads CLOCK_REALTIME, bumps TS_LATCH_SEQ, reads CLOCK_REALTIME
 *             again; the kernel copies the counter into the status words TS_NOW_LO/HI
 *             and TS_LATCH_SEQ is echoed in TOE_ETH_ST_TS_LATCHED once they are
 *             valid. The offset is NOW minus the mid-point of the two host reads
 *             (the AXI-Lite round trip bounds the error, ~1-2 us through XRT);
 *             the daemon servoes TS_INC and steps with TS_SET only when far off.
 *   stamp     TS_MODE selects the frame's stamp:
 *               TOE_TS_HOST_TICK 0  today's behaviour: the last TIME_LO/HI value;
 *               TOE_TS_SOF       1  the counter at the frame's first beat (tuser/tlast
 *                                   framing of the MAC's AXI4-Stream), no MAC support needed;
 *               TOE_TS_CMAC_PTP  2  the CMAC's own IEEE 1588 receive stamp
 *                                   (cmac_usplus built with PTP: rx_ptp_tstamp_out,
 *                                   80-bit ToD or 64-bit ns, valid with the frame's
 *                                   first beat), taken at the PCS: the most exact,
 *                                   but the XUP VNx CMAC kernel this design uses does
 *                                   not bring that sideband out to its AXI4-Stream,
 *                                   so it needs a CMAC kernel rebuilt with it.
 *             TOE_ETH_ST_TS_CAPS says which modes this build has (bit per mode).
 * The stamp of a segment travels with it through the mirror TOE (hw_msg.ts_ns
 * already does); the record of a message takes the stamp of the segment that
 * completed it, as in the software path. */
#define TOE_ETH_CF_TS_MODE 10      /* RESERVED: TOE_TS_* */
#define TOE_ETH_CF_TS_INC 11       /* RESERVED: ns per cycle, unsigned 8.24 fixed point */
#define TOE_ETH_CF_TS_SET_LO 12    /* RESERVED: counter value to set, ns */
#define TOE_ETH_CF_TS_SET_HI 13
#define TOE_ETH_CF_TS_SET_SEQ 14   /* RESERVED: a new value makes the counter take TS_SET_LO/HI */
#define TOE_ETH_CF_TS_LATCH_SEQ 15 /* RESERVED: a new value latches the counter into TS_NOW_LO/HI */
#define TOE_ETH_ST_TS_NOW_LO 240   /* RESERVED status words: the latched counter, ns */
#define TOE_ETH_ST_TS_NOW_HI 241
#define TOE_ETH_ST_TS_LATCHED 242  /* RESERVED: the TS_LATCH_SEQ value TS_NOW_LO/HI belong to */
#define TOE_ETH_ST_TS_CAPS 243     /* RESERVED: bit (1 << TOE_TS_*) per mode this build has; 0 = only HOST_TICK */
#define TOE_TS_HOST_TICK 0
#define TOE_TS_SOF 1
#define TOE_TS_CMAC_PTP 2
#define TOE_ETH_CF_ADDR(i) (16 + 8 * (i)) /* i < 4: the five words below */
/* Word 48: the port this eth_rx_top is (0..3, carried in hw_msg.port of its
 * SEG and DGRAM messages) | TOE_ETH_PORT_NO_TICK. Only one eth_rx_top sends
 * the timer ticks (POLL) to the mirror TOE (the software backend calls
 * rx_poll once per tick, not once per port): the host sets NO_TICK on ports
 * 1..3. 0 (the 100G build's one port) is port 0 with ticks. Not among the
 * words 1..47 gtoe_top takes. Role tcp on a port other than 0 is refused
 * (BAD_CFG, detail TOE_ETH_BAD_PORT): gtoe_top serves port 0 alone. */
#define TOE_ETH_CF_PORT 48
#define TOE_ETH_PORT_MASK 0xffu
#define TOE_ETH_PORT_NO_TICK 0x100u
#define TOE_ETH_ST_PORT 6      /* status: the port it runs as (word 48's low byte, at APPLY) */
#define TOE_ETH_BAD_ADDRS 1    /* TOE_STATUS_BAD_CFG details */
#define TOE_ETH_BAD_PORT 2
#define TOE_ETH_ADDR_IP 0      /* host order */
#define TOE_ETH_ADDR_MASK 1
#define TOE_ETH_ADDR_MAC_HI 2  /* mac[0] << 8 | mac[1] */
#define TOE_ETH_ADDR_MAC_LO 3  /* mac[2] << 24 | mac[3] << 16 | mac[4] << 8 | mac[5] */
#define TOE_ETH_ADDR_VLAN 4
#define TOE_ETH_MAX_ADDRS 4

#define TOE_ROLE_MIRROR 0      /* ARP/ICMP answered in the counters only */
#define TOE_ROLE_MAIN 1        /* replies go out on the port */
#define TOE_ROLE_TCP 2         /* a main port whose TCP is the general TOE's (gtoe_top): TCP and ARP
				* frames go whole to gtoe_top (gtoe_out), which holds the ARP table
				* its own transmit path needs and answers ARP; ICMP is answered here */

#define TOE_ETH_CTRS(X)                                                             \
	X(beats)         /* AXI4-Stream beats received from the MAC */              \
	X(frames)        /* frames received */                                      \
	X(octets)        /* their bytes */                                          \
	X(oversize)      /* frames longer than TOE_HW_MAX_FRAME (dropped) */        \
	X(held)          /* frames dropped while held */                            \
	X(tcp_out)       /* segments sent to mirror_toe_top */                      \
	X(udp_out)       /* datagrams sent to udp_top */                            \
	X(polls)         /* timer ticks sent to mirror_toe_top */                   \
	X(tx_frames)     /* ARP/ICMP replies sent */                                \
	X(tx_octets)                                                                \
	X(tx_suppressed) /* replies not sent: mirror role */                      \
	X(gtoe_out)      /* role tcp: frames (TCP, ARP) and ticks sent to gtoe_top */
/* Counters from TOE_ETH_CTR_NET on: struct net_stats (kernels/net/net_counters.h),
 * NET_STATS_COUNT of them in the order of its X-macros (net_stats_table()). */
#define TOE_ETH_CTR_NET 16

/* ---- mirror_toe_top: the mirror TOE (kernels/toe/mtoe.h) ---- */
#define TOE_MTOE_CF_MAX_CONNS 1  /* 1..TOE_HW_TCP_STREAMS */
#define TOE_MTOE_CF_WINDOW 2     /* bytes per connection, power of two; conns * window <= TOE_HW_MTOE_BUF */
#define TOE_MTOE_CF_MAX_RANGES 3
#define TOE_MTOE_CF_NFLOWS 4     /* feed filters in use, 0..64 */
#define TOE_MTOE_CF_GAP_NS_LO 5
#define TOE_MTOE_CF_GAP_NS_HI 6
#define TOE_MTOE_CF_IDLE_NS_LO 7
#define TOE_MTOE_CF_IDLE_NS_HI 8
#define TOE_MTOE_CF_LINGER_NS_LO 9
#define TOE_MTOE_CF_LINGER_NS_HI 10
#define TOE_MTOE_CF_FLOW(i) (16 + 3 * (i)) /* i < 64: feed filter (exchange IP:port pair) */
#define TOE_MTOE_FLOW_EX_ADDR 0   /* exchange IPv4, host order; 0 = any */
#define TOE_MTOE_FLOW_PEER_ADDR 1 /* vendor IPv4; 0 = any */
#define TOE_MTOE_FLOW_PORTS 2     /* ex_port | peer_port << 16; 0 = any */
#define TOE_MTOE_MAX_FLOWS 64
/* The port of feed filter i (mtoe_flow.in_port): byte i % 4 of word
 * TOE_MTOE_CF_FLOW_PORT(i); 0 (the 100G build) is port 0. */
#define TOE_MTOE_CF_FLOW_PORT(i) (208 + (i) / 4)

#define TOE_MTOE_CTRS(X)                                                            \
	X(segments)      /* segments received from eth_rx_top */                    \
	X(polls)         /* timer ticks received */                                 \
	X(events)        /* events sent to fast_top */                              \
	X(data_bytes)    /* stream bytes sent */                                    \
	X(held)          /* messages dropped while held */
/* Counters from TOE_MTOE_CTR_STATS on: struct mtoe_stats, in this order. */
#define TOE_MTOE_CTR_STATS 8
#define TOE_MTOE_STATS(X)                                                           \
	X(packets) X(not_tcp) X(not_followed) X(reverse) X(no_conn) X(no_slot)     \
	X(opens) X(joins) X(restarts) X(closes) X(after_close) X(bytes) X(gaps)    \
	X(gap_bytes) X(ev_short) X(ev_overflow) X(ack_gaps) X(ack_gap_bytes)        \
	X(close_gaps) X(close_gap_bytes) X(late_bytes) X(fin_inferred) X(bad_acks)

/* ---- udp_top: the UDP listen table (kernels/net/net_udp.h) ---- */
#define TOE_UDP_CF_NPORTS 1       /* 0..TOE_HW_UDP_STREAMS */
#define TOE_UDP_CF_STREAM_BASE 2  /* stream id of port 0 (= the mirror TOE's max_conns) */
#define TOE_UDP_CF_PORT(i) (16 + (i)) /* port | framing << 16 (FAST_FRAMING_STEP 0 / DATAGRAM 1)
				       * | in_port << 24 (rx_udp_cfg.in_port: the network port, 0..3) */

#define TOE_UDP_CTRS(X)                                                             \
	X(datagrams)     /* datagrams received from eth_rx_top */                   \
	X(delivered)     /* sent to fast_top (net_stats udp.delivered) */          \
	X(drop_udp_port) /* destination port not listened */                        \
	X(bytes)         /* payload bytes sent */                                   \
	X(held)                                                                     \
	X(other_port)    /* listened UDP port, but not on the port the datagram came in on (rx udp_other_port) */

/* ---- fast_top: STEP deframer, FAST decoder, tick mapper (kernels/fast) ---- */
#define TOE_FAST_CF_PROG_VALID TOE_CF_APPLY /* the program window holds a program: load it */
#define TOE_FAST_CF_TCP_STREAMS 1  /* = the mirror TOE's max_conns: TCP stream ids 0..n-1 */
#define TOE_FAST_CF_NUDP 2         /* UDP streams: ids TCP_STREAMS .. TCP_STREAMS+NUDP-1 */
#define TOE_FAST_CF_DGRAM_MASK 3   /* bit i: UDP stream i uses DATAGRAM framing (else STEP) */
#define TOE_FAST_CF_SESS_LO 4      /* bit i: TCP stream i is toed's own connection with a STEP session run by the
				      host: its messages without FAST data and its close leave as
				      TOE_REC_CARD_SESS records (kernels/rx/rx_sess.h); streams 0..31 */
#define TOE_FAST_CF_SESS_HI 5      /* the same for streams 32..63 */

/* The template memory: struct fast_prog (kernels/fast/fast_prog.h,
 * doc/template-program.md) as little-endian 32-bit words, word n at
 * TOE_FAST_REG_PROG + 4*n. */
#define TOE_FAST_REG_PROG 0x10000
#define TOE_FAST_PROG_WORDS 8192    /* window size; the program uses TOE_PROG_BYTES / 4 */
#define TOE_PROG_OFF_HDR 0          /* magic, version, counts */
#define TOE_PROG_OFF_TPL 16         /* template table: 64 x 12 bytes */
#define TOE_PROG_OFF_INSTR 784      /* instruction words: 1024 x 16 bytes */
#define TOE_PROG_OFF_CONST 17168    /* initial values: 512 x 16 bytes */
#define TOE_PROG_OFF_POOL 25360     /* string pool: 4096 bytes */
#define TOE_PROG_BYTES 29456
#define TOE_FAST_PROG(byte_off) (TOE_FAST_REG_PROG + (byte_off))

#define TOE_FAST_BAD_MAGIC 1        /* TOE_STATUS_BAD_PROG details */
#define TOE_FAST_BAD_VERSION 2
#define TOE_FAST_BAD_COUNTS 3
#define TOE_FAST_BAD_STREAMS 4      /* TOE_STATUS_BAD_CFG detail: more streams than this build has */

/* Counters 0..: the fields of struct rx_stats (kernels/rx/rx_pipe.h) that the
 * decoder side counts, same names and meaning. */
#define TOE_FAST_CTRS(X)                                                            \
	X(opens) X(closes) X(data_events) X(bytes) X(udp_listened) X(records)      \
	X(tick_unmapped) X(tick_range) X(warnings) X(resets) X(gaps) X(gap_bytes)  \
	X(gaps_timeout) X(gaps_window) X(gaps_decode) X(bad_stream)
#define TOE_FAST_CTR_HW 16
#define TOE_FAST_HW_CTRS(X)                                                         \
	X(messages)      /* messages received (events and datagrams) */             \
	X(records_out)   /* 128-byte records sent to hbm_writer_top */              \
	X(held)                                                                     \
	X(sess_msgs)     /* session streams: messages without FAST data, closes and SEEN markers for the host */ \
	X(sess_records)  /* TOE_REC_CARD_SESS records they took (within records_out) */
/* Counters from TOE_FAST_CTR_ERR on: decoder and deframer errors by code,
 * counter TOE_FAST_CTR_ERR + e for enum fast_err e (kernels/fast/fast_err.h),
 * summed over every stream. */
#define TOE_FAST_CTR_ERR 32
#define TOE_FAST_ERR_SLOTS 32

/* ---- hbm_writer_top: the tick ring in HBM ----
 *
 * The ring holds 4 * RING_SLOTS records of 128 bytes (union toe_record,
 * client-lib/include/toe/tick.h, written unchanged). Record k (k counts
 * every record written since APPLY) goes to pseudo-channel k % 4 at slot
 * (k / 4) % RING_SLOTS, byte offset 128 * slot in that channel's buffer.
 * The host allocates one buffer of 128 * RING_SLOTS bytes in each of
 * HBM[0..3] and writes its device address to TOE_HBM_REG_ADDR(ch).
 *
 * Indices are 32-bit and wrap: WRITE_INDEX (status word) = records written;
 * READ_INDEX (configuration word) = records the host has consumed. The ring
 * is full when WRITE_INDEX - READ_INDEX == 4 * RING_SLOTS: the writer then
 * drops the record (never blocks the pipeline) and counts it; when space is
 * back it first writes one TOE_REC_GAP record, reason TOE_GAP_OVERFLOW,
 * stream TOE_HW_STREAM_ALL, `records` = how many were dropped, rx_ns = the
 * last dropped record's, so readers see the loss in order.
 *
 * WRITE_INDEX is published one kernel invocation after the record's writes
 * were issued, so that their write responses are back before the host can
 * see the index (HLS finishes an invocation's m_axi writes before the next
 * starts). The host then syncs only the new range (two syncs on a wrap). */
#define TOE_HBM_REG_ADDR(ch) (0x40 + 0x10 * (ch)) /* 64-bit device address of channel ch's buffer: lo, hi */
#define TOE_HBM_REG_ADDR0 0x40
#define TOE_HBM_REG_ADDR1 0x50
#define TOE_HBM_REG_ADDR2 0x60
#define TOE_HBM_REG_ADDR3 0x70
#define TOE_HBM_CF_RING_SLOTS 1     /* records per channel, power of two, 1..2^28 */
#define TOE_HBM_CF_READ_INDEX 2     /* host: records consumed (wraps at 2^32) */
#define TOE_HBM_ST_WRITE_INDEX 6    /* records written (wraps at 2^32) */
#define TOE_HW_STREAM_ALL 0xffff    /* hdr.stream of overflow gap records */
#define TOE_HBM_BAD_SLOTS 1         /* TOE_STATUS_BAD_CFG detail */

#define TOE_HBM_CTRS(X)                                                             \
	X(records_in)    /* records received from fast_top */                       \
	X(written)       /* records written to the ring (overflow gaps included) */ \
	X(dropped)       /* records dropped: ring full */                           \
	X(overflow_gaps) /* TOE_GAP_OVERFLOW records written */                     \
	X(held)

/* ---- cmac_0: the 100G Ethernet subsystem (cmac_usplus, PG203 register map,
 * as exposed by the XUP VNx cmac kernel's AXI-Lite slave). Not verified on a
 * card here. Statistics counters are latched by writing 1 to
 * TOE_CMAC_STAT_PM_TICK, then read as 48-bit values (low word, high word). */
#define TOE_CMAC_GT_RESET 0x0000
#define TOE_CMAC_RESET 0x0004
#define TOE_CMAC_CONF_TX 0x000C     /* bit 0 ctl_tx_enable */
#define TOE_CMAC_CONF_RX 0x0014     /* bit 0 ctl_rx_enable */
#define TOE_CMAC_CORE_VERSION 0x0024
#define TOE_CMAC_GT_LOOPBACK 0x0090
#define TOE_CMAC_STAT_TX_STATUS 0x0200 /* bit 0 tx_local_fault */
#define TOE_CMAC_STAT_RX_STATUS 0x0204 /* bit 0 status (link up), 1 aligned, 2 misaligned, 3 aligned_err,
					4 hi_ber, 5 remote fault, 6 local fault; read twice (latched) */
#define TOE_CMAC_STAT_PM_TICK 0x02B0
#define TOE_CMAC_TX_TOTAL_PACKETS 0x0500
#define TOE_CMAC_TX_TOTAL_BYTES 0x0510
#define TOE_CMAC_RX_TOTAL_PACKETS 0x0608
#define TOE_CMAC_RX_TOTAL_GOOD_PACKETS 0x0610
#define TOE_CMAC_RX_TOTAL_BYTES 0x0618
#define TOE_CMAC_RX_TOTAL_BAD_FCS 0x06C0
#define TOE_CMAC_RSFEC_ENABLE 0x107C
#define TOE_CMAC_LINK_UP(rx_status) (((rx_status) & 0x3u) == 0x3u)

/* ---- gtoe_top: the general TOE (kernels/toe/gtoe.h), role = tcp ----
 *
 * Configuration words 1..47 are eth_rx_top's (flags, MTU, role, gateway,
 * MSS, NADDR, the addresses: the same values, written to both kernels): the
 * transmit path needs our MAC, subnet and gateway. Then: */
#define TOE_GTOE_CF_NCONNS 64     /* connection table entries in use, 0..TOE_HW_GTOE_CONNS */
#define TOE_GTOE_CF_RCV_BUF 65    /* receive window bytes per connection, power of two */
#define TOE_GTOE_CF_SND_BUF 66    /* send buffer bytes per connection, power of two */
#define TOE_GTOE_CF_OPTS 67       /* TOE_GTOE_OPT_* */
#define TOE_GTOE_CF_SYN_RETRIES 68
#define TOE_GTOE_CF_ISN_KEY 69    /* secret of the ISN function (the host draws it) */
#define TOE_GTOE_CF_MAX_CONNS 70  /* gtoe slots ([tcp] connections), >= NCONNS;
				   * max_conns * (RCV_BUF + SND_BUF) <= TOE_HW_GTOE_BUF */
#define TOE_GTOE_CF_TX_CONN 72    /* mailbox: entry the bytes are for */
#define TOE_GTOE_CF_TX_LEN 73     /* mailbox: bytes in the TX data window, <= TOE_GTOE_TX_BYTES */
#define TOE_GTOE_CF_TX_SEQ 74     /* mailbox: write last; a new value hands the bytes to the connection */
#define TOE_GTOE_OPT_QUICKACK 1u  /* ACK every segment at once (the daemon's choice for market data) */
#define TOE_GTOE_OPT_WS 2u        /* offer window scaling, SACK, timestamps */
#define TOE_GTOE_OPT_SACK 4u
#define TOE_GTOE_OPT_TS 8u
/* Status words of the mailbox: */
#define TOE_GTOE_ST_TX_DONE 240   /* the TX_SEQ last handled: write the next message after it equals TX_SEQ */
#define TOE_GTOE_ST_TX_TAKEN 241  /* bytes of it the send buffer took (fewer: buffer full, resend the rest);
				   * 0xffffffff: the entry is not connected */
/* The connection table: entry i at TOE_GTOE_REG_CONN + 16 * i, four words;
 * then each entry's limits at TOE_GTOE_REG_CONNX + 16 * i (the same AXI-Lite
 * window, after the 64 entries: word 4 * TOE_HW_GTOE_CONNS + 4 * i + w of
 * the table's port). */
#define TOE_GTOE_REG_CONN 0x4000
#define TOE_HW_GTOE_CONNS 64
#define TOE_HW_GTOE_BUF (64u * (32768u + 8192u)) /* receive and send buffers: 64 x (32 KB + 8 KB) */
#define TOE_GTOE_CONN_WORDS (8 * TOE_HW_GTOE_CONNS)
#define TOE_GTOE_CONN(i, w) (TOE_GTOE_REG_CONN + 16 * (i) + 4 * (w))
#define TOE_GTOE_CE_RADDR 0       /* exchange IPv4, host order */
#define TOE_GTOE_CE_PORTS 1       /* exchange port | local port << 16 (ACCEPT: the port we listen on;
				   * exchange port 0: any) */
#define TOE_GTOE_CE_STREAM 2      /* stream id of its bytes (the feed's mirror flow index, as dp_tcp) */
#define TOE_GTOE_CE_CTRL 3        /* TOE_GTOE_CTRL_*; ENABLE read at every tick, ACCEPT at APPLY */
#define TOE_GTOE_CTRL_ENABLE 1u   /* connect, and reconnect with backoff; clearing it closes (FIN) */
#define TOE_GTOE_CTRL_ACCEPT 2u   /* open = accept, as dp_tcp: listen on our address (word 16, the
				   * first address) and the local port; a connection is the entry's
				   * when it comes from RADDR (and the exchange port, when not 0) and
				   * the entry has none, else it is reset once established
				   * (accept_refused); after a close it listens again. ENABLE cleared:
				   * the connection closed (FIN) and the listener withdrawn (SYNs are
				   * answered by RST). */
/* Per-entry limits, taken at APPLY (out of range: BAD_CFG, TOE_GTOE_BAD_ENTRY). The
 * host writes each entry its feed's [feed.NAME] mss and window (TOE_ETH_CF_MSS and
 * RCV_BUF the largest of them). */
#define TOE_GTOE_REG_CONNX (TOE_GTOE_REG_CONN + 16 * TOE_HW_GTOE_CONNS)
#define TOE_GTOE_CONNX(i, w) (TOE_GTOE_REG_CONNX + 16 * (i) + 4 * (w))
#define TOE_GTOE_CX_MSS 0         /* the MSS its SYN or SYN-ACK offers and the most it sends:
				   * 64..TOE_ETH_CF_MSS; 0: TOE_ETH_CF_MSS */
#define TOE_GTOE_CX_WINDOW 1      /* its receive window, bytes: 2048..RCV_BUF (the slot's buffer);
				   * 0: RCV_BUF */
/* Per-connection state, read only: entry i at TOE_GTOE_REG_CST + 64 * i, 16 words. */
#define TOE_GTOE_REG_CST 0x6000
#define TOE_GTOE_CST_WORDS (16 * TOE_HW_GTOE_CONNS)
#define TOE_GTOE_CST(i, w) (TOE_GTOE_REG_CST + 64 * (i) + 4 * (w))
#define TOE_GTOE_CS_PHASE 0       /* 0 waiting, 1 resolving, 2 connecting, 3 up, 4 listening (dp_tcp's phases) */
#define TOE_GTOE_CS_STATE 1       /* enum gtoe_state (0 when no slot) */
#define TOE_GTOE_CS_SRTT_US 2
#define TOE_GTOE_CS_CWND 3
#define TOE_GTOE_CS_SND_WND 4
#define TOE_GTOE_CS_RCV_WND 5
#define TOE_GTOE_CS_UPS 6         /* connections established */
#define TOE_GTOE_CS_DOWNS 7       /* connections ended (any reason) */
#define TOE_GTOE_CS_LAST_DOWN 8   /* gtoe_ev_type | reason << 8 of the last end */
#define TOE_GTOE_CS_RETRANS 9     /* segments retransmitted (this connection) */
#define TOE_GTOE_CS_BYTES_IN_LO 10  /* stream bytes delivered, this connection */
#define TOE_GTOE_CS_BYTES_IN_HI 11
#define TOE_GTOE_CS_BYTES_OUT_LO 12 /* bytes sent (first transmissions) */
#define TOE_GTOE_CS_BYTES_OUT_HI 13
#define TOE_GTOE_CS_ATTEMPTS 14
/* The mailbox's data: byte k of the message in word k / 4, little-endian. */
#define TOE_GTOE_REG_TXD 0x8000
#define TOE_GTOE_TX_BYTES 512
#define TOE_GTOE_TXD_WORDS (TOE_GTOE_TX_BYTES / 4)
#define TOE_GTOE_BAD_CONNS 1      /* TOE_STATUS_BAD_CFG details */
#define TOE_GTOE_BAD_ADDRS 2
#define TOE_GTOE_BAD_INIT 3       /* gtoe_init refused (buffers, MSS) */
#define TOE_GTOE_BAD_ENTRY 4      /* an entry's MSS or window out of range */
#define TOE_GTOE_CTRS(X)                                                            \
	X(frames_in)     /* frames from eth_rx_top (TCP and ARP) */                \
	X(ticks)         /* timer ticks */                                          \
	X(segs_out)      /* TCP frames sent */                                      \
	X(arp_replies)   /* ARP replies sent */                                     \
	X(arp_requests)  /* ARP requests sent (resolving the next hop) */           \
	X(tx_octets)                                                                \
	X(segs_no_route) /* segments dropped: next hop not resolved */              \
	X(frame_too_big)                                                            \
	X(events)        /* EV messages sent (OPEN, DATA, CLOSE) */                 \
	X(bytes_in)      /* stream bytes sent to fast_top */                        \
	X(bytes_out)     /* application bytes taken from the mailbox */            \
	X(connects)      /* connections opened */                                   \
	X(established)                                                              \
	X(closes)                                                                   \
	X(mirror_msgs)   /* mirror_toe_top messages passed on to fast_top */        \
	X(held)          /* messages dropped while held */                          \
	X(not_ours)      /* frames gtoe_top's net_rx did not take as TCP or ARP */ \
	X(accepts)       /* connections taken by an ACCEPT entry */                 \
	X(accept_refused) /* connections on a listener reset: not from the entry's exchange, or one up */ \
	X(listen_fail)   /* an ACCEPT entry could not listen (port taken, 16 listeners): retried at ticks */
/* Counters from TOE_GTOE_CTR_STATS on: struct gtoe_stats (GTOE_STATS_FIELDS),
 * then from TOE_GTOE_CTR_ARP the ARP counters of struct net_stats (NET_ARP_STATS). */
#define TOE_GTOE_CTR_STATS 24
#define TOE_GTOE_CTR_ARP 56

/* ---- tx_arb_top: the transmit arbiter ----
 * Frames of eth_rx_top (ICMP replies; ARP too outside role tcp) and of
 * gtoe_top onto the CMAC's tx stream: round robin between the inputs that
 * hold a frame, a whole frame at a time (beats of two frames never
 * interleave). No configuration. */
#define TOE_TXARB_CTRS(X)                                                           \
	X(frames_eth)    /* frames from eth_rx_top */                               \
	X(frames_gtoe)   /* frames from gtoe_top */                                 \
	X(beats)         /* beats sent to the MAC */                                \
	X(octets)                                                                   \
	X(contended)     /* frames sent while the other input also held one */

/* Count of an X-macro list (TOE_NCTR(TOE_ETH_CTRS)). */
#define TOE_CTR_ONE(name) +1
#define TOE_NCTR(list) (0 list(TOE_CTR_ONE))

#endif
