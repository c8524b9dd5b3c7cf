/* test_rx_pcap.c - captures as pcap files, and toe-pcapdump on them.
 *
 * A TCP capture (SYN, reordering, duplicates, one segment never seen, FIN,
 * the vendor's ACKs) and a UDP capture are written as pcap files with
 * pktbuild (nanosecond and microsecond timestamps), read back, and run
 * through rx_pipe (checked against the feed as in the other test_rx_*
 * programs). Then the toe-pcapdump program of the build ($BUILD/asan/bin or
 * $BUILD/bin, BUILD defaulting to "build") decodes the same files and its
 * standard output must be, line for line, the JSON the test expects: the
 * reset, the truth's records (as toe-fastdump prints them, with "stream" and
 * "msg_seq"), the timeout gap over the lost segment and the garbage gap up to
 * the next message, in stream order. Its counter summary must name the drops.
 */
#include <unistd.h>

#include "test_rx_common.h"

static struct tr_feed feed;
static char tool[512];

static void find_tool(void)
{
	const char *b = getenv("BUILD");
	if (!b || !*b)
		b = "build";
	snprintf(tool, sizeof tool, "%s/asan/bin/toe-pcapdump", b);
	if (access(tool, X_OK) == 0)
		return;
	snprintf(tool, sizeof tool, "%s/bin/toe-pcapdump", b);
	if (access(tool, X_OK) != 0)
		tool[0] = 0;
}

static void write_pcap(const char *path, const struct tr_frames *l, int nano)
{
	struct pb_pcap *w = pb_pcap_create(path, nano);
	CHECK(w != NULL);
	if (!w)
		return;
	for (uint32_t i = 0; i < l->n; i++)
		CHECK_EQ(pb_pcap_write(w, l->f[i].buf, l->f[i].len, l->f[i].ts), 0);
	pb_pcap_close(w);
}

static void read_pcap(const char *path, struct tr_frames *l)
{
	struct pb_pcap *r = pb_pcap_open(path);
	const uint8_t *f;
	uint32_t len;
	uint64_t ts;
	int rc;
	CHECK(r != NULL);
	if (!r)
		return;
	while ((rc = pb_pcap_next(r, &f, &len, &ts)) == 1)
		tr_add(l, f, len, ts);
	CHECK_EQ(rc, 0);
	pb_pcap_close(r);
}

/* Expected output line of a truth record: its JSON with "stream" and "msg_seq" after "template". */
static char *expect_record(const char *json, uint32_t stream, uint64_t seq)
{
	const char *comma = strchr(json, ',');
	char *s = NULL;
	if (!comma)
		return NULL;
	if (asprintf(&s, "%.*s\"stream\":%u,\"msg_seq\":%llu,%s", (int)(comma + 1 - json), json, stream,
		     (unsigned long long)seq, comma + 1) < 0)
		return NULL;
	return s;
}

static char *expect_gap(uint32_t stream, const struct tr_gap *g)
{
	char *s = NULL;
	const char *reason = g->reason == TOE_GAP_TIMEOUT  ? "timeout"
			     : g->reason == TOE_GAP_WINDOW ? "window"
			     : g->reason == TOE_GAP_ACKED  ? "acked"
			     : g->reason == TOE_GAP_CLOSED ? "closed"
							   : "decode";
	int rc;
	if (g->reason == TOE_GAP_DECODE)
		rc = asprintf(&s, "{\"event\":\"gap\",\"stream\":%u,\"offset\":%llu,\"length\":%llu,\"reason\":\"%s\","
				  "\"detail\":\"%s\"}",
			      stream, (unsigned long long)g->off, (unsigned long long)g->len, reason,
			      fast_err_name((int)g->detail));
	else
		rc = asprintf(&s, "{\"event\":\"gap\",\"stream\":%u,\"offset\":%llu,\"length\":%llu,\"reason\":\"%s\"}",
			      stream, (unsigned long long)g->off, (unsigned long long)g->len, reason);
	return rc < 0 ? NULL : s;
}

/* The lines toe-pcapdump must print for stream `stream` carrying the whole
 * feed with the given loss gaps, in stream order. reset: print the reset first. */
static uint32_t expect_lines(char **out, uint32_t cap, uint32_t stream, const struct tr_gap *loss, int nloss,
			     int reset)
{
	struct tr_gap g[TR_MAX_GAPS];
	int ng = tr_expected_gaps(&feed, 0, feed.len, loss, nloss, g, TR_MAX_GAPS), gi = 0;
	uint32_t n = 0;
	if (reset && n < cap && asprintf(&out[n], "{\"event\":\"reset\",\"stream\":%u,\"reason\":\"syn\"}", stream) >= 0)
		n++;
	for (uint32_t m = 0; m <= feed.nmsg; m++) {
		uint64_t mo = m < feed.nmsg ? feed.msg[m].off : UINT64_MAX;
		int hit = 0;
		while (gi < ng && g[gi].off < mo && n < cap)
			out[n++] = expect_gap(stream, &g[gi++]);
		if (m == feed.nmsg)
			break;
		for (int i = 0; i < ng; i++)
			if (g[i].off < mo + feed.msg[m].len && g[i].off + g[i].len > mo)
				hit = 1;
		if (hit)
			continue;
		for (uint32_t k = 0; k < feed.msg[m].n && n < cap; k++)
			out[n++] = expect_record(feed.json[feed.msg[m].first + k], stream, feed.msg[m].seq);
	}
	return n;
}

