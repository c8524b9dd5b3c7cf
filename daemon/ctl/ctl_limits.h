/* ctl_limits.h - the daemon's descriptor budget: RLIMIT_NOFILE against [shm] max_clients.
 *
 * Each subscriber holds two descriptors in toed for as long as it is
 * connected (its control connection and its ring's eventfd; the two memfds
 * are closed once sent), every one of the max_clients + 16 connections one,
 * and the daemon itself needs a fixed set (io_uring, signalfd, timerfd,
 * eventfds, the source's sockets, recordings, the journal, the lock, the
 * closer queue of ctl_fds.h). toed raises its soft limit to the hard one at
 * start; a max_clients the hard limit cannot carry is a configuration error
 * (exit 78, naming the key) instead of an accept loop failing with EMFILE.
 */
#ifndef CTL_LIMITS_H
#define CTL_LIMITS_H

#include <stdint.h>

#define CTL_FDS_FIXED 128u /* the daemon's own descriptors, with room to spare */

/* Descriptors toed needs with this many clients. */
uint64_t ctl_fds_needed(uint32_t max_clients);
/* Raise the soft RLIMIT_NOFILE to the hard one; returns the soft limit now in force. */
uint64_t ctl_nofile_raise(void);

#endif
