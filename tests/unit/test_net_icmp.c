/* test_net_icmp.c - ICMP echo replies: exact bytes of a hand-written exchange,
 * tags, options, odd and large payloads, and every ignore/drop counter. */
#include "test.h"
#include "net/net_icmp.h"
#include "net/net_rx.h"
#include "pktbuild.h"

#include <stdlib.h>

static struct net_cfg cfg;
static struct net_stats st;
static struct net_pkt pkt;

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static void setup(void)
{
	net_cfg_init(&cfg);
	net_cfg_add(&cfg, 0x0a000002, 0xffffff00, mac_a, 0);
	net_stats_init(&st);
}

static uint32_t icmp_in(const uint8_t *f, size_t n, uint8_t *out, uint32_t cap)
{
	CHECK_EQ(net_rx(&cfg, &st, f, (uint32_t)n, 0, &pkt), NET_RX_ICMP);
	return net_icmp_input(&cfg, &st, &pkt, out, cap);
}

static void hand_exchange(void)
{
	uint8_t req[64], want[64], out[128];
	size_t n, wn;

	setup();
	/* echo request 10.0.0.1 -> 10.0.0.2, TOS 0x10, TTL 128, id 1, ICMP id 0x1234 seq 1, "abcd"
	 *   IP sum 4510+0020+0001+0000+8001+0a00+0001+0a00+0002 = d935, ~ = 26ca
	 *   ICMP sum 0800+0000+1234+0001+6162+6364 = defb, ~ = 2104 */
	n = test_hex("02 00 00 00 00 02 02 00 00 00 00 01 08 00"
		     "45 10 00 20 00 01 00 00 80 01 26 ca 0a 00 00 01 0a 00 00 02"
		     "08 00 21 04 12 34 00 01 61 62 63 64"
		     "00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		     req, sizeof req);
	CHECK_EQ(n, 60);
	/* echo reply: TOS and id kept, TTL 64, addresses swapped
	 *   IP sum 4510+0020+0001+0000+4001+0a00+0002+0a00+0001 = 9935, ~ = 66ca
	 *   ICMP sum 0000+0000+1234+0001+6162+6364 = d6fb, ~ = 2904 */
	wn = test_hex("02 00 00 00 00 01 02 00 00 00 00 02 08 00"
		      "45 10 00 20 00 01 00 00 40 01 66 ca 0a 00 00 02 0a 00 00 01"
		      "00 00 29 04 12 34 00 01 61 62 63 64"
		      "00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		      want, sizeof want);
	CHECK_EQ(wn, 60);
	memset(out, 0xee, sizeof out);
	CHECK_EQ(icmp_in(req, n, out, sizeof out), 60);
	CHECK_MEM(out, want, 60);
	CHECK_EQ(out[60], 0xee);
	CHECK_EQ(st.icmp.in_msgs, 1);
	CHECK_EQ(st.icmp.in_echo_req, 1);
	CHECK_EQ(st.icmp.out_echo_reply, 1);
	/* the reply is itself a valid frame for the receive path */
	CHECK_EQ(net_rx(&cfg, &st, out, 60, 0, &pkt), NET_RX_ICMP);
	CHECK_EQ(pkt.payload_len, 12);
	CHECK_EQ(pkt.payload[0], NET_ICMP_ECHO_REPLY);
	/* an echo reply is not answered */
	CHECK_EQ(net_icmp_input(&cfg, &st, &pkt, out, sizeof out), 0);
	CHECK_EQ(st.icmp.in_other, 1);
	/* no room */
	CHECK_EQ(icmp_in(req, n, out, 59), 0);
	CHECK_EQ(st.icmp.drop_tx_space, 1);
	CHECK_EQ(st.icmp.out_echo_reply, 1);
	/* a flipped data bit: bad ICMP checksum */
	req[45] ^= 0x01;
	CHECK_EQ(icmp_in(req, n, out, sizeof out), 0);
	CHECK_EQ(st.icmp.drop_icmp_csum, 1);
}

/* Independent checks of a reply built for spec s with data[0..dn). */
static void check_reply(const uint8_t *out, uint32_t len, const struct pb_spec *s, const uint8_t *data, size_t dn)
{
	size_t l2 = pb_l3_off(s), i;
	const uint8_t *ip = out + l2, *ic = ip + 20;
	size_t want = l2 + 20 + 8 + dn;
	CHECK_EQ(len, want < 60 ? 60 : want);
	CHECK_MEM(out, s->src_mac, 6);
	CHECK_MEM(out + 6, mac_a, 6);
	for (i = 0; i < (size_t)s->nvlan; i++) {
		CHECK_EQ(out[12 + 4 * i] << 8 | out[13 + 4 * i], s->vlan_tpid[i]);
		CHECK_EQ(out[14 + 4 * i] << 8 | out[15 + 4 * i], s->vlan_tci[i]);
	}
	CHECK_EQ(out[l2 - 2] << 8 | out[l2 - 1], 0x0800);
	CHECK_EQ(ip[0], 0x45);
	CHECK_EQ(ip[2] << 8 | ip[3], 28 + dn);
	CHECK_EQ(ip[4] << 8 | ip[5], s->ip_id);
	CHECK_EQ(ip[8], 64);
	CHECK_EQ(ip[9], 1);
	CHECK_EQ(pb_csum(ip, 20, 0), 0);
	CHECK_EQ((uint32_t)(ip[12] << 24 | ip[13] << 16 | ip[14] << 8 | ip[15]), s->daddr);
	CHECK_EQ((uint32_t)(ip[16] << 24 | ip[17] << 16 | ip[18] << 8 | ip[19]), s->saddr);
	CHECK_EQ(ic[0], 0);
	CHECK_EQ(ic[1], 0);
	CHECK_EQ(pb_csum(ic, 8 + dn, 0), 0);
	CHECK_EQ(ic[4] << 8 | ic[5], s->icmp_id);
	CHECK_EQ(ic[6] << 8 | ic[7], s->icmp_seq);
	CHECK_MEM(ic + 8, data, dn);
	for (i = want; i < len; i++)
		CHECK_EQ(out[i], 0);
}

static void built_requests(void)
{
	struct pb_spec s;
	static uint8_t f[70000], out[70000], data[65536];
	static const uint8_t opts[4] = { 0x01, 0x01, 0x01, 0x00 };
	size_t n, i;
	uint32_t r;

	setup();
	for (i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7 + 3);
	/* double-tagged, odd data length */
	pb_init(&s);
	s.nvlan = 2;
	s.vlan_tpid[0] = 0x88a8;
	s.vlan_tci[0] = 0x0064;
	s.vlan_tci[1] = 0xe007;
	s.ip_id = 0xbeef;
	s.icmp_id = 0xabcd;
	s.icmp_seq = 0xffff;
	n = pb_icmp(f, sizeof f, &s, data, 3);
	r = icmp_in(f, n, out, sizeof out);
	check_reply(out, r, &s, data, 3);
	/* options in the request are not echoed in the IP header */
	pb_init(&s);
	s.ip_opts = opts;
	s.ip_optlen = 4;
	n = pb_icmp(f, sizeof f, &s, data, 100);
	r = icmp_in(f, n, out, sizeof out);
	check_reply(out, r, &s, data, 100);
	/* no data at all */
	pb_init(&s);
	n = pb_icmp(f, sizeof f, &s, NULL, 0);
	r = icmp_in(f, n, out, sizeof out);
	check_reply(out, r, &s, data, 0);
	/* the largest ping (65507 bytes of data) */
	pb_init(&s);
	s.icmp_seq = 9;
	n = pb_icmp(f, sizeof f, &s, data, 65507);
	r = icmp_in(f, n, out, sizeof out);
	check_reply(out, r, &s, data, 65507);
	CHECK_EQ(st.icmp.out_echo_reply, 4);
}

static void ignored_and_dropped(void)
{
	struct pb_spec s;
	uint8_t f[256], out[256];
	size_t n;

	setup();
	pb_init(&s);
	/* destination unreachable, timestamp, echo with a non-zero code */
	s.icmp_type = 3;
	s.icmp_code = 3;
	n = pb_icmp(f, sizeof f, &s, "0123456789012345678901234567", 28);
	CHECK_EQ(icmp_in(f, n, out, sizeof out), 0);
	s.icmp_type = 13;
	s.icmp_code = 0;
	n = pb_icmp(f, sizeof f, &s, "012345678901", 12);
	CHECK_EQ(icmp_in(f, n, out, sizeof out), 0);
	s.icmp_type = 8;
	s.icmp_code = 1;
	n = pb_icmp(f, sizeof f, &s, "x", 1);
	CHECK_EQ(icmp_in(f, n, out, sizeof out), 0);
	CHECK_EQ(st.icmp.in_other, 3);
	/* an echo request for another host (seen on a mirror) */
	s.icmp_code = 0;
	s.daddr = 0x0a000009;
	n = pb_icmp(f, sizeof f, &s, "x", 1);
	CHECK_EQ(icmp_in(f, n, out, sizeof out), 0);
	CHECK_EQ(st.icmp.in_echo_other, 1);
	CHECK_EQ(st.icmp.in_echo_req, 0);
	/* bad checksum from the builder */
	pb_init(&s);
	s.l4_csum = PB_CSUM_BAD;
	n = pb_icmp(f, sizeof f, &s, "x", 1);
	CHECK_EQ(icmp_in(f, n, out, sizeof out), 0);
	CHECK_EQ(st.icmp.drop_icmp_csum, 1);
	/* 4 bytes of ICMP */
	pb_init(&s);
	n = pb_ipv4(f, sizeof f, &s, 1, "\x08\x00\xf7\xff", 4);
	CHECK_EQ(icmp_in(f, n, out, sizeof out), 0);
	CHECK_EQ(st.icmp.drop_icmp_short, 1);
	CHECK_EQ(st.icmp.in_msgs, 6);
	CHECK_EQ(st.icmp.out_echo_reply, 0);
}

int main(void)
{
	hand_exchange();
	built_requests();
	ignored_and_dropped();
	return test_done("net_icmp");
}
