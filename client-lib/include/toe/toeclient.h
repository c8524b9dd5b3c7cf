/* toe/toeclient.h - libtoeclient: read decoded ticks from toed with no system call on the hot path.
 *
 * A strategy connects to the daemon's control socket, subscribes with a
 * filter, and receives a ring in shared memory that only it consumes. Reading
 * is loads from that memory; the daemon never waits for a reader: when the
 * ring is full it drops records for this client only, and the per-ring
 * sequence numbers (rec->hdr.seq, first record 1) show the reader every gap.
 *
 *	struct toe_client *c;
 *	struct toe_sub sub = { .types = TOE_TYPE_BIT(TOE_REC_TRADE) };
 *	if (toe_connect(&c, NULL, NULL) < 0 || toe_subscribe(c, &sub) < 0) ...
 *	for (;;) {
 *		int n = toe_poll(c, on_record, ctx, 0);   // handler per record, zero-copy
 *		if (n == -EAGAIN) n = toe_wait(c, -1);    // spin a little, then sleep
 *		if (n == -ESTALE || n == -ENOTCONN) ...   // daemon restarted / gone: toe_reconnect(c)
 *	}
 *
 * Errors are negative errno values:
 *   -EAGAIN    nothing yet (or a wait timed out)
 *   -ESTALE    the daemon restarted (its epoch changed); toe_reconnect() resubscribes
 *   -ENOTCONN  the daemon is gone (socket hang-up, closed ring, or heartbeat stopped)
 *   -EINTR     a wait was interrupted by a signal
 * Records already in the ring are still delivered after the daemon is gone;
 * -ESTALE/-ENOTCONN come once the ring is drained.
 *
 * Thread-safety: a struct toe_client is a single consumer. All calls on one
 * client must be made by one thread at a time (no locks inside, like an
 * io_uring or an ef_vi); use one client per thread to read in parallel.
 * Different clients are independent. Handlers must not call toe_close() or
 * toe_reconnect() on the client that is calling them. After fork(), only one
 * of the two processes may go on using a client.
 *
 * The hot-path calls notice a closed ring, a changed epoch and (every 1024
 * empty polls) a stopped heartbeat with loads only, and then return
 * -ENOTCONN without a system call; toe_wait(), toe_arm() and toe_check() also
 * watch the socket and tell -ESTALE (a new daemon answers) from -ENOTCONN.
 *
 * Link with -ltoeclient (pkg-config toeclient). The ABI of the records is
 * toe/tick.h; the shared-memory layout is toe/shm.h; the wire protocol is
 * toe/ctl.h.
 */
#ifndef TOE_TOECLIENT_H
#define TOE_TOECLIENT_H

#include <stdint.h>

#include "toe/ctl.h"
#include "toe/tick.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TOE_API __attribute__((visibility("default")))
#else
#define TOE_API
#endif

struct toe_client;

/* Connection options: zero-initialise, then set what you need (0 = default). */
struct toe_opts {
	const char *name;             /* shown by toectl; default: program name */
	int64_t spin_ns;              /* toe_wait()'s spin: 0 (default) adaptive, >0 busy-poll this long before
				       * sleeping, <0 never spin (see toe_wait) */
	int64_t heartbeat_timeout_ns; /* daemon presumed gone after this silence (at least 4 of its beat
				       * periods); default 2 s, <0: never */
	int timeout_ms;               /* control-socket reply timeout; default 2000 */
	uint32_t flags;               /* 0 */
	uint64_t reserved[4];
};

/* A subscription filter: zero-initialise. Empty lists match everything;
 * channel and security lists apply to trades and orders (gap and reset
 * events pass them). stream (NULL: every stream) names one feed (its stream
 * name, [feed.NAME] unless `stream =` renames it), one arbitration group (the
 * `group =` of its feeds: its lines' records, after arbitration) or a [udp]
 * port ("udp-PORT"): only that stream's records, events included, reach the
 * ring. An unknown name is refused with -ENOENT (-EINVAL: not a name), and
 * toe_last_error() says which names the daemon has.
 *
 * ABI rule: fields are only ever added in place of reserved words, which
 * old programs leave zero and whose zero means "as before"; the struct's
 * size and every older offset stay the same, on 32-bit systems too (a
 * pointer takes a whole 64-bit word), and TOE_ABI_VERSION does not change. */
struct toe_sub {
	uint32_t types;                /* TOE_TYPE_BIT(TOE_REC_...) mask; 0: every type */
	uint32_t capacity;             /* ring size in records, power of two; 0: daemon default */
	uint32_t start;                /* enum toe_start (toe/ctl.h) */
	uint32_t nchannels;            /* <= TOE_CTL_MAX_CHANNELS */
	uint64_t start_arg;            /* record count (TOE_START_LAST) or msg_seq (TOE_START_MSG_SEQ) */
	const int32_t *channels;       /* trade_channel / order_channel values */
	const char *const *securities; /* security ids, e.g. "600000" (at most 16 characters) */
	uint32_t nsecurities;          /* <= TOE_CTL_MAX_SECURITIES */
	uint32_t flags;                /* 0 */
	union {                        /* (was reserved[0]) */
		const char *stream;    /* a stream name (at most TOE_CTL_STREAM_LEN - 1 bytes); NULL: all */
		uint64_t stream_word_;
	};
	uint64_t reserved[3];
};

