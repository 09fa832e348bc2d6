// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"

#define NETNS_RUN_DIR "/var/run/netns"
/* cls_bpf fallback: one filter at this handle/priority per hook */
#define DC_TC_HANDLE 0xdcb
#define DC_TC_PRIO 0xdcb

const char *dc_hook_name(enum dc_hook h)
{
	switch (h) {
	case DC_HOOK_XDP:
		return "xdp";
	case DC_HOOK_TC_INGRESS:
		return "tc ingress";
	case DC_HOOK_TC_EGRESS:
		return "tc egress";
	}
	return "?";
}

int dc_netns_enter(const char *name, int *saved, char *why, size_t whylen)
{
	char path[256];
	int fd, err;

	*saved = -1;
	if (!name)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, whylen, "network namespace '%s' not found (%s): %s; list them with 'ip netns'",
			 name, path, strerror(-err));
		return err;
	}
	*saved = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*saved < 0 || setns(fd, CLONE_NEWNET)) {
		err = -errno;
		snprintf(why, whylen, "cannot enter network namespace '%s': %s (needs root)", name,
			 strerror(-err));
		close(fd);
		if (*saved >= 0)
			close(*saved);
		*saved = -1;
		return err;
	}
	close(fd);
	return 0;
}

void dc_netns_leave(int saved)
{
	if (saved < 0)
		return;
	/* Failing to return would leave every later call in the wrong
	 * namespace: there is nothing sensible to continue with. */
	if (setns(saved, CLONE_NEWNET)) {
		perror("dcbpf: cannot return to the original network namespace");
		_exit(1);
	}
	close(saved);
}

int dc_netns_ino(const char *name, __u32 *ino, char *why, size_t whylen)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", name ? NETNS_RUN_DIR : "/proc/self/ns",
		 name ? name : "net");
	if (stat(path, &st)) {
		int err = -errno;

		snprintf(why, whylen, "network namespace '%s' not found (%s): %s", name ? name : "(own)",
			 path, strerror(-err));
		return err;
	}
	*ino = (__u32)st.st_ino;
	return 0;
}

static int ifindex_here(const char *netns, const char *ifname, __u32 *ifindex, char *why,
			size_t whylen)
{
	unsigned int i = if_nametoindex(ifname);

	if (!i) {
		snprintf(why, whylen, "interface '%s' not found in network namespace '%s'", ifname,
			 netns ? netns : "(own)");
		return -ENODEV;
	}
	*ifindex = i;
	return 0;
}

int dc_ifindex(const char *netns, const char *ifname, __u32 *ifindex, char *why, size_t whylen)
{
	int saved, err;

	err = dc_netns_enter(netns, &saved, why, whylen);
	if (err)
		return err;
	err = ifindex_here(netns, ifname, ifindex, why, whylen);
	dc_netns_leave(saved);
	return err;
}

static int attach_link(int prog_fd, const struct dc_attach *a, __u32 ifindex)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	int type, fd, err;

	switch (a->hook) {
	case DC_HOOK_XDP:
		type = DC_BPF_XDP;
		opts.flags = a->xdp_flags;
		break;
	case DC_HOOK_TC_INGRESS:
		type = DC_BPF_TCX_INGRESS;
		opts.flags = a->link_flags;
		break;
	default:
		type = DC_BPF_TCX_EGRESS;
		opts.flags = a->link_flags;
		break;
	}
	fd = bpf_link_create(prog_fd, (int)ifindex, (enum bpf_attach_type)type, &opts);
	if (fd < 0)
		return -errno;
	if (bpf_obj_pin(fd, a->pin_path)) {
		err = -errno;
		close(fd);	/* the link goes away with its last fd */
		return err;
	}
	close(fd);
	return 0;
}

static int attach_netlink(int prog_fd, const struct dc_attach *a, __u32 ifindex)
{
	if (a->hook == DC_HOOK_XDP) {
		/* refuse to replace someone else's program */
		return bpf_xdp_attach((int)ifindex, prog_fd, a->xdp_flags | XDP_FLAGS_UPDATE_IF_NOEXIST,
				      NULL);
	} else {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = a->hook == DC_HOOK_TC_INGRESS ? BPF_TC_INGRESS : BPF_TC_EGRESS);
		LIBBPF_OPTS(bpf_tc_opts, opts, .handle = a->tc_prio ? a->tc_prio : DC_TC_HANDLE,
			    .priority = a->tc_prio ? a->tc_prio : DC_TC_PRIO, .prog_fd = prog_fd);
		int err = bpf_tc_hook_create(&hook);

		if (err && err != -EEXIST)
			return err;
		return bpf_tc_attach(&hook, &opts);
	}
}

