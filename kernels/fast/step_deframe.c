/* step_deframe.c - streaming deframer of SSE STEP messages (synthesisable subset).
 *
 * Two paths with the same rules:
 * - The common case, a whole message inside the chunk, goes through
 *   step_fast(): it reads the header, jumps to the trailer with BodyLength,
 *   walks the fields eight bytes at a time (SOH found with a word test), sums
 *   the message a word at a time, and only when everything holds copies the
 *   96= bytes into body[] and delivers. No per-byte state.
 * - Anything else (a message split across chunks, junk to report first, any
 *   message step_fast() does not accept) runs through the byte state machine
 *   in step_run(), whose long runs (values, the 96= data) are inner loops.
 *   It is the reference: step_fast() only ever accepts what step_run() would
 *   accept, with the same result, and leaves every error to it, so errors
 *   and their offsets have one definition. The unit test and fuzz_step feed
 *   the same bytes whole, split and byte by byte and compare the events.
 *
 * Every byte of a message in progress in the state machine, from its '8',
 * is kept in body[] (the largest message fits: see the _Static_assert). That
 * makes resynchronisation lossless: on an error the bytes after the failed
 * message's '8' become "pending" input that is fed through the same code
 * again before any new caller byte, so a message that starts inside a
 * corrupted one (a truncated message followed by a good one) is still found.
 * The pending bytes are re-read from body[] in place: the parser writes
 * body[pos] while reading body[rd] with pos < rd.
 *
 * Decisions the header leaves open:
 * - err_offset is the stream offset of the byte that revealed the error: the
 *   byte past the body for a BodyLength ending mid-field, the '=' of a tag 10
 *   found inside the body (BodyLength too long), the '=' of 96= when the data
 *   and its SOH do not fit the body, the final SOH for a checksum mismatch or
 *   a message without 96=. For STEP_E_GARBAGE it is the offset of the first
 *   skipped byte; it is reported when the "8=STEP" that ends the run is seen.
 * - A skipped run that directly follows an error is counted in s->skipped
 *   but not reported again as STEP_E_GARBAGE: the error already covers it.
 * - The '8' of a failed message and every byte passed over while hunting
 *   count in s->skipped, as do the buffered bytes step_resync() drops. So
 *   s->bytes == sum of msg.len + s->skipped + bytes still buffered.
 * - STEP_MSG and STEP_ERROR may come with 0 bytes consumed (from pending
 *   bytes): call step_feed() until it says STEP_NEED_MORE, even with n == 0.
 * - 35= is truncated to STEP_MAX_MSGTYPE bytes; 34= takes at most 19 digits;
 *   95= at most 6 digits; 9= at most 6 digits (more: STEP_E_TOO_LONG); the
 *   version text after "8=STEP." at most STEP_MAX_VER bytes. Field values must
 *   not be empty. A second 95= or 96= is STEP_E_BAD_DATA_LEN.
 *
 * Loops: the outer loop runs at most n times per call plus the pending bytes;
 * every inner loop is bounded by the room left in body[] (STEP_BUF) or by n.
 */
#include "step_deframe.h"
#include "step_scan.h"

#define SOH STEP_SOH
#define STEP_BUF ((uint32_t)sizeof(((struct step_deframer *)0)->body))
#define STEP_MAGIC_SUM ('8' + '=' + 'S' + 'T' + 'E' + 'P')

/* "8=STEP." + version + SOH, "9=" + digits + SOH, body, "10=ddd" SOH, plus
 * the byte that revealed an error. */
_Static_assert(7 + STEP_MAX_VER + 1 + 2 + STEP_MAX_LEN_DIG + 1 + STEP_MAX_BODY + 7 + 1 <=
		       sizeof(((struct step_deframer *)0)->body),
	       "body[] holds the largest message");
_Static_assert(sizeof(((struct step_deframer *)0)->body) <= 0xffff, "pending indices fit 16 bits");

