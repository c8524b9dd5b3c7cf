/* test_step_session.c - the STEP session state machine (kernels/step/step_sess.c),
 * a client and a server connected back to back through the deframer
 * (step_pair.h): logon accepted and refused, heartbeats, heartbeat timeout,
 * TestRequest, logout both ways, reconnect and re-logon, sequence restarts,
 * gaps and repeats, ResendRequest and SequenceReset.
 *
 * Times are the caller's milliseconds; the expected heartbeat instants come
 * from the rule in step_sess.h (Heartbeat after HeartBtInt without sending,
 * TestRequest after HeartBtInt + max(20 %, 1 s) of silence, give up after as
 * long again).
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "step_pair.h"
#include "step/host/step_ev_fmt.h"

static struct end cli, srv;

static void test_logon_ok(void)
{
	const struct step_ev *e = NULL;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 1000);
	CHECK_EQ(cli.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(srv.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(end_count(&cli, STEP_EV_LOGGED_ON, &e), 1);
	if (e) {
		CHECK_EQ(e->a, 30); /* the server takes the client's HeartBtInt and says so */
		CHECK_EQ(e->b, 1);
		CHECK(strcmp(e->text, "SSE") == 0);
	}
	CHECK_EQ(end_count(&srv, STEP_EV_LOGGED_ON, &e), 1);
	if (e)
		CHECK(strcmp(e->text, "TOED") == 0);
	CHECK_EQ(srv.s.hb_s, 30);
	CHECK_EQ(cli.s.out_seq, 2);
	CHECK_EQ(cli.s.in_expect, 2);
	CHECK_EQ(srv.s.in_expect, 2);
	CHECK_EQ((cli.r | srv.r) & STEP_SESS_CLOSE, 0);
	CHECK_EQ(cli.s.st.logons, 1);
}

static void refused(const char *user, const char *pw, const char *sender, const char *reason)
{
	const struct step_ev *e = NULL;
	end_init(&cli, STEP_SESS_CLIENT, sender, "SSE", user, pw, 30);
	end_init(&srv, STEP_SESS_SERVER, "SSE", "TOED", "user", "secret", 5);
	pair_logon(&cli, &srv, 0);
	CHECK_EQ(end_count(&cli, STEP_EV_LOGON_REFUSED, &e), 1);
	if (e)
		CHECK(strcmp(e->text, reason) == 0);
	CHECK_EQ(end_count(&srv, STEP_EV_REFUSED_PEER, NULL), 1);
	CHECK_EQ(end_count(&cli, STEP_EV_LOGGED_ON, NULL), 0);
	CHECK(cli.r & STEP_SESS_CLOSE);
	CHECK(srv.r & STEP_SESS_CLOSE);
	CHECK_EQ(cli.s.state, STEP_SESS_CLOSING);
	CHECK_EQ(srv.s.state, STEP_SESS_CLOSING);
	CHECK_EQ(cli.s.st.logon_refused, 1);
	/* the closed connection */
	step_sess_disconnected(&cli.s, 1);
	end_events(&cli);
	CHECK_EQ(end_count(&cli, STEP_EV_DISCONNECTED, &e), 1);
	if (e)
		CHECK_EQ(e->a, 1); /* expected: the session was closing */
}

static void test_logon_refused(void)
{
	refused("user", "guess", "TOED", "wrong Password");
	refused("intruder", "secret", "TOED", "unknown Username");
	refused("user", "secret", "OTHER", "unknown SenderCompID");
}

