/* dp_setup.c - toed.conf into each component's settings (see dp_setup.h). */
#include "dp/dp_setup.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fast/fast_stream.h"
#include "toe/shm.h"

_Static_assert(TOED_MAX_GROUPS + 1 <= RX_MAX_GROUPS, "named groups and the default one fit the pipeline");
_Static_assert(TOED_MAX_LINES <= SEQ_MAX_LINES, "a group's feeds fit its lines");

_Static_assert(TOED_MAX_PORTS <= RX_MAX_PORTS, "every port of the configuration is a port of the pipeline");

/* The flows of port `port`'s TCP feeds, appended to m (each selecting frames of that port only). */
static void add_flows(const struct toed_config *c, uint32_t port, struct mtoe_cfg *m, uint16_t flow_feed[TOED_MAX_FEEDS])
{
	for (uint32_t i = 0; i < c->nfeeds && m->nflows < MTOE_MAX_FLOWS; i++) {
		const struct toed_feed *f = &c->feed[i];
		if (f->protocol != TOED_PROTO_TCP || f->port != port)
			continue;
		struct mtoe_flow *fl = &m->flows[m->nflows];
		fl->ex_addr = f->exchange.ip;
		fl->ex_port = (uint16_t)f->exchange.port;
		fl->peer_addr = f->vendor.ip;
		fl->peer_port = (uint16_t)f->vendor.port;
		fl->in_port = (uint16_t)port;
		fl->pad = 0;
		if (flow_feed)
			flow_feed[m->nflows] = (uint16_t)i;
		m->nflows++;
	}
}

uint32_t dp_setup_mtoe(const struct toed_config *c, uint32_t port, struct mtoe_cfg *m,
		       uint16_t flow_feed[TOED_MAX_FEEDS])
{
	mtoe_cfg_default(m);
	m->max_conns = c->tcp.connections;
	m->window = c->tcp.window;
	m->gap_timeout_ns = (uint64_t)c->tcp.gap_timeout_ms * 1000000ull;
	m->idle_timeout_ns = (uint64_t)c->tcp.idle_timeout_s * 1000000000ull;
	m->nflows = 0;
	add_flows(c, port, m, flow_feed);
	return m->nflows;
}

void dp_setup_net(const struct toed_config *c, uint32_t port, struct net_cfg *n)
{
	net_cfg_init(n);
	if (port >= TOED_MAX_PORTS || !c->port[port].enabled)
		return;
	const struct toed_port *p = &c->port[port];
	/* verify_checksums = auto: the card and AF_XDP see frames as the wire carried them (a switch
	 * mirror carries valid checksums) and have no per-frame word: verify. AF_PACKET says per frame
	 * whether the kernel verified the checksum or left it to transmit offload: trust that, verify
	 * the rest. A pcap file is mostly a capture of some host's traffic, outgoing frames with
	 * unfilled checksums included, and was received once already: do not verify, as Wireshark
	 * does not (the STEP checksum and the decoder still catch damaged bytes). */
	uint32_t v = p->verify_checksums;
	if (v == TOED_AUTO && c->device.backend == TOED_BACKEND_SW) {
		if (c->source.type == TOED_SRC_PCAP)
			v = 0;
		else if (c->source.type == TOED_SRC_AF_PACKET)
			n->flags |= NET_CFG_CSUM_HINTS;
	}
	if (!v)
		n->flags &= ~(NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM);
	if (p->role != TOED_ROLE_MIRROR)
		n->flags |= NET_CFG_FILTER_DST;
	if (p->ip)
		net_cfg_add(n, p->ip, p->netmask, p->mac, (uint16_t)p->vlan);
}

/* Feed i's sequence group (0 the default, named groups from 1 in order of first use) and line
 * (its place among the group's feeds); check_groups kept both in range. */