/* s->state: parser state in the low byte, flags above. */
enum {
	S_HUNT = 0, /* looking for "8=STEP"; pos = bytes matched */
	S_DOT,      /* '.' after "8=STEP" */
	S_VER,      /* version text up to SOH; val = bytes seen */
	S_9,        /* '9' */
	S_9EQ,      /* '=' */
	S_LEN,      /* BodyLength digits; val = value, body_len = digits */
	S_TAG0,     /* start of a body field (or of the trailer at the body end) */
	S_TAG,      /* tag digits; val = tag */
	S_VAL0,     /* first byte of an ordinary value */
	S_VAL,      /* rest of an ordinary value */
	S_TYPE,     /* 35= value; val = bytes seen */
	S_SEQ,      /* 34= value; val = digits */
	S_DLEN,     /* 95= value; val = digits, msg.data_len = value */
	S_DATA,     /* 96= bytes; val = bytes left */
	S_DATA_END, /* SOH after the 96= bytes */
	S_T1,       /* '1' of "10=" */
	S_T0,       /* '0' */
	S_TEQ,      /* '=' */
	S_CK,       /* checksum digits; val = value */
	S_CK_END,   /* final SOH */
};
#define ST_MASK 0xffu
#define F_95 0x100u    /* 95= seen */
#define F_96 0x200u    /* 96= seen */
#define F_JUNK 0x400u  /* in a skipped run; msg.offset = its first byte */
#define F_QUIET 0x800u /* the skipped run follows an error: do not report it */

/* s->match: pending bytes body[rd .. end) (step_deframe.h). */
#define PEND_RD(m) STEP_PEND_RD(m)
#define PEND_END(m) STEP_PEND_END(m)
#define PEND(rd, end) STEP_PEND(rd, end)

#define IS_DIGIT(c) STEP_IS_DIGIT(c)

/* Little-endian 64-bit store (ld64 is step_scan.h's step_ld64; compilers
 * merge the bytes into one store; no alignment or aliasing assumptions). */
static inline void st64(uint8_t *p, uint64_t w)
{
	p[0] = (uint8_t)w;
	p[1] = (uint8_t)(w >> 8);
	p[2] = (uint8_t)(w >> 16);
	p[3] = (uint8_t)(w >> 24);
	p[4] = (uint8_t)(w >> 32);
	p[5] = (uint8_t)(w >> 40);
	p[6] = (uint8_t)(w >> 48);
	p[7] = (uint8_t)(w >> 56);
}

#define LANES16 0x00ff00ff00ff00ffull
/* Sum of p[0..n), n >= 8 (the checksum wants it modulo 256): eight bytes at
 * a time into four 16-bit lanes, folded every 128 words before a lane can
 * carry; the last n % 8 bytes come from the word ending at p + n with the
 * bytes already counted shifted out. */
static uint32_t sum_bytes(const uint8_t *p, uint32_t n)
{
	uint32_t k = 0, b, j, sum = 0, words = n / 8, rem = n % 8;
	uint64_t acc = 0;
	for (b = 0; b < STEP_BUF / 1024 + 1; b++) {
		uint32_t cnt = words - k / 8;
		if (cnt == 0)
			break;
		if (cnt > 128)
			cnt = 128;
		acc = 0;
		for (j = 0; j < cnt; j++) {
			uint64_t w = step_ld64(p + k + 8 * j);
			acc += (w & LANES16) + (w >> 8 & LANES16);
		}
		k += 8 * cnt;
		sum += (uint32_t)(acc & 0xffff) + (uint32_t)(acc >> 16 & 0xffff) +
		       (uint32_t)(acc >> 32 & 0xffff) + (uint32_t)(acc >> 48);
	}
	if (rem) {
		uint64_t w = step_ld64(p + n - 8) >> (8 * (8 - rem));
		acc = (w & LANES16) + (w >> 8 & LANES16);
		sum += (uint32_t)(acc & 0xffff) + (uint32_t)(acc >> 16 & 0xffff) +
		       (uint32_t)(acc >> 32 & 0xffff) + (uint32_t)(acc >> 48);
	}
	return sum;
}

/* Copy src[0..n) to dst (dst <= src when they overlap: the bytes of a failed
 * message are re-read in place) and return their sum, a word at a time. */
static uint32_t copy_sum(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint32_t k = 0, b, j, sum = 0;
	for (b = 0; b < STEP_BUF / 1024 + 1; b++) {
		uint32_t cnt = (n - k) / 8;
		uint64_t acc = 0;
		if (cnt == 0)
			break;
		if (cnt > 128)
			cnt = 128;
		for (j = 0; j < cnt; j++) {
			uint64_t w = step_ld64(src + k + 8 * j);
			st64(dst + k + 8 * j, w);
			acc += (w & LANES16) + (w >> 8 & LANES16);
		}
		k += 8 * cnt;
		sum += (uint32_t)(acc & 0xffff) + (uint32_t)(acc >> 16 & 0xffff) +
		       (uint32_t)(acc >> 32 & 0xffff) + (uint32_t)(acc >> 48);
	}
	for (j = 0; j < 8; j++) {
		if (k + j >= n)
			break;
		dst[k + j] = src[k + j];
		sum += src[k + j];
	}
	return sum;
}

