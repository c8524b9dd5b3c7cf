/* dp_thread.c - the data-plane thread: frames or the card's ring in, ticks out (see dp_thread.h). */
#include "dp/dp_thread.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/mem_touch.h"
#include "fast/host/fastx.h"
#include "dp/dp_setup.h"
#include "dp/dp_spin.h"
#include "card/card_xclbin.h"

#define DP_BURST 64
#define DP_BATCH 64
#define DP_WAIT_MS 10               /* longest sleep: bounds heartbeat and pub_tick delays */
#define DP_SNAP_NS 100000000ull     /* counters published every 100 ms */
#define DP_POLL_NS 1000000ull       /* mirror TOE timers every 1 ms of (source) time; the card's clock */
#define DP_CSUM_STREAK 64           /* this many TCP/UDP segments in a row failing their checksum: warn */
#define DP_CARD_BATCH 256           /* records per toe_xrt_poll: each call costs a register read and write */
#define DP_CARD_POLLS 16            /* polls per turn at most: the heartbeat and pub_tick run in between */
#define DP_CARD_IDLE_NS 50000ull    /* busy_poll = no: sleep between empty polls of the card, */
#define DP_CARD_QUIET_NS 1000000ull /* ... or this long once nothing came for DP_CARD_QUIET_AFTER */
#define DP_CARD_QUIET_AFTER 100000000ull
#define DP_CARD_CTR_NS 1000000000ull /* the card's counters (~200 register reads) every second */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *toed_dp_state_name(uint32_t state)
{
	switch (state) {
	case TOED_DP_IDLE: return "idle";
	case TOED_DP_STARTING: return "starting";
	case TOED_DP_LIVE: return "live";
	case TOED_DP_ENDED: return "replay-ended";
	case TOED_DP_FAILED: return "failed";
	case TOED_DP_STOPPED: return "stopped";
	default: return "?";
	}
}

/* ---- setup (control thread) -------------------------------------------------- */

/* backend = xrt, role = tcp: feeds with sender_comp_id get their STEP session on the host over
 * the card's connections (dp_card_sess.h); their streams are marked in rc for fast_top. */
static int card_sess_prepare(struct toed_dp *dp, const struct toed_config *cfg, struct rx_cfg *rc, char *err,
			     size_t errlen)
{
	struct toe_xrt_params p;
	dp_setup_card(&p, cfg, rc);
	if (!p.tcp || p.ngconn > TOE_HW_GTOE_CONNS)
		return 0;
	dp->card_sess = calloc(1, sizeof *dp->card_sess);
	if (!dp->card_sess) {
		snprintf(err, errlen, "data plane: out of memory");
		return -1;
	}
	int any = dp_card_sess_init(dp->card_sess, cfg, p.gconn, p.gconn_feed, p.ngconn, rc, err, errlen);
	if (any <= 0) {
		free(dp->card_sess);
		dp->card_sess = NULL;
		return any;
	}
	dp->sess = &dp->card_sess->s; /* passwords and the Logout at stop as with the software backend */
	return 0;
}

/* backend = xrt: what the card cannot run and a file that is no xclbin are
 * configuration errors, found before anything starts (toe_xrt_open checks
 * the same and the rest of the xclbin, later). */
static int card_check(const struct toed_dp *dp, const struct toed_config *cfg, char *err, size_t errlen)
{
	struct toe_xrt_params p;
	struct toe_hw_wr *w = calloc(TOE_HW_CFG_MAX_WRITES, sizeof *w);
	struct toe_xclbin *x = calloc(1, sizeof *x);
	const struct rx_cfg *rc = &dp->rxcfg;
	char why[512];
	int n, r;
	if (!w || !x) {
		free(w);
		free(x);
		snprintf(err, errlen, "data plane: out of memory");
		return -1;
	}
	r = toe_xclbin_read(cfg->device.xclbin, x, why, sizeof why);
	if (r < 0) {
		free(x);
		free(w);
		snprintf(err, errlen, "%s: [device] xclbin: %s (backend = xrt loads it onto the card)", cfg->path, why);
		return -1;
	}
	/* the ports the xclbin has: its layout (the 100G build one, the 4 x 10G build four) */
	{
		uint32_t np = toe_xrt_layout_ports(x);
		free(x);
		for (uint32_t i = 1; i < TOED_MAX_PORTS; i++) {
			if (!cfg->port[i].enabled || i < np)
				continue;
			free(w);
			snprintf(err, errlen, "%s: [port.%u]: [device] xclbin %s has %u network port%s (%s): port %u needs "
					      "the 4 x 10G build (eth_rx_top_1..4: kernels/hw/build_xclbin.sh with "
					      "LAYOUT=4x10g), or move its feeds to port 0",
				 cfg->path, i, cfg->device.xclbin, np, np == 1 ? "" : "s",
				 np == 1 ? "the 100G build, eth_rx_top_1 alone" : "no eth_rx_top_1", i);
			return -1;
		}
	}
	dp_setup_card(&p, cfg, rc);
	n = toe_hw_cfg_writes(rc, &p.hw, w, TOE_HW_CFG_MAX_WRITES);
	for (uint32_t i = 1; n >= 0 && i < TOE_HW_MAX_PORTS; i++) {
		uint32_t k = (uint32_t)n;
		int e;
		if (!(p.ports >> i & 1u))
			continue;
		e = toe_hw_port_writes(rc, i, p.port_role[i], w, TOE_HW_CFG_MAX_WRITES, &k);
		n = e < 0 ? e : (int)k;
	}
	if (n >= 0 && p.tcp) {
		/* role = tcp: gtoe_top's connection table and buffers (the card builds this build's sizes in) */
		uint32_t k = 0;
		free(w);
		w = calloc(64 + 4 * TOE_HW_GTOE_CONNS, sizeof *w);
		if (p.ngconn > TOE_HW_GTOE_CONNS || !w ||
		    toe_hw_gtoe_writes(rc, &p.hw, &p.gtoe, p.gconn, p.ngconn, w, 64 + 4 * TOE_HW_GTOE_CONNS, &k) < 0) {
			free(w);
			struct dp_setup_tcpconn tc[TOED_MAX_FEEDS];
			uint32_t mss, win, wf;
			char who[TOED_NAME_MAX + 48];
			if (p.ngconn > TOE_HW_GTOE_CONNS && dp_setup_tcp_conns(cfg, tc, err, errlen) < 0)
				return -1; /* the software backend's message: too many feeds for [tcp] connections */
			/* every slot of gtoe_top holds the largest window of the feeds: name the feed that sets it
			 * when it is not [tcp]'s */
			dp_setup_tcp_max(cfg, &mss, &win, &wf);
			if (wf < cfg->nfeeds && cfg->feed[wf].window && cfg->feed[wf].window != cfg->tcp.window)
				snprintf(who, sizeof who, "[feed.%s] window = %u", cfg->feed[wf].name, cfg->feed[wf].window);
			else
				snprintf(who, sizeof who, "[tcp] window = %u", cfg->tcp.window);
			if (GTOE_BUF_BYTES(&p.gtoe) > TOE_HW_GTOE_BUF)
				snprintf(err, errlen, "%s: %s: [tcp] connections x (window + %u-byte send buffer) = %u x (%u + %u) "
						      "bytes: above the card's %u bytes of general-TOE buffers (backend = xrt, role "
						      "= tcp: every slot takes the largest window of the tcp feeds; at most %u "
						      "connections)",
					 cfg->path, who, p.gtoe.snd_buf, p.gtoe.max_conns, p.gtoe.rcv_buf, p.gtoe.snd_buf,
					 (unsigned)TOE_HW_GTOE_BUF, TOE_HW_GTOE_CONNS);
			else
				snprintf(err, errlen, "%s: the card's general TOE (gtoe_top) cannot hold these connections: "
						      "an entry's MSS or window beyond its own, or two open = accept feeds on one "
						      "vendor port (backend = xrt)", cfg->path);
			return -1;
		}
	}
	free(w);
	switch (n) {
	case TOE_HWCFG_E_CONNS:
		snprintf(err, errlen, "%s: [tcp] connections = %u: the card's mirror TOE follows at most %u (backend = xrt)",
			 cfg->path, rc->mtoe.max_conns, TOE_HW_TCP_STREAMS);
		return -1;
	case TOE_HWCFG_E_BUF:
		snprintf(err, errlen, "%s: [tcp] connections x window = %u x %u bytes: above the card's %u bytes of "
				      "reassembly memory (backend = xrt)",
			 cfg->path, rc->mtoe.max_conns, rc->mtoe.window, (unsigned)TOE_HW_MTOE_BUF);
		return -1;
	case TOE_HWCFG_E_FLOWS:
		snprintf(err, errlen, "%s: %u TCP feeds: the card holds %u feed filters (backend = xrt)", cfg->path,
			 rc->mtoe.nflows, TOE_MTOE_MAX_FLOWS);
		return -1;
	case TOE_HWCFG_E_UDP:
		snprintf(err, errlen, "%s: %u UDP ports (UDP feeds and [udp] ports): the card listens to at most %u "
				      "(backend = xrt)",
			 cfg->path, rc->nudp, TOE_HW_UDP_STREAMS);
		return -1;
	case TOE_HWCFG_E_ADDRS:
		snprintf(err, errlen, "%s: %u port addresses: the card holds %u (backend = xrt)", cfg->path,
			 rc->net.naddr, TOE_ETH_MAX_ADDRS);
		return -1;
	case TOE_HWCFG_E_PORT:
		snprintf(err, errlen, "%s: a port the card cannot serve that way: role = tcp is port 0's only "
				      "(backend = xrt)", cfg->path);
		return -1;
	default:
		if (n >= 0)
			return 0;
		snprintf(err, errlen, "%s: the card cannot run this configuration (error %d)", cfg->path, n);
		return -1;
	}
}

