/* test_xrt_tcp.c - the card backend with role = tcp on the fake card: gtoe_top's connection table, the TX mailbox, the state readout.
 *
 * What the daemon writes and reads through the register map (toe_regmap.h);
 * the general TOE's TCP itself is the C-simulation's (test_hw_csim.sh):
 *   - toed.conf -> parameters: the connection table from the same list the
 *     software backend connects (dp_setup_tcp_conns; open = accept feeds as
 *     ACCEPT entries), the general TOE's settings (dp_setup_gtoe), each
 *     entry's MSS and window (its feed's, [tcp]'s when the feed sets none;
 *     the kernel-wide MSS and buffer the largest), ROLE_TCP;
 *   - bring-up: gtoe_top's and tx_arb_top's compute units required, gtoe_top's
 *     words (eth_rx_top's, the TOE's, every entry) written before the APPLYs,
 *     gtoe_top applied before eth_rx_top, both OK, eth_rx_top's role TCP;
 *   - the TX mailbox: a STEP Logon (built by the session layer) for an entry
 *     that is not up is refused and counted; for one that is up its words,
 *     TX_CONN, TX_LEN and TX_SEQ last, the bytes the card took equal the
 *     Logon; a long message in 512-byte pieces; a full send buffer; a mailbox
 *     that never answers is an error naming it;
 *   - the per-connection state window read back field by field; an entry
 *     disabled and enabled; counters of gtoe_top and tx_arb_top; closing
 *     clears every entry before holding the kernels;
 *   - refusals: an xclbin without gtoe_top, buffers beyond the card's, an
 *     entry's MSS or window beyond the TOE's, two ACCEPT entries on one port.
 */
#include "test_xrt_common.h"

#include "dp/dp_setup.h"
#include "step/step_sess.h"

#define EX_IP TX_TCP_EX_IP

/* A role = tcp configuration on port 0: two connect feeds, one accept feed. */
static struct toed_config *tcp_config(uint32_t connections, uint32_t window)
{
	static const char *const names[3] = { "a", "b", "acc" };
	struct toed_config *c = tx_tcp_config(3, names, connections, window);
	if (!c)
		return NULL;
	c->port[0].gateway = 0x0a0100feu;
	c->feed[0].vendor.port = 40001;
	c->feed[2].vendor.port = 7000;
	c->feed[2].open = TOED_OPEN_ACCEPT;
	return c;
}

static int find_write(const struct toe_fake_write *w, uint32_t n, uint32_t from, uint32_t kid, uint32_t off)
{
	for (uint32_t i = from; i < n; i++)
		if (w[i].kid == kid && w[i].off == off)
			return (int)i;
	return -1;
}

static int last_write(const struct toe_fake_write *w, uint32_t n, uint32_t kid, uint32_t off)
{
	int k = -1;
	for (uint32_t i = 0; i < n; i++)
		if (w[i].kid == kid && w[i].off == off)
			k = (int)i;
	return k;
}

/* toed.conf -> the card's parameters, and the list the software backend connects. */
static void test_params(void)
{
	struct toed_config *c = tcp_config(64, 32768);
	struct toe_xrt_params p;
	struct dp_setup_tcpconn tc[TOED_MAX_FEEDS];
	struct rx_cfg rx;
	char err[256];
	uint16_t flow_feed[TOED_MAX_FEEDS];

	rx_cfg_default(&rx);
	CHECK_EQ(dp_setup_rx(c, &rx, flow_feed, err, sizeof err), 0);
	CHECK_EQ(dp_setup_tcp_conns(c, tc, err, sizeof err), 3);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK_EQ(tc[i].feed, i);
		CHECK_EQ(tc[i].stream, i); /* the mirror flow's index: the records' stream */
		CHECK_EQ(tc[i].raddr, EX_IP + i);
		CHECK_EQ(tc[i].rport, 5261 + i);
		CHECK_EQ(tc[i].accept, i == 2);
		CHECK_EQ(tc[i].mss, 1408); /* no feed sets its own: [tcp] mss and window for each */
		CHECK_EQ(tc[i].window, 32768);
	}
	CHECK_EQ(tc[0].lport, 40001);
	CHECK_EQ(tc[1].lport, 0);

	dp_setup_card(&p, c, &rx);
	CHECK_EQ(p.tcp, 1);
	CHECK_EQ(p.hw.role, TOE_ROLE_TCP);
	CHECK_EQ(p.hw.mss, 1408);
	CHECK_EQ(p.ngconn, 3);
	CHECK_EQ(p.gconn[0].raddr, EX_IP);
	CHECK_EQ(p.gconn[0].rport, 5261);
	CHECK_EQ(p.gconn[0].lport, 40001);
	CHECK_EQ(p.gconn[0].stream, 0);
	CHECK_EQ(p.gconn[0].enable, 1);
	CHECK_EQ(p.gconn[1].raddr, EX_IP + 1);
	CHECK_EQ(p.gconn[1].lport, 0);
	CHECK_EQ(p.gconn[1].stream, 1);
	CHECK_EQ(p.gconn[1].accept, 0);
	CHECK_EQ(p.gconn[2].raddr, EX_IP + 2); /* open = accept: taken from this address */
	CHECK_EQ(p.gconn[2].rport, 5263);
	CHECK_EQ(p.gconn[2].lport, 7000); /* and listened for on this port */
	CHECK_EQ(p.gconn[2].stream, 2);
	CHECK_EQ(p.gconn[2].enable, 1);
	CHECK_EQ(p.gconn[2].accept, 1);
	for (uint32_t i = 0; i < 3; i++) { /* no feed sets its own: [tcp] mss and window for each */
		CHECK_EQ(p.gconn[i].mss, 1408);
		CHECK_EQ(p.gconn[i].window, 32768);
	}
	CHECK_EQ(p.gconn_feed[0], 0);
	CHECK_EQ(p.gconn_feed[1], 1);
	CHECK_EQ(p.gconn_feed[2], 2);
	/* the settings the software backend gives gtoe_init */
	CHECK_EQ(p.gtoe.max_conns, 64);
	CHECK_EQ(p.gtoe.rcv_buf, 32768);
	CHECK_EQ(p.gtoe.snd_buf, DP_SETUP_TCP_SND_BUF);
	CHECK_EQ(p.gtoe.mss, 1408);
	CHECK_EQ(p.gtoe.quickack, 1);

	/* more feeds than [tcp] connections: refused by both backends' mapping */
	c->tcp.connections = 2;
	CHECK_EQ(dp_setup_tcp_conns(c, tc, err, sizeof err), -1);
	CHECK(strstr(err, "3 tcp feeds on a tcp port: [tcp] connections = 2 is too few") != NULL);
	dp_setup_card(&p, c, &rx);
	CHECK(p.ngconn > TOE_HW_GTOE_CONNS);
	free(c);
}

