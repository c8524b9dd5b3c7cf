/* dp_pub.h - the publisher: fan-out of tick records into per-client SPSC rings.
 *
 * One struct pub per daemon instance (it picks the epoch). Each subscribed
 * client gets a pub_client: a sealed data memfd (region header + ring, huge
 * pages when possible), a consumer page memfd and an eventfd, all created by
 * pub_client_add() and handed to the client by the control server.
 *
 * The producer thread calls pub_publish() and pub_tick() and never blocks:
 * a full ring drops the record for that client only (counted in its region
 * header; the per-ring seq shows the gap). Wake-ups (futex or eventfd) are
 * sent only to clients that set their wait bits, and only after every ring
 * of the call is committed: a system call that wakes one sleeping reader
 * never delays the records of the next ring (pub_publish_nowake() lets the
 * caller stamp "visible" before the wakes and send them with pub_wake()).
 *
 * Threads: pub_client_add/remove/set_filter, pub_reclaim, pub_stats and
 * pub_destroy belong to the control thread; pub_publish, pub_tick and
 * pub_client_space to the producer thread. With cfg.threaded = 0 they are
 * the same thread and removed clients are freed at once; with threaded = 1
 * clients and filters are published with atomic pointers and freed by
 * pub_reclaim() once the producer has finished the call that might still use
 * them (a generation counter the producer bumps at the end of every call).
 */
#ifndef PUB_RING_H
#define PUB_RING_H

#include <stdint.h>

#include "dp/dp_shm.h"
#include "toe/ctl.h"
#include "toe/shm.h"
#include "toe/tick.h"

struct pub_config {
	uint32_t max_clients;         /* 0: 256 */
	uint32_t default_capacity;    /* 0: TOE_SHM_DEFAULT_CAPACITY */
	uint32_t max_capacity;        /* 0: TOE_SHM_MAX_CAPACITY */
	uint32_t history;             /* records kept for replay, rounded up to a power of two; 0: none */
	uint64_t heartbeat_period_ns; /* 0: 100 ms */
	int no_hugepages;             /* 1: use normal pages without trying huge pages */
	int threaded;                 /* 1: producer and control run in different threads */
	uint64_t max_ring_bytes;      /* all rings together (pub_ring_cost each); 0: no budget */
};

/* A record's source: which feed or [udp] port stream carried it, so that a
 * client can subscribe by stream name. The data plane tags each record it
 * publishes (pub_publish_src); sources are numbered by dp_setup_streams:
 * feeds 0..63 in file order, then the [udp] ports no feed takes. */
#define PUB_MAX_SRCS 128
#define PUB_SRC_ALL 0xfe  /* concerns every stream (a loss inside the pipeline): every subscription */
#define PUB_SRC_NONE 0xff /* not known: only subscriptions without a stream name */

/* A stream clients may name (toe_sub.stream): the sources it covers. */
struct pub_stream {
	char name[TOE_CTL_STREAM_LEN];
	const char *kind;  /* "feed", "group", "udp" (for messages) */
	uint64_t srcs[2];  /* bit s % 64 of word s / 64: source s */
	const char *why;   /* non-NULL: the name exists but cannot be told apart here; refused with this */
};

/* A validated filter: sorted lists, NUL-padded security ids. */
struct pub_filter {
	uint32_t types; /* TOE_TYPE_BIT mask, never 0 once normalised */
	uint32_t nchannels;
	uint32_t nsecurities;
	uint32_t has_stream;  /* 1: only records of the sources in srcs (and PUB_SRC_ALL) */
	uint64_t srcs[2];
	char stream[TOE_CTL_STREAM_LEN]; /* the name asked for (for toectl) */
	int32_t channels[TOE_CTL_MAX_CHANNELS];
	char securities[TOE_CTL_MAX_SECURITIES][TOE_SECURITY_ID_LEN];
};

struct pub_client_info {
	uint64_t epoch;
	uint64_t data_size;
	uint64_t cons_size;
	uint32_t capacity;
	uint32_t client_id;
	uint32_t flags; /* TOE_SHM_F_* */
	int data_fd;    /* valid until pub_client_close_fds() */
	int cons_fd;
	int event_fd;   /* owned by the client struct; send a copy */
};

struct pub_stats {
	uint64_t epoch;
	uint32_t clients;
	uint32_t zombies;            /* removed, waiting for the producer to move on */
	uint64_t published;          /* records given to pub_publish() */
	uint64_t delivered;          /* copies written into rings */
	uint64_t dropped;            /* copies dropped on full rings */
	uint64_t rings_created;
	uint64_t rings_reclaimed;
	uint64_t hugepage_fallbacks; /* this pub's rings that got normal pages */
	uint64_t wakeups;            /* futex/eventfd wake-ups sent */
	uint64_t ring_bytes;         /* memory of every ring not yet freed */
	uint64_t budget_refusals;    /* pub_client_add refused: over max_ring_bytes */
};

