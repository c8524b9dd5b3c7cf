/* fastx.h - the specialised host FAST decoder (CPU only, never synthesised).
 *
 * The reference decoder (kernels/fast/fast_decode.c) interprets the template
 * program field by field into a value array that fast_tick.c then maps by
 * tick field. It is the card's decoder and the oracle. This one is for the
 * software backend: at template load fastx_prog_new() lowers every template
 * into a straight-line list of field operations whose operator, nullability,
 * presence-map bit, dictionary slot and destination inside union toe_record
 * are resolved ahead of time, so a record decodes straight into its tick
 * record. Stop bits are found 64 bytes at a time with SIMD movemask (or a
 * SWAR word test in the portable scalar path) and 7-bit groups gathered with
 * BMI2 pext where that is fast, else with three mask-and-shift steps; the
 * instruction set is chosen at run time (fastx_isa_*). On CPUs with AVX-512
 * VBMI2 and BITALG a further level (FASTX_ISA_VBMI, fastx_vec.c) decodes a
 * whole record at once in vector registers, one lane per field, for the
 * templates and records that fit it (fastx_vlower.c), and hands every other
 * record, untouched, to the AVX2 copy (counted in vec / vec_fallback).
 *
 * Identity with the reference: fastx keeps its dictionary in the reference's
 * own struct fast_dec (same entries, generation counter, error and record
 * counters), and whatever it was not specialised for (sequences, groups,
 * byte vectors, decimals, string delta/tail, more than 64 presence bits...)
 * it hands, per template, to fast_dec_record + fast_tick_map on that same
 * state (counted in fastx_dec.fallback). So records, error codes, error
 * offsets, consumed bytes, warnings and counters are those of the reference;
 * tests/fuzz/fuzz_fastx_diff.c checks it.
 *
 * Host-only: heap, function-level target attributes and intrinsics are fine
 * here; the files directly in kernels/fast/ stay the synthesisable subset.
 */
#ifndef FASTX_H
#define FASTX_H

#include <stdint.h>
#include "toe/tick.h"
#include "fast/fast_decode.h"
#include "fast/fast_stream.h"

/* Instruction-set levels, lowest first. */
enum fastx_isa {
	FASTX_ISA_SCALAR = 0, /* portable C: SWAR stop bits, mask-and-shift gather */
	FASTX_ISA_AVX2 = 1,   /* 2 x 32-byte movemask */
	FASTX_ISA_AVX512 = 2, /* 1 x 64-byte mask compare (AVX-512BW) */
	FASTX_ISA_VBMI = 3,   /* whole records in vector registers (AVX-512 VBMI2/BITALG,
				 fastx_vec.c), the AVX2 body for the rest */
	FASTX_ISA_COUNT
};

/* The level picked at first use: the VBMI level when the CPU has it (its
 * vector path measured faster than AVX2, fastx_isa.c), else AVX2 when the
 * CPU has it (AVX-512 measured slower), else scalar; the environment
 * variable TOE_FASTX_ISA=scalar|avx2|avx512|avx512vbmi asks for another
 * (tests force each level through fastx_isa_set instead). pext is used with
 * AVX2/AVX-512 when the CPU has BMI2 and it is not microcoded (AMD before
 * Zen 3, family < 0x19); TOE_FASTX_PEXT=0 turns it off. */
int fastx_isa_get(void);
int fastx_isa_max(void);          /* widest level this CPU runs */
int fastx_isa_set(int level);     /* 0, or -1 when the CPU lacks it */
int fastx_pext_get(void);         /* 1 when pext is in use */
int fastx_pext_set(int on);       /* 0, or -1 when the CPU has no BMI2 */
int fastx_pext_fast(void);        /* whether this CPU's pext is fast */
const char *fastx_isa_name(int level);

struct fastx_prog; /* the lowered program (fastx_lower.c) */

#define FASTX_PADBUF (2 * TOE_RECORD_SIZE) /* a short input's padded copy (fastx_decode.c) */
#define FASTX_SBUF (FAST_MAX_STR + 16)     /* a string's bytes and the overrun of its word stores */

/* Lower prog (kept by the caller, must outlive the result). Returns NULL
 * only when out of memory; templates that cannot be specialised are marked
 * for the fallback, never refused. */
struct fastx_prog *fastx_prog_new(const struct fast_prog *prog);
void fastx_prog_free(struct fastx_prog *xp);
/* Templates specialised / left to the reference. */
uint32_t fastx_prog_specialised(const struct fastx_prog *xp);
uint32_t fastx_prog_fallback(const struct fastx_prog *xp);
/* Why template index t falls back ("" when specialised). */
const char *fastx_prog_why(const struct fastx_prog *xp, uint32_t t);
/* Why template index t's records never take the VBMI level's vector path
 * ("" when they may; fastx_vlower.c). */
