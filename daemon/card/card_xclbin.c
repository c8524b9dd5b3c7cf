/* card_xclbin.c - the parts of an xclbin toed needs, read with bounds checks (see card_xclbin.h). */
#include "card/card_xclbin.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* A fixed-size char field as a NUL-terminated string (the file may omit the NUL). */
static void rdstr(char *out, size_t outlen, const uint8_t *p, size_t n)
{
	size_t i;
	for (i = 0; i < n && i + 1 < outlen && p[i]; i++)
		out[i] = (char)p[i];
	out[i] = 0;
}

struct sect {
	uint64_t off, size;
	int present;
};

/* Section payload [off, off+size) of kind `kind` (the first one). */
static int find_sect(const uint8_t *buf, uint64_t len, uint32_t nsect, uint32_t kind, struct sect *s, char *err,
		     size_t errlen)
{
	uint32_t i;
	s->present = 0;
	for (i = 0; i < nsect; i++) {
		const uint8_t *h = buf + TOE_AXLF_OFF_SECTIONS + (size_t)i * TOE_AXLF_SECT_SIZE;
		if (rd32(h + TOE_AXLF_SECT_KIND) != kind)
			continue;
		s->off = rd64(h + TOE_AXLF_SECT_OFFSET);
		s->size = rd64(h + TOE_AXLF_SECT_SIZEF);
		if (s->off > len || s->size > len - s->off) {
			seterr(err, errlen, "section %u (kind %u) lies outside the file (offset %llu, size %llu, file %llu bytes)",
			       i, kind, (unsigned long long)s->off, (unsigned long long)s->size, (unsigned long long)len);
			return -1;
		}
		s->present = 1;
		return 0;
	}
	return 0;
}

/* Count of an array section: header count at 0 (i32), n elements of esize from doff. */
static int sect_count(const uint8_t *buf, const struct sect *s, uint32_t doff, uint32_t esize, uint32_t max,
		      const char *what, uint32_t *n, char *err, size_t errlen)
{
	int32_t c;
	if (s->size < 4) {
		seterr(err, errlen, "%s section too short (%llu bytes)", what, (unsigned long long)s->size);
		return -1;
	}
	c = (int32_t)rd32(buf + s->off);
	if (c < 0 || (c > 0 && (uint64_t)doff + (uint64_t)c * esize > s->size)) {
		seterr(err, errlen, "%s section: %d entries do not fit its %llu bytes", what, c,
		       (unsigned long long)s->size);
		return -1;
	}
	if ((uint32_t)c > max) {
		seterr(err, errlen, "%s section: %d entries, more than the %u toed reads", what, c, max);
		return -1;
	}
	*n = (uint32_t)c;
	return 0;
}

static void parse_mem(const uint8_t *buf, const struct sect *s, struct toe_xclbin *x)
{
	uint32_t i;
	for (i = 0; i < x->nmem; i++) {
		const uint8_t *d = buf + s->off + TOE_MEM_TOPO_OFF_DATA + (size_t)i * TOE_MEM_DATA_SIZE;
		struct toe_xclbin_mem *m = &x->mem[i];
		m->type = d[0];
		m->used = d[1];
		m->size_kb = rd64(d + 8);
		m->base = rd64(d + 16);
		rdstr(m->tag, sizeof m->tag, d + 24, 16);
	}
}

static void parse_conn(const uint8_t *buf, const struct sect *s, struct toe_xclbin *x)
{
	uint32_t i;
	for (i = 0; i < x->nconn; i++) {
		const uint8_t *d = buf + s->off + TOE_CONN_OFF_DATA + (size_t)i * TOE_CONN_SIZE;
		x->conn[i].arg = (int32_t)rd32(d);
		x->conn[i].ip = (int32_t)rd32(d + 4);
		x->conn[i].mem = (int32_t)rd32(d + 8);
	}
}

