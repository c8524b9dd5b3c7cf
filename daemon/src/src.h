/* src.h - the software backend's frame sources: AF_XDP, AF_PACKET (TPACKET_V3) and pcap replay.
 *
 * The data-plane thread pulls raw Ethernet frames (no FCS) from one source per
 * port (the software backend's [port.0..3], each on its own interface) and
 * feeds them to the receive pipeline with their port (rx_frame_port):
 *
 *   struct src_cfg c = { .kind = SRC_AF_PACKET, .ifname = "eth1" };   // zero fields = defaults
 *   if (src_open(&s, &c, err, sizeof err) < 0) { log(err); exit(78); }
 *   for (;;) {
 *       int n = src_rx_burst(s, f, 64);
 *       if (n == SRC_EOF) break;                  // pcap only, after the last loop
 *       if (n < 0) { ...errno... }
 *       if (n == 0) { src_wait(s, 100); continue; }   // or busy-poll: just loop
 *       for (i = 0; i < n; i++) rx_frame_port(pipe, port, f[i].data, f[i].len, f[i].ts_ns, f[i].csum); ...drain...
 *       src_rx_release(s);                        // f[] may be overwritten from now on
 *   }
 *   src_close(s);
 *
 * Frames of a burst stay valid and unchanged until src_rx_release() or the
 * next src_rx_burst(), whichever comes first; they point into the kernel
 * ring (AF_PACKET block, AF_XDP UMEM) or a buffer of the source (pcap,
 * multi-buffer AF_XDP frames, link-type conversion). A frame is at most
 * SRC_MAX_FRAME bytes (a 64 KB GRO/TSO super-frame with two VLAN tags);
 * longer ones are cut and counted as truncated (len < wire_len).
 *
 * ts_ns is UNIX time (CLOCK_REALTIME) in ns, taken where the frame entered,
 * and clock (enum toe_rx_clock, toe/tick.h) says which clock took it:
 *   AF_XDP     the NIC's hardware stamp through the XDP RX-metadata kfunc
 *              bpf_xdp_metadata_rx_timestamp (kernel >= 6.3, a driver that has
 *              one; assumed synchronised to UTC, e.g. by ptp4l + phc2sys),
 *              otherwise bpf_ktime_get_ns() read by the XDP program (CLOCK_MONOTONIC,
 *              moved to CLOCK_REALTIME here), both carried in the frame's
 *              metadata area (struct toe_xdp_meta); the time of the poll only
 *              when a frame came without metadata;
 *   AF_PACKET  SO_TIMESTAMPING: the NIC's raw hardware stamp when the driver
 *              gives one (TP_STATUS_TS_RAW_HARDWARE), else the kernel's receive stamp;
 *   pcap       the recorded time (later loops shifted, see src_cfg.loops).
 *
 * VLAN tags: AF_PACKET sees frames after the kernel moved the outer tag to
 * metadata; the source writes it back, so every source delivers the frame as
 * it was on the wire. (A NIC that strips tags in hardware hides them from
 * AF_XDP: turn rx-vlan offload off on a mirror port.)
 *
 * Threads: every call on one struct src comes from one thread at a time
 * (src_stats included: the data plane publishes the counters it reads).
 * Nothing here sets RLIMIT_MEMLOCK: libbpf 1.x on kernel >= 5.11 uses memcg
 * accounting for BPF maps, and UMEM registration needs CAP_IPC_LOCK or a
 * large enough limit (a refusal is reported as an error, not retried).
 */
#ifndef SRC_H
#define SRC_H

#include <stddef.h>
#include <stdint.h>

#include "toe/tick.h" /* enum toe_rx_clock */

enum src_kind {
	SRC_AF_XDP = 1,
	SRC_AF_PACKET = 2,
	SRC_PCAP = 3,
};

/* src_cfg.xdp_mode */
enum src_xdp_mode {
	SRC_XDP_NATIVE = 0, /* driver mode, copy into the UMEM (XDP_COPY): works on veth and most NICs */
	SRC_XDP_SKB = 1,    /* generic mode: any interface, slower; on veth it loses frames above ~3.5 KB */
};

#define SRC_EOF (-2)               /* src_rx_burst: the pcap replay is over (sticky) */
#define SRC_MAX_FRAME 65560u       /* = NET_MAX_FRAME: 65535-byte IPv4 packet + Ethernet + 2 tags */
#define SRC_MAX_FEEDS 1024u        /* entries of the AF_XDP steering map */
#define SRC_LOOP_FOREVER 0xffffffffu

