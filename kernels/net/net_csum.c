/* net_csum.c - Internet checksum accumulation (synthesisable subset).
 *
 * Host builds define TOE_HOST_FAST (the Makefile's DEFS; the card build and
 * test_hw_csim.sh do not): net_csum_add then goes to net_csum_add_host
 * (kernels/net/host/, SIMD chosen at run time), which leaves the same folded
 * sum; without it, and for what the host path does not take, the word loop
 * below (net_csum_add_syn) is the one definition. */
#include "net_csum.h"
#include "net_cfg.h"
#ifdef TOE_HOST_FAST
#include "host/net_csum_host.h"
#endif

/* A 64-bit little-endian word (the compiler makes it one load on x86 and Arm). */
static inline uint64_t le64(const uint8_t *q)
{
	return (uint64_t)q[0] | (uint64_t)q[1] << 8 | (uint64_t)q[2] << 16 | (uint64_t)q[3] << 24 |
	       (uint64_t)q[4] << 32 | (uint64_t)q[5] << 40 | (uint64_t)q[6] << 48 | (uint64_t)q[7] << 56;
}

/* a += x with the carry out counted in *c (an add and an add-with-carry). */
static inline uint64_t add_carry(uint64_t a, uint64_t x, uint64_t *c)
{
	a += x;
	*c += a < x;
	return a;
}

void net_csum_add_syn(struct net_csum *c, const uint8_t *p, uint32_t n)
{
	uint64_t s = c->sum, a = 0, b = 0, ca = 0, cb = 0;
	uint32_t i = 0, k, w;
	const uint8_t *q;

	if (n == 0)
		return;
	if (n > NET_MAX_FRAME)
		n = NET_MAX_FRAME;
	if (c->odd) {
		/* the previous chunk ended in the high byte of a word */
		s += p[0];
		i = 1;
	}
	/* The bulk 64 bytes a step as little-endian 64-bit words into two sums
	 * (two chains of adds: one is bound by its latency) whose carries are
	 * counted: plain loads without byte swaps, an add and an add-with-carry
	 * each, then what is left eight bytes a step. A carry out of bit 63 is
	 * 2^64 = 1 (mod 0xffff), so the sum is the sums plus their carries. The
	 * ones'-complement sum is byte-order independent (RFC 1071 2.(B)): the
	 * little-endian sum, folded to 16 bits, is the big-endian one with its
	 * bytes swapped. A chunk adds below 2^44 to c->sum: a packet of
	 * NET_MAX_FRAME bytes in any chunking cannot overflow it. */
	q = p + i;
	w = (n - i) >> 6;
	for (k = 0; k < NET_MAX_FRAME / 64; k++) {
		if (k >= w)
			break;
		const uint8_t *r = q + 64 * k;
		a = add_carry(a, le64(r), &ca);
		b = add_carry(b, le64(r + 8), &cb);
		a = add_carry(a, le64(r + 16), &ca);
		b = add_carry(b, le64(r + 24), &cb);
		a = add_carry(a, le64(r + 32), &ca);
		b = add_carry(b, le64(r + 40), &cb);
		a = add_carry(a, le64(r + 48), &ca);
		b = add_carry(b, le64(r + 56), &cb);
	}
	i += w << 6;
	for (k = 0; k < 7; k++) {
		if (i + 8 > n)
			break;
		a = add_carry(a, le64(p + i), &ca);
		i += 8;
	}
	/* swapping a 16-bit value's bytes is multiplying it by 2^8 (mod 0xffff):
	 * the sums folded to 33 bits, shifted, need no fold to 16 bits first */
	s += ((a & 0xffffffffu) + (a >> 32) + (b & 0xffffffffu) + (b >> 32) + ca + cb) << 8;
	/* the last 0..7 bytes, big-endian as the words they are */
	if (i + 4 <= n) {
		s += (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 | (uint32_t)p[i + 2] << 8 | p[i + 3];
		i += 4;
	}
	if (i + 2 <= n) {
		s += (uint32_t)p[i] << 8 | p[i + 1];
		i += 2;
	}
	if (i < n)
		s += (uint32_t)p[i] << 8;
	c->odd = (c->odd + n) & 1u;
	c->sum = s;
}

void net_csum_add(struct net_csum *c, const uint8_t *p, uint32_t n)
{
#ifdef TOE_HOST_FAST
	net_csum_add_host(c, p, n);
#else
	net_csum_add_syn(c, p, n);
#endif
}

/* A 32-bit big-endian word. */
static inline uint32_t be32(const uint8_t *q)
{
	return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
}

uint16_t net_csum_buf(const uint8_t *p, uint32_t n)
{
	struct net_csum c;
	if (n == 20) {
		/* an IPv4 header without options, every frame's: five words, no loops */
		uint64_t s = (uint64_t)be32(p) + be32(p + 4) + be32(p + 8) + be32(p + 12) + be32(p + 16);
		return (uint16_t)~net_csum_fold64(s);
	}
	net_csum_init(&c);
	net_csum_add(&c, p, n);
	return net_csum_final(&c);
}
