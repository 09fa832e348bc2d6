// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf metrics`: every pinned counter read once into a snapshot
 * (metricspriv.h), per-CPU maps summed through their counter tables
 * (loader/lib/counters.h).  A map that is not pinned contributes nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "bpfsys.h"
#include "int/inthost.h"
#include "config.h"
#include "counters.h"
#include "metrics/metricspriv.h"
#include "pins.h"
#include "sw/swctl.h"

/* ---- reading ------------------------------------------------------------- */

void dc_metrics_error(struct snapshot *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->errors++) {
		va_start(ap, fmt);
		vsnprintf(s->first_error, sizeof(s->first_error), fmt, ap);
		va_end(ap);
	}
}

/* Open a pinned map of the expected shape; -ENOENT quietly, anything else
 * counted with its reason. */
static int open_pinned(struct snapshot *s, const char *dir, const char *name, __u32 type,
		       __u32 ksz, __u32 vsz)
{
	char why[512];
	int fd = dc_pinned_map_open(dir, name, type, ksz, vsz, why, sizeof(why));

	if (fd < 0 && fd != -ENOENT) {
		dc_metrics_error(s, "%s", why);
	}
	return fd;
}

static void read_cc(struct snapshot *s, const char *pin_dir)
{
	struct dc_flow_key key, next, *prev = NULL;
	struct bpf_map_info info;
	__u32 ilen = sizeof(info);
	struct dc_cc_flow f;
	unsigned int i;
	int fd;

	for (i = 0; i < dc_ncc_regs; i++)
		s->cc_registered[i] = dc_cc_available(dc_cc_regs[i].name);

	fd = open_pinned(s, pin_dir, DC_MAP_STATS, BPF_MAP_TYPE_ARRAY, sizeof(__u32),
			 sizeof(struct dc_cc_counters));
	if (fd >= 0) {
		s->have_stats = true;
		for (i = 0; i < DC_CC_MAX; i++) {
			__u32 k = i;

			if (bpf_map_lookup_elem(fd, &k, &s->stats[i]))
				memset(&s->stats[i], 0, sizeof(s->stats[i]));
		}
		close(fd);
	}

	fd = open_pinned(s, pin_dir, DC_MAP_FLOWS, BPF_MAP_TYPE_LRU_HASH,
			 sizeof(struct dc_flow_key), sizeof(struct dc_cc_flow));
	if (fd >= 0) {
		s->have_flows = true;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &ilen))
			s->flows_max = info.max_entries;
		while (!bpf_map_get_next_key(fd, prev, &next)) {
			key = next;
			prev = &key;
			/* an LRU entry may go between next_key and lookup */
			if (bpf_map_lookup_elem(fd, &key, &f))
				continue;
			s->flows_entries++;
			if (f.cc < DC_CC_MAX && f.mode <= DC_MODE_INT)
				s->flows[f.cc][f.mode]++;
			else
				s->flows_other++;
			if (s->flows_entries > 10000000)
				break;
		}
		close(fd);
	}

	fd = open_pinned(s, pin_dir, "dc_int_stats", BPF_MAP_TYPE_ARRAY, sizeof(__u32),
			 sizeof(struct dc_int_counters));
	if (fd >= 0) {
		__u32 zero = 0;

		s->have_int = !bpf_map_lookup_elem(fd, &zero, &s->int_stats);
		close(fd);
	}
}

/* Add one key of dc_sw_cnt, summed over CPUs, to out. */
static void sum_cnt(int fd, __u32 key, struct dc_sw_counters *out)
{
	struct dc_sw_counters v;

	if (!dc_ctr_read(&dc_ctr_sw, fd, key, true, &v))
		dc_ctr_add(&dc_ctr_sw, out, &v);
}

