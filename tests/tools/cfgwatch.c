// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cfgwatch: how long a live change takes to reach the data path.  Runs a
 * command (`dcbpf set ...`, `kill -HUP <dcbpfd>`), and from the moment it
 * starts polls the pinned maps until (1) the new value is the one the
 * programs read and (2) the first packet or ACK after that has been
 * decided (a counter of decisions moved).
 *
 *   cfgwatch --sw PIN_DIR/sw/NAME --field F --want V [--timeout-ms T] -- CMD...
 *   cfgwatch --cc PIN_DIR --id ID --field F --want V [--timeout-ms T] -- CMD...
 *
 * Switch fields: buffer_bytes, ecn_k_bytes, alpha0 (α of priority 0, Q16);
 * the live configuration is dc_sw_cfg[dc_sw_meta.cfg_slot], decisions are
 * admit + drop counters of dc_sw_cnt over every port and CPU.  CC fields:
 * gamma_q16, expected_flows, beta_bytes, min_cwnd_pkts; the value is
 * dc_cc_cfg[ID], decisions are dc_cc_stats[ID].acks.
 *
 * Prints one JSON line: cmd_us (command exit), live_us (value in the map),
 * first_us (first decision after it), cmd_rc; times from the command's
 * start, CLOCK_MONOTONIC, to within a poll period (POLL_US) and the wake-up
 * latency.  Exit 0; 1 on timeout (the JSON says which step
 * was missed); 2 on usage errors.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dcbpf/switch.h"
#include "dcbpf/types.h"
#include "tool.h"

#define POLL_US 20	/* the figures' resolution, with the wake-up latency */

static void usage(FILE *f)
{
	fprintf(f, "usage: cfgwatch --sw PIN_DIR/sw/NAME --field buffer_bytes|ecn_k_bytes|alpha0 --want V\n"
		   "                [--timeout-ms T] -- CMD...\n"
		   "       cfgwatch --cc PIN_DIR --id CC_ID --field gamma_q16|expected_flows|beta_bytes|min_cwnd_pkts\n"
		   "                --want V [--timeout-ms T] -- CMD...\n");
}

static int die_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "cfgwatch: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	usage(stderr);
	exit(2);
}

struct field {
	const char *name;
	size_t off;
};

static const struct field sw_fields[] = {
	{ "buffer_bytes", offsetof(struct dc_sw_cfg, buffer_bytes) },
	{ "ecn_k_bytes", offsetof(struct dc_sw_cfg, ecn_k_bytes) },
	{ "alpha0", offsetof(struct dc_sw_cfg, alpha_q16) },
};

static const struct field cc_fields[] = {
	{ "gamma_q16", offsetof(struct dc_cc_cfg, gamma_q16) },
	{ "expected_flows", offsetof(struct dc_cc_cfg, expected_flows) },
	{ "beta_bytes", offsetof(struct dc_cc_cfg, beta_bytes) },
	{ "min_cwnd_pkts", offsetof(struct dc_cc_cfg, min_cwnd_pkts) },
};

static int pinned(const char *dir, const char *name)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = bpf_obj_get(p);
	if (fd < 0) {
		fprintf(stderr, "cfgwatch: cannot open pinned map %s: %s\n", p, strerror(errno));
		exit(2);
	}
	return fd;
}

static int ncpus;
static __u32 sw_nports;
static int sw_cfg, sw_meta, sw_cnt, cc_cfg, cc_stats;
static __u32 cc_id;
static size_t field_off;

/* The value the programs read now. */
static __u32 live_value(int is_sw)
{
	__u32 key = 0, v = 0;

	if (is_sw) {
		struct dc_sw_meta meta;
		struct dc_sw_cfg cfg;

		if (bpf_map_lookup_elem(sw_meta, &key, &meta))
			return 0;
		key = meta.cfg_slot;
		if (bpf_map_lookup_elem(sw_cfg, &key, &cfg))
			return 0;
		memcpy(&v, (char *)&cfg + field_off, sizeof(v));
	} else {
		struct dc_cc_cfg cfg;

		if (bpf_map_lookup_elem(cc_cfg, &cc_id, &cfg))
			return 0;
		memcpy(&v, (char *)&cfg + field_off, sizeof(v));
	}
	return v;
}

/* Decisions taken so far: admitted + dropped packets of the switch over
 * every counter slot and CPU, or the CC's ACKs over every CPU. */
