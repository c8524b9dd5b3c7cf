/* ctl_admin.c - status, counters and clients for toectl, as text or JSON (see ctl_admin.h).
 *
 * With backend = xrt the software pipeline's blocks (source, network, receive
 * pipeline, mirror TOE, connections, streams) do not exist: stats has a
 * "card" block instead, every counter toe_xrt_counters() reads (CMAC, each
 * kernel's status and counters, the host side of the ring) under its own
 * name, as of the data plane's last read (every second).
 */
#include "ctl/ctl_admin.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fast/host/fast_json.h"
#include "base/log.h"
#include "ctl/ctl_fds.h"
#include "ctl/ctl_loop.h"
#include "ctl/ctl_proto.h"
#include "ctl/ctl_reload.h"

/* ---- a small writer for both forms ----------------------------------------------- */

#define MAXDEPTH 8

struct out {
	FILE *f;
	int json;
	int omit_zero; /* text: leave out counters that are 0 (JSON has them all) */
	int depth;
	int first[MAXDEPTH];
};

static void j_sep(struct out *o, const char *key)
{
	if (!o->first[o->depth])
		fputc(',', o->f);
	o->first[o->depth] = 0;
	if (key)
		fprintf(o->f, "\"%s\":", key);
}

/* A JSON string: always valid UTF-8 (a path or a name may not be), so a byte that does not
 * start a valid sequence becomes U+FFFD; controls and DEL are escaped. */
static void j_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t k;
		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			fputc(c, f);
			i++;
		} else if ((k = ctl_utf8_printable(p + i, n - i)) > 0) {
			fwrite(p + i, 1, k, f);
			i += k;
		} else {
			fputs("\\ufffd", f);
			i++;
		}
	}
	fputc('"', f);
}

/* An object (JSON) or a "[heading]" (text). key NULL: an array element. */
static void begin(struct out *o, const char *key, const char *heading)
{
	if (o->json) {
		j_sep(o, key);
		fputc('{', o->f);
		if (o->depth + 1 < MAXDEPTH)
			o->first[++o->depth] = 1;
	} else if (heading) {
		fprintf(o->f, "\n[%s]\n", heading);
	}
}

static void end(struct out *o)
{
	if (o->json) {
		fputc('}', o->f);
		if (o->depth > 0)
			o->depth--;
	}
}

static void begin_array(struct out *o, const char *key)
{
	if (o->json) {
		j_sep(o, key);
		fputc('[', o->f);
		if (o->depth + 1 < MAXDEPTH)
			o->first[++o->depth] = 1;
	}
}

static void end_array(struct out *o)
{
	if (o->json) {
		fputc(']', o->f);
		if (o->depth > 0)
			o->depth--;
	}
}

static void kv_u64(struct out *o, const char *key, uint64_t v)
{
	if (!o->json && o->omit_zero && !v)
		return;
	if (o->json) {
		j_sep(o, key);
		fprintf(o->f, "%" PRIu64, v);
	} else {
		fprintf(o->f, "  %-32s %" PRIu64 "\n", key, v);
	}
}

static void kv_i64(struct out *o, const char *key, int64_t v)
{
	if (o->json) {
		j_sep(o, key);
		fprintf(o->f, "%" PRId64, v);
	} else {
		fprintf(o->f, "  %-32s %" PRId64 "\n", key, v);
	}
}

static void kv_str(struct out *o, const char *key, const char *v)
{
	if (o->json) {
		j_sep(o, key);
		j_str(o->f, v);
	} else {
		fprintf(o->f, "  %-32s %s\n", key, v[0] ? v : "-");
	}
}

static void kv_bool(struct out *o, const char *key, int v)
{
	if (o->json) {
		j_sep(o, key);
		fputs(v ? "true" : "false", o->f);
	} else {
		fprintf(o->f, "  %-32s %s\n", key, v ? "yes" : "no");
	}
}

