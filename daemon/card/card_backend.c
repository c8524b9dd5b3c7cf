/* card_backend.c - the card backend's logic, the same for the real card and the fake one (see card_backend.h). */
#include "card/card_backend.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fast/host/fast_json.h"
#include "hw/toe_regmap.h"
#include "card/card_xclbin.h"
#include "rx/rx_sess.h"

#define KID_CMAC TOE_KID_ALL /* index of cmac_0 in toe_xrt.ip[] (after gtoe_top and tx_arb_top) */
/* configuration writes: the receive path's, then gtoe_top's (role tcp: its words and the table) */
#define MAX_WRITES (TOE_HW_CFG_MAX_WRITES + 64 + 6 * TOE_HW_GTOE_CONNS)
#define NCH TOE_HW_HBM_CHANNELS

struct toe_xrt {
	const struct toe_devops *ops;
	void *dev;
	void *ip[KID_CMAC + 1];
	void *pip[TOE_HW_MAX_PORTS]; /* eth_rx_top_2..4 of ports 1..3 (the 4 x 10G build); [0] unused */
	uint32_t nports;     /* network ports of the loaded xclbin's layout (1 or 4) */
	uint32_t ports;      /* bit n (1..3): port n's eth_rx_top is programmed */
	int no_cmac;         /* the 4 x 10G build: no cmac_0 (eth10g_0's registers are not read) */
	void *bo[NCH];
	uint8_t *map[NCH];
	uint64_t addr[NCH];
	uint32_t bank[NCH];
	char bank_tag[NCH][17];
	uint32_t slots;      /* records per channel */
	uint32_t rd;         /* records consumed (READ_INDEX) */
	uint32_t time_seq;
	uint32_t gen;        /* APPLY value the kernels run with */
	int programmed;      /* the kernels may hold our buffer addresses */
	int tx_on;           /* the CMAC transmits (enabled at the first link up) */
	int tcp;             /* role = tcp: gtoe_top and tx_arb_top are ours too */
	uint32_t ngconn;     /* gtoe_top's connection table entries */
	uint32_t gaccept[TOE_HW_GTOE_CONNS]; /* the entry's CTRL_ACCEPT bit, kept when enabling */
	uint32_t tx_seq;     /* the mailbox's last TX_SEQ */
	/* The mailbox serves every entry one message at a time and is never waited for: tx_busy 1, the
	 * message tx_buf[0..tx_len) for entry tx_conn is posted (TX_SEQ tx_seq) and not answered yet;
	 * 2, it is the rest of one the send buffer only partly took, to be posted again. */
	int tx_busy;
	int tx_late;         /* the posted message was reported late (once per message) */
	int tx_zero;         /* its last answer took nothing (send buffer full): post again after 1 ms */
	uint32_t tx_conn, tx_len;
	uint64_t tx_posted_ns;
	uint8_t tx_buf[TOE_GTOE_TX_BYTES];
	struct toe_xrt_host_stats st;
	void (*log)(void *arg, int prio, const char *msg);
	void *log_arg;
	char where[48];      /* "the card at 0000:3b:00.1" */
	char err[768];
};

static const char *const kname[KID_CMAC + 1] = {
	[TOE_KID_ETH_RX] = "eth_rx_top", [TOE_KID_MTOE] = "mirror_toe_top", [TOE_KID_UDP] = "udp_top",
	[TOE_KID_FAST] = "fast_top",     [TOE_KID_HBM] = "hbm_writer_top", [TOE_KID_GTOE] = "gtoe_top",
	[TOE_KID_TXARB] = "tx_arb_top",  [KID_CMAC] = "cmac_0",
};
static const char *const kip[KID_CMAC + 1] = {
	[TOE_KID_ETH_RX] = TOE_IP_ETH_RX, [TOE_KID_MTOE] = TOE_IP_MTOE, [TOE_KID_UDP] = TOE_IP_UDP,
	[TOE_KID_FAST] = TOE_IP_FAST,     [TOE_KID_HBM] = TOE_IP_HBM,   [TOE_KID_GTOE] = TOE_IP_GTOE,
	[TOE_KID_TXARB] = TOE_IP_TXARB,   [KID_CMAC] = TOE_IP_CMAC,
};
static const char *const port_kname[TOE_HW_MAX_PORTS] = { "eth_rx_top", "eth_rx_top_2", "eth_rx_top_3",
							     "eth_rx_top_4" };
static const char *const port_kip[TOE_HW_MAX_PORTS] = { TOE_IP_ETH_RX, TOE_IP_ETH_RX_2, TOE_IP_ETH_RX_3,
							  TOE_IP_ETH_RX_4 };

/* The port (1..3) a kernel id of toe_hw_wr names, or 0 (toe_regmap.h TOE_KID_ETH_PORT). */
static uint32_t kid_port(uint32_t kid)
{
	uint32_t n;
	for (n = 1; n < TOE_HW_MAX_PORTS; n++)
		if (kid == (uint32_t)TOE_KID_ETH_PORT(n))
			return n;
	return 0;
}

static void *ipof(const struct toe_xrt *be, uint32_t kid)
{
	uint32_t n = kid_port(kid);
	return n ? be->pip[n] : kid <= KID_CMAC ? be->ip[kid] : NULL;
}

static const char *knameof(uint32_t kid)
{
	uint32_t n = kid_port(kid);
	return n ? port_kname[n] : kid <= KID_CMAC ? kname[kid] : "?";
}

uint32_t toe_xrt_layout_ports(const struct toe_xclbin *x)
{
	uint32_t n;
	if (toe_xclbin_find_ip(x, TOE_IP_ETH_RX) < 0)
		return 0;
	for (n = 1; n < TOE_HW_MAX_PORTS; n++)
		if (toe_xclbin_find_ip(x, port_kip[n]) < 0)
			return 1;
	if (toe_xclbin_find_ip(x, TOE_IP_SEG_MUX) < 0 || toe_xclbin_find_ip(x, TOE_IP_UDP_MUX) < 0 ||
	    toe_xclbin_find_ip(x, TOE_IP_GTOE_MUX) < 0)
		return 1;
	return TOE_HW_MAX_PORTS;
}

/* holding order: upstream first, so nothing sends into a held kernel's input (gtoe_top, role tcp
 * only, after the mirror TOE whose events it passes on) */
static const uint32_t hold_order[6] = { TOE_KID_ETH_RX, TOE_KID_MTOE, TOE_KID_GTOE, TOE_KID_UDP, TOE_KID_FAST,
					TOE_KID_HBM };

/* The compute units this configuration uses: the receive path and the CMAC always, the general
 * TOE and the transmit arbiter with role = tcp. */
static int in_use(const struct toe_xrt *be, uint32_t kid)
{
	if (kid == TOE_KID_GTOE || kid == TOE_KID_TXARB)
		return be->tcp;
	return kid >= 1 && kid <= KID_CMAC;
}

/* Hold every kernel that takes a configuration (APPLY = 0), ignoring errors: the ports' eth_rx_tops
 * first (upstream). */
static void hold_all(struct toe_xrt *be)
{
	for (uint32_t k = 1; k < TOE_HW_MAX_PORTS; k++)
		if (be->pip[k])
			be->ops->reg_write(be->pip[k], TOE_CFG(TOE_CF_APPLY), 0);
	for (uint32_t k = 0; k < 6; k++)
		if (in_use(be, hold_order[k]) && be->ip[hold_order[k]])
			be->ops->reg_write(be->ip[hold_order[k]], TOE_CFG(TOE_CF_APPLY), 0);
}

