/* ctl_notify.h - the service manager protocol (sd_notify, libsystemd), called from the control loop only.
 *
 *   READY=1        once the pipeline is live (source open, first poll done)
 *   STATUS=...     key counters, when they change (at most every second)
 *   WATCHDOG=1     only while the data-plane heartbeat advances: a hung data
 *                  plane stops the pings and systemd restarts the service
 *   RELOADING=1 (+ MONOTONIC_USEC) then READY=1 around a reload
 *   STOPPING=1     on SIGTERM/SIGINT
 *
 * Without $NOTIFY_SOCKET every call is a no-op. Messages are sent from the
 * main thread, so NotifyAccess=main is enough.
 */
#ifndef TOED_NOTIFY_H
#define TOED_NOTIFY_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct toed_notify {
	int enabled;           /* $NOTIFY_SOCKET set */
	uint64_t watchdog_us;  /* WatchdogSec in us (0: no watchdog) */
	uint64_t hb_seen;      /* heartbeat at the last check */
	uint64_t last_ping_ns; /* CLOCK_MONOTONIC of the last check */
	uint64_t stalled_since_ns; /* 0: the heartbeat advances */
	uint64_t pings;        /* WATCHDOG=1 sent */
	uint64_t missed;       /* checks that found the heartbeat stopped */
	uint64_t failed;       /* sd_notify calls that failed */
	int fd;                /* our datagram socket, made at init: a daemon out of descriptors still pings */
	struct sockaddr_un sa; /* $NOTIFY_SOCKET (a path or @abstract); salen 0: left to sd_notify() */
	socklen_t salen;
	char status[256];      /* last STATUS= sent */
};

void toed_notify_init(struct toed_notify *n);
void toed_notify_fini(struct toed_notify *n);
void toed_notify_ready(struct toed_notify *n);
void toed_notify_reloading(struct toed_notify *n);
void toed_notify_stopping(struct toed_notify *n);
/* STATUS=text, sent only when it differs from the last one. */
void toed_notify_status(struct toed_notify *n, const char *text);

/* Call often (every loop tick). Every watchdog_us/2 it compares the data-plane
 * heartbeat with the last one seen and pings only if it moved. Returns 1 when
 * the heartbeat is found stopped (the caller logs it), else 0. */
int toed_notify_watchdog(struct toed_notify *n, uint64_t heartbeat, uint64_t now_ns);

/* The interval of the heartbeat checks in ns (also without a watchdog: 1 s). */
uint64_t toed_notify_check_ns(const struct toed_notify *n);

#endif
