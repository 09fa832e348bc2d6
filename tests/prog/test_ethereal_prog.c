// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF_PROG_TEST_RUN fixtures for Ethereal (bpf/ethereal.bpf.c host
 * egress, bpf/eth_leaf.bpf.c leaf ingress): a new flow gets the
 * least-loaded uplink and its tag, later packets keep it, FIN/RST release
 * its weight exactly once, idle flows are released by their timer,
 * spraying rotates, with INT the P field is set and nothing else changes
 * (in either program order), DSCP is untouched, foreign packets pass
 * untouched (the leaf: test_eth_leaf_prog.c).  Needs root: loads programs.
 */#define _GNU_SOURCE
#include "ethfix.h"

static struct int_bpf *is;

static void test_assign(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct pkt in, out;
	struct dc_eth_hcounters c0 = hcnt(), c1;
	struct dc_eth_flow f;
	struct dc_eth_hleaf v;

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	set_loads(1, 2 * U, U, U, 3 * U);
	/* SYN of a new flow: uplinks 1 and 2 are least loaded, 1 wins the tie */
	build(&in, A, B, 40000, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	CHECK_EQ("eth host: passes to the next program on the hook (TCX_NEXT)", run(fd, &in, &out),
		 TC_NEXT);
	CHECK_EQ("eth host: new flow gets the least-loaded uplink (1, tag 2)", tag_of(&out), 2);
	CHECK_EQ("eth host: tag-only option is 4 bytes", out.b[35], 4);
	CHECK("eth host: tag-only option is a valid tag",
	      dc_int_check(out.b + 34, 4) == DC_INT_TAG, "verdict %d", dc_int_check(out.b + 34, 4));
	CHECK("eth host: IP checksum valid", csum_ok(&out), "bad");
	CHECK("eth host: only ihl, total length, checksum and the option change",
	      equals_untagged(&out, &in), "differs");
	v = view(1);
	CHECK("eth host: uplink 1's load rose by one flow, others unchanged",
	      v.up.load[0] == 2 * U && v.up.load[1] == 2 * U && v.up.load[2] == U &&
		      v.up.load[3] == 3 * U,
	      "loads %llu %llu %llu %llu", (unsigned long long)v.up.load[0],
	      (unsigned long long)v.up.load[1], (unsigned long long)v.up.load[2],
	      (unsigned long long)v.up.load[3]);
	CHECK("eth host: flow entry: path, leaf, weight, one packet",
	      flow(A, B, 40000, 5201, &f) && f.path == 2 && f.leaf == 1 && f.weight == U &&
		      f.packets == 1 && f.bytes == in.len - 14 && f.state == DC_ETH_OPEN &&
		      f.last_seen_ns,
	      "path %u leaf %u packets %llu", f.path, f.leaf, (unsigned long long)f.packets);
	/* later packets keep the path though uplink 2 is now the least loaded */
	build(&in, A, B, 40000, 5201, 1000, TCP_ACK | TCP_PSH, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK_EQ("eth host: later packets of the flow keep its tag", tag_of(&out), 2);
	CHECK("eth host: TCP header and payload untouched",
	      !memcmp(out.b + 38, in.b + 34, in.len - 34), "differs");
	/* a second flow goes to uplink 2 */
	build(&in, A, B, 40001, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK_EQ("eth host: the next new flow takes uplink 2 (tag 3)", tag_of(&out), 3);
	/* FIN: released once, the path stays for what follows */
	build(&in, A, B, 40000, 5201, 0, TCP_FIN | TCP_ACK, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK_EQ("eth host: FIN still tagged with the flow's path", tag_of(&out), 2);
	v = view(1);
	CHECK_EQ("eth host: FIN takes the flow's weight off uplink 1", v.up.load[1], U);
	run(fd, &in, &out);
	v = view(1);
	CHECK_EQ("eth host: a retransmitted FIN does not take it off again", v.up.load[1], U);
	CHECK("eth host: entry released, kept for stragglers",
	      flow(A, B, 40000, 5201, &f) && f.state == DC_ETH_RELEASED && f.packets == 4,
	      "state %u packets %llu", f.state, (unsigned long long)f.packets);
	build(&in, A, B, 40001, 5201, 0, TCP_RST, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	v = view(1);
	CHECK_EQ("eth host: RST takes the weight off uplink 2", v.up.load[2], U);
	c1 = hcnt();
	CHECK_EQ("eth host: two new flows counted", c1.flows_new - c0.flows_new, 2);
	CHECK_EQ("eth host: two releases by FIN/RST counted", c1.flows_fin - c0.flows_fin, 2);
	/* packets that may not open a flow */
	build(&in, A, B, 40002, 5201, 0, TCP_ACK, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK("eth host: pure ACK of no known flow passes untagged", same(&in, &out), "changed");
	CHECK("eth host: … and opens no flow", !flow(A, B, 40002, 5201, &f), "entry made");
	build(&in, A, B, 40003, 5201, 0, TCP_SYN | TCP_ACK, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK("eth host: SYN-ACK of a passive side opens no flow", same(&in, &out) &&
	      !flow(A, B, 40003, 5201, &f), "changed");
	build(&in, A, "10.99.7.1", 40004, 5201, 100, TCP_ACK, 0, 64, NULL, 0, 6);
	c0 = hcnt();
	run(fd, &in, &out);
	c1 = hcnt();
	CHECK("eth host: destination of no known leaf passes untagged", same(&in, &out), "changed");
	CHECK_EQ("eth host: … counted", c1.no_leaf - c0.no_leaf, 1);
	/* the avoid mask: an uplink that timed out recently is skipped */
	{
		struct dc_eth_hleaf av = {};
		__u32 leaf = 1;

		av.up.load[0] = 0;
		av.up.load[1] = 5 * U;
		av.up.load[2] = 5 * U;
		av.up.load[3] = 5 * U;
		av.avoid_until_ns[0] = ~0ULL;
		bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_view), &leaf, &av, BPF_ANY);
		build(&in, A, B, 40005, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
		run(fd, &in, &out);
		CHECK_EQ("eth host: a new flow avoids an uplink that timed out (tag 2, not 1)",
			 tag_of(&out), 2);
	}
}

/* Algorithm 3's sub-flows: 1/parts of a flow each, from the socket mark. */
static void test_subflows(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct pkt in, out;
	struct dc_eth_hleaf v;
	struct dc_eth_flow f;
	int i, rc = 0, tags[4];

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	/* n = 6 flows over s = 4: 4 whole, then r = 2 split into s/g = 2 parts */
	set_loads(1, U, U, U, U);
	for (i = 0; i < 4; i++) {
		build(&in, A, B, 40060 + i, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
		if (run_mark(fd, &in, &out, DC_ETH_MARK_MAGIC | 2) != TC_NEXT)
			rc = 1;
		tags[i] = tag_of(&out);
	}
	v = view(1);
	CHECK("eth sub-flows: 4 half flows go to the 4 uplinks, each adds U/2",
	      !rc && tags[0] == 1 && tags[1] == 2 && tags[2] == 3 && tags[3] == 4 &&
		      v.up.load[0] == U + U / 2 && v.up.load[1] == U + U / 2 &&
		      v.up.load[2] == U + U / 2 && v.up.load[3] == U + U / 2,
	      "tags %d %d %d %d loads %llu", tags[0], tags[1], tags[2], tags[3],
	      (unsigned long long)v.up.load[0]);
	CHECK("eth sub-flows: the flow records its weight",
	      flow(A, B, 40060, 5201, &f) && f.weight == U / 2, "weight %llu",
	      (unsigned long long)f.weight);
	build(&in, A, B, 40060, 5201, 0, TCP_RST, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	v = view(1);
	CHECK_EQ("eth sub-flows: release takes off the half", v.up.load[0], U);
	build(&in, A, B, 40064, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run_mark(fd, &in, &out, 0x12345602);
	CHECK("eth sub-flows: a foreign mark is a whole flow",
	      flow(A, B, 40064, 5201, &f) && f.weight == U, "weight %llu",
	      (unsigned long long)f.weight);
}

static void test_dscp_and_ecmp(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct pkt in, out;

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	set_loads(1, 0, 0, 0, 0);
	build(&in, A, B, 40010, 5201, 500, TCP_SYN, 0xb9 /* DSCP 46, ECT(1) */, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK("eth host: DSCP and ECN bits untouched", tag_of(&out) == 1 && out.b[15] == 0xb9,
	      "tag %d tos %#x", tag_of(&out), out.b[15]);
	CHECK("eth host: DSCP packet: IP checksum valid", csum_ok(&out), "bad");
	set_cfg(DC_ETH_MODE_ECMP, 4, 60000, 0);
	build(&in, A, B, 40011, 5201, 500, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK("eth host: mode ecmp sends untagged", same(&in, &out), "changed");
}

static void test_spray(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct pkt in, out;
	struct dc_eth_hleaf v0, v1;
	int i, first = -1, bad = 0;

	set_cfg(DC_ETH_MODE_SPRAY, 4, 60000, 0);
	v0 = view(1);
	for (i = 0; i < 9; i++) {
		int t;

		build(&in, A, B, 40020, 5201, 200, i ? TCP_ACK : TCP_SYN, 0, 64, NULL, 0, 6);
		run(fd, &in, &out);
		t = tag_of(&out);
		if (i == 0)
			first = t;
		else if (t != (first - 1 + i) % 4 + 1)
			bad++;
	}
	v1 = view(1);
	CHECK("eth spray: the tag rotates over the 4 uplinks packet by packet",
	      first >= 1 && first <= 4 && !bad, "first %d, %d out of turn", first, bad);
	CHECK("eth spray: sprayed flows put no weight on the loads",
	      !memcmp(&v0.up, &v1.up, sizeof(v0.up)), "loads changed");
}

/* INT source and Ethereal on one hook, both orders. */
static void test_with_int(void)
{
	int efd = bpf_program__fd(hs->progs.dc_eth_hout), ifd = bpf_program__fd(is->progs.dc_int_hout);
	struct dc_int_dst_key k = { .prefixlen = 32 };
	struct dc_int_dst_cfg c = { .slots = 4 };
	struct pkt in, only_int, a, b, x;
	int diff = 0;
	__u32 i;

	inet_pton(AF_INET, B, &k.addr);
	bpf_map_update_elem(bpf_map__fd(is->maps.dc_int_dst), &k, &c, BPF_ANY);
	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	set_loads(1, U, U, 0, U);
	build(&in, A, B, 40030, 5201, 1000, TCP_SYN, 0x28, 64, NULL, 0, 6);
	run(ifd, &in, &only_int);
	run(efd, &only_int, &a);		/* INT, then Ethereal */
	CHECK("eth+int: P set in the INT option (uplink 2, tag 3)",
	      a.len == only_int.len && tag_of(&a) == 3 && a.b[35] == 36, "len %u tag %d", a.len,
	      tag_of(&a));
	for (i = 0; i < a.len; i++)
		if (a.b[i] != only_int.b[i] && i != 37 && i != 24 && i != 25)
			diff++;
	CHECK_EQ("eth+int: nothing but P and the IP checksum changes", diff, 0);
	CHECK("eth+int: IP checksum valid", csum_ok(&a), "bad");
	run(efd, &in, &x);			/* Ethereal, then INT */
	run(ifd, &x, &b);
	CHECK("eth+int: the other order gives the same packet, bit for bit", same(&a, &b),
	      "len %u vs %u, tag %d", b.len, a.len, tag_of(&b));
	/* and the INT sink gives back the original */
	run(bpf_program__fd(is->progs.dc_int_hin), &b, &x);
	CHECK("eth+int: the INT sink restores the original packet", same(&x, &in), "len %u", x.len);
	/* a tag-only option reaching an INT sink is stripped */
	run(efd, &in, &x);
	run(bpf_program__fd(is->progs.dc_int_hin), &x, &b);
	CHECK("eth+int: an INT sink strips a tag-only option", same(&b, &in), "len %u", b.len);
}

static void test_passthrough(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	__u8 nops[8], bad[4] = { DC_INT_OPT_TYPE, 6, 0x20, 0x00 };
	struct pkt in, out;
	struct dc_eth_hcounters c0, c1;

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	memset(nops, 1, sizeof(nops));
	c0 = hcnt();
	build(&in, A, B, 40040, 5201, 100, TCP_SYN, 0, 64, nops, 8, 6);
	run(fd, &in, &out);
	c1 = hcnt();
	CHECK("eth host: foreign IP options: sent untagged, untouched", same(&in, &out), "changed");
	CHECK_EQ("eth host: … counted as no room", c1.tag_no_room - c0.tag_no_room, 1);
	build(&in, A, B, 40041, 5201, 100, TCP_SYN, 0, 64, bad, 4, 6);
	run(fd, &in, &out);
	CHECK("eth host: a malformed option of ours passes untouched", same(&in, &out), "changed");
	build(&in, A, B, 40042, 5201, 100, 0, 0, 64, NULL, 0, 17);
	run(fd, &in, &out);
	CHECK("eth host: UDP untouched", same(&in, &out), "changed");
	build(&in, A, B, 40043, 5201, 100, TCP_SYN, 0, 64, NULL, 0, 6);
	in.b[20] = 0x20; /* MF */
	run(fd, &in, &out);
	CHECK("eth host: fragments untouched", same(&in, &out), "changed");
	build(&in, A, B, 40044, 5201, 100, TCP_SYN, 0, 64, NULL, 0, 6);
	in.b[12] = 0x86;
	in.b[13] = 0xdd;
	run(fd, &in, &out);
	CHECK("eth host: IPv6 untouched", same(&in, &out), "changed");
	build(&in, A, B, 40045, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	in.len = 14 + 20 + 8;
	run(fd, &in, &out);
	CHECK("eth host: truncated TCP header untouched", same(&in, &out), "changed");
}

static void test_idle(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct dc_eth_hcounters c0 = hcnt(), c1;
	struct dc_eth_hleaf v;
	struct dc_eth_flow f;
	struct pkt in, out;
	int i;

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 100, 0);
	set_loads(1, 0, 0, 0, 0);
	build(&in, A, B, 40050, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	v = view(1);
	CHECK_EQ("eth idle: a new flow adds its weight", v.up.load[0], U);
	/* packets keep it alive past its first 100 ms */
	for (i = 0; i < 3; i++) {
		usleep(60 * 1000);
		build(&in, A, B, 40050, 5201, 100, TCP_ACK, 0, 64, NULL, 0, 6);
		run(fd, &in, &out);
	}
	CHECK("eth idle: a flow with traffic stays", flow(A, B, 40050, 5201, &f), "released early");
	for (i = 0; i < 40 && flow(A, B, 40050, 5201, &f); i++)
		usleep(25 * 1000);
	v = view(1);
	c1 = hcnt();
	CHECK("eth idle: idle flow deleted after idle_ms", !flow(A, B, 40050, 5201, &f),
	      "still there after 1 s");
	CHECK_EQ("eth idle: its weight released", v.up.load[0], 0);
	CHECK_EQ("eth idle: released once, counted", c1.flows_idle - c0.flows_idle, 1);
	CHECK_EQ("eth idle: the deleted entry leaves the live gauge", c1.flows_live, c0.flows_live);
	/* a flow released by FIN is only deleted by the timer, not released again */
	build(&in, A, B, 40051, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	build(&in, A, B, 40051, 5201, 0, TCP_FIN | TCP_ACK, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	c0 = hcnt();
	for (i = 0; i < 40 && flow(A, B, 40051, 5201, &f); i++)
		usleep(25 * 1000);
	c1 = hcnt();
	v = view(1);
	CHECK("eth idle: a FIN-released flow's entry goes at idle, weight not taken twice",
	      !flow(A, B, 40051, 5201, &f) && c1.flows_idle == c0.flows_idle && v.up.load[0] == 0,
	      "idle %llu load %llu", (unsigned long long)(c1.flows_idle - c0.flows_idle),
	      (unsigned long long)v.up.load[0]);
}

/*
 * A full flow table: a second host object with a 1024-entry dc_eth_flows.
 * New flows stop being tracked at the cap (below where the LRU would
 * evict), go untagged and unchanged, and are counted; no open flow is
 * evicted, so the view's loads stay the sum of the live flows' weights.
 */
static void test_cap(void)
{
	struct ethereal_bpf *main_hs = hs, *h2 = ethereal_bpf__open();
	__u32 max = 1024, ncpu = (__u32)libbpf_num_possible_cpus(), cap, i, tagged = 0, same_n = 0;
	struct dc_eth_hcounters c;
	struct dc_flow_key k, nk, *pk = NULL;
	struct dc_eth_flow f;
	struct dc_eth_hleaf v;
	struct pkt in, out;
	struct bpf_map *m;
	__u64 sum = 0;
	long entries = 0;

	cap = dc_eth_flows_cap(max, ncpu);
	CHECK("eth cap: max − (CPUs + 1) · 128 entries, at least half the table",
	      dc_eth_flows_cap(1024, 2) == 640 && dc_eth_flows_cap(65536, 2) == 65152 &&
	      dc_eth_flows_cap(1024, 8) == 512 && dc_eth_flows_cap(256, 4) == 128 &&
	      dc_eth_flows_cap(1, 1) == 1,
	      "%u %u %u %u", dc_eth_flows_cap(1024, 2), dc_eth_flows_cap(65536, 2),
	      dc_eth_flows_cap(1024, 8), dc_eth_flows_cap(256, 4));
	if (!h2) {
		CHECK("eth cap: second host object opens", false, "%s", strerror(errno));
		return;
	}
	bpf_object__for_each_map(m, h2->obj)
		bpf_map__set_pin_path(m, NULL);
	bpf_map__set_max_entries(h2->maps.dc_eth_flows, max);
	h2->rodata->dc_eth_flows_cap_entries = cap;
	if (ethereal_bpf__load(h2)) {
		CHECK("eth cap: second host object loads", false, "%s", strerror(errno));
		ethereal_bpf__destroy(h2);
		return;
	}
	hs = h2;
	{
		struct dc_eth_dst_key dk = { .prefixlen = 24 };
		struct dc_eth_dst d = { .leaf = 1 };

		inet_pton(AF_INET, "10.99.1.0", &dk.addr);
		bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_dst), &dk, &d, BPF_ANY);
	}
	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	set_loads(1, 0, 0, 0, 0);
	for (i = 0; i < cap + 50; i++) {
		build(&in, A, B, (__u16)(10000 + i), 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
		if (run(bpf_program__fd(hs->progs.dc_eth_hout), &in, &out) != TC_NEXT)
			continue;
		if (i < cap)
			tagged += tag_of(&out) >= 1;
		else
			same_n += same(&in, &out);
	}
	c = hcnt();
	v = view(1);
	while (!bpf_map_get_next_key(bpf_map__fd(hs->maps.dc_eth_flows), pk, &nk)) {
		entries++;
		k = nk;
		pk = &k;
	}
	for (i = 0; i < 4; i++)
		sum += v.up.load[i];
	CHECK_EQ("eth cap: flows up to the cap are tagged", tagged, cap);
	CHECK_EQ("eth cap: past the cap, new flows leave untagged and unchanged", same_n, 50);
	CHECK("eth cap: live gauge at the cap, the rest counted",
	      c.flows_live == cap && c.flows_over_cap == 50 && c.flows_new == cap,
	      "live %llu over %llu new %llu (cap %u)", (unsigned long long)c.flows_live,
	      (unsigned long long)c.flows_over_cap, (unsigned long long)c.flows_new, cap);
	CHECK("eth cap: nothing evicted, the first flow still there",
	      entries == (long)cap && flow(A, B, 10000, 5201, &f), "%ld entries of cap %u", entries,
	      cap);
	CHECK("eth cap: loads are the live flows' weights, balanced",
	      sum == (__u64)cap * U && v.up.load[0] / U >= cap / 4 && v.up.load[0] / U <= cap / 4 + 1,
	      "sum %llu (want %llu), uplink 0 %llu", (unsigned long long)sum,
	      (unsigned long long)cap * U, (unsigned long long)v.up.load[0]);
	hs = main_hs;
	ethereal_bpf__destroy(h2);
}

int main(void)
{
	DC_TEST_NEED_ROOT("eth prog");
	hs = DC_SKEL_OPEN_LOAD(ethereal_bpf);
	if (!hs) {
		printf("FAIL: eth prog: host programs open and load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: eth prog: host programs verify and load\n");
	is = DC_SKEL_OPEN_LOAD(int_bpf);
	if (!is) {
		printf("FAIL: eth prog: INT programs open and load: %s\n", strerror(errno));
		return 1;
	}
	{
		struct dc_eth_dst_key k = { .prefixlen = 24 };
		struct dc_eth_dst d = { .leaf = 1 };

		inet_pton(AF_INET, "10.99.1.0", &k.addr);
		bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_dst), &k, &d, BPF_ANY);
	}
	test_assign();
	test_dscp_and_ecmp();
	test_subflows();
	test_spray();
	test_with_int();
	test_passthrough();
	test_idle();
	test_cap();
	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	test_random(bpf_program__fd(hs->progs.dc_eth_hout), "host egress", 0);
	set_cfg(DC_ETH_MODE_SPRAY, 4, 60000, 0);
	test_random(bpf_program__fd(hs->progs.dc_eth_hout), "host egress, spray", 0);
	int_bpf__destroy(is);
	ethereal_bpf__destroy(hs);
	return check_failed;
}
