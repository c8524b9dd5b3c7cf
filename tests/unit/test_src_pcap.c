/* test_src_pcap.c - the pcap replay source (and the open errors of every source).
 *
 * Captures are written with the test packet builder or libpcap's own dump
 * functions, then read back through src_*: bytes, lengths, timestamps
 * (nanosecond and microsecond files), order, bursts, EOF, loops and their
 * time shift (src.h: k * (last - first + mean gap)), pacing (lower bounds
 * only: a frame is never delivered before its time), truncated and 64 KB
 * frames, Linux cooked and raw captures given an Ethernet header, and the
 * error messages of src_open.
 */
#include "test.h"
#include "pktbuild.h"
#include "src/src.h"

#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define T0 1700000000123456789ull /* a recorded time, ns */
#define MS 1000000ull

static char dir[64];
static char path_buf[128];

static const char *tmp(const char *name)
{
	snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
	return path_buf;
}

/* Frame i: UDP with a payload that names i, size varying with i. */
static size_t frame(uint8_t *buf, size_t cap, int i, size_t payload)
{
	struct pb_spec sp;
	uint8_t pl[65536];
	size_t k;
	pb_init(&sp);
	sp.sport = (uint16_t)(1000 + i);
	sp.dport = 5801;
	for (k = 0; k < payload && k < sizeof pl; k++)
		pl[k] = (uint8_t)(i * 7 + k);
	return pb_udp(buf, cap, &sp, pl, payload);
}

struct rec {
	uint8_t *data;
	size_t len;
	uint64_t ts;
};

static void write_file(const char *path, int nano, const struct rec *r, int n)
{
	struct pb_pcap *w = pb_pcap_create(path, nano);
	int i;
	CHECK(w != NULL);
	if (!w)
		return;
	for (i = 0; i < n; i++)
		pb_pcap_write(w, r[i].data, r[i].len, r[i].ts);
	pb_pcap_close(w);
}

