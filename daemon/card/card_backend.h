/* card_backend.h - toed's card backend (`[device] backend = xrt`): bring-up, programming, the HBM ring drain.
 *
 * The same logic runs against the real card (toe_devops_xrt) and against the
 * fake card of the tests (toe_devops_fake, tests/lib/card_fake.c), whichever
 * device operations the caller hands it; see card_dev.h.
 *
 *   struct toe_xrt_params p;
 *   dp_setup_card(&p, cfg, &rxcfg);                   // dp/dp_setup.h: from toed.conf and the rx_cfg
 *   p.log = my_log; p.log_arg = ...;                   // optional
 *   struct toe_xrt *be;
 *   if (toe_xrt_open(&be, &toe_devops_xrt, NULL, &p, err, sizeof err) < 0)
 *       fail(err);                                     // one line saying what is wrong and what to do
 *   toe_xrt_set_time(be, CLOCK_REALTIME ns);           // at once: frames are stamped with this clock
 *   // data-plane thread:
 *   for (;;) {
 *       int n = toe_xrt_poll(be, recs, 256);           // records in ring order; < 0: toe_xrt_error(be)
 *       publish recs[0..n) exactly as the software backend's ring entries;
 *       every ~1 ms: toe_xrt_set_time(be, CLOCK_REALTIME ns);   // frame stamps + mirror TOE timers
 *   }
 *   toe_xrt_close(be);                                  // holds the kernels, frees the buffers
 *
 * toe_xrt_open:
 *   1. turns the rx_cfg into register writes (toe_hw_cfg.h) and refuses a
 *      configuration beyond the card's capacity before touching the card;
 *   2. reads the xclbin file: every kernel of toe_regmap.h present (and
 *      cmac_0), their register space large enough for toe_regmap.h (XRT
 *      sizes xrt::ip from the metadata, 64 KB by default), the HBM bank of
 *      each of hbm_writer_top's four ports (CONNECTIVITY), their register
 *      offsets as toe_regmap.h says;
 *   3. opens the card by PCI BDF, compares its shell with the xclbin's
 *      platform, loads the xclbin and checks the card's UUID is the file's;
 *   4. allocates one ring buffer per pseudo-channel in its bank and maps it;
 *   5. checks every kernel's MAGIC / VERSION / KERNEL registers;
 *   6. holds every kernel, writes the configuration, the four buffer
 *      addresses and the template program, APPLYs downstream first and
 *      checks that each kernel reports OK;
 *   7. enables the CMAC and waits up to link_timeout_ms for the link.
 * Ports: the layout (toe_xrt_layout_ports) decides how many eth_rx_tops
 * there are; a configured port the xclbin lacks is refused in step 2, each
 * other port's eth_rx_top is held, programmed and applied with the rest.
 * The 4 x 10G build's MAC (eth10g_0) has no register access in toed yet:
 * link state and MAC counters are the 100G CMAC's only.
 *
 * role = tcp (params.tcp, dp_setup_card): gtoe_top and tx_arb_top must be
 * in the xclbin too; gtoe_top's words and connection table are written with
 * the rest (toe_hw_gtoe_writes) and it is applied before eth_rx_top
 * (toe_hw_apply_order_tcp). Then toe_xrt_tcp_conn reads a connection's state
 * window, toe_xrt_tcp_send hands bytes to it through the TX mailbox without
 * waiting (toe_xrt_tcp_poll every turn learns the outstanding message's
 * answer), toe_xrt_tcp_enable opens or closes it; toe_xrt_close closes them
 * all first.
 *
 * toe_xrt_poll reads WRITE_INDEX, syncs from the device only the new records
 * of each pseudo-channel (two syncs when the range wraps), copies them out
 * in ring order (record k: channel k % 4, slot (k / 4) % ring_slots) and
 * writes READ_INDEX. Each call costs one register read, one write and up to
 * eight syncs when records are there: poll with a large `max` (hundreds).
 *
 * Threads: one thread uses a struct toe_xrt at a time (the data plane);
 * toe_xrt_counters reads ~200 registers (some hundred microseconds on a
 * card), so call it from that thread, e.g. with its counter snapshot.
 */
#ifndef TOED_XRT_BACKEND_H
#define TOED_XRT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "hw/toe_hw_cfg.h"
#include "rx/rx_pipe.h"
#include "toe/tick.h"
#include "card/card_dev.h"

#define TOE_XRT_DEFAULT_SLOTS 65536u  /* records per pseudo-channel: 4 x 8 MB of HBM */
#define TOE_XRT_DEFAULT_LINK_MS 10000u
#define TOE_XRT_APPLY_MS 200u         /* how long kernels get to report their new configuration */

/* toe_xrt_params.flags */
#define TOE_XRT_F_REQUIRE_LINK 0x1u   /* fail toe_xrt_open when the link is not up in time (else a warning) */
#define TOE_XRT_F_NO_RSFEC 0x2u       /* leave the CMAC's RS-FEC off (on by default: 100GBASE-SR4 needs it) */

