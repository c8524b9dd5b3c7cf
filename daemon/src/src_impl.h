/* src_impl.h - what the frame sources (src_afpacket.c, src_afxdp.c, src_pcap.c) share with src.c.
 *
 * Each source embeds struct src first and fills in its operations; src.c
 * dispatches the public calls and remembers whether a burst is unreleased.
 */
#ifndef SRC_IMPL_H
#define SRC_IMPL_H

#include <stdarg.h>

#include "src/src.h"

struct src_ops {
	int (*rx_burst)(struct src *s, struct src_frame *f, int max);
	void (*rx_release)(struct src *s);
	int (*wait)(struct src *s, int timeout_ms);
	int (*fd)(const struct src *s);
	void (*stats)(struct src *s, struct src_stats *st);
	int (*set_feeds)(struct src *s, const struct src_feed *feeds, uint32_t n, char *err, size_t errlen);
	void (*close)(struct src *s);
	int (*tx)(struct src *s, const uint8_t *frame, uint32_t len);      /* NULL: cannot send */
	void (*tx_flush)(struct src *s);
};

struct src {
	const struct src_ops *ops;
	int kind;
	int tx_on;           /* opened with cfg.tx */
	uint64_t tx_refused; /* src_tx without tx_on */
	int unreleased;      /* a burst returned frames and src_rx_release() has not run yet */
	char desc[448];
	char note[512];      /* src_note: the latest notice */
	uint64_t note_seq;   /* notices so far */
};

int src_afpacket_open(struct src **out, const struct src_cfg *cfg, char *err, size_t errlen);
int src_afxdp_open(struct src **out, const struct src_cfg *cfg, char *err, size_t errlen);
int src_pcap_open(struct src **out, const struct src_cfg *cfg, char *err, size_t errlen);

/* snprintf into err (if any); always returns -1 for `return src_err(...)`. */
int src_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Set the source's notice (src_note) and count it. */
void src_note_set(struct src *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* poll(fd, POLLIN) for src_wait: 1 readable, 0 timeout or EINTR, -1 error. */
int src_poll_fd(int fd, int timeout_ms);

/* CLOCK_REALTIME in ns. */
uint64_t src_now_ns(void);

#endif
