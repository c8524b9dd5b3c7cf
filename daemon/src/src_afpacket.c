/* src_afpacket.c - AF_PACKET TPACKET_V3 receive ring as a frame source.
 *
 * The kernel fills blocks of the mmap'ed ring and hands a block over
 * (TP_STATUS_USER) when it is full or after afp_block_timeout_ms. A burst
 * walks the handed-over blocks from where the previous one stopped; a block
 * goes back to the kernel (TP_STATUS_KERNEL) in src_rx_release once all its
 * frames have been delivered, so frames are read in place, never copied.
 *
 * The kernel has moved the outer VLAN tag of a received frame to metadata
 * (tp_vlan_tci); it is written back in front of the frame inside the ring
 * slot: the kernel aligns the network header, leaving 10 to 14 bytes between
 * the slot's sockaddr_ll and tp_mac (checked per frame, with a copy as the
 * fallback).
 *
 * Timestamps (SO_TIMESTAMPING, PACKET_TIMESTAMP): a frame carries the NIC's
 * raw hardware stamp when the driver gave one (TP_STATUS_TS_RAW_HARDWARE),
 * else the kernel's software receive stamp. The NIC stamps received frames
 * only when its RX timestamping is on (SIOCSHWTSTAMP, e.g. by ptp4l or
 * `hwstamp_ctl -r 1`): a setting of the whole interface, left to whoever
 * runs its clock, so toed only reads it.
 */
#include "src/src_impl.h"

#include "base/mem_touch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define AFP_BLOCK_SIZE_DEFAULT (1u << 20)
#define AFP_BLOCK_COUNT_DEFAULT 64u
#define AFP_TIMEOUT_DEFAULT 1u
#define AFP_FRAME_SIZE 2048u          /* only used to satisfy the ring request's frame arithmetic */

struct src_afp {
	struct src base;
	int fd;
	int ifindex;
	uint8_t *ring;
	size_t ring_len;
	uint32_t block_size, block_count;
	uint32_t cur;                 /* block being read */
	uint32_t rel;                 /* first block not yet returned to the kernel */
	uint32_t nheld;               /* blocks from rel on fully delivered, not yet returned */
	int in_block;                 /* block cur is being read: next, left are valid */
	struct tpacket3_hdr *next;    /* next frame in block cur */
	uint32_t left;                /* frames left in block cur */
	char ifname[IF_NAMESIZE];
	int hw_on;                    /* the NIC stamps received frames (SIOCGHWTSTAMP) */
	uint8_t *copy;                /* fallback for a tag that does not fit in front of the frame */
	size_t copy_cap, copy_used;
	struct src_stats st;
};

static struct tpacket_block_desc *blk(struct src_afp *s, uint32_t i)
{
	return (struct tpacket_block_desc *)(s->ring + (size_t)i * s->block_size);
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The frame with its outer VLAN tag written back, or NULL when there is no room. */
static uint8_t *reinsert_tag(struct src_afp *s, struct tpacket3_hdr *h, uint8_t *mac, uint32_t *len)
{
	uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) && h->hv1.tp_vlan_tpid ? h->hv1.tp_vlan_tpid
											   : ETH_P_8021Q;
	uint16_t tci = (uint16_t)h->hv1.tp_vlan_tci;
	uint8_t *start = (uint8_t *)h + TPACKET_ALIGN(sizeof(struct tpacket3_hdr)) + sizeof(struct sockaddr_ll);
	uint8_t *out;
	if (*len < 12)
		return mac;
	if (mac - 4 >= start) {
		out = mac - 4;
		memmove(out, mac, 12);
	} else {
		if (s->copy_used + *len + 4 > s->copy_cap)
			return NULL;
		out = s->copy + s->copy_used;
		memcpy(out, mac, 12);
		memcpy(out + 16, mac + 12, *len - 12);
		s->copy_used += *len + 4;
	}
	out[12] = (uint8_t)(tpid >> 8);
	out[13] = (uint8_t)tpid;
	out[14] = (uint8_t)(tci >> 8);
	out[15] = (uint8_t)tci;
	*len += 4;
	return out;
}

