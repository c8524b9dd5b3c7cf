/* test_config.c - daemon/conf/config: parsing, validation messages, cross-checks, reload diff.
 *
 * Each case writes a config text to a temporary file, loads it and compares
 * the diagnostics with the exact text the specification (doc/config.md and
 * the task: "FILE:LINE: [section] key = value: reason") says. Cases are
 * composed as the section under test first (so its lines are 1, 2, ...)
 * followed by a valid remainder ([source] interface, [fast] templates, one
 * feed), so that exactly the one expected error appears. Runs from the
 * repository root (the annotated default and the templates are read there).
 */
#include "test.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/config.h"
#include "conf/conf_impl.h" /* conf_keys[], conf_fmt_value: a key written back */
#include "dp/dp_setup.h"
#include "step/step_sess.h"

static char g_dir[200];  /* temporary directory (realpath) */
static char g_conf[256]; /* g_dir/t.conf */
static char g_tpl[512];  /* absolute path of the repository's template file */
static char g_xtpl[512]; /* tests/data/xchg-seq-templates.xml: a non-SSE exchange */
static struct toed_config *g_cfg;
static struct toed_diag g_diag;

#define NO_SRC 1
#define NO_FAST 2
#define NO_FEED 4

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	s[n] = 0;
	fclose(f);
	return s;
}

static void tmp_path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", g_dir, name);
}

static int load_into(const char *text, struct toed_config *c)
{
	write_file(g_conf, text);
	toed_diag_init(&g_diag);
	return toed_config_load(g_conf, c, &g_diag);
}

static int load(const char *text)
{
	return load_into(text, g_cfg);
}

/* Section under test, then whatever valid remainder it does not replace. */
static const char *compose(const char *head, int omit)
{
	static char buf[16384];
	size_t o = (size_t)snprintf(buf, sizeof buf, "%s", head);
	if (!(omit & NO_SRC))
		o += (size_t)snprintf(buf + o, sizeof buf - o, "[source]\ninterface = lo\n");
	if (!(omit & NO_FAST))
		o += (size_t)snprintf(buf + o, sizeof buf - o, "[fast]\ntemplates = %s\n", g_tpl);
	if (!(omit & NO_FEED))
		snprintf(buf + o, sizeof buf - o, "[feed.base]\nexchange = 10.0.0.1:5261\n");
	return buf;
}

static int has_msg(const char *text)
{
	for (uint32_t i = 0; i < g_diag.n; i++)
		if (strcmp(g_diag.msg[i].text, text) == 0)
			return 1;
	return 0;
}

