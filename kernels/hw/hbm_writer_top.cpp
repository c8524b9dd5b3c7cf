/* hbm_writer_top.cpp - HLS top: 128-byte records -> a ring striped over four HBM pseudo-channels.
 *
 * Record k goes to channel k % 4, slot (k / 4) % RING_SLOTS: consecutive
 * records land on different pseudo-channels, so four records are written in
 * parallel bank-wise while the host reads them back in order. The host's
 * read index (a configuration word it writes) tells when the ring is full:
 * the writer then drops the record and counts it, never stalling the
 * decoder, and writes one TOE_GAP_OVERFLOW record once there is room again
 * (toe_regmap.h). The write index is published at the start of the next
 * invocation, after this one's m_axi writes have completed.
 */
#include "hw_tops.h"

struct hbm_ctrs {
#define HBM_FIELD(name) uint64_t name;
	TOE_HBM_CTRS(HBM_FIELD)
#undef HBM_FIELD
};

static void put(hw_word *hbm0, hw_word *hbm1, hw_word *hbm2, hw_word *hbm3, uint32_t pos, const hw_word &w0,
		const hw_word &w1)
{
	uint32_t slot = pos >> 2;
	switch (pos & 3u) {
	case 0:
		hbm0[2 * slot] = w0;
		hbm0[2 * slot + 1] = w1;
		break;
	case 1:
		hbm1[2 * slot] = w0;
		hbm1[2 * slot + 1] = w1;
		break;
	case 2:
		hbm2[2 * slot] = w0;
		hbm2[2 * slot + 1] = w1;
		break;
	default:
		hbm3[2 * slot] = w0;
		hbm3[2 * slot + 1] = w1;
		break;
	}
}

/* The record that reports `lost` dropped records (toe_regmap.h). */
static void overflow_gap(hw_word &w0, hw_word &w1, uint32_t lost, uint64_t rx_ns)
{
	union toe_record r;
	uint32_t i;
	for (i = 0; i < TOE_RECORD_SIZE; i++)
		r.bytes[i] = 0;
	r.hdr.type = TOE_REC_GAP;
	r.hdr.stream = TOE_HW_STREAM_ALL;
	r.hdr.rx_ns = rx_ns;
	r.gap.reason = TOE_GAP_OVERFLOW;
	r.gap.records = lost;
	w0 = 0;
	w1 = 0;
	for (i = 0; i < HW_BEAT_BYTES; i++) {
		w0.range(8 * i + 7, 8 * i) = r.bytes[i];
		w1.range(8 * i + 7, 8 * i) = r.bytes[HW_BEAT_BYTES + i];
	}
}

void hbm_writer_top(hls::stream<hw_beat> &rec_in, hw_word *hbm0, hw_word *hbm1, hw_word *hbm2, hw_word *hbm3,
		    const uint32_t cfg[TOE_CFG_WORDS], uint32_t stat[TOE_STAT_WORDS])
{
#pragma HLS INTERFACE axis port = rec_in
#pragma HLS INTERFACE m_axi port = hbm0 offset = slave bundle = hbm0 depth = 8192 max_write_burst_length = 2
#pragma HLS INTERFACE m_axi port = hbm1 offset = slave bundle = hbm1 depth = 8192 max_write_burst_length = 2
#pragma HLS INTERFACE m_axi port = hbm2 offset = slave bundle = hbm2 depth = 8192 max_write_burst_length = 2
#pragma HLS INTERFACE m_axi port = hbm3 offset = slave bundle = hbm3 depth = 8192 max_write_burst_length = 2
	HW_PRAGMA(HLS INTERFACE s_axilite port = hbm0 offset = TOE_HBM_REG_ADDR0 bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = hbm1 offset = TOE_HBM_REG_ADDR1 bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = hbm2 offset = TOE_HBM_REG_ADDR2 bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = hbm3 offset = TOE_HBM_REG_ADDR3 bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = cfg offset = TOE_REG_CFG bundle = control)
	HW_PRAGMA(HLS INTERFACE s_axilite port = stat offset = TOE_REG_STAT bundle = control)
#pragma HLS INTERFACE ap_ctrl_none port = return

	static hbm_ctrs c;
	static uint32_t applied = 0, status = TOE_STATUS_HELD, slots = 0, widx = 0, lost = 0;
	static uint64_t lost_rx_ns = 0;
	uint32_t i = 0;

	/* records written by the previous invocation are in HBM now */
	stat[TOE_HBM_ST_WRITE_INDEX] = widx;

	if (cfg[TOE_CF_APPLY] != applied) {
		applied = cfg[TOE_CF_APPLY];
		slots = cfg[TOE_HBM_CF_RING_SLOTS];
		widx = 0;
		lost = 0;
		lost_rx_ns = 0;
#define HBM_ZERO(name) c.name = 0;
		TOE_HBM_CTRS(HBM_ZERO)
#undef HBM_ZERO
		if (applied == 0)
			status = TOE_STATUS_HELD;
		else if (slots == 0 || (slots & (slots - 1)) != 0 || slots > (1u << 28))
			status = TOE_STATUS_BAD_CFG | (uint32_t)TOE_HBM_BAD_SLOTS << 16;
		else
			status = TOE_STATUS_OK;
	}

	if (!rec_in.empty()) {
		hw_word w0 = rec_in.read().data;
		hw_word w1 = rec_in.read().data;
		c.records_in++;
		if (status != TOE_STATUS_OK) {
			c.held++;
		} else {
			uint32_t total = 4 * slots;
			uint32_t used = widx - cfg[TOE_HBM_CF_READ_INDEX]; /* wraps; nonsense looks full */
			uint32_t need = lost ? 2 : 1;
			if (used > total || total - used < need) {
				c.dropped++;
				lost++;
				lost_rx_ns = w0.range(255, 192).to_uint64(); /* hdr.rx_ns */
			} else {
				if (lost) {
					hw_word g0, g1;
					overflow_gap(g0, g1, lost, lost_rx_ns);
					put(hbm0, hbm1, hbm2, hbm3, widx & (total - 1), g0, g1);
					widx++;
					c.written++;
					c.overflow_gaps++;
					lost = 0;
				}
				put(hbm0, hbm1, hbm2, hbm3, widx & (total - 1), w0, w1);
				widx++;
				c.written++;
			}
		}
	}

	hw_stat_hdr(stat, TOE_KID_HBM, applied, status, TOE_NCTR(TOE_HBM_CTRS));
#define HBM_PUT(name) hw_ctr(stat, i++, c.name);
	TOE_HBM_CTRS(HBM_PUT)
#undef HBM_PUT
}
