/* dp_thread.h - the data-plane thread: frames (software backend) or the card's ring (backend = xrt) -> publisher.
 *
 *   toed_dp_prepare()  builds the pipeline's configuration from toed.conf and
 *                      allocates its memory (control thread, at start); with
 *                      backend = xrt it checks the configuration against the
 *                      card's limits instead (no software pipeline);
 *   toed_dp_open()     opens the frame sources, one per configured port (as root, before privileges are
 *                      dropped; the thread only uses it afterwards), then joins the
 *                      multicast groups of UDP feeds on their ports' interfaces
 *                      (dp_mcast, held until toed_dp_destroy); with
 *                      backend = xrt it brings the card up instead
 *                      (toe_xrt_open: xclbin, UUID, HBM ring, kernels, up to
 *                      10 s waiting for the link) and sets its clock;
 *   toed_dp_start()    starts the thread, which pins itself and takes its
 *                      scheduling priority when configured (a refusal is a
 *                      warning), then loops:
 *                        software: a burst of frames from each port's source
 *                        in turn -> rx_frame_port (the frame's port) -> drain ->
 *                        publish, rx_poll for the mirror TOE's timers;
 *                        card: toe_xrt_set_time about every ms (the card's
 *                        clock and the mirror TOE's timer tick), toe_xrt_poll
 *                        -> publish, the card's counters every second;
 *                      both: pub_tick for the clients' heartbeat, busy-polling
 *                      or sleeping (src_wait_many on every port's source; between empty polls of the
 *                      card 50 us, 1 ms once no record came for 100 ms:
 *                      the card has no interrupt). Both backends hand
 *                      their records to the same publication function
 *                      (tick recording, publisher);
 *   toed_dp_stop()     asks it to stop and joins it (bounded).
 *
 * pcap replays are paced here, not by the source (opened "as fast as
 * possible" and looping forever), so that [source] pcap_pace and pcap_loop
 * can change live; the last play ends the replay: the remaining holes become
 * gaps (rx_poll at the end of time) and the thread idles, still beating.
 *
 * A card error (a register access or a sync failing, a corrupt write index)
 * stops the thread in state FAILED with the backend's one-line reason: the
 * daemon exits 1 and systemd restarts it.
 *
 * The thread tells the control loop about state changes (live, replay over,
 * failure) through an eventfd, publishes its counters every 100 ms into a
 * snapshot (try-lock: it never waits for a reader), and bumps a heartbeat
 * counter on every turn of its loop: the watchdog pings systemd only while
 * that counter moves.
 *
 * Seams (struct toed_dp_seams, from toed_run's caller): the card's device
 * operations (the release toed: toe_devops_xrt) and an optional hook the
 * thread calls on every turn of its loop once live. The test program
 * toed_test (tests/integration/toed_test.c) puts a fake card and its test
 * hooks there (feeding the fake a capture, stalling the thread); the
 * release toed has neither.
 */
#ifndef TOED_DATAPLANE_H
#define TOED_DATAPLANE_H

#include <pthread.h>
#include <stdint.h>

#include "conf/config.h"
#include "dp/dp_pub.h"
#include "dp/dp_trace.h"
#include "rx/rx_pipe.h"
#include "src/src.h"
#include "dp/dp_record.h"
#include "dp/dp_mcast.h"
#include "dp/dp_resp.h"
#include "dp/dp_tcp.h"
#include "dp/dp_sess.h"
#include "dp/dp_card_sess.h"
#include "card/card_backend.h"

struct toed_dp;

/* What toed_run's caller puts in place: the card and a hook into the thread. */
struct toed_dp_seams {
	/* backend = xrt: the card's device operations and their ctx (card_dev.h) */
	const struct toe_devops *card_ops;
	void *card_ctx;
	const char *card_name;     /* in the source's description (NULL: "card") */
	uint32_t card_ring_slots;  /* HBM ring records per pseudo-channel (0: TOE_XRT_DEFAULT_SLOTS) */
	/* Called by the data-plane thread on every turn of its loop once live
	 * (NULL: none), live_ns after it went live. It runs in the thread: while
	 * it does, the heartbeat stands still; it should return soon after
	 * toed_dp_stopping(dp) says so. */
	void (*on_turn)(void *arg, struct toed_dp *dp, uint64_t live_ns);
	void *arg;
};

