/* test_net_tx.c - the transmit builders: TCP/IPv4/Ethernet frames, the next hop, routing through ARP.
 *
 * Frames from net_tx_tcp() are compared byte for byte with the independent
 * test packet builder (tests/lib/pktbuild.c, its own checksum code), with
 * and without a VLAN tag, with options and a payload in two slices, short
 * (padded to 60) and full-sized; net_rx() must accept them with checksum
 * verification on. A general-TOE segment goes through gtoe_frame() and
 * back through net_rx + gtoe_opt_parse with every option intact.
 * net_tx_route(): a peer on our subnet is resolved directly, one off it
 * through the gateway; the first call writes an ARP request (WAIT), the
 * reply resolves it (OK, MACs and VLAN in the link header).
 */
#include "test.h"
#include "pktbuild.h"
#include "net/net_tx.h"
#include "net/net_rx.h"
#include "net/net_util.h"
#include "toe/gtoe_frame.h"

static const uint8_t MAC_A[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t MAC_B[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static void build_pair(uint16_t vlan, uint32_t plen, uint32_t split, const uint8_t *opt, uint32_t optlen)
{
	static uint8_t payload[1500], a[2000], b[2000];
	struct net_tx_l2 l2;
	struct net_tcp_tx t;
	struct pb_spec s;
	struct net_cfg cfg;
	struct net_stats st;
	struct net_pkt pkt;
	uint32_t i, na;
	size_t nb;
	for (i = 0; i < plen; i++)
		payload[i] = (uint8_t)(i ^ 0x5a);
	memset(&l2, 0, sizeof l2);
	memcpy(l2.dst, MAC_B, 6);
	memcpy(l2.src, MAC_A, 6);
	l2.vlan = vlan;
	l2.pcp = 5;
	memset(&t, 0, sizeof t);
	t.saddr = 0x0a000001u;
	t.daddr = 0x0a000002u;
	t.sport = 12345;
	t.dport = 8080;
	t.seq = 0xdeadbeefu;
	t.ack = 0x01020304u;
	t.win = 4321;
	t.flags = TCP_ACK | TCP_PSH;
	t.ip_id = 77;
	t.opt = opt;
	t.optlen = optlen;
	t.data[0] = payload;
	t.len[0] = split;
	t.data[1] = payload + split;
	t.len[1] = plen - split;
	na = net_tx_tcp(&l2, &t, a, sizeof a);
	pb_init(&s);
	s.seq = t.seq;
	s.ack = t.ack;
	s.win = t.win;
	s.tcp_flags = t.flags;
	s.ip_id = 77;
	s.ip_frag = PB_IP_DF;
	s.tcp_opts = opt;
	s.tcp_optlen = optlen;
	if (vlan) {
		s.nvlan = 1;
		s.vlan_tci[0] = (uint16_t)(5 << 13 | vlan);
	}
	nb = pb_tcp(b, sizeof b, &s, payload, plen);
	CHECK(na > 0);
	CHECK_EQ(na, nb);
	CHECK_MEM(a, b, nb);
	net_cfg_init(&cfg);
	net_stats_init(&st);
	CHECK_EQ(net_rx(&cfg, &st, a, na, 0, &pkt), NET_RX_TCP);
	CHECK_EQ(pkt.payload_len, plen);
	CHECK_EQ(pkt.seq, 0xdeadbeefu);
	CHECK_EQ(pkt.nvlan, vlan ? 1 : 0);
	/* the IPv4 header checksums to zero with the independent code */
	CHECK_EQ(pb_csum(a + net_pkt_l3(&pkt), 20, 0), 0);
}

static void test_frames(void)
{
	static const uint8_t opt[12] = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 };
	uint8_t small[10];
	struct net_tx_l2 l2;
	struct net_tcp_tx t;
	build_pair(0, 0, 0, NULL, 0);         /* pure ACK, padded to 60 */
	build_pair(0, 1408, 1000, opt, 12);   /* full segment in two slices */
	build_pair(100, 7, 3, opt, 12);       /* tagged, odd length */
	build_pair(4095, 1396, 1396, opt, 12);
	/* refused: no room, bad options */
	memset(&l2, 0, sizeof l2);
	memset(&t, 0, sizeof t);
	CHECK_EQ(net_tx_tcp(&l2, &t, small, sizeof small), 0);
	t.optlen = 3;
	CHECK_EQ(net_tx_tcp(&l2, &t, small, sizeof small), 0);
}

static void test_gtoe_frame_roundtrip(void)
{
	struct gtoe_seg s, p;
	struct net_tx_l2 l2;
	struct net_cfg cfg;
	struct net_stats st;
	struct net_pkt pkt;
	uint8_t f[2000];
	uint32_t n;
	const uint8_t *ip, *tcp;
	memset(&s, 0, sizeof s);
	memset(&l2, 0, sizeof l2);
	s.saddr = 0x0a000001u;
	s.daddr = 0x0a000002u;
	s.sport = 1;
	s.dport = 2;
	s.seq = 5;
	s.ack = 6;
	s.flags = TCP_SYN | TCP_ACK;
	s.win = 1000;
	s.has_mss = 1;
	s.mss = 1408;
	s.has_ws = 1;
	s.ws = 7;
	s.sack_ok = 1;
	s.has_ts = 1;
	s.tsval = 0x11223344u;
	s.tsecr = 0x55667788u;
	s.data[0] = (const uint8_t *)"abcdef";
	s.len[0] = 6;
	n = gtoe_frame(&s, &l2, 9, f, sizeof f);
	CHECK(n > 0);
	net_cfg_init(&cfg);
	net_stats_init(&st);
	CHECK_EQ(net_rx(&cfg, &st, f, n, 0, &pkt), NET_RX_TCP);
	ip = f + net_pkt_l3(&pkt);
	tcp = ip + 20;
	CHECK_EQ(tcp[12] >> 4, 5 + 5); /* 20 option bytes: MSS 4, SACK-perm+TS 12, NOP+WS 4 */
	memset(&p, 0, sizeof p);
	gtoe_opt_parse(tcp + 20, 20, &p);
	CHECK_EQ(p.has_mss, 1);
	CHECK_EQ(p.mss, 1408);
	CHECK_EQ(p.has_ws, 1);
	CHECK_EQ(p.ws, 7);
	CHECK_EQ(p.sack_ok, 1);
	CHECK_EQ(p.has_ts, 1);
	CHECK_EQ(p.tsval, 0x11223344u);
	CHECK_EQ(p.tsecr, 0x55667788u);
	CHECK_EQ(pkt.payload_len, 6);
	/* SACK blocks: 3 beside timestamps, 4 without */
	memset(&s, 0, sizeof s);
	s.nsack = 4;
	s.sack[0][0] = 1; s.sack[0][1] = 2; s.sack[1][0] = 3; s.sack[1][1] = 4;
	s.sack[2][0] = 5; s.sack[2][1] = 6; s.sack[3][0] = 7; s.sack[3][1] = 8;
	{
		uint8_t o[GTOE_OPT_MAX];
		uint32_t len = gtoe_opt_build(&s, o);
		CHECK_EQ(len, 4 + 32);
		memset(&p, 0, sizeof p);
		gtoe_opt_parse(o, len, &p);
		CHECK_EQ(p.nsack, 4);
		CHECK_EQ(p.sack[3][1], 8);
		s.has_ts = 1;
		len = gtoe_opt_build(&s, o);
		CHECK_EQ(len, 12 + 4 + 24);
		gtoe_opt_parse(o, len, &p);
		CHECK_EQ(p.nsack, 3);
		CHECK_EQ(p.has_ts, 1);
		/* malformed: a length running past the end stops parsing, nothing read beyond */
		o[0] = 2;
		o[1] = 60;
		memset(&p, 0, sizeof p);
		gtoe_opt_parse(o, 4, &p);
		CHECK_EQ(p.has_mss, 0);
		/* a window scale above 14 is taken as 14 (RFC 7323 2.3) */
		o[0] = 3; o[1] = 3; o[2] = 20; o[3] = 0;
		gtoe_opt_parse(o, 4, &p);
		CHECK_EQ(p.ws, 14);
	}
}

static void test_route(void)
{
	static const uint8_t gw_mac[6] = { 0x02, 0, 0, 0, 0, 0xfe };
	struct net_cfg cfg;
	struct net_stats st;
	struct net_arp arp;
	struct net_tx_l2 l2;
	struct net_pkt pkt;
	struct pb_spec s;
	uint8_t req[NET_ARP_FRAME_MAX], rep[100], out[100];
	uint32_t rlen;
	size_t n;
	net_cfg_init(&cfg);
	net_stats_init(&st);
	net_arp_init(&arp);
	net_cfg_add(&cfg, 0x0a000001u, 0xffffff00u, MAC_A, 42);
	CHECK_EQ(net_next_hop(&cfg, 0x0a0000feu, 0x0a000002u), 0x0a000002u);
	CHECK_EQ(net_next_hop(&cfg, 0x0a0000feu, 0x08080808u), 0x0a0000feu);
	CHECK_EQ(net_next_hop(&cfg, 0, 0x08080808u), 0x08080808u);
	/* off-subnet peer: ARP for the gateway */
	CHECK_EQ(net_tx_route(&arp, &cfg, &st, 0x0a0000feu, 0x0a000001u, 0x08080808u, 0, &l2, req, sizeof req, &rlen),
		 NET_ARP_WAIT);
	CHECK_EQ(rlen, 60);
	CHECK_EQ(net_get16(req + 12), NET_ETHERTYPE_VLAN);
	CHECK_EQ(net_get16(req + 14) & 0xfff, 42);
	CHECK_EQ(net_get32(req + 18 + 24), 0x0a0000feu); /* target protocol address */
	CHECK_EQ(st.arp.out_requests, 1);
	/* asked again while pending: no second request */
	CHECK_EQ(net_tx_route(&arp, &cfg, &st, 0x0a0000feu, 0x0a000001u, 0x08080808u, 1, &l2, req, sizeof req, &rlen),
		 NET_ARP_WAIT);
	CHECK_EQ(rlen, 0);
	/* the gateway's reply */
	pb_init(&s);
	memcpy(s.dst_mac, MAC_A, 6);
	memcpy(s.src_mac, gw_mac, 6);
	s.nvlan = 1;
	s.vlan_tci[0] = 42;
	s.arp_op = 2;
	memcpy(s.arp_sha, gw_mac, 6);
	s.arp_spa = 0x0a0000feu;
	memcpy(s.arp_tha, MAC_A, 6);
	s.arp_tpa = 0x0a000001u;
	n = pb_arp(rep, sizeof rep, &s);
	CHECK_EQ(net_rx(&cfg, &st, rep, (uint32_t)n, 2, &pkt), NET_RX_ARP);
	CHECK_EQ(net_arp_input(&arp, &cfg, &st, &pkt, 2, out, sizeof out), 0);
	CHECK_EQ(net_tx_route(&arp, &cfg, &st, 0x0a0000feu, 0x0a000001u, 0x08080808u, 3, &l2, req, sizeof req, &rlen),
		 NET_ARP_OK);
	CHECK_MEM(l2.dst, gw_mac, 6);
	CHECK_MEM(l2.src, MAC_A, 6);
	CHECK_EQ(l2.vlan, 42);
	/* a source address that is not ours */
	CHECK_EQ(net_tx_route(&arp, &cfg, &st, 0, 0x0b000001u, 0x0a000002u, 3, &l2, req, sizeof req, &rlen),
		 NET_ARP_FAIL);
}

int main(void)
{
	test_frames();
	test_gtoe_frame_roundtrip();
	test_route();
	return test_done("net_tx");
}
