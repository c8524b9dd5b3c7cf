/* config.c - parse, validate and diff toed's configuration (see config.h, doc/config.md).
 *
 * inih splits the file into sections and key = value pairs; the rest is here.
 * inih's handler gets no line number (Debian builds it without
 * INI_HANDLER_LINENO), so the file goes through ini_parse_stream() with a
 * reader that counts lines and classifies each one first: section headers
 * are tracked here (so empty, unknown and repeated sections are caught too),
 * malformed lines are reported here (every one, not only the first), and
 * inih is handed only well-formed lines with their leading blanks stripped,
 * which also keeps inih's multi-line continuation from gluing an indented
 * key onto the previous one.
 *
 * One table, keys[], describes every key: section, parser, range, the
 * default (as text, parsed by the same code as the file) and whether a change
 * applies live. Loading, defaults, diffing and live application all walk it.
 */
#include "conf/config.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "fast/host/fast_compile.h"
#include "toe/ctl.h"
#include "toe/shm.h"

/* ---- the schema -------------------------------------------------------------------- */

enum sec { S_NONE, S_DEVICE, S_SOURCE, S_PORT, S_FEED, S_TCP, S_UDP, S_FAST, S_SHM, S_DATAPLANE, S_LOG, S_RECORD, S_COUNT };

static const char *const sec_name[S_COUNT] = {
	"", "device", "source", "port", "feed", "tcp", "udp", "fast", "shm", "dataplane", "log", "record",
};

enum kind {
	T_ENUM, T_BOOL, T_UINT, T_CPU, T_BDF, T_IFNAME, T_NAME, T_GROUP, T_PATH_IN, T_PATH_OUT, T_SOCKPATH,
	T_IPV4, T_NETMASK, T_MAC, T_ENDPOINT, T_PACE, T_LOOP, T_HUGEPAGES, T_PORTLIST, T_MODE,
};

#define F_POW2 0x1u   /* T_UINT: power of two */
#define F_SUFFIX 0x2u /* T_UINT: K/M/G suffixes (x1024) */
#define F_LIVE 0x4u   /* a change applies to a running daemon */
#define F_HOST 0x8u   /* T_IPV4: must be a unicast host address */

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

static const struct ename e_backend[] = { { "sw", TOED_BACKEND_SW }, { "xrt", TOED_BACKEND_XRT }, { NULL, 0 } };
static const struct ename e_srctype[] = {
	{ "af_xdp", TOED_SRC_AF_XDP }, { "af_packet", TOED_SRC_AF_PACKET }, { "pcap", TOED_SRC_PCAP }, { NULL, 0 }
};
static const struct ename e_xdp[] = { { "native", TOED_XDP_NATIVE }, { "skb", TOED_XDP_SKB }, { NULL, 0 } };
static const struct ename e_role[] = {
	{ "mirror", TOED_ROLE_MIRROR }, { "tcp", TOED_ROLE_TCP }, { "udp", TOED_ROLE_UDP }, { NULL, 0 }
};
static const struct ename e_proto[] = { { "tcp", TOED_PROTO_TCP }, { "udp", TOED_PROTO_UDP }, { NULL, 0 } };
static const struct ename e_framing[] = {
	{ "step", TOED_FRAMING_STEP }, { "raw", TOED_FRAMING_RAW }, { "datagram", TOED_FRAMING_RAW }, { NULL, 0 }
};
static const struct ename e_level[] = {
	{ "error", TOED_LOG_ERROR }, { "warning", TOED_LOG_WARNING }, { "notice", TOED_LOG_NOTICE },
	{ "info", TOED_LOG_INFO },   { "debug", TOED_LOG_DEBUG },     { NULL, 0 }
};
static const struct ename e_target[] = { { "journal", TOED_LOG_JOURNAL }, { "stderr", TOED_LOG_STDERR }, { NULL, 0 } };

#define FLD(type, f) .off = offsetof(type, f), .size = sizeof(((type *)0)->f)
#define CF(f) FLD(struct toed_config, f)
#define PF(f) FLD(struct toed_port, f)
#define FF(f) FLD(struct toed_feed, f)

#define MSS_MIN 536
#define MSS_MAX 1460

/* In enum toed_key order (keys[id].id == id). */
static const struct key keys[] = {
	{ S_DEVICE, T_ENUM, TOED_K_DEVICE_BACKEND, 0, "backend", CF(device.backend), .names = e_backend, .def = "sw" },
	{ S_DEVICE, T_BDF, TOED_K_DEVICE_PCI, 0, "pci", CF(device.pci), .def = "" },
	{ S_DEVICE, T_PATH_IN, TOED_K_DEVICE_XCLBIN, 0, "xclbin", CF(device.xclbin), .def = TOED_DEF_XCLBIN },

	{ S_SOURCE, T_ENUM, TOED_K_SOURCE_TYPE, 0, "type", CF(source.type), .names = e_srctype, .def = "af_packet" },
	{ S_SOURCE, T_IFNAME, TOED_K_SOURCE_INTERFACE, 0, "interface", CF(source.interface), .def = "" },
	{ S_SOURCE, T_UINT, TOED_K_SOURCE_QUEUE, 0, "queue", CF(source.queue), 0, 1023, .def = "0" },
	{ S_SOURCE, T_ENUM, TOED_K_SOURCE_XDP_MODE, 0, "xdp_mode", CF(source.xdp_mode), .names = e_xdp, .def = "native" },
	{ S_SOURCE, T_PATH_IN, TOED_K_SOURCE_PCAP_FILE, 0, "pcap_file", CF(source.pcap_file), .def = "" },
	{ S_SOURCE, T_PACE, TOED_K_SOURCE_PCAP_PACE, F_LIVE, "pcap_pace", CF(source.pcap_pace), .def = "recorded" },
	{ S_SOURCE, T_LOOP, TOED_K_SOURCE_PCAP_LOOP, F_LIVE, "pcap_loop", CF(source.pcap_loop), 0, 1000000, .def = "1" },

	{ S_PORT, T_IPV4, TOED_K_PORT_IP, F_HOST, "ip", PF(ip), .def = "" },
	{ S_PORT, T_NETMASK, TOED_K_PORT_NETMASK, 0, "netmask", PF(netmask), .def = "" },
	{ S_PORT, T_IPV4, TOED_K_PORT_GATEWAY, F_HOST, "gateway", PF(gateway), .def = "" },
	{ S_PORT, T_MAC, TOED_K_PORT_MAC, 0, "mac", PF(mac), .def = "" },
	{ S_PORT, T_ENUM, TOED_K_PORT_ROLE, 0, "role", PF(role), .names = e_role, .def = "mirror" },
	{ S_PORT, T_UINT, TOED_K_PORT_VLAN, 0, "vlan", PF(vlan), 0, 4094, .above = "above 4094 (4095 is reserved)",
	  .def = "0" },
	{ S_PORT, T_BOOL, TOED_K_PORT_VERIFY_CHECKSUMS, 0, "verify_checksums", PF(verify_checksums), .def = "yes" },

	{ S_FEED, T_ENDPOINT, TOED_K_FEED_EXCHANGE, 0, "exchange", FF(exchange), .def = "" },
	{ S_FEED, T_ENDPOINT, TOED_K_FEED_VENDOR, 0, "vendor", FF(vendor), .def = "" },
	{ S_FEED, T_ENUM, TOED_K_FEED_PROTOCOL, 0, "protocol", FF(protocol), .names = e_proto, .def = "tcp" },
	{ S_FEED, T_ENUM, TOED_K_FEED_FRAMING, 0, "framing", FF(framing), .names = e_framing, .def = NULL },
	{ S_FEED, T_NAME, TOED_K_FEED_STREAM, 0, "stream", FF(stream), .def = NULL },
	{ S_FEED, T_UINT, TOED_K_FEED_PORT, 0, "port", FF(port), 0, TOED_MAX_PORTS - 1,
	  .above = "above 3 (the card has 4 ports, 0..3)", .def = "0" },

	{ S_TCP, T_UINT, TOED_K_TCP_MSS, 0, "mss", CF(tcp.mss), MSS_MIN, MSS_MAX,
	  .below = "below 536 (the smallest MSS every IPv4 host must accept)",
	  .above = "above 1460 (the largest MSS of a 1500-byte MTU)", .def = "1408" },
	{ S_TCP, T_UINT, TOED_K_TCP_CONNECTIONS, 0, "connections", CF(tcp.connections), 1, MTOE_MAX_CONNS,
	  .above = "above 256 (the size of the connection table)", .def = "64" },
	{ S_TCP, T_UINT, TOED_K_TCP_WINDOW, F_POW2 | F_SUFFIX, "window", CF(tcp.window), MTOE_MIN_WINDOW,
	  MTOE_MAX_WINDOW, .below = "below 64 bytes", .above = "above 1M (1048576 bytes)", .def = "32K" },
	{ S_TCP, T_UINT, TOED_K_TCP_GAP_TIMEOUT_MS, F_LIVE, "gap_timeout_ms", CF(tcp.gap_timeout_ms), 0, 60000,
	  .above = "above 60000 (one minute)", .def = "50" },
	{ S_TCP, T_UINT, TOED_K_TCP_IDLE_TIMEOUT_S, F_LIVE, "idle_timeout_s", CF(tcp.idle_timeout_s), 0, 86400,
	  .above = "above 86400 (one day)", .def = "300" },

	{ S_UDP, T_PORTLIST, TOED_K_UDP_PORTS, 0, "ports", CF(udp), .def = "" },

	{ S_FAST, T_PATH_IN, TOED_K_FAST_TEMPLATES, 0, "templates", CF(fast.templates), .def = TOED_DEF_TEMPLATES },
	{ S_FAST, T_ENUM, TOED_K_FAST_FRAMING, 0, "framing", CF(fast.framing), .names = e_framing, .def = "step" },

	{ S_SHM, T_HUGEPAGES, TOED_K_SHM_HUGEPAGES, 0, "hugepages", CF(shm.hugepages), 0, 65536,
	  .above = "above 65536 (128 GB of 2 MB pages)", .def = "auto" },
	{ S_SHM, T_UINT, TOED_K_SHM_RING_SIZE, F_POW2 | F_SUFFIX, "ring_size", CF(shm.ring_size), TOE_SHM_MIN_CAPACITY,
	  TOE_SHM_MAX_CAPACITY, .below = "below 64 records", .above = "above 1M records (1048576)", .def = "8192" },
	{ S_SHM, T_UINT, TOED_K_SHM_MAX_CLIENTS, 0, "max_clients", CF(shm.max_clients), 1, 4096, .def = "256" },
	{ S_SHM, T_SOCKPATH, TOED_K_SHM_SOCKET, 0, "socket", CF(shm.socket), .def = TOE_CTL_DEFAULT_PATH },
	{ S_SHM, T_GROUP, TOED_K_SHM_SOCKET_GROUP, 0, "socket_group", CF(shm.socket_group), .def = "" },
	{ S_SHM, T_MODE, TOED_K_SHM_SOCKET_MODE, 0, "socket_mode", CF(shm.socket_mode), .def = "0660" },

	{ S_DATAPLANE, T_CPU, TOED_K_DATAPLANE_CPU, F_LIVE, "cpu", CF(dataplane.cpu), 0, 1023, .def = "none" },
	{ S_DATAPLANE, T_UINT, TOED_K_DATAPLANE_PRIORITY, F_LIVE, "priority", CF(dataplane.priority), 0, 99,
	  .above = "above 99 (the highest SCHED_FIFO priority)", .def = "0" },
	{ S_DATAPLANE, T_BOOL, TOED_K_DATAPLANE_BUSY_POLL, F_LIVE, "busy_poll", CF(dataplane.busy_poll), .def = "no" },

	{ S_LOG, T_ENUM, TOED_K_LOG_LEVEL, F_LIVE, "level", CF(log.level), .names = e_level, .def = "info" },
	{ S_LOG, T_ENUM, TOED_K_LOG_TARGET, F_LIVE, "target", CF(log.target), .names = e_target, .def = "journal" },

	{ S_RECORD, T_PATH_OUT, TOED_K_RECORD_PCAP, F_LIVE, "pcap", CF(record.pcap), .def = "" },
	{ S_RECORD, T_PATH_OUT, TOED_K_RECORD_TICKS, F_LIVE, "ticks", CF(record.ticks), .def = "" },
};

