/* ctl_loop.h - the control plane: one io_uring event loop (liburing) on the main thread.
 *
 * Everything the control plane waits for is a poll request on one ring:
 *   - the control socket: the listening socket (accept) and every client
 *     connection (requests, hang-ups), registered through ctl_config.on_fd;
 *   - a signalfd: SIGTERM/SIGINT stop, SIGHUP reloads;
 *   - a timerfd every TOED_TICK_MS: watchdog (WATCHDOG=1 only while the
 *     data-plane heartbeat moves), STATUS=, reclaiming removed client rings,
 *     draining the recorder's queue;
 *   - the data plane's eventfd (live, replay over, failed);
 *   - the recorder's eventfd, and its writes (io_uring writes on this ring).
 * Poll requests are one-shot and re-armed after each event; every request
 * carries the descriptor and a generation, so a completion for a descriptor
 * that was closed (and perhaps reused) is recognised and ignored.
 */
#ifndef TOED_LOOP_H
#define TOED_LOOP_H

#include "ctl/ctl_daemon.h"

#define TOED_TICK_MS 50

/* Create the ring, the signalfd (the signals must already be blocked) and the timer. */
int toed_loop_init(struct toed *t);
/* ctl_config.on_fd: watch (added = 1) or forget a descriptor of the control server. */
void toed_loop_on_fd(void *arg, int fd, int added);
/* Run until t->stop. Returns 0, or -errno when the ring itself fails. */
int toed_loop_run(struct toed *t);
/* After the data plane stopped: write what the recorder still holds (bounded wait). */
void toed_loop_flush_records(struct toed *t, int timeout_ms);
void toed_loop_fini(struct toed *t);

/* One line for STATUS= and toectl status from a data-plane snapshot. */
void toed_status_line(struct toed *t, const struct toed_dp_snapshot *s, char *buf, size_t len);

#endif
