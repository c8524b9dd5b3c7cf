/* fuzz_common.h - what the libFuzzer targets share (header only).
 *
 * The fuzz build compiles each target (tests/fuzz/fuzz_NAME.c) alone with the
 * kernels and tests/lib/, so the shared pieces live here as static
 * functions. Define FUZZ_NAME (the target's name, a string literal) before
 * including: FAIL() prints "FUZZ_NAME: message" and aborts.
 *
 *   FUZZ_FAST_PROGS     defined before including: progs[2] and names, loaded
 *                       by the LLVMFuzzerInitialize defined here: progs[0] the
 *                       SSE 3201/5801 set from conf/templates/ (read from the
 *                       repository root), progs[1] the all-features template
 *                       below (the FAST targets pick one with byte 0 bit 0);
 *   fuzz_step_repair()  make STEP BodyLength/CheckSum fields consistent so
 *                       that mutated messages get past the framing checks.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME (the target's name) before including fuzz_common.h"
#endif

#define FAIL(...)                                                                      \
	do {                                                                           \
		fprintf(stderr, FUZZ_NAME ": " __VA_ARGS__);                           \
		fprintf(stderr, "\n");                                                 \
		abort();                                                               \
	} while (0)

#ifdef FUZZ_FAST_PROGS
#include "fast/host/fast_compile.h"

#define FUZZ_SSE_TEMPLATES "conf/templates/sse-l2-3201-5801.xml"

static struct fast_prog progs[2];
static struct fast_names names;

/* progs[0]: the SSE set; progs[1]: a template that uses every type, operator,
 * presence, sequence, group, templateRef and dictionary scope the compiler
 * knows, so the fuzzer reaches all of the decoder. Aborts when either does
 * not compile. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
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
	char err[512];

	(void)argc;
	(void)argv;
	if (fast_compile_file(FUZZ_SSE_TEMPLATES, &progs[0], &names, err, sizeof err) != 0)
		FAIL("cannot compile %s (run from the repository root): %s", FUZZ_SSE_TEMPLATES, err);
	if (fast_compile_buffer(all_xml, sizeof all_xml - 1, "all-features", &progs[1], &names, err,
				sizeof err) != 0)
		FAIL("cannot compile the built-in template: %s", err);
	return 0;
}
#endif

/* Make every "8=STEP ... SOH 10=ddd SOH" consistent: BodyLength (when
 * fixlen, and when the digits are there to hold it, zero-padded) and
 * CheckSum. */
static inline void fuzz_step_repair(uint8_t *b, size_t n, int fixlen)
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

#endif