static void logf_(struct toe_xrt *be, int prio, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void logf_(struct toe_xrt *be, int prio, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	if (!be->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	be->log(be->log_arg, prio, msg);
}

static int fail(struct toe_xrt *be, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct toe_xrt *be, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(be->err, sizeof be->err, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000u, (long)(ms % 1000u) * 1000000L };
	nanosleep(&ts, NULL);
}

/* What toe_hw_cfg_writes() refused, with the numbers. */
static void cfg_error(int code, const struct rx_cfg *rx, const struct toe_hw_opts *o, char *buf, size_t len)
{
	switch (code) {
	case TOE_HWCFG_E_CONNS:
		snprintf(buf, len, "[tcp] connections = %u: the card's mirror TOE has %u", rx->mtoe.max_conns,
			 TOE_HW_TCP_STREAMS);
		break;
	case TOE_HWCFG_E_BUF:
		snprintf(buf, len, "[tcp] connections x window = %u x %u bytes: above the card's %u bytes of reassembly "
			 "memory", rx->mtoe.max_conns, rx->mtoe.window, (unsigned)TOE_HW_MTOE_BUF);
		break;
	case TOE_HWCFG_E_FLOWS:
		snprintf(buf, len, "%u TCP feeds: the card holds %u feed filters", rx->mtoe.nflows, TOE_MTOE_MAX_FLOWS);
		break;
	case TOE_HWCFG_E_UDP:
		snprintf(buf, len, "%u UDP ports (UDP feeds and [udp] ports): the card's udp_top listens to %u",
			 rx->nudp, TOE_HW_UDP_STREAMS);
		break;
	case TOE_HWCFG_E_ADDRS:
		snprintf(buf, len, "%u addresses: the card's eth_rx_top holds %u", rx->net.naddr, TOE_ETH_MAX_ADDRS);
		break;
	case TOE_HWCFG_E_PORT:
		snprintf(buf, len, "a feed or port on a network port the card cannot serve: ports 0..%u, role tcp on "
			 "port 0 only (gtoe_top)", TOE_HW_MAX_PORTS - 1);
		break;
	case TOE_HWCFG_E_GTOE:
		snprintf(buf, len, "the card's general TOE (gtoe_top) holds %u connections and %u bytes of receive and "
			 "send buffers: [tcp] connections x (window + send buffer) is above that, or the tcp feeds "
			 "outnumber [tcp] connections, or open = accept feeds share a vendor port or outnumber its %u "
			 "listeners", TOE_HW_GTOE_CONNS, (unsigned)TOE_HW_GTOE_BUF, GTOE_MAX_LISTEN);
		break;
	case TOE_HWCFG_E_SLOTS:
		snprintf(buf, len, "ring of %u slots per channel: must be a power of two from 1 to 2^28", o->ring_slots);
		break;
	default:
		snprintf(buf, len, "configuration error %d", code);
	}
}

/* ---- registers --------------------------------------------------------------- */

static const char *ip_reason(struct toe_xrt *be, uint32_t kid, int r)
{
	const char *why = be->ops->ip_error ? be->ops->ip_error(ipof(be, kid)) : NULL;
	return why && *why ? why : strerror(-r);
}

static int rr(struct toe_xrt *be, uint32_t kid, uint32_t off, uint32_t *v)
{
	int r = be->ops->reg_read(ipof(be, kid), off, v);
	if (r < 0)
		return fail(be, "%s: reading register 0x%x of %s failed: %s", be->where, off, knameof(kid),
			    ip_reason(be, kid, r));
	return 0;
}

static int rw(struct toe_xrt *be, uint32_t kid, uint32_t off, uint32_t v)
{
	int r = be->ops->reg_write(ipof(be, kid), off, v);
	if (r < 0)
		return fail(be, "%s: writing register 0x%x of %s failed: %s", be->where, off, knameof(kid),
			    ip_reason(be, kid, r));
	return 0;
}

/* A 64-bit counter: high, low, high again until the two highs agree. */
static int ctr64(struct toe_xrt *be, uint32_t kid, uint32_t lo_off, uint64_t *v)
{
	uint32_t hi, lo, hi2;
	int tries;
	for (tries = 0; tries < 4; tries++) {
		if (rr(be, kid, lo_off + 4, &hi) || rr(be, kid, lo_off, &lo) || rr(be, kid, lo_off + 4, &hi2))
			return -1;
		if (hi == hi2)
			break;
	}
	*v = (uint64_t)hi2 << 32 | lo;
	return 0;
}

/* ---- bring-up ------------------------------------------------------------------- */

static void status_text(uint32_t kid, uint32_t st, char *buf, size_t len)
{
	uint32_t code = st & 0xffffu, detail = st >> 16;
	const char *d = NULL;
	switch (code) {
	case TOE_STATUS_OK:
		snprintf(buf, len, "OK");
		return;
	case TOE_STATUS_HELD:
		snprintf(buf, len, "held (APPLY not taken)");
		return;
	case TOE_STATUS_BAD_CFG:
		if (kid == TOE_KID_HBM && detail == TOE_HBM_BAD_SLOTS)
			d = "ring slots not a power of two up to 2^28";
		else if (kid == TOE_KID_FAST && detail == TOE_FAST_BAD_STREAMS)
			d = "more streams than this xclbin's fast_top has";
		else if (kid == TOE_KID_MTOE && detail == (uint32_t)-MTOE_ERR_CONNS)
			d = "connections out of range";
		else if (kid == TOE_KID_MTOE && detail == (uint32_t)-MTOE_ERR_WINDOW)
			d = "window not a power of two in range";
		else if (kid == TOE_KID_MTOE && detail == (uint32_t)-MTOE_ERR_RANGES)
			d = "out-of-order ranges out of range";
		else if (kid == TOE_KID_MTOE && detail == (uint32_t)-MTOE_ERR_FLOWS)
			d = "feed filters refused";
		else if (kid == TOE_KID_MTOE && detail == (uint32_t)-MTOE_ERR_BUF)
			d = "connections x window above the reassembly memory";
		else if (kid == TOE_KID_GTOE && detail == TOE_GTOE_BAD_CONNS)
			d = "more connection table entries than this xclbin's gtoe_top or [tcp] connections hold";
		else if (kid == TOE_KID_GTOE && detail == TOE_GTOE_BAD_ADDRS)
			d = "no address, or more than it holds";
		else if (kid == TOE_KID_GTOE && detail == TOE_GTOE_BAD_INIT)
			d = "the general TOE refused its settings (buffers, window or MSS)";
		else if (kid == TOE_KID_GTOE && detail == TOE_GTOE_BAD_ENTRY)
			d = "a connection table entry's MSS or window is beyond the general TOE's";
		if (d)
			snprintf(buf, len, "configuration refused: %s", d);
		else
			snprintf(buf, len, "configuration refused (detail %u)", detail);
		return;
	case TOE_STATUS_BAD_PROG:
		if (detail == TOE_FAST_BAD_MAGIC)
			d = "bad magic";
		else if (detail == TOE_FAST_BAD_VERSION)
			d = "program version this fast_top does not know";
		else if (detail == TOE_FAST_BAD_COUNTS)
			d = "a count above the kernel's arrays";
		if (d)
			snprintf(buf, len, "template program refused: %s", d);
		else
			snprintf(buf, len, "template program refused (detail %u)", detail);
		return;
	default:
		snprintf(buf, len, "status 0x%08x", st);
	}
}

/* Read the xclbin, check its kernels, find the ring's banks. x: scratch. */
static int check_xclbin(struct toe_xrt *be, const char *path, struct toe_xclbin *x, uint64_t ring_bytes)
{
	char why[512], missing[256] = "";
	uint32_t kid, ch;
	int hbm_ip;

	if (toe_xclbin_read(path, x, why, sizeof why) < 0)
		return fail(be, "[device] xclbin: %s", why);
	if (x->mode == TOE_XCLBIN_HW_EMU || x->mode == TOE_XCLBIN_SW_EMU || x->mode == TOE_XCLBIN_HW_EMU_PR)
		return fail(be, "[device] xclbin %s is built for emulation (mode %u), not for a card", path, x->mode);
	if (!x->has_ip)
		return fail(be, "[device] xclbin %s has no IP_LAYOUT section: it holds no kernels; is it toed.xclbin "
				"(kernels/hw/build_xclbin.sh)?", path);
	be->nports = toe_xrt_layout_ports(x);
	be->no_cmac = be->nports > 1;
	if (be->nports > 1 && toe_xclbin_find_ip(x, TOE_IP_ETH10G) < 0)
		return fail(be, "[device] xclbin %s has four eth_rx_tops (the 4 x 10G build) but no MAC kernel %s: is "
				"it built by kernels/hw/build_xclbin.sh with LAYOUT=4x10g (link_4x10g.cfg)?",
			    path, TOE_IP_ETH10G);
	for (kid = 1; kid <= KID_CMAC; kid++) {
		if (!in_use(be, kid) || toe_xclbin_find_ip(x, kip[kid]) >= 0 || (kid == KID_CMAC && be->no_cmac))
			continue;
		if (missing[0])
			strncat(missing, ", ", sizeof missing - strlen(missing) - 1);
		strncat(missing, kip[kid], sizeof missing - strlen(missing) - 1);
	}
	if (missing[0])
		return fail(be, "[device] xclbin %s lacks compute units toed needs: %s; is it toed.xclbin built by "
				"kernels/hw/build_xclbin.sh with kernels/hw/link.cfg?", path, missing);
	for (kid = 1; kid < TOE_HW_MAX_PORTS; kid++)
		if ((be->ports >> kid & 1u) && kid >= be->nports)
			return fail(be, "[port.%u]: [device] xclbin %s has %u network port%s (%s): port %u needs the "
					"4 x 10G build (eth_rx_top_1..4: kernels/hw/build_xclbin.sh with LAYOUT=4x10g), "
					"or move its feeds to port 0",
				    kid, path, be->nports, be->nports == 1 ? "" : "s",
				    be->nports == 1 ? "the 100G build, eth_rx_top_1 alone" : "eth_rx_top_1..4", kid);
	/* XRT refuses register accesses beyond a CU's range, 64 KB unless the metadata says more */
	for (kid = 1; kid < KID_CMAC; kid++) {
		uint32_t need = kid == TOE_KID_FAST    ? TOE_FAST_REG_PROG + 4 * TOE_FAST_PROG_WORDS
				: kid == TOE_KID_GTOE  ? TOE_GTOE_REG_TXD + 4 * TOE_GTOE_TXD_WORDS
				: kid == TOE_KID_TXARB ? TOE_REG_STAT + 4 * TOE_STAT_WORDS
						       : TOE_REG_CFG + 4 * TOE_CFG_WORDS;
		uint32_t have;
		if (!in_use(be, kid))
			continue;
		have = toe_xclbin_cu_range(x, kname[kid]);
		if (have < need)
			return fail(be, "[device] xclbin %s: %s's register space is 0x%x bytes%s, toe_regmap.h needs "
					"0x%x: XRT would refuse the registers beyond; rebuild the xclbin from kernels/hw",
				    path, kname[kid], have,
				    have == TOE_XRT_DEFAULT_CU_RANGE ? " (XRT's default where the metadata gives none)" : "",
				    need);
	}
	if (!x->has_mem || !x->has_conn)
		return fail(be, "[device] xclbin %s has no %s section: cannot find the HBM banks of hbm_writer_top",
			    path, !x->has_mem ? "MEM_TOPOLOGY" : "CONNECTIVITY");

	hbm_ip = toe_xclbin_find_ip(x, TOE_IP_HBM);
	for (ch = 0; ch < NCH; ch++) {
		char port[8];
		const struct toe_xclbin_arg *a;
		uint32_t id = 1 + ch; /* hbm_writer_top(rec_in, hbm0, hbm1, hbm2, hbm3, cfg, stat) */
		int bank;
		snprintf(port, sizeof port, "hbm%u", ch);
		a = toe_xclbin_find_arg(x, "hbm_writer_top", port);
		if (a) {
			id = a->id;
			if (a->has_offset && a->offset != (uint32_t)TOE_HBM_REG_ADDR(ch))
				return fail(be, "[device] xclbin %s: hbm_writer_top's %s register is at 0x%x, toe_regmap.h "
						"says 0x%x: the xclbin and this toed disagree on the register map; rebuild "
						"one of them",
					    path, port, a->offset, (unsigned)TOE_HBM_REG_ADDR(ch));
		} else if (x->has_meta) {
			logf_(be, TOE_XRT_LOG_WARNING, "xclbin %s: no argument %s of hbm_writer_top in its metadata; "
				  "assuming argument index %u", path, port, id);
		}
		bank = toe_xclbin_arg_bank(x, hbm_ip, id);
		if (bank < 0)
			return fail(be, "[device] xclbin %s connects hbm_writer_top.%s (argument %u) to no memory bank "
					"(link.cfg sp=hbm_writer_top_1.%s:HBM[%u])", path, port, id, port, ch);
		if (!x->mem[bank].used)
			return fail(be, "[device] xclbin %s: bank %d (%s) of hbm_writer_top.%s is marked unused", path,
				    bank, x->mem[bank].tag, port);
		if (x->mem[bank].size_kb && x->mem[bank].size_kb * 1024u < ring_bytes)
			return fail(be, "[device] ring of %llu bytes per channel does not fit bank %s (%llu KB): fewer "
					"ring slots", (unsigned long long)ring_bytes, x->mem[bank].tag,
				    (unsigned long long)x->mem[bank].size_kb);
		if (x->mem[bank].type != TOE_MEM_HBM)
			logf_(be, TOE_XRT_LOG_WARNING, "xclbin %s: hbm_writer_top.%s is connected to %s, not an HBM bank",
			      path, port, x->mem[bank].tag);
		be->bank[ch] = (uint32_t)bank;
		snprintf(be->bank_tag[ch], sizeof be->bank_tag[ch], "%s", x->mem[bank].tag[0] ? x->mem[bank].tag : "?");
	}
	return 0;
}

static int check_platform(struct toe_xrt *be, const char *path, const struct toe_xclbin *x)
{
	char shell[128], kx[96], kc[96], bx[32], bc[32];
	int r = be->ops->platform ? be->ops->platform(be->dev, shell, sizeof shell) : -ENOTSUP;
	if (r < 0 || !shell[0]) {
		logf_(be, TOE_XRT_LOG_NOTICE, "%s does not tell its shell; the xclbin is for %s", be->where,
		      x->vbnv[0] ? x->vbnv : "an unnamed platform");
		return 0;
	}
	toe_platform_board(x->vbnv, bx, sizeof bx);
	toe_platform_board(shell, bc, sizeof bc);
	toe_platform_key(x->vbnv, kx, sizeof kx);
	toe_platform_key(shell, kc, sizeof kc);
	if ((bx[0] && bc[0] && strcmp(bx, bc) != 0) || strcmp(kx, kc) != 0)
		return fail(be, "wrong platform: [device] xclbin %s is built for %s but %s runs shell %s: rebuild the "
				"xclbin for the card's platform (make xclbin PLATFORM=...) or flash the matching shell "
				"(kernels/hw/README.md)",
			    path, x->vbnv[0] ? x->vbnv : "(none)", be->where, shell);
	return 0;
}

static int check_kernels(struct toe_xrt *be)
{
	uint32_t kid, v;
	for (kid = 1; kid < KID_CMAC; kid++) {
		if (!in_use(be, kid))
			continue;
		if (rr(be, kid, TOE_STAT(TOE_ST_MAGIC), &v) < 0) {
			char e[sizeof be->err];
			snprintf(e, sizeof e, "%s", be->err);
			return fail(be, "%s (is another process using the card, or is this XRT's noop shim?)", e);
		}
		if (v != TOE_HW_MAGIC)
			return fail(be, "%s: %s reports magic 0x%08x, not 0x%08x (\"TOE1\"): the loaded xclbin's kernels are "
					"not toed's, or not running", be->where, kname[kid], v, TOE_HW_MAGIC);
		if (rr(be, kid, TOE_STAT(TOE_ST_VERSION), &v) < 0)
			return -1;
		if (v != TOE_REGMAP_VERSION)
			return fail(be, "%s: %s speaks register map version %u, this toed version %u: rebuild the xclbin "
					"from this source tree", be->where, kname[kid], v, TOE_REGMAP_VERSION);
		if (rr(be, kid, TOE_STAT(TOE_ST_KERNEL), &v) < 0)
			return -1;
		if (v != kid)
			return fail(be, "%s: compute unit %s reports kernel id %u, expected %u: the xclbin's kernels are "
					"wired to the wrong names", be->where, kip[kid], v, kid);
	}
	for (kid = 1; kid < TOE_HW_MAX_PORTS; kid++) {
		uint32_t pk = TOE_KID_ETH_PORT(kid), m, ver, id;
		if (!be->pip[kid])
			continue;
		if (rr(be, pk, TOE_STAT(TOE_ST_MAGIC), &m) < 0 || rr(be, pk, TOE_STAT(TOE_ST_VERSION), &ver) < 0 ||
		    rr(be, pk, TOE_STAT(TOE_ST_KERNEL), &id) < 0)
			return -1;
		if (m != TOE_HW_MAGIC || ver != TOE_REGMAP_VERSION || id != TOE_KID_ETH_RX)
			return fail(be, "%s: compute unit %s reports magic 0x%08x, register map version %u, kernel id %u "
					"(expected 0x%08x, %u, %u): the xclbin's kernels are not this toed's",
				    be->where, port_kip[kid], m, ver, id, TOE_HW_MAGIC, TOE_REGMAP_VERSION, TOE_KID_ETH_RX);
	}
	return 0;
}

/* Hold (APPLY 0) or apply every port's eth_rx_top the xclbin has beyond port 0's. */
static int ports_apply(struct toe_xrt *be, uint32_t gen)
{
	uint32_t n;
	for (n = 1; n < TOE_HW_MAX_PORTS; n++)
		if (be->pip[n] && (gen == 0 || (be->ports >> n & 1u)) &&
		    rw(be, TOE_KID_ETH_PORT(n), TOE_CFG(TOE_CF_APPLY), gen) < 0)
			return -1;
	return 0;
}

static int program(struct toe_xrt *be, const struct toe_xrt_params *p, const struct toe_hw_wr *w, int nw)
{
	uint32_t k, n, ch, v, prev = 0;
	uint64_t deadline;
	const uint32_t *order = be->tcp ? toe_hw_apply_order_tcp : toe_hw_apply_order;
	uint32_t norder = be->tcp ? 6 : 5;

	/* hold everything (clears state and counters); remember the generation */
	be->programmed = 1;
	for (k = 0; k < 6; k++) {
		if (!in_use(be, hold_order[k]))
			continue;
		if (rr(be, hold_order[k], TOE_STAT(TOE_ST_APPLIED), &v) < 0)
			return -1;
		if (v > prev)
			prev = v;
		if (rw(be, hold_order[k], TOE_CFG(TOE_CF_APPLY), 0) < 0)
			return -1;
	}
	/* the ports' eth_rx_tops are upstream too: held first, applied last */
	for (k = 1; k < TOE_HW_MAX_PORTS; k++) {
		if (!be->pip[k])
			continue;
		if (rr(be, TOE_KID_ETH_PORT(k), TOE_STAT(TOE_ST_APPLIED), &v) < 0)
			return -1;
		if (v > prev)
			prev = v;
	}
	if (ports_apply(be, 0) < 0)
		return -1;
	be->gen = prev + 1 ? prev + 1 : 1;

	for (k = 0; k < (uint32_t)nw; k++)
		if (rw(be, w[k].kid, w[k].off, w[k].val) < 0)
			return -1;
	for (ch = 0; ch < NCH; ch++)
		if (rw(be, TOE_KID_HBM, TOE_HBM_REG_ADDR(ch), (uint32_t)be->addr[ch]) < 0 ||
		    rw(be, TOE_KID_HBM, TOE_HBM_REG_ADDR(ch) + 4, (uint32_t)(be->addr[ch] >> 32)) < 0)
			return -1;
	for (n = 0; n < TOE_PROG_BYTES / 4; n++)
		if (rw(be, TOE_KID_FAST, TOE_FAST_PROG(4 * n), toe_hw_prog_word(p->prog, n)) < 0)
			return -1;
	for (k = 0; k < norder; k++)
		if (rw(be, order[k], TOE_CFG(TOE_CF_APPLY), be->gen) < 0)
			return -1;
	if (ports_apply(be, be->gen) < 0)
		return -1;
	be->rd = 0;
	/* the mailbox continues from the TX_SEQ the registers hold (a previous run's): gtoe_top takes
	 * that value as handled at APPLY, and only a different one is a new message */
	if (be->tcp && rr(be, TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_SEQ), &be->tx_seq) < 0)
		return -1;

	/* each kernel takes the new configuration at its next invocation */
	deadline = mono_ms() + TOE_XRT_APPLY_MS;
	for (k = 0; k < norder + TOE_HW_MAX_PORTS - 1; k++) {
		uint32_t kid = k < norder ? order[k] : TOE_KID_ETH_PORT(k - norder + 1), applied, st;
		if (k >= norder && !(be->ports >> (k - norder + 1) & 1u))
			continue;
		char txt[160];
		for (;;) {
			if (rr(be, kid, TOE_STAT(TOE_ST_APPLIED), &applied) < 0 ||
			    rr(be, kid, TOE_STAT(TOE_ST_STATUS), &st) < 0)
				return -1;
			if (applied == be->gen && (st & 0xffffu) != TOE_STATUS_HELD)
				break;
			if (mono_ms() > deadline)
				return fail(be, "%s: %s did not take its configuration (APPLIED %u, expected %u): the "
						"kernel is not running", be->where, knameof(kid), applied, be->gen);
			sleep_ms(1);
		}
		if ((st & 0xffffu) != TOE_STATUS_OK) {
			status_text(kid_port(kid) ? (uint32_t)TOE_KID_ETH_RX : kid, st, txt, sizeof txt);
			return fail(be, "%s: %s: %s", be->where, knameof(kid), txt);
		}
	}
	return 0;
}

static int cmac_start(struct toe_xrt *be, const struct toe_xrt_params *p)
{
	if (be->no_cmac) {
		logf_(be, TOE_XRT_LOG_NOTICE, "%s: the 4 x 10G build: toed does not program or read the 10G MAC "
			  "(eth10g_0) yet; its lanes run as the xclbin brings them up", be->where);
		return 0;
	}
	if (!(p->flags & TOE_XRT_F_NO_RSFEC) && rw(be, KID_CMAC, TOE_CMAC_RSFEC_ENABLE, 3) < 0)
		return -1;
	/* receive on; transmit sends remote-fault indications until the link is aligned */
	if (rw(be, KID_CMAC, TOE_CMAC_CONF_RX, 1) < 0 || rw(be, KID_CMAC, TOE_CMAC_CONF_TX, 0x10) < 0)
		return -1;
	return 0;
}

int toe_xrt_link(struct toe_xrt *be, uint32_t *rx_status)
{
	uint32_t v;
	int up;
	if (be->no_cmac) {
		/* eth10g_0's registers are not read: no link state to tell */
		if (rx_status)
			*rx_status = 0;
		return 0;
	}
	/* the status bits latch: the first read clears old events, the second is now */
	if (rr(be, KID_CMAC, TOE_CMAC_STAT_RX_STATUS, &v) < 0 || rr(be, KID_CMAC, TOE_CMAC_STAT_RX_STATUS, &v) < 0)
		return -1;
	if (rx_status)
		*rx_status = v;
	up = TOE_CMAC_LINK_UP(v) ? 1 : 0;
	/* aligned: stop sending remote-fault indications, transmit for real */
	if (up && !be->tx_on) {
		if (rw(be, KID_CMAC, TOE_CMAC_CONF_TX, 1) < 0)
			return -1;
		be->tx_on = 1;
	}
	return up;
}

static int wait_link(struct toe_xrt *be, const struct toe_xrt_params *p)
{
	if (be->no_cmac)
		return 0;
	uint64_t deadline = mono_ms() + p->link_timeout_ms;
	uint32_t st = 0;
	int up;
	for (;;) {
		up = toe_xrt_link(be, &st);
		if (up < 0)
			return -1;
		if (up || mono_ms() >= deadline)
			break;
		sleep_ms(10);
	}
	if (up) {
		logf_(be, TOE_XRT_LOG_INFO, "%s: link up", be->where);
		return 0;
	}
	if (p->flags & TOE_XRT_F_REQUIRE_LINK)
		return fail(be, "%s: no link on the QSFP28 port after %u ms (rx status 0x%x): check the cable, the "
				"module and the switch port (100G, RS-FEC)", be->where, p->link_timeout_ms, st);
	logf_(be, TOE_XRT_LOG_WARNING, "%s: no link on the QSFP28 port after %u ms (rx status 0x%x); receiving "
		  "nothing until it comes up (toe_xrt_link tells)", be->where, p->link_timeout_ms, st);
	return 0;
}

static void release(struct toe_xrt *be)
{
	uint32_t k;
	for (k = 0; k < NCH; k++)
		if (be->bo[k])
			be->ops->bo_free(be->bo[k]);
	for (k = 0; k <= KID_CMAC; k++)
		if (be->ip[k])
			be->ops->ip_close(be->ip[k]);
	for (k = 1; k < TOE_HW_MAX_PORTS; k++)
		if (be->pip[k])
			be->ops->ip_close(be->pip[k]);
	memset(be->pip, 0, sizeof be->pip);
	if (be->dev)
		be->ops->close(be->dev);
	memset(be->bo, 0, sizeof be->bo);
	memset(be->ip, 0, sizeof be->ip);
	be->dev = NULL;
}

int toe_xrt_open(struct toe_xrt **out, const struct toe_devops *ops, void *ctx, const struct toe_xrt_params *p,
		 char *err, size_t errlen)
{
	struct toe_xrt *be = calloc(1, sizeof *be);
	struct toe_xclbin *x = calloc(1, sizeof *x);
	struct toe_hw_wr *w = calloc(MAX_WRITES, sizeof *w);
	struct toe_hw_opts o;
	const char *pci = p->pci ? p->pci : "";
	uint8_t uuid[16];
	char why[512], u1[37], u2[37];
	uint64_t ring_bytes;
	uint32_t ch, kid;
	int nw, r;

	*out = NULL;
	if (!be || !x || !w) {
		snprintf(err, errlen, "card backend: out of memory");
		goto bad_alloc;
	}
	be->ops = ops;
	be->tcp = p->tcp;
	be->log = p->log;
	be->log_arg = p->log_arg;
	if (pci[0])
		snprintf(be->where, sizeof be->where, "the card at %.16s", pci);
	else
		snprintf(be->where, sizeof be->where, "the first card");

	/* 1. the configuration, before touching anything */
	if (!p->rx || !p->prog || !p->xclbin || !p->xclbin[0]) {
		fail(be, "card backend: no %s", !p->rx ? "receive configuration" : !p->prog ? "template program" :
								    "[device] xclbin path");
		goto bad;
	}
	o = p->hw;
	if (!o.ring_slots)
		o.ring_slots = TOE_XRT_DEFAULT_SLOTS;
	if (p->tcp)
		o.role = TOE_ROLE_TCP;
	nw = toe_hw_cfg_writes(p->rx, &o, w, TOE_HW_CFG_MAX_WRITES);
	be->ports = p->ports & 0xeu;
	for (kid = 1; nw >= 0 && kid < TOE_HW_MAX_PORTS; kid++) {
		uint32_t n = (uint32_t)nw;
		int e;
		if (!(be->ports >> kid & 1u))
			continue;
		e = toe_hw_port_writes(p->rx, kid, p->port_role[kid], w, TOE_HW_CFG_MAX_WRITES, &n);
		nw = e < 0 ? e : (int)n;
	}
	if (nw >= 0 && p->tcp) {
		/* the general TOE: its words and the connection table, after the receive path's */
		uint32_t n = (uint32_t)nw;
		int e = p->ngconn > TOE_HW_GTOE_CONNS ? TOE_HWCFG_E_GTOE
							: toe_hw_gtoe_writes(p->rx, &o, &p->gtoe, p->gconn, p->ngconn, w,
									     MAX_WRITES, &n);
		nw = e < 0 ? e : (int)n;
		be->ngconn = p->ngconn;
		for (uint32_t i = 0; i < TOE_HW_GTOE_CONNS; i++)
			be->gaccept[i] = i < p->ngconn && p->gconn[i].accept ? TOE_GTOE_CTRL_ACCEPT : 0;
	}
	if (nw < 0) {
		cfg_error(nw, p->rx, &o, why, sizeof why);
		fail(be, "the card cannot run this configuration: %s", why);
		goto bad;
	}
	be->slots = o.ring_slots;
	ring_bytes = (uint64_t)be->slots * TOE_RECORD_SIZE;

	/* 2. the xclbin file */
	if (check_xclbin(be, p->xclbin, x, ring_bytes) < 0)
		goto bad;

	/* 3. the card */
	r = ops->open(ctx, pci, &be->dev, why, sizeof why);
	if (r < 0) {
		be->dev = NULL;
		if (r == -ENODEV && pci[0])
			fail(be, "no Alveo card at PCI %s ([device] pci): %s; give the user function's BDF as `xbutil "
				 "examine` lists it", pci, why);
		else if (r == -ENODEV)
			fail(be, "no Alveo card found: %s; is the card installed, its shell flashed and the xocl driver "
				 "loaded (`xbutil examine`)?", why);
		else
			fail(be, "cannot open %s: %s", be->where, why);
		goto bad;
	}
	if (check_platform(be, p->xclbin, x) < 0)
		goto bad;
	r = ops->load_xclbin(be->dev, p->xclbin, why, sizeof why);
	if (r < 0) {
		fail(be, "%s refused [device] xclbin %s (built for %s): %s; a wrong platform or a card in use by "
			 "another process are the usual causes (`xbutil examine -d %s`)",
		     be->where, p->xclbin, x->vbnv[0] ? x->vbnv : "an unnamed platform", why, pci[0] ? pci : "<bdf>");
		goto bad;
	}
	if (ops->xclbin_uuid(be->dev, uuid) < 0) {
		fail(be, "%s: cannot read the UUID of the loaded xclbin", be->where);
		goto bad;
	}
	if (memcmp(uuid, x->uuid, 16) != 0) {
		toe_uuid_str(x->uuid, u1);
		toe_uuid_str(uuid, u2);
		fail(be, "UUID mismatch: loaded [device] xclbin %s (UUID %s) but %s reports xclbin UUID %s: another "
			 "process may have loaded another xclbin (`xbutil examine`)", p->xclbin, u1, be->where, u2);
		goto bad;
	}
	for (kid = 1; kid <= KID_CMAC; kid++) {
		if ((kid == KID_CMAC && be->no_cmac) || !in_use(be, kid))
			continue;
		if (ops->ip_open(be->dev, kip[kid], &be->ip[kid], why, sizeof why) < 0) {
			be->ip[kid] = NULL;
			fail(be, "%s: no access to compute unit %s of the loaded xclbin: %s", be->where, kip[kid], why);
			goto bad;
		}
	}

	for (kid = 1; kid < be->nports && kid < TOE_HW_MAX_PORTS; kid++) {
		if (ops->ip_open(be->dev, port_kip[kid], &be->pip[kid], why, sizeof why) < 0) {
			be->pip[kid] = NULL;
			fail(be, "%s: no access to compute unit %s of the loaded xclbin: %s", be->where, port_kip[kid], why);
			goto bad;
		}
	}

	/* 4. the ring buffers, one per pseudo-channel in its bank */
	for (ch = 0; ch < NCH; ch++) {
		if (ops->bo_alloc(be->dev, ring_bytes, be->bank[ch], &be->bo[ch], why, sizeof why) < 0) {
			be->bo[ch] = NULL;
			fail(be, "%s: cannot allocate %llu bytes in %s for ring channel %u: %s", be->where,
			     (unsigned long long)ring_bytes, be->bank_tag[ch], ch, why);
			goto bad;
		}
		be->map[ch] = ops->bo_map(be->bo[ch]);
		be->addr[ch] = ops->bo_addr(be->bo[ch]);
		if (!be->map[ch]) {
			fail(be, "%s: cannot map ring channel %u (%s)", be->where, ch, be->bank_tag[ch]);
			goto bad;
		}
	}

	/* 5.-7. registers */
	if (check_kernels(be) < 0 || program(be, p, w, nw) < 0 || cmac_start(be, p) < 0)
		goto bad;
	if (p->link_timeout_ms && wait_link(be, p) < 0)
		goto bad;
	toe_uuid_str(x->uuid, u1);
	logf_(be, TOE_XRT_LOG_INFO, "%s runs %s (UUID %s, platform %s, %s); ring 4 x %u records in %s %s %s %s",
	      be->where, p->xclbin, u1, x->vbnv, be->nports > 1 ? "4 x 10G ports" : "one 100G port", be->slots,
	      be->bank_tag[0], be->bank_tag[1], be->bank_tag[2], be->bank_tag[3]);
	free(x);
	free(w);
	*out = be;
	return 0;

bad:
	snprintf(err, errlen, "%s", be->err);
	if (be->programmed)
		hold_all(be); /* the writer may have been given our buffers: stop it before they go */
	release(be);
bad_alloc:
	free(be);
	free(x);
	free(w);
	return -1;
}

void toe_xrt_close(struct toe_xrt *be)
{
	if (!be)
		return;
	if (be->tcp && be->programmed && be->ip[TOE_KID_GTOE]) {
		/* role tcp: every connection closed (FIN) at the next tick before the kernels are held,
		 * so the exchange sees an orderly end rather than silence */
		struct timespec ts;
		uint32_t i;
		for (i = 0; i < be->ngconn; i++)
			be->ops->reg_write(be->ip[TOE_KID_GTOE], TOE_GTOE_CONN(i, TOE_GTOE_CE_CTRL), be->gaccept[i]);
		clock_gettime(CLOCK_REALTIME, &ts);
		if (toe_xrt_set_time(be, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) == 0)
			sleep_ms(2);
	}
	hold_all(be);
	release(be);
	free(be);
}

/* ---- the ring ------------------------------------------------------------------- */

static int sync_range(struct toe_xrt *be, uint32_t ch, uint32_t slot, uint32_t n)
{
	int r;
	if (!n)
		return 0;
	r = be->ops->bo_sync(be->bo[ch], TOE_SYNC_FROM_DEVICE, (uint64_t)slot * TOE_RECORD_SIZE,
			     (uint64_t)n * TOE_RECORD_SIZE);
	if (r < 0)
		return fail(be, "%s: syncing %u records of ring channel %u from slot %u failed: %s", be->where, n, ch,
			    slot, strerror(-r));
	be->st.syncs++;
	be->st.sync_bytes += (uint64_t)n * TOE_RECORD_SIZE;
	return 0;
}

int toe_xrt_poll(struct toe_xrt *be, union toe_record *out, int max)
{
	uint32_t w, avail, n, ch, i, total = 4u * be->slots;

	be->st.polls++;
	if (rr(be, TOE_KID_HBM, TOE_STAT(TOE_HBM_ST_WRITE_INDEX), &w) < 0)
		return -1;
	avail = w - be->rd;
	if (avail == 0 || max <= 0) {
		be->st.empty_polls += avail == 0;
		return 0;
	}
	if (avail > total)
		return fail(be, "%s: hbm_writer_top's write index %u is %u records past the read index %u, more than the "
				"ring holds (%u): the writer was restarted or its state is corrupt", be->where, w, avail,
			    be->rd, total);
	if (avail > be->st.max_backlog)
		be->st.max_backlog = avail;
	n = avail < (uint32_t)max ? avail : (uint32_t)max;

	/* each channel's new records are consecutive slots, wrapping at most once */
	for (ch = 0; ch < NCH; ch++) {
		uint32_t first = (ch - be->rd) & 3u; /* offset of the first record of this channel */
		uint32_t cnt, s0, part;
		if (first >= n)
			continue;
		cnt = (n - first + 3u) / 4u;
		s0 = ((be->rd + first) >> 2) & (be->slots - 1u);
		part = be->slots - s0 < cnt ? be->slots - s0 : cnt;
		if (sync_range(be, ch, s0, part) < 0)
			return -1;
		if (part < cnt) {
			be->st.wraps++;
			if (sync_range(be, ch, 0, cnt - part) < 0)
				return -1;
		}
	}
	for (i = 0; i < n; i++) {
		uint32_t k = be->rd + i, slot = (k >> 2) & (be->slots - 1u);
		memcpy(out[i].bytes, be->map[k & 3u] + (size_t)slot * TOE_RECORD_SIZE, TOE_RECORD_SIZE);
		if ((out[i].hdr.type < TOE_REC_TRADE || out[i].hdr.type > TOE_REC_RESET) &&
		    out[i].hdr.type != TOE_REC_CARD_SESS) /* the session's own (rx_sess.h): handed out too */
			be->st.bad_records++;
	}
	be->rd += n;
	be->st.records += n;
	if (rw(be, TOE_KID_HBM, TOE_CFG(TOE_HBM_CF_READ_INDEX), be->rd) < 0)
		return -1;
	return (int)n;
}

int toe_xrt_set_time(struct toe_xrt *be, uint64_t now_ns)
{
	be->st.time_writes++;
	if (rw(be, TOE_KID_ETH_RX, TOE_CFG(TOE_ETH_CF_TIME_LO), (uint32_t)now_ns) < 0 ||
	    rw(be, TOE_KID_ETH_RX, TOE_CFG(TOE_ETH_CF_TIME_HI), (uint32_t)(now_ns >> 32)) < 0 ||
	    rw(be, TOE_KID_ETH_RX, TOE_CFG(TOE_ETH_CF_TIME_SEQ), ++be->time_seq) < 0)
		return -1;
	/* the other ports stamp their frames with the same clock (port 0's eth_rx_top alone ticks) */
	for (uint32_t n = 1; n < TOE_HW_MAX_PORTS; n++) {
		uint32_t k = TOE_KID_ETH_PORT(n);
		if (!(be->ports >> n & 1u))
			continue;
		if (rw(be, k, TOE_CFG(TOE_ETH_CF_TIME_LO), (uint32_t)now_ns) < 0 ||
		    rw(be, k, TOE_CFG(TOE_ETH_CF_TIME_HI), (uint32_t)(now_ns >> 32)) < 0 ||
		    rw(be, k, TOE_CFG(TOE_ETH_CF_TIME_SEQ), be->time_seq) < 0)
			return -1;
	}
	return 0;
}

/* ---- counters ------------------------------------------------------------------- */

#define NAME_STR(name) #name,
static const char *const eth_names[] = { TOE_ETH_CTRS(NAME_STR) };
static const char *const mtoe_names[] = { TOE_MTOE_CTRS(NAME_STR) };
static const char *const mtoe_stat_names[] = { TOE_MTOE_STATS(NAME_STR) };
static const char *const udp_names[] = { TOE_UDP_CTRS(NAME_STR) };
static const char *const fast_names[] = { TOE_FAST_CTRS(NAME_STR) };
static const char *const fast_hw_names[] = { TOE_FAST_HW_CTRS(NAME_STR) };
static const char *const hbm_names[] = { TOE_HBM_CTRS(NAME_STR) };
static const char *const gtoe_names[] = { TOE_GTOE_CTRS(NAME_STR) };
static const char *const gtoe_stat_names[] = { GTOE_STATS_FIELDS(NAME_STR) };
static const char *const gtoe_arp_names[] = { NET_ARP_STATS(NAME_STR) };
static const char *const txarb_names[] = { TOE_TXARB_CTRS(NAME_STR) };
#undef NAME_STR
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Name of counter i of kernel kid into buf; 0 when the slot is unused. */
static int ctr_name(uint32_t kid, uint32_t i, char *buf, size_t len)
{
	static const char *net_names[NET_STATS_COUNT];
	const char *n = NULL;
	if (!net_names[0]) {
		struct net_stats z;
		uint64_t v[NET_STATS_COUNT];
		memset(&z, 0, sizeof z);
		net_stats_table(&z, net_names, v, NET_STATS_COUNT);
	}
	switch (kid) {
	case TOE_KID_ETH_RX:
		if (i < NELEM(eth_names))
			n = eth_names[i];
		else if (i >= TOE_ETH_CTR_NET && i - TOE_ETH_CTR_NET < NET_STATS_COUNT)
			n = net_names[i - TOE_ETH_CTR_NET];
		break;
	case TOE_KID_MTOE:
		if (i < NELEM(mtoe_names))
			n = mtoe_names[i];
		else if (i >= TOE_MTOE_CTR_STATS && i - TOE_MTOE_CTR_STATS < NELEM(mtoe_stat_names))
			n = mtoe_stat_names[i - TOE_MTOE_CTR_STATS];
		break;
	case TOE_KID_UDP:
		if (i < NELEM(udp_names))
			n = udp_names[i];
		break;
	case TOE_KID_FAST:
		if (i < NELEM(fast_names))
			n = fast_names[i];
		else if (i >= TOE_FAST_CTR_HW && i - TOE_FAST_CTR_HW < NELEM(fast_hw_names))
			n = fast_hw_names[i - TOE_FAST_CTR_HW];
		else if (i > TOE_FAST_CTR_ERR && i - TOE_FAST_CTR_ERR < FAST_ERR_COUNT) {
			snprintf(buf, len, "%s.err.%s", kname[kid], fast_err_name((int)(i - TOE_FAST_CTR_ERR)));
			return 1;
		}
		break;
	case TOE_KID_HBM:
		if (i < NELEM(hbm_names))
			n = hbm_names[i];
		break;
	case TOE_KID_GTOE:
		/* struct gtoe_stats and the ARP counters under their own prefix: some names repeat */
		if (i < NELEM(gtoe_names))
			n = gtoe_names[i];
		else if (i >= TOE_GTOE_CTR_STATS && i - TOE_GTOE_CTR_STATS < NELEM(gtoe_stat_names)) {
			snprintf(buf, len, "%s.gtoe.%s", kname[kid], gtoe_stat_names[i - TOE_GTOE_CTR_STATS]);
			return 1;
		} else if (i >= TOE_GTOE_CTR_ARP && i - TOE_GTOE_CTR_ARP < NELEM(gtoe_arp_names)) {
			snprintf(buf, len, "%s.arp.%s", kname[kid], gtoe_arp_names[i - TOE_GTOE_CTR_ARP]);
			return 1;
		}
		break;
	case TOE_KID_TXARB:
		if (i < NELEM(txarb_names))
			n = txarb_names[i];
		break;
	}
	if (!n)
		return 0;
	snprintf(buf, len, "%s.%s", kname[kid], n);
	return 1;
}

static void put_ctr(struct toe_xrt_counter *out, uint32_t cap, uint32_t *k, const char *name, uint64_t v)
{
	if (*k >= cap)
		return;
	snprintf(out[*k].name, sizeof out[*k].name, "%s", name);
	out[*k].value = v;
	(*k)++;
}

int toe_xrt_counters(struct toe_xrt *be, struct toe_xrt_counter *out, uint32_t cap)
{
	static const struct {
		const char *name;
		uint32_t off;
	} cmac[] = {
		{ "tx_packets", TOE_CMAC_TX_TOTAL_PACKETS },    { "tx_bytes", TOE_CMAC_TX_TOTAL_BYTES },
		{ "rx_packets", TOE_CMAC_RX_TOTAL_PACKETS },    { "rx_good_packets", TOE_CMAC_RX_TOTAL_GOOD_PACKETS },
		{ "rx_bytes", TOE_CMAC_RX_TOTAL_BYTES },        { "rx_bad_fcs", TOE_CMAC_RX_TOTAL_BAD_FCS },
	};
	char name[TOE_XRT_CTR_NAME];
	uint32_t k = 0, kid, i, v, nctr, st;
	uint64_t c;
	int up;

	up = toe_xrt_link(be, &st);
	if (up < 0)
		return -1;
	if (!be->no_cmac) {
		put_ctr(out, cap, &k, "cmac_0.link_up", (uint64_t)up);
		put_ctr(out, cap, &k, "cmac_0.rx_status", st);
		/* the statistics latch on a tick: then read 48-bit values */
		if (rw(be, KID_CMAC, TOE_CMAC_STAT_PM_TICK, 1) < 0)
			return -1;
	}
	for (i = 0; i < NELEM(cmac) && !be->no_cmac; i++) {
		uint32_t lo, hi;
		if (rr(be, KID_CMAC, cmac[i].off, &lo) < 0 || rr(be, KID_CMAC, cmac[i].off + 4, &hi) < 0)
			return -1;
		snprintf(name, sizeof name, "cmac_0.%s", cmac[i].name);
		put_ctr(out, cap, &k, name, (uint64_t)(hi & 0xffffu) << 32 | lo);
	}
	for (kid = 1; kid < KID_CMAC; kid++) {
		if (!in_use(be, kid))
			continue;
		if (rr(be, kid, TOE_STAT(TOE_ST_STATUS), &v) < 0)
			return -1;
		snprintf(name, sizeof name, "%s.status", kname[kid]);
		put_ctr(out, cap, &k, name, v);
		if (rr(be, kid, TOE_STAT(TOE_ST_NCTR), &nctr) < 0)
			return -1;
		if (nctr > (TOE_STAT_WORDS - TOE_ST_CTR0) / 2)
			nctr = (TOE_STAT_WORDS - TOE_ST_CTR0) / 2;
		for (i = 0; i < nctr; i++) {
			if (!ctr_name(kid, i, name, sizeof name))
				continue;
			if (ctr64(be, kid, TOE_CTR_LO(i), &c) < 0)
				return -1;
			put_ctr(out, cap, &k, name, c);
		}
	}
	/* ports 1..3: their eth_rx_tops' counters, named by CU ("eth_rx_top_2.frames") */
	for (kid = 1; kid < TOE_HW_MAX_PORTS; kid++) {
		uint32_t pk = TOE_KID_ETH_PORT(kid);
		char cn[TOE_XRT_CTR_NAME];
		if (!(be->ports >> kid & 1u))
			continue;
		if (rr(be, pk, TOE_STAT(TOE_ST_STATUS), &v) < 0)
			return -1;
		snprintf(name, sizeof name, "%s.status", port_kname[kid]);
		put_ctr(out, cap, &k, name, v);
		for (i = 0; i < TOE_ETH_CTR_NET + NET_STATS_COUNT; i++) {
			if (!ctr_name(TOE_KID_ETH_RX, i, cn, sizeof cn))
				continue;
			if (ctr64(be, pk, TOE_CTR_LO(i), &c) < 0)
				return -1;
			snprintf(name, sizeof name, "%s%s", port_kname[kid], cn + strlen("eth_rx_top"));
			put_ctr(out, cap, &k, name, c);
		}
	}
	if (rr(be, TOE_KID_HBM, TOE_STAT(TOE_HBM_ST_WRITE_INDEX), &v) < 0)
		return -1;
	put_ctr(out, cap, &k, "hbm_writer_top.write_index", v);
	put_ctr(out, cap, &k, "host.read_index", be->rd);
	put_ctr(out, cap, &k, "host.polls", be->st.polls);
	put_ctr(out, cap, &k, "host.empty_polls", be->st.empty_polls);
	put_ctr(out, cap, &k, "host.records", be->st.records);
	put_ctr(out, cap, &k, "host.syncs", be->st.syncs);
	put_ctr(out, cap, &k, "host.sync_bytes", be->st.sync_bytes);
	put_ctr(out, cap, &k, "host.wraps", be->st.wraps);
	put_ctr(out, cap, &k, "host.bad_records", be->st.bad_records);
	put_ctr(out, cap, &k, "host.max_backlog", be->st.max_backlog);
	put_ctr(out, cap, &k, "host.time_writes", be->st.time_writes);
	if (be->tcp) {
		put_ctr(out, cap, &k, "host.tx_msgs", be->st.tx_msgs);
		put_ctr(out, cap, &k, "host.tx_bytes", be->st.tx_bytes);
		put_ctr(out, cap, &k, "host.tx_down", be->st.tx_down);
		put_ctr(out, cap, &k, "host.tx_partial", be->st.tx_partial);
		put_ctr(out, cap, &k, "host.tx_late", be->st.tx_late);
		put_ctr(out, cap, &k, "host.tx_dropped", be->st.tx_dropped);
	}
	return (int)k;
}

/* ---- role = tcp: gtoe_top's connection table, state and TX mailbox ---------------------- */

uint32_t toe_xrt_tcp_entries(const struct toe_xrt *be)
{
	return be->tcp ? be->ngconn : 0;
}

int toe_xrt_tcp_conn(struct toe_xrt *be, uint32_t i, struct toe_xrt_tcpconn *c)
{
	uint32_t w[16], k;
	if (!be->tcp || i >= be->ngconn)
		return fail(be, "no connection table entry %u (%u entries)", i, toe_xrt_tcp_entries(be));
	for (k = 0; k <= TOE_GTOE_CS_ATTEMPTS; k++)
		if (rr(be, TOE_KID_GTOE, TOE_GTOE_CST(i, k), &w[k]) < 0)
			return -1;
	memset(c, 0, sizeof *c);
	c->phase = w[TOE_GTOE_CS_PHASE];
	c->state = w[TOE_GTOE_CS_STATE];
	c->srtt_us = w[TOE_GTOE_CS_SRTT_US];
	c->cwnd = w[TOE_GTOE_CS_CWND];
	c->snd_wnd = w[TOE_GTOE_CS_SND_WND];
	c->rcv_wnd = w[TOE_GTOE_CS_RCV_WND];
	c->ups = w[TOE_GTOE_CS_UPS];
	c->downs = w[TOE_GTOE_CS_DOWNS];
	c->last_down = w[TOE_GTOE_CS_LAST_DOWN] & 0xffu;
	c->last_reason = w[TOE_GTOE_CS_LAST_DOWN] >> 8;
	c->retrans = w[TOE_GTOE_CS_RETRANS];
	c->bytes_in = (uint64_t)w[TOE_GTOE_CS_BYTES_IN_HI] << 32 | w[TOE_GTOE_CS_BYTES_IN_LO];
	c->bytes_out = (uint64_t)w[TOE_GTOE_CS_BYTES_OUT_HI] << 32 | w[TOE_GTOE_CS_BYTES_OUT_LO];
	c->attempts = w[TOE_GTOE_CS_ATTEMPTS];
	return 0;
}

int toe_xrt_tcp_enable(struct toe_xrt *be, uint32_t i, int on)
{
	if (!be->tcp || i >= be->ngconn)
		return fail(be, "no connection table entry %u (%u entries)", i, toe_xrt_tcp_entries(be));
	return rw(be, TOE_KID_GTOE, TOE_GTOE_CONN(i, TOE_GTOE_CE_CTRL),
		  (on ? TOE_GTOE_CTRL_ENABLE : 0) | be->gaccept[i]);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Post tx_buf[0..tx_len) for entry tx_conn: the data words, TX_CONN, TX_LEN, then a new TX_SEQ. */
static int tx_post(struct toe_xrt *be, uint64_t now_ns)
{
	uint32_t k;
	for (k = 0; k < (be->tx_len + 3) / 4; k++) {
		uint32_t v = 0, b;
		for (b = 0; b < 4 && 4 * k + b < be->tx_len; b++)
			v |= (uint32_t)be->tx_buf[4 * k + b] << (8 * b);
		if (rw(be, TOE_KID_GTOE, TOE_GTOE_REG_TXD + 4 * k, v) < 0)
			return -1;
	}
	be->tx_seq = be->tx_seq + 1 ? be->tx_seq + 1 : 1;
	if (rw(be, TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_CONN), be->tx_conn) < 0 ||
	    rw(be, TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_LEN), be->tx_len) < 0 ||
	    rw(be, TOE_KID_GTOE, TOE_CFG(TOE_GTOE_CF_TX_SEQ), be->tx_seq) < 0)
		return -1;
	be->tx_busy = 1;
	be->tx_late = 0;
	be->tx_posted_ns = now_ns;
	return 0;
}

