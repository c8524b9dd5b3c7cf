/* dp_mcast.c - multicast UDP feeds: their groups joined on the port's interface (see dp_mcast.h). */
#include "dp/dp_mcast.h"

#include <errno.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"

uint32_t dp_mcast_plan(const struct toed_config *cfg, struct dp_mcast_join out[DP_MCAST_MAX])
{
	uint32_t n = 0;
	/* the card filters on its own MAC; a replay has no interface to join on */
	if (cfg->device.backend != TOED_BACKEND_SW ||
	    (cfg->source.type != TOED_SRC_AF_XDP && cfg->source.type != TOED_SRC_AF_PACKET))
		return 0;
	for (uint32_t i = 0; i < cfg->nfeeds && n < DP_MCAST_MAX; i++) {
		const struct toed_feed *f = &cfg->feed[i];
		if (!toed_feed_multicast(f) || f->port >= TOED_MAX_PORTS ||
		    !cfg->port[f->port].enabled)
			continue;
		/* a feed that names its sender takes only its datagrams: ask the network for those alone */
		uint32_t source = f->exchange.ip;
		int dup = 0;
		for (uint32_t k = 0; k < n && !dup; k++)
			dup = out[k].port == f->port && out[k].group == f->vendor.ip && out[k].source == source;
		if (dup)
			continue;
		struct dp_mcast_join *j = &out[n++];
		memset(j, 0, sizeof *j);
		j->port = f->port;
		j->group = f->vendor.ip;
		j->source = source;
		j->feed = i;
		snprintf(j->feed_name, sizeof j->feed_name, "%s", f->name);
		snprintf(j->ifname, sizeof j->ifname, "%s", toed_port_interface(cfg, f->port));
	}
	return n;
}

static void ip_str(uint32_t ip, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

static const char *join_errno(int e)
{
	switch (e) {
	case ENOBUFS: return "the kernel refused another membership (net.ipv4.igmp_max_memberships / igmp_max_msf)";
	case ENODEV: return "no such interface (or no IPv4 on it)";
	case EADDRNOTAVAIL: return "the kernel cannot take this membership on the interface (EADDRNOTAVAIL)";
	default: return strerror(e);
	}
}

/* A UDP socket that holds the membership and never any data: unbound (no port, so the stack
 * delivers it nothing), with a filter that drops whatever might still reach it, and the
 * smallest buffer the kernel allows. */
static int quiet_socket(void)
{
	static struct sock_filter drop_all[] = {{BPF_RET | BPF_K, 0, 0, 0}};
	struct sock_fprog prog = {.len = 1, .filter = drop_all};
	int one = 1;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof one) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int join(int fd, int ifindex, uint32_t group, uint32_t source)
{
	if (!source) {
		struct ip_mreqn mr;
		memset(&mr, 0, sizeof mr);
		mr.imr_multiaddr.s_addr = htonl(group);
		mr.imr_ifindex = ifindex;
		return setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof mr);
	}
	/* by interface index (RFC 3678): ip_mreq_source would name the interface by an address */
	struct group_source_req gs;
	memset(&gs, 0, sizeof gs);
	gs.gsr_interface = (uint32_t)ifindex;
	struct sockaddr_in *g = (struct sockaddr_in *)&gs.gsr_group, *s = (struct sockaddr_in *)&gs.gsr_source;
	g->sin_family = AF_INET;
	g->sin_addr.s_addr = htonl(group);
	s->sin_family = AF_INET;
	s->sin_addr.s_addr = htonl(source);
	return setsockopt(fd, IPPROTO_IP, MCAST_JOIN_SOURCE_GROUP, &gs, sizeof gs);
}

/* "239.31.7.1" or "232.1.1.1 from 10.0.0.1" */
static void join_str(const struct dp_mcast_join *j, char *buf, size_t len)
{
	char g[16], s[16];
	ip_str(j->group, g, sizeof g);
	if (!j->source) {
		snprintf(buf, len, "%s", g);
		return;
	}
	ip_str(j->source, s, sizeof s);
	snprintf(buf, len, "%s from %s", g, s);
}

int dp_mcast_open(struct dp_mcast *m, const struct toed_config *cfg, char *err, size_t errlen)
{
	struct dp_mcast_join plan[DP_MCAST_MAX];
	uint32_t n = dp_mcast_plan(cfg, plan);
	m->n = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct dp_mcast_join *j = &plan[i];
		char what[40];
		join_str(j, what, sizeof what);
		/* Fatal, like a source that cannot open: a multicast feed without its membership
		 * receives nothing on a real network while toed looks healthy, a silent outage that
		 * a failed start (seen by systemd and the operator) does not have. */
		unsigned idx = if_nametoindex(j->ifname);
		if (!idx) {
			snprintf(err, errlen, "[feed.%s]: cannot join multicast group %s on %s (port %u): %s", j->feed_name,
				 what, j->ifname, j->port, join_errno(errno));
			return -1;
		}
		int fd = quiet_socket();
		if (fd < 0) {
			snprintf(err, errlen, "[feed.%s]: multicast group %s on %s (port %u): socket: %s", j->feed_name, what,
				 j->ifname, j->port, strerror(errno));
			return -1;
		}
		if (join(fd, (int)idx, j->group, j->source) < 0) {
			int e = errno;
			close(fd);
			snprintf(err, errlen, "[feed.%s]: cannot join multicast group %s on %s (port %u): %s", j->feed_name,
				 what, j->ifname, j->port, join_errno(e));
			return -1;
		}
		m->join[m->n] = *j;
		m->fd[m->n++] = fd;
		log_notice("port %u: joined multicast group %s on %s for [feed.%s]%s", j->port, what, j->ifname,
			   j->feed_name, j->source ? " (source-specific: its exchange address)" : "");
	}
	return 0;
}

void dp_mcast_close(struct dp_mcast *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		close(m->fd[i]);
	m->n = 0;
}

const char *dp_mcast_describe(const struct dp_mcast *m, uint32_t port, char *buf, size_t len)
{
	size_t o = 0;
	if (len)
		buf[0] = 0;
	for (uint32_t i = 0; i < m->n && o < len; i++) {
		const struct dp_mcast_join *j = &m->join[i];
		char what[40];
		if (j->port != port)
			continue;
		join_str(j, what, sizeof what);
		o += (size_t)snprintf(buf + o, len - o, "%s%s (feed %s)", o ? ", " : "", what, j->feed_name);
	}
	return buf;
}