static struct src *open_pcap(const char *path, double pace, uint32_t loops)
{
	struct src_cfg c;
	struct src *s = NULL;
	char err[256];
	memset(&c, 0, sizeof c);
	c.kind = SRC_PCAP;
	c.pcap_path = path;
	c.pace = pace;
	c.loops = loops;
	if (src_open(&s, &c, err, sizeof err) < 0) {
		fprintf(stderr, "src_open: %s\n", err);
		return NULL;
	}
	return s;
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ---- basic replay: bytes, lengths, ns timestamps, order, bursts, EOF ---- */
static void test_basic(void)
{
	enum { N = 6 };
	struct rec r[N];
	struct src_frame f[8];
	struct src_stats st;
	struct src *s;
	uint64_t bytes = 0;
	int i, n, got = 0;

	for (i = 0; i < N; i++) {
		r[i].data = malloc(2048);
		r[i].len = frame(r[i].data, 2048, i, (size_t)(10 + 200 * i));
		r[i].ts = T0 + (uint64_t)i * MS + (uint64_t)i * 7; /* odd ns survive a nanosecond file */
		bytes += r[i].len;
	}
	write_file(tmp("basic.pcap"), 1, r, N);
	s = open_pcap(tmp("basic.pcap"), 0, 0);
	CHECK(s != NULL);
	if (!s)
		goto out;
	CHECK_EQ(src_fd(s), -1);
	CHECK(strstr(src_describe(s), "pcap") != NULL);
	/* opened without transmit (a mirror port never sends): src_tx refuses and counts */
	CHECK_EQ(src_can_tx(s), 0);
	CHECK_EQ(src_tx(s, r[0].data, r[0].len), -1);
	src_tx_flush(s);
	src_stats(s, &st);
	CHECK_EQ(st.tx_refused, 1);
	CHECK_EQ(st.tx_frames, 0);
	/* bursts of at most 4: 4 then 2 then the end */
	n = src_rx_burst(s, f, 4);
	CHECK_EQ(n, 4);
	for (i = 0; i < n && got + i < N; i++) {
		CHECK_EQ(f[i].len, r[got + i].len);
		CHECK_EQ(f[i].wire_len, r[got + i].len);
		CHECK_EQ(f[i].ts_ns, r[got + i].ts);
		CHECK_EQ(f[i].clock, TOE_CLK_CAPTURE); /* the capture's time, and the record says so */
		if (f[i].len == r[got + i].len)
			CHECK_MEM(f[i].data, r[got + i].data, r[got + i].len);
	}
	got += n > 0 ? n : 0;
	src_rx_release(s);
	n = src_rx_burst(s, f, 4);
	CHECK_EQ(n, 2);
	for (i = 0; i < n && got + i < N; i++) {
		CHECK_EQ(f[i].len, r[got + i].len);
		CHECK_EQ(f[i].ts_ns, r[got + i].ts);
		if (f[i].len == r[got + i].len)
			CHECK_MEM(f[i].data, r[got + i].data, r[got + i].len);
	}
	/* no release: the next burst releases on its own */
	CHECK_EQ(src_rx_burst(s, f, 4), SRC_EOF);
	CHECK_EQ(src_rx_burst(s, f, 4), SRC_EOF); /* sticky */
	CHECK_EQ(src_wait(s, 1000), 1);           /* never blocks at the end */
	CHECK_EQ(src_rx_burst(s, f, 0), 0);
	src_stats(s, &st);
	CHECK_EQ(st.frames, N);
	CHECK_EQ(st.bytes, bytes);
	CHECK_EQ(st.truncated, 0);
	CHECK_EQ(st.pcap_loops, 1);
	CHECK_EQ(st.afp_drops, 0);
	src_close(s);
out:
	for (i = 0; i < N; i++)
		free(r[i].data);
}

/* ---- a microsecond file: times come back in ns ---- */
static void test_micro(void)
{
	struct rec r[2];
	uint8_t a[128], b[128];
	struct src_frame f[4];
	struct src *s;
	r[0].data = a;
	r[0].len = frame(a, sizeof a, 0, 20);
	r[0].ts = 1700000000123456000ull;
	r[1].data = b;
	r[1].len = frame(b, sizeof b, 1, 20);
	r[1].ts = 1700000001000001000ull;
	write_file(tmp("micro.pcap"), 0, r, 2);
	s = open_pcap(tmp("micro.pcap"), 0, 1);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_EQ(src_rx_burst(s, f, 4), 2);
	CHECK_EQ(f[0].ts_ns, 1700000000123456000ull);
	CHECK_EQ(f[1].ts_ns, 1700000001000001000ull);
	CHECK_EQ(src_rx_burst(s, f, 4), SRC_EOF);
	src_close(s);
}

/* ---- loops: a continuous timeline ---- */
static void test_loops(void)
{
	enum { N = 4 };
	struct rec r[N];
	uint8_t buf[N][256];
	struct src_frame f[5];
	struct src_stats st;
	struct src *s;
	uint64_t ts[3 * N];
	int i, n, got = 0, eof = 0, guard = 0;

	/* even gaps of 10 ms: loop k frame i is at T0 + (k*N + i) * 10 ms */
	for (i = 0; i < N; i++) {
		r[i].data = buf[i];
		r[i].len = frame(buf[i], sizeof buf[i], i, 30);
		r[i].ts = T0 + (uint64_t)i * 10 * MS;
	}
	write_file(tmp("loops.pcap"), 1, r, N);
	s = open_pcap(tmp("loops.pcap"), 0, 3);
	CHECK(s != NULL);
	if (!s)
		return;
	while (!eof && guard++ < 100) {
		n = src_rx_burst(s, f, 5);
		if (n == SRC_EOF) {
			eof = 1;
			break;
		}
		CHECK(n > 0);
		for (i = 0; i < n; i++) {
			if (got < 3 * N) {
				ts[got] = f[i].ts_ns;
				CHECK_EQ(f[i].len, r[got % N].len);
				if (f[i].len == r[got % (N - 1)].len) /* each play delivers the N - 1 uncut frames */
					CHECK_MEM(f[i].data, r[got % N].data, r[got % N].len);
			}
			got++;
		}
	}
	CHECK(eof);
	CHECK_EQ(got, 3 * N);
	for (i = 0; i < got && i < 3 * N; i++)
		CHECK_EQ(ts[i], T0 + (uint64_t)i * 10 * MS);
	src_stats(s, &st);
	CHECK_EQ(st.pcap_loops, 3);
	CHECK_EQ(st.frames, 3 * N);
	src_close(s);

	/* uneven gaps 0, 1, 5 ms: span 5 ms, mean gap 2.5 ms, each loop shifted 7.5 ms */
	r[1].ts = T0 + 1 * MS;
	r[2].ts = T0 + 5 * MS;
	write_file(tmp("loops2.pcap"), 1, r, 3);
	s = open_pcap(tmp("loops2.pcap"), 0, 2);
	CHECK(s != NULL);
	if (!s)
		return;
	n = src_rx_burst(s, f, 5);
	CHECK_EQ(n, 5); /* a burst runs on across the loop boundary */
	if (n == 5) {
		CHECK_EQ(f[2].ts_ns, T0 + 5 * MS);
		CHECK_EQ(f[3].ts_ns, T0 + 7500000ull);
		CHECK_EQ(f[4].ts_ns, T0 + 7500000ull + 1 * MS);
	}
	CHECK_EQ(src_rx_burst(s, f, 5), 1);
	CHECK_EQ(f[0].ts_ns, T0 + 7500000ull + 5 * MS);
	CHECK_EQ(src_rx_burst(s, f, 5), SRC_EOF);
	src_close(s);

	/* forever: three plays and more, never EOF */
	s = open_pcap(tmp("loops.pcap"), 0, SRC_LOOP_FOREVER);
	CHECK(s != NULL);
	if (!s)
		return;
	for (got = 0, guard = 0; got < 3 * N + 1 && guard < 100; guard++) {
		n = src_rx_burst(s, f, 5);
		CHECK(n > 0);
		if (n <= 0)
			break;
		got += n;
	}
	CHECK(got >= 3 * N + 1);
	src_stats(s, &st);
	CHECK(st.pcap_loops >= 3);
	CHECK(strstr(src_describe(s), "loop") != NULL);
	src_close(s);
}

/* ---- pacing: never early; src_wait sleeps; rx_burst never blocks ---- */
static int paced_run(const char *path, double pace, uint64_t gap, int n_frames, uint64_t *late_ok)
{
	struct src_frame f[4];
	struct src *s = open_pcap(path, pace, 1);
	uint64_t start, at;
	int got = 0, guard = 0, n, i;
	CHECK(s != NULL);
	if (!s)
		return 0;
	start = mono_ns();
	*late_ok = 1;
	while (got < n_frames && guard++ < 10000) {
		n = src_rx_burst(s, f, 4);
		if (n == 0) {
			CHECK(src_wait(s, 1000) >= 0);
			continue;
		}
		CHECK(n > 0);
		if (n < 0)
			break;
		at = mono_ns() - start;
		for (i = 0; i < n; i++) {
			uint64_t due = (uint64_t)((double)((uint64_t)(got + i) * gap) / pace);
			CHECK_EQ(f[i].ts_ns, T0 + (uint64_t)(got + i) * gap); /* order and recorded times */
			if (at + MS / 2 < due) {
				fprintf(stderr, "frame %d delivered at %llu ns, due at %llu ns\n", got + i,
					(unsigned long long)at, (unsigned long long)due);
				*late_ok = 0;
			}
		}
		got += n;
	}
	CHECK_EQ(got, n_frames);
	CHECK_EQ(src_rx_burst(s, f, 4), SRC_EOF);
	src_close(s);
	return got;
}

static void test_pace(void)
{
	enum { N = 5 };
	struct rec r[N];
	uint8_t buf[N][128];
	struct src_frame f[4];
	struct src *s;
	uint64_t t, ok;
	int i;

	for (i = 0; i < N; i++) {
		r[i].data = buf[i];
		r[i].len = frame(buf[i], sizeof buf[i], i, 16);
		r[i].ts = T0 + (uint64_t)i * 40 * MS;
	}
	write_file(tmp("pace.pcap"), 1, r, N);

	/* recorded pace: 160 ms from the first frame to the last */
	t = mono_ns();
	paced_run(tmp("pace.pcap"), 1.0, 40 * MS, N, &ok);
	t = mono_ns() - t;
	CHECK(ok);
	CHECK(t >= 159 * MS);
	/* twice as fast: 80 ms */
	t = mono_ns();
	paced_run(tmp("pace.pcap"), 2.0, 40 * MS, N, &ok);
	t = mono_ns() - t;
	CHECK(ok);
	CHECK(t >= 79 * MS);
	/* as fast as possible: all at once */
	s = open_pcap(tmp("pace.pcap"), 0, 1);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(src_rx_burst(s, f, 4), 4);
		CHECK_EQ(src_rx_burst(s, f, 4), 1);
		src_close(s);
	}

