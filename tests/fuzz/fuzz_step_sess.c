/* fuzz_step_sess.c - libFuzzer target for the STEP session layer (kernels/step/).
 *
 * A client and a server session connected back to back; the input is a
 * program of operations: raw bytes given to step_fields_read() and to either
 * session as a message, well-formed session messages built from input bytes
 * (any MsgType, MsgSeqNum, CompIDs, HeartBtInt, TestReqID, credentials, flags),
 * data MsgSeqNums, time steps, connects, disconnects, logouts, and delivering
 * what one end queued to the other. After every operation:
 * - the state, the queues and the counters are within their bounds;
 * - everything a session queued to send is a sequence of valid STEP messages
 *   (the deframer accepts every byte, with no error) whose fields read back;
 * - a STEP_SESS_CLOSE answer leaves the session CLOSING (or DOWN).
 */
#include <stdint.h>
#include <string.h>

#include "fast/step_deframe.h"
#include "step/step_sess.h"

#define FUZZ_NAME "fuzz_step_sess"
#include "fuzz_common.h"

static struct step_sess ends[2];
static struct step_deframer chk, dlv;

struct in {
	const uint8_t *p;
	size_t n, k;
};

static uint32_t take(struct in *in, uint32_t bytes)
{
	uint32_t v = 0;
	for (uint32_t i = 0; i < bytes; i++)
		v = v << 8 | (in->k < in->n ? in->p[in->k++] : 0);
	return v;
}

static void check(const struct step_sess *s, uint32_t r)
{
	struct step_ev ev;
	if (s->state > STEP_SESS_CLOSING || s->out_len > STEP_SESS_OUT_MAX || s->ev_count > STEP_SESS_EV_MAX)
		FAIL("out of bounds: state %u out %u events %u", s->state, s->out_len, s->ev_count);
	if ((r & STEP_SESS_CLOSE) && s->state != STEP_SESS_CLOSING && s->state != STEP_SESS_DOWN)
		FAIL("CLOSE asked in state %s", step_sess_state_name(s->state));
	if ((r & STEP_SESS_SEND) && !s->out_len)
		FAIL("SEND with nothing queued");
	/* what is queued is valid STEP */
	step_init(&chk);
	uint32_t off = 0, msgs = 0;
	int st;
	for (int g = 0; g < 1000; g++) {
		off += step_feed(&chk, s->out + off, s->out_len - off, &st);
		if (st == STEP_ERROR)
			FAIL("queued bytes do not deframe: error %d at %llu", chk.err, (unsigned long long)chk.err_offset);
		if (st == STEP_MSG) {
			struct step_fields f;
			msgs++;
			if (!chk.msg.raw || step_fields_read(chk.msg.raw, chk.msg.len, &f) < 0 || !step_is_admin(f.msgtype))
				FAIL("a queued message does not read back");
		}
		if (st == STEP_NEED_MORE)
			break;
	}
	if (off != s->out_len || step_pending(&chk))
		FAIL("queued bytes end inside a message");
	(void)msgs;
	(void)ev;
}

static void drain(struct step_sess *s)
{
	struct step_ev ev;
	while (step_sess_event(s, &ev))
		if (ev.type >= STEP_EV_COUNT || ev.text[STEP_TEXT_MAX - 1])
			FAIL("bad event");
}

/* Deliver from's queue to to through a deframer, as the daemon would. */
static void deliver(struct step_sess *from, struct step_sess *to, uint64_t now)
{
	static uint8_t buf[STEP_SESS_OUT_MAX];
	uint32_t n = from->out_len, off = 0;
	int st;
	memcpy(buf, from->out, n);
	step_sess_sent(from);
	step_init(&dlv);
	for (int g = 0; g < 1000; g++) {
		off += step_feed(&dlv, buf + off, n - off, &st);
		if (st == STEP_MSG) {
			uint32_t r = dlv.msg.raw ? step_sess_on_msg(to, dlv.msg.raw, dlv.msg.len, now)
						 : step_sess_on_data(to, dlv.msg.seq, now);
			check(to, r);
		}
		if (st == STEP_NEED_MORE)
			break;
	}
}

