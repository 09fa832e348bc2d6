// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * cosy's end host (include/dcbpf/cosyhost.h), "Building a Partial
 * Communication Synchrony Abstraction on Asynchronous Datacenters"
 * (Agarwal et al.), run against one switch built from the VL book of
 * include/dcbpf/cosy.h (the steps bpf/cosy.bpf.c takes), every link a
 * fixed one-way delay.  Checked: a message completes within δ_cosy
 * (Thm 3.5) with every byte delivered, paced at B/K; a receiver with one
 * slot holds a second request up to δ^E and admits it when the slot
 * frees, or rejects it (busy) when δ^E is short; the sender's access link
 * full is blocking in the network (reject to both ends, the receiver's
 * slot freed); lost data is reported as a failure by the receiver's
 * detector before the sender's δ; an rsvp for nothing is refused along
 * the reservation; the sender's δ timeout when nothing comes back; a late
 * tick sends one packet and restarts the pacing (no burst above B/K).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/cosyhost.h"

#define US 1000ULL
#define NH 4
#define OWD_NS (100 * US)	/* host -> switch -> host: hRTT = 200 µs */
#define BW_KBPS 1000000ULL	/* 1 Gb/s */

struct inflight {
	struct dc_cosy_wire w;
	__u64 at_ns;
	bool to_switch;		/* host -> switch; else switch -> host */
};

static struct {
	struct dc_cosy_host h[NH];
	struct dc_cosy_vls port[NH];	/* the switch: port i to host i */
	__u32 k;
	__u64 now_ns, expiry_ns;
	struct inflight q[4096];
	__u32 nq;
	__u32 drop_data_from;		/* host+1 whose data and complete are lost */
	__u32 drop_rsvp;		/* rsvps lost */
	__u32 data_pkts, switch_rejects;
	__u64 last_data_ns[NH], first_data_ns[NH];
} net;

static void deliver_at(const struct dc_cosy_wire *w, __u64 at_ns)
{
	if (net.nq < sizeof(net.q) / sizeof(net.q[0]))
		net.q[net.nq++] = (struct inflight){ *w, at_ns, false };
}

/* The switch (one hop): what bpf/cosy.bpf.c does with each type. */
static void sw(struct dc_cosy_wire w)
{
	struct dc_cosy_vls *in = &net.port[w.src], *out;
	bool rec;
	int rc;

	switch (w.h.type) {
	case DC_COSY_T_RSVP: {
		__u64 free;

		if (net.drop_rsvp)
			return;
		out = &net.port[w.dst];
		free = dc_cosy_free_mask(out, net.k, net.now_ns);
		if (!free) {	/* reject to both ends */
			struct dc_cosy_wire back = w;

			net.switch_rejects++;
			w.h.type = back.h.type = DC_COSY_T_REJECT;
			w.h.reason = back.h.reason = DC_COSY_R_NO_VL;
			w.h.flags &= (__u8)~DC_COSY_F_RELEASE;
			deliver_at(&w, net.now_ns + OWD_NS / 2);
			back.h.flags |= DC_COSY_F_RELEASE;
			back.src = w.dst;
			back.dst = w.src;
			deliver_at(&back, net.now_ns + OWD_NS / 2);
			return;
		}
		rc = dc_cosy_reserve(out, net.k, dc_cosy_nth_bit(free, 0), w.h.msg_id, w.h.seq, net.now_ns,
				     net.expiry_ns, (__u16)w.src, w.h.vl, &rec);
		if (rc)
			return;
		w.h.vl = (__u8)dc_cosy_nth_bit(free, 0);
		break;
	}
	case DC_COSY_T_DATA:
	case DC_COSY_T_COMPLETE:
	case DC_COSY_T_REJECT:
		if (w.h.type == DC_COSY_T_DATA || (w.h.flags & DC_COSY_F_RELEASE)) {
			if ((w.h.type == DC_COSY_T_DATA || w.h.type == DC_COSY_T_COMPLETE) &&
			    net.drop_data_from == w.src + 1)
				return;
			rc = w.h.type == DC_COSY_T_DATA ? dc_cosy_match(in, net.k, w.h.vl, w.h.msg_id, w.h.seq, net.now_ns)
							 : dc_cosy_release(in, net.k, w.h.vl, w.h.msg_id, w.h.seq, net.now_ns);
			if (rc)
				return;
			w.h.vl = in->vl[w.h.vl].out_vl;
			if (w.h.type == DC_COSY_T_DATA) {
				net.data_pkts++;
				if (!net.first_data_ns[w.src])
					net.first_data_ns[w.src] = net.now_ns;
				net.last_data_ns[w.src] = net.now_ns;
			}
		}
		break;
	default:
		break;
	}
	deliver_at(&w, net.now_ns + OWD_NS / 2);
}

