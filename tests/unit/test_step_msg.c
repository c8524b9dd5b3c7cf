/* test_step_msg.c - the STEP session message encoder and field reader
 * (kernels/step/step_msg.c), against hand-written messages and through the
 * deframer (kernels/fast/step_deframe.c), whole and byte by byte.
 *
 * BodyLength was counted field by field (see the comments); CheckSum and the
 * epoch milliseconds were computed separately (Python: sum of the bytes
 * before "10=" mod 256; datetime(...).timestamp()).
 */
#include <string.h>

#include "test.h"
#include "fast/step_deframe.h"
#include "step/step_msg.h"

#define SOH "\x01"

/* Heartbeat answering TestRequest T1, 2026-12-01 09:30:00.123 UTC = 1796117400123 ms.
 * Body: "35=0|" 5 + "49=TOED|" 8 + "56=SSE|" 7 + "34=7|" 5 + "52=20261201-09:30:00.123|" 25
 *     + "112=T1|" 7 = 57. */
static const char hb_want[] = "8=STEP.1.0.0" SOH "9=57" SOH "35=0" SOH "49=TOED" SOH "56=SSE" SOH "34=7" SOH
			      "52=20261201-09:30:00.123" SOH "112=T1" SOH "10=232" SOH;

/* Logon at the epoch. Body: "35=A|" 5 + "49=TOED|" 8 + "56=SSE|" 7 + "34=1|" 5
 *     + "52=19700101-00:00:00.000|" 25 + "98=0|" 5 + "108=30|" 7 + "553=user|" 9 + "554=pw|" 7 = 78. */
static const char logon_want[] = "8=STEP.1.0.0" SOH "9=78" SOH "35=A" SOH "49=TOED" SOH "56=SSE" SOH "34=1" SOH
				 "52=19700101-00:00:00.000" SOH "98=0" SOH "108=30" SOH "553=user" SOH
				 "554=pw" SOH "10=008" SOH;

static uint32_t enc_hb(uint8_t *buf, uint32_t cap, struct step_enc *e)
{
	step_enc_begin(e, buf, cap, "0", "TOED", "SSE", 7, 1796117400123ull);
	step_enc_str(e, STEP_TAG_TEST_REQ_ID, "T1");
	return step_enc_end(e);
}

static void test_encode(void)
{
	uint8_t buf[256];
	struct step_enc e;
	uint32_t n = enc_hb(buf, sizeof buf, &e);
	CHECK_EQ(n, sizeof hb_want - 1);
	CHECK_MEM(buf + e.start, hb_want, sizeof hb_want - 1);

	step_enc_begin(&e, buf, sizeof buf, "A", "TOED", "SSE", 1, 0);
	step_enc_u64(&e, STEP_TAG_ENCRYPT_METHOD, 0);
	step_enc_u64(&e, STEP_TAG_HEARTBT_INT, 30);
	step_enc_str(&e, STEP_TAG_USERNAME, "user");
	step_enc_str(&e, STEP_TAG_PASSWORD, "pw");
	n = step_enc_end(&e);
	CHECK_EQ(n, sizeof logon_want - 1);
	CHECK_MEM(buf + e.start, logon_want, sizeof logon_want - 1);

	/* the capacity that just fits works, one byte less does not */
	uint32_t need = e.start + n;
	CHECK_EQ(enc_hb(buf, (uint32_t)(STEP_ENC_HDR + 57 + 7), &e), sizeof hb_want - 1);
	CHECK_EQ(enc_hb(buf, (uint32_t)(STEP_ENC_HDR + 57 + 6), &e), 0);
	(void)need;
}

static void test_time(void)
{
	char t[22];
	step_fmt_time(951868799999ull, t); /* leap day 2000 */
	CHECK(strcmp(t, "20000229-23:59:59.999") == 0);
	step_fmt_time(0, t);
	CHECK(strcmp(t, "19700101-00:00:00.000") == 0);
	step_fmt_time(1796117400123ull, t);
	CHECK(strcmp(t, "20261201-09:30:00.123") == 0);
}

/* Through the deframer: one message whole and byte by byte, raw must be it. */
static void deframe_check(const uint8_t *m, uint32_t n)
{
	static struct step_deframer d;
	int st, got = 0;
	step_init(&d);
	uint32_t used = step_feed(&d, m, n, &st);
	CHECK_EQ(st, STEP_MSG);
	CHECK_EQ(used, n);
	CHECK_EQ(d.msg.len, n);
	CHECK(d.msg.raw != NULL);
	if (d.msg.raw)
		CHECK_MEM(d.msg.raw, m, n);

	step_init(&d);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;
		do {
			k += step_feed(&d, m + i + k, 1 - k, &st);
			if (st == STEP_MSG) {
				got++;
				CHECK_EQ(d.msg.len, n);
				CHECK(d.msg.raw != NULL);
				if (d.msg.raw)
					CHECK_MEM(d.msg.raw, m, n);
			}
			CHECK(st != STEP_ERROR);
		} while (st != STEP_NEED_MORE);
	}
	CHECK_EQ(got, 1);
}

