/* bench_rx.c - the whole receive path on one core: frames -> net_rx -> mirror TOE -> STEP -> FAST -> ticks.
 *
 * A deterministic SSE feed (sse_gen, 8 records per STEP message at most, of
 * one type: 1.95 on average, ~9 messages a segment) is cut into 1408-byte
 * TCP segments and built into Ethernet frames with correct IPv4 and TCP
 * checksums (pktbuild), one vendor ACK per 4 segments, all held in memory.
 * rx_pipe runs them with the default configuration (64 connections, 32 KB
 * window, TCP checksums verified, records mapped to tick records) as the
 * software backend's data plane does (dp_thread.c drain):
 * rx_frame, then rx_ticks into a batch of 64 records (rx_next for what it
 * does not batch) until both say nothing more, each record stamped with its
 * clock, the batch handed on at the end of the frame; rx_poll every 1024
 * frames. Variants, each run REPS times interleaved (best and median
 * printed):
 *   in_order      the segments in order;
 *   reorder_1pct  1% of the segments swapped with the next one;
 *   no_tcp_csum   in order, TCP checksum check off (what the checksum costs);
 *   net_mtoe_only net_rx + mtoe_segment alone on the in-order capture (no
 *                 STEP/FAST): how the time splits between network and decode;
 *   net_mtoe_no_csum  the same without the TCP checksum check;
 *   fastx_in_order, fastx_reorder_1pct  the first two with the CPU fast
 *                 decoder (rx_pipe.fastx, kernels/fast/host/) instead of the
 *                 reference fast_stream_next + fast_tick_map;
 *   gtoe_in_order, gtoe_fastx_in_order  toed's own connection (role = tcp,
 *                 daemon/dp/dp_tcp.c): the same segments, acknowledging
 *                 toed's ISS, through net_rx + the general TOE
 *                 (gtoe_input_pkt, its ACKs built into frames by gtoe_frame
 *                 as toed sends them), the in-order bytes handed to the
 *                 pipeline as DATA events (rx_event, as dp_tcp_pump does;
 *                 from the frame, gtoe_direct_on, settled after each),
 *                 then STEP + FAST + tick mapping; no vendor ACK frames in
 *                 its capture (toed makes its own); its ACK frames built
 *                 after every frame (more often than toed);
 *   gtoe_fastx_burst64  the same, the ACK frames built once every 64
 *                 frames, as toed does with full bursts (dp_thread: frames
 *                 through dp_tcp_frame and the pipeline, then dp_tcp_flush
 *                 once a burst of up to DP_BURST = 64);
 *   fastx_seq_check  fastx_in_order with sequence tracking on ([fast]
 *                 sequence_check = yes: each record's channel and BizIndex
 *                 checked, rx_ticks one record a decoder call);
 *   fastx_rx_next  fastx_in_order drained with rx_next alone, one entry at a
 *                 time, each copied into the batch (toed before rx_ticks);
 *   fastx_publish, gtoe_fastx_publish  with the batches published as toed
 *                 does (pub_publish_src: the history of ring_size records and
 *                 one client ring of the default size, its reader releasing
 *                 everything after each publish on this core);
 *   fastx_decode_only  the decoder alone: the same stream bytes in the same
 *                 1408-byte pieces straight into fast_stream + the CPU
 *                 decoder in runs as rx_ticks decodes (STEP + FAST + tick
 *                 records; no frames, TOE or pipeline). With fastx_in_order it prints the decoder's
 *                 share of the path and what is spent outside it.
 * Under callgrind the loops are the functions run, run_net, run_gtoe and
 * run_decode (--toggle-collect=run ...; never inlined): their Ir divided by
 * the segments is the cost per segment by stage.
 * Times are the thread's CPU time (bench_cpu_s): the machines are shared and
 * wall time would count other processes' slices. Each run is followed by a
 * clock measurement (bench_clock_ghz); cyc/seg is each run's time x that
 * clock, the figure that compares across runs on these guests, whose vCPUs
 * change speed from minute to minute (Gb/s at one clock is cycles scaled).
 * Throughput is in Gb/s of TCP payload (the stream bytes) and Mpps. Every run
 * must decode every record of the feed, else the benchmark fails.
 * BENCH_RECORDS / BENCH_REPS override the size; BENCH_RX_ONLY=name runs only
 * the variants of that exact name (comma-separated list), e.g. to count
 * instructions per decoder under callgrind. The target: 10 Gb/s
 * on one core.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gtoe_harness.h"
#include "pktbuild.h"
#include "rx/rx_pipe.h"
#include "fast/host/fast_compile.h"
#include "fast/host/fastx.h"
#include "toe/gtoe.h"
#include "toe/gtoe_frame.h"
#include "dp/dp_pub.h"
#include "ring_view.h"

#define MSS 1408
#define REPS_DEFAULT 5

struct frame {
	uint32_t off, len;
};

struct capture {
	uint8_t *buf;
	struct frame *f;
	uint32_t n;
	uint64_t payload;
};

static struct fast_prog prog;
static struct fast_names names;
static struct rx_pipe pipe_;
static volatile uint64_t sink;

static uint32_t RECORDS = 500000u;
static int REPS = REPS_DEFAULT;

/* Whether name is one of the comma-separated names in list. */
static int bench_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, name, n) == 0)
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

