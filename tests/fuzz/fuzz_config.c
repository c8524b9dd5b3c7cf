/* fuzz_config.c - libFuzzer target for the configuration reader (daemon/conf/).
 *
 * Input: the text of a toed.conf, whole (no control bytes). It is parsed from
 * memory (conf_load_text, CONF_OFFLINE): nothing on the machine is opened, so
 * a fuzzed "templates = /dev/zero" or a FIFO as pcap_file decides nothing; the
 * reader, every value type, the schema, the rules between keys and the reload
 * diff are what is exercised. Checked on every input:
 *   - the result and the diagnostics agree: 0 with no error, -1 with at least
 *     one; at most TOED_DIAG_MAX messages kept, each NUL-terminated, naming the
 *     file, sorted by line with file-wide ones last;
 *   - a failed load leaves the output untouched;
 *   - a loaded configuration does not differ from itself (toed_config_diff 0,
 *     nothing in the diff), and written back as a file (every key formatted the
 *     way the file says it) it loads again to the same configuration: whatever
 *     a value's formatter writes, its parser reads back to the same value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_impl.h"

#define FUZZ_NAME "fuzz_config"
#include "fuzz_common.h"

#define NAME "fuzz.conf"

static struct toed_config cfg, cfg2, untouched;
static struct toed_diag diag, diag2;
static struct toed_diff diff;
static char out[256 * 1024];

static void check_diag(const struct toed_diag *d, int rc)
{
	if ((rc == 0) != (d->errors == 0))
		FAIL("load returned %d with %u errors", rc, d->errors);
	if (d->n > TOED_DIAG_MAX || d->n + d->dropped != d->errors + d->warnings)
		FAIL("%u messages kept, %u dropped, %u errors, %u warnings", d->n, d->dropped, d->errors, d->warnings);
	for (uint32_t i = 0; i < d->n; i++) {
		const struct toed_diag_msg *m = &d->msg[i];
		if (!memchr(m->text, 0, sizeof m->text))
			FAIL("message %u not terminated", i);
		if (strncmp(m->text, NAME ":", strlen(NAME ":")) != 0)
			FAIL("message %u does not name the file: %s", i, m->text);
		if (i && m->line && (!d->msg[i - 1].line || d->msg[i - 1].line > m->line))
			FAIL("messages out of line order at %u: %s", i, m->text);
	}
}

/* Append "name = value\n" lines of one section; 0 when a line would be longer than inih takes. */
static int put(size_t *o, const char *fmt, const char *a, const char *b)
{
	int n = snprintf(out + *o, sizeof out - *o, fmt, a, b);
	if (n < 0 || (size_t)n >= sizeof out - *o || n > 190)
		return 0;
	*o += (size_t)n;
	return 1;
}

static int put_section(size_t *o, const struct toed_config *c, int sec, int inst, const char *label)
{
	char v[TOED_PATH_MAX + 64];
	if (!put(o, "[%s]%s\n", label, ""))
		return 0;
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct key *k = &conf_keys[i];
		if (k->sec != sec)
			continue;
		/* port 0's queue falls back to [source] queue unless written: a 0 here would be a second one */
		if (sec == S_PORT && k->id == TOED_K_PORT_QUEUE && !c->port[inst].queue_set)
			continue;
		conf_fmt_value(k, c, conf_sec_cbase(c, sec, inst), v, sizeof v);
		if (!put(o, "%s = %s\n", k->name, v))
			return 0;
	}
	return 1;
}

/* The configuration as a file; 0 when it cannot be written within inih's line length. */
static int write_back(const struct toed_config *c, size_t *len)
{
	size_t o = 0;
	char label[TOED_NAME_MAX + 8];
	for (int s = S_DEVICE; s < S_COUNT; s++)
		if (s != S_PORT && s != S_FEED && !put_section(&o, c, s, 0, conf_sec_name[s]))
			return 0;
	for (int i = 0; i < TOED_MAX_PORTS; i++) {
		if (!c->port[i].enabled || c->port[i].implicit)
			continue;
		snprintf(label, sizeof label, "port.%d", i);
		if (!put_section(&o, c, S_PORT, i, label))
			return 0;
	}
	for (uint32_t i = 0; i < c->nfeeds; i++) {
		snprintf(label, sizeof label, "feed.%s", c->feed[i].name);
		if (!put_section(&o, c, S_FEED, (int)i, label))
			return 0;
	}
	*len = o;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&cfg, 0xa5, sizeof cfg);
	memcpy(&untouched, &cfg, sizeof cfg);
	toed_diag_init(&diag);
	int rc = conf_load_text(NAME, (const char *)data, size, CONF_OFFLINE, &cfg, &diag);
	check_diag(&diag, rc);
	if (rc < 0) {
		if (memcmp(&cfg, &untouched, sizeof cfg) != 0)
			FAIL("a failed load wrote the output");
		return 0;
	}
	if (toed_config_diff(&cfg, &cfg, &diff) != 0 || diff.n)
		FAIL("a configuration differs from itself (%u changes)", diff.n);

	size_t len;
	if (!write_back(&cfg, &len))
		return 0; /* a value too long for one line of the file (paths made absolute, lists spaced) */
	toed_diag_init(&diag2);
	rc = conf_load_text(NAME, out, len, CONF_OFFLINE, &cfg2, &diag2);
	if (rc < 0) {
		fprintf(stderr, "--- written back:\n%.*s--- messages:\n", (int)len, out);
		toed_diag_print(&diag2, stderr);
		FAIL("the configuration written back does not load");
	}
	if (toed_config_diff(&cfg, &cfg2, &diff) != 0) {
		fprintf(stderr, "--- written back:\n%.*s--- changes:\n", (int)len, out);
		toed_diff_print(&diff, stderr);
		FAIL("the configuration written back loads to another configuration");
	}
	return 0;
}
