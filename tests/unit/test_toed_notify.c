/* test_toed_notify.c - the watchdog rule: WATCHDOG=1 at half the interval, only while the heartbeat moves.
 *
 * Runs without $NOTIFY_SOCKET (nothing is sent); the decisions are read from
 * the counters: pings (WATCHDOG=1 that would be sent), missed checks, and
 * the time the heartbeat was first seen stopped.
 */
#include <stdlib.h>

#include "test.h"
#include "ctl/ctl_notify.h"

#define MS 1000000ull

int main(void)
{
	struct toed_notify n;
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	toed_notify_init(&n);
	CHECK_EQ(n.enabled, 0);
	CHECK_EQ(n.watchdog_us, 0u);
	/* without a watchdog the heartbeat is still checked, once a second, but nothing is pinged */
	CHECK_EQ(toed_notify_check_ns(&n), 1000 * MS);
	CHECK_EQ(toed_notify_watchdog(&n, 1, 1000 * MS), 0);
	CHECK_EQ(n.pings, 0u);

	/* WatchdogSec = 400 ms: checks every 200 ms */
	toed_notify_init(&n);
	n.watchdog_us = 400000;
	CHECK_EQ(toed_notify_check_ns(&n), 200 * MS);
	uint64_t t = 5000 * MS;
	CHECK_EQ(toed_notify_watchdog(&n, 10, t), 0); /* first check: the heartbeat moved from 0 */
	CHECK_EQ(n.pings, 1u);
	CHECK_EQ(toed_notify_watchdog(&n, 11, t + 100 * MS), 0); /* too early: no check */
	CHECK_EQ(n.pings, 1u);
	CHECK_EQ(toed_notify_watchdog(&n, 12, t + 200 * MS), 0); /* moved: ping */
	CHECK_EQ(n.pings, 2u);
	/* the data plane stops at 12 */
	CHECK_EQ(toed_notify_watchdog(&n, 12, t + 400 * MS), 1);
	CHECK_EQ(n.pings, 2u);
	CHECK_EQ(n.missed, 1u);
	CHECK_EQ(n.stalled_since_ns, t + 400 * MS);
	CHECK_EQ(toed_notify_watchdog(&n, 12, t + 600 * MS), 1);
	CHECK_EQ(toed_notify_watchdog(&n, 12, t + 800 * MS), 1);
	CHECK_EQ(n.pings, 2u); /* no WATCHDOG=1 while stalled */
	CHECK_EQ(n.missed, 3u);
	CHECK_EQ(n.stalled_since_ns, t + 400 * MS); /* the first time it was seen */
	/* it moves again: pings resume, the stall is over */
	CHECK_EQ(toed_notify_watchdog(&n, 13, t + 1000 * MS), 0);
	CHECK_EQ(n.pings, 3u);
	CHECK_EQ(n.stalled_since_ns, 0u);

	/* STATUS= is sent only when it changes (remembered text) */
	toed_notify_status(&n, "live; 1 frames");
	CHECK(!strcmp(n.status, "live; 1 frames"));
	toed_notify_status(&n, "live; 2 frames");
	CHECK(!strcmp(n.status, "live; 2 frames"));
	return test_done("toed_notify");
}