static void feed_line(const struct toed_config *c, uint32_t i, uint8_t *group, uint8_t *line)
{
	const struct toed_feed *f = &c->feed[i];
	uint32_t g = 0, l = 0;
	*group = 0;
	*line = 0;
	if (!f->group[0])
		return;
	for (uint32_t j = 0; j < c->nfeeds; j++) {
		const struct toed_feed *h = &c->feed[j];
		int first = h->group[0] != 0;
		for (uint32_t k = 0; k < j && first; k++)
			if (strcmp(c->feed[k].group, h->group) == 0)
				first = 0;
		g += first;
		if (strcmp(h->group, f->group) == 0) {
			*group = (uint8_t)(g < RX_MAX_GROUPS ? g : RX_MAX_GROUPS - 1);
			break;
		}
	}
	for (uint32_t j = 0; j < i; j++)
		l += strcmp(c->feed[j].group, f->group) == 0;
	*line = (uint8_t)(l < SEQ_MAX_LINES ? l : SEQ_MAX_LINES - 1);
}

static int add_udp(struct rx_cfg *rc, uint32_t port, uint32_t in_port, uint8_t framing, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < rc->nudp; i++)
		if (rc->udp[i].port == port && rc->udp[i].in_port == in_port)
			return 0;
	if (rc->nudp >= RX_MAX_UDP) {
		snprintf(err, errlen, "more than %d UDP ports to decode (UDP feeds and [udp] ports): the software "
				      "pipeline has %d UDP streams",
			 RX_MAX_UDP, RX_MAX_UDP);
		return -1;
	}
	rc->udp[rc->nudp].port = (uint16_t)port;
	rc->udp[rc->nudp].framing = framing;
	rc->udp[rc->nudp].in_port = (uint8_t)in_port;
	rc->nudp++;
	return 0;
}

int dp_setup_rx(const struct toed_config *c, struct rx_cfg *rc, uint16_t flow_feed[TOED_MAX_FEEDS], char *err,
		size_t errlen)
{
	uint16_t ff[TOED_MAX_FEEDS];
	uint32_t nflows;
	if (!flow_feed)
		flow_feed = ff;
	/* every configured port, each with its own network settings, flows and UDP streams: the software
	 * backend's sources, the card's eth_rx_tops (the 4 x 10G xclbin; the 100G one has port 0 alone,
	 * which the card backend checks against the xclbin) */
	uint32_t nports = TOED_MAX_PORTS;
	dp_setup_net(c, 0, &rc->net);
	for (uint32_t p = 1; p < nports; p++)
		dp_setup_net(c, p, &rc->net_port[p - 1]);
	dp_setup_mtoe(c, 0, &rc->mtoe, flow_feed);
	/* toed's own connections (role = tcp) are the streams of port 0's flows (dp_tcp.c): the mirror
	 * TOE of the other ports must not give those stream numbers to its connections too */
	if (c->port[0].role == TOED_ROLE_TCP)
		rc->mtoe.first_conn = rc->mtoe.nflows;
	for (uint32_t p = 1; p < nports; p++)
		add_flows(c, p, &rc->mtoe, flow_feed);
	nflows = rc->mtoe.nflows;
	for (uint32_t i = 0; i < c->nfeeds; i++) {
		const struct toed_feed *f = &c->feed[i];
		uint32_t before = rc->nudp;
		if (f->protocol == TOED_PROTO_UDP && f->port < nports &&
		    add_udp(rc, f->vendor.port, f->port,
			    f->framing == TOED_FRAMING_RAW ? FAST_FRAMING_DATAGRAM : FAST_FRAMING_STEP, err, errlen) < 0)
			return -1;
		if (rc->nudp > before)
			feed_line(c, i, &rc->seq.udp_group[before], &rc->seq.udp_line[before]);
	}
	/* sequence tracking: ungrouped feeds and [udp] ports in the default group, each named
	 * group's feeds its lines */
	if (c->fast.sequence_check) {
		rc->flags |= RX_CFG_SEQ;
		rc->seq.wait_ns = (uint64_t)c->fast.arbitration_wait_us * 1000ull;
		/* [fast] sequence_fields, resolved to field ids at load (a rule left
		 * unresolved, only possible without templates, keys nothing) */
		rc->seq.nfields = toed_seq_rules(c, rc->seq.fields, SEQ_MAX_FIELDS);
		rc->seq.ngroups = 1;
		for (uint32_t i = 0; i < c->nfeeds; i++) {
			uint8_t g, l;
			feed_line(c, i, &g, &l);
			if (g + 1u > rc->seq.ngroups)
				rc->seq.ngroups = g + 1u;
		}
		for (uint32_t k = 0; k < nflows && k < MTOE_MAX_FLOWS; k++)
			feed_line(c, flow_feed[k], &rc->seq.flow_group[k], &rc->seq.flow_line[k]);
	}
	for (uint32_t p = 1; p < 65536 && c->udp.nports; p++)
		if (toed_udp_listened(c, p) &&
		    add_udp(rc, p, 0, c->fast.framing == TOED_FRAMING_RAW ? FAST_FRAMING_DATAGRAM : FAST_FRAMING_STEP,
			    err, errlen) < 0)
			return -1;
	return 0;
}

