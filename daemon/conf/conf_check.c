/* conf_check.c - the rules between keys of toed.conf, the template compilation, per-key warnings.
 *
 * Runs once the whole file is read (conf_read.c), on the values the types parsed: a rule is
 * checked only when the keys it reads parsed (kok), so one bad value gives one message, and
 * each message names the key's line and value as written, or the section's line and the value
 * in force when the key was not set.
 */
#include "conf/conf_impl.h"
#include "step/step_sess.h"
#include "seq/seq_track.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "fast/host/fast_compile.h"
#include "toe/gtoe.h" /* GTOE_MIN_BUF: the smallest window toed's own connections advertise */
#include "toe/shm.h"
#include "toe/tick.h"

void conf_key_warnings(struct ctx *x, const struct key *k, const void *base)
{
	if (k->id != TOED_K_TCP_MSS && k->id != TOED_K_FEED_MSS && k->id != TOED_K_SHM_SOCKET_MODE)
		return;
	uint32_t u = *(const uint32_t *)((const char *)base + k->off);
	if ((k->id == TOED_K_TCP_MSS || k->id == TOED_K_FEED_MSS) && u % 64)
		conf_cur_warn(x, "not a multiple of 64 (receive buffers are 64-byte aligned; 1408 is the largest "
			    "multiple of 64 up to 1460)");
	if (k->id == TOED_K_SHM_SOCKET_MODE && (u & 0002))
		conf_cur_warn(x, "world-writable: any local user can connect and subscribe");
}

static unsigned kline(struct ctx *x, int sec, int inst, int id)
{
	return x->line[conf_row(sec, inst)][id];
}

/* A key's value is usable: set without error, or not set (default). */
static int kok(struct ctx *x, int sec, int inst, int id)
{
	return !x->bad[conf_row(sec, inst)][id];
}

static void sec_label(struct ctx *x, int sec, int inst, char *buf, size_t len)
{
	if (sec == S_PORT && inst == 0 && (x->port_plain[0] || !x->port_line[0]))
		snprintf(buf, len, "port");
	else if (sec == S_PORT)
		snprintf(buf, len, "port.%d", inst);
	else if (sec == S_FEED)
		snprintf(buf, len, "feed.%s", x->c->feed[inst].name);
	else
		snprintf(buf, len, "%s", conf_sec_name[sec]);
}

static unsigned sec_line_of(struct ctx *x, int sec, int inst)
{
	if (sec == S_PORT)
		return x->port_line[inst];
	if (sec == S_FEED)
		return x->feed_line[inst];
	return x->sec_line[sec];
}

/* Message about key id of a section instance: on the key's line with its value as
 * written, else on `fallback` (or the section's line) with the value in force. */
__attribute__((format(printf, 7, 8))) static void key_msg(struct ctx *x, int level, int sec, int inst, int id,
							    unsigned fallback, const char *fmt, ...)
{
	char why[TOED_DIAG_LEN / 2], label[TOED_NAME_MAX + 8], val[TOED_PATH_MAX + 16];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	sec_label(x, sec, inst, label, sizeof label);
	int r = conf_row(sec, inst);
	unsigned line = x->line[r][id];
	if (line) {
		snprintf(val, sizeof val, "%s", x->raw[r][id] ? x->raw[r][id] : "");
	} else {
		conf_fmt_value(&conf_keys[id], x->c, conf_sec_base(x->c, sec, inst), val, sizeof val - 12);
		if (*val)
			strcat(val, " (default)");
		line = fallback ? fallback : sec_line_of(x, sec, inst);
	}
	conf_kv_msg(x, level, line, label, conf_keys[id].name, val, "%s", why);
}

/* Paths with a relative default are resolved once the file's directory is known. */
static void resolve_defaults(struct ctx *x)
{
	char why[128];
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct key *k = &conf_keys[i];
		if ((k->kind != T_PATH_IN && k->kind != T_PATH_OUT) || k->sec == S_PORT || k->sec == S_FEED)
			continue;
		if (x->line[0][k->id] || !k->def || !*k->def || k->def[0] == '/')
			continue;
		if (conf_resolve_path(x, k->def, k->kind == T_PATH_IN, FIELD(x->c, k), k->size, why, sizeof why) < 0)
			key_msg(x, TOED_DIAG_ERROR, k->sec, 0, k->id, 0, "%s", why);
	}
}

static int is_pcap_magic(const uint8_t m[4])
{
	static const uint8_t magics[][4] = {
		{ 0xd4, 0xc3, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0xc3, 0xd4 }, /* microseconds */
		{ 0x4d, 0x3c, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0x3c, 0x4d }, /* nanoseconds */
		{ 0x0a, 0x0d, 0x0d, 0x0a },                             /* pcapng section header */
	};
	for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
		if (memcmp(m, magics[i], 4) == 0)
			return 1;
	return 0;
}

/* A file toed reads must be a regular one: opening a FIFO blocks, a device never ends. Why
 * not, or NULL (also when it does not exist: opening it says so). */
static const char *not_regular(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return NULL;
	if (S_ISDIR(st.st_mode))
		return "a directory";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISCHR(st.st_mode))
		return "a character device";
	if (S_ISBLK(st.st_mode))
		return "a block device";
	return "not a regular file";
}

