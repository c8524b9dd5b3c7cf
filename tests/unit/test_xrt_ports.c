/* test_xrt_ports.c - the card backend with four ports: the 4 x 10G xclbin's eth_rx_tops programmed per port,
 * frames of the same connection on two ports decoded as two streams; a port the loaded xclbin lacks refused.
 *
 * Runs against the fake card (tests/lib/card_fake.c) with xclbins generated from XRT's xclbin.h layout
 * (test_xrt_common.h): the 100G one (eth_rx_top_1 and cmac_0) and the 4 x 10G one (eth_rx_top_1..4, the
 * three port_mux_top instances, eth10g_0 in place of cmac_0).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_xrt_common.h"

static const uint8_t p1_mac[6] = { 0x02, 0, 0, 0, 1, 0x02 };
static const uint8_t p3_mac[6] = { 0x02, 0, 0, 0, 3, 0x02 };
#define P1_IP 0x0a010102u
#define P3_IP 0x0a030002u

/* Ports 0 (rx_cfg.net), 1 (mirror, the same flow as port 0: A/B), 3 (main, its own address); port 2 unused. */
static void four_port_cfg(struct rx_cfg *cfg, struct toe_xrt_params *p, const char *xclbin)
{
	tx_cfg(cfg);
	cfg->mtoe.flows[1] = cfg->mtoe.flows[0];
	cfg->mtoe.flows[1].in_port = 1;
	net_cfg_add(&cfg->net_port[0], P1_IP, 0xffffff00u, p1_mac, 0);
	net_cfg_add(&cfg->net_port[2], P3_IP, 0xffffff00u, p3_mac, 7);
	cfg->udp[1].in_port = 3;
	tx_params(p, xclbin, cfg, 256);
	p->ports = 1u << 1 | 1u << 3;
	p->port_role[1] = TOE_ROLE_MIRROR;
	p->port_role[3] = TOE_ROLE_MAIN;
}

/* The last value written to word w of kernel kid, or ~0 when never written. */
static uint32_t last_write(const struct toe_fake_write *w, uint32_t n, uint32_t kid, uint32_t word)
{
	uint32_t v = ~0u, i;
	for (i = 0; i < n; i++)
		if (w[i].kid == kid && w[i].off == TOE_CFG(word))
			v = w[i].val;
	return v;
}

static void test_layout(void)
{
	struct tx_xclbin d;
	static uint8_t buf[1 << 16];
	struct toe_xclbin *x = calloc(1, sizeof *x);
	char err[256];
	size_t n;
	CHECK(x != NULL);
	if (!x)
		return;
	tx_xclbin_default(&d);
	memset(buf, 0, sizeof buf);
	n = tx_xclbin_build(&d, buf, sizeof buf);
	CHECK_EQ(toe_xclbin_parse(buf, n, x, err, sizeof err), 0);
	CHECK_EQ(toe_xrt_layout_ports(x), 1);
	d.four_ports = 1;
	memset(buf, 0, sizeof buf);
	n = tx_xclbin_build(&d, buf, sizeof buf);
	CHECK_EQ(toe_xclbin_parse(buf, n, x, err, sizeof err), 0);
	CHECK_EQ(toe_xrt_layout_ports(x), 4);
	/* eth_rx_top_2..4 without a mux is not the layout: one port */
	d.omit = 101;
	memset(buf, 0, sizeof buf);
	n = tx_xclbin_build(&d, buf, sizeof buf);
	CHECK_EQ(toe_xclbin_parse(buf, n, x, err, sizeof err), 0);
	CHECK_EQ(toe_xrt_layout_ports(x), 1);
	d.omit = TOE_KID_ETH_RX;
	memset(buf, 0, sizeof buf);
	n = tx_xclbin_build(&d, buf, sizeof buf);
	CHECK_EQ(toe_xclbin_parse(buf, n, x, err, sizeof err), 0);
	CHECK_EQ(toe_xrt_layout_ports(x), 0);
	free(x);
}

