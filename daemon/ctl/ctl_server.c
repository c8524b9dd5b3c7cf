/* ctl_server.c - control-socket server: framing, validation, SCM_RIGHTS hand-over (see ctl_server.h). */
#include "ctl/ctl_server.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "ctl/ctl_fds.h"

#define CTL_DEFAULT_MAX_CONNS 256u
#define CTL_DEFAULT_MSGS_PER_EVENT 16u
#define CTL_MAX_PEER_GROUPS 256
#define CTL_ACCEPT_BATCH 64

struct ctl_conn {
	int fd;
	struct ucred cred;
	uint32_t have; /* bytes of the current message in buf */
	int spoke;     /* a whole request came: the handshake timeout no longer applies */
	uint64_t since_ns;
	uint64_t ring_bytes; /* pub_ring_cost of its ring, 0 without one */
	struct pub_client *pc;
	struct pub_client_info info;
	char name[CTL_SAFE_NAME_LEN];
	_Alignas(8) uint8_t buf[TOE_CTL_MAX_MSG];
};

/* A log line at most once a second per kind, with the count since the last one. */
struct ctl_ratelog {
	uint64_t last_ns;
	uint64_t missed;
};

struct ctl_server {
	struct ctl_config cfg;
	struct pub *pub;
	int lfd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;
	ino_t ino;
	struct ctl_conn **conns;
	uint32_t nconns;
	struct ctl_stats st;
	struct pollfd *pfds;
	int listen_paused;          /* accept ran out of descriptors: not watched until resume_ns */
	uint64_t resume_ns;
	int accept_logged;          /* the current shortage was logged */
	struct ctl_ratelog log_full, log_uid, log_handshake, log_fds, log_budget_uid, log_budget_all;
	struct pub_filter filter; /* scratch for SUBSCRIBE (large) */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 1 when a line may be logged now; *missed then holds how many were held back before it. */
static int ratelog(struct ctl_ratelog *r, uint64_t *missed)
{
	uint64_t t = now_ns();
	if (r->last_ns && t - r->last_ns < 1000000000ull) {
		r->missed++;
		return 0;
	}
	r->last_ns = t;
	*missed = r->missed;
	r->missed = 0;
	return 1;
}

/* ---- socket file -------------------------------------------------------- */

static int resolve_group(const char *g, gid_t *gid)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(g, &end, 10);
	if (*g && !*end && errno == 0) {
		*gid = (gid_t)v;
		return 0;
	}
	char buf[4096];
	struct group grp, *res = NULL;
	int e = getgrnam_r(g, &grp, buf, sizeof(buf), &res);
	if (e)
		return -e;
	if (!res)
		return -ENOENT;
	*gid = res->gr_gid;
	return 0;
}

static int make_parent_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int open_listener(struct ctl_server *s)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char tmp[sizeof(sa.sun_path)];
	struct stat st;
	if (strlen(s->path) == 0)
		return -EINVAL;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", s->path, (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	if (lstat(s->path, &st) == 0 && !S_ISSOCK(st.st_mode))
		return -EEXIST; /* never clobber something that is not a socket */
	int e = make_parent_dir(s->path);
	if (e < 0)
		return e;
	gid_t gid = (gid_t)-1;
	if (s->cfg.group && (e = resolve_group(s->cfg.group, &gid)) < 0)
		return e;

	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", tmp);
	unlink(tmp);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	if (gid != (gid_t)-1 && chown(tmp, (uid_t)-1, gid) < 0)
		goto fail_unlink;
	if (chmod(tmp, s->cfg.mode) < 0)
		goto fail_unlink;
	if (listen(fd, 64) < 0)
		goto fail_unlink;
	/* accepted connections inherit it: nobody can push a descriptor at us */
	s->st.refuses_fds = ctl_fds_refuse(fd) == 0;
	if (rename(tmp, s->path) < 0)
		goto fail_unlink;
	if (stat(s->path, &st) == 0) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
	}
	s->lfd = fd;
	return 0;
