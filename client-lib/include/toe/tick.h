/* toe/tick.h - the fixed-size records that reach strategies (public ABI).
 *
 * Every record is 128 bytes (two cache lines) and starts with the same 40-byte
 * header. Decoded SSE Level-2 ticks (template 3201 trades, 5801 orders) and
 * stream events (gaps) share one ring, so a strategy sees data and loss in
 * order. Prices and amounts are scaled integers with the fixed scales below,
 * whatever the template file says: the decoder converts from the template's
 * decimalPlaces (or a FAST decimal's exponent) to these scales.
 *
 * This header is shared by the kernels (hardware and software), the daemon and
 * libtoeclient; changing a layout means bumping TOE_ABI_VERSION.
 *
 * ABI 2 (from 1): the header gained flags, group, line and bad_fields (40
 * bytes); prices are 64-bit (SSE prices are N13(3)); the one-character
 * fields became TOE_FLAG_LEN-byte strings (TradeBSFlag "BS" no longer
 * arrives as 'B'); reset records say why (struct toe_reset); gap records
 * name lost sequence ranges (TOE_GAP_SEQUENCE, TOE_GAP_MSG_SEQ).
 *
 * Within ABI 2 new record types may be added (never a new layout for an
 * existing one): TOE_REC_SESSION came this way. A client that subscribes to
 * every type (types 0) receives them, so a client skips a record whose type
 * it does not know; one that names its types gets only those.
 */
#ifndef TOE_TICK_H
#define TOE_TICK_H

#include <stdint.h>
#include "toe/decode_err.h"

#define TOE_ABI_VERSION 2
#define TOE_RECORD_SIZE 128

/* Fixed scales of the scaled-integer fields (number of decimal places). */
#define TOE_PRICE_DECIMALS 3 /* TradePrice, OrderPrice: 1/1000 yuan */
#define TOE_QTY_DECIMALS 3   /* TradeQty, Balance */
#define TOE_MONEY_DECIMALS 5 /* TradeMoney */

enum toe_rec_type {
	TOE_REC_NONE = 0,
	TOE_REC_TRADE = 1, /* SSE 3201 tick-by-tick trade */
	TOE_REC_ORDER = 2, /* SSE 5801 tick-by-tick order */
	TOE_REC_GAP = 3,   /* bytes of a stream were lost; see struct toe_gap */
	TOE_REC_RESET = 4, /* a stream or a sequence (re)started; see struct toe_reset */
	TOE_REC_SESSION = 5, /* an event of toed's own STEP session (logon, heartbeat, logout); struct toe_session */
};

/* Tick fields. A record's `present` mask has bit (1u << TOE_TF_x) set when
 * the field was present in the decoded message; absent fields read as 0. */
enum toe_tick_field {
	TOE_TF_NONE = 0,
	TOE_TF_DATA_STATUS,
	TOE_TF_SECURITY_ID,
	TOE_TF_BIZ_INDEX,
	TOE_TF_TRADE_INDEX,
	TOE_TF_TRADE_CHANNEL,
	TOE_TF_TRADE_TIME,
	TOE_TF_TRADE_PRICE,
	TOE_TF_TRADE_QTY,
	TOE_TF_TRADE_MONEY,
	TOE_TF_TRADE_BUY_NO,
	TOE_TF_TRADE_SELL_NO,
	TOE_TF_TRADE_BS_FLAG,
	TOE_TF_ORDER_INDEX,
	TOE_TF_ORDER_CHANNEL,
	TOE_TF_ORDER_TIME,
	TOE_TF_ORDER_TYPE,
	TOE_TF_ORDER_NO,
	TOE_TF_ORDER_PRICE,
	TOE_TF_BALANCE,
	TOE_TF_ORDER_BS_FLAG,
	TOE_TF_COUNT
};

#define TOE_SECURITY_ID_LEN 16
#define TOE_FLAG_LEN 8 /* the code fields (BS flags, order type): SSE sends at most C8 there */

/* toe_rec_hdr.flags */
#define TOE_RF_RANGE 0x0001u /* a value did not fit its field: hdr.bad_fields says which; an integer
				 field then reads 0, a string field holds its first bytes */
#define TOE_RF_WARN 0x0002u  /* decoded despite a reportable FAST error (an overlong encoding) */
#define TOE_RF_LATE 0x0004u  /* records with higher sequences of its channel came before it: it filled
				 a hole of the channel's sequence (another line was late, or UDP reordering),
				 or came below the channel's first record within the arbitration wait */

