/* test_dp_setup.c - dp/dp_setup: a loaded configuration into each component's settings.
 *
 * The mirror TOE's and the network layer's settings of a port are in
 * test_config.c (test_helpers); here: the receive pipeline's UDP streams (UDP
 * feeds and [udp] ports, each port once, framing from the feed or [fast], the
 * stream limit), the frame source's steering list (TCP feeds by exchange, UDP
 * by port, no duplicates, feeds of other ports left out), the data-plane
 * thread's live settings, the card's and the publisher's. Configurations are
 * parsed from memory; runs from the repository root (the templates).
 */
#include "test.h"
#include "conf_text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp/dp_setup.h"

static char g_tpl[PATH_MAX];
static struct toed_config *g_cfg;

/* text + [source] + [fast]; 0 when it loads */
static int load(const char *text)
{
	static char buf[8192];
	snprintf(buf, sizeof buf, "%s[fast]\ntemplates = %s\n", text, g_tpl);
	return conf_text_load("/tmp/dp_setup.conf", buf, g_cfg);
}

static int has_feed(const struct src_cfg *sc, uint32_t ip, uint16_t port, uint8_t proto)
{
	for (uint32_t i = 0; i < sc->nfeeds; i++)
		if (sc->feeds[i].ip == ip && sc->feeds[i].port == port && sc->feeds[i].proto == proto)
			return 1;
	return 0;
}

