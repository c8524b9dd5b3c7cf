/* test_dp_resp.c - dp/dp_resp: a role = udp port N answers ARP and ping for its own address, through its own source.
 *
 * Ports as the data-plane thread runs them (rx_frame_port classifies, the
 * port's responder answers what came out ARP or ICMP): port 0 a mirror,
 * port 2 role = udp 10.2.0.2/24 with mac 02:00:00:00:00:22 and vlan 7, port 3
 * role = udp 10.3.0.2/24 with mac 02:00:00:00:00:33 untagged. A test source
 * per port keeps what is transmitted. Frames are built by tests/lib/pktbuild
 * (independent of kernels/net):
 *   - an ARP request for 10.2.0.2 on port 2, tagged VLAN 7: one reply on port
 *     2's source only, to the asker, from port 2's MAC, with the tag kept;
 *   - an ARP request for port 3's address arriving on port 2: not answered
 *     (each port speaks for its own address only); the same on port 3: answered
 *     from port 3's MAC, untagged;
 *   - an ICMP echo request to 10.2.0.2 on port 2: the echo reply with the same
 *     id, sequence and data, from port 2's MAC and address; an echo request to
 *     another host is not answered;
 *   - a UDP datagram to port 2's feed still reaches its stream, nothing sent;
 *   - a source opened without a transmit side (what a mirror port gets) takes
 *     nothing: the reply is counted in tx_fail and the source's tx_refused;
 *   - dp_resp_flush kicks the source only when frames are queued;
 *   - a port without mac whose interface does not exist: a clear error.
 */
#include "test.h"
#include "conf_text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp/dp_resp.h"
#include "dp/dp_setup.h"
#include "net/net_rx.h"
#include "pktbuild.h"
#include "src/src_impl.h"
#include "tx_capture.h"

static char g_tpl[PATH_MAX];

static const uint8_t MAC2[6] = { 2, 0, 0, 0, 0, 0x22 };
static const uint8_t MAC3[6] = { 2, 0, 0, 0, 0, 0x33 };
static const uint8_t PEER_MAC[6] = { 2, 0, 0, 0, 0, 9 };
#define IP2 0x0a020002u
#define IP3 0x0a030002u
#define PEER2 0x0a020009u
#define PEER3 0x0a030009u


struct rig {
	struct toed_config *cfg;
	struct rx_cfg rc;
	struct rx_pipe *pipe;
	struct fast_stream *fs;
	uint8_t *mbuf;
	struct dp_resp *resp[TOED_MAX_PORTS];
	struct tx_capture src[TOED_MAX_PORTS];
};

static int load(struct rig *r, const char *ports)
{
	char text[PATH_MAX + 1024];
	snprintf(text, sizeof text,
		 "[source]\ntype = af_xdp\ninterface = eth0\n%s"
		 "[feed.u2]\nprotocol = udp\nvendor = *:6000\nport = 2\nframing = raw\n"
		 "[fast]\ntemplates = %s\n",
		 ports, g_tpl);
	return conf_text_load("/tmp/dp_resp.conf", text, r->cfg);
}

/* The thread's preparation: each answering port's responder, then the pipeline; each port its
 * own source. */
static int rig_up(struct rig *r)
{
	char err[256];
	memset(r, 0, sizeof *r);
	r->cfg = malloc(sizeof *r->cfg);
	int rc = load(r, "[port.2]\ninterface = eth2\nrole = udp\nip = 10.2.0.2\nnetmask = 24\n"
			 "mac = 02:00:00:00:00:22\nvlan = 7\n"
			 "[port.3]\ninterface = eth3\nrole = udp\nip = 10.3.0.2\nnetmask = 24\nmac = 02:00:00:00:00:33\n");
	CHECK_EQ(rc, 0);
	if (rc)
		return -1;
	rx_cfg_default(&r->rc);
	CHECK_EQ(dp_setup_rx(r->cfg, &r->rc, NULL, err, sizeof err), 0);
	for (uint32_t p = 0; p < TOED_MAX_PORTS; p++) {
		tx_capture_init(&r->src[p]);
		if (!dp_setup_answers(r->cfg, p))
			continue;
		r->resp[p] = calloc(1, sizeof *r->resp[p]);
		CHECK_EQ(dp_resp_init(r->resp[p], r->cfg, p, p ? &r->rc.net_port[p - 1] : &r->rc.net, err, sizeof err), 0);
		r->resp[p]->src = &r->src[p].base;
	}
	CHECK(!r->resp[0] && !r->resp[1] && r->resp[2] && r->resp[3]);
	uint32_t nfs = RX_NSTREAMS(&r->rc);
	uint64_t blen = MTOE_BUF_BYTES(r->rc.mtoe.max_conns, r->rc.mtoe.window);
	r->pipe = calloc(1, sizeof *r->pipe);
	r->fs = calloc(nfs, sizeof *r->fs);
	r->mbuf = malloc(blen);
	CHECK_EQ(rx_init(r->pipe, &r->rc, &r->cfg->fast.prog, r->fs, nfs, r->mbuf, blen), RX_OK);
	return 0;
}

