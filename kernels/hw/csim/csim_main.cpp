/* csim_main.cpp - C-simulation of the HLS tops against the software receive pipeline.
 *
 * The seven tops are chained by hls::stream exactly as link.cfg connects them
 * (cmac rx -> eth_rx_top -> mirror_toe_top -> gtoe_top / udp_top -> fast_top
 * -> hbm_writer_top -> four simulated HBM pseudo-channels; eth_rx_top and
 * gtoe_top -> tx_arb_top -> cmac tx). The "host" programs
 * them only through the register map (toe_regmap.h, toe_hw_cfg.h: the same
 * writes the daemon makes), stamps time through TIME_*, and reads the ring
 * back through WRITE_INDEX / READ_INDEX as the XRT backend will.
 *
 * The same frames go through the software path (rx_frame / rx_poll /
 * rx_next of kernels/rx/rx_pipe.c); every entry that the software backend
 * would put in its ring (tick records, gaps, resets) must appear in the HBM
 * ring in the same order, bit for bit, and the kernels' counters must equal
 * the software path's. Independent checks: the decoded ticks equal the
 * generator's (tools/feed/sse_gen.c) where no loss was injected, ARP
 * and ICMP replies, beat counts, and the ring-full behaviour worked out from
 * the ring size.
 *
 * Feeds: SSE STEP messages from sse_gen over a mirrored TCP connection (with
 * reordering, a duplicate, two lost segments - one a window gap, one a
 * timeout gap - and a corrupted byte), a second connection joined
 * mid-stream and reset, UDP with STEP framing (one message cut at a datagram
 * end) and with raw FAST datagrams, and frames the network layers drop.
 *
 * Role tcp (test_gtoe): a whole TCP conversation of gtoe_top with a peer
 * built from pktbuild, against the software backend's calls (dp_tcp's):
 * transmitted frames and records byte for byte.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "csim.h"
extern "C" {
#include "fast/host/fast_encode.h"
}

#define TEMPLATES "conf/templates/sse-l2-3201-5801.xml"

/* ---- the simulated card ------------------------------------------------ */

device D;

void reg_write(uint32_t kid, uint32_t off, uint32_t val)
{
	if (kid >= TOE_KID_ALL || off % 4) {
		CHECK(!"register write: bad kernel or unaligned");
	} else if (kid != TOE_KID_TXARB && off >= TOE_REG_CFG && off < TOE_REG_CFG + 4 * TOE_CFG_WORDS) {
		D.cfg[kid][(off - TOE_REG_CFG) / 4] = val;
	} else if (kid == TOE_KID_GTOE && off >= TOE_GTOE_REG_CONN && off < TOE_GTOE_REG_CONN + 4 * TOE_GTOE_CONN_WORDS) {
		D.gconn[(off - TOE_GTOE_REG_CONN) / 4] = val;
	} else if (kid == TOE_KID_GTOE && off >= TOE_GTOE_REG_TXD && off < TOE_GTOE_REG_TXD + 4 * TOE_GTOE_TXD_WORDS) {
		D.gtxd[(off - TOE_GTOE_REG_TXD) / 4] = val;
	} else if (kid == TOE_KID_FAST && off >= TOE_FAST_REG_PROG && off < TOE_FAST_REG_PROG + 4 * TOE_FAST_PROG_WORDS) {
		D.prog[(off - TOE_FAST_REG_PROG) / 4] = val;
	} else if (kid == TOE_KID_HBM && off >= TOE_HBM_REG_ADDR(0) && off < TOE_HBM_REG_ADDR(TOE_HW_HBM_CHANNELS) &&
		   (off & 0xf) < 8) {
		uint32_t ch = (off - TOE_HBM_REG_ADDR(0)) / 16, sh = (off & 4) ? 32 : 0;
		D.hbm_addr[ch] = (D.hbm_addr[ch] & ~(0xffffffffull << sh)) | (uint64_t)val << sh;
	} else {
		fprintf(stderr, "write to unmapped register: kernel %u offset 0x%x\n", kid, off);
		CHECK(!"register write: unmapped");
	}
}

uint32_t reg_read(uint32_t kid, uint32_t off)
{
	if (kid < TOE_KID_ALL && off % 4 == 0 && off >= TOE_REG_STAT && off < TOE_REG_STAT + 4 * TOE_STAT_WORDS)
		return D.stat[kid][(off - TOE_REG_STAT) / 4];
	if (kid < TOE_KID_ALL && kid != TOE_KID_TXARB && off % 4 == 0 && off >= TOE_REG_CFG &&
	    off < TOE_REG_CFG + 4 * TOE_CFG_WORDS)
		return D.cfg[kid][(off - TOE_REG_CFG) / 4];
	if (kid == TOE_KID_GTOE && off % 4 == 0 && off >= TOE_GTOE_REG_CST && off < TOE_GTOE_REG_CST + 4 * TOE_GTOE_CST_WORDS)
		return D.gcst[(off - TOE_GTOE_REG_CST) / 4];
	if (kid == TOE_KID_GTOE && off % 4 == 0 && off >= TOE_GTOE_REG_CONN && off < TOE_GTOE_REG_CONN + 4 * TOE_GTOE_CONN_WORDS)
		return D.gconn[(off - TOE_GTOE_REG_CONN) / 4];
	fprintf(stderr, "read of unmapped register: kernel %u offset 0x%x\n", kid, off);
	CHECK(!"register read: unmapped");
	return 0;
}

/* Counter i of a kernel, read as the host must (high, low, high). */
uint64_t ctr(uint32_t kid, uint32_t i)
{
	uint32_t hi, lo;
	do {
		hi = reg_read(kid, TOE_CTR_HI(i));
		lo = reg_read(kid, TOE_CTR_LO(i));
	} while (reg_read(kid, TOE_CTR_HI(i)) != hi);
	return (uint64_t)hi << 32 | lo;
}

static bool streams_empty()
{
	return D.mac_rx.empty() && D.eth_tcp.empty() && D.eth_udp.empty() && D.eth_gtoe.empty() && D.ev.empty() &&
	       D.gev.empty() && D.udp.empty() && D.rec.empty() && D.eth_tx.empty() && D.gtoe_tx.empty();
}

/* One call each of the kernels behind the eth_rx_tops, in link order: both layouts' rounds end with
 * them (seg: the mirror TOE's input, gtoe: gtoe_top's frames, udp: udp_top's datagrams). */
void run_shared(hls::stream<hw_beat> &seg, hls::stream<hw_beat> &gtoe, hls::stream<hw_beat> &udp)
{
	mirror_toe_top(seg, D.ev, D.cfg[TOE_KID_MTOE], D.stat[TOE_KID_MTOE]);
	gtoe_top(gtoe, D.ev, D.gev, D.gtoe_tx, D.cfg[TOE_KID_GTOE], D.gconn, D.gtxd, D.gcst, D.stat[TOE_KID_GTOE]);
	tx_arb_top(D.eth_tx, D.gtoe_tx, D.mac_tx, D.stat[TOE_KID_TXARB]);
	udp_top(udp, D.udp, D.cfg[TOE_KID_UDP], D.stat[TOE_KID_UDP]);
	fast_top(D.gev, D.udp, D.rec, D.cfg[TOE_KID_FAST], D.prog, D.stat[TOE_KID_FAST]);
	hbm_writer_top(D.rec, D.hbm[0].data(), D.hbm[1].data(), D.hbm[2].data(), D.hbm[3].data(), D.cfg[TOE_KID_HBM],
		       D.stat[TOE_KID_HBM]);
}

