// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf rdcn voq`: per-destination VOQs at the ToRs of an emulated
 * reconfigurable fabric, their gates following the live schedule
 * (include/dcbpf/rdcn.h, "VOQs at the ToRs"; docs/rdcn.md).
 *
 * For every --uplink NS/IF=TOR/UP: the uplink's root qdisc becomes an HTB
 * with class 1:(j+1) per other ToR j (the VOQ, rate = the circuit's), each
 * holding a TBF gate, closed; dc_rd_voq (bpf/rdcn.bpf.c) at the uplink's
 * TC egress puts a frame into the VOQ of its next hop.  Then, until --ms
 * have passed or SIGINT/SIGTERM, at every slot start (CLOCK_MONOTONIC,
 * absolute sleeps) the gate of the VOQ toward peer[UP][TOR] opens (TBF
 * rate = the circuit's, a kick frame restarts the queue), and guard_us
 * before the day ends it closes (1 byte/s, a bucket of one frame, a drain
 * frame spends the refilled bucket).  The schedule is read from the
 * circuit switch's pinned maps at every slot, so a publish is followed at
 * its flip.  On exit the programs and qdiscs are removed (queued packets
 * go with them) and the gates' lateness is printed.
 */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "clock.h"
#include "pins.h"
#include "rdcn/rdcn.h"
#include "rdcn/rdcncmd.h"
#include "rdcn.skel.h"

#define PATH_LEN 1024
#define FRAME_MAX 1514		/* an Ethernet frame of a 1500-byte MTU: the closed bucket */
#define OPEN_BURST 15140	/* ten frames at the circuit's rate */
#define LATE_MAX 65536		/* lateness samples kept per edge kind */

struct voq_up {
	char ns[64], ifname[IF_NAMESIZE], pin[PATH_LEN];
	__u32 tor, up, ifindex;
	int nl, pk;		/* rtnetlink and AF_PACKET sockets, opened in the ToR's namespace */
	bool qdisc, attached, netlink_attach;
	__u32 open_to;		/* the VOQ open now; DC_RD_IDLE: none */
};

static volatile sig_atomic_t voq_stop;

static void voq_sig(int sig)
{
	(void)sig;
	voq_stop = 1;
}

/* ---- rtnetlink: one request, its ack ------------------------------------ */

struct nlreq {
	struct nlmsghdr n;
	struct tcmsg t;
	char buf[512];
};

static void nl_attr(struct nlreq *r, unsigned short type, const void *data, size_t len)
{
	char *at = (char *)r + NLMSG_ALIGN(r->n.nlmsg_len);
	struct rtattr a = { .rta_len = (unsigned short)RTA_LENGTH(len), .rta_type = type };

	memcpy(at, &a, sizeof(a));
	if (len)
		memcpy(at + RTA_LENGTH(0), data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + RTA_ALIGN(a.rta_len);
}

static struct rtattr *nl_nest(struct nlreq *r, unsigned short type)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	nl_attr(r, type, NULL, 0);
	return a;
}

static void nl_nest_end(struct nlreq *r, struct rtattr *a)
{
	unsigned short len = (unsigned short)((char *)r + r->n.nlmsg_len - (char *)a);

	memcpy(&a->rta_len, &len, sizeof(len));
}

/* Send and wait for the kernel's answer: 0 or a negative errno. */
static int nl_talk(int fd, struct nlmsghdr *n)
{
	char buf[4096];
	struct nlmsghdr *h;
	ssize_t len;

	n->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (send(fd, n, n->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned int)len); h = NLMSG_NEXT(h, len))
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
}

static void tc_msg(struct nlreq *r, int type, int flags, __u32 ifindex, __u32 parent, __u32 handle)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	r->n.nlmsg_type = (unsigned short)type;
	r->n.nlmsg_flags = (unsigned short)flags;
	r->t.tcm_family = AF_UNSPEC;
	r->t.tcm_ifindex = (int)ifindex;
	r->t.tcm_parent = parent;
	r->t.tcm_handle = handle;
}

