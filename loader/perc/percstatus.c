// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbpf perc status: per-link state from a namespace's pinned maps and, for
 * the host's flows, allocated vs achieved rate (docs/perc.md).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "dcbpf/perchost.h"
#include "dcbpf/flow.h"
#include "attach.h"
#include "cli.h"
#include "clock.h"
#include "config.h"
#include "perc/perchost.h"

static int open_pin(const char *dir, const char *name)
{
	char path[DC_PATH_LEN * 3];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return bpf_obj_get(path);
}

static void addr_str(__u32 a, char *buf, size_t len)
{
	inet_ntop(AF_INET, &a, buf, (socklen_t)len);
}

/* cfd: dc_perc_lcfg, or -1 (pinned by a build before it): the capacity a
 * live change set shows before a packet has applied it, since the next
 * packet uses it. */
static void status_links(struct dc_ctx *ctx, const char *netns, int lfd, int pfd, int cfd)
{
	struct dc_perc_port ports[DC_PERC_PORTS_MAX];
	char names[DC_PERC_PORTS_MAX][IF_NAMESIZE], why[128];
	__u32 ifx[DC_PERC_PORTS_MAX], k, *prev = NULL, idx;
	unsigned int np = 0, i;
	int saved = -1;

	while (np < DC_PERC_PORTS_MAX && !bpf_map_get_next_key(pfd, prev, &k)) {
		ifx[np] = k;
		prev = &ifx[np];
		if (!bpf_map_lookup_elem(pfd, &k, &ports[np]))
			np++;
	}
	if (netns && *netns && dc_netns_enter(netns, &saved, why, sizeof(why)))
		saved = -1;
	for (i = 0; i < np; i++)
		if (!if_indextoname(ifx[i], names[i]))
			snprintf(names[i], sizeof(names[i]), "if%u", ifx[i]);
	if (saved >= 0)
		dc_netns_leave(saved);
	if (ctx->json)
		jw_arr(&ctx->jw, "links");
	else
		fprintf(ctx->out, "%-5s %-15s %12s %12s %5s %12s %12s %4s %10s %6s\n", "link", "port",
			"cap_kbps", "sum_e_kbps", "num_b", "b_kbps", "max_e_kbps", "rn", "updates",
			"fins");
	for (idx = 1; idx < DC_PERC_LINKS_MAX; idx++) {
		struct dc_perc_link l;
		struct dc_perc_lcfg c = { 0 };
		__s64 avail;
		__u64 b;
		const char *name = "-";
		bool host = false;

		if (bpf_map_lookup_elem_flags(lfd, &idx, &l, BPF_F_LOCK) || !l.link_id)
			continue;
		if (cfd >= 0 && !bpf_map_lookup_elem(cfd, &idx, &c) && c.cap_kbps)
			l.st.cap_kbps = c.cap_kbps;
		for (i = 0; i < np; i++)
			if (ports[i].link == idx) {
				name = names[i];
				host = ports[i].flags & DC_PERC_PORT_HOST;
			}
		/* the bottleneck rate a packet would see now (Alg. 6 line 8) */
		avail = (__s64)l.st.cap_kbps - l.st.sum_e_kbps;
		b = (__u64)(avail > 0 ? avail : 0) / (__u64)(l.st.num_b > 0 ? l.st.num_b : 1);
		if (ctx->json) {
			char num[32];

			jw_obj(&ctx->jw, NULL);
			jw_u64(&ctx->jw, "link", idx);
			jw_str(&ctx->jw, "port", name);
			jw_bool(&ctx->jw, "host", host);
			jw_u64(&ctx->jw, "cap_kbps", l.st.cap_kbps);
			snprintf(num, sizeof(num), "%lld", (long long)l.st.sum_e_kbps);
			jw_raw(&ctx->jw, "sum_e_kbps", num);
			snprintf(num, sizeof(num), "%d", l.st.num_b);
			jw_raw(&ctx->jw, "num_b", num);
			jw_u64(&ctx->jw, "b_kbps", b);
			jw_u64(&ctx->jw, "max_e_kbps", l.st.max_e_kbps);
			jw_u64(&ctx->jw, "round_number", l.st.round_number);
			jw_u64(&ctx->jw, "round_ns", l.round_ns);
			jw_u64(&ctx->jw, "updates", l.updates);
			jw_u64(&ctx->jw, "fins", l.fins);
			jw_end_obj(&ctx->jw);
		} else {
			fprintf(ctx->out, "%-5u %-15s %12llu %12lld %5d %12llu %12llu %4u %10llu %6llu\n",
				idx, name, (unsigned long long)l.st.cap_kbps, (long long)l.st.sum_e_kbps,
				l.st.num_b, (unsigned long long)b, (unsigned long long)l.st.max_e_kbps,
				l.st.round_number, (unsigned long long)l.updates,
				(unsigned long long)l.fins);
		}
	}
	if (ctx->json)
		jw_end_arr(&ctx->jw);
}

