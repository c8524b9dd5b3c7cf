/* test_net_rx.c - the receive path: Ethernet/VLAN, IPv4, TCP and UDP parsing,
 * every drop reason, super-frames, checksum switches, the counter table and
 * pcap round trips. Hand-written frames carry checksums computed by hand
 * (RFC 1071 word sums shown in the comments); the rest come from pktbuild. */
#include "test.h"
#include "net/net_rx.h"
#include "pktbuild.h"

#include <stdlib.h>
#include <unistd.h>

static struct net_cfg cfg;
static struct net_stats st;
static struct net_pkt pkt;
static uint64_t n_drops; /* NET_RX_DROP verdicts seen */
static int seen[NET_DROP_COUNT]; /* drop reasons met over the whole program */

static const uint8_t our_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static void setup(void)
{
	net_cfg_init(&cfg);
	net_cfg_add(&cfg, 0x0a000002, 0xffffff00, our_mac, 0);
	net_stats_init(&st);
	n_drops = 0;
}

static int rx(const uint8_t *f, size_t n)
{
	int v = net_rx(&cfg, &st, f, (uint32_t)n, 777, &pkt);
	if (v == NET_RX_DROP) {
		n_drops++;
		if (st.last_drop < NET_DROP_COUNT)
			seen[st.last_drop] = 1;
	}
	return v;
}

static uint64_t drop_sum(void)
{
	const char *names[NET_STATS_COUNT];
	uint64_t vals[NET_STATS_COUNT];
	uint32_t i, n = net_stats_table(&st, names, vals, NET_STATS_COUNT);
	uint64_t s = 0;
	for (i = 0; i < n; i++)
		if (strstr(names[i], ".drop_") && strncmp(names[i], "icmp.", 5) && strncmp(names[i], "arp.", 4) &&
		    strcmp(names[i], "udp.drop_udp_port"))
			s += vals[i];
	return s;
}

/* A TCP/IPv4 frame written out by hand:
 *   IP  45 00 002c 1c46 4000 4006 [0a84] 0a000001 0a000002
 *       sum 4500+002c+1c46+4000+4006+0a00+0001+0a00+0002 = f57b, ~ = 0a84
 *   TCP 3039 1f90 01020304 0a0b0c0d 5018 ffff [993a] 0000 "STEP"
 *       pseudo 0a00+0001+0a00+0002+0006+0018 = 1421; header+data folds to 52a4;
 *       1421+52a4 = 66c5, ~ = 993a
 * 58 bytes plus 2 bytes of Ethernet padding. */
static const char hand_tcp[] =
	"02 00 00 00 00 02 02 00 00 00 00 01 08 00"
	"45 00 00 2c 1c 46 40 00 40 06 0a 84 0a 00 00 01 0a 00 00 02"
	"30 39 1f 90 01 02 03 04 0a 0b 0c 0d 50 18 ff ff 99 3a 00 00"
	"53 54 45 50 00 00";

static void hand_frame(void)
{
	uint8_t f[64];
	size_t n = test_hex(hand_tcp, f, sizeof f);
	setup();
	CHECK_EQ(n, 60);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK(pkt.frame == f);
	CHECK_EQ(pkt.frame_len, 60);
	CHECK_EQ(pkt.nvlan, 0);
	CHECK_EQ(pkt.l4proto, NET_PROTO_TCP);
	CHECK_EQ(pkt.saddr, 0x0a000001);
	CHECK_EQ(pkt.daddr, 0x0a000002);
	CHECK_EQ(pkt.sport, 12345);
	CHECK_EQ(pkt.dport, 8080);
	CHECK_EQ(pkt.seq, 0x01020304);
	CHECK_EQ(pkt.ack, 0x0a0b0c0d);
	CHECK_EQ(pkt.tcp_flags, TCP_PSH | TCP_ACK);
	CHECK_EQ(pkt.win, 0xffff);
	CHECK(pkt.payload == f + 54);
	CHECK_EQ(pkt.payload_len, 4); /* padding is not payload */
	CHECK_MEM(pkt.payload, "STEP", 4);
	CHECK_EQ(pkt.ts_ns, 777);
	CHECK_EQ(net_pkt_l3(&pkt), 14);
	CHECK_EQ(st.eth.in_frames, 1);
	CHECK_EQ(st.eth.in_octets, 60);
	CHECK_EQ(st.eth.in_ipv4, 1);
	CHECK_EQ(st.ip.in_receives, 1);
	CHECK_EQ(st.ip.in_delivers, 1);
	CHECK_EQ(st.ip.in_octets, 44);
	CHECK_EQ(st.tcp.delivered, 1);
	CHECK_EQ(st.tcp.in_octets, 4);
	CHECK_EQ(st.tcp.csum_unchecked, 0);

	/* the builder produces exactly these bytes */
	{
		struct pb_spec s;
		uint8_t b[64];
		pb_init(&s);
		s.ip_id = 0x1c46;
		s.ip_frag = PB_IP_DF;
		s.seq = 0x01020304;
		s.ack = 0x0a0b0c0d;
		s.tcp_flags = 0x18;
		CHECK_EQ(pb_tcp(b, sizeof b, &s, "STEP", 4), 60);
		CHECK_MEM(b, f, 60);
	}

	/* one bit flipped in the payload: TCP checksum drop, unless checking is off */
	f[55] ^= 0x01;
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.tcp.drop_tcp_csum, 1);
	CHECK_EQ(st.last_drop, NET_DROP_TCP_CSUM);
	cfg.flags &= ~NET_CFG_TCP_CSUM;
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(st.tcp.csum_unchecked, 1);
	cfg.flags |= NET_CFG_TCP_CSUM;
	f[55] ^= 0x01;
	/* the IP header checksum is always checked */
	f[24] ^= 0x10;
	cfg.flags = 0;
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_csum, 1);
	CHECK_EQ(st.last_drop, NET_DROP_IP_CSUM);
	CHECK_EQ(n_drops, drop_sum());
}

