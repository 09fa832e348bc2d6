// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * connflood: open many short TCP connections with unique 4-tuples through
 * loopback, each with a chosen congestion control, to churn per-flow maps.
 *
 *   connflood [-n TOTAL] [-k CONCURRENT] [-c CC] [-s BYTES] [-p PORT] [-H SECONDS]
 *
 * One process is both ends: it listens on 127.0.0.1:PORT (the listener
 * gets CC too, so accepted sockets inherit it) and keeps up to CONCURRENT
 * client connections open at once. Each client binds a distinct source
 * address in 127.0.0.0/8 (127.1.x.y), writes BYTES, shuts its side down
 * and closes once the server has read everything and closed too (so the
 * data was ACKed: the CC saw ACKs). Distinct sources keep the TIME_WAIT
 * tuples distinct, so the port range never runs out.
 * With -H (hold), a connection is not closed once its BYTES are ACKed: all
 * of them stay established at once (TOTAL <= CONCURRENT), SECONDS long,
 * then are reset; this fills per-flow tables with live flows.
 * Prints one JSON line: {"opened":N,"completed":N,"failed":N,"peak_open":N}.
 * Run it inside a scratch network namespace (ip netns exec NS connflood).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONC 4096

struct conn {
	int fd;
	int sent;
	bool connected;
	bool held;	/* -H: all bytes ACKed, left open */
};

static void usage(void)
{
	fprintf(stderr, "usage: connflood [-n TOTAL] [-k CONCURRENT] [-c CC] [-s BYTES] [-p PORT] [-H SECONDS]\n");
	exit(2);
}

static int set_cc(int fd, const char *cc)
{
	if (!cc)
		return 0;
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc))) {
		fprintf(stderr, "connflood: TCP_CONGESTION %s: %s\n", cc, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_client(unsigned int seq, int port, const char *cc)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	/* 127.1.0.1 .. 127.1.255.254, then wrap: unique source per connection */
	src.sin_addr.s_addr = htonl(0x7f010000u | (1 + seq % 65534));
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dst.sin_port = htons((unsigned short)port);
	if (set_cc(fd, cc) || bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) && errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void abort_close(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

int main(int argc, char **argv)
{
	static char buf[65536], sink[65536];
	unsigned int total = 10000, conc = 256, opened = 0, done = 0, failed = 0, peak = 0;
	const char *cc = NULL;
	int port = 5299, bytes = 16384, lfd, o, one = 1;
	struct sockaddr_in la = { .sin_family = AF_INET };
	static struct conn c[MAX_CONC];
	static struct pollfd pfd[MAX_CONC * 3 + 1];
	static int accepted[MAX_CONC * 2];
	unsigned int nacc = 0, i, open_now = 0, hold = 0, held = 0;
	struct rlimit rl;

	while ((o = getopt(argc, argv, "n:k:c:s:p:H:")) != -1) {
		switch (o) {
		case 'n':
			total = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'k':
			conc = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			cc = optarg;
			break;
		case 's':
			bytes = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'H':
			hold = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (!conc || conc > MAX_CONC || bytes < 1 || bytes > (int)sizeof(buf) ||
	    (hold && total > conc))
		usage();
	/* both ends of every connection may be open at once */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	memset(buf, 'x', sizeof(buf));

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	la.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	la.sin_port = htons((unsigned short)port);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || set_cc(lfd, cc) || bind(lfd, (struct sockaddr *)&la, sizeof(la)) ||
	    listen(lfd, 4096)) {
		fprintf(stderr, "connflood: listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
		return 1;
	}
	for (i = 0; i < conc; i++)
		c[i].fd = -1;

	while (done + failed < total) {
		/* keep the window full */
		for (i = 0; i < conc && opened < total; i++) {
			if (c[i].fd >= 0)
				continue;
			c[i].fd = open_client(opened++, port, cc);
			c[i].sent = 0;
			c[i].connected = false;
			if (c[i].fd < 0)
				failed++;
			else
				open_now++;
		}
		if (open_now > peak)
			peak = open_now;
		for (i = 0; i < conc; i++) {
			pfd[i].fd = c[i].held ? -1 : c[i].fd;
			/* -H waits for the ACKs, seen through POLLOUT + SIOCOUTQ */
			pfd[i].events = c[i].sent < bytes || hold ? POLLOUT : POLLIN;
			pfd[i].revents = 0;
		}
		pfd[conc].fd = lfd;
		pfd[conc].events = POLLIN;
		pfd[conc].revents = 0;
		for (i = 0; i < nacc; i++) {
			pfd[conc + 1 + i].fd = accepted[i];
			pfd[conc + 1 + i].events = POLLIN;
			pfd[conc + 1 + i].revents = 0;
		}
		if (poll(pfd, conc + 1 + nacc, 1000) < 0 && errno != EINTR)
			break;
		/* server side: accept and drain everything readable */
		for (;;) {
			int a = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (a < 0)
				break;
			if (nacc < sizeof(accepted) / sizeof(accepted[0]))
				accepted[nacc++] = a;
			else
				abort_close(a);
		}
		for (i = 0; i < nacc;) {
			ssize_t n;

			while ((n = read(accepted[i], sink, sizeof(sink))) > 0)
				;
			if (n == 0 || (n < 0 && errno != EAGAIN)) {
				close(accepted[i]);
				accepted[i] = accepted[--nacc];
			} else {
				i++;
			}
		}
		/* client side */
		for (i = 0; i < conc; i++) {
			ssize_t n;

			if (c[i].fd < 0 || !pfd[i].revents)
				continue;
			if ((pfd[i].revents & POLLERR) ||
			    ((pfd[i].revents & POLLHUP) && c[i].sent < bytes)) {
				abort_close(c[i].fd);
				c[i].fd = -1;
				open_now--;
				failed++;
				continue;
			}
			c[i].connected = true;
			if (hold && c[i].sent >= bytes) {
				int unacked = 0;

				/* counted once everything written is ACKed: the CC
				 * has seen this flow's ACKs */
				if (!ioctl(c[i].fd, SIOCOUTQ, &unacked) && !unacked) {
					c[i].held = true;
					held++;
					done++;
				}
				continue;
			}
			if (c[i].sent >= bytes) {
				/* shut down: wait for the server's EOF */
				n = read(c[i].fd, sink, sizeof(sink));
				if (n > 0 || (n < 0 && errno == EAGAIN))
					continue;
				if (n == 0)
					done++;
				else
					failed++;
				close(c[i].fd);
				c[i].fd = -1;
				open_now--;
				continue;
			}
			n = write(c[i].fd, buf, (size_t)(bytes - c[i].sent));
			if (n > 0)
				c[i].sent += (int)n;
			if (n < 0 && errno != EAGAIN) {
				failed++;
				abort_close(c[i].fd);
				c[i].fd = -1;
				open_now--;
			} else if (c[i].sent >= bytes && !hold) {
				shutdown(c[i].fd, SHUT_WR);
			}
		}
	}
	if (hold) {
		printf("{\"holding\":%u}\n", held);
		fflush(stdout);
		sleep(hold);
		for (i = 0; i < conc; i++)
			if (c[i].fd >= 0)
				abort_close(c[i].fd);
	}
	for (i = 0; i < nacc; i++)
		close(accepted[i]);
	close(lfd);
	printf("{\"opened\":%u,\"completed\":%u,\"failed\":%u,\"peak_open\":%u,\"held\":%u}\n",
	       opened, done, failed, peak, held);
	return failed > total / 10 ? 1 : 0;
}
