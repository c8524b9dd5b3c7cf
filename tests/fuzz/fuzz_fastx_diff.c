/* fuzz_fastx_diff.c - differential libFuzzer target: the fast decoder against the reference.
 *
 * The same bytes go through the reference (fast_dec_record + fast_tick_map,
 * fast_stream_next) and the specialised host decoder (fastx_record,
 * fastx_stream_next) on separate state; any difference in records (tick
 * record bytes, tick type, warnings), error codes, error offsets, consumed
 * bytes, counters or dictionary contents aborts; in STEP framing also the
 * deframer's messages and counters (fastx_step.c frames whole messages in
 * bulk, the reference byte by byte or word by word).
 *
 * Input: byte 0 bits 0-1 the program (0 the SSE set, 1 the all-features
 * template of fuzz_common.h, mostly the fallback, 2 tests/lib/fastx_tpl.h,
 * all specialised, 3 a program generated from the input, below); bit 2 STEP
 * (else raw records); bit 3 a SIMD
 * instruction set (else scalar): the VBMI level (whole records in vector
 * registers, fastx_vec.c) when the input's size is odd, else AVX-512 when
 * its bit 1 is set, else AVX2, each capped at what the CPU runs; bit 4 pext when the CPU has BMI2; bit 5
 * repairs STEP BodyLength/CheckSum so mutated messages reach the decoder;
 * bit 6 datagram framing (each chunk one raw FAST message). Bytes 1..4 are a
 * pattern: raw mode, per record: bit 7 resets the dictionary, bits 5-6 both
 * set truncate the record's input to bits 0-4 bytes; stream mode, per
 * chunk: size = byte + 1, bit 7 with byte 0 bit 7 restarts the stream.
 *
 * Generated programs (program 3): the fixed programs are templates somebody
 * here wrote, and the fast path was written against them; this mode makes
 * the templates themselves fuzz input. After the 5-byte header, bytes
 * describe 1-3 templates (gen_program: per template its class (trade, order,
 * none), field count, id, and whether it keeps to what the fast path
 * specialises; per field 4 bytes: name (a tick-mapped one or F<n>), type,
 * presence, operator, initial value, key=, decimalPlaces=; rarely a sequence
 * or group), written out as FAST 1.1 template XML and compiled with
 * fast_compile_buffer (a refusal ends the input; counted). One byte then
 * chooses a damage (none, a flipped byte, a truncation) and the rest drives
 * records (gen_data): values per field instruction from the bytes (small,
 * boundary, negative, the field's previous value or it plus one so copy /
 * increment / delta compress, absent, strings of 0-64 bytes), encoded by
 * fast_enc_record with its own dictionary (a record it refuses is skipped,
 * its dictionary restored). The encoder resets its dictionary where the
 * decoders will: raw mode at the pattern's reset bits (records it does not
 * truncate stay in step), STEP and datagram framing at every message, so
 * records end a message when their control byte says so; STEP messages are
 * framed by step_frame (bit 5 still repairs them after the damage), and in
 * datagram framing each message is fed as one datagram rather than cut by
 * the pattern, so that the records arrive whole. FUZZ_VERBOSE=1 prints at
 * exit how many programs compiled, templates specialised / fell back, and
 * records encoded, decoded specialised / by the fallback, and in error;
 * FUZZ_VERBOSE=2 also each refusal and each fallback reason.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fast/fast_stream.h"
#include "fast/fast_tick.h"
#include "fast/host/fast_encode.h"
#include "fast/host/fastx.h"
#include "fast/host/step_frame.h"
#include "seq/seq_track.h"
#include "fastx_tpl.h"

#define FUZZ_NAME "fuzz_fastx_diff"
#define FUZZ_FAST_PROGS
#include "fuzz_common.h"
#include "fuzz_gen_fast.h"

static struct fast_prog spec_prog;
/* program 3: generated from the input, compiled and lowered per input (xps[3]) */
static struct fast_prog gen_prog;
static struct fastx_prog *xps[4];
static struct fast_dec dr, dx;
static struct fast_rec rec, scratch;
static struct fast_stream sr, sx;
static struct fastx_dec x;
/* sequence keys per program: per template the first (channel, sequence)
 * pair of integer fields fastx_keys_set takes, so fastx_key (from the tick)
 * is compared with seq_key (from the value array) on every record */
