/* toe/ctl.h - the control protocol between toed and its clients (versioned).
 *
 * Transport: a Unix stream socket (TOE_CTL_DEFAULT_PATH unless configured;
 * clients honour $TOED_SOCKET). Every message, in both directions, starts
 * with struct toe_ctl_hdr; `length` counts the whole message, header
 * included, and never exceeds TOE_CTL_MAX_MSG. The header layout is fixed for
 * every protocol version: a peer can always frame a message and answer
 * "unsupported version" instead of guessing. All integers are host order
 * (the socket is local).
 *
 * Conversation: request -> one reply carrying the request's `id`.
 *   HELLO       -> HELLO_OK                    (optional; gives the daemon's epoch)
 *   SUBSCRIBE   -> SUBSCRIBED + 3 fds (SCM_RIGHTS: data memfd, consumer memfd,
 *                  eventfd, in that order; see toe/shm.h). A second SUBSCRIBE
 *                  on the same connection replaces the filter of the existing
 *                  ring and carries no fds (nfds = 0).
 *   UNSUBSCRIBE -> OK                          (the ring is reclaimed)
 *   STATS       -> STATS_OK
 *   ADMIN       -> ADMIN_OK, in one or more parts (the last has more = 0):
 *                  toectl's reports (status, stats, clients) and reload, as
 *                  text or JSON rendered by the daemon. Added within version
 *                  1: a daemon without them answers ERROR EOPNOTSUPP.
 *   anything malformed, unknown or refused -> ERROR (errno value + text).
 * After an ERROR for a bad magic, a length outside [header, TOE_CTL_MAX_MSG]
 * or a lost framing, the daemon closes the connection; other errors leave it
 * open. The daemon may send BYE before closing on shutdown. A connection that
 * closes releases its ring.
 *
 * Growing a message within version 1: a request's new part is announced by a
 * flag bit that older peers refuse ("unknown flags", ERROR EINVAL), so an old
 * daemon says no instead of misreading; a message without the flag keeps its
 * old layout and length, so old clients work with new daemons unchanged.
 * SUBSCRIBE's stream name (TOE_SUB_F_STREAM) came this way.
 *
 * Limits (the daemon's [shm] keys): a connection refused at once gets an ERROR
 * with id 0 and ref_type 0, then the close: EUSERS (too many connections, in
 * all or from this uid); a connection whose first whole request does not come
 * within the handshake timeout gets ERROR ETIMEDOUT (id 0) and is closed; a
 * SUBSCRIBE over the ring memory budgets gets ERROR EDQUOT (this uid's) or
 * ENOSPC (the daemon's). File descriptors are not accepted: the kernel refuses
 * them (Linux 6.16 and later, sendmsg fails with EPERM); an older kernel
 * delivers them and the daemon disposes of them and closes the connection with
 * ERROR EPERM (id 0). A client name is shown escaped (printable UTF-8 kept,
 * other bytes as \xNN).
 */
#ifndef TOE_CTL_H
#define TOE_CTL_H

#include <stdint.h>

#include "toe/tick.h"

#define TOE_CTL_MAGIC 0x43454f54u /* "TOEC" little-endian */
#define TOE_CTL_VERSION 1
#define TOE_CTL_MAX_MSG 8192
#define TOE_CTL_DEFAULT_PATH "/run/toed/toed.sock"
#define TOE_CTL_PATH_ENV "TOED_SOCKET"
#define TOE_CTL_NAME_LEN 32
#define TOE_CTL_TEXT_LEN 96
#define TOE_CTL_MAX_CHANNELS 64
#define TOE_CTL_MAX_SECURITIES 256
#define TOE_CTL_NFDS 3
#define TOE_CTL_STREAM_LEN 32 /* a stream name with its NUL: a feed's stream name, a group name, udp-PORT */

/* toe_ctl_subscribe.flags */
#define TOE_SUB_F_STREAM 0x1u /* a stream name (char[TOE_CTL_STREAM_LEN], NUL-padded) follows the securities:
				 only the records of that feed or arbitration group */