static int has_prefix(const char *prefix)
{
	for (uint32_t i = 0; i < g_diag.n; i++)
		if (strncmp(g_diag.msg[i].text, prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

enum { ONE = 1, ANY = 0 };

/* Load head+remainder; expect the message "conf:line: [warning: ]tail" and (ONE)
 * that it is the only error, or for warnings that the load succeeds with only it. */
static void expect(int tl, const char *head, int omit, int level, int count, unsigned line, const char *tail)
{
	char exp[2048];
	const char *w = level == TOED_DIAG_WARNING ? "warning: " : "";
	if (line)
		snprintf(exp, sizeof exp, "%s:%u: %s%s", g_conf, line, w, tail);
	else
		snprintf(exp, sizeof exp, "%s: %s%s", g_conf, w, tail);
	int rc = load(compose(head, omit));
	int ok = has_msg(exp);
	if (level == TOED_DIAG_ERROR)
		ok = ok && rc == -1 && (count == ANY || g_diag.errors == 1);
	else
		ok = ok && rc == 0 && g_diag.errors == 0 && (count == ANY || g_diag.warnings == 1);
	test_checks++;
	if (!ok) {
		test_failures++;
		fprintf(stderr, "test_config.c:%d: expected %s\n  \"%s\"\n  load returned %d with %u errors, %u warnings:\n",
			tl, count == ONE ? "only" : "", exp, rc, g_diag.errors, g_diag.warnings);
		toed_diag_print(&g_diag, stderr);
	}
}

#define ERR(head, omit, line, tail) expect(__LINE__, head, omit, TOED_DIAG_ERROR, ONE, line, tail)
#define ERR_ANY(head, omit, line, tail) expect(__LINE__, head, omit, TOED_DIAG_ERROR, ANY, line, tail)
#define WARN(head, omit, line, tail) expect(__LINE__, head, omit, TOED_DIAG_WARNING, ONE, line, tail)

/* Loads with no error and no warning. */
static void expect_clean(int tl, const char *text)
{
	int rc = load(text);
	test_checks++;
	if (rc != 0 || g_diag.errors || g_diag.warnings) {
		test_failures++;
		fprintf(stderr, "test_config.c:%d: expected a clean load, got %d:\n", tl, rc);
		toed_diag_print(&g_diag, stderr);
	}
}
#define CLEAN(head, omit) expect_clean(__LINE__, compose(head, omit))

/* ---- the annotated default -------------------------------------------------------- */

static void test_default_file(void)
{
	toed_diag_init(&g_diag);
	int rc = toed_config_load("conf/toed.conf", g_cfg, &g_diag);
	CHECK_EQ(rc, 0);
	CHECK_EQ(g_diag.errors, 0);
	/* it ships without feeds: the one warning says so */
	CHECK_EQ(g_diag.warnings, 1);
	CHECK(has_msg("conf/toed.conf: warning: no [feed.NAME] section and no [udp] ports: nothing will be decoded"));
	if (rc || g_diag.errors)
		toed_diag_print(&g_diag, stderr);
	CHECK(g_cfg->fast.have_prog);
	CHECK(strcmp(g_cfg->source.interface, "eth0") == 0);
	/* the relative default template path resolves next to the file */
	char want[PATH_MAX + 64];
	snprintf(want, sizeof want, "%s", g_tpl);
	CHECK(strcmp(g_cfg->fast.templates, want) == 0);

	/* against the built-in defaults only the interface and the two resolved paths differ */
	struct toed_config *def = malloc(sizeof *def);
	struct toed_diff *d = malloc(sizeof *d);
	toed_config_default(def);
	int mask = toed_config_diff(def, g_cfg, d);
	CHECK_EQ(mask, TOED_CHANGE_RESTART);
	CHECK_EQ(d->n, 3);
	int seen = 0;
	for (uint32_t i = 0; i < d->n; i++) {
		if (d->ch[i].key == TOED_K_SOURCE_INTERFACE && strcmp(d->ch[i].new_val, "eth0") == 0)
			seen |= 1;
		if (d->ch[i].key == TOED_K_FAST_TEMPLATES && strcmp(d->ch[i].old_val, TOED_DEF_TEMPLATES) == 0)
			seen |= 2;
		if (d->ch[i].key == TOED_K_DEVICE_XCLBIN && strcmp(d->ch[i].old_val, TOED_DEF_XCLBIN) == 0)
			seen |= 4;
	}
	CHECK_EQ(seen, 7);
	if (d->n != 3)
		toed_diff_print(d, stderr);
	free(def);
	free(d);
}

/* Every "#key = value" example of a fixed section in conf/toed.conf shows the
 * built-in default (except the listed examples of optional values): uncommenting
 * them all changes nothing. */
static void test_default_examples(void)
{
	static const char *const not_defaults[] = { "pci", "pcap_file", "socket_group", "pcap", "ticks", "ports" };
	char *src = read_file("conf/toed.conf");
	CHECK(src != NULL);
	if (!src)
		return;
	size_t cap = strlen(src) + 1;
	char *out = malloc(cap), *o = out;
	int instance = 0, uncommented = 0;
	for (char *line = strtok(src, "\n"); line; line = strtok(NULL, "\n")) {
		const char *t = line[0] == '#' ? line + 1 : line;
		if (t[0] == '[')
			instance = strncmp(t, "[port", 5) == 0 || strncmp(t, "[feed", 5) == 0;
		int uncomment = 0;
		if (line[0] == '#' && !instance && (isalpha((unsigned char)line[1])) && strstr(line, " = ")) {
			uncomment = 1;
			for (size_t i = 0; i < sizeof not_defaults / sizeof not_defaults[0]; i++) {
				size_t n = strlen(not_defaults[i]);
				if (strncmp(line + 1, not_defaults[i], n) == 0 && line[1 + n] == ' ')
					uncomment = 0;
			}
		}
		o += sprintf(o, "%s\n", uncomment ? line + 1 : line);
		uncommented += uncomment;
	}
	/* 44 keys in fixed sections (4 of them [source] xsk_*, 1 [fast] decoder, 1 [fast] sequence_fields); interface is set, not commented;
	 * 6 examples are not defaults */
	CHECK_EQ(uncommented, 37);
	/* the copy lives in the temporary directory: give it the relative template path */
	char tdir[PATH_MAX + 16], tcopy[PATH_MAX + 64];
	tmp_path(tdir, sizeof tdir, "templates");
	mkdir(tdir, 0755);
	snprintf(tcopy, sizeof tcopy, "%s/sse-l2-3201-5801.xml", tdir);
	char *xml = read_file(g_tpl);
	write_file(tcopy, xml);
	free(xml);

	struct toed_config *a = malloc(sizeof *a);
	struct toed_diff *d = malloc(sizeof *d);
	toed_diag_init(&g_diag);
	CHECK_EQ(toed_config_load("conf/toed.conf", a, &g_diag), 0);
	int rc = load(out);
	CHECK_EQ(rc, 0);
	CHECK_EQ(g_diag.errors, 0);
	if (rc)
		toed_diag_print(&g_diag, stderr);
	/* only the two paths resolved against another directory differ */
	toed_config_diff(a, g_cfg, d);
	CHECK_EQ(d->n, 2);
	for (uint32_t i = 0; i < d->n; i++)
		CHECK(d->ch[i].key == TOED_K_DEVICE_XCLBIN || d->ch[i].key == TOED_K_FAST_TEMPLATES);
	if (d->n != 2)
		toed_diff_print(d, stderr);
	unlink(tcopy);
	rmdir(tdir);
	free(a);
	free(d);
	free(out);
	free(src);
}

/* Every key is documented in conf/toed.conf and doc/config.md under its section. */
static void test_documented(void)
{
	char *conf = read_file("conf/toed.conf");
	char *doc = read_file("doc/config.md");
	CHECK(conf != NULL);
	CHECK(doc != NULL);
	if (!conf || !doc) {
		free(conf);
		free(doc);
		return;
	}
	for (int k = 0; k < TOED_K_COUNT; k++) {
		const char *name = toed_key_name((enum toed_key)k), *sec = toed_key_section((enum toed_key)k);
		char hdr[64], pat[64];
		/* conf: "[sec" (maybe commented, maybe [sec.N]) then "key = " or "#key = " before the next section */
		snprintf(hdr, sizeof hdr, "[%s", sec);
		char *s = strstr(conf, hdr);
		int found = 0;
		while (s && !found) {
			char *next = strstr(s + 1, "\n[");
			char *next2 = strstr(s + 1, "\n#[");
			if (!next || (next2 && next2 < next))
				next = next2;
			snprintf(pat, sizeof pat, "\n%s = ", name);
			char *p1 = strstr(s, pat);
			snprintf(pat, sizeof pat, "\n#%s = ", name);
			char *p2 = strstr(s, pat);
			found = (p1 && (!next || p1 < next)) || (p2 && (!next || p2 < next));
			s = strstr(s + 1, hdr);
		}
		test_checks++;
		if (!found) {
			test_failures++;
			fprintf(stderr, "conf/toed.conf does not show [%s] %s\n", sec, name);
		}
		/* doc: "## [sec" heading, then "`key`" before the next "## " heading */
		snprintf(hdr, sizeof hdr, "\n## [%s", sec);
		s = strstr(doc, hdr);
		found = 0;
		if (s) {
			char *next = strstr(s + 1, "\n## ");
			snprintf(pat, sizeof pat, "`%s`", name);
			char *p = strstr(s, pat);
			found = p && (!next || p < next);
		}
		test_checks++;
		if (!found) {
			test_failures++;
			fprintf(stderr, "doc/config.md does not document [%s] %s\n", sec, name);
		}
	}
	free(conf);
	free(doc);
}

/* ---- values ------------------------------------------------------------------------- */

static void test_defaults(void)
{
	struct toed_config *c = malloc(sizeof *c);
	toed_config_default(c);
	CHECK_EQ(c->device.backend, TOED_BACKEND_SW);
	CHECK_EQ(c->source.type, TOED_SRC_AF_PACKET);
	CHECK_EQ(c->source.xdp_mode, TOED_XDP_NATIVE);
	CHECK_EQ(c->source.pcap_pace, TOED_PACE_RECORDED);
	CHECK_EQ(c->source.pcap_loop, 1);
	CHECK_EQ(c->source.xsk_rx_ring, 65536);   /* a 10 GbE burst: doc/config.md */
	CHECK_EQ(c->source.xsk_fill_ring, 65536);
	CHECK_EQ(c->source.xsk_frames, 131072);
	CHECK_EQ(c->source.xsk_busy_poll, 0);
	CHECK_EQ(c->tcp.mss, 1408);
	CHECK_EQ(c->tcp.connections, 64);
	CHECK_EQ(c->tcp.window, 32768);
	CHECK_EQ(c->tcp.gap_timeout_ms, 50);
	CHECK_EQ(c->tcp.idle_timeout_s, 300);
	CHECK_EQ(c->udp.nports, 0);
	CHECK_EQ(c->fast.framing, TOED_FRAMING_STEP);
	CHECK_EQ(c->shm.hugepages, TOED_HUGE_AUTO);
	CHECK_EQ(c->shm.ring_size, 8192);
	CHECK_EQ(c->shm.max_clients, 256);
	CHECK(strcmp(c->shm.socket, "/run/toed/toed.sock") == 0);
	CHECK_EQ(c->shm.socket_mode, 0660);
	CHECK_EQ(c->dataplane.cpu, -1);
	CHECK_EQ(c->dataplane.priority, 0);
	CHECK_EQ(c->dataplane.busy_poll, 0);
	CHECK_EQ(c->log.level, TOED_LOG_INFO);
	CHECK_EQ(c->log.target, TOED_LOG_JOURNAL);
	CHECK_EQ(c->record.pcap[0], 0);
	CHECK_EQ(c->record.ticks[0], 0);
	CHECK_EQ(c->nfeeds, 0);
	CHECK_EQ(c->port[0].enabled, 1);
	CHECK_EQ(c->port[0].implicit, 1);
	CHECK_EQ(c->port[0].role, TOED_ROLE_MIRROR);
	CHECK_EQ(c->port[0].verify_checksums, TOED_AUTO);
	CHECK_EQ(c->port[1].enabled, 0);
	free(c);
}

/* A full file: every value lands where it should. */
static void test_values(void)
{
	char text[4096];
	snprintf(text, sizeof text,
		 "; comment\n"
		 "[device]\nbackend = SW\n"
		 "[source]\ntype = af_xdp\ninterface = veth-m1\nqueue = 3\nxdp_mode = native\n"
		 "[port]\nrole = Mirror\nip = 10.1.0.2\nnetmask = 24\ngateway = 10.1.0.1\nmac = 02-00-00-0a-0B-0c\n"
		 "vlan = 100\nverify_checksums = off\n"
		 "[feed.l2]\nexchange = 198.51.100.10:5261\nvendor = 10.1.0.2:*\n"
		 "[feed.mc]\nprotocol = udp\nvendor = 239.1.1.1:6001\nstream = sse-mc\n"
		 "[feed.step-udp]\nprotocol = udp\nvendor = *:6002\nframing = step\n"
		 "[tcp]\nmss = 1344\nconnections = 256\nwindow = 64 KiB\ngap_timeout_ms = 0\nidle_timeout_s = 0\n"
		 "[udp]\nports = 5000, 5001-5003 6000\n"
		 "[fast]\ntemplates = %s\nframing = datagram\n"
		 "[shm]\nhugepages = 16\nring_size = 16K\nmax_clients = 4096\nsocket = /tmp/toed-test.sock\n"
		 "socket_group = 0\nsocket_mode = 640\n"
		 "[dataplane]\ncpu = 0\npriority = 50\nbusy_poll = yes\n"
		 "[log]\nlevel = Debug\ntarget = stderr\n"
		 "[record]\npcap = frames.pcap\nticks = %s/ticks.bin\n",
		 g_tpl, g_dir);
	int rc = load(text);
	CHECK_EQ(rc, 0);
	CHECK_EQ(g_diag.errors, 0);
	CHECK_EQ(g_diag.warnings, 0);
	if (g_diag.n)
		toed_diag_print(&g_diag, stderr);
	struct toed_config *c = g_cfg;
	CHECK_EQ(c->source.type, TOED_SRC_AF_XDP);
	CHECK(strcmp(c->source.interface, "veth-m1") == 0);
	CHECK_EQ(c->source.queue, 3);
	CHECK_EQ(c->port[0].enabled, 1);
	CHECK_EQ(c->port[0].implicit, 0);
	CHECK_EQ(c->port[0].role, TOED_ROLE_MIRROR);
	CHECK_EQ(c->port[0].ip, 0x0a010002);
	CHECK_EQ(c->port[0].netmask, 0xffffff00);
	CHECK_EQ(c->port[0].gateway, 0x0a010001);
	CHECK_EQ(c->port[0].has_mac, 1);
	static const uint8_t mac[6] = { 0x02, 0x00, 0x00, 0x0a, 0x0b, 0x0c };
	CHECK_MEM(c->port[0].mac, mac, 6);
	CHECK_EQ(c->port[0].vlan, 100);
	CHECK_EQ(c->port[0].verify_checksums, 0);
	CHECK_EQ(c->nfeeds, 3);
	CHECK(strcmp(c->feed[0].name, "l2") == 0);
	CHECK(strcmp(c->feed[0].stream, "l2") == 0); /* defaults to the name */
	CHECK_EQ(c->feed[0].protocol, TOED_PROTO_TCP);
	CHECK_EQ(c->feed[0].framing, TOED_FRAMING_STEP);
	CHECK_EQ(c->feed[0].exchange.ip, 0xc633640a);
	CHECK_EQ(c->feed[0].exchange.port, 5261);
	CHECK_EQ(c->feed[0].vendor.ip, 0x0a010002);
	CHECK_EQ(c->feed[0].vendor.port, 0);
	CHECK(strcmp(c->feed[1].stream, "sse-mc") == 0);
	CHECK_EQ(c->feed[1].protocol, TOED_PROTO_UDP);
	CHECK_EQ(c->feed[1].framing, TOED_FRAMING_RAW); /* [fast] framing = datagram */
	CHECK_EQ(c->feed[1].vendor.ip, 0xef010101);
	CHECK_EQ(c->feed[1].vendor.port, 6001);
	CHECK_EQ(c->feed[2].framing, TOED_FRAMING_STEP);
	CHECK_EQ(c->feed[2].vendor.ip, 0);
	CHECK_EQ(c->tcp.mss, 1344);
	CHECK_EQ(c->tcp.connections, 256);
	CHECK_EQ(c->tcp.window, 65536);
	CHECK_EQ(c->tcp.gap_timeout_ms, 0);
	CHECK_EQ(c->udp.nports, 5);
	CHECK(toed_udp_listened(c, 5000) && toed_udp_listened(c, 5001) && toed_udp_listened(c, 5003));
	CHECK(toed_udp_listened(c, 6000) && !toed_udp_listened(c, 5004) && !toed_udp_listened(c, 4999));
	CHECK_EQ(c->fast.framing, TOED_FRAMING_RAW);
	CHECK_EQ(c->shm.hugepages, TOED_HUGE_COUNT);
	CHECK_EQ(c->shm.hugepage_count, 16);
	CHECK_EQ(c->shm.ring_size, 16384);
	CHECK_EQ(c->shm.max_clients, 4096);
	CHECK(strcmp(c->shm.socket, "/tmp/toed-test.sock") == 0);
	CHECK(strcmp(c->shm.socket_group, "0") == 0);
	CHECK_EQ(c->shm.socket_mode, 0640);
	CHECK_EQ(c->dataplane.cpu, 0);
	CHECK_EQ(c->dataplane.priority, 50);
	CHECK_EQ(c->dataplane.busy_poll, 1);
	CHECK_EQ(c->log.level, TOED_LOG_DEBUG);
	CHECK_EQ(c->log.target, TOED_LOG_STDERR);
	char want[PATH_MAX + 32];
	snprintf(want, sizeof want, "%s/frames.pcap", g_dir); /* relative: next to the file */
	CHECK(strcmp(c->record.pcap, want) == 0);
	snprintf(want, sizeof want, "%s/ticks.bin", g_dir);
	CHECK(strcmp(c->record.ticks, want) == 0);
	CHECK(strcmp(c->path, g_conf) == 0);

	/* pcap source, paces, loops */
	char pcap[PATH_MAX + 32];
	tmp_path(pcap, sizeof pcap, "cap.pcap");
	static const uint8_t hdr[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1 };
	FILE *f = fopen(pcap, "wb");
	fwrite(hdr, 1, sizeof hdr, f);
	fclose(f);
	CLEAN("[source]\ntype = pcap\npcap_file = cap.pcap\npcap_pace = 2.5x\npcap_loop = forever\n", NO_SRC);
	CHECK_EQ(g_cfg->source.pcap_pace, TOED_PACE_FACTOR);
	CHECK(g_cfg->source.pcap_speed > 2.49 && g_cfg->source.pcap_speed < 2.51);
	CHECK_EQ(g_cfg->source.pcap_loop, 0);
	CHECK(strcmp(g_cfg->source.pcap_file, pcap) == 0);
	CLEAN("[source]\ntype = pcap\npcap_file = cap.pcap\npcap_pace = fast\npcap_loop = 3\n", NO_SRC);
	CHECK_EQ(g_cfg->source.pcap_pace, TOED_PACE_FAST);
	CHECK_EQ(g_cfg->source.pcap_loop, 3);
	/* pcapng is accepted too */
	static const uint8_t ng[4] = { 0x0a, 0x0d, 0x0d, 0x0a };
	f = fopen(pcap, "wb");
	fwrite(ng, 1, 4, f);
	fclose(f);
	CLEAN("[source]\ntype = pcap\npcap_file = cap.pcap\n", NO_SRC);
	/* a replay is port 0 alone */
	ERR("[source]\ntype = pcap\npcap_file = cap.pcap\n[port.1]\ninterface = eth1\n", NO_SRC, 4,
	    "[port.1]: type = pcap replays one capture as port 0; more ports need live capture ([source] type = "
	    "af_xdp or af_packet, an interface per port)");
	WARN("[source]\ntype = pcap\npcap_file = cap.pcap\n[port]\ninterface = eth1\n", NO_SRC, 5,
	     "[port] interface = eth1: ignored with type = pcap");
	unlink(pcap);

	/* a source-specific multicast group (232/8) without its sender: the network forwards nothing */
	WARN("[feed.ssm]\nprotocol = udp\nvendor = 232.1.2.3:6001\n", 0, 3,
	     "[feed.ssm] vendor = 232.1.2.3:6001: a source-specific multicast group (232/8) is forwarded only to a "
	     "join that names its sender: give exchange = the sender's address");
	expect_clean(__LINE__, compose("[feed.ssm]\nprotocol = udp\nvendor = 232.1.2.3:6001\nexchange = 10.1.1.1\n", 0));
	expect_clean(__LINE__, compose("[feed.asm]\nprotocol = udp\nvendor = 239.1.2.3:6001\n", 0));

	/* BDF forms are normalised */
	WARN("[device]\npci = 3B:00.1\n", 0, 2, "[device] pci = 3B:00.1: ignored with backend = sw");
	CHECK(strcmp(g_cfg->device.pci, "0000:3b:00.1") == 0);
	WARN("[device]\npci = 0001:ff:1f.7\n", 0, 2, "[device] pci = 0001:ff:1f.7: ignored with backend = sw");
	CHECK(strcmp(g_cfg->device.pci, "0001:ff:1f.7") == 0);
}

/* ---- the file format ------------------------------------------------------------------ */

static void test_syntax(void)
{
	/* unknown keys and sections, with and without a suggestion */
	ERR("[tcp]\nmsss = 1408\n", 0, 2, "[tcp] msss = 1408: unknown key; did you mean mss?");
	ERR("[tcp]\nfoo = 1\n", 0, 2,
	    "[tcp] foo = 1: unknown key (keys of [tcp]: mss, connections, window, gap_timeout_ms, idle_timeout_s)");
	ERR("[tpc]\nmss = 1408\n", 0, 1, "[tpc]: unknown section; did you mean [tcp]?");
	ERR("[bogus]\nx = 1\ny = 2\n", 0, 1,
	    "[bogus]: unknown section (sections: device, source, port, port.N, feed.NAME, tcp, udp, fast, shm, "
	    "dataplane, log, record)");
	ERR("[tcp.1]\n", 0, 1, "[tcp.1]: [tcp] takes no .NAME");
	ERR("[MSS]\n", 0, 1, "[MSS]: unknown section (sections: device, source, port, port.N, feed.NAME, tcp, udp, "
			     "fast, shm, dataplane, log, record)");
	ERR("[tcp]\nMSS = 1408\n", 0, 2, "[tcp] MSS = 1408: unknown key; did you mean mss?");
	ERR("mss = 1408\n", 0, 1, "mss = 1408: outside any section (keys go under a [section])");
	/* duplicates */
	ERR("[tcp]\nmss = 1408\nmss = 1344\n", 0, 3, "[tcp] mss = 1344: duplicate key (first set at line 2)");
	ERR("[tcp]\n[log]\n[tcp]\nmss = 1344\n", 0, 3, "[tcp]: section repeated (first at line 1)");
	ERR("[feed.a]\nexchange = 10.0.0.2:1\n[feed.a]\n", 0, 3, "[feed.a]: section repeated (first at line 1)");
	ERR("[port]\n[port.0]\n", 0, 2, "[port.0]: port 0 already given as [port] at line 1");
	ERR("[port.0]\n[port]\n", 0, 2, "[port]: port 0 already given as [port.0] at line 1");
	/* malformed lines: every one is reported */
	ERR("[tcp\nmss = 1408\n", 0, 1, "[tcp: missing ] after the section name");
	ERR("[tcp]\nmss 1408\n", 0, 2, "mss 1408: not a [section] or a key = value line");
	ERR("[tcp] mss = 1408\n", 0, 1, "[tcp]: text after the section header: mss = 1408");
	ERR("[tcp]\n= 5\n", 0, 2, "= 5: missing key name before =");
	load(compose("[tcp]\nmss 1\nwindow 2\n[log\n", 0));
	CHECK_EQ(g_diag.errors, 3);
	/* too long for inih's line buffer */
	char longl[512], exp[64];
	snprintf(longl, sizeof longl, "[record]\npcap = /tmp/%0250d\n", 0);
	snprintf(exp, sizeof exp, "line longer than %d characters", INI_MAX_LINE - 3);
	ERR(longl, 0, 2, exp);
	/* comments, blanks, indentation (never a continuation), inline ';', CRLF, BOM, ':' */
	CLEAN("# comment\n; comment\n\n  [tcp]  \n\tmss = 1344 ; inline comment\n  window = 64K\n", 0);
	CHECK_EQ(g_cfg->tcp.mss, 1344);
	CHECK_EQ(g_cfg->tcp.window, 65536);
	CLEAN("\xef\xbb\xbf[tcp]\r\nmss = 1344\r\nwindow: 16K\r\n", 0);
	CHECK_EQ(g_cfg->tcp.mss, 1344);
	CHECK_EQ(g_cfg->tcp.window, 16384);
	/* a '#' after a value is not a comment: the value is wrong */
	ERR("[tcp]\nmss = 1344 # comment\n", 0, 2, "[tcp] mss = 1344 # comment: not a number");
	/* an empty value */
	ERR("[tcp]\nmss =\n", 0, 2, "[tcp] mss: empty value (a number is needed)");
	/* messages come sorted by line, file-wide ones last */
	load(compose("[tcp]\nmss = 1\n[log]\nlevel = x\n", NO_SRC | NO_FEED));
	CHECK(g_diag.n >= 3);
	for (uint32_t i = 1; i < g_diag.n; i++)
		CHECK(g_diag.msg[i].line == 0 || (g_diag.msg[i - 1].line && g_diag.msg[i - 1].line <= g_diag.msg[i].line));
	/* a missing file */
	char none[PATH_MAX + 32], e2[PATH_MAX + 96];
	tmp_path(none, sizeof none, "missing.conf");
	toed_diag_init(&g_diag);
	CHECK_EQ(toed_config_load(none, g_cfg, &g_diag), -1);
	snprintf(e2, sizeof e2, "%s: cannot open: No such file or directory", none);
	CHECK(g_diag.n == 1 && strcmp(g_diag.msg[0].text, e2) == 0);
	/* diag NULL is allowed */
	CHECK_EQ(toed_config_load(none, g_cfg, NULL), -1);
}

/* ---- every key's range ------------------------------------------------------------------- */

static void test_device_source(void)
{
	ERR("[device]\nbackend = fpga\n", 0, 2, "[device] backend = fpga: must be one of: sw, xrt");
	ERR("[device]\npci = 0000:3b:20.1\n", 0, 2,
	    "[device] pci = 0000:3b:20.1: not a PCI address (dddd:bb:dd.f with device 00..1f and function 0..7, "
	    "e.g. 0000:3b:00.1)");
	ERR("[device]\npci = 3b:00.8\n", 0, 2,
	    "[device] pci = 3b:00.8: not a PCI address (dddd:bb:dd.f with device 00..1f and function 0..7, "
	    "e.g. 0000:3b:00.1)");
	ERR("[device]\npci = eth0\n", 0, 2,
	    "[device] pci = eth0: not a PCI address (dddd:bb:dd.f with device 00..1f and function 0..7, "
	    "e.g. 0000:3b:00.1)");
	WARN("[device]\npci = 0000:3b:00.1\n", 0, 2, "[device] pci = 0000:3b:00.1: ignored with backend = sw");
	/* xrt: the xclbin must be readable; [source] is ignored */
	char e[PATH_MAX * 2];
	snprintf(e, sizeof e,
		 "[device] xclbin = none.xclbin: cannot read %s/none.xclbin: No such file or directory "
		 "(backend = xrt loads it)",
		 g_dir);
	ERR_ANY("[device]\nbackend = xrt\nxclbin = none.xclbin\n", NO_SRC, 3, e);
	snprintf(e, sizeof e,
		 "[device] xclbin = %s/toed.xclbin (default): cannot read %s/toed.xclbin: No such file or directory "
		 "(backend = xrt loads it)",
		 g_dir, g_dir);
	ERR_ANY("[device]\nbackend = xrt\n", NO_SRC, 2, e);
	char xcl[PATH_MAX + 32];
	tmp_path(xcl, sizeof xcl, "card.xclbin");
	write_file(xcl, "xclbin2");
	WARN("[device]\nbackend = xrt\nxclbin = card.xclbin\n", 0, 4,
	     "[source]: ignored with backend = xrt (the card's ports receive)");
	CLEAN("[device]\nbackend = xrt\nxclbin = card.xclbin\n", NO_SRC);
	/* a multicast UDP feed on the card: nothing joins it there */
	WARN("[device]\nbackend = xrt\nxclbin = card.xclbin\n[feed.mc]\nprotocol = udp\nvendor = 239.1.1.1:6001\n",
	     NO_SRC, 6,
	     "[feed.mc] vendor = 239.1.1.1:6001: a multicast group, not joined with backend = xrt (the card sends no "
	     "IGMP report): have the switch forward it to the card's port (a static membership)");
	unlink(xcl);

	ERR("[source]\ntype = dpdk\n", NO_SRC, 2, "[source] type = dpdk: must be one of: af_xdp, af_packet, pcap");
	ERR("[source]\ninterface = a/b\n", NO_SRC, 2, "[source] interface = a/b: not a valid interface name");
	ERR("[source]\ninterface = abcdefghijklmnop\n", NO_SRC, 2,
	    "[source] interface = abcdefghijklmnop: longer than 15 characters (IFNAMSIZ)");
	CLEAN("[source]\ninterface = abcdefghijklmno\n", NO_SRC);
	ERR("[source]\ntype = af_packet\n", NO_SRC, 2,
	    "[source] interface: not set (type = af_packet captures from a network interface)");
	ERR("[log]\n", NO_SRC, 0, "[source] interface: not set (type = af_packet captures from a network interface)");
	ERR("[source]\ntype = af_xdp\ninterface = lo\nqueue = 1024\n", NO_SRC, 4, "[source] queue = 1024: above 1023");
	ERR("[source]\ntype = af_xdp\ninterface = lo\nqueue = -1\n", NO_SRC, 4, "[source] queue = -1: below 0");
	ERR("[source]\ntype = af_xdp\ninterface = lo\nqueue = one\n", NO_SRC, 4, "[source] queue = one: not a number");
	ERR("[source]\ntype = af_xdp\ninterface = lo\nxdp_mode = zc\n", NO_SRC, 4,
	    "[source] xdp_mode = zc: must be one of: native, skb");
	WARN("[source]\ntype = af_xdp\ninterface = lo\nxdp_mode = skb\n", NO_SRC, 4,
	     "[source] xdp_mode = skb: generic (SKB) mode is slower and can silently lose large frames; prefer native");
	WARN("[source]\ninterface = lo\nqueue = 2\n", NO_SRC, 3, "[source] queue = 2: ignored with type = af_packet");
	WARN("[source]\ninterface = lo\nxsk_rx_ring = 4K\n", NO_SRC, 3,
	     "[source] xsk_rx_ring = 4K: ignored with type = af_packet");
	CLEAN("[source]\ntype = af_xdp\ninterface = lo\nxsk_rx_ring = 4K\nxsk_fill_ring = 8K\nxsk_frames = 12K\n"
	      "xsk_busy_poll = yes\n", NO_SRC);
	ERR("[source]\ntype = af_xdp\ninterface = lo\nxsk_rx_ring = 3000\n", NO_SRC, 4,
	    "[source] xsk_rx_ring = 3000: not a power of two");
	ERR("[source]\ntype = af_xdp\ninterface = lo\nxsk_fill_ring = 512K\n", NO_SRC, 4,
	    "[source] xsk_fill_ring = 512K: above 256K entries (262144)");
	ERR("[source]\ntype = af_xdp\ninterface = lo\nxsk_frames = 32\n", NO_SRC, 4,
	    "[source] xsk_frames = 32: below 64 frames");
	ERR("[source]\ntype = af_xdp\ninterface = lo\nxsk_fill_ring = 4K\nxsk_frames = 2K\n", NO_SRC, 5,
	    "[source] xsk_frames = 2K: fewer UMEM frames than xsk_fill_ring entries (4096): the fill ring could never be full");
	WARN("[source]\ntype = af_xdp\ninterface = lo\nxsk_frames = 96K\n", NO_SRC, 4,
	     "[source] xsk_frames = 96K: fewer than xsk_rx_ring + xsk_fill_ring (131072): in a burst that fills the rx ring "
	     "the fill ring runs dry and the kernel drops frames (xsk_fill_ring_empty)");
	WARN("[source]\ninterface = lo\npcap_loop = 2\n", NO_SRC, 3,
	     "[source] pcap_loop = 2: ignored with type = af_packet");

	char pcap[256];
	tmp_path(pcap, sizeof pcap, "p.pcap");
	static const uint8_t hdr[4] = { 0xa1, 0xb2, 0xc3, 0xd4 };
	FILE *f = fopen(pcap, "wb");
	fwrite(hdr, 1, 4, f);
	fclose(f);
	ERR("[source]\ntype = pcap\npcap_file = p.pcap\npcap_pace = slow\n", NO_SRC, 4,
	    "[source] pcap_pace = slow: not a pace (recorded, fast, or a speed factor such as 2 or 0.5)");
	ERR("[source]\ntype = pcap\npcap_file = p.pcap\npcap_pace = 0\n", NO_SRC, 4,
	    "[source] pcap_pace = 0: speed factor below 0.001");
	ERR("[source]\ntype = pcap\npcap_file = p.pcap\npcap_pace = 2000\n", NO_SRC, 4,
	    "[source] pcap_pace = 2000: speed factor above 1000 (use fast)");
	ERR("[source]\ntype = pcap\npcap_file = p.pcap\npcap_loop = 1000001\n", NO_SRC, 4,
	    "[source] pcap_loop = 1000001: above 1000000");
	ERR("[source]\ntype = pcap\npcap_file = p.pcap\npcap_loop = always\n", NO_SRC, 4,
	    "[source] pcap_loop = always: not a count (0..1000000, 0 or forever = endless)");
	WARN("[source]\ntype = pcap\npcap_file = p.pcap\ninterface = lo\n", NO_SRC, 4,
	     "[source] interface = lo: ignored with type = pcap");
	ERR("[source]\ntype = pcap\n", NO_SRC, 2, "[source] pcap_file: not set (type = pcap replays a capture file)");
	snprintf(e, sizeof e, "[source] pcap_file = nosuch.pcap: cannot open %s/nosuch.pcap: No such file or directory",
		 g_dir);
	ERR("[source]\ntype = pcap\npcap_file = nosuch.pcap\n", NO_SRC, 3, e);
	write_file(pcap, "not a capture\n");
	snprintf(e, sizeof e, "[source] pcap_file = %s: %s is not a pcap or pcapng file", pcap, pcap);
	char head[PATH_MAX * 2];
	snprintf(head, sizeof head, "[source]\ntype = pcap\npcap_file = %s\n", pcap);
	ERR(head, NO_SRC, 3, e);
	unlink(pcap);
}

static void test_ports(void)
{
	static const char *const bad_ips[] = { "10.0.0.256", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1..2.3", "a.b.c.d",
					       "1.2.3.4 ", "-1.2.3.4", "1.2.3.1000" };
	char head[256], e[512];
	for (size_t i = 0; i < sizeof bad_ips / sizeof bad_ips[0]; i++) {
		snprintf(head, sizeof head, "[port]\nip = %s\nnetmask = 24\n", bad_ips[i]);
		/* inih trims the value: "1.2.3.4 " is read as 1.2.3.4 */
		if (strcmp(bad_ips[i], "1.2.3.4 ") == 0) {
			CLEAN(head, 0);
			continue;
		}
		snprintf(e, sizeof e, "[port] ip = %s: not an IPv4 address (a.b.c.d, each part 0..255)", bad_ips[i]);
		ERR(head, 0, 2, e);
	}
	static const char *const not_host[] = { "0.0.0.0", "127.0.0.1", "224.0.0.1", "255.255.255.255" };
	for (size_t i = 0; i < sizeof not_host / sizeof not_host[0]; i++) {
		snprintf(head, sizeof head, "[port]\nip = %s\nnetmask = 8\n", not_host[i]);
		snprintf(e, sizeof e,
			 "[port] ip = %s: not a host address (0.0.0.0, 127.0.0.0/8, multicast and broadcast are not)",
			 not_host[i]);
		ERR(head, 0, 2, e);
	}
	ERR("[port]\nip = 10.1.0.2\nnetmask = 255.0.255.0\n", 0, 3,
	    "[port] netmask = 255.0.255.0: not a netmask (a.b.c.d with contiguous ones, or a prefix length 1..32)");
	ERR("[port]\nip = 10.1.0.2\nnetmask = 0.0.0.0\n", 0, 3,
	    "[port] netmask = 0.0.0.0: not a netmask (a.b.c.d with contiguous ones, or a prefix length 1..32)");
	ERR("[port]\nip = 10.1.0.2\nnetmask = 33\n", 0, 3,
	    "[port] netmask = 33: not a netmask (a.b.c.d, or a prefix length 1..32)");
	ERR("[port]\nip = 10.1.0.2\nnetmask = /0\n", 0, 3,
	    "[port] netmask = /0: not a netmask (a.b.c.d, or a prefix length 1..32)");
	CLEAN("[port]\nip = 10.1.0.2\nnetmask = /30\n", 0);
	CHECK_EQ(g_cfg->port[0].netmask, 0xfffffffc);
	CLEAN("[port]\nip = 10.1.0.2\nnetmask = 255.255.0.0\n", 0);
	CHECK_EQ(g_cfg->port[0].netmask, 0xffff0000);
	ERR("[port]\nip = 10.1.0.2\n", 0, 2, "[port] ip = 10.1.0.2: needs a netmask");
	ERR("[port]\nip = 10.1.0.0\nnetmask = 24\n", 0, 2, "[port] ip = 10.1.0.0: the network address of 10.1.0.0/24");
	ERR("[port]\nip = 10.1.0.255\nnetmask = 24\n", 0, 2,
	    "[port] ip = 10.1.0.255: the broadcast address of 10.1.0.0/24");
	ERR("[port]\nip = 10.1.0.2\nnetmask = 24\ngateway = 10.2.0.1\n", 0, 4,
	    "[port] gateway = 10.2.0.1: not in the port's subnet 10.1.0.0/24");
	ERR("[port]\nip = 10.1.0.2\nnetmask = 24\ngateway = 10.1.0.2\n", 0, 4,
	    "[port] gateway = 10.1.0.2: the port's own address");
	WARN("[port]\ngateway = 10.1.0.1\n", 0, 2, "[port] gateway = 10.1.0.1: ignored without an ip");
	WARN("[port]\nnetmask = 24\n", 0, 2, "[port] netmask = 24: ignored without an ip");

	ERR("[port]\nmac = 01:00:5e:00:00:01\n", 0, 2,
	    "[port] mac = 01:00:5e:00:00:01: a multicast MAC (the low bit of the first byte is set)");
	ERR("[port]\nmac = 00:00:00:00:00:00\n", 0, 2, "[port] mac = 00:00:00:00:00:00: the all-zero MAC");
	ERR("[port]\nmac = 02:00:00:00:00\n", 0, 2, "[port] mac = 02:00:00:00:00: not a MAC address (xx:xx:xx:xx:xx:xx)");
	ERR("[port]\nmac = 02:00:00-00:00:01\n", 0, 2,
	    "[port] mac = 02:00:00-00:00:01: not a MAC address (xx:xx:xx:xx:xx:xx)");
	ERR("[port]\nmac = 02:00:00:00:00:0g\n", 0, 2,
	    "[port] mac = 02:00:00:00:00:0g: not a MAC address (xx:xx:xx:xx:xx:xx)");
	ERR("[port]\nrole = master\n", 0, 2, "[port] role = master: must be one of: mirror, tcp, udp");
	ERR("[port]\nvlan = 4095\n", 0, 2, "[port] vlan = 4095: above 4094 (4095 is reserved)");
	ERR("[port]\nvlan = -1\n", 0, 2, "[port] vlan = -1: below 0");
	ERR("[port]\nverify_checksums = maybe\n", 0, 2, "[port] verify_checksums = maybe: must be auto, yes or no");
	ERR("[port]\nrole = udp\n", NO_FEED, 2, "[port] role = udp: needs an ip");
	/* the software backend: up to four ports, each from an interface of its own */
	ERR("[port.1]\n", 0, 1,
	    "[port.1] interface: not set (the software backend receives port 1 from an interface of its own, "
	    "type = af_packet)");
	ERR("[port.2]\ninterface = lo\n", 0, 2,
	    "[port.2] interface = lo: already the interface of [port]: one interface feeds one port (each port's "
	    "af_packet source takes the whole interface)");
	ERR("[port.1]\ninterface = eth1\n[port.3]\ninterface = eth1\n", 0, 4,
	    "[port.3] interface = eth1: already the interface of [port.1]: one interface feeds one port (each "
	    "port's af_packet source takes the whole interface)");
	ERR("[port]\ninterface = eth0\n", 0, 2,
	    "[port] interface = eth0: [source] interface is set too (line 4): port 0's interface is given in one "
	    "place");
	ERR("[source]\ntype = af_xdp\ninterface = eth0\nqueue = 1\n[port.0]\nqueue = 2\n", NO_SRC, 6,
	    "[port.0] queue = 2: [source] queue is set too (line 4): port 0's queue is given in one place");
	/* the same values in both places: what a written-back file says (fuzz_config) */
	CLEAN("[source]\ntype = af_xdp\ninterface = eth0\nqueue = 1\n[port.0]\ninterface = eth0\nqueue = 1\n", NO_SRC);
	ERR("[source]\ntype = af_xdp\ninterface = eth0\n[port.1]\ninterface = eth0\nqueue = 1\n", NO_SRC, 5,
	    "[port.1] interface = eth0: already the interface of [port]: one interface feeds one port (each port's "
	    "af_xdp source takes the whole interface)");
	WARN("[port.1]\ninterface = eth1\nqueue = 3\n", 0, 3, "[port.1] queue = 3: ignored with type = af_packet");
	ERR("[port.1]\ninterface = x/y\n", 0, 2, "[port.1] interface = x/y: not a valid interface name");
	CLEAN("[source]\ntype = af_xdp\nxsk_frames = 128K\n[port]\ninterface = eth0\nqueue = 2\n"
	      "[port.1]\ninterface = eth1\n[port.3]\ninterface = eth3\nqueue = 5\n"
	      "[feed.one]\nexchange = 10.0.0.1:5261\nport = 1\n"
	      "[feed.three]\nprotocol = udp\nvendor = *:6000\nport = 3\n"
	      "[feed.zero]\nprotocol = udp\nvendor = *:6000\n",
	      NO_SRC);
	CHECK(strcmp(toed_port_interface(g_cfg, 0), "eth0") == 0 && toed_port_queue(g_cfg, 0) == 2);
	CHECK(strcmp(toed_port_interface(g_cfg, 1), "eth1") == 0 && toed_port_queue(g_cfg, 1) == 0);
	CHECK(!g_cfg->port[2].enabled);
	CHECK(strcmp(toed_port_interface(g_cfg, 3), "eth3") == 0 && toed_port_queue(g_cfg, 3) == 5);
	/* [source] keeps serving port 0 */
	CLEAN("[source]\ntype = af_xdp\ninterface = eth0\nqueue = 4\n[port.2]\ninterface = eth2\n"
	      "[feed.two]\nexchange = 10.0.0.1:5261\nport = 2\n",
	      NO_SRC);
	CHECK(strcmp(toed_port_interface(g_cfg, 0), "eth0") == 0 && toed_port_queue(g_cfg, 0) == 4);
	CHECK(strcmp(toed_port_interface(g_cfg, 2), "eth2") == 0 && toed_port_queue(g_cfg, 2) == 0);
	WARN("[port.1]\ninterface = eth1\n[record]\npcap = /tmp/x.pcap\n", 0, 4,
	     "[record] pcap = /tmp/x.pcap: the frames of all 2 ports go to this one file, without the port each came "
	     "in on (a replay of it is port 0 alone)");
	/* port 0 may take its interface in [port] alone */
	CLEAN("[port]\ninterface = eth9\n", NO_SRC);
	CHECK(strcmp(toed_port_interface(g_cfg, 0), "eth9") == 0);
	ERR("[port]\nrole = mirror\n", NO_SRC, 0,
	    "[source] interface: not set (type = af_packet captures from a network interface)");
	/* connections (role = tcp) on port 0 only */
	CLEAN("[port]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n", 0);
	CHECK(g_cfg->port[0].role == TOED_ROLE_TCP);
	ERR_ANY("[source]\ntype = pcap\npcap_file = /nonexistent.pcap\n[port]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n",
		NO_SRC, 5, "[port] role = tcp: a pcap replay cannot send: connections need [source] type = af_xdp or af_packet");
	ERR("[port.1]\ninterface = eth1\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n", 0, 3,
	    "[port.1] role = tcp: the software backend holds its own connections on port 0 only (ports 1..3 receive: "
	    "mirror or udp)");
	/* open = accept: toed listens on vendor's port for the exchange's connection */
	CLEAN("[port]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n[feed.a]\nexchange = 10.1.0.9\nvendor = *:7000\n"
	      "open = accept\n", NO_FEED);
	CHECK(g_cfg->feed[0].open == TOED_OPEN_ACCEPT && g_cfg->feed[0].vendor.port == 7000);
	ERR("[port]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n[feed.a]\nexchange = 10.1.0.9\nvendor = 10.1.0.2\n"
	    "open = accept\n", NO_FEED, 7,
	    "[feed.a] vendor = 10.1.0.2: open = accept listens on this port: give it (address:port or *:port)");
	ERR("[port]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n[feed.a]\nexchange = *:5261\nvendor = *:7000\n"
	    "open = accept\n", NO_FEED, 6,
	    "[feed.a] exchange = *:5261: open = accept takes a connection from this address only: give it (address, "
	    "or address:port)");
	ERR("[feed.a]\nexchange = 10.0.0.1:5261\nopen = accept\n", NO_FEED, 3,
	    "[feed.a] open = accept: port 0 has role = mirror: only a role = tcp port holds connections it can accept");
	/* one listener per port: two accepting feeds on one vendor port refused */
	ERR("[port]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n[feed.a]\nexchange = 10.1.0.9\nvendor = *:7000\n"
	    "open = accept\n[feed.b]\nexchange = 10.1.0.8\nvendor = *:7000\nopen = accept\n", NO_FEED, 11,
	    "[feed.b] vendor = *:7000: open = accept: port 7000 already listened on by [feed.a]");
	ERR("[feed.a]\nexchange = 10.0.0.1:5261\nopen = listen\n", NO_FEED, 3,
	    "[feed.a] open = listen: must be one of: connect, accept");
	ERR("[port.4]\n", 0, 1, "[port.4]: port number above 3 (the card has 4 ports)");
	ERR("[port.x]\n", 0, 1, "[port.x]: not a port number (port.0 .. port.3)");
	ERR("[port.01]\n", 0, 1, "[port.01]: not a port number (port.0 .. port.3)");

	/* the card: several ports, macs required for tcp/udp, no duplicate addresses */
	char xcl[PATH_MAX + 32], text[2048];
	tmp_path(xcl, sizeof xcl, "card.xclbin");
	write_file(xcl, "xclbin2");
	snprintf(text, sizeof text,
		 "[device]\nbackend = xrt\nxclbin = card.xclbin\n"
		 "[port.0]\nrole = mirror\n"
		 "[port.1]\nrole = udp\nip = 10.1.0.2\nnetmask = 24\nmac = 02:00:00:00:00:01\n"
		 "[port.3]\nrole = udp\nip = 10.2.0.2\nnetmask = 24\nmac = 02:00:00:00:00:02\n"
		 "[feed.m]\nexchange = 10.9.0.1:5261\n"
		 "[feed.u]\nprotocol = udp\nvendor = *:6000\n"
		 "[fast]\ntemplates = %s\n",
		 g_tpl);
	expect_clean(__LINE__, text);
	CHECK(g_cfg->port[0].enabled && g_cfg->port[1].enabled && !g_cfg->port[2].enabled && g_cfg->port[3].enabled);
	ERR("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\n[port.1]\nrole = udp\nip = 10.1.0.2\n"
	    "netmask = 24\n",
	    NO_SRC, 6, "[port.1] role = udp: needs a mac (backend = xrt)");
	/* role = tcp on the card: port 0's general TOE (gtoe_top) connects and listens (open = accept);
	 * the STEP session runs on the host, fed the session messages through the ring (accepted) */
	snprintf(text, sizeof text,
		 "[device]\nbackend = xrt\nxclbin = card.xclbin\n"
		 "[port.0]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\ngateway = 10.1.0.1\nmac = 02:00:00:00:00:01\n"
		 "[feed.a]\nexchange = 10.9.0.1:5261\nvendor = *:40001\n"
		 "[fast]\ntemplates = %s\n",
		 g_tpl);
	expect_clean(__LINE__, text);
	CHECK(g_cfg->device.backend == TOED_BACKEND_XRT && g_cfg->port[0].role == TOED_ROLE_TCP);
	snprintf(text, sizeof text,
		 "[device]\nbackend = xrt\nxclbin = card.xclbin\n"
		 "[port.0]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\nmac = 02:00:00:00:00:01\n"
		 "[feed.a]\nexchange = 10.9.0.1\nvendor = *:7000\nopen = accept\n"
		 "[fast]\ntemplates = %s\n",
		 g_tpl);
	expect_clean(__LINE__, text);
	CHECK(g_cfg->device.backend == TOED_BACKEND_XRT && g_cfg->feed[0].open == TOED_OPEN_ACCEPT);
	snprintf(text, sizeof text,
		 "[device]\nbackend = xrt\nxclbin = card.xclbin\n"
		 "[port.0]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\ngateway = 10.1.0.1\nmac = 02:00:00:00:00:01\n"
		 "[feed.a]\nexchange = 10.9.0.1:5261\nvendor = *:40001\ntarget_comp_id = SSE\nsender_comp_id = VENDOR01\n"
		 "heartbeat_s = 5\n"
		 "[fast]\ntemplates = %s\n",
		 g_tpl);
	expect_clean(__LINE__, text);
	CHECK(g_cfg->device.backend == TOED_BACKEND_XRT && toed_feed_has_session(&g_cfg->feed[0]));
	CHECK(!strcmp(g_cfg->feed[0].sender_comp_id, "VENDOR01") && g_cfg->feed[0].heartbeat_s == 5);
	/* sequence tracking and A/B groups run on the host's pipeline, which the card path does not run:
	 * refused, never a silent no-op */
	snprintf(text, sizeof text,
		 "[device]\nbackend = xrt\nxclbin = card.xclbin\n[feed.a]\nexchange = 10.9.0.1:5261\ngroup = ab\n"
		 "[fast]\ntemplates = %s\n",
		 g_tpl);
	ERR(text, NO_SRC | NO_FAST, 6,
	    "[feed.a] group = ab: backend = xrt: A/B arbitration runs in the software backend only (the card's "
	    "records do not name their feed yet)");
	snprintf(text, sizeof text, "[device]\nbackend = xrt\nxclbin = card.xclbin\n[fast]\ntemplates = %s\n"
		 "sequence_check = yes\n", g_tpl);
	ERR(text, NO_SRC | NO_FAST, 6,
	    "[fast] sequence_check = yes: backend = xrt: sequence tracking runs in the software backend only (the "
	    "card does not track sequences yet)");
	/* and on ports 1..3 never: gtoe_top serves port 0, as the software backend's connections */
	ERR("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\n[port.1]\nrole = tcp\nip = 10.1.0.2\n"
	    "netmask = 24\nmac = 02:00:00:00:00:01\n",
	    NO_SRC, 6, "[port.1] role = tcp: the card's general TOE (gtoe_top) serves port 0 only (ports 1..3 of the "
		       "4 x 10G card receive: mirror, main or udp)");
	ERR("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\n[port.1]\nip = 10.1.0.2\nnetmask = 24\n"
	    "[port.2]\nip = 10.1.0.2\nnetmask = 16\n",
	    NO_SRC, 9, "[port.2] ip = 10.1.0.2: already used by [port.1]");
	ERR("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port]\nmac = 02:00:00:00:00:01\n[port.1]\n"
	    "mac = 02:00:00:00:00:01\n",
	    NO_SRC, 7, "[port.1] mac = 02:00:00:00:00:01: already used by [port]");
	/* a feed on port 1 of the card: the configuration holds it; whether the loaded xclbin has the port
	 * is the data plane's check (test_xrt_program: the 100G xclbin refuses it, the 4 x 10G one runs it);
	 * an interface cannot be done */
	snprintf(text, sizeof text,
		 "[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\n[port.1]\n[feed.c]\nexchange = 10.9.0.1:5261\n"
		 "port = 1\n[fast]\ntemplates = %s\n",
		 g_tpl);
	expect_clean(__LINE__, text);
	CHECK_EQ(g_cfg->feed[0].port, 1);
	ERR("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\ninterface = eth0\n", NO_SRC, 5,
	    "[port.0] interface = eth0: the card receives on its own network ports (backend = xrt): only the "
	    "software backend captures from an interface");
	ERR("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\nqueue = 1\n", NO_SRC, 5,
	    "[port.0] queue = 1: the card receives on its own network ports (backend = xrt): only the "
	    "software backend captures from an interface");
	/* "interface =" with no name is the default (none), as the configuration written back says it
	 * (found by fuzz_config: a card's configuration written back did not load) */
	snprintf(text, sizeof text,
		 "[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\ninterface = \n[feed.c]\n"
		 "exchange = 10.9.0.1:5261\n[fast]\ntemplates = %s\n",
		 g_tpl);
	expect_clean(__LINE__, text);
	/* a feed on a port that is not configured (on the card, port 0 is not implicit once any [port] exists) */
	ERR("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.1]\n", NO_SRC, 7,
	    "[feed.base] port = 0 (default): no [port] or [port.0] section");
	unlink(xcl);
}

static void test_feeds(void)
{
	ERR("[feed.a]\nexchange = 10.0.0.1:0\n", NO_FEED, 2, "[feed.a] exchange = 10.0.0.1:0: port 0 is not 1..65535");
	ERR("[feed.a]\nexchange = 10.0.0.1:65536\n", NO_FEED, 2,
	    "[feed.a] exchange = 10.0.0.1:65536: port 65536 is not 1..65535");
	ERR("[feed.a]\nexchange = 10.0.0.1:abc\n", NO_FEED, 2,
	    "[feed.a] exchange = 10.0.0.1:abc: not an endpoint (address:port, address, or * for any part, e.g. "
	    "10.0.0.1:5261)");
	ERR("[feed.a]\nexchange = 10.0.0.300:5261\n", NO_FEED, 2,
	    "[feed.a] exchange = 10.0.0.300:5261: not an endpoint (address:port, address, or * for any part, e.g. "
	    "10.0.0.1:5261)");
	ERR("[feed.a]\nexchange = *:*\n", NO_FEED, 2,
	    "[feed.a] exchange = *:*: matches every connection: give the address, the port or both");
	ERR("[feed.a]\n", NO_FEED, 1, "[feed.a] exchange: not set (a tcp feed names the exchange's server, address:port)");
	CLEAN("[feed.a]\nexchange = *:5261\n", NO_FEED);
	CHECK(g_cfg->feed[0].exchange.ip == 0 && g_cfg->feed[0].exchange.port == 5261);
	CLEAN("[feed.a]\nexchange = 10.0.0.1\n", NO_FEED);
	CHECK(g_cfg->feed[0].exchange.ip == 0x0a000001 && g_cfg->feed[0].exchange.port == 0);
	ERR("[feed.a]\nexchange = 10.0.0.1:1\nprotocol = sctp\n", NO_FEED, 3,
	    "[feed.a] protocol = sctp: must be one of: tcp, udp");
	ERR("[feed.a]\nexchange = 10.0.0.1:1\nframing = raw\n", NO_FEED, 3,
	    "[feed.a] framing = raw: a tcp feed is a byte stream: only step framing can find its messages");
	ERR("[feed.a]\nexchange = 10.0.0.1:1\nframing = fix\n", NO_FEED, 3,
	    "[feed.a] framing = fix: must be one of: step, raw, datagram");
	ERR("[feed.a]\nexchange = 10.0.0.1:1\nstream = bad name!\n", NO_FEED, 3,
	    "[feed.a] stream = bad name!: not a name (1 to 31 letters, digits, '_', '-' or '.')");
	ERR("[feed.a]\nexchange = 10.0.0.1:1\nport = 4\n", NO_FEED, 3,
	    "[feed.a] port = 4: above 3 (the card has 4 ports, 0..3)");
	ERR_ANY("[feed.a]\nexchange = 10.0.0.1:1\nport = 1\n", NO_FEED, 3, "[feed.a] port = 1: no [port.1] section");
	ERR("[feed]\n", 0, 1, "[feed]: a feed section needs a name: [feed.NAME]");
	ERR("[feed.a b]\n", 0, 1, "[feed.a b]: not a feed name (1 to 31 letters, digits, '_', '-' or '.')");
	ERR("[feed.a]\nexchange = 10.0.0.1:1\n[feed.b]\nexchange = 10.0.0.2:1\nstream = a\n", NO_FEED, 5,
	    "[feed.b] stream = a: stream name already used by [feed.a]");
	WARN("[feed.a]\nexchange = 10.0.0.1:1\n[feed.b]\nexchange = 10.0.0.1:1\n", NO_FEED, 4,
	     "[feed.b] exchange = 10.0.0.1:1: follows the same connections as [feed.a]");
	/* udp feeds */
	ERR("[feed.u]\nprotocol = udp\n", NO_FEED, 1,
	    "[feed.u] vendor: not set (a udp feed names where the datagrams go: address:port or *:port)");
	ERR("[feed.u]\nprotocol = udp\nvendor = 239.1.1.1\n", NO_FEED, 3,
	    "[feed.u] vendor = 239.1.1.1: needs a port (a udp feed is the datagrams sent to this port)");
	ERR("[feed.u]\nprotocol = udp\nvendor = *:6000\n[feed.v]\nprotocol = udp\nvendor = 10.0.0.9:6000\n", NO_FEED, 6,
	    "[feed.v] vendor = 10.0.0.9:6000: udp port 6000 already taken by [feed.u]");
	CLEAN("[feed.u]\nprotocol = udp\nvendor = *:6000\nframing = raw\n", NO_FEED);
	CHECK_EQ(g_cfg->feed[0].framing, TOED_FRAMING_RAW);
	CLEAN("[feed.u]\nprotocol = udp\nvendor = :6000\n", NO_FEED);
	CHECK_EQ(g_cfg->feed[0].framing, TOED_FRAMING_STEP); /* [fast] framing default */
	CHECK_EQ(g_cfg->feed[0].vendor.port, 6000);
	/* 64 feeds fit, the 65th does not */
	char *text = malloc(65 * 64 + 64);
	size_t o = 0;
	for (int i = 0; i < 65; i++)
		o += (size_t)sprintf(text + o, "[feed.f%d]\nexchange = 10.0.%d.1:5261\n", i, i);
	ERR(text, NO_FEED, 129, "[feed.f64]: more than 64 feeds");
	free(text);
	/* nothing to decode */
	WARN("", NO_FEED, 0, "no [feed.NAME] section and no [udp] ports: nothing will be decoded");
	CLEAN("[udp]\nports = 5000\n", NO_FEED);
}

static void test_tcp_udp(void)
{
	/* the MSS rules of the task: 1460 accepted, 1461 refused, 1400 warned, 1408 silent */
	ERR("[tcp]\nmss = 1500\n", 0, 2, "[tcp] mss = 1500: above 1460 (the largest MSS of a 1500-byte MTU)");
	ERR("[tcp]\nmss = 1461\n", 0, 2, "[tcp] mss = 1461: above 1460 (the largest MSS of a 1500-byte MTU)");
	/* 1460 is not a multiple of 64: accepted with the alignment warning */
	WARN("[tcp]\nmss = 1460\n", 0, 2,
	     "[tcp] mss = 1460: not a multiple of 64 (receive buffers are 64-byte aligned; 1408 is the largest "
	     "multiple of 64 up to 1460)");
	CHECK_EQ(g_cfg->tcp.mss, 1460);
	WARN("[tcp]\nmss = 1400\n", 0, 2,
	     "[tcp] mss = 1400: not a multiple of 64 (receive buffers are 64-byte aligned; 1408 is the largest "
	     "multiple of 64 up to 1460)");
	CLEAN("[tcp]\nmss = 1408\n", 0);
	CHECK_EQ(g_cfg->tcp.mss, 1408);
	CLEAN("[tcp]\nmss = 576\n", 0);
	ERR("[tcp]\nmss = 535\n", 0, 2, "[tcp] mss = 535: below 536 (the smallest MSS every IPv4 host must accept)");
	ERR("[tcp]\nmss = 1408B\n", 0, 2, "[tcp] mss = 1408B: not a number");
	ERR("[tcp]\nmss = 99999999999999999999\n", 0, 2, "[tcp] mss = 99999999999999999999: out of range");
	ERR("[tcp]\nconnections = 0\n", 0, 2, "[tcp] connections = 0: below 1");
	ERR("[tcp]\nconnections = 257\n", 0, 2, "[tcp] connections = 257: above 256 (the size of the connection table)");
	ERR("[tcp]\nwindow = 1000\n", 0, 2, "[tcp] window = 1000: not a power of two");
	ERR("[tcp]\nwindow = 32\n", 0, 2, "[tcp] window = 32: below 64 bytes");
	ERR("[tcp]\nwindow = 2M\n", 0, 2, "[tcp] window = 2M: above 1M (1048576 bytes)");
	ERR("[tcp]\nwindow = 32Q\n", 0, 2, "[tcp] window = 32Q: not a number (digits, optionally followed by K, M or G)");
	ERR("[tcp]\nwindow = 512\n", 0, 2, "[tcp] window = 512: smaller than one segment (mss = 1408)");
	CLEAN("[tcp]\nwindow = 1M\n", 0);
	CHECK_EQ(g_cfg->tcp.window, 1048576);
	CLEAN("[tcp]\nwindow = 2048\nmss = 1024\n", 0);
	ERR("[tcp]\ngap_timeout_ms = 60001\n", 0, 2, "[tcp] gap_timeout_ms = 60001: above 60000 (one minute)");
	ERR("[tcp]\nidle_timeout_s = 86401\n", 0, 2, "[tcp] idle_timeout_s = 86401: above 86400 (one day)");

	ERR("[udp]\nports = 0\n", 0, 2, "[udp] ports = 0: '0': ports are 1..65535");
	ERR("[udp]\nports = 5000, 65536\n", 0, 2, "[udp] ports = 5000, 65536: '65536': ports are 1..65535");
	ERR("[udp]\nports = 6000-5000\n", 0, 2, "[udp] ports = 6000-5000: '6000-5000': the range is reversed");
	ERR("[udp]\nports = 5000 abc\n", 0, 2,
	    "[udp] ports = 5000 abc: 'abc' is not a port or a range (1..65535, or lo-hi)");
	ERR("[udp]\nports = 5000-\n", 0, 2, "[udp] ports = 5000-: '5000-' is not a port or a range (1..65535, or lo-hi)");
	ERR("[udp]\nports = -5\n", 0, 2, "[udp] ports = -5: '-5' is not a port or a range (1..65535, or lo-hi)");
	WARN("[udp]\nports = 5000, 4990-5010\n", 0, 2, "[udp] ports = 5000, 4990-5010: port 5000 listed twice");
	CHECK_EQ(g_cfg->udp.nports, 21);
	CLEAN("[udp]\nports = 1-65535\n", 0);
	CHECK_EQ(g_cfg->udp.nports, 65535);
	CHECK(toed_udp_listened(g_cfg, 1) && toed_udp_listened(g_cfg, 65535) && !toed_udp_listened(g_cfg, 0));
	CLEAN("[udp]\nports =\n", 0);
	CHECK_EQ(g_cfg->udp.nports, 0);
}

static void test_fast(void)
{
	char e[PATH_MAX * 3], head[PATH_MAX * 2], path[PATH_MAX + 32];
	snprintf(e, sizeof e, "[fast] templates = nosuch.xml: %s/nosuch.xml:0: cannot open: No such file or directory",
		 g_dir);
	ERR("[fast]\ntemplates = nosuch.xml\n", NO_FAST, 2, e);
	/* the default, relative, is looked for next to the file */
	snprintf(e, sizeof e,
		 "[fast] templates = %s/templates/sse-l2-3201-5801.xml (default): %s/templates/sse-l2-3201-5801.xml:0: "
		 "cannot open: No such file or directory",
		 g_dir, g_dir);
	char dd[PATH_MAX];
	snprintf(dd, sizeof dd, "%s/%s", TOED_DATADIR, TOED_DEF_TEMPLATES);
	if (access(dd, F_OK) < 0) /* else an installed copy is found there */
		ERR("[log]\n", NO_FAST, 0, e);
	ERR("[fast]\ntemplates = \n", NO_FAST, 2, "[fast] templates: not set (the FAST template file)");
	ERR_ANY("[fast]\nframing = frame\n", NO_FAST, 2, "[fast] framing = frame: must be one of: step, raw, datagram");

	/* an XML error: the compiler's "file:line: reason" after the config line that named the file */
	tmp_path(path, sizeof path, "bad.xml");
	write_file(path, "<?xml version=\"1.0\"?>\n"
			 "<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
			 "  <template name=\"T\" id=\"1\">\n"
			 "    <uInt32 name=\"A\" id=\"1\"><copy/></uInt32\n"
			 "  </template>\n"
			 "</templates>\n");
	snprintf(e, sizeof e, "%s:3: [fast] templates = bad.xml: %s:", g_conf, path);
	load(compose("[tcp]\n[fast]\ntemplates = bad.xml\n", NO_FAST));
	CHECK(has_prefix(e));
	CHECK_EQ(g_diag.errors, 1);
	CHECK(g_diag.n >= 1 && strstr(g_diag.msg[0].text, "XML error") != NULL);
	/* well-formed but wrong: the compiler names the element's line (4) */
	write_file(path, "<?xml version=\"1.0\"?>\n"
			 "<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
			 "  <template name=\"T\" id=\"1\">\n"
			 "    <uInt32 name=\"A\" id=\"1\"><bogus/></uInt32>\n"
			 "  </template>\n"
			 "</templates>\n");
	snprintf(e, sizeof e, "%s:2: [fast] templates = %s: %s:4: ", g_conf, path, path);
	snprintf(head, sizeof head, "[fast]\ntemplates = %s\n", path);
	load(compose(head, NO_FAST));
	CHECK(has_prefix(e));
	CHECK_EQ(g_diag.errors, 1);
	if (!has_prefix(e))
		toed_diag_print(&g_diag, stderr);
	/* a file whose templates map to no tick record: warned */
	write_file(path, "<?xml version=\"1.0\"?>\n"
			 "<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">\n"
			 "  <template name=\"T\" id=\"1\">\n"
			 "    <uInt32 name=\"A\" id=\"1\"><copy/></uInt32>\n"
			 "  </template>\n"
			 "</templates>\n");
	WARN("[fast]\ntemplates = bad.xml\n", NO_FAST, 2,
	     "[fast] templates = bad.xml: no template maps to a tick record (trades 3201, orders 5801): nothing will be "
	     "published");
	CHECK_EQ(g_cfg->fast.have_prog, 1);
	unlink(path);

	/* relative: next to the config file; the compiled program is the file's */
	char *xml = read_file(g_tpl);
	tmp_path(path, sizeof path, "tpl.xml");
	write_file(path, xml);
	free(xml);
	CLEAN("[fast]\ntemplates = tpl.xml\n", NO_FAST);
	CHECK(strcmp(g_cfg->fast.templates, path) == 0);
	CHECK_EQ(g_cfg->fast.prog.ntpl, 2);
	unlink(path);
}

static void test_shm_dataplane_log_record(void)
{
	ERR("[shm]\nhugepages = some\n", 0, 2, "[shm] hugepages = some: not auto, off or a number of 2 MB pages");
	ERR("[shm]\nhugepages = 65537\n", 0, 2, "[shm] hugepages = 65537: above 65536 (128 GB of 2 MB pages)");
	CLEAN("[shm]\nhugepages = off\n", 0);
	CHECK_EQ(g_cfg->shm.hugepages, TOED_HUGE_OFF);
	CLEAN("[shm]\nhugepages = 0\n", 0);
	CHECK(g_cfg->shm.hugepages == TOED_HUGE_COUNT && g_cfg->shm.hugepage_count == 0);
	ERR("[shm]\nring_size = 100\n", 0, 2, "[shm] ring_size = 100: not a power of two");
	ERR("[shm]\nring_size = 32\n", 0, 2, "[shm] ring_size = 32: below 64 records");
	ERR("[shm]\nring_size = 2M\n", 0, 2, "[shm] ring_size = 2M: above 1M records (1048576)");
	ERR("[shm]\nmax_clients = 0\n", 0, 2, "[shm] max_clients = 0: below 1");
	ERR("[shm]\nmax_clients = 4097\n", 0, 2, "[shm] max_clients = 4097: above 4096");
	ERR("[shm]\nsocket = run/toed.sock\n", 0, 2, "[shm] socket = run/toed.sock: not an absolute path");
	char head[256], e[512], longp[160];
	memset(longp, 'a', 120);
	longp[0] = '/';
	longp[120] = 0;
	snprintf(head, sizeof head, "[shm]\nsocket = %s\n", longp);
	snprintf(e, sizeof e, "[shm] socket = %s: longer than 107 bytes (the limit of a Unix socket path)", longp);
	ERR(head, 0, 2, e);
	ERR("[shm]\nsocket_group = nosuchgroup-h9\n", 0, 2, "[shm] socket_group = nosuchgroup-h9: no such group");
	CLEAN("[shm]\nsocket_group = root\n", 0);
	CLEAN("[shm]\nsocket_group = 12345\n", 0);
	ERR("[shm]\nsocket_mode = 0778\n", 0, 2, "[shm] socket_mode = 0778: not an octal mode 0000..0777");
	ERR("[shm]\nsocket_mode = 1777\n", 0, 2, "[shm] socket_mode = 1777: not an octal mode 0000..0777");
	ERR("[shm]\nsocket_mode = rw\n", 0, 2, "[shm] socket_mode = rw: not an octal mode 0000..0777");
	WARN("[shm]\nsocket_mode = 0666\n", 0, 2,
	     "[shm] socket_mode = 0666: world-writable: any local user can connect and subscribe");
	/* the control socket's limits; a budget must hold one ring of ring_size (whole pages) */
	CLEAN("[shm]\nmax_clients_per_uid = 0\nhandshake_timeout_ms = 100\nring_memory_per_uid_mb = 0\n", 0);
	CHECK(g_cfg->shm.max_clients_per_uid == 0 && g_cfg->shm.handshake_timeout_ms == 100);
	ERR("[shm]\nhandshake_timeout_ms = 50\n", 0, 2,
	    "[shm] handshake_timeout_ms = 50: below 100 ms (a busy client could not make it)");
	ERR("[shm]\nring_memory_mb = 1\n", 0, 2,
	    "[shm] ring_memory_mb = 1: smaller than one ring of ring_size = 8192 records (2052 KiB): nobody could "
	    "subscribe");
	CLEAN("[shm]\nring_memory_mb = 2\nhugepages = off\n", 0); /* 1 MiB + 4 KiB + 4 KiB in normal pages */
	ERR("[shm]\nring_memory_per_uid_mb = 1\nring_size = 16384\nhugepages = off\n", 0, 2,
	    "[shm] ring_memory_per_uid_mb = 1: smaller than one ring of ring_size = 16384 records (2056 KiB): no user "
	    "but root could subscribe (0 means no per-user budget)");
	/* max_clients against the hard descriptor limit (lowered in a child: it cannot be raised again) */
	fflush(NULL);
	pid_t k = fork();
	if (k == 0) {
		struct rlimit rl = {.rlim_cur = 512, .rlim_max = 512};
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(3);
		int bad = load(compose("[shm]\nmax_clients = 256\n", 0)) == -1 &&
			  has_prefix(g_conf) && g_diag.errors == 1 &&
			  strstr(g_diag.msg[0].text, "[shm] max_clients = 256: needs about 720 file descriptors, but the "
						     "limit is 512") != NULL;
		int ok = load(compose("[shm]\nmax_clients = 100\n", 0)) == 0;
		_exit(bad && ok ? 0 : 1);
	}
	int wst = 0;
	waitpid(k, &wst, 0);
	CHECK(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);

	ERR("[dataplane]\ncpu = 1024\n", 0, 2, "[dataplane] cpu = 1024: not a CPU number (0..1023, or none)");
	ERR("[dataplane]\ncpu = -1\n", 0, 2, "[dataplane] cpu = -1: not a CPU number (0..1023, or none)");
	ERR("[dataplane]\ncpu = any\n", 0, 2, "[dataplane] cpu = any: not a CPU number (0..1023, or none)");
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu > 0 && ncpu <= 1023) {
		snprintf(head, sizeof head, "[dataplane]\ncpu = %ld\n", ncpu);
		snprintf(e, sizeof e, "[dataplane] cpu = %ld: no such CPU (this machine has CPUs 0..%ld)", ncpu, ncpu - 1);
		ERR(head, 0, 2, e);
		snprintf(head, sizeof head, "[dataplane]\ncpu = %ld\n", ncpu - 1);
		CLEAN(head, 0);
		CHECK_EQ(g_cfg->dataplane.cpu, ncpu - 1);
	}
	ERR("[dataplane]\npriority = 100\n", 0, 2, "[dataplane] priority = 100: above 99 (the highest SCHED_FIFO priority)");
	ERR("[dataplane]\nbusy_poll = sometimes\n", 0, 2, "[dataplane] busy_poll = sometimes: must be yes or no");
	WARN("[dataplane]\npriority = 10\nbusy_poll = yes\n", 0, 2,
	     "[dataplane] priority = 10: a busy-polling SCHED_FIFO thread without a cpu of its own can starve whatever "
	     "shares its CPU");
	CLEAN("[dataplane]\npriority = 10\nbusy_poll = yes\ncpu = 0\n", 0);

	ERR("[log]\nlevel = verbose\n", 0, 2, "[log] level = verbose: must be one of: error, warning, notice, info, debug");
	ERR("[log]\ntarget = syslog\n", 0, 2, "[log] target = syslog: must be one of: journal, stderr");

	ERR("[record]\npcap = /nonexistent-dir-h9/x.pcap\n", 0, 2,
	    "[record] pcap = /nonexistent-dir-h9/x.pcap: directory /nonexistent-dir-h9 does not exist");
	ERR("[record]\nticks = /tmp/\n", 0, 2, "[record] ticks = /tmp/: names a directory, not a file");
	snprintf(e, sizeof e, "[record] ticks = out: the same file as [record] pcap");
	ERR("[record]\npcap = out\nticks = out\n", 0, 3, e);
	CLEAN("[record]\npcap = /tmp/x.pcap\nticks =\n", 0);
	CHECK(strcmp(g_cfg->record.pcap, "/tmp/x.pcap") == 0 && g_cfg->record.ticks[0] == 0);
}

/* A failed load leaves the output untouched; diag accumulates across loads. */
static void test_failure_keeps_output(void)
{
	struct toed_config *c = malloc(sizeof *c), *copy = malloc(sizeof *copy);
	memset(c, 0xab, sizeof *c);
	memcpy(copy, c, sizeof *c);
	CHECK_EQ(load_into(compose("[tcp]\nmss = 9000\n", 0), c), -1);
	CHECK(memcmp(c, copy, sizeof *c) == 0);
	/* appending: two loads into one diag */
	toed_diag_init(&g_diag);
	write_file(g_conf, compose("[tcp]\nmss = 9000\n", 0));
	toed_config_load(g_conf, c, &g_diag);
	toed_config_load(g_conf, c, &g_diag);
	CHECK_EQ(g_diag.errors, 2);
	CHECK_EQ(g_diag.n, 2);
	/* overflow of the message array is counted */
	char *text = malloc(100 * 40 + 16);
	size_t o = (size_t)sprintf(text, "[tcp]\n");
	for (int i = 0; i < 100; i++)
		o += (size_t)sprintf(text + o, "bad%d = 1\n", i);
	load(compose(text, 0));
	CHECK_EQ(g_diag.errors, 100);
	CHECK_EQ(g_diag.n, TOED_DIAG_MAX);
	CHECK_EQ(g_diag.dropped, 100 - TOED_DIAG_MAX);
	/* the printer: one line each, then the count of the rest */
	FILE *f = tmpfile();
	toed_diag_print(&g_diag, f);
	rewind(f);
	char line[1024];
	int lines = 0, more = 0;
	while (fgets(line, sizeof line, f)) {
		lines++;
		if (strcmp(line, "... and 36 more\n") == 0)
			more = 1;
	}
	fclose(f);
	CHECK_EQ(lines, TOED_DIAG_MAX + 1);
	CHECK(more);
	free(text);
	free(c);
	free(copy);
}

/* ---- reload --------------------------------------------------------------------------- */

static void test_key_table(void)
{
	static const struct {
		int key;
		const char *sec, *name;
		int live;
	} spec[] = {
		{ TOED_K_DEVICE_BACKEND, "device", "backend", 0 },
		{ TOED_K_DEVICE_PCI, "device", "pci", 0 },
		{ TOED_K_DEVICE_XCLBIN, "device", "xclbin", 0 },
		{ TOED_K_SOURCE_TYPE, "source", "type", 0 },
		{ TOED_K_SOURCE_INTERFACE, "source", "interface", 0 },
		{ TOED_K_SOURCE_QUEUE, "source", "queue", 0 },
		{ TOED_K_SOURCE_XDP_MODE, "source", "xdp_mode", 0 },
		{ TOED_K_SOURCE_PCAP_FILE, "source", "pcap_file", 0 },
		{ TOED_K_SOURCE_PCAP_PACE, "source", "pcap_pace", 1 },
		{ TOED_K_SOURCE_PCAP_LOOP, "source", "pcap_loop", 1 },
		{ TOED_K_SOURCE_XSK_RX_RING, "source", "xsk_rx_ring", 0 },
		{ TOED_K_SOURCE_XSK_FILL_RING, "source", "xsk_fill_ring", 0 },
		{ TOED_K_SOURCE_XSK_FRAMES, "source", "xsk_frames", 0 },
		{ TOED_K_SOURCE_XSK_BUSY_POLL, "source", "xsk_busy_poll", 0 },
		{ TOED_K_PORT_IP, "port", "ip", 0 },
		{ TOED_K_PORT_NETMASK, "port", "netmask", 0 },
		{ TOED_K_PORT_GATEWAY, "port", "gateway", 0 },
		{ TOED_K_PORT_MAC, "port", "mac", 0 },
		{ TOED_K_PORT_ROLE, "port", "role", 0 },
		{ TOED_K_PORT_VLAN, "port", "vlan", 0 },
		{ TOED_K_PORT_VERIFY_CHECKSUMS, "port", "verify_checksums", 0 },
		{ TOED_K_PORT_INTERFACE, "port", "interface", 0 },
		{ TOED_K_PORT_QUEUE, "port", "queue", 0 },
		{ TOED_K_FEED_EXCHANGE, "feed", "exchange", 0 },
		{ TOED_K_FEED_VENDOR, "feed", "vendor", 0 },
		{ TOED_K_FEED_PROTOCOL, "feed", "protocol", 0 },
		{ TOED_K_FEED_FRAMING, "feed", "framing", 0 },
		{ TOED_K_FEED_STREAM, "feed", "stream", 0 },
		{ TOED_K_FEED_PORT, "feed", "port", 0 },
		{ TOED_K_FEED_GROUP, "feed", "group", 0 },
		{ TOED_K_FEED_SENDER_COMP_ID, "feed", "sender_comp_id", 0 },
		{ TOED_K_FEED_TARGET_COMP_ID, "feed", "target_comp_id", 0 },
		{ TOED_K_FEED_HEARTBEAT_S, "feed", "heartbeat_s", 0 },
		{ TOED_K_FEED_USERNAME, "feed", "username", 0 },
		{ TOED_K_FEED_PASSWORD_FILE, "feed", "password_file", 0 },
		{ TOED_K_FEED_RESET_ON_LOGON, "feed", "reset_on_logon", 0 },
		{ TOED_K_FEED_OPEN, "feed", "open", 0 },
		{ TOED_K_FEED_MSS, "feed", "mss", 0 },
		{ TOED_K_FEED_WINDOW, "feed", "window", 0 },
		{ TOED_K_TCP_MSS, "tcp", "mss", 0 },
		{ TOED_K_TCP_CONNECTIONS, "tcp", "connections", 0 },
		{ TOED_K_TCP_WINDOW, "tcp", "window", 0 },
		{ TOED_K_TCP_GAP_TIMEOUT_MS, "tcp", "gap_timeout_ms", 1 },
		{ TOED_K_TCP_IDLE_TIMEOUT_S, "tcp", "idle_timeout_s", 1 },
		{ TOED_K_UDP_PORTS, "udp", "ports", 0 },
		{ TOED_K_FAST_TEMPLATES, "fast", "templates", 0 },
		{ TOED_K_FAST_FRAMING, "fast", "framing", 0 },
		{ TOED_K_FAST_SEQUENCE_CHECK, "fast", "sequence_check", 0 },
		{ TOED_K_FAST_ARBITRATION_WAIT_US, "fast", "arbitration_wait_us", 0 },
		{ TOED_K_FAST_SEQUENCE_FIELDS, "fast", "sequence_fields", 0 },
		{ TOED_K_FAST_DECODER, "fast", "decoder", 1 },
		{ TOED_K_SHM_HUGEPAGES, "shm", "hugepages", 0 },
		{ TOED_K_SHM_RING_SIZE, "shm", "ring_size", 0 },
		{ TOED_K_SHM_MAX_CLIENTS, "shm", "max_clients", 0 },
		{ TOED_K_SHM_MAX_CLIENTS_PER_UID, "shm", "max_clients_per_uid", 0 },
		{ TOED_K_SHM_HANDSHAKE_TIMEOUT_MS, "shm", "handshake_timeout_ms", 0 },
		{ TOED_K_SHM_RING_MEMORY_MB, "shm", "ring_memory_mb", 0 },
		{ TOED_K_SHM_RING_MEMORY_PER_UID_MB, "shm", "ring_memory_per_uid_mb", 0 },
		{ TOED_K_SHM_SOCKET, "shm", "socket", 0 },
		{ TOED_K_SHM_SOCKET_GROUP, "shm", "socket_group", 0 },
		{ TOED_K_SHM_SOCKET_MODE, "shm", "socket_mode", 0 },
		{ TOED_K_DATAPLANE_CPU, "dataplane", "cpu", 1 },
		{ TOED_K_DATAPLANE_PRIORITY, "dataplane", "priority", 1 },
		{ TOED_K_DATAPLANE_BUSY_POLL, "dataplane", "busy_poll", 1 },
		{ TOED_K_DATAPLANE_TRACE, "dataplane", "trace", 1 },
		{ TOED_K_LOG_LEVEL, "log", "level", 1 },
		{ TOED_K_LOG_TARGET, "log", "target", 1 },
		{ TOED_K_RECORD_PCAP, "record", "pcap", 1 },
		{ TOED_K_RECORD_TICKS, "record", "ticks", 1 },
	};
	CHECK_EQ(sizeof spec / sizeof spec[0], TOED_K_COUNT);
	for (size_t i = 0; i < sizeof spec / sizeof spec[0]; i++) {
		const char *n = toed_key_name((enum toed_key)spec[i].key);
		const char *s = toed_key_section((enum toed_key)spec[i].key);
		CHECK(n && strcmp(n, spec[i].name) == 0);
		CHECK(s && strcmp(s, spec[i].sec) == 0);
		CHECK_EQ(toed_key_is_live((enum toed_key)spec[i].key), spec[i].live);
	}
	CHECK(toed_key_name(TOED_K_COUNT) == NULL);
	CHECK_EQ(toed_key_is_live(TOED_K_FEED_SECTION), 0);
}

static void diff_has(const struct toed_diff *d, const char *text)
{
	char line[1024];
	for (uint32_t i = 0; i < d->n; i++) {
		toed_change_format(&d->ch[i], line, sizeof line);
		if (strcmp(line, text) == 0) {
			test_checks++;
			return;
		}
	}
	test_checks++;
	test_failures++;
	fprintf(stderr, "diff lacks \"%s\"; it has:\n", text);
	toed_diff_print(d, stderr);
}

static void test_diff(void)
{
	struct toed_config *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	struct toed_diff *d = malloc(sizeof *d);
	char text[4096];
	const char *old_text = "[source]\ninterface = lo\n[feed.base]\nexchange = 10.0.0.1:5261\n"
			       "[feed.gone]\nexchange = 10.0.0.3:5261\n[fast]\ntemplates = %s\n";
	snprintf(text, sizeof text, old_text, g_tpl);
	CHECK_EQ(load_into(text, a), 0);
	CHECK_EQ(load_into(text, b), 0);
	CHECK_EQ(toed_config_diff(a, b, d), 0);
	CHECK_EQ(d->n, 0);
	CHECK_EQ(toed_config_diff(a, b, NULL), 0);

	/* live keys only */
	snprintf(text, sizeof text,
		 "[source]\ninterface = lo\n[feed.base]\nexchange = 10.0.0.1:5261\n[feed.gone]\nexchange = 10.0.0.3:5261\n"
		 "[fast]\ntemplates = %s\n[log]\nlevel = debug\ntarget = stderr\n[tcp]\ngap_timeout_ms = 100\n"
		 "idle_timeout_s = 10\n[dataplane]\ncpu = 0\npriority = 5\nbusy_poll = yes\n[record]\npcap = /tmp/r.pcap\n",
		 g_tpl);
	CHECK_EQ(load_into(text, b), 0);
	CHECK_EQ(toed_config_diff(a, b, d), TOED_CHANGE_LIVE);
	CHECK_EQ(d->n, 8);
	CHECK_EQ(d->live, 8);
	CHECK_EQ(d->restart, 0);
	diff_has(d, "[log] level changed (info -> debug): applied");
	diff_has(d, "[log] target changed (journal -> stderr): applied");
	diff_has(d, "[tcp] gap_timeout_ms changed (50 -> 100): applied");
	diff_has(d, "[tcp] idle_timeout_s changed (300 -> 10): applied");
	diff_has(d, "[dataplane] cpu changed (none -> 0): applied");
	diff_has(d, "[dataplane] priority changed (0 -> 5): applied");
	diff_has(d, "[dataplane] busy_poll changed (no -> yes): applied");
	diff_has(d, "[record] pcap changed (none -> /tmp/r.pcap): applied");
	/* applying them makes the running config equal to the new one */
	struct toed_config *run = malloc(sizeof *run);
	memcpy(run, a, sizeof *run);
	toed_config_apply_live(run, b);
	CHECK_EQ(toed_config_diff(run, b, d), 0);
	CHECK_EQ(run->log.level, TOED_LOG_DEBUG);
	CHECK_EQ(run->tcp.gap_timeout_ms, 100);

	/* restart keys, sections added, removed, changed; live ones mixed in */
	snprintf(text, sizeof text,
		 "[source]\ninterface = lo2\n[feed.base]\nexchange = 10.0.0.2:5261\n[feed.new]\nexchange = 10.0.0.4:1\n"
		 "[fast]\ntemplates = %s\n[log]\nlevel = debug\n[shm]\nmax_clients = 10\nsocket = /tmp/t.sock\n"
		 "[tcp]\nmss = 1344\n[udp]\nports = 5000-5002\n",
		 g_tpl);
	CHECK_EQ(load_into(text, b), 0);
	CHECK_EQ(toed_config_diff(a, b, d), TOED_CHANGE_LIVE | TOED_CHANGE_RESTART);
	CHECK_EQ(d->live, 1);
	CHECK_EQ(d->restart, 8);
	diff_has(d, "[log] level changed (info -> debug): applied");
	diff_has(d, "[source] interface changed (lo -> lo2): needs a restart");
	diff_has(d, "[shm] max_clients changed (256 -> 10): needs a restart");
	diff_has(d, "[shm] socket changed (/run/toed/toed.sock -> /tmp/t.sock): needs a restart");
	diff_has(d, "[tcp] mss changed (1408 -> 1344): needs a restart");
	diff_has(d, "[udp] ports changed (none -> 5000-5002): needs a restart");
	diff_has(d, "[feed.base] exchange changed (10.0.0.1:5261 -> 10.0.0.2:5261): needs a restart");
	diff_has(d, "[feed.new] added: needs a restart");
	diff_has(d, "[feed.gone] removed: needs a restart");
	/* the running config takes only the live one */
	memcpy(run, a, sizeof *run);
	toed_config_apply_live(run, b);
	CHECK_EQ(run->log.level, TOED_LOG_DEBUG);
	CHECK(strcmp(run->source.interface, "lo") == 0);
	CHECK_EQ(run->shm.max_clients, 256);
	CHECK_EQ(run->tcp.mss, 1408);
	CHECK_EQ(run->nfeeds, 2);
	CHECK_EQ(toed_config_diff(run, b, d), TOED_CHANGE_RESTART);
	CHECK_EQ(d->live, 0);
	CHECK_EQ(d->restart, 8);

	/* pace and ports */
	char pcap[PATH_MAX + 32];
	tmp_path(pcap, sizeof pcap, "d.pcap");
	static const uint8_t hdr[4] = { 0xd4, 0xc3, 0xb2, 0xa1 };
	FILE *f = fopen(pcap, "wb");
	fwrite(hdr, 1, 4, f);
	fclose(f);
	CHECK_EQ(load_into(compose("[source]\ntype = pcap\npcap_file = d.pcap\n", NO_SRC), a), 0);
	CHECK_EQ(load_into(compose("[source]\ntype = pcap\npcap_file = d.pcap\npcap_pace = 0.5\npcap_loop = 0\n"
				   "[port]\nip = 10.1.0.2\nnetmask = 24\nvlan = 5\n",
				   NO_SRC),
			   b),
		 0);
	CHECK_EQ(toed_config_diff(a, b, d), TOED_CHANGE_LIVE | TOED_CHANGE_RESTART);
	diff_has(d, "[source] pcap_pace changed (recorded -> 0.5): applied");
	diff_has(d, "[source] pcap_loop changed (1 -> forever): applied");
	diff_has(d, "[port.0] vlan changed (0 -> 5): needs a restart");
	diff_has(d, "[port.0] ip changed (none -> 10.1.0.2): needs a restart");
	diff_has(d, "[port.0] netmask changed (none -> 255.255.255.0): needs a restart");
	CHECK_EQ(d->n, 5);
	memcpy(run, a, sizeof *run);
	toed_config_apply_live(run, b);
	CHECK_EQ(run->source.pcap_pace, TOED_PACE_FACTOR);
	CHECK(run->source.pcap_speed > 0.49 && run->source.pcap_speed < 0.51);
	CHECK_EQ(run->port[0].ip, 0);
	unlink(pcap);

	/* a port section added (card) */
	char xcl[PATH_MAX + 32];
	tmp_path(xcl, sizeof xcl, "card.xclbin");
	write_file(xcl, "xclbin2");
	CHECK_EQ(load_into(compose("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\n", NO_SRC), a), 0);
	CHECK_EQ(load_into(compose("[device]\nbackend = xrt\nxclbin = card.xclbin\n[port.0]\n[port.2]\n", NO_SRC), b), 0);
	CHECK_EQ(toed_config_diff(a, b, d), TOED_CHANGE_RESTART);
	CHECK_EQ(d->n, 1);
	diff_has(d, "[port.2] added: needs a restart");
	CHECK_EQ(toed_config_diff(b, a, d), TOED_CHANGE_RESTART);
	diff_has(d, "[port.2] removed: needs a restart");
	unlink(xcl);

	/* a port's interface, a port added (software backend) */
	CHECK_EQ(load_into(compose("[port.1]\ninterface = eth1\n", 0), a), 0);
	CHECK_EQ(load_into(compose("[port.1]\ninterface = eth2\n", 0), b), 0);
	CHECK_EQ(toed_config_diff(a, b, d), TOED_CHANGE_RESTART);
	CHECK_EQ(d->n, 1);
	diff_has(d, "[port.1] interface changed (eth1 -> eth2): needs a restart");
	CHECK_EQ(load_into(compose("[port.1]\ninterface = eth1\n[port.2]\ninterface = eth2\n", 0), b), 0);
	CHECK_EQ(toed_config_diff(a, b, d), TOED_CHANGE_RESTART);
	diff_has(d, "[port.2] added: needs a restart");

	/* same template path, new content */
	char tpl[PATH_MAX + 32];
	tmp_path(tpl, sizeof tpl, "t.xml");
	char *xml = read_file(g_tpl);
	write_file(tpl, xml);
	CHECK_EQ(load_into(compose("[fast]\ntemplates = t.xml\n", NO_FAST), a), 0);
	char *p = strstr(xml, "decimalPlaces=\"3\"");
	CHECK(p != NULL);
	if (p)
		p[15] = '2'; /* another scale: another program */
	write_file(tpl, xml);
	CHECK_EQ(load_into(compose("[fast]\ntemplates = t.xml\n", NO_FAST), b), 0);
	if (g_diag.errors)
		toed_diag_print(&g_diag, stderr);
	CHECK_EQ(toed_config_diff(a, b, d), TOED_CHANGE_RESTART);
	CHECK_EQ(d->n, 1);
	CHECK(d->n && d->ch[0].key == TOED_K_FAST_PROGRAM);
	diff_has(d, "[fast] templates: the file's content changed: needs a restart");
	free(xml);
	unlink(tpl);

	/* an invalid reload leaves the running config alone */
	memcpy(run, a, sizeof *run);
	CHECK_EQ(load_into(compose("[tcp]\nmss = 1\n", 0), run), -1);
	CHECK(memcmp(run, a, sizeof *run) == 0);

	/* many feeds: changes beyond TOED_DIFF_MAX are counted, not stored */
	char *big = malloc(64 * 96);
	size_t o = 0;
	for (int i = 0; i < 60; i++)
		o += (size_t)sprintf(big + o, "[feed.f%d]\nexchange = 10.0.%d.1:5261\nvendor = 10.1.0.%d:*\n", i, i, i + 1);
	CHECK_EQ(load_into(compose(big, NO_FEED), a), 0);
	o = 0;
	for (int i = 0; i < 60; i++)
		o += (size_t)sprintf(big + o, "[feed.f%d]\nexchange = 10.0.%d.2:5262\nvendor = 10.1.0.%d:*\n", i, i, i + 2);
	CHECK_EQ(load_into(compose(big, NO_FEED), b), 0);
	CHECK_EQ(toed_config_diff(a, b, d), TOED_CHANGE_RESTART);
	CHECK_EQ(d->restart, 120);
	CHECK_EQ(d->n, TOED_DIFF_MAX);
	CHECK_EQ(d->dropped, 120 - TOED_DIFF_MAX);
	free(big);
	free(run);
	free(a);
	free(b);
	free(d);
}

/* ---- data-path helpers --------------------------------------------------------------- */

static void test_helpers(void)
{
	CLEAN("[port]\nip = 10.1.0.2\nnetmask = 24\nmac = 02:00:00:00:00:07\nvlan = 7\nverify_checksums = no\n"
	      "[tcp]\nconnections = 16\nwindow = 8K\ngap_timeout_ms = 20\nidle_timeout_s = 60\n"
	      "[feed.a]\nexchange = 10.0.0.1:5261\nvendor = 10.1.0.2:*\n"
	      "[feed.u]\nprotocol = udp\nvendor = *:6000\n"
	      "[feed.b]\nexchange = *:5262\n",
	      NO_FEED);
	struct mtoe_cfg *m = malloc(sizeof *m);
	uint16_t ff[TOED_MAX_FEEDS];
	CHECK_EQ(dp_setup_mtoe(g_cfg, 0, m, ff), 2);
	CHECK_EQ(m->max_conns, 16);
	CHECK_EQ(m->window, 8192);
	CHECK_EQ(m->gap_timeout_ns, 20000000ull);
	CHECK_EQ(m->idle_timeout_ns, 60000000000ull);
	CHECK_EQ(m->flows[0].ex_addr, 0x0a000001);
	CHECK_EQ(m->flows[0].ex_port, 5261);
	CHECK_EQ(m->flows[0].peer_addr, 0x0a010002);
	CHECK_EQ(m->flows[0].peer_port, 0);
	CHECK_EQ(ff[0], 0);
	CHECK_EQ(m->flows[1].ex_addr, 0);
	CHECK_EQ(m->flows[1].ex_port, 5262);
	CHECK_EQ(ff[1], 2); /* the udp feed is not a flow */
	CHECK_EQ(dp_setup_mtoe(g_cfg, 1, m, NULL), 0);
	/* the mirror TOE accepts what the config produced */
	dp_setup_mtoe(g_cfg, 0, m, NULL);
	struct mtoe *mt = malloc(sizeof *mt);
	uint8_t *buf = malloc(MTOE_BUF_BYTES(16, 8192));
	CHECK_EQ(mtoe_init(mt, m, buf, MTOE_BUF_BYTES(16, 8192)), MTOE_OK);
	free(buf);
	free(mt);
	free(m);

	struct net_cfg n;
	dp_setup_net(g_cfg, 0, &n);
	CHECK_EQ(n.naddr, 1);
	CHECK_EQ(n.addr[0].ip, 0x0a010002);
	CHECK_EQ(n.addr[0].mask, 0xffffff00);
	CHECK_EQ(n.addr[0].mac[5], 7);
	CHECK_EQ(n.addr[0].vlan, 7);
	CHECK_EQ(n.flags & (NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM), 0);
	CHECK_EQ(n.flags & NET_CFG_FILTER_DST, 0); /* a mirror port */
	dp_setup_net(g_cfg, 1, &n);             /* not configured: defaults */
	CHECK_EQ(n.naddr, 0);
	CHECK_EQ(n.flags, NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM);
	CLEAN("[port]\nrole = udp\nip = 10.1.0.2\nnetmask = 24\n[udp]\nports = 5000\n", NO_FEED);
	dp_setup_net(g_cfg, 0, &n); /* af_packet (the default source), verify_checksums = auto */
	CHECK_EQ(n.flags, NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM | NET_CFG_CSUM_HINTS | NET_CFG_FILTER_DST);

	/* verify_checksums = auto decides by source: AF_PACKET's per-frame word is trusted, AF_XDP
	 * (no word) verifies, a pcap file is not verified (Wireshark's default); yes and no are kept */
	CLEAN("[port]\n", 0);
	dp_setup_net(g_cfg, 0, &n);
	CHECK_EQ(n.flags, NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM | NET_CFG_CSUM_HINTS);
	CLEAN("[port]\nverify_checksums = yes\n", 0);
	dp_setup_net(g_cfg, 0, &n);
	CHECK_EQ(n.flags, NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM);
	CLEAN("[port]\nverify_checksums = AUTO\n[source]\ntype = af_xdp\ninterface = lo\n", NO_SRC);
	dp_setup_net(g_cfg, 0, &n);
	CHECK_EQ(n.flags, NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM);
	char cap[300];
	tmp_path(cap, sizeof cap, "cap.pcap");
	{ /* an empty capture: the pcap file header alone (little endian, v2.4, snaplen 65535, Ethernet) */
		static const unsigned char hdr[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0,
						       0,    0,    0,    0,    0xff, 0xff, 0, 0, 1, 0, 0, 0 };
		FILE *f = fopen(cap, "wb");
		CHECK(f != NULL);
		if (f) {
			fwrite(hdr, 1, sizeof hdr, f);
			fclose(f);
		}
	}
	CLEAN("[source]\ntype = pcap\npcap_file = cap.pcap\n", NO_SRC);
	dp_setup_net(g_cfg, 0, &n);
	CHECK_EQ(n.flags, 0);
	CLEAN("[port]\nverify_checksums = on\n[source]\ntype = pcap\npcap_file = cap.pcap\n", NO_SRC);
	dp_setup_net(g_cfg, 0, &n);
	CHECK_EQ(n.flags, NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM);
	unlink(cap);
	CLEAN("[port]\nverify_checksums = no\n", 0);
	dp_setup_net(g_cfg, 0, &n);
	CHECK_EQ(n.flags, 0);

	CHECK(strcmp(toed_backend_name(TOED_BACKEND_XRT), "xrt") == 0);
	CHECK(strcmp(toed_source_type_name(TOED_SRC_AF_XDP), "af_xdp") == 0);
	CHECK(strcmp(toed_role_name(TOED_ROLE_UDP), "udp") == 0);
	CHECK(strcmp(toed_log_level_name(TOED_LOG_NOTICE), "notice") == 0);
}

/* ---- limits of the reader (issue 10, item 7) ---------------------------------------------- */

static void alarm_fail(int sig)
{
	(void)sig;
	static const char m[] = "test_config.c: test_limits: a load took 20 s (blocked on a FIFO, or reading without end)\n";
	if (write(2, m, sizeof m - 1) < 0)
		_exit(1);
	_exit(1);
}

/* Load path; expect -1 and the one message "path: tail" (or "path:line: tail"). */
static void expect_file(int tl, const char *path, unsigned line, const char *tail)
{
	char exp[2048];
	if (line)
		snprintf(exp, sizeof exp, "%s:%u: %s", path, line, tail);
	else
		snprintf(exp, sizeof exp, "%s: %s", path, tail);
	toed_diag_init(&g_diag);
	int rc = toed_config_load(path, g_cfg, &g_diag);
	test_checks++;
	if (rc != -1 || !has_msg(exp)) {
		test_failures++;
		fprintf(stderr, "test_config.c:%d: expected \"%s\", got %d:\n", tl, exp, rc);
		toed_diag_print(&g_diag, stderr);
	}
}

static void test_limits(void)
{
	char p[300], e[2048];
	/* without the limits these loads block or grow without end: fail instead of hanging */
	signal(SIGALRM, alarm_fail);
	alarm(20);
	/* only regular files: no device, no directory, and a FIFO is refused without blocking */
	expect_file(__LINE__, "/dev/zero", 0, "not a regular file (a character device): a configuration is a text file");
	expect_file(__LINE__, "/dev/null", 0, "not a regular file (a character device): a configuration is a text file");
	expect_file(__LINE__, g_dir, 0, "not a regular file (a directory): a configuration is a text file");
	tmp_path(p, sizeof p, "fifo.conf");
	if (mkfifo(p, 0600) == 0) {
		expect_file(__LINE__, p, 0, "not a regular file (a FIFO): a configuration is a text file");
		unlink(p);
	} else {
		fprintf(stderr, "test_config: no FIFO case: mkfifo: %s\n", strerror(errno));
	}

	/* a size bound: refused before a byte is read */
	size_t big = TOED_CONFIG_MAX_BYTES + 1;
	char *text = malloc(big + 1);
	memset(text, '#', big);
	text[big] = 0;
	tmp_path(p, sizeof p, "big.conf");
	write_file(p, text);
	snprintf(e, sizeof e, "%zu bytes: larger than 1048576 bytes (1 MiB), not a toed configuration", big);
	expect_file(__LINE__, p, 0, e);
	/* exactly at the bound: read (a comment only, so the usual complaints, no size error) */
	text[TOED_CONFIG_MAX_BYTES] = 0;
	write_file(p, text);
	toed_diag_init(&g_diag);
	CHECK_EQ(toed_config_load(p, g_cfg, &g_diag), -1);
	for (uint32_t i = 0; i < g_diag.n; i++)
		CHECK(strstr(g_diag.msg[i].text, "1 MiB") == NULL);
	unlink(p);

	/* a line bound: a 100 KB line is one error on its line, and the lines after it are read */
	size_t ll = 100000, hl = ll + 1024;
	char *head = malloc(hl);
	size_t o = (size_t)snprintf(head, hl, "[tcp]\nmss = 1344\n");
	memset(head + o, 'x', ll);
	o += ll;
	snprintf(head + o, hl - o, "\nwindow = 3K\n%s", compose("", 0)); /* compose() holds 16 KB */
	load(head);
	snprintf(e, sizeof e, "%s:3: line longer than %d bytes", g_conf, TOED_CONFIG_MAX_LINE);
	CHECK(has_msg(e));
	snprintf(e, sizeof e, "%s:4: [tcp] window = 3K: not a power of two", g_conf);
	CHECK(has_msg(e));
	CHECK_EQ(g_diag.errors, 2);
	/* a long section header: its keys are not taken for the previous section's */
	o = (size_t)snprintf(head, hl, "[tcp]\n[");
	memset(head + o, 'x', ll);
	o += ll;
	snprintf(head + o, hl - o, "]\nmss = 1\n%s", compose("", 0));
	load(head);
	CHECK_EQ(g_diag.errors, 1);
	free(head);

	/* from memory: the same parser, the same bounds */
	const char *good = compose("", 0);
	toed_diag_init(&g_diag);
	CHECK_EQ(toed_config_load_mem(g_conf, good, strlen(good), g_cfg, &g_diag), 0);
	CHECK(strcmp(g_cfg->source.interface, "lo") == 0 && g_cfg->fast.have_prog);
	CHECK(strcmp(g_cfg->path, g_conf) == 0);
	toed_diag_init(&g_diag);
	CHECK_EQ(toed_config_load_mem("mem.conf", "[tcp]\nmss = 1\n", 14, g_cfg, &g_diag), -1);
	CHECK(has_prefix("mem.conf:2: [tcp] mss = 1: below 536"));
	toed_diag_init(&g_diag);
	memset(text, '#', big);
	CHECK_EQ(toed_config_load_mem("mem.conf", text, big, g_cfg, &g_diag), -1);
	CHECK(has_msg("mem.conf: 1048577 bytes: larger than 1048576 bytes (1 MiB), not a toed configuration"));
	free(text);

	/* files the configuration names are regular files too (a FIFO would block the check) */
	snprintf(e, sizeof e, "[fast] templates = /dev/zero: /dev/zero is a character device, not a template file");
	ERR("[fast]\ntemplates = /dev/zero\n", NO_FAST, 2, e);
	tmp_path(p, sizeof p, "in.fifo");
	if (mkfifo(p, 0600) == 0) {
		char h[512];
		snprintf(h, sizeof h, "[source]\ntype = pcap\npcap_file = %s\n", p);
		snprintf(e, sizeof e, "[source] pcap_file = %s: %s is a FIFO, not a capture file", p, p);
		ERR(h, NO_SRC, 3, e);
		snprintf(h, sizeof h, "[device]\nbackend = xrt\nxclbin = %s\n", p);
		snprintf(e, sizeof e, "[device] xclbin = %s: %s is a FIFO, not a regular file (backend = xrt loads it)", p,
			 p);
		ERR_ANY(h, NO_SRC, 3, e);
		/* and a FIFO to record into: opening it to write would block until a reader comes */
		snprintf(h, sizeof h, "[record]\nticks = %s\n", p);
		snprintf(e, sizeof e, "[record] ticks = %s: %s is a FIFO, not a file to record into", p, p);
		ERR(h, 0, 2, e);
		unlink(p);
	}

	/* huge pages: no more than the rings can use, no more than half the machine */
	ERR("[shm]\nmax_clients = 2\nhugepages = 131\n", 0, 3,
	    "[shm] hugepages = 131: more than the rings can use: 2 clients with rings of at most 1048576 records "
	    "take at most 130 pages");
	CLEAN("[shm]\nmax_clients = 2\nhugepages = 130\n", 0);
	struct sysinfo si;
	CHECK_EQ(sysinfo(&si), 0);
	unsigned long long half = (unsigned long long)si.totalram * si.mem_unit / 2 / (2u << 20);
	load(compose("[shm]\nmax_clients = 4096\nhugepages = 0\n", 0));
	CHECK_EQ(toed_hugepages_max(g_cfg), half < 4096ull * 65 ? half : 4096ull * 65);
	if (half < 65536 && half < 4096ull * 65) {
		snprintf(e, sizeof e, "[shm] hugepages = 65536: more than half of this machine's memory (%llu MB): at most %llu pages",
			 (unsigned long long)si.totalram * si.mem_unit >> 20, half);
		ERR("[shm]\nmax_clients = 4096\nhugepages = 65536\n", 0, 3, e);
	}
	/* the default (256 clients) refuses what issue 10 reserved, 65536 pages */
	CHECK_EQ(load(compose("[shm]\nhugepages = 65536\n", 0)), -1);
	CHECK_EQ(g_diag.errors, 1);
	snprintf(e, sizeof e, "%s:2: [shm] hugepages = 65536: more than ", g_conf);
	CHECK(has_prefix(e));
	alarm(0);
}

/* Arbitration groups: feeds naming a group are its lines in file order; limits; the pipeline's settings. */
static void test_groups(void)
{
	const char *fast = "[fast]\ntemplates = %s\nsequence_check = yes\narbitration_wait_us = 250\n";
	char head[4096];
	int o = snprintf(head, sizeof head, fast, g_tpl);
	snprintf(head + o, sizeof head - (size_t)o,
		 "[feed.a1]\nexchange = 10.0.0.1:5261\ngroup = ab\n"
		 "[feed.x]\nexchange = 10.0.0.9:5261\n"
		 "[feed.a2]\nexchange = 10.0.0.2:5261\ngroup = ab\n"
		 "[feed.u1]\nprotocol = udp\nvendor = *:6000\ngroup = cd\n"
		 "[feed.c2]\nexchange = 10.0.0.3:5261\ngroup = cd\n");
	CLEAN(head, NO_FAST | NO_FEED);
	CHECK_EQ(g_cfg->fast.sequence_check, 1);
	CHECK_EQ(g_cfg->fast.arbitration_wait_us, 250);
	CHECK(strcmp(g_cfg->feed[0].group, "ab") == 0);
	CHECK_EQ(g_cfg->feed[1].group[0], 0);
	struct rx_cfg *rc = malloc(sizeof *rc);
	uint16_t ff[TOED_MAX_FEEDS];
	char err[256];
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, ff, err, sizeof err), 0);
	CHECK(rc->flags & RX_CFG_SEQ);
	CHECK_EQ(rc->seq.wait_ns, 250000);
	CHECK_EQ(rc->seq.ngroups, 3);
	/* flows: a1, x, a2, c2 (the udp feed is no flow) */
	CHECK_EQ(rc->mtoe.nflows, 4);
	CHECK_EQ(rc->seq.flow_group[0], 1);
	CHECK_EQ(rc->seq.flow_line[0], 0);
	CHECK_EQ(rc->seq.flow_group[1], 0); /* ungrouped: the default group */
	CHECK_EQ(rc->seq.flow_group[2], 1);
	CHECK_EQ(rc->seq.flow_line[2], 1);
	CHECK_EQ(rc->seq.flow_group[3], 2);
	CHECK_EQ(rc->seq.flow_line[3], 1);
	CHECK_EQ(rc->nudp, 1);
	CHECK_EQ(rc->seq.udp_group[0], 2);
	CHECK_EQ(rc->seq.udp_line[0], 0);
	/* the pipeline takes what the configuration produced */
	struct rx_pipe *p = malloc(sizeof *p);
	struct fast_stream *fs = calloc(RX_NSTREAMS(rc), sizeof *fs);
	CHECK_EQ(rx_init_decode(p, rc, &g_cfg->fast.prog, fs, RX_NSTREAMS(rc)), RX_OK);
	CHECK_EQ(p->grp[1].nlines, 2);
	CHECK_EQ(p->grp[2].nlines, 2);
	free(fs);
	free(p);
	/* the names clients subscribe by: feeds (sources = feed index), then groups */
	static struct pub_stream tbl[DP_MAX_STREAM_NAMES];
	uint32_t nt = dp_setup_streams(g_cfg, rc, 0, tbl);
	CHECK_EQ(nt, 7);
	const struct pub_stream *st = pub_stream_find(tbl, nt, "ab");
	CHECK(st && strcmp(st->kind, "group") == 0 && st->srcs[0] == ((1u << 0) | (1u << 2)) && !st->srcs[1]);
	st = pub_stream_find(tbl, nt, "cd");
	CHECK(st && st->srcs[0] == ((1u << 3) | (1u << 4)));
	st = pub_stream_find(tbl, nt, "x");
	CHECK(st && strcmp(st->kind, "feed") == 0 && st->srcs[0] == (1u << 1) && !st->why);
	CHECK(pub_stream_find(tbl, nt, "udp-6000") == NULL); /* the port is feed u1's */
	/* the card cannot tell its four tcp feeds apart: their names are refused with a reason */
	nt = dp_setup_streams(g_cfg, rc, 1, tbl);
	CHECK(pub_stream_find(tbl, nt, "x")->why != NULL);
	CHECK(pub_stream_find(tbl, nt, "u1")->why == NULL);
	/* off: nothing tracked */
	CLEAN("[feed.a]\nexchange = 10.0.0.1:5261\n", NO_FEED);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, ff, err, sizeof err), 0);
	CHECK_EQ(rc->flags & RX_CFG_SEQ, 0);
	free(rc);

	/* empty: no group (what a configuration written back says) */
	CLEAN("[feed.a]\nexchange = 10.0.0.1:5261\ngroup =\n", NO_FEED);
	CHECK_EQ(g_cfg->feed[0].group[0], 0);
	/* a group without sequence tracking does nothing: said so */
	WARN("[feed.a]\nexchange = 10.0.0.1:5261\ngroup = ab\n", NO_FEED, 3,
	     "[feed.a] group = ab: has no effect: [fast] sequence_check = no (arbitration needs sequence tracking)");
	/* a fifth line, a fourth group */
	o = snprintf(head, sizeof head, fast, g_tpl);
	for (int i = 0; i < 5; i++)
		o += snprintf(head + o, sizeof head - (size_t)o, "[feed.l%d]\nexchange = 10.0.0.%d:5261\ngroup = g\n", i,
			      i + 1);
	ERR(head, NO_FAST | NO_FEED, 19,
	    "[feed.l4] group = g: group g already has 4 lines (the most a group can arbitrate)");
	o = snprintf(head, sizeof head, fast, g_tpl);
	for (int i = 0; i < 4; i++)
		o += snprintf(head + o, sizeof head - (size_t)o, "[feed.l%d]\nexchange = 10.0.0.%d:5261\ngroup = g%d\n",
			      i, i + 1, i);
	ERR(head, NO_FAST | NO_FEED, 16,
	    "[feed.l3] group = g3: more than 3 arbitration groups (the pipeline tracks 3 besides the default one)");
	/* a group named like another feed's stream: one name, two meanings */
	o = snprintf(head, sizeof head, fast, g_tpl);
	snprintf(head + o, sizeof head - (size_t)o,
		 "[feed.a]\nexchange = 10.0.0.1:5261\ngroup = b\n[feed.b]\nexchange = 10.0.0.2:5261\n");
	ERR(head, NO_FAST | NO_FEED, 7, "[feed.a] group = b: group b has the stream name of [feed.b]: clients "
					 "subscribe by both");
	/* ... but a one-feed group may bear its own feed's name */
	o = snprintf(head, sizeof head, fast, g_tpl);
	snprintf(head + o, sizeof head - (size_t)o, "[feed.a]\nexchange = 10.0.0.1:5261\ngroup = a\n");
	CLEAN(head, NO_FAST | NO_FEED);
	snprintf(head, sizeof head, "[fast]\ntemplates = %s\narbitration_wait_us = 1000001\n", g_tpl);
	ERR(head, NO_FAST, 3, "[fast] arbitration_wait_us = 1000001: above 1000000 (one second)");
}