/* Run every kernel until nothing moves (free-running kernels, one call each per round). */
void run()
{
	int idle = 0;
	long guard;
	for (guard = 0; idle < 2 && guard < 50000000; guard++) {
		bool empty = streams_empty();
		eth_rx_top(D.mac_rx, D.eth_tx, D.eth_tcp, D.eth_udp, D.eth_gtoe, D.cfg[TOE_KID_ETH_RX],
			   D.stat[TOE_KID_ETH_RX]);
		run_shared(D.eth_tcp, D.eth_gtoe, D.eth_udp);
		idle = empty ? idle + 1 : 0;
	}
	CHECK(idle >= 2);
}

/* Program every kernel from cfg, as the daemon will. */
static void program(const rx_cfg *cfg, const fast_prog *prog, uint32_t role, uint32_t slots, uint32_t gen)
{
	static toe_hw_wr w[TOE_HW_CFG_MAX_WRITES];
	toe_hw_opts o;
	uint32_t ch, n, k;
	int nw;

	o.role = role;
	o.gateway = 0x0a0100fe;
	o.mss = MSS;
	o.ring_slots = slots;
	nw = toe_hw_cfg_writes(cfg, &o, w, TOE_HW_CFG_MAX_WRITES);
	CHECK(nw > 0);
	for (k = 0; nw > 0 && k < (uint32_t)nw; k++)
		reg_write(w[k].kid, w[k].off, w[k].val);
	D.slots = slots;
	for (ch = 0; ch < TOE_HW_HBM_CHANNELS; ch++) {
		uint64_t addr = 0x4000000000ull + ((uint64_t)ch << 28); /* HBM[ch] */
		D.hbm[ch].assign(2 * slots, hw_word(0));
		reg_write(TOE_KID_HBM, TOE_HBM_REG_ADDR(ch), (uint32_t)addr);
		reg_write(TOE_KID_HBM, TOE_HBM_REG_ADDR(ch) + 4, (uint32_t)(addr >> 32));
		CHECK_EQ(D.hbm_addr[ch], addr);
	}
	for (n = 0; n < TOE_PROG_BYTES / 4; n++)
		reg_write(TOE_KID_FAST, TOE_FAST_PROG(4 * n), toe_hw_prog_word(prog, n));
	for (k = 0; k < 5; k++)
		reg_write(toe_hw_apply_order[k], TOE_CFG(TOE_CF_APPLY), gen);
	D.rd = 0;
	run();
}

void set_time(uint64_t t)
{
	reg_write(TOE_KID_ETH_RX, TOE_CFG(TOE_ETH_CF_TIME_LO), (uint32_t)t);
	reg_write(TOE_KID_ETH_RX, TOE_CFG(TOE_ETH_CF_TIME_HI), (uint32_t)(t >> 32));
	reg_write(TOE_KID_ETH_RX, TOE_CFG(TOE_ETH_CF_TIME_SEQ), ++D.time_seq);
}

void push_frame(const std::vector<uint8_t> &f, hls::stream<hw_mac_beat> &mac)
{
	size_t off, i;
	for (off = 0; off < f.size(); off += HW_MAC_BYTES) {
		hw_mac_beat b;
		size_t n = f.size() - off < HW_MAC_BYTES ? f.size() - off : HW_MAC_BYTES;
		b.data = 0;
		for (i = 0; i < n; i++)
			b.data.range(8 * i + 7, 8 * i) = f[off + i];
		b.keep = hw_keep_all((int)n);
		b.strb = b.keep;
		b.last = off + n == f.size() ? 1 : 0;
		mac.write(b);
	}
}

std::vector<uint8_t> pop_frame(hls::stream<hw_mac_beat> &s)
{
	std::vector<uint8_t> f;
	for (;;) {
		hw_mac_beat b = s.read();
		uint32_t i, n = 0;
		for (i = 0; i < HW_MAC_BYTES; i++)
			if (b.keep.range(i, i).to_uint())
				n = i + 1;
		for (i = 0; i < n; i++)
			f.push_back((uint8_t)b.data.range(8 * i + 7, 8 * i).to_uint());
		if (b.last)
			break;
	}
	return f;
}

static void word_bytes(const hw_word &w, uint8_t *out)
{
	for (int i = 0; i < HW_BEAT_BYTES; i++)
		out[i] = (uint8_t)w.range(8 * i + 7, 8 * i).to_uint();
}

/* Ring slot of record k, as the host reads it. */
static union toe_record ring_at(uint32_t k)
{
	union toe_record r;
	uint32_t pos = k & (4 * D.slots - 1), ch = pos & 3, slot = pos >> 2;
	word_bytes(D.hbm[ch][2 * slot], r.bytes);
	word_bytes(D.hbm[ch][2 * slot + 1], r.bytes + HW_BEAT_BYTES);
	return r;
}

/* The host's drain: every record between its read index and WRITE_INDEX. */
void host_drain(std::vector<union toe_record> &got)
{
	uint32_t w = reg_read(TOE_KID_HBM, TOE_STAT(TOE_HBM_ST_WRITE_INDEX));
	while (D.rd != w)
		got.push_back(ring_at(D.rd++));
	reg_write(TOE_KID_HBM, TOE_CFG(TOE_HBM_CF_READ_INDEX), D.rd);
}

/* ---- the software path --------------------------------------------------- */

void sw_init(swpath &s, const rx_cfg *cfg, const fast_prog *prog)
{
	s.p = (rx_pipe *)calloc(1, sizeof *s.p);
	s.fs = (fast_stream *)calloc(RX_NSTREAMS(cfg), sizeof *s.fs);
	s.buf_len = MTOE_BUF_BYTES(cfg->mtoe.max_conns, cfg->mtoe.window);
	s.buf = (uint8_t *)calloc(1, s.buf_len);
	if (!s.p || !s.fs || !s.buf) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	CHECK_EQ(rx_init(s.p, cfg, prog, s.fs, RX_NSTREAMS(cfg), s.buf, s.buf_len), RX_OK);
	s.ring.clear();
}

void sw_free(swpath &s)
{
	free(s.p);
	free(s.fs);
	free(s.buf);
}

void sw_drain(swpath &s)
{
	rx_out out;
	for (;;) {
		memset(&out, 0, sizeof out);
		if (!rx_next(s.p, &out))
			break;
		if ((out.kind == RX_OUT_RECORD && out.tick_type > 0) || out.kind == RX_OUT_GAP ||
		    out.kind == RX_OUT_RESET)
			s.ring.push_back(out.tick);
		else if (out.kind == RX_OUT_SESS) /* a session stream's message or close (rx_sess.h) */
			for (uint32_t k = 0; k < rx_sess_records(&out); k++) {
				union toe_record r;
				rx_sess_record(&r, &out, k);
				s.ring.push_back(r);
			}
	}
}

