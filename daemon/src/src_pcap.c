/* src_pcap.c - replay of a capture file (libpcap, nanosecond timestamps) as a frame source.
 *
 * Frames are copied into an arena of the source so a burst can hold several
 * (libpcap reuses its buffer on every read). With pace > 0 frame i is due at
 * start + (ts_i - ts_0) / pace, start being the first src_rx_burst call, so
 * the time spent opening the daemon does not make the first frames late; a
 * frame read but not yet due waits in libpcap's buffer (no further read is
 * made until it is delivered). Linux cooked (SLL, SLL2) and raw IPv4
 * captures get a synthetic Ethernet header (kernels/net/host/net_link.c,
 * shared with toe-pcapdump), so the pipeline always sees Ethernet.
 *
 * A file that is cut short (a copy still being written, a full disk) or
 * corrupt (a record length beyond any snap length) ends the play where it
 * goes bad, exactly like the end of the file: what was read before is
 * delivered, libpcap's reason goes into the source's note and pcap_cut
 * counts it. Reading garbage on would only feed the pipeline noise, and
 * failing the source would take down a daemon that clients still use.
 */
#include "src/src_impl.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/host/net_link.h"

#define PCAP_ARENA_MIN (256u * 1024u)  /* >= 2 * (SRC_MAX_FRAME + 14) */

struct src_pcap {
	struct src base;
	char *path;
	pcap_t *p;
	int dlt;
	double pace;
	uint32_t loops;          /* plays in total (SRC_LOOP_FOREVER: endless) */
	uint32_t loop;           /* current play, from 0 */
	int eof;                 /* SRC_EOF returned */
	int ended;               /* no frame left to read */

	/* the frame read from libpcap and not delivered yet (valid until the next pcap_next_ex) */
	int have_pending;
	struct pcap_pkthdr pend_hdr;
	const uint8_t *pend_data;

	/* timeline */
	int have_first;
	uint64_t first_ts;       /* first frame of the file (recorded time) */
	uint64_t last_ts;        /* latest frame of the current play (recorded time) */
	uint64_t count;          /* frames of the first play */
	uint64_t play_frames;    /* frames read in the current play */
	uint64_t loop_shift;     /* added to recorded times in the current play */
	int started;
	struct timespec start;   /* CLOCK_MONOTONIC at the first burst */

	uint8_t *arena;
	size_t arena_cap, arena_used;

	struct src_stats st;
};

static int pcap_open_file(struct src_pcap *s, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	ebuf[0] = '\0';
	s->p = pcap_open_offline_with_tstamp_precision(s->path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!s->p)
		return src_err(err, errlen, "pcap %s: %s", s->path, ebuf[0] ? ebuf : "cannot open");
	s->dlt = pcap_datalink(s->p);
	if (!net_link_supported(s->dlt)) {
		const char *name = pcap_datalink_val_to_name(s->dlt);
		src_err(err, errlen,
			"pcap %s: link type %d (%s) not supported; need Ethernet, Linux cooked (SLL/SLL2) or raw IPv4",
			s->path, s->dlt, name ? name : "?");
		pcap_close(s->p);
		s->p = NULL;
		return -1;
	}
	return 0;
}

static uint64_t hdr_ts(const struct pcap_pkthdr *h)
{
	/* opened with nanosecond precision: tv_usec holds nanoseconds */
	return (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
}

static int arena_reserve(struct src_pcap *s, size_t need, int may_grow)
{
	uint8_t *n;
	size_t cap;
	if (s->arena_used + need <= s->arena_cap)
		return 0;
	if (!may_grow)
		return -1;
	cap = s->arena_cap;
	while (cap < s->arena_used + need)
		cap *= 2;
	n = realloc(s->arena, cap);
	if (!n)
		return -1;
	s->arena = n;
	s->arena_cap = cap;
	return 0;
}

static void ts_add_ns(struct timespec *t, const struct timespec *base, uint64_t ns)
{
	uint64_t nsec = (uint64_t)base->tv_nsec + ns % 1000000000u;
	t->tv_sec = base->tv_sec + (time_t)(ns / 1000000000u) + (time_t)(nsec / 1000000000u);
	t->tv_nsec = (long)(nsec % 1000000000u);
}

static int ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* When the pending frame is due (CLOCK_MONOTONIC). */
static void due_time(const struct src_pcap *s, uint64_t ts, struct timespec *due)
{
	double off = ts > s->first_ts ? (double)(ts - s->first_ts) / s->pace : 0.0;
	ts_add_ns(due, &s->start, off > 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)off);
}

