/* fuzz_net_rx.c - libFuzzer target: sequences of frames through the whole receive pipeline (rx_pipe).
 *
 * Input: fuzz_frames.h (a switch byte, then length-prefixed frames with the
 * source's checksum word and a time step). The pipeline follows the TCP feeds
 * and UDP ports named there, so frames built like the seed corpus
 * (corpus/fuzz_net_rx/, made by gen_corpus_net_rx.c) reach the mirror TOE's
 * connection states, reassembly, gap timers, the STEP deframer and the FAST
 * decoder, not only the header checks. Checked on every frame and entry:
 *   - a TCP/UDP verdict's payload lies inside the frame (each frame is copied
 *     to a buffer of its exact size: ASan catches any overread);
 *   - a dropped frame is counted: net_rx's last_drop names a reason;
 *   - every entry names a stream the pipeline has; a DATA entry's bytes lie in
 *     the frame or the mirror TOE's buffer; a RECORD's values were checked by
 *     the decoder (string offsets inside the record);
 *   - frames counted once, nothing left undrained, no event for a missing stream;
 *   - with FZF_TAP, every byte of a TCP stream accounted for: from its OPEN,
 *     each DATA entry and byte gap starts where the last one ended;
 *   - with sequence tracking (FZF_SEQ): no (group, channel, sequence) is
 *     delivered twice, whatever the lines, reorders, holes and timeouts;
 *     and at the end nothing is lost silently: every sequence between a
 *     channel's lowest and highest delivered is delivered or named by a
 *     TOE_GAP_SEQUENCE entry (per numbering: a restart starts afresh);
 *   - inputs of odd length are drained with rx_ticks too (as toed's data
 *     plane drains), under the same checks, its records all mapped ones;
 *   - the host checksum (net_csum_host.c, every level the CPU runs) folds each
 *     frame, whole and in two chunks split at the input's choice, to the same
 *     sum as the synthesisable word loop (and reads nothing outside it).
 * FUZZ_VERBOSE=1 in the environment prints what each input reached (to check
 * what a seed does: build/fuzz/fuzz_net_rx FILE...), FUZZ_TRACE=1 every entry.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rx/rx_pipe.h"
#include "net/host/net_csum_host.h"

#define FUZZ_NAME "fuzz_net_rx"
#define FUZZ_FAST_PROGS
#include "fuzz_common.h"
#include "fuzz_frames.h"

#define CONNS 4
#define WINDOW 4096

static struct rx_pipe pipe_;
static struct fast_stream fs[CONNS + 2];
static uint8_t mbuf[MTOE_BUF_BYTES(CONNS, WINDOW)];

/* (group, channel, sequence) keys delivered since the last restart: open addressing. */
#define DKEYS 8192
static struct dkey {
	uint64_t seq;
	uint32_t chan;
	uint8_t group, used;
} dk[DKEYS];
static uint32_t ndk;

/* Per group and channel (direct-indexed ones): which sequences of a window were delivered or
 * reported lost, to find one that was neither (silent loss). */
#define CWIN 4096
static struct cover {
	uint8_t state; /* 0 nothing yet, 1 checked, 2 not checked (a sequence left the window) */
	uint64_t base, lo, hi;
	uint8_t bit[CWIN / 8];
} cov[RX_MAX_GROUPS][SEQ_DIRECT];

/* Sequence s of (g, chan) was delivered. */
static void cover_mark(uint32_t g, uint32_t chan, uint64_t s)
{
	struct cover *c = &cov[g][chan];
	if (c->state == 0) {
		c->state = 1;
		c->base = s >= CWIN / 2 ? s - CWIN / 2 : 0;
		c->lo = c->hi = s;
	}
	if (c->state != 1)
		return;
	if (s < c->base || s - c->base >= CWIN) {
		c->state = 2;
		return;
	}
	c->bit[(s - c->base) / 8] |= (uint8_t)(1u << (s - c->base) % 8);
	if (s < c->lo)
		c->lo = s;
	if (s > c->hi)
		c->hi = s;
}

/* Sequences [first, last] of (g, chan) were reported lost: their part inside the window. (A gap comes
 * after a delivery of its numbering, so a channel not checked yet has nothing to mark.) */
static void cover_gap(uint32_t g, uint32_t chan, uint64_t first, uint64_t last)
{
	struct cover *c = &cov[g][chan];
	if (c->state != 1 || last < c->base || (first >= c->base && first - c->base >= CWIN))
		return;
	if (first < c->base)
		first = c->base;
	if (last - c->base >= CWIN)
		last = c->base + CWIN - 1;
	for (uint64_t s = first; s <= last; s++)
		c->bit[(s - c->base) / 8] |= (uint8_t)(1u << (s - c->base) % 8);
}

