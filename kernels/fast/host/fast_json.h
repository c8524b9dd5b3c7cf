/* fast_json.h - print decoded records and error names (host only). */
#ifndef FAST_JSON_H
#define FAST_JSON_H

#include <stdio.h>
#include "fast/fast_decode.h"
#include "fast_compile.h"

/* Name of a fast_err code ("truncated", "D2_range", ...). */
const char *fast_err_name(int e);

/* Print r as one JSON object without a newline:
 * {"template":3201,<extra>"MessageType":"UA3201","TradeIndex":1001,...}
 * Field names from `names`; integers as JSON integers, strings as JSON
 * strings, decimals as exact JSON numbers, byte vectors as hex strings,
 * sequences as arrays of objects, groups as objects; absent optional fields
 * omitted. `extra` (may be NULL) is inserted verbatim after "template", e.g.
 * "\"msg_seq\":7," . */
void fast_json_record(FILE *f, const struct fast_prog *p, const struct fast_names *names,
		      const struct fast_rec *r, const char *extra);

#endif
