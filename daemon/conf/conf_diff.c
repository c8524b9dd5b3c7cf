/* conf_diff.c - a reload: what changed between two loaded configurations, and the live part applied.
 *
 * Walks conf_keys[] section by section (ports by number, feeds by name), compares the values as
 * the file would write them (conf_types.c formats), and classes each change live (F_LIVE: the
 * daemon applies it at once) or restart (reported; the running value stays in force).
 */
#include "conf/conf_impl.h"

#include <string.h>

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
	conf_fmt_value(k, a, ba, va, len);
	conf_fmt_value(k, b, bb, vb, len);
	if (k->kind == T_PORTLIST)
		return a->udp.nports != b->udp.nports || memcmp(a->udp.ports, b->udp.ports, sizeof a->udp.ports) != 0;
	return strcmp(va, vb) != 0;
}

static int diff_section(struct toed_diff *d, int sec, const struct toed_config *a, int ia, const struct toed_config *b,
			int ib, const char *label, int32_t index)
{
	char va[TOED_PATH_MAX], vb[TOED_PATH_MAX];
	int mask = 0;
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct key *k = &conf_keys[i];
		if (k->sec != sec)
			continue;
		if (!key_differs(k, a, conf_sec_cbase(a, sec, ia), b, conf_sec_cbase(b, sec, ib), va, vb, sizeof va))
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
			mask |= diff_section(d, s, old, 0, new, 0, conf_sec_name[s], -1);
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
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct key *k = &conf_keys[i];
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