#define NKEYS (sizeof keys / sizeof keys[0])
_Static_assert(sizeof keys / sizeof keys[0] == TOED_K_COUNT, "one keys[] entry per enum toed_key");

static const struct key *key_find(int sec, const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].sec == sec && strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static void *sec_base(struct toed_config *c, int sec, int inst)
{
	if (sec == S_PORT)
		return &c->port[inst];
	if (sec == S_FEED)
		return &c->feed[inst];
	return c;
}

static const void *sec_cbase(const struct toed_config *c, int sec, int inst)
{
	return sec_base((struct toed_config *)c, sec, inst);
}

#define FIELD(base, k) ((void *)((char *)(base) + (k)->off))
#define U32(base, k) (*(uint32_t *)FIELD(base, k))

/* ---- diagnostics ------------------------------------------------------------------- */

void toed_diag_init(struct toed_diag *d)
{
	d->errors = d->warnings = d->n = d->dropped = 0;
}

static void diag_push(struct toed_diag *d, int level, unsigned line, const char *file, const char *body)
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

/* ---- parse context ------------------------------------------------------------------- */

#define ROWS (1 + TOED_MAX_PORTS + TOED_MAX_FEEDS) /* fixed sections, ports, feeds */

struct ctx {
	const char *path; /* as given, for messages */
	char dir[TOED_PATH_MAX];
	FILE *f;
	char *buf;
	size_t cap;
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

static int row_of(int sec, int inst)
{
	if (sec == S_PORT)
		return 1 + inst;
	if (sec == S_FEED)
		return 1 + TOED_MAX_PORTS + inst;
	return 0;
}

static void vmsg(struct ctx *x, int level, unsigned line, const char *fmt, va_list ap)
{
	char body[TOED_DIAG_LEN - 64];
	vsnprintf(body, sizeof body, fmt, ap);
	if (level == TOED_DIAG_ERROR)
		x->nerr++;
	diag_push(x->d, level, line, x->path, body);
}

__attribute__((format(printf, 4, 5))) static void msg(struct ctx *x, int level, unsigned line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(x, level, line, fmt, ap);
	va_end(ap);
}

/* "[label] key = value: reason" (or "[label] key: reason" for an empty value). */
__attribute__((format(printf, 7, 8))) static void kv_msg(struct ctx *x, int level, unsigned line, const char *label,
							   const char *key, const char *value, const char *fmt, ...)
{
	char why[TOED_DIAG_LEN / 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (value && *value)
		msg(x, level, line, "[%s] %s = %s: %s", label, key, value, why);
	else
		msg(x, level, line, "[%s] %s: %s", label, key, why);
}

/* Warning about the key being parsed. */
__attribute__((format(printf, 2, 3))) static void cur_warn(struct ctx *x, const char *fmt, ...)
{
	char why[TOED_DIAG_LEN / 2];
	va_list ap;
	if (!x)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	kv_msg(x, TOED_DIAG_WARNING, x->cur_line, x->label, x->cur_key->name, x->cur_val, "%s", why);
}

/* ---- small parsers ------------------------------------------------------------------- */

static int streq_ci(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

static void enum_list(const struct ename *e, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (; e->name && o < len; e++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", e->name);
}

static const char *enum_name(const struct ename *e, uint32_t v)
{
	for (; e->name; e++)
		if (e->val == v)
			return e->name;
	return "?";
}

/* Decimal integer with an optional K/M/G suffix (x1024). */
static int parse_int(const char *v, int suffix, int64_t *out, char *why, size_t wl)
{
	const char *p = v;
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p)) {
		snprintf(why, wl, "not a number");
		return -1;
	}
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (errno == ERANGE) {
		snprintf(why, wl, "out of range");
		return -1;
	}
	if (suffix && *end) {
		int64_t mul = 0;
		const char *s = end;
		while (*s == ' ')
			s++;
		char u = (char)toupper((unsigned char)*s);
		if (u == 'K')
			mul = 1024;
		else if (u == 'M')
			mul = 1024 * 1024;
		else if (u == 'G')
			mul = 1024 * 1024 * 1024;
		if (mul) {
			s++;
			if (streq_ci(s, "") || streq_ci(s, "B") || streq_ci(s, "iB")) {
				if (n > INT64_MAX / mul || n < INT64_MIN / mul) {
					snprintf(why, wl, "out of range");
					return -1;
				}
				n *= mul;
				end = (char *)s + strlen(s);
			}
		}
	}
	if (*end) {
		snprintf(why, wl, suffix ? "not a number (digits, optionally followed by K, M or G)" : "not a number");
		return -1;
	}
	*out = n;
	return 0;
}

/* Strict dotted quad: four decimal parts 0..255, no leading zeros. */
static int parse_ipv4(const char *v, uint32_t *out)
{
	uint32_t ip = 0;
	const char *p = v;
	for (int i = 0; i < 4; i++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		if (p[0] == '0' && isdigit((unsigned char)p[1]))
			return -1;
		uint32_t part = 0;
		int nd = 0;
		while (isdigit((unsigned char)*p)) {
			part = part * 10 + (uint32_t)(*p - '0');
			if (++nd > 3 || part > 255)
				return -1;
			p++;
		}
		ip = ip << 8 | part;
		if (i < 3) {
			if (*p != '.')
				return -1;
			p++;
		}
	}
	if (*p)
		return -1;
	*out = ip;
	return 0;
}

static void fmt_ipv4(uint32_t ip, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

static int host_addr_ok(uint32_t ip)
{
	uint32_t a = ip >> 24;
	return ip != 0 && a != 127 && a < 224;
}

static uint32_t prefix_mask(unsigned n)
{
	return n ? 0xffffffffu << (32 - n) : 0;
}

static int mask_len(uint32_t m)
{
	int n = 0;
	while (n < 32 && (m & (0x80000000u >> n)))
		n++;
	return prefix_mask((unsigned)n) == m ? n : -1;
}

static int hexv(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= TOED_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return 0;
	return 1;
}

static int path_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Resolve a relative path against the config file's directory (then TOED_DATADIR
 * for input files). x == NULL (built-in defaults): kept as written. */
static int resolve_path(struct ctx *x, const char *v, int input, char *out, size_t len, char *why, size_t wl)
{
	int n;
	if (!*v || v[0] == '/' || !x) {
		n = snprintf(out, len, "%s", v);
	} else {
		char alt[TOED_PATH_MAX * 2];
		n = snprintf(out, len, "%s/%s", x->dir, v);
		if (input && (size_t)n < len && !path_exists(out)) {
			snprintf(alt, sizeof alt, "%s/%s", TOED_DATADIR, v);
			if (path_exists(alt) && strlen(alt) < len)
				n = snprintf(out, len, "%s", alt);
		}
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(why, wl, "path longer than %zu bytes", len - 1);
		return -1;
	}
	return 0;
}

/* ---- one value ----------------------------------------------------------------------- */

static int parse_value(struct ctx *x, const struct key *k, struct toed_config *c, void *base, const char *v, char *why,
		       size_t wl)
{
	void *f = FIELD(base, k);
	int64_t n;
	switch (k->kind) {
	case T_ENUM:
		for (const struct ename *e = k->names; e->name; e++) {
			if (streq_ci(v, e->name)) {
				*(uint32_t *)f = e->val;
				return 0;
			}
		}
		{
			char list[128];
			enum_list(k->names, list, sizeof list);
			snprintf(why, wl, "must be one of: %s", list);
		}
		return -1;
	case T_BOOL:
		if (streq_ci(v, "yes") || streq_ci(v, "true") || streq_ci(v, "on") || strcmp(v, "1") == 0) {
			*(uint32_t *)f = 1;
			return 0;
		}
		if (streq_ci(v, "no") || streq_ci(v, "false") || streq_ci(v, "off") || strcmp(v, "0") == 0) {
			*(uint32_t *)f = 0;
			return 0;
		}
		snprintf(why, wl, "must be yes or no");
		return -1;
	case T_UINT:
		if (!*v) {
			snprintf(why, wl, "empty value (a number is needed)");
			return -1;
		}
		if (parse_int(v, (k->flags & F_SUFFIX) != 0, &n, why, wl) < 0)
			return -1;
		if (n < k->min) {
			if (k->below)
				snprintf(why, wl, "%s", k->below);
			else
				snprintf(why, wl, "below %lld", (long long)k->min);
			return -1;
		}
		if (n > k->max) {
			if (k->above)
				snprintf(why, wl, "%s", k->above);
			else
				snprintf(why, wl, "above %lld", (long long)k->max);
			return -1;
		}
		if ((k->flags & F_POW2) && (n & (n - 1))) {
			snprintf(why, wl, "not a power of two");
			return -1;
		}
		*(uint32_t *)f = (uint32_t)n;
		return 0;
	case T_CPU: {
		if (streq_ci(v, "none")) {
			*(int32_t *)f = -1;
			return 0;
		}
		if (parse_int(v, 0, &n, why, wl) < 0) {
			snprintf(why, wl, "not a CPU number (0..1023, or none)");
			return -1;
		}
		if (n < 0 || n > k->max) {
			snprintf(why, wl, "not a CPU number (0..1023, or none)");
			return -1;
		}
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);
		if (x && ncpu > 0 && n >= ncpu) {
			snprintf(why, wl, "no such CPU (this machine has CPUs 0..%ld)", ncpu - 1);
			return -1;
		}
		*(int32_t *)f = (int32_t)n;
		return 0;
	}
	case T_BDF: {
		char *out = f;
		unsigned dom = 0, bus, dev, fn;
		int len = 0;
		if (!*v) {
			out[0] = 0;
			return 0;
		}
		const char *bad = "not a PCI address (dddd:bb:dd.f with device 00..1f and function 0..7, "
				  "e.g. 0000:3b:00.1)";
		int colons = 0;
		for (const char *p = v; *p; p++) {
			if (*p == ':')
				colons++;
			else if (*p != '.' && hexv((unsigned char)*p) < 0) {
				snprintf(why, wl, "%s", bad);
				return -1;
			}
		}
		if (colons == 2) {
			if (sscanf(v, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &len) != 4 || v[len]) {
				snprintf(why, wl, "%s", bad);
				return -1;
			}
		} else if (colons == 1) {
			if (sscanf(v, "%2x:%2x.%1x%n", &bus, &dev, &fn, &len) != 3 || v[len]) {
				snprintf(why, wl, "%s", bad);
				return -1;
			}
		} else {
			snprintf(why, wl, "%s", bad);
			return -1;
		}
		if (dev > 0x1f || fn > 7) {
			snprintf(why, wl, "%s", bad);
			return -1;
		}
		snprintf(out, k->size, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
		return 0;
	}
	case T_IFNAME: {
		size_t len = strlen(v);
		if (len >= k->size) {
			snprintf(why, wl, "longer than %zu characters (IFNAMSIZ)", k->size - 1);
			return -1;
		}
		if (strcmp(v, ".") == 0 || strcmp(v, "..") == 0 || strpbrk(v, "/: \t")) {
			snprintf(why, wl, "not a valid interface name");
			return -1;
		}
		memcpy(f, v, len + 1);
		return 0;
	}
	case T_NAME:
		if (!valid_name(v)) {
			snprintf(why, wl, "not a name (1 to %d letters, digits, '_', '-' or '.')", TOED_NAME_MAX - 1);
			return -1;
		}
		snprintf(f, k->size, "%s", v);
		return 0;
	case T_GROUP: {
		if (!*v) {
			((char *)f)[0] = 0;
			return 0;
		}
		if (strlen(v) >= k->size) {
			snprintf(why, wl, "longer than %zu characters", k->size - 1);
			return -1;
		}
		const char *p = v;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p && x) { /* a name: it must exist now */
			char gbuf[4096];
			struct group grp, *res = NULL;
			int e = getgrnam_r(v, &grp, gbuf, sizeof gbuf, &res);
			if (e || !res) {
				snprintf(why, wl, "no such group");
				return -1;
			}
		}
		snprintf(f, k->size, "%s", v);
		return 0;
	}
	case T_PATH_IN:
	case T_PATH_OUT:
		return resolve_path(x, v, k->kind == T_PATH_IN, f, k->size, why, wl);
	case T_SOCKPATH:
		if (v[0] != '/') {
			snprintf(why, wl, "not an absolute path");
			return -1;
		}
		if (strlen(v) >= k->size) {
			snprintf(why, wl, "longer than %zu bytes (the limit of a Unix socket path)", k->size - 1);
			return -1;
		}
		snprintf(f, k->size, "%s", v);
		return 0;
	case T_IPV4: {
		uint32_t ip;
		if (!*v) {
			*(uint32_t *)f = 0;
			return 0;
		}
		if (parse_ipv4(v, &ip) < 0) {
			snprintf(why, wl, "not an IPv4 address (a.b.c.d, each part 0..255)");
			return -1;
		}
		if ((k->flags & F_HOST) && !host_addr_ok(ip)) {
			snprintf(why, wl, "not a host address (0.0.0.0, 127.0.0.0/8, multicast and broadcast are not)");
			return -1;
		}
		*(uint32_t *)f = ip;
		return 0;
	}
	case T_NETMASK: {
		uint32_t m;
		if (!*v) {
			*(uint32_t *)f = 0;
			return 0;
		}
		const char *p = v[0] == '/' ? v + 1 : v;
		if (!strchr(p, '.')) {
			if (parse_int(p, 0, &n, why, wl) < 0 || n < 1 || n > 32) {
				snprintf(why, wl, "not a netmask (a.b.c.d, or a prefix length 1..32)");
				return -1;
			}
			m = prefix_mask((unsigned)n);
		} else if (v[0] == '/' || parse_ipv4(v, &m) < 0 || m == 0 || mask_len(m) < 0) {
			snprintf(why, wl, "not a netmask (a.b.c.d with contiguous ones, or a prefix length 1..32)");
			return -1;
		}
		*(uint32_t *)f = m;
		return 0;
	}
	case T_MAC: {
		struct toed_port *p = base;
		uint8_t mac[6];
		if (!*v) {
			p->has_mac = 0;
			memset(p->mac, 0, sizeof p->mac);
			return 0;
		}
		char sep = strlen(v) == 17 ? v[2] : 0;
		int ok = (sep == ':' || sep == '-');
		for (int i = 0; ok && i < 6; i++) {
			int hi = hexv((unsigned char)v[3 * i]), lo = hexv((unsigned char)v[3 * i + 1]);
			if (hi < 0 || lo < 0 || (i < 5 && v[3 * i + 2] != sep))
				ok = 0;
			else
				mac[i] = (uint8_t)(hi << 4 | lo);
		}
		if (!ok) {
			snprintf(why, wl, "not a MAC address (xx:xx:xx:xx:xx:xx)");
			return -1;
		}
		if (mac[0] & 1) {
			snprintf(why, wl, "a multicast MAC (the low bit of the first byte is set)");
			return -1;
		}
		if (!(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5])) {
			snprintf(why, wl, "the all-zero MAC");
			return -1;
		}
		memcpy(p->mac, mac, 6);
		p->has_mac = 1;
		return 0;
	}
	case T_ENDPOINT: {
		struct toed_endpoint *ep = f;
		struct toed_endpoint e = { 0, 0 };
		char host[64];
		if (!*v) {
			*ep = e;
			return 0;
		}
		const char *colon = strchr(v, ':');
		size_t hl = colon ? (size_t)(colon - v) : strlen(v);
		const char *bad = "not an endpoint (address:port, address, or * for any part, e.g. 10.0.0.1:5261)";
		if (hl >= sizeof host) {
			snprintf(why, wl, "%s", bad);
			return -1;
		}
		memcpy(host, v, hl);
		host[hl] = 0;
		if (*host && strcmp(host, "*") != 0 && parse_ipv4(host, &e.ip) < 0) {
			snprintf(why, wl, "%s", bad);
			return -1;
		}
		if (colon && strcmp(colon + 1, "*") != 0) {
			if (parse_int(colon + 1, 0, &n, why, wl) < 0 || colon[1] == '-' || colon[1] == '+') {
				snprintf(why, wl, "%s", bad);
				return -1;
			}
			if (n < 1 || n > 65535) {
				snprintf(why, wl, "port %lld is not 1..65535", (long long)n);
				return -1;
			}
			e.port = (uint32_t)n;
		}
		*ep = e;
		return 0;
	}
	case T_PACE: {
		struct toed_config *cc = c;
		if (streq_ci(v, "recorded")) {
			cc->source.pcap_pace = TOED_PACE_RECORDED;
			cc->source.pcap_speed = 1.0;
			return 0;
		}
		if (streq_ci(v, "fast")) {
			cc->source.pcap_pace = TOED_PACE_FAST;
			cc->source.pcap_speed = 0;
			return 0;
		}
		char *end;
		errno = 0;
		double s = strtod(v, &end);
		if (end != v && (*end == 'x' || *end == 'X'))
			end++;
		if (end == v || *end || errno || !(s == s) || !isdigit((unsigned char)v[0])) {
			snprintf(why, wl, "not a pace (recorded, fast, or a speed factor such as 2 or 0.5)");
			return -1;
		}
		if (s < 0.001) {
			snprintf(why, wl, "speed factor below 0.001");
			return -1;
		}
		if (s > 1000) {
			snprintf(why, wl, "speed factor above 1000 (use fast)");
			return -1;
		}
		cc->source.pcap_pace = TOED_PACE_FACTOR;
		cc->source.pcap_speed = s;
		return 0;
	}
	case T_LOOP:
		if (streq_ci(v, "forever")) {
			*(uint32_t *)f = 0;
			return 0;
		}
		if (parse_int(v, 0, &n, why, wl) < 0) {
			snprintf(why, wl, "not a count (0..1000000, 0 or forever = endless)");
			return -1;
		}
		if (n < 0 || n > k->max) {
			snprintf(why, wl, "%s", n < 0 ? "below 0" : "above 1000000");
			return -1;
		}
		*(uint32_t *)f = (uint32_t)n;
		return 0;
	case T_HUGEPAGES:
		if (streq_ci(v, "auto")) {
			c->shm.hugepages = TOED_HUGE_AUTO;
			c->shm.hugepage_count = 0;
			return 0;
		}
		if (streq_ci(v, "off")) {
			c->shm.hugepages = TOED_HUGE_OFF;
			c->shm.hugepage_count = 0;
			return 0;
		}
		if (parse_int(v, 0, &n, why, wl) < 0) {
			snprintf(why, wl, "not auto, off or a number of 2 MB pages");
			return -1;
		}
		if (n < 0 || n > k->max) {
			snprintf(why, wl, "%s", n < 0 ? "below 0" : k->above);
			return -1;
		}
		c->shm.hugepages = TOED_HUGE_COUNT;
		c->shm.hugepage_count = (uint32_t)n;
		return 0;
	case T_PORTLIST: {
		uint32_t bits[65536 / 32];
		uint32_t count = 0;
		char item[32];
		memset(bits, 0, sizeof bits);
		const char *p = v;
		for (;;) {
			while (*p == ' ' || *p == '\t' || *p == ',')
				p++;
			if (!*p)
				break;
			size_t il = strcspn(p, " \t,");
			if (il >= sizeof item) {
				snprintf(why, wl, "'%.20s...' is not a port or a range", p);
				return -1;
			}
			memcpy(item, p, il);
			item[il] = 0;
			p += il;
			int64_t lo, hi;
			char *dash = strchr(item + 1, '-');
			if (dash)
				*dash = 0;
			if (parse_int(item, 0, &lo, why, wl) < 0 || item[0] == '-' || item[0] == '+' ||
			    (dash && (parse_int(dash + 1, 0, &hi, why, wl) < 0 || dash[1] == '-' || dash[1] == '+'))) {
				if (dash)
					*dash = '-';
				snprintf(why, wl, "'%s' is not a port or a range (1..65535, or lo-hi)", item);
				return -1;
			}
			if (!dash)
				hi = lo;
			if (lo < 1 || hi < 1 || lo > 65535 || hi > 65535) {
				if (dash)
					*dash = '-';
				snprintf(why, wl, "'%s': ports are 1..65535", item);
				return -1;
			}
			if (hi < lo) {
				*dash = '-';
				snprintf(why, wl, "'%s': the range is reversed", item);
				return -1;
			}
			for (int64_t q = lo; q <= hi; q++) {
				uint32_t b = 1u << (q & 31);
				if (bits[q >> 5] & b) {
					cur_warn(x, "port %lld listed twice", (long long)q);
					continue;
				}
				bits[q >> 5] |= b;
				count++;
			}
		}
		memcpy(c->udp.ports, bits, sizeof bits);
		c->udp.nports = count;
		return 0;
	}
	case T_MODE: {
		const char *p = v;
		uint32_t m = 0;
		if (!*p)
			goto badmode;
		for (; *p; p++) {
			if (*p < '0' || *p > '7')
				goto badmode;
			m = m * 8 + (uint32_t)(*p - '0');
			if (m > 0777)
				goto badmode;
		}
		*(uint32_t *)f = m;
		return 0;
	badmode:
		snprintf(why, wl, "not an octal mode 0000..0777");
		return -1;
	}
	}
	snprintf(why, wl, "internal error: unknown kind");
	return -1;
}