static const char *const types[] = { "0", "1", "2", "3", "4", "5", "A", "UA3201", "A", "5" };
static const char *const ids[] = { "", "TOED", "SSE", "OTHER", "u", "pw", "T1", "X" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size, 0 };
	struct step_sess_cfg c;
	uint64_t now = 0;

	memset(&c, 0, sizeof c);
	c.role = STEP_SESS_CLIENT;
	strcpy(c.sender, "TOED");
	strcpy(c.target, "SSE");
	strcpy(c.username, "u");
	strcpy(c.password, "pw");
	c.heartbeat_s = 1 + take(&in, 1) % 40;
	c.reset_on_logon = take(&in, 1) & 1;
	step_sess_init(&ends[0], &c);
	c.role = STEP_SESS_SERVER;
	strcpy(c.sender, "SSE");
	strcpy(c.target, take(&in, 1) & 1 ? "TOED" : "");
	step_sess_init(&ends[1], &c);

	for (int ops = 0; ops < 400 && in.k < in.n; ops++) {
		uint32_t op = take(&in, 1), e = op >> 7, r = 0;
		struct step_sess *s = &ends[e], *o = &ends[!e];
		switch (op & 15) {
		case 0: { /* raw bytes as a message */
			uint32_t len = take(&in, 1) % 200;
			if (len > in.n - in.k)
				len = (uint32_t)(in.n - in.k);
			struct step_fields f;
			step_fields_read(in.p + in.k, len, &f);
			r = step_sess_on_msg(s, in.p + in.k, len, now);
			in.k += len;
			break;
		}
		case 1: case 2: case 3: { /* a well-formed message with fields from the input */
			static uint8_t buf[STEP_SESS_MSG_MAX];
			struct step_enc en;
			uint32_t fl = take(&in, 2);
			uint64_t seq = take(&in, 1) < 200 ? (s->in_expect + take(&in, 1) % 5) - 2 : take(&in, 4);
			step_enc_begin(&en, buf, sizeof buf, types[take(&in, 1) % 10], ids[fl & 7], ids[(fl >> 3) & 7], seq,
				       now);
			if (fl & 0x40)
				step_enc_u64(&en, STEP_TAG_HEARTBT_INT, take(&in, 2) % 5000);
			if (fl & 0x80)
				step_enc_str(&en, STEP_TAG_TEST_REQ_ID, ids[take(&in, 1) & 7]);
			if (fl & 0x100)
				step_enc_str(&en, STEP_TAG_USERNAME, ids[take(&in, 1) & 7]);
			if (fl & 0x200)
				step_enc_str(&en, STEP_TAG_PASSWORD, ids[take(&in, 1) & 7]);
			if (fl & 0x400)
				step_enc_str(&en, STEP_TAG_RESET_SEQ_NUM, "Y");
			if (fl & 0x800)
				step_enc_str(&en, STEP_TAG_POSS_DUP, "Y");
			if (fl & 0x1000)
				step_enc_str(&en, STEP_TAG_GAP_FILL, "Y");
			if (fl & 0x2000)
				step_enc_u64(&en, STEP_TAG_NEW_SEQ_NO, take(&in, 2));
			if (fl & 0x4000)
				step_enc_u64(&en, STEP_TAG_BEGIN_SEQ_NO, take(&in, 1));
			if (fl & 0x8000)
				step_enc_str(&en, STEP_TAG_TEXT, "reason");
			uint32_t n = step_enc_end(&en);
			if (!n)
				FAIL("a small message did not encode");
			r = step_sess_on_msg(s, buf + en.start, n, now);
			break;
		}
		case 4: now += take(&in, 1) * 100u; r = step_sess_tick(s, now); break;
		case 5: now += take(&in, 2); r = step_sess_tick(s, now); break;
		case 6: r = step_sess_connected(s, now); break;
		case 7: r = step_sess_disconnected(s, now); break;
		case 8: r = step_sess_logout(s, take(&in, 1) & 1 ? "bye" : "", now); break;
		case 9: r = step_sess_on_data(s, take(&in, 1) < 128 ? s->in_expect : take(&in, 4), now); break;
		case 10: step_sess_sent(s); break;
		case 11: step_sess_next_seq(s, now); break;
		default: deliver(s, o, now); break;
		}
		check(s, r);
		check(o, 0);
		if (take(&in, 1) & 1) {
			drain(s);
			drain(o);
		}
	}
	return 0;
}
