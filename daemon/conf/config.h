/* config.h - toed's configuration: /etc/toed.conf parsed (inih), validated, diffed on reload.
 *
 * The public side of daemon/conf/ (conf_impl.h says which file does what).
 *
 * The file is INI (doc/config.md is the reference, conf/toed.conf the annotated
 * default). toed_config_load() parses it into a struct toed_config, checks
 * every value and the rules between keys (compiling the FAST template file
 * on the way), and collects every problem in a struct toed_diag, each message
 * naming the file, the line, the key and the reason:
 *
 *   /etc/toed.conf:12: [tcp] mss = 1500: above 1460 (the largest MSS of a 1500-byte MTU)
 *   /etc/toed.conf:14: warning: [tcp] mss = 1400: not a multiple of 64 (...)
 *
 * Warnings do not fail a load. On failure (-1) the output config is left
 * untouched, so a daemon can exit with EX_CONFIG (78) having changed nothing,
 * or keep running with its current config after a bad reload.
 *
 *   struct toed_config *cfg = malloc(sizeof *cfg);   // ~47 KB (diag ~41 KB, diff ~46 KB):
 *   struct toed_diag diag;                           // keep them off small stacks
 *   toed_diag_init(&diag);
 *   if (toed_config_load("/etc/toed.conf", cfg, &diag) < 0) {
 *       toed_diag_print(&diag, stderr);
 *       exit(TOED_EX_CONFIG);
 *   }
 *
 * Reload: load the new file into a second struct, toed_config_diff() the two:
 * each changed key is classed live (applied by the daemon at once:
 * toed_config_apply_live() copies exactly those keys into the running config)
 * or restart (reported as "[source] interface changed (eth0 -> eth1): needs a
 * restart"; the running value stays in force).
 *
 * Paths: a relative path names a file relative to the directory of the
 * configuration file; for the files toed reads (xclbin, templates, pcap_file)
 * when it is not there, TOED_DATADIR is tried next. Stored paths are absolute.
 * All addresses are IPv4 in host byte order.
 */
#ifndef TOED_CONFIG_H
#define TOED_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/log.h" /* enum toed_log_level, enum toed_log_target: the [log] values */
#include "fast/fast_prog.h"
#include "net/net_cfg.h"
#include "toe/mtoe.h"

/* Where relative input paths are looked up after the config file's directory
 * (make install puts the templates and the xclbin there). */
#ifndef TOED_DATADIR
#define TOED_DATADIR "/usr/local/share/toed"
#endif

#define TOED_CONFIG_PATH "/etc/toed.conf" /* default -c */
#define TOED_EX_CONFIG 78                  /* sysexits.h EX_CONFIG: bad configuration */

/* What toed reads of a configuration: a regular file of at most 1 MiB, lines of at most 4 KiB
 * (inih takes at most 197 characters of a line once its leading blanks are gone). */
#define TOED_CONFIG_MAX_BYTES (1u << 20)
#define TOED_CONFIG_MAX_LINE 4096

/* Descriptors toed needs with max_clients subscribers: two per subscriber (its control
 * connection and its ring's eventfd; the ring's memfds are closed once sent), one per
 * connection of toectl's room (16), one per multicast UDP feed (the socket holding its
 * group's membership, dp/dp_mcast.h; at most TOED_MAX_FEEDS), and the daemon's own
 * (io_uring, signalfd, timerfd, eventfds, the source, recordings, the journal, the instance
 * lock, the closer queue of ctl/ctl_fds.h) with room to spare. Checked against the hard
 * RLIMIT_NOFILE, to which toed raises its soft limit at start. */
#define TOED_FDS_FIXED 192u
static inline uint64_t toed_fds_needed(uint32_t max_clients, uint32_t mcast_feeds)
{
	return 2ull * max_clients + 16u + mcast_feeds + TOED_FDS_FIXED;
}

