// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * workload: the shared workload harness (docs/workload.md).  Flows of sizes
 * drawn from a CDF (web search, data mining or a file) arrive as a Poisson
 * process at a given load between sender and receiver namespaces, optional
 * incast requests on top; every flow's completion time is measured at the
 * application (the receiver answers one byte once it has read the flow's
 * last byte) and divided by the ideal FCT of the fabric (the slowdown).
 * Writes one CSV line per flow and a JSON summary: slowdown percentiles per
 * size bin and class.
 *
 *   workload --senders NS[@LEAF],... --receivers NS=IP[@LEAF],...
 *            --load L --rate-mbit R [--capacity-mbit C]
 *            [--cdf websearch|datamining|FILE] [--scale F] [--max-bytes N]
 *            [--flows N] [--duration S] [--timeout S] [--seed N]
 *            [--incast PERIOD_MS:BYTES:FANIN] [--cc CC | --cc bg=CC,incast=CC]
 *            [--hops H] [--burst-bytes B] [--mtu M] [--base-rtt-us U]
 *            [--rto-min-ms M] [--port P] [--conns K] [--max-conns K]
 *            [--tag KEY=VALUE]... [--csv FILE] [--json FILE]
 *
 * One process, one epoll loop: it enters each receiver's namespace (setns)
 * to open a listener per class there, and each sender's namespace to open
 * that sender's connections, then returns to its own; the sockets stay in
 * their namespaces.  Both ends of every flow are served by the loop, so
 * all times are read from one clock.
 *
 * Connections.  Per (sender, receiver, class) a pool: --conns opened and
 * established before the run, more (up to --max-conns) opened when a flow
 * arrives and none is idle; a flow that finds none waits (its wait_ns).
 * The CC of a class is set on its sockets before connect and on its
 * listener (accepted sockets inherit it), so both ends run it and a CC
 * that needs ECN negotiates it.  Never a namespace default.
 *
 * Every pair's base RTT is measured before and after the run: the minimum
 * over 2 x 10 empty requests, one at a time (--base-rtt-us overrides it).  The ideal FCT is
 * dc_wl_ideal_ns() (include/dcbpf/workload.h).
 *
 * Wire: a 16-byte header {"DCBW", version 1, length u64, big-endian}, then
 * the flow's bytes; the receiver answers 'K'.
 *
 * Exit 0 when every flow completed; 1 on a run-time failure (netns, CC
 * refused, connect failure, flows unfinished at the timeout: the files are
 * still written, unfinished flows with fct_ns -1); 2 on usage errors
 * (options, CDF file, load out of range).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dcbpf/workload.h"
#include "loader/lib/rand.h"
#include "tool.h"

#define MAGIC 0x44434257u /* "DCBW" */
#define CHUNK (256 * 1024)
#define MAX_HOSTS 256
#define NS_DIR "/run/netns/"
#define PROBES 10

enum { CL_BG, CL_INCAST, NCLASS, CL_PROBE = NCLASS };
static const char *const class_name[] = { "bg", "incast", "probe" };

enum { T_LISTEN, T_SINK, T_CLIENT };
enum { C_CONNECTING, C_IDLE, C_BUSY };

struct host {
	char ns[64];
	char ip[16];
	int leaf;		/* -1: not given */
	struct in_addr addr;
};

struct flow {
	uint64_t bytes;
	uint64_t arrive_ns;	/* absolute CLOCK_MONOTONIC */
	uint64_t send_ns;	/* first write */
	uint64_t done_ns;	/* 'K' read; 0 while unfinished */
	double ideal_ns;
	int32_t rto, retrans;	/* -1: not known */
	uint32_t pair;
	int32_t next;		/* FIFO of flows waiting for a connection */
	uint8_t cls;		/* CL_* (what it is reported as) */
	uint8_t ccls;		/* class of the connection it uses */
	uint16_t cc;		/* index into cc_seen */
};

struct conn {
	int type;		/* T_CLIENT */
	int fd, state, out;	/* out: EPOLLOUT armed */
	uint32_t pair;
	uint8_t cls;
	uint16_t cc;
	int32_t flow;
	uint64_t sent, total;
	uint32_t rto0, retr0;
	struct conn *next_idle;
};

struct sink {
	int type;		/* T_SINK */
	int fd;
	struct req_rx rx;
};

struct listener {
	int type;		/* T_LISTEN */
	int fd;
};

struct pair {
	uint32_t s, r;
	double rtt_ns;
	struct conn *idle[NCLASS];
	int32_t wait_head[NCLASS], wait_tail[NCLASS];
	unsigned int nconn[NCLASS];
};

static struct {
	struct host snd[MAX_HOSTS], rcv[MAX_HOSTS];
	unsigned int nsnd, nrcv;
	struct pair *pairs;
	unsigned int npairs;
	struct dc_wl_cdf cdf;
	const char *cdf_name;
	double scale, max_bytes, load, rate_mbit, cap_mbit, duration_s, timeout_s, burst, rto_min_ms, base_rtt_us;
	double mean_bytes, gap_ns;
	unsigned long long flows_limit, seed;
	unsigned int hops, mtu, port, conns, max_conns;
	int bins_unscaled;	/* bin by size / scale: the size the paper's bins refer to */
	double incast_period_ms;
	unsigned long long incast_bytes;
	unsigned int incast_fanin;
	const char *cc[NCLASS];
	const char *csv, *json;
	char *tags[32];
	unsigned int ntags;
} P = {
	.scale = 1, .duration_s = 0, .timeout_s = 30, .hops = 1, .mtu = 1500, .port = 6100,
	.conns = 2, .max_conns = 64, .seed = 1, .rto_min_ms = -1, .base_rtt_us = -1,
};

