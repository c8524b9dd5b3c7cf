/* bench_gtoe.c - the general TOE's receive path on one core: in-order 1408-byte segments and the ACKs they cause.
 *
 * One established connection (timestamps negotiated, as with most exchange
 * gateways) receives NSEG in-order segments of 1408 bytes; the application
 * consumes every byte at once (peek/consume, a byte of each cache line
 * summed, as a reader touches them all; direct delivery on, as in toed:
 * the bytes read where they arrived, gtoe_settle after each segment),
 * gtoe_tx_next() produces the delayed ACKs (one per two segments) and
 * gtoe_poll() runs every 1024 segments.
 * Variants, interleaved over REPS runs (best and median printed):
 *   gtoe_seg       segment descriptors straight into gtoe_input_seg (the
 *                  endpoint alone: no frame parsing, ACKs as descriptors);
 *   gtoe_frames    frames built by the independent test builder: net_rx
 *                  (TCP checksum verified) + gtoe_input_pkt, and each ACK
 *                  built into a frame by gtoe_frame (checksums included);
 *   mtoe_frames    the same frames through net_rx + the mirror TOE
 *                  (mtoe_segment): the peer measured side by side.
 * Throughput is Gb/s of TCP payload; ns/seg is per data segment, in the
 * thread's CPU time; cyc/seg the same x the clock measured after each run
 * (bench_clock_ghz), the figure that compares across runs. Every run
 * must deliver every byte. BENCH_REPS overrides the repetitions; GTOE_SEGS
 * the segment count. Not pinned to a CPU: the shell's placement applies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gtoe_harness.h"
#include "pktbuild.h"
#include "net/net_rx.h"
#include "toe/gtoe.h"
#include "toe/gtoe_frame.h"
#include "toe/mtoe.h"

#define MSS 1408
#define US_ADDR 0x0a000001u
#define EX_ADDR 0x0a000002u
#define US_PORT 5000
#define EX_PORT 9000
#define IRS 0x7fff0000u

static uint32_t NSEG = 20000;
static int REPS = 5;
static volatile uint64_t sink;

static struct gtoe G;
static uint8_t *gbuf;
static struct gtoe_cfg gcfg;
static struct mtoe M;
static uint8_t *mbuf;
static struct mtoe_cfg mcfg;
static struct net_cfg ncfg;
static struct net_stats nst;
static uint8_t payload[MSS];

struct frame {
	uint32_t off, len;
};
static uint8_t *fbuf;
static struct frame *fr;

static void ts_opt(uint8_t *o, uint32_t tsval, uint32_t tsecr)
{
	o[0] = 1;
	o[1] = 1;
	o[2] = 8;
	o[3] = 10;
	o[4] = (uint8_t)(tsval >> 24); o[5] = (uint8_t)(tsval >> 16); o[6] = (uint8_t)(tsval >> 8); o[7] = (uint8_t)tsval;
	o[8] = (uint8_t)(tsecr >> 24); o[9] = (uint8_t)(tsecr >> 16); o[10] = (uint8_t)(tsecr >> 8); o[11] = (uint8_t)tsecr;
}

/* A fresh endpoint with one established connection; returns its slot. */
static int32_t setup(void)
{
	if (gtoe_init(&G, &gcfg, gbuf, GTOE_BUF_BYTES(&gcfg)) != GTOE_OK)
		return -1;
	gtoe_direct_on(&G, 1); /* as toed (dp_tcp): in-order bytes read from the segment */
	return gh_establish(&G, US_ADDR, US_PORT, EX_ADDR, EX_PORT, IRS, MSS, 1, 0);
}

static uint64_t drain(int32_t c, uint64_t acc)
{
	const uint8_t *p;
	uint32_t n;
	while ((n = gtoe_peek(&G, c, &p)) > 0) {
		for (uint32_t k = 0; k < n; k += 64) /* a reader touches every cache line */
			acc += p[k];
		gtoe_consume(&G, c, n);
	}
	gtoe_settle(&G); /* the segment's memory goes back */
	return acc;
}