static void vlans(void)
{
	struct pb_spec s;
	uint8_t f[256];
	size_t n;

	setup();
	pb_init(&s);
	s.nvlan = 1;
	s.vlan_tci[0] = 0x2000 | 100; /* PCP 1, VID 100 */
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(n, 18 + 20 + 20 + 3);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(pkt.nvlan, 1);
	CHECK_EQ(pkt.vlan[0], 100);
	CHECK_EQ(net_pkt_l3(&pkt), 18);
	CHECK(pkt.payload == f + 58);
	CHECK_EQ(pkt.payload_len, 3);
	CHECK_EQ(st.eth.in_vlan, 1);
	CHECK_EQ(st.eth.in_qinq, 0);

	/* 802.1ad outer + 802.1Q inner */
	s.nvlan = 2;
	s.vlan_tpid[0] = 0x88a8;
	s.vlan_tci[0] = 0xf000 | 4000;
	s.vlan_tpid[1] = 0x8100;
	s.vlan_tci[1] = 7;
	n = pb_udp(f, sizeof f, &s, "xyz", 3);
	CHECK_EQ(rx(f, n), NET_RX_UDP);
	CHECK_EQ(pkt.nvlan, 2);
	CHECK_EQ(pkt.vlan[0], 4000);
	CHECK_EQ(pkt.vlan[1], 7);
	CHECK(pkt.payload == f + 22 + 20 + 8);
	CHECK_EQ(pkt.payload_len, 3);
	CHECK_EQ(st.eth.in_vlan, 2);
	CHECK_EQ(st.eth.in_qinq, 1);

	/* two 0x8100 tags (old-style Q-in-Q) */
	s.vlan_tpid[0] = 0x8100;
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(pkt.vlan[0], 4000);

	/* three tags */
	s.nvlan = 3;
	s.vlan_tci[2] = 9;
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.eth.drop_vlan_depth, 1);
	CHECK_EQ(st.last_drop, NET_DROP_VLAN_DEPTH);

	/* ARP behind a tag */
	pb_init(&s);
	s.nvlan = 1;
	s.vlan_tci[0] = 5;
	n = pb_arp(f, sizeof f, &s);
	CHECK_EQ(rx(f, n), NET_RX_ARP);
	CHECK(pkt.payload == f + 18);
	CHECK_EQ(pkt.payload_len, 60 - 18);
	CHECK_EQ(pkt.vlan[0], 5);
	CHECK_EQ(st.eth.in_arp, 1);
	CHECK_EQ(n_drops, drop_sum());
}

