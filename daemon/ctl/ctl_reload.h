/* ctl_reload.h - SIGHUP / `toectl reload`: read the configuration again, apply what can change live.
 *
 * RELOADING=1 is sent first and READY=1 after, whatever the outcome. A file
 * with an error changes nothing: the running configuration stays in force
 * and every error is logged (file:line: [section] key = value: reason).
 * Otherwise each changed key is logged as "applied" (the live keys: [log],
 * [dataplane], [tcp] gap_timeout_ms and idle_timeout_s, [source] pcap_pace
 * and pcap_loop, [record]) or "needs a restart" (everything built at start).
 */
#ifndef TOED_RELOAD_H
#define TOED_RELOAD_H

#include "ctl/ctl_daemon.h"

/* Returns 0 (reloaded, maybe with nothing changed) or -1 (file refused).
 * *report (may be NULL) receives the messages, one per line (malloc'd). */
int toed_reload(struct toed *t, char **report);

/* Hand the live keys of t->cfg to the running parts (log, data plane, recorder). */
void toed_apply_live(struct toed *t);

#endif
