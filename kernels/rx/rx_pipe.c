/* rx_pipe.c - the receive pipeline: net_rx -> mirror TOE / UDP -> STEP + FAST -> entries (synthesisable subset).
 *
 * A pull state machine: rx_frame/rx_poll only classify the frame and collect
 * the mirror TOE's events; rx_next walks them one output entry at a time.
 * Between two entries at most one fast_stream holds fed input (`active`):
 * it is drained before the next event is looked at, so every stream sees its
 * OPEN, DATA and GAP events in order and a record's fast_rec stays intact
 * until the caller asks for the next entry. Loops are bounded by the event
 * array (MTOE_SEG_EVENTS) and, for timers, by the connection table.
 *
 * The per-event entry points (rx_event, rx_feed, rx_datagram, rx_drain)
 * reach the same event() / datagram() / rx_drain as rx_frame; nothing they
 * call touches the mirror TOE or the listen table, so the card's fast_top,
 * which receives events and datagrams from other kernels, synthesises only
 * the decoder half.
 *
 * rx_ticks is rx_drain's common case in bulk (a stream's plain records
 * decoded straight into the caller's array): it uses the same event(),
 * record_tick() and stream_event() as rx_drain, and hands anything else to
 * it through the held entry, so the two give the same entries in the same
 * order.
 *
 * The CPU decoder seam. On the card this file is synthesised as written:
 * decoder_next() pulls records from fast_stream_next (the reference decoder)
 * and record_tick() maps them with fast_tick_map. Host builds define
 * TOE_CPU_DECODER (the Makefile's DEFS; the card build and test_hw_csim.sh
 * do not), which adds guarded branches there: when the caller set p->fastx, the
 * stream's events come from fastx_stream_next (kernels/fast/host/, host only)
 * on the same struct fast_stream, with the tick record already built. The
 * events, offsets, counters and gap rules are those of the reference (the
 * same fast_stream fields, fuzz_fastx_diff checks it), so everything else
 * in this file is shared. No function pointer: a compile-time guard and a
 * data pointer the card never sets. With RX_CFG_SEQ the sequence keys of a
 * fast-path record come from its tick record (fastx_key), where
 * fastx_keys_set found them exact; the templates where it did not go to
 * the reference record by record (counted: seq_key_fallback).
 */
#include "rx_pipe.h"
#include "rx_sess.h"
#include "fast/fast_tick.h"
#ifdef TOE_CPU_DECODER
#include "fast/host/fastx.h"
#endif

_Static_assert((int)MTOE_OPEN_SYN == (int)TOE_RESET_SYN, "open reasons are reset reasons");
_Static_assert((int)MTOE_OPEN_JOIN == (int)TOE_RESET_JOIN, "open reasons are reset reasons");

/* Iterations of rx_drain without an entry: one per event (an event that only
 * feeds) and one to finish the last stream. */
#define RX_DRAIN_ITERS (MTOE_SEG_EVENTS + 2u)

/* mtoe_poll batches one rx_next may fetch without an entry: a batch without
 * any entry holds at most CLOSE events, one per connection. */
#define RX_POLL_BATCHES (MTOE_MAX_CONNS + 2u)

/* Entries one frame or poll can produce: every record takes at least one
 * stream byte, and a call delivers at most a frame plus a window per
 * connection it touches (a poll: every connection's window). */
#define RX_FLUSH_MAX ((uint32_t)MTOE_MAX_CONNS * MTOE_MAX_WINDOW + NET_MAX_FRAME + 4u * MTOE_SEG_EVENTS)

void rx_cfg_default(struct rx_cfg *cfg)
{
	uint32_t i;
	net_cfg_init(&cfg->net);
	for (i = 0; i < RX_MAX_PORTS - 1; i++)
		net_cfg_init(&cfg->net_port[i]);
	mtoe_cfg_default(&cfg->mtoe);
	cfg->nudp = 0;
	cfg->flags = 0;
	for (i = 0; i < MTOE_MAX_CONNS; i++)
		cfg->sess[i] = 0;
	for (i = 0; i < RX_MAX_UDP; i++) {
		cfg->udp[i].port = 0;
		cfg->udp[i].framing = FAST_FRAMING_STEP;
		cfg->udp[i].in_port = 0;
		cfg->seq.udp_group[i] = 0;
		cfg->seq.udp_line[i] = 0;
	}
	cfg->seq.ngroups = 1;
	cfg->seq.wait_ns = SEQ_DEFAULT_WAIT_NS;
	for (i = 0; i < MTOE_MAX_FLOWS; i++) {
		cfg->seq.flow_group[i] = 0;
		cfg->seq.flow_line[i] = 0;
	}
	for (i = 0; i < SEQ_MAX_FIELDS; i++) {
		cfg->seq.fields[i].tid = 0;
		cfg->seq.fields[i].chan_fid = 0;
		cfg->seq.fields[i].seq_fid = 0;
	}
	cfg->seq.nfields = seq_fields_sse(cfg->seq.fields);
}

static void stream_stats_clear(struct rx_stream_stats *s)
{
#define RX_ZERO(name) s->name = 0;
	RX_STREAM_STATS(RX_ZERO)
#undef RX_ZERO
}

/* No pending work. */
static void pending_clear(struct rx_pipe *p)
{
	p->nev = 0;
	p->ev_pos = 0;
	p->active = -1;
	p->polling = 0;
	p->cut_pending = 0;
	p->tap_pending = 0;
	p->held = 0;
	p->seq_polling = 0;
	p->sess_pend = 0;
	p->sess_sid = 0;
	p->sq.tail = p->sq.head;
}

/* What rx_init and rx_init_decode both set: everything but the streams, the
 * mirror TOE, the listen table and p->net. */
static void init_common(struct rx_pipe *p, const struct rx_cfg *cfg, const struct fast_prog *prog,
			struct fast_stream *fs)
{
	uint32_t i;
	p->cfg = *cfg;
	p->prog = prog;
	p->fastx = 0;
	p->fx_keyed = 0;
	p->fs = fs;
	p->nstreams = 0;
	p->verdict = NET_RX_DROP;
	p->now = 0;
	p->now_poll = 0;
	p->now_rx = 0;
	seq_queue_init(&p->sq);
	pending_clear(p);
	p->pad = 0;
	p->cut_stream = 0;
	p->cut_offset = 0;
	p->cut_len = 0;
	p->junk_pending = 0;
	p->junk_stream = 0;
	p->junk_offset = 0;
	p->junk_len = 0;
	p->tap_offset = 0;
	p->tap_len = 0;
	p->tap_data = 0;
#define RX_ZERO(name) p->st.name = 0;
	RX_STATS(RX_ZERO)
#undef RX_ZERO
	for (i = 0; i < RX_MAX_STREAMS; i++)
		stream_stats_clear(&p->sst[i]);
	for (i = 0; i < RX_MAX_UDP; i++)
		p->udp_off[i] = 0;
	for (i = 0; i < MTOE_MAX_CONNS; i++) {
		p->conn_flow[i] = 0;
		p->sess_no[i] = 0;
		p->sess_told[i] = 0;
	}
	for (i = 0; i < RX_MAX_GROUPS * SEQ_MAX_LINES; i++)
		p->line_sid[i / SEQ_MAX_LINES][i % SEQ_MAX_LINES] = 0;
	for (i = 0; i < RX_MAX_STREAMS; i++)
		seq_msg_init(&p->msg[i]);
}

