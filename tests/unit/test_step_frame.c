/* test_step_frame.c - STEP framing (step_frame.c) against hand-written messages,
 * and through the deframer (step_deframe.c) back to the same payload.
 *
 * The expected messages are written out in full. BodyLength was counted
 * field by field (see the comments); CheckSum is the byte sum of everything
 * before "10=" modulo 256, computed separately from this code.
 */
#include <string.h>

#include "test.h"
#include "fast/host/step_frame.h"
#include "fast/step_deframe.h"

#define SOH "\x01"

static void check_msg(const struct step_hdr *h, const uint8_t *data, uint32_t n, const char *want,
		      size_t want_len)
{
	uint8_t out[512];
	int len = step_frame(h, data, n, out, sizeof out);
	CHECK_EQ(len, (long long)want_len);
	if (len == (int)want_len)
		CHECK_MEM(out, want, want_len);
	/* exactly the right capacity works, one byte less does not */
	CHECK_EQ(step_frame(h, data, n, out, want_len), (long long)want_len);
	CHECK_EQ(step_frame(h, data, n, out, want_len - 1), -1);
}

/* All header fields, binary data containing SOH and bytes >= 0x80.
 * Body: "35=UA3201|" 10 + "49=SSE|" 7 + "56=VDE|" 7 + "34=7|" 5
 *     + "52=20250102-09:30:00.000|" 25 + "95=3|" 5 + "96=" 3 + 3 data + "|" 1 = 66. */
static void test_full(void)
{
	static const uint8_t data[3] = { 0xc0, 0x01, 0x99 };
	static const char want[] = "8=STEP.1.0.0" SOH "9=66" SOH "35=UA3201" SOH "49=SSE" SOH "56=VDE" SOH
				   "34=7" SOH "52=20250102-09:30:00.000" SOH "95=3" SOH
				   "96=\xc0\x01\x99" SOH "10=078" SOH;
	struct step_hdr h = { "UA3201", "SSE", "VDE", 7, "20250102-09:30:00.000" };
	check_msg(&h, data, 3, want, sizeof want - 1);
}

/* 49/56/52 omitted when NULL, empty data.
 * Body: "35=UA5801|" 10 + "34=12|" 6 + "95=0|" 5 + "96=|" 4 = 25. */
static void test_minimal(void)
{
	static const char want[] = "8=STEP.1.0.0" SOH "9=25" SOH "35=UA5801" SOH "34=12" SOH "95=0" SOH
				   "96=" SOH "10=070" SOH;
	struct step_hdr h = { "UA5801", NULL, NULL, 12, NULL };
	check_msg(&h, NULL, 0, want, sizeof want - 1);
}

/* A three-digit BodyLength and a long MsgSeqNum: data bytes 0..99.
 * Body: "35=UA3201|" 10 + "34=1234567890123|" 17 + "95=100|" 7 + "96=" 3 + 100 + "|" 1 = 138. */
static void test_long(void)
{
	uint8_t data[100], out[512];
	for (int i = 0; i < 100; i++)
		data[i] = (uint8_t)i;
	struct step_hdr h = { "UA3201", NULL, NULL, 1234567890123ull, NULL };
	int len = step_frame(&h, data, 100, out, sizeof out);
	static const char head[] = "8=STEP.1.0.0" SOH "9=138" SOH "35=UA3201" SOH "34=1234567890123" SOH
				   "95=100" SOH "96=";
	static const char tail[] = SOH "10=106" SOH;
	size_t want = sizeof head - 1 + 100 + sizeof tail - 1;
	CHECK_EQ(len, (long long)want);
	if (len == (int)want) {
		CHECK_MEM(out, head, sizeof head - 1);
		CHECK_MEM(out + sizeof head - 1, data, 100);
		CHECK_MEM(out + sizeof head - 1 + 100, tail, sizeof tail - 1);
	}
}

/* Framed messages go through the deframer unchanged, fed byte by byte. */
static void test_deframe(void)
{
	uint8_t buf[2048], data[300];
	size_t total = 0;
	for (int i = 0; i < 300; i++)
		data[i] = (uint8_t)(i * 7 + 1);
	static const uint32_t sizes[3] = { 3, 0, 300 };
	for (int m = 0; m < 3; m++) {
		struct step_hdr h = { m == 1 ? "UA5801" : "UA3201", "SSE", m == 2 ? NULL : "VDE",
				      (uint64_t)(100 + m), m == 0 ? "20250102-13:00:00.120" : NULL };
		int len = step_frame(&h, data, sizes[m], buf + total, sizeof buf - total);
		CHECK(len > 0);
		if (len <= 0)
			return;
		total += (size_t)len;
	}
	static struct step_deframer s;
	step_init(&s);
	int got = 0;
	for (size_t off = 0; off < total; off++) {
		uint32_t used = 0;
		while (used < 1) {
			int st;
			used += step_feed(&s, buf + off + used, 1 - used, &st);
			CHECK(st != STEP_ERROR);
			if (st == STEP_ERROR)
				return;
			if (st == STEP_MSG) {
				CHECK(got < 3);
				if (got >= 3)
					return;
				CHECK_EQ(s.msg.seq, 100 + got);
				CHECK_EQ(s.msg.data_len, sizes[got]);
				if (s.msg.data_len == sizes[got] && sizes[got])
					CHECK_MEM(s.msg.data, data, sizes[got]);
				CHECK(strcmp(s.msg.msgtype, got == 1 ? "UA5801" : "UA3201") == 0);
				got++;
			}
		}
	}
	CHECK_EQ(got, 3);
}

int main(void)
{
	test_full();
	test_minimal();
	test_long();
	test_deframe();
	return test_done("step_frame");
}
