/* test_xrt_ring.c - the card backend's ring drain against the fake card.
 *
 * - Equivalence: mixed traffic (TCP with reordering, a loss that times out,
 *   a mid-stream join, STEP and raw FAST datagrams, dropped frames) through
 *   the fake card and the backend gives exactly the records the software
 *   pipeline gives for the same frames, bit for bit, whatever the batch size
 *   and drain rhythm; the raw datagrams' ticks equal the generator's.
 * - Every poll syncs, per pseudo-channel, exactly the slots of the records it
 *   hands out (worked out from record k -> channel k % 4, slot (k / 4) %
 *   slots), from the device, in one range or two when the range wraps.
 * - A wrap with two syncs per channel; when the second sync is lost
 *   (TOE_FAKE_FAULT_LOSE_WRAP_SYNC: the fake copies nothing) the host gets
 *   the previous lap's records in exactly the wrapped slots, and with a
 *   short sync (TOE_FAKE_FAULT_SHORT_SYNC) the poisoned host copy: the
 *   fake's separate copies make both visible.
 * - Ring full: records dropped and counted, two free slots needed, then one
 *   TOE_GAP_OVERFLOW gap with the count and the last dropped record's time.
 * - A write index that makes no sense is an error, not a flood of records.
 * - A card whose registers fail once drained (the fake's device error) makes
 *   the poll fail with the access and the reason.
 */
#include "test_xrt_common.h"

#define RAW_STREAM 9 /* max_conns (8) + UDP port index 1: the raw FAST port */

static char xclbin[64];
static struct tx_xclbin xd;

/* n raw FAST datagrams of one record each, 1 us apart from ts0. */
static void one_record_frames(struct tx_frames *l, uint32_t n, uint64_t ts0)
{
	struct sse_gen *gen = calloc(1, sizeof *gen);
	struct fast_enc *enc = calloc(1, sizeof *enc);
	struct sse_gen_cfg gc;
	uint8_t buf[512];
	uint32_t i;
	sse_gen_default(&gc);
	gc.seed = 77;
	CHECK_EQ(sse_gen_init(gen, &gc), 0);
	fast_enc_init(enc, &tx_prog);
	for (i = 0; i < n; i++) {
		union toe_record r;
		int e;
		fast_enc_reset(enc);
		sse_gen_next(gen, &r);
		e = sse_encode_raw(&tx_prog, enc, &r, buf, sizeof buf, NULL);
		CHECK(e > 0);
		tx_udp(l, TX_UDP_RAW, buf, e > 0 ? (size_t)e : 0, ts0 + 1000ull * i);
	}
	free(gen);
	free(enc);
}

static struct toe_xrt *open_fake(struct toe_fake **f, const struct rx_cfg *cfg, uint32_t slots, uint32_t faults,
				 struct toe_xrt_params *p)
{
	struct toe_fake_cfg fc = { 0 };
	struct toe_xrt *be = NULL;
	char err[1024];
	uint32_t ch;
	fc.link_after_reads = 0;
	fc.check_banks = 1;
	for (ch = 0; ch < 4; ch++)
		fc.hbm_bank[ch] = xd.hbm_bank[ch];
	fc.faults = faults;
	*f = toe_fake_new(&fc);
	tx_params(p, xclbin, cfg, slots);
	if (toe_xrt_open(&be, &toe_devops_fake, *f, p, err, sizeof err) < 0)
		fprintf(stderr, "open: %s\n", err);
	CHECK(be != NULL);
	return be;
}

