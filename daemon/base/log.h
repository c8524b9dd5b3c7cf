/* log.h - toed's log: syslog priorities, to the journal or to stderr, from any thread.
 *
 * The level and the target are [log] keys that change live (a reload calls
 * toed_log_set()). Journal messages carry their priority; stderr lines get a
 * "<N>" priority prefix when stderr is the journal's stream (JOURNAL_STREAM,
 * as under systemd) and "toed: level: " otherwise. When the journal is the
 * target but journald is not running, messages go to stderr instead.
 */
#ifndef TOED_LOG_H
#define TOED_LOG_H

#include <stdarg.h>

/* syslog priorities; also the values of [log] level */
enum toed_log_level {
	TOED_LOG_ERROR = 3,
	TOED_LOG_WARNING = 4,
	TOED_LOG_NOTICE = 5,
	TOED_LOG_INFO = 6,
	TOED_LOG_DEBUG = 7
};
/* where messages go; also the values of [log] target */
enum toed_log_target { TOED_LOG_JOURNAL = 0, TOED_LOG_STDERR = 1 };

void toed_log_set(unsigned level, unsigned target);
unsigned toed_log_level(void);

void toed_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void toed_vlog(int prio, const char *fmt, va_list ap);

#define log_err(...) toed_log(TOED_LOG_ERROR, __VA_ARGS__)
#define log_warn(...) toed_log(TOED_LOG_WARNING, __VA_ARGS__)
#define log_notice(...) toed_log(TOED_LOG_NOTICE, __VA_ARGS__)
#define log_info(...) toed_log(TOED_LOG_INFO, __VA_ARGS__)
#define log_debug(...) toed_log(TOED_LOG_DEBUG, __VA_ARGS__)

#endif
