/* test_step_rec.c - session events as client records (kernels/step/step_rec.c):
 * a real session pair (step_pair.h) logs on, misses heartbeats, is logged out
 * with a long reason; each event's record says the right code (the public
 * TOE_SESS_* constants), the MsgSeqNums in force, where it belongs, and a
 * reason longer than the field is cut to 47 characters, NUL-terminated and
 * flagged. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "step_pair.h"
#include "step/step_rec.h"

static struct end cli, srv;
static const struct step_rec_where where = {.stream = 3, .group = 2, .line = 1, .clock = TOE_CLK_POLL,
					    .rx_ns = 1234567890123ull};

/* The record of the client's last event of a type. */
static int rec_of(uint32_t type, union toe_record *r)
{
	const struct step_ev *e = NULL;
	if (!end_count(&cli, type, &e) || !e)
		return 0;
	return step_rec_from_ev(r, e, 0, &cli.s, &where);
}

static void test_abi(void)
{
	union toe_record r;
	CHECK_EQ(sizeof r.session, 128);
	CHECK_EQ(offsetof(struct toe_session, event), 40);
	CHECK_EQ(offsetof(struct toe_session, text), 80);
	CHECK_EQ(TOE_REC_SESSION, 5);
	/* the codes clients compiled against stay what the header says */
	CHECK_EQ(step_rec_code(STEP_EV_LOGGED_ON), 2);
	CHECK_EQ(step_rec_code(STEP_EV_LOGON_REFUSED), 3);
	CHECK_EQ(step_rec_code(STEP_EV_LOGON_TIMEOUT), 4);
	CHECK_EQ(step_rec_code(STEP_EV_HB_MISSED), 5);
	CHECK_EQ(step_rec_code(STEP_EV_HB_TIMEOUT), 6);
	CHECK_EQ(step_rec_code(STEP_EV_PEER_LOGOUT), 7);
	CHECK_EQ(step_rec_code(STEP_EV_LOGGED_OUT), 9);
	CHECK_EQ(step_rec_code(STEP_EV_DISCONNECTED), 10);
	CHECK_EQ(step_rec_code(STEP_EV_SEQ_RESET), 12);
	CHECK_EQ(step_rec_code(STEP_EV_SEQ_GAP), 13);
	CHECK_EQ(step_rec_code(STEP_EV_SEQ_REPEAT), 14);
	CHECK_EQ(step_rec_code(STEP_EV_SEQ_SET), 15);
	CHECK_EQ(step_rec_code(STEP_EV_PROTOCOL), 16);
	CHECK_EQ(step_rec_code(STEP_EV_REFUSED_PEER), 0); /* the server side's: never sent to clients */
	CHECK_EQ(step_rec_code(STEP_EV_NONE), 0);
	CHECK_EQ(step_rec_code(STEP_EV_COUNT), 0);
	CHECK_EQ(step_rec_code(0xffffffffu), 0);
	/* every published code is distinct */
	for (uint32_t a = 1; a < STEP_EV_COUNT; a++)
		for (uint32_t b = a + 1; b < STEP_EV_COUNT; b++)
			if (step_rec_code(a))
				CHECK(step_rec_code(a) != step_rec_code(b));
	/* an event without a record leaves r alone */
	struct step_ev ev;
	memset(&ev, 0, sizeof ev);
	ev.type = STEP_EV_REFUSED_PEER;
	memset(&r, 0xa5, sizeof r);
	pair_setup(&cli, &srv, 30);
	CHECK_EQ(step_rec_from_ev(&r, &ev, 0, &cli.s, &where), 0);
	CHECK_EQ(r.bytes[0], 0xa5);
}

static void test_logged_on(void)
{
	union toe_record r;
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 1000);
	memset(&r, 0xa5, sizeof r);
	CHECK_EQ(rec_of(STEP_EV_LOGGED_ON, &r), 1);
	CHECK_EQ(r.hdr.type, TOE_REC_SESSION);
	CHECK_EQ(r.session.event, TOE_SESS_LOGGED_ON);
	CHECK_EQ(r.hdr.stream, 3);
	CHECK_EQ(r.hdr.group, 2);
	CHECK_EQ(r.hdr.line, 1);
	CHECK_EQ(r.hdr.rx_ns, 1234567890123ull);
	CHECK_EQ(toe_rx_clock(&r.hdr), TOE_CLK_POLL);
	CHECK_EQ(r.hdr.present & TOE_PRESENT_FIELDS, 0);
	CHECK_EQ(r.hdr.msg_seq, 0);
	CHECK_EQ(r.hdr.seq, 0);      /* the publisher's */
	CHECK_EQ(r.hdr.flags, 0);
	CHECK_EQ(r.session.arg1, 30); /* HeartBtInt in force */
	CHECK_EQ(r.session.arg2, 1);  /* the exchange's Logon was its message 1 */
	CHECK_EQ(r.session.next_in, 2);
	CHECK_EQ(r.session.next_out, 2);
	CHECK_EQ(r.session.flags, 0);
	CHECK(strcmp(r.session.text, "SSE") == 0);
	for (uint32_t i = 3; i < TOE_SESS_TEXT_LEN; i++) /* NUL-padded: no bytes of the 0xa5 fill left */
		CHECK_EQ(r.session.text[i], 0);
	CHECK_EQ(r.hdr.bad_fields, 0);
}

