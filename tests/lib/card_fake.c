/* card_fake.c - a fake U50 running the kernels' C code, with separate device and host buffer copies (see card_fake.h). */
#include "card_fake.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/toe_hw_cfg.h"
#include "hw/toe_regmap.h"
#include "card/card_xclbin.h"
#include "rx/rx_sess.h"

#define NCH TOE_HW_HBM_CHANNELS
#define KID_CMAC TOE_FAKE_KID_CMAC
#define MAX_BOS 64
#define BANK_BASE 0x4000000000ull /* HBM[b] at BANK_BASE + b * BANK_SPAN */
#define BANK_SPAN 0x10000000ull

struct fake_bo {
	struct toe_fake *f;
	uint32_t id, bank;
	uint64_t size, addr;
	uint8_t *dev, *host;
	int to_end; /* the last sync from the device reached the buffer's end */
};

struct fake_ip {
	struct toe_fake *f;
	uint32_t kid;
	uint32_t range; /* register space, as XRT sizes it from the metadata */
	char err[128];
};

struct fake_frame {
	uint8_t *buf;
	uint32_t len;
	uint64_t ts;
	uint32_t port; /* the network port it arrives on (0..3) */
};

struct toe_fake {
	struct toe_fake_cfg cfg;
	char bdf[32], shell[128];
	int opened, loaded;
	struct toe_xclbin *x;
	uint8_t uuid[16];

	/* AXI-Lite windows */
	uint32_t cfgw[TOE_KID_ALL][TOE_CFG_WORDS];
	uint32_t stat[TOE_KID_ALL][TOE_STAT_WORDS];
	uint32_t prog[TOE_FAST_PROG_WORDS];
	uint64_t hbm_addr[NCH];
	uint32_t applied[TOE_KID_ALL], status[TOE_KID_ALL];
	uint32_t role;
	/* the 4 x 10G build: eth_rx_top_2..4 of ports 1..3 ([0] unused) */
	uint32_t pcfgw[TOE_HW_MAX_PORTS][TOE_CFG_WORDS];
	uint32_t pstat[TOE_HW_MAX_PORTS][TOE_STAT_WORDS];
	uint32_t papplied[TOE_HW_MAX_PORTS], pstatus[TOE_HW_MAX_PORTS], prole[TOE_HW_MAX_PORTS];
	uint64_t pframes[TOE_HW_MAX_PORTS], pheld[TOE_HW_MAX_PORTS];

	/* gtoe_top (role tcp): its other windows and the mailbox */
	uint32_t gt_conn[TOE_GTOE_CONN_WORDS];
	uint32_t gt_cst[TOE_GTOE_CST_WORDS];
	uint32_t gt_txd[TOE_GTOE_TXD_WORDS];
	uint32_t gt_room[TOE_HW_GTOE_CONNS];
	uint32_t gt_tx_done, gt_tx_taken;
	int gt_stall;
	uint64_t gt_bytes_out;
	uint64_t gt_ctr[TOE_GTOE_CTR_ARP + (0 NET_ARP_STATS(TOE_CTR_ONE))]; /* set by the test */
	uint8_t *gt_sent[TOE_HW_GTOE_CONNS];
	uint32_t gt_nsent[TOE_HW_GTOE_CONNS];
	uint64_t gt_off[TOE_HW_GTOE_CONNS]; /* stream offset of the connection's next byte (toe_fake_gtoe_data) */
	uint8_t gt_up[TOE_HW_GTOE_CONNS];   /* opened with toe_fake_gtoe_open (not only a phase the test set) */
	uint64_t sess_msgs, sess_records;    /* fast_top's counters of the same names */

	/* cmac_0 */
	uint32_t cmac_rx_reads;
	uint64_t cmac_rx_packets, cmac_rx_bytes;

	/* the pipeline (all kernels but the writer) */
	int built, dirty;
	struct rx_cfg rxc;
	struct fast_prog *dprog;
	struct rx_pipe *pipe;
	struct fast_stream *fs;
	uint32_t nfs;
	uint8_t *mbuf;
	uint64_t mbuf_len;
	uint32_t time_seq;
	uint64_t now;
	uint64_t beats, frames, octets, eth_held, polls, records_out;

	/* hbm_writer_top */
	uint32_t slots, widx, lost;
	uint64_t lost_rx_ns;
	uint64_t w_in, w_written, w_dropped, w_gaps, w_held;

	/* frames waiting */
	struct fake_frame *q;
	uint32_t qhead, qn, qcap;

	/* buffers */
	struct fake_bo *bo[MAX_BOS];
	uint32_t nbo_total;
	uint64_t bank_used[TOE_XCLBIN_MAX_MEMS];

	/* logs */
	struct toe_fake_write *wlog;
	uint32_t nwlog, wcap;
	struct toe_fake_sync *slog;
	uint32_t nslog, scap;
	uint32_t errors;
	char error[512];

	/* faults */
	int fail_armed, failing;    /* toe_fake_fail_when_drained */
};

