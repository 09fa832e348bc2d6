// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The workload harness's sockets: namespaces, CCs, listeners, connections. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "wl.h"


void enter_netns(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), NS_DIR "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot open netns '%s' (%s): %s", name, path, strerror(errno));
	if (setns(fd, CLONE_NEWNET))
		die("setns into '%s': %s (needs root)", name, strerror(errno));
	close(fd);
}

void leave_netns(void)
{
	if (setns(home_ns, CLONE_NEWNET))
		die("returning to own netns: %s", strerror(errno));
}

void set_cc(int fd, int cls, const char *where)
{
	const char *cc = P.cc[cls];
	char avail[512];

	if (!cc || !setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)))
		return;
	int err = errno;

	tool_available_ccs(avail, sizeof(avail));
	die("congestion control '%s' (class %s) refused by the kernel (TCP_CONGESTION %s: %s); available: %s%s",
	    cc, class_name[cls], where, strerror(err), avail[0] ? avail : "(unknown)",
	    err == ENOENT ? "; register it first (tests/lib/dctcp.sh for dctcp, dcbpfd for powertcp)" : "");
}

uint16_t cc_index(int fd)
{
	char name[32] = "";
	socklen_t l = sizeof(name) - 1;
	unsigned int i;

	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &l))
		strcpy(name, "?");
	name[l < sizeof(name) ? l : sizeof(name) - 1] = 0;
	name[strcspn(name, "\n")] = 0;
	for (i = 0; i < ncc_seen; i++)
		if (!strcmp(cc_seen[i], name))
			return i;
	if (ncc_seen == 16)
		return 15;
	snprintf(cc_seen[ncc_seen], sizeof(cc_seen[0]), "%s", name);
	return ncc_seen++;
}

int ep_add(int fd, void *ptr, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

void ep_mod(struct conn *c, int out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c };

	if (c->out == out)
		return;
	c->out = out;
	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

void open_listeners(int used[NCLASS])
{
	unsigned int j;
	int cls, one = 1;

	for (j = 0; j < P.nrcv; j++) {
		enter_netns(P.rcv[j].ns);
		for (cls = 0; cls < NCLASS; cls++) {
			if (!used[cls])
				continue;
			struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(P.port + cls) };
			struct listener *l = calloc(1, sizeof(*l));
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

			if (fd < 0 || !l)
				die("socket in netns '%s': %s", P.rcv[j].ns, strerror(errno));
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			set_cc(fd, cls, "on a listener");
			if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4096))
				die("cannot listen on port %u in netns '%s': %s", P.port + cls, P.rcv[j].ns,
				    strerror(errno));
			l->type = T_LISTEN;
			l->fd = fd;
			ep_add(fd, l, EPOLLIN);
		}
		leave_netns();
	}
}

struct conn *open_conn(uint32_t pi, int cls)
{
	struct pair *pa = &P.pairs[pi];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(P.port + cls), .sin_addr = P.rcv[pa->r].addr };
	struct conn *c = calloc(1, sizeof(*c));
	int one = 1, fd;

	if (!c)
		die("out of memory");
	enter_netns(P.snd[pa->s].ns);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int err = errno;

	leave_netns();
	if (fd < 0)
		die("socket in netns '%s': %s", P.snd[pa->s].ns, strerror(err));
	set_cc(fd, cls, "before connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS)
		die("connect from '%s' to %s:%u: %s", P.snd[pa->s].ns, P.rcv[pa->r].ip, P.port + cls, strerror(errno));
	c->type = T_CLIENT;
	c->fd = fd;
	c->pair = pi;
	c->cls = cls;
	c->flow = -1;
	c->state = C_CONNECTING;
	c->out = 1;
	pa->nconn[cls]++;
	ep_add(fd, c, EPOLLIN | EPOLLOUT);
	return c;
}
