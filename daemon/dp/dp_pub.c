/* dp_pub.c - fan-out of tick records into per-client rings (see dp_pub.h). */
#include "dp/dp_pub.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/mem_touch.h"

#define PUB_DEFAULT_MAX_CLIENTS 256u
#define PUB_DEFAULT_HEARTBEAT_NS 100000000ull

struct pub_client {
	struct toe_ring_prod ring; /* producer thread only, once published */
	int replay_pending;        /* atomic: set before publication, cleared by whoever takes it */
	uint32_t replay_start;
	uint64_t replay_arg;
	const struct pub_filter *filter; /* atomic pointer: control writes, producer reads */
	struct shm_region data;
	struct shm_region cons;
	int efd;
	uint32_t id;
	uint32_t slot;
	uint64_t bytes;     /* data + consumer region, for the ring memory budget */
	uint32_t wake_bits; /* producer thread: wait bits taken at a commit, not yet acted on */
};

/* Something removed that the producer may still be using. */
struct pub_garbage {
	struct pub_garbage *next;
	uint64_t gen;
	struct pub_client *client; /* or */
	struct pub_filter *filter;
};

struct pub {
	struct pub_config cfg;
	uint64_t epoch;
	struct pub_client **slots; /* atomic pointers */
	uint32_t hwm;              /* atomic: slots[0..hwm) may be in use */
	uint32_t replays;          /* atomic: clients added with a pending replay */
	uint64_t gen;              /* atomic: producer calls completed */
	uint32_t busy_cpu;         /* atomic: toe_shm_region.busy_cpu for every ring */
	/* producer thread */
	union toe_record *hist;
	uint8_t *hist_src;  /* each history record's source */
	uint32_t hist_mask;
	uint64_t hist_n;
	uint64_t next_hb;
	uint64_t published; /* atomic stores, read by pub_get_stats */
	uint64_t delivered;
	uint64_t dropped;
	uint64_t wakeups;
	struct pub_client **wakeq; /* clients with wake_bits, in commit order */
	uint32_t nwake;
	/* control thread */
	uint32_t nclients;
	uint32_t next_id;
	uint32_t nzombies;
	uint64_t created;
	uint64_t reclaimed;
	uint64_t fallbacks;
	uint64_t ring_bytes;      /* every ring not yet freed, zombies included */
	uint64_t budget_refusals;
	struct pub_garbage *garbage;
};

/* ---- filters ------------------------------------------------------------ */

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_sec(const void *a, const void *b)
{
	return memcmp(a, b, TOE_SECURITY_ID_LEN);
}

int pub_filter_normalise(struct pub_filter *f)
{
	if (f->types == 0)
		f->types = TOE_TYPES_ALL;
	if (f->types & ~(uint32_t)TOE_TYPES_ALL)
		return -EINVAL;
	if (f->nchannels > TOE_CTL_MAX_CHANNELS || f->nsecurities > TOE_CTL_MAX_SECURITIES)
		return -EINVAL;
	qsort(f->channels, f->nchannels, sizeof(f->channels[0]), cmp_i32);
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nchannels; i++)
		if (n == 0 || f->channels[n - 1] != f->channels[i])
			f->channels[n++] = f->channels[i];
	f->nchannels = n;
	for (uint32_t i = 0; i < f->nsecurities; i++) {
		char *s = f->securities[i];
		if (s[0] == 0)
			return -EINVAL;
		size_t len = strnlen(s, TOE_SECURITY_ID_LEN);
		memset(s + len, 0, TOE_SECURITY_ID_LEN - len);
	}
	qsort(f->securities, f->nsecurities, TOE_SECURITY_ID_LEN, cmp_sec);
	n = 0;
	for (uint32_t i = 0; i < f->nsecurities; i++)
		if (n == 0 || memcmp(f->securities[n - 1], f->securities[i], TOE_SECURITY_ID_LEN) != 0)
			memmove(f->securities[n++], f->securities[i], TOE_SECURITY_ID_LEN);
	f->nsecurities = n;
	return 0;
}