void dp_setup_udp_srcs(const struct toed_config *c, const struct rx_cfg *rc, uint8_t udp_src[RX_MAX_UDP])
{
	for (uint32_t i = 0; i < RX_MAX_UDP; i++) {
		udp_src[i] = (uint8_t)(TOED_MAX_FEEDS + i);
		for (uint32_t k = 0; i < rc->nudp && k < c->nfeeds; k++) {
			const struct toed_feed *f = &c->feed[k];
			if (f->protocol == TOED_PROTO_UDP && f->port == rc->udp[i].in_port && f->vendor.port == rc->udp[i].port) {
				udp_src[i] = (uint8_t)k;
				break;
			}
		}
	}
}

static void src_set(uint64_t srcs[2], uint32_t s)
{
	srcs[s / 64] |= 1ull << (s % 64);
}

uint32_t dp_setup_streams(const struct toed_config *c, const struct rx_cfg *rc, int card,
			  struct pub_stream tbl[DP_MAX_STREAM_NAMES])
{
	static const char card_why[] = "backend = xrt does not say which tcp feed carried a record (more than one)";
	uint8_t udp_src[RX_MAX_UDP];
	uint32_t n = 0, ntcp = rc->mtoe.nflows;
	for (uint32_t i = 0; i < c->nfeeds && n < DP_MAX_STREAM_NAMES; i++) {
		const struct toed_feed *f = &c->feed[i];
		struct pub_stream *t = &tbl[n++];
		memset(t, 0, sizeof *t);
		snprintf(t->name, sizeof t->name, "%s", f->stream[0] ? f->stream : f->name);
		t->kind = "feed";
		src_set(t->srcs, i);
		if (card && f->protocol == TOED_PROTO_TCP && ntcp > 1)
			t->why = card_why;
	}
	/* groups in order of first use; a name a feed already has is that feed (conf_check
	 * refuses a group named like another stream) */
	for (uint32_t i = 0; i < c->nfeeds && n < DP_MAX_STREAM_NAMES; i++) {
		const struct toed_feed *f = &c->feed[i];
		if (!f->group[0] || pub_stream_find(tbl, n, f->group))
			continue;
		struct pub_stream *t = &tbl[n++];
		memset(t, 0, sizeof *t);
		snprintf(t->name, sizeof t->name, "%s", f->group);
		t->kind = "group";
		for (uint32_t k = i; k < c->nfeeds; k++) {
			if (strcmp(c->feed[k].group, f->group) != 0)
				continue;
			src_set(t->srcs, k);
			if (card && c->feed[k].protocol == TOED_PROTO_TCP && ntcp > 1)
				t->why = card_why;
		}
	}
	dp_setup_udp_srcs(c, rc, udp_src);
	for (uint32_t i = 0; i < rc->nudp && n < DP_MAX_STREAM_NAMES; i++) {
		char name[TOE_CTL_STREAM_LEN];
		if (udp_src[i] < TOED_MAX_FEEDS)
			continue;
		snprintf(name, sizeof name, "udp-%u", (unsigned)rc->udp[i].port);
		if (pub_stream_find(tbl, n, name))
			continue;
		struct pub_stream *t = &tbl[n++];
		memset(t, 0, sizeof *t);
		memcpy(t->name, name, sizeof name);
		t->kind = "udp";
		src_set(t->srcs, udp_src[i]);
	}
	return n;
}

