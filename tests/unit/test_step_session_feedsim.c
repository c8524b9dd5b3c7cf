/* test_step_session_feedsim.c - a session client (kernels/step/step_sess.c, as
 * toed runs it) against toe-feedsim's session server (tools/feed/feed_sess.c)
 * in-process, over a socketpair: logon, data re-stamped into the session's
 * sequence, heartbeats both ways, TestRequest, the server's Logout; a refused
 * logon; a server that goes silent. Then two step_links (the byte-stream
 * adapter the daemon's connection hooks use) back to back, the bytes cut into
 * pieces of 1 to 7 bytes. Time is simulated (ms), so the test takes no real
 * time.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"
#include "feed/feed_sess.h"
#include "step/host/step_link.h"
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

/* Everything one link queued to the other, in pieces of 1..7 bytes. */
static uint32_t link_move(struct step_link *from, struct step_link *to, uint64_t now, uint32_t *rnd)
{
	uint32_t r = 0, off = 0, n = from->s.out_len;
	static uint8_t buf[STEP_SESS_OUT_MAX];
	memcpy(buf, from->s.out, n);
	step_sess_sent(&from->s);
	while (off < n) {
		*rnd = *rnd * 1103515245u + 12345u;
		uint32_t k = 1 + (*rnd >> 16) % 7;
		if (k > n - off)
			k = n - off;
		r |= step_link_bytes(to, buf + off, k, now);
		off += k;
	}
	return r;
}

static void test_links(void)
{
	static struct step_link c, sv;
	struct step_sess_cfg cc, sc;
	struct step_ev ev;
	uint32_t rnd = 7, rc = 0, rs = 0;
	memset(&cc, 0, sizeof cc);
	memset(&sc, 0, sizeof sc);
	cc.role = STEP_SESS_CLIENT;
	snprintf(cc.sender, sizeof cc.sender, "TOED");
	snprintf(cc.target, sizeof cc.target, "SSE");
	cc.heartbeat_s = 2;
	sc.role = STEP_SESS_SERVER;
	snprintf(sc.sender, sizeof sc.sender, "SSE");
	step_link_init(&c, &cc, 0);
	step_link_init(&sv, &sc, 0);
	step_link_open(&sv, 0);
	step_link_open(&c, 0);
	rs |= link_move(&c, &sv, 0, &rnd);
	rc |= link_move(&sv, &c, 0, &rnd);
	CHECK_EQ(c.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(sv.s.state, STEP_SESS_ACTIVE);
	/* data from the server, then 20 s of idle heartbeats both ways */
	uint8_t buf[256];
	for (uint32_t i = 0; i < 50; i++) {
		struct step_enc e;
		uint8_t d[3] = { 1, 2, (uint8_t)i };
		step_enc_begin(&e, buf, sizeof buf, "UA5801", "SSE", "TOED", step_sess_next_seq(&sv.s, 10), 0);
		step_enc_data(&e, d, 3);
		uint32_t n = step_enc_end(&e);
		for (uint32_t off = 0; off < n; off += 5)
			rc |= step_link_bytes(&c, buf + e.start + off, n - off < 5 ? n - off : 5, 10);
	}
	for (uint64_t now = 100; now <= 20000; now += 100) {
		rc |= step_link_tick(&c, now);
		rs |= step_link_tick(&sv, now);
		rs |= link_move(&c, &sv, now, &rnd);
		rc |= link_move(&sv, &c, now, &rnd);
	}
	CHECK_EQ(c.s.st.in_data, 50);
	CHECK(c.s.st.out_heartbeats >= 8);
	CHECK(sv.s.st.out_heartbeats >= 8);
	CHECK_EQ(c.s.st.hb_missed + sv.s.st.hb_missed, 0);
	CHECK_EQ(c.s.st.in_gaps + c.s.st.in_repeats + sv.s.st.in_gaps + sv.s.st.in_repeats, 0);
	CHECK_EQ(c.bad_frames + sv.bad_frames, 0);
	CHECK_EQ(c.s.in_expect, sv.s.out_seq);
	CHECK_EQ(sv.s.in_expect, c.s.out_seq);
	/* our Logout, answered */
	rc |= step_sess_logout(&c.s, "done", 20000);
	rs |= link_move(&c, &sv, 20000, &rnd);
	rc |= link_move(&sv, &c, 20000, &rnd);
	CHECK(rc & STEP_SESS_CLOSE);
	CHECK(rs & STEP_SESS_CLOSE);
	int logged_out = 0, peer_logout = 0;
	while (step_sess_event(&c.s, &ev))
		logged_out += ev.type == STEP_EV_LOGGED_OUT;
	while (step_sess_event(&sv.s, &ev))
		peer_logout += ev.type == STEP_EV_PEER_LOGOUT && strcmp(ev.text, "done") == 0;
	CHECK_EQ(logged_out, 1);
	CHECK_EQ(peer_logout, 1);
	/* a new connection starts a new byte stream: a half message left behind does not matter */
	step_link_bytes(&c, (const uint8_t *)"8=STEP.1.0.0\x01" "9=5", 15, 20001);
	step_link_close(&c, 20001);
	step_link_close(&sv, 20001);
	step_link_open(&sv, 30000);
	step_link_open(&c, 30000);
	CHECK_EQ(step_pending(&c.d), 0);
	link_move(&c, &sv, 30000, &rnd);
	link_move(&sv, &c, 30000, &rnd);
	CHECK_EQ(c.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(c.bad_frames, 0);
}

int main(void)
{
	test_conversation();
	test_refused();
	test_silent_server();
	test_links();
	return test_done("step_session_feedsim");
}