/* How much longer an arbitration hole waits for a line holding bytes behind
 * a byte hole (held_conn): twice the byte hole's timeout, none without one. */
static uint64_t held_wait_ns(uint64_t gap_timeout_ns)
{
	return gap_timeout_ns > UINT64_MAX / 2 ? UINT64_MAX : 2 * gap_timeout_ns;
}

/* RX_CFG_SEQ: check cfg->seq, resolve the keys, size each group by its
 * highest line, and let every stream report its messages. */
static int init_seq(struct rx_pipe *p, const struct rx_cfg *cfg)
{
	const struct rx_seq_cfg *sc = &cfg->seq;
	uint32_t nl[RX_MAX_GROUPS];
	uint32_t i;
	if (!(cfg->flags & RX_CFG_SEQ))
		return RX_OK;
	if (sc->ngroups == 0 || sc->ngroups > RX_MAX_GROUPS || sc->nfields > SEQ_MAX_FIELDS)
		return RX_ERR_SEQ;
	for (i = 0; i < RX_MAX_GROUPS; i++)
		nl[i] = 1;
	for (i = 0; i < MTOE_MAX_FLOWS + RX_MAX_UDP; i++) {
		uint32_t g, l;
		if (i < MTOE_MAX_FLOWS) {
			if (i >= cfg->mtoe.nflows)
				continue;
			g = sc->flow_group[i];
			l = sc->flow_line[i];
		} else {
			if (i - MTOE_MAX_FLOWS >= cfg->nudp)
				break;
			g = sc->udp_group[i - MTOE_MAX_FLOWS];
			l = sc->udp_line[i - MTOE_MAX_FLOWS];
		}
		if (g >= sc->ngroups || l >= SEQ_MAX_LINES)
			return RX_ERR_SEQ;
		if (l + 1 > nl[g])
			nl[g] = l + 1;
	}
	seq_keys_resolve(&p->keys, p->prog, sc->fields, sc->nfields);
	for (i = 0; i < RX_MAX_GROUPS; i++) {
		seq_group_init(&p->grp[i], i, nl[i], sc->wait_ns);
		p->grp[i].held_ns = held_wait_ns(cfg->mtoe.gap_timeout_ns);
	}
	for (i = 0; i < RX_MAX_STREAMS; i++) {
		if (i >= p->nstreams)
			break;
		p->fs[i].msg_events = 1;
	}
	return RX_OK;
}

/* Check the stream counts and initialise fs[0 .. RX_NSTREAMS(cfg)). */
static int init_streams(struct rx_pipe *p, const struct rx_cfg *cfg, struct fast_stream *fs, uint32_t nfs)
{
	uint32_t i, ns;
	if (cfg->nudp > RX_MAX_UDP)
		return RX_ERR_UDP;
	if (cfg->mtoe.max_conns > MTOE_MAX_CONNS)
		return RX_ERR_STREAMS;
	ns = RX_NSTREAMS(cfg);
	if (fs == 0 || nfs < ns)
		return RX_ERR_STREAMS;
	for (i = 0; i < RX_MAX_STREAMS; i++) {
		int framing = FAST_FRAMING_STEP;
		if (i >= ns)
			break;
		if (i >= cfg->mtoe.max_conns && cfg->udp[i - cfg->mtoe.max_conns].framing == FAST_FRAMING_DATAGRAM)
			framing = FAST_FRAMING_DATAGRAM;
		fast_stream_init(&fs[i], p->prog, framing);
		/* a session stream: every message, to find those without FAST data */
		if (i < cfg->mtoe.max_conns && i < MTOE_MAX_CONNS && cfg->sess[i])
			fs[i].msg_events = 1;
	}
	p->nstreams = ns;
	return RX_OK;
}

int rx_init(struct rx_pipe *p, const struct rx_cfg *cfg, const struct fast_prog *prog, struct fast_stream *fs,
	    uint32_t nfs, uint8_t *mtoe_buf, uint64_t buf_len)
{
	uint32_t i, j;
	int rc;

	init_common(p, cfg, prog, fs);
	net_stats_init(&p->net);
	net_udp_init(&p->udp);

	rc = mtoe_init(&p->mtoe, &cfg->mtoe, mtoe_buf, buf_len);
	if (rc != MTOE_OK)
		return rc;
	p->mirror = 1;
	if (cfg->nudp > RX_MAX_UDP)
		return RX_ERR_UDP;
	for (i = 0; i < RX_MAX_UDP; i++) {
		if (i >= cfg->nudp)
			break;
		for (j = 0; j < RX_MAX_UDP; j++) {
			if (j >= i)
				break;
			if (cfg->udp[j].port == cfg->udp[i].port && cfg->udp[j].in_port == cfg->udp[i].in_port)
				return RX_ERR_UDP;
		}
	}
	rc = init_streams(p, cfg, fs, nfs);
	if (rc != RX_OK)
		return rc;
	rc = init_seq(p, cfg);
	if (rc != RX_OK)
		return rc;
	for (i = 0; i < RX_MAX_UDP; i++) {
		if (i >= cfg->nudp)
			break;
		net_udp_listen(&p->udp, cfg->udp[i].port, (uint16_t)i);
	}
	return RX_OK;
}

int rx_init_decode(struct rx_pipe *p, const struct rx_cfg *cfg, const struct fast_prog *prog,
		   struct fast_stream *fs, uint32_t nfs)
{
	int rc;
	init_common(p, cfg, prog, fs);
	p->mirror = 0;
	rc = init_streams(p, cfg, fs, nfs);
	if (rc != RX_OK)
		return rc;
	return init_seq(p, cfg);
}

/* ---- entries ---------------------------------------------------------- */

static void stream_line(const struct rx_pipe *p, uint32_t sid, uint32_t *g, uint32_t *line);

/* Every field of an entry but its tick record. */
static void out_head(struct rx_out *out, uint8_t kind, uint32_t sid)
{
	out->kind = kind;
	out->reason = 0;
	out->stream = (uint16_t)sid;
	out->tick_type = TOE_REC_NONE;
	out->msg_seq = 0;
	out->offset = 0;
	out->len = 0;
	out->rec = 0;
	out->data = 0;
}

static void out_clear(struct rx_out *out, uint8_t kind, uint32_t sid, uint64_t rx_ns)
{
	uint32_t i;
	out_head(out, kind, sid);
	/* the whole record: every byte a client may read is defined */
	for (i = 0; i < TOE_RECORD_SIZE; i++)
		out->tick.bytes[i] = 0;
	out->tick.hdr.type = TOE_REC_NONE;
	out->tick.hdr.stream = (uint16_t)sid;
	out->tick.hdr.rx_ns = rx_ns;
}

/* With sequence tracking every entry says its group and line, byte gaps and
 * decode gaps included (the sequence events set their own afterwards). */
static void out_line(const struct rx_pipe *p, struct rx_out *out, uint32_t sid)
{
	uint32_t g, line;
	if (!(p->cfg.flags & RX_CFG_SEQ))
		return;
	stream_line(p, sid, &g, &line);
	out->tick.hdr.group = (uint8_t)(g + 1);
	out->tick.hdr.line = (uint8_t)line;
}

