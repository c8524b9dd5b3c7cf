/* gtoe_top.cpp - HLS top: the general TOE (kernels/toe/gtoe) for a role = tcp port.
 *
 * toed's own TCP connections to the exchange on the card, driven exactly as
 * the software backend's dp_tcp drives gtoe (daemon/dp/dp_tcp.c):
 *
 *  in   FRAME messages from eth_rx_top (whole TCP and ARP frames: net_rx
 *       again here, then gtoe_input_pkt, which parses the TCP options, or
 *       net_arp_input, which learns and answers), POLL ticks (gtoe_poll,
 *       ARP expiry, then connect every enabled entry of the connection table
 *       that waits: the next hop resolved first, reconnects backing off from
 *       100 ms to 5 s on the tick clock; an ACCEPT entry listens instead, and
 *       takes a connection as dp_tcp's accepted() does: from the entry's
 *       exchange and when it has none, else reset), the TX mailbox (bytes for one
 *       connection: the session layer's logon, heartbeats), and the mirror
 *       TOE's EV messages, passed through whole (fast_top has one TCP input).
 *  out  EV messages to fast_top as the mirror TOE writes them: OPEN when a
 *       connection is established, DATA with the in-order bytes, CLOSE when
 *       it ends (reason FIN or RST); the stream id is the entry's. Frames to
 *       transmit (SYN, ACKs, data, FIN, RST, ARP requests and replies) to
 *       tx_out, which tx_arb_top merges with eth_rx_top's replies.
 *
 * Order per call, as dp_thread: one input, then the events (bytes before the
 * event that ends a connection; bytes are consumed as soon as they are
 * copied into the message), then every segment gtoe has due.
 *
 * The connection table (TOE_GTOE_REG_CONN) and the per-connection state
 * (TOE_GTOE_REG_CST) are AXI-Lite windows of their own; see toe_regmap.h.
 * Each entry's MSS and receive window (TOE_GTOE_REG_CONNX) go to its
 * connection through gtoe_set_limits (after gtoe_connect, before the SYN
 * leaves) or its listener's gtoe_listen_limits.
 */
#include "hw_tops.h"
extern "C" {
#include "net/net_tx.h"
#include "toe/gtoe.h"
#include "toe/gtoe_frame.h"
}

struct gtoe_ctrs {
#define GT_FIELD(name) uint64_t name;
	TOE_GTOE_CTRS(GT_FIELD)
#undef GT_FIELD
};

static_assert(TOE_NCTR(TOE_GTOE_CTRS) <= TOE_GTOE_CTR_STATS, "gtoe counters overlap");
static_assert(TOE_GTOE_CONNX(0, 0) == TOE_GTOE_CONN(4 * TOE_HW_GTOE_CONNS / 4, 0) &&
		      TOE_GTOE_CONN_WORDS == 4 * TOE_HW_GTOE_CONNS + 4 * TOE_HW_GTOE_CONNS,
	      "the limits follow the 64 entries in the table's window");
static_assert(TOE_GTOE_CTR_STATS + (0 GTOE_STATS_FIELDS(TOE_CTR_ONE)) <= TOE_GTOE_CTR_ARP, "gtoe stats overlap");
static_assert(TOE_ST_CTR0 + 2 * (TOE_GTOE_CTR_ARP + (0 NET_ARP_STATS(TOE_CTR_ONE))) <= TOE_GTOE_ST_TX_DONE,
	      "gtoe status window");

/* dp_tcp's reconnect policy (dp_tcp.h), on the tick clock */
#define GT_BACKOFF_MIN_NS 100000000ull
#define GT_BACKOFF_MAX_NS 5000000000ull
#define GT_ARP_RETRY_NS 100000000ull
#define GT_TX_FRAME (NET_TX_HDR_MAX + 2048u)

enum { GT_WAIT = 0, GT_RESOLVING = 1, GT_CONNECTING = 2, GT_UP = 3, GT_LISTEN = 4 };