static struct seq_keys keys[4];
/* records the VBMI level decoded in vector registers / handed to the AVX2
 * body, over the run: printed at exit with FUZZ_VEC_STATS=1 (how much of the
 * input reached the vector path at all) */
static uint64_t vec_total, vec_fb_total;

static void vec_stats(void)
{
	fprintf(stderr, "fuzz_fastx_diff: VBMI level: %llu records on the vector path, %llu to the AVX2 body\n",
		(unsigned long long)vec_total, (unsigned long long)vec_fb_total);
}

static void gen_stats(void)
{
	fprintf(stderr,
		"fuzz_fastx_diff: generated programs: %llu inputs, %llu compiled, %llu refused; templates %llu "
		"specialised, %llu fallback; %llu programs with a sequence key\n",
		(unsigned long long)g_inputs, (unsigned long long)g_compiled, (unsigned long long)g_refused,
		(unsigned long long)g_tpl_spec, (unsigned long long)g_tpl_fb, (unsigned long long)g_keyed);
	fprintf(stderr,
		"fuzz_fastx_diff: generated records: %llu encoded, %llu refused by the encoder; decoded %llu "
		"specialised, %llu fallback; %llu records decoded, %llu errors\n",
		(unsigned long long)g_enc, (unsigned long long)g_enc_fail, (unsigned long long)g_fast,
		(unsigned long long)g_fb, (unsigned long long)g_dec_ok, (unsigned long long)g_dec_err);
}

static const struct fast_prog *prog_of(int which)
{
	return which == 0 ? &progs[0] : which == 1 ? &progs[1] : which == 2 ? &spec_prog : &gen_prog;
}

/* Per template the first (channel, sequence) pair of integer fields that
 * fastx_keys_set takes into k; returns how many templates got one. */
static uint32_t find_keys(const struct fast_prog *p, const struct fastx_prog *xp, struct seq_keys *k)
{
	uint32_t nkeyed = 0;
	memset(k, 0xff, sizeof k->chan + sizeof k->seq);
	memset(k->vchan, 0, sizeof k->vchan);
	memset(k->vseq, 0, sizeof k->vseq);
	fastx_dec_init(&x, xp, &scratch);
	for (uint32_t t = 0; t < p->ntpl && t < FAST_MAX_TEMPLATES; t++) {
		for (uint32_t a = p->tpl[t].first; a < p->tpl[t].end && k->chan[t] == SEQ_NO_INSTR; a++) {
			for (uint32_t b = p->tpl[t].first; b < p->tpl[t].end; b++) {
				if (a == b || p->instr[a].kind < FAST_K_I32 || p->instr[a].kind > FAST_K_U64 ||
				    p->instr[b].kind < FAST_K_I32 || p->instr[b].kind > FAST_K_U64)
					continue;
				k->chan[t] = (uint16_t)a;
				k->seq[t] = (uint16_t)b;
				fastx_keys_set(&x, k->chan, k->seq);
				if (x.kchan[t].w) {
					nkeyed++;
					break;
				}
				k->chan[t] = SEQ_NO_INSTR;
				k->seq[t] = SEQ_NO_INSTR;
			}
		}
	}
	return nkeyed;
}

static void setup(void)
{
	static struct fast_names nm;
	char err[256];
	if (xps[0])
		return;
	if (getenv("FUZZ_VEC_STATS"))
		atexit(vec_stats);
	if (getenv("FUZZ_VERBOSE")) {
		gen_verbose = atoi(getenv("FUZZ_VERBOSE"));
		atexit(gen_stats);
	}
	if (fast_compile_buffer(fastx_spec_xml, sizeof fastx_spec_xml - 1, "fastx-spec", &spec_prog, &nm, err,
				sizeof err) != 0)
		FAIL("cannot compile fastx_tpl.h: %s", err);
	for (int i = 0; i < 3; i++) {
		xps[i] = fastx_prog_new(prog_of(i));
		if (!xps[i])
			FAIL("fastx_prog_new");
	}
	for (int i = 0; i < 3; i++) {
		uint32_t nkeyed = find_keys(prog_of(i), xps[i], &keys[i]);
		/* the all-features program (1) has no trade/order template: no tick, no key */
		if (fastx_keys_set(&x, keys[i].chan, keys[i].seq) != 0 || (i != 1 && nkeyed == 0))
			FAIL("program %d: no template keyed from its tick (%u)", i, nkeyed);
	}
	if (fastx_prog_fallback(xps[2]) != 0)
		FAIL("fastx_tpl.h templates fall back: %s", fastx_prog_why(xps[2], 0));
	if (fastx_prog_fallback(xps[0]) != 0)
		FAIL("the SSE templates fall back: %s", fastx_prog_why(xps[0], 0));
}

