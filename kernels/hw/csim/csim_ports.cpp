/* csim_ports.cpp - C-simulation of the 4 x 10G layout (link_4x10g.cfg) against the software pipeline.
 *
 * Four eth_rx_top instances (ports 0..3, each programmed from its own
 * net_cfg: rx_cfg.net and net_port[]), three port_mux_top instances merging
 * their TCP, UDP and general-TOE streams in front of the one mirror_toe_top,
 * udp_top and gtoe_top, then fast_top and hbm_writer_top as in the 100G
 * build. The host programs them through the register map only
 * (toe_hw_cfg_writes + toe_hw_port_writes, as the daemon does) and writes
 * the clock to every port (port 0's eth_rx_top alone ticks the mirror TOE).
 *
 * The same frames go through the software path with their port
 * (rx_frame_port): the HBM ring must equal the software ring bit for bit,
 * the shared kernels' counters the software's, the four eth_rx_tops'
 * counters summed the software's network counters. Traffic:
 *   port 0: connection A (exchange EXA_IP:PORT_A -> vendor), a clean feed;
 *   port 1: the SAME 4-tuple with another feed, other sequence numbers and
 *           a lost segment (a timeout gap): another connection, another
 *           stream (the A/B lines of the issue);
 *   port 2: STEP datagrams to UDP_STEP, listened on port 2 and on port 0 (two
 *           streams), a datagram to UDP_DGRAM (listened on port 0 only:
 *           dropped, other_port), a copy of connection A's segments (no flow
 *           of port 2 follows it: not_followed);
 *   port 3: role main with its own address: an ARP request for it is
 *           answered on port 3's own transmit stream, with port 3's MAC.
 * Independently of the software path: the ticks of port 0's feed and of
 * port 1's feed up to the loss equal the generator's, the two connections
 * reset on different streams, and each eth_rx_top reports its port.
 */
#include "csim.h"

static const uint32_t P3_IP = 0x0a030002; /* port 3's own address */
static const uint8_t P1_MAC[6] = { 0x02, 0, 0, 0, 1, 0x02 };
static const uint8_t P3_MAC[6] = { 0x02, 0, 0, 0, 3, 0x02 };
static const uint8_t PEER_MAC[6] = { 0x02, 0, 0, 0, 9, 0x09 };

/* The card of this layout: per-port MAC streams and eth_rx_top windows; the
 * shared kernels use D's (csim_main.cpp). */
struct card4 {
	hls::stream<hw_mac_beat> mac_rx[TOE_HW_MAX_PORTS], eth_tx[TOE_HW_MAX_PORTS];
	hls::stream<hw_beat> tcp[TOE_HW_MAX_PORTS], udp[TOE_HW_MAX_PORTS], gto[TOE_HW_MAX_PORTS];
	hls::stream<hw_beat> seg_mux, udp_mux, gtoe_mux;
	uint32_t cfg[TOE_HW_MAX_PORTS][TOE_CFG_WORDS]; /* port 0: D.cfg[TOE_KID_ETH_RX] */
	uint32_t stat[TOE_HW_MAX_PORTS][TOE_STAT_WORDS];
};

static card4 C;

static uint32_t *eth_cfg(uint32_t port)
{
	return port ? C.cfg[port] : D.cfg[TOE_KID_ETH_RX];
}

static uint32_t *eth_stat(uint32_t port)
{
	return port ? C.stat[port] : D.stat[TOE_KID_ETH_RX];
}

/* The host's register write: port kernels here, the others through csim_main's map. */
static void wr(uint32_t kid, uint32_t off, uint32_t val)
{
	uint32_t p;
	for (p = 1; p < TOE_HW_MAX_PORTS; p++) {
		if (kid != (uint32_t)TOE_KID_ETH_PORT(p))
			continue;
		CHECK(off >= TOE_REG_CFG && off < TOE_REG_CFG + 4 * TOE_CFG_WORDS && off % 4 == 0);
		if (off >= TOE_REG_CFG && off < TOE_REG_CFG + 4 * TOE_CFG_WORDS)
			C.cfg[p][(off - TOE_REG_CFG) / 4] = val;
		return;
	}
	reg_write(kid, off, val);
}