static void test_rx_and_src(void)
{
	struct rx_cfg *rc = malloc(sizeof *rc);
	uint16_t ff[TOED_MAX_FEEDS];
	char err[256];
	CHECK_EQ(load("[source]\ntype = af_xdp\ninterface = eth1\nqueue = 3\nxdp_mode = skb\n"
		      "[feed.t]\nexchange = 10.0.0.1:5261\n"
		      "[feed.u]\nprotocol = udp\nvendor = *:6000\nframing = raw\n"
		      "[feed.v]\nprotocol = udp\nvendor = 10.1.0.2:6001\n"
		      "[udp]\nports = 6000, 7000-7001\n"),
		 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, ff, err, sizeof err), 0);
	CHECK_EQ(rc->mtoe.nflows, 1);
	CHECK_EQ(ff[0], 0);
	/* the feeds' ports first, with their framing; then [udp] ports not already there, with [fast] framing */
	CHECK_EQ(rc->nudp, 4);
	CHECK(rc->udp[0].port == 6000 && rc->udp[0].framing == FAST_FRAMING_DATAGRAM);
	CHECK(rc->udp[1].port == 6001 && rc->udp[1].framing == FAST_FRAMING_STEP);
	CHECK(rc->udp[2].port == 7000 && rc->udp[2].framing == FAST_FRAMING_STEP);
	CHECK(rc->udp[3].port == 7001);

	struct src_cfg sc;
	struct src_feed *feeds = malloc(SRC_MAX_FEEDS * sizeof *feeds);
	dp_setup_src(g_cfg, rc, "/x/toe_steer.bpf.o", &sc, feeds);
	CHECK_EQ(sc.kind, SRC_AF_XDP);
	CHECK(strcmp(sc.ifname, "eth1") == 0);
	CHECK_EQ(sc.queue, 3);
	CHECK_EQ(sc.xdp_mode, SRC_XDP_SKB);
	CHECK(strcmp(sc.bpf_obj_path, "/x/toe_steer.bpf.o") == 0);
	CHECK_EQ(sc.loops, SRC_LOOP_FOREVER); /* pacing and loops are the thread's (live keys) */
	/* t by its exchange, u and v by theirs, then every port the pipeline decodes for any address:
	 * 6000 not twice (u is any address already), 6001 (v names one address), 7000, 7001 */
	CHECK_EQ(sc.nfeeds, 6);
	CHECK(has_feed(&sc, 0, 6001, 17));
	CHECK(has_feed(&sc, 0x0a000001, 5261, 6));
	CHECK(has_feed(&sc, 0, 6000, 17));
	CHECK(has_feed(&sc, 0x0a010002, 6001, 17));
	CHECK(has_feed(&sc, 0, 7000, 17) && has_feed(&sc, 0, 7001, 17));

	/* more UDP ports than the pipeline has streams: a configuration error with a reason */
	char text[1024];
	snprintf(text, sizeof text, "[source]\ninterface = eth0\n[udp]\nports = 1000-%d\n", 1000 + RX_MAX_UDP);
	CHECK_EQ(load(text), 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, NULL, err, sizeof err), -1);
	CHECK(strstr(err, "UDP streams") != NULL);

	/* pcap: the kind and the file; feeds of another port are not steered */
	char pcap[] = "/tmp/dp_setup-XXXXXX";
	int fd = mkstemp(pcap);
	static const uint8_t hdr[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff, 0, 0, 1, 0, 0, 0 };
	CHECK(fd >= 0 && write(fd, hdr, sizeof hdr) == (ssize_t)sizeof hdr);
	if (fd >= 0)
		close(fd);
	snprintf(text, sizeof text, "[source]\ntype = pcap\npcap_file = %s\npcap_pace = fast\n"
				    "[feed.t]\nexchange = 10.0.0.1:5261\n", pcap);
	CHECK_EQ(load(text), 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, NULL, err, sizeof err), 0);
	dp_setup_src(g_cfg, rc, NULL, &sc, feeds);
	CHECK_EQ(sc.kind, SRC_PCAP);
	CHECK(strcmp(sc.pcap_path, pcap) == 0);
	CHECK_EQ(sc.nfeeds, 1);
	CHECK_EQ(sc.tx, 0); /* a mirror port never sends */
	CHECK(!has_feed(&sc, 0, 0, SRC_PROTO_ARP));
	unlink(pcap);

	/* a mirror port (the default): no transmit, no ARP/ICMP rules */
	CHECK_EQ(load("[source]\ntype = af_xdp\ninterface = eth1\n[feed.t]\nexchange = 10.0.0.1:5261\n"), 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, NULL, err, sizeof err), 0);
	dp_setup_src(g_cfg, rc, NULL, &sc, feeds);
	CHECK_EQ(sc.tx, 0);
	CHECK_EQ(sc.nfeeds, 1);

	/* role = tcp: transmit on, the port's ARP and ICMP steered to toed besides the connection's frames;
	 * the mirror TOE keeps the feed's flow (its stream and sequence group), destination filtering on */
	CHECK_EQ(load("[source]\ntype = af_xdp\ninterface = eth1\n[port]\nrole = tcp\nip = 10.0.0.5\nnetmask = 24\n"
		      "[feed.t]\nexchange = 10.0.0.1:5261\n"),
		 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, NULL, err, sizeof err), 0);
	CHECK_EQ(rc->mtoe.nflows, 1);
	CHECK(rc->net.flags & NET_CFG_FILTER_DST);
	CHECK_EQ(rc->net.naddr, 1);
	dp_setup_src(g_cfg, rc, NULL, &sc, feeds);
	CHECK_EQ(sc.tx, 1);
	CHECK_EQ(sc.nfeeds, 3);
	CHECK(has_feed(&sc, 0x0a000001, 5261, 6));
	CHECK(has_feed(&sc, 0x0a000005, 0, SRC_PROTO_ICMP));
	CHECK(has_feed(&sc, 0x0a000005, 0, SRC_PROTO_ARP));
	CHECK_EQ(rc->mtoe.first_conn, 1); /* stream 0 is toed's own connection: the mirror TOE never takes it */

	/* a mixed A/B group: toed's own connections on port 0 (streams 0, 1), a mirrored feed on port 1
	 * whose connections take the slots above them */
	CHECK_EQ(load("[source]\ntype = af_xdp\ninterface = eth1\n[port]\nrole = tcp\nip = 10.0.0.5\nnetmask = 24\n"
		      "[port.1]\ninterface = eth2\n[feed.a]\nexchange = 10.0.0.1:5261\n[feed.c]\nexchange = 10.0.0.1:5263\n"
		      "[feed.b]\nexchange = 10.1.0.1:5262\nport = 1\n"),
		 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, NULL, err, sizeof err), 0);
	CHECK_EQ(rc->mtoe.nflows, 3);
	CHECK_EQ(rc->mtoe.first_conn, 2);
	/* port 1 is a mirror: no transmit side, none of port 0's ARP/ICMP steered to it */
	CHECK_EQ(dp_setup_answers(g_cfg, 0), 1);
	CHECK_EQ(dp_setup_answers(g_cfg, 1), 0);
	dp_setup_src_port(g_cfg, rc, 1, "/x.o", &sc, feeds);
	CHECK(strcmp(sc.ifname, "eth2") == 0);
	CHECK_EQ(sc.tx, 0);
	CHECK_EQ(sc.nfeeds, 1);
	CHECK(has_feed(&sc, 0x0a010001, 5262, 6));
	CHECK(!has_feed(&sc, 0x0a000005, 0, SRC_PROTO_ARP) && !has_feed(&sc, 0x0a000005, 0, SRC_PROTO_ICMP));
	dp_setup_src_port(g_cfg, rc, 0, "/x.o", &sc, feeds);
	CHECK_EQ(sc.tx, 1);
	CHECK_EQ(sc.nfeeds, 4); /* a, c, ARP and ICMP */

	/* every port a mirror: no slot reserved */
	CHECK_EQ(load("[source]\ntype = af_xdp\ninterface = eth1\n[feed.t]\nexchange = 10.0.0.1:5261\n"), 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, NULL, err, sizeof err), 0);
	CHECK_EQ(rc->mtoe.first_conn, 0);
	free(feeds);
	free(rc);
}