struct gt_entry {
	int32_t conn;
	uint32_t phase, ups, downs, last_down, attempts;
	uint64_t next_try, backoff, offset, bytes_in;
	int32_t listener;   /* ACCEPT: its gtoe listener, -1 none */
	uint32_t accept;    /* CTRL_ACCEPT, taken at APPLY */
	uint32_t mss, win;  /* the entry's limits (0: the kernel-wide values), taken at APPLY */
};

struct gt_state {
	struct gtoe g;
	struct net_cfg ncfg;
	struct net_stats st;   /* ARP counters (reported) and the re-parse's (not) */
	struct net_arp arp;
	struct gt_entry e[TOE_HW_GTOE_CONNS];
	uint32_t nconns, gateway, laddr;
	uint16_t ip_id;
};

static gt_state S;
static uint8_t gt_buf[TOE_HW_GTOE_BUF];
static uint8_t gt_frame[TOE_HW_MAX_FRAME];
static uint8_t gt_tx[GT_TX_FRAME];

static void mac_out(hls::stream<hw_mac_beat> &out, const uint8_t *frame, uint32_t len, gtoe_ctrs &c)
{
	hw_mac_write(out, frame, len);
	c.tx_octets += len;
}

static void ev_msg(hls::stream<hw_beat> &out, const gt_entry &e, uint32_t stream, uint8_t type, uint8_t reason,
		   const uint8_t *data, uint32_t len, uint64_t ts, gtoe_ctrs &c)
{
	hw_msg m;
	hw_msg_clear(m);
	m.kind = HW_MSG_EV;
	m.type = type;
	m.reason = reason;
	m.stream = (uint16_t)stream;
	m.flow = (uint16_t)stream; /* the feed's mirror flow: its sequence group (as dp_tcp) */
	m.offset = e.offset;
	m.ev_len = len;
	m.len = type == MTOE_EV_DATA ? len : 0;
	m.ts_ns = ts;
	hw_send(out, m, data);
	c.events++;
}

static int32_t entry_of(int32_t conn)
{
	uint32_t i;
	for (i = 0; i < TOE_HW_GTOE_CONNS; i++)
		if (i < S.nconns && S.e[i].conn == conn)
			return (int32_t)i;
	return -1;
}

/* ACCEPT: listen on our address and the entry's port, with its limits (dp_tcp_init's gtoe_listen). */
static void listen_entry(uint32_t i, const uint32_t *ce, gtoe_ctrs &c)
{
	gt_entry &e = S.e[i];
	int32_t l = gtoe_listen(&S.g, S.laddr, (uint16_t)(ce[TOE_GTOE_CE_PORTS] >> 16));
	if (l < 0) {
		c.listen_fail++;
		return;
	}
	gtoe_listen_limits(&S.g, l, (uint16_t)e.mss, e.win); /* checked at APPLY */
	e.listener = l;
	if (e.conn < 0)
		e.phase = GT_LISTEN;
}

/* A passive open on an entry's listener: the entry's connection if it comes
 * from the entry's exchange (and port, when given) and the entry has none,
 * else reset (dp_tcp's accepted()). Returns the entry or -1. */
static int32_t accept_conn(const uint32_t *ctab, const gtoe_event &ev, gtoe_ctrs &c)
{
	const gtoe_conn &cn = S.g.conn[ev.conn];
	int32_t x = -1;
	uint32_t i;
	for (i = 0; i < TOE_HW_GTOE_CONNS; i++)
		if (i < S.nconns && S.e[i].accept && S.e[i].listener == ev.listener)
			x = (int32_t)i;
	if (x >= 0) {
		const uint32_t *ce = &ctab[4 * x];
		uint16_t rport = (uint16_t)ce[TOE_GTOE_CE_PORTS];
		if (S.e[x].conn < 0 && cn.raddr == ce[TOE_GTOE_CE_RADDR] && (!rport || cn.rport == rport)) {
			S.e[x].conn = ev.conn;
			S.e[x].attempts++;
			c.accepts++;
			return x;
		}
	}
	c.accept_refused++;
	gtoe_abort(&S.g, ev.conn);
	gtoe_release(&S.g, ev.conn);
	return -1;
}