static void check_device_source(struct ctx *x)
{
	struct toed_config *c = x->c;
	unsigned lb = kline(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND);
	if (!kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND))
		return;
	if (c->device.backend == TOED_BACKEND_XRT) {
		const char *nr = x->offline ? NULL : not_regular(c->device.xclbin);
		if (!kok(x, S_DEVICE, 0, TOED_K_DEVICE_XCLBIN) || x->offline)
			;
		else if (nr)
			key_msg(x, TOED_DIAG_ERROR, S_DEVICE, 0, TOED_K_DEVICE_XCLBIN, lb,
				"%s is %s, not a regular file (backend = xrt loads it)", c->device.xclbin, nr);
		else if (access(c->device.xclbin, R_OK) < 0)
			key_msg(x, TOED_DIAG_ERROR, S_DEVICE, 0, TOED_K_DEVICE_XCLBIN, lb,
				"cannot read %s: %s (backend = xrt loads it)", c->device.xclbin, strerror(errno));
		if (x->sec_line[S_SOURCE])
			conf_msg(x, TOED_DIAG_WARNING, x->sec_line[S_SOURCE],
			    "[source]: ignored with backend = xrt (the card's ports receive)");
		return;
	}
	if (kline(x, S_DEVICE, 0, TOED_K_DEVICE_PCI) && c->device.pci[0])
		key_msg(x, TOED_DIAG_WARNING, S_DEVICE, 0, TOED_K_DEVICE_PCI, 0, "ignored with backend = sw");

	if (!kok(x, S_SOURCE, 0, TOED_K_SOURCE_TYPE))
		return;
	unsigned lt = kline(x, S_SOURCE, 0, TOED_K_SOURCE_TYPE);
	uint32_t t = c->source.type;
	const char *tn = toed_source_type_name(t);
	if (t == TOED_SRC_PCAP) {
		if (!c->source.pcap_file[0]) {
			if (kok(x, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE))
				key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE, lt,
					"not set (type = pcap replays a capture file)");
		} else if (x->offline) {
			/* not opened */
		} else if (not_regular(c->source.pcap_file)) {
			key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE, lt, "%s is %s, not a capture file",
				c->source.pcap_file, not_regular(c->source.pcap_file));
		} else {
			FILE *f = fopen(c->source.pcap_file, "rb");
			uint8_t m[4];
			if (!f)
				key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE, lt, "cannot open %s: %s",
					c->source.pcap_file, strerror(errno));
			else if (fread(m, 1, 4, f) != 4 || !is_pcap_magic(m))
				key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_PCAP_FILE, lt,
					"%s is not a pcap or pcapng file", c->source.pcap_file);
			if (f)
				fclose(f);
		}
		if (kline(x, S_SOURCE, 0, TOED_K_SOURCE_INTERFACE))
			key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, TOED_K_SOURCE_INTERFACE, 0, "ignored with type = pcap");
	} else {
		if (!toed_port_interface(c, 0)[0] && kok(x, S_SOURCE, 0, TOED_K_SOURCE_INTERFACE) &&
		    kok(x, S_PORT, 0, TOED_K_PORT_INTERFACE))
			key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_INTERFACE, lt,
				"not set (type = %s captures from a network interface)", tn);
		static const int pcap_keys[] = { TOED_K_SOURCE_PCAP_FILE, TOED_K_SOURCE_PCAP_PACE,
						 TOED_K_SOURCE_PCAP_LOOP };
		for (size_t i = 0; i < 3; i++)
			if (kline(x, S_SOURCE, 0, pcap_keys[i]))
				key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, pcap_keys[i], 0, "ignored with type = %s", tn);
	}
	if (t != TOED_SRC_AF_XDP) {
		static const int xdp_keys[] = { TOED_K_SOURCE_QUEUE, TOED_K_SOURCE_XDP_MODE, TOED_K_SOURCE_XSK_RX_RING,
						TOED_K_SOURCE_XSK_FILL_RING, TOED_K_SOURCE_XSK_FRAMES,
						TOED_K_SOURCE_XSK_BUSY_POLL };
		for (size_t i = 0; i < sizeof xdp_keys / sizeof xdp_keys[0]; i++)
			if (kline(x, S_SOURCE, 0, xdp_keys[i]))
				key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, xdp_keys[i], 0, "ignored with type = %s", tn);
		return;
	}
	if (c->source.xdp_mode == TOED_XDP_SKB)
		key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, TOED_K_SOURCE_XDP_MODE, 0,
			"generic (SKB) mode is slower and can silently lose large frames; prefer native");
	/* the UMEM frames: one for every fill ring entry at least, and a full rx ring besides to keep
	 * the fill ring full in a burst */
	if (kok(x, S_SOURCE, 0, TOED_K_SOURCE_XSK_FRAMES) && kok(x, S_SOURCE, 0, TOED_K_SOURCE_XSK_FILL_RING) &&
	    kok(x, S_SOURCE, 0, TOED_K_SOURCE_XSK_RX_RING)) {
		uint32_t fr = c->source.xsk_frames, fill = c->source.xsk_fill_ring, rx = c->source.xsk_rx_ring;
		if (fr < fill)
			key_msg(x, TOED_DIAG_ERROR, S_SOURCE, 0, TOED_K_SOURCE_XSK_FRAMES, 0,
				"fewer UMEM frames than xsk_fill_ring entries (%u): the fill ring could never be full",
				fill);
		else if ((uint64_t)fr < (uint64_t)fill + rx)
			key_msg(x, TOED_DIAG_WARNING, S_SOURCE, 0, TOED_K_SOURCE_XSK_FRAMES, 0,
				"fewer than xsk_rx_ring + xsk_fill_ring (%llu): in a burst that fills the rx ring the "
				"fill ring runs dry and the kernel drops frames (xsk_fill_ring_empty)",
				(unsigned long long)fill + rx);
	}
}

/* Where a port's frames come from (software backend): [port.N] interface and queue, port 0 falling
 * back to [source]; one interface feeds one port (each source attaches its own XDP program or
 * AF_PACKET socket to the whole interface); a pcap replay is port 0 alone. */
