/* ctl_notify.c - sd_notify: readiness, status, watchdog, reload and stop (see ctl_notify.h). */
#include "ctl/ctl_notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "base/log.h"

void toed_notify_init(struct toed_notify *n)
{
	uint64_t us = 0;
	memset(n, 0, sizeof *n);
	n->fd = -1;
	const char *path = getenv("NOTIFY_SOCKET");
	n->enabled = path != NULL;
	if (sd_watchdog_enabled(0, &us) > 0)
		n->watchdog_us = us;
	/* A socket of our own, made now: sd_notify() makes one per message, which fails when
	 * clients have taken every descriptor, and then the watchdog kills a daemon that is fine.
	 * Paths and abstract names only; anything else (vsock) is left to sd_notify(). */
	size_t len = path ? strlen(path) : 0;
	if (len < 2 || len >= sizeof n->sa.sun_path || (path[0] != '/' && path[0] != '@'))
		return;
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (n->fd < 0)
		return;
	n->sa.sun_family = AF_UNIX;
	memcpy(n->sa.sun_path, path, len);
	if (path[0] == '@')
		n->sa.sun_path[0] = 0;
	n->salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (path[0] == '/'));
}

void toed_notify_fini(struct toed_notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}

static void send_state(struct toed_notify *n, const char *state)
{
	int r;
	if (!n->enabled)
		return;
	if (n->fd >= 0 && n->salen) {
		ssize_t k = sendto(n->fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&n->sa, n->salen);
		r = k < 0 ? -errno : 0;
	} else {
		r = sd_notify(0, state);
	}
	if (r < 0 && !n->failed++)
		log_warn("sd_notify(%.40s): %s (later failures are not logged)", state, strerror(-r));
}

void toed_notify_ready(struct toed_notify *n)
{
	send_state(n, "READY=1");
}

void toed_notify_reloading(struct toed_notify *n)
{
	char buf[96];
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* MONOTONIC_USEC lets Type=notify-reload match the reload it asked for */
	snprintf(buf, sizeof buf, "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000u);
	send_state(n, buf);
}

void toed_notify_stopping(struct toed_notify *n)
{
	send_state(n, "STOPPING=1");
}

void toed_notify_status(struct toed_notify *n, const char *text)
{
	char buf[sizeof n->status + 8];
	if (!strcmp(text, n->status))
		return;
	snprintf(n->status, sizeof n->status, "%s", text);
	snprintf(buf, sizeof buf, "STATUS=%s", n->status);
	send_state(n, buf);
}

uint64_t toed_notify_check_ns(const struct toed_notify *n)
{
	/* systemd's advice: ping at half the interval */
	return n->watchdog_us ? n->watchdog_us * 1000ull / 2 : 1000000000ull;
}

int toed_notify_watchdog(struct toed_notify *n, uint64_t heartbeat, uint64_t now_ns)
{
	if (n->last_ping_ns && now_ns - n->last_ping_ns < toed_notify_check_ns(n))
		return 0;
	n->last_ping_ns = now_ns;
	if (heartbeat == n->hb_seen) {
		n->missed++;
		if (!n->stalled_since_ns)
			n->stalled_since_ns = now_ns;
		return 1;
	}
	n->hb_seen = heartbeat;
	n->stalled_since_ns = 0;
	if (n->watchdog_us) {
		send_state(n, "WATCHDOG=1");
		n->pings++;
	}
	return 0;
}