#define TOED_PATH_MAX 512
#define TOED_NAME_MAX 32      /* feed and stream names, group names, incl. NUL */
#define TOED_IFNAME_MAX 16    /* IFNAMSIZ */
#define TOED_SOCKPATH_MAX 108 /* sizeof(sockaddr_un.sun_path) */
#define TOED_MAX_PORTS NET_MAX_ADDRS /* card ports (the U50's 4x10G) */
#define TOED_MAX_FEEDS MTOE_MAX_FLOWS
#define TOED_SEQ_FIELDS_MAX 16 /* [fast] sequence_fields rules (SEQ_MAX_FIELDS) */
#define TOED_MAX_GROUPS 3 /* named arbitration groups (the pipeline's RX_MAX_GROUPS, less the default one) */
#define TOED_MAX_LINES 4  /* feeds in one group (SEQ_MAX_LINES) */

/* Built-in defaults (doc/config.md). */
#define TOED_DEF_XCLBIN "toed.xclbin"
#define TOED_DEF_TEMPLATES "templates/sse-l2-3201-5801.xml"
#define TOED_DEF_MSS 1408u
#define TOED_DEF_CONNECTIONS MTOE_DEFAULT_CONNS
#define TOED_DEF_WINDOW MTOE_DEFAULT_WINDOW
#define TOED_DEF_GAP_TIMEOUT_MS 50u
#define TOED_DEF_IDLE_TIMEOUT_S 300u
#define TOED_DEF_MAX_CLIENTS 256u
#define TOED_DEF_SOCKET_MODE 0660u

enum toed_backend { TOED_BACKEND_SW = 0, TOED_BACKEND_XRT = 1 };
enum toed_source_type { TOED_SRC_AF_XDP = 0, TOED_SRC_AF_PACKET = 1, TOED_SRC_PCAP = 2 };
enum toed_xdp_mode { TOED_XDP_NATIVE = 0, TOED_XDP_SKB = 1 };
enum toed_pace { TOED_PACE_RECORDED = 0, TOED_PACE_FAST = 1, TOED_PACE_FACTOR = 2 };
#define TOED_AUTO 2u /* an auto/yes/no key left to the program (yes = 1, no = 0) */

enum toed_role { TOED_ROLE_MIRROR = 0, TOED_ROLE_TCP = 1, TOED_ROLE_UDP = 2 };
enum toed_proto { TOED_PROTO_TCP = 0, TOED_PROTO_UDP = 1 };
/* [feed.NAME] open: how a role = tcp port's connection opens. */
enum toed_open { TOED_OPEN_CONNECT = 0, TOED_OPEN_ACCEPT = 1 };
/* Same values as enum fast_framing (fast/fast_stream.h). */
enum toed_framing { TOED_FRAMING_STEP = 0, TOED_FRAMING_RAW = 1 };
/* [fast] decoder: the software backend's FAST decoder (kernels/fast/host/fastx.h enum fastx_choice). */
enum toed_decoder { TOED_DECODER_AUTO = 0, TOED_DECODER_FAST = 1, TOED_DECODER_REFERENCE = 2 };
enum toed_hugepages { TOED_HUGE_AUTO = 0, TOED_HUGE_OFF = 1, TOED_HUGE_COUNT = 2 };

/* An endpoint: 0 in ip or port means "any". */
struct toed_endpoint {
	uint32_t ip;
	uint32_t port;
};

struct toed_port {
	int enabled;          /* a [port]/[port.N] section, or port 0 made implicit (see implicit) */
	int implicit;         /* no [port] section at all: port 0 is a mirror port without address */
	uint32_t ip;          /* 0: none */
	uint32_t netmask;
	uint32_t gateway;     /* 0: none */
	uint32_t has_mac;     /* 0: the interface's own (software backend) */
	uint8_t mac[6];
	uint8_t pad[2];
	uint32_t role;        /* enum toed_role */
	uint32_t vlan;        /* 0: untagged */
	uint32_t verify_checksums; /* TOED_AUTO (by source, dp_setup_net), 1 always, 0 never:
				    * TCP/UDP checksums (NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM) */
	/* software backend: where the port's frames come from ([source] type for all ports) */
	char interface[TOED_IFNAME_MAX]; /* "" on port 0: [source] interface (toed_port_interface) */
	uint32_t queue;       /* AF_XDP queue; on port 0 [source] queue unless set here */
	uint32_t queue_set;   /* queue was written in the port's section */
};

