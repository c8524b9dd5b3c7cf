/* net_cfg.h - our addresses and receive-path switches (synthesisable subset).
 *
 * One struct the caller owns and passes to every net_ function: the IPv4
 * addresses we answer for (ARP, ICMP echo) with their MACs, and the flags that
 * decide which checks the receive path makes. A mirror port sees traffic for
 * other hosts, so destination filtering is off unless the caller asks for it.
 */
#ifndef NET_CFG_H
#define NET_CFG_H

#include <stdint.h>

#define NET_MAX_ADDRS 4          /* our IPv4 addresses (each with its MAC) */
#define NET_MTU_DEFAULT 1500

/* Largest frame any loop walks: an IPv4 datagram of 65535 bytes behind an
 * Ethernet header with two VLAN tags (a GRO/TSO super-frame is at most this). */
#define NET_MAX_FRAME 65560u
#define NET_MIN_FRAME 60u        /* transmitted frames are zero-padded to this (no FCS) */

/* net_cfg.flags */
#define NET_CFG_TCP_CSUM 0x1u    /* verify TCP checksums (off: NIC/capture left them unfilled) */
#define NET_CFG_UDP_CSUM 0x2u    /* verify non-zero UDP checksums */
#define NET_CFG_FILTER_DST 0x4u  /* drop IPv4 not addressed to us (broadcast and multicast pass) */
#define NET_CFG_CSUM_HINTS 0x8u  /* trust the source's per-frame checksum status (net_rx_csum):
				  * skip the check of a frame marked verified or not yet computed */

struct net_if_addr {
	uint32_t ip;     /* host byte order */
	uint32_t mask;   /* subnet mask, host byte order (picks the source of ARP requests) */
	uint8_t mac[6];
	uint16_t vlan;   /* VLAN id for frames we originate (ARP requests); 0 = untagged */
};

struct net_cfg {
	struct net_if_addr addr[NET_MAX_ADDRS];
	uint32_t naddr;  /* entries of addr[] in use */
	uint32_t flags;  /* NET_CFG_* */
	uint32_t mtu;    /* IPv4 packets larger than this are accepted but counted (ip.in_oversize) */
};

/* Defaults: no addresses, TCP and UDP checksums verified, no destination filter. */
static inline void net_cfg_init(struct net_cfg *c)
{
	uint32_t i, j;
	for (i = 0; i < NET_MAX_ADDRS; i++) {
		c->addr[i].ip = 0;
		c->addr[i].mask = 0;
		for (j = 0; j < 6; j++)
			c->addr[i].mac[j] = 0;
		c->addr[i].vlan = 0;
	}
	c->naddr = 0;
	c->flags = NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM;
	c->mtu = NET_MTU_DEFAULT;
}

/* Index of `ip` among our addresses, or -1. */
static inline int net_cfg_find(const struct net_cfg *c, uint32_t ip)
{
	uint32_t i;
	for (i = 0; i < NET_MAX_ADDRS; i++) {
		if (i >= c->naddr)
			break;
		if (c->addr[i].ip == ip)
			return (int)i;
	}
	return -1;
}

/* Add an address; returns its index or -1 when the table is full. */
static inline int net_cfg_add(struct net_cfg *c, uint32_t ip, uint32_t mask, const uint8_t mac[6], uint16_t vlan)
{
	uint32_t j, i = c->naddr;
	if (i >= NET_MAX_ADDRS)
		return -1;
	c->addr[i].ip = ip;
	c->addr[i].mask = mask;
	for (j = 0; j < 6; j++)
		c->addr[i].mac[j] = mac[j];
	c->addr[i].vlan = vlan;
	c->naddr = i + 1;
	return (int)i;
}

#endif