static void rig_down(struct rig *r)
{
	for (uint32_t p = 0; p < TOED_MAX_PORTS; p++)
		free(r->resp[p]);
	free(r->pipe);
	free(r->fs);
	free(r->mbuf);
	free(r->cfg);
}

/* A frame on port `port`, as the data-plane thread's frame_in handles it: the verdict. */
static int32_t frame_in(struct rig *r, uint32_t port, const uint8_t *f, size_t n, uint64_t now)
{
	struct rx_out o;
	int32_t v = rx_frame_port(r->pipe, port, f, (uint32_t)n, now, SRC_CSUM_UNKNOWN);
	if (r->resp[port] && (v == NET_RX_ARP || v == NET_RX_ICMP))
		dp_resp_input(r->resp[port], port ? &r->pipe->cfg.net_port[port - 1] : &r->pipe->cfg.net, &r->pipe->net,
			      v, &r->pipe->pkt, now);
	while (rx_next(r->pipe, &o))
		;
	return v;
}

/* who has TPA? from PEER, VLAN vid (0 untagged) */
static size_t arp_req(uint8_t *f, size_t cap, uint32_t spa, uint32_t tpa, uint16_t vid)
{
	struct pb_spec s;
	pb_init(&s);
	memset(s.dst_mac, 0xff, 6);
	memcpy(s.src_mac, PEER_MAC, 6);
	if (vid) {
		s.nvlan = 1;
		s.vlan_tci[0] = vid;
	}
	s.arp_op = 1;
	memcpy(s.arp_sha, PEER_MAC, 6);
	s.arp_spa = spa;
	s.arp_tpa = tpa;
	return pb_arp(f, cap, &s);
}

static void test_arp(void)
{
	struct rig r;
	uint8_t f[256];
	if (rig_up(&r) < 0)
		return;
	/* port 2, VLAN 7: answered on port 2's source, tag kept */
	CHECK_EQ(frame_in(&r, 2, f, arp_req(f, sizeof f, PEER2, IP2, 7), 1000), NET_RX_ARP);
	CHECK_EQ(r.src[2].n, 1);
	CHECK_EQ(r.src[0].n + r.src[1].n + r.src[3].n, 0);
	CHECK_EQ(r.resp[2]->st.arp_replies, 1);
	if (r.src[2].n == 1) {
		const uint8_t *p = r.src[2].frame[0];
		CHECK_MEM(p, PEER_MAC, 6);             /* to the asker */
		CHECK_MEM(p + 6, MAC2, 6);             /* from port 2 */
		CHECK_EQ(be16(p + 12), 0x8100);        /* the request's tag */
		CHECK_EQ(be16(p + 14) & 0x0fff, 7);
		CHECK_EQ(be16(p + 16), 0x0806);
		CHECK_EQ(be16(p + 18 + 6), 2);         /* reply */
		CHECK_MEM(p + 18 + 8, MAC2, 6);        /* sender hardware address: port 2's */
		CHECK_EQ(be32(p + 18 + 14), IP2);
		CHECK_MEM(p + 18 + 18, PEER_MAC, 6);   /* target: the asker */
		CHECK_EQ(be32(p + 18 + 24), PEER2);
	}
	/* the queued reply is kicked once; nothing queued: no kick */
	dp_resp_flush(r.resp[2]);
	dp_resp_flush(r.resp[2]);
	CHECK_EQ(r.src[2].flushes, 1);
	dp_resp_flush(r.resp[3]);
	CHECK_EQ(r.src[3].flushes, 0);

	/* port 3's address asked on port 2: not port 2's to answer */
	frame_in(&r, 2, f, arp_req(f, sizeof f, PEER2, IP3, 7), 2000);
	CHECK_EQ(r.src[2].n, 1);
	CHECK_EQ(r.src[3].n, 0);
	/* on port 3 (untagged): port 3 answers from its own MAC */
	frame_in(&r, 3, f, arp_req(f, sizeof f, PEER3, IP3, 0), 3000);
	CHECK_EQ(r.src[3].n, 1);
	CHECK_EQ(r.resp[3]->st.arp_replies, 1);
	if (r.src[3].n == 1) {
		const uint8_t *p = r.src[3].frame[0];
		CHECK_MEM(p + 6, MAC3, 6);
		CHECK_EQ(be16(p + 12), 0x0806);        /* untagged */
		CHECK_MEM(p + 14 + 8, MAC3, 6);
		CHECK_EQ(be32(p + 14 + 14), IP3);
	}
	/* the mirror port 0 has no responder: the request is only counted by the pipeline */
	uint64_t arps = r.pipe->st.arp;
	frame_in(&r, 0, f, arp_req(f, sizeof f, PEER2, IP2, 0), 4000);
	CHECK_EQ(r.pipe->st.arp, arps + 1);
	CHECK_EQ(r.src[0].n, 0);
	rig_down(&r);
}

