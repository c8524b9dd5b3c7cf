/* toed - the market-data daemon: argument parsing, then toed_run() (daemon/ctl/ctl_daemon.c).
 *
 *   toed [-c PATH] [--check-config] [--foreground] [--user USER] [--bpf-object PATH] [--version]
 *
 * Exit status: 0 stopped cleanly (or --check-config found no error), 78 bad
 * configuration (nothing was started), 1 any other failure, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_daemon.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: toed [-c PATH] [--check-config] [--foreground] [--user USER] [--bpf-object PATH]\n"
		"  -c, --config PATH     configuration file (default " TOED_CONFIG_PATH ")\n"
		"  -t, --check-config    check the configuration, print every problem, start nothing\n"
		"                        (exit 0 valid, 78 invalid)\n"
		"  -f, --foreground      do not detach (implied under systemd)\n"
		"  -u, --user USER       run as USER once set up (capabilities it needs are kept)\n"
		"      --bpf-object PATH the XDP program for source type af_xdp (default: %s/toe_steer.bpf.o,\n"
		"                        then next to the binary; also $TOED_BPF_OBJECT)\n"
		"  -V, --version         print the version\n"
		"Signals: SIGHUP reloads the configuration, SIGTERM/SIGINT stop.\n",
		TOED_LIBDIR);
}

int main(int argc, char **argv)
{
	enum { OPT_BPF = 256, OPT_STALL };
	static const struct option lopts[] = {
		{"config", required_argument, 0, 'c'},
		{"check-config", no_argument, 0, 't'},
		{"foreground", no_argument, 0, 'f'},
		{"user", required_argument, 0, 'u'},
		{"bpf-object", required_argument, 0, OPT_BPF},
		{"version", no_argument, 0, 'V'},
		{"help", no_argument, 0, 'h'},
		/* hidden, for the tests: the data plane stops making progress MS ms after going live */
		{"test-stall-dataplane", required_argument, 0, OPT_STALL},
		{0, 0, 0, 0},
	};
	struct toed_opts o;
	int c;
	memset(&o, 0, sizeof o);
	o.config_path = TOED_CONFIG_PATH;
	o.bpf_obj = getenv("TOED_BPF_OBJECT");
	while ((c = getopt_long(argc, argv, "c:tfu:Vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'c': o.config_path = optarg; break;
		case 't': o.check_only = 1; break;
		case 'f': o.foreground = 1; break;
		case 'u': o.user = optarg; break;
		case OPT_BPF: o.bpf_obj = optarg; break;
		case OPT_STALL: {
			char *end;
			errno = 0;
			o.test_stall_ms = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg) {
				fprintf(stderr, "toed: --test-stall-dataplane needs milliseconds\n");
				return 2;
			}
			break;
		}
		case 'V': printf("toed %s\n", TOED_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "toed: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return toed_run(&o);
}
