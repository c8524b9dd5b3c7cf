/* test_client_stream.c - subscribing by stream name (toe_sub.stream, TOE_SUB_F_STREAM).
 *
 * The harness's producer tags record i with source i % 3; its control server
 * knows the names "a" (source 0), "b" (source 1) and the group "ab" (sources
 * 0 and 1), as dp_setup_streams would give them for two feeds in one group.
 * Expected records follow from the generator's rule, not from the daemon:
 * a client of "a" gets exactly the records i with i % 3 == 0, events
 * included; with a type filter, the intersection; a replay (TOE_START_LAST)
 * only its stream's records; a name the daemon does not have is refused with
 * -ENOENT and a sentence listing the names, a misspelt one with -EINVAL; a
 * raw SUBSCRIBE with the flag but without the name is EBADMSG; a filter change
 * moves the ring to another stream.
 */
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "test_client_harness.h"

static char dir[64], path[96];

static struct pub_stream names[3];

static void names_init(void)
{
	memset(names, 0, sizeof names);
	strcpy(names[0].name, "a");
	names[0].kind = "feed";
	names[0].srcs[0] = 1u << 0;
	strcpy(names[1].name, "b");
	names[1].kind = "feed";
	names[1].srcs[0] = 1u << 1;
	strcpy(names[2].name, "ab");
	names[2].kind = "group";
	names[2].srcs[0] = (1u << 0) | (1u << 1);
}

/* Read what is there (the producer acknowledged before we read). */
static uint32_t read_all(struct toe_client *c, union toe_record *out, uint32_t cap, uint32_t want)
{
	return th_read_n(c, out, want < cap ? want : cap, 150);
}

/* Records i in [first, first + n) the filter should pass, in order. */
static uint32_t expect_idx(uint64_t first, uint32_t n, uint32_t srcmask, uint32_t types, uint64_t *idx)
{
	uint32_t k = 0;
	for (uint64_t i = first; i < first + n; i++) {
		union toe_record r;
		th_record(i, &r);
		if (!(srcmask >> (i % 3) & 1u))
			continue;
		if (types && !(types & TOE_TYPE_BIT(r.hdr.type)))
			continue;
		idx[k++] = i;
	}
	return k;
}

static void check_got(const union toe_record *got, uint32_t ngot, const uint64_t *idx, uint32_t nexp)
{
	CHECK_EQ(ngot, nexp);
	uint32_t bad = 0;
	for (uint32_t k = 0; k < ngot && k < nexp; k++)
		bad += got[k].hdr.msg_seq != idx[k] + 1;
	CHECK_EQ(bad, 0);
}