/* At the end: every sequence in [lo, hi] of each checked channel was delivered or reported lost. */
static void cover_check(void)
{
	for (uint32_t g = 0; g < RX_MAX_GROUPS; g++)
		for (uint32_t ch = 0; ch < SEQ_DIRECT; ch++) {
			const struct cover *c = &cov[g][ch];
			if (c->state != 1)
				continue;
			for (uint64_t s = c->lo; s <= c->hi; s++)
				if (!(c->bit[(s - c->base) / 8] >> (s - c->base) % 8 & 1))
					FAIL("group %u channel %u: sequence %llu neither delivered nor reported lost "
					     "(delivered %llu..%llu)",
					     g, ch, (unsigned long long)s, (unsigned long long)c->lo,
					     (unsigned long long)c->hi);
		}
}

static void delivered_clear(void)
{
	memset(dk, 0, sizeof dk);
	ndk = 0;
	memset(cov, 0, sizeof cov);
}

/* A RESTART entry: a channel starts its numbering again, so its coverage starts afresh (and the
 * repeat check forgets every key: the table has no per-channel removal). A MsgSeqNum restart
 * (TOE_CHANNEL_NONE) changes no channel's numbering: the records' checks go on across it (clearing
 * them there made a record delivered before it look lost when a lower one came after). */
static void restart_clear(const struct rx_out *o)
{
	uint32_t g = (uint32_t)o->tick.hdr.group - 1u, chan = o->tick.reset.channel;
	if (chan == TOE_CHANNEL_NONE)
		return;
	memset(dk, 0, sizeof dk);
	ndk = 0;
	if (g < RX_MAX_GROUPS && chan < SEQ_DIRECT)
		memset(&cov[g][chan], 0, sizeof cov[g][chan]);
}

/* A delivered record of a tracked channel: FAIL when its key was delivered before. */
static void delivered_once(const struct rx_out *o)
{
	const union toe_record *t = &o->tick;
	uint32_t chan, g = (uint32_t)t->hdr.group - 1u, h;
	uint64_t seq;
	if (t->hdr.type == TOE_REC_TRADE && (t->hdr.present >> TOE_TF_TRADE_CHANNEL & 1) &&
	    (t->hdr.present >> TOE_TF_BIZ_INDEX & 1)) {
		chan = (uint32_t)t->trade.trade_channel;
		seq = (uint64_t)t->trade.biz_index;
	} else if (t->hdr.type == TOE_REC_ORDER && (t->hdr.present >> TOE_TF_ORDER_CHANNEL & 1) &&
		   (t->hdr.present >> TOE_TF_BIZ_INDEX & 1)) {
		chan = (uint32_t)t->order.order_channel;
		seq = (uint64_t)t->order.biz_index;
	} else {
		return;
	}
	/* tracked channels only (the table's, found directly), and keyed records only: seq_key takes a
	 * sequence from 1 to INT64_MAX, others are delivered unchecked */
	if (g >= RX_MAX_GROUPS || chan >= SEQ_DIRECT || pipe_.grp[g].direct[chan] >= SEQ_MAX_CHANNELS)
		return;
	if ((int64_t)seq <= 0)
		return;
	cover_mark(g, chan, seq);
	if (ndk >= DKEYS / 2) {
		/* a long input: keep the table sparse (a repeat across the clear is missed) */
		memset(dk, 0, sizeof dk);
		ndk = 0;
	}
	for (h = (uint32_t)((seq * 0x9e3779b97f4a7c15ull ^ chan * 0x85ebca6bu ^ g) % DKEYS);; h = (h + 1) % DKEYS) {
		if (!dk[h].used)
			break;
		if (dk[h].seq == seq && dk[h].chan == chan && dk[h].group == g)
			FAIL("group %u channel %u sequence %llu delivered twice", g, chan, (unsigned long long)seq);
	}
	dk[h] = (struct dkey){seq, chan, (uint8_t)g, 1};
	ndk++;
}

/* Per TCP stream with FZF_TAP: the next byte offset its entries must account for (rx_pipe.h: the mirror
 * TOE reports every byte as DATA or a byte gap, from 0 at the OPEN); known 0 before its first OPEN. */
static struct {
	uint64_t next;
	int known;
} acct[CONNS];

