// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbpf: the command line to dcbpfd's pinned state.  Everything reads and
 * writes the pinned maps directly, so it works with or without a running
 * daemon.  Commands and exit codes: docs/cli.md.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dcbpf/fixed.h>

#include "bpfsys.h"
#include "config.h"
#include "cli.h"
#include "credence.h"
#include "trace.h"
#include "attach.h"
#include "intctl.h"
#include "inthost.h"
#include "ethctl.h"
#include "features.h"
#include "json.h"
#include "metrics.h"
#include "object.h"
#include "sim.h"
#include "swctl.h"


struct cli {
	struct dc_config cfg;	/* [daemon] gives pin_dir and lock_file */
	const char *pin_dir;
	bool json;
	struct jw j;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dcbpf [-c FILE] [--pin-dir DIR] [--json] COMMAND\n"
		"  status                      daemon, registered CCs, ABI, pinned maps, counters\n"
		"  get [CC[.KEY]]              live parameters in user units (KEY alone: bare value)\n"
		"  set CC.KEY=VALUE...         change live parameters, all or nothing\n"
		"  dump flows|stats|cfg        per-flow state, counters, raw config entries\n"
		"  params                      the parameter reference (markdown; --json too)\n"
		"  switch up|down|status|list|sample|capture|params ...   emulated switches (docs/cli.md)\n"
		"  get sw.NAME[.KEY], set sw.NAME.KEY=VALUE...    switch parameters, live\n"
		"  sim [OPTIONS]               buffer-sharing simulator (dcbpf sim --help)\n"
		"  credence train|check|show|load|status ...  Credence's drop-predictor models (docs/credence.md)\n"
		"  trace [--csv] [--cc CC] [--count N] [--duration S]\n"
		"                              stream per-ACK CC decisions (ring buffer)\n"
		"  trace --switch NAME [--csv] [--count N] [--duration S]\n"
		"                              stream a switch's admission drops\n"
		"  int attach|detach|switch|dst|status ...\n"
		"                              in-band telemetry on hosts and switches\n"
		"  ethereal host|leaf attach|detach, host set, status, flows ...\n"
		"                              Ethereal path tagging and steering (docs/ethereal.md)\n"
		"  metrics [--textfile PATH]   Prometheus text format (PATH: write, then rename)\n"
		"  attach|detach [--netns NS] IFACE...\n"
		"                              host INT programs on interfaces at run time\n"
		"Options:\n"
		"  -c, --config FILE  read pin_dir and lock_file from FILE (default %s, if present)\n"
		"  -d, --pin-dir DIR  pinned state under DIR (overrides the config)\n"
		"  -j, --json         JSON output (status, get, set, dump, params)\n"
		"CC is powertcp or theta_powertcp; keys: `dcbpf params`.\n"
		"Exit: 0 ok, 1 runtime error, 2 usage error (bad command, key or value).\n",
		DC_CONF_DEFAULT);
}

/* ---- maps ------------------------------------------------------------- */

static int open_map(struct cli *c, const char *name, __u32 type, __u32 ksz, __u32 vsz)
{
	char why[512];
	int fd = dc_pinned_map_open(c->pin_dir, name, type, ksz, vsz, why, sizeof(why));

	if (fd < 0)
		fprintf(stderr, "dcbpf: %s\n", why);
	return fd;
}

static int open_cfg(struct cli *c)
{
	return open_map(c, DC_MAP_CFG, BPF_MAP_TYPE_HASH, sizeof(__u32), sizeof(struct dc_cc_cfg));
}

/* Both entries; a missing one reads as the defaults the CC falls back to. */
static void read_cfgs(int fd, struct dc_cc_cfg *cfg, bool *present)
{
	unsigned int i;

	for (i = 0; i < DC_CC_MAX; i++) {
		present[i] = !dc_cfg_read(fd, (enum dc_cc_id)i, &cfg[i]);
		if (!present[i])
			dc_cc_cfg_defaults(&cfg[i]);
	}
}

/* Open, read both entries, close: for commands that only look. */
static int load_cfgs(struct cli *c, struct dc_cc_cfg *cfg, bool *present)
{
	int fd = open_cfg(c);

	if (fd < 0)
		return -1;
	read_cfgs(fd, cfg, present);
	close(fd);
	return 0;
}

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

/* ---- value formatting --------------------------------------------------- */