fail_unlink:
	e = -errno;
	unlink(tmp);
	close(fd);
	return e;
fail:
	e = -errno;
	close(fd);
	return e;
}

struct ctl_server *ctl_server_open(const struct ctl_config *cfg, struct pub *pub, int *err)
{
	struct ctl_server *s = calloc(1, sizeof(*s));
	int e = -ENOMEM;
	if (!s)
		goto fail;
	if (cfg)
		s->cfg = *cfg;
	else
		s->cfg.allow_gid = -1;
	s->pub = pub;
	s->lfd = -1;
	if (!s->cfg.mode)
		s->cfg.mode = 0660;
	if (!s->cfg.max_conns)
		s->cfg.max_conns = CTL_DEFAULT_MAX_CONNS;
	if (!s->cfg.msgs_per_event)
		s->cfg.msgs_per_event = CTL_DEFAULT_MSGS_PER_EVENT;
	if (s->cfg.admin_reserve >= s->cfg.max_conns)
		s->cfg.admin_reserve = s->cfg.max_conns - 1;
	const char *path = s->cfg.path ? s->cfg.path : TOE_CTL_DEFAULT_PATH;
	e = -ENAMETOOLONG;
	if ((size_t)snprintf(s->path, sizeof(s->path), "%s", path) >= sizeof(s->path))
		goto fail;
	s->cfg.path = s->path;
	e = -ENOMEM;
	s->conns = calloc(s->cfg.max_conns, sizeof(s->conns[0]));
	s->pfds = calloc(s->cfg.max_conns + 1, sizeof(s->pfds[0]));
	if (!s->conns || !s->pfds)
		goto fail;
	e = open_listener(s);
	if (e < 0)
		goto fail;
	if (s->cfg.on_fd)
		s->cfg.on_fd(s->cfg.arg, s->lfd, 1);
	if (err)
		*err = 0;
	return s;
fail:
	if (s) {
		free(s->conns);
		free(s->pfds);
		free(s);
	}
	if (err)
		*err = e;
	return NULL;
}

int ctl_server_listen_fd(const struct ctl_server *s)
{
	return s->lfd;
}

/* ---- replies ------------------------------------------------------------ */

/* Send one whole message without waiting; fds (may be NULL) go with it. */
static int send_msg(struct ctl_server *s, struct ctl_conn *c, const void *msg, size_t len, const int *fds, int nfds)
{
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	union {
		char buf[CMSG_SPACE(sizeof(int) * TOE_CTL_NFDS)];
		struct cmsghdr align;
	} cm;
	if (nfds > 0) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *ch = CMSG_FIRSTHDR(&mh);
		ch->cmsg_level = SOL_SOCKET;
		ch->cmsg_type = SCM_RIGHTS;
		ch->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(ch), fds, sizeof(int) * (size_t)nfds);
	}
	ssize_t n = sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0 || errno == EAGAIN || errno == EWOULDBLOCK)
		s->st.slow_clients++;
	return -EPIPE;
}

static int send_error(struct ctl_server *s, struct ctl_conn *c, uint32_t id, uint16_t ref_type, int err,
		      const char *text)
{
	struct toe_ctl_error m;
	memset(&m, 0, sizeof(m));
	toe_ctl_hdr_init(&m.hdr, TOE_CTL_ERROR, sizeof(m), id);
	m.error = err;
	m.ref_type = ref_type;
	snprintf(m.text, sizeof(m.text), "%s", text);
	s->st.bad_messages++;
	return send_msg(s, c, &m, sizeof(m), NULL, 0);
}

/* ---- connections -------------------------------------------------------- */

