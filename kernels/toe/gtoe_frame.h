/* gtoe_frame.h - build the frame of a general-TOE segment (synthesisable subset).
 *
 * gtoe_frame() writes the Ethernet/IPv4/TCP frame of the segment that
 * gtoe_tx_next() returned, with the link-layer header from net_tx_route().
 * Returns the frame length, or 0 when it does not fit cap (at most
 * NET_TX_HDR_MAX + payload bytes are needed).
 */
#ifndef GTOE_FRAME_H
#define GTOE_FRAME_H

#include <stdint.h>
#include "toe/gtoe.h"
#include "net/net_tx.h"

uint32_t gtoe_frame(const struct gtoe_seg *s, const struct net_tx_l2 *l2, uint16_t ip_id, uint8_t *out, uint32_t cap);

#endif
