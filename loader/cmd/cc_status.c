// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf status`: the daemon, the kernel's ABI and features, the CCs'
 * registration, the pinned maps, host INT attachments, the counters and
 * the switches, as text or one JSON object.
 */
#include <dirent.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "attach.h"
#include "ccmd.h"
#include "cli.h"
#include "features.h"
#include "foreign.h"
#include "object.h"
#include "int/inthost.h"
#include "sw/swctl.h"

static const char *map_type_name(__u32 t)
{
	switch (t) {
	case BPF_MAP_TYPE_HASH:
		return "hash";
	case BPF_MAP_TYPE_ARRAY:
		return "array";
	case BPF_MAP_TYPE_LRU_HASH:
		return "lru_hash";
	case DC_BPF_MAP_TYPE_STRUCT_OPS:
		return "struct_ops";
	default:
		return "other";
	}
}

static long count_entries(int fd, __u32 key_size)
{
	unsigned char key[64], next[64];
	void *prev = NULL;
	long n = 0;

	if (key_size > sizeof(key))
		return -1;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, key_size);
		prev = key;
		if (++n > 10000000)
			break;
	}
	return n;
}

struct cc_status {
	bool available;
	bool link_pinned, map_pinned;
	__u32 link_id, map_id;
	int ops_state;
};

static void probe_cc(struct dc_ctx *ctx, const struct dc_cc_reg *cc, struct cc_status *st)
{
	char path[DC_PATH_LEN + 32];
	int fd;

	memset(st, 0, sizeof(*st));
	st->ops_state = -1;
	st->available = dc_cc_available(cc->name);
	dc_path(path, sizeof(path), ctx->pin_dir, cc->link_pin);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		st->link_pinned = !dc_link_struct_ops(fd, &st->link_id, &st->map_id);
		close(fd);
	}
	dc_path(path, sizeof(path), ctx->pin_dir, cc->ops_map);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		st->map_pinned = true;
		st->ops_state = dc_struct_ops_state(fd);
		dc_map_name(fd, NULL, 0, NULL, &st->map_id);
		close(fd);
	}
}

/*
 * Host INT attachments pinned under pin_dir/int/<netns|host>/, whoever made
 * them (dcbpfd's [int] or dcbpf attach): ids of the egress and ingress
 * links (tcx) or programs (netlink), 0 where a hook is missing.
 */
static void status_int(struct dc_ctx *ctx)
{
	char dir[DC_PATH_LEN + 8], names[256][16];
	struct dirent *de;
	DIR *dp;
	int i, n;

	snprintf(dir, sizeof(dir), "%s/int", ctx->pin_dir);
	if (ctx->json)
		jw_arr(&ctx->jw, "int_attachments");
	else
		fprintf(ctx->out, "%-16s %-16s %8s %8s\n", "int netns", "interface", "egress",
			"ingress");
	dp = opendir(dir);
	while (dp && (de = readdir(dp))) {
		const char *ns = strcmp(de->d_name, "host") ? de->d_name : NULL;

		if (de->d_name[0] == '.')
			continue;
		n = dc_int_host_pinned(ctx->pin_dir, ns, names, 256);
		for (i = 0; i < n; i++) {
			__u32 ids[2] = { 0, 0 }, idx = 0;
			char why[256];

			struct dc_foreign fp[16];
			int j, nf = 0;

			if (!dc_ifindex(ns, names[i], &idx, why, sizeof(why))) {
				dc_int_host_state(ctx->pin_dir, ns, names[i], idx, ids);
				nf = dc_foreign_list(ns, names[i], fp, 16, why, sizeof(why));
				if (nf < 0)
					nf = 0;
			}
			if (ctx->json) {
				jw_obj(&ctx->jw, NULL);
				jw_str(&ctx->jw, "netns", ns ? ns : "");
				jw_str(&ctx->jw, "ifname", names[i]);
				jw_u64(&ctx->jw, "egress", ids[0]);
				jw_u64(&ctx->jw, "ingress", ids[1]);
				/* programs on the interface that are not ours */
				jw_arr(&ctx->jw, "foreign");
				for (j = 0; j < nf; j++) {
					jw_obj(&ctx->jw, NULL);
					jw_str(&ctx->jw, "hook", fp[j].hook);
					jw_u64(&ctx->jw, "id", fp[j].id);
					jw_str(&ctx->jw, "name", fp[j].name);
					jw_u64(&ctx->jw, "prio", fp[j].prio);
					jw_end_obj(&ctx->jw);
				}
				jw_end_arr(&ctx->jw);
				jw_end_obj(&ctx->jw);
			} else {
				fprintf(ctx->out, "%-16s %-16s %8u %8u%s\n", ns ? ns : "(own)",
					names[i], ids[0], ids[1], idx ? "" : "  (interface gone)");
				for (j = 0; j < nf; j++)
					fprintf(ctx->out, "  foreign %-11s id %u name %s%s%.0u\n", fp[j].hook,
						fp[j].id, fp[j].name[0] ? fp[j].name : "?",
						fp[j].prio ? " prio " : "", fp[j].prio);
			}
		}
	}
	if (dp)
		closedir(dp);
	if (ctx->json)
		jw_end_arr(&ctx->jw);
}

