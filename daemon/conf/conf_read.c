/* conf_read.c - reading toed.conf: the line reader, inih's callbacks, sections, and the diagnostics.
 *
 * inih splits the file into sections and key = value pairs; the rest is here.
 * inih's handler gets no line number (Debian builds it without
 * INI_HANDLER_LINENO), so the file goes through ini_parse_stream() with a
 * reader that counts lines and classifies each one first: section headers
 * are tracked here (so empty, unknown and repeated sections are caught too),
 * malformed lines are reported here (every one, not only the first), and
 * inih is handed only well-formed lines with their leading blanks stripped,
 * which also keeps inih's multi-line continuation from gluing an indented
 * key onto the previous one. Each value goes to its type's parser
 * (conf_types.c) through the schema (conf_schema.c); the rules between keys
 * are checked once the whole file is read (conf_check.c).
 */
#include "conf/conf_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

/* ---- diagnostics ------------------------------------------------------------------- */

void toed_diag_init(struct toed_diag *d)
{
	d->errors = d->warnings = d->n = d->dropped = 0;
}

void conf_diag_push(struct toed_diag *d, int level, unsigned line, const char *file, const char *body)
{
	if (!d)
		return;
	if (level == TOED_DIAG_ERROR)
		d->errors++;
	else
		d->warnings++;
	if (d->n >= TOED_DIAG_MAX) {
		d->dropped++;
		return;
	}
	struct toed_diag_msg *m = &d->msg[d->n++];
	m->level = (uint32_t)level;
	m->line = line;
	const char *w = level == TOED_DIAG_WARNING ? "warning: " : "";
	if (line)
		snprintf(m->text, sizeof m->text, "%s:%u: %s%s", file, line, w, body);
	else
		snprintf(m->text, sizeof m->text, "%s: %s%s", file, w, body);
}

/* Stable sort of msg[from..n) by line, messages without a line last. */
static void diag_sort(struct toed_diag *d, uint32_t from)
{
	for (uint32_t i = from + 1; i < d->n; i++) {
		struct toed_diag_msg t = d->msg[i];
		uint64_t kt = t.line ? t.line : UINT64_MAX;
		uint32_t j = i;
		while (j > from && (d->msg[j - 1].line ? d->msg[j - 1].line : UINT64_MAX) > kt) {
			d->msg[j] = d->msg[j - 1];
			j--;
		}
		d->msg[j] = t;
	}
}

void toed_diag_print(const struct toed_diag *d, FILE *f)
{
	for (uint32_t i = 0; i < d->n; i++)
		fprintf(f, "%s\n", d->msg[i].text);
	if (d->dropped)
		fprintf(f, "... and %u more\n", d->dropped);
}

static void vmsg(struct ctx *x, int level, unsigned line, const char *fmt, va_list ap)
{
	char body[TOED_DIAG_LEN - 64];
	vsnprintf(body, sizeof body, fmt, ap);
	if (level == TOED_DIAG_ERROR)
		x->nerr++;
	conf_diag_push(x->d, level, line, x->path, body);
}

void conf_msg(struct ctx *x, int level, unsigned line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(x, level, line, fmt, ap);
	va_end(ap);
}

/* "[label] key = value: reason" (or "[label] key: reason" for an empty value). */
void conf_kv_msg(struct ctx *x, int level, unsigned line, const char *label, const char *key, const char *value,
		 const char *fmt, ...)
{
	char why[TOED_DIAG_LEN / 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (value && *value)
		conf_msg(x, level, line, "[%s] %s = %s: %s", label, key, value, why);
	else
		conf_msg(x, level, line, "[%s] %s: %s", label, key, why);
}

/* Warning about the key being parsed. */
void conf_cur_warn(struct ctx *x, const char *fmt, ...)
{
	char why[TOED_DIAG_LEN / 2];
	va_list ap;
	if (!x)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	conf_kv_msg(x, TOED_DIAG_WARNING, x->cur_line, x->label, x->cur_key->name, x->cur_val, "%s", why);
}

/* ---- did you mean ------------------------------------------------------------------- */

static unsigned edit_distance(const char *a, const char *b)
{
	unsigned prev[64], cur[64];
	size_t la = strlen(a), lb = strlen(b);
	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			unsigned del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
	}
	return prev[lb];
}

