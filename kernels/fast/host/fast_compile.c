/* fast_compile.c - compile a FAST XML template file into a template program (host only).
 *
 * libxml2 builds the document tree; this file walks it once per template and
 * appends instructions to the flat program of fast_prog.h, which the decoder
 * (and the card's template memory) executes. The layout rules the decoder
 * relies on are documented in doc/template-program.md: one instruction per
 * field in document order, sequences and groups bracketed by SEQ/GROUP ... END
 * with aux links, decimals with individual operators split into DEC_EXP +
 * DEC_MANT, static templateRefs inlined, dictionary slots shared by
 * (scope, key). Every error names the file and the line of the element.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "fast/host/fast_compile.h"
#include "toe/tick.h"

#define NS_FAST11 "http://www.fixprotocol.org/ns/fast/td/1.1"
#define NS_FAST10 "http://www.fixprotocol.org/ns/template-definition"
/* FAST 1.2 keeps 1.1's elements and encoding and adds types of its own: a
 * 1.2 file that keeps to the 1.1 elements compiles; the added types are
 * refused by name (fast12_only). */
#define NS_FAST12 "http://www.fixprotocol.org/ns/fast/td/1.2"

#define DICT_NONE 0xffff
#define KEY_MAX (FAST_NAME_MAX + 16) /* a key plus "/exponent" etc. */
#define VAL_MAX 512                  /* longest value= attribute accepted */
#define FILE_MAX (64u << 20)         /* largest template file read */
#define PMAP_BITS (FAST_MAX_PMAP_BYTES * 7)

/* Value kinds: how an operator's value= is parsed and which operators apply. */
enum vkind { VK_I32, VK_U32, VK_I64, VK_U64, VK_EXP, VK_MANT, VK_ASCII, VK_UNICODE, VK_BYTES, VK_DECIMAL };

/* Dictionary slot classes: fields sharing a slot must have the same class. */
enum { CLS_INT, CLS_ASCII, CLS_BYTES, CLS_DECIMAL };
/* Dictionary scopes. */
enum { SC_GLOBAL, SC_TEMPLATE, SC_TYPE, SC_USER };

struct slot {
	uint8_t scope;
	uint8_t cls;
	char sname[FAST_NAME_MAX]; /* template, type or dictionary name */
	char key[KEY_MAX];
};

/* Lexically inherited context of the element being compiled. */
struct lex {
	char dict[FAST_NAME_MAX]; /* dictionary attribute in force */
	char tpl[FAST_NAME_MAX];  /* template the element is written in */
	char type[FAST_NAME_MAX]; /* application type (typeRef, else template name) */
	int depth;
};

struct opinfo {
	int op;
	xmlNodePtr node; /* operator element, NULL for none */
	int has_val;
	char val[VAL_MAX];
	int has_key;
	char key[FAST_NAME_MAX];
	int has_dict;
	char dict[FAST_NAME_MAX];
};

struct cc {
	const char *file;
	char *err;
	size_t errlen;
	int failed;
	struct fast_prog *p;
	struct fast_names *nm;
	long line[FAST_MAX_INSTR];
	xmlNodePtr *defs; /* every <template> element, document order */
	int ndefs;
	uint8_t *expanding; /* per def: being compiled or inlined (cycle check) */
	int tdef[FAST_MAX_TEMPLATES]; /* def index of each prog->tpl[] */
	struct slot slot[FAST_MAX_DICT];
};

__attribute__((format(printf, 3, 4))) static int fail_at(struct cc *c, long line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (c->failed)
		return -1;
	c->failed = 1;
	if (!c->err || !c->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%ld: %s", c->file, line, msg);
	return -1;
}

#define fail(c, n, ...) fail_at((c), (n) ? xmlGetLineNo(n) : 0L, __VA_ARGS__)

/* A note about a file that compiles (fast_names.note): the first one's text, and a count. */
__attribute__((format(printf, 3, 4))) static void note(struct cc *c, long line, const char *fmt, ...)
{
	va_list ap;
	int l;

	if (c->nm->nnotes++)
		return;
	l = snprintf(c->nm->note, sizeof c->nm->note, "%s:%ld: ", c->file, line);
	if (l < 0 || (size_t)l >= sizeof c->nm->note)
		return;
	va_start(ap, fmt);
	vsnprintf(c->nm->note + l, sizeof c->nm->note - (size_t)l, fmt, ap);
	va_end(ap);
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t l = strlen(src);

	if (l >= cap)
		l = cap - 1;
	memcpy(dst, src, l);
	dst[l] = 0;
}

/* An element of the FAST namespaces (1.1, the older one, 1.2) or of no
 * namespace. Elements of other namespaces inside a template (annotations)
 * are skipped, as FAST 1.1 allows. */
static int is_fast(xmlNodePtr n)
{
	const char *h;

	if (!n || n->type != XML_ELEMENT_NODE)
		return 0;
	if (!n->ns || !n->ns->href || !n->ns->href[0])
		return 1;
	h = (const char *)n->ns->href;
	return !strcmp(h, NS_FAST11) || !strcmp(h, NS_FAST10) || !strcmp(h, NS_FAST12);
}

/* Elements FAST 1.2 added (types, enumerations, definitions): not decoded
 * here; named in the error so that the user knows why. */
static int fast12_only(const char *el)
{
	static const char *const names[] = {"define", "boolean", "enum", "set", "bitGroup", "timestamp",
					    "time", "date", NULL};
	const char *const *a;

	for (a = names; *a; a++)
		if (!strcmp(el, *a))
			return 1;
	return 0;
}

/* The error for an element that has no place where it stands. */
static int unexpected(struct cc *c, xmlNodePtr k, const char *where)
{
	const char *el = (const char *)k->name;

	if (fast12_only(el))
		return fail(c, k, "<%s> in <%s>: a FAST 1.2 element, not supported (FAST 1.1 types, operators, "
				  "sequences, groups and templateRef only)", el, where);
	return fail(c, k, "unexpected element <%s> in <%s>", el, where);
}

static int is_el(xmlNodePtr n, const char *name)
{
	return is_fast(n) && !strcmp((const char *)n->name, name);
}

/* Attribute `name` (no namespace) of n into buf: 1 present, 0 absent, -1 too long (error set). */
static int attr(struct cc *c, xmlNodePtr n, const char *name, char *buf, size_t cap)
{
	xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
	size_t l;

	buf[0] = 0;
	if (!v)
		return 0;
	l = strlen((const char *)v);
	if (l >= cap) {
		xmlFree(v);
		return fail(c, n, "attribute %s of <%s> is too long (max %zu bytes)", name, (const char *)n->name,
			    cap - 1);
	}
	memcpy(buf, v, l + 1);
	xmlFree(v);
	return 1;
}

/* Required name= attribute. */
static int get_name(struct cc *c, xmlNodePtr n, char *buf)
{
	int r = attr(c, n, "name", buf, FAST_NAME_MAX);

	if (r < 0)
		return -1;
	if (r == 0 || !buf[0])
		return fail(c, n, "<%s> needs a name attribute", (const char *)n->name);
	return 0;
}

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* Decimal integer with optional sign and surrounding blanks: *neg, *mag.
 * 0 ok, -1 syntax error, -2 magnitude above UINT64_MAX. */
static int parse_int(const char *s, int *neg, uint64_t *mag)
{
	uint64_t m = 0;
	int nd = 0;

	s = skip_blank(s);
	*neg = 0;
	if (*s == '-' || *s == '+')
		*neg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++, nd++) {
		unsigned d = (unsigned)(*s - '0');
		if (m > (UINT64_MAX - d) / 10)
			return -2;
		m = m * 10 + d;
	}
	if (!nd || *skip_blank(s))
		return -1;
	*mag = m;
	return 0;
}

