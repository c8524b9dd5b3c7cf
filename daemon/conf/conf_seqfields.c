/* conf_seqfields.c - [fast] sequence_fields: which fields key sequence tracking, per template.
 *
 *   sequence_fields = 3201:TradeChannel:BizIndex, 5801:OrderChannel:BizIndex
 *   sequence_fields = *:10115:10196, 9001:ChannelNo:SeqNo
 *   sequence_fields = sse                     (the default: SSE's built-in rules)
 *
 * Each rule is TEMPLATE:CHANNEL:SEQUENCE. TEMPLATE is a template id, or * for
 * every template having both fields; CHANNEL and SEQUENCE are a field name of
 * the template file or a field id (FIX tag). "sse" stands for SSE's two rules,
 * *:10115:10196 and *:10148:10196 (TradeChannel / OrderChannel with BizIndex,
 * contiguous per channel across 3201 and 5801). The syntax is checked while
 * parsing; names and ids are checked against the compiled templates after the
 * whole file (conf_seqfields_resolve): an unknown template id, an unknown
 * field, or a field that cannot carry a sequence (not an integer, or inside a
 * sequence or group, where a record has many values) is an error. Sequence
 * tracking matches fields by id, so a named field must have one in the file.
 * The SSE default is not checked: templates without those fields are simply
 * untracked, as before the key existed.
 */
#include "conf/conf_impl.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fast/host/fast_compile.h"
#include "seq/seq_track.h"

_Static_assert(TOED_SEQ_FIELDS_MAX == SEQ_MAX_FIELDS, "one config rule per tracker rule");

static int add_rule(struct toed_config *c, uint32_t tid, const char *chan, const char *seq, char *why, size_t wl)
{
	struct toed_seq_field *r;
	if (c->fast.nseq_fields >= TOED_SEQ_FIELDS_MAX) {
		snprintf(why, wl, "more than %u rules", TOED_SEQ_FIELDS_MAX);
		return -1;
	}
	r = &c->fast.seq_fields[c->fast.nseq_fields++];
	memset(r, 0, sizeof *r);
	r->tid = tid;
	snprintf(r->chan, sizeof r->chan, "%s", chan);
	snprintf(r->seq, sizeof r->seq, "%s", seq);
	/* a field id now; a name waits for the templates */
	if (isdigit((unsigned char)chan[0]))
		r->chan_fid = (uint32_t)strtoul(chan, NULL, 10);
	if (isdigit((unsigned char)seq[0]))
		r->seq_fid = (uint32_t)strtoul(seq, NULL, 10);
	return 0;
}

/* A field as written: a name ([A-Za-z_][A-Za-z0-9_.-]*) or a field id 1..2^32-1. */
static int field_ok(const char *s, const char *what, char *why, size_t wl)
{
	size_t n = strlen(s);
	if (n == 0) {
		snprintf(why, wl, "the %s field is missing (TEMPLATE:CHANNEL:SEQUENCE)", what);
		return -1;
	}
	if (n >= TOED_NAME_MAX) {
		snprintf(why, wl, "%s field '%.20s...' longer than %d characters", what, s, TOED_NAME_MAX - 1);
		return -1;
	}
	if (isdigit((unsigned char)s[0])) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(s, &end, 10);
		if (*end || errno || v == 0 || v > 0xffffffffull) {
			snprintf(why, wl, "%s field '%s' is not a field id (1..4294967295) or a name", what, s);
			return -1;
		}
		return 0;
	}
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-') ||
		    (p == s && !(isalpha((unsigned char)*p) || *p == '_'))) {
			snprintf(why, wl, "%s field '%s' is not a field name or id", what, s);
			return -1;
		}
	return 0;
}

