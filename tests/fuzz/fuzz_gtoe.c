/* fuzz_gtoe.c - libFuzzer target: the general TOE driven by arbitrary operations.
 *
 * The first byte picks the configuration (buffer size, range count,
 * options offered); the rest is decoded by gh_drive() (tests/lib/
 * gtoe_harness.c) into peer segments around the current sequence numbers,
 * application calls and time steps. Any broken invariant aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gtoe_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gh h;
	struct gtoe_cfg cfg;
	const char *e;
	if (size < 1 || size > 80000)
		return 0;
	gtoe_cfg_default(&cfg);
	cfg.max_conns = 2;
	cfg.rcv_buf = data[0] & 1 ? 2048 : 32768;
	cfg.snd_buf = data[0] & 2 ? 2048 : 32768;
	cfg.max_ranges = 1 + ((data[0] >> 2) & 7);
	cfg.opt_ts = (data[0] >> 5) & 1;
	cfg.opt_sack = (data[0] >> 6) & 1;
	cfg.quickack = data[0] >> 7;
	cfg.msl_ns = 20000000;
	if (gh_init(&h, &cfg) != 0)
		abort();
	h.direct = (data[0] ^ data[0] >> 3) & 1; /* direct delivery (gtoe_direct_on) for half the inputs */
	e = gh_drive(&h, data + 1, size - 1);
	if (e) {
		fprintf(stderr, "fuzz_gtoe: %s\n", e);
		abort();
	}
	gh_free(&h);
	return 0;
}
