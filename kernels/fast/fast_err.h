/* fast_err.h - error codes of the STEP deframer and the FAST decoder.
 *
 * One code per reason; every block counts its errors in an array indexed by
 * these codes, and the tools print them by name (fast_err_name(), host side).
 * Codes that mirror the FAST specification's error ids say so. They travel to
 * clients as TOE_GAP_DECODE details: toe/decode_err.h is their public copy,
 * and the checks at the end of this file keep the two equal (append new
 * codes at the end and add them there too).
 */
#ifndef FAST_ERR_H
#define FAST_ERR_H

#include "toe/decode_err.h"

enum fast_err {
	FAST_OK = 0,
	/* FAST decoding (one record) */
	FAST_E_TRUNCATED,        /* input ended inside a record */
	FAST_E_NO_STOP_BIT,      /* no stop bit within the type's maximum length */
	FAST_E_RANGE,            /* D2: value does not fit the field's type */
	FAST_E_OVERLONG_INT,     /* R6: integer with redundant leading bytes (reportable) */
	FAST_E_OVERLONG_PMAP,    /* R7: presence map with redundant trailing bytes (reportable) */
	FAST_E_PMAP_EXTRA,       /* R8: a presence bit set beyond those the template uses */
	FAST_E_OVERLONG_STR,     /* R9: string with a redundant leading zero byte (reportable) */
	FAST_E_PMAP_TOO_LONG,    /* presence map longer than FAST_MAX_PMAP_BYTES */
	FAST_E_UNKNOWN_TEMPLATE, /* D9: template id not in the program */
	FAST_E_MANDATORY_UNDEF,  /* D5: mandatory field absent with undefined dictionary entry */
	FAST_E_MANDATORY_EMPTY,  /* D6: mandatory field absent with empty dictionary entry */
	FAST_E_SUBTRACT_LEN,     /* D7: delta subtraction length exceeds the base length */
	FAST_E_EXPONENT,         /* R1: decimal exponent outside -63..63 */
	FAST_E_STR_TOO_LONG,     /* string or byte vector longer than FAST_MAX_STR */
	FAST_E_SEQ_TOO_LONG,     /* sequence length above FAST_MAX_SEQ_LEN */
	FAST_E_TOO_MANY_VALUES,  /* record produces more than FAST_MAX_VALUES/STRBUF */
	FAST_E_NULL_MANDATORY,   /* NULL where the field is mandatory (not nullable) */
	/* STEP framing (one message) */
	STEP_E_GARBAGE,          /* bytes skipped while looking for 8=STEP */
	STEP_E_BAD_HEADER,       /* 8= or 9= field malformed */
	STEP_E_TOO_LONG,         /* BodyLength above STEP_MAX_BODY */
	STEP_E_BAD_FIELD,        /* a tag=value field inside the body is malformed */
	STEP_E_BAD_DATA_LEN,     /* 95= missing, malformed or larger than the body */
	STEP_E_BAD_LENGTH,       /* BodyLength does not end at the 10= field */
	STEP_E_BAD_CHECKSUM,     /* CheckSum mismatch or malformed 10= field */
	STEP_E_NO_DATA,          /* 95= announces FAST data but no 96= field follows */
	FAST_ERR_COUNT
};

/* Reportable errors: the value is still unambiguous; the decoder counts the
 * error and delivers the record. All others abort the message. */
static inline int fast_err_is_reportable(int e)
{
	return e == FAST_E_OVERLONG_INT || e == FAST_E_OVERLONG_PMAP || e == FAST_E_OVERLONG_STR;
}

/* The public codes (toe/decode_err.h) are these numbers. */
#if defined(__cplusplus)
#define FAST_ERR_ABI(k, t) static_assert((int)(k) == (int)(t), #k " == " #t)
#else
#define FAST_ERR_ABI(k, t) _Static_assert((int)(k) == (int)(t), #k " == " #t)
#endif
FAST_ERR_ABI(FAST_E_TRUNCATED, TOE_DECODE_TRUNCATED);
FAST_ERR_ABI(FAST_E_NO_STOP_BIT, TOE_DECODE_NO_STOP_BIT);
FAST_ERR_ABI(FAST_E_RANGE, TOE_DECODE_RANGE);
FAST_ERR_ABI(FAST_E_OVERLONG_INT, TOE_DECODE_OVERLONG_INT);
FAST_ERR_ABI(FAST_E_OVERLONG_PMAP, TOE_DECODE_OVERLONG_PMAP);
FAST_ERR_ABI(FAST_E_PMAP_EXTRA, TOE_DECODE_PMAP_EXTRA);
FAST_ERR_ABI(FAST_E_OVERLONG_STR, TOE_DECODE_OVERLONG_STR);
FAST_ERR_ABI(FAST_E_PMAP_TOO_LONG, TOE_DECODE_PMAP_TOO_LONG);
FAST_ERR_ABI(FAST_E_UNKNOWN_TEMPLATE, TOE_DECODE_UNKNOWN_TEMPLATE);
FAST_ERR_ABI(FAST_E_MANDATORY_UNDEF, TOE_DECODE_MANDATORY_UNDEF);
FAST_ERR_ABI(FAST_E_MANDATORY_EMPTY, TOE_DECODE_MANDATORY_EMPTY);
FAST_ERR_ABI(FAST_E_SUBTRACT_LEN, TOE_DECODE_SUBTRACT_LEN);
FAST_ERR_ABI(FAST_E_EXPONENT, TOE_DECODE_EXPONENT);
FAST_ERR_ABI(FAST_E_STR_TOO_LONG, TOE_DECODE_STR_TOO_LONG);
FAST_ERR_ABI(FAST_E_SEQ_TOO_LONG, TOE_DECODE_SEQ_TOO_LONG);
FAST_ERR_ABI(FAST_E_TOO_MANY_VALUES, TOE_DECODE_TOO_MANY_VALUES);
FAST_ERR_ABI(FAST_E_NULL_MANDATORY, TOE_DECODE_NULL_MANDATORY);
FAST_ERR_ABI(STEP_E_GARBAGE, TOE_DECODE_STEP_GARBAGE);
FAST_ERR_ABI(STEP_E_BAD_HEADER, TOE_DECODE_STEP_BAD_HEADER);
FAST_ERR_ABI(STEP_E_TOO_LONG, TOE_DECODE_STEP_TOO_LONG);
FAST_ERR_ABI(STEP_E_BAD_FIELD, TOE_DECODE_STEP_BAD_FIELD);
FAST_ERR_ABI(STEP_E_BAD_DATA_LEN, TOE_DECODE_STEP_BAD_DATA_LEN);
FAST_ERR_ABI(STEP_E_BAD_LENGTH, TOE_DECODE_STEP_BAD_LENGTH);
FAST_ERR_ABI(STEP_E_BAD_CHECKSUM, TOE_DECODE_STEP_BAD_CHECKSUM);
FAST_ERR_ABI(STEP_E_NO_DATA, TOE_DECODE_STEP_NO_DATA);
FAST_ERR_ABI(FAST_ERR_COUNT, TOE_DECODE_COUNT);
#undef FAST_ERR_ABI

#endif