enum toed_dp_state {
	TOED_DP_IDLE = 0,    /* prepared, not started */
	TOED_DP_STARTING = 1,
	TOED_DP_LIVE = 2,    /* source open and polled at least once */
	TOED_DP_ENDED = 3,   /* pcap replay over: idling */
	TOED_DP_FAILED = 4,  /* the source failed: the thread has stopped */
	TOED_DP_STOPPED = 5,
};

/* The keys that change live (a reload hands them over). */
struct toed_dp_live {
	int32_t cpu;          /* -1: not pinned */
	uint32_t priority;    /* 0: SCHED_OTHER */
	uint32_t busy_poll;
	uint32_t trace;       /* latency by stage into dp_trace histograms */
	uint32_t decoder;     /* enum toed_decoder: reference, or the CPU fast decoder (auto, fast) */
	double pace;          /* pcap: 0 as fast as possible, 1 recorded, else a factor */
	uint32_t loops;       /* pcap: plays, 0 = forever */
	uint64_t gap_timeout_ns;
	uint64_t idle_timeout_ns;
};

struct toed_dp_conn {
	uint8_t state;    /* enum mtoe_state at the last snapshot while in use */
	uint8_t syn_seen;
	uint16_t flow;    /* index in the mirror TOE's flows */
	int32_t feed;     /* index in the configuration's feeds, -1 unknown */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint64_t nxt_off;
	struct mtoe_conn_stats st;
};

/* role = tcp: one of toed's own connections (a TCP feed of the port). */
struct toed_dp_tcpconn {
	uint32_t feed;        /* index in the configuration's feeds */
	uint32_t phase;       /* enum dp_tcp_phase */
	uint32_t laddr, raddr;
	uint16_t lport, rport;
	uint32_t last_down, last_reason; /* gtoe event and reason that ended the last connection */
	uint64_t attempts, ups, downs, offset;
	uint32_t mss, window;    /* the feed's: the MSS its SYN offers, the receive window it advertises */
	struct dp_tcp_sess sess; /* sess.on 0: no STEP session on this feed */
	struct gtoe_info info;  /* info.state GTOE_FREE when no connection is open */
};

/* Sequence tracking (RX_CFG_SEQ): per group, its lines and its channels. */
struct toed_dp_seq_chan {
	uint32_t id;        /* channel number */
	uint32_t holes;     /* open now (arbitration: waiting for another line) */
	uint64_t last;      /* highest sequence delivered */
	uint64_t delivered, dups, gaps, missing, late, restarts;
};

struct toed_dp_seq_group {
	uint32_t nlines, nchan;
	struct seq_group_stats st;
	struct seq_line_stats line[SEQ_MAX_LINES];
	struct toed_dp_seq_chan chan[SEQ_MAX_CHANNELS];
};

/* One port of the software backend: its source's counters and what became of its frames in the
 * pipeline (every frame that went nowhere is counted under the port it came in on). */
struct toed_dp_port {
	uint32_t port;            /* the port number, 0..3 */
	uint32_t pad;
	struct src_stats src;     /* its source's counters (drops in the kernel and the source by reason) */
	uint64_t frames, bytes;   /* given to the pipeline */
	uint64_t dropped;         /* dropped by the network layer (net_rx: malformed, checksum, not ours...) */
	uint64_t not_followed;    /* TCP segments of no flow of this port */
	uint64_t udp_not_listened; /* datagrams to a UDP port listened nowhere */
	uint64_t udp_other_port;  /* datagrams to a UDP port listened on another port only */
	struct dp_resp_stats resp; /* a port with an address (role tcp or udp): ARP and ICMP answered (dp_resp.h) */
};