/* Index of the first SOH in p[k..end), or end (step_scan.h). */
static inline uint32_t find_soh(const uint8_t *p, uint32_t k, uint32_t end)
{
	return step_find_soh(p, k, end, STEP_BUF / 8 + 1);
}

/* The common case: a whole message inside the chunk, q[0] == '8'. Parses it
 * in one go with word operations and, if it is complete in q[0..avail) and
 * valid by exactly the state machine's rules, fills s->msg (data copied into
 * body[] where the state machine would put it) and returns its length.
 * Anything else returns 0 and the state machine takes the message byte by
 * byte, finding the error if there is one; the checks below mirror it. */
static uint32_t step_fast(struct step_deframer *s, const uint8_t *q, uint32_t avail)
{
	uint32_t k, h, t, soh, dl = 0, ck, j, have95 = 0, have96 = 0, nfields;
	uint64_t seq = 0;
	const uint8_t *data = q;

	/* "8=STEP.", the version, "9=" BodyLength SOH ... "10=" ddd SOH */
	if (!step_scan_frame(q, avail, STEP_MAX_BODY, &h, &t, &ck))
		return 0;
	/* the body fields; every index read below is < t + 7 */
	k = h;
	for (nfields = 0; nfields < STEP_MAX_BODY / 4 + 1; nfields++) {
		uint32_t tag;
		if (k >= t)
			break;
		if (!step_scan_tag(q, &k, t, &tag))
			return 0;
		if (tag == 96) {
			if (!have95 || have96 || dl + 1 > t - k || q[k + dl] != SOH)
				return 0;
			data = q + k;
			k += dl + 1;
			have96 = 1;
			continue;
		}
		soh = find_soh(q, k, t);
		if (soh == t || soh == k)
			return 0; /* value empty or running past the body */
		if (tag == 35) {
			for (j = 0; j < STEP_MAX_MSGTYPE; j++) {
				if (k + j >= soh)
					break;
				s->msg.msgtype[j] = (char)q[k + j];
			}
			s->msg.msgtype[j] = 0;
		} else if (tag == 34 || tag == 95) {
			uint64_t x;
			if (!step_scan_num(q, k, soh, tag == 34 ? STEP_MAX_SEQ_DIG : STEP_MAX_DLEN_DIG, &x))
				return 0;
			if (tag == 34) {
				seq = x;
			} else {
				if (have95 || x > t - soh - 1)
					return 0;
				dl = (uint32_t)x;
				have95 = 1;
			}
		} else if (tag == 10) {
			return 0;
		}
		k = soh + 1;
	}
	if ((have95 && !have96) || (sum_bytes(q, t) & 0xffu) != ck)
		return 0;
	if (!have96) {
		/* a message without FAST data (heartbeat, logon): valid, no records */
		s->msg.data = s->body;
		s->msg.data_len = 0;
		s->msg.seq = seq;
		s->msg.len = t + 7;
		s->msg.raw = q;
		s->no_data++;
		return t + 7;
	}
	/* deliver: the data goes where the state machine would have put it */
	k = (uint32_t)(data - q);
	for (j = 0; j + 8 <= dl; j += 8)
		st64(s->body + k + j, step_ld64(data + j));
	for (; j < dl; j++)
		s->body[k + j] = data[j];
	s->msg.data = s->body + k;
	s->msg.data_len = dl;
	s->msg.seq = seq;
	s->msg.raw = 0;
	s->msg.len = t + 7;
	return t + 7;
}

void step_init(struct step_deframer *s)
{
	uint32_t k;

	s->state = S_HUNT;
	s->pos = 0;
	s->body_len = 0;
	s->val = 0;
	s->sum = 0;
	s->match = 0;
	s->offset = 0;
	s->msg_start = 0;
	s->msg.seq = 0;
	s->msg.offset = 0;
	s->msg.len = 0;
	s->msg.data_len = 0;
	s->msg.data = s->body;
	s->msg.raw = 0;
	for (k = 0; k < STEP_MAX_MSGTYPE + 1; k++)
		s->msg.msgtype[k] = 0;
	s->err = FAST_OK;
	s->err_offset = 0;
	s->messages = 0;
	s->bytes = 0;
	s->skipped = 0;
	s->no_data = 0;
	for (k = 0; k < FAST_ERR_COUNT; k++)
		s->errors[k] = 0;
}