struct toed_feed {
	char name[TOED_NAME_MAX];   /* from [feed.NAME] */
	char stream[TOED_NAME_MAX]; /* published stream name (default: name) */
	struct toed_endpoint exchange; /* TCP: the exchange's server; UDP: the sender (optional) */
	struct toed_endpoint vendor;   /* TCP: our side (optional); UDP: where datagrams go (port required) */
	uint32_t protocol;          /* enum toed_proto */
	uint32_t framing;           /* enum toed_framing */
	uint32_t port;              /* index of the port that carries it */
	char group[TOED_NAME_MAX];  /* arbitration group ("" none): feeds of one group are its lines, in file order */
	/* STEP session on toed's own connection (role = tcp port); "" sender_comp_id: no session */
	char sender_comp_id[TOED_NAME_MAX];  /* 49= we send */
	char target_comp_id[TOED_NAME_MAX];  /* 56= we send, the exchange's CompID */
	uint32_t heartbeat_s;                /* HeartBtInt asked for, 0: none */
	char username[TOED_NAME_MAX];        /* 553= ("" none) */
	char password_file[TOED_PATH_MAX];   /* first line is 554= ("" none); read at start and reload */
	uint32_t reset_on_logon;             /* 141=Y: both sides restart MsgSeqNum at 1 on each logon */
	uint32_t open;              /* enum toed_open: role = tcp, toed connects or accepts */
	/* toed's own connection (a tcp feed on a role = tcp port): the MSS its SYN offers and its
	 * receive window; 0: not set, [tcp] mss and window (toed_feed_mss, toed_feed_window) */
	uint32_t mss;
	uint32_t window;            /* bytes, power of two */
};

struct toed_config {
	char path[TOED_PATH_MAX]; /* absolute path of the file loaded ("" for the defaults) */
	struct {
		uint32_t backend;                 /* enum toed_backend */
		char pci[16];                     /* "dddd:bb:dd.f", "" = the first card */
		char xclbin[TOED_PATH_MAX];
	} device;
	struct {
		uint32_t type;                    /* enum toed_source_type */
		char interface[TOED_IFNAME_MAX];
		uint32_t queue;                   /* AF_XDP queue id */
		uint32_t xdp_mode;                /* enum toed_xdp_mode */
		char pcap_file[TOED_PATH_MAX];
		uint32_t pcap_pace;               /* enum toed_pace */
		double pcap_speed;                /* TOED_PACE_FACTOR: speed factor (2 = twice as fast) */
		uint32_t pcap_loop;               /* times the file is played, 0 = forever */
		uint32_t xsk_rx_ring;             /* AF_XDP rx ring entries */
		uint32_t xsk_fill_ring;           /* AF_XDP fill ring entries */
		uint32_t xsk_frames;              /* AF_XDP UMEM frames */
		uint32_t xsk_busy_poll;           /* AF_XDP preferred busy polling */
	} source;
	struct toed_port port[TOED_MAX_PORTS];
	uint32_t nfeeds;
	struct toed_feed feed[TOED_MAX_FEEDS]; /* in file order */
	struct {
		uint32_t mss;
		uint32_t connections;
		uint32_t window;                  /* bytes per connection, power of two */
		uint32_t gap_timeout_ms;          /* 0: only window pressure declares gaps */
		uint32_t idle_timeout_s;          /* 0: never */
	} tcp;
	struct {
		uint32_t nports;                  /* bits set in ports */
		uint32_t ports[65536 / 32];       /* bit (p & 31) of word (p >> 5): listened */
	} udp;
	struct {
		char templates[TOED_PATH_MAX];
		uint32_t framing;                 /* enum toed_framing: UDP feeds' default */
		uint32_t sequence_check;          /* per-channel sequence tracking and arbitration (RX_CFG_SEQ) */
		uint32_t arbitration_wait_us;     /* how long a hole waits for another line of its group */
		/* [fast] sequence_fields: per template, which fields are the channel and the
		 * sequence. As written (a name or a field id), resolved to field ids against
		 * the templates at load (chan_fid, seq_fid). tid 0: every template having both. */
		uint32_t nseq_fields;
		struct toed_seq_field {
			uint32_t tid;
			uint32_t chan_fid, seq_fid;
			char chan[TOED_NAME_MAX], seq[TOED_NAME_MAX];
		} seq_fields[TOED_SEQ_FIELDS_MAX];
		uint32_t decoder;                 /* enum toed_decoder (software backend; live) */
		uint32_t have_prog;               /* prog holds the compiled templates */
		struct fast_prog prog;            /* compiled at load: the file checked is the file used */
	} fast;
	struct {
		uint32_t hugepages;               /* enum toed_hugepages */
		uint32_t hugepage_count;          /* TOED_HUGE_COUNT: 2 MB pages to reserve */
		uint32_t ring_size;               /* records per client ring, power of two */
		uint32_t max_clients;
		uint32_t max_clients_per_uid;     /* control connections one uid may hold (not root); 0: no limit */
		uint32_t handshake_timeout_ms;    /* a connection's first request is due within this */
		uint32_t ring_memory_mb;          /* all client rings together */
		uint32_t ring_memory_per_uid_mb;  /* one uid's rings (not root); 0: no limit */
		char socket[TOED_SOCKPATH_MAX];
		char socket_group[TOED_NAME_MAX]; /* "" = leave the group alone */
		uint32_t socket_mode;
	} shm;
	struct {
		int32_t cpu;                      /* -1: not pinned */
		uint32_t priority;                /* 0: SCHED_OTHER, 1..99: SCHED_FIFO */
		uint32_t busy_poll;
		uint32_t trace;                   /* per-record latency by stage (toectl latency) */
	} dataplane;
	struct {
		uint32_t level;                   /* enum toed_log_level */
		uint32_t target;                  /* enum toed_log_target */
	} log;
	struct {
		char pcap[TOED_PATH_MAX];         /* "" = off */
		char ticks[TOED_PATH_MAX];        /* "" = off */
	} record;
};

