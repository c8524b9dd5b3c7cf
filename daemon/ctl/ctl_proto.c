/* ctl_proto.c - checking control messages and making client names printable (see ctl_proto.h). */
#include "ctl/ctl_proto.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int ctl_proto_frame(const struct toe_ctl_hdr *h, const char **why)
{
	if (h->magic != TOE_CTL_MAGIC) {
		*why = "bad magic: not a toed control message";
		return EPROTO;
	}
	if (h->length < sizeof(*h)) {
		*why = "length shorter than the header";
		return EBADMSG;
	}
	if (h->length > TOE_CTL_MAX_MSG) {
		*why = "message longer than TOE_CTL_MAX_MSG";
		return EMSGSIZE;
	}
	return 0;
}

static int refuse(struct ctl_request *rq, int err, const char *why)
{
	rq->err = err;
	rq->why = why;
	return err;
}

static int parse_subscribe(const uint8_t *msg, uint32_t len, struct ctl_request *rq, struct pub_filter *f)
{
	struct toe_ctl_subscribe m;
	if (len < sizeof(m))
		return refuse(rq, EBADMSG, "SUBSCRIBE length does not match its channel and security counts");
	memcpy(&m, msg, sizeof(m));
	if (m.flags & ~TOE_SUB_F_STREAM || m.reserved)
		return refuse(rq, EINVAL, "unknown SUBSCRIBE flags");
	if (len != toe_ctl_subscribe_size(m.nchannels, m.nsecurities, m.flags))
		return refuse(rq, EBADMSG, "SUBSCRIBE length does not match its channel and security counts");
	if (m.nchannels > TOE_CTL_MAX_CHANNELS || m.nsecurities > TOE_CTL_MAX_SECURITIES)
		return refuse(rq, EINVAL, "too many channels or securities");
	memset(f, 0, sizeof(*f));
	f->types = m.types;
	f->nchannels = m.nchannels;
	f->nsecurities = m.nsecurities;
	const uint8_t *p = msg + sizeof(m);
	memcpy(f->channels, p, 4u * m.nchannels);
	p += 4u * m.nchannels;
	memcpy(f->securities, p, (size_t)TOE_SECURITY_ID_LEN * m.nsecurities);
	p += (size_t)TOE_SECURITY_ID_LEN * m.nsecurities;
	if (m.flags & TOE_SUB_F_STREAM) {
		/* the server resolves the name into f->srcs; here only its spelling */
		memcpy(f->stream, p, TOE_CTL_STREAM_LEN);
		if (!ctl_stream_name_ok(f->stream, TOE_CTL_STREAM_LEN))
			return refuse(rq, EINVAL, "a stream name is 1..31 letters, digits, '_', '-', '.'");
		f->has_stream = 1;
	}
	if (pub_filter_normalise(f) < 0)
		return refuse(rq, EINVAL, "bad filter (unknown record type or empty security id)");
	if (m.start > TOE_START_MSG_SEQ)
		return refuse(rq, EINVAL, "unknown start position");
	rq->capacity = m.capacity;
	rq->start = m.start;
	rq->start_arg = m.start_arg;
	return 0;
}

int ctl_proto_parse(const void *msg, uint32_t len, struct ctl_request *rq, struct pub_filter *f)
{
	struct toe_ctl_hdr h;
	memset(rq, 0, sizeof(*rq));
	if (len < sizeof(h))
		return refuse(rq, EBADMSG, "length shorter than the header");
	memcpy(&h, msg, sizeof(h));
	rq->type = h.type;
	rq->id = h.id;
	if (h.length != len)
		return refuse(rq, EBADMSG, "length does not match the message");
	if (h.version != TOE_CTL_VERSION)
		return refuse(rq, EPROTONOSUPPORT, "unsupported protocol version");
	switch (h.type) {
	case TOE_CTL_HELLO: {
		struct toe_ctl_hello m;
		if (len != sizeof(m))
			return refuse(rq, EBADMSG, "HELLO has the wrong length");
		memcpy(&m, msg, sizeof(m));
		ctl_safe_name(m.name, sizeof(m.name), rq->name, sizeof(rq->name));
		return 0;
	}
	case TOE_CTL_SUBSCRIBE:
		return parse_subscribe(msg, len, rq, f);
	case TOE_CTL_UNSUBSCRIBE:
		return len == sizeof(h) ? 0 : refuse(rq, EBADMSG, "UNSUBSCRIBE has the wrong length");
	case TOE_CTL_STATS:
		return len == sizeof(h) ? 0 : refuse(rq, EBADMSG, "STATS has the wrong length");
	case TOE_CTL_ADMIN: {
		struct toe_ctl_admin m;
		if (len != sizeof(m))
			return refuse(rq, EBADMSG, "ADMIN has the wrong length");
		memcpy(&m, msg, sizeof(m));
		rq->cmd = m.cmd;
		rq->flags = m.flags;
		return 0;
	}
	default:
		return refuse(rq, EOPNOTSUPP, "unknown message type");
	}
}

int ctl_stream_name_ok(const char *name, size_t len)
{
	size_t n = 0;
	while (n < len && name[n]) {
		char ch = name[n];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
		      ch == '-' || ch == '.'))
			return 0;
		n++;
	}
	if (n == 0 || n >= len)
		return 0;
	for (size_t i = n; i < len; i++) /* NUL-padded: nothing hides after the name */
		if (name[i])
			return 0;
	return 1;
}

/* ---- printable names ------------------------------------------------------------- */

size_t ctl_utf8_printable(const unsigned char *s, size_t n)
{
	if (!n)
		return 0;
	unsigned c = s[0];
	if (c < 0x80)
		return c >= 0x20 && c < 0x7f ? 1 : 0;
	size_t len;
	uint32_t cp, min;
	if ((c & 0xe0) == 0xc0)
		len = 2, cp = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		len = 3, cp = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		len = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp < 0xa0) /* C1 controls */
		return 0;
	if (cp == 0x200e || cp == 0x200f || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff)
		return 0;
	return len;
}

size_t ctl_safe_name(const char *raw, size_t rawlen, char *out, size_t outlen)
{
	const unsigned char *s = (const unsigned char *)raw;
	size_t n = 0, o = 0;
	while (n < rawlen && s[n])
		n++;
	if (!outlen)
		return 0;
	for (size_t i = 0; i < n;) {
		size_t k = ctl_utf8_printable(s + i, n - i);
		char esc[5];
		const char *piece;
		size_t plen;
		if (k && s[i] != '\\') {
			piece = (const char *)s + i;
			plen = k;
		} else if (s[i] == '\\') {
			piece = "\\\\";
			plen = 2;
			k = 1;
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", s[i]);
			piece = esc;
			plen = 4;
			k = 1;
		}
		if (o + plen >= outlen)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		i += k;
	}
	out[o] = 0;
	return o;
}