static uint64_t pctr(uint32_t port, uint32_t i)
{
	const uint32_t *st = eth_stat(port);
	return (uint64_t)st[TOE_ST_CTR0 + 2 * i + 1] << 32 | st[TOE_ST_CTR0 + 2 * i];
}

static bool idle4()
{
	bool e = D.ev.empty() && D.gev.empty() && D.udp.empty() && D.rec.empty() && D.gtoe_tx.empty() &&
		 C.seg_mux.empty() && C.udp_mux.empty() && C.gtoe_mux.empty() && D.eth_tx.empty();
	for (uint32_t p = 0; p < TOE_HW_MAX_PORTS; p++)
		e = e && C.mac_rx[p].empty() && C.tcp[p].empty() && C.udp[p].empty() && C.gto[p].empty();
	return e;
}

/* Every kernel of link_4x10g.cfg, one call each per round, until nothing moves. */
static void run4()
{
	int idle = 0;
	long guard;
	for (guard = 0; idle < 2 && guard < 50000000; guard++) {
		bool empty = idle4();
		uint32_t p;
		for (p = 0; p < TOE_HW_MAX_PORTS; p++)
			eth_rx_top_inst((int)p, C.mac_rx[p], p ? C.eth_tx[p] : D.eth_tx, C.tcp[p], C.udp[p], C.gto[p],
					eth_cfg(p), eth_stat(p));
		port_mux_top_inst(0, C.tcp[0], C.tcp[1], C.tcp[2], C.tcp[3], C.seg_mux);
		port_mux_top_inst(1, C.udp[0], C.udp[1], C.udp[2], C.udp[3], C.udp_mux);
		port_mux_top_inst(2, C.gto[0], C.gto[1], C.gto[2], C.gto[3], C.gtoe_mux);
		run_shared(C.seg_mux, C.gtoe_mux, C.udp_mux);
		idle = empty ? idle + 1 : 0;
	}
	CHECK(idle >= 2);
}

/* The clock to every port's eth_rx_top, as the daemon writes it. */
static uint32_t g_seq4;
static void time4(uint64_t t)
{
	g_seq4++;
	for (uint32_t p = 0; p < TOE_HW_MAX_PORTS; p++) {
		wr(TOE_KID_ETH_PORT(p), TOE_CFG(TOE_ETH_CF_TIME_LO), (uint32_t)t);
		wr(TOE_KID_ETH_PORT(p), TOE_CFG(TOE_ETH_CF_TIME_HI), (uint32_t)(t >> 32));
		wr(TOE_KID_ETH_PORT(p), TOE_CFG(TOE_ETH_CF_TIME_SEQ), g_seq4);
	}
}

static const uint32_t port_role[TOE_HW_MAX_PORTS] = { TOE_ROLE_MIRROR, TOE_ROLE_MIRROR, TOE_ROLE_MIRROR,
							TOE_ROLE_MAIN };

static void program4(const rx_cfg *cfg, const fast_prog *prog, uint32_t slots, uint32_t gen)
{
	static toe_hw_wr w[TOE_HW_CFG_MAX_WRITES];
	toe_hw_opts o;
	uint32_t ch, n, k, p;
	int nw;

	memset(&o, 0, sizeof o);
	o.role = port_role[0];
	o.mss = MSS;
	o.ring_slots = slots;
	/* gtoe_top held: it passes the mirror TOE's events on */
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY), 0);
	nw = toe_hw_cfg_writes(cfg, &o, w, TOE_HW_CFG_MAX_WRITES);
	CHECK(nw > 0);
	n = nw > 0 ? (uint32_t)nw : 0;
	for (p = 1; p < TOE_HW_MAX_PORTS; p++)
		CHECK_EQ(toe_hw_port_writes(cfg, p, port_role[p], w, TOE_HW_CFG_MAX_WRITES, &n), 0);
	for (k = 0; k < n; k++)
		wr(w[k].kid, w[k].off, w[k].val);
	D.slots = slots;
	for (ch = 0; ch < TOE_HW_HBM_CHANNELS; ch++) {
		uint64_t addr = 0x4000000000ull + ((uint64_t)ch << 28);
		D.hbm[ch].assign(2 * slots, hw_word(0));
		reg_write(TOE_KID_HBM, TOE_HBM_REG_ADDR(ch), (uint32_t)addr);
		reg_write(TOE_KID_HBM, TOE_HBM_REG_ADDR(ch) + 4, (uint32_t)(addr >> 32));
	}
	for (n = 0; n < TOE_PROG_BYTES / 4; n++)
		reg_write(TOE_KID_FAST, TOE_FAST_PROG(4 * n), toe_hw_prog_word(prog, n));
	for (k = 0; k < 5; k++)
		reg_write(toe_hw_apply_order[k], TOE_CFG(TOE_CF_APPLY), gen);
	for (p = 1; p < TOE_HW_MAX_PORTS; p++)
		wr(TOE_KID_ETH_PORT(p), TOE_CFG(TOE_CF_APPLY), gen);
	D.rd = 0;
	run4();
}

