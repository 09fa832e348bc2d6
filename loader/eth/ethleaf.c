// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ethereal on a leaf (docs/ethereal.md): the steering program on the
 * host-facing ports' ingress, and the uplink table it steers a path tag
 * to.  No printing: the reason goes to a struct dc_err.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
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
#include "eth_leaf.skel.h"

#define PORTS_MAX 64

static const char *ns_name(const char *netns)
{
	return netns ? netns : "(own)";
}

static int split(char *buf, char **out, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
		out[n++] = tok;
	return tok ? -1 : n;
}

/* --ports and --uplinks checked and resolved before anything is loaded. */
static int leaf_plan(const struct dc_eth_leaf_args *a, char *pbuf, char *ubuf, size_t blen,
		     char **ports, int *np, struct dc_eth_uplink *up, int *nu, struct dc_err *err)
{
	char *ups[DC_ETH_TAG_MAX + 1], why[256];
	int i;

	snprintf(pbuf, blen, "%s", a->ports);
	snprintf(ubuf, blen, "%s", a->uplinks);
	*np = split(pbuf, ports, PORTS_MAX);
	*nu = split(ubuf, ups, DC_ETH_TAG_MAX);
	if (*np < 1 || *nu < 1)
		return dc_err_set(err, EXIT_USAGE, "1..%d ports and 1..%d uplinks", PORTS_MAX,
				  DC_ETH_TAG_MAX);
	for (i = 0; i < *nu; i++) {
		char *eq = strchr(ups[i], '=');

		if (!eq || inet_pton(AF_INET, eq + 1, &up[i + 1].nexthop) != 1)
			return dc_err_set(err, EXIT_USAGE, "--uplinks '%s': expected IF=NEXTHOP (the "
					  "spine's IPv4 address on that link)", ups[i]);
		*eq = '\0';
		if (dc_ifindex(a->netns, ups[i], &up[i + 1].ifindex, why, sizeof(why)))
			return dc_err_set(err, EXIT_ERR, "uplink: %s", why);
	}
	for (i = 0; i < *np; i++) {
		__u32 ifx;

		if (dc_ifindex(a->netns, ports[i], &ifx, why, sizeof(why)))
			return dc_err_set(err, EXIT_ERR, "port: %s", why);
	}
	return 0;
}

int dc_eth_leaf_attach(const char *pin_dir, const struct dc_eth_leaf_args *a, struct dc_err *err)
{
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4], pbuf[1024], ubuf[1024], why[256];
	char *ports[PORTS_MAX];
	struct dc_eth_uplink up[DC_ETH_TAG_MAX + 1] = {};
	struct eth_leaf_bpf *s = NULL;
	int np, nu, i, rc, fd;

	rc = leaf_plan(a, pbuf, ubuf, sizeof(pbuf), ports, &np, up, &nu, err);
	if (rc)
		return rc;
	if (dc_eth_ns_dir(dir, sizeof(dir), pin_dir, a->netns, err))
		return EXIT_USAGE;
	for (i = 0; i < np; i++)
		if (dc_eth_link_pin(pin, sizeof(pin), dir, ports[i], "ingress", err))
			return EXIT_ERR;
	fd = dc_eth_open_pinned(dir, "dc_eth_up");
	if (fd >= 0) {
		close(fd);
		return dc_err_set(err, EXIT_ERR, "a leaf is already attached in netns %s (%s); detach "
				  "first", ns_name(a->netns), dir);
	}
	rc = dc_mkdirs(dir);
	if (rc)
		return dc_err_set(err, EXIT_ERR, "cannot create %s: %s", dir, strerror(-rc));
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		s = eth_leaf_bpf__open_opts(&oo);
		if (!s || eth_leaf_bpf__load(s)) {
			dc_err_set(err, EXIT_ERR, "loading the leaf program failed: %s", strerror(errno));
			eth_leaf_bpf__destroy(s);
			dc_eth_unpin(pin_dir, dir, false);
			return EXIT_ERR;
		}
	}
	for (i = 1; i <= nu; i++) {
		__u32 tag = (__u32)i;

		if (bpf_map_update_elem(bpf_map__fd(s->maps.dc_eth_up), &tag, &up[i], BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(s->maps.dc_eth_upif), &up[i].ifindex, &tag,
					BPF_ANY)) {
			dc_err_set(err, EXIT_ERR, "writing uplink %d: %s", i, strerror(errno));
			goto fail;
		}
	}
	for (i = 0; i < np; i++) {
		__u32 ifx, one = 1;

		dc_ifindex(a->netns, ports[i], &ifx, why, sizeof(why));
		dc_eth_link_pin(pin, sizeof(pin), dir, ports[i], "ingress", err);
		if (dc_eth_attach_tc(bpf_program__fd(s->progs.dc_eth_lin), DC_HOOK_TC_INGRESS,
				     a->netns, ports[i], pin, a->no_links, err))
			goto fail;
		bpf_map_update_elem(bpf_map__fd(s->maps.dc_eth_ports), &ifx, &one, BPF_ANY);
	}
	eth_leaf_bpf__destroy(s);
	return EXIT_OK;
fail:
	eth_leaf_bpf__destroy(s);
	dc_eth_leaf_detach(pin_dir, a->netns, NULL);	/* takes back what the port map recorded */
	return EXIT_ERR;
}

int dc_eth_leaf_detach(const char *pin_dir, const char *netns, struct dc_err *err)
{
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4];
	struct dc_err ignored = { 0 };
	__u32 key, next, *prev = NULL;
	struct dirent *de;
	DIR *d;
	int fd;

	if (dc_eth_ns_dir(dir, sizeof(dir), pin_dir, netns, err ? err : &ignored))
		return EXIT_USAGE;
	fd = dc_eth_open_pinned(dir, "dc_eth_ports");
	while (fd >= 0 && !bpf_map_get_next_key(fd, prev, &next)) {
		char name[IF_NAMESIZE] = "", why[256];
		int saved;

		if (!dc_netns_enter(netns, &saved, why, sizeof(why))) {
			if (!if_indextoname(next, name))
				name[0] = '\0';
			dc_netns_leave(saved);
		}
		if (name[0] && !dc_eth_link_pin(pin, sizeof(pin), dir, name, "ingress", &ignored)) {
			dc_eth_detach_tc(DC_HOOK_TC_INGRESS, netns, name, pin);
		}
		key = next;
		prev = &key;
	}
	if (fd >= 0)
		close(fd);
	/* links of ports that vanished since */
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 8 && !strcmp(de->d_name + l - 8, "_ingress")) {
			dc_pin_path(pin, sizeof(pin), dir, de->d_name);
			dc_detach_pinned(pin);
		}
	}
	if (d)
		closedir(d);
	dc_eth_unpin(pin_dir, dir, false);
	return EXIT_OK;
}
