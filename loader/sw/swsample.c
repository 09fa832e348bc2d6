// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A switch observed while it runs: `switch sample` (the tracked backlog
 * of each port next to the qdisc's own, for checking the tracker),
 * `switch capture` (arrivals from the event ring buffer, in the
 * simulator's trace format) and the drop trace behind
 * `dcbpf trace --switch`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "pins.h"
#include "ring.h"
#include "sw/swint.h"

/* Root qdisc backlog of every interface in the current namespace. */
static int qdisc_backlogs(int nl, __u32 *ifidx, __u64 *backlog, int max)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)), .nlmsg_type = RTM_GETQDISC,
			  .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		  .tc = { .tcm_family = AF_UNSPEC } };
	static char buf[65536];
	int n = 0;

	if (send(nl, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t len = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (len < 0)
			return -errno;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (unsigned int)len);
		     nh = NLMSG_NEXT(nh, len)) {
			struct tcmsg *tc = NLMSG_DATA(nh);
			struct rtattr *rta;
			int alen;

			if (nh->nlmsg_type == NLMSG_DONE)
				return n;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return -EIO;
			if (tc->tcm_parent != TC_H_ROOT || n >= max)
				continue;
			alen = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)));
			for (rta = (struct rtattr *)((char *)tc + NLMSG_ALIGN(sizeof(*tc))); RTA_OK(rta, alen);
			     rta = RTA_NEXT(rta, alen)) {
				struct rtattr *s;
				int slen;

				if (rta->rta_type != TCA_STATS2)
					continue;
				slen = (int)RTA_PAYLOAD(rta);
				for (s = RTA_DATA(rta); RTA_OK(s, slen); s = RTA_NEXT(s, slen)) {
					if (s->rta_type == TCA_STATS_QUEUE &&
					    RTA_PAYLOAD(s) >= sizeof(struct gnet_stats_queue)) {
						struct gnet_stats_queue q;

						memcpy(&q, RTA_DATA(s), sizeof(q));
						ifidx[n] = (__u32)tc->tcm_ifindex;
						backlog[n++] = q.backlog;
					}
				}
			}
		}
	}
}

int sw_cmd_sample(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct sw_sample_args *a = ctx->opts;
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	struct sw s;
	char why[512];
	int saved, nl;
	__u32 k;

	(void)argc;
	(void)argv;
	if (sw_open(ctx->pin_dir, a->name, &s, &ctx->err))
		return EXIT_ERR;
	why[0] = '\0';
	if (sw_read_cfg(&s, &meta, &cfg))
		snprintf(why, sizeof(why), "reading %s/%s: %s", s.dir, M_CFG, strerror(errno));
	if (why[0] || dc_netns_enter(meta.netns, &saved, why, sizeof(why))) {
		dc_fail(ctx, EXIT_ERR, "switch %s: %s", s.name, why);
		sw_close(&s);
		return EXIT_ERR;
	}
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	dc_netns_leave(saved);
	if (nl < 0) {
		dc_fail(ctx, EXIT_ERR, "switch %s: netlink socket: %s", s.name, strerror(errno));
		sw_close(&s);
		return EXIT_ERR;
	}
	/* qdisc first, map right after: the pair is tens of µs apart */
	if (ctx->json)
		jw_arr(&ctx->jw, NULL);
	else
		fprintf(ctx->out, "t_ns,port,ifname,tracked_backlog_bytes,qdisc_backlog_bytes\n");
	for (k = 0; k < a->count; k++) {
		__u32 ifidx[64], i;
		__u64 bl[64];
		int n = qdisc_backlogs(nl, ifidx, bl, 64), m;
		__u64 t = sw_mono_ns();

		for (i = 0; i < DC_SW_PORTS_MAX; i++) {
			struct dc_sw_port p;

			if (bpf_map_lookup_elem(s.port, &i, &p) || !p.rate_mbps)
				continue;
			for (m = 0; m < n; m++) {
				if (ifidx[m] != p.ifindex)
					continue;
				if (!ctx->json) {
					fprintf(ctx->out, "%llu,%u,%s,%llu,%llu\n", (unsigned long long)t, i,
						p.ifname, (unsigned long long)p.qlen_bytes,
						(unsigned long long)bl[m]);
					continue;
				}
				jw_obj(&ctx->jw, NULL);
				jw_u64(&ctx->jw, "t_ns", t);
				jw_u64(&ctx->jw, "port", i);
				jw_str(&ctx->jw, "ifname", p.ifname);
				jw_u64(&ctx->jw, "tracked_backlog_bytes", p.qlen_bytes);
				jw_u64(&ctx->jw, "qdisc_backlog_bytes", bl[m]);
				jw_end_obj(&ctx->jw);
			}
		}
		usleep((useconds_t)a->interval_us);
	}
	if (ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_done(&ctx->jw);
	}
	close(nl);
	sw_close(&s);
	return EXIT_OK;
}

/* ---- events: capture (simulator trace) and drop trace ----------------------------- */

typedef int (*ev_fn)(void *arg, const struct dc_sw_event *e);