static void rate_spec(struct tc_ratespec *r, __u64 bytes_per_s)
{
	memset(r, 0, sizeof(*r));
	r->linklayer = TC_LINKLAYER_ETHERNET;	/* no rate table needed */
	r->rate = bytes_per_s >= 0xffffffffULL ? 0xffffffffU : (__u32)bytes_per_s;
}

/* The gate of the VOQ toward `to`: create it (closed) or change it. */
static int tbf_gate(const struct voq_up *u, __u32 to, bool create, __u64 bytes_per_s, __u32 burst, __u32 limit)
{
	struct tc_tbf_qopt q = { .limit = limit };
	struct rtattr *opt;
	struct nlreq r;

	tc_msg(&r, RTM_NEWQDISC, create ? NLM_F_CREATE | NLM_F_EXCL : 0, u->ifindex, dc_rd_voq_classid(to),
	       dc_rd_gate_handle(to));
	nl_attr(&r, TCA_KIND, "tbf", 4);
	opt = nl_nest(&r, TCA_OPTIONS);
	rate_spec(&q.rate, bytes_per_s);
	nl_attr(&r, TCA_TBF_PARMS, &q, sizeof(q));
	if (bytes_per_s >= 0xffffffffULL)
		nl_attr(&r, TCA_TBF_RATE64, &bytes_per_s, sizeof(bytes_per_s));
	nl_attr(&r, TCA_TBF_BURST, &burst, sizeof(burst));
	nl_nest_end(&r, opt);
	return nl_talk(u->nl, &r.n);
}

static int htb_root(const struct voq_up *u)
{
	struct tc_htb_glob g = { .version = 3, .rate2quantum = 10, .defcls = 0 };
	struct rtattr *opt;
	struct nlreq r;

	tc_msg(&r, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, u->ifindex, TC_H_ROOT,
	       (__u32)DC_RD_VOQ_MAJOR << 16);
	nl_attr(&r, TCA_KIND, "htb", 4);
	opt = nl_nest(&r, TCA_OPTIONS);
	nl_attr(&r, TCA_HTB_INIT, &g, sizeof(g));
	nl_nest_end(&r, opt);
	return nl_talk(u->nl, &r.n);
}

static int htb_class(const struct voq_up *u, __u32 to, __u64 bytes_per_s)
{
	struct tc_htb_opt o = { 0 };
	struct rtattr *opt;
	struct nlreq r;
	__u64 burst_ns = (__u64)OPEN_BURST * 1000000000ULL / (bytes_per_s ? bytes_per_s : 1);

	tc_msg(&r, RTM_NEWTCLASS, NLM_F_CREATE | NLM_F_EXCL, u->ifindex, (__u32)DC_RD_VOQ_MAJOR << 16,
	       dc_rd_voq_classid(to));
	nl_attr(&r, TCA_KIND, "htb", 4);
	opt = nl_nest(&r, TCA_OPTIONS);
	rate_spec(&o.rate, bytes_per_s);
	rate_spec(&o.ceil, bytes_per_s);
	/* psched ticks are 64 ns */
	o.buffer = o.cbuffer = (__u32)(burst_ns >> 6) + 1;
	o.quantum = FRAME_MAX * 4;
	nl_attr(&r, TCA_HTB_PARMS, &o, sizeof(o));
	if (bytes_per_s >= 0xffffffffULL) {
		nl_attr(&r, TCA_HTB_RATE64, &bytes_per_s, sizeof(bytes_per_s));
		nl_attr(&r, TCA_HTB_CEIL64, &bytes_per_s, sizeof(bytes_per_s));
	}
	nl_nest_end(&r, opt);
	return nl_talk(u->nl, &r.n);
}

