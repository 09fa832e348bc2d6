// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * s-PERC on live interfaces and hosts (docs/perc.md):
 *   dcbpf perc attach   the link program on one interface, its link configured
 *   dcbpf perc detach   every link program and pin of a namespace removed
 *   dcbpf perc set      a running link's capacity (also dcbpfd's [perc])
 *   dcbpf perc host     the sender's control loop (and the sockops lifecycle)
 * (dcbpf perc status: percstatus.c)
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/perchost.h"
#include "dcbpf/flow.h"
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "clock.h"
#include "config.h"
#include "rand.h"
#include "pins.h"
#include "perc/perccmd.h"
#include "perc/perchost.h"
#include "perc.skel.h"
#include "perc_host.skel.h"

#define PATHS_MAX DC_OPT_LIST_MAX
#define LOOP_FLOWS_MAX 256

/* <pin_dir>/perc/<netns or "host">: one directory per namespace, since
 * dc_perc_port is keyed by ifindex and ifindexes repeat across namespaces. */
int dc_perc_ns_dir(char *buf, size_t len, const char *pin_dir, const char *netns,
		   struct dc_err *err)
{
	return dc_pin_ns_dir(buf, len, pin_dir, DC_PIN_PERC, netns, err);
}

/* ---- attach / detach ------------------------------------------------------ */

