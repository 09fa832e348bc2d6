// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ethereal on a host (docs/ethereal.md): the tagging program on the
 * host's egress, its configuration and destination leaves, and the RTO
 * re-path as sockops on a cgroup.  No printing: the reason goes to a
 * struct dc_err for the command to report.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/ethereal.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "eth/ethpriv.h"
#include "int/inthost.h"
#include "pins.h"
#include "prefix.h"
#include "ethereal.skel.h"

#define LEAVES_MAX 64

/* The cgroup v2 root: the first cgroup2 mount (/sys/fs/cgroup on a pure
 * v2 system, /sys/fs/cgroup/unified on a hybrid one). */
static const char *cgroup2_root(void)
{
	static char root[256];
	char dev[128], mnt[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");

	snprintf(root, sizeof(root), "/sys/fs/cgroup");
	while (f && fscanf(f, "%127s %255s %63s %*[^\n]", dev, mnt, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(root, sizeof(root), "%s", mnt);
			break;
		}
	if (f)
		fclose(f);
	return root;
}

static const char *ns_name(const char *netns)
{
	return netns ? netns : "(own)";
}

static int write_hcfg(int fd, const struct dc_eth_host_args *a, bool keep,
		      struct dc_eth_hcfg *out)
{
	struct dc_eth_hcfg c = { .n_uplinks = 4, .idle_ms = 2000, .avoid_ms = 1000,
				 .reps_buf = DC_REPS_BUF_DEFAULT };
	__u32 zero = 0;

	if (keep)
		bpf_map_lookup_elem(fd, &zero, &c);
	if (a->mode)
		c.mode = (__u32)(a->mode - 1);
	if (a->paths)
		c.n_uplinks = a->paths;
	if (a->idle_ms >= 0)
		c.idle_ms = (__u32)a->idle_ms;
	if (a->avoid_ms >= 0)
		c.avoid_ms = (__u32)a->avoid_ms;
	if (a->reps_buf >= 0)
		c.reps_buf = (__u32)a->reps_buf;
	if (a->reps_freeze_ms >= 0)
		c.reps_freeze_ms = (__u32)a->reps_freeze_ms;
	if (out)
		*out = c;
	return bpf_map_update_elem(fd, &zero, &c, BPF_ANY) ? -errno : 0;
}

/* Every --leaf PREFIX=ID[,...] into keys/vals; usage errors before anything is written. */
static int parse_leaves(const struct dc_opt_list *l, struct dc_eth_dst_key *keys,
			struct dc_eth_dst *vals, int max, struct dc_err *err)
{
	char buf[1024], *tok, *save, *eq, *end;
	unsigned int i;
	int n = 0;

	for (i = 0; i < l->n; i++) {
		snprintf(buf, sizeof(buf), "%s", l->v[i]);
		save = NULL;
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			unsigned long id;

			eq = strchr(tok, '=');
			if (!eq)
				return dc_err_set(err, EXIT_USAGE, "--leaf '%s': expected PREFIX=ID (e.g. "
					"10.78.1.0/24=1)", tok), -1;
			if (n >= max)
				return dc_err_set(err, EXIT_USAGE, "--leaf: more than %d destinations",
						  max), -1;
			*eq = '\0';
			id = strtoul(eq + 1, &end, 10);
			if (*end || eq[1] == '\0' || id >= DC_ETH_MAX_LEAVES)
				return dc_err_set(err, EXIT_USAGE, "--leaf %s=%s: the leaf id must be "
					"0..%d", tok, eq + 1, DC_ETH_MAX_LEAVES - 1), -1;
			if (dc_prefix_parse(tok, &keys[n].addr, &keys[n].prefixlen, err)) {
				dc_err_prefix(err, "--leaf");
				return -1;
			}
			vals[n].leaf = (__u32)id;
			vals[n].pad = 0;
			n++;
		}
	}
	return n;
}

/* One host per namespace: its maps are the host's view.  (On the netlink
 * fallback there is no link pin; the maps tell.) */
static int check_free(const char *dir, const char *ifname, const char *netns, struct dc_err *err)
{
	char pin[DC_PATH_LEN * 4];
	int fd = dc_eth_open_pinned(dir, "dc_eth_hcfg");
	__u32 ifx;
	char why[256];

	if (dc_eth_link_pin(pin, sizeof(pin), dir, ifname, "egress", err)) {
		if (fd >= 0)
			close(fd);
		return EXIT_ERR;
	}
	if (fd >= 0 || access(pin, F_OK) == 0) {
		if (fd >= 0)
			close(fd);
		return dc_err_set(err, EXIT_ERR, "%s (netns %s): the namespace already has a host "
				  "attached (%s); change it with 'dcbpf ethereal host set' or detach "
				  "first", ifname, ns_name(netns), dir);
	}
	if (dc_ifindex(netns, ifname, &ifx, why, sizeof(why)))
		return dc_err_set(err, EXIT_ERR, "%s", why);
	return 0;
}

static struct ethereal_bpf *load_host(const char *dir, struct dc_err *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);
	struct ethereal_bpf *s = ethereal_bpf__open_opts(&oo);

	if (s)
		s->rodata->dc_eth_flows_cap_entries = dc_eth_flows_cap(
			bpf_map__max_entries(s->maps.dc_eth_flows), (__u32)libbpf_num_possible_cpus());
	if (!s || ethereal_bpf__load(s)) {
		dc_err_set(err, EXIT_ERR, "loading the host programs failed: %s (maps pinned in %s "
			   "with another layout? detach and retry)", strerror(errno), dir);
		ethereal_bpf__destroy(s);
		return NULL;
	}
	return s;
}