static struct flow *flows;
static size_t nflows, capflows;
static int ep, home_ns;
static char iobuf[CHUNK];
static char cc_seen[16][32];
static unsigned int ncc_seen;
static unsigned int tcpi_rto_min = UINT32_MAX, tcpi_rto_max;
static int rto_known = -1;	/* the kernel reports tcpi_total_rto (6.7+) */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (workload --help)\n", stderr);
	exit(2);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: workload --senders NS[@LEAF],... --receivers NS=IP[@LEAF],...\n"
		"                --load L --rate-mbit R [options]\n"
		"Flows of CDF-drawn sizes, Poisson arrivals at load L of --capacity-mbit\n"
		"(default R), between every sender and receiver that are not the same\n"
		"namespace and not on the same leaf; FCT slowdown per size bin.\n"
		"  --cdf websearch|datamining|FILE  sizes (FILE: lines 'BYTES P'; default websearch)\n"
		"  --scale F          multiply sizes by F (e.g. 0.04 for a 25G workload at 1G)\n"
		"  --max-bytes N      cap sizes at N bytes\n"
		"  --bins bytes|unscaled  size bins by the flow's bytes (default) or by\n"
		"                     bytes / scale: the sizes of the unscaled workload\n"
		"  --load L           0 < L <= 1 of the capacity (0 only with --incast)\n"
		"  --rate-mbit R      bottleneck rate of a path (ideal FCT)\n"
		"  --capacity-mbit C  what the load is relative to (default R)\n"
		"  --flows N          stop arrivals after N background flows\n"
		"  --duration S       stop arrivals after S seconds (default 2 without --flows)\n"
		"  --timeout S        after the arrivals stop, wait S s for completion (30)\n"
		"  --seed N           random seed (1): same seed, same flows\n"
		"  --incast P:B:F     every P ms, F senders send B bytes each to one receiver\n"
		"  --cc CC | --cc bg=CC,incast=CC   TCP_CONGESTION per class (default: ns default)\n"
		"  --hops H           rate-limited hops on a path (1; ideal FCT)\n"
		"  --burst-bytes B    token bucket of the bottleneck, bytes (0; ideal FCT)\n"
		"  --mtu M            MTU of the hosts (1500; MSS = M - 52)\n"
		"  --base-rtt-us U    base RTT instead of the measured one\n"
		"  --rto-min-ms M     the routes' rto_min, recorded in the summary\n"
		"  --port P           first listener port (6100; one per class)\n"
		"  --conns K          connections per pair and class opened first (2)\n"
		"  --max-conns K      at most K per pair and class (64)\n"
		"  --tag KEY=VALUE    recorded in the summary's params.tags\n"
		"  --csv FILE         per-flow CSV; --json FILE summary (default stdout)\n"
		"Exit 0: every flow completed; 1: run-time failure; 2: usage.\n");
}

/* ---- setup ---------------------------------------------------------------- */

static void enter_netns(const char *name)
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

static void leave_netns(void)
{
	if (setns(home_ns, CLONE_NEWNET))
		die("returning to own netns: %s", strerror(errno));
}

static void available_ccs(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static void set_cc(int fd, int cls, const char *where)
{
	const char *cc = P.cc[cls];
	char avail[512];

	if (!cc || !setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)))
		return;
	int err = errno;

	available_ccs(avail, sizeof(avail));
	die("congestion control '%s' (class %s) refused by the kernel (TCP_CONGESTION %s: %s); available: %s%s",
	    cc, class_name[cls], where, strerror(err), avail[0] ? avail : "(unknown)",
	    err == ENOENT ? "; register it first (tests/lib/dctcp.sh for dctcp, dcbpfd for powertcp)" : "");
}

static uint16_t cc_index(int fd)
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

static int ep_add(int fd, void *ptr, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void ep_mod(struct conn *c, int out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c };

	if (c->out == out)
		return;
	c->out = out;
	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void open_listeners(int used[NCLASS])
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

static struct conn *open_conn(uint32_t pi, int cls)
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

/* ---- TCP_INFO --------------------------------------------------------------- */

/* Offsets in the kernel's struct tcp_info (include/uapi/linux/tcp.h; it
 * only grows at its end): tcpi_rto 8, tcpi_total_retrans 100, tcpi_snd_wnd
 * 228 (5.4+), then tcpi_rcv_wnd, tcpi_rehash and tcpi_total_rto (u16, 6.7+)
 * at 240.  glibc's copy of the struct ends earlier, hence raw offsets. */
#define TCPI_RTO_OFF 8
#define TCPI_TOTAL_RETRANS_OFF 100
#define TCPI_TOTAL_RTO_OFF 240

static void tcp_counters(int fd, uint32_t *rto, uint32_t *retr, uint32_t *rto_us)
{
	unsigned char buf[512];
	socklen_t len = sizeof(buf);

	memset(buf, 0, sizeof(buf));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, buf, &len)) {
		*rto = *retr = 0;
		return;
	}
	memcpy(retr, buf + TCPI_TOTAL_RETRANS_OFF, 4);
	if (rto_us)
		memcpy(rto_us, buf + TCPI_RTO_OFF, 4);
	if (len >= TCPI_TOTAL_RTO_OFF + 2) {
		uint16_t r;

		memcpy(&r, buf + TCPI_TOTAL_RTO_OFF, 2);
		*rto = r;
		rto_known = 1;
	} else {
		*rto = 0;
		rto_known = 0;
	}
}

/* ---- flows ------------------------------------------------------------------ */

static int32_t new_flow(uint32_t pi, int cls, uint64_t bytes, uint64_t at)
{
	struct flow *f;

	if (nflows == capflows) {
		capflows = capflows ? capflows * 2 : 4096;
		flows = realloc(flows, capflows * sizeof(*flows));
		if (!flows)
			die("out of memory for %zu flows", capflows);
	}
	f = &flows[nflows];
	memset(f, 0, sizeof(*f));
	f->bytes = bytes;
	f->arrive_ns = at;
	f->pair = pi;
	f->cls = cls;
	f->ccls = cls == CL_PROBE ? (P.load > 0 ? CL_BG : CL_INCAST) : cls;
	f->next = -1;
	f->rto = f->retrans = -1;
	return (int32_t)nflows++;
}