/* The posted message's answer, if gtoe_top gave it (one look, no wait): 0 not yet, 1 answered (the
 * mailbox is free, or the rest of a partly taken message waits: tx_busy 2), TOE_XRT_TX_DOWN the
 * entry was not connected (its bytes are dropped, counted), -1 on a register error. */
static int tx_answer(struct toe_xrt *be)
{
	uint32_t done, taken;
	if (rr(be, TOE_KID_GTOE, TOE_STAT(TOE_GTOE_ST_TX_DONE), &done) < 0)
		return -1;
	if (done != be->tx_seq)
		return 0; /* gtoe_top takes it at its next invocation: microseconds unless it is busy */
	if (rr(be, TOE_KID_GTOE, TOE_STAT(TOE_GTOE_ST_TX_TAKEN), &taken) < 0)
		return -1;
	be->st.tx_msgs++;
	if (be->tx_late)
		logf_(be, TOE_XRT_LOG_NOTICE, "%s: gtoe_top took TX mailbox message %u after all", be->where, be->tx_seq);
	if (taken == 0xffffffffu) {
		be->st.tx_down++;
		be->st.tx_dropped += be->tx_len; /* a connection that is gone: its session starts afresh */
		be->tx_busy = 0;
		return TOE_XRT_TX_DOWN;
	}
	if (taken > be->tx_len) {
		be->tx_busy = 0;
		return fail(be, "%s: gtoe_top says its send buffer took %u bytes of a %u-byte message", be->where,
			    taken, be->tx_len);
	}
	be->st.tx_bytes += taken;
	if (taken < be->tx_len) {
		/* the send buffer is full: the rest goes again (it was accepted from the caller) */
		memmove(be->tx_buf, be->tx_buf + taken, be->tx_len - taken);
		be->tx_len -= taken;
		be->tx_busy = 2;
		be->tx_zero = taken == 0;
		be->st.tx_partial++;
		return 1;
	}
	be->tx_busy = 0;
	return 1;
}

