/* step_link.c - a STEP session over a byte stream (host only). See step_link.h. */
#include "step/host/step_link.h"

void step_link_init(struct step_link *l, const struct step_sess_cfg *cfg, int64_t utc_off_ms)
{
	step_sess_init(&l->s, cfg);
	l->s.utc_off_ms = utc_off_ms;
	step_init(&l->d);
	l->bad_frames = 0;
}

uint32_t step_link_open(struct step_link *l, uint64_t now_ms)
{
	step_init(&l->d); /* a new connection: a new byte stream */
	return step_sess_connected(&l->s, now_ms);
}

uint32_t step_link_close(struct step_link *l, uint64_t now_ms)
{
	return step_sess_disconnected(&l->s, now_ms);
}

uint32_t step_link_bytes(struct step_link *l, const uint8_t *p, uint32_t n, uint64_t now_ms)
{
	uint32_t r = 0, off = 0;
	int st;
	/* each step_feed() consumes bytes or delivers: n + messages + errors calls at most */
	for (uint64_t guard = 0; guard < 2ull * n + 2; guard++) {
		off += step_feed(&l->d, p + off, n - off, &st);
		if (st == STEP_MSG) {
			const struct step_msg *m = &l->d.msg;
			r |= m->raw ? step_sess_on_msg(&l->s, m->raw, m->len, now_ms)
				    : step_sess_on_data(&l->s, m->seq, now_ms);
		} else if (st == STEP_ERROR) {
			l->bad_frames++;
		} else {
			break;
		}
	}
	return r;
}

uint32_t step_link_tick(struct step_link *l, uint64_t now_ms)
{
	return step_sess_tick(&l->s, now_ms);
}