static void add(struct capture *c, size_t *used, const uint8_t *fr, size_t len)
{
	memcpy(c->buf + *used, fr, len);
	c->f[c->n].off = (uint32_t)*used;
	c->f[c->n].len = (uint32_t)len;
	c->n++;
	*used += (len + 63) & ~(size_t)63; /* frames 64-byte aligned, as in a receive ring */
}

/* What toed's data plane does with the pipeline's output (dp_thread.c
 * drain, frame_in): the records into a batch of DP_BATCH (rx_ticks decodes
 * them straight into it; what it does not batch comes from rx_next and is
 * copied), each stamped with its clock and source; the batch published when
 * full and at the end of every frame. per_entry: rx_next alone, as toed did
 * before rx_ticks. publishing: pub_publish_src into a publisher as toed's
 * default [shm] makes it (history of ring_size records) with one client
 * ring, whose consumer hands every record back after each publish (on this
 * core: the records stay in its cache, where a real reader's would cross to
 * another). Returns 1 on a gap entry. */
#define BATCH 64 /* dp_thread.c DP_BATCH */
static union toe_record batch[BATCH];
static uint8_t batch_src[BATCH];
static unsigned nbatch;
static int per_entry, publishing;
static struct pub *pub;
static struct ring_view view; /* the client's side of the publish variants' ring */
static uint64_t acc_pub;

static void publish_batch(void)
{
	if (!nbatch)
		return;
	if (publishing) {
		pub_publish_src(pub, batch, batch_src, nbatch);
		toe_ring_cons_release(&view.r, toe_ring_cons_avail(&view.r));
	} else {
		acc_pub += batch[nbatch - 1].hdr.present;
	}
	nbatch = 0;
}

static int drain_out(uint64_t *recs)
{
	struct rx_out o;
	uint32_t sid, n, k;
	for (;;) {
		if (!per_entry && (n = rx_ticks(&pipe_, &batch[nbatch], BATCH - nbatch, &sid)) > 0) {
			for (k = nbatch; k < nbatch + n; k++) {
				batch[k].hdr.present = (batch[k].hdr.present & ~TOE_CLK_MASK) | (1u << TOE_CLK_SHIFT);
				batch_src[k] = (uint8_t)sid;
			}
			nbatch += n;
			*recs += n;
			if (nbatch == BATCH)
				publish_batch();
			continue;
		}
		if (!rx_next(&pipe_, &o))
			break;
		if (o.kind == RX_OUT_GAP)
			return 1;
		if (o.kind != RX_OUT_RECORD || o.tick_type <= 0)
			continue;
		(*recs)++;
		o.tick.hdr.present = (o.tick.hdr.present & ~TOE_CLK_MASK) | (1u << TOE_CLK_SHIFT);
		batch_src[nbatch] = (uint8_t)o.stream;
		batch[nbatch++] = o.tick;
		if (nbatch == BATCH)
			publish_batch();
	}
	publish_batch(); /* a frame's records are visible before the next frame */
	return 0;
}

/* Run the capture once through rx_pipe (set up by the caller, untimed);
 * returns the records decoded (UINT64_MAX on a gap or error). */
__attribute__((noinline)) static uint64_t run(const struct capture *c)
{
	uint64_t recs = 0, ts = 1000000000ull;
	for (uint32_t i = 0; i < c->n; i++) {
		rx_frame(&pipe_, c->buf + c->f[i].off, c->f[i].len, ts);
		if (drain_out(&recs))
			return UINT64_MAX;
		ts += 1200; /* ~10 Gb/s of 1.5 KB frames */
		if ((i & 1023) == 1023) {
			rx_poll(&pipe_, ts);
			if (drain_out(&recs))
				return UINT64_MAX;
		}
	}
	sink = acc_pub;
	return recs;
}