	/* a frame 300 ms after the first: rx_burst says "nothing now", src_wait times out, then sleeps */
	r[1].ts = T0 + 300 * MS;
	write_file(tmp("pace2.pcap"), 1, r, 2);
	s = open_pcap(tmp("pace2.pcap"), 1.0, 1);
	CHECK(s != NULL);
	if (!s)
		return;
	t = mono_ns();
	CHECK_EQ(src_rx_burst(s, f, 4), 1);
	CHECK_EQ(src_rx_burst(s, f, 4), 0);
	CHECK_EQ(src_wait(s, 10), 0);
	CHECK(mono_ns() - t >= 9 * MS);
	CHECK_EQ(src_wait(s, -1), 1);
	CHECK(mono_ns() - t >= 299 * MS);
	CHECK_EQ(src_rx_burst(s, f, 4), 1);
	CHECK_EQ(f[0].ts_ns, T0 + 300 * MS);
	CHECK_EQ(src_rx_burst(s, f, 4), SRC_EOF);
	src_close(s);
}

/* ---- big and truncated frames ---- */
static void dump_raw(pcap_dumper_t *d, const uint8_t *data, uint32_t caplen, uint32_t len, uint64_t ts)
{
	struct pcap_pkthdr h;
	memset(&h, 0, sizeof h);
	h.ts.tv_sec = (time_t)(ts / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(ts % 1000000000u);
	h.caplen = caplen;
	h.len = len;
	pcap_dump((u_char *)d, &h, data);
}

static void test_big(void)
{
	enum { NB = 8 };
	static uint8_t big[NB][65600];
	static uint8_t huge[70000];
	struct rec r[NB];
	struct src_frame f[16];
	struct src_stats st;
	struct src *s;
	pcap_t *p;
	pcap_dumper_t *d;
	int i, n, got = 0, guard = 0;

	/* 64 KB datagrams: the largest IPv4 packet (65535 bytes) behind Ethernet */
	for (i = 0; i < NB; i++) {
		r[i].data = big[i];
		r[i].len = frame(big[i], sizeof big[i], i, (size_t)(65535 - 28 - i));
		r[i].ts = T0 + (uint64_t)i;
		CHECK_EQ(r[i].len, 14 + 65535 - i);
	}
	write_file(tmp("big.pcap"), 1, r, NB);
	s = open_pcap(tmp("big.pcap"), 0, 1);
	CHECK(s != NULL);
	if (!s)
		return;
	while (got < NB && guard++ < 100) {
		n = src_rx_burst(s, f, 16);
		CHECK(n > 0);
		if (n <= 0)
			break;
		/* every frame of a burst is valid at the same time */
		for (i = 0; i < n && got + i < NB; i++) {
			CHECK_EQ(f[i].len, r[got + i].len);
			if (f[i].len == r[got + i].len)
				CHECK_MEM(f[i].data, r[got + i].data, r[got + i].len);
		}
		got += n;
		src_rx_release(s);
	}
	CHECK_EQ(got, NB);
	CHECK_EQ(src_rx_burst(s, f, 16), SRC_EOF);
	src_stats(s, &st);
	CHECK_EQ(st.truncated, 0);
	src_close(s);

	/* a frame captured with a snap length, and one longer than SRC_MAX_FRAME */
	p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 262144, PCAP_TSTAMP_PRECISION_NANO);
	d = p ? pcap_dump_open(p, tmp("trunc.pcap")) : NULL;
	CHECK(d != NULL);
	if (!d) {
		if (p)
			pcap_close(p);
		return;
	}
	for (i = 0; i < (int)sizeof huge; i++)
		huge[i] = (uint8_t)(i * 13);
	dump_raw(d, huge, 100, 1000, T0);
	dump_raw(d, huge, 70000, 70000, T0 + 1);
	pcap_dump_close(d);
	pcap_close(p);
	s = open_pcap(tmp("trunc.pcap"), 0, 1);
	CHECK(s != NULL);
	if (!s)
		return;
	n = src_rx_burst(s, f, 16);
	CHECK_EQ(n, 2);
	if (n == 2) {
		CHECK_EQ(f[0].len, 100);
		CHECK_EQ(f[0].wire_len, 1000);
		CHECK_MEM(f[0].data, huge, 100);
		CHECK_EQ(f[1].len, SRC_MAX_FRAME);
		CHECK_EQ(f[1].wire_len, 70000);
		CHECK_MEM(f[1].data, huge, SRC_MAX_FRAME);
	}
	src_stats(s, &st);
	CHECK_EQ(st.truncated, 2);
	CHECK_EQ(st.bytes, 100 + SRC_MAX_FRAME);
	src_close(s);
}