/* Integer value of the given kind into *out (uInt64 as its bit pattern). 0 ok, -1 bad. */
static int int_value(const char *s, enum vkind vk, int64_t *out)
{
	int neg;
	uint64_t mag;
	uint64_t maxpos, maxneg;

	if (parse_int(s, &neg, &mag))
		return -1;
	switch (vk) {
	case VK_I32: maxpos = INT32_MAX; maxneg = (uint64_t)INT32_MAX + 1; break;
	case VK_U32: maxpos = UINT32_MAX; maxneg = 0; break;
	case VK_I64: case VK_MANT: maxpos = INT64_MAX; maxneg = (uint64_t)INT64_MAX + 1; break;
	case VK_U64: maxpos = UINT64_MAX; maxneg = 0; break;
	case VK_EXP: maxpos = 63; maxneg = 63; break;
	default: return -1;
	}
	if (neg ? mag > maxneg : mag > maxpos)
		return -1;
	*out = neg ? (int64_t)(~mag + 1) : (int64_t)mag;
	return 0;
}

/* Decimal value like "1.25", "-0.5", "100", "1e3" normalised so the mantissa
 * has no trailing zero digits (0 is 0e0). 0 ok, -1 syntax, -2 out of range. */
static int dec_value(const char *s, int64_t *mant, int32_t *exp)
{
	char dig[VAL_MAX];
	int nd = 0, frac = 0, seen_dot = 0, neg = 0, i, lo;
	long e = 0;
	uint64_t m = 0;

	s = skip_blank(s);
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			if (nd >= VAL_MAX)
				return -1;
			dig[nd++] = *s;
			frac += seen_dot;
		} else if (*s == '.' && !seen_dot) {
			seen_dot = 1;
		} else {
			break;
		}
	}
	if (!nd)
		return -1;
	if (*s == 'e' || *s == 'E') {
		int eneg = 0, ed = 0;
		s++;
		if (*s == '-' || *s == '+')
			eneg = *s++ == '-';
		for (; *s >= '0' && *s <= '9'; s++, ed++) {
			e = e * 10 + (*s - '0');
			if (e > 100000)
				return -2;
		}
		if (!ed)
			return -1;
		if (eneg)
			e = -e;
	}
	if (*skip_blank(s))
		return -1;
	e -= frac;
	for (lo = 0; lo < nd && dig[lo] == '0'; lo++)
		;
	while (nd > lo && dig[nd - 1] == '0') {
		nd--;
		e++;
	}
	if (nd == lo) {
		*mant = 0;
		*exp = 0;
		return 0;
	}
	for (i = lo; i < nd; i++) {
		unsigned d = (unsigned)(dig[i] - '0');
		if (m > ((uint64_t)INT64_MAX + 1 - d) / 10)
			return -2;
		m = m * 10 + d;
	}
	if (!neg && m > (uint64_t)INT64_MAX)
		return -2;
	if (e < -63 || e > 63)
		return -2;
	*mant = neg ? (int64_t)(~m + 1) : (int64_t)m;
	*exp = (int32_t)e;
	return 0;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Hex digits (blanks ignored) into out: byte count, or -1 when malformed. */
static int hex_value(const char *s, uint8_t *out, int cap)
{
	int n = 0, half = -1;

	for (; *s; s++) {
		int v;
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			continue;
		v = hexval(*s);
		if (v < 0)
			return -1;
		if (half < 0) {
			half = v;
			continue;
		}
		if (n >= cap)
			return -1;
		out[n++] = (uint8_t)(half << 4 | v);
		half = -1;
	}
	return half < 0 ? n : -1;
}

static const char *op_name(int op)
{
	static const char *const names[] = {"none", "constant", "copy", "default", "increment", "delta", "tail"};
	return op >= 0 && op <= FAST_OP_TAIL ? names[op] : "?";
}

static int op_of(xmlNodePtr n)
{
	int op;

	if (!is_fast(n))
		return -1;
	for (op = FAST_OP_CONST; op <= FAST_OP_TAIL; op++)
		if (!strcmp((const char *)n->name, op_name(op)))
			return op;
	return -1;
}

static int is_int_vk(enum vkind vk)
{
	return vk == VK_I32 || vk == VK_U32 || vk == VK_I64 || vk == VK_U64 || vk == VK_EXP || vk == VK_MANT;
}

static int cls_of(enum vkind vk)
{
	if (is_int_vk(vk))
		return CLS_INT;
	if (vk == VK_ASCII)
		return CLS_ASCII;
	if (vk == VK_DECIMAL)
		return CLS_DECIMAL;
	return CLS_BYTES;
}

