/* dp_tcp.c - a role = tcp port: toed's own TCP connections, its ARP and ICMP through dp_resp (see dp_tcp.h). */
#include "dp/dp_tcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/mem_touch.h"
#include "dp/dp_setup.h"
#include "net/net_rx.h"
#include "net/net_udp.h"
#include "toe/gtoe_frame.h"

const char *dp_tcp_phase_name(uint32_t phase)
{
	switch (phase) {
	case DP_TCP_WAIT: return "waiting";
	case DP_TCP_RESOLVING: return "resolving";
	case DP_TCP_CONNECTING: return "connecting";
	case DP_TCP_UP: return "up";
	case DP_TCP_LISTEN: return "listening";
	default: return "?";
	}
}

int dp_tcp_init(struct dp_tcp *t, const struct toed_config *cfg, struct net_cfg *net, char *err, size_t errlen)
{
	const struct toed_port *p = &cfg->port[0];
	memset(t, 0, sizeof *t);
	t->owe_conn = -1;
	t->role = p->role;
	t->laddr = p->ip;
	t->gateway = p->gateway;
	if (!p->ip) {
		snprintf(err, errlen, "%s: [port] role = %s needs an ip", cfg->path, toed_role_name(p->role));
		return -1;
	}
	if (cfg->source.type == TOED_SRC_PCAP) {
		snprintf(err, errlen, "%s: [port] role = %s answers ARP and ICMP%s: a pcap replay cannot send (use "
				      "[source] type = af_xdp or af_packet, or role = mirror)",
			 cfg->path, toed_role_name(p->role), p->role == TOED_ROLE_TCP ? " and holds connections" : "");
		return -1;
	}
	if (dp_resp_init(&t->resp, cfg, 0, net, err, errlen) < 0)
		return -1;
	if (p->role != TOED_ROLE_TCP)
		return 0;

	/* one connection per TCP feed of the port, on the stream of its mirror flow (dp_setup: the card
	 * programs gtoe_top's connection table from the same list) */
	struct dp_setup_tcpconn tc[TOED_MAX_FEEDS];
	int nconn = dp_setup_tcp_conns(cfg, tc, err, errlen);
	if (nconn < 0)
		return -1;
	for (int k = 0; k < nconn; k++) {
		const struct toed_feed *fd = &cfg->feed[tc[k].feed];
		struct dp_tcp_feed *f = &t->f[t->nfeeds++];
		f->feed = tc[k].feed;
		snprintf(f->name, sizeof f->name, "%s", fd->name);
		f->stream = tc[k].stream;
		f->raddr = tc[k].raddr;
		f->rport = tc[k].rport;
		f->lport = tc[k].lport;
		f->conn = -1;
		f->listener = -1;
		f->accept = tc[k].accept;
		f->mss = tc[k].mss;
		f->window = tc[k].window;
	}
	struct gtoe_cfg gc;
	dp_setup_gtoe(cfg, &gc);
	t->g = calloc(1, sizeof *t->g);
	t->gbuf = malloc(GTOE_BUF_BYTES(&gc));
	if (!t->g || !t->gbuf) {
		snprintf(err, errlen, "data plane: out of memory for %u TCP connections", gc.max_conns);
		return -1;
	}
	int r = gtoe_init(t->g, &gc, t->gbuf, GTOE_BUF_BYTES(&gc));
	if (r != GTOE_OK) {
		snprintf(err, errlen, "%s: the TCP endpoint refused [tcp] connections = %u, window = %u, mss = %u (gtoe_init %d)",
			 cfg->path, gc.max_conns, gc.rcv_buf, gc.mss, r);
		return -1;
	}
	/* its buffers touched now, not at their first use on the hot path (base/mem_touch.h) */
	mem_touch_write(t->gbuf, GTOE_BUF_BYTES(&gc));
	mem_touch_write(t->g, sizeof *t->g);
	/* a restarted toed does not reuse the last run's local ports */
	t->g->ephemeral = (uint16_t)(gc.isn_key >> 7);
	/* in-order bytes go to the pipeline from the frame (dp_tcp_pump settles before the frame goes back) */
	gtoe_direct_on(t->g, 1);
	for (uint32_t i = 0; i < t->nfeeds; i++) {
		struct dp_tcp_feed *f = &t->f[i];
		/* each feed's MSS and window, within the slots' (dp_setup_gtoe sizes them by the largest):
		 * gtoe_set_limits at each connect then cannot refuse them */
		r = gtoe_limits_check(&gc, f->mss, f->window);
		if (r != GTOE_OK) {
			snprintf(err, errlen, "%s: [feed.%s]: the TCP endpoint refused MSS %u and window %u (above its "
					      "MSS %u or buffer %u, or below its minimum: %d)",
				 cfg->path, f->name, f->mss, f->window, gc.mss, gc.rcv_buf, r);
			return -1;
		}
		if (!f->accept)
			continue;
		f->listener = gtoe_listen(t->g, t->laddr, f->lport);
		if (f->listener < 0) {
			snprintf(err, errlen, "%s: [feed.%s] open = accept: cannot listen on port %u (gtoe_listen %d)",
				 cfg->path, f->name, f->lport, f->listener);
			return -1;
		}
		r = gtoe_listen_limits(t->g, f->listener, f->mss, f->window);
		if (r != GTOE_OK) {
			snprintf(err, errlen, "%s: [feed.%s]: the TCP endpoint refused MSS %u and window %u (%d)", cfg->path,
				 f->name, f->mss, f->window, r);
			return -1;
		}
		f->phase = DP_TCP_LISTEN;
	}
	return 0;
}

