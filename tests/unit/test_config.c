// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Config parser and parameter table (loader/lib/config.c): a good file, each
 * kind of bad line reported with its file:line, key, value and range,
 * nothing applied on error, range edges, Q16 round trips, CLI keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <dcbpf/powertcp.h>

#include "check.h"
#include "loader/lib/config.h"

static struct dc_errbuf eb;
static struct dc_config cfg;

/* Parse text as "t.conf"; returns the loader's result. */
static int parse(const char *text)
{
	memset(&eb, 0, sizeof(eb));
	dc_config_defaults(&cfg);
	return dc_config_load_string("t.conf", text, &cfg, &eb);
}

static int has(const char *needle)
{
	return strstr(eb.msg, needle) != NULL;
}

/* One bad line: fails, names file:line, and each of the words given. */
static void bad(const char *name, const char *text, const char *where, const char *w1,
		const char *w2)
{
	char n[128];
	int r = parse(text);

	snprintf(n, sizeof(n), "%s: rejected", name);
	CHECK(n, r == -1, "parse returned %d", r);
	snprintf(n, sizeof(n), "%s: names %s", name, where);
	CHECK(n, has(where), "message: %s", eb.msg);
	if (w1) {
		snprintf(n, sizeof(n), "%s: says '%s'", name, w1);
		CHECK(n, has(w1), "message: %s", eb.msg);
	}
	if (w2) {
		snprintf(n, sizeof(n), "%s: says '%s'", name, w2);
		CHECK(n, has(w2), "message: %s", eb.msg);
	}
}

static void ok(const char *name, const char *text)
{
	int r = parse(text);

	CHECK(name, r == 0, "parse returned %d: %s", r, eb.msg);
}

static void test_good_file(void)
{
	const char *text =
		"; dcbpfd test config\n"
		"# both comment styles\n"
		"[daemon]\n"
		"pin_dir = /sys/fs/bpf/dcbpf-unit/\n"
		"lock_file = /run/dcbpf-unit.lock\n"
		"log_level = debug\n"
		"\n"
		"[powertcp]\n"
		"gamma = 0.8\n"
		"base_rtt_us = 50\n"
		"host_bw_mbps = 25000\n"
		"expected_flows = 16\n"
		"beta_bytes = 3000\n"
		"int_stale_us = 500\n"
		"min_cwnd_pkts = 4\n"
		"pacing = 0\n"
		"[theta_powertcp]\n"
		"  gamma = 1      ; indented, inline comment\n"
		"base_rtt_us: 0\n";
	struct dc_config def;

	ok("good file parses", text);
	CHECK("pin_dir trailing slash dropped", !strcmp(cfg.daemon.pin_dir, "/sys/fs/bpf/dcbpf-unit"),
	      "%s", cfg.daemon.pin_dir);
	CHECK("lock_file", !strcmp(cfg.daemon.lock_file, "/run/dcbpf-unit.lock"), "%s",
	      cfg.daemon.lock_file);
	CHECK_EQ("log_level debug", cfg.daemon.log_level, DC_LOG_DEBUG);
	CHECK_EQ("gamma 0.8 -> Q16 52429", cfg.cc[DC_CC_POWERTCP].gamma_q16, 52429);
	CHECK_EQ("base_rtt_us", cfg.cc[DC_CC_POWERTCP].base_rtt_us, 50);
	CHECK_EQ("host_bw_mbps", cfg.cc[DC_CC_POWERTCP].host_bw_mbps, 25000);
	CHECK_EQ("expected_flows", cfg.cc[DC_CC_POWERTCP].expected_flows, 16);
	CHECK_EQ("beta_bytes", cfg.cc[DC_CC_POWERTCP].beta_bytes, 3000);
	CHECK_EQ("int_stale_us", cfg.cc[DC_CC_POWERTCP].int_stale_us, 500);
	CHECK_EQ("min_cwnd_pkts", cfg.cc[DC_CC_POWERTCP].min_cwnd_pkts, 4);
	CHECK_EQ("pacing", cfg.cc[DC_CC_POWERTCP].pacing, 0);
	CHECK_EQ("theta gamma 1 (indented, inline comment)", cfg.cc[DC_CC_THETA].gamma_q16, 65536);
	dc_config_defaults(&def);
	CHECK_EQ("theta keeps defaults for unset keys", cfg.cc[DC_CC_THETA].host_bw_mbps,
		 def.cc[DC_CC_THETA].host_bw_mbps);
	CHECK_EQ("default gamma is DC_DEFAULT_GAMMA_Q16", def.cc[0].gamma_q16,
		 DC_DEFAULT_GAMMA_Q16);

	ok("empty file is all defaults", "");
	ok("CRLF line endings", "[powertcp]\r\ngamma = 0.5\r\n");
	CHECK_EQ("CRLF value", cfg.cc[DC_CC_POWERTCP].gamma_q16, 32768);
}

