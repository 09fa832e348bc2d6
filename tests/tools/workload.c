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
 * Parts (tests/tools/workload/): wl.h (types, parameters), args.c (command
 * line), net.c (namespaces, CCs, sockets), out.c (CSV and JSON); the event
 * loop and the flows are here.
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
#include "workload/wl.h"

const char *const class_name[] = { "bg", "incast", "probe" };
struct flow *flows;
size_t nflows, capflows;
int ep, home_ns;
char cc_seen[16][32];
unsigned int ncc_seen;
unsigned int tcpi_rto_min = UINT32_MAX, tcpi_rto_max;
int rto_known = -1;	/* the kernel reports tcpi_total_rto (6.7+) */
static char iobuf[CHUNK];
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
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
