/* ctl_daemon.c - start-up and shutdown of toed (see ctl_daemon.h).
 *
 * With [device] backend = xrt, step 4 brings the card up instead of opening a
 * frame source (toed_dp_open: xclbin, UUID, HBM ring, kernels, the link),
 * still as root and before READY=1; a card that cannot come up is one log
 * line saying what to do, and exit 1.
 */
#include "ctl/ctl_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dp/dp_setup.h"
#include "dp/dp_shm.h"
#include "ctl/ctl_admin.h"
#include "base/log.h"
#include "ctl/ctl_instance.h"
#include "ctl/ctl_limits.h"
#include "ctl/ctl_loop.h"
#include "ctl/ctl_priv.h"
#include "ctl/ctl_reload.h"


static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The XDP program: --bpf-object, else next to the binary (build tree), else installed (src_bpf_find). */
static int find_bpf(struct toed *t, char *err, size_t errlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash = NULL;
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
	}
	return src_bpf_find(t->opt.bpf_obj, slash ? exe : NULL, t->bpf_path, sizeof t->bpf_path, err, errlen);
}

/* Fork into the background; the parent exits 0 once the child says it is ready,
 * or with the child's status when it exits first. Returns the write end of the
 * readiness pipe in the child (-1 on failure: stay in the foreground). */
static int detach(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid > 0) {
		char c;
		int st;
		close(p[1]);
		ssize_t r;
		do
			r = read(p[0], &c, 1);
		while (r < 0 && errno == EINTR);
		if (r == 1)
			_exit(0);
		if (waitpid(pid, &st, 0) == pid)
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : TOED_EX_FAIL);
		_exit(TOED_EX_FAIL);
	}
	close(p[0]);
	setsid();
	if (chdir("/") < 0) {
		/* paths are absolute: the working directory does not matter */
	}
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		close(fd);
	}
	return p[1];
}

static void reserve_hugepages(struct toed *t)
{
	const struct toed_config *c = t->cfg;
	unsigned long want, total = 0, before = shm_hugepages_reserved();
	if (c->shm.hugepages == TOED_HUGE_OFF)
		return;
	if (c->shm.hugepages == TOED_HUGE_COUNT) {
		want = c->shm.hugepage_count;
	} else {
		/* auto: the rings of the first few clients (more come from normal pages if short) */
		uint64_t ring = TOE_SHM_HDR_SIZE + (uint64_t)c->shm.ring_size * TOE_RECORD_SIZE;
		unsigned long per = (unsigned long)((ring + TOE_SHM_HUGE_PAGE - 1) / TOE_SHM_HUGE_PAGE);
		unsigned long n = c->shm.max_clients < 8 ? c->shm.max_clients : 8;
		want = per * n;
		if (want > toed_hugepages_max(c)) /* a small machine: never more than half its memory */
			want = toed_hugepages_max(c);
	}
	if (!want)
		return;
	if (geteuid() != 0) {
		log_info("huge pages: not root, using the %lu pages already reserved (normal pages when short)",
			 shm_hugepages_reserved());
		return;
	}
	int e = shm_reserve_hugepages(want, &total);
	if (total > before) { /* what toed added goes back at exit */
		t->huge_before = before;
		t->huge_after = total;
	}
	if (e < 0)
		log_warn("huge pages: could not reserve %lu pages (%s); %lu reserved, rings fall back to normal pages",
			 want, strerror(-e), total);
	else
		log_info("huge pages: %lu reserved (wanted at least %lu)", total, want);
}

/* Take back exactly the huge pages toed added to vm.nr_hugepages (pages others added since
 * stay): a stopped toed leaves the machine's memory as it found it. Rings still mapped by
 * clients keep their pages until they unmap them (the kernel frees them then). */
