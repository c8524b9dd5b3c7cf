/* toe/decode_err.h - why bytes were skipped: the detail codes of TOE_GAP_DECODE gaps (public ABI).
 *
 * A gap record with reason TOE_GAP_DECODE (toe/tick.h) names the byte range
 * the STEP deframer or the FAST decoder gave up on; its `detail` is one of
 * these codes. They are the kernels' own error numbers (kernels/fast/
 * fast_err.h checks that at compile time), so a code never changes meaning
 * without a TOE_ABI_VERSION bump. Codes 1..TOE_DECODE_FAST_LAST come from
 * the FAST decoder (one record's bytes, the rest of its message is lost),
 * the TOE_DECODE_STEP_* codes from the STEP framing (a whole message, or the
 * bytes skipped while looking for the next "8=STEP").
 */
#ifndef TOE_DECODE_ERR_H
#define TOE_DECODE_ERR_H

#include <stdint.h>

enum toe_decode_err {
	/* FAST decoding (FAST 1.1 error ids where the specification has one) */
	TOE_DECODE_TRUNCATED = 1,         /* the message's FAST data ended inside a record */
	TOE_DECODE_NO_STOP_BIT = 2,       /* no stop bit within the type's maximum length */
	TOE_DECODE_RANGE = 3,             /* D2: a value does not fit the field's type */
	TOE_DECODE_OVERLONG_INT = 4,      /* R6: redundant integer bytes (normally delivered, flagged) */
	TOE_DECODE_OVERLONG_PMAP = 5,     /* R7: redundant presence map bytes (normally delivered, flagged) */
	TOE_DECODE_PMAP_EXTRA = 6,        /* R8: a presence bit set beyond those the template uses */
	TOE_DECODE_OVERLONG_STR = 7,      /* R9: redundant string byte (normally delivered, flagged) */
	TOE_DECODE_PMAP_TOO_LONG = 8,     /* presence map longer than the decoder's limit */
	TOE_DECODE_UNKNOWN_TEMPLATE = 9,  /* D9: template id not in the daemon's template file */
	TOE_DECODE_MANDATORY_UNDEF = 10,  /* D5: mandatory field absent with an undefined dictionary entry */
	TOE_DECODE_MANDATORY_EMPTY = 11,  /* D6: mandatory field absent with an empty dictionary entry */
	TOE_DECODE_SUBTRACT_LEN = 12,     /* D7: delta subtraction length beyond the base value */
	TOE_DECODE_EXPONENT = 13,         /* R1: decimal exponent outside -63..63 */
	TOE_DECODE_STR_TOO_LONG = 14,     /* string or byte vector longer than the decoder's limit */
	TOE_DECODE_SEQ_TOO_LONG = 15,     /* sequence longer than the decoder's limit */
	TOE_DECODE_TOO_MANY_VALUES = 16,  /* a record with more values than the decoder holds */
	TOE_DECODE_NULL_MANDATORY = 17,   /* NULL sent for a mandatory field */
	/* STEP framing */
	TOE_DECODE_STEP_GARBAGE = 18,     /* bytes skipped while looking for "8=STEP" (after a gap, a join) */
	TOE_DECODE_STEP_BAD_HEADER = 19,  /* 8= or 9= field malformed */
	TOE_DECODE_STEP_TOO_LONG = 20,    /* BodyLength above the deframer's limit */
	TOE_DECODE_STEP_BAD_FIELD = 21,   /* a tag=value field of the body is malformed */
	TOE_DECODE_STEP_BAD_DATA_LEN = 22,/* 95= missing, malformed or larger than the body */
	TOE_DECODE_STEP_BAD_LENGTH = 23,  /* BodyLength does not end at 10= (or a datagram cut a message) */
	TOE_DECODE_STEP_BAD_CHECKSUM = 24,/* CheckSum mismatch or malformed 10= */
	TOE_DECODE_STEP_NO_DATA = 25,     /* 95= announced FAST data but no 96= followed */
};

#define TOE_DECODE_FAST_LAST TOE_DECODE_NULL_MANDATORY
#define TOE_DECODE_COUNT 26 /* one past the largest code */

/* A short name for a code ("step_bad_checksum"), "unknown" for others. */
static inline const char *toe_decode_err_name(uint32_t e)
{
	static const char *const names[TOE_DECODE_COUNT] = {
		"ok", "truncated", "no_stop_bit", "range", "overlong_int", "overlong_pmap", "pmap_extra",
		"overlong_str", "pmap_too_long", "unknown_template", "mandatory_undef", "mandatory_empty",
		"subtract_len", "exponent", "str_too_long", "seq_too_long", "too_many_values", "null_mandatory",
		"step_garbage", "step_bad_header", "step_too_long", "step_bad_field", "step_bad_data_len",
		"step_bad_length", "step_bad_checksum", "step_no_data",
	};
	return e < TOE_DECODE_COUNT ? names[e] : "unknown";
}

#endif
