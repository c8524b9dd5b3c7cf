/* feed_net.h - sockets, clocks and pacing for the feed tools (host only).
 *
 * Shared by toe-feedsim (the simulated exchange), toe-sockrx (the Linux
 * socket baseline) and the test harness: IPv4 "IP:PORT" parsing, the options
 * the tools have in common (--listen/--connect/--udp, --cpu, --wait-ms), a
 * TCP connect that retries while the peer is not listening yet, a one-shot
 * TCP accept, UDP sockets, CPU pinning, and the send schedule of a paced feed.
 */
#ifndef FEED_NET_H
#define FEED_NET_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <netinet/in.h>

/* Parse an unsigned number (decimal, 0x hex) in [lo, hi]. Returns 0 or -1. */
int feed_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* Parse "A.B.C.D:PORT" (port 1..65535). Returns 0 or -1. */
int feed_parse_addr(const char *s, struct sockaddr_in *sa);

/* ---- the command line the feed tools share ----------------------------------
 * Each option helper takes the option's argument and returns NULL, or the
 * complaint the tool prints as "TOOL: complaint, not 'ARG'" before its usage. */

/* How a tool meets its peer: --listen IP:PORT (accept one TCP connection),
 * --connect IP:PORT (connect over TCP) or --udp IP:PORT (datagrams). */
enum feed_mode { FEED_MODE_NONE, FEED_MODE_LISTEN, FEED_MODE_CONNECT, FEED_MODE_UDP };

struct feed_peer {
	enum feed_mode mode; /* FEED_MODE_NONE until one of the options is given */
	struct sockaddr_in sa;
	const char *arg;     /* the IP:PORT as given */
};

/* --listen / --connect / --udp (mode) with its argument: "give one of
 * --listen, --connect, --udp" when one was given already, "the address must
 * be IPv4-ADDRESS:PORT". */
const char *feed_opt_peer(struct feed_peer *p, enum feed_mode mode, const char *arg);

/* --cpu N: 0..FEED_MAX_CPU into *cpu. */
const char *feed_opt_cpu(const char *arg, int64_t *cpu);

/* --wait-ms W: 0..86400000 into *wait_ms. */
const char *feed_opt_wait_ms(const char *arg, int64_t *wait_ms);

/* Once getopt is done (next: its optind): no argument left over, --templates
 * given and, when peer is not NULL, one of --listen, --connect, --udp.
 * Returns 0, or -1 after printing "TOOL: unexpected argument 'ARG'" or
 * "TOOL: OPTION is required" on stderr (the tool then prints its usage). */
int feed_args_check(const char *tool, int argc, char **argv, int next, const char *templates,
		    const struct feed_peer *peer);

/* Open the connection to the peer: LISTEN accepts one connection within
 * wait_ms (< 0: wait forever), CONNECT retries for wait_ms (< 0: 10000 ms),
 * UDP opens a socket (bound to the address when udp_bind, with a receive
 * buffer of udp_rcvbuf bytes when > 0; see feed_udp_open). Returns the
 * socket, or -1 with a message in err. */
int feed_peer_open(const struct feed_peer *p, int64_t wait_ms, int udp_bind, int udp_rcvbuf, char *err,
		   size_t errlen);

/* Listen on sa, accept one connection within timeout_ms (< 0: wait forever),
 * close the listening socket. Returns the connected socket, or -1 with a
 * message in err. */
int feed_tcp_accept_one(const struct sockaddr_in *sa, int timeout_ms, char *err, size_t errlen);

/* Connect to sa, retrying every 20 ms while the peer refuses or is
 * unreachable, for up to timeout_ms (0: one attempt). Returns the socket or
 * -1 with a message in err. */
int feed_tcp_connect(const struct sockaddr_in *sa, int timeout_ms, char *err, size_t errlen);

/* A UDP socket: bound to sa when bind_it, else unbound and unconnected (for
 * sendto(), so ICMP errors from a port nobody listens on never fail a send).
 * rcvbuf > 0 asks for that receive buffer (SO_RCVBUFFORCE, then SO_RCVBUF).
 * Returns the socket or -1 with a message in err. */
int feed_udp_open(const struct sockaddr_in *sa, int bind_it, int rcvbuf, char *err, size_t errlen);

/* TCP_NODELAY on (0, or -1). */
int feed_tcp_nodelay(int fd);

/* Send all of p[0..n) on a connected socket (no SIGPIPE; EINTR retried): 0, or -1 with errno. */
int feed_send_all(int fd, const void *p, size_t n);

/* Pin the calling thread to one CPU (0..FEED_MAX_CPU). Returns 0 or -1 (errno set). */
#define FEED_MAX_CPU 1023
int feed_pin_cpu(int cpu);

static inline uint64_t feed_now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Gaps shorter than this are busy-waited; longer ones sleep (absolute
 * clock_nanosleep) until FEED_SLEEP_MARGIN_NS before the deadline, then spin. */
#define FEED_SPIN_NS 100000u
#define FEED_SLEEP_MARGIN_NS 60000u

/* Offset from the start of a feed paced at `rate` records/s at which the
 * message following `records_before` records is due: records_before * 1e9 /
 * rate ns, exact (rate >= 1). With bursts of B messages, only the first
 * message of each burst has a deadline (the records before that burst), the
 * others follow it back to back, so the average rate stays `rate`. */
uint64_t feed_pace_offset_ns(uint64_t records_before, uint64_t rate);

/* Wait until CLOCK_MONOTONIC reaches deadline_ns (see FEED_SPIN_NS). */
void feed_wait_until(uint64_t deadline_ns);

#endif