void dp_tcp_free(struct dp_tcp *t)
{
	if (!t)
		return;
	free(t->g);
	free(t->gbuf);
	t->g = NULL;
	t->gbuf = NULL;
}

static void send_frame(struct dp_tcp *t, const uint8_t *frame, uint32_t len)
{
	dp_resp_send(&t->resp, frame, len);
}

static struct dp_tcp_feed *feed_of(struct dp_tcp *t, int32_t conn)
{
	for (uint32_t i = 0; i < t->nfeeds; i++)
		if (t->f[i].conn == conn)
			return &t->f[i];
	return NULL;
}

int32_t dp_tcp_frame(struct dp_tcp *t, struct rx_pipe *p, const uint8_t *frame, uint32_t len, uint64_t ts_ns,
		     uint32_t csum, uint64_t now_ns)
{
	struct net_pkt pkt;
	uint16_t idx;
	enum net_rx_verdict v;
	p->st.frames++;
	v = net_rx_csum(&p->cfg.net, &p->net, frame, len, ts_ns, csum, &pkt);
	switch (v) {
	case NET_RX_TCP:
		p->st.tcp++;
		if (t->g)
			gtoe_input_pkt(t->g, &pkt, now_ns);
		break;
	case NET_RX_UDP:
		/* the pipeline's listen table, as rx_frame does */
		p->st.udp++;
		if (net_udp_input(&p->udp, &p->net, &pkt, &idx))
			rx_datagram(p, idx, pkt.payload, pkt.payload_len, ts_ns);
		break;
	case NET_RX_ARP:
		p->st.arp++;
		dp_resp_input(&t->resp, &p->cfg.net, &p->net, (int32_t)v, &pkt, now_ns);
		break;
	case NET_RX_ICMP:
		p->st.icmp++;
		dp_resp_input(&t->resp, &p->cfg.net, &p->net, (int32_t)v, &pkt, now_ns);
		break;
	default:
		p->st.dropped++;
		break;
	}
	return (int32_t)v;
}

static void pipe_event(struct rx_pipe *p, const struct dp_tcp_feed *f, uint8_t type, uint8_t reason,
		       const uint8_t *data, uint32_t len, uint64_t ts_ns)
{
	struct mtoe_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = type;
	ev.reason = reason;
	ev.conn = (uint16_t)f->stream;
	ev.flow = (uint16_t)f->stream; /* the feed's mirror flow: its sequence group */
	ev.offset = f->offset;
	ev.len = len;
	ev.data = data;
	rx_event(p, &ev, ts_ns);
}

