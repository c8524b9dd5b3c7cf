/* net_util.h - byte access helpers shared by the net_ files (synthesisable subset).
 *
 * Network byte order on the wire, host order in variables; no libc, so copies
 * and fills are bounded loops.
 */
#ifndef NET_UTIL_H
#define NET_UTIL_H

#include <stdint.h>
#include "net_cfg.h"

#define NET_ETHERTYPE_IPV4 0x0800u
#define NET_ETHERTYPE_ARP 0x0806u
#define NET_ETHERTYPE_VLAN 0x8100u  /* 802.1Q */
#define NET_ETHERTYPE_QINQ 0x88a8u  /* 802.1ad service tag */
#define NET_ETH_HLEN 14u
#define NET_MAX_VLAN 2u

static inline uint16_t net_get16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t net_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void net_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void net_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void net_copy_mac(uint8_t *d, const uint8_t *s)
{
	uint32_t i;
	for (i = 0; i < 6; i++)
		d[i] = s[i];
}

/* Copy n bytes (n <= NET_MAX_FRAME). */
static inline void net_copy(uint8_t *d, const uint8_t *s, uint32_t n)
{
	uint32_t i;
	for (i = 0; i < NET_MAX_FRAME; i++) {
		if (i >= n)
			break;
		d[i] = s[i];
	}
}

/* Zero d[from..to) (to <= NET_MIN_FRAME): Ethernet padding of short frames. */
static inline void net_zero_pad(uint8_t *d, uint32_t from, uint32_t to)
{
	uint32_t i;
	for (i = 0; i < NET_MIN_FRAME; i++) {
		if (from + i >= to)
			break;
		d[from + i] = 0;
	}
}

#endif
