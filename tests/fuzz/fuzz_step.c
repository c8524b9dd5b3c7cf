/* fuzz_step.c - libFuzzer target for the STEP deframer.
 *
 * Input: byte 0 picks the chunking (bit 0: small chunks; sizes come from
 * bytes 1..4) and whether to repair the framing first (bit 1: CheckSum, bit
 * 2: BodyLength, so that mutated messages still pass the checksum and reach
 * the field rules), bit 3 adds a run with step_resync() calls; the rest is
 * the stream. It is fed three ways (chunked,
 * whole, one byte at a time); every call is checked (consumed <= n, progress,
 * msg.data inside body[], data_len bounds, a delivered message re-checked
 * against the input independently: 8=STEP, BodyLength, 96= bytes, CheckSum),
 * and the three runs must give the same events and counters: the whole-chunk
 * fast path and the byte state machine must agree on every input.
 */
#include <stdint.h>
#include <string.h>

#include "fast/step_deframe.h"

#define FUZZ_NAME "fuzz_step"
#include "fuzz_common.h"

#define MAX_EVENTS 4096

struct event {
	int st, err;
	uint64_t off;
	uint32_t len, data_len;
	uint64_t seq;
	uint32_t hash;
};

struct run {
	int nev;
	struct event ev[MAX_EVENTS];
	uint64_t messages, skipped, bytes;
	uint64_t errors[FAST_ERR_COUNT];
};

static struct step_deframer sd;
static struct run runs[3];

