// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf cosy send` and `dcbpf cosy serve` (docs/cosy.md): the end host of
 * include/dcbpf/cosyhost.h on a UDP socket, so cosy can be tried without
 * writing code.  The datagram is the 24-byte cosy header and, for data,
 * the message bytes it carries.  Time is CLOCK_MONOTONIC; the loop sleeps
 * in ppoll until the next packet or the host's next timer, so pacing at
 * B/K is as fine as the kernel's timer slack (tens of µs), not the µs of
 * the paper's hardware.
 */
#define _GNU_SOURCE	/* ppoll */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "cli.h"
#include "cosy/cosycmd.h"
#include "dcbpf/cosyhost.h"

#define PEERS_MAX 64
#define RUN_MS_MAX 3600000ULL

#define NA struct cosy_net_args
#define COMMON_OPTS \
	{ "port", 0, DC_OPT_U64, DC_FIELD(NA, port), "PORT", .help = "UDP port of the receiver", \
	  .def = "17263", .umin = 1, .umax = 65535 }, \
	{ "k", 'k', DC_OPT_U64, DC_FIELD(NA, k), "K", .help = "slots (virtual links per link)", .def = "4", \
	  .umin = 1, .umax = DC_COSY_K_MAX }, \
	{ "count", 'n', DC_OPT_U64, DC_FIELD(NA, count), "N", .help = "messages, then exit", .def = "1", \
	  .umin = 1, .umax = 1000000 }, \
	{ "run-ms", 0, DC_OPT_U64, DC_FIELD(NA, run_ms), "MS", .help = "give up after this long", \
	  .def = "10000", .umin = 1, .umax = RUN_MS_MAX }

const struct dc_opt dc_cosy_send_opts[] = {
	{ "to", 0, DC_OPT_STR, DC_FIELD(NA, to), "IPV4[,IPV4...]",
	  .help = "the receiver, or several: each message to one of them drawn uniformly", .required = true },
	{ "rate-per-s", 0, DC_OPT_DOUBLE, DC_FIELD(NA, rate_per_s), "R",
	  .help = "Poisson arrivals, R messages a second, waiting at the sender while K ask (0: the next when one of K is answered)",
	  .def = "0",
	  .dmin = 0, .dmax = 1e6 },
	{ "seed", 0, DC_OPT_U64, DC_FIELD(NA, seed), "N",
	  .help = "arrivals, receivers drawn and message ids (the seed's low 24 bits lead every id)", .def = "1" },
	{ "msg-bytes", 's', DC_OPT_U64, DC_FIELD(NA, msg_bytes), "BYTES", .help = "size of each message",
	  .def = "64000", .umin = 1, .umax = 1000000000 },
	{ "bw-kbps", 'B', DC_OPT_U64, DC_FIELD(NA, bw_kbps), "KBPS", .help = "B: each slot sends at B/K",
	  .def = "1000000", .umin = 1, .umax = 1000000000000ULL },
	{ "delta-ns", 0, DC_OPT_U64, DC_FIELD(NA, delta_ns), "NS",
	  .help = "delta: no answer by then is a reject (dcbpf cosy bounds: delta_cosy_ns)", .def = "100000000",
	  .umin = 1, .umax = RUN_MS_MAX * 1000000 },
	COMMON_OPTS,
	{ NULL },
};

const struct dc_opt dc_cosy_serve_opts[] = {
	{ "bind", 0, DC_OPT_STR, DC_FIELD(NA, bind), "IPV4", .help = "address to listen on", .def = "0.0.0.0" },
	{ "wait-ns", 0, DC_OPT_U64, DC_FIELD(NA, wait_ns), "NS",
	  .help = "delta^E: how long a request may wait for a slot", .def = "1000000", .umax = RUN_MS_MAX * 1000000 },
	{ "delta-ns", 0, DC_OPT_U64, DC_FIELD(NA, delta_ns), "NS",
	  .help = "a granted message not in by then is a failure", .def = "100000000", .umin = 1,
	  .umax = RUN_MS_MAX * 1000000 },
	COMMON_OPTS,
	{ NULL },
};
#undef NA