/* The 100G xclbin: a configured port 1 is refused before the card is touched, saying what to do. */
static void test_refused(const char *xclbin100)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct toe_fake *f = toe_fake_new(NULL);
	struct toe_xrt *be = NULL;
	char err[1024];
	uint32_t n;
	four_port_cfg(&cfg, &p, xclbin100);
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(be == NULL);
	CHECK(strstr(err, "[port.1]: [device] xclbin") != NULL);
	CHECK(strstr(err, "has 1 network port (the 100G build, eth_rx_top_1 alone)") != NULL);
	CHECK(strstr(err, "LAYOUT=4x10g") != NULL);
	CHECK(!toe_fake_is_open(f));
	toe_fake_writes(f, &n);
	CHECK_EQ(n, 0);
	/* role tcp on port 1 cannot be programmed (gtoe_top serves port 0) */
	p.ports = 1u << 1;
	p.port_role[1] = TOE_ROLE_TCP;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "the card cannot run this configuration") != NULL);
	toe_fake_free(f);
	if (err[0])
		printf("refused: %s\n", err);
}

static void test_four_ports(const char *xclbin4)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct toe_fake_cfg fc;
	struct toe_fake *f;
	struct toe_xrt *be = NULL;
	const struct toe_fake_write *w;
	struct tx_frames a = { 0 }, b = { 0 };
	struct tx_recs got = { 0 };
	const struct rx_cfg *dec;
	char err[1024];
	uint32_t n, i, port, gen, napply[TOE_HW_MAX_PORTS] = { 0 };
	size_t fa_len, fb_len;
	uint8_t *fa, *fb;
	uint16_t sa = 0xffff, sb = 0xffff;
	uint32_t nreset = 0;

	memset(&fc, 0, sizeof fc);
	fc.link_after_reads = 0;
	f = toe_fake_new(&fc);
	four_port_cfg(&cfg, &p, xclbin4);
	p.link_timeout_ms = 100; /* no CMAC in this build: no wait, no failure */
	p.flags = TOE_XRT_F_REQUIRE_LINK;
	tx_last_log[0] = 0;
	p.log = tx_log;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
	if (!be) {
		fprintf(stderr, "open: %s\n", err);
		toe_fake_free(f);
		return;
	}
	CHECK(strstr(tx_last_log, "4 x 10G ports") != NULL);
	CHECK(strstr(tx_last_log, "eth10g_0") != NULL);

	/* each port's eth_rx_top got its own words: port, role, address, MAC, VLAN */
	w = toe_fake_writes(f, &n);
	gen = last_write(w, n, TOE_KID_HBM, TOE_CF_APPLY);
	CHECK(gen != 0 && gen != ~0u);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(1), TOE_ETH_CF_PORT), 1u | TOE_ETH_PORT_NO_TICK);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(1), TOE_ETH_CF_ROLE), TOE_ROLE_MIRROR);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(1), TOE_ETH_CF_NADDR), 1);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(1), TOE_ETH_CF_ADDR(0) + TOE_ETH_ADDR_IP), P1_IP);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(1), TOE_ETH_CF_ADDR(0) + TOE_ETH_ADDR_MAC_LO), 0x00000102u);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(3), TOE_ETH_CF_PORT), 3u | TOE_ETH_PORT_NO_TICK);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(3), TOE_ETH_CF_ROLE), TOE_ROLE_MAIN);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(3), TOE_ETH_CF_ADDR(0) + TOE_ETH_ADDR_IP), P3_IP);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(3), TOE_ETH_CF_ADDR(0) + TOE_ETH_ADDR_MAC_LO), 0x00000302u);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(3), TOE_ETH_CF_ADDR(0) + TOE_ETH_ADDR_VLAN), 7);
	/* port 2 is not configured: held, never given words; port 0 keeps its defaults (port 0, ticks) */
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(2), TOE_ETH_CF_PORT), ~0u);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(2), TOE_CF_APPLY), 0);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_RX, TOE_ETH_CF_PORT), ~0u);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_RX, TOE_ETH_CF_ADDR(0) + TOE_ETH_ADDR_IP), TX_OUR_IP);
	/* the mirror TOE's flow ports and the UDP entries' ports */
	CHECK_EQ(last_write(w, n, TOE_KID_MTOE, TOE_MTOE_CF_FLOW_PORT(0)), 0x0100u);
	CHECK_EQ(last_write(w, n, TOE_KID_UDP, TOE_UDP_CF_PORT(1)) >> 24, 3);
	/* held first (the ports too), applied after the five receive kernels: upstream last */
	for (i = 0; i < n; i++) {
		port = w[i].kid == (uint32_t)TOE_KID_ETH_PORT(1) ? 1 : w[i].kid == (uint32_t)TOE_KID_ETH_PORT(3) ? 3 : 0;
		if (port && w[i].off == TOE_CFG(TOE_CF_APPLY) && w[i].val == gen) {
			napply[port]++;
			CHECK(i > 0 && w[i - 1].off == TOE_CFG(TOE_CF_APPLY));
		}
	}
	CHECK_EQ(napply[1], 1);
	CHECK_EQ(napply[3], 1);
	for (i = 0; i < n; i++)
		if (w[i].kid == TOE_FAKE_KID_CMAC)
			break;
	CHECK_EQ(i, n); /* no cmac_0 in this build: never written */
	/* the fake decoded the same per-port configuration */
	dec = toe_fake_rx_cfg(f);
	CHECK(dec != NULL);
	if (dec) {
		CHECK_EQ(dec->net_port[0].addr[0].ip, P1_IP);
		CHECK_EQ(dec->net_port[2].addr[0].ip, P3_IP);
		CHECK_EQ(dec->mtoe.flows[1].in_port, 1);
		CHECK_EQ(dec->udp[1].in_port, 3);
	}

	/* the clock reaches every configured port */
	toe_fake_clear_logs(f);
	CHECK_EQ(toe_xrt_set_time(be, 1000000000ull), 0);
	w = toe_fake_writes(f, &n);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(1), TOE_ETH_CF_TIME_LO), 1000000000u);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(3), TOE_ETH_CF_TIME_SEQ), last_write(w, n, TOE_KID_ETH_RX,
											   TOE_ETH_CF_TIME_SEQ));
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(2), TOE_ETH_CF_TIME_SEQ), ~0u);

	/* the same 4-tuple on ports 0 and 1, other bytes: two connections, two streams */
	fa = tx_feed(31, 20, &fa_len, NULL, NULL, NULL);
	fb = tx_feed(32, 20, &fb_len, NULL, NULL, NULL);
	tx_tcp(&a, TX_EXA_IP, TX_PORT_A, 1000, TCP_SYN, NULL, 0, 0);
	for (i = 0; i < fa_len; i += 1400)
		tx_tcp(&a, TX_EXA_IP, TX_PORT_A, 1001 + i, TCP_ACK | TCP_PSH, fa + i, fa_len - i < 1400 ? fa_len - i : 1400,
		       0);
	tx_tcp(&b, TX_EXA_IP, TX_PORT_A, 9000, TCP_SYN, NULL, 0, 0);
	for (i = 0; i < fb_len; i += 1400)
		tx_tcp(&b, TX_EXA_IP, TX_PORT_A, 9001 + i, TCP_ACK | TCP_PSH, fb + i, fb_len - i < 1400 ? fb_len - i : 1400,
		       0);
	for (i = 0; i < a.n || i < b.n; i++) {
		if (i < a.n)
			CHECK_EQ(toe_fake_frame_port(f, 0, a.buf[i], a.len[i], 0), 0);
		if (i < b.n)
			CHECK_EQ(toe_fake_frame_port(f, 1, b.buf[i], b.len[i], 0), 0);
	}
	CHECK_EQ(toe_fake_frame_port(f, 2, a.buf[1], a.len[1], 0), 0); /* port 2 not programmed: held */
	CHECK_EQ(toe_fake_frame_port(f, 4, a.buf[1], a.len[1], 0), -EINVAL);
	toe_fake_run(f, 100);
	CHECK(tx_drain(be, &got, 64) > 0);
	for (i = 0; i < got.n; i++) {
		const union toe_record *r = &got.r[i];
		if (r->hdr.type == TOE_REC_RESET) {
			if (nreset == 0)
				sa = r->hdr.stream;
			else
				sb = r->hdr.stream;
			nreset++;
		}
	}
	CHECK_EQ(nreset, 2);
	CHECK(sa != sb);
	{
		/* both feeds whole: as many records per stream as the generator made (20 messages each) */
		uint32_t na = 0, nb = 0;
		for (i = 0; i < got.n; i++) {
			if (got.r[i].hdr.type != TOE_REC_TRADE && got.r[i].hdr.type != TOE_REC_ORDER)
				continue;
			na += got.r[i].hdr.stream == sa;
			nb += got.r[i].hdr.stream == sb;
		}
		CHECK(na > 0 && nb > 0);
	}
	/* counters name each port's eth_rx_top by its compute unit */
	{
		struct toe_xrt_counter *c = calloc(TOE_XRT_MAX_COUNTERS, sizeof *c);
		int k, nc;
		uint64_t f1 = ~0ull, f3 = ~0ull, st1 = ~0ull;
		nc = c ? toe_xrt_counters(be, c, TOE_XRT_MAX_COUNTERS) : -1;
		CHECK(nc > 0 && nc < TOE_XRT_MAX_COUNTERS);
		for (k = 0; k < nc; k++) {
			if (!strcmp(c[k].name, "eth_rx_top_2.frames"))
				f1 = c[k].value;
			if (!strcmp(c[k].name, "eth_rx_top_4.frames"))
				f3 = c[k].value;
			if (!strcmp(c[k].name, "eth_rx_top_2.status"))
				st1 = c[k].value;
			CHECK(strncmp(c[k].name, "cmac_0.", 7) != 0);
			CHECK(strncmp(c[k].name, "eth_rx_top_3.", 13) != 0);
		}
		CHECK_EQ(f1, b.n);
		CHECK_EQ(f3, 0);
		CHECK_EQ(st1, TOE_STATUS_OK);
		free(c);
	}
	toe_xrt_close(be);
	/* closing holds every port */
	w = toe_fake_writes(f, &n);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(1), TOE_CF_APPLY), 0);
	CHECK_EQ(last_write(w, n, TOE_KID_ETH_PORT(3), TOE_CF_APPLY), 0);
	CHECK_EQ(toe_fake_live_bos(f), 0);
	free(fa);
	free(fb);
	free(got.r);
	tx_frames_free(&a);
	tx_frames_free(&b);
	toe_fake_free(f);
}

int main(void)
{
	struct tx_xclbin xd;
	char p100[64], p4[64];
	if (tx_load_prog() != 0)
		return test_skip("xrt_ports", "cannot compile " TX_TEMPLATES);
	tx_xclbin_default(&xd);
	if (tx_xclbin_file(&xd, p100) != 0)
		return test_skip("xrt_ports", "cannot write a temporary xclbin in /tmp");
	xd.four_ports = 1;
	if (tx_xclbin_file(&xd, p4) != 0) {
		unlink(p100);
		return test_skip("xrt_ports", "cannot write a temporary xclbin in /tmp");
	}
	test_layout();
	test_refused(p100);
	test_four_ports(p4);
	unlink(p100);
	unlink(p4);
	return test_done("xrt_ports");
}
