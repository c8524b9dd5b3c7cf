/* test_rx_sess.c - session streams in the receive pipeline (rx_cfg.sess, RX_OUT_SESS) and their card records (rx_sess).
 *
 * A TCP stream marked as a session stream (toed's own connection on the
 * card) yields, besides its ticks, every STEP message without FAST data as
 * an RX_OUT_SESS entry (the whole message, its MsgSeqNum, its offset) and
 * its CLOSE as one; an unmarked stream with the same bytes yields none and
 * the same ticks. With sequence tracking a MsgSeqNum jump's gap entry comes
 * first, then the message. rx_sess_record splits a message into 64-byte
 * records whose fields and bytes are checked here against the message.
 */
#include "test_rx_common.h"
#include "rx/rx_sess.h"
#include "step/step_msg.h"

struct seen {
	uint32_t n, nsess, nrec, nreset, ngap, nclose, nseen;
	uint8_t kinds[64];
	uint64_t seq[64];
	uint32_t len[64];
	uint8_t first_byte[64];
};

static uint32_t session_msg(uint8_t *out, uint32_t cap, const char *type, uint64_t seq, const char *text)
{
	uint8_t buf[600];
	struct step_enc e;
	step_enc_begin(&e, buf, sizeof buf, type, "SSE", "VENDOR01", seq, 1700000000000ull);
	if (text)
		step_enc_str(&e, STEP_TAG_TEXT, text);
	uint32_t n = step_enc_end(&e);
	CHECK(n > 0 && n <= cap);
	memcpy(out, buf + e.start, n);
	return n;
}

static void drain(struct rx_pipe *p, struct seen *s, const uint8_t *stream, uint32_t slen)
{
	struct rx_out o;
	while (rx_drain(p, &o)) {
		if (s->n < 64)
			s->kinds[s->n] = o.kind;
		if (o.kind == RX_OUT_SESS) {
			s->nsess++;
			if (o.reason == RX_SESS_CLOSE) {
				s->nclose++;
			} else if (o.reason == RX_SESS_SEEN) {
				s->nseen++;
			} else if (s->n < 64) {
				s->seq[s->n] = o.msg_seq;
				s->len[s->n] = (uint32_t)o.len;
				s->first_byte[s->n] = o.data[0];
				/* the entry's bytes are the stream's at its offset */
				CHECK(o.offset + o.len <= slen && memcmp(o.data, stream + o.offset, o.len) == 0);
				/* as card records: pieces of 64 bytes that put back together are the message */
				uint32_t nr = rx_sess_records(&o), got = 0;
				CHECK_EQ(nr, (uint32_t)(o.len + 63) / 64);
				for (uint32_t k = 0; k < nr; k++) {
					union toe_record r;
					const struct toe_card_sess *cs = (const struct toe_card_sess *)r.bytes;
					rx_sess_record(&r, &o, k);
					CHECK_EQ(r.hdr.type, TOE_REC_CARD_SESS);
					CHECK_EQ(r.hdr.stream, o.stream);
					CHECK_EQ(r.hdr.msg_seq, o.msg_seq);
					CHECK_EQ(cs->kind, TOE_CSESS_PIECE);
					CHECK_EQ(cs->piece, k);
					CHECK_EQ(cs->npieces, nr);
					CHECK_EQ(cs->msg_len, o.len);
					CHECK(memcmp(cs->data, o.data + got, cs->len) == 0);
					got += cs->len;
				}
				CHECK_EQ(got, o.len);
			}
		} else if (o.kind == RX_OUT_RECORD) {
			s->nrec++;
		} else if (o.kind == RX_OUT_RESET) {
			s->nreset++;
		} else if (o.kind == RX_OUT_GAP) {
			s->ngap++;
		}
		s->n++;
	}
}

static struct mtoe_event ev(uint8_t type, uint16_t conn, uint64_t off, uint64_t len, const uint8_t *d)
{
	struct mtoe_event e;
	memset(&e, 0, sizeof e);
	e.type = type;
	e.reason = type == MTOE_EV_OPEN ? MTOE_OPEN_SYN : 0;
	e.conn = conn;
	e.flow = conn;
	e.offset = off;
	e.len = len;
	e.data = d;
	return e;
}

