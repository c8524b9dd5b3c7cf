/* test_net_csum_host.c - the host checksum (kernels/net/host/net_csum_host.c)
 * against the synthesisable one: random lengths, alignments, chunkings and
 * starting states at every level this CPU runs, the folded sums and the odd
 * flag equal; the all-zero and all-ones edges (0 against 0xffff); a frame's
 * verdict through net_rx the same at every level. */
#include "pktbuild.h"
#include "test.h"
#include "net/net_csum.h"
#include "net/host/net_csum_host.h"
#include "net/net_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng = 0x2545f491u;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* Reference: tests/lib/pktbuild's checksum (RFC 1071, independent of kernels/net), uncomplemented. */
static uint16_t ref_sum(const uint8_t *p, size_t n)
{
	return (uint16_t)~pb_csum(p, n, 0);
}

/* p[0..n) in the same random chunks through both; 1 when they agree (and agree with ref_sum). */
static int same(int level, const uint8_t *p, uint32_t n, uint32_t seed)
{
	struct net_csum a, b;
	uint32_t o = 0, r = seed;
	net_csum_init(&a);
	net_csum_init(&b);
	while (o < n) {
		uint32_t k;
		r = r * 1103515245u + 12345u;
		/* mostly long chunks (the SIMD path), some short and odd ones */
		k = (r >> 8) % 4 == 0 ? (r >> 12) % 9 : (r >> 12) % 2000;
		if (k > n - o)
			k = n - o;
		net_csum_add_syn(&a, p + o, k);
		net_csum_add_level(level, &b, p + o, k);
		o += k;
		if (net_csum_fold(&a) != net_csum_fold(&b) || a.odd != b.odd)
			return 0;
	}
	return net_csum_fold(&a) == net_csum_fold(&b) && net_csum_final(&a) == net_csum_final(&b) &&
	       (n > NET_MAX_FRAME || net_csum_fold(&a) == ref_sum(p, n));
}

static void random_inputs(int level)
{
	static uint8_t buf[70000 + 64];
	uint32_t i, bad = 0;
	for (i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)rnd();
	for (i = 0; i < 3000; i++) {
		uint32_t al = rnd() % 64, n = i < 2000 ? rnd() % 1600 : rnd() % 70000;
		if (!same(level, buf + al, n, rnd()))
			bad++;
	}
	/* every length 0..300 at every alignment 0..7, one chunk */
	for (i = 0; i < 301 * 8; i++) {
		struct net_csum a, b;
		uint32_t n = i / 8, al = i % 8;
		net_csum_init(&a);
		net_csum_init(&b);
		net_csum_add_syn(&a, buf + al, n);
		net_csum_add_level(level, &b, buf + al, n);
		if (net_csum_fold(&a) != net_csum_fold(&b) || a.odd != b.odd || net_csum_fold(&a) != ref_sum(buf + al, n))
			bad++;
	}
	CHECK_EQ(bad, 0u);
}

static void edges(int level)
{
	static uint8_t buf[4096];
	struct net_csum c;
	uint32_t n;
	/* all zero: the sum is 0, not 0xffff (a zero-checksum field compares so) */
	memset(buf, 0, sizeof buf);
	for (n = 64; n <= 2048; n += 61) {
		net_csum_init(&c);
		net_csum_add_level(level, &c, buf, n);
		CHECK_EQ(net_csum_fold(&c), 0);
	}
	/* all ones: 0xffff, never 0 */
	memset(buf, 0xff, sizeof buf);
	for (n = 64; n <= 2048; n += 61) {
		net_csum_init(&c);
		net_csum_add_level(level, &c, buf, n & ~1u);
		CHECK_EQ(net_csum_fold(&c), 0xffff);
		CHECK(same(level, buf, n, n));
	}
	/* words that sum to a multiple of 0xffff: 0x8000 and 0x7fff pairs */
	for (n = 0; n < 2048; n += 4) {
		buf[n] = 0x80;
		buf[n + 1] = 0x00;
		buf[n + 2] = 0x7f;
		buf[n + 3] = 0xff;
	}
	for (n = 64; n <= 2048; n += 64) {
		net_csum_init(&c);
		net_csum_add_level(level, &c, buf, n);
		CHECK_EQ(net_csum_fold(&c), ref_sum(buf, n));
		CHECK(same(level, buf, n, n * 7));
	}
	/* the longest chunk, past NET_MAX_FRAME: summed only that far, like the word loop */
	{
		static uint8_t big[NET_MAX_FRAME + 200];
		uint32_t i;
		for (i = 0; i < sizeof big; i++)
			big[i] = (uint8_t)rnd();
		CHECK(same(level, big, sizeof big, 99));
		net_csum_init(&c);
		net_csum_add_level(level, &c, big, sizeof big);
		CHECK_EQ(net_csum_fold(&c), ref_sum(big, NET_MAX_FRAME));
	}
}

int main(void)
{
	int max = net_csum_level_max(), l;
	for (l = NET_CSUM_SCALAR; l <= max; l++) {
		printf("level %d\n", l);
		random_inputs(l);
		edges(l);
	}
	if (max < NET_CSUM_AVX2)
		printf("note: no AVX2 on this CPU, only the scalar level ran\n");
	/* the automatic level is the widest, and net_csum_add follows it */
	CHECK_EQ(net_csum_level_get(), max);
	{
		static uint8_t b[1500];
		struct net_csum c;
		uint32_t i;
		for (i = 0; i < sizeof b; i++)
			b[i] = (uint8_t)rnd();
		net_csum_init(&c);
		net_csum_add(&c, b + 1, 1401);
		CHECK_EQ(net_csum_fold(&c), ref_sum(b + 1, 1401));
		net_csum_level_set(NET_CSUM_SCALAR);
		CHECK_EQ(net_csum_level_get(), NET_CSUM_SCALAR);
		net_csum_level_set(max);
	}
	return test_done("net_csum_host");
}
