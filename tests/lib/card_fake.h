/* card_fake.h - a fake U50 (toe_devops_fake): the test double of the card behind the card_dev.h seam.
 *
 * The card backend's unit tests (tests/unit/test_xrt_*.c) open it directly;
 * the test program toed_test (tests/integration/toed_test.c) hands it to
 * toed_run() in place of the real card. It lives in the test library: the
 * release toed has no fake card.
 *
 * It behaves as the card does as far as the backend can see:
 *   - one card at a PCI BDF, a shell name, an xclbin it loads (parsed with
 *     card_xclbin.c: its UUID, its compute units) and whose UUID it reports;
 *   - per compute unit the AXI-Lite windows of toe_regmap.h: configuration
 *     words, status words (MAGIC, VERSION, KERNEL, APPLIED, STATUS, NCTR,
 *     64-bit counters), fast_top's template memory, hbm_writer_top's four
 *     buffer addresses, the CMAC's link status and statistics;
 *   - the kernels' C code: on APPLY each kernel decodes its words as the HLS
 *     tops do (toe_hw_cfg.h: toe_hw_eth_decode, toe_hw_mtoe_decode,
 *     toe_hw_prog_decode) and, once all five run, frames queued with
 *     toe_fake_frame() go through the receive pipeline (kernels/rx/rx_pipe.c)
 *     built from that decoded configuration; every TIME_SEQ write is a
 *     timer tick (rx_poll). Records go through a model of hbm_writer_top
 *     (record k to channel k % 4, slot (k / 4) % slots, full ring: drop,
 *     count, then one TOE_GAP_OVERFLOW gap) into the buffers whose device
 *     addresses the host wrote, checking each write lands in an allocated
 *     buffer (and, when told the wiring, in the port's bank);
 *   - buffers with SEPARATE device and host copies: the kernels write the
 *     device copy, the host sees only its own copy (poisoned with 0xEE at
 *     allocation; the device copy starts as 0xDD), and only bo_sync copies
 *     between them, so a missing or short sync hands the host stale or
 *     poisoned records. Every sync is logged.
 *
 *   - faults on demand (a card or driver that misbehaves): syncs that copy
 *     less than asked (toe_fake_cfg.faults), and registers that fail once
 *     the host has drained everything (toe_fake_fail_when_drained).
 *
 * The 4 x 10G build (an xclbin with eth_rx_top_2..4): ports 1..3's eth_rx_tops
 * have their own configuration and status windows (header, port, frames,
 * held); frames queued with toe_fake_frame_port go through rx_frame_port
 * with the network settings decoded from their port's words.
 *
 * role = tcp: gtoe_top's register interface (not its TCP, which the
 *     C-simulation tests/integration/test_hw_csim.sh compares with the
 *     software's): configuration words decoded and checked on APPLY, the
 *     connection table (each entry's MSS and window checked on APPLY),
 *     the per-connection state window (what the test
 *     sets with toe_fake_gtoe_set_cst), the TX mailbox (a new TX_SEQ takes
 *     TX_LEN bytes of the data window for entry TX_CONN when its phase is
 *     3, up: kept for toe_fake_gtoe_sent, TX_DONE and TX_TAKEN answered);
 *     tx_arb_top's status window.
 *
 * Not modelled: ARP/ICMP replies (nothing is transmitted), gtoe's TCP (its
 * frames; its events come from the test: toe_fake_gtoe_open/data/close;
 * frames still go to the mirror TOE), timing, the card's parallelism (each frame is drained before the
 * next, as in the C-simulation).
 */
#ifndef TOE_CARD_FAKE_H
#define TOE_CARD_FAKE_H

#include <stdint.h>

#include "rx/rx_pipe.h"
#include "card/card_dev.h"

#define TOE_FAKE_BDF "0000:3b:00.1"
#define TOE_FAKE_SHELL "xilinx_u50_gen3x16_xdma_base_5"
#define TOE_FAKE_KID_CMAC 8 /* kid of cmac_0 in the logs (after gtoe_top 6 and tx_arb_top 7) */

/* toe_fake_cfg.faults: syncs that do not do what the host asked, so that a
 * test sees what a missing or short sync hands the host (the separate device
 * and host copies make it visible). Both affect syncs from the device only;
 * the sync log still shows what the host asked for. */
#define TOE_FAKE_FAULT_LOSE_WRAP_SYNC 0x1u /* a sync from offset 0 right after one that reached the buffer's end
					    * (the second half of a range that wraps) copies nothing */
#define TOE_FAKE_FAULT_SHORT_SYNC 0x2u     /* every sync copies one record (TOE_RECORD_SIZE) less than asked */

struct toe_fake_cfg {
	const char *bdf;          /* NULL: TOE_FAKE_BDF */
	const char *shell;        /* NULL: TOE_FAKE_SHELL; "": the card cannot tell (like the noop shim) */
	int no_card;              /* open fails: no card at all */
	int refuse_load;          /* the load fails (-EINVAL) */
	int uuid_mismatch;        /* after a load, the card reports another UUID */
	int refuse_regs;          /* register access fails with EPERM, as XRT's noop shim */
	uint32_t bad_magic_kid;   /* this kernel reports a wrong MAGIC (0: none) */
	uint32_t bad_version_kid; /* this kernel reports another register map version */
	uint32_t dead_kid;        /* this kernel never takes a configuration */
	int32_t link_after_reads; /* CMAC: RX_STATUS reads before the link is up; -1: never */
	int check_banks;          /* hbm_bank[] holds the bank each hbm port reaches */
	uint32_t hbm_bank[4];
	uint32_t faults;          /* TOE_FAKE_FAULT_* */
};

