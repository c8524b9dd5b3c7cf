/* dp_resp.h - a port that speaks for its address (software backend): ARP requests and ICMP echo answered.
 *
 * Every port with an address and a source that can send (dp_setup_answers:
 * role = tcp or udp with an ip, not a pcap replay) has one responder: ARP
 * requests for the port's address are answered with the port's MAC (the
 * interface's unless [port] mac sets one), ICMP echo requests to it with an
 * echo reply, both carrying the request's VLAN tags, out through the port's
 * own source (src_tx: the AF_XDP tx ring or AF_PACKET send()). The replies
 * are built by kernels/net (net_arp_input, net_icmp_input), so the card and
 * the CPU answer the same way.
 *
 * Who calls it: on a role = tcp port dp/dp_tcp owns it (its ARP table is also
 * the resolver of the connections' next hops, and its dp_resp_send carries the
 * connections' segments); on a role = udp port (any of 0..3) the data-plane
 * thread, after rx_frame_port classified a frame ARP or ICMP. A mirror port
 * has none, and its source is opened without a transmit side (src_tx refuses
 * and counts tx_refused).
 */
#ifndef TOED_DP_RESP_H
#define TOED_DP_RESP_H

#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "net/net_arp.h"
#include "net/net_cfg.h"
#include "net/net_counters.h"
#include "net/net_pkt.h"
#include "src/src.h"

/* Counters of a port's responder (toectl stats: each port's block; port 0 of role = tcp also in tcp). */
#define DP_RESP_STATS(X)                                                                         \
	X(arp_replies, "ARP replies sent for the port's address")                                \
	X(icmp_replies, "ICMP echo replies sent")                                                \
	X(tx_fail, "frames the source did not take (its tx counters say why)")

struct dp_resp_stats {
#define DP_RESP_FIELD_(f, d) uint64_t f;
	DP_RESP_STATS(DP_RESP_FIELD_)
#undef DP_RESP_FIELD_
};

struct dp_resp {
	uint32_t port;          /* 0..3 */
	uint32_t pending;       /* frames given to the source since the last dp_resp_flush */
	struct net_arp arp;     /* learns every ARP sender (RFC 826); dp_tcp resolves next hops here */
	struct src *src;        /* the port's source, set once it is open */
	struct dp_resp_stats st;
	uint8_t tx[NET_MAX_FRAME]; /* a reply is at most as long as its request */
};

/* For port `port` of cfg: net is the port's network settings (dp_setup_net), whose
 * addresses without a MAC get the interface's (SIOCGIFHWADDR on toed_port_interface);
 * warns when the host owns the address too. 0, or -1 with err. */
int dp_resp_init(struct dp_resp *r, const struct toed_config *cfg, uint32_t port, struct net_cfg *net, char *err,
		 size_t errlen);

/* A frame the network layer classified (verdict: enum net_rx_verdict, pkt: what it parsed, net
 * and st: the port's settings and the pipeline's network counters): an ARP request for one of
 * net's addresses or an ICMP echo request to one is answered; every ARP packet teaches the table.
 * Returns 1 when a reply was given to the source, else 0. */
int dp_resp_input(struct dp_resp *r, const struct net_cfg *net, struct net_stats *st, int32_t verdict,
		  const struct net_pkt *pkt, uint64_t now_ns);

/* A frame out through the port's source (counted in tx_fail when it does not take it). */
void dp_resp_send(struct dp_resp *r, const uint8_t *frame, uint32_t len);

/* Kick the source when frames are queued (AF_XDP sends at the kick; once per burst). */
void dp_resp_flush(struct dp_resp *r);

#endif
