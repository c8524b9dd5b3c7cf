/* toed_test - toed's main with test options: a fake card and a stalled data plane, injected through toed_run's seams.
 *
 *   toed_test [toed's options] [--test-fake-card CAPTURE [--test-fake-card-fail] [--test-fake-card-port N]
 *             [--test-fake-gtoe-up]]
 *             [--test-stall-dataplane MS]
 *
 * The same daemon as the release toed (daemon/main/toed.c: same option
 * parser, same toed_run), with test doubles from the test library put in
 * through the seams of dp_thread.h (struct toed_dp_seams):
 *   --test-fake-card CAPTURE   with [device] backend = xrt, the card is the
 *                              fake one (tests/lib/card_fake.c: the kernels'
 *                              C code, separate device and host copies of
 *                              the HBM ring, a ring of 512 records per
 *                              channel so that a short capture wraps it),
 *                              fed with the capture's frames once, a few per
 *                              turn of the data plane, stamped by the card's
 *                              clock: the whole card path runs in toed;
 *   --test-fake-card-fail      that card's registers fail once the capture
 *                              is in and the ring drained (a device error);
 *   --test-fake-card-port N    the capture arrives on network port N (0..3:
 *                              the 4 x 10G xclbin's ports 1..3 through their
 *                              own eth_rx_tops; default 0);
 *   --test-fake-gtoe-up        role = tcp: once the capture is in, that card's
 *                              gtoe_top shows connection table entry 0 as
 *                              established (its state window; the fake does
 *                              not run gtoe's TCP), for toectl's readout;
 *   --test-fake-exchange       role = tcp: once the capture is in, entry 0's
 *                              connection opens on the fake card and a STEP
 *                              session server (the exchange: SenderCompID
 *                              SSE, any TargetCompID, HeartBtInt 30) answers
 *                              what toed sends through the TX mailbox, its
 *                              bytes going back through fast_top's path and
 *                              the ring: the card's session path in toed;
 *   --test-stall-dataplane MS  the data plane stops making progress MS ms
 *                              after going live (no heartbeat: the watchdog
 *                              must notice) until toed stops it.
 * The release toed knows none of these (test_toed_release.sh checks it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "card_fake.h"
#include "toe/gtoe.h"
#include "step/host/step_link.h"
#include "ctl/ctl_args.h"
#include "ctl/ctl_daemon.h"
#include "src/src.h"

#define FAKE_FRAMES 8    /* frames fed to the fake card per turn of the data plane */
#define FAKE_SLOTS 512u  /* its ring's records per channel: a short capture wraps it */

enum { OPT_FAKE = TOED_ARGS_EXTRA_VAL, OPT_FAKE_FAIL, OPT_STALL, OPT_FAKE_PORT, OPT_FAKE_GTOE_UP, OPT_FAKE_EXCHANGE };

struct test_opts {
	const char *fake_capture;
	int fake_fail;
	uint32_t fake_port;       /* the network port the capture arrives on */
	int fake_gtoe_up;
	int fake_exchange;
	uint64_t stall_ns;
	/* the data plane's, once running */
	struct toe_fake *fake;
	struct src *capture;
	int fed;                  /* the capture is in the fake card */
	uint64_t frames;
	int stalled;
	/* --test-fake-exchange */
	struct step_link ex;
	int ex_up;
	uint32_t ex_seen;         /* mailbox bytes of entry 0 the exchange has read */
};

static int take(void *arg, int val, const char *optarg)
{
	struct test_opts *t = arg;
	char *end;
	switch (val) {
	case OPT_FAKE: t->fake_capture = optarg; return 0;
	case OPT_FAKE_FAIL: t->fake_fail = 1; return 0;
	case OPT_FAKE_PORT:
		if (strlen(optarg) != 1 || optarg[0] < '0' || optarg[0] > '3') {
			fprintf(stderr, "toed_test: --test-fake-card-port needs a port 0..3\n");
			return -1;
		}
		t->fake_port = (uint32_t)(optarg[0] - '0');
		return 0;
	case OPT_FAKE_GTOE_UP: t->fake_gtoe_up = 1; return 0;
	case OPT_FAKE_EXCHANGE: t->fake_exchange = 1; return 0;
	case OPT_STALL:
		errno = 0;
		t->stall_ns = strtoull(optarg, &end, 10) * 1000000ull;
		if (errno || *end || !*optarg) {
			fprintf(stderr, "toed_test: --test-stall-dataplane needs milliseconds\n");
			return -1;
		}
		return 0;
	}
	return -1;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000ull + (uint64_t)ts.tv_nsec / 1000000ull;
}

