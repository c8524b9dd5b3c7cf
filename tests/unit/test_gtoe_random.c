/* test_gtoe_random.c - general TOE under random operations: the table's invariants always hold.
 *
 * gh_drive() (tests/lib/gtoe_harness.c, also the fuzz target's engine) runs
 * peer segments with random flags, options and numbers near the current
 * sequence numbers, application calls and time steps against one endpoint;
 * after every step the invariants (ranges, send/receive accounting, slot
 * bitmap), every transmitted segment and every byte read are checked. Each
 * configuration runs its input twice: copying every segment, and with direct
 * delivery (gtoe_direct_on; frames poisoned once settled, by gtoe_settle or
 * by the next segment's input), which must end with the same counters and
 * the same bytes read. Fixed seeds, so a failure is reproducible; ASan/UBSan
 * catch what the checks do not.
 */
#include <stdlib.h>

#include "test.h"
#include "gtoe_harness.h"

int main(void)
{
	static uint8_t in[8 * 50000];
	struct gtoe_cfg cfg;
	uint64_t x = 0x243f6a8885a308d3ull;
	uint32_t seed, i, direct;
	static struct gh h;
	uint64_t established = 0, held = 0;
	for (seed = 0; seed < 8; seed++) {
		struct gtoe_stats copied;
		uint64_t copied_read = 0;
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
		memset(&copied, 0, sizeof copied);
		/* the same input twice: every segment copied, then with direct delivery, which must
		 * change nothing the peer or the application sees */
		for (direct = 0; direct < 2; direct++) {
			const char *e;
			CHECK_EQ(gh_init(&h, &cfg), 0);
			h.direct = direct;
			e = gh_drive(&h, in, sizeof in);
			if (e)
				fprintf(stderr, "seed %u%s: %s\n", seed, direct ? " (direct)" : "", e);
			CHECK(e == NULL);
			CHECK(h.g->st.in_segs > 1000);
			printf("seed %u%s: %llu segments in, %llu out, %llu connects, %llu accepts, %llu established, "
			       "%llu resets in, %llu challenge ACKs, %llu out of window, %llu bytes read, %llu held\n",
			       seed, direct ? " (direct)" : "", (unsigned long long)h.g->st.in_segs,
			       (unsigned long long)h.g->st.out_segs, (unsigned long long)h.g->st.connects,
			       (unsigned long long)h.g->st.accepts, (unsigned long long)h.g->st.established,
			       (unsigned long long)h.g->st.resets_in, (unsigned long long)h.g->st.challenge_acks,
			       (unsigned long long)h.g->st.drop_out_of_window, (unsigned long long)h.bytes_read,
			       (unsigned long long)h.held);
			if (!direct) {
				copied = h.g->st;
				copied_read = h.bytes_read;
				established += h.g->st.established;
			} else {
				CHECK(memcmp(&copied, &h.g->st, sizeof copied) == 0);
				CHECK_EQ(h.bytes_read, copied_read);
				held += h.held;
			}
			gh_free(&h);
		}
	}
	CHECK(established > 10); /* the drive reaches the synchronised states */
	printf("segments left in their frame by direct delivery: %llu\n", (unsigned long long)held);
	CHECK(held > 1000);
	return test_done("gtoe_random");
}
