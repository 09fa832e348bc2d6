// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * ResQueue's core (include/dcbpf/resqueue.h): the MLFQ level as bytes
 * accumulate against the thresholds (defaults and a custom set); §3.3's
 * two cases -- a one-packet flow whose packet is retransmitted goes from
 * level 2 to level 1, a long flow at level 4 retransmits its window at
 * level 3 while new packets stay at 4 -- through the per-flow accounting
 * the tagger runs; PIAS (promotion off) starts at 1 and never promotes;
 * RTO mode promotes only what was sent before the timeout; sequence
 * wrap-around; the DSCP encoding (level 1 the highest class selector);
 * bad configurations refused.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/resqueue.h"

#define MSS 1448

static void levels(void)
{
	struct dc_resq_cfg c;

	dc_resq_cfg_default(&c);
	CHECK_EQ("defaults valid", dc_resq_cfg_check(&c), 0);
	CHECK_EQ("0 B sent: level 2 (level 1 reserved)", dc_resq_mlfq_level(&c, 0), 2);
	CHECK_EQ("32 KB - 1: level 2", dc_resq_mlfq_level(&c, 32 * 1024 - 1), 2);
	CHECK_EQ("32 KB: level 3", dc_resq_mlfq_level(&c, 32 * 1024), 3);
	CHECK_EQ("256 KB - 1: level 3", dc_resq_mlfq_level(&c, 256 * 1024 - 1), 3);
	CHECK_EQ("256 KB: level 4", dc_resq_mlfq_level(&c, 256 * 1024), 4);
	CHECK_EQ("10 GB: level 4 (the lowest)", dc_resq_mlfq_level(&c, 10ULL << 30), 4);
	CHECK_EQ("the 1-6 KB short flows all stay at 2", dc_resq_mlfq_level(&c, 6 * 1024), 2);

	c.promote = DC_RESQ_PROMOTE_OFF;
	CHECK_EQ("PIAS: 0 B sent: level 1", dc_resq_mlfq_level(&c, 0), 1);
	CHECK_EQ("PIAS: 256 KB: level 3", dc_resq_mlfq_level(&c, 256 * 1024), 3);
	CHECK_EQ("PIAS: a retransmission is not promoted", dc_resq_level(&c, 0, true, true), 1);
	CHECK_EQ("PIAS: nor at level 3", dc_resq_level(&c, 1 << 20, true, true), 3);

	dc_resq_cfg_default(&c);
	c.nthresh = 5;
	c.thresh_bytes[0] = 1000;
	c.thresh_bytes[1] = 2000;
	c.thresh_bytes[2] = 3000;
	c.thresh_bytes[3] = 4000;
	c.thresh_bytes[4] = 5000;
	CHECK_EQ("5 thresholds: levels 2..7 valid", dc_resq_cfg_check(&c), 0);
	CHECK_EQ("4999 B: level 6", dc_resq_mlfq_level(&c, 4999), 6);
	CHECK_EQ("5000 B: level 7", dc_resq_mlfq_level(&c, 5000), 7);
	c.nthresh = 6;
	c.thresh_bytes[5] = 6000;
	CHECK_EQ("6 thresholds from level 2: past CS7, refused", dc_resq_cfg_check(&c), -DC_RESQ_BAD_NTHRESH);
	c.promote = DC_RESQ_PROMOTE_OFF;
	CHECK_EQ("6 thresholds from level 1 (PIAS): fits", dc_resq_cfg_check(&c), 0);
	c.thresh_bytes[3] = 3000;
	CHECK_EQ("equal thresholds refused", dc_resq_cfg_check(&c), -DC_RESQ_BAD_ORDER);
	dc_resq_cfg_default(&c);
	c.thresh_bytes[0] = 0;
	CHECK_EQ("a 0 threshold refused", dc_resq_cfg_check(&c), -DC_RESQ_BAD_ORDER);
	dc_resq_cfg_default(&c);
	c.promote = DC_RESQ_PROMOTE_MAX;
	CHECK_EQ("unknown promotion mode refused", dc_resq_cfg_check(&c), -DC_RESQ_BAD_PROMOTE);
}

/* One segment through accounting and the level, as the tagger does. */
static __u32 send(const struct dc_resq_cfg *c, struct dc_resq_flow *f, __u32 seq, __u32 payload,
		  bool *retx)
{
	__u64 before;

	*retx = dc_resq_account(f, seq, payload, payload, &before);
	return dc_resq_level(c, before, *retx, dc_resq_after_rto(f, seq));
}