/* What the kernel offers and which CCs are registered, pinned or neither. */
struct status_head {
	pid_t pid;
	int nargs;
	const struct dc_obj_variant *v;
	bool links;
	struct cc_status st[DC_CC_REGS_MAX];
	char avail[1024];
	struct dc_features feat;
};

static void status_head_json(struct dc_ctx *ctx, const struct status_head *h)
{
	unsigned int i;

	jw_obj(&ctx->jw, "daemon");
	jw_bool(&ctx->jw, "running", h->pid > 0);
	if (h->pid > 0)
		jw_u64(&ctx->jw, "pid", (__u64)h->pid);
	jw_str(&ctx->jw, "lock_file", dc_cli(ctx)->cfg.daemon.lock_file);
	jw_end_obj(&ctx->jw);
	jw_str(&ctx->jw, "pin_dir", ctx->pin_dir);
	jw_obj(&ctx->jw, "abi");
	jw_u64(&ctx->jw, "cong_control_args", h->nargs > 0 ? (__u64)h->nargs : 0);
	if (h->v)
		jw_str(&ctx->jw, "object", h->v->name);
	else
		jw_null(&ctx->jw, "object");
	jw_bool(&ctx->jw, "struct_ops_links", h->links);
	jw_end_obj(&ctx->jw);
	dc_features_json(&h->feat, &ctx->jw);
	jw_str(&ctx->jw, "available_ccs", h->avail);
	jw_obj(&ctx->jw, "ccs");
	for (i = 0; i < dc_ncc_regs; i++) {
		jw_obj(&ctx->jw, dc_cc_regs[i].name);
		jw_bool(&ctx->jw, "registered", h->st[i].available);
		jw_str(&ctx->jw, "pinned", h->st[i].link_pinned ? "link" :
					h->st[i].map_pinned ? "struct_ops_map" : "none");
		if (h->st[i].link_pinned)
			jw_u64(&ctx->jw, "link_id", h->st[i].link_id);
		if (h->st[i].link_pinned || h->st[i].map_pinned)
			jw_u64(&ctx->jw, "map_id", h->st[i].map_id);
		jw_end_obj(&ctx->jw);
	}
	jw_end_obj(&ctx->jw);
}

static void status_head_text(struct dc_ctx *ctx, const struct status_head *h)
{
	unsigned int i;

	if (h->pid > 0)
		fprintf(ctx->out, "daemon:        running, pid %d (lock %s)\n", (int)h->pid,
			dc_cli(ctx)->cfg.daemon.lock_file);
	else
		fprintf(ctx->out, "daemon:        not running (lock %s%s)\n",
			dc_cli(ctx)->cfg.daemon.lock_file, h->pid < 0 ? " unreadable" : " free");
	fprintf(ctx->out, "pin dir:       %s%s\n", ctx->pin_dir,
		dc_exists(ctx->pin_dir) ? "" : " (absent)");
	fprintf(ctx->out, "kernel ABI:    %s\n",
		h->nargs > 0 ? dc_abi_desc(h->nargs) : "unknown (no vmlinux BTF)");
	fprintf(ctx->out, "registration:  %s\n", h->links ? "struct_ops links (6.4+)" :
					       "struct_ops map update (no links in this kernel)");
	dc_features_print(&h->feat, ctx->out);
	fprintf(ctx->out, "%-16s %-11s %s\n", "cc", "registered", "pinned registration");
	for (i = 0; i < dc_ncc_regs; i++) {
		char pin[128];

		if (h->st[i].link_pinned)
			snprintf(pin, sizeof(pin), "%s (link id %u, struct_ops map id %u)",
				 dc_cc_regs[i].link_pin, h->st[i].link_id, h->st[i].map_id);
		else if (h->st[i].map_pinned)
			snprintf(pin, sizeof(pin), "%s (struct_ops map id %u, %s)",
				 dc_cc_regs[i].ops_map, h->st[i].map_id,
				 h->st[i].ops_state == DC_STRUCT_OPS_STATE_INUSE ? "in use" :
									      "not registered");
		else
			snprintf(pin, sizeof(pin), "%s",
				 h->st[i].available ? "none (registered by someone else)" : "none");
		fprintf(ctx->out, "%-16s %-11s %s\n", dc_cc_regs[i].name,
			h->st[i].available ? "yes" : "no", pin);
	}
	fprintf(ctx->out, "available CCs: %s\n", h->avail);
}

