/* test_net_udp.c - the UDP listen-port table: ports 0 and 65535, every port
 * once, stream ids, unlistened datagrams counted, a hand-written datagram. */
#include "test.h"
#include "net/net_rx.h"
#include "net/net_udp.h"
#include "pktbuild.h"

#include <stdlib.h>

static struct net_cfg cfg;
static struct net_stats st;
static struct net_pkt pkt;
static struct net_udp_table tab;

static void setup(void)
{
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	net_cfg_init(&cfg);
	net_cfg_add(&cfg, 0x0a000002, 0xffffff00, mac, 0);
	net_stats_init(&st);
	net_udp_init(&tab);
}

/* net_rx then net_udp_input: 1 with *stream when delivered. */
static int udp_in(const uint8_t *f, size_t n, uint16_t *stream)
{
	if (net_rx(&cfg, &st, f, (uint32_t)n, 0, &pkt) != NET_RX_UDP)
		return -1;
	return net_udp_input(&tab, &st, &pkt, stream);
}

static size_t dgram(uint8_t *f, size_t cap, uint16_t dport, const char *data)
{
	struct pb_spec s;
	pb_init(&s);
	s.sport = 40000;
	s.dport = dport;
	return pb_udp(f, cap, &s, data, strlen(data));
}

static void edge_ports(void)
{
	uint8_t f[128];
	uint16_t sid = 0;
	size_t n;

	setup();
	CHECK_EQ(sizeof tab.bits, 8192);
	net_udp_listen(&tab, 0, 11);
	net_udp_listen(&tab, 65535, 22);
	CHECK(net_udp_listened(&tab, 0));
	CHECK(net_udp_listened(&tab, 65535));
	CHECK(!net_udp_listened(&tab, 1));
	CHECK(!net_udp_listened(&tab, 65534));
	n = dgram(f, sizeof f, 0, "zero");
	CHECK_EQ(udp_in(f, n, &sid), 1);
	CHECK_EQ(sid, 11);
	CHECK_EQ(pkt.payload_len, 4);
	CHECK_MEM(pkt.payload, "zero", 4);
	n = dgram(f, sizeof f, 65535, "max");
	CHECK_EQ(udp_in(f, n, &sid), 1);
	CHECK_EQ(sid, 22);
	CHECK_MEM(pkt.payload, "max", 3);
	/* neighbours of listened ports are not listened */
	sid = 999;
	n = dgram(f, sizeof f, 1, "one");
	CHECK_EQ(udp_in(f, n, &sid), 0);
	n = dgram(f, sizeof f, 65534, "one");
	CHECK_EQ(udp_in(f, n, &sid), 0);
	CHECK_EQ(sid, 999);
	CHECK_EQ(st.udp.drop_udp_port, 2);
	CHECK_EQ(st.udp.delivered, 2);
	/* unlisten, relisten with another stream */
	net_udp_unlisten(&tab, 0);
	n = dgram(f, sizeof f, 0, "zero");
	CHECK_EQ(udp_in(f, n, &sid), 0);
	CHECK_EQ(st.udp.drop_udp_port, 3);
	CHECK(net_udp_listened(&tab, 65535));
	net_udp_listen(&tab, 65535, 33);
	n = dgram(f, sizeof f, 65535, "max");
	CHECK_EQ(udp_in(f, n, &sid), 1);
	CHECK_EQ(sid, 33);
}

static void every_port(void)
{
	uint32_t p;
	int bad = 0;

	setup();
	/* listen on every odd port with stream id = port ^ 0x5a5a */
	for (p = 1; p < 65536; p += 2)
		net_udp_listen(&tab, (uint16_t)p, (uint16_t)(p ^ 0x5a5a));
	for (p = 0; p < 65536; p++) {
		uint16_t sid = 0xffff;
		int r;
		pkt.dport = (uint16_t)p;
		r = net_udp_input(&tab, &st, &pkt, &sid);
		if (p & 1) {
			if (r != 1 || sid != (uint16_t)(p ^ 0x5a5a))
				bad++;
		} else if (r != 0 || sid != 0xffff) {
			bad++;
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(st.udp.delivered, 32768);
	CHECK_EQ(st.udp.drop_udp_port, 32768);
	/* the bitmap holds exactly the odd ports: word value 0xaaaaaaaa */
	CHECK_EQ(tab.bits[0], 0xaaaaaaaau);
	CHECK_EQ(tab.bits[2047], 0xaaaaaaaau);
	net_udp_init(&tab);
	CHECK_EQ(tab.bits[0], 0);
	CHECK(!net_udp_listened(&tab, 1));
}

static void hand_datagram(void)
{
	uint8_t f[160];
	uint16_t sid = 0;
	size_t n, i;

	setup();
	/* 192.168.0.1 -> 192.168.0.199, the classic header 45 00 00 73 00 00 40 00 40 11 b8 61 ...;
	 * UDP 0x3039 -> 0x5a5a, length 0x5f (95), no checksum; 87 payload bytes 0..86 */
	n = test_hex("02 00 00 00 00 02 02 00 00 00 00 01 08 00"
		     "45 00 00 73 00 00 40 00 40 11 b8 61 c0 a8 00 01 c0 a8 00 c7"
		     "30 39 5a 5a 00 5f 00 00",
		     f, sizeof f);
	CHECK_EQ(n, 42);
	for (i = 0; i < 87; i++)
		f[n++] = (uint8_t)i;
	net_udp_listen(&tab, 0x5a5a, 7);
	CHECK_EQ(udp_in(f, n, &sid), 1);
	CHECK_EQ(sid, 7);
	CHECK_EQ(pkt.saddr, 0xc0a80001);
	CHECK_EQ(pkt.daddr, 0xc0a800c7);
	CHECK_EQ(pkt.sport, 12345);
	CHECK_EQ(pkt.dport, 0x5a5a);
	CHECK_EQ(pkt.payload_len, 87);
	CHECK(pkt.payload == f + 42);
	CHECK_EQ(pkt.payload[86], 86);
	CHECK_EQ(st.udp.no_csum, 1);
}

int main(void)
{
	edge_ports();
	every_port();
	hand_datagram();
	return test_done("net_udp");
}
