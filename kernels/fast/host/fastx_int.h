/* fastx_int.h - the lowered program shared by fastx_lower.c and the decoders (private).
 *
 * A template becomes ops[first .. first+nops): one op per field instruction,
 * in document order, with everything the interpreter looks up per field
 * (kind, operator, nullability, presence bit, slot, initial value, tick
 * destination and rescaling) already decided. The presence map is read into
 * a left-aligned 64-bit word, so an op's bit is a ready mask (pmask).
 */
#ifndef FASTX_INT_H
#define FASTX_INT_H

#include <stdint.h>
#include "fast/fast_read_exact.h"
#include "fast/fast_prog.h"
#include "fastx.h"

/* Op codes: field class x operator (nullability is op->opt). */
enum {
	XO_INT_NONE = 0,
	XO_INT_CONST,
	XO_INT_COPY,
	XO_INT_DEFAULT,
	XO_INT_INCR,
	XO_INT_DELTA,
	XO_STR_NONE,
	XO_STR_CONST,
	XO_STR_COPY,
	XO_STR_DEFAULT,
	XO_END, /* closes every template's op list (a sentinel, no loop counter) */
	XO_COUNT
};

/* Integer wire types, as the reference's int_type() (fast_read_exact.h). */
enum { XT_I32 = FAST_IT_I32, XT_U32 = FAST_IT_U32, XT_I64 = FAST_IT_I64, XT_U64 = FAST_IT_U64 };

/* Tick destinations. */
enum { XW_NONE = 0, XW_I32, XW_I64, XW_CHAR /* TOE_FLAG_LEN-byte code */, XW_SID };

/* The dispatch code: (op, nullability) -> 0..19; XC_END
 * ends the list. The integer wire type is data (maxn, sgn, type), not a
 * case: 56 specialised cases made one function too large for the compiler
 * to keep the cursor in registers (callgrind showed ~190 stack accesses per
 * record), for a saving of a compare or two per field. */
#define XCODE(op, opt) ((op) * 2 + (opt))
/* ... times the tick-write class, so each case compiles its own write. For
 * integers the class also fixes what it can of the wire type, so the common
 * cases read neither maxn nor sgn from the op and test no signedness: class
 * A is an int32 field into a 32-bit tick field, B a signed (int32 or int64)
 * field into a 64-bit one, neither rescaled; everything else with a tick
 * write (unsigned wire types, a 64-bit value into a 32-bit field, a
 * rescaled value: rare) is class C, which reads the type from the op and
 * decides rescaling and width at run time, keeping those tests off the
 * common writes. Strings: A is a code (XW_CHAR), B a security id (XW_SID). */
enum { XWC_NONE = 0, XWC_A = 1, XWC_B = 2, XWC_C = 3 };
#define XCODE3(op, opt, cls) (XCODE(op, opt) * 4 + (cls))
#define XC_END XCODE3(XO_END, 0, XWC_NONE)

/* The decoder copies, isa * 2 + pext (fastx_decode.c). */
enum {
	FASTX_SEL_SCALAR = FASTX_ISA_SCALAR * 2,
	FASTX_SEL_AVX2 = FASTX_ISA_AVX2 * 2,
	FASTX_SEL_AVX2_PEXT = FASTX_ISA_AVX2 * 2 + 1,
	FASTX_SEL_AVX512 = FASTX_ISA_AVX512 * 2,
	FASTX_SEL_AVX512_PEXT = FASTX_ISA_AVX512 * 2 + 1,
	FASTX_SEL_VBMI = FASTX_ISA_VBMI * 2,           /* falls back to FASTX_SEL_AVX2 */
	FASTX_SEL_VBMI_PEXT = FASTX_ISA_VBMI * 2 + 1,  /* falls back to FASTX_SEL_AVX2_PEXT */
	FASTX_NSEL = FASTX_ISA_COUNT * 2
};

struct fastx_op {
	uint8_t code;     /* XCODE_* */
	uint8_t opt;      /* nullable (presence="optional") */
	uint8_t type;     /* XT_* (ints) */
	uint8_t has_init;
	uint8_t tw;       /* XW_*: how the value lands in the tick record */
	uint8_t rescale;  /* integer needs rescale(v, src_dec, dst_dec) */
	int8_t src_dec;
	int8_t dst_dec;
	uint16_t dict;    /* slot (copy/increment/delta) */
	uint16_t toff;    /* byte offset in union toe_record */
	uint32_t tbit;    /* 1u << tick field, 0 when none */
	uint16_t ioff;    /* string initial value: pool[ioff .. ioff+ilen) */
	uint16_t ilen;
	uint32_t doff;    /* dict * sizeof(struct fast_dict_entry): the entry's byte offset in
			     fast_dec.dict, so the decoder adds instead of multiplying by 88 */
	uint64_t pmask;   /* presence-map bit (left-aligned word), 0 when none */
	int64_t init;     /* integer initial value */
	uint8_t op;       /* XO_* */
	uint8_t maxn;     /* ints: longest form read by the word path (4 for 32-bit, 8 for 64-bit) */
	uint8_t sgn;      /* ints: signed wire type */
	uint8_t pad[5];
	/* code's label in each decoder copy (FASTX_SEL_*), so that dispatch is
	 * one load and an indirect jump; filled by fastx_prog_new from the
	 * copies' own tables (fastx_x_tabs), NULL for copies this CPU lacks */
	const void *h[FASTX_NSEL];
};

