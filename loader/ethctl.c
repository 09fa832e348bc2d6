// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf ethereal …`: Ethereal load balancing (docs/ethereal.md).
 *
 *   ethereal host attach --netns NS --mode ethereal|spray|ecmp --paths S
 *                        --leaf PREFIX=ID[,…] [--idle-ms MS] [--avoid-ms MS]
 *                        [--cgroup DIR] [--no-links] IFACE
 *   ethereal host set --netns NS [--mode M] [--idle-ms MS] [--avoid-ms MS]
 *   ethereal host detach --netns NS [--no-links] IFACE
 *   ethereal leaf attach --netns NS --ports IF[,…] --uplinks IF=NEXTHOP[,…] [--no-links]
 *   ethereal leaf detach --netns NS [--no-links]
 *   ethereal status [--netns NS]            (--json: dcbpf's global flag, or here)
 *   ethereal flows --netns NS
 *
 * One object per namespace, its maps pinned by name under
 * <pin_dir>/eth/<netns>/ with its links (<ifname>_egress, <ifname>_ingress,
 * sockops).  Ethereal's TC programs go first on their hook (tcx: before
 * all others; netlink: priority DC_ETH_TC_PRIO, before INT's) and pass
 * with TCX_NEXT, so INT's source runs after them and grows the tag into
 * its option whichever was attached first.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/ethereal.h"
#include "dcbpf/flow.h"
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "ethctl.h"
#include "inthost.h"
#include "ethereal.skel.h"
#include "eth_leaf.skel.h"

#define ETH_DIR "eth"
#define OWN_NS "host"		/* pin subdirectory for the caller's own namespace */
#define DC_ETH_TC_PRIO 0xdca	/* before INT's 0xdcb on the netlink fallback */

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
#define CGROUP_ROOT cgroup2_root()

static const char *const host_maps[] = { "dc_eth_hcfg", "dc_eth_dst", "dc_eth_view",
					 "dc_eth_flows", "dc_eth_hstats" };
static const char *const leaf_maps[] = { "dc_eth_up", "dc_eth_upif", "dc_eth_ports",
					 "dc_eth_pcnt", "dc_eth_lstats" };
#define NMAPS 5

static const char *const mode_names[] = { "ecmp", "ethereal", "spray" };

static void eth_usage(FILE *f)
{
	fprintf(f,
		"usage: dcbpf ethereal host attach --netns NS --mode ethereal|spray|ecmp --paths S\n"
		"                      --leaf PREFIX=ID[,PREFIX=ID...] [--idle-ms MS] [--avoid-ms MS]\n"
		"                      [--cgroup DIR] [--no-links] IFACE\n"
		"       dcbpf ethereal host set --netns NS [--mode M] [--idle-ms MS] [--avoid-ms MS]\n"
		"       dcbpf ethereal host detach --netns NS [--no-links] IFACE\n"
		"       dcbpf ethereal leaf attach --netns NS --ports IF[,IF...]\n"
		"                      --uplinks IF=NEXTHOP[,IF=NEXTHOP...] [--no-links]\n"
		"       dcbpf ethereal leaf detach --netns NS [--no-links]\n"
		"       dcbpf ethereal status [--netns NS] [--json]\n"
		"       dcbpf ethereal flows --netns NS [--json]\n"
		"Uplinks are tagged in the order given (first = path 1); S <= 15.\n");
}

struct opts {
	const char *netns, *mode, *leaf, *ports, *uplinks, *cgroup;
	long paths, idle_ms, avoid_ms;
	bool no_links, json;
};

static void ns_dir(char *buf, size_t len, const char *pin_dir, const char *netns)
{
	snprintf(buf, len, "%s/%s/%s", pin_dir, ETH_DIR, netns ? netns : OWN_NS);
}

static int open_pinned(const char *dir, const char *name)
{
	char path[DC_PATH_LEN * 4];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return bpf_obj_get(path);
}

static int parse_mode(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(s, mode_names[i]))
			return (int)i;
	if (!strcmp(s, "off"))
		return DC_ETH_MODE_ECMP;
	return -1;
}

static int parse_prefix(const char *arg, struct dc_eth_dst_key *k)
{
	char buf[64], *slash, *end;
	unsigned long len = 32;

	snprintf(buf, sizeof(buf), "%s", arg);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		len = strtoul(slash + 1, &end, 10);
		if (*end || len > 32 || slash[1] == '\0')
			return -1;
	}
	if (inet_pton(AF_INET, buf, &k->addr) != 1)
		return -1;
	k->prefixlen = (__u32)len;
	return 0;
}