static void parse_ips(const uint8_t *buf, const struct sect *s, struct toe_xclbin *x)
{
	uint32_t i;
	for (i = 0; i < x->nip; i++) {
		const uint8_t *d = buf + s->off + TOE_IP_LAYOUT_OFF_DATA + (size_t)i * TOE_IP_DATA_SIZE;
		struct toe_xclbin_ip *ip = &x->ip[i];
		ip->type = rd32(d);
		ip->props = rd32(d + 4);
		ip->base = rd64(d + 8);
		rdstr(ip->name, sizeof ip->name, d + 16, 64);
	}
}

static uint32_t num_attr(const char *s, int *ok)
{
	char *end;
	unsigned long v;
	*ok = 0;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > 0xffffffffu)
		return 0;
	*ok = 1;
	return (uint32_t)v;
}

static void copy_attr(xmlNode *n, const char *name, char *out, size_t len)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	snprintf(out, len, "%s", v ? (const char *)v : "");
	xmlFree(v);
}

/* Every <kernel name=K> ... <arg name=A id=N offset=O/> of the metadata. */
static void meta_walk(xmlNode *n, struct toe_xclbin *x, const char *kernel)
{
	for (; n; n = n->next) {
		const char *k = kernel;
		char kname[64];
		if (n->type != XML_ELEMENT_NODE) {
			continue;
		}
		if (!strcmp((const char *)n->name, "kernel")) {
			copy_attr(n, "name", kname, sizeof kname);
			k = kname;
			if (x->nkernel < TOE_XCLBIN_MAX_KERNELS) {
				memset(&x->kernel[x->nkernel], 0, sizeof x->kernel[0]);
				snprintf(x->kernel[x->nkernel].name, sizeof x->kernel[0].name, "%s", kname);
				x->nkernel++;
			}
		} else if (!strcmp((const char *)n->name, "port") && kernel && x->nkernel) {
			/* one AXI slave port per kernel: its range is the CU's register space */
			struct toe_xclbin_kernel *kk = &x->kernel[x->nkernel - 1];
			char mode[16], range[24];
			int ok;
			copy_attr(n, "mode", mode, sizeof mode);
			copy_attr(n, "range", range, sizeof range);
			if (!strcmp(mode, "slave") && !kk->has_range && !strcmp(kk->name, kernel)) {
				kk->range = num_attr(range, &ok);
				kk->has_range = (uint8_t)ok;
			}
			continue;
		} else if (!strcmp((const char *)n->name, "arg") && kernel && x->narg < TOE_XCLBIN_MAX_ARGS) {
			struct toe_xclbin_arg *a = &x->arg[x->narg];
			char id[24], off[24];
			int ok_id, ok_off;
			memset(a, 0, sizeof *a);
			snprintf(a->kernel, sizeof a->kernel, "%s", kernel);
			copy_attr(n, "name", a->name, sizeof a->name);
			copy_attr(n, "id", id, sizeof id);
			copy_attr(n, "offset", off, sizeof off);
			a->id = num_attr(id, &ok_id);
			a->offset = num_attr(off, &ok_off);
			a->has_offset = (uint8_t)ok_off;
			if (ok_id && a->name[0])
				x->narg++;
			continue;
		}
		meta_walk(n->children, x, k);
	}
}

static int parse_meta(const uint8_t *buf, const struct sect *s, struct toe_xclbin *x, char *err, size_t errlen)
{
	xmlDoc *doc;
	if (s->size > 64u << 20 || s->size == 0) {
		seterr(err, errlen, "EMBEDDED_METADATA section of %llu bytes", (unsigned long long)s->size);
		return -1;
	}
	doc = xmlReadMemory((const char *)buf + s->off, (int)s->size, "metadata.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		seterr(err, errlen, "EMBEDDED_METADATA is not well-formed XML");
		return -1;
	}
	meta_walk(xmlDocGetRootElement(doc), x, NULL);
	xmlFreeDoc(doc);
	return 0;
}

