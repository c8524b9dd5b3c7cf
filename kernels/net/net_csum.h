/* net_csum.h - the Internet checksum (RFC 1071), incremental over chunks (synthesisable subset).
 *
 * A struct net_csum accumulates the ones'-complement sum of a byte sequence
 * given in any number of chunks of any length (odd lengths included: the
 * accumulator remembers whether the next byte is the high or the low half of
 * a 16-bit word). Bytes are summed as 32-bit words into 64-bit accumulators
 * (the bulk of a chunk little-endian, folded and byte-swapped: net_csum.c)
 * and folded at the end; 2^16 = 1 (mod 0xffff) makes that equal to the
 * 16-bit end-around-carry sum.
 *
 *   verify:  net_csum_init(&c); add pseudo-header; net_csum_add(&c, hdr, n);
 *            ok = net_csum_fold(&c) == 0xffff;
 *   compute: set the checksum field to 0, sum, field = net_csum_final(&c).
 */
#ifndef NET_CSUM_H
#define NET_CSUM_H

#include <stdint.h>

struct net_csum {
	uint64_t sum;
	uint32_t odd;  /* 1 when an odd number of bytes has been added */
};

static inline void net_csum_init(struct net_csum *c)
{
	c->sum = 0;
	c->odd = 0;
}

/* Add n bytes (n <= NET_MAX_FRAME; longer input is summed only that far). */
void net_csum_add(struct net_csum *c, const uint8_t *p, uint32_t n);

/* The same with the synthesisable word loop alone (what net_csum_add is on
 * the card; host builds' net_csum_add may use SIMD instead, with the same
 * folded result: net_csum.c). */
void net_csum_add_syn(struct net_csum *c, const uint8_t *p, uint32_t n);

/* Add a 16-bit or 32-bit value in network order as two/four bytes; valid
 * only at an even byte position (pseudo-headers). */
static inline void net_csum_add16(struct net_csum *c, uint16_t v)
{
	c->sum += v;
}

static inline void net_csum_add32(struct net_csum *c, uint32_t v)
{
	c->sum += v;
}

/* Fold a 64-bit sum to the 16-bit ones'-complement sum. */
static inline uint16_t net_csum_fold64(uint64_t s)
{
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffu) + (s >> 16);
	s = (s & 0xffffu) + (s >> 16);
	s = (s & 0xffffu) + (s >> 16);
	return (uint16_t)s;
}

/* The ones'-complement sum so far (0xffff when the data checksums correctly). */
static inline uint16_t net_csum_fold(const struct net_csum *c)
{
	return net_csum_fold64(c->sum);
}

/* The checksum to store: the complement of the sum. */
static inline uint16_t net_csum_final(const struct net_csum *c)
{
	return (uint16_t)~net_csum_fold64(c->sum);
}

/* Checksum of one buffer (0 when the buffer includes a correct checksum). */
uint16_t net_csum_buf(const uint8_t *p, uint32_t n);

/* RFC 1624 eqn. 3: a checksum after one 16-bit word changed from m to m2. */
static inline uint16_t net_csum_adjust(uint16_t hc, uint16_t m, uint16_t m2)
{
	uint64_t s = (uint64_t)(uint16_t)~hc + (uint16_t)~m + m2;
	return (uint16_t)~net_csum_fold64(s);
}

#endif