static void conn_close(struct ctl_server *s, uint32_t i)
{
	struct ctl_conn *c = s->conns[i];
	if (c->pc)
		pub_client_remove(s->pub, c->pc);
	if (s->cfg.on_fd)
		s->cfg.on_fd(s->cfg.arg, c->fd, 0);
	close(c->fd);
	free(c);
	s->conns[i] = s->conns[--s->nconns];
	s->conns[s->nconns] = NULL;
	pub_reclaim(s->pub);
}

static int peer_allowed(const struct ctl_server *s, int fd, const struct ucred *cr)
{
	if (s->cfg.allow_gid < 0 || cr->uid == 0 || cr->gid == (gid_t)s->cfg.allow_gid)
		return 1;
	gid_t groups[CTL_MAX_PEER_GROUPS];
	socklen_t len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return 0;
	for (socklen_t i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == (gid_t)s->cfg.allow_gid)
			return 1;
	return 0;
}

static uint32_t conns_of_uid(const struct ctl_server *s, uid_t uid)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->nconns; i++)
		n += s->conns[i]->cred.uid == uid;
	return n;
}

/* root and the daemon's own uid: toectl's users */
static int is_admin(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* Out of descriptors (or memory) for accept: stop watching the listening socket for a while
 * instead of being woken at once, again and again, for the same pending connection. */
static void accept_backoff(struct ctl_server *s, int err)
{
	s->st.accept_errors++;
	s->st.accept_pauses++;
	s->listen_paused = 1;
	s->resume_ns = now_ns() + CTL_ACCEPT_BACKOFF_MS * 1000000ull;
	if (!s->accept_logged) {
		s->accept_logged = 1;
		log_warn("control socket: cannot accept a connection: %s (%u connections open); trying again every "
			 "%u ms (this is logged once until a connection is accepted again)",
			 strerror(err), s->nconns, CTL_ACCEPT_BACKOFF_MS);
	}
	if (s->cfg.on_fd)
		s->cfg.on_fd(s->cfg.arg, s->lfd, 0);
}

static void refuse_conn(struct ctl_server *s, int fd, int err, const char *text)
{
	struct ctl_conn tmpc = {.fd = fd};
	send_error(s, &tmpc, 0, 0, err, text);
	s->st.refused++;
	close(fd);
}

int ctl_server_accept(struct ctl_server *s)
{
	int accepted = 0;
	uint64_t missed;
	char why[192]; /* send_error cuts it to TOE_CTL_TEXT_LEN */
	/* a bounded batch: a client connecting in a loop cannot keep the control thread here
	 * (the listening socket stays readable and comes back on the next turn) */
	for (int batch = 0; batch < CTL_ACCEPT_BATCH && !s->listen_paused; batch++) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				accept_backoff(s, errno);
			break; /* EAGAIN: nothing more pending */
		}
		s->accept_logged = 0;
		struct ucred cr = {0};
		socklen_t len = sizeof(cr);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
			close(fd);
			continue;
		}
		int admin = is_admin(cr.uid);
		if (s->nconns >= s->cfg.max_conns ||
		    (!admin && s->nconns >= s->cfg.max_conns - s->cfg.admin_reserve)) {
			snprintf(why, sizeof(why), "too many connections (%u open%s)", s->nconns,
				 admin ? "" : "; the last ones are kept for root");
			if (ratelog(&s->log_full, &missed))
				log_warn("control socket: refused a connection from pid %d uid %u: %s [%" PRIu64
					 " more refused in the last second]", (int)cr.pid, (unsigned)cr.uid, why, missed);
			if (s->nconns < s->cfg.max_conns)
				s->st.uid_limit++; /* the admin reserve */
			refuse_conn(s, fd, EUSERS, why);
			continue;
		}
		uint32_t mine;
		if (!admin && s->cfg.max_conns_per_uid && (mine = conns_of_uid(s, cr.uid)) >= s->cfg.max_conns_per_uid) {
			snprintf(why, sizeof(why), "too many connections from uid %u (%u; the limit is %u)",
				 (unsigned)cr.uid, mine, s->cfg.max_conns_per_uid);
			if (ratelog(&s->log_uid, &missed))
				log_warn("control socket: refused a connection from pid %d: %s [%" PRIu64
					 " more refused in the last second]", (int)cr.pid, why, missed);
			s->st.uid_limit++;
			refuse_conn(s, fd, EUSERS, why);
			continue;
		}
		if (!peer_allowed(s, fd, &cr)) {
			struct ctl_conn tmpc = {.fd = fd};
			send_error(s, &tmpc, 0, 0, EACCES, "not a member of the daemon's client group");
			s->st.refused++;
			close(fd);
			continue;
		}
		struct ctl_conn *c = malloc(sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		memset(c, 0, offsetof(struct ctl_conn, buf));
		c->fd = fd;
		c->cred = cr;
		c->since_ns = now_ns();
		s->conns[s->nconns++] = c;
		s->st.accepted++;
		accepted++;
		if (s->cfg.on_fd)
			s->cfg.on_fd(s->cfg.arg, fd, 1);
	}
	return accepted;
}

