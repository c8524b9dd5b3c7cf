/* mem_touch.c - touch every page of a fresh mapping once (why: mem_touch.h). */
#include "base/mem_touch.h"

#include <stdint.h>

#define TOUCH_STRIDE 4096u

void mem_touch_write(void *p, size_t len)
{
	volatile uint8_t *b = p;
	for (size_t i = 0; i < len; i += TOUCH_STRIDE)
		b[i] = b[i];
}
