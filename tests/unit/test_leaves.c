// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The shared leaves of loader/lib: xorshift64* (rand.h), IPv4 prefixes
 * (prefix.h), the pin registry and link pins (pins.h), and the CC config
 * map transaction against a fake map that fails on demand (ccmap.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/bpf.h>

#include "check.h"
#include "ccmap.h"
#include "cli.h"
#include "pins.h"
#include "prefix.h"
#include "rand.h"

/* ---- rand ------------------------------------------------------------------------ */

static void test_rand(void)
{
	__u64 s = 1, t, i, hits[4] = { 0 }, max_below = 0;
	double u, lo = 1, hi = 0;

	/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's
	 * xorshift generators, scrambled", multiplier M32): seed 1 */
	CHECK_EQ("rand: first draw from seed 1", dc_rand_next(&s), 5180492295206395165ULL);
	CHECK_EQ("rand: second draw", dc_rand_next(&s), 12380297144915551517ULL);
	CHECK_EQ("rand: third draw", dc_rand_next(&s), 13389498078930870103ULL);
	s = 0;
	CHECK_EQ("rand: state 0 stays 0 (callers mix a constant in)", dc_rand_next(&s), 0);

	s = 42;
	for (i = 0; i < 100000; i++) {
		u = dc_rand_unit(&s);
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
	}
	CHECK("rand: unit in [0, 1)", lo >= 0 && hi < 1 && lo < 0.001 && hi > 0.999,
	      "min %g max %g", lo, hi);
	s = 42;
	for (i = 0; i < 100000; i++) {
		t = dc_rand_below(&s, 4);
		if (t < 4)
			hits[t]++;
		max_below = t > max_below ? t : max_below;
	}
	CHECK("rand: below 4 stays below and hits each value about equally",
	      max_below == 3 && hits[0] > 24000 && hits[1] > 24000 && hits[2] > 24000 &&
	      hits[3] > 24000, "max %llu hits %llu %llu %llu %llu",
	      (unsigned long long)max_below, (unsigned long long)hits[0],
	      (unsigned long long)hits[1], (unsigned long long)hits[2],
	      (unsigned long long)hits[3]);
	s = 7;
	CHECK_EQ("rand: below 0 is 0", dc_rand_below(&s, 0), 0);
	s = 7;
	t = dc_rand_below(&s, 1ULL << 32);
	CHECK("rand: below 2^32 fits", t < (1ULL << 32), "%llu", (unsigned long long)t);
}

/* ---- prefix ---------------------------------------------------------------------- */

static void prefix_ok(const char *in, const char *want_addr, __u32 want_len)
{
	struct dc_err e = { 0 };
	__u32 a = 0, l = 99;
	char name[96], got[DC_PREFIX_STRLEN], want[DC_PREFIX_STRLEN];
	int rc = dc_prefix_parse(in, &a, &l, &e);

	snprintf(name, sizeof(name), "prefix: '%s' parses", in);
	dc_prefix_format(got, sizeof(got), a, l);
	snprintf(want, sizeof(want), "%s/%u", want_addr, want_len);
	CHECK(name, rc == 0 && !strcmp(got, want), "rc %d, got %s, want %s (%s)", rc, got, want,
	      e.msg);
}

static void prefix_bad(const char *in, const char *reason)
{
	struct dc_err e = { 0 };
	__u32 a = 0x01020304, l = 7;
	char name[96];
	int rc = dc_prefix_parse(in, &a, &l, &e);

	snprintf(name, sizeof(name), "prefix: '%s' refused: %s", in, reason);
	CHECK(name, rc == -EINVAL && e.code == EXIT_USAGE && strstr(e.msg, reason) &&
	      a == 0x01020304 && l == 7, "rc %d code %d msg '%s'", rc, e.code, e.msg);
}

static void test_prefix(void)
{
	prefix_ok("10.0.0.0/8", "10.0.0.0", 8);
	prefix_ok("10.1.2.3", "10.1.2.3", 32);
	prefix_ok("10.1.2.3/8", "10.0.0.0", 8);		/* host bits cleared */
	prefix_ok("192.168.77.200/27", "192.168.77.192", 27);
	prefix_ok("1.2.3.4/0", "0.0.0.0", 0);
	prefix_ok("255.255.255.255/32", "255.255.255.255", 32);
	prefix_ok("10.0.0.1/032", "10.0.0.1", 32);		/* leading zeros: still decimal */

	prefix_bad("", "empty");
	prefix_bad("10.0.0.0/", "length missing");
	prefix_bad("10.0.0.0/33", "0-32");
	prefix_bad("10.0.0.0/-1", "0-32");
	prefix_bad("10.0.0.0/+8", "0-32");
	prefix_bad("10.0.0.0/ 8", "0-32");
	prefix_bad("10.0.0.0/8x", "0-32");
	prefix_bad("10.0.0.0/99999999999", "0-32");
	prefix_bad("10.0.0.0/8/8", "0-32");
	prefix_bad("10.0.0/8", "not an IPv4 address");
	prefix_bad("256.0.0.0/8", "not an IPv4 address");
	prefix_bad(" 10.0.0.0", "not an IPv4 address");
	prefix_bad("fe80::1/64", "not an IPv4 address");
	prefix_bad("/8", "not an IPv4 address");
	prefix_bad("10.0.0.0/8:4", "0-32");
	prefix_bad("100.100.100.100/32xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "too long");
}

/* ---- pins ------------------------------------------------------------------------ */

static void test_pin_paths(void)
{
	char b[64];
	int rc;

	rc = dc_link_pin(b, sizeof(b), "/p/int/host", "veth0", "egress");
	CHECK("pins: link pin DIR/IFNAME_HOOK", !rc && !strcmp(b, "/p/int/host/veth0_egress"),
	      "rc %d '%s'", rc, b);
	CHECK_EQ("pins: link pin of a name with a dot refused (bpffs refuses dots)",
		 dc_link_pin(b, sizeof(b), "/p", "eth0.100", "ingress"), -EINVAL);
	CHECK_EQ("pins: link pin of a name with '/' refused",
		 dc_link_pin(b, sizeof(b), "/p", "a/b", "ingress"), -EINVAL);
	CHECK_EQ("pins: link pin of an empty name refused",
		 dc_link_pin(b, sizeof(b), "/p", "", "ingress"), -EINVAL);
	CHECK_EQ("pins: link pin too long for the buffer",
		 dc_link_pin(b, 16, "/sys/fs/bpf/dcbpf", "veth0", "egress"), -ENAMETOOLONG);

	rc = dc_pin_dir(b, sizeof(b), "/p", DC_PIN_INT, NULL);
	CHECK("pins: int dir of the own namespace", !rc && !strcmp(b, "/p/int/host"), "'%s'", b);
	rc = dc_pin_dir(b, sizeof(b), "/p", DC_PIN_ETH, "ns1");
	CHECK("pins: eth dir of a namespace", !rc && !strcmp(b, "/p/eth/ns1"), "'%s'", b);
	rc = dc_pin_dir(b, sizeof(b), "/p", DC_PIN_SW, "s1");
	CHECK("pins: switch dir", !rc && !strcmp(b, "/p/sw/s1"), "'%s'", b);
	rc = dc_pin_dir(b, sizeof(b), "/p", DC_PIN_SW_INT, "s1");
	CHECK("pins: switch INT dir", !rc && !strcmp(b, "/p/sw/s1/int"), "'%s'", b);
	rc = dc_pin_dir(b, sizeof(b), "/p", DC_PIN_ROOT, "ignored");
	CHECK("pins: root dir", !rc && !strcmp(b, "/p"), "'%s'", b);
	rc = dc_pin_dir(b, sizeof(b), "/p", DC_PIN_INT_BASE, NULL);
	CHECK("pins: int base dir", !rc && !strcmp(b, "/p/int"), "'%s'", b);
	rc = dc_pin_dir(b, sizeof(b), "/p", DC_PIN_SW_BASE, NULL);
	CHECK("pins: switch base dir", !rc && !strcmp(b, "/p/sw"), "'%s'", b);
	rc = dc_pin_path(b, sizeof(b), "/p", "link_powertcp");
	CHECK("pins: any pin path", !rc && !strcmp(b, "/p/link_powertcp"), "'%s'", b);
	CHECK_EQ("pins: pin path too long", dc_pin_path(b, 8, "/p", "link_powertcp"),
		 -ENAMETOOLONG);
	CHECK_EQ("pins: switch dir needs a name", dc_pin_dir(b, sizeof(b), "/p", DC_PIN_SW, NULL),
		 -EINVAL);
	CHECK_EQ("pins: switch name with a dot refused",
		 dc_pin_dir(b, sizeof(b), "/p", DC_PIN_SW, "s.1"), -EINVAL);
	CHECK_EQ("pins: netns '..' refused", dc_pin_dir(b, sizeof(b), "/p", DC_PIN_ETH, ".."),
		 -EINVAL);

	{
		struct dc_err e = { 0 };

		rc = dc_pin_ns_dir(b, sizeof(b), "/p", DC_PIN_PERC, "ns1", &e);
		CHECK("pins: perc dir of a namespace", !rc && !strcmp(b, "/p/perc/ns1"), "'%s'", b);
		rc = dc_pin_ns_dir(b, sizeof(b), "/p", DC_PIN_RESQ, "", &e);
		CHECK("pins: resq dir of the own namespace", !rc && !strcmp(b, "/p/resq/host"), "'%s'", b);
		rc = dc_pin_ns_dir(b, sizeof(b), "/p", DC_PIN_RESQ, "a.b", &e);
		CHECK("pins: a namespace with a dot refused, named",
		      rc == EXIT_USAGE && strstr(e.msg, "--netns a.b: not usable as a pin directory name"),
		      "rc %d '%s'", rc, e.msg);
		rc = dc_pin_ns_dir(b, 12, "/p", DC_PIN_PERC, "namespace1", &e);
		CHECK("pins: a namespace dir too long refused, named",
		      rc == EXIT_USAGE && strstr(e.msg, "/p/perc/namespace1"), "rc %d '%s'", rc, e.msg);
		rc = dc_pin_open_map("/nonexistent-dcbpf", "dc_cc_cfg", "PowerTCP", "dcbpfd", &e);
		CHECK("pins: a missing pin says what is not attached and how to attach it",
		      rc == -1 && e.code == EXIT_ERR &&
		      strstr(e.msg, "PowerTCP is not attached (/nonexistent-dcbpf/dc_cc_cfg") &&
		      strstr(e.msg, "run 'dcbpfd' first"), "rc %d '%s'", rc, e.msg);
		rc = dc_pin_open_map("/p", "dc_no_such_map", "PowerTCP", "dcbpfd", &e);
		CHECK("pins: opening a map no object pins is refused, named",
		      rc == -1 && strstr(e.msg, "dc_no_such_map: not a map the PowerTCP object pins"),
		      "rc %d '%s'", rc, e.msg);
	}

	rc = dc_pin_map_path(b, sizeof(b), "/p", "dc_cc_cfg");
	CHECK("pins: map path", !rc && !strcmp(b, "/p/dc_cc_cfg"), "rc %d '%s'", rc, b);
	CHECK_EQ("pins: a map no object pins is not a pin",
		 dc_pin_map_path(b, sizeof(b), "/p", "dc_no_such_map"), -ENOENT);
}

static void test_pin_table(void)
{
	static const struct { const char *obj, *map; __u32 type; } known[] = {
		{ "powertcp", "dc_cc_cfg", BPF_MAP_TYPE_HASH },
		{ "int", "dc_int_dst", BPF_MAP_TYPE_LPM_TRIE },
		{ "switch", "dc_sw_meta", 0 },
		{ "ethereal", "dc_eth_hcfg", 0 },
		{ "eth_leaf", "dc_eth_up", 0 },
	};
	const struct dc_pin_map *m;
	size_t i, j, n, bad = 0;
	char why[256] = "";

	CHECK("pins: table not empty", dc_pin_nmaps > 10, "%zu maps", dc_pin_nmaps);
	for (i = 0; i < dc_pin_nmaps; i++) {
		m = &dc_pin_maps[i];
		if (strncmp(m->name, "dc_", 3) || strlen(m->name) > 15) {
			bad++;
			snprintf(why, sizeof(why), "%s: not dc_ or over 15 chars", m->name);
		}
		for (j = 0; j < i; j++)
			if (!strcmp(dc_pin_maps[j].obj, m->obj) &&
			    !strcmp(dc_pin_maps[j].name, m->name)) {
				bad++;
				snprintf(why, sizeof(why), "%s twice in %s", m->name, m->obj);
			}
	}
	CHECK("pins: names dc_*, <= 15 chars, once per object", !bad, "%s", why);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		char name[96];
		bool found = false;

		for (j = 0, n = 0; (m = dc_pin_map_next(known[i].obj, &j)); n++)
			if (!strcmp(m->name, known[i].map) &&
			    (!known[i].type || m->type == known[i].type))
				found = true;
		snprintf(name, sizeof(name), "pins: %s pins %s", known[i].obj, known[i].map);
		CHECK(name, found, "%zu maps listed for %s", n, known[i].obj);
	}
	j = 0;
	CHECK("pins: an unknown object pins nothing", !dc_pin_map_next("nosuch", &j), "");
	m = dc_pin_map_find("dc_eth_lstats");
	CHECK("pins: find names the object", m && !strcmp(m->obj, "eth_leaf"), "%s",
	      m ? m->obj : "NULL");
}

static void touch(const char *dir, const char *name)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f)
		fclose(f);
}

