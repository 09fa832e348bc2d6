// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf get sw.NAME[.KEY]` and `dcbpf set sw.NAME.KEY=VALUE...`: a live
 * switch's parameters read from and published to its configuration map,
 * all assignments validated before any switch changes.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "sw/swint.h"

/* "sw.NAME.KEY" → NAME and KEY (pointers into buf). */
static int split_key(const char *full, char *buf, size_t len, char **name, char **key)
{
	char *dot;

	snprintf(buf, len, "%s", full);
	if (strncmp(buf, "sw.", 3))
		return -1;
	*name = buf + 3;
	dot = strchr(*name, '.');
	*key = NULL;
	if (dot) {
		*dot = '\0';
		*key = dot + 1;
	}
	return sw_valid_name(*name) ? 0 : -1;
}

/* checked after the arguments, so a bad key is reported without root */
static int root_needed(const char *pin_dir, struct dc_err *err)
{
	return dc_err_set(err, EXIT_ERR,
			  "must be root: pinned maps under %s are root-only (run it with sudo)", pin_dir);
}

int dc_sw_set(const char *pin_dir, bool json, struct jw *j, int argc, char **argv,
	      struct dc_err *err)
{
	struct dc_sw_cfg probe, cur, want;
	char buf[256], prefix[32], rvwhy[160], qwhy[512], *name, *key;
	struct dc_err first = { 0 };
	int i, k, bad = 0;
	bool done[64] = { false };

	/* validate everything first: a bad value changes nothing anywhere */
	dc_sw_cfg_defaults(&probe);
	for (i = 0; i < argc; i++) {
		struct dc_err e = { 0 };
		const char *eq = strchr(argv[i], '=');

		if (!eq || split_key(argv[i], buf, sizeof(buf), &name, &key) || !key) {
			dc_err_set(&e, EXIT_USAGE, "'%s': expected sw.NAME.KEY=VALUE (e.g. sw.leaf0.alg=abm)",
				   argv[i]);
		} else {
			snprintf(prefix, sizeof(prefix), "sw.%s.", name);
			sw_assign(key, &probe, prefix, &e);
		}
		if (dc_err_is_set(&e) && !bad++)
			first = e;
	}
	if (argc > 64)
		return dc_err_set(err, EXIT_USAGE, "at most 64 switch assignments at once; nothing changed");
	if (bad == 1)
		return dc_err_set(err, EXIT_USAGE, "%s; nothing changed", first.msg);
	if (bad)
		return dc_err_set(err, EXIT_USAGE, "%s; %d bad assignments, nothing changed", first.msg,
				  bad);
	if (geteuid())
		return root_needed(pin_dir, err);
	/* every switch named is up before anything is written, so a missing
	 * one changes nothing and no JSON document is left half-open */
	for (i = 0; i < argc; i++) {
		struct sw s;

		struct dc_sw_meta meta;
		const char *no;

		split_key(argv[i], buf, sizeof(buf), &name, &key);
		if (sw_open(pin_dir, name, &s, err))
			return EXIT_ERR;
		/* the switch's assignments in order, as below: an algorithm its
		 * queues cannot run is refused before anything is written */
		if (!sw_read_cfg(&s, &meta, &want)) {
			__u32 was = want.alg;

			for (k = 0; k < argc; k++) {
				char b2[256], *n2, *k2;
				struct dc_err e;

				split_key(argv[k], b2, sizeof(b2), &n2, &k2);
				if (!strcmp(n2, name))
					sw_assign(k2, &want, "", &e);
			}
			no = sw_queues_refuse(meta.nqueues, want.alg);
			if (no) {
				sw_close(&s);
				return dc_err_set(err, EXIT_USAGE,
						  "sw.%s.alg=%s: switch %s has %u queues per port: %s; nothing changed",
						  name, sw_alg_name(want.alg), name, meta.nqueues, no);
			}
			no = sw_rv_refuse(&want, rvwhy, sizeof(rvwhy));
			if (no) {
				sw_close(&s);
				return dc_err_set(err, EXIT_USAGE, "switch %s: %s; nothing changed", name,
						  no);
			}
			/* into Reverie or SONiC: every port's root qdisc must
			 * queue (swup.c, sw_port_queue_refuse) */
			no = NULL;
			if (want.alg != was && meta.nqueues <= 1 &&
			    (want.alg == DC_ALG_REVERIE || want.alg == DC_ALG_SONIC)) {
				__u32 pi;

				for (pi = 0; !no && pi < meta.nports && pi < DC_SW_PORTS_MAX; pi++) {
					struct dc_sw_port sp;

					if (!bpf_map_lookup_elem(s.port, &pi, &sp) && sp.rate_mbps)
						no = sw_port_queue_refuse(meta.netns, sp.ifname, qwhy,
									  sizeof(qwhy));
				}
			}
			if (no) {
				sw_close(&s);
				return dc_err_set(err, EXIT_USAGE, "sw.%s.alg=%s: %s; nothing changed", name,
						  sw_alg_name(want.alg), no);
			}
			no = sw_mode_refuse(meta.nqueues, want.prio_mode);
			if (no) {
				sw_close(&s);
				return dc_err_set(err, EXIT_USAGE,
						  "sw.%s.prio_mode=%s: switch %s has %u queue per port: %s; nothing changed",
						  name, sw_pmode_name(want.prio_mode), name,
						  meta.nqueues ? meta.nqueues : 1, no);
			}
		}
		sw_close(&s);
	}
	if (json) {
		jw_obj(j, NULL);
		jw_arr(j, "changed");
	}
	for (i = 0; i < argc; i++) {
		struct dc_sw_meta meta;
		struct sw s;
		unsigned int p;
		int rc;

		if (done[i])
			continue;
		split_key(argv[i], buf, sizeof(buf), &name, &key);
		if (sw_open(pin_dir, name, &s, err))
			return EXIT_ERR;
		if (sw_read_cfg(&s, &meta, &cur)) {
			sw_close(&s);
			return dc_err_set(err, EXIT_ERR, "switch %s: reading %s/%s failed", name, s.dir,
					  M_CFG);
		}
		want = cur;
		/* every assignment for this switch, in order */
		for (k = i; k < argc; k++) {
			char b2[256], *n2, *k2;
			struct dc_err e;

			split_key(argv[k], b2, sizeof(b2), &n2, &k2);
			if (strcmp(n2, name))
				continue;
			sw_assign(k2, &want, "", &e);
			done[k] = true;
		}
		rc = memcmp(&cur, &want, sizeof(cur)) ? sw_write_cfg(&s, &want) : 0;
		if (rc) {
			sw_close(&s);
			return dc_err_set(err, EXIT_ERR, "switch %s: writing %s/%s failed: %s; unchanged",
					  name, s.dir, M_CFG, strerror(-rc));
		}
		for (p = 0; p < sw_nparams; p++) {
			const struct sw_param *sp = &sw_params[p];
			unsigned int n = sp->count ? sp->count : 1, x;

			for (x = 0; x < n; x++) {
				char a[32], b[32], kk[96];
				int idx = sp->count ? (int)x : -1;

				sw_param_format(sp, idx, &cur, a, sizeof(a));
				sw_param_format(sp, idx, &want, b, sizeof(b));
				if (!strcmp(a, b))
					continue;
				if (idx >= 0)
					snprintf(kk, sizeof(kk), "sw.%s.%s.%d", name, sp->name, idx);
				else
					snprintf(kk, sizeof(kk), "sw.%s.%s", name, sp->name);
				if (json) {
					jw_obj(j, NULL);
					jw_str(j, "key", kk);
					jw_str(j, "old", a);
					jw_str(j, "new", b);
					jw_end_obj(j);
				} else {
					printf("%s: %s -> %s\n", kk, a, b);
				}
			}
		}
		sw_close(&s);
	}
	if (json) {
		jw_end_arr(j);
		jw_end_obj(j);
		jw_done(j);
	}
	return EXIT_OK;
}

