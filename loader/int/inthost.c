// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host INT programs on interfaces (see inthost.h): the one place that
 * knows the pin layout, so the CLI and the daemon find each other's
 * attachments.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "bpfsys.h"
#include "config.h"
#include "int/inthost.h"
#include "object.h"
#include "pins.h"
#include "int.skel.h"

struct dc_int_host {
	struct int_bpf *skel;
	char pin_dir[DC_PATH_LEN];
};

/* suffix: the link (tcx); tc: the program on the netlink path, where there
 * is no link, so both paths leave a record the daemon and the CLI can list */
static const struct {
	enum dc_hook hook;
	const char *suffix, *tc;
} hooks[2] = {
	{ DC_HOOK_TC_EGRESS, "egress", "egress_tc" },
	{ DC_HOOK_TC_INGRESS, "ingress", "ingress_tc" },
};

int dc_int_host_dir(char *buf, size_t len, const char *pin_dir, const char *netns)
{
	return dc_pin_dir(buf, len, pin_dir, DC_PIN_INT, netns);
}

/* The pin of hook h on ifname (tc: the program's, netlink path); -errno for a
 * name bpffs refuses (a dot, as in eth0.100) or too long. */
static int hook_pin(char *buf, size_t len, const char *pin_dir, const char *netns,
		    const char *ifname, int h, bool tc)
{
	char dir[DC_PATH_LEN * 2];
	int rc = dc_int_host_dir(dir, sizeof(dir), pin_dir, netns);

	return rc ? rc : dc_link_pin(buf, len, dir, ifname, tc ? hooks[h].tc : hooks[h].suffix);
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

struct dc_int_host *dc_int_host_open(const char *pin_dir, __u32 flows_max, char *why,
				     size_t whylen)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .pin_root_path = pin_dir);
	struct dc_errbuf notes = { .len = 0 };
	struct dc_int_host *h = calloc(1, sizeof(*h));
	char path[DC_PATH_LEN + 32];

	if (!h) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	snprintf(h->pin_dir, sizeof(h->pin_dir), "%s", pin_dir);
	h->skel = int_bpf__open_opts(&o);
	if (!h->skel) {
		snprintf(why, whylen, "cannot open the INT object: %s", strerror(errno));
		free(h);
		return NULL;
	}
	if (!flows_max) {
		dc_pin_map_path(path, sizeof(path), pin_dir, "dc_cc_flows");
		flows_max = dc_pinned_max_entries(path);
	}
	if (!flows_max)
		flows_max = DC_FLOWS_MAX_DEFAULT;
	/* a pinned map of another size is reused as it is (notes unused here:
	 * the daemon reports sizes where it loads the CC object) */
	dc_obj_size_flow_maps(h->skel->obj, flows_max, &notes);
	if (int_bpf__load(h->skel)) {
		snprintf(why, whylen, "loading the INT programs failed: %s (a map pinned in %s "
				      "with another layout? stop dcbpfd, remove stale pins)",
			 strerror(errno), pin_dir);
		int_bpf__destroy(h->skel);
		free(h);
		return NULL;
	}
	return h;
}

void dc_int_host_close(struct dc_int_host *h)
{
	if (!h)
		return;
	/* links (or the netlink filters) keep the programs; the maps stay pinned */
	int_bpf__destroy(h->skel);
	free(h);
}

static void detach_hook(const char *pin_dir, const char *netns, const char *ifname, int h)
{
	struct dc_attach a = { .hook = hooks[h].hook, .netns = netns, .ifname = ifname };
	char pin[DC_PATH_LEN * 3];

	if (hook_pin(pin, sizeof(pin), pin_dir, netns, ifname, h, false))
		return;	/* nothing can be pinned under such a name */
	if (access(pin, F_OK) == 0) {
		dc_detach_pinned(pin);
		return;
	}
	/* attached without links (old kernel or --no-links) */
	dc_detach_netlink(&a);
	if (!hook_pin(pin, sizeof(pin), pin_dir, netns, ifname, h, true))
		unlink(pin);
}

void dc_int_host_detach(const char *pin_dir, const char *netns, const char *ifname)
{
	int h;

	for (h = 0; h < 2; h++)
		detach_hook(pin_dir, netns, ifname, h);
}

