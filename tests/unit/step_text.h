/* step_text.h - STEP messages written by hand for the deframer tests: tag=value text with '|' for SOH,
 * BodyLength and CheckSum computed here (not by the code under test), with deltas to damage them. */
#ifndef TEST_STEP_TEXT_H
#define TEST_STEP_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Copy text, '|' becoming SOH. */
static inline size_t put_txt(uint8_t *o, const char *t)
{
	size_t n = 0;
	for (; *t; t++)
		o[n++] = *t == '|' ? 0x01 : (uint8_t)*t;
	return n;
}

static inline size_t put_raw(uint8_t *o, const void *p, size_t n)
{
	memcpy(o, p, n);
	return n;
}

/* <begin>9=<blen+len_delta>|<body>10=<sum+ck_delta>| ; ck_text replaces the
 * whole trailer when given. begin is the BeginString field, "8=STEP.1.0.0|". */
static inline size_t frame_v(uint8_t *o, const char *begin, const uint8_t *body, size_t blen, long len_delta,
			     int ck_delta, const char *ck_text)
{
	char t[64];
	size_t n = put_txt(o, begin), i;
	unsigned sum = 0;
	snprintf(t, sizeof t, "9=%ld|", (long)blen + len_delta);
	n += put_txt(o + n, t);
	n += put_raw(o + n, body, blen);
	for (i = 0; i < n; i++)
		sum += o[i];
	if (ck_text) {
		n += put_txt(o + n, ck_text);
	} else {
		snprintf(t, sizeof t, "10=%03u|", (sum + (unsigned)ck_delta) % 256);
		n += put_txt(o + n, t);
	}
	return n;
}

/* The same with STEP 1.0.0. */
static inline size_t frame_x(uint8_t *o, const uint8_t *body, size_t blen, long len_delta, int ck_delta,
			     const char *ck_text)
{
	return frame_v(o, "8=STEP.1.0.0|", body, blen, len_delta, ck_delta, ck_text);
}

/* A well-formed frame around body. */
static inline size_t frame(uint8_t *o, const uint8_t *body, size_t blen)
{
	return frame_x(o, body, blen, 0, 0, NULL);
}

#endif
