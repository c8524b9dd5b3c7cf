/* test_xrt_program.c - the card backend programs the card as toe_regmap.h says (fake device).
 *
 * Checked against the fake card's register write log and what its kernels
 * decoded from their registers:
 *   - every write of toe_hw_cfg_writes() for the configuration, in order,
 *     before any APPLY; a few words worked out by hand from toe_regmap.h;
 *   - the four ring addresses are buffers in the banks the xclbin's
 *     CONNECTIVITY gives (4..7 here, not 0..3), low word then high;
 *   - the template memory holds the compiled program byte for byte, and
 *     fast_top decodes it back to the same struct;
 *   - kernels held upstream first, then APPLY downstream first, with one
 *     generation; each kernel reports OK; the decoded configuration equals
 *     the one given, field by field;
 *   - the CMAC: RS-FEC and receive enabled, transmit enabled once the link is
 *     up; link timeout as warning or (REQUIRE_LINK) error;
 *   - configurations beyond the card refused before the card is touched;
 *   - counters: names from the register map, values after traffic;
 *   - close holds every kernel, frees the buffers, closes the card.
 */
#include "test_xrt_common.h"
#include "conf/config.h"
#include "dp/dp_setup.h"

static int nlog;
static void count_log(void *arg, int prio, const char *msg)
{
	(void)arg;
	(void)prio;
	nlog++;
	snprintf(tx_last_log, sizeof tx_last_log, "%s", msg);
}

static int find_write(const struct toe_fake_write *w, uint32_t n, uint32_t from, uint32_t kid, uint32_t off)
{
	uint32_t i;
	for (i = from; i < n; i++)
		if (w[i].kid == kid && w[i].off == off)
			return (int)i;
	return -1;
}

static void check_rx_cfg(const struct rx_cfg *a, const struct rx_cfg *b)
{
	uint32_t i;
	CHECK_EQ(a->net.naddr, b->net.naddr);
	CHECK_EQ(a->net.flags, b->net.flags);
	CHECK_EQ(a->net.mtu, b->net.mtu);
	for (i = 0; i < b->net.naddr && i < NET_MAX_ADDRS; i++) {
		CHECK_EQ(a->net.addr[i].ip, b->net.addr[i].ip);
		CHECK_EQ(a->net.addr[i].mask, b->net.addr[i].mask);
		CHECK_MEM(a->net.addr[i].mac, b->net.addr[i].mac, 6);
		CHECK_EQ(a->net.addr[i].vlan, b->net.addr[i].vlan);
	}
	CHECK_EQ(a->mtoe.max_conns, b->mtoe.max_conns);
	CHECK_EQ(a->mtoe.window, b->mtoe.window);
	CHECK_EQ(a->mtoe.max_ranges, b->mtoe.max_ranges);
	CHECK_EQ(a->mtoe.nflows, b->mtoe.nflows);
	CHECK_EQ(a->mtoe.gap_timeout_ns, b->mtoe.gap_timeout_ns);
	CHECK_EQ(a->mtoe.idle_timeout_ns, b->mtoe.idle_timeout_ns);
	CHECK_EQ(a->mtoe.linger_ns, b->mtoe.linger_ns);
	for (i = 0; i < b->mtoe.nflows && i < MTOE_MAX_FLOWS; i++) {
		CHECK_EQ(a->mtoe.flows[i].ex_addr, b->mtoe.flows[i].ex_addr);
		CHECK_EQ(a->mtoe.flows[i].ex_port, b->mtoe.flows[i].ex_port);
		CHECK_EQ(a->mtoe.flows[i].peer_addr, b->mtoe.flows[i].peer_addr);
		CHECK_EQ(a->mtoe.flows[i].peer_port, b->mtoe.flows[i].peer_port);
	}
	CHECK_EQ(a->nudp, b->nudp);
	for (i = 0; i < b->nudp && i < RX_MAX_UDP; i++) {
		CHECK_EQ(a->udp[i].port, b->udp[i].port);
		CHECK_EQ(a->udp[i].framing, b->udp[i].framing);
	}
}