/* A connection ended: CLOSE on its stream if it was up, the slot released, a reconnect scheduled. */
static void conn_down(hls::stream<hw_beat> &out, uint32_t i, uint32_t stream, uint8_t type, uint8_t reason,
		      uint64_t now, gtoe_ctrs &c)
{
	gt_entry &e = S.e[i];
	int was_up = e.phase == GT_UP;
	gtoe_release(&S.g, e.conn);
	e.conn = -1;
	e.phase = e.accept && e.listener >= 0 ? GT_LISTEN : GT_WAIT; /* ACCEPT: listening again */
	e.downs++;
	e.last_down = (uint32_t)type | (uint32_t)reason << 8;
	c.closes++;
	if (was_up) {
		ev_msg(out, e, stream, MTOE_EV_CLOSE, type == GTOE_EV_RESET ? MTOE_CLOSE_RST : MTOE_CLOSE_FIN, 0, 0, now,
		       c);
		e.backoff = GT_BACKOFF_MIN_NS;
	} else {
		e.backoff = e.backoff ? e.backoff * 2 : GT_BACKOFF_MIN_NS;
		if (e.backoff > GT_BACKOFF_MAX_NS)
			e.backoff = GT_BACKOFF_MAX_NS;
	}
	e.next_try = now + e.backoff;
}

/* Bytes first (everything readable before an event that ends a connection), then events. */
static void pump(hls::stream<hw_beat> &out, const uint32_t *ctab, uint64_t now, gtoe_ctrs &c)
{
	uint32_t k, i;
	for (k = 0; k < 4 * TOE_HW_GTOE_CONNS + 64; k++) {
		int sent = 0;
		gtoe_event ev;
		for (i = 0; i < TOE_HW_GTOE_CONNS && !sent; i++) {
			gt_entry &e = S.e[i];
			const uint8_t *data;
			uint32_t n;
			if (i >= S.nconns || e.phase != GT_UP || !(n = gtoe_peek(&S.g, e.conn, &data)))
				continue;
			ev_msg(out, e, ctab[4 * i + TOE_GTOE_CE_STREAM], MTOE_EV_DATA, 0, data, n, now, c);
			e.offset += n;
			e.bytes_in += n;
			c.bytes_in += n;
			gtoe_consume(&S.g, e.conn, n);
			sent = 1;
		}
		if (sent)
			continue;
		if (!gtoe_ev_next(&S.g, &ev))
			break;
		int32_t x = entry_of(ev.conn);
		if (x < 0 && ev.type == GTOE_EV_CONNECTED && ev.listener >= 0)
			x = accept_conn(ctab, ev, c);
		if (x < 0)
			continue;
		uint32_t stream = ctab[4 * x + TOE_GTOE_CE_STREAM];
		gt_entry &e = S.e[x];
		if (ev.type == GTOE_EV_CONNECTED) {
			e.phase = GT_UP;
			e.offset = 0;
			e.ups++;
			c.established++;
			ev_msg(out, e, stream, MTOE_EV_OPEN, MTOE_OPEN_SYN, 0, 0, now, c);
		} else if (ev.type == GTOE_EV_PEER_CLOSED) {
			gtoe_shutdown(&S.g, e.conn);
			conn_down(out, (uint32_t)x, stream, GTOE_EV_CLOSED, ev.reason, now, c);
		} else if (ev.type == GTOE_EV_CLOSED || ev.type == GTOE_EV_RESET || ev.type == GTOE_EV_ERROR) {
			conn_down(out, (uint32_t)x, stream, ev.type, ev.reason, now, c);
		}
	}
}

