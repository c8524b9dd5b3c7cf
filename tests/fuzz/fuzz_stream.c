/* fuzz_stream.c - libFuzzer target for fast_stream: STEP deframing + FAST decoding.
 *
 * Input: byte 0 bit 0 picks the program (clear: the SSE set from
 * conf/templates/, read once from the repository root; set: the
 * all-features template of fuzz_common.h), bit 1 the framing
 * (clear: STEP byte stream, set: each chunk is one datagram of raw FAST),
 * bit 2 repairs STEP BodyLength/CheckSum fields so that mutated messages
 * reach the decoder, bit 3 restarts the stream (fast_stream_restart) after
 * chunks whose size byte has bit 7 set. Bytes 1..4 give the chunk sizes; the
 * rest is the input. Every event is checked against the header's promises.
 */
#include <stdint.h>
#include <string.h>

#include "fast/fast_stream.h"

#define FUZZ_NAME "fuzz_stream"
#define FUZZ_FAST_PROGS
#include "fuzz_common.h"

static struct fast_stream fs;

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
		fuzz_step_repair(fixed, inlen, 1);
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