struct peers {
	struct sockaddr_in a[PEERS_MAX];
	__u32 n;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Host ids: 0 is this host, peers from 1 on. */
static __u32 peer_id(struct peers *p, const struct sockaddr_in *a)
{
	for (__u32 i = 0; i < p->n; i++)
		if (p->a[i].sin_addr.s_addr == a->sin_addr.s_addr && p->a[i].sin_port == a->sin_port)
			return i + 1;
	if (p->n >= PEERS_MAX)
		return 0;
	p->a[p->n++] = *a;
	return p->n;
}

static void send_out(int fd, struct dc_cosy_host *h, const struct peers *p)
{
	static __u8 buf[DC_COSY_HDR_LEN + DC_COSY_DATA_BYTES];

	for (__u32 i = 0; i < h->nout; i++) {
		const struct dc_cosy_wire *w = &h->out[i];
		__u32 len = DC_COSY_HDR_LEN + (w->payload_bytes < DC_COSY_DATA_BYTES ? w->payload_bytes : DC_COSY_DATA_BYTES);

		if (!w->dst || w->dst > p->n)
			continue;
		dc_cosy_hdr_encode(buf, &w->h);
		memset(buf + DC_COSY_HDR_LEN, 0x5a, len - DC_COSY_HDR_LEN);
		sendto(fd, buf, len, 0, (const struct sockaddr *)&p->a[w->dst - 1], sizeof(p->a[0]));
	}
	h->nout = 0;
}

/* Take every datagram waiting; wait until next_ns first (or a packet). */
static void receive(int fd, struct dc_cosy_host *h, struct peers *p, __u64 next_ns)
{
	static __u8 buf[2048];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	__u64 t = now_ns(), wait = next_ns > t ? next_ns - t : 0;
	struct timespec ts = { .tv_sec = (time_t)(wait / 1000000000ULL), .tv_nsec = (long)(wait % 1000000000ULL) };

	if (wait > 100000000ULL)
		ts = (struct timespec){ 0, 100000000 };	/* look at the clock every 100 ms */
	if (ppoll(&pfd, 1, &ts, NULL) <= 0)
		return;
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		struct dc_cosy_wire w;

		if (n < 0)
			return;
		if (n < DC_COSY_HDR_LEN)
			continue;
		memset(&w, 0, sizeof(w));
		dc_cosy_hdr_decode(buf, &w.h);
		w.src = peer_id(p, &from);
		w.dst = 0;
		w.payload_bytes = (__u32)n - DC_COSY_HDR_LEN;
		if (w.src)
			dc_cosy_host_rx(h, now_ns(), &w);
	}
}

static const char *const status_name[] = { "?", "complete", "reject", "failure" };