/* Remove every pin of one namespace's directory, and the directory. */
static void unpin_dir(const char *dir, const char *const *maps)
{
	char path[DC_PATH_LEN * 4];
	int i;

	for (i = 0; i < NMAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, maps[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void rm_eth_dir_if_empty(const char *pin_dir)
{
	char path[DC_PATH_LEN * 2];

	snprintf(path, sizeof(path), "%s/%s", pin_dir, ETH_DIR);
	rmdir(path);
}

static int attach_tc(int prog_fd, enum dc_hook hook, const char *netns, const char *ifname,
		     const char *pin, bool no_links)
{
	struct dc_attach a = { .hook = hook, .netns = netns, .ifname = ifname, .pin_path = pin,
			       .no_links = no_links, .tc_prio = DC_ETH_TC_PRIO,
			       .link_flags = DC_BPF_F_BEFORE };
	enum dc_attach_how how;
	char why[512];
	int err = dc_attach_prog(prog_fd, &a, &how, why, sizeof(why));

	if (err)
		fprintf(stderr, "dcbpf ethereal: %s\n", why);
	return err;
}

static void detach_tc(enum dc_hook hook, const char *netns, const char *ifname, const char *pin)
{
	struct dc_attach a = { .hook = hook, .netns = netns, .ifname = ifname,
			       .tc_prio = DC_ETH_TC_PRIO };

	if (access(pin, F_OK) == 0)
		dc_detach_pinned(pin);
	else
		dc_detach_netlink(&a);
}

static void link_pin(char *buf, size_t len, const char *dir, const char *ifname, const char *sfx)
{
	snprintf(buf, len, "%s/%s_%s", dir, ifname, sfx);	/* bpffs: no dots */
}

/* ---- host ----------------------------------------------------------------- */

static int write_hcfg(int fd, const struct opts *o, bool keep)
{
	struct dc_eth_hcfg c = { .n_uplinks = 4, .idle_ms = 2000, .avoid_ms = 1000 };
	__u32 zero = 0;

	if (keep)
		bpf_map_lookup_elem(fd, &zero, &c);
	if (o->mode)
		c.mode = (__u32)parse_mode(o->mode);
	if (o->paths)
		c.n_uplinks = (__u32)o->paths;
	if (o->idle_ms >= 0)
		c.idle_ms = (__u32)o->idle_ms;
	if (o->avoid_ms >= 0)
		c.avoid_ms = (__u32)o->avoid_ms;
	return bpf_map_update_elem(fd, &zero, &c, BPF_ANY) ? -errno : 0;
}

/* --leaf PREFIX=ID[,…] into the LPM map; usage errors before anything is written. */
static int parse_leaves(const char *spec, struct dc_eth_dst_key *keys, struct dc_eth_dst *vals,
			int max)
{
	char buf[1024], *tok, *save = NULL, *eq, *end;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long id;

		eq = strchr(tok, '=');
		if (!eq || n >= max) {
			fprintf(stderr, "dcbpf ethereal: --leaf '%s': expected PREFIX=ID (e.g. 10.78.1.0/24=1)\n",
				tok);
			return -1;
		}
		*eq = '\0';
		id = strtoul(eq + 1, &end, 10);
		if (*end || eq[1] == '\0' || id >= DC_ETH_MAX_LEAVES) {
			fprintf(stderr, "dcbpf ethereal: --leaf %s=%s: the leaf id must be 0..%d\n", tok,
				eq + 1, DC_ETH_MAX_LEAVES - 1);
			return -1;
		}
		if (parse_prefix(tok, &keys[n])) {
			fprintf(stderr, "dcbpf ethereal: --leaf '%s': not an IPv4 prefix (A.B.C.D[/LEN])\n",
				tok);
			return -1;
		}
		vals[n].leaf = (__u32)id;
		vals[n].pad = 0;
		n++;
	}
	return n;
}

static int host_attach(const char *pin_dir, const struct opts *o, const char *ifname)
{
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4];
	struct dc_eth_dst_key keys[64];
	struct dc_eth_dst vals[64];
	struct ethereal_bpf *s = NULL;
	int n, i, err, cg = -1, fd, rc = EXIT_ERR;
	bool tc_done = false;

	if (!o->mode || parse_mode(o->mode) < 0) {
		fprintf(stderr, "dcbpf ethereal host attach: --mode ethereal|spray|ecmp is required\n");
		return EXIT_USAGE;
	}
	if (o->paths < 1 || o->paths > DC_ETH_TAG_MAX) {
		fprintf(stderr, "dcbpf ethereal host attach: --paths S (uplinks of the host's leaf) "
				"must be 1..%d (the tag has 4 bits)\n", DC_ETH_TAG_MAX);
		return EXIT_USAGE;
	}
	if (!o->leaf) {
		fprintf(stderr, "dcbpf ethereal host attach: --leaf PREFIX=ID is required (which "
				"destinations are behind which leaf)\n");
		return EXIT_USAGE;
	}
	n = parse_leaves(o->leaf, keys, vals, 64);
	if (n < 0)
		return EXIT_USAGE;
	ns_dir(dir, sizeof(dir), pin_dir, o->netns);
	link_pin(pin, sizeof(pin), dir, ifname, "egress");
	/* One host per namespace: its maps are the host's view.  (On the
	 * netlink fallback there is no link pin; the maps tell.) */
	fd = open_pinned(dir, "dc_eth_hcfg");
	if (fd >= 0 || access(pin, F_OK) == 0) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "dcbpf ethereal: %s (netns %s): the namespace already has a host "
				"attached (%s); change it with 'dcbpf ethereal host set' or detach first\n",
			ifname, o->netns ? o->netns : "(own)", dir);
		return EXIT_ERR;
	}
	{
		__u32 ifx;
		char why[256];

		if (dc_ifindex(o->netns, ifname, &ifx, why, sizeof(why))) {
			fprintf(stderr, "dcbpf ethereal: %s\n", why);
			return EXIT_ERR;
		}
	}
	cg = open(o->cgroup ? o->cgroup : CGROUP_ROOT, O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		fprintf(stderr, "dcbpf ethereal: cgroup %s: %s (the RTO re-path runs as sockops "
				"on a cgroup v2 directory; give one with --cgroup)\n",
			o->cgroup ? o->cgroup : CGROUP_ROOT, strerror(errno));
		return EXIT_ERR;
	}
	err = dc_mkdirs(dir);
	if (err) {
		fprintf(stderr, "dcbpf ethereal: cannot create %s: %s\n", dir, strerror(-err));
		goto out;
	}
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		s = ethereal_bpf__open_opts(&oo);
		if (s)
			s->rodata->dc_eth_flows_cap_entries = dc_eth_flows_cap(
				bpf_map__max_entries(s->maps.dc_eth_flows),
				(__u32)libbpf_num_possible_cpus());
		if (!s || ethereal_bpf__load(s)) {
			fprintf(stderr, "dcbpf ethereal: loading the host programs failed: %s (maps "
					"pinned in %s with another layout? detach and retry)\n",
				strerror(errno), dir);
			goto fail;
		}
	}
	err = write_hcfg(bpf_map__fd(s->maps.dc_eth_hcfg), o, false);
	for (i = 0; !err && i < n; i++)
		if (bpf_map_update_elem(bpf_map__fd(s->maps.dc_eth_dst), &keys[i], &vals[i], BPF_ANY))
			err = -errno;
	if (err) {
		fprintf(stderr, "dcbpf ethereal: writing the host configuration: %s\n", strerror(-err));
		goto fail;
	}
	if (attach_tc(bpf_program__fd(s->progs.dc_eth_hout), DC_HOOK_TC_EGRESS, o->netns, ifname,
		      pin, o->no_links))
		goto fail;
	tc_done = true;
	snprintf(pin, sizeof(pin), "%s/sockops", dir);
	fd = bpf_link_create(bpf_program__fd(s->progs.dc_eth_sockops), cg, BPF_CGROUP_SOCK_OPS,
			     NULL);
	if (fd < 0 || bpf_obj_pin(fd, pin)) {
		fprintf(stderr, "dcbpf ethereal: attaching the sockops program to cgroup %s failed: "
				"%s\n", o->cgroup ? o->cgroup : CGROUP_ROOT, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	close(fd);
	rc = EXIT_OK;
	goto out;
fail:
	/* all or nothing */
	if (tc_done) {
		link_pin(pin, sizeof(pin), dir, ifname, "egress");
		detach_tc(DC_HOOK_TC_EGRESS, o->netns, ifname, pin);
	}
	unpin_dir(dir, host_maps);
	rm_eth_dir_if_empty(pin_dir);
out:
	ethereal_bpf__destroy(s);
	if (cg >= 0)
		close(cg);
	return rc;
}

static int host_set(const char *pin_dir, const struct opts *o)
{
	char dir[DC_PATH_LEN * 2];
	int fd, err;

	if (o->mode && parse_mode(o->mode) < 0) {
		fprintf(stderr, "dcbpf ethereal host set: --mode %s: ethereal, spray or ecmp\n", o->mode);
		return EXIT_USAGE;
	}
	if (o->paths && (o->paths < 1 || o->paths > DC_ETH_TAG_MAX)) {
		fprintf(stderr, "dcbpf ethereal host set: --paths must be 1..%d\n", DC_ETH_TAG_MAX);
		return EXIT_USAGE;
	}
	ns_dir(dir, sizeof(dir), pin_dir, o->netns);
	fd = open_pinned(dir, "dc_eth_hcfg");
	if (fd < 0) {
		fprintf(stderr, "dcbpf ethereal: no host attached in netns %s (%s): run 'dcbpf ethereal "
				"host attach' first\n", o->netns ? o->netns : "(own)", dir);
		return EXIT_ERR;
	}
	err = write_hcfg(fd, o, true);
	close(fd);
	if (err) {
		fprintf(stderr, "dcbpf ethereal host set: %s\n", strerror(-err));
		return EXIT_ERR;
	}
	return EXIT_OK;
}

static int host_detach(const char *pin_dir, const struct opts *o, const char *ifname)
{
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4];

	ns_dir(dir, sizeof(dir), pin_dir, o->netns);
	link_pin(pin, sizeof(pin), dir, ifname, "egress");
	detach_tc(DC_HOOK_TC_EGRESS, o->netns, ifname, pin);
	snprintf(pin, sizeof(pin), "%s/sockops", dir);
	dc_detach_pinned(pin);
	unpin_dir(dir, host_maps);
	rm_eth_dir_if_empty(pin_dir);
	return EXIT_OK;
}