static void emit_param(struct cli *c, const char *prefix, const struct dc_param *p,
		       const struct dc_cc_cfg *cfg, bool bare)
{
	char val[64];

	dc_param_format(p, cfg, val, sizeof(val));
	if (c->json)
		jw_raw(&c->j, p->name, val);	/* numeric kinds only in [cc] */
	else if (bare)
		printf("%s\n", val);
	else
		printf("%s.%s = %s\n", prefix, p->name, val);
}

static const struct {
	const char *name;
	size_t off;
} counter_fields[] = {
#define CF(f) { #f, offsetof(struct dc_cc_counters, f) }
	CF(flows_init), CF(flows_released), CF(acks), CF(cwnd_updates), CF(rtt_missing),
	CF(int_acks), CF(theta_fallback), CF(int_stale), CF(mirror_fail), CF(idle_restarts),
#undef CF
};
#define NCOUNTERS (sizeof(counter_fields) / sizeof(counter_fields[0]))

static __u64 counter(const struct dc_cc_counters *s, unsigned int i)
{
	return *(const __u64 *)((const char *)s + counter_fields[i].off);
}

static int read_counters(struct cli *c, struct dc_cc_counters *s)
{
	unsigned int i;
	int fd;

	fd = open_map(c, DC_MAP_STATS, BPF_MAP_TYPE_ARRAY, sizeof(__u32),
		      sizeof(struct dc_cc_counters));
	if (fd < 0)
		return -1;
	for (i = 0; i < DC_CC_MAX; i++) {
		__u32 key = i;

		if (bpf_map_lookup_elem(fd, &key, &s[i]))
			memset(&s[i], 0, sizeof(s[i]));
	}
	close(fd);
	return 0;
}

static void print_counters(struct cli *c, const struct dc_cc_counters *s)
{
	unsigned int i, k;

	if (c->json) {
		for (k = 0; k < DC_CC_MAX; k++) {
			jw_obj(&c->j, dc_ccs[k].name);
			for (i = 0; i < NCOUNTERS; i++)
				jw_u64(&c->j, counter_fields[i].name, counter(&s[k], i));
			jw_end_obj(&c->j);
		}
		return;
	}
	printf("%-16s %16s %16s\n", "counter", dc_ccs[0].name, dc_ccs[1].name);
	for (i = 0; i < NCOUNTERS; i++)
		printf("%-16s %16llu %16llu\n", counter_fields[i].name,
		       (unsigned long long)counter(&s[0], i), (unsigned long long)counter(&s[1], i));
}

/* ---- status ------------------------------------------------------------- */

struct cc_status {
	bool available;
	bool link_pinned, map_pinned;
	__u32 link_id, map_id;
	int ops_state;
};

static void probe_cc(struct cli *c, const struct dc_cc_reg *cc, struct cc_status *st)
{
	char path[DC_PATH_LEN + 32];
	int fd;

	memset(st, 0, sizeof(*st));
	st->ops_state = -1;
	st->available = dc_cc_available(cc->name);
	dc_path(path, sizeof(path), c->pin_dir, cc->link_pin);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		st->link_pinned = !dc_link_struct_ops(fd, &st->link_id, &st->map_id);
		close(fd);
	}
	dc_path(path, sizeof(path), c->pin_dir, cc->ops_map);
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
static void status_int(struct cli *c)
{
	char dir[DC_PATH_LEN + 8], names[256][16];
	struct dirent *de;
	DIR *dp;
	int i, n;

	snprintf(dir, sizeof(dir), "%s/int", c->pin_dir);
	if (c->json)
		jw_arr(&c->j, "int_attachments");
	else
		printf("%-16s %-16s %8s %8s\n", "int netns", "interface", "egress", "ingress");
	dp = opendir(dir);
	while (dp && (de = readdir(dp))) {
		const char *ns = strcmp(de->d_name, "host") ? de->d_name : NULL;

		if (de->d_name[0] == '.')
			continue;
		n = dc_int_host_pinned(c->pin_dir, ns, names, 256);
		for (i = 0; i < n; i++) {
			__u32 ids[2] = { 0, 0 }, idx = 0;
			char why[256];

			if (!dc_ifindex(ns, names[i], &idx, why, sizeof(why)))
				dc_int_host_state(c->pin_dir, ns, names[i], idx, ids);
			if (c->json) {
				jw_obj(&c->j, NULL);
				jw_str(&c->j, "netns", ns ? ns : "");
				jw_str(&c->j, "ifname", names[i]);
				jw_u64(&c->j, "egress", ids[0]);
				jw_u64(&c->j, "ingress", ids[1]);
				jw_end_obj(&c->j);
			} else {
				printf("%-16s %-16s %8u %8u%s\n", ns ? ns : "(own)", names[i], ids[0], ids[1],
				       idx ? "" : "  (interface gone)");
			}
		}
	}
	if (dp)
		closedir(dp);
	if (c->json)
		jw_end_arr(&c->j);
}

