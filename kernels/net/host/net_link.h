/* net_link.h - captured link layers turned into Ethernet frames (host only).
 *
 * The receive path (net_rx) takes Ethernet frames. Captures hold those, or
 * Linux "cooked" headers (tcpdump -i any: LINUX_SLL, and LINUX_SLL2 since
 * libpcap 1.10, Debian 12's default), or bare IP packets (DLT_RAW,
 * DLT_IPV4). Each of those gets a 14-byte Ethernet header in place of its
 * own: destination zero, source the cooked header's address when it is a
 * 6-byte one, the EtherType its protocol (raw IP: 0x0800, or 0x86dd for a
 * version-6 packet, which net_rx counts as not IPv4). toed's pcap source
 * (daemon/src/src_pcap.c) and toe-pcapdump share this one definition, so a
 * capture one of them reads the other reads the same way. Link types are
 * libpcap's DLT_ values (pcap_datalink()).
 */
#ifndef NET_LINK_H
#define NET_LINK_H

#include <stdint.h>

/* 1 when captures of this link type can be read (Ethernet, SLL, SLL2, raw IPv4/IP). */
int net_link_supported(int dlt);

/* The Ethernet header to put in place of d's own link header: writes hdr[0..14)
 * and *skip (the bytes of d it replaces), returns 14. Returns 0 with *skip = 0
 * when d needs none (Ethernet already) or is too short to hold its link header
 * (then it is passed on as it is, and the receive path counts it malformed). */
uint32_t net_link_eth_prefix(int dlt, const uint8_t *d, uint32_t caplen, uint8_t hdr[14], uint32_t *skip);

/* A captured packet d[0..caplen) as an Ethernet frame for net_rx: d itself
 * when it is one, else its Ethernet header and payload written to buf
 * (NET_MAX_FRAME bytes; a longer packet is cut, and net_rx counts it cut).
 * Sets *len. For tools that read a capture one packet at a time. */
const uint8_t *net_link_frame(int dlt, const uint8_t *d, uint32_t caplen, uint8_t *buf, uint32_t *len);

#endif
