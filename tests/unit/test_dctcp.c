// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * DCTCP's sender law (include/dcbpf/dctcp.h): the α estimator against its
 * definition (EWMA with g = 1/16 of the marked fraction per window), the
 * window accounting (one update per window of ACKs, sequence wrap), the
 * cut cwnd·(1 − α/2), and the closed loop of N synchronised flows against
 * a queue marking above K, compared with the paper's analysis (§3.3:
 * α ≈ √(2/W*), W* = (C·RTT + K)/N; the queue oscillates below K + N and,
 * with K above the bound of Eq. 13, never drains).
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "dcbpf/dctcp.h"

#define MSS 1448U
#define ONE ((double)DC_Q16_ONE)

static void test_alpha(void)
{
	__u32 a, i, n;
	double ref, worst = 0;

	CHECK_EQ("alpha: all bytes marked keeps α = 1", dc_dctcp_alpha(DC_Q16_ONE, 1000, 1000), DC_Q16_ONE);
	CHECK_EQ("alpha: from 0, one fully marked window gives g = 1/16",
		 dc_dctcp_alpha(0, 1000, 1000), DC_Q16_ONE / 16);
	CHECK_EQ("alpha: no bytes acked leaves α alone", dc_dctcp_alpha(12345, 0, 0), 12345);
	CHECK_EQ("alpha: ECE bytes above acked count as F = 1", dc_dctcp_alpha(0, 10, 99), DC_Q16_ONE / 16);
	/* α = 0.5, F = 0.25: 0.5·15/16 + 0.25/16 = 0.484375 exactly */
	CHECK_EQ("alpha: (1 − g)·α + g·F exactly on representable values",
		 dc_dctcp_alpha(DC_Q16_ONE / 2, 4000, 1000), (__u32)(0.484375 * ONE));

	/* Against the real-valued EWMA over 500 windows of varying F:
	 * flooring loses < 1 unit per step, and the error contracts by
	 * 15/16 each step, so it stays below 16 units (2^-12). */
	a = DC_DCTCP_ALPHA_INIT;
	ref = 1.0;
	for (i = 0; i < 500; i++) {
		__u32 acked = 10000 + i * 37, ece = (i * 7919) % (acked + 1);

		a = dc_dctcp_alpha(a, acked, ece);
		ref = ref * 15.0 / 16.0 + ((double)ece / acked) / 16.0;
		if (fabs(a / ONE - ref) > worst)
			worst = fabs(a / ONE - ref);
	}
	CHECK("alpha: within 16/2^16 of the real EWMA over 500 windows", worst < 16.0 / ONE,
	      "max error %.6f", worst);

	/* No marks: α decays geometrically to exactly 0 (a floor, no stuck
	 * remainder): 1·(15/16)^k < 2^-16 after 172 windows; each floor
	 * takes up to one more unit, so a little sooner. */
	a = DC_Q16_ONE;
	for (n = 0; a && n < 1000; n++)
		a = dc_dctcp_alpha(a, 1000, 0);
	CHECK_RANGE("alpha: without marks α reaches 0 within 120..172 windows", n, 120, 172);
	a = DC_Q16_ONE;
	for (i = 0; i < 16; i++)
		a = dc_dctcp_alpha(a, 1000, 0);
	CHECK_RANGE("alpha: 16 unmarked windows leave (15/16)^16 ≈ 0.356", a,
		    (__u32)(0.355 * ONE), (__u32)(0.357 * ONE));
}