int toed_dp_prepare(struct toed_dp *dp, const struct toed_config *cfg, struct pub *pub, struct toed_record *rec,
		    char *err, size_t errlen)
{
	struct rx_cfg *rc = &dp->rxcfg;
	memset(dp, 0, sizeof *dp);
	dp->event_fd = -1;
	pthread_mutex_init(&dp->live_lock, NULL);
	pthread_mutex_init(&dp->snap_lock, NULL);
	if (cfg->device.backend != TOED_BACKEND_SW && cfg->device.backend != TOED_BACKEND_XRT) {
		snprintf(err, errlen, "%s: [device] backend = %s: unknown to this toed", cfg->path,
			 toed_backend_name(cfg->device.backend));
		return -1;
	}
	dp->backend = cfg->device.backend;
	if (!cfg->fast.have_prog) {
		snprintf(err, errlen, "%s: [fast] templates: no compiled template program", cfg->path);
		return -1;
	}
	dp->prog = &cfg->fast.prog;
	dp->pub = pub;
	dp->rec = rec;
	rx_cfg_default(rc);
	if (dp_setup_rx(cfg, rc, dp->flow_feed, err, errlen) < 0)
		return -1;
	dp_setup_udp_srcs(cfg, rc, dp->udp_src);
	dp->card_tcp_src = rc->mtoe.nflows == 1 ? (uint8_t)dp->flow_feed[0] : PUB_SRC_NONE;
	dp_setup_live(&dp->live, cfg);
	if (dp->backend == TOED_BACKEND_XRT) {
		/* the card runs the pipeline: no software copy, only its limits to check */
		dp->snap = calloc(1, sizeof *dp->snap);
		dp->work = calloc(1, sizeof *dp->work);
		dp->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (!dp->snap || !dp->work || dp->event_fd < 0) {
			snprintf(err, errlen, "data plane: out of memory");
			return -1;
		}
		if (card_check(dp, cfg, err, errlen) < 0)
			return -1;
		return card_sess_prepare(dp, cfg, rc, err, errlen);
	}

	if (cfg->port[0].enabled && cfg->port[0].role == TOED_ROLE_TCP) {
		/* toed's own connections, with the port's ARP and ICMP (dp_tcp_init refuses a replay:
		 * a tcp port needs a live source) */
		dp->tcp = calloc(1, sizeof *dp->tcp);
		if (!dp->tcp) {
			snprintf(err, errlen, "data plane: out of memory");
			return -1;
		}
		if (dp_tcp_init(dp->tcp, cfg, &rc->net, err, errlen) < 0)
			return -1;
		if (dp->tcp->g) {
			/* feeds with sender_comp_id: the STEP session drives their connections */
			dp->sess = calloc(1, sizeof *dp->sess);
			if (!dp->sess) {
				snprintf(err, errlen, "data plane: out of memory");
				return -1;
			}
			int any = dp_sess_init(dp->sess, dp->tcp, cfg, err, errlen);
			if (any < 0)
				return -1;
			if (any) {
				dp->tcp->hooks = dp_sess_hooks(dp->sess);
				dp_sess_set_where(dp->sess, rc);
			} else {
				free(dp->sess); /* no feed has a session */
				dp->sess = NULL;
			}
		}
	}
	/* every other port with an address (role = udp, any port) answers ARP and ICMP for it; a replayed
	 * udp port only decodes (a replay cannot answer) */
	for (uint32_t port = 0; port < TOED_MAX_PORTS; port++) {
		if (port == 0 && dp->tcp) {
			dp->resp[0] = &dp->tcp->resp;
			continue;
		}
		if (!dp_setup_answers(cfg, port))
			continue;
		dp->resp[port] = calloc(1, sizeof *dp->resp[port]);
		if (!dp->resp[port]) {
			snprintf(err, errlen, "data plane: out of memory");
			return -1;
		}
		if (dp_resp_init(dp->resp[port], cfg, port, port ? &rc->net_port[port - 1] : &rc->net, err, errlen) < 0)
			return -1;
	}
	uint32_t nfs = RX_NSTREAMS(rc);
	dp->mbuf_len = MTOE_BUF_BYTES(rc->mtoe.max_conns, rc->mtoe.window);
	dp->pipe = calloc(1, sizeof *dp->pipe);
	dp->fs = calloc(nfs, sizeof *dp->fs);
	dp->mbuf = malloc(dp->mbuf_len);
	dp->snap = calloc(1, sizeof *dp->snap);
	dp->work = calloc(1, sizeof *dp->work);
	dp->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!dp->pipe || !dp->fs || !dp->mbuf || !dp->snap || !dp->work || dp->event_fd < 0) {
		snprintf(err, errlen, "data plane: out of memory (%llu bytes of reassembly buffers)",
			 (unsigned long long)dp->mbuf_len);
		return -1;
	}
	int r = rx_init(dp->pipe, rc, dp->prog, dp->fs, nfs, dp->mbuf, dp->mbuf_len);
	if (r != RX_OK) {
		snprintf(err, errlen, "data plane: the receive pipeline refused the configuration (rx_init %d)", r);
		return -1;
	}
	/* the CPU fast decoder ([fast] decoder, switched live in take_live) */
	dp->fastx_prog = fastx_prog_new(dp->prog);
	dp->fastx = calloc(1, sizeof *dp->fastx);
	if (!dp->fastx_prog || !dp->fastx) {
		snprintf(err, errlen, "data plane: out of memory (fast decoder)");
		return -1;
	}
	fastx_dec_init(dp->fastx, dp->fastx_prog, &dp->fs[0].rec);
	/* the pipeline's state and reassembly buffers are large and mostly untouched by their
	 * initialisation: touched now, not at their first use on the hot path (base/mem_touch.h) */
	mem_touch_write(dp->pipe, sizeof *dp->pipe);
	mem_touch_write(dp->fs, nfs * sizeof *dp->fs);
	mem_touch_write(dp->mbuf, dp->mbuf_len);
	return 0;
}

static void card_log(void *arg, int prio, const char *msg)
{
	(void)arg;
	toed_log(prio, "%s", msg);
}

/* backend = xrt: bring the card up (before READY=1: it may wait 10 s for the link). */
static int card_open(struct toed_dp *dp, const struct toed_config *cfg, char *err, size_t errlen)
{
	struct toe_xrt_params p;
	char where[24];
	if (cfg->device.pci[0])
		snprintf(where, sizeof where, "at %.16s", cfg->device.pci);
	else
		snprintf(where, sizeof where, "(the first one found)");
	if (!dp->seams.card_ops) {
		snprintf(err, errlen, "card backend: no device operations to reach the card with");
		return -1;
	}
	dp_setup_card(&p, cfg, &dp->rxcfg);
	p.log = card_log;
	if (p.tcp) {
		dp->card_ntcp = p.ngconn <= TOE_HW_GTOE_CONNS ? p.ngconn : 0;
		dp->card_laddr = cfg->port[0].ip;
		memcpy(dp->card_tcp, p.gconn, sizeof dp->card_tcp);
		memcpy(dp->card_tcp_feed, p.gconn_feed, sizeof dp->card_tcp_feed);
		for (uint32_t i = 0; i < dp->card_ntcp; i++)
			snprintf(dp->card_tcp_name[i], sizeof dp->card_tcp_name[i], "%s", cfg->feed[p.gconn_feed[i]].name);
	}
	if (dp->seams.card_ring_slots)
		p.hw.ring_slots = dp->seams.card_ring_slots;
	snprintf(dp->src_desc, sizeof dp->src_desc, "%.40s %s running %.180s",
		 dp->seams.card_name ? dp->seams.card_name : "card", where, cfg->device.xclbin);
	if (toe_xrt_open(&dp->xrt, dp->seams.card_ops, dp->seams.card_ctx, &p, err, errlen) < 0) {
		dp->xrt = NULL;
		return -1;
	}
	if (dp->card_sess)
		dp_card_sess_attach(dp->card_sess, dp->xrt);
	/* frames are stamped with this clock from now on */
	if (toe_xrt_set_time(dp->xrt, real_ns()) < 0) {
		snprintf(err, errlen, "%s", toe_xrt_error(dp->xrt));
		toe_xrt_close(dp->xrt);
		dp->xrt = NULL;
		return -1;
	}
	return 0;
}