/* The decoder alone: the same stream bytes in the same 1408-byte pieces fed
 * straight to one fast_stream and the CPU decoder (STEP + FAST + tick
 * records, no frames, no TOE, no pipeline): the decoder's share of the
 * whole path. Returns the records (UINT64_MAX on an error). */
static struct fastx_dec xd;
static union toe_record dec_out[65]; /* a run of up to 64, and the record that may end it */
__attribute__((noinline)) static uint64_t run_decode(const uint8_t *feed, size_t len, struct fast_stream *fs)
{
	uint64_t recs = 0, acc = 0;
	uint32_t warns, n;
	int ev;
	for (size_t o = 0; o < len; o += MSS) {
		fast_stream_feed(fs, feed + o, (uint32_t)(len - o < MSS ? len - o : MSS));
		/* in runs, as the pipeline's rx_ticks decodes (fastx_stream_run) */
		do {
			n = fastx_stream_run(&xd, fs, dec_out, 64, &warns, &ev);
			recs += n;
			for (uint32_t i = 0; i < n; i++)
				acc += dec_out[i].hdr.present;
			if (ev != -1 && ev != FS_NONE)
				return UINT64_MAX; /* the feed has nothing but mapped records */
		} while (ev == -1);
	}
	sink = acc;
	return recs;
}

/* The network part alone: net_rx + mtoe_segment, the DATA bytes summed
 * (no deframing or decoding); returns the stream bytes delivered. */
static struct net_stats nst;
static struct mtoe mt;
static struct mtoe_event mev[MTOE_SEG_EVENTS];
__attribute__((noinline)) static uint64_t run_net(const struct capture *c, const struct rx_cfg *cfg)
{
	struct net_pkt pkt;
	uint64_t bytes = 0, acc = 0, ts = 1000000000ull;
	for (uint32_t i = 0; i < c->n; i++) {
		if (net_rx(&cfg->net, &nst, c->buf + c->f[i].off, c->f[i].len, ts, &pkt) == NET_RX_TCP) {
			uint32_t n = mtoe_segment(&mt, &pkt, mev, MTOE_SEG_EVENTS);
			for (uint32_t k = 0; k < n; k++)
				if (mev[k].type == MTOE_EV_DATA) {
					bytes += mev[k].len;
					acc += mev[k].data[0];
				}
		}
		ts += 1200;
	}
	sink = acc;
	return bytes;
}

/* toed's own connection: a general TOE with one connection established to the capture's exchange */
static struct gtoe G;
static struct gtoe_cfg gcfg;
static uint8_t *gbuf;
static int32_t gtoe_setup(uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport, uint32_t irs)
{
	if (gtoe_init(&G, &gcfg, gbuf, GTOE_BUF_BYTES(&gcfg)) != GTOE_OK)
		return -1;
	gtoe_direct_on(&G, 1); /* as dp_tcp: in-order bytes read from the frame */
	return gh_establish(&G, laddr, lport, raddr, rport, irs, MSS, 0, 0);
}

