/* sse_gen.h - deterministic SSE Level-2 tick generator and feed encoder (host only).
 *
 * Produces realistic tick-by-tick trades (3201) and orders (5801) as ABI
 * records (toe/tick.h) from a seed: the same configuration always gives the
 * same records, on every machine. Used by the tests, the benchmarks, the demo
 * data, toe-fastgen and the feed simulator.
 *
 * Continuity rules the records follow:
 *   - BizIndex as SSE numbers it (cfg.biz_per_channel = 1, the default):
 *     1, 2, 3, ... per channel, contiguous across trades and orders of that
 *     channel (the numbering [fast] sequence_check expects); or, with
 *     cfg.biz_per_channel = 0, global: 1, 2, 3, ... one per record across
 *     channels (sequence tracking sees jumps on every channel but one).
 *     Only BizIndex differs between the two: every other field and the
 *     random draws are the same. toe-verify matches records by (channel,
 *     BizIndex), so it checks either numbering;
 *   - TradeIndex and OrderIndex count per channel from 1 (each security
 *     belongs to one channel, 1..nchannels);
 *   - TradeTime/OrderTime (HHMMSScc) never decrease, skip the lunch break
 *     (11:30-13:00) and stop at 15:00:00.00;
 *   - OrderNO grows with every new order; trades name existing orders;
 *   - prices in 1/1000 yuan on a 0.01 yuan tick, quantities in multiples of
 *     100 shares (scaled by 1000), TradeMoney = price * qty at 5 decimals.
 *
 * sse_rec_from_tick() is the inverse of the tick mapper (fast_tick.c): it
 * builds the decoder's value layout (struct fast_rec) for the template whose
 * kind matches the record, so that encode -> decode -> fast_tick_map gives
 * the record back. sse_encode_msg()/sse_stream_*() turn records into STEP
 * messages (or one raw FAST stream).
 */
#ifndef SSE_GEN_H
#define SSE_GEN_H

#include <stddef.h>
#include <stdint.h>
#include "toe/tick.h"
#include "fast/fast_decode.h"
#include "fast/host/fast_encode.h"

#define SSE_GEN_MAX_SEC 4000
#define SSE_GEN_MAX_CHAN 64

struct sse_gen_cfg {
	uint64_t seed;
	uint32_t nsecurities; /* 1..SSE_GEN_MAX_SEC */
	uint32_t nchannels;   /* 1..SSE_GEN_MAX_CHAN */
	uint32_t order_pct;   /* share of orders among the records, 0..100 (e.g. 70) */
	uint32_t status_pct;  /* share of records carrying DataStatus, 0..100 */
	int32_t start_time;   /* HHMMSScc of the first record (0: 09:29:58.00) */
	uint32_t biz_per_channel; /* 1 (default): BizIndex counts per channel (SSE), 0: across channels */
};

/* Fill cfg with the defaults: seed 1, 200 securities, 4 channels, 70% orders,
 * 10% of records with DataStatus, start 09:29:58.00 (a few call-auction
 * trades with BS flag 'N' before 09:30), BizIndex per channel. */
void sse_gen_default(struct sse_gen_cfg *cfg);

struct sse_sec {
	char id[8];        /* 6 digits, NUL-terminated */
	int32_t price;     /* last price, 1/1000 yuan */
	uint16_t channel;  /* 1..nchannels */
	uint8_t side;      /* side of last_order: 'B' or 'S' */
	uint8_t pad;
	int64_t last_buy;  /* most recent buy order number, 0 if none */
	int64_t last_sell;
	int64_t last_order;
};

struct sse_gen {
	struct sse_gen_cfg cfg;
	uint64_t rng;
	uint64_t count;       /* records produced */
	int64_t biz_index;    /* last BizIndex given (across channels) */
	int64_t chan_biz[SSE_GEN_MAX_CHAN + 1]; /* biz_per_channel: last BizIndex per channel */
	int64_t order_no;     /* last OrderNO given */
	int32_t time;         /* current HHMMSScc */
	int32_t trade_index[SSE_GEN_MAX_CHAN]; /* last per channel */
	int32_t order_index[SSE_GEN_MAX_CHAN];
	struct sse_sec sec[SSE_GEN_MAX_SEC];
};

/* Returns 0, or -1 when the configuration is out of range. */
int sse_gen_init(struct sse_gen *g, const struct sse_gen_cfg *cfg);

/* The next record (zeroed, then filled: hdr.type, hdr.present, fields).
 * Returns its type, TOE_REC_TRADE or TOE_REC_ORDER. */
int sse_gen_next(struct sse_gen *g, union toe_record *out);

/* Index of the first template whose kind is rec_type, or -1. */
int sse_tpl_for_kind(const struct fast_prog *p, int rec_type);

/* Build the value layout of t for the first template of p whose kind matches
 * t->hdr.type. Fields mapped to a tick field take its value (converted from
 * the ABI scale to the instruction's decimalPlaces, or to mantissa/exponent
 * for a decimal) when the tick's present bit is set; constants take the
 * program's value; every other field is absent if optional, 0 / "" if
 * mandatory. Returns 0, or -1 (no such template, a value that does not fit
 * or does not convert exactly). */
int sse_rec_from_tick(const struct fast_prog *p, const union toe_record *t, struct fast_rec *out);

/* Encode n records of one type as one STEP message: dictionary reset, the
 * records, framed with MsgType "UA<template id>", MsgSeqNum seq, SendingTime
 * from the first record's time. recs_out (may be NULL) receives the value
 * layout of each record (what a decoder must produce). Returns the message
 * length, or -1 (mixed types, encoding error, does not fit in cap). */
int sse_encode_msg(const struct fast_prog *p, struct fast_enc *e, const union toe_record *recs,
		   uint32_t n, uint64_t seq, uint8_t *out, size_t cap, struct fast_rec *recs_out);

/* Encode one record as raw FAST, continuing e's dictionary (no reset).
 * Returns the bytes written or -1. */
int sse_encode_raw(const struct fast_prog *p, struct fast_enc *e, const union toe_record *rec,
		   uint8_t *out, size_t cap, struct fast_rec *rec_out);

/* A feed: generator + encoder + message batching. */
struct sse_stream {
	const struct fast_prog *prog;
	struct sse_gen gen;
	struct fast_enc enc;
	uint64_t rng;          /* message sizes (separate from the generator's) */
	uint32_t per_msg;      /* at most this many records per message (>= 1) */
	uint64_t seq;          /* MsgSeqNum of the next message, from 1 */
	int have_pending;      /* a record drawn but not yet sent (type change) */
	union toe_record pending;
};

int sse_stream_init(struct sse_stream *s, const struct fast_prog *p, const struct sse_gen_cfg *cfg,
		    uint32_t per_msg);

/* The next STEP message: 1..per_msg records (at most max_records) of one
 * type. recs/ticks (each may be NULL, else room for per_msg) receive the
 * value layouts and the tick records; *nrecs their count. Returns the message
 * length, or -1. */
int sse_stream_next_msg(struct sse_stream *s, uint32_t max_records, uint8_t *out, size_t cap,
			struct fast_rec *recs, union toe_record *ticks, uint32_t *nrecs);

#endif