/* Errors that mean "this kernel has no such link type": try netlink. */
static bool link_unsupported(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */;
}

int dc_attach_prog(int prog_fd, const struct dc_attach *a, enum dc_attach_how *how, char *why,
		   size_t whylen)
{
	__u32 ifindex;
	int saved, err;

	err = dc_netns_enter(a->netns, &saved, why, whylen);
	if (err)
		return err;
	err = ifindex_here(a->netns, a->ifname, &ifindex, why, whylen);
	if (err)
		goto out;
	err = -EOPNOTSUPP;
	if (!a->no_links) {
		if (!a->pin_path) {
			snprintf(why, whylen, "internal: no pin path for the %s link on %s",
				 dc_hook_name(a->hook), a->ifname);
			err = -EINVAL;
			goto out;
		}
		err = attach_link(prog_fd, a, ifindex);
		if (!err) {
			*how = DC_ATTACHED_LINK;
			goto out;
		}
	}
	if (a->no_links || link_unsupported(err)) {
		err = attach_netlink(prog_fd, a, ifindex);
		if (!err) {
			*how = DC_ATTACHED_NETLINK;
			goto out;
		}
	}
	if (err == -EEXIST || err == -EBUSY)
		snprintf(why, whylen, "%s on %s (netns %s) already has a program attached; detach it first (ip link set dev %s xdp off, or tc filter del)",
			 dc_hook_name(a->hook), a->ifname, a->netns ? a->netns : "(own)", a->ifname);
	else
		snprintf(why, whylen, "attaching %s to %s (netns %s) failed: %s", dc_hook_name(a->hook),
			 a->ifname, a->netns ? a->netns : "(own)", strerror(-err));
out:
	dc_netns_leave(saved);
	return err;
}

int dc_detach_pinned(const char *pin_path)
{
	int fd = bpf_obj_get(pin_path), err = 0;

	if (fd >= 0) {
		/* detach now even if another process holds the link open */
		bpf_link_detach(fd);
		close(fd);
	}
	if (unlink(pin_path) && errno != ENOENT)
		err = -errno;
	return err;
}

/* Detach (prog_id NULL) or look up our netlink attachment of a->hook. */
static int netlink_op(const struct dc_attach *a, __u32 *prog_id)
{
	char why[256];
	__u32 ifindex;
	int saved, err;

	err = dc_netns_enter(a->netns, &saved, why, sizeof(why));
	if (err)
		return err;
	err = ifindex_here(a->netns, a->ifname, &ifindex, why, sizeof(why));
	if (!err && a->hook == DC_HOOK_XDP) {
		err = prog_id ? bpf_xdp_query_id((int)ifindex, (int)a->xdp_flags, prog_id) :
				bpf_xdp_detach((int)ifindex, a->xdp_flags, NULL);
	} else if (!err) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = a->hook == DC_HOOK_TC_INGRESS ? BPF_TC_INGRESS :
									      BPF_TC_EGRESS);
		LIBBPF_OPTS(bpf_tc_opts, opts, .handle = a->tc_prio ? a->tc_prio : DC_TC_HANDLE,
			    .priority = a->tc_prio ? a->tc_prio : DC_TC_PRIO);
		libbpf_print_fn_t prev;

		if (!prog_id) {
			err = bpf_tc_detach(&hook, &opts);
		} else {
			/* "no clsact qdisc" is an answer here, not a failure to log */
			prev = libbpf_set_print(NULL);
			err = bpf_tc_query(&hook, &opts);
			libbpf_set_print(prev);
			if (!err)
				*prog_id = opts.prog_id;
			else if (err == -EINVAL)
				err = -ENOENT; /* no clsact qdisc on this device */
		}
	}
	dc_netns_leave(saved);
	return err;
}

int dc_detach_netlink(const struct dc_attach *a)
{
	return netlink_op(a, NULL);
}

int dc_tc_query(const struct dc_attach *a, __u32 *prog_id)
{
	return netlink_op(a, prog_id);
}

int dc_link_ifindex(int link_fd, __u32 *link_id, __u32 *ifindex)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return -errno;
	*link_id = info.id;
	/* tcx (6.6) is newer than these headers; its ifindex is the union's
	 * first word, where xdp.ifindex sits too */
	*ifindex = info.xdp.ifindex;
	return 0;
}
