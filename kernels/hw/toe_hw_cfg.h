/* toe_hw_cfg.h - configuration words of the card, both directions (C and C++).
 *
 * Host side (the daemon's XRT backend, the C-simulation): toe_hw_cfg_writes()
 * turns the software backend's struct rx_cfg (kernels/rx/rx_pipe.h) into the
 * register writes of toe_regmap.h, so the card runs with exactly the
 * configuration the software path would; toe_hw_prog_word() gives word n of
 * the template program. Programming order:
 *
 *   1. every write of toe_hw_cfg_writes() (configuration words, any order),
 *      and with the 4 x 10G xclbin toe_hw_port_writes() for each configured
 *      port 1..3;
 *   2. the HBM buffer addresses (TOE_HBM_REG_ADDR(ch), low word then high);
 *   3. the template program: word n = toe_hw_prog_word(prog, n) at
 *      TOE_FAST_PROG(4 * n) for n < TOE_PROG_BYTES / 4;
 *   4. TOE_CF_APPLY = gen (non-zero, different from the running one) to each
 *      kernel in the order of toe_hw_apply_order[] (downstream first), then
 *      to ports 1..3's eth_rx_tops (TOE_KID_ETH_PORT(n)).
 *
 * Kernel side (the HLS tops): toe_hw_eth_decode(), toe_hw_mtoe_decode() and
 * toe_hw_prog_decode() rebuild net_cfg, mtoe_cfg and struct fast_prog from
 * the words, field by field (no pointer casts: the tops are for synthesis).
 * The program is decoded from its documented little-endian layout
 * (doc/template-program.md), independently of the host's struct layout.
 *
 * Everything here is static inline and uses only the C subset.
 */
#ifndef TOE_HW_CFG_H
#define TOE_HW_CFG_H

#include <stdint.h>
#include "toe_regmap.h"
#include "rx/rx_pipe.h"
#include "fast/fast_prog.h"
#include "toe/gtoe.h"

struct toe_hw_wr {
	uint32_t kid; /* TOE_KID_* */
	uint32_t off; /* byte offset in that kernel's AXI-Lite space */
	uint32_t val;
};

/* What rx_cfg does not hold. */
struct toe_hw_opts {
	uint32_t role;       /* TOE_ROLE_MIRROR / TOE_ROLE_MAIN */
	uint32_t gateway;    /* IPv4, host order (general TOE) */
	uint32_t mss;        /* general TOE */
	uint32_t ring_slots; /* records per HBM channel, power of two */
};

#define TOE_HW_CFG_MAX_WRITES 512

/* toe_hw_cfg_writes() errors */
#define TOE_HWCFG_E_CONNS (-1)  /* mtoe.max_conns above TOE_HW_TCP_STREAMS */
#define TOE_HWCFG_E_BUF (-2)    /* max_conns * window above TOE_HW_MTOE_BUF */
#define TOE_HWCFG_E_FLOWS (-3)  /* nflows above TOE_MTOE_MAX_FLOWS */
#define TOE_HWCFG_E_UDP (-4)    /* nudp above TOE_HW_UDP_STREAMS */
#define TOE_HWCFG_E_ADDRS (-5)  /* naddr above TOE_ETH_MAX_ADDRS */
#define TOE_HWCFG_E_SLOTS (-6)  /* ring_slots 0, not a power of two or above 2^28 */
#define TOE_HWCFG_E_CAP (-7)    /* w[] too small */
#define TOE_HWCFG_E_PORT (-9)   /* a flow or UDP port on a network port >= TOE_HW_MAX_PORTS, or port_writes'
				 * port out of 1..3 (or role tcp there: gtoe_top serves port 0) */

static const uint32_t toe_hw_apply_order[5] = { TOE_KID_HBM, TOE_KID_FAST, TOE_KID_UDP, TOE_KID_MTOE,
						 TOE_KID_ETH_RX };
/* With the general TOE (role tcp): gtoe_top after the receive path's
 * downstream kernels, before eth_rx_top. (tx_arb_top has no configuration.) */
