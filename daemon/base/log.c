/* log.c - toed's log (see log.h). */
#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

static unsigned log_level = TOED_LOG_INFO;
static unsigned log_target = TOED_LOG_STDERR;

static const char *const level_names[8] = {"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug"};

/* journald listens here when it runs */
static int journal_available(void)
{
	struct stat st;
	return stat("/run/systemd/journal/socket", &st) == 0;
}

void toed_log_set(unsigned level, unsigned target)
{
	if (level > TOED_LOG_DEBUG)
		level = TOED_LOG_DEBUG;
	if (target == TOED_LOG_JOURNAL && !journal_available())
		target = TOED_LOG_STDERR;
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
	__atomic_store_n(&log_target, target, __ATOMIC_RELAXED);
}

unsigned toed_log_level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

void toed_vlog(int prio, const char *fmt, va_list ap)
{
	char msg[1024];
	if (prio < 0)
		prio = 0;
	if (prio > 7)
		prio = 7;
	if ((unsigned)prio > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (__atomic_load_n(&log_target, __ATOMIC_RELAXED) == TOED_LOG_JOURNAL) {
		if (sd_journal_print(prio, "%s", msg) >= 0)
			return;
	}
	/* one fprintf per line: stdio locks the stream, so threads do not interleave */
	if (getenv("JOURNAL_STREAM"))
		fprintf(stderr, "<%d>%s\n", prio, msg);
	else
		fprintf(stderr, "toed: %s: %s\n", level_names[prio], msg);
}

void toed_log(int prio, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	toed_vlog(prio, fmt, ap);
	va_end(ap);
}