int dc_eth_host_attach(const char *pin_dir, const struct dc_eth_host_args *a, struct dc_err *err)
{
	const char *cgroup = a->cgroup ? a->cgroup : cgroup2_root();
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4];
	struct dc_eth_dst_key keys[LEAVES_MAX];
	struct dc_eth_dst vals[LEAVES_MAX];
	struct ethereal_bpf *s = NULL;
	int n, i, rc, cg, fd;
	bool tc_done = false, in_done = false;

	n = parse_leaves(&a->leaf, keys, vals, LEAVES_MAX, err);
	if (n < 0)
		return EXIT_USAGE;
	if (dc_eth_ns_dir(dir, sizeof(dir), pin_dir, a->netns, err))
		return EXIT_USAGE;
	if (check_free(dir, a->iface, a->netns, err))
		return EXIT_ERR;
	cg = open(cgroup, O_RDONLY | O_DIRECTORY);
	if (cg < 0)
		return dc_err_set(err, EXIT_ERR, "cgroup %s: %s (the RTO re-path runs as sockops on a "
				  "cgroup v2 directory; give one with --cgroup)", cgroup, strerror(errno));
	rc = dc_mkdirs(dir);
	if (rc) {
		close(cg);
		return dc_err_set(err, EXIT_ERR, "cannot create %s: %s", dir, strerror(-rc));
	}
	s = load_host(dir, err);
	if (!s)
		goto fail;
	rc = write_hcfg(bpf_map__fd(s->maps.dc_eth_hcfg), a, false, NULL);
	for (i = 0; !rc && i < n; i++)
		if (bpf_map_update_elem(bpf_map__fd(s->maps.dc_eth_dst), &keys[i], &vals[i], BPF_ANY))
			rc = -errno;
	if (rc) {
		dc_err_set(err, EXIT_ERR, "writing the host configuration: %s", strerror(-rc));
		goto fail;
	}
	dc_eth_link_pin(pin, sizeof(pin), dir, a->iface, "egress", err);	/* checked above */
	if (dc_eth_attach_tc(bpf_program__fd(s->progs.dc_eth_hout), DC_HOOK_TC_EGRESS, a->netns,
			     a->iface, pin, a->no_links, err))
		goto fail;
	tc_done = true;
	/* the ACKs mode reps learns from; idle in the other modes, attached
	 * always so that `host set --mode reps` needs nothing more */
	dc_eth_link_pin(pin, sizeof(pin), dir, a->iface, "ingress", err);
	if (dc_eth_attach_tc(bpf_program__fd(s->progs.dc_eth_hin), DC_HOOK_TC_INGRESS, a->netns,
			     a->iface, pin, a->no_links, err))
		goto fail;
	in_done = true;
	dc_pin_path(pin, sizeof(pin), dir, "sockops");
	fd = bpf_link_create(bpf_program__fd(s->progs.dc_eth_sockops), cg, BPF_CGROUP_SOCK_OPS, NULL);
	if (fd < 0 || bpf_obj_pin(fd, pin)) {
		dc_err_set(err, EXIT_ERR, "attaching the sockops program to cgroup %s failed: %s",
			   cgroup, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	close(fd);
	ethereal_bpf__destroy(s);
	close(cg);
	return EXIT_OK;
fail:
	/* all or nothing */
	if (in_done) {
		dc_eth_link_pin(pin, sizeof(pin), dir, a->iface, "ingress", err);
		dc_eth_detach_tc(DC_HOOK_TC_INGRESS, a->netns, a->iface, pin);
	}
	if (tc_done) {
		dc_eth_link_pin(pin, sizeof(pin), dir, a->iface, "egress", err);
		dc_eth_detach_tc(DC_HOOK_TC_EGRESS, a->netns, a->iface, pin);
	}
	dc_eth_unpin(pin_dir, dir, true);
	ethereal_bpf__destroy(s);
	close(cg);
	return EXIT_ERR;
}

int dc_eth_host_set(const char *pin_dir, const struct dc_eth_host_args *a,
		    struct dc_eth_hcfg *out, struct dc_err *err)
{
	char dir[DC_PATH_LEN * 2];
	int fd, rc;

	if (dc_eth_ns_dir(dir, sizeof(dir), pin_dir, a->netns, err))
		return EXIT_USAGE;
	fd = dc_eth_open_pinned(dir, "dc_eth_hcfg");
	if (fd < 0)
		return dc_err_set(err, EXIT_ERR, "no host attached in netns %s (%s): run 'dcbpf "
				  "ethereal host attach' first", ns_name(a->netns), dir);
	rc = write_hcfg(fd, a, true, out);
	close(fd);
	if (rc)
		return dc_err_set(err, EXIT_ERR, "%s", strerror(-rc));
	return EXIT_OK;
}

int dc_eth_host_detach(const char *pin_dir, const char *netns, const char *ifname,
		       struct dc_err *err)
{
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4];

	if (dc_eth_ns_dir(dir, sizeof(dir), pin_dir, netns, err))
		return EXIT_USAGE;
	if (dc_eth_link_pin(pin, sizeof(pin), dir, ifname, "egress", err))
		return EXIT_ERR;
	dc_eth_detach_tc(DC_HOOK_TC_EGRESS, netns, ifname, pin);
	if (!dc_eth_link_pin(pin, sizeof(pin), dir, ifname, "ingress", err))
		dc_eth_detach_tc(DC_HOOK_TC_INGRESS, netns, ifname, pin);
	dc_pin_path(pin, sizeof(pin), dir, "sockops");
	dc_detach_pinned(pin);
	dc_eth_unpin(pin_dir, dir, true);
	return EXIT_OK;
}
