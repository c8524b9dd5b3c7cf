/* conf_schema.c - the sections and keys of toed.conf (one table), their defaults and enum names.
 *
 * Adding a key:
 *   1. its field in struct toed_config (or toed_port / toed_feed for [port.N] / [feed.NAME]) and
 *      its id in enum toed_key, both in config.h (the id where the key goes in conf_keys[]);
 *   2. one line in conf_keys[] below: section, type (conf_types.c), id, flags (F_LIVE when a
 *      running daemon can take a change at once), name, field, range, default as written in the
 *      file;
 *   3. its line in doc/config.md and conf/toed.conf.
 * Loading, defaults, messages, the reload diff and live application all walk conf_keys[], so
 * nothing else changes unless the key takes part in a rule between keys (conf_check.c) or in a
 * component's settings (dp/dp_setup.c). A new kind of value is one parse/format pair in
 * conf_types.c.
 */
#include "conf/conf_impl.h"

#include <stdlib.h>
#include <string.h>

#include "toe/ctl.h"
#include "toe/shm.h"
#include "step/step_sess.h"

const char *const conf_sec_name[S_COUNT] = {
	"", "device", "source", "port", "feed", "tcp", "udp", "fast", "shm", "dataplane", "log", "record",
};

static const struct ename e_backend[] = { { "sw", TOED_BACKEND_SW }, { "xrt", TOED_BACKEND_XRT }, { NULL, 0 } };
static const struct ename e_srctype[] = {
	{ "af_xdp", TOED_SRC_AF_XDP }, { "af_packet", TOED_SRC_AF_PACKET }, { "pcap", TOED_SRC_PCAP }, { NULL, 0 }
};
static const struct ename e_xdp[] = { { "native", TOED_XDP_NATIVE }, { "skb", TOED_XDP_SKB }, { NULL, 0 } };
static const struct ename e_role[] = {
	{ "mirror", TOED_ROLE_MIRROR }, { "tcp", TOED_ROLE_TCP }, { "udp", TOED_ROLE_UDP }, { NULL, 0 }
};
static const struct ename e_proto[] = { { "tcp", TOED_PROTO_TCP }, { "udp", TOED_PROTO_UDP }, { NULL, 0 } };
static const struct ename e_open[] = { { "connect", TOED_OPEN_CONNECT }, { "accept", TOED_OPEN_ACCEPT }, { NULL, 0 } };
static const struct ename e_framing[] = {
	{ "step", TOED_FRAMING_STEP }, { "raw", TOED_FRAMING_RAW }, { "datagram", TOED_FRAMING_RAW }, { NULL, 0 }
};
static const struct ename e_decoder[] = {
	{ "auto", TOED_DECODER_AUTO }, { "fast", TOED_DECODER_FAST }, { "reference", TOED_DECODER_REFERENCE }, { NULL, 0 }
};
static const struct ename e_level[] = {
	{ "error", TOED_LOG_ERROR }, { "warning", TOED_LOG_WARNING }, { "notice", TOED_LOG_NOTICE },
	{ "info", TOED_LOG_INFO },   { "debug", TOED_LOG_DEBUG },     { NULL, 0 }
};
static const struct ename e_target[] = { { "journal", TOED_LOG_JOURNAL }, { "stderr", TOED_LOG_STDERR }, { NULL, 0 } };

#define FLD(type, f) .off = offsetof(type, f), .size = sizeof(((type *)0)->f)
#define CF(f) FLD(struct toed_config, f)
#define PF(f) FLD(struct toed_port, f)
#define FF(f) FLD(struct toed_feed, f)

#define MSS_MIN 536
#define MSS_MAX 1460