static void test_programming(const char *xclbin, const struct tx_xclbin *xd)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct toe_hw_wr *want = calloc(TOE_HW_CFG_MAX_WRITES, sizeof *want);
	struct toe_fake_cfg fc = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be = NULL;
	const struct toe_fake_write *w;
	const char *ferrs;
	char err[1024];
	uint32_t n, i, k, ch, gen, first_apply, nprog = 0;
	int nw, pos;
	uint32_t applies[5], napplies = 0;

	tx_cfg(&cfg);
	cfg.mtoe.gap_timeout_ns = 0x123456789ull; /* a high word that is not 0 */
	cfg.mtoe.flows[1].peer_addr = TX_OUR_IP;
	cfg.mtoe.flows[1].peer_port = 40001;
	tx_params(&p, xclbin, &cfg, 256);
	p.hw.role = TOE_ROLE_MAIN;
	fc.link_after_reads = 0;
	fc.check_banks = 1;
	for (ch = 0; ch < 4; ch++)
		fc.hbm_bank[ch] = xd->hbm_bank[ch];
	f = toe_fake_new(&fc);
	CHECK(f != NULL);
	p.log = count_log;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
	if (!be) {
		fprintf(stderr, "open: %s\n", err);
		toe_fake_free(f);
		free(want);
		return;
	}
	CHECK(nlog > 0); /* the summary line */
	CHECK(strstr(tx_last_log, "HBM[4] HBM[5] HBM[6] HBM[7]") != NULL);
	w = toe_fake_writes(f, &n);

	/* kernels held first, upstream first: eth_rx, mirror TOE, udp, fast, writer */
	{
		static const uint32_t hold[5] = { TOE_KID_ETH_RX, TOE_KID_MTOE, TOE_KID_UDP, TOE_KID_FAST, TOE_KID_HBM };
		CHECK(n > 5);
		for (k = 0; k < 5 && k < n; k++) {
			CHECK_EQ(w[k].kid, hold[k]);
			CHECK_EQ(w[k].off, TOE_CFG(TOE_CF_APPLY));
			CHECK_EQ(w[k].val, 0);
		}
	}
	/* the APPLY writes with a generation: one each, downstream first, all last among kernel writes */
	first_apply = n;
	for (i = 5; i < n; i++) {
		if (w[i].kid == TOE_FAKE_KID_CMAC || w[i].off != TOE_CFG(TOE_CF_APPLY))
			continue;
		if (napplies < 5)
			applies[napplies] = i;
		napplies++;
		if (i < first_apply)
			first_apply = i;
	}
	CHECK_EQ(napplies, 5);
	gen = napplies ? w[applies[0]].val : 0;
	CHECK(gen != 0);
	for (k = 0; k < 5 && k < napplies; k++) {
		CHECK_EQ(w[applies[k]].kid, toe_hw_apply_order[k]);
		CHECK_EQ(w[applies[k]].val, gen);
	}
	CHECK_EQ(toe_hw_apply_order[0], TOE_KID_HBM);
	CHECK_EQ(toe_hw_apply_order[4], TOE_KID_ETH_RX);

	/* every configuration write of toe_hw_cfg.h, in its order, before the first APPLY */
	{
		struct toe_hw_opts o = p.hw;
		nw = toe_hw_cfg_writes(&cfg, &o, want, TOE_HW_CFG_MAX_WRITES);
		CHECK(nw > 20);
		pos = 5;
		for (k = 0; nw > 0 && k < (uint32_t)nw; k++) {
			int at = find_write(w, first_apply, (uint32_t)pos, want[k].kid, want[k].off);
			CHECK(at >= 0);
			if (at < 0) {
				fprintf(stderr, "missing write %u: kernel %u offset 0x%x\n", k, want[k].kid, want[k].off);
				break;
			}
			CHECK_EQ(w[at].val, want[k].val);
			pos = at + 1;
		}
	}
	/* words worked out by hand from toe_regmap.h */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_ETH_RX, TOE_ETH_CF_ROLE), TOE_ROLE_MAIN);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_ETH_RX, TOE_ETH_CF_GATEWAY), 0x0a0100feu);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_ETH_RX, TOE_ETH_CF_MSS), 1408);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_ETH_RX, TOE_ETH_CF_NADDR), 1);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_ETH_RX, 16 + 0), TX_OUR_IP);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_ETH_RX, 16 + 1), 0xffffff00u);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_ETH_RX, 16 + 2), 0x0200u);     /* mac[0] << 8 | mac[1] */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_ETH_RX, 16 + 3), 0x00000002u); /* mac[2..5] */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_MTOE, 1), 8);                  /* connections */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_MTOE, 2), 32768);              /* window */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_MTOE, 4), 2);                  /* feed filters */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_MTOE, 5), 0x23456789u);        /* gap timeout low */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_MTOE, 6), 0x1u);               /* ... high */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_MTOE, 16 + 3 + 0), TX_EXB_IP);  /* flow 1 exchange */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_MTOE, 16 + 3 + 1), TX_OUR_IP);  /* flow 1 vendor */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_MTOE, 16 + 3 + 2), 9001u | 40001u << 16);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_UDP, 1), 2);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_UDP, 2), 8);                   /* first UDP stream id */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_UDP, 16), 5000u);               /* STEP framing 0 */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_UDP, 17), 5001u | 1u << 16);    /* DATAGRAM framing 1 */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_FAST, 3), 0x2u);                /* UDP stream 1 is DATAGRAM */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_HBM, 1), 256);                  /* slots */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_HBM, 2), 0);                    /* read index */

	/* ring addresses: low then high word, buffers in banks 4..7 (the fake puts bank b at 0x40_0000_0000 + b << 28) */
	for (ch = 0; ch < 4; ch++) {
		uint64_t a = toe_xrt_ring_addr(be, ch);
		int lo = find_write(w, first_apply, 0, TOE_KID_HBM, 0x40 + 0x10 * ch);
		int hi = find_write(w, first_apply, 0, TOE_KID_HBM, 0x44 + 0x10 * ch);
		CHECK(lo >= 0 && hi > lo);
		if (lo >= 0 && hi >= 0) {
			CHECK_EQ(w[lo].val, (uint32_t)a);
			CHECK_EQ(w[hi].val, (uint32_t)(a >> 32));
		}
		CHECK_EQ(toe_fake_hbm_addr(f, ch), a);
		CHECK_EQ((a - 0x4000000000ull) >> 28, xd->hbm_bank[ch]);
	}

	/* the template memory: word n = bytes 4n..4n+3 of the program, little-endian */
	{
		const uint8_t *b = (const uint8_t *)&tx_prog;
		uint32_t bad = 0;
		for (i = 0; i < first_apply; i++) {
			uint32_t nn, expect;
			if (w[i].kid != TOE_KID_FAST || w[i].off < 0x10000)
				continue;
			nn = (w[i].off - 0x10000) / 4;
			CHECK(nn < TOE_PROG_BYTES / 4);
			if (nn >= TOE_PROG_BYTES / 4)
				continue;
			expect = (uint32_t)b[4 * nn] | (uint32_t)b[4 * nn + 1] << 8 | (uint32_t)b[4 * nn + 2] << 16 |
				 (uint32_t)b[4 * nn + 3] << 24;
			bad += w[i].val != expect;
			nprog++;
		}
		CHECK_EQ(bad, 0);
		CHECK_EQ(nprog, 29456 / 4);
		CHECK_EQ(sizeof(struct fast_prog), 29456);
		CHECK_MEM(toe_fake_prog(f), &tx_prog, sizeof tx_prog);
	}

	/* the kernels run the configuration given */
	CHECK(toe_fake_rx_cfg(f) != NULL);
	if (toe_fake_rx_cfg(f))
		check_rx_cfg(toe_fake_rx_cfg(f), &cfg);
	CHECK_EQ(toe_fake_role(f), TOE_ROLE_MAIN);

	/* the CMAC: RS-FEC on, receive on, transmit after the link came up */
	{
		int fec = find_write(w, n, 0, TOE_FAKE_KID_CMAC, TOE_CMAC_RSFEC_ENABLE);
		int rx = find_write(w, n, 0, TOE_FAKE_KID_CMAC, TOE_CMAC_CONF_RX);
		int tx1 = find_write(w, n, 0, TOE_FAKE_KID_CMAC, TOE_CMAC_CONF_TX);
		int tx2 = tx1 >= 0 ? find_write(w, n, (uint32_t)tx1 + 1, TOE_FAKE_KID_CMAC, TOE_CMAC_CONF_TX) : -1;
		CHECK(fec >= 0 && rx >= 0 && tx1 >= 0);
		if (fec >= 0)
			CHECK_EQ(w[fec].val, 3);
		if (rx >= 0)
			CHECK_EQ(w[rx].val, 1);
		if (tx1 >= 0)
			CHECK_EQ(w[tx1].val, 0x10); /* remote fault indication until aligned */
		CHECK(tx2 < 0); /* link_timeout_ms 0: not waited for */
	}
	/* the first toe_xrt_link that sees the link up turns the transmitter on, once */
	toe_fake_clear_logs(f);
	CHECK_EQ(toe_xrt_link(be, NULL), 1);
	CHECK_EQ(toe_xrt_link(be, NULL), 1);
	w = toe_fake_writes(f, &n);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_EQ(w[0].kid, TOE_FAKE_KID_CMAC);
		CHECK_EQ(w[0].off, TOE_CMAC_CONF_TX);
		CHECK_EQ(w[0].val, 1);
	}
	CHECK_EQ(toe_fake_errors(f, &ferrs), 0);
	if (toe_fake_errors(f, &ferrs))
		fprintf(stderr, "fake: %s\n", ferrs);

	/* close: every kernel held, buffers freed, card closed */
	toe_fake_clear_logs(f);
	CHECK_EQ(toe_fake_live_bos(f), 4);
	toe_xrt_close(be);
	w = toe_fake_writes(f, &n);
	CHECK_EQ(n, 5);
	for (k = 0; k < n; k++) {
		CHECK_EQ(w[k].off, TOE_CFG(TOE_CF_APPLY));
		CHECK_EQ(w[k].val, 0);
	}
	CHECK_EQ(toe_fake_live_bos(f), 0);
	CHECK(!toe_fake_is_open(f));

	/* open again: a new generation, the same configuration */
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
	if (be) {
		CHECK(toe_fake_rx_cfg(f) != NULL);
		toe_xrt_close(be);
	}
	toe_fake_free(f);
	free(want);
}

