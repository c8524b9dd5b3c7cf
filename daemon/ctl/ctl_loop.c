/* ctl_loop.c - the control plane's io_uring event loop (see ctl_loop.h). */
#include "ctl/ctl_loop.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "ctl/ctl_reload.h"

/* user_data: kind (8 bits) | generation (24 bits) | descriptor or chunk (32 bits) */
enum {
	UD_IGNORE = 0,
	UD_SIGNAL = 1,
	UD_TIMER = 2,
	UD_CTL = 3,
	UD_DP = 4,
	UD_REC_KICK = 5,
	UD_REC_WRITE = 6,
};
#define UD(kind, gen, low) (((uint64_t)(kind) << 56) | ((uint64_t)((gen) & 0xffffffu) << 32) | (uint32_t)(low))
#define UD_KIND(u) ((unsigned)((u) >> 56))
#define UD_GEN(u) ((uint32_t)(((u) >> 32) & 0xffffffu))
#define UD_LOW(u) ((uint32_t)(u))

#define RING_ENTRIES 256

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct io_uring_sqe *get_sqe(struct toed *t)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);
	if (!sqe) {
		io_uring_submit(&t->ring);
		sqe = io_uring_get_sqe(&t->ring);
	}
	return sqe;
}

static void arm_poll(struct toed *t, int fd, uint64_t ud)
{
	struct io_uring_sqe *sqe = get_sqe(t);
	if (!sqe) {
		log_err("control loop: no submission slot to watch descriptor %d", fd);
		return;
	}
	io_uring_prep_poll_add(sqe, fd, POLLIN);
	io_uring_sqe_set_data64(sqe, ud);
}

int toed_loop_init(struct toed *t)
{
	sigset_t set;
	int e;
	t->sig_fd = t->timer_fd = -1;
	e = io_uring_queue_init(RING_ENTRIES, &t->ring, 0);
	if (e < 0) {
		log_err("io_uring: %s", strerror(-e));
		return e;
	}
	t->ring_ok = 1;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	t->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	t->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->sig_fd < 0 || t->timer_fd < 0) {
		e = -errno;
		log_err("signalfd/timerfd: %s", strerror(errno));
		return e;
	}
	struct itimerspec its = {.it_interval = {0, TOED_TICK_MS * 1000000L}, .it_value = {0, TOED_TICK_MS * 1000000L}};
	if (timerfd_settime(t->timer_fd, 0, &its, NULL) < 0) {
		e = -errno;
		log_err("timerfd_settime: %s", strerror(errno));
		return e;
	}
	t->snap = calloc(1, sizeof *t->snap);
	if (!t->snap)
		return -ENOMEM;
	arm_poll(t, t->sig_fd, UD(UD_SIGNAL, 0, t->sig_fd));
	arm_poll(t, t->timer_fd, UD(UD_TIMER, 0, t->timer_fd));
	return 0;
}

void toed_loop_on_fd(void *arg, int fd, int added)
{
	struct toed *t = arg;
	if (fd < 0)
		return;
	if ((uint32_t)fd >= t->fd_cap) {
		if (!added)
			return;
		uint32_t cap = t->fd_cap ? t->fd_cap : 256;
		while (cap <= (uint32_t)fd)
			cap *= 2;
		uint32_t *n = realloc(t->fd_gen, cap * sizeof *n);
		if (!n) {
			log_err("control loop: out of memory watching descriptor %d", fd);
			return;
		}
		memset(n + t->fd_cap, 0, (cap - t->fd_cap) * sizeof *n);
		t->fd_gen = n;
		t->fd_cap = cap;
	}
	if (added) {
		uint32_t g = ++t->gen_next & 0xffffffu;
		if (!g)
			g = ++t->gen_next & 0xffffffu;
		t->fd_gen[fd] = g;
		arm_poll(t, fd, UD(UD_CTL, g, fd));
	} else {
		uint32_t g = t->fd_gen[fd];
		t->fd_gen[fd] = 0;
		if (g) {
			struct io_uring_sqe *sqe = get_sqe(t);
			if (sqe) {
				io_uring_prep_poll_remove(sqe, UD(UD_CTL, g, fd));
				io_uring_sqe_set_data64(sqe, UD(UD_IGNORE, 0, 0));
			}
		}
	}
}

/* ---- status ---------------------------------------------------------------------- */

