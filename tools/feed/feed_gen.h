/* feed_gen.h - a deterministic STEP feed and its ground truth (host only).
 *
 * Wraps what every feed producer needs around sse_stream (sse_gen.h): compile
 * the template file, generate only the record kinds it has templates for,
 * encode message after message into one scratch buffer, and print the truth
 * of a message exactly as toe-fastdump --framing step prints the decoded
 * records (fast_json_record with the "msg_seq" extra), so a decode of what
 * was sent compares byte for byte. Used by toe-feedsim and toe-fastgen;
 * toe-fastdump prints its records with feed_json_line().
 */
#ifndef FEED_GEN_H
#define FEED_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "fast/host/fast_compile.h"
#include "feed/sse_gen.h"

#define FEED_MAX_PER_MSG 1000

struct feed_src {
	struct fast_prog prog;
	struct fast_names names;
	struct sse_stream stream;
	uint32_t per_msg;
	struct fast_rec *recs;    /* [per_msg]: value layouts of the last message */
	union toe_record *ticks;  /* [per_msg]: tick records of the last message */
	uint32_t nrecs;           /* records in the last message */
	uint64_t seq;             /* its MsgSeqNum */
	uint8_t *msg;             /* the last message */
	size_t cap;               /* room in msg */
	int len;                  /* its length */
};

/* Compile `templates` and set up the feed (cfg as for sse_stream_init; its
 * order_pct is overridden when the file has templates for only one kind).
 * Returns a new feed, or NULL with a message in err. */
struct feed_src *feed_src_new(const char *templates, const struct sse_gen_cfg *cfg, uint32_t per_msg,
			      char *err, size_t errlen);
void feed_src_free(struct feed_src *s);

/* Encode the next message of 1..min(per_msg, max_records) records into
 * s->msg (s->len bytes, s->nrecs records, MsgSeqNum s->seq). Returns the
 * length, or -1 (encoding error). */
int feed_src_next(struct feed_src *s, uint32_t max_records);

/* One decoded record as one JSON line, as toe-fastdump --framing step prints it. */
void feed_json_line(FILE *f, const struct fast_prog *p, const struct fast_names *names, const struct fast_rec *r,
		    uint64_t msg_seq);

/* The truth of the last message: feed_json_line() for each of its records. */
void feed_src_truth(const struct feed_src *s, FILE *f);

/* The generator's options toe-fastgen, toe-feedsim and toe-verify share, by their getopt letters: -s/--seed,
 * -k/--per-msg (into *per_msg), -S/--securities, -c/--channels, -p/--order-pct. Returns 1 when opt is one
 * of them (*bad: NULL, or what is wrong with arg: the tool prints "TOOL: BAD, not 'ARG'"), 0 when not. */
int feed_gen_opt(int opt, const char *arg, struct sse_gen_cfg *cfg, uint64_t *per_msg, const char **bad);

#endif