/* ---- Linux cooked and raw IPv4 captures get an Ethernet header ---- */
static void test_linktypes(void)
{
	uint8_t eth[256], sll[256];
	struct src_frame f[4];
	struct src_stats st;
	struct src *s;
	pcap_t *p;
	pcap_dumper_t *d;
	size_t n = frame(eth, sizeof eth, 3, 40);
	size_t ipn = n - 14;
	static const uint8_t sll_hdr[16] = { 0, 0, 0, 1, 0, 6, 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0, 0, 0x08, 0x00 };
	static const uint8_t want_src[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };
	static const uint8_t zero[6] = { 0 };

	memcpy(sll, sll_hdr, 16);
	memcpy(sll + 16, eth + 14, ipn);
	p = pcap_open_dead_with_tstamp_precision(DLT_LINUX_SLL, 65535, PCAP_TSTAMP_PRECISION_NANO);
	d = p ? pcap_dump_open(p, tmp("sll.pcap")) : NULL;
	CHECK(d != NULL);
	if (!d)
		return;
	dump_raw(d, sll, (uint32_t)(16 + ipn), (uint32_t)(16 + ipn), T0);
	pcap_dump_close(d);
	pcap_close(p);
	s = open_pcap(tmp("sll.pcap"), 0, 1);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(src_rx_burst(s, f, 4), 1);
		CHECK_EQ(f[0].len, 14 + ipn);
		CHECK_EQ(f[0].wire_len, 14 + ipn);
		CHECK_MEM(f[0].data, zero, 6);
		CHECK_MEM(f[0].data + 6, want_src, 6);
		CHECK_EQ(f[0].data[12], 0x08);
		CHECK_EQ(f[0].data[13], 0x00);
		CHECK_MEM(f[0].data + 14, eth + 14, ipn);
		src_stats(s, &st);
		CHECK_EQ(st.pcap_converted, 1);
		src_close(s);
	}

	p = pcap_open_dead_with_tstamp_precision(DLT_RAW, 65535, PCAP_TSTAMP_PRECISION_NANO);
	d = p ? pcap_dump_open(p, tmp("raw.pcap")) : NULL;
	CHECK(d != NULL);
	if (!d)
		return;
	dump_raw(d, eth + 14, (uint32_t)ipn, (uint32_t)ipn, T0);
	pcap_dump_close(d);
	pcap_close(p);
	s = open_pcap(tmp("raw.pcap"), 0, 1);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(src_rx_burst(s, f, 4), 1);
		CHECK_EQ(f[0].len, 14 + ipn);
		CHECK_MEM(f[0].data, zero, 6);
		CHECK_MEM(f[0].data + 6, zero, 6);
		CHECK_EQ(f[0].data[12], 0x08);
		CHECK_EQ(f[0].data[13], 0x00);
		CHECK_MEM(f[0].data + 14, eth + 14, ipn);
		src_close(s);
	}

	/* 802.11 is not something the pipeline can read */
	p = pcap_open_dead(DLT_IEEE802_11, 65535);
	d = p ? pcap_dump_open(p, tmp("wifi.pcap")) : NULL;
	CHECK(d != NULL);
	if (d) {
		pcap_dump_close(d);
		pcap_close(p);
	}
}