int conf_seqfields_parse(struct ctx *x, struct toed_config *c, const char *v, char *why, size_t wl)
{
	(void)x;
	char item[3 * TOED_NAME_MAX + 8];
	const char *p = v;
	c->fast.nseq_fields = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		size_t il = strcspn(p, ",");
		while (il && (p[il - 1] == ' ' || p[il - 1] == '\t'))
			il--;
		if (il >= sizeof item) {
			snprintf(why, wl, "'%.20s...' is too long for a rule (TEMPLATE:CHANNEL:SEQUENCE)", p);
			return -1;
		}
		memcpy(item, p, il);
		item[il] = 0;
		p += il;
		if (strcmp(item, "sse") == 0) {
			if (add_rule(c, 0, "10115", "10196", why, wl) < 0 || add_rule(c, 0, "10148", "10196", why, wl) < 0)
				return -1;
			continue;
		}
		char *c1 = strchr(item, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c1 || !c2 || strchr(c2 + 1, ':')) {
			snprintf(why, wl, "'%s' is not TEMPLATE:CHANNEL:SEQUENCE (or sse)", item);
			return -1;
		}
		*c1 = 0;
		*c2 = 0;
		uint32_t tid = 0;
		if (strcmp(item, "*") != 0) {
			char *end;
			errno = 0;
			unsigned long long t = isdigit((unsigned char)item[0]) ? strtoull(item, &end, 10) : 0;
			if (!isdigit((unsigned char)item[0]) || *end || errno || t == 0 || t > 0xffffffffull) {
				snprintf(why, wl, "'%s' is not a template id (1..4294967295) or *", item);
				return -1;
			}
			tid = (uint32_t)t;
		}
		if (field_ok(c1 + 1, "channel", why, wl) < 0 || field_ok(c2 + 1, "sequence", why, wl) < 0)
			return -1;
		if (strcmp(c1 + 1, c2 + 1) == 0) {
			snprintf(why, wl, "'%s' is both the channel and the sequence", c1 + 1);
			return -1;
		}
		if (add_rule(c, tid, c1 + 1, c2 + 1, why, wl) < 0)
			return -1;
	}
	if (c->fast.nseq_fields == 0) {
		snprintf(why, wl, "no rule (TEMPLATE:CHANNEL:SEQUENCE, or sse)");
		return -1;
	}
	return 0;
}

static int is_sse(const struct toed_config *c)
{
	const struct toed_seq_field *r = c->fast.seq_fields;
	return c->fast.nseq_fields == 2 && r[0].tid == 0 && r[1].tid == 0 && strcmp(r[0].chan, "10115") == 0 &&
	       strcmp(r[0].seq, "10196") == 0 && strcmp(r[1].chan, "10148") == 0 && strcmp(r[1].seq, "10196") == 0;
}