static int afp_rx_burst(struct src *base, struct src_frame *f, int max)
{
	struct src_afp *s = (struct src_afp *)base;
	int n = 0;

	s->copy_used = 0;
	while (n < max) {
		struct tpacket_block_desc *b = blk(s, s->cur);
		struct tpacket3_hdr *h;
		struct sockaddr_ll *sll;
		uint8_t *mac;
		uint32_t len, wire;

		if (!s->in_block) {
			if (s->nheld >= s->block_count)
				break; /* every block waits for src_rx_release */
			if (!(__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
				break;
			s->in_block = 1;
			s->left = b->hdr.bh1.num_pkts;
			s->next = (struct tpacket3_hdr *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
		}
		h = s->next;
		if (s->left == 0)
			goto block_done;
		sll = (struct sockaddr_ll *)((uint8_t *)h + TPACKET_ALIGN(sizeof(struct tpacket3_hdr)));
		mac = (uint8_t *)h + h->tp_mac;
		len = h->tp_snaplen;
		wire = h->tp_len;
		if (sll->sll_pkttype == PACKET_OUTGOING) {
			s->st.afp_outgoing++;
			goto next_frame;
		}
		if (h->tp_status & TP_STATUS_VLAN_VALID) {
			uint8_t *m = reinsert_tag(s, h, mac, &len);
			if (!m)
				break; /* this burst's copy buffer is full: the frame opens the next burst */
			mac = m;
			wire += 4;
		}
		if (len > SRC_MAX_FRAME)
			len = SRC_MAX_FRAME;
		if (len < wire)
			s->st.truncated++;
		s->st.frames++;
		s->st.bytes += len;
		f[n].data = mac;
		f[n].len = len;
		f[n].wire_len = wire < len ? len : wire;
		f[n].ts_ns = (uint64_t)h->tp_sec * 1000000000u + h->tp_nsec;
		if (h->tp_status & TP_STATUS_TS_RAW_HARDWARE) {
			f[n].clock = TOE_CLK_NIC;
			s->st.ts_nic++;
		} else {
			f[n].clock = TOE_CLK_KERNEL; /* the software stamp, or the ring write's time */
			s->st.ts_kernel++;
		}
		/* a tc-mirrored or looped-back copy of a frame sent with checksum
		 * offload has only the pseudo-header sum in its checksum field */
		f[n].csum = (h->tp_status & TP_STATUS_CSUMNOTREADY) ? SRC_CSUM_NOT_READY
			  : (h->tp_status & TP_STATUS_CSUM_VALID)  ? SRC_CSUM_VALID
								    : SRC_CSUM_UNKNOWN;
		f[n].pick_ns = 0; /* no clock read per burst here */
		n++;
	next_frame:
		if (--s->left > 0) {
			s->next = (struct tpacket3_hdr *)((uint8_t *)h + h->tp_next_offset);
			continue;
		}
	block_done:
		/* every frame of the block delivered: it goes back to the kernel at release */
		s->nheld++;
		s->in_block = 0;
		s->cur = (s->cur + 1) % s->block_count;
	}
	return n;
}

static void afp_rx_release(struct src *base)
{
	struct src_afp *s = (struct src_afp *)base;
	while (s->nheld) {
		__atomic_store_n(&blk(s, s->rel)->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		s->rel = (s->rel + 1) % s->block_count;
		s->nheld--;
	}
}

static int afp_wait(struct src *base, int timeout_ms)
{
	struct src_afp *s = (struct src_afp *)base;
	if (s->in_block ||
	    (__atomic_load_n(&blk(s, s->cur)->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
		return 1;
	return src_poll_fd(s->fd, timeout_ms);
}

static int afp_fd(const struct src *base)
{
	return ((const struct src_afp *)base)->fd;
}

static void afp_read_kstats(struct src_afp *s)
{
	struct tpacket_stats_v3 k;
	socklen_t len = sizeof k;
	memset(&k, 0, sizeof k);
	/* the kernel resets its counters on every read: accumulate */
	if (getsockopt(s->fd, SOL_PACKET, PACKET_STATISTICS, &k, &len) == 0) {
		s->st.afp_drops += k.tp_drops;
		s->st.afp_freezes += k.tp_freeze_q_cnt;
	}
}

static void afp_stats(struct src *base, struct src_stats *st)
{
	struct src_afp *s = (struct src_afp *)base;
	afp_read_kstats(s);
	*st = s->st;
}

static void afp_close(struct src *base)
{
	struct src_afp *s = (struct src_afp *)base;
	if (s->ring && s->ring != MAP_FAILED)
		munmap(s->ring, s->ring_len);
	if (s->fd >= 0)
		close(s->fd); /* drops the promiscuous membership too */
	free(s->copy);
	free(s);
}

/* Transmit: send() on the bound socket, never waiting (a full device queue
 * is an error counted here; TCP retransmits what mattered). The receive
 * ring does not see the frame (PACKET_IGNORE_OUTGOING, or afp_outgoing). */
static int afp_tx(struct src *base, const uint8_t *frame, uint32_t len)
{
	struct src_afp *s = (struct src_afp *)base;
	if (send(s->fd, frame, len, MSG_DONTWAIT) != (ssize_t)len) {
		s->st.tx_errors++;
		return -1;
	}
	s->st.tx_frames++;
	s->st.tx_bytes += len;
	return 0;
}

static const struct src_ops afp_ops = {
	.tx = afp_tx,
	.rx_burst = afp_rx_burst,
	.rx_release = afp_rx_release,
	.wait = afp_wait,
	.fd = afp_fd,
	.stats = afp_stats,
	.set_feeds = NULL,
	.close = afp_close,
};

/* Whether the NIC stamps received frames (veth has no hardware stamps). */
static int hw_stamps_on(struct src_afp *s)
{
	struct hwtstamp_config c;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, s->ifname, sizeof s->ifname);
	memset(&c, 0, sizeof c);
	ifr.ifr_data = (void *)&c;
	return ioctl(s->fd, SIOCGHWTSTAMP, &ifr) == 0 && c.rx_filter != HWTSTAMP_FILTER_NONE;
}

static int afp_fail(struct src_afp *s, char *err, size_t errlen, const char *fmt, const char *what)
{
	int e = errno;
	src_err(err, errlen, fmt, s->base.desc, what, strerror(e));
	afp_close(&s->base);
	errno = e;
	return -1;
}

int src_afpacket_open(struct src **out, const struct src_cfg *cfg, char *err, size_t errlen)
{
	struct src_afp *s;
	struct tpacket_req3 req;
	struct sockaddr_ll sll;
	int v, ifindex;
	long page = sysconf(_SC_PAGESIZE);

	if (!cfg->ifname || !cfg->ifname[0])
		return src_err(err, errlen, "af_packet: no interface given");
	if (strlen(cfg->ifname) >= IF_NAMESIZE)
		return src_err(err, errlen, "af_packet %s: interface name too long", cfg->ifname);
	ifindex = (int)if_nametoindex(cfg->ifname);
	if (!ifindex)
		return src_err(err, errlen, "af_packet %s: no such interface", cfg->ifname);

	s = calloc(1, sizeof *s);
	if (!s)
		return src_err(err, errlen, "af_packet %s: out of memory", cfg->ifname);
	s->base.ops = &afp_ops;
	s->base.kind = SRC_AF_PACKET;
	s->fd = -1;
	s->ifindex = ifindex;
	memcpy(s->ifname, cfg->ifname, strlen(cfg->ifname) + 1);
	s->block_size = cfg->afp_block_size ? cfg->afp_block_size : AFP_BLOCK_SIZE_DEFAULT;
	s->block_count = cfg->afp_block_count ? cfg->afp_block_count : AFP_BLOCK_COUNT_DEFAULT;
	snprintf(s->base.desc, sizeof s->base.desc, "af_packet %s", cfg->ifname);

	if (!is_pow2(s->block_size) || s->block_size < (uint32_t)page || s->block_size > (1u << 30)) {
		src_err(err, errlen, "af_packet %s: block size %u must be a power of two between %ld and 1 GiB",
			cfg->ifname, s->block_size, page);
		afp_close(&s->base);
		return -1;
	}
	if (s->block_count < 2 || (uint64_t)s->block_count * s->block_size > (1ull << 32)) {
		src_err(err, errlen, "af_packet %s: %u blocks of %u bytes: need 2 or more, 4 GiB at most",
			cfg->ifname, s->block_count, s->block_size);
		afp_close(&s->base);
		return -1;
	}
	s->copy_cap = 2 * ((size_t)SRC_MAX_FRAME + 4);
	s->copy = malloc(s->copy_cap);
	if (!s->copy) {
		afp_close(&s->base);
		return src_err(err, errlen, "af_packet %s: out of memory", cfg->ifname);
	}

	/* protocol 0: nothing is queued before the ring exists and the bind below */
	s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return afp_fail(s, err, errlen, "%s: %s: %s (needs CAP_NET_RAW)", "socket");
	v = TPACKET_V3;
	if (setsockopt(s->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v) < 0)
		return afp_fail(s, err, errlen, "%s: %s: %s", "PACKET_VERSION TPACKET_V3");
	v = 1;
	if (setsockopt(s->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof v) < 0 && errno != ENOPROTOOPT &&
	    errno != EINVAL)
		return afp_fail(s, err, errlen, "%s: %s: %s", "PACKET_IGNORE_OUTGOING");
	/* older kernels without it: outgoing frames are skipped by their pkttype */
	/* arrival stamps: software ones at the driver's receive, raw hardware ones
	 * where the NIC has them; the ring takes the hardware one when present */
	v = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RX_HARDWARE |
	    SOF_TIMESTAMPING_RAW_HARDWARE;
	if (setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &v, sizeof v) < 0)
		return afp_fail(s, err, errlen, "%s: %s: %s", "SO_TIMESTAMPING");
	v = SOF_TIMESTAMPING_RAW_HARDWARE;
	if (setsockopt(s->fd, SOL_PACKET, PACKET_TIMESTAMP, &v, sizeof v) < 0)
		return afp_fail(s, err, errlen, "%s: %s: %s", "PACKET_TIMESTAMP");

	memset(&req, 0, sizeof req);
	req.tp_block_size = s->block_size;
	req.tp_block_nr = s->block_count;
	req.tp_frame_size = AFP_FRAME_SIZE < s->block_size ? AFP_FRAME_SIZE : s->block_size;
	req.tp_frame_nr = (s->block_size / req.tp_frame_size) * s->block_count;
	req.tp_retire_blk_tov = cfg->afp_block_timeout_ms ? cfg->afp_block_timeout_ms : AFP_TIMEOUT_DEFAULT;
	req.tp_feature_req_word = 0;
	if (setsockopt(s->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0) {
		char what[96];
		snprintf(what, sizeof what, "PACKET_RX_RING (%u blocks of %u bytes)", s->block_count, s->block_size);
		return afp_fail(s, err, errlen, "%s: %s: %s", what);
	}
	s->ring_len = (size_t)s->block_size * s->block_count;
	/* kernel pages: never swapped, nothing to lock, not charged to RLIMIT_MEMLOCK */
	s->ring = mmap(NULL, s->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->ring == MAP_FAILED) {
		s->ring = NULL;
		return afp_fail(s, err, errlen, "%s: %s: %s", "mmap of the ring");
	}
	/* each page touched from user space now, before the socket is bound and the kernel writes
	 * to it, not on the ring's first lap (base/mem_touch.h) */
	mem_touch_write(s->ring, s->ring_len);

	memset(&sll, 0, sizeof sll);
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = ifindex;
	if (bind(s->fd, (struct sockaddr *)&sll, sizeof sll) < 0)
		return afp_fail(s, err, errlen, "%s: %s: %s", "bind");

	s->hw_on = hw_stamps_on(s);
	if (!cfg->no_promisc) {
		struct packet_mreq mr;
		memset(&mr, 0, sizeof mr);
		mr.mr_ifindex = ifindex;
		mr.mr_type = PACKET_MR_PROMISC;
		if (setsockopt(s->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) < 0)
			return afp_fail(s, err, errlen, "%s: %s: %s", "promiscuous mode");
	}
	snprintf(s->base.desc, sizeof s->base.desc, "af_packet %s tpacket_v3 %u x %u KiB%s, %s stamps", cfg->ifname,
		 s->block_count, s->block_size / 1024, cfg->no_promisc ? "" : " promiscuous",
		 s->hw_on ? "NIC" : "kernel (the NIC's RX timestamping is off or absent)");
	*out = &s->base;
	return 0;
}
