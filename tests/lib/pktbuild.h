/* pktbuild.h - a packet builder and pcap files for tests (host code).
 *
 * Builds Ethernet frames byte by byte from a struct pb_spec, independently of
 * kernels/net (its own checksum code), so tests compare two implementations:
 * 0, 1 or 2 VLAN tags; IPv4 with options, any flags/fragment offset, correct
 * or deliberately wrong header checksum; TCP (seq, ack, flags, window,
 * options, payload) and UDP with correct, wrong or absent checksums; ICMP
 * echo; ARP requests and replies. Frames shorter than 60 bytes are
 * zero-padded unless pb_spec.no_pad is set.
 *
 *   struct pb_spec s;
 *   pb_init(&s);                       // addresses 10.0.0.1 -> 10.0.0.2, MACs ..:01 -> ..:02
 *   s.seq = 1000; s.tcp_flags = TCP_ACK | TCP_PSH;
 *   size_t n = pb_tcp(buf, sizeof buf, &s, "hello", 5);
 *
 * Every builder returns the frame length, or 0 when it does not fit cap.
 * pcap: classic pcap files with LINKTYPE_ETHERNET through libpcap.
 */
#ifndef TOE_PKTBUILD_H
#define TOE_PKTBUILD_H

#include <stddef.h>
#include <stdint.h>

/* pb_spec.csum */
#define PB_CSUM_OK 0      /* correct checksum */
#define PB_CSUM_BAD 1     /* correct checksum xor 0x5a5a (never valid) */
#define PB_CSUM_ZERO 2    /* field left 0 (UDP: "no checksum"; TCP: what a NIC without offload fill leaves) */
#define PB_CSUM_PARTIAL 3 /* TCP/UDP: only the pseudo-header sum, as Linux leaves it for transmit offload */

#define PB_IP_DF 0x4000
#define PB_IP_MF 0x2000

struct pb_spec {
	/* Ethernet */
	uint8_t dst_mac[6], src_mac[6];
	int nvlan;                 /* 0, 1 or 2 (up to 3 for negative tests) */
	uint16_t vlan_tpid[3];     /* outer first; default 0x8100 */
	uint16_t vlan_tci[3];      /* PCP/DEI/VID as sent */
	int no_pad;                /* do not pad to 60 bytes */
	/* IPv4 */
	uint32_t saddr, daddr;     /* host byte order */
	uint8_t tos, ttl;
	uint16_t ip_id;
	uint16_t ip_frag;          /* flags (PB_IP_DF, PB_IP_MF) | offset in 8-byte units */
	const uint8_t *ip_opts;    /* multiple of 4 bytes, at most 40 */
	size_t ip_optlen;
	int ip_version;            /* default 4 */
	int ip_ihl;                /* 0: computed from the options */
	int ip_len_delta;          /* added to the correct total length */
	int ip_csum;               /* PB_CSUM_* for the header checksum */
	int ip_proto;              /* -1: the builder's protocol */
	/* TCP / UDP */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t tcp_flags;
	uint16_t win, urg;
	const uint8_t *tcp_opts;   /* multiple of 4 bytes, at most 40 */
	size_t tcp_optlen;
	int tcp_doff;              /* 0: computed from the options (header words) */
	int udp_len_delta;         /* added to the correct UDP length field */
	int l4_csum;               /* PB_CSUM_* for the TCP/UDP/ICMP checksum */
	/* ICMP */
	uint8_t icmp_type, icmp_code;
	uint16_t icmp_id, icmp_seq;
	/* ARP */
	uint16_t arp_op;           /* 1 request, 2 reply */
	uint8_t arp_sha[6], arp_tha[6];
	uint32_t arp_spa, arp_tpa;
};

void pb_init(struct pb_spec *s);

/* The other direction of s's flow: r = s with the MACs, addresses and ports swapped (a peer's ACKs,
 * a reply). Sequence numbers and flags are the caller's to set. */
void pb_reverse(const struct pb_spec *s, struct pb_spec *r);

/* Internet checksum (RFC 1071), computed 16 bits at a time: the complement of
 * the ones'-complement sum of p[0..n) added to `initial` (an unfolded sum). */
uint16_t pb_csum(const void *p, size_t n, uint32_t initial);

/* Ethernet header (+ tags) and payload with EtherType `type`. */
size_t pb_eth(uint8_t *out, size_t cap, const struct pb_spec *s, uint16_t type, const void *payload, size_t n);
/* IPv4 packet with protocol `proto` carrying l4[0..n) (already built) in an Ethernet frame. */
size_t pb_ipv4(uint8_t *out, size_t cap, const struct pb_spec *s, uint8_t proto, const void *l4, size_t n);
size_t pb_tcp(uint8_t *out, size_t cap, const struct pb_spec *s, const void *payload, size_t n);
size_t pb_udp(uint8_t *out, size_t cap, const struct pb_spec *s, const void *payload, size_t n);
/* ICMP message: type, code, checksum, id, seq, data (echo layout for every type). */
size_t pb_icmp(uint8_t *out, size_t cap, const struct pb_spec *s, const void *data, size_t n);
/* ARP packet from the arp_* fields (Ethernet/IPv4, 28 bytes). */
size_t pb_arp(uint8_t *out, size_t cap, const struct pb_spec *s);

/* Fragment the IPv4 packet in frame[0..len) (built without options by
 * pb_tcp/pb_udp/...) into pieces carrying at most `max_payload` bytes of IP
 * payload each (rounded down to a multiple of 8). Writes fragment number idx
 * into out and returns its length; 0 when idx is past the last fragment. */
size_t pb_ipv4_fragment(const uint8_t *frame, size_t len, size_t max_payload, size_t idx, uint8_t *out, size_t cap);

/* Offset of the IPv4 header in a frame built from s. */
size_t pb_l3_off(const struct pb_spec *s);

/* ---- pcap files (libpcap) ---- */
struct pb_pcap;

/* Create path for writing; nano selects nanosecond timestamps (magic
 * 0xa1b23c4d) instead of microseconds. NULL on error (printed). */
struct pb_pcap *pb_pcap_create(const char *path, int nano);
/* The same with another link type (libpcap's DLT_ value): DLT_EN10MB (what
 * pb_pcap_create writes), DLT_LINUX_SLL, DLT_LINUX_SLL2 or DLT_RAW;
 * pb_pcap_write still takes Ethernet frames and writes each with its
 * Ethernet header replaced by that link type's (as tcpdump -i any or a raw
 * IP capture would hold it). */
struct pb_pcap *pb_pcap_create_link(const char *path, int nano, int dlt);
int pb_pcap_write(struct pb_pcap *w, const uint8_t *frame, size_t len, uint64_t ts_ns);

/* Open for reading; pb_pcap_next returns 1 with the frame (valid until the
 * next call), its captured length and time in ns, 0 at the end, -1 on error. */
struct pb_pcap *pb_pcap_open(const char *path);
int pb_pcap_next(struct pb_pcap *r, const uint8_t **frame, uint32_t *len, uint64_t *ts_ns);

void pb_pcap_close(struct pb_pcap *p);

#endif
