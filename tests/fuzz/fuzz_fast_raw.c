/* fuzz_fast_raw.c - libFuzzer target for the FAST decoder on a raw stream.
 *
 * Input: byte 0 picks the program (bit 0 clear: the SSE 3201/5801 set from
 * conf/templates/, read once from the repository root; set: the template
 * below, which uses every type, operator, presence, sequence, group,
 * templateRef and dictionary scope the compiler knows, so the fuzzer reaches
 * all of the decoder). Bit 1 resets the dictionary before every record (as
 * if each were its own message). The rest is decoded with fast_dec_record
 * until an error or the end; every record is checked against the bounds the
 * header promises.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast/fast_decode.h"
#include "fast/host/fast_compile.h"

#define SSE_TEMPLATES "conf/templates/sse-l2-3201-5801.xml"

/* Kept in step with tests/fuzz/fuzz_stream.c (each target is one file). */
static const char all_xml[] =
	"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
	" <template name=\"Part\" id=\"7\">\n"
	"  <uInt32 name=\"PartA\"><copy/></uInt32>\n"
	"  <string name=\"PartB\" presence=\"optional\"><default value=\"p\"/></string>\n"
	" </template>\n"
	" <template name=\"All\" id=\"1\">\n"
	"  <uInt32 name=\"U32\"/>\n"
	"  <int32 name=\"I32Opt\" presence=\"optional\"/>\n"
	"  <int64 name=\"I64Copy\"><copy/></int64>\n"
	"  <uInt64 name=\"U64OptCopy\" presence=\"optional\"><copy/></uInt64>\n"
	"  <int32 name=\"I32Incr\"><increment value=\"5\"/></int32>\n"
	"  <uInt32 name=\"U32OptIncr\" presence=\"optional\"><increment/></uInt32>\n"
	"  <int64 name=\"I64Delta\"><delta/></int64>\n"
	"  <int32 name=\"I32OptDelta\" presence=\"optional\"><delta value=\"7\"/></int32>\n"
	"  <uInt32 name=\"U32Const\"><constant value=\"9\"/></uInt32>\n"
	"  <int32 name=\"I32OptConst\" presence=\"optional\"><constant value=\"-3\"/></int32>\n"
	"  <int64 name=\"I64Default\"><default value=\"100\"/></int64>\n"
	"  <uInt64 name=\"U64OptDefault\" presence=\"optional\"><default/></uInt64>\n"
	"  <string name=\"Ascii\"/>\n"
	"  <string name=\"AsciiOpt\" presence=\"optional\"/>\n"
	"  <string name=\"AsciiCopy\"><copy value=\"abc\"/></string>\n"
	"  <string name=\"AsciiOptTail\" presence=\"optional\"><tail/></string>\n"
	"  <string name=\"AsciiDelta\"><delta/></string>\n"
	"  <string name=\"AsciiOptDelta\" presence=\"optional\"><delta/></string>\n"
	"  <string name=\"AsciiDefault\"><default value=\"x\"/></string>\n"
	"  <string name=\"AsciiConst\"><constant value=\"K\"/></string>\n"
	"  <string name=\"Uni\" charset=\"unicode\"><copy/></string>\n"
	"  <string name=\"UniOptDelta\" charset=\"unicode\" presence=\"optional\"><delta/></string>\n"
	"  <byteVector name=\"Bytes\"/>\n"
	"  <byteVector name=\"BytesOptTail\" presence=\"optional\"><tail/></byteVector>\n"
	"  <byteVector name=\"BytesDelta\"><delta value=\"0a0b\"/></byteVector>\n"
	"  <decimal name=\"Dec\"/>\n"
	"  <decimal name=\"DecOpt\" presence=\"optional\"/>\n"
	"  <decimal name=\"DecCopy\"><copy/></decimal>\n"
	"  <decimal name=\"DecOptDefault\" presence=\"optional\"><default value=\"1.5\"/></decimal>\n"
	"  <decimal name=\"DecDelta\"><delta/></decimal>\n"
	"  <decimal name=\"DecConst\"><constant value=\"2.25\"/></decimal>\n"
	"  <decimal name=\"DecIndiv\"><exponent><copy value=\"-2\"/></exponent>"
	"<mantissa><delta/></mantissa></decimal>\n"
	"  <decimal name=\"DecIndivOpt\" presence=\"optional\"><exponent><default value=\"-2\"/></exponent>"
	"<mantissa><increment value=\"1\"/></mantissa></decimal>\n"
	"  <int32 name=\"Scaled\" decimalPlaces=\"3\"><copy/></int32>\n"
	"  <uInt32 name=\"Keyed\"><copy key=\"U32\"/></uInt32>\n"
	"  <int64 name=\"TplDict\" dictionary=\"template\"><increment/></int64>\n"
	"  <sequence name=\"Seq\">\n"
	"   <length name=\"SeqLen\"><copy/></length>\n"
	"   <uInt32 name=\"SeqA\"><increment/></uInt32>\n"
	"   <string name=\"SeqB\" presence=\"optional\"><copy/></string>\n"
	"   <group name=\"Inner\" presence=\"optional\">\n"
	"    <int64 name=\"InnerX\"/>\n"
	"    <sequence name=\"Seq2\" presence=\"optional\">\n"
	"     <uInt32 name=\"Deep\"><delta/></uInt32>\n"
	"    </sequence>\n"
	"   </group>\n"
	"  </sequence>\n"
	"  <sequence name=\"SeqNoPmap\">\n"
	"   <int32 name=\"NoBit\"/>\n"
	"  </sequence>\n"
	"  <group name=\"Grp\" presence=\"optional\">\n"
	"   <uInt32 name=\"GA\"><copy/></uInt32>\n"
	"  </group>\n"
	"  <templateRef name=\"Part\"/>\n"
	" </template>\n"
	" <template name=\"Small\" id=\"2\">\n"
	"  <int32 name=\"I64Copy\"><copy/></int32>\n"
	"  <string name=\"S\" presence=\"optional\"><copy/></string>\n"
	" </template>\n"
	"</templates>\n";

static struct fast_prog progs[2];
static struct fast_names names;
static struct fast_dec dec;
static struct fast_rec rec;

#define FAIL(...)                                                                      \
	do {                                                                           \
		fprintf(stderr, "fuzz_fast_raw: " __VA_ARGS__);                        \
		fprintf(stderr, "\n");                                                 \
		abort();                                                               \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[512];
	(void)argc;
	(void)argv;
	if (fast_compile_file(SSE_TEMPLATES, &progs[0], &names, err, sizeof err) != 0)
		FAIL("cannot compile %s (run from the repository root): %s", SSE_TEMPLATES, err);
	if (fast_compile_buffer(all_xml, sizeof all_xml - 1, "all-features", &progs[1], &names, err,
				sizeof err) != 0)
		FAIL("cannot compile the built-in template: %s", err);
	return 0;
}

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
