/* src_bpf.c - where the AF_XDP source's XDP program (toe_steer.bpf.o) is found (see src.h: src_bpf_find). */
#include "src/src_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef TOED_LIBDIR
#define TOED_LIBDIR "/usr/local/lib/toed"
#endif

/* Next to the program first: a binary of a build tree belongs with that
 * tree's object (build/bin -> build/bpf, build/asan/bin -> build/bpf), not
 * with an older installed one; then the installed copies. */
static const char *const rel[] = {".", "../bpf", "../../bpf", "../lib/toed"};

int src_bpf_find(const char *given, const char *exe_dir, char *out, size_t outlen, char *err, size_t errlen)
{
	char cand[4096];
	size_t used = 0;
	int n;

	if (err && errlen)
		err[0] = '\0';
	if (given && *given) {
		if (access(given, R_OK) < 0)
			return src_err(err, errlen, "XDP program %s (--bpf-object or $TOED_BPF_OBJECT): %s", given,
				       strerror(errno));
		if ((size_t)snprintf(out, outlen, "%s", given) >= outlen)
			return src_err(err, errlen, "XDP program %s: path too long", given);
		return 0;
	}
	if (err && errlen)
		used = (size_t)snprintf(err, errlen, "no XDP program %s for source type af_xdp; tried", SRC_BPF_OBJ_NAME);
	for (size_t i = 0; i <= sizeof rel / sizeof rel[0]; i++) {
		if (i < sizeof rel / sizeof rel[0]) {
			if (!exe_dir || !*exe_dir)
				continue;
			n = snprintf(cand, sizeof cand, "%s/%s/%s", exe_dir, rel[i], SRC_BPF_OBJ_NAME);
		} else {
			n = snprintf(cand, sizeof cand, "%s/%s", TOED_LIBDIR, SRC_BPF_OBJ_NAME);
		}
		if (n < 0 || (size_t)n >= sizeof cand)
			continue;
		if (access(cand, R_OK) == 0) {
			if ((size_t)n >= outlen)
				continue;
			memcpy(out, cand, (size_t)n + 1);
			if (err && errlen)
				err[0] = '\0';
			return 0;
		}
		if (err && used < errlen)
			used += (size_t)snprintf(err + used, errlen - used, "%s %s (%s)", i ? "," : "", cand,
						 strerror(errno));
	}
	if (err && used < errlen)
		snprintf(err + used, errlen - used,
			 "; build it (make) or give its path with --bpf-object PATH or $TOED_BPF_OBJECT");
	return -1;
}
