/* net_csum.c - Internet checksum accumulation (synthesisable subset). */
#include "net_csum.h"
#include "net_cfg.h"

/* A 32-bit little-endian word (the compiler makes it one load on x86 and Arm). */
static inline uint32_t le32(const uint8_t *q)
{
	return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

void net_csum_add(struct net_csum *c, const uint8_t *p, uint32_t n)
{
	uint64_t s = c->sum, a = 0, b = 0;
	uint32_t i = 0, k, w;
	const uint8_t *q;
	uint16_t f;

	if (n == 0)
		return;
	if (n > NET_MAX_FRAME)
		n = NET_MAX_FRAME;
	if (c->odd) {
		/* the previous chunk ended in the high byte of a word */
		s += p[0];
		i = 1;
	}
	/* The bulk 32 bytes a step as eight little-endian 32-bit words into two
	 * sums: plain loads without byte swaps, two chains of adds. The
	 * ones'-complement sum is byte-order independent (RFC 1071 2.(B)): the
	 * little-endian sum, folded to 16 bits, is the big-endian one with its
	 * bytes swapped. Neither 64-bit sum can overflow for NET_MAX_FRAME. */
	q = p + i;
	w = (n - i) >> 5;
	for (k = 0; k < NET_MAX_FRAME / 32; k++) {
		if (k >= w)
			break;
		a += (uint64_t)le32(q + 32 * k) + le32(q + 32 * k + 8) + le32(q + 32 * k + 16) +
		     le32(q + 32 * k + 24);
		b += (uint64_t)le32(q + 32 * k + 4) + le32(q + 32 * k + 12) + le32(q + 32 * k + 20) +
		     le32(q + 32 * k + 28);
	}
	i += w << 5;
	f = net_csum_fold64(a + b);
	s += (uint16_t)(f << 8 | f >> 8);
	/* the last 0..31 bytes, big-endian as the words they are */
	for (k = 0; k < 7; k++) {
		if (i + 4 > n)
			break;
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

uint16_t net_csum_buf(const uint8_t *p, uint32_t n)
{
	struct net_csum c;
	net_csum_init(&c);
	net_csum_add(&c, p, n);
	return net_csum_final(&c);
}