static void read_switch(struct snapshot *s, const char *pin_dir, const char *name)
{
	struct sw_m *w = &s->sw[s->nsw];
	char dir[DC_PATH_LEN * 2];
	unsigned int p, pr;
	int fd;

	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", name);
	snprintf(dir, sizeof(dir), "%s/%s/%s", pin_dir, DC_SW_DIR, name);

	fd = open_pinned(s, dir, "dc_sw_port", BPF_MAP_TYPE_ARRAY, sizeof(__u32),
			 sizeof(struct dc_sw_port));
	if (fd >= 0) {
		w->have_port = true;
		for (p = 0; p < DC_SW_PORTS_MAX; p++) {
			struct dc_sw_port v;
			__u32 k = p;

			if (bpf_map_lookup_elem(fd, &k, &v) || !v.rate_mbps)
				continue;
			w->port[p].used = true;
			memcpy(w->port[p].ifname, v.ifname, DC_SW_IFNAME_LEN);
			w->port[p].ifname[DC_SW_IFNAME_LEN] = '\0';
			w->port[p].qlen_bytes = v.qlen_bytes;
			w->port[p].qlen_pkts = v.qlen_pkts;
			w->port[p].tx_bytes = v.tx_bytes;
			w->port[p].thresh_bytes = v.thresh_bytes;
			w->port[p].rate_mbps = v.rate_mbps;
		}
		close(fd);
	}

	fd = open_pinned(s, dir, "dc_sw_state", BPF_MAP_TYPE_ARRAY, sizeof(__u32),
			 sizeof(struct dc_sw_state));
	if (fd >= 0) {
		__u32 zero = 0;

		w->have_state = !bpf_map_lookup_elem(fd, &zero, &w->state);
		close(fd);
	}

	fd = open_pinned(s, dir, "dc_sw_cnt", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32),
			 sizeof(struct dc_sw_counters));
	if (fd >= 0) {
		w->have_cnt = true;
		for (p = 0; p < DC_SW_PORTS_MAX; p++)
			for (pr = 0; pr < DC_SW_PRIOS && w->port[p].used; pr++)
				sum_cnt(fd, p * DC_SW_PRIOS + pr, &w->port[p].cnt);
		sum_cnt(fd, DC_SW_CNT_OTHER, &w->other);
		close(fd);
	}

	fd = open_pinned(s, dir, "dc_int_xstats", BPF_MAP_TYPE_ARRAY, sizeof(__u32),
			 sizeof(struct dc_int_counters));
	if (fd >= 0) {
		__u32 zero = 0;

		w->have_xstats = !bpf_map_lookup_elem(fd, &zero, &w->xstats);
		close(fd);
	}
	s->nsw++;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct sw_m *)a)->name, ((const struct sw_m *)b)->name);
}

static void read_switches(struct snapshot *s, const char *pin_dir)
{
	char path[DC_PATH_LEN * 2];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", pin_dir, DC_SW_DIR);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) > DC_SW_NAME_LEN)
			continue;
		if (s->nsw >= MAX_SWITCHES) {
			dc_metrics_error(s, "more than %d switches; the rest are left out",
					 MAX_SWITCHES);
			break;
		}
		read_switch(s, pin_dir, de->d_name);
	}
	closedir(d);
	qsort(s->sw, s->nsw, sizeof(s->sw[0]), cmp_name);
}

/* Ethereal: one directory per namespace (DC_PIN_ETH, "host" for the
 * daemon's own), host and leaf maps pinned side by side. */
static void read_eth(struct snapshot *s, const char *pin_dir)
{
	char base[DC_PATH_LEN + 8], dir[DC_PATH_LEN * 3];
	struct dirent *de;
	DIR *dp;
	int fd;

	if (dc_pin_dir(base, sizeof(base), pin_dir, DC_PIN_ETH_BASE, NULL))
		return;
	dp = opendir(base);
	while (dp && (de = readdir(dp))) {
		struct eth_m *e = &s->eth[s->neth];

		if (de->d_name[0] == '.')
			continue;
		if (s->neth >= MAX_ETH_NS) {
			dc_metrics_error(s, "more than %d Ethereal namespaces; the rest are left out",
					 MAX_ETH_NS);
			break;
		}
		memset(e, 0, sizeof(*e));
		snprintf(e->netns, sizeof(e->netns), "%.63s",
			 strcmp(de->d_name, "host") ? de->d_name : "");
		if (dc_pin_dir(dir, sizeof(dir), pin_dir, DC_PIN_ETH, de->d_name))
			continue;
		fd = open_pinned(s, dir, "dc_eth_hstats", BPF_MAP_TYPE_ARRAY, sizeof(__u32),
				 sizeof(struct dc_eth_hcounters));
		if (fd >= 0) {
			e->have_host = !dc_ctr_read(&dc_ctr_eth_host, fd, 0, false, &e->host);
			close(fd);
		}
		fd = open_pinned(s, dir, "dc_eth_lstats", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32),
				 sizeof(struct dc_eth_lcounters));
		if (fd >= 0) {
			e->have_leaf = !dc_ctr_read(&dc_ctr_eth_leaf, fd, 0, true, &e->leaf);
			close(fd);
		}
		if (e->have_host || e->have_leaf)
			s->neth++;
	}
	if (dp)
		closedir(dp);
}

/* DCTCP's counters are not pinned (maps/dctcp.h): every loaded map of the
 * name and shape, summed. */