void step_resync(struct step_deframer *s, uint64_t offset)
{
	uint32_t rd = PEND_RD(s->match), end = PEND_END(s->match);

	s->skipped += s->pos + (end - rd);
	s->state = S_HUNT;
	s->pos = 0;
	s->val = 0;
	s->sum = 0;
	s->match = 0;
	s->offset = offset;
}

uint32_t step_pending(const struct step_deframer *s)
{
	return s->pos + (PEND_END(s->match) - PEND_RD(s->match));
}

/* Run the state machine over src[0..n), whose first byte is at stream offset
 * `base`. Returns the bytes consumed; stops after a message (STEP_MSG) or an
 * error (STEP_ERROR). After an error other than STEP_E_GARBAGE the failed
 * message, error byte included, is body[0..s->pos): step_feed() makes it
 * pending input. */
static uint32_t step_run(struct step_deframer *s, const uint8_t *src, uint32_t n, uint64_t base,
			 int *status)
{
	uint8_t *body = s->body;
	uint32_t st = s->state & ST_MASK, fl = s->state & ~ST_MASK;
	uint32_t pos = s->pos, bend = s->body_len, val = s->val, sum = s->sum;
	uint32_t i = 0, e = FAST_OK;
	int ret = STEP_NEED_MORE;
	uint8_t c = 0;

	while (i < n) {
		c = src[i];
		switch (st) {
		case S_HUNT:
			if (pos == 0) {
				if (c != '8') {
					/* a run of junk: skip to the next '8' */
					uint32_t j = i + 1;
					while (j < n && src[j] != '8')
						j++;
					if (!(fl & F_JUNK)) {
						fl |= F_JUNK;
						s->msg.offset = base + i;
					}
					s->skipped += j - i;
					i = j;
					break;
				}
				s->msg_start = base + i;
				if ((fl & (F_JUNK | F_QUIET)) != F_JUNK) {
					/* (a skipped run to report first takes the slow path) */
					uint32_t len;
					s->msg.msgtype[0] = 0;
					len = step_fast(s, src + i, n - i);
					if (len) {
						s->msg.offset = base + i;
						s->messages++;
						i += len;
						fl = 0;
						ret = STEP_MSG;
						break;
					}
				}
				body[0] = c;
				pos = 1;
				i++;
				break;
			}
			if (c != (uint8_t)"8=STEP"[pos]) {
				/* the partial match was junk; look at c again
				 * ("8=STEP" has no border, so restarting is exact) */
				if (!(fl & F_JUNK)) {
					fl |= F_JUNK;
					s->msg.offset = s->msg_start;
				}
				s->skipped += pos;
				pos = 0;
				break;
			}
			body[pos++] = c;
			i++;
			if (pos < 6)
				break;
			st = S_DOT;
			sum = STEP_MAGIC_SUM;
			val = 0;
			s->msg.seq = 0;
			s->msg.data_len = 0;
			s->msg.msgtype[0] = 0;
			if ((fl & (F_JUNK | F_QUIET)) == F_JUNK) {
				s->errors[STEP_E_GARBAGE]++;
				s->err = STEP_E_GARBAGE;
				s->err_offset = s->msg.offset;
				ret = STEP_ERROR;
			}
			fl = 0;
			break;
		case S_DOT:
			if (c != '.') {
				e = STEP_E_BAD_HEADER;
				break;
			}
			body[pos++] = c;
			sum += c;
			i++;
			st = S_VER;
			break;
		case S_VER:
			if (c == SOH) {
				st = S_9;
			} else if (val == STEP_MAX_VER) {
				e = STEP_E_BAD_HEADER;
				break;
			} else {
				val++;
			}
			body[pos++] = c;
			sum += c;
			i++;
			break;
		case S_9:
		case S_9EQ:
			if (c != (st == S_9 ? '9' : '=')) {
				e = STEP_E_BAD_HEADER;
				break;
			}
			body[pos++] = c;
			sum += c;
			i++;
			if (st == S_9) {
				st = S_9EQ;
			} else {
				st = S_LEN;
				val = 0;
				bend = 0;
			}
			break;
		case S_LEN:
			if (IS_DIGIT(c)) {
				if (bend == STEP_MAX_LEN_DIG) {
					e = STEP_E_TOO_LONG;
					break;
				}
				val = val * 10 + (uint32_t)(c - '0');
				bend++;
			} else if (c == SOH) {
				if (bend == 0) {
					e = STEP_E_BAD_HEADER;
					break;
				}
				if (val > STEP_MAX_BODY) {
					e = STEP_E_TOO_LONG;
					break;
				}
				bend = pos + 1 + val;
				st = S_TAG0;
			} else {
				e = STEP_E_BAD_HEADER;
				break;
			}
			body[pos++] = c;
			sum += c;
			i++;
			break;
		case S_TAG0:
			if (pos == bend) {
				st = S_T1; /* the body ends here: look at c again */
				break;
			}
			if (!IS_DIGIT(c)) {
				e = STEP_E_BAD_FIELD;
				break;
			}
			val = (uint32_t)(c - '0');
			body[pos++] = c;
			sum += c;
			i++;
			st = S_TAG;
			break;
		case S_TAG:
			if (pos == bend) {
				e = STEP_E_BAD_LENGTH;
				break;
			}
			if (IS_DIGIT(c)) {
				if (val >= 100000000u) {
					e = STEP_E_BAD_FIELD;
					break;
				}
				val = val * 10 + (uint32_t)(c - '0');
			} else if (c == '=') {
				if (val == 96) {
					uint32_t dl = s->msg.data_len;
					if ((fl & (F_95 | F_96)) != F_95 || dl + 2 > bend - pos) {
						e = STEP_E_BAD_DATA_LEN;
						break;
					}
					s->msg.data = body + pos + 1;
					val = dl;
					st = dl ? S_DATA : S_DATA_END;
				} else if (val == 95) {
					if (fl & F_95) {
						e = STEP_E_BAD_DATA_LEN;
						break;
					}
					s->msg.data_len = 0;
					val = 0;
					st = S_DLEN;
				} else if (val == 35) {
					val = 0;
					st = S_TYPE;
				} else if (val == 34) {
					s->msg.seq = 0;
					val = 0;
					st = S_SEQ;
				} else if (val == 10) {
					/* the trailer inside the body: BodyLength too long */
					e = STEP_E_BAD_LENGTH;
					break;
				} else {
					st = S_VAL0;
				}
			} else {
				e = STEP_E_BAD_FIELD;
				break;
			}
			body[pos++] = c;
			sum += c;
			i++;
			break;
		case S_VAL0:
			if (pos == bend) {
				e = STEP_E_BAD_LENGTH;
				break;
			}
			if (c == SOH) {
				e = STEP_E_BAD_FIELD;
				break;
			}
			body[pos++] = c;
			sum += c;
			i++;
			st = S_VAL;
			break;
		case S_VAL: {
			uint32_t lim = n - i, k;
			if (pos == bend) {
				e = STEP_E_BAD_LENGTH;
				break;
			}
			if (lim > bend - pos)
				lim = bend - pos;
			for (k = 0; k < lim; k++) {
				uint8_t b = src[i + k];
				body[pos + k] = b;
				sum += b;
				if (b == SOH) {
					k++;
					st = S_TAG0;
					break;
				}
			}
			i += k;
			pos += k;
			break;
		}
		case S_TYPE:
			if (pos == bend) {
				e = STEP_E_BAD_LENGTH;
				break;
			}
			if (c == SOH) {
				if (val == 0) {
					e = STEP_E_BAD_FIELD;
					break;
				}
				s->msg.msgtype[val < STEP_MAX_MSGTYPE ? val : STEP_MAX_MSGTYPE] = 0;
				st = S_TAG0;
			} else {
				if (val < STEP_MAX_MSGTYPE)
					s->msg.msgtype[val] = (char)c;
				val++;
			}
			body[pos++] = c;
			sum += c;
			i++;
			break;
		case S_SEQ:
			if (pos == bend) {
				e = STEP_E_BAD_LENGTH;
				break;
			}
			if (IS_DIGIT(c)) {
				if (val == STEP_MAX_SEQ_DIG) {
					e = STEP_E_BAD_FIELD;
					break;
				}
				s->msg.seq = s->msg.seq * 10 + (uint64_t)(c - '0');
				val++;
			} else if (c == SOH && val) {
				st = S_TAG0;
			} else {
				e = STEP_E_BAD_FIELD;
				break;
			}
			body[pos++] = c;
			sum += c;
			i++;
			break;
		case S_DLEN:
			if (pos == bend) {
				e = STEP_E_BAD_LENGTH;
				break;
			}
			if (IS_DIGIT(c)) {
				if (val == STEP_MAX_DLEN_DIG) {
					e = STEP_E_BAD_DATA_LEN;
					break;
				}
				s->msg.data_len = s->msg.data_len * 10 + (uint32_t)(c - '0');
				val++;
			} else if (c == SOH && val && s->msg.data_len <= bend - pos - 1) {
				fl |= F_95;
				st = S_TAG0;
			} else {
				e = STEP_E_BAD_DATA_LEN;
				break;
			}
			body[pos++] = c;
			sum += c;
			i++;
			break;
		case S_DATA: {
			/* the FAST payload, copied and summed a word at a time */
			uint32_t lim = n - i;
			if (lim > val)
				lim = val;
			sum += copy_sum(body + pos, src + i, lim);
			i += lim;
			pos += lim;
			val -= lim;
			if (val == 0)
				st = S_DATA_END;
			break;
		}
		case S_DATA_END:
			if (c != SOH) {
				e = STEP_E_BAD_DATA_LEN;
				break;
			}
			fl |= F_96;
			body[pos++] = c;
			sum += c;
			i++;
			st = S_TAG0;
			break;
		case S_T1:
		case S_T0:
		case S_TEQ:
			if (c != (st == S_T1 ? '1' : st == S_T0 ? '0' : '=')) {
				e = STEP_E_BAD_LENGTH;
				break;
			}
			body[pos++] = c;
			i++;
			st++;
			val = 0;
			break;
		case S_CK:
			if (!IS_DIGIT(c)) {
				e = STEP_E_BAD_CHECKSUM;
				break;
			}
			val = val * 10 + (uint32_t)(c - '0');
			body[pos++] = c;
			i++;
			if (pos == bend + 6)
				st = S_CK_END;
			break;
		default: /* S_CK_END */
			if (c != SOH || val != (sum & 0xffu)) {
				e = STEP_E_BAD_CHECKSUM;
				break;
			}
			if (!(fl & F_96)) {
				if (fl & F_95) {
					e = STEP_E_NO_DATA; /* data announced, never sent */
					break;
				}
				/* a message without FAST data (heartbeat, logon): valid, no records */
				s->msg.data = s->body;
				s->msg.data_len = 0;
				s->no_data++;
				s->msg.raw = s->body; /* the whole message is body[0..pos] */
			} else {
				s->msg.raw = 0;
			}
			body[pos++] = c;
			i++;
			s->msg.offset = s->msg_start;
			s->msg.len = pos;
			s->messages++;
			pos = 0;
			fl = 0;
			st = S_HUNT;
			ret = STEP_MSG;
			break;
		}
		if (e != FAST_OK || ret != STEP_NEED_MORE)
			break;
	}
	if (e != FAST_OK) {
		/* keep the error byte with the failed message: it is re-read */
		body[pos++] = c;
		i++;
		s->errors[e]++;
		s->err = (int)e;
		s->err_offset = base + i - 1;
		ret = STEP_ERROR;
		st = S_HUNT;
		fl = F_QUIET;
	}
	s->state = st | fl;
	s->pos = pos;
	s->body_len = bend;
	s->val = val;
	s->sum = sum;
	*status = ret;
	return i;
}

