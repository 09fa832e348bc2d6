// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * incast: N senders in N network namespaces send to one sink at the same
 * instant; the completion time is until the sink has read every flow's
 * last byte (it answers each flow with one byte once the announced length
 * has arrived, so this is application-level delivery, not local send).
 *
 *   incast sink   [-p PORT] [-b ADDR] [-N NETNS] [-c CC]
 *   incast client -d DST [-p PORT] -n NS1,NS2,... [-f FLOWS_PER_NS]
 *                 -s BYTES [-c CC] [-r ROUNDS] [-g GAP_MS] [-t TIMEOUT_S]
 *
 * The client is one process: for each sender namespace it enters the
 * namespace (setns), creates the socket there and returns, so all flows are
 * started by one poll loop at one instant. Result: JSON on stdout.
 *
 * Wire: 16-byte request header {magic "DCBI", version 1, length u64 BE}
 * followed by length bytes; the sink answers one byte 'K' per request.
 */
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define MAGIC 0x44434249u /* "DCBI" */
#define HDR_LEN REQ_HDR_LEN
#define CHUNK (256 * 1024)
#define MAX_FLOWS 1024

static char iobuf[CHUNK];
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage:\n"
		"  incast sink   [-p PORT] [-b ADDR] [-N NETNS] [-c CC]\n"
		"  incast client -d DST -n NS1,NS2,... -s BYTES [-p PORT] [-f FLOWS_PER_NS]\n"
		"                [-c CC] [-r ROUNDS] [-g GAP_MS] [-t TIMEOUT_S]\n"
		"sink:   answers one byte per request once its announced length has arrived;\n"
		"        runs until SIGTERM/SIGINT. -N enters /var/run/netns/NETNS first;\n"
		"        -c sets TCP_CONGESTION on the listener (accepted sockets inherit it).\n"
		"client: -d receiver IPv4, -n sender namespaces (names under /var/run/netns),\n"
		"        -f flows per namespace (1), -s bytes per flow, -c TCP_CONGESTION name,\n"
		"        -r rounds over the same connections (1), -g gap between rounds in ms (100),\n"
		"        -t overall timeout in seconds (30), -p port (5999).\n"
		"        Prints JSON: completion_ms (median over rounds), per-round flow_ms.\n");
}

static int enter_netns(const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "incast: cannot open netns '%s' (%s): %s\n", name, path, strerror(errno));
		return -1;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "incast: setns into '%s': %s (needs root)\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* ---- sink ------------------------------------------------------------ */

struct sconn {
	int fd;
	struct req_rx rx;
};

static void sink_close(int ep, struct sconn *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c);
}

/* Returns 0 to keep the connection, -1 to close it. */
static int sink_read(struct sconn *c)
{
	return req_rx_read(c->fd, &c->rx, MAGIC, "incast sink");
}

static int run_sink(int argc, char **argv)
{
	const char *bind_addr = "0.0.0.0", *netns = NULL, *cc = NULL;
	int port = 5999, c;

	while ((c = getopt(argc, argv, "p:b:N:c:h")) != -1) {
		switch (c) {
		case 'c': cc = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'b': bind_addr = optarg; break;
		case 'N': netns = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (netns && enter_netns(netns))
		return 1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };

	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "incast sink: bad bind address '%s' (IPv4 expected)\n", bind_addr);
		return 2;
	}
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* On the listener, before any connection: a CC that needs ECN (dctcp)
	 * must be in place when the SYN arrives to negotiate it. */
	if (cc && setsockopt(ls, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
		fprintf(stderr, "incast sink: TCP_CONGESTION '%s' refused: %s\n", cc, strerror(errno));
		return 1;
	}
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1024)) {
		fprintf(stderr, "incast sink: cannot listen on %s:%d: %s\n", bind_addr, port, strerror(errno));
		return 1;
	}
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	struct sigaction act = { .sa_handler = on_signal };

	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	signal(SIGPIPE, SIG_IGN);

	struct epoll_event evs[64];

	while (!stop) {
		int n = epoll_wait(ep, evs, 64, 500);

		for (int i = 0; i < n; i++) {
			if (!evs[i].data.ptr) {
				int fd;

				while ((fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					struct sconn *sc = calloc(1, sizeof(*sc));

					if (!sc) {
						close(fd);
						continue;
					}
					sc->fd = fd;
					setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					struct epoll_event cev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = sc };

					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
				}
				continue;
			}
			struct sconn *sc = evs[i].data.ptr;

			if (sink_read(sc))
				sink_close(ep, sc);
		}
	}
	return 0;
}

/* ---- client ----------------------------------------------------------- */