/* Run the tool; compare its stdout with want[0..nwant); return its stderr (malloc'd). */
static char *run_tool(const char *args, const char *pcap, char **want, uint32_t nwant)
{
	char cmd[2048], errpath[] = "/tmp/test_rx_pcap_err_XXXXXX", line[65536];
	int fd = mkstemp(errpath);
	char *err = NULL;
	uint32_t n = 0, bad = 0;
	CHECK(fd >= 0);
	if (fd < 0)
		return NULL;
	close(fd);
	snprintf(cmd, sizeof cmd, "%s --templates %s %s %s 2>%s", tool, TR_TEMPLATES,
		 args, pcap, errpath);
	FILE *p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		return NULL;
	while (fgets(line, sizeof line, p)) {
		size_t len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[len - 1] = 0;
		if (n >= nwant || !want[n] || strcmp(line, want[n]) != 0) {
			if (bad++ < 3)
				fprintf(stderr, "line %u:\n  got  %s\n  want %s\n", n + 1, line,
					n < nwant && want[n] ? want[n] : "(nothing)");
		}
		n++;
	}
	CHECK_EQ(pclose(p), 0);
	CHECK_EQ(bad, 0);
	CHECK_EQ(n, nwant);
	FILE *e = fopen(errpath, "r");
	if (e) {
		size_t cap = 0;
		ssize_t r = getdelim(&err, &cap, 0, e);
		if (r < 0) {
			free(err);
			err = NULL;
		}
		fclose(e);
	}
	unlink(errpath);
	return err;
}

static void test_tcp_capture(void)
{
	struct rx_cfg cfg;
	struct tr_frames l = {0}, back = {0};
	struct tr_rx t;
	struct pb_spec s;
	uint64_t ts = 0;
	uint32_t isn = 0x7ffff000u, lost = 8;
	char path[] = "/tmp/test_rx_pcap_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	tr_spec(&s, TR_VE_PORT);
	tr_connection(&l, &s, &feed, isn, TR_MSS, 3, &ts);
	/* frames: SYN, then segments with an ACK after every third; find segment `lost` and drop it */
	{
		uint32_t seg = 0, i;
		for (i = 1; i < l.n; i++) {
			/* a data frame is from the exchange port */
			const uint8_t *fr = l.f[i].buf;
			uint16_t sport = (uint16_t)(fr[34] << 8 | fr[35]);
			if (sport != TR_EX_PORT)
				continue;
			if (seg++ == lost)
				break;
		}
		tr_remove(&l, i);
	}
	tr_swap(&l, 3, 4);
	tr_swap(&l, 20, 22);
	tr_add(&l, l.f[7].buf, l.f[7].len, 0); /* a late duplicate of segment 5 */
	tr_swap(&l, l.n - 1, l.n - 5);
	/* 5 ms apart (odd nanoseconds): the vendor's ACKs cover the hole, so it is a gap once they have
	 * waited the 20 ms reorder allowance (before the 50 ms hole timeout and before 3/4 of the
	 * window is held); the ACK that frames 20 and 22 put 10 ms before its data is within it */
	tr_restamp(&l, 1700000000ull * 1000000000ull, 5000000ull + 123);
	write_pcap(path, &l, 1);
	read_pcap(path, &back);
	CHECK_EQ(back.n, l.n);
	for (uint32_t i = 0; i < l.n && i < back.n; i++) {
		CHECK_EQ(back.f[i].len, l.f[i].len);
		CHECK_EQ(back.f[i].ts, l.f[i].ts);
		CHECK(back.f[i].len == l.f[i].len && memcmp(back.f[i].buf, l.f[i].buf, l.f[i].len) == 0);
	}
	struct tr_gap loss[1] = { { (uint64_t)lost * TR_MSS, TR_MSS, TOE_GAP_ACKED, 0 } };
	tr_cfg(&cfg);
	tr_rx_init(&t, &cfg, feed.len);
	tr_run(&t, &back, 1, 1);
	tr_check(&t, 0, &feed, 0, feed.len, loss, 1);
	tr_rx_free(&t);

	if (tool[0]) {
		char **want = calloc(feed.nrec + 16, sizeof *want);
		uint32_t n = expect_lines(want, feed.nrec + 16, 0, loss, 1, 1);
		char *err = run_tool("--feed 10.0.0.1:9000", path, want, n);
		CHECK(err && strstr(err, "rx.gaps_acked 1\n"));
		CHECK(err && strstr(err, "rx.gaps_decode 1\n"));
		CHECK(err && strstr(err, "mtoe.conn0.duplicates 1\n"));
		if (err && (!strstr(err, "rx.gaps_acked 1\n") || !strstr(err, "mtoe.conn0.duplicates 1\n")))
			fprintf(stderr, "%s", err);
		free(err);
		/* the same with a 4-tuple, microsecond timestamps and a generous window */
		write_pcap(path, &l, 0);
		err = run_tool("--flow 10.0.0.1:9000-10.0.0.2:40000 --window 1048576 --conns 2", path, want, n);
		free(err);
		for (uint32_t i = 0; i < n; i++)
			free(want[i]);
		free(want);

		/* usage errors and a missing file */
		char cmd[1024];
		snprintf(cmd, sizeof cmd, "%s --templates %s %s >/dev/null 2>&1", tool, TR_TEMPLATES, path);
		CHECK_EQ(WEXITSTATUS(system(cmd)), 0); /* nothing named: the feed it carries is found
							  (tests/tools/test_pcapdump_detect.sh) */
		snprintf(cmd, sizeof cmd, "%s --templates %s >/dev/null 2>&1", tool, TR_TEMPLATES);
		CHECK_EQ(WEXITSTATUS(system(cmd)), 2); /* no capture */
		snprintf(cmd, sizeof cmd, "%s --templates %s --feed 10.0.0.1:9000 --window 1000 %s >/dev/null 2>&1", tool,
			 TR_TEMPLATES, path);
		CHECK_EQ(WEXITSTATUS(system(cmd)), 2);
		snprintf(cmd, sizeof cmd, "%s --templates %s --feed 10.0.0.1:9000 /nonexistent.pcap >/dev/null 2>&1",
			 tool, TR_TEMPLATES);
		CHECK_EQ(WEXITSTATUS(system(cmd)), 1);
	}
	unlink(path);
	tr_frames_free(&l);
	tr_frames_free(&back);
}