/* ---- diagnostics ---------------------------------------------------------------- */

#define TOED_DIAG_MAX 64
#define TOED_DIAG_LEN 640

enum toed_diag_level { TOED_DIAG_ERROR = 0, TOED_DIAG_WARNING = 1 };

struct toed_diag_msg {
	uint32_t level; /* enum toed_diag_level */
	uint32_t line;  /* 0: not tied to a line */
	char text[TOED_DIAG_LEN]; /* whole message: "file:line: [section] key = value: reason" */
};

struct toed_diag {
	uint32_t errors;   /* counted even when the message array is full */
	uint32_t warnings;
	uint32_t n;        /* messages stored, sorted by line (file-wide ones last) */
	uint32_t dropped;  /* messages beyond TOED_DIAG_MAX */
	struct toed_diag_msg msg[TOED_DIAG_MAX];
};

void toed_diag_init(struct toed_diag *d);
/* One message per line; then "... N more" when some were dropped. */
void toed_diag_print(const struct toed_diag *d, FILE *f);

/* ---- load ---------------------------------------------------------------------------- */

/* The built-in defaults (what an empty file means, relative paths not yet resolved). */
void toed_config_default(struct toed_config *c);

/* Parse and validate `path`. 0 on success (warnings possible), -1 on any error; *out
 * is written only on success. diag may be NULL (messages are then discarded); it is
 * appended to, so call toed_diag_init() first. Only a regular file is read (a FIFO, a
 * device or a directory is an error, and opening one never blocks), of at most
 * TOED_CONFIG_MAX_BYTES, with lines of at most TOED_CONFIG_MAX_LINE bytes. */
int toed_config_load(const char *path, struct toed_config *out, struct toed_diag *diag);

/* The same for text[0..len) in memory, as if it were the file `name` (messages name it, and
 * relative paths resolve against its directory, the current one when it has none). */
int toed_config_load_mem(const char *name, const char *text, size_t len, struct toed_config *out,
			 struct toed_diag *diag);

/* The most 2 MB huge pages c may reserve: what max_clients rings of the largest size can use,
 * and no more than half of this machine's memory. */
unsigned long toed_hugepages_max(const struct toed_config *c);

/* ---- reload ------------------------------------------------------------------------ */