/* ---- an empty capture ---- */
static void test_empty(void)
{
	struct src_frame f[4];
	struct src *s;
	write_file(tmp("empty.pcap"), 1, NULL, 0);
	s = open_pcap(tmp("empty.pcap"), 1.0, 3);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_EQ(src_wait(s, 1000), 1);
	CHECK_EQ(src_rx_burst(s, f, 4), SRC_EOF);
	src_close(s);
}

/* ---- src_open errors name the thing and the reason ---- */
/* ---- a file cut short: the play ends there with libpcap's reason ---- */
static void cut_run(const char *name, long cut_back, uint32_t loops, int want_frames, uint32_t want_cut)
{
	enum { N = 5 };
	struct rec r[N];
	struct src_frame f[8];
	struct src_stats st;
	struct src *s;
	FILE *fp;
	long size;
	uint64_t seq = 0;
	int i, n, got = 0;

	for (i = 0; i < N; i++) {
		r[i].data = malloc(2048);
		r[i].len = frame(r[i].data, 2048, i, 100);
		r[i].ts = T0 + (uint64_t)i * MS;
	}
	write_file(tmp(name), 1, r, N);
	fp = fopen(tmp(name), "r+");
	CHECK(fp != NULL);
	if (!fp)
		goto out;
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	CHECK(ftruncate(fileno(fp), size - cut_back) == 0);
	fclose(fp);
	s = open_pcap(tmp(name), 0, loops);
	CHECK(s != NULL);
	if (!s)
		goto out;
	CHECK_EQ(src_note(s, &seq)[0], '\0');
	CHECK_EQ(seq, 0);
	for (;;) {
		n = src_rx_burst(s, f, 8);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++, got++)
			if (f[i].len == r[got % (N - 1)].len) /* each play delivers the N - 1 uncut frames */
				CHECK_MEM(f[i].data, r[got % (N - 1)].data, f[i].len);
	}
	CHECK_EQ(n, SRC_EOF); /* an end, not an error */
	CHECK_EQ(got, want_frames);
	src_stats(s, &st);
	CHECK_EQ(st.pcap_cut, want_cut);
	CHECK_EQ(st.pcap_loops, loops ? loops : 1);
	CHECK(strstr(src_note(s, &seq), "truncated dump file") != NULL); /* libpcap's own words */
	CHECK(strstr(src_note(s, NULL), "ends early") != NULL);
	CHECK_EQ(seq, want_cut);
	src_close(s);
