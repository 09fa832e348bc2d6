// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Foreign programs on an interface (foreign.h): XDP and tcx through the
 * bpf syscall, cls_bpf filters of clsact through a netlink filter dump.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "foreign.h"

/* Name of a program by id; false when it is ours ("dc_" prefix). */
static int foreign_add(struct dc_foreign *out, int n, int max, const char *hook, __u32 id, __u32 prio)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd;

	if (!id || n >= max)
		return n;
	memset(&info, 0, sizeof(info));
	fd = bpf_prog_get_fd_by_id(id);
	if (fd >= 0) {
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			info.name[0] = 0;
		close(fd);
	}
	if (!strncmp(info.name, "dc_", 3))
		return n;
	out[n].hook = hook;
	out[n].id = id;
	out[n].prio = prio;
	snprintf(out[n].name, sizeof(out[n].name), "%s", info.name);
	return n + 1;
}

/* cls_bpf filters under the clsact parent (ingress or egress) of ifindex. */
static int tc_filters(__u32 ifindex, __u32 parent, const char *hook, struct dc_foreign *out, int n, int max)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)), .nlmsg_type = RTM_GETTFILTER,
			  .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		  .tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = (int)ifindex, .tcm_parent = parent } };
	static char buf[32768];
	int nl;

	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl < 0)
		return n;
	if (send(nl, &req, req.nh.nlmsg_len, 0) < 0)
		goto out;
	for (;;) {
		ssize_t len = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (len <= 0)
			goto out;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (unsigned int)len); nh = NLMSG_NEXT(nh, len)) {
			struct tcmsg *tc = NLMSG_DATA(nh);
			struct rtattr *rta, *opt = NULL;
			bool is_bpf = false;
			__u32 id = 0;
			int alen;

			if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR)
				goto out;
			alen = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)));
			for (rta = (struct rtattr *)((char *)tc + NLMSG_ALIGN(sizeof(*tc))); RTA_OK(rta, alen);
			     rta = RTA_NEXT(rta, alen)) {
				if (rta->rta_type == TCA_KIND)
					is_bpf = !strcmp(RTA_DATA(rta), "bpf");
				else if (rta->rta_type == TCA_OPTIONS)
					opt = rta;
			}
			if (!is_bpf || !opt)
				continue;
			alen = (int)RTA_PAYLOAD(opt);
			for (rta = RTA_DATA(opt); RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen))
				if (rta->rta_type == TCA_BPF_ID && RTA_PAYLOAD(rta) >= sizeof(__u32))
					memcpy(&id, RTA_DATA(rta), sizeof(id));
			/* a classic-BPF filter has no program id */
			n = foreign_add(out, n, max, hook, id, tc->tcm_info >> 16);
		}
	}
out:
	close(nl);
	return n;
}

static int tcx_progs(__u32 ifindex, int type, const char *hook, struct dc_foreign *out, int n, int max)
{
	__u32 ids[64], cnt = 64, i;

	if (bpf_prog_query((int)ifindex, (enum bpf_attach_type)type, 0, NULL, ids, &cnt))
		return n;	/* no tcx in this kernel, or nothing attached */
	for (i = 0; i < cnt; i++)
		n = foreign_add(out, n, max, hook, ids[i], 0);
	return n;
}

int dc_foreign_list(const char *netns, const char *ifname, struct dc_foreign *out, int max, char *why,
		    size_t whylen)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, xq);
	int saved, err, n = 0;
	__u32 ifindex;

	err = dc_netns_enter(netns, &saved, why, whylen);
	if (err)
		return err;
	ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		err = -errno;
		snprintf(why, whylen, "%s (netns %s): %s", ifname, netns ? netns : "(own)", strerror(errno));
		dc_netns_leave(saved);
		return err;
	}
	if (!bpf_xdp_query((int)ifindex, 0, &xq)) {
		n = foreign_add(out, n, max, "xdp", xq.drv_prog_id, 0);
		n = foreign_add(out, n, max, "xdp_generic", xq.skb_prog_id, 0);
	}
	n = tcx_progs(ifindex, DC_BPF_TCX_INGRESS, "tcx_ingress", out, n, max);
	n = tcx_progs(ifindex, DC_BPF_TCX_EGRESS, "tcx_egress", out, n, max);
	n = tc_filters(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS), "tc_ingress", out, n, max);
	n = tc_filters(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS), "tc_egress", out, n, max);
	dc_netns_leave(saved);
	return n;
}