/* Timers, then connect what waits (dp_tcp_tick). */
static void tick(hls::stream<hw_mac_beat> &tx, hls::stream<hw_beat> &evo, const uint32_t *ctab, uint64_t now,
		 gtoe_ctrs &c)
{
	uint32_t i;
	net_arp_expire(&S.arp, &S.st, now);
	gtoe_poll(&S.g, now);
	for (i = 0; i < TOE_HW_GTOE_CONNS; i++) {
		gt_entry &e = S.e[i];
		const uint32_t *ce = &ctab[4 * i];
		net_tx_l2 l2;
		uint32_t alen = 0;
		uint8_t req[NET_ARP_FRAME_MAX];
		if (i >= S.nconns)
			break;
		if (!(ce[TOE_GTOE_CE_CTRL] & TOE_GTOE_CTRL_ENABLE)) {
			if (e.conn >= 0) { /* disabled: FIN after what was queued; the slot is freed once closed */
				if (e.phase == GT_UP)
					ev_msg(evo, e, ce[TOE_GTOE_CE_STREAM], MTOE_EV_CLOSE, MTOE_CLOSE_FIN, 0, 0, now, c);
				gtoe_release(&S.g, e.conn);
				e.conn = -1;
				e.downs++;
				e.last_down = GTOE_EV_CLOSED;
				c.closes++;
			}
			if (e.listener >= 0) { /* and no more connections taken */
				gtoe_unlisten(&S.g, e.listener);
				e.listener = -1;
			}
			e.phase = GT_WAIT;
			e.next_try = 0;
			continue;
		}
		if (e.accept) {
			if (e.listener < 0)
				listen_entry(i, ce, c);
			continue;
		}
		if ((e.phase != GT_WAIT && e.phase != GT_RESOLVING) || now < e.next_try)
			continue;
		enum net_arp_result r = net_tx_route(&S.arp, &S.ncfg, &S.st, S.gateway, S.laddr, ce[TOE_GTOE_CE_RADDR],
						     now, &l2, req, sizeof req, &alen);
		if (alen) {
			c.arp_requests++;
			mac_out(tx, req, alen, c);
		}
		if (r != NET_ARP_OK) {
			e.phase = GT_RESOLVING;
			e.next_try = now + GT_ARP_RETRY_NS / 10;
			continue;
		}
		int32_t cn = gtoe_connect(&S.g, S.laddr, (uint16_t)(ce[TOE_GTOE_CE_PORTS] >> 16), ce[TOE_GTOE_CE_RADDR],
					  (uint16_t)ce[TOE_GTOE_CE_PORTS], now);
		e.attempts++;
		if (cn < 0) {
			e.phase = GT_WAIT;
			e.backoff = GT_BACKOFF_MAX_NS;
			e.next_try = now + e.backoff;
			continue;
		}
		gtoe_set_limits(&S.g, cn, (uint16_t)e.mss, e.win); /* before the SYN leaves; checked at APPLY */
		e.conn = cn;
		e.phase = GT_CONNECTING;
		c.connects++;
	}
}

/* Every segment gtoe has due, as frames (dp_tcp_flush). */
static void flush(hls::stream<hw_mac_beat> &tx, uint64_t now, gtoe_ctrs &c)
{
	uint32_t k;
	for (k = 0; k < 16 * TOE_HW_GTOE_CONNS; k++) {
		gtoe_seg seg;
		net_tx_l2 l2;
		uint32_t alen = 0, n;
		uint8_t req[NET_ARP_FRAME_MAX];
		if (!gtoe_tx_next(&S.g, now, &seg))
			break;
		enum net_arp_result r = net_tx_route(&S.arp, &S.ncfg, &S.st, S.gateway, seg.saddr, seg.daddr, now, &l2,
						     req, sizeof req, &alen);
		if (alen) {
			c.arp_requests++;
			mac_out(tx, req, alen, c);
		}
		if (r != NET_ARP_OK) {
			c.segs_no_route++;
			continue;
		}
		n = gtoe_frame(&seg, &l2, S.ip_id++, gt_tx, GT_TX_FRAME);
		if (!n) {
			c.frame_too_big++;
			continue;
		}
		c.segs_out++;
		mac_out(tx, gt_tx, n, c);
	}
}