struct fastx_tpl {
	uint8_t ok;        /* specialised; else the reference decodes it */
	uint8_t kind;      /* TOE_REC_TRADE/ORDER, else TOE_REC_NONE (no tick writes) */
	uint16_t nops;     /* field ops, not counting the XO_END that follows them */
	uint32_t first;    /* into fastx_prog.ops */
	uint64_t used;     /* presence bits the template uses, template id's included */
};
_Static_assert(sizeof(struct fastx_tpl) == 16, "a shift, not a multiply, per record (fallback reasons apart)");

/* A template as the VBMI level sees it (fastx_vlower.c builds it,
 * fastx_vec.c reads it): up to 16 field slots (the ops, dictionary ones
 * first, perm), one
 * 64-bit vector lane each, and per-slot facts as 16-bit lane masks or
 * per-lane tables, so that a record is decoded without a branch per field.
 * "pm word": the presence map's first 14 bits (bit 13 the template id's,
 * bit 12 the first field's), with bit 63 set (an always-true bit) and bit 62
 * clear (always false), read with vpshufbitqmb. */
#define FASTX_VSLOTS 16
struct fastx_vtpl {
	uint8_t ok;                     /* the vector path may take the template's records */
	uint8_t nslot;
	uint16_t kind;                  /* as fastx_tpl.kind */
	uint16_t pm_extra;              /* pm word bits past the template's map: PMAP_EXTRA */
	uint16_t m_int, m_sgn, m_null;  /* integer slots; signed; nullable integer */
	uint16_t m_str, m_dict, m_incr; /* ASCII slots; copy or increment; increment */
	uint16_t m_def, m_const, m_init, m_opt; /* default; constant; has an initial value; optional */
	uint16_t m_i32, m_u32;          /* 32-bit wire types (range of a dictionary value) */
	uint8_t ndict, nidict, nsdict;
	uint8_t dslot[FASTX_VSLOTS];    /* the copy/increment slots, in order */
	uint8_t islot[FASTX_VSLOTS];    /* ... of them the integers */
	uint8_t sslot[FASTX_VSLOTS];    /* ... and the strings */
	uint32_t ient[FASTX_VSLOTS];    /* byte offset in fast_dec.dict of islot[i]'s entry */
	uint32_t sent[FASTX_VSLOTS];    /* ... of sslot[i]'s */
	uint8_t pbidx[FASTX_VSLOTS];    /* pm word bit of the slot's presence bit (62: none) */
	uint8_t widx[FASTX_VSLOTS];     /* pm word bit that says the slot has bytes on the wire
					   (its presence bit, 63 always, 62 never) */
	uint8_t widxf[FASTX_VSLOTS];    /* the same per field, in field order */
	uint8_t perm[FASTX_VSLOTS];     /* slot -> its field (slots: dictionary fields first) */
	uint8_t maxlen[FASTX_VSLOTS];   /* longest wire form the lanes take: 4 (32-bit), 8 */
	int64_t init[FASTX_VSLOTS];     /* initial value (a string's bytes, zero-padded) */
	uint64_t ilen[FASTX_VSLOTS];    /* a string's initial value's length */
	int64_t voff[FASTX_VSLOTS];     /* byte offset in fast_dec.dict of the entry's value (i or s) */
	int64_t hoff[FASTX_VSLOTS];     /* ... of its gen, state, len */
	uint8_t tpres[32];              /* per tick field bit (hdr.present): the slot that sets it,
					   63 none (a bit of the slot mask that is always clear) */
	uint8_t uns;                    /* has an unsigned integer (its overlong rule) */
	uint8_t spr[2][64];             /* per 8-slot half, lane byte 8q + b: the byte of the slots'
					   ends (0..15) or, for a string, starts (16..31) it counts from */
	uint8_t dlt[2][64];             /* ... and its step from there: -b (integers), +b (strings) */
	uint8_t tidx[TOE_RECORD_SIZE];  /* tick byte <- byte of the 128 lane bytes (vpermt2b) */
	uint64_t tmask[2];              /* tick bytes written from lanes, per 64-byte half */
	char why[64];                   /* why not ok */
};

