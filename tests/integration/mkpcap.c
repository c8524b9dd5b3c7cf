/* mkpcap.c - turn a STEP feed (toe-fastgen output) into a capture of a TCP connection (or UDP datagrams).
 *
 *   mkpcap [options] FEED.step OUT.pcap
 *     --exchange IP:PORT   the exchange's end, sender of the feed (default 10.1.0.10:5261)
 *     --vendor IP:PORT     our end (default 10.1.0.2:40001)
 *     --mss N              bytes per segment (default 1408)
 *     --interval-us N      time between frames (default 100)
 *     --start-s N          UNIX time of the first frame (default 1700000000)
 *     --no-syn             no handshake: the capture joins mid-stream
 *     --fin                end with a FIN
 *     --swap-every N       swap data segments 2k and 2k+1 of every N pairs (reordering; 0: none)
 *     --drop-every N       leave out every Nth data segment (loss; 0: none)
 *     --udp                one datagram per STEP message, exchange -> vendor port (no TCP)
 *     --link L             the capture's link type: ethernet (default), sll or sll2 (Linux cooked, as
 *                          tcpdump -i any writes), raw (bare IP packets)
 *     --pcapng             write the capture as pcapng (one interface, nanosecond timestamps), as
 *                          Wireshark and dumpcap save by default
 *     --csum-offload       TCP/UDP checksums left as transmit offload leaves them (pseudo-header sum
 *                          only), as a capture on the sending host or of a veth mirror shows them
 *
 * The frames are built with tests/lib/pktbuild (its own header and checksum
 * code). The vendor acknowledges every 4th segment, as a real receiver would
 * on the mirror. Prints the number of frames and bytes. Exit 0, 1 error, 2 usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_pkt.h"
#include "pktbuild.h"

static uint8_t frame[70000];

static int parse_ep(const char *s, uint32_t *ip, uint16_t *port)
{
	char buf[64];
	const char *colon = strrchr(s, ':');
	struct in_addr a;
	if (!colon || (size_t)(colon - s) >= sizeof buf)
		return -1;
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = 0;
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -1;
	long p = strtol(colon + 1, NULL, 10);
	if (p <= 0 || p > 65535)
		return -1;
	*ip = ntohl(a.s_addr);
	*port = (uint16_t)p;
	return 0;
}

struct out {
	struct pb_pcap *w;
	uint64_t ts, step;
	uint64_t frames;
};

static int emit(struct out *o, size_t len)
{
	if (!len || pb_pcap_write(o->w, frame, len, o->ts) < 0)
		return -1;
	o->ts += o->step;
	o->frames++;
	return 0;
}

static int seg(struct out *o, const struct pb_spec *base, uint32_t seq, uint32_t ack, uint8_t flags, const uint8_t *p,
	       size_t n)
{
	struct pb_spec s = *base;
	s.seq = seq;
	s.ack = ack;
	s.tcp_flags = flags;
	return emit(o, pb_tcp(frame, sizeof frame, &s, p, n));
}

static int vendor_ack(struct out *o, const struct pb_spec *base, uint32_t seq, uint32_t ack, uint8_t flags)
{
	struct pb_spec s = *base;
	s.saddr = base->daddr;
	s.daddr = base->saddr;
	s.sport = base->dport;
	s.dport = base->sport;
	memcpy(s.src_mac, base->dst_mac, 6);
	memcpy(s.dst_mac, base->src_mac, 6);
	s.seq = seq;
	s.ack = ack;
	s.tcp_flags = flags;
	return emit(o, pb_tcp(frame, sizeof frame, &s, NULL, 0));
}

/* Offset of the next "8=STEP" at or after from (len if none). */
static size_t next_msg(const uint8_t *d, size_t len, size_t from)
{
	for (size_t i = from; i + 6 <= len; i++)
		if (!memcmp(d + i, "8=STEP", 6))
			return i;
	return len;
}

/* One pcapng block: type, total length, body padded to 4 bytes, total length again. */
static int ng_block(FILE *f, uint32_t type, const void *body, size_t n)
{
	static const uint8_t pad[4];
	uint32_t len = (uint32_t)(12 + (n + 3) / 4 * 4);
	return fwrite(&type, 4, 1, f) == 1 && fwrite(&len, 4, 1, f) == 1 && fwrite(body, 1, n, f) == n &&
			       fwrite(pad, 1, (4 - n % 4) % 4, f) == (4 - n % 4) % 4 && fwrite(&len, 4, 1, f) == 1
		       ? 0
		       : -1;
}