static void out_gap(struct rx_pipe *p, struct rx_out *out, uint32_t sid, uint64_t off, uint64_t len,
		    uint32_t reason, uint32_t detail)
{
	out_clear(out, RX_OUT_GAP, sid, p->now);
	out_line(p, out, sid);
	out->offset = off;
	out->len = len;
	out->tick.hdr.type = TOE_REC_GAP;
	out->tick.gap.offset = off;
	out->tick.gap.length = len;
	out->tick.gap.reason = reason;
	out->tick.gap.detail = detail;
	out->tick.gap.records = 0;
	p->st.gaps++;
	p->st.gap_bytes += len;
	if (reason == TOE_GAP_TIMEOUT)
		p->st.gaps_timeout++;
	else if (reason == TOE_GAP_WINDOW)
		p->st.gaps_window++;
	else if (reason == TOE_GAP_DECODE)
		p->st.gaps_decode++;
	else if (reason == TOE_GAP_ACKED)
		p->st.gaps_acked++;
	else if (reason == TOE_GAP_CLOSED)
		p->st.gaps_closed++;
	if (sid < RX_MAX_STREAMS) {
		p->sst[sid].gaps++;
		p->sst[sid].gap_bytes += len;
	}
}

/* The byte range a deframer/decoder error lost (see rx_pipe.h). */
static void decode_range(const struct fast_stream *fs, uint64_t *off, uint64_t *len)
{
	uint64_t o, end;
	if (fs->err == STEP_E_GARBAGE) {
		/* reported when the "8=STEP" ending the run is matched: msg_start is its '8' */
		o = fs->err_offset;
		end = fs->step.msg_start;
	} else if (fs->err >= STEP_E_GARBAGE) {
		o = fs->step.msg_start;
		end = fs->err_offset + 1;
	} else if (fs->framing == FAST_FRAMING_DATAGRAM) {
		o = fs->err_offset;
		end = o + fs->data_len;
	} else {
		o = fs->err_offset;
		end = o + fs->step.msg.len;
	}
	*off = o;
	*len = end > o ? end - o : 0;
}

/* ---- sequence tracking (RX_CFG_SEQ) ----------------------------------- */

/* The group (0-based) and line of stream sid. */
static void stream_line(const struct rx_pipe *p, uint32_t sid, uint32_t *g, uint32_t *line)
{
	uint32_t gi = 0, li = 0;
	if (sid < p->cfg.mtoe.max_conns) {
		uint32_t f = p->conn_flow[sid < MTOE_MAX_CONNS ? sid : 0];
		if (f < MTOE_MAX_FLOWS) {
			gi = p->cfg.seq.flow_group[f];
			li = p->cfg.seq.flow_line[f];
		}
	} else if (sid - p->cfg.mtoe.max_conns < RX_MAX_UDP) {
		gi = p->cfg.seq.udp_group[sid - p->cfg.mtoe.max_conns];
		li = p->cfg.seq.udp_line[sid - p->cfg.mtoe.max_conns];
	}
	/* init_seq checked the configured ones; a stream of no flow falls back to group 0 line 0 */
	*g = gi < RX_MAX_GROUPS ? gi : 0;
	*line = li < SEQ_MAX_LINES ? li : 0;
}

/* Mirrored connection ci's reassembly holds bytes behind a missing segment,
 * or no longer: its line's bit in its arbitration group's held_lines. While
 * a line holds, the group's holes it has not passed wait twice the byte
 * hole's timeout more: the records they lack may be among those bytes
 * (seq_track.h, Choices). Two connections of one line at once (a
 * reconnect) may leave the bit stale until the next poll's held_all. */
static void held_conn(struct rx_pipe *p, int32_t ci)
{
	uint32_t g, line, bit;
	if (ci < 0 || (uint32_t)ci >= p->cfg.mtoe.max_conns || (uint32_t)ci >= MTOE_MAX_CONNS)
		return;
	stream_line(p, (uint32_t)ci, &g, &line);
	if (p->grp[g].nlines < 2)
		return;
	bit = 1u << line;
	if (p->mtoe.conn[ci].nranges != 0)
		p->grp[g].held_lines |= (uint8_t)bit;
	else
		p->grp[g].held_lines &= (uint8_t)~bit;
}

/* Every group's held_lines from the connections, and its held_ns from the
 * configuration (after the timers). */
static void held_all(struct rx_pipe *p)
{
	uint32_t g, ci;
	for (g = 0; g < RX_MAX_GROUPS; g++) {
		p->grp[g].held_lines = 0;
		p->grp[g].held_ns = held_wait_ns(p->mtoe.cfg.gap_timeout_ns); /* (live on reload) */
	}
	for (ci = 0; ci < MTOE_MAX_CONNS; ci++)
		if (ci < p->cfg.mtoe.max_conns && p->mtoe.conn[ci].nranges != 0)
			held_conn(p, (int32_t)ci);
}

/* A RESET entry of sequence tracking. */
static void out_reset(struct rx_pipe *p, struct rx_out *out, uint32_t sid, uint32_t reason, uint32_t chan,
		      uint64_t last)
{
	out_clear(out, RX_OUT_RESET, sid, p->now);
	out->reason = (uint8_t)reason;
	out->tick.hdr.type = TOE_REC_RESET;
	out->tick.reset.reason = reason;
	out->tick.reset.channel = chan;
	out->tick.reset.last = last;
	p->st.resets++;
	if (sid < RX_MAX_STREAMS)
		p->sst[sid].resets++;
}

/* The next queued sequence event as an entry; 0 when none. */
static int seq_entry(struct rx_pipe *p, struct rx_out *out)
{
	struct seq_ev e;
	uint32_t sid;
	if (!seq_queue_pop(&p->sq, &e))
		return 0;
	sid = p->line_sid[e.group % RX_MAX_GROUPS][e.line % SEQ_MAX_LINES];
	if (e.kind == SEQ_EV_GAP) {
		out_gap(p, out, sid, 0, 0, TOE_GAP_SEQUENCE, 0);
		out->tick.gap.first = e.first;
		out->tick.gap.last = e.last;
		out->tick.gap.channel = e.chan;
		out->tick.gap.records = e.last - e.first + 1;
		p->st.seq_gaps++;
		p->st.seq_missing += e.last - e.first + 1;
	} else {
		out_reset(p, out, sid, TOE_RESET_RESTART, e.chan, e.last);
		p->st.seq_restarts++;
	}
	out->tick.hdr.group = (uint8_t)(e.group + 1);
	out->tick.hdr.line = e.line;
	return 1;
}

/* A decoded record of stream sid through its group (its tick record in
 * *tick, its value array rec, or 0 when the CPU decoder made it without
 * one): 0 when it is dropped (a copy), else 1 with the tick's group, line
 * and late flag set. Events it brought (a gap before it) are queued in
 * p->sq: they go out before it (seq_record, rx_ticks). */
