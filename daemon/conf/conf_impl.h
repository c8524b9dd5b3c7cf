/* conf_impl.h - what the configuration's files share, private to daemon/conf/.
 *
 *   conf_read.c    reads the file (the line reader, inih's callbacks, sections), holds the diagnostics
 *   conf_types.c   the value types: one parse/format pair per type, in conf_types[]
 *   conf_schema.c  the sections and the keys (conf_keys[]), the defaults, the enum names
 *   conf_check.c   rules between keys, template compilation, per-key warnings
 *   conf_diff.c    the reload diff and the live application of a reload
 *
 * Everything walks conf_keys[]: a key is a section, a type, a field and a default.
 */
#ifndef TOED_CONF_IMPL_H
#define TOED_CONF_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/config.h"

/* ---- sections and keys (conf_schema.c) ---------------------------------------------------- */

enum sec { S_NONE, S_DEVICE, S_SOURCE, S_PORT, S_FEED, S_TCP, S_UDP, S_FAST, S_SHM, S_DATAPLANE, S_LOG, S_RECORD, S_COUNT };

extern const char *const conf_sec_name[S_COUNT];

/* Value types: index of conf_types[] (conf_types.c). */
enum kind {
	T_ENUM, T_BOOL, T_UINT, T_CPU, T_BDF, T_IFNAME, T_NAME, T_GROUP, T_PATH_IN, T_PATH_OUT, T_SOCKPATH,
	T_IPV4, T_NETMASK, T_MAC, T_ENDPOINT, T_PACE, T_LOOP, T_HUGEPAGES, T_PORTLIST, T_MODE, T_AUTOBOOL, T_SEQFIELDS,
	T_COUNT
};

#define F_POW2 0x1u   /* T_UINT: power of two */
#define F_SUFFIX 0x2u /* T_UINT: K/M/G suffixes (x1024) */
#define F_LIVE 0x4u   /* a change applies to a running daemon */
#define F_HOST 0x8u   /* T_IPV4: must be a unicast host address */
#define F_EMPTY 0x10u /* T_NAME: empty means none; T_UINT: empty means not set (0), and 0 is written so */

struct ename {
	const char *name;
	uint32_t val;
};

struct key {
	uint8_t sec;
	uint8_t kind;
	uint16_t id; /* enum toed_key */
	uint32_t flags;
	const char *name;
	size_t off, size; /* field in struct toed_config, toed_port or toed_feed */
	int64_t min, max;
	const struct ename *names; /* T_ENUM, ends with a NULL name */
	const char *below, *above; /* reasons for out-of-range values */
	const char *def;           /* default as written in the file; NULL: none */
};

/* In enum toed_key order (conf_keys[id].id == id). */
extern const struct key conf_keys[]; /* TOED_K_COUNT entries (checked where it is defined) */
#define CONF_NKEYS ((size_t)TOED_K_COUNT)

const struct key *conf_key_find(int sec, const char *name);
/* The struct a key of section sec (instance inst for ports and feeds) lives in. */
void *conf_sec_base(struct toed_config *c, int sec, int inst);
const void *conf_sec_cbase(const struct toed_config *c, int sec, int inst);
/* Defaults of one section (instance). */
void conf_apply_defaults(struct toed_config *c, int sec, int inst);
const char *conf_enum_name(const struct ename *e, uint32_t v);

#define FIELD(base, k) ((void *)((char *)(base) + (k)->off))

/* ---- the parse context (conf_read.c) ------------------------------------------------------ */

#define ROWS (1 + TOED_MAX_PORTS + TOED_MAX_FEEDS) /* fixed sections, ports, feeds */

struct ctx {
	const char *path; /* as given, for messages */
	char dir[TOED_PATH_MAX];
	/* the text: a file, or memory (toed_config_load_mem) */
	FILE *f;
	const char *mem;
	size_t mem_len, mem_off;
	size_t nread;   /* bytes read so far: at most TOED_CONFIG_MAX_BYTES are */
	int stop;       /* the size bound was hit: nothing more is read */
	int offline;    /* CONF_OFFLINE: look at no file, group or device named in the text */
	char text[TOED_CONFIG_MAX_LINE + 1]; /* the physical line being read */
	unsigned lineno;
	/* current section */
	int sec, inst, skip;
	char label[TOED_NAME_MAX + 8];
	unsigned sec_line[S_COUNT];
	unsigned port_line[TOED_MAX_PORTS];
	uint8_t port_plain[TOED_MAX_PORTS]; /* written as [port] */
	unsigned feed_line[TOED_MAX_FEEDS];
	/* per key: line it was set on, parse failure, value as written */
	unsigned line[ROWS][TOED_K_COUNT];
	uint8_t bad[ROWS][TOED_K_COUNT];
	char *raw[ROWS][TOED_K_COUNT];
	/* the key being parsed (for warnings from parsers) */
	unsigned cur_line;
	const struct key *cur_key;
	const char *cur_val;
	unsigned nerr;
	struct toed_config *c;
	struct toed_diag *d;
};

