/* test_net_arp.c - ARP responder and resolver: exact reply and request frames
 * (written out by hand from RFC 826), VLAN tags, learning, the 128-entry
 * table with LRU replacement and the 500 ms pending timeout on a fake clock. */
#include "test.h"
#include "net/net_arp.h"
#include "net/net_rx.h"
#include "pktbuild.h"

#define MS 1000000ull

static struct net_cfg cfg;
static struct net_stats st;
static struct net_arp arp;
static struct net_pkt pkt;

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x02 };  /* ours, 10.0.0.2/24 untagged */
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0a };  /* ours, 192.168.1.10/24 on VLAN 42 */

static void setup(void)
{
	net_cfg_init(&cfg);
	net_cfg_add(&cfg, 0x0a000002, 0xffffff00, mac_a, 0);
	net_cfg_add(&cfg, 0xc0a8010a, 0xffffff00, mac_b, 42);
	net_stats_init(&st);
	net_arp_init(&arp);
}

/* net_rx then net_arp_input; returns the reply length. */
static uint32_t arp_in(const uint8_t *f, size_t n, uint64_t now, uint8_t *out, uint32_t cap)
{
	CHECK_EQ(net_rx(&cfg, &st, f, (uint32_t)n, now, &pkt), NET_RX_ARP);
	return net_arp_input(&arp, &cfg, &st, &pkt, now, out, cap);
}

/* An ARP packet to us from ip/mac with pktbuild. */
static size_t build_arp(uint8_t *f, size_t cap, uint16_t op, uint32_t spa, const uint8_t *sha, uint32_t tpa)
{
	struct pb_spec s;
	pb_init(&s);
	memcpy(s.src_mac, sha, 6);
	memset(s.dst_mac, 0xff, 6);
	s.arp_op = op;
	memcpy(s.arp_sha, sha, 6);
	s.arp_spa = spa;
	s.arp_tpa = tpa;
	return pb_arp(f, cap, &s);
}

static void hand_request_reply(void)
{
	uint8_t req[64], want[64], out[128];
	size_t n, wn;
	uint32_t r;
	int i;

	setup();
	/* who-has 10.0.0.2 tell 10.0.0.1 (02:00:00:00:00:01), padded to 60 */
	n = test_hex("ff ff ff ff ff ff 02 00 00 00 00 01 08 06"
		     "00 01 08 00 06 04 00 01 02 00 00 00 00 01 0a 00 00 01"
		     "00 00 00 00 00 00 0a 00 00 02"
		     "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		     req, sizeof req);
	CHECK_EQ(n, 60);
	/* 10.0.0.2 is-at 02:00:00:00:00:02, to the requester */
	wn = test_hex("02 00 00 00 00 01 02 00 00 00 00 02 08 06"
		      "00 01 08 00 06 04 00 02 02 00 00 00 00 02 0a 00 00 02"
		      "02 00 00 00 00 01 0a 00 00 01"
		      "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		      want, sizeof want);
	memset(out, 0xee, sizeof out);
	r = arp_in(req, n, 5 * MS, out, sizeof out);
	CHECK_EQ(r, 60);
	CHECK_EQ(wn, 60);
	CHECK_MEM(out, want, 60);
	CHECK_EQ(out[60], 0xee); /* nothing written past the frame */
	CHECK_EQ(st.arp.in_packets, 1);
	CHECK_EQ(st.arp.in_requests, 1);
	CHECK_EQ(st.arp.out_replies, 1);
	/* the requester was learned (the request was addressed to us) */
	CHECK_EQ(st.arp.learned, 1);
	i = net_arp_find(&arp, 0x0a000001);
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_EQ(arp.e[i].state, NET_ARP_RESOLVED);
		CHECK_MEM(arp.e[i].mac, req + 6, 6);
		CHECK_EQ(arp.e[i].ts_ns, 5 * MS);
	}
	/* so resolving it needs no request */
	{
		uint8_t mac[6];
		uint32_t olen = 99;
		CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000001, 6 * MS, mac, out, sizeof out, &olen), NET_ARP_OK);
		CHECK_EQ(olen, 0);
		CHECK_MEM(mac, req + 6, 6);
		CHECK_EQ(st.arp.hits, 1);
	}
	/* the same request again refreshes instead of adding */
	CHECK_EQ(arp_in(req, n, 7 * MS, out, sizeof out), 60);
	CHECK_EQ(st.arp.learned, 1);
	CHECK_EQ(st.arp.updated, 1);
	/* reply buffer one byte short */
	CHECK_EQ(arp_in(req, n, 8 * MS, out, 59), 0);
	CHECK_EQ(st.arp.drop_tx_space, 1);
	CHECK_EQ(st.arp.out_replies, 2);
}