int toe_xrt_tcp_poll(struct toe_xrt *be, uint64_t now_ns)
{
	int r;
	if (!be->tcp || !be->tx_busy)
		return 0;
	if (be->tx_busy == 2) {
		if (be->tx_zero && now_ns < be->tx_posted_ns + 1000000ull)
			return 0; /* a full send buffer is asked again at most every ms */
		if (tx_post(be, now_ns) < 0)
			return -1;
	}
	r = tx_answer(be);
	if (r < 0)
		return -1;
	if (r == 0 && !be->tx_late && now_ns > be->tx_posted_ns + (uint64_t)TOE_XRT_TX_MS * 1000000ull) {
		/* reported once; the message stays posted (the kernel may yet take it), nothing waits */
		be->tx_late = 1;
		be->st.tx_late++;
		fail(be, "%s: gtoe_top did not take TX mailbox message %u within %u ms (entry %u, %u bytes): the "
			 "kernel is not running; the sessions' bytes wait", be->where, be->tx_seq, TOE_XRT_TX_MS,
		     be->tx_conn, be->tx_len);
		return 1;
	}
	return 0;
}

int toe_xrt_tcp_tx_busy(const struct toe_xrt *be)
{
	return be->tx_busy;
}

void toe_xrt_tcp_forget(struct toe_xrt *be, uint32_t i)
{
	if (be->tx_busy == 2 && be->tx_conn == i) {
		be->st.tx_dropped += be->tx_len;
		be->tx_busy = 0;
	}
}

