/* test_net_csum.c - the Internet checksum: RFC 1071/1624 examples, chunked
 * accumulation at every split, and agreement with a plain 16-bit reference. */
#include "test.h"
#include "net/net_csum.h"
#include "pktbuild.h"

#include <stdlib.h>

/* Reference: tests/lib/pktbuild's checksum (RFC 1071, independent of kernels/net), uncomplemented. */
static uint16_t ref_sum(const uint8_t *p, size_t n)
{
	return (uint16_t)~pb_csum(p, n, 0);
}

static void rfc1071_example(void)
{
	/* RFC 1071 section 3: bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2 (with carries 2). */
	uint8_t b[8];
	struct net_csum c;
	test_hex("00 01 f2 03 f4 f5 f6 f7", b, sizeof b);
	net_csum_init(&c);
	net_csum_add(&c, b, 8);
	CHECK_EQ(net_csum_fold(&c), 0xddf2);
	CHECK_EQ(net_csum_final(&c), 0x220d);
	CHECK_EQ(net_csum_buf(b, 8), 0x220d);
	/* byte-order independence (RFC 1071 1.(B)): swapped bytes give the swapped sum */
	{
		uint8_t s[8];
		int i;
		for (i = 0; i < 8; i += 2) {
			s[i] = b[i + 1];
			s[i + 1] = b[i];
		}
		CHECK_EQ(net_csum_buf(s, 8), 0x0d22);
	}
}

static void ip_header_example(void)
{
	/* the classic header 45 00 00 73 00 00 40 00 40 11 b8 61 c0 a8 00 01 c0 a8 00 c7 */
	uint8_t h[20];
	test_hex("45 00 00 73 00 00 40 00 40 11 00 00 c0 a8 00 01 c0 a8 00 c7", h, sizeof h);
	CHECK_EQ(net_csum_buf(h, 20), 0xb861);
	h[10] = 0xb8;
	h[11] = 0x61;
	CHECK_EQ(net_csum_buf(h, 20), 0);
	{
		struct net_csum c;
		net_csum_init(&c);
		net_csum_add(&c, h, 20);
		CHECK_EQ(net_csum_fold(&c), 0xffff);
	}
}

static void edge_cases(void)
{
	uint8_t z[4] = { 0, 0, 0, 0 }, f[4] = { 0xff, 0xff, 0xff, 0xff }, one = 0xab;
	struct net_csum c;
	CHECK_EQ(net_csum_buf(z, 0), 0xffff);
	CHECK_EQ(net_csum_buf(z, 4), 0xffff);
	CHECK_EQ(net_csum_buf(f, 4), 0x0000);  /* sum ffff (negative zero) */
	CHECK_EQ(net_csum_buf(&one, 1), 0x54ff); /* odd byte is the high half: ~ab00 */
	/* pseudo-header words: add32 equals two add16 and four bytes */
	net_csum_init(&c);
	net_csum_add32(&c, 0x0a000001);
	net_csum_add16(&c, 0x0006);
	CHECK_EQ(net_csum_fold(&c), 0x0a07);
	/* sums of many 0xffff words keep folding correctly */
	{
		static uint8_t big[65536];
		memset(big, 0xff, sizeof big);
		CHECK_EQ(net_csum_buf(big, sizeof big), 0);
		memset(big, 0x80, sizeof big);
		/* 32768 words of 0x8080: 32768 * 0x8080 mod 0xffff computed below */
		{
			uint64_t s = (uint64_t)32768 * 0x8080;
			s %= 0xffff;
			CHECK_EQ(net_csum_buf(big, sizeof big), (uint16_t)~(s ? s : 0xffff));
		}
	}
}

static void rfc1624_adjust(void)
{
	/* RFC 1624 section 4: HC = 0xdd2f, m 0x5555 -> 0x3285 gives HC' = 0x0000 */
	CHECK_EQ(net_csum_adjust(0xdd2f, 0x5555, 0x3285), 0x0000);
	/* and it agrees with recomputing: change TTL/proto word in the IP header above */
	{
		uint8_t h[20];
		uint16_t c0, c1;
		test_hex("45 00 00 73 00 00 40 00 40 11 00 00 c0 a8 00 01 c0 a8 00 c7", h, sizeof h);
		c0 = net_csum_buf(h, 20);
		h[8] = 0x3f; /* TTL 64 -> 63 */
		c1 = net_csum_buf(h, 20);
		CHECK_EQ(net_csum_adjust(c0, 0x4011, 0x3f11), c1);
	}
}

static void chunks_and_reference(void)
{
	uint8_t buf[3001];
	size_t i, n, cut1, cut2;
	unsigned seed = 12345;
	int bad = 0, badref = 0;
	uint16_t want;
	for (i = 0; i < sizeof buf; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
	/* every split point (two chunks) of a 301-byte and a 300-byte buffer */
	for (n = 300; n <= 301; n++) {
		want = (uint16_t)~ref_sum(buf, n);
		for (cut1 = 0; cut1 <= n; cut1++) {
			struct net_csum c;
			net_csum_init(&c);
			net_csum_add(&c, buf, (uint32_t)cut1);
			net_csum_add(&c, buf + cut1, (uint32_t)(n - cut1));
			if (net_csum_final(&c) != want)
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
	/* three chunks at odd and even places, random lengths */
	bad = 0;
	for (i = 0; i < 2000; i++) {
		struct net_csum c;
		seed = seed * 1103515245u + 12345u;
		n = (seed >> 8) % sizeof buf;
		cut1 = n ? (seed >> 4) % (n + 1) : 0;
		cut2 = cut1 + ((n - cut1) ? (seed >> 12) % (n - cut1 + 1) : 0);
		net_csum_init(&c);
		net_csum_add(&c, buf, (uint32_t)cut1);
		net_csum_add(&c, buf + cut1, (uint32_t)(cut2 - cut1));
		net_csum_add(&c, buf + cut2, (uint32_t)(n - cut2));
		want = (uint16_t)~ref_sum(buf, n);
		if (net_csum_final(&c) != want)
			bad++;
		/* the packet builder's own checksum agrees too */
		if (pb_csum(buf, n, 0) != net_csum_buf(buf, (uint32_t)n))
			badref++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(badref, 0);
	/* net_csum_buf at every length up to 80 and every start offset up to 7
	 * (its 20-byte IPv4 header shortcut among them) */
	bad = 0;
	for (n = 0; n <= 80; n++)
		for (cut1 = 0; cut1 < 8; cut1++)
		{
			uint16_t got = net_csum_buf(buf + cut1, (uint32_t)n);
			want = (uint16_t)~ref_sum(buf + cut1, n);
			if (got != want)
				bad++;
		}
	CHECK_EQ(bad, 0);
	/* byte-by-byte chunks */
	{
		struct net_csum c;
		net_csum_init(&c);
		for (i = 0; i < 777; i++)
			net_csum_add(&c, buf + i, 1);
		CHECK_EQ(net_csum_final(&c), (uint16_t)~ref_sum(buf, 777));
		CHECK_EQ(c.odd, 1);
	}
}

int main(void)
{
	rfc1071_example();
	ip_header_example();
	edge_cases();
	rfc1624_adjust();
	chunks_and_reference();
	return test_done("net_csum");
}