/* Stream: Logon answer (seq 1), a data message (seq 2), a heartbeat (seq `hb_seq`); on conn 0 or 1. */
static void run(uint32_t sid, int seq_on, uint64_t hb_seq, struct seen *s)
{
	struct rx_cfg cfg;
	struct rx_pipe *p = calloc(1, sizeof *p);
	struct fast_stream *fs = calloc(3, sizeof *fs);
	struct sse_stream *ss = calloc(1, sizeof *ss);
	struct sse_gen_cfg gc;
	static uint8_t stream[8192];
	uint32_t len = 0, nr;
	union toe_record t[4];
	struct mtoe_event e;

	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 2;
	cfg.sess[0] = 1; /* stream 0 only */
	if (seq_on)
		cfg.flags |= RX_CFG_SEQ;
	CHECK_EQ(rx_init_decode(p, &cfg, &tr_prog, fs, 3), RX_OK);
	len += session_msg(stream + len, sizeof stream - len, STEP_MT_LOGON, 1, "a text long enough for two records");
	sse_gen_default(&gc);
	gc.seed = 9;
	CHECK_EQ(sse_stream_init(ss, &tr_prog, &gc, 4), 0);
	ss->seq = 2;
	int n = sse_stream_next_msg(ss, 4, stream + len, sizeof stream - len, NULL, t, &nr);
	CHECK(n > 0);
	len += (uint32_t)n;
	len += session_msg(stream + len, sizeof stream - len, STEP_MT_HEARTBEAT, hb_seq, NULL);

	memset(s, 0, sizeof *s);
	e = ev(MTOE_EV_OPEN, (uint16_t)sid, 0, 0, NULL);
	rx_event(p, &e, 1);
	drain(p, s, stream, len);
	/* in two pieces: a message cut between events */
	e = ev(MTOE_EV_DATA, (uint16_t)sid, 0, 50, stream);
	rx_event(p, &e, 2);
	drain(p, s, stream, len);
	e = ev(MTOE_EV_DATA, (uint16_t)sid, 50, len - 50, stream + 50);
	rx_event(p, &e, 3);
	drain(p, s, stream, len);
	e = ev(MTOE_EV_CLOSE, (uint16_t)sid, len, 0, NULL);
	rx_event(p, &e, 4);
	drain(p, s, stream, len);
	CHECK_EQ(s->nrec, nr); /* the ticks are the same whether or not it is a session stream */
	free(ss);
	free(fs);
	free(p);
}

/* A session stream whose order template maps to no tick type: Logon answer (seq 1), then data
 * messages 2..13 of trades and orders. Every order message (no tick entry) is told once, as an
 * RX_SESS_SEEN entry of its MsgSeqNum after its first record; trade messages are not; the records
 * are still RECORD entries and counted unmapped. The same on an unmarked stream: no SEEN. */