/* Counters of every block, as of taken_ns. */
struct toed_dp_snapshot {
	uint64_t taken_ns;        /* CLOCK_MONOTONIC, 0: none yet */
	uint32_t state;           /* enum toed_dp_state */
	uint32_t nconns;          /* entries of conn[] in use: the configured connections */
	uint32_t nstreams;
	uint32_t nudp;
	uint64_t frames;          /* frames given to the pipeline */
	uint64_t turns, bursts, waits, published, unmapped_records;
	uint64_t spin_yields;     /* busy_poll: times the CPU was found shared and the loop slept instead (dp_spin.h) */
	uint32_t spin_sleeping;   /* busy_poll: 1 while it sleeps between frames for that reason */
	uint32_t spin_wait_pct;   /* busy_poll: run-queue wait of the last measured window, % */
	uint64_t replay_plays;    /* pcap: plays completed */
	struct src_stats src;     /* all ports' sources added up */
	uint32_t nports;          /* software backend: port[0 .. nports), one per source */
	struct toed_dp_port port[TOED_MAX_PORTS];
	struct net_stats net;
	struct rx_stats rx;
	struct mtoe_stats mtoe;
	uint16_t udp_port[RX_MAX_UDP];
	struct toed_dp_conn conn[MTOE_MAX_CONNS];
	struct rx_stream_stats sst[RX_MAX_STREAMS];
	uint32_t seq_on;          /* sequence tracking runs: seq[0 .. seq_groups) */
	uint32_t seq_groups;
	struct toed_dp_seq_group seq[RX_MAX_GROUPS]; /* since the pipeline's last start */
	uint64_t messages[RX_MAX_STREAMS];
	uint64_t errors[RX_MAX_STREAMS][FAST_ERR_COUNT]; /* deframer + decoder, by fast_err code */
	/* backend = xrt: the blocks above that describe the software pipeline stay 0,
	 * except frames, rx.records and rx.gaps (from the card's counters) */
	uint32_t card;            /* 1: the card backend */
	uint32_t ncard;           /* entries of card_ctr[] */
	uint64_t card_taken_ns;   /* CLOCK_MONOTONIC of card_ctr[] (read every second), 0: not yet */
	uint64_t bad_records;     /* card records of no TOE_REC_* type: not published */
	struct toe_xrt_counter card_ctr[TOE_XRT_MAX_COUNTERS];
	struct dp_trace trace;    /* [dataplane] trace: since_ns 0 when off (live sources only) */
	/* a port with an address (role tcp or udp): ARP, ICMP, toed's own connections */
	uint32_t tcp_on;
	uint32_t ntcp;            /* entries of tcp_conn[] */
	struct dp_tcp_stats tcp;
	struct gtoe_stats gtoe;
	struct toed_dp_tcpconn tcp_conn[TOED_MAX_FEEDS];
};

