/* test_xrt_common.h - helpers of the test_xrt_*.c programs: xclbins, configurations, frames, a software reference.
 *
 * - tx_xclbin_build(): a metadata-only xclbin laid out as XRT's xclbin.h
 *   defines it (axlf header, section headers, MEM_TOPOLOGY, IP_LAYOUT,
 *   CONNECTIVITY, EMBEDDED_METADATA, optionally the GROUP_* twins), written
 *   here from that header's field offsets, independently of the daemon's
 *   parser; what to put in it (banks, kernels left out, ...) is a parameter.
 * - tx_cfg(): a receive configuration (two followed TCP feeds, a STEP and a
 *   raw-FAST UDP port), tx_frames: frames built with pktbuild from sse_gen
 *   feeds, and tx_sw_run(): the software pipeline (rx_pipe) over the same
 *   frames, collecting what the software backend's ring would get.
 */
#ifndef TEST_XRT_COMMON_H
#define TEST_XRT_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "pktbuild.h"
#include "fast/host/fast_compile.h"
#include "fast/host/fast_encode.h"
#include "feed/sse_gen.h"
#include "hw/toe_regmap.h"
#include "rx/rx_pipe.h"

#include "conf/config.h"
#include "card/card_backend.h"
#include "card_fake.h"
#include "card/card_xclbin.h"

#define TX_TEMPLATES "conf/templates/sse-l2-3201-5801.xml"
#define TX_VBNV "xilinx_u50_gen3x16_xdma_5_202210_1"
#define TX_OUR_IP 0x0a010002u   /* 10.1.0.2 */
#define TX_EXA_IP 0x0a010001u   /* exchange, feed A */
#define TX_EXB_IP 0x0a010003u   /* exchange, feed B */
#define TX_OTHER_IP 0x0a010009u
#define TX_PORT_A 9000
#define TX_PORT_B 9001
#define TX_UDP_STEP 5000
#define TX_UDP_RAW 5001
#define TX_MS 1000000ull
#define TX_T0 1700000000000000000ull /* frames' clock, ns */

static struct fast_prog tx_prog;
static const uint8_t tx_our_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static inline int tx_load_prog(void)
{
	char err[512];
	struct fast_names *names = calloc(1, sizeof *names);
	int r = names ? fast_compile_file(TX_TEMPLATES, &tx_prog, names, err, sizeof err) : -1;
	if (r != 0)
		fprintf(stderr, "%s: %s\n", TX_TEMPLATES, names ? err : "out of memory");
	free(names);
	return r;
}

/* ---- xclbins (layout of XRT 2.13's xclbin.h) ---------------------------------- */

struct tx_xclbin {
	const char *vbnv;     /* NULL: TX_VBNV */
	uint8_t uuid[16];
	uint16_t mode;        /* XCLBIN_MODE, 0 flat */
	uint32_t nbanks;      /* HBM banks in MEM_TOPOLOGY (0: 32) */
	uint32_t hbm_bank[4]; /* bank of hbm_writer_top's hbm0..3 */
	uint32_t omit;        /* leave this compute unit out: TOE_KID_* or TOE_FAKE_KID_CMAC (0: none; 101: udp_mux_1) */
	int no_ip_layout;
	int no_meta;          /* no EMBEDDED_METADATA: argument ids by position */
	int bad_offset;       /* metadata puts hbm1's register at 0x48 */
	int arg_shift;        /* metadata numbers hbm_writer_top's arguments from 1 + arg_shift */
	int group;            /* GROUP_TOPOLOGY (banks in reverse order) + GROUP_CONNECTIVITY; MEM/CONNECTIVITY then lie */
	uint32_t fast_range;  /* fast_top's AXI-Lite range in the metadata (0: 0x20000; 1: no port given) */
	int no_hbm_args;      /* metadata without hbm_writer_top's hbm0..3 arguments */
	int four_ports;       /* the 4 x 10G layout: eth_rx_top_2..4, the three port muxes, eth10g_0 instead of cmac_0 */
	int tcp;              /* with gtoe_top and tx_arb_top (role = tcp) */
};

