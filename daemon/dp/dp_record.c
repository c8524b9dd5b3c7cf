/* dp_record.c - frames and ticks to disk through io_uring, off the data plane (see dp_record.h). */
#include "dp/dp_record.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

#define QCAP REC_NCHUNKS /* every chunk fits in either queue */

/* Single producer, single consumer queue of chunk numbers. */
struct spsc {
	uint32_t head; /* written by the producer */
	uint8_t pad0[60];
	uint32_t tail; /* written by the consumer */
	uint8_t pad1[60];
	uint32_t slot[QCAP];
};

static int spsc_push(struct spsc *q, uint32_t v)
{
	uint32_t h = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
	uint32_t t = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
	if (h - t >= QCAP)
		return -1;
	q->slot[h % QCAP] = v;
	__atomic_store_n(&q->head, h + 1, __ATOMIC_RELEASE);
	return 0;
}

static int spsc_pop(struct spsc *q, uint32_t *v)
{
	uint32_t t = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
	uint32_t h = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
	if (h == t)
		return -1;
	*v = q->slot[t % QCAP];
	__atomic_store_n(&q->tail, t + 1, __ATOMIC_RELEASE);
	return 0;
}

struct rec_chunk {
	uint8_t *buf;
	/* set by the data plane before the hand-over */
	uint32_t len;
	uint32_t kind;
	uint32_t gen;
	uint64_t t0_ns;    /* when the first byte went in */
	/* control loop */
	int file;          /* index in files[] while being written */
	uint32_t written;
	uint64_t foff;
};

struct rec_file {
	int fd;            /* -1: slot unused */
	uint32_t kind;
	uint32_t gen;
	uint32_t inflight; /* writes submitted and not completed */
	int retired;       /* no longer the current file of its kind */
	int switched;      /* the data plane has moved past it and its chunks were taken */
	uint64_t off;
	char path[512];
};

struct toed_record {
	struct rec_chunk chunk[REC_NCHUNKS];
	struct spsc free_q; /* control -> data plane */
	struct spsc full_q; /* data plane -> control */
	int kick_fd;
	uint32_t want_gen[TOED_REC_KINDS]; /* atomic: the file data goes to (0: off); control writes */
	uint32_t dp_gen[TOED_REC_KINDS];   /* atomic: the file the data plane writes now; data plane writes */
	/* data plane */
	int cur[TOED_REC_KINDS];
	uint64_t items[TOED_REC_KINDS];   /* atomic stores */
	uint64_t dropped[TOED_REC_KINDS]; /* atomic stores */
	/* control loop */
	int allocated;
	uint32_t next_gen;
	int cur_file[TOED_REC_KINDS];
	struct rec_file files[REC_MAX_FILES];
	uint32_t in_flight;
	uint64_t bytes_written[TOED_REC_KINDS];
	uint64_t write_errors;
};

/* ---- control loop ------------------------------------------------------------- */

struct toed_record *toed_record_create(int *err)
{
	struct toed_record *r = calloc(1, sizeof *r);
	if (!r) {
		*err = -ENOMEM;
		return NULL;
	}
	r->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->kick_fd < 0) {
		*err = -errno;
		free(r);
		return NULL;
	}
	for (uint32_t i = 0; i < REC_NCHUNKS; i++) {
		r->chunk[i].file = -1;
		spsc_push(&r->free_q, i);
	}
	for (int k = 0; k < TOED_REC_KINDS; k++) {
		r->cur[k] = -1;
		r->cur_file[k] = -1;
	}
	for (int i = 0; i < REC_MAX_FILES; i++)
		r->files[i].fd = -1;
	*err = 0;
	return r;
}

void toed_record_destroy(struct toed_record *r)
{
	if (!r)
		return;
	for (int i = 0; i < REC_MAX_FILES; i++)
		if (r->files[i].fd >= 0)
			close(r->files[i].fd);
	for (uint32_t i = 0; i < REC_NCHUNKS; i++)
		free(r->chunk[i].buf);
	close(r->kick_fd);
	free(r);
}

int toed_record_kick_fd(const struct toed_record *r)
{
	return r->kick_fd;
}