static void test_bad_lines(void)
{
	struct dc_config before;
	int r;

	bad("unknown key", "[powertcp]\ngamma = 0.8\ngama = 0.8\n", "t.conf:3:", "gama",
	    "unknown key");
	bad("unknown section", "[daemon]\n[cubic]\nbeta = 1\n", "t.conf:3:", "[cubic]",
	    "unknown section");
	bad("key outside a section", "gamma = 0.5\n", "t.conf:1:", "gamma", "outside a section");
	bad("not a number", "[powertcp]\nhost_bw_mbps = fast\n", "t.conf:2:", "fast",
	    "allowed [1, 1000000]");
	bad("negative number", "[powertcp]\nbase_rtt_us = -1\n", "t.conf:2:", "-1",
	    "allowed [0, 1000000]");
	bad("out of range", "[theta_powertcp]\n\nexpected_flows = 0\n", "t.conf:3:",
	    "expected_flows = 0", "out of range; allowed [1, 1000000]");
	bad("gamma above 1", "[powertcp]\ngamma = 1.5\n", "t.conf:2:", "gamma = 1.5",
	    "allowed (0, 1]");
	bad("gamma not decimal", "[powertcp]\ngamma = 0,8\n", "t.conf:2:", "0,8",
	    "not a decimal number");
	bad("bool", "[powertcp]\npacing = yes\n", "t.conf:2:", "pacing = yes", "0 or 1");
	bad("duplicate key", "[powertcp]\ngamma = 0.5\ngamma = 0.6\n", "t.conf:3:", "duplicate",
	    "line 2");
	bad("syntax error", "[powertcp]\ngamma 0.5\n", "t.conf:2:", "syntax error", NULL);
	bad("unterminated section", "[powertcp\ngamma = 0.5\n", "t.conf:1:", "syntax error", NULL);
	bad("relative lock_file", "[daemon]\nlock_file = run/x.lock\n", "t.conf:2:", "lock_file",
	    "absolute path");
	bad("pin_dir outside bpffs", "[daemon]\npin_dir = /tmp/pins\n", "t.conf:2:", "/tmp/pins",
	    "/sys/fs/bpf");
	bad("pin_dir is the bpffs root", "[daemon]\npin_dir = /sys/fs/bpf/\n", "t.conf:2:",
	    "pin_dir", "/sys/fs/bpf");
	bad("log level", "[daemon]\nlog_level = loud\n", "t.conf:2:", "loud",
	    "error, warn, info or debug");
	bad("daemon key in a CC section", "[powertcp]\npin_dir = /sys/fs/bpf/x\n", "t.conf:2:",
	    "unknown key", "keys in [powertcp]: gamma");
	{
		char longline[400];

		memset(longline, 'x', sizeof(longline));
		memcpy(longline, "[powertcp]\ngamma = ", 19);
		longline[sizeof(longline) - 2] = '\n';
		longline[sizeof(longline) - 1] = '\0';
		bad("line too long", longline, "t.conf:2:", "too long", NULL);
	}

	/* every error is reported, and nothing is applied */
	memset(&eb, 0, sizeof(eb));
	dc_config_defaults(&before);
	cfg = before;
	cfg.cc[0].gamma_q16 = 12345;	/* sentinel: must survive a failed parse */
	before = cfg;
	r = dc_config_load_string("t.conf",
				  "[powertcp]\ngamma = 0.5\nhost_bw_mbps = 0\n[theta_powertcp]\n"
				  "pacing = 3\n",
				  &cfg, &eb);
	CHECK("several errors: rejected", r == -1, "r=%d", r);
	CHECK_EQ("several errors: all reported", eb.count, 2);
	CHECK("several errors: lines 3 and 5", has("t.conf:3:") && has("t.conf:5:"), "%s", eb.msg);
	CHECK("nothing applied on error", !memcmp(&cfg, &before, sizeof(cfg)), "config changed");

	memset(&eb, 0, sizeof(eb));
	r = dc_config_load("/nonexistent/dcbpfd.conf", &cfg, &eb);
	CHECK("missing file names the path", r == -1 && has("/nonexistent/dcbpfd.conf: cannot open"),
	      "%s", eb.msg);
}

