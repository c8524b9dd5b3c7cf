/* test.c - summary, skip and hex helpers for the test programs (see test.h). */
#include "test.h"

#include <ctype.h>
#include <stdio.h>
#include <unistd.h>

int test_failures;
int test_checks;

int test_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

int test_skip(const char *name, const char *reason)
{
	printf("%s: SKIP: %s\n", name, reason);
	return 77;
}

int test_sse_templates(char *path, size_t len)
{
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		return -1;
	int n = snprintf(path, len, "%s/conf/templates/sse-l2-3201-5801.xml", cwd);
	return n < 0 || (size_t)n >= len || access(path, R_OK) < 0 ? -1 : 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t test_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;
	for (; *hex; hex++) {
		int v = hexval((unsigned char)*hex);
		if (v < 0)
			continue;
		if (hi < 0) {
			hi = v;
		} else {
			if (n < cap)
				out[n] = (uint8_t)(hi << 4 | v);
			n++;
			hi = -1;
		}
	}
	return n;
}
