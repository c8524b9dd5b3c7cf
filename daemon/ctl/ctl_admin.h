/* ctl_admin.h - the reports behind `toectl status|stats|clients|reload`, as text or JSON.
 *
 *   status   the daemon's state: version, pid, uptime, configuration file,
 *            source, socket, data plane (state, heartbeat), watchdog, reloads,
 *            the live settings in force, key counters
 *   stats    counters of every block: source (frames, drops by reason), network
 *            layers (drops by reason), receive pipeline, mirror TOE (global and
 *            per connection: bytes, in order, reordered, duplicates, gaps),
 *            streams (bytes, records, gaps, decoder and deframer errors by
 *            code), publisher, control socket, recorder, and every client
 *            (delivered, dropped, backlog); with backend = xrt a [card] block
 *            (link, every kernel's and the CMAC's counters) replaces the
 *            software pipeline's blocks
 *   clients  the control socket's connections and their rings
 *   reload   reload the configuration; the report lists what changed
 *
 * JSON documents are one object; names are those of the counters in the
 * code. Text reports are "name value" lines under "[block]" headings; the
 * per-stream and per-connection tables leave out what never saw traffic.
 */
#ifndef TOED_ADMIN_H
#define TOED_ADMIN_H

#include <stddef.h>
#include <sys/types.h>

#include "ctl/ctl_daemon.h"

enum toed_report {
	TOED_REPORT_STATUS = 1,
	TOED_REPORT_STATS = 2,
	TOED_REPORT_CLIENTS = 3,
	TOED_REPORT_RELOAD = 4,
	TOED_REPORT_LATENCY = 5,
	TOED_REPORT_SEQ = 6,
};

/* Build a report into *text (malloc'd, *len bytes, NUL-terminated). peer_uid:
 * the requester (reload is allowed to root and to the daemon's own user).
 * Returns 0, -EPERM (not allowed), -EINVAL (reload refused: the report says
 * why), -EOPNOTSUPP (unknown report) or -ENOMEM. */
int toed_admin_report(struct toed *t, int what, int json, uid_t peer_uid, char **text, size_t *len);

#endif
