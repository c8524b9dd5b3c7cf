/* step_link.h - a STEP session over a byte stream: the session (step_sess) with
 * its own deframer, for callers that see a connection's in-order bytes rather
 * than deframed messages (host only: the deframer is 32 KB, one per connection).
 *
 * What the daemon's connection hooks (struct dp_tcp_hooks, set with
 * toed_dp_set_tcp_hooks) need, a few lines each, one step_link per feed
 * (`act` sends l.s.out with dp_tcp_send(t, feed, ...), then step_sess_sent(&l.s),
 * logs step_sess_event()s with step_ev_format(), closes the connection on
 * STEP_SESS_CLOSE; now_ms is the hooks' CLOCK_MONOTONIC now_ns / 1000000):
 *
 *	step_link_init(&l, &cfg, realtime_ms - monotonic_ms);   // cfg: toed_feed_session_cfg()
 *	on_open:  act(step_link_open(&l, now_ms));               // queues the Logon
 *	on_bytes: act(step_link_bytes(&l, data, len, now_ms));   // the same bytes also go to the decoder
 *	on_tick:  act(step_link_tick(&l, now_ms));
 *	on_close: act(step_link_close(&l, now_ms));
 *
 * When the pipeline's deframer is at hand instead (fast_stream with msg_events,
 * FS_MESSAGE), give its messages to step_sess_on_msg()/step_sess_on_data()
 * directly and skip this second deframing (toe-sockrx --session does that).
 */
#ifndef STEP_LINK_H
#define STEP_LINK_H

#include <stdint.h>

#include "fast/step_deframe.h"
#include "step/step_sess.h"

struct step_link {
	struct step_sess s;
	struct step_deframer d;
	uint64_t bad_frames; /* bytes the deframer could not frame (counted in d.errors, d.skipped too) */
};

void step_link_init(struct step_link *l, const struct step_sess_cfg *cfg, int64_t utc_off_ms);
uint32_t step_link_open(struct step_link *l, uint64_t now_ms);
uint32_t step_link_close(struct step_link *l, uint64_t now_ms);
/* In-order bytes of the connection, any chunking. Returns the STEP_SESS_* mask of everything they caused. */
uint32_t step_link_bytes(struct step_link *l, const uint8_t *p, uint32_t n, uint64_t now_ms);
uint32_t step_link_tick(struct step_link *l, uint64_t now_ms);

#endif