/* ---- scenarios ------------------------------------------------------------ */

struct step {
	bool tick;      /* timer tick at ts, else a frame stamped with the last tick */
	uint64_t ts;
	std::vector<uint8_t> frame;
};

/* Run the steps through both paths; the host drains the card after every
 * step unless hw_ring is NULL. */
static uint64_t g_now; /* the last tick: frames are stamped with it */

static void exec(const std::vector<step> &steps, swpath &sw, std::vector<union toe_record> *hw_ring)
{
	uint64_t &now = g_now;
	for (const step &st : steps) {
		if (st.tick) {
			now = st.ts;
			rx_poll(sw.p, now);
			sw_drain(sw);
			set_time(now);
		} else {
			rx_frame(sw.p, st.frame.data(), (uint32_t)st.frame.size(), now);
			sw_drain(sw);
			push_frame(st.frame);
		}
		run();
		if (hw_ring)
			host_drain(*hw_ring);
	}
}

std::vector<uint8_t> tcp_frame(uint32_t sa, uint16_t sp, uint32_t da, uint16_t dp, uint32_t seq, uint32_t ack,
				      uint8_t flags, const uint8_t *p, size_t n)
{
	static const uint8_t none = 0;
	pb_spec s;
	std::vector<uint8_t> f(n + 128);
	if (!p)
		p = &none; /* no payload: never hand libc a null pointer */
	pb_init(&s);
	s.saddr = sa;
	s.daddr = da;
	s.sport = sp;
	s.dport = dp;
	s.seq = seq;
	s.ack = ack;
	s.tcp_flags = flags;
	s.win = 65535;
	memcpy(s.dst_mac, OUR_MAC, 6);
	f.resize(pb_tcp(f.data(), f.size(), &s, p, n));
	return f;
}

std::vector<uint8_t> udp_frame(uint16_t dport, const uint8_t *p, size_t n)
{
	pb_spec s;
	std::vector<uint8_t> f(n + 128);
	pb_init(&s);
	s.saddr = OTHER_IP;
	s.daddr = OUR_IP;
	s.sport = 7000;
	s.dport = dport;
	memcpy(s.dst_mac, OUR_MAC, 6);
	f.resize(pb_udp(f.data(), f.size(), &s, p, n));
	return f;
}

/* A STEP feed: the bytes of nmsgs messages and the generator's ticks. */
void make_feed(const fast_prog *prog, uint64_t seed, int nmsgs, feed &f)
{
	sse_stream *ss = (sse_stream *)calloc(1, sizeof *ss);
	sse_gen_cfg gc;
	static uint8_t buf[65536];
	union toe_record ticks[8];
	uint32_t nrecs, k;
	sse_gen_default(&gc);
	gc.seed = seed;
	CHECK_EQ(sse_stream_init(ss, prog, &gc, 4), 0);
	for (int i = 0; i < nmsgs; i++) {
		int n = sse_stream_next_msg(ss, 4, buf, sizeof buf, NULL, ticks, &nrecs);
		CHECK(n > 0);
		if (n <= 0)
			break;
		f.bytes.insert(f.bytes.end(), buf, buf + n);
		f.msg_end.push_back(f.bytes.size());
		for (k = 0; k < nrecs; k++) {
			f.ticks.push_back(ticks[k]);
			f.tick_msg.push_back((size_t)i);
		}
	}
	free(ss);
}

/* The body of a tick (after the header) and its type and present mask agree. */
bool same_tick(const union toe_record &a, const union toe_record &b)
{
	return a.hdr.type == b.hdr.type && a.hdr.present == b.hdr.present &&
	       memcmp(a.bytes + sizeof(toe_rec_hdr), b.bytes + sizeof(toe_rec_hdr),
		      TOE_RECORD_SIZE - sizeof(toe_rec_hdr)) == 0;
}

void base_cfg(rx_cfg &cfg)
{
	rx_cfg_default(&cfg);
	net_cfg_add(&cfg.net, OUR_IP, 0xffffff00u, OUR_MAC, 0);
	cfg.mtoe.max_conns = MAX_CONNS;
	cfg.mtoe.flows[0].ex_addr = EXA_IP;
	cfg.mtoe.flows[0].ex_port = PORT_A;
	cfg.mtoe.flows[1].ex_addr = EXB_IP;
	cfg.mtoe.flows[1].ex_port = PORT_B;
	cfg.mtoe.nflows = 2;
	cfg.nudp = 2;
	cfg.udp[0].port = UDP_STEP;
	cfg.udp[0].framing = FAST_FRAMING_STEP;
	cfg.udp[1].port = UDP_DGRAM;
	cfg.udp[1].framing = FAST_FRAMING_DATAGRAM;
}

/* ---- checks ---------------------------------------------------------------- */

void check_header(uint32_t kid, uint32_t gen, uint32_t status)
{
	CHECK_EQ(reg_read(kid, TOE_STAT(TOE_ST_MAGIC)), TOE_HW_MAGIC);
	CHECK_EQ(reg_read(kid, TOE_STAT(TOE_ST_VERSION)), TOE_REGMAP_VERSION);
	CHECK_EQ(reg_read(kid, TOE_STAT(TOE_ST_KERNEL)), kid);
	CHECK_EQ(reg_read(kid, TOE_STAT(TOE_ST_APPLIED)), gen);
	CHECK_EQ(reg_read(kid, TOE_STAT(TOE_ST_STATUS)), status);
}

void check_rings(const std::vector<union toe_record> &hw, const std::vector<union toe_record> &sw)
{
	size_t k, bad = 0;
	CHECK_EQ(hw.size(), sw.size());
	for (k = 0; k < hw.size() && k < sw.size(); k++) {
		if (memcmp(hw[k].bytes, sw[k].bytes, TOE_RECORD_SIZE) != 0) {
			if (bad++ < 5)
				fprintf(stderr, "ring record %zu differs: hw type %u stream %u, sw type %u stream %u\n", k,
					hw[k].hdr.type, hw[k].hdr.stream, sw[k].hdr.type, sw[k].hdr.stream);
		}
	}
	CHECK_EQ(bad, 0);
}

