/* wait_adapt.c - toe_wait()'s adaptive spin-or-sleep policy (see wait_adapt.h). */
#include "wait_adapt.h"

void wait_adapt_plan(const struct wait_adapt *w, int64_t now, struct wait_plan *p)
{
	p->sleep_until = 0;
	if (w->seen < WA_WARM || now - w->last_ns > WA_IDLE_NS) {
		p->spin_until = now + WA_COLD_SPIN_NS;
		return;
	}
	int64_t budget = w->gap_ns * WA_DUTY_PCT / 100;
	if (budget > WA_SPIN_MAX_NS)
		budget = WA_SPIN_MAX_NS;
	/* the budget is split: up to half before the expected arrival, the rest after it */
	int64_t lead = budget / 2 < WA_LEAD_NS ? budget / 2 : WA_LEAD_NS;
	int64_t due = w->last_ns + w->gap_ns;
	int64_t spin_from = due - lead;
	if (spin_from - now >= WA_MIN_SLEEP_NS)
		p->sleep_until = spin_from;
	else
		spin_from = now;
	/* late already: spin what is left of the budget from now */
	int64_t end = spin_from + budget;
	p->spin_until = end > now ? end : now;
}

void wait_adapt_arrival(struct wait_adapt *w, int64_t now)
{
	if (w->last_ns && now - w->last_ns <= WA_IDLE_NS && now > w->last_ns) {
		int64_t gap = now - w->last_ns;
		if (w->seen < 2)
			w->gap_ns = gap;
		else
			w->gap_ns += (gap - w->gap_ns) / 8;
		if (w->seen < WA_WARM)
			w->seen++;
	} else {
		w->seen = 1;
		w->gap_ns = 0;
	}
	w->last_ns = now;
}