static const uint32_t toe_hw_apply_order_tcp[6] = { TOE_KID_HBM, TOE_KID_FAST, TOE_KID_UDP, TOE_KID_MTOE,
						     TOE_KID_GTOE, TOE_KID_ETH_RX };

static inline int toe_hw_wr_put(struct toe_hw_wr *w, uint32_t cap, uint32_t *n, uint32_t kid, uint32_t off,
				uint32_t val)
{
	if (*n >= cap)
		return -1;
	w[*n].kid = kid;
	w[*n].off = off;
	w[*n].val = val;
	(*n)++;
	return 0;
}

/* eth_rx_top's words 1..47 (network layers, role, addresses) from one
 * port's net_cfg, for kernel kid. Nonzero when w[] is full. */
static inline int toe_hw_net_words(const struct net_cfg *net, uint32_t role, uint32_t gateway, uint32_t mss,
				   uint32_t kid, struct toe_hw_wr *w, uint32_t cap, uint32_t *np)
{
	uint32_t i, n = *np;
	int e = 0;
	e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(TOE_ETH_CF_FLAGS), net->flags);
	e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(TOE_ETH_CF_MTU), net->mtu);
	e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(TOE_ETH_CF_ROLE), role);
	e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(TOE_ETH_CF_GATEWAY), gateway);
	e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(TOE_ETH_CF_MSS), mss);
	e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(TOE_ETH_CF_NADDR), net->naddr);
	for (i = 0; i < TOE_ETH_MAX_ADDRS; i++) {
		const struct net_if_addr *a = &net->addr[i];
		uint32_t base = TOE_ETH_CF_ADDR(i);
		if (i >= net->naddr)
			break;
		e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(base + TOE_ETH_ADDR_IP), a->ip);
		e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(base + TOE_ETH_ADDR_MASK), a->mask);
		e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(base + TOE_ETH_ADDR_MAC_HI),
				   (uint32_t)a->mac[0] << 8 | a->mac[1]);
		e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(base + TOE_ETH_ADDR_MAC_LO),
				   (uint32_t)a->mac[2] << 24 | (uint32_t)a->mac[3] << 16 | (uint32_t)a->mac[4] << 8 |
					   a->mac[5]);
		e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(base + TOE_ETH_ADDR_VLAN), a->vlan);
	}
	*np = n;
	return e;
}

/* eth_rx_top's words 1..47 for port 0 (cfg->net, o's role), for kernel kid:
 * gtoe_top takes the same ones. Nonzero when w[] is full. */
static inline int toe_hw_eth_words(const struct rx_cfg *cfg, const struct toe_hw_opts *o, uint32_t kid,
				   struct toe_hw_wr *w, uint32_t cap, uint32_t *np)
{
	return toe_hw_net_words(&cfg->net, o->role, o->gateway, o->mss, kid, w, cap, np);
}

/* The 4 x 10G build: the writes of port `port` (1..3)'s eth_rx_top
 * (TOE_KID_ETH_PORT(port)) from cfg->net_port[port - 1] with its role
 * (TOE_ROLE_MIRROR or TOE_ROLE_MAIN), its port word with NO_TICK (port 0's
 * eth_rx_top sends the ticks). Append to w[*np..cap); 0 or TOE_HWCFG_E_*.
 * Apply these kernels after toe_hw_apply_order's (they are upstream). */
static inline int toe_hw_port_writes(const struct rx_cfg *cfg, uint32_t port, uint32_t role, struct toe_hw_wr *w,
				     uint32_t cap, uint32_t *np)
{
	uint32_t n = *np, kid;
	int e = 0;
	if (port < 1 || port >= TOE_HW_MAX_PORTS || role == TOE_ROLE_TCP)
		return TOE_HWCFG_E_PORT;
	if (cfg->net_port[port - 1].naddr > TOE_ETH_MAX_ADDRS)
		return TOE_HWCFG_E_ADDRS;
	kid = TOE_KID_ETH_PORT(port);
	e |= toe_hw_net_words(&cfg->net_port[port - 1], role, 0, 0, kid, w, cap, &n);
	e |= toe_hw_wr_put(w, cap, &n, kid, TOE_CFG(TOE_ETH_CF_PORT), port | TOE_ETH_PORT_NO_TICK);
	if (e)
		return TOE_HWCFG_E_CAP;
	*np = n;
	return 0;
}