/* Index of a TOE_FAST_CTRS counter, by name. */
static uint32_t fast_ctr_index(const char *name)
{
	uint32_t i = 0, n = 0;
	bool found = false;
#define FAST_IDX(x)                                 \
	if (!found && strcmp(#x, name) == 0) {      \
		i = n;                              \
		found = true;                       \
	}                                           \
	n++;
	TOE_FAST_CTRS(FAST_IDX)
#undef FAST_IDX
	CHECK(found);
	return i;
}

/* mirror_toe_top's segments, ticks and mtoe counters and fast_top's counters against the software path's
 * (both layouts). */
void check_shared_ctrs(const swpath &sw, uint32_t nticks)
{
	uint32_t i;
	CHECK_EQ(ctr(TOE_KID_MTOE, 0), sw.p->st.tcp);
	CHECK_EQ(ctr(TOE_KID_MTOE, 1), nticks);
	i = TOE_MTOE_CTR_STATS;
#define CMP_MTOE(name) CHECK_EQ(ctr(TOE_KID_MTOE, i++), sw.p->mtoe.st.name);
	TOE_MTOE_STATS(CMP_MTOE)
#undef CMP_MTOE
	i = 0;
#define CMP_FAST(name) CHECK_EQ(ctr(TOE_KID_FAST, i++), sw.p->st.name);
	TOE_FAST_CTRS(CMP_FAST)
#undef CMP_FAST
}

/* Counters of every kernel against the software path's. */
static void check_counters(const swpath &sw, const net_stats &arp_ref, uint32_t nframes, uint64_t octets,
			   uint64_t beats, uint32_t nticks)
{
	const rx_pipe *p = sw.p;
	uint32_t i = 0, e, k;

	/* eth_rx_top */
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 0), beats);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 1), nframes);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 2), octets);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 3), 0); /* oversize */
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 4), 0); /* held */
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 5), p->st.tcp);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 6), p->st.udp);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 7), nticks);
	CHECK_EQ(p->st.polls, nticks);
	i = TOE_ETH_CTR_NET;
#define CMP_ETH(name) CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.eth.name);
#define CMP_IP(name) CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.ip.name);
#define CMP_TCP(name) CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.tcp.name);
	NET_ETH_STATS(CMP_ETH)
	NET_IP_STATS(CMP_IP)
	NET_TCP_STATS(CMP_TCP)
	/* net_rx's UDP counters here, the listen table's in udp_top */
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.in_datagrams);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.in_octets);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.no_csum);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.csum_unchecked);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.csum_not_ready);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.csum_source_ok);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), 0); /* delivered */
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.drop_udp_hdr);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.drop_udp_len);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), p->net.udp.drop_udp_csum);
	CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), 0); /* drop_udp_port */
	/* ARP and ICMP: rx_pipe only classifies them; the card answers them */
#define CMP_ICMP(name) CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), arp_ref.icmp.name);
#define CMP_ARP(name) CHECK_EQ(ctr(TOE_KID_ETH_RX, i++), arp_ref.arp.name);
	NET_ICMP_STATS(CMP_ICMP)
	NET_ARP_STATS(CMP_ARP)
	CHECK_EQ(i, TOE_ETH_CTR_NET + NET_STATS_COUNT);
	CHECK_EQ(reg_read(TOE_KID_ETH_RX, TOE_STAT(TOE_ST_NCTR)), TOE_ETH_CTR_NET + NET_STATS_COUNT);

	/* udp_top */
	CHECK_EQ(ctr(TOE_KID_UDP, 0), p->st.udp);
	CHECK_EQ(ctr(TOE_KID_UDP, 1), p->net.udp.delivered);
	CHECK_EQ(ctr(TOE_KID_UDP, 1), p->st.udp_listened);
	CHECK_EQ(ctr(TOE_KID_UDP, 2), p->net.udp.drop_udp_port);
	CHECK_EQ(ctr(TOE_KID_UDP, 4), 0);

	/* mirror_toe_top, fast_top */
	check_shared_ctrs(sw, nticks);
	CHECK_EQ(ctr(TOE_KID_MTOE, 3), p->mtoe.st.bytes);
	CHECK_EQ(ctr(TOE_KID_MTOE, 4), 0);
	CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 0), ctr(TOE_KID_MTOE, 2) + ctr(TOE_KID_UDP, 1));
	CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 1), sw.ring.size());
	CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 2), 0);
	for (e = 0; e < TOE_FAST_ERR_SLOTS; e++) {
		uint64_t n = 0;
		for (k = 0; e < FAST_ERR_COUNT && k < RX_NSTREAMS(&p->cfg); k++)
			n += sw.fs[k].step.errors[e] + sw.fs[k].dec.errors[e];
		CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_ERR + e), n);
	}

	/* hbm_writer_top */
	CHECK_EQ(ctr(TOE_KID_HBM, 0), sw.ring.size());
	CHECK_EQ(ctr(TOE_KID_HBM, 1), sw.ring.size());
	CHECK_EQ(ctr(TOE_KID_HBM, 2), 0);
	CHECK_EQ(ctr(TOE_KID_HBM, 3), 0);
	CHECK_EQ(reg_read(TOE_KID_HBM, TOE_STAT(TOE_HBM_ST_WRITE_INDEX)), (uint32_t)sw.ring.size());
}

/* ---- the main scenario ------------------------------------------------------- */

static uint64_t beats_of(size_t len)
{
	return (len + HW_MAC_BYTES - 1) / HW_MAC_BYTES;
}

