// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The circuit switch's decision (dc_rd_judge, include/dcbpf/rdcn.h) over
 * dc_rd_where's answer: no schedule before the epoch, the night from its
 * first ns, a pair matched only on the uplink whose matching holds it, a
 * self-loop (idle uplink) and an uplink beyond n_u carrying nothing, next
 * hops outside the fabric refused before the time matters; Ch. 7's
 * complete graph with self-loop over a period (every ordered pair passes
 * in exactly one slot); the port key.
 */
#include <string.h>

#include "check.h"
#include "dcbpf/rdcn.h"

static int judge_at(const struct dc_rd_cfg *c, const struct dc_rd_slot *sched, __u64 now, __u32 up, __u32 from,
		    __u32 to)
{
	__u32 slot = 0;
	__u64 left = 0;
	int where = dc_rd_where(c, now, &slot, &left);

	return dc_rd_judge(where, c, where > 0 ? &sched[slot] : NULL, up, from, to);
}

int main(void)
{
	static struct dc_rd_slot s[4];
	struct dc_rd_cfg c = { .epoch_ns = 5000, .slot_ns = 1000, .day_ns = 900, .period = 4, .ntors = 4,
			       .nup = 2 };
	struct dc_rd_cfg none = { 0 };
	__u32 t, i, j, u, passes, bad = 0;

	/* uplink 0: σ_t(i) = (i + t) mod 4 (Ch. 7's round robin with self);
	 * uplink 1: (i + t + 2) mod 4 */
	for (t = 0; t < 4; t++) {
		memset(&s[t], DC_RD_IDLE, sizeof(s[t]));
		for (i = 0; i < 4; i++) {
			s[t].peer[0][i] = (__u8)((i + t) % 4);
			s[t].peer[1][i] = (__u8)((i + t + 2) % 4);
		}
	}
	CHECK_EQ("judge: the test schedule is valid", dc_rd_cfg_check(&c), DC_RD_OK);

	CHECK_EQ("judge: nothing published (zero configuration): no schedule",
		 judge_at(&none, s, 5000, 0, 0, 1), DC_RD_V_NOSCHED);
	CHECK_EQ("judge: 1 ns before the epoch: no schedule", judge_at(&c, s, 4999, 0, 0, 1), DC_RD_V_NOSCHED);
	CHECK_EQ("judge: slot 1 at its start, 0 -> 1 on uplink 0: pass", judge_at(&c, s, 6000, 0, 0, 1),
		 DC_RD_V_PASS);
	CHECK_EQ("judge: slot 1, last ns of the day: pass", judge_at(&c, s, 6899, 0, 0, 1), DC_RD_V_PASS);
	CHECK_EQ("judge: slot 1, first ns of the night: night", judge_at(&c, s, 6900, 0, 0, 1), DC_RD_V_NIGHT);
	CHECK_EQ("judge: slot 1, last ns of the night: night", judge_at(&c, s, 6999, 0, 0, 1), DC_RD_V_NIGHT);
	CHECK_EQ("judge: slot 1, 0 -> 1 on uplink 1 (it reaches 3): unmatched", judge_at(&c, s, 6000, 1, 0, 1),
		 DC_RD_V_UNMATCHED);
	CHECK_EQ("judge: slot 1, 0 -> 3 on uplink 1: pass", judge_at(&c, s, 6000, 1, 0, 3), DC_RD_V_PASS);
	CHECK_EQ("judge: slot 0 on uplink 0 is the identity (idle): 0 -> 1 unmatched",
		 judge_at(&c, s, 5000, 0, 0, 1), DC_RD_V_UNMATCHED);
	CHECK_EQ("judge: an uplink beyond n_u: unmatched", judge_at(&c, s, 6000, 2, 0, 1), DC_RD_V_UNMATCHED);
	CHECK_EQ("judge: a next hop beyond the ToRs: no destination, also at night",
		 judge_at(&c, s, 6950, 0, 0, 4), DC_RD_V_NODEST);
	CHECK_EQ("judge: to itself: no destination (a self-loop carries nothing)",
		 judge_at(&c, s, 5000, 0, 2, 2), DC_RD_V_NODEST);
	CHECK_EQ("judge: an unknown next hop (DC_RD_TORS_MAX): no destination",
		 judge_at(&c, s, 6000, 0, 0, DC_RD_TORS_MAX), DC_RD_V_NODEST);
	CHECK_EQ("judge: a sender beyond the ToRs: no destination", judge_at(&c, s, 6000, 0, 7, 1),
		 DC_RD_V_NODEST);
	CHECK_EQ("judge: day without the slot's matching: unmatched, never pass",
		 dc_rd_judge(1, &c, NULL, 0, 0, 1), DC_RD_V_UNMATCHED);

	/* a period later and over the wrap: each ordered pair i != j passes
	 * in exactly one slot per uplink, only during the day */
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			for (u = 0; u < 2; u++) {
				passes = 0;
				for (t = 0; t < 4; t++) {
					__u64 t0 = 5000 + (4 + t) * 1000ULL;

					passes += judge_at(&c, s, t0 + 17, u, i, j) == DC_RD_V_PASS;
					bad += judge_at(&c, s, t0 + 900, u, i, j) == DC_RD_V_PASS;
				}
				bad += passes != (i != j);
			}
	CHECK_EQ("judge: one period, every pair and uplink: one slot if i != j, none at night", bad, 0);

	CHECK_EQ("port key: (3, 5)", dc_rd_port_key(3, 5), 3 * DC_RD_UP_MAX + 5);
	CHECK_EQ("port key: the last port", dc_rd_port_key(DC_RD_TORS_MAX - 1, DC_RD_UP_MAX - 1), DC_RD_PORTS - 1);

	/* the VOQ gates (dc_rd_gate_times): open at the slot's start, close
	 * the guard before the day's end; a guard not below the day never opens */
	{
		__u64 op = 0, cl = 0;

		CHECK_EQ("gate: slot 1 at its start: index", dc_rd_gate_times(&c, 6000, 100, &op, &cl), 1);
		CHECK("gate: slot 1 opens at 6000, closes at 6800 (day 900, guard 100)", op == 6000 && cl == 6800,
		      "open %llu close %llu", (unsigned long long)op, (unsigned long long)cl);
		CHECK_EQ("gate: the last ns of slot 3's night is still slot 3", dc_rd_gate_times(&c, 8999, 0, &op, &cl),
			 3);
		CHECK("gate: guard 0 closes at the day's end", op == 8000 && cl == 8900, "open %llu close %llu",
		      (unsigned long long)op, (unsigned long long)cl);
		CHECK_EQ("gate: the period wraps (slot 4 is slot 0)", dc_rd_gate_times(&c, 9000, 0, &op, &cl), 0);
		CHECK("gate: guard not below the day: closes as it opens", dc_rd_gate_times(&c, 6500, 900, &op, &cl) == 1 &&
		      op == 6000 && cl == 6000, "open %llu close %llu", (unsigned long long)op, (unsigned long long)cl);
		CHECK_EQ("voq: classid of ToR 0 is 1:1", dc_rd_voq_classid(0), 0x10001);
		CHECK_EQ("voq: classid of ToR 63 is 1:64", dc_rd_voq_classid(63), 0x10040);
		CHECK_EQ("voq: the gate of ToR 2 is 102:", dc_rd_gate_handle(2), 0x1020000);
	}
	bad = 0;
	/* INT's rate (dc_rd_pair_rate_mbps): the circuit's exactly when the
	 * switch would pass the frame */
	for (t = 4000; t < 10000; t += 50)
		for (u = 0; u < 3; u++)
			for (i = 0; i < 4; i++)
				for (j = 0; j < 5; j++) {
					__u32 sl = 0;
					__u64 left = 0;
					int w = dc_rd_where(&c, t, &sl, &left);
					__u32 r = dc_rd_pair_rate_mbps(w, &c, w > 0 ? &s[sl] : NULL, u, i, j, 100000, 25000);

					bad += r != (judge_at(&c, s, t, u, i, j) == DC_RD_V_PASS ? 100000u : 25000u);
				}
	CHECK_EQ("int rate: the circuit's iff the switch passes, over 6 slots, 3 uplinks, every pair", bad, 0);
	return check_failed;
}
