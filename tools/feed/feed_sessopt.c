/* feed_sessopt.c - the STEP session options of toe-feedsim and toe-sockrx (see feed_sessopt.h). */
#include "feed/feed_sessopt.h"

#include <stdio.h>
#include <string.h>

/* An ID option into a session field: NULL, or the complaint. No '=' (toed's configuration refuses it in a
 * CompID too) and no SOH (it would end the field). */
static const char *opt_id(const char *arg, char *out, size_t len)
{
	if (!*arg || strlen(arg) >= len || strchr(arg, '\x01') || strchr(arg, '='))
		return "needs 1 to 31 characters, no SOH and no '='";
	snprintf(out, len, "%s", arg);
	return NULL;
}

int feed_sessopt_take(struct feed_sessopt *o, int opt, const char *arg, struct step_sess_cfg *cfg, const char **bad)
{
	uint64_t v;
	*bad = NULL;
	switch (opt) {
	case FEED_O_SESSION: o->session = 1; return 1;
	case FEED_O_SENDER: *bad = opt_id(arg, cfg->sender, sizeof cfg->sender); break;
	case FEED_O_TARGET: *bad = opt_id(arg, cfg->target, sizeof cfg->target); break;
	case FEED_O_USERNAME: *bad = opt_id(arg, cfg->username, sizeof cfg->username); break;
	case FEED_O_PASSWORD:
		if (!*arg || strlen(arg) >= sizeof cfg->password)
			*bad = "--password needs 1 to 63 characters";
		else
			snprintf(cfg->password, sizeof cfg->password, "%s", arg);
		break;
	case FEED_O_HEARTBEAT:
		if (feed_parse_u64(arg, 0, STEP_SESS_HB_MAX, &v))
			*bad = "--heartbeat-s needs a number of seconds in 0..3600";
		else
			cfg->heartbeat_s = (uint32_t)v;
		break;
	default: return 0;
	}
	o->given++;
	return 1;
}

int feed_sessopt_check(const struct feed_sessopt *o, const char *tool, const struct feed_peer *peer)
{
	if (o->given && !o->session) {
		fprintf(stderr, "%s: the session options need --session\n", tool);
		return -1;
	}
	if (o->session && peer->mode == FEED_MODE_UDP) {
		fprintf(stderr, "%s: --session needs a TCP connection (--listen or --connect), not --udp\n", tool);
		return -1;
	}
	return 0;
}
