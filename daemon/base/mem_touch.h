/* mem_touch.h - touch every page of a fresh mapping once, at set-up, so the hot path never does it first.
 *
 * MAP_POPULATE fills the page tables, and on bare metal or a KVM guest with
 * nested paging that is all a first access needs. Under shadow paging (the
 * PVM guests this project's CI and development machines run on) it is not:
 * the first access *from user space* to each 4 KB page still costs about
 * 6-7 us (measured: a first write to a populated shared page 7.1 us, a
 * first read of a populated anonymous page 6.7 us, the second access
 * 0.01 us), and a page the kernel filled (an AF_XDP frame) costs it again on
 * the reader's first look. Without this, the data plane met that cost on
 * the first use of every UMEM page and ring page: half of the frames of the
 * first lap of a 256 MB UMEM, every 32nd record of the first lap of a ring.
 * Once touched from user space, later writes by the kernel do not bring it
 * back. (libtoeclient and toe-fastdump, which do not link the daemon's
 * library, read their mappings' pages with a loop of their own.)
 */
#ifndef TOED_MEM_TOUCH_H
#define TOED_MEM_TOUCH_H

#include <stddef.h>

/* Write one byte of every 4 KB page of [p, p + len) with the value it
 * holds; only for memory nobody else writes yet (a mapping just made). */
void mem_touch_write(void *p, size_t len);

#endif