static int open_udp(struct dc_ctx *ctx, const char *addr, __u16 port, int *fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	if (addr && inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return dc_fail(ctx, EXIT_USAGE, "'%s' is not an IPv4 address", addr);
	*fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (*fd < 0)
		return dc_fail(ctx, EXIT_ERR, "socket: %s", strerror(errno));
	if (bind(*fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = errno;

		close(*fd);
		return dc_fail(ctx, EXIT_ERR, "bind %s:%u: %s", addr ? addr : "0.0.0.0", port, strerror(e));
	}
	return 0;
}

/* xorshift64*: a uniform draw in (0, 1). */
static double unif(__u64 *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return ((double)((*st * 0x2545F4914F6CDD1DULL) >> 11) + 1.0) / 9007199254740994.0;
}

/* --to A[,B...]: the receivers become peers 1..n, in order. */
static int parse_to(struct dc_ctx *ctx, const char *list, __u16 port, struct peers *p)
{
	char buf[PEERS_MAX * 16 + 1], *tok, *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return dc_fail(ctx, EXIT_USAGE, "--to: at most %d receivers", PEERS_MAX);
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

		if (inet_pton(AF_INET, tok, &a.sin_addr) != 1)
			return dc_fail(ctx, EXIT_USAGE, "--to '%s' is not an IPv4 address", tok);
		for (__u32 i = 0; i < p->n; i++)
			if (p->a[i].sin_addr.s_addr == a.sin_addr.s_addr)
				return dc_fail(ctx, EXIT_USAGE, "--to names %s twice", tok);
		if (p->n >= PEERS_MAX)
			return dc_fail(ctx, EXIT_USAGE, "--to: at most %d receivers", PEERS_MAX);
		p->a[p->n++] = a;
	}
	if (!p->n)
		return dc_fail(ctx, EXIT_USAGE, "--to names no receiver");
	return 0;
}

/* Message n of this sender: the seed's low 24 bits above n, so senders
 * with different seeds never share an id at a receiver or a switch. */
#define MSG_N_BITS 40
#define MSG_N_MASK ((1ULL << MSG_N_BITS) - 1)

int dc_cosy_send_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct cosy_net_args *o = ctx->opts;
	static struct dc_cosy_host h;
	struct peers p = { .n = 0 };
	__u64 submitted = 0, end_ns, start_ns, n_ok = 0, n_rej = 0, n_fail = 0, n_refused = 0, sum_ns = 0, max_ns = 0;
	__u64 rng = (o->seed * 0x9E3779B97F4A7C15ULL) | 1, next_arr_ns, id_base = (o->seed & 0xffffff) << MSG_N_BITS;
	bool poisson = o->rate_per_s > 0;
	__u8 *dst_of;
	__u64 *sub_of, *wait_of, arrived = 0;
	__u32 cursor = 0;
	char ip[INET_ADDRSTRLEN];
	int fd, rc;

	(void)argc;
	(void)argv;
	rc = parse_to(ctx, o->to, (__u16)o->port, &p);
	if (rc)
		return rc;
	dst_of = calloc(o->count + 1, 1);
	sub_of = calloc(o->count + 1, sizeof(*sub_of));
	wait_of = calloc(o->count + 1, sizeof(*wait_of));
	if (!dst_of || !sub_of || !wait_of) {
		free(dst_of);
		free(sub_of);
		free(wait_of);
		return dc_fail(ctx, EXIT_ERR, "out of memory for %llu messages", (unsigned long long)o->count);
	}
	rc = open_udp(ctx, NULL, 0, &fd);
	if (rc) {
		free(dst_of);
		free(sub_of);
		free(wait_of);
		return rc;
	}
	start_ns = now_ns();
	dc_cosy_host_init(&h, 0, (__u32)o->k, o->bw_kbps, o->delta_ns, 0, start_ns ^ o->seed);
	end_ns = start_ns + o->run_ms * 1000000ULL;
	/* exponential gaps: a Poisson process of rate_per_s */
#define GAP_NS() ((__u64)(-log(unif(&rng)) * 1e9 / o->rate_per_s))
	next_arr_ns = poisson ? start_ns + GAP_NS() : start_ns;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_arr(&ctx->jw, "messages");
	}
	while (cursor < o->count && now_ns() < end_ns) {
		__u64 t = now_ns(), wake;

		/* Poisson: arrivals join a queue at the sender.  Either way
		 * at most K ask at once (a sender has K slots, §3.3); the
		 * rest wait (wait_ns).  The host's table full (K above
		 * DC_COSY_HOST_MSGS): refused here, a reject the network
		 * never saw. */
		while (poisson && arrived < o->count && next_arr_ns <= t) {
			__u64 n = ++arrived;

			dst_of[n] = (__u8)(p.n > 1 ? 1 + (__u32)(unif(&rng) * p.n) % p.n : 1);
			sub_of[n] = next_arr_ns - start_ns;
			next_arr_ns += GAP_NS();
		}
		while (submitted < (poisson ? arrived : o->count) && submitted - cursor < o->k) {
			__u64 n = submitted + 1;
			__u32 dst = poisson ? dst_of[n] : p.n > 1 ? 1 + (__u32)(unif(&rng) * p.n) % p.n : 1;

			if (!poisson) {
				dst_of[n] = (__u8)dst;
				sub_of[n] = t - start_ns;
			}
			wait_of[n] = t - start_ns - sub_of[n];
			if (dc_cosy_host_submit(&h, t, id_base | n, dst, (__u32)o->msg_bytes)) {
				if (!poisson)
					break;
				n_refused++;
				cursor++;
				if (ctx->json) {
					jw_obj(&ctx->jw, NULL);
					jw_u64(&ctx->jw, "msg_id", id_base | n);
					jw_str(&ctx->jw, "to", inet_ntop(AF_INET, &p.a[dst - 1].sin_addr, ip, sizeof(ip)));
					jw_str(&ctx->jw, "status", "refused");
					jw_u64(&ctx->jw, "reason", 0);
					jw_u64(&ctx->jw, "t_ns", sub_of[n]);
					jw_u64(&ctx->jw, "wait_ns", wait_of[n]);
					jw_u64(&ctx->jw, "latency_ns", 0);
					jw_end_obj(&ctx->jw);
				}
			}
			submitted++;
		}
		send_out(fd, &h, &p);
		wake = dc_min_u64(dc_cosy_host_next_ns(&h), end_ns);
		if (poisson && arrived < o->count)
			wake = dc_min_u64(wake, next_arr_ns);
		receive(fd, &h, &p, wake);
		dc_cosy_host_tick(&h, now_ns());
		send_out(fd, &h, &p);
		for (__u32 i = 0; i < h.ndone; i++) {
			const struct dc_cosy_done *d = &h.done[i];
			__u64 n = d->msg_id & MSG_N_MASK;

			if (n > o->count)
				n = 0;
			if (d->status == DC_COSY_S_COMPLETE) {
				n_ok++;
				sum_ns += d->latency_ns;
				max_ns = d->latency_ns > max_ns ? d->latency_ns : max_ns;
			} else if (d->status == DC_COSY_S_REJECT) {
				n_rej++;
			} else {
				n_fail++;
			}
			if (ctx->json) {
				jw_obj(&ctx->jw, NULL);
				jw_u64(&ctx->jw, "msg_id", d->msg_id);
				if (n && dst_of[n])
					jw_str(&ctx->jw, "to",
					       inet_ntop(AF_INET, &p.a[dst_of[n] - 1].sin_addr, ip, sizeof(ip)));
				jw_str(&ctx->jw, "status", status_name[d->status & 3]);
				jw_u64(&ctx->jw, "reason", d->reason);
				jw_u64(&ctx->jw, "t_ns", n ? sub_of[n] : 0);
				jw_u64(&ctx->jw, "wait_ns", n ? wait_of[n] : 0);
				jw_u64(&ctx->jw, "latency_ns", d->latency_ns);
				jw_end_obj(&ctx->jw);
			} else {
				fprintf(ctx->out, "%-8llu %-9s %12llu ns%s\n", (unsigned long long)(d->msg_id & MSG_N_MASK),
					status_name[d->status & 3], (unsigned long long)d->latency_ns,
					d->status == DC_COSY_S_REJECT ? (d->reason == DC_COSY_R_BUSY ? "  (receiver busy)" :
									 d->reason == DC_COSY_R_NO_VL ? "  (no virtual link)" :
									 "  (nothing back by delta)") : "");
			}
			cursor++;
		}
		h.ndone = 0;
	}