/* A client whose Logon is never answered gives up after the logon timeout. */
static void test_logon_timeout(void)
{
	pair_setup(&cli, &srv, 30);
	cli.r = step_sess_connected(&cli.s, 0);
	CHECK(cli.r & STEP_SESS_SEND);
	step_sess_sent(&cli.s);
	tick(&cli, 9999);
	CHECK_EQ(cli.s.state, STEP_SESS_LOGON_SENT);
	tick(&cli, 10000);
	CHECK_EQ(end_count(&cli, STEP_EV_LOGON_TIMEOUT, NULL), 1);
	CHECK(cli.r & STEP_SESS_CLOSE);

	/* a server whose peer talks before logging on refuses it */
	pair_setup(&cli, &srv, 30);
	srv.r = step_sess_connected(&srv.s, 0);
	cli.s.state = STEP_SESS_ACTIVE; /* a client that skips its Logon */
	cli.r = step_sess_logout(&cli.s, "", 0);
	end_deliver(&cli, &srv, 1);
	CHECK_EQ(end_count(&srv, STEP_EV_PROTOCOL, NULL), 1);
	CHECK(srv.r & STEP_SESS_CLOSE);
}

static void test_heartbeat_idle(void)
{
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0);
	cli.r = srv.r = 0;
	tick(&cli, 29999);
	CHECK_EQ(cli.s.out_len, 0);
	tick(&cli, 30000);
	CHECK(cli.r & STEP_SESS_SEND);
	CHECK_EQ(cli.s.st.out_heartbeats, 1);
	CHECK_EQ(end_deliver(&cli, &srv, 30000), 1);
	CHECK_EQ(srv.s.st.in_admin, 2); /* Logon + Heartbeat */
	/* the server sends its own when it has been idle as long */
	tick(&srv, 30000);
	CHECK_EQ(srv.s.st.out_heartbeats, 1);
	end_deliver(&srv, &cli, 30000);
	/* sending resets the idle clock: nothing new before 60000 */
	tick(&cli, 59999);
	CHECK_EQ(cli.s.out_len, 0);
	CHECK_EQ(cli.s.st.out_test_requests, 0);
	tick(&cli, 60000);
	CHECK_EQ(cli.s.st.out_heartbeats, 2);
	CHECK_EQ(end_count(&cli, STEP_EV_HB_MISSED, NULL), 0);
}

static void test_heartbeat_timeout(void)
{
	const struct step_ev *e = NULL;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0);
	srv.cut = 1; /* the server's sends vanish */
	/* silence limit: 30 s + max(6 s, 1 s) = 36 s */
	tick(&cli, 35999);
	CHECK_EQ(cli.s.st.out_test_requests, 0);
	tick(&cli, 36000);
	CHECK_EQ(cli.s.st.out_test_requests, 1);
	CHECK_EQ(end_count(&cli, STEP_EV_HB_MISSED, &e), 1);
	if (e)
		CHECK_EQ(e->a, 36000);
	/* the server answers the TestRequest, but the answer is lost */
	pump(&cli, &srv, 36000);
	CHECK_EQ(srv.s.st.out_heartbeats, 1);
	tick(&cli, 71999);
	CHECK_EQ(cli.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(cli.s.st.out_test_requests, 1); /* one outstanding at a time */
	tick(&cli, 72000);
	CHECK_EQ(end_count(&cli, STEP_EV_HB_TIMEOUT, NULL), 1);
	CHECK(cli.r & STEP_SESS_CLOSE);
	CHECK_EQ(cli.s.state, STEP_SESS_CLOSING);
	CHECK_EQ(cli.s.st.hb_timeouts, 1);
	cli.r = 0;
	tick(&cli, 73000); /* still asking to be closed */
	CHECK(cli.r & STEP_SESS_CLOSE);
}

/* The TestRequest is answered: the session carries on. */
static void test_test_request(void)
{
	struct step_fields f;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0);
	tick(&cli, 36000);
	CHECK_EQ(cli.s.st.out_test_requests, 1);
	CHECK(cli.s.test_pending);
	end_deliver(&cli, &srv, 36000);
	/* the server's answer is a Heartbeat carrying the TestReqID */
	CHECK(srv.s.out_len > 0);
	CHECK_EQ(step_fields_read(srv.s.out, srv.s.out_len, &f), 0);
	CHECK(strcmp(f.msgtype, "0") == 0);
	CHECK(strcmp(f.test_req_id, "T1") == 0);
	end_deliver(&srv, &cli, 36001);
	CHECK_EQ(cli.s.test_pending, 0);
	tick(&cli, 72000);
	CHECK_EQ(cli.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(end_count(&cli, STEP_EV_HB_TIMEOUT, NULL), 0);
}