static bool exists(const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

static void test_unpin(void)
{
	char dir[] = "/tmp/dc_leaves_XXXXXX", sub[600];
	const struct dc_pin_map *m;
	struct dc_err e = { 0 };
	size_t i = 0, n = 0, left = 0;
	int rc;

	if (!mkdtemp(dir)) {
		CHECK("pins: unpin (temp dir)", 0, "mkdtemp: %s", strerror(errno));
		return;
	}
	while ((m = dc_pin_map_next("ethereal", &i)))
		touch(dir, m->name), n++;
	touch(dir, "dc_eth_up");	/* the leaf's, not the host's */
	touch(dir, "veth0_egress");
	rc = dc_pins_unpin(dir, "ethereal", NULL, true, &e);
	i = 0;
	while ((m = dc_pin_map_next("ethereal", &i)))
		left += exists(dir, m->name) && strcmp(m->name, "dc_eth_up");
	CHECK("pins: unpin removes the object's maps and nothing else",
	      rc == 0 && n > 0 && !left && exists(dir, "dc_eth_up") && exists(dir, "veth0_egress"),
	      "rc %d (%s), %zu of %zu left", rc, e.msg, left, n);
	CHECK("pins: a directory still in use stays", exists(dir, "."), "");
	rc = dc_pins_unpin(dir, "ethereal", NULL, true, &e);
	CHECK("pins: unpin twice is fine", rc == 0, "rc %d (%s)", rc, e.msg);

	/* int reuses powertcp's CC maps: unpinning int's own leaves those */
	i = 0;
	while ((m = dc_pin_map_next("int", &i)))
		touch(dir, m->name);
	rc = dc_pins_unpin(dir, "int", "powertcp", false, &e);
	CHECK("pins: unpin except the maps another object owns",
	      rc == 0 && exists(dir, "dc_cc_cfg") && exists(dir, "dc_cc_flows") &&
	      !exists(dir, "dc_int_dst") && !exists(dir, "dc_int_sink") &&
	      !exists(dir, "dc_int_stats"), "rc %d (%s)", rc, e.msg);
	rc = dc_pins_unpin(dir, "powertcp", NULL, false, &e);
	CHECK("pins: then the owner removes its own", rc == 0 && !exists(dir, "dc_cc_cfg"),
	      "rc %d (%s)", rc, e.msg);

	/* a map's name taken by a directory: unlink fails, the path is named */
	snprintf(sub, sizeof(sub), "%s/dc_eth_up", dir);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/veth0_egress", dir);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/dc_eth_lstats", dir);
	mkdir(sub, 0700);
	rc = dc_pins_unpin(dir, "eth_leaf", NULL, true, &e);
	CHECK("pins: unpin failure names the path", rc < 0 && e.code == EXIT_ERR &&
	      strstr(e.msg, "dc_eth_lstats"), "rc %d '%s'", rc, e.msg);
	rmdir(sub);
	rc = dc_pins_unpin(dir, "eth_leaf", NULL, true, &e);
	CHECK("pins: unpin removes the emptied directory", rc == 0 && access(dir, F_OK),
	      "rc %d (%s)", rc, e.msg);
	rmdir(dir);
}