static const char *ip_str(uint32_t ip, uint16_t port, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u:%u", ip >> 24, (ip >> 16) & 255u, (ip >> 8) & 255u, ip & 255u, port);
	return buf;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A card counter of the snapshot by name; 0 when absent. */
static int card_value(const struct toed_dp_snapshot *s, const char *name, uint64_t *v)
{
	for (uint32_t i = 0; i < s->ncard; i++)
		if (!strcmp(s->card_ctr[i].name, name)) {
			*v = s->card_ctr[i].value;
			return 1;
		}
	return 0;
}

static const char *card_link(const struct toed_dp_snapshot *s)
{
	uint64_t up;
	if (!card_value(s, "cmac_0.link_up", &up))
		return "unknown";
	return up ? "up" : "down";
}

/* ---- status --------------------------------------------------------------------------- */

static const char *pace_str(const struct toed_config *c, char *buf, size_t len)
{
	if (c->source.pcap_pace == TOED_PACE_FAST)
		snprintf(buf, len, "fast");
	else if (c->source.pcap_pace == TOED_PACE_FACTOR)
		snprintf(buf, len, "%g", c->source.pcap_speed);
	else
		snprintf(buf, len, "recorded");
	return buf;
}

static void report_status(struct toed *t, struct out *o, const struct toed_dp_snapshot *s)
{
	const struct toed_config *c = t->cfg;
	char buf[256];
	uint64_t now = mono_ns();
	if (!o->json)
		fprintf(o->f, "toed %s, pid %d, up %" PRIu64 " s\n", TOED_VERSION, (int)getpid(),
			(uint64_t)((now - t->start_mono_ns) / 1000000000ull));
	begin(o, NULL, NULL);
	if (o->json) {
		kv_str(o, "version", TOED_VERSION);
		kv_u64(o, "pid", (uint64_t)getpid());
		kv_u64(o, "uptime_s", (now - t->start_mono_ns) / 1000000000ull);
	}
	begin(o, "daemon", "daemon");
	kv_str(o, "state", t->stop ? "stopping" : t->ready ? "ready" : "starting");
	kv_str(o, "config", c->path);
	kv_str(o, "socket", t->sock_path);
	kv_str(o, "backend", toed_backend_name(c->device.backend));
	kv_str(o, "source", t->dp.src_desc);
	kv_u64(o, "uid", (uint64_t)getuid());
	kv_u64(o, "epoch", pub_epoch(t->pub));
	end(o);
	begin(o, "dataplane", "data plane");
	kv_str(o, "state", toed_dp_state_name(s->state));
	kv_bool(o, "heartbeat_moving", !t->notify.stalled_since_ns);
	kv_u64(o, "heartbeat", toed_dp_heartbeat(&t->dp));
	kv_u64(o, "heartbeat_stalls", t->hb_stalls);
	kv_i64(o, "cpu", c->dataplane.cpu);
	kv_u64(o, "priority", c->dataplane.priority);
	kv_bool(o, "busy_poll", c->dataplane.busy_poll);
	if (s->card)
		kv_str(o, "card_link", card_link(s));
	end(o);
	begin(o, "systemd", "systemd");
	kv_bool(o, "notify", t->notify.enabled);
	kv_u64(o, "watchdog_usec", t->notify.watchdog_us);
	kv_u64(o, "watchdog_pings", t->notify.pings);
	kv_str(o, "status", t->notify.status);
	end(o);
	/* what one client may cost ([shm]; restart keys) and what is in use */
	struct pub_stats lps;
	struct rlimit nofile;
	pub_get_stats(t->pub, &lps);
	begin(o, "limits", "client limits");
	kv_u64(o, "max_clients", c->shm.max_clients);
	kv_u64(o, "max_clients_per_uid", c->shm.max_clients_per_uid);
	kv_u64(o, "handshake_timeout_ms", c->shm.handshake_timeout_ms);
	kv_u64(o, "ring_memory_mb", c->shm.ring_memory_mb);
	kv_u64(o, "ring_memory_per_uid_mb", c->shm.ring_memory_per_uid_mb);
	kv_u64(o, "ring_memory_used_kb", lps.ring_bytes >> 10);
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0)
		kv_u64(o, "open_files_limit", nofile.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)nofile.rlim_cur);
	end(o);
	begin(o, "reload", "reload");
	kv_u64(o, "applied", t->reloads);
	kv_u64(o, "refused", t->reload_errors);
	kv_str(o, "last", t->last_reload);
	end(o);
	begin(o, "live", "live settings");
	kv_str(o, "log_level", toed_log_level_name(c->log.level));
	kv_str(o, "log_target", c->log.target == TOED_LOG_JOURNAL ? "journal" : "stderr");
	kv_u64(o, "gap_timeout_ms", c->tcp.gap_timeout_ms);
	kv_u64(o, "idle_timeout_s", c->tcp.idle_timeout_s);
	kv_str(o, "pcap_pace", pace_str(c, buf, sizeof buf));
	kv_u64(o, "pcap_loop", c->source.pcap_loop);
	kv_str(o, "record_pcap", c->record.pcap);
	kv_str(o, "record_ticks", c->record.ticks);
	end(o);
	toed_status_line(t, s, buf, sizeof buf);
	begin(o, "counters", "counters");
	kv_u64(o, "frames", s->frames);
	kv_u64(o, "records", s->rx.records);
	kv_u64(o, "published", s->published);
	kv_u64(o, "gaps", s->rx.gaps);
	struct pub_stats ps;
	pub_get_stats(t->pub, &ps);
	kv_u64(o, "clients", ps.clients);
	kv_u64(o, "delivered", ps.delivered);
	kv_u64(o, "dropped", ps.dropped);
	kv_str(o, "summary", buf);
	end(o);
	end(o);
}

/* ---- stats ------------------------------------------------------------------------------ */

static void report_common(struct toed *t, struct out *o);
static void report_sequence(struct toed *t, struct out *o, const struct toed_dp_snapshot *s);

