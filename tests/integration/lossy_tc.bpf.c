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
 * Tail mode (-DTAIL_TOS=t, used by test_mirror_tail.sh): drop every IPv4
 * TCP segment whose IP TOS byte is t, data, FIN and pure ACK alike, and
 * nothing else. The exchange's sender (mirror_peer.py serve ... TAIL) marks
 * the end of its connection with that TOS, so on the mirror leg the last
 * segments and the FIN are lost while the vendor's ACKs pass.
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
#define CLONE_MARK 0x70e0070eu

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
	if (tcp->syn || tcp->fin || tcp->rst || tot <= ihl + doff)
		return TC_ACT_OK;
	r = bpf_get_prandom_u32() % 1000u;
	if (r < DROP_PERMILLE)
		return TC_ACT_SHOT;
	if (r < DROP_PERMILLE + DUP_PERMILLE) {
		skb->mark = CLONE_MARK;
		bpf_clone_redirect(skb, skb->ifindex, 0);
		skb->mark = 0;
	}
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