static inline void tx_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void tx_put32(uint8_t *p, uint32_t v)
{
	tx_put16(p, (uint16_t)v);
	tx_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void tx_put64(uint8_t *p, uint64_t v)
{
	tx_put32(p, (uint32_t)v);
	tx_put32(p + 4, (uint32_t)(v >> 32));
}

struct tx_sect {
	uint32_t kind;
	const char *name;
	size_t off, size;
};

/* struct mem_topology of n HBM banks; in reverse order when rev. */
static inline size_t tx_mem_topology(uint8_t *p, uint32_t n, int rev)
{
	uint32_t i;
	tx_put32(p, n);
	for (i = 0; i < n; i++) {
		uint8_t *d = p + 8 + 40 * i; /* offsetof(mem_topology, m_mem_data), sizeof(mem_data) */
		uint32_t b = rev ? n - 1 - i : i;
		d[0] = 6;                            /* MEM_HBM */
		d[1] = 1;                            /* m_used */
		tx_put64(d + 8, 262144);             /* m_size: 256 MB in KB */
		tx_put64(d + 16, (uint64_t)b << 28); /* m_base_address */
		snprintf((char *)d + 24, 16, "HBM[%u]", b);
	}
	return 8 + 40 * (size_t)(n ? n : 1);
}

static inline size_t tx_connectivity(uint8_t *p, int hbm_ip, int fast_ip, const uint32_t bank[4], int arg0)
{
	uint32_t n = 0, ch;
	for (ch = 0; ch < 4; ch++) {
		if (hbm_ip < 0)
			break;
		tx_put32(p + 4 + 12 * n, (uint32_t)(arg0 + (int)ch)); /* arg_index */
		tx_put32(p + 8 + 12 * n, (uint32_t)hbm_ip);           /* m_ip_layout_index */
		tx_put32(p + 12 + 12 * n, bank[ch]);                  /* mem_data_index */
		n++;
	}
	/* another kernel's argument 1 elsewhere: the bank must come from hbm_writer_top's entries */
	if (fast_ip >= 0) {
		tx_put32(p + 4 + 12 * n, 1);
		tx_put32(p + 8 + 12 * n, (uint32_t)fast_ip);
		tx_put32(p + 12 + 12 * n, 9);
		n++;
	}
	tx_put32(p, n);
	return 4 + 12 * (size_t)(n ? n : 1);
}

/* The xclbin into buf (zeroed by the caller); returns its length. */
static inline size_t tx_xclbin_build(const struct tx_xclbin *d, uint8_t *buf, size_t cap)
{
	/* the 100G build's six, then the 4 x 10G build's (kid 100: no registers of ours) */
	static const char *const cu[] = { "cmac_0:cmac_0", "eth_rx_top:eth_rx_top_1", "mirror_toe_top:mirror_toe_top_1",
					  "udp_top:udp_top_1", "fast_top:fast_top_1", "hbm_writer_top:hbm_writer_top_1",
					  "eth_rx_top:eth_rx_top_2", "eth_rx_top:eth_rx_top_3", "eth_rx_top:eth_rx_top_4",
					  "port_mux_top:seg_mux_1", "port_mux_top:udp_mux_1", "port_mux_top:gtoe_mux_1",
					  "eth10g_0:eth10g_0", "gtoe_top:gtoe_top_1", "tx_arb_top:tx_arb_top_1" };
	static const uint32_t cu_kid[] = { TOE_FAKE_KID_CMAC, TOE_KID_ETH_RX, TOE_KID_MTOE, TOE_KID_UDP, TOE_KID_FAST,
					   TOE_KID_HBM, TOE_KID_ETH_PORT(1), TOE_KID_ETH_PORT(2), TOE_KID_ETH_PORT(3),
					   100, 100, 100, 100, TOE_KID_GTOE, TOE_KID_TXARB };
	struct tx_sect s[8];
	uint32_t ns = 0, i, nip = 0, nbanks = d->nbanks ? d->nbanks : 32, gbank[4];
	int hbm_ip = -1, fast_ip = -1;
	size_t off, hdr;
	uint8_t *h = buf + 304; /* offsetof(axlf, m_header) */
	char xml[4096], fport[128] = "", hargs[1024] = "";
	(void)cap;

	ns = 3 + !d->no_meta + 2 * !!d->group - !!d->no_ip_layout;
	hdr = 456 + 40 * (size_t)ns; /* offsetof(axlf, m_sections) + headers */
	off = (hdr + 7) & ~(size_t)7;
	ns = 0;

	/* MEM_TOPOLOGY */
	s[ns] = (struct tx_sect){ 6, "mem_topology", off, tx_mem_topology(buf + off, nbanks, 0) };
	off = (off + s[ns++].size + 7) & ~(size_t)7;
	/* IP_LAYOUT */
	if (!d->no_ip_layout) {
		uint8_t *p = buf + off;
		for (i = 0; i < sizeof cu / sizeof cu[0]; i++) {
			uint8_t *e = p + 8 + 80 * nip; /* offsetof(ip_layout, m_ip_data), sizeof(ip_data) */
			if (cu_kid[i] == d->omit || (i >= 6 && i < 13 && !d->four_ports) || (i >= 13 && !d->tcp) || (i == 0 && d->four_ports))
				continue;
			if (d->omit == 101 && i == 10)
				continue; /* a 4 x 10G build without udp_mux_1: not the layout */
			if (cu_kid[i] == TOE_KID_HBM)
				hbm_ip = (int)nip;
			if (cu_kid[i] == TOE_KID_FAST)
				fast_ip = (int)nip;
			tx_put32(e, 1);                          /* IP_KERNEL */
			tx_put32(e + 4, 2u << 8);                /* AP_CTRL_NONE << IP_CONTROL_SHIFT */
			tx_put64(e + 8, 0x1800000ull + 0x40000ull * nip);
			snprintf((char *)e + 16, 64, "%s", cu[i]);
			nip++;
		}
		tx_put32(p, nip);
		s[ns] = (struct tx_sect){ 8, "ip_layout", off, 8 + 80 * (size_t)(nip ? nip : 1) };
		off = (off + s[ns++].size + 7) & ~(size_t)7;
	}
	/* CONNECTIVITY: with GROUP_* present it points elsewhere (bank 31), which XRT ignores */
	{
		uint32_t lie[4] = { 31, 31, 31, 31 };
		s[ns] = (struct tx_sect){ 7, "connectivity", off,
					  tx_connectivity(buf + off, hbm_ip, fast_ip, d->group ? lie : d->hbm_bank,
							  1 + d->arg_shift) };
		off = (off + s[ns++].size + 7) & ~(size_t)7;
	}
	if (d->group) {
		for (i = 0; i < 4; i++)
			gbank[i] = nbanks - 1 - d->hbm_bank[i]; /* reversed topology: same physical bank */
		s[ns] = (struct tx_sect){ 26, "group_topology", off, tx_mem_topology(buf + off, nbanks, 1) };
		off = (off + s[ns++].size + 7) & ~(size_t)7;
		s[ns] = (struct tx_sect){ 27, "group_connectivity", off,
					  tx_connectivity(buf + off, hbm_ip, fast_ip, gbank, 1 + d->arg_shift) };
		off = (off + s[ns++].size + 7) & ~(size_t)7;
	}
	if (!d->no_meta) {
		int a0 = 1 + d->arg_shift;
		if (!d->no_hbm_args)
			snprintf(hargs, sizeof hargs,
				 "<arg name=\"hbm0\" addressQualifier=\"1\" id=\"%d\" port=\"M_AXI_HBM0\" size=\"0x8\" offset=\"0x40\"/>"
				 "<arg name=\"hbm1\" addressQualifier=\"1\" id=\"%d\" port=\"M_AXI_HBM1\" size=\"0x8\" offset=\"%s\"/>"
				 "<arg name=\"hbm2\" addressQualifier=\"1\" id=\"%d\" port=\"M_AXI_HBM2\" size=\"0x8\" offset=\"0x60\"/>"
				 "<arg name=\"hbm3\" addressQualifier=\"1\" id=\"%d\" port=\"M_AXI_HBM3\" size=\"0x8\" offset=\"0x70\"/>",
				 a0, a0 + 1, d->bad_offset ? "0x48" : "0x50", a0 + 2, a0 + 3);
		if (d->fast_range != 1)
			snprintf(fport, sizeof fport, "<port name=\"S_AXI_CONTROL\" mode=\"slave\" range=\"0x%x\" dataWidth=\"32\"/>",
				 d->fast_range ? d->fast_range : 0x20000u);
		snprintf(xml, sizeof xml,
			 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			 "<project name=\"toed\"><platform vendor=\"xilinx\" boardid=\"u50\" name=\"gen3x16_xdma\">"
			 "<device name=\"fpga0\"><core name=\"OCL_REGION_0\" target=\"bitstream\">"
			 "<kernel name=\"fast_top\" language=\"c\">%s<arg name=\"tcp_in\" addressQualifier=\"4\" id=\"0\"/>"
			 "<arg name=\"udp_in\" addressQualifier=\"4\" id=\"1\"/></kernel>"
			 "<kernel name=\"hbm_writer_top\" language=\"c\" hwControlProtocol=\"ap_ctrl_none\">"
			 "<port name=\"M_AXI_HBM0\" mode=\"master\" dataWidth=\"512\"/>"
			 "<port name=\"S_AXI_CONTROL\" mode=\"slave\" range=\"0x4000\" dataWidth=\"32\"/>"
			 "<arg name=\"rec_in\" addressQualifier=\"4\" id=\"0\" port=\"rec_in\" size=\"0x0\" offset=\"0x0\"/>"
			 "%s"
			 "<arg name=\"cfg\" addressQualifier=\"0\" id=\"%d\" size=\"0x400\" offset=\"0x2000\"/>"
			 "</kernel></core></device></platform></project>\n",
			 fport, hargs, a0 + 4);
		memcpy(buf + off, xml, strlen(xml));
		s[ns] = (struct tx_sect){ 2, "metadata", off, strlen(xml) };
		off = (off + s[ns++].size + 7) & ~(size_t)7;
	}

	memcpy(buf, "xclbin2", 8);                /* m_magic */
	tx_put32(buf + 8, 0xffffffffu);           /* m_signature_length -1 */
	memset(buf + 12, 0xff, 28);               /* reserved */
	tx_put64(h + 0, off);                     /* m_length */
	tx_put64(h + 8, 1700000000);              /* m_timeStamp */
	tx_put16(h + 24, 0);                      /* m_versionPatch */
	h[26] = 2;                                /* m_versionMajor */
	h[27] = 13;                               /* m_versionMinor */
	tx_put16(h + 28, d->mode);                /* m_mode */
	snprintf((char *)h + 48, 64, "%s", d->vbnv ? d->vbnv : TX_VBNV); /* m_platformVBNV */
	memcpy(h + 112, d->uuid, 16);             /* uuid */
	tx_put32(h + 144, ns);                    /* m_numSections */
	for (i = 0; i < ns; i++) {
		uint8_t *e = buf + 456 + 40 * i;
		tx_put32(e, s[i].kind);
		snprintf((char *)e + 4, 16, "%s", s[i].name);
		tx_put64(e + 24, s[i].off);
		tx_put64(e + 32, s[i].size);
	}
	return off;
}

static inline void tx_xclbin_default(struct tx_xclbin *d)
{
	uint32_t i;
	memset(d, 0, sizeof *d);
	for (i = 0; i < 16; i++)
		d->uuid[i] = (uint8_t)(0xa0 + i);
	/* not 0..3: the backend must take the banks from the file */
	d->hbm_bank[0] = 4;
	d->hbm_bank[1] = 5;
	d->hbm_bank[2] = 6;
	d->hbm_bank[3] = 7;
}

/* Write the xclbin to a temporary file; path receives its name (unlink it). */
static inline int tx_xclbin_file(const struct tx_xclbin *d, char path[64])
{
	uint8_t *buf = calloc(1, 1 << 16);
	size_t n;
	int fd, ok;
	snprintf(path, 64, "/tmp/test_xrt_XXXXXX");
	fd = mkstemp(path);
	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = tx_xclbin_build(d, buf, 1 << 16);
	ok = write(fd, buf, n) == (ssize_t)n;
	close(fd);
	free(buf);
	return ok ? 0 : -1;
}

/* ---- the configuration ---------------------------------------------------------- */

static inline void tx_cfg(struct rx_cfg *cfg)
{
	rx_cfg_default(cfg);
	net_cfg_add(&cfg->net, TX_OUR_IP, 0xffffff00u, tx_our_mac, 0);
	cfg->mtoe.max_conns = 8;
	cfg->mtoe.window = 32768;
	cfg->mtoe.flows[0].ex_addr = TX_EXA_IP;
	cfg->mtoe.flows[0].ex_port = TX_PORT_A;
	cfg->mtoe.flows[1].ex_addr = TX_EXB_IP;
	cfg->mtoe.flows[1].ex_port = TX_PORT_B;
	cfg->mtoe.nflows = 2;
	cfg->nudp = 2;
	cfg->udp[0].port = TX_UDP_STEP;
	cfg->udp[0].framing = FAST_FRAMING_STEP;
	cfg->udp[1].port = TX_UDP_RAW;
	cfg->udp[1].framing = FAST_FRAMING_DATAGRAM;
}

/* A toed.conf for the card with role = tcp on port 0 and n tcp feeds
 * named names[i], feed i connecting to TX_TCP_EX_IP + i, port 5261 + i;
 * the caller changes what its test needs. NULL when out of memory. */
#define TX_TCP_EX_IP 0x0a090001u /* 10.9.0.1 */
static inline struct toed_config *tx_tcp_config(uint32_t n, const char *const *names, uint32_t connections,
						uint32_t window)
{
	struct toed_config *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	toed_config_default(c);
	snprintf(c->path, sizeof c->path, "test.conf");
	snprintf(c->device.pci, sizeof c->device.pci, "%s", TOE_FAKE_BDF);
	c->device.backend = TOED_BACKEND_XRT;
	c->port[0].enabled = 1;
	c->port[0].role = TOED_ROLE_TCP;
	c->port[0].ip = TX_OUR_IP;
	c->port[0].netmask = 0xffffff00u;
	c->port[0].has_mac = 1;
	memcpy(c->port[0].mac, tx_our_mac, 6);
	c->tcp.connections = connections;
	c->tcp.window = window;
	c->tcp.mss = 1408;
	c->fast.have_prog = 1;
	memcpy(&c->fast.prog, &tx_prog, sizeof tx_prog);
	c->nfeeds = n;
	for (uint32_t i = 0; i < n; i++) {
		struct toed_feed *f = &c->feed[i];
		snprintf(f->name, sizeof f->name, "%s", names[i]);
		snprintf(f->stream, sizeof f->stream, "%s", names[i]);
		f->protocol = TOED_PROTO_TCP;
		f->framing = TOED_FRAMING_STEP;
		f->port = 0;
		f->exchange.ip = TX_TCP_EX_IP + i;
		f->exchange.port = (uint16_t)(5261 + i);
		f->open = TOED_OPEN_CONNECT;
	}
	return c;
}

static inline void tx_params(struct toe_xrt_params *p, const char *xclbin, const struct rx_cfg *cfg, uint32_t slots)
{
	memset(p, 0, sizeof *p);
	p->pci = TOE_FAKE_BDF;
	p->xclbin = xclbin;
	p->rx = cfg;
	p->prog = &tx_prog;
	p->hw.role = TOE_ROLE_MIRROR;
	p->hw.gateway = 0x0a0100feu;
	p->hw.mss = 1408;
	p->hw.ring_slots = slots;
	p->link_timeout_ms = 0;
}

/* ---- frames ----------------------------------------------------------------------- */

struct tx_frames {
	uint8_t **buf;
	uint32_t *len;
	uint64_t *ts;
	uint32_t n, cap;
};

/* A frame, or (p NULL, n 0) a timer tick at ts. */
static inline void tx_add(struct tx_frames *l, const uint8_t *p, size_t n, uint64_t ts)
{
	CHECK(p ? n > 0 : n == 0);
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->buf = realloc(l->buf, l->cap * sizeof *l->buf);
		l->len = realloc(l->len, l->cap * sizeof *l->len);
		l->ts = realloc(l->ts, l->cap * sizeof *l->ts);
	}
	l->buf[l->n] = malloc(n ? n : 1);
	if (n)
		memcpy(l->buf[l->n], p, n);
	l->len[l->n] = (uint32_t)n;
	l->ts[l->n] = ts;
	l->n++;
}

