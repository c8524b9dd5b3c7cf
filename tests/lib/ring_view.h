/* ring_view.h - a test's consumer of one publisher client: the client's fds mapped the way libtoeclient maps
 * them (the ring read-only, the consumer page read-write), without the library's handshake (test helper).
 */
#ifndef TOE_RING_VIEW_H
#define TOE_RING_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "toe/shm.h"

struct ring_view {
	struct toe_ring_cons r;
	void *data;
	size_t len;
	struct toe_shm_consumer *cons;
	uint64_t next_seq; /* the seq a reader expects next (1 at open) */
};

/* Map data_fd (data_size bytes, the region and its ring) and cons_fd (the consumer page, TOE_SHM_CONS_SIZE)
 * and set up v->r to read the ring: 0, or -1 when a mapping failed. */
int ring_view_open(struct ring_view *v, int data_fd, uint64_t data_size, int cons_fd);
void ring_view_close(struct ring_view *v);

#endif