/* Pinned maps: the names the objects pin by name, those present. */
static void status_maps(struct dc_ctx *ctx)
{
	char maps[64][32];
	unsigned int i;
	int nmaps;

	nmaps = dc_obj_pinned_map_names(maps, 64);
	if (ctx->json)
		jw_arr(&ctx->jw, "maps");
	else
		fprintf(ctx->out, "%-14s %-6s %-10s %s\n", "map", "id", "type", "entries");
	for (i = 0; i < (unsigned int)nmaps; i++) {
		char path[DC_PATH_LEN + 32];
		struct bpf_map_info info;
		__u32 ilen = sizeof(info);
		long n = -1;
		int fd;

		dc_path(path, sizeof(path), ctx->pin_dir, maps[i]);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &ilen))
			n = info.type == BPF_MAP_TYPE_ARRAY ? (long)info.max_entries :
							     count_entries(fd, info.key_size);
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "name", maps[i]);
			jw_bool(&ctx->jw, "pinned", true);
			jw_u64(&ctx->jw, "id", info.id);
			jw_str(&ctx->jw, "type", map_type_name(info.type));
			jw_u64(&ctx->jw, "entries", n < 0 ? 0 : (__u64)n);
			jw_u64(&ctx->jw, "max_entries", info.max_entries);
			jw_end_obj(&ctx->jw);
		} else {
			fprintf(ctx->out, "%-14s %-6u %-10s %ld/%u\n", maps[i], info.id,
				map_type_name(info.type), n, info.max_entries);
		}
		close(fd);
	}
	if (ctx->json)
		jw_end_arr(&ctx->jw);
}

int dc_cc_status_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	struct dc_cc_counters stats[DC_CC_MAX];
	char path[DC_PATH_LEN + 32];
	static struct status_head h;
	bool have_stats = false;
	unsigned int i;

	(void)argc;
	(void)argv;
	memset(&h, 0, sizeof(h));
	h.pid = dc_lock_holder(dc_cli(ctx)->cfg.daemon.lock_file);
	h.nargs = dc_kernel_cong_control_nargs();
	h.v = h.nargs > 0 ? dc_obj_variant_for(h.nargs) : NULL;
	h.links = dc_kernel_has_struct_ops_link();
	dc_features_detect(&h.feat);
	dc_cc_available_list(h.avail, sizeof(h.avail));
	for (i = 0; i < dc_ncc_regs; i++)
		probe_cc(ctx, &dc_cc_regs[i], &h.st[i]);

	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		status_head_json(ctx, &h);
	} else {
		status_head_text(ctx, &h);
	}
	status_maps(ctx);
	status_int(ctx);

	dc_path(path, sizeof(path), ctx->pin_dir, DC_MAP_STATS);
	if (dc_exists(path)) {
		have_stats = !cc_read_counters(ctx, stats);
		if (!have_stats) {	/* the rest of the status still stands */
			fprintf(ctx->errf, "dcbpf status: %s\n", ctx->err.msg);
			dc_err_clear(&ctx->err);
		}
	}
	if (ctx->json) {
		if (have_stats) {
			jw_obj(&ctx->jw, "counters");
			cc_print_counters(ctx, stats);
			jw_end_obj(&ctx->jw);
		}
		dc_sw_status_brief(ctx->pin_dir, true, &ctx->jw);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		if (have_stats)
			cc_print_counters(ctx, stats);
		dc_sw_status_brief(ctx->pin_dir, false, &ctx->jw);
	}
	return EXIT_OK;
}
