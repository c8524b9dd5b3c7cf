/* test_client_dump.c - the toe-dump example against a producer process: the
 * lines it prints for ticks and gaps, --stream (one named stream; an unknown
 * name refused), a DROPPED line after it fell behind, and resubscription
 * across a daemon restart. Runs $BUILD/asan/bin/toe-dump. */
#include <sys/stat.h>

#include "test_client_harness.h"

static char dir[64], path[96], dump[256];

static int wait_clients(struct th_prod *p, uint32_t n)
{
	struct th_ack a;
	uint64_t end = th_now() + 5000000000ull;
	do {
		if (th_stats(p, &a) != 0)
			return 0;
		if (a.ps.clients == n)
			return 1;
		usleep(10000);
	} while (th_now() < end);
	return 0;
}

static FILE *start_dump(const char *args)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s --socket %s --timeout 10 %s 2>/dev/null", dump, path, args);
	fflush(NULL);
	return popen(cmd, "r");
}

static int next_line(FILE *f, char *buf, size_t len)
{
	return fgets(buf, (int)len, f) != NULL;
}

static void test_lines(void)
{
	struct th_prod p;
	CHECK_EQ(th_start(&p, path, &(struct pub_config){.no_hugepages = 1}, NULL), 0);
	FILE *f = start_dump("--types trade,gap --count 5");
	CHECK(wait_clients(&p, 1));
	CHECK_EQ(th_publish(&p, 0, 12), 0);
	/* trades and gaps among 0..11: 1 2 4 5 7 8 (trades), 9 (gap), 10, 11 (trades); the first five */
	char line[512];
	static const int want[5] = {1, 2, 4, 5, 7};
	for (int k = 0; k < 5; k++) {
		CHECK(next_line(f, line, sizeof(line)));
		char expect[64];
		snprintf(expect, sizeof(expect), "msg=%d ", want[k] + 1);
		CHECK(strncmp(line, "TRADE ", 6) == 0);
		CHECK(strstr(line, expect) != NULL);
		snprintf(expect, sizeof(expect), "seq=%d ", k + 1);
		CHECK(strstr(line, expect) != NULL);
		snprintf(expect, sizeof(expect), "sec=6000%02d ", want[k] % 7);
		CHECK(strstr(line, expect) != NULL);
		snprintf(expect, sizeof(expect), "ch=%d ", 1 + want[k] % 4);
		CHECK(strstr(line, expect) != NULL);
		CHECK(strstr(line, "px=12.345 ") != NULL); /* 12345 at 3 decimals */
		CHECK(strstr(line, "bs=S") != NULL);
	}
	CHECK(!next_line(f, line, sizeof(line))); /* --count 5: done */
	CHECK_EQ(pclose(f), 0);

	f = start_dump("--types gap --count 2");
	CHECK(wait_clients(&p, 1));
	CHECK_EQ(th_publish(&p, 0, 30), 0);
	CHECK(next_line(f, line, sizeof(line)));
	CHECK(strncmp(line, "GAP ", 4) == 0 && strstr(line, "offset=9 length=100 reason=timeout") != NULL);
	CHECK(next_line(f, line, sizeof(line)));
	CHECK(strstr(line, "offset=19 ") != NULL && strstr(line, "seq=2 ") != NULL);
	CHECK_EQ(pclose(f), 0);
	th_quit(&p);
}

/* --stream NAME: only that stream's records (the harness tags record i with
 * source i % 3; "b" is source 1); an unknown name exits 1 saying which exist. */