/* A few frames of the capture into the fake card, which runs them at once. */
static void feed(struct test_opts *t)
{
	struct src_frame f[FAKE_FRAMES];
	int n;
	if (t->fed)
		return;
	n = src_rx_burst(t->capture, f, FAKE_FRAMES);
	if (n < 0) {
		t->fed = 1;
		if (n != SRC_EOF)
			log_err("fake card: reading %s: %s", t->fake_capture, strerror(errno));
		log_info("fake card: the capture is in (%llu frames)", (unsigned long long)t->frames);
		if (t->fake_fail) {
			log_warn("fake card: its registers fail once the ring is drained (--test-fake-card-fail)");
			toe_fake_fail_when_drained(t->fake);
		}
		if (t->fake_gtoe_up) {
			/* what gtoe_top's state window would show for an established connection (the fake
			 * does not run gtoe's TCP): the readout into toectl is what is tested */
			static const uint32_t v[15] = { 3, GTOE_ESTABLISHED, 250, 14080, 65535, 32768, 2, 1,
							GTOE_EV_RESET, 3, 123456, 0, 96, 0, 4 };
			for (uint32_t k = 0; k < 15; k++)
				toe_fake_gtoe_set_cst(t->fake, 0, k, v[k]);
			/* and its counters: connects (11), established (12), closes (13); gtoe's established */
			toe_fake_gtoe_set_ctr(t->fake, 11, 4);
			toe_fake_gtoe_set_ctr(t->fake, 12, 2);
			toe_fake_gtoe_set_ctr(t->fake, 13, 1);
			toe_fake_gtoe_set_ctr(t->fake, TOE_GTOE_CTR_STATS + 20, 2);
			log_info("fake card: gtoe_top entry 0 shows an established connection (--test-fake-gtoe-up)");
		}
		if (t->fake_exchange) {
			struct step_sess_cfg sc;
			memset(&sc, 0, sizeof sc);
			sc.role = STEP_SESS_SERVER;
			snprintf(sc.sender, sizeof sc.sender, "SSE");
			sc.heartbeat_s = 30;
			step_link_init(&t->ex, &sc, 0);
			step_link_open(&t->ex, mono_ms());
			uint32_t seen;
			toe_fake_gtoe_sent(t->fake, 0, &seen);
			t->ex_seen = seen;
			t->ex_up = toe_fake_gtoe_open(t->fake, 0) == 0;
			log_info("fake card: entry 0's connection %s (--test-fake-exchange)",
				 t->ex_up ? "is up, the exchange waits for a Logon" : "could not open");
		}
		return;
	}
	for (int i = 0; i < n; i++)
		if (toe_fake_frame_port(t->fake, t->fake_port, f[i].data, f[i].len, 0) == 0)
			t->frames++;
	src_rx_release(t->capture);
	toe_fake_run(t->fake, (uint32_t)n);
}

/* --test-fake-exchange: what toed sent through the mailbox to the exchange's session, its answers
 * back into the fake card's connection; the exchange closes when its session says so, and sees
 * the connection go when toed closes it (the entry's enable bit). */
static void exchange_turn(struct test_opts *t)
{
	uint32_t n, r = 0;
	const uint8_t *s = toe_fake_gtoe_sent(t->fake, 0, &n);
	uint64_t now = mono_ms();
	struct step_ev ev;
	if (toe_fake_gtoe_conn_word(t->fake, 0, 3) == 0) {
		step_link_close(&t->ex, now);
		t->ex_up = 0;
		log_info("fake card: the exchange saw the connection close");
		return;
	}
	if (n > t->ex_seen)
		r |= step_link_bytes(&t->ex, s + t->ex_seen, n - t->ex_seen, now);
	t->ex_seen = n;
	r |= step_link_tick(&t->ex, now);
	if (t->ex.s.out_len) {
		toe_fake_gtoe_data(t->fake, 0, t->ex.s.out, t->ex.s.out_len);
		step_sess_sent(&t->ex.s);
	}
	while (step_sess_event(&t->ex.s, &ev))
		log_info("fake card: the exchange's session: %s", step_ev_name(ev.type));
	if (r & STEP_SESS_CLOSE) {
		toe_fake_gtoe_close(t->fake, 0);
		t->ex_up = 0;
		log_info("fake card: the exchange closed the connection");
	}
}