static void test_unmapped(int seq_on)
{
	static struct fast_prog unmapped;
	static uint8_t stream[32768];
	struct rx_cfg cfg;
	struct rx_pipe *p = calloc(1, sizeof *p);
	struct fast_stream *fs = calloc(3, sizeof *fs);
	struct sse_stream *ss = calloc(1, sizeof *ss);
	struct sse_gen_cfg gc;
	union toe_record t[4];
	uint32_t len = 0, nr, norders = 0, nrecs = 0, order_recs = 0, between = 0, nseen = 0;
	int kind[16] = { 0 };
	uint64_t seen_seq[16];
	struct mtoe_event e;
	struct rx_out o;

	unmapped = tr_prog;
	for (uint32_t k = 0; k < FAST_MAX_TEMPLATES; k++)
		if (unmapped.tpl[k].kind == TOE_REC_ORDER)
			unmapped.tpl[k].kind = TOE_REC_NONE;
	len += session_msg(stream + len, sizeof stream - len, STEP_MT_LOGON, 1, NULL);
	sse_gen_default(&gc);
	gc.seed = 11;
	CHECK_EQ(sse_stream_init(ss, &tr_prog, &gc, 4), 0);
	for (uint32_t m = 2; m <= 13; m++) {
		ss->seq = m;
		int n = sse_stream_next_msg(ss, 4, stream + len, sizeof stream - len, NULL, t, &nr);
		CHECK(n > 0 && nr > 0);
		len += n > 0 ? (uint32_t)n : 0;
		kind[m] = t[0].hdr.type;
		nrecs += nr;
		if (kind[m] == TOE_REC_ORDER) {
			norders++;
			order_recs += nr;
			if (nr > 1)
				between |= 2; /* an order message of several records: still told once */
		}
		if (m >= 4 && kind[m] == TOE_REC_TRADE && kind[m - 1] == TOE_REC_ORDER && kind[m - 2] == TOE_REC_TRADE)
			between |= 1; /* an unmapped message between two mapped ones */
	}
	CHECK_EQ(between, 3); /* the seed gives both cases */

	for (uint32_t sid = 0; sid < 2; sid++) {
		rx_cfg_default(&cfg);
		cfg.mtoe.max_conns = 2;
		cfg.sess[0] = 1;
		if (seq_on)
			cfg.flags |= RX_CFG_SEQ;
		CHECK_EQ(rx_init_decode(p, &cfg, &unmapped, fs, 3), RX_OK);
		e = ev(MTOE_EV_OPEN, (uint16_t)sid, 0, 0, NULL);
		rx_event(p, &e, 1);
		e = ev(MTOE_EV_DATA, (uint16_t)sid, 0, len, stream);
		rx_event(p, &e, 2);
		uint32_t nrec = 0, ntick = 0, last_rec_seq = 0;
		nseen = 0;
		while (rx_drain(p, &o)) {
			if (o.kind == RX_OUT_RECORD) {
				nrec++;
				ntick += o.tick_type > 0;
				last_rec_seq = (uint32_t)o.msg_seq;
			}
			if (o.kind == RX_OUT_SESS && o.reason == RX_SESS_SEEN) {
				union toe_record r;
				const struct toe_card_sess *cs = (const struct toe_card_sess *)r.bytes;
				/* right after a record of its own message */
				CHECK_EQ(o.msg_seq, last_rec_seq);
				CHECK_EQ(rx_sess_records(&o), 1);
				rx_sess_record(&r, &o, 0);
				CHECK_EQ(r.hdr.type, TOE_REC_CARD_SESS);
				CHECK_EQ(r.hdr.stream, sid);
				CHECK_EQ(r.hdr.msg_seq, o.msg_seq);
				CHECK_EQ(cs->kind, TOE_CSESS_SEEN);
				CHECK_EQ(cs->msg_no, 0);
				CHECK_EQ(cs->npieces, 1);
				if (nseen < 16)
					seen_seq[nseen] = o.msg_seq;
				nseen++;
			}
		}
		CHECK_EQ(nrec, nrecs); /* the unmapped records are still entries */
		CHECK_EQ(ntick, nrecs - order_recs);
		CHECK_EQ(p->st.tick_unmapped, order_recs);
		if (sid == 1) {
			CHECK_EQ(nseen, 0);
			continue;
		}
		CHECK_EQ(nseen, norders);
		for (uint32_t k = 0, m = 2; m <= 13; m++) {
			if (kind[m] != TOE_REC_ORDER)
				continue;
			CHECK(k < nseen && seen_seq[k] == m);
			k++;
		}
	}
	free(ss);
	free(fs);
	free(p);
}

int main(void)
{
	struct seen s;
	if (tr_load() != 0)
		return test_skip("rx_sess", "cannot compile " TR_TEMPLATES " (run from the repository root)");

	/* a session stream: RESET, the Logon answer, the ticks, the heartbeat, the close */
	run(0, 0, 3, &s);
	CHECK_EQ(s.nreset, 1);
	CHECK_EQ(s.nsess, 3);
	CHECK_EQ(s.nclose, 1);
	CHECK_EQ(s.ngap, 0);
	CHECK_EQ(s.kinds[0], RX_OUT_RESET);
	CHECK_EQ(s.kinds[1], RX_OUT_SESS);
	CHECK_EQ(s.seq[1], 1);
	CHECK(s.len[1] > 64 && s.first_byte[1] == '8');
	CHECK_EQ(s.kinds[2], RX_OUT_RECORD);
	CHECK_EQ(s.kinds[s.n - 2], RX_OUT_SESS);
	CHECK_EQ(s.seq[s.n - 2], 3);
	CHECK_EQ(s.kinds[s.n - 1], RX_OUT_SESS); /* the close */

	/* the same bytes on a stream not marked: no session entries, the same ticks */
	run(1, 0, 3, &s);
	CHECK_EQ(s.nsess, 0);
	CHECK_EQ(s.nreset, 1);

	/* with sequence tracking, a heartbeat whose MsgSeqNum jumps: the gap entry, then the message */
	run(0, 1, 7, &s);
	CHECK_EQ(s.ngap, 1);
	CHECK_EQ(s.nsess, 3);
	CHECK_EQ(s.kinds[s.n - 3], RX_OUT_GAP);
	CHECK_EQ(s.kinds[s.n - 2], RX_OUT_SESS);
	CHECK_EQ(s.seq[s.n - 2], 7);

	/* data messages without a tick record are told to the host (RX_SESS_SEEN), with or without
	 * sequence tracking */
	test_unmapped(0);
	test_unmapped(1);
	return test_done("rx_sess");
}
