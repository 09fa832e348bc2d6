// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * collective: All-to-All and k-channel Ring collectives among the hosts of
 * an emulated fabric, with Ethereal's application-side flow splitting
 * (Addanki thesis §3.2, Algorithm 3) and randomized start offsets; reports the
 * collective's completion time and every flow's as JSON.  One process per
 * host (tests/tools/collective/child.c), this one plans, starts and reports.
 *
 *   collective --hosts NS=IP[@LEAF],...  | --leafspine ID:L:S:H
 *              --pattern a2a|ring [--channels K] --bytes N
 *              [--split on|off] [--spines S] [--cc NAME] [--seed N]
 *              [--jitter-us U] [--port P] [--timeout S]
 *
 * Flows.  A2A: every host sends N bytes to every other host.  Ring: hosts
 * in ring order (leaves interleaved: l0h0, l1h0, …, l0h1, …, so that every
 * hop crosses the spine layer), each host sends K flows ("channels") of N
 * bytes to its successor.  A flow to a host on another leaf crosses one of
 * the S uplinks; per (source host, destination leaf) the n flows follow
 * dc_eth_plan(n, S): ⌊n/S⌋·S stay whole, each of the r = n mod S others is
 * split into S/g sub-flows (g = gcd(r, S)) of N·g/S bytes, each its own TCP
 * connection marked SO_MARK = DC_ETH_MARK_MAGIC | S/g so the host's Ethereal
 * program weighs it 1/(S/g) of a flow (--split off: no splitting).  Flows inside a leaf are never
 * split (they use no uplink).
 *
 * Processes.  One child per host, forked, enters /run/netns/NAME (setns)
 * and does everything of that host in one poll loop: the listener (with the
 * CC set, so accepted sockets inherit it), its outgoing connections (CC
 * set before connect, so a CC that needs ECN negotiates it), sending and
 * receiving.  The parent synchronises the phases over pipes: every
 * listener up → every connection open → start at T0 (CLOCK_MONOTONIC, the
 * same clock in every namespace).  Flow i starts at T0 + offset_i, offset_i
 * uniform in [0, U] µs from a xorshift64* seeded with --seed.
 *
 * Times.  A flow's time is from its start to the instant its receiver has
 * read its last byte; the collective's completion is from T0 to the last
 * byte of the last flow.  Wire: a 16-byte header {"DCBC", flow id u32,
 * length u64, big-endian}, then the bytes.
 *
 * Exit 0 with JSON on stdout; 1 on a run-time failure (unknown netns,
 * refused CC, connect failure, timeout, short transfer) with a message on
 * stderr naming the host and flow; 2 on usage errors.
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
#include "collective/coll.h"
struct host hosts[MAX_HOSTS];
unsigned nhosts;
struct flow flows[MAX_FLOWS];
unsigned nflows, nlogical;

struct coll_opts opt = { .pattern = NULL, .cc = NULL, .channels = 1, .spines = 1, .port = 6100,
			 .split = 1, .bytes = 0, .seed = 1, .jitter_us = 0, .timeout_s = 60 };

/* xorshift64*: the start offsets are a function of --seed only. */
static __u64 rng_state;
static uint64_t rng_next(void)
{
	return dc_rand_next(&rng_state);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: collective (--hosts NS=IP[@LEAF],... | --leafspine ID:L:S:H)\n"
		"                  --pattern a2a|ring [--channels K] --bytes N [--split on|off]\n"
		"                  [--spines S] [--cc NAME] [--seed N] [--jitter-us U]\n"
		"                  [--port P] [--timeout S]\n"
		"  --hosts      namespace=IPv4 pairs; LEAF defaults to L of 10.78.L.x, else 0\n"
		"  --leafspine  the hosts of tests/lib/fabric.sh's fabric_leafspine L S H with\n"
		"               run id ID (namespaces ID-h<l>x<h>, addresses 10.78.l.(h+1));\n"
		"               sets --spines S\n"
		"  --pattern    a2a: every host to every other; ring: K channels to the successor\n"
		"  --bytes      bytes of one (unsplit) flow; --split off keeps flows whole\n"
		"  --spines     uplinks per leaf, s of Algorithm 3's split (default 1)\n"
		"  --cc         TCP_CONGESTION of every socket (both ends)\n"
		"  --seed       start offsets' seed (1); --jitter-us their range (0)\n"
		"  --port       listener port in every host (6100); --timeout seconds (60)\n"
		"Prints JSON: completion_ms, flow_ms[], flows[]; exit 1 on failure.\n");
}