/* A connection ended: CLOSE on its stream, the slot released, a reconnect scheduled. */
static void conn_down(struct dp_tcp *t, struct rx_pipe *p, struct dp_tcp_feed *f, const struct gtoe_event *ev,
		      uint64_t ts_ns)
{
	uint8_t reason = ev->type == GTOE_EV_RESET ? MTOE_CLOSE_RST : MTOE_CLOSE_FIN;
	int was_up = f->phase == DP_TCP_UP;
	if (was_up) {
		/* refused attempts while reconnecting do not hide the last connection's figures */
		gtoe_info(t->g, f->conn, &f->last);
		f->last.state = GTOE_CLOSED;
	}
	gtoe_release(t->g, f->conn);
	f->conn = -1;
	f->phase = f->accept ? DP_TCP_LISTEN : DP_TCP_WAIT;
	f->downs++;
	f->last_down = ev->type;
	f->last_reason = ev->reason;
	t->st.closes++;
	if (was_up) {
		if (t->hooks.on_close)
			t->hooks.on_close(t->hooks.arg, t, (uint32_t)(f - t->f));
		pipe_event(p, f, MTOE_EV_CLOSE, reason, NULL, 0, ts_ns);
		if (!f->asked_close)
			f->backoff_ns = DP_TCP_BACKOFF_MIN_NS;
	}
	f->aborted = 0;
	if (f->accept) {
		f->asked_close = 0;
		log_info("data plane: feed %s: connection from %u.%u.%u.%u %s; listening on port %u", f->name,
			 f->raddr >> 24, (f->raddr >> 16) & 255, (f->raddr >> 8) & 255, f->raddr & 255,
			 ev->type == GTOE_EV_RESET ? "reset by the peer" : ev->type == GTOE_EV_ERROR ? "failed" : "closed",
			 f->lport);
		return;
	}
	if (was_up && !f->asked_close) {
	} else {
		dp_tcp_backoff(f);
	}
	f->asked_close = 0;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	f->next_try_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + f->backoff_ns;
	log_info("data plane: feed %s: connection to %u.%u.%u.%u:%u %s%s; again in %llu ms", f->name,
		 f->raddr >> 24, (f->raddr >> 16) & 255, (f->raddr >> 8) & 255, f->raddr & 255, f->rport,
		 ev->type == GTOE_EV_RESET ? "reset by the peer" : ev->type == GTOE_EV_ERROR ? "failed" : "closed",
		 ev->type != GTOE_EV_ERROR ? ""
		 : ev->reason == GTOE_ERR_REFUSED ? " (refused)"
		 : ev->reason == GTOE_ERR_TIMEOUT ? " (timed out)"
		 : ev->reason == GTOE_ERR_KEEPALIVE ? " (keepalive unanswered)" : "",
		 (unsigned long long)(f->backoff_ns / 1000000ull));
}

/* A passive open on a feed's listener: the feed's connection if it comes from
 * the feed's exchange and none is up, else reset (counted, logged). */
static int accepted(struct dp_tcp *t, const struct gtoe_event *ev)
{
	const struct gtoe_conn *c = &t->g->conn[ev->conn];
	struct dp_tcp_feed *f = NULL;
	for (uint32_t i = 0; i < t->nfeeds; i++)
		if (t->f[i].accept && t->f[i].listener == ev->listener)
			f = &t->f[i];
	if (f && f->conn < 0 && c->raddr == f->raddr && (!f->rport || c->rport == f->rport)) {
		f->conn = ev->conn;
		f->attempts++;
		return 1;
	}
	t->st.accept_refused++;
	log_warn("data plane: feed %s: connection from %u.%u.%u.%u:%u reset (%s)", f ? f->name : "?", c->raddr >> 24,
		 (c->raddr >> 16) & 255, (c->raddr >> 8) & 255, c->raddr & 255, c->rport,
		 !f ? "no feed listens" : f->conn >= 0 ? "the feed's connection is up" : "not the feed's exchange");
	gtoe_abort(t->g, ev->conn);
	gtoe_release(t->g, ev->conn);
	return 0;
}

