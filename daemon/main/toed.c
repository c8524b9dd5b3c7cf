/* toed - the market-data daemon: its arguments (ctl_args.c), then toed_run() on the real card (ctl_daemon.c).
 *
 *   toed [-c PATH] [--check-config] [--foreground] [--user USER] [--bpf-object PATH] [--version]
 *
 * Exit status: 0 stopped cleanly (or --check-config found no error), 78 bad
 * configuration (nothing was started; a --user that does not exist, or a
 * [shm] max_clients beyond the descriptor limit, are ones), 75 another toed
 * already serves the control socket ("already running (pid N)"; nothing was
 * touched), 1 any other failure, 2 usage.
 *
 * The test program toed_test (tests/integration/toed_test.c) is this main
 * with test options, a fake card and test hooks; this one has none of them.
 */
#include "ctl/ctl_args.h"
#include "ctl/ctl_daemon.h"

int main(int argc, char **argv)
{
	static const struct toed_dp_seams seams = {.card_ops = &toe_devops_xrt};
	struct toed_opts o;
	int rc = toed_args_parse(argc, argv, &o, NULL);
	if (rc >= 0)
		return rc;
	return toed_run(&o, &seams);
}
