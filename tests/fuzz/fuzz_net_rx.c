/* fuzz_net_rx.c - libFuzzer target: arbitrary frames through the network receive layers.
 *
 * The first byte picks the checksum flags; the rest is the frame. Whatever
 * the verdict, the parsed packet must point inside the frame, and a dropped
 * frame must have been counted exactly once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct net_cfg cfg;
	struct net_stats st;
	struct net_pkt pkt;
	uint8_t *frame;
	uint32_t len;

	if (size < 1 || size > 70000)
		return 0;
	net_cfg_init(&cfg);
	cfg.flags = data[0] & (NET_CFG_TCP_CSUM | NET_CFG_UDP_CSUM);
	memset(&st, 0, sizeof st);
	len = (uint32_t)(size - 1);
	frame = malloc(len ? len : 1); /* exact size: ASan catches any overread */
	memcpy(frame, data + 1, len);
	enum net_rx_verdict v = net_rx(&cfg, &st, frame, len, 1, &pkt);
	if (v == NET_RX_TCP || v == NET_RX_UDP) {
		if (pkt.payload < frame || pkt.payload + pkt.payload_len > frame + len)
			abort();
	}
	if (v == NET_RX_DROP && st.last_drop == NET_DROP_NONE)
		abort();
	free(frame);
	return 0;
}
