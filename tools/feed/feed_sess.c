/* feed_sess.c - the exchange's end of a STEP session over a TCP socket (host only).
 *
 * See feed_sess.h. Sends are blocking (the feed's sends are too); reads never
 * block. The first reason the session ended is kept in why[] for the tool's
 * exit message.
 */
#include "feed/feed_sess.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "step/host/step_link.h"
#include "feed/feed_net.h"
#include "step/host/step_ev_fmt.h"

#define RESTAMP_MAX (STEP_MAX_BODY + 128)

struct feed_sess {
	int fd;
	int closed;
	FILE *log;
	char why[256];
	struct step_link l;
	uint8_t buf[RESTAMP_MAX];
};

static void set_closed(struct feed_sess *fs, const char *why)
{
	if (!fs->closed && why && !fs->why[0])
		snprintf(fs->why, sizeof fs->why, "%s", why);
	fs->closed = 1;
}

/* Act on what a session call returned: send, report events, close. */
static void act(struct feed_sess *fs, uint32_t r, uint64_t now)
{
	struct step_ev ev;
	char line[240];
	if ((r & STEP_SESS_SEND) && fs->l.s.out_len) {
		if (!fs->closed && feed_send_all(fs->fd, fs->l.s.out, fs->l.s.out_len) < 0)
			set_closed(fs, strerror(errno));
		step_sess_sent(&fs->l.s);
	}
	while (step_sess_event(&fs->l.s, &ev)) {
		step_ev_format(&ev, line, sizeof line);
		if (fs->log)
			fprintf(fs->log, "toe-feedsim: session: %s\n", line);
		if (ev.type == STEP_EV_REFUSED_PEER || ev.type == STEP_EV_PEER_LOGOUT || ev.type == STEP_EV_HB_TIMEOUT ||
		    ev.type == STEP_EV_LOGON_TIMEOUT || ev.type == STEP_EV_PROTOCOL || ev.type == STEP_EV_LOGGED_OUT)
			if (!fs->why[0])
				snprintf(fs->why, sizeof fs->why, "%s", line);
	}
	if (r & STEP_SESS_CLOSE) {
		set_closed(fs, "session closed");
		step_sess_disconnected(&fs->l.s, now);
		while (step_sess_event(&fs->l.s, &ev))
			;
	}
}

struct feed_sess *feed_sess_new(int fd, const struct step_sess_cfg *cfg, FILE *log, char *err, size_t errlen)
{
	struct feed_sess *fs = calloc(1, sizeof *fs);
	if (!fs) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct step_sess_cfg c = *cfg;
	c.role = STEP_SESS_SERVER;
	fs->fd = fd;
	fs->log = log;
	/* the caller's clock is CLOCK_MONOTONIC in ms; SendingTime is UTC */
	step_link_init(&fs->l, &c,
		       (int64_t)(feed_now_ns(CLOCK_REALTIME) / 1000000u) - (int64_t)(feed_now_ns(CLOCK_MONOTONIC) / 1000000u));
	return fs;
}

void feed_sess_free(struct feed_sess *fs)
{
	free(fs);
}

static int state(const struct feed_sess *fs)
{
	if (fs->closed)
		return FEED_SESS_CLOSED;
	return fs->l.s.state == STEP_SESS_ACTIVE || fs->l.s.state == STEP_SESS_LOGOUT_SENT ? FEED_SESS_UP : FEED_SESS_WAIT;
}

int feed_sess_service(struct feed_sess *fs, uint64_t now_ms)
{
	uint8_t in[4096];
	if (fs->closed)
		return FEED_SESS_CLOSED;
	if (fs->l.s.state == STEP_SESS_DOWN)
		act(fs, step_link_open(&fs->l, now_ms), now_ms);
	for (int round = 0; round < 64 && !fs->closed; round++) {
		ssize_t n = recv(fs->fd, in, sizeof in, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			act(fs, step_sess_disconnected(&fs->l.s, now_ms), now_ms);
			set_closed(fs, n == 0 ? "the peer closed the connection" : strerror(errno));
			break;
		}
		act(fs, step_link_bytes(&fs->l, in, (uint32_t)n, now_ms), now_ms);
	}
	if (!fs->closed)
		act(fs, step_link_tick(&fs->l, now_ms), now_ms);
	return state(fs);
}

uint64_t feed_sess_send_data(struct feed_sess *fs, const uint8_t *msg, uint32_t len, uint64_t now_ms)
{
	struct step_fields f;
	struct step_enc e;
	if (state(fs) != FEED_SESS_UP || step_fields_read(msg, len, &f) < 0)
		return 0;
	uint64_t seq = step_sess_next_seq(&fs->l.s, now_ms);
	step_enc_begin(&e, fs->buf, sizeof fs->buf, f.msgtype, fs->l.s.cfg.sender, fs->l.s.cfg.target, seq,
		       (uint64_t)((int64_t)now_ms + fs->l.s.utc_off_ms));
	step_enc_data(&e, f.data, f.data_len);
	uint32_t n = step_enc_end(&e);
	if (!n)
		return 0;
	if (feed_send_all(fs->fd, fs->buf + e.start, n) < 0) {
		set_closed(fs, strerror(errno));
		return 0;
	}
	return seq;
}

void feed_sess_logout(struct feed_sess *fs, const char *text, uint64_t now_ms)
{
	if (!fs->closed)
		act(fs, step_sess_logout(&fs->l.s, text, now_ms), now_ms);
}

const char *feed_sess_why(const struct feed_sess *fs)
{
	return fs->closed ? fs->why : "";
}

const struct step_sess *feed_sess_state(const struct feed_sess *fs)
{
	return &fs->l.s;
}
