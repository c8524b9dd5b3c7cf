/* xsk_floor.c - the floor of any software backend: a raw AF_XDP reader that only finds each STEP message's MsgSeqNum.
 *
 *   xsk_floor --iface DEV [--queue Q] [--native] --sendlog FILE --expect N [--cpu C]
 *             [--label NAME] [--timeout S] [--idle-ms MS] [--ready FILE] [--latency-out FILE]
 *
 * It binds one AF_XDP socket (copy mode, libxdp's default redirect program)
 * to the mirror port, busy-polls its RX ring, and for every TCP payload
 * stamps CLOCK_REALTIME and looks for "<SOH>34=" (MsgSeqNum) of each STEP
 * message that starts in it. No reassembly, no decoding, no publication:
 * what is left is the kernel's XDP path, the copy into the UMEM and the ring
 * hand-over, which is the least any AF_XDP-based receiver pays. The first
 * sighting of each MsgSeqNum counts (the mirror may repeat a retransmission).
 * At the end it prints the one-way latency (send log time -> stamp) as
 * toe-verify and toe-sockrx do ("xsk_floor: NAME one-way latency ..." and a
 * RESULT {json} line), so make bench can put the floor beside them.
 *
 * Exit 0, 1 on an error, 77 (SKIP) when AF_XDP cannot be set up here.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>

#include "feed/feed_lat.h"
#include "feed/feed_net.h"

#define FRAMES 4096
#define FRAME_SIZE 4096
#define MAX_SEQ (1u << 24)

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int64_t now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The TCP payload of an IPv4 frame (optionally one VLAN tag), or NULL. */
static const uint8_t *tcp_payload(const uint8_t *f, uint32_t len, uint32_t *plen)
{
	uint32_t off = 14;
	if (len < off)
		return NULL;
	uint16_t et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == 0x8100 && len >= 18) {
		et = (uint16_t)(f[16] << 8 | f[17]);
		off = 18;
	}
	if (et != 0x0800 || len < off + 20 || f[off + 9] != 6)
		return NULL;
	uint32_t ihl = (f[off] & 15u) * 4, tot = (uint32_t)(f[off + 2] << 8 | f[off + 3]);
	if (off + tot > len || tot < ihl + 20)
		return NULL;
	uint32_t t = off + ihl, doff = (f[t + 12] >> 4) * 4u;
	if (ihl + doff > tot)
		return NULL;
	*plen = tot - ihl - doff;
	return f + t + doff;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"iface", required_argument, 0, 'i'}, {"queue", required_argument, 0, 'q'},
		{"native", no_argument, 0, 'n'},      {"sendlog", required_argument, 0, 'L'},
		{"expect", required_argument, 0, 'x'}, {"cpu", required_argument, 0, 'P'},
		{"label", required_argument, 0, 'N'}, {"timeout", required_argument, 0, 'T'},
		{"idle-ms", required_argument, 0, 'I'}, {"ready", required_argument, 0, 'r'},
		{"latency-out", required_argument, 0, 'O'},
		{0, 0, 0, 0},
	};
	const char *iface = NULL, *sendlog = NULL, *label = "xsk-floor", *ready = NULL, *lat_out = NULL;
	int queue = 0, native = 0, cpu = -1, c;
	uint64_t expect = 0, timeout_s = 60, idle_ms = 3000;
	while ((c = getopt_long(argc, argv, "i:q:nL:x:P:N:T:I:r:O:", lopts, NULL)) != -1) {
		switch (c) {
		case 'i': iface = optarg; break;
		case 'q': queue = atoi(optarg); break;
		case 'n': native = 1; break;
		case 'L': sendlog = optarg; break;
		case 'x': expect = strtoull(optarg, NULL, 10); break;
		case 'P': cpu = atoi(optarg); break;
		case 'N': label = optarg; break;
		case 'T': timeout_s = strtoull(optarg, NULL, 10); break;
		case 'I': idle_ms = strtoull(optarg, NULL, 10); break;
		case 'r': ready = optarg; break;
		case 'O': lat_out = optarg; break;
		default:
			fprintf(stderr, "usage: xsk_floor --iface DEV [--queue Q] [--native] --sendlog FILE --expect N "
					"[--cpu C] [--label NAME] [--timeout S] [--idle-ms MS] [--ready FILE] [--latency-out FILE]\n");
			return 1;
		}
	}
	if (!iface || !sendlog || !expect) {
		fprintf(stderr, "xsk_floor: --iface, --sendlog and --expect are needed\n");
		return 1;
	}
	if (cpu >= 0 && feed_pin_cpu(cpu))
		fprintf(stderr, "xsk_floor: cannot run on CPU %d (continuing)\n", cpu);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	size_t area_len = (size_t)FRAMES * FRAME_SIZE;
	void *area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	int64_t *stamp = calloc(MAX_SEQ, sizeof(*stamp));
	if (area == MAP_FAILED || !stamp) {
		fprintf(stderr, "xsk_floor: out of memory\n");
		return 1;
	}
	struct xsk_umem *umem;
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, rx;
	/* the fill ring has room for twice the frames: the kernel publishes what it took from it
	 * lazily, so a ring only as big as the UMEM can look full while frames wait to go back */
	struct xsk_umem_config ucfg = {.fill_size = 2 * FRAMES, .comp_size = 64, .frame_size = FRAME_SIZE};
	int r = xsk_umem__create(&umem, area, area_len, &fq, &cq, &ucfg);
	if (r) {
		printf("SKIP: xsk_floor: UMEM: %s\n", strerror(-r));
		return 77;
	}
	struct xsk_socket *xsk = NULL;
	struct xsk_socket_config scfg = {.rx_size = FRAMES,
					 .xdp_flags = native ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE,
					 .bind_flags = XDP_COPY};
	/* a socket on this queue closed just before (toed's) is released by the kernel asynchronously */
	for (int tries = 0; tries < 200; tries++) {
		r = xsk_socket__create(&xsk, iface, (uint32_t)queue, umem, &rx, NULL, &scfg);
		if (r != -EBUSY)
			break;
		usleep(10000);
	}
	if (r) {
		printf("SKIP: xsk_floor: AF_XDP socket on %s queue %d: %s\n", iface, queue, strerror(-r));
		return 77;
	}
	uint32_t idx;
	if (xsk_ring_prod__reserve(&fq, FRAMES, &idx) != FRAMES) {
		fprintf(stderr, "xsk_floor: cannot fill the fill ring\n");
		return 1;
	}
	for (uint32_t i = 0; i < FRAMES; i++)
		*xsk_ring_prod__fill_addr(&fq, idx + i) = (uint64_t)i * FRAME_SIZE;
	xsk_ring_prod__submit(&fq, FRAMES);
	if (ready) {
		FILE *f = fopen(ready, "w");
		if (f)
			fclose(f);
	}

	uint64_t seen = 0, frames = 0;
	int64_t start = now_mono(), last = 0;
	while (!stop && seen < expect) {
		uint32_t n = xsk_ring_cons__peek(&rx, 64, &idx);
		if (!n) {
			int64_t t = now_mono();
			if (t - start > (int64_t)timeout_s * 1000000000ll ||
			    (last && t - last > (int64_t)idle_ms * 1000000ll))
				break;
			continue;
		}
		int64_t ts = now_real();
		last = now_mono();
		uint32_t fidx;
		if (xsk_ring_prod__reserve(&fq, n, &fidx) != n) {
			fprintf(stderr, "xsk_floor: fill ring full\n");
			return 1;
		}
		for (uint32_t i = 0; i < n; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&rx, idx + i);
			const uint8_t *f = xsk_umem__get_data(area, d->addr);
			uint32_t plen;
			const uint8_t *p = tcp_payload(f, d->len, &plen);
			frames++;
			for (uint32_t k = 0; p && k + 4 < plen; k++) {
				if (p[k] != 1 || p[k + 1] != '3' || p[k + 2] != '4' || p[k + 3] != '=')
					continue;
				uint64_t seq = 0;
				uint32_t j = k + 4;
				while (j < plen && p[j] >= '0' && p[j] <= '9' && seq < MAX_SEQ)
					seq = seq * 10 + (uint64_t)(p[j++] - '0');
				if (seq && seq < MAX_SEQ && !stamp[seq]) {
					stamp[seq] = ts;
					seen++;
				}
				k = j;
			}
			*xsk_ring_prod__fill_addr(&fq, fidx + i) = d->addr - d->addr % FRAME_SIZE;
		}
		xsk_ring_prod__submit(&fq, n);
		xsk_ring_cons__release(&rx, n);
	}
	xsk_socket__delete(xsk);
	xsk_umem__delete(umem);

	struct feed_sendlog_ent *log;
	size_t nlog;
	char err[256];
	if (feed_sendlog_read(sendlog, &log, &nlog, err, sizeof err)) {
		fprintf(stderr, "xsk_floor: %s\n", err);
		return 1;
	}
	int64_t *lat = malloc((nlog ? nlog : 1) * sizeof(*lat));
	FILE *lf = lat_out ? fopen(lat_out, "w") : NULL;
	if (lat_out && !lf)
		fprintf(stderr, "xsk_floor: %s: %s\n", lat_out, strerror(errno));
	size_t nl = 0;
	for (size_t i = 0; i < nlog && lat; i++) {
		if (log[i].msg_seq >= MAX_SEQ || !stamp[log[i].msg_seq])
			continue;
		lat[nl] = stamp[log[i].msg_seq] - (int64_t)log[i].send_ns;
		if (lf)
			fprintf(lf, "{\"msg_seq\":%" PRIu64 ",\"lat_ns\":%" PRId64 "}\n", log[i].msg_seq, lat[nl]);
		nl++;
	}
	if (lf)
		fclose(lf);
	struct feed_lat_summary sum;
	feed_lat_summarize(lat, nl, &sum);
	char name[200];
	snprintf(name, sizeof name, "xsk_floor: %s one-way latency (send -> raw AF_XDP reader)", label);
	feed_lat_print(stderr, name, &sum);
	printf("RESULT ");
	feed_lat_print_json(stdout, label, &sum);
	printf("\nFLOOR messages=%" PRIu64 " frames=%" PRIu64 " matched=%zu of %zu sent\n", seen, frames, nl, nlog);
	free(lat);
	free(log);
	free(stamp);
	return 0;
}
