/* src_afxdp.c - AF_XDP socket (libxdp xsk.h) with the toe_steer XDP program as a frame source.
 *
 * Set-up order keeps the host's traffic flowing at every step: UMEM and
 * socket first, the socket into the XSKMAP and the feeds into the hash map,
 * and only then the program is attached, through a BPF link: the kernel
 * detaches it when the link's descriptor closes, so a crashed daemon leaves
 * no program behind to block the next start. The program is loaded with
 * libbpf (libxdp's xsk.h is used for the rings only,
 * XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD).
 *
 * Frames: the socket binds in copy mode (XDP_COPY; zero-copy needs driver
 * support veth lacks) with multi-buffer (XDP_USE_SG) when the kernel has it,
 * so frames larger than a UMEM frame arrive in several descriptors; those are
 * joined in a scratch buffer. Single-descriptor frames are delivered in place
 * in the UMEM and their frames go back to the fill ring at release. Without
 * multi-buffer, larger frames are dropped by the kernel (xsk_rx_dropped).
 *
 * Bursts: the rx ring, the fill ring and the UMEM are sized for a few ms at
 * 10 GbE line rate (src.h); every burst first hands every free frame back to
 * the fill ring in one reservation, so the fill ring is full whenever the
 * reader runs. Optionally the socket asks for preferred busy polling, and an
 * empty poll then runs the queue's NAPI in this thread (recvfrom). Drops the
 * kernel makes anyway are counted (XDP_STATISTICS), and the pipeline turns
 * the missing bytes into gaps.
 *
 * Timestamps: the program writes the arrival time into the frame's metadata
 * area (struct toe_xdp_meta, toe_steer.h); it is read here right before the
 * frame's data and the magic cleared, so a stale stamp is never taken for a
 * new one. The kernel's CLOCK_MONOTONIC stamp goes to CLOCK_REALTIME with
 * the offset between the two clocks read at each burst.
 *
 * Restarts: the kernel releases a closed or dead XDP socket asynchronously;
 * for some 10-40 ms a new bind to the same queue fails with EBUSY. The bind
 * is retried for xdp_bind_wait_ms (2 s) before that is an error.
 */
#include "src/src_impl.h"

#include "base/mem_touch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "src/bpf/toe_steer.h"

#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4)       /* linux 6.6 */
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)    /* xdp_desc.options: more descriptors of this frame follow */
#endif

#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6) /* linux 6.3: a program using device kfuncs */
#endif
#ifndef SO_BUSY_POLL
#define SO_BUSY_POLL 46
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69  /* linux 5.11 */
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70  /* linux 5.11 */
#endif

#define XDP_BUSY_POLL_US 20       /* SO_BUSY_POLL: NAPI polling per blocking receive call */
#define XDP_BUSY_POLL_BUDGET 64   /* frames per NAPI poll from our recvfrom */
#define XDP_COMP_RING 64u         /* no transmit: the completion ring stays empty */
#define XDP_TX_KICK 32u           /* frames submitted before src_tx kicks the kernel itself */
#define XDP_MAX_DESC_PER_FRAME 18u /* 64 KB in 4 KB frames + the head */

struct src_xdp {
	struct src base;
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint32_t queue;
	uint32_t mode_flag;             /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */

	struct bpf_object *obj;
	int prog_fd, link_fd;
	int xsks_fd, feeds_fd, stats_fd;
	int prog_frags;                 /* the program was loaded with BPF_F_XDP_HAS_FRAGS */

	void *area;
	size_t area_len;
	uint32_t frame_size, nframes, rx_size, fill_size;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;        /* transmit (cfg.tx): frames from the tx pool */
	int txon;                       /* opened with a tx ring */
	uint64_t *tx_free;              /* tx pool frames not in the tx ring */
	uint32_t tx_nfree;
	uint32_t tx_pending;            /* submitted since the last kick */
	int sg;                         /* bound with XDP_USE_SG */
	int busy;                       /* preferred busy polling accepted: drive NAPI when empty */
	int hw_prog;                    /* toe_steer_hw loaded (asks the NIC for its stamp) */
	int plain_prog;                 /* toe_steer_plain loaded (no stamps: stamped at the poll) */
	char busy_why[96];              /* why busy polling is off when it was asked for */

	uint64_t *free_addr;            /* frames owned here, not in the fill ring */
	uint32_t nfree;
	uint64_t *held;                 /* frames delivered and not yet released */
	uint32_t nheld;

	uint8_t *scratch;               /* multi-buffer frames joined */
	size_t scratch_cap;

	struct src_stats st;            /* frames, bytes, truncated, xsk_multibuf */
};

/* ---- libbpf messages: keep the last warning for the error text ---- */

static char xdp_last_warn[256];