struct toe_fake_write {
	uint32_t kid; /* TOE_KID_*, TOE_FAKE_KID_CMAC */
	uint32_t off;
	uint32_t val;
};

struct toe_fake_sync {
	uint32_t bo;   /* allocation number, from 0 */
	uint32_t bank;
	int dir;       /* TOE_SYNC_* */
	uint64_t off, size;
};

struct toe_fake;

/* The devops; ctx is a struct toe_fake *. */
extern const struct toe_devops toe_devops_fake;

struct toe_fake *toe_fake_new(const struct toe_fake_cfg *cfg); /* cfg may be NULL: defaults */
void toe_fake_free(struct toe_fake *f);

/* Queue a frame (copied) received at ts_ns (0: stamped with the clock the
 * host wrote, as the card does). */
int toe_fake_frame(struct toe_fake *f, const uint8_t *frame, uint32_t len, uint64_t ts_ns);
/* The same for a frame arriving on network port `port` (1..3: another lane of
 * the 4 x 10G build, through its own eth_rx_top, rx_frame_port; 0 is
 * toe_fake_frame). Held (counted) while that port's eth_rx_top does not run. */
int toe_fake_frame_port(struct toe_fake *f, uint32_t port, const uint8_t *frame, uint32_t len, uint64_t ts_ns);
/* Run up to max queued frames through the kernels; returns how many ran. */
uint32_t toe_fake_run(struct toe_fake *f, uint32_t max);
uint32_t toe_fake_pending(const struct toe_fake *f);

/* A device error at run time: from the moment no frame is pending and the
 * host has read every record the writer wrote (READ_INDEX = the write index),
 * every register read and write fails with -EIO. */
void toe_fake_fail_when_drained(struct toe_fake *f);
int toe_fake_failing(const struct toe_fake *f);

/* Inspection. */
const struct toe_fake_write *toe_fake_writes(const struct toe_fake *f, uint32_t *n);
const struct toe_fake_sync *toe_fake_syncs(const struct toe_fake *f, uint32_t *n);
void toe_fake_clear_logs(struct toe_fake *f);
/* Errors the card saw (a write outside every buffer, into the wrong bank, an
 * unmapped register, a sync out of range); the first one's text. */
uint32_t toe_fake_errors(const struct toe_fake *f, const char **first);
/* The configuration the kernels decoded from their registers (NULL until all
 * five run) and the template program fast_top decoded. */
const struct rx_cfg *toe_fake_rx_cfg(const struct toe_fake *f);
const struct fast_prog *toe_fake_prog(const struct toe_fake *f);
uint32_t toe_fake_role(const struct toe_fake *f);
uint64_t toe_fake_hbm_addr(const struct toe_fake *f, uint32_t ch);
uint32_t toe_fake_cfg_word(const struct toe_fake *f, uint32_t kid, uint32_t w); /* kid: also TOE_KID_ETH_PORT(n) */
/* gtoe_top (role tcp): word w of entry i's state window (TOE_GTOE_CS_*) as the kernel would
 * show it; the free bytes of entry i's send buffer (the mailbox takes at most that much;
 * unlimited until set); a mailbox that never answers (stall 1; stall 0 takes a message posted
 * meanwhile, as the kernel's next invocation would); the bytes the mailbox took for
 * entry i so far (*len), or NULL; word w of connection table entry i (TOE_GTOE_CE_*, then its
 * limits as 4 + TOE_GTOE_CX_*); the status of gtoe_top. */
void toe_fake_gtoe_set_cst(struct toe_fake *f, uint32_t i, uint32_t w, uint32_t v);
/* gtoe_top's counter i (status window order: TOE_GTOE_CTRS, struct gtoe_stats from TOE_GTOE_CTR_STATS,
 * the ARP counters from TOE_GTOE_CTR_ARP) as the kernel would count it; bytes_out is the mailbox's. */
void toe_fake_gtoe_set_ctr(struct toe_fake *f, uint32_t i, uint64_t v);
void toe_fake_gtoe_room(struct toe_fake *f, uint32_t i, uint32_t room);
void toe_fake_gtoe_stall(struct toe_fake *f, int stall);
const uint8_t *toe_fake_gtoe_sent(const struct toe_fake *f, uint32_t i, uint32_t *len);
uint32_t toe_fake_gtoe_conn_word(const struct toe_fake *f, uint32_t i, uint32_t w);
uint32_t toe_fake_gtoe_status(const struct toe_fake *f);
/* gtoe_top's connection events on entry i's stream (the entry's table word 2), through fast_top's
 * path and the writer as the kernels would send them: open (phase 3, up; an OPEN event, reason SYN),
 * in-order bytes from the exchange (a DATA event at the connection's next offset), close (phase 0;
 * a CLOSE event). Clearing an up entry's enable bit closes it the same way. 0, or -1 (not running,
 * not up). With fast_top's SESS_LO/HI bit of the stream set, its session messages and close reach
 * the ring as TOE_REC_CARD_SESS records (kernels/rx/rx_sess.h), counted in sess_msgs/sess_records. */
int toe_fake_gtoe_open(struct toe_fake *f, uint32_t i);
int toe_fake_gtoe_data(struct toe_fake *f, uint32_t i, const uint8_t *data, uint32_t len);
int toe_fake_gtoe_close(struct toe_fake *f, uint32_t i);
/* Buffers still allocated; whether the device is open. */
uint32_t toe_fake_live_bos(const struct toe_fake *f);
int toe_fake_is_open(const struct toe_fake *f);

#endif
