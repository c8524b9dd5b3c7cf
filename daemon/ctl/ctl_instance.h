/* ctl_instance.h - one daemon per control socket: a lock beside the socket, and a hello to the socket.
 *
 * A second toed started on the same socket path used to rename its socket
 * over the first one's, fail on its source, and delete the path on exit: the
 * first daemon ran on, unreachable. Now, before the socket is touched:
 *   1. ctl_instance_lock() takes flock(LOCK_EX) on "<socket>.lock" and writes
 *      its pid there; held by another process, it reports that pid. The lock
 *      goes with the process (kill -9 included), so no stale lock can stop a
 *      restart; the file itself is left in place (removing lock files races).
 *   2. when the socket path exists anyway (a daemon without the lock, or the
 *      lock file removed), ctl_instance_alive() connects and says HELLO: only
 *      a reply proves a live daemon (a socket whose daemon was just killed
 *      can still accept connections for a few milliseconds, and a stale
 *      socket file refuses them). Any well-formed reply counts, a refusal
 *      ("too many connections") too.
 * Either way the newcomer says "already running (pid N)" and exits
 * TOED_EX_RUNNING without touching the socket.
 */
#ifndef CTL_INSTANCE_H
#define CTL_INSTANCE_H

#include <sys/types.h>

/* Take the lock beside sock_path. Returns the lock's descriptor (keep it open
 * while running), -EEXIST when another process holds it (*other = its pid, 0
 * when unknown), or another -errno when the lock file cannot be made. */
int ctl_instance_lock(const char *sock_path, pid_t *other);

/* Does a daemon answer HELLO on sock_path within timeout_ms? 1 yes (*pid = its
 * pid, 0 when it only refused us), 0 no (nothing listens, or no answer). */
int ctl_instance_alive(const char *sock_path, int timeout_ms, pid_t *pid);

#endif