static void runts_and_types(void)
{
	struct pb_spec s;
	uint8_t f[256];
	size_t n;

	setup();
	pb_init(&s);
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, 0), NET_RX_DROP);
	CHECK_EQ(rx(f, 13), NET_RX_DROP);
	CHECK_EQ(st.eth.drop_runt, 2);
	CHECK_EQ(st.last_drop, NET_DROP_RUNT);
	/* a tag without the EtherType after it */
	s.nvlan = 1;
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, 17), NET_RX_DROP);
	CHECK_EQ(st.eth.drop_runt, 3);
	CHECK_EQ(rx(f, 18), NET_RX_DROP); /* EtherType present, IPv4 header absent */
	CHECK_EQ(st.ip.drop_ip_trunc, 1);
	CHECK_EQ(st.last_drop, NET_DROP_IP_TRUNC);
	/* the IPv4 header cut short */
	CHECK_EQ(rx(f, 18 + 19), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_trunc, 2);
	/* the TCP header cut short: total length no longer fits */
	CHECK_EQ(rx(f, 18 + 20 + 10), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_len, 1);
	(void)n;

	/* EtherTypes other than IPv4 and ARP: IPv6, LLDP, an 802.3 length */
	{
		static const uint16_t types[] = { 0x86dd, 0x88cc, 0x0040, 0x9100 };
		unsigned i;
		pb_init(&s);
		for (i = 0; i < 4; i++) {
			n = pb_eth(f, sizeof f, &s, types[i], "0123456789", 10);
			CHECK_EQ(rx(f, n), NET_RX_DROP);
			CHECK_EQ(st.last_drop, NET_DROP_ETHERTYPE);
		}
		CHECK_EQ(st.eth.drop_ethertype, 4);
	}
	CHECK_EQ(n_drops, drop_sum());
}

static void ipv4_header(void)
{
	struct pb_spec s;
	uint8_t f[256];
	static const uint8_t opts8[8] = { 0x01, 0x01, 0x01, 0x01, 0x94, 0x04, 0x00, 0x00 }; /* NOPs + Router Alert */
	size_t n;

	setup();
	/* version 6 in an IPv4 EtherType */
	pb_init(&s);
	s.ip_version = 6;
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_version, 1);
	/* IHL 4 */
	pb_init(&s);
	s.ip_ihl = 4;
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_hdr, 1);
	CHECK_EQ(st.last_drop, NET_DROP_IP_HDR);
	/* IHL 15 in a frame too short for a 60-byte header */
	pb_init(&s);
	s.ip_ihl = 15;
	s.no_pad = 1;
	n = pb_ipv4(f, sizeof f, &s, 6, "", 0);
	CHECK_EQ(n, 34);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_trunc, 1);
	/* bad header checksum from the builder */
	pb_init(&s);
	s.ip_csum = PB_CSUM_BAD;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_csum, 1);
	s.ip_csum = PB_CSUM_ZERO;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_csum, 2);
	/* total length beyond the frame */
	pb_init(&s);
	s.ip_len_delta = 1;
	s.no_pad = 1;
	n = pb_udp(f, sizeof f, &s, "abcdefghijklmnopqrstuvwxyz", 26);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_len, 1);
	CHECK_EQ(st.last_drop, NET_DROP_IP_LEN);
	/* total length below the header length */
	pb_init(&s);
	s.ip_len_delta = -1;
	n = pb_ipv4(f, sizeof f, &s, 6, "", 0);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_len, 2);
	/* total length shorter than the frame: the rest is padding */
	pb_init(&s);
	s.ip_len_delta = -2;
	s.l4_csum = PB_CSUM_ZERO;
	n = pb_tcp(f, sizeof f, &s, "abcdefgh", 8);
	CHECK_EQ(n, 14 + 20 + 20 + 8);
	cfg.flags &= ~NET_CFG_TCP_CSUM;
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(pkt.payload_len, 6);
	cfg.flags |= NET_CFG_TCP_CSUM;
	/* protocol neither TCP, UDP nor ICMP (GRE, IGMP) */
	pb_init(&s);
	n = pb_ipv4(f, sizeof f, &s, 47, "abcd", 4);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	n = pb_ipv4(f, sizeof f, &s, 2, "abcd", 4);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_proto, 2);
	CHECK_EQ(st.last_drop, NET_DROP_IP_PROTO);
	/* options are skipped */
	pb_init(&s);
	s.ip_opts = opts8;
	s.ip_optlen = 8;
	s.dport = 9999;
	n = pb_tcp(f, sizeof f, &s, "hello", 5);
	CHECK_EQ(f[14], 0x47);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(pkt.dport, 9999);
	CHECK(pkt.payload == f + 14 + 28 + 20);
	CHECK_EQ(pkt.payload_len, 5);
	CHECK_EQ(st.ip.in_options, 1);
	/* 40 bytes of options, UDP */
	{
		uint8_t o40[40];
		memset(o40, 1, sizeof o40);
		o40[39] = 0; /* end of option list */
		s.ip_opts = o40;
		s.ip_optlen = 40;
		n = pb_udp(f, sizeof f, &s, "hello", 5);
		CHECK_EQ(f[14], 0x4f);
		CHECK_EQ(rx(f, n), NET_RX_UDP);
		CHECK(pkt.payload == f + 14 + 60 + 8);
		CHECK_EQ(st.ip.in_options, 2);
	}
	CHECK_EQ(n_drops, drop_sum());
}

