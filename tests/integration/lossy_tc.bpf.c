/* lossy_tc.bpf.c - tc BPF program that drops and duplicates TCP data segments (no netem on these kernels).
 *
 * Attached with `tc filter add dev X egress bpf direct-action obj ... sec tc`
 * by tests/integration/test_mirror_traffic.sh, compiled with
 * clang -target bpf -DDROP_PERMILLE=n -DDUP_PERMILLE=m. Only IPv4 TCP
 * segments that carry payload and no SYN/FIN/RST are touched, so the
 * connection always opens and closes normally: a random DROP_PERMILLE per
 * mille of them are dropped, another DUP_PERMILLE per mille are sent twice
 * (a clone redirected to the same device's egress, marked so that this
 * program passes it through when it comes round again).
 *
 * Reordering (-DREORDER_PERMILLE=r, default 0): another r per mille go
 * through HTB class 1:2 (skb->priority REORDER_CLASS), which the caller sets
 * up as a slow class under an HTB root on the same device (no netem, fq or
 * etf on these kernels); everything else is unclassified and leaves through
 * HTB's direct queue at once. An idle HTB class sends its first packet at
 * once, so a pacer goes first: a copy of the segment whose ethertype is
 * PACER_ETHERTYPE (every receiver ignores it) puts the class in debt by the
 * segment's length at the class's rate, and the segment itself waits that
 * long while later segments overtake it.
 * Both directions (-DPURE_ACKS=1, default 0): pure ACKs (no payload, no
 * SYN/FIN/RST) are dropped, duplicated and delayed like data segments, for
 * the link's direction where the receiver only acknowledges.
 *
 * Tail mode (-DTAIL_TOS=t, used by test_mirror_tail.sh): drop every IPv4
 * TCP segment whose IP TOS byte is t, data, FIN and pure ACK alike, and
 * nothing else. The exchange's sender (mirror_peer.py serve ... TAIL) marks
 * the end of its connection with that TOS, so on the mirror leg the last
 * segments and the FIN are lost while the vendor's ACKs pass.
 *
 * Line mode (-DLINE_A_PORT=p -DLINE_B_PORT=q, used by test_toed_ab.sh): two
 * TCP connections from the exchange's ports p and q (lines A and B of an A/B
 * pair) each get their own rates, DROP_A/DUP_A/REORDER_A and
 * DROP_B/DUP_B/REORDER_B per mille (reordering through HTB class 1:2 as
 * above); other traffic passes. With -DBY_MSGSEQ the drop is not random but decided
 * by the STEP MsgSeqNum of the message the segment starts with ("\00134=" in
 * its first 64 bytes): dropped when LOSS_FIRST <= m <= LOSS_LAST and
 * line_hash(m, line) % 1000 < DROP_x, or on both lines when the shared draw
 * line_hash(m, 2) < DROP_BOTH, so the test knows which messages each line
 * lost (the same hash in Python) and the tail of the feed is clean. The
 * shared draw makes enough messages lost on both lines (about 1.5% of them)
 * that a few escaping the drop, by sharing a segment with the message before,
 * still leave some the two lines lost together. Each drop by MsgSeqNum adds
 * one to the array map DROP_MAP (-DDROP_MAP=name, default lossy_dropped) at
 * key line * (LOSS_LAST + 1) + m, so the test reads
 * (tests/integration/bpf_map_sum.c) which messages really started a dropped
 * segment.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef DROP_PERMILLE
#define DROP_PERMILLE 30
#endif
#ifndef DUP_PERMILLE
#define DUP_PERMILLE 30
#endif
#ifndef REORDER_PERMILLE
#define REORDER_PERMILLE 0
#endif
#ifndef PURE_ACKS
#define PURE_ACKS 0
#endif
#define CLONE_MARK 0x70e0070eu
#define REORDER_CLASS 0x00010002u /* HTB class 1:2 */
#define PACER_ETHERTYPE 0x88b5u     /* IEEE 802 local experimental */

#ifdef LINE_A_PORT
#ifndef DROP_A
#define DROP_A 0
#endif
#ifndef DUP_A
#define DUP_A 0
#endif
#ifndef DROP_B
#define DROP_B 0
#endif
#ifndef DUP_B
#define DUP_B 0
#endif
#ifndef REORDER_A
#define REORDER_A 0
#endif
#ifndef REORDER_B
#define REORDER_B 0
#endif
#ifndef DROP_BOTH
#define DROP_BOTH 0
#endif
#ifndef LOSS_FIRST
#define LOSS_FIRST 10
#endif
#ifndef LOSS_LAST
#define LOSS_LAST 1000
#endif

#ifdef BY_MSGSEQ
#ifndef DROP_MAP
#define DROP_MAP lossy_dropped
#endif
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * (LOSS_LAST + 1));
	__type(key, __u32);
	__type(value, __u32);
} DROP_MAP SEC(".maps");
#endif

