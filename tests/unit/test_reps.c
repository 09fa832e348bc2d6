// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * REPS core (include/dcbpf/reps.h) against the sender's rules of "REPS:
 * Recycled Entropy Packet Spraying" (Bonato et al.): an unmarked ACK's
 * entropy is reused (R1), a marked ACK's is not (R2), oldest first, and a
 * fresh random one is drawn when the buffer is empty (R3); the buffer
 * bound and its replacement of the oldest (R4); freezing reuses without
 * removal (R5); the per-flow ring matches cumulative ACKs to packets,
 * across the 2^32 sequence wrap, and ignores retransmissions.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/reps.h"

static struct dc_reps_buf buf(__u32 size)
{
	struct dc_reps_buf b;

	memset(&b, 0, sizeof(b));
	b.size = size;
	return b;
}

/* R3: empty buffer → explore with rnd % n; the entropy is in range. */
static void test_explore(void)
{
	struct dc_reps_buf b = buf(8);
	__u32 src = 99, ev, i, seen = 0;

	ev = dc_reps_choose(&b, 7, 4, false, &src);
	CHECK_EQ("reps: empty buffer explores", src, DC_REPS_EXPLORED);
	CHECK_EQ("reps: explored entropy is rnd mod n (7 mod 4)", ev, 3);
	for (i = 0; i < 64; i++) {
		ev = dc_reps_choose(&b, i * 2654435761U, 4, false, &src);
		if (ev >= 4 || src != DC_REPS_EXPLORED)
			break;
		seen |= 1U << ev;
	}
	CHECK("reps: exploring stays in 0..n-1 and reaches every uplink", i == 64 && seen == 0xf,
	      "i %u seen %#x", i, seen);
	CHECK_EQ("reps: exploring leaves the buffer empty", b.count, 0);
	ev = dc_reps_choose(&b, 5, 0, false, &src);
	CHECK_EQ("reps: n = 0 counts as one uplink", ev, 0);
}

/* R1 + R3 order: recycled entropies come back oldest first, each once. */
static void test_recycle_fifo(void)
{
	struct dc_reps_buf b = buf(8);
	__u32 src, ev[4], i;

	dc_reps_recycle(&b, 2);
	dc_reps_recycle(&b, 0);
	dc_reps_recycle(&b, 3);
	CHECK_EQ("reps: three recycled entropies held", b.count, 3);
	for (i = 0; i < 4; i++)
		ev[i] = dc_reps_choose(&b, 1, 4, false, &src);
	CHECK("reps: recycled in the order they came back (2, 0, 3), then explore (1)",
	      ev[0] == 2 && ev[1] == 0 && ev[2] == 3 && ev[3] == 1 && src == DC_REPS_EXPLORED,
	      "%u %u %u %u src %u", ev[0], ev[1], ev[2], ev[3], src);
	dc_reps_recycle(&b, 1);
	ev[0] = dc_reps_choose(&b, 3, 4, false, &src);
	CHECK("reps: a recycled entropy is used before exploring", ev[0] == 1 &&
	      src == DC_REPS_RECYCLED, "ev %u src %u", ev[0], src);
	CHECK_EQ("reps: and removed (used once)", b.count, 0);
}

/* R4: the bound; a full buffer replaces its oldest entry. */
static void test_bound(void)
{
	struct dc_reps_buf b = buf(4);
	__u32 src, i, rep = 0, got[4];

	for (i = 0; i < 6; i++)
		rep += dc_reps_recycle(&b, i);
	CHECK_EQ("reps: buffer of 4 holds 4", b.count, 4);
	CHECK_EQ("reps: two entries replaced the oldest", rep, 2);
	for (i = 0; i < 4; i++)
		got[i] = dc_reps_choose(&b, 0, 16, false, &src);
	CHECK("reps: the newest four survive, oldest first (2, 3, 4, 5)",
	      got[0] == 2 && got[1] == 3 && got[2] == 4 && got[3] == 5, "%u %u %u %u", got[0],
	      got[1], got[2], got[3]);
	CHECK_EQ("reps: size 0 is REPS' default 8", dc_reps_size(0), DC_REPS_BUF_DEFAULT);
	CHECK_EQ("reps: size above the bound is clamped", dc_reps_size(1000), DC_REPS_BUF_MAX);
	b = buf(1000);
	for (i = 0; i < 40; i++)
		dc_reps_recycle(&b, i & 7);
	CHECK_EQ("reps: an oversize buffer holds DC_REPS_BUF_MAX", b.count, DC_REPS_BUF_MAX);
	/* a buffer reconfigured smaller keeps at most the new size */
	b.size = 2;
	got[0] = dc_reps_choose(&b, 0, 16, false, &src);
	CHECK("reps: shrinking the size caps what is held", b.count == 1 && src ==
	      DC_REPS_RECYCLED, "count %u src %u", b.count, src);
	/* an entropy beyond the uplinks (fewer configured since) is not used */
	b = buf(8);
	dc_reps_recycle(&b, 9);
	got[0] = dc_reps_choose(&b, 6, 4, false, &src);
	CHECK("reps: an entropy >= n is discarded and the choice explores",
	      got[0] == 2 && src == DC_REPS_EXPLORED && b.count == 0, "ev %u src %u", got[0], src);
}

