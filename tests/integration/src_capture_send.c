/* src_capture_send.c - sends the frames of src_capture_frames.h out of an interface (AF_PACKET raw).
 *
 * Usage: src_capture_send IFNAME
 *        src_capture_send --ping IPV4 COUNT
 * The first form sends every frame, kinds interleaved (frame 0 of every
 * kind, then frame 1, ...) with a short pause between frames so that no
 * queue on the way overflows; exit 0 when every frame was sent. The second
 * pings through the host stack (raw ICMP socket, so ARP is resolved by the
 * kernel too) and exits 0 when every echo was answered within 2 s.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "src_capture_frames.h"

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t sum = 0;
	size_t i;
	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static int ping(const char *ip, int count)
{
	struct sockaddr_in to;
	uint16_t id = (uint16_t)getpid();
	int fd, seq, answered = 0;

	memset(&to, 0, sizeof to);
	to.sin_family = AF_INET;
	if (inet_pton(AF_INET, ip, &to.sin_addr) != 1) {
		fprintf(stderr, "%s: not an IPv4 address\n", ip);
		return 2;
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd < 0) {
		perror("socket(IPPROTO_ICMP)");
		return 1;
	}
	for (seq = 0; seq < count; seq++) {
		uint8_t m[64], r[1500];
		uint16_t c;
		struct timespec t0, t;
		int got = 0;
		memset(m, 0, sizeof m);
		m[0] = 8; /* echo request */
		m[4] = (uint8_t)(id >> 8);
		m[5] = (uint8_t)id;
		m[7] = (uint8_t)seq;
		memcpy(m + 8, "toe-src-ping", 12);
		c = csum(m, sizeof m);
		m[2] = (uint8_t)(c >> 8);
		m[3] = (uint8_t)c;
		if (sendto(fd, m, sizeof m, 0, (struct sockaddr *)&to, sizeof to) != (ssize_t)sizeof m) {
			perror("send echo");
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (!got) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t n;
			size_t ihl;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > 2000)
				break;
			if (poll(&p, 1, 100) <= 0)
				continue;
			n = recv(fd, r, sizeof r, 0);
			if (n < 20)
				continue;
			ihl = (size_t)(r[0] & 15) * 4;
			if ((size_t)n >= ihl + 8 && r[ihl] == 0 && r[ihl + 4] == (uint8_t)(id >> 8) &&
			    r[ihl + 5] == (uint8_t)id && r[ihl + 7] == (uint8_t)seq)
				got = 1;
		}
		answered += got;
		if (!got)
			fprintf(stderr, "echo %d to %s: no answer within 2 s\n", seq, ip);
	}
	close(fd);
	printf("ping %s: %d of %d answered\n", ip, answered, count);
	return answered == count ? 0 : 1;
}

int main(int argc, char **argv)
{
	static uint8_t buf[CAP_FRAME_MAX];
	struct sockaddr_ll sll;
	int fd, k, i, sent = 0, want = 0;
	unsigned ifindex;

	if (argc == 4 && !strcmp(argv[1], "--ping"))
		return ping(argv[2], atoi(argv[3]));
	if (argc != 2) {
		fprintf(stderr, "usage: %s IFNAME | --ping IPV4 COUNT\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "%s: no such interface\n", argv[1]);
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return 1;
	}
	memset(&sll, 0, sizeof sll);
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)ifindex;
	sll.sll_protocol = htons(ETH_P_ALL);
	for (i = 0; i < CAP_MAX_PER_KIND; i++) {
		for (k = 0; k < CAPK_N; k++) {
			size_t n;
			struct timespec pause = { 0, 200000 };
			if (i >= cap_kinds[k].count)
				continue;
			want++;
			n = cap_frame(k, i, buf, sizeof buf);
			if (!n) {
				fprintf(stderr, "cannot build %s %d\n", cap_kinds[k].name, i);
				continue;
			}
			if (sendto(fd, buf, n, 0, (struct sockaddr *)&sll, sizeof sll) != (ssize_t)n) {
				fprintf(stderr, "send %s %d (%zu bytes): %s\n", cap_kinds[k].name, i, n, strerror(errno));
				continue;
			}
			sent++;
			nanosleep(&pause, NULL);
		}
	}
	close(fd);
	printf("sent %d of %d frames\n", sent, want);
	return sent == want ? 0 : 1;
}
