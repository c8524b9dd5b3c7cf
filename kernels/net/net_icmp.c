/* net_icmp.c - ICMP echo responder (synthesisable subset). */
#include "net_icmp.h"
#include "net_csum.h"
#include "net_rx.h"
#include "net_util.h"

uint32_t net_icmp_input(const struct net_cfg *cfg, struct net_stats *st, const struct net_pkt *pkt, uint8_t *out,
			uint32_t cap)
{
	const uint8_t *icmp = pkt->payload;
	const uint8_t *ip;
	uint32_t len = pkt->payload_len, l2, n, i;
	uint8_t *oip, *oicmp;
	int ours;

	st->icmp.in_msgs++;
	if (len < 8) {
		st->icmp.drop_icmp_short++;
		return 0;
	}
	if (net_csum_buf(icmp, len) != 0) {
		st->icmp.drop_icmp_csum++;
		return 0;
	}
	if (icmp[0] != NET_ICMP_ECHO_REQUEST || icmp[1] != 0) {
		st->icmp.in_other++;
		return 0;
	}
	ours = net_cfg_find(cfg, pkt->daddr);
	if (ours < 0) {
		st->icmp.in_echo_other++;
		return 0;
	}
	st->icmp.in_echo_req++;

	l2 = net_pkt_l3(pkt);
	ip = pkt->frame + l2;
	n = l2 + 20 + len;
	if (n < NET_MIN_FRAME)
		n = NET_MIN_FRAME;
	if (cap < n) {
		st->icmp.drop_tx_space++;
		return 0;
	}
	/* Ethernet: back to the sender, with its tags */
	net_copy_mac(out, pkt->frame + 6);
	net_copy_mac(out + 6, cfg->addr[ours].mac);
	for (i = 0; i < 4u * NET_MAX_VLAN; i++) {
		if (12 + i >= l2 - 2)
			break;
		out[12 + i] = pkt->frame[12 + i];
	}
	net_put16(out + l2 - 2, NET_ETHERTYPE_IPV4);

	oip = out + l2;
	oip[0] = 0x45;
	oip[1] = ip[1];                       /* TOS */
	net_put16(oip + 2, (uint16_t)(20 + len));
	oip[4] = ip[4];                       /* identification */
	oip[5] = ip[5];
	net_put16(oip + 6, 0);                /* no flags, offset 0 */
	oip[8] = NET_ICMP_REPLY_TTL;
	oip[9] = NET_PROTO_ICMP;
	net_put16(oip + 10, 0);
	net_put32(oip + 12, pkt->daddr);
	net_put32(oip + 16, pkt->saddr);
	net_put16(oip + 10, net_csum_buf(oip, 20));

	oicmp = oip + 20;
	net_copy(oicmp, icmp, len);
	oicmp[0] = NET_ICMP_ECHO_REPLY;
	oicmp[1] = 0;
	net_put16(oicmp + 2, 0);
	net_put16(oicmp + 2, net_csum_buf(oicmp, len));
	net_zero_pad(out, l2 + 20 + len, n);
	st->icmp.out_echo_reply++;
	return n;
}