static int ctr(const struct toe_xrt_counter *c, int n, const char *name, uint64_t *v)
{
	int i;
	for (i = 0; i < n; i++)
		if (!strcmp(c[i].name, name)) {
			*v = c[i].value;
			return 1;
		}
	fprintf(stderr, "no counter %s\n", name);
	return 0;
}

static void test_counters(const char *xclbin)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct toe_fake *f = toe_fake_new(NULL);
	struct toe_xrt *be = NULL;
	struct toe_xrt_counter *c = calloc(TOE_XRT_MAX_COUNTERS, sizeof *c);
	struct tx_frames l = { 0 };
	struct tx_recs got = { 0 };
	char err[1024];
	uint64_t v, frames = 0, octets = 0, ticks = 0;
	uint32_t i;
	int n;

	tx_cfg(&cfg);
	tx_params(&p, xclbin, &cfg, 1024);
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
	if (!be) {
		fprintf(stderr, "open: %s\n", err);
		toe_fake_free(f);
		free(c);
		return;
	}
	tx_traffic(&l, 200);
	for (i = 0; i < l.n; i++) {
		CHECK_EQ(tx_fake_step(f, be, &l, i), 0);
		if (l.len[i]) {
			frames++;
			octets += l.len[i];
		} else {
			ticks++;
		}
	}
	CHECK(tx_drain(be, &got, 500) > 0);
	n = toe_xrt_counters(be, c, TOE_XRT_MAX_COUNTERS);
	CHECK(n > 100);
	CHECK(n < TOE_XRT_MAX_COUNTERS);
	/* counted by the kernels, named as the register map names them */
	if (ctr(c, n, "cmac_0.rx_packets", &v))
		CHECK_EQ(v, frames);
	if (ctr(c, n, "cmac_0.link_up", &v))
		CHECK_EQ(v, 1);
	if (ctr(c, n, "eth_rx_top.frames", &v))
		CHECK_EQ(v, frames);
	if (ctr(c, n, "eth_rx_top.octets", &v))
		CHECK_EQ(v, octets);
	if (ctr(c, n, "eth_rx_top.polls", &v))
		CHECK_EQ(v, ticks); /* every clock write is a tick */
	if (ctr(c, n, "eth_rx_top.status", &v))
		CHECK_EQ(v, TOE_STATUS_OK);
	if (ctr(c, n, "mirror_toe_top.status", &v))
		CHECK_EQ(v, TOE_STATUS_OK);
	if (ctr(c, n, "mirror_toe_top.opens", &v))
		CHECK_EQ(v, 1);
	if (ctr(c, n, "mirror_toe_top.joins", &v))
		CHECK_EQ(v, 1);
	if (ctr(c, n, "mirror_toe_top.gaps", &v))
		CHECK_EQ(v, 1); /* the lost segment */
	if (ctr(c, n, "udp_top.delivered", &v))
		CHECK_EQ(v, 200 / 2 + 10); /* STEP datagrams (2 messages each) + raw ones */
	if (ctr(c, n, "udp_top.drop_udp_port", &v))
		CHECK_EQ(v, 1);
	if (ctr(c, n, "fast_top.err.step_garbage", &v))
		CHECK(v >= 1); /* the joined feed starts inside a message */
	if (getenv("TX_DUMP"))
		for (i = 0; i < (uint32_t)n; i++)
			fprintf(stderr, "%s = %llu\n", c[i].name, (unsigned long long)c[i].value);
	if (ctr(c, n, "hbm_writer_top.written", &v))
		CHECK_EQ(v, got.n);
	if (ctr(c, n, "hbm_writer_top.write_index", &v))
		CHECK_EQ(v, got.n);
	if (ctr(c, n, "hbm_writer_top.dropped", &v))
		CHECK_EQ(v, 0);
	if (ctr(c, n, "host.records", &v))
		CHECK_EQ(v, got.n);
	if (ctr(c, n, "host.read_index", &v))
		CHECK_EQ(v, got.n);
	if (ctr(c, n, "host.bad_records", &v))
		CHECK_EQ(v, 0);
	if (ctr(c, n, "eth_rx_top.eth.in_frames", &v))
		CHECK_EQ(v, frames);
	/* fast_top counts records as the software pipeline does */
	if (ctr(c, n, "fast_top.records", &v))
		CHECK(v > 0);
	toe_xrt_close(be);
	toe_fake_free(f);
	tx_frames_free(&l);
	free(got.r);
	free(c);
}