/* The STEP session keys: on toed's own connection (a role = tcp port), warned about elsewhere. */
static void test_sessions(void)
{
	char pwf[PATH_MAX + 32], text[4096], why[160];
	const char *card = "[source]\ninterface = lo\n[port]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n"
			   "# toed's own connections\n#\n"; /* lines 1..8 */
	tmp_path(pwf, sizeof pwf, "sse.password");
	write_file(pwf, "s3cret\nignored\n");
	CHECK_EQ(chmod(pwf, 0600), 0);

	snprintf(text, sizeof text,
		 "%s[feed.s]\nexchange = 10.9.0.1:5261\nsender_comp_id = VENDOR01\ntarget_comp_id = SSE\n"
		 "heartbeat_s = 10\nusername = v1\npassword_file = sse.password\nreset_on_logon = yes\n"
		 "[fast]\ntemplates = %s\n",
		 card, g_tpl);
	expect_clean(__LINE__, text);
	const struct toed_feed *f = &g_cfg->feed[0];
	CHECK(strcmp(f->sender_comp_id, "VENDOR01") == 0);
	CHECK(strcmp(f->target_comp_id, "SSE") == 0);
	CHECK(strcmp(f->username, "v1") == 0);
	CHECK(strcmp(f->password_file, pwf) == 0); /* resolved against the file's directory */
	CHECK_EQ(f->heartbeat_s, 10);
	CHECK_EQ(f->reset_on_logon, 1);
	CHECK_EQ(toed_feed_has_session(f), 1);
	struct step_sess_cfg sc;
	CHECK_EQ(toed_feed_session_cfg(f, &sc, why, sizeof why), 0);
	CHECK(strcmp(sc.password, "s3cret") == 0);
	CHECK(strcmp(sc.sender, "VENDOR01") == 0 && strcmp(sc.target, "SSE") == 0 && strcmp(sc.username, "v1") == 0);
	CHECK_EQ(sc.heartbeat_s, 10);
	CHECK_EQ(sc.reset_on_logon, 1);
	CHECK_EQ(sc.role, STEP_SESS_CLIENT);
	/* the file gone by the time the data plane is set up (or a reload reads it): the error names the
	 * feed, the key and the file */
	{
		char moved[PATH_MAX + 40], msg[PATH_MAX + 200], want[PATH_MAX + 200];
		snprintf(moved, sizeof moved, "%s.gone", pwf);
		CHECK_EQ(rename(pwf, moved), 0);
		CHECK_EQ(toed_feed_session_cfg(f, &sc, msg, sizeof msg), -1);
		snprintf(want, sizeof want, "[feed.s] password_file = %s: No such file or directory", pwf);
		CHECK(strcmp(msg, want) == 0);
		if (strcmp(msg, want))
			fprintf(stderr, "got: %s\n", msg);
		CHECK_EQ(sc.password[0], 0); /* nothing half-read kept */
		CHECK_EQ(rename(moved, pwf), 0);
	}

	/* defaults: no session */
	CLEAN("", 0);
	CHECK_EQ(toed_feed_has_session(&g_cfg->feed[0]), 0);
	CHECK_EQ(g_cfg->feed[0].heartbeat_s, 30);
	CHECK_EQ(g_cfg->feed[0].reset_on_logon, 0);

	/* both CompIDs are needed */
	snprintf(text, sizeof text, "%s[feed.s]\nexchange = 10.9.0.1:5261\nsender_comp_id = VENDOR01\n", card);
	ERR(text, NO_SRC | NO_FEED, 11,
	    "[feed.s] target_comp_id: not set (a STEP session names the exchange's CompID)");
	snprintf(text, sizeof text, "%s[feed.s]\nexchange = 10.9.0.1:5261\nusername = v1\ntarget_comp_id = SSE\n",
		 card);
	ERR(text, NO_SRC | NO_FEED, 11,
	    "[feed.s] sender_comp_id: not set (a STEP session logs on as sender_comp_id; the other session keys "
	    "are set)");
	/* values */
	ERR("[feed.s]\nexchange = 10.9.0.1:5261\nsender_comp_id = A B\n", 0, 3,
	    "[feed.s] sender_comp_id = A B: not a name (1 to 31 letters, digits, '_', '-' or '.')");
	ERR("[feed.s]\nexchange = 10.9.0.1:5261\nheartbeat_s = 3601\n", 0, 3,
	    "[feed.s] heartbeat_s = 3601: above 3600 (one hour)");

	/* the password file: missing, empty, readable by others */
	const char *sess = "[feed.s]\nexchange = 10.9.0.1:5261\nsender_comp_id = V\ntarget_comp_id = SSE\n"
			   "password_file = %s\n"; /* lines 9..13 */
	char head[2048];
	snprintf(head, sizeof head, "%s%s", card, sess);
	snprintf(text, sizeof text, head, "missing.password");
	ERR(text, NO_SRC | NO_FEED, 13, "[feed.s] password_file = missing.password: No such file or directory");
	write_file(pwf, "\n");
	snprintf(text, sizeof text, head, "sse.password");
	ERR(text, NO_SRC | NO_FEED, 13, "[feed.s] password_file = sse.password: the first line (the password) is empty");
	CHECK_EQ(toed_read_password(pwf, sc.password, sizeof sc.password, why, sizeof why), -1);
	write_file(pwf, "pw");
	CHECK_EQ(chmod(pwf, 0644), 0);
	WARN(text, NO_SRC | NO_FEED, 13, "[feed.s] password_file = sse.password: readable by other users (mode 0644): "
					  "chmod 600");
	CHECK_EQ(toed_read_password(pwf, sc.password, sizeof sc.password, why, sizeof why), 0);
	CHECK(strcmp(sc.password, "pw") == 0); /* no newline at the end is fine */

	/* elsewhere the keys do nothing, and say so */
	WARN("[feed.m]\nexchange = 10.9.0.1:5261\nsender_comp_id = V1\n", 0, 3,
	     "[feed.m] sender_comp_id = V1: has no effect: port 0 has role = mirror (toed only watches this "
	     "connection; the session is the vendor's own)");
	WARN("[feed.u]\nprotocol = udp\nvendor = *:6000\nheartbeat_s = 5\nusername = v1\n", 0, 5,
	     "[feed.u] username = v1: has no effect: a udp feed has no STEP session");
	/* every default spelled out asks for no session (a file written back by a tool) */
	CLEAN("[feed.m]\nexchange = 10.9.0.1:5261\nsender_comp_id =\ntarget_comp_id =\nheartbeat_s = 30\n"
	      "username =\npassword_file =\nreset_on_logon = no\n",
	      0);
	snprintf(text, sizeof text,
		 "%s[feed.s]\nexchange = 10.9.0.1:5261\nsender_comp_id =\ntarget_comp_id =\nheartbeat_s = 30\n"
		 "[fast]\ntemplates = %s\n",
		 card, g_tpl);
	expect_clean(__LINE__, text);
	unlink(pwf);
}