static void check_port_source(struct ctx *x, int i)
{
	struct toed_config *c = x->c;
	struct toed_port *p = &c->port[i];
	char label[16];
	sec_label(x, S_PORT, i, label, sizeof label);
	p->queue_set = kline(x, S_PORT, i, TOED_K_PORT_QUEUE) != 0;
	if (c->device.backend != TOED_BACKEND_SW) {
		static const char why[] = "the card receives on its own network ports (backend = xrt): only the "
					  "software backend captures from an interface";
		/* "interface =" with no name is the default (none), as the configuration written back
		 * says it; only a name is refused */
		if (kline(x, S_PORT, i, TOED_K_PORT_INTERFACE) && p->interface[0])
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_INTERFACE, 0, "%s", why);
		if (kline(x, S_PORT, i, TOED_K_PORT_QUEUE))
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_QUEUE, 0, "%s", why);
		return;
	}
	if (!kok(x, S_SOURCE, 0, TOED_K_SOURCE_TYPE) || !kok(x, S_PORT, i, TOED_K_PORT_INTERFACE))
		return;
	uint32_t t = c->source.type;
	const char *tn = toed_source_type_name(t);
	if (t == TOED_SRC_PCAP) {
		if (i > 0)
			conf_msg(x, TOED_DIAG_ERROR, x->port_line[i],
			    "[%s]: type = pcap replays one capture as port 0; more ports need live capture "
			    "([source] type = af_xdp or af_packet, an interface per port)", label);
		else
			for (int k = TOED_K_PORT_INTERFACE; k <= TOED_K_PORT_QUEUE; k++)
				if (kline(x, S_PORT, i, k))
					key_msg(x, TOED_DIAG_WARNING, S_PORT, i, k, 0, "ignored with type = pcap");
		return;
	}
	if (i == 0) {
		static const int pk[] = { TOED_K_PORT_INTERFACE, TOED_K_PORT_QUEUE };
		static const int sk[] = { TOED_K_SOURCE_INTERFACE, TOED_K_SOURCE_QUEUE };
		/* the same value in both places (a file written back spells out every key) is no conflict */
		int differs[2] = { p->interface[0] && strcmp(p->interface, c->source.interface) != 0,
				   p->queue_set && p->queue != c->source.queue };
		for (size_t k = 0; k < 2; k++)
			if (differs[k] && kline(x, S_PORT, 0, pk[k]) && kline(x, S_SOURCE, 0, sk[k]))
				key_msg(x, TOED_DIAG_ERROR, S_PORT, 0, pk[k], 0,
					"[source] %s is set too (line %u): port 0's %s is given in one place",
					conf_keys[sk[k]].name, kline(x, S_SOURCE, 0, sk[k]), conf_keys[pk[k]].name);
	} else if (!p->interface[0]) {
		key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_INTERFACE, 0,
			"not set (the software backend receives port %d from an interface of its own, type = %s)", i,
			tn);
	}
	if (t != TOED_SRC_AF_XDP && p->queue_set)
		key_msg(x, TOED_DIAG_WARNING, S_PORT, i, TOED_K_PORT_QUEUE, 0, "ignored with type = %s", tn);
	const char *ifn = toed_port_interface(c, (uint32_t)i);
	for (int j = 0; j < i && *ifn; j++) {
		char lj[16];
		if (!c->port[j].enabled || strcmp(toed_port_interface(c, (uint32_t)j), ifn) != 0)
			continue;
		sec_label(x, S_PORT, j, lj, sizeof lj);
		key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_INTERFACE, 0,
			"already the interface of [%s]: one interface feeds one port (each port's %s source takes "
			"the whole interface)", lj, tn);
	}
}

static void check_ports(struct ctx *x)
{
	struct toed_config *c = x->c;
	int sw = c->device.backend == TOED_BACKEND_SW;
	for (int i = 0; i < TOED_MAX_PORTS; i++) {
		struct toed_port *p = &c->port[i];
		if (!p->enabled)
			continue;
		char label[16];
		sec_label(x, S_PORT, i, label, sizeof label);
		int ip_ok = kok(x, S_PORT, i, TOED_K_PORT_IP), nm_ok = kok(x, S_PORT, i, TOED_K_PORT_NETMASK);
		int role_ok = kok(x, S_PORT, i, TOED_K_PORT_ROLE);
		if (kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND))
			check_port_source(x, i);
		if (role_ok && sw && i > 0 && p->role == TOED_ROLE_TCP && kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND))
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_ROLE, 0,
				"the software backend holds its own connections on port 0 only (ports 1..3 receive: "
				"mirror or udp)");
		if (role_ok && !sw && i > 0 && p->role == TOED_ROLE_TCP && kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND))
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_ROLE, 0,
				"the card's general TOE (gtoe_top) serves port 0 only (ports 1..3 of the 4 x 10G "
				"card receive: mirror, main or udp)");
		if (role_ok && sw && p->role == TOED_ROLE_TCP && c->source.type == TOED_SRC_PCAP &&
		    kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND) && kok(x, S_SOURCE, 0, TOED_K_SOURCE_TYPE))
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_ROLE, 0,
				"a pcap replay cannot send: connections need [source] type = af_xdp or af_packet");
		if (role_ok && p->role != TOED_ROLE_MIRROR && ip_ok && !p->ip)
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_ROLE, 0, "needs an ip");
		if (role_ok && p->role != TOED_ROLE_MIRROR && !sw && !p->has_mac && kok(x, S_PORT, i, TOED_K_PORT_MAC))
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_ROLE, 0, "needs a mac (backend = xrt)");
		if (p->ip && nm_ok && !p->netmask && ip_ok)
			key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_IP, 0, "needs a netmask");
		if (!p->ip && ip_ok) {
			if (p->netmask)
				key_msg(x, TOED_DIAG_WARNING, S_PORT, i, TOED_K_PORT_NETMASK, 0, "ignored without an ip");
			if (p->gateway)
				key_msg(x, TOED_DIAG_WARNING, S_PORT, i, TOED_K_PORT_GATEWAY, 0, "ignored without an ip");
		}
		if (p->ip && p->netmask) {
			uint32_t m = p->netmask, net = p->ip & m;
			char sn[20];
			conf_fmt_ipv4(net, sn, sizeof sn);
			if (conf_mask_len(m) <= 30 && p->ip == net)
				key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_IP, 0, "the network address of %s/%d",
					sn, conf_mask_len(m));
			else if (conf_mask_len(m) <= 30 && p->ip == (net | ~m))
				key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_IP, 0,
					"the broadcast address of %s/%d", sn, conf_mask_len(m));
			if (p->gateway && kok(x, S_PORT, i, TOED_K_PORT_GATEWAY)) {
				if ((p->gateway & m) != net)
					key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_GATEWAY, 0,
						"not in the port's subnet %s/%d", sn, conf_mask_len(m));
				else if (p->gateway == p->ip)
					key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_GATEWAY, 0,
						"the port's own address");
			}
		}
		for (int j = 0; j < i; j++) {
			struct toed_port *q = &c->port[j];
			char lj[16];
			if (!q->enabled)
				continue;
			sec_label(x, S_PORT, j, lj, sizeof lj);
			if (p->ip && p->ip == q->ip)
				key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_IP, 0, "already used by [%s]", lj);
			if (p->has_mac && q->has_mac && memcmp(p->mac, q->mac, 6) == 0)
				key_msg(x, TOED_DIAG_ERROR, S_PORT, i, TOED_K_PORT_MAC, 0, "already used by [%s]", lj);
		}
	}
}