/* The configuration writes for cfg (step 1 above). Returns how many were
 * written to w[0..cap), or a TOE_HWCFG_E_* code. */
static inline int toe_hw_cfg_writes(const struct rx_cfg *cfg, const struct toe_hw_opts *o, struct toe_hw_wr *w,
				    uint32_t cap)
{
	uint32_t n = 0, i, e = 0, mask = 0, sess_lo, sess_hi;
	const struct mtoe_cfg *m = &cfg->mtoe;

	if (m->max_conns > TOE_HW_TCP_STREAMS)
		return TOE_HWCFG_E_CONNS;
	if ((uint64_t)m->max_conns * m->window > TOE_HW_MTOE_BUF)
		return TOE_HWCFG_E_BUF;
	if (m->nflows > TOE_MTOE_MAX_FLOWS)
		return TOE_HWCFG_E_FLOWS;
	if (cfg->nudp > TOE_HW_UDP_STREAMS)
		return TOE_HWCFG_E_UDP;
	if (cfg->net.naddr > TOE_ETH_MAX_ADDRS)
		return TOE_HWCFG_E_ADDRS;
	if (o->ring_slots == 0 || (o->ring_slots & (o->ring_slots - 1)) != 0 || o->ring_slots > (1u << 28))
		return TOE_HWCFG_E_SLOTS;
	for (i = 0; i < TOE_MTOE_MAX_FLOWS; i++)
		if (i < m->nflows && m->flows[i].in_port >= TOE_HW_MAX_PORTS)
			return TOE_HWCFG_E_PORT;
	for (i = 0; i < TOE_HW_UDP_STREAMS; i++)
		if (i < cfg->nudp && cfg->udp[i].in_port >= TOE_HW_MAX_PORTS)
			return TOE_HWCFG_E_PORT;

	/* hbm_writer_top */
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_HBM, TOE_CFG(TOE_HBM_CF_RING_SLOTS), o->ring_slots);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_HBM, TOE_CFG(TOE_HBM_CF_READ_INDEX), 0);

	/* fast_top */
	for (i = 0; i < TOE_HW_UDP_STREAMS; i++)
		if (i < cfg->nudp && cfg->udp[i].framing == FAST_FRAMING_DATAGRAM)
			mask |= 1u << i;
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_FAST, TOE_CFG(TOE_FAST_CF_TCP_STREAMS), m->max_conns);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_FAST, TOE_CFG(TOE_FAST_CF_NUDP), cfg->nudp);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_FAST, TOE_CFG(TOE_FAST_CF_DGRAM_MASK), mask);
	/* session streams (toed's own connections whose session the host runs); always written, so that
	 * a mask a previous run left in the registers never survives */
	sess_lo = 0;
	sess_hi = 0;
	for (i = 0; i < TOE_HW_TCP_STREAMS; i++)
		if (i < m->max_conns && cfg->sess[i]) {
			if (i < 32)
				sess_lo |= 1u << i;
			else
				sess_hi |= 1u << (i - 32);
		}
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_FAST, TOE_CFG(TOE_FAST_CF_SESS_LO), sess_lo);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_FAST, TOE_CFG(TOE_FAST_CF_SESS_HI), sess_hi);

	/* udp_top */
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_UDP, TOE_CFG(TOE_UDP_CF_NPORTS), cfg->nudp);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_UDP, TOE_CFG(TOE_UDP_CF_STREAM_BASE), m->max_conns);
	for (i = 0; i < TOE_HW_UDP_STREAMS; i++)
		if (i < cfg->nudp)
			e |= toe_hw_wr_put(w, cap, &n, TOE_KID_UDP, TOE_CFG(TOE_UDP_CF_PORT(i)),
					   (uint32_t)cfg->udp[i].port | (uint32_t)cfg->udp[i].framing << 16 |
						   (uint32_t)cfg->udp[i].in_port << 24);

	/* mirror_toe_top */
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_MAX_CONNS), m->max_conns);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_WINDOW), m->window);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_MAX_RANGES), m->max_ranges);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_NFLOWS), m->nflows);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_GAP_NS_LO), (uint32_t)m->gap_timeout_ns);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_GAP_NS_HI),
			   (uint32_t)(m->gap_timeout_ns >> 32));
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_IDLE_NS_LO), (uint32_t)m->idle_timeout_ns);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_IDLE_NS_HI),
			   (uint32_t)(m->idle_timeout_ns >> 32));
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_LINGER_NS_LO), (uint32_t)m->linger_ns);
	e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_LINGER_NS_HI),
			   (uint32_t)(m->linger_ns >> 32));
	for (i = 0; i < TOE_MTOE_MAX_FLOWS; i++) {
		const struct mtoe_flow *f = &m->flows[i];
		if (i >= m->nflows)
			break;
		e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_FLOW(i) + TOE_MTOE_FLOW_EX_ADDR),
				   f->ex_addr);
		e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_FLOW(i) + TOE_MTOE_FLOW_PEER_ADDR),
				   f->peer_addr);
		e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_FLOW(i) + TOE_MTOE_FLOW_PORTS),
				   (uint32_t)f->ex_port | (uint32_t)f->peer_port << 16);
	}
	for (i = 0; i < TOE_MTOE_MAX_FLOWS; i += 4) {
		uint32_t j, v = 0;
		if (i >= m->nflows)
			break;
		for (j = 0; j < 4; j++)
			if (i + j < m->nflows)
				v |= (uint32_t)(m->flows[i + j].in_port & 0xffu) << (8 * j);
		e |= toe_hw_wr_put(w, cap, &n, TOE_KID_MTOE, TOE_CFG(TOE_MTOE_CF_FLOW_PORT(i)), v);
	}

	/* eth_rx_top */
	e |= toe_hw_eth_words(cfg, o, TOE_KID_ETH_RX, w, cap, &n);
	if (e)
		return TOE_HWCFG_E_CAP;
	return (int)n;
}