/* o continues its TCP stream's bytes exactly where the last DATA or byte gap ended. */
static void bytes_accounted(const struct rx_out *o)
{
	if (o->stream >= CONNS || !(pipe_.cfg.flags & RX_CFG_TAP_DATA))
		return;
	if (o->kind == RX_OUT_RESET &&
	    (o->tick.reset.reason == TOE_RESET_SYN || o->tick.reset.reason == TOE_RESET_JOIN)) {
		acct[o->stream].next = 0;
		acct[o->stream].known = 1;
		return;
	}
	int bytes = o->kind == RX_OUT_DATA ||
		    (o->kind == RX_OUT_GAP &&
		     (o->tick.gap.reason == TOE_GAP_TIMEOUT || o->tick.gap.reason == TOE_GAP_WINDOW ||
		      o->tick.gap.reason == TOE_GAP_ACKED || o->tick.gap.reason == TOE_GAP_CLOSED));
	if (!bytes || !acct[o->stream].known)
		return;
	if (o->offset != acct[o->stream].next)
		FAIL("stream %u: %s at offset %llu, bytes accounted up to %llu", o->stream,
		     o->kind == RX_OUT_DATA ? "DATA" : "a byte gap", (unsigned long long)o->offset,
		     (unsigned long long)acct[o->stream].next);
	acct[o->stream].next = o->offset + o->len;
}

static void setup(uint8_t sw)
{
	struct rx_cfg cfg;
	rx_cfg_default(&cfg);
	cfg.net.flags = 0;
	if (sw & FZF_TCP_CSUM)
		cfg.net.flags |= NET_CFG_TCP_CSUM;
	if (sw & FZF_UDP_CSUM)
		cfg.net.flags |= NET_CFG_UDP_CSUM;
	if (sw & FZF_HINTS)
		cfg.net.flags |= NET_CFG_CSUM_HINTS;
	if (sw & FZF_FILTER_DST)
		cfg.net.flags |= NET_CFG_FILTER_DST;
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x02};
	net_cfg_add(&cfg.net, FZF_OUR_IP, 0xffffff00u, mac, 0);
	cfg.mtoe.max_conns = CONNS;
	cfg.mtoe.window = WINDOW;
	cfg.mtoe.gap_timeout_ns = 5000000ull;   /* 5 ms: time steps in the input open gaps */
	cfg.mtoe.idle_timeout_ns = 200000000ull; /* 200 ms: and close idle connections */
	cfg.mtoe.nflows = 2;
	cfg.mtoe.flows[0] = (struct mtoe_flow){.ex_addr = FZF_EX_IP, .ex_port = FZF_EX_PORT};
	cfg.mtoe.flows[1] = (struct mtoe_flow){.ex_addr = 0, .ex_port = FZF_EX2_PORT};
	cfg.nudp = 2;
	cfg.udp[0] = (struct rx_udp_cfg){.port = FZF_UDP_STEP_PORT, .framing = FAST_FRAMING_STEP};
	cfg.udp[1] = (struct rx_udp_cfg){.port = FZF_UDP_RAW_PORT, .framing = FAST_FRAMING_DATAGRAM};
	if (sw & FZF_PORTS) {
		cfg.mtoe.flows[1].in_port = 1;
		cfg.udp[1].in_port = 1;
		cfg.net_port[0] = cfg.net;
	}
	cfg.flags = (sw & FZF_TAP) ? RX_CFG_TAP_DATA : 0;
	if (sw & FZF_SEQ) {
		cfg.flags |= RX_CFG_SEQ;
		cfg.seq.ngroups = 2;
		cfg.seq.flow_group[0] = 1;
		cfg.seq.flow_line[0] = 0;
		cfg.seq.flow_group[1] = 1;
		cfg.seq.flow_line[1] = 1;
	}
	delivered_clear();
	memset(acct, 0, sizeof acct);
	int e = rx_init(&pipe_, &cfg, &progs[0], fs, CONNS + 2, mbuf, sizeof mbuf);
	if (e != RX_OK)
		FAIL("rx_init %d", e);
}