static void test_deframe(void)
{
	uint8_t buf[256], data[5] = { 1, 2, 0x01, 0x80, 'x' };
	struct step_enc e;
	uint32_t n = enc_hb(buf, sizeof buf, &e);
	deframe_check(buf + e.start, n);

	/* a data message made by the encoder passes the deframer too; raw is NULL for it */
	step_enc_begin(&e, buf, sizeof buf, "UA3201", "SSE", "TOED", 12, 0);
	step_enc_data(&e, data, 5);
	n = step_enc_end(&e);
	CHECK(n > 0);
	static struct step_deframer d;
	int st;
	step_init(&d);
	step_feed(&d, buf + e.start, n, &st);
	CHECK_EQ(st, STEP_MSG);
	CHECK_EQ(d.msg.seq, 12);
	CHECK_EQ(d.msg.data_len, 5);
	CHECK_MEM(d.msg.data, data, 5);
	CHECK(d.msg.raw == NULL);
}

static void test_read(void)
{
	struct step_fields f;
	CHECK_EQ(step_fields_read((const uint8_t *)logon_want, sizeof logon_want - 1, &f), 0);
	CHECK(strcmp(f.msgtype, "A") == 0);
	CHECK_EQ(f.seq, 1);
	CHECK(strcmp(f.sender, "TOED") == 0);
	CHECK(strcmp(f.target, "SSE") == 0);
	CHECK(strcmp(f.username, "user") == 0);
	CHECK(strcmp(f.password, "pw") == 0);
	CHECK_EQ(f.has_heartbeat, 1);
	CHECK_EQ(f.heartbeat_s, 30);
	CHECK_EQ(f.has_encrypt, 1);
	CHECK_EQ(f.too_long, 0);

	CHECK_EQ(step_fields_read((const uint8_t *)hb_want, sizeof hb_want - 1, &f), 0);
	CHECK(strcmp(f.test_req_id, "T1") == 0);
	CHECK_EQ(f.has_heartbeat, 0);

	/* data with SOH inside is skipped by its length */
	static const char dm[] = "8=STEP.1.0.0" SOH "9=30" SOH "35=UA3201" SOH "34=9" SOH "95=3" SOH
				 "96=\x01\x01\x01" SOH "58=after" SOH "10=000" SOH;
	CHECK_EQ(step_fields_read((const uint8_t *)dm, sizeof dm - 1, &f), 0);
	CHECK_EQ(f.data_len, 3);
	CHECK(strcmp(f.text, "after") == 0);
	CHECK_EQ(f.seq, 9);

	/* too long ids are flagged, text is cut */
	char big[400];
	int k = snprintf(big, sizeof big, "35=A" SOH "49=%s" SOH "58=", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
	for (int i = 0; i < 200; i++)
		big[k++] = 't';
	big[k++] = 0x01;
	CHECK_EQ(step_fields_read((const uint8_t *)big, (uint32_t)k, &f), 0);
	CHECK_EQ(f.too_long, 1);
	CHECK_EQ(f.text_cut, 1);
	CHECK_EQ(strlen(f.text), STEP_TEXT_MAX - 1);

	/* malformed: no '=', no SOH at the end, no 35=, a 96= running past the end, bad number */
	static const char *bad[] = { "35A" SOH, "35=A", "34=1" SOH, "35=A" SOH "95=9" SOH "96=ab" SOH,
				     "35=A" SOH "34=x1" SOH };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK_EQ(step_fields_read((const uint8_t *)bad[i], (uint32_t)strlen(bad[i]), &f), -1);
	CHECK_EQ(step_fields_read((const uint8_t *)"", 0, &f), -1);

	CHECK_EQ(step_is_admin("A"), 1);
	CHECK_EQ(step_is_admin("5"), 1);
	CHECK_EQ(step_is_admin("6"), 0);
	CHECK_EQ(step_is_admin("UA3201"), 0);
	CHECK_EQ(step_is_admin(""), 0);
}

int main(void)
{
	test_encode();
	test_time();
	test_deframe();
	test_read();
	return test_done("step_msg");
}