/* An entry of gtoe_top's connection table: one TCP feed of a role = tcp
 * port, as dp_tcp_init lists them (exchange address and port, the vendor
 * port as our local port, the stream of its mirror flow; open = accept:
 * listen on the local port, take the exchange's connection). mss and
 * window: the entry's limits, 0 for gc's (dp_setup_card writes each feed's,
 * [feed.NAME] mss and window, gc's the largest of them). */
struct toe_hw_gtoe_conn {
	uint32_t raddr;
	uint16_t rport, lport;
	uint32_t stream;
	uint32_t enable;
	uint32_t accept;
	uint32_t mss;
	uint32_t window;
};

#define TOE_HWCFG_E_GTOE (-8)   /* more entries than TOE_HW_GTOE_CONNS or than gc->max_conns,
				 * or buffers beyond TOE_HW_GTOE_BUF, or an option the card lacks,
				 * or an entry's MSS or window beyond gc's, or ACCEPT entries
				 * without a local port, sharing one, or more than GTOE_MAX_LISTEN */

/* gtoe_top's writes: the eth words from cfg/o, then the general TOE's from
 * gc (the struct gtoe_cfg the software backend gives gtoe_init: max_conns,
 * rcv_buf, snd_buf, mss, option switches, syn_retries, isn_key; the other
 * timers are gtoe_cfg_default()'s on the card), then the n entries of the
 * connection table. Appends to w[*np..cap); returns 0 or TOE_HWCFG_E_*. */