void conf_seqfields_format(const struct toed_config *c, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	if (is_sse(c)) {
		snprintf(buf, len, "sse");
		return;
	}
	for (uint32_t i = 0; i < c->fast.nseq_fields && o + 1 < len; i++) {
		const struct toed_seq_field *r = &c->fast.seq_fields[i];
		char t[16];
		if (r->tid)
			snprintf(t, sizeof t, "%u", r->tid);
		else
			snprintf(t, sizeof t, "*");
		int w = snprintf(buf + o, len - o, "%s%s:%s:%s", o ? ", " : "", t, r->chan, r->seq);
		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
}

static const char *kind_name(uint8_t k)
{
	switch (k) {
	case FAST_K_ASCII: return "a string";
	case FAST_K_BYTES: return "a byte vector";
	case FAST_K_DECIMAL:
	case FAST_K_DEC_EXP:
	case FAST_K_DEC_MANT: return "a decimal";
	case FAST_K_SEQ: return "a sequence";
	case FAST_K_GROUP: return "a group";
	default: return "not an integer";
	}
}

/* Field `want` (name or id) in template index t: its instruction, or -1. */
static int find_field(const struct fast_prog *p, const struct fast_names *nm, uint32_t t, const char *want)
{
	const struct fast_tpl *tp = &p->tpl[t];
	int byid = isdigit((unsigned char)want[0]);
	uint32_t id = byid ? (uint32_t)strtoul(want, NULL, 10) : 0;
	for (uint32_t i = tp->first; i < tp->end && i < FAST_MAX_INSTR; i++) {
		if (p->instr[i].kind == FAST_K_END || p->instr[i].kind == FAST_K_DEC_MANT)
			continue;
		if (byid ? p->instr[i].fid == id : strcmp(nm->field[i], want) == 0)
			return (int)i;
	}
	return -1;
}

/* The field as a sequence key: "" when it can be one, else why not. */
static const char *key_problem(const struct fast_prog *p, int i, char *buf, size_t len)
{
	const struct fast_instr *in = &p->instr[i];
	if (in->depth != 0)
		return "is inside a sequence or group (a record holds many of its values)";
	if (in->kind == FAST_K_DEC_EXP || !(in->kind >= FAST_K_I32 && in->kind <= FAST_K_U64)) {
		snprintf(buf, len, "is %s, not an integer", kind_name(in->kind == FAST_K_DEC_EXP ? FAST_K_DECIMAL : in->kind));
		return buf;
	}
	if (in->fid == 0)
		return "has no id in the template file (sequence tracking matches fields by id)";
	return "";
}

int conf_seqfields_resolve(struct toed_config *c, const struct fast_names *nm, int check, char *why, size_t wl)
{
	const struct fast_prog *p = &c->fast.prog;
	char kb[64];
	for (uint32_t r = 0; r < c->fast.nseq_fields; r++) {
		struct toed_seq_field *f = &c->fast.seq_fields[r];
		uint32_t matched = 0;
		for (uint32_t t = 0; t < p->ntpl && t < FAST_MAX_TEMPLATES; t++) {
			if (f->tid && p->tpl[t].id != f->tid)
				continue;
			int ci = find_field(p, nm, t, f->chan), si = find_field(p, nm, t, f->seq);
			if (f->tid && check && (ci < 0 || si < 0)) {
				snprintf(why, wl, "template %u has no field %s", f->tid, ci < 0 ? f->chan : f->seq);
				return -1;
			}
			if (ci < 0 || si < 0)
				continue;
			const char *pc = key_problem(p, ci, kb, sizeof kb);
			if (check && *pc) {
				snprintf(why, wl, "template %u: channel field %s %s", p->tpl[t].id, f->chan, pc);
				return -1;
			}
			const char *ps = key_problem(p, si, kb, sizeof kb);
			if (check && *ps) {
				snprintf(why, wl, "template %u: sequence field %s %s", p->tpl[t].id, f->seq, ps);
				return -1;
			}
			if (*pc || *ps)
				continue;
			if (matched && (f->chan_fid != p->instr[ci].fid || f->seq_fid != p->instr[si].fid) && check) {
				snprintf(why, wl, "%s:%s names different field ids in different templates; name the templates",
					 f->chan, f->seq);
				return -1;
			}
			f->chan_fid = p->instr[ci].fid;
			f->seq_fid = p->instr[si].fid;
			matched++;
		}
		if (check && f->tid == 0 && matched == 0) {
			snprintf(why, wl, "no template has both %s and %s", f->chan, f->seq);
			return -1;
		}
		if (check && f->tid) {
			uint32_t t;
			for (t = 0; t < p->ntpl && t < FAST_MAX_TEMPLATES; t++)
				if (p->tpl[t].id == f->tid)
					break;
			if (t == p->ntpl || t == FAST_MAX_TEMPLATES) {
				snprintf(why, wl, "no template %u in the template file", f->tid);
				return -1;
			}
		}
	}
	return 0;
}

uint32_t toed_seq_rules(const struct toed_config *c, struct seq_field_cfg *out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->fast.nseq_fields && n < max; i++) {
		const struct toed_seq_field *r = &c->fast.seq_fields[i];
		if (r->chan_fid == 0 || r->seq_fid == 0)
			continue;
		out[n].tid = r->tid;
		out[n].chan_fid = r->chan_fid;
		out[n].seq_fid = r->seq_fid;
		n++;
	}
	return n;
}