static const char *vk_name(enum vkind vk)
{
	static const char *const names[] = {"int32", "uInt32", "int64", "uInt64", "exponent", "mantissa",
					    "ascii string", "unicode string", "byteVector", "decimal"};
	return names[vk];
}

/* Find the operator element among n's children. Other FAST elements must be
 * in `allowed` (NULL-terminated; the caller handles them). */
static int find_op(struct cc *c, xmlNodePtr n, struct opinfo *o, const char *const *allowed)
{
	xmlNodePtr k;
	int r;

	memset(o, 0, sizeof *o);
	o->op = FAST_OP_NONE;
	if (!n)
		return 0;
	for (k = n->children; k; k = k->next) {
		int op, ok = 0;
		if (!is_fast(k))
			continue;
		op = op_of(k);
		if (op < 0) {
			const char *const *a;
			for (a = allowed; a && *a; a++)
				ok |= !strcmp((const char *)k->name, *a);
			if (!ok)
				return unexpected(c, k, (const char *)n->name);
			continue;
		}
		if (o->node)
			return fail(c, k, "<%s> has more than one operator", (const char *)n->name);
		o->op = op;
		o->node = k;
		if ((r = attr(c, k, "value", o->val, sizeof o->val)) < 0)
			return -1;
		o->has_val = r;
		if ((r = attr(c, k, "key", o->key, sizeof o->key)) < 0)
			return -1;
		o->has_key = r && o->key[0];
		if ((r = attr(c, k, "dictionary", o->dict, sizeof o->dict)) < 0)
			return -1;
		o->has_dict = r && o->dict[0];
	}
	return 0;
}

static int add_const(struct cc *c, xmlNodePtr n, int64_t i, int32_t exp, const uint8_t *s, int slen)
{
	struct fast_prog *p = c->p;
	struct fast_const *k;
	int j;

	if (p->nconst >= FAST_MAX_CONST)
		return fail(c, n, "too many initial values (max %d)", FAST_MAX_CONST);
	if (slen > FAST_MAX_POOL - p->npool)
		return fail(c, n, "initial string values exceed the pool (max %d bytes)", FAST_MAX_POOL);
	k = &p->consts[p->nconst];
	memset(k, 0, sizeof *k);
	k->i = i;
	k->exp = exp;
	k->off = p->npool;
	k->len = (uint16_t)slen;
	for (j = 0; j < slen; j++)
		p->pool[p->npool++] = s[j];
	return p->nconst++;
}

/* Parse o->val for a field of kind vk into a constant; returns its index or -1. */
static int make_const(struct cc *c, xmlNodePtr n, const struct opinfo *o, enum vkind vk, const char *fname)
{
	int64_t i = 0;
	int32_t e = 0;
	uint8_t buf[VAL_MAX];
	int len, r, j;

	switch (vk) {
	case VK_I32: case VK_U32: case VK_I64: case VK_U64: case VK_MANT:
		if (int_value(o->val, vk, &i))
			return fail(c, n, "value \"%s\" of %s is not a valid %s", o->val, fname, vk_name(vk));
		return add_const(c, n, i, 0, NULL, 0);
	case VK_EXP:
		if (int_value(o->val, vk, &i))
			return fail(c, n, "exponent value \"%s\" of %s is not an integer in -63..63", o->val, fname);
		return add_const(c, n, 0, (int32_t)i, NULL, 0);
	case VK_DECIMAL:
		r = dec_value(o->val, &i, &e);
		if (r == -1)
			return fail(c, n, "value \"%s\" of %s is not a decimal number", o->val, fname);
		if (r)
			return fail(c, n, "value \"%s\" of %s is out of range (int64 mantissa, exponent -63..63)",
				    o->val, fname);
		return add_const(c, n, i, e, NULL, 0);
	case VK_ASCII:
		len = (int)strlen(o->val);
		for (j = 0; j < len; j++)
			if ((uint8_t)o->val[j] >= 0x80)
				return fail(c, n, "value of %s is not ASCII", fname);
		goto str;
	case VK_UNICODE:
		len = (int)strlen(o->val);
	str:
		if (len > FAST_MAX_STR)
			return fail(c, n, "value of %s is longer than %d bytes", fname, FAST_MAX_STR);
		return add_const(c, n, 0, 0, (const uint8_t *)o->val, len);
	case VK_BYTES:
		len = hex_value(o->val, buf, FAST_MAX_STR);
		if (len < 0)
			return fail(c, n, "value of %s is not hex of at most %d bytes", fname, FAST_MAX_STR);
		return add_const(c, n, 0, 0, buf, len);
	}
	return -1;
}

static int get_slot(struct cc *c, xmlNodePtr n, const struct lex *lx, const char *dict, const char *key, int cls,
		    const char *fname)
{
	struct fast_prog *p = c->p;
	int scope, i;
	const char *sname;
	struct slot *s;

	if (!strcmp(dict, "global")) {
		scope = SC_GLOBAL;
		sname = "";
	} else if (!strcmp(dict, "template")) {
		scope = SC_TEMPLATE;
		sname = lx->tpl;
	} else if (!strcmp(dict, "type")) {
		scope = SC_TYPE;
		sname = lx->type;
	} else {
		scope = SC_USER;
		sname = dict;
	}
	for (i = 1; i < p->ndict; i++) {
		s = &c->slot[i];
		if (s->scope != scope || strcmp(s->sname, sname) || strcmp(s->key, key))
			continue;
		if (s->cls != cls)
			return fail(c, n, "%s shares dictionary entry \"%s\" (dictionary %s) with a field of an "
				    "incompatible type", fname, key, dict);
		return i;
	}
	if (p->ndict >= FAST_MAX_DICT)
		return fail(c, n, "too many dictionary entries (max %d)", FAST_MAX_DICT);
	s = &c->slot[p->ndict];
	s->scope = (uint8_t)scope;
	s->cls = (uint8_t)cls;
	copy_str(s->sname, sizeof s->sname, sname);
	copy_str(s->key, sizeof s->key, key);
	return p->ndict++;
}

