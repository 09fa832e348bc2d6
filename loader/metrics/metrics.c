// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf metrics`: read every pinned counter once and print it in the
 * Prometheus text exposition format, or write it for node_exporter's
 * textfile collector (PATH.tmp, then rename, so a scrape never sees half a
 * file).
 *
 * Everything is read first into plain structs (metricsread.c), then
 * printed family by family: the format wants all samples of one metric together, after its
 * HELP and TYPE lines.  A map that is not pinned simply contributes no
 * samples; a map of the wrong shape (another build) is reported on stderr
 * and counted in dcbpf_metrics_errors.  Every counter struct is printed
 * from its table (loader/lib/counters.h), so each of its members is a
 * family here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "counters.h"
#include "metrics/metrics.h"
#include "metrics/metricspriv.h"
#include "version.h"

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

/* A label pair name="value" appended to buf (value escaped), comma first
 * if buf is not empty. */
static void label_add(char *buf, size_t len, const char *name, const char *v)
{
	size_t n = strlen(buf);

	n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s=\"", n ? "," : "", name);
	for (; *v && n + 3 < len; v++) {
		if (*v == '\\' || *v == '"')
			buf[n++] = '\\';
		if (*v == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
			continue;
		}
		buf[n++] = *v;
	}
	if (n + 1 < len)
		buf[n++] = '"';
	buf[n < len ? n : len - 1] = '\0';
}

#define LABEL_LEN 160

/* Counter families of one table over n label sets; nothing when n is 0. */
static void counters(FILE *f, const struct dc_ctr_set *set, const struct dc_ctr_prom *how,
		     unsigned int n, char (*labels)[LABEL_LEN], const void *const *vals)
{
	const char *lp[MAX_SWITCHES * DC_SW_PORTS_MAX];
	unsigned int i;

	for (i = 0; i < n && i < sizeof(lp) / sizeof(lp[0]); i++)
		lp[i] = labels[i];
	if (i)
		dc_ctr_prom(f, set, how, i, lp, vals);
}

static const char *const mode_names[] = { "init", "theta", "int" };

static void print_cc(FILE *f, const struct snapshot *s, char (*lb)[LABEL_LEN], const void **v)
{
	static const struct dc_ctr_prom how = { "dcbpf_cc_", "dc_cc_stats", 0, 0 };
	unsigned int k, m;

	family(f, "dcbpf_daemon_up", "gauge", "1 if a dcbpfd holds the lock file.");
	fprintf(f, "dcbpf_daemon_up %d\n", s->daemon_up);
	family(f, "dcbpf_cc_registered", "gauge",
	       "1 if the congestion control is in tcp_available_congestion_control.");
	for (k = 0; k < dc_ncc_regs; k++)
		fprintf(f, "dcbpf_cc_registered{cc=\"%s\"} %d\n", dc_cc_regs[k].name,
			s->cc_registered[k]);

	for (k = 0; k < DC_CC_MAX; k++) {
		lb[k][0] = '\0';
		label_add(lb[k], LABEL_LEN, "cc", dc_ccs[k].name);
		v[k] = &s->stats[k];
	}
	counters(f, &dc_ctr_cc, &how, s->have_stats ? DC_CC_MAX : 0, lb, v);
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
	if (s->have_dctcp) {
		static const struct dc_ctr_prom d = { "dcbpf_dctcp_", "dc_dctcp_stat", 0, 0 };

		lb[0][0] = '\0';
		v[0] = &s->dctcp;
		counters(f, &dc_ctr_dctcp, &d, 1, lb, v);
	}
}

static void print_int(FILE *f, const struct snapshot *s, char (*lb)[LABEL_LEN], const void **v)
{
	static const struct dc_ctr_prom host = { "dcbpf_int_", "dc_int_stats", 0, 0 };
	static const struct dc_ctr_prom sw = { "dcbpf_int_switch_", "dc_int_xstats", 0, 0 };
	unsigned int w, n = 0;

	lb[0][0] = '\0';
	v[0] = &s->int_stats;
	counters(f, &dc_ctr_int, &host, s->have_int, lb, v);
	for (w = 0; w < s->nsw; w++) {
		if (!s->sw[w].have_xstats)
			continue;
		lb[n][0] = '\0';
		label_add(lb[n], LABEL_LEN, "switch", s->sw[w].name);
		v[n++] = &s->sw[w].xstats;
	}
	counters(f, &dc_ctr_int, &sw, n, lb, v);
}