/* The syncs logged for one poll that handed out records [rd, rd + n). */
static void check_syncs(struct toe_fake *f, uint32_t rd, uint32_t n, uint32_t slots)
{
	const struct toe_fake_sync *s;
	uint8_t *want = calloc(4, slots), *got = calloc(4, slots);
	uint32_t ns, i, ch, k, nsync[4] = { 0 }, runs[4] = { 0 }, covered[4] = { 0 };
	s = toe_fake_syncs(f, &ns);
	for (k = rd; k != rd + n; k++)
		want[(k & 3u) * slots + ((k >> 2) & (slots - 1u))] = 1;
	for (i = 0; i < ns; i++) {
		ch = s[i].bo % 4; /* the four buffers were allocated for channels 0..3 in order */
		CHECK_EQ(s[i].dir, TOE_SYNC_FROM_DEVICE);
		CHECK_EQ(s[i].bank, xd.hbm_bank[ch]);
		CHECK_EQ(s[i].off % TOE_RECORD_SIZE, 0);
		CHECK_EQ(s[i].size % TOE_RECORD_SIZE, 0);
		CHECK(s[i].size > 0);
		for (k = 0; k < s[i].size / TOE_RECORD_SIZE; k++) {
			uint32_t slot = (uint32_t)(s[i].off / TOE_RECORD_SIZE) + k;
			CHECK(slot < slots);
			if (slot >= slots)
				break;
			CHECK(!got[ch * slots + slot]); /* no slot twice */
			got[ch * slots + slot] = 1;
		}
		nsync[ch]++;
	}
	CHECK_MEM(got, want, 4 * (size_t)slots);
	for (ch = 0; ch < 4; ch++) {
		for (k = 0; k < slots; k++) {
			covered[ch] += want[ch * slots + k];
			if (want[ch * slots + k] && (k == 0 || !want[ch * slots + k - 1]))
				runs[ch]++;
		}
		/* one sync per contiguous run of slots; a full channel starting mid-ring takes two */
		if (covered[ch] == slots)
			CHECK(nsync[ch] == 1 || nsync[ch] == 2);
		else
			CHECK_EQ(nsync[ch], runs[ch]);
	}
	toe_fake_clear_logs(f);
	free(want);
	free(got);
}

/* Drain with sync checks; returns the records got. */
static int drain_checked(struct toe_fake *f, struct toe_xrt *be, struct tx_recs *out, int batch, uint32_t slots,
			 uint32_t *rd)
{
	union toe_record r[512];
	int n, total = 0, k;
	toe_fake_clear_logs(f);
	while ((n = toe_xrt_poll(be, r, batch)) > 0) {
		check_syncs(f, *rd, (uint32_t)n, slots);
		*rd += (uint32_t)n;
		for (k = 0; k < n; k++)
			tx_rec_add(out, &r[k]);
		total += n;
	}
	CHECK_EQ(n, 0);
	return total;
}

static void compare(const struct tx_recs *hw, const struct tx_recs *sw, const char *what)
{
	uint32_t k, bad = 0;
	CHECK_EQ(hw->n, sw->n);
	for (k = 0; k < hw->n && k < sw->n; k++)
		if (memcmp(hw->r[k].bytes, sw->r[k].bytes, TOE_RECORD_SIZE) != 0 && bad++ < 3)
			fprintf(stderr, "%s: record %u differs: card type %u stream %u, software type %u stream %u\n", what, k,
				hw->r[k].hdr.type, hw->r[k].hdr.stream, sw->r[k].hdr.type, sw->r[k].hdr.stream);
	CHECK_EQ(bad, 0);
}