static void test_link(const char *xclbin)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct toe_fake_cfg fc = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be = NULL;
	const struct toe_fake_write *w;
	char err[1024];
	uint32_t n, i, tx_last = 0;

	tx_cfg(&cfg);
	tx_params(&p, xclbin, &cfg, 64);
	p.log = tx_log;

	/* the link comes up after a few reads: transmit enabled at the end */
	fc.link_after_reads = 5;
	f = toe_fake_new(&fc);
	p.link_timeout_ms = 5000;
	p.flags = TOE_XRT_F_REQUIRE_LINK | TOE_XRT_F_NO_RSFEC;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
	w = toe_fake_writes(f, &n);
	for (i = 0; i < n; i++) {
		CHECK(!(w[i].kid == TOE_FAKE_KID_CMAC && w[i].off == TOE_CMAC_RSFEC_ENABLE));
		if (w[i].kid == TOE_FAKE_KID_CMAC && w[i].off == TOE_CMAC_CONF_TX)
			tx_last = w[i].val;
	}
	CHECK_EQ(tx_last, 1);
	if (be)
		CHECK_EQ(toe_xrt_link(be, NULL), 1);
	toe_xrt_close(be);
	toe_fake_free(f);

	/* never: a warning by default */
	fc.link_after_reads = -1;
	f = toe_fake_new(&fc);
	p.link_timeout_ms = 30;
	p.flags = 0;
	tx_last_log[0] = 0;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
	CHECK(strstr(tx_last_log, "no link") != NULL);
	if (be)
		CHECK_EQ(toe_xrt_link(be, NULL), 0);
	toe_xrt_close(be);
	toe_fake_free(f);

	/* ... an error when required, and the card is left closed */
	f = toe_fake_new(&fc);
	p.flags = TOE_XRT_F_REQUIRE_LINK;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(be == NULL);
	CHECK(strstr(err, "no link") != NULL);
	CHECK(strstr(err, "after 30 ms") != NULL);
	CHECK(!toe_fake_is_open(f));
	CHECK_EQ(toe_fake_live_bos(f), 0);
	toe_fake_free(f);
}