static void setup(__u32 k, __u64 delta_ns, __u64 wait_ns)
{
	memset(&net, 0, sizeof(net));
	net.k = k;
	net.expiry_ns = delta_ns;
	for (__u32 i = 0; i < NH; i++)
		dc_cosy_host_init(&net.h[i], i, k, BW_KBPS, delta_ns, wait_ns, 7 + i);
}

static void flush(void)
{
	for (__u32 i = 0; i < NH; i++) {
		for (__u32 j = 0; j < net.h[i].nout; j++)
			if (net.nq < sizeof(net.q) / sizeof(net.q[0]))
				net.q[net.nq++] = (struct inflight){ net.h[i].out[j], net.now_ns + OWD_NS / 2, true };
		net.h[i].nout = 0;
	}
}

/* Run until nothing is pending or until end_ns. */
static void run(__u64 end_ns)
{
	for (int guard = 0; guard < 200000; guard++) {
		__u64 next = DC_U64_MAX;
		__u32 i;

		flush();
		for (i = 0; i < net.nq; i++)
			next = dc_min_u64(next, net.q[i].at_ns);
		for (i = 0; i < NH; i++)
			next = dc_min_u64(next, dc_cosy_host_next_ns(&net.h[i]));
		if (next == DC_U64_MAX || next > end_ns)
			return;
		net.now_ns = dc_max_u64(net.now_ns, next);
		for (i = 0; i < net.nq;) {
			if (net.q[i].at_ns <= net.now_ns) {
				struct dc_cosy_wire w = net.q[i].w;
				bool to_switch = net.q[i].to_switch;

				net.q[i] = net.q[--net.nq];
				if (to_switch) {
					sw(w);
				} else {
					dc_cosy_host_rx(&net.h[w.dst], net.now_ns, &w);
				}
				continue;
			}
			i++;
		}
		for (i = 0; i < NH; i++)
			dc_cosy_host_tick(&net.h[i], net.now_ns);
	}
}

static const struct dc_cosy_done *done_of(__u32 host, __u64 msg)
{
	for (__u32 i = 0; i < net.h[host].ndone; i++)
		if (net.h[host].done[i].msg_id == msg)
			return &net.h[host].done[i];
	return NULL;
}

static __u64 bits(void)
{
	__u64 n = 0;

	for (__u32 i = 0; i < NH; i++)
		n += dc_cosy_popcount(net.port[i].bitmap & ~dc_cosy_free_mask(&net.port[i], net.k, net.now_ns));
	return n;
}

static void test_one(void)
{
	struct dc_cosy_net n = { .bw_kbps = BW_KBPS, .hrtt_ns = 2 * OWD_NS, .msg_bytes = 64000, .hops = 1,
				 .pkt_bytes = 1500, .k = 2, .cores = 1 };
	__u64 delta = dc_cosy_delta_ns(&n), pkt_ns = dc_cosy_tx_ns(DC_COSY_DATA_BYTES * 2, BW_KBPS);
	const struct dc_cosy_done *d;

	setup(2, delta, 0);
	CHECK_EQ("host: submit", dc_cosy_host_submit(&net.h[0], 0, 1, 1, 64000), 0);
	CHECK_EQ("host: the same id twice refused", dc_cosy_host_submit(&net.h[0], 0, 1, 2, 100), (__u64)-1);
	run(10 * delta);
	d = done_of(0, 1);
	CHECK("host: h0 -> h1 completes", d && d->status == DC_COSY_S_COMPLETE, "status %u", d ? d->status : 0);
	CHECK("host: within δ_cosy = 2 hRTT + sK/B + δ̂ (Thm 3.5)", d && d->latency_ns <= delta,
	      "%llu > %llu", d ? (unsigned long long)d->latency_ns : 0, (unsigned long long)delta);
	CHECK_EQ("host: 46 data packets of 1400 B for 64000 B", net.data_pkts, 46);
	CHECK_EQ("host: paced at B/K: 45 gaps of 1400 B at 500 Mb/s", net.last_data_ns[0] - net.first_data_ns[0],
		 45 * pkt_ns);
	CHECK_EQ("host: every VL freed by the complete", bits(), 0);
	CHECK("host: both ends' slots free", !net.h[0].send_slots && !net.h[1].recv_slots, "send %llx recv %llx",
	      (unsigned long long)net.h[0].send_slots, (unsigned long long)net.h[1].recv_slots);
}