static void test_peer_logout(void)
{
	const struct step_ev *e = NULL;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0);
	srv.r = step_sess_logout(&srv.s, "end of day", 100);
	CHECK(srv.r & STEP_SESS_SEND);
	CHECK_EQ(srv.s.state, STEP_SESS_LOGOUT_SENT);
	pump(&srv, &cli, 100);
	CHECK_EQ(end_count(&cli, STEP_EV_PEER_LOGOUT, &e), 1);
	if (e) {
		char line[200];
		CHECK(strcmp(e->text, "end of day") == 0);
		step_ev_format(e, line, sizeof line);
		CHECK(strcmp(line, "peer logged out: end of day") == 0);
	}
	CHECK(cli.r & STEP_SESS_CLOSE);
	CHECK_EQ(end_count(&srv, STEP_EV_LOGGED_OUT, &e), 1);
	if (e)
		CHECK_EQ(e->a, 0); /* answered, not timed out */
	CHECK(srv.r & STEP_SESS_CLOSE);

	/* our own logout, unanswered: given up after STEP_SESS_LOGOUT_WAIT_MS */
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0);
	srv.cut = 1;
	cli.r = step_sess_logout(&cli.s, "bye", 10);
	pump(&cli, &srv, 10);
	tick(&cli, 10 + STEP_SESS_LOGOUT_WAIT_MS - 1);
	CHECK_EQ(cli.s.state, STEP_SESS_LOGOUT_SENT);
	tick(&cli, 10 + STEP_SESS_LOGOUT_WAIT_MS);
	CHECK_EQ(end_count(&cli, STEP_EV_LOGGED_OUT, &e), 1);
	if (e)
		CHECK_EQ(e->a, 1);
	CHECK(cli.r & STEP_SESS_CLOSE);
}

/* Disconnect without logout, reconnect, log on again: both sequences go on. */
static void test_reconnect(void)
{
	const struct step_ev *e = NULL;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0);
	for (int i = 0; i < 3; i++)
		step_sess_on_data(&cli.s, step_sess_next_seq(&srv.s, 10), 10);
	CHECK_EQ(cli.s.in_expect, 5);
	step_sess_disconnected(&cli.s, 20);
	step_sess_disconnected(&srv.s, 20);
	end_events(&cli);
	CHECK_EQ(end_count(&cli, STEP_EV_DISCONNECTED, &e), 1);
	if (e)
		CHECK_EQ(e->a, 0); /* unexpected */
	CHECK_EQ(cli.s.state, STEP_SESS_DOWN);
	CHECK_EQ(step_sess_on_data(&cli.s, 99, 21), 0);
	CHECK_EQ(cli.s.st.in_ignored, 1);

	pair_logon(&cli, &srv, 5000);
	CHECK_EQ(cli.s.state, STEP_SESS_ACTIVE);
	CHECK_EQ(end_count(&cli, STEP_EV_LOGGED_ON, &e), 2);
	if (e)
		CHECK_EQ(e->b, 5); /* the server's Logon answer continues its sequence */
	CHECK_EQ(cli.s.out_seq, 3); /* Logon 1, Logon 2 */
	CHECK_EQ(srv.s.in_expect, 3);
	CHECK_EQ(end_count(&cli, STEP_EV_SEQ_GAP, NULL) + end_count(&cli, STEP_EV_SEQ_RESET, NULL), 0);
	CHECK_EQ(end_count(&srv, STEP_EV_SEQ_GAP, NULL) + end_count(&srv, STEP_EV_SEQ_RESET, NULL), 0);
}

