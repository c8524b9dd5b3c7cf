/* gen_corpus_net_rx.c - writes the seed corpus of fuzz_net_rx: real frame sequences, built with tests/lib/pktbuild.
 *
 *   gen_corpus_net_rx DIR      (from the repository root: it reads conf/templates/)
 *
 * Each file is one fuzz_frames.h input: a switch byte and a few frames that
 * take the receive pipeline somewhere the fuzzer would hardly find alone:
 * VLAN and QinQ tags, IPv4 options, ARP and ICMP; a followed TCP connection
 * from SYN (with options) through STEP messages to FIN or RST, joined
 * mid-stream, reordered, duplicated and with a hole that times out; UDP STEP
 * and raw FAST datagrams; checksums left to offload with the source's word;
 * sequence tracking on reordered UDP datagrams and on A/B TCP lines.
 * The STEP messages are real (tools/feed/sse_gen, the SSE template set). The
 * output is deterministic: the committed corpus is this program's output
 * (tests/tools/test_fuzz_corpus.sh checks that).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast/host/fast_compile.h"
#include "feed/sse_gen.h"
#include "net/net_rx.h"
#include "pktbuild.h"

#include "fuzz_frames.h"

#define VENDOR_PORT 40000

static uint8_t out[16384];
static size_t used;
static const char *dir;
static struct fast_prog prog;
static struct fast_names names;
static struct sse_stream ss;
static uint8_t frame[4096];

static void begin(uint8_t sw)
{
	out[0] = sw;
	used = 1;
}

static void put(size_t len, unsigned csum, unsigned ms)
{
	size_t n = fzf_put(out + used, sizeof out - used, frame, len, csum, ms);
	if (!n || !len) {
		fprintf(stderr, "gen_corpus_net_rx: a seed does not fit\n");
		exit(1);
	}
	used += n;
}

static void finish(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(out, 1, used, f) != used || fclose(f)) {
		fprintf(stderr, "gen_corpus_net_rx: cannot write %s\n", path);
		exit(1);
	}
}

/* STEP messages of the SSE feed, concatenated: about `want` bytes. */
static size_t step_bytes(uint8_t *buf, size_t cap, size_t want)
{
	size_t n = 0;
	while (n < want) {
		uint32_t nrec;
		int m = sse_stream_next_msg(&ss, 2, buf + n, cap - n, NULL, NULL, &nrec);
		if (m <= 0)
			break;
		n += (size_t)m;
	}
	return n;
}

/* The exchange -> vendor direction of the followed feed. */
static void tcp_spec(struct pb_spec *s, uint32_t seq, uint8_t flags)
{
	pb_init(s);
	s->saddr = FZF_EX_IP;
	s->daddr = FZF_OUR_IP;
	s->sport = FZF_EX_PORT;
	s->dport = VENDOR_PORT;
	s->seq = seq;
	s->ack = 7000;
	s->tcp_flags = flags;
}

static const uint8_t syn_opts[20] = {2, 4, 0x05, 0x80,  /* MSS 1408 */
				     1, 3, 3, 7,        /* NOP, window scale 7 */
				     4, 2, 1, 1,        /* SACK permitted, NOPs */
				     8, 10, 0, 0, 0, 1, 0, 0}; /* timestamps (first 8 of 10 bytes) */
static const uint8_t ts_opts[12] = {1, 1, 8, 10, 0, 0, 0, 2, 0, 0, 0, 1};

/* SYN, SYN-ACK, ACK of a connection from the vendor to the exchange (isn: exchange's). */
static void handshake(uint32_t isn)
{
	struct pb_spec s;
	pb_init(&s);
	s.saddr = FZF_OUR_IP;
	s.daddr = FZF_EX_IP;
	s.sport = VENDOR_PORT;
	s.dport = FZF_EX_PORT;
	s.seq = 6999;
	s.tcp_flags = 0x02;
	s.tcp_opts = syn_opts;
	s.tcp_optlen = sizeof syn_opts;
	put(pb_tcp(frame, sizeof frame, &s, NULL, 0), NET_CSUM_UNKNOWN, 0);
	tcp_spec(&s, isn, 0x12);
	s.tcp_opts = syn_opts;
	s.tcp_optlen = sizeof syn_opts;
	put(pb_tcp(frame, sizeof frame, &s, NULL, 0), NET_CSUM_UNKNOWN, 0);
	pb_init(&s);
	s.saddr = FZF_OUR_IP;
	s.daddr = FZF_EX_IP;
	s.sport = VENDOR_PORT;
	s.dport = FZF_EX_PORT;
	s.seq = 7000;
	s.ack = isn + 1;
	s.tcp_flags = 0x10;
	put(pb_tcp(frame, sizeof frame, &s, NULL, 0), NET_CSUM_UNKNOWN, 0);
}

