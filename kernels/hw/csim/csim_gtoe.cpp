/* csim_gtoe.cpp - C-simulation of role = tcp: gtoe_top and tx_arb_top against the software backend's calls.
 *
 * A whole TCP conversation between the card's general TOE and a peer built
 * from pktbuild (the exchange): ARP, SYN, SYN-ACK with options, a logon
 * through the TX mailbox, an SSE feed with reordering and a duplicate, a
 * ping and a neighbour's ARP request, FIN, reconnect; a second entry enabled
 * at run time and refused; an entry disabled by the host. The stream carries
 * the exchange's Logon answer and a Heartbeat before the feed: with the
 * stream marked as a session stream (SESS_LO) they, and the connection's
 * closes, reach the ring as TOE_REC_CARD_SESS records, the ticks unchanged;
 * the order template is unmapped there, so each order message of the feed
 * is one TOE_CSESS_SEEN record instead of ticks.
 * Then open = accept
 * and per-entry limits (csim_gtoe_accept): an ACCEPT entry's SYN-ACK with its
 * MSS and window, the exchange's feed, connections from a wrong address and
 * a second one from the exchange reset, a SYN to no listener answered by RST,
 * listening again after the close; beside it a connecting entry with another
 * MSS and window. The same frames go through the calls daemon/dp/dp_tcp.c
 * makes (repeated here: dp_tcp.c needs the daemon). Every transmitted frame
 * and every record must be equal byte for byte.
 */
#include "csim.h"
extern "C" {
#include "net/net_tx.h"
#include "step/step_msg.h"
#include "toe/gtoe_frame.h"
}

/* ---- role = tcp: the general TOE on the card against the software backend's calls ---- */

/* The software backend's side of a role = tcp port, call for call as
 * daemon/dp/dp_tcp.c makes them (dp_tcp_frame, dp_tcp_tick, dp_tcp_pump,
 * dp_tcp_flush, dp_tcp_send; the daemon file itself needs the daemon, so
 * its kernel calls are repeated here), on the csim's clock. */
struct swtcp_feed {
	uint32_t raddr, stream, phase, ups, downs, enable;
	uint16_t rport, lport;
	int32_t conn;
	uint64_t next_try, backoff, offset;
	uint32_t accept;   /* open = accept: listener's connections from raddr (rport 0: any port) */
	int32_t listener;
	uint16_t mss;      /* the entry's limits (0: the endpoint's) */
	uint32_t win;
};

struct swtcp {
	gtoe *g;
	uint8_t *gbuf;
	net_arp arp;
	swtcp_feed f[2];
	uint32_t nfeeds, gateway;
	uint16_t ip_id;
	std::vector<std::vector<uint8_t>> tx; /* every frame sent, in order */
	uint8_t txf[NET_TX_HDR_MAX + 2048];
	uint32_t accept_refused;
};

static void swt_send(swtcp &t, const uint8_t *f, uint32_t n)
{
	if (n)
		t.tx.push_back(std::vector<uint8_t>(f, f + n));
}

static void swt_event(swpath &sw, const swtcp_feed &f, uint8_t type, uint8_t reason, const uint8_t *data,
		      uint32_t len, uint64_t ts)
{
	mtoe_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = type;
	ev.reason = reason;
	ev.conn = (uint16_t)f.stream;
	ev.flow = (uint16_t)f.stream;
	ev.offset = f.offset;
	ev.len = len;
	ev.data = data;
	rx_event(sw.p, &ev, ts);
	sw_drain(sw);
}

static void swt_down(swtcp &t, swpath &sw, swtcp_feed &f, uint8_t type, uint64_t now)
{
	int was_up = f.phase == 3;
	gtoe_release(t.g, f.conn);
	f.conn = -1;
	f.phase = f.accept ? 4 : 0; /* open = accept: listening again */
	f.downs++;
	if (was_up) {
		swt_event(sw, f, MTOE_EV_CLOSE, type == GTOE_EV_RESET ? MTOE_CLOSE_RST : MTOE_CLOSE_FIN, NULL, 0, now);
		f.backoff = 100000000ull;
	} else {
		f.backoff = f.backoff ? f.backoff * 2 : 100000000ull;
		if (f.backoff > 5000000000ull)
			f.backoff = 5000000000ull;
	}
	f.next_try = now + f.backoff;
}

static void swt_pump(swtcp &t, swpath &sw, uint64_t ts)
{
	gtoe_event ev;
	for (;;) {
		bool sent = false;
		for (uint32_t i = 0; i < t.nfeeds && !sent; i++) {
			swtcp_feed &f = t.f[i];
			const uint8_t *data;
			uint32_t n;
			if (f.phase != 3 || !(n = gtoe_peek(t.g, f.conn, &data)))
				continue;
			swt_event(sw, f, MTOE_EV_DATA, 0, data, n, ts);
			f.offset += n;
			gtoe_consume(t.g, f.conn, n);
			sent = true;
		}
		if (sent)
			continue;
		if (!gtoe_ev_next(t.g, &ev))
			return;
		swtcp_feed *f = NULL;
		for (uint32_t i = 0; i < t.nfeeds; i++)
			if (t.f[i].conn == ev.conn)
				f = &t.f[i];
		if (!f && ev.type == GTOE_EV_CONNECTED && ev.listener >= 0) {
			/* dp_tcp's accepted(): the feed's exchange, and the feed has no connection */
			const gtoe_conn &c = t.g->conn[ev.conn];
			for (uint32_t i = 0; i < t.nfeeds; i++)
				if (t.f[i].accept && t.f[i].listener == ev.listener)
					f = &t.f[i];
			if (f && f->conn < 0 && c.raddr == f->raddr && (!f->rport || c.rport == f->rport)) {
				f->conn = ev.conn;
			} else {
				t.accept_refused++;
				gtoe_abort(t.g, ev.conn);
				gtoe_release(t.g, ev.conn);
				f = NULL;
			}
		}
		if (!f)
			continue;
		if (ev.type == GTOE_EV_CONNECTED) {
			f->phase = 3;
			f->offset = 0;
			f->ups++;
			swt_event(sw, *f, MTOE_EV_OPEN, MTOE_OPEN_SYN, NULL, 0, ts);
		} else if (ev.type == GTOE_EV_PEER_CLOSED) {
			gtoe_shutdown(t.g, f->conn);
			swt_down(t, sw, *f, GTOE_EV_CLOSED, ts);
		} else if (ev.type == GTOE_EV_CLOSED || ev.type == GTOE_EV_RESET || ev.type == GTOE_EV_ERROR) {
			swt_down(t, sw, *f, ev.type, ts);
		}
	}
}

static void swt_flush(swtcp &t, swpath &sw, uint64_t now)
{
	gtoe_seg seg;
	uint8_t req[NET_ARP_FRAME_MAX];
	while (gtoe_tx_next(t.g, now, &seg)) {
		net_tx_l2 l2;
		uint32_t alen = 0;
		enum net_arp_result r = net_tx_route(&t.arp, &sw.p->cfg.net, &sw.p->net, t.gateway, seg.saddr, seg.daddr,
						     now, &l2, req, sizeof req, &alen);
		swt_send(t, req, alen);
		if (r != NET_ARP_OK)
			continue;
		swt_send(t, t.txf, gtoe_frame(&seg, &l2, t.ip_id++, t.txf, sizeof t.txf));
	}
}

