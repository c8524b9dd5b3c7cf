/* test_dp_mcast.c - dp/dp_mcast: which multicast groups a configuration joins, on which interface, from which source.
 *
 * The plan (a pure function of the configuration): UDP feeds with a
 * multicast vendor address only, on the interface of the feed's port, a
 * source-specific join when the feed names its exchange address, each
 * (port, group, source) once, nothing for a pcap replay or the card; the
 * descriptor budget counts the multicast feeds. Then the sockets: a join on
 * an interface that does not exist is an error naming the feed, the group and
 * the interface; a join on lo shows in /proc/net/igmp until the socket is
 * closed, and the socket takes no data even when bound to a port it is sent
 * to (its filter accepts nothing). Configurations are parsed from memory;
 * runs from the repository root (the templates).
 */
#include "test.h"
#include "conf_text.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp/dp_mcast.h"

static char g_tpl[PATH_MAX];
static struct toed_config *g_cfg;

/* text + [fast]; 0 when it loads */
static int load(const char *text)
{
	static char buf[8192];
	snprintf(buf, sizeof buf, "%s[fast]\ntemplates = %s\n", text, g_tpl);
	return conf_text_load("/tmp/dp_mcast.conf", buf, g_cfg);
}

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

static const char *g_feeds = "[feed.m]\nprotocol = udp\nvendor = 239.1.1.1:6000\n"
			     "[feed.s]\nprotocol = udp\nvendor = 232.1.1.1:6001\nexchange = 10.0.0.9\n"
			     "[feed.any]\nprotocol = udp\nvendor = *:6002\n"
			     "[feed.uni]\nprotocol = udp\nvendor = 10.1.0.2:6003\n"
			     "[feed.t]\nexchange = 10.0.0.1:5261\n"
			     "[feed.m2]\nprotocol = udp\nvendor = 239.1.1.1:6004\n"
			     "[feed.m3]\nprotocol = udp\nvendor = 239.1.1.1:6005\nexchange = 10.0.0.8:7000\n";

static void test_plan(void)
{
	static char text[4096];
	struct dp_mcast_join j[DP_MCAST_MAX];
	const char *types[] = {"af_packet", "af_xdp"};
	for (int t = 0; t < 2; t++) {
		snprintf(text, sizeof text, "[source]\ntype = %s\ninterface = eth1\n%s", types[t], g_feeds);
		CHECK_EQ(load(text), 0);
		uint32_t n = dp_mcast_plan(g_cfg, j);
		/* m; s from its exchange; m2 is m's group again (joined once); m3 the same group from one
		 * source (another membership); any, uni (unicast) and the tcp feed join nothing */
		CHECK_EQ(n, 3);
		CHECK(j[0].port == 0 && j[0].group == IP4(239, 1, 1, 1) && j[0].source == 0 && j[0].feed == 0);
		CHECK(strcmp(j[0].ifname, "eth1") == 0 && strcmp(j[0].feed_name, "m") == 0);
		CHECK(j[1].group == IP4(232, 1, 1, 1) && j[1].source == IP4(10, 0, 0, 9) && j[1].feed == 1);
		CHECK(strcmp(j[1].feed_name, "s") == 0);
		CHECK(j[2].group == IP4(239, 1, 1, 1) && j[2].source == IP4(10, 0, 0, 8) && j[2].feed == 6);
		CHECK(strcmp(j[2].feed_name, "m3") == 0);
		/* every multicast feed may hold a socket: m, s, m2, m3 */
		CHECK_EQ(toed_mcast_feeds(g_cfg), 4);
		CHECK_EQ(toed_fds_needed(10, 4), toed_fds_needed(10, 0) + 4);
	}

	/* a replay has no interface to join on; the card filters on its own (set on the loaded
	 * configuration: loading either wants a real capture or xclbin) */
	g_cfg->source.type = TOED_SRC_PCAP;
	CHECK_EQ(dp_mcast_plan(g_cfg, j), 0);
	g_cfg->source.type = TOED_SRC_AF_PACKET;
	CHECK_EQ(dp_mcast_plan(g_cfg, j), 3);
	g_cfg->device.backend = TOED_BACKEND_XRT;
	CHECK_EQ(dp_mcast_plan(g_cfg, j), 0);

	/* each feed on its own port's interface, the same group on two ports joined on each; a mirror
	 * port (the default role) and a udp port alike */
	CHECK_EQ(load("[source]\ntype = af_packet\ninterface = eth1\n"
		      "[port.1]\ninterface = eth2\nrole = udp\nip = 10.2.0.5\nnetmask = 24\n"
		      "[port.2]\ninterface = eth3\n"
		      "[feed.a]\nprotocol = udp\nvendor = 239.5.0.1:6000\n"
		      "[feed.b]\nprotocol = udp\nvendor = 239.5.0.1:6001\nport = 1\n"
		      "[feed.c]\nprotocol = udp\nvendor = 224.0.1.9:6002\nport = 2\n"
		      "[feed.d]\nprotocol = udp\nvendor = 10.2.0.5:6003\nport = 1\n"),
		 0);
	uint32_t n = dp_mcast_plan(g_cfg, j);
	CHECK_EQ(n, 3);
	CHECK(j[0].port == 0 && strcmp(j[0].ifname, "eth1") == 0 && j[0].group == IP4(239, 5, 0, 1));
	CHECK(j[1].port == 1 && strcmp(j[1].ifname, "eth2") == 0 && j[1].group == IP4(239, 5, 0, 1));
	CHECK(j[2].port == 2 && strcmp(j[2].ifname, "eth3") == 0 && j[2].group == IP4(224, 0, 1, 9));
	CHECK_EQ(toed_mcast_feeds(g_cfg), 3);

	/* no multicast feed: nothing to join */
	CHECK_EQ(load("[source]\ntype = af_xdp\ninterface = eth1\n[feed.u]\nprotocol = udp\nvendor = *:6000\n"), 0);
	CHECK_EQ(dp_mcast_plan(g_cfg, j), 0);
	CHECK_EQ(toed_mcast_feeds(g_cfg), 0);
}