static inline int toe_hw_gtoe_writes(const struct rx_cfg *cfg, const struct toe_hw_opts *o,
				     const struct gtoe_cfg *gc, const struct toe_hw_gtoe_conn *c, uint32_t nc,
				     struct toe_hw_wr *w, uint32_t cap, uint32_t *np)
{
	uint32_t i, n = *np, k = TOE_KID_GTOE;
	int e = 0;
	if (nc > TOE_HW_GTOE_CONNS || nc > gc->max_conns || GTOE_BUF_BYTES(gc) > TOE_HW_GTOE_BUF)
		return TOE_HWCFG_E_GTOE;
	if (cfg->net.naddr > TOE_ETH_MAX_ADDRS)
		return TOE_HWCFG_E_ADDRS;
	if (gc->mss != o->mss)
		return TOE_HWCFG_E_GTOE;
	for (i = 0; i < TOE_HW_GTOE_CONNS && i < nc; i++) {
		uint32_t j, nacc = 0;
		if (gtoe_limits_check(gc, c[i].mss, c[i].window) != GTOE_OK)
			return TOE_HWCFG_E_GTOE;
		if (!c[i].accept)
			continue;
		if (!c[i].lport)
			return TOE_HWCFG_E_GTOE;
		for (j = 0; j < TOE_HW_GTOE_CONNS && j < nc; j++) {
			if (c[j].accept && j < i)
				nacc++;
			if (j != i && c[j].accept && c[j].lport == c[i].lport)
				return TOE_HWCFG_E_GTOE;
		}
		if (nacc >= GTOE_MAX_LISTEN)
			return TOE_HWCFG_E_GTOE;
	}
	e |= toe_hw_eth_words(cfg, o, k, w, cap, &n);
	e |= toe_hw_wr_put(w, cap, &n, k, TOE_CFG(TOE_GTOE_CF_NCONNS), nc);
	e |= toe_hw_wr_put(w, cap, &n, k, TOE_CFG(TOE_GTOE_CF_MAX_CONNS), gc->max_conns);
	e |= toe_hw_wr_put(w, cap, &n, k, TOE_CFG(TOE_GTOE_CF_RCV_BUF), gc->rcv_buf);
	e |= toe_hw_wr_put(w, cap, &n, k, TOE_CFG(TOE_GTOE_CF_SND_BUF), gc->snd_buf);
	e |= toe_hw_wr_put(w, cap, &n, k, TOE_CFG(TOE_GTOE_CF_OPTS),
			   (gc->quickack ? TOE_GTOE_OPT_QUICKACK : 0) | (gc->opt_ws ? TOE_GTOE_OPT_WS : 0) |
				   (gc->opt_sack ? TOE_GTOE_OPT_SACK : 0) | (gc->opt_ts ? TOE_GTOE_OPT_TS : 0));
	e |= toe_hw_wr_put(w, cap, &n, k, TOE_CFG(TOE_GTOE_CF_SYN_RETRIES), gc->syn_retries);
	e |= toe_hw_wr_put(w, cap, &n, k, TOE_CFG(TOE_GTOE_CF_ISN_KEY), gc->isn_key);
	for (i = 0; i < TOE_HW_GTOE_CONNS; i++) {
		if (i >= nc)
			break;
		e |= toe_hw_wr_put(w, cap, &n, k, TOE_GTOE_CONN(i, TOE_GTOE_CE_RADDR), c[i].raddr);
		e |= toe_hw_wr_put(w, cap, &n, k, TOE_GTOE_CONN(i, TOE_GTOE_CE_PORTS),
				   (uint32_t)c[i].rport | (uint32_t)c[i].lport << 16);
		e |= toe_hw_wr_put(w, cap, &n, k, TOE_GTOE_CONN(i, TOE_GTOE_CE_STREAM), c[i].stream);
		e |= toe_hw_wr_put(w, cap, &n, k, TOE_GTOE_CONN(i, TOE_GTOE_CE_CTRL),
				   (c[i].enable ? TOE_GTOE_CTRL_ENABLE : 0) | (c[i].accept ? TOE_GTOE_CTRL_ACCEPT : 0));
		e |= toe_hw_wr_put(w, cap, &n, k, TOE_GTOE_CONNX(i, TOE_GTOE_CX_MSS), c[i].mss);
		e |= toe_hw_wr_put(w, cap, &n, k, TOE_GTOE_CONNX(i, TOE_GTOE_CX_WINDOW), c[i].window);
	}
	if (e)
		return TOE_HWCFG_E_CAP;
	*np = n;
	return 0;
}

/* Word n of the template program as the card holds it (step 3 above): bytes
 * 4n..4n+3 of struct fast_prog, little-endian. The struct's bytes are the
 * documented format on a little-endian host (doc/template-program.md). */
static inline uint32_t toe_hw_prog_word(const struct fast_prog *p, uint32_t n)
{
	const uint8_t *b = (const uint8_t *)p;
	uint32_t off = 4 * n;
	if (off + 4 > sizeof(*p))
		return 0;
	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24;
}