static void tagged_request(void)
{
	uint8_t req[64], want[64], out[64];
	size_t n, wn;

	setup();
	/* 802.1ad VID 100 + 802.1Q VID 7: the reply carries both tags back */
	n = test_hex("ff ff ff ff ff ff 02 00 00 00 00 01 88 a8 00 64 81 00 00 07 08 06"
		     "00 01 08 00 06 04 00 01 02 00 00 00 00 01 0a 00 00 01"
		     "00 00 00 00 00 00 0a 00 00 02"
		     "00 00 00 00 00 00 00 00 00 00",
		     req, sizeof req);
	wn = test_hex("02 00 00 00 00 01 02 00 00 00 00 02 88 a8 00 64 81 00 00 07 08 06"
		      "00 01 08 00 06 04 00 02 02 00 00 00 00 02 0a 00 00 02"
		      "02 00 00 00 00 01 0a 00 00 01"
		      "00 00 00 00 00 00 00 00 00 00",
		      want, sizeof want);
	CHECK_EQ(n, 60);
	CHECK_EQ(wn, 60);
	CHECK_EQ(arp_in(req, n, 0, out, sizeof out), 60);
	CHECK_MEM(out, want, 60);
	/* our second address answers with its own MAC */
	{
		struct pb_spec s;
		uint8_t f[64];
		size_t fn;
		pb_init(&s);
		s.nvlan = 1;
		s.vlan_tci[0] = 42;
		s.arp_tpa = 0xc0a8010a;
		s.arp_spa = 0xc0a80101;
		fn = pb_arp(f, sizeof f, &s);
		CHECK_EQ(arp_in(f, fn, 0, out, sizeof out), 60);
		CHECK_MEM(out, s.src_mac, 6);
		CHECK_MEM(out + 6, mac_b, 6);
		CHECK_EQ(out[12] << 8 | out[13], 0x8100);
		CHECK_EQ(out[14] << 8 | out[15], 42);
		CHECK_MEM(out + 18 + 8, mac_b, 6);
		CHECK_EQ(out[18 + 14], 0xc0);
		CHECK_EQ(out[18 + 17], 0x0a);
		CHECK_EQ(out[18 + 27], 0x01);
	}
}

static void not_ours_probe_gratuitous(void)
{
	uint8_t f[64], out[64];
	size_t n;
	static const uint8_t m1[6] = { 0x02, 0, 0, 0, 0, 0x33 }, m2[6] = { 0x02, 0, 0, 0, 0, 0x44 };
	int i;

	setup();
	/* a request for another host (mirror traffic): ignored, nothing learned */
	n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0x0a000033, m1, 0x0a000003);
	CHECK_EQ(arp_in(f, n, 0, out, sizeof out), 0);
	CHECK_EQ(st.arp.in_not_ours, 1);
	CHECK_EQ(st.arp.learned, 0);
	CHECK_EQ(net_arp_find(&arp, 0x0a000033), -1);
	/* a reply to another host: ignored too */
	n = build_arp(f, sizeof f, NET_ARP_OP_REPLY, 0x0a000033, m1, 0x0a000003);
	CHECK_EQ(arp_in(f, n, 0, out, sizeof out), 0);
	CHECK_EQ(st.arp.in_not_ours, 2);
	CHECK_EQ(st.arp.in_replies, 1);
	CHECK_EQ(net_arp_find(&arp, 0x0a000033), -1);
	/* once known (it asked us), a gratuitous ARP from it with a new MAC updates */
	n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0x0a000033, m1, 0x0a000002);
	CHECK_EQ(arp_in(f, n, 0, out, sizeof out), 60);
	n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0x0a000033, m2, 0x0a000033);
	CHECK_EQ(arp_in(f, n, 10, out, sizeof out), 0);
	i = net_arp_find(&arp, 0x0a000033);
	CHECK(i >= 0);
	if (i >= 0)
		CHECK_MEM(arp.e[i].mac, m2, 6);
	CHECK_EQ(st.arp.updated, 1);
	CHECK_EQ(st.arp.in_not_ours, 3);
	/* an RFC 5227 probe (sender 0.0.0.0) for our address: answered, nothing learned */
	n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0, m1, 0x0a000002);
	CHECK_EQ(arp_in(f, n, 0, out, sizeof out), 60);
	CHECK_EQ(net_arp_find(&arp, 0), -1);
	CHECK_EQ(out[14 + 24] | out[14 + 25] | out[14 + 26] | out[14 + 27], 0);
	CHECK_MEM(out + 14 + 18, m1, 6); /* tha = the prober, tpa = 0.0.0.0 */
	CHECK_EQ(st.arp.learned, 1);
}

