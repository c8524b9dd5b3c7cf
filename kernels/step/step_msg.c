/* step_msg.c - STEP session messages: encoder and field reader (synthesisable subset).
 *
 * See step_msg.h. Loops are bounded by the buffer capacity, STEP_STR_MAX or
 * the message length; no libc.
 */
#include "step_msg.h"

#define SOH 0x01

uint32_t step_strlen(const char *s, uint32_t max)
{
	uint32_t n;
	for (n = 0; n < max; n++)
		if (!s[n])
			break;
	return n;
}

int step_streq(const char *a, const char *b, uint32_t max)
{
	uint32_t i;
	for (i = 0; i < max; i++) {
		if (a[i] != b[i])
			return 0;
		if (!a[i])
			return 1;
	}
	return 1;
}

void step_strcpy(char *dst, const char *src, uint32_t cap)
{
	uint32_t i;
	if (!cap)
		return;
	for (i = 0; i + 1 < cap; i++) {
		if (!src[i])
			break;
		dst[i] = src[i];
	}
	dst[i] = 0;
}

int step_is_admin(const char *t)
{
	if (!t[0] || t[1])
		return 0;
	return (t[0] >= '0' && t[0] <= '5') || t[0] == 'A';
}

/* ---- encoder ------------------------------------------------------------------ */

static void put(struct step_enc *e, uint8_t c)
{
	if (e->pos >= e->cap) {
		e->ok = 0;
		return;
	}
	e->buf[e->pos++] = c;
}

/* Decimal digits of v into d[] (most significant first); returns the count. */
static uint32_t digits(uint64_t v, uint8_t d[20])
{
	uint8_t r[20];
	uint32_t n = 0, i;
	for (i = 0; i < 20; i++) {
		r[n++] = (uint8_t)('0' + v % 10);
		v /= 10;
		if (!v)
			break;
	}
	for (i = 0; i < n; i++)
		d[i] = r[n - 1 - i];
	return n;
}

static void put_u64(struct step_enc *e, uint64_t v)
{
	uint8_t d[20];
	uint32_t n = digits(v, d), i;
	for (i = 0; i < n; i++)
		put(e, d[i]);
}

static void put_tag(struct step_enc *e, uint32_t tag)
{
	put_u64(e, tag);
	put(e, '=');
}

void step_enc_str(struct step_enc *e, uint32_t tag, const char *s)
{
	uint32_t n = step_strlen(s, STEP_STR_MAX), i;
	if (n == STEP_STR_MAX) {
		e->ok = 0;
		return;
	}
	put_tag(e, tag);
	for (i = 0; i < n; i++)
		put(e, (uint8_t)s[i]);
	put(e, SOH);
}

void step_enc_u64(struct step_enc *e, uint32_t tag, uint64_t v)
{
	put_tag(e, tag);
	put_u64(e, v);
	put(e, SOH);
}

void step_enc_data(struct step_enc *e, const uint8_t *p, uint32_t n)
{
	uint32_t i;
	step_enc_u64(e, STEP_TAG_DATA_LEN, n);
	put_tag(e, STEP_TAG_DATA);
	if (n > e->cap - e->pos) { /* also bounds the loop below */
		e->ok = 0;
		return;
	}
	for (i = 0; i < n; i++)
		e->buf[e->pos + i] = p[i];
	e->pos += n;
	put(e, SOH);
}

/* Civil date of a day count since 1970-01-01 (proleptic Gregorian, eras of
 * 400 years = 146097 days, March-based years so the leap day comes last). */
static void civil(uint64_t days, uint32_t *y, uint32_t *m, uint32_t *d)
{
	uint64_t z = days + 719468; /* days since 0000-03-01 */
	uint64_t era = z / 146097;
	uint64_t doe = z - era * 146097;
	uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	uint64_t mp = (5 * doy + 2) / 153;
	uint64_t dd = doy - (153 * mp + 2) / 5 + 1;
	uint64_t mm = mp < 10 ? mp + 3 : mp - 9;
	*y = (uint32_t)(yoe + era * 400 + (mm <= 2));
	*m = (uint32_t)mm;
	*d = (uint32_t)dd;
}

