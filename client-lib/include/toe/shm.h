/* toe/shm.h - the shared-memory ABI between toed (producer) and libtoeclient (consumer).
 *
 * Each subscription owns one single-producer single-consumer ring held in two
 * memfds the daemon creates and passes over the control socket (toe/ctl.h):
 *
 *   data memfd (hugetlb when available, sealed so clients can only map it
 *   read-only: F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_FUTURE_WRITE|F_SEAL_SEAL)
 *     offset 0                 struct toe_shm_region  (TOE_SHM_HDR_SIZE bytes)
 *     offset ring_offset       union toe_record[capacity]
 *
 *   consumer memfd (one 4 KB page, sealed against resizing, writable by the
 *   one client that received it and by the daemon)
 *     offset 0                 struct toe_shm_consumer
 *
 * Every field the producer and the consumer both touch sits on a cache line
 * of its own: identity, epoch, heartbeat, producer index and producer
 * counters in the region; consumer index and wait flag in the consumer page.
 * Each side keeps a private copy of the other side's index and reloads it
 * only when its copy says "empty" (consumer) or "full" (producer).
 *
 * Ordering protocol (implemented by the inline helpers below, used by both
 * the daemon and the library so there is one copy of it):
 *   producer: write record(s) -> store head (seq_cst) -> load wait (seq_cst);
 *             if wait != 0: exchange it to 0, FUTEX_WAKE (bit 0) and/or write
 *             the subscription's eventfd (bit 1).
 *   consumer: read records after an acquire load of head; free slots with a
 *             release store of tail. To sleep: set a wait bit (seq_cst RMW),
 *             reload head (seq_cst), sleep only if still empty. The two
 *             seq_cst pairs guarantee that a wake-up is never lost.
 * The producer never waits: when a ring is full the record is dropped for
 * that ring and counted; every record offered to a ring takes the next
 * per-ring sequence number (toe_rec_hdr.seq, first record 1) whether it is
 * delivered or dropped, so a jump in seq shows the reader what it lost.
 *
 * The daemon treats the consumer page as untrusted input: a tail that makes
 * no sense makes the ring look full (that client loses its own data, nobody
 * else is affected).
 *
 * The helpers use GCC/Clang __atomic builtins on plain fields so that the
 * layout is the same in C and C++.
 */
#ifndef TOE_SHM_H
#define TOE_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "toe/tick.h"

#define TOE_SHM_MAGIC 0x314d485345454f54ull /* "TOEESHM1" little-endian */
#define TOE_SHM_VERSION 1                     /* layout of this header */
#define TOE_CACHE_LINE 64
#define TOE_SHM_HDR_SIZE 512   /* struct toe_shm_region; records start here */
#define TOE_SHM_CONS_SIZE 4096 /* the consumer memfd */
#define TOE_SHM_HUGE_PAGE (2u << 20)

/* Ring capacity limits (records, powers of two). */
#define TOE_SHM_MIN_CAPACITY 64u
#define TOE_SHM_MAX_CAPACITY (1u << 20)
#define TOE_SHM_DEFAULT_CAPACITY 8192u /* 1 MB of records: one 2 MB huge page with the header */

/* toe_shm_region.flags */
#define TOE_SHM_F_HUGETLB 0x1u /* the data memfd is backed by 2 MB huge pages */

/* toe_shm_region.state */
enum toe_shm_state {
	TOE_SHM_STATE_INIT = 0,
	TOE_SHM_STATE_LIVE = 1,   /* the producer is publishing into this ring */
	TOE_SHM_STATE_CLOSED = 2, /* no more records will come (unsubscribed, daemon stopping) */
};

/* toe_shm_consumer.wait bits (the word is also the futex) */
#define TOE_SHM_WAIT_FUTEX 0x1u   /* the client sleeps in FUTEX_WAIT on this word */
#define TOE_SHM_WAIT_EVENTFD 0x2u /* the client wants its eventfd written */