static void cmp_dec(const struct fast_prog *p, const struct fast_dec *a, const struct fast_dec *b, const char *where)
{
	if (a->records != b->records)
		FAIL("%s: records %llu vs %llu", where, (unsigned long long)a->records, (unsigned long long)b->records);
	for (int e = 0; e < FAST_ERR_COUNT; e++)
		if (a->errors[e] != b->errors[e])
			FAIL("%s: errors[%d] %llu vs %llu", where, e, (unsigned long long)a->errors[e],
			     (unsigned long long)b->errors[e]);
	if (a->gen != b->gen)
		FAIL("%s: generation %u vs %u", where, a->gen, b->gen);
	/* every word of every entry, not only the current values: both started
	 * from the same leftovers (stale_fill), and a word one decoder writes
	 * where the other does not (an old value a NULL keeps) is read back
	 * later, by a field of another type under the key or of another program */
	for (uint32_t k = 0; k < p->ndict && k < FAST_MAX_DICT; k++) { /* (no other entry is written) */
		const struct fast_dict_entry *u = &a->dict[k], *v = &b->dict[k];
		uint32_t su = u->gen == a->gen ? u->state : 0, sv = v->gen == b->gen ? v->state : 0;
		if (su != sv)
			FAIL("%s: slot %u state %u vs %u", where, k, su, sv);
		if (u->i != v->i || u->exp != v->exp || u->len != v->len || memcmp(u->s, v->s, u->len) != 0)
			FAIL("%s: slot %u (state %u) value differs (%lld/%d/%u vs %lld/%d/%u)", where, k, su,
			     (long long)u->i, u->exp, u->len, (long long)v->i, v->exp, v->len);
	}
}

/* An entry's words outside its current generation are what earlier
 * generations left (a reset only moves the generation on), and some stay
 * readable: a field of another type under the same key reads the words its
 * own type keeps, a NULL keeps the old value. Both decoders start each
 * input from the same such leftovers, derived from the pattern bytes, so a
 * difference in which words a path writes shows in one input, not only
 * after a history of inputs. */
static void stale_fill(struct fast_dec *a, struct fast_dec *b, const uint8_t *pat)
{
	uint32_t h = (uint32_t)pat[0] | (uint32_t)pat[1] << 8 | (uint32_t)pat[2] << 16 | (uint32_t)pat[3] << 24;
	if (!(h & 0x10000))
		return; /* and half the inputs from zeroed words */
	for (uint32_t k = 0; k < FAST_MAX_DICT; k++) {
		struct fast_dict_entry *e = &a->dict[k];
		h = h * 1103515245u + 12345u;
		e->i = (int64_t)(h >> 8) % 1000 - 500;
		e->exp = (int32_t)(h >> 20) % 5 - 2;
		e->len = (uint8_t)((h >> 3) % (FAST_MAX_STR + 1));
		for (uint32_t j = 0; j < FAST_MAX_STR; j++)
			e->s[j] = (uint8_t)('A' + (h >> (j % 24)) % 26);
		b->dict[k].i = e->i;
		b->dict[k].exp = e->exp;
		b->dict[k].len = e->len;
		memcpy(b->dict[k].s, e->s, FAST_MAX_STR);
	}
}

static void cmp_tick(int tr, const union toe_record *t, const char *where)
{
	if (tr != x.tick_type)
		FAIL("%s: tick type %d vs %d", where, tr, x.tick_type);
	if (tr > 0 && memcmp(t, &x.tick, sizeof *t) != 0) {
		for (int i = 0; i < TOE_RECORD_SIZE; i++)
			if (t->bytes[i] != x.tick.bytes[i])
				FAIL("%s: tick byte %d: %02x vs %02x", where, i, t->bytes[i], x.tick.bytes[i]);
	}
}