static void conn_send(struct conn *c);

static void start_on(struct conn *c, int32_t fi)
{
	struct flow *f = &flows[fi];

	c->state = C_BUSY;
	c->flow = fi;
	c->sent = 0;
	c->total = DC_WL_REQ_HDR + f->bytes;
	tcp_counters(c->fd, &c->rto0, &c->retr0, NULL);
	f->cc = c->cc;
	f->send_ns = now_ns();
	conn_send(c);
}

static void conn_idle(struct conn *c)
{
	struct pair *pa = &P.pairs[c->pair];
	int32_t fi = pa->wait_head[c->cls];

	c->state = C_IDLE;
	c->flow = -1;
	if (fi >= 0) {
		pa->wait_head[c->cls] = flows[fi].next;
		if (pa->wait_head[c->cls] < 0)
			pa->wait_tail[c->cls] = -1;
		start_on(c, fi);
		return;
	}
	c->next_idle = pa->idle[c->cls];
	pa->idle[c->cls] = c;
}

static void arrive(int32_t fi)
{
	struct flow *f = &flows[fi];
	struct pair *pa = &P.pairs[f->pair];
	struct conn *c = pa->idle[f->ccls];

	if (c) {
		pa->idle[f->ccls] = c->next_idle;
		start_on(c, fi);
		return;
	}
	if (pa->wait_tail[f->ccls] >= 0)
		flows[pa->wait_tail[f->ccls]].next = fi;
	else
		pa->wait_head[f->ccls] = fi;
	pa->wait_tail[f->ccls] = fi;
	if (pa->nconn[f->ccls] < P.max_conns)
		open_conn(f->pair, f->ccls);
}

static void conn_send(struct conn *c)
{
	static unsigned char hdr[DC_WL_REQ_HDR];

	while (c->sent < c->total) {
		ssize_t n;

		if (c->sent < DC_WL_REQ_HDR) {
			req_hdr_put(hdr, MAGIC, flows[c->flow].bytes);
			/* MSG_MORE: the header leaves with the first bytes (an
			 * empty request must not wait for more) */
			n = send(c->fd, hdr + c->sent, DC_WL_REQ_HDR - c->sent,
				 MSG_NOSIGNAL | (flows[c->flow].bytes ? MSG_MORE : 0));
		} else {
			uint64_t rest = c->total - c->sent;

			n = send(c->fd, iobuf, rest < CHUNK ? rest : CHUNK, MSG_NOSIGNAL);
		}
		if (n < 0) {
			if (errno == EAGAIN)
				break;
			die("send from '%s' to %s: %s", P.snd[P.pairs[c->pair].s].ns, P.rcv[P.pairs[c->pair].r].ip,
			    strerror(errno));
		}
		c->sent += n;
	}
	ep_mod(c, c->sent < c->total);
}

static unsigned long done_count;

static void conn_read(struct conn *c)
{
	char k[16];
	ssize_t n = recv(c->fd, k, sizeof(k), MSG_DONTWAIT);

	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0 || c->state != C_BUSY || c->sent < c->total || n != 1 || k[0] != 'K')
		die("connection from '%s' to %s: %s", P.snd[P.pairs[c->pair].s].ns, P.rcv[P.pairs[c->pair].r].ip,
		    n == 0 ? "closed by the receiver" : n < 0 ? strerror(errno) : "unexpected answer");
	struct flow *f = &flows[c->flow];
	uint32_t rto, retr, rto_us;

	f->done_ns = now_ns();
	if (f->cls == CL_PROBE) {
		double r = (double)(f->done_ns - f->send_ns);

		if (r < P.pairs[f->pair].rtt_ns)
			P.pairs[f->pair].rtt_ns = r;
		conn_idle(c);
		return;
	}
	tcp_counters(c->fd, &rto, &retr, &rto_us);
	f->retrans = (int32_t)(retr - c->retr0);
	f->rto = rto_known ? (int32_t)(uint16_t)(rto - c->rto0) : -1;
	if (rto_us < tcpi_rto_min)
		tcpi_rto_min = rto_us;
	if (rto_us > tcpi_rto_max)
		tcpi_rto_max = rto_us;
	done_count++;
	conn_idle(c);
}

/* The receiving end (tool.h).  Returns -1 to close. */
static int sink_read(struct sink *s)
{
	return req_rx_read(s->fd, &s->rx, MAGIC, "workload");
}