static void release_hugepages(struct toed *t)
{
	unsigned long now = 0;
	if (t->huge_after <= t->huge_before)
		return;
	int e = shm_release_hugepages(t->huge_before, t->huge_after, &now);
	if (e == -EBUSY)
		log_notice("huge pages: vm.nr_hugepages was lowered to %lu since toed raised it from %lu to %lu: left alone",
			   now, t->huge_before, t->huge_after);
	else if (e < 0)
		log_warn("huge pages: could not give back the %lu pages toed reserved (%s): vm.nr_hugepages stays %lu",
			 t->huge_after - t->huge_before, strerror(-e), now);
	else
		log_info("huge pages: gave back the %lu pages toed reserved (vm.nr_hugepages %lu)",
			 t->huge_after - t->huge_before, now);
}

/* With --user, toed cannot write vm.nr_hugepages at exit (the file is root's). A keeper
 * process forked before the privileges go stays root, holds nothing but the read end of a
 * pipe toed keeps open, ignores the stop signals, and gives the pages back once toed is
 * gone however it ended (its end of the pipe closes even on kill -9). */
static void keep_hugepages_for_exit(struct toed *t, const char *user)
{
	if (t->huge_after <= t->huge_before || !user || !*user || geteuid() != 0)
		return;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		log_warn("huge pages: no keeper (%s): the %lu pages toed reserved stay reserved after it stops",
			 strerror(errno), t->huge_after - t->huge_before);
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		log_warn("huge pages: no keeper (%s): the %lu pages toed reserved stay reserved after it stops",
			 strerror(errno), t->huge_after - t->huge_before);
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		prctl(PR_SET_NAME, "toed-hugepages", 0, 0, 0);
		if (p[0] != 3 && dup2(p[0], 3) < 0)
			_exit(1);
		syscall(SYS_close_range, 4u, ~0u, 0u);
		char b;
		ssize_t n;
		while ((n = read(3, &b, 1)) != 0)
			if (n < 0 && errno != EINTR)
				break;
		unsigned long now = 0;
		int e = shm_release_hugepages(t->huge_before, t->huge_after, &now);
		if (e == 0)
			fprintf(stderr, "toed: gave back the %lu huge pages it reserved (vm.nr_hugepages %lu)\n",
				t->huge_after - t->huge_before, now);
		else if (e != -EBUSY)
			fprintf(stderr, "toed: could not give back the %lu huge pages it reserved: %s\n",
				t->huge_after - t->huge_before, strerror(-e));
		_exit(e < 0 && e != -EBUSY);
	}
	close(p[0]);
	t->huge_keeper_fd = p[1]; /* open until toed exits */
	log_info("huge pages: keeper pid %d gives back the %lu pages at exit (toed runs as %s)", (int)pid,
		 t->huge_after - t->huge_before, user);
	t->huge_after = t->huge_before; /* toed itself no longer can */
}

/* toectl's requests, answered from the control loop (ctl_config.on_admin). */
static int on_admin(void *arg, const struct ctl_peer *peer, uint32_t cmd, uint32_t flags, char **text, size_t *len)
{
	struct toed *t = arg;
	int what = cmd == TOE_ADMIN_STATUS    ? TOED_REPORT_STATUS
		   : cmd == TOE_ADMIN_STATS   ? TOED_REPORT_STATS
		   : cmd == TOE_ADMIN_CLIENTS ? TOED_REPORT_CLIENTS
		   : cmd == TOE_ADMIN_RELOAD  ? TOED_REPORT_RELOAD
		   : cmd == TOE_ADMIN_LATENCY ? TOED_REPORT_LATENCY
		   : cmd == TOE_ADMIN_SEQ     ? TOED_REPORT_SEQ
					      : 0;
	log_debug("control: %s request from pid %d uid %u", what ? "admin" : "unknown admin", (int)peer->pid,
		  (unsigned)peer->uid);
	return toed_admin_report(t, what, (flags & TOE_ADMIN_F_JSON) != 0, peer->uid, text, len);
}

/* Take the single-instance lock for path. 0: ours; 1: another toed runs there (said
 * so); -errno: no lock file can be made there. */