void dp_setup_live(struct toed_dp_live *l, const struct toed_config *cfg)
{
	memset(l, 0, sizeof *l);
	l->cpu = cfg->dataplane.cpu;
	l->priority = cfg->dataplane.priority;
	l->busy_poll = cfg->dataplane.busy_poll;
	l->trace = cfg->dataplane.trace;
	l->decoder = cfg->fast.decoder;
	switch (cfg->source.pcap_pace) {
	case TOED_PACE_FAST: l->pace = 0; break;
	case TOED_PACE_FACTOR: l->pace = cfg->source.pcap_speed; break;
	default: l->pace = 1.0; break;
	}
	l->loops = cfg->source.pcap_loop;
	l->gap_timeout_ns = (uint64_t)cfg->tcp.gap_timeout_ms * 1000000ull;
	l->idle_timeout_ns = (uint64_t)cfg->tcp.idle_timeout_s * 1000000000ull;
}

int dp_setup_answers(const struct toed_config *c, uint32_t port)
{
	return port < TOED_MAX_PORTS && c->device.backend == TOED_BACKEND_SW && c->port[port].enabled &&
	       c->port[port].role != TOED_ROLE_MIRROR && c->port[port].ip && c->source.type != TOED_SRC_PCAP;
}

void dp_setup_src(const struct toed_config *cfg, const struct rx_cfg *rc, const char *bpf_obj, struct src_cfg *sc,
		  struct src_feed feeds[SRC_MAX_FEEDS])
{
	dp_setup_src_port(cfg, rc, 0, bpf_obj, sc, feeds);
}

void dp_setup_src_port(const struct toed_config *cfg, const struct rx_cfg *rc, uint32_t port, const char *bpf_obj,
		       struct src_cfg *sc, struct src_feed feeds[SRC_MAX_FEEDS])
{
	uint32_t nf = 0;
	memset(sc, 0, sizeof *sc);
	switch (cfg->source.type) {
	case TOED_SRC_AF_XDP: sc->kind = SRC_AF_XDP; break;
	case TOED_SRC_AF_PACKET: sc->kind = SRC_AF_PACKET; break;
	default: sc->kind = SRC_PCAP; break;
	}
	sc->ifname = toed_port_interface(cfg, port);
	sc->queue = toed_port_queue(cfg, port);
	sc->xdp_mode = cfg->source.xdp_mode == TOED_XDP_SKB ? SRC_XDP_SKB : SRC_XDP_NATIVE;
	sc->bpf_obj_path = bpf_obj;
	sc->xdp_rx_ring = cfg->source.xsk_rx_ring;
	sc->xdp_fill_ring = cfg->source.xsk_fill_ring;
	sc->xdp_frames = cfg->source.xsk_frames;
	sc->xdp_busy_poll = (int)cfg->source.xsk_busy_poll;
	/* steering: TCP feeds by their exchange endpoint, UDP by the port we listen on */
	for (uint32_t i = 0; i < cfg->nfeeds && nf < SRC_MAX_FEEDS; i++) {
		const struct toed_feed *f = &cfg->feed[i];
		if (f->port != port)
			continue;
		if (f->protocol == TOED_PROTO_TCP)
			feeds[nf++] = (struct src_feed){f->exchange.ip, (uint16_t)f->exchange.port, 6};
		else
			feeds[nf++] = (struct src_feed){f->vendor.ip, (uint16_t)f->vendor.port, 17};
	}
	for (uint32_t i = 0; i < rc->nudp && nf < SRC_MAX_FEEDS; i++) {
		int dup = rc->udp[i].in_port != port;
		for (uint32_t k = 0; k < nf; k++)
			if (feeds[k].proto == 17 && feeds[k].port == rc->udp[i].port && feeds[k].ip == 0)
				dup = 1;
		if (!dup)
			feeds[nf++] = (struct src_feed){0, rc->udp[i].port, 17};
	}
	/* a port with its own address answers ARP and ICMP for it, and sends (dp_resp; role = tcp: the
	 * endpoint, dp_tcp, too); a mirror port is opened without a transmit side */
	if (dp_setup_answers(cfg, port)) {
		sc->tx = 1;
		if (nf + 2 <= SRC_MAX_FEEDS) {
			feeds[nf++] = (struct src_feed){cfg->port[port].ip, 0, SRC_PROTO_ICMP};
			feeds[nf++] = (struct src_feed){cfg->port[port].ip, 0, SRC_PROTO_ARP};
		}
	}
	sc->feeds = feeds;
	sc->nfeeds = nf;
	/* pacing and loops are done by the thread (they are live keys) */
	sc->pcap_path = cfg->source.pcap_file;
	sc->pace = 0;
	sc->loops = SRC_LOOP_FOREVER;
}