struct step4 {
	int port; /* -1: a timer tick at ts */
	uint64_t ts;
	std::vector<uint8_t> frame;
};

/* Segments of bytes[0..) at MSS from isn + 1 after a SYN, skipping segment `lose` (-1: none). */
static void conn_frames(std::vector<std::vector<uint8_t>> &out, const std::vector<uint8_t> &bytes, uint32_t isn,
			int lose)
{
	uint32_t nseg = (uint32_t)((bytes.size() + MSS - 1) / MSS), i;
	out.push_back(tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn, 0, TCP_SYN, NULL, 0));
	for (i = 0; i < nseg; i++) {
		size_t off = (size_t)i * MSS, n = bytes.size() - off < MSS ? bytes.size() - off : MSS;
		if ((int)i == lose)
			continue;
		out.push_back(tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn + 1 + (uint32_t)off, 1, TCP_ACK | TCP_PSH,
					bytes.data() + off, n));
	}
}

static std::vector<uint8_t> arp_request(uint32_t tpa)
{
	pb_spec s;
	std::vector<uint8_t> f(256);
	pb_init(&s);
	memcpy(s.src_mac, PEER_MAC, 6);
	memset(s.dst_mac, 0xff, 6);
	s.arp_op = NET_ARP_OP_REQUEST;
	s.arp_spa = OTHER_IP;
	s.arp_tpa = tpa;
	memcpy(s.arp_sha, PEER_MAC, 6);
	f.resize(pb_arp(f.data(), f.size(), &s));
	return f;
}

/* The first record of the software ring that is a RESET, from index k on. */
static size_t next_reset(const std::vector<union toe_record> &r, size_t k)
{
	while (k < r.size() && r[k].hdr.type != TOE_REC_RESET)
		k++;
	return k;
}

