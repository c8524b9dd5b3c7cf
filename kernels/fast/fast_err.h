/* fast_err.h - error codes of the STEP deframer and the FAST decoder.
 *
 * One code per reason; every block counts its errors in an array indexed by
 * these codes, and the tools print them by name (fast_err_name(), host side).
 * Codes that mirror the FAST specification's error ids say so.
 */
#ifndef FAST_ERR_H
#define FAST_ERR_H

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

#endif