/* Configurations the card cannot run: refused before the card is opened. */
static void test_capacity(const char *xclbin)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct toe_fake *f = toe_fake_new(NULL);
	struct toe_xrt *be = NULL;
	char err[1024];
	uint32_t n, i;

	tx_cfg(&cfg);
	cfg.nudp = 17;
	for (i = 0; i < cfg.nudp; i++) {
		cfg.udp[i].port = (uint16_t)(6000 + i);
		cfg.udp[i].framing = FAST_FRAMING_STEP;
	}
	tx_params(&p, xclbin, &cfg, 64);
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "17 UDP ports") != NULL);
	CHECK(strstr(err, "listens to 16") != NULL);

	tx_cfg(&cfg);
	cfg.mtoe.max_conns = 100;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "connections = 100") != NULL);

	tx_cfg(&cfg);
	cfg.mtoe.max_conns = 64;
	cfg.mtoe.window = 65536; /* 4 MB */
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "reassembly memory") != NULL);

	tx_cfg(&cfg);
	tx_params(&p, xclbin, &cfg, 100); /* not a power of two */
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "100 slots") != NULL);

	toe_fake_writes(f, &n);
	CHECK_EQ(n, 0);
	CHECK(!toe_fake_is_open(f));
	toe_fake_free(f);
}