static void print_eth(FILE *f, const struct snapshot *s, char (*lb)[LABEL_LEN], const void **v)
{
	static const struct dc_ctr_prom host = { "dcbpf_eth_host_", "dc_eth_hstats", 0, 0 };
	static const struct dc_ctr_prom leaf = { "dcbpf_eth_leaf_", "dc_eth_lstats", 0, 0 };
	unsigned int e, n;

	for (e = n = 0; e < s->neth; e++) {
		if (!s->eth[e].have_host)
			continue;
		lb[n][0] = '\0';
		label_add(lb[n], LABEL_LEN, "netns", s->eth[e].netns);
		v[n++] = &s->eth[e].host;
	}
	counters(f, &dc_ctr_eth_host, &host, n, lb, v);
	for (e = n = 0; e < s->neth; e++) {
		if (!s->eth[e].have_leaf)
			continue;
		lb[n][0] = '\0';
		label_add(lb[n], LABEL_LEN, "netns", s->eth[e].netns);
		v[n++] = &s->eth[e].leaf;
	}
	counters(f, &dc_ctr_eth_leaf, &leaf, n, lb, v);
}

/* The areas' counters (metricsread.c's table): per-namespace ones labelled
 * netns ("" for the host's own), the others without labels. */
static void print_areas(FILE *f, const struct snapshot *s, char (*lb)[LABEL_LEN], const void **v)
{
	const struct area_src *a;
	unsigned int i, k, n;

	for (i = 0; dc_metrics_areas[i].prefix; i++) {
		const struct dc_ctr_prom how = { dc_metrics_areas[i].prefix, dc_metrics_areas[i].map, 0, 0 };

		a = &dc_metrics_areas[i];
		for (k = n = 0; k < s->narea; k++) {
			if (s->area[k].src != i)
				continue;
			lb[n][0] = '\0';
			if (a->per_ns)
				label_add(lb[n], LABEL_LEN, "netns", s->area[k].netns);
			v[n++] = s->area[k].v;
		}
		counters(f, a->set, &how, n, lb, v);
	}
}

enum port_field { PF_QLEN_BYTES, PF_QLEN_PKTS, PF_TX_BYTES, PF_THRESH, PF_RATE };

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
		return (__u64)p->rate_mbps * 1000000 / 8;
	}
	return 0;
}