/* Arbitration groups: feeds naming the same group are its lines, in file order. */
static void check_groups(struct ctx *x)
{
	struct toed_config *c = x->c;
	uint32_t ngroups = 0;
	for (uint32_t i = 0; i < c->nfeeds; i++) {
		struct toed_feed *f = &c->feed[i];
		int fi = (int)i, first = 1;
		uint32_t line = 0;
		if (!f->group[0] || !kok(x, S_FEED, fi, TOED_K_FEED_GROUP))
			continue;
		if (c->device.backend == TOED_BACKEND_XRT && kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND)) {
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_GROUP, 0,
				"backend = xrt: A/B arbitration runs in the software backend only (the card's records "
				"do not name their feed yet)");
			continue;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (strcmp(c->feed[j].group, f->group) != 0)
				continue;
			first = 0;
			line++;
		}
		if (first && ++ngroups > TOED_MAX_GROUPS)
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_GROUP, 0,
				"more than %d arbitration groups (the pipeline tracks %d besides the default one)",
				TOED_MAX_GROUPS, TOED_MAX_GROUPS);
		if (line >= TOED_MAX_LINES)
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_GROUP, 0,
				"group %s already has %d lines (the most a group can arbitrate)", f->group,
				TOED_MAX_LINES);
		/* clients subscribe by group and stream names alike: one name, one set of feeds */
		for (uint32_t j = 0; first && j < c->nfeeds; j++) {
			uint32_t members = 0;
			for (uint32_t k = 0; k < c->nfeeds; k++)
				members += strcmp(c->feed[k].group, f->group) == 0;
			if (strcmp(c->feed[j].stream, f->group) == 0 &&
			    !(members == 1 && strcmp(c->feed[j].group, f->group) == 0))
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_GROUP, 0,
					"group %s has the stream name of [feed.%s]: clients subscribe by both", f->group,
					c->feed[j].name);
		}
		if (!c->fast.sequence_check && kok(x, S_FAST, 0, TOED_K_FAST_SEQUENCE_CHECK))
			key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, TOED_K_FEED_GROUP, 0,
				"has no effect: [fast] sequence_check = no (arbitration needs sequence tracking)");
	}
}

/* The STEP session keys: a session needs toed's own connection (a tcp feed on a role = tcp
 * port) and both CompIDs; on a mirror port toed only watches the vendor's own session. A
 * session is asked for by a key with a value (a CompID, a username, a password file,
 * reset_on_logon = yes); heartbeat_s alone asks for nothing, so a file that spells out every
 * default (as written back by a tool) means what it meant. */
static void check_session(struct ctx *x, int fi)
{
	struct toed_config *c = x->c;
	struct toed_feed *f = &c->feed[fi];
	const int asked[] = {
		[TOED_K_FEED_SENDER_COMP_ID - TOED_K_FEED_SENDER_COMP_ID] = f->sender_comp_id[0] != 0,
		[TOED_K_FEED_TARGET_COMP_ID - TOED_K_FEED_SENDER_COMP_ID] = f->target_comp_id[0] != 0,
		[TOED_K_FEED_HEARTBEAT_S - TOED_K_FEED_SENDER_COMP_ID] = 0,
		[TOED_K_FEED_USERNAME - TOED_K_FEED_SENDER_COMP_ID] = f->username[0] != 0,
		[TOED_K_FEED_PASSWORD_FILE - TOED_K_FEED_SENDER_COMP_ID] = f->password_file[0] != 0,
		[TOED_K_FEED_RESET_ON_LOGON - TOED_K_FEED_SENDER_COMP_ID] = f->reset_on_logon != 0,
	};
	int first = -1; /* the key asking for a session on the earliest line */
	for (int i = 0; i < (int)(sizeof asked / sizeof asked[0]); i++) {
		int k = TOED_K_FEED_SENDER_COMP_ID + i;
		if (asked[i] && (first < 0 || kline(x, S_FEED, fi, k) < kline(x, S_FEED, fi, first)))
			first = k;
	}
	if (first < 0)
		return;
	if (!kok(x, S_FEED, fi, TOED_K_FEED_PROTOCOL) || !kok(x, S_FEED, fi, TOED_K_FEED_PORT))
		return;
	const struct toed_port *p = &c->port[f->port];
	if (f->protocol != TOED_PROTO_TCP) {
		key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, first, 0, "has no effect: a udp feed has no STEP session");
		return;
	}
	if (!p->enabled || !kok(x, S_PORT, (int)f->port, TOED_K_PORT_ROLE))
		return;
	if (p->role != TOED_ROLE_TCP) {
		key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, first, 0,
			"has no effect: port %u has role = %s (toed only watches this connection; the session is the "
			"vendor's own)", f->port, p->role == TOED_ROLE_MIRROR ? "mirror" : "udp");
		return;
	}
	/* backend = xrt: the session runs on the host as with the software backend; fast_top hands it
	 * the exchange's session messages through the ring (dp/dp_card_sess.h) */
	if (kok(x, S_FEED, fi, TOED_K_FEED_SENDER_COMP_ID) && !f->sender_comp_id[0])
		key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_SENDER_COMP_ID, kline(x, S_FEED, fi, first),
			"not set (a STEP session logs on as sender_comp_id; the other session keys are set)");
	if (kok(x, S_FEED, fi, TOED_K_FEED_TARGET_COMP_ID) && !f->target_comp_id[0])
		key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_TARGET_COMP_ID, kline(x, S_FEED, fi, first),
			"not set (a STEP session names the exchange's CompID)");
	if (f->password_file[0] && kok(x, S_FEED, fi, TOED_K_FEED_PASSWORD_FILE) && !x->offline) {
		char why[160], pw[STEP_PW_MAX];
		struct stat st;
		if (toed_read_password(f->password_file, pw, sizeof pw, why, sizeof why) < 0)
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PASSWORD_FILE, 0, "%s", why);
		else if (stat(f->password_file, &st) == 0 && (st.st_mode & 077))
			key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, TOED_K_FEED_PASSWORD_FILE, 0,
				"readable by other users (mode %04o): chmod 600", (unsigned)(st.st_mode & 07777));
		memset(pw, 0, sizeof pw);
	}
}