/* Data segments of `data` from seq, `mss` bytes each: the norder segments order[] names (NULL: all in order). */
static void segments(uint32_t seq, const uint8_t *data, size_t n, size_t mss, const int *order, size_t norder,
		     int csum_mode, unsigned ms)
{
	size_t nseg = (n + mss - 1) / mss;
	if (order)
		nseg = norder;
	for (size_t k = 0; k < nseg; k++) {
		size_t i = order ? (size_t)order[k] : k;
		if (i * mss >= n)
			continue;
		size_t off = i * mss, len = n - off < mss ? n - off : mss;
		struct pb_spec s;
		tcp_spec(&s, seq + (uint32_t)off, 0x18);
		s.tcp_opts = ts_opts;
		s.tcp_optlen = sizeof ts_opts;
		s.l4_csum = csum_mode == 1 ? PB_CSUM_PARTIAL : PB_CSUM_OK;
		put(pb_tcp(frame, sizeof frame, &s, data + off, len), csum_mode == 1 ? NET_CSUM_NOT_READY : NET_CSUM_UNKNOWN,
		    ms);
	}
}

static void fin_or_rst(uint32_t seq, uint8_t flags)
{
	struct pb_spec s;
	tcp_spec(&s, seq, flags);
	put(pb_tcp(frame, sizeof frame, &s, NULL, 0), NET_CSUM_UNKNOWN, 1);
}