/* AF_XDP defaults, sized for a stall of the reader during a burst at 10 GbE
 * line rate. One-record STEP messages (~160-byte frames + 24 of FCS,
 * preamble and gap: 10^10 / 8 / 184 = 6.8 M frames/s) fill 65536 ring
 * entries in 9.6 ms, about the longest hypervisor stall seen on these
 * machines (~10 ms) and two scheduler slices (4 ms); the smallest frames (64
 * + 20 bytes: 14.88 M frames/s) in 4.4 ms. The UMEM holds a full rx ring and
 * a full fill ring at once: 131072 frames of 2048 bytes, 256 MiB (a 1500-byte
 * frame fits one; larger frames use several, multi-buffer). */
#define SRC_XDP_RX_RING_DEFAULT 65536u
#define SRC_XDP_FILL_RING_DEFAULT 65536u
#define SRC_XDP_FRAMES_DEFAULT 131072u
#define SRC_XDP_FRAME_SIZE_DEFAULT 2048u
#define SRC_XDP_RING_MIN 64u
#define SRC_XDP_RING_MAX 262144u
#define SRC_XDP_FRAMES_MAX (1u << 21)
#define SRC_XDP_BIND_WAIT_MS_DEFAULT 2000u
#define SRC_XDP_TX_FRAMES 512u   /* UMEM frames for transmit (and the tx ring's size) */

/* One steering rule: an exchange endpoint. A frame goes to the AF_XDP
 * socket when its source or its destination (IPv4 address, TCP/UDP port)
 * matches a rule of the same protocol. ip 0 = any address with that port
 * (e.g. a UDP listen port); port 0 = any port of that address; not both.
 * Host byte order, like struct net_cfg. */
struct src_feed {
	uint32_t ip;
	uint16_t port;
	uint8_t proto;      /* 6 TCP, 17 UDP; SRC_PROTO_ICMP, SRC_PROTO_ARP: a port's own address */
};
/* ICMP to ip, ARP packets whose target address is ip (ip required, port 0):
 * the answers of a port with an address (role tcp or udp). */
#define SRC_PROTO_ICMP 1
#define SRC_PROTO_ARP 254

/* Every field 0/NULL means its default. */
struct src_cfg {
	int kind;                       /* enum src_kind */

	/* live capture (AF_XDP, AF_PACKET) */
	const char *ifname;
	int no_promisc;                 /* 1: leave promiscuous mode off (a mirror port needs it on) */

	/* AF_PACKET TPACKET_V3 ring: block_count blocks of block_size bytes. */
	uint32_t afp_block_size;        /* 0: 1 MiB; a power of two, >= page size; frames longer than
					 * a block (minus headers) are truncated */
	uint32_t afp_block_count;       /* 0: 64 (64 MiB: ~50 ms of a saturated 10G link) */
	uint32_t afp_block_timeout_ms;  /* 0: 1; a partly filled block is handed over after this */

	/* AF_XDP */
	uint32_t queue;                 /* the NIC receive queue the socket binds to: the NIC must
					 * deliver the feeds there (one channel, or an ntuple rule);
					 * feed frames on other queues go to the host stack and are
					 * counted as xdp_no_socket */
	int xdp_mode;                   /* enum src_xdp_mode */
	const char *bpf_obj_path;       /* toe_steer.bpf.o (required) */
	const struct src_feed *feeds;   /* the frames to steer to the socket; all others go on to */
	uint32_t nfeeds;                /* the host stack (XDP_PASS) */
	/* Ring and UMEM sizes (0: the defaults, sized for a burst at 10 GbE line
	 * rate, see SRC_XDP_*_DEFAULT). The rx ring absorbs what arrives while
	 * the reader is not running; the fill ring must hold a free frame for
	 * every one of those arrivals, so frames >= rx ring + fill ring keeps the
	 * fill ring full even while the rx ring is full. */
	uint32_t xdp_frames;            /* UMEM frames, >= xdp_fill_ring */
	uint32_t xdp_frame_size;        /* 2048 or 4096; bigger frames use several
					 * (multi-buffer, when the kernel supports it) */
	uint32_t xdp_rx_ring;           /* rx ring entries (power of two, 64 .. 262144) */
	uint32_t xdp_fill_ring;         /* fill ring entries (power of two, 64 .. 262144) */
	int xdp_busy_poll;              /* 1: ask for preferred busy polling (SO_PREFER_BUSY_POLL,
					 * SO_BUSY_POLL, SO_BUSY_POLL_BUDGET) and run the queue's NAPI
					 * from src_rx_burst when the ring is empty; refused options
					 * are reported in src_describe(), not an error */
	uint32_t xdp_bind_wait_ms;      /* 0: 2000; how long a queue the kernel is still releasing
					 * (EBUSY after a previous socket closed or died) is retried */