static int seq_verdict(struct rx_pipe *p, uint32_t sid, const struct fast_rec *rec, union toe_record *tick)
{
	uint32_t g, line, chan = 0;
	uint64_t s = 0;
	int late = 0, v;
	stream_line(p, sid, &g, &line);
	tick->hdr.group = (uint8_t)(g + 1);
	tick->hdr.line = (uint8_t)line;
#ifdef TOE_CPU_DECODER
	/* a fast-path record has no value array: its key is in its tick (fx_ok) */
	if (rec && p->fastx && p->fx_keyed == p->fastx && rec->tpl < FAST_MAX_TEMPLATES && p->fastx->kref[rec->tpl])
		p->st.seq_key_fallback++; /* the fast decoder's fallback, for this key */
	if (!rec ? !fastx_key(p->fastx, &chan, &s) : !seq_key(&p->keys, rec, &chan, &s)) {
#else
	if (!seq_key(&p->keys, rec, &chan, &s)) {
#endif
		p->st.seq_unkeyed++;
		return 1;
	}
	p->st.seq_records++;
	p->line_sid[g][line] = (uint16_t)sid;
	/* streams from max_conns on are UDP ports, whose datagrams may come reordered (stream_line) */
	v = seq_check(&p->grp[g], &p->sq, line, chan, s, p->now_rx, sid >= p->cfg.mtoe.max_conns, &late);
	if (v != SEQ_DELIVER) {
		if (v == SEQ_DUP)
			p->st.seq_dups++;
		else
			p->st.seq_stale++;
		p->sst[sid].seq_dups++;
		return 0;
	}
	p->sst[sid].seq_won++;
	if (late) {
		tick->hdr.flags |= TOE_RF_LATE;
		p->st.seq_late++;
	}
	return 1;
}

/* seq_verdict for a record entry: 0 when it is dropped. When it brought
 * events, the first is returned in *out and the record waits in held_out. */
static int seq_record(struct rx_pipe *p, uint32_t sid, struct rx_out *out)
{
	if (!seq_verdict(p, sid, out->rec, &out->tick))
		return 0;
	if (seq_queue_len(&p->sq)) {
		p->held_out = *out;
		p->held = 1;
		seq_entry(p, out);
	}
	return 1;
}

/* A TOE_GAP_MSG_SEQ entry of stream sid: messages [first, last] never came
 * (msg_seq: the message that showed it, or the last one seen). */
static void msg_gap(struct rx_pipe *p, struct rx_out *out, uint32_t sid, uint64_t first, uint64_t last,
		    uint64_t msg_seq)
{
	struct rx_stream_stats *ss = &p->sst[sid];
	uint32_t g, line;
	out_gap(p, out, sid, 0, 0, TOE_GAP_MSG_SEQ, 0);
	out->tick.gap.first = first;
	out->tick.gap.last = last;
	out->tick.hdr.msg_seq = msg_seq;
	out->msg_seq = msg_seq;
	p->st.msg_jumps++;
	p->st.msg_missing += last - first + 1;
	ss->msg_jumps++;
	ss->msg_missing += last - first + 1;
	stream_line(p, sid, &g, &line);
	out->tick.hdr.group = (uint8_t)(g + 1);
	out->tick.hdr.line = (uint8_t)line;
}

/* A message of stream sid was deframed: its MsgSeqNum; 1 with an entry.
 * Streams from max_conns on are UDP ports: their jumps wait for reordered
 * datagrams (msg_expire reports what none filled). */
static int msg_check(struct rx_pipe *p, uint32_t sid, struct rx_out *out)
{
	const struct fast_stream *fs = &p->fs[sid];
	struct rx_stream_stats *ss = &p->sst[sid];
	struct seq_msg *m = &p->msg[sid];
	uint64_t first = 0, last = 0, late = m->late;
	uint32_t g, line;
	int r = seq_msg_check(m, fs->msg_seq, p->now_rx, sid >= p->cfg.mtoe.max_conns, &first, &last);
	p->st.msg_late += m->late - late;
	ss->msg_late += m->late - late;
	if (r == SEQ_MSG_REPEAT) {
		p->st.msg_repeats++;
		ss->msg_repeats++;
		return 0;
	}
	if (r == SEQ_MSG_OK || r == SEQ_MSG_LATE)
		return 0;
	if (r == SEQ_MSG_JUMP) {
		msg_gap(p, out, sid, first, last, fs->msg_seq);
		return 1;
	}
	/* a new logon: the line's channels may start again at 1 */
	stream_line(p, sid, &g, &line);
	seq_line_session(&p->grp[g], line);
	out_reset(p, out, sid, TOE_RESET_RESTART, TOE_CHANNEL_NONE, last);
	out->tick.hdr.msg_seq = fs->msg_seq;
	out->msg_seq = fs->msg_seq;
	p->st.msg_restarts++;
	ss->msg_restarts++;
	out->tick.hdr.group = (uint8_t)(g + 1);
	out->tick.hdr.line = (uint8_t)line;
	return 1;
}

/* A poll: the next MsgSeqNum hole of a UDP stream whose wait ran out with
 * nothing filling it, as its TOE_GAP_MSG_SEQ entry (1), or 0. */
static int msg_expire(struct rx_pipe *p, struct rx_out *out)
{
	uint32_t k, sid, g, line;
	uint64_t first, last;
	for (k = 0; k < RX_MAX_UDP; k++) {
		if (k >= p->cfg.nudp)
			break;
		sid = p->cfg.mtoe.max_conns + k;
		if (sid >= p->nstreams || p->msg[sid].nholes == 0)
			continue;
		stream_line(p, sid, &g, &line);
		if (seq_msg_expire(&p->msg[sid], p->now_poll, p->grp[g].wait_ns, &first, &last)) {
			msg_gap(p, out, sid, first, last, p->msg[sid].next - 1);
			return 1;
		}
	}
	return 0;
}

/* Calls of fast_stream_next one stream_next may make without an entry
 * (dropped copies, messages without news): every one consumes at least one
 * byte of what was fed, a frame's payload or a connection's window. */
#define RX_STREAM_ITERS (MTOE_MAX_WINDOW + NET_MAX_FRAME + 2u)

#ifdef TOE_CPU_DECODER
/* Whether the CPU decoder may decode: it is set and tick records are wanted.
 * With RX_CFG_SEQ its keys are set first (fastx_keys_set, redone when the
 * decoder or the keys changed: rx_init clears fx_keyed, fastx_dec_init
 * clears keys_for): a template whose key is not readable from its tick
 * record goes to the reference record by record (seq_key_fallback). */
static int fx_ok(struct rx_pipe *p)
{
	if (p->fastx == 0 || (p->cfg.flags & RX_CFG_NO_TICK))
		return 0;
	if (!(p->cfg.flags & RX_CFG_SEQ))
		return 1;
	if (p->fx_keyed != p->fastx || p->fastx->keys_for != (const void *)p) {
		fastx_keys_set(p->fastx, p->keys.chan, p->keys.seq);
		p->fastx->keys_for = p;
		p->fx_keyed = p->fastx;
	}
	return 1;
}
#endif

/* A decoded record of stream sid as a tick record in *tick (every byte
 * written), with the record counters; returns its tick type (fast_tick_map's
 * result: > 0 mapped, TOE_REC_NONE unmapped or RX_CFG_NO_TICK). fx: the CPU
 * decoder made it (its tick is copied, already built). */
static inline int record_tick(struct rx_pipe *p, uint32_t sid, struct fast_stream *fs, int fx,
			      union toe_record *tick)
{
	struct rx_stream_stats *ss = &p->sst[sid];
	int t = TOE_REC_NONE;
	uint32_t warn = fs->rec.warn, i;
#ifdef TOE_CPU_DECODER
	if (fx && p->fastx->tick_type > 0) {
		/* the decoder's tick overwrites every byte: no clearing first;
		 * rx_ticks had it decoded in place (dst), nothing to copy */
		if (p->fastx->dst != tick)
			*tick = *p->fastx->dst;
	} else
#else
	(void)fx;
#endif
	{
		/* the whole record: every byte a client may read is defined */
		for (i = 0; i < TOE_RECORD_SIZE; i++)
			tick->bytes[i] = 0;
		tick->hdr.type = TOE_REC_NONE;
		tick->hdr.stream = (uint16_t)sid;
		tick->hdr.rx_ns = p->now;
	}
#ifdef TOE_CPU_DECODER
	if (fx) {
		t = p->fastx->tick_type;
		warn = p->fastx->warn;
	} else
#endif
	if (!(p->cfg.flags & RX_CFG_NO_TICK))
		t = fast_tick_map(p->prog, &fs->rec, fs->msg_seq, tick);
	if (!(p->cfg.flags & RX_CFG_NO_TICK)) {
		if (t > 0) {
			tick->hdr.stream = (uint16_t)sid;
			tick->hdr.seq = 0;
			tick->hdr.rx_ns = p->now;
			if (tick->hdr.flags & TOE_RF_RANGE) {
				p->st.tick_range++;
				ss->tick_range++;
			}
		} else {
			p->st.tick_unmapped++;
			ss->tick_unmapped++;
		}
	}
	if (warn) {
		p->st.warnings++;
		ss->warnings++;
	}
	p->st.records++;
	ss->records++;
	return t;
}

/* The value array of the record just decoded: none (0) when the CPU decoder
 * made its tick without one. */
static const struct fast_rec *record_values(const struct rx_pipe *p, const struct fast_stream *fs, int fx)
{
#ifdef TOE_CPU_DECODER
	if (fx && !p->fastx->used_fallback)
		return 0;
#else
	(void)p;
	(void)fx;
#endif
	return &fs->rec;
}

/* The fields of a RECORD entry besides its head and tick record. */
static void record_fields(struct rx_pipe *p, const struct fast_stream *fs, int fx, int t, struct rx_out *out)
{
	out->msg_seq = fs->msg_seq;
	out->offset = fs->data_offset;
	out->rec = record_values(p, fs, fx);
	out->tick_type = t;
}

/* Whether TCP stream sid carries a session whose messages the caller wants (cfg.sess). */
static int sess_stream(const struct rx_pipe *p, uint32_t sid)
{
	return sid < p->cfg.mtoe.max_conns && sid < MTOE_MAX_CONNS && p->cfg.sess[sid] != 0;
}

/* The pending session entry (p->sess_pend) into *out. */
static int sess_entry(struct rx_pipe *p, struct rx_out *out)
{
	const struct fast_stream *fs = &p->fs[p->sess_sid];
	struct toe_card_sess *cs = (struct toe_card_sess *)out->tick.bytes;
	uint32_t i;
	out_clear(out, RX_OUT_SESS, p->sess_sid, p->now);
	out->reason = p->sess_pend;
	/* the record's fixed fields; rx_sess_record adds the pieces */
	cs->hdr.type = TOE_REC_CARD_SESS;
	cs->kind = TOE_CSESS_CLOSE;
	if (p->sess_pend == RX_SESS_SEEN) {
		/* header only, no record number: the host's session counts the MsgSeqNum */
		out->msg_seq = fs->msg_seq;
		out->offset = fs->data_offset;
		cs->hdr.msg_seq = fs->msg_seq;
		cs->kind = TOE_CSESS_SEEN;
		p->sess_pend = 0;
		return 1;
	}
	if (p->sess_pend == RX_SESS_MSG) {
		out->data = fs->step.msg.raw;
		out->len = fs->step.msg.len;
		out->msg_seq = fs->step.msg.seq;
		out->offset = fs->step.msg.offset;
		cs->hdr.msg_seq = fs->step.msg.seq;
		cs->kind = TOE_CSESS_PIECE;
		cs->msg_len = fs->step.msg.len;
		for (i = 0; i < sizeof cs->msgtype - 1; i++) {
			if (fs->step.msg.msgtype[i] == 0)
				break;
			cs->msgtype[i] = fs->step.msg.msgtype[i];
		}
	}
	p->sess_no[p->sess_sid]++;
	cs->msg_no = p->sess_no[p->sess_sid];
	p->sess_pend = 0;
	return 1;
}

/* A message of stream sid: its MsgSeqNum check (RX_CFG_SEQ) and, on a
 * session stream, the message itself when it has no FAST data. */
static int stream_msg(struct rx_pipe *p, uint32_t sid, const struct fast_stream *fs, struct rx_out *out)
{
	if (sess_stream(p, sid)) {
		p->sess_told[sid] = 0; /* a new message: the host has not heard of it */
		if (fs->step.msg.raw != 0 && fs->step.msg.data_len == 0) {
			p->sess_pend = RX_SESS_MSG;
			p->sess_sid = sid;
		}
	}
	/* the check's entry first; the message's follows at the next rx_drain */
	if ((p->cfg.flags & RX_CFG_SEQ) && msg_check(p, sid, out))
		return 1;
	if (p->sess_pend)
		return sess_entry(p, out);
	return 0;
}

/* A record of session stream sid went out as a tick entry (shown) or not:
 * when none of its message has, the message's RX_SESS_SEEN entry comes next. */
static void sess_record(struct rx_pipe *p, uint32_t sid, int shown)
{
	if (p->sess_told[sid])
		return;
	p->sess_told[sid] = 1;
	if (!shown) {
		p->sess_pend = RX_SESS_SEEN;
		p->sess_sid = sid;
	}
}

/* One decoder event ev of stream sid: 1 with an entry in *out, 0 to go on
 * pulling, -1 when the stream needs input. */
static int stream_event(struct rx_pipe *p, uint32_t sid, struct fast_stream *fs, int fx, int ev,
			struct rx_out *out)
{
	if (ev == FS_MESSAGE)
		return stream_msg(p, sid, fs, out);
	if (ev == FS_RECORD) {
		int t;
		out_head(out, RX_OUT_RECORD, sid);
		t = record_tick(p, sid, fs, fx, &out->tick);
		record_fields(p, fs, fx, t, out);
		if ((p->cfg.flags & RX_CFG_SEQ) && !seq_record(p, sid, out)) {
			/* dropped; holes its channel declared on the way still go out */
			if (sess_stream(p, sid))
				sess_record(p, sid, 0);
			if (seq_entry(p, out))
				return 1; /* the RX_SESS_SEEN entry, if any, at the next rx_drain */
			return p->sess_pend ? sess_entry(p, out) : 0;
		}
		if (sess_stream(p, sid))
			sess_record(p, sid, t > 0); /* an RX_SESS_SEEN entry after this one */
		return 1;
	}
	if (ev == FS_ERROR) {
		uint64_t off, len;
		decode_range(fs, &off, &len);
		p->sst[sid].decode_errors++;
		out_gap(p, out, sid, off, len, TOE_GAP_DECODE, (uint32_t)fs->err);
		return 1;
	}
	return -1;
}

/* The next event of stream sid's decoder. */
static int decoder_next(struct rx_pipe *p, struct fast_stream *fs, int fx)
{
#ifdef TOE_CPU_DECODER
	if (fx) {
		p->fastx->scratch = &fs->rec; /* the fallback's value array */
		return fastx_stream_next(p->fastx, fs);
	}
#else
	(void)p;
	(void)fx;
#endif
	return fast_stream_next(fs);
}

/* Whether records are decoded by the CPU decoder (host builds with p->fastx set). */
static int use_fx(struct rx_pipe *p)
{
#ifdef TOE_CPU_DECODER
	return fx_ok(p);
#else
	(void)p;
	return 0;
#endif
}

/* Pull one entry out of stream sid's fast_stream; 0 when it needs input. */
static int stream_next(struct rx_pipe *p, uint32_t sid, struct rx_out *out)
{
	struct fast_stream *fs = &p->fs[sid];
	const int fx = use_fx(p);
	uint32_t it;
	for (it = 0; it < RX_STREAM_ITERS; it++) {
		int r = stream_event(p, sid, fs, fx, decoder_next(p, fs, fx), out);
		if (r > 0)
			return 1;
		if (r < 0)
			return 0;
	}
	return 0;
}

/* Hand stream bytes at stream offset `offset` to stream sid's deframer; it
 * is drained (after the DATA entry, with RX_CFG_TAP_DATA) before anything else. */
static void feed(struct rx_pipe *p, uint32_t sid, const uint8_t *data, uint32_t len, uint64_t offset)
{
	fast_stream_feed(&p->fs[sid], data, len);
	p->active = (int32_t)sid;
	p->st.bytes += len;
	p->sst[sid].bytes += len;
	p->tap_pending = (p->cfg.flags & RX_CFG_TAP_DATA) ? 1 : 0;
	p->tap_offset = offset;
	p->tap_len = len;
	p->tap_data = data;
}

/* A mirror TOE event's stream: 1 when sid is a TCP stream, else counted. */
static int tcp_stream(struct rx_pipe *p, uint32_t sid)
{
	if (sid < p->cfg.mtoe.max_conns && sid < p->nstreams)
		return 1;
	p->st.bad_stream++;
	return 0;
}

/* Apply one mirror TOE event; 1 when it produced an entry. */
static int event(struct rx_pipe *p, const struct mtoe_event *e, struct rx_out *out)
{
	uint32_t sid = e->conn;
	struct fast_stream *fs;
	if (!tcp_stream(p, sid))
		return 0;
	fs = &p->fs[sid];
	p->conn_flow[sid] = e->flow;
	switch (e->type) {
	case MTOE_EV_OPEN:
		fast_stream_restart(fs, 0);
		p->st.opens++;
		p->st.resets++;
		p->sst[sid].resets++;
		out_clear(out, RX_OUT_RESET, sid, p->now);
		out->reason = e->reason;
		out->tick.hdr.type = TOE_REC_RESET;
		out->tick.reset.reason = e->reason; /* the mtoe_open_reason values are the ABI's */
		if (p->cfg.flags & RX_CFG_SEQ) {
			uint32_t g, line;
			/* a new connection numbers its messages afresh, and its line's
			 * next 1 on a channel is a restart of that channel */
			seq_msg_init(&p->msg[sid]);
			stream_line(p, sid, &g, &line);
			seq_line_session(&p->grp[g], line);
			out->tick.hdr.group = (uint8_t)(g + 1);
			out->tick.hdr.line = (uint8_t)line;
		}
		return 1;
	case MTOE_EV_DATA:
		p->st.data_events++;
		if (e->data)
			feed(p, sid, e->data, (uint32_t)e->len, e->offset);
		return 0;
	case MTOE_EV_GAP:
		fast_stream_restart(fs, e->offset + e->len);
		out_gap(p, out, sid, e->offset, e->len, e->reason, 0);
		return 1;
	case MTOE_EV_CLOSE:
		p->st.closes++;
		p->sst[sid].closes++;
		if (sess_stream(p, sid)) {
			/* after the line's reset below, if any */
			p->sess_pend = RX_SESS_CLOSE;
			p->sess_sid = sid;
		}
		if (p->cfg.flags & RX_CFG_SEQ) {
			uint32_t g, line;
			stream_line(p, sid, &g, &line);
			if (p->grp[g].nlines > 1) {
				/* clients of an arbitration group see a line go; the group goes on */
				out_reset(p, out, sid, TOE_RESET_ARB_SWITCH, 0, 0);
				out->tick.hdr.group = (uint8_t)(g + 1);
				out->tick.hdr.line = (uint8_t)line;
				p->st.line_downs++;
				return 1;
			}
		}
		if (p->sess_pend)
			return sess_entry(p, out);
		return 0;
	default:
		return 0;
	}
}

/* Whether "8=STEP" starts anywhere in d[0..n). */
static int has_step_start(const uint8_t *d, uint32_t n)
{
	uint32_t i;
	for (i = 0; i < 65536; i++) {
		if (i + 6 > n)
			return 0;
		if (d[i] == '8' && d[i + 1] == '=' && d[i + 2] == 'S' && d[i + 3] == 'T' && d[i + 4] == 'E' &&
		    d[i + 5] == 'P')
			return 1;
	}
	return 0;
}

/* A listened datagram of port cfg.udp[idx]; 0 for a bad index (counted). */
static int datagram(struct rx_pipe *p, uint32_t idx, const uint8_t *data, uint32_t len)
{
	uint32_t sid;
	struct fast_stream *fs;
	if (idx >= p->cfg.nudp || idx >= RX_MAX_UDP) {
		p->st.bad_stream++;
		return 0;
	}
	sid = p->cfg.mtoe.max_conns + idx;
	fs = &p->fs[sid];
	p->st.udp_listened++;
	p->sst[sid].datagrams++;
	if (fs->framing == FAST_FRAMING_STEP) {
		/* whole messages per datagram: anything left over was cut short */
		uint64_t before = fs->step.skipped, dropped;
		fast_stream_restart(fs, p->udp_off[idx]);
		dropped = fs->step.skipped - before;
		if (dropped) {
			p->cut_pending = 1;
			p->cut_stream = sid;
			p->cut_offset = p->udp_off[idx] - dropped;
			p->cut_len = dropped;
		}
		if (len > 0 && !has_step_start(data, len)) {
			/* nothing in it can start a message: the whole datagram is lost,
			 * and the deframer would only count it as skipped bytes */
			p->junk_pending = 1;
			p->junk_stream = sid;
			p->junk_offset = p->udp_off[idx];
			p->junk_len = len;
			p->udp_off[idx] += len;
			return 1;
		}
	}
	feed(p, sid, data, len, p->udp_off[idx]);
	p->udp_off[idx] += len;
	return 1;
}

int rx_drain(struct rx_pipe *p, struct rx_out *out)
{
	uint32_t it;
	for (it = 0; it < RX_DRAIN_ITERS; it++) {
		if (p->cut_pending) {
			p->cut_pending = 0;
			p->sst[p->cut_stream].decode_errors++;
			out_gap(p, out, p->cut_stream, p->cut_offset, p->cut_len, TOE_GAP_DECODE,
				STEP_E_BAD_LENGTH);
			return 1;
		}
		if (p->junk_pending) {
			p->junk_pending = 0;
			p->sst[p->junk_stream].decode_errors++;
			out_gap(p, out, p->junk_stream, p->junk_offset, p->junk_len, TOE_GAP_DECODE, STEP_E_GARBAGE);
			return 1;
		}
		if (p->tap_pending) {
			p->tap_pending = 0;
			out_clear(out, RX_OUT_DATA, (uint32_t)p->active, p->now);
			out->offset = p->tap_offset;
			out->len = p->tap_len;
			out->data = p->tap_data;
			return 1;
		}
		/* a record's sequence events, then the record they preceded
		 * (the length test first: no call per record when none wait) */
		if (seq_queue_len(&p->sq) != 0 && seq_entry(p, out))
			return 1;
		if (p->held) {
			p->held = 0;
			*out = p->held_out;
			return 1;
		}
		if (p->sess_pend)
			return sess_entry(p, out);
		if (p->seq_polling) {
			uint32_t g;
			p->seq_polling = 0;
			for (g = 0; g < RX_MAX_GROUPS; g++)
				if (seq_poll(&p->grp[g], &p->sq, p->now_poll))
					p->seq_polling = 1;
			if (msg_expire(p, out)) {
				p->seq_polling = 1; /* one a call: look again */
				return 1;
			}
			if (seq_entry(p, out))
				return 1;
		}
		if (p->active >= 0) {
			if (stream_next(p, (uint32_t)p->active, out))
				return 1;
			p->active = -1;
		}
		if (p->ev_pos >= p->nev)
			return 0;
		p->ev_pos++;
		if (event(p, &p->ev[p->ev_pos - 1], out))
			return 1;
	}
	return 0;
}

int rx_next(struct rx_pipe *p, struct rx_out *out)
{
	uint32_t b;
	for (b = 0; b < RX_POLL_BATCHES; b++) {
		if (rx_drain(p, out))
			return 1;
		if (!p->polling)
			return 0;
		p->nev = mtoe_poll(&p->mtoe, p->now_poll, p->ev, MTOE_SEG_EVENTS);
		p->ev_pos = 0;
		if (p->nev == 0) {
			p->polling = 0;
			if (!(p->cfg.flags & RX_CFG_SEQ))
				return 0;
			held_all(p); /* the timers may have closed byte holes */
			/* the holes' wait is checked once the timers' events are
			 * out, not before: bytes a byte hole's timeout released
			 * may fill a hole (records that came before the poll, held
			 * behind the byte hole), or open one, which the
			 * end-of-capture poll (UINT64_MAX) would otherwise leave
			 * open, a loss never reported */
			p->seq_polling = 1;
			return rx_drain(p, out);
		}
	}
	return 0;
}

#ifdef TOE_CPU_DECODER
/* rx_ticks' run of plain records from the CPU decoder (host only): each
 * decoded straight into recs[n], its head and counters as record_tick
 * leaves them for a mapped record (the counters added once for the run).
 * Stops at cap, or at the first event that is not a mapped record, left in
 * *pend (its decoder output in recs[n]) for rx_ticks' loop. */
static uint32_t fx_ticks(struct rx_pipe *p, uint32_t sid, struct fast_stream *fs, union toe_record *recs,
			 uint32_t cap, int *pend)
{
	struct fastx_dec *x = p->fastx;
	struct rx_stream_stats *ss = &p->sst[sid];
	const uint64_t now = p->now;
	uint32_t n, range = 0, warn, i;
	x->scratch = &fs->rec; /* the fallback's value array */
	n = fastx_stream_run(x, fs, recs, cap < RX_STREAM_ITERS ? cap : RX_STREAM_ITERS, &warn, pend);
	for (i = 0; i < n; i++) {
		union toe_record *t = &recs[i];
		t->hdr.stream = (uint16_t)sid;
		t->hdr.seq = 0;
		t->hdr.rx_ns = now;
		range += (t->hdr.flags & TOE_RF_RANGE) != 0;
	}
	p->st.records += n;
	ss->records += n;
	p->st.tick_range += range;
	ss->tick_range += range;
	p->st.warnings += warn;
	ss->warnings += warn;
	return n;
}
#endif

/* Batch form of rx_next for plain records (see rx_pipe.h). Each record is
 * decoded straight into the caller's array; anything else the stream
 * produces on the way (a decode gap, an unmapped record) becomes the held
 * entry rx_drain returns first, so the order stays rx_next's. */
uint32_t rx_ticks(struct rx_pipe *p, union toe_record *recs, uint32_t cap, uint32_t *sid_out)
{
	const struct mtoe_event *e;
	struct fast_stream *fs;
	uint32_t n = 0, it, sid;
	int fx, seq, pend = -1;
	if ((p->cfg.flags & (RX_CFG_NO_TICK | RX_CFG_TAP_DATA)) || p->cut_pending || p->junk_pending ||
	    p->tap_pending || p->held || p->seq_polling || p->sess_pend || seq_queue_len(&p->sq) != 0)
		return 0;
	if (p->active < 0) {
		/* rx_drain's next step: the next event; take it here when it only feeds */
		if (p->ev_pos >= p->nev)
			return 0;
		e = &p->ev[p->ev_pos];
		if (e->type != MTOE_EV_DATA || e->data == 0 || e->conn >= p->cfg.mtoe.max_conns ||
		    e->conn >= p->nstreams)
			return 0;
		p->ev_pos++;
		event(p, e, &p->held_out); /* feeds: no entry */
	}
	sid = (uint32_t)p->active;
	*sid_out = sid;
	if (sess_stream(p, sid))
		return 0; /* a session stream (the card): rx_drain's path, which tells unmapped messages */
	fs = &p->fs[sid];
	fx = use_fx(p);
	seq = (p->cfg.flags & RX_CFG_SEQ) != 0;
#ifdef TOE_CPU_DECODER
	/* the CPU decoder writes each record straight into the caller's slot
	 * (record_tick then copies nothing; dst pointed back below): its run
	 * of plain records first, then what ended it below */
	if (fx && !seq)
		n = fx_ticks(p, sid, fs, recs, cap, &pend);
#endif
	for (it = 0; it < RX_STREAM_ITERS; it++) {
		int ev, r;
		if (n >= cap)
			break;
		if (pend >= 0) {
			ev = pend; /* fx_ticks' last event, its slot recs[n] */
			pend = -1;
		} else {
#ifdef TOE_CPU_DECODER
			if (fx)
				p->fastx->dst = &recs[n];
#endif
			ev = decoder_next(p, fs, fx);
		}
		if (ev == FS_RECORD) {
			int t = record_tick(p, sid, fs, fx, &recs[n]);
			/* sequence tracking, as stream_event's record */
			if (seq && !seq_verdict(p, sid, record_values(p, fs, fx), &recs[n])) {
				/* dropped (a copy): the events it brought go out next
				 * (rx_drain), before anything else is decoded, as in
				 * rx_next's path: the queue never holds more than one
				 * record's events */
				if (seq_queue_len(&p->sq) != 0)
					break;
				continue;
			}
			if (t > 0 && (!seq || seq_queue_len(&p->sq) == 0)) {
				n++;
				continue;
			}
			/* unmapped, or sequence events came before it: rx_next's
			 * entry, after the records before it (rx_drain returns the
			 * events first, then the held entry) */
			out_head(&p->held_out, RX_OUT_RECORD, sid);
			p->held_out.tick = recs[n];
			record_fields(p, fs, fx, t, &p->held_out);
			p->held = 1;
			break;
		}
		r = stream_event(p, sid, fs, fx, ev, &p->held_out);
		if (r > 0) {
			p->held = 1;
			break;
		}
		if (r < 0) {
			p->active = -1;
			break;
		}
	}
#ifdef TOE_CPU_DECODER
	if (fx)
		p->fastx->dst = &p->fastx->tick; /* recs[] is the caller's */
#endif
	return n;
}

static int busy(const struct rx_pipe *p)
{
	return p->active >= 0 || p->ev_pos < p->nev || p->polling || p->cut_pending || p->junk_pending ||
	       p->tap_pending || p->held || p->seq_polling || p->sess_pend || seq_queue_len(&p->sq) != 0;
}

/* Before a frame or poll: run pending work nobody read (a caller that did not drain). */
static void flush(struct rx_pipe *p)
{
	struct rx_out tmp;
	uint32_t k;
	for (k = 0; k < RX_FLUSH_MAX; k++) {
		if (!rx_next(p, &tmp))
			break;
		p->st.undrained++;
	}
	pending_clear(p);
}

/* Before an event, piece or datagram handed in: the same without the mirror
 * TOE (rx_drain, not rx_next: no mtoe_poll in this call graph). */
static void begin_event(struct rx_pipe *p, uint64_t now)
{
	struct rx_out tmp;
	uint32_t k;
	if (busy(p)) {
		for (k = 0; k < RX_FLUSH_MAX; k++) {
			if (!rx_drain(p, &tmp))
				break;
			p->st.undrained++;
		}
		pending_clear(p);
	}
	p->now = now;
	p->now_rx = now;
}

int rx_event(struct rx_pipe *p, const struct mtoe_event *ev, uint64_t ts_ns)
{
	begin_event(p, ts_ns);
	if (!tcp_stream(p, ev->conn))
		return 0;
	p->ev[0] = *ev;
	p->nev = 1;
	p->ev_pos = 0;
	return 1;
}

int rx_feed(struct rx_pipe *p, uint32_t sid, const uint8_t *data, uint32_t len, uint64_t offset)
{
	begin_event(p, p->now);
	if (sid >= p->nstreams) {
		p->st.bad_stream++;
		return 0;
	}
	feed(p, sid, data, len, offset);
	return 1;
}

int rx_datagram(struct rx_pipe *p, uint32_t udp_index, const uint8_t *data, uint32_t len, uint64_t ts_ns)
{
	begin_event(p, ts_ns);
	return datagram(p, udp_index, data, len);
}

int32_t rx_frame(struct rx_pipe *p, const uint8_t *frame, uint32_t len, uint64_t ts_ns)
{
	return rx_frame_csum(p, frame, len, ts_ns, NET_CSUM_UNKNOWN);
}

int32_t rx_frame_csum(struct rx_pipe *p, const uint8_t *frame, uint32_t len, uint64_t ts_ns, uint32_t csum)
{
	return rx_frame_port(p, 0, frame, len, ts_ns, csum);
}

/* The UDP stream of (pkt->dport, in_port): the listen table names one entry per UDP port (the last
 * listed); with the same UDP port on several ports the entry of this port is searched. 1 with *idx,
 * else 0 (counted). */
static int udp_for_port(struct rx_pipe *p, uint32_t in_port, uint16_t *idx)
{
	uint32_t i;
	if (p->cfg.udp[*idx].in_port == in_port)
		return 1;
	for (i = 0; i < RX_MAX_UDP; i++) {
		if (i >= p->cfg.nudp)
			break;
		if (p->cfg.udp[i].port == p->pkt.dport && p->cfg.udp[i].in_port == in_port) {
			*idx = (uint16_t)i;
			return 1;
		}
	}
	p->st.udp_other_port++;
	return 0;
}

int32_t rx_frame_port(struct rx_pipe *p, uint32_t in_port, const uint8_t *frame, uint32_t len, uint64_t ts_ns,
		      uint32_t csum)
{
	enum net_rx_verdict v;
	uint16_t idx;
	if (busy(p))
		flush(p);
	p->st.frames++;
	p->now = ts_ns;
	p->now_rx = ts_ns;
	p->nev = 0;
	p->ev_pos = 0;
	if (in_port >= RX_MAX_PORTS)
		in_port = RX_MAX_PORTS - 1;
	v = net_rx_csum(in_port ? &p->cfg.net_port[in_port - 1] : &p->cfg.net, &p->net, frame, len, ts_ns, csum,
			&p->pkt);
	p->pkt.in_port = in_port;
	p->verdict = (int32_t)v;
	switch (v) {
	case NET_RX_TCP:
		p->st.tcp++;
		p->nev = mtoe_segment(&p->mtoe, &p->pkt, p->ev, MTOE_SEG_EVENTS);
		if (p->cfg.flags & RX_CFG_SEQ)
			held_conn(p, p->mtoe.seg_conn);
		break;
	case NET_RX_UDP:
		p->st.udp++;
		if (net_udp_input(&p->udp, &p->net, &p->pkt, &idx) && udp_for_port(p, in_port, &idx))
			datagram(p, idx, p->pkt.payload, p->pkt.payload_len);
		break;
	case NET_RX_ARP:
		p->st.arp++;
		break;
	case NET_RX_ICMP:
		p->st.icmp++;
		break;
	default:
		p->st.dropped++;
		break;
	}
	return p->verdict;
}

void rx_poll(struct rx_pipe *p, uint64_t now_ns)
{
	if (busy(p))
		flush(p);
	p->st.polls++;
	/* entries keep the last frame's time when the poll is the end-of-capture one */
	if (now_ns != UINT64_MAX)
		p->now = now_ns;
	p->now_poll = now_ns;
	p->nev = 0;
	p->ev_pos = 0;
	p->polling = 1;
	/* holes of arbitration groups whose wait ran out become gaps: after
	 * the mirror TOE's timer events (rx_next), or now without a mirror TOE */
	p->seq_polling = (p->cfg.flags & RX_CFG_SEQ) && !p->mirror ? 1 : 0;
}

/* ---- counter tables (host tools) --------------------------------------- */

uint32_t rx_stats_table(const struct rx_stats *s, const char **names, uint64_t *values, uint32_t cap)
{
	uint32_t n = 0;
#define RX_ROW(name)                     \
	if (n < cap) {                   \
		names[n] = #name;        \
		values[n] = s->name;     \
	}                                \
	n++;
	RX_STATS(RX_ROW)
	return n;
}

uint32_t rx_stream_stats_table(const struct rx_stream_stats *s, const char **names, uint64_t *values,
			       uint32_t cap)
{
	uint32_t n = 0;
	RX_STREAM_STATS(RX_ROW)
#undef RX_ROW
	return n;
}