static uint32_t g_mss; /* open_tcp: an MSS other than the configuration's (0: none) */

struct opened {
	struct toed_config *c;
	struct rx_cfg rx;
	struct toe_xrt_params p;
	struct toe_fake *f;
	struct toe_xrt *be;
};

static int open_tcp(struct opened *o, const char *xclbin, uint32_t connections, uint32_t window, char *err,
		    size_t errlen)
{
	uint16_t flow_feed[TOED_MAX_FEEDS];
	memset(o, 0, sizeof *o);
	o->c = tcp_config(connections, window);
	rx_cfg_default(&o->rx);
	CHECK_EQ(dp_setup_rx(o->c, &o->rx, flow_feed, err, errlen), 0);
	dp_setup_card(&o->p, o->c, &o->rx);
	o->p.xclbin = xclbin;
	o->p.hw.ring_slots = 64;
	o->p.link_timeout_ms = 0;
	if (g_mss) { /* what the configuration check would refuse: the kernel's own judgement */
		o->p.hw.mss = o->p.gtoe.mss = (uint16_t)g_mss;
		for (uint32_t i = 0; i < o->p.ngconn; i++)
			o->p.gconn[i].mss = 0; /* the kernel-wide one */
	}
	o->f = toe_fake_new(NULL);
	return toe_xrt_open(&o->be, &toe_devops_fake, o->f, &o->p, err, errlen);
}

static void close_tcp(struct opened *o)
{
	toe_xrt_close(o->be);
	toe_fake_free(o->f);
	free(o->c);
}