static void test_equivalence(void)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct tx_frames l = { 0 };
	struct tx_recs sw = { 0 }, hw = { 0 }, hw2 = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be;
	uint32_t i, rd = 0, kinds[5] = { 0 }, gaps[5] = { 0 }, nraw = 0;
	const char *ferrs;

	tx_cfg(&cfg);
	tx_traffic(&l, 200);
	tx_sw_run(&cfg, &l, &sw);
	for (i = 0; i < sw.n; i++) {
		kinds[sw.r[i].hdr.type < 5 ? sw.r[i].hdr.type : 0]++;
		if (sw.r[i].hdr.type == TOE_REC_GAP && sw.r[i].gap.reason < 5)
			gaps[sw.r[i].gap.reason]++;
	}
	/* the traffic exercises what it should: ticks of both kinds, resets, each gap reason */
	CHECK(kinds[TOE_REC_TRADE] > 20 && kinds[TOE_REC_ORDER] > 100);
	CHECK_EQ(kinds[TOE_REC_RESET], 2); /* feed A's SYN, feed B's join (OPEN events only) */
	CHECK_EQ(gaps[TOE_GAP_TIMEOUT], 1);
	CHECK(gaps[TOE_GAP_DECODE] >= 1);

	/* drained after every frame, big batches, every poll's syncs checked */
	be = open_fake(&f, &cfg, 64, 0, &p);
	if (!be)
		goto out;
	for (i = 0; i < l.n; i++) {
		CHECK_EQ(tx_fake_step(f, be, &l, i), 0);
		drain_checked(f, be, &hw, 512, 64, &rd);
	}
	compare(&hw, &sw, "drained every frame");
	CHECK_EQ(toe_fake_errors(f, &ferrs), 0);
	CHECK_EQ(toe_xrt_host_stats(be)->bad_records, 0);
	CHECK(toe_xrt_host_stats(be)->wraps > 0); /* 742 records through 4 x 64 slots */
	toe_xrt_close(be);
	toe_fake_free(f);

	/* small batches, drained every 5 frames */
	rd = 0;
	be = open_fake(&f, &cfg, 256, 0, &p);
	if (!be)
		goto out;
	for (i = 0; i < l.n; i++) {
		CHECK_EQ(tx_fake_step(f, be, &l, i), 0);
		if (i % 5 == 4 || i + 1 == l.n)
			drain_checked(f, be, &hw2, 7, 256, &rd);
	}
	compare(&hw2, &sw, "drained every 5 frames, 7 at a time");
	toe_xrt_close(be);
	toe_fake_free(f);

	/* independent of the software path: the raw datagrams carry the generator's ticks */
	{
		struct sse_gen *gen = calloc(1, sizeof *gen);
		struct sse_gen_cfg gc;
		union toe_record t;
		sse_gen_default(&gc);
		gc.seed = 24;
		CHECK_EQ(sse_gen_init(gen, &gc), 0);
		for (i = 0; i < hw.n; i++) {
			const union toe_record *r = &hw.r[i];
			if (r->hdr.stream != RAW_STREAM || r->hdr.type == TOE_REC_RESET)
				continue;
			sse_gen_next(gen, &t);
			CHECK_EQ(r->hdr.type, t.hdr.type);
			CHECK_EQ(r->hdr.present, t.hdr.present);
			CHECK_MEM(r->bytes + sizeof r->hdr, t.bytes + sizeof t.hdr, TOE_RECORD_SIZE - sizeof r->hdr);
			nraw++;
		}
		CHECK_EQ(nraw, 1 + 2 + 3 + 1 + 2 + 3 + 1 + 2 + 3 + 1);
		free(gen);
	}
out:
	tx_frames_free(&l);
	free(sw.r);
	free(hw.r);
	free(hw2.r);
}

/* 4 slots per channel: a ring of 16. 10 records, then 12 more: every
 * channel's new range wraps. fault: TOE_FAKE_FAULT_*. */
static void test_wrap(uint32_t faults)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct tx_frames l = { 0 };
	struct tx_recs sw = { 0 }, hw = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be;
	union toe_record r[64];
	uint32_t i, k;
	int n;

	tx_cfg(&cfg);
	one_record_frames(&l, 22, TX_T0);
	tx_sw_run(&cfg, &l, &sw);
	CHECK_EQ(sw.n, 22);
	be = open_fake(&f, &cfg, 4, faults, &p);
	if (!be)
		goto out;
	for (i = 0; i < 10; i++)
		CHECK_EQ(tx_fake_step(f, be, &l, i), 0);
	toe_fake_clear_logs(f);
	n = toe_xrt_poll(be, r, 64);
	CHECK_EQ(n, 10);
	if (faults == 0)
		check_syncs(f, 0, 10, 4);
	for (k = 0; n > 0 && k < (uint32_t)n; k++)
		tx_rec_add(&hw, &r[k]);
	if (faults & TOE_FAKE_FAULT_SHORT_SYNC) {
		/* the last record of each channel (k = 6, 7, 8, 9) was never synced: the host's poison */
		uint8_t poison[TOE_RECORD_SIZE];
		memset(poison, 0xee, sizeof poison);
		for (k = 0; k < 10; k++) {
			if (k >= 6)
				CHECK_MEM(hw.r[k].bytes, poison, TOE_RECORD_SIZE);
			else
				CHECK_MEM(hw.r[k].bytes, sw.r[k].bytes, TOE_RECORD_SIZE);
		}
		CHECK_EQ(toe_xrt_host_stats(be)->bad_records, 4);
		goto done;
	}
	for (; i < 22; i++)
		CHECK_EQ(tx_fake_step(f, be, &l, i), 0);
	toe_fake_clear_logs(f);
	n = toe_xrt_poll(be, r, 64);
	CHECK_EQ(n, 12);
	for (k = 0; n > 0 && k < (uint32_t)n; k++)
		tx_rec_add(&hw, &r[k]);
	CHECK_EQ(toe_xrt_host_stats(be)->wraps, 4);
	if (faults == 0) {
		/* records 10..21: channel c's slots run 2,3,0 (c = 2, 3) or 3,0,1 (c = 0, 1): two syncs each */
		uint32_t ns;
		toe_fake_syncs(f, &ns);
		CHECK_EQ(ns, 8);
		check_syncs(f, 10, 12, 4);
		compare(&hw, &sw, "wrap");
	} else {
		/* records 16..21 sit in the wrapped part (slot (k / 4) % 4 below the range's first slot): without
		 * its sync the host copy still holds the previous lap there, record k - 16 */
		for (k = 10; k < 22; k++) {
			if (k >= 16) {
				CHECK_MEM(hw.r[k].bytes, sw.r[k - 16].bytes, TOE_RECORD_SIZE);
				CHECK(memcmp(hw.r[k].bytes, sw.r[k].bytes, TOE_RECORD_SIZE) != 0);
			} else {
				CHECK_MEM(hw.r[k].bytes, sw.r[k].bytes, TOE_RECORD_SIZE);
			}
		}
		CHECK_EQ(toe_xrt_host_stats(be)->bad_records, 0); /* stale records look valid: only the data tells */
	}