/* A window as the general TOE takes it: at least gtoe's minimum. */
static uint32_t gtoe_win(uint32_t window)
{
	return window >= GTOE_MIN_BUF ? window : GTOE_MIN_BUF;
}

/* toed's own connections' feeds: the tcp feeds of a role = tcp port 0 (dp_setup_mtoe's flows of
 * port 0, in the same order). */
static int own_conn_feed(const struct toed_config *c, const struct toed_feed *f)
{
	return c->port[0].enabled && c->port[0].role == TOED_ROLE_TCP && f->protocol == TOED_PROTO_TCP &&
	       f->port == 0;
}

void dp_setup_tcp_max(const struct toed_config *c, uint32_t *mss, uint32_t *window, uint32_t *feed)
{
	uint32_t m = 0, w = 0, fw = UINT32_MAX;
	for (uint32_t i = 0; i < c->nfeeds && i < TOED_MAX_FEEDS; i++) {
		const struct toed_feed *f = &c->feed[i];
		if (!own_conn_feed(c, f))
			continue;
		if (toed_feed_mss(c, f) > m)
			m = toed_feed_mss(c, f);
		if (gtoe_win(toed_feed_window(c, f)) > w) {
			w = gtoe_win(toed_feed_window(c, f));
			fw = i;
		}
	}
	*mss = m ? m : c->tcp.mss; /* no connection: [tcp]'s, as before */
	*window = w ? w : gtoe_win(c->tcp.window);
	if (feed)
		*feed = fw;
}

int dp_setup_tcp_conns(const struct toed_config *c, struct dp_setup_tcpconn *out, char *err, size_t errlen)
{
	struct mtoe_cfg m;
	uint16_t flow_feed[TOED_MAX_FEEDS];
	uint32_t nflows = dp_setup_mtoe(c, 0, &m, flow_feed);
	if (nflows > m.max_conns) {
		snprintf(err, errlen, "%s: %u tcp feeds on a tcp port: [tcp] connections = %u is too few", c->path,
			 nflows, m.max_conns);
		return -1;
	}
	for (uint32_t k = 0; k < nflows && k < TOED_MAX_FEEDS; k++) {
		const struct toed_feed *fd = &c->feed[flow_feed[k]];
		struct dp_setup_tcpconn *o = &out[k];
		memset(o, 0, sizeof *o);
		o->feed = flow_feed[k];
		o->stream = k;
		o->raddr = fd->exchange.ip;
		o->rport = (uint16_t)fd->exchange.port;
		o->lport = (uint16_t)fd->vendor.port;
		o->accept = fd->open == TOED_OPEN_ACCEPT;
		o->mss = (uint16_t)toed_feed_mss(c, fd); /* [feed] mss and window ([tcp]'s when not set) */
		o->window = gtoe_win(toed_feed_window(c, fd));
	}
	return (int)nflows;
}

