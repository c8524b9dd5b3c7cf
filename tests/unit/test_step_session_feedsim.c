/* test_step_session_feedsim.c - a session client (kernels/step/step_sess.c, as
 * toed runs it) against toe-feedsim's session server (tools/feed/feed_sess.c)
 * in-process, over a socketpair: logon, data re-stamped into the session's
 * sequence, heartbeats both ways, TestRequest, the server's Logout; a refused
 * logon; a server that goes silent. Time is simulated (ms), so the test
 * takes no real time.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"
#include "feed/feed_sess.h"
#include "step_pair.h"

static struct end cli;
static int fds[2];

/* The client side of the socket: read what arrived, send what is queued. */
static void cli_io(uint64_t now)
{
	uint8_t in[4096];
	if (cli.s.out_len) {
		CHECK_EQ(send(fds[1], cli.s.out, cli.s.out_len, MSG_NOSIGNAL), (long long)cli.s.out_len);
		step_sess_sent(&cli.s);
	}
	for (;;) {
		ssize_t n = recv(fds[1], in, sizeof in, MSG_DONTWAIT);
		if (n <= 0)
			break;
		uint32_t off = 0;
		int st;
		for (int g = 0; g < 10000; g++) {
			off += step_feed(&cli.d, in + off, (uint32_t)n - off, &st);
			if (st == STEP_MSG) {
				if (cli.d.msg.raw)
					cli.r |= step_sess_on_msg(&cli.s, cli.d.msg.raw, cli.d.msg.len, now);
				else
					cli.r |= step_sess_on_data(&cli.s, cli.d.msg.seq, now);
			}
			if (st == STEP_NEED_MORE)
				break;
		}
	}
	end_events(&cli);
	if (cli.s.out_len) {
		CHECK_EQ(send(fds[1], cli.s.out, cli.s.out_len, MSG_NOSIGNAL), (long long)cli.s.out_len);
		step_sess_sent(&cli.s);
	}
}

static struct feed_sess *start(const char *pw, struct step_sess_cfg *sc)
{
	char err[128];
	CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	memset(sc, 0, sizeof *sc);
	snprintf(sc->sender, sizeof sc->sender, "SSE");
	snprintf(sc->target, sizeof sc->target, "TOED");
	snprintf(sc->username, sizeof sc->username, "vendor1");
	snprintf(sc->password, sizeof sc->password, "s3cret");
	sc->heartbeat_s = 30;
	struct feed_sess *fs = feed_sess_new(fds[0], sc, NULL, err, sizeof err);
	CHECK(fs != NULL);
	end_init(&cli, STEP_SESS_CLIENT, "TOED", "SSE", "vendor1", pw, 10);
	return fs;
}

static void stop(struct feed_sess *fs)
{
	feed_sess_free(fs);
	close(fds[0]);
	close(fds[1]);
}

/* A data message as the feed generator makes it (its own CompIDs and numbering). */
static uint32_t data_msg(uint8_t *buf, uint32_t cap, uint32_t i, uint32_t *start)
{
	uint8_t data[8];
	struct step_enc e;
	for (int k = 0; k < 8; k++)
		data[k] = (uint8_t)(i * 8 + (uint32_t)k);
	step_enc_begin(&e, buf, cap, "UA3201", "GEN", "ANY", 1000 + i, 0);
	step_enc_data(&e, data, 8);
	uint32_t n = step_enc_end(&e);
	*start = e.start;
	return n;
}