static inline void tx_frames_free(struct tx_frames *l)
{
	uint32_t i;
	for (i = 0; i < l->n; i++)
		free(l->buf[i]);
	free(l->buf);
	free(l->len);
	free(l->ts);
	memset(l, 0, sizeof *l);
}

static uint8_t tx_scratch[70000];

static inline void tx_tcp(struct tx_frames *l, uint32_t sa, uint16_t sp, uint32_t seq, uint8_t flags, const uint8_t *p,
			  size_t n, uint64_t ts)
{
	struct pb_spec s;
	pb_init(&s);
	s.saddr = sa;
	s.daddr = TX_OUR_IP;
	s.sport = sp;
	s.dport = 40000;
	s.seq = seq;
	s.ack = 1;
	s.tcp_flags = flags;
	s.win = 65535;
	memcpy(s.dst_mac, tx_our_mac, 6);
	tx_add(l, tx_scratch, pb_tcp(tx_scratch, sizeof tx_scratch, &s, p, n), ts);
}

static inline void tx_udp(struct tx_frames *l, uint16_t dport, const uint8_t *p, size_t n, uint64_t ts)
{
	struct pb_spec s;
	pb_init(&s);
	s.saddr = TX_OTHER_IP;
	s.daddr = TX_OUR_IP;
	s.sport = 7000;
	s.dport = dport;
	memcpy(s.dst_mac, tx_our_mac, 6);
	tx_add(l, tx_scratch, pb_udp(tx_scratch, sizeof tx_scratch, &s, p, n), ts);
}