static int link_pin(char *buf, size_t len, const char *dir, const char *dev, const char *hook)
{
	int n = snprintf(buf, len, "%s/%s_%s", dir, dev, hook);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int attach_hook(int prog_fd, enum dc_hook hook, const struct dc_perc_attach_args *a,
		       const char *pin, struct dc_err *err)
{
	struct dc_attach at = { .hook = hook, .netns = a->netns, .ifname = a->dev, .pin_path = pin };
	enum dc_attach_how how;
	char why[512];
	int rc;

	if (dc_exists(pin))
		return 0;	/* attached before: only the link's settings change */
	rc = dc_attach_prog(prog_fd, &at, &how, why, sizeof(why));
	if (rc)
		return dc_err_set(err, EXIT_ERR, "%s", why);
	if (how != DC_ATTACHED_LINK) {
		/* the fallback attached it through netlink: take it off again,
		 * a refused attach leaves the interface as it was */
		dc_detach_netlink(&at);
		return dc_err_set(err, EXIT_ERR, "%s: this kernel has no tcx links; the s-PERC link "
				  "program needs 6.6+", a->dev);
	}
	return 0;
}

/*
 * Configure link a->link on a->dev (in a->netns) and attach the link
 * program to its TC egress and ingress.  A link that is already in use
 * with the same id keeps its state and takes only the new capacity (live,
 * under the link's lock); otherwise its state starts over.
 */
int dc_perc_attach(const char *pin_dir, const struct dc_perc_attach_args *a, struct dc_err *err)
{
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 3], why[256];
	struct dc_perc_link l, old;
	struct dc_perc_port port = { 0 };
	struct dc_perc_lcfg cfg = { .cap_kbps = a->cap_kbps };
	struct perc_bpf *s = NULL;
	__u32 idx = (__u32)a->link, ifindex;
	__u64 seed;
	int rc, lfd, pfd, cfd;

	if (!a->link || a->link >= DC_PERC_LINKS_MAX || a->link > 0xffff)
		return dc_err_set(err, EXIT_USAGE, "--link %llu: 1..%u", (unsigned long long)a->link,
				  DC_PERC_LINKS_MAX - 1);
	if (dc_perc_ns_dir(dir, sizeof(dir), pin_dir, a->netns, err))
		return EXIT_USAGE;
	if (dc_ifindex(a->netns, a->dev, &ifindex, why, sizeof(why)))
		return dc_err_set(err, EXIT_ERR, "%s", why);
	rc = dc_mkdirs(dir);
	if (rc)
		return dc_err_set(err, EXIT_ERR, "cannot create %s: %s", dir, strerror(-rc));
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		s = perc_bpf__open_opts(&oo);
	}
	if (!s || perc_bpf__load(s)) {
		rc = dc_err_set(err, EXIT_ERR, "loading the s-PERC link program failed: %s (a pin in "
				"%s from another build: dcbpf perc detach, then attach again)",
				strerror(errno), dir);
		goto out;
	}
	lfd = bpf_map__fd(s->maps.dc_perc_link);
	pfd = bpf_map__fd(s->maps.dc_perc_port);
	memset(&old, 0, sizeof(old));
	cfd = bpf_map__fd(s->maps.dc_perc_lcfg);
	if (!bpf_map_lookup_elem_flags(lfd, &idx, &old, BPF_F_LOCK) && old.link_id == idx &&
	    old.st.mode == (__u32)a->mode) {
		/* the capacity through dc_perc_lcfg (the next packet takes it
		 * under the lock); the link value only for a new round, which
		 * writes the state back as read */
		if (old.round_ns != a->round_us * 1000) {
			old.round_ns = a->round_us * 1000;
			if (bpf_map_update_elem(lfd, &idx, &old, BPF_F_LOCK)) {
				rc = dc_err_set(err, EXIT_ERR, "updating link %u: %s", idx,
						strerror(errno));
				goto out;
			}
		}
		if (bpf_map_update_elem(cfd, &idx, &cfg, 0)) {
			rc = dc_err_set(err, EXIT_ERR, "updating link %u: %s", idx, strerror(errno));
			goto out;
		}
	} else {
		memset(&l, 0, sizeof(l));
		l.link_id = idx;
		l.round_ns = a->round_us * 1000;
		/* T_0(l): each link its own reset phase (resets are not
		 * synchronised across links, Ch. 3.2) */
		seed = dc_mono_ns() ^ ((__u64)ifindex << 32) ^ idx;
		l.phase_ns = l.round_ns ? dc_rand_below(&seed, l.round_ns) : 0;
		dc_perc_state_init(&l.st, a->cap_kbps, (__u32)a->mode);
		if (bpf_map_update_elem(cfd, &idx, &cfg, 0) || bpf_map_update_elem(lfd, &idx, &l, 0)) {
			rc = dc_err_set(err, EXIT_ERR, "writing link %u: %s", idx, strerror(errno));
			goto out;
		}
	}
	port.link = idx;
	port.flags = a->host ? DC_PERC_PORT_HOST : 0;
	if (bpf_map_update_elem(pfd, &ifindex, &port, 0)) {
		rc = dc_err_set(err, EXIT_ERR, "writing port %s: %s", a->dev, strerror(errno));
		goto out;
	}
	rc = link_pin(pin, sizeof(pin), dir, a->dev, "egress");
	if (!rc)
		rc = attach_hook(bpf_program__fd(s->progs.dc_perc_egress), DC_HOOK_TC_EGRESS, a, pin, err);
	if (!rc)
		rc = link_pin(pin, sizeof(pin), dir, a->dev, "ingress");
	if (!rc)
		rc = attach_hook(bpf_program__fd(s->progs.dc_perc_ingress), DC_HOOK_TC_INGRESS, a, pin,
				 err);
	if (rc == -ENAMETOOLONG)
		rc = dc_err_set(err, EXIT_USAGE, "%s: pin path too long", a->dev);
out:
	perc_bpf__destroy(s);
	return rc ? (err->code ? err->code : EXIT_ERR) : EXIT_OK;
}

/* Every link program of the namespace detached, its pins removed. */
int dc_perc_detach(const char *pin_dir, const char *netns, struct dc_err *err)
{
	static const char *const maps[] = { "dc_perc_link", "dc_perc_port", "dc_perc_stats",
					    "dc_perc_lcfg" };
	char dir[DC_PATH_LEN * 2], path[DC_PATH_LEN * 3];
	struct dirent *e;
	unsigned int i;
	size_t n;
	DIR *d;

	if (dc_perc_ns_dir(dir, sizeof(dir), pin_dir, netns, err))
		return EXIT_USAGE;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? EXIT_OK
				       : dc_err_set(err, EXIT_ERR, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		n = strlen(e->d_name);
		if ((n > 7 && !strcmp(e->d_name + n - 7, "_egress")) ||
		    (n > 8 && !strcmp(e->d_name + n - 8, "_ingress"))) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			dc_detach_pinned(path);
		}
	}
	closedir(d);
	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, maps[i]);
		if (unlink(path) && errno != ENOENT)
			return dc_err_set(err, EXIT_ERR, "cannot remove %s: %s", path, strerror(errno));
	}
	if (rmdir(dir) && errno != ENOENT)
		return dc_err_set(err, EXIT_ERR, "cannot remove %s: %s (something else is pinned there)",
				  dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/perc", pin_dir);
	rmdir(path);	/* only when empty: other namespaces keep theirs */
	return EXIT_OK;
}

