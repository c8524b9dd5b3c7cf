/* fuzz_fast_raw.c - libFuzzer target for the FAST decoder on a raw stream.
 *
 * Input: byte 0 picks the program (bit 0 clear: the SSE 3201/5801 set from
 * conf/templates/, read once from the repository root; set: the
 * all-features template of fuzz_common.h, which uses every type, operator,
 * presence, sequence, group, templateRef and dictionary scope the compiler
 * knows, so the fuzzer reaches all of the decoder). Bit 1 resets the
 * dictionary before every record (as if each were its own message). The rest is decoded with fast_dec_record
 * until an error or the end; every record is checked against the bounds the
 * header promises.
 */
#include <stdint.h>

#include "fast/fast_decode.h"

#define FUZZ_NAME "fuzz_fast_raw"
#define FUZZ_FAST_PROGS
#include "fuzz_common.h"

static struct fast_dec dec;
static struct fast_rec rec;

static void check_rec(const struct fast_prog *p, const struct fast_rec *r)
{
	uint32_t i, reportable = 1u << FAST_E_OVERLONG_INT | 1u << FAST_E_OVERLONG_PMAP | 1u << FAST_E_OVERLONG_STR;
	if (r->tpl >= p->ntpl || p->tpl[r->tpl].id != r->tid)
		FAIL("record names template %u (id %u)", r->tpl, r->tid);
	if (r->nvals > FAST_MAX_VALUES || r->nstr > FAST_MAX_STRBUF)
		FAIL("record has %u values, %u string bytes", r->nvals, r->nstr);
	if (r->warn & ~reportable)
		FAIL("warn bits %#x beyond the reportable errors", r->warn);
	for (i = 0; i < r->nvals; i++) {
		const struct fast_val *v = &r->v[i];
		const struct fast_instr *in;
		if (v->instr >= p->ninstr)
			FAIL("value %u from instruction %u of %u", i, v->instr, p->ninstr);
		in = &p->instr[v->instr];
		if (!v->present)
			continue;
		if (in->kind == FAST_K_ASCII || in->kind == FAST_K_BYTES) {
			if (v->slen > FAST_MAX_STR || (uint32_t)v->soff + v->slen > r->nstr)
				FAIL("string %u+%u outside the record's %u bytes", v->soff, v->slen, r->nstr);
		} else if (in->kind == FAST_K_SEQ) {
			if (v->i < 0 || v->i > FAST_MAX_SEQ_LEN)
				FAIL("sequence length %lld", (long long)v->i);
		} else if (in->kind == FAST_K_DECIMAL || in->kind == FAST_K_DEC_EXP) {
			if (v->exp < -63 || v->exp > 63)
				FAIL("decimal exponent %d", v->exp);
		} else if (in->kind == FAST_K_I32) {
			if (v->i < INT32_MIN || v->i > INT32_MAX)
				FAIL("int32 value %lld", (long long)v->i);
		} else if (in->kind == FAST_K_U32) {
			if (v->i < 0 || v->i > (int64_t)UINT32_MAX)
				FAIL("uInt32 value %lld", (long long)v->i);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fast_prog *p;
	uint32_t off = 0, len, nrec = 0, nerr = 0, k;
	int per_record_reset;

	if (size < 1 || size > 1u << 20)
		return 0;
	p = &progs[data[0] & 1];
	per_record_reset = (data[0] & 2) != 0;
	data++;
	len = (uint32_t)(size - 1);
	fast_dec_init(&dec, p);
	fast_dec_reset(&dec);
	for (k = 0; k <= len; k++) {
		uint32_t used = 0xffffffffu;
		int e;
		if (off >= len)
			break;
		if (per_record_reset)
			fast_dec_reset(&dec);
		e = fast_dec_record(&dec, data + off, len - off, &used, &rec);
		if (used > len - off)
			FAIL("used %u of %u", used, len - off);
		if (e != FAST_OK) {
			if (e <= FAST_OK || e >= FAST_ERR_COUNT || e >= STEP_E_GARBAGE)
				FAIL("error code %d", e);
			if (fast_err_is_reportable(e))
				FAIL("reportable error %d returned instead of FAST_OK", e);
			nerr++;
			if (dec.errors[e] == 0)
				FAIL("error %d not counted", e);
			break;
		}
		if (used == 0)
			FAIL("a record of 0 bytes");
		check_rec(p, &rec);
		nrec++;
		off += used;
	}
	if (dec.records != nrec)
		FAIL("%llu records counted, %u decoded", (unsigned long long)dec.records, nrec);
	(void)nerr;
	return 0;
}