static uint64_t run_seg(int32_t c, uint64_t *acks)
{
	struct gtoe_seg s, out;
	uint64_t ts = 2000, acc = 0, bytes0 = G.conn[c].st.bytes_in;
	uint32_t i, ack = G.conn[c].snd_nxt;
	memset(&s, 0, sizeof s);
	s.saddr = EX_ADDR;
	s.daddr = US_ADDR;
	s.sport = EX_PORT;
	s.dport = US_PORT;
	s.flags = TCP_ACK | TCP_PSH;
	s.win = 65535;
	s.ack = ack;
	s.has_ts = 1;
	s.data[0] = payload;
	s.len[0] = MSS;
	for (i = 0; i < NSEG; i++) {
		s.seq = IRS + 1 + i * MSS;
		s.tsval = 2 + i / 64;
		gtoe_input_seg(&G, &s, ts);
		while (gtoe_tx_next(&G, ts, &out))
			(*acks)++;
		acc = drain(c, acc);
		if ((i & 1023) == 1023)
			gtoe_poll(&G, ts);
		ts += 1200;
	}
	sink = acc;
	return G.conn[c].st.bytes_in - bytes0;
}

static uint64_t run_frames(int32_t c, uint64_t *acks)
{
	struct net_pkt pkt;
	struct gtoe_seg out;
	struct net_tx_l2 l2;
	uint8_t af[256];
	uint64_t ts = 2000, acc = 0, bytes0 = G.conn[c].st.bytes_in;
	uint32_t i;
	uint16_t id = 0;
	memset(&l2, 0, sizeof l2);
	for (i = 0; i < NSEG; i++) {
		if (net_rx(&ncfg, &nst, fbuf + fr[i].off, fr[i].len, ts, &pkt) == NET_RX_TCP)
			gtoe_input_pkt(&G, &pkt, ts);
		while (gtoe_tx_next(&G, ts, &out)) {
			acc += gtoe_frame(&out, &l2, id++, af, sizeof af);
			(*acks)++;
		}
		acc = drain(c, acc);
		if ((i & 1023) == 1023)
			gtoe_poll(&G, ts);
		ts += 1200;
	}
	sink = acc;
	return G.conn[c].st.bytes_in - bytes0;
}

static uint64_t run_mtoe(void)
{
	static struct mtoe_event ev[MTOE_SEG_EVENTS];
	struct net_pkt pkt;
	uint64_t ts = 2000, acc = 0, bytes = 0;
	uint32_t i, n, k;
	for (i = 0; i < NSEG; i++) {
		if (net_rx(&ncfg, &nst, fbuf + fr[i].off, fr[i].len, ts, &pkt) == NET_RX_TCP) {
			n = mtoe_segment(&M, &pkt, ev, MTOE_SEG_EVENTS);
			for (k = 0; k < n; k++)
				if (ev[k].type == MTOE_EV_DATA) {
					bytes += ev[k].len;
					for (uint32_t j = 0; j < ev[k].len; j += 64) /* as the gtoe reader */
						acc += ev[k].data[j];
				}
		}
		if ((i & 1023) == 1023)
			while (mtoe_poll(&M, ts, ev, MTOE_SEG_EVENTS))
				;
		ts += 1200;
	}
	sink = acc;
	return bytes;
}