static void fmt_n(char *o, uint32_t v, uint32_t w)
{
	uint32_t i;
	for (i = 0; i < w; i++) {
		o[w - 1 - i] = (char)('0' + v % 10);
		v /= 10;
	}
}

void step_fmt_time(uint64_t utc_ms, char out[22])
{
	uint32_t y, mo, d;
	uint64_t s = utc_ms / 1000;
	uint32_t sod = (uint32_t)(s % 86400);
	civil(s / 86400, &y, &mo, &d);
	fmt_n(out, y % 10000, 4);
	fmt_n(out + 4, mo, 2);
	fmt_n(out + 6, d, 2);
	out[8] = '-';
	fmt_n(out + 9, sod / 3600, 2);
	out[11] = ':';
	fmt_n(out + 12, sod / 60 % 60, 2);
	out[14] = ':';
	fmt_n(out + 15, sod % 60, 2);
	out[17] = '.';
	fmt_n(out + 18, (uint32_t)(utc_ms % 1000), 3);
	out[21] = 0;
}

void step_enc_begin(struct step_enc *e, uint8_t *buf, uint32_t cap, const char *msgtype, const char *sender,
		    const char *target, uint64_t seq, uint64_t utc_ms)
{
	char t[22];
	e->buf = buf;
	e->cap = cap;
	e->pos = STEP_ENC_HDR;
	e->start = 0;
	e->len = 0;
	e->ok = cap > STEP_ENC_HDR + 7;
	step_enc_str(e, STEP_TAG_MSG_TYPE, msgtype);
	if (sender[0])
		step_enc_str(e, STEP_TAG_SENDER, sender);
	if (target[0])
		step_enc_str(e, STEP_TAG_TARGET, target);
	step_enc_u64(e, STEP_TAG_MSG_SEQ_NUM, seq);
	step_fmt_time(utc_ms, t);
	step_enc_str(e, STEP_TAG_SENDING_TIME, t);
}

uint32_t step_enc_end(struct step_enc *e)
{
	static const char ver[] = "8=STEP.1.0.0";
	uint8_t d[20];
	uint32_t body = e->pos - STEP_ENC_HDR, n, h, i, sum = 0;

	if (!e->ok || e->pos < STEP_ENC_HDR)
		return 0;
	/* header: "8=STEP.1.0.0" SOH "9=" digits SOH, right before the body */
	n = digits(body, d);
	h = 12 + 1 + 2 + n + 1;
	e->start = STEP_ENC_HDR - h;
	for (i = 0; i < 12; i++)
		e->buf[e->start + i] = (uint8_t)ver[i];
	e->buf[e->start + 12] = SOH;
	e->buf[e->start + 13] = '9';
	e->buf[e->start + 14] = '=';
	for (i = 0; i < n; i++)
		e->buf[e->start + 15 + i] = d[i];
	e->buf[e->start + 15 + n] = SOH;
	for (i = e->start; i < e->pos; i++)
		sum += e->buf[i];
	sum &= 0xffu;
	put(e, '1');
	put(e, '0');
	put(e, '=');
	put(e, (uint8_t)('0' + sum / 100));
	put(e, (uint8_t)('0' + sum / 10 % 10));
	put(e, (uint8_t)('0' + sum % 10));
	put(e, SOH);
	if (!e->ok)
		return 0;
	e->len = e->pos - e->start;
	return e->len;
}

/* ---- reader -------------------------------------------------------------------- */

/* Copy a value; returns 0 when it did not fit (dst then holds its start). */
static int copy_val(char *dst, uint32_t cap, const uint8_t *v, uint32_t n)
{
	uint32_t i, k = n < cap - 1 ? n : cap - 1;
	for (i = 0; i < k; i++)
		dst[i] = (char)v[i];
	dst[k] = 0;
	return n < cap;
}