static int configure(const uint32_t *cfg, const uint32_t *ctab, gtoe_ctrs &c)
{
	gtoe_cfg gc;
	uint32_t role, i, o = cfg[TOE_GTOE_CF_OPTS];
#define GT_ZERO(name) c.name = 0;
	TOE_GTOE_CTRS(GT_ZERO)
#undef GT_ZERO
	net_stats_init(&S.st);
	net_arp_init(&S.arp);
	S.ip_id = 0;
	for (i = 0; i < TOE_HW_GTOE_CONNS; i++) {
		S.e[i].conn = -1;
		S.e[i].phase = GT_WAIT;
		S.e[i].ups = S.e[i].downs = S.e[i].last_down = S.e[i].attempts = 0;
		S.e[i].next_try = S.e[i].backoff = S.e[i].offset = S.e[i].bytes_in = 0;
		S.e[i].listener = -1;
		S.e[i].accept = S.e[i].mss = S.e[i].win = 0;
	}
	S.nconns = 0;
	if (toe_hw_eth_decode(cfg, &S.ncfg, &role) != 0 || S.ncfg.naddr == 0)
		return TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_ADDRS << 16;
	if (cfg[TOE_GTOE_CF_NCONNS] > TOE_HW_GTOE_CONNS || cfg[TOE_GTOE_CF_NCONNS] > cfg[TOE_GTOE_CF_MAX_CONNS])
		return TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_CONNS << 16;
	S.nconns = cfg[TOE_GTOE_CF_NCONNS];
	S.gateway = cfg[TOE_ETH_CF_GATEWAY];
	S.laddr = S.ncfg.addr[0].ip;
	gtoe_cfg_default(&gc);
	gc.max_conns = cfg[TOE_GTOE_CF_MAX_CONNS];
	gc.rcv_buf = cfg[TOE_GTOE_CF_RCV_BUF];
	gc.snd_buf = cfg[TOE_GTOE_CF_SND_BUF];
	gc.mss = (uint16_t)cfg[TOE_ETH_CF_MSS];
	gc.quickack = (o & TOE_GTOE_OPT_QUICKACK) ? 1 : 0;
	gc.opt_ws = (o & TOE_GTOE_OPT_WS) ? 1 : 0;
	gc.opt_sack = (o & TOE_GTOE_OPT_SACK) ? 1 : 0;
	gc.opt_ts = (o & TOE_GTOE_OPT_TS) ? 1 : 0;
	gc.syn_retries = cfg[TOE_GTOE_CF_SYN_RETRIES];
	gc.isn_key = cfg[TOE_GTOE_CF_ISN_KEY];
	if (GTOE_BUF_BYTES(&gc) > TOE_HW_GTOE_BUF || gtoe_init(&S.g, &gc, gt_buf, TOE_HW_GTOE_BUF) != GTOE_OK)
		return TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_INIT << 16;
	for (i = 0; i < TOE_HW_GTOE_CONNS; i++) {
		const uint32_t *cx = &ctab[4 * TOE_HW_GTOE_CONNS + 4 * i]; /* TOE_GTOE_CONNX(i, 0) */
		uint32_t m = cx[TOE_GTOE_CX_MSS], w = cx[TOE_GTOE_CX_WINDOW];
		if (i >= S.nconns)
			break;
		if (gtoe_limits_check(&gc, m, w) != GTOE_OK)
			return TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_ENTRY << 16;
		S.e[i].mss = m;
		S.e[i].win = w;
		S.e[i].accept = (ctab[4 * i + TOE_GTOE_CE_CTRL] & TOE_GTOE_CTRL_ACCEPT) ? 1 : 0;
	}
	/* ACCEPT entries listen from APPLY on, as dp_tcp_init's do (a disabled one at its enable) */
	for (i = 0; i < TOE_HW_GTOE_CONNS; i++)
		if (i < S.nconns && S.e[i].accept && (ctab[4 * i + TOE_GTOE_CE_CTRL] & TOE_GTOE_CTRL_ENABLE))
			listen_entry(i, &ctab[4 * i], c);
	return TOE_STATUS_OK;
}