/* ---- hosts and flows ------------------------------------------------------- */

static int add_host(const char *ns, const char *ip, int leaf)
{
	struct host *h;

	if (nhosts >= MAX_HOSTS) {
		fprintf(stderr, "collective: more than %d hosts\n", MAX_HOSTS);
		return -1;
	}
	h = &hosts[nhosts];
	if (strlen(ns) >= sizeof(h->ns) || strlen(ip) >= sizeof(h->ip) ||
	    inet_pton(AF_INET, ip, &h->addr) != 1) {
		fprintf(stderr, "collective: bad host '%s=%s' (NETNS=IPv4 expected)\n", ns, ip);
		return -1;
	}
	strcpy(h->ns, ns);
	strcpy(h->ip, ip);
	if (leaf >= 0) {
		h->leaf = leaf;
	} else {
		uint32_t a = ntohl(h->addr.s_addr);

		/* the leaf-spine builder's plan: hosts of leaf l are 10.78.l.x, l < 128 */
		h->leaf = ((a >> 16) == ((10u << 8) | 78u) && ((a >> 8) & 0xff) < 128) ? (a >> 8) & 0xff : 0;
	}
	nhosts++;
	return 0;
}

static int parse_hosts(char *list)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *at;
		int leaf = -1;

		if (!eq) {
			fprintf(stderr, "collective: host '%s': NETNS=IP expected\n", tok);
			return -1;
		}
		*eq = 0;
		at = strchr(eq + 1, '@');
		if (at) {
			*at = 0;
			leaf = atoi(at + 1);
		}
		if (add_host(tok, eq + 1, leaf))
			return -1;
	}
	return 0;
}

static int parse_leafspine(const char *spec)
{
	char id[32], ns[64], ip[32];
	unsigned l, s, h, i, j;

	if (sscanf(spec, "%31[^:]:%u:%u:%u", id, &l, &s, &h) != 4 || !l || !s || !h || l > 99 ||
	    h > 98) {
		fprintf(stderr, "collective: --leafspine '%s': ID:LEAVES:SPINES:HOSTS expected\n", spec);
		return -1;
	}
	opt.spines = s;
	for (i = 0; i < l; i++)
		for (j = 0; j < h; j++) {
			snprintf(ns, sizeof(ns), "%s-h%ux%u", id, i, j);
			snprintf(ip, sizeof(ip), "10.78.%u.%u", i, j + 1);
			if (add_host(ns, ip, i))
				return -1;
		}
	return 0;
}

static int add_flow(unsigned src, unsigned dst, unsigned logical, unsigned part, unsigned parts,
		    uint64_t bytes)
{
	struct flow *f;

	if (nflows >= MAX_FLOWS) {
		fprintf(stderr, "collective: more than %d flows\n", MAX_FLOWS);
		return -1;
	}
	f = &flows[nflows];
	memset(f, 0, sizeof(*f));
	f->id = nflows++;
	f->src = src;
	f->dst = dst;
	f->logical = logical;
	f->part = part;
	f->parts = parts;
	f->bytes = bytes;
	return 0;
}

/*
 * The n logical flows from host src towards one destination leaf (dst[]
 * holds their destination hosts): Algorithm 3's plan says the last r of
 * them are split into `parts` sub-flows.
 */
static int plan_group(unsigned src, const unsigned *dst, unsigned n, int remote)
{
	struct dc_eth_plan p;
	unsigned i, k;

	dc_eth_plan(n, opt.spines, &p);
	for (i = 0; i < n; i++) {
		unsigned parts = (remote && opt.split && i >= n - p.rem) ? p.parts : 1;
		uint64_t each = opt.bytes / parts;

		for (k = 0; k < parts; k++)
			if (add_flow(src, dst[i], nlogical, k, parts,
				     k + 1 < parts ? each : opt.bytes - each * (parts - 1)))
				return -1;
		nlogical++;
	}
	return 0;
}

