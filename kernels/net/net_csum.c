/* net_csum.c - Internet checksum accumulation (synthesisable subset). */
#include "net_csum.h"
#include "net_cfg.h"

void net_csum_add(struct net_csum *c, const uint8_t *p, uint32_t n)
{
	uint64_t s = c->sum;
	uint32_t i = 0, k;

	if (n == 0)
		return;
	if (n > NET_MAX_FRAME)
		n = NET_MAX_FRAME;
	if (c->odd) {
		/* the previous chunk ended in the high byte of a word */
		s += p[0];
		i = 1;
	}
	/* eight bytes a step as two big-endian 32-bit words (compilers merge
	 * the byte loads); the 64-bit sum cannot overflow for NET_MAX_FRAME */
	for (k = 0; k < NET_MAX_FRAME / 8; k++) {
		const uint8_t *q = p + i;
		if (i + 8 > n)
			break;
		s += (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
		s += (uint32_t)q[4] << 24 | (uint32_t)q[5] << 16 | (uint32_t)q[6] << 8 | q[7];
		i += 8;
	}
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

uint16_t net_csum_buf(const uint8_t *p, uint32_t n)
{
	struct net_csum c;
	net_csum_init(&c);
	net_csum_add(&c, p, n);
	return net_csum_final(&c);
}