/* toed_dp_seams.on_turn: in the data-plane thread. */
static void on_turn(void *arg, struct toed_dp *dp, uint64_t live_ns)
{
	struct test_opts *t = arg;
	if (t->fake && dp->xrt)
		feed(t);
	if (t->fake && dp->xrt && t->ex_up)
		exchange_turn(t);
	if (t->stall_ns && live_ns >= t->stall_ns && !t->stalled) {
		t->stalled = 1;
		log_warn("data plane: stalling on purpose (--test-stall-dataplane)");
		while (!toed_dp_stopping(dp)) {
			struct timespec ts = {0, 10000000};
			nanosleep(&ts, NULL);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"test-fake-card", required_argument, 0, OPT_FAKE},
		{"test-fake-card-fail", no_argument, 0, OPT_FAKE_FAIL},
		{"test-fake-card-port", required_argument, 0, OPT_FAKE_PORT},
		{"test-stall-dataplane", required_argument, 0, OPT_STALL},
		{"test-fake-gtoe-up", no_argument, 0, OPT_FAKE_GTOE_UP},
		{"test-fake-exchange", no_argument, 0, OPT_FAKE_EXCHANGE},
		{0, 0, 0, 0},
	};
	struct test_opts t;
	struct toed_args_extra x = {
		.opts = opts,
		.usage = "test options (toed_test only):\n"
			 "      --test-fake-card CAPTURE   backend = xrt runs on a fake card fed with CAPTURE (pcap)\n"
			 "      --test-fake-card-fail      ... whose registers fail once the capture is drained\n"
			 "      --test-fake-card-port N    ... the capture arriving on network port N (0..3)\n"
			 "      --test-stall-dataplane MS  the data plane stalls MS ms after going live\n"
			 "      --test-fake-gtoe-up        role = tcp: the fake's gtoe_top shows entry 0 established\n"
			 "      --test-fake-exchange       role = tcp: entry 0 up on the fake card, a STEP session server\n"
			 "                                 answering through it\n",
		.take = take,
		.arg = &t,
	};
	struct toed_dp_seams seams = {.card_ops = &toe_devops_xrt, .on_turn = on_turn, .arg = &t};
	struct toed_opts o;
	char err[512];
	int rc;

	memset(&t, 0, sizeof t);
	rc = toed_args_parse(argc, argv, &o, &x);
	if (rc >= 0)
		return rc;
	if ((t.fake_fail || t.fake_gtoe_up || t.fake_exchange) && !t.fake_capture) {
		fprintf(stderr, "toed_test: --test-fake-card-fail, --test-fake-gtoe-up and --test-fake-exchange need "
				"--test-fake-card\n");
		return 2;
	}
	if (t.fake_capture) {
		struct src_cfg sc = {.kind = SRC_PCAP, .pcap_path = t.fake_capture, .loops = 1};
		t.fake = toe_fake_new(NULL);
		if (!t.fake) {
			fprintf(stderr, "toed_test: out of memory\n");
			return 1;
		}
		if (src_open(&t.capture, &sc, err, sizeof err) < 0) {
			fprintf(stderr, "toed_test: --test-fake-card %s: %s\n", t.fake_capture, err);
			toe_fake_free(t.fake);
			return 2;
		}
		seams.card_ops = &toe_devops_fake;
		seams.card_ctx = t.fake;
		seams.card_name = "fake card";
		seams.card_ring_slots = FAKE_SLOTS;
	}
	rc = toed_run(&o, &seams);
	src_close(t.capture);
	toe_fake_free(t.fake);
	return rc;
}
