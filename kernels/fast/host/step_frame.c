/* step_frame.c - wrap FAST bytes in an SSE STEP message (host only).
 *
 * The inverse of step_deframe.c, used by the feed generator and the tests:
 *   8=STEP.1.0.0|9=<BodyLength>|35=..|49=..|56=..|34=..|52=..|95=n|96=<n bytes>|10=ccc|
 * BodyLength counts the bytes after the SOH that ends the 9= field up to and
 * including the SOH before "10="; CheckSum is the sum of every byte before
 * "10=" modulo 256, written as three digits.
 */
#include "fast/host/step_frame.h"

#include <stdio.h>
#include <string.h>

#define SOH 0x01

/* Appends to a bounded buffer; `ok` turns 0 once anything did not fit. */
struct wbuf {
	uint8_t *p;
	size_t cap;
	size_t n;
	int ok;
};

static void put(struct wbuf *w, const void *src, size_t len)
{
	if (!w->ok || len > w->cap - w->n) {
		w->ok = 0;
		return;
	}
	if (len)
		memcpy(w->p + w->n, src, len);
	w->n += len;
}

static void put_str(struct wbuf *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_field_str(struct wbuf *w, const char *tag, const char *val)
{
	uint8_t soh = SOH;
	put_str(w, tag);
	put_str(w, val);
	put(w, &soh, 1);
}

static void put_field_u64(struct wbuf *w, const char *tag, unsigned long long v)
{
	char num[24];
	snprintf(num, sizeof num, "%llu", v);
	put_field_str(w, tag, num);
}

int step_frame(const struct step_hdr *h, const uint8_t *data, uint32_t n, uint8_t *out, size_t cap)
{
	/* The body (35= .. 96=<data>|) is written first into its final place
	 * after a header of the exact length its BodyLength needs: compute the
	 * body length, then the header, then write both. */
	size_t body = 0;
	char num[24];
	uint8_t soh = SOH;

	if (!h || !h->msgtype || (!data && n))
		return -1;
	body += 3 + strlen(h->msgtype) + 1;
	if (h->sender)
		body += 3 + strlen(h->sender) + 1;
	if (h->target)
		body += 3 + strlen(h->target) + 1;
	body += 3 + (size_t)snprintf(num, sizeof num, "%llu", (unsigned long long)h->seq) + 1;
	if (h->sending_time)
		body += 3 + strlen(h->sending_time) + 1;
	body += 3 + (size_t)snprintf(num, sizeof num, "%u", n) + 1;
	body += 3 + (size_t)n + 1;

	struct wbuf w = { out, cap, 0, 1 };
	put_field_str(&w, "8=", "STEP.1.0.0");
	put_field_u64(&w, "9=", body);
	size_t body_start = w.n;
	put_field_str(&w, "35=", h->msgtype);
	if (h->sender)
		put_field_str(&w, "49=", h->sender);
	if (h->target)
		put_field_str(&w, "56=", h->target);
	put_field_u64(&w, "34=", h->seq);
	if (h->sending_time)
		put_field_str(&w, "52=", h->sending_time);
	put_field_u64(&w, "95=", n);
	put_str(&w, "96=");
	put(&w, data, n);
	put(&w, &soh, 1);
	if (!w.ok || w.n - body_start != body)
		return -1;

	unsigned sum = 0;
	for (size_t i = 0; i < w.n; i++)
		sum += out[i];
	char ck[8];
	snprintf(ck, sizeof ck, "%03u", sum % 256u);
	put_field_str(&w, "10=", ck);
	if (!w.ok || w.n > 0x7fffffff)
		return -1;
	return (int)w.n;
}