static void test_window(void)
{
	struct dc_dctcp_law l;
	__u32 base = 1000, i;
	bool upd;

	dc_dctcp_start(&l, 0, 0);
	CHECK_EQ("window: the first ACK only takes the sequence numbers",
		 dc_dctcp_on_ack(&l, base, base + 10 * MSS, true) + l.acked_bytes + l.ece_bytes, 0);
	CHECK_EQ("window: starts with α = 1", l.alpha_q16, DC_Q16_ONE);
	/* 9 ACKs inside the window: no update, bytes counted */
	for (i = 1; i < 10; i++) {
		upd = dc_dctcp_on_ack(&l, base + i * MSS, base + (10 + i) * MSS, i <= 3);
		if (upd)
			break;
	}
	CHECK_EQ("window: no update before snd_una reaches the window end", upd, 0);
	CHECK_EQ("window: acked bytes counted", l.acked_bytes, 9 * MSS);
	CHECK_EQ("window: ECE bytes counted", l.ece_bytes, 3 * MSS);
	/* a duplicate ACK adds nothing */
	dc_dctcp_on_ack(&l, base + 9 * MSS, base + 19 * MSS, true);
	CHECK_EQ("window: a duplicate ACK with ECE adds no bytes", l.ece_bytes, 3 * MSS);
	upd = dc_dctcp_on_ack(&l, base + 10 * MSS, base + 20 * MSS, false);
	CHECK_EQ("window: the ACK reaching the window end updates α", upd, 1);
	/* F = 3/10: α = 15/16 + 0.3/16 */
	CHECK_RANGE("window: α = (1 − g) + g·3/10", l.alpha_q16, (__u32)((15.0 + 0.3) / 16 * ONE) - 1,
		    (__u32)((15.0 + 0.3) / 16 * ONE));
	CHECK_EQ("window: next window ends at snd_nxt", l.win_end, base + 20 * MSS);
	CHECK_EQ("window: counters restart", l.acked_bytes + l.ece_bytes, 0);

	/* sequence space wraps inside a window */
	base = 0xffffffffU - 3 * MSS;
	dc_dctcp_start(&l, base, base + 8 * MSS);
	dc_dctcp_on_ack(&l, base, base + 8 * MSS, false);
	l.alpha_q16 = 0;
	for (i = 1, upd = false; i <= 8 && !upd; i++)
		upd = dc_dctcp_on_ack(&l, base + i * MSS, base + (8 + i) * MSS, true);
	CHECK_EQ("wrap: the window ends after 8 ACKs across 2^32", i - 1, 8);
	CHECK_EQ("wrap: F = 1 across the wrap gives α = g", l.alpha_q16, DC_Q16_ONE / 16);
}

static void test_ssthresh(void)
{
	CHECK_EQ("cut: α = 1 halves", dc_dctcp_ssthresh(100, DC_Q16_ONE, true), 50);
	CHECK_EQ("cut: α = 0 keeps the window", dc_dctcp_ssthresh(100, 0, true), 100);
	CHECK_EQ("cut: α = 1/2 takes a quarter", dc_dctcp_ssthresh(100, DC_Q16_ONE / 2, true), 75);
	CHECK_EQ("cut: α = 1/16 takes 1/32 (floored cut)", dc_dctcp_ssthresh(320, DC_Q16_ONE / 16, true), 310);
	CHECK_EQ("cut: never below 2 segments", dc_dctcp_ssthresh(3, DC_Q16_ONE, true), 2);
	CHECK_EQ("cut: without ECN a loss halves whatever α is", dc_dctcp_ssthresh(100, 0, false), 50);
	CHECK_EQ("cut: huge windows do not overflow", dc_dctcp_ssthresh(0xffffffffU, DC_Q16_ONE, true),
		 0xffffffffU - 0x7fffffffU);
}

/*
 * N synchronised long flows through one bottleneck, one step per RTT
 * (the paper's §3.3 model): C·RTT = BDP packets in flight fill the pipe,
 * the rest queues; every packet of a window that finds the queue above K
 * is marked, so a flow's window is either all marked or not.  Each flow
 * runs the real law on byte sequence numbers, one ACK per packet; TCP's
 * part is modelled as: +1 segment per unmarked window, cut once in a
 * marked window (CWR).
 */
struct sim_out {
	double alpha;		/* mean α over the last 2000 RTTs */
	__u32 qmin, qmax;	/* queue, packets, over the last 2000 RTTs */
};