/* [feed.NAME] mss and window: toed's own connection's limits, [tcp]'s by default, the same ranges
 * and rules; on a mirror port or a udp feed they have no effect and say so (as the session keys). */
static void test_feed_limits(void)
{
	char text[4096];
	const char *port = "[source]\ninterface = lo\n[port]\nrole = tcp\nip = 10.1.0.2\nnetmask = 24\n"; /* 1..6 */
	/* feed a on lines 7.., its keys from line 9 on; feed b after it takes the defaults */
#define FEEDS(tcp, akeys)                                                                                    \
	(snprintf(text, sizeof text,                                                                         \
		  "%s[feed.a]\nexchange = 10.9.0.1:5261\n%s[feed.b]\nexchange = 10.9.0.2:5261\n%s[fast]\n"   \
		  "templates = %s\n",                                                                        \
		  port, akeys, tcp, g_tpl),                                                                  \
	 text)

	expect_clean(__LINE__, FEEDS("", "mss = 1024\nwindow = 4K\n"));
	CHECK_EQ(g_cfg->feed[0].mss, 1024);
	CHECK_EQ(g_cfg->feed[0].window, 4096);
	CHECK_EQ(g_cfg->feed[1].mss, 0); /* not set: [tcp]'s, here the defaults */
	CHECK_EQ(toed_feed_mss(g_cfg, &g_cfg->feed[1]), 1408);
	CHECK_EQ(toed_feed_window(g_cfg, &g_cfg->feed[1]), 32768);
	CHECK_EQ(toed_feed_mss(g_cfg, &g_cfg->feed[0]), 1024);
	CHECK_EQ(toed_feed_window(g_cfg, &g_cfg->feed[0]), 4096);
	expect_clean(__LINE__, FEEDS("[tcp]\nmss = 1024\nwindow = 8K\n", "window = 64K\n"));
	CHECK_EQ(toed_feed_mss(g_cfg, &g_cfg->feed[0]), 1024); /* [tcp]'s mss, its own window */
	CHECK_EQ(toed_feed_window(g_cfg, &g_cfg->feed[0]), 65536);
	CHECK_EQ(toed_feed_mss(g_cfg, &g_cfg->feed[1]), 1024);
	CHECK_EQ(toed_feed_window(g_cfg, &g_cfg->feed[1]), 8192);
	expect_clean(__LINE__, FEEDS("", "mss = 576\nwindow = 1M\n"));
	CHECK_EQ(g_cfg->feed[0].window, 1048576);

	/* values: the ranges and units of [tcp]'s, each naming the file, the line and the key */
	ERR(FEEDS("", "mss = 1500\n"), NO_SRC | NO_FAST | NO_FEED, 9,
	    "[feed.a] mss = 1500: above 1460 (the largest MSS of a 1500-byte MTU)");
	ERR(FEEDS("", "mss = 535\n"), NO_SRC | NO_FAST | NO_FEED, 9,
	    "[feed.a] mss = 535: below 536 (the smallest MSS every IPv4 host must accept)");
	ERR(FEEDS("", "window = 1000\n"), NO_SRC | NO_FAST | NO_FEED, 9, "[feed.a] window = 1000: not a power of two");
	ERR(FEEDS("", "window = 32\n"), NO_SRC | NO_FAST | NO_FEED, 9, "[feed.a] window = 32: below 64 bytes");
	ERR(FEEDS("", "window = 2M\n"), NO_SRC | NO_FAST | NO_FEED, 9, "[feed.a] window = 2M: above 1M (1048576 bytes)");
	ERR(FEEDS("", "mss = 1408\nmss = 1024\n"), NO_SRC | NO_FAST | NO_FEED, 10,
	    "[feed.a] mss = 1024: duplicate key (first set at line 9)");
	WARN(FEEDS("", "mss = 1400\n"), NO_SRC | NO_FAST | NO_FEED, 9,
	     "[feed.a] mss = 1400: not a multiple of 64 (receive buffers are 64-byte aligned; 1408 is the largest "
	     "multiple of 64 up to 1460)");
	CHECK_EQ(g_cfg->feed[0].mss, 1400);
	/* window >= mss, with the feed's values, on the window's line (or the mss's, when only it is set) */
	ERR(FEEDS("", "mss = 1408\nwindow = 1K\n"), NO_SRC | NO_FAST | NO_FEED, 10,
	    "[feed.a] window = 1K: smaller than one segment (mss = 1408)");
	ERR(FEEDS("", "window = 1K\n"), NO_SRC | NO_FAST | NO_FEED, 9,
	    "[feed.a] window = 1K: smaller than one segment (mss = 1408, [tcp] mss)");
	ERR(FEEDS("[tcp]\nmss = 1024\nwindow = 1K\n", "mss = 1408\n"), NO_SRC | NO_FAST | NO_FEED, 9,
	    "[feed.a] mss = 1408: larger than the window (window = 1024, [tcp] window): a window holds one segment at "
	    "least");
	/* a feed's smaller mss fits a window [tcp]'s would not (then [tcp] itself is refused) */
	expect_clean(__LINE__, FEEDS("[tcp]\nmss = 1024\nwindow = 1K\n", "mss = 1024\n"));
	/* below the general TOE's smallest buffer: what the connection advertises instead is said */
	WARN(FEEDS("", "mss = 576\nwindow = 1K\n"), NO_SRC | NO_FAST | NO_FEED, 10,
	     "[feed.a] window = 1K: below 2048: the connection advertises 2048 (the general TOE's smallest buffer)");

	/* elsewhere they do nothing, and say so; the [tcp] value spelled out says nothing */
	WARN("[feed.m]\nexchange = 10.9.0.1:5261\nmss = 1024\n", 0, 3,
	     "[feed.m] mss = 1024: has no effect: port 0 has role = mirror (only toed's own connections, role = "
	     "tcp, offer an MSS and a window; the mirror TOE follows with [tcp] window)");
	WARN("[feed.u]\nprotocol = udp\nvendor = *:6000\nwindow = 64K\n", 0, 4,
	     "[feed.u] window = 64K: has no effect: a udp feed has no TCP connection");
	CLEAN("[feed.m]\nexchange = 10.9.0.1:5261\nmss = 1408\nwindow = 32K\n", 0);
	/* empty, as a file written back says "not set": [tcp]'s, wherever the feed is */
	CLEAN("[feed.m]\nexchange = 10.9.0.1:5261\nmss =\nwindow =\n", 0);
	CHECK_EQ(g_cfg->feed[0].mss, 0);
	expect_clean(__LINE__, FEEDS("[tcp]\nwindow = 8K\n", "mss =\nwindow =\n"));
	CHECK_EQ(g_cfg->feed[0].window, 0);
	CHECK_EQ(toed_feed_window(g_cfg, &g_cfg->feed[0]), 8192);
	ERR("[tcp]\nmss =\n", 0, 2, "[tcp] mss: empty value (a number is needed)"); /* [tcp]'s own: a number */
	/* a bad value is an error wherever it is */
	ERR("[feed.m]\nexchange = 10.9.0.1:5261\nwindow = 3K\n", 0, 3, "[feed.m] window = 3K: not a power of two");

	/* a reload: the feed's own limits need a restart */
	{
		struct toed_config *a = malloc(sizeof *a);
		struct toed_diff *d = malloc(sizeof *d);
		CHECK_EQ(load_into(FEEDS("", "mss = 1024\n"), a), 0);
		CHECK_EQ(load(FEEDS("", "mss = 1280\nwindow = 64K\n")), 0);
		CHECK_EQ(toed_config_diff(a, g_cfg, d), TOED_CHANGE_RESTART);
		CHECK_EQ(d->n, 2);
		diff_has(d, "[feed.a] mss changed (1024 -> 1280): needs a restart");
		diff_has(d, "[feed.a] window changed (none -> 65536): needs a restart");
		/* [tcp]'s changed: once, not again for every feed that takes it */
		CHECK_EQ(load_into(FEEDS("[tcp]\nmss = 1280\n", "mss = 1024\n"), a), 0);
		CHECK_EQ(toed_config_diff(g_cfg, a, d), TOED_CHANGE_RESTART);
		CHECK_EQ(d->n, 3);
		diff_has(d, "[tcp] mss changed (1408 -> 1280): needs a restart");
		diff_has(d, "[feed.a] mss changed (1280 -> 1024): needs a restart");
		diff_has(d, "[feed.a] window changed (65536 -> none): needs a restart");
		free(a);
		free(d);
	}
#undef FEEDS
}