/* Start the next play after the end of the file; 1 started, 0 no more plays (or the file cannot be reopened). */
static int next_loop(struct src_pcap *s)
{
	uint64_t span, gap;
	if (s->loops != SRC_LOOP_FOREVER && s->loop + 1 >= s->loops)
		return 0;
	if (!s->have_first)
		return 0; /* an empty file: nothing to repeat */
	if (s->loop == 0 && s->count == 0)
		return 0;
	span = s->last_ts >= s->first_ts + s->loop_shift ? s->last_ts - (s->first_ts + s->loop_shift) : 0;
	gap = s->count > 1 ? span / (s->count - 1) : 0;
	pcap_close(s->p);
	s->p = NULL;
	char why[256];
	if (pcap_open_file(s, why, sizeof why) < 0) {
		src_note_set(&s->base, "%.300s: cannot reopen it for play %u: the replay ends", why, s->loop + 2);
		return 0;
	}
	s->play_frames = 0;
	s->loop_shift += span + gap;
	s->loop++;
	return 1;
}

/* The file went bad (truncated, corrupt, gone): note why and end this play there. */
static void play_cut(struct src_pcap *s, const char *why)
{
	s->st.pcap_cut++;
	src_note_set(&s->base, "pcap %.200s: play %u ends early after %llu frame%s: %.300s", s->path, s->loop + 1,
		 (unsigned long long)s->play_frames, s->play_frames == 1 ? "" : "s", why);
}

/* Read the next frame into pend_*; 1 ok, 0 end of the replay. A read error
 * ends the play (play_cut), so there is no error return left. */
static int read_next(struct src_pcap *s)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int r;
	if (s->ended)
		return 0;
	for (;;) {
		r = pcap_next_ex(s->p, &h, &d);
		if (r == 1) {
			uint64_t ts = hdr_ts(h);
			s->pend_hdr = *h;
			s->pend_data = d;
			s->have_pending = 1;
			if (!s->have_first) {
				s->have_first = 1;
				s->first_ts = ts;
			}
			if (s->loop == 0)
				s->count++;
			s->play_frames++;
			return 1;
		}
		if (r != PCAP_ERROR_BREAK) /* PCAP_ERROR: truncated or corrupt from here on */
			play_cut(s, pcap_geterr(s->p));
		s->st.pcap_loops++;
		if (!next_loop(s)) {
			s->ended = 1;
			return 0;
		}
	}
}

static int pcap_rx_burst(struct src *base, struct src_frame *f, int max)
{
	struct src_pcap *s = (struct src_pcap *)base;
	struct timespec now;
	int n = 0;

	if (s->eof)
		return SRC_EOF;
	s->arena_used = 0;
	if (s->pace > 0)
		clock_gettime(CLOCK_MONOTONIC, &now);
	while (n < max) {
		uint8_t hdr[14];
		uint32_t skip, pre, caplen, wire, take;
		uint64_t ts;
		uint8_t *dst;

		if (!s->have_pending) {
			int r = read_next(s);
			if (r == 0) {
				if (n > 0)
					break; /* SRC_EOF on the next call */
				s->eof = 1;
				return SRC_EOF;
			}
			if (r < 0)
				return n > 0 ? n : -1;
		}
		ts = hdr_ts(&s->pend_hdr) + s->loop_shift;
		if (s->pace > 0) {
			struct timespec due;
			if (!s->started) {
				s->started = 1;
				s->start = now;
			}
			due_time(s, ts, &due);
			if (ts_before(&now, &due))
				break;
		}
		caplen = s->pend_hdr.caplen;
		pre = net_link_eth_prefix(s->dlt, s->pend_data, caplen, hdr, &skip);
		wire = s->pend_hdr.len - (s->pend_hdr.len >= skip ? skip : s->pend_hdr.len) + pre;
		take = caplen - skip + pre;
		if (take > SRC_MAX_FRAME)
			take = SRC_MAX_FRAME;
		if (arena_reserve(s, take, n == 0) < 0) {
			if (n > 0)
				break;
			errno = ENOMEM;
			return -1;
		}
		dst = s->arena + s->arena_used;
		memcpy(dst, hdr, pre);
		memcpy(dst + pre, s->pend_data + skip, take - pre);
		s->arena_used += take;
		s->have_pending = 0;
		s->last_ts = ts;
		if (pre)
			s->st.pcap_converted++;
		if (take < wire)
			s->st.truncated++;
		s->st.frames++;
		s->st.bytes += take;
		f[n].data = dst;
		f[n].len = take;
		f[n].wire_len = wire < take ? take : wire;
		f[n].ts_ns = ts;
		f[n].clock = TOE_CLK_CAPTURE;
		f[n].csum = SRC_CSUM_UNKNOWN; /* no per-frame word on the checksum */
		f[n].pick_ns = 0;
		n++;
	}
	return n;
}