static int cmd_status(struct cli *c)
{
	pid_t pid = dc_lock_holder(c->cfg.daemon.lock_file);
	int nargs = dc_kernel_cong_control_nargs();
	const struct dc_obj_variant *v = nargs > 0 ? dc_obj_variant_for(nargs) : NULL;
	bool links = dc_kernel_has_struct_ops_link();
	struct dc_cc_counters stats[DC_CC_MAX];
	struct cc_status st[DC_CC_REGS_MAX];
	char avail[1024] = "";
	struct dc_features feat;
	char maps[64][32];
	bool have_stats;
	unsigned int i;
	int nmaps;

	dc_features_detect(&feat);
	dc_cc_available_list(avail, sizeof(avail));
	for (i = 0; i < dc_ncc_regs; i++)
		probe_cc(c, &dc_cc_regs[i], &st[i]);

	if (c->json) {
		jw_obj(&c->j, NULL);
		jw_obj(&c->j, "daemon");
		jw_bool(&c->j, "running", pid > 0);
		if (pid > 0)
			jw_u64(&c->j, "pid", (__u64)pid);
		jw_str(&c->j, "lock_file", c->cfg.daemon.lock_file);
		jw_end_obj(&c->j);
		jw_str(&c->j, "pin_dir", c->pin_dir);
		jw_obj(&c->j, "abi");
		jw_u64(&c->j, "cong_control_args", nargs > 0 ? (__u64)nargs : 0);
		if (v)
			jw_str(&c->j, "object", v->name);
		else
			jw_null(&c->j, "object");
		jw_bool(&c->j, "struct_ops_links", links);
		jw_end_obj(&c->j);
		dc_features_json(&feat, &c->j);
		jw_str(&c->j, "available_ccs", avail);
		jw_obj(&c->j, "ccs");
		for (i = 0; i < dc_ncc_regs; i++) {
			jw_obj(&c->j, dc_cc_regs[i].name);
			jw_bool(&c->j, "registered", st[i].available);
			jw_str(&c->j, "pinned", st[i].link_pinned ? "link" :
						st[i].map_pinned ? "struct_ops_map" : "none");
			if (st[i].link_pinned)
				jw_u64(&c->j, "link_id", st[i].link_id);
			if (st[i].link_pinned || st[i].map_pinned)
				jw_u64(&c->j, "map_id", st[i].map_id);
			jw_end_obj(&c->j);
		}
		jw_end_obj(&c->j);
	} else {
		if (pid > 0)
			printf("daemon:        running, pid %d (lock %s)\n", (int)pid,
			       c->cfg.daemon.lock_file);
		else
			printf("daemon:        not running (lock %s%s)\n", c->cfg.daemon.lock_file,
			       pid < 0 ? " unreadable" : " free");
		printf("pin dir:       %s%s\n", c->pin_dir, dc_exists(c->pin_dir) ? "" : " (absent)");
		printf("kernel ABI:    %s\n", nargs > 0 ? dc_abi_desc(nargs) : "unknown (no vmlinux BTF)");
		printf("registration:  %s\n", links ? "struct_ops links (6.4+)" :
						       "struct_ops map update (no links in this kernel)");
		dc_features_print(&feat, stdout);
		printf("%-16s %-11s %s\n", "cc", "registered", "pinned registration");
		for (i = 0; i < dc_ncc_regs; i++) {
			char pin[128];

			if (st[i].link_pinned)
				snprintf(pin, sizeof(pin), "%s (link id %u, struct_ops map id %u)",
					 dc_cc_regs[i].link_pin, st[i].link_id, st[i].map_id);
			else if (st[i].map_pinned)
				snprintf(pin, sizeof(pin), "%s (struct_ops map id %u, %s)",
					 dc_cc_regs[i].ops_map, st[i].map_id,
					 st[i].ops_state == DC_STRUCT_OPS_STATE_INUSE ? "in use" :
										      "not registered");
			else
				snprintf(pin, sizeof(pin), "%s",
					 st[i].available ? "none (registered by someone else)" : "none");
			printf("%-16s %-11s %s\n", dc_cc_regs[i].name, st[i].available ? "yes" : "no", pin);
		}
		printf("available CCs: %s\n", avail);
	}

	/* pinned maps: the names the objects pin by name, those present */
	nmaps = dc_obj_pinned_map_names(maps, 64);
	if (c->json)
		jw_arr(&c->j, "maps");
	else
		printf("%-14s %-6s %-10s %s\n", "map", "id", "type", "entries");
	for (i = 0; i < (unsigned int)nmaps; i++) {
		char path[DC_PATH_LEN + 32];
		struct bpf_map_info info;
		__u32 ilen = sizeof(info);
		long n = -1;
		int fd;

		dc_path(path, sizeof(path), c->pin_dir, maps[i]);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &ilen))
			n = info.type == BPF_MAP_TYPE_ARRAY ? (long)info.max_entries :
							     count_entries(fd, info.key_size);
		if (c->json) {
			jw_obj(&c->j, NULL);
			jw_str(&c->j, "name", maps[i]);
			jw_bool(&c->j, "pinned", true);
			jw_u64(&c->j, "id", info.id);
			jw_str(&c->j, "type", map_type_name(info.type));
			jw_u64(&c->j, "entries", n < 0 ? 0 : (__u64)n);
			jw_u64(&c->j, "max_entries", info.max_entries);
			jw_end_obj(&c->j);
		} else {
			printf("%-14s %-6u %-10s %ld/%u\n", maps[i], info.id,
			       map_type_name(info.type), n, info.max_entries);
		}
		close(fd);
	}
	if (c->json)
		jw_end_arr(&c->j);
	status_int(c);

	have_stats = false;
	{
		char path[DC_PATH_LEN + 32];

		dc_path(path, sizeof(path), c->pin_dir, DC_MAP_STATS);
		if (dc_exists(path))
			have_stats = !read_counters(c, stats);
	}
	if (c->json) {
		if (have_stats) {
			jw_obj(&c->j, "counters");
			print_counters(c, stats);
			jw_end_obj(&c->j);
		}
		dc_sw_status_brief(c->pin_dir, true, &c->j);
		jw_end_obj(&c->j);
		jw_done(&c->j);
	} else {
		if (have_stats)
			print_counters(c, stats);
		dc_sw_status_brief(c->pin_dir, false, &c->j);
	}
	return EXIT_OK;
}