static const char *closest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	unsigned bd = 3;
	size_t wl = strlen(word);
	for (size_t i = 0; i < n; i++) {
		unsigned d = edit_distance(word, cands[i]);
		if (d < bd && d < wl) {
			bd = d;
			best = cands[i];
		}
	}
	return best;
}

/* ---- sections ------------------------------------------------------------------------ */

/* inih's find_chars_or_comment(): the first of chars, or an inline ';' comment after a blank. */
static char *find_sep(char *s, const char *chars)
{
	int was_space = 0;
	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

static void on_section(struct ctx *x, char *s)
{
	unsigned ln = x->lineno;
	char name[128];
	x->skip = 1;
	x->sec = S_NONE;
	x->inst = -1;
	char *e = find_sep(s + 1, "]");
	if (*e != ']') {
		conf_msg(x, TOED_DIAG_ERROR, ln, "%s: missing ] after the section name", s);
		return;
	}
	char *p = s + 1;
	while (isspace((unsigned char)*p))
		p++;
	size_t nl = (size_t)(e - p);
	while (nl && isspace((unsigned char)p[nl - 1]))
		nl--;
	if (nl >= sizeof name) {
		conf_msg(x, TOED_DIAG_ERROR, ln, "[%.40s...]: section name too long", p);
		return;
	}
	memcpy(name, p, nl);
	name[nl] = 0;
	char *rest = e + 1;
	while (isspace((unsigned char)*rest))
		rest++;
	if (*rest && *rest != ';' && *rest != '#')
		conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: text after the section header: %s", name, rest);

	char base[128];
	snprintf(base, sizeof base, "%s", name);
	char *dot = strchr(base, '.');
	const char *sub = NULL;
	if (dot) {
		*dot = 0;
		sub = dot + 1;
	}
	int sec = S_NONE;
	for (int i = S_DEVICE; i < S_COUNT; i++)
		if (strcmp(base, conf_sec_name[i]) == 0)
			sec = i;
	if (sec == S_NONE) {
		const char *near = closest(base, conf_sec_name + 1, S_COUNT - 1);
		if (near)
			conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: unknown section; did you mean [%s%s]?", name, near,
			    strcmp(near, "feed") == 0 ? ".NAME" : "");
		else
			conf_msg(x, TOED_DIAG_ERROR, ln,
			    "[%s]: unknown section (sections: device, source, port, port.N, feed.NAME, tcp, udp, fast, "
			    "shm, dataplane, log, record)",
			    name);
		return;
	}
	if (sec == S_PORT) {
		int idx = 0;
		if (sub) {
			char *end;
			long v = strtol(sub, &end, 10);
			if (!isdigit((unsigned char)sub[0]) || *end || (sub[0] == '0' && sub[1])) {
				conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: not a port number (port.0 .. port.%d)", name,
				    TOED_MAX_PORTS - 1);
				return;
			}
			if (v >= TOED_MAX_PORTS) {
				conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: port number above %d (the card has %d ports)", name,
				    TOED_MAX_PORTS - 1, TOED_MAX_PORTS);
				return;
			}
			idx = (int)v;
		}
		if (x->port_line[idx]) {
			if (x->port_plain[idx] != !sub)
				conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: port 0 already given as [%s] at line %u", name,
				    x->port_plain[idx] ? "port" : "port.0", x->port_line[idx]);
			else
				conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: section repeated (first at line %u)", name,
				    x->port_line[idx]);
			return;
		}
		x->port_line[idx] = ln;
		x->port_plain[idx] = !sub;
		memset(&x->c->port[idx], 0, sizeof x->c->port[idx]);
		x->c->port[idx].enabled = 1;
		conf_apply_defaults(x->c, S_PORT, idx);
		x->inst = idx;
	} else if (sec == S_FEED) {
		if (!sub) {
			conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: a feed section needs a name: [feed.NAME]", name);
			return;
		}
		if (!conf_valid_name(sub)) {
			conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: not a feed name (1 to %d letters, digits, '_', '-' or '.')",
			    name, TOED_NAME_MAX - 1);
			return;
		}
		for (uint32_t i = 0; i < x->c->nfeeds; i++) {
			if (strcmp(x->c->feed[i].name, sub) == 0) {
				conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: section repeated (first at line %u)", name,
				    x->feed_line[i]);
				return;
			}
		}
		if (x->c->nfeeds >= TOED_MAX_FEEDS) {
			conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: more than %d feeds", name, TOED_MAX_FEEDS);
			return;
		}
		int idx = (int)x->c->nfeeds++;
		memset(&x->c->feed[idx], 0, sizeof x->c->feed[idx]);
		conf_apply_defaults(x->c, S_FEED, idx);
		snprintf(x->c->feed[idx].name, sizeof x->c->feed[idx].name, "%s", sub);
		x->feed_line[idx] = ln;
		x->inst = idx;
	} else {
		if (sub) {
			conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: [%s] takes no .NAME", name, base);
			return;
		}
		if (x->sec_line[sec]) {
			conf_msg(x, TOED_DIAG_ERROR, ln, "[%s]: section repeated (first at line %u)", name, x->sec_line[sec]);
			return;
		}
		x->sec_line[sec] = ln;
		x->inst = 0;
	}
	if (sec == S_PORT && sub)
		snprintf(x->label, sizeof x->label, "port.%d", x->inst);
	else if (sec == S_PORT)
		snprintf(x->label, sizeof x->label, "port");
	else if (sec == S_FEED)
		snprintf(x->label, sizeof x->label, "feed.%s", sub);
	else
		snprintf(x->label, sizeof x->label, "%s", conf_sec_name[sec]);
	x->sec = sec;
	x->skip = 0;
}

