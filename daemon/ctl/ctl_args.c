/* ctl_args.c - toed's command line (see ctl_args.h). */
#include "ctl/ctl_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f, const struct toed_args_extra *x)
{
	fprintf(f,
		"usage: toed [-c PATH] [--check-config] [--foreground] [--user USER] [--bpf-object PATH]\n"
		"  -c, --config PATH     configuration file (default " TOED_CONFIG_PATH ")\n"
		"  -t, --check-config    check the configuration, print every problem, start nothing\n"
		"                        (exit 0 valid, 78 invalid)\n"
		"  -f, --foreground      do not detach (implied under systemd)\n"
		"  -u, --user USER       run as USER once set up (capabilities it needs are kept)\n"
		"      --bpf-object PATH the XDP program for source type af_xdp (also $TOED_BPF_OBJECT; default:\n"
		"                        the first toe_steer.bpf.o in the binary's folder, ../bpf, ../../bpf,\n"
		"                        ../lib/toed, then %s)\n"
		"  -V, --version         print the version\n"
		"%s"
		"Signals: SIGHUP reloads the configuration, SIGTERM/SIGINT stop.\n",
		TOED_LIBDIR, x && x->usage ? x->usage : "");
}

int toed_args_parse(int argc, char **argv, struct toed_opts *o, const struct toed_args_extra *x)
{
	enum { OPT_BPF = 256 };
	static const struct option base[] = {
		{"config", required_argument, 0, 'c'},
		{"check-config", no_argument, 0, 't'},
		{"foreground", no_argument, 0, 'f'},
		{"user", required_argument, 0, 'u'},
		{"bpf-object", required_argument, 0, OPT_BPF},
		{"version", no_argument, 0, 'V'},
		{"help", no_argument, 0, 'h'},
	};
	struct option lopts[sizeof base / sizeof base[0] + TOED_ARGS_MAX_EXTRA + 1];
	size_t n = sizeof base / sizeof base[0];
	int c;

	memcpy(lopts, base, sizeof base);
	for (size_t i = 0; x && x->opts && x->opts[i].name; i++) {
		if (i == TOED_ARGS_MAX_EXTRA || x->opts[i].val < TOED_ARGS_EXTRA_VAL) {
			fprintf(stderr, "toed: more than %d extra options, or one below TOED_ARGS_EXTRA_VAL\n",
				TOED_ARGS_MAX_EXTRA);
			return 2;
		}
		lopts[n++] = x->opts[i];
	}
	memset(&lopts[n], 0, sizeof lopts[n]);

	memset(o, 0, sizeof *o);
	o->config_path = TOED_CONFIG_PATH;
	o->bpf_obj = getenv("TOED_BPF_OBJECT");
	optind = 0; /* glibc: 0 restarts the scan from scratch (a second parse in one process, as in the tests) */
	while ((c = getopt_long(argc, argv, "c:tfu:Vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config_path = optarg; break;
		case 't': o->check_only = 1; break;
		case 'f': o->foreground = 1; break;
		case 'u': o->user = optarg; break;
		case OPT_BPF: o->bpf_obj = optarg; break;
		case 'V': printf("toed %s\n", TOED_VERSION); return 0;
		case 'h': usage(stdout, x); return 0;
		default:
			if (c >= TOED_ARGS_EXTRA_VAL && x && x->take) {
				if (x->take(x->arg, c, optarg) < 0)
					return 2;
				break;
			}
			usage(stderr, x);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "toed: unexpected argument '%s'\n", argv[optind]);
		usage(stderr, x);
		return 2;
	}
	return -1;
}