int dc_sw_get(const char *pin_dir, bool json, struct jw *j, const char *full, struct dc_err *err)
{
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	char buf[256], val[64], kk[96], *name, *key;
	const struct sw_param *only = NULL;
	struct sw s;
	unsigned int p;
	int index = -1;

	if (split_key(full, buf, sizeof(buf), &name, &key))
		return dc_err_set(err, EXIT_USAGE, "'%s': expected sw.NAME or sw.NAME.KEY", full);
	if (key && !(only = sw_param_find(key, &index, err)))
		return EXIT_USAGE;
	if (geteuid())
		return root_needed(pin_dir, err);
	if (sw_open(pin_dir, name, &s, err))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &cfg)) {
		sw_close(&s);
		return dc_err_set(err, EXIT_ERR, "switch %s: reading %s/%s failed", name, s.dir, M_CFG);
	}
	sw_close(&s);
	if (only) {
		sw_param_format(only, only->count && index < 0 ? 0 : index, &cfg, val, sizeof(val));
		if (json) {
			jw_obj(j, NULL);
			jw_str(j, full, val);
			jw_end_obj(j);
			jw_done(j);
		} else {
			printf("%s\n", val);
		}
		return EXIT_OK;
	}
	if (json)
		jw_obj(j, NULL);
	for (p = 0; p < sw_nparams; p++) {
		const struct sw_param *sp = &sw_params[p];
		unsigned int n = sp->count ? sp->count : 1, x;

		for (x = 0; x < n; x++) {
			int idx = sp->count ? (int)x : -1;

			sw_param_format(sp, idx, &cfg, val, sizeof(val));
			if (idx >= 0)
				snprintf(kk, sizeof(kk), "sw.%s.%s.%d", name, sp->name, idx);
			else
				snprintf(kk, sizeof(kk), "sw.%s.%s", name, sp->name);
			if (json)
				jw_str(j, kk, val);
			else
				printf("%s = %s\n", kk, val);
		}
	}
	if (json) {
		jw_end_obj(j);
		jw_done(j);
	}
	return EXIT_OK;
}