/* backend = xrt: the data plane's side, then every counter of the card. */
static void report_card(struct toed *t, struct out *o, const struct toed_dp_snapshot *s)
{
	begin(o, "pipeline", "pipeline");
	kv_u64(o, "frames", s->frames);
	kv_u64(o, "published", s->published);
	kv_u64(o, "bad_records", s->bad_records);
	kv_u64(o, "polls_with_records", s->bursts);
	kv_u64(o, "turns", s->turns);
	kv_u64(o, "waits", s->waits);
	kv_u64(o, "heartbeat", toed_dp_heartbeat(&t->dp));
	end(o);

	begin(o, "card", "card");
	kv_str(o, "describe", t->dp.src_desc);
	kv_str(o, "link", card_link(s));
	kv_u64(o, "counters_age_ms", s->card_taken_ns ? (mono_ns() - s->card_taken_ns) / 1000000ull : 0);
	for (uint32_t i = 0; i < s->ncard && i < TOE_XRT_MAX_COUNTERS; i++)
		kv_u64(o, s->card_ctr[i].name, s->card_ctr[i].value);
	end(o);
}

static const char *conn_state(uint8_t s)
{
	return s == MTOE_OPEN ? "open" : s == MTOE_CLOSED ? "closed" : "free";
}

static const char *gtoe_down_name(uint32_t ev, uint32_t reason)
{
	switch (ev) {
	case 0: return "";
	case GTOE_EV_CLOSED: return "closed";
	case GTOE_EV_RESET: return "reset by the peer";
	case GTOE_EV_ERROR:
		return reason == GTOE_ERR_REFUSED	? "refused"
		       : reason == GTOE_ERR_TIMEOUT   ? "timed out"
		       : reason == GTOE_ERR_KEEPALIVE ? "keepalive unanswered"
						      : "failed";
	default: return "?";
	}
}

/* A port with an address: its ARP/ICMP/TCP counters and toed's own connections
 * (role = tcp): TCP state, RTT, retransmissions, windows, SACK. */
static void report_tcp(struct toed *t, struct out *o, const struct toed_dp_snapshot *s)
{
	char a[32], b[32], title[96];
	begin(o, "tcp", "port (ARP, ICMP, toed's own TCP connections)");
#define TK(name, desc) kv_u64(o, #name, s->tcp.name);
	DP_TCP_STATS(TK)
#undef TK
	end(o);
	if (s->ntcp) {
		begin(o, "gtoe", "general TOE (all connections)");
#define GG(name) kv_u64(o, #name, s->gtoe.name);
		GTOE_STATS_FIELDS(GG)
#undef GG
		end(o);
	}
	begin_array(o, "tcp_connections");
	for (uint32_t i = 0; i < s->ntcp && i < TOED_MAX_FEEDS; i++) {
		const struct toed_dp_tcpconn *c = &s->tcp_conn[i];
		const struct gtoe_info *in = &c->info;
		const char *feed = c->feed < t->cfg->nfeeds ? t->cfg->feed[c->feed].name : "";
		snprintf(title, sizeof title, "tcp connection %u (feed %.32s)", i, feed);
		begin(o, NULL, title);
		int saved = o->omit_zero;
		o->omit_zero = 0; /* the connection's state is worth seeing at 0 */
		kv_str(o, "feed", feed);
		kv_str(o, "phase", dp_tcp_phase_name(c->phase));
		kv_str(o, "state", gtoe_state_name(in->state));
		kv_str(o, "local", ip_str(c->laddr, c->lport, a, sizeof a));
		kv_str(o, "exchange", ip_str(c->raddr, c->rport, b, sizeof b));
		kv_u64(o, "attempts", c->attempts);
		kv_u64(o, "ups", c->ups);
		kv_u64(o, "downs", c->downs);
		kv_str(o, "last_down", gtoe_down_name(c->last_down, c->last_reason));
		kv_u64(o, "stream_offset", c->offset);
		kv_u64(o, "feed_mss", c->mss);       /* the feed's: what the SYN offers ... */
		kv_u64(o, "feed_window", c->window); /* ... and the receive window (mss, rcv_wnd: now) */
		if (c->sess.on) {
			const struct dp_tcp_sess *ss = &c->sess;
			kv_str(o, "session", step_sess_state_name(ss->state));
			kv_bool(o, "logged_on", ss->state == STEP_SESS_ACTIVE);
			kv_u64(o, "logons", ss->logons);
			kv_u64(o, "logon_refusals", ss->refusals);
			kv_u64(o, "heartbeats_missed", ss->hb_missed);
			kv_u64(o, "heartbeat_timeouts", ss->hb_timeouts);
			kv_u64(o, "peer_logouts", ss->peer_logouts);
			kv_u64(o, "heartbeats_out", ss->out_heartbeats);
			kv_u64(o, "test_requests_out", ss->out_test_requests);
			kv_u64(o, "session_msgs_in", ss->in_msgs);
			kv_u64(o, "session_bytes_queued", ss->out_queued);
			kv_u64(o, "session_bytes_dropped", ss->out_dropped);
			kv_u64(o, "session_closes", ss->closes);
			kv_u64(o, "session_log_suppressed", ss->log_suppressed);
			kv_u64(o, "session_records", ss->records);
			kv_u64(o, "session_records_lost", ss->records_lost);
			kv_u64(o, "session_msgs_lost", ss->in_lost);
			kv_str(o, "last_logout", ss->last_logout);
		}
		kv_u64(o, "srtt_us", in->srtt_ns / 1000);
		kv_u64(o, "rttvar_us", in->rttvar_ns / 1000);
		kv_u64(o, "rto_ms", in->rto_ns / 1000000);
		kv_u64(o, "mss", in->mss);
		kv_bool(o, "sack", in->sack_ok);
		kv_bool(o, "timestamps", in->ts_ok);
		kv_u64(o, "snd_wscale", in->snd_ws);
		kv_u64(o, "rcv_wscale", in->rcv_ws);
		kv_u64(o, "cwnd", in->cwnd);
		kv_u64(o, "ssthresh", in->ssthresh);
		kv_u64(o, "snd_wnd", in->snd_wnd);
		kv_u64(o, "rcv_wnd", in->rcv_wnd);
		kv_u64(o, "in_flight", in->in_flight);
		kv_u64(o, "unsent", in->unsent);
		kv_u64(o, "readable", in->readable);
		o->omit_zero = saved;
#define GC(name) kv_u64(o, #name, in->st.name);
		GTOE_CONN_STATS_FIELDS(GC)
#undef GC
		end(o);
	}
	end_array(o);
}

