/* feed_detect.h - which endpoints of a capture carry an SSE feed (host only).
 *
 * toe-pcapdump's guess when it is told nothing to follow: one pass over the
 * capture (libpcap, the link types net_link.h reads, net_rx's parsing) that
 * counts, per TCP source endpoint and per UDP destination port, the packets
 * whose payload holds the start of a STEP message that carries FAST data
 * ("8=STEP." and, after it, SOH "96="). The exchange's side of a connection
 * sends those; the vendor's side sends logons, heartbeats and ACKs, never
 * 96=, so it is not taken for a feed. Raw FAST over UDP has no marker and is
 * never guessed.
 */
#ifndef FEED_DETECT_H
#define FEED_DETECT_H

#include <stddef.h>
#include <stdint.h>

struct feed_found {
	uint32_t addr;    /* TCP: the sender's IPv4 address (host order); UDP: 0 */
	uint16_t port;    /* TCP: the sender's port; UDP: the destination port */
	uint8_t udp;      /* 1: a UDP port, 0: a TCP endpoint */
	uint8_t pad;
	uint64_t packets; /* packets with a STEP data message starting in them */
};

/* Scan the capture at path; up to cap endpoints into out, most packets
 * first. Returns how many were found (0: none), or -1 with a message in err
 * when the file cannot be read or its link type is not one net_link reads. */
int feed_detect_pcap(const char *path, struct feed_found *out, uint32_t cap, char *err, size_t errlen);

#endif
