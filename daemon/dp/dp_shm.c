/* dp_shm.c - memfd regions with huge-page fallback and sealing (see dp_shm.h). */
#include "dp/dp_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/mem_touch.h"
#include "toe/shm.h"

#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21u << 26)
#endif
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

#define HUGEPAGES_PATH "/proc/sys/vm/nr_hugepages"

static uint64_t hugepage_fallbacks;
static int hugepage_warned;

uint64_t shm_hugepage_fallbacks(void)
{
	return __atomic_load_n(&hugepage_fallbacks, __ATOMIC_RELAXED);
}

static size_t round_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static int try_create(struct shm_region *r, const char *name, size_t size, unsigned mfd_flags, size_t page)
{
	size_t len = round_up(size, page);
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | mfd_flags);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	/* MAP_POPULATE: fault everything in now, not on the producer's hot path */
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		int e = -errno;
		close(fd);
		return e;
	}
	mem_touch_write(p, len); /* and from user space too (base/mem_touch.h) */
	r->base = p;
	r->size = len;
	r->fd = fd;
	r->hugetlb = (mfd_flags & MFD_HUGETLB) != 0;
	return 0;
}

int shm_region_create(struct shm_region *r, const char *name, size_t size, unsigned flags)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (size == 0)
		return -EINVAL;
	if (flags & SHM_TRY_HUGETLB) {
		int e = try_create(r, name, size, MFD_HUGETLB | MFD_HUGE_2MB, TOE_SHM_HUGE_PAGE);
		if (e == 0)
			return 0;
		__atomic_fetch_add(&hugepage_fallbacks, 1, __ATOMIC_RELAXED);
		if (!__atomic_exchange_n(&hugepage_warned, 1, __ATOMIC_RELAXED))
			fprintf(stderr,
				"toed: warning: no 2 MB huge page for shared rings (%s; vm.nr_hugepages=%lu):"
				" using normal pages (set hugepages in toed.conf; counted as hugepage_fallbacks)\n",
				strerror(-e), shm_hugepages_reserved());
	}
	long pg = sysconf(_SC_PAGESIZE);
	return try_create(r, name, size, 0, pg > 0 ? (size_t)pg : 4096);
}

int shm_region_seal_readonly(struct shm_region *r)
{
	if (fcntl(r->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) < 0)
		return -errno;
	return 0;
}

int shm_region_seal_size(struct shm_region *r)
{
	if (fcntl(r->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		return -errno;
	return 0;
}

void shm_region_close_fd(struct shm_region *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void shm_region_destroy(struct shm_region *r)
{
	shm_region_close_fd(r);
	if (r->base)
		munmap(r->base, r->size);
	r->base = NULL;
	r->size = 0;
}

unsigned long shm_hugepages_reserved(void)
{
	unsigned long n = 0;
	FILE *f = fopen(HUGEPAGES_PATH, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

int shm_reserve_hugepages(unsigned long pages, unsigned long *total)
{
	unsigned long have = shm_hugepages_reserved();
	int rc = 0;
	if (have < pages) {
		FILE *f = fopen(HUGEPAGES_PATH, "w");
		if (!f) {
			rc = -errno;
		} else {
			if (fprintf(f, "%lu\n", pages) < 0)
				rc = -EIO;
			if (fclose(f) != 0 && rc == 0)
				rc = -errno;
		}
		/* the kernel may reserve fewer than asked when memory is fragmented */
		have = shm_hugepages_reserved();
		if (rc == 0 && have < pages)
			rc = -ENOMEM;
	}
	if (total)
		*total = have;
	return rc;
}

static int write_hugepages(unsigned long n)
{
	int rc = 0;
	FILE *f = fopen(HUGEPAGES_PATH, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%lu\n", n) < 0)
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

int shm_release_hugepages(unsigned long before, unsigned long after, unsigned long *now)
{
	unsigned long have = shm_hugepages_reserved();
	int rc = 0;
	if (after <= before)
		;
	else if (have < after)
		rc = -EBUSY;
	else
		rc = write_hugepages(have - (after - before));
	if (now)
		*now = shm_hugepages_reserved();
	return rc;
}

uint64_t shm_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t shm_new_epoch(void)
{
	uint64_t e = 0;
	if (getrandom(&e, sizeof(e), GRND_NONBLOCK) != (ssize_t)sizeof(e)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		e = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16);
	}
	return e ? e : 1;
}