/* ---- requests ----------------------------------------------------------- */

/* Each returns 0 to keep the connection, -1 to close it. */

static int reply_hello(struct ctl_server *s, struct ctl_conn *c, const struct toe_ctl_hdr *h,
		       const struct ctl_request *rq)
{
	memcpy(c->name, rq->name, sizeof(c->name));
	struct toe_ctl_hello_ok r;
	memset(&r, 0, sizeof(r));
	toe_ctl_hdr_init(&r.hdr, TOE_CTL_HELLO_OK, sizeof(r), h->id);
	r.epoch = pub_epoch(s->pub);
	r.server_pid = (uint32_t)getpid();
	r.default_capacity = pub_default_capacity(s->pub);
	r.max_capacity = pub_max_capacity(s->pub);
	r.history = pub_history(s->pub);
	r.max_channels = TOE_CTL_MAX_CHANNELS;
	r.max_securities = TOE_CTL_MAX_SECURITIES;
	return send_msg(s, c, &r, sizeof(r), NULL, 0);
}

static uint64_t ring_bytes_of_uid(const struct ctl_server *s, uid_t uid)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->nconns; i++)
		if (s->conns[i]->cred.uid == uid)
			n += s->conns[i]->ring_bytes;
	return n;
}

static int refuse_budget(struct ctl_server *s, struct ctl_conn *c, const struct toe_ctl_hdr *h, int err,
			 const char *text)
{
	uint64_t missed;
	s->st.over_budget++;
	if (ratelog(err == EDQUOT ? &s->log_budget_uid : &s->log_budget_all, &missed))
		log_warn("control socket: refused a ring to pid %d uid %u: %s [%" PRIu64 " more in the last second]",
			 (int)c->cred.pid, (unsigned)c->cred.uid, text, missed);
	return send_error(s, c, h->id, h->type, err, text);
}

/* A SUBSCRIBE's stream name into the filter's sources: 0, or an ERROR sent. */
static int resolve_stream(struct ctl_server *s, struct ctl_conn *c, const struct toe_ctl_hdr *h,
			  struct pub_filter *f, int *sent)
{
	char why[TOE_CTL_TEXT_LEN];
	const struct pub_stream *st;
	*sent = 0;
	if (!f->has_stream)
		return 0;
	st = pub_stream_find(s->cfg.streams, s->cfg.nstreams, f->stream);
	if (st && st->why) {
		*sent = 1;
		snprintf(why, sizeof why, "stream %.31s: %s", f->stream, st->why);
		return send_error(s, c, h->id, h->type, EOPNOTSUPP, why);
	}
	if (!st) {
		/* say which names there are, as far as the text goes */
		int n = snprintf(why, sizeof why, "no stream named %.31s; streams:", f->stream);
		for (uint32_t i = 0; i < s->cfg.nstreams && n > 0 && (size_t)n < sizeof why; i++)
			n += snprintf(why + n, sizeof why - (size_t)n, "%s %s", i ? "," : "", s->cfg.streams[i].name);
		if (!s->cfg.nstreams)
			snprintf(why, sizeof why, "no stream named %.31s: this daemon has no named streams", f->stream);
		*sent = 1;
		return send_error(s, c, h->id, h->type, ENOENT, why);
	}
	f->srcs[0] = st->srcs[0];
	f->srcs[1] = st->srcs[1];
	return 0;
}