void dp_setup_gtoe(const struct toed_config *c, struct gtoe_cfg *gc)
{
	struct timespec ts;
	uint32_t mss, win;
	gtoe_cfg_default(gc);
	dp_setup_tcp_max(c, &mss, &win, NULL);
	gc->max_conns = c->tcp.connections < GTOE_MAX_CONNS ? c->tcp.connections : GTOE_MAX_CONNS;
	gc->rcv_buf = win; /* every slot's buffer: the largest window; each connection advertises its own */
	gc->snd_buf = DP_SETUP_TCP_SND_BUF;
	gc->mss = (uint16_t)mss; /* the most any connection offers; each offers its own */
	gc->syn_retries = 4; /* 31 s, then the reconnect backoff takes over */
	gc->quickack = 1; /* market data: ACK at once, the exchange's window never waits for a delayed ACK */
	clock_gettime(CLOCK_REALTIME, &ts);
	gc->isn_key = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^ (uint32_t)getpid();
}

void dp_setup_card(struct toe_xrt_params *p, const struct toed_config *cfg, const struct rx_cfg *rx)
{
	memset(p, 0, sizeof *p);
	p->pci = cfg->device.pci;
	p->xclbin = cfg->device.xclbin;
	p->rx = rx;
	p->prog = cfg->fast.have_prog ? &cfg->fast.prog : NULL;
	p->hw.role = cfg->port[0].role == TOED_ROLE_MIRROR ? TOE_ROLE_MIRROR
		     : cfg->port[0].role == TOED_ROLE_TCP  ? TOE_ROLE_TCP
							    : TOE_ROLE_MAIN;
	p->hw.gateway = cfg->port[0].gateway;
	p->hw.mss = cfg->tcp.mss;
	p->hw.ring_slots = TOE_XRT_DEFAULT_SLOTS;
	p->link_timeout_ms = TOE_XRT_DEFAULT_LINK_MS;
	/* ports 1..3: their eth_rx_tops (the 4 x 10G xclbin); roles mirror or main (tcp is port 0's) */
	for (uint32_t i = 1; i < TOED_MAX_PORTS && i < TOE_HW_MAX_PORTS; i++) {
		if (!cfg->port[i].enabled)
			continue;
		p->ports |= 1u << i;
		p->port_role[i] = cfg->port[i].role == TOED_ROLE_MIRROR ? TOE_ROLE_MIRROR : TOE_ROLE_MAIN;
	}
	if (cfg->port[0].enabled && cfg->port[0].role == TOED_ROLE_TCP) {
		struct dp_setup_tcpconn tc[TOED_MAX_FEEDS];
		char err[160];
		int n = dp_setup_tcp_conns(cfg, tc, err, sizeof err);
		p->tcp = 1;
		dp_setup_gtoe(cfg, &p->gtoe);
		p->hw.mss = p->gtoe.mss; /* gtoe_top's kernel-wide MSS (TOE_ETH_CF_MSS): the entries' largest */
		/* too many feeds: an entry count above max_conns, which toe_hw_gtoe_writes refuses */
		for (int i = 0; i < (n < 0 ? 0 : n) && p->ngconn < TOE_HW_GTOE_CONNS; i++) {
			struct toe_hw_gtoe_conn *e = &p->gconn[p->ngconn];
			e->raddr = tc[i].raddr;
			e->rport = tc[i].rport;
			e->lport = tc[i].lport;
			e->stream = tc[i].stream;
			e->enable = 1;
			e->accept = tc[i].accept; /* gtoe_top listens on lport, takes raddr's connection */
			e->mss = tc[i].mss;       /* the feed's mss and window, as the software backend's */
			e->window = tc[i].window; /* connection offers and advertises */
			p->gconn_feed[p->ngconn++] = tc[i].feed;
		}
		if (n < 0)
			p->ngconn = TOE_HW_GTOE_CONNS + 1;
	}
}

void dp_setup_pub(struct pub_config *pc, const struct toed_config *c)
{
	memset(pc, 0, sizeof *pc);
	pc->max_clients = c->shm.max_clients;
	pc->default_capacity = c->shm.ring_size;
	pc->max_capacity = TOE_SHM_MAX_CAPACITY;
	pc->history = c->shm.ring_size; /* a late subscriber can ask for the last ring-full */
	pc->no_hugepages = c->shm.hugepages == TOED_HUGE_OFF;
	pc->threaded = 1;
	pc->max_ring_bytes = (uint64_t)c->shm.ring_memory_mb << 20;
}