/* ---- set: a running link's capacity --------------------------------------- */

static void close_fds(int *fd, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/*
 * The capacity of n running links of one namespace, all or nothing: every
 * link is found (interface -> dc_perc_port -> an attached dc_perc_link, or
 * the link index) before any is written, and a write that fails puts the
 * ones before it back.  Only dc_perc_lcfg is written; the link's state
 * (SumE, NumB, MaxE, the shadows, roundNumber) stays as packets left it,
 * and the next control packet computes b from the new C.  c[i].old_kbps
 * is the capacity the link used before.
 */
int dc_perc_set_caps(const char *pin_dir, const char *netns, struct dc_perc_cap *c, unsigned int n,
		     struct dc_err *err)
{
	static const char *const names[] = { "dc_perc_link", "dc_perc_port", "dc_perc_lcfg" };
	static const __u32 types[] = { BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY };
	static const __u32 vsz[] = { sizeof(struct dc_perc_link), sizeof(struct dc_perc_port),
				     sizeof(struct dc_perc_lcfg) };
	const char *ns = netns && *netns ? netns : "(own)";
	char dir[DC_PATH_LEN * 2], why[512];
	struct dc_perc_lcfg prev[DC_PERC_LINKS_MAX];
	unsigned int i, j;
	int fd[3] = { -1, -1, -1 };
	int rc = EXIT_OK;

	if (n > DC_PERC_LINKS_MAX)
		return dc_err_set(err, EXIT_USAGE, "more than %u links", DC_PERC_LINKS_MAX);
	if (dc_perc_ns_dir(dir, sizeof(dir), pin_dir, netns, err))
		return EXIT_USAGE;
	for (i = 0; i < 3; i++) {
		fd[i] = dc_pinned_map_open(dir, names[i], types[i], sizeof(__u32), vsz[i], why,
					   sizeof(why));
		if (fd[i] >= 0)
			continue;
		if (fd[i] == -ENOENT && i < 2)
			rc = dc_err_set(err, EXIT_ERR, "s-PERC is not attached in netns %s (nothing "
					"pinned in %s): dcbpf perc attach first", ns, dir);
		else if (fd[i] == -ENOENT)
			rc = dc_err_set(err, EXIT_ERR, "the s-PERC links of netns %s were attached by "
					"a build without live capacity (no %s/dc_perc_lcfg): dcbpf perc "
					"detach, then attach again", ns, dir);
		else
			rc = dc_err_set(err, EXIT_ERR, "%s", why);
		goto out;
	}
	/* resolve every link before writing one */
	for (i = 0; i < n; i++) {
		struct dc_perc_port port;
		struct dc_perc_link l;
		__u32 ifindex;

		if (!c[i].cap_kbps || c[i].cap_kbps > DC_PERC_CAP_MAX_KBPS) {
			rc = dc_err_set(err, EXIT_USAGE, "capacity %llu kbps: allowed 1..%llu",
					(unsigned long long)c[i].cap_kbps,
					(unsigned long long)DC_PERC_CAP_MAX_KBPS);
			goto out;
		}
		if (c[i].dev[0]) {
			if (dc_ifindex(netns, c[i].dev, &ifindex, why, sizeof(why))) {
				rc = dc_err_set(err, EXIT_ERR, "%s", why);
				goto out;
			}
			if (bpf_map_lookup_elem(fd[1], &ifindex, &port)) {
				rc = dc_err_set(err, EXIT_ERR, "%s (netns %s) is not an s-PERC port: "
						"dcbpf perc attach --dev %s first", c[i].dev, ns,
						c[i].dev);
				goto out;
			}
			c[i].link = port.link;
		}
		memset(&l, 0, sizeof(l));
		if (!c[i].link || c[i].link >= DC_PERC_LINKS_MAX ||
		    bpf_map_lookup_elem_flags(fd[0], &c[i].link, &l, BPF_F_LOCK) || !l.link_id) {
			rc = dc_err_set(err, EXIT_ERR, "link %u is not configured in netns %s (dcbpf "
					"perc status lists the links)", c[i].link, ns);
			goto out;
		}
		for (j = 0; j < i; j++)
			if (c[j].link == c[i].link) {
				rc = dc_err_set(err, EXIT_USAGE, "link %u is named twice", c[i].link);
				goto out;
			}
		memset(&prev[i], 0, sizeof(prev[i]));
		bpf_map_lookup_elem(fd[2], &c[i].link, &prev[i]);
		c[i].old_kbps = prev[i].cap_kbps ? prev[i].cap_kbps : l.st.cap_kbps;
	}
	for (i = 0; i < n; i++) {
		struct dc_perc_lcfg v = { .cap_kbps = c[i].cap_kbps };

		if (!bpf_map_update_elem(fd[2], &c[i].link, &v, 0))
			continue;
		rc = dc_err_set(err, EXIT_ERR, "writing the capacity of link %u (netns %s): %s; "
				"nothing changed", c[i].link, ns, strerror(errno));
		while (i--)
			bpf_map_update_elem(fd[2], &c[i].link, &prev[i], 0);
		goto out;
	}
out:
	close_fds(fd, 3);
	return rc;
}

/* ---- the control loop ----------------------------------------------------- */

struct route {
	__u32 net, mask;	/* network order */
	__u32 nhops;
};

/* "A.B.C.D/LEN=HOPS" */
static int parse_route(const char *s, struct route *r, struct dc_err *err)
{
	char buf[64], *slash, *eq, *end;
	unsigned long len, hops;
	struct in_addr in;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	eq = strchr(buf, '=');
	if (!slash || !eq || eq < slash)
		return dc_err_set(err, EXIT_USAGE, "--path %s: want A.B.C.D/LEN=HOPS", s);
	*slash = *eq = '\0';
	len = strtoul(slash + 1, &end, 10);
	if (inet_pton(AF_INET, buf, &in) != 1 || *end || end == slash + 1 || len > 32)
		return dc_err_set(err, EXIT_USAGE, "--path %s: want A.B.C.D/LEN=HOPS", s);
	hops = strtoul(eq + 1, &end, 10);
	if (*end || end == eq + 1 || !hops || hops > DC_PERC_MAX_HOPS)
		return dc_err_set(err, EXIT_USAGE, "--path %s: HOPS is the number of links on the "
				  "path, 1..%u", s, DC_PERC_MAX_HOPS);
	r->mask = len ? htonl(~0U << (32 - len)) : 0;
	r->net = in.s_addr & r->mask;
	r->nhops = (__u32)hops;
	return 0;
}

/* Longest prefix wins. */
static __u32 route_hops(const struct route *rt, unsigned int n, __u32 daddr)
{
	__u32 best = 0, bestmask = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if ((daddr & rt[i].mask) == rt[i].net && (!best || ntohl(rt[i].mask) >= ntohl(bestmask))) {
			best = rt[i].nhops;
			bestmask = rt[i].mask;
		}
	return best;
}

struct lflow {
	struct dc_flow_key key;
	struct dc_perc_alloc al;
	__u8 pkt[DC_PERC_HDR_LEN + DC_PERC_MAX_HOPS * DC_PERC_HOP_LEN];
	bool have_pkt;		/* pkt is the latest returned packet */
	bool outstanding;
	__u64 sent_ns;
};

struct loop {
	int sock, hflow_fd, alloc_fd;
	struct route rt[PATHS_MAX];
	unsigned int nrt;
	__u32 local[64];
	unsigned int nlocal;
	struct lflow f[LOOP_FLOWS_MAX];
	unsigned int nf;
	__u32 next_id;
	__u64 interval_ns, rto_ns, min_bytes;
	__u64 started, ended, unrouted, bad_rx;
	struct dc_ctx *ctx;
};

static volatile sig_atomic_t stop_loop;

static void on_signal(int sig)
{
	(void)sig;
	stop_loop = 1;
}

static void local_addrs(struct loop *L)
{
	struct ifaddrs *ifa, *i;

	L->nlocal = 0;
	if (getifaddrs(&ifa))
		return;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && L->nlocal < 64)
			L->local[L->nlocal++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
	freeifaddrs(ifa);
}

static bool is_local(const struct loop *L, __u32 a)
{
	unsigned int i;

	for (i = 0; i < L->nlocal; i++)
		if (L->local[i] == a)
			return true;
	return false;
}

static int send_pkt(struct loop *L, struct lflow *f)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(DC_PERC_UDP_PORT) };

	to.sin_addr.s_addr = f->key.daddr[0];
	if (sendto(L->sock, f->pkt, dc_perc_pkt_len(f->al.nhops), 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0)
		return -errno;
	f->al.ctrl_sent++;
	f->outstanding = true;
	f->sent_ns = dc_mono_ns();
	return 0;
}

