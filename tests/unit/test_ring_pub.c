/* test_ring_pub.c - the publisher and the SPSC ring in one process: fan-out,
 * filters, sequence numbers and drops, wrap-around, replay, sealing, untrusted
 * consumer pages, heartbeat, reclaim, huge pages and their fallback. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dp/dp_pub.h"
#include "dp/dp_shm.h"
#include "ring_view.h"
#include "test.h"
#include "toe/shm.h"

/* Read everything available; returns count, adds seq jumps to *skipped. */
static uint32_t view_drain(struct ring_view *v, union toe_record *out, uint32_t max, uint64_t *skipped)
{
	uint32_t n = toe_ring_cons_avail(&v->r), k = 0;
	while (n && k < max) {
		uint32_t take = n < max - k ? n : max - k;
		for (uint32_t i = 0; i < take; i++) {
			const union toe_record *r = toe_ring_cons_at(&v->r, i);
			if (r->hdr.seq != v->next_seq)
				*skipped += r->hdr.seq - v->next_seq;
			v->next_seq = r->hdr.seq + 1;
			out[k++] = *r;
		}
		toe_ring_cons_release(&v->r, take);
		n = toe_ring_cons_avail(&v->r);
	}
	return k;
}

static void mk_trade(union toe_record *r, uint64_t i, int32_t ch, const char *sec)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = TOE_REC_TRADE;
	r->hdr.msg_seq = i;
	r->trade.trade_channel = ch;
	r->trade.trade_index = (int32_t)i;
	snprintf(r->trade.security_id, sizeof(r->trade.security_id), "%s", sec);
}

static void mk_order(union toe_record *r, uint64_t i, int32_t ch, const char *sec)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = TOE_REC_ORDER;
	r->hdr.msg_seq = i;
	r->order.order_channel = ch;
	r->order.order_index = (int32_t)i;
	snprintf(r->order.security_id, sizeof(r->order.security_id), "%s", sec);
}

static void test_filter(void)
{
	struct pub_filter f = {0};
	CHECK_EQ(pub_filter_normalise(&f), 0);
	CHECK_EQ(f.types, TOE_TYPES_ALL);
	f.types = 1u << 9;
	CHECK_EQ(pub_filter_normalise(&f), -EINVAL);
	memset(&f, 0, sizeof(f));
	f.types = TOE_TYPE_BIT(TOE_REC_TRADE) | TOE_TYPE_BIT(TOE_REC_GAP);
	f.nchannels = 4;
	f.channels[0] = 7, f.channels[1] = 2, f.channels[2] = 7, f.channels[3] = -1;
	f.nsecurities = 3;
	strcpy(f.securities[0], "600519");
	strcpy(f.securities[1], "600000");
	strcpy(f.securities[2], "600519");
	CHECK_EQ(pub_filter_normalise(&f), 0);
	CHECK_EQ(f.nchannels, 3); /* duplicates removed */
	CHECK_EQ(f.channels[0], -1);
	CHECK_EQ(f.channels[2], 7);
	CHECK_EQ(f.nsecurities, 2);
	union toe_record r;
	mk_trade(&r, 1, 2, "600000");
	CHECK(pub_filter_match(&f, &r, PUB_SRC_NONE));
	mk_trade(&r, 1, 3, "600000");
	CHECK(!pub_filter_match(&f, &r, PUB_SRC_NONE)); /* channel */
	mk_trade(&r, 1, 7, "600001");
	CHECK(!pub_filter_match(&f, &r, PUB_SRC_NONE)); /* security */
	mk_trade(&r, 1, 7, "600519");
	CHECK(pub_filter_match(&f, &r, PUB_SRC_NONE));
	mk_order(&r, 1, 2, "600000");
	CHECK(!pub_filter_match(&f, &r, PUB_SRC_NONE)); /* type */
	memset(&r, 0, sizeof(r));
	r.hdr.type = TOE_REC_GAP;
	CHECK(pub_filter_match(&f, &r, PUB_SRC_NONE)); /* events pass the channel/security lists */
	r.hdr.type = 200;
	CHECK(!pub_filter_match(&f, &r, PUB_SRC_NONE));
	memset(&f, 0, sizeof(f));
	f.nsecurities = 1; /* an empty id is refused */
	CHECK_EQ(pub_filter_normalise(&f), -EINVAL);
	/* a 16-character id (no NUL) is valid and matches exactly */
	memset(&f, 0, sizeof(f));
	f.nsecurities = 1;
	memcpy(f.securities[0], "ABCDEFGHIJKLMNOP", 16);
	CHECK_EQ(pub_filter_normalise(&f), 0);
	mk_trade(&r, 1, 1, "");
	memcpy(r.trade.security_id, "ABCDEFGHIJKLMNOP", 16);
	CHECK(pub_filter_match(&f, &r, PUB_SRC_NONE));
	/* a stream name: only its sources pass (events too), PUB_SRC_ALL always, unknown never */
	memset(&f, 0, sizeof(f));
	f.has_stream = 1;
	f.srcs[0] = 1ull << 3;
	f.srcs[1] = 1ull << (70 - 64);
	CHECK_EQ(pub_filter_normalise(&f), 0);
	mk_trade(&r, 1, 2, "600000");
	CHECK(pub_filter_match(&f, &r, 3));
	CHECK(pub_filter_match(&f, &r, 70));
	CHECK(!pub_filter_match(&f, &r, 4));
	CHECK(!pub_filter_match(&f, &r, 6)); /* bit 70 - 64 of word 0 is not source 6 */
	CHECK(!pub_filter_match(&f, &r, PUB_SRC_NONE));
	CHECK(pub_filter_match(&f, &r, PUB_SRC_ALL));
	memset(&r, 0, sizeof(r));
	r.hdr.type = TOE_REC_GAP;
	CHECK(!pub_filter_match(&f, &r, 4));
	CHECK(pub_filter_match(&f, &r, 3));
	f.has_stream = 0; /* no name: every source */
	CHECK(pub_filter_match(&f, &r, 4));
	CHECK(pub_filter_match(&f, &r, PUB_SRC_NONE));
}