enum toe_ctl_type {
	TOE_CTL_HELLO = 1,
	TOE_CTL_HELLO_OK = 2,
	TOE_CTL_SUBSCRIBE = 3,
	TOE_CTL_SUBSCRIBED = 4,
	TOE_CTL_UNSUBSCRIBE = 5,
	TOE_CTL_OK = 6,
	TOE_CTL_STATS = 7,
	TOE_CTL_STATS_OK = 8,
	TOE_CTL_BYE = 9,
	TOE_CTL_ADMIN = 10,
	TOE_CTL_ADMIN_OK = 11,
	TOE_CTL_ERROR = 127,
};

/* Where a new subscription starts. */
enum toe_start {
	TOE_START_NOW = 0,     /* only records published from now on */
	TOE_START_LAST = 1,    /* first up to start_arg recent matching records from the daemon's history */
	TOE_START_MSG_SEQ = 2, /* first the history records whose msg_seq >= start_arg */
};

/* Bit of a record type in a type mask (toe_ctl_subscribe.types). A daemon
 * refuses bits of types it does not know (ERROR EINVAL): a client that names
 * TOE_REC_SESSION gets an error from a daemon older than it, one that asks for
 * every type (types 0) gets the types the daemon has. */
#define TOE_TYPE_BIT(t) (1u << (t))
#define TOE_TYPES_ALL (TOE_TYPE_BIT(TOE_REC_TRADE) | TOE_TYPE_BIT(TOE_REC_ORDER) | \
		       TOE_TYPE_BIT(TOE_REC_GAP) | TOE_TYPE_BIT(TOE_REC_RESET) | TOE_TYPE_BIT(TOE_REC_SESSION))

struct toe_ctl_hdr {
	uint32_t magic;   /* TOE_CTL_MAGIC */
	uint16_t version; /* TOE_CTL_VERSION */
	uint16_t type;    /* enum toe_ctl_type */
	uint32_t length;  /* whole message in bytes */
	uint32_t id;      /* chosen by the requester, echoed in the reply */
};

struct toe_ctl_hello {
	struct toe_ctl_hdr hdr;
	uint32_t flags; /* 0 */
	uint32_t reserved;
	char name[TOE_CTL_NAME_LEN]; /* client name for toectl, NUL-padded */
};

struct toe_ctl_hello_ok {
	struct toe_ctl_hdr hdr;
	uint64_t epoch;
	uint32_t server_pid;
	uint32_t default_capacity;
	uint32_t max_capacity;
	uint32_t history; /* records kept for TOE_START_LAST / TOE_START_MSG_SEQ */
	uint16_t max_channels;
	uint16_t max_securities;
	uint32_t reserved;
};

/* Followed by int32_t channels[nchannels] then char securities[nsecurities][16],
 * then with TOE_SUB_F_STREAM char stream[TOE_CTL_STREAM_LEN];
 * length == toe_ctl_subscribe_size(nchannels, nsecurities, flags). */
struct toe_ctl_subscribe {
	struct toe_ctl_hdr hdr;
	uint32_t types;    /* TOE_TYPE_BIT mask; 0 = every type */
	uint32_t capacity; /* ring records, power of two; 0 = daemon default */
	uint32_t start;    /* enum toe_start */
	uint16_t nchannels;   /* 0 = every channel */
	uint16_t nsecurities; /* 0 = every security */
	uint64_t start_arg;
	uint32_t flags; /* TOE_SUB_F_* */
	uint32_t reserved;
};

struct toe_ctl_subscribed {
	struct toe_ctl_hdr hdr;
	uint64_t epoch;
	uint64_t data_size; /* bytes of the data memfd */
	uint64_t cons_size; /* bytes of the consumer memfd */
	uint32_t capacity;
	uint32_t client_id;
	uint32_t flags; /* TOE_SHM_F_* */
	uint32_t nfds;  /* TOE_CTL_NFDS on a new ring, 0 when only the filter changed */
};

struct toe_ctl_stats_ok {
	struct toe_ctl_hdr hdr;
	uint64_t epoch;
	uint32_t clients;     /* rings in use */
	uint32_t connections;
	uint64_t published;   /* records given to the publisher */
	uint64_t delivered;   /* record copies written into rings */
	uint64_t dropped;     /* record copies dropped on full rings */
	uint64_t rings_created;
	uint64_t rings_reclaimed;
	uint64_t hugepage_fallbacks;
	uint64_t bad_messages;
	uint64_t hangups;
};

