/* fast_compile.h - compile a FAST XML template file into a template program (host only).
 *
 * Reads FAST 1.1 template files (namespace http://www.fixprotocol.org/ns/fast/td/1.1)
 * and the older namespace SSE uses (http://www.fixprotocol.org/ns/template-definition)
 * with libxml2, and produces the flat struct fast_prog that the decoder (and
 * the card's template memory) executes. Unknown attributes are ignored;
 * decimalPlaces is kept as the scale of a scaled integer. Field names are
 * mapped to tick fields (toe/tick.h) and templates to record types; a field
 * whose name is a tick field's but whose type is not is left unmapped and
 * noted (fast_names.note), not refused: the file is another exchange's.
 */
#ifndef FAST_COMPILE_H
#define FAST_COMPILE_H

#include <stddef.h>
#include "fast/fast_prog.h"

#define FAST_NAME_MAX 64

#define FAST_NOTE_MAX 320

/* Names the program itself does not carry (for printing), and what the
 * compiler has to say about a file it accepted. */
struct fast_names {
	char tpl[FAST_MAX_TEMPLATES][FAST_NAME_MAX];    /* template names */
	char field[FAST_MAX_INSTR][FAST_NAME_MAX];      /* field name per instruction ("" for END) */
	/* Fields named like a tick field but of a type that field cannot take
	 * (another exchange's numeric SecurityID, say), and templates with both
	 * trade and order fields, are decoded but not mapped: how many, and a
	 * message to print, "file:line: ..." of the first (with the count when
	 * there are more). */
	uint32_t nnotes;
	char note[FAST_NOTE_MAX];
};

/* Compile `path`. Returns 0, or -1 with a message "file:line: reason" in err. */
int fast_compile_file(const char *path, struct fast_prog *prog, struct fast_names *names,
		      char *err, size_t errlen);

/* Same, from memory; `name` is used in error messages. */
int fast_compile_buffer(const char *xml, size_t len, const char *name, struct fast_prog *prog,
			struct fast_names *names, char *err, size_t errlen);

/* Index of the template with id `tid` in prog->tpl, or -1. */
int fast_prog_find(const struct fast_prog *prog, uint32_t tid);

#endif