static void test_describe(void)
{
	struct dp_mcast *m = calloc(1, sizeof *m);
	char buf[256];
	m->n = 3;
	m->join[0] = (struct dp_mcast_join){.port = 0, .group = IP4(239, 1, 1, 1), .feed_name = "m"};
	m->join[1] = (struct dp_mcast_join){.port = 1, .group = IP4(239, 2, 2, 2), .feed_name = "x"};
	m->join[2] = (struct dp_mcast_join){.port = 0, .group = IP4(232, 1, 1, 1), .source = IP4(10, 0, 0, 9),
					    .feed_name = "s"};
	CHECK(strcmp(dp_mcast_describe(m, 0, buf, sizeof buf), "239.1.1.1 (feed m), 232.1.1.1 from 10.0.0.9 (feed s)") ==
	      0);
	CHECK(strcmp(dp_mcast_describe(m, 1, buf, sizeof buf), "239.2.2.2 (feed x)") == 0);
	CHECK(strcmp(dp_mcast_describe(m, 2, buf, sizeof buf), "") == 0);
	m->n = 0; /* no sockets to close */
	dp_mcast_close(m);
	free(m);
}

/* Is group (host order) joined on device dev, as /proc/net/igmp says? -1: cannot tell. */
static int igmp_joined(const char *dev, uint32_t group)
{
	char line[256], want[16];
	int in_dev = 0, found = 0;
	FILE *f = fopen("/proc/net/igmp", "r");
	if (!f)
		return -1;
	snprintf(want, sizeof want, "%08X", (unsigned)htonl(group)); /* the kernel prints the raw word */
	while (fgets(line, sizeof line, f)) {
		if (line[0] != '\t' && line[0] != ' ') { /* "1\tlo        :     2      V3" */
			char name[32];
			in_dev = sscanf(line, "%*d %31s", name) == 1 && strcmp(name, dev) == 0;
		} else if (in_dev && strstr(line, want)) {
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static void test_sockets(void)
{
	struct dp_mcast *m = calloc(1, sizeof *m);
	char err[512];

	/* an interface that does not exist: the feed, the group and the interface named */
	CHECK_EQ(load("[source]\ntype = af_packet\ninterface = nosuch-mc0\n"
		      "[feed.m]\nprotocol = udp\nvendor = 239.31.9.1:6000\n"),
		 0);
	CHECK_EQ(dp_mcast_open(m, g_cfg, err, sizeof err), -1);
	CHECK(strstr(err, "[feed.m]") && strstr(err, "239.31.9.1") && strstr(err, "nosuch-mc0") &&
	      strstr(err, "no such interface"));
	CHECK_EQ(m->n, 0);

	/* on lo: joined while the socket is open, left when it closes */
	CHECK_EQ(load("[source]\ntype = af_packet\ninterface = lo\n"
		      "[feed.m]\nprotocol = udp\nvendor = 239.31.9.1:6000\n"),
		 0);
	if (dp_mcast_open(m, g_cfg, err, sizeof err) < 0) {
		printf("SKIP (join on lo): %s\n", err);
		free(m);
		return;
	}
	CHECK_EQ(m->n, 1);
	int before = igmp_joined("lo", IP4(239, 31, 9, 1));
	if (before < 0) {
		printf("SKIP (/proc/net/igmp): not readable\n");
	} else {
		CHECK_EQ(before, 1);
	}

	/* the socket takes nothing: bound to a port here (toed never binds it), a datagram sent to
	 * that port is dropped by its filter, and its buffer is the kernel's smallest */
	int fd = m->fd[0];
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	CHECK_EQ(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	CHECK_EQ(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	int tx = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(tx >= 0);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(sendto(tx, "tick", 4, 0, (struct sockaddr *)&a, sizeof a), 4);
	close(tx);
	usleep(20000);
	char b[16];
	errno = 0;
	CHECK_EQ(recv(fd, b, sizeof b, MSG_DONTWAIT), -1);
	CHECK_EQ(errno, EAGAIN);
	int rcvbuf = 0;
	socklen_t rl = sizeof rcvbuf;
	CHECK_EQ(getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &rl), 0);
	CHECK(rcvbuf > 0 && rcvbuf <= 4608); /* SOCK_MIN_RCVBUF, about 2.3 KB, doubled at most */

	dp_mcast_close(m);
	CHECK_EQ(m->n, 0);
	if (before >= 0)
		CHECK_EQ(igmp_joined("lo", IP4(239, 31, 9, 1)), 0);
	free(m);
}

int main(void)
{
	if (test_sse_templates(g_tpl, sizeof g_tpl) < 0)
		return test_skip("dp_mcast", "run from the repository root (conf/templates needed)");
	g_cfg = malloc(sizeof *g_cfg);
	test_plan();
	test_describe();
	test_sockets();
	free(g_cfg);
	return test_done("dp_mcast");
}
