// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dcbpfd: start, reload (SIGHUP), stop, and the metrics_file timer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/timerfd.h>
#include <bpf/libbpf.h>

#include "bpfsys.h"
#include "log.h"
#include "attach.h"
#include "int/inthost.h"
#include "metrics/metrics.h"
#include "perc/perchost.h"
#include "pins.h"
#include "dcbpfd/dcbpfd.h"

/* ---- metrics_file ------------------------------------------------------- */

void dmn_metrics_arm(struct daemon *d)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (d->timer_fd < 0)
		d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (d->timer_fd < 0) {
		dc_err("metrics_file: timerfd: %s", strerror(errno));
		return;
	}
	if (d->cfg.daemon.metrics_file[0]) {
		its.it_interval.tv_sec = d->cfg.daemon.metrics_interval_s;
		its.it_value.tv_nsec = 1; /* first write now */
	}
	timerfd_settime(d->timer_fd, 0, &its, NULL);
}

void dmn_metrics_write(struct daemon *d, bool up)
{
	struct dc_err err;

	if (!d->cfg.daemon.metrics_file[0])
		return;
	if (dc_metrics_write(d->cfg.daemon.pin_dir, up, d->cfg.daemon.metrics_file, &err))
		dc_warn("metrics_file %s not written (%s); retried in %u s",
			d->cfg.daemon.metrics_file, err.msg, d->cfg.daemon.metrics_interval_s);
	else if (dc_err_is_set(&err))
		dc_warn("%s", err.msg);
}

/* ---- [perc]: live capacities ------------------------------------------- */

/*
 * The capacities of [perc] into the links' dc_perc_lcfg, all or none
 * (dc_perc_set_caps).  The links are attached with `dcbpf perc attach`, not
 * by the daemon.  On success *out holds what was applied, with the
 * capacities before, so a reload that fails later can put them back.
 * 0: applied (or nothing to apply); -1: nothing changed, the reason logged.
 */
static int perc_apply(struct daemon *d, const struct dc_perc_cfg *pc, struct dc_perc_cap *out,
		      unsigned int *nout, const char *why_now)
{
	const char *s = pc->capacities;
	char tok[128], why[160];
	struct dc_err err = { 0 };
	unsigned int n = 0, i;

	*nout = 0;
	while (n < DC_PERC_LINKS_MAX && dc_list_next(&s, tok, sizeof(tok))) {
		memset(&out[n], 0, sizeof(out[n]));
		if (dc_perc_cap_parse(tok, out[n].dev, sizeof(out[n].dev), &out[n].cap_kbps, why,
				      sizeof(why))) {
			dc_err("%s: [perc] capacities: %s", why_now, why);
			return -1;
		}
		n++;
	}
	if (!n)
		return 0;
	if (dc_perc_set_caps(d->cfg.daemon.pin_dir, pc->netns, out, n, &err)) {
		dc_err("%s: [perc] capacities not applied: %s", why_now, err.msg);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (out[i].old_kbps != out[i].cap_kbps)
			dc_info("perc.%s: link %u cap_kbps %llu -> %llu (%s)", out[i].dev, out[i].link,
				(unsigned long long)out[i].old_kbps,
				(unsigned long long)out[i].cap_kbps, why_now);
	*nout = n;
	return 0;
}

/* A reload that failed after perc_apply: the capacities before it. */
static void perc_undo(struct daemon *d, const char *netns, struct dc_perc_cap *c, unsigned int n)
{
	struct dc_err err = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++)
		c[i].cap_kbps = c[i].old_kbps;
	if (n && dc_perc_set_caps(d->cfg.daemon.pin_dir, netns, c, n, &err))
		dc_warn("reload: [perc] capacities not put back: %s", err.msg);
}

/* ---- lifecycle ---------------------------------------------------------- */

static void list_leftovers(const char *dir)
{
	struct dirent *de;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			dc_warn("left in %s: %s (not dcbpfd's)", dir, de->d_name);
	closedir(dp);
}

static void remove_pin_dir(struct daemon *d)
{
	if (!rmdir(d->cfg.daemon.pin_dir)) {
		dc_info("removed %s", d->cfg.daemon.pin_dir);
		return;
	}
	if (errno == ENOTEMPTY || errno == EEXIST)
		list_leftovers(d->cfg.daemon.pin_dir);
	else if (errno != ENOENT)
		dc_warn("cannot remove %s: %s", d->cfg.daemon.pin_dir, strerror(errno));
}

