/* test_feedsim_lat.c - the feed tools' shared helpers: latency percentiles,
 * the send log format (feed_lat.c), address/number parsing and the pacing
 * schedule (feed_net.c).
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "feed/feed_lat.h"
#include "feed/feed_net.h"

static void test_percentiles(void)
{
	/* 1..1000 in a scrambled order: the value at index floor(999 q) of the
	 * sorted list is that index + 1 */
	int64_t v[1000];
	for (int i = 0; i < 1000; i++)
		v[i] = (int64_t)((i * 617 + 33) % 1000) + 1; /* 617 is prime to 1000: a permutation */
	struct feed_lat_summary s;
	feed_lat_summarize(v, 1000, &s);
	CHECK_EQ(s.n, 1000);
	CHECK_EQ(s.min, 1);
	CHECK_EQ(s.max, 1000);
	CHECK_EQ(s.p50, 500);  /* index 499 */
	CHECK_EQ(s.p90, 900);  /* index floor(899.1) */
	CHECK_EQ(s.p99, 990);  /* index floor(989.01) */
	CHECK_EQ(s.p999, 999); /* index floor(998.001) */
	CHECK_EQ(s.mean, 500); /* 500.5 truncated */
	for (int i = 1; i < 1000; i++)
		CHECK(v[i - 1] < v[i]); /* sorted in place */
	CHECK_EQ(feed_lat_pct(v, 1000, 0), 1);
	CHECK_EQ(feed_lat_pct(v, 1000, 1000000), 1000);
	CHECK_EQ(feed_lat_pct(v, 1000, 2000000), 1000); /* clamped */

	/* one sample: every figure is that sample */
	int64_t one = 42;
	feed_lat_summarize(&one, 1, &s);
	CHECK(s.n == 1 && s.min == 42 && s.p50 == 42 && s.p999 == 42 && s.max == 42 && s.mean == 42);

	/* none: all zero */
	feed_lat_summarize(NULL, 0, &s);
	CHECK(s.n == 0 && s.min == 0 && s.max == 0 && s.mean == 0);

	/* negative latencies (a clock step) are kept, not wrapped */
	int64_t neg[2] = {3, -5};
	feed_lat_summarize(neg, 2, &s);
	CHECK_EQ(s.min, -5);
	CHECK_EQ(s.p50, -5); /* index floor(0.5) = 0 */
	CHECK_EQ(s.max, 3);
	CHECK_EQ(s.mean, -1);

	/* the mean does not overflow */
	int64_t big[2] = {INT64_MAX, INT64_MAX - 2};
	feed_lat_summarize(big, 2, &s);
	CHECK(s.mean == INT64_MAX - 1);

	/* the printed forms */
	int64_t w[3] = {1500, 2000, 123456789};
	feed_lat_summarize(w, 3, &s);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	feed_lat_print_json(f, "x", &s);
	fclose(f);
	CHECK(strcmp(buf, "{\"name\":\"x\",\"unit\":\"ns\",\"n\":3,\"min\":1500,\"p50\":2000,\"p90\":2000,"
			  "\"p99\":2000,\"p999\":2000,\"max\":123456789,\"mean\":41153429}") == 0);
	free(buf);
	f = open_memstream(&buf, &len);
	feed_lat_print(f, "y", &s);
	fclose(f);
	CHECK(strcmp(buf, "y: n 3  min 1.5  p50 2.0  p90 2.0  p99 2.0  p99.9 2.0  max 123456.7  mean 41153.4 us\n") ==
	      0);
	free(buf);

	/* both lines at once, to two streams, from unsorted samples */
	int64_t u[3] = {123456789, 1500, 2000};
	char *rbuf = NULL;
	size_t rlen = 0;
	f = open_memstream(&buf, &len);
	FILE *r = open_memstream(&rbuf, &rlen);
	feed_lat_report(u, 3, f, "y", r, "x");
	fclose(f);
	fclose(r);
	CHECK(strcmp(buf, "y: n 3  min 1.5  p50 2.0  p90 2.0  p99 2.0  p99.9 2.0  max 123456.7  mean 41153.4 us\n") ==
	      0);
	CHECK(strcmp(rbuf, "RESULT {\"name\":\"x\",\"unit\":\"ns\",\"n\":3,\"min\":1500,\"p50\":2000,\"p90\":2000,"
			   "\"p99\":2000,\"p999\":2000,\"max\":123456789,\"mean\":41153429}\n") == 0);
	free(buf);
	free(rbuf);
}

