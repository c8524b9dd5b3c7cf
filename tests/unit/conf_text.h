/* conf_text.h - unit tests' configurations written as text (header only).
 *
 * conf_text_load loads the text as toed loads a file named path (the
 * configuration's own checks included) into cfg, and prints its diagnostics
 * when it does not load: the data-plane tests (test_dp_*) each compose their
 * configuration and start from here. Returns toed_config_load_mem's result.
 */
#ifndef TOE_TEST_CONF_TEXT_H
#define TOE_TEST_CONF_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"

static inline int conf_text_load(const char *path, const char *text, struct toed_config *cfg)
{
	struct toed_diag *d = malloc(sizeof *d);
	int rc;
	if (!d)
		return -1;
	toed_diag_init(d);
	rc = toed_config_load_mem(path, text, strlen(text), cfg, d);
	if (rc)
		toed_diag_print(d, stderr);
	free(d);
	return rc;
}

#endif
