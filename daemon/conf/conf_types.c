/* conf_types.c - the value types of toed.conf: one parse/format pair per type, in conf_types[].
 *
 * A parser reads the text after "key =" into the key's field and says why when it cannot; a
 * formatter writes the field back the way the file would say it, for messages and the reload
 * diff. Parsers are also used for the built-in defaults (x == NULL): then nothing on the machine
 * (CPUs, groups, files) is looked at and relative paths are kept as written.
 */
#include "conf/conf_impl.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

void conf_fmt_ipv4(uint32_t ip, char *buf, size_t len)
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

int conf_mask_len(uint32_t m)
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

int conf_valid_name(const char *s)
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
int conf_resolve_path(struct ctx *x, const char *v, int input, char *out, size_t len, char *why, size_t wl)
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

/* ---- the types ------------------------------------------------------------------------- */

#define PARSE(t)                                                                                           \
	static int parse_##t(struct ctx *x, const struct key *k, struct toed_config *c, void *base, const char *v, \
			     char *why, size_t wl)
#define FORMAT(t) static void fmt_##t(const struct key *k, const struct toed_config *c, const void *base, char *buf, size_t len)
#define UNUSED(a) (void)(a)
/* the numeric fields are uint32_t; the others may be unaligned char arrays */
#define CU32(base, k) (*(const uint32_t *)((const char *)(base) + (k)->off))

/* enum: one of the names of k->names, any case */
PARSE(enum)
{
	UNUSED(x), UNUSED(c);
	for (const struct ename *e = k->names; e->name; e++) {
		if (streq_ci(v, e->name)) {
			*(uint32_t *)FIELD(base, k) = e->val;
			return 0;
		}
	}
	char list[128];
	enum_list(k->names, list, sizeof list);
	snprintf(why, wl, "must be one of: %s", list);
	return -1;
}
FORMAT(enum)
{
	UNUSED(c);
	snprintf(buf, len, "%s", conf_enum_name(k->names, CU32(base, k)));
}

/* bool: yes/no, true/false, on/off, 1/0 */
PARSE(bool)
{
	UNUSED(x), UNUSED(c);
	uint32_t *f = FIELD(base, k);
	if (streq_ci(v, "yes") || streq_ci(v, "true") || streq_ci(v, "on") || strcmp(v, "1") == 0) {
		*f = 1;
		return 0;
	}
	if (streq_ci(v, "no") || streq_ci(v, "false") || streq_ci(v, "off") || strcmp(v, "0") == 0) {
		*f = 0;
		return 0;
	}
	snprintf(why, wl, "must be yes or no");
	return -1;
}
FORMAT(bool)
{
	UNUSED(c);
	snprintf(buf, len, "%s", CU32(base, k) ? "yes" : "no");
}

/* autobool: auto, or a bool word (TOED_AUTO / 1 / 0): the program decides unless told */
PARSE(autobool)
{
	if (streq_ci(v, "auto")) {
		*(uint32_t *)FIELD(base, k) = TOED_AUTO;
		return 0;
	}
	if (parse_bool(x, k, c, base, v, why, wl) == 0)
		return 0;
	snprintf(why, wl, "must be auto, yes or no");
	return -1;
}
FORMAT(autobool)
{
	UNUSED(c);
	uint32_t v = CU32(base, k);
	snprintf(buf, len, "%s", v == TOED_AUTO ? "auto" : v ? "yes" : "no");
}

/* uint: k->min..k->max, with F_SUFFIX K/M/G, with F_POW2 a power of two */
PARSE(uint)
{
	UNUSED(x), UNUSED(c);
	int64_t n;
	if (!*v && (k->flags & F_EMPTY)) { /* not set, as written back: another key's value holds */
		*(uint32_t *)FIELD(base, k) = 0;
		return 0;
	}
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
	*(uint32_t *)FIELD(base, k) = (uint32_t)n;
	return 0;
}
FORMAT(uint)
{
	UNUSED(c);
	if ((k->flags & F_EMPTY) && !CU32(base, k))
		snprintf(buf, len, "%s", ""); /* not set: another key's value holds */
	else
		snprintf(buf, len, "%u", CU32(base, k));
}