/* Bring-up: what is written to gtoe_top and in which order. */
static void test_program(const char *xclbin)
{
	struct opened o;
	char err[768];
	const struct toe_fake_write *w;
	uint32_t n, i;
	CHECK_EQ(open_tcp(&o, xclbin, 64, 32768, err, sizeof err), 0);
	if (!o.be) {
		fprintf(stderr, "open: %s\n", err);
		close_tcp(&o);
		return;
	}
	w = toe_fake_writes(o.f, &n);
	CHECK_EQ(toe_fake_gtoe_status(o.f), TOE_STATUS_OK);
	CHECK_EQ(toe_fake_role(o.f), TOE_ROLE_TCP); /* eth_rx_top: TCP and ARP to gtoe_top */
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_ETH_RX, TOE_ETH_CF_ROLE), TOE_ROLE_TCP);
	/* gtoe_top takes eth_rx_top's words (its transmit path needs our MAC, subnet, gateway, MSS) */
	for (uint32_t k = TOE_ETH_CF_FLAGS; k < 48; k++)
		CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, k), toe_fake_cfg_word(o.f, TOE_KID_ETH_RX, k) *
								    (k < TOE_ETH_CF_TIME_LO || k > TOE_ETH_CF_TIME_SEQ));
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_ETH_CF_GATEWAY), 0x0a0100feu);
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_ETH_CF_MSS), 1408);
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_NCONNS), 3);
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_MAX_CONNS), 64);
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_RCV_BUF), 32768);
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_SND_BUF), DP_SETUP_TCP_SND_BUF);
	/* quick ACK (the daemon's choice), and the options gtoe offers by default, as in software */
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_OPTS),
		 TOE_GTOE_OPT_QUICKACK | TOE_GTOE_OPT_WS | TOE_GTOE_OPT_SACK | TOE_GTOE_OPT_TS);
	CHECK(o.p.gtoe.quickack && o.p.gtoe.opt_ws && o.p.gtoe.opt_sack && o.p.gtoe.opt_ts);
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_SYN_RETRIES), 4);
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_ISN_KEY), o.p.gtoe.isn_key);
	/* the connection table */
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 0, TOE_GTOE_CE_RADDR), EX_IP);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 0, TOE_GTOE_CE_PORTS), 5261u | 40001u << 16);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 0, TOE_GTOE_CE_STREAM), 0);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 0, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ENABLE);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 1, TOE_GTOE_CE_RADDR), EX_IP + 1);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 1, TOE_GTOE_CE_PORTS), 5262u);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 1, TOE_GTOE_CE_STREAM), 1);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 1, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ENABLE);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 2, TOE_GTOE_CE_RADDR), EX_IP + 2);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 2, TOE_GTOE_CE_PORTS), 5263u | 7000u << 16);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 2, TOE_GTOE_CE_STREAM), 2);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 2, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ENABLE | TOE_GTOE_CTRL_ACCEPT);
	for (i = 0; i < 3; i++) { /* each entry's limits, at their own offsets */
		int m = find_write(w, n, 0, TOE_KID_GTOE, TOE_GTOE_CONNX(i, TOE_GTOE_CX_MSS));
		int win = find_write(w, n, 0, TOE_KID_GTOE, TOE_GTOE_CONNX(i, TOE_GTOE_CX_WINDOW));
		CHECK(m >= 0 && w[m].val == 1408);
		CHECK(win >= 0 && w[win].val == 32768);
		CHECK_EQ(toe_fake_gtoe_conn_word(o.f, i, 4 + TOE_GTOE_CX_MSS), 1408);
		CHECK_EQ(toe_fake_gtoe_conn_word(o.f, i, 4 + TOE_GTOE_CX_WINDOW), 32768);
	}
	CHECK_EQ(TOE_GTOE_CONNX(0, 0), TOE_GTOE_CONN(63, 3) + 4); /* after the 64 entries */
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 3, TOE_GTOE_CE_RADDR), 0); /* nothing beyond the entries */
	CHECK_EQ(find_write(w, n, 0, TOE_KID_GTOE, TOE_GTOE_CONN(3, TOE_GTOE_CE_RADDR)), -1);
	CHECK_EQ(find_write(w, n, 0, TOE_KID_GTOE, TOE_GTOE_CONNX(3, TOE_GTOE_CX_MSS)), -1);
	/* held first; every word before its APPLY; applied after the mirror TOE, before eth_rx_top */
	{
		int hold = find_write(w, n, 0, TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY));
		int apply = last_write(w, n, TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY));
		int mt = last_write(w, n, TOE_KID_MTOE, TOE_CFG(TOE_CF_APPLY));
		int eth = last_write(w, n, TOE_KID_ETH_RX, TOE_CFG(TOE_CF_APPLY));
		int ctrl = last_write(w, n, TOE_KID_GTOE, TOE_GTOE_CONN(1, TOE_GTOE_CE_CTRL));
		CHECK(hold >= 0 && w[hold].val == 0);
		CHECK(apply > hold && w[apply].val != 0);
		CHECK(ctrl > hold && ctrl < apply);
		CHECK(mt < apply && apply < eth);
		CHECK_EQ(find_write(w, n, 0, TOE_KID_TXARB, TOE_CFG(TOE_CF_APPLY)), -1); /* no configuration */
	}
	for (i = 0; i < n; i++)
		CHECK(w[i].kid != TOE_KID_GTOE || w[i].off != TOE_CFG(TOE_GTOE_CF_TX_SEQ)); /* no message yet */
	CHECK_EQ(toe_xrt_tcp_entries(o.be), 3);
	CHECK_EQ(toe_fake_errors(o.f, NULL), 0);

	/* closing: every entry cleared (FIN at the next tick), then the kernels held */
	toe_fake_clear_logs(o.f);
	toe_xrt_close(o.be);
	o.be = NULL;
	w = toe_fake_writes(o.f, &n);
	{
		int c0 = find_write(w, n, 0, TOE_KID_GTOE, TOE_GTOE_CONN(0, TOE_GTOE_CE_CTRL));
		int c1 = find_write(w, n, 0, TOE_KID_GTOE, TOE_GTOE_CONN(1, TOE_GTOE_CE_CTRL));
		int c2 = find_write(w, n, 0, TOE_KID_GTOE, TOE_GTOE_CONN(2, TOE_GTOE_CE_CTRL));
		int tick = find_write(w, n, 0, TOE_KID_ETH_RX, TOE_CFG(TOE_ETH_CF_TIME_SEQ));
		int hold = find_write(w, n, 0, TOE_KID_GTOE, TOE_CFG(TOE_CF_APPLY));
		CHECK(c0 >= 0 && w[c0].val == 0);
		CHECK(c1 >= 0 && w[c1].val == 0);
		CHECK(c2 >= 0 && w[c2].val == TOE_GTOE_CTRL_ACCEPT); /* disabled: closed, listener withdrawn */
		CHECK(tick > c2);
		CHECK(hold > tick && w[hold].val == 0);
	}
	close_tcp(&o);
}