static void accept_all(struct listener *l)
{
	int fd, one = 1;

	while ((fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct sink *s = calloc(1, sizeof(*s));

		if (!s)
			die("out of memory");
		s->type = T_SINK;
		s->fd = fd;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		ep_add(fd, s, EPOLLIN | EPOLLRDHUP);
	}
}

static void poll_once(uint64_t until);

/* Every pair's base RTT: the minimum over PROBES empty requests, one at a
 * time over the whole fabric (parallel ones would time each other's
 * processing).  Lowers pair.rtt_ns. */
static void probe_all(void)
{
	uint64_t deadline = now_ns() + 10000000000ull;
	unsigned int i, j;

	for (i = 0; i < P.npairs; i++)
		for (j = 0; j < PROBES; j++) {
			int32_t fi = new_flow(i, CL_PROBE, 0, now_ns());

			arrive(fi);
			while (!flows[fi].done_ns) {
				if (now_ns() > deadline || stop)
					die("base RTT probes unanswered after 10 s");
				poll_once(now_ns() + 100000000);
			}
		}
}

/* One pass of the loop: wait until `until` (absolute ns) at most. */
static void poll_once(uint64_t until)
{
	struct epoll_event evs[256];
	uint64_t t = now_ns();
	struct timespec to = { 0, 0 };
	int n, i;

	if (until > t) {
		to.tv_sec = (until - t) / 1000000000ull;
		to.tv_nsec = (until - t) % 1000000000ull;
	}
	n = epoll_pwait2(ep, evs, 256, &to, NULL);
	if (n < 0) {
		if (errno == EINTR)
			return;
		die("epoll_pwait2: %s", strerror(errno));
	}
	for (i = 0; i < n; i++) {
		int type = *(int *)evs[i].data.ptr;

		if (type == T_LISTEN) {
			accept_all(evs[i].data.ptr);
		} else if (type == T_SINK) {
			struct sink *s = evs[i].data.ptr;

			if (sink_read(s)) {
				epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
				close(s->fd);
				free(s);
			}
		} else {
			struct conn *c = evs[i].data.ptr;

			if (c->state == C_CONNECTING) {
				int err = 0;
				socklen_t sl = sizeof(err);

				if (!(evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
					continue;
				getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl);
				if (err)
					die("connect from '%s' to %s:%u: %s", P.snd[P.pairs[c->pair].s].ns,
					    P.rcv[P.pairs[c->pair].r].ip, P.port + c->cls, strerror(err));
				c->cc = cc_index(c->fd);
				ep_mod(c, 0);
				conn_idle(c);
				continue;
			}
			if ((evs[i].events & EPOLLOUT) && c->state == C_BUSY && c->sent < c->total)
				conn_send(c);
			if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				conn_read(c);
		}
	}
}

/* ---- arguments ----------------------------------------------------------------- */

static void parse_hosts(const char *arg, struct host *h, unsigned int *n, int need_ip, const char *opt)
{
	char *dup = strdup(arg), *save = NULL, *tok;

	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *at = strchr(tok, '@'), *eq = strchr(tok, '=');
		struct host *x = &h[*n];

		if (*n == MAX_HOSTS)
			die_usage("%s: more than %d hosts", opt, MAX_HOSTS);
		x->leaf = -1;
		if (at) {
			char *end;

			*at = 0;
			x->leaf = (int)strtol(at + 1, &end, 10);
			if (end == at + 1 || *end || x->leaf < 0)
				die_usage("%s: bad leaf in '%s@%s'", opt, tok, at + 1);
		}
		if (eq) {
			*eq = 0;
			snprintf(x->ip, sizeof(x->ip), "%s", eq + 1);
			if (inet_pton(AF_INET, x->ip, &x->addr) != 1)
				die_usage("%s: bad IPv4 address '%s' for '%s'", opt, eq + 1, tok);
		} else if (need_ip) {
			die_usage("%s: '%s' needs an address (NS=IP)", opt, tok);
		}
		if (!*tok || strlen(tok) >= sizeof(x->ns) || strchr(tok, '/'))
			die_usage("%s: bad namespace name '%s'", opt, tok);
		snprintf(x->ns, sizeof(x->ns), "%s", tok);
		(*n)++;
	}
	free(dup);
	if (!*n)
		die_usage("%s: no hosts", opt);
}

static double num(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !isfinite(v))
		die_usage("%s: '%s' is not a number", opt, s);
	return v;
}

static void parse_cc(const char *arg)
{
	char *dup = strdup(arg), *save = NULL, *tok;

	if (!strchr(arg, '=')) {
		P.cc[CL_BG] = P.cc[CL_INCAST] = arg;
		free(dup);
		return;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int cls;

		if (!eq || !eq[1])
			die_usage("--cc: '%s' is not CLASS=CC", tok);
		*eq = 0;
		for (cls = 0; cls < NCLASS && strcmp(tok, class_name[cls]); cls++)
			;
		if (cls == NCLASS)
			die_usage("--cc: unknown class '%s' (bg or incast)", tok);
		P.cc[cls] = strdup(eq + 1);
	}
	free(dup);
}

