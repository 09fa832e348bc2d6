// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF_PROG_TEST_RUN fixtures for Ethereal's leaf (bpf/eth_leaf.bpf.c, leaf
 * ingress): tagged packets redirected to their uplink (TTL − 1, tag
 * stripped, checksum valid), untagged ones routed normally, unknown tags,
 * local destinations and down uplinks counted.  Needs root: builds the
 * leaf's routes in a private network namespace (unshare), so nothing is
 * left behind.
 */
#define _GNU_SOURCE
#include "ethfix.h"

static __u32 ifx(const char *n)
{
	return if_nametoindex(n);
}

static int leaf_net(void)
{
	static const char *cmds[] = {
		"ip link set lo up",
		"ip link add ethp0 type veth peer name ethp0x",
		"ip link add ethu0 type veth peer name ethu0x",
		"ip link add ethu1 type veth peer name ethu1x",
		"ip link add ethu2 type veth peer name ethu2x",
		"for d in ethp0 ethp0x ethu0 ethu0x ethu1 ethu1x ethu2 ethu2x; do ip link set $d up; done",
		"ip addr add 10.99.0.254/24 dev ethp0",
		"ip addr add 10.99.128.1/32 dev ethu0",
		"ip addr add 10.99.129.1/32 dev ethu1",
		"ip addr add 10.99.130.1/32 dev ethu2",
		"ip route add 10.99.128.254/32 dev ethu0",
		"ip route add 10.99.129.254/32 dev ethu1",
		"ip route add 10.99.130.254/32 dev ethu2",
		"ip route add 10.99.1.0/24 nexthop via 10.99.128.254 dev ethu0 nexthop via 10.99.129.254 dev ethu1 nexthop via 10.99.130.254 dev ethu2",
		"sysctl -qw net.ipv4.ip_forward=1",
	};
	unsigned int i;
	char cmd[512];

	if (unshare(CLONE_NEWNET)) {
		printf("FAIL: eth leaf: unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s >/dev/null 2>&1", cmds[i]);
		if (system(cmd)) {
			printf("FAIL: eth leaf: setup '%s' failed\n", cmds[i]);
			return -1;
		}
	}
	return 0;
}

static void set_up(__u32 tag, const char *dev, const char *nh)
{
	struct dc_eth_uplink u = { .ifindex = ifx(dev) };

	inet_pton(AF_INET, nh, &u.nexthop);
	bpf_map_update_elem(bpf_map__fd(ls->maps.dc_eth_up), &tag, &u, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(ls->maps.dc_eth_upif), &u.ifindex, &tag, BPF_ANY);
}

/* A packet as the host sends it: tag-only option with P = tag. */
static void tagged(struct pkt *p, const char *dst, __u32 tag, __u8 ttl)
{
	__u8 opt[4] = { DC_INT_OPT_TYPE, 4, dc_int_b2(0), dc_int_b3(0, tag) };

	build(p, A, dst, 41000, 5201, 600, TCP_ACK, 0x48, ttl, opt, 4, 6);
}