static int build_flows(void)
{
	unsigned src, l, i, k, n, maxleaf = 0, order[MAX_HOSTS], no = 0;
	unsigned dst[MAX_FLOWS > MAX_HOSTS * 16 ? MAX_HOSTS * 16 : MAX_FLOWS];

	for (i = 0; i < nhosts; i++)
		maxleaf = hosts[i].leaf > maxleaf ? hosts[i].leaf : maxleaf;
	if (!strcmp(opt.pattern, "a2a")) {
		for (src = 0; src < nhosts; src++)
			for (l = 0; l <= maxleaf; l++) {
				for (i = 0, n = 0; i < nhosts; i++)
					if (i != src && hosts[i].leaf == l)
						dst[n++] = i;
				if (n && plan_group(src, dst, n, l != hosts[src].leaf))
					return -1;
			}
		return 0;
	}
	/* ring order: leaves interleaved, host rank within its leaf first */
	for (k = 0; no < nhosts; k++)
		for (l = 0; l <= maxleaf; l++) {
			unsigned rank = 0;

			for (i = 0; i < nhosts; i++) {
				if (hosts[i].leaf != l)
					continue;
				if (rank++ == k)
					order[no++] = i;
			}
		}
	if (opt.channels > sizeof(dst) / sizeof(dst[0])) {
		fprintf(stderr, "collective: --channels %u: too many\n", opt.channels);
		return -1;
	}
	for (i = 0; i < nhosts; i++) {
		unsigned s = order[i], d = order[(i + 1) % nhosts];

		for (k = 0; k < opt.channels; k++)
			dst[k] = d;
		if (plan_group(s, dst, opt.channels, hosts[s].leaf != hosts[d].leaf))
			return -1;
	}
	return 0;
}
/* ---- parent ------------------------------------------------------------------ */

struct kid {
	pid_t pid;
	int to, from;
	char buf[65536];
	size_t have;
	unsigned accepted;
};

static struct kid kids[MAX_HOSTS];

static void kill_all(void)
{
	unsigned i;

	for (i = 0; i < nhosts; i++)
		if (kids[i].pid > 0)
			kill(kids[i].pid, SIGKILL);
	for (i = 0; i < nhosts; i++)
		if (kids[i].pid > 0)
			waitpid(kids[i].pid, NULL, 0);
}

/* Read lines from every child until each has sent `want` (a one-letter
 * phase mark) or an error; results are parsed on the way. */
static int await_all(char want, double timeout_s)
{
	uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
	unsigned got = 0, i;
	int seen[MAX_HOSTS] = { 0 };

	while (got < nhosts) {
		struct pollfd p[MAX_HOSTS];
		uint64_t now = now_ns();
		int r;

		if (now >= deadline) {
			for (i = 0; i < nhosts; i++)
				if (!seen[i])
					fprintf(stderr, "collective: host '%s' did not finish phase '%c' in %.0f s\n",
						hosts[i].ns, want, timeout_s);
			return -1;
		}
		for (i = 0; i < nhosts; i++) {
			p[i].fd = seen[i] ? -1 : kids[i].from;
			p[i].events = POLLIN;
		}
		r = poll(p, nhosts, (int)((deadline - now) / 1000000) + 1);
		if (r <= 0)
			continue;
		for (i = 0; i < nhosts; i++) {
			struct kid *k = &kids[i];
			ssize_t n;
			char *nl;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(k->from, k->buf + k->have, sizeof(k->buf) - 1 - k->have);
			if (n <= 0) {
				fprintf(stderr, "collective: host '%s': its process ended without a result\n",
					hosts[i].ns);
				return -1;
			}
			k->have += n;
			k->buf[k->have] = 0;
			while ((nl = strchr(k->buf, '\n'))) {
				unsigned id;
				unsigned long long a, b, cc;

				*nl = 0;
				if (k->buf[0] == 'E') {
					fprintf(stderr, "collective: %s\n", k->buf + 2);
					return -1;
				} else if (k->buf[0] == 'S' &&
					   sscanf(k->buf, "S %u %llu %llu %llu", &id, &a, &b, &cc) == 4 &&
					   id < nflows) {
					flows[id].sent = a;
					flows[id].t_start = b;
					flows[id].t_sent = cc;
				} else if (k->buf[0] == 'R' &&
					   sscanf(k->buf, "R %u %llu %llu", &id, &a, &b) == 3 && id < nflows) {
					flows[id].rcvd = a;
					flows[id].t_done = b;
				} else if (k->buf[0] == 'A') {
					k->accepted = (unsigned)strtoul(k->buf + 2, NULL, 10);
				} else if (k->buf[0] == want) {
					seen[i] = 1;
					got++;
				}
				k->have -= nl + 1 - k->buf;
				memmove(k->buf, nl + 1, k->have + 1);
			}
		}
	}
	return 0;
}