const char *fastx_prog_vwhy(const struct fastx_prog *xp, uint32_t t);

/* One decoder's results and counters. The dictionary lives in the
 * reference's struct fast_dec given to each call. */
struct fastx_dec {
	const struct fastx_prog *xp;
	struct fast_rec *scratch;  /* the fallback's value array (caller memory) */
	/* results of the last fastx_record / FS_RECORD */
	union toe_record tick;     /* valid when tick_type > 0 (and dst == &tick) */
	/* where the next record's tick record is written: &tick (fastx_dec_init),
	 * or a caller's own slot so that the record is decoded in place rather
	 * than copied (rx_ticks: the publish batch); readers of the record read
	 * *dst. The caller points it back at &tick before its slot goes away. */
	union toe_record *dst;
	int32_t tick_type;         /* fast_tick_map's result: TOE_REC_*, 0 unmapped (range: hdr.flags) */
	uint32_t warn;             /* reportable errors of the record (fast_rec.warn) */
	uint32_t tid;
	uint16_t tpl;
	uint8_t used_fallback;     /* the last record went through the reference */
	uint8_t pad;
	/* counters */
	uint64_t fast;             /* records decoded by the specialised path */
	uint64_t fallback;         /* records handed to the reference */
	uint64_t vec;              /* of fast: records decoded whole in vector registers (FASTX_ISA_VBMI) */
	uint64_t vec_fallback;     /* records the VBMI level handed to the AVX2 body (fastx_vec.c) */
	uint64_t step_bulk;        /* STEP messages framed by the bulk path */
	uint64_t step_machine;     /* step_feed calls left to the reference state machine */
	uint64_t step_joined;      /* of step_bulk: messages split across chunks, their head held
				      (checked clean) and framed once whole (fastx_step.c) */
	/* sequence keys (fastx_keys.c): where each template's channel and
	 * sequence land in the tick record, for seq_key without a value array */
	const void *keys_for;      /* the owner that set them (rx_pipe); fastx_dec_init clears it */
	uint32_t keys_ok;          /* fastx_keys_set's verdict: every key readable from the tick */
	uint64_t key_fallback;     /* records handed to the reference only because their template's
				      sequence key is not readable from the tick (kref) */
	/* scratch of the specialised decoder (fastx_body.h): a short input's
	 * zero-padded copy and a string's clean bytes, here rather than on its
	 * stack so the hot function needs no 32-byte-aligned frame */
	uint8_t pbuf[FASTX_PADBUF] __attribute__((aligned(8)));
	uint8_t sbuf[FASTX_SBUF] __attribute__((aligned(8)));
	uint8_t tref[FAST_MAX_TEMPLATES]; /* per template index: the reference decodes it (not
					     specialised, or kref); read once per record */
	uint8_t kref[FAST_MAX_TEMPLATES]; /* specialised, but its key is not in the tick (fastx_keys_set) */
	/* The VBMI level's template lookup (fastx_vec.c), per slot of the
	 * program's id hash (fastx_prog.hash): the id there, its template index
	 * and vector template; vt NULL unless the vector path takes that
	 * template (vector-specialised and not tref). The vector path looks an
	 * id up in its home slot only: one load from the id to the template,
	 * where the program's table and tref took a chain of four dependent
	 * loads before anything of the record could use the template (bench_rx
	 * ~4 % a segment). fastx_vhome_build keeps it in step with tref. */
	struct fastx_vhome {
		uint32_t tid;
		uint32_t t;
		const struct fastx_vtpl *vt;
	} vhome[256], vlast; /* vlast: of the last record the vector path committed with its id sent */
	struct fastx_keyloc {
		uint16_t off;      /* byte offset in union toe_record */
		uint8_t w;         /* 0: the template has no key; XW_I32 / XW_I64 */
		uint8_t pad;
		uint32_t bit;      /* the tick field's bit in hdr.present */
	} kchan[FAST_MAX_TEMPLATES], kseq[FAST_MAX_TEMPLATES];
	/* The STEP header fields of the last message framed in bulk (fastx_step.c):
	 * its tag sequence up to 96=, a guess for the next message, checked
	 * against its bytes, never trusted. Keyed on tags, not positions: the
	 * values' lengths (9=, 34=, 95= digit counts) may change from message
	 * to message without a miss. */
	struct fastx_step_memo {
		uint32_t nf;       /* fields up to and including 96= (0: none) */
		uint32_t tagw[16]; /* each field's "dd=" bytes, and in the top byte its tag
				      when 34, 35, 95 or 96 (else 0) */
		uint64_t hits;     /* messages (or heads) read by the memo */
		uint64_t builds;   /* tag sequences recorded (a new layout, or none yet) */
		/* The fields before 95= also by place (fastx_step.c "fixed places"):
		 * their starts from the body's first byte and the SOH bitmap of
		 * their bytes, as the last message had them; checked, never trusted. */
		uint32_t fx_n;      /* such fields (0: none) */
		uint32_t fx_len;    /* their bytes (<= 128) */
		uint64_t fx_bits[2];
		uint8_t fx_img[128] __attribute__((aligned(32))); /* their "dd=" bytes in place, 0 elsewhere */
		uint8_t fx_msk[128] __attribute__((aligned(32))); /* 0xff where fx_img holds a tag byte */
		uint64_t fx_tags[2]; /* the same as a bit per byte (the AVX-512 compare's mask) */
		uint8_t fx_v34[2];  /* 34='s value: first byte and end from the body's start (0: none) */
		uint8_t fx_v35[2];  /* 35='s */
		uint64_t fx_hits;   /* messages (or heads) whose fields before 95= were read so */
	} smemo;
};

