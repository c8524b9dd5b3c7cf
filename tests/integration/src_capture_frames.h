/* src_capture_frames.h - the frames test_src_capture.sh sends over a veth pair, shared by
 * src_capture_send.c (builds and sends them) and src_capture_check.c (builds the same bytes
 * and matches what a source delivers against them).
 *
 * Side A (10.99.0.1, 02:00:00:99:00:01) sends to side B (10.99.0.2, 02:00:00:99:00:02).
 * Feeds steered to AF_XDP on B: 10.99.0.2:5801/udp (matched as destination),
 * 10.99.0.1:3201/tcp (matched as source) and any address with port 7000/udp.
 * Each kind says whether it is a feed frame and on which UDP port B's own
 * stack receives it when it is not steered away (0: the stack drops it or it is
 * not UDP).
 */
#ifndef SRC_CAPTURE_FRAMES_H
#define SRC_CAPTURE_FRAMES_H

#include <stdint.h>
#include <string.h>

#include "pktbuild.h"

#define CAP_IP_A 0x0a630001u
#define CAP_IP_B 0x0a630002u
#define CAP_MTU 9000

enum cap_kind {
	CAPK_FEED_UDP,      /* A:40000 -> B:5801 udp */
	CAPK_FEED_TCP,      /* A:3201 -> B:45000 tcp (a feed's source endpoint) */
	CAPK_FEED_VLAN,     /* feed udp behind one 802.1Q tag */
	CAPK_FEED_QINQ,     /* feed udp behind 802.1ad + 802.1Q */
	CAPK_FEED_OTHERMAC, /* feed udp to another host's MAC (mirror port: promiscuous) */
	CAPK_FEED_WILD,     /* A:40001 -> B:7000 udp (port-only feed) */
	CAPK_FEED_JUMBO,    /* feed udp, 8000 bytes of payload (several UMEM frames) */
	CAPK_OTHER_UDP,     /* A:40000 -> B:6000 udp */
	CAPK_OTHER_PROTO,   /* A:3201 -> B:6001 udp: feed address:port but the wrong protocol */
	CAPK_OTHER_VLAN,    /* non-feed udp behind a tag */
	CAPK_ARP,           /* who-has 10.99.0.2 */
	CAPK_ETHER,         /* EtherType 0x88b5 */
	CAPK_ICMP,          /* echo request to B */
	CAPK_N
};

struct cap_kind_info {
	const char *name;
	int count;
	int feed;            /* steered to AF_XDP */
	uint16_t host_port;  /* UDP port of B's stack that gets it when not steered */
	int jumbo;
};

static const struct cap_kind_info cap_kinds[CAPK_N] = {
	[CAPK_FEED_UDP] = { "feed-udp", 20, 1, 5801, 0 },
	[CAPK_FEED_TCP] = { "feed-tcp", 10, 1, 0, 0 },
	[CAPK_FEED_VLAN] = { "feed-vlan", 5, 1, 0, 0 },
	[CAPK_FEED_QINQ] = { "feed-qinq", 5, 1, 0, 0 },
	[CAPK_FEED_OTHERMAC] = { "feed-othermac", 3, 1, 0, 0 },
	[CAPK_FEED_WILD] = { "feed-wildcard", 3, 1, 7000, 0 },
	[CAPK_FEED_JUMBO] = { "feed-jumbo", 2, 1, 5801, 1 },
	[CAPK_OTHER_UDP] = { "other-udp", 10, 0, 6000, 0 },
	[CAPK_OTHER_PROTO] = { "other-proto", 3, 0, 6001, 0 },
	[CAPK_OTHER_VLAN] = { "other-vlan", 3, 0, 0, 0 },
	[CAPK_ARP] = { "arp", 2, 0, 0, 0 },
	[CAPK_ETHER] = { "ethertype-88b5", 2, 0, 0, 0 },
	[CAPK_ICMP] = { "icmp-echo", 3, 0, 0, 0 },
};

#define CAP_MAX_PER_KIND 20
#define CAP_FRAME_MAX 9100

static const uint16_t cap_udp_ports[] = { 5801, 7000, 6000, 6001 };