static int xdp_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[256];
	size_t n;
	if (level != LIBBPF_WARN)
		return 0;
	vsnprintf(line, sizeof line, fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (n)
		memcpy(xdp_last_warn, line, n + 1);
	return 0;
}

/* ---- feeds ---- */

static int feeds_check(const struct src_feed *feeds, uint32_t n, char *err, size_t errlen)
{
	uint32_t i;
	if (n > SRC_MAX_FEEDS)
		return src_err(err, errlen, "%u feeds: at most %u", n, SRC_MAX_FEEDS);
	if (n && !feeds)
		return src_err(err, errlen, "feeds: no array given");
	for (i = 0; i < n; i++) {
		if (feeds[i].proto == SRC_PROTO_ICMP || feeds[i].proto == SRC_PROTO_ARP) {
			if (!feeds[i].ip || feeds[i].port)
				return src_err(err, errlen, "feed %u: ICMP/ARP rules name an address and no port", i);
			continue;
		}
		if (feeds[i].proto != 6 && feeds[i].proto != 17)
			return src_err(err, errlen, "feed %u: protocol %u (TCP 6, UDP 17, ICMP 1, ARP 254)", i,
				       feeds[i].proto);
		if (!feeds[i].ip && !feeds[i].port)
			return src_err(err, errlen, "feed %u: address and port both any would steer all %s traffic",
				       i, feeds[i].proto == 6 ? "TCP" : "UDP");
	}
	return 0;
}

static struct toe_feed_key feed_key(const struct src_feed *f)
{
	struct toe_feed_key k;
	memset(&k, 0, sizeof k);
	k.addr = htonl(f->ip);
	k.port = htons(f->port);
	k.proto = f->proto;
	return k;
}

static int feeds_load(struct src_xdp *s, const struct src_feed *feeds, uint32_t n, char *err, size_t errlen)
{
	struct toe_feed_key old[TOE_STEER_MAX_FEEDS + 1];
	struct toe_feed_key k, next;
	uint32_t i, j, nold = 0;
	uint32_t one = 1;
	void *prev = NULL;

	if (feeds_check(feeds, n, err, errlen) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		k = feed_key(&feeds[i]);
		if (bpf_map_update_elem(s->feeds_fd, &k, &one, BPF_ANY) < 0)
			return src_err(err, errlen, "feed %u: map update: %s", i, strerror(errno));
	}
	/* then drop the rules that are not in the new set */
	while (nold <= TOE_STEER_MAX_FEEDS && bpf_map_get_next_key(s->feeds_fd, prev, &next) == 0) {
		old[nold] = next;
		prev = &old[nold];
		nold++;
	}
	for (j = 0; j < nold; j++) {
		for (i = 0; i < n; i++) {
			k = feed_key(&feeds[i]);
			if (!memcmp(&k, &old[j], sizeof k))
				break;
		}
		if (i == n)
			bpf_map_delete_elem(s->feeds_fd, &old[j]);
	}
	return 0;
}

/* ---- rings ---- */

static void xdp_refill(struct src_xdp *s)
{
	uint32_t n, i, idx = 0;
	if (!s->nfree)
		return;
	n = xsk_prod_nb_free(&s->fq, s->nfree);
	if (n > s->nfree)
		n = s->nfree;
	if (!n || xsk_ring_prod__reserve(&s->fq, n, &idx) != n)
		return;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&s->fq, idx + i) = s->free_addr[--s->nfree];
	xsk_ring_prod__submit(&s->fq, n);
}

