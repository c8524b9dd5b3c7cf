/* tsan_ring.c - thread tests for ThreadSanitizer: the SPSC ring protocol with
 * a producer thread and a consumer thread on one mapping (so TSan sees both
 * sides' accesses), including futex sleeps and drops; the publisher in
 * threaded mode with clients added, re-filtered and removed under a busy
 * producer; and libtoeclient reading from a producer thread in-process. */
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

#include "ctl/ctl_server.h"
#include "dp/dp_pub.h"
#include "dp/dp_shm.h"
#include "test.h"
#include "toe/shm.h"
#include "toe/toeclient.h"

/* ---- 1: the ring protocol ------------------------------------------------ */

enum { RING_N = 200000, RING_CAP = 256 };

struct ring_test {
	struct toe_ring_prod prod;
	struct toe_ring_cons cons;
	int done; /* atomic */
	uint64_t received, skipped, bad, sleeps, last_seq;
};

static void *ring_producer(void *arg)
{
	struct ring_test *t = arg;
	union toe_record r;
	memset(&r, 0, sizeof(r));
	r.hdr.type = TOE_REC_TRADE;
	unsigned seed = 1;
	for (uint64_t i = 0; i < RING_N;) {
		unsigned batch = 1 + (unsigned)(rand_r(&seed) % 32);
		for (unsigned k = 0; k < batch && i < RING_N; k++, i++) {
			/* first half: wait for space (no drops); second half: never wait (drops) */
			while (i < RING_N / 2 && toe_ring_prod_space(&t->prod) == 0)
				sched_yield();
			r.hdr.msg_seq = i;
			r.trade.trade_index = (int32_t)i;
			toe_ring_prod_push(&t->prod, &r);
		}
		uint32_t bits = toe_ring_prod_commit(&t->prod);
		if (bits & TOE_SHM_WAIT_FUTEX)
			syscall(SYS_futex, &t->prod.cons->wait, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
		if (rand_r(&seed) % 64 == 0)
			usleep(200); /* let the consumer go to sleep now and then */
	}
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	uint32_t bits = __atomic_exchange_n(&t->prod.cons->wait, 0, __ATOMIC_SEQ_CST);
	if (bits)
		syscall(SYS_futex, &t->prod.cons->wait, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	return NULL;
}

static void *ring_consumer(void *arg)
{
	struct ring_test *t = arg;
	uint64_t next = 1;
	for (;;) {
		uint32_t n = toe_ring_cons_avail(&t->cons);
		if (n) {
			for (uint32_t i = 0; i < n; i++) {
				const union toe_record *r = toe_ring_cons_at(&t->cons, i);
				/* every offered record took a seq: seq - 1 is its index */
				if (r->hdr.seq < next || r->hdr.msg_seq != r->hdr.seq - 1 ||
				    r->trade.trade_index != (int32_t)r->hdr.msg_seq)
					t->bad++;
				t->skipped += r->hdr.seq - next;
				next = r->hdr.seq + 1;
			}
			t->received += n;
			t->last_seq = next - 1;
			toe_ring_cons_release(&t->cons, n);
			continue;
		}
		if (__atomic_load_n(&t->done, __ATOMIC_ACQUIRE) && toe_ring_cons_avail(&t->cons) == 0)
			break;
		uint32_t word;
		if (toe_ring_cons_prepare_wait(&t->cons, TOE_SHM_WAIT_FUTEX, &word) == 0 &&
		    !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE)) {
			struct timespec ts = {.tv_nsec = 10000000};
			t->sleeps++;
			syscall(SYS_futex, &t->cons.cons->wait, FUTEX_WAIT, word, &ts, NULL, 0);
		}
		__atomic_fetch_and(&t->cons.cons->wait, ~TOE_SHM_WAIT_FUTEX, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_ring_threads(void)
{
	struct shm_region data, cons;
	CHECK_EQ(shm_region_create(&data, "tsan-ring", toe_shm_data_bytes(RING_CAP), 0), 0);
	CHECK_EQ(shm_region_create(&cons, "tsan-cons", TOE_SHM_CONS_SIZE, 0), 0);
	struct toe_shm_region *reg = data.base;
	reg->capacity = RING_CAP;
	reg->ring_offset = TOE_SHM_HDR_SIZE;
	static struct ring_test t;
	t.prod.reg = reg;
	t.prod.recs = (union toe_record *)((char *)data.base + TOE_SHM_HDR_SIZE);
	t.prod.cons = cons.base;
	t.prod.cap = RING_CAP;
	t.prod.mask = RING_CAP - 1;
	t.cons.reg = reg;
	t.cons.recs = t.prod.recs;
	t.cons.cons = cons.base;
	t.cons.cap = RING_CAP;
	t.cons.mask = RING_CAP - 1;
	pthread_t tp, tc;
	pthread_create(&tc, NULL, ring_consumer, &t);
	pthread_create(&tp, NULL, ring_producer, &t);
	pthread_join(tp, NULL);
	pthread_join(tc, NULL);
	CHECK_EQ(t.bad, 0);
	/* drops after the last delivered record show in the counter, not as a jump */
	CHECK_EQ(t.received + reg->dropped, RING_N);
	CHECK_EQ(t.skipped + (RING_N - t.last_seq), reg->dropped);
	CHECK_EQ(t.received + t.skipped, t.last_seq);
	CHECK_EQ(reg->offered, RING_N);
	printf("tsan_ring: ring: %llu received, %llu dropped, consumer slept %llu times\n",
	       (unsigned long long)t.received, (unsigned long long)t.skipped, (unsigned long long)t.sleeps);
	shm_region_destroy(&data);
	shm_region_destroy(&cons);
}

/* ---- 2: the publisher with separate producer and control threads ---------- */

struct pub_test {
	struct pub *pub;
	int stop; /* atomic */
	uint64_t calls;
};

static void *pub_producer(void *arg)
{
	struct pub_test *t = arg;
	union toe_record r[16];
	memset(r, 0, sizeof(r));
	for (uint64_t i = 0; !__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE); i++) {
		for (int k = 0; k < 16; k++) {
			r[k].hdr.type = k % 3 ? TOE_REC_TRADE : TOE_REC_ORDER;
			r[k].hdr.msg_seq = i * 16 + (uint64_t)k;
			r[k].trade.trade_channel = k % 4;
		}
		if (i % 3 == 0) {
			pub_publish(t->pub, r, 16);
		} else {
			/* the split the data plane uses, the wakes after the commits; one
			 * round in three leaves them queued into the next call */
			pub_publish_nowake(t->pub, r, 16);
			if (i % 3 == 2) {
				if (i % 2)
					usleep(10); /* a slow stamp: the control thread removes and reclaims meanwhile */
				pub_wake(t->pub);
			}
		}
		t->calls++;
		if (i % 3 == 1)
			continue;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		pub_tick(t->pub, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
	}
	return NULL;
}

static void test_pub_threads(void)
{
	struct pub_config cfg = {.threaded = 1, .no_hugepages = 1, .history = 256, .max_clients = 8};
	struct pub_test t = {.pub = pub_create(&cfg, NULL)};
	CHECK(t.pub != NULL);
	pthread_t tp;
	pthread_create(&tp, NULL, pub_producer, &t);
	struct pub_client *live[4] = {0};
	struct toe_shm_consumer *cons[4] = {0}; /* the clients' side of their consumer pages */
	uint64_t seen = 0;
	for (int it = 0; it < 300; it++) {
		int k = it % 4;
		if (live[k]) {
			struct pub_client_stats cs;
			pub_client_get_stats(live[k], &cs);
			seen += cs.offered;
			/* asleep as far as the producer knows: it queues a wake that may
			 * still be pending when the client goes (freed only after it) */
			__atomic_fetch_or(&cons[k]->wait, TOE_SHM_WAIT_FUTEX, __ATOMIC_SEQ_CST);
			for (int w = 0; w < 2000 && __atomic_load_n(&cons[k]->wait, __ATOMIC_SEQ_CST); w++)
				usleep(1); /* until the producer took the bit: its wake is queued or done */
			pub_client_remove(t.pub, live[k]);
			munmap(cons[k], TOE_SHM_CONS_SIZE);
			live[k] = NULL;
			for (int w = 0; w < 5; w++) {
				pub_reclaim(t.pub); /* must not free it while the wake is still queued */
				usleep(5);
			}
		}
		struct pub_filter f = {.nchannels = 1, .channels = {k}};
		struct pub_client_info in;
		CHECK_EQ(pub_client_add(t.pub, &f, 64, it % 2 ? TOE_START_LAST : TOE_START_NOW, 20, &live[k], &in), 0);
		cons[k] = mmap(NULL, TOE_SHM_CONS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, in.cons_fd, 0);
		CHECK(cons[k] != MAP_FAILED);
		pub_client_close_fds(live[k]);
		struct pub_filter g = {.types = TOE_TYPE_BIT(TOE_REC_TRADE)};
		CHECK_EQ(pub_client_set_filter(t.pub, live[k], &g), 0);
		pub_reclaim(t.pub);
		struct pub_stats ps;
		pub_get_stats(t.pub, &ps);
		usleep(100);
	}
	__atomic_store_n(&t.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tp, NULL);
	for (int k = 0; k < 4; k++)
		if (live[k]) {
			pub_client_remove(t.pub, live[k]);
			munmap(cons[k], TOE_SHM_CONS_SIZE);
		}
	struct pub_stats ps;
	pub_get_stats(t.pub, &ps);
	CHECK(ps.wakeups > 0);
	CHECK_EQ(ps.rings_created, 300);
	CHECK_EQ(ps.rings_reclaimed, 300);
	CHECK(seen > 0);
	printf("tsan_ring: pub: %llu producer calls, %llu records offered to removed clients, %llu wake-ups, %u zombies "
	       "left\n",
	       (unsigned long long)t.calls, (unsigned long long)seen, (unsigned long long)ps.wakeups, ps.zombies);
	pub_destroy(t.pub);
}

/* ---- 3: libtoeclient against an in-process producer thread ------------------ */

enum { LIB_N = 20000 };

struct lib_test {
	char path[96];
	int ready; /* atomic */
	int stop;  /* atomic */
	int err;
};

static void *lib_producer(void *arg)
{
	struct lib_test *t = arg;
	struct pub_config pc = {.no_hugepages = 1};
	struct pub *pub = pub_create(&pc, &t->err);
	struct ctl_config cc = {.path = t->path, .allow_gid = -1};
	struct ctl_server *srv = pub ? ctl_server_open(&cc, pub, &t->err) : NULL;
	__atomic_store_n(&t->ready, srv ? 1 : -1, __ATOMIC_RELEASE);
	if (!srv)
		return NULL;
	/* serve until the client subscribed, then publish everything */
	struct pub_stats ps;
	do {
		ctl_server_poll(srv, 1);
		pub_get_stats(pub, &ps);
	} while (ps.clients == 0 && !__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE));
	union toe_record r[32];
	memset(r, 0, sizeof(r));
	for (uint64_t i = 0; i < LIB_N; i += 32) {
		for (int k = 0; k < 32; k++) {
			r[k].hdr.type = TOE_REC_TRADE;
			r[k].hdr.msg_seq = i + (uint64_t)k;
		}
		pub_publish(pub, r, 32);
		pub_tick(pub, shm_now_ns());
		if (i % 1024 == 0)
			ctl_server_poll(srv, 0);
	}
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		ctl_server_poll(srv, 1);
		pub_tick(pub, shm_now_ns());
	}
	ctl_server_close(srv);
	pub_destroy(pub);
	return NULL;
}

struct lib_count {
	uint64_t n, skipped, last_seq, bad;
};

static void on_rec(void *arg, const union toe_record *r, uint64_t skipped)
{
	struct lib_count *c = arg;
	if (r->hdr.seq != c->last_seq + 1 + skipped)
		c->bad++;
	c->last_seq = r->hdr.seq;
	c->skipped += skipped;
	c->n++;
}

static void test_library_thread(void)
{
	static struct lib_test t;
	snprintf(t.path, sizeof(t.path), "/tmp/toe-tsan-%d.sock", (int)getpid());
	pthread_t tp;
	pthread_create(&tp, NULL, lib_producer, &t);
	while (__atomic_load_n(&t.ready, __ATOMIC_ACQUIRE) == 0)
		usleep(1000);
	struct toe_client *c = NULL;
	struct toe_opts o = {.spin_ns = 20000};
	int e = toe_connect(&c, t.path, &o);
	CHECK_EQ(e, 0);
	if (e == 0) {
		CHECK_EQ(toe_subscribe(c, &(struct toe_sub){.capacity = 1024}), 0);
		struct lib_count cnt = {0};
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		time_t end = ts.tv_sec + 20;
		struct toe_stats st;
		for (;;) {
			toe_stats(c, &st); /* dropped counts trailing drops too */
			if (cnt.n + st.dropped >= LIB_N)
				break;
			int n = toe_poll(c, on_rec, &cnt, 0);
			if (n == -EAGAIN)
				n = toe_wait(c, 100000000ll);
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if ((n < 0 && n != -EAGAIN) || ts.tv_sec > end)
				break;
		}
		toe_stats(c, &st);
		CHECK_EQ(cnt.bad, 0);
		CHECK_EQ(cnt.n + st.dropped, LIB_N);
		CHECK(cnt.skipped <= st.dropped);
		CHECK_EQ(cnt.n + cnt.skipped, cnt.last_seq);
		CHECK_EQ(st.received, cnt.n);
		CHECK_EQ(st.skipped, cnt.skipped);
		printf("tsan_ring: library: %llu received, %llu dropped\n", (unsigned long long)cnt.n,
		       (unsigned long long)cnt.skipped);
		toe_close(c);
	}
	__atomic_store_n(&t.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tp, NULL);
	unlink(t.path);
}

int main(void)
{
	test_ring_threads();
	test_pub_threads();
	test_library_thread();
	return test_done("tsan_ring");
}
