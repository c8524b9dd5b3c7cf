/* fuzz_stream.c - libFuzzer target for fast_stream: STEP deframing + FAST decoding.
 *
 * Input: byte 0 bit 0 picks the program (clear: the SSE set from
 * conf/templates/, read once from the repository root; set: the
 * all-features template, the same as in fuzz_fast_raw.c), bit 1 the framing
 * (clear: STEP byte stream, set: each chunk is one datagram of raw FAST),
 * bit 2 repairs STEP BodyLength/CheckSum fields so that mutated messages
 * reach the decoder, bit 3 restarts the stream (fast_stream_restart) after
 * chunks whose size byte has bit 7 set. Bytes 1..4 give the chunk sizes; the
 * rest is the input. Every event is checked against the header's promises.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast/fast_stream.h"
#include "fast/host/fast_compile.h"

#define SSE_TEMPLATES "conf/templates/sse-l2-3201-5801.xml"

/* Kept in step with tests/fuzz/fuzz_fast_raw.c (each target is one file). */
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
static struct fast_stream fs;

#define FAIL(...)                                                                      \
	do {                                                                           \
		fprintf(stderr, "fuzz_stream: " __VA_ARGS__);                          \
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

/* Make every "8=STEP ... SOH 10=ddd SOH" consistent: BodyLength (when the
 * digits are there to hold it, zero-padded) and CheckSum. */
static void repair(uint8_t *b, size_t n, int fixlen)
{
	size_t a, k, e;
	for (a = 0; a + 6 <= n; a++) {
		uint32_t sum = 0;
		if (memcmp(b + a, "8=STEP", 6) != 0)
			continue;
		/* the first SOH 10= after it ends the body */
		for (e = a + 6; e + 7 <= n; e++)
			if (b[e] == 0x01 && b[e + 1] == '1' && b[e + 2] == '0' && b[e + 3] == '=')
				break;
		if (e + 7 > n)
			return;
		if (fixlen) {
			size_t d0, d1;
			for (k = a + 6; k < e && b[k] != 0x01; k++)
				;
			if (k + 3 < e && b[k + 1] == '9' && b[k + 2] == '=') {
				uint64_t v;
				d0 = d1 = k + 3;
				while (d1 < e && b[d1] >= '0' && b[d1] <= '9')
					d1++;
				if (d1 > d0 && d1 < e && b[d1] == 0x01) {
					v = e + 1 - (d1 + 1);
					for (k = d1; k > d0; k--) {
						b[k - 1] = (uint8_t)('0' + v % 10);
						v /= 10;
					}
				}
			}
		}
		for (k = a; k <= e; k++)
			sum += b[k];
		b[e + 4] = (uint8_t)('0' + sum % 256 / 100);
		b[e + 5] = (uint8_t)('0' + sum % 100 / 10);
		b[e + 6] = (uint8_t)('0' + sum % 10);
		a = e;
	}
}

static void check_rec(const struct fast_prog *p, const struct fast_rec *r)
{
	uint32_t i;
	if (r->tpl >= p->ntpl || p->tpl[r->tpl].id != r->tid)
		FAIL("record names template %u (id %u)", r->tpl, r->tid);
	if (r->nvals > FAST_MAX_VALUES || r->nstr > FAST_MAX_STRBUF)
		FAIL("record has %u values, %u string bytes", r->nvals, r->nstr);
	for (i = 0; i < r->nvals; i++) {
		const struct fast_val *v = &r->v[i];
		uint8_t kind;
		if (v->instr >= p->ninstr)
			FAIL("value %u from instruction %u of %u", i, v->instr, p->ninstr);
		kind = p->instr[v->instr].kind;
		if (v->present && (kind == FAST_K_ASCII || kind == FAST_K_BYTES) &&
		    (v->slen > FAST_MAX_STR || (uint32_t)v->soff + v->slen > r->nstr))
			FAIL("string %u+%u outside the record's %u bytes", v->soff, v->slen, r->nstr);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t fixed[1 << 18];
	const struct fast_prog *p;
	const uint8_t *in;
	uint8_t pat[4];
	size_t inlen, at = 0, hdr = 5;
	uint64_t fed = 0, nrec = 0;
	int framing, k = 0;

	if (size < hdr || size > sizeof fixed)
		return 0;
	p = &progs[data[0] & 1];
	framing = data[0] & 2 ? FAST_FRAMING_DATAGRAM : FAST_FRAMING_STEP;
	memcpy(pat, data + 1, 4);
	in = data + hdr;
	inlen = size - hdr;
	if (data[0] & 4) {
		memcpy(fixed, in, inlen);
		repair(fixed, inlen, 1);
		in = fixed;
	}
	fast_stream_init(&fs, p, framing);
	while (at < inlen) {
		uint32_t c = pat[k % 4] + 1u, calls;
		int ev;
		if (c > inlen - at)
			c = (uint32_t)(inlen - at);
		if ((data[0] & 8) && (pat[k % 4] & 0x80))
			fast_stream_restart(&fs, fed);
		k++;
		fast_stream_feed(&fs, in + at, c);
		fed += c;
		/* each event uses input or a record's bytes; the buffered bytes of
		 * a failed message can add at most one event per byte */
		for (calls = 0;; calls++) {
			if (calls > 2 * c + 2 * sizeof fs.step.body + 16)
				FAIL("no progress: %u events from a chunk of %u bytes", calls, c);
			ev = fast_stream_next(&fs);
			if (ev == FS_NONE)
				break;
			if (ev == FS_RECORD) {
				check_rec(p, &fs.rec);
				nrec++;
			} else if (ev == FS_ERROR) {
				if (fs.err <= FAST_OK || fs.err >= FAST_ERR_COUNT)
					FAIL("error code %d", fs.err);
				if (fs.err_offset > fed)
					FAIL("error offset %llu beyond the input fed (%llu)",
					     (unsigned long long)fs.err_offset, (unsigned long long)fed);
			} else {
				FAIL("event %d", ev);
			}
		}
		/* FS_NONE means the chunk is used up: the next feed replaces it */
		if (framing == FAST_FRAMING_STEP && fs.in_len != 0)
			FAIL("FS_NONE with %u bytes of the chunk not consumed", fs.in_len);
		at += c;
	}
	if (fs.records != nrec)
		FAIL("%llu records counted, %llu delivered", (unsigned long long)fs.records,
		     (unsigned long long)nrec);
	return 0;
}