/* ---- get / set ---------------------------------------------------------- */

static int cmd_get(struct cli *c, int argc, char **argv)
{
	const struct dc_cc_desc *only_cc = NULL;
	const struct dc_param *only_p = NULL;
	struct dc_cc_cfg cfg[DC_CC_MAX];
	bool present[DC_CC_MAX];
	char why[256];
	unsigned int i, k;

	if (argc > 2) {
		fprintf(stderr, "dcbpf: get takes at most one key\n");
		return EXIT_USAGE;
	}
	if (argc == 2 && !strncmp(argv[1], "sw.", 3))
		return dc_sw_get(c->pin_dir, c->json, &c->j, argv[1]);
	if (argc == 2) {
		if (strchr(argv[1], '.')) {
			if (dc_key_parse(argv[1], &only_cc, &only_p, why, sizeof(why))) {
				fprintf(stderr, "dcbpf: %s\n", why);
				return EXIT_USAGE;
			}
		} else if (!(only_cc = dc_cc_find(argv[1]))) {
			fprintf(stderr, "dcbpf: unknown congestion control '%s' (use %s or %s)\n",
				argv[1], dc_ccs[0].name, dc_ccs[1].name);
			return EXIT_USAGE;
		}
	}
	if (dc_require_root("dcbpf", c->pin_dir) || load_cfgs(c, cfg, present))
		return EXIT_ERR;

	if (only_p) {
		if (c->json) {
			char val[64];

			dc_param_format(only_p, &cfg[only_cc->id], val, sizeof(val));
			jw_obj(&c->j, NULL);
			jw_raw(&c->j, argv[1], val);
			jw_end_obj(&c->j);
			jw_done(&c->j);
		} else {
			emit_param(c, only_cc->name, only_p, &cfg[only_cc->id], true);
		}
		return EXIT_OK;
	}
	if (c->json)
		jw_obj(&c->j, NULL);
	for (k = 0; k < DC_CC_MAX; k++) {
		if (only_cc && only_cc->id != dc_ccs[k].id)
			continue;
		if (!present[k])
			fprintf(stderr, "dcbpf: note: %s has no entry in %s; showing the defaults it uses\n",
				dc_ccs[k].name, DC_MAP_CFG);
		if (c->json)
			jw_obj(&c->j, dc_ccs[k].name);
		for (i = 0; i < dc_nparams; i++)
			if (dc_params[i].scope == DC_SCOPE_CC)
				emit_param(c, dc_ccs[k].name, &dc_params[i], &cfg[k], false);
		if (c->json)
			jw_end_obj(&c->j);
	}
	if (c->json) {
		jw_end_obj(&c->j);
		jw_done(&c->j);
	}
	return EXIT_OK;
}