int main(int argc, char **argv)
{
	static uint8_t data[8192];
	struct sse_gen_cfg gc;
	struct pb_spec s;
	char err[512];
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus_net_rx DIR (run from the repository root)\n");
		return 2;
	}
	dir = argv[1];
	if (fast_compile_file("conf/templates/sse-l2-3201-5801.xml", &prog, &names, err, sizeof err)) {
		fprintf(stderr, "gen_corpus_net_rx: %s\n", err);
		return 1;
	}
	sse_gen_default(&gc);
	gc.seed = 7;
	gc.nsecurities = 8;
	if (sse_stream_init(&ss, &prog, &gc, 2)) {
		fprintf(stderr, "gen_corpus_net_rx: sse_stream_init\n");
		return 1;
	}

	/* 1. a connection from SYN (options) to FIN: STEP messages in order */
	begin(FZF_TCP_CSUM | FZF_UDP_CSUM);
	handshake(100000);
	n = step_bytes(data, sizeof data, 900);
	segments(100001, data, n, 400, NULL, 0, 0, 1);
	fin_or_rst(100001 + (uint32_t)n, 0x11);
	finish("tcp_syn_step_fin");

	/* 2. joined mid-stream, segments reordered and one repeated, then RST */
	begin(FZF_TCP_CSUM | FZF_UDP_CSUM | FZF_TAP);
	n = step_bytes(data, sizeof data, 1000);
	{
		/* 1 before 0 after 2, 1 again (a duplicate), then the rest */
		int order[40], k = 0;
		size_t nseg = (n + 299) / 300;
		order[k++] = 0;
		order[k++] = 2;
		order[k++] = 1;
		order[k++] = 1;
		for (size_t i = 3; i < nseg && k < 40; i++)
			order[k++] = (int)i;
		segments(5555, data, n, 300, order, (size_t)k, 0, 0);
	}
	fin_or_rst(5555 + (uint32_t)n, 0x04);
	finish("tcp_join_reorder_rst");

	/* 3. a hole that times out: segment 1 never comes, 20 ms pass */
	begin(FZF_TCP_CSUM | FZF_UDP_CSUM | FZF_POLL_EACH);
	handshake(42);
	n = step_bytes(data, sizeof data, 900);
	{
		static const int order[] = {0, 2, 3};
		segments(43, data, n, 300, order, 3, 0, 20);
	}
	finish("tcp_hole_gap");

	/* 4. the second feed (any exchange address, port 5262), tagged VLAN 100 */
	begin(FZF_TCP_CSUM | FZF_UDP_CSUM);
	n = step_bytes(data, sizeof data, 500);
	tcp_spec(&s, 1, 0x02);
	s.saddr = 0x0a090909;
	s.sport = FZF_EX2_PORT;
	s.nvlan = 1;
	s.vlan_tci[0] = 100;
	put(pb_tcp(frame, sizeof frame, &s, NULL, 0), NET_CSUM_UNKNOWN, 0);
	s.seq = 2;
	s.tcp_flags = 0x18;
	put(pb_tcp(frame, sizeof frame, &s, data, n), NET_CSUM_UNKNOWN, 1);
	finish("tcp_feed2_vlan");

	/* 5. checksums left to offload, with the source's word (and one without) */
	begin(FZF_TCP_CSUM | FZF_UDP_CSUM | FZF_HINTS);
	n = step_bytes(data, sizeof data, 700);
	segments(900, data, n, 350, NULL, 0, 1, 1);
	tcp_spec(&s, 900 + (uint32_t)n, 0x18);
	s.l4_csum = PB_CSUM_PARTIAL;
	put(pb_tcp(frame, sizeof frame, &s, "x", 1), NET_CSUM_UNKNOWN, 0);
	put(pb_tcp(frame, sizeof frame, &s, "x", 1), NET_CSUM_VALID, 0);
	finish("tcp_csum_offload");

	/* 6. UDP STEP datagrams, one per message, QinQ-tagged; one to a port nobody listens to */
	begin(FZF_TCP_CSUM | FZF_UDP_CSUM);
	for (int i = 0; i < 3; i++) {
		uint32_t nrec;
		int m = sse_stream_next_msg(&ss, 2, data, sizeof data, NULL, NULL, &nrec);
		pb_init(&s);
		s.saddr = FZF_EX_IP;
		s.daddr = 0xe0010203; /* multicast */
		s.sport = 9000;
		s.dport = FZF_UDP_STEP_PORT;
		s.nvlan = 2;
		s.vlan_tpid[0] = 0x88a8;
		s.vlan_tci[0] = 10;
		s.vlan_tci[1] = 20;
		put(pb_udp(frame, sizeof frame, &s, data, m > 0 ? (size_t)m : 0), NET_CSUM_UNKNOWN, 1);
	}
	s.dport = 40999;
	put(pb_udp(frame, sizeof frame, &s, "none", 4), NET_CSUM_UNKNOWN, 0);
	finish("udp_step_qinq");

	/* 7. UDP raw FAST datagrams (one record each, each datagram a fresh dictionary) */
	begin(FZF_TCP_CSUM | FZF_UDP_CSUM | FZF_FILTER_DST);
	{
		struct fast_enc enc;
		for (int i = 0; i < 3; i++) {
			union toe_record r;
			fast_enc_init(&enc, &prog);
			sse_gen_next(&ss.gen, &r);
			int m = sse_encode_raw(&prog, &enc, &r, data, sizeof data, NULL);
			pb_init(&s);
			s.saddr = FZF_EX_IP;
			s.daddr = FZF_OUR_IP;
			s.dport = FZF_UDP_RAW_PORT;
			s.l4_csum = i == 2 ? PB_CSUM_ZERO : PB_CSUM_OK;
			put(pb_udp(frame, sizeof frame, &s, data, m > 0 ? (size_t)m : 0), NET_CSUM_UNKNOWN, 1);
		}
	}
	finish("udp_raw_fast");

	/* 8. the rest of the network layers: ARP, ICMP, IPv4 options, fragments, odd EtherTypes */
	begin(FZF_TCP_CSUM | FZF_UDP_CSUM | FZF_FILTER_DST);
	pb_init(&s);
	s.arp_tpa = FZF_OUR_IP;
	put(pb_arp(frame, sizeof frame, &s), NET_CSUM_UNKNOWN, 0);
	s.arp_op = 2;
	put(pb_arp(frame, sizeof frame, &s), NET_CSUM_UNKNOWN, 0);
	pb_init(&s);
	s.daddr = FZF_OUR_IP;
	put(pb_icmp(frame, sizeof frame, &s, "ping", 4), NET_CSUM_UNKNOWN, 0);
	s.icmp_type = 0;
	put(pb_icmp(frame, sizeof frame, &s, "pong", 4), NET_CSUM_UNKNOWN, 0);
	{
		static const uint8_t ipopt[8] = {0x94, 4, 0, 0, 1, 1, 1, 0}; /* router alert, NOPs, EOL */
		pb_init(&s);
		s.daddr = FZF_OUR_IP;
		s.ip_opts = ipopt;
		s.ip_optlen = sizeof ipopt;
		s.dport = FZF_UDP_STEP_PORT;
		put(pb_udp(frame, sizeof frame, &s, "8=STEP", 6), NET_CSUM_UNKNOWN, 0);
		uint8_t whole[256], frag[256];
		size_t w = pb_udp(whole, sizeof whole, &s, "0123456789abcdef0123456789abcdef", 32);
		(void)w;
		pb_init(&s);
		s.daddr = FZF_OUR_IP;
		w = pb_udp(whole, sizeof whole, &s, "0123456789abcdef0123456789abcdef", 32);
		size_t fl = pb_ipv4_fragment(whole, w, 16, 0, frag, sizeof frag);
		memcpy(frame, frag, fl);
		put(fl, NET_CSUM_UNKNOWN, 0);
	}
	pb_init(&s);
	s.nvlan = 3;
	put(pb_udp(frame, sizeof frame, &s, "deep", 4), NET_CSUM_UNKNOWN, 0);
	pb_init(&s);
	put(pb_eth(frame, sizeof frame, &s, 0x86dd, "ipv6....", 8), NET_CSUM_UNKNOWN, 0);
	pb_init(&s);
	s.ip_csum = PB_CSUM_BAD;
	put(pb_udp(frame, sizeof frame, &s, "bad", 3), NET_CSUM_UNKNOWN, 0);
	pb_init(&s);
	n = pb_tcp(frame, sizeof frame, &s, "cut short", 9);
	put(n - 12, NET_CSUM_UNKNOWN, 0); /* truncated: IPv4 total length beyond the frame */
	finish("net_layers");

	/* 9. sequence tracking on UDP STEP datagrams: one reordered (3 before 2), one repeated, one lost (6),
	 * the lost one's hole running out over 2 ms */
	begin(FZF_SEQ | FZF_TCP_CSUM | FZF_UDP_CSUM | FZF_POLL_EACH);
	{
		static const int order[] = {0, 1, 3, 2, 4, 4, 5, 7, 8};
		static uint8_t msg[10][1024];
		int len[10];
		for (int i = 0; i < 10; i++) {
			uint32_t nrec;
			len[i] = sse_stream_next_msg(&ss, 2, msg[i], sizeof msg[i], NULL, NULL, &nrec);
		}
		for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
			int i = order[k];
			pb_init(&s);
			s.saddr = FZF_EX_IP;
			s.daddr = FZF_OUR_IP;
			s.sport = 9000;
			s.dport = FZF_UDP_STEP_PORT;
			put(pb_udp(frame, sizeof frame, &s, msg[i], len[i] > 0 ? (size_t)len[i] : 0), NET_CSUM_UNKNOWN,
			    i == 7 ? 2 : 0);
		}
	}
	finish("udp_step_seq");

	/* 10. A/B lines: both TCP feeds (lines 0 and 1 of one group) carry the same messages, joined
	 * mid-stream, each missing a segment the other has, interleaved */
	begin(FZF_SEQ | FZF_TCP_CSUM | FZF_UDP_CSUM);
	n = step_bytes(data, sizeof data, 1200);
	for (size_t i = 0; i * 300 < n; i++) {
		size_t off = i * 300, len = n - off < 300 ? n - off : 300;
		for (int line = 0; line < 2; line++) {
			if ((line == 0 && i == 1) || (line == 1 && i == 3))
				continue;
			tcp_spec(&s, 20000 + (uint32_t)off, 0x18);
			if (line == 1) {
				s.saddr = 0x0a090909;
				s.sport = FZF_EX2_PORT;
			}
			put(pb_tcp(frame, sizeof frame, &s, data + off, len), NET_CSUM_UNKNOWN, 0);
		}
	}
	finish("tcp_seq_ab");

	/* 11. line 0 of the A/B group loses a segment; the ones after it wait behind the byte hole until
	 * the end-of-capture poll times it out: the records it releases jump, a hole that poll must report */
	begin(FZF_SEQ | FZF_TCP_CSUM | FZF_UDP_CSUM);
	n = step_bytes(data, sizeof data, 1200);
	{
		static const int order[] = {0, 2, 3};
		segments(30000, data, n, 300, order, 3, 0, 0);
	}
	finish("tcp_seq_final_hole");
	return 0;
}