/* Format a stored value the way the file would say it ("" when unset). */
static void fmt_value(const struct key *k, const struct toed_config *c, const void *base, char *buf, size_t len)
{
	const void *f = (const char *)base + k->off;
	uint32_t u = 0;
	buf[0] = 0;
	switch (k->kind) { /* the numeric kinds (the others may be unaligned char arrays) */
	case T_ENUM: case T_BOOL: case T_UINT: case T_IPV4: case T_NETMASK: case T_LOOP: case T_MODE:
		u = *(const uint32_t *)f;
		break;
	default:
		break;
	}
	switch (k->kind) {
	case T_ENUM:
		snprintf(buf, len, "%s", enum_name(k->names, u));
		break;
	case T_BOOL:
		snprintf(buf, len, "%s", u ? "yes" : "no");
		break;
	case T_UINT:
		snprintf(buf, len, "%u", u);
		break;
	case T_CPU:
		if (*(const int32_t *)f < 0)
			snprintf(buf, len, "none");
		else
			snprintf(buf, len, "%d", *(const int32_t *)f);
		break;
	case T_BDF:
	case T_IFNAME:
	case T_NAME:
	case T_GROUP:
	case T_PATH_IN:
	case T_PATH_OUT:
	case T_SOCKPATH:
		snprintf(buf, len, "%s", (const char *)f);
		break;
	case T_IPV4:
		if (u)
			fmt_ipv4(u, buf, len);
		break;
	case T_NETMASK:
		if (u)
			fmt_ipv4(u, buf, len);
		break;
	case T_MAC: {
		const struct toed_port *p = base;
		if (p->has_mac)
			snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", p->mac[0], p->mac[1], p->mac[2], p->mac[3],
				 p->mac[4], p->mac[5]);
		break;
	}
	case T_ENDPOINT: {
		const struct toed_endpoint *e = f;
		char ip[16] = "*", port[12] = "*";
		if (!e->ip && !e->port)
			break;
		if (e->ip)
			fmt_ipv4(e->ip, ip, sizeof ip);
		if (e->port)
			snprintf(port, sizeof port, "%u", e->port);
		snprintf(buf, len, "%s:%s", ip, port);
		break;
	}
	case T_PACE:
		if (c->source.pcap_pace == TOED_PACE_RECORDED)
			snprintf(buf, len, "recorded");
		else if (c->source.pcap_pace == TOED_PACE_FAST)
			snprintf(buf, len, "fast");
		else
			snprintf(buf, len, "%g", c->source.pcap_speed);
		break;
	case T_LOOP:
		if (u)
			snprintf(buf, len, "%u", u);
		else
			snprintf(buf, len, "forever");
		break;
	case T_HUGEPAGES:
		if (c->shm.hugepages == TOED_HUGE_AUTO)
			snprintf(buf, len, "auto");
		else if (c->shm.hugepages == TOED_HUGE_OFF)
			snprintf(buf, len, "off");
		else
			snprintf(buf, len, "%u", c->shm.hugepage_count);
		break;
	case T_PORTLIST: {
		size_t o = 0;
		for (uint32_t q = 1; q < 65536 && o + 1 < len; q++) {
			if (!toed_udp_listened(c, q))
				continue;
			uint32_t e = q;
			while (e + 1 < 65536 && toed_udp_listened(c, e + 1))
				e++;
			int w = e > q ? snprintf(buf + o, len - o, "%s%u-%u", o ? ", " : "", q, e)
				      : snprintf(buf + o, len - o, "%s%u", o ? ", " : "", q);
			if (w < 0 || (size_t)w >= len - o) {
				if (len > 4)
					snprintf(buf + len - 4, 4, "...");
				break;
			}
			o += (size_t)w;
			q = e;
		}
		break;
	}
	case T_MODE:
		snprintf(buf, len, "%04o", u);
		break;
	}
}

