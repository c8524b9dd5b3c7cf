/* test_gtoe_direct.c - general TOE direct delivery (gtoe_direct_on, gtoe_settle): in-order bytes read from the frame.
 *
 * Crafted segments against an established connection (peer ISN 1000) whose
 * payloads live in a "frame" the test owns and poisons once it settled, as
 * the data plane gives a frame back to its source: the in-order segment is
 * read where it lies (peek returns the frame's address); what is left unread
 * moves into the receive buffer at gtoe_settle or at the next segment,
 * across the buffer's wrap too; a segment arriving with bytes unread, one
 * behind a hole and any with the mode off are copied; a FIN on a held
 * segment, a release and the slot's reuse (its old frame not given back)
 * leave nothing behind; bytes held when the peer resets stay readable.
 * Every byte read is checked against what the peer sent.
 */
#include "test.h"
#include "gtoe_harness.h"

#define MS 1000000ull

static struct gh h;
static uint8_t stream[70000]; /* the peer's bytes: stream[k] is sequence number 1001 + k */
static uint8_t frame[2048];   /* the current segment's payload, as in a received frame */

/* Peer data stream[off, off + n) in a fresh frame (the last one poisoned first). */
static void pdata(int32_t c, uint32_t off, uint32_t n, uint8_t flags)
{
	memset(frame, 0xee, sizeof frame);
	memcpy(frame, stream + off, n);
	gh_peer(&h, 1 * MS, (uint8_t)(TCP_ACK | flags), 1001 + off, h.g->conn[c].snd_nxt, 65535, frame, n, NULL);
}

/* The data plane's end of a frame: settle, then the frame's memory is reused. */
static void frame_back(void)
{
	gtoe_settle(h.g);
	memset(frame, 0xee, sizeof frame);
}

static int in_frame(const uint8_t *p) { return p >= frame && p < frame + sizeof frame; }

/* Peek: n bytes expected at stream offset off; returns the pointer. */
static const uint8_t *peek_is(int32_t c, uint32_t off, uint32_t n)
{
	const uint8_t *p = NULL;
	CHECK_EQ(gtoe_peek(h.g, c, &p), n);
	if (p && n)
		CHECK_MEM(p, stream + off, n);
	return p;
}

static int32_t setup(uint32_t rcv_buf, uint32_t direct)
{
	struct gtoe_cfg cfg;
	int32_t c;
	gtoe_cfg_default(&cfg);
	cfg.rcv_buf = rcv_buf;
	CHECK_EQ(gh_init(&h, &cfg), 0);
	gtoe_direct_on(h.g, direct);
	c = gh_connect(&h, 0, 1000, NULL);
	CHECK(c >= 0);
	CHECK_EQ(h.g->conn[c].state, GTOE_ESTABLISHED);
	return c;
}

/* The usual case: each segment read whole from its frame, nothing copied. */
static void test_whole_reads(void)
{
	int32_t c = setup(32768, 1);
	uint8_t *rb = h.g->buf + (uint64_t)c * (h.g->cfg.rcv_buf + h.g->cfg.snd_buf);
	for (uint32_t k = 0; k < 40; k++) { /* 40 x 1000 bytes: past the 32 KB buffer's wrap */
		pdata(c, k * 1000, 1000, 0);
		CHECK_EQ(gtoe_readable(h.g, c), 1000);
		CHECK(in_frame(peek_is(c, k * 1000, 1000)));
		CHECK_EQ(gtoe_consume(h.g, c, 1000), 1000);
		CHECK_EQ(gtoe_readable(h.g, c), 0);
		frame_back();
	}
	/* the receive buffer was never written */
	for (uint32_t k = 0; k < h.g->cfg.rcv_buf; k++)
		if (rb[k] != 0) {
			CHECK_EQ(rb[k], 0);
			break;
		}
	CHECK_EQ(h.g->conn[c].st.in_order, 40);
	CHECK_EQ(h.g->conn[c].st.direct_segs, 40);
	CHECK_EQ(h.g->conn[c].rcv_nxt, 1001 + 40000);
	gh_free(&h);
}

