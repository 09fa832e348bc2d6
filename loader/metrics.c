// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf metrics`: read every pinned counter once and print it in the
 * Prometheus text exposition format, or write it for node_exporter's
 * textfile collector (PATH.tmp, then rename, so a scrape never sees half a
 * file).
 *
 * Everything is read first into plain structs, then printed family by
 * family: the format wants all samples of one metric together, after its
 * HELP and TYPE lines.  A map that is not pinned simply contributes no
 * samples; a map of the wrong shape (another build) is reported on stderr
 * and counted in dcbpf_metrics_errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "dcbpf/int.h"
#include "dcbpf/switch.h"
#include "attach.h"
#include "bpfsys.h"
#include "inthost.h"
#include "cli.h"
#include "config.h"
#include "metrics.h"
#include "swctl.h"

#define MAX_SWITCHES 64

struct sw_port_m {
	bool used;
	char ifname[DC_SW_IFNAME_LEN + 1];
	__u64 qlen_bytes, qlen_pkts, tx_bytes, thresh_bytes;
	__u32 rate_mbps;
	struct dc_sw_counters cnt;	/* summed over priorities and CPUs */
};

struct sw_m {
	char name[DC_SW_NAME_LEN + 1];
	bool have_port, have_state, have_cnt, have_xstats;
	struct sw_port_m port[DC_SW_PORTS_MAX];
	struct dc_sw_state state;
	__u64 other_pkts;
	struct dc_int_counters xstats;
};

#define MAX_HOST_IFS 256

/* A host INT attachment pinned under pin_dir/int/. */
struct host_if_m {
	char netns[64];
	char ifname[16];
	bool live;		/* both hooks attached to the current device */
};

struct snapshot {
	bool daemon_up;
	struct host_if_m host_if[MAX_HOST_IFS];
	unsigned int nhost_if;
	bool cc_registered[DC_CC_MAX];
	bool have_stats, have_flows, have_int;
	struct dc_cc_counters stats[DC_CC_MAX];
	__u64 flows[DC_CC_MAX][DC_MODE_INT + 1];
	__u64 flows_other;		/* entries of an unknown cc or mode */
	__u64 flows_entries, flows_max;
	struct dc_int_counters int_stats;
	struct sw_m sw[MAX_SWITCHES];
	unsigned int nsw;
	unsigned int errors;
};

/* ---- reading ------------------------------------------------------------- */

/* Open a pinned map of the expected shape; -ENOENT quietly, anything else
 * counted and explained on stderr. */