static void one_packet_flow(void)
{
	struct dc_resq_cfg c;
	struct dc_resq_flow f = {};
	__u64 before;
	bool retx;
	__u32 l;

	dc_resq_cfg_default(&c);
	CHECK_EQ("SYN: not a retransmission", dc_resq_account(&f, 999, 1, 0, &before), 0);
	CHECK_EQ("SYN: no payload counted", f.bytes_sent, 0);
	l = send(&c, &f, 1000, 1024, &retx);
	CHECK_EQ("§3.3 case 1: the 1 KB flow's packet: level 2", l, 2);
	CHECK_EQ("first transmission is not a retransmission", retx, 0);
	CHECK_EQ("1024 bytes sent", f.bytes_sent, 1024);
	l = send(&c, &f, 1000, 1024, &retx);
	CHECK_EQ("§3.3 case 1: its retransmission: level 1", l, 1);
	CHECK_EQ("detected as a retransmission", retx, 1);
	CHECK_EQ("a retransmission adds no bytes sent", f.bytes_sent, 1024);
	CHECK_EQ("pure ACK: not a retransmission", dc_resq_account(&f, 2024, 0, 0, &before), 0);
	CHECK_EQ("FIN (seq 2024, 1 sequence number): new", dc_resq_account(&f, 2024, 1, 0, &before), 0);
	CHECK_EQ("FIN retransmitted: a retransmission", dc_resq_account(&f, 2024, 1, 0, &before), 1);
}

static void long_flow_window(void)
{
	struct dc_resq_cfg c;
	struct dc_resq_flow f = {};
	__u32 seq = 0xfff00000u, i, l, hi = 0, lo = 8, wnd_start, promoted = 0;
	bool retx;

	dc_resq_cfg_default(&c);
	/* 300 KB of new data; sequence numbers wrap around on the way */
	for (i = 0; i < 300 * 1024 / MSS; i++, seq += MSS) {
		l = send(&c, &f, seq, MSS, &retx);
		hi = l > hi ? l : hi;
		lo = l < lo ? l : lo;
		if (retx)
			promoted++;
	}
	CHECK_EQ("300 KB of new data: no retransmission (across the sequence wrap)", promoted, 0);
	CHECK("levels went 2 .. 4 as bytes accumulated", lo == 2 && hi == 4, "lo %u hi %u", lo, hi);
	CHECK_EQ("bytes sent counted across the wrap", f.bytes_sent, (__u64)i * MSS);
	/* a window of 10 segments lost and retransmitted */
	wnd_start = seq - 10 * MSS;
	for (i = 0; i < 10; i++) {
		l = send(&c, &f, wnd_start + i * MSS, MSS, &retx);
		if (l == 3 && retx)
			promoted++;
	}
	CHECK_EQ("§3.3 case 2: the window at level 4 retransmitted at level 3 (10 of 10)", promoted, 10);
	l = send(&c, &f, seq, MSS, &retx);
	CHECK_EQ("§3.3 case 2: new packets stay at level 4", l, 4);
	/* a retransmission overlapping new data: both counted */
	l = send(&c, &f, seq + MSS / 2, MSS, &retx);
	CHECK("a segment overlapping the highest sequence: retransmission, new half counted",
	      retx && l == 3 && f.max_end_seq == seq + MSS / 2 + MSS, "retx %d l %u", retx, l);
}

static void rto_mode(void)
{
	struct dc_resq_cfg c;
	struct dc_resq_flow f = {};
	__u32 l;
	bool retx;

	dc_resq_cfg_default(&c);
	c.promote = DC_RESQ_PROMOTE_RTO;
	send(&c, &f, 100, MSS, &retx);
	send(&c, &f, 100 + MSS, MSS, &retx);
	l = send(&c, &f, 100, MSS, &retx);
	CHECK("RTO mode: a fast retransmission (no timeout) is not promoted", retx && l == 2,
	      "retx %d l %u", retx, l);
	f.rto_count = 1;		/* what sockops writes at the timeout */
	f.rto_high_seq = f.max_end_seq;
	l = send(&c, &f, 100 + MSS, MSS, &retx);
	CHECK("RTO mode: after the timeout its retransmission is promoted", retx && l == 1,
	      "retx %d l %u", retx, l);
	l = send(&c, &f, 100 + 2 * MSS, MSS, &retx);
	CHECK_EQ("RTO mode: new data after the timeout: level 2", l, 2);
}