static int root_del(const struct voq_up *u)
{
	struct nlreq r;

	tc_msg(&r, RTM_DELQDISC, 0, u->ifindex, TC_H_ROOT, 0);
	return nl_talk(u->nl, &r.n);
}

/* A kick (small) or drain (one closed bucket) frame into the VOQ of `to`:
 * broadcast, so the circuit switch drops it (drop_nodest). */
static int kick(const struct voq_up *u, __u32 to, bool drain)
{
	static __u8 f[FRAME_MAX];
	struct sockaddr_ll sa = { .sll_family = AF_PACKET, .sll_ifindex = (int)u->ifindex, .sll_halen = 6 };
	size_t len = drain ? FRAME_MAX : 60;

	memset(f, 0xff, 6);
	memset(f + 6, 0, 6);
	f[6] = 0x02;
	f[12] = DC_RD_KICK_PROTO >> 8;
	f[13] = DC_RD_KICK_PROTO & 0xff;
	f[14] = (__u8)to;
	f[15] = drain;
	memset(sa.sll_addr, 0xff, 6);
	return sendto(u->pk, f, len, 0, (struct sockaddr *)&sa, sizeof(sa)) == (ssize_t)len ? 0 : -errno;
}

/* ---- the run --------------------------------------------------------------- */

static int parse_uplink(const char *s, struct voq_up *u, struct dc_err *err)
{
	const char *slash = strchr(s, '/'), *eq = strchr(s, '=');
	char *end;
	unsigned long t, up;

	if (!slash || !eq || slash > eq || slash == s || eq == slash + 1 || (size_t)(slash - s) >= sizeof(u->ns) ||
	    (size_t)(eq - slash - 1) >= sizeof(u->ifname))
		return dc_err_set(err, EXIT_USAGE, "--uplink %s: want NS/IF=TOR/UP", s);
	memcpy(u->ns, s, (size_t)(slash - s));
	memcpy(u->ifname, slash + 1, (size_t)(eq - slash - 1));
	errno = 0;
	t = strtoul(eq + 1, &end, 10);
	if (errno || end == eq + 1 || *end != '/' || t >= DC_RD_TORS_MAX)
		return dc_err_set(err, EXIT_USAGE, "--uplink %s: TOR must be 0..%d", s, DC_RD_TORS_MAX - 1);
	up = strtoul(end + 1, &end, 10);
	if (errno || *end || up >= DC_RD_UP_MAX)
		return dc_err_set(err, EXIT_USAGE, "--uplink %s: UP must be 0..%d", s, DC_RD_UP_MAX - 1);
	u->tor = (__u32)t;
	u->up = (__u32)up;
	u->open_to = DC_RD_IDLE;
	u->nl = u->pk = -1;
	return 0;
}

/* Sockets in the ToR's namespace, the qdiscs, the classifier. */
static int up_setup(struct voq_up *u, struct rdcn_bpf *o, const char *dir, __u32 ntors, __u64 bytes_per_s,
		    __u32 limit, struct dc_err *err)
{
	struct dc_attach at = { .hook = DC_HOOK_TC_EGRESS, .netns = u->ns, .ifname = u->ifname, .pin_path = u->pin };
	enum dc_attach_how how;
	char why[512];
	int saved, rc;
	__u32 j;

	if (dc_ifindex(u->ns, u->ifname, &u->ifindex, why, sizeof(why)))
		return dc_err_set(err, EXIT_ERR, "%s", why);
	if (dc_netns_enter(u->ns, &saved, why, sizeof(why)))
		return dc_err_set(err, EXIT_ERR, "%s", why);
	u->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	u->pk = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	dc_netns_leave(saved);
	if (u->nl < 0 || u->pk < 0)
		return dc_err_set(err, EXIT_ERR, "%s: sockets in %s: %s", u->ifname, u->ns, strerror(errno));
	if ((rc = htb_root(u)))
		return dc_err_set(err, EXIT_ERR, "%s/%s: HTB root: %s", u->ns, u->ifname, strerror(-rc));
	u->qdisc = true;
	for (j = 0; j < ntors; j++) {
		if (j == u->tor)
			continue;
		if ((rc = htb_class(u, j, bytes_per_s)) || (rc = tbf_gate(u, j, true, 1, FRAME_MAX, limit)))
			return dc_err_set(err, EXIT_ERR, "%s/%s: VOQ of ToR %u: %s", u->ns, u->ifname, j,
					  strerror(-rc));
	}
	if (snprintf(u->pin, sizeof(u->pin), "%s/voq_%s_%s", dir, u->ns, u->ifname) >= (int)sizeof(u->pin))
		return dc_err_set(err, EXIT_USAGE, "%s/%s: pin path too long", u->ns, u->ifname);
	unlink(u->pin);	/* a driver killed before its cleanup */
	rc = dc_attach_prog(bpf_program__fd(o->progs.dc_rd_voq), &at, &how, why, sizeof(why));
	if (rc)
		return dc_err_set(err, EXIT_ERR, "%s", why);
	u->attached = true;
	u->netlink_attach = how == DC_ATTACHED_NETLINK;
	return 0;
}