/* ---- leaf ------------------------------------------------------------------ */

static int split(char *buf, char **out, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
		out[n++] = tok;
	return tok ? -1 : n;
}

static int leaf_detach(const char *pin_dir, const struct opts *o);

static int leaf_attach(const char *pin_dir, const struct opts *o)
{
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4], pbuf[1024], ubuf[1024];
	char *ports[64], *ups[DC_ETH_TAG_MAX + 1];
	struct dc_eth_uplink up[DC_ETH_TAG_MAX + 1] = {};
	struct eth_leaf_bpf *s = NULL;
	int np, nu, i, err;
	char why[256];

	if (!o->ports || !o->uplinks) {
		fprintf(stderr, "dcbpf ethereal leaf attach: --ports IF,... and --uplinks IF=NEXTHOP,... "
				"are required\n");
		return EXIT_USAGE;
	}
	snprintf(pbuf, sizeof(pbuf), "%s", o->ports);
	snprintf(ubuf, sizeof(ubuf), "%s", o->uplinks);
	np = split(pbuf, ports, 64);
	nu = split(ubuf, ups, DC_ETH_TAG_MAX);
	if (np < 1 || nu < 1) {
		fprintf(stderr, "dcbpf ethereal leaf attach: 1..64 ports and 1..%d uplinks\n",
			DC_ETH_TAG_MAX);
		return EXIT_USAGE;
	}
	for (i = 0; i < nu; i++) {
		char *eq = strchr(ups[i], '=');

		if (!eq || inet_pton(AF_INET, eq + 1, &up[i + 1].nexthop) != 1) {
			fprintf(stderr, "dcbpf ethereal leaf attach: --uplinks '%s': expected "
					"IF=NEXTHOP (the spine's IPv4 address on that link)\n", ups[i]);
			return EXIT_USAGE;
		}
		*eq = '\0';
		if (dc_ifindex(o->netns, ups[i], &up[i + 1].ifindex, why, sizeof(why))) {
			fprintf(stderr, "dcbpf ethereal: uplink: %s\n", why);
			return EXIT_ERR;
		}
	}
	for (i = 0; i < np; i++) {
		__u32 ifx;

		if (dc_ifindex(o->netns, ports[i], &ifx, why, sizeof(why))) {
			fprintf(stderr, "dcbpf ethereal: port: %s\n", why);
			return EXIT_ERR;
		}
	}
	ns_dir(dir, sizeof(dir), pin_dir, o->netns);
	if (open_pinned(dir, "dc_eth_up") >= 0) {
		fprintf(stderr, "dcbpf ethereal: a leaf is already attached in netns %s (%s); detach "
				"first\n", o->netns ? o->netns : "(own)", dir);
		return EXIT_ERR;
	}
	err = dc_mkdirs(dir);
	if (err) {
		fprintf(stderr, "dcbpf ethereal: cannot create %s: %s\n", dir, strerror(-err));
		return EXIT_ERR;
	}
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		s = eth_leaf_bpf__open_opts(&oo);
		if (!s || eth_leaf_bpf__load(s)) {
			fprintf(stderr, "dcbpf ethereal: loading the leaf program failed: %s\n",
				strerror(errno));
			eth_leaf_bpf__destroy(s);
			unpin_dir(dir, leaf_maps);
			rm_eth_dir_if_empty(pin_dir);
			return EXIT_ERR;
		}
	}
	for (i = 1; i <= nu; i++) {
		__u32 tag = (__u32)i;

		if (bpf_map_update_elem(bpf_map__fd(s->maps.dc_eth_up), &tag, &up[i], BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(s->maps.dc_eth_upif), &up[i].ifindex, &tag,
					BPF_ANY))
			goto fail;
	}
	for (i = 0; i < np; i++) {
		__u32 ifx, one = 1;

		dc_ifindex(o->netns, ports[i], &ifx, why, sizeof(why));
		link_pin(pin, sizeof(pin), dir, ports[i], "ingress");
		if (attach_tc(bpf_program__fd(s->progs.dc_eth_lin), DC_HOOK_TC_INGRESS, o->netns,
			      ports[i], pin, o->no_links))
			goto fail;
		bpf_map_update_elem(bpf_map__fd(s->maps.dc_eth_ports), &ifx, &one, BPF_ANY);
	}
	eth_leaf_bpf__destroy(s);
	return EXIT_OK;