struct toe_stats {
	uint64_t received;   /* records handed to the caller */
	uint64_t skipped;    /* records the daemon dropped for this client, seen as seq jumps */
	uint64_t dropped;    /* the daemon's drop count for this ring (includes drops not yet seen) */
	uint64_t epoch;      /* the daemon instance this client is attached to (0: none) */
	uint64_t reconnects; /* successful toe_reconnect() calls */
	uint64_t sleeps;     /* toe_wait() calls that slept on the futex (once or more) */
	uint64_t backlog;    /* records waiting in the ring now */
	uint32_t capacity;   /* ring size in records */
	uint32_t hugetlb;    /* 1 when the ring is in 2 MB huge pages */
	uint32_t client_id;  /* the daemon's number for this subscription */
	uint32_t reserved;
};

/* Called by toe_poll() for each record, in order. `skipped` is the number of
 * records the daemon dropped for this client just before this one (usually 0). */
typedef void (*toe_handler)(void *arg, const union toe_record *rec, uint64_t skipped);

/* Connect to the daemon. path NULL: $TOED_SOCKET, else TOE_CTL_DEFAULT_PATH.
 * opts may be NULL. Returns 0 and *out, or -errno (-ENOENT/-ECONNREFUSED: no
 * daemon listening; -EACCES: not allowed; -EPROTONOSUPPORT: version mismatch). */
TOE_API int toe_connect(struct toe_client **out, const char *path, const struct toe_opts *opts);

/* Subscribe (first call: the daemon creates the ring and sends it) or change
 * the filter of the existing ring (later calls: capacity and start are then
 * ignored). Returns 0 or -errno (-EINVAL: bad filter, with the daemon's
 * explanation in toe_last_error()). */
TOE_API int toe_subscribe(struct toe_client *c, const struct toe_sub *sub);

/* Copy up to max records into out. Returns the number copied (>0), or
 * -EAGAIN, -ENOTCONN, -ESTALE. *skipped (may be NULL) receives how many
 * records the daemon dropped for this client among/before those returned. */
TOE_API int toe_read(struct toe_client *c, union toe_record *out, unsigned max, uint64_t *skipped);

/* Zero-copy: point *recs at up to max unread records, contiguous in the ring
 * (max 0: as many as are contiguous). They stay valid and unchanged until
 * toe_release(). Returns the count (>0) or a negative errno as toe_read(). */
TOE_API int toe_peek(struct toe_client *c, const union toe_record **recs, unsigned max, uint64_t *skipped);

/* Give the first n peeked records back to the daemon. */
TOE_API void toe_release(struct toe_client *c, unsigned n);

/* Call fn for up to max available records (0: all available now), zero-copy,
 * then release them. Returns the number handled (>0) or a negative errno. */
TOE_API int toe_poll(struct toe_client *c, toe_handler fn, void *arg, unsigned max);

/* Block until records are available. By default the wait is adaptive: it
 * learns the spacing of arrivals, sleeps on a futex (which the daemon wakes
 * at once if a record comes early) until shortly before the next record is
 * due, and spins only around that moment, never more than 40% of the
 * spacing (so a waiting client stays under half a CPU) nor 50 us per wait;
 * on the CPU the daemon's data plane busy-polls on it never spins (the
 * daemon's wake-up there is local and fast). With opts.spin_ns > 0 it busy-polls that long, then sleeps; < 0 it only
 * sleeps. timeout_ns < 0: no timeout; 0: just check. Returns the number of records available (>0), -EAGAIN on timeout,
 * -EINTR, -ENOTCONN or -ESTALE. */
TOE_API int toe_wait(struct toe_client *c, int64_t timeout_ns);

/* A descriptor for poll/epoll (EPOLLIN): it becomes readable after toe_arm()
 * when records arrive, and when the connection to the daemon changes. */
TOE_API int toe_fd(const struct toe_client *c);

/* Ask for a wake-up on toe_fd() and check the connection (slow path: system
 * calls). Returns >0 when records are already available (do not sleep), 0
 * when armed, or -ENOTCONN/-ESTALE. Call again after each wake-up. */
TOE_API int toe_arm(struct toe_client *c);

/* Check the connection now (socket, heartbeat, epoch; system calls).
 * Returns 0, -ENOTCONN or -ESTALE (a new daemon instance answers the socket). */
TOE_API int toe_check(struct toe_client *c);

/* Drop the current ring (unread records are lost), connect again to the same
 * path and resubscribe with the same filter. Returns 0 or -errno (e.g.
 * -ECONNREFUSED/-ENOENT while no daemon listens: try again later). */
TOE_API int toe_reconnect(struct toe_client *c);

TOE_API void toe_stats(const struct toe_client *c, struct toe_stats *st);

/* The daemon's text for the last error it replied to this client ("" if none). */
TOE_API const char *toe_last_error(const struct toe_client *c);

/* Unsubscribe, unmap and free. c may be NULL. */
TOE_API void toe_close(struct toe_client *c);

#ifdef __cplusplus
}
#endif

#endif