static void fragments(void)
{
	struct pb_spec s;
	uint8_t whole[2048], f[2048];
	uint8_t data[1000];
	size_t n, fn, i;

	setup();
	for (i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)i;
	pb_init(&s);
	s.ip_id = 77;
	n = pb_udp(whole, sizeof whole, &s, data, sizeof data);
	CHECK_EQ(rx(whole, n), NET_RX_UDP);
	/* 1008 bytes of IP payload in pieces of 400: 400 (MF) + 400 (MF, off 50) + 208 (off 100) */
	for (i = 0;; i++) {
		fn = pb_ipv4_fragment(whole, n, 400, i, f, sizeof f);
		if (!fn)
			break;
		CHECK_EQ(rx(f, fn), NET_RX_DROP);
		CHECK_EQ(st.last_drop, NET_DROP_IP_FRAG);
		if (i == 0)
			CHECK_EQ(f[20], 0x20); /* MF, offset 0 */
		if (i == 2)
			CHECK_EQ((f[20] << 8 | f[21]), 100);
	}
	CHECK_EQ(i, 3);
	CHECK_EQ(st.ip.drop_ip_frag, 3);
	/* DF alone is not a fragment */
	s.ip_frag = PB_IP_DF;
	n = pb_udp(whole, sizeof whole, &s, data, 10);
	CHECK_EQ(rx(whole, n), NET_RX_UDP);
	/* a last fragment (offset only), built directly */
	s.ip_frag = 185;
	n = pb_ipv4(f, sizeof f, &s, 17, data, 16);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_frag, 4);
	CHECK_EQ(n_drops, drop_sum());
}

static void dst_filter(void)
{
	struct pb_spec s;
	uint8_t f[256];
	size_t n;
	static const uint32_t pass[] = { 0x0a000002, 0xffffffff, 0x0a0000ff, 0xe0000001, 0xef010203 };
	static const uint32_t fail[] = { 0x0a000063, 0x0a000100, 0x0b0000ff, 0x00000000 };
	unsigned i;

	setup();
	pb_init(&s);
	/* a mirror sees other hosts' traffic: no filter by default */
	s.daddr = 0x0a000063;
	n = pb_tcp(f, sizeof f, &s, "x", 1);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	cfg.flags |= NET_CFG_FILTER_DST;
	for (i = 0; i < sizeof pass / sizeof pass[0]; i++) {
		s.daddr = pass[i];
		n = pb_udp(f, sizeof f, &s, "x", 1);
		CHECK_EQ(rx(f, n), NET_RX_UDP);
	}
	for (i = 0; i < sizeof fail / sizeof fail[0]; i++) {
		s.daddr = fail[i];
		n = pb_udp(f, sizeof f, &s, "x", 1);
		CHECK_EQ(rx(f, n), NET_RX_DROP);
		CHECK_EQ(st.last_drop, NET_DROP_IP_DST);
	}
	CHECK_EQ(st.ip.drop_ip_dst, 4);
	CHECK_EQ(n_drops, drop_sum());
}

static void tcp_header(void)
{
	struct pb_spec s;
	uint8_t f[512];
	size_t n;
	/* MSS 1460, NOP, NOP, SACK permitted, NOP, window scale 7 */
	static const uint8_t opts[12] = { 0x02, 0x04, 0x05, 0xb4, 0x01, 0x01, 0x04, 0x02, 0x01, 0x03, 0x03, 0x07 };

	setup();
	pb_init(&s);
	s.tcp_opts = opts;
	s.tcp_optlen = 12;
	s.tcp_flags = TCP_SYN;
	s.seq = 0xfffffff0;
	s.win = 29200;
	n = pb_tcp(f, sizeof f, &s, NULL, 0);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(pkt.tcp_flags, TCP_SYN);
	CHECK_EQ(pkt.seq, 0xfffffff0u);
	CHECK_EQ(pkt.win, 29200);
	CHECK_EQ(pkt.payload_len, 0);
	CHECK(pkt.payload == f + 14 + 20 + 32);
	CHECK_EQ(st.tcp.in_options, 1);
	n = pb_tcp(f, sizeof f, &s, "DATA", 4);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_MEM(pkt.payload, "DATA", 4);
	/* ECN bits are not part of tcp_flags; FIN|RST|URG are */
	s.tcp_optlen = 0;
	s.tcp_flags = 0xc0 | TCP_FIN | TCP_RST | TCP_URG;
	n = pb_tcp(f, sizeof f, &s, "x", 1);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(pkt.tcp_flags, TCP_FIN | TCP_RST | TCP_URG);
	/* data offset 4 */
	pb_init(&s);
	s.tcp_doff = 4;
	n = pb_tcp(f, sizeof f, &s, "abcdefgh", 8);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.tcp.drop_tcp_hdr, 1);
	CHECK_EQ(st.last_drop, NET_DROP_TCP_HDR);
	/* data offset beyond the segment */
	s.tcp_doff = 15;
	n = pb_tcp(f, sizeof f, &s, "abcdefgh", 8);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.tcp.drop_tcp_hdr, 2);
	/* IP payload shorter than a TCP header */
	n = pb_ipv4(f, sizeof f, &s, 6, "0123456789", 10);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.tcp.drop_tcp_hdr, 3);
	/* checksums: wrong, and zero (never filled in by the NIC) */
	pb_init(&s);
	s.l4_csum = PB_CSUM_BAD;
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	s.l4_csum = PB_CSUM_ZERO;
	n = pb_tcp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.tcp.drop_tcp_csum, 2);
	cfg.flags &= ~NET_CFG_TCP_CSUM;
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_MEM(pkt.payload, "abc", 3);
	CHECK_EQ(st.tcp.csum_unchecked, 1);
	CHECK_EQ(n_drops, drop_sum());
}