done:
	toe_xrt_close(be);
	toe_fake_free(f);
out:
	tx_frames_free(&l);
	free(sw.r);
	free(hw.r);
}

static uint64_t hbm_ctr(struct toe_xrt *be, const char *name)
{
	struct toe_xrt_counter c[TOE_XRT_MAX_COUNTERS];
	int n = toe_xrt_counters(be, c, TOE_XRT_MAX_COUNTERS), i;
	for (i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return c[i].value;
	fprintf(stderr, "no counter %s\n", name);
	CHECK(0);
	return 0;
}

static void test_full(void)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct tx_frames l = { 0 };
	struct tx_recs sw = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be;
	union toe_record r[64];
	uint32_t i;
	int n;

	tx_cfg(&cfg);
	one_record_frames(&l, 22, TX_T0);
	tx_sw_run(&cfg, &l, &sw);
	be = open_fake(&f, &cfg, 4, 0, &p);
	if (!be)
		goto out;
	/* 20 records into a ring of 16: 16 written, 4 dropped */
	for (i = 0; i < 20; i++)
		CHECK_EQ(tx_fake_step(f, be, &l, i), 0);
	CHECK_EQ(hbm_ctr(be, "hbm_writer_top.written"), 16);
	CHECK_EQ(hbm_ctr(be, "hbm_writer_top.dropped"), 4);
	/* one record taken: one free slot, but the gap and the next record need two: record 20 dropped too */
	n = toe_xrt_poll(be, r, 1);
	CHECK_EQ(n, 1);
	CHECK_MEM(r[0].bytes, sw.r[0].bytes, TOE_RECORD_SIZE);
	CHECK_EQ(tx_fake_step(f, be, &l, 20), 0);
	CHECK_EQ(hbm_ctr(be, "hbm_writer_top.dropped"), 5);
	CHECK_EQ(hbm_ctr(be, "hbm_writer_top.overflow_gaps"), 0);
	/* two free: the gap goes first, then record 21 */
	n = toe_xrt_poll(be, r, 1);
	CHECK_EQ(n, 1);
	CHECK_MEM(r[0].bytes, sw.r[1].bytes, TOE_RECORD_SIZE);
	CHECK_EQ(tx_fake_step(f, be, &l, 21), 0);
	n = toe_xrt_poll(be, r, 64);
	CHECK_EQ(n, 14 + 2);
	for (i = 0; i < 14 && n == 16; i++)
		CHECK_MEM(r[i].bytes, sw.r[2 + i].bytes, TOE_RECORD_SIZE);
	if (n == 16) {
		const struct toe_gap *g = &r[14].gap;
		CHECK_EQ(g->hdr.type, TOE_REC_GAP);
		CHECK_EQ(g->hdr.stream, 0xffff);
		CHECK_EQ(g->reason, TOE_GAP_OVERFLOW);
		CHECK_EQ(g->records, 5);
		CHECK_EQ(g->hdr.rx_ns, l.ts[20]); /* the last dropped record's time */
		CHECK_EQ(g->offset, 0);
		CHECK_EQ(g->length, 0);
		CHECK_MEM(r[15].bytes, sw.r[21].bytes, TOE_RECORD_SIZE);
	}
	CHECK_EQ(hbm_ctr(be, "hbm_writer_top.records_in"), 22);
	CHECK_EQ(hbm_ctr(be, "hbm_writer_top.written"), 18);
	CHECK_EQ(hbm_ctr(be, "hbm_writer_top.overflow_gaps"), 1);
	CHECK_EQ(toe_xrt_poll(be, r, 64), 0);
	toe_xrt_close(be);
	toe_fake_free(f);
out:
	tx_frames_free(&l);
	free(sw.r);
}

