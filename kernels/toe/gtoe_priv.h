/* gtoe_priv.h - helpers shared by the gtoe_*.c files (not an API; synthesisable subset).
 *
 * Sequence arithmetic mod 2^32 (RFC 9293 3.4), buffer addressing by
 * seq & mask (a power-of-two buffer divides 2^32, so the sequence wrap is
 * invisible), the clocks of the options, and the state changes more than one
 * file makes.
 */
#ifndef GTOE_PRIV_H
#define GTOE_PRIV_H

#include "gtoe.h"

static inline int seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline int seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }
static inline int seq_gt(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }
static inline int seq_ge(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }
static inline uint32_t seq_max(uint32_t a, uint32_t b) { return seq_gt(a, b) ? a : b; }
static inline uint32_t seq_min(uint32_t a, uint32_t b) { return seq_lt(a, b) ? a : b; }
static inline uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }
static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Timestamp clock (RFC 7323: 1 ms ticks). */
static inline uint32_t gtoe_ts_now(uint64_t now_ns) { return (uint32_t)(now_ns / 1000000u); }

static inline uint8_t *gtoe_rbuf(struct gtoe *g, uint32_t ci)
{
	return g->buf + (uint64_t)ci * ((uint64_t)g->cfg.rcv_buf + g->cfg.snd_buf);
}

static inline uint8_t *gtoe_sbuf(struct gtoe *g, uint32_t ci)
{
	return gtoe_rbuf(g, ci) + g->cfg.rcv_buf;
}

/* Bytes received in order and not consumed yet. The peer's FIN, once
 * reached and not yet passed by rd_seq, takes a sequence number but is no
 * byte and takes no room: after data that filled the buffer to the window's
 * edge, rcv_nxt - rd_seq is rcv_win + 1. */
static inline uint32_t gtoe_rcv_held(const struct gtoe_conn *c)
{
	return c->rcv_nxt - c->rd_seq -
	       ((c->flags & GTOE_F_FIN_RCVD) && seq_gt(c->rcv_nxt, c->peer_fin) && seq_ge(c->peer_fin, c->rd_seq) ? 1u
														   : 0u);
}

/* Free receive space = advertised window (right edge rd_seq + rcv_win; rcv_win <= rcv_buf). */
static inline uint32_t gtoe_rcv_space(const struct gtoe *g, const struct gtoe_conn *c)
{
	(void)g;
	return c->rcv_win - gtoe_rcv_held(c);
}

/* Sequence space the connection still has in flight (SYN/FIN count). */
static inline uint32_t gtoe_flight(const struct gtoe_conn *c) { return c->snd_max - c->snd_una; }

static inline int gtoe_slot_used(const struct gtoe *g, uint32_t ci)
{
	return (int)((g->used[ci >> 6] >> (ci & 63)) & 1u);
}

/* Round-robin scans: from slot ci, how far to the next slot worth looking
 * at (1, or past the rest of an empty 64-slot word), wrapping at max to 0.
 * Returns the distance covered and moves *ci. */
static inline uint32_t gtoe_scan_step(const struct gtoe *g, uint32_t *ci)
{
	uint32_t c = *ci, max = g->cfg.max_conns, d;
	d = (g->used[c >> 6] >> (c & 63)) == 0 ? 64u - (c & 63) : 1u;
	if (c + d >= max) {
		d = max - c;
		c = 0;
	} else {
		c += d;
	}
	*ci = c;
	return d;
}

static inline int gtoe_synced(uint32_t s) { return s >= GTOE_ESTABLISHED && s <= GTOE_TIME_WAIT; }

/* Take a free slot for a new connection (state CLOSED, ISN chosen), or GTOE_ERR_FULL. */
int32_t gtoe_open_slot(struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport,
		       uint64_t now);
/* Our window-scale shift for the receive buffer. */
uint8_t gtoe_our_ws(uint32_t win);
/* Move to CLOSED; frees the slot when the application released it. */
void gtoe_to_closed(struct gtoe *g, uint32_t ci);
/* Queue an RST answering a segment of no (or a closed) connection. */
void gtoe_queue_rst(struct gtoe *g, const struct gtoe_seg *in, uint32_t seglen);
/* Arm the retransmission timer at now + rto when data/SYN/FIN is outstanding. */
void gtoe_arm_rto(struct gtoe_conn *c, uint64_t now);
/* RFC 6298 RTT sample (ns). */
void gtoe_rtt_sample(struct gtoe *g, struct gtoe_conn *c, uint64_t rtt);
/* Enter TIME-WAIT (2*MSL from now). */
void gtoe_time_wait(struct gtoe *g, struct gtoe_conn *c, uint64_t now);

#endif