out:
	for (i = 0; i < N; i++)
		free(r[i].data);
	unlink(tmp(name));
}

static void test_cut(void)
{
	cut_run("cut_rec.pcap", 30, 1, 4, 1);  /* inside the last record's data */
	cut_run("cut_hdr.pcap", 16 + 142 - 5, 1, 4, 1); /* 5 bytes into the last record's 16-byte header */
	cut_run("cut_loop.pcap", 30, 3, 12, 3); /* each of three plays ends at the cut */
}

static void open_fails(const struct src_cfg *c, const char *want1, const char *want2)
{
	struct src *s = (struct src *)1;
	char err[400] = "";
	CHECK_EQ(src_open(&s, c, err, sizeof err), -1);
	CHECK(s == NULL);
	if (!strstr(err, want1) || (want2 && !strstr(err, want2))) {
		fprintf(stderr, "error text \"%s\" lacks \"%s\"%s%s\n", err, want1, want2 ? " or " : "",
			want2 ? want2 : "");
		CHECK(0);
	}
}

static void test_errors(void)
{
	struct src_cfg c;
	struct src_feed bad = { .ip = 0x0a000001, .port = 80, .proto = 47 };
	struct src_feed icmp_port = { .ip = 0x0a000001, .port = 80, .proto = SRC_PROTO_ICMP };
	struct src_feed any = { .ip = 0, .port = 0, .proto = 6 };

	memset(&c, 0, sizeof c);
	c.kind = 99;
	open_fails(&c, "unknown source kind", NULL);

	c.kind = SRC_PCAP;
	open_fails(&c, "no file", NULL);
	c.pcap_path = tmp("missing.pcap");
	open_fails(&c, "missing.pcap", NULL);
	c.pcap_path = tmp("wifi.pcap");
	open_fails(&c, "wifi.pcap", "link type");
	c.pcap_path = tmp("micro.pcap");
	c.pace = -1;
	open_fails(&c, "pace", NULL);

	memset(&c, 0, sizeof c);
	c.kind = SRC_AF_PACKET;
	open_fails(&c, "no interface", NULL);
	c.ifname = "toe-nosuch0";
	open_fails(&c, "toe-nosuch0", "no such interface");
	c.ifname = "lo";
	c.afp_block_size = 3000;
	open_fails(&c, "block size", NULL);

	memset(&c, 0, sizeof c);
	c.kind = SRC_AF_XDP;
	c.ifname = "toe-nosuch0";
	c.bpf_obj_path = tmp("micro.pcap");
	open_fails(&c, "toe-nosuch0", "no such interface");
	c.ifname = "lo";
	c.bpf_obj_path = NULL;
	open_fails(&c, "no BPF object", NULL);
	c.bpf_obj_path = tmp("missing.bpf.o");
	open_fails(&c, "missing.bpf.o", "No such file");
	c.bpf_obj_path = tmp("micro.pcap"); /* exists: the feed checks come first */
	c.feeds = &bad;
	c.nfeeds = 1;
	open_fails(&c, "feed 0", "protocol");
	c.feeds = &icmp_port; /* an ICMP/ARP rule is a port's own address, with no port */
	open_fails(&c, "feed 0", "no port");
	c.feeds = &any;
	open_fails(&c, "feed 0", "any");
	c.feeds = NULL;
	c.nfeeds = 0;
	c.xdp_frame_size = 1000;
	open_fails(&c, "frame size", NULL);
	c.xdp_frame_size = 0;
	c.xdp_rx_ring = 3000; /* not a power of two */
	open_fails(&c, "rx ring 3000", "power of two");
	c.xdp_rx_ring = 1u << 19; /* above the maximum */
	open_fails(&c, "rx ring 524288", "262144");
	c.xdp_rx_ring = 0;
	c.xdp_fill_ring = 32;
	open_fails(&c, "fill ring 32", "64 to");
	c.xdp_fill_ring = 4096;
	c.xdp_frames = 2048; /* fewer frames than the fill ring */
	open_fails(&c, "2048 UMEM frames", "fill ring (4096");
	c.xdp_fill_ring = 0;
	c.xdp_frames = 0;

	CHECK_EQ(src_kind_parse("af_xdp"), SRC_AF_XDP);
	CHECK_EQ(src_kind_parse("af_packet"), SRC_AF_PACKET);
	CHECK_EQ(src_kind_parse("pcap"), SRC_PCAP);
	CHECK_EQ(src_kind_parse("dpdk"), -1);
	CHECK(!strcmp(src_kind_name(SRC_AF_XDP), "af_xdp"));
	CHECK(src_kind_name(42) == NULL);
	src_close(NULL);
}