/* Defaults of one section (instance). */
static void apply_defaults(struct toed_config *c, int sec, int inst)
{
	char why[256];
	void *base = sec_base(c, sec, inst);
	for (size_t i = 0; i < NKEYS; i++) {
		if (keys[i].sec != sec || !keys[i].def)
			continue;
		if (parse_value(NULL, &keys[i], c, base, keys[i].def, why, sizeof why) < 0)
			abort(); /* a default that does not parse: a bug in keys[] */
	}
}

void toed_config_default(struct toed_config *c)
{
	memset(c, 0, sizeof *c);
	for (int s = S_DEVICE; s < S_COUNT; s++)
		if (s != S_PORT && s != S_FEED)
			apply_defaults(c, s, 0);
	/* what a file without [port] sections means */
	apply_defaults(c, S_PORT, 0);
	c->port[0].enabled = 1;
	c->port[0].implicit = 1;
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
		msg(x, TOED_DIAG_ERROR, ln, "%s: missing ] after the section name", s);
		return;
	}
	char *p = s + 1;
	while (isspace((unsigned char)*p))
		p++;
	size_t nl = (size_t)(e - p);
	while (nl && isspace((unsigned char)p[nl - 1]))
		nl--;
	if (nl >= sizeof name) {
		msg(x, TOED_DIAG_ERROR, ln, "[%.40s...]: section name too long", p);
		return;
	}
	memcpy(name, p, nl);
	name[nl] = 0;
	char *rest = e + 1;
	while (isspace((unsigned char)*rest))
		rest++;
	if (*rest && *rest != ';' && *rest != '#')
		msg(x, TOED_DIAG_ERROR, ln, "[%s]: text after the section header: %s", name, rest);

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
		if (strcmp(base, sec_name[i]) == 0)
			sec = i;
	if (sec == S_NONE) {
		const char *near = closest(base, sec_name + 1, S_COUNT - 1);
		if (near)
			msg(x, TOED_DIAG_ERROR, ln, "[%s]: unknown section; did you mean [%s%s]?", name, near,
			    strcmp(near, "feed") == 0 ? ".NAME" : "");
		else
			msg(x, TOED_DIAG_ERROR, ln,
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
				msg(x, TOED_DIAG_ERROR, ln, "[%s]: not a port number (port.0 .. port.%d)", name,
				    TOED_MAX_PORTS - 1);
				return;
			}
			if (v >= TOED_MAX_PORTS) {
				msg(x, TOED_DIAG_ERROR, ln, "[%s]: port number above %d (the card has %d ports)", name,
				    TOED_MAX_PORTS - 1, TOED_MAX_PORTS);
				return;
			}
			idx = (int)v;
		}
		if (x->port_line[idx]) {
			if (x->port_plain[idx] != !sub)
				msg(x, TOED_DIAG_ERROR, ln, "[%s]: port 0 already given as [%s] at line %u", name,
				    x->port_plain[idx] ? "port" : "port.0", x->port_line[idx]);
			else
				msg(x, TOED_DIAG_ERROR, ln, "[%s]: section repeated (first at line %u)", name,
				    x->port_line[idx]);
			return;
		}
		x->port_line[idx] = ln;
		x->port_plain[idx] = !sub;
		memset(&x->c->port[idx], 0, sizeof x->c->port[idx]);
		x->c->port[idx].enabled = 1;
		apply_defaults(x->c, S_PORT, idx);
		x->inst = idx;
	} else if (sec == S_FEED) {
		if (!sub) {
			msg(x, TOED_DIAG_ERROR, ln, "[%s]: a feed section needs a name: [feed.NAME]", name);
			return;
		}
		if (!valid_name(sub)) {
			msg(x, TOED_DIAG_ERROR, ln, "[%s]: not a feed name (1 to %d letters, digits, '_', '-' or '.')",
			    name, TOED_NAME_MAX - 1);
			return;
		}
		for (uint32_t i = 0; i < x->c->nfeeds; i++) {
			if (strcmp(x->c->feed[i].name, sub) == 0) {
				msg(x, TOED_DIAG_ERROR, ln, "[%s]: section repeated (first at line %u)", name,
				    x->feed_line[i]);
				return;
			}
		}
		if (x->c->nfeeds >= TOED_MAX_FEEDS) {
			msg(x, TOED_DIAG_ERROR, ln, "[%s]: more than %d feeds", name, TOED_MAX_FEEDS);
			return;
		}
		int idx = (int)x->c->nfeeds++;
		memset(&x->c->feed[idx], 0, sizeof x->c->feed[idx]);
		apply_defaults(x->c, S_FEED, idx);
		snprintf(x->c->feed[idx].name, sizeof x->c->feed[idx].name, "%s", sub);
		x->feed_line[idx] = ln;
		x->inst = idx;
	} else {
		if (sub) {
			msg(x, TOED_DIAG_ERROR, ln, "[%s]: [%s] takes no .NAME", name, base);
			return;
		}
		if (x->sec_line[sec]) {
			msg(x, TOED_DIAG_ERROR, ln, "[%s]: section repeated (first at line %u)", name, x->sec_line[sec]);
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
		snprintf(x->label, sizeof x->label, "%s", sec_name[sec]);
	x->sec = sec;
	x->skip = 0;
}

/* ---- inih callbacks ------------------------------------------------------------------ */

static void key_warnings(struct ctx *x, const struct key *k, const void *base)
{
	if (k->id != TOED_K_TCP_MSS && k->id != TOED_K_SHM_SOCKET_MODE)
		return;
	uint32_t u = *(const uint32_t *)((const char *)base + k->off);
	if (k->id == TOED_K_TCP_MSS && u % 64)
		cur_warn(x, "not a multiple of 64 (receive buffers are 64-byte aligned; 1408 is the largest "
			    "multiple of 64 up to 1460)");
	if (k->id == TOED_K_SHM_SOCKET_MODE && (u & 0002))
		cur_warn(x, "world-writable: any local user can connect and subscribe");
}

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
		msg(x, TOED_DIAG_ERROR, ln, "= %s: missing key name before =", value);
		return 1;
	}
	if (x->sec == S_NONE) {
		msg(x, TOED_DIAG_ERROR, ln, "%s = %s: outside any section (keys go under a [section])", name, value);
		return 1;
	}
	const struct key *k = key_find(x->sec, name);
	if (!k) {
		const char *names[16];
		size_t n = 0;
		char list[256];
		size_t o = 0;
		list[0] = 0;
		for (size_t i = 0; i < NKEYS && n < 16; i++) {
			if (keys[i].sec != x->sec)
				continue;
			names[n++] = keys[i].name;
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", keys[i].name);
			if (o >= sizeof list)
				o = sizeof list - 1;
		}
		const char *near = closest(name, names, n);
		if (near)
			kv_msg(x, TOED_DIAG_ERROR, ln, x->label, name, value, "unknown key; did you mean %s?", near);
		else
			kv_msg(x, TOED_DIAG_ERROR, ln, x->label, name, value, "unknown key (keys of [%s]: %s)",
			       sec_name[x->sec], list);
		return 1;
	}
	int r = row_of(x->sec, x->inst);
	if (x->line[r][k->id]) {
		kv_msg(x, TOED_DIAG_ERROR, ln, x->label, k->name, value, "duplicate key (first set at line %u)",
		       x->line[r][k->id]);
		return 1;
	}
	x->line[r][k->id] = ln;
	x->raw[r][k->id] = strdup(value);
	x->cur_line = ln;
	x->cur_key = k;
	x->cur_val = value;
	char why[TOED_DIAG_LEN / 2];
	void *base = sec_base(x->c, x->sec, x->inst);
	if (parse_value(x, k, x->c, base, value, why, sizeof why) < 0) {
		x->bad[r][k->id] = 1;
		kv_msg(x, TOED_DIAG_ERROR, ln, x->label, k->name, value, "%s", why);
	} else {
		key_warnings(x, k, base);
	}
	return 1;
}