/* the capture through net_rx + gtoe + rx_event (dp_tcp's path); returns the records (UINT64_MAX on a gap) */
__attribute__((noinline)) static uint64_t run_gtoe(const struct capture *c, const struct rx_cfg *cfg, int32_t conn,
						   uint32_t burst)
{
	uint32_t left = burst; /* frames until the ACKs are built (dp_thread: dp_tcp_flush once a burst) */
	struct rx_out o;
	struct net_pkt pkt;
	struct gtoe_seg seg;
	struct net_tx_l2 l2;
	struct mtoe_event ev;
	uint8_t af[256];
	const uint8_t *d;
	uint32_t n;
	uint16_t id = 0;
	uint64_t recs = 0, acc = 0, ts = 1000000000ull;
	memset(&l2, 0, sizeof l2);
	memset(&ev, 0, sizeof ev);
	ev.type = MTOE_EV_OPEN;
	ev.reason = MTOE_OPEN_SYN;
	rx_event(&pipe_, &ev, ts);
	while (rx_next(&pipe_, &o))
		;
	ev.type = MTOE_EV_DATA;
	ev.reason = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		if (net_rx(&cfg->net, &nst, c->buf + c->f[i].off, c->f[i].len, ts, &pkt) == NET_RX_TCP)
			gtoe_input_pkt(&G, &pkt, ts);
		if (--left == 0 || i + 1 == c->n) {
			while (gtoe_tx_next(&G, ts, &seg))
				acc += gtoe_frame(&seg, &l2, id++, af, sizeof af);
			left = burst;
		}
		while ((n = gtoe_peek(&G, conn, &d)) > 0) {
			ev.len = n;
			ev.data = d;
			rx_event(&pipe_, &ev, ts);
			if (drain_out(&recs))
				return UINT64_MAX;
			gtoe_consume(&G, conn, n);
			ev.offset += n;
		}
		gtoe_settle(&G); /* the frame goes back (dp_tcp_pump's end) */
		ts += 1200;
		if ((i & 1023) == 1023) {
			gtoe_poll(&G, ts);
			rx_poll(&pipe_, ts);
			if (drain_out(&recs))
				return UINT64_MAX;
		}
	}
	sink = acc + acc_pub;
	return recs;
}