static void ferr(struct toe_fake *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ferr(struct toe_fake *f, const char *fmt, ...)
{
	va_list ap;
	if (f->errors++ == 0) {
		va_start(ap, fmt);
		vsnprintf(f->error, sizeof f->error, fmt, ap);
		va_end(ap);
	}
}

struct toe_fake *toe_fake_new(const struct toe_fake_cfg *cfg)
{
	struct toe_fake *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	if (cfg)
		f->cfg = *cfg;
	snprintf(f->bdf, sizeof f->bdf, "%s", f->cfg.bdf ? f->cfg.bdf : TOE_FAKE_BDF);
	snprintf(f->shell, sizeof f->shell, "%s", f->cfg.shell ? f->cfg.shell : TOE_FAKE_SHELL);
	f->x = calloc(1, sizeof *f->x);
	f->pipe = calloc(1, sizeof *f->pipe);
	f->dprog = calloc(1, sizeof *f->dprog);
	if (!f->x || !f->pipe || !f->dprog) {
		toe_fake_free(f);
		return NULL;
	}
	for (uint32_t k = 0; k < TOE_KID_ALL; k++)
		f->status[k] = TOE_STATUS_HELD;
	for (uint32_t k = 0; k < TOE_HW_MAX_PORTS; k++)
		f->pstatus[k] = TOE_STATUS_HELD;
	for (uint32_t k = 0; k < TOE_HW_GTOE_CONNS; k++)
		f->gt_room[k] = 0xffffffffu;
	return f;
}

static void free_bo(struct fake_bo *b)
{
	free(b->dev);
	free(b->host);
	free(b);
}

void toe_fake_free(struct toe_fake *f)
{
	uint32_t i;
	if (!f)
		return;
	for (i = 0; i < MAX_BOS; i++)
		if (f->bo[i])
			free_bo(f->bo[i]);
	for (i = f->qhead; i < f->qn; i++)
		free(f->q[i].buf);
	free(f->q);
	for (i = 0; i < TOE_HW_GTOE_CONNS; i++)
		free(f->gt_sent[i]);
	free(f->wlog);
	free(f->slog);
	free(f->fs);
	free(f->mbuf);
	free(f->pipe);
	free(f->dprog);
	free(f->x);
	free(f);
}

/* ---- the kernels ------------------------------------------------------------------- */

/* hbm_writer_top: one 128-byte record into the ring in the buffers' device copies. */
static void dma_write(struct toe_fake *f, uint32_t pos, const union toe_record *r)
{
	uint32_t ch = pos & 3u, slot = pos >> 2, i;
	uint64_t a = f->hbm_addr[ch] + (uint64_t)slot * TOE_RECORD_SIZE;
	for (i = 0; i < MAX_BOS; i++) {
		struct fake_bo *b = f->bo[i];
		if (!b || a < b->addr || a + TOE_RECORD_SIZE > b->addr + b->size)
			continue;
		if (f->cfg.check_banks && b->bank != f->cfg.hbm_bank[ch])
			ferr(f, "hbm_writer_top.hbm%u wrote to address 0x%llx in bank %u; its port reaches bank %u", ch,
			     (unsigned long long)a, b->bank, f->cfg.hbm_bank[ch]);
		memcpy(b->dev + (a - b->addr), r->bytes, TOE_RECORD_SIZE);
		return;
	}
	ferr(f, "hbm_writer_top.hbm%u wrote to address 0x%llx, inside no allocated buffer", ch, (unsigned long long)a);
}

static void writer_put(struct toe_fake *f, const union toe_record *r)
{
	uint32_t total, used, need;
	f->w_in++;
	if (f->status[TOE_KID_HBM] != TOE_STATUS_OK) {
		f->w_held++;
		return;
	}
	total = 4u * f->slots;
	used = f->widx - f->cfgw[TOE_KID_HBM][TOE_HBM_CF_READ_INDEX];
	need = f->lost ? 2u : 1u;
	if (used > total || total - used < need) {
		f->w_dropped++;
		f->lost++;
		f->lost_rx_ns = r->hdr.rx_ns;
		return;
	}
	if (f->lost) {
		union toe_record g;
		memset(&g, 0, sizeof g);
		g.hdr.type = TOE_REC_GAP;
		g.hdr.stream = TOE_HW_STREAM_ALL;
		g.hdr.rx_ns = f->lost_rx_ns;
		g.gap.reason = TOE_GAP_OVERFLOW;
		g.gap.records = f->lost;
		dma_write(f, f->widx & (total - 1u), &g);
		f->widx++;
		f->w_written++;
		f->w_gaps++;
		f->lost = 0;
	}
	dma_write(f, f->widx & (total - 1u), r);
	f->widx++;
	f->w_written++;
}

static void drain(struct toe_fake *f)
{
	struct rx_out out;
	for (;;) {
		memset(&out, 0, sizeof out);
		if (!rx_next(f->pipe, &out))
			break;
		if ((out.kind == RX_OUT_RECORD && out.tick_type > 0) || out.kind == RX_OUT_GAP ||
		    out.kind == RX_OUT_RESET) {
			f->records_out++;
			writer_put(f, &out.tick);
		} else if (out.kind == RX_OUT_SESS) {
			/* a session stream's message or close, as fast_top sends it (rx_sess.h) */
			union toe_record r;
			uint32_t n = rx_sess_records(&out);
			f->sess_msgs++;
			for (uint32_t k = 0; k < n; k++) {
				rx_sess_record(&r, &out, k);
				f->records_out++;
				f->sess_records++;
				writer_put(f, &r);
			}
		}
	}
}

/* All five kernels run: build the pipeline from their decoded words. */
static void build(struct toe_fake *f)
{
	uint32_t i, nudp, mask = 0, nfs;
	uint64_t blen;
	int rc;

	f->built = 0;
	rx_cfg_default(&f->rxc);
	if (toe_hw_eth_decode(f->cfgw[TOE_KID_ETH_RX], &f->rxc.net, &f->role) != 0 ||
	    toe_hw_mtoe_decode(f->cfgw[TOE_KID_MTOE], &f->rxc.mtoe) != 0)
		return; /* their status says so already */
	nudp = f->cfgw[TOE_KID_UDP][TOE_UDP_CF_NPORTS];
	f->rxc.nudp = nudp;
	for (i = 0; i < nudp && i < TOE_HW_UDP_STREAMS; i++) {
		uint32_t w = f->cfgw[TOE_KID_UDP][TOE_UDP_CF_PORT(i)];
		f->rxc.udp[i].port = (uint16_t)w;
		f->rxc.udp[i].framing = (uint8_t)(w >> 16);
		f->rxc.udp[i].in_port = (uint8_t)(w >> 24);
		if (f->rxc.udp[i].framing == FAST_FRAMING_DATAGRAM)
			mask |= 1u << i;
	}
	/* the kernels' views of the streams must agree, as the link relies on */
	if (f->cfgw[TOE_KID_FAST][TOE_FAST_CF_TCP_STREAMS] != f->rxc.mtoe.max_conns ||
	    f->cfgw[TOE_KID_UDP][TOE_UDP_CF_STREAM_BASE] != f->rxc.mtoe.max_conns ||
	    f->cfgw[TOE_KID_FAST][TOE_FAST_CF_NUDP] != nudp || f->cfgw[TOE_KID_FAST][TOE_FAST_CF_DGRAM_MASK] != mask) {
		ferr(f, "kernels disagree on the streams: mirror TOE %u connections, udp_top base %u / %u ports / mask 0x%x, "
			"fast_top %u TCP + %u UDP / mask 0x%x",
		     f->rxc.mtoe.max_conns, f->cfgw[TOE_KID_UDP][TOE_UDP_CF_STREAM_BASE], nudp, mask,
		     f->cfgw[TOE_KID_FAST][TOE_FAST_CF_TCP_STREAMS], f->cfgw[TOE_KID_FAST][TOE_FAST_CF_NUDP],
		     f->cfgw[TOE_KID_FAST][TOE_FAST_CF_DGRAM_MASK]);
		f->status[TOE_KID_FAST] = TOE_STATUS_BAD_CFG;
		return;
	}
	/* session streams (fast_top's SESS_LO/HI) */
	for (i = 0; i < TOE_HW_TCP_STREAMS; i++)
		f->rxc.sess[i] = (uint8_t)((f->cfgw[TOE_KID_FAST][i < 32 ? TOE_FAST_CF_SESS_LO : TOE_FAST_CF_SESS_HI] >>
					    (i & 31)) & 1u);
	/* ports 1..3: each eth_rx_top's own network settings */
	for (i = 1; i < TOE_HW_MAX_PORTS; i++)
		if (f->pstatus[i] == TOE_STATUS_OK)
			toe_hw_eth_decode(f->pcfgw[i], &f->rxc.net_port[i - 1], &f->prole[i]);
	nfs = RX_NSTREAMS(&f->rxc);
	blen = MTOE_BUF_BYTES(f->rxc.mtoe.max_conns, f->rxc.mtoe.window);
	if (blen > TOE_HW_MTOE_BUF || f->rxc.mtoe.max_conns > TOE_HW_TCP_STREAMS) {
		f->status[TOE_KID_MTOE] = TOE_STATUS_BAD_CFG | (uint32_t)(-MTOE_ERR_BUF) << 16;
		return;
	}
	if (nfs > f->nfs) {
		free(f->fs);
		f->fs = calloc(nfs, sizeof *f->fs);
		f->nfs = f->fs ? nfs : 0;
	}
	if (blen > f->mbuf_len || !f->mbuf) {
		free(f->mbuf);
		f->mbuf = malloc(blen ? blen : 1);
		f->mbuf_len = f->mbuf ? blen : 0;
	}
	if (!f->fs || !f->mbuf) {
		ferr(f, "out of memory building the pipeline");
		return;
	}
	rc = rx_init(f->pipe, &f->rxc, f->dprog, f->fs, f->nfs, f->mbuf, f->mbuf_len);
	if (rc != RX_OK) {
		if (rc <= MTOE_ERR_CONNS && rc >= MTOE_ERR_BUF)
			f->status[TOE_KID_MTOE] = TOE_STATUS_BAD_CFG | (uint32_t)(-rc) << 16;
		else
			f->status[TOE_KID_UDP] = TOE_STATUS_BAD_CFG;
		return;
	}
	f->built = 1;
}

/* gtoe_top takes a new APPLY: its words decoded and checked as configure() in gtoe_top.cpp does. */
static void gtoe_apply(struct toe_fake *f)
{
	uint32_t a = f->cfgw[TOE_KID_GTOE][TOE_CF_APPLY], *w = f->cfgw[TOE_KID_GTOE], role;
	struct net_cfg nc;
	struct gtoe_cfg gc;
	if (TOE_KID_GTOE == f->cfg.dead_kid || a == f->applied[TOE_KID_GTOE])
		return;
	f->applied[TOE_KID_GTOE] = a;
	f->gt_tx_done = w[TOE_GTOE_CF_TX_SEQ]; /* a message written before APPLY is not sent */
	f->gt_tx_taken = 0;
	f->gt_bytes_out = 0;
	if (a == 0) {
		f->status[TOE_KID_GTOE] = TOE_STATUS_HELD;
		return;
	}
	gtoe_cfg_default(&gc);
	gc.max_conns = w[TOE_GTOE_CF_MAX_CONNS];
	gc.rcv_buf = w[TOE_GTOE_CF_RCV_BUF];
	gc.snd_buf = w[TOE_GTOE_CF_SND_BUF];
	gc.mss = (uint16_t)w[TOE_ETH_CF_MSS];
	gc.syn_retries = w[TOE_GTOE_CF_SYN_RETRIES];
	gc.isn_key = w[TOE_GTOE_CF_ISN_KEY];
	if (toe_hw_eth_decode(w, &nc, &role) != 0 || nc.naddr == 0)
		f->status[TOE_KID_GTOE] = TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_ADDRS << 16;
	else if (w[TOE_GTOE_CF_NCONNS] > TOE_HW_GTOE_CONNS || w[TOE_GTOE_CF_NCONNS] > w[TOE_GTOE_CF_MAX_CONNS])
		f->status[TOE_KID_GTOE] = TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_CONNS << 16;
	else {
		/* gtoe_init itself judges the settings, with the kernel's buffer size, as gtoe_top does */
		struct gtoe *g = calloc(1, sizeof *g);
		uint8_t *buf = malloc(TOE_HW_GTOE_BUF);
		int ok = g && buf && GTOE_BUF_BYTES(&gc) <= TOE_HW_GTOE_BUF &&
			 gtoe_init(g, &gc, buf, TOE_HW_GTOE_BUF) == GTOE_OK;
		f->status[TOE_KID_GTOE] = ok ? TOE_STATUS_OK : TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_INIT << 16;
		free(g);
		free(buf);
		/* then each entry's limits: at most the kernel-wide MSS and window */
		for (uint32_t i = 0; ok && i < w[TOE_GTOE_CF_NCONNS]; i++) {
			uint32_t m = f->gt_conn[4 * TOE_HW_GTOE_CONNS + 4 * i + TOE_GTOE_CX_MSS];
			uint32_t win = f->gt_conn[4 * TOE_HW_GTOE_CONNS + 4 * i + TOE_GTOE_CX_WINDOW];
			if ((m && (m < 64 || m > gc.mss)) || (win && (win < GTOE_MIN_BUF || win > gc.rcv_buf))) {
				f->status[TOE_KID_GTOE] = TOE_STATUS_BAD_CFG | TOE_GTOE_BAD_ENTRY << 16;
				break;
			}
		}
	}
}

/* A new TX_SEQ: the message of the data window for entry TX_CONN, taken when it is up. */
static void gtoe_mailbox(struct toe_fake *f)
{
	uint32_t *w = f->cfgw[TOE_KID_GTOE], x = w[TOE_GTOE_CF_TX_CONN], len = w[TOE_GTOE_CF_TX_LEN], k;
	gtoe_apply(f);
	if (f->gt_stall || f->status[TOE_KID_GTOE] != TOE_STATUS_OK || w[TOE_GTOE_CF_TX_SEQ] == f->gt_tx_done)
		return;
	f->gt_tx_done = w[TOE_GTOE_CF_TX_SEQ];
	if (len > TOE_GTOE_TX_BYTES)
		len = TOE_GTOE_TX_BYTES;
	if (x >= w[TOE_GTOE_CF_NCONNS] || f->gt_cst[16 * x + TOE_GTOE_CS_PHASE] != 3) {
		f->gt_tx_taken = 0xffffffffu;
		return;
	}
	if (len > f->gt_room[x])
		len = f->gt_room[x];
	if (f->gt_room[x] != 0xffffffffu)
		f->gt_room[x] -= len;
	uint8_t *b = realloc(f->gt_sent[x], f->gt_nsent[x] + len + 1);
	if (!b) {
		ferr(f, "out of memory keeping mailbox bytes");
		return;
	}
	f->gt_sent[x] = b;
	for (k = 0; k < len; k++)
		b[f->gt_nsent[x] + k] = (uint8_t)(f->gt_txd[k / 4] >> (8 * (k % 4)));
	f->gt_nsent[x] += len;
	f->gt_tx_taken = len;
	f->gt_bytes_out += len;
}

/* What each kernel does at the start of an invocation: take a new APPLY. */
static void kernels(struct toe_fake *f)
{
	uint32_t kid, i, j;
	int all = 1;
	gtoe_apply(f);
	for (kid = 1; kid < TOE_KID_COUNT; kid++) {
		uint32_t a = f->cfgw[kid][TOE_CF_APPLY], *w = f->cfgw[kid], st = TOE_STATUS_OK;
		if (kid == f->cfg.dead_kid || a == f->applied[kid])
			continue;
		f->applied[kid] = a;
		f->dirty = 1;
		if (a == 0) {
			f->status[kid] = TOE_STATUS_HELD;
			continue;
		}
		switch (kid) {
		case TOE_KID_HBM:
			f->slots = w[TOE_HBM_CF_RING_SLOTS];
			f->widx = f->lost = 0;
			f->lost_rx_ns = 0;
			f->w_in = f->w_written = f->w_dropped = f->w_gaps = f->w_held = 0;
			if (f->slots == 0 || (f->slots & (f->slots - 1u)) != 0 || f->slots > (1u << 28))
				st = TOE_STATUS_BAD_CFG | (uint32_t)TOE_HBM_BAD_SLOTS << 16;
			break;
		case TOE_KID_FAST: {
			int rc = toe_hw_prog_decode(f->prog, f->dprog);
			if (rc)
				st = TOE_STATUS_BAD_PROG | (uint32_t)rc << 16;
			else if (w[TOE_FAST_CF_TCP_STREAMS] > TOE_HW_TCP_STREAMS || w[TOE_FAST_CF_NUDP] > TOE_HW_UDP_STREAMS)
				st = TOE_STATUS_BAD_CFG | (uint32_t)TOE_FAST_BAD_STREAMS << 16;
			break;
		}
		case TOE_KID_UDP:
			if (w[TOE_UDP_CF_NPORTS] > TOE_HW_UDP_STREAMS)
				st = TOE_STATUS_BAD_CFG;
			for (i = 0; i < w[TOE_UDP_CF_NPORTS] && i < TOE_HW_UDP_STREAMS; i++)
				for (j = 0; j < i; j++)
					if ((uint16_t)w[TOE_UDP_CF_PORT(j)] == (uint16_t)w[TOE_UDP_CF_PORT(i)])
						st = TOE_STATUS_BAD_CFG;
			break;
		case TOE_KID_MTOE:
			if (w[TOE_MTOE_CF_NFLOWS] > TOE_MTOE_MAX_FLOWS)
				st = TOE_STATUS_BAD_CFG | (uint32_t)(-MTOE_ERR_FLOWS) << 16;
			break;
		case TOE_KID_ETH_RX: {
			struct net_cfg nc;
			uint32_t role;
			if (toe_hw_eth_decode(w, &nc, &role) != 0)
				st = TOE_STATUS_BAD_CFG;
			break;
		}
		}
		f->status[kid] = st;
	}
	for (i = 1; i < TOE_HW_MAX_PORTS; i++) {
		uint32_t a = f->pcfgw[i][TOE_CF_APPLY], *w = f->pcfgw[i], role, port;
		struct net_cfg nc;
		if (a == f->papplied[i])
			continue;
		f->papplied[i] = a;
		f->pframes[i] = f->pheld[i] = 0;
		f->dirty = 1;
		port = w[TOE_ETH_CF_PORT] & TOE_ETH_PORT_MASK;
		if (a == 0)
			f->pstatus[i] = TOE_STATUS_HELD;
		else if (toe_hw_eth_decode(w, &nc, &role) != 0)
			f->pstatus[i] = TOE_STATUS_BAD_CFG | (uint32_t)TOE_ETH_BAD_ADDRS << 16;
		else if (port != i || role == TOE_ROLE_TCP)
			f->pstatus[i] = TOE_STATUS_BAD_CFG | (uint32_t)TOE_ETH_BAD_PORT << 16;
		else
			f->pstatus[i] = TOE_STATUS_OK;
	}
	if (!f->dirty)
		return;
	for (kid = 1; kid < TOE_KID_COUNT; kid++)
		if (f->applied[kid] == 0)
			all = 0;
	if (!all) {
		f->built = 0;
		return;
	}
	f->dirty = 0;
	f->beats = f->frames = f->octets = f->eth_held = f->polls = f->records_out = 0;
	f->sess_msgs = f->sess_records = 0;
	for (kid = 1; kid < TOE_KID_COUNT; kid++)
		if (f->status[kid] != TOE_STATUS_OK) {
			f->built = 0;
			return;
		}
	build(f);
}

static int eth_runs(const struct toe_fake *f)
{
	return f->built && f->status[TOE_KID_ETH_RX] == TOE_STATUS_OK;
}

/* Port n's eth_rx_top (n 1..3) runs: the 4 x 10G xclbin is loaded and it took a good configuration. */
static int port_runs(const struct toe_fake *f, uint32_t n)
{
	return eth_runs(f) && n < TOE_HW_MAX_PORTS && f->pstatus[n] == TOE_STATUS_OK;
}

int toe_fake_frame(struct toe_fake *f, const uint8_t *frame, uint32_t len, uint64_t ts_ns)
{
	if (f->qn == f->qcap) {
		uint32_t cap = f->qcap ? 2 * f->qcap : 256;
		struct fake_frame *q = realloc(f->q, cap * sizeof *q);
		if (!q)
			return -ENOMEM;
		f->q = q;
		f->qcap = cap;
	}
	f->q[f->qn].buf = malloc(len ? len : 1);
	if (!f->q[f->qn].buf)
		return -ENOMEM;
	memcpy(f->q[f->qn].buf, frame, len);
	f->q[f->qn].len = len;
	f->q[f->qn].ts = ts_ns;
	f->q[f->qn].port = 0;
	f->qn++;
	return 0;
}

int toe_fake_frame_port(struct toe_fake *f, uint32_t port, const uint8_t *frame, uint32_t len, uint64_t ts_ns)
{
	int r;
	if (port >= TOE_HW_MAX_PORTS)
		return -EINVAL;
	r = toe_fake_frame(f, frame, len, ts_ns);
	if (r == 0)
		f->q[f->qn - 1].port = port;
	return r;
}

uint32_t toe_fake_run(struct toe_fake *f, uint32_t max)
{
	uint32_t n = 0;
	kernels(f);
	while (n < max && f->qhead < f->qn) {
		struct fake_frame *fr = &f->q[f->qhead++];
		if (fr->port) {
			/* another lane of the breakout: its own eth_rx_top, not the CMAC */
			f->pframes[fr->port]++;
			if (port_runs(f, fr->port)) {
				rx_frame_port(f->pipe, fr->port, fr->buf, fr->len, fr->ts ? fr->ts : f->now, NET_CSUM_UNKNOWN);
				drain(f);
			} else {
				f->pheld[fr->port]++;
			}
			free(fr->buf);
			fr->buf = NULL;
			n++;
			continue;
		}
		f->frames++;
		f->octets += fr->len;
		f->beats += (fr->len + 63u) / 64u;
		f->cmac_rx_packets++;
		f->cmac_rx_bytes += fr->len + 4u; /* the MAC counts the FCS */
		if (eth_runs(f)) {
			rx_frame(f->pipe, fr->buf, fr->len, fr->ts ? fr->ts : f->now);
			drain(f);
		} else {
			f->eth_held++;
		}
		free(fr->buf);
		fr->buf = NULL;
		n++;
	}
	if (f->qhead == f->qn)
		f->qhead = f->qn = 0;
	return n;
}

uint32_t toe_fake_pending(const struct toe_fake *f)
{
	return f->qn - f->qhead;
}

void toe_fake_fail_when_drained(struct toe_fake *f)
{
	f->fail_armed = 1;
}

int toe_fake_failing(const struct toe_fake *f)
{
	return f->failing;
}

/* toe_fake_fail_when_drained: 1 once the registers fail (with no text of
 * their own: the caller sees the bare errno, as from a driver that lost the
 * device). */
static int regs_fail(struct toe_fake *f, struct fake_ip *ip)
{
	if (f->fail_armed && !f->failing && toe_fake_pending(f) == 0 &&
	    f->cfgw[TOE_KID_HBM][TOE_HBM_CF_READ_INDEX] == f->widx)
		f->failing = 1;
	if (!f->failing)
		return 0;
	ip->err[0] = 0;
	return 1;
}

/* A TIME_SEQ write: one timer tick at the host's clock. */
static void time_tick(struct toe_fake *f)
{
	uint32_t *w = f->cfgw[TOE_KID_ETH_RX];
	f->now = (uint64_t)w[TOE_ETH_CF_TIME_HI] << 32 | w[TOE_ETH_CF_TIME_LO];
	kernels(f);
	if (!eth_runs(f))
		return;
	f->polls++;
	rx_poll(f->pipe, f->now);
	drain(f);
}

/* ---- status windows ------------------------------------------------------------------ */

static void put_ctr(uint32_t *stat, uint32_t i, uint64_t v)
{
	stat[TOE_ST_CTR0 + 2 * i] = (uint32_t)v;
	stat[TOE_ST_CTR0 + 2 * i + 1] = (uint32_t)(v >> 32);
}

/* The port (1..3) of a kernel id (TOE_KID_ETH_PORT), or 0. */
static uint32_t fake_port(uint32_t kid)
{
	for (uint32_t n = 1; n < TOE_HW_MAX_PORTS; n++)
		if (kid == (uint32_t)TOE_KID_ETH_PORT(n))
			return n;
	return 0;
}

/* Port n's eth_rx_top: the header, its port, frames and held frames (other counters 0). */
static void fill_port_stat(struct toe_fake *f, uint32_t n)
{
	uint32_t *s = f->pstat[n];
	memset(s, 0, sizeof f->pstat[n]);
	s[TOE_ST_MAGIC] = TOE_HW_MAGIC;
	s[TOE_ST_VERSION] = TOE_REGMAP_VERSION;
	s[TOE_ST_KERNEL] = TOE_KID_ETH_RX;
	s[TOE_ST_APPLIED] = f->papplied[n];
	s[TOE_ST_STATUS] = f->pstatus[n];
	s[TOE_ST_NCTR] = TOE_ETH_CTR_NET + NET_STATS_COUNT;
	s[TOE_ETH_ST_PORT] = f->pcfgw[n][TOE_ETH_CF_PORT] & TOE_ETH_PORT_MASK;
	put_ctr(s, 1, f->pframes[n]);
	put_ctr(s, 4, f->pheld[n]);
}

static void fill_stat(struct toe_fake *f, uint32_t kid)
{
	uint32_t *s = f->stat[kid], i = 0, nctr = 0, e, sid;
	const struct rx_pipe *p = f->built ? f->pipe : NULL;
	static const struct rx_stats zero_rx;
	const struct rx_stats *st = p ? &p->st : &zero_rx;

	memset(s, 0, sizeof f->stat[kid]);
	switch (kid) {
	case TOE_KID_ETH_RX: {
		const char *names[NET_STATS_COUNT];
		uint64_t vals[NET_STATS_COUNT];
		struct net_stats z;
		memset(&z, 0, sizeof z);
		put_ctr(s, 0, f->beats);
		put_ctr(s, 1, f->frames);
		put_ctr(s, 2, f->octets);
		put_ctr(s, 4, f->eth_held);
		put_ctr(s, 5, st->tcp);
		put_ctr(s, 6, st->udp);
		put_ctr(s, 7, f->polls);
		net_stats_table(p ? &p->net : &z, names, vals, NET_STATS_COUNT);
		for (i = 0; i < NET_STATS_COUNT; i++) {
			/* the listen table lives in udp_top: its counters are counted there */
			if (!strcmp(names[i], "udp.delivered") || !strcmp(names[i], "udp.drop_udp_port"))
				vals[i] = 0;
			put_ctr(s, TOE_ETH_CTR_NET + i, vals[i]);
		}
		nctr = TOE_ETH_CTR_NET + NET_STATS_COUNT;
		break;
	}
	case TOE_KID_MTOE:
		put_ctr(s, 0, st->tcp);
		put_ctr(s, 1, f->polls);
		put_ctr(s, 2, st->opens + st->closes + st->data_events + st->gaps - st->gaps_decode); /* mtoe's gaps */
		put_ctr(s, 3, p ? p->mtoe.st.bytes : 0);
		i = TOE_MTOE_CTR_STATS;
		if (p) {
#define FAKE_MTOE(name) put_ctr(s, i++, p->mtoe.st.name);
			TOE_MTOE_STATS(FAKE_MTOE)
#undef FAKE_MTOE
		}
		nctr = TOE_MTOE_CTR_STATS + TOE_NCTR(TOE_MTOE_STATS);
		break;
	case TOE_KID_UDP: {
		uint64_t bytes = 0;
		for (sid = p ? p->cfg.mtoe.max_conns : 0; p && sid < p->nstreams; sid++)
			bytes += p->sst[sid].bytes;
		put_ctr(s, 0, st->udp);
		put_ctr(s, 1, p ? p->net.udp.delivered : 0);
		put_ctr(s, 2, p ? p->net.udp.drop_udp_port : 0);
		put_ctr(s, 3, bytes);
		nctr = TOE_NCTR(TOE_UDP_CTRS);
		break;
	}
	case TOE_KID_FAST:
#define FAKE_FAST(name) put_ctr(s, i++, st->name);
		TOE_FAST_CTRS(FAKE_FAST)
#undef FAKE_FAST
		put_ctr(s, TOE_FAST_CTR_HW, st->data_events + st->udp_listened + st->opens + st->closes + st->gaps -
						    st->gaps_decode);
		put_ctr(s, TOE_FAST_CTR_HW + 1, f->records_out);
		put_ctr(s, TOE_FAST_CTR_HW + 3, f->sess_msgs);
		put_ctr(s, TOE_FAST_CTR_HW + 4, f->sess_records);
		for (e = 0; p && e < FAST_ERR_COUNT; e++) {
			uint64_t n = 0;
			for (sid = 0; sid < p->nstreams; sid++)
				n += p->fs[sid].step.errors[e] + p->fs[sid].dec.errors[e];
			put_ctr(s, TOE_FAST_CTR_ERR + e, n);
		}
		nctr = TOE_FAST_CTR_ERR + TOE_FAST_ERR_SLOTS;
		break;
	case TOE_KID_GTOE:
		for (i = 0; i < sizeof f->gt_ctr / sizeof f->gt_ctr[0]; i++)
			put_ctr(s, i, f->gt_ctr[i]);
		put_ctr(s, 10, f->gt_bytes_out); /* bytes_out: application bytes taken from the mailbox */
		s[TOE_GTOE_ST_TX_DONE] = f->gt_tx_done;
		s[TOE_GTOE_ST_TX_TAKEN] = f->gt_tx_taken;
		nctr = TOE_GTOE_CTR_ARP + (0 NET_ARP_STATS(TOE_CTR_ONE));
		break;
	case TOE_KID_TXARB:
		nctr = TOE_NCTR(TOE_TXARB_CTRS);
		break;
	case TOE_KID_HBM:
		put_ctr(s, 0, f->w_in);
		put_ctr(s, 1, f->w_written);
		put_ctr(s, 2, f->w_dropped);
		put_ctr(s, 3, f->w_gaps);
		put_ctr(s, 4, f->w_held);
		s[TOE_HBM_ST_WRITE_INDEX] = f->widx;
		nctr = TOE_NCTR(TOE_HBM_CTRS);
		break;
	}
	s[TOE_ST_MAGIC] = kid == f->cfg.bad_magic_kid ? 0xdeadbeefu : TOE_HW_MAGIC;
	s[TOE_ST_VERSION] = kid == f->cfg.bad_version_kid ? TOE_REGMAP_VERSION + 1 : TOE_REGMAP_VERSION;
	s[TOE_ST_KERNEL] = kid;
	s[TOE_ST_APPLIED] = kid == TOE_KID_TXARB ? 1 : f->applied[kid];
	s[TOE_ST_STATUS] = kid == TOE_KID_TXARB ? TOE_STATUS_OK : f->status[kid];
	s[TOE_ST_NCTR] = nctr;
}

/* ---- registers ----------------------------------------------------------------------- */

static void log_write(struct toe_fake *f, uint32_t kid, uint32_t off, uint32_t val)
{
	if (f->nwlog == f->wcap) {
		uint32_t cap = f->wcap ? 2 * f->wcap : 4096;
		struct toe_fake_write *w = realloc(f->wlog, cap * sizeof *w);
		if (!w)
			return;
		f->wlog = w;
		f->wcap = cap;
	}
	f->wlog[f->nwlog].kid = kid;
	f->wlog[f->nwlog].off = off;
	f->wlog[f->nwlog].val = val;
	f->nwlog++;
}

static int cmac_read(struct toe_fake *f, uint32_t off, uint32_t *v)
{
	*v = 0;
	switch (off) {
	case TOE_CMAC_STAT_RX_STATUS:
		f->cmac_rx_reads++;
		if (f->cfg.link_after_reads >= 0 && f->cmac_rx_reads > (uint32_t)f->cfg.link_after_reads)
			*v = 0x3u; /* status, aligned */
		break;
	case TOE_CMAC_RX_TOTAL_PACKETS:
	case TOE_CMAC_RX_TOTAL_GOOD_PACKETS:
		*v = (uint32_t)f->cmac_rx_packets;
		break;
	case TOE_CMAC_RX_TOTAL_PACKETS + 4:
	case TOE_CMAC_RX_TOTAL_GOOD_PACKETS + 4:
		*v = (uint32_t)(f->cmac_rx_packets >> 32) & 0xffffu;
		break;
	case TOE_CMAC_RX_TOTAL_BYTES:
		*v = (uint32_t)f->cmac_rx_bytes;
		break;
	case TOE_CMAC_RX_TOTAL_BYTES + 4:
		*v = (uint32_t)(f->cmac_rx_bytes >> 32) & 0xffffu;
		break;
	default:
		break;
	}
	return 0;
}

/* What XRT's ip checks before a register read or write (op: "read", "write"): refused, failing, outside the
 * kernel's range, unaligned. 0, or the error to return. */
static int reg_check(struct fake_ip *ip, uint32_t off, const char *op)
{
	struct toe_fake *f = ip->f;
	if (f->cfg.refuse_regs) {
		snprintf(ip->err, sizeof ip->err, "failed to %s ip(%u): Operation not permitted", op, ip->kid);
		return -EPERM;
	}
	if (regs_fail(f, ip))
		return -EIO;
	if ((uint64_t)off + 4 > ip->range) {
		snprintf(ip->err, sizeof ip->err, "Cannot read or write outside kernel register space");
		return -EIO;
	}
	ip->err[0] = 0;
	if (off % 4) {
		ferr(f, "unaligned %s of register 0x%x of kernel %u", op, off, ip->kid);
		return -EINVAL;
	}
	return 0;
}

static int reg_read(void *h, uint32_t off, uint32_t *v)
{
	struct fake_ip *ip = h;
	struct toe_fake *f = ip->f;
	uint32_t kid = ip->kid;
	*v = 0;
	int rc = reg_check(ip, off, "read");
	if (rc)
		return rc;
	if (kid == KID_CMAC)
		return cmac_read(f, off, v);
	if (fake_port(kid)) {
		uint32_t n = fake_port(kid);
		if (off >= TOE_REG_STAT && off < TOE_REG_STAT + 4 * TOE_STAT_WORDS) {
			kernels(f);
			fill_port_stat(f, n);
			*v = f->pstat[n][(off - TOE_REG_STAT) / 4];
		} else if (off >= TOE_REG_CFG && off < TOE_REG_CFG + 4 * TOE_CFG_WORDS) {
			*v = f->pcfgw[n][(off - TOE_REG_CFG) / 4];
		} else {
			ferr(f, "read of unmapped register 0x%x of kernel %u", off, kid);
		}
		return 0;
	}
	if (off >= TOE_REG_STAT && off < TOE_REG_STAT + 4 * TOE_STAT_WORDS) {
		kernels(f);
		fill_stat(f, kid);
		*v = f->stat[kid][(off - TOE_REG_STAT) / 4];
	} else if (off >= TOE_REG_CFG && off < TOE_REG_CFG + 4 * TOE_CFG_WORDS && kid != TOE_KID_TXARB) {
		*v = f->cfgw[kid][(off - TOE_REG_CFG) / 4];
	} else if (kid == TOE_KID_GTOE && off >= TOE_GTOE_REG_CONN && off < TOE_GTOE_REG_CONN + 4 * TOE_GTOE_CONN_WORDS) {
		*v = f->gt_conn[(off - TOE_GTOE_REG_CONN) / 4];
	} else if (kid == TOE_KID_GTOE && off >= TOE_GTOE_REG_CST && off < TOE_GTOE_REG_CST + 4 * TOE_GTOE_CST_WORDS) {
		*v = f->gt_cst[(off - TOE_GTOE_REG_CST) / 4];
	} else if (kid == TOE_KID_GTOE && off >= TOE_GTOE_REG_TXD && off < TOE_GTOE_REG_TXD + 4 * TOE_GTOE_TXD_WORDS) {
		*v = f->gt_txd[(off - TOE_GTOE_REG_TXD) / 4];
	} else {
		ferr(f, "read of unmapped register 0x%x of kernel %u", off, kid);
	}
	return 0;
}

static int reg_write(void *h, uint32_t off, uint32_t v)
{
	struct fake_ip *ip = h;
	struct toe_fake *f = ip->f;
	uint32_t kid = ip->kid;
	int rc = reg_check(ip, off, "write");
	if (rc)
		return rc;
	log_write(f, kid, off, v);
	if (kid == KID_CMAC)
		return 0; /* enables, RS-FEC, PM tick: the fake's statistics are always current */
	if (fake_port(kid)) {
		if (off >= TOE_REG_CFG && off < TOE_REG_CFG + 4 * TOE_CFG_WORDS)
			f->pcfgw[fake_port(kid)][(off - TOE_REG_CFG) / 4] = v; /* its TIME_SEQ stamps only: no tick */
		else
			ferr(f, "write of %s register 0x%x of kernel %u", off >= TOE_REG_STAT &&
			     off < TOE_REG_STAT + 4 * TOE_STAT_WORDS ? "read-only status" : "unmapped", off, kid);
		return 0;
	}
	if (off >= TOE_REG_CFG && off < TOE_REG_CFG + 4 * TOE_CFG_WORDS && kid != TOE_KID_TXARB) {
		uint32_t w = (off - TOE_REG_CFG) / 4, old = f->cfgw[kid][w];
		f->cfgw[kid][w] = v;
		if (kid == TOE_KID_ETH_RX && w == TOE_ETH_CF_TIME_SEQ && v != old)
			time_tick(f);
		if (kid == TOE_KID_GTOE && w == TOE_GTOE_CF_TX_SEQ)
			gtoe_mailbox(f);
	} else if (kid == TOE_KID_GTOE && off >= TOE_GTOE_REG_CONN && off < TOE_GTOE_REG_CONN + 4 * TOE_GTOE_CONN_WORDS) {
		uint32_t k = (off - TOE_GTOE_REG_CONN) / 4, old = f->gt_conn[k];
		f->gt_conn[k] = v;
		/* an up connection whose enable bit is cleared closes (FIN): CLOSE on its stream */
		if (k % 4 == 3 && (old & 1u) && !(v & 1u) && f->gt_up[k / 4])
			toe_fake_gtoe_close(f, k / 4);
	} else if (kid == TOE_KID_GTOE && off >= TOE_GTOE_REG_TXD && off < TOE_GTOE_REG_TXD + 4 * TOE_GTOE_TXD_WORDS) {
		f->gt_txd[(off - TOE_GTOE_REG_TXD) / 4] = v;
	} else if (kid == TOE_KID_GTOE && off >= TOE_GTOE_REG_CST && off < TOE_GTOE_REG_CST + 4 * TOE_GTOE_CST_WORDS) {
		ferr(f, "write of read-only connection state register 0x%x of gtoe_top", off);
	} else if (kid == TOE_KID_FAST && off >= TOE_FAST_REG_PROG && off < TOE_FAST_REG_PROG + 4 * TOE_FAST_PROG_WORDS) {
		f->prog[(off - TOE_FAST_REG_PROG) / 4] = v;
	} else if (kid == TOE_KID_HBM && off >= TOE_HBM_REG_ADDR(0) && off < TOE_HBM_REG_ADDR(NCH) && (off & 0xfu) < 8) {
		uint32_t ch = (off - TOE_HBM_REG_ADDR(0)) / 16, sh = (off & 4u) ? 32 : 0;
		f->hbm_addr[ch] = (f->hbm_addr[ch] & ~(0xffffffffull << sh)) | (uint64_t)v << sh;
	} else if (off >= TOE_REG_STAT && off < TOE_REG_STAT + 4 * TOE_STAT_WORDS) {
		ferr(f, "write of read-only status register 0x%x of kernel %u", off, kid);
	} else {
		ferr(f, "write of unmapped register 0x%x of kernel %u", off, kid);
	}
	return 0;
}

static const char *ip_error(void *h)
{
	return ((struct fake_ip *)h)->err;
}

static int ip_open(void *dev, const char *name, void **out, char *err, size_t errlen)
{
	static const char *const names[] = { [TOE_KID_ETH_RX] = TOE_IP_ETH_RX, [TOE_KID_MTOE] = TOE_IP_MTOE,
					     [TOE_KID_UDP] = TOE_IP_UDP,       [TOE_KID_FAST] = TOE_IP_FAST,
					     [TOE_KID_HBM] = TOE_IP_HBM,       [TOE_KID_GTOE] = TOE_IP_GTOE,
					     [TOE_KID_TXARB] = TOE_IP_TXARB,   [KID_CMAC] = TOE_IP_CMAC };
	struct toe_fake *f = dev;
	struct fake_ip *ip;
	static const char *const port_names[TOE_HW_MAX_PORTS] = { NULL, TOE_IP_ETH_RX_2, TOE_IP_ETH_RX_3,
								   TOE_IP_ETH_RX_4 };
	uint32_t kid, n;
	*out = NULL;
	for (kid = 1; kid <= KID_CMAC; kid++)
		if (!strcmp(names[kid], name))
			break;
	for (n = 1; kid > KID_CMAC && n < TOE_HW_MAX_PORTS; n++)
		if (!strcmp(port_names[n], name))
			kid = TOE_KID_ETH_PORT(n);
	if (!f->loaded || (kid > KID_CMAC && !fake_port(kid)) || toe_xclbin_find_ip(f->x, name) < 0) {
		snprintf(err, errlen, "No IP matching '%s': Invalid argument", name);
		return -EINVAL;
	}
	ip = calloc(1, sizeof *ip);
	if (!ip)
		return -ENOMEM;
	ip->f = f;
	ip->kid = kid;
	{
		char kernel[32];
		snprintf(kernel, sizeof kernel, "%.*s", (int)(strchr(name, ':') - name), name);
		ip->range = toe_xclbin_cu_range(f->x, kernel);
	}
	*out = ip;
	return 0;
}

static void ip_close(void *ip)
{
	free(ip);
}

/* ---- device, xclbin, buffers ---------------------------------------------------------- */

static int dev_open(void *ctx, const char *pci, void **dev, char *err, size_t errlen)
{
	struct toe_fake *f = ctx;
	*dev = NULL;
	if (f->cfg.no_card || (pci && pci[0] && strcmp(pci, f->bdf) != 0)) {
		snprintf(err, errlen, "No such device '%s'; the cards here: %s", pci && pci[0] ? pci : "0",
			 f->cfg.no_card ? "none" : f->bdf);
		return -ENODEV;
	}
	if (f->opened) {
		snprintf(err, errlen, "device busy");
		return -EBUSY;
	}
	f->opened = 1;
	*dev = f;
	return 0;
}

static void dev_close(void *dev)
{
	struct toe_fake *f = dev;
	f->opened = 0;
}

static int load(void *dev, const char *path, char *err, size_t errlen)
{
	struct toe_fake *f = dev;
	char why[512], ks[96], kx[96];
	if (toe_xclbin_read(path, f->x, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s", why);
		return -EINVAL;
	}
	toe_platform_key(f->shell, ks, sizeof ks);
	toe_platform_key(f->x->vbnv, kx, sizeof kx);
	if (f->cfg.refuse_load || (f->shell[0] && strcmp(ks, kx) != 0)) {
		snprintf(err, errlen, "xclbin not compatible with the shell: Invalid argument");
		f->loaded = 0;
		return -EINVAL;
	}
	memcpy(f->uuid, f->x->uuid, 16);
	if (f->cfg.uuid_mismatch)
		f->uuid[15] ^= 0x5a;
	f->loaded = 1;
	return 0;
}

static int get_uuid(void *dev, uint8_t uuid[16])
{
	struct toe_fake *f = dev;
	if (!f->loaded)
		memset(uuid, 0, 16);
	else
		memcpy(uuid, f->uuid, 16);
	return 0;
}

static int platform(void *dev, char *name, size_t len)
{
	struct toe_fake *f = dev;
	snprintf(name, len, "%s", f->shell);
	return f->shell[0] ? 0 : -ENOTSUP;
}

static int bo_alloc(void *dev, uint64_t size, uint32_t bank, void **out, char *err, size_t errlen)
{
	struct toe_fake *f = dev;
	struct fake_bo *b;
	uint32_t i;
	*out = NULL;
	if (!f->loaded || bank >= f->x->nmem || !f->x->mem[bank].used) {
		snprintf(err, errlen, "no memory bank %u in the loaded xclbin", bank);
		return -EINVAL;
	}
	if (size == 0 || f->bank_used[bank] + size > BANK_SPAN) {
		snprintf(err, errlen, "cannot allocate %llu bytes in bank %u", (unsigned long long)size, bank);
		return -ENOMEM;
	}
	for (i = 0; i < MAX_BOS && f->bo[i]; i++)
		;
	b = i < MAX_BOS ? calloc(1, sizeof *b) : NULL;
	if (b) {
		b->dev = malloc(size);
		b->host = malloc(size);
	}
	if (!b || !b->dev || !b->host) {
		if (b)
			free_bo(b);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(b->dev, 0xdd, size);
	memset(b->host, 0xee, size);
	b->f = f;
	b->id = f->nbo_total++;
	b->bank = bank;
	b->size = size;
	b->addr = BANK_BASE + (uint64_t)bank * BANK_SPAN + f->bank_used[bank];
	f->bank_used[bank] += (size + 4095u) & ~(uint64_t)4095u;
	f->bo[i] = b;
	*out = b;
	return 0;
}

static void bo_free(void *h)
{
	struct fake_bo *b = h;
	uint32_t i;
	for (i = 0; i < MAX_BOS; i++)
		if (b->f->bo[i] == b)
			b->f->bo[i] = NULL;
	free_bo(b);
}

static void *bo_map(void *h)
{
	return ((struct fake_bo *)h)->host;
}

static uint64_t bo_addr(void *h)
{
	return ((struct fake_bo *)h)->addr;
}

static int bo_sync(void *h, int dir, uint64_t off, uint64_t size)
{
	struct fake_bo *b = h;
	struct toe_fake *f = b->f;
	if (f->nslog == f->scap) {
		uint32_t cap = f->scap ? 2 * f->scap : 1024;
		struct toe_fake_sync *s = realloc(f->slog, cap * sizeof *s);
		if (s) {
			f->slog = s;
			f->scap = cap;
		}
	}
	if (f->nslog < f->scap) {
		struct toe_fake_sync *s = &f->slog[f->nslog++];
		s->bo = b->id;
		s->bank = b->bank;
		s->dir = dir;
		s->off = off;
		s->size = size;
	}
	if (size == 0 || off > b->size || size > b->size - off) {
		ferr(f, "sync of [%llu, +%llu) outside buffer %u of %llu bytes", (unsigned long long)off,
		     (unsigned long long)size, b->id, (unsigned long long)b->size);
		return -EINVAL;
	}
	if (dir == TOE_SYNC_FROM_DEVICE) {
		/* the faults of toe_fake_cfg.faults: the host asked, the copy does not happen (or not all of it) */
		int wrap_half = off == 0 && b->to_end;
		b->to_end = off + size == b->size;
		if ((f->cfg.faults & TOE_FAKE_FAULT_LOSE_WRAP_SYNC) && wrap_half)
			return 0;
		if (f->cfg.faults & TOE_FAKE_FAULT_SHORT_SYNC)
			size = size > TOE_RECORD_SIZE ? size - TOE_RECORD_SIZE : 0;
		memcpy(b->host + off, b->dev + off, size);
	} else
		memcpy(b->dev + off, b->host + off, size);
	return 0;
}

const struct toe_devops toe_devops_fake = {
	.name = "fake",
	.open = dev_open,
	.close = dev_close,
	.load_xclbin = load,
	.xclbin_uuid = get_uuid,
	.platform = platform,
	.bo_alloc = bo_alloc,
	.bo_free = bo_free,
	.bo_map = bo_map,
	.bo_addr = bo_addr,
	.bo_sync = bo_sync,
	.ip_open = ip_open,
	.ip_close = ip_close,
	.reg_read = reg_read,
	.reg_write = reg_write,
	.ip_error = ip_error,
};

/* ---- inspection ---------------------------------------------------------------------- */

const struct toe_fake_write *toe_fake_writes(const struct toe_fake *f, uint32_t *n)
{
	*n = f->nwlog;
	return f->wlog;
}

const struct toe_fake_sync *toe_fake_syncs(const struct toe_fake *f, uint32_t *n)
{
	*n = f->nslog;
	return f->slog;
}

void toe_fake_clear_logs(struct toe_fake *f)
{
	f->nwlog = 0;
	f->nslog = 0;
}

uint32_t toe_fake_errors(const struct toe_fake *f, const char **first)
{
	if (first)
		*first = f->error;
	return f->errors;
}

const struct rx_cfg *toe_fake_rx_cfg(const struct toe_fake *f)
{
	return f->built ? &f->rxc : NULL;
}

const struct fast_prog *toe_fake_prog(const struct toe_fake *f)
{
	return f->dprog;
}

uint32_t toe_fake_role(const struct toe_fake *f)
{
	return f->role;
}

uint64_t toe_fake_hbm_addr(const struct toe_fake *f, uint32_t ch)
{
	return ch < NCH ? f->hbm_addr[ch] : 0;
}

uint32_t toe_fake_cfg_word(const struct toe_fake *f, uint32_t kid, uint32_t w)
{
	if (fake_port(kid) && w < TOE_CFG_WORDS)
		return f->pcfgw[fake_port(kid)][w];
	return kid < TOE_KID_ALL && w < TOE_CFG_WORDS ? f->cfgw[kid][w] : 0;
}

void toe_fake_gtoe_set_cst(struct toe_fake *f, uint32_t i, uint32_t w, uint32_t v)
{
	if (i < TOE_HW_GTOE_CONNS && w < 16)
		f->gt_cst[16 * i + w] = v;
}

/* One gtoe_top event on entry i's stream, through fast_top's path (rx_event, rx_feed) and the writer. */
static int gtoe_event(struct toe_fake *f, uint32_t i, uint8_t type, const uint8_t *data, uint32_t len)
{
	struct mtoe_event ev;
	kernels(f);
	if (i >= TOE_HW_GTOE_CONNS || !f->built || f->status[TOE_KID_FAST] != TOE_STATUS_OK ||
	    f->status[TOE_KID_GTOE] != TOE_STATUS_OK)
		return -1;
	memset(&ev, 0, sizeof ev);
	ev.type = type;
	ev.reason = type == MTOE_EV_OPEN ? MTOE_OPEN_SYN : 0;
	ev.conn = f->gt_conn[4 * i + 2];
	ev.flow = (uint16_t)ev.conn;
	ev.offset = f->gt_off[i];
	ev.len = len;
	ev.data = data;
	rx_event(f->pipe, &ev, f->now); /* 0 for a DATA event: its entries come from the deframer */
	drain(f);
	f->gt_off[i] += len;
	return 0;
}

int toe_fake_gtoe_open(struct toe_fake *f, uint32_t i)
{
	if (i >= TOE_HW_GTOE_CONNS)
		return -1;
	f->gt_off[i] = 0;
	f->gt_up[i] = 1;
	f->gt_cst[16 * i + TOE_GTOE_CS_PHASE] = 3;
	return gtoe_event(f, i, MTOE_EV_OPEN, NULL, 0);
}

int toe_fake_gtoe_data(struct toe_fake *f, uint32_t i, const uint8_t *data, uint32_t len)
{
	if (i >= TOE_HW_GTOE_CONNS || f->gt_cst[16 * i + TOE_GTOE_CS_PHASE] != 3)
		return -1;
	return gtoe_event(f, i, MTOE_EV_DATA, data, len);
}

int toe_fake_gtoe_close(struct toe_fake *f, uint32_t i)
{
	if (i >= TOE_HW_GTOE_CONNS || f->gt_cst[16 * i + TOE_GTOE_CS_PHASE] != 3)
		return -1;
	f->gt_cst[16 * i + TOE_GTOE_CS_PHASE] = 0;
	f->gt_up[i] = 0;
	return gtoe_event(f, i, MTOE_EV_CLOSE, NULL, 0);
}

void toe_fake_gtoe_set_ctr(struct toe_fake *f, uint32_t i, uint64_t v)
{
	if (i < sizeof f->gt_ctr / sizeof f->gt_ctr[0] && i != 10)
		f->gt_ctr[i] = v;
}

void toe_fake_gtoe_room(struct toe_fake *f, uint32_t i, uint32_t room)
{
	if (i < TOE_HW_GTOE_CONNS)
		f->gt_room[i] = room;
}

void toe_fake_gtoe_stall(struct toe_fake *f, int stall)
{
	f->gt_stall = stall;
	if (!stall)
		gtoe_mailbox(f); /* the kernel runs again: a message posted meanwhile is taken */
}

const uint8_t *toe_fake_gtoe_sent(const struct toe_fake *f, uint32_t i, uint32_t *len)
{
	*len = i < TOE_HW_GTOE_CONNS ? f->gt_nsent[i] : 0;
	return i < TOE_HW_GTOE_CONNS ? f->gt_sent[i] : NULL;
}

uint32_t toe_fake_gtoe_conn_word(const struct toe_fake *f, uint32_t i, uint32_t w)
{
	if (i >= TOE_HW_GTOE_CONNS || w >= 8)
		return 0;
	return w < 4 ? f->gt_conn[4 * i + w] : f->gt_conn[4 * TOE_HW_GTOE_CONNS + 4 * i + w - 4];
}

uint32_t toe_fake_gtoe_status(const struct toe_fake *f)
{
	return f->status[TOE_KID_GTOE];
}

uint32_t toe_fake_live_bos(const struct toe_fake *f)
{
	uint32_t i, n = 0;
	for (i = 0; i < MAX_BOS; i++)
		n += f->bo[i] != NULL;
	return n;
}

int toe_fake_is_open(const struct toe_fake *f)
{
	return f->opened;
}
