/* toe_steer.bpf.c - XDP program of the software backend: feed frames to the AF_XDP socket, the rest to the host.
 *
 * Redirects to the AF_XDP socket of the receive queue only IPv4 TCP/UDP
 * frames (0, 1 or 2 VLAN tags, TPID 0x8100 or 0x88a8) whose source or
 * destination address:port is a configured feed (toe_feeds, filled by the
 * daemon), and on a port with its own address (role tcp or udp: an address
 * the host does not own) the ARP packets asking for or answering to that
 * address and the ICMP sent to it, so toed answers them; everything else - ARP, ICMP, IPv6, other hosts' traffic, non-first
 * fragments (no ports to match) - gets XDP_PASS, so the host's own traffic is
 * untouched even on a port that carries feeds. With no socket bound on the
 * queue the redirect falls back to XDP_PASS.
 *
 * Every redirected frame carries its arrival time in the metadata area in
 * front of its data (struct toe_xdp_meta): toe_steer_hw asks the driver for
 * the NIC's hardware stamp (the RX-metadata kfunc, kernel >= 6.3; the loader
 * binds it to the device, as kfuncs require) and falls back to the kernel's
 * CLOCK_MONOTONIC; toe_steer (for kernels without the kfunc and generic
 * mode, which refuses device-bound programs) reads the kernel clock only.
 * toe_steer_plain writes no metadata: for kernels whose verifier refuses
 * bpf_xdp_adjust_meta to XDP programs (seen on a 6.18 guest kernel); its
 * frames count as TOE_STEER_NO_META and toed stamps them at the poll.
 *
 * Built with: clang -O2 -g -target bpf -I/usr/include/$(gcc -dumpmachine) -c toe_steer.bpf.c
 * It reads only the first buffer of a frame (the headers), so it is safe with
 * multi-buffer frames: the loader sets BPF_F_XDP_HAS_FRAGS (jumbo frames, veth
 * with a large MTU) and loads it without on kernels that refuse the flag.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "toe_steer.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, TOE_STEER_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} toe_xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TOE_STEER_MAX_FEEDS);
	__type(key, struct toe_feed_key);
	__type(value, __u32);
} toe_feeds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TOE_STEER_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} toe_stats SEC(".maps");

struct vlan_tag {
	__be16 tci;
	__be16 proto;
};

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&toe_stats, &idx);
	if (v)
		*v += 1; /* per-CPU slot: no atomic needed */
}

static __always_inline int is_feed(__u32 addr, __u16 port, __u8 proto)
{
	struct toe_feed_key k = { .addr = addr, .port = port, .proto = proto, .pad = 0 };
	if (bpf_map_lookup_elem(&toe_feeds, &k))
		return 1;
	k.port = 0; /* any port of this address */
	if (bpf_map_lookup_elem(&toe_feeds, &k))
		return 1;
	k.addr = 0; /* this port on any address */
	k.port = port;
	return bpf_map_lookup_elem(&toe_feeds, &k) != 0;
}

/* A rule for one of our own addresses (ARP target, ICMP destination). */
static __always_inline int is_local(__u32 addr, __u8 proto)
{
	struct toe_feed_key k = { .addr = addr, .port = 0, .proto = proto, .pad = 0 };
	return bpf_map_lookup_elem(&toe_feeds, &k) != 0;
}

/* The RX-metadata kfunc (kernel >= 6.3): 0 and the NIC's stamp, or
 * -EOPNOTSUPP/-ENODATA when the driver or this frame has none. Weak: an
 * older kernel leaves it unresolved and only toe_steer loads there. */
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx, __u64 *timestamp) __ksym __weak;

/* The stamp into the metadata area: reads the clock first, so that the
 * stamp is as close to arrival as the program gets. */