static void udp_header(void)
{
	struct pb_spec s;
	uint8_t f[512];
	size_t n;

	setup();
	pb_init(&s);
	s.sport = 5000;
	s.dport = 6000;
	/* a 1-byte datagram in a padded frame */
	n = pb_udp(f, sizeof f, &s, "Q", 1);
	CHECK_EQ(n, 60);
	CHECK_EQ(rx(f, n), NET_RX_UDP);
	CHECK_EQ(pkt.l4proto, NET_PROTO_UDP);
	CHECK_EQ(pkt.sport, 5000);
	CHECK_EQ(pkt.dport, 6000);
	CHECK_EQ(pkt.payload_len, 1);
	CHECK(pkt.payload == f + 42);
	CHECK_EQ(st.udp.in_datagrams, 1);
	CHECK_EQ(st.udp.in_octets, 1);
	/* an empty datagram */
	n = pb_udp(f, sizeof f, &s, NULL, 0);
	CHECK_EQ(rx(f, n), NET_RX_UDP);
	CHECK_EQ(pkt.payload_len, 0);
	/* checksum 0: none was sent, accepted even when checking */
	s.l4_csum = PB_CSUM_ZERO;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_UDP);
	CHECK_EQ(st.udp.no_csum, 1);
	/* wrong checksum: dropped when checking, accepted when not */
	s.l4_csum = PB_CSUM_BAD;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.udp.drop_udp_csum, 1);
	CHECK_EQ(st.last_drop, NET_DROP_UDP_CSUM);
	cfg.flags &= ~NET_CFG_UDP_CSUM;
	CHECK_EQ(rx(f, n), NET_RX_UDP);
	CHECK_EQ(st.udp.csum_unchecked, 1);
	cfg.flags |= NET_CFG_UDP_CSUM;
	/* a datagram whose checksum computes to 0 is sent as ffff: the payload
	 * 0xffff - (sum of the rest) makes the ones'-complement sum ffff */
	{
		uint8_t pl[2];
		uint32_t rest = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 17 + 10 + 5000 + 6000 + 10;
		rest = (rest & 0xffff) + (rest >> 16);
		pl[0] = (uint8_t)((0xffff - rest) >> 8);
		pl[1] = (uint8_t)(0xffff - rest);
		s.l4_csum = PB_CSUM_OK;
		n = pb_udp(f, sizeof f, &s, pl, 2);
		CHECK_EQ(f[40] << 8 | f[41], 0xffff);
		CHECK_EQ(rx(f, n), NET_RX_UDP);
	}
	/* length field beyond the IP payload, and below 8 */
	s.udp_len_delta = 1;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	s.udp_len_delta = -4;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.udp.drop_udp_len, 2);
	CHECK_EQ(st.last_drop, NET_DROP_UDP_LEN);
	/* length field shorter than the IP payload: the datagram ends there */
	s.udp_len_delta = -2;
	s.l4_csum = PB_CSUM_ZERO;
	n = pb_udp(f, sizeof f, &s, "abcde", 5);
	CHECK_EQ(rx(f, n), NET_RX_UDP);
	CHECK_EQ(pkt.payload_len, 3);
	/* IP payload shorter than a UDP header */
	pb_init(&s);
	n = pb_ipv4(f, sizeof f, &s, 17, "0123456", 7);
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.udp.drop_udp_hdr, 1);
	CHECK_EQ(st.last_drop, NET_DROP_UDP_HDR);
	CHECK_EQ(n_drops, drop_sum());
}

