/* ctl_server.h - the daemon's control socket: subscriptions and ring hand-over.
 *
 * A Unix stream socket speaking toe/ctl.h. The server owns no thread and never
 * blocks: every descriptor is non-blocking, and the daemon's event loop calls
 * ctl_server_accept() when the listening socket is readable and
 * ctl_server_handle() when a client socket is readable or hung up
 * (level-triggered: a call handles a bounded number of messages and the
 * descriptor stays readable if more are waiting). cfg.on_fd tells the loop
 * which descriptors to watch. ctl_server_poll() is a ready-made loop step
 * with poll(2) for tests and simple programs.
 *
 * The socket file is created under a temporary name, given its group and mode,
 * listening, then renamed into place, so it never exists with the wrong
 * permissions and a restarted daemon takes the path over atomically.
 * SO_PEERCRED is recorded for every connection; cfg.allow_gid adds a check on
 * top of the file permissions.
 *
 * What one client can cost is bounded (issue 10): descriptors passed to the
 * server are refused by the kernel or disposed of without waiting and the
 * connection dropped (ctl_fds.h); a connection must send its first request
 * within cfg.handshake_ms or is closed (ctl_server_tick); one uid holds at
 * most cfg.max_conns_per_uid connections and the last cfg.admin_reserve
 * connections are kept for root and the daemon's own uid, so toectl always
 * gets in; rings count against a total budget (pub_config.max_ring_bytes,
 * ENOSPC) and a per-uid one (cfg.ring_bytes_per_uid, EDQUOT); when accept
 * runs out of descriptors (EMFILE, ENFILE) the listening socket is not
 * watched for CTL_ACCEPT_BACKOFF_MS instead of failing in a loop. Every
 * refusal is an ERROR with a sentence, a counter, and a log line (at most
 * one a second per kind). Client names are made printable on receipt
 * (ctl_proto.h). Malformed, unknown or oversized messages get an
 * ERROR reply; only lost framing (bad magic, impossible length) also closes
 * that connection. A client whose socket buffer is full when the server
 * replies is disconnected (the server never waits for it). A hang-up removes
 * the client's ring (pub_client_remove).
 */
#ifndef CTL_SERVER_H
#define CTL_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl/ctl_proto.h"
#include "dp/dp_pub.h"

#define CTL_ACCEPT_BACKOFF_MS 250

struct ctl_peer {
	int fd;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	uint32_t client_id; /* 0: not subscribed */
	char name[CTL_SAFE_NAME_LEN]; /* printable (ctl_safe_name) */
};

struct ctl_config {
	const char *path;   /* NULL: TOE_CTL_DEFAULT_PATH */
	const char *group;  /* group name or number owning the socket; NULL: unchanged */
	unsigned mode;      /* socket file mode; 0: 0660 */
	uint32_t max_conns; /* 0: 256 */
	long allow_gid;     /* < 0: no check; else root, this gid or a supplementary member only */
	unsigned msgs_per_event; /* messages handled per ctl_server_handle() call; 0: 16 */
	uint32_t max_conns_per_uid; /* connections one uid may hold (not root); 0: no limit */
	uint32_t admin_reserve;     /* of max_conns, kept for root and the daemon's uid; 0: none */
	uint32_t handshake_ms;      /* first request due this long after connecting; 0: no limit */
	uint64_t ring_bytes_per_uid; /* ring memory one uid may hold (pub_ring_cost); 0: no limit */
	const struct pub_stream *streams; /* the names SUBSCRIBE may give (TOE_SUB_F_STREAM); kept by the caller */
	uint32_t nstreams;                /* 0: every stream name is refused (ENOENT) */
	void (*on_fd)(void *arg, int fd, int added); /* optional: watch / stop watching fd */
	void *arg;
	/* Optional: answer TOE_CTL_ADMIN (toectl). Put the answer in *text (malloc'd,
	 * *len bytes; the server frees it) and return 0, or a negative errno that
	 * becomes the answer's status (the text says why). NULL: ADMIN is refused
	 * with EOPNOTSUPP. Called from ctl_server_handle(). */
	int (*on_admin)(void *arg, const struct ctl_peer *peer, uint32_t cmd, uint32_t flags, char **text,
			size_t *len);
};

struct ctl_stats {
	uint32_t connections;
	uint64_t accepted;
	uint64_t refused;      /* over max_conns or not allowed */
	uint64_t hangups;      /* connections closed by the peer */
	uint64_t bad_messages; /* ERROR replies sent */
	uint64_t subscribes;
	uint64_t slow_clients; /* disconnected because a reply did not fit */
	uint64_t fds_refused;  /* descriptors clients passed us (kernels before 6.16; later ones refuse them) */
	uint64_t handshake_timeouts; /* closed: no request within handshake_ms */
	uint64_t uid_limit;    /* refused: max_conns_per_uid, or the admin reserve */
	uint64_t over_budget;  /* SUBSCRIBE refused: ring memory budget (total or per uid) */
	uint64_t accept_errors; /* accept failed for want of descriptors or memory */
	uint64_t accept_pauses; /* times the listening socket was left alone for CTL_ACCEPT_BACKOFF_MS */
	int refuses_fds;       /* 1: the kernel refuses descriptors for us (SO_PASSRIGHTS) */
};

struct ctl_server;

struct ctl_server *ctl_server_open(const struct ctl_config *cfg, struct pub *pub, int *err);
int ctl_server_listen_fd(const struct ctl_server *s);
/* Accept every pending connection; returns how many were accepted. */
int ctl_server_accept(struct ctl_server *s);
/* Service a client descriptor; returns 1 while it stays open, 0 once closed, -ENOENT if unknown. */
int ctl_server_handle(struct ctl_server *s, int fd);
/* Timers: close connections silent past handshake_ms, watch the listening socket again after a
 * back-off. Call every few tens of milliseconds (ctl_server_poll does). */
void ctl_server_tick(struct ctl_server *s);
/* One poll(2) round over the listening socket and all clients; returns events handled or -errno. */
int ctl_server_poll(struct ctl_server *s, int timeout_ms);
void ctl_server_get_stats(const struct ctl_server *s, struct ctl_stats *st);
/* Up to max connected peers into out; returns the count. */
unsigned ctl_server_peers(const struct ctl_server *s, struct ctl_peer *out, unsigned max);
/* Say BYE, drop every client's ring, close, and unlink the socket path if it is still ours. */
void ctl_server_close(struct ctl_server *s);

#endif