static int write_header(int fd, uint32_t kind, uint64_t *off)
{
	union {
		uint32_t pcap[6];
		struct toed_ticks_hdr ticks;
	} h;
	size_t n;
	memset(&h, 0, sizeof h);
	if (kind == TOED_REC_PCAP) {
		h.pcap[0] = 0xa1b23c4du; /* nanosecond timestamps */
		h.pcap[1] = 2u | (4u << 16); /* version 2.4 */
		h.pcap[4] = 262144;      /* snaplen */
		h.pcap[5] = 1;           /* LINKTYPE_ETHERNET */
		n = 24;
	} else {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(h.ticks.magic, TOED_TICKS_MAGIC, 8);
		h.ticks.version = 1;
		h.ticks.record_size = TOE_RECORD_SIZE;
		h.ticks.abi_version = TOE_ABI_VERSION;
		h.ticks.start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		n = sizeof h.ticks;
	}
	/* a few bytes once, from the control thread: a plain write is fine here */
	if (pwrite(fd, &h, n, 0) != (ssize_t)n)
		return -1;
	*off = n;
	return 0;
}

static void maybe_close(struct toed_record *r, int i)
{
	struct rec_file *f = &r->files[i];
	if (f->fd < 0 || !f->retired || !f->switched || f->inflight)
		return;
	if (close(f->fd) < 0)
		log_warn("record: closing %s: %s", f->path, strerror(errno));
	else
		log_info("record: %s closed", f->path);
	f->fd = -1;
}

int toed_record_configure(struct toed_record *r, const char *pcap, const char *ticks, char *err, size_t errlen)
{
	const char *want[TOED_REC_KINDS] = {pcap ? pcap : "", ticks ? ticks : ""};
	static const char *const kname[TOED_REC_KINDS] = {"pcap", "ticks"};
	int rc = 0;
	if (err && errlen)
		err[0] = 0;
	for (int k = 0; k < TOED_REC_KINDS; k++) {
		int cf = r->cur_file[k];
		const char *now = cf >= 0 ? r->files[cf].path : "";
		if (!strcmp(now, want[k]))
			continue;
		int slot = -1;
		if (want[k][0]) {
			for (int i = 0; i < REC_MAX_FILES; i++)
				if (r->files[i].fd < 0) {
					slot = i;
					break;
				}
			if (slot < 0) {
				snprintf(err, errlen, "[record] %s = %s: too many files still being written", kname[k],
					 want[k]);
				rc = -1;
				continue;
			}
			if (!r->allocated) {
				for (uint32_t i = 0; i < REC_NCHUNKS; i++) {
					r->chunk[i].buf = malloc(REC_CHUNK_BYTES);
					if (!r->chunk[i].buf) {
						snprintf(err, errlen, "record: out of memory for the chunks");
						return -1;
					}
				}
				r->allocated = 1;
			}
			/* O_NONBLOCK: a FIFO put in the file's place since the configuration was checked must not
			 * block the control plane (no reader: ENXIO; a reader: refused below as not regular) */
			int fd = open(want[k], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0640);
			struct rec_file *f = &r->files[slot];
			struct stat st;
			if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
				snprintf(err, errlen, "[record] %s = %s: not a regular file", kname[k], want[k]);
				close(fd);
				rc = -1;
				continue;
			}
			if (fd < 0 || write_header(fd, (uint32_t)k, &f->off) < 0) {
				snprintf(err, errlen, "[record] %s = %s: %s", kname[k], want[k], strerror(errno));
				if (fd >= 0)
					close(fd);
				rc = -1;
				continue;
			}
			f->fd = fd;
			f->kind = (uint32_t)k;
			f->gen = ++r->next_gen;
			f->inflight = 0;
			f->retired = 0;
			f->switched = 0;
			snprintf(f->path, sizeof f->path, "%s", want[k]);
			log_info("record: %s to %s", k == TOED_REC_PCAP ? "frames" : "ticks", f->path);
		}
		if (cf >= 0)
			r->files[cf].retired = 1;
		r->cur_file[k] = slot;
		__atomic_store_n(&r->want_gen[k], slot >= 0 ? r->files[slot].gen : 0u, __ATOMIC_RELEASE);
	}
	return rc;
}