/* A STEP feed of nmsgs messages (seeded); *len its bytes (malloc'd). msg_end
 * (may be NULL, room for nmsgs) receives each message's end offset; ticks
 * (may be NULL, room for 4 * nmsgs) the generator's records; *nticks. */
static inline uint8_t *tx_feed(uint64_t seed, uint32_t nmsgs, size_t *len, size_t *msg_end, union toe_record *ticks,
			       uint32_t *nticks)
{
	struct sse_stream *ss = calloc(1, sizeof *ss);
	struct sse_gen_cfg gc;
	static uint8_t m[65536];
	union toe_record t[4];
	uint8_t *out = malloc((size_t)nmsgs * 2048 + 1);
	uint32_t i, k, nr, nt = 0;
	*len = 0;
	sse_gen_default(&gc);
	gc.seed = seed;
	CHECK_EQ(sse_stream_init(ss, &tx_prog, &gc, 4), 0);
	for (i = 0; i < nmsgs; i++) {
		int n = sse_stream_next_msg(ss, 4, m, sizeof m, NULL, t, &nr);
		CHECK(n > 0 && n <= 2048);
		if (n <= 0 || n > 2048)
			break;
		memcpy(out + *len, m, (size_t)n);
		*len += (size_t)n;
		if (msg_end)
			msg_end[i] = *len;
		for (k = 0; k < nr; k++)
			if (ticks)
				ticks[nt++] = t[k];
	}
	if (nticks)
		*nticks = nt;
	free(ss);
	return out;
}