static int reply_subscribe(struct ctl_server *s, struct ctl_conn *c, const struct toe_ctl_hdr *h,
			   const struct ctl_request *rq)
{
	struct pub_filter *f = &s->filter;
	int e, nfds = 0, fds[TOE_CTL_NFDS], sent;
	e = resolve_stream(s, c, h, f, &sent);
	if (sent)
		return e;
	if (!c->pc) {
		uint32_t cap = rq->capacity ? rq->capacity : pub_default_capacity(s->pub);
		uint64_t cost = pub_ring_cost(s->pub, cap), mine;
		char why[192]; /* send_error cuts it to TOE_CTL_TEXT_LEN */
		if (s->cfg.ring_bytes_per_uid && !is_admin(c->cred.uid) &&
		    (mine = ring_bytes_of_uid(s, c->cred.uid)) + cost > s->cfg.ring_bytes_per_uid) {
			snprintf(why, sizeof(why), "ring of %" PRIu64 " KiB over uid %u's budget (%" PRIu64 " of %" PRIu64
				 " KiB used)", cost >> 10, (unsigned)c->cred.uid, mine >> 10,
				 s->cfg.ring_bytes_per_uid >> 10);
			return refuse_budget(s, c, h, EDQUOT, why);
		}
		e = pub_client_add(s->pub, f, rq->capacity, rq->start, rq->start_arg, &c->pc, &c->info);
		if (e == -ENOSPC) {
			snprintf(why, sizeof(why), "ring of %" PRIu64 " KiB over the daemon's ring memory budget (%" PRIu64
				 " KiB used)", cost >> 10, pub_ring_bytes(s->pub) >> 10);
			return refuse_budget(s, c, h, ENOSPC, why);
		}
		if (e < 0)
			return send_error(s, c, h->id, h->type, -e,
					  e == -EINVAL ? "capacity must be a power of two within the daemon's limits"
					  : e == -EUSERS ? "too many subscriptions"
							 : "cannot create the ring");
		c->ring_bytes = cost;
		fds[0] = c->info.data_fd;
		fds[1] = c->info.cons_fd;
		fds[2] = c->info.event_fd;
		nfds = TOE_CTL_NFDS;
		s->st.subscribes++;
	} else {
		e = pub_client_set_filter(s->pub, c->pc, f);
		if (e < 0)
			return send_error(s, c, h->id, h->type, -e, "cannot change the filter");
	}
	struct toe_ctl_subscribed r;
	memset(&r, 0, sizeof(r));
	toe_ctl_hdr_init(&r.hdr, TOE_CTL_SUBSCRIBED, sizeof(r), h->id);
	r.epoch = c->info.epoch;
	r.data_size = c->info.data_size;
	r.cons_size = c->info.cons_size;
	r.capacity = c->info.capacity;
	r.client_id = c->info.client_id;
	r.flags = c->info.flags;
	r.nfds = (uint32_t)nfds;
	e = send_msg(s, c, &r, sizeof(r), nfds ? fds : NULL, nfds);
	if (nfds)
		pub_client_close_fds(c->pc); /* the client holds them now; our mappings stay */
	return e;
}

