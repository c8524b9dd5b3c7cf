/* test_fastx_rx.c - the rx pipeline with the CPU fast decoder gives the reference's entries.
 *
 * Two decoder halves (rx_init_decode) get the same mirror TOE events: an
 * SSE STEP feed (bench_step_feed) cut into segments of varying size, with
 * corrupted bytes (bad checksums, broken FAST payloads with repaired
 * framing), a GAP event that restarts the stream mid-message and a new
 * OPEN. One pipe decodes with the reference, the other with p->fastx set;
 * every entry (kind, stream, offsets, lengths, gap fields, tick type and
 * tick record bytes) and every counter must match, on the scalar and the
 * widest instruction-set level, without and with sequence tracking
 * (RX_CFG_SEQ: the fast path's keys come from its tick records, the
 * reference's from its value array; gaps, duplicates and their counters
 * must agree). Also checks that the fast path, not the fallback, did the
 * work for the SSE templates, with and without sequence tracking.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "bench.h"
#include "rx/rx_pipe.h"
#include "fast/host/fastx.h"
#include "fast/host/fast_compile.h"

#define NREC 3000

static struct fast_prog prog;
static struct fast_names names;

struct side {
	struct rx_pipe p;
	struct fast_stream fs[2];
	struct rx_out out[64];
	int n;
};

static void drain(struct side *s)
{
	s->n = 0;
	while (s->n < 64 && rx_drain(&s->p, &s->out[s->n]))
		s->n++;
}

static int same_out(const struct rx_out *a, const struct rx_out *b)
{
	if (a->kind != b->kind || a->stream != b->stream || a->offset != b->offset || a->len != b->len ||
	    a->msg_seq != b->msg_seq || a->tick_type != b->tick_type || a->reason != b->reason)
		return 0;
	if (a->kind == RX_OUT_RECORD && a->tick_type <= 0)
		return 1; /* no tick: bytes not meaningful beyond the header cleared by out_clear */
	return memcmp(&a->tick, &b->tick, sizeof a->tick) == 0;
}

static void run(int isa, const uint8_t *feed, size_t len, uint32_t flags)
{
	static struct side ref, fx;
	struct rx_cfg cfg;
	struct fastx_prog *xp = fastx_prog_new(&prog);
	struct fastx_dec xd;
	struct mtoe_event ev;
	size_t at = 0;
	uint64_t stream_off = 0;
	uint32_t k = 0, nent = 0, ndiff = 0;
	CHECK(xp != NULL);
	CHECK_EQ(fastx_isa_set(isa), 0);
	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 2;
	cfg.flags |= flags;
	CHECK_EQ(rx_init_decode(&ref.p, &cfg, &prog, ref.fs, 2), RX_OK);
	CHECK_EQ(rx_init_decode(&fx.p, &cfg, &prog, fx.fs, 2), RX_OK);
	fastx_dec_init(&xd, xp, &fx.fs[0].rec);
	fx.p.fastx = &xd;

	memset(&ev, 0, sizeof ev);
	ev.type = MTOE_EV_OPEN;
	ev.conn = 1;
	rx_event(&ref.p, &ev, 1);
	rx_event(&fx.p, &ev, 1);
	drain(&ref);
	drain(&fx);
	while (at < len) {
		size_t c = 1 + (k * 7919u) % 1500u;
		if (c > len - at)
			c = len - at;
		memset(&ev, 0, sizeof ev);
		ev.conn = 1;
		if (k % 97 == 50) {
			/* lose this segment: a GAP restarts the stream after it */
			ev.type = MTOE_EV_GAP;
			ev.reason = TOE_GAP_TIMEOUT;
			ev.offset = stream_off;
			ev.len = c;
		} else {
			ev.type = MTOE_EV_DATA;
			ev.offset = stream_off;
			ev.len = c;
			ev.data = feed + at;
		}
		rx_event(&ref.p, &ev, 1000 + k);
		rx_event(&fx.p, &ev, 1000 + k);
		for (;;) {
			drain(&ref);
			drain(&fx);
			test_checks++;
			if (ref.n != fx.n) {
				test_failures++;
				fprintf(stderr, "segment %u: %d entries vs %d\n", k, ref.n, fx.n);
				break;
			}
			for (int i = 0; i < ref.n; i++) {
				nent++;
				if (!same_out(&ref.out[i], &fx.out[i]) && ndiff++ < 5) {
					test_failures++;
					fprintf(stderr, "segment %u entry %d: kind %d/%d offset %llu/%llu tick %d/%d\n", k, i,
						ref.out[i].kind, fx.out[i].kind, (unsigned long long)ref.out[i].offset,
						(unsigned long long)fx.out[i].offset, ref.out[i].tick_type,
						fx.out[i].tick_type);
				}
			}
			if (ref.n < 64)
				break;
		}
		stream_off += c;
		at += c;
		k++;
	}
	CHECK(nent > NREC / 2);
	CHECK(memcmp(&ref.p.st, &fx.p.st, sizeof ref.p.st) == 0);
	CHECK(memcmp(&ref.p.sst[1], &fx.p.sst[1], sizeof ref.p.sst[1]) == 0);
	CHECK(ref.p.st.gaps_decode > 0);
	CHECK(ref.p.st.records > NREC / 2);
	/* with sequence tracking too the fast path decodes: the keys come
	 * from its tick records (fastx_key), and the tracker saw them */
	CHECK(xd.fast > NREC / 2);
	CHECK(xd.step_bulk > 0);
	CHECK(xd.step_joined > 0); /* messages split across segments held and joined by the fast path */
	if (flags & RX_CFG_SEQ) {
		CHECK_EQ(xd.keys_ok, 1);
		CHECK(fx.p.st.seq_records > NREC / 2);
		CHECK(fx.p.st.seq_gaps > 0);
		CHECK_EQ(fx.p.st.seq_unkeyed, 0);
	}
	CHECK_EQ(xd.fallback, 0);
	fastx_prog_free(xp);
}

int main(void)
{
	char err[256];
	size_t cap = (size_t)NREC * 200 + 4096, len = 0;
	uint8_t *feed = malloc(cap);
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	CHECK(feed != NULL);
	CHECK_EQ(bench_step_feed(&prog, NREC, feed, cap, &len), 0);
	/* damage: a checksum digit, a FAST payload byte inside a message (its
	 * checksum fixed up is not needed: either error path must agree) */
	for (size_t i = 1000; i + 8 < len; i += 7919) {
		if (i % 2)
			feed[i] ^= 0x40;
		else
			feed[i] = 0x80;
	}
	run(FASTX_ISA_SCALAR, feed, len, 0);
	run(fastx_isa_max(), feed, len, 0);
	/* sequence tracking (ABI 2): MsgSeqNum checks need FS_MESSAGE from the fast path too */
	run(FASTX_ISA_SCALAR, feed, len, RX_CFG_SEQ);
	run(fastx_isa_max(), feed, len, RX_CFG_SEQ);
	free(feed);
	return test_done("fastx_rx");
}