/*
 * Apply KEY=VALUE arguments to cfg.  Every argument is checked and every
 * problem reported; returns the number of bad arguments (0 = all applied).
 */
static int apply_assignments(int argc, char **argv, struct dc_cc_cfg *cfg)
{
	const struct dc_cc_desc *cc;
	const struct dc_param *p;
	char key[128], why[256], range[64];
	int i, j, bad = 0;

	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t kl;

		if (!eq) {
			fprintf(stderr, "dcbpf: '%s': expected CC.KEY=VALUE\n", argv[i]);
			bad++;
			continue;
		}
		kl = (size_t)(eq - argv[i]);
		if (kl >= sizeof(key))
			kl = sizeof(key) - 1;
		memcpy(key, argv[i], kl);
		key[kl] = '\0';
		if (dc_key_parse(key, &cc, &p, why, sizeof(why))) {
			fprintf(stderr, "dcbpf: %s\n", why);
			bad++;
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strncmp(argv[j], argv[i], kl + 1))
				break;
		if (j < i) {
			fprintf(stderr, "dcbpf: %s given twice\n", key);
			bad++;
			continue;
		}
		if (dc_param_parse(p, eq + 1, &cfg[cc->id], why, sizeof(why))) {
			dc_param_range(p, range, sizeof(range));
			fprintf(stderr, "dcbpf: %s = %s: %s; allowed %s%s%s\n", key, eq + 1, why, range,
				strcmp(p->unit, "-") ? " " : "", strcmp(p->unit, "-") ? p->unit : "");
			bad++;
		}
	}
	return bad;
}