static void status_flows(struct dc_ctx *ctx, int hfd, int afd)
{
	struct dc_flow_key k, next, *prev = NULL;
	char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];
	__u64 t = dc_mono_ns();

	if (ctx->json)
		jw_arr(&ctx->jw, "flows");
	else
		fprintf(ctx->out, "\n%-21s %-21s %-6s %12s %12s %12s %6s %7s %8s %8s\n", "flow", "to",
			"state", "alloc_kbps", "achieved", "paced_kbps", "cwnd", "srtt_us", "ctrl_rx",
			"restarts");
	while (hfd >= 0 && !bpf_map_get_next_key(hfd, prev, &next)) {
		struct dc_perc_hflow h;
		struct dc_perc_alloc a;
		char s1[48], s2[48];
		bool have_a;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(hfd, &k, &h))
			continue;
		memset(&a, 0, sizeof(a));
		have_a = afd >= 0 && !bpf_map_lookup_elem(afd, &k, &a);
		addr_str(k.saddr[0], src, sizeof(src));
		addr_str(k.daddr[0], dst, sizeof(dst));
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "src", src);
			jw_u64(&ctx->jw, "sport", k.sport);
			jw_str(&ctx->jw, "dst", dst);
			jw_u64(&ctx->jw, "dport", k.dport);
			jw_str(&ctx->jw, "state", h.state == DC_PERC_FS_ENDING ? "ending" : "open");
			jw_u64(&ctx->jw, "alloc_kbps", a.rate_kbps);
			jw_u64(&ctx->jw, "alloc_age_us", have_a && a.rate_ns && t > a.rate_ns
								 ? (t - a.rate_ns) / 1000 : 0);
			jw_u64(&ctx->jw, "achieved_kbps", h.achieved_kbps);
			/* the wire rate it paces at; TCP's pacing rate is payload */
			jw_u64(&ctx->jw, "paced_kbps", h.rate_kbps);
			jw_u64(&ctx->jw, "pacing_payload_Bps", h.pacing_Bps);
			jw_u64(&ctx->jw, "cwnd_pkts", h.cwnd_pkts);
			jw_u64(&ctx->jw, "srtt_us", h.srtt_us);
			jw_u64(&ctx->jw, "acked_bytes", h.acked_bytes);
			jw_u64(&ctx->jw, "flow_id", a.flow_id);
			jw_u64(&ctx->jw, "nhops", a.nhops);
			jw_u64(&ctx->jw, "ctrl_sent", a.ctrl_sent);
			jw_u64(&ctx->jw, "ctrl_rcvd", a.ctrl_rcvd);
			jw_u64(&ctx->jw, "restarts", a.restarts);
			jw_end_obj(&ctx->jw);
		} else {
			snprintf(s1, sizeof(s1), "%s:%u", src, k.sport);
			snprintf(s2, sizeof(s2), "%s:%u", dst, k.dport);
			fprintf(ctx->out, "%-21s %-21s %-6s %12u %12llu %12llu %6u %7u %8llu %8llu\n", s1,
				s2, h.state == DC_PERC_FS_ENDING ? "ending" : "open", a.rate_kbps,
				(unsigned long long)h.achieved_kbps,
				(unsigned long long)h.rate_kbps, h.cwnd_pkts,
				h.srtt_us, (unsigned long long)a.ctrl_rcvd, (unsigned long long)a.restarts);
		}
	}
	if (ctx->json)
		jw_end_arr(&ctx->jw);
}

int dc_perc_status_run(struct dc_ctx *ctx, const struct dc_perc_status_args *a)
{
	char dir[DC_PATH_LEN * 2];
	int lfd, pfd, hfd, afd, cfd;

	if (dc_perc_ns_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return EXIT_USAGE;
	lfd = open_pin(dir, "dc_perc_link");
	pfd = open_pin(dir, "dc_perc_port");
	hfd = open_pin(ctx->pin_dir, "dc_perc_hflow");
	afd = open_pin(ctx->pin_dir, "dc_perc_alloc");
	if ((lfd < 0 || pfd < 0) && hfd < 0) {
		if (lfd >= 0)
			close(lfd);
		if (pfd >= 0)
			close(pfd);
		if (afd >= 0)
			close(afd);
		return dc_fail(ctx, EXIT_ERR, "nothing s-PERC is pinned: no links in %s (dcbpf perc "
			       "attach) and no host flows in %s (dcbpfd registers perc; dcbpf perc host "
			       "runs the loop)", dir, ctx->pin_dir);
	}
	if (ctx->json)
		jw_obj(&ctx->jw, NULL);
	if (lfd >= 0 && pfd >= 0) {
		cfd = open_pin(dir, "dc_perc_lcfg");
		status_links(ctx, a->netns, lfd, pfd, cfd);
		if (cfd >= 0)
			close(cfd);
	} else if (ctx->json)
		jw_arr(&ctx->jw, "links"), jw_end_arr(&ctx->jw);
	else
		fprintf(ctx->out, "no links attached in %s\n", dir);
	status_flows(ctx, hfd, afd);
	if (ctx->json) {
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	}
	if (lfd >= 0)
		close(lfd);
	if (pfd >= 0)
		close(pfd);
	if (hfd >= 0)
		close(hfd);
	if (afd >= 0)
		close(afd);
	return EXIT_OK;
}