/* The deterministic draw of message m on line 0 (A), 1 (B) or 2 (both), 0..999. */
static __always_inline __u32 line_hash(__u32 m, __u32 line)
{
	__u32 h = m * (line == 0 ? 2654435761u : line == 1 ? 2246822519u : 3266489917u);
	h ^= h >> 15;
	return h % 1000u;
}

/* The MsgSeqNum of the STEP message starting at payload offset off, or 0 when
 * "\00134=" is not in its first 64 bytes (a segment that continues a message,
 * or a short one). A STEP header puts it near byte 45 (8=STEP.1.0.0, 9=, 35=,
 * 49=, 56= before it). The bytes are copied to the stack first: the verifier
 * follows a fixed-size stack buffer more easily than packet pointers. */
static __always_inline __u32 step_msgseq(struct __sk_buff *skb, __u32 off)
{
	unsigned char b[64];
	__u32 v = 0;
	int i, j;
	if (skb->len < off + sizeof b || bpf_skb_load_bytes(skb, off, b, sizeof b) < 0)
		return 0;
	for (i = 0; i + 4 < (int)sizeof b; i++) {
		if (b[i] != 1 || b[i + 1] != '3' || b[i + 2] != '4' || b[i + 3] != '=')
			continue;
		for (j = i + 4; j < (int)sizeof b && j < i + 14; j++) {
			if (b[j] < '0' || b[j] > '9')
				break;
			v = v * 10 + (b[j] - '0');
		}
		return v;
	}
	return 0;
}
#endif

/* Send skb through the slow HTB class 1:2 behind a pacer (a copy with
 * ethertype PACER_ETHERTYPE that puts the idle class in debt), so that later
 * segments overtake it. */
static __always_inline void slow_down(struct __sk_buff *skb, struct ethhdr *eth)
{
	__be16 ours = eth->h_proto, pacer = bpf_htons(PACER_ETHERTYPE);

	skb->priority = REORDER_CLASS;
	skb->mark = CLONE_MARK;
	if (bpf_skb_store_bytes(skb, 12, &pacer, 2, 0) == 0) {
		bpf_clone_redirect(skb, skb->ifindex, 0);
		bpf_skb_store_bytes(skb, 12, &ours, 2, 0);
	}
	skb->mark = 0;
}

SEC("tc")
int lossy(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct tcphdr *tcp;
	__u32 ihl, doff, tot, r;

	if (skb->mark == CLONE_MARK)
		return TC_ACT_OK; /* our own copy */
	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_TCP)
		return TC_ACT_OK;
	ihl = ip->ihl * 4u;
	if (ihl < 20 || ihl > 60)
		return TC_ACT_OK;
	tcp = (void *)((char *)ip + ihl);
	if ((void *)(tcp + 1) > end)
		return TC_ACT_OK;
#ifdef TAIL_TOS
	return ip->tos == TAIL_TOS ? TC_ACT_SHOT : TC_ACT_OK;
#endif
	doff = tcp->doff * 4u;
	tot = bpf_ntohs(ip->tot_len);
	if (tcp->syn || tcp->fin || tcp->rst || (!PURE_ACKS && tot <= ihl + doff))
		return TC_ACT_OK;
#ifdef LINE_A_PORT
	{
		__u32 sport = bpf_ntohs(tcp->source), line, drop, dup, reorder;
		if (sport == LINE_A_PORT)
			line = 0, drop = DROP_A, dup = DUP_A, reorder = REORDER_A;
		else if (sport == LINE_B_PORT)
			line = 1, drop = DROP_B, dup = DUP_B, reorder = REORDER_B;
		else
			return TC_ACT_OK;
#ifdef BY_MSGSEQ
		__u32 m = step_msgseq(skb, (__u32)sizeof(*eth) + ihl + doff);
		if (m >= LOSS_FIRST && m <= LOSS_LAST && (line_hash(m, line) < drop || line_hash(m, 2) < DROP_BOTH)) {
			__u32 key = line * (LOSS_LAST + 1) + m, *n = bpf_map_lookup_elem(&DROP_MAP, &key);
			if (n)
				__sync_fetch_and_add(n, 1);
			return TC_ACT_SHOT;
		}
		drop = 0;
#endif
		r = bpf_get_prandom_u32() % 1000u;
		if (r < drop)
			return TC_ACT_SHOT;
		if (r < drop + dup) {
			skb->mark = CLONE_MARK;
			bpf_clone_redirect(skb, skb->ifindex, 0);
			skb->mark = 0;
		} else if (r < drop + dup + reorder) {
			slow_down(skb, eth);
		}
		return TC_ACT_OK;
	}
#endif
	r = bpf_get_prandom_u32() % 1000u;
	if (r < DROP_PERMILLE)
		return TC_ACT_SHOT;
	if (r < DROP_PERMILLE + DUP_PERMILLE) {
		skb->mark = CLONE_MARK;
		bpf_clone_redirect(skb, skb->ifindex, 0);
		skb->mark = 0;
		return TC_ACT_OK;
	}
	if (r < DROP_PERMILLE + DUP_PERMILLE + REORDER_PERMILLE)
		slow_down(skb, eth);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
