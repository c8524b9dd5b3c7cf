/* fastx_vlower.c - per-template tables of the VBMI level's vector path (host only).
 *
 * fastx_vec.c decodes a whole record in vector registers: one 64-bit lane
 * per field slot, every per-field decision (operator, nullability, wire
 * type, presence bit, dictionary entry, tick destination) a lane mask or a
 * per-lane constant built here from the lowered ops (fastx_lower.c). A
 * template qualifies only when every case the vector path commits is
 * provably the reference's result; anything else about it leaves the
 * template to the AVX2 body (reason in vt->why, fastx_prog_vwhy). What can
 * differ per record (long or overlong fields, undefined dictionary entries,
 * values out of a 32-bit range...) is checked per record instead.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fastx_int.h"

static void no(struct fastx_vtpl *v, const char *why, uint32_t slot)
{
	snprintf(v->why, sizeof v->why, "%.48s (field %u)", why, slot);
	v->ok = 0;
}

/* Entries a decimal writes (its exponent): the vector path writes exp = 0
 * with every integer it stores, identical only while no decimal shares the
 * entry. */
static int decimal_key(const struct fast_prog *p, uint32_t key)
{
	for (uint32_t i = 0; i < p->ninstr && i < FAST_MAX_INSTR; i++) {
		const struct fast_instr *in = &p->instr[i];
		if ((in->kind == FAST_K_DECIMAL || in->kind == FAST_K_DEC_EXP || in->kind == FAST_K_DEC_MANT) &&
		    (in->dict & (FAST_MAX_DICT - 1)) == key)
			return 1;
	}
	return 0;
}