static void test_file_lines(void)
{
	char path[] = "/tmp/dcbpf-test-config-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	int r;

	CHECK("temp file", fd >= 0, "mkstemp failed");
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	fputs("[daemon]\nlog_level = info\n\n; comment\n[powertcp]\nmin_cwnd_pkts = 0\n", f);
	fclose(f);
	memset(&eb, 0, sizeof(eb));
	r = dc_config_load(path, &cfg, &eb);
	unlink(path);
	CHECK("file: bad value rejected", r == -1, "r=%d", r);
	{
		char want[96];

		snprintf(want, sizeof(want), "%s:6: [powertcp] min_cwnd_pkts = 0", path);
		CHECK("file: message is file:line: [section] key = value", has(want), "%s", eb.msg);
	}
	CHECK("file: message gives the range", has("allowed [1, 10000] packets"), "%s", eb.msg);
}

struct edge {
	const char *key;
	const char *val;
	int good;
	__u32 raw;
};

static void test_edges(void)
{
	static const struct edge edges[] = {
		{ "gamma", "1", 1, 65536 },
		{ "gamma", "1.0", 1, 65536 },
		{ "gamma", "1.000000001", 0, 0 },
		{ "gamma", "0", 0, 0 },
		{ "gamma", "0.0", 0, 0 },
		{ "gamma", "0.0000153", 1, 1 },
		{ "gamma", "0.000001", 0, 0 },
		{ "gamma", ".5", 1, 32768 },
		{ "gamma", "0.9", 1, 58982 },
		{ "gamma", "0.1234567891", 0, 0 },
		{ "gamma", "", 0, 0 },
		{ "base_rtt_us", "0", 1, 0 },
		{ "base_rtt_us", "1000000", 1, 1000000 },
		{ "base_rtt_us", "1000001", 0, 0 },
		{ "host_bw_mbps", "0", 0, 0 },
		{ "host_bw_mbps", "1", 1, 1 },
		{ "host_bw_mbps", "4294967296", 0, 0 },
		{ "beta_bytes", "1073741824", 1, 1073741824 },
		{ "beta_bytes", "1073741825", 0, 0 },
		{ "int_stale_us", "0", 0, 0 },
		{ "int_stale_us", "10000000", 1, 10000000 },
		{ "min_cwnd_pkts", "10000", 1, 10000 },
		{ "min_cwnd_pkts", "10001", 0, 0 },
		{ "pacing", "1", 1, 1 },
		{ "pacing", "2", 0, 0 },
		{ "expected_flows", "1e3", 0, 0 },
		{ "expected_flows", " 5", 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		const struct dc_param *p = dc_param_find(DC_SCOPE_CC, edges[i].key);
		struct dc_cc_cfg c;
		char name[128], why[160];
		int r;

		dc_cc_cfg_defaults(&c);
		c.gamma_q16 = 777;
		r = p ? dc_param_parse(p, edges[i].val, &c, why, sizeof(why)) : -2;
		snprintf(name, sizeof(name), "edge %s = '%s' %s", edges[i].key, edges[i].val,
			 edges[i].good ? "accepted" : "rejected");
		CHECK(name, edges[i].good ? r == 0 : r == -1, "r=%d", r);
		if (edges[i].good && !r) {
			snprintf(name, sizeof(name), "edge %s = '%s' stores %u", edges[i].key,
				 edges[i].val, edges[i].raw);
			CHECK_EQ(name, dc_param_raw(p, &c), edges[i].raw);
		}
		if (!edges[i].good && !strcmp(edges[i].key, "gamma")) {
			snprintf(name, sizeof(name), "edge gamma = '%s' leaves the field", edges[i].val);
			CHECK_EQ(name, c.gamma_q16, 777);
		}
	}
}

static void test_format(void)
{
	char buf[32], why[160];
	const struct dc_param *g = dc_param_find(DC_SCOPE_CC, "gamma");
	unsigned int q, bad_rt = 0, first_bad = 0;
	struct dc_cc_cfg c;

	dc_q16_format(52429, buf, sizeof(buf));
	CHECK("format Q16 0.8", !strcmp(buf, "0.8"), "%s", buf);
	dc_q16_format(65536, buf, sizeof(buf));
	CHECK("format Q16 1", !strcmp(buf, "1"), "%s", buf);
	dc_q16_format(DC_DEFAULT_GAMMA_Q16, buf, sizeof(buf));
	CHECK("format default gamma 0.9", !strcmp(buf, "0.9"), "%s", buf);
	/* every representable gamma prints as a decimal that parses back to it */
	for (q = 1; q <= 65536; q++) {
		dc_q16_format(q, buf, sizeof(buf));
		if (dc_param_parse(g, buf, &c, why, sizeof(why)) || c.gamma_q16 != q) {
			if (!bad_rt++)
				first_bad = q;
		}
	}
	CHECK("Q16 format/parse round trip for all gammas", bad_rt == 0, "%u fail, first %u",
	      bad_rt, first_bad);
	dc_param_range(g, buf, sizeof(buf));
	CHECK("gamma range text", !strcmp(buf, "(0, 1]"), "%s", buf);
}

static void test_keys(void)
{
	const struct dc_cc_desc *cc;
	const struct dc_param *p;
	char why[256];

	CHECK("key powertcp.gamma", !dc_key_parse("powertcp.gamma", &cc, &p, why, sizeof(why)) &&
					    cc->id == DC_CC_POWERTCP && !strcmp(p->name, "gamma"),
	      "%s", why);
	CHECK("key theta_powertcp.pacing",
	      !dc_key_parse("theta_powertcp.pacing", &cc, &p, why, sizeof(why)) &&
		      cc->id == DC_CC_THETA,
	      "%s", why);
	CHECK("key daemon.pin_dir refused (restart only)",
	      dc_key_parse("daemon.pin_dir", &cc, &p, why, sizeof(why)) && strstr(why, "restart"),
	      "%s", why);
	CHECK("key cubic.gamma refused", dc_key_parse("cubic.gamma", &cc, &p, why, sizeof(why)) &&
						 strstr(why, "cubic"), "%s", why);
	CHECK("key powertcp.nope refused", dc_key_parse("powertcp.nope", &cc, &p, why, sizeof(why)) &&
						   strstr(why, "nope"), "%s", why);
	CHECK("key without dot refused", dc_key_parse("powertcp", &cc, &p, why, sizeof(why)) == -1,
	      "%s", why);
}

static void test_table(void)
{
	unsigned int i, ncc = 0;
	char *doc = NULL;
	size_t len = 0;
	FILE *f;

	for (i = 0; i < dc_nparams; i++)
		if (dc_params[i].scope == DC_SCOPE_CC)
			ncc++;
	/* struct dc_cc_cfg is all __u32 fields, each one in the table */
	CHECK_EQ("every dc_cc_cfg field has a parameter", ncc * sizeof(__u32),
		 sizeof(struct dc_cc_cfg));
	f = open_memstream(&doc, &len);
	dc_config_print_doc(f);
	fclose(f);
	for (i = 0; i < dc_nparams; i++) {
		char name[64], k[64];

		snprintf(name, sizeof(name), "doc lists %s", dc_params[i].name);
		snprintf(k, sizeof(k), "`%s`", dc_params[i].name);
		CHECK(name, strstr(doc, k) != NULL, "missing from the generated table");
	}
	free(doc);
}

/* [int] and the newer [daemon] keys: values stored, lists normalised,
 * every kind of bad item named with its line. */
static void test_int_keys(void)
{
	__u32 a, l, k;
	char why[128];

	ok("int and daemon keys",
	   "[daemon]\nflows_max = 1024\nmetrics_file = /var/lib/x/dcbpf.prom\n"
	   "metrics_interval_s = 5\n[int]\ninterfaces =  eth0   veth*  ens[0-9]\n"
	   "netns = fab-h1\ndestinations = 10.0.0.0/8:2 192.168.1.7\n");
	CHECK_EQ("flows_max", cfg.daemon.flows_max, 1024);
	CHECK("metrics_file", !strcmp(cfg.daemon.metrics_file, "/var/lib/x/dcbpf.prom"), "%s",
	      cfg.daemon.metrics_file);
	CHECK_EQ("metrics_interval_s", cfg.daemon.metrics_interval_s, 5);
	CHECK("interfaces normalised", !strcmp(cfg.intf.interfaces, "eth0 veth* ens[0-9]"), "'%s'",
	      cfg.intf.interfaces);
	CHECK("netns", !strcmp(cfg.intf.netns, "fab-h1"), "%s", cfg.intf.netns);
	CHECK("destinations", !strcmp(cfg.intf.destinations, "10.0.0.0/8:2 192.168.1.7"), "'%s'",
	      cfg.intf.destinations);
	CHECK("glob matches veth0", dc_iface_matches(cfg.intf.interfaces, "veth0"), "no");
	CHECK("glob matches ens3", dc_iface_matches(cfg.intf.interfaces, "ens3"), "no");
	CHECK("eth1 does not match", !dc_iface_matches(cfg.intf.interfaces, "eth1"), "matched");
	CHECK("empty list matches nothing", !dc_iface_matches("", "eth0"), "matched");

	ok("defaults", "");
	CHECK_EQ("flows_max default 65536", cfg.daemon.flows_max, 65536);
	CHECK_EQ("metrics_interval_s default 15", cfg.daemon.metrics_interval_s, 15);
	CHECK("no metrics_file by default", !cfg.daemon.metrics_file[0], "%s", cfg.daemon.metrics_file);
	CHECK("no interfaces by default", !cfg.intf.interfaces[0], "%s", cfg.intf.interfaces);
	ok("empty metrics_file", "[daemon]\nmetrics_file =\n");

	bad("flows_max too small", "[daemon]\nflows_max = 10\n", "t.conf:2:", "flows_max = 10",
	    "allowed [128, 4194304] flows");
	bad("metrics_interval_s 0", "[daemon]\nmetrics_interval_s = 0\n", "t.conf:2:",
	    "out of range", "allowed [1, 3600] s");
	bad("metrics_file relative", "[daemon]\nmetrics_file = dcbpf.prom\n", "t.conf:2:",
	    "not an absolute path", "absolute path or empty");
	bad("interface name too long", "[int]\n\ninterfaces = eth0 averyveryverylongname0\n",
	    "t.conf:3:", "'averyveryverylongname0' is not an interface name or glob",
	    "[int] interfaces");
	bad("interface with a slash", "[int]\ninterfaces = ns/eth0\n", "t.conf:2:",
	    "'ns/eth0'", NULL);
	bad("netns with a slash", "[int]\nnetns = ../x\n", "t.conf:2:", "not a namespace name",
	    NULL);
	bad("destination length", "[int]\ndestinations = 10.0.0.0/8 10.0.0.0/33\n", "t.conf:2:",
	    "'10.0.0.0/33'", "prefix length must be 0-32");
	bad("destination not an address", "[int]\ndestinations = 10.0.0.0/8 10.0.0/8\n",
	    "t.conf:2:", "'10.0.0/8'", "not an IPv4 address");
	bad("destination length signed", "[int]\ndestinations = 10.0.0.0/+8\n", "t.conf:2:",
	    "'10.0.0.0/+8'", "prefix length must be 0-32");
	bad("destination slots", "[int]\ndestinations = 10.0.0.0/8:5\n", "t.conf:2:",
	    "slots must be 1-4", NULL);
	bad("destination host", "[int]\ndestinations = fast\n", "t.conf:2:",
	    "not an IPv4 address", NULL);
	bad("unknown int key", "[int]\niface = eth0\n", "t.conf:2:", "unknown key",
	    "keys in [int]: interfaces, netns, destinations");
	bad("int key twice", "[int]\ninterfaces = a\ninterfaces = b\n", "t.conf:3:", "duplicate",
	    "line 2");

	CHECK("prefix host bits cleared",
	      !dc_prefix_slots_parse("10.1.2.3/8", &a, &l, &k, why, sizeof(why)) && a == htonl(0x0a000000) &&
		      l == 8 && k == 4, "%s %x/%u:%u", why, a, l, k);
	CHECK("prefix /0", !dc_prefix_slots_parse("1.2.3.4/0:1", &a, &l, &k, why, sizeof(why)) && !a &&
		      !l && k == 1, "%s", why);
}

/* [perc]: IF=KBPS capacities for dcbpf perc set's path in the daemon. */
static void test_perc_keys(void)
{
	char dev[16], why[128];
	__u64 kbps;

	ok("perc keys", "[perc]\nnetns = sw1\ncapacities =  eth1=950000   eth2=1 eth3=4294967294\n");
	CHECK("perc netns", !strcmp(cfg.perc.netns, "sw1"), "%s", cfg.perc.netns);
	CHECK("perc capacities normalised", !strcmp(cfg.perc.capacities, "eth1=950000 eth2=1 eth3=4294967294"),
	      "'%s'", cfg.perc.capacities);
	CHECK("[int] netns is another key", !cfg.intf.netns[0], "%s", cfg.intf.netns);
	ok("perc defaults", "");
	CHECK("no capacities by default", !cfg.perc.capacities[0] && !cfg.perc.netns[0], "'%s'",
	      cfg.perc.capacities);
	bad("perc capacity 0", "[perc]\ncapacities = eth1=0\n", "t.conf:2:", "'eth1=0': capacity must be 1-4294967294 kbps",
	    "[perc] capacities");
	bad("perc capacity above u32 - 1", "[perc]\ncapacities = eth1=4294967295\n", "t.conf:2:",
	    "capacity must be", NULL);
	bad("perc capacity with a unit", "[perc]\ncapacities = eth1=1G\n", "t.conf:2:", "capacity must be", NULL);
	bad("perc capacity signed", "[perc]\ncapacities = eth1=+5\n", "t.conf:2:", "capacity must be", NULL);
	bad("perc no =", "[perc]\ncapacities = eth1\n", "t.conf:2:", "'eth1' is not IF=KBPS", NULL);
	bad("perc no interface", "[perc]\ncapacities = =5\n", "t.conf:2:", "is not IF=KBPS", NULL);
	bad("perc interface too long", "[perc]\ncapacities = averyveryverylongname0=5\n", "t.conf:2:",
	    "is not IF=KBPS", NULL);
	bad("perc interface twice", "[perc]\ncapacities = eth1=5 eth2=6 eth1=7\n", "t.conf:2:",
	    "interface 'eth1' given twice", NULL);
	bad("perc unknown key", "[perc]\ncap = eth1=5\n", "t.conf:2:", "keys in [perc]: netns, capacities",
	    NULL);
	bad("unknown section lists perc", "[cubic]\nbeta = 1\n", "t.conf:2:", "sections: daemon, int, perc,",
	    NULL);
	CHECK("dc_perc_cap_parse", !dc_perc_cap_parse("veth-a=12345", dev, sizeof(dev), &kbps, why, sizeof(why)) &&
		      !strcmp(dev, "veth-a") && kbps == 12345, "%s", why);
}

int main(void)
{
	test_good_file();
	test_bad_lines();
	test_file_lines();
	test_edges();
	test_format();
	test_keys();
	test_table();
	test_int_keys();
	test_perc_keys();
	return check_failed;
}