#undef GAP_NS
	close(fd);
	free(dst_of);
	free(sub_of);
	free(wait_of);
	if (ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_u64(&ctx->jw, "complete", n_ok);
		jw_u64(&ctx->jw, "rejected", n_rej);
		jw_u64(&ctx->jw, "failed", n_fail);
		jw_u64(&ctx->jw, "refused", n_refused);
		jw_u64(&ctx->jw, "done", cursor);
		jw_u64(&ctx->jw, "latency_mean_ns", n_ok ? sum_ns / n_ok : 0);
		jw_u64(&ctx->jw, "latency_max_ns", max_ns);
		jw_u64(&ctx->jw, "run_ns", now_ns() - start_ns);
		jw_u64(&ctx->jw, "start_ns", start_ns);	/* CLOCK_MONOTONIC: t_ns is from here */
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "# %llu of %llu complete; latency mean %llu ns, max %llu ns\n", (unsigned long long)n_ok,
			(unsigned long long)o->count, (unsigned long long)(n_ok ? sum_ns / n_ok : 0),
			(unsigned long long)max_ns);
	}
	if (cursor < o->count)
		return dc_fail(ctx, EXIT_ERR, "%llu of %llu messages had no answer after --run-ms %llu",
			       (unsigned long long)(o->count - cursor), (unsigned long long)o->count,
			       (unsigned long long)o->run_ms);
	return 0;
}

int dc_cosy_serve_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct cosy_net_args *o = ctx->opts;
	static struct dc_cosy_host h;
	struct peers p = { .n = 0 };
	__u64 end_ns, served = 0, failed = 0;
	int fd, rc;

	(void)argc;
	(void)argv;
	rc = open_udp(ctx, o->bind, (__u16)o->port, &fd);
	if (rc)
		return rc;
	dc_cosy_host_init(&h, 0, (__u32)o->k, 1, o->delta_ns, o->wait_ns, now_ns());
	end_ns = now_ns() + o->run_ms * 1000000ULL;
	while (served + failed < o->count && now_ns() < end_ns) {
		receive(fd, &h, &p, dc_min_u64(dc_cosy_host_next_ns(&h), end_ns));
		dc_cosy_host_tick(&h, now_ns());
		for (__u32 i = 0; i < h.nout; i++) {
			if (h.out[i].h.type == DC_COSY_T_COMPLETE)
				served++;
			else if (h.out[i].h.type == DC_COSY_T_FAILURE)
				failed++;
		}
		send_out(fd, &h, &p);
	}
	close(fd);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "received", served);
		jw_u64(&ctx->jw, "failed", failed);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "# %llu messages received, %llu failed\n", (unsigned long long)served,
			(unsigned long long)failed);
	}
	return 0;
}
