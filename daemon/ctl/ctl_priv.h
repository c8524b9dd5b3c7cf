/* ctl_priv.h - dropping what toed does not need once it is set up.
 *
 * toed starts as root (the card, raw sockets, XDP, huge pages, the socket's
 * group). Once the source is open and the control socket listens, the main
 * thread (still the only thread: capabilities are per thread, so this runs
 * before the data plane starts and the thread inherits the result):
 *   - switches to `user` when one is given (supplementary groups, gid, uid),
 *     keeping the capabilities below across the switch;
 *   - keeps only `keep` in the permitted and effective sets, clears the
 *     inheritable and ambient sets, drops everything else from the bounding
 *     set, and sets no_new_privs.
 * Raw syscalls (capget/capset, prctl): no libcap. Every step fails soft: a
 * refusal (not root, no CAP_SETPCAP...) is logged as a warning and toed runs
 * on with what it has.
 */
#ifndef TOED_PRIV_H
#define TOED_PRIV_H

#include <stdint.h>

#define TOED_CAP(c) (1ull << (c))

/* Returns the number of steps that failed (0: everything as asked). */
int toed_priv_drop(const char *user, uint64_t keep);

/* 1 when user names a passwd entry or is a number (what toed_priv_drop can switch to). */
int toed_priv_user_exists(const char *user);

/* Effective capability mask of the calling thread (for logs and tests). */
uint64_t toed_priv_effective(void);
/* "cap_net_admin,cap_sys_nice" (or "none") into buf. */
const char *toed_priv_names(uint64_t mask, char *buf, unsigned len);

#endif