static void test_udp_capture(void)
{
	struct tr_frames l = {0};
	struct pb_spec s, bad;
	char path[] = "/tmp/test_rx_pcap_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	pb_init(&s);
	s.sport = 7000;
	s.dport = 6100;
	bad = s;
	bad.l4_csum = PB_CSUM_BAD;
	for (uint32_t m = 0; m < feed.nmsg; m++) {
		if (m % 10 == 4)
			tr_add(&l, tr_scratch, pb_udp(tr_scratch, sizeof tr_scratch, &bad, feed.bytes, 100), 0);
		tr_add(&l, tr_scratch,
		       pb_udp(tr_scratch, sizeof tr_scratch, &s, feed.bytes + feed.msg[m].off, feed.msg[m].len), 0);
	}
	tr_restamp(&l, 1000, 1000);
	write_pcap(path, &l, 1);
	if (tool[0]) {
		char **want = calloc(feed.nrec + feed.nmsg + 16, sizeof *want);
		/* UDP stream id: max_conns (64 by default) + 0 */
		uint32_t n = expect_lines(want, feed.nrec + 16, MTOE_DEFAULT_CONNS, NULL, 0, 0);
		char *err = run_tool("--udp 6100 --verify-checksums", path, want, n);
		CHECK(err && strstr(err, "net.udp.drop_udp_csum ") != NULL && strstr(err, "failed checksum verification") != NULL);
		free(err);
		for (uint32_t i = 0; i < n; i++)
			free(want[i]);
		/* checksums off: each bad datagram (the first 100 bytes of message 0) reaches the
		 * deframer, and is a message cut short, reported before the next datagram */
		uint64_t off = 0;
		n = 0;
		for (uint32_t m = 0; m < feed.nmsg; m++) {
			if (m % 10 == 4) {
				struct tr_gap g = { off, 100, TOE_GAP_DECODE, STEP_E_BAD_LENGTH };
				want[n++] = expect_gap(1, &g);
				off += 100;
			}
			for (uint32_t k = 0; k < feed.msg[m].n; k++)
				want[n++] = expect_record(feed.json[feed.msg[m].first + k], 1, feed.msg[m].seq);
			off += feed.msg[m].len;
		}
		err = run_tool("--udp 6100:step --conns 1 --no-checksum", path, want, n); /* the old name of the default */
		CHECK(err && strstr(err, "net.udp.csum_unchecked ") != NULL);
		free(err);
		for (uint32_t i = 0; i < n; i++)
			free(want[i]);
		free(want);
	}
	unlink(path);
	tr_frames_free(&l);
}

int main(void)
{
	if (tr_load() != 0)
		return test_skip("test_rx_pcap", "cannot compile " TR_TEMPLATES " (run from the repository root)");
	find_tool();
	if (!tool[0])
		fprintf(stderr, "test_rx_pcap: toe-pcapdump not built under $BUILD: the tool checks are left out\n");
	tr_feed_make(&feed, 21, 800, 5);
	test_tcp_capture();
	test_udp_capture();
	tr_feed_free(&feed);
	return test_done("test_rx_pcap");
}