int dc_int_host_attach(struct dc_int_host *hs, const char *netns, const char *ifname,
		       bool no_links, char *why, size_t whylen)
{
	int fds[2] = { bpf_program__fd(hs->skel->progs.dc_int_hout),
		       bpf_program__fd(hs->skel->progs.dc_int_hin) };
	const char *root = hs->pin_dir;
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 3];
	enum dc_attach_how how;
	int h, k = 0, err;

	err = dc_int_host_dir(dir, sizeof(dir), root, netns);
	if (err) {
		snprintf(why, whylen, "network namespace '%s': not usable as a pin directory name "
			 "(bpffs takes no '/' or '.')", netns);
		return err;
	}
	err = hook_pin(pin, sizeof(pin), root, netns, ifname, 0, true);
	if (err) {
		snprintf(why, whylen, "interface '%s': cannot pin a link under this name (bpffs "
			 "takes no '/' or '.')", ifname);
		return err;
	}
	err = dc_mkdirs(dir);
	if (err) {
		snprintf(why, whylen, "cannot create %s: %s", dir, strerror(-err));
		return err;
	}
	for (h = 0; h < 2; h++) {
		struct dc_attach a = { .hook = hooks[h].hook, .netns = netns, .ifname = ifname,
				       .pin_path = pin, .no_links = no_links };

		hook_pin(pin, sizeof(pin), root, netns, ifname, h, false);	/* checked above */
		err = dc_attach_prog(fds[h], &a, &how, why, whylen);
		if (!err && how == DC_ATTACHED_NETLINK) {
			hook_pin(pin, sizeof(pin), root, netns, ifname, h, true);
			if (bpf_obj_pin(fds[h], pin)) {
				err = -errno;
				snprintf(why, whylen, "pinning %s: %s", pin, strerror(errno));
				k = h + 1; /* this hook is attached too */
				goto undo;
			}
		}
		if (err) {
			k = h;
			goto undo;
		}
	}
	return 0;
undo:
	/* all or nothing: take back the hooks this call attached */
	while (--k >= 0)
		detach_hook(root, netns, ifname, k);
	return err;
}

int dc_int_host_state(const char *pin_dir, const char *netns, const char *ifname,
		      __u32 ifindex, __u32 ids[2])
{
	char pin[DC_PATH_LEN * 3];
	int h, n = 0;

	for (h = 0; h < 2; h++) {
		struct dc_attach a = { .hook = hooks[h].hook, .netns = netns, .ifname = ifname };
		__u32 id = 0, idx = 0;
		int fd;

		ids[h] = 0;
		if (hook_pin(pin, sizeof(pin), pin_dir, netns, ifname, h, false))
			continue;
		fd = bpf_obj_get(pin);
		if (fd >= 0) {
			/* a link whose device went away (or was recreated under
			 * the same name) no longer counts */
			if (!dc_link_ifindex(fd, &id, &idx) && idx && idx == ifindex) {
				ids[h] = id;
				n++;
			}
			close(fd);
			continue;
		}
		hook_pin(pin, sizeof(pin), pin_dir, netns, ifname, h, true);
		fd = bpf_obj_get(pin);
		/* the filter must still be there and run the pinned program */
		if (!dc_tc_query(&a, &id) && (fd < 0 || id == prog_id(fd))) {
			ids[h] = id;
			n++;
		}
		if (fd >= 0)
			close(fd);
	}
	return n;
}

int dc_int_host_pinned(const char *pin_dir, const char *netns, char (*names)[16], int max)
{
	char dir[DC_PATH_LEN * 2];
	struct dirent *de;
	int n = 0, k;
	DIR *d;

	if (dc_int_host_dir(dir, sizeof(dir), pin_dir, netns))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		size_t l = strlen(de->d_name);
		char *us;

		if (l > 3 && !strcmp(de->d_name + l - 3, "_tc"))
			de->d_name[l - 3] = '\0';
		us = strrchr(de->d_name, '_');
		if (de->d_name[0] == '.' || !us || (strcmp(us, "_egress") && strcmp(us, "_ingress")) ||
		    us - de->d_name >= 16)
			continue;
		*us = '\0';
		for (k = 0; k < n && strcmp(names[k], de->d_name); k++)
			;
		if (k == n)
			memcpy(names[n++], de->d_name, (size_t)(us - de->d_name) + 1);
	}
	closedir(d);
	return n;
}

void dc_int_host_tidy(const char *pin_dir, const char *netns)
{
	char path[DC_PATH_LEN * 2];
	struct dc_err ignored = { 0 };

	if (!dc_int_host_dir(path, sizeof(path), pin_dir, netns))
		rmdir(path);
	if (dc_pin_dir(path, sizeof(path), pin_dir, DC_PIN_INT_BASE, NULL) ||
	    (rmdir(path) && errno != ENOENT))
		return; /* other namespaces still attached */
	/* the maps only the host programs use; the CC object's stay */
	dc_pins_unpin(pin_dir, "int", "powertcp", false, &ignored);
}