static void test_conversation(void)
{
	struct step_sess_cfg sc;
	struct feed_sess *fs = start("s3cret", &sc);
	const struct step_ev *e = NULL;
	uint64_t now = 1000;

	CHECK_EQ(feed_sess_service(fs, now), FEED_SESS_WAIT);
	cli.r = step_sess_connected(&cli.s, now);
	cli_io(now);
	CHECK_EQ(feed_sess_service(fs, now), FEED_SESS_UP);
	cli_io(now);
	CHECK_EQ(cli.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(end_count(&cli, STEP_EV_LOGGED_ON, &e), 1);
	if (e)
		CHECK_EQ(e->a, 10); /* the client's HeartBtInt is the one in force */

	/* data: re-stamped 2, 3, ... with the session's CompIDs, FAST bytes unchanged */
	uint8_t buf[256];
	for (uint32_t i = 0; i < 20; i++) {
		uint32_t st, n = data_msg(buf, sizeof buf, i, &st);
		CHECK_EQ(feed_sess_send_data(fs, buf + st, n, now), 2 + i);
	}
	/* read them one by one through the deframer to see the bytes too */
	{
		uint8_t in[8192];
		ssize_t n = recv(fds[1], in, sizeof in, 0);
		CHECK(n > 0);
		uint32_t off = 0, got = 0;
		int stt;
		for (int g = 0; g < 1000 && n > 0; g++) {
			off += step_feed(&cli.d, in + off, (uint32_t)n - off, &stt);
			if (stt == STEP_MSG) {
				struct step_fields f;
				CHECK_EQ(cli.d.msg.seq, 2 + got);
				CHECK_EQ(cli.d.msg.data_len, 8);
				CHECK_EQ(cli.d.msg.data[0], got * 8);
				CHECK(strcmp(cli.d.msg.msgtype, "UA3201") == 0);
				/* the re-stamped header: the session's CompIDs */
				CHECK_EQ(step_fields_read(in + (cli.d.msg.offset - (cli.d.offset - off)), cli.d.msg.len, &f), 0);
				CHECK(strcmp(f.sender, "SSE") == 0);
				CHECK(strcmp(f.target, "TOED") == 0);
				cli.r |= step_sess_on_data(&cli.s, cli.d.msg.seq, now);
				got++;
			}
			if (stt == STEP_NEED_MORE)
				break;
		}
		CHECK_EQ(got, 20);
	}
	CHECK_EQ(cli.s.in_expect, 22);
	CHECK_EQ(cli.s.st.in_gaps + cli.s.st.in_repeats, 0);

	/* idle: both send heartbeats every 10 s, nobody misses one */
	for (now = 2000; now <= 60000; now += 500) {
		feed_sess_service(fs, now);
		cli.r |= step_sess_tick(&cli.s, now);
		cli_io(now);
	}
	const struct step_sess *ss = feed_sess_state(fs);
	CHECK(ss->st.out_heartbeats >= 5);
	CHECK(cli.s.st.out_heartbeats >= 5);
	CHECK_EQ(cli.s.st.hb_missed + ss->st.hb_missed, 0);
	CHECK_EQ(cli.s.st.in_gaps + cli.s.st.in_repeats, 0);
	CHECK_EQ(ss->st.in_gaps + ss->st.in_repeats, 0);

	/* the server's Logout ends it */
	feed_sess_logout(fs, "end of feed", now);
	cli_io(now);
	CHECK_EQ(end_count(&cli, STEP_EV_PEER_LOGOUT, &e), 1);
	if (e)
		CHECK(strcmp(e->text, "end of feed") == 0);
	CHECK(cli.r & STEP_SESS_CLOSE);
	CHECK_EQ(feed_sess_service(fs, now), FEED_SESS_CLOSED);
	CHECK(strstr(feed_sess_why(fs), "logged out") != NULL);
	stop(fs);
}

static void test_refused(void)
{
	struct step_sess_cfg sc;
	struct feed_sess *fs = start("wrong", &sc);
	const struct step_ev *e = NULL;
	feed_sess_service(fs, 0);
	cli.r = step_sess_connected(&cli.s, 0);
	cli_io(0);
	CHECK_EQ(feed_sess_service(fs, 1), FEED_SESS_CLOSED);
	CHECK(strstr(feed_sess_why(fs), "wrong Password") != NULL);
	cli_io(1);
	CHECK_EQ(end_count(&cli, STEP_EV_LOGON_REFUSED, &e), 1);
	if (e)
		CHECK(strcmp(e->text, "wrong Password") == 0);
	CHECK(cli.r & STEP_SESS_CLOSE);
	CHECK_EQ(feed_sess_send_data(fs, (const uint8_t *)"x", 1, 2), 0);
	stop(fs);
}

/* The server stops answering: TestRequest after 12 s, given up after 24 s. */
static void test_silent_server(void)
{
	struct step_sess_cfg sc;
	struct feed_sess *fs = start("s3cret", &sc);
	feed_sess_service(fs, 0);
	cli.r = step_sess_connected(&cli.s, 0);
	cli_io(0);
	feed_sess_service(fs, 0);
	cli_io(0);
	CHECK_EQ(cli.s.state, STEP_SESS_ACTIVE);
	uint64_t now;
	for (now = 0; now <= 30000 && !(cli.r & STEP_SESS_CLOSE); now += 100) {
		cli.r |= step_sess_tick(&cli.s, now);
		cli_io(now);
	}
	CHECK_EQ(end_count(&cli, STEP_EV_HB_MISSED, NULL), 1);
	CHECK_EQ(end_count(&cli, STEP_EV_HB_TIMEOUT, NULL), 1);
	CHECK_EQ(now - 100, 24000); /* (10 s + 20 %) twice */
	stop(fs);
}

int main(void)
{
	test_conversation();
	test_refused();
	test_silent_server();
	return test_done("step_session_feedsim");
}