/* A Logon as the session layer builds it. */
static uint32_t logon(uint8_t *out, uint32_t cap)
{
	struct step_sess *s = calloc(1, sizeof *s);
	struct step_sess_cfg sc;
	uint32_t n = 0;
	memset(&sc, 0, sizeof sc);
	sc.role = STEP_SESS_CLIENT;
	snprintf(sc.sender, sizeof sc.sender, "VENDOR01");
	snprintf(sc.target, sizeof sc.target, "SSE");
	snprintf(sc.username, sizeof sc.username, "v1");
	snprintf(sc.password, sizeof sc.password, "s3cret");
	sc.heartbeat_s = 10;
	step_sess_init(s, &sc);
	if (step_sess_connected(s, 1000) & STEP_SESS_SEND) {
		n = s->out_len < cap ? s->out_len : cap;
		memcpy(out, s->out, n);
	}
	free(s);
	return n;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_mailbox(const char *xclbin)
{
	uint64_t t0;
	struct opened o;
	char err[768];
	uint8_t msg[1200];
	const struct toe_fake_write *w;
	const uint8_t *sent;
	uint32_t n, len, got, k;
	int r;
	CHECK_EQ(open_tcp(&o, xclbin, 64, 32768, err, sizeof err), 0);
	if (!o.be) {
		close_tcp(&o);
		return;
	}
	len = logon(msg, sizeof msg);
	CHECK(len > 40 && len < TOE_GTOE_TX_BYTES);
	CHECK(memmem(msg, len, "35=A\001", 5) != NULL && memmem(msg, len, "49=VENDOR01\001", 12) != NULL);

	/* entry 0 not connected yet (phase 0): refused, counted, nothing kept */
	r = toe_xrt_tcp_send(o.be, 0, msg, len);
	CHECK_EQ(r, TOE_XRT_TX_DOWN);
	CHECK_EQ(toe_xrt_host_stats(o.be)->tx_down, 1);
	CHECK(toe_fake_gtoe_sent(o.f, 0, &got) == NULL && got == 0);

	/* up: the Logon through the mailbox */
	toe_fake_gtoe_set_cst(o.f, 0, TOE_GTOE_CS_PHASE, 3);
	toe_fake_clear_logs(o.f);
	r = toe_xrt_tcp_send(o.be, 0, msg, len);
	CHECK_EQ(r, (int)len);
	sent = toe_fake_gtoe_sent(o.f, 0, &got);
	CHECK_EQ(got, len);
	CHECK(sent && memcmp(sent, msg, len) == 0);
	w = toe_fake_writes(o.f, &n);
	CHECK_EQ(n, (len + 3) / 4 + 3); /* the data words, then TX_CONN, TX_LEN, TX_SEQ */
	for (k = 0; k < (len + 3) / 4 && k < n; k++) {
		uint32_t v = 0;
		for (uint32_t b = 0; b < 4 && 4 * k + b < len; b++)
			v |= (uint32_t)msg[4 * k + b] << (8 * b);
		CHECK_EQ(w[k].kid, TOE_KID_GTOE);
		CHECK_EQ(w[k].off, TOE_GTOE_REG_TXD + 4 * k);
		CHECK_EQ(w[k].val, v);
	}
	if (n >= 3) {
		CHECK_EQ(w[n - 3].off, TOE_CFG(TOE_GTOE_CF_TX_CONN));
		CHECK_EQ(w[n - 3].val, 0);
		CHECK_EQ(w[n - 2].off, TOE_CFG(TOE_GTOE_CF_TX_LEN));
		CHECK_EQ(w[n - 2].val, len);
		CHECK_EQ(w[n - 1].off, TOE_CFG(TOE_GTOE_CF_TX_SEQ));
		CHECK_EQ(w[n - 1].val, 2); /* the refused message was 1 */
	}

	/* a long message: 512-byte pieces, each a new TX_SEQ */
	for (k = 0; k < sizeof msg; k++)
		msg[k] = (uint8_t)(k * 7 + 1);
	toe_fake_gtoe_set_cst(o.f, 1, TOE_GTOE_CS_PHASE, 3);
	toe_fake_clear_logs(o.f);
	CHECK_EQ(toe_xrt_tcp_send(o.be, 1, msg, sizeof msg), (int)sizeof msg);
	sent = toe_fake_gtoe_sent(o.f, 1, &got);
	CHECK(got == sizeof msg && sent && memcmp(sent, msg, sizeof msg) == 0);
	w = toe_fake_writes(o.f, &n);
	{
		uint32_t seqs = 0, lens[4] = { 0 };
		for (k = 0; k < n; k++) {
			if (w[k].off == TOE_CFG(TOE_GTOE_CF_TX_LEN) && seqs < 4)
				lens[seqs] = w[k].val;
			if (w[k].off == TOE_CFG(TOE_GTOE_CF_TX_SEQ))
				seqs++;
		}
		CHECK_EQ(seqs, 3);
		CHECK(lens[0] == 512 && lens[1] == 512 && lens[2] == sizeof msg - 1024);
	}

	/* a send buffer with 100 bytes free takes 100 of a 300-byte message: all 300 accepted, the rest
	 * posted again by the backend (before anything else: the next send takes nothing) */
	toe_fake_gtoe_room(o.f, 1, 100);
	CHECK_EQ(toe_xrt_tcp_send(o.be, 1, msg, 300), 300);
	CHECK_EQ(toe_xrt_tcp_tx_busy(o.be), 2);
	t0 = mono_ns();
	CHECK_EQ(toe_xrt_tcp_send(o.be, 1, msg + 300, 50), 0); /* the rest posted again: nothing taken */
	CHECK_EQ(toe_xrt_host_stats(o.be)->tx_bytes, len + sizeof msg + 100);
	CHECK_EQ(toe_xrt_host_stats(o.be)->tx_partial, 2);
	/* a full buffer is asked again at most every ms, not at every turn */
	toe_fake_clear_logs(o.f);
	CHECK_EQ(toe_xrt_tcp_poll(o.be, t0), 0); /* (t0: no later than that post) */
	toe_fake_writes(o.f, &n);
	CHECK_EQ(n, 0);
	/* room again: the rest goes, then the next bytes, in order */
	toe_fake_gtoe_room(o.f, 1, 0xffffffffu);
	CHECK_EQ(toe_xrt_tcp_poll(o.be, mono_ns() + 2000000ull), 0); /* past the ms: posted, all taken */
	CHECK_EQ(toe_xrt_tcp_tx_busy(o.be), 0);
	CHECK_EQ(toe_xrt_tcp_send(o.be, 1, msg + 300, 50), 50);
	sent = toe_fake_gtoe_sent(o.f, 1, &got);
	CHECK(got == sizeof msg + 350 && sent && memcmp(sent + sizeof msg, msg, 350) == 0);
	CHECK_EQ(toe_xrt_host_stats(o.be)->tx_bytes, len + sizeof msg + 350);

	/* no such entry */
	CHECK_EQ(toe_xrt_tcp_send(o.be, 3, msg, 10), -1);
	CHECK(strstr(toe_xrt_error(o.be), "no connection table entry 3") != NULL);
	/* a mailbox that never answers is never waited for: the message is posted and accepted, the
	 * next send takes nothing and writes nothing, the poll reports it once past TOE_XRT_TX_MS */
	{
		uint64_t t = mono_ns();
		uint32_t before;
		toe_fake_gtoe_sent(o.f, 0, &before);
		toe_fake_gtoe_stall(o.f, 1);
		CHECK_EQ(toe_xrt_tcp_send(o.be, 0, (const uint8_t *)"0123456789", 10), 10);
		CHECK_EQ(toe_xrt_tcp_tx_busy(o.be), 1);
		toe_fake_clear_logs(o.f);
		for (k = 0; k < 100; k++)
			CHECK_EQ(toe_xrt_tcp_send(o.be, 0, (const uint8_t *)"abcdef", 6), 0);
		toe_fake_writes(o.f, &n);
		CHECK_EQ(n, 0); /* nothing posted over the outstanding message */
		CHECK_EQ(toe_xrt_tcp_poll(o.be, t + (TOE_XRT_TX_MS + 200) * 1000000ull), 1);
		CHECK(strstr(toe_xrt_error(o.be), "gtoe_top did not take TX mailbox message") != NULL);
		CHECK_EQ(toe_xrt_tcp_poll(o.be, t + (TOE_XRT_TX_MS + 300) * 1000000ull), 0); /* once */
		CHECK_EQ(toe_xrt_host_stats(o.be)->tx_late, 1);
		/* the kernel runs again: the message is taken, the next ones follow in order */
		toe_fake_gtoe_stall(o.f, 0);
		CHECK_EQ(toe_xrt_tcp_poll(o.be, t + (TOE_XRT_TX_MS + 400) * 1000000ull), 0);
		CHECK_EQ(toe_xrt_tcp_tx_busy(o.be), 0);
		CHECK_EQ(toe_xrt_tcp_send(o.be, 0, (const uint8_t *)"abcdef", 6), 6);
		sent = toe_fake_gtoe_sent(o.f, 0, &got);
		CHECK(got == before + 16 && sent && memcmp(sent + before, "0123456789abcdef", 16) == 0);
	}

	/* the counters: gtoe_top's and tx_arb_top's with their names, the host's mailbox figures */
	{
		struct toe_xrt_counter *ctr = calloc(TOE_XRT_MAX_COUNTERS, sizeof *ctr);
		int nc = toe_xrt_counters(o.be, ctr, TOE_XRT_MAX_COUNTERS);
		int seen = 0;
		CHECK(nc > 0);
		for (int i = 0; i < nc; i++) {
			if (!strcmp(ctr[i].name, "gtoe_top.status"))
				{
				seen |= 1;
				CHECK_EQ(ctr[i].value, TOE_STATUS_OK);
			}
			if (!strcmp(ctr[i].name, "gtoe_top.bytes_out"))
				{
				seen |= 2;
				CHECK_EQ(ctr[i].value, len + sizeof msg + 350 + 16);
			}
			if (!strcmp(ctr[i].name, "gtoe_top.gtoe.established"))
				seen |= 4;
			if (!strcmp(ctr[i].name, "gtoe_top.arp.out_requests"))
				seen |= 8;
			if (!strcmp(ctr[i].name, "tx_arb_top.frames_gtoe"))
				seen |= 16;
			if (!strcmp(ctr[i].name, "host.tx_msgs"))
				{
				seen |= 32;
				CHECK_EQ(ctr[i].value, 11);
			} /* refused 1, logon 1, long 3, room 3 (100, 0, 200), 50 1, stalled 1, after 1 */
			if (!strcmp(ctr[i].name, "host.tx_down"))
				{
				seen |= 64;
				CHECK_EQ(ctr[i].value, 1);
			}
		}
		CHECK_EQ(seen, 127);
		free(ctr);
	}
	CHECK_EQ(toe_fake_errors(o.f, NULL), 0);

	close_tcp(&o);
}

/* toed restarted on the same card: the mailbox's TX_SEQ register still holds the last run's value,
 * which gtoe_top takes as handled at APPLY: the new run's first message must be another value. */
static void test_restart(const char *xclbin)
{
	struct opened o;
	char err[768];
	const uint8_t msg[10] = "0123456789";
	uint32_t got;
	CHECK_EQ(open_tcp(&o, xclbin, 64, 32768, err, sizeof err), 0);
	if (!o.be) {
		close_tcp(&o);
		return;
	}
	toe_fake_gtoe_set_cst(o.f, 0, TOE_GTOE_CS_PHASE, 3);
	CHECK_EQ(toe_xrt_tcp_send(o.be, 0, msg, 10), 10); /* one message: TX_SEQ 1 */
	CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_TX_SEQ), 1);
	toe_xrt_close(o.be);
	o.be = NULL;
	CHECK_EQ(toe_xrt_open(&o.be, &toe_devops_fake, o.f, &o.p, err, sizeof err), 0);
	if (o.be) {
		CHECK_EQ(toe_xrt_tcp_send(o.be, 0, msg, 10), 10);
		toe_fake_gtoe_sent(o.f, 0, &got);
		CHECK_EQ(got, 20);
		CHECK_EQ(toe_fake_cfg_word(o.f, TOE_KID_GTOE, TOE_GTOE_CF_TX_SEQ), 2);
	}
	close_tcp(&o);
}

