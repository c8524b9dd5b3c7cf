/* dp_resp.c - a port that speaks for its address: ARP and ICMP echo answered (see dp_resp.h). */
#include "dp/dp_resp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "net/net_icmp.h"
#include "net/net_rx.h"

/* The interface's MAC (SIOCGIFHWADDR): a port without `mac` answers with it. */
static int if_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	r = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	if (r < 0)
		return -1;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/* The port's address must be toed's alone: a host stack that owns it answers
 * ARP and ping too and resets toed's connections (with AF_PACKET it sees
 * every frame; with AF_XDP its own traffic still goes out). Warn, do not refuse:
 * the address may be on an interface of another namespace's view. */
static void host_owns(uint32_t port, uint32_t ip)
{
	struct ifaddrs *ifa, *i;
	if (getifaddrs(&ifa) < 0)
		return;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (ntohl(((const struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr) != ip)
			continue;
		log_warn("[port.%u] ip = %u.%u.%u.%u is also the host's, on %s: its stack answers ARP and ping for it "
			 "(and resets toed's connections); give the port an address the host does not own",
			 port, ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255, i->ifa_name);
		break;
	}
	freeifaddrs(ifa);
}

int dp_resp_init(struct dp_resp *r, const struct toed_config *cfg, uint32_t port, struct net_cfg *net, char *err,
		 size_t errlen)
{
	static const uint8_t zero[6];
	const char *ifname = toed_port_interface(cfg, port);
	memset(r, 0, sizeof *r);
	r->port = port;
	net_arp_init(&r->arp);
	for (uint32_t i = 0; i < net->naddr; i++)
		if (!memcmp(net->addr[i].mac, zero, 6) && if_mac(ifname, net->addr[i].mac) < 0) {
			snprintf(err, errlen, "%s: [port.%u] has no mac and the MAC of %s cannot be read: %s", cfg->path,
				 port, ifname, strerror(errno));
			return -1;
		}
	if (port < TOED_MAX_PORTS && cfg->port[port].ip)
		host_owns(port, cfg->port[port].ip);
	return 0;
}

void dp_resp_send(struct dp_resp *r, const uint8_t *frame, uint32_t len)
{
	if (!len)
		return;
	if (!r->src || src_tx(r->src, frame, len) < 0) {
		r->st.tx_fail++;
		return;
	}
	r->pending++;
}

void dp_resp_flush(struct dp_resp *r)
{
	if (!r->pending || !r->src)
		return;
	r->pending = 0;
	src_tx_flush(r->src);
}

int dp_resp_input(struct dp_resp *r, const struct net_cfg *net, struct net_stats *st, int32_t verdict,
		  const struct net_pkt *pkt, uint64_t now_ns)
{
	uint32_t n;
	if (verdict == NET_RX_ARP) {
		n = net_arp_input(&r->arp, net, st, pkt, now_ns, r->tx, sizeof r->tx);
		if (!n)
			return 0;
		r->st.arp_replies++;
	} else if (verdict == NET_RX_ICMP) {
		n = net_icmp_input(net, st, pkt, r->tx, sizeof r->tx);
		if (!n)
			return 0;
		r->st.icmp_replies++;
	} else {
		return 0;
	}
	dp_resp_send(r, r->tx, n);
	return 1;
}