void fastx_dec_init(struct fastx_dec *x, const struct fastx_prog *xp, struct fast_rec *scratch);

/* fast_dec_record + fast_tick_map(msg_seq) in one: same return value, same
 * *used, same effects on d (dictionary, errors[], records). On FAST_OK,
 * x->tick_type/tick/warn/tid/tpl hold the record. */
int fastx_record(struct fastx_dec *x, struct fast_dec *d, const uint8_t *buf, uint32_t len, uint64_t msg_seq,
		 uint32_t *used);

/* The same at an explicit instruction-set level (tests, benchmarks). */
int fastx_record_isa(int isa, int pext, struct fastx_dec *x, struct fast_dec *d, const uint8_t *buf, uint32_t len,
		     uint64_t msg_seq, uint32_t *used);

/* fast_stream_next with fastx_record in place of fast_dec_record +
 * fast_tick_map, and whole STEP messages framed in bulk (fastx_step.c):
 * the same events and fast_stream fields; on FS_RECORD the record is in x
 * (fs->rec only when x->used_fallback). x->scratch may be &fs->rec. */
int fastx_stream_next(struct fastx_dec *x, struct fast_stream *fs);

/* fastx_stream_next called while it gives mapped records (FS_RECORD,
 * tick_type > 0), each decoded straight into recs[n] (x->dst), at most
 * cap: returns how many, *warns how many of them had x->warn set, *ev the
 * event that ended the run (its output in recs[n] when a record), or -1
 * when cap was reached first. x->dst is left at the last slot used. */
uint32_t fastx_stream_run(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
			  uint32_t *warns, int *ev);

/* step_feed with whole messages found in bulk (fastx_step.c): the same
 * results and counters; msg.data may point into p instead of body[], and the
 * head of a message split across chunks is held as pending bytes
 * (STEP_PEND(0, m), step_deframe.h) rather than as parsed state, which
 * step_feed reads back the same way if it is handed the stream. msg.msgtype
 * is filled for the messages without 96= data (msg.raw set: the session
 * layer's, which read it) and left empty for data messages, whose records
 * name their template: copying 35= of every message cost ~2% of the receive
 * path (bench_rx). */
uint32_t fastx_step_feed(struct fastx_dec *x, struct step_deframer *s, const uint8_t *p, uint32_t n, int *status);

/* Sequence keys from the tick record. chan[t] / seq[t] are the key
 * instructions of template index t (struct seq_keys; SEQ_NO_INSTR, 0xffff,
 * none). Returns 0 when, for every specialised template with a key, both key
 * fields land unchanged in the tick record (an integer field with a tick
 * destination, no rescaling, and no range check that could drop the value:
 * a 64-bit destination, or a 32-bit one of an int32 field); -1 when not:
 * then the templates whose keys are not (kref) go to the reference, record
 * by record (counted in key_fallback), and the others stay on the fast
 * path. Templates left to the reference need nothing: their records carry
 * the value array. */
int fastx_keys_set(struct fastx_dec *x, const uint16_t *chan, const uint16_t *seq);

/* seq_key() of the last record decoded by the specialised path (not
 * used_fallback), read from *x->dst: 1 with *chan, *seq set, 0 when its
 * template has no key, a key field was absent or the sequence is not > 0. */
int fastx_key(const struct fastx_dec *x, uint32_t *chan, uint64_t *seq);

/* Decoder choice of the tools and the daemon. */
enum fastx_choice { FASTX_AUTO = 0, FASTX_FAST = 1, FASTX_REFERENCE = 2 };
int fastx_choice_parse(const char *s); /* enum fastx_choice, -1 when unknown */
const char *fastx_choice_name(int c);

#endif