static int cmd_set(struct cli *c, int argc, char **argv)
{
	struct dc_cc_cfg cur[DC_CC_MAX], want[DC_CC_MAX];
	bool present[DC_CC_MAX];
	unsigned int i, k, written = 0;
	int fd, err, bad;

	if (argc < 2) {
		fprintf(stderr, "dcbpf: set needs CC.KEY=VALUE (e.g. powertcp.gamma=0.8)\n");
		return EXIT_USAGE;
	}
	/* switch keys go to the switch's own maps; one kind per command keeps
	 * "all or nothing" simple */
	for (i = 1, k = 0; i < (unsigned int)argc; i++)
		k += !strncmp(argv[i], "sw.", 3);
	if (k && k != (unsigned int)argc - 1) {
		fprintf(stderr, "dcbpf: set either sw.NAME.KEY=VALUE or CC.KEY=VALUE assignments, not both at once\n");
		return EXIT_USAGE;
	}
	if (k)
		return dc_sw_set(c->pin_dir, c->json, &c->j, argc - 1, argv + 1);
	/* validate against defaults first: a bad value is reported even
	 * without root or a daemon */
	for (k = 0; k < DC_CC_MAX; k++)
		dc_cc_cfg_defaults(&want[k]);
	bad = apply_assignments(argc - 1, argv + 1, want);
	if (bad) {
		fprintf(stderr, "dcbpf: %d bad assignment(s); nothing changed\n", bad);
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", c->pin_dir))
		return EXIT_ERR;
	fd = open_cfg(c);
	if (fd < 0)
		return EXIT_ERR;
	/* read, modify, write the whole value: each entry changes atomically */
	read_cfgs(fd, cur, present);
	memcpy(want, cur, sizeof(want));
	apply_assignments(argc - 1, argv + 1, want);

	if (c->json) {
		jw_obj(&c->j, NULL);
		jw_arr(&c->j, "changed");
	}
	for (k = 0; k < DC_CC_MAX; k++) {
		if (present[k] && !memcmp(&cur[k], &want[k], sizeof(want[k])))
			continue;
		err = dc_cfg_write(fd, (enum dc_cc_id)k, &want[k]);
		if (err) {
			fprintf(stderr, "dcbpf: writing the %s entry of %s/%s failed: %s; nothing changed\n",
				dc_ccs[k].name, c->pin_dir, DC_MAP_CFG, strerror(-err));
			for (i = 0; i < k; i++)
				if (written & (1U << i))
					dc_cfg_write(fd, (enum dc_cc_id)i, &cur[i]);
			close(fd);
			return EXIT_ERR;
		}
		written |= 1U << k;
		for (i = 0; i < dc_nparams; i++) {
			const struct dc_param *p = &dc_params[i];
			char a[64], b[64];

			if (p->scope != DC_SCOPE_CC || dc_param_raw(p, &cur[k]) == dc_param_raw(p, &want[k]))
				continue;
			dc_param_format(p, &cur[k], a, sizeof(a));
			dc_param_format(p, &want[k], b, sizeof(b));
			if (c->json) {
				char key[96];

				snprintf(key, sizeof(key), "%s.%s", dc_ccs[k].name, p->name);
				jw_obj(&c->j, NULL);
				jw_str(&c->j, "key", key);
				jw_raw(&c->j, "old", a);
				jw_raw(&c->j, "new", b);
				jw_end_obj(&c->j);
			} else {
				printf("%s.%s: %s -> %s\n", dc_ccs[k].name, p->name, a, b);
			}
		}
	}
	if (c->json) {
		jw_end_arr(&c->j);
		jw_end_obj(&c->j);
		jw_done(&c->j);
	} else if (!written) {
		printf("unchanged\n");
	}
	close(fd);
	return EXIT_OK;
}

/* ---- dump --------------------------------------------------------------- */

static void fmt_endpoint(const struct dc_flow_key *k, bool src, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	const __u32 *addr = src ? k->saddr : k->daddr;
	unsigned int port = src ? k->sport : k->dport;

	if (k->family == AF_INET) {
		inet_ntop(AF_INET, addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, port);
	} else {
		inet_ntop(AF_INET6, addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, port);
	}
}

static const char *mode_name(__u32 m)
{
	switch (m) {
	case DC_MODE_INIT:
		return "init";
	case DC_MODE_THETA:
		return "theta";
	case DC_MODE_INT:
		return "int";
	default:
		return "?";
	}
}

static const char *cc_name(__u32 cc)
{
	return cc < DC_CC_MAX ? dc_ccs[cc].name : "?";
}

static int dump_flows(struct cli *c)
{
	struct dc_flow_key key, next, *prev = NULL;
	struct dc_cc_flow f;
	char src[64], dst[64], pw[32], pace[32];
	int fd;

	fd = open_map(c, DC_MAP_FLOWS, BPF_MAP_TYPE_LRU_HASH, sizeof(struct dc_flow_key),
		      sizeof(struct dc_cc_flow));
	if (fd < 0)
		return EXIT_ERR;
	if (c->json)
		jw_arr(&c->j, NULL);
	else
		printf("%-22s %-22s %-14s %-5s %11s %7s %12s %7s %8s %8s\n", "src", "dst", "cc",
		       "mode", "cwnd_B", "cwnd_p", "pacing_Mbps", "power", "rtt_us", "tau_us");
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		/* LRU entries can vanish between next_key and lookup: skip */
		if (bpf_map_lookup_elem(fd, &key, &f))
			continue;
		fmt_endpoint(&key, true, src, sizeof(src));
		fmt_endpoint(&key, false, dst, sizeof(dst));
		snprintf(pw, sizeof(pw), "%.3f", (double)f.norm_power_q16 / (double)DC_Q16_ONE);
		snprintf(pace, sizeof(pace), "%.1f", (double)f.pacing_rate_Bps * 8.0 / 1e6);
		if (c->json) {
			jw_obj(&c->j, NULL);
			jw_str(&c->j, "src", src);
			jw_str(&c->j, "dst", dst);
			jw_str(&c->j, "cc", cc_name(f.cc));
			jw_str(&c->j, "mode", mode_name(f.mode));
			jw_u64(&c->j, "cwnd_bytes", f.cwnd_bytes);
			jw_u64(&c->j, "snd_cwnd_pkts", f.snd_cwnd_pkts);
			jw_u64(&c->j, "pacing_rate_Bps", f.pacing_rate_Bps);
			jw_raw(&c->j, "norm_power", pw);
			jw_u64(&c->j, "rtt_us", f.rtt_us);
			jw_u64(&c->j, "tau_us", f.tau_us);
			jw_u64(&c->j, "beta_bytes", f.beta_bytes);
			jw_u64(&c->j, "bottleneck_hop", f.bottleneck_hop);
			jw_u64(&c->j, "acks", f.acks);
			jw_u64(&c->j, "cwnd_updates", f.cwnd_updates);
			jw_u64(&c->j, "theta_acks", f.theta_acks);
			jw_u64(&c->j, "int_acks", f.int_acks);
			jw_end_obj(&c->j);
		} else {
			printf("%-22s %-22s %-14s %-5s %11u %7u %12s %7s %8u %8u\n", src, dst,
			       cc_name(f.cc), mode_name(f.mode), f.cwnd_bytes, f.snd_cwnd_pkts, pace,
			       pw, f.rtt_us, f.tau_us);
		}
	}
	if (c->json) {
		jw_end_arr(&c->j);
		jw_done(&c->j);
	}
	close(fd);
	return EXIT_OK;
}