/* Key identities, for struct toed_change (and a daemon's switch). */
enum toed_key {
	TOED_K_DEVICE_BACKEND, TOED_K_DEVICE_PCI, TOED_K_DEVICE_XCLBIN,
	TOED_K_SOURCE_TYPE, TOED_K_SOURCE_INTERFACE, TOED_K_SOURCE_QUEUE, TOED_K_SOURCE_XDP_MODE,
	TOED_K_SOURCE_PCAP_FILE, TOED_K_SOURCE_PCAP_PACE, TOED_K_SOURCE_PCAP_LOOP,
	TOED_K_SOURCE_XSK_RX_RING, TOED_K_SOURCE_XSK_FILL_RING, TOED_K_SOURCE_XSK_FRAMES, TOED_K_SOURCE_XSK_BUSY_POLL,
	TOED_K_PORT_IP, TOED_K_PORT_NETMASK, TOED_K_PORT_GATEWAY, TOED_K_PORT_MAC, TOED_K_PORT_ROLE,
	TOED_K_PORT_VLAN, TOED_K_PORT_VERIFY_CHECKSUMS, TOED_K_PORT_INTERFACE, TOED_K_PORT_QUEUE,
	TOED_K_FEED_EXCHANGE, TOED_K_FEED_VENDOR, TOED_K_FEED_PROTOCOL, TOED_K_FEED_FRAMING,
	TOED_K_FEED_STREAM, TOED_K_FEED_PORT, TOED_K_FEED_GROUP,
	TOED_K_FEED_SENDER_COMP_ID, TOED_K_FEED_TARGET_COMP_ID, TOED_K_FEED_HEARTBEAT_S, TOED_K_FEED_USERNAME,
	TOED_K_FEED_PASSWORD_FILE, TOED_K_FEED_RESET_ON_LOGON,
	TOED_K_FEED_OPEN, TOED_K_FEED_MSS, TOED_K_FEED_WINDOW,
	TOED_K_TCP_MSS, TOED_K_TCP_CONNECTIONS, TOED_K_TCP_WINDOW, TOED_K_TCP_GAP_TIMEOUT_MS,
	TOED_K_TCP_IDLE_TIMEOUT_S,
	TOED_K_UDP_PORTS,
	TOED_K_FAST_TEMPLATES, TOED_K_FAST_FRAMING, TOED_K_FAST_SEQUENCE_CHECK, TOED_K_FAST_ARBITRATION_WAIT_US,
	TOED_K_FAST_SEQUENCE_FIELDS, TOED_K_FAST_DECODER,
	TOED_K_SHM_HUGEPAGES, TOED_K_SHM_RING_SIZE, TOED_K_SHM_MAX_CLIENTS, TOED_K_SHM_MAX_CLIENTS_PER_UID,
	TOED_K_SHM_HANDSHAKE_TIMEOUT_MS, TOED_K_SHM_RING_MEMORY_MB, TOED_K_SHM_RING_MEMORY_PER_UID_MB, TOED_K_SHM_SOCKET,
	TOED_K_SHM_SOCKET_GROUP, TOED_K_SHM_SOCKET_MODE,
	TOED_K_DATAPLANE_CPU, TOED_K_DATAPLANE_PRIORITY, TOED_K_DATAPLANE_BUSY_POLL, TOED_K_DATAPLANE_TRACE,
	TOED_K_LOG_LEVEL, TOED_K_LOG_TARGET,
	TOED_K_RECORD_PCAP, TOED_K_RECORD_TICKS,
	TOED_K_COUNT,
	/* not keys: whole changes */
	TOED_K_PORT_SECTION = TOED_K_COUNT, /* a [port.N] added or removed */
	TOED_K_FEED_SECTION,                /* a [feed.NAME] added or removed */
	TOED_K_FAST_PROGRAM                 /* same templates path, different compiled program */
};

enum toed_change_kind { TOED_CHANGE_LIVE = 1, TOED_CHANGE_RESTART = 2 };

#define TOED_VALUE_MAX 200
#define TOED_DIFF_MAX 96

struct toed_change {
	uint32_t key;  /* enum toed_key */
	uint32_t kind; /* enum toed_change_kind */
	int32_t index; /* port number or feed index in the new config (old one when removed); -1 */
	char section[TOED_NAME_MAX + 8]; /* "tcp", "port.1", "feed.sse" */
	char name[24];                   /* key name, "" for a whole section */
	char old_val[TOED_VALUE_MAX];    /* formatted as in the file; "" when absent */
	char new_val[TOED_VALUE_MAX];
};

struct toed_diff {
	uint32_t n;
	uint32_t live;    /* changes of each kind (also those dropped) */
	uint32_t restart;
	uint32_t dropped; /* beyond TOED_DIFF_MAX */
	struct toed_change ch[TOED_DIFF_MAX];
};