static int open_pinned(struct snapshot *s, const char *dir, const char *name, __u32 type,
		       __u32 ksz, __u32 vsz)
{
	char why[512];
	int fd = dc_pinned_map_open(dir, name, type, ksz, vsz, why, sizeof(why));

	if (fd < 0 && fd != -ENOENT) {
		fprintf(stderr, "dcbpf: metrics: %s\n", why);
		s->errors++;
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

	for (i = 0; i < DC_CC_MAX; i++)
		s->cc_registered[i] = dc_cc_available(dc_ccs[i].name);

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

static void sum_cnt(int fd, __u32 key, int ncpu, struct dc_sw_counters *buf,
		    struct dc_sw_counters *out)
{
	int i;

	if (bpf_map_lookup_elem(fd, &key, buf))
		return;
	for (i = 0; i < ncpu; i++) {
		out->admit_pkts += buf[i].admit_pkts;
		out->admit_bytes += buf[i].admit_bytes;
		out->drop_thresh_pkts += buf[i].drop_thresh_pkts;
		out->drop_full_pkts += buf[i].drop_full_pkts;
		out->drop_bytes += buf[i].drop_bytes;
		out->ecn_marked_pkts += buf[i].ecn_marked_pkts;
		out->first_rtt_pkts += buf[i].first_rtt_pkts;
		out->other_pkts += buf[i].other_pkts;
		out->drop_pred_pkts += buf[i].drop_pred_pkts;
	}
}

static void read_switch(struct snapshot *s, const char *pin_dir, const char *name)
{
	struct sw_m *w = &s->sw[s->nsw];
	char dir[DC_PATH_LEN * 2];
	int ncpu = libbpf_num_possible_cpus();
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
	if (fd >= 0 && ncpu > 0) {
		struct dc_sw_counters *buf = calloc((size_t)ncpu, sizeof(*buf));

		if (buf) {
			struct dc_sw_counters other = {};

			w->have_cnt = true;
			for (p = 0; p < DC_SW_PORTS_MAX; p++)
				for (pr = 0; pr < DC_SW_PRIOS && w->port[p].used; pr++)
					sum_cnt(fd, p * DC_SW_PRIOS + pr, ncpu, buf, &w->port[p].cnt);
			sum_cnt(fd, DC_SW_CNT_OTHER, ncpu, buf, &other);
			w->other_pkts = other.other_pkts;
			free(buf);
		}
	}
	if (fd >= 0)
		close(fd);

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
			fprintf(stderr, "dcbpf: metrics: more than %d switches; the rest are left out\n",
				MAX_SWITCHES);
			s->errors++;
			break;
		}
		read_switch(s, pin_dir, de->d_name);
	}
	closedir(d);
	qsort(s->sw, s->nsw, sizeof(s->sw[0]), cmp_name);
}

/* ---- printing ------------------------------------------------------------ */

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with \, " and newline escaped as the format asks. */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

static void port_labels(FILE *f, const struct sw_m *w, unsigned int p)
{
	fputs("switch=\"", f);
	label_value(f, w->name);
	fprintf(f, "\",port=\"%u\",ifname=\"", p);
	label_value(f, w->port[p].ifname);
	fputc('"', f);
}

static const struct {
	const char *name, *help;
	size_t off;
} cc_counters[] = {
#define F(f, h) { #f, h, offsetof(struct dc_cc_counters, f) }
	F(flows_init, "Flows the congestion control initialised."),
	F(flows_released, "Flows the congestion control released."),
	F(acks, "ACKs processed."),
	F(cwnd_updates, "Congestion window updates."),
	F(rtt_missing, "ACKs without an RTT sample."),
	F(int_acks, "PowerTCP ACKs with fresh in-band telemetry."),
	F(theta_fallback, "PowerTCP ACKs without telemetry, run on the RTT (theta) law."),
	F(int_stale, "PowerTCP ACKs whose telemetry was older than int_stale_us."),
	F(mirror_fail, "Failed updates of the dc_cc_flows mirror."),
	F(idle_restarts, "Flows restarted at HostBw*tau after idling longer than an RTO."),
#undef F
};

static const struct {
	const char *name, *help;
	size_t off;
} int_counters[] = {
#define F(f, h) { #f, h, offsetof(struct dc_int_counters, f) }
	F(src_added, "INT option added to a data segment."),
	F(src_gso, "INT option added to a GSO super-packet."),
	F(src_no_room, "Data segments sent without INT: IP options already present."),
	F(src_fail, "Data segments sent without INT: room adjustment failed."),
	F(sink_stripped, "INT options stripped at the receiver."),
	F(echo_added, "Hop stacks echoed on outgoing segments."),
	F(echo_no_room, "Hop stacks not echoed: IP options already present."),
	F(echo_rx, "Echoes received and published to the sender's CC."),
	F(bad_stripped, "Malformed options of ours stripped unused."),
	F(bad_passed, "Malformed options passed untouched."),
	F(transit_filled, "Hop slots filled by a switch."),
	F(transit_overflow, "Packets with no free hop slot at a switch."),
	F(transit_echo, "Echo options a switch left alone."),
	F(strip_fail, "Strips that failed; packet passed untouched."),
#undef F
};