static void test_streams(void)
{
	struct pub_config pc = {.no_hugepages = 1, .history = 256};
	struct ctl_config cc = {.allow_gid = -1, .streams = names, .nstreams = 3};
	struct th_prod p;
	static union toe_record got[512];
	static uint64_t idx[512];
	CHECK_EQ(th_start(&p, path, &pc, &cc), 0);

	struct toe_client *ca, *cab, *cbt, *call;
	CHECK_EQ(toe_connect(&ca, path, NULL), 0);
	CHECK_EQ(toe_connect(&cab, path, NULL), 0);
	CHECK_EQ(toe_connect(&cbt, path, NULL), 0);
	CHECK_EQ(toe_connect(&call, path, NULL), 0);
	struct toe_sub sa = {.stream = "a"}, sab = {.stream = "ab"}, sall = {0};
	struct toe_sub sbt = {.stream = "b", .types = TOE_TYPE_BIT(TOE_REC_TRADE)};
	CHECK_EQ(toe_subscribe(ca, &sa), 0);
	CHECK_EQ(toe_subscribe(cab, &sab), 0);
	CHECK_EQ(toe_subscribe(cbt, &sbt), 0);
	CHECK_EQ(toe_subscribe(call, &sall), 0);
	CHECK_EQ(th_publish(&p, 0, 300), 0);

	uint32_t n = expect_idx(0, 300, 1u, 0, idx);
	CHECK_EQ(n, 100);
	check_got(got, read_all(ca, got, 512, n + 1), idx, n);
	n = expect_idx(0, 300, 3u, 0, idx);
	check_got(got, read_all(cab, got, 512, n + 1), idx, n);
	n = expect_idx(0, 300, 2u, TOE_TYPE_BIT(TOE_REC_TRADE), idx);
	check_got(got, read_all(cbt, got, 512, n + 1), idx, n);
	n = expect_idx(0, 300, 7u, 0, idx);
	check_got(got, read_all(call, got, 512, n + 1), idx, n); /* no name: every source, as before */
	/* events of the stream pass: "a" got the gaps of source 0 (i = 39, 69, ...) */
	n = expect_idx(0, 300, 1u, TOE_TYPE_BIT(TOE_REC_GAP), idx);
	CHECK_EQ(n, 10);

	/* a filter change moves "a"'s ring to "b" */
	struct toe_sub sb = {.stream = "b"};
	CHECK_EQ(toe_subscribe(ca, &sb), 0);
	CHECK_EQ(th_publish(&p, 300, 30), 0);
	n = expect_idx(300, 30, 2u, 0, idx);
	check_got(got, read_all(ca, got, 512, n + 1), idx, n);

	/* a late subscriber's replay holds only its stream's records: the last 5 of source 0 */
	struct toe_client *late;
	CHECK_EQ(toe_connect(&late, path, NULL), 0);
	struct toe_sub sl = {.stream = "a", .start = TOE_START_LAST, .start_arg = 5};
	CHECK_EQ(toe_subscribe(late, &sl), 0);
	CHECK_EQ(th_publish(&p, 330, 0), 0);
	n = expect_idx(300, 30, 1u, 0, idx);
	CHECK_EQ(n, 10);
	check_got(got, read_all(late, got, 512, 6), idx + n - 5, 5);
	toe_close(late);

	/* unknown: ENOENT with the names; a misspelt name: EINVAL; the ring stays as it was */
	struct toe_sub su = {.stream = "zz"};
	CHECK_EQ(toe_subscribe(ca, &su), -ENOENT);
	CHECK(strstr(toe_last_error(ca), "no stream named zz") != NULL);
	CHECK(strstr(toe_last_error(ca), "a, b, ab") != NULL);
	struct toe_sub sbad = {.stream = "a b"};
	CHECK_EQ(toe_subscribe(ca, &sbad), -EINVAL);
	CHECK(strstr(toe_last_error(ca), "stream name") != NULL);
	struct toe_sub slong = {.stream = "0123456789012345678901234567890123456789"};
	CHECK_EQ(toe_subscribe(ca, &slong), -EINVAL);
	struct toe_sub sempty = {.stream = ""};
	CHECK_EQ(toe_subscribe(ca, &sempty), -EINVAL);
	CHECK_EQ(th_publish(&p, 330, 9), 0);
	n = expect_idx(330, 9, 2u, 0, idx);
	check_got(got, read_all(ca, got, 512, n + 1), idx, n);
	/* a first subscription with an unknown name gets no ring */
	struct toe_client *cu;
	CHECK_EQ(toe_connect(&cu, path, NULL), 0);
	CHECK_EQ(toe_subscribe(cu, &su), -ENOENT);
	struct toe_stats st;
	toe_stats(cu, &st);
	CHECK_EQ(st.capacity, 0);
	toe_close(cu);

	/* the wire: the flag without the name is refused as a bad length, the connection stays */
	int s = th_connect(path, 2);
	CHECK(s >= 0);
	struct toe_ctl_subscribe m;
	memset(&m, 0, sizeof m);
	toe_ctl_hdr_init(&m.hdr, TOE_CTL_SUBSCRIBE, sizeof m, 7);
	m.flags = TOE_SUB_F_STREAM;
	CHECK_EQ(send(s, &m, sizeof m, MSG_NOSIGNAL), (ssize_t)sizeof m);
	struct toe_ctl_error e;
	CHECK_EQ(recv(s, &e, sizeof e, MSG_WAITALL), (ssize_t)sizeof e);
	CHECK_EQ(e.hdr.type, TOE_CTL_ERROR);
	CHECK_EQ(e.error, EBADMSG);
	/* an unknown flag next to it: EINVAL, as an older daemon answers TOE_SUB_F_STREAM */
	m.flags = 0x2;
	CHECK_EQ(send(s, &m, sizeof m, MSG_NOSIGNAL), (ssize_t)sizeof m);
	CHECK_EQ(recv(s, &e, sizeof e, MSG_WAITALL), (ssize_t)sizeof e);
	CHECK_EQ(e.error, EINVAL);
	close(s);

	toe_close(ca);
	toe_close(cab);
	toe_close(cbt);
	toe_close(call);
	CHECK_EQ(th_quit(&p), 0);
}

/* A daemon without names refuses every name, saying so. */
static void test_no_names(void)
{
	struct pub_config pc = {.no_hugepages = 1};
	struct th_prod p;
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	struct toe_client *c;
	CHECK_EQ(toe_connect(&c, path, NULL), 0);
	struct toe_sub s = {.stream = "a"};
	CHECK_EQ(toe_subscribe(c, &s), -ENOENT);
	CHECK(strstr(toe_last_error(c), "no named streams") != NULL);
	toe_close(c);
	CHECK_EQ(th_quit(&p), 0);
}

int main(void)
{
	/* the ABI rule: the name took a reserved word, nothing moved */
	CHECK_EQ(sizeof(struct toe_sub), 80);
	CHECK_EQ(offsetof(struct toe_sub, stream), 48); /* where reserved[0] was */
	CHECK_EQ(offsetof(struct toe_sub, reserved), 56);
	th_tmpdir(dir, sizeof(dir));
	if (!dir[0])
		return test_skip("test_client_stream", "cannot create a temporary folder");
	snprintf(path, sizeof(path), "%s/toed.sock", dir);
	names_init();
	test_streams();
	test_no_names();
	th_rmdir(dir);
	return test_done("test_client_stream");
}