struct pub_client_stats {
	uint64_t offered; /* == last seq */
	uint64_t dropped;
	uint64_t backlog; /* unread records (per the client's page) */
	uint32_t capacity;
	uint32_t client_id;
	int hugetlb;
	char stream[TOE_CTL_STREAM_LEN]; /* the stream subscribed to by name, "" all (control thread only) */
};

struct pub;
struct pub_client;

/* Normalise f in place (types 0 -> all, sort, dedupe). Returns 0 or -EINVAL. */
int pub_filter_normalise(struct pub_filter *f);
/* Whether record r from source src (PUB_SRC_*) passes f. */
int pub_filter_match(const struct pub_filter *f, const union toe_record *r, uint8_t src);
/* The stream named name in tbl[0..n), or NULL. */
const struct pub_stream *pub_stream_find(const struct pub_stream *tbl, uint32_t n, const char *name);

struct pub *pub_create(const struct pub_config *cfg, int *err);
/* After the producer stopped: close every ring (clients see CLOSED) and free. */
void pub_destroy(struct pub *p);
uint64_t pub_epoch(const struct pub *p);
uint32_t pub_default_capacity(const struct pub *p);
uint32_t pub_max_capacity(const struct pub *p);
uint32_t pub_history(const struct pub *p);

/* Control thread. */
/* The memory a ring of this capacity takes (data region in whole pages, consumer page). */
uint64_t pub_ring_cost(const struct pub *p, uint32_t capacity);
/* Memory of every ring not yet freed (removed ones until pub_reclaim frees them). */
uint64_t pub_ring_bytes(const struct pub *p);
/* Returns 0, -EINVAL (capacity, start or filter), -EUSERS (max_clients), -ENOSPC (the ring
 * would take the rings past cfg.max_ring_bytes), or the -errno of creating the ring. */
int pub_client_add(struct pub *p, const struct pub_filter *f, uint32_t capacity, uint32_t start,
		   uint64_t start_arg, struct pub_client **out, struct pub_client_info *info);
int pub_client_set_filter(struct pub *p, struct pub_client *c, const struct pub_filter *f);
void pub_client_close_fds(struct pub_client *c); /* after the memfds were sent */
void pub_client_remove(struct pub *p, struct pub_client *c);
void pub_client_get_stats(const struct pub_client *c, struct pub_client_stats *st);
/* The client with this id (pub_client_info.client_id), or NULL. */
struct pub_client *pub_client_find(struct pub *p, uint32_t id);
void pub_reclaim(struct pub *p);
void pub_get_stats(const struct pub *p, struct pub_stats *st);

/* Producer thread. Returns the number of ring copies delivered. Commits every
 * ring, then wakes the sleeping readers (pub_publish_nowake + pub_wake). Its
 * records have no source (PUB_SRC_NONE). */
unsigned pub_publish(struct pub *p, const union toe_record *recs, unsigned n);
/* The same without the wakes: the records are visible in every ring when it
 * returns; the readers that were asleep are queued (at most once each). The
 * producer must call pub_wake() next (pub_tick() also does): until then a
 * sleeping reader stays asleep, and removed clients are not freed. */
unsigned pub_publish_nowake(struct pub *p, const union toe_record *recs, unsigned n);
/* pub_publish_nowake with sources: srcs[i] is recs[i]'s source (PUB_SRC_*, a
 * source number) for the stream filters; srcs NULL: all PUB_SRC_NONE. */
unsigned pub_publish_src(struct pub *p, const union toe_record *recs, const uint8_t *srcs, unsigned n);
/* Wake the readers queued by pub_publish_nowake(); returns how many. */
unsigned pub_wake(struct pub *p);
/* Call regularly (every loop turn is fine, at least every heartbeat period):
 * runs pending replays, writes the heartbeat and sends queued wakes.
 * now_ns: CLOCK_MONOTONIC. */
void pub_tick(struct pub *p, uint64_t now_ns);
/* The CPU the producer thread busy-polls on, pinned (-1: none), for the
 * clients (toe_shm_region.busy_cpu): written into every ring at the next
 * pub_tick and into every new ring. */
void pub_set_busy_cpu(struct pub *p, int cpu);
/* Free slots in c's ring now (for benchmarks that must not drop). */
uint32_t pub_client_space(struct pub_client *c);

#endif
