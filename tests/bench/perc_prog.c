// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost per control packet of the s-PERC link program (bpf/perc.bpf.c) with
 * BPF_PROG_TEST_RUN, next to an empty TC program measured the same way: a
 * forward update at TC egress (hop 2 of 4, the other hops visited), a
 * reverse update at TC ingress, and the receiver's reflection.  The program
 * rewrites the packet, so each figure is the mean kernel time of single
 * runs on a fresh copy.  Prints {"perc_<what>_ns": {"value": N, "unit": "ns"}}.
 * Needs root; prints nothing and exits 0 otherwise.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "percpkt.h"
#include "progbench.h"

#include "dcbpf/perc.h"
#include "perc.skel.h"

#define RUNS 20000

struct frame {
	unsigned char b[256];
	__u32 len;
};

/* A 4-hop control packet; entries 0..3 on links 1..4, B at 10 Gb/s. */
static void ctrl_frame(struct frame *f, __u8 flags, __u8 hop)
{
	struct dc_perc_hop h[4];
	__u32 i;

	for (i = 0; i < 4; i++)
		h[i] = (struct dc_perc_hop){ .a_kbps = 10000000, .b_kbps = 10000000, .bneck = 1,
					     .round = 1, .link_id = (__u16)(i + 1) };
	f->len = perc_pkt(f->b, sizeof(f->b), flags, 4, hop, h, 4);
}

/* Mean kernel ns of RUNS single runs of prog on f. */
static double cost(int prog, const struct frame *f)
{
	return pb_mean_ns(prog, f->b, f->len, RUNS);
}

int main(void)
{
	struct dc_perc_port port = { .link = 2 };
	struct dc_perc_link link;
	struct frame fwd, rev, end;
	struct perc_bpf *s;
	__u32 ifindex = 1, idx = 2;
	int empty;

	DC_BENCH_NEED_ROOT("perc_prog");
	s = DC_SKEL_OPEN_LOAD(perc_bpf);
	if (!s) {
		fprintf(stderr, "perc_prog bench: loading the link program failed: %s\n", strerror(errno));
		return 1;
	}
	empty = pb_empty_prog(BPF_PROG_TYPE_SCHED_CLS, "dc_tc_empty");
	memset(&link, 0, sizeof(link));
	link.link_id = 2;
	link.round_ns = 100000;	/* timed resets: the packet computes its epoch */
	dc_perc_state_init(&link.st, 40000000, DC_PERC_M_STAR);
	link.st.num_b = 4;
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_perc_link), &idx, &link, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_perc_port), &ifindex, &port, BPF_ANY);

	ctrl_frame(&fwd, 0, 1);			/* entry 1 = link 2 */
	ctrl_frame(&rev, DC_PERC_PF_REV, 2);	/* back to entry 1 */
	ctrl_frame(&end, 0, 4);			/* at the receiver */
	pb_emit("perc_egress_update_ns", cost(bpf_program__fd(s->progs.dc_perc_egress), &fwd));
	pb_emit("perc_ingress_update_ns", cost(bpf_program__fd(s->progs.dc_perc_ingress), &rev));
	port.flags = DC_PERC_PORT_HOST;
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_perc_port), &ifindex, &port, BPF_ANY);
	pb_emit("perc_reflect_ns", cost(bpf_program__fd(s->progs.dc_perc_ingress), &end));
	if (empty >= 0)
		pb_emit("perc_tc_empty_ns", cost(empty, &fwd));
	perc_bpf__destroy(s);
	return 0;
}