static int claim_socket(struct toed *t, const char *path)
{
	pid_t other = 0;
	struct stat st;
	int fd = ctl_instance_lock(path, &other);
	if (fd == -EEXIST) {
		if (other)
			log_err("already running (pid %d) on control socket %s: not starting a second toed there", (int)other,
				path);
		else
			log_err("already running on control socket %s (%s.lock is held): not starting a second toed there",
				path, path);
		return 1;
	}
	if (fd < 0)
		return fd;
	/* the lock was free, yet the socket answers: a toed that does not take the lock */
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && ctl_instance_alive(path, 1000, &other)) {
		close(fd);
		log_err("already running (pid %d) on control socket %s: it answers a hello; not starting a second toed there",
			(int)other, path);
		return 1;
	}
	t->lock_fd = fd;
	return 0;
}

/* Claim cc->path and open the control server there: 0 open, -2 another toed serves it, -1 not (*e: -errno). */
static int open_at(struct toed *t, struct ctl_config *cc, int *e)
{
	snprintf(t->sock_path, sizeof t->sock_path, "%s", cc->path);
	*e = claim_socket(t, cc->path);
	if (*e == 1)
		return -2;
	if (*e == 0)
		t->ctl = ctl_server_open(cc, t->pub, e);
	return t->ctl ? 0 : -1;
}

/* 0, -1 failure, -2 another toed serves the socket */
static int open_ctl(struct toed *t)
{
	struct ctl_config cc;
	int e = 0;
	memset(&cc, 0, sizeof cc);
	cc.path = t->cfg->shm.socket;
	cc.group = t->cfg->shm.socket_group[0] ? t->cfg->shm.socket_group : NULL;
	cc.mode = t->cfg->shm.socket_mode;
	cc.max_conns = t->cfg->shm.max_clients + 16; /* room for toectl next to the subscribers */
	cc.admin_reserve = TOED_ADMIN_RESERVE;        /* of which these are root's (toectl always gets in) */
	cc.max_conns_per_uid = t->cfg->shm.max_clients_per_uid;
	cc.handshake_ms = t->cfg->shm.handshake_timeout_ms;
	cc.ring_bytes_per_uid = (uint64_t)t->cfg->shm.ring_memory_per_uid_mb << 20;
	cc.allow_gid = -1;
	t->nstreams = dp_setup_streams(t->cfg, &t->dp.rxcfg, t->cfg->device.backend == TOED_BACKEND_XRT, t->streams);
	cc.streams = t->streams;
	cc.nstreams = t->nstreams;
	cc.on_fd = toed_loop_on_fd;
	cc.on_admin = on_admin;
	cc.arg = t;
	int r = open_at(t, &cc, &e);
	if (r != -1)
		return r;
	if (t->lock_fd >= 0) {
		close(t->lock_fd);
		t->lock_fd = -1;
	}
	/* an unprivileged toed with the default socket: a folder of its own instead */
	if (geteuid() != 0 && (e == -EACCES || e == -EPERM || e == -ENOENT || e == -EROFS) &&
	    !strcmp(cc.path, TOE_CTL_DEFAULT_PATH)) {
		char alt[TOED_SOCKPATH_MAX];
		const char *rt = getenv("XDG_RUNTIME_DIR");
		if (rt && *rt)
			snprintf(alt, sizeof alt, "%s/toed/toed.sock", rt);
		else
			snprintf(alt, sizeof alt, "/tmp/toed-%u/toed.sock", (unsigned)geteuid());
		log_warn("control socket %s: %s; not root, using %s (clients: TOED_SOCKET=%s)", cc.path, strerror(-e), alt,
			 alt);
		cc.path = alt;
		r = open_at(t, &cc, &e);
		if (r != -1)
			return r;
	}
	log_err("control socket %s: %s", cc.path, strerror(-e));
	return -1;
}