static void tell_all(uint64_t v)
{
	unsigned i;

	for (i = 0; i < nhosts; i++)
		if (write(kids[i].to, &v, sizeof(v)) != sizeof(v))
			fprintf(stderr, "collective: host '%s': lost its process\n", hosts[i].ns);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(uint64_t t0)
{
	uint64_t last = t0, sent = 0, rcvd = 0;
	unsigned i, split = 0, planned = 0;
	double *ms = calloc(nflows ? nflows : 1, sizeof(double));

	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];
		uint64_t st = t0 + f->offset_ns;

		last = f->t_done > last ? f->t_done : last;
		sent += f->sent;
		rcvd += f->rcvd;
		split += f->parts > 1;
		ms[i] = f->t_done > st ? (f->t_done - st) / 1e6 : 0;
	}
	planned = nflows;
	printf("{\"pattern\":\"%s\",\"channels\":%u,\"hosts\":%u,\"spines\":%u,\"split\":%s,"
	       "\"cc\":\"%s\",\"seed\":%llu,\"jitter_us\":%llu,\"bytes_per_flow\":%llu,",
	       opt.pattern, opt.channels, nhosts, opt.spines, opt.split ? "true" : "false",
	       opt.cc ? opt.cc : "", (unsigned long long)opt.seed, (unsigned long long)opt.jitter_us,
	       (unsigned long long)opt.bytes);
	printf("\"logical_flows\":%u,\"connections\":%u,\"split_connections\":%u,", nlogical, planned,
	       split);
	printf("\"bytes_sent\":%llu,\"bytes_received\":%llu,\"start_mono_ns\":%llu,"
	       "\"completion_ms\":%.3f,",
	       (unsigned long long)sent, (unsigned long long)rcvd, (unsigned long long)t0,
	       (last - t0) / 1e6);
	printf("\"accepted\":{");
	for (i = 0; i < nhosts; i++)
		printf("%s\"%s\":%u", i ? "," : "", hosts[i].ns, kids[i].accepted);
	printf("},\"flow_ms\":[");
	for (i = 0; i < nflows; i++)
		printf("%s%.3f", i ? "," : "", ms[i]);
	printf("],");
	qsort(ms, nflows, sizeof(double), cmp_double);
	printf("\"flow_ms_p50\":%.3f,\"flow_ms_max\":%.3f,", nflows ? ms[nflows / 2] : 0,
	       nflows ? ms[nflows - 1] : 0);
	printf("\"flows\":[");
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		printf("%s{\"id\":%u,\"src\":\"%s\",\"dst\":\"%s\",\"logical\":%u,\"part\":%u,"
		       "\"parts\":%u,\"bytes\":%llu,\"sent\":%llu,\"received\":%llu,"
		       "\"offset_us\":%.1f,\"ms\":%.3f}",
		       i ? "," : "", f->id, hosts[f->src].ns, hosts[f->dst].ns, f->logical, f->part,
		       f->parts, (unsigned long long)f->bytes, (unsigned long long)f->sent,
		       (unsigned long long)f->rcvd, f->offset_ns / 1e3,
		       f->t_done > t0 + f->offset_ns ? (f->t_done - t0 - f->offset_ns) / 1e6 : 0);
	}
	printf("]}\n");
	free(ms);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "leafspine", required_argument, NULL, 'L' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "channels", required_argument, NULL, 'k' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "split", required_argument, NULL, 'S' },
		{ "spines", required_argument, NULL, 's' },
		{ "cc", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'r' },
		{ "jitter-us", required_argument, NULL, 'j' },
		{ "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *hostlist = NULL, *ls = NULL;
	unsigned i;
	int o;
	uint64_t t0;

	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case 'H': hostlist = optarg; break;
		case 'L': ls = optarg; break;
		case 'P': opt.pattern = optarg; break;
		case 'k': opt.channels = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'b': opt.bytes = strtoull(optarg, NULL, 0); break;
		case 'S':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, "collective: --split %s: on or off\n", optarg);
				return 2;
			}
			opt.split = !strcmp(optarg, "on");
			break;
		case 's': opt.spines = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'c': opt.cc = optarg; break;
		case 'r': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'j': opt.jitter_us = strtoull(optarg, NULL, 0); break;
		case 'p': opt.port = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': opt.timeout_s = atof(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if ((!hostlist == !ls) || !opt.pattern || !opt.bytes ||
	    (strcmp(opt.pattern, "a2a") && strcmp(opt.pattern, "ring")) || !opt.channels ||
	    !opt.port || opt.port > 65535 || opt.timeout_s <= 0) {
		fprintf(stderr, "collective: need one of --hosts/--leafspine, --pattern a2a|ring, "
				"--bytes > 0 (and --channels ≥ 1, a port, a timeout > 0)\n");
		usage(stderr);
		return 2;
	}
	if (opt.spines < 1 || opt.spines > DC_ETH_MAX_UPLINKS) {
		fprintf(stderr, "collective: --spines %u: 1..%d\n", opt.spines, DC_ETH_MAX_UPLINKS);
		return 2;
	}
	if ((hostlist && parse_hosts(hostlist)) || (ls && parse_leafspine(ls)))
		return 2;
	if (nhosts < 2) {
		fprintf(stderr, "collective: at least two hosts needed\n");
		return 2;
	}
	/* Name a missing namespace before anything starts. */
	for (i = 0; i < nhosts; i++) {
		char path[128];

		snprintf(path, sizeof(path), NS_DIR "%s", hosts[i].ns);
		if (access(path, R_OK)) {
			fprintf(stderr, "collective: netns '%s' (host %s) not found: %s: %s\n",
				hosts[i].ns, hosts[i].ip, path, strerror(errno));
			return 1;
		}
	}
	if (build_flows())
		return 2;
	rng_state = opt.seed * 0x9e3779b97f4a7c15ull + 1;
	for (i = 0; i < nflows; i++)
		flows[i].offset_ns = opt.jitter_us ? rng_next() % (opt.jitter_us * 1000 + 1) : 0;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < nhosts; i++) {
		int down[2], up[2];

		if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC)) {
			perror("collective: pipe");
			kill_all();
			return 1;
		}
		fflush(stdout);
		kids[i].pid = fork();
		if (kids[i].pid < 0) {
			perror("collective: fork");
			kill_all();
			return 1;
		}
		if (!kids[i].pid) {
			close(down[1]);
			close(up[0]);
			child(i, down[0], up[1]);
		}
		close(down[0]);
		close(up[1]);
		kids[i].to = down[1];
		kids[i].from = up[0];
	}
	if (await_all('L', 10)) {
		kill_all();
		return 1;
	}
	tell_all(1);
	if (await_all('C', opt.timeout_s)) {
		kill_all();
		return 1;
	}
	/* every host starts at the same instant: 20 ms from now */
	t0 = now_ns() + 20000000ull;
	tell_all(t0);
	if (await_all('D', opt.timeout_s + 5)) {
		kill_all();
		return 1;
	}
	for (i = 0; i < nhosts; i++)
		waitpid(kids[i].pid, NULL, 0);
	for (i = 0; i < nflows; i++)
		if (flows[i].rcvd != flows[i].bytes || flows[i].sent != flows[i].bytes) {
			fprintf(stderr, "collective: flow %u from '%s' to '%s': sent %llu, received %llu of %llu bytes\n",
				i, hosts[flows[i].src].ns, hosts[flows[i].dst].ns,
				(unsigned long long)flows[i].sent, (unsigned long long)flows[i].rcvd,
				(unsigned long long)flows[i].bytes);
			report(t0);
			return 1;
		}
	report(t0);
	return 0;
}