static void read_dctcp(struct snapshot *s)
{
	struct dc_dctcp_stats v;
	__u32 id = 0;

	while (!bpf_map_get_next_id(id, &id)) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "dc_dctcp_stat") &&
		    info.type == BPF_MAP_TYPE_PERCPU_ARRAY && info.key_size == sizeof(__u32) &&
		    info.value_size == sizeof(v) && !dc_ctr_read(&dc_ctr_dctcp, fd, 0, true, &v)) {
			dc_ctr_add(&dc_ctr_dctcp, &s->dctcp, &v);
			s->have_dctcp = true;
		}
		close(fd);
	}
}

static void read_host_ifs(struct snapshot *s, const char *pin_dir)
{
	char dir[DC_PATH_LEN + 8], names[MAX_HOST_IFS][16], why[256];
	struct dirent *de;
	DIR *dp;
	int i, n;

	snprintf(dir, sizeof(dir), "%s/int", pin_dir);
	dp = opendir(dir);
	while (dp && (de = readdir(dp))) {
		const char *ns = strcmp(de->d_name, "host") ? de->d_name : NULL;

		if (de->d_name[0] == '.')
			continue;
		n = dc_int_host_pinned(pin_dir, ns, names, MAX_HOST_IFS);
		for (i = 0; i < n && s->nhost_if < MAX_HOST_IFS; i++) {
			struct host_if_m *h = &s->host_if[s->nhost_if++];
			__u32 ids[2], idx;

			snprintf(h->netns, sizeof(h->netns), "%.63s", ns ? ns : "");
			snprintf(h->ifname, sizeof(h->ifname), "%.15s", names[i]);
			h->live = !dc_ifindex(ns, names[i], &idx, why, sizeof(why)) &&
				  dc_int_host_state(pin_dir, ns, names[i], idx, ids) == 2;
		}
	}
	if (dp)
		closedir(dp);
}

const struct area_src dc_metrics_areas[] = {
	{ "dcbpf_icon_", "dc_icon_stats", &dc_ctr_icon, "icon", false, false },
	{ "dcbpf_ictcp_", "dc_ictcp_stats", &dc_ctr_ictcp, "ictcp", false, false },
	{ "dcbpf_resq_", "dc_resq_stats", &dc_ctr_resq, "resq", true, true },
	{ "dcbpf_perc_", "dc_perc_stats", &dc_ctr_perc, "perc", true, false },
	{ "dcbpf_cosy_", "dc_cosy_stats", &dc_ctr_cosy, "cosy", true, false },
	{ NULL },
};

/* One area's counters in dir into a new row. */
static void read_area_dir(struct snapshot *s, unsigned int src, const char *dir, const char *netns)
{
	const struct area_src *a = &dc_metrics_areas[src];
	struct area_m *r = &s->area[s->narea];
	int fd;

	if (s->narea >= MAX_AREA_ROWS) {
		dc_metrics_error(s, "more than %d pinned area counters; the rest are left out",
				 MAX_AREA_ROWS);
		return;
	}
	fd = open_pinned(s, dir, a->map, a->percpu ? BPF_MAP_TYPE_PERCPU_ARRAY : BPF_MAP_TYPE_ARRAY,
			 sizeof(__u32), a->set->size);
	if (fd < 0)
		return;
	memset(r, 0, sizeof(*r));
	r->src = src;
	snprintf(r->netns, sizeof(r->netns), "%.63s", strcmp(netns, "host") ? netns : "");
	if (a->set->size <= sizeof(r->v) && !dc_ctr_read(a->set, fd, 0, a->percpu, r->v))
		s->narea++;
	else
		dc_metrics_error(s, "%s/%s: cannot read", dir, a->map);
	close(fd);
}

/* Every area of the table: PIN_DIR/base, or each namespace's directory below it. */
static void read_areas(struct snapshot *s, const char *pin_dir)
{
	char base[DC_PATH_LEN * 2], dir[DC_PATH_LEN * 3];
	struct dirent *de;
	unsigned int i;
	DIR *dp;

	for (i = 0; dc_metrics_areas[i].prefix; i++) {
		if (dc_pin_path(base, sizeof(base), pin_dir, dc_metrics_areas[i].base))
			continue;
		if (!dc_metrics_areas[i].per_ns) {
			read_area_dir(s, i, base, "");
			continue;
		}
		dp = opendir(base);
		while (dp && (de = readdir(dp))) {
			if (de->d_name[0] == '.' ||
			    snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name) >= (int)sizeof(dir))
				continue;
			read_area_dir(s, i, dir, de->d_name);
		}
		if (dp)
			closedir(dp);
	}
}

void dc_metrics_read(struct snapshot *s, const char *pin_dir)
{
	read_cc(s, pin_dir);
	read_switches(s, pin_dir);
	read_host_ifs(s, pin_dir);
	read_eth(s, pin_dir);
	read_dctcp(s);
	read_areas(s, pin_dir);
}
