/* fast_encode.h - FAST 1.1 encoder for a compiled template program (host only).
 *
 * The inverse of fast_decode: takes a record in the decoder's value layout
 * (struct fast_rec: one value per field instruction in template order; a
 * decimal is one value at its first instruction; a sequence is its length value
 * followed by each element's values; a group is a presence value followed by
 * its fields when present) and writes the FAST bytes, keeping its own
 * dictionary so operators compress exactly as the decoder expects. Used by
 * the tests, the benchmarks, the demo data and the feed simulator.
 */
#ifndef FAST_ENCODE_H
#define FAST_ENCODE_H

#include <stdint.h>
#include "fast/fast_decode.h"

struct fast_enc {
	const struct fast_prog *prog;
	uint32_t gen;
	struct fast_dict_entry dict[FAST_MAX_DICT];
};

void fast_enc_init(struct fast_enc *e, const struct fast_prog *prog);
void fast_enc_reset(struct fast_enc *e);

/* Encode r (r->tpl selects the template; r->tid must match it) into
 * out[0..cap). Returns the number of bytes written, or a negative fast_err
 * when the record cannot be encoded (value does not fit its type, mandatory
 * field absent, buffer too small: -FAST_E_TOO_MANY_VALUES). */
int fast_enc_record(struct fast_enc *e, const struct fast_rec *r, uint8_t *out, uint32_t cap);

#endif