struct flow {
	int fd;
	const char *ns;
	uint64_t sent;	/* of header + payload in the current round */
	uint64_t total;
	uint64_t done_ns;
	int acked;
};

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static int run_client(int argc, char **argv)
{
	const char *dst = NULL, *cc = NULL;
	char *nslist = NULL;
	int port = 5999, per_ns = 1, rounds = 1, c;
	long gap_ms = 100;
	double timeout_s = 30;
	uint64_t bytes = 0;

	while ((c = getopt(argc, argv, "d:p:n:f:s:c:r:g:t:h")) != -1) {
		switch (c) {
		case 'd': dst = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': nslist = strdup(optarg); break;
		case 'f': per_ns = atoi(optarg); break;
		case 's': bytes = strtoull(optarg, NULL, 0); break;
		case 'c': cc = optarg; break;
		case 'r': rounds = atoi(optarg); break;
		case 'g': gap_ms = atol(optarg); break;
		case 't': timeout_s = strtod(optarg, NULL); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!dst || !nslist || !bytes || per_ns < 1 || rounds < 1 || rounds > 1000 || timeout_s <= 0) {
		usage(stderr);
		return 2;
	}
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };

	if (inet_pton(AF_INET, dst, &sa.sin_addr) != 1) {
		fprintf(stderr, "incast: bad destination '%s' (IPv4 expected)\n", dst);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (home < 0) {
		fprintf(stderr, "incast: cannot open own netns: %s\n", strerror(errno));
		return 1;
	}
	static struct flow fl[MAX_FLOWS];
	int nf = 0, one = 1;
	uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);

	for (char *save = NULL, *ns = strtok_r(nslist, ",", &save); ns; ns = strtok_r(NULL, ",", &save)) {
		for (int j = 0; j < per_ns; j++) {
			if (nf == MAX_FLOWS) {
				fprintf(stderr, "incast: more than %d flows\n", MAX_FLOWS);
				return 2;
			}
			if (enter_netns(ns))
				return 1;
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			int err = errno;

			if (setns(home, CLONE_NEWNET)) {
				fprintf(stderr, "incast: returning to own netns: %s\n", strerror(errno));
				return 1;
			}
			if (fd < 0) {
				fprintf(stderr, "incast: socket in netns '%s': %s\n", ns, strerror(err));
				return 1;
			}
			if (cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
				char avail[512];

				err = errno;
				available_ccs(avail, sizeof(avail));
				fprintf(stderr,
					"incast: congestion control '%s' refused by the kernel (setsockopt "
					"TCP_CONGESTION in netns '%s': %s); available: %s%s\n",
					cc, ns, strerror(err), avail[0] ? avail : "(unknown)",
					err == ENOENT ? "; register it first (dcbpfd for powertcp/theta_powertcp)" : "");
				return 1;
			}
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS) {
				fprintf(stderr, "incast: connect from '%s' to %s:%d: %s\n", ns, dst, port,
					strerror(errno));
				return 1;
			}
			fl[nf].fd = fd;
			fl[nf].ns = ns;
			fl[nf].total = HDR_LEN + bytes;
			nf++;
		}
	}
	static struct pollfd pfd[MAX_FLOWS];

	/* Wait until every connection is established before the start. */
	for (int i = 0; i < nf; i++) {
		pfd[i].fd = fl[i].fd;
		pfd[i].events = POLLOUT;
		for (;;) {
			uint64_t t = now_ns();
			int r, soerr = 0;
			socklen_t sl = sizeof(soerr);

			if (t >= deadline) {
				fprintf(stderr, "incast: timeout connecting from '%s' to %s:%d (is the sink running?)\n",
					fl[i].ns, dst, port);
				return 1;
			}
			r = poll(&pfd[i], 1, (int)((deadline - t) / 1000000) + 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				continue;
			getsockopt(fl[i].fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
			if (soerr) {
				fprintf(stderr, "incast: connect from '%s' to %s:%d: %s\n", fl[i].ns, dst, port,
					strerror(soerr));
				return 1;
			}
			break;
		}
	}
	unsigned char hdr[HDR_LEN];

	req_hdr_put(hdr, MAGIC, bytes);

	uint64_t *done = calloc((size_t)rounds * nf, sizeof(uint64_t));
	uint64_t *starts = calloc(rounds, sizeof(uint64_t));
	uint64_t *compl = calloc(rounds, sizeof(uint64_t));

	if (!done || !starts || !compl)
		return 1;
	for (int r = 0; r < rounds; r++) {
		if (r) {
			struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000 };

			nanosleep(&gap, NULL);
		}
		for (int i = 0; i < nf; i++) {
			fl[i].sent = 0;
			fl[i].acked = 0;
		}
		uint64_t t0 = now_ns();
		int left = nf;

		starts[r] = t0;
		while (left) {
			for (int i = 0; i < nf; i++) {
				pfd[i].fd = fl[i].acked ? -1 : fl[i].fd;
				pfd[i].events = fl[i].sent < fl[i].total ? POLLOUT : POLLIN;
				pfd[i].revents = 0;
			}
			uint64_t t = now_ns();

			if (t >= deadline) {
				fprintf(stderr, "incast: timeout after %.1f s in round %d; unfinished flows:", timeout_s, r);
				for (int i = 0; i < nf; i++)
					if (!fl[i].acked)
						fprintf(stderr, " %s(sent %llu/%llu)", fl[i].ns,
							(unsigned long long)fl[i].sent,
							(unsigned long long)fl[i].total);
				fprintf(stderr, "\n");
				return 1;
			}
			int pr = poll(pfd, nf, (int)((deadline - t) / 1000000) + 1);

			if (pr < 0) {
				if (errno == EINTR)
					continue;
				fprintf(stderr, "incast: poll: %s\n", strerror(errno));
				return 1;
			}
			for (int i = 0; i < nf; i++) {
				struct flow *f = &fl[i];

				if (!pfd[i].revents || f->acked)
					continue;
				if (f->sent < f->total && (pfd[i].revents & (POLLOUT | POLLERR | POLLHUP))) {
					for (;;) {
						ssize_t n;

						if (f->sent < HDR_LEN) {
							n = write(f->fd, hdr + f->sent, HDR_LEN - f->sent);
						} else {
							uint64_t rest = f->total - f->sent;

							n = write(f->fd, iobuf, rest < CHUNK ? rest : CHUNK);
						}
						if (n < 0) {
							if (errno == EAGAIN)
								break;
							fprintf(stderr, "incast: send from '%s': %s\n", f->ns, strerror(errno));
							return 1;
						}
						f->sent += n;
						if (f->sent == f->total)
							break;
					}
				} else if (pfd[i].revents & (POLLIN | POLLERR | POLLHUP)) {
					char k;
					ssize_t n = read(f->fd, &k, 1);

					if (n == 1 && k == 'K') {
						f->acked = 1;
						done[(size_t)r * nf + i] = now_ns() - t0;
						left--;
					} else if (n == 0 || (n < 0 && errno != EAGAIN)) {
						fprintf(stderr, "incast: flow from '%s' closed by the sink before completion: %s\n",
							f->ns, n == 0 ? "EOF" : strerror(errno));
						return 1;
					}
				}
			}
		}
		uint64_t mx = 0;

		for (int i = 0; i < nf; i++)
			if (done[(size_t)r * nf + i] > mx)
				mx = done[(size_t)r * nf + i];
		compl[r] = mx;
	}
	for (int i = 0; i < nf; i++)
		close(fl[i].fd);

	uint64_t *sorted = calloc(rounds, sizeof(uint64_t));

	memcpy(sorted, compl, rounds * sizeof(uint64_t));
	qsort(sorted, rounds, sizeof(uint64_t), cmp_u64);
	printf("{\"cc\":");
	json_str(cc ? cc : "default");
	printf(",\"flows\":%d,\"bytes_per_flow\":%llu,\"total_bytes\":%llu,\"rounds\":%d,"
	       "\"completion_ms\":%.3f,\"completion_ms_max\":%.3f,\"senders\":[",
	       nf, (unsigned long long)bytes, (unsigned long long)bytes * nf, rounds,
	       sorted[(rounds - 1) / 2] / 1e6, sorted[rounds - 1] / 1e6);
	for (int i = 0; i < nf; i++) {
		if (i)
			putchar(',');
		json_str(fl[i].ns);
	}
	printf("],\"per_round\":[");
	for (int r = 0; r < rounds; r++) {
		printf("%s{\"start_mono_ns\":%llu,\"completion_ms\":%.3f,\"flow_ms\":[", r ? "," : "",
		       (unsigned long long)starts[r], compl[r] / 1e6);
		for (int i = 0; i < nf; i++)
			printf("%s%.3f", i ? "," : "", done[(size_t)r * nf + i] / 1e6);
		printf("]}");
	}
	printf("]}\n");
	free(sorted);
	free(compl);
	free(starts);
	free(done);
	free(nslist);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "sink"))
		return run_sink(argc - 1, argv + 1);
	if (!strcmp(argv[1], "client"))
		return run_client(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "incast: unknown mode '%s' (want sink or client)\n", argv[1]);
	usage(stderr);
	return 2;
}