static void swt_frame(swtcp &t, swpath &sw, const std::vector<uint8_t> &fr, uint64_t now)
{
	net_pkt pkt;
	uint16_t idx;
	rx_pipe *p = sw.p;
	switch (net_rx(&p->cfg.net, &p->net, fr.data(), (uint32_t)fr.size(), now, &pkt)) {
	case NET_RX_TCP:
		gtoe_input_pkt(t.g, &pkt, now);
		break;
	case NET_RX_UDP:
		if (net_udp_input(&p->udp, &p->net, &pkt, &idx))
			rx_datagram(p, idx, pkt.payload, pkt.payload_len, now);
		break;
	case NET_RX_ARP:
		swt_send(t, t.txf, net_arp_input(&t.arp, &p->cfg.net, &p->net, &pkt, now, t.txf, sizeof t.txf));
		break;
	case NET_RX_ICMP:
		swt_send(t, t.txf, net_icmp_input(&p->cfg.net, &p->net, &pkt, t.txf, sizeof t.txf));
		break;
	default:
		break;
	}
	sw_drain(sw);
	swt_pump(t, sw, now);
	swt_flush(t, sw, now);
}

/* open = accept: dp_tcp_init's listener, with the entry's limits. */
static void swt_listen(swtcp &t, swtcp_feed &f)
{
	f.listener = gtoe_listen(t.g, OUR_IP, f.lport);
	CHECK(f.listener >= 0);
	CHECK_EQ(gtoe_listen_limits(t.g, f.listener, f.mss, f.win), GTOE_OK);
	if (f.conn < 0)
		f.phase = 4;
}

static void swt_tick(swtcp &t, swpath &sw, uint64_t now)
{
	uint8_t req[NET_ARP_FRAME_MAX];
	rx_poll(sw.p, now);
	sw_drain(sw);
	net_arp_expire(&t.arp, &sw.p->net, now);
	gtoe_poll(t.g, now);
	for (uint32_t i = 0; i < t.nfeeds; i++) {
		swtcp_feed &f = t.f[i];
		net_tx_l2 l2;
		uint32_t alen = 0;
		if (!f.enable) { /* gtoe_top's entry disabled: FIN after what was queued */
			if (f.conn >= 0) {
				if (f.phase == 3)
					swt_event(sw, f, MTOE_EV_CLOSE, MTOE_CLOSE_FIN, NULL, 0, now);
				gtoe_release(t.g, f.conn);
				f.conn = -1;
				f.downs++;
			}
			if (f.listener >= 0) { /* and no more connections taken */
				gtoe_unlisten(t.g, f.listener);
				f.listener = -1;
			}
			f.phase = 0;
			f.next_try = 0;
			continue;
		}
		if (f.accept && f.listener < 0) /* enabled again: listening */
			swt_listen(t, f);
		if (f.accept || (f.phase != 0 && f.phase != 1) || now < f.next_try)
			continue;
		enum net_arp_result r = net_tx_route(&t.arp, &sw.p->cfg.net, &sw.p->net, t.gateway, OUR_IP, f.raddr, now,
						     &l2, req, sizeof req, &alen);
		swt_send(t, req, alen);
		if (r != NET_ARP_OK) {
			f.phase = 1;
			f.next_try = now + 10000000ull;
			continue;
		}
		int32_t c = gtoe_connect(t.g, OUR_IP, f.lport, f.raddr, f.rport, now);
		CHECK(c >= 0);
		CHECK_EQ(gtoe_set_limits(t.g, c, f.mss, f.win), GTOE_OK);
		f.conn = c;
		f.phase = 2;
	}
	swt_pump(t, sw, now);
	swt_flush(t, sw, now);
}

static const uint8_t EXA_MAC[6] = { 0x02, 0, 0, 0, 0, 0x01 };

static const uint8_t EXB_MAC[6] = { 0x02, 0, 0, 0, 0, 0x03 };

/* A TCP frame to us from saddr:sport (MAC smac) to our dport, with options. */
static std::vector<uint8_t> tcp_from(uint32_t saddr, const uint8_t *smac, uint16_t sport, uint16_t dport, uint32_t seq,
				     uint32_t ack, uint8_t flags, const uint8_t *p, size_t n, const uint8_t *opt,
				     size_t optlen)
{
	static const uint8_t none = 0;
	pb_spec s;
	std::vector<uint8_t> f(n + 128);
	pb_init(&s);
	s.saddr = saddr;
	s.daddr = OUR_IP;
	s.sport = sport;
	s.dport = dport;
	s.seq = seq;
	s.ack = ack;
	s.tcp_flags = flags;
	s.win = 65535;
	s.tcp_opts = opt;
	s.tcp_optlen = optlen;
	memcpy(s.src_mac, smac, 6);
	memcpy(s.dst_mac, OUR_MAC, 6);
	f.resize(pb_tcp(f.data(), f.size(), &s, p ? p : &none, n));
	return f;
}

/* The peer's TCP frames: from the exchange's MAC, with options (b: connection B's exchange). */
static std::vector<uint8_t> peer_tcp(uint32_t seq, uint32_t ack, uint8_t flags, const uint8_t *p, size_t n,
				     const uint8_t *opt, size_t optlen, bool b = false)
{
	return tcp_from(b ? EXB_IP : EXA_IP, b ? EXB_MAC : EXA_MAC, b ? PORT_B : PORT_A, b ? VPORT_B : VPORT_A, seq, ack,
			flags, p, n, opt, optlen);
}

static std::vector<uint8_t> arp_frame(uint16_t op, uint32_t spa, const uint8_t *sha, const uint8_t *dst)
{
	pb_spec s;
	std::vector<uint8_t> f(256);
	pb_init(&s);
	s.arp_op = op;
	s.arp_spa = spa;
	s.arp_tpa = OUR_IP;
	memcpy(s.src_mac, sha, 6);
	memcpy(s.arp_sha, sha, 6);
	if (op == NET_ARP_OP_REPLY)
		memcpy(s.arp_tha, OUR_MAC, 6);
	memcpy(s.dst_mac, dst, 6);
	f.resize(pb_arp(f.data(), f.size(), &s));
	return f;
}