static void load_cdf(const char *arg)
{
	char err[256];

	P.cdf_name = arg;
	if (!strcmp(arg, "websearch")) {
		P.cdf = dc_wl_websearch;
		return;
	}
	if (!strcmp(arg, "datamining")) {
		P.cdf = dc_wl_datamining;
		return;
	}
	FILE *f = fopen(arg, "r");
	static char text[65536];
	size_t n;

	if (!f)
		die_usage("--cdf: '%s' is neither websearch, datamining nor a readable file: %s", arg, strerror(errno));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	if (n == sizeof(text) - 1)
		die_usage("--cdf: '%s' is larger than %zu bytes", arg, sizeof(text) - 1);
	text[n] = 0;
	if (dc_wl_cdf_parse(text, &P.cdf, err, sizeof(err)))
		die_usage("--cdf: %s: %s", arg, err);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "senders", 1, 0, 's' }, { "receivers", 1, 0, 'r' }, { "cdf", 1, 0, 'C' },
		{ "scale", 1, 0, 'S' }, { "max-bytes", 1, 0, 'M' }, { "load", 1, 0, 'l' },
		{ "rate-mbit", 1, 0, 'R' }, { "capacity-mbit", 1, 0, 'c' }, { "flows", 1, 0, 'n' },
		{ "duration", 1, 0, 'd' }, { "timeout", 1, 0, 't' }, { "seed", 1, 0, 'e' },
		{ "incast", 1, 0, 'i' }, { "cc", 1, 0, 'y' }, { "hops", 1, 0, 'H' },
		{ "burst-bytes", 1, 0, 'b' }, { "mtu", 1, 0, 'm' }, { "base-rtt-us", 1, 0, 'B' },
		{ "rto-min-ms", 1, 0, 'o' }, { "port", 1, 0, 'p' }, { "conns", 1, 0, 'k' },
		{ "max-conns", 1, 0, 'K' }, { "tag", 1, 0, 'g' }, { "csv", 1, 0, 'v' },
		{ "json", 1, 0, 'j' }, { "bins", 1, 0, 'N' }, { "help", 0, 0, 'h' }, { 0 },
	};
	int o, have_load = 0, have_rate = 0;

	load_cdf("websearch");
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case 's': parse_hosts(optarg, P.snd, &P.nsnd, 0, "--senders"); break;
		case 'r': parse_hosts(optarg, P.rcv, &P.nrcv, 1, "--receivers"); break;
		case 'C': load_cdf(optarg); break;
		case 'S': P.scale = num("--scale", optarg); break;
		case 'N':
			if (strcmp(optarg, "bytes") && strcmp(optarg, "unscaled"))
				die_usage("--bins: bytes or unscaled, got '%s'", optarg);
			P.bins_unscaled = !strcmp(optarg, "unscaled");
			break;
		case 'M': P.max_bytes = num("--max-bytes", optarg); break;
		case 'l': P.load = num("--load", optarg); have_load = 1; break;
		case 'R': P.rate_mbit = num("--rate-mbit", optarg); have_rate = 1; break;
		case 'c': P.cap_mbit = num("--capacity-mbit", optarg); break;
		case 'n': P.flows_limit = (unsigned long long)num("--flows", optarg); break;
		case 'd': P.duration_s = num("--duration", optarg); break;
		case 't': P.timeout_s = num("--timeout", optarg); break;
		case 'e': P.seed = (unsigned long long)num("--seed", optarg); break;
		case 'i': {
			char *end;

			P.incast_period_ms = strtod(optarg, &end);
			if (*end != ':')
				die_usage("--incast: want PERIOD_MS:BYTES:FANIN, got '%s'", optarg);
			P.incast_bytes = strtoull(end + 1, &end, 10);
			if (*end != ':')
				die_usage("--incast: want PERIOD_MS:BYTES:FANIN, got '%s'", optarg);
			P.incast_fanin = (unsigned int)strtoul(end + 1, &end, 10);
			if (*end || P.incast_period_ms <= 0 || !P.incast_bytes || !P.incast_fanin)
				die_usage("--incast: want PERIOD_MS:BYTES:FANIN, all > 0, got '%s'", optarg);
			break;
		}
		case 'y': parse_cc(optarg); break;
		case 'H': P.hops = (unsigned int)num("--hops", optarg); break;
		case 'b': P.burst = num("--burst-bytes", optarg); break;
		case 'm': P.mtu = (unsigned int)num("--mtu", optarg); break;
		case 'B': P.base_rtt_us = num("--base-rtt-us", optarg); break;
		case 'o': P.rto_min_ms = num("--rto-min-ms", optarg); break;
		case 'p': P.port = (unsigned int)num("--port", optarg); break;
		case 'k': P.conns = (unsigned int)num("--conns", optarg); break;
		case 'K': P.max_conns = (unsigned int)num("--max-conns", optarg); break;
		case 'g':
			if (P.ntags == 32 || !strchr(optarg, '=') || strchr(optarg, '"') || strchr(optarg, '\\'))
				die_usage("--tag: want KEY=VALUE without quotes (at most 32), got '%s'", optarg);
			P.tags[P.ntags++] = optarg;
			break;
		case 'v': P.csv = optarg; break;
		case 'j': P.json = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!P.nsnd || !P.nrcv)
		die_usage("--senders and --receivers are required");
	if (!have_load || !have_rate)
		die_usage("--load and --rate-mbit are required");
	if (!(P.load >= 0 && P.load <= 1))
		die_usage("--load %g is out of range: a fraction of the capacity, 0 < L <= 1", P.load);
	if (P.load == 0 && !P.incast_fanin)
		die_usage("--load 0 without --incast: no traffic");
	if (P.rate_mbit <= 0)
		die_usage("--rate-mbit must be > 0");
	if (!P.cap_mbit)
		P.cap_mbit = P.rate_mbit;
	if (P.cap_mbit <= 0)
		die_usage("--capacity-mbit must be > 0");
	if (P.scale <= 0 || P.max_bytes < 0 || P.burst < 0 || P.timeout_s <= 0 || P.duration_s < 0)
		die_usage("--scale, --timeout must be > 0; --max-bytes, --burst-bytes, --duration >= 0");
	if (P.hops < 1 || P.hops > 16 || P.mtu < 576 || P.mtu > 65535 || P.conns < 1 || P.max_conns < P.conns ||
	    P.port < 1 || P.port + NCLASS > 65535)
		die_usage("--hops 1..16, --mtu 576..65535, 1 <= --conns <= --max-conns, --port 1..65533");
	if (!P.flows_limit && !P.duration_s)
		P.duration_s = 2;
	P.mean_bytes = dc_wl_cdf_mean(&P.cdf, P.scale, P.max_bytes);
	if (P.load > 0 && P.mean_bytes < 1)
		die_usage("the CDF's mean size is %g bytes after --scale", P.mean_bytes);
	P.gap_ns = P.load > 0 ? dc_wl_mean_gap_ns(P.load, P.cap_mbit, P.mean_bytes) : 0;
}

/* ---- summary -------------------------------------------------------------------- */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void jnum(FILE *o, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", o);
	else
		fprintf(o, "%.6g", v);
}

/* {"n":..,"p50":..,"p95":..,"p99":..,"p999":..,"mean":..} of v[0..n), sorted here */
static void jstats(FILE *o, double *v, unsigned long n)
{
	double sum = 0;
	unsigned long i;

	qsort(v, n, sizeof(*v), cmp_d);
	for (i = 0; i < n; i++)
		sum += v[i];
	fprintf(o, "{\"n\":%lu,\"p50\":", n);
	jnum(o, dc_wl_pct(v, n, 50));
	fputs(",\"p95\":", o);
	jnum(o, dc_wl_pct(v, n, 95));
	fputs(",\"p99\":", o);
	jnum(o, dc_wl_pct(v, n, 99));
	fputs(",\"p999\":", o);
	jnum(o, dc_wl_pct(v, n, 99.9));
	fputs(",\"mean\":", o);
	jnum(o, n ? sum / n : NAN);
	fputs("}", o);
}