int toed_dp_open(struct toed_dp *dp, const struct toed_config *cfg, const char *bpf_obj,
		 const struct toed_dp_seams *seams, char *err, size_t errlen)
{
	if (seams)
		dp->seams = *seams;
	if (dp->backend == TOED_BACKEND_XRT)
		return card_open(dp, cfg, err, errlen);
	struct src_cfg sc;
	struct src_feed *feeds = malloc(SRC_MAX_FEEDS * sizeof *feeds);
	if (!feeds) {
		snprintf(err, errlen, "data plane: out of memory");
		return -1;
	}
	/* one source per configured port, each on its own interface (conf_check: pcap is port 0 alone) */
	dp->nsrc = 0;
	for (uint32_t port = 0; port < TOED_MAX_PORTS; port++) {
		if (!cfg->port[port].enabled)
			continue;
		char why[512];
		dp_setup_src_port(cfg, &dp->rxcfg, port, bpf_obj, &sc, feeds);
		dp->src_kind = sc.kind;
		if (src_open(&dp->src[dp->nsrc], &sc, why, sizeof why) < 0) {
			snprintf(err, errlen, "port %u: %s", port, why);
			free(feeds);
			return -1;
		}
		dp->src_port[dp->nsrc] = port;
		snprintf(dp->port_desc[dp->nsrc], sizeof dp->port_desc[0], "%s", src_describe(dp->src[dp->nsrc]));
		dp->nsrc++;
		if (sc.kind == SRC_PCAP)
			break;
	}
	free(feeds);
	if (!dp->nsrc) {
		snprintf(err, errlen, "%s: no port to receive on ([port] / [port.N])", cfg->path);
		return -1;
	}
	/* the feeds' multicast groups, now that the interfaces are known to exist */
	if (dp_mcast_open(&dp->mcast, cfg, err, errlen) < 0)
		return -1;
	/* each port answers through its own source (role = tcp: port 0's, conf_check) */
	for (uint32_t k = 0; k < dp->nsrc; k++)
		if (dp->resp[dp->src_port[k]])
			dp->resp[dp->src_port[k]]->src = dp->src[k];
	if (sc.kind == SRC_PCAP) {
		char pace[48], plays[32];
		if (cfg->source.pcap_pace == TOED_PACE_FAST)
			snprintf(pace, sizeof pace, "as fast as possible");
		else if (cfg->source.pcap_pace == TOED_PACE_FACTOR)
			snprintf(pace, sizeof pace, "at %gx the recorded pace", cfg->source.pcap_speed);
		else
			snprintf(pace, sizeof pace, "at the recorded pace");
		if (cfg->source.pcap_loop)
			snprintf(plays, sizeof plays, "%u play%s", cfg->source.pcap_loop, cfg->source.pcap_loop == 1 ? "" : "s");
		else
			snprintf(plays, sizeof plays, "looping forever");
		snprintf(dp->src_desc, sizeof dp->src_desc, "pcap replay of %.120s %.47s, %.31s", cfg->source.pcap_file, pace, plays);
	} else if (dp->nsrc == 1 && dp->src_port[0] == 0) {
		snprintf(dp->src_desc, sizeof dp->src_desc, "%s", dp->port_desc[0]);
	} else {
		size_t o = 0;
		for (uint32_t i = 0; i < dp->nsrc && o < sizeof dp->src_desc; i++)
			o += (size_t)snprintf(dp->src_desc + o, sizeof dp->src_desc - o, "%sport %u: %.240s",
					      i ? "; " : "", dp->src_port[i], dp->port_desc[i]);
	}
	return 0;
}

void toed_dp_set_live(struct toed_dp *dp, const struct toed_dp_live *l)
{
	pthread_mutex_lock(&dp->live_lock);
	dp->live = *l;
	pthread_mutex_unlock(&dp->live_lock);
	__atomic_add_fetch(&dp->live_gen, 1, __ATOMIC_RELEASE);
}

void toed_dp_set_passwords(struct toed_dp *dp, const struct dp_sess_passwords *pw)
{
	pthread_mutex_lock(&dp->live_lock);
	dp->pw = *pw;
	pthread_mutex_unlock(&dp->live_lock);
	__atomic_add_fetch(&dp->pw_gen, 1, __ATOMIC_RELEASE);
}

int toed_dp_set_tcp_hooks(struct toed_dp *dp, const struct dp_tcp_hooks *h)
{
	if (!dp->tcp || !dp->tcp->g || dp->started)
		return -1;
	dp->tcp->hooks = *h;
	return 0;
}

uint32_t toed_dp_state(const struct toed_dp *dp)
{
	return __atomic_load_n(&dp->state, __ATOMIC_ACQUIRE);
}

uint64_t toed_dp_heartbeat(const struct toed_dp *dp)
{
	return __atomic_load_n(&dp->heartbeat, __ATOMIC_RELAXED);
}

void toed_dp_snapshot(struct toed_dp *dp, struct toed_dp_snapshot *out)
{
	pthread_mutex_lock(&dp->snap_lock);
	memcpy(out, dp->snap, sizeof *out);
	pthread_mutex_unlock(&dp->snap_lock);
	out->state = toed_dp_state(dp);
}

/* ---- the thread ---------------------------------------------------------------- */

/* Counters of the pipelines of earlier pcap plays (each play is decoded by a
 * fresh pipeline), so that the published counters stay cumulative. */
struct dp_base {
	struct net_stats net;
	struct rx_stats rx;
	struct mtoe_stats mtoe;
	struct rx_stream_stats sst[RX_MAX_STREAMS];
	uint64_t messages[RX_MAX_STREAMS];
	uint64_t errors[RX_MAX_STREAMS][FAST_ERR_COUNT];
};

_Static_assert(sizeof(struct net_stats) % 8 == 0 && sizeof(struct rx_stats) % 8 == 0 &&
		       sizeof(struct src_stats) % 8 == 0 &&
		       sizeof(struct mtoe_stats) % 8 == 0 && sizeof(struct rx_stream_stats) % 8 == 0,
	       "counter structs are arrays of uint64_t");

/* d = a + b, element-wise over uint64_t counters */
static void add_counters(void *d, const void *a, const void *b, size_t bytes)
{
	uint64_t *x = d, y, z;
	const unsigned char *pa = a, *pb = b;
	for (size_t i = 0; i < bytes / 8; i++) {
		memcpy(&y, pa + 8 * i, 8);
		memcpy(&z, pb + 8 * i, 8);
		x[i] = y + z;
	}
}

struct dp_run {
	struct toed_dp *dp;
	struct dp_base base;
	struct toed_dp_live live;
	uint32_t live_gen;
	union toe_record batch[DP_BATCH];
	uint8_t batch_src[DP_BATCH]; /* each record's source (PUB_SRC_*) */
	unsigned nbatch;
	uint64_t published;
	uint64_t unmapped;
	uint64_t frames, turns, bursts, waits;
	uint64_t last_snap;
	uint64_t last_poll_ts;  /* source time of the last rx_poll */
	uint64_t last_tcp_tick; /* CLOCK_MONOTONIC of the last dp_tcp_tick */
	uint64_t logout_ns;     /* stopping: when the sessions' Logout wait ends (0: not begun) */
	uint32_t pw_gen;        /* the passwords taken (toed_dp_set_passwords) */
	uint32_t clock;         /* enum toe_rx_clock of the time the pipeline runs on now: the frame's, or
				 * the poll's when a timer runs without one */
	uint64_t live_since;    /* CLOCK_MONOTONIC when the pipeline went live */
	/* pcap pacing */
	uint64_t pace_mono, pace_ts; /* frame time pace_ts is due at pace_mono */
	int paced;
	uint64_t plays;
	int ended;
	uint64_t note_seq;      /* the source's notices logged so far (src_note) */
	uint32_t csum_streak;   /* TCP/UDP segments in a row that failed their checksum */
	int csum_warned;
	/* the card */
	union toe_record cbatch[DP_CARD_BATCH];
	uint8_t cbatch_src[DP_CARD_BATCH];
	uint64_t last_card;     /* CLOCK_MONOTONIC of the last counter read */
	uint64_t last_rec;      /* CLOCK_MONOTONIC of the last poll that found records */
	int link;               /* last link state seen (-1: not yet) */
	uint64_t bad;           /* records of no TOE_REC_* type */
	uint32_t card_ups[TOE_HW_GTOE_CONNS], card_downs[TOE_HW_GTOE_CONNS]; /* role tcp: as last read */
	struct dp_trace trace;  /* [dataplane] trace: latency by stage */
	int poll_empty;         /* the last poll of a source found nothing (the data plane was free) */
	int burst_idle;         /* the current burst was found right after an empty poll */
	struct dp_spin spin;    /* busy_poll: spin only while the CPU is ours (software backend) */
	int spin_told;          /* its first yield is logged */
	struct toed_dp_port port[TOED_MAX_PORTS]; /* by source index: what became of each port's frames */
};

static void set_state(struct toed_dp *dp, uint32_t s)
{
	uint64_t one = 1;
	__atomic_store_n(&dp->state, s, __ATOMIC_RELEASE);
	if (write(dp->event_fd, &one, sizeof one) < 0) {
		/* the loop also looks at the state on its timer */
	}
}

/* The one publication path of both backends: records in ring order (rx_pipe's
 * output of the software backend, the card's HBM ring) to the tick recording
 * when it is on, then to the clients' rings (srcs[i]: recs[i]'s source for the
 * stream filters). The records are visible when it returns; the readers that
 * slept are woken by wake_readers() (pub_wake), so that their system calls
 * come after every ring's commit. */
static void publish(struct dp_run *r, const union toe_record *recs, const uint8_t *srcs, unsigned n)
{
	struct toed_dp *dp = r->dp;
	if (!n)
		return;
	if (toed_record_dp_active(dp->rec))
		for (unsigned i = 0; i < n; i++)
			toed_record_dp_tick(dp->rec, &recs[i]);
	pub_publish_src(dp->pub, recs, srcs, n);
	r->published += n;
}

static void wake_readers(struct dp_run *r)
{
	pub_wake(r->dp->pub);
}

static void publish_batch(struct dp_run *r)
{
	publish(r, r->batch, r->batch_src, r->nbatch);
	r->nbatch = 0;
}

static void flush_batch(struct dp_run *r)
{
	publish_batch(r);
	wake_readers(r);
}

/* Which feed (or [udp] port) carried pipeline stream sid: a TCP connection's feed is its
 * mirror TOE flow's, looked up now, while the connection holds its slot. */