/* ---- kernel side ------------------------------------------------------- */

/* net_cfg and role from eth_rx_top's words; 0, or -1 when NADDR is too big. */
static inline int toe_hw_eth_decode(const uint32_t *cf, struct net_cfg *nc, uint32_t *role)
{
	uint32_t i;
	net_cfg_init(nc);
	nc->flags = cf[TOE_ETH_CF_FLAGS];
	nc->mtu = cf[TOE_ETH_CF_MTU];
	*role = cf[TOE_ETH_CF_ROLE];
	if (cf[TOE_ETH_CF_NADDR] > TOE_ETH_MAX_ADDRS)
		return -1;
	for (i = 0; i < TOE_ETH_MAX_ADDRS; i++) {
		const uint32_t *a = &cf[TOE_ETH_CF_ADDR(i)];
		uint8_t mac[6];
		if (i >= cf[TOE_ETH_CF_NADDR])
			break;
		mac[0] = (uint8_t)(a[TOE_ETH_ADDR_MAC_HI] >> 8);
		mac[1] = (uint8_t)a[TOE_ETH_ADDR_MAC_HI];
		mac[2] = (uint8_t)(a[TOE_ETH_ADDR_MAC_LO] >> 24);
		mac[3] = (uint8_t)(a[TOE_ETH_ADDR_MAC_LO] >> 16);
		mac[4] = (uint8_t)(a[TOE_ETH_ADDR_MAC_LO] >> 8);
		mac[5] = (uint8_t)a[TOE_ETH_ADDR_MAC_LO];
		net_cfg_add(nc, a[TOE_ETH_ADDR_IP], a[TOE_ETH_ADDR_MASK], mac, (uint16_t)a[TOE_ETH_ADDR_VLAN]);
	}
	return 0;
}

/* mtoe_cfg from mirror_toe_top's words; 0, or -1 when NFLOWS is too big
 * (the rest is checked by mtoe_init). */
static inline int toe_hw_mtoe_decode(const uint32_t *cf, struct mtoe_cfg *mc)
{
	uint32_t i;
	mtoe_cfg_default(mc);
	mc->max_conns = cf[TOE_MTOE_CF_MAX_CONNS];
	mc->window = cf[TOE_MTOE_CF_WINDOW];
	mc->max_ranges = cf[TOE_MTOE_CF_MAX_RANGES];
	mc->nflows = cf[TOE_MTOE_CF_NFLOWS];
	mc->gap_timeout_ns = (uint64_t)cf[TOE_MTOE_CF_GAP_NS_HI] << 32 | cf[TOE_MTOE_CF_GAP_NS_LO];
	mc->idle_timeout_ns = (uint64_t)cf[TOE_MTOE_CF_IDLE_NS_HI] << 32 | cf[TOE_MTOE_CF_IDLE_NS_LO];
	mc->linger_ns = (uint64_t)cf[TOE_MTOE_CF_LINGER_NS_HI] << 32 | cf[TOE_MTOE_CF_LINGER_NS_LO];
	if (mc->nflows > TOE_MTOE_MAX_FLOWS)
		return -1;
	for (i = 0; i < TOE_MTOE_MAX_FLOWS; i++) {
		const uint32_t *f = &cf[TOE_MTOE_CF_FLOW(i)];
		if (i >= mc->nflows)
			break;
		mc->flows[i].ex_addr = f[TOE_MTOE_FLOW_EX_ADDR];
		mc->flows[i].peer_addr = f[TOE_MTOE_FLOW_PEER_ADDR];
		mc->flows[i].ex_port = (uint16_t)f[TOE_MTOE_FLOW_PORTS];
		mc->flows[i].peer_port = (uint16_t)(f[TOE_MTOE_FLOW_PORTS] >> 16);
		mc->flows[i].in_port = (uint16_t)((cf[TOE_MTOE_CF_FLOW_PORT(i)] >> (8 * (i % 4))) & 0xffu);
	}
	return 0;
}

/* Little-endian fields of the program window. */
static inline uint32_t toe_hw_pb(const uint32_t *w, uint32_t off)
{
	return (w[off >> 2] >> (8 * (off & 3))) & 0xffu;
}

