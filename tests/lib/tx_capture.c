/* tx_capture.c - the capturing frame source of tx_capture.h. */
#include "tx_capture.h"

#include <string.h>

static int t_rx(struct src *s, struct src_frame *f, int max)
{
	(void)s, (void)f, (void)max;
	return 0;
}
static void t_release(struct src *s) { (void)s; }
static int t_wait(struct src *s, int ms) { (void)s, (void)ms; return 0; }
static int t_fd(const struct src *s) { (void)s; return -1; }
static void t_stats(struct src *s, struct src_stats *st) { (void)s, (void)st; }
static void t_close(struct src *s) { (void)s; }
static int t_tx(struct src *s, const uint8_t *frame, uint32_t len)
{
	struct tx_capture *t = (struct tx_capture *)s;
	if (t->n >= TX_CAPTURE_MAX || len > sizeof t->frame[0])
		return -1;
	memcpy(t->frame[t->n], frame, len);
	t->len[t->n++] = len;
	return 0;
}
static void t_flush(struct src *s) { ((struct tx_capture *)s)->flushes++; }
static const struct src_ops t_ops = { t_rx, t_release, t_wait, t_fd, t_stats, NULL, t_close, t_tx, t_flush };

void tx_capture_init(struct tx_capture *t)
{
	memset(t, 0, sizeof *t);
	t->base.ops = &t_ops;
	t->base.tx_on = 1;
}