	/* Transmit (AF_XDP, AF_PACKET): 0 on a mirror port, which never sends.
	 * AF_XDP: a tx ring and a completion ring on the same socket, and
	 * SRC_XDP_TX_FRAMES more UMEM frames that only carry transmitted frames;
	 * AF_PACKET: send() on the receiving socket (its ring skips our own
	 * frames: afp_outgoing). pcap cannot send: src_open refuses tx there. */
	int tx;

	/* pcap replay */
	const char *pcap_path;          /* Ethernet, Linux cooked (SLL, SLL2) or raw IPv4 captures */
	double pace;                    /* 0: as fast as possible; 1.0: recorded pace; 2.0: twice as fast */
	uint32_t loops;                 /* times the file is played: 0 or 1 once, SRC_LOOP_FOREVER.
					 * Loop k's timestamps are shifted by k * (last - first + mean
					 * gap), so time keeps going forward as one continuous recording */
};

/* src_frame.csum: what the source knows of the frame's TCP/UDP checksum
 * (the values of NET_CSUM_*, kernels/net/net_rx.h). Only AF_PACKET knows
 * (tp_status); AF_XDP in copy mode and pcap files say nothing. */
#define SRC_CSUM_UNKNOWN 0u
#define SRC_CSUM_VALID 1u     /* TP_STATUS_CSUM_VALID: the NIC or kernel verified it */
#define SRC_CSUM_NOT_READY 2u /* TP_STATUS_CSUMNOTREADY: left to transmit offload, not filled in */

struct src_frame {
	const uint8_t *data;
	uint32_t len;        /* bytes at data */
	uint32_t wire_len;   /* length on the wire (> len when truncated) */
	uint32_t clock;      /* enum toe_rx_clock: which clock took ts_ns */
	uint64_t ts_ns;      /* CLOCK_REALTIME ns at arrival (see the top of this file) */
	uint32_t csum;       /* SRC_CSUM_* */
	uint64_t pick_ns;    /* CLOCK_REALTIME ns when the reader found the frame in the ring (AF_XDP: the
			      * burst's clock read right after the ring's peek, which the stamp's clock
			      * conversion needs anyway, so it costs nothing); 0 where the source reads no
			      * clock per burst (AF_PACKET, pcap). ts_ns -> pick_ns is the kernel's delivery. */
};

/* Counters, cumulative since src_open. Drops are counted by reason; a
 * counter a source does not have stays 0. */
#define SRC_STATS_FIELDS(X)                                                                     \
	X(frames, "frames delivered")                                                           \
	X(bytes, "bytes delivered")                                                             \
	X(truncated, "frames delivered shorter than on the wire (snap/block/SRC_MAX_FRAME)")   \
	X(afp_drops, "AF_PACKET: frames the kernel dropped, ring full (tp_drops)")             \
	X(afp_freezes, "AF_PACKET: times the ring was frozen (tp_freeze_q_cnt)")               \
	X(afp_outgoing, "AF_PACKET: our own outgoing frames skipped")                          \
	X(xsk_rx_dropped, "AF_XDP: dropped by the socket (e.g. frame larger than a UMEM frame)") \
	X(xsk_rx_invalid_descs, "AF_XDP: invalid fill descriptors")                            \
	X(xsk_rx_ring_full, "AF_XDP: dropped, rx ring full")                                   \
	X(xsk_fill_ring_empty, "AF_XDP: fill ring found empty (frames waited or were dropped)") \
	X(xdp_steered, "XDP: frames matching a feed redirected to the socket")                 \
	X(xdp_no_socket, "XDP: frames matching a feed passed on, no socket on their queue")    \
	X(xdp_passed, "XDP: frames passed to the host stack (not a feed)")                     \
	X(xsk_multibuf, "AF_XDP: frames that arrived in several UMEM frames (copied)")         \
	X(pcap_loops, "pcap: loops completed (a play cut short included)")                      \
	X(ts_nic, "frames stamped by the NIC (hardware timestamp)")                             \
	X(ts_kernel, "frames stamped by the kernel (XDP program or socket), no NIC stamp")      \
	X(ts_poll, "frames with no arrival stamp, stamped at the poll")                         \
	X(xsk_bind_wait_ms, "AF_XDP: ms the bind waited for the kernel to release the queue")  \
	X(pcap_cut, "pcap: plays ended early by a truncated or corrupt file (reason: src_note)")   \
	X(pcap_converted, "pcap: frames given an Ethernet header (SLL/raw captures)")              \
	X(tx_frames, "frames handed to the interface for sending")                              \
	X(tx_bytes, "bytes of those frames")                                                    \
	X(tx_errors, "frames the kernel refused to send (send()/sendto errors, xsk tx_invalid_descs)") \
	X(tx_ring_full, "frames dropped: no free transmit frame or ring slot (AF_XDP)")         \
	X(tx_refused, "send attempts on a source opened without transmit (a mirror port): a bug if nonzero") \
	X(tx_too_long, "frames dropped: longer than a transmit frame")