/* Frames the card sent since the last call. */
static std::vector<std::vector<uint8_t>> card_tx()
{
	std::vector<std::vector<uint8_t>> v;
	while (!D.mac_tx.empty())
		v.push_back(pop_frame(D.mac_tx));
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Program every kernel for role tcp through the register map (the host's writes, then the
 * APPLYs in order, generation gen), the HBM ring emptied. */
/* The software backend's endpoint for cfg, as dp_tcp_init configures it. */
static void sw_gtoe_cfg(gtoe_cfg &gc, const rx_cfg &cfg, uint32_t isn_key)
{
	gtoe_cfg_default(&gc);
	gc.max_conns = cfg.mtoe.max_conns;
	gc.rcv_buf = cfg.mtoe.window;
	gc.snd_buf = 8192;
	gc.mss = MSS;
	gc.syn_retries = 4;
	gc.quickack = 1;
	gc.isn_key = isn_key;
}

/* The software side of a role = tcp scenario: the pipeline, the endpoint, no feeds yet (two slots). */
static void swt_start(swtcp &t, swpath &sw, const rx_cfg &cfg, const gtoe_cfg &gc, const fast_prog *prog, uint32_t gateway)
{
	sw_init(sw, &cfg, prog);
	t.g = (gtoe *)calloc(1, sizeof *t.g);
	t.gbuf = (uint8_t *)malloc(GTOE_BUF_BYTES(&gc));
	CHECK_EQ(gtoe_init(t.g, &gc, t.gbuf, GTOE_BUF_BYTES(&gc)), GTOE_OK);
	net_arp_init(&t.arp);
	t.gateway = gateway;
	t.nfeeds = 2;
	memset(t.f, 0, sizeof t.f);
}

static void program_tcp(const rx_cfg &cfg, const gtoe_cfg &gc, const toe_hw_gtoe_conn *ent, uint32_t nent,
			uint32_t gen, const fast_prog *prog, toe_hw_opts &o)
{
	static toe_hw_wr w[TOE_HW_CFG_MAX_WRITES];
	uint32_t nw, k, ch;
	o.role = TOE_ROLE_TCP;
	o.gateway = 0x0a0100fe;
	o.mss = MSS;
	o.ring_slots = 256;
	int r = toe_hw_cfg_writes(&cfg, &o, w, TOE_HW_CFG_MAX_WRITES);
	CHECK(r > 0);
	nw = (uint32_t)r;
	CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, nent, w, TOE_HW_CFG_MAX_WRITES, &nw), 0);
	for (k = 0; k < nw; k++)
		reg_write(w[k].kid, w[k].off, w[k].val);
	D.slots = o.ring_slots;
	for (ch = 0; ch < TOE_HW_HBM_CHANNELS; ch++) {
		D.hbm[ch].assign(2 * o.ring_slots, hw_word(0));
		reg_write(TOE_KID_HBM, TOE_HBM_REG_ADDR(ch), 0x1000u * (ch + 1));
		reg_write(TOE_KID_HBM, TOE_HBM_REG_ADDR(ch) + 4, 0x40);
	}
	for (k = 0; k < TOE_PROG_BYTES / 4; k++)
		reg_write(TOE_KID_FAST, TOE_FAST_PROG(4 * k), toe_hw_prog_word(prog, k));
	for (k = 0; k < 6; k++)
		reg_write(toe_hw_apply_order_tcp[k], TOE_CFG(TOE_CF_APPLY), gen);
	D.rd = 0;
	run();
	for (k = 0; k < 6; k++)
		check_header(toe_hw_apply_order_tcp[k], gen, TOE_STATUS_OK);
	CHECK_EQ(reg_read(TOE_KID_TXARB, TOE_STAT(TOE_ST_KERNEL)), TOE_KID_TXARB);
}