/* The writer restarted behind the host's back: its index is far behind ours. */
static void test_bad_index(void)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct tx_frames l = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be;
	union toe_record r[64];
	void *ip = NULL;
	char err[256];
	uint32_t i;

	tx_cfg(&cfg);
	one_record_frames(&l, 5, TX_T0);
	be = open_fake(&f, &cfg, 4, 0, &p);
	if (!be)
		goto out;
	for (i = 0; i < 5; i++)
		CHECK_EQ(tx_fake_step(f, be, &l, i), 0);
	CHECK_EQ(toe_xrt_poll(be, r, 64), 5);
	CHECK_EQ(toe_devops_fake.ip_open(f, TOE_IP_HBM, &ip, err, sizeof err), 0);
	if (ip) {
		CHECK_EQ(toe_devops_fake.reg_write(ip, TOE_CFG(TOE_CF_APPLY), 1000), 0);
		toe_devops_fake.ip_close(ip);
	}
	CHECK_EQ(toe_xrt_poll(be, r, 64), -1);
	CHECK(strstr(toe_xrt_error(be), "write index 0 is 4294967291 records past the read index 5") != NULL);
	toe_xrt_close(be);
	toe_fake_free(f);
out:
	tx_frames_free(&l);
}

/* toe_fake_fail_when_drained (toed_test --test-fake-card-fail): the registers
 * keep working while a frame is pending or a record unread, then fail with
 * EIO, and the backend says which access failed and why. */
static void test_fail_when_drained(void)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct tx_frames l = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be;
	union toe_record r[64];
	uint32_t i;

	tx_cfg(&cfg);
	one_record_frames(&l, 6, TX_T0);
	be = open_fake(&f, &cfg, 4, 0, &p);
	if (!be)
		goto out;
	for (i = 0; i < 5; i++)
		CHECK_EQ(tx_fake_step(f, be, &l, i), 0);
	toe_fake_fail_when_drained(f);
	CHECK_EQ(toe_fake_frame(f, l.buf[5], l.len[5], l.ts[5]), 0); /* pending */
	CHECK_EQ(toe_xrt_poll(be, r, 64), 5);
	CHECK_EQ(toe_xrt_poll(be, r, 64), 0); /* drained, but a frame is still pending */
	CHECK(!toe_fake_failing(f));
	CHECK_EQ(toe_fake_run(f, 1), 1);
	CHECK_EQ(toe_xrt_poll(be, r, 64), 1); /* its record is unread until this poll */
	CHECK(!toe_fake_failing(f));
	CHECK_EQ(toe_xrt_poll(be, r, 64), -1);
	CHECK(toe_fake_failing(f));
	CHECK(strstr(toe_xrt_error(be), "reading register") != NULL);
	CHECK(strstr(toe_xrt_error(be), "of hbm_writer_top failed: Input/output error") != NULL);
	CHECK_EQ(toe_xrt_set_time(be, TX_T0), -1);
	CHECK(strstr(toe_xrt_error(be), "writing register") != NULL);
	toe_xrt_close(be);
	CHECK_EQ(toe_fake_live_bos(f), 0);
	toe_fake_free(f);
out:
	tx_frames_free(&l);
}

int main(void)
{
	if (tx_load_prog() != 0)
		return test_skip("xrt_ring", "cannot compile " TX_TEMPLATES);
	tx_xclbin_default(&xd);
	if (tx_xclbin_file(&xd, xclbin) != 0)
		return test_skip("xrt_ring", "cannot write a temporary xclbin in /tmp");
	test_equivalence();
	test_wrap(0);
	test_wrap(TOE_FAKE_FAULT_LOSE_WRAP_SYNC);
	test_wrap(TOE_FAKE_FAULT_SHORT_SYNC);
	test_full();
	test_bad_index();
	test_fail_when_drained();
	unlink(xclbin);
	return test_done("xrt_ring");
}