int main(void)
{
	char err[256];
	if (bench_env(&RECORDS, &REPS))
		return 1;
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "bench_rx: %s\n", err);
		return 1;
	}

	/* the feed */
	size_t cap = (size_t)RECORDS * 96 + 65536, len = 0;
	uint8_t *feed = malloc(cap);
	if (!feed || bench_step_feed(&prog, RECORDS, feed, cap, &len) != 0)
		return 1;

	/* the captures: SYN, segments (+ an ACK every 4), in order and with 1% swapped */
	uint32_t nseg = (uint32_t)((len + MSS - 1) / MSS), nfr = nseg + nseg / 4 + 2;
	struct capture cin = {0}, cre = {0};
	size_t used_in = 0, used_re = 0;
	cin.buf = malloc((size_t)nfr * 1536);
	cre.buf = malloc((size_t)nfr * 1536);
	cin.f = calloc(nfr, sizeof *cin.f);
	cre.f = calloc(nfr, sizeof *cre.f);
	if (!cin.buf || !cre.buf || !cin.f || !cre.f)
		return 1;
	struct pb_spec s, a;
	uint8_t fr[2048];
	uint32_t isn = 1000;
	pb_init(&s);
	s.sport = 9000;
	s.dport = 40000;
	s.win = 65535;
	pb_reverse(&s, &a);
	a.tcp_flags = TCP_ACK;
	a.seq = 1;
	s.seq = isn;
	s.tcp_flags = TCP_SYN;
	size_t fl = pb_tcp(fr, sizeof fr, &s, NULL, 0);
	add(&cin, &used_in, fr, fl);
	add(&cre, &used_re, fr, fl);
	uint32_t rng = 12345, swapped = 0;
	uint8_t held[2048];
	size_t held_len = 0;
	for (uint32_t k = 0; k < nseg; k++) {
		size_t o = (size_t)k * MSS, n = len - o < MSS ? len - o : MSS;
		s.seq = isn + 1 + (uint32_t)o;
		s.ack = 1;
		s.tcp_flags = TCP_ACK | TCP_PSH;
		fl = pb_tcp(fr, sizeof fr, &s, feed + o, n);
		add(&cin, &used_in, fr, fl);
		cin.payload += n;
		/* reordered copy: hold 1% of the segments back by one */
		rng ^= rng << 13;
		rng ^= rng >> 17;
		rng ^= rng << 5;
		if (held_len) {
			add(&cre, &used_re, fr, fl);
			add(&cre, &used_re, held, held_len);
			held_len = 0;
		} else if (rng % 100 == 0 && k + 1 < nseg) {
			memcpy(held, fr, fl);
			held_len = fl;
			swapped++;
		} else {
			add(&cre, &used_re, fr, fl);
		}
		cre.payload += n;
		if (k % 4 == 3) {
			a.ack = s.seq + (uint32_t)n;
			fl = pb_tcp(fr, sizeof fr, &a, NULL, 0);
			add(&cin, &used_in, fr, fl);
			add(&cre, &used_re, fr, fl);
		}
	}
	/* toed's own connection: the same segments, acknowledging its ISS (deterministic: isn_key default, now 0) */
	struct capture cg = {0};
	size_t used_g = 0;
	gtoe_cfg_default(&gcfg);
	gcfg.mss = MSS;
	gbuf = malloc(GTOE_BUF_BYTES(&gcfg));
	cg.buf = malloc((size_t)nseg * 1536);
	cg.f = calloc(nseg, sizeof *cg.f);
	int32_t gconn = gbuf ? gtoe_setup(s.daddr, 40000, s.saddr, 9000, isn) : -1;
	if (!cg.buf || !cg.f || gconn < 0)
		return 1;
	uint32_t gack = G.conn[gconn].snd_nxt;
	for (uint32_t k = 0; k < nseg; k++) {
		size_t o = (size_t)k * MSS, n = len - o < MSS ? len - o : MSS;
		s.seq = isn + 1 + (uint32_t)o;
		s.ack = gack;
		s.tcp_flags = TCP_ACK | TCP_PSH;
		fl = pb_tcp(fr, sizeof fr, &s, feed + o, n);
		add(&cg, &used_g, fr, fl);
		cg.payload += n;
	}
	printf("input: %u records, %zu bytes of TCP payload in %u segments of %d bytes (%u frames with ACKs); "
	       "reordered copy: %u segments swapped with the next (%.2f%%)\n",
	       RECORDS, len, nseg, MSS, cin.n, swapped, 100.0 * swapped / nseg);

	struct rx_cfg cfg, nocsum, seqc;
	rx_cfg_default(&cfg);
	cfg.mtoe.flows[0].ex_addr = s.saddr;
	cfg.mtoe.flows[0].ex_port = 9000;
	cfg.mtoe.nflows = 1;
	nocsum = cfg;
	nocsum.net.flags &= ~NET_CFG_TCP_CSUM;
	seqc = cfg;
	seqc.flags |= RX_CFG_SEQ;
	uint32_t nfs = RX_NSTREAMS(&cfg);
	struct fast_stream *fs = calloc(nfs, sizeof *fs);
	uint64_t mlen = MTOE_BUF_BYTES(cfg.mtoe.max_conns, cfg.mtoe.window);
	uint8_t *mbuf = malloc(mlen);
	if (!fs || !mbuf)
		return 1;

	struct {
		const char *name;
		const struct capture *c;
		const struct rx_cfg *cfg;
		int net_only;
		int fast;
		int gtoe;      /* through the general TOE, its ACKs built every gtoe frames */
		int per_entry; /* rx_next alone (toed before rx_ticks) */
		int publish;   /* into a publisher with history and one client ring */
		int decode;    /* the decoder alone (run_decode) */
		double t[BENCH_MAX_REPS];
		double cyc[BENCH_MAX_REPS]; /* t x the clock measured right after it (bench_clock_ghz) */
		double ghz[BENCH_MAX_REPS];
	} v[] = {
		{"in_order", &cin, &cfg, 0, 0, 0, 0, 0, 0, {0}, {0}, {0}},
		{"reorder_1pct", &cre, &cfg, 0, 0, 0, 0, 0, 0, {0}, {0}, {0}},
		{"no_tcp_csum", &cin, &nocsum, 0, 0, 0, 0, 0, 0, {0}, {0}, {0}},
		{"net_mtoe_only", &cin, &cfg, 1, 0, 0, 0, 0, 0, {0}, {0}, {0}},
		{"net_mtoe_no_csum", &cin, &nocsum, 1, 0, 0, 0, 0, 0, {0}, {0}, {0}},
		{"fastx_in_order", &cin, &cfg, 0, 1, 0, 0, 0, 0, {0}, {0}, {0}},
		{"fastx_reorder_1pct", &cre, &cfg, 0, 1, 0, 0, 0, 0, {0}, {0}, {0}},
		{"fastx_rx_next", &cin, &cfg, 0, 1, 0, 1, 0, 0, {0}, {0}, {0}},
		{"fastx_publish", &cin, &cfg, 0, 1, 0, 0, 1, 0, {0}, {0}, {0}},
		{"fastx_seq_check", &cin, &seqc, 0, 1, 0, 0, 0, 0, {0}, {0}, {0}},
		{"fastx_decode_only", &cin, &cfg, 0, 1, 0, 0, 0, 1, {0}, {0}, {0}},
		{"gtoe_in_order", &cg, &cfg, 0, 0, 1, 0, 0, 0, {0}, {0}, {0}},
		{"gtoe_fastx_in_order", &cg, &cfg, 0, 1, 1, 0, 0, 0, {0}, {0}, {0}},
		{"gtoe_fastx_burst64", &cg, &cfg, 0, 1, 64, 0, 0, 0, {0}, {0}, {0}},
		{"gtoe_fastx_publish", &cg, &cfg, 0, 1, 1, 0, 1, 0, {0}, {0}, {0}},
	};
	struct fastx_prog *xp = fastx_prog_new(&prog);
	if (!xp)
		return 1;
	/* the publisher of the publish variants: toed's defaults (dp_setup_pub), one client */
	struct pub_config pc = {0};
	struct pub_client *pcl;
	struct pub_client_info pin;
	struct pub_filter pf = {0};
	int perr;
	pc.default_capacity = TOE_SHM_DEFAULT_CAPACITY;
	pc.history = TOE_SHM_DEFAULT_CAPACITY;
	pc.no_hugepages = 1;
	pub = pub_create(&pc, &perr);
	if (!pub || pub_filter_normalise(&pf) != 0 ||
	    pub_client_add(pub, &pf, TOE_SHM_DEFAULT_CAPACITY, 0, 0, &pcl, &pin) != 0 ||
	    ring_view_open(&view, pin.data_fd, pin.data_size, pin.cons_fd) != 0) {
		fprintf(stderr, "bench_rx: cannot make the publisher and its client ring\n");
		return 1;
	}
	const int nv = (int)(sizeof v / sizeof v[0]);
	const char *only = getenv("BENCH_RX_ONLY");
	int skip[sizeof v / sizeof v[0]] = {0};
	for (int i = 0; i < nv; i++)
		skip[i] = only && !bench_listed(only, v[i].name);
	for (int r = 0; r < REPS; r++) {
		for (int i = 0; i < nv; i++) {
			uint64_t n, want;
			double t0;
			if (skip[i])
				continue;
			struct pub_stats ps0;
			pub_get_stats(pub, &ps0);
			uint64_t delivered0 = ps0.delivered;
			per_entry = v[i].per_entry;
			publishing = v[i].publish;
			nbatch = 0;
			if (v[i].decode) {
				fast_stream_init(&fs[0], &prog, FAST_FRAMING_STEP);
				fastx_dec_init(&xd, xp, &fs[0].rec);
				xd.scratch = &fs[0].rec;
				t0 = bench_cpu_s();
				n = run_decode(feed, len, &fs[0]);
				want = RECORDS;
				if (r == 0)
					printf("fastx_decode_only STEP paths: %llu messages, %llu framed in bulk (%llu by the "
					       "header memo, %llu of them by its fixed places; %llu split across "
					       "segments and joined), %llu state-machine calls\n",
					       (unsigned long long)fs[0].step.messages, (unsigned long long)xd.step_bulk,
					       (unsigned long long)xd.smemo.hits, (unsigned long long)xd.smemo.fx_hits,
					       (unsigned long long)xd.step_joined, (unsigned long long)xd.step_machine);
			} else if (v[i].net_only) {
				net_stats_init(&nst);
				if (mtoe_init(&mt, &v[i].cfg->mtoe, mbuf, mlen) != MTOE_OK)
					return 1;
				t0 = bench_cpu_s();
				n = run_net(v[i].c, v[i].cfg);
				want = len;
			} else {
				if (rx_init(&pipe_, v[i].cfg, &prog, fs, nfs, mbuf, mlen) != RX_OK)
					return 1;
				if (v[i].fast) {
					fastx_dec_init(&xd, xp, &fs[0].rec);
					pipe_.fastx = &xd;
				}
				if (v[i].gtoe) {
					net_stats_init(&nst);
					if (gtoe_setup(s.daddr, 40000, s.saddr, 9000, isn) != gconn ||
					    G.conn[gconn].snd_nxt != gack)
						return 1;
				}
				t0 = bench_cpu_s();
				n = v[i].gtoe ? run_gtoe(v[i].c, v[i].cfg, gconn, (uint32_t)v[i].gtoe) : run(v[i].c);
				want = RECORDS;
			}
			v[i].t[r] = bench_cpu_s() - t0;
			v[i].ghz[r] = bench_clock_ghz();
			v[i].cyc[r] = v[i].t[r] * v[i].ghz[r] * 1e9;
			if (n != want) {
				fprintf(stderr, "bench_rx: %s gave %llu of %llu %s\n", v[i].name, (unsigned long long)n,
					(unsigned long long)want, v[i].net_only ? "bytes" : "records");
				return 1;
			}
			if (v[i].publish) {
				/* the client's ring got every record, none dropped */
				struct pub_stats ps;
				pub_get_stats(pub, &ps);
				if (ps.delivered - delivered0 != RECORDS || ps.dropped != 0) {
					fprintf(stderr, "bench_rx: %s delivered %llu of %u records (%llu dropped)\n", v[i].name,
						(unsigned long long)(ps.delivered - delivered0), RECORDS,
						(unsigned long long)ps.dropped);
					return 1;
				}
			}
		}
	}
	printf("%-18s %10s %10s %10s %10s %12s %12s %8s\n", "variant", "Gb/s best", "Gb/s p50", "Mpps p50",
	       "ns/seg p50", "Mrec/s p50", "cyc/seg p50", "GHz p50");
	for (int i = 0; i < nv; i++) {
		if (skip[i])
			continue;
		bench_sort(v[i].t, REPS);
		bench_sort(v[i].cyc, REPS);
		bench_sort(v[i].ghz, REPS);
		double best = v[i].t[0], med = v[i].t[REPS / 2], cmed = v[i].cyc[REPS / 2] / nseg;
		double gb = v[i].c->payload * 8.0 / 1e9;
		printf("%-18s %10.2f %10.2f %10.3f %10.1f ", v[i].name, gb / best, gb / med, v[i].c->n / med / 1e6,
		       med * 1e9 / nseg);
		if (v[i].net_only)
			printf("%12s", "-");
		else
			printf("%12.2f", RECORDS / med / 1e6);
		printf(" %12.0f %8.2f\n", cmed, v[i].ghz[REPS / 2]);
		printf("RESULT {\"bench\":\"rx\",\"variant\":\"%s\",\"records\":%u,\"payload_bytes\":%llu,"
		       "\"segments\":%u,\"frames\":%u,\"gbps_best\":%.3f,\"gbps_p50\":%.3f,\"mpps_p50\":%.3f,"
		       "\"ns_per_segment_p50\":%.1f,\"cycles_per_segment_p50\":%.0f,\"ghz_p50\":%.2f,"
		       "\"target_gbps\":10}\n",
		       v[i].name, RECORDS, (unsigned long long)v[i].c->payload, nseg, v[i].c->n, gb / best, gb / med,
		       v[i].c->n / med / 1e6, med * 1e9 / nseg, cmed, v[i].ghz[REPS / 2]);
	}
	/* the decoder's share: the same bytes decoded from memory against the whole path */
	int iw = -1, idec = -1;
	for (int i = 0; i < nv; i++) {
		if (skip[i])
			continue;
		if (strcmp(v[i].name, "fastx_in_order") == 0)
			iw = i;
		else if (strcmp(v[i].name, "fastx_decode_only") == 0)
			idec = i;
	}
	if (iw >= 0 && idec >= 0) {
		double whole = v[iw].t[REPS / 2] * 1e9 / nseg, dec = v[idec].t[REPS / 2] * 1e9 / nseg;
		printf("decoder share (p50): fastx_decode_only %.1f ns/seg of fastx_in_order %.1f ns/seg = %.0f%%; "
		       "outside the decoder (frames, TOE, pipeline, batch) %.1f ns/seg\n",
		       dec, whole, 100.0 * dec / whole, whole - dec);
		printf("RESULT {\"bench\":\"rx\",\"variant\":\"decoder_share\",\"decode_ns_per_segment_p50\":%.1f,"
		       "\"whole_ns_per_segment_p50\":%.1f,\"outside_ns_per_segment_p50\":%.1f}\n",
		       dec, whole, whole - dec);
	}
	printf("target: 10 Gb/s of TCP payload on one core (net_rx + mirror TOE + STEP + FAST + tick mapping; "
	       "gtoe_*: net_rx + general TOE with its ACK frames + STEP + FAST + tick mapping): %.1f ns a segment, "
	       "%.0f cycles at 3.5 GHz\n",
	       MSS * 8 / 10.0, MSS * 8 / 10.0 * 3.5);
	free(gbuf);
	free(cg.buf);
	free(cg.f);
	free(feed);
	free(cin.buf);
	free(cre.buf);
	free(cin.f);
	free(cre.f);
	free(fs);
	free(mbuf);
	fastx_prog_free(xp);
	pub_destroy(pub);
	return 0;
}