static void test_fanout_and_drops(void)
{
	struct pub_config cfg = {.no_hugepages = 1};
	int err;
	struct pub *p = pub_create(&cfg, &err);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(pub_epoch(p) != 0);

	/* A: trades on channel 2; B: everything, small ring that nobody reads; C: security 600001 */
	struct pub_filter fa = {.types = TOE_TYPE_BIT(TOE_REC_TRADE), .nchannels = 1, .channels = {2}};
	struct pub_filter fb = {0};
	struct pub_filter fc = {.nsecurities = 1};
	strcpy(fc.securities[0], "600001");
	struct pub_client *ca, *cb, *cc;
	struct pub_client_info ia, ib, ic;
	CHECK_EQ(pub_client_add(p, &fa, 4096, TOE_START_NOW, 0, &ca, &ia), 0);
	CHECK_EQ(pub_client_add(p, &fb, 64, TOE_START_NOW, 0, &cb, &ib), 0);
	CHECK_EQ(pub_client_add(p, &fc, 0, TOE_START_NOW, 0, &cc, &ic), 0);
	CHECK_EQ(ic.capacity, TOE_SHM_DEFAULT_CAPACITY);
	CHECK(ia.client_id != ib.client_id && ib.client_id != ic.client_id);
	CHECK_EQ(ia.epoch, pub_epoch(p));
	struct ring_view va, vb, vc;
	CHECK_EQ(ring_view_open(&va, ia.data_fd, ia.data_size, ia.cons_fd), 0);
	CHECK_EQ(ring_view_open(&vb, ib.data_fd, ib.data_size, ib.cons_fd), 0);
	CHECK_EQ(ring_view_open(&vc, ic.data_fd, ic.data_size, ic.cons_fd), 0);
	const struct toe_shm_region *reg = va.data;
	CHECK_EQ(reg->magic, TOE_SHM_MAGIC);
	CHECK_EQ(reg->abi_version, TOE_ABI_VERSION);
	CHECK_EQ(reg->capacity, 4096);
	CHECK_EQ(reg->epoch, pub_epoch(p));
	CHECK_EQ(reg->state, TOE_SHM_STATE_LIVE);
	CHECK_EQ(reg->ring_offset % TOE_RECORD_SIZE, 0);
	CHECK((uintptr_t)va.r.recs % TOE_CACHE_LINE == 0);

	/* 1000 records: order when i%3 == 0 else trade, channel 1+i%4, security 60000(i%3) */
	enum { N = 1000 };
	static union toe_record recs[N];
	uint32_t want_a = 0, want_c = 0;
	for (uint32_t i = 0; i < N; i++) {
		char sec[8];
		snprintf(sec, sizeof(sec), "60000%u", i % 3);
		if (i % 3 == 0)
			mk_order(&recs[i], i, (int32_t)(1 + i % 4), sec);
		else
			mk_trade(&recs[i], i, (int32_t)(1 + i % 4), sec);
		want_a += (i % 3 != 0 && 1 + i % 4 == 2);
		want_c += (i % 3 == 1);
	}
	unsigned delivered = 0;
	for (uint32_t i = 0; i < N; i += 100)
		delivered += pub_publish(p, recs + i, 100);
	/* B holds only its capacity */
	CHECK_EQ(delivered, want_a + 64 + want_c);

	static union toe_record out[N];
	uint64_t skipped = 0;
	uint32_t n = view_drain(&va, out, N, &skipped);
	CHECK_EQ(n, want_a);
	CHECK_EQ(skipped, 0);
	int ok = 1;
	for (uint32_t k = 0; k < n; k++)
		ok &= out[k].hdr.type == TOE_REC_TRADE && out[k].trade.trade_channel == 2 && out[k].hdr.seq == k + 1;
	CHECK(ok);
	n = view_drain(&vc, out, N, &skipped);
	CHECK_EQ(n, want_c);
	ok = 1;
	for (uint32_t k = 0; k < n; k++)
		ok &= out[k].hdr.msg_seq % 3 == 1;
	CHECK(ok);

	/* B: first 64 delivered, 936 dropped and counted; seq shows the hole at the next record */
	const struct toe_shm_region *rb = vb.data;
	CHECK_EQ(rb->offered, N);
	CHECK_EQ(rb->dropped, N - 64);
	n = view_drain(&vb, out, N, &skipped);
	CHECK_EQ(n, 64);
	CHECK_EQ(out[0].hdr.seq, 1);
	CHECK_EQ(out[63].hdr.seq, 64);
	CHECK_EQ(out[63].hdr.msg_seq, 63);
	CHECK_EQ(skipped, 0);
	pub_publish(p, recs, 1);
	n = view_drain(&vb, out, N, &skipped);
	CHECK_EQ(n, 1);
	CHECK_EQ(out[0].hdr.seq, N + 1);
	CHECK_EQ(skipped, N - 64);

	struct pub_client_stats cs;
	pub_client_get_stats(cb, &cs);
	CHECK_EQ(cs.offered, N + 1);
	CHECK_EQ(cs.dropped, N - 64);
	CHECK_EQ(cs.backlog, 0);
	struct pub_stats ps;
	pub_get_stats(p, &ps);
	CHECK_EQ(ps.published, N + 1);
	CHECK_EQ(ps.dropped, N - 64);
	CHECK_EQ(ps.clients, 3);

	/* wrap-around: B's 64-slot ring carries 10000 records read in odd-sized bites */
	uint64_t base_seq = vb.next_seq;
	ok = 1;
	uint32_t got = 0;
	for (uint32_t i = 0; i < 10000; i += 37) {
		uint32_t k = 10000 - i < 37 ? 10000 - i : 37;
		pub_publish(p, recs + (i % 900), k);
		uint64_t sk = 0;
		uint32_t m = view_drain(&vb, out, N, &sk);
		for (uint32_t j = 0; j < m; j++)
			ok &= out[j].hdr.seq == base_seq + got + j && out[j].hdr.msg_seq == (i % 900) + j;
		ok &= sk == 0 && m == k;
		got += m;
	}
	CHECK(ok);
	CHECK_EQ(got, 10000);

	/* an absurd consumer index only hurts its owner: D's ring looks full, A is unaffected */
	while (view_drain(&va, out, N, &skipped)) /* catch up after the wrap test */
		;
	while (view_drain(&vc, out, N, &skipped))
		;
	struct pub_client *cd;
	struct pub_client_info id;
	struct ring_view vd;
	CHECK_EQ(pub_client_add(p, &fb, 64, TOE_START_NOW, 0, &cd, &id), 0);
	CHECK_EQ(ring_view_open(&vd, id.data_fd, id.data_size, id.cons_fd), 0);
	vd.cons->tail = 5000000; /* ahead of head */
	pub_publish(p, recs, 100);
	pub_client_get_stats(cd, &cs);
	CHECK_EQ(cs.offered, 100);
	CHECK_EQ(cs.dropped, 100 - 64); /* the first 64 fit before the producer looked at the tail */
	vd.cons->tail = (uint64_t)-1; /* far behind head */
	pub_publish(p, recs, 10);
	pub_client_get_stats(cd, &cs);
	CHECK_EQ(cs.dropped, 100 - 64 + 10);
	vd.cons->tail = 64; /* sane again: it read all 64 */
	pub_publish(p, recs, 10);
	pub_client_get_stats(cd, &cs);
	CHECK_EQ(cs.dropped, 100 - 64 + 10);
	CHECK_EQ(cs.backlog, 10);
	n = view_drain(&va, out, N, &skipped);
	CHECK_EQ(n, 17 + 2 + 2); /* channel-2 trades (i%4==1, i%3!=0): 17 in 0..99, 2 in 0..9 (twice) */
	pub_client_remove(p, cd);
	ring_view_close(&vd);
	close(id.data_fd);
	close(id.cons_fd);

	/* reclaim: the client's own mapping stays valid and says CLOSED */
	pub_client_remove(p, ca);
	CHECK_EQ(((const struct toe_shm_region *)va.data)->state, TOE_SHM_STATE_CLOSED);
	pub_get_stats(p, &ps);
	CHECK_EQ(ps.clients, 2);
	CHECK_EQ(ps.rings_reclaimed, 2); /* D and A */
	pub_publish(p, recs, 100); /* A is gone: nothing breaks */
	ring_view_close(&va);
	ring_view_close(&vb);
	ring_view_close(&vc);
	pub_client_close_fds(cb);
	pub_client_close_fds(cc);
	close(ia.data_fd);
	close(ia.cons_fd);
	pub_destroy(p);
}