fail:
	eth_leaf_bpf__destroy(s);
	leaf_detach(pin_dir, o);	/* takes back what the port map recorded */
	return EXIT_ERR;
}

static int leaf_detach(const char *pin_dir, const struct opts *o)
{
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4];
	__u32 key, next, *prev = NULL;
	int fd;

	ns_dir(dir, sizeof(dir), pin_dir, o->netns);
	fd = open_pinned(dir, "dc_eth_ports");
	while (fd >= 0 && !bpf_map_get_next_key(fd, prev, &next)) {
		char name[IF_NAMESIZE] = "";
		int saved;
		char why[256];

		if (!dc_netns_enter(o->netns, &saved, why, sizeof(why))) {
			if (!if_indextoname(next, name))
				name[0] = '\0';
			dc_netns_leave(saved);
		}
		if (name[0]) {
			link_pin(pin, sizeof(pin), dir, name, "ingress");
			detach_tc(DC_HOOK_TC_INGRESS, o->netns, name, pin);
		}
		key = next;
		prev = &key;
	}
	if (fd >= 0)
		close(fd);
	/* links of ports that vanished since */
	{
		DIR *d = opendir(dir);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			size_t l = strlen(de->d_name);

			if (l > 8 && !strcmp(de->d_name + l - 8, "_ingress")) {
				snprintf(pin, sizeof(pin), "%s/%s", dir, de->d_name);
				dc_detach_pinned(pin);
			}
		}
		if (d)
			closedir(d);
	}
	unpin_dir(dir, leaf_maps);
	rm_eth_dir_if_empty(pin_dir);
	return EXIT_OK;
}