/* cpu: a CPU of this machine, or none (-1) */
PARSE(cpu)
{
	UNUSED(c);
	int64_t n;
	if (streq_ci(v, "none")) {
		*(int32_t *)FIELD(base, k) = -1;
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
	*(int32_t *)FIELD(base, k) = (int32_t)n;
	return 0;
}
FORMAT(cpu)
{
	UNUSED(c);
	int32_t v = *(const int32_t *)((const char *)base + k->off);
	if (v < 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%d", v);
}

/* the string types: stored as written (or normalised by the parser) */
FORMAT(str)
{
	UNUSED(c);
	snprintf(buf, len, "%s", (const char *)base + k->off);
}

/* bdf: a PCI address dddd:bb:dd.f (or bb:dd.f), stored as dddd:bb:dd.f */
PARSE(bdf)
{
	UNUSED(x), UNUSED(c);
	char *out = FIELD(base, k);
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

/* ifname: a network interface name (IFNAMSIZ) */
PARSE(ifname)
{
	UNUSED(x), UNUSED(c);
	size_t len = strlen(v);
	if (len >= k->size) {
		snprintf(why, wl, "longer than %zu characters (IFNAMSIZ)", k->size - 1);
		return -1;
	}
	if (strcmp(v, ".") == 0 || strcmp(v, "..") == 0 || strpbrk(v, "/: \t")) {
		snprintf(why, wl, "not a valid interface name");
		return -1;
	}
	memcpy(FIELD(base, k), v, len + 1);
	return 0;
}

/* name: feed and stream names */
PARSE(name)
{
	UNUSED(x), UNUSED(c);
	if (!*v && (k->flags & F_EMPTY)) {
		((char *)FIELD(base, k))[0] = 0;
		return 0;
	}
	if (!conf_valid_name(v)) {
		snprintf(why, wl, "not a name (1 to %d letters, digits, '_', '-' or '.')", TOED_NAME_MAX - 1);
		return -1;
	}
	snprintf(FIELD(base, k), k->size, "%s", v);
	return 0;
}

/* group: a group name that exists now, or a gid */
PARSE(group)
{
	UNUSED(c);
	char *f = FIELD(base, k);
	if (!*v) {
		f[0] = 0;
		return 0;
	}
	if (strlen(v) >= k->size) {
		snprintf(why, wl, "longer than %zu characters", k->size - 1);
		return -1;
	}
	const char *p = v;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p && x && !x->offline) { /* a name: it must exist now */
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

/* path_in / path_out: a file toed reads (also looked for in TOED_DATADIR) or writes */
PARSE(path_in)
{
	UNUSED(c);
	return conf_resolve_path(x, v, 1, FIELD(base, k), k->size, why, wl);
}
PARSE(path_out)
{
	UNUSED(c);
	return conf_resolve_path(x, v, 0, FIELD(base, k), k->size, why, wl);
}

/* sockpath: an absolute path that fits sockaddr_un */
PARSE(sockpath)
{
	UNUSED(x), UNUSED(c);
	if (v[0] != '/') {
		snprintf(why, wl, "not an absolute path");
		return -1;
	}
	if (strlen(v) >= k->size) {
		snprintf(why, wl, "longer than %zu bytes (the limit of a Unix socket path)", k->size - 1);
		return -1;
	}
	snprintf(FIELD(base, k), k->size, "%s", v);
	return 0;
}

/* ipv4: a dotted quad (F_HOST: a unicast host address), "" = none (0) */
PARSE(ipv4_key)
{
	UNUSED(x), UNUSED(c);
	uint32_t ip;
	if (!*v) {
		*(uint32_t *)FIELD(base, k) = 0;
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
	*(uint32_t *)FIELD(base, k) = ip;
	return 0;
}
/* ipv4 and netmask: a dotted quad, "" for 0 */
FORMAT(ipv4_key)
{
	UNUSED(c);
	uint32_t u = CU32(base, k);
	if (u)
		conf_fmt_ipv4(u, buf, len);
}

/* netmask: a.b.c.d with contiguous ones, or a prefix length (/24 or 24) */
PARSE(netmask)
{
	UNUSED(x), UNUSED(c);
	int64_t n;
	uint32_t m;
	if (!*v) {
		*(uint32_t *)FIELD(base, k) = 0;
		return 0;
	}
	const char *p = v[0] == '/' ? v + 1 : v;
	if (!strchr(p, '.')) {
		if (parse_int(p, 0, &n, why, wl) < 0 || n < 1 || n > 32) {
			snprintf(why, wl, "not a netmask (a.b.c.d, or a prefix length 1..32)");
			return -1;
		}
		m = prefix_mask((unsigned)n);
	} else if (v[0] == '/' || parse_ipv4(v, &m) < 0 || m == 0 || conf_mask_len(m) < 0) {
		snprintf(why, wl, "not a netmask (a.b.c.d with contiguous ones, or a prefix length 1..32)");
		return -1;
	}
	*(uint32_t *)FIELD(base, k) = m;
	return 0;
}

/* mac: xx:xx:xx:xx:xx:xx (or with '-'), unicast, not zero; sets toed_port.has_mac */
PARSE(mac)
{
	UNUSED(x), UNUSED(c), UNUSED(k);
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
FORMAT(mac)
{
	UNUSED(c), UNUSED(k);
	const struct toed_port *p = base;
	if (p->has_mac)
		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", p->mac[0], p->mac[1], p->mac[2], p->mac[3],
			 p->mac[4], p->mac[5]);
}

/* endpoint: address:port, address, *:port; 0 = any */
PARSE(endpoint)
{
	UNUSED(x), UNUSED(c);
	struct toed_endpoint *ep = FIELD(base, k);
	struct toed_endpoint e = { 0, 0 };
	char host[64];
	int64_t n;
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
FORMAT(endpoint)
{
	UNUSED(c);
	const struct toed_endpoint *e = (const void *)((const char *)base + k->off);
	char ip[16] = "*", port[12] = "*";
	if (!e->ip && !e->port)
		return;
	if (e->ip)
		conf_fmt_ipv4(e->ip, ip, sizeof ip);
	if (e->port)
		snprintf(port, sizeof port, "%u", e->port);
	snprintf(buf, len, "%s:%s", ip, port);
}

/* pace: recorded, fast or a speed factor; sets source.pcap_pace and source.pcap_speed */
PARSE(pace)
{
	UNUSED(x), UNUSED(k), UNUSED(base);
	if (streq_ci(v, "recorded")) {
		c->source.pcap_pace = TOED_PACE_RECORDED;
		c->source.pcap_speed = 1.0;
		return 0;
	}
	if (streq_ci(v, "fast")) {
		c->source.pcap_pace = TOED_PACE_FAST;
		c->source.pcap_speed = 0;
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
	c->source.pcap_pace = TOED_PACE_FACTOR;
	c->source.pcap_speed = s;
	return 0;
}
FORMAT(pace)
{
	UNUSED(k), UNUSED(base);
	if (c->source.pcap_pace == TOED_PACE_RECORDED)
		snprintf(buf, len, "recorded");
	else if (c->source.pcap_pace == TOED_PACE_FAST)
		snprintf(buf, len, "fast");
	else
		snprintf(buf, len, "%g", c->source.pcap_speed);
}

/* loop: a count, 0 or forever = endless */
PARSE(loop)
{
	UNUSED(x), UNUSED(c);
	int64_t n;
	if (streq_ci(v, "forever")) {
		*(uint32_t *)FIELD(base, k) = 0;
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
	*(uint32_t *)FIELD(base, k) = (uint32_t)n;
	return 0;
}
FORMAT(loop)
{
	UNUSED(c);
	uint32_t u = CU32(base, k);
	if (u)
		snprintf(buf, len, "%u", u);
	else
		snprintf(buf, len, "forever");
}

/* hugepages: auto, off or a number of 2 MB pages; sets shm.hugepages and shm.hugepage_count */
PARSE(hugepages)
{
	UNUSED(x), UNUSED(base);
	int64_t n;
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
}
FORMAT(hugepages)
{
	UNUSED(k), UNUSED(base);
	if (c->shm.hugepages == TOED_HUGE_AUTO)
		snprintf(buf, len, "auto");
	else if (c->shm.hugepages == TOED_HUGE_OFF)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%u", c->shm.hugepage_count);
}

/* portlist: ports and lo-hi ranges, separated by blanks or commas; sets udp.ports and udp.nports */
PARSE(portlist)
{
	UNUSED(k), UNUSED(base);
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
				conf_cur_warn(x, "port %lld listed twice", (long long)q);
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
FORMAT(portlist)
{
	UNUSED(k), UNUSED(base);
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
}

/* seqfields: [fast] sequence_fields (conf_seqfields.c) */
PARSE(seqfields)
{
	UNUSED(k), UNUSED(base);
	return conf_seqfields_parse(x, c, v, why, wl);
}
FORMAT(seqfields)
{
	UNUSED(k), UNUSED(base);
	conf_seqfields_format(c, buf, len);
}

/* mode: an octal file mode 0000..0777 */
PARSE(mode)
{
	UNUSED(x), UNUSED(c);
	const char *p = v;
	uint32_t m = 0;
	if (!*p)
		goto bad;
	for (; *p; p++) {
		if (*p < '0' || *p > '7')
			goto bad;
		m = m * 8 + (uint32_t)(*p - '0');
		if (m > 0777)
			goto bad;
	}
	*(uint32_t *)FIELD(base, k) = m;
	return 0;
bad:
	snprintf(why, wl, "not an octal mode 0000..0777");
	return -1;
}
FORMAT(mode)
{
	UNUSED(c);
	snprintf(buf, len, "%04o", CU32(base, k));
}

const struct conf_type conf_types[T_COUNT] = {
	[T_ENUM] = { "enum", parse_enum, fmt_enum },
	[T_BOOL] = { "bool", parse_bool, fmt_bool },
	[T_UINT] = { "uint", parse_uint, fmt_uint },
	[T_CPU] = { "cpu", parse_cpu, fmt_cpu },
	[T_BDF] = { "pci address", parse_bdf, fmt_str },
	[T_IFNAME] = { "interface", parse_ifname, fmt_str },
	[T_NAME] = { "name", parse_name, fmt_str },
	[T_GROUP] = { "group", parse_group, fmt_str },
	[T_PATH_IN] = { "input path", parse_path_in, fmt_str },
	[T_PATH_OUT] = { "output path", parse_path_out, fmt_str },
	[T_SOCKPATH] = { "socket path", parse_sockpath, fmt_str },
	[T_IPV4] = { "ipv4", parse_ipv4_key, fmt_ipv4_key },
	[T_NETMASK] = { "netmask", parse_netmask, fmt_ipv4_key },
	[T_MAC] = { "mac", parse_mac, fmt_mac },
	[T_ENDPOINT] = { "endpoint", parse_endpoint, fmt_endpoint },
	[T_PACE] = { "pace", parse_pace, fmt_pace },
	[T_LOOP] = { "loop", parse_loop, fmt_loop },
	[T_HUGEPAGES] = { "hugepages", parse_hugepages, fmt_hugepages },
	[T_PORTLIST] = { "port list", parse_portlist, fmt_portlist },
	[T_MODE] = { "mode", parse_mode, fmt_mode },
	[T_AUTOBOOL] = { "auto/yes/no", parse_autobool, fmt_autobool },
	[T_SEQFIELDS] = { "sequence fields", parse_seqfields, fmt_seqfields },
};

int conf_parse_value(struct ctx *x, const struct key *k, struct toed_config *c, void *base, const char *v, char *why,
		     size_t wl)
{
	if (k->kind >= T_COUNT || !conf_types[k->kind].parse) {
		snprintf(why, wl, "internal error: unknown kind");
		return -1;
	}
	return conf_types[k->kind].parse(x, k, c, base, v, why, wl);
}

void conf_fmt_value(const struct key *k, const struct toed_config *c, const void *base, char *buf, size_t len)
{
	buf[0] = 0;
	if (k->kind < T_COUNT && conf_types[k->kind].format)
		conf_types[k->kind].format(k, c, base, buf, len);
}