void csim_gtoe(const fast_prog *full)
{
	/* the order template maps to no tick type here: the feed's order messages yield none, so on the
	 * session stream each is one TOE_CSESS_SEEN record (its MsgSeqNum for the host's session) */
	fast_prog *unmapped = new fast_prog(*full);
	for (uint32_t x = 0; x < FAST_MAX_TEMPLATES; x++)
		if (unmapped->tpl[x].kind == TOE_REC_ORDER)
			unmapped->tpl[x].kind = TOE_REC_NONE;
	const fast_prog *prog = unmapped;
	rx_cfg cfg;
	swpath sw;
	swtcp *t = new swtcp();
	feed fa;
	gtoe_cfg gc;
	toe_hw_gtoe_conn ent[2];
	std::vector<union toe_record> hw;
	std::vector<std::vector<uint8_t>> ctx; /* the card's frames, in order */
	toe_hw_opts o;
	uint32_t k;
	uint64_t now = 2000000000ull;
	const uint32_t irs = 0xfffff000u; /* the peer's sequence numbers wrap in the feed */
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t other_mac[6] = { 0x02, 0, 0, 0, 0, 0x09 };
	static const uint8_t synack_opt[8] = { 2, 4, 0x05, 0xb4, 1, 1, 4, 2 }; /* MSS 1460, NOP NOP SACK-permitted */

	base_cfg(cfg);
	cfg.sess[0] = 1; /* entry 0's stream: toed's own connection with a STEP session on the host */
	sw_gtoe_cfg(gc, cfg, 0x5eed1234u);
	memset(ent, 0, sizeof ent); /* limits 0: the endpoint's MSS and window */
	ent[0].raddr = EXA_IP;
	ent[0].rport = PORT_A;
	ent[0].lport = VPORT_A;
	ent[0].stream = 0;
	ent[0].enable = 1;
	ent[1].raddr = EXB_IP; /* enabled later, through its control word */
	ent[1].rport = PORT_B;
	ent[1].lport = VPORT_B;
	ent[1].stream = 1;
	ent[1].enable = 0;

	/* the card: every kernel through the register map */
	program_tcp(cfg, gc, ent, 2, 7, prog, o);
	/* the arbiter has no configuration: its counters run on from the earlier scenarios */
	const uint64_t arb_eth0 = ctr(TOE_KID_TXARB, 0), arb_gtoe0 = ctr(TOE_KID_TXARB, 1);

	/* the software side */
	swt_start(*t, sw, cfg, gc, prog, o.gateway);
	t->f[0].raddr = EXA_IP;
	t->f[0].rport = PORT_A;
	t->f[0].lport = VPORT_A;
	t->f[0].conn = -1;
	t->f[0].enable = 1;
	t->f[1].raddr = EXB_IP;
	t->f[1].rport = PORT_B;
	t->f[1].lport = VPORT_B;
	t->f[1].stream = 1;
	t->f[1].conn = -1;
	t->f[0].listener = t->f[1].listener = -1;

	make_feed(full, 21, 300, fa);
	/* what the exchange sends on the connection: its Logon answer, a Heartbeat, then the feed */
	std::vector<uint8_t> sess_msg[2], stream;
	{
		uint8_t buf[512];
		step_enc e;
		step_enc_begin(&e, buf, sizeof buf, STEP_MT_LOGON, "SSE", "VENDOR01", 1, 1700000000000ull);
		step_enc_u64(&e, STEP_TAG_ENCRYPT_METHOD, 0);
		step_enc_u64(&e, STEP_TAG_HEARTBT_INT, 30);
		uint32_t n = step_enc_end(&e);
		CHECK(n > TOE_CSESS_DATA); /* split over records */
		sess_msg[0].assign(buf + e.start, buf + e.start + n);
		step_enc_begin(&e, buf, sizeof buf, STEP_MT_HEARTBEAT, "SSE", "VENDOR01", 2, 1700000030000ull);
		n = step_enc_end(&e);
		CHECK(n > 0);
		sess_msg[1].assign(buf + e.start, buf + e.start + n);
		stream = sess_msg[0];
		stream.insert(stream.end(), sess_msg[1].begin(), sess_msg[1].end());
		stream.insert(stream.end(), fa.bytes.begin(), fa.bytes.end());
	}

	auto tick = [&](uint64_t ts) {
		now = ts;
		swt_tick(*t, sw, now);
		set_time(now);
		run();
		host_drain(hw);
		for (auto &f : card_tx())
			ctx.push_back(f);
	};
	auto frame = [&](const std::vector<uint8_t> &f) {
		swt_frame(*t, sw, f, now);
		push_frame(f);
		run();
		host_drain(hw);
		for (auto &x : card_tx())
			ctx.push_back(x);
	};

	/* 1. the first tick: the exchange's MAC is unknown, an ARP request goes out */
	tick(now);
	CHECK_EQ(ctx.size(), 1);
	if (ctx.size() == 1) {
		CHECK(memcmp(ctx[0].data(), bcast, 6) == 0);
		CHECK(memcmp(ctx[0].data() + 6, OUR_MAC, 6) == 0);
		CHECK_EQ(ctx[0][12] << 8 | ctx[0][13], 0x0806);
		CHECK_EQ(ctx[0][21], NET_ARP_OP_REQUEST);
		CHECK_EQ(be32(&ctx[0][38]), EXA_IP);
	}
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 1); /* resolving */

	/* 2. the reply; 3. the next tick connects: a SYN with our MSS to the exchange's MAC */
	frame(arp_frame(NET_ARP_OP_REPLY, EXA_IP, EXA_MAC, OUR_MAC));
	tick(now + 10000000ull);
	CHECK_EQ(ctx.size(), 2);
	uint32_t iss = 0;
	if (ctx.size() == 2) {
		const uint8_t *f = ctx[1].data();
		CHECK(memcmp(f, EXA_MAC, 6) == 0);
		CHECK_EQ(f[14 + 9], 6);
		CHECK_EQ(be32(f + 14 + 16), EXA_IP);
		CHECK_EQ(f[34] << 8 | f[35], VPORT_A);
		CHECK_EQ(f[36] << 8 | f[37], PORT_A);
		CHECK_EQ(f[47], TCP_SYN);
		CHECK_EQ(f[54], 2); /* the MSS option first */
		CHECK_EQ(f[56] << 8 | f[57], MSS);
		iss = be32(f + 38);
	}
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_STATE)), GTOE_SYN_SENT);

	/* 4. SYN-ACK: our ACK, the stream opens */
	frame(peer_tcp(irs, iss + 1, TCP_SYN | TCP_ACK, NULL, 0, synack_opt, sizeof synack_opt));
	CHECK_EQ(ctx.size(), 3);
	if (ctx.size() == 3) {
		CHECK_EQ(ctx[2][47], TCP_ACK);
		CHECK_EQ(be32(&ctx[2][42]), irs + 1);
	}
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_STATE)), GTOE_ESTABLISHED);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 3);

	/* 5. the session layer's logon through the mailbox (and dp_tcp_send) */
	{
		uint8_t logon[100];
		for (k = 0; k < sizeof logon; k++)
			logon[k] = (uint8_t)('A' + k % 26);
		for (k = 0; k < sizeof logon; k += 4)
			reg_write(TOE_KID_GTOE, TOE_GTOE_REG_TXD + k,
				  (uint32_t)logon[k] | (uint32_t)logon[k + 1] << 8 | (uint32_t)logon[k + 2] << 16 |
					  (uint32_t)logon[k + 3] << 24);
		reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_CONN), 0);
		reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_LEN), sizeof logon);
		reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_SEQ), 1);
		CHECK_EQ(gtoe_send(t->g, t->f[0].conn, logon, sizeof logon), (int32_t)sizeof logon);
		swt_flush(*t, sw, now);
		run();
		for (auto &x : card_tx())
			ctx.push_back(x);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_STAT(TOE_GTOE_ST_TX_DONE)), 1);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_STAT(TOE_GTOE_ST_TX_TAKEN)), sizeof logon);
		CHECK_EQ(ctx.size(), 4);
		if (ctx.size() == 4) {
			CHECK_EQ(ctx[3].size(), 14 + 20 + 20 + sizeof logon);
			CHECK(ctx[3].size() >= 54 + sizeof logon && memcmp(ctx[3].data() + 54, logon, sizeof logon) == 0);
			CHECK_EQ(be32(&ctx[3][38]), iss + 1);
		}
	}

	/* 6. the feed: MSS segments acknowledging the logon, one pair reordered,
	 * one duplicated; a ping and a neighbour's ARP request on the way */
	{
		std::vector<std::pair<size_t, size_t>> segs;
		size_t off;
		for (off = 0; off < stream.size(); off += MSS)
			segs.push_back({ off, stream.size() - off < MSS ? stream.size() - off : MSS });
		for (k = 0; k < segs.size(); k++) {
			size_t i = k;
			if (k == 5)
				i = 6;
			else if (k == 6)
				i = 5;
			frame(peer_tcp(irs + 1 + (uint32_t)segs[i].first, iss + 101, TCP_ACK | TCP_PSH,
				       stream.data() + segs[i].first, segs[i].second, NULL, 0));
			if (k == 9)
				frame(peer_tcp(irs + 1 + (uint32_t)segs[8].first, iss + 101, TCP_ACK | TCP_PSH,
					       stream.data() + segs[8].first, segs[8].second, NULL, 0));
			if (k == 12) {
				pb_spec s;
				std::vector<uint8_t> f(256);
				pb_init(&s);
				s.saddr = OTHER_IP;
				s.daddr = OUR_IP;
				memcpy(s.dst_mac, OUR_MAC, 6);
				s.icmp_type = NET_ICMP_ECHO_REQUEST;
				s.icmp_id = 5;
				s.icmp_seq = 1;
				f.resize(pb_icmp(f.data(), f.size(), &s, "ping", 4));
				frame(f);
				frame(arp_frame(NET_ARP_OP_REQUEST, OTHER_IP, other_mac, bcast));
			}
			if (k % 4 == 3)
				tick(now + 1000000ull);
		}
	}
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_BYTES_IN_LO)), (uint32_t)stream.size());
	{
		/* the per-connection window against the software endpoint's gtoe_info */
		struct gtoe_info in;
		CHECK_EQ(gtoe_info(t->g, t->f[0].conn, &in), 0);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_SRTT_US)), (uint32_t)(in.srtt_ns / 1000));
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_CWND)), in.cwnd);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_SND_WND)), in.snd_wnd);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_RCV_WND)), in.rcv_wnd);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_BYTES_OUT_LO)), 100);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_UPS)), 1);
		CHECK(in.rcv_wnd > 0);
	}

	/* 7. the exchange closes: our ACK and FIN, CLOSE on the stream; its ACK of our FIN */
	uint32_t fin_seq = irs + 1 + (uint32_t)stream.size();
	frame(peer_tcp(fin_seq, iss + 101, TCP_ACK | TCP_FIN, NULL, 0, NULL, 0));
	frame(peer_tcp(fin_seq + 1, iss + 102, TCP_ACK, NULL, 0, NULL, 0));
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 0);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_DOWNS)), 1);
	/* 8. 100 ms later it connects again (the MAC is known: a SYN straight away) */
	size_t before = ctx.size();
	tick(now + 50000000ull);
	CHECK_EQ(ctx.size(), before);
	tick(now + 60000000ull);
	CHECK_EQ(ctx.size(), before + 1);
	if (ctx.size() == before + 1)
		CHECK_EQ(ctx[before][47], TCP_SYN);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_ATTEMPTS)), 2);

	const size_t feed_records = hw.size();

	/* 9. entry B enabled at run time: ARP, SYN, refused by an RST; the retry
	 * backs off 100 ms, then 200 ms; a mailbox message for it is refused */
	reg_write(TOE_KID_GTOE, TOE_GTOE_CONN(1, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ENABLE);
	t->f[1].enable = 1;
	before = ctx.size();
	tick(now + 1000000ull);
	CHECK_EQ(ctx.size(), before + 1); /* B's ARP request */
	frame(arp_frame(NET_ARP_OP_REPLY, EXB_IP, EXB_MAC, OUR_MAC));
	uint64_t tb = now;
	for (k = 0; k < 3; k++) {
		uint64_t at = k == 0 ? 10000000ull : k == 1 ? 100000000ull : 200000000ull;
		before = ctx.size();
		if (k > 0) {
			tick(tb + at - 1000000ull);
			CHECK_EQ(ctx.size(), before); /* not yet */
		}
		tick(tb + at);
		tb = now;
		CHECK_EQ(ctx.size(), before + 1);
		if (ctx.size() != before + 1)
			break;
		CHECK(memcmp(ctx[before].data(), EXB_MAC, 6) == 0);
		CHECK_EQ(ctx[before][47], TCP_SYN);
		frame(peer_tcp(0, be32(&ctx[before][38]) + 1, TCP_RST | TCP_ACK, NULL, 0, NULL, 0, true));
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(1, TOE_GTOE_CS_PHASE)), 0);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(1, TOE_GTOE_CS_LAST_DOWN)),
			 GTOE_EV_ERROR | GTOE_ERR_REFUSED << 8);
	}
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(1, TOE_GTOE_CS_DOWNS)), 3);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(1, TOE_GTOE_CS_UPS)), 0);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_CONN), 1);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_LEN), 8);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_SEQ), 2);
	run();
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_STAT(TOE_GTOE_ST_TX_DONE)), 2);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_STAT(TOE_GTOE_ST_TX_TAKEN)), 0xffffffffu);

	/* 10. A again: SYN-ACK, up, then disabled by the host: our FIN, CLOSE on the stream */
	{
		size_t syn = 0;
		for (k = 0; k < ctx.size(); k++)
			if (ctx[k][47] == TCP_SYN && memcmp(ctx[k].data(), EXA_MAC, 6) == 0)
				syn = k;
		uint32_t iss2 = be32(&ctx[syn][38]);
		frame(peer_tcp(0x1000, iss2 + 1, TCP_SYN | TCP_ACK, NULL, 0, synack_opt, sizeof synack_opt));
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 3);
		frame(peer_tcp(0x1001, iss2 + 1, TCP_ACK | TCP_PSH, fa.bytes.data(), 200, NULL, 0));
		reg_write(TOE_KID_GTOE, TOE_GTOE_CONN(0, TOE_GTOE_CE_CTRL), 0);
		t->f[0].enable = 0;
		before = ctx.size();
		tick(now + 1000000ull);
		CHECK_EQ(ctx.size(), before + 1);
		if (ctx.size() == before + 1)
			CHECK_EQ(ctx[before][47], TCP_FIN | TCP_ACK);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 0);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_DOWNS)), 2);
		tick(now + 500000000ull); /* A disabled: no reconnect (B's third retry is due: 400 ms) */
		CHECK_EQ(ctx.size(), before + 2);
		for (size_t j = before + 1; j < ctx.size(); j++)
			CHECK(memcmp(ctx[j].data(), EXB_MAC, 6) == 0 && ctx[j][47] == TCP_SYN);
	}

	/* the card's frames equal the software's, byte for byte, in order */
	CHECK_EQ(ctx.size(), t->tx.size());
	for (k = 0; k < ctx.size() && k < t->tx.size(); k++)
		if (ctx[k] != t->tx[k]) {
			fprintf(stderr, "transmitted frame %u differs (card %zu bytes, software %zu)\n", k, ctx[k].size(),
				t->tx[k].size());
			CHECK(!"frames differ");
			break;
		}
	/* and so do the records: the feed's ticks, in order, none lost */
	check_rings(hw, sw.ring);
	{
		size_t n = 0, m = 0;
		std::vector<uint8_t> got[3];
		std::vector<union toe_record> trades;
		std::vector<uint64_t> order_seqs, seen_seqs;
		uint32_t nsess = 0, pieces[3] = { 0, 0, 0 };
		for (size_t j = 0; j < fa.ticks.size(); j++) {
			if (fa.ticks[j].hdr.type != TOE_REC_ORDER)
				trades.push_back(fa.ticks[j]);
			else if (order_seqs.empty() || order_seqs.back() != fa.tick_msg[j] + 1)
				order_seqs.push_back(fa.tick_msg[j] + 1); /* MsgSeqNum: the feed numbers from 1 */
		}
		CHECK(!order_seqs.empty() && !trades.empty());
		for (size_t j = 0; j < feed_records; j++) {
			const union toe_record &rec = hw[j];
			if (rec.hdr.type == TOE_REC_CARD_SESS && ((const toe_card_sess *)rec.bytes)->kind == TOE_CSESS_SEEN) {
				/* an order message: no tick, its MsgSeqNum told, outside the session numbering */
				const toe_card_sess &cs = *(const toe_card_sess *)rec.bytes;
				CHECK_EQ(rec.hdr.stream, 0);
				CHECK_EQ(cs.msg_no, 0);
				CHECK_EQ(cs.npieces, 1);
				seen_seqs.push_back(rec.hdr.msg_seq);
				continue;
			}
			if (rec.hdr.type == TOE_REC_CARD_SESS) {
				/* independently of the software path: the session messages, whole, then the close */
				const toe_card_sess &cs = *(const toe_card_sess *)rec.bytes;
				nsess++;
				CHECK_EQ(rec.hdr.stream, 0);
				CHECK(cs.msg_no >= 1 && cs.msg_no <= 3);
				if (cs.msg_no < 1 || cs.msg_no > 3)
					continue;
				CHECK_EQ(cs.piece, pieces[cs.msg_no - 1]);
				pieces[cs.msg_no - 1]++;
				got[cs.msg_no - 1].insert(got[cs.msg_no - 1].end(), cs.data, cs.data + cs.len);
				if (cs.msg_no < 3) {
					CHECK_EQ(cs.kind, TOE_CSESS_PIECE);
					CHECK_EQ(cs.msg_len, sess_msg[cs.msg_no - 1].size());
					CHECK_EQ(rec.hdr.msg_seq, cs.msg_no);
					CHECK(!strcmp(cs.msgtype, cs.msg_no == 1 ? "A" : "0"));
				} else {
					CHECK_EQ(cs.kind, TOE_CSESS_CLOSE); /* the exchange's FIN */
				}
				continue;
			}
			if (rec.hdr.type != TOE_REC_GAP && rec.hdr.type != TOE_REC_RESET) {
				if (n < trades.size())
					CHECK(same_tick(rec, trades[n]));
				n++;
			}
		}
		CHECK_EQ(n, trades.size()); /* the ticks unaffected: the trades */
		CHECK(seen_seqs == order_seqs); /* one SEEN per order message, in order */
		/* and any after the feed (the later steps' data) for fast_top's counters */
		for (size_t j = 0; j < hw.size(); j++)
			m += hw[j].hdr.type == TOE_REC_CARD_SESS &&
			     ((const toe_card_sess *)hw[j].bytes)->kind == TOE_CSESS_SEEN;
		CHECK(got[0] == sess_msg[0]);
		CHECK(got[1] == sess_msg[1]);
		CHECK_EQ(pieces[0], (sess_msg[0].size() + TOE_CSESS_DATA - 1) / TOE_CSESS_DATA);
		CHECK_EQ(pieces[1], (sess_msg[1].size() + TOE_CSESS_DATA - 1) / TOE_CSESS_DATA);
		CHECK_EQ(pieces[2], 1);
		CHECK_EQ(nsess, pieces[0] + pieces[1] + 1);
		/* fast_top's counters: three then the host's disable's close (step 10): four messages */
		CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 3), 4 + m);
		CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 4), nsess + m + 1);
	}
	/* counters: the endpoint's against the software's, the ARP reply, the arbiter */
	k = TOE_GTOE_CTR_STATS;
