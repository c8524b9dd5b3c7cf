/* src.c - frame sources: dispatch by kind, shared helpers (see src.h). */
#include "src/src_impl.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int src_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void src_note_set(struct src *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->note, sizeof s->note, fmt, ap);
	va_end(ap);
	s->note_seq++;
}

const char *src_note(const struct src *s, uint64_t *seq)
{
	if (seq)
		*seq = s->note_seq;
	return s->note;
}

int src_poll_fd(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	if (r > 0 && (p.revents & (POLLERR | POLLNVAL)) && !(p.revents & POLLIN)) {
		errno = (p.revents & POLLNVAL) ? EBADF : EIO;
		return -1;
	}
	return r > 0;
}

uint64_t src_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *src_kind_name(int kind)
{
	switch (kind) {
	case SRC_AF_XDP: return "af_xdp";
	case SRC_AF_PACKET: return "af_packet";
	case SRC_PCAP: return "pcap";
	default: return NULL;
	}
}

int src_kind_parse(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "af_xdp") || !strcmp(name, "xdp"))
		return SRC_AF_XDP;
	if (!strcmp(name, "af_packet") || !strcmp(name, "packet"))
		return SRC_AF_PACKET;
	if (!strcmp(name, "pcap"))
		return SRC_PCAP;
	return -1;
}

int src_open(struct src **out, const struct src_cfg *cfg, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!out || !cfg)
		return src_err(err, errlen, "src_open: no configuration");
	*out = NULL;
	int r;
	if (cfg->tx && cfg->kind == SRC_PCAP)
		return src_err(err, errlen, "a pcap replay cannot send: a port that answers ARP and ICMP or holds "
					    "connections needs af_xdp or af_packet");
	switch (cfg->kind) {
	case SRC_AF_XDP: r = src_afxdp_open(out, cfg, err, errlen); break;
	case SRC_AF_PACKET: r = src_afpacket_open(out, cfg, err, errlen); break;
	case SRC_PCAP: r = src_pcap_open(out, cfg, err, errlen); break;
	default:
		return src_err(err, errlen, "unknown source kind %d (af_xdp, af_packet or pcap)", cfg->kind);
	}
	if (r == 0)
		(*out)->tx_on = cfg->tx != 0;
	return r;
}

int src_tx(struct src *s, const uint8_t *frame, uint32_t len)
{
	/* a mirror port never sends: the source has no transmit side to send with */
	if (!s->tx_on || !s->ops->tx) {
		s->tx_refused++;
		return -1;
	}
	return s->ops->tx(s, frame, len);
}

void src_tx_flush(struct src *s)
{
	if (s->tx_on && s->ops->tx_flush)
		s->ops->tx_flush(s);
}

int src_can_tx(const struct src *s)
{
	return s->tx_on && s->ops->tx;
}

int src_rx_burst(struct src *s, struct src_frame *f, int max)
{
	int n;
	if (s->unreleased) {
		s->ops->rx_release(s);
		s->unreleased = 0;
	}
	if (max <= 0)
		return 0;
	n = s->ops->rx_burst(s, f, max);
	if (n > 0)
		s->unreleased = 1;
	return n;
}

void src_rx_release(struct src *s)
{
	if (s->unreleased) {
		s->ops->rx_release(s);
		s->unreleased = 0;
	}
}

int src_wait(struct src *s, int timeout_ms)
{
	return s->ops->wait(s, timeout_ms);
}

int src_wait_many(struct src *const *s, int n, int timeout_ms)
{
	struct pollfd p[8];
	int np = 0;
	if (n == 1)
		return src_wait(s[0], timeout_ms);
	for (int i = 0; i < n; i++) {
		int r = s[i]->ops->wait(s[i], 0);
		if (r != 0)
			return r;
	}
	for (int i = 0; i < n && np < 8; i++) {
		int fd = s[i]->ops->fd(s[i]);
		if (fd >= 0)
			p[np++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	int r = poll(p, (nfds_t)np, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	for (int i = 0; i < np && r > 0; i++)
		if ((p[i].revents & (POLLERR | POLLNVAL)) && !(p[i].revents & POLLIN)) {
			errno = (p[i].revents & POLLNVAL) ? EBADF : EIO;
			return -1;
		}
	return r > 0;
}

int src_fd(const struct src *s)
{
	return s->ops->fd(s);
}

void src_stats(struct src *s, struct src_stats *st)
{
	memset(st, 0, sizeof *st);
	s->ops->stats(s, st);
	st->tx_refused = s->tx_refused;
}

int src_set_feeds(struct src *s, const struct src_feed *feeds, uint32_t n, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!s->ops->set_feeds)
		return 0;
	return s->ops->set_feeds(s, feeds, n, err, errlen);
}

const char *src_describe(const struct src *s)
{
	return s->desc;
}

void src_close(struct src *s)
{
	if (s)
		s->ops->close(s);
}