static uint64_t sum_decode_errors(const struct toed_dp_snapshot *s)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->nstreams; i++)
		for (uint32_t e = 1; e < FAST_ERR_COUNT; e++)
			n += s->errors[i][e];
	return n;
}

void toed_status_line(struct toed *t, const struct toed_dp_snapshot *s, char *buf, size_t len)
{
	struct pub_stats ps;
	pub_get_stats(t->pub, &ps);
	const char *state = toed_dp_state_name(s->state);
	if (t->notify.stalled_since_ns)
		state = "data plane stalled";
	snprintf(buf, len,
		 "%s; %" PRIu64 " frames, %" PRIu64 " records, %" PRIu64 " gaps, %" PRIu64 " decode errors, %u clients, "
		 "%" PRIu64 " delivered, %" PRIu64 " dropped",
		 state, s->frames, s->rx.records, s->rx.gaps, sum_decode_errors(s), ps.clients, ps.delivered,
		 ps.dropped);
}

/* ---- events --------------------------------------------------------------------------- */

static void on_dp_event(struct toed *t)
{
	uint64_t v;
	while (read(t->dp.event_fd, &v, sizeof v) > 0)
		;
	uint32_t st = toed_dp_state(&t->dp);
	if ((st == TOED_DP_LIVE || st == TOED_DP_ENDED) && !t->ready) {
		t->ready = 1;
		toed_notify_ready(&t->notify);
		log_notice("ready: %s, control socket %s", t->dp.src_desc, t->sock_path);
		if (t->ready_fd >= 0) {
			char c = 0;
			if (write(t->ready_fd, &c, 1) < 0) {
				/* the parent is gone: nothing to tell */
			}
			close(t->ready_fd);
			t->ready_fd = -1;
		}
	}
	if (st == TOED_DP_FAILED) {
		log_err("data plane failed: %s", t->dp.err[0] ? t->dp.err : "unknown error");
		t->exit_code = TOED_EX_FAIL;
		t->stop = 1;
	}
}

static void on_signal(struct toed *t)
{
	struct signalfd_siginfo si;
	while (read(t->sig_fd, &si, sizeof si) == (ssize_t)sizeof si) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			log_notice("%s received: stopping", si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
			t->stop = 1;
			break;
		case SIGHUP: {
			char *report = NULL;
			toed_reload(t, &report);
			free(report);
			break;
		}
		default:
			break;
		}
	}
}

static void on_timer(struct toed *t)
{
	uint64_t v;
	while (read(t->timer_fd, &v, sizeof v) > 0)
		;
	uint64_t now = mono_ns();
	uint32_t st = toed_dp_state(&t->dp);
	if (st == TOED_DP_FAILED && !t->stop)
		on_dp_event(t);
	pub_reclaim(t->pub);
	if (t->ctl)
		ctl_server_tick(t->ctl); /* handshake timeouts, the listening socket's back-off */
	toed_record_kick(t->rec, &t->ring, UD(UD_REC_WRITE, 0, 0));
	if (t->ready && (st == TOED_DP_LIVE || st == TOED_DP_ENDED)) {
		uint64_t was = t->notify.stalled_since_ns;
		if (toed_notify_watchdog(&t->notify, toed_dp_heartbeat(&t->dp), now)) {
			t->hb_stalls++;
			if (!was)
				log_err("data plane heartbeat stopped: no WATCHDOG=1 until it moves again");
		} else if (was && !t->notify.stalled_since_ns) {
			log_notice("data plane heartbeat moves again after %" PRIu64 " ms", (now - was) / 1000000u);
		}
	}
	if (t->ready && now - t->last_status_ns >= 1000000000ull) {
		char line[256];
		t->last_status_ns = now;
		toed_dp_snapshot(&t->dp, t->snap);
		toed_status_line(t, t->snap, line, sizeof line);
		toed_notify_status(&t->notify, line);
	}
}

static void on_ctl(struct toed *t, uint64_t ud)
{
	int fd = (int)UD_LOW(ud);
	uint32_t g = UD_GEN(ud);
	if ((uint32_t)fd >= t->fd_cap || t->fd_gen[fd] != g || !t->ctl)
		return; /* a descriptor that was closed since */
	if (fd == ctl_server_listen_fd(t->ctl)) {
		ctl_server_accept(t->ctl);
	} else {
		int r = ctl_server_handle(t->ctl, fd);
		if (r == -ENOENT) {
			t->fd_gen[fd] = 0;
			return;
		}
	}
	if ((uint32_t)fd < t->fd_cap && t->fd_gen[fd] == g)
		arm_poll(t, fd, ud);
}

