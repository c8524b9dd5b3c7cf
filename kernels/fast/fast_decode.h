/* fast_decode.h - the FAST 1.1 decoder core (synthesisable C subset).
 *
 * The decoder interprets a compiled template program (fast_prog.h) over a
 * byte buffer and produces one fast_rec per record: a flat list of values in
 * template order, each naming the instruction it belongs to. Sequences appear
 * as their length value followed by the values of each element. The
 * dictionary lives in struct fast_dec; fast_dec_reset() makes every entry
 * undefined in O(1) (generation counter), as SSE resets at every STEP message.
 *
 * No heap, no recursion, no function pointers, no libc: loops are bounded by
 * the maxima in fast_prog.h.
 */
#ifndef FAST_DECODE_H
#define FAST_DECODE_H

#include <stdint.h>
#include "fast_err.h"
#include "fast_prog.h"

/* One decoded value. */
struct fast_val {
	int64_t i;      /* integer (uInt64 stored as its bit pattern), decimal mantissa, or length */
	int32_t exp;    /* decimal exponent */
	uint16_t instr; /* instruction that produced it */
	uint8_t present;/* 0: optional field absent (NULL) */
	uint8_t pad;
	uint16_t soff;  /* string / byte vector: bytes in fast_rec.str[soff .. soff+slen) */
	uint16_t slen;
	uint32_t pad2;
};

struct fast_rec {
	uint32_t tid;   /* template id */
	uint16_t tpl;   /* index into prog->tpl */
	uint16_t nvals;
	uint16_t nstr;  /* bytes used in str[] */
	uint16_t pad;
	uint32_t warn;  /* bit per reportable fast_err seen while decoding it */
	struct fast_val v[FAST_MAX_VALUES];
	uint8_t str[FAST_MAX_STRBUF];
};

/* Dictionary entry state. */
enum { FAST_DICT_UNDEF = 0, FAST_DICT_ASSIGNED = 1, FAST_DICT_EMPTY = 2 };

struct fast_dict_entry {
	int64_t i;
	int32_t exp;
	uint32_t gen;   /* entry is undefined unless gen == fast_dec.gen */
	uint8_t state;  /* FAST_DICT_ASSIGNED or FAST_DICT_EMPTY when gen matches */
	uint8_t len;
	uint8_t s[FAST_MAX_STR];
	uint8_t u64;    /* FAST_F_MIXED slots: i is a uInt64's bit pattern (else an int64 value) */
	uint8_t pad[5];
};

/* Entries a uInt64 shares with another integer type (FAST_F_MIXED in the
 * field's flags): whether e's value is outside the reader by its sign alone
 * -- a uInt64's from 2^63 up (kept as its bit pattern) read by another
 * integer type, or a negative one read by a uInt64 (D4: FAST_E_RANGE) --
 * and, on a write, which of the two wrote it. The decoder and the encoder
 * (host/fast_encode.c) apply the same rule. Elsewhere the reader's own type
 * says, and nothing is kept (the CPU decoder shares the dictionary and
 * writes no such byte). */
static inline int fast_dict_sign_clash(uint32_t flags, const struct fast_dict_entry *e, uint32_t reader_u64)
{
	if (!(flags & FAST_F_MIXED) || e->i >= 0)
		return 0;
	return (reader_u64 != 0) != (e->u64 != 0);
}

static inline void fast_dict_mark(uint32_t flags, struct fast_dict_entry *e, uint32_t writer_u64)
{
	if (flags & FAST_F_MIXED)
		e->u64 = writer_u64 != 0;
}

struct fast_dec {
	const struct fast_prog *prog;
	uint32_t gen;
	struct fast_dict_entry dict[FAST_MAX_DICT];
	uint64_t records;              /* records decoded */
	uint64_t errors[FAST_ERR_COUNT];
};

void fast_dec_init(struct fast_dec *d, const struct fast_prog *prog);

/* Make every dictionary entry undefined (FAST reset). */
void fast_dec_reset(struct fast_dec *d);

/* Decode one record from buf[0..len). On success returns FAST_OK (also
 * with reportable errors, which are recorded in out->warn and counted) and sets *used to the bytes
 * consumed. On error returns the fast_err code; *used is then the offset at
 * which the error was detected. Every return other than FAST_OK is counted in
 * d->errors[]. After an error the dictionary is undefined-consistent only
 * after fast_dec_reset(): callers resume at the next message boundary. */
int fast_dec_record(struct fast_dec *d, const uint8_t *buf, uint32_t len, uint32_t *used,
		    struct fast_rec *out);

#endif