/* [feed.NAME] mss and window: toed's own connection's (a tcp feed on a role = tcp port), each
 * taking [tcp]'s when not set. Elsewhere they do nothing, and say so as the session keys do; a
 * value equal to [tcp]'s (a file written back spells out every key) changes nothing and is not
 * warned about. Where they count, the feed's window must hold one of its segments, as [tcp]'s
 * (check_misc). The memory they take is the general TOE's: a slot per [tcp] connections, each
 * of the largest window of the port's feeds (dp_setup_gtoe; the card's bound is checked against
 * its buffers with the xclbin, dp_thread's card_check). */
static void check_feed_limits(struct ctx *x, int fi)
{
	struct toed_config *c = x->c;
	struct toed_feed *f = &c->feed[fi];
	static const int ids[2] = { TOED_K_FEED_MSS, TOED_K_FEED_WINDOW };
	static const int tcp_ids[2] = { TOED_K_TCP_MSS, TOED_K_TCP_WINDOW };
	const uint32_t val[2] = { f->mss, f->window }, tcpv[2] = { c->tcp.mss, c->tcp.window };
	const uint32_t mss = toed_feed_mss(c, f), win = toed_feed_window(c, f);
	int set = 0;
	for (int i = 0; i < 2; i++)
		set |= (kline(x, S_FEED, fi, ids[i]) && kok(x, S_FEED, fi, ids[i]) && val[i]) << i; /* empty: not set */
	if (!set || !kok(x, S_FEED, fi, TOED_K_FEED_PROTOCOL) || !kok(x, S_FEED, fi, TOED_K_FEED_PORT))
		return;
	const struct toed_port *p = &c->port[f->port];
	const char *why = NULL;
	char buf[160];
	if (f->protocol != TOED_PROTO_TCP) {
		why = "has no effect: a udp feed has no TCP connection";
	} else if (!p->enabled || !kok(x, S_PORT, (int)f->port, TOED_K_PORT_ROLE)) {
		return;
	} else if (p->role != TOED_ROLE_TCP) {
		snprintf(buf, sizeof buf,
			 "has no effect: port %u has role = %s (only toed's own connections, role = tcp, offer an MSS "
			 "and a window; the mirror TOE follows with [tcp] window)",
			 f->port, toed_role_name(p->role));
		why = buf;
	}
	if (why) {
		for (int i = 0; i < 2; i++)
			if ((set >> i & 1) && (!kok(x, S_TCP, 0, tcp_ids[i]) || val[i] != tcpv[i]))
				key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, ids[i], 0, "%s", why);
		return;
	}
	if (!kok(x, S_FEED, fi, TOED_K_FEED_MSS) || !kok(x, S_FEED, fi, TOED_K_FEED_WINDOW) ||
	    !kok(x, S_TCP, 0, TOED_K_TCP_MSS) || !kok(x, S_TCP, 0, TOED_K_TCP_WINDOW))
		return;
	if ((set & 2) && f->window < GTOE_MIN_BUF && win >= mss)
		key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, TOED_K_FEED_WINDOW, 0,
			"below %u: the connection advertises %u (the general TOE's smallest buffer)", GTOE_MIN_BUF,
			GTOE_MIN_BUF);
	if (win >= mss)
		return;
	if (set & 2)
		key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_WINDOW, 0, "smaller than one segment (mss = %u%s)", mss,
			set & 1 ? "" : ", [tcp] mss");
	else
		key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_MSS, 0,
			"larger than the window (window = %u, [tcp] window): a window holds one segment at least", win);
}

