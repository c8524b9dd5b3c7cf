/* test_toed_record.c - the recorder: chunks, hand-over queues, io_uring writes, drops, file switches. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "dp/dp_record.h"

#define UD_BASE (6ull << 56)

static struct io_uring ring;

/* Write what was handed over and wait for every write. */
static void flush(struct toed_record *r)
{
	toed_record_kick(r, &ring, UD_BASE);
	io_uring_submit(&ring);
	int guard = 0;
	while (toed_record_in_flight(r) && guard++ < 10000) {
		struct io_uring_cqe *cqe;
		if (io_uring_wait_cqe(&ring, &cqe) < 0)
			break;
		uint64_t ud = io_uring_cqe_get_data64(cqe);
		int res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		CHECK_EQ(ud >> 56, 6u);
		toed_record_complete(r, &ring, UD_BASE, (uint32_t)ud, res);
		io_uring_submit(&ring);
	}
	CHECK_EQ(toed_record_in_flight(r), 0u);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* frame i: length 60 + (i * 37) % 1400, bytes (i + k) & 0xff */
static uint32_t flen(uint32_t i)
{
	return 60 + (i * 37) % 1400;
}

static void make_frame(uint8_t *b, uint32_t i)
{
	for (uint32_t k = 0; k < flen(i); k++)
		b[k] = (uint8_t)(i + k);
}

/* Check a pcap written by the recorder holds frames first..first+n-1 in order. */
static void check_pcap(const char *path, uint32_t first, uint32_t n)
{
	size_t len = 0;
	uint8_t *b = slurp(path, &len), frame[2000];
	CHECK(b != NULL);
	if (!b)
		return;
	CHECK(len >= 24);
	CHECK_EQ(rd32(b), 0xa1b23c4du); /* nanosecond pcap */
	CHECK_EQ(rd32(b + 20), 1u);      /* Ethernet */
	size_t off = 24;
	for (uint32_t i = first; i < first + n; i++) {
		CHECK(off + 16 <= len);
		if (off + 16 > len)
			break;
		uint64_t ts = 1700000000ull * 1000000000ull + i * 1000ull;
		CHECK_EQ(rd32(b + off), (uint32_t)(ts / 1000000000ull));
		CHECK_EQ(rd32(b + off + 4), (uint32_t)(ts % 1000000000ull));
		CHECK_EQ(rd32(b + off + 8), flen(i));
		CHECK_EQ(rd32(b + off + 12), flen(i) + 4); /* wire length given as len + 4 */
		make_frame(frame, i);
		CHECK(off + 16 + flen(i) <= len);
		if (off + 16 + flen(i) > len)
			break;
		CHECK_MEM(b + off + 16, frame, flen(i));
		off += 16 + flen(i);
	}
	CHECK_EQ(off, len);
	free(b);
}

int main(void)
{
	char dir[] = "/tmp/test_toed_record.XXXXXX", p1[128], p2[128], t1[128], err[256];
	int e;
	uint8_t frame[70000];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(p1, sizeof p1, "%s/a.pcap", dir);
	snprintf(p2, sizeof p2, "%s/b.pcap", dir);
	snprintf(t1, sizeof t1, "%s/t.ticks", dir);
	if (io_uring_queue_init(64, &ring, 0) < 0)
		return test_skip("toed_record", "io_uring not available");

	/* ---- frames and ticks, everything written, in order */
	struct toed_record *r = toed_record_create(&e);
	CHECK(r != NULL);
	CHECK_EQ(toed_record_dp_active(r), 0);
	CHECK_EQ(toed_record_configure(r, p1, t1, err, sizeof err), 0);
	CHECK(toed_record_dp_active(r));
	for (uint32_t i = 0; i < 1000; i++) {
		make_frame(frame, i);
		toed_record_dp_frame(r, frame, flen(i), flen(i) + 4, 1700000000ull * 1000000000ull + i * 1000ull);
		if (i % 100 == 99)
			toed_record_kick(r, &ring, UD_BASE); /* the loop takes chunks while the data plane goes on */
	}
	union toe_record rec;
	for (uint32_t i = 0; i < 3000; i++) {
		memset(&rec, 0, sizeof rec);
		rec.hdr.type = TOE_REC_TRADE;
		rec.hdr.msg_seq = i;
		rec.trade.trade_index = (int32_t)i;
		toed_record_dp_tick(r, &rec);
	}
	toed_record_dp_finish(r);
	flush(r);
	struct toed_rec_stats st;
	toed_record_stats(r, &st);
	CHECK_EQ(st.items[TOED_REC_PCAP], 1000u);
	CHECK_EQ(st.items[TOED_REC_TICKS], 3000u);
	CHECK_EQ(st.dropped[TOED_REC_PCAP], 0u);
	CHECK_EQ(st.write_errors, 0u);
	CHECK_EQ(st.bytes_written[TOED_REC_TICKS], 3000u * 128u);
	toed_record_destroy(r);
	check_pcap(p1, 0, 1000);
	size_t len = 0;
	uint8_t *tb = slurp(t1, &len);
	CHECK(tb != NULL);
	CHECK_EQ(len, 64u + 3000u * 128u);
	if (tb && len == 64u + 3000u * 128u) {
		CHECK_MEM(tb, "TOETICKS", 8);
		CHECK_EQ(rd32(tb + 8), 1u);
		CHECK_EQ(rd32(tb + 12), 128u);
		for (uint32_t i = 0; i < 3000; i++) {
			memcpy(&rec, tb + 64 + (size_t)i * 128, 128);
			CHECK_EQ(rec.hdr.msg_seq, i);
			CHECK_EQ(rec.trade.trade_index, (int32_t)i);
		}
	}
	free(tb);

	/* ---- the disk does not keep up: drops, never a wait. 60000-byte frames:
	 * 4 fit a 256 KB chunk (4 x 60016 = 240064; a fifth does not), so the 64
	 * chunks hold 256 frames and the other 44 of 300 are dropped. */
	r = toed_record_create(&e);
	CHECK_EQ(toed_record_configure(r, p1, NULL, err, sizeof err), 0);
	memset(frame, 0x5a, 60000);
	for (uint32_t i = 0; i < 300; i++)
		toed_record_dp_frame(r, frame, 60000, 60000, 1000000000ull * i);
	toed_record_stats(r, &st);
	CHECK_EQ(st.items[TOED_REC_PCAP], 256u);
	CHECK_EQ(st.dropped[TOED_REC_PCAP], 44u);
	toed_record_dp_finish(r);
	flush(r);
	toed_record_stats(r, &st);
	CHECK_EQ(st.bytes_written[TOED_REC_PCAP], 256u * 60016u);
	toed_record_destroy(r);
	struct stat sb;
	CHECK_EQ(stat(p1, &sb), 0);
	CHECK_EQ((uint64_t)sb.st_size, 24u + 256u * 60016u);

	/* ---- a path change: the old file is finished and closed, the new one continues */
	r = toed_record_create(&e);
	CHECK_EQ(toed_record_configure(r, p1, NULL, err, sizeof err), 0);
	for (uint32_t i = 0; i < 10; i++) {
		make_frame(frame, i);
		toed_record_dp_frame(r, frame, flen(i), flen(i) + 4, 1700000000ull * 1000000000ull + i * 1000ull);
	}
	CHECK_EQ(toed_record_configure(r, p2, NULL, err, sizeof err), 0);
	toed_record_stats(r, &st);
	CHECK(!strcmp(st.path[TOED_REC_PCAP], p2));
	for (uint32_t i = 10; i < 25; i++) {
		make_frame(frame, i);
		toed_record_dp_frame(r, frame, flen(i), flen(i) + 4, 1700000000ull * 1000000000ull + i * 1000ull);
	}
	toed_record_dp_poll(r, 0);
	flush(r);
	check_pcap(p1, 0, 10); /* complete before the recorder is gone: it was closed */
	toed_record_dp_finish(r);
	flush(r);
	toed_record_destroy(r);
	check_pcap(p2, 10, 15);

	/* ---- a file that cannot be opened: an error naming it, recording stays off */
	r = toed_record_create(&e);
	char bad[160];
	snprintf(bad, sizeof bad, "%s/no/such/dir.pcap", dir);
	CHECK_EQ(toed_record_configure(r, bad, NULL, err, sizeof err), -1);
	CHECK(strstr(err, bad) != NULL);
	CHECK_EQ(toed_record_dp_active(r), 0);
	toed_record_destroy(r);

	/* ---- a FIFO in the file's place: refused at once, never a blocking open (the control plane
	 * calls this); alarm: without O_NONBLOCK the open waits for a reader forever */
	char fifo[160];
	snprintf(fifo, sizeof fifo, "%s/fifo.pcap", dir);
	CHECK_EQ(mkfifo(fifo, 0600), 0);
	r = toed_record_create(&e);
	alarm(10);
	CHECK_EQ(toed_record_configure(r, fifo, NULL, err, sizeof err), -1);
	alarm(0);
	CHECK(strstr(err, fifo) != NULL);
	CHECK_EQ(toed_record_dp_active(r), 0);
	toed_record_destroy(r);
	unlink(fifo);

	io_uring_queue_exit(&ring);
	unlink(p1);
	unlink(p2);
	unlink(t1);
	rmdir(dir);
	return test_done("toed_record");
}