/* The mixed traffic of the equivalence test: feed A over TCP (SYN, in-order
 * segments, a swapped pair, one segment lost far from the end with 1 ms ticks
 * until the gap times out, FIN), feed B joined mid-stream, STEP datagrams,
 * raw FAST datagrams, an unlistened port and a bad checksum. Timer ticks are
 * frames of length 0 (ts = their time). */
static inline void tx_traffic(struct tx_frames *l, uint32_t nmsgs)
{
	size_t alen, blen, clen, o, mss = 1408;
	uint8_t *a = tx_feed(21, nmsgs, &alen, NULL, NULL, NULL);
	uint8_t *b = tx_feed(22, nmsgs / 2 + 1, &blen, NULL, NULL, NULL);
	size_t *cend = calloc(nmsgs, sizeof *cend);
	uint8_t *c = tx_feed(23, nmsgs, &clen, cend, NULL, NULL);
	uint64_t ts = TX_T0;
	uint32_t isn = 0xfffff000u; /* sequence numbers wrap inside the feed */
	uint32_t seg = 0, lost = 7, i, k;
	struct sse_gen *gen = calloc(1, sizeof *gen);
	struct fast_enc *enc = calloc(1, sizeof *enc);
	struct sse_gen_cfg gc;
	uint8_t buf[4096];

	tx_tcp(l, TX_EXA_IP, TX_PORT_A, isn, TCP_SYN, NULL, 0, ts++);
	for (o = 0; o < alen; o += mss, seg++) {
		size_t n = alen - o < mss ? alen - o : mss;
		if (seg == lost)
			continue;
		if (seg == 3 && o + mss < alen) {
			/* the next segment first */
			size_t n2 = alen - (o + mss) < mss ? alen - (o + mss) : mss;
			tx_tcp(l, TX_EXA_IP, TX_PORT_A, isn + 1 + (uint32_t)(o + mss), TCP_ACK | TCP_PSH, a + o + mss, n2, ts++);
			tx_tcp(l, TX_EXA_IP, TX_PORT_A, isn + 1 + (uint32_t)o, TCP_ACK | TCP_PSH, a + o, n, ts++);
			o += mss;
			seg++;
			continue;
		}
		tx_tcp(l, TX_EXA_IP, TX_PORT_A, isn + 1 + (uint32_t)o, TCP_ACK | TCP_PSH, a + o, n, ts++);
		if (seg == 2 * lost) {
			/* the hole stays open: timer ticks until the gap timeout (50 ms) declares it */
			for (k = 0; k < 60; k++) {
				ts += TX_MS;
				tx_add(l, NULL, 0, ts);
			}
		}
	}
	tx_tcp(l, TX_EXA_IP, TX_PORT_A, isn + 1 + (uint32_t)alen, TCP_FIN | TCP_ACK, NULL, 0, ts++);

	/* feed B: joined in the middle of its stream (no SYN) */
	for (o = blen / 3; o < blen; o += mss)
		tx_tcp(l, TX_EXB_IP, TX_PORT_B, 5000 + (uint32_t)o, TCP_ACK | TCP_PSH, b + o,
		       blen - o < mss ? blen - o : mss, ts++);

	/* STEP datagrams: one or two whole messages each */
	for (i = 0, o = 0; i < nmsgs; i += 2) {
		size_t end = cend[i + 1 < nmsgs ? i + 1 : i];
		tx_udp(l, TX_UDP_STEP, c + o, end - o, ts++);
		o = end;
	}
	/* raw FAST datagrams, dictionary reset per datagram */
	sse_gen_default(&gc);
	gc.seed = 24;
	CHECK_EQ(sse_gen_init(gen, &gc), 0);
	fast_enc_init(enc, &tx_prog);
	for (i = 0; i < 10; i++) {
		size_t n = 0;
		fast_enc_reset(enc);
		for (k = 0; k <= i % 3; k++) {
			union toe_record r;
			int e;
			sse_gen_next(gen, &r);
			e = sse_encode_raw(&tx_prog, enc, &r, buf + n, sizeof buf - n, NULL);
			CHECK(e > 0);
			n += e > 0 ? (size_t)e : 0;
		}
		tx_udp(l, TX_UDP_RAW, buf, n, ts++);
	}
	/* dropped: an unlistened port; a TCP segment of an unfollowed flow */
	tx_udp(l, 6000, buf, 40, ts++);
	tx_tcp(l, TX_OTHER_IP, 1234, 1, TCP_ACK, buf, 100, ts++);
	/* the end: every remaining hole a gap */
	for (k = 0; k < 60; k++) {
		ts += TX_MS;
		tx_add(l, NULL, 0, ts);
	}
	free(a);
	free(b);
	free(c);
	free(cend);
	free(gen);
	free(enc);
}

