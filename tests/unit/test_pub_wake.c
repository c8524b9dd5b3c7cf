/* test_pub_wake.c - the publisher's wake-ups: every ring is committed before any
 * reader is woken, only readers that set their wait bits are woken, each once
 * per commit round, and a wake-up is never lost, even when a reader announces
 * its sleep at the very moment the producer publishes (many raced rounds with
 * a real FUTEX_WAIT in a second thread); the data plane's busy CPU in every
 * ring's header. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dp/dp_pub.h"
#include "dp/dp_shm.h"
#include "ring_view.h"
#include "test.h"
#include "toe/shm.h"

static void mk_trade(union toe_record *r, uint64_t i)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = TOE_REC_TRADE;
	r->hdr.msg_seq = i;
	r->trade.trade_channel = 1;
	r->trade.trade_index = (int32_t)i;
	snprintf(r->trade.security_id, sizeof(r->trade.security_id), "600000");
}

static uint64_t wakeups(struct pub *p)
{
	struct pub_stats st;
	pub_get_stats(p, &st);
	return st.wakeups;
}

/* Two sleeping readers and one awake: after pub_publish_nowake every ring
 * holds the record and the sleepers' wait words are taken, but nobody was
 * woken yet; pub_wake wakes exactly the two. */
static void test_commit_then_wake(void)
{
	struct pub_config cfg = {0};
	struct pub *p = pub_create(&cfg, NULL);
	CHECK(p != NULL);
	struct pub_filter f = {0};
	struct pub_client *c[3];
	struct pub_client_info in[3];
	struct ring_view v[3];
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c[i], &in[i]), 0);
		CHECK_EQ(ring_view_open(&v[i], in[i].data_fd, in[i].data_size, in[i].cons_fd), 0);
	}
	uint32_t word;
	CHECK_EQ(toe_ring_cons_prepare_wait(&v[0].r, TOE_SHM_WAIT_FUTEX, &word), 0);
	CHECK_EQ(toe_ring_cons_prepare_wait(&v[2].r, TOE_SHM_WAIT_EVENTFD, &word), 0);
	union toe_record r;
	mk_trade(&r, 1);
	CHECK_EQ(pub_publish_nowake(p, &r, 1), 3);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(toe_ring_cons_avail(&v[i].r), 1);
		CHECK_EQ(v[i].cons->wait, 0);
	}
	CHECK_EQ(wakeups(p), 0); /* committed everywhere, nobody woken yet */
	uint64_t cnt = 0;
	CHECK_EQ(read(in[2].event_fd, &cnt, sizeof cnt), -1); /* the eventfd neither */
	CHECK_EQ(pub_wake(p), 2);
	CHECK_EQ(wakeups(p), 2);
	CHECK_EQ(read(in[2].event_fd, &cnt, sizeof cnt), 8);
	CHECK_EQ(cnt, 1);
	CHECK_EQ(pub_wake(p), 0); /* nothing queued any more */

	/* a reader that sleeps again between two publications of one round is
	 * queued once, with its bits merged */
	CHECK_EQ(toe_ring_cons_prepare_wait(&v[1].r, TOE_SHM_WAIT_FUTEX, &word), 1);
	toe_ring_cons_release(&v[1].r, 1);
	CHECK_EQ(toe_ring_cons_prepare_wait(&v[1].r, TOE_SHM_WAIT_FUTEX, &word), 0);
	mk_trade(&r, 2);
	pub_publish_nowake(p, &r, 1);
	CHECK_EQ(toe_ring_cons_prepare_wait(&v[1].r, TOE_SHM_WAIT_EVENTFD, &word), 1);
	mk_trade(&r, 3);
	pub_publish_nowake(p, &r, 1);
	CHECK_EQ(pub_wake(p), 1);
	CHECK_EQ(wakeups(p), 3);
	CHECK_EQ(read(in[1].event_fd, &cnt, sizeof cnt), 8); /* the merged eventfd bit */

	/* readers that never set a bit cost no wake-up: pub_publish does its wakes itself */
	uint64_t w0 = wakeups(p);
	for (int i = 0; i < 100; i++)
		pub_publish(p, &r, 1);
	CHECK_EQ(wakeups(p), w0);

	/* pub_tick sends what a caller left queued */
	CHECK_EQ(toe_ring_cons_prepare_wait(&v[0].r, TOE_SHM_WAIT_FUTEX, &word), toe_ring_cons_avail(&v[0].r));
	toe_ring_cons_release(&v[0].r, toe_ring_cons_avail(&v[0].r));
	CHECK_EQ(toe_ring_cons_prepare_wait(&v[0].r, TOE_SHM_WAIT_FUTEX, &word), 0);
	pub_publish_nowake(p, &r, 1);
	CHECK_EQ(wakeups(p), w0);
	pub_tick(p, shm_now_ns());
	CHECK_EQ(wakeups(p), w0 + 1);

	for (int i = 0; i < 3; i++) {
		ring_view_close(&v[i]);
		pub_client_close_fds(c[i]);
	}
	pub_destroy(p);
}

/* The data plane's busy CPU reaches every ring (1 + cpu, 0: none) at the next
 * pub_tick, and new rings at once. */