void dmn_close_all(struct daemon *d)
{
	unsigned int i;

	for (i = 0; i < dc_ncc_regs; i++) {
		if (d->reg[i].link_fd >= 0)
			close(d->reg[i].link_fd);
		if (d->reg[i].map_fd >= 0)
			close(d->reg[i].map_fd);
		d->reg[i].link_fd = d->reg[i].map_fd = -1;
	}
	if (d->cfg_fd >= 0)
		close(d->cfg_fd);
	d->cfg_fd = -1;
	for (i = 0; i < dc_ncc_objects; i++) {
		bpf_object__close(d->obj[i]);
		d->obj[i] = NULL;
	}
	for (i = 0; i < d->nnew_pins; i++)
		free(d->new_pins[i]);
	d->nnew_pins = 0;
}

/* A start that failed: undo exactly what this run did. */
void dmn_undo_start(struct daemon *d)
{
	unsigned int i;

	for (i = 0; i < dc_ncc_regs; i++)
		if (d->reg[i].registered)
			dmn_unregister_cc(d, &dc_cc_regs[i]);
	if (d->cfg_fd >= 0)
		for (i = 0; i < DC_CC_MAX; i++)
			if (d->prev_valid[i])
				dc_cfg_write(d->cfg_fd, (enum dc_cc_id)i, &d->prev[i]);
	for (i = 0; i < d->nnew_pins; i++) {
		if (unlink(d->new_pins[i]) && errno != ENOENT)
			dc_warn("cannot unpin %s: %s", d->new_pins[i], strerror(errno));
		else
			dc_dbg("unpinned %s", d->new_pins[i]);
	}
	dmn_close_all(d);
	if (d->pin_dir_created && rmdir(d->cfg.daemon.pin_dir) && errno != ENOENT)
		list_leftovers(d->cfg.daemon.pin_dir);
	dc_info("start failed; nothing left registered or pinned by this run");
}

/* A normal stop without --keep: the daemon owns everything it pinned or adopted. */
void dmn_stop_full(struct daemon *d)
{
	char path[DC_PATH_LEN + 32], maps[64][32];
	unsigned int i;
	int nmaps;

	dmn_int_stop(d);
	for (i = 0; i < dc_ncc_regs; i++)
		if (d->reg[i].registered || d->reg[i].adopted)
			dmn_unregister_cc(d, &dc_cc_regs[i]);
	/* whatever the objects pin by name, so a map added to them is removed too */
	nmaps = dc_obj_pinned_map_names(maps, 64);
	for (i = 0; i < (unsigned int)nmaps; i++) {
		dmn_pin_path(d, maps[i], path, sizeof(path));
		if (!unlink(path))
			dc_dbg("unpinned %s", path);
		else if (errno != ENOENT)
			dc_warn("cannot unpin %s: %s", path, strerror(errno));
	}
	for (i = 0; i < d->nnew_pins; i++)
		unlink(d->new_pins[i]);
	dmn_close_all(d);
	remove_pin_dir(d);
}