static void test_feeds(const fast_prog *prog)
{
	rx_cfg cfg;
	swpath sw;
	feed fa, fb, fc;
	std::vector<step> steps;
	std::vector<std::vector<uint8_t>> side; /* frames of the other feeds, interleaved into A */
	std::vector<union toe_record> hw, dgram_ticks;
	std::vector<uint8_t> dgram_frame;
	std::vector<std::vector<uint8_t>> replies_ref;
	net_stats ref;
	net_arp *ref_arp = (net_arp *)calloc(1, sizeof *ref_arp);
	fast_enc *enc = (fast_enc *)calloc(1, sizeof *enc);
	sse_gen *gen = (sse_gen *)calloc(1, sizeof *gen);
	sse_gen_cfg gc;
	const uint32_t isn = 0xfffe8000; /* sequence numbers wrap past 2^32 inside the stream */
	uint64_t t = 1000000000ull, octets = 0, beats = 0;
	uint32_t nframes = 0, nticks = 0, nseg, i, k;
	size_t a_clean_end;
	static uint8_t buf[16384];

	base_cfg(cfg);
	/* 1024 records: the ring wraps, and one frame (a filled hole releases a
	 * window of data) still yields fewer records than that */
	program(&cfg, prog, TOE_ROLE_MAIN, 256, 1);
	for (k = 0; k < 5; k++)
		check_header(toe_hw_apply_order[k], 1, TOE_STATUS_OK);
	sw_init(sw, &cfg, prog);

	make_feed(prog, 11, 800, fa);
	make_feed(prog, 12, 60, fb);
	make_feed(prog, 13, 30, fc);

	/* connection B: joined mid-message, then reset by the exchange */
	{
		uint32_t seq = 0x1000, off;
		for (off = 1000; off + MSS <= fb.bytes.size() && off < 1000 + 10 * MSS; off += MSS) {
			side.push_back(tcp_frame(EXB_IP, PORT_B, OUR_IP, VPORT_B, seq + off, 1, TCP_ACK | TCP_PSH,
						 fb.bytes.data() + off, MSS));
		}
		side.push_back(tcp_frame(EXB_IP, PORT_B, OUR_IP, VPORT_B, seq + off, 1, TCP_RST, NULL, 0));
	}
	/* UDP, STEP framing: one or two whole messages per datagram; datagram 5
	 * ends with the first half of a message (lost) */
	{
		size_t m = 0, start = 0;
		for (i = 0; m + 2 < fc.msg_end.size(); i++) {
			size_t end = fc.msg_end[m + (i % 2)];
			if (i == 5) {
				size_t cut = fc.msg_end[m + 1] - (fc.msg_end[m + 1] - fc.msg_end[m]) / 2;
				side.push_back(udp_frame(UDP_STEP, fc.bytes.data() + start, cut - start));
				m += 2;
				start = fc.msg_end[m - 1];
				continue;
			}
			side.push_back(udp_frame(UDP_STEP, fc.bytes.data() + start, end - start));
			m += 1 + (i % 2);
			start = end;
		}
	}
	/* UDP, DATAGRAM framing: raw FAST, dictionary reset per datagram */
	sse_gen_default(&gc);
	gc.seed = 14;
	CHECK_EQ(sse_gen_init(gen, &gc), 0);
	fast_enc_init(enc, prog);
	for (i = 0; i < 12; i++) {
		size_t len = 0;
		fast_enc_reset(enc);
		for (k = 0; k <= i % 3; k++) {
			union toe_record r;
			int n;
			sse_gen_next(gen, &r);
			n = sse_encode_raw(prog, enc, &r, buf + len, sizeof buf - len, NULL);
			CHECK(n > 0);
			len += n > 0 ? (size_t)n : 0;
			dgram_ticks.push_back(r);
		}
		side.push_back(udp_frame(UDP_DGRAM, buf, len));
		if (i == 0)
			dgram_frame = side.back();
	}
	/* dropped by the network layers or the listen table, answered, not followed */
	side.push_back(udp_frame(UDP_OTHER, buf, 40));
	side.push_back(udp_frame(UDP_OTHER, buf, 41));
	{
		pb_spec s;
		std::vector<uint8_t> f(256);
		pb_init(&s);
		s.saddr = OTHER_IP;
		s.daddr = OUR_IP;
		s.arp_op = NET_ARP_OP_REQUEST;
		s.arp_spa = OTHER_IP;
		s.arp_tpa = OUR_IP;
		memcpy(s.arp_sha, s.src_mac, 6);
		memset(s.dst_mac, 0xff, 6);
		f.resize(pb_arp(f.data(), f.size(), &s));
		side.push_back(f);

		pb_init(&s);
		f.assign(256, 0);
		s.saddr = OTHER_IP;
		s.daddr = OUR_IP;
		memcpy(s.dst_mac, OUR_MAC, 6);
		s.icmp_type = NET_ICMP_ECHO_REQUEST;
		s.icmp_id = 77;
		s.icmp_seq = 3;
		f.resize(pb_icmp(f.data(), f.size(), &s, "0123456789abcdef0123456789abcdef", 32));
		side.push_back(f);

		pb_init(&s);
		f.assign(256, 0);
		s.saddr = EXA_IP;
		s.daddr = OUR_IP;
		s.sport = PORT_A;
		s.dport = VPORT_A;
		s.ip_csum = PB_CSUM_BAD;
		f.resize(pb_tcp(f.data(), f.size(), &s, "x", 1));
		side.push_back(f);
	}
	side.push_back(tcp_frame(0x0a090909, 1234, OUR_IP, 80, 1, 1, TCP_ACK | TCP_PSH, buf, 100));

	/* connection A: SYN, data at MSS, with one reordered pair, a duplicate,
	 * a lost segment well before the end (window gap), a corrupted byte and
	 * a lost segment near the end (timeout gap), FIN */
	std::vector<uint8_t> abytes = fa.bytes;
	nseg = (uint32_t)((abytes.size() + MSS - 1) / MSS);
	abytes[30 * MSS + 700] ^= 0x20;
	a_clean_end = 20 * MSS;
	std::vector<std::vector<uint8_t>> aframes;
	aframes.push_back(tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn, 0, TCP_SYN, NULL, 0));
	aframes.push_back(tcp_frame(OUR_IP, VPORT_A, EXA_IP, PORT_A, 5000, isn + 1, TCP_SYN | TCP_ACK, NULL, 0));
	for (i = 0; i < nseg; i++) {
		uint32_t s = i == 5 ? 6 : i == 6 ? 5 : i;
		size_t off = (size_t)s * MSS, n = abytes.size() - off < MSS ? abytes.size() - off : MSS;
		if (s == 20 || s == nseg - 3)
			continue;
		aframes.push_back(tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn + 1 + (uint32_t)off, 5001,
					    TCP_ACK | TCP_PSH, abytes.data() + off, n));
		if (i == 9)
			aframes.push_back(tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn + 1 + 8 * MSS, 5001,
						    TCP_ACK | TCP_PSH, abytes.data() + 8 * MSS, MSS));
		if (i % 8 == 7)
			aframes.push_back(tcp_frame(OUR_IP, VPORT_A, EXA_IP, PORT_A, 5001, isn + 1 + (uint32_t)off,
						    TCP_ACK, NULL, 0));
	}
	aframes.push_back(tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn + 1 + (uint32_t)abytes.size(), 5001,
				    TCP_ACK | TCP_FIN, NULL, 0));

	/* interleave, a timer tick every 6 frames (200 us), then 20..100 ms of ticks */
	{
		size_t ia = 0, is = 0;
		uint32_t n = 0;
		steps.push_back(step{ true, t, {} });
		while (ia < aframes.size() || is < side.size()) {
			bool take_a = ia < aframes.size() && (is >= side.size() || n % 3 != 2);
			steps.push_back(step{ false, 0, take_a ? aframes[ia++] : side[is++] });
			if (++n % 6 == 0) {
				t += 200000;
				steps.push_back(step{ true, t, {} });
			}
		}
		for (i = 1; i <= 5; i++)
			steps.push_back(step{ true, t + i * 20000000ull, {} });
	}
	for (const step &st : steps) {
		if (st.tick) {
			nticks++;
			continue;
		}
		nframes++;
		octets += st.frame.size();
		beats += beats_of(st.frame.size());
	}

	/* the replies the card must send: the same kernels called directly */
	net_stats_init(&ref);
	net_arp_init(ref_arp);
	for (const step &st : steps) {
		net_pkt pkt;
		uint32_t n = 0;
		static uint8_t out[TOE_HW_MAX_FRAME];
		if (st.tick)
			continue;
		int v = net_rx(&cfg.net, &ref, st.frame.data(), (uint32_t)st.frame.size(), 0, &pkt);
		if (v == NET_RX_ARP)
			n = net_arp_input(ref_arp, &cfg.net, &ref, &pkt, 0, out, sizeof out);
		else if (v == NET_RX_ICMP)
			n = net_icmp_input(&cfg.net, &ref, &pkt, out, sizeof out);
		if (n)
			replies_ref.push_back(std::vector<uint8_t>(out, out + n));
	}

	exec(steps, sw, &hw);

	/* the software path saw what the feeds were built to show */
	{
		uint32_t ticks = 0, resets = 0, g_to = 0, g_win = 0, g_dec = 0;
		for (const union toe_record &r : sw.ring) {
			ticks += r.hdr.type == TOE_REC_TRADE || r.hdr.type == TOE_REC_ORDER;
			resets += r.hdr.type == TOE_REC_RESET;
			g_to += r.hdr.type == TOE_REC_GAP && r.gap.reason == TOE_GAP_TIMEOUT;
			g_win += r.hdr.type == TOE_REC_GAP && r.gap.reason == TOE_GAP_WINDOW;
			g_dec += r.hdr.type == TOE_REC_GAP && r.gap.reason == TOE_GAP_DECODE;
		}
		printf("feeds: %u frames, %u ticks; ring: %zu records (%u ticks, %u resets, gaps: %u timeout, %u window, "
		       "%u decode)\n",
		       nframes, nticks, sw.ring.size(), ticks, resets, g_to, g_win, g_dec);
		CHECK(ticks > 500);
		CHECK_EQ(resets, 2); /* connection A (SYN) and B (join) */
		CHECK_EQ(g_to, 1);
		CHECK(g_win >= 1);
		CHECK(g_dec >= 3); /* corrupted byte, B's join, the cut datagram */
		CHECK_EQ(sw.p->mtoe.st.opens, 1);
		CHECK_EQ(sw.p->mtoe.st.joins, 1);
		CHECK(sw.p->mtoe.st.not_followed >= 1);
		CHECK_EQ(sw.p->net.udp.drop_udp_port, 2);
		CHECK_EQ(sw.p->net.ip.drop_ip_csum, 1);
	}

	/* the card's ring is the software ring */
	check_rings(hw, sw.ring);
	check_counters(sw, ref, nframes, octets, beats, nticks);
	for (k = 0; k < 5; k++)
		check_header(toe_hw_apply_order[k], 1, TOE_STATUS_OK);

	/* independent: connection A's ticks before its first loss are the generator's */
	{
		size_t j = 0, want = 0, got_a = 0;
		uint16_t sa = 0xffff;
		for (const union toe_record &r : hw)
			if (r.hdr.type == TOE_REC_RESET) {
				sa = r.hdr.stream;
				break;
			}
		while (want < fa.ticks.size() && fa.msg_end[fa.tick_msg[want]] <= a_clean_end)
			want++;
		CHECK(want > 100);
		for (const union toe_record &r : hw) {
			if (r.hdr.stream != sa || (r.hdr.type != TOE_REC_TRADE && r.hdr.type != TOE_REC_ORDER))
				continue;
			if (j < want) {
				got_a += same_tick(r, fa.ticks[j]) && r.hdr.msg_seq == fa.tick_msg[j] + 1;
				j++;
			}
		}
		CHECK_EQ(got_a, want);
	}
	/* independent: every raw FAST datagram decodes to the generator's ticks */
	{
		size_t j = 0, same = 0;
		for (const union toe_record &r : hw) {
			if (r.hdr.stream != MAX_CONNS + 1)
				continue;
			same += j < dgram_ticks.size() && same_tick(r, dgram_ticks[j]) && r.hdr.msg_seq == 0;
			j++;
		}
		CHECK_EQ(j, dgram_ticks.size());
		CHECK_EQ(same, dgram_ticks.size());
	}
	/* ARP and ICMP replies went out on the main port, as the kernels write them */
	{
		CHECK_EQ(replies_ref.size(), 2);
		CHECK_EQ(ctr(TOE_KID_ETH_RX, 8), 2); /* tx_frames */
		CHECK_EQ(ctr(TOE_KID_ETH_RX, 10), 0); /* tx_suppressed */
		for (k = 0; k < replies_ref.size() && !D.mac_tx.empty(); k++) {
			std::vector<uint8_t> f = pop_frame(D.mac_tx);
			CHECK_EQ(f.size(), replies_ref[k].size());
			CHECK(f == replies_ref[k]);
		}
		CHECK_EQ(k, 2);
		CHECK(D.mac_tx.empty());
	}

	/* messages for streams fast_top does not have (a mirror TOE or udp_top
	 * configured apart from it): each counted once in bad_stream, its
	 * payload consumed, nothing written; the next datagram decodes as the
	 * software path decodes it */
	{
		static uint8_t junk[300];
		const uint32_t bad_i = fast_ctr_index("bad_stream"), bytes_i = fast_ctr_index("bytes");
		const uint32_t listened_i = fast_ctr_index("udp_listened");
		hw_msg m;
		size_t sw0 = sw.ring.size();
		for (k = 0; k < sizeof junk; k++)
			junk[k] = (uint8_t)('8' + k % 7);
		uint64_t msgs0 = ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 0), out0 = ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 1);
		uint64_t bytes0 = ctr(TOE_KID_FAST, bytes_i), listened0 = ctr(TOE_KID_FAST, listened_i);
		CHECK_EQ(ctr(TOE_KID_FAST, bad_i), 0);
		/* DATA for slot MAX_CONNS: the first UDP stream's decoder, not a connection */
		hw_msg_clear(m);
		m.kind = HW_MSG_EV;
		m.type = MTOE_EV_DATA;
		m.stream = MAX_CONNS;
		m.len = sizeof junk;
		m.ev_len = sizeof junk;
		m.ts_ns = g_now;
		hw_send(D.ev, m, junk);
		/* OPEN for a slot far beyond */
		m.type = MTOE_EV_OPEN;
		m.stream = 0xffff;
		m.len = 0;
		m.ev_len = 0;
		hw_send(D.ev, m, junk);
		/* a datagram of port 0 numbered as if the TCP streams were one fewer */
		hw_msg_clear(m);
		m.kind = HW_MSG_UDP;
		m.stream = MAX_CONNS - 1;
		m.offset = 0;
		m.len = sizeof junk;
		m.ts_ns = g_now;
		hw_send(D.udp, m, junk);
		/* a port index beyond the two configured, numbered consistently */
		m.stream = MAX_CONNS + 5;
		m.offset = 5;
		hw_send(D.udp, m, junk);
		run();
		host_drain(hw);
		CHECK_EQ(ctr(TOE_KID_FAST, bad_i), 4);
		CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 0), msgs0 + 4);
		CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 1), out0);
		CHECK_EQ(ctr(TOE_KID_FAST, bytes_i), bytes0); /* nothing fed */
		CHECK_EQ(ctr(TOE_KID_FAST, listened_i), listened0);
		CHECK_EQ(hw.size(), sw0);
		rx_frame(sw.p, dgram_frame.data(), (uint32_t)dgram_frame.size(), g_now);
		sw_drain(sw);
		CHECK(sw.ring.size() > sw0); /* the datagram holds records */
		push_frame(dgram_frame);
		run();
		host_drain(hw);
		check_rings(hw, sw.ring);
		CHECK_EQ(ctr(TOE_KID_FAST, bad_i), 4);
		CHECK_EQ(ctr(TOE_KID_FAST, listened_i), listened0 + 1);
	}

	/* a program that is not one: fast_top refuses it and drops its input */
	{
		uint32_t w0 = D.prog[0];
		reg_write(TOE_KID_FAST, TOE_FAST_PROG(0), 0);
		reg_write(TOE_KID_FAST, TOE_CFG(TOE_FAST_CF_PROG_VALID), 2);
		run();
		check_header(TOE_KID_FAST, 2, TOE_STATUS_BAD_PROG | TOE_FAST_BAD_MAGIC << 16);
		push_frame(dgram_frame);
		run();
		host_drain(hw);
		CHECK_EQ(ctr(TOE_KID_FAST, TOE_FAST_CTR_HW + 2), 1); /* held */
		CHECK_EQ(hw.size(), sw.ring.size());
		reg_write(TOE_KID_FAST, TOE_FAST_PROG(0), w0);
		reg_write(TOE_KID_FAST, TOE_CFG(TOE_FAST_CF_PROG_VALID), 0);
		run();
		check_header(TOE_KID_FAST, 0, TOE_STATUS_HELD);
	}
	sw_free(sw);
	free(ref_arp);
	free(enc);
	free(gen);
}