static void malformed(void)
{
	struct pb_spec s;
	uint8_t f[64], out[64];
	size_t n;

	setup();
	pb_init(&s);
	/* 27 bytes of ARP, no padding */
	s.no_pad = 1;
	{
		uint8_t a27[27] = { 0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01 };
		n = pb_eth(f, sizeof f, &s, 0x0806, a27, sizeof a27);
	}
	CHECK_EQ(n, 41);
	CHECK_EQ(arp_in(f, n, 0, out, sizeof out), 0);
	CHECK_EQ(st.arp.drop_arp_short, 1);
	/* hardware type, protocol type, sizes, opcode */
	{
		static const int field[] = { 1, 3, 4, 5, 7 };
		static const uint8_t val[] = { 6, 0xdd, 8, 16, 3 };
		unsigned i;
		for (i = 0; i < 5; i++) {
			n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0x0a000001, s.src_mac, 0x0a000002);
			f[14 + field[i]] = val[i];
			CHECK_EQ(arp_in(f, n, 0, out, sizeof out), 0);
		}
		CHECK_EQ(st.arp.drop_arp_format, 5);
	}
	CHECK_EQ(st.arp.in_requests, 0);
	CHECK_EQ(st.arp.learned, 0);
}

static void resolve_and_answer(void)
{
	uint8_t out[64], want[64], f[64], mac[6];
	uint32_t olen;
	size_t wn, n;
	static const uint8_t peer[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };

	setup();
	/* who-has 10.0.0.50 tell 10.0.0.2, broadcast, untagged */
	wn = test_hex("ff ff ff ff ff ff 02 00 00 00 00 02 08 06"
		      "00 01 08 00 06 04 00 01 02 00 00 00 00 02 0a 00 00 02"
		      "00 00 00 00 00 00 0a 00 00 32"
		      "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		      want, sizeof want);
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000032, 100 * MS, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_EQ(olen, 60);
	CHECK_MEM(out, want, 60);
	CHECK_EQ(st.arp.out_requests, 1);
	/* still waiting: no second request */
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000032, 200 * MS, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_EQ(olen, 0);
	CHECK_EQ(st.arp.out_requests, 1);
	/* the answer arrives */
	n = build_arp(f, sizeof f, NET_ARP_OP_REPLY, 0x0a000032, peer, 0x0a000002);
	CHECK_EQ(arp_in(f, n, 300 * MS, out, sizeof out), 0);
	CHECK_EQ(st.arp.resolved, 1);
	CHECK_EQ(st.arp.learned, 0);
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000032, 400 * MS, mac, out, sizeof out, &olen), NET_ARP_OK);
	CHECK_MEM(mac, peer, 6);
	/* past 500 ms a resolved entry stays */
	CHECK_EQ(net_arp_expire(&arp, &st, 5000 * MS), 0);
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000032, 5000 * MS, mac, out, sizeof out, &olen), NET_ARP_OK);

	/* a next hop on the second subnet: request from 192.168.1.10 on VLAN 42 */
	wn = test_hex("ff ff ff ff ff ff 02 00 00 00 00 0a 81 00 00 2a 08 06"
		      "00 01 08 00 06 04 00 01 02 00 00 00 00 0a c0 a8 01 0a"
		      "00 00 00 00 00 00 c0 a8 01 4d"
		      "00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		      want, sizeof want);
	CHECK_EQ(wn, 60);
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0xc0a8014d, 0, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_EQ(olen, 60);
	CHECK_MEM(out, want, 60);
	/* our request, parsed back by the receive path */
	CHECK_EQ(net_rx(&cfg, &st, out, olen, 0, &pkt), NET_RX_ARP);
	CHECK_EQ(pkt.vlan[0], 42);
	/* a next hop on no configured subnet: asked from the first address */
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x08080808, 0, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_MEM(out + 6, mac_a, 6);
	CHECK_EQ(out[12] << 8 | out[13], 0x0806);
	CHECK_EQ(out[14 + 14], 0x0a);
	CHECK_EQ(out[14 + 17], 0x02);

	/* no room for the request: nothing is left pending */
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000077, 0, mac, out, 59, &olen), NET_ARP_FAIL);
	CHECK_EQ(olen, 0);
	CHECK_EQ(st.arp.drop_tx_space, 1);
	CHECK_EQ(net_arp_find(&arp, 0x0a000077), -1);
	/* no address configured at all */
	cfg.naddr = 0;
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000078, 0, mac, out, sizeof out, &olen), NET_ARP_FAIL);
	CHECK_EQ(st.arp.drop_no_addr, 1);
	CHECK_EQ(net_arp_find(&arp, 0x0a000078), -1);
}