static int xdp_rx_burst(struct src *base, struct src_frame *f, int max)
{
	struct src_xdp *s = (struct src_xdp *)base;
	uint32_t budget, nd, used = 0, idx = 0, scratch_used = 0;
	uint64_t ts, mono_off;
	int n = 0;

	xdp_refill(s);
	budget = (uint32_t)max + XDP_MAX_DESC_PER_FRAME;
	if (budget > s->rx_size)
		budget = s->rx_size;
	nd = xsk_ring_cons__peek(&s->rx, budget, &idx);
	if (!nd) {
		/* busy polling: one NAPI round of the queue in this thread */
		if (s->busy || xsk_ring_prod__needs_wakeup(&s->fq))
			recvfrom(xsk_socket__fd(s->xsk), NULL, 0, MSG_DONTWAIT, NULL, NULL);
		return 0;
	}
	{
		struct timespec rt, mt;
		clock_gettime(CLOCK_MONOTONIC, &mt);
		clock_gettime(CLOCK_REALTIME, &rt);
		ts = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
		mono_off = ts - ((uint64_t)mt.tv_sec * 1000000000u + (uint64_t)mt.tv_nsec);
	}
	while (used < nd && n < max) {
		const struct xdp_desc *d0 = xsk_ring_cons__rx_desc(&s->rx, idx + used);
		uint32_t last = used, k, total = 0, take;
		const uint8_t *data;

		while (last < nd && (xsk_ring_cons__rx_desc(&s->rx, idx + last)->options & XDP_PKT_CONTD))
			last++;
		if (last == nd)
			break; /* the rest of this frame is not in the ring yet */
		if (last == used) {
			data = xsk_umem__get_data(s->area, d0->addr);
			total = take = d0->len;
		} else {
			uint8_t *dst = s->scratch + scratch_used;
			uint32_t copied = 0;
			for (k = used; k <= last; k++)
				total += xsk_ring_cons__rx_desc(&s->rx, idx + k)->len;
			take = total < SRC_MAX_FRAME ? total : SRC_MAX_FRAME;
			if (scratch_used + take > s->scratch_cap)
				break; /* opens the next burst (the scratch holds at least one) */
			for (k = used; k <= last && copied < take; k++) {
				const struct xdp_desc *d = xsk_ring_cons__rx_desc(&s->rx, idx + k);
				uint32_t piece = d->len < take - copied ? d->len : take - copied;
				memcpy(dst + copied, xsk_umem__get_data(s->area, d->addr), piece);
				copied += piece;
			}
			data = dst;
			scratch_used += take;
			s->st.xsk_multibuf++;
		}
		if (take > SRC_MAX_FRAME)
			take = SRC_MAX_FRAME; /* a single descriptor is never this long; kept for safety */
		for (k = used; k <= last; k++)
			s->held[s->nheld++] = xsk_ring_cons__rx_desc(&s->rx, idx + k)->addr;
		if (take < total)
			s->st.truncated++;
		s->st.frames++;
		s->st.bytes += take;
		f[n].data = data;
		f[n].len = take;
		f[n].wire_len = total;
		{
			/* the stamp sits right before the first descriptor's data (the
			 * UMEM frame's headroom, ours until release) */
			struct toe_xdp_meta *m =
				(struct toe_xdp_meta *)((uint8_t *)xsk_umem__get_data(s->area, d0->addr) - sizeof *m);
			if (m->magic == TOE_XDP_META_MAGIC && m->clock == TOE_META_CLK_NIC) {
				f[n].ts_ns = m->rx_ns;
				f[n].clock = TOE_CLK_NIC;
				s->st.ts_nic++;
			} else if (m->magic == TOE_XDP_META_MAGIC && m->clock == TOE_META_CLK_MONO) {
				f[n].ts_ns = m->rx_ns + mono_off;
				f[n].clock = TOE_CLK_KERNEL;
				s->st.ts_kernel++;
			} else {
				f[n].ts_ns = ts;
				f[n].clock = TOE_CLK_POLL;
				s->st.ts_poll++;
			}
			m->magic = 0;
		}
		f[n].csum = SRC_CSUM_UNKNOWN; /* no per-frame word on the checksum */
		f[n].pick_ns = ts;
		n++;
		used = last + 1;
	}
	if (used < nd)
		xsk_ring_cons__cancel(&s->rx, nd - used);
	/* the descriptors are copied out: the ring slots can go back now, the
	 * UMEM frames only at release */
	if (used)
		xsk_ring_cons__release(&s->rx, used);
	return n;
}

/* ---- transmit: a pool of SRC_XDP_TX_FRAMES UMEM frames after the receive
 * frames; a frame goes to the tx ring, the kernel sends it at the kick
 * (copy mode: sendto) and returns its address on the completion ring. ---- */

static void xdp_tx_reclaim(struct src_xdp *s)
{
	uint32_t idx = 0, n = xsk_ring_cons__peek(&s->cq, SRC_XDP_TX_FRAMES, &idx);
	for (uint32_t i = 0; i < n; i++)
		s->tx_free[s->tx_nfree++] = *xsk_ring_cons__comp_addr(&s->cq, idx + i);
	if (n)
		xsk_ring_cons__release(&s->cq, n);
}