static int in_class(const struct flow *f, int cls)
{
	return f->cls != CL_PROBE && (cls < 0 || f->cls == cls);
}

/* The size a flow is binned by: its own, or with --bins unscaled the size
 * before --scale, so a scaled run's "short < 10 KB" holds the flows the
 * paper's figure calls short. */
static unsigned long long bin_bytes(const struct flow *f)
{
	return P.bins_unscaled && P.scale > 0 ? (unsigned long long)(f->bytes / P.scale + 0.5) : f->bytes;
}

static void jbins(FILE *o, int cls, const struct dc_wl_bin *bins, unsigned int nb, double *v)
{
	unsigned int b;

	fputc('[', o);
	for (b = 0; b < nb; b++) {
		unsigned long n = 0;
		size_t i;

		for (i = 0; i < nflows; i++)
			if (in_class(&flows[i], cls) && flows[i].done_ns &&
			    dc_wl_bin_of(bins, nb, bin_bytes(&flows[i])) == b)
				v[n++] = (double)(flows[i].done_ns - flows[i].arrive_ns) / flows[i].ideal_ns;
		fprintf(o, "%s{\"bin\":\"%s\",\"lo_bytes\":%llu,\"hi_bytes\":", b ? "," : "", bins[b].name, bins[b].lo);
		if (bins[b].hi)
			fprintf(o, "%llu", bins[b].hi);
		else
			fputs("null", o);
		fputs(",\"slowdown\":", o);
		jstats(o, v, n);
		fputc('}', o);
	}
	fputc(']', o);
}

static void jclass(FILE *o, int cls, double *v)
{
	unsigned long n = 0, done = 0, rto = 0, retr = 0, with_rto = 0;
	unsigned long long bytes = 0;
	size_t i;

	for (i = 0; i < nflows; i++) {
		if (!in_class(&flows[i], cls))
			continue;
		n++;
		bytes += flows[i].bytes;
		if (!flows[i].done_ns)
			continue;
		done++;
		rto += flows[i].rto > 0 ? flows[i].rto : 0;
		with_rto += flows[i].rto > 0;
		retr += flows[i].retrans > 0 ? flows[i].retrans : 0;
	}
	fprintf(o, "{\"flows\":%lu,\"completed\":%lu,\"bytes\":%llu,\"retrans\":%lu,", n, done, bytes, retr);
	if (rto_known == 1)
		fprintf(o, "\"rto_count\":%lu,\"flows_with_rto\":%lu,", rto, with_rto);
	else
		fputs("\"rto_count\":null,\"flows_with_rto\":null,", o);
	n = 0;
	for (i = 0; i < nflows; i++)
		if (in_class(&flows[i], cls) && flows[i].done_ns)
			v[n++] = (double)(flows[i].done_ns - flows[i].arrive_ns) / 1000.0;
	fputs("\"fct_us\":", o);
	jstats(o, v, n);
	n = 0;
	for (i = 0; i < nflows; i++)
		if (in_class(&flows[i], cls) && flows[i].done_ns)
			v[n++] = (double)(flows[i].done_ns - flows[i].arrive_ns) / flows[i].ideal_ns;
	fputs(",\"slowdown\":", o);
	jstats(o, v, n);
	fputs(",\"bins\":", o);
	jbins(o, cls, dc_wl_bins, DC_WL_NBINS, v);
	fputs(",\"fine_bins\":", o);
	jbins(o, cls, dc_wl_fine_bins, DC_WL_NFINE, v);
	fputc('}', o);
}

static void jstr(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', o);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, o);
	}
	fputc('"', o);
}