/* The frame's checksum by the word loop and by the host path at each level, whole and split at cut. */
static void csum_same(const uint8_t *frame, uint32_t len, uint32_t cut)
{
	struct net_csum a, b;
	int l;
	if (cut > len)
		cut = len;
	for (l = NET_CSUM_SCALAR; l <= net_csum_level_max(); l++) {
		net_csum_init(&a);
		net_csum_init(&b);
		net_csum_add_syn(&a, frame, len);
		net_csum_add_level(l, &b, frame, len);
		if (net_csum_fold(&a) != net_csum_fold(&b) || a.odd != b.odd)
			FAIL("checksum of %u bytes at level %d: %04x, the word loop %04x", len, l, net_csum_fold(&b),
			     net_csum_fold(&a));
		net_csum_init(&b);
		net_csum_add_level(l, &b, frame, cut);
		net_csum_add_level(l, &b, frame + cut, len - cut);
		if (net_csum_fold(&a) != net_csum_fold(&b) || a.odd != b.odd)
			FAIL("checksum of %u bytes cut at %u, level %d: %04x, the word loop %04x", len, cut, l,
			     net_csum_fold(&b), net_csum_fold(&a));
	}
}

/* FUZZ_TRACE=1: each entry on stderr (what an input does to sequence tracking). */
static int trace;

static void trace_entry(const struct rx_out *o)
{
	const union toe_record *t = &o->tick;
	fprintf(stderr, "  entry kind %u stream %u group %u line %u", o->kind, o->stream, t->hdr.group, t->hdr.line);
	if (o->kind == RX_OUT_RECORD && t->hdr.type == TOE_REC_TRADE)
		fprintf(stderr, " trade channel %d biz %lld", t->trade.trade_channel, (long long)t->trade.biz_index);
	else if (o->kind == RX_OUT_RECORD && t->hdr.type == TOE_REC_ORDER)
		fprintf(stderr, " order channel %d biz %lld", t->order.order_channel, (long long)t->order.biz_index);
	else if (o->kind == RX_OUT_GAP)
		fprintf(stderr, " gap reason %u channel %u %llu..%llu", t->gap.reason, t->gap.channel,
			(unsigned long long)t->gap.first, (unsigned long long)t->gap.last);
	else if (o->kind == RX_OUT_RESET)
		fprintf(stderr, " reset reason %u channel %u last %llu", t->reset.reason, t->reset.channel,
			(unsigned long long)t->reset.last);
	fprintf(stderr, " flags %#x\n", t->hdr.flags);
}

/* One entry's checks; batched: a record from rx_ticks (a tick record, no value array). */
static void check_entry(struct rx_out *o, const uint8_t *frame, uint32_t len, int batched)
{
	if (o->kind < RX_OUT_RECORD || o->kind > RX_OUT_DATA)
		FAIL("entry kind %u", o->kind);
	if (o->stream >= pipe_.nstreams)
		FAIL("entry for stream %u of %u", o->stream, pipe_.nstreams);
	if (o->kind == RX_OUT_DATA) {
		int in_frame = frame && o->data >= frame && o->data + o->len <= frame + len;
		int in_buf = o->data >= mbuf && o->data + o->len <= mbuf + sizeof mbuf;
		if (o->len && !in_frame && !in_buf)
			FAIL("DATA entry of %llu bytes outside the frame and the buffer", (unsigned long long)o->len);
	}
	if (trace)
		trace_entry(o);
	bytes_accounted(o);
	if (o->kind == RX_OUT_RESET && o->tick.reset.reason == TOE_RESET_RESTART)
		restart_clear(o);
	if (o->kind == RX_OUT_RECORD && (pipe_.cfg.flags & RX_CFG_SEQ))
		delivered_once(o);
	if (o->kind == RX_OUT_GAP && o->tick.gap.reason == TOE_GAP_SEQUENCE && o->tick.gap.channel < SEQ_DIRECT &&
	    o->tick.hdr.group >= 1 && o->tick.hdr.group <= RX_MAX_GROUPS && o->tick.gap.first <= o->tick.gap.last)
		cover_gap(o->tick.hdr.group - 1u, o->tick.gap.channel, o->tick.gap.first, o->tick.gap.last);
	if (o->kind == RX_OUT_RECORD && !batched) {
		const struct fast_rec *r = o->rec;
		if (!r || r->nvals > FAST_MAX_VALUES || r->nstr > FAST_MAX_STRBUF)
			FAIL("record with %u values", r ? r->nvals : 0);
		for (uint32_t i = 0; i < r->nvals; i++)
			if (r->v[i].present && (uint32_t)r->v[i].soff + r->v[i].slen > r->nstr &&
			    (progs[0].instr[r->v[i].instr].kind == FAST_K_ASCII ||
			     progs[0].instr[r->v[i].instr].kind == FAST_K_BYTES))
				FAIL("string value outside the record");
	}
	if (o->kind == RX_OUT_RECORD && batched && o->tick.hdr.type != TOE_REC_TRADE && o->tick.hdr.type != TOE_REC_ORDER)
		FAIL("rx_ticks gave a record of type %u", o->tick.hdr.type);
}