static void report_stats(struct toed *t, struct out *o, const struct toed_dp_snapshot *s)
{
	const char *names[NET_STATS_COUNT + RX_STATS_COUNT + RX_STREAM_STATS_COUNT + 8];
	uint64_t values[NET_STATS_COUNT + RX_STATS_COUNT + RX_STREAM_STATS_COUNT + 8];
	char a[32], b[32], title[64];
	uint32_t n;

	begin(o, NULL, NULL);
	if (o->json) {
		kv_str(o, "state", toed_dp_state_name(s->state));
		kv_u64(o, "epoch", pub_epoch(t->pub));
	} else {
		fprintf(o->f, "data plane %s, snapshot %" PRIu64 " ms old (counters that are 0 are left out; --json has all)\n",
			toed_dp_state_name(s->state), (uint64_t)(s->taken_ns ? (mono_ns() - s->taken_ns) / 1000000ull : 0));
		o->omit_zero = 1;
	}

	if (s->card) {
		report_card(t, o, s);
		if (s->tcp_on)
			report_tcp(t, o, s); /* role = tcp: gtoe_top's connections, in the software backend's terms */
		report_common(t, o);
		return;
	}

	begin(o, "source", "source");
	kv_str(o, "describe", t->dp.src_desc);
#define SRC_KV(name, desc) kv_u64(o, #name, s->src.name);
	SRC_STATS_FIELDS(SRC_KV)
#undef SRC_KV
	end(o);

	/* each port's source, and what became of its frames (the source block above adds them up) */
	begin_array(o, "ports");
	for (uint32_t k = 0; k < s->nports && k < TOED_MAX_PORTS; k++) {
		const struct toed_dp_port *pp = &s->port[k];
		char pt[24];
		snprintf(pt, sizeof pt, "port %u", pp->port);
		begin(o, NULL, pt);
		kv_u64(o, "port", pp->port);
		kv_str(o, "describe", t->dp.port_desc[k]);
		/* the groups toed joined for its multicast UDP feeds on this port's interface (dp_mcast);
		 * the text shows it where there are some */
		char mc[512];
		dp_mcast_describe(&t->dp.mcast, pp->port, mc, sizeof mc);
		if (o->json || mc[0])
			kv_str(o, "multicast_joined", mc);
#define SRC_KV(name, desc) kv_u64(o, #name, pp->src.name);
		SRC_STATS_FIELDS(SRC_KV)
#undef SRC_KV
		kv_u64(o, "pipeline_frames", pp->frames);
		kv_u64(o, "pipeline_bytes", pp->bytes);
		kv_u64(o, "net_dropped", pp->dropped);
		kv_u64(o, "tcp_not_followed", pp->not_followed);
		kv_u64(o, "udp_not_listened", pp->udp_not_listened);
		kv_u64(o, "udp_other_port", pp->udp_other_port);
#define RESP_KV(name, desc) kv_u64(o, #name, pp->resp.name);
		DP_RESP_STATS(RESP_KV) /* a port with an address: ARP and ICMP answered */
#undef RESP_KV
		end(o);
	}
	end_array(o);

	begin(o, "pipeline", "pipeline");
	kv_u64(o, "frames", s->frames);
	kv_u64(o, "published", s->published);
	kv_u64(o, "unmapped_records", s->unmapped_records);
	kv_u64(o, "replay_plays", s->replay_plays);
	kv_u64(o, "turns", s->turns);
	kv_u64(o, "waits", s->waits);
	kv_u64(o, "spin_yields", s->spin_yields);
	kv_u64(o, "spin_sleeping", s->spin_sleeping);
	kv_u64(o, "spin_wait_pct", s->spin_wait_pct);
	kv_u64(o, "heartbeat", toed_dp_heartbeat(&t->dp));
	end(o);

	begin(o, "net", "network (eth, ip, tcp, udp, icmp, arp)");
	n = net_stats_table(&s->net, names, values, NET_STATS_COUNT);
	for (uint32_t i = 0; i < n; i++)
		kv_u64(o, names[i], values[i]);
	end(o);

	begin(o, "rx", "receive pipeline");
	n = rx_stats_table(&s->rx, names, values, RX_STATS_COUNT);
	for (uint32_t i = 0; i < n; i++)
		kv_u64(o, names[i], values[i]);
	end(o);

	begin(o, "mtoe", "mirror TOE");
#define MG(name) kv_u64(o, #name, s->mtoe.name);
	MTOE_STATS_FIELDS(MG)
#undef MG
	end(o);

	begin_array(o, "connections");
	for (uint32_t i = 0; i < s->nconns; i++) {
		const struct toed_dp_conn *c = &s->conn[i];
		if (c->state == MTOE_FREE)
			continue;
		const char *feed = c->feed >= 0 && (uint32_t)c->feed < t->cfg->nfeeds ? t->cfg->feed[c->feed].name : "";
		snprintf(title, sizeof title, "connection %u", i);
		begin(o, NULL, title);
		if (o->json)
			kv_u64(o, "slot", i);
		kv_str(o, "state", conn_state(c->state));
		kv_str(o, "feed", feed);
		kv_str(o, "exchange", ip_str(c->saddr, c->sport, a, sizeof a));
		kv_str(o, "vendor", ip_str(c->daddr, c->dport, b, sizeof b));
		kv_bool(o, "syn_seen", c->syn_seen);
		kv_u64(o, "stream_offset", c->nxt_off);
#define MC(name) kv_u64(o, #name, c->st.name);
		MTOE_CONN_STATS_FIELDS(MC)
#undef MC
		end(o);
	}
	end_array(o);

	if (s->tcp_on)
		report_tcp(t, o, s);

	begin_array(o, "streams");
	for (uint32_t i = 0; i < s->nstreams; i++) {
		const struct rx_stream_stats *ss = &s->sst[i];
		int tcp = i < s->nconns;
		if (!ss->bytes && !ss->records && !ss->gaps && !ss->resets && !ss->datagrams)
			continue;
		if (tcp)
			snprintf(title, sizeof title, "stream %u (tcp connection %u)", i, i);
		else
			snprintf(title, sizeof title, "stream %u (udp port %u)", i, s->udp_port[i - s->nconns]);
		begin(o, NULL, title);
		if (o->json)
			kv_u64(o, "stream", i);
		kv_str(o, "kind", tcp ? "tcp" : "udp");
		if (!tcp)
			kv_u64(o, "udp_port", s->udp_port[i - s->nconns]);
		n = rx_stream_stats_table(ss, names, values, RX_STREAM_STATS_COUNT);
		for (uint32_t k = 0; k < n; k++)
			kv_u64(o, names[k], values[k]);
		kv_u64(o, "messages", s->messages[i]);
		begin(o, "errors", NULL);
		for (uint32_t e = 1; e < FAST_ERR_COUNT; e++) {
			if (!s->errors[i][e])
				continue;
			char key[48];
			snprintf(key, sizeof key, o->json ? "%s" : "error.%s", fast_err_name((int)e));
			kv_u64(o, key, s->errors[i][e]);
		}
		end(o);
		end(o);
	}
	end_array(o);
	report_sequence(t, o, s);
	report_common(t, o);
}