static uint8_t stream_src(const struct toed_dp *dp, const struct rx_pipe *p, uint32_t sid)
{
	uint32_t nc = p->cfg.mtoe.max_conns;
	if (sid < nc) {
		uint32_t flow = p->conn_flow[sid < MTOE_MAX_CONNS ? sid : 0];
		return flow < p->cfg.mtoe.nflows && flow < TOED_MAX_FEEDS ? (uint8_t)dp->flow_feed[flow] : PUB_SRC_NONE;
	}
	return sid - nc < p->cfg.nudp && sid - nc < RX_MAX_UDP ? dp->udp_src[sid - nc] : PUB_SRC_NONE;
}

/* The card's records say only their connection: UDP streams are known, TCP ones are the only
 * TCP feed's (dp_setup_streams refuses the names it cannot serve). */
static uint8_t card_src(const struct toed_dp *dp, uint32_t sid)
{
	uint32_t nc = dp->rxcfg.mtoe.max_conns;
	if (sid == TOE_HW_STREAM_ALL)
		return PUB_SRC_ALL;
	if (sid < nc)
		return dp->card_tcp_src;
	return sid - nc < dp->rxcfg.nudp && sid - nc < RX_MAX_UDP ? dp->udp_src[sid - nc] : PUB_SRC_NONE;
}

/* The STEP sessions' records (TOE_REC_SESSION, dp_sess) to the batch, to the clients of
 * their feed's stream: before the pipeline's output of the same bytes or tick. */
static void drain_sess(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	union toe_record rec;
	if (!dp->sess)
		return;
	while (dp_sess_record(dp->sess, &rec)) {
		uint32_t flow = rec.hdr.stream;
		r->batch_src[r->nbatch] = flow < dp->pipe->cfg.mtoe.nflows && flow < TOED_MAX_FEEDS
					       ? (uint8_t)dp->flow_feed[flow] : PUB_SRC_NONE;
		r->batch[r->nbatch++] = rec;
		if (r->nbatch == DP_BATCH)
			publish_batch(r);
	}
}

/* Software backend: the pipeline's output entries that are records go to the batch;
 * rx_ticks decodes runs of plain records straight into it (rx_next the rest, in order). */
static void drain(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	struct rx_out o;
	uint32_t sid, n;
	drain_sess(r);
	for (;;) {
		n = rx_ticks(dp->pipe, &r->batch[r->nbatch], DP_BATCH - r->nbatch, &sid);
		if (n) {
			uint8_t src = stream_src(dp, dp->pipe, sid);
			for (uint32_t i = r->nbatch; i < r->nbatch + n; i++) {
				union toe_record *t = &r->batch[i];
				t->hdr.present = (t->hdr.present & ~TOE_CLK_MASK) | (r->clock << TOE_CLK_SHIFT);
				r->batch_src[i] = src;
			}
			r->nbatch += n;
			if (r->nbatch == DP_BATCH)
				publish_batch(r);
			continue;
		}
		if (!rx_next(dp->pipe, &o))
			break;
		if (o.kind == RX_OUT_RECORD && o.tick_type <= 0) {
			r->unmapped++;
			continue;
		}
		if (o.kind != RX_OUT_RECORD && o.kind != RX_OUT_GAP && o.kind != RX_OUT_RESET)
			continue;
		/* which clock took rx_ns: the source's of the frame that completed the
		 * record (one source, one clock per frame kind: a record completed by
		 * a later frame than the one it was stamped with has the same clock) */
		o.tick.hdr.present = (o.tick.hdr.present & ~TOE_CLK_MASK) | (r->clock << TOE_CLK_SHIFT);
		r->batch_src[r->nbatch] = stream_src(dp, dp->pipe, o.stream);
		r->batch[r->nbatch++] = o.tick;
		if (r->nbatch == DP_BATCH)
			publish_batch(r); /* the wakes at the end of the frame (frame_in) or by the caller */
	}
}

static void apply_sched(const struct toed_dp_live *old, const struct toed_dp_live *l, int first)
{
	if (first ? l->cpu >= 0 : old->cpu != l->cpu) {
		cpu_set_t set;
		CPU_ZERO(&set);
		if (l->cpu >= 0) {
			CPU_SET(l->cpu, &set);
		} else {
			long n = sysconf(_SC_NPROCESSORS_CONF);
			for (long i = 0; i < n && i < CPU_SETSIZE; i++)
				CPU_SET(i, &set);
		}
		int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
		if (e)
			log_warn("data plane: cannot pin to CPU %d: %s", l->cpu, strerror(e));
		else if (l->cpu >= 0)
			log_info("data plane: pinned to CPU %d", l->cpu);
		else if (!first)
			log_info("data plane: no longer pinned");
	}
	if (first ? l->priority != 0 : old->priority != l->priority) {
		struct sched_param sp = {.sched_priority = (int)l->priority};
		int pol = l->priority ? SCHED_FIFO : SCHED_OTHER;
		int e = pthread_setschedparam(pthread_self(), pol, &sp);
		if (e)
			log_warn("data plane: cannot set %s priority %u: %s (needs CAP_SYS_NICE or LimitRTPRIO); "
				 "running at normal priority",
				 l->priority ? "SCHED_FIFO" : "SCHED_OTHER", l->priority, strerror(e));
		else
			log_info("data plane: %s priority %u", l->priority ? "SCHED_FIFO" : "SCHED_OTHER", l->priority);
	}
	/* normal priority: a short slice, so a frame's wake-up preempts a CPU hog (dp_spin.h) */
	if (!l->priority && (first || old->priority) && dp_spin_short_slice(DP_SPIN_SLICE_NS) < 0)
		log_info("data plane: the kernel refused a %llu us scheduler slice: %s", DP_SPIN_SLICE_NS / 1000ull,
			 strerror(errno));
}

/* [fast] decoder: auto and fast hand the streams to the CPU fast decoder
 * (the same records, errors and gaps as the reference; the daemon only
 * publishes tick records), reference to the card's interpreter. */
static void use_decoder(struct toed_dp *dp, uint32_t decoder)
{
	if (dp->pipe)
		dp->pipe->fastx = decoder == TOED_DECODER_REFERENCE ? NULL : dp->fastx;
}

/* The CPU this thread runs on when it is pinned to exactly one, else -1: told
 * to the clients (toe_shm_region.busy_cpu) so that a reader there sleeps
 * instead of spinning against the data plane. With busy_poll = no too: the
 * data plane then sleeps between frames, and a reader spinning on its CPU
 * makes each frame's wake-up wait for the spin (bench_e2e_tcp.sh, readers
 * pinned to the data plane's CPU: their CPU time doubled and the one-way p50
 * rose from 30-60 to 80-130 us). */