/* The per-connection state window, field by field; an entry disabled and enabled again. */
static void test_state(const char *xclbin)
{
	struct opened o;
	struct toe_xrt_tcpconn c;
	char err[768];
	static const uint32_t v[15] = { 3, 4 /* GTOE_ESTABLISHED */, 250, 14080, 65535, 32768, 2, 1,
					3 | 2u << 8, 5, 0x89abcdefu, 0x12, 0x1000, 0, 9 };
	CHECK_EQ(open_tcp(&o, xclbin, 64, 32768, err, sizeof err), 0);
	if (!o.be) {
		close_tcp(&o);
		return;
	}
	for (uint32_t k = 0; k < 15; k++)
		toe_fake_gtoe_set_cst(o.f, 1, k, v[k]);
	CHECK_EQ(toe_xrt_tcp_conn(o.be, 1, &c), 0);
	CHECK_EQ(c.phase, 3);
	CHECK_EQ(c.state, 4);
	CHECK_EQ(c.srtt_us, 250);
	CHECK_EQ(c.cwnd, 14080);
	CHECK_EQ(c.snd_wnd, 65535);
	CHECK_EQ(c.rcv_wnd, 32768);
	CHECK_EQ(c.ups, 2);
	CHECK_EQ(c.downs, 1);
	CHECK_EQ(c.last_down, 3);
	CHECK_EQ(c.last_reason, 2);
	CHECK_EQ(c.retrans, 5);
	CHECK_EQ(c.bytes_in, 0x1289abcdefull);
	CHECK_EQ(c.bytes_out, 0x1000);
	CHECK_EQ(c.attempts, 9);
	CHECK_EQ(toe_xrt_tcp_conn(o.be, 0, &c), 0);
	CHECK_EQ(c.phase, 0);
	CHECK_EQ(c.state, 0);
	CHECK_EQ(toe_xrt_tcp_conn(o.be, 3, &c), -1);
	/* open = accept: listening (dp_tcp's phase 4) */
	toe_fake_gtoe_set_cst(o.f, 2, TOE_GTOE_CS_PHASE, 4);
	CHECK_EQ(toe_xrt_tcp_conn(o.be, 2, &c), 0);
	CHECK_EQ(c.phase, 4);

	CHECK_EQ(toe_xrt_tcp_enable(o.be, 1, 0), 0);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 1, TOE_GTOE_CE_CTRL), 0);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 0, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ENABLE);
	CHECK_EQ(toe_xrt_tcp_enable(o.be, 1, 1), 0);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 1, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ENABLE);
	CHECK_EQ(toe_xrt_tcp_enable(o.be, 5, 1), -1);
	/* an ACCEPT entry keeps its bit through disable and enable */
	CHECK_EQ(toe_xrt_tcp_enable(o.be, 2, 0), 0);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 2, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ACCEPT);
	CHECK_EQ(toe_xrt_tcp_enable(o.be, 2, 1), 0);
	CHECK_EQ(toe_fake_gtoe_conn_word(o.f, 2, TOE_GTOE_CE_CTRL), TOE_GTOE_CTRL_ENABLE | TOE_GTOE_CTRL_ACCEPT);
	close_tcp(&o);
}

