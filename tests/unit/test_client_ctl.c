/* test_client_ctl.c - the control protocol under abuse: garbage, wrong
 * version, truncated, oversized and unknown messages, bad filters, passed
 * descriptors, pipelining, half messages, floods, connection limits, peer
 * credentials, socket file permissions; a well-behaved client keeps being
 * served throughout. */
#include <grp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "test_client_harness.h"

static char dir[64], path[96];

static int send_bytes(int s, const void *b, size_t n)
{
	return send(s, b, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* Read one reply; returns its type, 0 on hang-up, -1 on timeout/error. */
static int recv_reply(int s, void *buf, size_t cap)
{
	struct toe_ctl_hdr *h = buf;
	ssize_t n = recv(s, h, sizeof(*h), MSG_WAITALL);
	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return 0;
	if (n != (ssize_t)sizeof(*h) || h->magic != TOE_CTL_MAGIC || h->length > cap)
		return -1;
	if (h->length > sizeof(*h) &&
	    recv(s, (char *)buf + sizeof(*h), h->length - sizeof(*h), MSG_WAITALL) != (ssize_t)(h->length - sizeof(*h)))
		return -1;
	return h->type;
}

static int expect_error(int s, int err)
{
	_Alignas(8) char buf[TOE_CTL_MAX_MSG];
	int t = recv_reply(s, buf, sizeof(buf));
	const struct toe_ctl_error *e = (const void *)buf;
	if (t != TOE_CTL_ERROR || e->error != err) {
		fprintf(stderr, "expected ERROR %d (%s), got type %d error %d\n", err, strerror(err), t,
			t == TOE_CTL_ERROR ? e->error : 0);
		return 0;
	}
	if (e->text[0] == 0 || memchr(e->text, 0, sizeof(e->text)) == NULL)
		return 0;
	return 1;
}

static int is_closed(int s)
{
	char b;
	ssize_t n = recv(s, &b, 1, 0);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

static int hello_ok(int s, uint32_t id)
{
	struct toe_ctl_hello m;
	memset(&m, 0, sizeof(m));
	toe_ctl_hdr_init(&m.hdr, TOE_CTL_HELLO, sizeof(m), id);
	strcpy(m.name, "raw");
	if (send_bytes(s, &m, sizeof(m)) < 0)
		return 0;
	_Alignas(8) char buf[256];
	const struct toe_ctl_hello_ok *r = (const void *)buf;
	return recv_reply(s, buf, sizeof(buf)) == TOE_CTL_HELLO_OK && r->hdr.id == id && r->epoch != 0 &&
	       r->max_channels == TOE_CTL_MAX_CHANNELS;
}

/* A SUBSCRIBE with the given fields; extra bytes of list data follow. */
static int send_subscribe(int s, uint32_t types, uint32_t cap, uint32_t start, uint16_t nch, uint16_t nsec,
			  uint32_t flags, uint32_t length, const void *extra, size_t extra_len)
{
	_Alignas(8) uint8_t buf[TOE_CTL_MAX_MSG];
	struct toe_ctl_subscribe *m = (void *)buf;
	memset(buf, 0, sizeof(buf));
	toe_ctl_hdr_init(&m->hdr, TOE_CTL_SUBSCRIBE, length, 7);
	m->types = types;
	m->capacity = cap;
	m->start = start;
	m->nchannels = nch;
	m->nsecurities = nsec;
	m->flags = flags;
	if (extra_len)
		memcpy(buf + sizeof(*m), extra, extra_len);
	return send_bytes(s, buf, length);
}

/* The good client: must keep getting every record. */
static struct toe_client *good;
static uint64_t good_next;

static int good_still_served(struct th_prod *p)
{
	union toe_record r[5];
	while (toe_read(good, r, 5, NULL) > 0) /* records published for other clients */
		;
	if (th_publish(p, good_next, 5) != 0)
		return 0;
	uint32_t n = th_read_n(good, r, 5, 2000);
	int ok = n == 5 && r[0].hdr.msg_seq == good_next + 1 && r[4].hdr.msg_seq == good_next + 5;
	if (!ok) {
		struct toe_stats st;
		toe_stats(good, &st);
		fprintf(stderr, "good: n=%u first=%llu want %llu; check %d; received %llu backlog %llu dropped %llu\n", n,
			(unsigned long long)r[0].hdr.msg_seq, (unsigned long long)good_next + 1, toe_check(good),
			(unsigned long long)st.received, (unsigned long long)st.backlog, (unsigned long long)st.dropped);
	}
	good_next += 5;
	return ok;
}

static void test_malformed(void)
{
	struct th_prod p;
	struct pub_config pc = {.no_hugepages = 1};
	CHECK_EQ(th_start(&p, path, &pc, NULL), 0);
	CHECK_EQ(toe_connect(&good, path, NULL), 0);
	CHECK_EQ(toe_subscribe(good, &(struct toe_sub){0}), 0);
	CHECK(good_still_served(&p));
	int s;

	/* garbage: error, then the connection is closed (the framing is lost) */
	s = th_connect(path, 2);
	CHECK_EQ(send_bytes(s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27), 0);
	CHECK(expect_error(s, EPROTO));
	CHECK(is_closed(s));
	close(s);
	s = th_connect(path, 2);
	uint8_t junk[300];
	for (int i = 0; i < 300; i++)
		junk[i] = (uint8_t)(i * 37 + 11);
	CHECK_EQ(send_bytes(s, junk, sizeof(junk)), 0);
	CHECK(expect_error(s, EPROTO));
	CHECK(is_closed(s));
	close(s);

	/* wrong version: error, connection kept, the right version works */
	s = th_connect(path, 2);
	struct toe_ctl_hello h;
	memset(&h, 0, sizeof(h));
	toe_ctl_hdr_init(&h.hdr, TOE_CTL_HELLO, sizeof(h), 1);
	h.hdr.version = 99;
	CHECK_EQ(send_bytes(s, &h, sizeof(h)), 0);
	CHECK(expect_error(s, EPROTONOSUPPORT));
	CHECK(hello_ok(s, 2));

	/* unknown type, and a reply type sent as a request */
	struct toe_ctl_hdr hd;
	toe_ctl_hdr_init(&hd, 55, sizeof(hd), 3);
	CHECK_EQ(send_bytes(s, &hd, sizeof(hd)), 0);
	CHECK(expect_error(s, EOPNOTSUPP));
	toe_ctl_hdr_init(&hd, TOE_CTL_HELLO_OK, sizeof(hd), 4);
	CHECK_EQ(send_bytes(s, &hd, sizeof(hd)), 0);
	CHECK(expect_error(s, EOPNOTSUPP));
	/* HELLO of the wrong size */
	toe_ctl_hdr_init(&hd, TOE_CTL_HELLO, sizeof(hd), 5);
	CHECK_EQ(send_bytes(s, &hd, sizeof(hd)), 0);
	CHECK(expect_error(s, EBADMSG));

	/* truncated SUBSCRIBE (shorter than its fixed part), counts that do not match the length */
	CHECK_EQ(send_subscribe(s, 0, 0, 0, 0, 0, 0, 20, NULL, 0), 0);
	CHECK(expect_error(s, EBADMSG));
	CHECK_EQ(send_subscribe(s, 0, 0, 0, 3, 0, 0, sizeof(struct toe_ctl_subscribe), NULL, 0), 0);
	CHECK(expect_error(s, EBADMSG));
	CHECK_EQ(send_subscribe(s, 0, 0, 0, 0, 1, 0, sizeof(struct toe_ctl_subscribe) + 8, "60000000", 8), 0);
	CHECK(expect_error(s, EBADMSG));
	/* well-formed but refused values */
	const uint32_t L = sizeof(struct toe_ctl_subscribe);
	CHECK_EQ(send_subscribe(s, 1u << 9, 0, 0, 0, 0, 0, L, NULL, 0), 0);
	CHECK(expect_error(s, EINVAL));
	CHECK_EQ(send_subscribe(s, 0, 100, 0, 0, 0, 0, L, NULL, 0), 0);
	CHECK(expect_error(s, EINVAL));
	CHECK_EQ(send_subscribe(s, 0, 1u << 30, 0, 0, 0, 0, L, NULL, 0), 0);
	CHECK(expect_error(s, EINVAL));
	CHECK_EQ(send_subscribe(s, 0, 0, 9, 0, 0, 0, L, NULL, 0), 0);
	CHECK(expect_error(s, EINVAL));
	CHECK_EQ(send_subscribe(s, 0, 0, 0, 0, 0, 2, L, NULL, 0), 0); /* 1 is TOE_SUB_F_STREAM */
	CHECK(expect_error(s, EINVAL));
	char empty_sec[16] = {0};
	CHECK_EQ(send_subscribe(s, 0, 0, 0, 0, 1, 0, L + 16, empty_sec, 16), 0);
	CHECK(expect_error(s, EINVAL));
	int32_t many[100] = {0};
	CHECK_EQ(send_subscribe(s, 0, 0, 0, 100, 0, 0, L + 400, many, 400), 0);
	CHECK(expect_error(s, EINVAL));
	/* after all that, the same connection can still subscribe */
	CHECK_EQ(send_subscribe(s, 0, 64, 0, 0, 0, 0, L, NULL, 0), 0);
	_Alignas(8) char buf[TOE_CTL_MAX_MSG];
	CHECK_EQ(recv_reply(s, buf, sizeof(buf)), TOE_CTL_SUBSCRIBED);
	/* ... and unsubscribe */
	toe_ctl_hdr_init(&hd, TOE_CTL_UNSUBSCRIBE, sizeof(hd), 9);
	CHECK_EQ(send_bytes(s, &hd, sizeof(hd)), 0);
	CHECK_EQ(recv_reply(s, buf, sizeof(buf)), TOE_CTL_OK);
	close(s);
	CHECK(good_still_served(&p));

	/* impossible lengths: error, then closed */
	s = th_connect(path, 2);
	toe_ctl_hdr_init(&hd, TOE_CTL_HELLO, 1u << 30, 10);
	CHECK_EQ(send_bytes(s, &hd, sizeof(hd)), 0);
	CHECK(expect_error(s, EMSGSIZE));
	CHECK(is_closed(s));
	close(s);
	s = th_connect(path, 2);
	toe_ctl_hdr_init(&hd, TOE_CTL_HELLO, TOE_CTL_MAX_MSG + 1, 10);
	CHECK_EQ(send_bytes(s, &hd, sizeof(hd)), 0);
	CHECK(expect_error(s, EMSGSIZE));
	close(s);
	s = th_connect(path, 2);
	toe_ctl_hdr_init(&hd, TOE_CTL_HELLO, 8, 11);
	CHECK_EQ(send_bytes(s, &hd, sizeof(hd)), 0);
	CHECK(expect_error(s, EBADMSG));
	CHECK(is_closed(s));
	close(s);

	/* half a message, then silence: nobody else waits for it */
	int half = th_connect(path, 2);
	CHECK_EQ(send_bytes(half, &h, 8), 0);
	/* half a message, then gone */
	s = th_connect(path, 2);
	memset(&h, 0, sizeof(h));
	toe_ctl_hdr_init(&h.hdr, TOE_CTL_HELLO, sizeof(h), 12);
	CHECK_EQ(send_bytes(s, &h, 30), 0);
	close(s);
	CHECK(good_still_served(&p));

	/* descriptors passed to the daemon: the kernel refuses them (SO_PASSRIGHTS, Linux 6.16 and
	 * later: sendmsg fails with EPERM and the connection goes on); an older kernel delivers them,
	 * and the daemon disposes of them and closes that connection with ERROR EPERM */
	struct th_ack a0;
	CHECK_EQ(th_stats(&p, &a0), 0);
	s = th_connect(path, 2);
	toe_ctl_hdr_init(&h.hdr, TOE_CTL_HELLO, sizeof(h), 13);
	int pass[2] = {0, 1};
	union {
		char b[CMSG_SPACE(sizeof(pass))];
		struct cmsghdr a;
	} cm;
	struct iovec iov = {.iov_base = &h, .iov_len = sizeof(h)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof(cm.b)};
	struct cmsghdr *ch = CMSG_FIRSTHDR(&mh);
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN(sizeof(pass));
	memcpy(CMSG_DATA(ch), pass, sizeof(pass));
	ssize_t sent = sendmsg(s, &mh, MSG_NOSIGNAL);
	if (a0.cs.refuses_fds) {
		CHECK(sent < 0 && errno == EPERM);
		CHECK_EQ(send_bytes(s, &h, sizeof(h)), 0);
		CHECK_EQ(recv_reply(s, buf, sizeof(buf)), TOE_CTL_HELLO_OK);
	} else {
		printf("note: this kernel delivers SCM_RIGHTS to the daemon (no SO_PASSRIGHTS): fallback path\n");
		CHECK_EQ(sent, (ssize_t)sizeof(h));
		CHECK(expect_error(s, EPERM));
		CHECK(is_closed(s));
		close(s);
		s = th_connect(path, 2);
	}

	/* pipelined requests are all answered, in order */
	static struct toe_ctl_hello many_h[40];
	for (int i = 0; i < 40; i++) {
		memset(&many_h[i], 0, sizeof(many_h[i]));
		toe_ctl_hdr_init(&many_h[i].hdr, TOE_CTL_HELLO, sizeof(many_h[i]), 100 + (uint32_t)i);
	}
	CHECK_EQ(send_bytes(s, many_h, sizeof(many_h)), 0);
	int order_ok = 1;
	for (int i = 0; i < 40; i++)
		order_ok &= recv_reply(s, buf, sizeof(buf)) == TOE_CTL_HELLO_OK &&
			    ((struct toe_ctl_hdr *)buf)->id == 100 + (uint32_t)i;
	CHECK(order_ok);

	/* STATS counts the refusals */
	toe_ctl_hdr_init(&hd, TOE_CTL_STATS, sizeof(hd), 200);
	CHECK_EQ(send_bytes(s, &hd, sizeof(hd)), 0);
	CHECK_EQ(recv_reply(s, buf, sizeof(buf)), TOE_CTL_STATS_OK);
	const struct toe_ctl_stats_ok *so = (const void *)buf;
	CHECK(so->bad_messages >= 19);
	CHECK(so->clients >= 1);
	CHECK(so->epoch != 0);
	close(s);

	/* a client that floods requests and never reads replies is dropped, not waited for */
	s = th_connect(path, 2);
	int fl = 1;
	setsockopt(s, SOL_SOCKET, SO_SNDBUF, &fl, sizeof(fl));
	uint64_t end = th_now() + 3000000000ull;
	struct th_ack a;
	int dropped = 0;
	while (!dropped && th_now() < end) {
		ssize_t n = send(s, many_h, sizeof(many_h), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN)
			break; /* EPIPE/ECONNRESET: the daemon hung up on us */
		if (n < 0) {
			CHECK_EQ(th_stats(&p, &a), 0);
			dropped = a.cs.slow_clients > 0;
		}
	}
	CHECK_EQ(th_stats(&p, &a), 0);
	CHECK(a.cs.slow_clients >= 1);
	close(s);
	CHECK(a.cs.fds_refused == (a0.cs.refuses_fds ? 0u : 2u));
	CHECK(good_still_served(&p));
	close(half);

	/* a fresh client still gets a ring */
	struct toe_client *late;
	CHECK_EQ(toe_connect(&late, path, NULL), 0);
	CHECK_EQ(toe_subscribe(late, &(struct toe_sub){.capacity = 64}), 0);
	CHECK_EQ(th_publish(&p, 0, 3), 0);
	union toe_record r[3];
	CHECK_EQ(th_read_n(late, r, 3, 2000), 3);
	toe_close(late);
	CHECK(good_still_served(&p));
	toe_close(good);
	th_quit(&p);
}

static void test_limits_and_perms(void)
{
	struct th_prod p;
	struct ctl_config cc = {.max_conns = 3, .allow_gid = 12345, .group = "12345", .mode = 0666};
	CHECK_EQ(th_start(&p, path, NULL, &cc), 0);
	struct stat st;
	CHECK_EQ(stat(path, &st), 0);
	CHECK(S_ISSOCK(st.st_mode));
	CHECK_EQ(st.st_mode & 0777, 0666);
	CHECK_EQ(st.st_gid, 12345);

	int s[4];
	for (int i = 0; i < 3; i++) {
		s[i] = th_connect(path, 2);
		CHECK(hello_ok(s[i], 1));
	}
	s[3] = th_connect(path, 2);
	CHECK(expect_error(s[3], EUSERS));
	CHECK(is_closed(s[3]));
	close(s[3]);
	close(s[2]);
	usleep(50000);
	s[2] = th_connect(path, 2); /* a slot is free again */
	CHECK(hello_ok(s[2], 2));
	for (int i = 0; i < 3; i++)
		close(s[i]);

	/* SO_PEERCRED: a process outside the group is refused, root and members are not */
	if (geteuid() == 0) {
		chmod(dir, 0755);
		usleep(50000);
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			int ok = 1;
			if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
				_exit(3);
			int c = th_connect(path, 2);
			ok &= c >= 0 && expect_error(c, EACCES) && is_closed(c);
			close(c);
			_exit(ok ? 0 : 1);
		}
		int stt = 0;
		waitpid(pid, &stt, 0);
		CHECK(WIFEXITED(stt) && WEXITSTATUS(stt) == 0);
		pid = fork();
		if (pid == 0) {
			gid_t g = 12345;
			if (setgroups(1, &g) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
				_exit(3);
			int c = th_connect(path, 2);
			_exit(c >= 0 && hello_ok(c, 1) ? 0 : 1);
		}
		waitpid(pid, &stt, 0);
		CHECK(WIFEXITED(stt) && WEXITSTATUS(stt) == 0);
		struct th_ack a;
		CHECK_EQ(th_stats(&p, &a), 0);
		CHECK_EQ(a.cs.refused, 2); /* one over the limit, one not allowed */
	} else {
		printf("test_client_ctl: not root: credential checks skipped\n");
	}
	th_quit(&p);
	CHECK(access(path, F_OK) != 0); /* a clean stop removes the socket */
}

static void test_bad_paths(void)
{
	int err = 0;
	struct pub *pub = pub_create(NULL, &err);
	char p2[160];
	snprintf(p2, sizeof(p2), "%s/not-a-socket", dir);
	FILE *f = fopen(p2, "w");
	if (f)
		fclose(f);
	struct ctl_config cc = {.path = p2, .allow_gid = -1};
	CHECK(ctl_server_open(&cc, pub, &err) == NULL);
	CHECK_EQ(err, -EEXIST); /* never clobbers a file that is not a socket */
	char longp[200];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = 0;
	cc.path = longp;
	CHECK(ctl_server_open(&cc, pub, &err) == NULL);
	CHECK_EQ(err, -ENAMETOOLONG);
	cc.path = path;
	cc.group = "no-such-group-toed";
	CHECK(ctl_server_open(&cc, pub, &err) == NULL);
	CHECK(err < 0);
	pub_destroy(pub);
	/* the library reports a missing daemon */
	struct toe_client *c;
	CHECK_EQ(toe_connect(&c, p2, NULL), -ECONNREFUSED);
	snprintf(p2, sizeof(p2), "%s/nothing-here", dir);
	CHECK_EQ(toe_connect(&c, p2, NULL), -ENOENT);
}

/* ---- a daemon that answers badly ------------------------------------------ */

enum { BAD_VERSION, BAD_GARBAGE, BAD_SILENT, BAD_HANGUP, BAD_NOFDS, BAD_MAGIC };

static void bad_daemon(int lfd, int mode)
{
	int s = accept(lfd, NULL, NULL);
	_Alignas(8) char buf[TOE_CTL_MAX_MSG];
	if (s < 0)
		_exit(1);
	if (mode == BAD_HANGUP)
		_exit(0);
	if (recv(s, buf, sizeof(struct toe_ctl_hello), MSG_WAITALL) != (ssize_t)sizeof(struct toe_ctl_hello))
		_exit(1);
	struct toe_ctl_hello_ok ok;
	memset(&ok, 0, sizeof(ok));
	toe_ctl_hdr_init(&ok.hdr, TOE_CTL_HELLO_OK, sizeof(ok), ((struct toe_ctl_hdr *)buf)->id);
	ok.epoch = 77;
	if (mode == BAD_VERSION)
		ok.hdr.version = TOE_CTL_VERSION + 1;
	if (mode == BAD_GARBAGE)
		memset(&ok, 0x5a, sizeof(ok));
	if (mode == BAD_SILENT) {
		usleep(1000000);
		_exit(0);
	}
	(void)!send(s, &ok, sizeof(ok), MSG_NOSIGNAL);
	if (mode == BAD_NOFDS || mode == BAD_MAGIC) {
		if (recv(s, buf, sizeof(struct toe_ctl_subscribe), MSG_WAITALL) != (ssize_t)sizeof(struct toe_ctl_subscribe))
			_exit(1);
		struct toe_ctl_subscribed r;
		memset(&r, 0, sizeof(r));
		toe_ctl_hdr_init(&r.hdr, TOE_CTL_SUBSCRIBED, sizeof(r), ((struct toe_ctl_hdr *)buf)->id);
		r.epoch = 77;
		r.capacity = 64;
		r.data_size = toe_shm_data_bytes(64);
		r.cons_size = TOE_SHM_CONS_SIZE;
		r.nfds = TOE_CTL_NFDS;
		if (mode == BAD_NOFDS) {
			(void)!send(s, &r, sizeof(r), MSG_NOSIGNAL);
		} else {
			/* a ring whose header is not one */
			int fds[3] = {memfd_create("bad", 0), memfd_create("bad", 0), memfd_create("bad", 0)};
			(void)!ftruncate(fds[0], (off_t)r.data_size);
			(void)!ftruncate(fds[1], TOE_SHM_CONS_SIZE);
			union {
				char b[CMSG_SPACE(sizeof(fds))];
				struct cmsghdr a;
			} cm;
			struct iovec iov = {.iov_base = &r, .iov_len = sizeof(r)};
			struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof(cm.b)};
			struct cmsghdr *ch = CMSG_FIRSTHDR(&mh);
			ch->cmsg_level = SOL_SOCKET;
			ch->cmsg_type = SCM_RIGHTS;
			ch->cmsg_len = CMSG_LEN(sizeof(fds));
			memcpy(CMSG_DATA(ch), fds, sizeof(fds));
			(void)!sendmsg(s, &mh, MSG_NOSIGNAL);
		}
	}
	usleep(500000);
	_exit(0);
}

static void test_bad_daemon(void)
{
	char p2[100];
	snprintf(p2, sizeof(p2), "%s/bad.sock", dir);
	static const int want_connect[] = {-EPROTONOSUPPORT, -EPROTO, -ETIMEDOUT, -ENOTCONN, 0, 0};
	for (int mode = BAD_VERSION; mode <= BAD_MAGIC; mode++) {
		unlink(p2);
		int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", p2);
		CHECK_EQ(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		CHECK_EQ(listen(lfd, 4), 0);
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0)
			bad_daemon(lfd, mode);
		close(lfd);
		struct toe_client *c = NULL;
		struct toe_opts o = {.timeout_ms = 200};
		int e = toe_connect(&c, p2, &o);
		CHECK_EQ(e, want_connect[mode]);
		if (e == 0) {
			CHECK_EQ(toe_subscribe(c, &(struct toe_sub){0}), -EPROTO);
			union toe_record r;
			CHECK_EQ(toe_read(c, &r, 1, NULL), -EINVAL); /* no ring */
			toe_close(c);
		}
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	unlink(p2);
}

int main(void)
{
	th_tmpdir(dir, sizeof(dir));
	if (!dir[0])
		return test_skip("test_client_ctl", "cannot create a temporary folder");
	snprintf(path, sizeof(path), "%s/toed.sock", dir);
	test_malformed();
	test_limits_and_perms();
	test_bad_paths();
	test_bad_daemon();
	th_rmdir(dir);
	return test_done("test_client_ctl");
}
