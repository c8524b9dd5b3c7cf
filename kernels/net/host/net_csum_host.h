/* net_csum_host.h - the Internet checksum's bulk with SIMD, chosen at run time (host only).
 *
 * Host builds (TOE_HOST_FAST, the Makefile's DEFS) route net_csum_add
 * (kernels/net/net_csum.c) here: chunks of 64 bytes and more are summed with
 * AVX2 where the CPU has it, everything else (short chunks, CPUs without
 * AVX2, the card) by the synthesisable net_csum_add_syn. Both leave a
 * struct net_csum that folds to the same 16-bit sum (the 64-bit accumulator
 * may hold another value congruent to it mod 0xffff, never 0 for a non-zero
 * sum), so checksum verdicts are identical; tests/unit/test_net_csum_host.c
 * compares them on random lengths, alignments and chunkings at every level
 * the CPU can run.
 */
#ifndef NET_CSUM_HOST_H
#define NET_CSUM_HOST_H

#include <stdint.h>

#include "net/net_csum.h"

enum { NET_CSUM_SCALAR = 0, NET_CSUM_AVX2 = 1 };

/* net_csum_add at the chosen level (the first call chooses: the widest the CPU has). */
void net_csum_add_host(struct net_csum *c, const uint8_t *p, uint32_t n);

/* The same at an explicit level (tests, benchmarks); a level the CPU lacks runs the scalar path. */
void net_csum_add_level(int level, struct net_csum *c, const uint8_t *p, uint32_t n);

/* The widest level this CPU runs; the level net_csum_add_host uses (set: force one, tests). */
int net_csum_level_max(void);
int net_csum_level_get(void);
void net_csum_level_set(int level);

#endif