/* Name of sequence group g as dp_setup numbers them: 0 the default, then named groups in order of first use. */
static const char *group_name(const struct toed_config *c, uint32_t g)
{
	uint32_t n = 0;
	if (g == 0)
		return "default";
	for (uint32_t i = 0; i < c->nfeeds; i++) {
		int first = c->feed[i].group[0] != 0;
		for (uint32_t k = 0; k < i && first; k++)
			if (strcmp(c->feed[k].group, c->feed[i].group) == 0)
				first = 0;
		if (first && ++n == g)
			return c->feed[i].group;
	}
	return "?";
}

/* Sequence tracking ([fast] sequence_check): per group its lines (who won, who lost what)
 * and per channel its state (last sequence, gaps, duplicates). */
static void report_sequence(struct toed *t, struct out *o, const struct toed_dp_snapshot *s)
{
	char title[96], key[48];
	const char *names[32];
	uint64_t values[32];
	if (!s->seq_on)
		return;
	begin_array(o, "sequence_groups");
	for (uint32_t g = 0; g < s->seq_groups && g < RX_MAX_GROUPS; g++) {
		const struct toed_dp_seq_group *d = &s->seq[g];
		uint32_t n;
		if (!d->nchan)
			continue;
		snprintf(title, sizeof title, "sequence group %u (%s), %u line%s", g + 1, group_name(t->cfg, g),
			 d->nlines, d->nlines == 1 ? "" : "s");
		begin(o, NULL, title);
		if (o->json) {
			kv_u64(o, "group", g + 1);
			kv_str(o, "name", group_name(t->cfg, g));
			kv_u64(o, "lines", d->nlines);
		}
		n = seq_group_stats_table(&d->st, names, values, 32);
		for (uint32_t k = 0; k < n && k < 32; k++)
			kv_u64(o, names[k], values[k]);
		for (uint32_t l = 0; l < d->nlines && l < SEQ_MAX_LINES; l++) {
			n = seq_line_stats_table(&d->line[l], names, values, 32);
			for (uint32_t k = 0; k < n && k < 32; k++) {
				snprintf(key, sizeof key, "line%u.%s", l, names[k]);
				kv_u64(o, key, values[k]);
			}
		}
		begin_array(o, "channels");
		for (uint32_t k = 0; k < d->nchan && k < SEQ_MAX_CHANNELS; k++) {
			const struct toed_dp_seq_chan *c = &d->chan[k];
			if (o->json) {
				begin(o, NULL, NULL);
				kv_u64(o, "channel", c->id);
				kv_u64(o, "last", c->last);
				kv_u64(o, "delivered", c->delivered);
				kv_u64(o, "duplicates", c->dups);
				kv_u64(o, "gaps", c->gaps);
				kv_u64(o, "missing", c->missing);
				kv_u64(o, "late", c->late);
				kv_u64(o, "restarts", c->restarts);
				kv_u64(o, "open_holes", c->holes);
				end(o);
			} else {
				fprintf(o->f,
					"  channel %-6u last %-12" PRIu64 " delivered %-10" PRIu64 " dups %-8" PRIu64
					" gaps %-6" PRIu64 " missing %-8" PRIu64 " late %-8" PRIu64 " restarts %" PRIu64
					"%s\n",
					c->id, c->last, c->delivered, c->dups, c->gaps, c->missing, c->late, c->restarts,
					c->holes ? " (holes open)" : "");
			}
		}
		end_array(o);
		end(o);
	}
	end_array(o);
}