/* ---- status, flows ---------------------------------------------------------- */

static const char *const hc_names[] = { "pkts_seen", "pkts_tagged", "tag_added", "tag_int",
	"tag_no_room", "tag_fail", "flows_new", "flows_fin", "flows_idle", "flows_untracked",
	"flow_insert_fail", "repath_rto", "no_leaf", "ecmp_pkts", "flows_live", "flows_over_cap" };
static const char *const lc_names[] = { "untagged", "steered", "unknown_tag", "uplink_down",
	"local_dst", "ttl_expired", "fib_fail", "tag_stripped", "strip_fail" };

static void print_counters(const __u64 *v, const char *const *names, unsigned int n, bool json)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (json)
			printf("%s\"%s\":%llu", i ? "," : "", names[i], (unsigned long long)v[i]);
		else
			printf("%s%s %llu", i ? " " : "", names[i], (unsigned long long)v[i]);
	}
}

static int host_status(const char *dir, const char *ns, bool json)
{
	struct dc_eth_hcfg c = {};
	struct dc_eth_hcounters hc = {};
	__u32 zero = 0, leaf;
	int fc = open_pinned(dir, "dc_eth_hcfg"), fv = open_pinned(dir, "dc_eth_view");
	int fs = open_pinned(dir, "dc_eth_hstats"), ff = open_pinned(dir, "dc_eth_flows");
	struct dc_flow_key k, nk, *pk = NULL;
	struct bpf_map_info mi = {};
	__u32 mil = sizeof(mi), cap = 0;
	long nflows = 0;
	bool first = true;

	if (fc < 0 || fv < 0 || fs < 0 || ff < 0)
		return -1;
	bpf_map_lookup_elem(fc, &zero, &c);
	bpf_map_lookup_elem(fs, &zero, &hc);
	while (!bpf_map_get_next_key(ff, pk, &nk)) {
		nflows++;
		k = nk;
		pk = &k;
	}
	/* the cap the host program was loaded with (same size, same CPUs) */
	if (!bpf_obj_get_info_by_fd(ff, &mi, &mil))
		cap = dc_eth_flows_cap(mi.max_entries, (__u32)libbpf_num_possible_cpus());
	if (json)
		printf("{\"netns\":\"%s\",\"mode\":\"%s\",\"paths\":%u,\"idle_ms\":%u,\"avoid_ms\":%u,"
		       "\"flows\":%ld,\"flows_cap\":%u,\"leaves\":[", ns,
		       c.mode < 3 ? mode_names[c.mode] : "?", c.n_uplinks, c.idle_ms, c.avoid_ms,
		       nflows, cap);
	else
		printf("host %s: mode %s, paths %u, idle %u ms, avoid %u ms, flows %ld (cap %u)\n",
		       ns, c.mode < 3 ? mode_names[c.mode] : "?", c.n_uplinks, c.idle_ms, c.avoid_ms,
		       nflows, cap);
	for (leaf = 0; leaf < DC_ETH_MAX_LEAVES; leaf++) {
		struct dc_eth_hleaf v = {};
		__u32 u, any = 0;

		if (bpf_map_lookup_elem(fv, &leaf, &v))
			continue;
		for (u = 0; u < DC_ETH_MAX_UPLINKS; u++)
			any |= v.up.load[u] || v.timeouts[u];
		if (!any)
			continue;
		if (json) {
			printf("%s{\"leaf\":%u,\"load_flows\":[", first ? "" : ",", leaf);
			for (u = 0; u < c.n_uplinks && u < DC_ETH_MAX_UPLINKS; u++)
				printf("%s%.3f", u ? "," : "", (double)v.up.load[u] / DC_ETH_FLOW_UNIT);
			printf("],\"timeouts\":[");
			for (u = 0; u < c.n_uplinks && u < DC_ETH_MAX_UPLINKS; u++)
				printf("%s%llu", u ? "," : "", (unsigned long long)v.timeouts[u]);
			printf("]}");
		} else {
			printf("  leaf %u: load (flows)", leaf);
			for (u = 0; u < c.n_uplinks && u < DC_ETH_MAX_UPLINKS; u++)
				printf(" %.2f", (double)v.up.load[u] / DC_ETH_FLOW_UNIT);
			printf("; timeouts");
			for (u = 0; u < c.n_uplinks && u < DC_ETH_MAX_UPLINKS; u++)
				printf(" %llu", (unsigned long long)v.timeouts[u]);
			printf("\n");
		}
		first = false;
	}
	if (json)
		printf("],\"counters\":{");
	else
		printf("  ");
	print_counters((const __u64 *)&hc, hc_names, sizeof(hc) / sizeof(__u64), json);
	printf(json ? "}}" : "\n");
	close(fc);
	close(fv);
	close(fs);
	close(ff);
	return 0;
}

