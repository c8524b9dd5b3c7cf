/* test_client_wait.c - toe_wait()'s adaptive policy (client-lib/src/wait_adapt.c): when it sleeps, how long it spins. */
#include <stdlib.h>

#include "test.h"
#include "../../client-lib/src/wait_adapt.h"

#define US 1000ll

static void arrive_every(struct wait_adapt *w, int64_t t0, int64_t gap, int count)
{
	for (int i = 0; i < count; i++)
		wait_adapt_arrival(w, t0 + i * gap);
}

/* spin time a plan allows: from the end of the timed sleep (or now) to spin_until */
static int64_t spin_of(const struct wait_plan *p, int64_t now)
{
	int64_t from = p->sleep_until ? p->sleep_until : now;
	return p->spin_until > from ? p->spin_until - from : 0;
}

static void test_cold(void)
{
	struct wait_adapt w = {0};
	struct wait_plan p;
	wait_adapt_plan(&w, 1000 * US, &p);
	CHECK_EQ(p.sleep_until, 0);
	CHECK_EQ(p.spin_until, 1000 * US + WA_COLD_SPIN_NS);
	/* fewer than WA_WARM arrivals: still cold */
	arrive_every(&w, 1000 * US, 50 * US, WA_WARM - 1);
	wait_adapt_plan(&w, 1200 * US, &p);
	CHECK_EQ(p.sleep_until, 0);
	CHECK_EQ(p.spin_until, 1200 * US + WA_COLD_SPIN_NS);
}

static void test_regular_50us(void)
{
	struct wait_adapt w = {0};
	struct wait_plan p;
	int64_t t0 = 1000 * US, gap = 50 * US;
	arrive_every(&w, t0, gap, 10);
	CHECK_EQ(w.gap_ns, gap);
	int64_t last = t0 + 9 * gap, now = last + 1 * US;
	wait_adapt_plan(&w, now, &p);
	/* budget 40% of 50 us = 20 us: 8 us before the due time, 12 after */
	CHECK_EQ(p.sleep_until, last + gap - WA_LEAD_NS);
	CHECK_EQ(p.spin_until, last + gap - WA_LEAD_NS + 20 * US);
	CHECK(spin_of(&p, now) * 100 <= gap * WA_DUTY_PCT);
	/* a wait that starts after the due time spins what the budget allows from now */
	now = last + gap + 30 * US;
	wait_adapt_plan(&w, now, &p);
	CHECK_EQ(p.sleep_until, 0);
	CHECK(p.spin_until >= now);
	CHECK(p.spin_until - now <= 20 * US);
}

static void test_fast_feed_spins(void)
{
	struct wait_adapt w = {0};
	struct wait_plan p;
	int64_t t0 = 0, gap = 10 * US;
	arrive_every(&w, t0 + 5 * US, gap, 20);
	int64_t last = 5 * US + 19 * gap;
	wait_adapt_plan(&w, last + 500, &p);
	/* the next record is due sooner than a sleep is worth: spin, within 40% of the gap */
	CHECK_EQ(p.sleep_until, 0);
	CHECK(p.spin_until > last + 500);
	CHECK(spin_of(&p, last + 500) <= gap * WA_DUTY_PCT / 100);
}

static void test_sparse_feed_sleeps(void)
{
	struct wait_adapt w = {0};
	struct wait_plan p;
	int64_t gap = 10000 * US; /* 100 msgs/s */
	arrive_every(&w, 1000000 * US, gap, 8);
	int64_t last = 1000000 * US + 7 * gap, now = last + 100 * US;
	wait_adapt_plan(&w, now, &p);
	CHECK_EQ(p.sleep_until, last + gap - WA_LEAD_NS);
	CHECK_EQ(spin_of(&p, now), WA_SPIN_MAX_NS);
}

static void test_silence_resets(void)
{
	struct wait_adapt w = {0};
	struct wait_plan p;
	arrive_every(&w, 0, 50 * US, 10);
	int64_t last = 9 * 50 * US;
	/* a wait long after the last arrival: cold again */
	wait_adapt_plan(&w, last + WA_IDLE_NS + 1, &p);
	CHECK_EQ(p.sleep_until, 0);
	CHECK_EQ(p.spin_until, last + WA_IDLE_NS + 1 + WA_COLD_SPIN_NS);
	/* an arrival after the silence starts learning anew */
	wait_adapt_arrival(&w, last + 2 * WA_IDLE_NS);
	CHECK_EQ(w.seen, 1);
	CHECK_EQ(w.gap_ns, 0);
}

/* whatever the arrivals, one wait never spins more than the duty share of the learnt gap (or the cap) */
static void test_duty_bound(void)
{
	struct wait_adapt w = {0};
	srand(7);
	int64_t t = 1000000;
	int bad = 0;
	for (int i = 0; i < 100000; i++) {
		int64_t gap = 1000 + (int64_t)(rand() % 200000); /* 1..201 us, irregular */
		if (rand() % 100 == 0)
			gap = 2000000 + rand() % 50000000; /* now and then a pause */
		int64_t now = t + rand() % (gap + 1);
		struct wait_plan p;
		wait_adapt_plan(&w, now, &p);
		int64_t spin = spin_of(&p, now);
		int64_t cap = w.seen >= WA_WARM && now - w.last_ns <= WA_IDLE_NS ? w.gap_ns * WA_DUTY_PCT / 100 : WA_COLD_SPIN_NS;
		if (cap > WA_SPIN_MAX_NS)
			cap = WA_SPIN_MAX_NS;
		if (spin > cap || (p.sleep_until && p.sleep_until < now))
			bad++;
		t += gap;
		wait_adapt_arrival(&w, t);
	}
	CHECK_EQ(bad, 0);
}

int main(void)
{
	test_cold();
	test_regular_50us();
	test_fast_feed_spins();
	test_sparse_feed_sleeps();
	test_silence_resets();
	test_duty_bound();
	return test_done("client_wait");
}