int toe_xclbin_parse(const uint8_t *buf, size_t len, struct toe_xclbin *x, char *err, size_t errlen)
{
	const uint8_t *h = buf + TOE_AXLF_OFF_HEADER;
	struct sect mem, gmem, conn, gconn, ip, meta;
	uint64_t flen;

	memset(x, 0, sizeof *x);
	if (len < TOE_AXLF_OFF_SECTIONS || memcmp(buf, TOE_AXLF_MAGIC, sizeof TOE_AXLF_MAGIC) != 0) {
		seterr(err, errlen, "not an xclbin (no \"xclbin2\" header)");
		return -1;
	}
	flen = rd64(h + TOE_AXLF_HDR_LENGTH);
	if (flen > len || flen < TOE_AXLF_OFF_SECTIONS) {
		seterr(err, errlen, "truncated xclbin: its header says %llu bytes, the file has %zu",
		       (unsigned long long)flen, len);
		return -1;
	}
	x->length = flen;
	x->ver_patch = rd16(h + TOE_AXLF_HDR_VERSION_PATCH);
	x->ver_major = h[TOE_AXLF_HDR_VERSION_PATCH + 2];
	x->ver_minor = h[TOE_AXLF_HDR_VERSION_PATCH + 3];
	x->mode = rd16(h + TOE_AXLF_HDR_MODE);
	rdstr(x->vbnv, sizeof x->vbnv, h + TOE_AXLF_HDR_VBNV, 64);
	memcpy(x->uuid, h + TOE_AXLF_HDR_UUID, 16);
	x->nsections = rd32(h + TOE_AXLF_HDR_NSECTIONS);
	if (x->nsections > TOE_AXLF_MAX_SECTIONS ||
	    (uint64_t)TOE_AXLF_OFF_SECTIONS + (uint64_t)x->nsections * TOE_AXLF_SECT_SIZE > flen) {
		seterr(err, errlen, "corrupt xclbin: %u section headers do not fit", x->nsections);
		return -1;
	}

	if (find_sect(buf, flen, x->nsections, TOE_SECT_MEM_TOPOLOGY, &mem, err, errlen) ||
	    find_sect(buf, flen, x->nsections, TOE_SECT_GROUP_TOPOLOGY, &gmem, err, errlen) ||
	    find_sect(buf, flen, x->nsections, TOE_SECT_CONNECTIVITY, &conn, err, errlen) ||
	    find_sect(buf, flen, x->nsections, TOE_SECT_GROUP_CONNECTIVITY, &gconn, err, errlen) ||
	    find_sect(buf, flen, x->nsections, TOE_SECT_IP_LAYOUT, &ip, err, errlen) ||
	    find_sect(buf, flen, x->nsections, TOE_SECT_EMBEDDED_METADATA, &meta, err, errlen))
		return -1;

	/* XRT's memory indices (xrtBOAlloc's group) refer to the group topology
	 * when the xclbin has one, and connectivity then comes from its twin */
	if (gmem.present && gconn.present) {
		mem = gmem;
		conn = gconn;
		x->mem_is_group = 1;
	}
	if (mem.present) {
		if (sect_count(buf, &mem, TOE_MEM_TOPO_OFF_DATA, TOE_MEM_DATA_SIZE, TOE_XCLBIN_MAX_MEMS, "MEM_TOPOLOGY",
			       &x->nmem, err, errlen))
			return -1;
		parse_mem(buf, &mem, x);
		x->has_mem = 1;
	}
	if (conn.present) {
		if (sect_count(buf, &conn, TOE_CONN_OFF_DATA, TOE_CONN_SIZE, TOE_XCLBIN_MAX_CONNS, "CONNECTIVITY",
			       &x->nconn, err, errlen))
			return -1;
		parse_conn(buf, &conn, x);
		x->has_conn = 1;
	}
	if (ip.present) {
		if (sect_count(buf, &ip, TOE_IP_LAYOUT_OFF_DATA, TOE_IP_DATA_SIZE, TOE_XCLBIN_MAX_IPS, "IP_LAYOUT",
			       &x->nip, err, errlen))
			return -1;
		parse_ips(buf, &ip, x);
		x->has_ip = 1;
	}
	if (meta.present) {
		if (parse_meta(buf, &meta, x, err, errlen))
			return -1;
		x->has_meta = 1;
	}
	return 0;
}