static void test_stream(void)
{
	static struct pub_stream names[2];
	memset(names, 0, sizeof names);
	strcpy(names[0].name, "a");
	names[0].kind = "feed";
	names[0].srcs[0] = 1u << 0;
	strcpy(names[1].name, "b");
	names[1].kind = "feed";
	names[1].srcs[0] = 1u << 1;
	struct ctl_config cc = {.allow_gid = -1, .streams = names, .nstreams = 2};
	struct th_prod p;
	CHECK_EQ(th_start(&p, path, &(struct pub_config){.no_hugepages = 1}, &cc), 0);
	FILE *f = start_dump("--stream b --types trade --count 3");
	CHECK(wait_clients(&p, 1));
	CHECK_EQ(th_publish(&p, 0, 30), 0);
	/* trades (i % 3 != 0, i % 10 != 9) of source 1 (i % 3 == 1): 1, 4, 7 */
	char line[512], expect[64];
	static const int want[3] = {1, 4, 7};
	for (int k = 0; k < 3; k++) {
		CHECK(next_line(f, line, sizeof(line)));
		snprintf(expect, sizeof(expect), "msg=%d ", want[k] + 1);
		CHECK(strncmp(line, "TRADE ", 6) == 0 && strstr(line, expect) != NULL);
	}
	CHECK_EQ(pclose(f), 0);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s --socket %s --timeout 2 --stream zz 2>&1", dump, path);
	f = popen(cmd, "r");
	CHECK(f && next_line(f, line, sizeof(line)));
	CHECK(strstr(line, "subscribe refused") != NULL && strstr(line, "no stream named zz; streams: a, b") != NULL);
	CHECK_EQ(pclose(f), 1 << 8); /* exit status 1 */
	th_quit(&p);
}

/* Find the pid of the toe-dump subscribed to p (the only client). */
static pid_t dump_pid(void)
{
	char cmd[512], buf[32];
	snprintf(cmd, sizeof(cmd), "pgrep -n -f '^%s --socket %s'", dump, path);
	FILE *f = popen(cmd, "r");
	pid_t pid = 0;
	if (f && fgets(buf, sizeof(buf), f))
		pid = (pid_t)atoi(buf);
	if (f)
		pclose(f);
	return pid;
}

static void test_drops_and_restart(void)
{
	struct th_prod p, q;
	struct pub_config pc = {.no_hugepages = 1};
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	FILE *f = start_dump("--capacity 64 --count 67");
	CHECK(wait_clients(&p, 1));
	pid_t pid = dump_pid();
	CHECK(pid > 0);
	if (pid <= 0) {
		pclose(f);
		th_quit(&p);
		return;
	}
	kill(pid, SIGSTOP); /* it falls behind */
	CHECK_EQ(th_publish(&p, 0, 200), 0);
	kill(pid, SIGCONT);
	char line[512];
	int records = 0, dropped_line = 0;
	while (records < 64 && next_line(f, line, sizeof(line)))
		records++;
	CHECK_EQ(records, 64); /* what fitted in its ring */
	CHECK_EQ(th_publish(&p, 500, 1), 0);
	CHECK(next_line(f, line, sizeof(line)));
	dropped_line = strncmp(line, "DROPPED 136 records before seq=201 ", 35) == 0;
	CHECK(dropped_line);
	CHECK(next_line(f, line, sizeof(line)));
	CHECK(strstr(line, "msg=501 ") != NULL);
	/* restart: a new producer takes the path over, the old one dies */
	CHECK_EQ(th_start(&q, path, &pc, NULL), 0);
	th_kill(&p);
	int restarted = 0, resubscribed = 0;
	while (!resubscribed && next_line(f, line, sizeof(line))) {
		restarted |= strncmp(line, "# daemon restarted", 18) == 0;
		resubscribed |= strncmp(line, "# resubscribed", 14) == 0;
	}
	CHECK(restarted);
	CHECK(resubscribed);
	CHECK(wait_clients(&q, 1));
	CHECK_EQ(th_publish(&q, 41, 2), 0);
	CHECK(next_line(f, line, sizeof(line)));
	CHECK(strstr(line, "msg=42 ") != NULL && strstr(line, "seq=1 ") != NULL);
	CHECK(next_line(f, line, sizeof(line)));
	CHECK(strstr(line, "msg=43 ") != NULL);
	CHECK_EQ(pclose(f), 0);
	th_quit(&q);
}

int main(void)
{
	const char *b = getenv("BUILD");
	snprintf(dump, sizeof(dump), "%s/asan/bin/toe-dump", b && *b ? b : "build");
	if (access(dump, X_OK) != 0)
		return test_skip("test_client_dump", "toe-dump not built ($BUILD/asan/bin/toe-dump)");
	th_tmpdir(dir, sizeof(dir));
	if (!dir[0])
		return test_skip("test_client_dump", "cannot create a temporary folder");
	snprintf(path, sizeof(path), "%s/toed.sock", dir);
	test_lines();
	test_stream();
	test_drops_and_restart();
	th_rmdir(dir);
	return test_done("test_client_dump");
}
