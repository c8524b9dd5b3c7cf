/* ctl_fds.h - descriptors a client pushes at the daemon: refused by the kernel, else disposed of without waiting.
 *
 * Nobody has a reason to send toed a descriptor, and closing one can block:
 * the last close of a TCP socket with SO_LINGER and a stuck send queue waits
 * up to the linger time; a file on FUSE or NFS waits for its server's answer
 * to the flush. Done on the control thread, that silenced the control socket
 * and the watchdog (issue 10, item 2). So:
 *
 *   1. ctl_fds_refuse() on the listening socket: SO_PASSRIGHTS = 0 (Linux
 *      6.16 and later; accepted connections inherit it) makes the kernel
 *      refuse SCM_RIGHTS to us - the sender's sendmsg fails with EPERM and
 *      not one descriptor enters this process.
 *   2. On older kernels they still arrive. The server reads them with a
 *      control buffer large enough for SCM_MAX_FD (a truncated SCM_RIGHTS
 *      would make the kernel drop the rest in our own thread, with the same
 *      blocking close) and hands each to ctl_fds_dispose(), then drops the
 *      connection, so one connection pushes at most one message's worth.
 *
 * ctl_fds_dispose() never waits: an IP socket gets its linger switched off
 * (SO_LINGER l_onoff = 0: close returns at once, the kernel finishes or
 * aborts the connection on its own) and is closed here; anything else goes
 * to one detached closer thread (a Unix socket too: descriptors passed to it
 * and never read are released with it, lingering ones included; so does a
 * socket whose linger cannot be changed)
 * through a queue of CTL_FDS_QUEUE descriptors. If that thread is itself
 * stuck and the queue is full, the descriptor is kept open and counted
 * (leaked on purpose: a descriptor costs less than a frozen control plane).
 * Time on the control thread per descriptor: an fstat, a setsockopt and a
 * non-lingering close, or a queue push - bounded.
 */
#ifndef CTL_FDS_H
#define CTL_FDS_H

#include <stdint.h>

#define CTL_FDS_QUEUE 64
#define CTL_FDS_MAX_PER_MSG 253 /* the kernel's SCM_MAX_FD */

struct ctl_fds_stats {
	uint64_t closed_here;   /* sockets closed on the calling thread, linger off */
	uint64_t handed_off;    /* given to the closer thread */
	uint64_t kept_open;     /* closer queue full: left open */
};

/* Ask the kernel to refuse SCM_RIGHTS on this (listening) socket. Returns 0,
 * or -errno (-ENOPROTOOPT before Linux 6.16: the fallback of ctl_fds_dispose applies). */
int ctl_fds_refuse(int fd);
/* Get rid of a descriptor somebody passed us, without blocking (see above). */
void ctl_fds_dispose(int fd);
void ctl_fds_get_stats(struct ctl_fds_stats *st);

#endif
