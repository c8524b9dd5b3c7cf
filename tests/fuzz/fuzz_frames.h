/* fuzz_frames.h - the input format of fuzz_net_rx: a sequence of Ethernet frames (header only).
 *
 *   byte 0       FZF_* switches for the whole sequence
 *   then frames  2 bytes length (big endian), 1 byte meta, `length` bytes of frame;
 *                meta bits 0-1: the source's checksum word (NET_CSUM_*), bits 2-7: milliseconds
 *                since the previous frame (the mirror TOE's gap timer runs on these)
 *
 * A last frame cut short by the end of the input is used as far as it goes. The
 * seed generator (gen_corpus_net_rx.c) writes this format with fzf_put(); the
 * fuzz target reads it with fzf_next(). The addresses the target follows are here
 * too, so seeds and target agree.
 */
#ifndef FUZZ_FRAMES_H
#define FUZZ_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FZF_TCP_CSUM 0x01   /* verify TCP checksums */
#define FZF_UDP_CSUM 0x02   /* verify UDP checksums */
#define FZF_HINTS 0x04      /* heed the per-frame checksum word (NET_CFG_CSUM_HINTS) */
#define FZF_FILTER_DST 0x08 /* drop IPv4 not for FZF_OUR_IP */
#define FZF_TAP 0x10        /* RX_CFG_TAP_DATA: stream bytes as entries too */
#define FZF_POLL_EACH 0x20  /* rx_poll after every frame (else every 4th) */
#define FZF_PORTS 0x40      /* two ports: the second TCP feed and the raw UDP port are port 1's, and the
			     * frames alternate between ports 0 and 1 (rx_frame_port) */
#define FZF_SEQ 0x80        /* RX_CFG_SEQ: the two TCP feeds lines 0 and 1 of an arbitration group, the
			     * UDP ports one-line tracking in the default group */

/* What the target follows: the TCP feed of an exchange (any vendor end), a second
 * feed on a port of any address, UDP STEP datagrams and UDP raw FAST datagrams. */
#define FZF_EX_IP 0x0a01000au  /* 10.1.0.10 */
#define FZF_EX_PORT 5261
#define FZF_EX2_PORT 5262
#define FZF_OUR_IP 0x0a010002u /* 10.1.0.2 */
#define FZF_UDP_STEP_PORT 40001
#define FZF_UDP_RAW_PORT 40002

/* Append one frame; returns the bytes written (0: no room). */
static inline size_t fzf_put(uint8_t *out, size_t cap, const uint8_t *frame, size_t len, unsigned csum, unsigned ms)
{
	if (len > 0xffff || 3 + len > cap)
		return 0;
	out[0] = (uint8_t)(len >> 8);
	out[1] = (uint8_t)len;
	out[2] = (uint8_t)((csum & 3u) | (ms > 63 ? 63u : ms) << 2);
	memcpy(out + 3, frame, len);
	return 3 + len;
}

/* The next frame at *pos of in[0..n): 1 with *frame, *len, *csum, *ms set, 0 at the end. */
static inline int fzf_next(const uint8_t *in, size_t n, size_t *pos, const uint8_t **frame, uint32_t *len,
			   uint32_t *csum, uint32_t *ms)
{
	size_t p = *pos, l;
	if (p + 3 > n)
		return 0;
	l = (size_t)in[p] << 8 | in[p + 1];
	*csum = in[p + 2] & 3u;
	*ms = in[p + 2] >> 2;
	p += 3;
	if (l > n - p)
		l = n - p;
	*frame = in + p;
	*len = (uint32_t)l;
	*pos = p + l;
	return 1;
}

#endif