static int reply_stats(struct ctl_server *s, struct ctl_conn *c, const struct toe_ctl_hdr *h)
{
	struct pub_stats ps;
	pub_get_stats(s->pub, &ps);
	struct toe_ctl_stats_ok r;
	memset(&r, 0, sizeof(r));
	toe_ctl_hdr_init(&r.hdr, TOE_CTL_STATS_OK, sizeof(r), h->id);
	r.epoch = ps.epoch;
	r.clients = ps.clients;
	r.connections = s->nconns;
	r.published = ps.published;
	r.delivered = ps.delivered;
	r.dropped = ps.dropped;
	r.rings_created = ps.rings_created;
	r.rings_reclaimed = ps.rings_reclaimed;
	r.hugepage_fallbacks = ps.hugepage_fallbacks;
	r.bad_messages = s->st.bad_messages;
	r.hangups = s->st.hangups;
	return send_msg(s, c, &r, sizeof(r), NULL, 0);
}

/* toectl's requests: the daemon renders the answer, sent in as many parts as it needs. */
static int reply_admin(struct ctl_server *s, struct ctl_conn *c, const struct toe_ctl_hdr *h,
		       const struct ctl_request *rq)
{
	if (!s->cfg.on_admin)
		return send_error(s, c, h->id, h->type, EOPNOTSUPP, "this server answers no admin requests");
	struct ctl_peer peer = {.fd = c->fd, .pid = c->cred.pid, .uid = c->cred.uid, .gid = c->cred.gid,
				.client_id = c->pc ? c->info.client_id : 0};
	memcpy(peer.name, c->name, sizeof(peer.name));
	uint32_t cmd = rq->cmd, flags = rq->flags;
	char *text = NULL;
	size_t len = 0;
	int st = s->cfg.on_admin(s->cfg.arg, &peer, cmd, flags, &text, &len);
	if (!text)
		len = 0;
	if (len > 65536) {
		/* a long report: make room so that it goes out without waiting (best effort) */
		int sz = len > (1u << 24) ? 1 << 24 : (int)len + 65536;
		setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	const size_t max = TOE_CTL_MAX_MSG - sizeof(struct toe_ctl_admin_ok);
	uint8_t *buf = malloc(TOE_CTL_MAX_MSG);
	int e = buf ? 0 : -ENOMEM;
	size_t off = 0;
	while (!e) {
		size_t n = len - off < max ? len - off : max;
		struct toe_ctl_admin_ok r;
		memset(&r, 0, sizeof(r));
		toe_ctl_hdr_init(&r.hdr, TOE_CTL_ADMIN_OK, (uint32_t)(sizeof(r) + n), h->id);
		r.cmd = cmd;
		r.status = st < 0 ? (uint32_t)-st : 0;
		r.more = off + n < len;
		memcpy(buf, &r, sizeof(r));
		if (n)
			memcpy(buf + sizeof(r), text + off, n);
		e = send_msg(s, c, buf, sizeof(r) + n, NULL, 0);
		off += n;
		if (off >= len)
			break;
	}
	free(buf);
	free(text);
	return e;
}

static int dispatch(struct ctl_server *s, struct ctl_conn *c)
{
	struct toe_ctl_hdr h;
	struct ctl_request rq;
	memcpy(&h, c->buf, sizeof(h));
	c->spoke = 1;
	if (ctl_proto_parse(c->buf, h.length, &rq, &s->filter))
		return send_error(s, c, h.id, h.type, rq.err, rq.why);
	switch (h.type) {
	case TOE_CTL_HELLO:
		return reply_hello(s, c, &h, &rq);
	case TOE_CTL_SUBSCRIBE:
		return reply_subscribe(s, c, &h, &rq);
	case TOE_CTL_UNSUBSCRIBE:
		if (c->pc) {
			pub_client_remove(s->pub, c->pc);
			c->pc = NULL;
			c->ring_bytes = 0;
			memset(&c->info, 0, sizeof(c->info));
		}
		toe_ctl_hdr_init(&h, TOE_CTL_OK, sizeof(h), h.id);
		return send_msg(s, c, &h, sizeof(h), NULL, 0);
	case TOE_CTL_STATS:
		return reply_stats(s, c, &h);
	case TOE_CTL_ADMIN:
		return reply_admin(s, c, &h, &rq);
	default: /* ctl_proto_parse refused it */
		return send_error(s, c, h.id, h.type, EOPNOTSUPP, "unknown message type");
	}
}

/* Read what the current message still needs. Returns bytes read, 0 on
 * hang-up, -EAGAIN when nothing is waiting, -EPERM when descriptors came
 * with the bytes (they are disposed of: ctl_fds.h), other -errno on error. */
static ssize_t conn_recv(struct ctl_server *s, struct ctl_conn *c, size_t want)
{
	struct iovec iov = {.iov_base = c->buf + c->have, .iov_len = want};
	/* room for the most one message can carry: a truncated SCM_RIGHTS would have the
	 * kernel release the rest in this thread, with the very close we must not wait for */
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_FDS_MAX_PER_MSG)];
		struct cmsghdr align;
	} cm;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf)};
	ssize_t n;
	do
		n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	/* nobody has a reason to send us descriptors: dispose of them without waiting */
	size_t got = 0;
	for (struct cmsghdr *ch = CMSG_FIRSTHDR(&mh); ch; ch = CMSG_NXTHDR(&mh, ch)) {
		if (ch->cmsg_level != SOL_SOCKET || ch->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfd = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(ch) + i * sizeof(int), sizeof(int));
			ctl_fds_dispose(fd);
			s->st.fds_refused++;
			got++;
		}
	}
	if (got || (mh.msg_flags & MSG_CTRUNC)) {
		uint64_t missed;
		if (ratelog(&s->log_fds, &missed))
			log_warn("control socket: pid %d uid %u passed %zu descriptor%s: disposed of, connection closed [%" PRIu64
				 " more in the last second]", (int)c->cred.pid, (unsigned)c->cred.uid, got, got == 1 ? "" : "s",
				 missed);
		return -EPERM;
	}
	return n;
}