static inline uint32_t toe_hw_p16(const uint32_t *w, uint32_t off)
{
	return toe_hw_pb(w, off) | toe_hw_pb(w, off + 1) << 8;
}

static inline uint32_t toe_hw_p32(const uint32_t *w, uint32_t off)
{
	return toe_hw_p16(w, off) | toe_hw_p16(w, off + 2) << 16;
}

/* struct fast_prog from the template memory words (doc/template-program.md).
 * Returns 0, or TOE_FAST_BAD_MAGIC / _VERSION / _COUNTS (a count above its
 * array): never run such a program. */
static inline int toe_hw_prog_decode(const uint32_t *w, struct fast_prog *p)
{
	uint32_t i, j, o;
	p->magic = toe_hw_p32(w, 0);
	p->version = (uint16_t)toe_hw_p16(w, 4);
	p->ntpl = (uint16_t)toe_hw_p16(w, 6);
	p->ninstr = (uint16_t)toe_hw_p16(w, 8);
	p->ndict = (uint16_t)toe_hw_p16(w, 10);
	p->nconst = (uint16_t)toe_hw_p16(w, 12);
	p->npool = (uint16_t)toe_hw_p16(w, 14);
	for (i = 0; i < FAST_MAX_TEMPLATES; i++) {
		o = TOE_PROG_OFF_TPL + 12 * i;
		p->tpl[i].id = toe_hw_p32(w, o);
		p->tpl[i].first = (uint16_t)toe_hw_p16(w, o + 4);
		p->tpl[i].end = (uint16_t)toe_hw_p16(w, o + 6);
		p->tpl[i].kind = (uint8_t)toe_hw_pb(w, o + 8);
		for (j = 0; j < 3; j++)
			p->tpl[i].pad[j] = (uint8_t)toe_hw_pb(w, o + 9 + j);
	}
	for (i = 0; i < FAST_MAX_INSTR; i++) {
		struct fast_instr *in = &p->instr[i];
		o = TOE_PROG_OFF_INSTR + 16 * i;
		in->kind = (uint8_t)toe_hw_pb(w, o);
		in->op = (uint8_t)toe_hw_pb(w, o + 1);
		in->flags = (uint8_t)toe_hw_pb(w, o + 2);
		in->tick = (uint8_t)toe_hw_pb(w, o + 3);
		in->dict = (uint16_t)toe_hw_p16(w, o + 4);
		in->aux = (uint16_t)toe_hw_p16(w, o + 6);
		in->init = (uint16_t)toe_hw_p16(w, o + 8);
		in->scale = (int8_t)(uint8_t)toe_hw_pb(w, o + 10);
		in->depth = (uint8_t)toe_hw_pb(w, o + 11);
		in->fid = toe_hw_p32(w, o + 12);
	}
	for (i = 0; i < FAST_MAX_CONST; i++) {
		struct fast_const *c = &p->consts[i];
		o = TOE_PROG_OFF_CONST + 16 * i;
		c->i = (int64_t)((uint64_t)toe_hw_p32(w, o) | (uint64_t)toe_hw_p32(w, o + 4) << 32);
		c->exp = (int32_t)toe_hw_p32(w, o + 8);
		c->off = (uint16_t)toe_hw_p16(w, o + 12);
		c->len = (uint16_t)toe_hw_p16(w, o + 14);
	}
	for (i = 0; i < FAST_MAX_POOL; i++)
		p->pool[i] = (uint8_t)toe_hw_pb(w, TOE_PROG_OFF_POOL + i);
	if (p->magic != FAST_PROG_MAGIC)
		return TOE_FAST_BAD_MAGIC;
	if (p->version != FAST_PROG_VERSION)
		return TOE_FAST_BAD_VERSION;
	if (p->ntpl > FAST_MAX_TEMPLATES || p->ninstr > FAST_MAX_INSTR || p->ndict > FAST_MAX_DICT ||
	    p->nconst > FAST_MAX_CONST || p->npool > FAST_MAX_POOL)
		return TOE_FAST_BAD_COUNTS;
	return 0;
}

#endif