int toe_xclbin_read(const char *path, struct toe_xclbin *x, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;
	int r;
	char why[256];
	if (!f) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		seterr(err, errlen, "%s: cannot size the file", path);
		fclose(f);
		return -1;
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf) {
		seterr(err, errlen, "%s: out of memory (%ld bytes)", path, n);
		fclose(f);
		return -1;
	}
	if (n && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		seterr(err, errlen, "%s: read error", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	r = toe_xclbin_parse(buf, (size_t)n, x, why, sizeof why);
	free(buf);
	if (r)
		seterr(err, errlen, "%s: %s", path, why);
	return r;
}

int toe_xclbin_find_ip(const struct toe_xclbin *x, const char *xrt_name)
{
	char want[80];
	const char *o = strchr(xrt_name, '{'), *c = strchr(xrt_name, '}');
	uint32_t i;
	/* "kernel:{cu}" -> "kernel:cu" */
	if (o && c && c > o)
		snprintf(want, sizeof want, "%.*s%.*s", (int)(o - xrt_name), xrt_name, (int)(c - o - 1), o + 1);
	else
		snprintf(want, sizeof want, "%s", xrt_name);
	for (i = 0; i < x->nip; i++)
		if (x->ip[i].type == TOE_IP_KERNEL && !strcmp(x->ip[i].name, want))
			return (int)i;
	return -1;
}

const struct toe_xclbin_arg *toe_xclbin_find_arg(const struct toe_xclbin *x, const char *kernel, const char *arg)
{
	uint32_t i;
	for (i = 0; i < x->narg; i++)
		if (!strcmp(x->arg[i].kernel, kernel) && !strcmp(x->arg[i].name, arg))
			return &x->arg[i];
	return NULL;
}

uint32_t toe_xclbin_cu_range(const struct toe_xclbin *x, const char *kernel)
{
	uint32_t i;
	for (i = 0; i < x->nkernel; i++)
		if (!strcmp(x->kernel[i].name, kernel) && x->kernel[i].has_range)
			return x->kernel[i].range;
	return TOE_XRT_DEFAULT_CU_RANGE;
}

int toe_xclbin_arg_bank(const struct toe_xclbin *x, int ip, uint32_t arg_id)
{
	uint32_t i;
	for (i = 0; i < x->nconn; i++)
		if (x->conn[i].ip == ip && x->conn[i].arg >= 0 && (uint32_t)x->conn[i].arg == arg_id &&
		    x->conn[i].mem >= 0 && (uint32_t)x->conn[i].mem < x->nmem)
			return x->conn[i].mem;
	return -1;
}

void toe_uuid_str(const uint8_t u[16], char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

static int all_digits(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return n > 0;
}

void toe_platform_key(const char *vbnv, char *out, size_t len)
{
	const char *p = vbnv;
	size_t o = 0;
	if (!len)
		return;
	out[0] = 0;
	while (*p) {
		const char *e = strchr(p, '_');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		/* a release date (YYYYMM) ends the platform's name; "base" marks the shell */
		if (n == 6 && all_digits(p, n))
			break;
		if (!(n == 4 && !strncmp(p, "base", 4))) {
			if (o && o + 1 < len)
				out[o++] = '_';
			if (o + n >= len)
				n = len - 1 - o;
			memcpy(out + o, p, n);
			o += n;
			out[o] = 0;
		}
		if (!e)
			break;
		p = e + 1;
	}
}

void toe_platform_board(const char *vbnv, char *out, size_t len)
{
	const char *p = strchr(vbnv, '_'), *e;
	if (!len)
		return;
	out[0] = 0;
	if (!p || strncmp(vbnv, "xilinx_", 7) != 0)
		return;
	p++;
	e = strchr(p, '_');
	snprintf(out, len, "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
}
