// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dcbpfd [int]: the host INT programs on the configured interfaces, kept
 * in step with link changes (netlink), and the destination prefixes. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>

#include "log.h"
#include "attach.h"
#include "int/inthost.h"
#include "pins.h"
#include "dcbpfd/dcbpfd.h"

/* ---- [int]: host INT programs on the configured interfaces ------------- */

const char *dmn_int_ns(const struct dc_config *c)
{
	return c->intf.netns[0] ? c->intf.netns : NULL;
}

static int owned_find(const struct daemon *d, const char *ifname)
{
	int i;

	for (i = 0; i < d->nowned; i++)
		if (!strcmp(d->owned[i], ifname))
			return i;
	return -1;
}

static void owned_add(struct daemon *d, const char *ifname)
{
	if (owned_find(d, ifname) < 0 && d->nowned < MAX_IFACES)
		snprintf(d->owned[d->nowned++], IF_NAMESIZE, "%s", ifname);
}

static void owned_del(struct daemon *d, int i)
{
	memcpy(d->owned[i], d->owned[--d->nowned], IF_NAMESIZE);
}

static __u32 find_ifindex(const struct if_nameindex *ifs, const char *name)
{
	for (; ifs && ifs->if_index; ifs++)
		if (!strcmp(ifs->if_name, name))
			return ifs->if_index;
	return 0;
}

/* The interfaces of a namespace; NULL with *why if it cannot be entered. */
static struct if_nameindex *list_ifaces(const char *netns, char *why, size_t whylen)
{
	struct if_nameindex *ifs;
	int saved;

	if (dc_netns_enter(netns, &saved, why, whylen))
		return NULL;
	ifs = if_nameindex();
	if (!ifs)
		snprintf(why, whylen, "cannot list the interfaces of namespace %s: %s",
			 netns ? netns : "(own)", strerror(errno));
	dc_netns_leave(saved);
	return ifs;
}

/*
 * Bring the attachments of the [int] namespace in line with `interfaces`:
 * forget links of devices that are gone, take the programs off interfaces
 * the config named before and no longer does, attach them where a matching
 * interface has none.  Attachments that are already there are left alone
 * (adopted), so live programs are never detached and attached again.
 */
void dmn_int_reconcile(struct daemon *d, const char *why_now)
{
	const char *netns = dmn_int_ns(&d->cfg), *globs = d->cfg.intf.interfaces;
	char names[MAX_IFACES][16], why[512];
	struct dc_int_host *host = NULL;
	struct if_nameindex *ifs, *it;
	__u32 ids[2];
	int i, n;

	ifs = list_ifaces(netns, why, sizeof(why));
	if (!ifs) {
		dc_err("[int] %s", why);
		return;
	}
	n = dc_int_host_pinned(d->cfg.daemon.pin_dir, netns, names, MAX_IFACES);
	for (i = 0; i < n; i++) {
		__u32 idx = find_ifindex(ifs, names[i]);

		if (idx && dc_int_host_state(d->cfg.daemon.pin_dir, netns, names[i], idx, ids))
			continue;
		/* the device went away (its links went with it), or the name now
		 * belongs to a new device: drop the pins */
		dc_int_host_detach(d->cfg.daemon.pin_dir, netns, names[i]);
		dc_info("%s: %s; forgot its INT links (%s)", names[i],
			idx ? "the pinned links belong to an earlier device of that name" :
			      "interface gone", why_now);
	}
	for (i = d->nowned - 1; i >= 0; i--) {
		if (!find_ifindex(ifs, d->owned[i])) {
			owned_del(d, i);
		} else if (!dc_iface_matches(globs, d->owned[i])) {
			dc_int_host_detach(d->cfg.daemon.pin_dir, netns, d->owned[i]);
			dc_info("%s: no longer in [int] interfaces; INT programs detached (%s)",
				d->owned[i], why_now);
			owned_del(d, i);
		}
	}
	for (it = ifs; it->if_index; it++) {
		if (!dc_iface_matches(globs, it->if_name))
			continue;
		n = dc_int_host_state(d->cfg.daemon.pin_dir, netns, it->if_name, it->if_index, ids);
		if (n == 2) {
			if (owned_find(d, it->if_name) < 0)
				dc_info("%s: INT programs already attached (egress %u, ingress %u); adopted",
					it->if_name, ids[0], ids[1]);
			owned_add(d, it->if_name);
			continue;
		}
		if (n == 1) /* half attached (an interrupted attach): start over */
			dc_int_host_detach(d->cfg.daemon.pin_dir, netns, it->if_name);
		if (!host) {
			host = dc_int_host_open(d->cfg.daemon.pin_dir, d->cfg.daemon.flows_max, why,
						sizeof(why));
			if (!host) {
				dc_err("[int] %s", why);
				break;
			}
		}
		if (dc_int_host_attach(host, netns, it->if_name, d->no_links, why, sizeof(why))) {
			dc_err("%s: %s; retried at the next reload or link change", it->if_name, why);
			continue;
		}
		dc_int_host_state(d->cfg.daemon.pin_dir, netns, it->if_name, it->if_index, ids);
		dc_info("%s: INT programs attached (egress %u, ingress %u; %s)", it->if_name, ids[0],
			ids[1], why_now);
		owned_add(d, it->if_name);
	}
	dc_int_host_close(host);
	if_freenameindex(ifs);
}