/* Kernels that refuse what they are given: the status words, decoded. */
static void test_refusals(const char *xclbin)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct toe_fake_cfg fc = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be = NULL;
	struct fast_prog *bad = malloc(sizeof *bad);
	char err[1024];

	tx_cfg(&cfg);
	tx_params(&p, xclbin, &cfg, 64);
	memcpy(bad, &tx_prog, sizeof *bad);
	bad->magic ^= 1;
	p.prog = bad;
	f = toe_fake_new(NULL);
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "fast_top: template program refused: bad magic") != NULL);
	CHECK_EQ(toe_fake_live_bos(f), 0);
	toe_fake_free(f);

	memcpy(bad, &tx_prog, sizeof *bad);
	bad->version++;
	f = toe_fake_new(NULL);
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "program version") != NULL);
	toe_fake_free(f);

	/* a kernel that does not run never takes its configuration */
	p.prog = &tx_prog;
	fc.dead_kid = TOE_KID_MTOE;
	f = toe_fake_new(&fc);
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "mirror_toe_top did not take its configuration") != NULL);
	toe_fake_free(f);
	free(bad);
}

/* toed.conf -> parameters */
static void test_params(void)
{
	struct toed_config *c = calloc(1, sizeof *c);
	struct toe_xrt_params p;
	struct rx_cfg rx;
	toed_config_default(c);
	snprintf(c->device.pci, sizeof c->device.pci, "0000:3b:00.1");
	snprintf(c->device.xclbin, sizeof c->device.xclbin, "/usr/local/share/toed/toed.xclbin");
	c->port[0].role = TOED_ROLE_MIRROR;
	c->port[0].gateway = 0x0a0100feu;
	c->tcp.mss = 1344;
	c->fast.have_prog = 1;
	dp_setup_card(&p, c, &rx);
	CHECK(!strcmp(p.pci, "0000:3b:00.1"));
	CHECK(!strcmp(p.xclbin, "/usr/local/share/toed/toed.xclbin"));
	CHECK(p.rx == &rx);
	CHECK(p.prog == &c->fast.prog);
	CHECK_EQ(p.hw.role, TOE_ROLE_MIRROR);
	CHECK_EQ(p.hw.gateway, 0x0a0100feu);
	CHECK_EQ(p.hw.mss, 1344);
	CHECK_EQ(p.hw.ring_slots, TOE_XRT_DEFAULT_SLOTS);
	CHECK_EQ(p.link_timeout_ms, TOE_XRT_DEFAULT_LINK_MS);
	c->port[0].role = TOED_ROLE_TCP;
	c->fast.have_prog = 0;
	dp_setup_card(&p, c, &rx);
	CHECK_EQ(p.hw.role, TOE_ROLE_TCP); /* eth_rx_top sends TCP and ARP to gtoe_top (test_xrt_tcp) */
	CHECK(p.prog == NULL);
	c->port[0].role = TOED_ROLE_UDP;
	dp_setup_card(&p, c, &rx);
	CHECK_EQ(p.hw.role, TOE_ROLE_MAIN);
	CHECK_EQ(p.tcp, 0);
	free(c);
}

int main(void)
{
	struct tx_xclbin xd;
	char path[64];
	if (tx_load_prog() != 0)
		return test_skip("xrt_program", "cannot compile " TX_TEMPLATES);
	tx_xclbin_default(&xd);
	if (tx_xclbin_file(&xd, path) != 0)
		return test_skip("xrt_program", "cannot write a temporary xclbin in /tmp");
	test_programming(path, &xd);
	test_counters(path);
	test_link(path);
	test_capacity(path);
	test_refusals(path);
	test_params();
	unlink(path);
	return test_done("xrt_program");
}