struct toed_dp {
	/* set by prepare/open, read-only once the thread runs */
	struct rx_cfg rxcfg;
	uint16_t flow_feed[TOED_MAX_FEEDS];
	uint8_t udp_src[RX_MAX_UDP]; /* source (PUB_SRC_*) of each UDP stream, for stream subscriptions */
	uint8_t card_tcp_src;        /* backend = xrt: the source of TCP records (the one TCP feed, else none) */
	const struct fast_prog *prog;
	uint32_t backend;         /* enum toed_backend */
	int src_kind;             /* enum src_kind (every port's: [source] type) */
	char src_desc[1024];      /* the source, or with several ports each "port N: ..." */
	uint32_t nsrc;            /* software backend: one source per configured port */
	struct src *src[TOED_MAX_PORTS];
	uint32_t src_port[TOED_MAX_PORTS]; /* the port number of src[i] */
	char port_desc[TOED_MAX_PORTS][256]; /* src_describe of each */
	struct dp_mcast mcast;    /* multicast groups of UDP feeds joined on the ports' interfaces (dp_mcast.h) */
	struct pub *pub;
	struct toed_record *rec;
	struct dp_tcp *tcp;       /* role = tcp (port 0): toed's own connections; NULL otherwise */
	struct dp_resp *resp[TOED_MAX_PORTS]; /* by port number: a port that answers ARP and ICMP for its
					       * address (dp_setup_answers), NULL none; role = tcp: &tcp->resp */
	struct dp_sess *sess;     /* STEP sessions of its feeds (dp_sess.h), NULL none; backend = xrt: card_sess's */
	struct dp_card_sess *card_sess; /* backend = xrt, role = tcp: the sessions over the card, NULL none */
	struct toe_xrt *xrt;      /* backend = xrt: the card, once toed_dp_open brought it up */
	/* backend = xrt, role = tcp: gtoe_top's connection table as dp_setup_card built it (the snapshot
	 * names each entry's feed and endpoints) */
	uint32_t card_ntcp;
	uint32_t card_laddr;
	uint32_t card_tcp_feed[TOE_HW_GTOE_CONNS];
	char card_tcp_name[TOE_HW_GTOE_CONNS][TOED_NAME_MAX]; /* ... and its name, for the log */
	struct toe_hw_gtoe_conn card_tcp[TOE_HW_GTOE_CONNS];
	int event_fd;             /* written on every state change */
	struct toed_dp_seams seams; /* from toed_dp_open's caller */
	/* memory of the pipeline */
	struct rx_pipe *pipe;
	struct fast_stream *fs;
	struct fastx_prog *fastx_prog; /* the templates lowered for the CPU fast decoder ([fast] decoder) */
	struct fastx_dec *fastx;
	uint8_t *mbuf;
	uint64_t mbuf_len;
	/* shared */
	uint32_t state;           /* atomic, enum toed_dp_state */
	uint32_t stop;            /* atomic */
	uint64_t heartbeat;       /* atomic */
	uint32_t live_gen;        /* atomic: bumped when live changes */
	pthread_mutex_t live_lock;
	struct toed_dp_live live;
	uint32_t pw_gen;          /* atomic: bumped when pw changes (under live_lock) */
	struct dp_sess_passwords pw;
	pthread_mutex_t snap_lock;
	struct toed_dp_snapshot *snap;
	char err[1024];           /* why the source or the card failed (before state FAILED) */
	pthread_t thread;
	int started;
	/* data-plane thread only */
	struct toed_dp_snapshot *work; /* snapshot being assembled */
};

/* Build the pipeline's configuration and allocate it. 0, or -1 with err (a
 * configuration this backend cannot run: treat like a bad config file). */
int toed_dp_prepare(struct toed_dp *dp, const struct toed_config *cfg, struct pub *pub, struct toed_record *rec,
		    char *err, size_t errlen);
/* Open the source described by cfg (bpf_obj: the XDP program, AF_XDP), or
 * with backend = xrt bring the card up through seams->card_ops: err then
 * holds the backend's one line saying what is wrong and what to do. seams
 * (copied) also brings the thread's hook. */
int toed_dp_open(struct toed_dp *dp, const struct toed_config *cfg, const char *bpf_obj,
		 const struct toed_dp_seams *seams, char *err, size_t errlen);
int toed_dp_start(struct toed_dp *dp);
/* Ask the thread to stop and wait up to timeout_ms. 0 stopped, -1 still running. */
int toed_dp_stop(struct toed_dp *dp, int timeout_ms);
/* Free everything (after toed_dp_stop; closes the source). */
void toed_dp_destroy(struct toed_dp *dp);

void toed_dp_set_live(struct toed_dp *dp, const struct toed_dp_live *l);
/* The STEP sessions' passwords, read by the control plane (reload): the data plane takes them for
 * the next Logon of each feed and never reads a file itself. */
void toed_dp_set_passwords(struct toed_dp *dp, const struct dp_sess_passwords *pw);

/* The session seam of a role = tcp port (dp_tcp.h, struct dp_tcp_hooks):
 * install the hooks after toed_dp_prepare and before toed_dp_start (they run
 * in the data-plane thread). 0, or -1 when the port holds no connections. */
int toed_dp_set_tcp_hooks(struct toed_dp *dp, const struct dp_tcp_hooks *h);

uint32_t toed_dp_state(const struct toed_dp *dp);
/* 1 once toed_dp_stop asked the thread to stop. */
int toed_dp_stopping(const struct toed_dp *dp);
uint64_t toed_dp_heartbeat(const struct toed_dp *dp);
/* Copy the latest snapshot (blocks only while the thread copies into it). */
void toed_dp_snapshot(struct toed_dp *dp, struct toed_dp_snapshot *out);
const char *toed_dp_state_name(uint32_t state);

#endif