static char *reader(char *str, int num, void *stream)
{
	struct ctx *x = stream;
	ssize_t n = getline(&x->buf, &x->cap, x->f);
	if (n < 0)
		return NULL;
	x->lineno++;
	char *s = x->buf;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
	if (x->lineno == 1 && (unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb && (unsigned char)s[2] == 0xbf)
		s += 3;
	while (*s == ' ' || *s == '\t')
		s++;
	str[0] = 0;
	if (!*s || *s == ';' || *s == '#')
		return str;
	if (strlen(s) + 3 > (size_t)num) { /* inih's buffer holds num - 3 characters and CR LF NUL */
		msg(x, TOED_DIAG_ERROR, x->lineno, "line longer than %d characters", num - 3);
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
		msg(x, TOED_DIAG_ERROR, x->lineno, "%s: not a [section] or a key = value line", s);
		return str;
	}
	memcpy(str, s, strlen(s) + 1);
	return str;
}

/* ---- cross-checks -------------------------------------------------------------------- */

static unsigned kline(struct ctx *x, int sec, int inst, int id)
{
	return x->line[row_of(sec, inst)][id];
}

/* A key's value is usable: set without error, or not set (default). */
static int kok(struct ctx *x, int sec, int inst, int id)
{
	return !x->bad[row_of(sec, inst)][id];
}

static void sec_label(struct ctx *x, int sec, int inst, char *buf, size_t len)
{
	if (sec == S_PORT && inst == 0 && (x->port_plain[0] || !x->port_line[0]))
		snprintf(buf, len, "port");
	else if (sec == S_PORT)
		snprintf(buf, len, "port.%d", inst);
	else if (sec == S_FEED)
		snprintf(buf, len, "feed.%s", x->c->feed[inst].name);
	else
		snprintf(buf, len, "%s", sec_name[sec]);
}

static unsigned sec_line_of(struct ctx *x, int sec, int inst)
{
	if (sec == S_PORT)
		return x->port_line[inst];
	if (sec == S_FEED)
		return x->feed_line[inst];
	return x->sec_line[sec];
}

/* Message about key id of a section instance: on the key's line with its value as
 * written, else on `fallback` (or the section's line) with the value in force. */
__attribute__((format(printf, 7, 8))) static void key_msg(struct ctx *x, int level, int sec, int inst, int id,
							    unsigned fallback, const char *fmt, ...)
{
	char why[TOED_DIAG_LEN / 2], label[TOED_NAME_MAX + 8], val[TOED_PATH_MAX + 16];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	sec_label(x, sec, inst, label, sizeof label);
	int r = row_of(sec, inst);
	unsigned line = x->line[r][id];
	if (line) {
		snprintf(val, sizeof val, "%s", x->raw[r][id] ? x->raw[r][id] : "");
	} else {
		fmt_value(&keys[id], x->c, sec_base(x->c, sec, inst), val, sizeof val - 12);
		if (*val)
			strcat(val, " (default)");
		line = fallback ? fallback : sec_line_of(x, sec, inst);
	}
	kv_msg(x, level, line, label, keys[id].name, val, "%s", why);
}

/* Paths with a relative default are resolved once the file's directory is known. */
static void resolve_defaults(struct ctx *x)
{
	char why[128];
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		if ((k->kind != T_PATH_IN && k->kind != T_PATH_OUT) || k->sec == S_PORT || k->sec == S_FEED)
			continue;
		if (x->line[0][k->id] || !k->def || !*k->def || k->def[0] == '/')
			continue;
		if (resolve_path(x, k->def, k->kind == T_PATH_IN, FIELD(x->c, k), k->size, why, sizeof why) < 0)
			key_msg(x, TOED_DIAG_ERROR, k->sec, 0, k->id, 0, "%s", why);
	}
}

