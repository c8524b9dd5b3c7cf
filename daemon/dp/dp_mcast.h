/* dp_mcast.h - multicast UDP feeds (software backend): toed joins their groups on the port's interface.
 *
 * A UDP feed whose vendor address is a multicast group (224.0.0.0/4) is
 * read by toed's own source (AF_XDP or AF_PACKET), but on a real network
 * nothing arrives unless somebody on the host joined the group: the NIC's
 * multicast filter drops the group's frames (AF_XDP does not make the
 * interface promiscuous), and a switch that snoops IGMP forwards the group
 * only to ports that sent a membership report. So toed joins each group on
 * the interface of the feed's port with a plain AF_INET UDP socket: the
 * kernel then programs the NIC's filter and answers the IGMP queries.
 *
 * Such a socket must never hold data: the frames are toed's source's (XDP
 * redirects them before the stack; with AF_PACKET the stack sees them too).
 * It is never bound (an unbound UDP socket has no port, so the stack
 * delivers it nothing), and as a second guard it carries a socket filter
 * that accepts nothing and the smallest receive buffer.
 *
 * Source-specific joins: a feed that names its `exchange` address takes
 * only datagrams from that sender anyway, so toed joins (group, exchange)
 * (IGMPv3 INCLUDE, MCAST_JOIN_SOURCE_GROUP, by interface index: the older
 * IP_ADD_SOURCE_MEMBERSHIP names the interface by an address, which a port
 * speaking for an address the host does not own lacks). That is also what
 * the SSM range 232/8 needs. Without `exchange` it is an any-source join
 * (IP_ADD_MEMBERSHIP, struct ip_mreqn with the interface's index). On an
 * IGMPv2 network the kernel reports the group alone either way.
 *
 * One socket per join: the kernel bounds the groups of one socket
 * (net.ipv4.igmp_max_memberships, 20 by default) and the sources of one
 * group (igmp_max_msf), and with one socket each a refusal names one feed.
 * At most TOED_MAX_FEEDS sockets (toed_fds_needed, conf/config.h, counts
 * them). Feeds are restart keys, so the joins are made once at start
 * (toed_dp_open, after the sources opened: the interfaces exist) and kept
 * until toed exits; closing the sockets leaves the groups.
 */
#ifndef TOED_DP_MCAST_H
#define TOED_DP_MCAST_H

#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"

#define DP_MCAST_MAX TOED_MAX_FEEDS /* one join per UDP feed at most */

/* One membership: a group on a port's interface, from one source or any. */
struct dp_mcast_join {
	uint32_t port;                 /* the feed's port, 0..3 */
	uint32_t group;                /* host byte order */
	uint32_t source;               /* host byte order; 0: any source */
	uint32_t feed;                 /* index in cfg->feed[] of the first feed that needs it */
	char feed_name[TOED_NAME_MAX]; /* its name (the log, toectl) */
	char ifname[TOED_IFNAME_MAX];  /* the port's interface (toed_port_interface) */
};

/* The joins cfg needs, without duplicates (two feeds of one group and source on one port join
 * once), in feed order: UDP feeds with a multicast vendor address, software backend with an
 * af_xdp or af_packet source (a pcap replay reads a file; the card has its own MAC). Pure:
 * reads only cfg. Returns the number written to out. */
uint32_t dp_mcast_plan(const struct toed_config *cfg, struct dp_mcast_join out[DP_MCAST_MAX]);

struct dp_mcast {
	uint32_t n;                          /* joins made: join[0 .. n), fd[0 .. n) */
	struct dp_mcast_join join[DP_MCAST_MAX];
	int fd[DP_MCAST_MAX];
};

/* Make every join of dp_mcast_plan(cfg), logging each (notice). 0, or -1 with err naming the
 * feed, the group and the interface (the joins made so far are left: dp_mcast_close). */
int dp_mcast_open(struct dp_mcast *m, const struct toed_config *cfg, char *err, size_t errlen);

/* Close the sockets: the kernel leaves the groups. A zeroed struct is fine. */
void dp_mcast_close(struct dp_mcast *m);

/* Port `port`'s joins for toectl: "239.31.7.1 (feed m), 232.1.1.1 from 10.0.0.1 (feed n)",
 * "" when none. Returns buf. */
const char *dp_mcast_describe(const struct dp_mcast *m, uint32_t port, char *buf, size_t len);

#endif
