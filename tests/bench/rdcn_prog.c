// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost per packet of the schedule lookup a circuit fabric does (the test
 * object tests/prog/bpf/rd_sched.bpf.c with BPF_PROG_TEST_RUN): the flip
 * word, the live copy's configuration, the slot and day (dc_rd_where),
 * the slot's matchings and the uplink matching a pair — on Table 7.1's
 * Mars schedule (16 ToRs, 2 uplinks, d = 4) during a day and at night,
 * next to an empty XDP program measured the same way.  Prints
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

int main(void)
{
	struct dc_rd_cfg c = { .epoch_ns = 1000000, .slot_ns = 100000, .day_ns = 90000, .period = 2, .ntors = 16,
			       .nup = 2 };
	struct dc_rd_flip fl = { .buf_at_ns = 0 };
	struct dc_rt_frame day = { .now_ns = 1000000 + 5 * 100000 + 10, .from = 6, .to = 9 };
	struct dc_rt_frame night = { .now_ns = 1000000 + 5 * 100000 + 95000, .from = 6, .to = 9 };
	struct dc_rd_slot s;
	struct rd_sched_bpf *o;
	__u32 zero = 0, t, u, i, key;
	int empty, prog;

	DC_BENCH_NEED_ROOT("rdcn_prog");
	o = DC_SKEL_OPEN_LOAD(rd_sched_bpf);
	if (!o) {
		fprintf(stderr, "rdcn_prog bench: loading the test object failed: %s\n", strerror(errno));
		return 1;
	}
	/* de Bruijn(16, 4) cut into 4 matchings, 2 per slot */
	for (t = 0; t < 2; t++) {
		memset(&s, DC_RD_IDLE, sizeof(s));
		for (u = 0; u < 2; u++)
			for (i = 0; i < 16; i++)
				s.peer[u][i] = known4[2 * t + u][i];
		key = dc_rd_sched_key(0, t);
		bpf_map_update_elem(bpf_map__fd(o->maps.dc_rd_sched), &key, &s, BPF_ANY);
	}
	bpf_map_update_elem(bpf_map__fd(o->maps.dc_rd_cfg), &zero, &c, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(o->maps.dc_rd_flip), &zero, &fl, BPF_ANY);
	prog = bpf_program__fd(o->progs.dc_rt_probe);
	empty = pb_empty_prog(BPF_PROG_TYPE_XDP, "dc_xdp_empty");
	pb_emit("rdcn_lookup_day_ns", pb_mean_ns(prog, &day, sizeof(day), RUNS));
	pb_emit("rdcn_lookup_night_ns", pb_mean_ns(prog, &night, sizeof(night), RUNS));
	if (empty >= 0)
		pb_emit("rdcn_xdp_empty_ns", pb_mean_ns(empty, &day, sizeof(day), RUNS));
	rd_sched_bpf__destroy(o);
	return 0;
}