#define CMP_GT(name) CHECK_EQ(ctr(TOE_KID_GTOE, k++), t->g->st.name);
	GTOE_STATS_FIELDS(CMP_GT)
#undef CMP_GT
	CHECK_EQ(ctr(TOE_KID_GTOE, 3), 1); /* arp_replies */
	CHECK_EQ(ctr(TOE_KID_GTOE, 4), 2); /* arp_requests: A's and B's exchanges */
	CHECK_EQ(ctr(TOE_KID_GTOE, 15), 0); /* held */
	CHECK_EQ(ctr(TOE_KID_TXARB, 0) - arb_eth0, 1); /* the ping's reply came from eth_rx_top */
	CHECK_EQ(ctr(TOE_KID_TXARB, 1) - arb_gtoe0, ctx.size() - 1);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 11), ctr(TOE_KID_GTOE, 0) + ctr(TOE_KID_GTOE, 1)); /* gtoe_out */
	printf("hw csim: role tcp: %zu frames sent, %zu records, compared with the software path\n", ctx.size(),
	       hw.size());

	/* a configuration the card cannot hold: refused with its reason, input dropped and counted */
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_NCONNS), TOE_HW_GTOE_CONNS + 1);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY), 8);
	run();
	check_header(TOE_KID_GTOE, 8, TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_CONNS << 16);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_NCONNS), 2);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_RCV_BUF), 3000); /* not a power of two */
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY), 9);
	run();
	check_header(TOE_KID_GTOE, 9, TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_INIT << 16);
	push_frame(peer_tcp(0x2000, 1, TCP_SYN, NULL, 0, NULL, 0));
	run();
	CHECK_EQ(ctr(TOE_KID_GTOE, 15), 1); /* held */
	CHECK(D.mac_tx.empty());

	sw_free(sw);
	free(t->g);
	free(t->gbuf);
	delete t;
	delete unmapped;
}