#define FASTX_HASH 256 /* template id lookup: open addressing, > 2 x FAST_MAX_TEMPLATES */
_Static_assert(FASTX_HASH == sizeof(((struct fastx_dec *)0)->vhome) / sizeof(struct fastx_vhome), "vhome: a slot each");

struct fastx_prog {
	const struct fast_prog *p;
	uint32_t nops, nspec, nfall;
	struct fastx_tpl tpl[FAST_MAX_TEMPLATES];
	int16_t hash[FASTX_HASH]; /* template index + 1, 0 empty */
	uint32_t hkey[FASTX_HASH];
	struct fastx_op ops[FAST_MAX_INSTR + FAST_MAX_TEMPLATES]; /* + one XO_END each */
	char why[FAST_MAX_TEMPLATES][96]; /* each template's fallback reason, "" when specialised */
	struct fastx_vtpl vt[FAST_MAX_TEMPLATES]; /* the VBMI level's tables (fastx_vlower.c) */
};

/* Template id tid's home slot in the id hash (open addressing from there).
 * Always inlined: GCC does not inline a plain inline function into the
 * decoders' copies, whose target attributes differ (fastx_vec.c's v_rec). */
static inline __attribute__((always_inline)) uint32_t fastx_home(uint32_t tid)
{
	return (tid * 2654435761u) >> 24;
}

static inline int fastx_find(const struct fastx_prog *xp, uint32_t tid)
{
	uint32_t h = fastx_home(tid), i;
	for (i = 0; i < FASTX_HASH; i++) {
		uint32_t k = (h + i) & (FASTX_HASH - 1);
		if (xp->hash[k] == 0)
			return -1;
		if (xp->hkey[k] == tid)
			return xp->hash[k] - 1;
	}
	return -1;
}

/* fastx_find with the first probe inline: with FASTX_HASH > 2 x the
 * templates most ids sit in their home slot (the decoders' lookup per
 * record; a one-entry cache of the last id missed on every change of
 * template, half the records of a mixed feed). */
static inline int fastx_find_fast(const struct fastx_prog *xp, uint32_t tid)
{
	uint32_t h = fastx_home(tid);
	if (xp->hkey[h] == tid && xp->hash[h] != 0)
		return xp->hash[h] - 1;
	return fastx_find(xp, tid);
}

/* The decoder in use as one number, isa * 2 + pext (fastx_isa.c keeps it
 * in step with fastx_isa_set / fastx_pext_set), so that fastx_record picks
 * its copy with one load and one switch instead of two calls per record;
 * -1 before the first choice (fastx_sel_init makes it). */
extern int fastx_sel;
int fastx_sel_init(void);

/* A decoder copy's record call (fastx_record's signature). */
typedef int fastx_rec_fn(struct fastx_dec *, struct fast_dec *, const uint8_t *, uint32_t, uint64_t, uint32_t *);

/* The decoders of each instruction set (fastx_decode.c). */
int fastx_rec_scalar(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		     uint32_t *used);
int fastx_rec_avx2(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		   uint32_t *used);
int fastx_rec_avx2_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
			uint32_t *used);
int fastx_rec_avx512(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		     uint32_t *used);
int fastx_rec_avx512_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
			  uint32_t *used);

/* The VBMI level (fastx_vec.c); its records that do not fit the vector
 * path go to the AVX2 copy (with or without pext). */
int fastx_rec_vbmi(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		   uint32_t *used);
int fastx_rec_vbmi_pext(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
			uint32_t *used);
/* fastx_stream_run at the VBMI level (fastx_run.h's loop, compiled there). */
uint32_t fastx_run_vbmi(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
			uint32_t *warns, int *ev);
uint32_t fastx_run_vbmi_pext(struct fastx_dec *x, struct fast_stream *fs, union toe_record *recs, uint32_t cap,
			     uint32_t *warns, int *ev);
/* Fill xp->vt from the lowered ops (fastx_prog_new). */
void fastx_vec_lower(struct fastx_prog *xp);
/* Fill x->vhome from x->xp and x->tref (fastx_dec_init, fastx_keys_set). */
void fastx_vhome_build(struct fastx_dec *x);

/* Each copy's label table (indexed by op code), NULL for the copies this
 * CPU cannot run; fastx_prog_new copies the entries into fastx_op.h. */
void fastx_x_tabs(const void *const *tabs[FASTX_NSEL]);

/* The reference for one record (fallback): fast_dec_record + fast_tick_map. */
int fastx_fallback(struct fastx_dec *x, struct fast_dec *d, const uint8_t *b, uint32_t len, uint64_t seq,
		   uint32_t *used);

#endif