/* A partial read: the rest moves into the buffer at settle, and reads on from there. */
static void test_partial_then_settle(void)
{
	int32_t c = setup(32768, 1);
	const uint8_t *p;
	pdata(c, 0, 1400, 0);
	CHECK(in_frame(peek_is(c, 0, 1400)));
	CHECK_EQ(gtoe_consume(h.g, c, 300), 300);
	CHECK(in_frame(peek_is(c, 300, 1100)));
	frame_back();
	p = peek_is(c, 300, 1100);
	CHECK(!in_frame(p));
	/* gtoe_recv in two steps from the buffer */
	uint8_t out[2000];
	CHECK_EQ(gtoe_recv(h.g, c, out, 600), 600);
	CHECK_MEM(out, stream + 300, 600);
	CHECK_EQ(gtoe_recv(h.g, c, out, sizeof out), 500);
	CHECK_MEM(out, stream + 900, 500);
	/* settle with nothing held is harmless */
	gtoe_settle(h.g);
	CHECK_EQ(gtoe_readable(h.g, c), 0);
	/* and the next in-order segment is direct again */
	pdata(c, 1400, 1000, 0);
	CHECK(in_frame(peek_is(c, 1400, 1000)));
	gh_free(&h);
}

/* Bytes unread when the next segment comes: the next input settles them first, and copies. */
static void test_next_segment_settles(void)
{
	int32_t c = setup(32768, 1);
	const uint8_t *p;
	pdata(c, 0, 1000, 0);
	CHECK_EQ(gtoe_consume(h.g, c, 200), 200);
	/* the next frame is other memory; the held 800 bytes are settled by its input */
	static uint8_t frame2[1000];
	memcpy(frame2, stream + 1000, 1000);
	gh_peer(&h, 1 * MS, TCP_ACK, 2001, h.g->conn[c].snd_nxt, 65535, frame2, 1000, NULL);
	memset(frame, 0xee, sizeof frame);
	memset(frame2, 0xee, sizeof frame2);
	CHECK_EQ(gtoe_readable(h.g, c), 1800);
	p = peek_is(c, 200, 1800);
	CHECK(!in_frame(p));
	CHECK_EQ(gtoe_consume(h.g, c, 1800), 1800);
	frame_back();
	gh_free(&h);
}

/* The settle writes across the buffer's wrap. */
static void test_settle_wraps(void)
{
	int32_t c = setup(4096, 1);
	uint8_t out[4096];
	for (uint32_t k = 0; k < 3; k++) { /* rd_seq to 3000 of the 4096-byte buffer */
		pdata(c, k * 1000, 1000, 0);
		CHECK_EQ(gtoe_consume(h.g, c, 1000), 1000);
		frame_back();
	}
	pdata(c, 3000, 1400, 0); /* buffer positions 3001 - 4400 wrap at 4096 */
	CHECK(in_frame(peek_is(c, 3000, 1400)));
	CHECK_EQ(gtoe_consume(h.g, c, 50), 50);
	frame_back();
	CHECK_EQ(gtoe_recv(h.g, c, out, sizeof out), 1350);
	CHECK_MEM(out, stream + 3050, 1350);
	gh_free(&h);
}

/* Behind a hole, and with bytes unread, segments are copied; the mode off copies all. */
static void test_copied_cases(void)
{
	int32_t c = setup(32768, 1);
	uint8_t out[8000];
	pdata(c, 1000, 1000, 0); /* out of order: a hole at 0 */
	CHECK_EQ(gtoe_readable(h.g, c), 0);
	frame_back();
	pdata(c, 0, 1000, 0); /* fills the hole: ranges were held, so copied */
	CHECK_EQ(gtoe_readable(h.g, c), 2000);
	CHECK(!in_frame(peek_is(c, 0, 2000)));
	frame_back();
	pdata(c, 2000, 500, 0); /* 2000 bytes still unread: copied */
	CHECK(!in_frame(peek_is(c, 0, 2500)));
	frame_back();
	CHECK_EQ(gtoe_recv(h.g, c, out, sizeof out), 2500);
	CHECK_MEM(out, stream, 2500);
	CHECK_EQ(h.g->conn[c].st.direct_segs, 0);
	/* off: copied although nothing is unread */
	gtoe_direct_on(h.g, 0);
	pdata(c, 2500, 700, 0);
	CHECK(!in_frame(peek_is(c, 2500, 700)));
	frame_back();
	/* on again; turning it off settles what is held */
	CHECK_EQ(gtoe_consume(h.g, c, 700), 700);
	gtoe_direct_on(h.g, 1);
	pdata(c, 3200, 800, 0);
	CHECK(in_frame(peek_is(c, 3200, 800)));
	gtoe_direct_on(h.g, 0);
	memset(frame, 0xee, sizeof frame);
	CHECK(!in_frame(peek_is(c, 3200, 800)));
	gh_free(&h);
}