/*
 * Destination prefixes: the entries the old config set and the new one
 * does not are deleted, the new ones written; prefixes added at run time
 * with `dcbpf int dst add` are left alone.
 */
void dmn_int_destinations(struct daemon *d, const char *old, const char *new)
{
	char path[DC_PATH_LEN + 32], tok[64], why[256];
	struct dc_int_dst_key k;
	struct dc_int_dst_cfg v = { 0 };
	const char *p;
	int fd;

	if (!*old && !*new)
		return;
	dc_pin_map_path(path, sizeof(path), d->cfg.daemon.pin_dir, "dc_int_dst");
	fd = bpf_obj_get(path);
	if (fd < 0 && *new) {
		/* nothing attached yet: loading the host object pins its maps */
		struct dc_int_host *h = dc_int_host_open(d->cfg.daemon.pin_dir,
							 d->cfg.daemon.flows_max, why, sizeof(why));

		dc_int_host_close(h);
		fd = bpf_obj_get(path);
	}
	if (fd < 0) {
		if (*new)
			dc_err("[int] destinations: %s not pinned: %s", path, strerror(errno));
		return;
	}
	for (p = old; dc_list_next(&p, tok, sizeof(tok));) {
		char t2[64];
		const char *q = new;
		bool keep = false;

		while (dc_list_next(&q, t2, sizeof(t2)))
			keep |= !strcmp(t2, tok);
		if (!keep && !dc_prefix_slots_parse(tok, &k.addr, &k.prefixlen, &v.slots, why, sizeof(why)) &&
		    !bpf_map_delete_elem(fd, &k))
			dc_info("[int] destination %s removed", tok);
	}
	for (p = new; dc_list_next(&p, tok, sizeof(tok));) {
		if (dc_prefix_slots_parse(tok, &k.addr, &k.prefixlen, &v.slots, why, sizeof(why)))
			continue; /* validated with the config */
		v.giveup_ms = d->cfg.intf.giveup_ms;
		v.sample_us = d->cfg.intf.sample_us;
		v.sample_qlen_bytes = d->cfg.intf.sample_qlen_bytes;
		if (bpf_map_update_elem(fd, &k, &v, BPF_ANY))
			dc_err("[int] destination %s: %s", tok, strerror(errno));
		else
			dc_dbg("[int] destination %s (%u slots)", tok, v.slots);
	}
	close(fd);
}

/* Netlink socket for link changes, opened inside the [int] namespace. */
static int nl_open(const char *netns)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	char why[256];
	int saved, fd;

	if (dc_netns_enter(netns, &saved, why, sizeof(why))) {
		dc_err("[int] %s", why);
		return -1;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		dc_err("[int] netlink socket for link changes: %s; interfaces that appear later "
		       "are attached at the next reload", strerror(errno));
	dc_netns_leave(saved);
	return fd;
}

void dmn_int_setup(struct daemon *d)
{
	if (d->nl_fd >= 0)
		close(d->nl_fd);
	d->nl_fd = d->cfg.intf.interfaces[0] ? nl_open(dmn_int_ns(&d->cfg)) : -1;
}

/* Any link added, renamed or removed: reconcile (cheap when nothing changed). */
void dmn_on_netlink(struct daemon *d)
{
	char buf[16384];
	bool changed = false;
	ssize_t n;

	while ((n = recv(d->nl_fd, buf, sizeof(buf), 0)) > 0 || (n < 0 && errno == ENOBUFS)) {
		struct nlmsghdr *h;

		if (n < 0) { /* overrun: we lost events, so look at everything */
			changed = true;
			continue;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned int)n); h = NLMSG_NEXT(h, n))
			changed |= h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK;
	}
	if (changed)
		dmn_int_reconcile(d, "link change");
}

/* Stop without --keep: every host attachment under the pin dir goes. */
void dmn_int_stop(struct daemon *d)
{
	char dir[DC_PATH_LEN + 8], names[MAX_IFACES][16];
	const char *netns = dmn_int_ns(&d->cfg);
	struct dirent *de;
	DIR *dp;
	int i, n;

	/* netlink attachments (no pins) of the configured interfaces */
	for (i = 0; i < d->nowned; i++) {
		dc_int_host_detach(d->cfg.daemon.pin_dir, netns, d->owned[i]);
		dc_info("%s: INT programs detached (stop)", d->owned[i]);
	}
	d->nowned = 0;
	dc_pin_dir(dir, sizeof(dir), d->cfg.daemon.pin_dir, DC_PIN_INT_BASE, NULL);
	dp = opendir(dir);
	while (dp && (de = readdir(dp))) {
		const char *ns = strcmp(de->d_name, "host") ? de->d_name : NULL;

		if (de->d_name[0] == '.')
			continue;
		n = dc_int_host_pinned(d->cfg.daemon.pin_dir, ns, names, MAX_IFACES);
		for (i = 0; i < n; i++) {
			dc_int_host_detach(d->cfg.daemon.pin_dir, ns, names[i]);
			dc_info("%s%s%s: INT programs detached", ns ? ns : "", ns ? "/" : "", names[i]);
		}
		dc_int_host_tidy(d->cfg.daemon.pin_dir, ns);
	}
	if (dp)
		closedir(dp);
}
