/* dp_setup.h - the one place that turns toed.conf (struct toed_config) into each component's settings.
 *
 * The configuration (conf/) knows files and keys; the components know their own settings
 * structs. Everything in between is here: the mirror TOE's and the network layer's settings
 * of a port, the receive pipeline's, the frame source's, the card's, the publisher's, and the
 * live settings of the data-plane thread. The control socket's settings (ctl_config) are the
 * control plane's own and assembled there (ctl/ is above this room).
 */
#ifndef TOED_DP_SETUP_H
#define TOED_DP_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "card/card_backend.h"
#include "conf/config.h"
#include "dp/dp_pub.h"
#include "dp/dp_thread.h"
#include "net/net_cfg.h"
#include "rx/rx_pipe.h"
#include "src/src.h"
#include "toe/gtoe.h"
#include "toe/mtoe.h"

/* The mirror TOE configuration of port `port`: [tcp] sizes and timeouts, and one flow
 * per TCP feed carried by that port, in feed order; flow_feed[i] (may be NULL) receives
 * the feed index of flow i. Returns the number of flows. */
uint32_t dp_setup_mtoe(const struct toed_config *c, uint32_t port, struct mtoe_cfg *m,
		       uint16_t flow_feed[TOED_MAX_FEEDS]);

/* The network configuration of port `port`: its address and MAC (when set), checksum
 * verification per verify_checksums (auto: by source, see dp_setup.c), destination filtering on tcp and udp ports
 * (a mirror port sees other hosts' traffic). */
void dp_setup_net(const struct toed_config *c, uint32_t port, struct net_cfg *n);

/* The receive pipeline (rx_cfg_default() first): network settings of each port, the mirror TOE
 * with the TCP feeds of every port (each flow taking frames of its feed's port only: software
 * backend; the card: port 0's), the UDP streams (UDP feeds, each (UDP port, port) once, and
 * [udp] ports, port 0's), and with [fast] sequence_check the
 * sequence groups (feeds naming a group are its lines in file order; the others, and [udp]
 * ports, share the default group). 0, or -1 with err when the pipeline has too few UDP
 * streams. */
int dp_setup_rx(const struct toed_config *c, struct rx_cfg *rc, uint16_t flow_feed[TOED_MAX_FEEDS], char *err,
		size_t errlen);

/* Stream names clients subscribe by (toe_sub.stream): each feed's stream name (source: its
 * feed index), each arbitration group's name (its feeds' sources), and "udp-PORT" for each
 * [udp] port no feed takes (source TOED_MAX_FEEDS + its index in the pipeline's UDP streams).
 * card: backend = xrt, whose records do not say which TCP feed carried them: with more than one
 * TCP feed, their names (and their groups') are listed with a reason to refuse. Returns the
 * number of names written to tbl (at most DP_MAX_STREAM_NAMES). */
#define DP_MAX_STREAM_NAMES (TOED_MAX_FEEDS + TOED_MAX_GROUPS + RX_MAX_UDP)
_Static_assert(TOED_MAX_FEEDS + RX_MAX_UDP <= PUB_MAX_SRCS, "every source has a number below PUB_MAX_SRCS");
uint32_t dp_setup_streams(const struct toed_config *c, const struct rx_cfg *rc, int card,
			  struct pub_stream tbl[DP_MAX_STREAM_NAMES]);

/* The source (PUB_SRC_*) of each of rc's UDP streams: the UDP feed that takes its port (on its [port.N]), or
 * TOED_MAX_FEEDS + its index. */
void dp_setup_udp_srcs(const struct toed_config *c, const struct rx_cfg *rc, uint8_t udp_src[RX_MAX_UDP]);

/* The data-plane thread's live settings: [dataplane], pcap pace and loops, [tcp] timeouts. */
void dp_setup_live(struct toed_dp_live *l, const struct toed_config *c);

/* 1 when port `port` speaks for its address in the software backend: enabled, role = tcp or udp
 * with an ip, and a source that can send (not a pcap replay). Its source is then opened with a
 * transmit side and steers the ARP and ICMP for that address to toed (dp_setup_src_port), and the
 * data plane answers them (dp/dp_resp). A mirror port never does. */