/* The exchange restarted (a new server session): its Logon answer is MsgSeqNum 1. */
static void test_seq_reset(void)
{
	const struct step_ev *e = NULL;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0);
	for (int i = 0; i < 9; i++)
		step_sess_on_data(&cli.s, step_sess_next_seq(&srv.s, 10), 10);
	CHECK_EQ(cli.s.in_expect, 11);
	step_sess_disconnected(&cli.s, 20);
	end_init(&srv, STEP_SESS_SERVER, "SSE", "TOED", "user", "secret", 5);
	pair_logon(&cli, &srv, 100);
	CHECK_EQ(end_count(&cli, STEP_EV_SEQ_RESET, &e), 1);
	if (e) {
		CHECK_EQ(e->a, 11);
		CHECK_EQ(e->b, 1);
	}
	CHECK_EQ(cli.s.st.seq_resets, 1);
	CHECK_EQ(cli.s.in_expect, 2);
	CHECK_EQ(cli.s.st.in_repeats, 0);
	/* the new server did not know the client: client seq 2 after its 1 is a gap
	 * only for a server that expected more; a fresh one takes it */
	CHECK_EQ(srv.s.in_expect, 3);

	/* reset_on_logon: the client asks for 141=Y and both ends start at 1 */
	pair_setup(&cli, &srv, 30);
	cli.s.cfg.reset_on_logon = 1;
	pair_logon(&cli, &srv, 0);
	for (int i = 0; i < 4; i++)
		step_sess_on_data(&cli.s, step_sess_next_seq(&srv.s, 10), 10);
	step_sess_disconnected(&cli.s, 20);
	step_sess_disconnected(&srv.s, 20);
	pair_logon(&cli, &srv, 100);
	CHECK_EQ(cli.s.out_seq, 2);
	CHECK_EQ(srv.s.out_seq, 2);
	CHECK_EQ(end_count(&cli, STEP_EV_SEQ_RESET, &e), 1);
	if (e)
		CHECK_EQ(e->a, 6);
	CHECK_EQ(end_count(&srv, STEP_EV_SEQ_RESET, &e), 1);
	if (e) {
		CHECK_EQ(e->a, 2);
		CHECK_EQ(e->b, 1);
	}
}