static int is_int_kind(uint32_t kind)
{
	return kind == FAST_K_I32 || kind == FAST_K_U32 || kind == FAST_K_I64 || kind == FAST_K_U64 ||
	       kind == FAST_K_DEC_EXP || kind == FAST_K_DEC_MANT || kind == FAST_K_SEQ;
}

/* Integer fields may share a dictionary entry whatever their widths (the
 * value is what is shared; one that does not fit the reader is FAST_E_RANGE).
 * An entry's int64 holds every type's value exactly but a uInt64's from 2^63
 * up, kept as its bit pattern: where a uInt64 shares an entry with a field of
 * another integer type, the users are marked FAST_F_MIXED and the decoder
 * keeps which type wrote it. Elsewhere the reader's own type says. */
static void mark_mixed(struct fast_prog *p)
{
	uint8_t seen[FAST_MAX_DICT]; /* bit 0: a uInt64 uses the slot, bit 1: another integer */
	uint32_t i;
	memset(seen, 0, sizeof seen);
	for (i = 0; i < p->ninstr; i++) {
		const struct fast_instr *in = &p->instr[i];
		if (in->dict == DICT_NONE || in->dict >= FAST_MAX_DICT || !is_int_kind(in->kind))
			continue;
		seen[in->dict] |= in->kind == FAST_K_U64 ? 1u : 2u;
	}
	for (i = 0; i < p->ninstr; i++) {
		struct fast_instr *in = &p->instr[i];
		if (in->dict != DICT_NONE && in->dict < FAST_MAX_DICT && is_int_kind(in->kind) && seen[in->dict] == 3u)
			in->flags |= FAST_F_MIXED;
	}
}

static int needs_bit(int op, int optional)
{
	switch (op) {
	case FAST_OP_CONST: return optional;
	case FAST_OP_COPY: case FAST_OP_INCR: case FAST_OP_DEFAULT: case FAST_OP_TAIL: return 1;
	default: return 0;
	}
}

/* Apply the operator o to instruction i: legality, initial value, dictionary slot. */
static int setup_op(struct cc *c, xmlNodePtr field, int i, const struct opinfo *o, const struct lex *lx,
		    const char *keydef, int optional, enum vkind vk, const char *fname, int *bits)
{
	struct fast_instr *in = &c->p->instr[i];
	xmlNodePtr at = o->node ? o->node : field;
	int k;

	in->op = (uint8_t)o->op;
	if (o->op == FAST_OP_CONST && !o->has_val)
		return fail(c, at, "constant operator of %s needs a value", fname);
	if (o->op == FAST_OP_DEFAULT && !optional && !o->has_val)
		return fail(c, at, "default operator of mandatory %s needs a value", fname);
	if (o->op == FAST_OP_INCR && !is_int_vk(vk))
		return fail(c, at, "increment operator on %s, a %s: integers only", fname, vk_name(vk));
	if (o->op == FAST_OP_TAIL && vk != VK_ASCII && vk != VK_UNICODE && vk != VK_BYTES)
		return fail(c, at, "tail operator on %s, a %s: strings and byte vectors only", fname, vk_name(vk));
	if (o->has_val) {
		if ((k = make_const(c, at, o, vk, fname)) < 0)
			return -1;
		in = &c->p->instr[i];
		in->flags |= FAST_F_HAS_INIT;
		in->init = (uint16_t)k;
	}
	if (o->op != FAST_OP_NONE && o->op != FAST_OP_CONST) {
		k = get_slot(c, at, lx, o->has_dict ? o->dict : lx->dict, o->has_key ? o->key : keydef, cls_of(vk),
			     fname);
		if (k < 0)
			return -1;
		c->p->instr[i].dict = (uint16_t)k;
	}
	*bits += needs_bit(o->op, optional);
	return 0;
}

static int emit(struct cc *c, xmlNodePtr n, const char *name, int kind, int depth)
{
	struct fast_instr *in;
	int i;

	if (c->p->ninstr >= FAST_MAX_INSTR)
		return fail(c, n, "too many instructions (max %d)", FAST_MAX_INSTR);
	i = c->p->ninstr++;
	in = &c->p->instr[i];
	memset(in, 0, sizeof *in);
	in->kind = (uint8_t)kind;
	in->dict = DICT_NONE;
	in->init = FAST_NO_INIT;
	in->depth = (uint8_t)depth;
	copy_str(c->nm->field[i], FAST_NAME_MAX, name);
	c->line[i] = xmlGetLineNo(n);
	return i;
}

/* presence= attribute: 1 optional, 0 mandatory, -1 error. */
static int get_presence(struct cc *c, xmlNodePtr n)
{
	char v[32];
	int r = attr(c, n, "presence", v, sizeof v);

	if (r <= 0)
		return r;
	if (!strcmp(v, "optional"))
		return 1;
	if (!strcmp(v, "mandatory"))
		return 0;
	return fail(c, n, "presence must be mandatory or optional, not \"%s\"", v);
}

/* id= attribute (FIX field id) into *fid, 0 when absent. */
static int get_id(struct cc *c, xmlNodePtr n, uint32_t *fid)
{
	char v[32];
	int64_t x;
	int r = attr(c, n, "id", v, sizeof v);

	*fid = 0;
	if (r <= 0)
		return r;
	if (v[0] == '-' || int_value(v, VK_U32, &x))
		return fail(c, n, "id \"%s\" of <%s> is not a uInt32", v, (const char *)n->name);
	*fid = (uint32_t)x;
	return 1;
}

/* dictionary= attribute of n, if any, into lx->dict. */
static int inherit_dict(struct cc *c, xmlNodePtr n, struct lex *lx)
{
	char v[FAST_NAME_MAX];
	int r = attr(c, n, "dictionary", v, sizeof v);

	if (r > 0 && v[0])
		copy_str(lx->dict, sizeof lx->dict, v);
	return r < 0 ? -1 : 0;
}

