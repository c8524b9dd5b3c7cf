/* src_capture_check.c - opens a live source (daemon/src/src.h) and checks the frames of src_capture_frames.h.
 *
 * Usage: src_capture_check --mode afpacket|xdp|xdpskb --if IF [--bpf OBJ] --ready FILE --done FILE
 *
 * Binds UDP sockets on the test ports (to see what B's own stack still
 * gets), opens the source, creates FILE --ready, then reads frames until the
 * file --done exists and 300 ms more (hard limit 20 s). Every delivered frame
 * is matched byte for byte against the frames the sender built.
 *   afpacket: every frame exactly once (VLAN tags written back as sent);
 *             the stack gets every non-steered UDP datagram as well.
 *   xdp:      exactly the feed frames, nothing else; the stack gets the
 *             non-feed datagrams and none of the feed ones; the XDP counters
 *             agree. Jumbo frames arrive whole, or (a kernel without AF_XDP
 *             multi-buffer) are counted as dropped by the socket. The source
 *             opens with other feeds (one of them B:6000/udp) and gets the
 *             test's set through src_set_feeds, so rules are added and removed.
 *   xdpskb:   as xdp, but jumbo frames are not checked (generic XDP on veth
 *             may lose them).
 * Every frame carries an arrival stamp taken before the poll that delivered
 * it, by the NIC or the kernel (the XDP program, the socket), never the
 * poll's own time. AF_XDP: after the source closes, the same queue is opened
 * again at once (the kernel releases the old socket asynchronously: the bind
 * waits for it) and must open.
 * Exit 0 pass, 1 fail, 77 skip (XDP not supported here).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "src/src.h"
#include "src_capture_frames.h"

struct want {
	uint8_t *data;
	size_t len;
	int hits;
};

static struct want want[CAPK_N][CAP_MAX_PER_KIND];
static int failures;

#define FAIL(...)                                     \
	do {                                          \
		fprintf(stderr, "FAIL: " __VA_ARGS__); \
		fputc('\n', stderr);                   \
		failures++;                           \
	} while (0)

static uint64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static uint64_t real_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int match(const uint8_t *d, uint32_t len)
{
	int k, i;
	for (k = 0; k < CAPK_N; k++)
		for (i = 0; i < cap_kinds[k].count; i++)
			if (want[k][i].len == len && !memcmp(want[k][i].data, d, len)) {
				want[k][i].hits++;
				return 1;
			}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *ifname = NULL, *bpf = NULL, *ready = NULL, *done = NULL;
	struct src_feed feeds[3] = {
		{ CAP_IP_B, 5801, 17 },
		{ CAP_IP_A, 3201, 6 },
		{ 0, 7000, 17 },
	};
	/* opened with these, then replaced by feeds[]: B:6000 must stop being steered */
	struct src_feed first[2] = {
		{ CAP_IP_B, 6000, 17 },
		{ CAP_IP_B, 5801, 17 },
	};
	struct src_feed bad = { CAP_IP_B, 6000, 47 };
	enum { NPORTS = sizeof cap_udp_ports / sizeof cap_udp_ports[0] };
	int usock[NPORTS], ucount[NPORTS];
	struct src_cfg cfg;
	struct src *s;
	struct src_frame f[64];
	struct src_stats st;
	char err[512];
	uint64_t t_open, deadline, done_at = 0, unknown = 0, nframes = 0, bad_ts = 0, late_ts = 0, bad_clock = 0;
	int k, i, p, xdp, skb, multibuf, plain;
	FILE *fp;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--mode"))
			mode = argv[i + 1];
		else if (!strcmp(argv[i], "--if"))
			ifname = argv[i + 1];
		else if (!strcmp(argv[i], "--bpf"))
			bpf = argv[i + 1];
		else if (!strcmp(argv[i], "--ready"))
			ready = argv[i + 1];
		else if (!strcmp(argv[i], "--done"))
			done = argv[i + 1];
	}
	if (!mode || !ifname || !ready || !done) {
		fprintf(stderr, "usage: %s --mode afpacket|xdp|xdpskb --if IF [--bpf OBJ] --ready F --done F\n",
			argv[0]);
		return 2;
	}
	xdp = !strcmp(mode, "xdp") || !strcmp(mode, "xdpskb");
	skb = !strcmp(mode, "xdpskb");

	for (k = 0; k < CAPK_N; k++)
		for (i = 0; i < cap_kinds[k].count; i++) {
			want[k][i].data = malloc(CAP_FRAME_MAX);
			want[k][i].len = cap_frame(k, i, want[k][i].data, CAP_FRAME_MAX);
		}

	for (p = 0; p < NPORTS; p++) {
		struct sockaddr_in a;
		int big = 1 << 20;
		memset(&a, 0, sizeof a);
		a.sin_family = AF_INET;
		a.sin_port = htons(cap_udp_ports[p]);
		usock[p] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
		setsockopt(usock[p], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
		if (usock[p] < 0 || bind(usock[p], (struct sockaddr *)&a, sizeof a) < 0) {
			perror("udp socket");
			return 1;
		}
		ucount[p] = 0;
	}

	memset(&cfg, 0, sizeof cfg);
	cfg.ifname = ifname;
	if (xdp) {
		cfg.kind = SRC_AF_XDP;
		cfg.xdp_mode = skb ? SRC_XDP_SKB : SRC_XDP_NATIVE;
		cfg.bpf_obj_path = bpf;
		cfg.feeds = first;
		cfg.nfeeds = 2;
		cfg.xdp_frames = 1024;   /* 2 MiB of UMEM */
		cfg.xdp_rx_ring = 512;
		cfg.xdp_fill_ring = 512;
	} else {
		cfg.kind = SRC_AF_PACKET;
		cfg.afp_block_size = 1 << 17; /* room for the jumbo frames, small enough for a test */
		cfg.afp_block_count = 8;
	}
	t_open = real_ns();
	if (src_open(&s, &cfg, err, sizeof err) < 0) {
		if (xdp && strstr(err, "Operation not supported")) {
			printf("SKIP: %s: %s\n", mode, err);
			return 77;
		}
		FAIL("src_open: %s", err);
		return 1;
	}
	if (xdp) {
		if (src_set_feeds(s, &bad, 1, err, sizeof err) != -1 || !strstr(err, "protocol"))
			FAIL("src_set_feeds with protocol 47 was not refused with a message (\"%s\")", err);
		if (src_set_feeds(s, feeds, 3, err, sizeof err) != 0)
			FAIL("src_set_feeds: %s", err);
	} else if (src_set_feeds(s, feeds, 3, err, sizeof err) != 0) {
		FAIL("src_set_feeds on AF_PACKET should be a no-op: %s", err);
	}
	printf("%s: %s\n", mode, src_describe(s));
	multibuf = strstr(src_describe(s), "multi-buffer") != NULL;
	/* toe_steer_plain (a verifier that refuses bpf_xdp_adjust_meta): no
	 * arrival stamp, every frame stamped at the poll */
	plain = xdp && strstr(src_describe(s), SRC_DESC_XDP_PLAIN) != NULL;
	fp = fopen(ready, "w");
	if (fp)
		fclose(fp);

	deadline = mono_ms() + 20000;
	while (mono_ms() < deadline) {
		int n;
		if (!done_at && access(done, F_OK) == 0)
			done_at = mono_ms() + 300;
		if (done_at && mono_ms() > done_at)
			break;
		n = src_rx_burst(s, f, 64);
		if (n < 0) {
			FAIL("src_rx_burst: %s", strerror(errno));
			break;
		}
		if (n == 0) {
			if (src_wait(s, 50) < 0) {
				FAIL("src_wait: %s", strerror(errno));
				break;
			}
			continue;
		}
		uint64_t polled = real_ns();
		for (i = 0; i < n; i++) {
			nframes++;
			if (f[i].ts_ns < t_open - 1000000000ull || f[i].ts_ns > real_ns() + 1000000000ull)
				bad_ts++;
			/* stamped at arrival: before the poll (a 50 us allowance for the
			 * CLOCK_MONOTONIC to CLOCK_REALTIME step of the XDP stamp) */
			if (f[i].ts_ns > polled + 50000)
				late_ts++;
			if (plain ? f[i].clock != TOE_CLK_POLL : f[i].clock != TOE_CLK_KERNEL && f[i].clock != TOE_CLK_NIC)
				bad_clock++;
			if (f[i].len != f[i].wire_len)
				FAIL("frame of %u bytes delivered as %u", f[i].wire_len, f[i].len);
			if (!match(f[i].data, f[i].len))
				unknown++;
		}
		src_rx_release(s);
	}
	if (!done_at)
		FAIL("the sender did not finish within 20 s");

	for (p = 0; p < NPORTS; p++) {
		static uint8_t b[9000];
		while (recv(usock[p], b, sizeof b, 0) > 0)
			ucount[p]++;
	}
	src_stats(s, &st);

	/* what each kind should have done */
	for (k = 0; k < CAPK_N; k++) {
		const struct cap_kind_info *ki = &cap_kinds[k];
		int expect = xdp ? ki->feed : 1, got = 0, dup = 0;
		for (i = 0; i < ki->count; i++) {
			got += want[k][i].hits > 0;
			dup += want[k][i].hits > 1;
		}
		printf("  %-16s sent %2d  captured %2d%s\n", ki->name, ki->count, got, dup ? "  DUPLICATES" : "");
		if (dup)
			FAIL("%s: %d frames delivered more than once", ki->name, dup);
		if (ki->jumbo && xdp && skb)
			continue; /* generic XDP on veth: not checked */
		if (ki->jumbo && xdp && !multibuf) {
			if (got == 0 && st.xsk_rx_dropped >= (uint64_t)ki->count)
				continue; /* dropped, and counted */
			FAIL("%s: no multi-buffer: expected %d frames counted as xsk_rx_dropped, got %d delivered, %llu dropped",
			     ki->name, ki->count, got, (unsigned long long)st.xsk_rx_dropped);
			continue;
		}
		if (got != (expect ? ki->count : 0))
			FAIL("%s: %d of %d frames captured, expected %d", ki->name, got, ki->count,
			     expect ? ki->count : 0);
	}
	for (p = 0; p < NPORTS; p++) {
		int expect = 0;
		for (k = 0; k < CAPK_N; k++)
			if (cap_kinds[k].host_port == cap_udp_ports[p] && !(xdp && cap_kinds[k].feed))
				expect += cap_kinds[k].count;
		printf("  host stack udp port %u: %d datagrams (expected %d)\n", cap_udp_ports[p], ucount[p], expect);
		if (ucount[p] != expect)
			FAIL("udp port %u: the host stack got %d datagrams, expected %d", cap_udp_ports[p], ucount[p],
			     expect);
	}
	printf("  frames %llu, not from the sender %llu\n", (unsigned long long)nframes, (unsigned long long)unknown);
	if (xdp && unknown)
		FAIL("%llu frames reached the AF_XDP socket that are not feed frames", (unsigned long long)unknown);
	if (bad_ts)
		FAIL("%llu frames with a timestamp outside the run", (unsigned long long)bad_ts);
	if (late_ts)
		FAIL("%llu frames stamped after the poll that delivered them (not an arrival stamp)",
		     (unsigned long long)late_ts);
	if (bad_clock)
		FAIL("%llu frames not stamped by %s", (unsigned long long)bad_clock,
		     plain ? "the poll (toe_steer_plain)" : "the NIC or the kernel");
#define PRINT_STAT(name, desc) printf("  stat %-22s %llu\n", #name, (unsigned long long)st.name);
	SRC_STATS_FIELDS(PRINT_STAT)
#undef PRINT_STAT
	if (st.frames != nframes)
		FAIL("stats.frames %llu, frames seen %llu", (unsigned long long)st.frames, (unsigned long long)nframes);
	if (plain ? st.ts_poll != nframes || st.ts_nic || st.ts_kernel : st.ts_nic + st.ts_kernel != nframes || st.ts_poll)
		FAIL("stamps: %llu NIC + %llu kernel of %llu frames, %llu at the poll", (unsigned long long)st.ts_nic,
		     (unsigned long long)st.ts_kernel, (unsigned long long)nframes, (unsigned long long)st.ts_poll);
	if (st.truncated || st.afp_drops || st.xsk_rx_ring_full || st.xsk_rx_invalid_descs)
		FAIL("unexpected drops or truncation in the stats");
	if (xdp) {
		uint64_t feeds_sent = 0;
		for (k = 0; k < CAPK_N; k++)
			if (cap_kinds[k].feed && !(skb && cap_kinds[k].jumbo))
				feeds_sent += (uint64_t)cap_kinds[k].count;
		/* every feed frame matched in XDP; (generic mode jumbo frames may or may not get that far) */
		if (st.xdp_steered < feeds_sent || st.xdp_steered > feeds_sent + (skb ? 2u : 0u))
			FAIL("xdp_steered %llu, expected %llu", (unsigned long long)st.xdp_steered,
			     (unsigned long long)feeds_sent);
		if (st.xdp_no_socket)
			FAIL("xdp_no_socket %llu", (unsigned long long)st.xdp_no_socket);
		if (st.xdp_passed < 23) /* the non-feed frames of the sender */
			FAIL("xdp_passed %llu, expected at least 23", (unsigned long long)st.xdp_passed);
		if (multibuf && !skb && st.xsk_multibuf != 2)
			FAIL("xsk_multibuf %llu, expected 2 (the jumbo frames)", (unsigned long long)st.xsk_multibuf);
	}
	if (xdp && !skb) {
		/* the queue really taken: a bounded wait, then a clear error */
		struct src *s2 = NULL;
		struct src_cfg c2 = cfg;
		uint64_t t = mono_ms();
		c2.xdp_bind_wait_ms = 150;
		if (src_open(&s2, &c2, err, sizeof err) == 0) {
			FAIL("a second socket on the queue in use opened");
			src_close(s2);
		} else if (!strstr(err, "busy") || !strstr(err, "another program holds the queue")) {
			FAIL("a second socket on the queue in use: unclear error \"%s\"", err);
		} else if (mono_ms() - t < 150 || mono_ms() - t > 5000) {
			FAIL("a second socket on the queue in use: gave up after %llu ms, not after 150",
			     (unsigned long long)(mono_ms() - t));
		} else {
			printf("  a second socket on the queue: %s\n", err);
		}
	}
	src_close(s);
	if (xdp) {
		/* a restart: the same queue again, right away */
		cfg.feeds = feeds;
		cfg.nfeeds = 3;
		if (src_open(&s, &cfg, err, sizeof err) < 0) {
			FAIL("reopening queue 0 right after closing it: %s", err);
		} else {
			src_stats(s, &st);
			printf("  reopened at once: the bind waited %llu ms for the kernel to release the old socket\n",
			       (unsigned long long)st.xsk_bind_wait_ms);
			src_close(s);
		}
	}
	for (p = 0; p < NPORTS; p++)
		close(usock[p]);
	for (k = 0; k < CAPK_N; k++)
		for (i = 0; i < cap_kinds[k].count; i++)
			free(want[k][i].data);
	printf("%s: %s\n", mode, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
