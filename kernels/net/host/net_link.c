/* net_link.c - captured link layers turned into Ethernet frames (see net_link.h). */
#include "net/host/net_link.h"

#include "net/net_cfg.h"

#include <pcap/dlt.h>
#include <string.h>

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif

int net_link_supported(int dlt)
{
	return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2 || dlt == DLT_RAW ||
	       dlt == DLT_IPV4;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t net_link_eth_prefix(int dlt, const uint8_t *d, uint32_t caplen, uint8_t hdr[14], uint32_t *skip)
{
	uint16_t type;
	const uint8_t *addr = NULL;
	uint32_t halen = 0;
	*skip = 0;
	if (dlt == DLT_LINUX_SLL) { /* pkttype(2) hatype(2) halen(2) addr(8) protocol(2) */
		if (caplen < 16)
			return 0;
		halen = rd16(d + 4);
		addr = d + 6;
		type = rd16(d + 14);
		*skip = 16;
	} else if (dlt == DLT_LINUX_SLL2) { /* protocol(2) reserved(2) ifindex(4) hatype(2) pkttype(1) halen(1) addr(8) */
		if (caplen < 20)
			return 0;
		type = rd16(d);
		halen = d[11];
		addr = d + 12;
		*skip = 20;
	} else if (dlt == DLT_RAW || dlt == DLT_IPV4) {
		type = (caplen > 0 && (d[0] >> 4) == 6) ? 0x86dd : 0x0800;
	} else {
		return 0; /* Ethernet (or a type net_link_supported refuses) */
	}
	memset(hdr, 0, 14);
	if (addr && halen == 6)
		memcpy(hdr + 6, addr, 6);
	hdr[12] = (uint8_t)(type >> 8);
	hdr[13] = (uint8_t)type;
	return 14;
}

const uint8_t *net_link_frame(int dlt, const uint8_t *d, uint32_t caplen, uint8_t *buf, uint32_t *len)
{
	uint32_t skip, pre = net_link_eth_prefix(dlt, d, caplen, buf, &skip), n;
	if (!pre) {
		*len = caplen;
		return d;
	}
	n = caplen - skip < NET_MAX_FRAME - pre ? caplen - skip : NET_MAX_FRAME - pre;
	memcpy(buf + pre, d + skip, n);
	*len = pre + n;
	return buf;
}