/* typeRef child of n, if any, into lx->type. */
static int inherit_type(struct cc *c, xmlNodePtr n, struct lex *lx)
{
	xmlNodePtr k;
	char v[FAST_NAME_MAX];

	for (k = n->children; k; k = k->next)
		if (is_el(k, "typeRef")) {
			if (get_name(c, k, v))
				return -1;
			copy_str(lx->type, sizeof lx->type, v);
		}
	return 0;
}

static int compile_body(struct cc *c, xmlNodePtr parent, const struct lex *lx, int *bits);

static int compile_decimal(struct cc *c, xmlNodePtr n, const struct lex *lx, const char *name, int optional,
			   uint32_t fid, int *bits)
{
	static const char *const parts[] = {"exponent", "mantissa", NULL};
	static const char *const none[] = {NULL};
	xmlNodePtr k, en = NULL, mn = NULL;
	struct opinfo o;
	char key[KEY_MAX];
	int i;

	if (find_op(c, n, &o, parts))
		return -1;
	for (k = n->children; k; k = k->next) {
		if (is_el(k, "exponent")) {
			if (en)
				return fail(c, k, "decimal %s has two <exponent> elements", name);
			en = k;
		} else if (is_el(k, "mantissa")) {
			if (mn)
				return fail(c, k, "decimal %s has two <mantissa> elements", name);
			mn = k;
		}
	}
	if (!en && !mn) {
		if ((i = emit(c, n, name, FAST_K_DECIMAL, lx->depth)) < 0)
			return -1;
		c->p->instr[i].flags = optional ? FAST_F_OPTIONAL : 0;
		c->p->instr[i].fid = fid;
		return setup_op(c, n, i, &o, lx, name, optional, VK_DECIMAL, name, bits);
	}
	if (o.node)
		return fail(c, o.node, "decimal %s has both a field operator and <exponent>/<mantissa>", name);
	/* exponent: nullable when the decimal is optional */
	if (find_op(c, en, &o, none))
		return -1;
	if ((i = emit(c, n, name, FAST_K_DEC_EXP, lx->depth)) < 0)
		return -1;
	c->p->instr[i].flags = optional ? FAST_F_OPTIONAL : 0;
	c->p->instr[i].fid = fid;
	snprintf(key, sizeof key, "%s/exponent", name);
	if (setup_op(c, en ? en : n, i, &o, lx, key, optional, VK_EXP, name, bits))
		return -1;
	/* mantissa: never nullable */
	if (find_op(c, mn, &o, none))
		return -1;
	if ((i = emit(c, n, name, FAST_K_DEC_MANT, lx->depth)) < 0)
		return -1;
	c->p->instr[i].fid = fid;
	snprintf(key, sizeof key, "%s/mantissa", name);
	return setup_op(c, mn ? mn : n, i, &o, lx, key, 0, VK_MANT, name, bits);
}

static int compile_field(struct cc *c, xmlNodePtr n, const struct lex *lx, int *bits)
{
	static const char *const lenok[] = {"length", NULL};
	const char *el = (const char *)n->name;
	char name[FAST_NAME_MAX], v[32];
	struct opinfo o;
	enum vkind vk;
	uint32_t fid;
	int optional, kind, flags = 0, scale = -1, r, i;

	if (get_name(c, n, name) || (optional = get_presence(c, n)) < 0 || get_id(c, n, &fid) < 0)
		return -1;
	if ((r = attr(c, n, "decimalPlaces", v, sizeof v)) < 0)
		return -1;
	if (r) {
		int64_t x;
		if (int_value(v, VK_I32, &x) || x < 0 || x > 18)
			return fail(c, n, "decimalPlaces \"%s\" of %s must be 0..18", v, name);
		scale = (int)x;
	}
	if (!strcmp(el, "int32")) {
		kind = FAST_K_I32; vk = VK_I32;
	} else if (!strcmp(el, "uInt32")) {
		kind = FAST_K_U32; vk = VK_U32;
	} else if (!strcmp(el, "int64")) {
		kind = FAST_K_I64; vk = VK_I64;
	} else if (!strcmp(el, "uInt64")) {
		kind = FAST_K_U64; vk = VK_U64;
	} else if (!strcmp(el, "string")) {
		if ((r = attr(c, n, "charset", v, sizeof v)) < 0)
			return -1;
		if (!r || !strcmp(v, "ascii")) {
			kind = FAST_K_ASCII; vk = VK_ASCII;
		} else if (!strcmp(v, "unicode")) {
			kind = FAST_K_BYTES; vk = VK_UNICODE; flags = FAST_F_UNICODE;
		} else {
			return fail(c, n, "charset of %s must be ascii or unicode, not \"%s\"", name, v);
		}
	} else if (!strcmp(el, "byteVector")) {
		kind = FAST_K_BYTES; vk = VK_BYTES;
	} else { /* decimal */
		if (scale >= 0)
			return fail(c, n, "decimalPlaces applies to integer fields only (%s is a decimal)", name);
		return compile_decimal(c, n, lx, name, optional, fid, bits);
	}
	if (scale >= 0 && !is_int_vk(vk))
		return fail(c, n, "decimalPlaces applies to integer fields only (%s is a %s)", name, vk_name(vk));
	if (find_op(c, n, &o, lenok))
		return -1;
	if ((i = emit(c, n, name, kind, lx->depth)) < 0)
		return -1;
	c->p->instr[i].flags = (uint8_t)(flags | (optional ? FAST_F_OPTIONAL : 0));
	c->p->instr[i].fid = fid;
	if (scale >= 0) {
		c->p->instr[i].flags |= FAST_F_SCALED;
		c->p->instr[i].scale = (int8_t)scale;
	}
	return setup_op(c, n, i, &o, lx, name, optional, vk, name, bits);
}

/* Body of a sequence or group at lx->depth + 1, then END; the SEQ/GROUP is instruction i. */
static int compile_nested_body(struct cc *c, xmlNodePtr n, const struct lex *lx, int i, const char *name)
{
	struct lex in = *lx;
	int bits = 0, e;

	in.depth = lx->depth + 1;
	if (inherit_dict(c, n, &in) || inherit_type(c, n, &in))
		return -1;
	if (compile_body(c, n, &in, &bits))
		return -1;
	if (bits > PMAP_BITS)
		return fail(c, n, "%s needs %d presence map bits (max %d)", name, bits, PMAP_BITS);
	if (bits)
		c->p->instr[i].flags |= FAST_F_PMAP;
	if ((e = emit(c, n, "", FAST_K_END, lx->depth)) < 0)
		return -1;
	c->p->instr[e].aux = (uint16_t)i;
	c->p->instr[i].aux = (uint16_t)e;
	return 0;
}