static void icmp_and_arp_verdicts(void)
{
	struct pb_spec s;
	uint8_t f[256];
	size_t n;

	setup();
	pb_init(&s);
	s.icmp_id = 0x1234;
	n = pb_icmp(f, sizeof f, &s, "ping", 4);
	CHECK_EQ(rx(f, n), NET_RX_ICMP);
	CHECK_EQ(pkt.l4proto, NET_PROTO_ICMP);
	CHECK(pkt.payload == f + 34);
	CHECK_EQ(pkt.payload_len, 12);
	CHECK_EQ(pkt.payload[0], 8);
	n = pb_arp(f, sizeof f, &s);
	CHECK_EQ(rx(f, n), NET_RX_ARP);
	CHECK(pkt.payload == f + 14);
	CHECK_EQ(pkt.payload_len, 46);
	CHECK_EQ(pkt.l4proto, 0);
}

static void super_frames(void)
{
	struct pb_spec s;
	static uint8_t f[70000], data[65536];
	size_t n, i;
	unsigned seed = 1;

	setup();
	for (i = 0; i < sizeof data; i++) {
		seed = seed * 1103515245u + 12345u;
		data[i] = (uint8_t)(seed >> 16);
	}
	pb_init(&s);
	s.seq = 1000;
	/* an 8 KB GRO super-frame */
	n = pb_tcp(f, sizeof f, &s, data, 8192 - 54);
	CHECK_EQ(n, 8192);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(pkt.payload_len, 8192 - 54);
	CHECK_MEM(pkt.payload, data, 8192 - 54);
	CHECK_EQ(st.ip.in_oversize, 1);
	/* with two tags, UDP */
	s.nvlan = 2;
	s.vlan_tpid[0] = 0x88a8;
	n = pb_udp(f, sizeof f, &s, data, 8000);
	CHECK_EQ(rx(f, n), NET_RX_UDP);
	CHECK_EQ(pkt.payload_len, 8000);
	CHECK_EQ(st.ip.in_oversize, 2);
	/* the largest IPv4 datagram: total length 65535 */
	n = pb_tcp(f, sizeof f, &s, data, 65535 - 40);
	CHECK_EQ(n, 22 + 65535);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(pkt.payload_len, 65535 - 40);
	CHECK_MEM(pkt.payload, data, 65535 - 40);
	/* with a corrupted byte deep inside the checksum still catches it */
	f[n - 3000] ^= 0x40;
	CHECK_EQ(rx(f, n), NET_RX_DROP);
	CHECK_EQ(st.tcp.drop_tcp_csum, 1);
	/* IP passed the corrupted one on to TCP: it counts as oversize too */
	CHECK_EQ(st.ip.in_oversize, 4);
	/* exactly the MTU is not oversize */
	s.nvlan = 0;
	n = pb_tcp(f, sizeof f, &s, data, 1460);
	CHECK_EQ(rx(f, n), NET_RX_TCP);
	CHECK_EQ(st.ip.in_oversize, 4);
	CHECK_EQ(st.tcp.delivered, 3);
}

static void counter_table(void)
{
	const char *names[NET_STATS_COUNT + 1];
	uint64_t vals[NET_STATS_COUNT + 1];
	uint32_t n, i, j, found = 0;

	setup();
	st.ip.drop_ip_csum = 42;
	st.arp.drop_pending_timeout = 7;
	n = net_stats_table(&st, names, vals, NET_STATS_COUNT + 1);
	CHECK_EQ(n, NET_STATS_COUNT);
	CHECK(n >= 50);
	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], "ip.drop_ip_csum")) {
			CHECK_EQ(vals[i], 42);
			found++;
		}
		if (!strcmp(names[i], "arp.drop_pending_timeout")) {
			CHECK_EQ(vals[i], 7);
			found++;
		}
		if (!strcmp(names[i], "eth.in_frames"))
			found++;
		for (j = 0; j < i; j++)
			CHECK(strcmp(names[i], names[j]) != 0);
	}
	CHECK_EQ(found, 3);
	CHECK(!strcmp(names[0], "eth.in_frames"));
	/* a short table is filled up to cap, the count is still the whole */
	names[2] = "untouched";
	CHECK_EQ(net_stats_table(&st, names, vals, 2), NET_STATS_COUNT);
	CHECK(!strcmp(names[2], "untouched"));
	CHECK(!strcmp(net_drop_name(NET_DROP_IP_FRAG), "ip_frag"));
	CHECK(!strcmp(net_drop_name(NET_DROP_COUNT), "unknown"));
	for (i = 0; i < NET_DROP_COUNT; i++)
		CHECK(strcmp(net_drop_name(i), "unknown") != 0);
}

