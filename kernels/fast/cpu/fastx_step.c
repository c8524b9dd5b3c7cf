/* fastx_step.c - STEP framing for the fast path (host only).
 *
 * For now the reference deframer (step_deframe.c: its word-at-a-time
 * step_fast() for whole messages, its state machine for split ones). */
#include "fastx.h"

uint32_t fastx_step_feed(struct fastx_dec *x, struct step_deframer *s, const uint8_t *p, uint32_t n, int *status)
{
	x->step_machine++;
	return step_feed(s, p, n, status);
}