static void xdp_tx_flush(struct src *base)
{
	struct src_xdp *s = (struct src_xdp *)base;
	if (s->tx_pending) {
		if (sendto(xsk_socket__fd(s->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN &&
		    errno != EBUSY && errno != ENOBUFS && errno != ENETDOWN)
			s->st.tx_errors++;
		s->tx_pending = 0;
	}
	xdp_tx_reclaim(s);
}

static int xdp_tx(struct src *base, const uint8_t *frame, uint32_t len)
{
	struct src_xdp *s = (struct src_xdp *)base;
	uint32_t idx = 0;
	if (len > s->frame_size) {
		s->st.tx_too_long++;
		return -1;
	}
	if (!s->tx_nfree)
		xdp_tx_flush(base);
	if (!s->tx_nfree || xsk_ring_prod__reserve(&s->tx, 1, &idx) != 1) {
		s->st.tx_ring_full++;
		return -1;
	}
	uint64_t addr = s->tx_free[--s->tx_nfree];
	memcpy(xsk_umem__get_data(s->area, addr), frame, len);
	struct xdp_desc *d = xsk_ring_prod__tx_desc(&s->tx, idx);
	d->addr = addr;
	d->len = len;
	d->options = 0;
	xsk_ring_prod__submit(&s->tx, 1);
	s->st.tx_frames++;
	s->st.tx_bytes += len;
	if (++s->tx_pending >= XDP_TX_KICK)
		xdp_tx_flush(base);
	return 0;
}

static void xdp_rx_release(struct src *base)
{
	struct src_xdp *s = (struct src_xdp *)base;
	uint64_t mask = ~(uint64_t)(s->frame_size - 1);
	while (s->nheld)
		s->free_addr[s->nfree++] = s->held[--s->nheld] & mask;
	xdp_refill(s);
}

static int xdp_wait(struct src *base, int timeout_ms)
{
	struct src_xdp *s = (struct src_xdp *)base;
	xdp_refill(s);
	if (xsk_cons_nb_avail(&s->rx, 1))
		return 1;
	return src_poll_fd(xsk_socket__fd(s->xsk), timeout_ms);
}

static int xdp_fd(const struct src *base)
{
	return xsk_socket__fd(((const struct src_xdp *)base)->xsk);
}

static void xdp_stats(struct src *base, struct src_stats *st)
{
	struct src_xdp *s = (struct src_xdp *)base;
	struct xdp_statistics xs;
	socklen_t len = sizeof xs;
	int ncpu = libbpf_num_possible_cpus();
	uint32_t i;

	*st = s->st;
	memset(&xs, 0, sizeof xs);
	if (getsockopt(xsk_socket__fd(s->xsk), SOL_XDP, XDP_STATISTICS, &xs, &len) == 0) {
		st->xsk_rx_dropped = xs.rx_dropped;
		st->xsk_rx_invalid_descs = xs.rx_invalid_descs;
		st->xsk_rx_ring_full = xs.rx_ring_full;
		st->xsk_fill_ring_empty = xs.rx_fill_ring_empty_descs;
		st->tx_errors += xs.tx_invalid_descs;
	}
	if (ncpu <= 0 || ncpu > 4096)
		return;
	{
		uint64_t vals[ncpu], sum[TOE_STEER_NSTATS];
		int c;
		for (i = 0; i < TOE_STEER_NSTATS; i++) {
			sum[i] = 0;
			if (bpf_map_lookup_elem(s->stats_fd, &i, vals) == 0)
				for (c = 0; c < ncpu; c++)
					sum[i] += vals[c];
		}
		st->xdp_steered = sum[TOE_STEER_REDIRECTED];
		st->xdp_no_socket = sum[TOE_STEER_NO_SOCKET];
		st->xdp_passed = sum[TOE_STEER_PASSED];
	}
}

static int xdp_set_feeds(struct src *base, const struct src_feed *feeds, uint32_t n, char *err, size_t errlen)
{
	struct src_xdp *s = (struct src_xdp *)base;
	char msg[200];
	if (feeds_load(s, feeds, n, msg, sizeof msg) < 0)
		return src_err(err, errlen, "af_xdp %s: %s", s->ifname, msg);
	return 0;
}

static void xdp_close(struct src *base)
{
	struct src_xdp *s = (struct src_xdp *)base;
	if (s->link_fd >= 0)
		close(s->link_fd); /* detaches the program */
	if (s->xsk)
		xsk_socket__delete(s->xsk);
	if (s->umem)
		xsk_umem__delete(s->umem);
	if (s->area)
		munmap(s->area, s->area_len);
	if (s->obj)
		bpf_object__close(s->obj);
	free(s->free_addr);
	free(s->held);
	free(s->tx_free);
	free(s->scratch);
	free(s);
}

static const struct src_ops xdp_ops = {
	.tx = xdp_tx,
	.tx_flush = xdp_tx_flush,
	.rx_burst = xdp_rx_burst,
	.rx_release = xdp_rx_release,
	.wait = xdp_wait,
	.fd = xdp_fd,
	.stats = xdp_stats,
	.set_feeds = xdp_set_feeds,
	.close = xdp_close,
};

/* ---- set-up ---- */

/* Which program load_prog loads. */
enum { PROG_KCLOCK, PROG_HW, PROG_PLAIN };

/* variant: PROG_HW loads toe_steer_hw bound to the device (its kfunc needs
 * that), PROG_KCLOCK toe_steer, PROG_PLAIN toe_steer_plain (no stamps). */
static int load_prog(struct src_xdp *s, const char *path, int variant, int frags, char *err, size_t errlen)
{
	static const char *const names[] = { [PROG_KCLOCK] = TOE_STEER_PROG, [PROG_HW] = TOE_STEER_PROG_HW,
					     [PROG_PLAIN] = TOE_STEER_PROG_PLAIN };
	const int hw = variant == PROG_HW;
	struct bpf_program *prog;
	struct bpf_map *xsks;
	uint32_t qmax;
	int r;

	char why[128];

	xdp_last_warn[0] = '\0';
	s->obj = bpf_object__open_file(path, NULL);
	if (!s->obj) {
		libbpf_strerror(errno, why, sizeof why); /* knows libbpf's own codes (4000+) */
		return src_err(err, errlen, "BPF object %s: %s%s%s", path, why, xdp_last_warn[0] ? ": " : "",
			       xdp_last_warn);
	}
	prog = bpf_object__find_program_by_name(s->obj, names[variant]);
	xsks = bpf_object__find_map_by_name(s->obj, "toe_xsks");
	if (!prog || !xsks || !bpf_object__find_map_by_name(s->obj, "toe_feeds") ||
	    !bpf_object__find_map_by_name(s->obj, "toe_stats"))
		return src_err(err, errlen, "BPF object %s: not a toe_steer program (program %s or its maps missing)",
			       path, names[variant]);
	/* set here rather than by an "xdp.frags" section: libbpf 1.1 would add
	 * the flag at load time, out of reach of the fallback */
	{
		struct bpf_program *other;
		bpf_object__for_each_program(other, s->obj)
			if (other != prog)
				bpf_program__set_autoload(other, false);
	}
	if (frags)
		bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_XDP_HAS_FRAGS);
	else
		bpf_program__set_flags(prog, bpf_program__flags(prog) & ~BPF_F_XDP_HAS_FRAGS);
	if (hw) {
		bpf_program__set_ifindex(prog, (__u32)s->ifindex);
		bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_XDP_DEV_BOUND_ONLY);
	}
	qmax = s->queue + 1 > TOE_STEER_MAX_QUEUES ? s->queue + 1 : TOE_STEER_MAX_QUEUES;
	bpf_map__set_max_entries(xsks, qmax);
	r = bpf_object__load(s->obj);
	if (r < 0) {
		libbpf_strerror(r, why, sizeof why);
		return src_err(err, errlen, "BPF object %s: load refused: %s%s%s", path, why,
			       xdp_last_warn[0] ? ": " : "", xdp_last_warn);
	}
	s->prog_frags = (bpf_program__flags(prog) & BPF_F_XDP_HAS_FRAGS) != 0;
	s->hw_prog = hw;
	s->plain_prog = variant == PROG_PLAIN;
	s->prog_fd = bpf_program__fd(prog);
	s->xsks_fd = bpf_object__find_map_fd_by_name(s->obj, "toe_xsks");
	s->feeds_fd = bpf_object__find_map_fd_by_name(s->obj, "toe_feeds");
	s->stats_fd = bpf_object__find_map_fd_by_name(s->obj, "toe_stats");
	return 0;
}