void gtoe_top(hls::stream<hw_beat> &frame_in, hls::stream<hw_beat> &mev_in, hls::stream<hw_beat> &ev_out,
	      hls::stream<hw_mac_beat> &tx_out, const uint32_t cfg[TOE_CFG_WORDS],
	      const uint32_t conn[TOE_GTOE_CONN_WORDS], const uint32_t txd[TOE_GTOE_TXD_WORDS],
	      uint32_t cst[TOE_GTOE_CST_WORDS], uint32_t stat[TOE_STAT_WORDS])
{
#pragma HLS INTERFACE axis port = frame_in
#pragma HLS INTERFACE axis port = mev_in
#pragma HLS INTERFACE axis port = ev_out
#pragma HLS INTERFACE axis port = tx_out
	HW_PRAGMA(HLS INTERFACE s_axilite port = cfg offset = TOE_REG_CFG bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = conn offset = TOE_GTOE_REG_CONN bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = txd offset = TOE_GTOE_REG_TXD bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = cst offset = TOE_GTOE_REG_CST bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = stat offset = TOE_REG_STAT bundle = control)
#pragma HLS INTERFACE ap_ctrl_none port = return

	static gtoe_ctrs c;
	static uint32_t applied = 0, status = TOE_STATUS_HELD, tx_done = 0, tx_taken = 0;
	static uint64_t now = 0;
	static uint8_t msg[TOE_GTOE_TX_BYTES];
	uint32_t i = 0, k;

	if (cfg[TOE_CF_APPLY] != applied) {
		applied = cfg[TOE_CF_APPLY];
		status = configure(cfg, conn, c);
		if (applied == 0)
			status = TOE_STATUS_HELD;
		tx_done = cfg[TOE_GTOE_CF_TX_SEQ]; /* a message written before APPLY is not sent */
		tx_taken = 0;
	}

	/* the mirror TOE's events: one whole message per call, on to fast_top */
	if (!mev_in.empty()) {
		hw_beat b;
		for (k = 0; k < HW_MAX_MSG / HW_BEAT_BYTES + 2; k++) {
#pragma HLS PIPELINE II = 1
			b = mev_in.read();
			ev_out.write(b);
			if (b.last)
				break;
		}
		c.mirror_msgs++;
	}

	if (status == TOE_STATUS_OK && cfg[TOE_GTOE_CF_TX_SEQ] != tx_done) {
		/* the mailbox: a message for one connection (dp_tcp_send) */
		uint32_t x = cfg[TOE_GTOE_CF_TX_CONN], len = cfg[TOE_GTOE_CF_TX_LEN];
		int32_t r = -1;
		tx_done = cfg[TOE_GTOE_CF_TX_SEQ];
		if (len > TOE_GTOE_TX_BYTES)
			len = TOE_GTOE_TX_BYTES;
		for (k = 0; k < TOE_GTOE_TX_BYTES; k++)
			msg[k] = (uint8_t)(txd[k / 4] >> (8 * (k % 4)));
		if (x < S.nconns && S.e[x].phase == GT_UP)
			r = gtoe_send(&S.g, S.e[x].conn, msg, len);
		tx_taken = r < 0 ? 0xffffffffu : (uint32_t)r;
		if (r > 0)
			c.bytes_out += (uint32_t)r;
		flush(tx_out, now, c);
	}

	if (!frame_in.empty()) {
		hw_msg m;
		hw_recv_hdr(frame_in, m);
		if (status != TOE_STATUS_OK) {
			if (m.len > 0)
				hw_drop_msg(frame_in);
			c.held++;
		} else if (m.kind == HW_MSG_POLL) {
			now = m.ts_ns;
			c.ticks++;
			tick(tx_out, ev_out, conn, now, c);
			pump(ev_out, conn, now, c);
			flush(tx_out, now, c);
		} else if (m.kind == HW_MSG_FRAME) {
			net_pkt pkt;
			net_stats scratch;
			uint32_t len = hw_recv_payload(frame_in, m, gt_frame, TOE_HW_MAX_FRAME), n;
			enum net_rx_verdict v;
			c.frames_in++;
			net_stats_init(&scratch); /* eth_rx_top counted this frame's parse already */
			v = net_rx(&S.ncfg, &scratch, gt_frame, len, m.ts_ns, &pkt);
			if (v == NET_RX_TCP) {
				gtoe_input_pkt(&S.g, &pkt, now);
			} else if (v == NET_RX_ARP) {
				n = net_arp_input(&S.arp, &S.ncfg, &S.st, &pkt, now, gt_tx, GT_TX_FRAME);
				if (n) {
					c.arp_replies++;
					mac_out(tx_out, gt_tx, n, c);
				}
			} else {
				c.not_ours++;
			}
			pump(ev_out, conn, m.ts_ns, c);
			flush(tx_out, now, c);
		} else if (m.len > 0) {
			hw_drop_msg(frame_in);
		}
	}

	hw_stat_hdr(stat, TOE_KID_GTOE, applied, status, TOE_GTOE_CTR_ARP + (0 NET_ARP_STATS(TOE_CTR_ONE)));
#define GT_PUT(name) hw_ctr(stat, i++, c.name);
	TOE_GTOE_CTRS(GT_PUT)
#undef GT_PUT
	i = TOE_GTOE_CTR_STATS;
#define GT_PUT_ST(name) hw_ctr(stat, i++, S.g.st.name);
	GTOE_STATS_FIELDS(GT_PUT_ST)
#undef GT_PUT_ST
	i = TOE_GTOE_CTR_ARP;
#define GT_PUT_ARP(name) hw_ctr(stat, i++, S.st.arp.name);
	NET_ARP_STATS(GT_PUT_ARP)
#undef GT_PUT_ARP
	stat[TOE_GTOE_ST_TX_DONE] = tx_done;
	stat[TOE_GTOE_ST_TX_TAKEN] = tx_taken;

	for (k = 0; k < TOE_HW_GTOE_CONNS; k++) {
		const gt_entry &e = S.e[k];
		uint32_t *w = &cst[16 * k];
		struct gtoe_info in;
		int have = k < S.nconns && e.conn >= 0 && gtoe_info(&S.g, e.conn, &in) == 0;
		w[TOE_GTOE_CS_PHASE] = e.phase;
		w[TOE_GTOE_CS_STATE] = have ? in.state : 0;
		w[TOE_GTOE_CS_SRTT_US] = have ? (uint32_t)(in.srtt_ns / 1000) : 0;
		w[TOE_GTOE_CS_CWND] = have ? in.cwnd : 0;
		w[TOE_GTOE_CS_SND_WND] = have ? in.snd_wnd : 0;
		w[TOE_GTOE_CS_RCV_WND] = have ? in.rcv_wnd : 0;
		w[TOE_GTOE_CS_UPS] = e.ups;
		w[TOE_GTOE_CS_DOWNS] = e.downs;
		w[TOE_GTOE_CS_LAST_DOWN] = e.last_down;
		w[TOE_GTOE_CS_RETRANS] = have ? (uint32_t)in.st.retrans : 0;
		w[TOE_GTOE_CS_BYTES_IN_LO] = (uint32_t)e.bytes_in;
		w[TOE_GTOE_CS_BYTES_IN_HI] = (uint32_t)(e.bytes_in >> 32);
		w[TOE_GTOE_CS_BYTES_OUT_LO] = have ? (uint32_t)in.st.bytes_out : 0;
		w[TOE_GTOE_CS_BYTES_OUT_HI] = have ? (uint32_t)(in.st.bytes_out >> 32) : 0;
		w[TOE_GTOE_CS_ATTEMPTS] = e.attempts;
		w[15] = 0;
	}
}