/* In enum toed_key order (conf_keys[id].id == id). */
const struct key conf_keys[] = {
	{ S_DEVICE, T_ENUM, TOED_K_DEVICE_BACKEND, 0, "backend", CF(device.backend), .names = e_backend, .def = "sw" },
	{ S_DEVICE, T_BDF, TOED_K_DEVICE_PCI, 0, "pci", CF(device.pci), .def = "" },
	{ S_DEVICE, T_PATH_IN, TOED_K_DEVICE_XCLBIN, 0, "xclbin", CF(device.xclbin), .def = TOED_DEF_XCLBIN },

	{ S_SOURCE, T_ENUM, TOED_K_SOURCE_TYPE, 0, "type", CF(source.type), .names = e_srctype, .def = "af_packet" },
	{ S_SOURCE, T_IFNAME, TOED_K_SOURCE_INTERFACE, 0, "interface", CF(source.interface), .def = "" },
	{ S_SOURCE, T_UINT, TOED_K_SOURCE_QUEUE, 0, "queue", CF(source.queue), 0, 1023, .def = "0" },
	{ S_SOURCE, T_ENUM, TOED_K_SOURCE_XDP_MODE, 0, "xdp_mode", CF(source.xdp_mode), .names = e_xdp, .def = "native" },
	{ S_SOURCE, T_PATH_IN, TOED_K_SOURCE_PCAP_FILE, 0, "pcap_file", CF(source.pcap_file), .def = "" },
	{ S_SOURCE, T_PACE, TOED_K_SOURCE_PCAP_PACE, F_LIVE, "pcap_pace", CF(source.pcap_pace), .def = "recorded" },
	{ S_SOURCE, T_LOOP, TOED_K_SOURCE_PCAP_LOOP, F_LIVE, "pcap_loop", CF(source.pcap_loop), 0, 1000000, .def = "1" },
	/* AF_XDP burst room: 64K ring entries are 9.6 ms of 10 GbE in one-record messages (6.8 M/s), and
	 * rx + fill ring frames keep the fill ring full while the rx ring is full (src.h, doc/config.md) */
	{ S_SOURCE, T_UINT, TOED_K_SOURCE_XSK_RX_RING, F_POW2 | F_SUFFIX, "xsk_rx_ring", CF(source.xsk_rx_ring), 64,
	  262144, .below = "below 64 entries", .above = "above 256K entries (262144)", .def = "64K" },
	{ S_SOURCE, T_UINT, TOED_K_SOURCE_XSK_FILL_RING, F_POW2 | F_SUFFIX, "xsk_fill_ring", CF(source.xsk_fill_ring),
	  64, 262144, .below = "below 64 entries", .above = "above 256K entries (262144)", .def = "64K" },
	{ S_SOURCE, T_UINT, TOED_K_SOURCE_XSK_FRAMES, F_SUFFIX, "xsk_frames", CF(source.xsk_frames), 64, 2097152,
	  .below = "below 64 frames", .above = "above 2M frames (4 GiB of UMEM)", .def = "128K" },
	{ S_SOURCE, T_BOOL, TOED_K_SOURCE_XSK_BUSY_POLL, 0, "xsk_busy_poll", CF(source.xsk_busy_poll), .def = "no" },

	{ S_PORT, T_IPV4, TOED_K_PORT_IP, F_HOST, "ip", PF(ip), .def = "" },
	{ S_PORT, T_NETMASK, TOED_K_PORT_NETMASK, 0, "netmask", PF(netmask), .def = "" },
	{ S_PORT, T_IPV4, TOED_K_PORT_GATEWAY, F_HOST, "gateway", PF(gateway), .def = "" },
	{ S_PORT, T_MAC, TOED_K_PORT_MAC, 0, "mac", PF(mac), .def = "" },
	{ S_PORT, T_ENUM, TOED_K_PORT_ROLE, 0, "role", PF(role), .names = e_role, .def = "mirror" },
	{ S_PORT, T_UINT, TOED_K_PORT_VLAN, 0, "vlan", PF(vlan), 0, 4094, .above = "above 4094 (4095 is reserved)",
	  .def = "0" },
	{ S_PORT, T_AUTOBOOL, TOED_K_PORT_VERIFY_CHECKSUMS, 0, "verify_checksums", PF(verify_checksums), .def = "auto" },
	{ S_PORT, T_IFNAME, TOED_K_PORT_INTERFACE, 0, "interface", PF(interface), .def = "" },
	{ S_PORT, T_UINT, TOED_K_PORT_QUEUE, 0, "queue", PF(queue), 0, 1023, .def = "0" },

	{ S_FEED, T_ENDPOINT, TOED_K_FEED_EXCHANGE, 0, "exchange", FF(exchange), .def = "" },
	{ S_FEED, T_ENDPOINT, TOED_K_FEED_VENDOR, 0, "vendor", FF(vendor), .def = "" },
	{ S_FEED, T_ENUM, TOED_K_FEED_PROTOCOL, 0, "protocol", FF(protocol), .names = e_proto, .def = "tcp" },
	{ S_FEED, T_ENUM, TOED_K_FEED_FRAMING, 0, "framing", FF(framing), .names = e_framing, .def = NULL },
	{ S_FEED, T_NAME, TOED_K_FEED_STREAM, 0, "stream", FF(stream), .def = NULL },
	{ S_FEED, T_UINT, TOED_K_FEED_PORT, 0, "port", FF(port), 0, TOED_MAX_PORTS - 1,
	  .above = "above 3 (the card has 4 ports, 0..3)", .def = "0" },
	{ S_FEED, T_NAME, TOED_K_FEED_GROUP, F_EMPTY, "group", FF(group), .def = NULL },
	{ S_FEED, T_NAME, TOED_K_FEED_SENDER_COMP_ID, F_EMPTY, "sender_comp_id", FF(sender_comp_id), .def = "" },
	{ S_FEED, T_NAME, TOED_K_FEED_TARGET_COMP_ID, F_EMPTY, "target_comp_id", FF(target_comp_id), .def = "" },
	{ S_FEED, T_UINT, TOED_K_FEED_HEARTBEAT_S, 0, "heartbeat_s", FF(heartbeat_s), 0, STEP_SESS_HB_MAX,
	  .above = "above 3600 (one hour)", .def = "30" },
	{ S_FEED, T_NAME, TOED_K_FEED_USERNAME, F_EMPTY, "username", FF(username), .def = "" },
	{ S_FEED, T_PATH_IN, TOED_K_FEED_PASSWORD_FILE, 0, "password_file", FF(password_file), .def = "" },
	{ S_FEED, T_BOOL, TOED_K_FEED_RESET_ON_LOGON, 0, "reset_on_logon", FF(reset_on_logon), .def = "no" },
	{ S_FEED, T_ENUM, TOED_K_FEED_OPEN, 0, "open", FF(open), .names = e_open, .def = "connect" },
	/* toed's own connection's limits, as [tcp]'s; not set (0, F_EMPTY: written as nothing): [tcp]'s,
	 * taken where they are used (toed_feed_mss), so a reload changing [tcp]'s says so once */
	{ S_FEED, T_UINT, TOED_K_FEED_MSS, F_EMPTY, "mss", FF(mss), MSS_MIN, MSS_MAX,
	  .below = "below 536 (the smallest MSS every IPv4 host must accept)",
	  .above = "above 1460 (the largest MSS of a 1500-byte MTU)", .def = NULL },
	{ S_FEED, T_UINT, TOED_K_FEED_WINDOW, F_POW2 | F_SUFFIX | F_EMPTY, "window", FF(window), MTOE_MIN_WINDOW,
	  MTOE_MAX_WINDOW, .below = "below 64 bytes", .above = "above 1M (1048576 bytes)", .def = NULL },

	{ S_TCP, T_UINT, TOED_K_TCP_MSS, 0, "mss", CF(tcp.mss), MSS_MIN, MSS_MAX,
	  .below = "below 536 (the smallest MSS every IPv4 host must accept)",
	  .above = "above 1460 (the largest MSS of a 1500-byte MTU)", .def = "1408" },
	{ S_TCP, T_UINT, TOED_K_TCP_CONNECTIONS, 0, "connections", CF(tcp.connections), 1, MTOE_MAX_CONNS,
	  .above = "above 256 (the size of the connection table)", .def = "64" },
	{ S_TCP, T_UINT, TOED_K_TCP_WINDOW, F_POW2 | F_SUFFIX, "window", CF(tcp.window), MTOE_MIN_WINDOW,
	  MTOE_MAX_WINDOW, .below = "below 64 bytes", .above = "above 1M (1048576 bytes)", .def = "32K" },
	{ S_TCP, T_UINT, TOED_K_TCP_GAP_TIMEOUT_MS, F_LIVE, "gap_timeout_ms", CF(tcp.gap_timeout_ms), 0, 60000,
	  .above = "above 60000 (one minute)", .def = "50" },
	{ S_TCP, T_UINT, TOED_K_TCP_IDLE_TIMEOUT_S, F_LIVE, "idle_timeout_s", CF(tcp.idle_timeout_s), 0, 86400,
	  .above = "above 86400 (one day)", .def = "300" },

	{ S_UDP, T_PORTLIST, TOED_K_UDP_PORTS, 0, "ports", CF(udp), .def = "" },

	{ S_FAST, T_PATH_IN, TOED_K_FAST_TEMPLATES, 0, "templates", CF(fast.templates), .def = TOED_DEF_TEMPLATES },
	{ S_FAST, T_ENUM, TOED_K_FAST_FRAMING, 0, "framing", CF(fast.framing), .names = e_framing, .def = "step" },
	{ S_FAST, T_BOOL, TOED_K_FAST_SEQUENCE_CHECK, 0, "sequence_check", CF(fast.sequence_check), .def = "no" },
	{ S_FAST, T_UINT, TOED_K_FAST_ARBITRATION_WAIT_US, 0, "arbitration_wait_us", CF(fast.arbitration_wait_us), 0,
	  1000000, .above = "above 1000000 (one second)", .def = "1000" },
	{ S_FAST, T_SEQFIELDS, TOED_K_FAST_SEQUENCE_FIELDS, 0, "sequence_fields", CF(fast.nseq_fields), .def = "sse" },
	{ S_FAST, T_ENUM, TOED_K_FAST_DECODER, F_LIVE, "decoder", CF(fast.decoder), .names = e_decoder, .def = "auto" },

	{ S_SHM, T_HUGEPAGES, TOED_K_SHM_HUGEPAGES, 0, "hugepages", CF(shm.hugepages), 0, 65536,
	  .above = "above 65536 (128 GB of 2 MB pages)", .def = "auto" },
	{ S_SHM, T_UINT, TOED_K_SHM_RING_SIZE, F_POW2 | F_SUFFIX, "ring_size", CF(shm.ring_size), TOE_SHM_MIN_CAPACITY,
	  TOE_SHM_MAX_CAPACITY, .below = "below 64 records", .above = "above 1M records (1048576)", .def = "8192" },
	{ S_SHM, T_UINT, TOED_K_SHM_MAX_CLIENTS, 0, "max_clients", CF(shm.max_clients), 1, 4096, .def = "256" },
	{ S_SHM, T_UINT, TOED_K_SHM_MAX_CLIENTS_PER_UID, 0, "max_clients_per_uid", CF(shm.max_clients_per_uid), 0, 4096,
	  .def = "128" },
	{ S_SHM, T_UINT, TOED_K_SHM_HANDSHAKE_TIMEOUT_MS, 0, "handshake_timeout_ms", CF(shm.handshake_timeout_ms), 100,
	  60000, .below = "below 100 ms (a busy client could not make it)", .above = "above 60000 (one minute)",
	  .def = "2000" },
	{ S_SHM, T_UINT, TOED_K_SHM_RING_MEMORY_MB, 0, "ring_memory_mb", CF(shm.ring_memory_mb), 1, 1048576,
	  .above = "above 1048576 (1 TiB)", .def = "1024" },
	{ S_SHM, T_UINT, TOED_K_SHM_RING_MEMORY_PER_UID_MB, 0, "ring_memory_per_uid_mb", CF(shm.ring_memory_per_uid_mb), 0,
	  1048576, .above = "above 1048576 (1 TiB)", .def = "256" },
	{ S_SHM, T_SOCKPATH, TOED_K_SHM_SOCKET, 0, "socket", CF(shm.socket), .def = TOE_CTL_DEFAULT_PATH },
	{ S_SHM, T_GROUP, TOED_K_SHM_SOCKET_GROUP, 0, "socket_group", CF(shm.socket_group), .def = "" },
	{ S_SHM, T_MODE, TOED_K_SHM_SOCKET_MODE, 0, "socket_mode", CF(shm.socket_mode), .def = "0660" },

	{ S_DATAPLANE, T_CPU, TOED_K_DATAPLANE_CPU, F_LIVE, "cpu", CF(dataplane.cpu), 0, 1023, .def = "none" },
	{ S_DATAPLANE, T_UINT, TOED_K_DATAPLANE_PRIORITY, F_LIVE, "priority", CF(dataplane.priority), 0, 99,
	  .above = "above 99 (the highest SCHED_FIFO priority)", .def = "0" },
	{ S_DATAPLANE, T_BOOL, TOED_K_DATAPLANE_BUSY_POLL, F_LIVE, "busy_poll", CF(dataplane.busy_poll), .def = "no" },
	{ S_DATAPLANE, T_BOOL, TOED_K_DATAPLANE_TRACE, F_LIVE, "trace", CF(dataplane.trace), .def = "no" },

	{ S_LOG, T_ENUM, TOED_K_LOG_LEVEL, F_LIVE, "level", CF(log.level), .names = e_level, .def = "info" },
	{ S_LOG, T_ENUM, TOED_K_LOG_TARGET, F_LIVE, "target", CF(log.target), .names = e_target, .def = "journal" },

	{ S_RECORD, T_PATH_OUT, TOED_K_RECORD_PCAP, F_LIVE, "pcap", CF(record.pcap), .def = "" },
	{ S_RECORD, T_PATH_OUT, TOED_K_RECORD_TICKS, F_LIVE, "ticks", CF(record.ticks), .def = "" },
};

