/* fast_prog.h - the compiled FAST template program.
 *
 * The host compiles the exchange's XML template file (kernels/fast/host/
 * fast_compile.c) into this flat, pointer-free program. The decoder walks it
 * field by field; on the card the same bytes are written over AXI-Lite into
 * the decoder's template memory. The format is documented in
 * doc/template-program.md; every limit below is a compile-time maximum that
 * bounds a loop in the synthesisable decoder.
 */
#ifndef FAST_PROG_H
#define FAST_PROG_H

#include <stdint.h>

#define FAST_PROG_MAGIC 0x46505247u /* "FPRG" */
#define FAST_PROG_VERSION 1

#define FAST_MAX_TEMPLATES 64   /* templates in one program */
#define FAST_MAX_INSTR 1024     /* instructions in one program */
#define FAST_MAX_DICT 512       /* dictionary slots */
#define FAST_MAX_CONST 512      /* initial values */
#define FAST_MAX_POOL 4096      /* bytes of initial string values */
#define FAST_MAX_STR 64         /* bytes of one string / byte vector value */
#define FAST_MAX_PMAP_BYTES 16  /* presence map bytes (112 bits) */
#define FAST_MAX_DEPTH 4        /* nesting of sequences and groups */
#define FAST_MAX_SEQ_LEN 1024   /* elements in one sequence */
#define FAST_MAX_VALUES 256     /* values one record may produce */
#define FAST_MAX_STRBUF 4096    /* string bytes one record may produce */
#define FAST_MAX_STEPS 8192     /* instructions executed for one record */

/* Instruction kinds. */
enum fast_kind {
	FAST_K_I32 = 1,
	FAST_K_U32,
	FAST_K_I64,
	FAST_K_U64,
	FAST_K_ASCII,    /* ASCII string */
	FAST_K_BYTES,    /* byte vector, or unicode string (FAST_F_UNICODE) */
	FAST_K_DECIMAL,  /* decimal with one operator on the whole value */
	FAST_K_DEC_EXP,  /* exponent of a decimal with individual operators */
	FAST_K_DEC_MANT, /* its mantissa: always follows FAST_K_DEC_EXP */
	FAST_K_SEQ,      /* sequence: this instruction is the length field */
	FAST_K_GROUP,    /* group */
	FAST_K_END,      /* end of the body of a SEQ or GROUP */
};

/* Field operators. */
enum fast_op {
	FAST_OP_NONE = 0,
	FAST_OP_CONST,
	FAST_OP_COPY,
	FAST_OP_DEFAULT,
	FAST_OP_INCR,
	FAST_OP_DELTA,
	FAST_OP_TAIL,
};

/* Instruction flags. */
#define FAST_F_OPTIONAL 0x01 /* presence="optional" */
#define FAST_F_HAS_INIT 0x02 /* `init` names an initial value */
#define FAST_F_PMAP 0x04     /* GROUP/SEQ: each element carries its own pmap */
#define FAST_F_UNICODE 0x08  /* BYTES that are a unicode string */
#define FAST_F_SCALED 0x10   /* integer with decimalPlaces: `scale` holds it */
#define FAST_F_MIXED 0x20    /* integer whose dictionary entry a uInt64 and a signed or 32-bit field share:
			      * the entry says which wrote it (fast_dict_entry.u64), so a value reads back
			      * as itself or not at all (FAST_E_RANGE), never as its bit pattern */

#define FAST_NO_INIT 0xffff

/* One instruction: 16 bytes, four little-endian 32-bit words on the card. */
struct fast_instr {
	uint8_t kind;  /* enum fast_kind */
	uint8_t op;    /* enum fast_op */
	uint8_t flags; /* FAST_F_* */
	uint8_t tick;  /* enum toe_tick_field this value maps to, 0 for none */
	uint16_t dict; /* dictionary slot (operators that use the dictionary) */
	uint16_t aux;  /* SEQ/GROUP: index of the matching END; END: index of its SEQ/GROUP */
	uint16_t init; /* index into consts[], FAST_NO_INIT when none */
	int8_t scale;  /* decimalPlaces of a scaled integer (FAST_F_SCALED) */
	uint8_t depth; /* nesting depth, 0 at template level */
	uint32_t fid;  /* FIX field id from the file (metadata), 0 when none */
};

/* An initial value. Strings and byte vectors live in pool[off .. off+len). */
struct fast_const {
	int64_t i;   /* integer, or decimal mantissa */
	int32_t exp; /* decimal exponent */
	uint16_t off;
	uint16_t len;
};

/* One template: instructions [first, end) at depth 0. */
struct fast_tpl {
	uint32_t id;     /* template id */
	uint16_t first;  /* first instruction */
	uint16_t end;    /* one past the last instruction */
	uint8_t kind;    /* enum toe_rec_type the record maps to, TOE_REC_NONE if unmapped */
	uint8_t pad[3];
};

struct fast_prog {
	uint32_t magic;   /* FAST_PROG_MAGIC */
	uint16_t version; /* FAST_PROG_VERSION */
	uint16_t ntpl;
	uint16_t ninstr;
	uint16_t ndict;   /* slot 0 is the template id's (global key) */
	uint16_t nconst;
	uint16_t npool;
	struct fast_tpl tpl[FAST_MAX_TEMPLATES];
	struct fast_instr instr[FAST_MAX_INSTR];
	struct fast_const consts[FAST_MAX_CONST];
	uint8_t pool[FAST_MAX_POOL];
};

#define FAST_DICT_TEMPLATE_ID 0 /* dictionary slot of the template id */

#if defined(__cplusplus)
#define FAST_STATIC_ASSERT static_assert
#else
#define FAST_STATIC_ASSERT _Static_assert
#endif
FAST_STATIC_ASSERT(sizeof(struct fast_instr) == 16, "fast_instr is 16 bytes");
FAST_STATIC_ASSERT(sizeof(struct fast_const) == 16, "fast_const is 16 bytes");
FAST_STATIC_ASSERT(sizeof(struct fast_tpl) == 12, "fast_tpl is 12 bytes");

#endif
