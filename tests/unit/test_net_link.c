/* test_net_link.c - captured link layers turned into Ethernet frames (kernels/net/host/net_link.c).
 *
 * Which link types are read, and the Ethernet header each gets: Linux
 * cooked SLL and SLL2 (their 6-byte address as the source MAC, their
 * protocol as the EtherType, their own header skipped), raw IP (version 4
 * or 6 by the first nibble, nothing skipped), Ethernet (nothing to do),
 * headers cut short (passed on unchanged); and a frame of each kind, so
 * rebuilt, taken by net_rx exactly as the Ethernet original.
 */
#include "test.h"

#include <pcap/dlt.h>
#include <string.h>

#include "net/host/net_link.h"
#include "net/net_cfg.h"
#include "net/net_rx.h"
#include "pktbuild.h"

static const uint8_t mac[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};

static void supported(void)
{
	CHECK(net_link_supported(DLT_EN10MB));
	CHECK(net_link_supported(DLT_LINUX_SLL));
	CHECK(net_link_supported(DLT_LINUX_SLL2));
	CHECK(net_link_supported(DLT_RAW));
	CHECK(net_link_supported(228)); /* DLT_IPV4 */
	CHECK(!net_link_supported(DLT_IEEE802_11));
	CHECK(!net_link_supported(DLT_NULL));
}

static void headers(void)
{
	uint8_t hdr[14], d[64];
	uint32_t skip = 99;
	/* SLL: pkttype(2) hatype(2) halen(2) addr(8) protocol(2) */
	memset(d, 0, sizeof d);
	d[3] = 1, d[5] = 6;
	memcpy(d + 6, mac, 6);
	d[14] = 0x08, d[15] = 0x00, d[16] = 0x45;
	CHECK_EQ(net_link_eth_prefix(DLT_LINUX_SLL, d, 40, hdr, &skip), 14);
	CHECK_EQ(skip, 16);
	CHECK(!memcmp(hdr, "\0\0\0\0\0\0", 6));
	CHECK(!memcmp(hdr + 6, mac, 6));
	CHECK(hdr[12] == 0x08 && hdr[13] == 0x00);
	/* an address that is not 6 bytes long is not a MAC: source zero */
	d[5] = 8;
	CHECK_EQ(net_link_eth_prefix(DLT_LINUX_SLL, d, 40, hdr, &skip), 14);
	CHECK(!memcmp(hdr + 6, "\0\0\0\0\0\0", 6));
	/* cut short: passed on */
	skip = 99;
	CHECK_EQ(net_link_eth_prefix(DLT_LINUX_SLL, d, 15, hdr, &skip), 0);
	CHECK_EQ(skip, 0);

	/* SLL2: protocol(2) reserved(2) ifindex(4) hatype(2) pkttype(1) halen(1) addr(8) */
	memset(d, 0, sizeof d);
	d[0] = 0x86, d[1] = 0xdd, d[7] = 3, d[9] = 1, d[11] = 6;
	memcpy(d + 12, mac, 6);
	CHECK_EQ(net_link_eth_prefix(DLT_LINUX_SLL2, d, 40, hdr, &skip), 14);
	CHECK_EQ(skip, 20);
	CHECK(!memcmp(hdr + 6, mac, 6));
	CHECK(hdr[12] == 0x86 && hdr[13] == 0xdd);
	CHECK_EQ(net_link_eth_prefix(DLT_LINUX_SLL2, d, 19, hdr, &skip), 0);
	CHECK_EQ(skip, 0);

	/* raw IP: by version, nothing skipped */
	memset(d, 0, sizeof d);
	d[0] = 0x45;
	CHECK_EQ(net_link_eth_prefix(DLT_RAW, d, 40, hdr, &skip), 14);
	CHECK_EQ(skip, 0);
	CHECK(hdr[12] == 0x08 && hdr[13] == 0x00);
	CHECK(!memcmp(hdr, "\0\0\0\0\0\0\0\0\0\0\0\0", 12));
	d[0] = 0x60;
	CHECK_EQ(net_link_eth_prefix(228, d, 40, hdr, &skip), 14);
	CHECK(hdr[12] == 0x86 && hdr[13] == 0xdd);

	/* Ethernet: nothing to do */
	skip = 99;
	CHECK_EQ(net_link_eth_prefix(DLT_EN10MB, d, 40, hdr, &skip), 0);
	CHECK_EQ(skip, 0);
}

/* One UDP datagram as Ethernet, then re-wrapped as each kind and rebuilt:
 * net_rx's verdict and payload are the same. */
static void through_net_rx(void)
{
	struct pb_spec s;
	uint8_t eth[256], wrapped[256], rebuilt[256], hdr[14];
	static const uint8_t payload[] = "8=STEP.1.0.0";
	struct net_cfg cfg;
	struct net_stats st;
	struct net_pkt p0, p1;
	size_t n;
	pb_init(&s);
	s.saddr = 0x0a000001, s.daddr = 0x0a000002, s.sport = 5000, s.dport = 6000;
	memcpy(s.src_mac, mac, 6);
	n = pb_udp(eth, sizeof eth, &s, payload, sizeof payload - 1);
	CHECK(n > 14);
	net_cfg_init(&cfg);
	memset(&st, 0, sizeof st);
	int v0 = net_rx(&cfg, &st, eth, (uint32_t)n, 1, &p0);
	CHECK_EQ(v0, NET_RX_UDP);
	static const int kinds[] = {DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW};
	for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		uint32_t hl = kinds[k] == DLT_LINUX_SLL ? 16 : kinds[k] == DLT_LINUX_SLL2 ? 20 : 0, skip, pre;
		memset(wrapped, 0, hl);
		if (kinds[k] == DLT_LINUX_SLL) {
			wrapped[5] = 6;
			memcpy(wrapped + 6, eth + 6, 6);
			memcpy(wrapped + 14, eth + 12, 2);
		} else if (kinds[k] == DLT_LINUX_SLL2) {
			memcpy(wrapped, eth + 12, 2);
			wrapped[11] = 6;
			memcpy(wrapped + 12, eth + 6, 6);
		}
		memcpy(wrapped + hl, eth + 14, n - 14);
		pre = net_link_eth_prefix(kinds[k], wrapped, (uint32_t)(hl + n - 14), hdr, &skip);
		CHECK_EQ(pre, 14);
		CHECK_EQ(skip, hl);
		memcpy(rebuilt, hdr, 14);
		memcpy(rebuilt + 14, wrapped + skip, n - 14);
		if (kinds[k] != DLT_RAW)
			CHECK(!memcmp(rebuilt + 6, eth + 6, n - 6)); /* all but the destination MAC */
		int v1 = net_rx(&cfg, &st, rebuilt, (uint32_t)n, 1, &p1);
		CHECK_EQ(v1, v0);
		CHECK_EQ(p1.payload_len, p0.payload_len);
		CHECK(p1.payload_len == sizeof payload - 1 && !memcmp(p1.payload, payload, sizeof payload - 1));
	}
}

int main(void)
{
	supported();
	headers();
	through_net_rx();
	return test_done("net_link");
}