static int is_pcap_magic(const uint8_t m[4])
{
	static const uint8_t magics[][4] = {
		{ 0xd4, 0xc3, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0xc3, 0xd4 }, /* microseconds */
		{ 0x4d, 0x3c, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0x3c, 0x4d }, /* nanoseconds */
		{ 0x0a, 0x0d, 0x0d, 0x0a },                             /* pcapng section header */
	};
	for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
		if (memcmp(m, magics[i], 4) == 0)
			return 1;
	return 0;
}

static void check_device_source(struct ctx *x)
{
	struct toed_config *c = x->c;
	unsigned lb = kline(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND);
	if (!kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND))
		return;
	if (c->device.backend == TOED_BACKEND_XRT) {
		if (kok(x, S_DEVICE, 0, TOED_K_DEVICE_XCLBIN) && access(c->device.xclbin, R_OK) < 0)
			key_msg(x, TOED_DIAG_ERROR, S_DEVICE, 0, TOED_K_DEVICE_XCLBIN, lb,
				"cannot read %s: %s (backend = xrt loads it)", c->device.xclbin, strerror(errno));
		if (x->sec_line[S_SOURCE])
			msg(x, TOED_DIAG_WARNING, x->sec_line[S_SOURCE],
			    "[source]: ignored with backend = xrt (the card's ports receive)");
		return;
	}
	if (kline(x, S_DEVICE, 0, TOED_K_DEVICE_PCI) && c->device.pci[0])
		key_msg(x, TOED_DIAG_WARNING, S_DEVICE, 0, TOED_K_DEVICE_PCI, 0, "ignored with backend = sw");

	if (!kok(x, S_SOURCE, 0, TOED_K_SOURCE_TYPE))
		return;
	unsigned lt = kline(x, S_SOURCE, 0, TOED_K_SOURCE_TYPE);
	uint32_t t = c->source.type;
	const char *tn = enum_name(e_srctype, t);
	if (t == TOED_SRC_PCAP) {
		if (!c->source.pcap_file[0]) {
			if (kok(x, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE))
				key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE, lt,
					"not set (type = pcap replays a capture file)");
		} else {
			FILE *f = fopen(c->source.pcap_file, "rb");
			uint8_t m[4];
			if (!f)
				key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE, lt, "cannot open %s: %s",
					c->source.pcap_file, strerror(errno));
			else if (fread(m, 1, 4, f) != 4 || !is_pcap_magic(m))
				key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE, lt,
					"%s is not a pcap or pcapng file", c->source.pcap_file);
			if (f)
				fclose(f);
		}
		if (kline(x, S_SOURCE, 0, TOED_K_SOURCE_INTERFACE))
			key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, TOED_K_SOURCE_INTERFACE, 0, "ignored with type = pcap");
	} else {
		if (!c->source.interface[0] && kok(x, S_SOURCE, 0, TOED_K_SOURCE_INTERFACE))
			key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_INTERFACE, lt,
				"not set (type = %s captures from a network interface)", tn);
		static const int pcap_keys[] = { TOED_K_SOURCE_PCAP_FILE, TOED_K_SOURCE_PCAP_PACE,
						 TOED_K_SOURCE_PCAP_LOOP };
		for (size_t i = 0; i < 3; i++)
			if (kline(x, S_SOURCE, 0, pcap_keys[i]))
				key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, pcap_keys[i], 0, "ignored with type = %s", tn);
	}
	if (t != TOED_SRC_AF_XDP) {
		static const int xdp_keys[] = { TOED_K_SOURCE_QUEUE, TOED_K_SOURCE_XDP_MODE };
		for (size_t i = 0; i < 2; i++)
			if (kline(x, S_SOURCE, 0, xdp_keys[i]))
				key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, xdp_keys[i], 0, "ignored with type = %s", tn);
	} else if (c->source.xdp_mode == TOED_XDP_SKB) {
		key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, TOED_K_SOURCE_XDP_MODE, 0,
			"generic (SKB) mode is slower and can silently lose large frames; prefer native");
	}
}

static void check_ports(struct ctx *x)
{
	struct toed_config *c = x->c;
	int sw = c->device.backend == TOED_BACKEND_SW;
	for (int i = 0; i < TOED_MAX_PORTS; i++) {
		struct toed_port *p = &c->port[i];
		if (!p->enabled)
			continue;
		char label[16];
		sec_label(x, S_PORT, i, label, sizeof label);
		int ip_ok = kok(x, S_PORT, i, TOED_K_PORT_IP), nm_ok = kok(x, S_PORT, i, TOED_K_PORT_NETMASK);
		int role_ok = kok(x, S_PORT, i, TOED_K_PORT_ROLE);
		if (sw && i > 0 && kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND)) {
			msg(x, TOED_DIAG_ERROR, x->port_line[i],
			    "[%s]: the software backend has one port, port 0 (its [source])", label);
			continue;
		}
		if (role_ok && sw && p->role == TOED_ROLE_TCP && kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND))
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_ROLE, 0,
				"the software backend follows TCP on a mirror and cannot open connections (use mirror)");
		if (role_ok && p->role != TOED_ROLE_MIRROR && ip_ok && !p->ip)
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_ROLE, 0, "needs an ip");
		if (role_ok && p->role != TOED_ROLE_MIRROR && !sw && !p->has_mac && kok(x, S_PORT, i, TOED_K_PORT_MAC))
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_ROLE, 0, "needs a mac (backend = xrt)");
		if (p->ip && nm_ok && !p->netmask && ip_ok)
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_IP, 0, "needs a netmask");
		if (!p->ip && ip_ok) {
			if (p->netmask)
				key_msg(x, TOED_DIAG_WARNING, S_PORT, i, TOED_K_PORT_NETMASK, 0, "ignored without an ip");
			if (p->gateway)
				key_msg(x, TOED_DIAG_WARNING, S_PORT, i, TOED_K_PORT_GATEWAY, 0, "ignored without an ip");
		}
		if (p->ip && p->netmask) {
			uint32_t m = p->netmask, net = p->ip & m;
			char sn[20];
			fmt_ipv4(net, sn, sizeof sn);
			if (mask_len(m) <= 30 && p->ip == net)
				key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_IP, 0, "the network address of %s/%d",
					sn, mask_len(m));
			else if (mask_len(m) <= 30 && p->ip == (net | ~m))
				key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_IP, 0,
					"the broadcast address of %s/%d", sn, mask_len(m));
			if (p->gateway && kok(x, S_PORT, i, TOED_K_PORT_GATEWAY)) {
				if ((p->gateway & m) != net)
					key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_GATEWAY, 0,
						"not in the port's subnet %s/%d", sn, mask_len(m));
				else if (p->gateway == p->ip)
					key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_GATEWAY, 0,
						"the port's own address");
			}
		}
		for (int j = 0; j < i; j++) {
			struct toed_port *q = &c->port[j];
			char lj[16];
			if (!q->enabled)
				continue;
			sec_label(x, S_PORT, j, lj, sizeof lj);
			if (p->ip && p->ip == q->ip)
				key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_IP, 0, "already used by [%s]", lj);
			if (p->has_mac && q->has_mac && memcmp(p->mac, q->mac, 6) == 0)
				key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_MAC, 0, "already used by [%s]", lj);
		}
	}
}

