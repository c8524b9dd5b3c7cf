/* test_toed_args.c - toed's command line (ctl_args.c): the release options, and a caller's own on top.
 *
 * The release toed parses with no extra options: an option only toed_test
 * knows (--test-stall-dataplane) is a usage error there (exit 2) and taken
 * by the callback when the caller adds it; toed's own options read the same
 * either way; --help lists the extra options only when they are there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "ctl/ctl_args.h"

struct seen {
	int calls;
	int last_val;
	char last_arg[64];
	int refuse;
};

static int take(void *arg, int val, const char *optarg)
{
	struct seen *s = arg;
	s->calls++;
	s->last_val = val;
	snprintf(s->last_arg, sizeof s->last_arg, "%s", optarg ? optarg : "");
	return s->refuse ? -1 : 0;
}

static int parse(struct toed_opts *o, const struct toed_args_extra *x, int argc, const char *const *args)
{
	char *argv[16];
	for (int i = 0; i < argc; i++)
		argv[i] = (char *)args[i];
	argv[argc] = NULL;
	return toed_args_parse(argc, argv, o, x);
}

/* The text --help writes to stdout, in buf. */
static void help_text(const struct toed_args_extra *x, char *buf, size_t len)
{
	static const char *const a[] = {"toed", "--help"};
	struct toed_opts o;
	FILE *f = tmpfile();
	int fd = dup(1);
	size_t n;
	CHECK(f != NULL && fd >= 0);
	if (!f || fd < 0)
		return;
	fflush(stdout);
	dup2(fileno(f), 1);
	CHECK_EQ(parse(&o, x, 2, a), 0);
	fflush(stdout);
	dup2(fd, 1);
	close(fd);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

int main(void)
{
	static const struct option extra_opts[] = {
		{"test-stall-dataplane", required_argument, 0, TOED_ARGS_EXTRA_VAL},
		{"test-flag", no_argument, 0, TOED_ARGS_EXTRA_VAL + 1},
		{0, 0, 0, 0},
	};
	struct seen s;
	struct toed_args_extra x = {.opts = extra_opts, .usage = "  --test-stall-dataplane MS  (extra)\n", .take = take,
				    .arg = &s};
	struct toed_opts o;
	char help[4096];

	unsetenv("TOED_BPF_OBJECT");
	memset(&s, 0, sizeof s);

	/* defaults, then toed's own options */
	static const char *const a0[] = {"toed"};
	CHECK_EQ(parse(&o, NULL, 1, a0), -1);
	CHECK(!strcmp(o.config_path, TOED_CONFIG_PATH));
	CHECK(o.bpf_obj == NULL);
	CHECK_EQ(o.check_only, 0);
	static const char *const a1[] = {"toed", "-c", "/x.conf", "--foreground", "--user", "nobody", "--bpf-object=/b.o",
					 "-t"};
	CHECK_EQ(parse(&o, NULL, 8, a1), -1);
	CHECK(!strcmp(o.config_path, "/x.conf"));
	CHECK(!strcmp(o.user, "nobody"));
	CHECK(!strcmp(o.bpf_obj, "/b.o"));
	CHECK_EQ(o.foreground, 1);
	CHECK_EQ(o.check_only, 1);
	setenv("TOED_BPF_OBJECT", "/env.o", 1);
	CHECK_EQ(parse(&o, NULL, 1, a0), -1);
	CHECK(o.bpf_obj && !strcmp(o.bpf_obj, "/env.o"));
	unsetenv("TOED_BPF_OBJECT");

	/* the release parser: a test option is unknown, a stray argument is an error */
	static const char *const a2[] = {"toed", "-c", "/x.conf", "--test-stall-dataplane=800"};
	CHECK_EQ(parse(&o, NULL, 4, a2), 2);
	static const char *const a3[] = {"toed", "stray"};
	CHECK_EQ(parse(&o, NULL, 2, a3), 2);

	/* with the caller's options: the same line parses, the callback gets the value */
	CHECK_EQ(parse(&o, &x, 4, a2), -1);
	CHECK_EQ(s.calls, 1);
	CHECK_EQ(s.last_val, TOED_ARGS_EXTRA_VAL);
	CHECK(!strcmp(s.last_arg, "800"));
	CHECK(!strcmp(o.config_path, "/x.conf"));
	static const char *const a4[] = {"toed", "--test-flag", "-f"};
	CHECK_EQ(parse(&o, &x, 3, a4), -1);
	CHECK_EQ(s.calls, 2);
	CHECK_EQ(s.last_val, TOED_ARGS_EXTRA_VAL + 1);
	CHECK_EQ(o.foreground, 1);
	/* a value the callback refuses: usage error */
	s.refuse = 1;
	CHECK_EQ(parse(&o, &x, 4, a2), 2);
	s.refuse = 0;
	/* an option the caller does not add stays unknown */
	static const char *const a5[] = {"toed", "--test-fake-card", "x.pcap"};
	CHECK_EQ(parse(&o, &x, 3, a5), 2);

	/* --help: the extra lines only with the extra options */
	help_text(NULL, help, sizeof help);
	CHECK(strstr(help, "--check-config") != NULL);
	CHECK(strstr(help, "test") == NULL);
	help_text(&x, help, sizeof help);
	CHECK(strstr(help, "--check-config") != NULL);
	CHECK(strstr(help, "--test-stall-dataplane MS  (extra)") != NULL);
	return test_done("toed_args");
}