static __always_inline void stamp(struct xdp_md *ctx, __u64 ns, __u32 clock)
{
	struct toe_xdp_meta *m;
	void *data;
	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(struct toe_xdp_meta)) < 0) {
		count(TOE_STEER_NO_META);
		return;
	}
	m = (void *)(long)ctx->data_meta;
	data = (void *)(long)ctx->data;
	if ((void *)(m + 1) > data) {
		count(TOE_STEER_NO_META);
		return;
	}
	m->rx_ns = ns;
	m->clock = clock;
	m->magic = TOE_XDP_META_MAGIC;
}

static __always_inline int pass(void)
{
	count(TOE_STEER_PASSED);
	return XDP_PASS;
}

/* meta: a constant; 0 leaves the metadata helper out of the program. */
static __always_inline int steer(struct xdp_md *ctx, __u64 ns, __u32 clock, int meta)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	__u8 *l4;
	__u16 type, sport, dport;
	__u32 ihl;
	int i, act;

	if ((void *)(eth + 1) > end)
		return pass();
	type = eth->h_proto;
	data = eth + 1;
#pragma unroll
	for (i = 0; i < 2; i++) {
		struct vlan_tag *t = data;
		if (type != bpf_htons(ETH_P_8021Q) && type != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(t + 1) > end)
			return pass();
		type = t->proto;
		data = t + 1;
	}
	if (type == bpf_htons(ETH_P_ARP)) {
		/* Ethernet/IPv4 ARP: the target protocol address is at byte 24 */
		__u8 *a = data;
		__u32 tpa;
		if ((void *)(a + 28) > end)
			return pass();
		__builtin_memcpy(&tpa, a + 24, 4);
		if (!is_local(tpa, TOE_STEER_PROTO_ARP))
			return pass();
		goto redirect;
	}
	if (type != bpf_htons(ETH_P_IP))
		return pass();
	ip = data;
	if ((void *)(ip + 1) > end)
		return pass();
	if (ip->version != 4 || ip->ihl < 5)
		return pass();
	if (ip->protocol == IPPROTO_ICMP) {
		if (!is_local(ip->daddr, TOE_STEER_PROTO_ICMP))
			return pass();
		goto redirect;
	}
	if (ip->protocol != IPPROTO_TCP && ip->protocol != IPPROTO_UDP)
		return pass();
	if (ip->frag_off & bpf_htons(0x1fff))
		return pass(); /* a later fragment: no ports */
	ihl = (__u32)ip->ihl * 4;
	l4 = (__u8 *)ip + ihl;
	if ((void *)(l4 + 4) > end)
		return pass();
	sport = *(__u16 *)l4;
	dport = *(__u16 *)(l4 + 2);
	if (!is_feed(ip->saddr, sport, ip->protocol) && !is_feed(ip->daddr, dport, ip->protocol))
		return pass();
redirect:
	if (meta)
		stamp(ctx, ns, clock); /* moves data_meta only: the headers read above are not read again */
	else
		count(TOE_STEER_NO_META);
	act = bpf_redirect_map(&toe_xsks, ctx->rx_queue_index, XDP_PASS);
	count(act == XDP_REDIRECT ? TOE_STEER_REDIRECTED : TOE_STEER_NO_SOCKET);
	return act;
}

SEC("xdp")
int toe_steer(struct xdp_md *ctx)
{
	return steer(ctx, bpf_ktime_get_ns(), TOE_META_CLK_MONO, 1);
}

SEC("xdp")
int toe_steer_hw(struct xdp_md *ctx)
{
	__u64 ns = 0;
	if (bpf_xdp_metadata_rx_timestamp(ctx, &ns) == 0 && ns)
		return steer(ctx, ns, TOE_META_CLK_NIC, 1);
	return steer(ctx, bpf_ktime_get_ns(), TOE_META_CLK_MONO, 1);
}

SEC("xdp")
int toe_steer_plain(struct xdp_md *ctx)
{
	return steer(ctx, 0, 0, 0);
}

char _license[] SEC("license") = "Dual BSD/GPL";