static void run_raw(const struct fast_prog *p, int which, int isa, int pext, const uint8_t *pat, const uint8_t *in,
		    size_t inlen)
{
	size_t off = 0;
	uint32_t k = 0;
	fast_dec_init(&dr, p);
	fast_dec_init(&dx, p);
	stale_fill(&dr, &dx, pat);
	fastx_dec_init(&x, xps[which], &scratch);
	fastx_keys_set(&x, keys[which].chan, keys[which].seq);
	while (off < inlen) {
		uint8_t ctl = pat[k++ % 4];
		uint32_t n = (uint32_t)(inlen - off), ur = 0, ux = 0;
		union toe_record t;
		int er, ex, tr = TOE_REC_NONE;
		if (ctl & 0x80) {
			fast_dec_reset(&dr);
			fast_dec_reset(&dx);
		}
		if ((ctl & 0x60) == 0x60 && n > (ctl & 0x1fu))
			n = ctl & 0x1fu;
		/* an exact-size copy: ASan sees any read past the record's input */
		uint8_t *buf = malloc(n ? n : 1);
		memcpy(buf, in + off, n);
		er = fast_dec_record(&dr, buf, n, &ur, &rec);
		if (er == FAST_OK)
			tr = fast_tick_map(p, &rec, 77, &t);
		ex = fastx_record_isa(isa, pext, &x, &dx, buf, n, 77, &ux);
		free(buf);
		if (er != ex)
			FAIL("raw record at %zu: error %d vs %d", off, er, ex);
		if (ur != ux)
			FAIL("raw record at %zu (error %d): used %u vs %u", off, er, ur, ux);
		if (er == FAST_OK) {
			if (rec.warn != x.warn)
				FAIL("raw record at %zu: warn %x vs %x", off, rec.warn, x.warn);
			if (rec.tpl != x.tpl || rec.tid != x.tid)
				FAIL("raw record at %zu: template %u/%u vs %u/%u", off, rec.tpl, rec.tid, x.tpl, x.tid);
			cmp_tick(tr, &t, "raw");
			if (!x.used_fallback) {
				uint32_t cr = 0, cx = 0;
				uint64_t sr_ = 0, sx_ = 0;
				int kr = seq_key(&keys[which], &rec, &cr, &sr_), kx = fastx_key(&x, &cx, &sx_);
				if (kr != kx || (kr && (cr != cx || sr_ != sx_)))
					FAIL("raw record at %zu: key %d %u/%llu vs %d %u/%llu", off, kr, cr,
					     (unsigned long long)sr_, kx, cx, (unsigned long long)sx_);
			}
		}
		cmp_dec(p, &dr, &dx, "raw");
		off += er == FAST_OK ? ur : (ur ? ur : 1);
		if (which == 3)
			*(er == FAST_OK ? &g_dec_ok : &g_dec_err) += 1;
	}
	vec_total += x.vec;
	vec_fb_total += x.vec_fallback;
	if (which == 3) {
		g_fast += x.fast;
		g_fb += x.fallback;
	}
}

/* cuts: when not NULL, chunk k is cuts[k] bytes (ncuts of them, summing to
 * inlen: the generated mode's datagrams), else pattern byte + 1 */
