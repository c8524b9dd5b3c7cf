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

#define TOE_STEER_PROG "toe_steer"        /* stamps with bpf_ktime_get_ns() */
#define TOE_STEER_PROG_HW "toe_steer_hw"  /* tries the NIC's stamp first: loaded device-bound */
#define TOE_STEER_PROG_PLAIN "toe_steer_plain" /* no stamp (kernels that refuse bpf_xdp_adjust_meta) */
#define TOE_STEER_MAX_QUEUES 64   /* default size of toe_xsks (the loader grows it for a higher queue) */
#define TOE_STEER_MAX_FEEDS 1024

/* An endpoint in network byte order; addr 0 = any address, port 0 = any port.
 * proto TOE_STEER_PROTO_ICMP (addr = a port's own address, port 0): ICMP to
 * that address; TOE_STEER_PROTO_ARP: ARP packets whose target is addr. */
#define TOE_STEER_PROTO_ICMP 1
#define TOE_STEER_PROTO_ARP 254
struct toe_feed_key {
	__u32 addr;
	__u16 port;
	__u8 proto;
	__u8 pad;   /* always 0 */
};

/* Written by the program in the metadata area right before the frame's data
 * (bpf_xdp_adjust_meta) of every redirected frame; AF_XDP copy mode copies
 * it into the UMEM with the frame. The reader checks magic and clears it. */
struct toe_xdp_meta {
	__u64 rx_ns;   /* TOE_META_CLK_NIC: the NIC's stamp; TOE_META_CLK_MONO: CLOCK_MONOTONIC */
	__u32 clock;   /* TOE_META_CLK_* */
	__u32 magic;   /* TOE_XDP_META_MAGIC */
};
#define TOE_XDP_META_MAGIC 0x746f6531u /* "toe1" */
#define TOE_META_CLK_NIC 1
#define TOE_META_CLK_MONO 2

enum {
	TOE_STEER_REDIRECTED = 0, /* matched a feed, handed to the socket of its queue */
	TOE_STEER_NO_SOCKET = 1,  /* matched a feed, no socket on its queue: passed */
	TOE_STEER_PASSED = 2,     /* not a feed frame: passed to the host stack */
	TOE_STEER_NO_META = 3,    /* redirected without a timestamp (no room for metadata) */
	TOE_STEER_NSTATS = 4,
};

#endif