/* Which clock took hdr.rx_ns (always CLOCK_REALTIME ns): bits 29..31 of
 * hdr.present, above every enum toe_tick_field bit; read them with
 * toe_rx_clock(). 0 (unknown) in records of a daemon that predates them. */
enum toe_rx_clock {
	TOE_CLK_UNKNOWN = 0,
	TOE_CLK_NIC = 1,     /* the NIC's hardware stamp at arrival (PHC, synchronised to UTC by the host) */
	TOE_CLK_KERNEL = 2,  /* the kernel at arrival: the XDP program, or the socket's receive stamp */
	TOE_CLK_POLL = 3,    /* the daemon when it polled the frame (no arrival stamp) */
	TOE_CLK_CAPTURE = 4, /* the capture file's time of the frame (pcap replay) */
	TOE_CLK_CARD = 5,    /* the card's MAC timestamp (backend xrt) */
};
#define TOE_CLK_SHIFT 29
#define TOE_CLK_MASK (7u << TOE_CLK_SHIFT)
#define TOE_PRESENT_FIELDS (~TOE_CLK_MASK) /* the bits of present that are enum toe_tick_field */

struct toe_rec_hdr {
	uint16_t type;    /* enum toe_rec_type */
	uint16_t stream;  /* the connection (TCP: the mirror TOE's slot, reused by later connections) or UDP
			     port stream within the daemon that carried it; a client picks feeds and groups
			     by name (toe_sub.stream) */
	uint32_t present; /* bit per enum toe_tick_field; bits 29..31: enum toe_rx_clock */
	uint64_t msg_seq; /* STEP MsgSeqNum of the carrying message (0: raw FAST) */
	uint64_t seq;     /* per-ring sequence number: a jump means records were dropped */
	uint64_t rx_ns;   /* arrival time, CLOCK_REALTIME ns (0 when unknown); which clock: toe_rx_clock() */
	uint16_t flags;   /* TOE_RF_* */
	uint8_t group;    /* sequence/arbitration group that delivered it, from 1 (0: tracking off); set on
			     every record type: ticks, gaps (byte, decode, sequence, MsgSeqNum) and resets */
	uint8_t line;     /* the line of that group that carried it, from 0 (0 when group is 0) */
	uint32_t bad_fields; /* TOE_RF_RANGE: bit per enum toe_tick_field whose value did not fit */
};

/* The code fields (bs_flag, order_type) hold the characters as sent,
 * NUL-padded; a value of exactly TOE_FLAG_LEN characters has no NUL, a longer
 * one is cut to TOE_FLAG_LEN and flagged (TOE_RF_RANGE). */
struct toe_trade {
	struct toe_rec_hdr hdr;
	int64_t trade_qty;   /* TOE_QTY_DECIMALS */
	int64_t trade_money; /* TOE_MONEY_DECIMALS */
	int64_t trade_buy_no;
	int64_t trade_sell_no;
	int64_t biz_index;
	int64_t trade_price; /* TOE_PRICE_DECIMALS */
	int32_t data_status;
	int32_t trade_index;
	int32_t trade_channel;
	int32_t trade_time;  /* HHMMSScc as sent */
	char security_id[TOE_SECURITY_ID_LEN]; /* NUL-padded */
	char bs_flag[TOE_FLAG_LEN];            /* "B", "S", "N" or "" */
};

struct toe_order {
	struct toe_rec_hdr hdr;
	int64_t order_no;
	int64_t balance; /* TOE_QTY_DECIMALS */
	int64_t biz_index;
	int64_t order_price; /* TOE_PRICE_DECIMALS */
	int32_t data_status;
	int32_t order_index;
	int32_t order_channel;
	int32_t order_time;
	char security_id[TOE_SECURITY_ID_LEN];
	char order_type[TOE_FLAG_LEN]; /* "A" add, "D" delete, ... as sent */
	char bs_flag[TOE_FLAG_LEN];    /* "B", "S" or "" */
	uint8_t pad[8];
};

enum toe_gap_reason {
	TOE_GAP_TIMEOUT = 1,  /* a hole was not filled in time */
	TOE_GAP_WINDOW = 2,   /* a hole blocked a full reassembly window */
	TOE_GAP_DECODE = 3,   /* bytes skipped because of a framing/decoding error; detail: enum toe_decode_err
				 (toe/decode_err.h) */
	TOE_GAP_OVERFLOW = 4, /* records lost inside the pipeline (queue full) */
	TOE_GAP_ACKED = 5,    /* the receiver acknowledged bytes the mirror never showed */
	TOE_GAP_CLOSED = 6,   /* the connection ended (reset, idle) with bytes never seen */
	TOE_GAP_SEQUENCE = 7, /* channel `channel` is missing sequence numbers [first, last] (SSE: BizIndex);
				 with A/B arbitration: every line of the group missed them. At once on a
				 TCP line; with arbitration or over UDP after the arbitration wait */
	TOE_GAP_MSG_SEQ = 8,  /* the stream's STEP MsgSeqNum jumped: messages [first, last] did not arrive
				 on this line (the line's health: another line may have brought their
				 records). At once on TCP; over UDP after the arbitration wait */
};