static void test_sealing(void)
{
	struct pub_config cfg = {.no_hugepages = 1};
	struct pub *p = pub_create(&cfg, NULL);
	struct pub_filter f = {0};
	struct pub_client *c;
	struct pub_client_info in;
	CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c, &in), 0);
	void *w = mmap(NULL, in.data_size, PROT_READ | PROT_WRITE, MAP_SHARED, in.data_fd, 0);
	CHECK(w == MAP_FAILED);
	CHECK_EQ(errno, EPERM);
	void *ro = mmap(NULL, in.data_size, PROT_READ, MAP_SHARED, in.data_fd, 0);
	CHECK(ro != MAP_FAILED);
	CHECK_EQ(mprotect(ro, in.data_size, PROT_READ | PROT_WRITE), -1);
	char b = 1;
	CHECK_EQ(pwrite(in.data_fd, &b, 1, 0), -1);
	CHECK_EQ(ftruncate(in.data_fd, 0), -1);
	CHECK_EQ(ftruncate(in.cons_fd, 0), -1); /* the consumer page cannot shrink under the daemon */
	CHECK_EQ(fcntl(in.data_fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
	/* a private copy-on-write mapping changes nothing for anyone else */
	char *pv = mmap(NULL, in.data_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, in.data_fd, 0);
	CHECK(pv != MAP_FAILED);
	if (pv != MAP_FAILED) {
		memset(pv, 0xff, 64);
		CHECK_EQ(((const struct toe_shm_region *)ro)->magic, TOE_SHM_MAGIC);
		munmap(pv, in.data_size);
	}
	if (ro != MAP_FAILED)
		munmap(ro, in.data_size);
	pub_destroy(p);
}

static void test_replay(void)
{
	struct pub_config cfg = {.no_hugepages = 1, .history = 100}; /* rounds up to 128 */
	struct pub *p = pub_create(&cfg, NULL);
	CHECK_EQ(pub_history(p), 128);
	union toe_record r[300];
	for (uint32_t i = 0; i < 300; i++)
		mk_trade(&r[i], i, (int32_t)(i % 2), "600000");
	pub_publish(p, r, 300); /* history keeps 172..299 */

	struct pub_filter f = {.nchannels = 1, .channels = {1}};
	struct pub_client *c1, *c2, *c3;
	struct pub_client_info i1, i2, i3;
	CHECK_EQ(pub_client_add(p, &f, 64, TOE_START_LAST, 10, &c1, &i1), 0);
	CHECK_EQ(pub_client_add(p, &f, 64, TOE_START_MSG_SEQ, 290, &c2, &i2), 0);
	CHECK_EQ(pub_client_add(p, &f, 64, TOE_START_LAST, 1000, &c3, &i3), 0);
	pub_tick(p, shm_now_ns()); /* replays happen on the producer thread */
	mk_trade(&r[0], 300, 1, "600000");
	mk_trade(&r[1], 301, 1, "600000");
	pub_publish(p, r, 2);

	struct ring_view v;
	union toe_record out[200];
	uint64_t sk = 0;
	CHECK_EQ(ring_view_open(&v, i1.data_fd, i1.data_size, i1.cons_fd), 0);
	uint32_t n = view_drain(&v, out, 200, &sk);
	CHECK_EQ(n, 12); /* odd msg_seq 281..299, then 300, 301 */
	CHECK_EQ(out[0].hdr.msg_seq, 281);
	CHECK_EQ(out[9].hdr.msg_seq, 299);
	CHECK_EQ(out[10].hdr.msg_seq, 300);
	CHECK_EQ(out[0].hdr.seq, 1);
	CHECK_EQ(out[11].hdr.seq, 12);
	ring_view_close(&v);
	CHECK_EQ(ring_view_open(&v, i2.data_fd, i2.data_size, i2.cons_fd), 0);
	n = view_drain(&v, out, 200, &sk);
	CHECK_EQ(n, 7); /* 291..299 odd = 5, then 300, 301 */
	CHECK_EQ(out[0].hdr.msg_seq, 291);
	ring_view_close(&v);
	CHECK_EQ(ring_view_open(&v, i3.data_fd, i3.data_size, i3.cons_fd), 0);
	n = view_drain(&v, out, 200, &sk);
	/* asked for 1000, ring holds 64: the most recent 64 history matches replayed, then live records dropped */
	CHECK_EQ(n, 64);
	CHECK_EQ(out[0].hdr.msg_seq, 299 - 2 * 63);
	CHECK_EQ(sk, 0);
	CHECK_EQ(((const struct toe_shm_region *)v.data)->dropped, 2);
	ring_view_close(&v);
	pub_destroy(p);
	for (int k = 0; k < 3; k++) {
		const struct pub_client_info *ii = k == 0 ? &i1 : k == 1 ? &i2 : &i3;
		close(ii->data_fd);
		close(ii->cons_fd);
	}
}

static void test_heartbeat_and_wake(void)
{
	struct pub_config cfg = {.no_hugepages = 1, .heartbeat_period_ns = 1000};
	struct pub *p = pub_create(&cfg, NULL);
	struct pub_filter f = {0};
	struct pub_client *c;
	struct pub_client_info in;
	CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c, &in), 0);
	struct ring_view v;
	CHECK_EQ(ring_view_open(&v, in.data_fd, in.data_size, in.cons_fd), 0);
	const struct toe_shm_region *reg = v.data;
	CHECK_EQ(reg->heartbeat_period_ns, 1000);
	pub_tick(p, 123456789);
	CHECK_EQ(reg->heartbeat_ns, 123456789);
	pub_tick(p, 123456789 + 10); /* within the period: unchanged */
	CHECK_EQ(reg->heartbeat_ns, 123456789);
	pub_tick(p, 123456789 + 5000);
	CHECK_EQ(reg->heartbeat_ns, 123456789 + 5000);

	/* an armed eventfd is written once, and the wait word is cleared */
	uint32_t word;
	CHECK_EQ(toe_ring_cons_prepare_wait(&v.r, TOE_SHM_WAIT_EVENTFD, &word), 0);
	CHECK_EQ(word, TOE_SHM_WAIT_EVENTFD);
	union toe_record r;
	mk_trade(&r, 1, 1, "600000");
	pub_publish(p, &r, 1);
	uint64_t cnt = 0;
	CHECK_EQ(read(in.event_fd, &cnt, sizeof(cnt)), 8);
	CHECK_EQ(cnt, 1);
	CHECK_EQ(v.cons->wait, 0);
	pub_publish(p, &r, 1); /* not armed: no write */
	CHECK_EQ(read(in.event_fd, &cnt, sizeof(cnt)), -1);
	struct pub_stats ps;
	pub_get_stats(p, &ps);
	CHECK_EQ(ps.wakeups, 1);
	ring_view_close(&v);
	pub_client_close_fds(c);
	pub_destroy(p);
}

