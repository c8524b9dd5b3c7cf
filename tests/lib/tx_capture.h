/* tx_capture.h - a frame source whose transmit side keeps the frames it is given (test double): what the data
 * plane's responders and toed's own connections send, for test_dp_tcp.c and test_dp_resp.c to read back.
 */
#ifndef TOE_TX_CAPTURE_H
#define TOE_TX_CAPTURE_H

#include <stdint.h>

#include "src/src_impl.h"

#define TX_CAPTURE_MAX 16

struct tx_capture {
	struct src base;
	uint32_t n;       /* frames kept (a frame past TX_CAPTURE_MAX fails the send) */
	uint32_t flushes; /* tx_flush calls */
	uint32_t len[TX_CAPTURE_MAX];
	uint8_t frame[TX_CAPTURE_MAX][2048];
};

/* A source that receives nothing and sends into t (base.tx_on set). */
void tx_capture_init(struct tx_capture *t);

/* Big-endian fields of a captured frame. */
static inline uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