/* ---- the software path ---------------------------------------------------------------- */

struct tx_recs {
	union toe_record *r;
	uint32_t n, cap;
};

static inline void tx_rec_add(struct tx_recs *v, const union toe_record *r)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1024;
		v->r = realloc(v->r, v->cap * sizeof *v->r);
	}
	v->r[v->n++] = *r;
}

/* What the software backend's ring gets for these frames (timer ticks: rx_poll). */
static inline void tx_sw_run(const struct rx_cfg *cfg, const struct tx_frames *l, struct tx_recs *out)
{
	struct rx_pipe *p = calloc(1, sizeof *p);
	uint32_t nfs = RX_NSTREAMS(cfg), i;
	struct fast_stream *fs = calloc(nfs, sizeof *fs);
	uint64_t blen = MTOE_BUF_BYTES(cfg->mtoe.max_conns, cfg->mtoe.window);
	uint8_t *mbuf = malloc(blen);
	struct rx_out o;
	CHECK_EQ(rx_init(p, cfg, &tx_prog, fs, nfs, mbuf, blen), RX_OK);
	for (i = 0; i < l->n; i++) {
		if (l->len[i] == 0)
			rx_poll(p, l->ts[i]);
		else
			rx_frame(p, l->buf[i], l->len[i], l->ts[i]);
		for (;;) {
			memset(&o, 0, sizeof o);
			if (!rx_next(p, &o))
				break;
			if ((o.kind == RX_OUT_RECORD && o.tick_type > 0) || o.kind == RX_OUT_GAP || o.kind == RX_OUT_RESET)
				tx_rec_add(out, &o.tick);
		}
	}
	free(p);
	free(fs);
	free(mbuf);
}