static void test_sendlog(void)
{
	char path[] = "/tmp/test_feedsim_lat.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	struct feed_sendlog_ent e[3] = {
		{0x0102030405060708ull, 0x1112131415161718ull, 0x2122232425262728ull, 0x31323334u, 0x41424344u},
		{2, 1000, 5, 3, 200},
		{3, 2000, 8, 1, 90},
	};
	FILE *f = fopen(path, "wb");
	CHECK_EQ(feed_sendlog_write(f, e, 3), 0);
	fclose(f);

	/* the documented layout: magic, then 32-byte little-endian entries */
	uint8_t raw[200];
	f = fopen(path, "rb");
	size_t n = fread(raw, 1, sizeof raw, f);
	fclose(f);
	CHECK_EQ(n, 8 + 3 * 32);
	CHECK_MEM(raw, "TOESLOG1", 8);
	static const uint8_t ent0[32] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,
		0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21, 0x34, 0x33, 0x32, 0x31, 0x44, 0x43, 0x42, 0x41,
	};
	CHECK_MEM(raw + 8, ent0, 32);

	struct feed_sendlog_ent *r = NULL;
	size_t nr = 0;
	char err[256];
	CHECK_EQ(feed_sendlog_read(path, &r, &nr, err, sizeof err), 0);
	CHECK_EQ(nr, 3);
	if (nr == 3) {
		CHECK(r[0].msg_seq == e[0].msg_seq && r[0].send_ns == e[0].send_ns && r[0].first_biz == e[0].first_biz &&
		      r[0].nrecords == e[0].nrecords && r[0].len == e[0].len);
		CHECK(r[2].msg_seq == 3 && r[2].send_ns == 2000 && r[2].first_biz == 8 && r[2].nrecords == 1 &&
		      r[2].len == 90);
	}
	free(r);

	/* a partial entry at the end is refused */
	f = fopen(path, "wb");
	fwrite(raw, 1, 8 + 32 + 5, f);
	fclose(f);
	CHECK_EQ(feed_sendlog_read(path, &r, &nr, err, sizeof err), -1);
	CHECK(strstr(err, "partial") != NULL);
	/* so is another file */
	f = fopen(path, "wb");
	fwrite("TOESLOG2", 1, 8, f);
	fclose(f);
	CHECK_EQ(feed_sendlog_read(path, &r, &nr, err, sizeof err), -1);
	/* an empty log (magic only) is fine */
	f = fopen(path, "wb");
	CHECK_EQ(feed_sendlog_write(f, NULL, 0), 0);
	fclose(f);
	CHECK_EQ(feed_sendlog_read(path, &r, &nr, err, sizeof err), 0);
	CHECK_EQ(nr, 0);
	free(r);

	/* waiting for the log to reach a message: at once when it does, else the last reason after the tries */
	f = fopen(path, "wb");
	CHECK_EQ(feed_sendlog_write(f, e + 1, 2), 0);
	fclose(f);
	CHECK_EQ(feed_sendlog_wait(path, 3, 1, &r, &nr, err, sizeof err), 0);
	CHECK_EQ(nr, 2);
	free(r);
	CHECK_EQ(feed_sendlog_wait(path, 0, 1, &r, &nr, err, sizeof err), 0);
	free(r);
	CHECK_EQ(feed_sendlog_wait(path, 4, 2, &r, &nr, err, sizeof err), -1); /* two reads, 100 ms apart */
	CHECK(r == NULL && nr == 0);
	CHECK(strcmp(err, "the send log does not reach the last message received") == 0);

	unlink(path);
	CHECK_EQ(feed_sendlog_read(path, &r, &nr, err, sizeof err), -1);
	CHECK_EQ(feed_sendlog_wait(path, 0, 1, &r, &nr, err, sizeof err), -1);
	CHECK(r == NULL && strstr(err, path) != NULL);
}

