/* test_mem_touch.c - touching a mapping's pages at set-up changes nothing in it (daemon/base/mem_touch.c).
 *
 * mem_touch_write stores each page's first byte back into it, on memory the
 * daemon has already initialised (the pipeline's state after rx_init, a TCP
 * endpoint after gtoe_init): every byte must read the same afterwards, on
 * lengths that are not a multiple of the page, with the first byte of a page
 * non-zero, and for length 0.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem_touch.h"
#include "test.h"

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 131u + (i >> 12) * 7u + 1u);
}

static void test_write_keeps_contents(void)
{
	static const size_t lens[] = {1, 4095, 4096, 4097, 3 * 4096 + 17, 64 * 4096};
	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		size_t len = lens[k];
		uint8_t *m = malloc(len + 64), *b = m + 13; /* not page-aligned either */
		CHECK(m != NULL);
		if (!m)
			return;
		for (size_t i = 0; i < len + 64 - 13; i++)
			b[i] = pattern(i);
		mem_touch_write(b, len);
		size_t bad = 0;
		for (size_t i = 0; i < len + 64 - 13; i++)
			bad += b[i] != pattern(i);
		CHECK_EQ(bad, 0);
		free(m);
	}
	mem_touch_write(NULL, 0); /* nothing to touch: must not dereference */
}

int main(void)
{
	test_write_keeps_contents();
	return test_done("test_mem_touch");
}