int toe_xrt_tcp_send(struct toe_xrt *be, uint32_t i, const uint8_t *data, uint32_t len)
{
	uint32_t off = 0;
	uint64_t now = mono_ns();
	if (!be->tcp || i >= be->ngconn)
		return fail(be, "no connection table entry %u (%u entries)", i, toe_xrt_tcp_entries(be));
	if (toe_xrt_tcp_poll(be, now) < 0)
		return -1;
	/* one message at a time: the next piece only once the last was answered in full */
	while (off < len && !be->tx_busy) {
		uint32_t n = len - off < TOE_GTOE_TX_BYTES ? len - off : TOE_GTOE_TX_BYTES;
		int r;
		memcpy(be->tx_buf, data + off, n);
		be->tx_conn = i;
		be->tx_len = n;
		if (tx_post(be, now) < 0)
			return -1;
		r = tx_answer(be);
		if (r == TOE_XRT_TX_DOWN) {
			be->st.tx_dropped -= n; /* not accepted: the caller keeps them */
			return off ? (int)off : TOE_XRT_TX_DOWN;
		}
		if (r < 0)
			return -1;
		off += n; /* posted: taken, or gtoe_top takes it (or its rest) later */
	}
	return (int)off;
}

const struct toe_xrt_host_stats *toe_xrt_host_stats(const struct toe_xrt *be)
{
	return &be->st;
}

uint32_t toe_xrt_ring_slots(const struct toe_xrt *be)
{
	return be->slots;
}

uint64_t toe_xrt_ring_addr(const struct toe_xrt *be, uint32_t ch)
{
	return ch < NCH ? be->addr[ch] : 0;
}

const char *toe_xrt_error(const struct toe_xrt *be)
{
	return be->err;
}