struct toe_shm_region {
	/* line 0: identity, written once before the memfd is sent */
	uint64_t magic;        /* TOE_SHM_MAGIC */
	uint32_t shm_version;  /* TOE_SHM_VERSION */
	uint32_t abi_version;  /* TOE_ABI_VERSION of the records */
	uint32_t hdr_size;     /* TOE_SHM_HDR_SIZE */
	uint32_t record_size;  /* TOE_RECORD_SIZE */
	uint32_t capacity;     /* records in the ring, a power of two */
	uint32_t flags;        /* TOE_SHM_F_* */
	uint64_t region_size;  /* bytes of the data memfd */
	uint64_t ring_offset;  /* byte offset of record 0 */
	uint32_t client_id;    /* the daemon's number for this subscription */
	uint32_t producer_pid;
	uint8_t pad0[8];
	/* line 1: epoch */
	uint64_t epoch; /* random and nonzero; a new value on every producer start */
	uint8_t pad1[56];
	/* line 2: liveness, written by the producer */
	uint64_t heartbeat_ns;        /* CLOCK_MONOTONIC of the producer's latest beat */
	uint64_t heartbeat_period_ns; /* how often it beats */
	uint32_t state;               /* enum toe_shm_state */
	uint32_t busy_cpu;            /* 1 + the one CPU the producer is pinned to (busy-polling or
				       * not); 0: none (or unknown: older producers leave it 0). A
				       * reader on that CPU should sleep, not spin: its spin only
				       * keeps the producer off the CPU, and a wake-up there is a
				       * local one */
	uint8_t pad2[40];
	/* line 3: producer index */
	uint64_t head; /* records written so far; slot = index & (capacity - 1) */
	uint8_t pad3[56];
	/* line 4: producer counters for this ring */
	uint64_t offered; /* records that matched the filter == the last seq used */
	uint64_t dropped; /* of those, dropped because the ring was full */
	uint8_t pad4[48];
	uint8_t reserved[TOE_SHM_HDR_SIZE - 5 * TOE_CACHE_LINE];
};

struct toe_shm_consumer {
	/* line 0: consumer index, written by the client only */
	uint64_t tail; /* records consumed; the producer may reuse their slots */
	uint8_t pad0[56];
	/* line 1: wait word (futex), bits set by the client, cleared by the producer */
	uint32_t wait; /* TOE_SHM_WAIT_* */
	uint32_t pad1a;
	uint8_t pad1[56];
	/* line 2: informational, written by the client, never trusted by the daemon */
	uint32_t client_pid;
	uint32_t pad2a;
	uint64_t sleeps; /* times the client went to sleep */
	uint8_t pad2[48];
	uint8_t reserved[TOE_SHM_CONS_SIZE - 3 * TOE_CACHE_LINE];
};

#if defined(__cplusplus)
#define TOE_SHM_OFFSET_ASSERT(t, f, o) static_assert(offsetof(t, f) == (o), #t "." #f " offset")
#else
#define TOE_SHM_OFFSET_ASSERT(t, f, o) _Static_assert(offsetof(t, f) == (o), #t "." #f " offset")
#endif
TOE_STATIC_ASSERT(sizeof(struct toe_shm_region) == TOE_SHM_HDR_SIZE, "region header size");
TOE_STATIC_ASSERT(sizeof(struct toe_shm_consumer) == TOE_SHM_CONS_SIZE, "consumer page size");
TOE_STATIC_ASSERT(TOE_SHM_HDR_SIZE % TOE_RECORD_SIZE == 0, "records stay 128-byte aligned");
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, magic, 0);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, shm_version, 8);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, abi_version, 12);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, capacity, 24);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, region_size, 32);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, ring_offset, 40);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, client_id, 48);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, epoch, 64);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, heartbeat_ns, 128);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, state, 144);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, busy_cpu, 148);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, head, 192);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, offered, 256);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_region, dropped, 264);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_consumer, tail, 0);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_consumer, wait, 64);
TOE_SHM_OFFSET_ASSERT(struct toe_shm_consumer, client_pid, 128);

/* Bytes of a data memfd holding `capacity` records, before rounding up to the page size. */
static inline uint64_t toe_shm_data_bytes(uint32_t capacity)
{
	return (uint64_t)TOE_SHM_HDR_SIZE + (uint64_t)capacity * TOE_RECORD_SIZE;
}

/* ---- producer side (the daemon) ---------------------------------------- */

struct toe_ring_prod {
	struct toe_shm_region *reg;   /* writable mapping */
	union toe_record *recs;       /* reg + ring_offset */
	struct toe_shm_consumer *cons; /* the client's page (untrusted) */
	uint64_t head;                /* private copy of reg->head */
	uint64_t tail_cache;          /* last tail read from cons */
	uint64_t seq;                 /* last sequence number used */
	uint64_t dropped;
	uint64_t committed_seq;       /* seq at the last commit (to skip idle commits) */
	uint64_t committed_dropped;
	uint32_t mask;
	uint32_t cap;
};

/* Offer one record: 1 when written, 0 when dropped (ring full). Not visible
 * to the consumer until toe_ring_prod_commit(). */
static inline int toe_ring_prod_push(struct toe_ring_prod *p, const union toe_record *rec)
{
	uint64_t seq = ++p->seq;
	if (p->head - p->tail_cache >= p->cap) {
		p->tail_cache = __atomic_load_n(&p->cons->tail, __ATOMIC_ACQUIRE);
		/* also true for a nonsense tail ahead of head: the ring looks full */
		if (p->head - p->tail_cache >= p->cap) {
			p->dropped++;
			return 0;
		}
	}
	union toe_record *d = &p->recs[p->head & p->mask];
	*d = *rec;
	d->hdr.seq = seq;
	p->head++;
	return 1;
}

