/* gtoe_harness.c - one general-TOE endpoint and an imaginary peer, for unit tests (see gtoe_harness.h). */
#include "gtoe_harness.h"

#include <stdlib.h>
#include <string.h>

int gh_init(struct gh *h, const struct gtoe_cfg *cfg)
{
	struct gtoe_cfg d;
	int r;
	memset(h, 0, sizeof *h);
	if (!cfg) {
		gtoe_cfg_default(&d);
		cfg = &d;
	}
	h->g = calloc(1, sizeof *h->g);
	h->mem = calloc(1, GTOE_BUF_BYTES(cfg));
	if (!h->g || !h->mem)
		return -100;
	r = gtoe_init(h->g, cfg, h->mem, GTOE_BUF_BYTES(cfg));
	return r;
}

void gh_free(struct gh *h)
{
	free(h->g);
	free(h->mem);
	h->g = NULL;
	h->mem = NULL;
}

uint32_t gh_out(struct gh *h, uint64_t now)
{
	struct gtoe_seg s;
	h->nout = 0;
	while (h->nout < GH_MAX_OUT && gtoe_tx_next(h->g, now, &s)) {
		struct gh_seg *o = &h->out[h->nout++];
		uint32_t k;
		o->s = s;
		o->plen = 0;
		for (k = 0; k < 2; k++) {
			if (s.len[k] && o->plen + s.len[k] <= GH_DATA_MAX) {
				memcpy(o->buf + o->plen, s.data[k], s.len[k]);
				o->plen += s.len[k];
			}
		}
		o->s.data[0] = o->buf;
		o->s.len[0] = o->plen;
		o->s.data[1] = NULL;
		o->s.len[1] = 0;
	}
	return h->nout;
}

uint32_t gh_ev(struct gh *h)
{
	h->nev = 0;
	while (h->nev < GH_MAX_EV && gtoe_ev_next(h->g, &h->ev[h->nev]))
		h->nev++;
	return h->nev;
}

uint32_t gh_ev_count(const struct gh *h, uint8_t type)
{
	uint32_t i, n = 0;
	for (i = 0; i < h->nev; i++)
		n += h->ev[i].type == type;
	return n;
}

void gh_peer(struct gh *h, uint64_t now, uint8_t flags, uint32_t seq, uint32_t ack, uint16_t win, const void *p,
	     uint32_t n, const struct gtoe_seg *opt)
{
	struct gtoe_seg s;
	memset(&s, 0, sizeof s);
	if (opt)
		s = *opt;
	s.saddr = GH_PEER;
	s.daddr = GH_US;
	s.sport = GH_PEER_PORT;
	s.dport = GH_PORT;
	s.flags = flags;
	s.seq = seq;
	s.ack = ack;
	s.win = win;
	s.data[0] = p;
	s.len[0] = n;
	s.data[1] = NULL;
	s.len[1] = 0;
	gtoe_input_seg(h->g, &s, now);
}

int32_t gh_connect(struct gh *h, uint64_t now, uint32_t irs, const struct gtoe_seg *opt)
{
	int32_t c = gtoe_connect(h->g, GH_US, GH_PORT, GH_PEER, GH_PEER_PORT, now);
	uint32_t iss;
	if (c < 0 || gh_out(h, now) != 1)
		return -1;
	iss = h->out[0].s.seq;
	gh_peer(h, now + 1000, TCP_SYN | TCP_ACK, irs, iss + 1, 65535, NULL, 0, opt);
	gh_out(h, now + 1000);
	gh_ev(h);
	return c;
}