/* The blocks both backends have: publisher, control socket, recorder. */
static void report_common(struct toed *t, struct out *o)
{
	struct pub_stats ps;
	pub_get_stats(t->pub, &ps);
	begin(o, "publisher", "publisher");
	kv_u64(o, "epoch", ps.epoch);
	kv_u64(o, "clients", ps.clients);
	kv_u64(o, "zombies", ps.zombies);
	kv_u64(o, "published", ps.published);
	kv_u64(o, "delivered", ps.delivered);
	kv_u64(o, "dropped", ps.dropped);
	kv_u64(o, "rings_created", ps.rings_created);
	kv_u64(o, "rings_reclaimed", ps.rings_reclaimed);
	kv_u64(o, "hugepage_fallbacks", ps.hugepage_fallbacks);
	kv_u64(o, "wakeups", ps.wakeups);
	kv_u64(o, "ring_bytes", ps.ring_bytes);
	kv_u64(o, "ring_budget_refusals", ps.budget_refusals);
	end(o);

	struct ctl_stats cs;
	memset(&cs, 0, sizeof cs);
	if (t->ctl)
		ctl_server_get_stats(t->ctl, &cs);
	begin(o, "control", "control socket");
	kv_u64(o, "connections", cs.connections);
	kv_u64(o, "accepted", cs.accepted);
	kv_u64(o, "refused", cs.refused);
	kv_u64(o, "hangups", cs.hangups);
	kv_u64(o, "bad_messages", cs.bad_messages);
	kv_u64(o, "subscribes", cs.subscribes);
	kv_u64(o, "slow_clients", cs.slow_clients);
	kv_u64(o, "fds_refused", cs.fds_refused);
	kv_bool(o, "kernel_refuses_fds", cs.refuses_fds);
	kv_u64(o, "handshake_timeouts", cs.handshake_timeouts);
	kv_u64(o, "uid_limit", cs.uid_limit);
	kv_u64(o, "over_budget", cs.over_budget);
	kv_u64(o, "accept_errors", cs.accept_errors);
	kv_u64(o, "accept_pauses", cs.accept_pauses);
	struct ctl_fds_stats fs;
	ctl_fds_get_stats(&fs);
	kv_u64(o, "passed_fds_closed", fs.closed_here);
	kv_u64(o, "passed_fds_handed_off", fs.handed_off);
	kv_u64(o, "passed_fds_kept_open", fs.kept_open);
	end(o);

	struct toed_rec_stats rs;
	toed_record_stats(t->rec, &rs);
	begin(o, "record", "recording");
	kv_str(o, "pcap", rs.path[TOED_REC_PCAP]);
	kv_u64(o, "frames", rs.items[TOED_REC_PCAP]);
	kv_u64(o, "frames_dropped", rs.dropped[TOED_REC_PCAP]);
	kv_u64(o, "pcap_bytes", rs.bytes_written[TOED_REC_PCAP]);
	kv_str(o, "ticks", rs.path[TOED_REC_TICKS]);
	kv_u64(o, "ticks_recorded", rs.items[TOED_REC_TICKS]);
	kv_u64(o, "ticks_dropped", rs.dropped[TOED_REC_TICKS]);
	kv_u64(o, "ticks_bytes", rs.bytes_written[TOED_REC_TICKS]);
	kv_u64(o, "write_errors", rs.write_errors);
	kv_u64(o, "chunks_in_flight", rs.chunks_in_flight);
	end(o);
}

