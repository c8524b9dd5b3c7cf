/* test_gtoe_random.c - general TOE under random operations: the table's invariants always hold.
 *
 * gh_drive() (tests/lib/gtoe_harness.c, also the fuzz target's engine) runs
 * peer segments with random flags, options and numbers near the current
 * sequence numbers, application calls and time steps against one endpoint;
 * after every step the invariants (ranges, send/receive accounting, slot
 * bitmap), every transmitted segment and every byte read are checked. Each
 * configuration runs twice: copying every segment, and with direct delivery
 * (gtoe_direct_on; frames poisoned once settled). Fixed seeds, so a failure
 * is reproducible; ASan/UBSan catch what the checks do not.
 */
#include <stdlib.h>

#include "test.h"
#include "gtoe_harness.h"

int main(void)
{
	static uint8_t in[8 * 50000];
	struct gtoe_cfg cfg;
	uint64_t x = 0x243f6a8885a308d3ull;
	uint32_t seed, i;
	static struct gh h;
	uint64_t established = 0;
	for (seed = 0; seed < 16; seed++) {
		const char *e;
		for (i = 0; i < sizeof in; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			in[i] = (uint8_t)(x >> 24);
		}
		gtoe_cfg_default(&cfg);
		cfg.max_conns = 4;
		cfg.msl_ns = 20000000; /* 20 ms: TIME-WAIT must not hold the 4-tuple for most of the run */
		cfg.max_ranges = 1 + seed % 8;
		cfg.rcv_buf = seed & 1 ? 4096 : 32768;
		cfg.opt_ts = (uint8_t)(seed & 2 ? 1 : 0);
		cfg.opt_sack = (uint8_t)(seed & 4 ? 0 : 1);
		CHECK_EQ(gh_init(&h, &cfg), 0);
		h.direct = seed >= 8; /* the same eight configurations again, with direct delivery */
		e = gh_drive(&h, in, sizeof in);
		if (e)
			fprintf(stderr, "seed %u: %s\n", seed, e);
		CHECK(e == NULL);
		CHECK(h.g->st.in_segs > 1000);
		printf("seed %u%s: %llu segments in, %llu out, %llu connects, %llu accepts, %llu established, %llu resets in, %llu challenge ACKs, "
		       "%llu out of window\n", seed, h.direct ? " (direct)" : "", (unsigned long long)h.g->st.in_segs, (unsigned long long)h.g->st.out_segs,
		       (unsigned long long)h.g->st.connects, (unsigned long long)h.g->st.accepts, (unsigned long long)h.g->st.established,
		       (unsigned long long)h.g->st.resets_in, (unsigned long long)h.g->st.challenge_acks,
		       (unsigned long long)h.g->st.drop_out_of_window);
		established += h.g->st.established;
		gh_free(&h);
	}
	CHECK(established > 10); /* the drive reaches the synchronised states */
	return test_done("gtoe_random");
}