static void test_heartbeat(void)
{
	union toe_record r;
	pair_setup(&cli, &srv, 2);
	pair_logon(&cli, &srv, 1000);
	srv.cut = 1; /* the exchange goes silent */
	/* TestRequest after HeartBtInt + 1 s (20 % of 2 s is less than 1 s), given up after as long again */
	for (uint64_t t = 1000; t <= 9000; t += 100) {
		tick(&cli, t);
		tick(&srv, t);
		pump(&cli, &srv, t);
	}
	CHECK_EQ(rec_of(STEP_EV_HB_MISSED, &r), 1);
	CHECK_EQ(r.session.event, TOE_SESS_HB_MISSED);
	CHECK_EQ(r.session.arg1, 3000); /* silent since the logon at 1000 */
	CHECK_EQ(rec_of(STEP_EV_HB_TIMEOUT, &r), 1);
	CHECK_EQ(r.session.event, TOE_SESS_HB_TIMEOUT);
	CHECK_EQ(r.session.arg1, 6000);
	CHECK_EQ(r.session.text[0], 0);
}

static void peer_logout(const char *text, union toe_record *r)
{
	pair_setup(&cli, &srv, 30);
	pair_logon(&cli, &srv, 1000);
	srv.r |= step_sess_logout(&srv.s, text, 2000);
	pump(&cli, &srv, 2000);
	CHECK_EQ(rec_of(STEP_EV_PEER_LOGOUT, r), 1);
	CHECK_EQ(r->session.event, TOE_SESS_PEER_LOGOUT);
}

static void test_peer_logout_text(void)
{
	union toe_record r;
	char t47[48], t48[49], t100[101];
	memset(t47, 'a', 47);
	t47[47] = 0;
	memset(t48, 'b', 48);
	t48[48] = 0;
	for (int i = 0; i < 100; i++)
		t100[i] = (char)('0' + i % 10);
	t100[100] = 0;

	peer_logout("end of day", &r);
	CHECK(strcmp(r.session.text, "end of day") == 0);
	CHECK_EQ(r.session.flags & TOE_SESS_F_TEXT_CUT, 0);
	CHECK_EQ(r.session.next_in, 3); /* the exchange's Logon and Logout */

	peer_logout(t47, &r); /* exactly fits (47 characters and the NUL) */
	CHECK_EQ(strlen(r.session.text), 47);
	CHECK(memcmp(r.session.text, t47, 47) == 0);
	CHECK_EQ(r.session.flags & TOE_SESS_F_TEXT_CUT, 0);

	peer_logout(t48, &r); /* one more: cut and flagged */
	CHECK_EQ(r.session.text[47], 0);
	CHECK_EQ(strlen(r.session.text), 47);
	CHECK(memcmp(r.session.text, t48, 47) == 0);
	CHECK_EQ(r.session.flags, TOE_SESS_F_TEXT_CUT);

	peer_logout(t100, &r);
	CHECK_EQ(r.session.text[47], 0);
	CHECK(memcmp(r.session.text, t100, 47) == 0);
	CHECK_EQ(r.session.flags, TOE_SESS_F_TEXT_CUT);
}

static void test_build(void)
{
	union toe_record r;
	pair_setup(&cli, &srv, 30);
	/* toed's own notes (no step event): logon sent, reconnecting; caller flags kept */
	step_rec_build(&r, TOE_SESS_RECONNECTING, 4, 800, NULL, TOE_SESS_F_EVENTS_LOST, &cli.s, &where);
	CHECK_EQ(r.session.event, TOE_SESS_RECONNECTING);
	CHECK_EQ(r.session.arg1, 4);
	CHECK_EQ(r.session.arg2, 800);
	CHECK_EQ(r.session.flags, TOE_SESS_F_EVENTS_LOST);
	CHECK_EQ(r.session.text[0], 0);
	CHECK_EQ(r.session.next_in, 0); /* nothing from the exchange yet */
	CHECK_EQ(r.session.next_out, 1);
	struct step_rec_where nogroup = where;
	nogroup.group = 0; /* no sequence tracking: line reads 0 too */
	step_rec_build(&r, TOE_SESS_LOGOUT_SENT, 0, 0, "shutdown", 0, &cli.s, &nogroup);
	CHECK_EQ(r.hdr.group, 0);
	CHECK_EQ(r.hdr.line, 0);
	CHECK(strcmp(r.session.text, "shutdown") == 0);
}

int main(void)
{
	test_abi();
	test_logged_on();
	test_heartbeat();
	test_peer_logout_text();
	test_build();
	return test_done("step_rec");
}
