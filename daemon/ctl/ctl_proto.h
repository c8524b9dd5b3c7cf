/* ctl_proto.h - the server's reading of control messages (toe/ctl.h), without sockets.
 *
 * ctl_server.c owns the sockets and the replies; everything it decides about
 * the bytes a client sent is here, as pure functions a fuzzer can drive
 * (tests/fuzz/fuzz_ctl.c): the header's framing, each request's length and
 * fields, the SUBSCRIBE filter (a stream name is checked for its spelling
 * here and resolved by the server), and the client's self-chosen name, which is
 * made safe to print once, on receipt.
 */
#ifndef CTL_PROTO_H
#define CTL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "dp/dp_pub.h"
#include "toe/ctl.h"

/* A name made safe: printable ASCII and printable UTF-8 kept, every other byte as \xNN, a backslash doubled. */
#define CTL_SAFE_NAME_LEN (4 * TOE_CTL_NAME_LEN + 1)

/* A request, read and checked. err != 0: answer ERROR err with why (the connection stays). */
struct ctl_request {
	uint16_t type;
	uint32_t id;
	int err;
	const char *why;
	char name[CTL_SAFE_NAME_LEN]; /* HELLO */
	uint32_t capacity;            /* SUBSCRIBE */
	uint32_t start;
	uint64_t start_arg;
	uint32_t cmd;                 /* ADMIN */
	uint32_t flags;
};

/* Check a header before its body is read. Returns 0, or a positive errno with
 * *why when the framing is lost (bad magic, a length outside [header, TOE_CTL_MAX_MSG]):
 * answer ERROR and close the connection. */
int ctl_proto_frame(const struct toe_ctl_hdr *h, const char **why);

/* Read a whole message (len == its header's length, framing already checked).
 * Fills rq (and *f, normalised, for SUBSCRIBE). Returns rq->err. */
int ctl_proto_parse(const void *msg, uint32_t len, struct ctl_request *rq, struct pub_filter *f);

/* Whether name[0..len) is a stream name: 1..len-1 letters, digits, '_', '-', '.' (the
 * configuration's names), NUL-padded to len. */
int ctl_stream_name_ok(const char *name, size_t len);

/* Length of a valid, printable UTF-8 sequence at s (at most n bytes), or 0:
 * overlong forms, surrogates, values past U+10FFFF, C1 controls and the
 * invisible direction and line controls (U+200E/F, U+2028/9, U+202A-E,
 * U+2066-9, U+FEFF) are not printable. ASCII: 1 for 0x20..0x7e, else 0. */
size_t ctl_utf8_printable(const unsigned char *s, size_t n);

/* Make raw (up to rawlen bytes or its NUL) safe to print; out holds CTL_SAFE_NAME_LEN
 * bytes when rawlen <= TOE_CTL_NAME_LEN. Returns strlen(out). */
size_t ctl_safe_name(const char *raw, size_t rawlen, char *out, size_t outlen);

#endif