static void pending_timeout(void)
{
	uint8_t out[64], mac[6];
	uint32_t olen;
	uint64_t t0 = 1234567890123ull;
	int i;

	setup();
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000040, t0, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000041, t0 + 100 * MS, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	/* 1 ns before 500 ms: still pending */
	CHECK_EQ(net_arp_expire(&arp, &st, t0 + 500 * MS - 1), 0);
	CHECK(net_arp_find(&arp, 0x0a000040) >= 0);
	/* at 500 ms the first is dropped, the second (100 ms younger) stays */
	CHECK_EQ(net_arp_expire(&arp, &st, t0 + 500 * MS), 1);
	CHECK_EQ(st.arp.drop_pending_timeout, 1);
	CHECK_EQ(net_arp_find(&arp, 0x0a000040), -1);
	CHECK(net_arp_find(&arp, 0x0a000041) >= 0);
	/* met again by resolve after its time: counted, and a new request goes out */
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000041, t0 + 600 * MS, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_EQ(olen, 60);
	CHECK_EQ(st.arp.drop_pending_timeout, 2);
	CHECK_EQ(st.arp.out_requests, 3);
	i = net_arp_find(&arp, 0x0a000041);
	CHECK(i >= 0);
	if (i >= 0)
		CHECK_EQ(arp.e[i].ts_ns, t0 + 600 * MS);
	/* a late answer to a dropped request: no longer pending, but addressed to us, so learned as new */
	{
		uint8_t f[64];
		static const uint8_t peer[6] = { 0x02, 1, 2, 3, 4, 5 };
		size_t n = build_arp(f, sizeof f, NET_ARP_OP_REPLY, 0x0a000040, peer, 0x0a000002);
		CHECK_EQ(arp_in(f, n, t0 + 700 * MS, out, sizeof out), 0);
		CHECK_EQ(st.arp.learned, 1);
		CHECK_EQ(st.arp.resolved, 0);
	}
	/* a configurable timeout */
	setup();
	arp.pending_ns = 10 * MS;
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a000040, 0, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_EQ(net_arp_expire(&arp, &st, 9 * MS), 0);
	CHECK_EQ(net_arp_expire(&arp, &st, 10 * MS), 1);
}