static void run_stream(const struct fast_prog *p, int which, int framing, int restarts, const uint8_t *pat,
		       const uint8_t *in, size_t inlen, const uint32_t *cuts, uint32_t ncuts)
{
	size_t at = 0;
	uint64_t fed = 0;
	int k = 0;
	fast_stream_init(&sr, p, framing);
	fast_stream_init(&sx, p, framing);
	fastx_dec_init(&x, xps[which], &sx.rec);
	stale_fill(&sr.dec, &sx.dec, pat);
	while (at < inlen) {
		uint32_t c = cuts ? (k < (int)ncuts ? cuts[k] : (uint32_t)(inlen - at)) : pat[k % 4] + 1u, calls;
		if (c > inlen - at)
			c = (uint32_t)(inlen - at);
		if (restarts && (pat[k % 4] & 0x80)) {
			fast_stream_restart(&sr, fed);
			fast_stream_restart(&sx, fed);
		}
		k++;
		fast_stream_feed(&sr, in + at, c);
		fast_stream_feed(&sx, in + at, c);
		fed += c;
		for (calls = 0;; calls++) {
			int a, b;
			if (calls > 2 * c + 2 * sizeof sr.step.body + 16)
				FAIL("no progress");
			a = fast_stream_next(&sr);
			b = fastx_stream_next(&x, &sx);
			if (a != b)
				FAIL("stream event %d vs %d at chunk %d", a, b, k);
			if (a == FS_NONE)
				break;
			if (which == 3 && (a == FS_RECORD || a == FS_ERROR))
				*(a == FS_RECORD ? &g_dec_ok : &g_dec_err) += 1;
			if (which == 3 && a == FS_ERROR && gen_verbose > 1)
				fprintf(stderr, "fuzz_fastx_diff: stream error %d at %llu\n", sr.err,
					(unsigned long long)sr.err_offset);
			if (a == FS_RECORD) {
				union toe_record t;
				int tr = fast_tick_map(p, &sr.rec, sr.msg_seq, &t);
				if (sr.rec.warn != x.warn)
					FAIL("stream record: warn %x vs %x", sr.rec.warn, x.warn);
				/* (a record's message is a data message: the fast deframer leaves its msgtype empty) */
				if (framing == FAST_FRAMING_STEP &&
				    (sx.step.msg.msgtype[0] != 0 || sr.step.msg.raw || sx.step.msg.raw ||
				     sr.step.msg.len != sx.step.msg.len || sr.step.msg.offset != sx.step.msg.offset))
					FAIL("stream record: STEP message %s/%u vs %s/%u", sr.step.msg.msgtype, sr.step.msg.len,
					     sx.step.msg.msgtype, sx.step.msg.len);
				cmp_tick(tr, &t, "stream");
			}
			if (sr.msg_seq != sx.msg_seq || sr.data_offset != sx.data_offset || sr.data_pos != sx.data_pos ||
			    sr.data_len != sx.data_len)
				FAIL("stream message state differs (seq %llu/%llu, offset %llu/%llu, pos %u/%u)",
				     (unsigned long long)sr.msg_seq, (unsigned long long)sx.msg_seq,
				     (unsigned long long)sr.data_offset, (unsigned long long)sx.data_offset, sr.data_pos,
				     sx.data_pos);
			if (a == FS_ERROR &&
			    (sr.err != sx.err || sr.err_offset != sx.err_offset || sr.err_skipped != sx.err_skipped ||
			     sr.step.msg_start != sx.step.msg_start || sr.step.msg.len != sx.step.msg.len))
				FAIL("stream error %d at %llu (+%llu) vs %d at %llu (+%llu)", sr.err,
				     (unsigned long long)sr.err_offset, (unsigned long long)sr.err_skipped, sx.err,
				     (unsigned long long)sx.err_offset, (unsigned long long)sx.err_skipped);
		}
		at += c;
	}
	cmp_dec(p, &sr.dec, &sx.dec, "stream");
	vec_total += x.vec;
	vec_fb_total += x.vec_fallback;
	if (which == 3) {
		g_fast += x.fast;
		g_fb += x.fallback;
	}
	if (sr.messages != sx.messages || sr.records != sx.records || sr.step.messages != sx.step.messages ||
	    sr.step.bytes != sx.step.bytes || sr.step.skipped != sx.step.skipped || sr.step.no_data != sx.step.no_data ||
	    step_pending(&sr.step) != step_pending(&sx.step) || sr.step.msg_start != sx.step.msg_start)
		FAIL("stream counters differ");
	for (int e = 0; e < FAST_ERR_COUNT; e++)
		if (sr.step.errors[e] != sx.step.errors[e])
			FAIL("step errors[%d] %llu vs %llu", e, (unsigned long long)sr.step.errors[e],
			     (unsigned long long)sx.step.errors[e]);
}

/* Program 3: compile the input's templates, encode its records, damage them
 * if it says so, and compare both decoders on them. */