/* ---- ccmap ----------------------------------------------------------------------- */

struct fake {
	struct dc_cc_cfg v[DC_CC_MAX];
	bool have[DC_CC_MAX];
	int fail_write_key;	/* -1: none */
	int fail_restore;	/* writes of old values fail too */
	int writes, dels;
};

static int f_read(void *arg, __u32 k, struct dc_cc_cfg *v)
{
	struct fake *f = arg;

	if (!f->have[k])
		return -ENOENT;
	*v = f->v[k];
	return 0;
}

static int f_write(void *arg, __u32 k, const struct dc_cc_cfg *v)
{
	struct fake *f = arg;

	if ((int)k == f->fail_write_key || (f->fail_restore && f->writes > 0))
		return -E2BIG;
	f->writes++;
	f->v[k] = *v;
	f->have[k] = true;
	return 0;
}

static int f_del(void *arg, __u32 k)
{
	struct fake *f = arg;

	f->dels++;
	f->have[k] = false;
	return 0;
}

static void test_ccmap(void)
{
	static const char *const names[DC_CC_MAX] = { "powertcp", "theta_powertcp", "hpcc",
						       "timely" };
	struct dc_cc_cfg want[DC_CC_MAX], orig0;
	struct fake f = { .fail_write_key = -1 };
	struct dc_ccmap_io io = { f_read, f_write, f_del, &f };
	struct dc_ccmap_result r;
	struct dc_err e = { 0 };
	int rc;

	memset(want, 0, sizeof(want));
	want[0].gamma_q16 = 0x8000;
	want[1].gamma_q16 = 0x4000;

	/* empty map: every entry written */
	rc = dc_ccmap_commit(&io, want, names, &r, &e);
	CHECK("ccmap: empty map gets every entry", rc == 0 && r.written == (1U << DC_CC_MAX) - 1 &&
	      !r.present[0] && !r.present[1] && f.v[1].gamma_q16 == 0x4000, "rc %d written %u",
	      rc, r.written);

	/* one changed: only it is written, old values reported */
	f.writes = 0;
	want[1].beta_bytes = 1500;
	rc = dc_ccmap_commit(&io, want, names, &r, &e);
	CHECK("ccmap: unchanged entries are not written", rc == 0 && r.written == 2 &&
	      f.writes == 1 && r.present[0] && r.old[1].beta_bytes == 0 &&
	      f.v[1].beta_bytes == 1500, "rc %d written %u writes %d", rc, r.written, f.writes);
	f.writes = 0;
	rc = dc_ccmap_commit(&io, want, names, &r, &e);
	CHECK("ccmap: nothing to do writes nothing", rc == 0 && !r.written && !f.writes,
	      "written %u writes %d", r.written, f.writes);

	/* second write fails: the first is put back, the error names entry 1 */
	orig0 = f.v[0];
	want[0].gamma_q16 = 0x1000;
	want[1].beta_bytes = 3000;
	f.fail_write_key = 1;
	rc = dc_ccmap_commit(&io, want, names, &r, &e);
	CHECK("ccmap: failed commit rolls back", rc == -E2BIG && !r.written &&
	      !memcmp(&f.v[0], &orig0, sizeof(orig0)) && f.v[1].beta_bytes == 1500,
	      "rc %d written %u gamma %u", rc, r.written, f.v[0].gamma_q16);
	CHECK("ccmap: the error names the entry and says nothing changed",
	      e.code == EXIT_ERR && strstr(e.msg, "entry 1 (theta_powertcp)") &&
	      strstr(e.msg, "nothing changed"), "'%s'", e.msg);

	/* entries absent before are deleted on roll-back */
	memset(&f, 0, sizeof(f));
	f.fail_write_key = 1;
	rc = dc_ccmap_commit(&io, want, NULL, &r, &e);
	CHECK("ccmap: roll-back deletes what was absent", rc == -E2BIG && !f.have[0] &&
	      f.dels == 1 && strstr(e.msg, "entry 1 failed"), "have %d dels %d '%s'", f.have[0],
	      f.dels, e.msg);

	/* roll-back itself fails: said so */
	memset(&f, 0, sizeof(f));
	f.have[0] = f.have[1] = true;
	f.fail_write_key = 1;
	f.fail_restore = 1;
	rc = dc_ccmap_commit(&io, want, names, &r, &e);
	CHECK("ccmap: a failed roll-back is reported", rc < 0 && r.written == 1 &&
	      strstr(e.msg, "could not all be put back"), "written %u '%s'", r.written, e.msg);
}

int main(void)
{
	test_rand();
	test_prefix();
	test_pin_paths();
	test_pin_table();
	test_unpin();
	test_ccmap();
	return check_failed;
}