static int compile_seq(struct cc *c, xmlNodePtr n, const struct lex *lx, int *bits)
{
	static const char *const none[] = {NULL};
	char name[FAST_NAME_MAX], lname[FAST_NAME_MAX], key[KEY_MAX];
	xmlNodePtr k, len = NULL;
	struct opinfo o;
	struct lex sl = *lx;
	uint32_t fid = 0;
	int optional, i;

	if (get_name(c, n, name) || (optional = get_presence(c, n)) < 0)
		return -1;
	if (lx->depth >= FAST_MAX_DEPTH)
		return fail(c, n, "sequence %s nested deeper than %d levels", name, FAST_MAX_DEPTH);
	for (k = n->children; k; k = k->next)
		if (is_el(k, "length")) {
			if (len)
				return fail(c, k, "sequence %s has two <length> elements", name);
			len = k;
		}
	snprintf(key, sizeof key, "%s/length", name);
	if (len) {
		int r = attr(c, len, "name", lname, sizeof lname);
		if (r < 0 || get_id(c, len, &fid) < 0)
			return -1;
		if (r && lname[0])
			copy_str(key, sizeof key, lname);
	}
	/* the length field is inside the sequence element: its dictionary attribute applies */
	if (inherit_dict(c, n, &sl) || inherit_type(c, n, &sl) || find_op(c, len, &o, none))
		return -1;
	if ((i = emit(c, n, name, FAST_K_SEQ, lx->depth)) < 0)
		return -1;
	c->p->instr[i].flags = optional ? FAST_F_OPTIONAL : 0;
	c->p->instr[i].fid = fid;
	if (setup_op(c, len ? len : n, i, &o, &sl, key, optional, VK_U32, name, bits))
		return -1;
	return compile_nested_body(c, n, lx, i, name);
}

static int compile_group(struct cc *c, xmlNodePtr n, const struct lex *lx, int *bits)
{
	char name[FAST_NAME_MAX];
	int optional, i;

	if (get_name(c, n, name) || (optional = get_presence(c, n)) < 0)
		return -1;
	if (lx->depth >= FAST_MAX_DEPTH)
		return fail(c, n, "group %s nested deeper than %d levels", name, FAST_MAX_DEPTH);
	if ((i = emit(c, n, name, FAST_K_GROUP, lx->depth)) < 0)
		return -1;
	c->p->instr[i].flags = optional ? FAST_F_OPTIONAL : 0;
	*bits += optional;
	return compile_nested_body(c, n, lx, i, name);
}

/* Lexical context of a template element: its dictionary (else that of <templates>), name and type. */
static int tpl_lex(struct cc *c, xmlNodePtr t, int depth, struct lex *lx)
{
	memset(lx, 0, sizeof *lx);
	copy_str(lx->dict, sizeof lx->dict, "global");
	lx->depth = depth;
	if (t->parent && t->parent->type == XML_ELEMENT_NODE && is_el(t->parent, "templates") &&
	    inherit_dict(c, t->parent, lx))
		return -1;
	if (inherit_dict(c, t, lx) || get_name(c, t, lx->tpl))
		return -1;
	copy_str(lx->type, sizeof lx->type, lx->tpl);
	return inherit_type(c, t, lx);
}

static int find_def(struct cc *c, const char *name)
{
	int i;

	for (i = 0; i < c->ndefs; i++) {
		xmlChar *a = xmlGetNoNsProp(c->defs[i], (const xmlChar *)"name");
		int eq = a && !strcmp((const char *)a, name);
		xmlFree(a);
		if (eq)
			return i;
	}
	return -1;
}

static int inline_ref(struct cc *c, xmlNodePtr n, const struct lex *lx, int *bits)
{
	char name[FAST_NAME_MAX];
	struct lex rl;
	int d, r;

	if ((r = attr(c, n, "name", name, sizeof name)) < 0)
		return -1;
	if (!r || !name[0])
		return fail(c, n, "dynamic templateRef not supported");
	if ((d = find_def(c, name)) < 0)
		return fail(c, n, "templateRef to unknown template \"%s\"", name);
	if (c->expanding[d])
		return fail(c, n, "templateRef cycle through template \"%s\"", name);
	if (tpl_lex(c, c->defs[d], lx->depth, &rl))
		return -1;
	c->expanding[d] = 1;
	r = compile_body(c, c->defs[d], &rl, bits);
	c->expanding[d] = 0;
	return r;
}

static int compile_body(struct cc *c, xmlNodePtr parent, const struct lex *lx, int *bits)
{
	int in_seq = is_el(parent, "sequence");
	xmlNodePtr k;

	for (k = parent->children; k; k = k->next) {
		const char *el;
		int r;

		if (!is_fast(k))
			continue;
		el = (const char *)k->name;
		if (!strcmp(el, "int32") || !strcmp(el, "uInt32") || !strcmp(el, "int64") || !strcmp(el, "uInt64") ||
		    !strcmp(el, "string") || !strcmp(el, "byteVector") || !strcmp(el, "decimal"))
			r = compile_field(c, k, lx, bits);
		else if (!strcmp(el, "sequence"))
			r = compile_seq(c, k, lx, bits);
		else if (!strcmp(el, "group"))
			r = compile_group(c, k, lx, bits);
		else if (!strcmp(el, "templateRef"))
			r = inline_ref(c, k, lx, bits);
		else if (!strcmp(el, "typeRef") || (in_seq && !strcmp(el, "length")))
			r = 0;
		else
			r = unexpected(c, k, (const char *)parent->name);
		if (r || c->failed)
			return -1;
	}
	return 0;
}