/* ---- clients ----------------------------------------------------------------------------- */

/* key: the array's name inside an object, NULL for the top level */
static void report_clients(struct toed *t, struct out *o, const char *key)
{
	unsigned max = t->cfg->shm.max_clients + 16;
	struct ctl_peer *peers = calloc(max, sizeof *peers);
	unsigned n = peers && t->ctl ? ctl_server_peers(t->ctl, peers, max) : 0;
	if (!o->json) {
		if (key)
			fprintf(o->f, "\n[clients]\n");
		fprintf(o->f, "%-6s %-8s %-6s %-20s %-6s %-8s %-12s %-10s %-8s %s\n", "id", "pid", "uid", "name", "pages",
			"ring", "delivered", "dropped", "backlog", "stream");
	}
	begin_array(o, key);
	for (unsigned i = 0; i < n; i++) {
		const struct ctl_peer *p = &peers[i];
		struct pub_client_stats cs;
		struct pub_client *pc = p->client_id ? pub_client_find(t->pub, p->client_id) : NULL;
		memset(&cs, 0, sizeof cs);
		if (pc)
			pub_client_get_stats(pc, &cs);
		uint64_t delivered = cs.offered - cs.dropped;
		if (o->json) {
			begin(o, NULL, NULL);
			kv_u64(o, "client_id", p->client_id);
			kv_u64(o, "pid", (uint64_t)p->pid);
			kv_u64(o, "uid", (uint64_t)p->uid);
			kv_u64(o, "gid", (uint64_t)p->gid);
			kv_str(o, "name", p->name);
			kv_bool(o, "subscribed", pc != NULL);
			kv_u64(o, "capacity", cs.capacity);
			kv_bool(o, "hugetlb", cs.hugetlb);
			kv_u64(o, "offered", cs.offered);
			kv_u64(o, "delivered", delivered);
			kv_u64(o, "dropped", cs.dropped);
			kv_u64(o, "backlog", cs.backlog);
			kv_str(o, "stream", cs.stream); /* "": every stream */
			end(o);
		} else {
			fprintf(o->f, "%-6u %-8d %-6u %-20s %-6s %-8u %-12" PRIu64 " %-10" PRIu64 " %-8" PRIu64 " %s\n",
				p->client_id, (int)p->pid, (unsigned)p->uid, p->name[0] ? p->name : "-",
				pc ? (cs.hugetlb ? "2M" : "4K") : "-", cs.capacity, delivered, cs.dropped, cs.backlog,
				cs.stream[0] ? cs.stream : pc ? "*" : "-");
		}
	}
	end_array(o);
	if (!o->json)
		fprintf(o->f, "%u connection%s (toectl's own included)\n", n, n == 1 ? "" : "s");
	free(peers);
}

/* ---- latency ([dataplane] trace) --------------------------------------------------------- */

static void report_hist(struct out *o, const char *key, const char *heading, const struct dp_hist *h)
{
	static const struct {
		const char *name;
		uint32_t ppm;
	} q[] = { { "p50", 500000 }, { "p90", 900000 }, { "p99", 990000 }, { "p999", 999000 } };
	begin(o, key, heading);
	kv_u64(o, "records", h->count);
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
		char k[16];
		snprintf(k, sizeof k, o->json ? "%s_ns" : "%s (ns)", q[i].name);
		kv_u64(o, k, dp_hist_pct(h, q[i].ppm));
	}
	kv_u64(o, o->json ? "max_ns" : "max (ns)", h->max_ns);
	kv_u64(o, o->json ? "mean_ns" : "mean (ns)", h->count ? h->sum_ns / h->count : 0);
	end(o);
}