static void write_outputs(uint64_t t0, uint64_t t_end)
{
	FILE *o = stdout, *c;
	double *v = malloc((nflows + 1) * sizeof(double)), *rtts = malloc((P.npairs + 1) * sizeof(double));
	size_t i;
	unsigned int k, nr = 0;

	if (!v || !rtts)
		die("out of memory");
	if (P.csv) {
		c = fopen(P.csv, "w");
		if (!c)
			die("cannot write %s: %s", P.csv, strerror(errno));
		fputs("id,class,cc,src,dst,size_bytes,start_ns,fct_ns,ideal_ns,slowdown,rto_count,retrans,wait_ns\n", c);
		unsigned long id = 0;

		for (i = 0; i < nflows; i++) {
			const struct flow *f = &flows[i];
			const struct pair *pa = &P.pairs[f->pair];

			if (f->cls == CL_PROBE)
				continue;
			fprintf(c, "%lu,%s,%s,%s,%s,%llu,%llu,", id++, class_name[f->cls], f->send_ns ? cc_seen[f->cc] : "",
				P.snd[pa->s].ns, P.rcv[pa->r].ns, (unsigned long long)f->bytes,
				(unsigned long long)(f->arrive_ns - t0));
			if (f->done_ns)
				fprintf(c, "%llu,%.0f,%.4f,%d,%d,%llu\n", (unsigned long long)(f->done_ns - f->arrive_ns),
					f->ideal_ns, (double)(f->done_ns - f->arrive_ns) / f->ideal_ns, f->rto, f->retrans,
					(unsigned long long)(f->send_ns - f->arrive_ns));
			else
				fprintf(c, "-1,%.0f,-1,-1,-1,%lld\n", f->ideal_ns,
					f->send_ns ? (long long)(f->send_ns - f->arrive_ns) : -1LL);
		}
		if (fclose(c))
			die("writing %s: %s", P.csv, strerror(errno));
	}
	if (P.json && !(o = fopen(P.json, "w")))
		die("cannot write %s: %s", P.json, strerror(errno));
	fputs("{\"schema\":\"dcbpf-workload/1\",\"params\":{\"cdf\":", o);
	jstr(o, P.cdf_name);
	fprintf(o, ",\"cdf_mean_bytes\":%.0f,\"scale\":%g,\"max_bytes\":%.0f,\"load\":%g,\"rate_mbit\":%g,"
		"\"capacity_mbit\":%g,\"mean_gap_us\":%.3f,\"flows_limit\":%llu,\"duration_s\":%g,\"timeout_s\":%g,"
		"\"seed\":%llu,\"bins_by\":\"%s\",\"incast\":",
		P.mean_bytes, P.scale, P.max_bytes, P.load, P.rate_mbit, P.cap_mbit, P.gap_ns / 1000.0, P.flows_limit,
		P.duration_s, P.timeout_s, P.seed, P.bins_unscaled ? "unscaled" : "bytes");
	if (P.incast_fanin)
		fprintf(o, "{\"period_ms\":%g,\"bytes\":%llu,\"fanin\":%u}", P.incast_period_ms, P.incast_bytes,
			P.incast_fanin);
	else
		fputs("null", o);
	fputs(",\"cc\":{", o);
	for (k = 0; k < NCLASS; k++) {
		fprintf(o, "%s\"%s\":", k ? "," : "", class_name[k]);
		if (P.cc[k])
			jstr(o, P.cc[k]);
		else
			fputs("null", o);
	}
	fprintf(o, "},\"hops\":%u,\"burst_bytes\":%.0f,\"mtu\":%u,\"mss\":%u,\"rto_min_ms\":", P.hops, P.burst, P.mtu,
		P.mtu - 52);
	jnum(o, P.rto_min_ms >= 0 ? P.rto_min_ms : NAN);
	fputs(",\"base_rtt_us\":", o);
	jnum(o, P.base_rtt_us >= 0 ? P.base_rtt_us : NAN);
	fprintf(o, ",\"port\":%u,\"conns\":%u,\"max_conns\":%u,\"senders\":[", P.port, P.conns, P.max_conns);
	for (k = 0; k < P.nsnd; k++) {
		fputs(k ? "," : "", o);
		jstr(o, P.snd[k].ns);
	}
	fputs("],\"receivers\":[", o);
	for (k = 0; k < P.nrcv; k++) {
		fputs(k ? "," : "", o);
		jstr(o, P.rcv[k].ns);
	}
	fprintf(o, "],\"pairs\":%u,\"tags\":{", P.npairs);
	for (k = 0; k < P.ntags; k++) {
		char *eq = strchr(P.tags[k], '=');

		fprintf(o, "%s\"%.*s\":", k ? "," : "", (int)(eq - P.tags[k]), P.tags[k]);
		jstr(o, eq + 1);
	}
	fputs("}},", o);
	/* the measured base RTT over pairs */
	for (k = 0; k < P.npairs; k++)
		rtts[nr++] = P.pairs[k].rtt_ns / 1000.0;
	qsort(rtts, nr, sizeof(double), cmp_d);
	fputs("\"base_rtt_us\":{\"min\":", o);
	jnum(o, nr ? rtts[0] : NAN);
	fputs(",\"median\":", o);
	jnum(o, dc_wl_pct(rtts, nr, 50));
	fputs(",\"max\":", o);
	jnum(o, nr ? rtts[nr - 1] : NAN);
	unsigned long long bytes = 0;
	unsigned long n = 0, done = 0;

	for (i = 0; i < nflows; i++)
		if (flows[i].cls != CL_PROBE) {
			n++;
			done += !!flows[i].done_ns;
			bytes += flows[i].done_ns ? flows[i].bytes : 0;
		}
	double el = (double)(t_end - t0) / 1e9;

	fprintf(o, "},\"run\":{\"flows\":%lu,\"completed\":%lu,\"elapsed_s\":%.4f,\"goodput_mbit\":%.2f,\"cc\":[", n, done,
		el, el > 0 ? bytes * 8 / el / 1e6 : 0);
	for (k = 0; k < ncc_seen; k++) {
		fputs(k ? "," : "", o);
		jstr(o, cc_seen[k]);
	}
	fputs("],\"tcpi_rto_us_min\":", o);
	jnum(o, tcpi_rto_min == UINT32_MAX ? NAN : tcpi_rto_min);
	fputs(",\"tcpi_rto_us_max\":", o);
	jnum(o, tcpi_rto_min == UINT32_MAX ? NAN : tcpi_rto_max);
	fprintf(o, ",\"rto_count_known\":%s},\"classes\":{\"all\":", rto_known == 1 ? "true" : "false");
	jclass(o, -1, v);
	for (k = 0; k < NCLASS; k++) {
		fprintf(o, ",\"%s\":", class_name[k]);
		jclass(o, k, v);
	}
	fputs("}", o);
	if (P.csv) {
		const char *b = strrchr(P.csv, '/');

		fputs(",\"csv\":", o);
		jstr(o, b ? b + 1 : P.csv);
	}
	fputs("}\n", o);
	if (o != stdout && fclose(o))
		die("writing %s: %s", P.json, strerror(errno));
	free(v);
	free(rtts);
}