/* Frame i of a kind into buf; returns its length (0 on error). */
static inline size_t cap_frame(int kind, int i, uint8_t *buf, size_t cap)
{
	static const uint8_t mac_a[6] = { 0x02, 0, 0, 0x99, 0, 0x01 };
	static const uint8_t mac_b[6] = { 0x02, 0, 0, 0x99, 0, 0x02 };
	static const uint8_t mac_x[6] = { 0x02, 0, 0, 0x99, 0, 0x77 };
	static uint8_t pl[8100];
	struct pb_spec s;
	size_t n = 40 + (size_t)i * 3, k;

	pb_init(&s);
	memcpy(s.src_mac, mac_a, 6);
	memcpy(s.dst_mac, mac_b, 6);
	s.saddr = CAP_IP_A;
	s.daddr = CAP_IP_B;
	s.ip_id = (uint16_t)(kind * 100 + i);
	s.sport = 40000;
	s.dport = 5801;
	/* the payload names the frame: "TOECAP", kind, index */
	memset(pl, 0, sizeof pl);
	memcpy(pl, "TOECAP", 6);
	pl[6] = (uint8_t)kind;
	pl[7] = (uint8_t)i;
	for (k = 8; k < sizeof pl; k++)
		pl[k] = (uint8_t)(k * 31 + (size_t)kind * 7 + (size_t)i);
	switch (kind) {
	case CAPK_FEED_UDP:
		return pb_udp(buf, cap, &s, pl, n);
	case CAPK_FEED_TCP:
		s.sport = 3201;
		s.dport = 45000;
		s.seq = 1000u + (uint32_t)i * 1000u;
		s.ack = 1;
		s.tcp_flags = 0x18; /* ACK PSH */
		return pb_tcp(buf, cap, &s, pl, n);
	case CAPK_FEED_VLAN:
		s.nvlan = 1;
		s.vlan_tci[0] = 100;
		return pb_udp(buf, cap, &s, pl, n);
	case CAPK_FEED_QINQ:
		s.nvlan = 2;
		s.vlan_tpid[0] = 0x88a8;
		s.vlan_tci[0] = 200;
		s.vlan_tpid[1] = 0x8100;
		s.vlan_tci[1] = 100;
		return pb_udp(buf, cap, &s, pl, n);
	case CAPK_FEED_OTHERMAC:
		memcpy(s.dst_mac, mac_x, 6);
		return pb_udp(buf, cap, &s, pl, n);
	case CAPK_FEED_WILD:
		s.sport = 40001;
		s.dport = 7000;
		return pb_udp(buf, cap, &s, pl, n);
	case CAPK_FEED_JUMBO:
		return pb_udp(buf, cap, &s, pl, 8000 + (size_t)i);
	case CAPK_OTHER_UDP:
		s.dport = 6000;
		return pb_udp(buf, cap, &s, pl, n);
	case CAPK_OTHER_PROTO:
		s.sport = 3201;
		s.dport = 6001;
		return pb_udp(buf, cap, &s, pl, n);
	case CAPK_OTHER_VLAN:
		s.nvlan = 1;
		s.vlan_tci[0] = 100;
		s.dport = 6000;
		return pb_udp(buf, cap, &s, pl, n);
	case CAPK_ARP: {
		static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
		memcpy(s.dst_mac, bcast, 6);
		memcpy(s.arp_sha, mac_a, 6);
		s.arp_op = 1;
		s.arp_spa = CAP_IP_A;
		s.arp_tpa = CAP_IP_B;
		/* tell the two requests apart by the padding-free target hardware field */
		s.arp_tha[5] = (uint8_t)i;
		return pb_arp(buf, cap, &s);
	}
	case CAPK_ETHER:
		return pb_eth(buf, cap, &s, 0x88b5, pl, n);
	case CAPK_ICMP:
		s.icmp_type = 8;
		s.icmp_id = 0x7e57;
		s.icmp_seq = (uint16_t)i;
		return pb_icmp(buf, cap, &s, pl, n);
	default:
		return 0;
	}
}

#endif