/* After an error: the failed message is body[0..pos), followed by the
 * pending bytes body[rd..end) not yet re-read. Its '8' is skipped; every
 * later byte becomes pending input again. */
static void step_requeue(struct step_deframer *s, uint32_t rd, uint32_t end)
{
	uint32_t pos = s->pos, k, left = end - rd;

	for (k = 0; k < STEP_BUF; k++) {
		if (k >= left)
			break;
		s->body[pos + k] = s->body[rd + k];
	}
	s->skipped++;
	s->pos = 0;
	s->match = PEND(1, pos + left);
}

uint32_t step_feed(struct step_deframer *s, const uint8_t *p, uint32_t n, int *status)
{
	uint32_t rd = PEND_RD(s->match), end = PEND_END(s->match), used;

	if (rd < end) {
		/* re-read the bytes of a failed message first */
		used = step_run(s, s->body + rd, end - rd, s->offset - (end - rd), status);
		rd += used;
		if (*status == STEP_ERROR && s->err != STEP_E_GARBAGE) {
			step_requeue(s, rd, end);
			return 0;
		}
		s->match = rd < end ? PEND(rd, end) : 0;
		if (*status != STEP_NEED_MORE)
			return 0;
	}
	used = step_run(s, p, n, s->offset, status);
	s->offset += used;
	s->bytes += used;
	if (*status == STEP_ERROR && s->err != STEP_E_GARBAGE)
		step_requeue(s, 0, 0);
	return used;
}