static int file_of_gen(const struct toed_record *r, uint32_t gen)
{
	for (int i = 0; i < REC_MAX_FILES; i++)
		if (r->files[i].fd >= 0 && r->files[i].gen == gen)
			return i;
	return -1;
}

static int submit(struct toed_record *r, struct io_uring *ring, uint64_t ud_base, uint32_t idx)
{
	struct rec_chunk *c = &r->chunk[idx];
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	if (!sqe) {
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
		if (!sqe)
			return -1;
	}
	io_uring_prep_write(sqe, r->files[c->file].fd, c->buf + c->written, c->len - c->written, c->foff + c->written);
	io_uring_sqe_set_data64(sqe, ud_base | idx);
	return 0;
}

static void chunk_done(struct toed_record *r, uint32_t idx)
{
	struct rec_chunk *c = &r->chunk[idx];
	int fi = c->file;
	c->file = -1;
	c->len = 0;
	c->written = 0;
	spsc_push(&r->free_q, idx);
	if (fi >= 0) {
		r->files[fi].inflight--;
		r->in_flight--;
		maybe_close(r, fi);
	}
}

void toed_record_kick(struct toed_record *r, struct io_uring *ring, uint64_t ud_base)
{
	uint64_t v;
	uint32_t dpg[TOED_REC_KINDS], idx;
	while (read(r->kick_fd, &v, sizeof v) > 0)
		;
	/* read before draining: every chunk of a file the data plane has left is in the queue now */
	for (int k = 0; k < TOED_REC_KINDS; k++)
		dpg[k] = __atomic_load_n(&r->dp_gen[k], __ATOMIC_ACQUIRE);
	while (spsc_pop(&r->full_q, &idx) == 0) {
		struct rec_chunk *c = &r->chunk[idx];
		int fi = file_of_gen(r, c->gen);
		if (fi < 0 || c->len == 0) {
			chunk_done(r, idx);
			continue;
		}
		c->file = fi;
		c->written = 0;
		c->foff = r->files[fi].off;
		r->files[fi].off += c->len;
		r->files[fi].inflight++;
		r->in_flight++;
		if (submit(r, ring, ud_base, idx) < 0) {
			r->write_errors++;
			chunk_done(r, idx);
		}
	}
	for (int i = 0; i < REC_MAX_FILES; i++) {
		struct rec_file *f = &r->files[i];
		if (f->fd >= 0 && f->retired && dpg[f->kind] != f->gen)
			f->switched = 1;
		maybe_close(r, i);
	}
}

void toed_record_complete(struct toed_record *r, struct io_uring *ring, uint64_t ud_base, uint32_t idx, int res)
{
	if (idx >= REC_NCHUNKS)
		return;
	struct rec_chunk *c = &r->chunk[idx];
	if (c->file < 0)
		return;
	if (res < 0) {
		if (r->write_errors++ == 0)
			log_err("record: writing %s: %s (later errors are only counted)", r->files[c->file].path,
				strerror(-res));
		chunk_done(r, idx);
		return;
	}
	if (res == 0) { /* no space, or a file that cannot grow: do not spin */
		if (r->write_errors++ == 0)
			log_err("record: writing %s: nothing written (disk full?)", r->files[c->file].path);
		chunk_done(r, idx);
		return;
	}
	c->written += (uint32_t)res;
	r->bytes_written[r->files[c->file].kind] += (uint64_t)res;
	if (c->written < c->len && submit(r, ring, ud_base, idx) == 0)
		return;
	chunk_done(r, idx);
}

uint32_t toed_record_in_flight(const struct toed_record *r)
{
	return r->in_flight;
}

void toed_record_stats(const struct toed_record *r, struct toed_rec_stats *st)
{
	memset(st, 0, sizeof *st);
	for (int k = 0; k < TOED_REC_KINDS; k++) {
		int cf = r->cur_file[k];
		snprintf(st->path[k], sizeof st->path[k], "%s", cf >= 0 ? r->files[cf].path : "");
		st->items[k] = __atomic_load_n(&r->items[k], __ATOMIC_RELAXED);
		st->dropped[k] = __atomic_load_n(&r->dropped[k], __ATOMIC_RELAXED);
		st->bytes_written[k] = r->bytes_written[k];
	}
	st->write_errors = r->write_errors;
	st->chunks_in_flight = r->in_flight;
}

