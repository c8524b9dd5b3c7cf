/* rx_sess.c - an RX_OUT_SESS entry as card-internal ring records (see rx_sess.h). */
#include "rx_sess.h"

uint32_t rx_sess_records(const struct rx_out *o)
{
	uint32_t n;
	if (o->reason != RX_SESS_MSG || o->len > TOE_CSESS_MAX_BYTES)
		return 1;
	n = ((uint32_t)o->len + TOE_CSESS_DATA - 1u) / TOE_CSESS_DATA;
	return n ? n : 1u;
}

void rx_sess_record(union toe_record *r, const struct rx_out *o, uint32_t k)
{
	struct toe_card_sess *cs = (struct toe_card_sess *)r->bytes;
	uint32_t i, n, base = k * TOE_CSESS_DATA;
	/* rx_pipe filled the fixed fields (type, stream, msg_seq, rx_ns, kind, msgtype, msg_len, msg_no) */
	for (i = 0; i < TOE_RECORD_SIZE; i++)
		r->bytes[i] = o->tick.bytes[i];
	cs->npieces = (uint16_t)rx_sess_records(o);
	cs->piece = (uint16_t)k;
	if (o->reason != RX_SESS_MSG)
		return; /* CLOSE or SEEN: rx_pipe set the kind */
	if (o->len > TOE_CSESS_MAX_BYTES) {
		cs->kind = TOE_CSESS_TOO_LONG;
		return;
	}
	n = (uint32_t)o->len > base ? (uint32_t)o->len - base : 0u;
	if (n > TOE_CSESS_DATA)
		n = TOE_CSESS_DATA;
	cs->len = (uint16_t)n;
	for (i = 0; i < TOE_CSESS_DATA; i++) {
		if (i >= n)
			break;
		cs->data[i] = o->data[base + i];
	}
}