static __u64 decisions(int is_sw)
{
	__u64 sum = 0;
	int c;

	if (is_sw) {
		struct dc_sw_counters v[ncpus];
		__u32 k;

		/* the switch's ports only: a poll must stay short */
		for (k = 0; k < sw_nports * DC_SW_PRIOS; k++) {
			if (bpf_map_lookup_elem(sw_cnt, &k, v))
				break;
			for (c = 0; c < ncpus; c++)
				sum += v[c].admit_pkts + v[c].drop_thresh_pkts + v[c].drop_full_pkts + v[c].drop_pred_pkts;
		}
	} else {
		struct dc_cc_counters s;

		/* dc_cc_stats is a shared array updated with atomic adds */
		if (!bpf_map_lookup_elem(cc_stats, &cc_id, &s))
			sum = s.acks;
	}
	return sum;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "sw", 1, 0, 's' }, { "cc", 1, 0, 'c' }, { "id", 1, 0, 'i' }, { "field", 1, 0, 'f' },
		{ "want", 1, 0, 'w' }, { "timeout-ms", 1, 0, 't' }, { "help", 0, 0, 'h' }, { 0 },
	};
	const char *sw = NULL, *cc = NULL, *fname = NULL;
	long long want = -1, timeout_ms = 2000;
	int o, is_sw, found = 0, status = 0;
	unsigned int i;
	char *end;

	while ((o = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
		switch (o) {
		case 's': sw = optarg; break;
		case 'c': cc = optarg; break;
		case 'i':
			cc_id = (__u32)strtoul(optarg, &end, 10);
			if (*end || cc_id >= DC_CC_MAX)
				die_usage("--id must be a CC id below DC_CC_MAX", optarg);
			break;
		case 'f': fname = optarg; break;
		case 'w':
			want = strtoll(optarg, &end, 0);
			if (*end || want < 0 || want > UINT32_MAX)
				die_usage("--want must be a 32-bit unsigned value", optarg);
			break;
		case 't':
			timeout_ms = strtoll(optarg, &end, 10);
			if (*end || timeout_ms <= 0)
				die_usage("--timeout-ms must be a positive number", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!!sw == !!cc)
		die_usage("give one of --sw or --cc", NULL);
	if (!fname || want < 0)
		die_usage("--field and --want are required", NULL);
	if (optind >= argc)
		die_usage("no command to run after --", NULL);
	is_sw = !!sw;
	{
		const struct field *fs = is_sw ? sw_fields : cc_fields;
		unsigned int n = is_sw ? sizeof(sw_fields) / sizeof(sw_fields[0]) : sizeof(cc_fields) / sizeof(cc_fields[0]);

		for (i = 0; i < n; i++)
			if (!strcmp(fs[i].name, fname)) {
				field_off = fs[i].off;
				found = 1;
			}
	}
	if (!found)
		die_usage("unknown --field", fname);
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		die_usage("cannot count the CPUs", NULL);
	if (is_sw) {
		sw_cfg = pinned(sw, "dc_sw_cfg");
		sw_meta = pinned(sw, "dc_sw_meta");
		sw_cnt = pinned(sw, "dc_sw_cnt");
		{
			struct dc_sw_meta meta;
			__u32 k = 0;

			if (bpf_map_lookup_elem(sw_meta, &k, &meta) || !meta.nports || meta.nports > DC_SW_PORTS_MAX)
				die_usage("the switch's dc_sw_meta names no ports", sw);
			sw_nports = meta.nports;
		}
	} else {
		cc_cfg = pinned(cc, "dc_cc_cfg");
		cc_stats = pinned(cc, "dc_cc_stats");
	}
	if (live_value(is_sw) == (__u32)want)
		die_usage("the value is live already: nothing to measure", fname);

	uint64_t t0 = now_ns(), deadline = t0 + (uint64_t)timeout_ms * 1000000ull;
	uint64_t t_cmd = 0, t_live = 0, t_first = 0, d_live = 0;
	pid_t pid = fork();

	if (pid < 0) {
		perror("cfgwatch: fork");
		return 2;
	}
	if (!pid) {
		/* stdout is this tool's JSON line: the command's output goes to stderr */
		dup2(2, 1);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "cfgwatch: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	/* Poll every POLL_US: fine against figures of ms, and it leaves the
	 * CPU to the command and the traffic (a spinning poller on a 2-core
	 * machine took one of them and stretched the command it measures). */
	while ((!t_first || !t_cmd) && now_ns() < deadline) {
		struct timespec nap = { 0, POLL_US * 1000 };

		nanosleep(&nap, NULL);
		if (!t_cmd && waitpid(pid, &status, WNOHANG) == pid)
			t_cmd = now_ns();
		if (!t_live && live_value(is_sw) == (__u32)want) {
			t_live = now_ns();
			d_live = decisions(is_sw);
		} else if (t_live && !t_first && decisions(is_sw) != d_live) {
			t_first = now_ns();
		}
	}
	if (!t_cmd) {
		if (waitpid(pid, &status, 0) == pid)
			t_cmd = now_ns();
	}
	printf("{\"cmd_us\":%.1f,\"live_us\":", (double)(t_cmd - t0) / 1e3);
	t_live ? printf("%.1f", (double)(t_live - t0) / 1e3) : printf("null");
	printf(",\"first_us\":");
	t_first ? printf("%.1f", (double)(t_first - t0) / 1e3) : printf("null");
	printf(",\"cmd_rc\":%d}\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return t_live && t_first ? 0 : 1;
}
