// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One host's process of the collective generator: it enters its namespace,
 * listens, connects and sends its flows when told, and reports each one. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dcbpf/ethereal.h"
#include "loader/lib/rand.h"
#include "tool.h"
#include "coll.h"

static char iobuf[CHUNK];


static int cfd = -1;	/* pipe to the parent */

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (write(cfd, buf, n) < 0)
		_exit(1);
}

/* Error from a child: one "E message" line to the parent, then exit. */
#define DIE(...)                                  \
	do {                                      \
		say("E " __VA_ARGS__);            \
		say("\n");                        \
		_exit(1);                         \
	} while (0)

static void set_cc(int fd, const struct host *h)
{
	char avail[256];

	if (!opt.cc || !setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, opt.cc, strlen(opt.cc)))
		return;
	tool_available_ccs(avail, sizeof(avail));
	DIE("congestion control '%s' not available in netns '%s' (TCP_CONGESTION: %s); available: %s",
	    opt.cc, h->ns, strerror(errno), avail);
}

struct conn {
	int fd;
	int out;		/* 1 = we send on it */
	struct flow *f;		/* outgoing: known; incoming: after the header */
	uint8_t hdr[HDR_LEN];
	unsigned hdr_have;
	uint64_t left;		/* outgoing: bytes to send; incoming: to read */
	int started;
};

static uint64_t read_u64(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		_exit(1);
	return v;
}