/* TOE_GAP_SEQUENCE / TOE_GAP_MSG_SEQ leave offset and length 0; the byte
 * reasons leave first, last and channel 0. */
struct toe_gap {
	struct toe_rec_hdr hdr;
	uint64_t offset; /* byte offset of the lost range in the stream */
	uint64_t length; /* bytes lost (0 when unknown) */
	uint32_t reason; /* enum toe_gap_reason */
	uint32_t detail; /* reason-specific: enum toe_decode_err for TOE_GAP_DECODE */
	uint64_t records; /* records lost when known (TOE_GAP_OVERFLOW, TOE_GAP_SEQUENCE), else 0 */
	uint64_t first;   /* TOE_GAP_SEQUENCE, TOE_GAP_MSG_SEQ: first missing sequence number */
	uint64_t last;    /* ... and the last one (inclusive) */
	uint32_t channel; /* TOE_GAP_SEQUENCE: the channel (SSE: TradeChannel / OrderChannel) */
	uint32_t pad0;
	uint8_t pad[32];
};

enum toe_reset_reason {
	TOE_RESET_SYN = 1,        /* a new TCP connection from its SYN: the stream starts at its first byte */
	TOE_RESET_JOIN = 2,       /* a connection already running when first seen (mid-stream join): decoding
				     starts at the next message, what came before is unknown */
	TOE_RESET_RESTART = 3,    /* a sequence went back to 1 (a new logon, a new trading day): channel
				     `channel`'s sequence, or with channel TOE_CHANNEL_NONE the stream's
				     MsgSeqNum; `last` is the sequence seen before; not a gap */
	TOE_RESET_ARB_SWITCH = 4, /* a line of an arbitration group stopped (closed, reset, timed out): the
				     group carries on with its other lines; hdr.line is the line that stopped */
};

#define TOE_CHANNEL_NONE 0xffffffffu

struct toe_reset {
	struct toe_rec_hdr hdr;
	uint32_t reason;  /* enum toe_reset_reason */
	uint32_t channel; /* TOE_RESET_RESTART: the channel, TOE_CHANNEL_NONE for MsgSeqNum; else 0 */
	uint64_t last;    /* TOE_RESET_RESTART: the last sequence number before the restart */
	uint8_t pad[72];
};

/* TOE_REC_SESSION: the STEP session on one of toed's own connections (a feed on
 * a role = tcp port) changed state. hdr.stream, hdr.group and hdr.line name
 * the feed's connection as its ticks do; hdr.msg_seq is 0. next_in and
 * next_out are the session's MsgSeqNums after the event: the next one
 * expected from the exchange (0: none seen yet) and the next one toed sends.
 * arg1 and arg2 depend on the event (below, 0 where none is said). */
enum toe_sess_event {
	TOE_SESS_LOGON_SENT = 1,     /* the connection is up, our Logon went out; arg1: HeartBtInt asked (s) */
	TOE_SESS_LOGGED_ON = 2,      /* the exchange accepted the Logon; arg1: HeartBtInt in force (s), arg2: the
					MsgSeqNum of its Logon; text: its SenderCompID */
	TOE_SESS_LOGON_REFUSED = 3,  /* the exchange answered the Logon with a Logout; text: its reason (58=) */
	TOE_SESS_LOGON_TIMEOUT = 4,  /* no answer to the Logon in time; arg1: ms waited; the connection closes */
	TOE_SESS_HB_MISSED = 5,      /* the exchange was silent past HeartBtInt: TestRequest sent; arg1: ms silent */
	TOE_SESS_HB_TIMEOUT = 6,     /* still silent after the TestRequest: given up, the connection closes;
					arg1: ms silent */
	TOE_SESS_PEER_LOGOUT = 7,    /* the exchange logged out; text: its reason (58=) */
	TOE_SESS_LOGOUT_SENT = 8,    /* toed sent a Logout (toed is stopping); text: the reason sent */
	TOE_SESS_LOGGED_OUT = 9,     /* our Logout was answered; arg1: 1 when no answer came in time */
	TOE_SESS_DISCONNECTED = 10,  /* the connection was lost; arg1: 1 when the session ended it on purpose
					(refusal, timeout, logout), 0 when it just went away */
	TOE_SESS_RECONNECTING = 11,  /* a new connection attempt started; arg1: the attempt's number (from 1 for
					the feed), arg2: ms waited before it (the backoff) */
	TOE_SESS_SEQ_RESET = 12,     /* the exchange restarted its MsgSeqNum (a Logon with 1 or 141=Y);
					arg1: expected, arg2: received */
	TOE_SESS_SEQ_GAP = 13,       /* an exchange MsgSeqNum jumped ahead; arg1: expected, arg2: received (the
					ticks' side of the loss comes as TOE_GAP_MSG_SEQ records) */
	TOE_SESS_SEQ_REPEAT = 14,    /* a lower MsgSeqNum than expected, not a possible duplicate; arg1: expected,
					arg2: received */
	TOE_SESS_SEQ_SET = 15,       /* a SequenceReset moved the expected MsgSeqNum; arg1: before, arg2: now */
	TOE_SESS_PROTOCOL = 16,      /* a message broke the session rules; text: what; arg1: its MsgSeqNum (0
					unknown) */
};

