/* stuck_sock.h - a TCP connection on loopback whose send queue is stuck (test helper): what toed does with a
 * descriptor whose close would linger (the control plane's fd disposal, test_ctl_limits.c and ctl_abuse.c).
 */
#ifndef TOE_STUCK_SOCK_H
#define TOE_STUCK_SOCK_H

/* A connected TCP socket with small buffers filled until send() would block (the peer never reads) and
 * SO_LINGER of secs: closing it waits up to secs. *peer (the accepted end) and *lst (the listener) stay open
 * for the caller to close. Returns the socket, or -1. */
int stuck_socket(int secs, int *peer, int *lst);

#endif