int dp_setup_answers(const struct toed_config *c, uint32_t port);

/* The frame source of the software backend: kind, interface, queue, XDP mode, pcap file, and
 * the steering list (TCP feeds by their exchange endpoint, UDP by the ports rc decodes) in
 * feeds[SRC_MAX_FEEDS], which must outlive the open. Pacing and loops stay with the thread
 * (they are live keys). */
void dp_setup_src(const struct toed_config *c, const struct rx_cfg *rc, const char *bpf_obj, struct src_cfg *sc,
		  struct src_feed feeds[SRC_MAX_FEEDS]);
/* The same for port `port` of the software backend: its interface and queue (toed_port_interface,
 * toed_port_queue), the steering list of its feeds and UDP streams. dp_setup_src is port 0's. */
void dp_setup_src_port(const struct toed_config *c, const struct rx_cfg *rc, uint32_t port, const char *bpf_obj,
		       struct src_cfg *sc, struct src_feed feeds[SRC_MAX_FEEDS]);

/* role = tcp on port 0: toed's own connections, one per TCP feed of the port, in the order of
 * the mirror TOE's flows (stream = the feed's flow index, as dp_setup_mtoe numbers them). The
 * software backend (dp_tcp_init) and the card (gtoe_top's connection table) take the same list. */
struct dp_setup_tcpconn {
	uint32_t feed;        /* index in the configuration's feeds */
	uint32_t stream;      /* the pipeline's TCP stream: the feed's mirror flow index */
	uint32_t raddr;       /* [feed] exchange */
	uint16_t rport, lport; /* lport: [feed] vendor port (0: ephemeral); open = accept: rport 0 any */
	uint32_t accept;      /* open = accept */
	uint16_t mss;         /* the connection's MSS and receive window: [feed] mss and window ([tcp]'s */
	uint32_t window;      /* when the feed sets none; at least GTOE_MIN_BUF), per entry on the card too */
};
/* The list into out[TOED_MAX_FEEDS]; returns how many, or -1 with err when [tcp] connections is
 * too few for them. */
int dp_setup_tcp_conns(const struct toed_config *c, struct dp_setup_tcpconn *out, char *err, size_t errlen);
/* The largest MSS and window of those connections' feeds (the window at least GTOE_MIN_BUF), and
 * (feed, when not NULL) the feed with the largest window (UINT32_MAX: none); without such a feed
 * [tcp] mss and window. */
void dp_setup_tcp_max(const struct toed_config *c, uint32_t *mss, uint32_t *window, uint32_t *feed);
/* The general TOE's settings for those connections: [tcp] connections (capped at GTOE_MAX_CONNS);
 * every slot's receive buffer the largest window of the feeds and the MSS their largest
 * (dp_setup_tcp_max: each connection then offers and advertises its own, gtoe_set_limits); the
 * send buffer, SYN retries, quick ACK, a fresh ISN key. */
#define DP_SETUP_TCP_SND_BUF 8192u /* send buffer per connection (logon, heartbeats) */
void dp_setup_gtoe(const struct toed_config *c, struct gtoe_cfg *gc);

/* The card: [device] pci and xclbin, port 0's role and gateway, [tcp] mss, the compiled
 * templates; rx: the receive configuration dp_setup_rx built (kept by the caller while the
 * card is opened). role = tcp: gtoe_top's settings and connection table too (dp_setup_gtoe,
 * dp_setup_tcp_conns; entries enabled, open = accept ones with CTRL_ACCEPT; each entry's MSS
 * and window its feed's, as in the software backend; the kernel-wide MSS the largest). */
void dp_setup_card(struct toe_xrt_params *p, const struct toed_config *c, const struct rx_cfg *rx);

/* The publisher: [shm] max_clients, ring_size (also the history a late subscriber can ask
 * for), hugepages = off, ring_memory_mb. */
void dp_setup_pub(struct pub_config *pc, const struct toed_config *c);

#endif