static void up_cleanup(struct voq_up *u)
{
	struct dc_attach at = { .hook = DC_HOOK_TC_EGRESS, .netns = u->ns, .ifname = u->ifname };

	if (u->attached) {
		if (u->netlink_attach)
			dc_detach_netlink(&at);
		else
			dc_detach_pinned(u->pin);
	}
	if (u->qdisc && u->nl >= 0)
		root_del(u);
	if (u->nl >= 0)
		close(u->nl);
	if (u->pk >= 0)
		close(u->pk);
}

static void sleep_until(__u64 t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL), .tv_nsec = (long)(t % 1000000000ULL) };

	while (!voq_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

struct late {
	__u64 v[LATE_MAX];
	unsigned int n;
};

static void late_add(struct late *l, __u64 ns)
{
	if (l->n < LATE_MAX)
		l->v[l->n++] = ns;
}

static double late_pct(struct late *l, double p)
{
	unsigned int i;

	if (!l->n)
		return 0;
	i = (unsigned int)(p * (l->n - 1) + 0.5);
	return (double)l->v[i] / 1000.0;
}

static void jw_us(struct jw *j, const char *key, double us)
{
	char num[32];

	snprintf(num, sizeof(num), "%.1f", us);
	jw_raw(j, key, num);
}

static void late_out(struct dc_ctx *ctx, const char *name, struct late *l)
{
	qsort(l->v, l->n, sizeof(l->v[0]), cmp_u64);
	if (ctx->json) {
		jw_obj(&ctx->jw, name);
		jw_u64(&ctx->jw, "n", l->n);
		jw_us(&ctx->jw, "p50", late_pct(l, 0.5));
		jw_us(&ctx->jw, "p99", late_pct(l, 0.99));
		jw_us(&ctx->jw, "max", late_pct(l, 1.0));
		jw_end_obj(&ctx->jw);
	} else {
		fprintf(ctx->out, "%s: %u edges, lateness p50 %.1f us, p99 %.1f us, max %.1f us\n", name, l->n,
			late_pct(l, 0.5), late_pct(l, 0.99), late_pct(l, 1.0));
	}
}

struct voq_stats {
	struct late open, close;
	__u64 slots, errors, kicks;
};

/* Read the live configuration and the slot holding now; 0, or -1 when
 * nothing is live yet (*wake: when to look again). */
static int live(int fd_flip, int fd_cfg, int fd_sched, __u64 now, struct dc_rd_cfg *c, struct dc_rd_slot *s,
		__u64 guard_ns, __u64 *open_ns, __u64 *close_ns, __u64 *wake)
{
	struct dc_rd_flip fl;
	__u32 zero = 0, buf, slot, key;

	if (bpf_map_lookup_elem(fd_flip, &zero, &fl))
		return -1;
	buf = dc_rd_live_buf(fl.buf_at_ns, now);
	if (bpf_map_lookup_elem(fd_cfg, &buf, c) || dc_rd_cfg_check(c) || now < c->epoch_ns) {
		/* nothing live: look again at the flip, or soon */
		__u64 at = dc_rd_flip_at_ns(fl.buf_at_ns);

		*wake = at > now ? at : now + 1000000;
		if (!dc_rd_cfg_check(c) && c->epoch_ns > now && c->epoch_ns < *wake)
			*wake = c->epoch_ns;
		return -1;
	}
	slot = dc_rd_gate_times(c, now, guard_ns, open_ns, close_ns);
	key = dc_rd_sched_key(buf, slot);
	return bpf_map_lookup_elem(fd_sched, &key, s) ? -1 : 0;
}

static void gates(struct voq_up *ups, unsigned int n, const struct dc_rd_slot *s, bool open, __u64 bytes_per_s,
		  __u32 limit, __u64 deadline, struct voq_stats *st)
{
	unsigned int i;
	__u32 to;

	for (i = 0; i < n; i++) {
		struct voq_up *u = &ups[i];

		if (open) {
			to = s ? dc_rd_peer(s, u->up, u->tor) : DC_RD_IDLE;
			if (to == u->tor || to >= DC_RD_TORS_MAX)
				continue;
			if (tbf_gate(u, to, false, bytes_per_s, OPEN_BURST, limit) || kick(u, to, false))
				st->errors++;
			u->open_to = to;
		} else {
			to = u->open_to;
			if (to == DC_RD_IDLE)
				continue;
			if (tbf_gate(u, to, false, 1, FRAME_MAX, limit) || kick(u, to, true))
				st->errors++;
			u->open_to = DC_RD_IDLE;
		}
		st->kicks++;
	}
	late_add(open ? &st->open : &st->close, dc_mono_ns() - deadline);
}

int dc_rd_voq_run(struct dc_ctx *ctx, const struct dc_rd_voq_args *a)
{
	static struct voq_up ups[DC_OPT_LIST_MAX];
	static struct voq_stats st;
	struct dc_rd_cfg c[2] = { 0 }, cur;
	struct dc_rd_slot s;
	struct sched_param sp = { .sched_priority = 10 };
	struct sigaction sa = { .sa_handler = voq_sig };
	char dir[PATH_LEN], path[PATH_LEN * 2];
	struct rdcn_bpf *o = NULL;
	__u64 bytes_per_s = a->circuit_mbps * 125000ULL, guard_ns = a->guard_us * 1000ULL, end, now, op = 0, cl = 0;
	__u64 wake = 0;
	__u64 target = 0;	/* the instant we last slept until */
	__u32 ntors = 0, b, limit = (__u32)a->voq_bytes;
	unsigned int i, j, n = a->uplinks.n;
	int fd_flip, fd_cfg, fd_sched, rc = 0;
	bool fifo;

	if (!n)
		return dc_err_set(&ctx->err, EXIT_USAGE, "at least one --uplink NS/IF=TOR/UP");
	for (i = 0; i < n; i++) {
		memset(&ups[i], 0, sizeof(ups[i]));
		if ((rc = parse_uplink(a->uplinks.v[i], &ups[i], &ctx->err)))
			return rc;
		for (j = 0; j < i; j++)
			if (!strcmp(ups[i].ns, ups[j].ns) && !strcmp(ups[i].ifname, ups[j].ifname))
				return dc_err_set(&ctx->err, EXIT_USAGE, "--uplink %s given twice", a->uplinks.v[i]);
	}
	if (dc_pin_ns_dir(dir, sizeof(dir), ctx->pin_dir, DC_PIN_RDCN, a->netns, &ctx->err))
		return EXIT_USAGE;
	snprintf(path, sizeof(path), "%s/dc_rd_flip", dir);
	if (!dc_exists(path))
		return dc_err_set(&ctx->err, EXIT_ERR, "no circuit switch in %s: dcbpf rdcn attach first", dir);
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		o = rdcn_bpf__open_opts(&oo);
	}
	if (!o || rdcn_bpf__load(o)) {
		rdcn_bpf__destroy(o);
		return dc_err_set(&ctx->err, EXIT_ERR, "loading the VOQ classifier with the maps of %s failed: %s",
				  dir, strerror(errno));
	}
	fd_flip = bpf_map__fd(o->maps.dc_rd_flip);
	fd_cfg = bpf_map__fd(o->maps.dc_rd_cfg);
	fd_sched = bpf_map__fd(o->maps.dc_rd_sched);
	/* a VOQ per ToR either schedule copy knows */
	for (b = 0; b < DC_RD_BUFS; b++)
		if (!bpf_map_lookup_elem(fd_cfg, &b, &c[b]) && !dc_rd_cfg_check(&c[b]) && c[b].ntors > ntors)
			ntors = c[b].ntors;
	if (!ntors) {
		rc = dc_err_set(&ctx->err, EXIT_ERR, "no schedule published in %s: dcbpf rdcn publish first", dir);
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < n; i++)
		if ((rc = up_setup(&ups[i], o, dir, ntors, bytes_per_s, limit, &ctx->err)))
			goto out;
	/* the gates' edges are what the fabric's timing error is made of */
	fifo = !sched_setscheduler(0, SCHED_FIFO, &sp);
	if (a->ready)
		fclose(fopen(a->ready, "w"));
	end = a->ms ? dc_mono_ns() + a->ms * 1000000ULL : ~0ULL;
	while (!voq_stop && (now = dc_mono_ns()) < end) {
		if (live(fd_flip, fd_cfg, fd_sched, now, &cur, &s, guard_ns, &op, &cl, &wake)) {
			target = wake < end ? wake : end;
			sleep_until(target);
			continue;
		}
		if (now < cl) {
			/* open at the slot's start: late by our wake-up if we
			 * slept until it, else (the first slot, a day found
			 * under way) now */
			gates(ups, n, &s, true, bytes_per_s, limit, target == op ? op : now, &st);
			st.slots++;
			sleep_until(cl < end ? cl : end);
			if (voq_stop || dc_mono_ns() < cl)
				break;
			gates(ups, n, NULL, false, bytes_per_s, limit, cl, &st);
		}
		target = op + cur.slot_ns < end ? op + cur.slot_ns : end;
		sleep_until(target);
	}
	if (fifo) {
		sp.sched_priority = 0;
		sched_setscheduler(0, SCHED_OTHER, &sp);
	}
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "uplinks", n);
		jw_u64(&ctx->jw, "tors", ntors);
		jw_u64(&ctx->jw, "slots", st.slots);
		jw_u64(&ctx->jw, "kicks", st.kicks);
		jw_u64(&ctx->jw, "errors", st.errors);
		jw_bool(&ctx->jw, "sched_fifo", fifo);
		late_out(ctx, "open_late_us", &st.open);
		late_out(ctx, "close_late_us", &st.close);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "%u uplink(s), %u VOQs each, %llu slots, %llu kick/drain frames, %llu errors%s\n", n,
			ntors - 1, (unsigned long long)st.slots, (unsigned long long)st.kicks,
			(unsigned long long)st.errors, fifo ? "" : " (no SCHED_FIFO)");
		late_out(ctx, "open", &st.open);
		late_out(ctx, "close", &st.close);
	}
	if (st.errors)
		rc = dc_err_set(&ctx->err, EXIT_ERR, "%llu gate changes failed", (unsigned long long)st.errors);
out:
	for (i = 0; i < n; i++)
		up_cleanup(&ups[i]);
	rdcn_bpf__destroy(o);
	return rc;
}