/* ---- main ----------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	int used[NCLASS] = { 0 };
	unsigned int i, j, cls;
	struct rlimit rl;

	parse_args(argc, argv);
	used[CL_BG] = P.load > 0;
	used[CL_INCAST] = P.incast_fanin > 0;

	/* pairs: not the same namespace, not the same leaf */
	P.pairs = calloc((size_t)P.nsnd * P.nrcv, sizeof(*P.pairs));
	if (!P.pairs)
		die("out of memory");
	for (i = 0; i < P.nsnd; i++)
		for (j = 0; j < P.nrcv; j++) {
			if (!strcmp(P.snd[i].ns, P.rcv[j].ns) ||
			    (P.snd[i].leaf >= 0 && P.rcv[j].leaf >= 0 && P.snd[i].leaf == P.rcv[j].leaf))
				continue;
			struct pair *pa = &P.pairs[P.npairs++];

			pa->s = i;
			pa->r = j;
			for (cls = 0; cls < NCLASS; cls++)
				pa->wait_head[cls] = pa->wait_tail[cls] = -1;
		}
	if (!P.npairs)
		die_usage("no sender-receiver pair (same namespace or same leaf everywhere)");

	/* a CC the kernel does not know fails here, before any namespace */
	{
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		for (cls = 0; cls < NCLASS; cls++)
			if (used[cls])
				set_cc(fd, cls, "on a test socket");
		close(fd);
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* arrivals on time: the default 50 µs of timer slack would delay
	 * every wake-up for a scheduled arrival by about that much */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	struct sigaction act = { .sa_handler = on_signal };

	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (home_ns < 0 || ep < 0)
		die("own netns / epoll: %s", strerror(errno));
	open_listeners(used);

	/* every pool's first connections, established */
	uint64_t deadline = now_ns() + 10000000000ull;
	unsigned long want = 0;

	for (i = 0; i < P.npairs; i++)
		for (cls = 0; cls < NCLASS; cls++)
			for (j = 0; used[cls] && j < P.conns; j++) {
				open_conn(i, cls);
				want++;
			}
	for (;;) {
		unsigned long idle = 0;

		for (i = 0; i < P.npairs; i++)
			for (cls = 0; cls < NCLASS; cls++)
				for (struct conn *c = P.pairs[i].idle[cls]; c; c = c->next_idle)
					idle++;
		if (idle == want)
			break;
		if (now_ns() > deadline || stop)
			die("%lu of %lu connections established after 10 s", idle, want);
		poll_once(now_ns() + 100000000);
	}

	for (i = 0; i < P.npairs; i++)
		P.pairs[i].rtt_ns = INFINITY;
	probe_all();

	/* the run: Poisson arrivals of background flows, incasts every period */
	__u64 rs = P.seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
	uint64_t t0 = now_ns(), stop_at = P.duration_s > 0 ? t0 + (uint64_t)(P.duration_s * 1e9) : UINT64_MAX;
	double next_bg = P.load > 0 ? t0 + dc_wl_exp_ns(dc_rand_unit(&rs), P.gap_ns) : INFINITY;
	double next_in = P.incast_fanin ? t0 + P.incast_period_ms * 1e6 : INFINITY;
	unsigned long long nbg = 0;
	uint32_t *cand = calloc(P.npairs, sizeof(*cand));
	struct dc_wl_path path = { .rate_mbit = P.rate_mbit, .mss = P.mtu - 52, .hops = P.hops, .burst_bytes = P.burst };
	int arrivals = 1;
	uint64_t end_by = 0;	/* set when the arrivals stop: + --timeout */

	if (!cand)
		die("out of memory");
	done_count = 0;
	size_t first = nflows;

	for (;;) {
		uint64_t now = now_ns();

		while (arrivals && (next_bg <= now || next_in <= now)) {
			if (next_bg <= next_in) {
				uint64_t at = (uint64_t)next_bg;

				if (at >= stop_at || (P.flows_limit && nbg >= P.flows_limit)) {
					arrivals = 0;
					break;
				}
				uint32_t pi = (uint32_t)dc_rand_below(&rs, P.npairs);
				unsigned long long b = dc_wl_flow_bytes(&P.cdf, dc_rand_unit(&rs), P.scale, P.max_bytes);

				arrive(new_flow(pi, CL_BG, b, at));
				nbg++;
				next_bg += dc_wl_exp_ns(dc_rand_unit(&rs), P.gap_ns);
			} else {
				uint64_t at = (uint64_t)next_in;

				if (at >= stop_at || (P.load == 0 && P.flows_limit && nflows - first >= P.flows_limit)) {
					arrivals = 0;
					break;
				}
				/* a receiver, then FANIN of the senders paired with it
				 * (in a random order; repeated when there are fewer) */
				uint32_t r = P.pairs[dc_rand_below(&rs, P.npairs)].r, nc = 0;

				for (i = 0; i < P.npairs; i++)
					if (P.pairs[i].r == r)
						cand[nc++] = i;
				for (i = nc; i > 1; i--) {
					uint32_t x = (uint32_t)dc_rand_below(&rs, i), tmp = cand[i - 1];

					cand[i - 1] = cand[x];
					cand[x] = tmp;
				}
				for (i = 0; i < P.incast_fanin; i++)
					arrive(new_flow(cand[i % nc], CL_INCAST, P.incast_bytes, at));
				next_in += P.incast_period_ms * 1e6;
			}
		}
		if (!arrivals && done_count == nflows - first)
			break;
		if (!arrivals && !end_by)
			end_by = now + (uint64_t)(P.timeout_s * 1e9);
		if ((end_by && now > end_by) || stop)
			break;
		double until = arrivals ? fmin(next_bg, next_in) : (double)end_by;

		poll_once(until > now + 200e6 ? now + 200000000 : (uint64_t)until);
	}
	uint64_t t_end = now_ns();

	/* probed again on the idle fabric: a busy moment of the host during
	 * the first probes would otherwise raise the ideal of a whole pair */
	if (!stop && done_count == nflows - first)
		probe_all();
	if (P.base_rtt_us >= 0)
		for (i = 0; i < P.npairs; i++)
			P.pairs[i].rtt_ns = P.base_rtt_us * 1000.0;
	/* the probes are not part of the outputs */
	size_t kept = 0;

	for (size_t fi = 0; fi < nflows; fi++) {
		if (flows[fi].cls == CL_PROBE)
			continue;
		flows[kept] = flows[fi];
		path.rtt_ns = P.pairs[flows[kept].pair].rtt_ns;
		flows[kept].ideal_ns = dc_wl_ideal_ns(flows[kept].bytes, &path);
		kept++;
	}
	nflows = kept;
	write_outputs(t0, t_end);
	if (done_count < nflows) {
		fprintf(stderr, "workload: %zu of %zu flows unfinished %s (fct_ns -1 in the CSV)\n", nflows - done_count,
			nflows, stop ? "when interrupted" : "at the timeout");
		return 1;
	}
	return 0;
}