static void test_icmp_udp(void)
{
	struct rig r;
	struct pb_spec s;
	uint8_t f[512];
	static const uint8_t data[] = "0123456789abcdef";
	if (rig_up(&r) < 0)
		return;
	pb_init(&s);
	memcpy(s.dst_mac, MAC2, 6);
	memcpy(s.src_mac, PEER_MAC, 6);
	s.nvlan = 1;
	s.vlan_tci[0] = 7;
	s.saddr = PEER2;
	s.daddr = IP2;
	s.icmp_type = 8;
	s.icmp_id = 0x4321;
	s.icmp_seq = 9;
	CHECK_EQ(frame_in(&r, 2, f, pb_icmp(f, sizeof f, &s, data, sizeof data), 1000), NET_RX_ICMP);
	CHECK_EQ(r.src[2].n, 1);
	CHECK_EQ(r.resp[2]->st.icmp_replies, 1);
	if (r.src[2].n == 1) {
		const uint8_t *p = r.src[2].frame[0];
		CHECK_MEM(p, PEER_MAC, 6);
		CHECK_MEM(p + 6, MAC2, 6);
		CHECK_EQ(be16(p + 14) & 0x0fff, 7);
		CHECK_EQ(be32(p + 18 + 12), IP2);          /* from port 2's address */
		CHECK_EQ(be32(p + 18 + 16), PEER2);        /* to the pinger */
		CHECK_EQ(p[18 + 20], 0);                   /* echo reply */
		CHECK_EQ(be16(p + 18 + 24), 0x4321);
		CHECK_EQ(be16(p + 18 + 26), 9);
		CHECK_MEM(p + 18 + 28, data, sizeof data);
	}
	/* an echo request to another host (a mirror would see it): destination filtering drops it on a
	 * udp port, nobody answers */
	s.daddr = 0x0a020077u;
	frame_in(&r, 2, f, pb_icmp(f, sizeof f, &s, data, sizeof data), 2000);
	CHECK_EQ(r.src[2].n, 1);
	CHECK_EQ(r.resp[2]->st.icmp_replies, 1);

	/* the feed's datagram on port 2 still reaches its UDP stream (the namespace test checks the
	 * records: test_toed_ports.sh), nothing is sent */
	struct pb_spec u;
	pb_init(&u);
	memcpy(u.dst_mac, MAC2, 6);
	u.nvlan = 1;
	u.vlan_tci[0] = 7;
	u.saddr = PEER2;
	u.daddr = IP2;
	u.sport = 5000;
	u.dport = 6000;
	CHECK_EQ(frame_in(&r, 2, f, pb_udp(f, sizeof f, &u, "x", 1), 3000), NET_RX_UDP);
	CHECK_EQ(r.pipe->net.udp.in_datagrams, 1);
	CHECK_EQ(r.pipe->net.udp.drop_udp_port, 0);
	CHECK_EQ(r.pipe->st.udp_other_port, 0);
	CHECK_EQ(r.src[2].n, 1);

	/* a source without a transmit side (a mirror port's): nothing leaves, the attempt is counted */
	r.src[3].base.tx_on = 0;
	frame_in(&r, 3, f, arp_req(f, sizeof f, PEER3, IP3, 0), 4000);
	CHECK_EQ(r.src[3].n, 0);
	CHECK_EQ(r.resp[3]->st.tx_fail, 1);
	CHECK_EQ(r.src[3].base.tx_refused, 1);
	dp_resp_flush(r.resp[3]);
	CHECK_EQ(r.src[3].flushes, 0);
	rig_down(&r);
}

/* A port without mac takes its interface's; one that cannot be read is a clear error. */
static void test_no_mac(void)
{
	struct rig r;
	char err[256] = "";
	memset(&r, 0, sizeof r);
	r.cfg = malloc(sizeof *r.cfg);
	int rc = load(&r, "[port.2]\ninterface = toe-nosuch9\nrole = udp\nip = 10.2.0.2\nnetmask = 24\n");
	CHECK_EQ(rc, 0);
	if (rc) {
		free(r.cfg);
		return;
	}
	rx_cfg_default(&r.rc);
	CHECK_EQ(dp_setup_rx(r.cfg, &r.rc, NULL, err, sizeof err), 0);
	struct dp_resp *rs = calloc(1, sizeof *rs);
	CHECK_EQ(dp_resp_init(rs, r.cfg, 2, &r.rc.net_port[1], err, sizeof err), -1);
	CHECK(strstr(err, "[port.2] has no mac") && strstr(err, "toe-nosuch9"));
	free(rs);
	free(r.cfg);
}

int main(void)
{
	if (test_sse_templates(g_tpl, sizeof g_tpl) < 0)
		return test_skip("dp_resp", "run from the repository root (conf/templates needed)");
	test_arp();
	test_icmp_udp();
	test_no_mac();
	return test_done("dp_resp");
}
