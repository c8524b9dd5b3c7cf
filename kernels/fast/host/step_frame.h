/* step_frame.h - wrap FAST bytes in an SSE STEP message (host only). */
#ifndef STEP_FRAME_H
#define STEP_FRAME_H

#include <stddef.h>
#include <stdint.h>

struct step_hdr {
	const char *msgtype;      /* 35=, e.g. "UA3201" */
	const char *sender;       /* 49= */
	const char *target;       /* 56= */
	uint64_t seq;             /* 34= */
	const char *sending_time; /* 52=, e.g. "20261129-09:30:00.000" */
};

/* Write 8=STEP.1.0.0|9=..|35=..|49=..|56=..|34=..|52=..|95=n|96=<data>|10=ccc|
 * into out[0..cap). Returns the message length, or -1 if it does not fit. */
int step_frame(const struct step_hdr *h, const uint8_t *data, uint32_t n, uint8_t *out, size_t cap);

#endif