static uint32_t find_conn(const struct ctl_server *s, int fd)
{
	for (uint32_t i = 0; i < s->nconns; i++)
		if (s->conns[i]->fd == fd)
			return i;
	return UINT32_MAX;
}

int ctl_server_handle(struct ctl_server *s, int fd)
{
	uint32_t i = find_conn(s, fd);
	if (i == UINT32_MAX)
		return -ENOENT;
	struct ctl_conn *c = s->conns[i];
	for (unsigned msgs = 0; msgs < s->cfg.msgs_per_event;) {
		size_t need = sizeof(struct toe_ctl_hdr);
		if (c->have >= need) {
			struct toe_ctl_hdr h;
			memcpy(&h, c->buf, sizeof(h));
			need = h.length;
		}
		ssize_t n = conn_recv(s, c, need - c->have);
		if (n == -EAGAIN)
			return 1;
		if (n == -EPERM) {
			send_error(s, c, 0, 0, EPERM, "toed accepts no file descriptors: connection closed");
			conn_close(s, i);
			return 0;
		}
		if (n <= 0) {
			s->st.hangups++;
			conn_close(s, i);
			return 0;
		}
		c->have += (uint32_t)n;
		if (c->have < need)
			continue;
		if (need == sizeof(struct toe_ctl_hdr)) {
			/* a full header: check the framing before reading a body */
			struct toe_ctl_hdr h;
			memcpy(&h, c->buf, sizeof(h));
			const char *why = NULL;
			int err = ctl_proto_frame(&h, &why);
			if (err) {
				send_error(s, c, h.magic == TOE_CTL_MAGIC ? h.id : 0,
					   h.magic == TOE_CTL_MAGIC ? h.type : 0, err, why);
				conn_close(s, i);
				return 0;
			}
			if (h.length > sizeof(h))
				continue; /* now read the body */
		}
		msgs++;
		int rc = dispatch(s, c);
		c->have = 0;
		if (rc < 0) {
			conn_close(s, i);
			return 0;
		}
	}
	return 1;
}