static int check_config(const struct toed_opts *opt, struct toed_config *cfg)
{
	struct toed_diag *diag = malloc(sizeof *diag);
	if (!diag) {
		fprintf(stderr, "toed: out of memory\n");
		return TOED_EX_FAIL;
	}
	toed_diag_init(diag);
	int r = toed_config_load(opt->config_path, cfg, diag);
	toed_diag_print(diag, stderr);
	if (r < 0) {
		fprintf(stderr, "toed: %s: %u error%s, nothing started\n", opt->config_path, diag->errors,
			diag->errors == 1 ? "" : "s");
		free(diag);
		return TOED_EX_CONFIG;
	}
	free(diag);
	return 0;
}

int toed_run(const struct toed_opts *opt, const struct toed_dp_seams *seams)
{
	struct toed *t = calloc(1, sizeof *t);
	char err[1024];
	int rc;
	if (!t) {
		fprintf(stderr, "toed: out of memory\n");
		return TOED_EX_FAIL;
	}
	t->opt = *opt;
	t->ready_fd = -1;
	t->huge_keeper_fd = -1;
	t->lock_fd = -1;
	t->sig_fd = t->timer_fd = -1;
	t->cfg = malloc(sizeof *t->cfg);
	if (!t->cfg) {
		fprintf(stderr, "toed: out of memory\n");
		free(t);
		return TOED_EX_FAIL;
	}

	/* 1. configuration */
	rc = check_config(opt, t->cfg);
	if (rc) {
		free(t->cfg);
		free(t);
		return rc;
	}
	/* the configuration check held max_clients against the hard limit: take it */
	uint64_t nofile = ctl_nofile_raise();
	uint64_t fds = toed_fds_needed(t->cfg->shm.max_clients, toed_mcast_feeds(t->cfg));
	if (nofile < fds)
		fprintf(stderr, "toed: warning: descriptor limit %llu, [shm] max_clients = %u may need %llu\n",
			(unsigned long long)nofile, t->cfg->shm.max_clients, (unsigned long long)fds);
	/* what the data plane refuses is a configuration error too: before anything starts */
	if (toed_dp_prepare(&t->dp, t->cfg, NULL, NULL, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		if (!opt->check_only)
			fprintf(stderr, "toed: nothing started\n");
		toed_dp_destroy(&t->dp);
		free(t->cfg);
		free(t);
		return TOED_EX_CONFIG;
	}
	if (opt->check_only) {
		printf("%s: configuration OK\n", opt->config_path);
		toed_dp_destroy(&t->dp);
		free(t->cfg);
		free(t);
		return 0;
	}
	/* root asked to become a user that does not exist would stay root: refuse to start instead */
	if (opt->user && *opt->user && geteuid() == 0 && !toed_priv_user_exists(opt->user)) {
		fprintf(stderr, "toed: --user %s: no such user (create it: systemd-sysusers with systemd/toed.sysusers, "
				"or useradd --system %s); nothing started\n", opt->user, opt->user);
		toed_dp_destroy(&t->dp);
		free(t->cfg);
		free(t);
		return TOED_EX_CONFIG;
	}
	toed_log_set(t->cfg->log.level, t->cfg->log.target);

	/* 2. background, unless systemd or --foreground */
	if (!opt->foreground && !getenv("NOTIFY_SOCKET") && !getenv("INVOCATION_ID"))
		t->ready_fd = detach();

	t->start_real_ns = clock_ns(CLOCK_REALTIME);
	t->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	toed_notify_init(&t->notify);
	log_notice("toed %s starting: %s (pid %d)", TOED_VERSION, t->cfg->path, (int)getpid());

	/* 3. huge pages, signals */
	reserve_hugepages(t);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	rc = TOED_EX_FAIL;
	if (toed_loop_init(t) < 0)
		goto out;

	/* 4. publisher, control socket, recorder, data plane, source */
	struct pub_config pc;
	int e = 0;
	dp_setup_pub(&pc, t->cfg);
	t->pub = pub_create(&pc, &e);
	if (!t->pub) {
		log_err("publisher: %s", strerror(-e));
		goto out;
	}
	t->rec = toed_record_create(&e);
	if (!t->rec) {
		log_err("recorder: %s", strerror(-e));
		goto out;
	}
	t->dp.pub = t->pub;
	t->dp.rec = t->rec;
	if ((e = open_ctl(t)) < 0) {
		if (e == -2)
			rc = TOED_EX_RUNNING;
		goto out;
	}
	if (toed_record_configure(t->rec, t->cfg->record.pcap, t->cfg->record.ticks, err, sizeof err) < 0)
		log_err("%s", err);
	if (t->cfg->device.backend == TOED_BACKEND_XRT) {
		if (t->cfg->record.pcap[0])
			log_warn("[record] pcap: with backend = xrt the frames stay on the card; only [record] ticks "
				 "records anything");
		if (toed_dp_open(&t->dp, t->cfg, NULL, seams, err, sizeof err) < 0) {
			log_err("%s", err);
			goto out;
		}
		log_info("card: %s", t->dp.src_desc);
	} else {
		if (t->cfg->source.type == TOED_SRC_AF_XDP) {
			if (find_bpf(t, err, sizeof err) < 0) {
				log_err("source: %s", err);
				goto out;
			}
			log_info("XDP program: %s", t->bpf_path);
		}
		if (toed_dp_open(&t->dp, t->cfg, t->bpf_path, seams, err, sizeof err) < 0) {
			log_err("source: %s", err);
			goto out;
		}
		log_info("source: %s", t->dp.src_desc);
	}

	/* 5. privileges, then the data-plane thread (it inherits what is left) */
	uint64_t keep = TOED_CAP(23) /* CAP_SYS_NICE: [dataplane] priority is live */;
	if (t->cfg->device.backend == TOED_BACKEND_SW && t->cfg->source.type == TOED_SRC_AF_XDP)
		keep |= TOED_CAP(12); /* CAP_NET_ADMIN: detach the XDP program at exit */
	keep_hugepages_for_exit(t, opt->user);
	toed_priv_drop(opt->user, keep);
	if (toed_dp_start(&t->dp) < 0) {
		log_err("data plane thread: %s", strerror(errno));
		goto out;
	}

	/* 6. the control loop */
	rc = 0;
	if (toed_loop_run(t) < 0)
		t->exit_code = TOED_EX_FAIL;
	rc = t->exit_code;

out:
	toed_notify_stopping(&t->notify);
	if (toed_dp_stop(&t->dp, 3000) < 0) {
		log_err("data plane did not stop within 3 s: exiting anyway");
		rc = TOED_EX_FAIL;
	}
	if (t->rec && t->ring_ok)
		toed_loop_flush_records(t, 5000);
	if (t->ctl) {
		ctl_server_close(t->ctl); /* BYE to every client; their rings close */
		t->ctl = NULL;
	}
	if (t->lock_fd >= 0) {
		close(t->lock_fd); /* the file stays: removing a lock file races with the next toed taking it */
		t->lock_fd = -1;
	}
	toed_dp_destroy(&t->dp);
	if (!t->dp.started) {
		pub_destroy(t->pub); /* shared memory released: clients see -ENOTCONN */
		t->pub = NULL;
		toed_record_destroy(t->rec);
		t->rec = NULL;
	} /* else a hung data plane may still touch them: leave them to the exit */
	toed_loop_fini(t);
	release_hugepages(t);
	if (t->huge_keeper_fd >= 0)
		close(t->huge_keeper_fd); /* the keeper gives the pages back now */
	toed_notify_fini(&t->notify);
	if (t->ready_fd >= 0)
		close(t->ready_fd);
	log_notice("stopped (exit status %d)", rc);
	free(t->cfg);
	free(t);
	return rc;
}