/* Each feed's own mss and window ([feed.NAME]): written to its entry; the kernel-wide MSS (eth_rx_top's
 * and gtoe_top's TOE_ETH_CF_MSS) and every slot's buffer (RCV_BUF) the largest of the feeds', which the
 * card's limits rule accepts. Feed a: 1024 / 4K; b: 1280 / 16K; acc: 1344 / 8K; [tcp]: 1408 / 32K,
 * which no feed takes. */
static void test_feed_limits(const char *xclbin)
{
	static const uint32_t mss[3] = { 1024, 1280, 1344 }, win[3] = { 4096, 16384, 8192 };
	struct toed_config *c = tcp_config(64, 32768);
	struct toe_xrt_params p;
	struct rx_cfg rx;
	struct toe_fake *f;
	struct toe_xrt *be = NULL;
	char err[768];
	uint16_t flow_feed[TOED_MAX_FEEDS];
	uint32_t m, w, wf;
	if (!c)
		return;
	for (uint32_t i = 0; i < 3; i++) {
		c->feed[i].mss = mss[i];
		c->feed[i].window = win[i];
	}
	rx_cfg_default(&rx);
	CHECK_EQ(dp_setup_rx(c, &rx, flow_feed, err, sizeof err), 0);
	dp_setup_tcp_max(c, &m, &w, &wf);
	CHECK_EQ(m, 1344);
	CHECK_EQ(w, 16384);
	CHECK_EQ(wf, 1);
	dp_setup_card(&p, c, &rx);
	CHECK_EQ(p.ngconn, 3);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK_EQ(p.gconn[i].mss, mss[i]);
		CHECK_EQ(p.gconn[i].window, win[i]);
	}
	CHECK_EQ(p.gtoe.mss, 1344);
	CHECK_EQ(p.hw.mss, 1344); /* toe_hw_gtoe_writes wants the two equal */
	CHECK_EQ(p.gtoe.rcv_buf, 16384);
	p.xclbin = xclbin;
	p.hw.ring_slots = 64;
	p.link_timeout_ms = 0;
	f = toe_fake_new(NULL);
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
	if (!be)
		fprintf(stderr, "open: %s\n", err);
	CHECK_EQ(toe_fake_gtoe_status(f), TOE_STATUS_OK); /* the card's rule takes them */
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_GTOE, TOE_ETH_CF_MSS), 1344);
	CHECK_EQ(toe_fake_cfg_word(f, TOE_KID_GTOE, TOE_GTOE_CF_RCV_BUF), 16384);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK_EQ(toe_fake_gtoe_conn_word(f, i, 4 + TOE_GTOE_CX_MSS), mss[i]);
		CHECK_EQ(toe_fake_gtoe_conn_word(f, i, 4 + TOE_GTOE_CX_WINDOW), win[i]);
	}
	toe_xrt_close(be);
	toe_fake_free(f);

	/* one feed's window larger than the card's buffers allow for [tcp] connections = 64: every slot
	 * would take it (64 x (64K + 8K) > 64 x (32K + 8K)); refused before anything is written */
	c->feed[1].window = 65536;
	dp_setup_tcp_max(c, &m, &w, &wf);
	CHECK_EQ(w, 65536);
	CHECK_EQ(wf, 1);
	dp_setup_card(&p, c, &rx);
	CHECK_EQ(p.gtoe.rcv_buf, 65536);
	p.xclbin = xclbin;
	p.hw.ring_slots = 64;
	p.link_timeout_ms = 0;
	f = toe_fake_new(NULL);
	be = NULL;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(strstr(err, "the card cannot run this configuration: the card's general TOE (gtoe_top)") != NULL);
	CHECK_EQ(toe_fake_is_open(f), 0);
	toe_fake_free(f);
	/* with 32 connections it fits */
	c->tcp.connections = 32;
	dp_setup_card(&p, c, &rx);
	p.xclbin = xclbin;
	p.hw.ring_slots = 64;
	p.link_timeout_ms = 0;
	f = toe_fake_new(NULL);
	be = NULL;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
	CHECK_EQ(toe_fake_gtoe_status(f), TOE_STATUS_OK);
	CHECK_EQ(toe_fake_gtoe_conn_word(f, 1, 4 + TOE_GTOE_CX_WINDOW), 65536);
	CHECK_EQ(toe_fake_gtoe_conn_word(f, 0, 4 + TOE_GTOE_CX_WINDOW), 4096);
	toe_xrt_close(be);
	toe_fake_free(f);
	free(c);
}

