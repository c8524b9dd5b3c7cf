/* test.h - the checks every test program uses.
 *
 * A test program is one executable per feature (as in liburing's test/):
 * it runs its cases, prints a line per failed check and one summary line,
 * and exits 0 when every check passed, 1 when one failed, 77 to say SKIP
 * (with the reason printed by test_skip()). tests/run.sh counts programs.
 */
#ifndef TOE_TEST_H
#define TOE_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int test_failures;
extern int test_checks;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		test_checks++;                                                        \
		if (!(cond)) {                                                        \
			test_failures++;                                              \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                     \
	} while (0)

#define CHECK_EQ(a, b)                                                                \
	do {                                                                          \
		long long _a = (long long)(a), _b = (long long)(b);                   \
		test_checks++;                                                        \
		if (_a != _b) {                                                       \
			test_failures++;                                              \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, expected %s == %lld\n", \
				__FILE__, __LINE__, #a, _a, #b, _b);                  \
		}                                                                     \
	} while (0)

#define CHECK_MEM(a, b, n)                                                            \
	do {                                                                          \
		test_checks++;                                                        \
		if (memcmp((a), (b), (n)) != 0) {                                     \
			test_failures++;                                              \
			fprintf(stderr, "%s:%d: CHECK_MEM failed: %s vs %s (%zu bytes)\n", \
				__FILE__, __LINE__, #a, #b, (size_t)(n));             \
		}                                                                     \
	} while (0)

/* Print the summary line and return the exit status for main(). */
int test_done(const char *name);

/* Print "SKIP: reason" and return 77 for main(). */
int test_skip(const char *name, const char *reason);

/* The absolute path of the bundled SSE templates (conf/templates/sse-l2-3201-5801.xml) into path: 0, or -1
 * when the test does not run from the repository root (the caller skips, saying so). */
int test_sse_templates(char *path, size_t len);

/* Parse hex like "19 81 c0 ..." (spaces ignored) into out; returns bytes. */
size_t test_hex(const char *hex, uint8_t *out, size_t cap);

#endif