void csim_ports(const fast_prog *prog)
{
	rx_cfg cfg;
	swpath sw;
	feed fa, fb, fu;
	std::vector<step4> steps;
	std::vector<union toe_record> hw;
	std::vector<std::vector<uint8_t>> a0, b1, a2;
	uint64_t t = 5000000000ull;
	uint32_t nticks = 0, nframes[TOE_HW_MAX_PORTS] = { 0, 0, 0, 0 }, p, i;
	const uint32_t gen = 77, lose_b = 9;
	size_t k;

	/* ports: 0 and 1 mirror the same connection (A/B lines); 2 mirror with UDP; 3 main */
	base_cfg(cfg);
	cfg.mtoe.flows[0].in_port = 0;
	cfg.mtoe.flows[1] = cfg.mtoe.flows[0];
	cfg.mtoe.flows[1].in_port = 1;
	cfg.mtoe.nflows = 2;
	net_cfg_add(&cfg.net_port[0], OUR_IP, 0xffffff00u, P1_MAC, 0);
	net_cfg_add(&cfg.net_port[2], P3_IP, 0xffffff00u, P3_MAC, 0);
	cfg.net_port[2].flags |= NET_CFG_FILTER_DST;
	cfg.nudp = 3;
	cfg.udp[0].port = UDP_STEP;
	cfg.udp[0].framing = FAST_FRAMING_STEP;
	cfg.udp[0].in_port = 2;
	cfg.udp[1].port = UDP_DGRAM;
	cfg.udp[1].framing = FAST_FRAMING_DATAGRAM;
	cfg.udp[1].in_port = 0;
	cfg.udp[2].port = UDP_STEP;
	cfg.udp[2].framing = FAST_FRAMING_STEP;
	cfg.udp[2].in_port = 0;

	/* the host refuses what the layout cannot do */
	{
		static toe_hw_wr w[TOE_HW_CFG_MAX_WRITES];
		uint32_t n = 0;
		rx_cfg bad = cfg;
		toe_hw_opts o;
		memset(&o, 0, sizeof o);
		o.ring_slots = 64;
		CHECK_EQ(toe_hw_port_writes(&cfg, 0, TOE_ROLE_MIRROR, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_PORT);
		CHECK_EQ(toe_hw_port_writes(&cfg, 4, TOE_ROLE_MIRROR, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_PORT);
		CHECK_EQ(toe_hw_port_writes(&cfg, 1, TOE_ROLE_TCP, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_PORT);
		CHECK_EQ(n, 0);
		bad.mtoe.flows[1].in_port = 4;
		CHECK_EQ(toe_hw_cfg_writes(&bad, &o, w, TOE_HW_CFG_MAX_WRITES), TOE_HWCFG_E_PORT);
		bad = cfg;
		bad.udp[0].in_port = 7;
		CHECK_EQ(toe_hw_cfg_writes(&bad, &o, w, TOE_HW_CFG_MAX_WRITES), TOE_HWCFG_E_PORT);
	}

	program4(&cfg, prog, 256, gen);
	for (k = 0; k < 5; k++)
		check_header(toe_hw_apply_order[k], gen, TOE_STATUS_OK);
	for (p = 0; p < TOE_HW_MAX_PORTS; p++) {
		CHECK_EQ(eth_stat(p)[TOE_ST_MAGIC], TOE_HW_MAGIC);
		CHECK_EQ(eth_stat(p)[TOE_ST_KERNEL], TOE_KID_ETH_RX);
		CHECK_EQ(eth_stat(p)[TOE_ST_APPLIED], gen);
		CHECK_EQ(eth_stat(p)[TOE_ST_STATUS], TOE_STATUS_OK);
		CHECK_EQ(eth_stat(p)[TOE_ETH_ST_PORT], p);
	}
	/* the configuration each eth_rx_top runs with is its port's */
	{
		net_cfg nc;
		uint32_t role;
		CHECK_EQ(toe_hw_eth_decode(eth_cfg(3), &nc, &role), 0);
		CHECK_EQ(role, TOE_ROLE_MAIN);
		CHECK_EQ(nc.naddr, 1);
		CHECK_EQ(nc.addr[0].ip, P3_IP);
		CHECK_MEM(nc.addr[0].mac, P3_MAC, 6);
		CHECK_EQ(toe_hw_eth_decode(eth_cfg(1), &nc, &role), 0);
		CHECK_EQ(role, TOE_ROLE_MIRROR);
		CHECK_MEM(nc.addr[0].mac, P1_MAC, 6);
		CHECK_EQ(eth_cfg(1)[TOE_ETH_CF_PORT], 1u | TOE_ETH_PORT_NO_TICK);
		CHECK_EQ(eth_cfg(0)[TOE_ETH_CF_PORT], 0);
	}
	sw_init(sw, &cfg, prog);

	make_feed(prog, 21, 400, fa);
	make_feed(prog, 22, 300, fb);
	make_feed(prog, 23, 20, fu);
	conn_frames(a0, fa.bytes, 0x10000000u, -1);
	conn_frames(b1, fb.bytes, 0xfffff000u, (int)lose_b); /* wraps; one segment lost */
	conn_frames(a2, fa.bytes, 0x10000000u, -1);

	/* interleave: A on port 0, B on port 1, the rest among them; a tick every 8 frames */
	{
		size_t ia = 0, ib = 0, iu = 0, ic = 0, start = 0, m = 0;
		uint32_t round = 0;
		steps.push_back({ -1, t, {} });
		while (ia < a0.size() || ib < b1.size()) {
			if (ia < a0.size())
				steps.push_back({ 0, 0, a0[ia++] });
			if (ib < b1.size())
				steps.push_back({ 1, 0, b1[ib++] });
			if (round % 3 == 0 && m < fu.msg_end.size()) {
				/* one STEP message per datagram, the same bytes to port 2 and to port 0 */
				std::vector<uint8_t> f = udp_frame(UDP_STEP, fu.bytes.data() + start, fu.msg_end[m] - start);
				steps.push_back({ (int)(2 * (iu++ % 2)), 0, f });
				start = fu.msg_end[m++];
			}
			if (round % 3 == 1 && ic < 4)
				steps.push_back({ 2, 0, a2[1 + ic++] });
			if (round == 7) {
				uint8_t raw[40];
				memset(raw, 0x41, sizeof raw);
				steps.push_back({ 2, 0, udp_frame(UDP_DGRAM, raw, sizeof raw) }); /* port 0's only */
				steps.push_back({ 3, 0, arp_request(P3_IP) });
			}
			if (++round % 4 == 0) {
				t += 1000000;
				steps.push_back({ -1, t, {} });
			}
		}
		/* the gap on port 1 times out */
		t += cfg.mtoe.gap_timeout_ns + 1000000;
		steps.push_back({ -1, t, {} });
	}

	{
		uint64_t now = 0;
		for (const step4 &st : steps) {
			if (st.port < 0) {
				now = st.ts;
				rx_poll(sw.p, now);
				sw_drain(sw);
				time4(now);
				nticks++;
			} else {
				rx_frame_port(sw.p, (uint32_t)st.port, st.frame.data(), (uint32_t)st.frame.size(), now,
					      NET_CSUM_UNKNOWN);
				sw_drain(sw);
				push_frame(st.frame, C.mac_rx[st.port]);
				nframes[st.port]++;
			}
			run4();
			host_drain(hw);
		}
	}

	/* the card's ring is the software's */
	check_rings(hw, sw.ring);
	CHECK(sw.ring.size() > fa.ticks.size());

	/* independently: the two lines are two connections on two streams */
	{
		size_t r0 = next_reset(sw.ring, 0), r1 = next_reset(sw.ring, r0 + 1), n0 = 0, n1 = 0;
		uint16_t s0, s1;
		CHECK(r1 < sw.ring.size());
		if (r1 < sw.ring.size()) {
			s0 = sw.ring[r0].hdr.stream;
			s1 = sw.ring[r1].hdr.stream;
			CHECK(s0 != s1);
			for (k = 0; k < hw.size(); k++) {
				if (hw[k].hdr.type != TOE_REC_TRADE && hw[k].hdr.type != TOE_REC_ORDER)
					continue;
				if (hw[k].hdr.stream == s0 && n0 < fa.ticks.size())
					CHECK(same_tick(hw[k], fa.ticks[n0++]));
				else if (hw[k].hdr.stream == s1 && n1 < fb.ticks.size() &&
					 fb.msg_end[fb.tick_msg[n1]] <= (size_t)lose_b * MSS /* before the loss */)
					CHECK(same_tick(hw[k], fb.ticks[n1++]));
			}
			CHECK_EQ(n0, fa.ticks.size()); /* port 0's line is whole */
			CHECK(n1 > 0);
		}
	}
	CHECK_EQ(sw.p->mtoe.st.opens, 2);
	CHECK(sw.p->mtoe.st.gaps >= 1);
	CHECK_EQ(sw.p->mtoe.st.not_followed, 4); /* port 2's copies of A */
	CHECK_EQ(sw.p->st.udp_other_port, 1);

	/* counters: the four eth_rx_tops together are the software's network layers */
	{
		uint64_t tcp = 0, udp = 0, frames = 0;
		for (p = 0; p < TOE_HW_MAX_PORTS; p++) {
			CHECK_EQ(pctr(p, 1), nframes[p]);
			CHECK_EQ(pctr(p, 4), 0); /* held */
			CHECK_EQ(pctr(p, 7), p == 0 ? nticks : 0); /* ticks from port 0 only */
			tcp += pctr(p, 5);
			udp += pctr(p, 6);
			frames += pctr(p, 1);
		}
		CHECK_EQ(tcp, sw.p->st.tcp);
		CHECK_EQ(udp, sw.p->st.udp);
		CHECK_EQ(frames, sw.p->st.frames);
		CHECK_EQ(pctr(1, 5), b1.size());
		CHECK_EQ(pctr(2, 5), 4);
		i = TOE_ETH_CTR_NET;
		uint64_t sum;
#define SUM_NET(grp, name)                                                      \
	sum = 0;                                                                \
	for (p = 0; p < TOE_HW_MAX_PORTS; p++)                                  \
		sum += pctr(p, i);                                              \
	CHECK_EQ(sum, sw.p->net.grp.name);                                      \
	i++;
#define SUM_ETH(name) SUM_NET(eth, name)
#define SUM_IP(name) SUM_NET(ip, name)
#define SUM_TCP(name) SUM_NET(tcp, name)
		NET_ETH_STATS(SUM_ETH)
		NET_IP_STATS(SUM_IP)
		NET_TCP_STATS(SUM_TCP)
#undef SUM_NET
#undef SUM_ETH
#undef SUM_IP
#undef SUM_TCP
	}
	/* udp_top: delivered by the table, then taken only on the right port */
	CHECK_EQ(ctr(TOE_KID_UDP, 0), sw.p->st.udp);
	CHECK_EQ(ctr(TOE_KID_UDP, 1), sw.p->net.udp.delivered);
	CHECK_EQ(ctr(TOE_KID_UDP, 2), sw.p->net.udp.drop_udp_port);
	CHECK_EQ(ctr(TOE_KID_UDP, 5), sw.p->st.udp_other_port);
	check_shared_ctrs(sw, nticks);
	CHECK_EQ(ctr(TOE_KID_HBM, 1), sw.ring.size());

	/* port 3 answered the ARP request on its own lane, with its own MAC; the mirror ports sent nothing */
	CHECK(!C.eth_tx[3].empty());
	if (!C.eth_tx[3].empty()) {
		std::vector<uint8_t> r = pop_frame(C.eth_tx[3]);
		CHECK(r.size() >= 42);
		if (r.size() >= 42) {
			CHECK_MEM(r.data(), PEER_MAC, 6);
			CHECK_MEM(r.data() + 6, P3_MAC, 6);
			CHECK_EQ(r[12] << 8 | r[13], 0x0806);
			CHECK_EQ(r[20] << 8 | r[21], NET_ARP_OP_REPLY);
		}
	}
	CHECK(C.eth_tx[3].empty());
	CHECK(C.eth_tx[1].empty() && C.eth_tx[2].empty() && D.mac_tx.empty());
	CHECK_EQ(pctr(3, 8), 1); /* tx_frames */

	/* role tcp on a port other than 0 is refused by the kernel itself */
	eth_cfg(1)[TOE_ETH_CF_ROLE] = TOE_ROLE_TCP;
	eth_cfg(1)[TOE_CF_APPLY] = gen + 1;
	run4();
	CHECK_EQ(eth_stat(1)[TOE_ST_STATUS], TOE_STATUS_BAD_CFG | (uint32_t)TOE_ETH_BAD_PORT << 16);
	/* and a frame it gets now is held, not passed on */
	push_frame(b1[1], C.mac_rx[1]);
	run4();
	CHECK_EQ(pctr(1, 4), 1);
	CHECK(C.seg_mux.empty() && D.rec.empty());
	for (p = 1; p < TOE_HW_MAX_PORTS; p++)
		eth_cfg(p)[TOE_CF_APPLY] = 0;
	run4();
	sw_free(sw);
	printf("hw csim: 4 ports: %zu records, %u ticks, frames per port %u %u %u %u\n", hw.size(), nticks,
	       nframes[0], nframes[1], nframes[2], nframes[3]);
}