static void flow_start(struct loop *L, const struct dc_flow_key *k, __u32 nhops)
{
	struct lflow *f;

	if (L->nf >= LOOP_FLOWS_MAX)
		return;
	f = &L->f[L->nf++];
	memset(f, 0, sizeof(*f));
	f->key = *k;
	f->al.flow_id = ++L->next_id;
	f->al.nhops = nhops;
	dc_perc_pkt_fresh(f->pkt, nhops, f->al.flow_id);
	send_pkt(L, f);
	bpf_map_update_elem(L->alloc_fd, &f->key, &f->al, BPF_ANY);
	L->started++;
}

/* The flow's FIN: its latest returned packet (so each link takes out
 * exactly what it holds for the flow), else a fresh one (nothing to take
 * out yet; s-PERC*'s shadows drop what a lost packet left behind). */
static void flow_end(struct loop *L, unsigned int i)
{
	struct lflow *f = &L->f[i];

	if (!f->have_pkt)
		dc_perc_pkt_fresh(f->pkt, f->al.nhops, f->al.flow_id);
	dc_perc_pkt_again(f->pkt, true);
	send_pkt(L, f);
	bpf_map_delete_elem(L->alloc_fd, &f->key);
	bpf_map_delete_elem(L->hflow_fd, &f->key);
	L->ended++;
	L->f[i] = L->f[--L->nf];
}