static void lower_one(struct fastx_prog *xp, uint32_t t)
{
	const struct fastx_tpl *xt = &xp->tpl[t];
	struct fastx_vtpl *v = &xp->vt[t];
	uint32_t i, npb = 0, tused[TOE_RECORD_SIZE / 8] = {0};
	uint16_t keys[FASTX_VSLOTS];
	uint8_t sl[FASTX_VSLOTS]; /* field -> slot */
	memset(v, 0, sizeof *v);
	v->ok = 1;
	memset(v->pbidx, 62, sizeof v->pbidx); /* slots past the template: never present */
	memset(v->widx, 62, sizeof v->widx);
	memset(v->widxf, 62, sizeof v->widxf);
	memset(v->tpres, 63, sizeof v->tpres);
	if (!xt->ok) {
		no(v, "not specialised", 0);
		return;
	}
	if (xt->nops > FASTX_VSLOTS) {
		no(v, "more than 16 fields", FASTX_VSLOTS);
		return;
	}
	v->nslot = (uint8_t)xt->nops;
	v->kind = xt->kind;
	/* Slots: the dictionary's fields first, then the others, each in
	 * field order, so that a template with at most 8 of them reads the
	 * dictionary for one 8-slot half only (fastx_vec.c). perm maps a slot
	 * back to its field (whose bytes come in field order). */
	{
		uint32_t n = 0, pass;
		for (pass = 0; pass < 2; pass++)
			for (i = 0; i < xt->nops; i++) {
				const uint8_t op = xp->ops[xt->first + i].op;
				int isd = op == XO_INT_COPY || op == XO_INT_INCR || op == XO_STR_COPY;
				if (isd == (pass == 0)) {
					sl[i] = (uint8_t)n;
					v->perm[n++] = (uint8_t)i;
				}
			}
		for (; n < FASTX_VSLOTS; n++)
			v->perm[n] = FASTX_VSLOTS - 1;
	}
	for (i = 0; i < xt->nops; i++) {
		const struct fastx_op *o = &xp->ops[xt->first + i];
		const uint32_t s = sl[i];
		const uint16_t m = (uint16_t)(1u << s);
		int is_int = o->op <= XO_INT_DELTA;
		if (o->pmask) {
			if (npb >= 13) {
				no(v, "more than 13 presence bits", i);
				return;
			}
			v->pbidx[s] = (uint8_t)(12 - npb);
			npb++;
		}
		switch (o->op) {
		case XO_INT_NONE: case XO_STR_NONE: v->widx[s] = 63; break;
		case XO_INT_CONST: case XO_STR_CONST: v->m_const |= m; break;
		case XO_INT_DEFAULT: case XO_STR_DEFAULT: v->widx[s] = v->pbidx[s]; v->m_def |= m; break;
		case XO_INT_INCR: v->m_incr |= m; /* fall through */
		case XO_INT_COPY: case XO_STR_COPY: v->widx[s] = v->pbidx[s]; v->m_dict |= m; break;
		default: no(v, "delta operator", i); return;
		}
		v->widxf[i] = v->widx[s];
		if (o->opt)
			v->m_opt |= m;
		if (o->has_init)
			v->m_init |= m;
		if (is_int) {
			int64_t lo = o->type == XT_I32 ? INT32_MIN : 0, hi = o->type == XT_I32 ? INT32_MAX : UINT32_MAX;
			v->m_int |= m;
			if (o->sgn)
				v->m_sgn |= m;
			if (o->opt)
				v->m_null |= m;
			if (o->type == XT_I32)
				v->m_i32 |= m;
			if (o->type == XT_U32)
				v->m_u32 |= m;
			/* wire forms the lanes hold (4 x 7 bits fit every 32-bit type, 8 x 7 every 64-bit
			 * one): no range check on a value read from the wire */
			v->maxlen[s] = o->maxn;
			v->init[s] = o->init;
			if (o->has_init && (o->type == XT_I32 || o->type == XT_U32) && (o->init < lo || o->init > hi)) {
				no(v, "initial value out of the type's range", i);
				return;
			}
		} else {
			v->m_str |= m;
			v->maxlen[s] = 8;
			if (o->ilen > 8) {
				no(v, "string initial value longer than 8", i);
				return;
			}
			v->ilen[s] = o->ilen;
			memcpy(&v->init[s], xp->p->pool + o->ioff, o->ilen);

		}
		if (o->op == XO_INT_COPY || o->op == XO_INT_INCR || o->op == XO_STR_COPY) {
			uint32_t k;
			if (o->dict == FAST_DICT_TEMPLATE_ID || decimal_key(xp->p, o->dict)) {
				no(v, "dictionary entry shared with a decimal", i);
				return;
			}
			for (k = 0; k < v->ndict; k++)
				if (keys[k] == o->dict) {
					no(v, "dictionary entry used twice", i);
					return;
				}
			keys[v->ndict] = o->dict;
			v->dslot[v->ndict++] = (uint8_t)s;
			if (is_int) {
				v->ient[v->nidict] = o->doff;
				v->islot[v->nidict++] = (uint8_t)s;
			} else {
				v->sent[v->nsdict] = o->doff;
				v->sslot[v->nsdict++] = (uint8_t)s;
			}
			v->voff[s] = (int64_t)o->doff + (is_int ? offsetof(struct fast_dict_entry, i)
								: offsetof(struct fast_dict_entry, s));
			v->hoff[s] = (int64_t)o->doff + offsetof(struct fast_dict_entry, gen);
		}
		if (o->tw != XW_NONE && o->tbit) {
			/* class A and B writes only (fastx_int.h): the lane's low bytes as they are */
			uint32_t w = o->tw == XW_I32 ? 4 : 8, j;
			if (is_int && (o->rescale || !((o->tw == XW_I32 && o->type == XT_I32) || (o->tw == XW_I64 && o->sgn)))) {
				no(v, "tick write needs rescaling or a range check", i);
				return;
			}
			if (o->toff < sizeof(struct toe_rec_hdr) || o->toff + (o->tw == XW_SID ? TOE_SECURITY_ID_LEN : w) >
									 TOE_RECORD_SIZE) {
				no(v, "tick destination out of place", i);
				return;
			}
			for (j = 0; j < (o->tw == XW_SID ? TOE_SECURITY_ID_LEN : w); j++) {
				uint32_t tb = o->toff + j;
				if (tused[tb / 8] & (1u << (tb % 8))) {
					no(v, "two fields write one tick byte", i);
					return;
				}
				tused[tb / 8] |= 1u << (tb % 8);
				if (j >= 8)
					continue; /* a security id's bytes past the lane: NUL */
				v->tidx[tb] = (uint8_t)(8 * s + j);
				v->tmask[tb / 64] |= 1ull << (tb % 64);
			}
			v->tpres[__builtin_ctz(o->tbit)] = (uint8_t)s;
		}
	}
	v->pm_extra = (uint16_t)((1u << (13 - npb)) - 1);
	v->uns = (v->m_int & ~v->m_sgn) != 0;
	for (i = 0; i < FASTX_VSLOTS; i++) {
		int str = (v->m_str >> i) & 1;
		for (uint32_t b = 0; b < 8; b++) {
			v->spr[i / 8][8 * (i % 8) + b] = (uint8_t)(i + (str ? 16 : 0));
			v->dlt[i / 8][8 * (i % 8) + b] = (uint8_t)(str ? b : -b);
		}
	}
}

void fastx_vec_lower(struct fastx_prog *xp)
{
	uint32_t ntpl = xp->p->ntpl < FAST_MAX_TEMPLATES ? xp->p->ntpl : FAST_MAX_TEMPLATES;
	for (uint32_t t = 0; t < ntpl; t++)
		lower_one(xp, t);
}

void fastx_vhome_build(struct fastx_dec *x)
{
	const struct fastx_prog *xp = x->xp;
	for (uint32_t h = 0; h < FASTX_HASH; h++) {
		struct fastx_vhome *e = &x->vhome[h];
		int t = xp->hash[h] - 1;
		e->tid = xp->hkey[h];
		e->t = t < 0 ? 0 : (uint32_t)t;
		/* (an id that sits past its home slot is never looked up here: the
		 * vector path does not probe, and its records go to the AVX2 body) */
		e->vt = t >= 0 && !x->tref[t] && xp->vt[t].ok ? &xp->vt[t] : NULL;
	}
	/* vlast always pairs an id with what its lookup gives (a template, or
	 * NULL: the AVX2 body's): here id 0's, so that a copied id 0 is not
	 * taken for an id without a template */
	x->vlast = x->vhome[fastx_home(0)];
	if (x->vlast.tid != 0) {
		x->vlast.tid = 0;
		x->vlast.vt = NULL;
	}
}

const char *fastx_prog_vwhy(const struct fastx_prog *xp, uint32_t t)
{
	return t < FAST_MAX_TEMPLATES ? xp->vt[t].why : "";
}