static void check_feeds(struct ctx *x)
{
	struct toed_config *c = x->c;
	for (uint32_t i = 0; i < c->nfeeds; i++) {
		struct toed_feed *f = &c->feed[i];
		int fi = (int)i;
		int proto_ok = kok(x, S_FEED, fi, TOED_K_FEED_PROTOCOL);
		int tcp = f->protocol == TOED_PROTO_TCP;
		/* defaults that depend on other keys */
		if (!kline(x, S_FEED, fi, TOED_K_FEED_STREAM))
			memcpy(f->stream, f->name, sizeof f->stream);
		if (!kline(x, S_FEED, fi, TOED_K_FEED_FRAMING))
			f->framing = tcp ? TOED_FRAMING_STEP : c->fast.framing;
		else if (tcp && proto_ok && f->framing == TOED_FRAMING_RAW && kok(x, S_FEED, fi, TOED_K_FEED_FRAMING))
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_FRAMING, 0,
				"a tcp feed is a byte stream: only step framing can find its messages");
		if (kok(x, S_FEED, fi, TOED_K_FEED_PORT)) {
			struct toed_port *p = &c->port[f->port];
			if (!p->enabled) {
				if (f->port)
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PORT, 0,
						"no [port.%u] section", f->port);
				else
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PORT, 0,
						"no [port] or [port.0] section");
			} else if (proto_ok && kok(x, S_PORT, (int)f->port, TOED_K_PORT_ROLE)) {
				if (tcp && p->role == TOED_ROLE_UDP)
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PROTOCOL, 0,
						"port %u has role = udp (tcp feeds need a mirror or tcp port)", f->port);
				if (!tcp && p->role == TOED_ROLE_TCP)
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PROTOCOL, 0,
						"port %u has role = tcp (udp feeds need a mirror or udp port)", f->port);
			}
			if (tcp && proto_ok && p->enabled && p->role == TOED_ROLE_TCP &&
			    kok(x, S_FEED, fi, TOED_K_FEED_EXCHANGE) && (f->exchange.ip == 0 || f->exchange.port == 0) &&
			    (f->exchange.ip || f->exchange.port))
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_EXCHANGE, 0,
					"a connection from a tcp port needs both the address and the port");
		}
		if (!proto_ok)
			continue;
		if (tcp && kok(x, S_FEED, fi, TOED_K_FEED_EXCHANGE) && !f->exchange.ip && !f->exchange.port)
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_EXCHANGE, 0,
				kline(x, S_FEED, fi, TOED_K_FEED_EXCHANGE)
					? "matches every connection: give the address, the port or both"
					: "not set (a tcp feed names the exchange's server, address:port)");
		if (!tcp && kok(x, S_FEED, fi, TOED_K_FEED_VENDOR) && !f->vendor.port)
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_VENDOR, 0,
				kline(x, S_FEED, fi, TOED_K_FEED_VENDOR)
					? "needs a port (a udp feed is the datagrams sent to this port)"
					: "not set (a udp feed names where the datagrams go: address:port or *:port)");
		for (uint32_t j = 0; j < i; j++) {
			struct toed_feed *g = &c->feed[j];
			if (kok(x, S_FEED, fi, TOED_K_FEED_STREAM) && strcmp(f->stream, g->stream) == 0)
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_STREAM, 0,
					"stream name already used by [feed.%s]", g->name);
			if (g->protocol != f->protocol || g->port != f->port)
				continue;
			if (!tcp && f->vendor.port && f->vendor.port == g->vendor.port)
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_VENDOR, 0,
					"udp port %u already taken by [feed.%s]", f->vendor.port, g->name);
			if (tcp && memcmp(&f->exchange, &g->exchange, sizeof f->exchange) == 0 &&
			    memcmp(&f->vendor, &g->vendor, sizeof f->vendor) == 0 && (f->exchange.ip || f->exchange.port))
				key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, TOED_K_FEED_EXCHANGE, 0,
					"follows the same connections as [feed.%s]", g->name);
		}
	}
	if (!c->nfeeds && !c->udp.nports && kok(x, S_UDP, 0, TOED_K_UDP_PORTS))
		msg(x, TOED_DIAG_WARNING, 0, "no [feed.NAME] section and no [udp] ports: nothing will be decoded");
}

static void check_misc(struct ctx *x)
{
	struct toed_config *c = x->c;
	if (kok(x, S_TCP, 0, TOED_K_TCP_WINDOW) && kok(x, S_TCP, 0, TOED_K_TCP_MSS) && c->tcp.window < c->tcp.mss)
		key_msg(x, TOED_DIAG_ERROR, S_TCP, 0, TOED_K_TCP_WINDOW, kline(x, S_TCP, 0, TOED_K_TCP_MSS),
			"smaller than one segment (mss = %u)", c->tcp.mss);

	if (kok(x, S_DATAPLANE, 0, TOED_K_DATAPLANE_PRIORITY) && kok(x, S_DATAPLANE, 0, TOED_K_DATAPLANE_CPU) &&
	    c->dataplane.priority && c->dataplane.busy_poll && c->dataplane.cpu < 0)
		key_msg(x, TOED_DIAG_WARNING, S_DATAPLANE, 0, TOED_K_DATAPLANE_PRIORITY, 0,
			"a busy-polling SCHED_FIFO thread without a cpu of its own can starve whatever shares its CPU");

	static const int rec[] = { TOED_K_RECORD_PCAP, TOED_K_RECORD_TICKS };
	for (size_t i = 0; i < 2; i++) {
		const struct key *k = &keys[rec[i]];
		const char *p = FIELD(c, k);
		if (!*p || !kok(x, S_RECORD, 0, k->id))
			continue;
		char dir[TOED_PATH_MAX];
		snprintf(dir, sizeof dir, "%s", p);
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = 0;
		else if (slash)
			*slash = 0;
		struct stat st;
		if (p[strlen(p) - 1] == '/')
			key_msg(x, TOED_DIAG_ERROR, S_RECORD, 0, k->id, 0, "names a directory, not a file");
		else if (slash && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)))
			key_msg(x, TOED_DIAG_ERROR, S_RECORD, 0, k->id, 0, "directory %s does not exist", dir);
	}
	if (c->record.pcap[0] && strcmp(c->record.pcap, c->record.ticks) == 0)
		key_msg(x, TOED_DIAG_ERROR, S_RECORD, 0, TOED_K_RECORD_TICKS, 0, "the same file as [record] pcap");
}

static void compile_templates(struct ctx *x)
{
	struct toed_config *c = x->c;
	char err[TOED_DIAG_LEN / 2];
	if (!kok(x, S_FAST, 0, TOED_K_FAST_TEMPLATES))
		return;
	if (!c->fast.templates[0]) {
		key_msg(x, TOED_DIAG_ERROR, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0, "not set (the FAST template file)");
		return;
	}
	if (fast_compile_file(c->fast.templates, &c->fast.prog, NULL, err, sizeof err) < 0) {
		key_msg(x, TOED_DIAG_ERROR, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0, "%s", err);
		return;
	}
	c->fast.have_prog = 1;
	int mapped = 0;
	for (uint32_t i = 0; i < c->fast.prog.ntpl; i++)
		if (c->fast.prog.tpl[i].kind != TOE_REC_NONE)
			mapped = 1;
	if (!mapped)
		key_msg(x, TOED_DIAG_WARNING, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0,
			"no template maps to a tick record (trades 3201, orders 5801): nothing will be published");
}

/* ---- load ---------------------------------------------------------------------------- */