/* Receiver with one slot: the second request waits for it (δ^E). */
static void test_wait(__u64 wait_ns, bool admitted)
{
	const __u64 delta = 5000 * US;
	const struct dc_cosy_done *d1, *d2;
	char name[128];

	setup(1, delta + wait_ns, wait_ns);
	dc_cosy_host_submit(&net.h[0], 0, 1, 2, 64000);
	dc_cosy_host_submit(&net.h[1], 0, 2, 2, 64000);
	run(10 * delta);
	d1 = done_of(0, 1);
	d2 = done_of(1, 2);
	snprintf(name, sizeof(name), "wait %llu us: the first message completes",
		 (unsigned long long)(wait_ns / US));
	CHECK(name, (d1 && d1->status == DC_COSY_S_COMPLETE) || (d2 && d2->status == DC_COSY_S_COMPLETE), "none");
	snprintf(name, sizeof(name), "wait %llu us: the second is %s", (unsigned long long)(wait_ns / US),
		 admitted ? "admitted when the slot frees" : "rejected, receiver busy");
	if (admitted)
		CHECK(name, d1 && d2 && d1->status == DC_COSY_S_COMPLETE && d2->status == DC_COSY_S_COMPLETE,
		      "%u %u", d1 ? d1->status : 0, d2 ? d2->status : 0);
	else
		CHECK(name, d1 && d2 && d1->status + d2->status == DC_COSY_S_COMPLETE + DC_COSY_S_REJECT &&
		      (d1->status == DC_COSY_S_REJECT ? d1 : d2)->reason == DC_COSY_R_BUSY, "%u %u",
		      d1 ? d1->status : 0, d2 ? d2->status : 0);
	snprintf(name, sizeof(name), "wait %llu us: nothing held afterwards", (unsigned long long)(wait_ns / US));
	CHECK(name, bits() == 0 && !net.h[2].recv_slots, "bits %llu", (unsigned long long)bits());
}

/* Two receivers rsvp the same sender over its one VL: blocking in the network. */
static void test_blocking(void)
{
	const struct dc_cosy_done *d1, *d2;

	setup(1, 5000 * US, 0);
	dc_cosy_host_submit(&net.h[0], 0, 1, 1, 64000);
	dc_cosy_host_submit(&net.h[0], 0, 2, 2, 64000);
	run(50000 * US);
	d1 = done_of(0, 1);
	d2 = done_of(0, 2);
	CHECK("blocking: one message completes, the other is rejected by the switch (no VL)",
	      d1 && d2 && d1->status + d2->status == DC_COSY_S_COMPLETE + DC_COSY_S_REJECT &&
	      (d1->status == DC_COSY_S_REJECT ? d1 : d2)->reason == DC_COSY_R_NO_VL && net.switch_rejects == 1,
	      "%u %u rejects %u", d1 ? d1->status : 0, d2 ? d2->status : 0, net.switch_rejects);
	CHECK("blocking: the refused receiver's slot is free again", !net.h[1].recv_slots && !net.h[2].recv_slots &&
	      bits() == 0, "h1 %llx h2 %llx", (unsigned long long)net.h[1].recv_slots,
	      (unsigned long long)net.h[2].recv_slots);
}