static void pcap_rx_release(struct src *base)
{
	(void)base; /* the arena is reused by the next burst */
}

static int pcap_wait(struct src *base, int timeout_ms)
{
	struct src_pcap *s = (struct src_pcap *)base;
	struct timespec now, due, limit;
	int r;

	if (s->eof || s->pace <= 0)
		return 1;
	if (!s->have_pending) {
		r = read_next(s);
		if (r <= 0)
			return 1; /* the next burst reports the end or the error */
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s->started) {
		s->started = 1;
		s->start = now;
	}
	due_time(s, hdr_ts(&s->pend_hdr) + s->loop_shift, &due);
	if (!ts_before(&now, &due))
		return 1;
	if (timeout_ms >= 0) {
		ts_add_ns(&limit, &now, (uint64_t)timeout_ms * 1000000u);
		if (ts_before(&limit, &due)) {
			r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &limit, NULL);
			return r == 0 || r == EINTR ? 0 : (errno = r, -1);
		}
	}
	r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
	if (r == EINTR)
		return 0;
	if (r) {
		errno = r;
		return -1;
	}
	return 1;
}

static int pcap_fd(const struct src *base)
{
	(void)base;
	return -1;
}

static void replay_stats(struct src *base, struct src_stats *st)
{
	*st = ((struct src_pcap *)base)->st;
}

static void pcap_src_close(struct src *base)
{
	struct src_pcap *s = (struct src_pcap *)base;
	if (s->p)
		pcap_close(s->p);
	free(s->arena);
	free(s->path);
	free(s);
}

static const struct src_ops pcap_ops = {
	.rx_burst = pcap_rx_burst,
	.rx_release = pcap_rx_release,
	.wait = pcap_wait,
	.fd = pcap_fd,
	.stats = replay_stats,
	.set_feeds = NULL,
	.close = pcap_src_close,
};

int src_pcap_open(struct src **out, const struct src_cfg *cfg, char *err, size_t errlen)
{
	struct src_pcap *s;
	char pace[32];

	if (!cfg->pcap_path || !cfg->pcap_path[0])
		return src_err(err, errlen, "pcap source: no file given");
	if (!(cfg->pace >= 0) || cfg->pace > 1e9)
		return src_err(err, errlen, "pcap %s: pace %g out of range (0 = as fast as possible, 1.0 = recorded)",
			       cfg->pcap_path, cfg->pace);
	s = calloc(1, sizeof *s);
	if (!s)
		return src_err(err, errlen, "pcap %s: out of memory", cfg->pcap_path);
	s->base.ops = &pcap_ops;
	s->base.kind = SRC_PCAP;
	s->path = strdup(cfg->pcap_path);
	s->arena_cap = PCAP_ARENA_MIN;
	s->arena = malloc(s->arena_cap);
	if (!s->path || !s->arena) {
		pcap_src_close(&s->base);
		return src_err(err, errlen, "pcap %s: out of memory", cfg->pcap_path);
	}
	s->pace = cfg->pace;
	s->loops = cfg->loops ? cfg->loops : 1;
	if (pcap_open_file(s, err, errlen) < 0) {
		pcap_src_close(&s->base);
		return -1;
	}
	if (s->pace > 0)
		snprintf(pace, sizeof pace, "pace %g", s->pace);
	else
		snprintf(pace, sizeof pace, "as fast as possible");
	if (s->loops == SRC_LOOP_FOREVER)
		snprintf(s->base.desc, sizeof s->base.desc, "pcap %.100s %s, looping", s->path, pace);
	else
		snprintf(s->base.desc, sizeof s->base.desc, "pcap %.100s %s, %u play%s", s->path, pace, s->loops,
			 s->loops == 1 ? "" : "s");
	*out = &s->base;
	return 0;
}