/* ---- data plane ----------------------------------------------------------------- */

static uint64_t now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hand_over(struct toed_record *r, int kind)
{
	uint64_t one = 1;
	int idx = r->cur[kind];
	if (idx < 0)
		return;
	r->cur[kind] = -1;
	spsc_push(&r->full_q, (uint32_t)idx); /* cannot fail: the queue holds every chunk */
	if (write(r->kick_fd, &one, sizeof one) < 0) {
		/* the counter is saturated or the loop is gone: the timer drains the queue anyway */
	}
}

/* Follow a path change made by the control loop. */
static void dp_switch(struct toed_record *r, int kind)
{
	uint32_t want = __atomic_load_n(&r->want_gen[kind], __ATOMIC_ACQUIRE);
	if (want == __atomic_load_n(&r->dp_gen[kind], __ATOMIC_RELAXED))
		return;
	hand_over(r, kind);
	__atomic_store_n(&r->dp_gen[kind], want, __ATOMIC_RELEASE);
}

int toed_record_dp_active(const struct toed_record *r)
{
	return __atomic_load_n(&r->want_gen[0], __ATOMIC_RELAXED) || __atomic_load_n(&r->want_gen[1], __ATOMIC_RELAXED) ||
	       __atomic_load_n(&r->dp_gen[0], __ATOMIC_RELAXED) || __atomic_load_n(&r->dp_gen[1], __ATOMIC_RELAXED);
}

/* Room for n bytes in the current chunk of kind; NULL (and a drop counted) if none. */
static uint8_t *reserve(struct toed_record *r, int kind, uint32_t n)
{
	struct rec_chunk *c;
	uint32_t idx;
	dp_switch(r, kind);
	uint32_t gen = __atomic_load_n(&r->dp_gen[kind], __ATOMIC_RELAXED);
	if (!gen || n > REC_CHUNK_BYTES)
		return NULL;
	if (r->cur[kind] >= 0 && r->chunk[r->cur[kind]].len + n > REC_CHUNK_BYTES)
		hand_over(r, kind);
	if (r->cur[kind] < 0) {
		if (spsc_pop(&r->free_q, &idx) < 0) {
			__atomic_store_n(&r->dropped[kind], r->dropped[kind] + 1, __ATOMIC_RELAXED);
			return NULL;
		}
		c = &r->chunk[idx];
		c->len = 0;
		c->kind = (uint32_t)kind;
		c->gen = gen;
		c->t0_ns = now_mono();
		r->cur[kind] = (int)idx;
	}
	c = &r->chunk[r->cur[kind]];
	uint8_t *p = c->buf + c->len;
	c->len += n;
	__atomic_store_n(&r->items[kind], r->items[kind] + 1, __ATOMIC_RELAXED);
	return p;
}

void toed_record_dp_frame(struct toed_record *r, const uint8_t *data, uint32_t len, uint32_t wire_len, uint64_t ts_ns)
{
	uint8_t *p = reserve(r, TOED_REC_PCAP, 16 + len);
	if (!p)
		return;
	uint32_t h[4] = {(uint32_t)(ts_ns / 1000000000ull), (uint32_t)(ts_ns % 1000000000ull), len,
			 wire_len > len ? wire_len : len};
	memcpy(p, h, sizeof h);
	memcpy(p + 16, data, len);
}

void toed_record_dp_tick(struct toed_record *r, const union toe_record *rec)
{
	uint8_t *p = reserve(r, TOED_REC_TICKS, TOE_RECORD_SIZE);
	if (p)
		memcpy(p, rec, TOE_RECORD_SIZE);
}

void toed_record_dp_poll(struct toed_record *r, uint64_t now_ns)
{
	for (int k = 0; k < TOED_REC_KINDS; k++) {
		dp_switch(r, k);
		int idx = r->cur[k];
		if (idx >= 0 && now_ns - r->chunk[idx].t0_ns >= REC_FLUSH_NS)
			hand_over(r, k);
	}
}

void toed_record_dp_finish(struct toed_record *r)
{
	for (int k = 0; k < TOED_REC_KINDS; k++) {
		hand_over(r, k);
		__atomic_store_n(&r->dp_gen[k], 0u, __ATOMIC_RELEASE);
	}
}