static int dump_stats(struct cli *c)
{
	struct dc_cc_counters s[DC_CC_MAX];

	if (read_counters(c, s))
		return EXIT_ERR;
	if (c->json)
		jw_obj(&c->j, NULL);
	print_counters(c, s);
	if (c->json) {
		jw_end_obj(&c->j);
		jw_done(&c->j);
	}
	return EXIT_OK;
}

static int dump_cfg(struct cli *c)
{
	struct dc_cc_cfg cfg[DC_CC_MAX];
	bool present[DC_CC_MAX];
	unsigned int i, k;
	char val[64];

	if (load_cfgs(c, cfg, present))
		return EXIT_ERR;
	if (c->json)
		jw_obj(&c->j, NULL);
	for (k = 0; k < DC_CC_MAX; k++) {
		if (c->json) {
			jw_obj(&c->j, dc_ccs[k].name);
			jw_u64(&c->j, "key", k);
			jw_bool(&c->j, "present", present[k]);
			jw_obj(&c->j, "value");
		} else {
			printf("%s (key %u)%s\n", dc_ccs[k].name, k,
			       present[k] ? "" : ": no entry (the CC uses these defaults)");
		}
		for (i = 0; i < dc_nparams; i++) {
			const struct dc_param *p = &dc_params[i];

			if (p->scope != DC_SCOPE_CC)
				continue;
			dc_param_format(p, &cfg[k], val, sizeof(val));
			if (c->json)
				jw_u64(&c->j, p->field, dc_param_raw(p, &cfg[k]));
			else
				printf("  %-16s %10u   %s = %s\n", p->field, dc_param_raw(p, &cfg[k]),
				       p->name, val);
		}
		if (c->json) {
			jw_end_obj(&c->j);
			jw_end_obj(&c->j);
		}
	}
	if (c->json) {
		jw_end_obj(&c->j);
		jw_done(&c->j);
	}
	return EXIT_OK;
}

static int cmd_dump(struct cli *c, int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "flows") && strcmp(argv[1], "stats") &&
			  strcmp(argv[1], "cfg"))) {
		fprintf(stderr, "dcbpf: dump needs one of: flows, stats, cfg\n");
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", c->pin_dir))
		return EXIT_ERR;
	if (!strcmp(argv[1], "flows"))
		return dump_flows(c);
	if (!strcmp(argv[1], "stats"))
		return dump_stats(c);
	return dump_cfg(c);
}

static int cmd_params(struct cli *c)
{
	struct dc_config def;
	char val[DC_PATH_LEN], range[64];
	unsigned int i;

	if (!c->json) {
		dc_config_print_doc(stdout);
		return EXIT_OK;
	}
	dc_config_defaults(&def);
	jw_arr(&c->j, NULL);
	for (i = 0; i < dc_nparams; i++) {
		const struct dc_param *p = &dc_params[i];
		const void *base = dc_param_base(p, &def);

		dc_param_format(p, base, val, sizeof(val));
		dc_param_range(p, range, sizeof(range));
		jw_obj(&c->j, NULL);
		jw_str(&c->j, "section", p->scope == DC_SCOPE_DAEMON ? "daemon" :
					 p->scope == DC_SCOPE_INT ? "int" : "cc");
		jw_str(&c->j, "key", p->name);
		jw_str(&c->j, "default", val);
		jw_str(&c->j, "allowed", range);
		jw_str(&c->j, "unit", p->unit);
		if (p->field)
			jw_str(&c->j, "field", p->field);
		jw_str(&c->j, "doc", p->doc);
		jw_end_obj(&c->j);
	}
	jw_end_arr(&c->j);
	jw_done(&c->j);
	return EXIT_OK;
}

/* ---- attach / detach ------------------------------------------------------ */

/*
 * Host INT programs on interfaces at run time, in the [int] namespace of
 * the config unless --netns says otherwise.  Pinned like the daemon's own,
 * so a running or restarted dcbpfd adopts them (docs/cli.md).
 */