static void check_feeds(struct ctx *x)
{
	struct toed_config *c = x->c;
	for (uint32_t i = 0; i < c->nfeeds; i++) {
		struct toed_feed *f = &c->feed[i];
		int fi = (int)i;
		int proto_ok = kok(x, S_FEED, fi, TOED_K_FEED_PROTOCOL);
		int tcp = f->protocol == TOED_PROTO_TCP;
		/* defaults that depend on other keys */
		if (!kline(x, S_FEED, fi, TOED_K_FEED_STREAM))
			memcpy(f->stream, f->name, sizeof f->stream);
		if (!kline(x, S_FEED, fi, TOED_K_FEED_FRAMING))
			f->framing = tcp ? TOED_FRAMING_STEP : c->fast.framing;
		else if (tcp && proto_ok && f->framing == TOED_FRAMING_RAW && kok(x, S_FEED, fi, TOED_K_FEED_FRAMING))
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_FRAMING, 0,
				"a tcp feed is a byte stream: only step framing can find its messages");
		if (kok(x, S_FEED, fi, TOED_K_FEED_PORT)) {
			struct toed_port *p = &c->port[f->port];
			if (!p->enabled) {
				if (f->port)
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PORT, 0,
						"no [port.%u] section", f->port);
				else
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PORT, 0,
						"no [port] or [port.0] section");
			} else if (proto_ok && kok(x, S_PORT, (int)f->port, TOED_K_PORT_ROLE)) {
				if (tcp && p->role == TOED_ROLE_UDP)
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PROTOCOL, 0,
						"port %u has role = udp (tcp feeds need a mirror or tcp port)", f->port);
				if (!tcp && p->role == TOED_ROLE_TCP)
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_PROTOCOL, 0,
						"port %u has role = tcp (udp feeds need a mirror or udp port)", f->port);
			}
			int acc = f->open == TOED_OPEN_ACCEPT && kok(x, S_FEED, fi, TOED_K_FEED_OPEN);
			if (acc && tcp && proto_ok && p->enabled && kok(x, S_PORT, (int)f->port, TOED_K_PORT_ROLE) &&
			    p->role != TOED_ROLE_TCP)
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_OPEN, 0,
					"port %u has role = %s: only a role = tcp port holds connections it can accept",
					f->port, toed_role_name(p->role));
			if (acc && tcp && proto_ok && p->enabled && p->role == TOED_ROLE_TCP) {
				if (kok(x, S_FEED, fi, TOED_K_FEED_VENDOR) && !f->vendor.port)
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_VENDOR, 0,
						"open = accept listens on this port: give it (address:port or *:port)");
				if (kok(x, S_FEED, fi, TOED_K_FEED_EXCHANGE) && !f->exchange.ip)
					key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_EXCHANGE, 0,
						"open = accept takes a connection from this address only: give it "
						"(address, or address:port)");
			}
			if (tcp && proto_ok && p->enabled && p->role == TOED_ROLE_TCP && !acc &&
			    kok(x, S_FEED, fi, TOED_K_FEED_EXCHANGE) && (f->exchange.ip == 0 || f->exchange.port == 0) &&
			    (f->exchange.ip || f->exchange.port))
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_EXCHANGE, 0,
					"a connection from a tcp port needs both the address and the port");
		}
		if (!proto_ok)
			continue;
		if (tcp && kok(x, S_FEED, fi, TOED_K_FEED_EXCHANGE) && !f->exchange.ip && !f->exchange.port)
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_EXCHANGE, 0,
				kline(x, S_FEED, fi, TOED_K_FEED_EXCHANGE)
					? "matches every connection: give the address, the port or both"
					: "not set (a tcp feed names the exchange's server, address:port)");
		if (!tcp && kok(x, S_FEED, fi, TOED_K_FEED_VENDOR) && !f->vendor.port)
			key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_VENDOR, 0,
				kline(x, S_FEED, fi, TOED_K_FEED_VENDOR)
					? "needs a port (a udp feed is the datagrams sent to this port)"
					: "not set (a udp feed names where the datagrams go: address:port or *:port)");
		/* 232/8 is source-specific multicast (RFC 4607): the network forwards it only to a
		 * join that names the sender, which toed takes from exchange (dp/dp_mcast.c) */
		if (!tcp && kok(x, S_FEED, fi, TOED_K_FEED_VENDOR) && (f->vendor.ip >> 24) == 232 && !f->exchange.ip)
			key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, TOED_K_FEED_VENDOR, 0,
				"a source-specific multicast group (232/8) is forwarded only to a join that names "
				"its sender: give exchange = the sender's address");
		/* the card's ports are not host interfaces: nothing joins for them (dp/dp_mcast.c) */
		if (toed_feed_multicast(f) && kok(x, S_FEED, fi, TOED_K_FEED_VENDOR) && c->device.backend == TOED_BACKEND_XRT)
			key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, TOED_K_FEED_VENDOR, 0,
				"a multicast group, not joined with backend = xrt (the card sends no IGMP report): "
				"have the switch forward it to the card's port (a static membership)");
		for (uint32_t j = 0; j < i; j++) {
			struct toed_feed *g = &c->feed[j];
			if (kok(x, S_FEED, fi, TOED_K_FEED_STREAM) && strcmp(f->stream, g->stream) == 0)
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_STREAM, 0,
					"stream name already used by [feed.%s]", g->name);
			if (g->protocol != f->protocol || g->port != f->port)
				continue;
			if (!tcp && f->vendor.port && f->vendor.port == g->vendor.port)
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_VENDOR, 0,
					"udp port %u already taken by [feed.%s]", f->vendor.port, g->name);
			/* one listener per port, in the software endpoint and in the card's (gtoe_top) */
			if (tcp && f->open == TOED_OPEN_ACCEPT && g->open == TOED_OPEN_ACCEPT && f->vendor.port &&
			    f->vendor.port == g->vendor.port && kok(x, S_FEED, fi, TOED_K_FEED_VENDOR))
				key_msg(x, TOED_DIAG_ERROR, S_FEED, fi, TOED_K_FEED_VENDOR, 0,
					"open = accept: port %u already listened on by [feed.%s]", f->vendor.port, g->name);
			if (tcp && memcmp(&f->exchange, &g->exchange, sizeof f->exchange) == 0 &&
			    memcmp(&f->vendor, &g->vendor, sizeof f->vendor) == 0 && (f->exchange.ip || f->exchange.port))
				key_msg(x, TOED_DIAG_WARNING, S_FEED, fi, TOED_K_FEED_EXCHANGE, 0,
					"follows the same connections as [feed.%s]", g->name);
		}
	}
	for (uint32_t i = 0; i < c->nfeeds; i++) {
		check_session(x, (int)i);
		check_feed_limits(x, (int)i);
	}
	check_groups(x);
	/* the card publishes what it decoded as it comes: nothing on the host tracks its sequences */
	if (c->fast.sequence_check && c->device.backend == TOED_BACKEND_XRT && kok(x, S_DEVICE, 0, TOED_K_DEVICE_BACKEND) &&
	    kok(x, S_FAST, 0, TOED_K_FAST_SEQUENCE_CHECK))
		key_msg(x, TOED_DIAG_ERROR, S_FAST, 0, TOED_K_FAST_SEQUENCE_CHECK, 0,
			"backend = xrt: sequence tracking runs in the software backend only (the card does not track "
			"sequences yet)");
	if (!c->nfeeds && !c->udp.nports && kok(x, S_UDP, 0, TOED_K_UDP_PORTS))
		conf_msg(x, TOED_DIAG_WARNING, 0, "no [feed.NAME] section and no [udp] ports: nothing will be decoded");
}