int dp_tcp_pump(struct dp_tcp *t, struct rx_pipe *p, uint64_t ts_ns)
{
	struct gtoe_event ev;
	if (!t->g)
		return 0;
	if (t->owe_conn >= 0) {
		/* the pipeline has drained the bytes handed over last time */
		gtoe_consume(t->g, t->owe_conn, t->owe_len);
		t->owe_conn = -1;
	}
	for (;;) {
		/* bytes first: everything readable before an event that ends the connection */
		for (uint32_t i = 0; i < t->nfeeds; i++) {
			struct dp_tcp_feed *f = &t->f[i];
			const uint8_t *data;
			uint32_t n;
			if (f->phase != DP_TCP_UP || !(n = gtoe_peek(t->g, f->conn, &data)))
				continue;
			if (t->hooks.on_bytes)
				t->hooks.on_bytes(t->hooks.arg, t, i, data, n);
			pipe_event(p, f, MTOE_EV_DATA, 0, data, n, ts_ns);
			f->offset += n;
			t->st.bytes_in += n;
			t->owe_conn = f->conn;
			t->owe_len = n;
			return 1;
		}
		/* a connection we reset (dp_tcp_close's wait ran out) ends without an event */
		for (uint32_t i = 0; i < t->nfeeds; i++) {
			struct dp_tcp_feed *f = &t->f[i];
			if (f->aborted && f->phase == DP_TCP_UP && t->g->conn[f->conn].state == GTOE_CLOSED) {
				struct gtoe_event e2;
				memset(&e2, 0, sizeof e2);
				e2.type = GTOE_EV_CLOSED;
				e2.conn = (uint16_t)f->conn;
				e2.listener = -1;
				conn_down(t, p, f, &e2, ts_ns);
				return 1;
			}
		}
		if (!gtoe_ev_next(t->g, &ev)) {
			/* every byte handed over was consumed; any the endpoint still reads from the
			 * frame (none when the pipeline took them all) into its buffer: the frame may go */
			gtoe_settle(t->g);
			return 0;
		}
		if (ev.type == GTOE_EV_CONNECTED && ev.listener >= 0 && !feed_of(t, ev.conn) && !accepted(t, &ev))
			continue;
		struct dp_tcp_feed *f = feed_of(t, ev.conn);
		if (!f)
			continue; /* a slot released already */
		switch (ev.type) {
		case GTOE_EV_CONNECTED:
			f->phase = DP_TCP_UP;
			f->offset = 0;
			f->ups++;
			t->st.established++;
			log_info("data plane: feed %s: connected %s %u.%u.%u.%u:%u", f->name, f->accept ? "from" : "to",
				 f->raddr >> 24, (f->raddr >> 16) & 255, (f->raddr >> 8) & 255, f->raddr & 255,
				 f->accept ? t->g->conn[f->conn].rport : f->rport);
			if (t->hooks.on_open)
				t->hooks.on_open(t->hooks.arg, t, (uint32_t)(f - t->f));
			pipe_event(p, f, MTOE_EV_OPEN, MTOE_OPEN_SYN, NULL, 0, ts_ns);
			return 1;
		case GTOE_EV_PEER_CLOSED:
			/* every byte before the FIN was read above: close our side too */
			gtoe_shutdown(t->g, f->conn);
			{
				struct gtoe_event e2 = ev;
				e2.type = GTOE_EV_CLOSED;
				conn_down(t, p, f, &e2, ts_ns);
			}
			return 1;
		case GTOE_EV_CLOSED:
		case GTOE_EV_RESET:
		case GTOE_EV_ERROR:
			conn_down(t, p, f, &ev, ts_ns);
			return 1;
		default:
			break; /* DATA (read above), WRITABLE */
		}
	}
}