/* A FIN on the held segment is no byte; release discards what is held; the slot's next connection starts clean. */
static void test_fin_release_reuse(void)
{
	int32_t c = setup(32768, 1), c2;
	uint8_t out[2000];
	pdata(c, 0, 900, TCP_FIN);
	CHECK_EQ(h.g->conn[c].state, GTOE_CLOSE_WAIT);
	CHECK_EQ(gtoe_readable(h.g, c), 900);
	CHECK(in_frame(peek_is(c, 0, 900)));
	CHECK_EQ(gtoe_consume(h.g, c, 100), 100);
	frame_back();
	CHECK_EQ(gtoe_recv(h.g, c, out, sizeof out), 800);
	CHECK_MEM(out, stream + 100, 800);
	CHECK_EQ(gtoe_readable(h.g, c), 0);
	gh_free(&h);

	/* release with bytes held: nothing to read, settle copies nothing, the next connection reads its own */
	c = setup(32768, 1);
	pdata(c, 0, 1000, 0);
	CHECK_EQ(h.g->dir.len, 1000);
	CHECK_EQ(gtoe_release(h.g, c), GTOE_OK);
	CHECK_EQ(gtoe_readable(h.g, c), 0);
	CHECK_EQ(h.g->dir.len, 0);
	gtoe_abort(h.g, c);
	gh_out(&h, 2 * MS);
	gh_ev(&h);
	CHECK_EQ(h.g->conn[c].state, GTOE_FREE);
	/* the same slot for a new connection, the old frame not given back yet */
	c2 = gh_connect(&h, 3 * MS, 50000, NULL);
	CHECK_EQ(c2, c);
	CHECK_EQ(gtoe_readable(h.g, c2), 0);
	gtoe_settle(h.g); /* nothing to copy: the released bytes are gone */
	CHECK_EQ(gtoe_readable(h.g, c2), 0);
	static uint8_t frame3[600];
	memcpy(frame3, stream + 5000, 600);
	memset(frame, 0xee, sizeof frame);
	gh_peer(&h, 4 * MS, TCP_ACK, 50001, h.g->conn[c2].snd_nxt, 65535, frame3, 600, NULL);
	const uint8_t *p = peek_is(c2, 5000, 600);
	CHECK(p == frame3);
	/* the peer resets with bytes held: what was readable stays so, settled like any */
	uint32_t left = gtoe_readable(h.g, c2);
	gh_peer(&h, 5 * MS, TCP_RST, 50601, 0, 0, NULL, 0, NULL);
	CHECK_EQ(h.g->conn[c2].state, GTOE_CLOSED);
	CHECK_EQ(gtoe_readable(h.g, c2), left);
	memset(frame3, 0xee, sizeof frame3); /* the RST's input settled them */
	if (left)
		peek_is(c2, 5000, left);
	gh_free(&h);
}

int main(void)
{
	for (uint32_t k = 0; k < sizeof stream; k++)
		stream[k] = (uint8_t)(k * 131u + (k >> 8));
	test_whole_reads();
	test_partial_then_settle();
	test_next_segment_settles();
	test_settle_wraps();
	test_copied_cases();
	test_fin_release_reuse();
	return test_done("gtoe_direct");
}