/* Inputs of odd length are drained as toed's data plane drains: rx_ticks
 * (batches of 1..8 records) and rx_next for what it does not batch. */
static int use_ticks;
static uint32_t ticks_cap;

static void drain(const uint8_t *frame, uint32_t len)
{
	struct rx_out o;
	for (;;) {
		if (use_ticks) {
			union toe_record recs[8];
			uint32_t sid = 0, n, k;
			ticks_cap = ticks_cap % 8 + 1;
			n = rx_ticks(&pipe_, recs, ticks_cap, &sid);
			if (n > ticks_cap)
				FAIL("rx_ticks gave %u records for %u slots", n, ticks_cap);
			for (k = 0; k < n; k++) {
				memset(&o, 0, sizeof o);
				o.kind = RX_OUT_RECORD;
				o.stream = sid;
				o.tick = recs[k];
				check_entry(&o, frame, len, 1);
			}
			if (n)
				continue;
		}
		if (!rx_next(&pipe_, &o))
			break;
		check_entry(&o, frame, len, 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *f;
	uint32_t len, csum, ms;
	size_t pos = 1;
	uint64_t now = 1000000000ull, frames = 0;

	if (size < 1 || size > 1 << 20)
		return 0;
	setup(data[0]);
	trace = getenv("FUZZ_TRACE") != NULL;
	use_ticks = size & 1;
	ticks_cap = 0;
	while (fzf_next(data, size, &pos, &f, &len, &csum, &ms)) {
		uint8_t *frame = malloc(len ? len : 1); /* exact size */
		if (!frame)
			return 0;
		memcpy(frame, f, len);
		csum_same(frame, len, csum ^ ms);
		now += (uint64_t)ms * 1000000ull;
		int32_t v = rx_frame_port(&pipe_, (data[0] & FZF_PORTS) ? (uint32_t)(frames & 1) : 0, frame, len, now, csum);
		frames++;
		if (v == NET_RX_TCP || v == NET_RX_UDP) {
			const struct net_pkt *pk = &pipe_.pkt;
			if (pk->payload < frame || pk->payload + pk->payload_len > frame + len)
				FAIL("payload outside the frame");
		}
		if (v == NET_RX_DROP && pipe_.net.last_drop == NET_DROP_NONE)
			FAIL("a drop without a reason");
		drain(frame, len);
		if ((data[0] & FZF_POLL_EACH) || frames % 4 == 0) {
			rx_poll(&pipe_, now);
			drain(NULL, 0);
		}
		free(frame);
	}
	rx_poll(&pipe_, UINT64_MAX); /* every hole left becomes a gap */
	drain(NULL, 0);
	if (pipe_.cfg.flags & RX_CFG_SEQ)
		cover_check();
	if (pipe_.st.frames != frames)
		FAIL("%llu frames counted, %llu given", (unsigned long long)pipe_.st.frames, (unsigned long long)frames);
	if (getenv("FUZZ_VERBOSE")) {
		const struct rx_stats *r = &pipe_.st;
		fprintf(stderr,
			"frames %llu: tcp %llu udp %llu arp %llu icmp %llu dropped %llu | opens %llu closes %llu resets %llu "
			"records %llu gaps %llu udp_listened %llu | csum: drop %llu not_ready %llu source_ok %llu\n",
			(unsigned long long)r->frames, (unsigned long long)r->tcp, (unsigned long long)r->udp,
			(unsigned long long)r->arp, (unsigned long long)r->icmp, (unsigned long long)r->dropped,
			(unsigned long long)r->opens, (unsigned long long)r->closes, (unsigned long long)r->resets,
			(unsigned long long)r->records, (unsigned long long)r->gaps, (unsigned long long)r->udp_listened,
			(unsigned long long)(pipe_.net.tcp.drop_tcp_csum + pipe_.net.udp.drop_udp_csum),
			(unsigned long long)(pipe_.net.tcp.csum_not_ready + pipe_.net.udp.csum_not_ready),
			(unsigned long long)(pipe_.net.tcp.csum_source_ok + pipe_.net.udp.csum_source_ok));
	}
	if (pipe_.st.undrained || pipe_.st.bad_stream)
		FAIL("undrained %llu, bad_stream %llu", (unsigned long long)pipe_.st.undrained,
		     (unsigned long long)pipe_.st.bad_stream);
	return 0;
}