/* [fast] sequence_fields: the SSE default, rules by name and by id, checked against the templates. */
static void test_seq_fields(void)
{
	char head[2048];
	struct rx_cfg *rc = malloc(sizeof *rc);
	uint16_t ff[TOED_MAX_FEEDS];
	char err[256];
	/* the default: SSE's two rules, written back as sse, and the pipeline gets them as before */
	snprintf(head, sizeof head, "[fast]\ntemplates = %s\nsequence_check = yes\n", g_tpl);
	CLEAN(head, NO_FAST);
	CHECK_EQ(g_cfg->fast.nseq_fields, 2);
	char v[256];
	conf_fmt_value(&conf_keys[TOED_K_FAST_SEQUENCE_FIELDS], g_cfg, g_cfg, v, sizeof v);
	CHECK(strcmp(v, "sse") == 0);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, ff, err, sizeof err), 0);
	struct seq_field_cfg sse[SEQ_MAX_FIELDS];
	CHECK_EQ(rc->seq.nfields, seq_fields_sse(sse));
	CHECK(memcmp(rc->seq.fields, sse, 2 * sizeof sse[0]) == 0);
	/* the default does not hold other exchanges' templates to SSE's fields: not an error, but
	 * checking nothing is said */
	snprintf(head, sizeof head, "[fast]\ntemplates = %s\nsequence_check = yes\n", g_xtpl);
	WARN(head, NO_FAST, 3,
	     "[fast] sequence_check = yes: no template that publishes ticks has a channel and a sequence field by "
	     "[fast] sequence_fields: no record will be checked, no gap reported (name them: "
	     "TEMPLATE:CHANNEL:SEQUENCE)");
	/* without sequence_check nothing is said */
	snprintf(head, sizeof head, "[fast]\ntemplates = %s\n", g_xtpl);
	CLEAN(head, NO_FAST);
	/* SSE by name, per template */
	snprintf(head, sizeof head,
		 "[fast]\ntemplates = %s\nsequence_check = yes\n"
		 "sequence_fields = 3201:TradeChannel:BizIndex, 5801:OrderChannel:BizIndex\n", g_tpl);
	CLEAN(head, NO_FAST);
	CHECK_EQ(g_cfg->fast.nseq_fields, 2);
	CHECK_EQ(g_cfg->fast.seq_fields[0].tid, 3201);
	CHECK_EQ(g_cfg->fast.seq_fields[0].chan_fid, SEQ_SSE_TRADE_CHANNEL);
	CHECK_EQ(g_cfg->fast.seq_fields[0].seq_fid, SEQ_SSE_BIZ_INDEX);
	CHECK_EQ(g_cfg->fast.seq_fields[1].chan_fid, SEQ_SSE_ORDER_CHANNEL);
	conf_fmt_value(&conf_keys[TOED_K_FAST_SEQUENCE_FIELDS], g_cfg, g_cfg, v, sizeof v);
	CHECK(strcmp(v, "3201:TradeChannel:BizIndex, 5801:OrderChannel:BizIndex") == 0);
	/* another exchange: names, ids and * mixed; the pipeline gets field ids */
	snprintf(head, sizeof head,
		 "[fast]\ntemplates = %s\nsequence_check = yes\n"
		 "sequence_fields = 7001:ChanNo:SeqNo, *:601:TradeIndex\n", g_xtpl);
	CLEAN(head, NO_FAST);
	rx_cfg_default(rc);
	CHECK_EQ(dp_setup_rx(g_cfg, rc, ff, err, sizeof err), 0);
	CHECK_EQ(rc->seq.nfields, 2);
	CHECK_EQ(rc->seq.fields[0].tid, 7001);
	CHECK_EQ(rc->seq.fields[0].chan_fid, 501);
	CHECK_EQ(rc->seq.fields[0].seq_fid, 502);
	CHECK_EQ(rc->seq.fields[1].tid, 0);
	CHECK_EQ(rc->seq.fields[1].chan_fid, 601);
	CHECK_EQ(rc->seq.fields[1].seq_fid, 602);
	/* a change needs a restart, named as written */
	{
		struct toed_config *old = malloc(sizeof *old);
		struct toed_diff *d = malloc(sizeof *d);
		memcpy(old, g_cfg, sizeof *old);
		snprintf(head, sizeof head,
			 "[fast]\ntemplates = %s\nsequence_check = yes\nsequence_fields = 7001:ChanNo:SeqNo\n", g_xtpl);
		/* 7002 publishes ticks and has no key now: said */
		WARN(head, NO_FAST, 3,
		     "[fast] sequence_check = yes: template 7002 publishes ticks without a channel and a sequence "
		     "field by [fast] sequence_fields: its records are not checked, their gaps not reported");
		toed_config_diff(old, g_cfg, d);
		diff_has(d, "[fast] sequence_fields changed (7001:ChanNo:SeqNo, *:601:TradeIndex -> 7001:ChanNo:SeqNo): "
			    "needs a restart");
		free(d);
		free(old);
	}

	/* errors, on the key's line (3) */