static void print_switches(FILE *f, const struct snapshot *s, char (*lb)[LABEL_LEN],
			   const void **v)
{
	static const struct {
		enum port_field pf;
		const char *name, *type, *help;
	} pfs[] = {
		{ PF_QLEN_BYTES, "dcbpf_sw_port_qlen_bytes", "gauge",
		  "Root qdisc backlog of the port in bytes (dc_sw_port.qlen_bytes)." },
		{ PF_QLEN_PKTS, "dcbpf_sw_port_qlen_packets", "gauge",
		  "Root qdisc backlog of the port in packets." },
		{ PF_TX_BYTES, "dcbpf_sw_port_tx_bytes_total", "counter",
		  "Bytes dequeued by the port's root qdisc." },
		{ PF_THRESH, "dcbpf_sw_port_threshold_bytes", "gauge",
		  "Admission threshold of the port's last decision." },
		/* bytes, not bits: the base unit Prometheus asks for, and the
		 * unit of rate(dcbpf_sw_port_tx_bytes_total), so utilisation is
		 * one division */
		{ PF_RATE, "dcbpf_sw_port_rate_bytes_per_second", "gauge",
		  "Configured port rate in bytes per second (dc_sw_port.rate_mbps * 125000)." },
	};
	static const struct dc_ctr_prom port = { "dcbpf_sw_port_", "dc_sw_cnt", DC_CTR_NOPORT, 0 };
	static const struct dc_ctr_prom other = { "dcbpf_sw_", "dc_sw_cnt", 0, DC_CTR_NOPORT };
	unsigned int i, w, p, n;
	bool any_port = false, any_state = false;

	for (w = 0; w < s->nsw; w++) {
		any_port |= s->sw[w].have_port;
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
	for (i = 0; any_port && i < sizeof(pfs) / sizeof(pfs[0]); i++) {
		family(f, pfs[i].name, pfs[i].type, pfs[i].help);
		for (w = 0; w < s->nsw; w++) {
			const struct sw_m *sw = &s->sw[w];

			for (p = 0; sw->have_port && p < DC_SW_PORTS_MAX; p++) {
				if (!sw->port[p].used)
					continue;
				fprintf(f, "%s{", pfs[i].name);
				port_labels(f, sw, p);
				fprintf(f, "} %llu\n",
					(unsigned long long)port_value(&sw->port[p], pfs[i].pf));
			}
		}
	}
	/* dc_sw_cnt: per port (all priorities and CPUs), and per switch for
	 * the packets that were no admission candidates */
	for (w = n = 0; w < s->nsw; w++) {
		const struct sw_m *sw = &s->sw[w];

		for (p = 0; sw->have_port && sw->have_cnt && p < DC_SW_PORTS_MAX; p++) {
			char id[12];

			if (!sw->port[p].used)
				continue;
			snprintf(id, sizeof(id), "%u", p);
			lb[n][0] = '\0';
			label_add(lb[n], LABEL_LEN, "switch", sw->name);
			label_add(lb[n], LABEL_LEN, "port", id);
			label_add(lb[n], LABEL_LEN, "ifname", sw->port[p].ifname);
			v[n++] = &sw->port[p].cnt;
		}
	}
	counters(f, &dc_ctr_sw, &port, n, lb, v);
	for (w = n = 0; w < s->nsw; w++) {
		if (!s->sw[w].have_cnt)
			continue;
		lb[n][0] = '\0';
		label_add(lb[n], LABEL_LEN, "switch", s->sw[w].name);
		v[n++] = &s->sw[w].other;
	}
	counters(f, &dc_ctr_sw, &other, n, lb, v);
}

static void print_build_info(FILE *f)
{
	family(f, "dcbpf_build_info", "gauge",
	       "Always 1; the labels say which dcbpf wrote these metrics and the libbpf it runs with.");
	fputs("dcbpf_build_info{version=\"", f);
	label_value(f, dc_version());
	fputs("\",git=\"", f);
	label_value(f, dc_version_git());
	fputs("\",libbpf=\"", f);
	label_value(f, dc_libbpf_running());
	fputs("\"} 1\n", f);
}

/* Label sets and values of the largest family: one per switch port. */
#define MAX_SETS (MAX_SWITCHES * DC_SW_PORTS_MAX)

static int print_all(FILE *f, const struct snapshot *s)
{
	char (*lb)[LABEL_LEN] = calloc(MAX_SETS, sizeof(*lb));
	const void **v = calloc(MAX_SETS, sizeof(*v));

	if (!lb || !v) {
		free(lb);
		free(v);
		return -ENOMEM;
	}
	print_build_info(f);
	print_cc(f, s, lb, v);
	print_int(f, s, lb, v);
	print_host_ifs(f, s);
	print_eth(f, s, lb, v);
	print_areas(f, s, lb, v);
	print_switches(f, s, lb, v);
	family(f, "dcbpf_metrics_errors", "gauge",
	       "Pinned maps that could not be read in this run (see dcbpf's stderr).");
	fprintf(f, "dcbpf_metrics_errors %u\n", s->errors);
	free(lb);
	free(v);
	return 0;
}

/* ---- output -------------------------------------------------------------- */

static int write_textfile(const char *path, const char *buf, size_t len, struct dc_err *err)
{
	char tmp[4096];
	size_t off = 0;
	int fd, e;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		dc_err_set(err, EXIT_USAGE, "metrics: path too long: %s", path);
		return -ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		dc_err_set(err, EXIT_ERR, "metrics: cannot create %s: %s", tmp, strerror(e));
		return -e;
	}
	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			dc_err_set(err, EXIT_ERR, "metrics: writing %s: %s", tmp,
				   n < 0 ? strerror(errno) : "short write");
			close(fd);
			unlink(tmp);
			return -EIO;
		}
		off += (size_t)n;
	}
	if (fsync(fd) || close(fd)) {
		dc_err_set(err, EXIT_ERR, "metrics: writing %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path)) {
		e = errno;
		dc_err_set(err, EXIT_ERR, "metrics: rename %s -> %s: %s", tmp, path, strerror(e));
		unlink(tmp);
		return -e;
	}
	return 0;
}

int dc_metrics_render(const char *pin_dir, bool daemon_up, char **buf, size_t *len,
		      struct dc_err *warn)
{
	struct snapshot *s = calloc(1, sizeof(*s));
	FILE *mf;
	int err;

	*buf = NULL;
	*len = 0;
	dc_err_clear(warn);
	if (!s)
		return -ENOMEM;
	s->daemon_up = daemon_up;
	dc_metrics_read(s, pin_dir);
	if (s->errors)
		dc_err_set(warn, EXIT_OK, "metrics: %u pinned map%s not read (%s)", s->errors,
			   s->errors == 1 ? "" : "s", s->first_error);
	mf = open_memstream(buf, len);
	if (!mf) {
		free(s);
		return -ENOMEM;
	}
	err = print_all(mf, s);
	free(s);
	if (fclose(mf) || err) {
		free(*buf);
		*buf = NULL;
		return err ? err : -EIO;
	}
	return 0;
}

int dc_metrics_write(const char *pin_dir, bool daemon_up, const char *path, struct dc_err *err)
{
	struct dc_err warn;
	char *buf;
	size_t len;
	int rc;

	dc_err_clear(err);
	rc = dc_metrics_render(pin_dir, daemon_up, &buf, &len, &warn);
	if (rc) {
		dc_err_set(err, EXIT_ERR, "metrics: %s", strerror(-rc));
		return rc;
	}
	rc = write_textfile(path, buf, len, err);
	free(buf);
	if (!rc && dc_err_is_set(&warn))
		*err = warn;
	return rc;
}
