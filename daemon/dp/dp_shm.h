/* dp_shm.h - memfd shared-memory regions for the client rings (daemon side).
 *
 * A region is a memfd mapped read-write by the daemon. Data regions try 2 MB
 * huge pages first (MFD_HUGETLB) and fall back to normal pages with one
 * warning per process and a counter: never a failure because huge pages are
 * missing. Sealing fixes the size and, for data regions, forbids any new
 * writable mapping (the daemon's own mapping, made before sealing, stays
 * writable), so clients can only map the data read-only.
 */
#ifndef SHM_REGION_H
#define SHM_REGION_H

#include <stddef.h>
#include <stdint.h>

#define SHM_TRY_HUGETLB 0x1u

struct shm_region {
	void *base;
	size_t size; /* multiple of the page size used */
	int fd;      /* -1 once closed (the mapping stays) */
	int hugetlb; /* 1 when backed by 2 MB pages */
};

/* Create and map a region of at least size bytes. Returns 0 or -errno. */
int shm_region_create(struct shm_region *r, const char *name, size_t size, unsigned flags);

/* Seal a data region: no resizing, no new writable mapping or write(2). */
int shm_region_seal_readonly(struct shm_region *r);

/* Seal a shared-writable region against resizing only. */
int shm_region_seal_size(struct shm_region *r);

void shm_region_close_fd(struct shm_region *r);
void shm_region_destroy(struct shm_region *r);

/* Data regions that asked for huge pages and got normal ones (this process). */
uint64_t shm_hugepage_fallbacks(void);

/* Make sure at least `pages` 2 MB huge pages are reserved system-wide
 * (/proc/sys/vm/nr_hugepages; needs root). Fails soft: returns 0 when the
 * target is met, -errno otherwise; *total (may be NULL) receives the count
 * reserved afterwards. Never lowers the count. */
int shm_reserve_hugepages(unsigned long pages, unsigned long *total);

/* Give back the pages a shm_reserve_hugepages() added when it raised the count from
 * `before` to `after`: the count goes down by after - before, so pages others added since
 * stay. When the count is below `after` now, someone lowered it meanwhile and it is left
 * alone (-EBUSY). 0, or -errno; *now (may be NULL) receives the count afterwards. */
int shm_release_hugepages(unsigned long before, unsigned long after, unsigned long *now);

/* Read /proc/sys/vm/nr_hugepages (0 when unreadable). */
unsigned long shm_hugepages_reserved(void);

/* A random nonzero 64-bit epoch for a new producer instance. */
uint64_t shm_new_epoch(void);

/* CLOCK_MONOTONIC in ns. */
uint64_t shm_now_ns(void);

#endif