/* Frames written to a pcap file with libpcap read back identical, in order,
 * with their timestamps, and go through net_rx. */
static void pcap_roundtrip(void)
{
	struct pb_spec s;
	uint8_t f[3][9000];
	size_t n[3];
	char path[] = "/tmp/test_net_rx_XXXXXX";
	int fd, nano;

	setup();
	pb_init(&s);
	n[0] = pb_tcp(f[0], sizeof f[0], &s, "one", 3);
	s.nvlan = 1;
	s.vlan_tci[0] = 12;
	n[1] = pb_udp(f[1], sizeof f[1], &s, "two", 3);
	s.nvlan = 0;
	memset(f[2] + 100, 0x55, 8000);
	n[2] = pb_tcp(f[2], sizeof f[2], &s, f[2] + 100, 8000);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	for (nano = 0; nano <= 1; nano++) {
		struct pb_pcap *w = pb_pcap_create(path, nano);
		struct pb_pcap *r;
		const uint8_t *fr;
		uint32_t len;
		uint64_t ts, base = 1700000000ull * 1000000000ull;
		int i, rc, verdicts[3] = { NET_RX_TCP, NET_RX_UDP, NET_RX_TCP };
		CHECK(w != NULL);
		if (!w)
			break;
		for (i = 0; i < 3; i++)
			pb_pcap_write(w, f[i], n[i], base + (uint64_t)i * 1000123);
		pb_pcap_close(w);
		r = pb_pcap_open(path);
		CHECK(r != NULL);
		if (!r)
			break;
		{
			/* classic pcap: magic a1b2c3d4 (us) or a1b23c4d (ns), LINKTYPE_ETHERNET */
			FILE *fp = fopen(path, "rb");
			uint8_t hdr[24];
			CHECK(fp && fread(hdr, 1, 24, fp) == 24);
			if (fp)
				fclose(fp);
			CHECK_EQ(hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (uint32_t)hdr[3] << 24,
				 nano ? 0xa1b23c4du : 0xa1b2c3d4u);
			CHECK_EQ(hdr[20], 1);
		}
		for (i = 0; i < 3; i++) {
			rc = pb_pcap_next(r, &fr, &len, &ts);
			CHECK_EQ(rc, 1);
			if (rc != 1)
				break;
			CHECK_EQ(len, n[i]);
			CHECK_MEM(fr, f[i], n[i]);
			CHECK_EQ(ts, base + (uint64_t)i * (nano ? 1000123 : 1000000));
			CHECK_EQ(rx(fr, len), verdicts[i]);
		}
		CHECK_EQ(pb_pcap_next(r, &fr, &len, &ts), 0);
		pb_pcap_close(r);
	}
	unlink(path);
	CHECK(pb_pcap_open("/nonexistent/x.pcap") == NULL);
}

static int rx_hint(const uint8_t *f, size_t n, uint32_t csum)
{
	int v = net_rx_csum(&cfg, &st, f, (uint32_t)n, 5, csum, &pkt);
	if (v == NET_RX_DROP)
		n_drops++;
	return v;
}

/* The source's word on the checksum (NET_CFG_CSUM_HINTS): a frame left to
 * transmit offload carries a checksum field that is not the checksum; only a
 * frame the source marked is let through unchecked, and each is counted. */
