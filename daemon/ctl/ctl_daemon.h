/* ctl_daemon.h - the daemon as a whole: start-up, the objects the control loop drives, shutdown.
 *
 * Start-up order (toed_run):
 *   1. raise the soft descriptor limit to the hard one (ctl_limits.h), load
 *      and check the configuration (a bad one: exit 78, nothing started; a
 *      max_clients the hard limit cannot carry is one);
 *   2. detach unless --foreground or started by systemd (the parent exits
 *      once the child is ready, with the child's status if it fails first);
 *   3. reserve huge pages ([shm] hugepages, fail-soft), block the signals
 *      the loop reads through a signalfd;
 *   4. the publisher, the control socket (after the single-instance lock:
 *      another toed on the same socket means exit TOED_EX_RUNNING, see
 *      ctl_instance.h), the recorder, the data plane's
 *      memory, and the frame source (root still: raw sockets, XDP) - or,
 *      with backend = xrt, the card (xclbin, HBM ring, kernels, link)
 *      through the device operations the caller passed;
 *   5. drop privileges (ctl_priv.h), start the data-plane thread;
 *   6. run the control loop (ctl_loop.h) until SIGTERM/SIGINT or a fatal
 *      data-plane error; READY=1 once the data plane says it is live.
 * Shutdown: STOPPING=1, stop and join the data plane, flush the recordings,
 * close the control socket (BYE to every client, rings closed: clients see
 * -ENOTCONN), destroy the publisher (shared memory released), exit 0.
 */
#ifndef TOED_DAEMON_H
#define TOED_DAEMON_H

#include <liburing.h>
#include <stdint.h>

#include "conf/config.h"
#include "ctl/ctl_server.h"
#include "dp/dp_pub.h"
#include "dp/dp_thread.h"
#include "ctl/ctl_notify.h"
#include "dp/dp_record.h"
#include "dp/dp_setup.h"

#define TOED_VERSION "0.1.0"
#define TOED_EX_FAIL 1 /* start-up or run-time failure (systemd restarts) */
#define TOED_EX_RUNNING 75 /* another toed already serves this control socket (nothing was touched) */
/* of the max_clients + 16 control connections, these are kept for root and toed's own uid (toectl) */
#define TOED_ADMIN_RESERVE 4u

struct toed_opts {
	const char *config_path;
	int check_only;
	int foreground;
	const char *user;        /* --user: switch to this user once set up */
	const char *bpf_obj;     /* --bpf-object / $TOED_BPF_OBJECT */
};

struct toed {
	struct toed_opts opt;
	struct toed_config *cfg;  /* the running configuration */
	struct toed_notify notify;
	struct pub *pub;
	struct ctl_server *ctl;
	struct toed_record *rec;
	struct toed_dp dp;
	struct pub_stream streams[DP_MAX_STREAM_NAMES]; /* the names clients subscribe by (dp_setup_streams) */
	uint32_t nstreams;
	struct io_uring ring;
	int ring_ok;
	int sig_fd;
	int timer_fd;
	int ready_fd;             /* detached start: tell the parent we are ready (-1: none) */
	int lock_fd;              /* the single-instance lock beside the socket (ctl_instance.h), -1: none */
	char bpf_path[TOED_PATH_MAX];
	char sock_path[TOED_SOCKPATH_MAX];
	/* state */
	int ready;                /* READY=1 sent */
	int stop;                 /* leave the loop */
	int exit_code;
	uint64_t start_real_ns;
	uint64_t start_mono_ns;
	unsigned long huge_before; /* vm.nr_hugepages before toed raised it, and after: given back at exit */
	unsigned long huge_after;
	int huge_keeper_fd;        /* --user: the pipe the keeper process waits on (-1: none) */
	uint64_t reloads;         /* applied */
	uint64_t reload_errors;   /* refused (bad file) */
	char last_reload[512];    /* one line about the last reload */
	uint64_t hb_stalls;       /* watchdog checks that found the heartbeat stopped */
	uint64_t last_status_ns;
	struct toed_dp_snapshot *snap; /* scratch for status and stats (large) */
	/* control-socket descriptors watched by the loop: generation per fd (0: not watched) */
	uint32_t *fd_gen;
	uint32_t fd_cap;
	uint32_t gen_next;
};

/* Run the daemon; returns the process exit status. seams: the card's device
 * operations and the data plane's hook (dp_thread.h). The release toed
 * (daemon/main/toed.c) passes toe_devops_xrt and no hook; the test program
 * toed_test (tests/integration/toed_test.c) a fake card and its test hooks. */
int toed_run(const struct toed_opts *opt, const struct toed_dp_seams *seams);

#endif