static int busy_cpu(const struct toed_dp *dp, const struct toed_dp_live *l)
{
	cpu_set_t set;
	(void)l;
	if (dp->src_kind == SRC_PCAP || pthread_getaffinity_np(pthread_self(), sizeof set, &set))
		return -1;
	if (CPU_COUNT(&set) != 1)
		return -1;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

static void take_live(struct dp_run *r, int first)
{
	struct toed_dp *dp = r->dp;
	uint32_t g = __atomic_load_n(&dp->live_gen, __ATOMIC_ACQUIRE);
	if (!first && g == r->live_gen)
		return;
	if (pthread_mutex_trylock(&dp->live_lock) != 0)
		return; /* the control loop is writing it: next turn */
	struct toed_dp_live l = dp->live;
	pthread_mutex_unlock(&dp->live_lock);
	r->live_gen = g;
	apply_sched(&r->live, &l, first);
	pub_set_busy_cpu(dp->pub, busy_cpu(dp, &l));
	if (!first && l.pace != r->live.pace)
		r->paced = 0; /* re-base the replay clock at the next frame */
	if (l.trace && (first || !r->live.trace))
		dp_trace_reset(&r->trace, mono_ns()); /* switched on: measure anew */
	else if (!l.trace)
		r->trace.since_ns = 0;
	if (!dp->pipe) {
		/* the card's mirror TOE took its timeouts with its configuration: reprogramming it would drop every
		 * connection's state */
		if (!first && (l.gap_timeout_ns != r->live.gap_timeout_ns || l.idle_timeout_ns != r->live.idle_timeout_ns))
			log_notice("data plane: [tcp] gap_timeout_ms and idle_timeout_s apply to the card at the next start "
				   "of toed");
		r->live = l;
		return;
	}
	dp->pipe->mtoe.cfg.gap_timeout_ns = l.gap_timeout_ns;
	dp->pipe->mtoe.cfg.idle_timeout_ns = l.idle_timeout_ns;
	dp->pipe->cfg.mtoe.gap_timeout_ns = l.gap_timeout_ns;
	dp->pipe->cfg.mtoe.idle_timeout_ns = l.idle_timeout_ns;
	dp->rxcfg.mtoe.gap_timeout_ns = l.gap_timeout_ns; /* for the pipeline of the next play */
	dp->rxcfg.mtoe.idle_timeout_ns = l.idle_timeout_ns;
	use_decoder(dp, l.decoder);
	if (first || l.decoder != r->live.decoder)
		log_info("data plane: FAST decoder %s (%s)", l.decoder == TOED_DECODER_REFERENCE ? "reference" : "fast",
			 fastx_isa_name(fastx_isa_get()));
	r->live = l;
}

/* The software pipeline's counters into the snapshot being assembled. */
static void snapshot_pipe(struct dp_run *r, struct toed_dp_snapshot *w)
{
	struct toed_dp *dp = r->dp;
	const struct rx_pipe *p = dp->pipe;
	uint32_t ns = p->nstreams;
	w->nconns = p->cfg.mtoe.max_conns;
	w->nstreams = ns;
	w->nudp = p->cfg.nudp;
	for (uint32_t i = 0; i < p->cfg.nudp; i++)
		w->udp_port[i] = p->cfg.udp[i].port;
	w->unmapped_records = r->unmapped;
	w->replay_plays = r->plays;
	memset(&w->src, 0, sizeof w->src);
	w->nports = dp->nsrc;
	for (uint32_t k = 0; k < dp->nsrc; k++) {
		struct toed_dp_port *pp = &w->port[k];
		*pp = r->port[k];
		pp->port = dp->src_port[k];
		src_stats(dp->src[k], &pp->src);
		add_counters(&w->src, &w->src, &pp->src, sizeof w->src);
		if (dp->resp[pp->port])
			pp->resp = dp->resp[pp->port]->st;
	}
	add_counters(&w->net, &p->net, &r->base.net, sizeof w->net);
	add_counters(&w->rx, &p->st, &r->base.rx, sizeof w->rx);
	add_counters(&w->mtoe, &p->mtoe.st, &r->base.mtoe, sizeof w->mtoe);
	/* a connection keeps its last counters after its slot is freed */
	for (uint32_t i = 0; i < w->nconns; i++) {
		const struct mtoe_conn *c = &p->mtoe.conn[i];
		struct toed_dp_conn *d = &w->conn[i];
		if (c->state == MTOE_FREE) {
			if (d->state == MTOE_OPEN)
				d->state = MTOE_CLOSED;
			continue;
		}
		d->state = c->state;
		d->syn_seen = c->syn_seen;
		d->flow = c->flow;
		d->feed = c->flow < p->cfg.mtoe.nflows ? dp->flow_feed[c->flow] : -1;
		d->saddr = c->saddr;
		d->daddr = c->daddr;
		d->sport = c->sport;
		d->dport = c->dport;
		d->nxt_off = c->nxt_off;
		d->st = c->st;
	}
	if (dp->tcp) {
		const struct dp_tcp *tc = dp->tcp;
		w->tcp_on = 1;
		w->tcp = tc->st;
		w->tcp.arp_replies = tc->resp.st.arp_replies; /* port 0's responder, also in its ports block */
		w->tcp.icmp_replies = tc->resp.st.icmp_replies;
		w->tcp.tx_fail = tc->resp.st.tx_fail;
		w->ntcp = tc->nfeeds;
		if (tc->g)
			w->gtoe = tc->g->st;
		for (uint32_t i = 0; i < tc->nfeeds; i++) {
			const struct dp_tcp_feed *f = &tc->f[i];
			struct toed_dp_tcpconn *d = &w->tcp_conn[i];
			d->feed = f->feed;
			d->phase = f->phase;
			d->laddr = tc->laddr;
			d->raddr = f->raddr;
			d->rport = f->rport;
			d->last_down = f->last_down;
			d->last_reason = f->last_reason;
			d->attempts = f->attempts;
			d->ups = f->ups;
			d->downs = f->downs;
			d->offset = f->offset;
			d->mss = f->mss;
			d->window = f->window;
			d->sess = f->sess;
			d->info = f->last; /* no connection now: the last one's report */
			d->lport = f->lport;
			if (f->conn >= 0 && tc->g) {
				gtoe_info(tc->g, f->conn, &d->info);
				d->lport = tc->g->conn[f->conn].lport;
			}
		}
	}
	w->seq_on = (p->cfg.flags & RX_CFG_SEQ) != 0;
	w->seq_groups = w->seq_on ? p->cfg.seq.ngroups : 0;
	for (uint32_t g = 0; g < w->seq_groups && g < RX_MAX_GROUPS; g++) {
		const struct seq_group *sg = &p->grp[g];
		struct toed_dp_seq_group *d = &w->seq[g];
		d->nlines = sg->nlines;
		d->nchan = sg->nchan;
		d->st = sg->st;
		memcpy(d->line, sg->line, sizeof d->line);
		for (uint32_t k = 0; k < sg->nchan && k < SEQ_MAX_CHANNELS; k++) {
			const struct seq_chan *c = &sg->chan[k];
			d->chan[k] = (struct toed_dp_seq_chan){c->id, c->nholes, c->next ? c->next - 1 : 0, c->delivered,
							       c->dups, c->gaps, c->missing, c->late, c->restarts};
		}
	}
	for (uint32_t i = 0; i < ns; i++) {
		add_counters(&w->sst[i], &p->sst[i], &r->base.sst[i], sizeof w->sst[i]);
		w->messages[i] = dp->fs[i].messages + r->base.messages[i];
		for (uint32_t e = 0; e < FAST_ERR_COUNT; e++)
			w->errors[i][e] = dp->fs[i].step.errors[e] + dp->fs[i].dec.errors[e] + r->base.errors[i][e];
	}
}

static void snapshot(struct dp_run *r, uint64_t now)
{
	struct toed_dp *dp = r->dp;
	struct toed_dp_snapshot *w = dp->work;
	w->taken_ns = now;
	w->frames = r->frames;
	w->turns = r->turns;
	w->bursts = r->bursts;
	w->waits = r->waits;
	w->spin_yields = r->spin.yields;
	w->spin_sleeping = (uint32_t)r->spin.sleeping;
	w->spin_wait_pct = (uint32_t)r->spin.last_wait_pct;
	w->published = r->published;
	w->trace = r->trace;
	if (dp->pipe) {
		snapshot_pipe(r, w);
	} else {
		/* the card: card_counters() keeps its counters in w (card_ctr, rx.records, rx.gaps) */
		w->card = 1;
		w->bad_records = r->bad;
	}
	if (pthread_mutex_trylock(&dp->snap_lock) == 0) {
		memcpy(dp->snap, w, sizeof *w);
		pthread_mutex_unlock(&dp->snap_lock);
		r->last_snap = now;
	}
}

/* Everything a turn of the loop does besides frames; also called while a paced replay waits. */
static void housekeeping(struct dp_run *r, uint64_t now)
{
	struct toed_dp *dp = r->dp;
	r->turns++;
	__atomic_store_n(&dp->heartbeat, dp->heartbeat + 1, __ATOMIC_RELAXED);
	pub_tick(dp->pub, now);
	take_live(r, 0);
	toed_record_dp_poll(dp->rec, now);
	if (now - r->last_snap >= DP_SNAP_NS)
		snapshot(r, now);
}

static int stopping(const struct toed_dp *dp)
{
	return __atomic_load_n(&dp->stop, __ATOMIC_ACQUIRE) != 0;
}

int toed_dp_stopping(const struct toed_dp *dp)
{
	return stopping(dp);
}

/* The caller's hook (toed_dp_seams.on_turn), once per turn while live. */
static void turn_hook(struct dp_run *r, uint64_t now)
{
	struct toed_dp *dp = r->dp;
	if (dp->seams.on_turn)
		dp->seams.on_turn(dp->seams.arg, dp, now - r->live_since);
}

/* Asked to stop: sessions that are logged on log out first (their Logout
 * sent, the answer awaited up to DP_SESS_LOGOUT_NS), then the loop ends. */
#define DP_SESS_LOGOUT_NS 1000000000ull
static int keep_running(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	uint64_t now;
	if (!stopping(dp))
		return 1;
	if (!dp->sess || (dp->tcp ? !dp->tcp->hooks.arg : !dp->card_sess))
		return 0;
	now = mono_ns();
	if (!r->logout_ns) {
		dp_sess_logout(dp->sess, "shutdown", now);
		r->logout_ns = now + DP_SESS_LOGOUT_NS;
	}
	return dp_sess_busy(dp->sess) && now < r->logout_ns;
}

/* pcap: wait until the frame recorded at ts is due; 0 due, -1 stopping. */
static int pace_wait(struct dp_run *r, uint64_t ts)
{
	if (r->live.pace <= 0)
		return 0;
	if (!r->paced) {
		r->paced = 1;
		r->pace_mono = mono_ns();
		r->pace_ts = ts;
		return 0;
	}
	for (;;) {
		uint64_t now = mono_ns();
		double off = ts > r->pace_ts ? (double)(ts - r->pace_ts) / r->live.pace : 0.0;
		uint64_t due = r->pace_mono + (off > 1e18 ? (uint64_t)1e18 : (uint64_t)off);
		if (now >= due)
			return 0;
		if (stopping(r->dp))
			return -1;
		uint64_t d = due - now;
		if (d > DP_WAIT_MS * 1000000ull)
			d = DP_WAIT_MS * 1000000ull;
		struct timespec sl = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
		r->waits++;
		nanosleep(&sl, NULL);
		housekeeping(r, mono_ns());
		if (!r->paced) { /* the pace changed: the held frame is due now, the next ones at the new pace */
			r->paced = 1;
			r->pace_mono = mono_ns();
			r->pace_ts = ts;
			return 0;
		}
	}
}

/* A pcap play ends: what is still open becomes gaps, the counters go into the
 * base, and the next play is decoded by a fresh pipeline (a replayed capture
 * repeats its connections with the same sequence numbers: one mirror TOE
 * would take them for retransmissions). */
static void new_play(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	struct rx_pipe *p = dp->pipe;
	snapshot(r, mono_ns()); /* keep the connections' last counters */
	rx_poll(p, UINT64_MAX);
	drain(r);
	flush_batch(r);
	add_counters(&r->base.net, &r->base.net, &p->net, sizeof p->net);
	add_counters(&r->base.rx, &r->base.rx, &p->st, sizeof p->st);
	add_counters(&r->base.mtoe, &r->base.mtoe, &p->mtoe.st, sizeof p->mtoe.st);
	for (uint32_t i = 0; i < p->nstreams; i++) {
		add_counters(&r->base.sst[i], &r->base.sst[i], &p->sst[i], sizeof p->sst[i]);
		r->base.messages[i] += dp->fs[i].messages;
		for (uint32_t e = 0; e < FAST_ERR_COUNT; e++)
			r->base.errors[i][e] += dp->fs[i].step.errors[e] + dp->fs[i].dec.errors[e];
	}
	int e = rx_init(p, &dp->rxcfg, dp->prog, dp->fs, RX_NSTREAMS(&dp->rxcfg), dp->mbuf, dp->mbuf_len);
	if (e != RX_OK)
		log_err("data plane: new pipeline for the next play: rx_init %d", e);
	use_decoder(dp, r->live.decoder);
	r->last_poll_ts = 0;
}

static void end_replay(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	r->ended = 1;
	/* keep the connections' last counters, then every remaining hole becomes a gap */
	snapshot(r, mono_ns());
	rx_poll(dp->pipe, UINT64_MAX);
	drain(r);
	flush_batch(r);
	snapshot(r, mono_ns());
	log_info("data plane: pcap replay over (%llu play%s, %llu frames, %llu records published)",
		 (unsigned long long)r->plays, r->plays == 1 ? "" : "s", (unsigned long long)r->frames,
		 (unsigned long long)r->published);
	set_state(dp, TOED_DP_ENDED);
}

_Static_assert(SRC_CSUM_UNKNOWN == NET_CSUM_UNKNOWN && SRC_CSUM_VALID == NET_CSUM_VALID &&
		       SRC_CSUM_NOT_READY == NET_CSUM_NOT_READY, "the source's checksum word is net_rx's");

/* A checksum failure of every segment is what a sender's transmit checksum
 * offload looks like on a mirror of a veth or of the sending host: the
 * pipeline is live and delivers nothing. Say so once, with the way out,
 * instead of leaving it to a counter. A corrupt link fails some segments,
 * never DP_CSUM_STREAK in a row with none passing. */
static void csum_watch(struct dp_run *r, uint64_t l4_before, uint64_t bad_before)
{
	const struct net_stats *ns = &r->dp->pipe->net;
	if (ns->tcp.in_segments + ns->udp.in_datagrams == l4_before)
		return; /* not TCP/UDP */
	if (ns->tcp.drop_tcp_csum + ns->udp.drop_udp_csum == bad_before) {
		r->csum_streak = 0;
		return;
	}
	if (++r->csum_streak < DP_CSUM_STREAK || r->csum_warned)
		return;
	r->csum_warned = 1;
	log_warn("data plane: the last %u TCP/UDP segments all failed checksum verification and were dropped "
		 "(toectl stats: net tcp.drop_tcp_csum, udp.drop_udp_csum); nothing is decoded. The likely cause is "
		 "transmit checksum offload: a mirror of a veth or of the sending host carries checksums that were "
		 "never filled in. Set verify_checksums = auto (AF_PACKET: trust the kernel's per-frame status) or "
		 "no in the port's section ([port] / [port.0]) of the configuration, or turn the sender's offload "
		 "off (ethtool -K IF tx off)", (unsigned)DP_CSUM_STREAK);
}

/* Source k's frame f (the port dp->src_port[k]) through the pipeline; what went nowhere is counted
 * under its port. */
static void frame_in(struct dp_run *r, uint32_t k, const struct src_frame *f)
{
	struct toed_dp *dp = r->dp;
	const struct rx_pipe *p = dp->pipe;
	const struct net_stats *ns = &p->net;
	uint64_t l4 = ns->tcp.in_segments + ns->udp.in_datagrams, bad = ns->tcp.drop_tcp_csum + ns->udp.drop_udp_csum;
	uint64_t dropped = p->st.dropped, nf = p->mtoe.st.not_followed, unl = ns->udp.drop_udp_port;
	uint64_t other = p->st.udp_other_port;
	struct toed_dp_port *pp = &r->port[k];
	r->frames++;
	r->clock = f->clock;
	if (toed_record_dp_active(dp->rec))
		toed_record_dp_frame(dp->rec, f->data, f->len, f->wire_len, f->ts_ns);
	uint64_t before = r->published + r->nbatch;
	uint64_t taken = r->trace.since_ns ? real_ns() : 0;
	int32_t v = rx_frame_port(dp->pipe, dp->src_port[k], f->data, f->len, f->ts_ns, f->csum);
	struct dp_resp *rs = dp->resp[dp->src_port[k]];
	if (rs && (v == NET_RX_ARP || v == NET_RX_ICMP)) /* a udp port answers for its address */
		dp_resp_input(rs, dp->src_port[k] ? &p->cfg.net_port[dp->src_port[k] - 1] : &p->cfg.net, &dp->pipe->net,
			      v, &p->pkt, mono_ns());
	pp->frames++;
	pp->bytes += f->len;
	pp->dropped += p->st.dropped - dropped;
	pp->not_followed += p->mtoe.st.not_followed - nf;
	pp->udp_not_listened += ns->udp.drop_udp_port - unl;
	pp->udp_other_port += p->st.udp_other_port - other;
	csum_watch(r, l4, bad);
	drain(r);
	if (f->ts_ns - r->last_poll_ts >= DP_POLL_NS || f->ts_ns < r->last_poll_ts) {
		r->last_poll_ts = f->ts_ns;
		rx_poll(dp->pipe, f->ts_ns);
		drain(r);
	}
	/* a frame's records are visible to the clients before the next frame is
	 * decoded: a burst does not hold the first frame's records back */
	uint64_t n = r->published + r->nbatch - before;
	if (!n)
		return;
	if (!r->trace.since_ns || dp->src_kind == SRC_PCAP) {
		flush_batch(r);
		return;
	}
	uint64_t decoded = real_ns();
	publish_batch(r);
	uint64_t visible = real_ns();
	wake_readers(r); /* after the stamp: a reader's wake-up is its own latency, not the ring's */
	/* the source's pickup stamp splits the span: the kernel's delivery, then toed's own */
	struct dp_trace_stamps st = {f->ts_ns, f->pick_ns, taken, decoded, visible, r->burst_idle};
	dp_trace_frame(&r->trace, &st, n);
}

/* A port with an address (dp->tcp): the frame to the endpoint, ARP and ICMP
 * answered, UDP to the listen table; then the connections' in-order bytes
 * through the pipeline. The mirror path (frame_in) does not pass here. */
static void frame_in_tcp(struct dp_run *r, const struct src_frame *f, uint64_t now)
{
	struct toed_dp *dp = r->dp;
	r->frames++;
	r->clock = f->clock;
	if (toed_record_dp_active(dp->rec))
		toed_record_dp_frame(dp->rec, f->data, f->len, f->wire_len, f->ts_ns);
	dp_tcp_frame(dp->tcp, dp->pipe, f->data, f->len, f->ts_ns, f->csum, now);
	drain(r);
	while (dp_tcp_pump(dp->tcp, dp->pipe, f->ts_ns))
		drain(r);
	flush_batch(r);
}

/* Passwords the control plane read at a reload, for the sessions' next Logon. */
static void take_passwords(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	uint32_t g = __atomic_load_n(&dp->pw_gen, __ATOMIC_ACQUIRE);
	if (!dp->sess || g == r->pw_gen)
		return;
	if (pthread_mutex_trylock(&dp->live_lock) != 0)
		return; /* the control loop is writing them: next turn */
	dp_sess_take_passwords(dp->sess, &dp->pw);
	pthread_mutex_unlock(&dp->live_lock);
	r->pw_gen = g;
}

/* The endpoint's timers (every ms): retransmissions, reconnects, ARP; what
 * they produce out to the wire and through the pipeline. */
static void tcp_turn(struct dp_run *r, uint64_t now)
{
	struct toed_dp *dp = r->dp;
	if (now - r->last_tcp_tick < DP_POLL_NS)
		return;
	take_passwords(r);
	r->last_tcp_tick = now;
	dp_tcp_tick(dp->tcp, dp->pipe, now);
	uint64_t t = real_ns();
	drain_sess(r); /* the tick's: heartbeats missed, reconnects */
	while (dp_tcp_pump(dp->tcp, dp->pipe, t))
		drain(r);
	drain_sess(r);
	flush_batch(r);
	dp_tcp_flush(dp->tcp, dp->pipe, now);
}

/* The source's notices to the log, each once (a pcap play cut short by a
 * truncated file: libpcap's reason). With endless loops the same file says
 * the same each play: the first is logged, the rest only counted. */
static void source_notes(struct dp_run *r)
{
	uint64_t seq;
	const char *note = src_note(r->dp->src[0], &seq);
	if (seq == r->note_seq)
		return;
	if (r->note_seq == 0)
		log_warn("data plane: %s%s", note,
			 seq > 1 ? " (and earlier notices, counted in toectl stats)" : "");
	else if (r->note_seq < 8)
		log_warn("data plane: %s (notice %llu; from the 8th on only counted in toectl stats)", note,
			 (unsigned long long)seq);
	r->note_seq = seq;
}

/* One burst of source k through the pipeline, or what its poll said: 1 frames (or the replay's
 * end) handled, 0 none now, -1 the thread stops (failed, or stopping during a paced wait). */
static int sw_source(struct dp_run *r, uint32_t k, struct src_frame *f, int *pn)
{
	struct toed_dp *dp = r->dp;
	struct src *src = dp->src[k];
	int pcap = dp->src_kind == SRC_PCAP;
	int n = *pn;
	*pn = 0;
	if (n == 0)
		n = src_rx_burst(src, f, pcap ? 1 : DP_BURST);
	/* the trace tells frames that waited for the data plane from those it was free for (two stores
	 * per poll; with several ports, the last poll of any of them) */
	r->burst_idle = r->poll_empty;
	r->poll_empty = n == 0;
	if (pcap)
		source_notes(r);
	if (n > 0) {
		r->bursts++;
		if (pcap) {
			struct src_stats st;
			src_stats(src, &st);
			if (r->live.loops && st.pcap_loops >= r->live.loops) {
				r->plays = st.pcap_loops;
				src_rx_release(src);
				end_replay(r);
				return 1;
			}
			if (st.pcap_loops > r->plays) {
				r->plays = st.pcap_loops;
				new_play(r);
			}
			if (pace_wait(r, f[0].ts_ns) < 0)
				return -1;
		}
		if (dp->tcp && dp->src_port[k] == 0) {
			/* port 0 holds toed's own connections: the endpoint takes its frames */
			uint64_t mono = mono_ns();
			for (int i = 0; i < n; i++) {
				r->port[k].frames++;
				r->port[k].bytes += f[i].len;
				frame_in_tcp(r, &f[i], mono);
			}
			dp_tcp_flush(dp->tcp, dp->pipe, mono); /* ACKs and replies of the burst */
		} else {
			for (int i = 0; i < n; i++)
				frame_in(r, k, &f[i]); /* publishes each frame's records itself */
			if (dp->resp[dp->src_port[k]])
				dp_resp_flush(dp->resp[dp->src_port[k]]); /* the burst's replies */
		}
		src_rx_release(src);
		return 1;
	}
	if (n == SRC_EOF) {
		r->plays++;
		end_replay(r);
		return 1;
	}
	if (n < 0) {
		snprintf(dp->err, sizeof dp->err, "port %u: %.256s: receive failed: %s", dp->src_port[k], dp->port_desc[k],
			 strerror(errno));
		log_err("data plane: %s", dp->err);
		set_state(dp, TOED_DP_FAILED);
		return -1;
	}
	return 0;
}

/* Software backend: frames from every port's source through rx_pipe, a burst of each in turn. */
static void sw_loop(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	static __thread struct src_frame f[TOED_MAX_PORTS][DP_BURST];
	int n[TOED_MAX_PORTS] = {0};
	int pcap = dp->src_kind == SRC_PCAP;
	/* the first poll: the pipeline is live once every source answered */
	for (uint32_t k = 0; k < dp->nsrc; k++) {
		n[k] = src_rx_burst(dp->src[k], f[k], pcap ? 1 : DP_BURST);
		if (n[k] == -1) {
			snprintf(dp->err, sizeof dp->err, "port %u: %.256s: %s", dp->src_port[k], dp->port_desc[k],
				 strerror(errno));
			set_state(dp, TOED_DP_FAILED);
			return;
		}
	}
	r->live_since = mono_ns();
	snapshot(r, r->live_since);
	set_state(dp, TOED_DP_LIVE);
	log_info("data plane: live (%s)", dp->src_desc);
	dp_spin_init(&r->spin);

	while (keep_running(r)) {
		uint64_t now = mono_ns();
		int got = 0, stop = 0;
		if (r->spin.yields == 1 && !r->spin_told) {
			r->spin_told = 1;
			log_notice("data plane: busy polling yields: another thread wants CPU %d (the data plane waited %u %% "
				   "of %u ms to run), so it sleeps between frames and tries spinning again later; give it a "
				   "CPU of its own for the lowest latency (toectl stats: spin_yields)",
				   sched_getcpu(), (unsigned)r->spin.last_wait_pct,
				   (unsigned)(DP_SPIN_WINDOW_NS / 1000000ull));
		}
		housekeeping(r, now);
		turn_hook(r, now);
		if (dp->tcp)
			tcp_turn(r, now);
		if (r->ended) {
			struct timespec sl = {0, DP_WAIT_MS * 1000000L};
			nanosleep(&sl, NULL);
			continue;
		}
		for (uint32_t k = 0; k < dp->nsrc && !stop && !r->ended; k++) {
			int e = sw_source(r, k, f[k], &n[k]);
			if (e < 0)
				stop = 1;
			got |= e > 0;
		}
		if (stop)
			break;
		if (got)
			continue;
		/* nothing now: timers on the wall clock (live capture), then wait or spin */
		if (!pcap) {
			uint64_t t = real_ns();
			if (t - r->last_poll_ts >= DP_POLL_NS) {
				r->last_poll_ts = t;
				r->clock = TOE_CLK_POLL;
				rx_poll(dp->pipe, t);
				drain(r);
				flush_batch(r);
			}
		}
		/* busy_poll: spin only while no other thread wants this CPU (dp_spin.h) */
		if (!r->live.busy_poll || pcap || !dp_spin_should(&r->spin, now, r->live.cpu)) {
			r->waits++;
			if (src_wait_many(dp->src, (int)dp->nsrc, DP_WAIT_MS) < 0 && errno != EINTR) {
				snprintf(dp->err, sizeof dp->err, "%.256s: wait failed: %s", dp->src_desc, strerror(errno));
				log_err("data plane: %s", dp->err);
				set_state(dp, TOED_DP_FAILED);
				break;
			}
		}
	}
	dp_spin_close(&r->spin);
}

/* ---- the card (backend = xrt) ---------------------------------------------------- */

/* The card failed: its one-line reason for the control loop, which logs it and exits 1. */
static void card_fail(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	snprintf(dp->err, sizeof dp->err, "card: %s", toe_xrt_error(dp->xrt));
	set_state(dp, TOED_DP_FAILED);
}

/* How a connection on the card ended, in the software backend's words. */
static const char *card_down_name(uint32_t ev, uint32_t reason)
{
	if (ev == GTOE_EV_RESET)
		return "reset by the peer";
	if (ev != GTOE_EV_ERROR)
		return "closed";
	return reason == GTOE_ERR_REFUSED ? "refused" : reason == GTOE_ERR_TIMEOUT ? "timed out"
	       : reason == GTOE_ERR_KEEPALIVE					 ? "keepalive unanswered"
											 : "failed";
}

/* The log lines the software backend writes as connections come and go, from the counters of the
 * state window (read with the counters, every second: a connection that came and went in between is
 * one line each way with the counts). */
static void card_tcp_log(struct dp_run *r, uint32_t i, const struct toe_xrt_tcpconn *c)
{
	struct toed_dp *dp = r->dp;
	const struct toe_hw_gtoe_conn *e = &dp->card_tcp[i];
	const char *feed = dp->card_tcp_name[i];
	if (c->ups != r->card_ups[i])
		log_info("card: feed %s: connected %s %u.%u.%u.%u:%u (%u times since start)", feed,
			 e->accept ? "from" : "to", e->raddr >> 24, (e->raddr >> 16) & 255, (e->raddr >> 8) & 255,
			 e->raddr & 255, e->rport, c->ups);
	if (c->downs != r->card_downs[i])
		log_info("card: feed %s: connection %s %u.%u.%u.%u:%u %s (%u ended since start); the card %s", feed,
			 e->accept ? "from" : "to", e->raddr >> 24, (e->raddr >> 16) & 255, (e->raddr >> 8) & 255,
			 e->raddr & 255, e->rport, card_down_name(c->last_down, c->last_reason), c->downs,
			 e->accept ? "listens again" : "reconnects");
	r->card_ups[i] = c->ups;
	r->card_downs[i] = c->downs;
}

/* role = tcp: toed's own connections as gtoe_top's registers show them, in the software backend's
 * terms (toectl's tcp, gtoe and tcp_connections; what the card does not keep stays 0). */
static int card_tcp(struct dp_run *r, struct toed_dp_snapshot *w)
{
	struct toed_dp *dp = r->dp;
	uint32_t n = toe_xrt_tcp_entries(dp->xrt);
	if (!n)
		return 0;
	w->tcp_on = 1;
	w->ntcp = n < TOED_MAX_FEEDS ? n : TOED_MAX_FEEDS;
	memset(&w->tcp, 0, sizeof w->tcp);
	memset(&w->gtoe, 0, sizeof w->gtoe);
	for (uint32_t i = 0; i < w->ncard; i++) {
		const char *nm = w->card_ctr[i].name;
		uint64_t v = w->card_ctr[i].value;
		if (!strcmp(nm, "eth_rx_top.tx_frames")) /* role tcp: its replies are ICMP echo replies */
			w->tcp.icmp_replies = v;
#define CT_TCP(f, d) else if (!strcmp(nm, "gtoe_top." #f)) w->tcp.f = v;
		DP_TCP_STATS(CT_TCP)
#undef CT_TCP
#define CT_GTOE(f) else if (!strcmp(nm, "gtoe_top.gtoe." #f)) w->gtoe.f = v;
		GTOE_STATS_FIELDS(CT_GTOE)
#undef CT_GTOE
	}
	for (uint32_t i = 0; i < w->ntcp; i++) {
		struct toe_xrt_tcpconn c;
		struct toed_dp_tcpconn *d = &w->tcp_conn[i];
		if (toe_xrt_tcp_conn(dp->xrt, i, &c) < 0)
			return -1;
		card_tcp_log(r, i, &c);
		memset(d, 0, sizeof *d);
		d->feed = dp->card_tcp_feed[i];
		d->phase = c.phase;
		d->laddr = dp->card_laddr;
		d->raddr = dp->card_tcp[i].raddr;
		d->rport = dp->card_tcp[i].rport;
		d->lport = dp->card_tcp[i].lport;
		d->last_down = c.last_down;
		d->last_reason = c.last_reason;
		d->attempts = c.attempts;
		d->ups = c.ups;
		d->downs = c.downs;
		d->offset = c.bytes_in; /* the card counts the entry's bytes over all its connections */
		d->mss = dp->card_tcp[i].mss; /* as written to the entry's limits */
		d->window = dp->card_tcp[i].window;
		d->info.state = (uint8_t)c.state;
		d->info.srtt_ns = (uint64_t)c.srtt_us * 1000u;
		d->info.cwnd = c.cwnd;
		d->info.snd_wnd = c.snd_wnd;
		d->info.rcv_wnd = c.rcv_wnd;
		d->info.st.retrans = c.retrans;
		d->info.st.bytes_in = c.bytes_in;
		d->info.st.bytes_out = c.bytes_out;
		if (dp->card_sess && i < dp->card_sess->t.nfeeds)
			d->sess = dp->card_sess->t.f[i].sess; /* the session's report, as the software backend's */
	}
	return 0;
}

static int card_counters(struct dp_run *r, uint64_t now)
{
	struct toed_dp *dp = r->dp;
	struct toed_dp_snapshot *w = dp->work;
	int n = toe_xrt_counters(dp->xrt, w->card_ctr, TOE_XRT_MAX_COUNTERS), link = -1;
	r->last_card = now;
	if (n < 0)
		return -1;
	w->ncard = (uint32_t)n;
	w->card_taken_ns = now;
	for (int i = 0; i < n; i++) {
		const struct toe_xrt_counter *c = &w->card_ctr[i];
		if (!strcmp(c->name, "cmac_0.link_up"))
			link = c->value != 0;
		else if (!strcmp(c->name, "eth_rx_top.frames"))
			r->frames = c->value;
		else if (!strncmp(c->name, "eth_rx_top_", 11) && strstr(c->name, ".frames") &&
			 !strcmp(strstr(c->name, ".frames"), ".frames"))
			r->frames += c->value; /* the 4 x 10G build's ports 1..3 (listed after port 0's) */
		else if (!strcmp(c->name, "fast_top.records"))
			w->rx.records = c->value;
		else if (!strcmp(c->name, "fast_top.gaps"))
			w->rx.gaps = c->value;
	}
	/* the backend reported the state at open: from then on, the changes */
	if (link >= 0 && r->link >= 0 && link != r->link) {
		if (link)
			log_notice("card: link up on the QSFP28 port");
		else
			log_warn("card: link down on the QSFP28 port: receiving nothing until it comes back");
	}
	if (link >= 0)
		r->link = link;
	return card_tcp(r, w);
}

/* The card's sessions' records (TOE_REC_SESSION) to the clients of their feed. */
static void card_publish_sess(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	union toe_record rec;
	uint8_t src;
	if (!dp->card_sess)
		return;
	while (dp_card_sess_pub(dp->card_sess, &rec)) {
		uint32_t flow = rec.hdr.stream;
		src = flow < dp->rxcfg.mtoe.nflows && flow < TOED_MAX_FEEDS ? (uint8_t)dp->flow_feed[flow] : PUB_SRC_NONE;
		publish(r, &rec, &src, 1);
	}
}

/* A poll's records to the publication path; those of no record type (a DMA
 * problem: the backend counts them too) are left out, and the card's own
 * session records (TOE_REC_CARD_SESS) go to the sessions only. */
static void card_publish(struct dp_run *r, int n)
{
	unsigned m = 0;
	uint64_t now = r->dp->card_sess ? mono_ns() : 0;
	for (int i = 0; i < n; i++) {
		uint8_t type = r->cbatch[i].hdr.type;
		if (r->dp->card_sess && dp_card_sess_record(r->dp->card_sess, &r->cbatch[i], now)) {
			/* the session's events of this record go out before the records after it */
			if (m) {
				publish(r, r->cbatch, r->cbatch_src, m);
				m = 0;
			}
			card_publish_sess(r);
			continue;
		}
		if (type < TOE_REC_TRADE || type > TOE_REC_RESET) {
			if (!r->bad++)
				log_warn("card: a record of type %u in the HBM ring (not published; host.bad_records counts "
					 "them): the ring's memory or its syncs are wrong", type);
			continue;
		}
		if (m != (unsigned)i)
			r->cbatch[m] = r->cbatch[i];
		r->cbatch_src[m] = card_src(r->dp, r->cbatch[m].hdr.stream);
		m++;
	}
	publish(r, r->cbatch, r->cbatch_src, m);
	wake_readers(r);
}

/* Card backend: the card's clock every ms, its ring drained into the publication path. */
static void card_loop(struct dp_run *r)
{
	struct toed_dp *dp = r->dp;
	r->link = -1;
	r->last_poll_ts = real_ns(); /* toed_dp_open wrote the clock */
	if (card_counters(r, mono_ns()) < 0) {
		card_fail(r);
		return;
	}
	r->live_since = mono_ns();
	r->last_rec = r->live_since;
	snapshot(r, r->live_since);
	set_state(dp, TOED_DP_LIVE);
	log_info("data plane: live (%s)", dp->src_desc);

	while (keep_running(r)) {
		uint64_t now = mono_ns(), t;
		int got = 0, n = 0;
		housekeeping(r, now);
		turn_hook(r, now);
		if (dp->card_sess) {
			take_passwords(r);
			dp_card_sess_tick(dp->card_sess, now);
			card_publish_sess(r);
		}
		if (now - r->last_card >= DP_CARD_CTR_NS && card_counters(r, now) < 0)
			break;
		t = real_ns();
		if (t - r->last_poll_ts >= DP_POLL_NS || t < r->last_poll_ts) {
			r->last_poll_ts = t;
			if (toe_xrt_set_time(dp->xrt, t) < 0)
				break;
		}
		for (int i = 0; i < DP_CARD_POLLS; i++) {
			n = toe_xrt_poll(dp->xrt, r->cbatch, DP_CARD_BATCH);
			if (n < 0)
				break;
			card_publish(r, n);
			got += n;
			if (n < DP_CARD_BATCH)
				break;
		}
		if (n < 0)
			break;
		if (got) {
			r->bursts++;
			r->last_rec = now;
			continue;
		}
		if (!r->live.busy_poll) {
			/* no interrupt from the card: short naps while records flow, longer ones when the feed is quiet */
			struct timespec sl = {0, (long)(now - r->last_rec < DP_CARD_QUIET_AFTER ? DP_CARD_IDLE_NS
											: DP_CARD_QUIET_NS)};
			r->waits++;
			nanosleep(&sl, NULL);
		}
	}
	if (!stopping(dp))
		card_fail(r);
}

static void *dp_main(void *arg)
{
	struct toed_dp *dp = arg;
	struct dp_run *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(dp->err, sizeof dp->err, "data plane: out of memory");
		set_state(dp, TOED_DP_FAILED);
		return NULL;
	}
	r->dp = dp;
	take_live(r, 1);
	if (dp->xrt)
		card_loop(r);
	else
		sw_loop(r);
	flush_batch(r);
	snapshot(r, mono_ns());
	toed_record_dp_finish(dp->rec);
	if (toed_dp_state(dp) != TOED_DP_FAILED)
		set_state(dp, TOED_DP_STOPPED);
	free(r);
	return NULL;
}