static void test_leaf(void)
{
	int fd = bpf_program__fd(ls->progs.dc_eth_lin);
	__u32 port = ifx("ethp0");
	struct pkt in, plain, out;
	struct dc_eth_lcounters c0, c1;
	struct dc_eth_pathcnt p0, p1;
	int rc;

	set_up(1, "ethu0", "10.99.128.254");
	set_up(2, "ethu1", "10.99.129.254");
	set_up(3, "ethu2", "10.99.130.254");
	/* tagged → redirected, tag stripped, TTL − 1 */
	tagged(&in, B, 2, 64);
	build(&plain, A, B, 41000, 5201, 600, TCP_ACK, 0x48, 63, NULL, 0, 6);
	c0 = lcnt();
	p0 = pcnt(2);
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	p1 = pcnt(2);
	if (rc != TC_ACT_REDIRECT)
		printf("   leaf counters: untagged %llu unknown %llu down %llu local %llu ttl %llu fib %llu\n",
		       (unsigned long long)c1.untagged, (unsigned long long)c1.unknown_tag,
		       (unsigned long long)c1.uplink_down, (unsigned long long)c1.local_dst,
		       (unsigned long long)c1.ttl_expired, (unsigned long long)c1.fib_fail);
	CHECK_EQ("eth leaf: tagged packet is redirected (TC_ACT_REDIRECT)", rc, TC_ACT_REDIRECT);
	CHECK("eth leaf: tag stripped, TTL − 1, checksum valid, rest bit for bit",
	      same(&out, &plain) && csum_ok(&out), "len %u vs %u ttl %u", out.len, plain.len,
	      out.b[22]);
	CHECK("eth leaf: bytes and packets counted for tag 2",
	      p1.packets - p0.packets == 1 && p1.bytes - p0.bytes == plain.len - 14,
	      "packets %llu bytes %llu", (unsigned long long)(p1.packets - p0.packets),
	      (unsigned long long)(p1.bytes - p0.bytes));
	CHECK_EQ("eth leaf: steered counted", c1.steered - c0.steered, 1);
	/* the same with the tag in a full INT option: option stays */
	{
		__u8 opt[12] = { DC_INT_OPT_TYPE, 12, dc_int_b2(0), dc_int_b3(0, 3) };
		struct pkt want;

		build(&in, A, B, 41001, 5201, 600, TCP_ACK, 0, 64, opt, 12, 6);
		build(&want, A, B, 41001, 5201, 600, TCP_ACK, 0, 63, opt, 12, 6);
		p0 = pcnt(3);
		rc = run_if(fd, &in, &out, port);
		p1 = pcnt(3);
		CHECK("eth leaf: P in an INT option steers (tag 3), option kept, TTL − 1",
		      rc == TC_ACT_REDIRECT && same(&out, &want) && p1.packets - p0.packets == 1,
		      "rc %d len %u", rc, out.len);
	}
	/* untagged → normal routing, untouched */
	build(&in, A, B, 41002, 5201, 600, TCP_ACK, 0, 64, NULL, 0, 6);
	c0 = lcnt();
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	CHECK("eth leaf: untagged packet: normal routing, untouched",
	      rc == TC_NEXT && same(&in, &out) && c1.untagged - c0.untagged == 1, "rc %d", rc);
	/* unknown tag → normal routing, counted, tag stripped */
	tagged(&in, B, 9, 64);
	build(&plain, A, B, 41000, 5201, 600, TCP_ACK, 0x48, 64, NULL, 0, 6);
	c0 = lcnt();
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	CHECK("eth leaf: unknown tag: normal routing, tag stripped, counted",
	      rc == TC_NEXT && same(&out, &plain) && c1.unknown_tag - c0.unknown_tag == 1, "rc %d", rc);
	/* tagged but local destination → normal routing */
	tagged(&in, "10.99.0.7", 1, 64);
	c0 = lcnt();
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	CHECK("eth leaf: tagged packet to a local port: normal routing, counted",
	      rc == TC_NEXT && c1.local_dst - c0.local_dst == 1 && tag_of(&out) == -1, "rc %d", rc);
	/* TTL 1: the kernel answers */
	tagged(&in, B, 1, 1);
	c0 = lcnt();
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	CHECK("eth leaf: TTL 1 left to the kernel", rc == TC_NEXT && c1.ttl_expired - c0.ttl_expired == 1,
	      "rc %d", rc);
	/* malformed option of ours: untouched */
	{
		__u8 bad[4] = { DC_INT_OPT_TYPE, 6, 0x20, 0x01 };

		build(&in, A, B, 41003, 5201, 100, TCP_ACK, 0, 64, bad, 4, 6);
		rc = run_if(fd, &in, &out, port);
		CHECK("eth leaf: malformed option: normal routing, untouched",
		      rc == TC_NEXT && same(&in, &out), "rc %d", rc);
	}
	build(&in, A, B, 41004, 5201, 100, 0, 0, 64, NULL, 0, 17);
	rc = run_if(fd, &in, &out, port);
	CHECK("eth leaf: UDP untouched", rc == TC_NEXT && same(&in, &out), "rc %d", rc);
	tagged(&in, B, 2, 64);
	in.b[20] = 0x20; /* MF: a tagged fragment */
	rc = run_if(fd, &in, &out, port);
	CHECK("eth leaf: a fragment passes untouched, tag and all", rc == TC_NEXT && same(&in, &out),
	      "rc %d", rc);
	tagged(&in, B, 2, 64);
	in.b[12] = 0x86;
	in.b[13] = 0xdd;
	rc = run_if(fd, &in, &out, port);
	CHECK("eth leaf: IPv6 untouched", rc == TC_NEXT && same(&in, &out), "rc %d", rc);
	/* the tag's uplink goes down: normal routing, counted */
	if (system("ip link set ethu1 down")) {
		printf("FAIL: eth leaf: ip link set ethu1 down failed\n");
		check_failed = 1;
	}
	tagged(&in, B, 2, 64);
	c0 = lcnt();
	p0 = pcnt(2);
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	p1 = pcnt(2);
	CHECK("eth leaf: tag of a down uplink: normal routing, counted, not steered",
	      rc == TC_NEXT && c1.uplink_down - c0.uplink_down == 1 && p1.packets == p0.packets &&
		      same(&out, &plain),
	      "rc %d down %llu", rc, (unsigned long long)(c1.uplink_down - c0.uplink_down));
	tagged(&in, B, 1, 64);
	rc = run_if(fd, &in, &out, port);
	CHECK_EQ("eth leaf: the other uplinks still steer", rc, TC_ACT_REDIRECT);
}
int main(void)
{
	DC_TEST_NEED_ROOT("eth leaf prog");
	ls = DC_SKEL_OPEN_LOAD(eth_leaf_bpf);
	if (!ls) {
		printf("FAIL: eth prog: leaf program open and load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: eth prog: leaf program verifies and loads\n");
	if (!leaf_net()) {
		test_leaf();
		test_random(bpf_program__fd(ls->progs.dc_eth_lin), "leaf ingress", ifx("ethp0"));
	} else {
		check_failed = 1;
	}
	eth_leaf_bpf__destroy(ls);
	return check_failed;
}