static void check_misc(struct ctx *x)
{
	struct toed_config *c = x->c;
	if (kok(x, S_TCP, 0, TOED_K_TCP_WINDOW) && kok(x, S_TCP, 0, TOED_K_TCP_MSS) && c->tcp.window < c->tcp.mss)
		key_msg(x, TOED_DIAG_ERROR, S_TCP, 0, TOED_K_TCP_WINDOW, kline(x, S_TCP, 0, TOED_K_TCP_MSS),
			"smaller than one segment (mss = %u)", c->tcp.mss);

	if (kok(x, S_DATAPLANE, 0, TOED_K_DATAPLANE_PRIORITY) && kok(x, S_DATAPLANE, 0, TOED_K_DATAPLANE_CPU) &&
	    c->dataplane.priority && c->dataplane.busy_poll && c->dataplane.cpu < 0)
		key_msg(x, TOED_DIAG_WARNING, S_DATAPLANE, 0, TOED_K_DATAPLANE_PRIORITY, 0,
			"a busy-polling SCHED_FIFO thread without a cpu of its own can starve whatever shares its CPU");

	static const int rec[] = { TOED_K_RECORD_PCAP, TOED_K_RECORD_TICKS };
	for (size_t i = 0; i < 2; i++) {
		const struct key *k = &conf_keys[rec[i]];
		const char *p = FIELD(c, k);
		if (!*p || !kok(x, S_RECORD, 0, k->id))
			continue;
		char dir[TOED_PATH_MAX];
		snprintf(dir, sizeof dir, "%s", p);
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = 0;
		else if (slash)
			*slash = 0;
		struct stat st;
		if (p[strlen(p) - 1] == '/')
			key_msg(x, TOED_DIAG_ERROR, S_RECORD, 0, k->id, 0, "names a directory, not a file");
		else if (slash && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)))
			key_msg(x, TOED_DIAG_ERROR, S_RECORD, 0, k->id, 0, "directory %s does not exist", dir);
		else if (!x->offline && not_regular(p)) /* opening a FIFO to write blocks until a reader comes */
			key_msg(x, TOED_DIAG_ERROR, S_RECORD, 0, k->id, 0, "%s is %s, not a file to record into", p,
				not_regular(p));
	}
	int nports = 0;
	for (int i = 0; i < TOED_MAX_PORTS; i++)
		nports += c->port[i].enabled;
	if (c->record.pcap[0] && kok(x, S_RECORD, 0, TOED_K_RECORD_PCAP) && nports > 1 &&
	    c->device.backend == TOED_BACKEND_SW)
		key_msg(x, TOED_DIAG_WARNING, S_RECORD, 0, TOED_K_RECORD_PCAP, 0,
			"the frames of all %d ports go to this one file, without the port each came in on (a replay "
			"of it is port 0 alone)", nports);
	if (c->record.pcap[0] && strcmp(c->record.pcap, c->record.ticks) == 0)
		key_msg(x, TOED_DIAG_ERROR, S_RECORD, 0, TOED_K_RECORD_TICKS, 0, "the same file as [record] pcap");
}

/* [shm]: what the limits allow must fit what the machine gives, and a budget must hold a ring. */
static void check_shm(struct ctx *x)
{
	struct toed_config *c = x->c;
	struct rlimit rl;
	uint64_t fds = toed_fds_needed(c->shm.max_clients, toed_mcast_feeds(c));
	if (kok(x, S_SHM, 0, TOED_K_SHM_MAX_CLIENTS) && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_max != RLIM_INFINITY && fds > (uint64_t)rl.rlim_max)
		key_msg(x, TOED_DIAG_ERROR, S_SHM, 0, TOED_K_SHM_MAX_CLIENTS, 0,
			"needs about %llu file descriptors, but the limit is %llu (RLIMIT_NOFILE, hard); lower it or "
			"raise the limit (LimitNOFILE= in the unit, ulimit -Hn)",
			(unsigned long long)fds, (unsigned long long)rl.rlim_max);
	if (!kok(x, S_SHM, 0, TOED_K_SHM_RING_SIZE) || !kok(x, S_SHM, 0, TOED_K_SHM_HUGEPAGES))
		return;
	/* one ring of the default size, in whole pages as the daemon will take it */
	uint64_t page = c->shm.hugepages == TOED_HUGE_OFF ? 4096u : TOE_SHM_HUGE_PAGE;
	uint64_t ring = (toe_shm_data_bytes(c->shm.ring_size) + page - 1) / page * page + TOE_SHM_CONS_SIZE;
	if (kok(x, S_SHM, 0, TOED_K_SHM_RING_MEMORY_MB) && ((uint64_t)c->shm.ring_memory_mb << 20) < ring)
		key_msg(x, TOED_DIAG_ERROR, S_SHM, 0, TOED_K_SHM_RING_MEMORY_MB, 0,
			"smaller than one ring of ring_size = %u records (%llu KiB): nobody could subscribe",
			c->shm.ring_size, (unsigned long long)(ring >> 10));
	if (kok(x, S_SHM, 0, TOED_K_SHM_RING_MEMORY_PER_UID_MB) && c->shm.ring_memory_per_uid_mb &&
	    ((uint64_t)c->shm.ring_memory_per_uid_mb << 20) < ring)
		key_msg(x, TOED_DIAG_ERROR, S_SHM, 0, TOED_K_SHM_RING_MEMORY_PER_UID_MB, 0,
			"smaller than one ring of ring_size = %u records (%llu KiB): no user but root could subscribe "
			"(0 means no per-user budget)",
			c->shm.ring_size, (unsigned long long)(ring >> 10));
}

/* sequence_check = yes: the templates that publish ticks without a key (a channel and a
 * sequence field by [fast] sequence_fields, resolved as the pipeline resolves them,
 * seq_keys_resolve) are not checked: said here, since at run time they are only counted
 * (seq_unkeyed), and the SSE default holds nothing against other exchanges' files.
 * mapped: how many templates publish ticks (compile_templates counted them). */
