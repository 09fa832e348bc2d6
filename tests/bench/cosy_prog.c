// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost per packet of the cosy switch program (bpf/cosy.bpf.c) with
 * BPF_PROG_TEST_RUN, next to an empty TC program measured the same way:
 *  - rsvp: two candidate ports at K = 8, each VL expired the moment it is
 *    taken (δ_cosy 1 ns), so every run reads both ports' books, picks and
 *    reserves (taking over the expired VL);
 *  - reject: the rsvp's turn-around when every VL is held (the sender's
 *    clone aimed at an interface that does not exist, so nothing is sent);
 *  - data: one packet along a held reservation (owner check, relabel);
 *  - request: a control packet the program passes to the kernel.
 * The program rewrites the packet, so each figure is the mean kernel time
 * of single runs on a fresh copy.  Prints {"cosy_<what>_ns": {"value": N,
 * "unit": "ns"}}.  Needs root; prints nothing and exits 0 otherwise.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "progbench.h"

#include "dcbpf/cosy.h"
#include "bpf/lib/tcact.h"
#include "cosy.skel.h"

#define RUNS 20000
#define L4 34
#define OFF (L4 + 8)
#define NO_IFINDEX 0x7ffffff0	/* no such interface: redirects go nowhere */

struct frame {
	unsigned char b[256];
	__u32 len;
};

/* Ethernet + IPv4 (10.0.1.3 -> 10.0.0.1) + UDP + cosy header (+ 100 B for data). */
static void frame(struct frame *f, __u8 type, __u8 flags, __u8 vl, __u64 msg, __u32 seq)
{
	struct dc_cosy_hdr h = { .ver = DC_COSY_VERSION, .type = type, .flags = flags, .vl = vl, .seq = seq,
				 .msg_id = msg, .size_bytes = 64000 };
	__u32 payload = type == DC_COSY_T_DATA ? 100 : 0, ulen = 8 + DC_COSY_HDR_LEN + payload;
	unsigned char *ip = f->b + 14;

	memset(f->b, 0, sizeof(f->b));
	memcpy(f->b, "\x02\xee\x00\x00\x00\x02\x02\xee\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = 0x45;
	ip[2] = (__u8)((20 + ulen) >> 8);
	ip[3] = (__u8)(20 + ulen);
	ip[8] = 64;
	ip[9] = 17;
	inet_pton(AF_INET, "10.0.1.3", ip + 12);
	inet_pton(AF_INET, "10.0.0.1", ip + 16);
	f->b[L4 + 0] = 40000 >> 8;
	f->b[L4 + 1] = 40000 & 0xff;
	f->b[L4 + 2] = DC_COSY_UDP_PORT >> 8;
	f->b[L4 + 3] = DC_COSY_UDP_PORT & 0xff;
	f->b[L4 + 4] = (__u8)(ulen >> 8);
	f->b[L4 + 5] = (__u8)ulen;
	dc_cosy_hdr_encode(f->b + OFF, &h);
	f->len = 14 + 20 + ulen;
}

static void cfg(struct cosy_bpf *s, __u32 k, __u64 expiry_ns)
{
	struct dc_cosy_cfg c = { .k = k, .expiry_ns = expiry_ns, .switch_id = 1 };
	__u32 zero = 0;

	bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_cfg), &zero, &c, BPF_ANY);
}

static void ports(struct cosy_bpf *s)
{
	for (__u32 p = 0; p < 3; p++) {
		struct dc_cosy_port v;

		memset(&v, 0, sizeof(v));
		v.ifindex = NO_IFINDEX;
		bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_port), &p, &v, BPF_ANY);
	}
}

/* One run's verdict, so a figure is the path it names (7: redirected,
 * DC_TC_NEXT: left to the kernel); RUN_FAILED when the run itself failed. */
#define RUN_FAILED (-1000)
static int verdict(int prog, const struct frame *f)
{
	static unsigned char out[512];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = f->len, .data_out = out,
		    .data_size_out = sizeof(out));

	return bpf_prog_test_run_opts(prog, &o) ? RUN_FAILED : (int)o.retval;
}

static void emit_if(const char *name, int prog, const struct frame *f, int want)
{
	int got = verdict(prog, f);

	if (got != want) {
		fprintf(stderr, "cosy_prog bench: %s: the program returned %d, not %d; not measured\n", name, got,
			want);
		return;
	}
	pb_emit(name, pb_mean_ns(prog, f->b, f->len, RUNS));
}

int main(void)
{
	struct dc_cosy_route rt = { .nports = 2, .port = { 0, 1 } };
	struct frame rsvp, data, req;
	struct cosy_bpf *s;
	__u32 lo = 1, in_port = 2, dst;
	int prog, empty;

	DC_BENCH_NEED_ROOT("cosy_prog");
	s = DC_SKEL_OPEN_LOAD(cosy_bpf);
	if (!s) {
		fprintf(stderr, "cosy_prog bench: loading the switch program failed: %s\n", strerror(errno));
		return 1;
	}
	prog = bpf_program__fd(s->progs.dc_cosy_ingress);
	empty = pb_empty_prog(BPF_PROG_TYPE_SCHED_CLS, "dc_tc_empty");
	ports(s);
	inet_pton(AF_INET, "10.0.0.1", &dst);
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_route), &dst, &rt, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_ifport), &lo, &in_port, BPF_ANY);

	/* rsvp: every reservation expired at once, so each run reserves. */
	cfg(s, 8, 1);
	frame(&rsvp, DC_COSY_T_RSVP, 0, 0, 1, 111);
	emit_if("cosy_rsvp_ns", prog, &rsvp, 7);
	/* reject: K = 1, both ports held for good by the first two rsvps. */
	ports(s);
	cfg(s, 1, 1000ULL * 1000 * 1000 * 1000);
	verdict(prog, &rsvp);
	verdict(prog, &rsvp);
	emit_if("cosy_reject_ns", prog, &rsvp, 7);
	/* data along the reservation the first rsvp made on port 0 or 1: it
	 * comes in there with VL 0 and leaves by port 2 on the receiver's slot. */
	in_port = 0;
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_ifport), &lo, &in_port, BPF_ANY);
	frame(&data, DC_COSY_T_DATA, 0, 0, 1, 111);
	emit_if("cosy_data_ns", prog, &data, 7);
	frame(&req, DC_COSY_T_REQUEST, 0, 0, 1, 111);
	emit_if("cosy_request_ns", prog, &req, DC_TC_NEXT);
	if (empty >= 0)
		pb_emit("cosy_tc_empty_ns", pb_mean_ns(empty, data.b, data.len, RUNS));
	cosy_bpf__destroy(s);
	return 0;
}