static void report_latency(struct out *o, const struct toed_dp_snapshot *s)
{
	const struct dp_trace *tr = &s->trace;
	begin(o, NULL, NULL);
	kv_bool(o, "tracing", tr->since_ns != 0);
	if (!tr->since_ns && !o->json)
		fprintf(o->f, "(set [dataplane] trace = yes and reload to measure; a pcap replay is not traced)\n");
	kv_u64(o, o->json ? "seconds" : "seconds traced", tr->since_ns ? (mono_ns() - tr->since_ns) / 1000000000ull : 0);
	kv_u64(o, "late_stamps", tr->late_stamps);
	kv_u64(o, "unordered", tr->unordered);
	report_hist(o, "arrival_to_pickup", "frame arrival stamp -> found in the socket's ring (the kernel's delivery; "
		    "AF_XDP only)", &tr->h[DP_TRACE_PICKUP]);
	report_hist(o, "arrival_to_pickup_idle", "... of the frames found right after an empty poll (the data plane "
		    "was free: no wait behind earlier frames)", &tr->h[DP_TRACE_PICKUP_IDLE]);
	report_hist(o, "arrival_to_taken", "frame arrival stamp -> the data plane starts on the frame",
		    &tr->h[DP_TRACE_TAKEN]);
	report_hist(o, "arrival_to_decoded", "frame arrival stamp -> records out of the receive pipeline",
		    &tr->h[DP_TRACE_DECODED]);
	report_hist(o, "arrival_to_visible", "frame arrival stamp -> records visible in the clients' rings",
		    &tr->h[DP_TRACE_VISIBLE]);
	report_hist(o, "pickup_to_visible", "found in the socket's ring -> records visible (toed's own part; AF_XDP "
		    "only)", &tr->h[DP_TRACE_OWN]);
	end(o);
}

/* toectl seq: the sequence-tracking counters of the receive pipeline (seq_*, msg_*), then
 * report_sequence's groups and channels. */
static void report_seq(struct toed *t, struct out *o, const struct toed_dp_snapshot *s)
{
	const char *names[RX_STATS_COUNT];
	uint64_t values[RX_STATS_COUNT];
	uint32_t n;
	begin(o, NULL, NULL);
	kv_bool(o, "sequence_check", s->seq_on);
	if (!s->seq_on && !o->json)
		fprintf(o->f, "(sequence tracking is off: set [fast] sequence_check = yes and restart)\n");
	n = rx_stats_table(&s->rx, names, values, RX_STATS_COUNT);
	for (uint32_t k = 0; k < n && k < RX_STATS_COUNT; k++)
		if (!strncmp(names[k], "seq_", 4) || !strncmp(names[k], "msg_", 4))
			kv_u64(o, names[k], values[k]);
	report_sequence(t, o, s);
	end(o);
}

/* ---- entry ----------------------------------------------------------------------------------- */

int toed_admin_report(struct toed *t, int what, int json, uid_t peer_uid, char **text, size_t *len)
{
	struct out o;
	int rc = 0;
	*text = NULL;
	*len = 0;
	memset(&o, 0, sizeof o);
	o.json = json;
	o.first[0] = 1;
	o.f = open_memstream(text, len);
	if (!o.f)
		return -ENOMEM;
	switch (what) {
	case TOED_REPORT_STATUS:
		toed_dp_snapshot(&t->dp, t->snap);
		report_status(t, &o, t->snap);
		break;
	case TOED_REPORT_STATS:
		toed_dp_snapshot(&t->dp, t->snap);
		report_stats(t, &o, t->snap);
		report_clients(t, &o, "clients");
		end(&o);
		break;
	case TOED_REPORT_CLIENTS:
		report_clients(t, &o, NULL);
		break;
	case TOED_REPORT_LATENCY:
		toed_dp_snapshot(&t->dp, t->snap);
		report_latency(&o, t->snap);
		break;
	case TOED_REPORT_SEQ:
		toed_dp_snapshot(&t->dp, t->snap);
		report_seq(t, &o, t->snap);
		break;
	case TOED_REPORT_RELOAD: {
		if (peer_uid != 0 && peer_uid != getuid()) {
			fprintf(o.f, "reload: only root or uid %u may reload toed\n", (unsigned)getuid());
			rc = -EPERM;
			break;
		}
		char *rep = NULL;
		int r = toed_reload(t, &rep);
		if (o.json) {
			begin(&o, NULL, NULL);
			kv_bool(&o, "applied", r == 0);
			kv_str(&o, "report", rep ? rep : "");
			end(&o);
		} else {
			fputs(rep ? rep : "", o.f);
		}
		free(rep);
		if (r < 0)
			rc = -EINVAL;
		break;
	}
	default:
		fprintf(o.f, "unknown report %d\n", what);
		rc = -EOPNOTSUPP;
		break;
	}
	if (o.json)
		fputc('\n', o.f);
	if (fclose(o.f) != 0) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return rc;
}