/* Offer recs[0..n) exactly as n toe_ring_prod_push() calls would (same
 * sequence numbers, drops and tail reads): when all fit by the tail last
 * read (then none of those calls would read it again), one space check and
 * at most two copies (the ring wraps), then each record's sequence number;
 * else one by one. The daemon's publisher pushes runs this way. */
static inline void toe_ring_prod_push_n(struct toe_ring_prod *p, const union toe_record *recs, unsigned n)
{
	uint64_t used = p->head - p->tail_cache;
	uint32_t at, first;
	if (used > p->cap || p->cap - used < n) {
		for (unsigned i = 0; i < n; i++)
			toe_ring_prod_push(p, &recs[i]);
		return;
	}
	at = (uint32_t)(p->head & p->mask);
	first = p->cap - at < n ? p->cap - at : n;
	memcpy(&p->recs[at], recs, (size_t)first * sizeof *recs);
	if (first < n)
		memcpy(&p->recs[0], recs + first, (size_t)(n - first) * sizeof *recs);
	for (unsigned i = 0; i < n; i++)
		p->recs[(p->head + i) & p->mask].hdr.seq = p->seq + 1 + i;
	p->seq += n;
	p->head += n;
}

/* Free slots as the producer sees them now (reloads the consumer index). */
static inline uint32_t toe_ring_prod_space(struct toe_ring_prod *p)
{
	p->tail_cache = __atomic_load_n(&p->cons->tail, __ATOMIC_ACQUIRE);
	uint64_t used = p->head - p->tail_cache;
	return used >= p->cap ? 0 : (uint32_t)(p->cap - used);
}

/* Publish what was pushed and return the wait bits the consumer had set
 * (0 almost always); the caller wakes it for each bit returned. */
static inline uint32_t toe_ring_prod_commit(struct toe_ring_prod *p)
{
	if (p->seq == p->committed_seq)
		return 0;
	p->committed_seq = p->seq;
	__atomic_store_n(&p->reg->offered, p->seq, __ATOMIC_RELAXED);
	if (p->dropped != p->committed_dropped) {
		p->committed_dropped = p->dropped;
		__atomic_store_n(&p->reg->dropped, p->dropped, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&p->reg->head, p->head, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&p->cons->wait, __ATOMIC_SEQ_CST) == 0)
		return 0;
	return __atomic_exchange_n(&p->cons->wait, 0, __ATOMIC_ACQ_REL);
}

/* ---- consumer side (libtoeclient) -------------------------------------- */

struct toe_ring_cons {
	const struct toe_shm_region *reg; /* read-only mapping */
	const union toe_record *recs;
	struct toe_shm_consumer *cons;    /* this client's page */
	uint64_t tail;                    /* private copy of cons->tail */
	uint64_t head_cache;              /* last head read from reg */
	uint32_t mask;
	uint32_t cap;
};

/* Records ready to read; reloads the producer index only when the cached copy says empty. */
static inline uint32_t toe_ring_cons_avail(struct toe_ring_cons *c)
{
	uint64_t n = c->head_cache - c->tail;
	if (n == 0) {
		c->head_cache = __atomic_load_n(&c->reg->head, __ATOMIC_ACQUIRE);
		n = c->head_cache - c->tail;
	}
	return n > c->cap ? c->cap : (uint32_t)n;
}

/* The i-th unread record (i < toe_ring_cons_avail()). */
static inline const union toe_record *toe_ring_cons_at(const struct toe_ring_cons *c, uint32_t i)
{
	return &c->recs[(c->tail + i) & c->mask];
}

/* Unread records from the current position up to the end of the array (for
 * zero-copy batches that must be contiguous). */
static inline uint32_t toe_ring_cons_contig(const struct toe_ring_cons *c, uint32_t avail)
{
	uint32_t to_end = c->cap - (uint32_t)(c->tail & c->mask);
	return avail < to_end ? avail : to_end;
}

/* Hand n records back to the producer. */
static inline void toe_ring_cons_release(struct toe_ring_cons *c, uint32_t n)
{
	c->tail += n;
	__atomic_store_n(&c->cons->tail, c->tail, __ATOMIC_RELEASE);
}

/* Announce that the consumer is about to sleep (bits TOE_SHM_WAIT_*), then
 * re-check: returns the records available; sleep only when it returned 0,
 * with *word (the wait word as set) as the futex's expected value. */
static inline uint32_t toe_ring_cons_prepare_wait(struct toe_ring_cons *c, uint32_t bits, uint32_t *word)
{
	*word = __atomic_fetch_or(&c->cons->wait, bits, __ATOMIC_SEQ_CST) | bits;
	c->head_cache = __atomic_load_n(&c->reg->head, __ATOMIC_SEQ_CST);
	uint64_t n = c->head_cache - c->tail;
	return n > c->cap ? c->cap : (uint32_t)n;
}

#endif