int dmn_start(struct daemon *d)
{
	const char *pin_dir = d->cfg.daemon.pin_dir;
	bool need_load[DC_CC_OBJECTS_MAX] = { false }, loaded = false;
	unsigned int i;
	int err, rc;

	err = dc_bpffs_ensure();
	if (err) {
		dc_err("cannot mount bpffs at %s: %s", DC_BPFFS_ROOT, strerror(-err));
		return EXIT_RUNTIME;
	}
	err = dc_pin_dir_prepare(pin_dir, &d->pin_dir_created);
	if (err) {
		dc_err("pin_dir %s: %s", pin_dir,
		       err == -EXDEV ? "not on a bpffs mount (use a path under " DC_BPFFS_ROOT ")" :
				       strerror(-err));
		return EXIT_RUNTIME;
	}
	if (d->cfg.intf.netns[0]) {
		__u32 ino;
		char why[256];

		if (dc_netns_ino(d->cfg.intf.netns, &ino, why, sizeof(why))) {
			dc_err("[int] netns = %s: %s; create it or fix the config", d->cfg.intf.netns, why);
			goto fail_runtime;
		}
	}
	d->nargs = dc_kernel_cong_control_nargs();
	if (d->nargs < 0) {
		dc_err("cannot read tcp_congestion_ops.cong_control from the kernel's BTF "
		       "(/sys/kernel/btf/vmlinux): %s; a kernel with CONFIG_DEBUG_INFO_BTF is required",
		       strerror(-d->nargs));
		goto fail_runtime;
	}
	d->use_links = !d->no_links && dc_kernel_has_struct_ops_link();
	dc_info("kernel %s; registration by %s", dc_abi_desc(d->nargs),
		d->use_links ? "struct_ops links" :
		d->no_links ? "struct_ops map update (--no-links)" :
			      "struct_ops map update (kernel has no struct_ops links)");

	for (i = 0; i < dc_ncc_regs; i++) {
		const struct dc_cc_reg *cc = &dc_cc_regs[i];

		if (dmn_adopt_cc(d, cc))
			goto fail_runtime;
		if (!dmn_cc_wanted(d, cc)) {
			/* switched off since the run that registered it */
			if (d->reg[i].adopted) {
				dc_info("%s: %s = 0: unregistering what an earlier run left", cc->name,
					cc->daemon_switch);
				dmn_unregister_cc(d, cc);
			}
			continue;
		}
		if (d->reg[i].adopted)
			continue;
		need_load[cc->obj] = true;
		if (dc_cc_available(cc->name)) {
			dc_err("%s: the congestion control name is already registered by someone else "
			       "(no dcbpfd registration is pinned under %s): find it with "
			       "`bpftool struct_ops show` and unregister it, or start dcbpfd with the "
			       "pin_dir of the instance that registered it", cc->name, pin_dir);
			rc = EXIT_CONFLICT;
			goto fail;
		}
	}

	/* an object is loaded only for the CCs of it that were not adopted */
	for (i = 0; i < dc_ncc_objects; i++) {
		if (!need_load[i])
			continue;
		loaded = true;
		rc = dmn_load_object(d, i);
		if (rc)
			goto fail;
	}
	if (!loaded) {
		char path[DC_PATH_LEN + 32];
		unsigned int have;

		dc_info("adopted pinned state under %s; nothing loaded", pin_dir);
		dc_pin_map_path(path, sizeof(path), pin_dir, DC_MAP_FLOWS);
		have = dc_pinned_max_entries(path);
		if (have && have != d->cfg.daemon.flows_max)
			dc_warn("flows_max = %u, but the adopted %s has %u entries: the pinned maps "
				"keep their size until they are removed (stop dcbpfd without --keep, "
				"then start it)", d->cfg.daemon.flows_max, path, have);
	}
	{
		char why[512];

		/* loaded or adopted, the config map is the pinned one, checked for
		 * the layout this build writes */
		d->cfg_fd = dc_pinned_map_open(pin_dir, DC_MAP_CFG, BPF_MAP_TYPE_HASH, sizeof(__u32),
					       sizeof(struct dc_cc_cfg), why, sizeof(why));
		if (d->cfg_fd < 0) {
			dc_err("cannot reach the config map: %s", why);
			goto fail_runtime;
		}
	}

	/* config before registration: no socket ever runs on defaults */
	for (i = 0; i < DC_CC_MAX; i++)
		d->prev_valid[i] = !dc_cfg_read(d->cfg_fd, (enum dc_cc_id)i, &d->prev[i]);
	if (dmn_write_cfg(d, d->cfg.cc, "config file"))
		goto fail_runtime;

	for (i = 0; i < dc_ncc_regs; i++) {
		if (d->reg[i].adopted || !dmn_cc_wanted(d, &dc_cc_regs[i]))
			continue;
		rc = dmn_register_cc(d, &dc_cc_regs[i]);
		if (rc)
			goto fail;
	}
	/* the listener first: a device that appears during the first pass is
	 * seen by the next one */
	dmn_int_setup(d);
	dmn_int_reconcile(d, "start");
	dmn_int_destinations(d, "", d->cfg.intf.destinations);
	{
		static struct dc_perc_cap caps[DC_PERC_LINKS_MAX];
		unsigned int n;

		/* the links may be attached after the daemon starts: a failure
		 * is logged, and the next reload applies the file again */
		perc_apply(d, &d->cfg.perc, caps, &n, "start");
	}
	dmn_metrics_arm(d);
	return EXIT_OK;

fail_runtime:
	rc = EXIT_RUNTIME;
fail:
	dmn_undo_start(d);
	return rc;
}