/* Tick field of a depth-0 field name; *str: must be an ASCII string; *rec: record type it implies. */
static int tick_of(const char *name, int *str, int *rec)
{
	static const struct {
		const char *name;
		uint8_t tf, str, rec;
	} map[] = {
		{"DataStatus", TOE_TF_DATA_STATUS, 0, TOE_REC_NONE},
		{"SecurityID", TOE_TF_SECURITY_ID, 1, TOE_REC_NONE},
		{"BizIndex", TOE_TF_BIZ_INDEX, 0, TOE_REC_NONE},
		{"TradeIndex", TOE_TF_TRADE_INDEX, 0, TOE_REC_TRADE},
		{"TradeChannel", TOE_TF_TRADE_CHANNEL, 0, TOE_REC_TRADE},
		{"TradeTime", TOE_TF_TRADE_TIME, 0, TOE_REC_TRADE},
		{"TradePrice", TOE_TF_TRADE_PRICE, 0, TOE_REC_TRADE},
		{"TradeQty", TOE_TF_TRADE_QTY, 0, TOE_REC_TRADE},
		{"TradeMoney", TOE_TF_TRADE_MONEY, 0, TOE_REC_TRADE},
		{"TradeBuyNo", TOE_TF_TRADE_BUY_NO, 0, TOE_REC_TRADE},
		{"TradeSellNo", TOE_TF_TRADE_SELL_NO, 0, TOE_REC_TRADE},
		{"TradeBSFlag", TOE_TF_TRADE_BS_FLAG, 1, TOE_REC_TRADE},
		{"OrderIndex", TOE_TF_ORDER_INDEX, 0, TOE_REC_ORDER},
		{"OrderChannel", TOE_TF_ORDER_CHANNEL, 0, TOE_REC_ORDER},
		{"OrderTime", TOE_TF_ORDER_TIME, 0, TOE_REC_ORDER},
		{"OrderType", TOE_TF_ORDER_TYPE, 1, TOE_REC_ORDER},
		{"OrderNO", TOE_TF_ORDER_NO, 0, TOE_REC_ORDER},
		{"OrderNo", TOE_TF_ORDER_NO, 0, TOE_REC_ORDER},
		{"OrderPrice", TOE_TF_ORDER_PRICE, 0, TOE_REC_ORDER},
		{"Balance", TOE_TF_BALANCE, 0, TOE_REC_ORDER},
		{"OrderBSFlag", TOE_TF_ORDER_BS_FLAG, 1, TOE_REC_ORDER},
	};
	size_t i;

	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(name, map[i].name)) {
			*str = map[i].str;
			*rec = map[i].rec;
			return map[i].tf;
		}
	return TOE_TF_NONE;
}

static int map_ticks(struct cc *c, int k, const char *tname)
{
	struct fast_prog *p = c->p;
	struct fast_tpl *t = &p->tpl[k];
	uint32_t seen = 0;
	int i, trade = -1, order = -1;

	for (i = t->first; i < t->end; i++) {
		struct fast_instr *in = &p->instr[i];
		const char *fname = c->nm->field[i];
		int str, rec, tf;

		if (in->depth != 0 || in->kind == FAST_K_END || in->kind == FAST_K_DEC_MANT)
			continue;
		tf = tick_of(fname, &str, &rec);
		if (tf == TOE_TF_NONE)
			continue;
		if (str ? in->kind != FAST_K_ASCII
			: !(in->kind == FAST_K_I32 || in->kind == FAST_K_U32 || in->kind == FAST_K_I64 ||
			    in->kind == FAST_K_U64 || in->kind == FAST_K_DECIMAL || in->kind == FAST_K_DEC_EXP)) {
			/* the name is SSE's, the type is not: another exchange's field of that name */
			note(c, c->line[i], "%s in template %s is not an %s: decoded, not mapped to the tick record", fname,
			     tname, str ? "ascii string" : "integer or a decimal");
			continue;
		}
		if (seen & (1u << tf))
			return fail_at(c, c->line[i], "template %s maps tick field %s twice", tname, fname);
		seen |= 1u << tf;
		in->tick = (uint8_t)tf;
		if (rec == TOE_REC_TRADE && trade < 0)
			trade = i;
		if (rec == TOE_REC_ORDER && order < 0)
			order = i;
	}
	if (trade >= 0 && order >= 0) {
		/* not SSE's trade or order: another exchange's template whose names happen to match */
		note(c, c->line[trade > order ? trade : order],
		     "template %s has both trade fields (%s) and order fields (%s): decoded, not mapped to tick records",
		     tname, c->nm->field[trade], c->nm->field[order]);
		for (i = t->first; i < t->end; i++)
			p->instr[i].tick = TOE_TF_NONE;
		trade = order = -1;
	}
	t->kind = trade >= 0 ? TOE_REC_TRADE : order >= 0 ? TOE_REC_ORDER : TOE_REC_NONE;
	return 0;
}

static int compile_template(struct cc *c, int d, int k)
{
	struct fast_prog *p = c->p;
	struct fast_tpl *t = &p->tpl[k];
	xmlNodePtr n = c->defs[d];
	struct lex lx;
	int bits = 0;

	if (tpl_lex(c, n, 0, &lx))
		return -1;
	copy_str(c->nm->tpl[k], FAST_NAME_MAX, lx.tpl);
	t->first = p->ninstr;
	c->expanding[d] = 1;
	compile_body(c, n, &lx, &bits);
	c->expanding[d] = 0;
	if (c->failed)
		return -1;
	t->end = p->ninstr;
	if (bits + 1 > PMAP_BITS)
		return fail(c, n, "template %s needs %d presence map bits with the template id (max %d)", lx.tpl,
			    bits + 1, PMAP_BITS);
	return map_ticks(c, k, lx.tpl);
}