static void dispatch(struct toed *t, struct io_uring_cqe *cqe)
{
	uint64_t ud = io_uring_cqe_get_data64(cqe);
	switch (UD_KIND(ud)) {
	case UD_SIGNAL:
		on_signal(t);
		arm_poll(t, t->sig_fd, ud);
		break;
	case UD_TIMER:
		on_timer(t);
		arm_poll(t, t->timer_fd, ud);
		break;
	case UD_CTL:
		if (cqe->res >= 0)
			on_ctl(t, ud);
		else if (cqe->res != -ECANCELED && (uint32_t)UD_LOW(ud) < t->fd_cap &&
			 t->fd_gen[UD_LOW(ud)] == UD_GEN(ud))
			arm_poll(t, (int)UD_LOW(ud), ud);
		break;
	case UD_DP:
		on_dp_event(t);
		arm_poll(t, t->dp.event_fd, ud);
		break;
	case UD_REC_KICK:
		toed_record_kick(t->rec, &t->ring, UD(UD_REC_WRITE, 0, 0));
		arm_poll(t, toed_record_kick_fd(t->rec), ud);
		break;
	case UD_REC_WRITE:
		toed_record_complete(t->rec, &t->ring, UD(UD_REC_WRITE, 0, 0), UD_LOW(ud), cqe->res);
		break;
	default:
		break;
	}
}

int toed_loop_run(struct toed *t)
{
	arm_poll(t, t->dp.event_fd, UD(UD_DP, 0, t->dp.event_fd));
	arm_poll(t, toed_record_kick_fd(t->rec), UD(UD_REC_KICK, 0, toed_record_kick_fd(t->rec)));
	on_dp_event(t); /* the data plane may have gone live already */
	while (!t->stop) {
		struct io_uring_cqe *cqe;
		int e = io_uring_submit_and_wait(&t->ring, 1);
		if (e < 0 && e != -EINTR && e != -EAGAIN && e != -EBUSY) {
			log_err("io_uring_submit_and_wait: %s", strerror(-e));
			return e;
		}
		unsigned head, n = 0;
		io_uring_for_each_cqe(&t->ring, head, cqe)
		{
			dispatch(t, cqe);
			n++;
		}
		io_uring_cq_advance(&t->ring, n);
	}
	return 0;
}

void toed_loop_flush_records(struct toed *t, int timeout_ms)
{
	uint64_t end = mono_ns() + (uint64_t)timeout_ms * 1000000ull;
	toed_record_kick(t->rec, &t->ring, UD(UD_REC_WRITE, 0, 0));
	io_uring_submit(&t->ring);
	while (toed_record_in_flight(t->rec) && mono_ns() < end) {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = {0, 100000000};
		int e = io_uring_wait_cqe_timeout(&t->ring, &cqe, &ts);
		if (e < 0 && e != -ETIME && e != -EINTR)
			break;
		unsigned head, n = 0;
		io_uring_for_each_cqe(&t->ring, head, cqe)
		{
			uint64_t ud = io_uring_cqe_get_data64(cqe);
			if (UD_KIND(ud) == UD_REC_WRITE)
				toed_record_complete(t->rec, &t->ring, UD(UD_REC_WRITE, 0, 0), UD_LOW(ud), cqe->res);
			n++;
		}
		io_uring_cq_advance(&t->ring, n);
		io_uring_submit(&t->ring);
	}
	if (toed_record_in_flight(t->rec))
		log_warn("record: %u chunks not written at exit", toed_record_in_flight(t->rec));
}

void toed_loop_fini(struct toed *t)
{
	if (t->ring_ok)
		io_uring_queue_exit(&t->ring);
	t->ring_ok = 0;
	if (t->sig_fd >= 0)
		close(t->sig_fd);
	if (t->timer_fd >= 0)
		close(t->timer_fd);
	t->sig_fd = t->timer_fd = -1;
	free(t->fd_gen);
	t->fd_gen = NULL;
	t->fd_cap = 0;
	free(t->snap);
	t->snap = NULL;
}