/* toe_session.flags */
#define TOE_SESS_F_TEXT_CUT 0x1u    /* the reason was longer than the text field: text holds its start */
#define TOE_SESS_F_EVENTS_LOST 0x2u /* events of this feed's session were lost before this one (more at once
				       than the daemon queues: toectl stats counts them) */

#define TOE_SESS_TEXT_LEN 48 /* text with its NUL: at most 47 characters */

struct toe_session {
	struct toe_rec_hdr hdr;
	uint32_t event;    /* enum toe_sess_event */
	uint32_t flags;    /* TOE_SESS_F_* */
	uint64_t next_in;  /* next MsgSeqNum expected from the exchange (0: none yet) */
	uint64_t next_out; /* next MsgSeqNum toed sends */
	uint64_t arg1;     /* per event (enum toe_sess_event) */
	uint64_t arg2;
	char text[TOE_SESS_TEXT_LEN]; /* the exchange's reason or a note as the event says; always NUL-terminated,
					 NUL-padded ("" none); cut to 47 characters with TOE_SESS_F_TEXT_CUT */
};

union toe_record {
	struct toe_rec_hdr hdr;
	struct toe_trade trade;
	struct toe_order order;
	struct toe_gap gap;
	struct toe_reset reset;
	struct toe_session session;
	uint8_t bytes[TOE_RECORD_SIZE];
};

#if defined(__cplusplus)
#define TOE_STATIC_ASSERT static_assert
#else
#define TOE_STATIC_ASSERT _Static_assert
#endif
TOE_STATIC_ASSERT(sizeof(struct toe_rec_hdr) == 40, "toe_rec_hdr is 40 bytes");
TOE_STATIC_ASSERT(sizeof(struct toe_trade) == TOE_RECORD_SIZE, "toe_trade is 128 bytes");
TOE_STATIC_ASSERT(sizeof(struct toe_order) == TOE_RECORD_SIZE, "toe_order is 128 bytes");
TOE_STATIC_ASSERT(sizeof(struct toe_gap) == TOE_RECORD_SIZE, "toe_gap is 128 bytes");
TOE_STATIC_ASSERT(sizeof(struct toe_reset) == TOE_RECORD_SIZE, "toe_reset is 128 bytes");
TOE_STATIC_ASSERT(sizeof(struct toe_session) == TOE_RECORD_SIZE, "toe_session is 128 bytes");
TOE_STATIC_ASSERT(sizeof(union toe_record) == TOE_RECORD_SIZE, "toe_record is 128 bytes");
TOE_STATIC_ASSERT(TOE_TF_COUNT <= TOE_CLK_SHIFT, "present's field bits stay below the clock bits");

/* A short name for a session event code ("logged_on"), "unknown" for others. */
static inline const char *toe_sess_event_name(uint32_t e)
{
	static const char *const names[] = {
		"none", "logon_sent", "logged_on", "logon_refused", "logon_timeout", "heartbeat_missed",
		"heartbeat_timeout", "peer_logout", "logout_sent", "logged_out", "disconnected", "reconnecting",
		"seq_reset", "seq_gap", "seq_repeat", "seq_set", "protocol",
	};
	return e > 0 && e < sizeof names / sizeof names[0] ? names[e] : "unknown";
}

static inline uint32_t toe_rx_clock(const struct toe_rec_hdr *h)
{
	return (h->present & TOE_CLK_MASK) >> TOE_CLK_SHIFT;
}

#endif