static __u64 u64_at(const void *base, size_t off)
{
	__u64 v;

	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

static const char *const mode_names[] = { "init", "theta", "int" };

static void print_cc(FILE *f, const struct snapshot *s)
{
	char name[96], help[160];
	unsigned int i, k, m;

	family(f, "dcbpf_daemon_up", "gauge", "1 if a dcbpfd holds the lock file.");
	fprintf(f, "dcbpf_daemon_up %d\n", s->daemon_up);
	family(f, "dcbpf_cc_registered", "gauge",
	       "1 if the congestion control is in tcp_available_congestion_control.");
	for (k = 0; k < DC_CC_MAX; k++)
		fprintf(f, "dcbpf_cc_registered{cc=\"%s\"} %d\n", dc_ccs[k].name, s->cc_registered[k]);

	if (s->have_stats) {
		for (i = 0; i < sizeof(cc_counters) / sizeof(cc_counters[0]); i++) {
			snprintf(name, sizeof(name), "dcbpf_cc_%s_total", cc_counters[i].name);
			snprintf(help, sizeof(help), "%s (dc_cc_stats.%s)", cc_counters[i].help,
				 cc_counters[i].name);
			family(f, name, "counter", help);
			for (k = 0; k < DC_CC_MAX; k++)
				fprintf(f, "%s{cc=\"%s\"} %llu\n", name, dc_ccs[k].name,
					(unsigned long long)u64_at(&s->stats[k], cc_counters[i].off));
		}
	}
	if (s->have_flows) {
		family(f, "dcbpf_cc_flows", "gauge",
		       "Flows in dc_cc_flows per congestion control and mode.");
		for (k = 0; k < DC_CC_MAX; k++)
			for (m = 0; m <= DC_MODE_INT; m++)
				fprintf(f, "dcbpf_cc_flows{cc=\"%s\",mode=\"%s\"} %llu\n",
					dc_ccs[k].name, mode_names[m],
					(unsigned long long)s->flows[k][m]);
		family(f, "dcbpf_cc_flows_entries", "gauge", "Entries in dc_cc_flows (all flows).");
		fprintf(f, "dcbpf_cc_flows_entries %llu\n", (unsigned long long)s->flows_entries);
		family(f, "dcbpf_cc_flows_max_entries", "gauge",
		       "Capacity of the dc_cc_flows LRU map; older flows are evicted beyond it.");
		fprintf(f, "dcbpf_cc_flows_max_entries %llu\n", (unsigned long long)s->flows_max);
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

static void print_host_ifs(FILE *f, const struct snapshot *s)
{
	unsigned int i;

	if (!s->nhost_if)
		return;
	family(f, "dcbpf_int_host_attached", "gauge",
	       "1 if the host INT programs run on the interface (pinned under pin_dir/int/), "
	       "0 if its pins are stale.");
	for (i = 0; i < s->nhost_if; i++) {
		fputs("dcbpf_int_host_attached{netns=\"", f);
		label_value(f, s->host_if[i].netns);
		fputs("\",ifname=\"", f);
		label_value(f, s->host_if[i].ifname);
		fprintf(f, "\"} %d\n", s->host_if[i].live);
	}
}

static void print_int(FILE *f, const struct snapshot *s)
{
	char name[96], help[192];
	unsigned int i, w;
	bool any_sw = false;

	for (w = 0; w < s->nsw; w++)
		any_sw |= s->sw[w].have_xstats;
	for (i = 0; i < sizeof(int_counters) / sizeof(int_counters[0]); i++) {
		if (s->have_int) {
			snprintf(name, sizeof(name), "dcbpf_int_%s_total", int_counters[i].name);
			snprintf(help, sizeof(help), "%s Host programs (dc_int_stats).",
				 int_counters[i].help);
			family(f, name, "counter", help);
			fprintf(f, "%s %llu\n", name,
				(unsigned long long)u64_at(&s->int_stats, int_counters[i].off));
		}
		if (!any_sw)
			continue;
		snprintf(name, sizeof(name), "dcbpf_int_switch_%s_total", int_counters[i].name);
		snprintf(help, sizeof(help), "%s Switch transit hop (dc_int_xstats).",
			 int_counters[i].help);
		family(f, name, "counter", help);
		for (w = 0; w < s->nsw; w++) {
			if (!s->sw[w].have_xstats)
				continue;
			fprintf(f, "%s{switch=\"", name);
			label_value(f, s->sw[w].name);
			fprintf(f, "\"} %llu\n",
				(unsigned long long)u64_at(&s->sw[w].xstats, int_counters[i].off));
		}
	}
}

enum port_field {
	PF_QLEN_BYTES, PF_QLEN_PKTS, PF_TX_BYTES, PF_THRESH, PF_RATE,
	PF_ADMIT_PKTS, PF_ADMIT_BYTES, PF_DROP_BYTES, PF_ECN, PF_FIRST_RTT,
};

static __u64 port_value(const struct sw_port_m *p, enum port_field pf)
{
	switch (pf) {
	case PF_QLEN_BYTES:
		return p->qlen_bytes;
	case PF_QLEN_PKTS:
		return p->qlen_pkts;
	case PF_TX_BYTES:
		return p->tx_bytes;
	case PF_THRESH:
		return p->thresh_bytes;
	case PF_RATE:
		return p->rate_mbps;
	case PF_ADMIT_PKTS:
		return p->cnt.admit_pkts;
	case PF_ADMIT_BYTES:
		return p->cnt.admit_bytes;
	case PF_DROP_BYTES:
		return p->cnt.drop_bytes;
	case PF_ECN:
		return p->cnt.ecn_marked_pkts;
	case PF_FIRST_RTT:
		return p->cnt.first_rtt_pkts;
	}
	return 0;
}

static void print_switches(FILE *f, const struct snapshot *s)
{
	static const struct {
		enum port_field pf;
		bool cnt;	/* from dc_sw_cnt, else dc_sw_port */
		const char *name, *type, *help;
	} pfs[] = {
		{ PF_QLEN_BYTES, false, "dcbpf_sw_port_qlen_bytes", "gauge",
		  "Root qdisc backlog of the port in bytes (dc_sw_port.qlen_bytes)." },
		{ PF_QLEN_PKTS, false, "dcbpf_sw_port_qlen_packets", "gauge",
		  "Root qdisc backlog of the port in packets." },
		{ PF_TX_BYTES, false, "dcbpf_sw_port_tx_bytes_total", "counter",
		  "Bytes dequeued by the port's root qdisc." },
		{ PF_THRESH, false, "dcbpf_sw_port_threshold_bytes", "gauge",
		  "Admission threshold of the port's last decision." },
		{ PF_RATE, false, "dcbpf_sw_port_rate_mbps", "gauge", "Configured port rate." },
		{ PF_ADMIT_PKTS, true, "dcbpf_sw_port_admitted_packets_total", "counter",
		  "Packets admitted to the port's queue (dc_sw_cnt, all priorities and CPUs)." },
		{ PF_ADMIT_BYTES, true, "dcbpf_sw_port_admitted_bytes_total", "counter",
		  "Bytes admitted to the port's queue." },
		{ PF_DROP_BYTES, true, "dcbpf_sw_port_dropped_bytes_total", "counter",
		  "Bytes dropped by buffer admission." },
		{ PF_ECN, true, "dcbpf_sw_port_ecn_marked_packets_total", "counter",
		  "Packets marked CE above ecn_k_bytes." },
		{ PF_FIRST_RTT, true, "dcbpf_sw_port_first_rtt_packets_total", "counter",
		  "Packets carrying the first-RTT mark." },
	};
	unsigned int i, w, p;
	bool any_port = false, any_cnt = false, any_state = false;

	for (w = 0; w < s->nsw; w++) {
		any_port |= s->sw[w].have_port;
		any_cnt |= s->sw[w].have_port && s->sw[w].have_cnt;
		any_state |= s->sw[w].have_state;
	}
	if (!s->nsw)
		return;
	family(f, "dcbpf_sw_up", "gauge", "Switches with pins under <pin_dir>/sw/.");
	for (w = 0; w < s->nsw; w++) {
		fputs("dcbpf_sw_up{switch=\"", f);
		label_value(f, s->sw[w].name);
		fprintf(f, "\"} %d\n", s->sw[w].have_port && s->sw[w].have_state);
	}
	if (any_state) {
		family(f, "dcbpf_sw_occupancy_bytes", "gauge",
		       "Shared buffer occupancy Q of the switch (dc_sw_state).");
		for (w = 0; w < s->nsw; w++) {
			if (!s->sw[w].have_state)
				continue;
			fputs("dcbpf_sw_occupancy_bytes{switch=\"", f);
			label_value(f, s->sw[w].name);
			fprintf(f, "\"} %llu\n", (unsigned long long)s->sw[w].state.occupancy_bytes);
		}
	}
	for (i = 0; i < sizeof(pfs) / sizeof(pfs[0]); i++) {
		if (!(pfs[i].cnt ? any_cnt : any_port))
			continue;
		family(f, pfs[i].name, pfs[i].type, pfs[i].help);
		for (w = 0; w < s->nsw; w++) {
			const struct sw_m *sw = &s->sw[w];

			if (!sw->have_port || (pfs[i].cnt && !sw->have_cnt))
				continue;
			for (p = 0; p < DC_SW_PORTS_MAX; p++) {
				if (!sw->port[p].used)
					continue;
				fprintf(f, "%s{", pfs[i].name);
				port_labels(f, sw, p);
				fprintf(f, "} %llu\n",
					(unsigned long long)port_value(&sw->port[p], pfs[i].pf));
			}
		}
	}
	if (any_cnt) {
		family(f, "dcbpf_sw_port_dropped_packets_total", "counter",
		       "Packets dropped by buffer admission; reason threshold = the queue would "
		       "exceed its threshold, buffer_full = the shared buffer would overflow.");
		for (w = 0; w < s->nsw; w++) {
			const struct sw_m *sw = &s->sw[w];

			if (!sw->have_port || !sw->have_cnt)
				continue;
			for (p = 0; p < DC_SW_PORTS_MAX; p++) {
				if (!sw->port[p].used)
					continue;
				fputs("dcbpf_sw_port_dropped_packets_total{", f);
				port_labels(f, sw, p);
				fprintf(f, ",reason=\"threshold\"} %llu\n",
					(unsigned long long)sw->port[p].cnt.drop_thresh_pkts);
				fputs("dcbpf_sw_port_dropped_packets_total{", f);
				port_labels(f, sw, p);
				fprintf(f, ",reason=\"buffer_full\"} %llu\n",
					(unsigned long long)sw->port[p].cnt.drop_full_pkts);
				fputs("dcbpf_sw_port_dropped_packets_total{", f);
				port_labels(f, sw, p);
				fprintf(f, ",reason=\"prediction\"} %llu\n",
					(unsigned long long)sw->port[p].cnt.drop_pred_pkts);
			}
		}
		family(f, "dcbpf_sw_other_packets_total", "counter",
		       "Packets XDP passed without admission (not IP, malformed, no route).");
		for (w = 0; w < s->nsw; w++) {
			if (!s->sw[w].have_cnt)
				continue;
			fputs("dcbpf_sw_other_packets_total{switch=\"", f);
			label_value(f, s->sw[w].name);
			fprintf(f, "\"} %llu\n", (unsigned long long)s->sw[w].other_pkts);
		}
	}
}

static void print_all(FILE *f, const struct snapshot *s)
{
	print_cc(f, s);
	print_int(f, s);
	print_host_ifs(f, s);
	print_switches(f, s);
	family(f, "dcbpf_metrics_errors", "gauge",
	       "Pinned maps that could not be read in this run (see dcbpf's stderr).");
	fprintf(f, "dcbpf_metrics_errors %u\n", s->errors);
}

/* ---- output -------------------------------------------------------------- */

static int write_textfile(const char *path, const char *buf, size_t len)
{
	char tmp[4096];
	size_t off = 0;
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		fprintf(stderr, "dcbpf: metrics: path too long: %s\n", path);
		return -ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "dcbpf: metrics: cannot create %s: %s\n", tmp, strerror(errno));
		return -errno;
	}
	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "dcbpf: metrics: writing %s: %s\n", tmp,
				n < 0 ? strerror(errno) : "short write");
			close(fd);
			unlink(tmp);
			return -EIO;
		}
		off += (size_t)n;
	}
	if (fsync(fd) || close(fd)) {
		fprintf(stderr, "dcbpf: metrics: writing %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path)) {
		fprintf(stderr, "dcbpf: metrics: rename %s -> %s: %s\n", tmp, path, strerror(errno));
		unlink(tmp);
		return -errno;
	}
	return 0;
}

