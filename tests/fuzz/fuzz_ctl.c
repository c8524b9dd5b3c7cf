/* fuzz_ctl.c - libFuzzer target for the server's reading of control messages (daemon/ctl/ctl_proto.c).
 *
 * Input: byte 0 is the size of the output buffer given to a direct ctl_safe_name() call (0..255 ->
 * 1..256); the rest is what a client writes to the control socket, read as the server reads it: a
 * header, ctl_proto_frame() (a refusal ends the connection, as in the server), the body, then
 * ctl_proto_parse(); an incomplete last message is left unread. Every verdict is checked:
 *   - a refusal carries an errno and a sentence; HELLO, SUBSCRIBE, ADMIN and the empty requests are
 *     accepted only with the lengths the protocol gives them;
 *   - a HELLO's name comes out printable: no byte below 0x20, no DEL, valid UTF-8 (checked here with a
 *     decoder of our own), NUL-terminated inside CTL_SAFE_NAME_LEN, and it unescapes (\\ and \xNN)
 *     back to exactly the bytes sent, up to the first NUL;
 *   - a SUBSCRIBE's filter is normalised: a known, non-empty type mask, channels strictly increasing,
 *     securities non-empty, NUL-padded and strictly increasing, counts within the protocol's limits;
 *     a stream name (TOE_SUB_F_STREAM) only with its flag and only spelt as the configuration's names;
 *   - ctl_safe_name() into a short buffer never writes past it and never cuts an escape in two.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ctl/ctl_proto.h"

#define FUZZ_NAME "fuzz_ctl"
#include "fuzz_common.h"

/* 1 when s[0..n) is valid UTF-8 of printable characters: our own decoder, not ctl_utf8_printable. */
static int printable_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return 0;
			i++;
			continue;
		}
		size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
		if (!len || c >= 0xf8 || i + len > n)
			return 0;
		uint32_t cp = c & (0x7fu >> len);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3fu);
		}
		static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) || cp < 0xa0)
			return 0;
		i += len;
	}
	return 1;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Undo the escapes; returns the length, or -1 on a malformed escape. */
static int unescape(const char *in, unsigned char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; in[i]; o++) {
		if (o >= cap)
			return -1;
		if (in[i] != '\\') {
			out[o] = (unsigned char)in[i++];
			continue;
		}
		if (in[i + 1] == '\\') {
			out[o] = '\\';
			i += 2;
			continue;
		}
		if (in[i + 1] != 'x' || hexval(in[i + 2]) < 0 || hexval(in[i + 3]) < 0)
			return -1;
		out[o] = (unsigned char)(hexval(in[i + 2]) * 16 + hexval(in[i + 3]));
		i += 4;
	}
	return (int)o;
}

static void check_name(const char *raw, size_t rawlen, const char *safe, size_t cap)
{
	size_t n = strnlen(safe, cap);
	if (n >= cap)
		FAIL("name not terminated inside %zu bytes\n", cap);
	if (!printable_utf8((const unsigned char *)safe, n))
		FAIL("name not printable UTF-8: \"%s\"\n", safe);
	size_t want = strnlen(raw, rawlen);
	unsigned char back[4 * TOE_CTL_NAME_LEN + 4];
	int got = unescape(safe, back, sizeof(back));
	if (got < 0)
		FAIL("name with a malformed escape: \"%s\"\n", safe);
	if (cap >= 4 * want + 1) {
		if ((size_t)got != want || memcmp(back, raw, want) != 0)
			FAIL("name does not unescape to what was sent (%d of %zu bytes)\n", got, want);
	} else if ((size_t)got > want || memcmp(back, raw, (size_t)got) != 0) {
		FAIL("a cut name is not a prefix of what was sent\n");
	}
}

static void check_filter(const struct pub_filter *f)
{
	if (!f->types || (f->types & ~(uint32_t)TOE_TYPES_ALL))
		FAIL("filter types 0x%x\n", f->types);
	if (f->nchannels > TOE_CTL_MAX_CHANNELS || f->nsecurities > TOE_CTL_MAX_SECURITIES)
		FAIL("filter counts %u %u\n", f->nchannels, f->nsecurities);
	for (uint32_t i = 1; i < f->nchannels; i++)
		if (f->channels[i - 1] >= f->channels[i])
			FAIL("channels not strictly increasing at %u\n", i);
	for (uint32_t i = 0; i < f->nsecurities; i++) {
		const char *s = f->securities[i];
		size_t len = strnlen(s, TOE_SECURITY_ID_LEN);
		if (!len)
			FAIL("an empty security id was accepted\n");
		for (size_t k = len; k < TOE_SECURITY_ID_LEN; k++)
			if (s[k])
				FAIL("security id %u not NUL-padded\n", i);
		if (i && memcmp(f->securities[i - 1], s, TOE_SECURITY_ID_LEN) >= 0)
			FAIL("securities not strictly increasing at %u\n", i);
	}
}