/* The same frames through the fake card: a frame is queued and run, a timer
 * tick goes through the backend's clock. */
static inline int tx_fake_step(struct toe_fake *f, struct toe_xrt *be, const struct tx_frames *l, uint32_t i)
{
	if (l->len[i] == 0)
		return toe_xrt_set_time(be, l->ts[i]);
	if (toe_fake_frame(f, l->buf[i], l->len[i], l->ts[i]) < 0)
		return -1;
	return toe_fake_run(f, 1) == 1 ? 0 : -1;
}

/* Drain everything the backend has into out; returns records or -1. */
static inline int tx_drain(struct toe_xrt *be, struct tx_recs *out, int batch)
{
	union toe_record r[512];
	int n, total = 0, k;
	if (batch > 512)
		batch = 512;
	while ((n = toe_xrt_poll(be, r, batch)) > 0) {
		for (k = 0; k < n; k++)
			tx_rec_add(out, &r[k]);
		total += n;
	}
	return n < 0 ? -1 : total;
}

/* Log sink of the backend for tests: the messages since tx_last_log[0] was cleared, one a line. */
static char tx_last_log[8192];
static inline void tx_log(void *arg, int prio, const char *msg)
{
	size_t n = strlen(tx_last_log);
	(void)arg;
	(void)prio;
	snprintf(tx_last_log + n, sizeof tx_last_log - n, "%s\n", msg);
}

#endif