/* ---- inih callbacks ------------------------------------------------------------------ */

static int on_kv(void *user, const char *section, const char *name, const char *value)
{
	struct ctx *x = user;
	unsigned ln = x->lineno;
	(void)section;
	if (!name)
		return 1;
	if (!value)
		value = "";
	if (x->skip)
		return 1;
	if (!*name) {
		conf_msg(x, TOED_DIAG_ERROR, ln, "= %s: missing key name before =", value);
		return 1;
	}
	if (x->sec == S_NONE) {
		conf_msg(x, TOED_DIAG_ERROR, ln, "%s = %s: outside any section (keys go under a [section])", name, value);
		return 1;
	}
	const struct key *k = conf_key_find(x->sec, name);
	if (!k) {
		const char *names[16];
		size_t n = 0;
		char list[256];
		size_t o = 0;
		list[0] = 0;
		for (size_t i = 0; i < CONF_NKEYS && n < 16; i++) {
			if (conf_keys[i].sec != x->sec)
				continue;
			names[n++] = conf_keys[i].name;
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", conf_keys[i].name);
			if (o >= sizeof list)
				o = sizeof list - 1;
		}
		const char *near = closest(name, names, n);
		if (near)
			conf_kv_msg(x, TOED_DIAG_ERROR, ln, x->label, name, value, "unknown key; did you mean %s?", near);
		else
			conf_kv_msg(x, TOED_DIAG_ERROR, ln, x->label, name, value, "unknown key (keys of [%s]: %s)",
			       conf_sec_name[x->sec], list);
		return 1;
	}
	int r = conf_row(x->sec, x->inst);
	if (x->line[r][k->id]) {
		conf_kv_msg(x, TOED_DIAG_ERROR, ln, x->label, k->name, value, "duplicate key (first set at line %u)",
		       x->line[r][k->id]);
		return 1;
	}
	x->line[r][k->id] = ln;
	x->raw[r][k->id] = strdup(value);
	x->cur_line = ln;
	x->cur_key = k;
	x->cur_val = value;
	char why[TOED_DIAG_LEN / 2];
	void *base = conf_sec_base(x->c, x->sec, x->inst);
	if (conf_parse_value(x, k, x->c, base, value, why, sizeof why) < 0) {
		x->bad[r][k->id] = 1;
		conf_kv_msg(x, TOED_DIAG_ERROR, ln, x->label, k->name, value, "%s", why);
	} else {
		conf_key_warnings(x, k, base);
	}
	return 1;
}

