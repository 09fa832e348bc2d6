// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF_PROG_TEST_RUN fixture for Ethereal's mode reps (bpf/ethereal.bpf.c:
 * host egress dc_eth_hout chooses, host ingress dc_eth_hin reads the
 * ACKs; rules in include/dcbpf/reps.h): packets explore while the flow's
 * buffer is empty; an ACK without ECE puts the entropies of the packets it
 * covers into the buffer and the next packets reuse them, oldest first; an
 * ACK with ECE drops them and the next packets explore again; the buffer
 * bound; ACKs of unknown flows, or in another mode, change nothing.
 * Needs root: loads programs.
 */
#define _GNU_SOURCE
#include "ethfix.h"

#define TCP_ECE 0x40
#define SP 40100
#define DP 5201

/* TCP sequence (data) or acknowledgement (ACK) number of a built packet. */
static void set_be32(struct pkt *p, __u32 off, __u32 v)
{
	__u32 ihl = (p->b[14] & 0xf) * 4, o = 14 + ihl + off;

	p->b[o] = (__u8)(v >> 24);
	p->b[o + 1] = (__u8)(v >> 16);
	p->b[o + 2] = (__u8)(v >> 8);
	p->b[o + 3] = (__u8)v;
}

static int fd_out, fd_in;

/* A data packet of the flow A:SP → B:DP with seq and len bytes; its tag. */
static int send_data(__u16 sport, __u32 seq, __u32 len)
{
	struct pkt in, out;

	build(&in, A, B, sport, DP, len, TCP_ACK | TCP_PSH, 0, 64, NULL, 0, 6);
	set_be32(&in, 4, seq);
	if (run(fd_out, &in, &out) != TC_NEXT)
		return -2;
	return tag_of(&out);
}

/* An ACK of that flow (B:DP → A:SP) up to ack, ECE or not; true if it
 * passed unchanged. */
static bool recv_ack(__u16 sport, __u32 ack, bool ece)
{
	struct pkt in, out;

	build(&in, B, A, DP, sport, 0, TCP_ACK | (ece ? TCP_ECE : 0), 0, 64, NULL, 0, 6);
	set_be32(&in, 8, ack);
	return run(fd_in, &in, &out) == TC_NEXT && same(&in, &out);
}

static bool reps_state(__u16 sport, struct dc_eth_reps *r)
{
	struct dc_flow_key k = { .family = DC_AF_INET, .sport = sport, .dport = DP };

	inet_pton(AF_INET, A, &k.saddr[0]);
	inet_pton(AF_INET, B, &k.daddr[0]);
	memset(r, 0, sizeof(*r));
	return !bpf_map_lookup_elem(bpf_map__fd(hs->maps.dc_eth_reps), &k, r);
}

static void set_reps_cfg(__u32 s, __u32 buf)
{
	struct dc_eth_hcfg c = { .mode = DC_ETH_MODE_REPS, .n_uplinks = s, .idle_ms = 60000,
				 .reps_buf = buf };
	__u32 zero = 0;

	bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_hcfg), &zero, &c, BPF_ANY);
}