static void tos(void)
{
	struct dc_resq_cfg c;
	__u32 lvl;
	int ok = 1;

	for (lvl = 1; lvl <= DC_RESQ_LEVEL_MAX; lvl++)
		ok &= dc_resq_tos_level(dc_resq_tos(0x03, lvl, 7), 7) == lvl &&
		      (dc_resq_tos(0x03, lvl, 7) & 3) == 3 && dc_resq_tos(0, lvl, 7) >> 5 == 8 - lvl;
	CHECK("cs_top 7: levels 1..7 round-trip as CS7..CS1, ECN kept", ok, "");
	CHECK_EQ("level 1 on TOS 0xb9 (EF, ECT(1)): CS7 = 0xe1", dc_resq_tos(0xb9, 1, 7), 0xe1);
	CHECK_EQ("level 2: CS6 (DSCP 48)", dc_resq_tos(0, 2, 7) >> 2, 48);
	CHECK_EQ("level 4: CS4 (DSCP 32)", dc_resq_tos(0, 4, 7) >> 2, 32);
	CHECK_EQ("cs_top 3 (4 switch queues): level 1 CS3", dc_resq_tos(0, 1, 3) >> 5, 3);
	CHECK_EQ("cs_top 3: level 4 CS0 (the lowest queue)", dc_resq_tos(0x02, 4, 3), 0x02);
	CHECK_EQ("untagged TOS: level 0", dc_resq_tos_level(0x02, 7), 0);
	CHECK_EQ("cs_top 3: CS5 is no level", dc_resq_tos_level(5 << 5, 3), 0);
	dc_resq_cfg_default(&c);
	CHECK_EQ("default cs_top 7", c.cs_top, 7);
	c.cs_top = 2;
	CHECK_EQ("cs_top 2 with levels 2..4: level 4 past CS0, refused", dc_resq_cfg_check(&c),
		 -DC_RESQ_BAD_CS);
	c.cs_top = 3;
	CHECK_EQ("cs_top 3 with levels 2..4: fits", dc_resq_cfg_check(&c), 0);
	c.cs_top = 0;
	CHECK_EQ("cs_top 0 refused", dc_resq_cfg_check(&c), -DC_RESQ_BAD_CS);
}

/* the switch's reserved level: its own buffer, the packet included */
static void reserved(void)
{
	__u32 r = DC_RESQ_RESERVED_BYTES_DEFAULT;

	CHECK_EQ("reserved: an empty level 1 takes a 1500 B packet", dc_resq_reserved_fits(0, 1500, r), 1);
	CHECK_EQ("reserved: a packet that fills the 20 kB exactly fits",
		 dc_resq_reserved_fits(r - 1500, 1500, r), 1);
	CHECK_EQ("reserved: one byte past it does not", dc_resq_reserved_fits(r - 1499, 1500, r), 0);
	CHECK_EQ("reserved: a queue above the buffer (a smaller reserved_bytes set live) refuses",
		 dc_resq_reserved_fits(30000, 64, 15000), 0);
}

/* A persistent connection's next message after an idle gap starts over
 * at the base level; retransmissions and busy flows never do. */
static void idle_restart(void)
{
	struct dc_resq_cfg c;
	struct dc_resq_flow f = {};
	__u64 t = 5000000000ULL, before;
	__u32 seq = 1, i, idle = 2000;
	bool retx;

	dc_resq_cfg_default(&c);
	/* a 300 KB message, one segment every 10 µs: level 4 at its end */
	for (i = 0; i < 300 * 1024 / MSS; i++, seq += MSS, t += 10000) {
		CHECK_EQ("busy flow: never restarts", dc_resq_idle_restart(&f, seq, MSS, t, idle), 0);
		send(&c, &f, seq, MSS, &retx);
	}
	CHECK_EQ("last send recorded", f.last_ns, t - 10000);
	CHECK_EQ("300 KB sent: level 4", dc_resq_level(&c, f.bytes_sent, false, false), 4);
	CHECK_EQ("pure ACK 1 s later: no restart, nothing recorded",
		 dc_resq_idle_restart(&f, seq, 0, t + 1000000000ULL, idle), 0);
	CHECK_EQ("... last send unchanged", f.last_ns, t - 10000);
	CHECK_EQ("a retransmission 5 ms later (a timeout): no restart",
		 dc_resq_idle_restart(&f, seq - MSS, MSS, t + 5000000, idle), 0);
	CHECK_EQ("... bytes sent kept", f.bytes_sent, (__u64)i * MSS);
	t += 5000000;
	CHECK_EQ("new data exactly idle_us after the last send: no restart",
		 dc_resq_idle_restart(&f, seq, MSS, t + idle * 1000ULL, idle), 0);
	t += idle * 1000ULL;
	CHECK_EQ("new data idle_us + 1 ns later: restart",
		 dc_resq_idle_restart(&f, seq, MSS, t + idle * 1000ULL + 1, idle), 1);
	CHECK("... bytes sent back to 0, counted", f.bytes_sent == 0 && f.idle_restarts == 1,
	      "bytes %llu restarts %u", (unsigned long long)f.bytes_sent, f.idle_restarts);
	CHECK_EQ("... the next message's first packet at level 2", send(&c, &f, seq, MSS, &retx), 2);
	CHECK_EQ("... and the old message's segments are still retransmissions",
		 send(&c, &f, seq - 5 * MSS, MSS, &retx), 1);
	f.last_ns = 1;
	CHECK_EQ("idle_us 0: never", dc_resq_idle_restart(&f, seq + MSS, MSS, t + 60000000000ULL, 0), 0);
	{
		struct dc_resq_flow g = {};

		CHECK_EQ("a flow's first segment: not a restart",
			 dc_resq_idle_restart(&g, 1, MSS, t, idle), 0);
	}
	(void)before;
}

int main(void)
{
	idle_restart();
	reserved();
	levels();
	one_packet_flow();
	long_flow_window();
	rto_mode();
	tos();
	return check_failed;
}