_Static_assert(sizeof conf_keys / sizeof conf_keys[0] == TOED_K_COUNT, "one conf_keys[] entry per enum toed_key");

const struct key *conf_key_find(int sec, const char *name)
{
	for (size_t i = 0; i < CONF_NKEYS; i++)
		if (conf_keys[i].sec == sec && strcmp(conf_keys[i].name, name) == 0)
			return &conf_keys[i];
	return NULL;
}

void *conf_sec_base(struct toed_config *c, int sec, int inst)
{
	if (sec == S_PORT)
		return &c->port[inst];
	if (sec == S_FEED)
		return &c->feed[inst];
	return c;
}

const void *conf_sec_cbase(const struct toed_config *c, int sec, int inst)
{
	return conf_sec_base((struct toed_config *)c, sec, inst);
}

const char *conf_enum_name(const struct ename *e, uint32_t v)
{
	for (; e->name; e++)
		if (e->val == v)
			return e->name;
	return "?";
}

/* ---- defaults ---------------------------------------------------------------------------- */

void conf_apply_defaults(struct toed_config *c, int sec, int inst)
{
	char why[256];
	void *base = conf_sec_base(c, sec, inst);
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		if (conf_keys[i].sec != sec || !conf_keys[i].def)
			continue;
		if (conf_parse_value(NULL, &conf_keys[i], c, base, conf_keys[i].def, why, sizeof why) < 0)
			abort(); /* a default that does not parse: a bug in conf_keys[] */
	}
}