/* gtoe_top's counters by name (the order of TOE_GTOE_CTRS) */
enum {
#define GT_IDX(name) GTI_##name,
	TOE_GTOE_CTRS(GT_IDX)
#undef GT_IDX
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* open = accept and per-entry limits: entry 0 listens on VPORT_A for EXA (any port) with MSS 1024 and a
 * 16 KB window; entry 1 connects to EXB with MSS 536 and a 4 KB window; the endpoint's own are 1408
 * and cfg.mtoe.window. */
void csim_gtoe_accept(const fast_prog *prog)
{
	rx_cfg cfg;
	swpath sw;
	swtcp *t = new swtcp();
	feed fa, fb;
	gtoe_cfg gc;
	toe_hw_gtoe_conn ent[2];
	toe_hw_opts o;
	std::vector<union toe_record> hw;
	std::vector<std::vector<uint8_t>> ctx;
	uint64_t now = 3000000000ull;
	uint32_t k;
	const uint32_t irs_a = 0x70000000u, irs_b = 0x100u;
	const uint16_t MSS_A = 1024, MSS_B = 536;
	const uint32_t WIN_A = 16384, WIN_B = 4096;
	static const uint8_t syn_opt[8] = { 2, 4, 0x05, 0xb4, 1, 1, 4, 2 }; /* MSS 1460, NOP NOP SACK-permitted */
	static const uint8_t other_mac[6] = { 0x02, 0, 0, 0, 0, 0x09 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	base_cfg(cfg);
	sw_gtoe_cfg(gc, cfg, 0xacce5700u);
	CHECK(WIN_A < gc.rcv_buf && WIN_B < WIN_A); /* all three windows differ */
	memset(ent, 0, sizeof ent);
	ent[0].raddr = EXA_IP;
	ent[0].rport = 0; /* any port of the exchange */
	ent[0].lport = VPORT_A;
	ent[0].stream = 0;
	ent[0].enable = 1;
	ent[0].accept = 1;
	ent[0].mss = MSS_A;
	ent[0].window = WIN_A;
	ent[1].raddr = EXB_IP;
	ent[1].rport = PORT_B;
	ent[1].lport = VPORT_B;
	ent[1].stream = 1;
	ent[1].enable = 1;
	ent[1].mss = MSS_B;
	ent[1].window = WIN_B;
	program_tcp(cfg, gc, ent, 2, 10, prog, o);
	CHECK(D.mac_tx.empty());
	/* listening from APPLY on, as dp_tcp_init */
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 4);

	swt_start(*t, sw, cfg, gc, prog, o.gateway);
	for (k = 0; k < 2; k++) {
		t->f[k].raddr = ent[k].raddr;
		t->f[k].rport = ent[k].rport;
		t->f[k].lport = ent[k].lport;
		t->f[k].stream = ent[k].stream;
		t->f[k].enable = 1;
		t->f[k].accept = ent[k].accept;
		t->f[k].mss = (uint16_t)ent[k].mss;
		t->f[k].win = ent[k].window;
		t->f[k].conn = -1;
		t->f[k].listener = -1;
	}
	swt_listen(*t, t->f[0]);

	make_feed(prog, 31, 120, fa);
	make_feed(prog, 32, 12, fb);

	auto take = [&]() {
		host_drain(hw);
		for (auto &x : card_tx())
			ctx.push_back(x);
	};
	auto tick = [&](uint64_t ts) {
		now = ts;
		swt_tick(*t, sw, now);
		set_time(now);
		run();
		take();
	};
	auto frame = [&](const std::vector<uint8_t> &f) {
		swt_frame(*t, sw, f, now);
		push_frame(f);
		run();
		take();
	};
	/* the peer's segments with the payload of a feed, in segments of mss */
	auto send_feed = [&](const feed &fd, uint16_t mss, uint32_t irs, uint32_t ack, bool b, uint16_t sport,
			     uint32_t win, const uint8_t *mac) {
		for (size_t off = 0; off < fd.bytes.size(); off += mss) {
			size_t n = fd.bytes.size() - off < mss ? fd.bytes.size() - off : mss;
			size_t before = ctx.size();
			frame(tcp_from(b ? EXB_IP : EXA_IP, mac, sport, b ? VPORT_B : VPORT_A, irs + 1 + (uint32_t)off, ack,
				       TCP_ACK | TCP_PSH, fd.bytes.data() + off, n, NULL, 0));
			/* quick ACK: one per segment, with the entry's whole window (the bytes went on at once) */
			CHECK_EQ(ctx.size(), before + 1);
			if (ctx.size() == before + 1) {
				CHECK_EQ(ctx[before][47], TCP_ACK);
				CHECK_EQ(be32(&ctx[before][42]), irs + 1 + (uint32_t)(off + n));
				CHECK_EQ(be16(&ctx[before][48]), win);
			}
		}
	};

	/* 1. the first tick: entry 1 resolves EXB; entry 0 only listens */
	tick(now);
	CHECK_EQ(ctx.size(), 1);
	if (ctx.size() == 1)
		CHECK_EQ(be32(&ctx[0][38]), EXB_IP);
	/* 2. EXB's MAC; the SYN offers entry 1's MSS and window */
	frame(arp_frame(NET_ARP_OP_REPLY, EXB_IP, EXB_MAC, OUR_MAC));
	tick(now + 10000000ull);
	CHECK_EQ(ctx.size(), 2);
	uint32_t iss_b = 0;
	if (ctx.size() == 2) {
		const uint8_t *f = ctx[1].data();
		CHECK(memcmp(f, EXB_MAC, 6) == 0);
		CHECK_EQ(f[47], TCP_SYN);
		CHECK_EQ(f[54], 2);
		CHECK_EQ(be16(f + 56), MSS_B);
		CHECK_EQ(be16(f + 48), WIN_B);
		iss_b = be32(f + 38);
	}
	frame(tcp_from(EXB_IP, EXB_MAC, PORT_B, VPORT_B, irs_b, iss_b + 1, TCP_SYN | TCP_ACK, NULL, 0, syn_opt,
		       sizeof syn_opt));
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(1, TOE_GTOE_CS_PHASE)), 3);
	CHECK_EQ(ctx.size(), 3);
	if (ctx.size() == 3)
		CHECK_EQ(be16(&ctx[2][48]), WIN_B);

	/* 3. the exchange A resolves us (we learn its MAC), then connects to the listening entry: the
	 * SYN-ACK offers entry 0's MSS and window; its ACK opens the stream */
	frame(arp_frame(NET_ARP_OP_REQUEST, EXA_IP, EXA_MAC, bcast));
	size_t before = ctx.size();
	frame(tcp_from(EXA_IP, EXA_MAC, PORT_A, VPORT_A, irs_a, 0, TCP_SYN, NULL, 0, syn_opt, sizeof syn_opt));
	CHECK_EQ(ctx.size(), before + 1);
	uint32_t iss_a = 0;
	if (ctx.size() == before + 1) {
		const uint8_t *f = ctx[before].data();
		CHECK(memcmp(f, EXA_MAC, 6) == 0);
		CHECK_EQ(be16(f + 34), VPORT_A);
		CHECK_EQ(be16(f + 36), PORT_A);
		CHECK_EQ(f[47], TCP_SYN | TCP_ACK);
		CHECK_EQ(be32(f + 42), irs_a + 1);
		CHECK_EQ(f[54], 2);
		CHECK_EQ(be16(f + 56), MSS_A);
		CHECK_EQ(be16(f + 48), WIN_A);
		iss_a = be32(f + 38);
	}
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 4); /* SYN-RECEIVED: not the entry's yet */
	frame(tcp_from(EXA_IP, EXA_MAC, PORT_A, VPORT_A, irs_a + 1, iss_a + 1, TCP_ACK, NULL, 0, NULL, 0));
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 3);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_STATE)), GTOE_ESTABLISHED);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_UPS)), 1);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_ATTEMPTS)), 1);

	/* 4. both feeds, each in its entry's MSS: every ACK carries the entry's window */
	send_feed(fa, MSS_A, irs_a, iss_a + 1, false, PORT_A, WIN_A, EXA_MAC);
	send_feed(fb, MSS_B, irs_b, iss_b + 1, true, PORT_B, WIN_B, EXB_MAC);
	tick(now + 1000000ull);
	for (k = 0; k < 2; k++) {
		struct gtoe_info in;
		CHECK_EQ(gtoe_info(t->g, t->f[k].conn, &in), 0);
		CHECK_EQ(in.mss, k == 0 ? MSS_A : MSS_B); /* min(the entry's, the peer's 1460) */
		CHECK_EQ(in.rcv_wnd, k == 0 ? WIN_A : WIN_B);
		CHECK_EQ(in.cwnd, 10u * in.mss); /* RFC 6928 on both sides (RFC 5681 3.1: the SYN-ACK's ACK grows nothing) */
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(k, TOE_GTOE_CS_RCV_WND)), in.rcv_wnd);
		CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(k, TOE_GTOE_CS_CWND)), in.cwnd);
	}
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_BYTES_IN_LO)), (uint32_t)fa.bytes.size());
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(1, TOE_GTOE_CS_BYTES_IN_LO)), (uint32_t)fb.bytes.size());
	const size_t feed_records = hw.size();

	/* 5. connections the entry does not take: from a neighbour's address, and a second one from the
	 * exchange while the first is up. Each completes the handshake (with the entry's MSS) and is reset
	 * once established, as dp_tcp's accepted() does; the entry's connection carries on */
	frame(arp_frame(NET_ARP_OP_REQUEST, OTHER_IP, other_mac, bcast));
	for (k = 0; k < 2; k++) {
		uint32_t sa = k == 0 ? OTHER_IP : EXA_IP;
		const uint8_t *mac = k == 0 ? other_mac : EXA_MAC;
		uint16_t sp = k == 0 ? 7777 : PORT_A + 100;
		before = ctx.size();
		frame(tcp_from(sa, mac, sp, VPORT_A, 0x5000, 0, TCP_SYN, NULL, 0, syn_opt, sizeof syn_opt));
		CHECK_EQ(ctx.size(), before + 1);
		if (ctx.size() != before + 1)
			break;
		CHECK(memcmp(ctx[before].data(), mac, 6) == 0);
		CHECK_EQ(ctx[before][47], TCP_SYN | TCP_ACK);
		CHECK_EQ(be16(&ctx[before][56]), MSS_A);
		uint32_t iss = be32(&ctx[before][38]);
		frame(tcp_from(sa, mac, sp, VPORT_A, 0x5001, iss + 1, TCP_ACK, NULL, 0, NULL, 0));
		CHECK_EQ(ctx.size(), before + 2);
		if (ctx.size() == before + 2) {
			CHECK(memcmp(ctx[before + 1].data(), mac, 6) == 0);
			CHECK(ctx[before + 1][47] & TCP_RST);
			CHECK_EQ(be16(&ctx[before + 1][36]), sp);
		}
		CHECK_EQ(ctr(TOE_KID_GTOE, GTI_accept_refused), k + 1);
	}
	CHECK_EQ(t->accept_refused, 2);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 3);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_UPS)), 1);
	/* a SYN to a port nobody listens on: RST at once */
	before = ctx.size();
	frame(tcp_from(EXA_IP, EXA_MAC, PORT_A, VPORT_A + 7, 0x9000, 0, TCP_SYN, NULL, 0, NULL, 0));
	CHECK_EQ(ctx.size(), before + 1);
	if (ctx.size() == before + 1)
		CHECK_EQ(ctx[before][47], TCP_RST | TCP_ACK);

	/* 6. the exchange closes: our FIN, CLOSE on the stream, the entry listens again; it connects again
	 * from another port (any port is the entry's) and is taken */
	uint32_t fin_a = irs_a + 1 + (uint32_t)fa.bytes.size();
	frame(tcp_from(EXA_IP, EXA_MAC, PORT_A, VPORT_A, fin_a, iss_a + 1, TCP_ACK | TCP_FIN, NULL, 0, NULL, 0));
	frame(tcp_from(EXA_IP, EXA_MAC, PORT_A, VPORT_A, fin_a + 1, iss_a + 2, TCP_ACK, NULL, 0, NULL, 0));
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 4);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_DOWNS)), 1);
	before = ctx.size();
	frame(tcp_from(EXA_IP, EXA_MAC, PORT_A + 1, VPORT_A, 0x1000, 0, TCP_SYN, NULL, 0, syn_opt, sizeof syn_opt));
	CHECK_EQ(ctx.size(), before + 1);
	if (ctx.size() == before + 1) {
		uint32_t iss = be32(&ctx[before][38]);
		CHECK_EQ(be16(&ctx[before][56]), MSS_A);
		frame(tcp_from(EXA_IP, EXA_MAC, PORT_A + 1, VPORT_A, 0x1001, iss + 1, TCP_ACK, NULL, 0, NULL, 0));
		frame(tcp_from(EXA_IP, EXA_MAC, PORT_A + 1, VPORT_A, 0x1001, iss + 1, TCP_ACK | TCP_PSH, fa.bytes.data(),
			       300, NULL, 0));
	}
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 3);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_UPS)), 2);
	CHECK_EQ(ctr(TOE_KID_GTOE, GTI_accepts), 2);

	/* 7. the host disables the entry: FIN on the connection, the listener withdrawn (a SYN gets an
	 * RST); enabled again, it listens */
	reg_write(TOE_KID_GTOE, TOE_GTOE_CONN(0, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ACCEPT);
	t->f[0].enable = 0;
	before = ctx.size();
	tick(now + 1000000ull);
	CHECK_EQ(ctx.size(), before + 1);
	if (ctx.size() == before + 1)
		CHECK_EQ(ctx[before][47], TCP_FIN | TCP_ACK);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 0);
	before = ctx.size();
	frame(tcp_from(EXA_IP, EXA_MAC, PORT_A + 2, VPORT_A, 0x2000, 0, TCP_SYN, NULL, 0, NULL, 0));
	CHECK_EQ(ctx.size(), before + 1);
	if (ctx.size() == before + 1)
		CHECK_EQ(ctx[before][47], TCP_RST | TCP_ACK);
	reg_write(TOE_KID_GTOE, TOE_GTOE_CONN(0, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ENABLE | TOE_GTOE_CTRL_ACCEPT);
	t->f[0].enable = 1;
	tick(now + 1000000ull);
	CHECK_EQ(reg_read(TOE_KID_GTOE, TOE_GTOE_CST(0, TOE_GTOE_CS_PHASE)), 4);

	/* the card's frames equal the software's, byte for byte, in order; so do the records */
	CHECK_EQ(ctx.size(), t->tx.size());
	for (k = 0; k < ctx.size() && k < t->tx.size(); k++)
		if (ctx[k] != t->tx[k]) {
			fprintf(stderr, "accept: transmitted frame %u differs (card %zu bytes, software %zu)\n", k,
				ctx[k].size(), t->tx[k].size());
			CHECK(!"frames differ");
			break;
		}
	check_rings(hw, sw.ring);
	{
		size_t na = 0, nb = 0;
		for (size_t j = 0; j < feed_records; j++) {
			const union toe_record &rec = hw[j];
			if (rec.hdr.type == TOE_REC_GAP || rec.hdr.type == TOE_REC_RESET)
				continue;
			if (rec.hdr.stream == 0) {
				if (na < fa.ticks.size())
					CHECK(same_tick(rec, fa.ticks[na]));
				na++;
			} else {
				if (nb < fb.ticks.size())
					CHECK(same_tick(rec, fb.ticks[nb]));
				nb++;
			}
		}
		CHECK_EQ(na, fa.ticks.size());
		CHECK_EQ(nb, fb.ticks.size());
	}
	k = TOE_GTOE_CTR_STATS;
#define CMP_GT(name) CHECK_EQ(ctr(TOE_KID_GTOE, k++), t->g->st.name);
	GTOE_STATS_FIELDS(CMP_GT)
#undef CMP_GT
	CHECK_EQ(ctr(TOE_KID_GTOE, GTI_listen_fail), 0);
	printf("hw csim: role tcp, open = accept: %zu frames sent, %zu records, compared with the software path\n",
	       ctx.size(), hw.size());

	/* an entry's limits beyond the endpoint's: refused at APPLY with its reason */
	reg_write(TOE_KID_GTOE, TOE_GTOE_CONNX(1, TOE_GTOE_CX_MSS), MSS + 1);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY), 11);
	run();
	check_header(TOE_KID_GTOE, 11, TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_ENTRY << 16);
	reg_write(TOE_KID_GTOE, TOE_GTOE_CONNX(1, TOE_GTOE_CX_MSS), 0);
	reg_write(TOE_KID_GTOE, TOE_GTOE_CONNX(0, TOE_GTOE_CX_WINDOW), 1024);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY), 12);
	run();
	check_header(TOE_KID_GTOE, 12, TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_ENTRY << 16);
	reg_write(TOE_KID_GTOE, TOE_GTOE_CONNX(0, TOE_GTOE_CX_WINDOW), 0);
	reg_write(TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY), 13);
	run();
	check_header(TOE_KID_GTOE, 13, TOE_STATUS_OK);
	CHECK(D.mac_tx.empty());

	sw_free(sw);
	free(t->g);
	free(t->gbuf);
	delete t;
}