static int make_socket(struct src_xdp *s, int sg)
{
	struct xsk_umem_config ucfg;
	struct xsk_socket_config scfg;
	int r;

	memset(&ucfg, 0, sizeof ucfg);
	ucfg.fill_size = s->fill_size;
	ucfg.comp_size = s->txon ? SRC_XDP_TX_FRAMES : XDP_COMP_RING;
	ucfg.frame_size = s->frame_size;
	ucfg.frame_headroom = 0;
	r = xsk_umem__create(&s->umem, s->area, s->area_len, &s->fq, &s->cq, &ucfg);
	if (r) {
		s->umem = NULL;
		errno = -r;
		return -1;
	}
	memset(&scfg, 0, sizeof scfg);
	scfg.rx_size = s->rx_size;
	scfg.tx_size = s->txon ? SRC_XDP_TX_FRAMES : 0;
	scfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
	scfg.xdp_flags = s->mode_flag;
	scfg.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP | (sg ? XDP_USE_SG : 0);
	r = xsk_socket__create(&s->xsk, s->ifname, s->queue, s->umem, &s->rx, s->txon ? &s->tx : NULL, &scfg);
	if (r) {
		s->xsk = NULL;
		xsk_umem__delete(s->umem);
		s->umem = NULL;
		errno = -r;
		return -2;
	}
	s->sg = sg;
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* make_socket, retried while the queue is busy: the kernel releases a
 * closed or killed socket's binding asynchronously (EBUSY for some 10-40 ms
 * after a restart), so EBUSY is retried for wait_ms before it is an error.
 * *waited gets the ms spent waiting. */
