/* ctl_limits.h - the daemon's descriptor limit.
 *
 * toed raises its soft RLIMIT_NOFILE to the hard one at start: the soft
 * default (1024) would make a large [shm] max_clients fail in accept with
 * EMFILE. What max_clients needs (toed_fds_needed, conf/config.h) is checked
 * against the hard limit when the configuration is checked: a value the
 * machine cannot carry is a configuration error (exit 78) naming the key.
 * Should descriptors run out anyway (other processes' ENFILE, a lowered
 * limit), ctl_server backs off its listening socket (ctl_server.h).
 */
#ifndef CTL_LIMITS_H
#define CTL_LIMITS_H

#include <stdint.h>

/* Raise the soft RLIMIT_NOFILE to the hard one; returns the soft limit now in force. */
uint64_t ctl_nofile_raise(void);

#endif