/* The arbiter alone: frames queued on both inputs leave whole, alternating. */
void csim_tx_arb(void)
{
	std::vector<uint8_t> a(300), b(70);
	uint64_t c0 = ctr(TOE_KID_TXARB, 0), c1 = ctr(TOE_KID_TXARB, 1), cc = ctr(TOE_KID_TXARB, 4);
	for (size_t i = 0; i < a.size(); i++)
		a[i] = (uint8_t)i;
	for (size_t i = 0; i < b.size(); i++)
		b[i] = (uint8_t)(0x80 | i);
	auto put = [](hls::stream<hw_mac_beat> &s, const std::vector<uint8_t> &f) {
		for (size_t off = 0; off < f.size(); off += HW_MAC_BYTES) {
			hw_mac_beat x;
			size_t n = f.size() - off < HW_MAC_BYTES ? f.size() - off : HW_MAC_BYTES;
			x.data = 0;
			for (size_t i = 0; i < n; i++)
				x.data.range(8 * i + 7, 8 * i) = f[off + i];
			x.keep = hw_keep_all((int)n);
			x.strb = x.keep;
			x.last = off + n == f.size() ? 1 : 0;
			s.write(x);
		}
	};
	put(D.eth_tx, a);
	put(D.eth_tx, a);
	put(D.gtoe_tx, b);
	put(D.gtoe_tx, b);
	put(D.gtoe_tx, b);
	while (!D.eth_tx.empty() || !D.gtoe_tx.empty())
		tx_arb_top(D.eth_tx, D.gtoe_tx, D.mac_tx, D.stat[TOE_KID_TXARB]);
	/* gtoe_top was served last before: eth first, then alternating, then what is left */
	const std::vector<uint8_t> *want[5] = { &a, &b, &a, &b, &b };
	for (int i = 0; i < 5; i++) {
		CHECK(!D.mac_tx.empty());
		if (D.mac_tx.empty())
			break;
		CHECK(pop_frame(D.mac_tx) == *want[i]);
	}
	CHECK(D.mac_tx.empty());
	CHECK_EQ(ctr(TOE_KID_TXARB, 0) - c0, 2);
	CHECK_EQ(ctr(TOE_KID_TXARB, 1) - c1, 3);
	CHECK_EQ(ctr(TOE_KID_TXARB, 4) - cc, 3);
}