void toed_config_default(struct toed_config *c)
{
	memset(c, 0, sizeof *c);
	for (int s = S_DEVICE; s < S_COUNT; s++)
		if (s != S_PORT && s != S_FEED)
			conf_apply_defaults(c, s, 0);
	/* what a file without [port] sections means */
	conf_apply_defaults(c, S_PORT, 0);
	c->port[0].enabled = 1;
	c->port[0].implicit = 1;
}

/* ---- names ------------------------------------------------------------------------------- */

int toed_key_is_live(enum toed_key key)
{
	return (unsigned)key < TOED_K_COUNT && (conf_keys[key].flags & F_LIVE) != 0;
}

const char *toed_key_name(enum toed_key key)
{
	return (unsigned)key < TOED_K_COUNT ? conf_keys[key].name : NULL;
}

const char *toed_key_section(enum toed_key key)
{
	return (unsigned)key < TOED_K_COUNT ? conf_sec_name[conf_keys[key].sec] : NULL;
}

const char *toed_backend_name(uint32_t v)
{
	return conf_enum_name(e_backend, v);
}

const char *toed_source_type_name(uint32_t v)
{
	return conf_enum_name(e_srctype, v);
}

const char *toed_role_name(uint32_t v)
{
	return conf_enum_name(e_role, v);
}

const char *toed_log_level_name(uint32_t v)
{
	return conf_enum_name(e_level, v);
}