int main(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/test_src_pcap.XXXXXX", base && strlen(base) < 30 ? base : "/tmp");
	if (!mkdtemp(dir))
		return test_skip("src_pcap", "cannot create a temporary folder");
	test_basic();
	{
		/* a replay cannot send: a port that answers or connects is refused at open */
		struct src_cfg c;
		struct src *s = NULL;
		char err[256];
		memset(&c, 0, sizeof c);
		c.kind = SRC_PCAP;
		c.pcap_path = tmp("basic.pcap");
		c.tx = 1;
		CHECK_EQ(src_open(&s, &c, err, sizeof err), -1);
		CHECK(s == NULL);
		CHECK(strstr(err, "cannot send") != NULL);
	}
	test_micro();
	test_loops();
	test_pace();
	test_big();
	test_linktypes();
	test_empty();
	test_cut();
	test_errors();
	{
		static const char *names[] = { "basic.pcap", "micro.pcap", "loops.pcap", "loops2.pcap", "pace.pcap",
					       "pace2.pcap", "big.pcap", "trunc.pcap", "sll.pcap", "raw.pcap",
					       "wifi.pcap", "empty.pcap" };
		size_t i;
		for (i = 0; i < sizeof names / sizeof names[0]; i++)
			unlink(tmp(names[i]));
		rmdir(dir);
	}
	return test_done("src_pcap");
}
