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

#include "dcbpf/perc.h"
#include "perc.skel.h"

#define RUNS 20000
#define OFF (14 + 20 + 8)

struct frame {
	unsigned char b[256];
	__u32 len;
};

/* A 4-hop control packet; entries 0..3 on links 1..4, B at 10 Gb/s. */
static void ctrl_frame(struct frame *f, __u8 flags, __u8 hop)
{
	unsigned char *ip = f->b + 14, *udp = ip + 20, *pc = f->b + OFF;
	__u32 plen = DC_PERC_HDR_LEN + 4 * DC_PERC_HOP_LEN, i;

	memset(f, 0, sizeof(*f));
	f->b[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (__u8)((28 + plen) >> 8);
	ip[3] = (__u8)(28 + plen);
	ip[8] = 64;
	ip[9] = 17;
	inet_pton(AF_INET, "10.0.0.1", ip + 12);
	inet_pton(AF_INET, "10.0.1.2", ip + 16);
	udp[0] = 40000 >> 8;
	udp[1] = 40000 & 0xff;
	udp[2] = DC_PERC_UDP_PORT >> 8;
	udp[3] = DC_PERC_UDP_PORT & 0xff;
	udp[5] = (__u8)(8 + plen);
	pc[0] = DC_PERC_VERSION;
	pc[1] = flags;
	pc[2] = 4;
	pc[3] = hop;
	for (i = 0; i < 4; i++) {
		struct dc_perc_hop h = { .a_kbps = 10000000, .b_kbps = 10000000, .bneck = 1,
					 .round = 1, .link_id = (__u16)(i + 1) };

		dc_perc_hop_encode(pc + DC_PERC_HDR_LEN + i * DC_PERC_HOP_LEN, &h);
	}
	f->len = OFF + plen;
}

static double mean_ns(int prog, const struct frame *in)
{
	static struct frame out;
	unsigned long long sum = 0;
	int i, n = 0;

	for (i = 0; i < RUNS; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
			    .data_out = out.b, .data_size_out = sizeof(out.b), .repeat = 1);

		if (!bpf_prog_test_run_opts(prog, &o)) {
			sum += o.duration;
			n++;
		}
	}
	return n ? (double)sum / n : -1;
}

static void emit(const char *name, double ns)
{
	if (ns >= 0)
		printf("{\"%s\": {\"value\": %.1f, \"unit\": \"ns\"}}\n", name, ns);
}

int main(void)
{
	struct bpf_insn ok[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct dc_perc_port port = { .link = 2 };
	struct dc_perc_link link;
	struct frame fwd, rev, end;
	struct perc_bpf *s;
	struct bpf_map *m;
	__u32 ifindex = 1, idx = 2;
	int empty;

	if (geteuid()) {
		fprintf(stderr, "perc_prog bench: needs root, skipped\n");
		return 0;
	}
	libbpf_set_print(NULL);
	s = perc_bpf__open();
	if (!s)
		return 1;
	bpf_object__for_each_map(m, s->obj)
		bpf_map__set_pin_path(m, NULL);
	if (perc_bpf__load(s)) {
		fprintf(stderr, "perc_prog bench: loading the link program failed\n");
		return 1;
	}
	empty = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "dc_tc_empty", "GPL", ok, 2, NULL);
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
	emit("perc_egress_update_ns", mean_ns(bpf_program__fd(s->progs.dc_perc_egress), &fwd));
	emit("perc_ingress_update_ns", mean_ns(bpf_program__fd(s->progs.dc_perc_ingress), &rev));
	port.flags = DC_PERC_PORT_HOST;
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_perc_port), &ifindex, &port, BPF_ANY);
	emit("perc_reflect_ns", mean_ns(bpf_program__fd(s->progs.dc_perc_ingress), &end));
	if (empty >= 0)
		emit("perc_tc_empty_ns", mean_ns(empty, &fwd));
	perc_bpf__destroy(s);
	return 0;
}