#define SF_ERR(tpl, val, tail)                                                                              \
	do {                                                                                               \
		snprintf(head, sizeof head, "[fast]\ntemplates = %s\nsequence_fields = %s\n", tpl, val);      \
		ERR(head, NO_FAST, 3, tail);                                                               \
	} while (0)
	SF_ERR(g_xtpl, "9999:ChanNo:SeqNo", "[fast] sequence_fields = 9999:ChanNo:SeqNo: no template 9999 in "
					   "the template file");
	SF_ERR(g_xtpl, "7001:ChanNo:SeqNumber",
	       "[fast] sequence_fields = 7001:ChanNo:SeqNumber: template 7001 has no field SeqNumber");
	SF_ERR(g_xtpl, "7003:ChanNo:Px", "[fast] sequence_fields = 7003:ChanNo:Px: template 7003: sequence field Px "
					"is a decimal, not an integer");
	SF_ERR(g_xtpl, "7003:Venue:SeqNo", "[fast] sequence_fields = 7003:Venue:SeqNo: template 7003: channel field "
					  "Venue is a string, not an integer");
	SF_ERR(g_xtpl, "7003:ChanNo:LegSeq", "[fast] sequence_fields = 7003:ChanNo:LegSeq: template 7003: sequence "
					    "field LegSeq is inside a sequence or group (a record holds many of its "
					    "values)");
	SF_ERR(g_xtpl, "7003:ChanNo:NoIdField",
	       "[fast] sequence_fields = 7003:ChanNo:NoIdField: template 7003: sequence field NoIdField has no id in "
	       "the template file (sequence tracking matches fields by id)");
	SF_ERR(g_xtpl, "*:ChanNo:TradeIndex",
	       "[fast] sequence_fields = *:ChanNo:TradeIndex: no template has both ChanNo and TradeIndex");
	SF_ERR(g_tpl, "sse, 7001:ChanNo:SeqNo", "[fast] sequence_fields = sse, 7001:ChanNo:SeqNo: no template 7001 in "
					       "the template file");
	/* syntax: no templates needed to find these */
	SF_ERR(g_xtpl, "7001:ChanNo", "[fast] sequence_fields = 7001:ChanNo: '7001:ChanNo' is not "
				     "TEMPLATE:CHANNEL:SEQUENCE (or sse)");
	SF_ERR(g_xtpl, "x1:ChanNo:SeqNo", "[fast] sequence_fields = x1:ChanNo:SeqNo: 'x1' is not a template id "
					 "(1..4294967295) or *");
	SF_ERR(g_xtpl, "7001:Chan No:SeqNo", "[fast] sequence_fields = 7001:Chan No:SeqNo: channel field 'Chan No' "
					    "is not a field name or id");
	SF_ERR(g_xtpl, "7001:SeqNo:SeqNo", "[fast] sequence_fields = 7001:SeqNo:SeqNo: 'SeqNo' is both the channel "
					  "and the sequence");
	SF_ERR(g_xtpl, ",", "[fast] sequence_fields = ,: no rule (TEMPLATE:CHANNEL:SEQUENCE, or sse)");
