/* gtoe_harness.h - drive one general-TOE endpoint from crafted segments in unit tests (host code).
 *
 * A struct gh owns a gtoe (heap-allocated, with its buffer) and talks to an
 * imaginary peer: gh_peer() delivers a segment the peer "sends" (addresses
 * PEER -> US), gh_out() collects what the endpoint transmits (payload copied
 * so it stays valid), gh_ev() collects events. Times are given by the test.
 */
#ifndef TOE_GTOE_HARNESS_H
#define TOE_GTOE_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include "toe/gtoe.h"

#define GH_US 0x0a000001u    /* 10.0.0.1 */
#define GH_PEER 0x0a000002u  /* 10.0.0.2 */
#define GH_PORT 5000
#define GH_PEER_PORT 6000
#define GH_MAX_OUT 512
#define GH_MAX_EV 512
#define GH_DATA_MAX 2048

struct gh_seg {
	struct gtoe_seg s;      /* data[0] points at buf, len[0] the whole payload */
	uint8_t buf[GH_DATA_MAX];
	uint32_t plen;
};

struct gh {
	struct gtoe *g;
	uint8_t *mem;
	struct gh_seg out[GH_MAX_OUT];
	uint32_t nout;
	struct gtoe_event ev[GH_MAX_EV];
	uint32_t nev;
	uint32_t direct; /* gh_drive: run with gtoe_direct_on */
	uint64_t bytes_read; /* gh_drive: bytes the application read (each checked) */
	uint64_t held;       /* gh_drive: peer segments left in their frame (direct delivery) */
};

/* Allocate and init with cfg (NULL: defaults). Returns 0 or the gtoe_init error. */
int gh_init(struct gh *h, const struct gtoe_cfg *cfg);
void gh_free(struct gh *h);
/* Drain gtoe_tx_next into h->out (replacing what was there); returns the count. */
uint32_t gh_out(struct gh *h, uint64_t now);
/* Drain events into h->ev (replacing); returns the count. */
uint32_t gh_ev(struct gh *h);
/* Number of collected events of a type. */
uint32_t gh_ev_count(const struct gh *h, uint8_t type);
/* A segment from the peer: flags, seq, ack, win; payload p[0..n). Options
 * through opt (NULL: none). */
void gh_peer(struct gh *h, uint64_t now, uint8_t flags, uint32_t seq, uint32_t ack, uint16_t win, const void *p,
	     uint32_t n, const struct gtoe_seg *opt);
/* Active open to the peer with a handshake: our SYN out, the peer's SYN-ACK
 * (peer ISN irs, its options opt or none), our ACK out. Returns the conn. */
int32_t gh_connect(struct gh *h, uint64_t now, uint32_t irs, const struct gtoe_seg *opt);

/* For code that owns its gtoe (benchmarks): an active open from
 * laddr:lport to raddr:rport on g (already initialised) answered by a
 * SYN-ACK with ISN irs, MSS mss and, with ts, timestamps; our ACK drained.
 * Returns the connection when it is established, else -1. */
int32_t gh_establish(struct gtoe *g, uint32_t laddr, uint16_t lport, uint32_t raddr, uint16_t rport, uint32_t irs,
		     uint16_t mss, int ts, uint64_t now);

/* Check the table's invariants (ranges sorted and inside the window,
 * snd_una <= snd_nxt <= snd_max <= snd_end, buffer accounting, slot
 * bitmap). Returns NULL, or what is wrong (a static string). */
const char *gh_invariants(const struct gtoe *g);
/* Check an output segment of g: payload inside the connection's send
 * buffer and at most its MSS, sequence inside what was written. */
const char *gh_seg_ok(const struct gtoe *g, const struct gtoe_seg *s);

/* Drive g with operations decoded from bytes (the fuzz target and the
 * random unit test share it): peer segments around the current sequence
 * numbers, application send/recv/peek/consume/shutdown/abort/release, time
 * passing, draining segments and events. The peer's byte at sequence number
 * s is always gh_byte(s), so every byte read is checked. With h->direct the
 * endpoint runs with gtoe_direct_on: each segment's payload lives in a frame
 * buffer of its own (two, in turn) that is given back, settled
 * (gtoe_settle) and overwritten with a poison, before the next segment or
 * sometimes between reads, or kept until the next segment's input settles
 * it and poisoned then, so a byte read from a frame after its settle shows.
 * Returns NULL or the first check broken. */
static inline uint8_t gh_byte(uint32_t seq) { return (uint8_t)((seq * 0x9e3779b1u) >> 24); }
const char *gh_drive(struct gh *h, const uint8_t *in, size_t n);

#endif