struct ev_sink {
	ev_fn fn;
	void *arg;
};

static int ev_dispatch(void *arg, void *data, size_t len)
{
	struct ev_sink *k = arg;

	if (dc_ring_stopped() || len < sizeof(struct dc_sw_event))
		return 0;
	if (k->fn(k->arg, data))
		dc_ring_stop();
	return 0;
}

static __u64 ev_lost_total(struct sw *s)
{
	struct dc_sw_counters c;
	__u64 n = 0;
	__u32 k;

	for (k = 0; k < DC_SW_CNT_ENTRIES; k++)
		if (!sw_sum_counters(s->cnt, k, &c))
			n += c.ev_lost;
	return n;
}

/* Set one event switch of the live configuration (idle slot + flip),
 * leaving the other as it is: sampling for capture, drops for the trace. */
static int ev_set(struct sw *s, bool sampling, __u32 v)
{
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;

	if (sw_read_cfg(s, &meta, &cfg))
		return -errno;
	if (sampling)
		cfg.ev_sample_every = v;
	else
		cfg.ev_drops = v;
	return sw_write_cfg(s, &cfg);
}

/*
 * Ask switch `name` for events (drops if `drops`, else 1 in `every` arrivals),
 * hand each to fn until it returns non-zero, a signal, or duration_s
 * (0 = no limit); then put the event switches back as they were.  Two
 * consumers at once share the one ring and restore in their own order:
 * run one at a time.
 */
static int sw_events(const char *pin_dir, const char *name, __u32 every, bool drops,
		     double duration_s, ev_fn fn, void *arg, __u64 *lost, struct dc_err *e)
{
	struct ev_sink sink = { fn, arg };
	struct dc_ring ring;
	struct dc_sw_meta meta;
	struct dc_sw_cfg old;
	char path[DC_PATH_LEN + 128];
	__u64 lost0;
	int rc = EXIT_OK, err;
	struct sw s;

	*lost = 0;
	if (sw_open(pin_dir, name, &s, e))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &old)) {
		sw_close(&s);
		return dc_err_set(e, EXIT_ERR, "switch %s: reading %s failed", name, M_CFG);
	}
	dc_pin_map_path(path, sizeof(path), s.dir, M_EVENTS);
	if (dc_ring_open(&ring, path, M_EVENTS, ev_dispatch, &sink, e)) {
		dc_err_prefix(e, "switch %s (started by an older dcbpf? 'dcbpf switch down' and up "
			      "again)", name);
		sw_close(&s);
		return EXIT_ERR;
	}
	lost0 = ev_lost_total(&s);
	err = ev_set(&s, !drops, drops ? 1 : every);
	if (err) {
		rc = dc_err_set(e, EXIT_ERR, "switch %s: switching events on failed: %s", name,
				strerror(-err));
		goto out;
	}
	if (dc_ring_run(&ring, M_EVENTS, duration_s, stdout, e)) {
		dc_err_prefix(e, "switch %s", name);
		rc = EXIT_ERR;
	}
	err = ev_set(&s, !drops, drops ? old.ev_drops : old.ev_sample_every);
	if (err && rc == EXIT_OK)
		rc = dc_err_set(e, EXIT_ERR, "switch %s: switching events off failed: %s", name,
				strerror(-err));
	*lost = ev_lost_total(&s) - lost0;
out:
	dc_ring_close(&ring);
	sw_close(&s);
	return rc;
}

struct capture {
	FILE *f;
	unsigned long count, seen;
	__u64 t0;
};

static int capture_one(void *arg, const struct dc_sw_event *e)
{
	struct capture *c = arg;

	if (!(e->flags & DC_SW_EV_SAMPLE) || (c->count && c->seen >= c->count))
		return c->count && c->seen >= c->count;
	if (!c->seen)
		c->t0 = e->time_ns;
	fprintf(c->f, "%llu,%u,%u,%u,%u,%u,%u,%u,%u,%u\n",
		(unsigned long long)(e->time_ns >= c->t0 ? e->time_ns - c->t0 : 0), e->port, e->prio,
		e->len, e->flags & DC_SW_EV_FIRST_RTT ? 1 : 0, e->verdict, e->q_bytes, e->occ_bytes,
		e->q_ewma_bytes, e->occ_ewma_bytes);
	c->seen++;
	return c->count && c->seen >= c->count;
}

static void lost_note(struct dc_ctx *ctx, const char *name, __u64 lost)
{
	if (lost)
		fprintf(ctx->errf,
			"dcbpf: switch %s: %llu event(s) lost: the ring buffer was full (sample fewer with --every)\n",
			name, (unsigned long long)lost);
}

/*
 * `dcbpf switch capture NAME --out FILE`: arrivals in the simulator's trace
 * format (dc_sim_read_trace: time_ns,port,priority,bytes,first_rtt), time
 * from the first captured arrival, followed by columns the simulator
 * ignores: the verdict and the prediction's features.
 */
