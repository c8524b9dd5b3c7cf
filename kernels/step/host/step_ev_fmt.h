/* step_ev_fmt.h - session events as one line of text, for the daemon's log and
 * its clients (host only: snprintf). */
#ifndef STEP_EV_FMT_H
#define STEP_EV_FMT_H

#include <stddef.h>
#include "step/step_sess.h"

/* "logon refused: wrong Password", "sequence gap: expected 7, got 10 (3 missing)", ...
 * Returns what snprintf returns. */
int step_ev_format(const struct step_ev *ev, char *buf, size_t len);

#endif