/* 0: applied; -1: the running configuration is kept (the reason is logged). */
int dmn_reload(struct daemon *d)
{
	struct dc_errbuf eb = { .len = 0 };
	struct dc_config nc;
	int r;

	dc_info("SIGHUP: reloading %s", d->conf_path);
	r = dmn_read_config(d, &nc, &eb);
	if (r < 0) {
		dmn_log_errbuf(&eb);
		dc_warn("reload: %s is invalid (%u error(s)); keeping the running configuration",
			d->conf_path, eb.count);
		return -1;
	}
	if (strcmp(nc.daemon.pin_dir, d->cfg.daemon.pin_dir)) {
		dc_warn("reload: pin_dir %s -> %s needs a restart; keeping %s",
			d->cfg.daemon.pin_dir, nc.daemon.pin_dir, d->cfg.daemon.pin_dir);
		memcpy(nc.daemon.pin_dir, d->cfg.daemon.pin_dir, sizeof(nc.daemon.pin_dir));
	}
	if (strcmp(nc.daemon.lock_file, d->cfg.daemon.lock_file)) {
		dc_warn("reload: lock_file %s -> %s needs a restart; keeping %s",
			d->cfg.daemon.lock_file, nc.daemon.lock_file, d->cfg.daemon.lock_file);
		memcpy(nc.daemon.lock_file, d->cfg.daemon.lock_file, sizeof(nc.daemon.lock_file));
	}
	if (nc.daemon.dctcp != d->cfg.daemon.dctcp) {
		dc_warn("reload: dctcp %u -> %u needs a restart; keeping %u", d->cfg.daemon.dctcp,
			nc.daemon.dctcp, d->cfg.daemon.dctcp);
		nc.daemon.dctcp = d->cfg.daemon.dctcp;
	}
	if (nc.daemon.flows_max != d->cfg.daemon.flows_max) {
		dc_warn("reload: flows_max %u -> %u needs a full restart (stop without --keep, start); "
			"keeping %u", d->cfg.daemon.flows_max, nc.daemon.flows_max, d->cfg.daemon.flows_max);
		nc.daemon.flows_max = d->cfg.daemon.flows_max;
	}
	/* everything that can fail is checked before anything is applied */
	if (nc.intf.netns[0]) {
		__u32 ino;
		char why[256];

		if (dc_netns_ino(nc.intf.netns, &ino, why, sizeof(why))) {
			dc_err("reload: [int] netns = %s: %s", nc.intf.netns, why);
			dc_warn("reload: keeping the running configuration");
			return -1;
		}
	}
	{
		static struct dc_perc_cap caps[DC_PERC_LINKS_MAX];
		unsigned int n;

		if (perc_apply(d, &nc.perc, caps, &n, "reload")) {
			dc_warn("reload: keeping the running configuration");
			return -1;
		}
		if (dmn_write_cfg(d, nc.cc, "reload")) {
			perc_undo(d, nc.perc.netns, caps, n);
			dc_warn("reload: config map not updated; keeping the running configuration");
			return -1;
		}
	}
	if (nc.daemon.log_level != d->cfg.daemon.log_level && dc_log_get_level() == d->cfg.daemon.log_level)
		dc_log_set_level(nc.daemon.log_level);
	if (strcmp(nc.intf.netns, d->cfg.intf.netns)) {
		/* the old namespace's configured attachments go with it */
		int i;

		for (i = 0; i < d->nowned; i++)
			dc_int_host_detach(d->cfg.daemon.pin_dir, dmn_int_ns(&d->cfg), d->owned[i]);
		dc_int_host_tidy(d->cfg.daemon.pin_dir, dmn_int_ns(&d->cfg));
		d->nowned = 0;
		dc_info("reload: [int] netns %s -> %s", d->cfg.intf.netns[0] ? d->cfg.intf.netns : "(own)",
			nc.intf.netns[0] ? nc.intf.netns : "(own)");
	}
	{
		struct dc_config old = d->cfg;

		d->cfg = nc;
		if (strcmp(old.intf.netns, nc.intf.netns) || !old.intf.interfaces[0] != !nc.intf.interfaces[0])
			dmn_int_setup(d);
		dmn_int_reconcile(d, "reload");
		dmn_int_destinations(d, old.intf.destinations, nc.intf.destinations);
		if (strcmp(old.daemon.metrics_file, nc.daemon.metrics_file) && old.daemon.metrics_file[0])
			unlink(old.daemon.metrics_file);
		dmn_metrics_arm(d);
	}
	dc_info("reload done");
	return 0;
}
