/* xsk_floor.c - the floor of any software backend: a raw AF_XDP reader that only finds each STEP message's MsgSeqNum.
 *
 *   xsk_floor --iface DEV [--queue Q] [--native] --sendlog FILE --expect N [--cpu C]
 *             [--label NAME] [--timeout S] [--idle-ms MS] [--ready FILE] [--latency-out FILE]
 *             [--bpf-object toe_steer.bpf.o --feed-addr A.B.C.D]
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
 * With --bpf-object, toed's own XDP program (toe_steer, the kernel-clock
 * variant) is loaded instead of libxdp's, steering the TCP frames of
 * --feed-addr (any port) to the socket with toed's arrival stamp in each
 * frame's metadata (struct toe_xdp_meta, bpf_ktime_get_ns in the program).
 * The reader stamps CLOCK_MONOTONIC right after each ring peek that finds
 * frames, and prints XDP stamp -> pickup per frame ("xsk_floor: NAME-pickup
 * ..." and RESULT): the kernel's delivery into the ring as toed's trace
 * measures it (toectl latency arrival_to_pickup), without toed.
 *
 * Exit 0, 1 on an error, 77 (SKIP) when AF_XDP cannot be set up here.
 */
#include <arpa/inet.h>
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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "src/bpf/toe_steer.h"

#include "feed/feed_lat.h"
#include "feed/feed_net.h"

#define FRAMES 4096
#define FRAME_SIZE 4096
#define MAX_SEQ (1u << 24)
#define MAX_PICKS (1u << 22) /* XDP stamp -> pickup samples kept (frames) */

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

/* toe_steer (kernel clock) from obj, the socket in its XSKMAP at queue, TCP of addr (any port) steered,
 * attached to ifindex in mode; the link's descriptor (closing it detaches), or -1 with a message. */
