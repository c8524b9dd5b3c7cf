/* dp_record.h - optional recording of raw frames (pcap) and decoded ticks to disk.
 *
 * The data plane never waits for the disk: it copies frames and tick records
 * into fixed chunks (REC_CHUNK_BYTES each) and hands full chunks (or chunks
 * older than REC_FLUSH_NS) over a single-producer single-consumer queue to
 * the control loop, which writes them with io_uring and gives the chunks back
 * over a second queue. When no chunk is free the frame or tick is dropped and
 * counted (frames_dropped / ticks_dropped): recording never slows decoding.
 *
 * Files ([record] pcap and ticks, both live keys):
 *   pcap   classic pcap, nanosecond timestamps (magic 0xa1b23c4d), Ethernet,
 *          each frame as received (caplen = bytes kept, len = wire length)
 *   ticks  a 64-byte header (struct toed_ticks_hdr) then union toe_record
 *          entries of 128 bytes, exactly as published (hdr.seq is 0: ring
 *          sequence numbers are per client)
 * A file is created (or truncated) when recording to it starts. A reload
 * that changes a path opens the new file first; the data plane switches at
 * its next turn and the old file is closed once its last chunk is written.
 *
 * Threads: toed_record_dp_* from the data-plane thread only; the others from
 * the control loop.
 */
#ifndef TOED_RECORD_H
#define TOED_RECORD_H

#include <liburing.h>
#include <stdint.h>

#include "toe/tick.h"

#define REC_CHUNK_BYTES (256u * 1024u)
#define REC_NCHUNKS 64u          /* 16 MB in flight at most */
#define REC_FLUSH_NS 50000000ull /* a partly filled chunk is handed over after 50 ms */
#define REC_MAX_FILES 8

enum { TOED_REC_PCAP = 0, TOED_REC_TICKS = 1, TOED_REC_KINDS = 2 };

#define TOED_TICKS_MAGIC "TOETICKS"
struct toed_ticks_hdr {
	char magic[8];        /* "TOETICKS" */
	uint32_t version;     /* 1 */
	uint32_t record_size; /* TOE_RECORD_SIZE */
	uint32_t abi_version; /* TOE_ABI_VERSION */
	uint32_t reserved;
	uint64_t start_ns;    /* CLOCK_REALTIME when the file was created */
	uint8_t pad[32];
};
_Static_assert(sizeof(struct toed_ticks_hdr) == 64, "ticks header");

struct toed_rec_stats {
	char path[TOED_REC_KINDS][512];
	uint64_t items[TOED_REC_KINDS];   /* frames / ticks recorded */
	uint64_t dropped[TOED_REC_KINDS]; /* frames / ticks dropped: no free chunk */
	uint64_t bytes_written[TOED_REC_KINDS];
	uint64_t write_errors;
	uint32_t chunks_in_flight;
};

struct toed_record;

/* Control loop. */
struct toed_record *toed_record_create(int *err);
void toed_record_destroy(struct toed_record *r);
/* Descriptor the data plane writes when it hands a chunk over (poll it, then
 * call toed_record_kick()). */
int toed_record_kick_fd(const struct toed_record *r);
/* Record to these paths ("" or NULL: off). Opens changed files now; returns 0,
 * or -1 with a message in err for a file that could not be opened (that kind
 * keeps its previous state). */
int toed_record_configure(struct toed_record *r, const char *pcap, const char *ticks, char *err, size_t errlen);
/* Take handed-over chunks and submit their writes (user_data = ud_base | chunk). */
void toed_record_kick(struct toed_record *r, struct io_uring *ring, uint64_t ud_base);
/* A write completion of chunk idx. */
void toed_record_complete(struct toed_record *r, struct io_uring *ring, uint64_t ud_base, uint32_t idx, int res);
/* Writes still in flight (wait for their completions before destroy). */
uint32_t toed_record_in_flight(const struct toed_record *r);
void toed_record_stats(const struct toed_record *r, struct toed_rec_stats *st);

/* Data plane. */
int toed_record_dp_active(const struct toed_record *r); /* anything to record */
void toed_record_dp_frame(struct toed_record *r, const uint8_t *data, uint32_t len, uint32_t wire_len, uint64_t ts_ns);
void toed_record_dp_tick(struct toed_record *r, const union toe_record *rec);
/* Every turn: follows path switches, hands over chunks older than REC_FLUSH_NS. */
void toed_record_dp_poll(struct toed_record *r, uint64_t now_ns);
/* Before the data plane exits: hand over everything. */
void toed_record_dp_finish(struct toed_record *r);

#endif