static void test_recycle(void)
{
	struct dc_eth_hcounters c0, c1;
	struct dc_eth_reps r;
	struct pkt in, out;
	int t[6], i, bad = 0;

	set_reps_cfg(4, 0);
	c0 = hcnt();
	build(&in, A, B, SP, DP, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	CHECK_EQ("reps: SYN passes (TCX_NEXT)", run(fd_out, &in, &out), TC_NEXT);
	CHECK_RANGE("reps: SYN tagged with an uplink of 4", tag_of(&out), 1, 4);
	CHECK("reps: the flow has REPS state, buffer and ring empty",
	      reps_state(SP, &r) && r.buf.count == 0 && r.ring.count == 0, "count %u/%u",
	      r.buf.count, r.ring.count);
	/* four data packets of 100 bytes from 1000: nothing to recycle yet */
	for (i = 0; i < 4; i++) {
		t[i] = send_data(SP, 1000 + 100 * i, 100);
		bad |= t[i] < 1 || t[i] > 4;
	}
	c1 = hcnt();
	CHECK("reps: with an empty buffer every packet explores (SYN + 4)",
	      !bad && c1.reps_explored - c0.reps_explored == 5 && c1.reps_recycled == c0.reps_recycled,
	      "explored %llu recycled %llu tags %d %d %d %d",
	      (unsigned long long)(c1.reps_explored - c0.reps_explored),
	      (unsigned long long)(c1.reps_recycled - c0.reps_recycled), t[0], t[1], t[2], t[3]);
	CHECK("reps: the four data packets are remembered with their end and entropy",
	      reps_state(SP, &r) && r.ring.count == 4 && r.ring.end_seq[0] == 1100 &&
		      r.ring.end_seq[3] == 1400 && r.ring.ev[0] == t[0] - 1 && r.ring.ev[3] == t[3] - 1,
	      "ring %u end %u ev %u", r.ring.count, r.ring.end_seq[0], r.ring.ev[0]);
	/* unmarked ACK of the first two */
	c0 = hcnt();
	CHECK("reps: an ACK passes unchanged", recv_ack(SP, 1200, false), "changed");
	c1 = hcnt();
	CHECK("reps: unmarked ACK of two: both entropies saved, in order",
	      c1.reps_saved - c0.reps_saved == 2 && reps_state(SP, &r) && r.buf.count == 2 &&
		      r.buf.ev[r.buf.head] == t[0] - 1 && r.buf.ev[(r.buf.head + 1) % 8] == t[1] - 1 &&
		      r.ring.count == 2,
	      "saved %llu count %u", (unsigned long long)(c1.reps_saved - c0.reps_saved), r.buf.count);
	t[4] = send_data(SP, 1400, 100);
	t[5] = send_data(SP, 1500, 100);
	c0 = c1;
	c1 = hcnt();
	CHECK("reps: the next two packets reuse them, oldest first",
	      t[4] == t[0] && t[5] == t[1] && c1.reps_recycled - c0.reps_recycled == 2 &&
		      c1.reps_explored == c0.reps_explored,
	      "tags %d %d, recycled from %d %d", t[4], t[5], t[0], t[1]);
	/* marked ACK of packets 3 and 4: dropped */
	c0 = c1;
	recv_ack(SP, 1400, true);
	c1 = hcnt();
	CHECK("reps: marked ACK: the two entropies are dropped, not saved",
	      c1.reps_marked - c0.reps_marked == 2 && c1.reps_saved == c0.reps_saved &&
		      reps_state(SP, &r) && r.buf.count == 0,
	      "marked %llu count %u", (unsigned long long)(c1.reps_marked - c0.reps_marked),
	      r.buf.count);
	c0 = c1;
	t[0] = send_data(SP, 1600, 100);
	c1 = hcnt();
	CHECK("reps: after the marked ACK the next packet explores",
	      t[0] >= 1 && t[0] <= 4 && c1.reps_explored - c0.reps_explored == 1 &&
		      c1.reps_recycled == c0.reps_recycled,
	      "explored %llu", (unsigned long long)(c1.reps_explored - c0.reps_explored));
	/* duplicate ACK and a retransmission change nothing */
	c0 = c1;
	recv_ack(SP, 1400, false);
	send_data(SP, 1000, 100);
	c1 = hcnt();
	CHECK("reps: a duplicate ACK saves nothing; a retransmission is not remembered",
	      c1.reps_saved == c0.reps_saved && reps_state(SP, &r) && r.ring.count == 3,
	      "saved %llu ring %u", (unsigned long long)(c1.reps_saved - c0.reps_saved),
	      r.ring.count);
}

static void test_bound_and_foreign(void)
{
	struct dc_eth_hcounters c0, c1;
	struct dc_eth_reps r;
	struct pkt in, out;
	int i, seen = 0;

	set_reps_cfg(4, 2);
	build(&in, A, B, SP + 1, DP, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd_out, &in, &out);
	for (i = 0; i < 5; i++)
		send_data(SP + 1, 1 + 100 * i, 100);
	recv_ack(SP + 1, 501, false);
	CHECK("reps: a buffer of 2 (--reps-buf) keeps the newest 2 of 5 unmarked",
	      reps_state(SP + 1, &r) && r.buf.count == 2 && r.ring.count == 0 &&
		      r.buf.ev[r.buf.head & 15] == r.ring.ev[3] && r.buf.ev[(r.buf.head + 1) % 2] ==
		      r.ring.ev[4],
	      "count %u", r.buf.count);
	/* many packets, no ACKs: every uplink gets explored */
	set_reps_cfg(4, 0);
	for (i = 0; i < 64; i++) {
		int t = send_data(SP + 1, 1000 + 100 * i, 100);

		if (t >= 1 && t <= 4)
			seen |= 1 << (t - 1);
	}
	CHECK_EQ("reps: exploring reaches all 4 uplinks in 64 packets", seen, 0xf);
	c0 = hcnt();
	build(&in, B, A, DP, 40999, 0, TCP_ACK, 0, 64, NULL, 0, 6);
	CHECK("reps: an ACK of no known flow passes unchanged",
	      run(fd_in, &in, &out) == TC_NEXT && same(&in, &out), "changed");
	set_cfg(DC_ETH_MODE_SPRAY, 4, 60000, 0);
	recv_ack(SP, 1700, false);
	c1 = hcnt();
	CHECK("reps: ingress does nothing for an unknown flow or in another mode",
	      c1.reps_saved == c0.reps_saved && c1.reps_marked == c0.reps_marked, "saved %llu",
	      (unsigned long long)(c1.reps_saved - c0.reps_saved));
}

int main(void)
{
	DC_TEST_NEED_ROOT("eth reps prog");
	hs = DC_SKEL_OPEN_LOAD(ethereal_bpf);
	if (!hs) {
		printf("FAIL: eth reps prog: host programs open and load (verifier): %s\n",
		       strerror(errno));
		return 1;
	}
	printf("PASS: eth reps prog: host programs (egress, ingress) verify and load\n");
	fd_out = bpf_program__fd(hs->progs.dc_eth_hout);
	fd_in = bpf_program__fd(hs->progs.dc_eth_hin);
	{
		struct dc_eth_dst_key k = { .prefixlen = 24 };
		struct dc_eth_dst d = { .leaf = 1 };

		inet_pton(AF_INET, "10.99.1.0", &k.addr);
		bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_dst), &k, &d, BPF_ANY);
	}
	test_recycle();
	test_bound_and_foreign();
	set_reps_cfg(4, 0);
	test_random(fd_out, "host egress, reps", 0);
	test_random(fd_in, "host ingress, reps", 0);
	ethereal_bpf__destroy(hs);
	return check_failed;
}