int toed_dp_start(struct toed_dp *dp)
{
	__atomic_store_n(&dp->state, TOED_DP_STARTING, __ATOMIC_RELEASE);
	int e = pthread_create(&dp->thread, NULL, dp_main, dp);
	if (e) {
		errno = e;
		return -1;
	}
	dp->started = 1;
	pthread_setname_np(dp->thread, "toed-dataplane");
	return 0;
}

int toed_dp_stop(struct toed_dp *dp, int timeout_ms)
{
	if (!dp->started)
		return 0;
	__atomic_store_n(&dp->stop, 1, __ATOMIC_RELEASE);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(dp->thread, NULL, &ts) != 0)
		return -1;
	dp->started = 0;
	return 0;
}

void toed_dp_destroy(struct toed_dp *dp)
{
	if (dp->started)
		return; /* still running: leave its memory alone, the process is about to exit */
	for (uint32_t k = 0; k < dp->nsrc; k++) {
		src_close(dp->src[k]);
		dp->src[k] = NULL;
	}
	dp->nsrc = 0;
	dp_mcast_close(&dp->mcast); /* leaves the groups */
	explicit_bzero(&dp->pw, sizeof dp->pw);
	if (dp->sess)
		explicit_bzero(dp->sess, sizeof *dp->sess); /* the passwords in its sessions' settings */
	if (dp->card_sess) {
		explicit_bzero(dp->card_sess, sizeof *dp->card_sess);
		free(dp->card_sess);
		dp->card_sess = NULL;
	} else {
		free(dp->sess);
	}
	dp->sess = NULL;
	for (uint32_t p = 0; p < TOED_MAX_PORTS; p++) {
		if (!dp->tcp || dp->resp[p] != &dp->tcp->resp)
			free(dp->resp[p]);
		dp->resp[p] = NULL;
	}
	dp_tcp_free(dp->tcp);
	free(dp->tcp);
	dp->tcp = NULL;
	toe_xrt_close(dp->xrt); /* holds the kernels: the writer stops before its buffers go */
	dp->xrt = NULL;
	free(dp->pipe);
	free(dp->fs);
	fastx_prog_free(dp->fastx_prog);
	free(dp->fastx);
	free(dp->mbuf);
	free(dp->snap);
	free(dp->work);
	if (dp->event_fd >= 0)
		close(dp->event_fd);
	dp->event_fd = -1;
	pthread_mutex_destroy(&dp->live_lock);
	pthread_mutex_destroy(&dp->snap_lock);
}
