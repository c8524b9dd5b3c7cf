/* stuck_sock.c - a TCP connection whose send queue is stuck (see stuck_sock.h). */
#include "stuck_sock.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int stuck_socket(int secs, int *peer, int *lst)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int small = 4096;
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&sa, &sl) < 0)
		return -1;
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(c, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	if (connect(c, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	*peer = accept(l, NULL, NULL);
	*lst = l;
	static char junk[65536];
	for (int i = 0; i < 1000 && send(c, junk, sizeof(junk), MSG_DONTWAIT | MSG_NOSIGNAL) > 0; i++)
		;
	struct linger lg = {.l_onoff = 1, .l_linger = secs};
	setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	return c;
}