static int steer_attach(const char *obj_path, int ifindex, uint32_t xdp_flags, int queue, int xsk_fd,
			const char *addr, struct bpf_object **objp)
{
	struct toe_feed_key k = {0};
	uint32_t one = 1, q = (uint32_t)queue;
	struct in_addr a;
	if (inet_pton(AF_INET, addr, &a) != 1) {
		fprintf(stderr, "xsk_floor: --feed-addr %s: not an IPv4 address\n", addr);
		return -1;
	}
	/* toe_steer, else (a verifier that refuses bpf_xdp_adjust_meta) toe_steer_plain, as toed does */
	static const char *const names[2] = {TOE_STEER_PROG, TOE_STEER_PROG_PLAIN};
	struct bpf_object *obj = NULL;
	struct bpf_program *prog = NULL, *other;
	int v;
	for (v = 0; v < 2; v++) {
		if (obj)
			bpf_object__close(obj);
		obj = bpf_object__open_file(obj_path, NULL);
		if (!obj) {
			fprintf(stderr, "xsk_floor: %s: %s\n", obj_path, strerror(errno));
			*objp = NULL;
			return -1;
		}
		prog = bpf_object__find_program_by_name(obj, names[v]);
		if (!prog) {
			fprintf(stderr, "xsk_floor: %s: no program %s\n", obj_path, names[v]);
			*objp = obj;
			return -1;
		}
		bpf_object__for_each_program(other, obj)
			if (other != prog)
				bpf_program__set_autoload(other, false);
		if (bpf_object__load(obj) == 0)
			break;
		fprintf(stderr, "xsk_floor: %s: %s: load refused: %s\n", obj_path, names[v], strerror(errno));
	}
	*objp = obj;
	if (v == 2)
		return -1;
	k.addr = a.s_addr;
	k.proto = 6;
	if (bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "toe_xsks"), &q, &xsk_fd, BPF_ANY) ||
	    bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "toe_feeds"), &k, &one, BPF_ANY)) {
		fprintf(stderr, "xsk_floor: map update: %s\n", strerror(errno));
		return -1;
	}
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .flags = xdp_flags);
	int link = bpf_link_create(bpf_program__fd(prog), ifindex, BPF_XDP, &lopts);
	if (link < 0)
		fprintf(stderr, "xsk_floor: XDP attach: %s\n", strerror(errno));
	return link;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"iface", required_argument, 0, 'i'}, {"queue", required_argument, 0, 'q'},
		{"native", no_argument, 0, 'n'},      {"sendlog", required_argument, 0, 'L'},
		{"expect", required_argument, 0, 'x'}, {"cpu", required_argument, 0, 'P'},
		{"label", required_argument, 0, 'N'}, {"timeout", required_argument, 0, 'T'},
		{"idle-ms", required_argument, 0, 'I'}, {"ready", required_argument, 0, 'r'},
		{"latency-out", required_argument, 0, 'O'}, {"bpf-object", required_argument, 0, 'B'},
		{"feed-addr", required_argument, 0, 'A'},
		{0, 0, 0, 0},
	};
	const char *iface = NULL, *sendlog = NULL, *label = "xsk-floor", *ready = NULL, *lat_out = NULL;
	const char *bpf_obj = NULL, *feed_addr = NULL;
	int queue = 0, native = 0, cpu = -1, c;
	uint64_t expect = 0, timeout_s = 60, idle_ms = 3000;
	while ((c = getopt_long(argc, argv, "i:q:nL:x:P:N:T:I:r:O:B:A:", lopts, NULL)) != -1) {
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
		case 'B': bpf_obj = optarg; break;
		case 'A': feed_addr = optarg; break;
		default:
			fprintf(stderr, "usage: xsk_floor --iface DEV [--queue Q] [--native] --sendlog FILE --expect N "
					"[--cpu C] [--label NAME] [--timeout S] [--idle-ms MS] [--ready FILE] [--latency-out FILE] "
					"[--bpf-object FILE --feed-addr A.B.C.D]\n");
			return 1;
		}
	}
	if (!iface || !sendlog || !expect) {
		fprintf(stderr, "xsk_floor: --iface, --sendlog and --expect are needed\n");
		return 1;
	}
	if (!bpf_obj != !feed_addr) {
		fprintf(stderr, "xsk_floor: --bpf-object and --feed-addr go together\n");
		return 1;
	}
	if (cpu >= 0 && feed_pin_cpu(cpu))
		fprintf(stderr, "xsk_floor: cannot run on CPU %d (continuing)\n", cpu);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	size_t area_len = (size_t)FRAMES * FRAME_SIZE;
	void *area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	int64_t *stamp = calloc(MAX_SEQ, sizeof(*stamp));
	int64_t *pick = bpf_obj ? malloc(MAX_PICKS * sizeof(*pick)) : NULL;
	uint64_t npick = 0, nostamp = 0;
	if (area == MAP_FAILED || !stamp || (bpf_obj && !pick)) {
		fprintf(stderr, "xsk_floor: out of memory\n");
		return 1;
	}
	/* written once from user space, as toed does with its UMEM (daemon/base/mem_touch.h): the floor
	 * must not pay a first-touch cost per page that the daemon does not */
	memset(area, 0, area_len);
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
					 .bind_flags = XDP_COPY,
					 .libxdp_flags = bpf_obj ? XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD : 0};
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
	struct bpf_object *obj = NULL;
	int link = -1;
	if (bpf_obj) {
		link = steer_attach(bpf_obj, (int)if_nametoindex(iface), scfg.xdp_flags, queue, xsk_socket__fd(xsk),
				    feed_addr, &obj);
		if (link < 0) {
			printf("SKIP: xsk_floor: toe_steer on %s cannot be attached (see stderr)\n", iface);
			return 77;
		}
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
		int64_t picked = now_mono(); /* first, as toed's source reads it: the pickup */
		int64_t ts = now_real();
		last = picked;
		uint32_t fidx;
		if (xsk_ring_prod__reserve(&fq, n, &fidx) != n) {
			fprintf(stderr, "xsk_floor: fill ring full\n");
			return 1;
		}
		for (uint32_t i = 0; i < n; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&rx, idx + i);
			const uint8_t *f = xsk_umem__get_data(area, d->addr);
			uint32_t plen;
			if (pick) {
				/* toe_steer's stamp right before the data (copy mode copies the metadata) */
				struct toe_xdp_meta *m = (struct toe_xdp_meta *)((uint8_t *)f - sizeof *m);
				if (m->magic == TOE_XDP_META_MAGIC && m->clock == TOE_META_CLK_MONO) {
					if (npick < MAX_PICKS)
						pick[npick++] = picked - (int64_t)m->rx_ns;
				} else {
					nostamp++;
				}
				m->magic = 0;
			}
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
	if (link >= 0)
		close(link); /* detaches toe_steer */
	xsk_socket__delete(xsk);
	xsk_umem__delete(umem);
	if (obj)
		bpf_object__close(obj);
	if (pick) {
		/* the kernel's delivery, per frame: XDP stamp -> found in the ring by this busy poller */
		struct feed_lat_summary ps;
		char pname[200], plabel[160];
		feed_lat_summarize(pick, npick, &ps);
		snprintf(pname, sizeof pname, "xsk_floor: %s-pickup XDP stamp -> pickup (frames; %" PRIu64 " unstamped)",
			 label, nostamp);
		snprintf(plabel, sizeof plabel, "%s-pickup", label);
		feed_lat_print(stderr, pname, &ps);
		printf("RESULT ");
		feed_lat_print_json(stdout, plabel, &ps);
		printf("\n");
		free(pick);
	}

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