static int has_channel(const struct pub_filter *f, int32_t ch)
{
	uint32_t lo = 0, hi = f->nchannels;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (f->channels[mid] == ch)
			return 1;
		if (f->channels[mid] < ch)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int has_security(const struct pub_filter *f, const char *id)
{
	uint32_t lo = 0, hi = f->nsecurities;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		int c = memcmp(f->securities[mid], id, TOE_SECURITY_ID_LEN);
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

const struct pub_stream *pub_stream_find(const struct pub_stream *tbl, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strncmp(tbl[i].name, name, TOE_CTL_STREAM_LEN) == 0)
			return &tbl[i];
	return NULL;
}

int pub_filter_match(const struct pub_filter *f, const union toe_record *r, uint8_t src)
{
	uint32_t t = r->hdr.type;
	if (t >= 32 || !(f->types & (1u << t)))
		return 0;
	if (f->has_stream && src != PUB_SRC_ALL &&
	    (src >= PUB_MAX_SRCS || !(f->srcs[src / 64] >> (src % 64) & 1u)))
		return 0;
	if (t == TOE_REC_TRADE) {
		if (f->nchannels && !has_channel(f, r->trade.trade_channel))
			return 0;
		if (f->nsecurities && !has_security(f, r->trade.security_id))
			return 0;
	} else if (t == TOE_REC_ORDER) {
		if (f->nchannels && !has_channel(f, r->order.order_channel))
			return 0;
		if (f->nsecurities && !has_security(f, r->order.security_id))
			return 0;
	}
	return 1;
}

/* ---- creation ----------------------------------------------------------- */

static uint32_t pow2_up(uint32_t v)
{
	uint32_t p = 1;
	while (p < v && p < (1u << 30))
		p <<= 1;
	return p;
}

static int is_pow2(uint32_t v)
{
	return v && (v & (v - 1)) == 0;
}

struct pub *pub_create(const struct pub_config *cfg, int *err)
{
	struct pub *p = calloc(1, sizeof(*p));
	int e = -ENOMEM;
	if (!p)
		goto fail;
	if (cfg)
		p->cfg = *cfg;
	if (!p->cfg.max_clients)
		p->cfg.max_clients = PUB_DEFAULT_MAX_CLIENTS;
	if (!p->cfg.max_capacity || p->cfg.max_capacity > TOE_SHM_MAX_CAPACITY)
		p->cfg.max_capacity = TOE_SHM_MAX_CAPACITY;
	if (!p->cfg.default_capacity)
		p->cfg.default_capacity = TOE_SHM_DEFAULT_CAPACITY < p->cfg.max_capacity ? TOE_SHM_DEFAULT_CAPACITY
											 : p->cfg.max_capacity;
	if (!p->cfg.heartbeat_period_ns)
		p->cfg.heartbeat_period_ns = PUB_DEFAULT_HEARTBEAT_NS;
	e = -EINVAL;
	if (!is_pow2(p->cfg.max_capacity) || !is_pow2(p->cfg.default_capacity) ||
	    p->cfg.default_capacity < TOE_SHM_MIN_CAPACITY || p->cfg.max_capacity < TOE_SHM_MIN_CAPACITY ||
	    p->cfg.default_capacity > p->cfg.max_capacity)
		goto fail;
	e = -ENOMEM;
	p->slots = calloc(p->cfg.max_clients, sizeof(p->slots[0]));
	p->wakeq = calloc(p->cfg.max_clients, sizeof(p->wakeq[0]));
	if (!p->slots || !p->wakeq)
		goto fail;
	if (p->cfg.history) {
		p->cfg.history = pow2_up(p->cfg.history);
		p->hist = calloc(p->cfg.history, sizeof(p->hist[0]));
		p->hist_src = calloc(p->cfg.history, sizeof(p->hist_src[0]));
		if (!p->hist || !p->hist_src)
			goto fail;
		p->hist_mask = p->cfg.history - 1;
		/* touched now, not on the first lap of the history (base/mem_touch.h) */
		mem_touch_write(p->hist, p->cfg.history * sizeof(p->hist[0]));
		mem_touch_write(p->hist_src, p->cfg.history * sizeof(p->hist_src[0]));
	}
	p->epoch = shm_new_epoch();
	p->next_id = 1;
	if (err)
		*err = 0;
	return p;
fail:
	if (p) {
		free(p->slots);
		free(p->wakeq);
		free(p->hist);
		free(p->hist_src);
		free(p);
	}
	if (err)
		*err = e;
	return NULL;
}

uint64_t pub_epoch(const struct pub *p)
{
	return p->epoch;
}

uint32_t pub_default_capacity(const struct pub *p)
{
	return p->cfg.default_capacity;
}

uint32_t pub_max_capacity(const struct pub *p)
{
	return p->cfg.max_capacity;
}

uint32_t pub_history(const struct pub *p)
{
	return p->cfg.history;
}

uint64_t pub_ring_cost(const struct pub *p, uint32_t capacity)
{
	/* what shm_region_create will take: whole huge pages when it may get them */
	uint64_t page = p->cfg.no_hugepages ? 4096u : TOE_SHM_HUGE_PAGE;
	uint64_t data = (toe_shm_data_bytes(capacity) + page - 1) / page * page;
	return data + TOE_SHM_CONS_SIZE;
}

uint64_t pub_ring_bytes(const struct pub *p)
{
	return p->ring_bytes;
}

/* Control thread: the client's memory is given back. */
static void client_free_counted(struct pub *p, struct pub_client *c);

static void client_free(struct pub_client *c)
{
	shm_region_destroy(&c->data);
	shm_region_destroy(&c->cons);
	if (c->efd >= 0)
		close(c->efd);
	free((void *)c->filter);
	free(c);
}

static long futex_wake(uint32_t *addr)
{
	return syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void wake(struct pub *p, struct pub_client *c, uint32_t bits)
{
	if (bits & TOE_SHM_WAIT_FUTEX)
		futex_wake(&c->ring.cons->wait);
	if (bits & TOE_SHM_WAIT_EVENTFD) {
		uint64_t one = 1;
		/* non-blocking; a full counter (EAGAIN) already means "readable" */
		if (write(c->efd, &one, sizeof(one)) < 0) {
		}
	}
	/* producer and control thread both wake (commit / remove) */
	__atomic_fetch_add(&p->wakeups, 1, __ATOMIC_RELAXED);
}

int pub_client_add(struct pub *p, const struct pub_filter *f, uint32_t capacity, uint32_t start,
		   uint64_t start_arg, struct pub_client **out, struct pub_client_info *info)
{
	if (capacity == 0)
		capacity = p->cfg.default_capacity;
	if (!is_pow2(capacity) || capacity < TOE_SHM_MIN_CAPACITY || capacity > p->cfg.max_capacity)
		return -EINVAL;
	if (start > TOE_START_MSG_SEQ)
		return -EINVAL;
	struct pub_filter *nf = malloc(sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	*nf = *f;
	int e = pub_filter_normalise(nf);
	if (e < 0) {
		free(nf);
		return e;
	}
	if (p->nclients >= p->cfg.max_clients) {
		free(nf);
		return -EUSERS;
	}
	if (p->cfg.max_ring_bytes && p->ring_bytes + pub_ring_cost(p, capacity) > p->cfg.max_ring_bytes) {
		free(nf);
		p->budget_refusals++;
		return -ENOSPC;
	}
	uint32_t slot = 0;
	while (slot < p->cfg.max_clients && __atomic_load_n(&p->slots[slot], __ATOMIC_RELAXED))
		slot++;
	if (slot == p->cfg.max_clients) {
		free(nf);
		return -EUSERS;
	}
	struct pub_client *c = calloc(1, sizeof(*c));
	if (!c) {
		free(nf);
		return -ENOMEM;
	}
	c->efd = -1;
	c->data.fd = c->cons.fd = -1;
	c->filter = nf;
	c->id = p->next_id++;
	c->slot = slot;

	e = shm_region_create(&c->data, "toed-ring", toe_shm_data_bytes(capacity),
			      p->cfg.no_hugepages ? 0 : SHM_TRY_HUGETLB);
	if (e < 0)
		goto fail;
	if (!p->cfg.no_hugepages && !c->data.hugetlb)
		p->fallbacks++;
	e = shm_region_create(&c->cons, "toed-consumer", TOE_SHM_CONS_SIZE, 0);
	if (e < 0)
		goto fail;
	c->bytes = c->data.size + c->cons.size;
	c->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->efd < 0) {
		e = -errno;
		goto fail;
	}

	struct toe_shm_region *reg = c->data.base;
	memset(reg, 0, TOE_SHM_HDR_SIZE);
	reg->magic = TOE_SHM_MAGIC;
	reg->shm_version = TOE_SHM_VERSION;
	reg->abi_version = TOE_ABI_VERSION;
	reg->hdr_size = TOE_SHM_HDR_SIZE;
	reg->record_size = TOE_RECORD_SIZE;
	reg->capacity = capacity;
	reg->flags = c->data.hugetlb ? TOE_SHM_F_HUGETLB : 0;
	reg->region_size = c->data.size;
	reg->ring_offset = TOE_SHM_HDR_SIZE;
	reg->client_id = c->id;
	reg->producer_pid = (uint32_t)getpid();
	reg->epoch = p->epoch;
	reg->heartbeat_ns = shm_now_ns();
	reg->heartbeat_period_ns = p->cfg.heartbeat_period_ns;
	reg->state = TOE_SHM_STATE_LIVE;
	reg->busy_cpu = __atomic_load_n(&p->busy_cpu, __ATOMIC_RELAXED); /* pub_tick keeps it current */
	memset(c->cons.base, 0, TOE_SHM_CONS_SIZE);
	e = shm_region_seal_readonly(&c->data);
	if (e == 0)
		e = shm_region_seal_size(&c->cons);
	if (e < 0)
		goto fail;

	c->ring.reg = reg;
	c->ring.recs = (union toe_record *)((char *)c->data.base + TOE_SHM_HDR_SIZE);
	c->ring.cons = c->cons.base;
	c->ring.cap = capacity;
	c->ring.mask = capacity - 1;
	if (start != TOE_START_NOW && p->hist) {
		c->replay_pending = 1;
		c->replay_start = start;
		c->replay_arg = start_arg;
		__atomic_fetch_add(&p->replays, 1, __ATOMIC_RELEASE);
	}
	/* publish: everything above is visible to the producer once it sees the pointer */
	__atomic_store_n(&p->slots[slot], c, __ATOMIC_SEQ_CST);
	if (slot + 1 > __atomic_load_n(&p->hwm, __ATOMIC_RELAXED))
		__atomic_store_n(&p->hwm, slot + 1, __ATOMIC_RELEASE);
	p->nclients++;
	p->created++;
	p->ring_bytes += c->bytes;

	*out = c;
	if (info) {
		info->epoch = p->epoch;
		info->data_size = c->data.size;
		info->cons_size = c->cons.size;
		info->capacity = capacity;
		info->client_id = c->id;
		info->flags = reg->flags;
		info->data_fd = c->data.fd;
		info->cons_fd = c->cons.fd;
		info->event_fd = c->efd;
	}
	return 0;
fail:
	c->filter = NULL;
	free(nf);
	client_free(c);
	return e;
}

void pub_client_close_fds(struct pub_client *c)
{
	shm_region_close_fd(&c->data);
	shm_region_close_fd(&c->cons);
}

static void add_garbage(struct pub *p, struct pub_client *c, struct pub_filter *f)
{
	struct pub_garbage *g = calloc(1, sizeof(*g));
	uint64_t gen = __atomic_load_n(&p->gen, __ATOMIC_SEQ_CST);
	if (!g) {
		/* cannot defer: leak rather than free something the producer may read */
		return;
	}
	g->gen = gen;
	g->client = c;
	g->filter = f;
	g->next = p->garbage;
	p->garbage = g;
	if (c)
		p->nzombies++;
}

int pub_client_set_filter(struct pub *p, struct pub_client *c, const struct pub_filter *f)
{
	struct pub_filter *nf = malloc(sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	*nf = *f;
	int e = pub_filter_normalise(nf);
	if (e < 0) {
		free(nf);
		return e;
	}
	struct pub_filter *old = (struct pub_filter *)__atomic_exchange_n(&c->filter, nf, __ATOMIC_SEQ_CST);
	if (p->cfg.threaded)
		add_garbage(p, NULL, old);
	else
		free(old);
	return 0;
}

void pub_client_remove(struct pub *p, struct pub_client *c)
{
	/* tell the client first: a sleeping reader wakes and sees the ring closed */
	__atomic_store_n(&c->ring.reg->state, TOE_SHM_STATE_CLOSED, __ATOMIC_SEQ_CST);
	uint32_t bits = __atomic_exchange_n(&c->ring.cons->wait, 0, __ATOMIC_ACQ_REL);
	if (bits)
		wake(p, c, bits);
	__atomic_store_n(&p->slots[c->slot], NULL, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&c->replay_pending, 0, __ATOMIC_ACQ_REL))
		__atomic_fetch_sub(&p->replays, 1, __ATOMIC_RELAXED);
	p->nclients--;
	p->reclaimed++;
	if (p->cfg.threaded)
		add_garbage(p, c, NULL);
	else
		client_free_counted(p, c);
}

static void client_free_counted(struct pub *p, struct pub_client *c)
{
	p->ring_bytes -= c->bytes;
	client_free(c);
}

void pub_reclaim(struct pub *p)
{
	uint64_t gen = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
	struct pub_garbage **pp = &p->garbage;
	while (*pp) {
		struct pub_garbage *g = *pp;
		if (gen > g->gen) {
			*pp = g->next;
			if (g->client) {
				client_free_counted(p, g->client);
				p->nzombies--;
			}
			free(g->filter);
			free(g);
		} else {
			pp = &g->next;
		}
	}
}

void pub_destroy(struct pub *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->cfg.max_clients; i++) {
		struct pub_client *c = p->slots[i];
		if (c)
			pub_client_remove(p, c);
	}
	/* the producer has stopped: everything deferred can go */
	__atomic_store_n(&p->gen, UINT64_MAX, __ATOMIC_RELEASE);
	pub_reclaim(p);
	free(p->slots);
	free(p->wakeq);
	free(p->hist);
	free(p->hist_src);
	free(p);
}

void pub_client_get_stats(const struct pub_client *c, struct pub_client_stats *st)
{
	const struct toe_shm_region *reg = c->ring.reg;
	memset(st, 0, sizeof(*st));
	st->offered = __atomic_load_n(&reg->offered, __ATOMIC_RELAXED);
	st->dropped = __atomic_load_n(&reg->dropped, __ATOMIC_RELAXED);
	uint64_t head = __atomic_load_n(&reg->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&c->ring.cons->tail, __ATOMIC_RELAXED);
	st->backlog = head - tail > reg->capacity ? reg->capacity : head - tail;
	st->capacity = reg->capacity;
	st->client_id = c->id;
	st->hugetlb = c->data.hugetlb;
	/* the control thread writes the filter, so its own read needs no ordering */
	const struct pub_filter *f = c->filter;
	if (f && f->has_stream)
		memcpy(st->stream, f->stream, sizeof st->stream);
}

struct pub_client *pub_client_find(struct pub *p, uint32_t id)
{
	for (uint32_t i = 0; i < p->cfg.max_clients; i++) {
		struct pub_client *c = __atomic_load_n(&p->slots[i], __ATOMIC_RELAXED);
		if (c && c->id == id)
			return c;
	}
	return NULL;
}

void pub_get_stats(const struct pub *p, struct pub_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->epoch = p->epoch;
	st->clients = p->nclients;
	st->zombies = p->nzombies;
	st->published = __atomic_load_n(&p->published, __ATOMIC_RELAXED);
	st->delivered = __atomic_load_n(&p->delivered, __ATOMIC_RELAXED);
	st->dropped = __atomic_load_n(&p->dropped, __ATOMIC_RELAXED);
	st->wakeups = __atomic_load_n(&p->wakeups, __ATOMIC_RELAXED);
	st->rings_created = p->created;
	st->rings_reclaimed = p->reclaimed;
	st->hugepage_fallbacks = p->fallbacks;
	st->ring_bytes = p->ring_bytes;
	st->budget_refusals = p->budget_refusals;
}

/* ---- producer thread ---------------------------------------------------- */

static void finish_call(struct pub *p)
{
	__atomic_store_n(&p->gen, p->gen + 1, __ATOMIC_RELEASE);
}

/* Publish c's new records; a reader that was asleep is queued for wake_queued()
 * (once: its wait word is 0 now, so later commits return no bits until it
 * sleeps again, and then the bits are merged). */
static void commit(struct pub *p, struct pub_client *c, uint64_t seq0, uint64_t drop0)
{
	uint32_t bits = toe_ring_prod_commit(&c->ring);
	uint64_t offered = c->ring.seq - seq0, dropped = c->ring.dropped - drop0;
	if (offered) {
		__atomic_store_n(&p->delivered, p->delivered + (offered - dropped), __ATOMIC_RELAXED);
		if (dropped)
			__atomic_store_n(&p->dropped, p->dropped + dropped, __ATOMIC_RELAXED);
	}
	if (bits) {
		if (!c->wake_bits)
			p->wakeq[p->nwake++] = c; /* one entry per client: nwake <= max_clients */
		c->wake_bits |= bits;
	}
}

/* The system calls, after every ring is committed. The queued clients cannot
 * be freed meanwhile: the generation (finish_call) has not moved since they
 * were read from the slots. */
static unsigned wake_queued(struct pub *p)
{
	unsigned n = p->nwake;
	for (uint32_t i = 0; i < n; i++) {
		struct pub_client *c = p->wakeq[i];
		uint32_t bits = c->wake_bits;
		c->wake_bits = 0;
		wake(p, c, bits);
	}
	p->nwake = 0;
	return n;
}

/* Copy history into a new client's ring before it sees live records. The
 * scan is bounded by the history size (a one-off cost per subscription). */
static void replay(struct pub *p, struct pub_client *c)
{
	if (!__atomic_exchange_n(&c->replay_pending, 0, __ATOMIC_ACQ_REL))
		return;
	__atomic_fetch_sub(&p->replays, 1, __ATOMIC_RELAXED);
	const struct pub_filter *f = __atomic_load_n(&c->filter, __ATOMIC_ACQUIRE);
	uint64_t kept = p->hist_n < (uint64_t)p->cfg.history ? p->hist_n : p->cfg.history;
	uint64_t first = p->hist_n - kept, from = first;
	if (c->replay_start == TOE_START_LAST) {
		uint64_t want = c->replay_arg < c->ring.cap ? c->replay_arg : c->ring.cap, got = 0;
		from = p->hist_n;
		while (from > first && got < want) {
			from--;
			if (pub_filter_match(f, &p->hist[from & p->hist_mask], p->hist_src[from & p->hist_mask]))
				got++;
		}
	}
	uint64_t seq0 = c->ring.seq, drop0 = c->ring.dropped;
	for (uint64_t i = from; i < p->hist_n; i++) {
		const union toe_record *r = &p->hist[i & p->hist_mask];
		if (c->replay_start == TOE_START_MSG_SEQ && r->hdr.msg_seq < c->replay_arg)
			continue;
		if (pub_filter_match(f, r, p->hist_src[i & p->hist_mask]))
			toe_ring_prod_push(&c->ring, r);
	}
	commit(p, c, seq0, drop0);
}

unsigned pub_publish_nowake(struct pub *p, const union toe_record *recs, unsigned n)
{
	return pub_publish_src(p, recs, NULL, n);
}

/* recs[0..n) into the history ring: at most two copies (it wraps). */
static void hist_add(struct pub *p, const union toe_record *recs, const uint8_t *srcs, unsigned n)
{
	uint32_t at = (uint32_t)(p->hist_n & p->hist_mask), size = p->hist_mask + 1;
	uint32_t first = size - at < n ? size - at : n;
	memcpy(&p->hist[at], recs, (size_t)first * sizeof *recs);
	memcpy(&p->hist[0], recs + first, (size_t)(n - first) * sizeof *recs);
	if (srcs) {
		memcpy(&p->hist_src[at], srcs, first);
		memcpy(&p->hist_src[0], srcs + first, n - first);
	} else {
		memset(&p->hist_src[at], PUB_SRC_NONE, first);
		memset(&p->hist_src[0], PUB_SRC_NONE, n - first);
	}
	p->hist_n += n;
}

unsigned pub_publish_src(struct pub *p, const union toe_record *recs, const uint8_t *srcs, unsigned n)
{
	uint32_t hwm = __atomic_load_n(&p->hwm, __ATOMIC_ACQUIRE);
	uint64_t delivered0 = p->delivered;
	for (uint32_t s = 0; s < hwm; s++) {
		struct pub_client *c = __atomic_load_n(&p->slots[s], __ATOMIC_ACQUIRE);
		if (!c)
			continue;
		if (__atomic_load_n(&c->replay_pending, __ATOMIC_RELAXED))
			replay(p, c);
		const struct pub_filter *f = __atomic_load_n(&c->filter, __ATOMIC_ACQUIRE);
		uint64_t seq0 = c->ring.seq, drop0 = c->ring.dropped;
		if (!f->has_stream && !f->nchannels && !f->nsecurities) {
			/* by type alone (most subscriptions): pub_filter_match's first test,
			 * no call per record; the runs of records it takes pushed whole */
			for (unsigned i = 0; i < n;) {
				unsigned j = i;
				while (j < n && recs[j].hdr.type < 32 && (f->types >> recs[j].hdr.type & 1u))
					j++;
				if (j > i)
					toe_ring_prod_push_n(&c->ring, &recs[i], j - i);
				i = j + 1; /* (recs[j] is not taken) */
			}
		} else {
			for (unsigned i = 0; i < n; i++)
				if (pub_filter_match(f, &recs[i], srcs ? srcs[i] : PUB_SRC_NONE))
					toe_ring_prod_push(&c->ring, &recs[i]);
		}
		commit(p, c, seq0, drop0);
	}
	/* history after the fan-out, so a replay never repeats this batch */
	if (p->hist) {
		unsigned skip = n > p->hist_mask + 1u ? n - (p->hist_mask + 1u) : 0;
		/* (more than the history holds: the last ones overwrite the first) */
		p->hist_n += skip;
		hist_add(p, recs + skip, srcs ? srcs + skip : srcs, n - skip);
	}
	__atomic_store_n(&p->published, p->published + n, __ATOMIC_RELAXED);
	if (!p->nwake)
		finish_call(p); /* else pub_wake() ends the call: it still uses the queued clients */
	return (unsigned)(p->delivered - delivered0);
}

unsigned pub_wake(struct pub *p)
{
	unsigned n = wake_queued(p);
	finish_call(p);
	return n;
}

unsigned pub_publish(struct pub *p, const union toe_record *recs, unsigned n)
{
	unsigned d = pub_publish_nowake(p, recs, n);
	if (p->nwake)
		pub_wake(p);
	return d;
}

void pub_tick(struct pub *p, uint64_t now_ns)
{
	int replays = __atomic_load_n(&p->replays, __ATOMIC_ACQUIRE) != 0;
	int beat = now_ns >= p->next_hb;
	if (replays || beat) {
		uint32_t hwm = __atomic_load_n(&p->hwm, __ATOMIC_ACQUIRE);
		for (uint32_t s = 0; s < hwm; s++) {
			struct pub_client *c = __atomic_load_n(&p->slots[s], __ATOMIC_ACQUIRE);
			if (!c)
				continue;
			if (__atomic_load_n(&c->replay_pending, __ATOMIC_RELAXED))
				replay(p, c);
			if (beat) {
				__atomic_store_n(&c->ring.reg->heartbeat_ns, now_ns, __ATOMIC_RELAXED);
				__atomic_store_n(&c->ring.reg->busy_cpu, __atomic_load_n(&p->busy_cpu, __ATOMIC_RELAXED),
						 __ATOMIC_RELAXED);
			}
		}
		if (beat)
			p->next_hb = now_ns + p->cfg.heartbeat_period_ns;
	}
	wake_queued(p); /* replays' and any a caller left queued */
	finish_call(p);
}

void pub_set_busy_cpu(struct pub *p, int cpu)
{
	uint32_t v = cpu >= 0 ? (uint32_t)cpu + 1 : 0;
	if (v == __atomic_load_n(&p->busy_cpu, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&p->busy_cpu, v, __ATOMIC_RELAXED);
	p->next_hb = 0; /* the next pub_tick beats at once and writes it into every ring */
}

uint32_t pub_client_space(struct pub_client *c)
{
	return toe_ring_prod_space(&c->ring);
}
