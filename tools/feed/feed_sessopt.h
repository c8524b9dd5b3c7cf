/* feed_sessopt.h - the STEP session options toe-feedsim --session and toe-sockrx --session share (host only).
 *
 * Long options only: --session, --sender-comp-id, --target-comp-id, --username, --password, --heartbeat-s.
 * A tool puts FEED_SESS_LOPTS in its getopt_long table, hands every option to feed_sessopt_take() before its
 * own switch, numbers its own session options from FEED_O_SESS_NEXT (counting them in `given`), and calls
 * feed_sessopt_check() once the options are parsed.
 */
#ifndef FEED_SESSOPT_H
#define FEED_SESSOPT_H

#include "feed/feed_net.h"
#include "step/step_sess.h"

enum {
	FEED_O_SESSION = 1000,
	FEED_O_SENDER,
	FEED_O_TARGET,
	FEED_O_USERNAME,
	FEED_O_PASSWORD,
	FEED_O_HEARTBEAT,
	FEED_O_SESS_NEXT, /* a tool's own options from here */
};

/* struct option entries (getopt.h) */
#define FEED_SESS_LOPTS                                                                                    \
	{"session", no_argument, 0, FEED_O_SESSION}, {"sender-comp-id", required_argument, 0, FEED_O_SENDER}, \
		{"target-comp-id", required_argument, 0, FEED_O_TARGET},                                   \
		{"username", required_argument, 0, FEED_O_USERNAME},                                       \
		{"password", required_argument, 0, FEED_O_PASSWORD},                                       \
		{"heartbeat-s", required_argument, 0, FEED_O_HEARTBEAT}

struct feed_sessopt {
	int session; /* --session */
	int given;   /* session options other than --session */
};

/* Take opt into cfg when it is one of the options above: 1, with *bad NULL or what is wrong with arg (the
 * tool prints "TOOL: BAD, not 'ARG'"); 0 when opt is not one of them. */
int feed_sessopt_take(struct feed_sessopt *o, int opt, const char *arg, struct step_sess_cfg *cfg, const char **bad);

/* After the options: 0, or -1 after printing "TOOL: the session options need --session" or "TOOL: --session
 * needs a TCP connection ..." on stderr (the tool then prints its usage). */
int feed_sessopt_check(const struct feed_sessopt *o, const char *tool, const struct feed_peer *peer);

#endif