void dp_tcp_tick(struct dp_tcp *t, struct rx_pipe *p, uint64_t now_ns)
{
	net_arp_expire(&t->resp.arp, &p->net, now_ns);
	if (!t->g)
		return;
	gtoe_poll(t->g, now_ns);
	for (uint32_t i = 0; i < t->nfeeds; i++) {
		struct dp_tcp_feed *f = &t->f[i];
		if (f->asked_close && !f->aborted && f->phase == DP_TCP_UP && now_ns >= f->close_by_ns) {
			log_warn("data plane: feed %s: the exchange did not close its side within %llu ms: reset", f->name,
				 (unsigned long long)(DP_TCP_CLOSE_WAIT_NS / 1000000ull));
			f->aborted = 1;
			gtoe_abort(t->g, f->conn);
		}
		if (f->accept || (f->phase != DP_TCP_WAIT && f->phase != DP_TCP_RESOLVING) || now_ns < f->next_try_ns)
			continue;
		/* the next hop first: the SYN leaves as soon as its MAC is known, not after an RTO */
		struct net_tx_l2 l2;
		uint32_t alen = 0;
		uint8_t req[NET_ARP_FRAME_MAX];
		enum net_arp_result r = net_tx_route(&t->resp.arp, &p->cfg.net, &p->net, t->gateway, t->laddr, f->raddr,
						     now_ns, &l2, req, sizeof req, &alen);
		if (alen) {
			t->st.arp_requests++;
			send_frame(t, req, alen);
		}
		if (r != NET_ARP_OK) {
			f->phase = DP_TCP_RESOLVING;
			f->next_try_ns = now_ns + DP_TCP_ARP_RETRY_NS / 10; /* the reply is learned by dp_tcp_frame */
			continue;
		}
		int32_t c = gtoe_connect(t->g, t->laddr, f->lport, f->raddr, f->rport, now_ns);
		f->attempts++;
		if (c < 0) {
			f->phase = DP_TCP_WAIT;
			f->backoff_ns = DP_TCP_BACKOFF_MAX_NS;
			f->next_try_ns = now_ns + f->backoff_ns;
			log_warn("data plane: feed %s: the TCP endpoint refused a connection (%d): again in %llu ms",
				 f->name, c, (unsigned long long)(f->backoff_ns / 1000000ull));
			continue;
		}
		/* the feed's MSS and window, before the SYN leaves (checked at init: within gtoe_init's) */
		gtoe_set_limits(t->g, c, f->mss, f->window);
		f->conn = c;
		f->phase = DP_TCP_CONNECTING;
		t->st.connects++;
	}
	if (t->hooks.on_tick)
		t->hooks.on_tick(t->hooks.arg, t, now_ns);
}

void dp_tcp_flush(struct dp_tcp *t, struct rx_pipe *p, uint64_t now_ns)
{
	struct gtoe_seg seg;
	uint8_t req[NET_ARP_FRAME_MAX];
	while (t->g && gtoe_tx_next(t->g, now_ns, &seg)) {
		struct net_tx_l2 l2;
		uint32_t alen = 0, n;
		enum net_arp_result r = net_tx_route(&t->resp.arp, &p->cfg.net, &p->net, t->gateway, seg.saddr, seg.daddr,
						     now_ns, &l2, req, sizeof req, &alen);
		if (alen) {
			t->st.arp_requests++;
			send_frame(t, req, alen);
		}
		if (r != NET_ARP_OK) {
			t->st.segs_no_route++;
			continue;
		}
		n = gtoe_frame(&seg, &l2, t->ip_id++, t->tx, sizeof t->tx);
		if (!n) {
			t->st.frame_too_big++;
			continue;
		}
		t->st.segs_out++;
		send_frame(t, t->tx, n);
	}
	dp_resp_flush(&t->resp);
}

uint64_t dp_tcp_backoff(struct dp_tcp_feed *f)
{
	f->backoff_ns = f->backoff_ns ? f->backoff_ns * 2 : DP_TCP_BACKOFF_MIN_NS;
	if (f->backoff_ns > DP_TCP_BACKOFF_MAX_NS)
		f->backoff_ns = DP_TCP_BACKOFF_MAX_NS;
	return f->backoff_ns;
}

int32_t dp_tcp_send(struct dp_tcp *t, uint32_t i, const uint8_t *data, uint32_t len)
{
	if (t->remote.send)
		return i < t->nfeeds && t->f[i].phase == DP_TCP_UP ? t->remote.send(t->remote.arg, i, data, len) : -1;
	if (!t->g || i >= t->nfeeds || t->f[i].phase != DP_TCP_UP)
		return -1;
	return gtoe_send(t->g, t->f[i].conn, data, len);
}

int dp_tcp_close(struct dp_tcp *t, uint32_t i)
{
	if ((!t->g && !t->remote.close) || i >= t->nfeeds || t->f[i].phase != DP_TCP_UP)
		return -1;
	if (t->f[i].asked_close)
		return 0; /* closing already: the reset deadline stands */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t->f[i].asked_close = 1;
	t->f[i].close_by_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + DP_TCP_CLOSE_WAIT_NS;
	if (t->remote.close)
		return t->remote.close(t->remote.arg, i);
	gtoe_shutdown(t->g, t->f[i].conn);
	return 0;
}
