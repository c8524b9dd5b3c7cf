/* test_src_bpf.c - src_bpf_find: where toed looks for its XDP program, and what it says when there is none.
 *
 * A temporary build tree (build/bin, build/asan/bin, build/bpf) stands in for
 * the real one: both a release and an ASan binary must find build/bpf; a
 * given path wins and is checked; with no object anywhere the error names
 * every path tried and the --bpf-object option.
 */
#include "test.h"
#include "src/src.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

#define CHECK_STR(a, b) CHECK(strcmp((a), (b)) == 0)

static const char *path(const char *rel)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", root, rel);
	return buf[k];
}

static void touch(const char *p)
{
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
}

int main(void)
{
	char out[512], err[2048], want[512];
	snprintf(root, sizeof root, "/tmp/test_src_bpf.XXXXXX");
	if (!mkdtemp(root))
		return test_skip("src_bpf", "cannot create a temporary folder");
	mkdir(path("build"), 0755);
	mkdir(path("build/bin"), 0755);
	mkdir(path("build/asan"), 0755);
	mkdir(path("build/asan/bin"), 0755);
	mkdir(path("build/bpf"), 0755);
	touch(path("build/bpf/" SRC_BPF_OBJ_NAME));

	/* the release and the ASan binary of a build tree both find build/bpf */
	CHECK_EQ(src_bpf_find(NULL, path("build/bin"), out, sizeof out, err, sizeof err), 0);
	CHECK_STR(out, path("build/bin/../bpf/" SRC_BPF_OBJ_NAME));
	CHECK_EQ(err[0], '\0');
	CHECK_EQ(src_bpf_find("", path("build/asan/bin"), out, sizeof out, err, sizeof err), 0);
	CHECK_STR(out, path("build/asan/bin/../../bpf/" SRC_BPF_OBJ_NAME));

	/* next to the binary comes first */
	touch(path("build/asan/bin/" SRC_BPF_OBJ_NAME));
	CHECK_EQ(src_bpf_find(NULL, path("build/asan/bin"), out, sizeof out, err, sizeof err), 0);
	CHECK_STR(out, path("build/asan/bin/./" SRC_BPF_OBJ_NAME));
	unlink(path("build/asan/bin/" SRC_BPF_OBJ_NAME));

	/* a given path wins, and is checked */
	CHECK_EQ(src_bpf_find(path("build/bpf/" SRC_BPF_OBJ_NAME), "/nonexistent", out, sizeof out, err, sizeof err), 0);
	CHECK_STR(out, path("build/bpf/" SRC_BPF_OBJ_NAME));
	CHECK_EQ(src_bpf_find(path("nope.o"), path("build/asan/bin"), out, sizeof out, err, sizeof err), -1);
	CHECK(strstr(err, path("nope.o")) != NULL);
	CHECK(strstr(err, "--bpf-object") != NULL);
	CHECK(strstr(err, "No such file") != NULL);

	/* none anywhere: every path tried is named, with the way to give one */
	unlink(path("build/bpf/" SRC_BPF_OBJ_NAME));
	snprintf(want, sizeof want, "%s/%s", TOED_LIBDIR, SRC_BPF_OBJ_NAME);
	if (access(want, R_OK) == 0) {
		fprintf(stderr, "note: %s is installed: the not-found case is left out\n", want);
	} else {
		static const char *const tried[] = {"build/asan/bin/./", "build/asan/bin/../bpf/",
						    "build/asan/bin/../../bpf/", "build/asan/bin/../lib/toed/"};
		CHECK_EQ(src_bpf_find(NULL, path("build/asan/bin"), out, sizeof out, err, sizeof err), -1);
		for (size_t i = 0; i < sizeof tried / sizeof tried[0]; i++) {
			char p[300];
			snprintf(p, sizeof p, "%s" SRC_BPF_OBJ_NAME " (No such file or directory)", path(tried[i]));
			CHECK(strstr(err, p) != NULL);
		}
		CHECK(strstr(err, want) != NULL);
		CHECK(strstr(err, "--bpf-object PATH") != NULL);
		CHECK(strstr(err, "make") != NULL);
		/* without the binary's folder only the installed path is tried */
		CHECK_EQ(src_bpf_find(NULL, NULL, out, sizeof out, err, sizeof err), -1);
		CHECK(strstr(err, want) != NULL);
		CHECK(strstr(err, "bin/") == NULL || strstr(err, "bin/") > strstr(err, want));
	}

	rmdir(path("build/bpf"));
	rmdir(path("build/asan/bin"));
	rmdir(path("build/asan"));
	rmdir(path("build/bin"));
	rmdir(path("build"));
	rmdir(root);
	return test_done("src_bpf");
}