static void rx_all(struct loop *L)
{
	__u8 buf[512];
	__u32 id, rate;
	unsigned int i;
	ssize_t n;

	while ((n = recv(L->sock, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		enum dc_perc_rx r = dc_perc_pkt_returned(buf, (__u32)n, &id, &rate);

		if (r == DC_PERC_RX_FIN)
			continue;
		if (r != DC_PERC_RX_OK) {
			L->bad_rx++;
			continue;
		}
		for (i = 0; i < L->nf && L->f[i].al.flow_id != id; i++)
			;
		if (i == L->nf || (__u32)n < dc_perc_pkt_len(L->f[i].al.nhops) ||
		    buf[2] != L->f[i].al.nhops)
			continue;	/* a flow already ended, or a late copy */
		memcpy(L->f[i].pkt, buf, dc_perc_pkt_len(L->f[i].al.nhops));
		L->f[i].have_pkt = true;
		L->f[i].outstanding = false;
		L->f[i].al.rate_kbps = rate;
		L->f[i].al.rate_ns = dc_mono_ns();
		L->f[i].al.ctrl_rcvd++;
		bpf_map_update_elem(L->alloc_fd, &L->f[i].key, &L->f[i].al, BPF_ANY);
	}
}

/* New and ending flows from the lifecycle map (sockops). */
static void scan_lifecycle(struct loop *L)
{
	struct dc_flow_key k, next, *prev = NULL;
	struct dc_perc_hflow v;
	unsigned int i;
	__u32 hops;

	while (!bpf_map_get_next_key(L->hflow_fd, prev, &next)) {
		k = next;
		prev = &k;
		if (k.family != DC_AF_INET || !is_local(L, k.saddr[0]) ||
		    bpf_map_lookup_elem(L->hflow_fd, &k, &v))
			continue;
		for (i = 0; i < L->nf && memcmp(&L->f[i].key, &k, sizeof(k)); i++)
			;
		if (v.state == DC_PERC_FS_ENDING) {
			if (i < L->nf) {
				flow_end(L, i);
			} else {
				bpf_map_delete_elem(L->alloc_fd, &k);
				bpf_map_delete_elem(L->hflow_fd, &k);
			}
			prev = NULL;	/* the walk restarts after a delete */
			continue;
		}
		/* Short flows (and connections that only talk a little, such
		 * as an application's control connection) send no control
		 * packets and keep the start rate (Ch. 4.1, short flows). */
		if (i < L->nf || v.acked_bytes < L->min_bytes)
			continue;
		hops = route_hops(L->rt, L->nrt, k.daddr[0]);
		if (!hops) {
			if (!L->unrouted++) {
				char d[INET_ADDRSTRLEN];

				inet_ntop(AF_INET, &k.daddr[0], d, sizeof(d));
				fprintf(L->ctx->errf, "dcbpf perc host: no --path covers %s: its flows "
					"stay at the start rate\n", d);
			}
			continue;
		}
		flow_start(L, &k, hops);
	}
}

static void tick(struct loop *L)
{
	__u64 t = dc_mono_ns();
	unsigned int i;

	for (i = 0; i < L->nf; i++) {
		struct lflow *f = &L->f[i];

		if (f->outstanding && t - f->sent_ns > L->rto_ns) {
			/* RTO_ctrl: restart with a fresh packet (Ch. 4.1) */
			f->al.restarts++;
			f->have_pkt = false;
			dc_perc_pkt_fresh(f->pkt, f->al.nhops, f->al.flow_id);
			send_pkt(L, f);
		} else if (!f->outstanding && t - f->sent_ns >= L->interval_ns) {
			dc_perc_pkt_again(f->pkt, false);
			send_pkt(L, f);
		}
	}
}

int dc_perc_host_run(struct dc_ctx *ctx, const struct dc_perc_host_args *a)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons(DC_PERC_UDP_PORT) };
	struct perc_host_bpf *s = NULL;
	struct dc_perc_hcfg cfg;
	struct loop *L;
	struct pollfd pfd;
	__u64 end_ns, last_scan = 0, t;
	unsigned int i;
	int rc = EXIT_ERR, cg = -1, lk = -1, one = 1, prio = (int)a->priority, saved = -1;
	int tos = (int)a->dscp << 2;	/* DSCP above the two ECN bits */
	char why[256];
	__u32 zero = 0;

	L = calloc(1, sizeof(*L));
	if (!L)
		return dc_fail(ctx, EXIT_ERR, "out of memory");
	L->ctx = ctx;
	L->sock = -1;
	for (i = 0; i < a->paths.n; i++)
		if (parse_route(a->paths.v[i], &L->rt[L->nrt++], &ctx->err)) {
			free(L);
			return EXIT_USAGE;
		}
	L->interval_ns = a->interval_us * 1000;
	L->rto_ns = a->rto_us * 1000;
	L->min_bytes = a->min_bytes;
	if (L->rto_ns <= L->interval_ns) {
		free(L);
		return dc_fail(ctx, EXIT_USAGE, "--rto-us %llu must exceed --interval-us %llu",
			       (unsigned long long)a->rto_us, (unsigned long long)a->interval_us);
	}
	rc = dc_mkdirs(ctx->pin_dir);
	if (rc) {
		rc = dc_fail(ctx, EXIT_ERR, "cannot create %s: %s", ctx->pin_dir, strerror(-rc));
		goto out;
	}
	rc = EXIT_ERR;
	cg = open(a->cgroup, O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		dc_fail(ctx, EXIT_ERR, "cgroup %s: %s (the flow lifecycle runs as sockops on a cgroup v2 "
			"directory)", a->cgroup, strerror(errno));
		goto out;
	}
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = ctx->pin_dir);

		s = perc_host_bpf__open_opts(&oo);
	}
	if (!s || perc_host_bpf__load(s)) {
		dc_fail(ctx, EXIT_ERR, "loading the s-PERC host program failed: %s (maps pinned in %s "
			"by another build? stop dcbpfd and remove them)", strerror(errno), ctx->pin_dir);
		goto out;
	}
	L->hflow_fd = bpf_map__fd(s->maps.dc_perc_hflow);
	L->alloc_fd = bpf_map__fd(s->maps.dc_perc_alloc);
	dc_perc_hcfg_default(&cfg);
	cfg.line_kbps = (__u32)a->line_kbps;
	cfg.start_share = (__u32)a->start_share;
	cfg.wire_ovh_bytes = (__u32)a->wire_ovh_bytes;
	if (bpf_map_update_elem(bpf_map__fd(s->maps.dc_perc_hcfg), &zero, &cfg, 0)) {
		dc_fail(ctx, EXIT_ERR, "writing dc_perc_hcfg: %s", strerror(errno));
		goto out;
	}
	/* The socket and the addresses are the host's namespace's; a socket
	 * stays in the namespace it was made in. */
	if (a->netns && dc_netns_enter(a->netns, &saved, why, sizeof(why))) {
		dc_fail(ctx, EXIT_ERR, "%s", why);
		goto out;
	}
	L->sock = socket(AF_INET, SOCK_DGRAM, 0);
	if (L->sock < 0 || setsockopt(L->sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (prio && setsockopt(L->sock, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio))) ||
	    setsockopt(L->sock, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) ||
	    bind(L->sock, (struct sockaddr *)&me, sizeof(me))) {
		dc_fail(ctx, EXIT_ERR, "UDP port %u: %s (another control loop in this namespace?)",
			DC_PERC_UDP_PORT, strerror(errno));
		if (saved >= 0)
			dc_netns_leave(saved);
		goto out;
	}
	local_addrs(L);
	if (saved >= 0)
		dc_netns_leave(saved);
	lk = bpf_link_create(bpf_program__fd(s->progs.dc_perc_sockops), cg, BPF_CGROUP_SOCK_OPS, NULL);
	if (lk < 0) {
		dc_fail(ctx, EXIT_ERR, "attaching the sockops program to cgroup %s failed: %s",
			a->cgroup, strerror(errno));
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(ctx->errf, "dcbpf perc host: running (%u local addresses, %u paths, control every "
		"%llu us)\n", L->nlocal, L->nrt, (unsigned long long)a->interval_us);
	end_ns = a->duration_ms ? dc_mono_ns() + a->duration_ms * 1000000ULL : 0;
	pfd.fd = L->sock;
	pfd.events = POLLIN;
	while (!stop_loop) {
		t = dc_mono_ns();
		if (end_ns && t >= end_ns)
			break;
		if (t - last_scan >= L->interval_ns) {
			scan_lifecycle(L);
			last_scan = t;
		}
		tick(L);
		/* a returned packet wakes us; else the next resend or scan */
		if (poll(&pfd, 1, (int)(L->interval_ns / 2000000) + 1) > 0)
			rx_all(L);
	}
	/* Leaving: every flow's contribution taken out of its links. */
	while (L->nf)
		flow_end(L, L->nf - 1);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "flows_started", L->started);
		jw_u64(&ctx->jw, "flows_ended", L->ended);
		jw_u64(&ctx->jw, "unrouted", L->unrouted);
		jw_u64(&ctx->jw, "bad_packets", L->bad_rx);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "flows started %llu, ended %llu, unrouted %llu, bad packets %llu\n",
			(unsigned long long)L->started, (unsigned long long)L->ended,
			(unsigned long long)L->unrouted, (unsigned long long)L->bad_rx);
	}
	rc = EXIT_OK;
out:
	if (lk >= 0)
		close(lk);	/* not pinned: the lifecycle ends with the loop */
	if (L->sock >= 0)
		close(L->sock);
	if (cg >= 0)
		close(cg);
	perc_host_bpf__destroy(s);
	free(L);
	return rc;
}