static unsigned long meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long v = 0;
	size_t kl = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':')
			v = strtoul(line + kl + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static void test_hugepages(void)
{
	/* fallback: with no free huge page the ring still works, counted, never failing */
	if (meminfo("HugePages_Free") == 0) {
		uint64_t before = shm_hugepage_fallbacks();
		struct shm_region r;
		CHECK_EQ(shm_region_create(&r, "t", 4096, SHM_TRY_HUGETLB), 0);
		CHECK_EQ(r.hugetlb, 0);
		CHECK_EQ(shm_hugepage_fallbacks(), before + 1);
		shm_region_destroy(&r);
	}
	/* reservation, as root: raise nr_hugepages by 2, use them, put it back */
	unsigned long was = shm_hugepages_reserved(), total = 0;
	if (geteuid() != 0 || access("/proc/sys/vm/nr_hugepages", W_OK) != 0) {
		CHECK(shm_reserve_hugepages(was + 2, &total) < 0); /* fails soft */
		printf("test_ring_pub: not root: huge-page reservation skipped\n");
		return;
	}
	int rc = shm_reserve_hugepages(was + 2, &total);
	if (rc < 0 || meminfo("HugePages_Free") < 2) {
		printf("test_ring_pub: could not reserve 2 huge pages (%d): hugetlb path skipped\n", rc);
	} else {
		CHECK_EQ(total, was + 2);
		struct pub_config cfg = {0};
		struct pub *p = pub_create(&cfg, NULL);
		struct pub_filter f = {0};
		struct pub_client *c;
		struct pub_client_info in;
		CHECK_EQ(pub_client_add(p, &f, TOE_SHM_DEFAULT_CAPACITY, 0, 0, &c, &in), 0);
		CHECK(in.flags & TOE_SHM_F_HUGETLB);
		CHECK_EQ(in.data_size, TOE_SHM_HUGE_PAGE); /* 512 B + 1 MB fit in one 2 MB page */
		printf("test_ring_pub: hugetlb ring: %llu bytes, flags %u\n", (unsigned long long)in.data_size, in.flags);
		/* sealed like any other ring */
		void *w = mmap(NULL, in.data_size, PROT_READ | PROT_WRITE, MAP_SHARED, in.data_fd, 0);
		CHECK(w == MAP_FAILED);
		struct ring_view v;
		CHECK_EQ(ring_view_open(&v, in.data_fd, in.data_size, in.cons_fd), 0);
		union toe_record r;
		mk_trade(&r, 5, 1, "600000");
		pub_publish(p, &r, 1);
		uint64_t sk = 0;
		union toe_record o;
		CHECK_EQ(view_drain(&v, &o, 1, &sk), 1);
		CHECK_EQ(o.hdr.msg_seq, 5);
		ring_view_close(&v);
		pub_client_close_fds(c);
		pub_destroy(p);
	}
	/* never lowers: asking for fewer is a no-op */
	CHECK_EQ(shm_reserve_hugepages(0, &total), 0);
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");
	if (f) {
		fprintf(f, "%lu\n", was);
		fclose(f);
	}
	CHECK_EQ(shm_hugepages_reserved(), was);
}

static void test_limits(void)
{
	struct pub_config cfg = {.no_hugepages = 1, .max_clients = 2, .max_capacity = 1024};
	struct pub *p = pub_create(&cfg, NULL);
	struct pub_filter f = {0};
	struct pub_client *c[3];
	struct pub_client_info in;
	CHECK_EQ(pub_client_add(p, &f, 100, 0, 0, &c[0], &in), -EINVAL);  /* not a power of two */
	CHECK_EQ(pub_client_add(p, &f, 32, 0, 0, &c[0], &in), -EINVAL);   /* below the minimum */
	CHECK_EQ(pub_client_add(p, &f, 2048, 0, 0, &c[0], &in), -EINVAL); /* above max_capacity */
	CHECK_EQ(pub_client_add(p, &f, 64, 7, 0, &c[0], &in), -EINVAL);   /* unknown start */
	CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c[0], &in), 0);
	pub_client_close_fds(c[0]);
	CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c[1], &in), 0);
	pub_client_close_fds(c[1]);
	CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c[2], &in), -EUSERS);
	pub_client_remove(p, c[0]);
	CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c[2], &in), 0); /* the slot is reused */
	pub_client_close_fds(c[2]);
	pub_destroy(p);
	struct pub_config bad = {.default_capacity = 100};
	int err = 0;
	CHECK(pub_create(&bad, &err) == NULL);
	CHECK_EQ(err, -EINVAL);
}