/* Compare two loaded configs. Returns 0 when nothing changed, else a mask of
 * TOED_CHANGE_LIVE and TOED_CHANGE_RESTART. diff may be NULL. */
int toed_config_diff(const struct toed_config *old, const struct toed_config *new, struct toed_diff *diff);

/* 1 when a change of this key can be applied to a running daemon. */
int toed_key_is_live(enum toed_key key);

/* Name of a key as written in the file ("mss") and of its section ("tcp"; "port" and
 * "feed" for the keys of [port.N] and [feed.NAME]); NULL for TOED_K_COUNT and above. */
const char *toed_key_name(enum toed_key key);
const char *toed_key_section(enum toed_key key);

/* Copy the live keys of next into running (the others keep their running values). */
void toed_config_apply_live(struct toed_config *running, const struct toed_config *next);

/* "[log] level changed (info -> debug): applied" or "...: needs a restart". */
void toed_change_format(const struct toed_change *c, char *buf, size_t len);
void toed_diff_print(const struct toed_diff *d, FILE *f);

/* ---- helpers ---------------------------------------------------------------------- */

/* [fast] sequence_fields' rules resolved to field ids (the templates loaded), as sequence
 * tracking takes them (rx_cfg.seq.fields): at most max; returns how many. A rule left
 * unresolved (only possible without templates) keys nothing and is left out. */
struct seq_field_cfg;
uint32_t toed_seq_rules(const struct toed_config *c, struct seq_field_cfg *out, uint32_t max);

/* STEP session (conf_session.c). A feed has a session when sender_comp_id is set. */
struct step_sess_cfg;
int toed_feed_has_session(const struct toed_feed *f);
/* The session layer's settings for feed f, the password read from its password_file now:
 * 0, or -1 with the reason in why (the file cannot be read, the password is empty or too long). */
int toed_feed_session_cfg(const struct toed_feed *f, struct step_sess_cfg *out, char *why, size_t wl);
/* The first line of path (without its newline): 0, or -1 with the reason. */
int toed_read_password(const char *path, char *out, size_t len, char *why, size_t wl);

/* What the components make of a configuration is dp/dp_setup.h. */

static inline int toed_udp_listened(const struct toed_config *c, uint32_t p)
{
	return p < 65536 && ((c->udp.ports[p >> 5] >> (p & 31u)) & 1u);
}

/* The MSS and receive window of a feed's own connection: its [feed] mss and window, else [tcp]'s. */
static inline uint32_t toed_feed_mss(const struct toed_config *c, const struct toed_feed *f)
{
	return f->mss ? f->mss : c->tcp.mss;
}

static inline uint32_t toed_feed_window(const struct toed_config *c, const struct toed_feed *f)
{
	return f->window ? f->window : c->tcp.window;
}

/* Software backend: the interface port i receives from ([port.i] interface; port 0 falls back
 * to [source] interface) and its AF_XDP queue ([port.i] queue; port 0 falls back to [source] queue). */
static inline const char *toed_port_interface(const struct toed_config *c, uint32_t i)
{
	return i == 0 && !c->port[0].interface[0] ? c->source.interface : c->port[i].interface;
}

static inline uint32_t toed_port_queue(const struct toed_config *c, uint32_t i)
{
	return i == 0 && !c->port[0].queue_set ? c->source.queue : c->port[i].queue;
}

/* A UDP feed whose vendor address is a multicast group (224.0.0.0/4, host byte order): toed
 * joins it on the port's interface (dp/dp_mcast.h). */
static inline int toed_feed_multicast(const struct toed_feed *f)
{
	return f->protocol == TOED_PROTO_UDP && (f->vendor.ip & 0xf0000000u) == 0xe0000000u;
}

/* Such feeds: each may hold a socket for its membership, counted in toed_fds_needed. */
static inline uint32_t toed_mcast_feeds(const struct toed_config *c)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->nfeeds && i < TOED_MAX_FEEDS; i++)
		n += toed_feed_multicast(&c->feed[i]);
	return n;
}

/* Names of enum values, as written in the file ("sw", "af_packet", "mirror", ...). */
const char *toed_backend_name(uint32_t v);
const char *toed_source_type_name(uint32_t v);
const char *toed_role_name(uint32_t v);
const char *toed_log_level_name(uint32_t v);

#endif