static void run_gen(const uint8_t *data, size_t size, int isa, int pext)
{
	static struct xbuf xb;
	static struct fast_names nm;
	char err[256];
	struct rd r = {data + 5, size - 5, 0};
	int framing = (data[0] & 64) ? FAST_FRAMING_DATAGRAM : (data[0] & 4) ? FAST_FRAMING_STEP : -1;
	uint32_t n, ncuts, pos = 0;
	uint8_t dmg, val = 0;

	g_inputs++;
	xb.n = 0;
	xb.over = 0;
	gen_program(&r, &xb);
	if (gen_verbose > 2)
		fprintf(stderr, "%.*s", (int)xb.n, xb.s);
	if (xb.over || fast_compile_buffer(xb.s, xb.n, "generated", &gen_prog, &nm, err, sizeof err) != 0) {
		g_refused++;
		if (gen_verbose > 1)
			fprintf(stderr, "fuzz_fastx_diff: refused: %s\n", xb.over ? "XML too long" : err);
		return;
	}
	g_compiled++;
	xps[3] = fastx_prog_new(&gen_prog);
	if (!xps[3])
		FAIL("fastx_prog_new");
	g_tpl_spec += fastx_prog_specialised(xps[3]);
	g_tpl_fb += fastx_prog_fallback(xps[3]);
	for (uint32_t t = 0; gen_verbose > 1 && t < gen_prog.ntpl; t++)
		if (fastx_prog_why(xps[3], t)[0])
			fprintf(stderr, "fuzz_fastx_diff: fallback: %s\n", fastx_prog_why(xps[3], t));
	/* a generated program may well have no template keyed: no FAIL for that */
	g_keyed += find_keys(&gen_prog, xps[3], &keys[3]) != 0;
	if (fastx_keys_set(&x, keys[3].chan, keys[3].seq) != 0)
		FAIL("generated program: a key found is not readable from the tick");
	/* the damage: bits 0-1 2 a byte flipped, 3 the bytes cut, at pos */
	dmg = rd8(&r);
	if ((dmg & 3) >= 2) {
		pos = rd8(&r);
		pos |= (uint32_t)rd8(&r) << 8;
		val = rd8(&r) | 1;
	}
	n = gen_data(&r, &gen_prog, framing, data + 1, &ncuts);
	if (n && (dmg & 3) == 2)
		gen_out[pos % n] ^= val;
	if (n && (dmg & 3) == 3) {
		uint32_t at = 0, k;
		n = pos % n;
		for (k = 0; k < ncuts && at + gen_cuts[k] < n; k++)
			at += gen_cuts[k];
		if (k < ncuts) {
			gen_cuts[k] = n - at;
			ncuts = gen_cuts[k] ? k + 1 : k;
		}
	}
	if (getenv("FUZZ_GEN_DUMP")) {
		FILE *f = fopen(getenv("FUZZ_GEN_DUMP"), "wb");
		if (f) {
			fwrite(gen_out, 1, n, f);
			fclose(f);
		}
	}
	if (framing == FAST_FRAMING_STEP && (data[0] & 32))
		fuzz_step_repair(gen_out, n, 1);
	if (framing == FAST_FRAMING_DATAGRAM)
		run_stream(&gen_prog, 3, framing, 0, data + 1, gen_out, n, gen_cuts, ncuts);
	else if (framing == FAST_FRAMING_STEP)
		run_stream(&gen_prog, 3, framing, data[0] & 128, data + 1, gen_out, n, NULL, 0);
	else
		run_raw(&gen_prog, 3, isa, pext, data + 1, gen_out, n);
	fastx_prog_free(xps[3]);
	xps[3] = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t fixed[1 << 18];
	const uint8_t *in;
	size_t inlen, hdr = 5;
	int which, isa, pext;

	if (size < hdr || size > sizeof fixed)
		return 0;
	setup();
	which = data[0] & 3;
	/* bit 3: a SIMD level (VBMI for odd sizes) where the CPU has it */
	isa = !(data[0] & 8) ? FASTX_ISA_SCALAR
	      : (size & 1)   ? FASTX_ISA_VBMI
	      : (size & 2)   ? FASTX_ISA_AVX512
			     : FASTX_ISA_AVX2;
	if (isa > fastx_isa_max())
		isa = fastx_isa_max();
	pext = (data[0] & 16) && isa > FASTX_ISA_SCALAR && __builtin_cpu_supports("bmi2");
	fastx_isa_set(isa);
	fastx_pext_set(pext);
	if (which == 3) {
		run_gen(data, size, isa, pext);
		return 0;
	}
	in = data + hdr;
	inlen = size - hdr;
	if (data[0] & 32) {
		memcpy(fixed, in, inlen);
		fuzz_step_repair(fixed, inlen, 1);
		in = fixed;
	}
	if (data[0] & 64)
		run_stream(prog_of(which), which, FAST_FRAMING_DATAGRAM, 0, data + 1, in, inlen, NULL, 0);
	else if (data[0] & 4)
		run_stream(prog_of(which), which, FAST_FRAMING_STEP, data[0] & 128, data + 1, in, inlen, NULL, 0);
	else
		run_raw(prog_of(which), which, isa, pext, data + 1, in, inlen);
	return 0;
}