static void test_failure(void)
{
	struct dc_cosy_net n = { .bw_kbps = BW_KBPS, .hrtt_ns = 2 * OWD_NS, .msg_bytes = 64000, .hops = 1,
				 .pkt_bytes = 1500, .k = 1, .cores = 1 };
	const struct dc_cosy_done *d;

	setup(1, dc_cosy_delta_ns(&n) + 1000 * US, 0);
	/* the receiver knows when the message must be in: hRTT + sK/B + δ̂ */
	net.h[1].fail_ns = dc_cosy_delta_ns(&n) - 2 * OWD_NS;
	net.drop_data_from = 1;
	dc_cosy_host_submit(&net.h[0], 0, 1, 1, 64000);
	run(100000 * US);
	d = done_of(0, 1);
	CHECK("failure: lost data reported by the receiver's detector, before δ",
	      d && d->status == DC_COSY_S_FAILURE && d->latency_ns < net.h[0].delta_ns, "status %u latency %llu",
	      d ? d->status : 0, d ? (unsigned long long)d->latency_ns : 0);
	CHECK_EQ("failure: the receiver's slot is free", net.h[1].recv_slots, 0);
	CHECK_EQ("failure: the switch still holds the sender's VL (no complete came)", bits(), 1);
	net.now_ns += net.expiry_ns;
	CHECK_EQ("failure: ... until δ_cosy after the rsvp, then it is free", bits(), 0);
}

static void test_timeout_and_stray(void)
{
	struct dc_cosy_wire w = { .src = 1, .dst = 0,
				  .h = { .ver = 1, .type = DC_COSY_T_RSVP, .vl = 0, .msg_id = 99, .seq = 5 } };
	const struct dc_cosy_done *d;

	setup(1, 3000 * US, 0);
	net.drop_rsvp = 1;
	dc_cosy_host_submit(&net.h[0], 0, 1, 1, 64000);
	run(100000 * US);
	d = done_of(0, 1);
	CHECK("timeout: nothing back by δ: reject (reason 0) at exactly δ",
	      d && d->status == DC_COSY_S_REJECT && d->reason == 0 && d->latency_ns == 3000 * US, "status %u",
	      d ? d->status : 0);
	net.h[0].nout = 0;
	dc_cosy_host_rx(&net.h[0], net.now_ns, &w);
	CHECK("stray rsvp: refused along the reservation (reject with release, its label and seq)",
	      net.h[0].nout == 1 && net.h[0].out[0].h.type == DC_COSY_T_REJECT &&
	      (net.h[0].out[0].h.flags & DC_COSY_F_RELEASE) && net.h[0].out[0].h.seq == 5 && net.h[0].out[0].dst == 1,
	      "nout %u", net.h[0].nout);
}

/* A tick that comes late (the caller slept) sends one packet and restarts
 * the schedule from then: no catch-up burst above B/K. */
static void test_late_tick(void)
{
	static struct dc_cosy_host h;
	__u64 pkt_ns = dc_cosy_tx_ns(DC_COSY_DATA_BYTES * 4, BW_KBPS), t = 10 * pkt_ns + 7;
	struct dc_cosy_smsg *m;

	dc_cosy_host_init(&h, 0, 4, BW_KBPS, 1000000000ULL, 0, 1);
	CHECK_EQ("late tick: submit", dc_cosy_host_submit(&h, 0, 9, 1, 10 * DC_COSY_DATA_BYTES), 0);
	h.nout = 0;
	m = dc_cosy_host_msg(&h, 9);
	m->state = DC_COSY_M_SENDING;	/* as if its rsvp came at 0 with slot 2 */
	m->slot = 2;
	m->start_ns = 0;
	h.send_slots = 1ULL << 2;
	dc_cosy_host_tick(&h, 0);
	CHECK_EQ("late tick: on time, packet 0 at 0", h.nout, 1);
	h.nout = 0;
	/* 10 packet times later: 9 are due, one leaves */
	dc_cosy_host_tick(&h, t);
	CHECK_EQ("late tick: one packet, not the 9 that are due", h.nout, 1);
	CHECK_EQ("late tick: the next one pkt_ns after it (B/K from now on)", dc_cosy_host_next_ns(&h), t + pkt_ns);
	h.nout = 0;
	dc_cosy_host_tick(&h, t + pkt_ns - 1);
	CHECK_EQ("late tick: nothing before that", h.nout, 0);
	dc_cosy_host_tick(&h, t + pkt_ns);
	CHECK_EQ("late tick: then the third", h.nout, 1);
	CHECK_EQ("late tick: 3 of 10 sent", m->sent_bytes, 3 * DC_COSY_DATA_BYTES);
}

int main(void)
{
	test_late_tick();
	test_one();
	test_wait(3000 * US, true);
	test_wait(100 * US, false);
	test_blocking();
	test_failure();
	test_timeout_and_stray();
	return check_failed;
}