static uint64_t val_u64(const uint8_t *v, uint32_t n, int *ok)
{
	uint64_t x = 0;
	uint32_t i;
	if (n == 0 || n > 19)
		*ok = 0;
	for (i = 0; i < n && i < 19; i++) {
		if (v[i] < '0' || v[i] > '9') {
			*ok = 0;
			break;
		}
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	return x;
}

int step_fields_read(const uint8_t *m, uint32_t len, struct step_fields *f)
{
	uint8_t *z = (uint8_t *)f;
	uint32_t k = 0, i, nf, dl = 0, have_type = 0;
	int ok = 1;

	for (i = 0; i < (uint32_t)sizeof *f; i++)
		z[i] = 0;
	/* every field takes at least 3 bytes ("t=" and SOH... or "t=v"), so len/2 + 1 bounds the count */
	for (nf = 0; nf < len / 2 + 1 && ok; nf++) {
		uint32_t tag = 0, j, v0, vn;
		const uint8_t *v;
		if (k >= len)
			break;
		for (j = 0; j < 9 && k < len && m[k] >= '0' && m[k] <= '9'; j++)
			tag = tag * 10 + (uint32_t)(m[k++] - '0');
		if (j == 0 || k >= len || m[k] != '=')
			return -1;
		k++;
		v0 = k;
		if (tag == STEP_TAG_DATA) {
			if (dl > len - k || dl == len - k || m[k + dl] != SOH)
				return -1;
			f->data = m + k;
			f->data_len = dl;
			k += dl + 1;
			continue;
		}
		for (j = 0; j < len; j++) {
			if (k >= len || m[k] == SOH)
				break;
			k++;
		}
		if (k >= len)
			return -1; /* no SOH after the value */
		vn = k - v0;
		v = m + v0;
		k++;
		switch (tag) {
		case STEP_TAG_MSG_TYPE:
			have_type = vn > 0;
			if (!copy_val(f->msgtype, sizeof f->msgtype, v, vn))
				f->too_long = 1;
			break;
		case STEP_TAG_MSG_SEQ_NUM: f->seq = val_u64(v, vn, &ok); break;
		case STEP_TAG_SENDER:
			if (!copy_val(f->sender, sizeof f->sender, v, vn))
				f->too_long = 1;
			break;
		case STEP_TAG_TARGET:
			if (!copy_val(f->target, sizeof f->target, v, vn))
				f->too_long = 1;
			break;
		case STEP_TAG_USERNAME:
			if (!copy_val(f->username, sizeof f->username, v, vn))
				f->too_long = 1;
			break;
		case STEP_TAG_PASSWORD:
			if (!copy_val(f->password, sizeof f->password, v, vn))
				f->too_long = 1;
			break;
		case STEP_TAG_TEST_REQ_ID:
			if (!copy_val(f->test_req_id, sizeof f->test_req_id, v, vn))
				f->too_long = 1;
			break;
		case STEP_TAG_TEXT:
			if (!copy_val(f->text, sizeof f->text, v, vn))
				f->text_cut = 1;
			break;
		case STEP_TAG_HEARTBT_INT: {
			uint64_t x = val_u64(v, vn, &ok);
			f->has_heartbeat = 1;
			f->heartbeat_s = x > 0xffffffffu ? 0xffffffffu : (uint32_t)x;
			break;
		}
		case STEP_TAG_ENCRYPT_METHOD:
			f->has_encrypt = 1;
			f->encrypt = (uint32_t)val_u64(v, vn < 9 ? vn : 9, &ok);
			break;
		case STEP_TAG_RESET_SEQ_NUM: f->reset_seq = vn == 1 && v[0] == 'Y'; break;
		case STEP_TAG_POSS_DUP: f->poss_dup = vn == 1 && v[0] == 'Y'; break;
		case STEP_TAG_GAP_FILL: f->gap_fill = vn == 1 && v[0] == 'Y'; break;
		case STEP_TAG_NEW_SEQ_NO:
			f->has_new_seq = 1;
			f->new_seq = val_u64(v, vn, &ok);
			break;
		case STEP_TAG_BEGIN_SEQ_NO: f->begin_seq = val_u64(v, vn, &ok); break;
		case STEP_TAG_END_SEQ_NO: f->end_seq = val_u64(v, vn, &ok); break;
		case STEP_TAG_DATA_LEN: dl = (uint32_t)val_u64(v, vn < 9 ? vn : 9, &ok); break;
		default: break;
		}
	}
	return ok && have_type ? 0 : -1;
}