int main(void)
{
	uint32_t i, tmp = 1; /* bench_env wants a record count; unused here */
	size_t used = 0;
	int r, k;
	const char *e = getenv("GTOE_SEGS");
	if (bench_env(&tmp, &REPS))
		return 1;
	if (e && atoi(e) > 0)
		NSEG = (uint32_t)atoi(e);
	for (i = 0; i < MSS; i++)
		payload[i] = (uint8_t)(i * 7);
	gtoe_cfg_default(&gcfg);
	gbuf = malloc(GTOE_BUF_BYTES(&gcfg));
	mtoe_cfg_default(&mcfg);
	mcfg.flows[0].ex_addr = EX_ADDR;
	mcfg.flows[0].ex_port = EX_PORT;
	mcfg.nflows = 1;
	mbuf = malloc(MTOE_BUF_BYTES(mcfg.max_conns, mcfg.window));
	net_cfg_init(&ncfg);
	fbuf = malloc((size_t)NSEG * 1536);
	fr = malloc(NSEG * sizeof *fr);
	if (!gbuf || !mbuf || !fbuf || !fr)
		return 1;

	/* the frames: the exchange's data with timestamps (independent builder, correct checksums) */
	{
		int32_t c = setup();
		struct pb_spec s;
		uint8_t opt[12];
		if (c < 0)
			return 1;
		pb_init(&s);
		s.saddr = EX_ADDR;
		s.daddr = US_ADDR;
		s.sport = EX_PORT;
		s.dport = US_PORT;
		s.tcp_flags = TCP_ACK | TCP_PSH;
		s.ack = G.conn[c].snd_nxt;
		s.ip_frag = PB_IP_DF;
		s.tcp_opts = opt;
		s.tcp_optlen = 12;
		for (i = 0; i < NSEG; i++) {
			size_t n;
			s.seq = IRS + 1 + i * MSS;
			ts_opt(opt, 2 + i / 64, 1);
			n = pb_tcp(fbuf + used, 1536, &s, payload, MSS);
			if (n == 0)
				return 1;
			fr[i].off = (uint32_t)used;
			fr[i].len = (uint32_t)n;
			used += (n + 63) & ~(size_t)63;
		}
	}

	struct {
		const char *name;
		int kind;
		double t[BENCH_MAX_REPS];
		double cyc[BENCH_MAX_REPS]; /* t x the clock measured right after it */
		uint64_t acks;
	} v[] = {
		{"gtoe_seg", 0, {0}, {0}, 0},
		{"gtoe_frames", 1, {0}, {0}, 0},
		{"mtoe_frames", 2, {0}, {0}, 0},
	};
	const int nv = (int)(sizeof v / sizeof v[0]);
	uint64_t want = (uint64_t)NSEG * MSS;
	for (r = 0; r < REPS; r++) {
		for (k = 0; k < nv; k++) {
			uint64_t got, acks = 0;
			int32_t c = -1;
			double t0;
			net_stats_init(&nst);
			if (v[k].kind == 2) {
				if (mtoe_init(&M, &mcfg, mbuf, MTOE_BUF_BYTES(mcfg.max_conns, mcfg.window)) != MTOE_OK)
					return 1;
			} else if ((c = setup()) < 0) {
				return 1;
			}
			t0 = bench_cpu_s();
			got = v[k].kind == 0 ? run_seg(c, &acks) : v[k].kind == 1 ? run_frames(c, &acks) : run_mtoe();
			v[k].t[r] = bench_cpu_s() - t0;
			v[k].cyc[r] = v[k].t[r] * bench_clock_ghz() * 1e9;
			v[k].acks = acks;
			if (got != want) {
				fprintf(stderr, "bench_gtoe: %s delivered %llu of %llu bytes\n", v[k].name,
					(unsigned long long)got, (unsigned long long)want);
				return 1;
			}
		}
	}
	printf("%u in-order segments of %d bytes per run, %d runs; ACKs per run: gtoe %llu\n", NSEG, MSS, REPS,
	       (unsigned long long)v[0].acks);
	printf("%-12s %10s %10s %10s %12s\n", "variant", "Gb/s best", "Gb/s p50", "ns/seg p50", "cyc/seg p50");
	for (k = 0; k < nv; k++) {
		bench_sort(v[k].t, REPS);
		bench_sort(v[k].cyc, REPS);
		double best = v[k].t[0], med = v[k].t[REPS / 2], gb = want * 8.0 / 1e9;
		printf("%-12s %10.2f %10.2f %10.1f %12.0f\n", v[k].name, gb / best, gb / med, med * 1e9 / NSEG,
		       v[k].cyc[REPS / 2] / NSEG);
		printf("RESULT {\"bench\":\"gtoe\",\"variant\":\"%s\",\"segments\":%u,\"segment_bytes\":%d,"
		       "\"acks\":%llu,\"gbps_best\":%.3f,\"gbps_p50\":%.3f,\"ns_per_segment_p50\":%.1f,"
		       "\"cycles_per_segment_p50\":%.0f}\n",
		       v[k].name, NSEG, MSS, (unsigned long long)v[k].acks, gb / best, gb / med, med * 1e9 / NSEG,
		       v[k].cyc[REPS / 2] / NSEG);
	}
	free(gbuf);
	free(mbuf);
	free(fbuf);
	free(fr);
	return 0;
}