static struct sim_out sim(__u32 n, __u32 bdp, __u32 k)
{
	struct dc_dctcp_law l[8];
	__u32 w[8], una[8], t, f, p, q, total;
	struct sim_out o = { 0, 0xffffffffU, 0 };
	double asum = 0;

	for (f = 0; f < n; f++) {
		w[f] = 2 + f;
		una[f] = 7777 * f;
		dc_dctcp_start(&l[f], una[f], una[f]);
		dc_dctcp_on_ack(&l[f], una[f], una[f], false);
	}
	for (t = 0; t < 6000; t++) {
		total = 0;
		for (f = 0; f < n; f++)
			total += w[f];
		q = total > bdp ? total - bdp : 0;
		for (f = 0; f < n; f++) {
			bool mark = q > k, cut = false;
			__u32 nxt = una[f] + w[f] * MSS;

			for (p = 0; p < w[f]; p++) {
				una[f] += MSS;
				dc_dctcp_on_ack(&l[f], una[f], nxt, mark);
				if (mark && !cut) {
					w[f] = dc_dctcp_ssthresh(w[f], l[f].alpha_q16, true);
					cut = true;
				}
			}
			if (!mark)
				w[f]++;
			if (t >= 4000 && f == 0)
				asum += l[f].alpha_q16 / ONE;
		}
		if (t >= 4000) {
			o.qmin = q < o.qmin ? q : o.qmin;
			o.qmax = q > o.qmax ? q : o.qmax;
		}
	}
	o.alpha = asum / 2000;
	return o;
}

static void test_loop(void)
{
	static const struct { __u32 n, bdp, k; } c[] = {
		{ 2, 100, 20 }, { 4, 200, 40 }, { 8, 400, 60 }, { 2, 40, 10 },
	};
	char name[160];
	unsigned i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct sim_out o = sim(c[i].n, c[i].bdp, c[i].k);
		double wstar = (double)(c[i].bdp + c[i].k) / c[i].n;
		double apaper = sqrt(2.0 / wstar);
		/* amplitude of the queue's sawtooth (Eq. 9): ½·√(2N(C·RTT + K)) */
		double amp = 0.5 * sqrt(2.0 * c[i].n * (c[i].bdp + c[i].k));

		snprintf(name, sizeof(name),
			 "loop N=%u BDP=%u K=%u: mean α %.3f within ±20%% of √(2/W*) = %.3f",
			 c[i].n, c[i].bdp, c[i].k, o.alpha, apaper);
		CHECK(name, o.alpha > 0.8 * apaper && o.alpha < 1.2 * apaper, "α %.3f", o.alpha);
		snprintf(name, sizeof(name), "loop N=%u BDP=%u K=%u: queue max %u ≤ K + N", c[i].n,
			 c[i].bdp, c[i].k, o.qmax);
		CHECK(name, o.qmax <= c[i].k + c[i].n, "qmax %u", o.qmax);
		snprintf(name, sizeof(name),
			 "loop N=%u BDP=%u K=%u: queue never drains (min %u), swing %u ≤ 2·A = %.0f",
			 c[i].n, c[i].bdp, c[i].k, o.qmin, o.qmax - o.qmin, 2 * amp);
		CHECK(name, o.qmin > 0 && o.qmax - o.qmin <= 2 * amp, "qmin %u qmax %u", o.qmin, o.qmax);
	}
	/* The same loop with α pinned at 1 (classic ECN halving): with a
	 * small K the queue drains — what DCTCP's α avoids. */
	{
		__u32 w = 60, t, q, qmin = 1000;

		for (t = 0; t < 2000; t++) {
			q = 2 * w > 100 ? 2 * w - 100 : 0;
			if (t > 1000 && q < qmin)
				qmin = q;
			w = q > 20 ? dc_dctcp_ssthresh(w, DC_Q16_ONE, true) : w + 1;
		}
		CHECK_EQ("loop: with α = 1 (halving) the same queue drains to 0", qmin, 0);
	}
}

int main(void)
{
	test_alpha();
	test_window();
	test_ssthresh();
	test_loop();
	return check_failed;
}
