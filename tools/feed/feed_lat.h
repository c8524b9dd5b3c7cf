/* feed_lat.h - the feed simulator's send log and latency statistics (host only).
 *
 * toe-feedsim --sendlog writes one entry per STEP message it sends; a
 * receiver (toe-sockrx, the harness's verifying client) stamps the time it
 * got each message and matches it to the entry by MsgSeqNum. Both sides run
 * on the same host and read CLOCK_REALTIME, so recv time - send time is the
 * one-way latency. Nothing is added to the FAST data.
 *
 * Send log file format (all integers little-endian):
 *   bytes 0..7   magic "TOESLOG1"
 *   then one 32-byte entry per message, in sending order:
 *     u64 msg_seq     STEP MsgSeqNum (34=), from 1, +1 per message
 *     u64 send_ns     CLOCK_REALTIME ns taken right before send()
 *     u64 first_biz   BizIndex of the message's first record
 *     u32 nrecords    records in the message
 *     u32 len         bytes of the whole STEP message
 * Python: struct.iter_unpack("<QQQII", data[8:]).
 *
 * Percentiles: the value at index floor((n - 1) * q) of the sorted samples
 * (the same rule as tests/bench/bench_ring.c), exact integer arithmetic.
 */
#ifndef FEED_LAT_H
#define FEED_LAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FEED_SENDLOG_MAGIC "TOESLOG1"
#define FEED_SENDLOG_HDR 8
#define FEED_SENDLOG_ENT 32

struct feed_sendlog_ent {
	uint64_t msg_seq;
	uint64_t send_ns;
	uint64_t first_biz;
	uint32_t nrecords;
	uint32_t len;
};

/* Write the magic, then n entries. Returns 0 or -1 (errno set). */
int feed_sendlog_write(FILE *f, const struct feed_sendlog_ent *e, size_t n);

/* Read a whole send log. *out is malloc'ed (free it), *n its entries.
 * Returns 0, or -1 with a message in err (unreadable, bad magic, a partial
 * trailing entry). */
int feed_sendlog_read(const char *path, struct feed_sendlog_ent **out, size_t *n, char *err, size_t errlen);

/* feed_sendlog_read() again every 100 ms, at most `tries` times, until the log holds msg_seq max_seq (0: any
 * log): the sender writes it only once it has sent everything, after the receiver may have finished. Returns
 * 0, or -1 with *out NULL and the last reason in err ("the send log does not reach the last message received"
 * when the log was read). */
int feed_sendlog_wait(const char *path, uint64_t max_seq, int tries, struct feed_sendlog_ent **out, size_t *n,
		      char *err, size_t errlen);

/* The entry for msg_seq, or NULL. Entries must be in increasing msg_seq
 * order (as written); the usual 1, 2, 3... log is an index lookup. */
const struct feed_sendlog_ent *feed_sendlog_find(const struct feed_sendlog_ent *v, size_t n, uint64_t msg_seq);

struct feed_lat_summary {
	uint64_t n;
	int64_t min, p50, p90, p99, p999, max;
	int64_t mean;
};

/* Value at quantile ppm/1e6 (0..1000000) of sorted[0..n), n >= 1. */
int64_t feed_lat_pct(const int64_t *sorted, size_t n, uint32_t ppm);

/* Sort v[0..n) in place and summarise it (all zero when n == 0). */
void feed_lat_summarize(int64_t *v, size_t n, struct feed_lat_summary *s);

/* One human line: "<name>: n N  min X  p50 X  p90 X  p99 X  p99.9 X  max X us". */
void feed_lat_print(FILE *f, const char *name, const struct feed_lat_summary *s);

/* One JSON object in ns, without newline:
 * {"name":"<name>","unit":"ns","n":..,"min":..,"p50":..,"p90":..,"p99":..,"p999":..,"max":..,"mean":..}
 * (the fields of the RESULT lines of `make bench`). */
void feed_lat_print_json(FILE *f, const char *name, const struct feed_lat_summary *s);

/* Summarise v[0..n) (sorting it), print the human line as `name` on human and "RESULT {json}" as `label` on
 * result, each with its newline. */
void feed_lat_report(int64_t *v, size_t n, FILE *human, const char *name, FILE *result, const char *label);

#endif