/* The next byte of the text, EOF at its end or past TOED_CONFIG_MAX_BYTES (reported once). */
static int next_byte(struct ctx *x)
{
	int c;
	if (x->stop)
		return EOF;
	if (x->f)
		c = getc(x->f);
	else
		c = x->mem_off < x->mem_len ? (unsigned char)x->mem[x->mem_off++] : EOF;
	if (c != EOF && ++x->nread > TOED_CONFIG_MAX_BYTES) {
		/* a file that grew after the size check, or one whose size says nothing (/proc) */
		conf_msg(x, TOED_DIAG_ERROR, x->lineno + 1, "the file goes on past %u bytes (1 MiB): not a toed "
			 "configuration; the rest is not read", TOED_CONFIG_MAX_BYTES);
		x->stop = 1;
		return EOF;
	}
	return c;
}

/* One physical line into x->text, at most TOED_CONFIG_MAX_LINE bytes of it kept (the rest is
 * read and dropped: memory stays bounded whatever the line). Its length, -1 at the end of the
 * text; *over is set when it was longer. */
static long read_line(struct ctx *x, int *over)
{
	size_t n = 0;
	int c = EOF, any = 0;
	*over = 0;
	while ((c = next_byte(x)) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		if (n < TOED_CONFIG_MAX_LINE)
			x->text[n++] = (char)c;
		else
			*over = 1;
	}
	if (!any || x->stop) /* a line cut by the size bound is not read either */
		return -1;
	x->text[n] = 0;
	return (long)n;
}

static char *reader(char *str, int num, void *stream)
{
	struct ctx *x = stream;
	int over;
	long n = read_line(x, &over);
	if (n < 0)
		return NULL;
	x->lineno++;
	char *s = x->text;
	while (n > 0 && s[n - 1] == '\r')
		s[--n] = 0;
	if (x->lineno == 1 && (unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb && (unsigned char)s[2] == 0xbf)
		s += 3;
	while (*s == ' ' || *s == '\t')
		s++;
	str[0] = 0;
	if (!*s || *s == ';' || *s == '#')
		return str;
	if (over || strlen(s) + 3 > (size_t)num) { /* inih's buffer holds num - 3 characters and CR LF NUL */
		if (over)
			conf_msg(x, TOED_DIAG_ERROR, x->lineno, "line longer than %d bytes", TOED_CONFIG_MAX_LINE);
		else
			conf_msg(x, TOED_DIAG_ERROR, x->lineno, "line longer than %d characters", num - 3);
		if (*s == '[') { /* the section is unknown: ignore its keys */
			x->skip = 1;
			x->sec = S_NONE;
		}
		return str;
	}
	if (*s == '[') {
		on_section(x, s);
		if (!x->skip)
			snprintf(str, (size_t)num, "[%s]", x->label);
		return str;
	}
	char *sep = find_sep(s, "=:");
	if (*sep != '=' && *sep != ':') {
		conf_msg(x, TOED_DIAG_ERROR, x->lineno, "%s: not a [section] or a key = value line", s);
		return str;
	}
	memcpy(str, s, strlen(s) + 1);
	return str;
}

/* ---- load ---------------------------------------------------------------------------- */

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a plain file";
}

/* Open path for x without ever blocking: a FIFO opens at once with O_NONBLOCK and is refused
 * like every other file that is not regular (/dev/zero, /dev/null, a terminal, a directory);
 * a file over the size bound is refused before a byte is read. 0, or -1 with the message. */