/* One snapshot of every pinned counter, rendered into a malloc'd buffer. */
static int render(const char *pin_dir, bool daemon_up, char **buf, size_t *len)
{
	struct snapshot *s = calloc(1, sizeof(*s));
	FILE *mf;

	*buf = NULL;
	*len = 0;
	if (!s)
		return -ENOMEM;
	s->daemon_up = daemon_up;
	read_cc(s, pin_dir);
	read_switches(s, pin_dir);
	read_host_ifs(s, pin_dir);
	mf = open_memstream(buf, len);
	if (!mf) {
		free(s);
		return -ENOMEM;
	}
	print_all(mf, s);
	free(s);
	if (fclose(mf)) {
		free(*buf);
		*buf = NULL;
		return -EIO;
	}
	return 0;
}

int dc_metrics_write(const char *pin_dir, const char *lock_file, bool daemon_up,
		     const char *path)
{
	char *buf;
	size_t len;
	int err;

	/* the lock holder cannot see its own lock with F_GETLK: the daemon
	 * says it is up itself */
	err = render(pin_dir, daemon_up || (lock_file && dc_lock_holder(lock_file) > 0), &buf, &len);
	if (err)
		return err;
	err = write_textfile(path, buf, len);
	free(buf);
	return err;
}

static void metrics_usage(FILE *f)
{
	fprintf(f, "usage: dcbpf [--pin-dir DIR] metrics [--textfile PATH]\n"
		   "  without --textfile: Prometheus text format on stdout\n"
		   "  --textfile PATH: write PATH.tmp, then rename it to PATH (node_exporter\n"
		   "                   textfile collector; PATH should end in .prom)\n");
}

int dc_metrics_main(const char *pin_dir, const char *lock_file, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "textfile", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *textfile = NULL;
	char *buf = NULL;
	size_t len = 0;
	int o, rc = EXIT_OK;

	optind = 1;
	while ((o = getopt_long(argc, argv, "+t:h", opts, NULL)) != -1) {
		switch (o) {
		case 't':
			textfile = optarg;
			break;
		case 'h':
			metrics_usage(stdout);
			return EXIT_OK;
		default:
			metrics_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || (textfile && !*textfile)) {
		metrics_usage(stderr);
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (textfile)
		return dc_metrics_write(pin_dir, lock_file, false, textfile) ? EXIT_ERR : EXIT_OK;
	if (render(pin_dir, dc_lock_holder(lock_file) > 0, &buf, &len))
		return EXIT_ERR;
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
		rc = EXIT_ERR;
	free(buf);
	return rc;
}