static uint32_t expected_len(uint16_t type, const uint8_t *msg, uint32_t len)
{
	switch (type) {
	case TOE_CTL_HELLO: return sizeof(struct toe_ctl_hello);
	case TOE_CTL_UNSUBSCRIBE:
	case TOE_CTL_STATS: return sizeof(struct toe_ctl_hdr);
	case TOE_CTL_ADMIN: return sizeof(struct toe_ctl_admin);
	case TOE_CTL_SUBSCRIBE: {
		struct toe_ctl_subscribe m;
		if (len < sizeof(m))
			return UINT32_MAX;
		memcpy(&m, msg, sizeof(m));
		return toe_ctl_subscribe_size(m.nchannels, m.nsecurities, m.flags);
	}
	default: return UINT32_MAX;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pub_filter f;
	static _Alignas(8) uint8_t msg[TOE_CTL_MAX_MSG];
	if (size < 1)
		return 0;
	size_t cap = (size_t)data[0] + 1;
	data++;
	size--;

	/* the name sanitiser alone, into a buffer of any size */
	char out[257];
	memset(out, 0x55, sizeof(out));
	size_t rawlen = size < TOE_CTL_NAME_LEN ? size : TOE_CTL_NAME_LEN;
	size_t n = ctl_safe_name((const char *)data, rawlen, out, cap);
	if (n >= cap || out[n] != 0 || (cap < sizeof(out) && (unsigned char)out[cap] != 0x55))
		FAIL("ctl_safe_name wrote %zu bytes into %zu\n", n, cap);
	check_name((const char *)data, rawlen, out, cap);

	/* the stream of messages */
	size_t off = 0;
	while (size - off >= sizeof(struct toe_ctl_hdr)) {
		struct toe_ctl_hdr h;
		memcpy(&h, data + off, sizeof(h));
		const char *why = NULL;
		int err = ctl_proto_frame(&h, &why);
		if (err) {
			if (!why || (err != EPROTO && err != EBADMSG && err != EMSGSIZE))
				FAIL("framing refusal %d without its reason\n", err);
			break; /* the server closes the connection */
		}
		if (h.length < sizeof(h) || h.length > TOE_CTL_MAX_MSG)
			FAIL("framing accepted length %u\n", h.length);
		if (size - off < h.length)
			break; /* the rest has not come yet */
		memcpy(msg, data + off, h.length);
		off += h.length;
		struct ctl_request rq;
		int e = ctl_proto_parse(msg, h.length, &rq, &f);
		if (e != rq.err || rq.type != h.type || rq.id != h.id)
			FAIL("request summary does not match the header\n");
		if (e) {
			if (e < 0 || !rq.why || !*rq.why)
				FAIL("refusal %d without a reason\n", e);
			continue;
		}
		if (h.version != TOE_CTL_VERSION)
			FAIL("version %u accepted\n", h.version);
		if (h.length != expected_len(h.type, msg, h.length))
			FAIL("type %u accepted with length %u\n", h.type, h.length);
		if (h.type == TOE_CTL_HELLO)
			check_name(((const struct toe_ctl_hello *)msg)->name, TOE_CTL_NAME_LEN, rq.name, sizeof(rq.name));
		if (h.type == TOE_CTL_SUBSCRIBE) {
			check_filter(&f);
			/* a stream name only with its flag, and then one the configuration could give */
			if (f.has_stream != !!(((const struct toe_ctl_subscribe *)msg)->flags & TOE_SUB_F_STREAM) ||
			    (f.has_stream && !ctl_stream_name_ok(f.stream, sizeof f.stream)))
				FAIL("stream name accepted wrongly\n");
			if (rq.start > TOE_START_MSG_SEQ)
				FAIL("start %u accepted\n", rq.start);
		}
	}
	return 0;
}
