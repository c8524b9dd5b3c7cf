/* ctl_args.h - toed's command line, one parser for every program that runs toed_run().
 *
 * The release toed (daemon/main/toed.c) parses its options here and nothing
 * else; the test program toed_test (tests/integration/toed_test.c) passes
 * its own options on top (struct toed_args_extra), so both read toed's
 * options the same way and the release binary knows none of the test ones.
 */
#ifndef TOED_CTL_ARGS_H
#define TOED_CTL_ARGS_H

#include <getopt.h>

#include "ctl/ctl_daemon.h"

#define TOED_ARGS_EXTRA_VAL 512 /* extra options' getopt values start here */
#define TOED_ARGS_MAX_EXTRA 16

/* A caller's own options. */
struct toed_args_extra {
	const struct option *opts; /* long options, val >= TOED_ARGS_EXTRA_VAL, ended by a zero entry */
	const char *usage;         /* their lines of the usage text */
	/* Take one of them: 0, or -1 after printing why (exit 2). */
	int (*take)(void *arg, int val, const char *optarg);
	void *arg;
};

/* Parse argv into o (defaults first: TOED_CONFIG_PATH, $TOED_BPF_OBJECT).
 * Returns -1 when the daemon is to run, else the exit status: 0 after
 * --version or --help, 2 on a usage error (said on stderr). extra may be NULL. */
int toed_args_parse(int argc, char **argv, struct toed_opts *o, const struct toed_args_extra *extra);

#endif
