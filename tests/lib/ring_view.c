/* ring_view.c - a test's consumer of one publisher client (see ring_view.h). */
#include "ring_view.h"

#include <string.h>
#include <sys/mman.h>

int ring_view_open(struct ring_view *v, int data_fd, uint64_t data_size, int cons_fd)
{
	memset(v, 0, sizeof(*v));
	v->len = data_size;
	v->data = mmap(NULL, v->len, PROT_READ, MAP_SHARED, data_fd, 0);
	v->cons = mmap(NULL, TOE_SHM_CONS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, cons_fd, 0);
	if (v->data == MAP_FAILED || v->cons == MAP_FAILED)
		return -1;
	const struct toe_shm_region *reg = v->data;
	v->r.reg = reg;
	v->r.recs = (const union toe_record *)((const char *)v->data + reg->ring_offset);
	v->r.cons = v->cons;
	v->r.cap = reg->capacity;
	v->r.mask = reg->capacity - 1;
	v->next_seq = 1;
	return 0;
}

void ring_view_close(struct ring_view *v)
{
	munmap(v->data, v->len);
	munmap(v->cons, TOE_SHM_CONS_SIZE);
}