/* Rewrite the pcap at path as pcapng (host byte order, as writers do): a
 * section header, one interface (its link type, if_tsresol 9: nanoseconds),
 * an enhanced packet block per frame. 0, or 1 on error (printed). */
static int to_pcapng(const char *path)
{
	char err[PCAP_ERRBUF_SIZE], tmp[4096];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	FILE *f;
	int r, bad = 0;
	if (!p)
		return fprintf(stderr, "mkpcap: %s: %s\n", path, err), 1;
	snprintf(tmp, sizeof tmp, "%s.ng", path);
	f = fopen(tmp, "wb");
	if (!f) {
		pcap_close(p);
		return fprintf(stderr, "mkpcap: %s: %s\n", tmp, strerror(errno)), 1;
	}
	{
		const uint32_t shb[4] = {0x1a2b3c4d, 1, 0xffffffffu, 0xffffffffu}; /* magic, 1.0, length unknown */
		struct {
			uint16_t link, reserved;
			uint32_t snap;
			uint16_t code, len;
			uint8_t tsresol, pad[3];
			uint16_t end_code, end_len;
		} idb = {(uint16_t)pcap_datalink(p), 0, 262144, 9, 1, 9, {0}, 0, 0};
		bad |= ng_block(f, 0x0a0d0d0a, shb, sizeof shb) | ng_block(f, 1, &idb, sizeof idb);
	}
	while (!bad && (r = pcap_next_ex(p, &h, &d)) == 1) {
		static uint8_t epb[20 + 262144];
		uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
		uint32_t w[5] = {0, (uint32_t)(ts >> 32), (uint32_t)ts, h->caplen, h->len};
		memcpy(epb, w, sizeof w);
		memcpy(epb + 20, d, h->caplen);
		bad |= ng_block(f, 6, epb, 20 + h->caplen);
	}
	pcap_close(p);
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0)
		return fprintf(stderr, "mkpcap: writing %s failed\n", tmp), 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"exchange", required_argument, 0, 'e'}, {"vendor", required_argument, 0, 'v'},
		{"mss", required_argument, 0, 'm'},      {"interval-us", required_argument, 0, 'i'},
		{"start-s", required_argument, 0, 's'},  {"no-syn", no_argument, 0, 'J'},
		{"fin", no_argument, 0, 'F'},            {"swap-every", required_argument, 0, 'w'},
		{"drop-every", required_argument, 0, 'd'}, {"udp", no_argument, 0, 'u'},
		{"csum-offload", no_argument, 0, 'O'},   {"link", required_argument, 0, 'L'},
		{"pcapng", no_argument, 0, 'N'},         {0, 0, 0, 0},
	};
	struct pb_spec s;
	uint32_t ex_ip = 0x0a01000a, ve_ip = 0x0a010002;
	uint16_t ex_port = 5261, ve_port = 40001;
	unsigned long mss = 1408, interval = 100, swap_every = 0, drop_every = 0;
	unsigned long long start = 1700000000ull;
	int syn = 1, fin = 0, udp = 0, offload = 0, dlt = DLT_EN10MB, ng = 0, c;
	while ((c = getopt_long(argc, argv, "e:v:m:i:s:JFw:d:uOL:N", lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (parse_ep(optarg, &ex_ip, &ex_port))
				return fprintf(stderr, "mkpcap: --exchange IP:PORT\n"), 2;
			break;
		case 'v':
			if (parse_ep(optarg, &ve_ip, &ve_port))
				return fprintf(stderr, "mkpcap: --vendor IP:PORT\n"), 2;
			break;
		case 'm': mss = strtoul(optarg, NULL, 10); break;
		case 'i': interval = strtoul(optarg, NULL, 10); break;
		case 's': start = strtoull(optarg, NULL, 10); break;
		case 'J': syn = 0; break;
		case 'F': fin = 1; break;
		case 'w': swap_every = strtoul(optarg, NULL, 10); break;
		case 'd': drop_every = strtoul(optarg, NULL, 10); break;
		case 'u': udp = 1; break;
		case 'O': offload = 1; break;
		case 'N': ng = 1; break;
		case 'L':
			dlt = !strcmp(optarg, "ethernet") ? DLT_EN10MB
			      : !strcmp(optarg, "sll")   ? DLT_LINUX_SLL
			      : !strcmp(optarg, "sll2")  ? DLT_LINUX_SLL2
			      : !strcmp(optarg, "raw")   ? DLT_RAW
							 : -1;
			if (dlt < 0)
				return fprintf(stderr, "mkpcap: --link ethernet|sll|sll2|raw\n"), 2;
			break;
		default: return 2;
		}
	}
	if (optind + 2 != argc || mss < 1 || mss > 9000) {
		fprintf(stderr, "usage: mkpcap [options] FEED.step OUT.pcap\n");
		return 2;
	}
	FILE *f = fopen(argv[optind], "rb");
	if (!f) {
		fprintf(stderr, "mkpcap: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	size_t cap = 1 << 20, len = 0;
	uint8_t *feed = malloc(cap);
	size_t n;
	while (feed && (n = fread(feed + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *g = realloc(feed, cap *= 2);
			if (!g) {
				free(feed);
				feed = NULL;
			}
			feed = g;
		}
	}
	fclose(f);
	if (!feed) {
		fprintf(stderr, "mkpcap: out of memory\n");
		return 1;
	}
	struct out o = {.ts = start * 1000000000ull, .step = interval * 1000ull};
	o.w = pb_pcap_create_link(argv[optind + 1], 1, dlt);
	if (!o.w)
		return 1;
	pb_init(&s);
	s.saddr = ex_ip;
	s.daddr = ve_ip;
	s.sport = ex_port;
	s.dport = ve_port;
	s.win = 65535;
	if (offload)
		s.l4_csum = PB_CSUM_PARTIAL;
	const uint8_t ex_mac[6] = {0x02, 0, 0, 0, 0, 0x0a}, ve_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
	memcpy(s.src_mac, ex_mac, 6);
	memcpy(s.dst_mac, ve_mac, 6);
	int bad = 0;
	if (udp) {
		for (size_t off = next_msg(feed, len, 0); off < len && !bad;) {
			size_t end = next_msg(feed, len, off + 1);
			bad |= emit(&o, pb_udp(frame, sizeof frame, &s, feed + off, end - off));
			off = end;
		}
	} else {
		const uint32_t isn = 1000000, visn = 5000000;
		if (syn) {
			bad |= seg(&o, &s, isn, 0, TCP_SYN, NULL, 0); /* as seen on the mirror: exchange accepts */
			bad |= vendor_ack(&o, &s, visn, isn + 1, TCP_ACK);
		}
		/* data segments, then reorder by swapping pairs */
		size_t nseg = (len + mss - 1) / mss, k = 0;
		size_t *order = malloc((nseg + 1) * sizeof *order), cp = 0;
		uint8_t *sent = calloc(nseg + 1, 1);
		for (size_t i = 0; i < nseg; i++)
			order[i] = i;
		if (swap_every)
			for (size_t p = 0; p + 1 < nseg; p += 2 * swap_every) {
				size_t t = order[p];
				order[p] = order[p + 1];
				order[p + 1] = t;
			}
		for (size_t i = 0; i < nseg && !bad; i++) {
			size_t sg = order[i], off = sg * mss, l = len - off < mss ? len - off : mss;
			if (drop_every && (sg + 1) % drop_every == 0)
				continue;
			bad |= seg(&o, &s, isn + 1 + (uint32_t)off, visn + 1, TCP_ACK | TCP_PSH, feed + off, l);
			sent[sg] = 1;
			while (cp < nseg && sent[cp])
				cp++;
			/* the vendor acknowledges what it holds in order (a hole keeps the ACK back) */
			if (++k % 4 == 0)
				bad |= vendor_ack(&o, &s, visn + 1, isn + 1 + (uint32_t)(cp * mss < len ? cp * mss : len), TCP_ACK);
		}
		if (fin && !bad) {
			bad |= seg(&o, &s, isn + 1 + (uint32_t)len, visn + 1, TCP_FIN | TCP_ACK, NULL, 0);
			bad |= vendor_ack(&o, &s, visn + 1, isn + 2 + (uint32_t)len, TCP_ACK);
		}
		free(order);
		free(sent);
	}
	pb_pcap_close(o.w);
	free(feed);
	if (!bad && ng)
		bad = to_pcapng(argv[optind + 1]);
	if (bad) {
		fprintf(stderr, "mkpcap: writing %s failed\n", argv[optind + 1]);
		return 1;
	}
	printf("%llu frames, %zu feed bytes\n", (unsigned long long)o.frames, len);
	return 0;
}
