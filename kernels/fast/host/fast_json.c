/* fast_json.c - print decoded FAST records as JSON, and error names (host only).
 *
 * Walks the template's instructions alongside the record's values (the value
 * layout of fast_decode.h: one value per field instruction, a decimal once at
 * its first instruction, a sequence as its length then each element's values,
 * a group as a presence value then its body when present). The output is
 * exact: decimals are printed from mantissa and exponent without floating
 * point, uInt64 as unsigned, strings escaped so the line is valid JSON even
 * for bytes that are not UTF-8. Records that do not match their template
 * (a decoder bug) are printed as far as they go; the printer never reads
 * outside the record.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fast/host/fast_json.h"

static const char *const err_names[FAST_ERR_COUNT] = {
	[FAST_OK] = "ok",
	[FAST_E_TRUNCATED] = "truncated",
	[FAST_E_NO_STOP_BIT] = "no_stop_bit",
	[FAST_E_RANGE] = "D2_range",
	[FAST_E_OVERLONG_INT] = "R6_overlong_int",
	[FAST_E_OVERLONG_PMAP] = "R7_overlong_pmap",
	[FAST_E_PMAP_EXTRA] = "R8_pmap_extra",
	[FAST_E_OVERLONG_STR] = "R9_overlong_string",
	[FAST_E_PMAP_TOO_LONG] = "pmap_too_long",
	[FAST_E_UNKNOWN_TEMPLATE] = "D9_unknown_template",
	[FAST_E_MANDATORY_UNDEF] = "D5_mandatory_undefined",
	[FAST_E_MANDATORY_EMPTY] = "D6_mandatory_empty",
	[FAST_E_SUBTRACT_LEN] = "D7_subtraction_length",
	[FAST_E_EXPONENT] = "R1_exponent",
	[FAST_E_STR_TOO_LONG] = "string_too_long",
	[FAST_E_SEQ_TOO_LONG] = "sequence_too_long",
	[FAST_E_TOO_MANY_VALUES] = "too_many_values",
	[FAST_E_NULL_MANDATORY] = "null_mandatory",
	[STEP_E_GARBAGE] = "step_garbage",
	[STEP_E_BAD_HEADER] = "step_bad_header",
	[STEP_E_TOO_LONG] = "step_too_long",
	[STEP_E_BAD_FIELD] = "step_bad_field",
	[STEP_E_BAD_DATA_LEN] = "step_bad_data_len",
	[STEP_E_BAD_LENGTH] = "step_bad_length",
	[STEP_E_BAD_CHECKSUM] = "step_bad_checksum",
	[STEP_E_NO_DATA] = "step_no_data",
};

const char *fast_err_name(int e)
{
	if (e < 0 || e >= FAST_ERR_COUNT || !err_names[e])
		return "unknown";
	return err_names[e];
}

static void put_u8esc(FILE *f, uint8_t b)
{
	fprintf(f, "\\u%04x", b);
}

/* Length of the valid UTF-8 sequence at s[0..n), 0 when invalid (RFC 3629). */
static int utf8_len(const uint8_t *s, int n)
{
	uint8_t b = s[0];
	int len, i;
	uint32_t cp;

	if (b < 0x80)
		return 1;
	if (b >= 0xc2 && b <= 0xdf) {
		len = 2; cp = b & 0x1f;
	} else if (b >= 0xe0 && b <= 0xef) {
		len = 3; cp = b & 0x0f;
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4; cp = b & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A JSON string. utf8: pass valid multi-byte UTF-8 through; every other byte
 * at or above 0x80, and every control character, becomes \u00XX. */
static void put_str(FILE *f, const uint8_t *s, int n, int utf8)
{
	int i = 0;

	fputc('"', f);
	while (i < n) {
		uint8_t b = s[i];
		if (b == '"' || b == '\\') {
			fputc('\\', f);
			fputc(b, f);
			i++;
		} else if (b < 0x20) {
			put_u8esc(f, b);
			i++;
		} else if (b < 0x80) {
			fputc(b, f);
			i++;
		} else {
			int l = utf8 ? utf8_len(s + i, n - i) : 0;
			if (l) {
				fwrite(s + i, 1, (size_t)l, f);
				i += l;
			} else {
				put_u8esc(f, b);
				i++;
			}
		}
	}
	fputc('"', f);
}

static void put_name(FILE *f, const char *name)
{
	put_str(f, (const uint8_t *)name, (int)strnlen(name, FAST_NAME_MAX), 1);
	fputc(':', f);
}

/* Exact decimal mantissa * 10^exp. */
static void put_decimal(FILE *f, int64_t m, int32_t exp)
{
	char d[24];
	uint64_t u = m < 0 ? ~(uint64_t)m + 1 : (uint64_t)m;
	int n = snprintf(d, sizeof d, "%" PRIu64, u), i;

	if (m < 0)
		fputc('-', f);
	if (exp > 63 || exp < -63) { /* outside FAST's range: still exact, never huge */
		fprintf(f, "%se%" PRId32, d, exp);
		return;
	}
	if (exp >= 0) {
		fputs(d, f);
		if (u != 0)
			for (i = 0; i < exp; i++)
				fputc('0', f);
		return;
	}
	if (-(int64_t)exp >= n) {
		fputs("0.", f);
		for (i = 0; i < -(int64_t)exp - n; i++)
			fputc('0', f);
		fputs(d, f);
	} else {
		fwrite(d, 1, (size_t)(n + exp), f);
		fputc('.', f);
		fputs(d + n + exp, f);
	}
}

struct walk {
	FILE *f;
	const struct fast_prog *p;
	const struct fast_names *names;
	const struct fast_rec *r;
	int vi;   /* next value */
	int nv;   /* values in the record */
};

static const char *field_name(struct walk *w, int ip, char *buf, size_t cap)
{
	if (w->names && w->names->field[ip][0])
		return w->names->field[ip];
	snprintf(buf, cap, "_%d", ip);
	return buf;
}

/* Print the value of one scalar instruction. */
static void put_scalar(struct walk *w, const struct fast_instr *in, const struct fast_val *v)
{
	FILE *f = w->f;
	int off = v->soff, len = v->slen, i;

	if (off > FAST_MAX_STRBUF)
		off = FAST_MAX_STRBUF;
	if (len > FAST_MAX_STRBUF - off)
		len = FAST_MAX_STRBUF - off;
	switch (in->kind) {
	case FAST_K_U32:
	case FAST_K_U64:
		fprintf(f, "%" PRIu64, (uint64_t)v->i);
		break;
	case FAST_K_ASCII:
		put_str(f, w->r->str + off, len, 0);
		break;
	case FAST_K_BYTES:
		if (in->flags & FAST_F_UNICODE) {
			put_str(f, w->r->str + off, len, 1);
		} else {
			fputc('"', f);
			for (i = 0; i < len; i++)
				fprintf(f, "%02x", w->r->str[off + i]);
			fputc('"', f);
		}
		break;
	case FAST_K_DECIMAL:
	case FAST_K_DEC_EXP:
		put_decimal(f, v->i, v->exp);
		break;
	default:
		fprintf(f, "%" PRId64, v->i);
		break;
	}
}

/* Fields of instructions [first, end) at one nesting level; *nfields counts those printed (comma before all but the first). */
static void put_fields(struct walk *w, int first, int end, int *nfields)
{
	const struct fast_prog *p = w->p;
	FILE *f = w->f;
	char nb[16];
	int ip;

	for (ip = first; ip < end && ip < p->ninstr; ip++) {
		const struct fast_instr *in = &p->instr[ip];
		const struct fast_val *v;
		int body_end;

		if (in->kind == FAST_K_DEC_MANT || in->kind == FAST_K_END)
			continue;
		if (w->vi >= w->nv)
			return;
		v = &w->r->v[w->vi++];
		if (in->kind == FAST_K_SEQ || in->kind == FAST_K_GROUP) {
			body_end = in->aux;
			if (body_end <= ip || body_end >= end)
				return; /* broken program: stop rather than guess */
			if (v->present) {
				if ((*nfields)++)
					fputc(',', f);
				put_name(f, field_name(w, ip, nb, sizeof nb));
				if (in->kind == FAST_K_GROUP) {
					int n = 0;
					fputc('{', f);
					put_fields(w, ip + 1, body_end, &n);
					fputc('}', f);
				} else {
					int64_t k, len = v->i;
					if (len > FAST_MAX_SEQ_LEN)
						len = FAST_MAX_SEQ_LEN;
					fputc('[', f);
					for (k = 0; k < len; k++) {
						int n = 0;
						if (k)
							fputc(',', f);
						fputc('{', f);
						put_fields(w, ip + 1, body_end, &n);
						fputc('}', f);
					}
					fputc(']', f);
				}
			}
			ip = body_end;
			continue;
		}
		if (!v->present)
			continue;
		if ((*nfields)++)
			fputc(',', f);
		put_name(f, field_name(w, ip, nb, sizeof nb));
		put_scalar(w, in, v);
	}
}

void fast_json_record(FILE *f, const struct fast_prog *p, const struct fast_names *names,
		      const struct fast_rec *r, const char *extra)
{
	struct walk w;
	int t = r->tpl, n = 1;

	fprintf(f, "{\"template\":%" PRIu32, r->tid);
	if (extra && extra[0]) {
		size_t l = strlen(extra);
		/* `extra` may end with the comma that separates it from the fields */
		if (extra[l - 1] == ',')
			l--;
		if (l) {
			fputc(',', f);
			fwrite(extra, 1, l, f);
		}
	}
	if (t >= p->ntpl || t >= FAST_MAX_TEMPLATES || p->tpl[t].id != r->tid)
		t = fast_prog_find(p, r->tid);
	if (t >= 0) {
		w.f = f;
		w.p = p;
		w.names = names;
		w.r = r;
		w.vi = 0;
		w.nv = r->nvals < FAST_MAX_VALUES ? r->nvals : FAST_MAX_VALUES;
		put_fields(&w, p->tpl[t].first, p->tpl[t].end, &n);
	}
	fputc('}', f);
}
