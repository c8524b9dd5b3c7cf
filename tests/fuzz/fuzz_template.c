/* fuzz_template.c - libFuzzer target: the FAST template compiler (kernels/fast/host/fast_compile.c, libxml2).
 *
 * Input: an XML template file, compiled from memory (fast_compile_buffer).
 * A refusal must come with a message. A program that compiles must keep every
 * promise the synthesisable decoder relies on (fast_prog.h: counts within the
 * compile-time maxima, template ranges inside the program, dictionary slots,
 * initial values and pool ranges in bounds, SEQ/GROUP matched with their END,
 * nesting within FAST_MAX_DEPTH, a decimal's exponent followed by its
 * mantissa), and the decoder must then run over a datagram per template (its
 * id, then zero bytes) without going out of bounds. Seeds:
 * corpus/fuzz_template/ (the shipped template files and small variants).
 * FUZZ_VERBOSE=1 prints each input's outcome (the compiler's message, or the
 * program's size).
 */
#include <stdint.h>
#include <string.h>

#include "fast/fast_stream.h"
#include "fast/host/fast_compile.h"

#define FUZZ_NAME "fuzz_template"
#include "fuzz_common.h"

static struct fast_prog prog;
static struct fast_names names;
static struct fast_stream fs;

static int uses_dict(uint8_t op)
{
	return op == FAST_OP_COPY || op == FAST_OP_INCR || op == FAST_OP_DELTA || op == FAST_OP_TAIL;
}

static void check_prog(const struct fast_prog *p)
{
	if (p->magic != FAST_PROG_MAGIC || p->version != FAST_PROG_VERSION)
		FAIL("magic %08x version %u", p->magic, p->version);
	if (p->ntpl < 1 || p->ntpl > FAST_MAX_TEMPLATES || p->ninstr > FAST_MAX_INSTR || p->ndict > FAST_MAX_DICT ||
	    p->nconst > FAST_MAX_CONST || p->npool > FAST_MAX_POOL)
		FAIL("counts: %u templates, %u instructions, %u slots, %u constants, %u pool bytes", p->ntpl, p->ninstr,
		     p->ndict, p->nconst, p->npool);
	for (uint32_t t = 0; t < p->ntpl; t++) {
		const struct fast_tpl *tp = &p->tpl[t];
		if (tp->first > tp->end || tp->end > p->ninstr)
			FAIL("template %u: instructions [%u, %u) of %u", t, tp->first, tp->end, p->ninstr);
		for (uint32_t u = 0; u < t; u++)
			if (p->tpl[u].id == tp->id)
				FAIL("template id %u twice", tp->id);
		if (fast_prog_find(p, tp->id) != (int)t)
			FAIL("fast_prog_find(%u) != %u", tp->id, t);
	}
	for (uint32_t i = 0; i < p->ninstr; i++) {
		const struct fast_instr *in = &p->instr[i];
		if (in->kind < FAST_K_I32 || in->kind > FAST_K_END || in->op > FAST_OP_TAIL)
			FAIL("instruction %u: kind %u op %u", i, in->kind, in->op);
		if (uses_dict(in->op) && in->dict >= p->ndict)
			FAIL("instruction %u: dictionary slot %u of %u", i, in->dict, p->ndict);
		if (in->init != FAST_NO_INIT) {
			if (in->init >= p->nconst)
				FAIL("instruction %u: initial value %u of %u", i, in->init, p->nconst);
			const struct fast_const *c = &p->consts[in->init];
			if ((uint32_t)c->off + c->len > p->npool)
				FAIL("instruction %u: initial string %u+%u beyond the pool (%u)", i, c->off, c->len, p->npool);
		}
		if (in->depth > FAST_MAX_DEPTH)
			FAIL("instruction %u: depth %u", i, in->depth);
		if (in->kind == FAST_K_SEQ || in->kind == FAST_K_GROUP) {
			if (in->aux <= i || in->aux >= p->ninstr || p->instr[in->aux].kind != FAST_K_END ||
			    p->instr[in->aux].aux != i)
				FAIL("instruction %u: %s without its END (aux %u)", i,
				     in->kind == FAST_K_SEQ ? "sequence" : "group", in->aux);
		}
		if (in->kind == FAST_K_END && (in->aux >= i || (p->instr[in->aux].kind != FAST_K_SEQ &&
								p->instr[in->aux].kind != FAST_K_GROUP)))
			FAIL("instruction %u: END of %u", i, in->aux);
		if (in->kind == FAST_K_DEC_EXP && (i + 1 >= p->ninstr || p->instr[i + 1].kind != FAST_K_DEC_MANT))
			FAIL("instruction %u: a decimal exponent without its mantissa", i);
	}
}

/* One datagram per template: a presence map with the template id bit, the id, then zero bytes. */
static void decode_each(const struct fast_prog *p)
{
	uint8_t dg[96];
	fast_stream_init(&fs, p, FAST_FRAMING_DATAGRAM);
	for (uint32_t t = 0; t < p->ntpl; t++) {
		uint32_t id = p->tpl[t].id, n = 0;
		uint8_t tmp[5];
		int k = 0;
		dg[n++] = 0xc0; /* pmap: template id present, stop bit */
		do {
			tmp[k++] = (uint8_t)(id & 0x7f);
			id >>= 7;
		} while (id && k < 5);
		while (k > 0)
			dg[n++] = tmp[--k];
		dg[n - 1] |= 0x80;
		while (n < sizeof dg)
			dg[n++] = 0x80; /* zeros / nulls, each a complete stop-bit value */
		fast_stream_feed(&fs, dg, n);
		for (int calls = 0; fast_stream_next(&fs) != FS_NONE; calls++) {
			if (calls > 2 * (int)sizeof dg + 16)
				FAIL("no progress decoding template %u", t);
			if (fs.rec.nvals > FAST_MAX_VALUES || fs.rec.nstr > FAST_MAX_STRBUF)
				FAIL("record with %u values, %u string bytes", fs.rec.nvals, fs.rec.nstr);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	if (size > 1 << 16)
		return 0;
	memset(err, 0x55, sizeof err);
	if (fast_compile_buffer((const char *)data, size, "fuzz.xml", &prog, &names, err, sizeof err) != 0) {
		if (!memchr(err, 0, sizeof err) || err[0] == 0)
			FAIL("refused without a message");
		if (getenv("FUZZ_VERBOSE"))
			fprintf(stderr, "refused: %s\n", err);
		return 0;
	}
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "compiled: %u templates, %u instructions, %u slots, %u constants\n", prog.ntpl, prog.ninstr,
			prog.ndict, prog.nconst);
	check_prog(&prog);
	decode_each(&prog);
	return 0;
}