void ctl_server_tick(struct ctl_server *s)
{
	uint64_t t = now_ns(), missed;
	if (s->listen_paused && t >= s->resume_ns) {
		s->listen_paused = 0;
		if (s->cfg.on_fd)
			s->cfg.on_fd(s->cfg.arg, s->lfd, 1);
	}
	if (!s->cfg.handshake_ms)
		return;
	uint64_t limit = (uint64_t)s->cfg.handshake_ms * 1000000ull;
	for (uint32_t i = s->nconns; i-- > 0;) {
		struct ctl_conn *c = s->conns[i];
		if (c->spoke || t - c->since_ns < limit)
			continue;
		char why[192]; /* send_error cuts it to TOE_CTL_TEXT_LEN */
		snprintf(why, sizeof(why), "no request within %u ms of connecting: connection closed", s->cfg.handshake_ms);
		if (ratelog(&s->log_handshake, &missed))
			log_notice("control socket: pid %d uid %u sent %s request within %u ms: closed [%" PRIu64
				   " more in the last second]", (int)c->cred.pid, (unsigned)c->cred.uid,
				   c->have ? "only part of a" : "no", s->cfg.handshake_ms, missed);
		send_error(s, c, 0, 0, ETIMEDOUT, why);
		s->st.handshake_timeouts++;
		conn_close(s, i);
	}
}

int ctl_server_poll(struct ctl_server *s, int timeout_ms)
{
	uint32_t n = 0;
	ctl_server_tick(s);
	/* a paused listener sits at an impossible descriptor: poll ignores negative ones */
	s->pfds[n++] = (struct pollfd){.fd = s->listen_paused ? -1 : s->lfd, .events = POLLIN};
	for (uint32_t i = 0; i < s->nconns; i++)
		s->pfds[n++] = (struct pollfd){.fd = s->conns[i]->fd, .events = POLLIN};
	int r = poll(s->pfds, n, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	int handled = 0;
	/* client fds first: handling them may reorder s->conns but not s->pfds */
	for (uint32_t k = 1; k < n; k++) {
		if (s->pfds[k].revents) {
			ctl_server_handle(s, s->pfds[k].fd);
			handled++;
		}
	}
	if (s->pfds[0].revents & POLLIN) {
		ctl_server_accept(s);
		handled++;
	}
	return handled;
}

void ctl_server_get_stats(const struct ctl_server *s, struct ctl_stats *st)
{
	*st = s->st;
	st->connections = s->nconns;
}

unsigned ctl_server_peers(const struct ctl_server *s, struct ctl_peer *out, unsigned max)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < s->nconns && n < max; i++, n++) {
		const struct ctl_conn *c = s->conns[i];
		out[n].fd = c->fd;
		out[n].pid = c->cred.pid;
		out[n].uid = c->cred.uid;
		out[n].gid = c->cred.gid;
		out[n].client_id = c->pc ? c->info.client_id : 0;
		memcpy(out[n].name, c->name, sizeof(out[n].name));
	}
	return n;
}

void ctl_server_close(struct ctl_server *s)
{
	if (!s)
		return;
	struct toe_ctl_bye bye;
	memset(&bye, 0, sizeof(bye));
	toe_ctl_hdr_init(&bye.hdr, TOE_CTL_BYE, sizeof(bye), 0);
	while (s->nconns) {
		send_msg(s, s->conns[0], &bye, sizeof(bye), NULL, 0);
		conn_close(s, 0);
	}
	if (s->lfd >= 0) {
		struct stat st;
		/* a newer daemon may own the path by now: leave its socket alone */
		if (stat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
			unlink(s->path);
		if (s->cfg.on_fd)
			s->cfg.on_fd(s->cfg.arg, s->lfd, 0);
		close(s->lfd);
	}
	free(s->conns);
	free(s->pfds);
	free(s);
}