/* Four ports: each port's network settings, flows taking their port's frames only, UDP streams
 * per (UDP port, port), and a source per port with its interface, queue and steering list. */
static void test_ports(void)
{
	struct rx_cfg *rc = malloc(sizeof *rc);
	struct src_feed *feeds = malloc(SRC_MAX_FEEDS * sizeof *feeds);
	uint16_t ff[TOED_MAX_FEEDS];
	char err[256];
	struct src_cfg sc;
	CHECK_EQ(load("[source]\ntype = af_xdp\ninterface = eth0\nqueue = 1\nxsk_frames = 128K\n"
		      "[port.2]\ninterface = eth2\nqueue = 3\nrole = udp\nip = 10.2.0.2\nnetmask = 24\n"
		      "[port.3]\ninterface = eth3\nverify_checksums = no\n"
		      "[feed.a]\nexchange = 10.0.0.1:5261\n"
		      "[feed.b]\nexchange = 10.0.0.1:5261\nport = 3\n"
		      "[feed.u0]\nprotocol = udp\nvendor = *:6000\n"
		      "[feed.u2]\nprotocol = udp\nvendor = 10.2.0.2:6000\nport = 2\n"
		      "[udp]\nports = 7000\n"),
		 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, ff, err, sizeof err), 0);
	/* the same exchange on ports 0 and 3: two flows, each of its port */
	CHECK_EQ(rc->mtoe.nflows, 2);
	CHECK(rc->mtoe.flows[0].in_port == 0 && ff[0] == 0);
	CHECK(rc->mtoe.flows[1].in_port == 3 && ff[1] == 1);
	/* UDP 6000 on ports 0 and 2: two streams; [udp] ports are port 0's */
	CHECK_EQ(rc->nudp, 3);
	CHECK(rc->udp[0].port == 6000 && rc->udp[0].in_port == 0);
	CHECK(rc->udp[1].port == 6000 && rc->udp[1].in_port == 2);
	CHECK(rc->udp[2].port == 7000 && rc->udp[2].in_port == 0);
	/* network settings per port: port 2 filters by destination and has its address, port 3 verifies nothing */
	CHECK_EQ(rc->net.naddr, 0);
	CHECK(rc->net_port[1].naddr == 1 && rc->net_port[1].addr[0].ip == 0x0a020002u);
	CHECK(rc->net_port[1].flags & NET_CFG_FILTER_DST);
	CHECK(!(rc->net.flags & NET_CFG_FILTER_DST));
	CHECK(!(rc->net_port[2].flags & (NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM)));
	CHECK(rc->net.flags & NET_CFG_TCP_CSUM);
	/* the sources: port 0 from [source], the others from their sections; each steers its own feeds */
	dp_setup_src_port(g_cfg, rc, 0, "/x.o", &sc, feeds);
	CHECK(strcmp(sc.ifname, "eth0") == 0 && sc.queue == 1 && sc.kind == SRC_AF_XDP);
	CHECK_EQ(sc.nfeeds, 3); /* a, u0, the [udp] port 7000 */
	CHECK(has_feed(&sc, 0x0a000001, 5261, 6) && has_feed(&sc, 0, 6000, 17) && has_feed(&sc, 0, 7000, 17));
	/* port 0 and port 3 are mirrors: they never send, nor take ARP or ICMP */
	CHECK_EQ(sc.tx, 0);
	CHECK_EQ(dp_setup_answers(g_cfg, 0), 0);
	/* port 2 (role = udp, its own address) answers ARP and ICMP for it through its own source: a
	 * transmit side, and its address's ARP and ICMP steered to it */
	CHECK_EQ(dp_setup_answers(g_cfg, 2), 1);
	dp_setup_src_port(g_cfg, rc, 2, "/x.o", &sc, feeds);
	CHECK(strcmp(sc.ifname, "eth2") == 0 && sc.queue == 3);
	CHECK_EQ(sc.tx, 1);
	CHECK_EQ(sc.nfeeds, 4); /* u2 by its address, the stream's port for any address, ARP and ICMP */
	CHECK(has_feed(&sc, 0x0a020002, 6000, 17) && has_feed(&sc, 0, 6000, 17));
	CHECK(has_feed(&sc, 0x0a020002, 0, SRC_PROTO_ARP) && has_feed(&sc, 0x0a020002, 0, SRC_PROTO_ICMP));
	CHECK_EQ(dp_setup_answers(g_cfg, 3), 0);
	dp_setup_src_port(g_cfg, rc, 3, "/x.o", &sc, feeds);
	CHECK(strcmp(sc.ifname, "eth3") == 0 && sc.queue == 0);
	CHECK_EQ(sc.tx, 0); /* a mirror port never sends */
	CHECK_EQ(sc.nfeeds, 1);
	CHECK(has_feed(&sc, 0x0a000001, 5261, 6));
	CHECK(!has_feed(&sc, 0x0a020002, 0, SRC_PROTO_ARP) && !has_feed(&sc, 0x0a020002, 0, SRC_PROTO_ICMP));
	CHECK_EQ(dp_setup_answers(g_cfg, 1), 0); /* not configured */

	/* udp ports 1 and 3, each with its address: each answers through its own source, port 0 (a
	 * mirror) does not */
	CHECK_EQ(load("[source]\ntype = af_packet\ninterface = eth0\n"
		      "[port.1]\ninterface = eth1\nrole = udp\nip = 10.1.0.2\nnetmask = 24\n"
		      "[port.3]\ninterface = eth3\nrole = udp\nip = 10.3.0.2\nnetmask = 24\nvlan = 7\n"
		      "[feed.u1]\nprotocol = udp\nvendor = *:6000\nport = 1\n"),
		 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, NULL, err, sizeof err), 0);
	CHECK_EQ(dp_setup_answers(g_cfg, 0), 0);
	for (uint32_t k = 1; k <= 3; k += 2) {
		uint32_t ip = 0x0a000002u | k << 16;
		CHECK_EQ(dp_setup_answers(g_cfg, k), 1);
		dp_setup_src_port(g_cfg, rc, k, NULL, &sc, feeds);
		CHECK_EQ(sc.kind, SRC_AF_PACKET);
		CHECK_EQ(sc.tx, 1);
		CHECK(has_feed(&sc, ip, 0, SRC_PROTO_ARP) && has_feed(&sc, ip, 0, SRC_PROTO_ICMP));
	}
	CHECK_EQ(rc->net_port[2].addr[0].vlan, 7); /* port 3's replies and requests are tagged */
	dp_setup_src_port(g_cfg, rc, 0, NULL, &sc, feeds);
	CHECK_EQ(sc.tx, 0);
	CHECK_EQ(sc.nfeeds, 0);
	free(feeds);
	free(rc);
}