/* ---- ring full -------------------------------------------------------------- */

static void test_ring_full(const fast_prog *prog)
{
	rx_cfg cfg;
	swpath sw;
	feed f;
	std::vector<step> first, middle, second;
	std::vector<union toe_record> hw;
	uint64_t t = 5000000000ull;
	uint32_t nseg, i, n, n1, m, cut;
	const uint32_t slots = 2, total = 4 * slots, isn = 1000;

	base_cfg(cfg);
	program(&cfg, prog, TOE_ROLE_MIRROR, slots, 3);
	for (i = 0; i < 5; i++)
		check_header(toe_hw_apply_order[i], 3, TOE_STATUS_OK);
	CHECK_EQ(reg_read(TOE_KID_HBM, TOE_STAT(TOE_HBM_ST_WRITE_INDEX)), 0);
	sw_init(sw, &cfg, prog);

	make_feed(prog, 21, 60, f);
	nseg = (uint32_t)((f.bytes.size() + MSS - 1) / MSS);
	cut = nseg / 2;
	first.push_back(step{ true, t, {} });
	first.push_back(step{ false, 0, tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn, 0, TCP_SYN, NULL, 0) });
	for (i = 0; i < nseg; i++) {
		size_t off = (size_t)i * MSS, len = f.bytes.size() - off < MSS ? f.bytes.size() - off : MSS;
		step s{ false, 0, tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn + 1 + (uint32_t)off, 1,
					   TCP_ACK | TCP_PSH, f.bytes.data() + off, len) };
		(i < cut ? first : i == cut ? middle : second).push_back(s);
		if (i % 4 == 3 && i != cut)
			(i < cut ? first : second).push_back(step{ true, t += 100000, {} });
	}
	{
		/* mirror role: the ARP request is answered in the counters only */
		pb_spec s;
		std::vector<uint8_t> fr(256);
		pb_init(&s);
		s.arp_op = NET_ARP_OP_REQUEST;
		s.arp_spa = OTHER_IP;
		s.arp_tpa = OUR_IP;
		memcpy(s.arp_sha, s.src_mac, 6);
		memset(s.dst_mac, 0xff, 6);
		fr.resize(pb_arp(fr.data(), fr.size(), &s));
		first.push_back(step{ false, 0, fr });
	}

	/* the host reads nothing: 8 records fit, the rest is dropped */
	exec(first, sw, NULL);
	n = (uint32_t)sw.ring.size();
	CHECK(n > total + 4);
	CHECK_EQ(reg_read(TOE_KID_HBM, TOE_STAT(TOE_HBM_ST_WRITE_INDEX)), total);
	CHECK_EQ(ctr(TOE_KID_HBM, 0), n);         /* records_in */
	CHECK_EQ(ctr(TOE_KID_HBM, 1), total);     /* written */
	CHECK_EQ(ctr(TOE_KID_HBM, 2), n - total); /* dropped */
	CHECK_EQ(ctr(TOE_KID_HBM, 3), 0);
	for (i = 0; i < total; i++) {
		union toe_record r = ring_at(i);
		CHECK_MEM(r.bytes, sw.ring[i].bytes, TOE_RECORD_SIZE);
	}
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 8), 0);  /* tx_frames */
	CHECK_EQ(ctr(TOE_KID_ETH_RX, 10), 1); /* tx_suppressed */
	CHECK(D.mac_tx.empty());

	/* a frame longer than the card takes is dropped and counted */
	{
		std::vector<uint8_t> big(TOE_HW_MAX_FRAME + 200, 0xab);
		uint64_t frames = ctr(TOE_KID_ETH_RX, 1), beats = ctr(TOE_KID_ETH_RX, 0);
		uint64_t tcp = ctr(TOE_KID_ETH_RX, 5), udp = ctr(TOE_KID_ETH_RX, 6);
		push_frame(big);
		run();
		CHECK_EQ(ctr(TOE_KID_ETH_RX, 3), 1);
		CHECK_EQ(ctr(TOE_KID_ETH_RX, 1), frames + 1);
		CHECK_EQ(ctr(TOE_KID_ETH_RX, 0), beats + beats_of(big.size()));
		CHECK_EQ(ctr(TOE_KID_ETH_RX, 5), tcp);
		CHECK_EQ(ctr(TOE_KID_ETH_RX, 6), udp);
	}

	/* one slot free is not enough: the overflow gap and a record need two */
	D.rd = 1; /* the host consumed the first record only */
	reg_write(TOE_KID_HBM, TOE_CFG(TOE_HBM_CF_READ_INDEX), D.rd);
	exec(middle, sw, NULL);
	n1 = (uint32_t)sw.ring.size();
	CHECK(n1 > n);
	CHECK_EQ(reg_read(TOE_KID_HBM, TOE_STAT(TOE_HBM_ST_WRITE_INDEX)), total);
	CHECK_EQ(ctr(TOE_KID_HBM, 2), n1 - total);
	CHECK_EQ(ctr(TOE_KID_HBM, 3), 0);
	host_drain(hw);

	/* the host frees the ring: one overflow gap, then records again until full */
	CHECK_EQ(hw.size(), total - 1);
	exec(second, sw, NULL);
	m = (uint32_t)sw.ring.size() - n1;
	CHECK(m > total);
	CHECK_EQ(reg_read(TOE_KID_HBM, TOE_STAT(TOE_HBM_ST_WRITE_INDEX)), 2 * total);
	CHECK_EQ(ctr(TOE_KID_HBM, 1), 2 * total);
	CHECK_EQ(ctr(TOE_KID_HBM, 3), 1);
	CHECK_EQ(ctr(TOE_KID_HBM, 2), (n1 - total) + (m - (total - 1)));
	{
		union toe_record g = ring_at(total);
		CHECK_EQ(g.hdr.type, TOE_REC_GAP);
		CHECK_EQ(g.hdr.stream, TOE_HW_STREAM_ALL);
		CHECK_EQ(g.hdr.present, 0);
		CHECK_EQ(g.hdr.msg_seq, 0);
		CHECK_EQ(g.hdr.rx_ns, sw.ring[n1 - 1].hdr.rx_ns);
		CHECK_EQ(g.gap.reason, TOE_GAP_OVERFLOW);
		CHECK_EQ(g.gap.records, n1 - total);
		CHECK_EQ(g.gap.offset, 0);
		CHECK_EQ(g.gap.length, 0);
		for (i = 1; i < total; i++) {
			union toe_record r = ring_at(total + i);
			CHECK_MEM(r.bytes, sw.ring[n1 + i - 1].bytes, TOE_RECORD_SIZE);
		}
	}
	/* a read index ahead of the write index makes no sense: the ring looks full */
	reg_write(TOE_KID_HBM, TOE_CFG(TOE_HBM_CF_READ_INDEX), 3 * total);
	{
		uint64_t dropped = ctr(TOE_KID_HBM, 2);
		std::vector<step> one;
		/* a SYN with a new ISN restarts connection A: a reset record */
		one.push_back(step{ false, 0, tcp_frame(EXA_IP, PORT_A, OUR_IP, VPORT_A, isn + 7777, 0, TCP_SYN, NULL,
							 0) });
		exec(one, sw, NULL);
		CHECK_EQ(ctr(TOE_KID_HBM, 2), dropped + (sw.ring.size() - n1 - m));
		CHECK(sw.ring.size() > (size_t)n1 + m);
	}
	sw_free(sw);
}