static void csum_hints(void)
{
	struct pb_spec s;
	uint8_t f[256];
	size_t n;

	setup();
	pb_init(&s);
	s.l4_csum = PB_CSUM_BAD;
	n = pb_tcp(f, sizeof f, &s, "STEP", 4);
	/* what offload leaves in the field: the hand frame's pseudo-header sum 1421 (see hand_tcp) */
	{
		struct pb_spec h;
		uint8_t b[64];
		pb_init(&h);
		h.ip_id = 0x1c46;
		h.ip_frag = PB_IP_DF;
		h.seq = 0x01020304;
		h.ack = 0x0a0b0c0d;
		h.tcp_flags = 0x18;
		h.l4_csum = PB_CSUM_PARTIAL;
		CHECK_EQ(pb_tcp(b, sizeof b, &h, "STEP", 4), 60);
		CHECK_EQ(b[50], 0x14);
		CHECK_EQ(b[51], 0x21);
		CHECK_EQ(rx_hint(b, 60, NET_CSUM_NOT_READY), NET_RX_DROP); /* no flag yet: verified, wrong */
	}
	/* without the flag the hint is ignored: the bad checksum drops the segment */
	CHECK_EQ(rx_hint(f, n, NET_CSUM_NOT_READY), NET_RX_DROP);
	CHECK_EQ(rx_hint(f, n, NET_CSUM_VALID), NET_RX_DROP);
	CHECK_EQ(st.tcp.drop_tcp_csum, 3);
	CHECK_EQ(st.tcp.csum_not_ready, 0);
	cfg.flags |= NET_CFG_CSUM_HINTS;
	/* not ready: delivered unchecked, counted as such */
	CHECK_EQ(rx_hint(f, n, NET_CSUM_NOT_READY), NET_RX_TCP);
	CHECK_MEM(pkt.payload, "STEP", 4);
	CHECK_EQ(st.tcp.csum_not_ready, 1);
	/* verified by the NIC: delivered, counted apart */
	CHECK_EQ(rx_hint(f, n, NET_CSUM_VALID), NET_RX_TCP);
	CHECK_EQ(st.tcp.csum_source_ok, 1);
	/* no word from the source: checked, dropped */
	CHECK_EQ(rx_hint(f, n, NET_CSUM_UNKNOWN), NET_RX_DROP);
	CHECK_EQ(rx(f, n), NET_RX_DROP); /* net_rx = no word */
	CHECK_EQ(st.tcp.drop_tcp_csum, 5);
	CHECK_EQ(st.tcp.csum_unchecked, 0);
	/* a good segment with no word passes the check */
	s.l4_csum = PB_CSUM_OK;
	n = pb_tcp(f, sizeof f, &s, "STEP", 4);
	CHECK_EQ(rx_hint(f, n, NET_CSUM_UNKNOWN), NET_RX_TCP);
	/* the IPv4 header checksum is checked whatever the source says */
	f[14 + 10] ^= 0x40;
	CHECK_EQ(rx_hint(f, n, NET_CSUM_NOT_READY), NET_RX_DROP);
	CHECK_EQ(st.ip.drop_ip_csum, 1);
	f[14 + 10] ^= 0x40;
	/* checking off: unchecked whatever the word, counted as unchecked only */
	cfg.flags &= ~NET_CFG_TCP_CSUM;
	CHECK_EQ(rx_hint(f, n, NET_CSUM_NOT_READY), NET_RX_TCP);
	CHECK_EQ(st.tcp.csum_unchecked, 1);
	CHECK_EQ(st.tcp.csum_not_ready, 1);
	CHECK_EQ(st.tcp.delivered, 4);

	/* UDP alike; a zero checksum is "none sent" before any hint matters */
	pb_init(&s);
	s.l4_csum = PB_CSUM_BAD;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx_hint(f, n, NET_CSUM_NOT_READY), NET_RX_UDP);
	CHECK_EQ(st.udp.csum_not_ready, 1);
	CHECK_EQ(rx_hint(f, n, NET_CSUM_VALID), NET_RX_UDP);
	CHECK_EQ(st.udp.csum_source_ok, 1);
	CHECK_EQ(rx_hint(f, n, NET_CSUM_UNKNOWN), NET_RX_DROP);
	CHECK_EQ(st.udp.drop_udp_csum, 1);
	s.l4_csum = PB_CSUM_ZERO;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx_hint(f, n, NET_CSUM_NOT_READY), NET_RX_UDP);
	CHECK_EQ(st.udp.no_csum, 1);
	CHECK_EQ(st.udp.csum_not_ready, 1);
	cfg.flags &= ~NET_CFG_UDP_CSUM;
	s.l4_csum = PB_CSUM_BAD;
	n = pb_udp(f, sizeof f, &s, "abc", 3);
	CHECK_EQ(rx_hint(f, n, NET_CSUM_NOT_READY), NET_RX_UDP);
	CHECK_EQ(st.udp.csum_unchecked, 1);
	CHECK_EQ(n_drops, drop_sum());
}

int main(void)
{
	hand_frame();
	csum_hints();
	vlans();
	runts_and_types();
	ipv4_header();
	fragments();
	dst_filter();
	tcp_header();
	udp_header();
	icmp_and_arp_verdicts();
	super_frames();
	counter_table();
	pcap_roundtrip();
	{
		/* every drop reason (hence every drop counter of eth/ip/tcp/udp
		 * that net_rx owns) was exercised above */
		int i, missing = 0;
		for (i = 1; i < NET_DROP_COUNT; i++)
			if (!seen[i]) {
				fprintf(stderr, "drop reason %s never exercised\n", net_drop_name((uint32_t)i));
				missing++;
			}
		CHECK_EQ(missing, 0);
	}
	return test_done("net_rx");
}
