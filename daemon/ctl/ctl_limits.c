/* ctl_limits.c - RLIMIT_NOFILE and what max_clients needs (see ctl_limits.h). */
#include "ctl/ctl_limits.h"

#include <sys/resource.h>

#include "ctl/ctl_fds.h"

uint64_t ctl_fds_needed(uint32_t max_clients)
{
	/* rings: one eventfd each; connections: max_clients + 16 (toectl's room) */
	return 2ull * max_clients + 16u + CTL_FDS_FIXED + CTL_FDS_QUEUE;
}

uint64_t ctl_nofile_raise(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit up = {.rlim_cur = rl.rlim_max, .rlim_max = rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl.rlim_cur = rl.rlim_max;
	}
	return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
}