#undef SF_ERR
	free(rc);
}

int main(void)
{
	char cwd[PATH_MAX], tmpl[] = "/tmp/toed-config-XXXXXX";
	if (!getcwd(cwd, sizeof cwd) || strlen(cwd) > 400)
		return test_skip("config", "no current directory");
	snprintf(g_tpl, sizeof g_tpl, "%.400s/conf/templates/sse-l2-3201-5801.xml", cwd);
	snprintf(g_xtpl, sizeof g_xtpl, "%.400s/tests/data/xchg-seq-templates.xml", cwd);
	if (access(g_tpl, R_OK) < 0 || access("conf/toed.conf", R_OK) < 0)
		return test_skip("config", "run from the repository root (conf/toed.conf and conf/templates needed)");
	char real[PATH_MAX];
	if (!mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof g_dir)
		return test_skip("config", "cannot create a temporary directory");
	memcpy(g_dir, real, strlen(real) + 1);
	snprintf(g_conf, sizeof g_conf, "%s/t.conf", g_dir);
	g_cfg = malloc(sizeof *g_cfg);

	test_defaults();
	test_default_file();
	test_default_examples();
	test_documented();
	test_values();
	test_syntax();
	test_device_source();
	test_ports();
	test_feeds();
	test_tcp_udp();
	test_fast();
	test_shm_dataplane_log_record();
	test_failure_keeps_output();
	test_key_table();
	test_diff();
	test_helpers();
	test_limits();
	test_groups();
	test_sessions();
	test_feed_limits();
	test_seq_fields();

	unlink(g_conf);
	rmdir(g_dir);
	free(g_cfg);
	return test_done("config");
}