static int leaf_status(const char *dir, const char *ns, bool json)
{
	int ncpu = libbpf_num_possible_cpus(), fu = open_pinned(dir, "dc_eth_up");
	int fp = open_pinned(dir, "dc_eth_pcnt"), fs = open_pinned(dir, "dc_eth_lstats");
	struct dc_eth_lcounters lc = {}, *lcs;
	struct dc_eth_pathcnt *pc;
	__u32 tag, zero = 0, i, j;
	bool first = true;

	if (fu < 0 || fp < 0 || fs < 0 || ncpu < 1)
		return -1;
	lcs = calloc((size_t)ncpu, sizeof(*lcs));
	pc = calloc((size_t)ncpu, sizeof(*pc));
	if (!lcs || !pc)
		return -1;
	if (!bpf_map_lookup_elem(fs, &zero, lcs))
		for (i = 0; i < (__u32)ncpu; i++)
			for (j = 0; j < sizeof(lc) / sizeof(__u64); j++)
				((__u64 *)&lc)[j] += ((__u64 *)&lcs[i])[j];
	if (json)
		printf("{\"netns\":\"%s\",\"paths\":[", ns);
	else
		printf("leaf %s:\n", ns);
	for (tag = 0; tag <= DC_ETH_TAG_MAX; tag++) {
		struct dc_eth_uplink u = {};
		__u64 bytes = 0, pkts = 0;
		char nh[INET_ADDRSTRLEN] = "-";

		if (bpf_map_lookup_elem(fu, &tag, &u) || (tag && !u.ifindex))
			continue;
		if (!bpf_map_lookup_elem(fp, &tag, pc))
			for (i = 0; i < (__u32)ncpu; i++) {
				bytes += pc[i].bytes;
				pkts += pc[i].packets;
			}
		if (tag)
			inet_ntop(AF_INET, &u.nexthop, nh, sizeof(nh));
		if (json)
			printf("%s{\"tag\":%u,\"ifindex\":%u,\"nexthop\":\"%s\",\"bytes\":%llu,"
			       "\"packets\":%llu}", first ? "" : ",", tag, u.ifindex, nh,
			       (unsigned long long)bytes, (unsigned long long)pkts);
		else if (tag)
			printf("  path %u: ifindex %u via %s: %llu bytes, %llu packets\n", tag,
			       u.ifindex, nh, (unsigned long long)bytes, (unsigned long long)pkts);
		else
			printf("  untagged: %llu bytes, %llu packets\n", (unsigned long long)bytes,
			       (unsigned long long)pkts);
		first = false;
	}
	if (json)
		printf("],\"counters\":{");
	else
		printf("  ");
	print_counters((const __u64 *)&lc, lc_names, sizeof(lc) / sizeof(__u64), json);
	printf(json ? "}}" : "\n");
	free(lcs);
	free(pc);
	close(fu);
	close(fp);
	close(fs);
	return 0;
}