/* Filters by type alone take pub_publish_src's loop without pub_filter_match:
 * each ring gets exactly the records of its types, in order, with and without
 * sources given; a record of a type beyond the mask's 32 bits reaches nobody. */
static void test_type_only(void)
{
	struct pub_config cfg = {.no_hugepages = 1};
	struct pub *p = pub_create(&cfg, NULL);
	CHECK(p != NULL);
	if (!p)
		return;
	struct pub_filter fo = {.types = TOE_TYPE_BIT(TOE_REC_ORDER) | TOE_TYPE_BIT(TOE_REC_GAP)};
	struct pub_filter ft = {.types = TOE_TYPE_BIT(TOE_REC_TRADE)};
	struct pub_filter fall = {0};
	struct pub_client *co, *ct, *ca;
	struct pub_client_info io, it, ia;
	CHECK_EQ(pub_client_add(p, &fo, 1024, TOE_START_NOW, 0, &co, &io), 0);
	CHECK_EQ(pub_client_add(p, &ft, 1024, TOE_START_NOW, 0, &ct, &it), 0);
	CHECK_EQ(pub_client_add(p, &fall, 1024, TOE_START_NOW, 0, &ca, &ia), 0);
	struct ring_view vo, vt, va;
	CHECK_EQ(ring_view_open(&vo, io.data_fd, io.data_size, io.cons_fd), 0);
	CHECK_EQ(ring_view_open(&vt, it.data_fd, it.data_size, it.cons_fd), 0);
	CHECK_EQ(ring_view_open(&va, ia.data_fd, ia.data_size, ia.cons_fd), 0);
	enum { N = 300 };
	static union toe_record recs[N], out[N];
	static uint8_t srcs[N];
	uint32_t want_o = 0, want_t = 0, want_a = 0;
	for (uint32_t i = 0; i < N; i++) {
		if (i % 3 == 0)
			mk_order(&recs[i], i, 1, "600000");
		else
			mk_trade(&recs[i], i, 1, "600000");
		if (i % 50 == 7)
			recs[i].hdr.type = TOE_REC_GAP;
		if (i % 97 == 5)
			recs[i].hdr.type = 40; /* no type bit: nobody's */
		srcs[i] = (uint8_t)(i % 5);
		uint32_t t = recs[i].hdr.type;
		want_o += t == TOE_REC_ORDER || t == TOE_REC_GAP;
		want_t += t == TOE_REC_TRADE;
		want_a += t < 32 && (TOE_TYPES_ALL >> t & 1u);
	}
	pub_publish(p, recs, N / 2);
	pub_publish_src(p, recs + N / 2, srcs + N / 2, N - N / 2);
	uint64_t skipped = 0;
	uint32_t n = view_drain(&vo, out, N, &skipped);
	CHECK_EQ(n, want_o);
	int ok = 1;
	for (uint32_t k = 0; k < n; k++)
		ok &= (out[k].hdr.type == TOE_REC_ORDER || out[k].hdr.type == TOE_REC_GAP) && out[k].hdr.seq == k + 1 &&
		      (k == 0 || out[k].hdr.msg_seq > out[k - 1].hdr.msg_seq);
	CHECK(ok);
	n = view_drain(&vt, out, N, &skipped);
	CHECK_EQ(n, want_t);
	ok = 1;
	for (uint32_t k = 0; k < n; k++)
		ok &= out[k].hdr.type == TOE_REC_TRADE && (k == 0 || out[k].hdr.msg_seq > out[k - 1].hdr.msg_seq);
	CHECK(ok);
	n = view_drain(&va, out, N, &skipped);
	CHECK_EQ(n, want_a);
	CHECK(want_a < N); /* the type-40 records */
	CHECK_EQ(skipped, 0);
	ring_view_close(&vo);
	ring_view_close(&vt);
	ring_view_close(&va);
	pub_client_remove(p, co);
	pub_client_remove(p, ct);
	pub_client_remove(p, ca);
	pub_destroy(p);
}