static int cmd_attach(struct cli *c, int argc, char **argv, bool detach)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "no-links", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	const char *netns = c->cfg.intf.netns[0] ? c->cfg.intf.netns : NULL;
	bool no_links = false;
	int o;

	optind = 1;
	while ((o = getopt_long(argc, argv, "+n:", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			netns = *optarg ? optarg : NULL;
			break;
		case 'L':
			no_links = true;
			break;
		default:
			fprintf(stderr, "usage: dcbpf %s [--netns NS] [--no-links] IFACE...\n", argv[0]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: dcbpf %s [--netns NS] [--no-links] IFACE...\n", argv[0]);
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", c->pin_dir))
		return EXIT_ERR;
	return dc_int_host_cmd(c->pin_dir, netns, no_links, argc - optind, argv + optind, detach);
}

/* ---- main --------------------------------------------------------------- */

static int load_cli_config(struct cli *c, const char *path, bool explicit_path)
{
	struct dc_errbuf eb = { .len = 0 };

	dc_config_defaults(&c->cfg);
	if (dc_config_read(path, explicit_path, &c->cfg, &eb) < 0) {
		fprintf(stderr, "%s", eb.msg);
		if (explicit_path) {
			fprintf(stderr, "dcbpf: %s is invalid\n", path);
			return -1;
		}
		fprintf(stderr, "dcbpf: ignoring invalid %s; using the default pin_dir and lock_file\n",
			path);
		dc_config_defaults(&c->cfg);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "pin-dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf = DC_CONF_DEFAULT, *pin_dir = NULL, *cmd;
	bool conf_explicit = false;
	struct cli c;
	int o;

	memset(&c, 0, sizeof(c));
	/* "+": options end at the command, so `set` values may start with '-' */
	while ((o = getopt_long(argc, argv, "+c:d:jh", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			conf = optarg;
			conf_explicit = true;
			break;
		case 'd':
			pin_dir = optarg;
			break;
		case 'j':
			c.json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (load_cli_config(&c, conf, conf_explicit))
		return EXIT_USAGE;
	if (pin_dir) {
		char why[160];
		const struct dc_param *p = dc_param_find(DC_SCOPE_DAEMON, "pin_dir");

		if (dc_param_parse(p, pin_dir, &c.cfg.daemon, why, sizeof(why))) {
			fprintf(stderr, "dcbpf: --pin-dir %s: %s\n", pin_dir, why);
			return EXIT_USAGE;
		}
	}
	c.pin_dir = c.cfg.daemon.pin_dir;
	jw_init(&c.j, stdout);
	/* libbpf stays quiet: every failure here is reported in our words */
	libbpf_set_print(NULL);

	cmd = argv[optind];
	argc -= optind;
	argv += optind;
	if (!strcmp(cmd, "status")) {
		if (argc != 1) {
			fprintf(stderr, "dcbpf: status takes no arguments\n");
			return EXIT_USAGE;
		}
		if (dc_require_root("dcbpf", c.pin_dir))
			return EXIT_ERR;
		return cmd_status(&c);
	}
	if (!strcmp(cmd, "get"))
		return cmd_get(&c, argc, argv);
	if (!strcmp(cmd, "set"))
		return cmd_set(&c, argc, argv);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(&c, argc, argv);
	if (!strcmp(cmd, "params"))
		return cmd_params(&c);
	if (!strcmp(cmd, "switch"))
		return dc_sw_main(c.pin_dir, c.json, &c.j, argc, argv);
	if (!strcmp(cmd, "sim"))
		return dc_sim_main(argc, argv);
	if (!strcmp(cmd, "credence"))
		return dc_cred_main(c.pin_dir, argc, argv);
	if (!strcmp(cmd, "trace"))
		return dc_cmd_trace(c.pin_dir, argc, argv);
	if (!strcmp(cmd, "int"))
		return dc_int_main(c.pin_dir, argc, argv);
	if (!strcmp(cmd, "attach") || !strcmp(cmd, "detach"))
		return cmd_attach(&c, argc, argv, !strcmp(cmd, "detach"));
	if (!strcmp(cmd, "ethereal"))
		return dc_eth_main(c.pin_dir, c.json, argc, argv);
	if (!strcmp(cmd, "metrics"))
		return dc_metrics_main(c.pin_dir, c.cfg.daemon.lock_file, argc, argv);
	if (!strcmp(cmd, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	fprintf(stderr, "dcbpf: unknown command '%s'\n", cmd);
	usage(stderr);
	return EXIT_USAGE;
}