static inline int conf_row(int sec, int inst)
{
	if (sec == S_PORT)
		return 1 + inst;
	if (sec == S_FEED)
		return 1 + TOED_MAX_PORTS + inst;
	return 0;
}

/* ---- diagnostics (conf_read.c) ------------------------------------------------------------ */

void conf_diag_push(struct toed_diag *d, int level, unsigned line, const char *file, const char *body);
__attribute__((format(printf, 4, 5))) void conf_msg(struct ctx *x, int level, unsigned line, const char *fmt, ...);
/* "[label] key = value: reason" (or "[label] key: reason" for an empty value). */
__attribute__((format(printf, 7, 8))) void conf_kv_msg(struct ctx *x, int level, unsigned line, const char *label,
						       const char *key, const char *value, const char *fmt, ...);
/* Warning about the key being parsed (nothing when x is NULL: the built-in defaults). */
__attribute__((format(printf, 2, 3))) void conf_cur_warn(struct ctx *x, const char *fmt, ...);

/* ---- value types (conf_types.c) ----------------------------------------------------------- */

/* parse: value text v into the field of k in base (c is the whole config, for the types that
 * set more than their field); x is NULL for the built-in defaults (then nothing on the machine
 * is looked at). 0, or -1 with the reason in why. format: the value the way the file says it,
 * "" when unset. */
struct conf_type {
	const char *name;
	int (*parse)(struct ctx *x, const struct key *k, struct toed_config *c, void *base, const char *v, char *why,
		     size_t wl);
	void (*format)(const struct key *k, const struct toed_config *c, const void *base, char *buf, size_t len);
};

extern const struct conf_type conf_types[T_COUNT];

int conf_parse_value(struct ctx *x, const struct key *k, struct toed_config *c, void *base, const char *v, char *why,
		     size_t wl);
void conf_fmt_value(const struct key *k, const struct toed_config *c, const void *base, char *buf, size_t len);

/* helpers of the types that the checks use too */
void conf_fmt_ipv4(uint32_t ip, char *buf, size_t len);
int conf_mask_len(uint32_t m);
int conf_valid_name(const char *s);
/* A relative path against the config file's directory (then TOED_DATADIR for input files);
 * x == NULL (built-in defaults): kept as written. */
int conf_resolve_path(struct ctx *x, const char *v, int input, char *out, size_t len, char *why, size_t wl);

/* [fast] sequence_fields (conf_seqfields.c): the rules as written, and against the compiled
 * templates (names to field ids; with check, every problem is an error in why). */
struct fast_names;
int conf_seqfields_parse(struct ctx *x, struct toed_config *c, const char *v, char *why, size_t wl);
void conf_seqfields_format(const struct toed_config *c, char *buf, size_t len);
int conf_seqfields_resolve(struct toed_config *c, const struct fast_names *nm, int check, char *why, size_t wl);

/* ---- loading (conf_read.c) ---------------------------------------------------------------- */

/* Parse and check no file, group or device named in the text: no template compilation, no
 * pcap or xclbin check, no group lookup (for the fuzz target: the text decides nothing about
 * the machine it runs on). */
#define CONF_OFFLINE 0x1u

/* toed_config_load_mem() with flags. */
int conf_load_text(const char *name, const char *text, size_t len, unsigned flags, struct toed_config *out,
		   struct toed_diag *diag);

/* ---- checks (conf_check.c) ---------------------------------------------------------------- */

/* Warnings about one key's value alone, right after it parsed. */
void conf_key_warnings(struct ctx *x, const struct key *k, const void *base);
/* After the whole file: resolve relative defaults, check the rules between keys, compile the
 * templates. Errors go to x->nerr. */
void conf_check(struct ctx *x);

#endif