static uint32_t fnv(const uint8_t *p, uint32_t n)
{
	uint32_t h = 2166136261u, i;
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* Check a delivered message against the stream by hand. */
static void check_msg(const uint8_t *in, size_t inlen)
{
	const struct step_msg *m = &sd.msg;
	const uint8_t *p;
	uint32_t i, sum = 0, bl = 0, k, ck;

	if (m->offset + m->len > inlen || m->len < 20)
		FAIL("message %llu+%u outside the input (%zu)", (unsigned long long)m->offset, m->len, inlen);
	if (m->data_len > STEP_MAX_BODY)
		FAIL("data_len %u", m->data_len);
	if (m->data < sd.body || m->data + m->data_len > sd.body + sizeof sd.body)
		FAIL("msg.data outside body[]");
	if (memchr(m->msgtype, 0, sizeof m->msgtype) == NULL)
		FAIL("msgtype not terminated");
	p = in + m->offset;
	if (memcmp(p, "8=STEP.", 7) != 0)
		FAIL("message does not start with 8=STEP.");
	if (p[m->len - 1] != 0x01 || memcmp(p + m->len - 7, "10=", 3) != 0)
		FAIL("message does not end with 10=ddd SOH");
	for (i = 0; i + 7 < m->len; i++)
		sum += p[i];
	ck = (uint32_t)(p[m->len - 4] - '0') * 100 + (uint32_t)(p[m->len - 3] - '0') * 10 +
	     (uint32_t)(p[m->len - 2] - '0');
	if (ck != sum % 256)
		FAIL("checksum %u, the bytes sum to %u", ck, sum % 256);
	/* BodyLength: from after "9=...<SOH>" to the SOH before 10= */
	for (k = 7; k < m->len && p[k] != 0x01; k++)
		;
	k++;
	if (k + 2 >= m->len || p[k] != '9' || p[k + 1] != '=')
		FAIL("no 9= after the version");
	for (k += 2; k < m->len && p[k] >= '0' && p[k] <= '9'; k++)
		bl = bl * 10 + (uint32_t)(p[k] - '0');
	if (p[k] != 0x01 || k + 1 + bl + 7 != m->len)
		FAIL("BodyLength %u does not match the message length %u", bl, m->len);
	/* the data sits in body[] at its offset in the message, preceded by 96=;
	 * a message without 96= (heartbeat) has no data at body[0] */
	k = (uint32_t)(m->data - sd.body);
	if (m->data_len == 0 && k == 0)
		return;
	if (k < 3 || k + m->data_len >= m->len - 7 || memcmp(p + k - 3, "96=", 3) != 0 ||
	    p[k + m->data_len] != 0x01 || memcmp(m->data, p + k, m->data_len) != 0)
		FAIL("96= data does not match the input");
}

/* Feed `in` in chunks: mode 0 whole, 1 byte by byte, 2 the pattern, 3 the
 * pattern with step_resync() after chunks whose size byte has bit 7 set. */
static void feed(struct run *r, const uint8_t *in, size_t inlen, const uint8_t *pat, int mode)
{
	size_t at = 0;
	uint64_t consumed = 0, msg_bytes = 0, last_end = 0;
	int k = 0, st, nerr = 0;

	step_init(&sd);
	r->nev = 0;
	for (;;) {
		uint32_t c, left, zero_calls = 0;
		const uint8_t *p;
		if (mode == 0)
			c = (uint32_t)(inlen - at);
		else if (mode == 1)
			c = inlen - at ? 1 : 0;
		else
			c = pat[k % 4] + 1u;
		if (c > inlen - at)
			c = (uint32_t)(inlen - at);
		if (mode == 3 && (pat[k % 4] & 0x80))
			step_resync(&sd, consumed);
		k++;
		p = in + at;
		left = c;
		for (;;) {
			uint32_t used = step_feed(&sd, p, left, &st);
			if (used > left)
				FAIL("consumed %u of %u", used, left);
			p += used;
			left -= used;
			consumed += used;
			if (sd.bytes != consumed || sd.offset != consumed)
				FAIL("bytes %llu, consumed %llu", (unsigned long long)sd.bytes,
				     (unsigned long long)consumed);
			if (st == STEP_NEED_MORE) {
				if (left)
					FAIL("NEED_MORE with %u bytes left", left);
				break;
			}
			if (st != STEP_MSG && st != STEP_ERROR)
				FAIL("status %d", st);
			/* events without input come from the buffered bytes of a
			 * failed message: there are fewer of them than bytes */
			zero_calls = used ? 0 : zero_calls + 1;
			if (zero_calls > sizeof sd.body + 2)
				FAIL("no progress");
			if (r->nev < MAX_EVENTS) {
				struct event *e = &r->ev[r->nev++];
				memset(e, 0, sizeof *e);
				e->st = st;
				if (st == STEP_ERROR) {
					e->err = sd.err;
					e->off = sd.err_offset;
				} else {
					e->off = sd.msg.offset;
					e->len = sd.msg.len;
					e->data_len = sd.msg.data_len;
					e->seq = sd.msg.seq;
					e->hash = fnv(sd.msg.data, sd.msg.data_len) ^ fnv((const uint8_t *)sd.msg.msgtype,
											  (uint32_t)strlen(sd.msg.msgtype));
				}
			}
			if (st == STEP_ERROR) {
				nerr++;
				if (sd.err < STEP_E_GARBAGE || sd.err > STEP_E_NO_DATA)
					FAIL("error code %d", sd.err);
				if (sd.err_offset >= consumed)
					FAIL("error offset %llu beyond the input fed (%llu)",
					     (unsigned long long)sd.err_offset, (unsigned long long)consumed);
			} else {
				check_msg(in, inlen);
				if (sd.msg.offset < last_end)
					FAIL("messages overlap or go backwards");
				last_end = sd.msg.offset + sd.msg.len;
				if (last_end > consumed)
					FAIL("message beyond the input fed");
				msg_bytes += sd.msg.len;
			}
			/* every byte is in a message, skipped, or still buffered */
			if (msg_bytes + sd.skipped > consumed || consumed - msg_bytes - sd.skipped > sizeof sd.body)
				FAIL("byte accounting: %llu in messages, %llu skipped, %llu fed",
				     (unsigned long long)msg_bytes, (unsigned long long)sd.skipped,
				     (unsigned long long)consumed);
		}
		at += c;
		if (at >= inlen && c == 0)
			break;
	}
	{
		uint64_t sum = 0;
		int j;
		for (j = 0; j < FAST_ERR_COUNT; j++)
			sum += sd.errors[j];
		if (sum != (uint64_t)nerr)
			FAIL("%llu errors counted, %d reported", (unsigned long long)sum, nerr);
	}
	r->messages = sd.messages;
	r->skipped = sd.skipped;
	r->bytes = sd.bytes;
	memcpy(r->errors, sd.errors, sizeof r->errors);
}

static void compare(const struct run *a, const struct run *b, const char *what)
{
	int i;
	if (a->nev != b->nev)
		FAIL("%s: %d events vs %d", what, a->nev, b->nev);
	for (i = 0; i < a->nev; i++)
		if (memcmp(&a->ev[i], &b->ev[i], sizeof a->ev[i]) != 0)
			FAIL("%s: event %d differs (st %d/%d err %d/%d off %llu/%llu)", what, i, a->ev[i].st,
			     b->ev[i].st, a->ev[i].err, b->ev[i].err, (unsigned long long)a->ev[i].off,
			     (unsigned long long)b->ev[i].off);
	if (a->messages != b->messages || a->skipped != b->skipped || a->bytes != b->bytes ||
	    memcmp(a->errors, b->errors, sizeof a->errors) != 0)
		FAIL("%s: counters differ", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t fixed[200000];
	uint8_t pat[4] = {0, 0, 0, 0};
	const uint8_t *in;
	size_t inlen, hdr = 5;

	if (size < hdr || size > sizeof fixed)
		return 0;
	memcpy(pat, data + 1, 4);
	if (data[0] & 1) {
		/* small chunks (1..16 bytes): splits everywhere */
		int j;
		for (j = 0; j < 4; j++)
			pat[j] &= 15;
	}
	in = data + hdr;
	inlen = size - hdr;
	if (data[0] & 6) {
		memcpy(fixed, in, inlen);
		fuzz_step_repair(fixed, inlen, data[0] & 4);
		in = fixed;
	}
	feed(&runs[0], in, inlen, pat, 2);
	feed(&runs[1], in, inlen, pat, 0);
	compare(&runs[0], &runs[1], "chunked vs whole");
	if (inlen <= 20000) {
		feed(&runs[2], in, inlen, pat, 1);
		compare(&runs[0], &runs[2], "chunked vs byte by byte");
	}
	if (data[0] & 8)
		feed(&runs[2], in, inlen, pat, 3); /* invariants only */
	return 0;
}