static void check_seq_keys(struct ctx *x, uint32_t mapped)
{
	const struct fast_prog *p = &x->c->fast.prog;
	struct seq_field_cfg f[SEQ_MAX_FIELDS];
	struct seq_keys k;
	uint32_t nf = toed_seq_rules(x->c, f, SEQ_MAX_FIELDS), unkeyed = 0, first = 0;
	seq_keys_resolve(&k, p, f, nf);
	for (uint32_t t = 0; t < p->ntpl && t < FAST_MAX_TEMPLATES; t++) {
		if (p->tpl[t].kind == TOE_REC_NONE)
			continue;
		if (k.chan[t] != SEQ_NO_INSTR && k.seq[t] != SEQ_NO_INSTR)
			continue;
		if (unkeyed++ == 0)
			first = p->tpl[t].id;
	}
	if (unkeyed == 0)
		return;
	if (unkeyed == mapped)
		key_msg(x, TOED_DIAG_WARNING, S_FAST, 0, TOED_K_FAST_SEQUENCE_CHECK, 0,
			"no template that publishes ticks has a channel and a sequence field by [fast] "
			"sequence_fields: no record will be checked, no gap reported (name them: "
			"TEMPLATE:CHANNEL:SEQUENCE)");
	else
		key_msg(x, TOED_DIAG_WARNING, S_FAST, 0, TOED_K_FAST_SEQUENCE_CHECK, 0,
			"template %u%s publishes ticks without a channel and a sequence field by [fast] "
			"sequence_fields: its records are not checked, their gaps not reported",
			first, unkeyed > 1 ? " (and others)" : "");
}

static void compile_templates(struct ctx *x)
{
	struct toed_config *c = x->c;
	char err[TOED_DIAG_LEN / 2];
	if (!kok(x, S_FAST, 0, TOED_K_FAST_TEMPLATES))
		return;
	if (!c->fast.templates[0]) {
		key_msg(x, TOED_DIAG_ERROR, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0, "not set (the FAST template file)");
		return;
	}
	if (x->offline)
		return;
	const char *nr = not_regular(c->fast.templates);
	if (nr) {
		key_msg(x, TOED_DIAG_ERROR, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0, "%s is %s, not a template file",
			c->fast.templates, nr);
		return;
	}
	/* the names, for [fast] sequence_fields */
	struct fast_names *nm = calloc(1, sizeof *nm);
	if (!nm) {
		key_msg(x, TOED_DIAG_ERROR, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0, "out of memory");
		return;
	}
	if (fast_compile_file(c->fast.templates, &c->fast.prog, nm, err, sizeof err) < 0) {
		key_msg(x, TOED_DIAG_ERROR, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0, "%s", err);
		free(nm);
		return;
	}
	c->fast.have_prog = 1;
	if (nm->nnotes)
		key_msg(x, TOED_DIAG_WARNING, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0, "%s", nm->note);
	/* the SSE default is not held against other exchanges' templates: those are just untracked */
	if (kok(x, S_FAST, 0, TOED_K_FAST_SEQUENCE_FIELDS) &&
	    conf_seqfields_resolve(c, nm, kline(x, S_FAST, 0, TOED_K_FAST_SEQUENCE_FIELDS) != 0, err, sizeof err) < 0)
		key_msg(x, TOED_DIAG_ERROR, S_FAST, 0, TOED_K_FAST_SEQUENCE_FIELDS, 0, "%s", err);
	free(nm);
	uint32_t mapped = 0;
	for (uint32_t i = 0; i < c->fast.prog.ntpl; i++)
		if (c->fast.prog.tpl[i].kind != TOE_REC_NONE)
			mapped++;
	if (!mapped)
		key_msg(x, TOED_DIAG_WARNING, S_FAST, 0, TOED_K_FAST_TEMPLATES, 0,
			"no template maps to a tick record (trades 3201, orders 5801): nothing will be published");
	else if (c->fast.sequence_check && kok(x, S_FAST, 0, TOED_K_FAST_SEQUENCE_FIELDS))
		check_seq_keys(x, mapped);
}

/* Pages of 2 MB a ring of `records` takes. */
static unsigned long ring_pages(uint64_t records)
{
	uint64_t bytes = TOE_SHM_HDR_SIZE + records * TOE_RECORD_SIZE;
	return (unsigned long)((bytes + TOE_SHM_HUGE_PAGE - 1) / TOE_SHM_HUGE_PAGE);
}

/* Huge pages are taken from everything else on the machine as soon as they are reserved,
 * used or not: toed reserves no more than its rings can ever use (each client may ask for a
 * ring of the largest size) and never more than half of the memory. */
unsigned long toed_hugepages_max(const struct toed_config *c)
{
	unsigned long rings = (unsigned long)c->shm.max_clients * ring_pages(TOE_SHM_MAX_CAPACITY);
	struct sysinfo si;
	if (sysinfo(&si) == 0 && si.mem_unit) {
		uint64_t half = (uint64_t)si.totalram * si.mem_unit / 2 / TOE_SHM_HUGE_PAGE;
		if (half < rings)
			return (unsigned long)half;
	}
	return rings;
}

static void check_hugepages(struct ctx *x)
{
	struct toed_config *c = x->c;
	if (!kok(x, S_SHM, 0, TOED_K_SHM_HUGEPAGES) || !kok(x, S_SHM, 0, TOED_K_SHM_MAX_CLIENTS) ||
	    c->shm.hugepages != TOED_HUGE_COUNT)
		return;
	unsigned long n = c->shm.hugepage_count, max = toed_hugepages_max(c);
	unsigned long rings = (unsigned long)c->shm.max_clients * ring_pages(TOE_SHM_MAX_CAPACITY);
	if (n <= max)
		return;
	if (max == rings)
		key_msg(x, TOED_DIAG_ERROR, S_SHM, 0, TOED_K_SHM_HUGEPAGES, 0,
			"more than the rings can use: %u clients with rings of at most %u records take at most %lu "
			"pages",
			c->shm.max_clients, TOE_SHM_MAX_CAPACITY, rings);
	else {
		struct sysinfo si;
		unsigned long long mb = sysinfo(&si) == 0 ? (unsigned long long)si.totalram * si.mem_unit >> 20 : 0;
		key_msg(x, TOED_DIAG_ERROR, S_SHM, 0, TOED_K_SHM_HUGEPAGES, 0,
			"more than half of this machine's memory (%llu MB): at most %lu pages", mb, max);
	}
}

void conf_check(struct ctx *x)
{
	resolve_defaults(x);
	check_device_source(x);
	check_ports(x);
	check_feeds(x);
	check_misc(x);
	check_hugepages(x);
	check_shm(x);
	compile_templates(x);
}
