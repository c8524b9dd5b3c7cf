/* toe_steer.h - what the XDP steering program (toe_steer.bpf.c) and its loader (src_afxdp.c) share.
 *
 * Maps, found by name in the object:
 *   toe_xsks   XSKMAP, key = receive queue, value = AF_XDP socket
 *   toe_feeds  HASH, key = struct toe_feed_key, value = __u32 (unused, 1)
 *   toe_stats  PERCPU_ARRAY of __u64, indexed by TOE_STEER_*
 */
#ifndef TOE_STEER_H
#define TOE_STEER_H

#include <linux/types.h>

#define TOE_STEER_PROG "toe_steer"
#define TOE_STEER_MAX_QUEUES 64   /* default size of toe_xsks (the loader grows it for a higher queue) */
#define TOE_STEER_MAX_FEEDS 1024

/* An endpoint in network byte order; addr 0 = any address, port 0 = any port. */
struct toe_feed_key {
	__u32 addr;
	__u16 port;
	__u8 proto;
	__u8 pad;   /* always 0 */
};

enum {
	TOE_STEER_REDIRECTED = 0, /* matched a feed, handed to the socket of its queue */
	TOE_STEER_NO_SOCKET = 1,  /* matched a feed, no socket on its queue: passed */
	TOE_STEER_PASSED = 2,     /* not a feed frame: passed to the host stack */
	TOE_STEER_NSTATS = 3,
};

#endif