int toed_config_load(const char *path, struct toed_config *out, struct toed_diag *diag)
{
	struct ctx *x = calloc(1, sizeof *x);
	struct toed_config *c = calloc(1, sizeof *c);
	uint32_t first = diag ? diag->n : 0;
	int rc = -1;
	if (!x || !c) {
		diag_push(diag, TOED_DIAG_ERROR, 0, path, "out of memory");
		goto out;
	}
	x->path = path;
	x->d = diag;
	x->c = c;
	x->sec = S_NONE;
	toed_config_default(c);

	char abs[PATH_MAX];
	x->f = fopen(path, "r");
	if (!x->f || !realpath(path, abs)) {
		msg(x, TOED_DIAG_ERROR, 0, "cannot open: %s", strerror(errno));
		goto out;
	}
	struct stat st;
	if (fstat(fileno(x->f), &st) == 0 && S_ISDIR(st.st_mode)) {
		msg(x, TOED_DIAG_ERROR, 0, "cannot read: %s", strerror(EISDIR));
		goto out;
	}
	if (strlen(abs) >= sizeof c->path) {
		msg(x, TOED_DIAG_ERROR, 0, "path longer than %zu bytes", sizeof c->path - 1);
		goto out;
	}
	memcpy(c->path, abs, strlen(abs) + 1);
	memcpy(x->dir, abs, strlen(abs) + 1);
	char *slash = strrchr(x->dir, '/');
	if (slash == x->dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;

	int r = ini_parse_stream(reader, x, on_kv, x);
	if (ferror(x->f)) {
		msg(x, TOED_DIAG_ERROR, 0, "read error: %s", strerror(errno));
	} else if (r > 0 && !x->nerr) {
		/* inih saw an error this reader did not: should not happen, but never ignore it */
		msg(x, TOED_DIAG_ERROR, (unsigned)r, "syntax error");
	} else if (r < 0 && !x->nerr) {
		msg(x, TOED_DIAG_ERROR, 0, "inih failed (%d)", r);
	}

	/* port 0 stays the implicit mirror port of the defaults without a [port]/[port.0]
	 * section, except on the card when other ports are configured */
	int any_port = 0;
	for (int i = 0; i < TOED_MAX_PORTS; i++)
		any_port |= x->port_line[i] != 0;
	if (any_port && !x->port_line[0] && c->device.backend == TOED_BACKEND_XRT)
		memset(&c->port[0], 0, sizeof c->port[0]);
	resolve_defaults(x);
	check_device_source(x);
	check_ports(x);
	check_feeds(x);
	check_misc(x);
	compile_templates(x);

	if (!x->nerr) {
		memcpy(out, c, sizeof *c);
		rc = 0;
	}
out:
	if (x) {
		if (x->f)
			fclose(x->f);
		free(x->buf);
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

/* ---- reload -------------------------------------------------------------------------- */

int toed_key_is_live(enum toed_key key)
{
	return (unsigned)key < TOED_K_COUNT && (keys[key].flags & F_LIVE) != 0;
}

const char *toed_key_name(enum toed_key key)
{
	return (unsigned)key < TOED_K_COUNT ? keys[key].name : NULL;
}

const char *toed_key_section(enum toed_key key)
{
	return (unsigned)key < TOED_K_COUNT ? sec_name[keys[key].sec] : NULL;
}

static int add_change(struct toed_diff *d, uint32_t key, uint32_t kind, int32_t index, const char *section,
		      const char *name, const char *old_val, const char *new_val)
{
	if (!d)
		return (int)kind;
	if (kind == TOED_CHANGE_LIVE)
		d->live++;
	else
		d->restart++;
	if (d->n >= TOED_DIFF_MAX) {
		d->dropped++;
		return (int)kind;
	}
	struct toed_change *ch = &d->ch[d->n++];
	ch->key = key;
	ch->kind = kind;
	ch->index = index;
	snprintf(ch->section, sizeof ch->section, "%s", section);
	snprintf(ch->name, sizeof ch->name, "%s", name);
	snprintf(ch->old_val, sizeof ch->old_val, "%s", old_val);
	snprintf(ch->new_val, sizeof ch->new_val, "%s", new_val);
	return (int)kind;
}

static int key_differs(const struct key *k, const struct toed_config *a, const void *ba, const struct toed_config *b,
		       const void *bb, char *va, char *vb, size_t len)
{
	fmt_value(k, a, ba, va, len);
	fmt_value(k, b, bb, vb, len);
	if (k->kind == T_PORTLIST)
		return a->udp.nports != b->udp.nports || memcmp(a->udp.ports, b->udp.ports, sizeof a->udp.ports) != 0;
	return strcmp(va, vb) != 0;
}

static int diff_section(struct toed_diff *d, int sec, const struct toed_config *a, int ia, const struct toed_config *b,
			int ib, const char *label, int32_t index)
{
	char va[TOED_PATH_MAX], vb[TOED_PATH_MAX];
	int mask = 0;
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		if (k->sec != sec)
			continue;
		if (!key_differs(k, a, sec_cbase(a, sec, ia), b, sec_cbase(b, sec, ib), va, vb, sizeof va))
			continue;
		mask |= add_change(d, k->id, (k->flags & F_LIVE) ? TOED_CHANGE_LIVE : TOED_CHANGE_RESTART, index, label,
				   k->name, va, vb);
	}
	return mask;
}

int toed_config_diff(const struct toed_config *old, const struct toed_config *new, struct toed_diff *d)
{
	int mask = 0;
	char label[TOED_NAME_MAX + 8];
	if (d)
		d->n = d->live = d->restart = d->dropped = 0;
	for (int s = S_DEVICE; s < S_COUNT; s++)
		if (s != S_PORT && s != S_FEED)
			mask |= diff_section(d, s, old, 0, new, 0, sec_name[s], -1);
	if (old->fast.have_prog && new->fast.have_prog && strcmp(old->fast.templates, new->fast.templates) == 0 &&
	    memcmp(&old->fast.prog, &new->fast.prog, sizeof old->fast.prog) != 0)
		mask |= add_change(d, TOED_K_FAST_PROGRAM, TOED_CHANGE_RESTART, -1, "fast", "templates",
				   old->fast.templates, new->fast.templates);
	for (int i = 0; i < TOED_MAX_PORTS; i++) {
		snprintf(label, sizeof label, "port.%d", i);
		if (old->port[i].enabled != new->port[i].enabled)
			mask |= add_change(d, TOED_K_PORT_SECTION, TOED_CHANGE_RESTART, i, label, "",
					   old->port[i].enabled ? "present" : "", new->port[i].enabled ? "present" : "");
		else if (new->port[i].enabled)
			mask |= diff_section(d, S_PORT, old, i, new, i, label, i);
	}
	for (uint32_t j = 0; j < new->nfeeds; j++) {
		snprintf(label, sizeof label, "feed.%s", new->feed[j].name);
		uint32_t i;
		for (i = 0; i < old->nfeeds; i++)
			if (strcmp(old->feed[i].name, new->feed[j].name) == 0)
				break;
		if (i == old->nfeeds)
			mask |= add_change(d, TOED_K_FEED_SECTION, TOED_CHANGE_RESTART, (int32_t)j, label, "", "",
					   "present");
		else
			mask |= diff_section(d, S_FEED, old, (int)i, new, (int)j, label, (int32_t)j);
	}
	for (uint32_t i = 0; i < old->nfeeds; i++) {
		uint32_t j;
		for (j = 0; j < new->nfeeds; j++)
			if (strcmp(old->feed[i].name, new->feed[j].name) == 0)
				break;
		if (j == new->nfeeds) {
			snprintf(label, sizeof label, "feed.%s", old->feed[i].name);
			mask |= add_change(d, TOED_K_FEED_SECTION, TOED_CHANGE_RESTART, (int32_t)i, label, "", "present",
					   "");
		}
	}
	return mask;
}

void toed_config_apply_live(struct toed_config *running, const struct toed_config *next)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		if (!(k->flags & F_LIVE) || k->sec == S_PORT || k->sec == S_FEED)
			continue;
		memcpy(FIELD(running, k), FIELD(next, k), k->size);
		if (k->kind == T_PACE)
			running->source.pcap_speed = next->source.pcap_speed;
	}
}

void toed_change_format(const struct toed_change *c, char *buf, size_t len)
{
	const char *tail = c->kind == TOED_CHANGE_LIVE ? "applied" : "needs a restart";
	if (c->key == TOED_K_PORT_SECTION || c->key == TOED_K_FEED_SECTION)
		snprintf(buf, len, "[%s] %s: %s", c->section, c->old_val[0] ? "removed" : "added", tail);
	else if (c->key == TOED_K_FAST_PROGRAM)
		snprintf(buf, len, "[fast] templates: the file's content changed: %s", tail);
	else
		snprintf(buf, len, "[%s] %s changed (%s -> %s): %s", c->section, c->name,
			 c->old_val[0] ? c->old_val : "none", c->new_val[0] ? c->new_val : "none", tail);
}

void toed_diff_print(const struct toed_diff *d, FILE *f)
{
	char line[2 * TOED_VALUE_MAX + 128];
	for (uint32_t i = 0; i < d->n; i++) {
		toed_change_format(&d->ch[i], line, sizeof line);
		fprintf(f, "%s\n", line);
	}
	if (d->dropped)
		fprintf(f, "... and %u more changes\n", d->dropped);
}

/* ---- data-path helpers ----------------------------------------------------------------- */

uint32_t toed_config_mtoe(const struct toed_config *c, uint32_t port, struct mtoe_cfg *m,
			  uint16_t flow_feed[TOED_MAX_FEEDS])
{
	mtoe_cfg_default(m);
	m->max_conns = c->tcp.connections;
	m->window = c->tcp.window;
	m->gap_timeout_ns = (uint64_t)c->tcp.gap_timeout_ms * 1000000ull;
	m->idle_timeout_ns = (uint64_t)c->tcp.idle_timeout_s * 1000000000ull;
	m->nflows = 0;
	for (uint32_t i = 0; i < c->nfeeds && m->nflows < MTOE_MAX_FLOWS; i++) {
		const struct toed_feed *f = &c->feed[i];
		if (f->protocol != TOED_PROTO_TCP || f->port != port)
			continue;
		struct mtoe_flow *fl = &m->flows[m->nflows];
		fl->ex_addr = f->exchange.ip;
		fl->ex_port = (uint16_t)f->exchange.port;
		fl->peer_addr = f->vendor.ip;
		fl->peer_port = (uint16_t)f->vendor.port;
		if (flow_feed)
			flow_feed[m->nflows] = (uint16_t)i;
		m->nflows++;
	}
	return m->nflows;
}

void toed_config_net(const struct toed_config *c, uint32_t port, struct net_cfg *n)
{
	net_cfg_init(n);
	if (port >= TOED_MAX_PORTS || !c->port[port].enabled)
		return;
	const struct toed_port *p = &c->port[port];
	if (!p->verify_checksums)
		n->flags &= ~(NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM);
	if (p->role != TOED_ROLE_MIRROR)
		n->flags |= NET_CFG_FILTER_DST;
	if (p->ip)
		net_cfg_add(n, p->ip, p->netmask, p->mac, (uint16_t)p->vlan);
}

const char *toed_backend_name(uint32_t v)
{
	return enum_name(e_backend, v);
}

const char *toed_source_type_name(uint32_t v)
{
	return enum_name(e_srctype, v);
}

const char *toed_role_name(uint32_t v)
{
	return enum_name(e_role, v);
}

const char *toed_log_level_name(uint32_t v)
{
	return enum_name(e_level, v);
}