static void test_gaps_repeats(void)
{
	const struct step_ev *e = NULL;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0); /* client expects 2 */
	step_sess_on_data(&cli.s, 2, 1);
	step_sess_on_data(&cli.s, 3, 1);
	step_sess_on_data(&cli.s, 7, 1); /* 4, 5, 6 missing */
	step_sess_on_data(&cli.s, 8, 1);
	step_sess_on_data(&cli.s, 5, 1); /* late or repeated */
	step_sess_on_data(&cli.s, 8, 1);
	step_sess_on_data(&cli.s, 20, 1); /* 9..19 missing */
	end_events(&cli);
	CHECK_EQ(cli.s.st.in_gaps, 2);
	CHECK_EQ(cli.s.st.in_gap_msgs, 3 + 11);
	CHECK_EQ(cli.s.st.in_repeats, 2);
	CHECK_EQ(cli.s.in_expect, 21);
	CHECK_EQ(end_count(&cli, STEP_EV_SEQ_GAP, &e), 2);
	if (e) {
		char line[200];
		CHECK_EQ(e->a, 9);
		CHECK_EQ(e->b, 20);
		step_ev_format(e, line, sizeof line);
		CHECK(strcmp(line, "MsgSeqNum gap: expected 9, got 20 (11 missing)") == 0);
	}
	step_sess_on_data(&cli.s, 0, 1); /* no MsgSeqNum: counted, nothing else */
	CHECK_EQ(cli.s.st.in_no_seq, 1);
	CHECK_EQ(cli.s.in_expect, 21);
	CHECK_EQ(end_count(&cli, STEP_EV_SEQ_REPEAT, &e), 2);
	if (e) {
		CHECK_EQ(e->a, 9);
		CHECK_EQ(e->b, 8);
	}
	CHECK_EQ(cli.s.st.in_data, 8);

	/* a session message out of sequence counts the same; a possible duplicate is no repeat */
	uint8_t buf[256];
	struct step_enc en;
	step_enc_begin(&en, buf, sizeof buf, "0", "SSE", "TOED", 15, 0);
	step_enc_str(&en, STEP_TAG_POSS_DUP, "Y");
	uint32_t n = step_enc_end(&en);
	step_sess_on_msg(&cli.s, buf + en.start, n, 2);
	CHECK_EQ(cli.s.st.in_possdup, 1);
	CHECK_EQ(cli.s.st.in_repeats, 2);
	step_enc_begin(&en, buf, sizeof buf, "0", "SSE", "TOED", 23, 0);
	n = step_enc_end(&en);
	step_sess_on_msg(&cli.s, buf + en.start, n, 2);
	CHECK_EQ(cli.s.st.in_gaps, 3);
	CHECK_EQ(cli.s.in_expect, 24);

	/* SequenceReset-Reset moves the expectation without a gap */
	step_enc_begin(&en, buf, sizeof buf, "4", "SSE", "TOED", 1, 0);
	step_enc_u64(&en, STEP_TAG_NEW_SEQ_NO, 100);
	n = step_enc_end(&en);
	step_sess_on_msg(&cli.s, buf + en.start, n, 3);
	end_events(&cli);
	CHECK_EQ(cli.s.in_expect, 100);
	CHECK_EQ(end_count(&cli, STEP_EV_SEQ_SET, &e), 1);
	CHECK_EQ(cli.s.st.in_gaps, 3);
	CHECK_EQ(cli.s.st.in_repeats, 2);
}

/* A peer's ResendRequest is answered with one SequenceReset-GapFill. */
static void test_resend_request(void)
{
	struct step_fields f;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 0);
	tick(&cli, 30000); /* Heartbeat 2 */
	end_deliver(&cli, &srv, 30000);
	tick(&cli, 60000); /* TestRequest 3 (the server has been silent) */
	end_deliver(&cli, &srv, 60000);
	step_sess_sent(&srv.s); /* its answer is not needed here */
	CHECK_EQ(cli.s.out_seq, 4);
	uint8_t buf[256];
	struct step_enc en;
	step_enc_begin(&en, buf, sizeof buf, "2", "SSE", "TOED", 2, 0);
	step_enc_u64(&en, STEP_TAG_BEGIN_SEQ_NO, 2);
	step_enc_u64(&en, STEP_TAG_END_SEQ_NO, 0);
	uint32_t n = step_enc_end(&en);
	cli.r = step_sess_on_msg(&cli.s, buf + en.start, n, 60001);
	CHECK(cli.r & STEP_SESS_SEND);
	CHECK_EQ(step_fields_read(cli.s.out, cli.s.out_len, &f), 0);
	CHECK(strcmp(f.msgtype, "4") == 0);
	CHECK_EQ(f.seq, 2);
	CHECK_EQ(f.gap_fill, 1);
	CHECK_EQ(f.poss_dup, 1);
	CHECK_EQ(f.new_seq, 4);
	CHECK_EQ(cli.s.out_seq, 4); /* a gap fill takes no new number */
	/* and the server, which sees 2 again after 3, takes it as a possible duplicate, then 4 */
	end_deliver(&cli, &srv, 60001);
	CHECK_EQ(srv.s.st.in_possdup, 1);
}

int main(void)
{
	test_logon_ok();
	test_logon_refused();
	test_logon_timeout();
	test_heartbeat_idle();
	test_heartbeat_timeout();
	test_test_request();
	test_peer_logout();
	test_reconnect();
	test_seq_reset();
	test_gaps_repeats();
	test_resend_request();
	return test_done("step_session");
}