/* log priorities (syslog's, as toed_log) */
#define TOE_XRT_LOG_ERR 3
#define TOE_XRT_LOG_WARNING 4
#define TOE_XRT_LOG_NOTICE 5
#define TOE_XRT_LOG_INFO 6
#define TOE_XRT_LOG_DEBUG 7

struct toe_xrt_params {
	const char *pci;              /* "dddd:bb:dd.f" of the card's user function; "" or NULL: the first card */
	const char *xclbin;           /* path of toed.xclbin */
	const struct rx_cfg *rx;      /* what the card runs: the software backend's configuration */
	const struct fast_prog *prog; /* the compiled templates */
	struct toe_hw_opts hw;        /* role, gateway, MSS; ring_slots 0 = TOE_XRT_DEFAULT_SLOTS */
	uint32_t link_timeout_ms;     /* wait for the link at open; 0: do not wait */
	uint32_t flags;               /* TOE_XRT_F_* */
	void (*log)(void *arg, int prio, const char *msg); /* optional: progress and warnings */
	void *log_arg;
	uint32_t ports;               /* bit n (1..3): [port.n] is configured: program eth_rx_top_(n+1) from
				       * rx->net_port[n-1] (the 4 x 10G xclbin; the 100G one refuses it) */
	uint32_t port_role[TOE_HW_MAX_PORTS]; /* TOE_ROLE_MIRROR / MAIN of ports 1..3 ([0]: hw.role) */
	/* role = tcp (hw.role TOE_ROLE_TCP): the general TOE, gtoe_top, and tx_arb_top too */
	int tcp;
	struct gtoe_cfg gtoe;                            /* what the software backend gives gtoe_init */
	struct toe_hw_gtoe_conn gconn[TOE_HW_GTOE_CONNS]; /* the connection table */
	uint32_t gconn_feed[TOE_HW_GTOE_CONNS];         /* the feed of each entry (for the caller) */
	uint32_t ngconn;                                /* entries; above TOE_HW_GTOE_CONNS: refused */
};

/* role = tcp: one entry of gtoe_top's per-connection state (TOE_GTOE_REG_CST). */
struct toe_xrt_tcpconn {
	uint32_t phase;       /* 0 waiting, 1 resolving, 2 connecting, 3 up (dp_tcp_phase's values) */
	uint32_t state;       /* enum gtoe_state, 0 (GTOE_FREE) without a connection */
	uint32_t srtt_us, cwnd, snd_wnd, rcv_wnd;
	uint32_t ups, downs;  /* connections established, ended */
	uint32_t last_down, last_reason; /* gtoe event type and reason that ended the last one */
	uint32_t retrans, attempts;
	uint64_t bytes_in;    /* stream bytes to fast_top, every connection of the entry */
	uint64_t bytes_out;   /* bytes sent, the current connection */
};

/* toe_xrt_tcp_send: not connected */
#define TOE_XRT_TX_DOWN (-2)
#define TOE_XRT_TX_MS 20u   /* a mailbox message gtoe_top has not taken by then is reported (never waited for) */

/* Network ports of the xclbin's layout, from the compute units in its
 * IP_LAYOUT: 4 when eth_rx_top_1..4 and the port muxes are there (the
 * 4 x 10G build, link_4x10g.cfg), 1 for the 100G build (eth_rx_top_1 alone),
 * 0 when it has no eth_rx_top_1. */
struct toe_xclbin;
uint32_t toe_xrt_layout_ports(const struct toe_xclbin *x);

/* The host side's own counters. */
struct toe_xrt_host_stats {
	uint64_t polls;          /* toe_xrt_poll calls */
	uint64_t empty_polls;    /* ... that found nothing new */
	uint64_t records;        /* records handed out */
	uint64_t syncs;          /* xrtBOSync calls */
	uint64_t sync_bytes;
	uint64_t wraps;          /* ranges synced in two parts */
	uint64_t bad_records;    /* records whose type is no TOE_REC_* (handed out anyway: a DMA problem) */
	uint64_t max_backlog;    /* most records found waiting at once */
	uint64_t time_writes;    /* toe_xrt_set_time calls */
	uint64_t tx_msgs;        /* role tcp: mailbox messages gtoe_top answered (TX_DONE) */
	uint64_t tx_bytes;       /* ... bytes its send buffers took */
	uint64_t tx_down;        /* ... refused: the entry was not connected */
	uint64_t tx_partial;     /* ... its send buffer took only part of (the rest posted again) */
	uint64_t tx_late;        /* ... gtoe_top did not take within TOE_XRT_TX_MS (reported once each) */
	uint64_t tx_dropped;     /* bytes accepted for a connection that ended before the card took them */
};

#define TOE_XRT_CTR_NAME 56
#define TOE_XRT_MAX_COUNTERS 640 /* the 4 x 10G build adds three eth_rx_tops */

struct toe_xrt_counter {
	char name[TOE_XRT_CTR_NAME]; /* "eth_rx_top.frames", "mirror_toe_top.gaps", "cmac_0.rx_packets", "host.syncs" */
	uint64_t value;
};