static void table_fill_and_replace(void)
{
	uint8_t out[64], f[64], mac[6];
	uint32_t olen;
	uint8_t m[6] = { 0x02, 0x10, 0, 0, 0, 0 };
	int i, ok;
	size_t n;

	/* 128 pending requests fill the table; the 129th fails */
	setup();
	ok = 1;
	for (i = 0; i < NET_ARP_ENTRIES; i++) {
		if (net_arp_resolve(&arp, &cfg, &st, 0x0a010000u + (uint32_t)i, (uint64_t)i, mac, out, sizeof out, &olen) !=
			    NET_ARP_WAIT ||
		    olen != 60)
			ok = 0;
	}
	CHECK(ok);
	CHECK_EQ(st.arp.out_requests, 128);
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a020000, 200 * MS, mac, out, sizeof out, &olen), NET_ARP_FAIL);
	CHECK_EQ(olen, 0);
	CHECK_EQ(st.arp.drop_table_full, 1);
	/* every one of them is still found */
	ok = 1;
	for (i = 0; i < NET_ARP_ENTRIES; i++)
		if (net_arp_find(&arp, 0x0a010000u + (uint32_t)i) < 0)
			ok = 0;
	CHECK(ok);
	/* after 500 ms the oldest has expired and gives its slot (counted) */
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a020000, 500 * MS, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_EQ(st.arp.drop_pending_timeout, 1);
	CHECK_EQ(net_arp_find(&arp, 0x0a010000), -1);
	CHECK(net_arp_find(&arp, 0x0a010001) >= 0);
	/* a learned entry cannot displace waiting requests either */
	n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0x0a0000f0, m, 0x0a000002);
	CHECK_EQ(arp_in(f, n, 500 * MS, out, sizeof out), 60);
	CHECK_EQ(st.arp.drop_table_full, 2);
	CHECK_EQ(net_arp_find(&arp, 0x0a0000f0), -1);

	/* 128 resolved entries (learned from requests at times 0..127 ms) */
	setup();
	for (i = 0; i < NET_ARP_ENTRIES; i++) {
		m[5] = (uint8_t)i;
		n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0x0a030000u + (uint32_t)i, m, 0x0a000002);
		arp_in(f, n, (uint64_t)i * MS, out, sizeof out);
	}
	CHECK_EQ(st.arp.learned, 128);
	CHECK_EQ(st.arp.evicted, 0);
	/* use entry 0: entry 1 becomes the least recently used */
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a030000, 1000 * MS, mac, out, sizeof out, &olen), NET_ARP_OK);
	CHECK_EQ(mac[5], 0);
	/* a new next hop replaces it */
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a040000, 1001 * MS, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK_EQ(olen, 60);
	CHECK_EQ(st.arp.evicted, 1);
	CHECK_EQ(net_arp_find(&arp, 0x0a030001), -1);
	CHECK(net_arp_find(&arp, 0x0a030000) >= 0);
	CHECK(net_arp_find(&arp, 0x0a030002) >= 0);
	/* a newly learned host replaces the next least recently used (entry 2) */
	m[5] = 0xfe;
	n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0x0a0300fe, m, 0x0a000002);
	CHECK_EQ(arp_in(f, n, 1002 * MS, out, sizeof out), 60);
	CHECK_EQ(st.arp.evicted, 2);
	CHECK_EQ(net_arp_find(&arp, 0x0a030002), -1);
	CHECK(net_arp_find(&arp, 0x0a0300fe) >= 0);
	/* refreshing entry 3 (gratuitous ARP) protects it: 4 goes next */
	m[5] = 3;
	n = build_arp(f, sizeof f, NET_ARP_OP_REQUEST, 0x0a030003, m, 0x0a030003);
	arp_in(f, n, 1003 * MS, out, sizeof out);
	CHECK_EQ(net_arp_resolve(&arp, &cfg, &st, 0x0a040001, 1004 * MS, mac, out, sizeof out, &olen), NET_ARP_WAIT);
	CHECK(net_arp_find(&arp, 0x0a030003) >= 0);
	CHECK_EQ(net_arp_find(&arp, 0x0a030004), -1);
	CHECK_EQ(st.arp.evicted, 3);
	/* still 128 entries in use, no more */
	{
		int used = 0;
		for (i = 0; i < NET_ARP_ENTRIES; i++)
			if (arp.e[i].state != NET_ARP_FREE)
				used++;
		CHECK_EQ(used, 128);
	}
}

int main(void)
{
	hand_request_reply();
	tagged_request();
	not_ours_probe_gratuitous();
	malformed();
	resolve_and_answer();
	pending_timeout();
	table_fill_and_replace();
	return test_done("net_arp");
}