static int cmd_status(const char *pin_dir, const struct opts *o)
{
	char base[DC_PATH_LEN * 2], dir[DC_PATH_LEN * 3];
	struct dirent *de;
	bool fh = true, fl = true;
	int pass;

	snprintf(base, sizeof(base), "%s/%s", pin_dir, ETH_DIR);
	if (o->json)
		printf("{\"hosts\":[");
	for (pass = 0; pass < 2; pass++) {
		DIR *d = opendir(base);

		if (o->json && pass == 1)
			printf("],\"leaves\":[");
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (o->netns && strcmp(o->netns, de->d_name))
				continue;
			snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name);
			if (o->json && !(pass ? fl : fh)) {
				int fd = open_pinned(dir, pass ? "dc_eth_up" : "dc_eth_hcfg");

				if (fd < 0)
					continue;
				close(fd);
				printf(",");
			}
			if (pass == 0 && !host_status(dir, de->d_name, o->json))
				fh = false;
			if (pass == 1 && !leaf_status(dir, de->d_name, o->json))
				fl = false;
		}
		if (d)
			closedir(d);
	}
	if (o->json)
		printf("]}\n");
	else if (fh && fl)
		printf("ethereal: nothing attached under %s\n", base);
	return EXIT_OK;
}

static int cmd_flows(const char *pin_dir, const struct opts *o)
{
	char dir[DC_PATH_LEN * 2];
	struct dc_flow_key k, nk, *pk = NULL;
	struct timespec ts;
	__u64 now;
	bool first = true;
	int fd;

	ns_dir(dir, sizeof(dir), pin_dir, o->netns);
	fd = open_pinned(dir, "dc_eth_flows");
	if (fd < 0) {
		fprintf(stderr, "dcbpf ethereal: no host attached in netns %s (%s)\n",
			o->netns ? o->netns : "(own)", dir);
		return EXIT_ERR;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	if (o->json)
		printf("[");
	else
		printf("%-22s %-22s %5s %4s %8s %7s %12s %10s %9s\n", "source", "destination", "path",
		       "leaf", "state", "repaths", "bytes", "packets", "idle_ms");
	while (!bpf_map_get_next_key(fd, pk, &nk)) {
		struct dc_eth_flow f;
		char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN], a[40], b[40];

		k = nk;
		pk = &k;
		if (bpf_map_lookup_elem(fd, &k, &f))
			continue;
		inet_ntop(AF_INET, &k.saddr[0], s, sizeof(s));
		inet_ntop(AF_INET, &k.daddr[0], d, sizeof(d));
		if (o->json) {
			printf("%s{\"src\":\"%s\",\"sport\":%u,\"dst\":\"%s\",\"dport\":%u,\"path\":%u,"
			       "\"leaf\":%u,\"state\":\"%s\",\"repaths\":%u,\"bytes\":%llu,"
			       "\"packets\":%llu}", first ? "" : ",", s, k.sport, d, k.dport, f.path,
			       f.leaf, f.state ? "released" : "open", f.repaths,
			       (unsigned long long)f.bytes, (unsigned long long)f.packets);
		} else {
			snprintf(a, sizeof(a), "%s:%u", s, k.sport);
			snprintf(b, sizeof(b), "%s:%u", d, k.dport);
			printf("%-22s %-22s %5u %4u %8s %7u %12llu %10llu %9llu\n", a, b, f.path, f.leaf,
			       f.state ? "released" : "open", f.repaths, (unsigned long long)f.bytes,
			       (unsigned long long)f.packets,
			       (unsigned long long)(now > f.last_seen_ns ?
						    (now - f.last_seen_ns) / 1000000 : 0));
		}
		first = false;
	}
	if (o->json)
		printf("]\n");
	close(fd);
	return EXIT_OK;
}