/* The template memory words decode to the program, field by field. */
static void test_prog_words(const fast_prog *prog)
{
	static uint32_t w[TOE_FAST_PROG_WORDS];
	static fast_prog back;
	uint32_t n;
	for (n = 0; n < TOE_PROG_BYTES / 4; n++)
		w[n] = toe_hw_prog_word(prog, n);
	CHECK_EQ(w[0], FAST_PROG_MAGIC);
	CHECK_EQ(toe_hw_prog_decode(w, &back), 0);
	CHECK_MEM(&back, prog, sizeof back);
	w[1] ^= 0x3; /* version */
	CHECK_EQ(toe_hw_prog_decode(w, &back), TOE_FAST_BAD_VERSION);
}

/* Configurations the card cannot hold are refused before any write. */
static void test_cfg_limits(void)
{
	static toe_hw_wr w[TOE_HW_CFG_MAX_WRITES];
	rx_cfg cfg;
	toe_hw_opts o = { TOE_ROLE_MIRROR, 0, MSS, 64 };
	base_cfg(cfg);
	CHECK(toe_hw_cfg_writes(&cfg, &o, w, TOE_HW_CFG_MAX_WRITES) > 0);
	CHECK_EQ(toe_hw_cfg_writes(&cfg, &o, w, 10), TOE_HWCFG_E_CAP);
	cfg.mtoe.max_conns = TOE_HW_TCP_STREAMS + 1;
	CHECK_EQ(toe_hw_cfg_writes(&cfg, &o, w, TOE_HW_CFG_MAX_WRITES), TOE_HWCFG_E_CONNS);
	base_cfg(cfg);
	cfg.mtoe.window = 1u << 20;
	CHECK_EQ(toe_hw_cfg_writes(&cfg, &o, w, TOE_HW_CFG_MAX_WRITES), TOE_HWCFG_E_BUF);
	base_cfg(cfg);
	cfg.nudp = TOE_HW_UDP_STREAMS + 1;
	CHECK_EQ(toe_hw_cfg_writes(&cfg, &o, w, TOE_HW_CFG_MAX_WRITES), TOE_HWCFG_E_UDP);
	base_cfg(cfg);
	o.ring_slots = 48;
	CHECK_EQ(toe_hw_cfg_writes(&cfg, &o, w, TOE_HW_CFG_MAX_WRITES), TOE_HWCFG_E_SLOTS);

	/* gtoe_top: more entries than slots, buffers beyond the card's, an MSS other than eth_rx_top's */
	{
		gtoe_cfg gc;
		toe_hw_gtoe_conn ent[3];
		uint32_t n = 0;
		memset(ent, 0, sizeof ent);
		base_cfg(cfg);
		o.mss = MSS;
		gtoe_cfg_default(&gc);
		gc.mss = MSS;
		gc.max_conns = 2;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_GTOE);
		gc.max_conns = 64;
		gc.snd_buf = 8192;
		gc.rcv_buf = 65536;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_GTOE);
		gc.rcv_buf = 32768;
		gc.mss = 1000;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_GTOE);
		gc.mss = MSS;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, 10, &n), TOE_HWCFG_E_CAP);
		CHECK_EQ(n, 0);
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), 0);
		CHECK_EQ(n, 6 + 5 * cfg.net.naddr + 7 + 6 * 3); /* an entry: its four words and two limits */
		/* an entry's limits beyond gc's; ACCEPT entries without a port or sharing one */
		n = 0;
		ent[1].mss = MSS + 1;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_GTOE);
		ent[1].mss = 63;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_GTOE);
		ent[1].mss = 536;
		ent[2].window = 65536;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_GTOE);
		ent[2].window = 4096;
		ent[0].accept = ent[2].accept = 1;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_GTOE);
		ent[0].lport = ent[2].lport = 7000;
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), TOE_HWCFG_E_GTOE);
		ent[2].lport = 7001;
		CHECK_EQ(n, 0);
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, 3, w, TOE_HW_CFG_MAX_WRITES, &n), 0);
		CHECK_EQ(n, 6 + 5 * cfg.net.naddr + 7 + 6 * 3);
	}
	/* gtoe_top listens on at most GTOE_MAX_LISTEN ports */
	{
		gtoe_cfg gc;
		static toe_hw_gtoe_conn ent[GTOE_MAX_LISTEN + 1];
		uint32_t n = 0, i;
		memset(ent, 0, sizeof ent);
		base_cfg(cfg);
		o.mss = MSS;
		gtoe_cfg_default(&gc);
		gc.mss = MSS;
		gc.max_conns = 32;
		gc.snd_buf = 8192;
		for (i = 0; i <= GTOE_MAX_LISTEN; i++) {
			ent[i].accept = 1;
			ent[i].lport = (uint16_t)(7000 + i);
		}
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, GTOE_MAX_LISTEN + 1, w, TOE_HW_CFG_MAX_WRITES, &n),
			 TOE_HWCFG_E_GTOE);
		CHECK_EQ(toe_hw_gtoe_writes(&cfg, &o, &gc, ent, GTOE_MAX_LISTEN, w, TOE_HW_CFG_MAX_WRITES, &n), 0);
	}
}

int main(void)
{
	static fast_prog prog;
	static fast_names names;
	char err[256];

	if (fast_compile_file(TEMPLATES, &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	printf("hw csim: %d-byte MAC beats\n", HW_MAC_BYTES);
	test_prog_words(&prog);
	test_cfg_limits();
	test_feeds(&prog);
	test_ring_full(&prog);
	csim_ports(&prog);
	csim_gtoe(&prog);
	csim_gtoe_accept(&prog);
	csim_tx_arb();
	return test_done("hw_csim");
}