static void test_busy_cpu(void)
{
	struct pub_config cfg = {0};
	struct pub *p = pub_create(&cfg, NULL);
	struct pub_filter f = {0};
	struct pub_client *c[2];
	struct pub_client_info in[2];
	struct ring_view v[2];
	CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c[0], &in[0]), 0);
	CHECK_EQ(ring_view_open(&v[0], in[0].data_fd, in[0].data_size, in[0].cons_fd), 0);
	const struct toe_shm_region *r0 = v[0].data;
	CHECK_EQ(r0->busy_cpu, 0);
	pub_tick(p, shm_now_ns());
	pub_set_busy_cpu(p, 1);
	CHECK_EQ(r0->busy_cpu, 0); /* not before the producer's next tick */
	pub_tick(p, shm_now_ns());
	CHECK_EQ(r0->busy_cpu, 2);
	CHECK_EQ(pub_client_add(p, &f, 64, 0, 0, &c[1], &in[1]), 0);
	CHECK_EQ(ring_view_open(&v[1], in[1].data_fd, in[1].data_size, in[1].cons_fd), 0);
	CHECK_EQ(((const struct toe_shm_region *)v[1].data)->busy_cpu, 2);
	pub_set_busy_cpu(p, 0);
	pub_tick(p, shm_now_ns());
	CHECK_EQ(r0->busy_cpu, 1);
	pub_set_busy_cpu(p, -1);
	pub_tick(p, shm_now_ns());
	CHECK_EQ(r0->busy_cpu, 0);
	CHECK_EQ(((const struct toe_shm_region *)v[1].data)->busy_cpu, 0);
	for (int i = 0; i < 2; i++) {
		ring_view_close(&v[i]);
		pub_client_close_fds(c[i]);
	}
	pub_destroy(p);
}

/* ---- the race: a reader going to sleep while the producer publishes ---- */

#define RACE_ROUNDS 20000
#define RACE_TIMEOUT_NS 1000000000ll /* a lost wake-up shows as a sleep this long */

struct race {
	struct pub *pub;
	struct ring_view v;
	uint64_t lost;  /* atomic: sleeps that timed out with a record waiting (the first ends the test) */
	uint64_t slept; /* FUTEX_WAIT calls that blocked or found the word changed */
	uint64_t got;
};

static void *race_consumer(void *arg)
{
	struct race *t = arg;
	while (t->got < RACE_ROUNDS) {
		uint32_t word, n = toe_ring_cons_prepare_wait(&t->v.r, TOE_SHM_WAIT_FUTEX, &word);
		if (!n) {
			struct timespec ts = {RACE_TIMEOUT_NS / 1000000000ll, RACE_TIMEOUT_NS % 1000000000ll};
			t->slept++;
			long rc = syscall(SYS_futex, &t->v.cons->wait, FUTEX_WAIT, word, &ts, NULL, 0);
			if (rc < 0 && errno == ETIMEDOUT && toe_ring_cons_avail(&t->v.r)) {
				__atomic_store_n(&t->lost, 1, __ATOMIC_RELEASE);
				break;
			}
		}
		__atomic_fetch_and(&t->v.cons->wait, ~TOE_SHM_WAIT_FUTEX, __ATOMIC_RELAXED);
		n = toe_ring_cons_avail(&t->v.r);
		if (n) {
			toe_ring_cons_release(&t->v.r, n);
			t->got += n;
		}
	}
	return NULL;
}

static void test_wake_never_lost(void)
{
	struct pub_config cfg = {0};
	static struct race t;
	t.pub = pub_create(&cfg, NULL);
	CHECK(t.pub != NULL);
	struct pub_filter f = {0};
	struct pub_client *c;
	struct pub_client_info in;
	CHECK_EQ(pub_client_add(t.pub, &f, 64, 0, 0, &c, &in), 0);
	CHECK_EQ(ring_view_open(&t.v, in.data_fd, in.data_size, in.cons_fd), 0);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, race_consumer, &t), 0);
	union toe_record r;
	uint32_t rnd = 12345;
	for (uint64_t i = 0; i < RACE_ROUNDS; i++) {
		/* one record per round, once the reader has taken the last: it is
		 * then somewhere between its release and its FUTEX_WAIT */
		while (__atomic_load_n(&t.v.cons->tail, __ATOMIC_ACQUIRE) < i && !__atomic_load_n(&t.lost, __ATOMIC_ACQUIRE))
			;
		if (__atomic_load_n(&t.lost, __ATOMIC_ACQUIRE))
			break;
		rnd = rnd * 1103515245u + 12345u;
		for (volatile uint32_t k = (rnd >> 16) % 256; k; k--)
			; /* a random delay moves the publication across the reader's steps */
		mk_trade(&r, i + 1);
		if (rnd & 0x100) {
			pub_publish(t.pub, &r, 1);
		} else {
			pub_publish_nowake(t.pub, &r, 1);
			pub_wake(t.pub);
		}
	}
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(t.lost, 0);
	CHECK_EQ(t.got, RACE_ROUNDS);
	printf("test_pub_wake: %llu raced rounds, %llu futex waits, %llu wake-ups sent, %s\n", (unsigned long long)t.got,
	       (unsigned long long)t.slept, (unsigned long long)wakeups(t.pub), t.lost ? "ONE LOST" : "none lost");
	ring_view_close(&t.v);
	pub_client_close_fds(c);
	pub_destroy(t.pub);
}

int main(void)
{
	test_commit_then_wake();
	test_busy_cpu();
	test_wake_never_lost();
	return test_done("test_pub_wake");
}