/* R1/R2 through the ring: unmarked ACK → reused, marked → not. */
static void test_acks(void)
{
	struct dc_reps_buf b = buf(8);
	struct dc_reps_ring r;
	struct dc_reps_ack_res res;
	__u32 src, ev;

	memset(&r, 0, sizeof(r));
	/* four packets of 1000 bytes from 1000 on uplinks 0, 1, 2, 3 */
	dc_reps_sent(&r, 2000, 0);
	dc_reps_sent(&r, 3000, 1);
	dc_reps_sent(&r, 4000, 2);
	dc_reps_sent(&r, 5000, 3);
	CHECK_EQ("reps ring: four packets remembered", r.count, 4);
	dc_reps_acked(&r, &b, 1999, false, &res);
	CHECK("reps ring: an ACK short of a packet's end covers nothing",
	      res.acked == 0 && r.count == 4 && b.count == 0, "acked %u", res.acked);
	dc_reps_acked(&r, &b, 3000, false, &res);
	CHECK("reps ring: unmarked cumulative ACK of two: both entropies saved",
	      res.acked == 2 && res.saved == 2 && res.marked == 0 && b.count == 2 && r.count == 2,
	      "acked %u saved %u count %u", res.acked, res.saved, b.count);
	dc_reps_acked(&r, &b, 4000, true, &res);
	CHECK("reps ring: marked ACK: the entropy is dropped, not saved",
	      res.acked == 1 && res.marked == 1 && res.saved == 0 && b.count == 2,
	      "acked %u marked %u count %u", res.acked, res.marked, b.count);
	dc_reps_acked(&r, &b, 5000, false, &res);
	CHECK_EQ("reps ring: the last one unmarked: saved", b.count, 3);
	ev = dc_reps_choose(&b, 0, 4, false, &src);
	CHECK("reps: reused 0 first", ev == 0 && src == DC_REPS_RECYCLED, "ev %u", ev);
	ev = dc_reps_choose(&b, 0, 4, false, &src);
	CHECK_EQ("reps: then 1", ev, 1);
	ev = dc_reps_choose(&b, 0, 4, false, &src);
	CHECK("reps: then 3: the marked 2 never comes back", ev == 3 && src == DC_REPS_RECYCLED,
	      "ev %u", ev);
	ev = dc_reps_choose(&b, 2, 4, false, &src);
	CHECK("reps: then the buffer is empty: explore", src == DC_REPS_EXPLORED && ev == 2,
	      "src %u", src);
	/* a retransmission (end not after the last) is not remembered */
	CHECK_EQ("reps ring: a retransmission is not remembered",
		 dc_reps_sent(&r, 3000, 1) == 0 && r.count == 0, 1);
	/* duplicate ACK: nothing left to cover */
	dc_reps_acked(&r, &b, 5000, false, &res);
	CHECK_EQ("reps ring: a duplicate ACK saves nothing", res.saved, 0);
}

/* The ring across the 2^32 wrap, and its bound. */
static void test_ring_wrap_bound(void)
{
	struct dc_reps_buf b = buf(16);
	struct dc_reps_ring r;
	struct dc_reps_ack_res res;
	__u32 i, lost = 0, seq = 0xfffff000U;

	memset(&r, 0, sizeof(r));
	r.any = 1;
	r.last_end = seq;
	dc_reps_sent(&r, seq + 0x800, 1);
	dc_reps_sent(&r, seq + 0x1800, 2);	/* wraps past 0 */
	dc_reps_acked(&r, &b, seq + 0x1800, false, &res);
	CHECK("reps ring: an ACK after the wrap covers both packets",
	      res.acked == 2 && b.count == 2, "acked %u", res.acked);
	for (i = 0; i < DC_REPS_INFLIGHT + 5; i++)
		lost += dc_reps_sent(&r, seq + 0x2000 + i * 100, i & 3);
	CHECK("reps ring: bounded: the 5 oldest beyond DC_REPS_INFLIGHT forgotten",
	      lost == 5 && r.count == DC_REPS_INFLIGHT, "lost %u count %u", lost, r.count);
	dc_reps_acked(&r, &b, seq + 0x2000 + (DC_REPS_INFLIGHT + 5) * 100, false, &res);
	CHECK("reps ring: an ACK of all covers the remembered ones only",
	      res.acked == DC_REPS_INFLIGHT && r.count == 0 && b.count == 16 &&
		      res.replaced == 2 + DC_REPS_INFLIGHT - 16,
	      "acked %u count %u buf %u replaced %u", res.acked, r.count, b.count, res.replaced);
}

/* R5: frozen, entropies are reused in turn without removal; no exploring
 * while any is held. */
static void test_freeze(void)
{
	struct dc_reps_buf b = buf(8);
	__u32 src, ev[5], i;

	dc_reps_recycle(&b, 1);
	dc_reps_recycle(&b, 3);
	for (i = 0; i < 5; i++)
		ev[i] = dc_reps_choose(&b, 2, 4, true, &src);
	CHECK("reps freeze: cycles 1, 3, 1, 3, 1 without removing",
	      ev[0] == 1 && ev[1] == 3 && ev[2] == 1 && ev[3] == 3 && ev[4] == 1 && b.count == 2 &&
		      src == DC_REPS_REUSED,
	      "%u %u %u %u %u count %u", ev[0], ev[1], ev[2], ev[3], ev[4], b.count);
	ev[0] = dc_reps_choose(&b, 2, 4, false, &src);
	CHECK("reps freeze: thawed, the oldest is taken again", ev[0] == 1 &&
	      src == DC_REPS_RECYCLED && b.count == 1, "ev %u count %u", ev[0], b.count);
	b = buf(8);
	ev[0] = dc_reps_choose(&b, 2, 4, true, &src);
	CHECK_EQ("reps freeze: with nothing held it still explores", src, DC_REPS_EXPLORED);
	CHECK("reps freeze: frozen strictly before the deadline",
	      dc_reps_frozen(100, 99) && !dc_reps_frozen(100, 100) && !dc_reps_frozen(0, 5), "");
}

int main(void)
{
	test_explore();
	test_recycle_fifo();
	test_bound();
	test_acks();
	test_ring_wrap_bound();
	test_freeze();
	return check_failed;
}