static int compile_doc(struct cc *c, xmlDocPtr doc)
{
	struct fast_prog *p = c->p;
	xmlNodePtr root = xmlDocGetRootElement(doc), k;
	int i, j, n;

	if (!root)
		return fail_at(c, 1, "no root element");
	if (is_el(root, "template")) {
		n = 1;
	} else if (is_el(root, "templates")) {
		n = 0;
		for (k = root->children; k; k = k->next) {
			if (!is_fast(k))
				continue;
			if (!is_el(k, "template"))
				return unexpected(c, k, "templates");
			n++;
		}
	} else if (!is_fast(root)) {
		return fail(c, root, "root element <%s> is in namespace \"%s\"; FAST template files use %s (or %s)",
			    (const char *)root->name, (const char *)root->ns->href, NS_FAST11, NS_FAST10);
	} else {
		return fail(c, root, "root element must be <templates> or <template>, not <%s>",
			    (const char *)root->name);
	}
	c->defs = calloc((size_t)n + 1, sizeof *c->defs);
	c->expanding = calloc((size_t)n + 1, 1);
	if (!c->defs || !c->expanding)
		return fail_at(c, 0, "out of memory");
	if (is_el(root, "template"))
		c->defs[c->ndefs++] = root;
	else
		for (k = root->children; k; k = k->next)
			if (is_el(k, "template"))
				c->defs[c->ndefs++] = k;

	/* names unique, ids unique; templates with an id are the decodable ones */
	for (i = 0; i < c->ndefs; i++) {
		char name[FAST_NAME_MAX], v[32];
		uint32_t id;
		int r;

		if (get_name(c, c->defs[i], name))
			return -1;
		for (j = 0; j < i; j++) {
			xmlChar *a = xmlGetNoNsProp(c->defs[j], (const xmlChar *)"name");
			int eq = a && !strcmp((const char *)a, name);
			xmlFree(a);
			if (eq)
				return fail(c, c->defs[i], "duplicate template name \"%s\" (first at line %ld)", name,
					    xmlGetLineNo(c->defs[j]));
		}
		if ((r = attr(c, c->defs[i], "id", v, sizeof v)) < 0)
			return -1;
		if (!r)
			continue;
		if (get_id(c, c->defs[i], &id) < 0)
			return -1;
		for (j = 0; j < p->ntpl; j++)
			if (p->tpl[j].id == id)
				return fail(c, c->defs[i], "duplicate template id %u", id);
		if (p->ntpl >= FAST_MAX_TEMPLATES)
			return fail(c, c->defs[i], "too many templates (max %d)", FAST_MAX_TEMPLATES);
		p->tpl[p->ntpl].id = id;
		c->tdef[p->ntpl] = i;
		p->ntpl++;
	}
	if (p->ntpl == 0)
		return fail(c, root, "no templates with an id in the file");
	p->ndict = 1; /* slot 0: the template id */
	for (i = 0; i < p->ntpl; i++)
		if (compile_template(c, c->tdef[i], i))
			return -1;
	mark_mixed(p);
	p->magic = FAST_PROG_MAGIC;
	p->version = FAST_PROG_VERSION;
	return 0;
}

int fast_compile_buffer(const char *xml, size_t len, const char *name, struct fast_prog *prog,
			struct fast_names *names, char *err, size_t errlen)
{
	struct cc *c;
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc;
	int rc = -1;

	if (err && errlen)
		err[0] = 0;
	if (!name)
		name = "<buffer>";
	if (!prog) {
		if (err && errlen)
			snprintf(err, errlen, "%s:0: no program to fill", name);
		return -1;
	}
	memset(prog, 0, sizeof *prog);
	if (names)
		memset(names, 0, sizeof *names);
	c = calloc(1, sizeof *c);
	if (!c) {
		if (err && errlen)
			snprintf(err, errlen, "%s:0: out of memory", name);
		return -1;
	}
	c->file = name;
	c->err = err;
	c->errlen = errlen;
	c->p = prog;
	c->nm = names ? names : calloc(1, sizeof *c->nm);
	if (!c->nm) {
		fail_at(c, 0, "out of memory");
		free(c);
		return -1;
	}
	if (!xml || len == 0 || len > INT_MAX) {
		fail_at(c, 0, len > INT_MAX ? "file too large" : "empty template file");
		goto out;
	}
	xmlInitParser();
	ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		fail_at(c, 0, "out of memory");
		goto out;
	}
	doc = xmlCtxtReadMemory(ctxt, xml, (int)len, name, NULL,
				XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
	if (!doc || !ctxt->wellFormed) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		char msg[256];
		size_t l;

		copy_str(msg, sizeof msg, e && e->message ? e->message : "malformed XML");
		for (l = strlen(msg); l && (msg[l - 1] == '\n' || msg[l - 1] == ' '); l--)
			msg[l - 1] = 0;
		fail_at(c, e && e->line > 0 ? e->line : 0, "XML error: %s", msg);
	} else {
		rc = compile_doc(c, doc);
	}
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	if (rc == 0 && c->nm->nnotes > 1) {
		size_t l = strlen(c->nm->note);
		snprintf(c->nm->note + l, sizeof c->nm->note - l, " (%u such notes in all)", c->nm->nnotes);
	}
out:
	if (rc) {
		memset(prog, 0, sizeof *prog);
		if (names)
			memset(names, 0, sizeof *names);
		rc = -1;
	}
	free(c->defs);
	free(c->expanding);
	if (c->nm != names)
		free(c->nm);
	free(c);
	return rc;
}

int fast_compile_file(const char *path, struct fast_prog *prog, struct fast_names *names, char *err,
		      size_t errlen)
{
	FILE *f;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (err && errlen)
		err[0] = 0;
	f = fopen(path, "rb");
	if (!f) {
		if (err && errlen)
			snprintf(err, errlen, "%s:0: cannot open: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t got;
		if (n == cap) {
			char *nb;
			if (cap >= FILE_MAX) {
				if (err && errlen)
					snprintf(err, errlen, "%s:0: file larger than %u bytes", path, FILE_MAX);
				free(buf);
				fclose(f);
				return -1;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				if (err && errlen)
					snprintf(err, errlen, "%s:0: out of memory", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		if (err && errlen)
			snprintf(err, errlen, "%s:0: read error", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = fast_compile_buffer(buf, n, path, prog, names, err, errlen);
	free(buf);
	return rc;
}

int fast_prog_find(const struct fast_prog *prog, uint32_t tid)
{
	int i;

	for (i = 0; i < prog->ntpl && i < FAST_MAX_TEMPLATES; i++)
		if (prog->tpl[i].id == tid)
			return i;
	return -1;
}