int sw_cmd_capture(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct sw_capture_args *a = ctx->opts;
	struct capture c = { .count = a->count };
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	struct sw s;
	char tmp[4200];
	__u64 lost;
	int rc;
	__u32 i;

	(void)argc;
	(void)argv;
	if (sw_open(ctx->pin_dir, a->name, &s, &ctx->err))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &cfg)) {
		dc_fail(ctx, EXIT_ERR, "switch %s: reading %s/%s: %s", s.name, s.dir, M_CFG,
			strerror(errno));
		sw_close(&s);
		return EXIT_ERR;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", a->out);
	c.f = fopen(tmp, "we");
	if (!c.f) {
		dc_fail(ctx, EXIT_ERR, "cannot write %s: %s", tmp, strerror(errno));
		sw_close(&s);
		return EXIT_ERR;
	}
	fprintf(c.f, "# dcbpf switch capture %s: alg %s, buffer_bytes %u, 1 in %u arrivals (replaying LQD needs every arrival: --every 1)\n",
		s.name, sw_alg_name(cfg.alg), cfg.buffer_bytes, a->every);
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		struct dc_sw_port p;

		if (!bpf_map_lookup_elem(s.port, &i, &p) && p.rate_mbps)
			fprintf(c.f, "# port %u %s %u Mbit/s\n", i, p.ifname, p.rate_mbps);
	}
	fprintf(c.f, "time_ns,port,priority,bytes,first_rtt,verdict,q_bytes,occ_bytes,q_ewma_bytes,occ_ewma_bytes\n");
	sw_close(&s);
	rc = sw_events(ctx->pin_dir, a->name, a->every, false, a->duration, capture_one, &c, &lost,
		       &ctx->err);
	lost_note(ctx, a->name, lost);
	errno = 0;
	if (fclose(c.f) || rc != EXIT_OK || rename(tmp, a->out)) {
		char why[DC_ERR_MSG_LEN];

		snprintf(why, sizeof(why), "%s", dc_err_is_set(&ctx->err) ? ctx->err.msg :
						 errno ? strerror(errno) : "");
		unlink(tmp);
		return dc_fail(ctx, EXIT_ERR, "%s not written%s%s", a->out, why[0] ? ": " : "", why);
	}
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "out", a->out);
		jw_u64(&ctx->jw, "captured", c.seen);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->errf, "captured %lu arrival(s) to %s\n", c.seen, a->out);
	}
	return EXIT_OK;
}

static const char *const verdict_names[] = { "admit", "thresh", "full", "pred" };

struct dtrace {
	bool csv;
	unsigned long count, seen;
	__u64 t0;
	char ifname[DC_SW_PORTS_MAX][DC_SW_IFNAME_LEN];
};

static int dtrace_one(void *arg, const struct dc_sw_event *e)
{
	struct dtrace *t = arg;
	const char *why = e->verdict < 4 ? verdict_names[e->verdict] : "?";

	if (!(e->flags & DC_SW_EV_DROP) || (t->count && t->seen >= t->count))
		return t->count && t->seen >= t->count;
	if (!t->t0)
		t->t0 = e->time_ns;
	if (t->csv)
		printf("%llu,%u,%s,%u,%u,%s,%u,%u,%llu,%u,%u\n", (unsigned long long)e->time_ns, e->port,
		       t->ifname[e->port & (DC_SW_PORTS_MAX - 1)], e->prio, e->len, why, e->q_bytes,
		       e->occ_bytes, (unsigned long long)e->thresh_bytes, e->q_ewma_bytes,
		       e->occ_ewma_bytes);
	else
		printf("%10.3f %4u %-15s %4u %6u %-6s %10u %10u %10llu\n",
		       (double)(e->time_ns - t->t0) / 1e6, e->port,
		       t->ifname[e->port & (DC_SW_PORTS_MAX - 1)], e->prio, e->len, why, e->q_bytes,
		       e->occ_bytes, (unsigned long long)e->thresh_bytes);
	t->seen++;
	return t->count && t->seen >= t->count;
}

int dc_sw_trace_drops(const char *pin_dir, const char *name, bool csv, unsigned long count,
		      double duration_s, __u64 *lost, struct dc_err *err)
{
	struct dtrace t = { .csv = csv, .count = count };
	struct sw s;
	__u32 i;

	*lost = 0;
	if (sw_open(pin_dir, name, &s, err))
		return EXIT_ERR;
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		struct dc_sw_port p;

		if (!bpf_map_lookup_elem(s.port, &i, &p) && p.rate_mbps)
			snprintf(t.ifname[i], sizeof(t.ifname[i]), "%s", p.ifname);
		else
			snprintf(t.ifname[i], sizeof(t.ifname[i]), "-");
	}
	sw_close(&s);
	if (csv)
		printf("time_ns,port,ifname,priority,bytes,reason,q_bytes,occ_bytes,thresh_bytes,q_ewma_bytes,occ_ewma_bytes\n");
	else
		printf("%10s %4s %-15s %4s %6s %-6s %10s %10s %10s\n", "t_ms", "port", "ifname", "prio",
		       "bytes", "reason", "q_B", "Q_B", "thresh_B");
	fflush(stdout);
	return sw_events(pin_dir, name, 0, true, duration_s, dtrace_one, &t, lost, err);
}
