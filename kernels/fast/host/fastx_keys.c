/* fastx_keys.c - sequence-tracking keys read from the fast path's tick record (host only).
 *
 * Sequence tracking (kernels/seq/) keys each record by (channel, sequence),
 * which seq_key() reads from the reference decoder's value array. The fast
 * path builds no value array, so for each template the key fields' places
 * in the tick record are looked up once (fastx_keys_set) and fastx_key()
 * reads them back. That is exact only where the tick holds the field's value
 * unchanged: an integer op with a tick destination, no rescaling, and a
 * destination as wide as the value (64-bit, or 32-bit for an int32 field,
 * which cannot fail the range check); for anything else fastx_keys_set
 * sends that template's records to the reference (kref, counted in
 * key_fallback) and the other templates stay on the fast path.
 */
#include <string.h>

#include "fastx_int.h"

#define KEY_NONE 0xffffu

static int keyloc(const struct fastx_prog *xp, uint32_t t, uint16_t instr, struct fastx_keyloc *k)
{
	const struct fast_tpl *pt = &xp->p->tpl[t];
	const struct fastx_op *o;
	if (instr < pt->first || instr >= pt->end || instr - pt->first >= xp->tpl[t].nops)
		return -1;
	/* one op per instruction, in order (fastx_lower.c) */
	o = &xp->ops[xp->tpl[t].first + (instr - pt->first)];
	if (o->op > XO_INT_DELTA || !o->tbit || o->rescale)
		return -1;
	if (o->tw != XW_I64 && !(o->tw == XW_I32 && o->type == XT_I32))
		return -1;
	k->off = o->toff;
	k->w = o->tw;
	k->bit = o->tbit;
	return 0;
}

int fastx_keys_set(struct fastx_dec *x, const uint16_t *chan, const uint16_t *seq)
{
	const struct fastx_prog *xp = x->xp;
	uint32_t t, ntpl = xp->p->ntpl < FAST_MAX_TEMPLATES ? xp->p->ntpl : FAST_MAX_TEMPLATES;
	int ok = 0;
	memset(x->kchan, 0, sizeof x->kchan);
	memset(x->kseq, 0, sizeof x->kseq);
	memset(x->kref, 0, sizeof x->kref);
	for (t = 0; t < FAST_MAX_TEMPLATES; t++)
		x->tref[t] = !xp->tpl[t].ok;
	for (t = 0; t < ntpl; t++) {
		if (chan[t] == KEY_NONE || seq[t] == KEY_NONE || !xp->tpl[t].ok)
			continue;
		if (keyloc(xp, t, chan[t], &x->kchan[t]) != 0 || keyloc(xp, t, seq[t], &x->kseq[t]) != 0) {
			x->kchan[t].w = 0;
			x->kseq[t].w = 0;
			x->kref[t] = 1; /* its records go to the reference, which has the value array */
			x->tref[t] = 1;
			ok = -1;
		}
	}
	x->keys_ok = ok == 0;
	fastx_vhome_build(x);
	return ok;
}

static int64_t keyval(const union toe_record *tk, const struct fastx_keyloc *k)
{
	if (k->w == XW_I32) {
		int32_t v;
		memcpy(&v, tk->bytes + k->off, 4);
		return v;
	} else {
		int64_t v;
		memcpy(&v, tk->bytes + k->off, 8);
		return v;
	}
}

int fastx_key(const struct fastx_dec *x, uint32_t *chan, uint64_t *seq)
{
	const struct fastx_keyloc *kc, *ks;
	int64_t s;
	if (x->tpl >= FAST_MAX_TEMPLATES || x->tick_type <= 0)
		return 0;
	kc = &x->kchan[x->tpl];
	ks = &x->kseq[x->tpl];
	if (!kc->w || !ks->w)
		return 0;
	if (!(x->dst->hdr.present & kc->bit) || !(x->dst->hdr.present & ks->bit))
		return 0;
	s = keyval(x->dst, ks);
	if (s <= 0)
		return 0; /* sequences start at 1 */
	*chan = (uint32_t)keyval(x->dst, kc);
	*seq = (uint64_t)s;
	return 1;
}
