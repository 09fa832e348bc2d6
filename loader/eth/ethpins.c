// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where Ethereal's state is pinned, and its TC hooks (ethpriv.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "dcbpf/ethereal.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "eth/ethpriv.h"
#include "pins.h"

static const char *const mode_names[] = { "ecmp", "ethereal", "spray", "reps" };

const char *dc_eth_mode_name(__u32 mode)
{
	return mode < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[mode] : "?";
}

int dc_eth_ns_dir(char *buf, size_t len, const char *pin_dir, const char *netns,
		  struct dc_err *err)
{
	return dc_pin_ns_dir(buf, len, pin_dir, DC_PIN_ETH, netns, err);
}

int dc_eth_open_pinned(const char *dir, const char *name)
{
	char path[DC_PATH_LEN * 4];
	int fd, rc = dc_pin_map_path(path, sizeof(path), dir, name);

	if (rc)
		return rc;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

void dc_eth_unpin(const char *pin_dir, const char *dir, bool host)
{
	char base[DC_PATH_LEN * 2];
	struct dc_err ignored = { 0 };

	/* the host's and the leaf's maps may share a namespace's directory */
	dc_pins_unpin(dir, host ? "ethereal" : "eth_leaf", host ? "eth_leaf" : "ethereal", true,
		      &ignored);
	if (!dc_pin_dir(base, sizeof(base), pin_dir, DC_PIN_ETH_BASE, NULL))
		rmdir(base);
}

int dc_eth_link_pin(char *buf, size_t len, const char *dir, const char *ifname,
		    const char *hook, struct dc_err *err)
{
	if (dc_link_pin(buf, len, dir, ifname, hook))
		return dc_err_set(err, EXIT_ERR, "%s: cannot pin a link for this interface name "
				  "(bpffs takes no '/' or '.')", ifname);
	return 0;
}

int dc_eth_attach_tc(int prog_fd, enum dc_hook hook, const char *netns, const char *ifname,
		     const char *pin, bool no_links, struct dc_err *err)
{
	struct dc_attach a = { .hook = hook, .netns = netns, .ifname = ifname, .pin_path = pin,
			       .no_links = no_links, .tc_prio = DC_ETH_TC_PRIO,
			       .link_flags = DC_BPF_F_BEFORE };
	enum dc_attach_how how;
	char why[512];
	int rc = dc_attach_prog(prog_fd, &a, &how, why, sizeof(why));

	if (rc)
		dc_err_set(err, EXIT_ERR, "%s", why);
	return rc;
}

void dc_eth_detach_tc(enum dc_hook hook, const char *netns, const char *ifname, const char *pin)
{
	struct dc_attach a = { .hook = hook, .netns = netns, .ifname = ifname,
			       .tc_prio = DC_ETH_TC_PRIO };

	if (access(pin, F_OK) == 0)
		dc_detach_pinned(pin);
	else
		dc_detach_netlink(&a);
}