static void test_live_pub_card(void)
{
	CHECK_EQ(load("[source]\ninterface = eth0\npcap_pace = 0.5\npcap_loop = 3\n"
		      "[tcp]\ngap_timeout_ms = 20\nidle_timeout_s = 60\nmss = 1344\n"
		      "[dataplane]\ncpu = 0\npriority = 10\nbusy_poll = yes\n"
		      "[shm]\nmax_clients = 7\nring_size = 4K\nhugepages = off\n"
		      "[feed.t]\nexchange = 10.0.0.1:5261\n"),
		 0);
	struct toed_dp_live l;
	dp_setup_live(&l, g_cfg);
	CHECK_EQ(l.cpu, 0);
	CHECK_EQ(l.priority, 10);
	CHECK_EQ(l.busy_poll, 1);
	CHECK(l.pace == 0.5);
	CHECK_EQ(l.loops, 3);
	CHECK_EQ(l.gap_timeout_ns, 20000000ull);
	CHECK_EQ(l.idle_timeout_ns, 60000000000ull);

	struct pub_config pc;
	dp_setup_pub(&pc, g_cfg);
	CHECK_EQ(pc.max_clients, 7);
	CHECK_EQ(pc.default_capacity, 4096);
	CHECK_EQ(pc.history, 4096);
	CHECK_EQ(pc.max_capacity, TOE_SHM_MAX_CAPACITY);
	CHECK_EQ(pc.no_hugepages, 1);
	CHECK_EQ(pc.threaded, 1);

	struct rx_cfg *rc = malloc(sizeof *rc);
	struct toe_xrt_params p;
	rx_cfg_default(rc);
	dp_setup_card(&p, g_cfg, rc);
	CHECK(p.rx == rc);
	CHECK(p.prog == &g_cfg->fast.prog);
	CHECK_EQ(p.hw.mss, 1344);
	CHECK_EQ(p.hw.role, TOE_ROLE_MIRROR);
	CHECK_EQ(p.hw.ring_slots, TOE_XRT_DEFAULT_SLOTS);
	free(rc);
}

int main(void)
{
	if (test_sse_templates(g_tpl, sizeof g_tpl) < 0)
		return test_skip("dp_setup", "run from the repository root (conf/templates needed)");
	g_cfg = malloc(sizeof *g_cfg);
	test_rx_and_src();
	test_ports();
	test_live_pub_card();
	free(g_cfg);
	return test_done("dp_setup");
}