static int open_file(struct ctx *x, const char *path, char *abs)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || !realpath(path, abs)) {
		conf_msg(x, TOED_DIAG_ERROR, 0, "cannot open: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		conf_msg(x, TOED_DIAG_ERROR, 0, "cannot read: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		conf_msg(x, TOED_DIAG_ERROR, 0, "not a regular file (%s): a configuration is a text file",
			 file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	if (st.st_size > (off_t)TOED_CONFIG_MAX_BYTES) {
		conf_msg(x, TOED_DIAG_ERROR, 0, "%lld bytes: larger than %u bytes (1 MiB), not a toed configuration",
			 (long long)st.st_size, TOED_CONFIG_MAX_BYTES);
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	x->f = fdopen(fd, "r");
	if (!x->f) {
		conf_msg(x, TOED_DIAG_ERROR, 0, "cannot read: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

/* c->path and x->dir from the absolute path of the file. */
static int set_path(struct ctx *x, const char *abs)
{
	if (strlen(abs) >= sizeof x->c->path) {
		conf_msg(x, TOED_DIAG_ERROR, 0, "path longer than %zu bytes", sizeof x->c->path - 1);
		return -1;
	}
	memcpy(x->c->path, abs, strlen(abs) + 1);
	memcpy(x->dir, abs, strlen(abs) + 1);
	char *slash = strrchr(x->dir, '/');
	if (slash == x->dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	return 0;
}

static void parse_and_check(struct ctx *x)
{
	struct toed_config *c = x->c;
	int r = ini_parse_stream(reader, x, on_kv, x);
	if (x->f && ferror(x->f)) {
		conf_msg(x, TOED_DIAG_ERROR, 0, "read error: %s", strerror(errno));
	} else if (r > 0 && !x->nerr) {
		/* inih saw an error this reader did not: should not happen, but never ignore it */
		conf_msg(x, TOED_DIAG_ERROR, (unsigned)r, "syntax error");
	} else if (r < 0 && !x->nerr) {
		conf_msg(x, TOED_DIAG_ERROR, 0, "inih failed (%d)", r);
	}

	/* port 0 stays the implicit mirror port of the defaults without a [port]/[port.0]
	 * section, except on the card when other ports are configured */
	int any_port = 0;
	for (int i = 0; i < TOED_MAX_PORTS; i++)
		any_port |= x->port_line[i] != 0;
	if (any_port && !x->port_line[0] && c->device.backend == TOED_BACKEND_XRT)
		memset(&c->port[0], 0, sizeof c->port[0]);
	conf_check(x);
}

/* path: a file to open; or text (path then only names it). */
static int load(const char *path, const char *text, size_t len, unsigned flags, struct toed_config *out,
		struct toed_diag *diag)
{
	struct ctx *x = calloc(1, sizeof *x);
	struct toed_config *c = calloc(1, sizeof *c);
	uint32_t first = diag ? diag->n : 0;
	int rc = -1;
	if (!x || !c) {
		conf_diag_push(diag, TOED_DIAG_ERROR, 0, path, "out of memory");
		goto out;
	}
	x->path = path;
	x->d = diag;
	x->c = c;
	x->sec = S_NONE;
	x->offline = (flags & CONF_OFFLINE) != 0;
	toed_config_default(c);

	char abs[PATH_MAX];
	if (!text) {
		if (open_file(x, path, abs) < 0)
			goto out;
	} else {
		if (len > TOED_CONFIG_MAX_BYTES) {
			conf_msg(x, TOED_DIAG_ERROR, 0, "%zu bytes: larger than %u bytes (1 MiB), not a toed configuration",
				 len, TOED_CONFIG_MAX_BYTES);
			goto out;
		}
		x->mem = text;
		x->mem_len = len;
		char cwd[PATH_MAX];
		if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
			snprintf(abs, sizeof abs, "%s", path);
		else if ((size_t)snprintf(abs, sizeof abs, "%s/%s", cwd, path) >= sizeof abs)
			snprintf(abs, sizeof abs, "%s", path);
	}
	if (set_path(x, abs) < 0)
		goto out;
	parse_and_check(x);

	if (!x->nerr) {
		memcpy(out, c, sizeof *c);
		rc = 0;
	}
out:
	if (x) {
		if (x->f)
			fclose(x->f);
		for (int r2 = 0; r2 < ROWS; r2++)
			for (int k = 0; k < TOED_K_COUNT; k++)
				free(x->raw[r2][k]);
	}
	if (diag)
		diag_sort(diag, first);
	free(x);
	free(c);
	return rc;
}

int toed_config_load(const char *path, struct toed_config *out, struct toed_diag *diag)
{
	return load(path, NULL, 0, 0, out, diag);
}

int toed_config_load_mem(const char *name, const char *text, size_t len, struct toed_config *out,
			 struct toed_diag *diag)
{
	return load(name, text ? text : "", text ? len : 0, 0, out, diag);
}

int conf_load_text(const char *name, const char *text, size_t len, unsigned flags, struct toed_config *out,
		   struct toed_diag *diag)
{
	return load(name, text ? text : "", text ? len : 0, flags, out, diag);
}