struct toe_xrt;

/* Bring the card up (steps above). 0, or -1 with one line in err naming what
 * is wrong (no card at that BDF, wrong platform, UUID mismatch, kernels
 * missing from the xclbin, registers refused, a kernel refusing its
 * configuration, ...). ops/ctx: the device (toe_devops_xrt, NULL). */
int toe_xrt_open(struct toe_xrt **be, const struct toe_devops *ops, void *ctx, const struct toe_xrt_params *p,
		 char *err, size_t errlen);

/* Up to max new records into out[], in ring order. Returns how many (0: none
 * new), or -1 on a device error (toe_xrt_error says what). */
int toe_xrt_poll(struct toe_xrt *be, union toe_record *out, int max);

/* Write the card's clock (CLOCK_REALTIME ns): frames are stamped with it and
 * every call is one timer tick for the mirror TOE (call about every ms).
 * 0, or -1 on a register error. */
int toe_xrt_set_time(struct toe_xrt *be, uint64_t now_ns);

/* CMAC link: 1 up, 0 down, -1 register error. rx_status (may be NULL): the raw
 * STAT_RX_STATUS word. The first time it sees the link up it enables the
 * CMAC's transmitter (until then it sends remote-fault indications): call it
 * now and then (e.g. with the counters) when toe_xrt_open did not wait. */
int toe_xrt_link(struct toe_xrt *be, uint32_t *rx_status);

/* Every counter of the CMAC and each kernel (names from toe_regmap.h and the
 * software counters they mirror), each kernel's status, and the host side's.
 * Returns how many were written to out[0..cap); -1 on a register error. */
int toe_xrt_counters(struct toe_xrt *be, struct toe_xrt_counter *out, uint32_t cap);

/* role = tcp. Entries of the connection table (0 without role = tcp). */
uint32_t toe_xrt_tcp_entries(const struct toe_xrt *be);
/* Entry i's state and counters. 0, or -1 (register error, no such entry). */
int toe_xrt_tcp_conn(struct toe_xrt *be, uint32_t i, struct toe_xrt_tcpconn *c);
/* Bytes out on entry i's connection through the TX mailbox (TOE_GTOE_TX_BYTES at a time: data
 * words, TX_CONN, TX_LEN, then a new TX_SEQ), never waiting: the mailbox holds one message for
 * all entries; a message is posted and its answer (TX_DONE echoing TX_SEQ, TX_TAKEN) looked at
 * once, then at the next send or toe_xrt_tcp_poll. Returns the bytes accepted: posted and taken,
 * or posted and not answered yet, or partly taken (the rest is posted again by the backend, in
 * order, before anything else); 0 while an earlier message is outstanding (the caller keeps its
 * bytes and tries again); TOE_XRT_TX_DOWN when the card answers at once that the entry is not
 * connected (nothing accepted); -1 on a register error (toe_xrt_error). Bytes accepted for a
 * connection that ended before the card took them are dropped (host.tx_dropped). */
int toe_xrt_tcp_send(struct toe_xrt *be, uint32_t i, const uint8_t *data, uint32_t len);
/* The outstanding mailbox message (CLOCK_MONOTONIC now_ns): its answer if gtoe_top gave it, the
 * rest of a partly taken one posted again (after 1 ms when the send buffer took nothing). Call it
 * every turn. 0; 1 when the message has not been taken within TOE_XRT_TX_MS (once per message:
 * host.tx_late, toe_xrt_error says which; it stays posted and nothing waits); -1 on a register
 * error. */
int toe_xrt_tcp_poll(struct toe_xrt *be, uint64_t now_ns);
/* 1 a mailbox message is posted and not answered, 2 the rest of one waits to be posted, 0 free. */
int toe_xrt_tcp_tx_busy(const struct toe_xrt *be);
/* Entry i's connection ended: the rest of a partly taken message for it is dropped (counted
 * host.tx_dropped), not posted to its next connection. */
void toe_xrt_tcp_forget(struct toe_xrt *be, uint32_t i);
/* Set or clear entry i's enable bit: cleared, gtoe_top closes the connection at its next tick
 * (FIN, CLOSE on the stream) and stops reconnecting; set, it connects again. 0 or -1. */
int toe_xrt_tcp_enable(struct toe_xrt *be, uint32_t i, int on);

const struct toe_xrt_host_stats *toe_xrt_host_stats(const struct toe_xrt *be);
/* Ring geometry: records per pseudo-channel; device address of channel ch. */
uint32_t toe_xrt_ring_slots(const struct toe_xrt *be);
uint64_t toe_xrt_ring_addr(const struct toe_xrt *be, uint32_t ch);
/* The reason of the last failure ("" none). */
const char *toe_xrt_error(const struct toe_xrt *be);

/* Hold the kernels (the writer stops writing into the buffers), free the
 * buffers, close the card. NULL is fine. */
void toe_xrt_close(struct toe_xrt *be);

#endif