static int make_socket_retry(struct src_xdp *s, int sg, uint32_t wait_ms, uint32_t *waited)
{
	uint64_t t0 = mono_ms();
	long pause_us = 1000;
	int r;
	*waited = 0;
	for (;;) {
		r = make_socket(s, sg);
		if (r != -2 || errno != EBUSY)
			break;
		*waited = (uint32_t)(mono_ms() - t0);
		if (*waited >= wait_ms)
			break;
		{
			struct timespec ts = { 0, pause_us * 1000 };
			nanosleep(&ts, NULL);
		}
		if (pause_us < 20000)
			pause_us *= 2;
		errno = EBUSY;
	}
	if (r == 0)
		*waited = (uint32_t)(mono_ms() - t0);
	return r;
}

/* Preferred busy polling: the kernel defers the queue's interrupt work to
 * the socket's busy polling (SO_PREFER_BUSY_POLL), which a recvfrom on an
 * empty ring runs for up to SO_BUSY_POLL_BUDGET frames. Needs
 * CAP_NET_ADMIN (raising the values above the defaults); refused options
 * leave the socket as it was, with the reason in busy_why. */
static void busy_poll_setup(struct src_xdp *s)
{
	int fd = xsk_socket__fd(s->xsk), one = 1, us = XDP_BUSY_POLL_US, budget = XDP_BUSY_POLL_BUDGET, zero = 0;
	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof one) < 0) {
		snprintf(s->busy_why, sizeof s->busy_why, "SO_PREFER_BUSY_POLL refused: %s", strerror(errno));
		return;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof us) < 0) {
		snprintf(s->busy_why, sizeof s->busy_why, "SO_BUSY_POLL refused: %s", strerror(errno));
		setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &zero, sizeof zero);
		return;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof budget) < 0) {
		snprintf(s->busy_why, sizeof s->busy_why, "SO_BUSY_POLL_BUDGET refused: %s", strerror(errno));
		setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &zero, sizeof zero);
		setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &zero, sizeof zero);
		return;
	}
	s->busy = 1;
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int xdp_fail(struct src_xdp *s, int r)
{
	xdp_close(&s->base);
	return r;
}