/* toe_ring_prod_push_n against n toe_ring_prod_push calls on a twin ring:
 * from every head position of a 16-slot ring (so runs wrap), with the
 * consumer's tail stale, current, or nonsense (ahead of head), runs of 0..20
 * records leave both rings, sequence numbers, drops and tail reads equal. */
static void test_push_n(void)
{
	enum { CAP = 16 };
	static union toe_record ra[CAP], rb[CAP], in[20];
	struct toe_shm_consumer ca, cb;
	int ok = 1, wrapped = 0, dropped = 0;
	for (uint32_t i = 0; i < 20; i++)
		mk_trade(&in[i], i, 1, "600000");
	for (uint32_t h0 = 0; h0 < CAP; h0++)
		for (uint32_t n = 0; n <= 20; n++)
			for (int tail = 0; tail < 4; tail++) {
				struct toe_ring_prod a = {.recs = ra, .cons = &ca, .mask = CAP - 1, .cap = CAP};
				memset(ra, 0, sizeof ra);
				memset(rb, 0, sizeof rb);
				memset(&ca, 0, sizeof ca);
				a.head = 100 + h0;
				a.seq = 7;
				/* 0: all read, cache current; 1: cache stale, ring empty; 2: half
				 * full by both; 3: a nonsense tail ahead of head */
				a.tail_cache = tail == 1 ? a.head - CAP : tail == 2 ? a.head - CAP / 2 : a.head;
				ca.tail = tail == 3 ? a.head + 5 : tail == 2 ? a.head - CAP / 2 : a.head;
				struct toe_ring_prod b = a;
				cb = ca;
				b.recs = rb;
				b.cons = &cb;
				toe_ring_prod_push_n(&a, in, n);
				for (uint32_t i = 0; i < n; i++)
					toe_ring_prod_push(&b, &in[i]);
				ok &= a.head == b.head && a.seq == b.seq && a.dropped == b.dropped &&
				      a.tail_cache == b.tail_cache && !memcmp(ra, rb, sizeof ra);
				wrapped |= (100 + h0) % CAP + (a.head - (100 + h0)) > CAP;
				dropped |= a.dropped != 0;
			}
	CHECK(ok);
	CHECK(wrapped);
	CHECK(dropped);
}

int main(void)
{
	test_push_n();
	test_filter();
	test_type_only();
	test_fanout_and_drops();
	test_sealing();
	test_replay();
	test_heartbeat_and_wake();
	test_hugepages();
	test_limits();
	return test_done("test_ring_pub");
}