static void test_find(void)
{
	struct feed_sendlog_ent v[100];
	memset(v, 0, sizeof v);
	for (int i = 0; i < 100; i++)
		v[i].msg_seq = (uint64_t)i + 1;
	CHECK(feed_sendlog_find(v, 100, 1) == &v[0]);
	CHECK(feed_sendlog_find(v, 100, 100) == &v[99]);
	CHECK(feed_sendlog_find(v, 100, 0) == NULL);
	CHECK(feed_sendlog_find(v, 100, 101) == NULL);
	CHECK(feed_sendlog_find(v, 0, 1) == NULL);
	/* not contiguous: even numbers 2..200 */
	for (int i = 0; i < 100; i++)
		v[i].msg_seq = 2 * ((uint64_t)i + 1);
	CHECK(feed_sendlog_find(v, 100, 2) == &v[0]);
	CHECK(feed_sendlog_find(v, 100, 64) == &v[31]);
	CHECK(feed_sendlog_find(v, 100, 200) == &v[99]);
	CHECK(feed_sendlog_find(v, 100, 63) == NULL);
	CHECK(feed_sendlog_find(v, 100, 201) == NULL);
	CHECK(feed_sendlog_find(v, 100, 1) == NULL);
}

static void test_parse(void)
{
	struct sockaddr_in sa;
	CHECK_EQ(feed_parse_addr("10.1.2.3:9000", &sa), 0);
	CHECK_EQ(sa.sin_family, AF_INET);
	CHECK_EQ(ntohs(sa.sin_port), 9000);
	CHECK_EQ(ntohl(sa.sin_addr.s_addr), 0x0a010203);
	CHECK_EQ(feed_parse_addr("127.0.0.1:65535", &sa), 0);
	CHECK_EQ(ntohs(sa.sin_port), 65535);
	static const char *bad[] = {"10.1.2.3", "10.1.2.3:", "10.1.2.3:0", "10.1.2.3:65536", ":80", "host:80",
				    "10.1.2.3:80x", "10.1.2.3:-1", "1.2.3.4.5:80", "10.1.2.3:080", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int r = feed_parse_addr(bad[i], &sa);
		CHECK_EQ(r, -1);
		if (r != -1)
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
	}
	uint64_t v = 0;
	CHECK_EQ(feed_parse_u64("50000", 1, 100000, &v), 0);
	CHECK_EQ(v, 50000);
	CHECK_EQ(feed_parse_u64("0x10", 0, 100, &v), 0);
	CHECK_EQ(v, 16);
	CHECK_EQ(feed_parse_u64("0", 1, 10, &v), -1);
	CHECK_EQ(feed_parse_u64("11", 1, 10, &v), -1);
	CHECK_EQ(feed_parse_u64("-1", 0, UINT64_MAX, &v), -1);
	CHECK_EQ(feed_parse_u64("", 0, 10, &v), -1);
	CHECK_EQ(feed_parse_u64("5k", 0, 10, &v), -1);
	CHECK_EQ(feed_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -1);
}

static void test_pacing(void)
{
	CHECK(feed_pace_offset_ns(0, 50000) == 0);
	CHECK(feed_pace_offset_ns(50000, 50000) == 1000000000ull);
	CHECK(feed_pace_offset_ns(1, 50000) == 20000ull);      /* 20 us per record */
	CHECK(feed_pace_offset_ns(1, 3) == 333333333ull);      /* floor(1e9 / 3) */
	CHECK(feed_pace_offset_ns(7, 3) == 2333333333ull);     /* floor(7e9 / 3) */
	CHECK(feed_pace_offset_ns(1000000000000ull, 1000000000ull) == 1000000000000ull);
	CHECK(feed_pace_offset_ns(999999999ull, 1000000000ull) == 999999999ull);
	CHECK(feed_pace_offset_ns(3000000000ull, 1) == 3000000000000000000ull); /* 3e9 s */

	/* waits end at or after the deadline, whether spun or slept */
	uint64_t t = feed_now_ns(CLOCK_MONOTONIC);
	feed_wait_until(t + 30000);
	CHECK(feed_now_ns(CLOCK_MONOTONIC) >= t + 30000);
	t = feed_now_ns(CLOCK_MONOTONIC);
	feed_wait_until(t + 2000000);
	CHECK(feed_now_ns(CLOCK_MONOTONIC) >= t + 2000000);
	t = feed_now_ns(CLOCK_MONOTONIC);
	feed_wait_until(t - 1000000); /* in the past: returns at once */
	CHECK(feed_now_ns(CLOCK_MONOTONIC) - t < 1000000000ull);
}

int main(void)
{
	test_percentiles();
	test_sendlog();
	test_find();
	test_parse();
	test_pacing();
	return test_done("feedsim_lat");
}