void child(unsigned me, int rfd, int wfd)
{
	const struct host *h = &hosts[me];
	struct conn *c;
	struct pollfd *pfd;
	unsigned nout = 0, nin = 0, i, nconn = 0, done_in = 0, done_out = 0, accepted = 0;
	int ls, nsfd, one = 1;
	char path[128];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(opt.port) };
	uint64_t t0, deadline;

	cfd = wfd;
	signal(SIGPIPE, SIG_IGN);
	snprintf(path, sizeof(path), NS_DIR "%s", h->ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		DIE("netns '%s': cannot open %s: %s", h->ns, path, strerror(errno));
	if (setns(nsfd, CLONE_NEWNET))
		DIE("netns '%s': setns: %s", h->ns, strerror(errno));
	close(nsfd);

	for (i = 0; i < nflows; i++) {
		nout += flows[i].src == me;
		nin += flows[i].dst == me;
	}
	c = calloc(nout + nin + 1, sizeof(*c));
	pfd = calloc(nout + nin + 1, sizeof(*pfd));
	if (!c || !pfd)
		DIE("host '%s': out of memory", h->ns);

	/* phase 1: listener */
	ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	set_cc(ls, h);
	sa.sin_addr = h->addr;
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 4096))
		DIE("host '%s': cannot listen on %s:%u: %s", h->ns, h->ip, opt.port, strerror(errno));
	say("L\n");
	read_u64(rfd);

	/* phase 2: outgoing connections (blocking connect, bounded) */
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];
		struct sockaddr_in da = { .sin_family = AF_INET, .sin_port = htons(opt.port) };
		struct timeval tv = { .tv_sec = (time_t)opt.timeout_s, .tv_usec = 0 };
		int fd;

		if (f->src != me)
			continue;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		set_cc(fd, h);
		if (f->parts > 1) {
			/* tell the host's Ethereal program this connection is
			 * 1/parts of a flow (include/dcbpf/ethereal.h) */
			unsigned mark = DC_ETH_MARK_MAGIC | f->parts;

			if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)))
				DIE("flow %u from '%s': SO_MARK 0x%x (sub-flow of %u parts): %s", f->id,
				    h->ns, mark, f->parts, strerror(errno));
		}
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		da.sin_addr = hosts[f->dst].addr;
		if (connect(fd, (struct sockaddr *)&da, sizeof(da)))
			DIE("flow %u: connect from '%s' (%s) to '%s' %s:%u: %s", f->id, h->ns, h->ip,
			    hosts[f->dst].ns, hosts[f->dst].ip, opt.port, strerror(errno));
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		c[nconn].fd = fd;
		c[nconn].out = 1;
		c[nconn].f = f;
		c[nconn].left = f->bytes;
		{
			uint32_t m = htonl(MAGIC), id = htonl(f->id);
			uint64_t len = req_be64(f->bytes);

			memcpy(c[nconn].hdr, &m, 4);
			memcpy(c[nconn].hdr + 4, &id, 4);
			memcpy(c[nconn].hdr + 8, &len, 8);
		}
		nconn++;
	}
	say("C\n");
	t0 = read_u64(rfd);
	deadline = t0 + (uint64_t)(opt.timeout_s * 1e9);

	/* phase 3: send and receive until every flow of this host is done */
	while (done_out < nout || done_in < nin) {
		uint64_t now = now_ns(), wake = deadline;
		unsigned np = 0, base, nc = nconn;
		int ms, r;

		if (now >= deadline) {
			for (i = 0; i < nconn; i++)
				if (c[i].out && c[i].left)
					DIE("flow %u from '%s' to '%s': timeout after %.0f s (sent %llu of %llu bytes)",
					    c[i].f->id, h->ns, hosts[c[i].f->dst].ns, opt.timeout_s,
					    (unsigned long long)(c[i].f->bytes - c[i].left),
					    (unsigned long long)c[i].f->bytes);
			DIE("host '%s': timeout after %.0f s: received %u of %u flows", h->ns,
			    opt.timeout_s, done_in, nin);
		}
		pfd[np].fd = accepted < nin ? ls : -1;
		pfd[np].events = POLLIN;
		np++;
		base = np;
		for (i = 0; i < nc; i++) {
			struct conn *k = &c[i];

			if (k->out && !k->started) {
				uint64_t at = t0 + k->f->offset_ns;

				if (now >= at) {
					k->started = 1;
					k->f->t_start = now;
				} else if (at < wake) {
					wake = at;
				}
			}
			pfd[np].fd = -1;
			pfd[np].events = 0;
			if (k->out && k->started && (k->hdr_have < HDR_LEN || k->left)) {
				pfd[np].fd = k->fd;
				pfd[np].events = POLLOUT;
			} else if (!k->out && (k->hdr_have < HDR_LEN || k->left)) {
				pfd[np].fd = k->fd;
				pfd[np].events = POLLIN;
			}
			np++;
		}
		ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		r = poll(pfd, np, ms);
		if (r < 0 && errno != EINTR)
			DIE("host '%s': poll: %s", h->ns, strerror(errno));
		if (r <= 0)
			continue;
		for (i = 0; i < nc; i++) {
			struct conn *k = &c[i];
			short ev = pfd[base + i].revents;
			ssize_t n = 0;

			if (pfd[base + i].fd < 0 || !ev)
				continue;
			if (k->out) {
				if (k->hdr_have < HDR_LEN) {
					n = send(k->fd, k->hdr + k->hdr_have, HDR_LEN - k->hdr_have, MSG_NOSIGNAL);
					if (n > 0)
						k->hdr_have += n;
				}
				while (n >= 0 && k->hdr_have == HDR_LEN && k->left) {
					n = send(k->fd, iobuf, k->left < CHUNK ? k->left : CHUNK, MSG_NOSIGNAL);
					if (n <= 0)
						break;
					k->left -= n;
					k->f->sent += n;
				}
				if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
					DIE("flow %u from '%s' to '%s': send: %s", k->f->id, h->ns,
					    hosts[k->f->dst].ns, strerror(errno));
				if (k->hdr_have == HDR_LEN && !k->left) {
					k->f->t_sent = now_ns();
					done_out++;
				}
				continue;
			}
			/* incoming */
			if (k->hdr_have < HDR_LEN) {
				n = recv(k->fd, k->hdr + k->hdr_have, HDR_LEN - k->hdr_have, 0);
				if (n == 0)
					DIE("host '%s': a connection closed before its header", h->ns);
				if (n > 0)
					k->hdr_have += n;
				if (k->hdr_have < HDR_LEN)
					continue;
				{
					uint32_t m, id;
					uint64_t len;

					memcpy(&m, k->hdr, 4);
					memcpy(&id, k->hdr + 4, 4);
					memcpy(&len, k->hdr + 8, 8);
					id = ntohl(id);
					if (ntohl(m) != MAGIC || id >= nflows || flows[id].dst != me)
						DIE("host '%s': bad header (flow id %u)", h->ns, id);
					k->f = &flows[id];
					k->left = req_be64(len);
				}
			}
			while (k->left) {
				n = recv(k->fd, iobuf, k->left < CHUNK ? k->left : CHUNK, 0);
				if (n == 0)
					DIE("flow %u from '%s' to '%s': closed after %llu of %llu bytes",
					    k->f->id, hosts[k->f->src].ns, h->ns,
					    (unsigned long long)k->f->rcvd, (unsigned long long)k->f->bytes);
				if (n < 0)
					break;
				k->left -= n;
				k->f->rcvd += n;
			}
			if (!k->left) {
				k->f->t_done = now_ns();
				done_in++;
			}
		}
		if (pfd[0].fd >= 0 && (pfd[0].revents & POLLIN)) {
			int fd;

			while ((fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				if (accepted >= nin)
					DIE("host '%s': more connections than the %u planned", h->ns, nin);
				c[nconn].fd = fd;
				c[nconn].out = 0;
				nconn++;
				accepted++;
			}
		}
	}
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		if (f->src == me)
			say("S %u %llu %llu %llu\n", f->id, (unsigned long long)f->sent,
			    (unsigned long long)f->t_start, (unsigned long long)f->t_sent);
		if (f->dst == me)
			say("R %u %llu %llu\n", f->id, (unsigned long long)f->rcvd,
			    (unsigned long long)f->t_done);
	}
	say("A %u\n", accepted);
	say("D\n");
	for (i = 0; i < nconn; i++)
		close(c[i].fd);
	_exit(0);
}