/* toe_ctl_admin.cmd */
enum toe_admin_cmd {
	TOE_ADMIN_STATUS = 1,  /* the daemon's state, live settings, key counters */
	TOE_ADMIN_STATS = 2,   /* counters of every block, per connection, stream and client */
	TOE_ADMIN_CLIENTS = 3, /* control connections and their rings */
	TOE_ADMIN_RELOAD = 4,  /* reload the configuration file (root or the daemon's user only) */
	TOE_ADMIN_LATENCY = 5, /* [dataplane] trace: percentiles of each stage inside toed */
	TOE_ADMIN_SEQ = 6,     /* [fast] sequence_check: per group and channel the sequence state */
};
#define TOE_ADMIN_F_JSON 0x1u /* the answer is one JSON document instead of text */

struct toe_ctl_admin {
	struct toe_ctl_hdr hdr;
	uint32_t cmd;   /* enum toe_admin_cmd */
	uint32_t flags; /* TOE_ADMIN_F_* */
};

/* Followed by hdr.length - sizeof(struct toe_ctl_admin_ok) bytes of the answer's
 * text (UTF-8, no NUL). A long answer comes in several messages with the same
 * id; the last one has more = 0 and carries the status. */
struct toe_ctl_admin_ok {
	struct toe_ctl_hdr hdr;
	uint32_t cmd;
	uint32_t status; /* 0, or a positive errno: EINVAL reload refused (bad file), EPERM not allowed */
	uint32_t more;   /* 1: another part follows */
	uint32_t reserved;
};

struct toe_ctl_error {
	struct toe_ctl_hdr hdr;
	int32_t error;     /* positive errno value */
	uint16_t ref_type; /* type of the message refused (0 when unknown) */
	uint16_t reserved;
	char text[TOE_CTL_TEXT_LEN]; /* NUL-terminated explanation */
};

struct toe_ctl_bye {
	struct toe_ctl_hdr hdr;
	uint32_t reason; /* 0 = daemon stopping */
	uint32_t reserved;
};

TOE_STATIC_ASSERT(sizeof(struct toe_ctl_hdr) == 16, "ctl header");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_hello) == 56, "hello");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_hello_ok) == 48, "hello_ok");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_subscribe) == 48, "subscribe");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_subscribed) == 56, "subscribed");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_stats_ok) == 96, "stats_ok");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_error) == 120, "error");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_bye) == 24, "bye");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_admin) == 24, "admin");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_admin_ok) == 32, "admin_ok");
TOE_STATIC_ASSERT(sizeof(struct toe_ctl_subscribe) + 4 * TOE_CTL_MAX_CHANNELS +
			  TOE_SECURITY_ID_LEN * TOE_CTL_MAX_SECURITIES + TOE_CTL_STREAM_LEN <= TOE_CTL_MAX_MSG,
		  "largest subscribe fits");

static inline void toe_ctl_hdr_init(struct toe_ctl_hdr *h, uint16_t type, uint32_t length, uint32_t id)
{
	h->magic = TOE_CTL_MAGIC;
	h->version = TOE_CTL_VERSION;
	h->type = type;
	h->length = length;
	h->id = id;
}

static inline uint32_t toe_ctl_subscribe_len(uint32_t nchannels, uint32_t nsecurities)
{
	return (uint32_t)sizeof(struct toe_ctl_subscribe) + 4u * nchannels +
	       (uint32_t)TOE_SECURITY_ID_LEN * nsecurities;
}

/* The length of a SUBSCRIBE with these counts and flags (TOE_SUB_F_STREAM adds the name). */
static inline uint32_t toe_ctl_subscribe_size(uint32_t nchannels, uint32_t nsecurities, uint32_t flags)
{
	return toe_ctl_subscribe_len(nchannels, nsecurities) + ((flags & TOE_SUB_F_STREAM) ? TOE_CTL_STREAM_LEN : 0u);
}

#endif
