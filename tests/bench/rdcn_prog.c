// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost per packet of the schedule lookup a circuit fabric does (the test
 * object tests/prog/bpf/rd_sched.bpf.c with BPF_PROG_TEST_RUN): the flip
 * word, the live copy's configuration, the slot and day (dc_rd_where),
 * the slot's matchings and the uplink matching a pair — on Table 7.1's
 * Mars schedule (16 ToRs, 2 uplinks, d = 4) during a day and at night,
 * next to an empty XDP program measured the same way; then the circuit
 * switch itself (bpf/rdcn.bpf.c dc_rd_ref: port and next-hop lookups, the
 * same schedule lookup, the verdict, counters) on a frame it passes in a
 * day and one it drops at night, and the ToR's VOQ classifier (dc_rd_voq).
 * Prints
 * {"rdcn_<what>_ns": {"value": N, "unit": "ns"}}.  Needs root; prints
 * nothing and exits 0 otherwise.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "progbench.h"

#include "dcbpf/rdcn.h"
#include "rd_sched.skel.h"
#include "rdcn.skel.h"

#define RUNS 20000

static const __u8 known4[4][16] = {
	{ 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15 },
	{ 1, 5, 9, 13, 0, 4, 8, 12, 3, 7, 11, 15, 2, 6, 10, 14 },
	{ 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13 },
	{ 3, 7, 11, 15, 2, 6, 10, 14, 1, 5, 9, 13, 0, 4, 8, 12 },
};

struct dc_rt_frame {
	__u64 now_ns;
	__u32 from, to;
	__s32 where;
	__u32 buf, slot, peer0;
	__s32 matched;
	__u32 pad;
	__u64 day_left_ns;
};

/* de Bruijn(16, 4) cut into 4 matchings, 2 per slot, as the live
 * schedule, with its configuration and flip record, into an object's
 * maps (the test object's and the circuit switch's share their layout). */
static void load_sched(int sched_fd, int cfg_fd, int flip_fd, const struct dc_rd_cfg *c,
		       const struct dc_rd_flip *fl)
{
	struct dc_rd_slot s;
	__u32 zero = 0, t, u, i, key;

	for (t = 0; t < 2; t++) {
		memset(&s, DC_RD_IDLE, sizeof(s));
		for (u = 0; u < 2; u++)
			for (i = 0; i < 16; i++)
				s.peer[u][i] = known4[2 * t + u][i];
		key = dc_rd_sched_key(0, t);
		bpf_map_update_elem(sched_fd, &key, &s, BPF_ANY);
	}
	bpf_map_update_elem(cfg_fd, &zero, c, BPF_ANY);
	bpf_map_update_elem(flip_fd, &zero, fl, BPF_ANY);
}

int main(void)
{
	struct dc_rd_cfg c = { .epoch_ns = 1000000, .slot_ns = 100000, .day_ns = 90000, .period = 2, .ntors = 16,
			       .nup = 2 };
	struct dc_rd_flip fl = { .buf_at_ns = 0 };
	struct dc_rt_frame day = { .now_ns = 1000000 + 5 * 100000 + 10, .from = 6, .to = 9 };
	struct dc_rt_frame night = { .now_ns = 1000000 + 5 * 100000 + 95000, .from = 6, .to = 9 };
	struct rd_sched_bpf *o;
	__u32 key;
	int empty, prog;

	DC_BENCH_NEED_ROOT("rdcn_prog");
	o = DC_SKEL_OPEN_LOAD(rd_sched_bpf);
	if (!o) {
		fprintf(stderr, "rdcn_prog bench: loading the test object failed: %s\n", strerror(errno));
		return 1;
	}
	load_sched(bpf_map__fd(o->maps.dc_rd_sched), bpf_map__fd(o->maps.dc_rd_cfg),
		   bpf_map__fd(o->maps.dc_rd_flip), &c, &fl);
	prog = bpf_program__fd(o->progs.dc_rt_probe);
	empty = pb_empty_prog(BPF_PROG_TYPE_XDP, "dc_xdp_empty");
	pb_emit("rdcn_lookup_day_ns", pb_mean_ns(prog, &day, sizeof(day), RUNS));
	pb_emit("rdcn_lookup_night_ns", pb_mean_ns(prog, &night, sizeof(night), RUNS));
	if (empty >= 0)
		pb_emit("rdcn_xdp_empty_ns", pb_mean_ns(empty, &day, sizeof(day), RUNS));
	rd_sched_bpf__destroy(o);

	/* the switch: port (6, 0) is ifindex 1 (the test run's loopback); in
	 * slot 1 uplink 0 matches 6 to known4[2][6] = 11 */
	{
		struct dc_rd_port port = { .tor = 6, .up = 0 };
		struct dc_rd_mac_key mk = { .addr = { 0x02, 0xdc, 0x7d, 0x00, 0x0b, 0x00 } };
		struct dc_rd_dst dst = { .tor = 11 };
		struct dc_rd_out out = { .ifindex = 1 };
		__u8 frame[64] = { 0x02, 0xdc, 0x7d, 0x00, 0x0b, 0x00, 0x02, 0xdc, 0x7d, 0x00, 0x06, 0x00, 0x08, 0x00 };
		struct rdcn_bpf *r = DC_SKEL_OPEN_LOAD(rdcn_bpf);
		__u32 one = 1;

		if (!r) {
			fprintf(stderr, "rdcn_prog bench: loading the circuit switch failed: %s\n", strerror(errno));
			return 1;
		}
		load_sched(bpf_map__fd(r->maps.dc_rd_sched), bpf_map__fd(r->maps.dc_rd_cfg),
			   bpf_map__fd(r->maps.dc_rd_flip), &c, &fl);
		bpf_map_update_elem(bpf_map__fd(r->maps.dc_rd_port), &one, &port, BPF_ANY);
		bpf_map_update_elem(bpf_map__fd(r->maps.dc_rd_mac), &mk, &dst, BPF_ANY);
		key = dc_rd_port_key(11, 0);
		bpf_map_update_elem(bpf_map__fd(r->maps.dc_rd_out), &key, &out, BPF_ANY);
		r->bss->dc_rd_now_ns = day.now_ns;
		pb_emit("rdcn_switch_pass_ns", pb_mean_ns(bpf_program__fd(r->progs.dc_rd_ref), frame, sizeof(frame), RUNS));
		r->bss->dc_rd_now_ns = night.now_ns;
		pb_emit("rdcn_switch_night_ns", pb_mean_ns(bpf_program__fd(r->progs.dc_rd_ref), frame, sizeof(frame), RUNS));
		pb_emit("rdcn_voq_classify_ns", pb_mean_ns(bpf_program__fd(r->progs.dc_rd_voq), frame, sizeof(frame), RUNS));
		empty = pb_empty_prog(BPF_PROG_TYPE_SCHED_CLS, "dc_tc_empty");
		if (empty >= 0)
			pb_emit("rdcn_tc_empty_ns", pb_mean_ns(empty, frame, sizeof(frame), RUNS));
		rdcn_bpf__destroy(r);
	}
	return 0;
}