static void test_refusals(const char *xclbin, const char *no_tcp_xclbin)
{
	struct opened o;
	char err[768];
	/* an xclbin without the general TOE: named, nothing touched */
	CHECK_EQ(open_tcp(&o, no_tcp_xclbin, 64, 32768, err, sizeof err), -1);
	CHECK(strstr(err, "lacks compute units toed needs: " TOE_IP_GTOE ", " TOE_IP_TXARB) != NULL);
	CHECK_EQ(toe_fake_is_open(o.f), 0);
	close_tcp(&o);
	/* three tcp feeds, [tcp] connections = 2: more entries than gtoe slots (whatever fits the mirror
	 * TOE's 2 MB also fits gtoe_top's buffers: 64 x 8 KB of send buffer more) */
	CHECK_EQ(open_tcp(&o, xclbin, 2, 32768, err, sizeof err), -1);
	CHECK(strstr(err, "the card cannot run this configuration: the card's general TOE (gtoe_top)") != NULL);
	CHECK_EQ(toe_fake_is_open(o.f), 0);
	close_tcp(&o);
	/* gtoe_top refuses what gtoe_init refuses (an MSS of 20): its status detail in words */
	g_mss = 20;
	CHECK_EQ(open_tcp(&o, xclbin, 64, 32768, err, sizeof err), -1);
	CHECK(strstr(err, "gtoe_top: configuration refused: the general TOE refused its settings") != NULL);
	CHECK_EQ(toe_fake_live_bos(o.f), 0);
	close_tcp(&o);
	g_mss = 0;
	/* an entry's MSS or window beyond the TOE's, two ACCEPT entries on one port: refused before
	 * anything is written (the host's toe_hw_gtoe_writes) */
	for (int k = 0; k < 3; k++) {
		CHECK_EQ(open_tcp(&o, xclbin, 64, 32768, err, sizeof err), 0);
		toe_xrt_close(o.be);
		o.be = NULL;
		toe_fake_free(o.f);
		o.f = toe_fake_new(NULL);
		if (k == 0)
			o.p.gconn[1].mss = 1409;
		else if (k == 1)
			o.p.gconn[0].window = 65536;
		else {
			o.p.gconn[0].accept = 1;
			o.p.gconn[0].lport = 7000;
		}
		CHECK_EQ(toe_xrt_open(&o.be, &toe_devops_fake, o.f, &o.p, err, sizeof err), -1);
		CHECK(strstr(err, "the card cannot run this configuration: the card's general TOE (gtoe_top)") != NULL);
		CHECK(strstr(err, "share a vendor port") != NULL);
		CHECK_EQ(toe_fake_is_open(o.f), 0);
		close_tcp(&o);
	}
	/* 32 connections of 64 KB windows fit both TOEs' buffers */
	CHECK_EQ(open_tcp(&o, xclbin, 32, 65536, err, sizeof err), 0);
	CHECK_EQ(toe_fake_gtoe_status(o.f), TOE_STATUS_OK);
	close_tcp(&o);
}

int main(void)
{
	struct tx_xclbin xd;
	char path[64], path2[64];
	if (tx_load_prog() != 0)
		return test_skip("xrt_tcp", "cannot compile " TX_TEMPLATES);
	tx_xclbin_default(&xd);
	xd.tcp = 1;
	if (tx_xclbin_file(&xd, path) != 0)
		return test_skip("xrt_tcp", "cannot write a temporary xclbin in /tmp");
	xd.tcp = 0;
	if (tx_xclbin_file(&xd, path2) != 0) {
		unlink(path);
		return test_skip("xrt_tcp", "cannot write a temporary xclbin in /tmp");
	}
	test_params();
	test_program(path);
	test_mailbox(path);
	test_restart(path);
	test_state(path);
	test_feed_limits(path);
	test_refusals(path, path2);
	unlink(path);
	unlink(path2);
	return test_done("xrt_tcp");
}
