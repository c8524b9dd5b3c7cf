/* feed_detect.c - which endpoints of a capture carry an SSE feed (see feed_detect.h). */
#include "feed_detect.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/host/net_link.h"
#include "net/net_cfg.h"
#include "net/net_counters.h"
#include "net/net_rx.h"

#define FEED_DETECT_MAX 256 /* endpoints tracked; a capture with more keeps the first ones seen */

/* 1 when p[0..n) holds the start of a STEP message with FAST data after it. */
static int step_data(const uint8_t *p, uint32_t n)
{
	const uint8_t *m = memmem(p, n, "8=STEP.", 7);
	return m && memmem(m, n - (uint32_t)(m - p), "\00196=", 4) != NULL;
}

static int by_packets(const void *a, const void *b)
{
	const struct feed_found *x = a, *y = b;
	if (x->packets != y->packets)
		return x->packets < y->packets ? 1 : -1;
	if (x->udp != y->udp)
		return x->udp - y->udp; /* TCP first */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->port - y->port;
}

int feed_detect_pcap(const char *path, struct feed_found *out, uint32_t cap, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct net_cfg cfg;
	struct net_stats st;
	struct net_pkt pkt;
	struct feed_found *seen;
	uint8_t *cooked;
	uint32_t nseen = 0, i, len;
	int dlt, r, rc = -1;
	pcap_t *pc = pcap_open_offline(path, perr);
	if (!pc) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -1;
	}
	dlt = pcap_datalink(pc);
	seen = calloc(FEED_DETECT_MAX, sizeof *seen);
	cooked = malloc(NET_MAX_FRAME);
	if (!seen || !cooked) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!net_link_supported(dlt)) {
		snprintf(err, errlen, "%s: link type %d not supported", path, dlt);
		goto out;
	}
	net_cfg_init(&cfg);
	cfg.flags &= ~(NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM); /* as toe-pcapdump reads by default */
	net_stats_init(&st);
	while ((r = pcap_next_ex(pc, &h, &data)) == 1) {
		const uint8_t *frame = net_link_frame(dlt, data, h->caplen, cooked, &len);
		enum net_rx_verdict v = net_rx(&cfg, &st, frame, len, 0, &pkt);
		uint8_t udp = v == NET_RX_UDP;
		uint32_t addr = udp ? 0 : pkt.saddr;
		uint16_t port = udp ? pkt.dport : pkt.sport;
		if ((v != NET_RX_TCP && v != NET_RX_UDP) || !step_data(pkt.payload, pkt.payload_len))
			continue;
		for (i = 0; i < nseen; i++)
			if (seen[i].udp == udp && seen[i].addr == addr && seen[i].port == port)
				break;
		if (i == nseen) {
			if (nseen == FEED_DETECT_MAX)
				continue;
			seen[nseen].addr = addr;
			seen[nseen].port = port;
			seen[nseen].udp = udp;
			nseen++;
		}
		seen[i].packets++;
	}
	if (r == -1) {
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(pc));
		goto out;
	}
	qsort(seen, nseen, sizeof *seen, by_packets);
	rc = (int)(nseen < cap ? nseen : cap);
	memcpy(out, seen, (size_t)rc * sizeof *seen);
out:
	free(seen);
	free(cooked);
	pcap_close(pc);
	return rc;
}