int src_afxdp_open(struct src **out, const struct src_cfg *cfg, char *err, size_t errlen)
{
	libbpf_print_fn_t old_print;
	struct src_xdp *s;
	char msg[400];
	int ifindex, r, e;
	uint32_t i, wait_ms, waited = 0;

	if (!cfg->ifname || !cfg->ifname[0])
		return src_err(err, errlen, "af_xdp: no interface given");
	if (strlen(cfg->ifname) >= IF_NAMESIZE)
		return src_err(err, errlen, "af_xdp %s: interface name too long", cfg->ifname);
	ifindex = (int)if_nametoindex(cfg->ifname);
	if (!ifindex)
		return src_err(err, errlen, "af_xdp %s: no such interface", cfg->ifname);
	if (cfg->xdp_mode != SRC_XDP_NATIVE && cfg->xdp_mode != SRC_XDP_SKB)
		return src_err(err, errlen, "af_xdp %s: unknown XDP mode %d (native or skb)", cfg->ifname,
			       cfg->xdp_mode);
	if (!cfg->bpf_obj_path || !cfg->bpf_obj_path[0])
		return src_err(err, errlen, "af_xdp %s: no BPF object given (toe_steer.bpf.o)", cfg->ifname);
	if (access(cfg->bpf_obj_path, R_OK) < 0)
		return src_err(err, errlen, "af_xdp %s: BPF object %s: %s", cfg->ifname, cfg->bpf_obj_path,
			       strerror(errno));
	if (feeds_check(cfg->feeds, cfg->nfeeds, msg, sizeof msg) < 0)
		return src_err(err, errlen, "af_xdp %s: %s", cfg->ifname, msg);

	s = calloc(1, sizeof *s);
	if (!s)
		return src_err(err, errlen, "af_xdp %s: out of memory", cfg->ifname);
	s->base.ops = &xdp_ops;
	s->base.kind = SRC_AF_XDP;
	s->link_fd = s->prog_fd = s->xsks_fd = s->feeds_fd = s->stats_fd = -1;
	memcpy(s->ifname, cfg->ifname, strlen(cfg->ifname) + 1);
	s->ifindex = ifindex;
	s->queue = cfg->queue;
	s->mode_flag = cfg->xdp_mode == SRC_XDP_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	s->frame_size = cfg->xdp_frame_size ? cfg->xdp_frame_size : SRC_XDP_FRAME_SIZE_DEFAULT;
	s->nframes = cfg->xdp_frames ? cfg->xdp_frames : SRC_XDP_FRAMES_DEFAULT;
	s->rx_size = cfg->xdp_rx_ring ? cfg->xdp_rx_ring : SRC_XDP_RX_RING_DEFAULT;
	s->fill_size = cfg->xdp_fill_ring ? cfg->xdp_fill_ring : SRC_XDP_FILL_RING_DEFAULT;
	if (s->frame_size != 2048 && s->frame_size != 4096) {
		xdp_close(&s->base);
		return src_err(err, errlen, "af_xdp %s: frame size %u (2048 or 4096)", cfg->ifname, cfg->xdp_frame_size);
	}
	if (s->rx_size < SRC_XDP_RING_MIN || s->rx_size > SRC_XDP_RING_MAX || !is_pow2(s->rx_size) ||
	    s->fill_size < SRC_XDP_RING_MIN || s->fill_size > SRC_XDP_RING_MAX || !is_pow2(s->fill_size)) {
		src_err(err, errlen, "af_xdp %s: rx ring %u, fill ring %u: each a power of two, %u to %u",
			cfg->ifname, s->rx_size, s->fill_size, SRC_XDP_RING_MIN, SRC_XDP_RING_MAX);
		return xdp_fail(s, -1);
	}
	if (s->nframes < s->fill_size || s->nframes > SRC_XDP_FRAMES_MAX) {
		src_err(err, errlen,
			"af_xdp %s: %u UMEM frames: need at least the fill ring (%u; rx + fill ring = %u keeps "
			"it full in a burst), at most %u",
			cfg->ifname, s->nframes, s->fill_size, s->fill_size + s->rx_size, SRC_XDP_FRAMES_MAX);
		return xdp_fail(s, -1);
	}

	old_print = libbpf_set_print(xdp_print);

	/* the program: the NIC-stamping one bound to the device (not in generic
	 * mode: it refuses device-bound programs; a kernel before 6.3 has no
	 * RX-metadata kfunc), then the kernel-clock one, then the one without
	 * stamps (a verifier that refuses bpf_xdp_adjust_meta: frames stamped
	 * at the poll, ts_poll); each with multi-buffer support first, then
	 * without. The last, plainest refusal is reported. */
	{
		static const int tries[6][2] = { { PROG_HW, 1 },     { PROG_HW, 0 },	{ PROG_KCLOCK, 1 },
						 { PROG_KCLOCK, 0 }, { PROG_PLAIN, 1 }, { PROG_PLAIN, 0 } };
		r = -1;
		for (i = cfg->xdp_mode == SRC_XDP_SKB ? 2 : 0; i < 6 && r < 0; i++) {
			if (s->obj) {
				bpf_object__close(s->obj);
				s->obj = NULL;
			}
			r = load_prog(s, cfg->bpf_obj_path, tries[i][0], tries[i][1], msg, sizeof msg);
			if (r < 0 && !s->obj)
				break; /* the file itself is unusable */
		}
	}
	if (r < 0) {
		libbpf_set_print(old_print);
		src_err(err, errlen, "af_xdp %s: %s", cfg->ifname, msg);
		return xdp_fail(s, -1);
	}

	/* UMEM, rings, socket */
	s->txon = cfg->tx != 0;
	s->area_len = (size_t)(s->nframes + (s->txon ? SRC_XDP_TX_FRAMES : 0)) * s->frame_size;
	if (s->txon) {
		s->tx_free = malloc(sizeof *s->tx_free * SRC_XDP_TX_FRAMES);
		for (i = 0; s->tx_free && i < SRC_XDP_TX_FRAMES; i++)
			s->tx_free[s->tx_nfree++] = (uint64_t)(s->nframes + i) * s->frame_size;
	}
	s->area = mmap(NULL, s->area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	s->free_addr = malloc(sizeof *s->free_addr * s->nframes);
	s->held = malloc(sizeof *s->held * s->nframes);
	s->scratch_cap = 2 * (size_t)SRC_MAX_FRAME;
	s->scratch = malloc(s->scratch_cap);
	if (s->area == MAP_FAILED || !s->free_addr || !s->held || !s->scratch || (s->txon && !s->tx_free)) {
		if (s->area == MAP_FAILED)
			s->area = NULL;
		libbpf_set_print(old_print);
		src_err(err, errlen, "af_xdp %s: out of memory for %zu MiB of UMEM", cfg->ifname, s->area_len >> 20);
		return xdp_fail(s, -1);
	}
	/* every frame's page touched now, not on its first frame (base/mem_touch.h: the first lap of
	 * the default 256 MB UMEM paid about 6.7 us per page on these machines) */
	mem_touch_write(s->area, s->area_len);
	wait_ms = cfg->xdp_bind_wait_ms ? cfg->xdp_bind_wait_ms : SRC_XDP_BIND_WAIT_MS_DEFAULT;
	r = make_socket_retry(s, s->prog_frags, wait_ms, &waited);
	if (r == -2 && s->prog_frags && (errno == EINVAL || errno == EOPNOTSUPP))
		r = make_socket_retry(s, 0, wait_ms, &waited); /* a kernel without multi-buffer AF_XDP */
	s->st.xsk_bind_wait_ms = waited;
	if (r < 0) {
		struct rlimit rl;
		e = errno;
		libbpf_set_print(old_print);
		if (r == -1) {
			getrlimit(RLIMIT_MEMLOCK, &rl);
			src_err(err, errlen,
				"af_xdp %s: UMEM of %zu MiB refused: %s (RLIMIT_MEMLOCK %llu KiB; needs CAP_IPC_LOCK "
				"or a smaller xdp_frames)",
				cfg->ifname, s->area_len >> 20, strerror(e),
				rl.rlim_cur == RLIM_INFINITY ? 0ull : (unsigned long long)rl.rlim_cur / 1024);
		} else {
			char why[200] = "";
			if (e == EINVAL)
				snprintf(why, sizeof why, " (does the interface have that queue?)");
			else if (e == EBUSY)
				snprintf(why, sizeof why,
					 " for %u ms: not a previous socket the kernel is still releasing (that takes "
					 "some 10-100 ms), another program holds the queue",
					 waited);
			src_err(err, errlen, "af_xdp %s: socket on queue %u: %s%s", cfg->ifname, s->queue, strerror(e),
				why);
		}
		return xdp_fail(s, -1);
	}
	if (cfg->xdp_busy_poll)
		busy_poll_setup(s);
	for (i = 0; i < s->nframes; i++)
		s->free_addr[s->nfree++] = (uint64_t)(s->nframes - 1 - i) * s->frame_size;
	xdp_refill(s);

	/* maps, then the program goes live */
	{
		uint32_t q = s->queue;
		int fd = xsk_socket__fd(s->xsk);
		if (bpf_map_update_elem(s->xsks_fd, &q, &fd, BPF_ANY) < 0) {
			e = errno;
			libbpf_set_print(old_print);
			src_err(err, errlen, "af_xdp %s: socket into the XSKMAP: %s", cfg->ifname, strerror(e));
			return xdp_fail(s, -1);
		}
	}
	if (feeds_load(s, cfg->feeds, cfg->nfeeds, msg, sizeof msg) < 0) {
		libbpf_set_print(old_print);
		src_err(err, errlen, "af_xdp %s: %s", cfg->ifname, msg);
		return xdp_fail(s, -1);
	}
	{
		LIBBPF_OPTS(bpf_link_create_opts, lopts, .flags = s->mode_flag);
		s->link_fd = bpf_link_create(s->prog_fd, ifindex, BPF_XDP, &lopts);
	}
	libbpf_set_print(old_print);
	if (s->link_fd < 0) {
		const char *hint = "";
		e = errno;
		s->link_fd = -1;
		if (e == EBUSY || e == EEXIST)
			hint = " (another XDP program is attached: `ip link set dev <interface> xdp off` if it is stale)";
		else if (e == EOPNOTSUPP)
			hint = " (the driver has no native XDP: use xdp mode skb)";
		else if (e == EINVAL || e == ERANGE)
			hint = " (MTU too large for XDP on this driver, or the mode is not supported)";
		else if (e == EPERM)
			hint = " (needs CAP_NET_ADMIN and CAP_BPF)";
		src_err(err, errlen, "af_xdp %s: XDP attach (%s mode) refused: %s%s", cfg->ifname,
			cfg->xdp_mode == SRC_XDP_SKB ? "skb" : "native", strerror(e), hint);
		return xdp_fail(s, -1);
	}
	{
		char waitmsg[120] = "", busymsg[120] = "";
		if (waited)
			snprintf(waitmsg, sizeof waitmsg,
				 ", bound after %u ms (the kernel was still releasing a previous socket on the queue)",
				 waited);
		if (cfg->xdp_busy_poll)
			snprintf(busymsg, sizeof busymsg, ", %s%.96s", s->busy ? "preferred busy polling" : "no busy polling: ",
				 s->busy ? "" : s->busy_why);
		snprintf(s->base.desc, sizeof s->base.desc,
			 "af_xdp %s queue %u %s copy%s%s, rx ring %u, fill ring %u, %u frames of %u, %u feeds, %s stamps%s%s",
			 s->ifname, s->queue, cfg->xdp_mode == SRC_XDP_SKB ? "skb" : "native", s->sg ? " multi-buffer" : "",
			 s->txon ? " with transmit" : "",
			 s->rx_size, s->fill_size, s->nframes, s->frame_size, cfg->nfeeds,
			 s->hw_prog	 ? "NIC (else kernel)"
			 : s->plain_prog ? "poll (" SRC_DESC_XDP_PLAIN ")"
					 : "kernel",
			 busymsg, waitmsg);
	}
	*out = &s->base;
	return 0;
}