struct src_stats {
#define SRC_STATS_MEMBER(name, desc) uint64_t name;
	SRC_STATS_FIELDS(SRC_STATS_MEMBER)
#undef SRC_STATS_MEMBER
};

struct src;

/* Open a source. Returns 0, or -1 with a message in err (naming the
 * interface, file or setting and the reason). */
int src_open(struct src **out, const struct src_cfg *cfg, char *err, size_t errlen);

/* Up to max frames available now, without blocking: > 0 frames, 0 none now,
 * SRC_EOF at the end of a pcap replay, -1 with errno on an error. The frames
 * of the previous burst are released first if src_rx_release() was not called. */
int src_rx_burst(struct src *s, struct src_frame *f, int max);

/* The frames of the last burst may be reused (returned to the kernel). */
void src_rx_release(struct src *s);

/* Block until frames may be ready or timeout_ms passes (-1: no timeout):
 * 1 ready (or EOF pending), 0 timeout or signal, -1 error with errno. pcap:
 * sleeps until the next frame is due (clock_nanosleep, absolute). */
int src_wait(struct src *s, int timeout_ms);

/* src_wait over several live sources (one thread polling several ports): 1 when one of them may
 * have frames, 0 timeout or signal, -1 error with errno. Each source's own readiness check runs
 * first (AF_XDP refills its fill ring), then one poll() over all their descriptors. */
int src_wait_many(struct src *const *s, int n, int timeout_ms);

/* A descriptor that polls readable when frames arrive; -1 for pcap (use src_wait). */
int src_fd(const struct src *s);

void src_stats(struct src *s, struct src_stats *st);

/* Send one Ethernet frame (no FCS): copied, so frame may be reused at once.
 * 0 queued (AF_XDP: sent at the next src_tx_flush or when the batch is full;
 * AF_PACKET: sent now), -1 dropped and counted (tx_ring_full, tx_errors,
 * tx_too_long; tx_refused on a source opened without cfg.tx). Never blocks. */
int src_tx(struct src *s, const uint8_t *frame, uint32_t len);
/* Kick the kernel to send what src_tx queued, and reclaim completed frames. */
void src_tx_flush(struct src *s);
/* 1 when the source was opened with transmit. */
int src_can_tx(const struct src *s);

/* Replace the steering rules (AF_XDP; a no-op for the others). 0, or -1
 * with a message in err and the old rules left in force as far as possible. */
int src_set_feeds(struct src *s, const struct src_feed *feeds, uint32_t n, char *err, size_t errlen);

/* The source's latest notice for the log (e.g. libpcap's reason for ending a
 * play early), "" when there is none; *seq (may be NULL) counts notices
 * since src_open, so a caller logs each once by remembering the last seq. */
const char *src_note(const struct src *s, uint64_t *seq);

/* One line for logs: "af_xdp eth1 queue 0 native copy multi-buffer", ... */
const char *src_describe(const struct src *s);
/* In an af_xdp source's description when its frames carry no arrival
 * stamp (the kernel's verifier refused XDP metadata: toe_steer_plain
 * loaded, every frame stamped at the poll); tests look for it. */
#define SRC_DESC_XDP_PLAIN "this kernel refuses XDP metadata"

/* Detaches the XDP program, leaves promiscuous mode, frees everything. NULL is fine. */
void src_close(struct src *s);

#define SRC_BPF_OBJ_NAME "toe_steer.bpf.o"

/* The XDP program of the AF_XDP source: `given` (--bpf-object, checked for
 * reading) when set, else the first readable SRC_BPF_OBJ_NAME in exe_dir
 * (the folder of the running program; NULL skips these), exe_dir/../bpf,
 * exe_dir/../../bpf (build/bin and build/asan/bin find build/bpf),
 * exe_dir/../lib/toed, TOED_LIBDIR. 0 with the path in out, or -1 with err
 * listing every path tried and why each failed, and how to give one. */
int src_bpf_find(const char *given, const char *exe_dir, char *out, size_t outlen, char *err, size_t errlen);

/* "af_xdp", "af_packet", "pcap" (NULL for an unknown kind) and back (-1 unknown). */
const char *src_kind_name(int kind);
int src_kind_parse(const char *name);

#endif