int dc_eth_main(const char *pin_dir, bool json, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "paths", required_argument, NULL, 'p' },
		{ "leaf", required_argument, NULL, 'l' },
		{ "idle-ms", required_argument, NULL, 'i' },
		{ "avoid-ms", required_argument, NULL, 'a' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "ports", required_argument, NULL, 'P' },
		{ "uplinks", required_argument, NULL, 'U' },
		{ "no-links", no_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .idle_ms = -1, .avoid_ms = -1, .json = json };
	const char *role, *sub = NULL;
	char leafbuf[2048] = "";
	int c, first;

	if (argc < 2) {
		eth_usage(stderr);
		return EXIT_USAGE;
	}
	role = argv[1];
	if (!strcmp(role, "host") || !strcmp(role, "leaf")) {
		if (argc < 3) {
			eth_usage(stderr);
			return EXIT_USAGE;
		}
		sub = argv[2];
		first = 3;
	} else if (!strcmp(role, "status") || !strcmp(role, "flows")) {
		first = 2;
	} else if (!strcmp(role, "help") || !strcmp(role, "--help")) {
		eth_usage(stdout);
		return EXIT_OK;
	} else {
		fprintf(stderr, "dcbpf ethereal: unknown subcommand '%s'\n", role);
		eth_usage(stderr);
		return EXIT_USAGE;
	}
	optind = first;
	while ((c = getopt_long(argc, argv, "+", lopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'n': o.netns = optarg; break;
		case 'm': o.mode = optarg; break;
		case 'l':	/* repeatable: joined with commas */
			if (strlen(leafbuf) + strlen(optarg) + 2 > sizeof(leafbuf)) {
				fprintf(stderr, "dcbpf ethereal: too many --leaf entries\n");
				return EXIT_USAGE;
			}
			if (leafbuf[0])
				strcat(leafbuf, ",");
			strcat(leafbuf, optarg);
			o.leaf = leafbuf;
			break;
		case 'g': o.cgroup = optarg; break;
		case 'P': o.ports = optarg; break;
		case 'U': o.uplinks = optarg; break;
		case 'L': o.no_links = true; break;
		case 'j': o.json = true; break;
		case 'p': case 'i': case 'a':
			v = strtol(optarg, &end, 10);
			if (*end || optarg[0] == '\0' || v < 0 || v > 3600000) {
				fprintf(stderr, "dcbpf ethereal: '%s' is not a number in 0..3600000\n", optarg);
				return EXIT_USAGE;
			}
			if (c == 'p')
				o.paths = v ? v : -1;
			else if (c == 'i')
				o.idle_ms = v;
			else
				o.avoid_ms = v;
			break;
		default:
			eth_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (!strcmp(role, "status")) {
		if (optind != argc) {
			eth_usage(stderr);
			return EXIT_USAGE;
		}
		return cmd_status(pin_dir, &o);
	}
	if (!strcmp(role, "flows")) {
		if (optind != argc) {
			eth_usage(stderr);
			return EXIT_USAGE;
		}
		return cmd_flows(pin_dir, &o);
	}
	if (!strcmp(role, "host")) {
		if (!strcmp(sub, "set") && optind == argc)
			return host_set(pin_dir, &o);
		if (optind != argc - 1 || (strcmp(sub, "attach") && strcmp(sub, "detach"))) {
			fprintf(stderr, "dcbpf ethereal host %s: expected one IFACE (the host's "
					"interface) after the options\n", sub);
			eth_usage(stderr);
			return EXIT_USAGE;
		}
		return !strcmp(sub, "attach") ? host_attach(pin_dir, &o, argv[optind]) :
						host_detach(pin_dir, &o, argv[optind]);
	}
	if (optind != argc || (strcmp(sub, "attach") && strcmp(sub, "detach"))) {
		eth_usage(stderr);
		return EXIT_USAGE;
	}
	return !strcmp(sub, "attach") ? leaf_attach(pin_dir, &o) : leaf_detach(pin_dir, &o);
}
