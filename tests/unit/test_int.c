// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Host unit tests of the INT wire-format codec (include/dcbpf/int.h):
 * field packing and ranges, rate codes, unwrapping across the wire
 * fields' wrap, option validation.
 */
#include <string.h>

#include "check.h"
#include "dcbpf/int.h"

static void test_rate_codes(void)
{
	__u32 c, ok = 1;

	for (c = 1; c < DC_INT_RATE_CODES; c++) {
		__u32 r = dc_int_rate_mbps(c);

		if (dc_int_rate_code(r) != c || dc_int_rate_code(r + 1) != c ||
		    (c > 1 && dc_int_rate_code(r - 1) != c - 1))
			ok = 0;
	}
	CHECK("int codec: every table rate maps to its code, between rates to the lower", ok,
	      "mismatch");
	CHECK_EQ("int codec: below the table is unknown", dc_int_rate_code(99), 0);
	CHECK_EQ("int codec: unknown code decodes to 0", dc_int_rate_mbps(0), 0);
	CHECK_EQ("int codec: 1 Gbit/s is code 4", dc_int_rate_code(1000), 4);
	CHECK_EQ("int codec: 1.5 Gbit/s reports 1 Gbit/s", dc_int_rate_code(1500), 4);
}

static void test_pack(void)
{
	struct dc_int_hop_in h = { .rate_mbps = 10000, .qlen_bytes = 123456,
				   .ts_ns = 987654321, .tx_bytes = 123456789 };
	__u64 w = dc_int_hop_encode(&h);
	struct dc_int_hop d;
	__u8 be[8];

	CHECK_EQ("int codec: rate field", dc_int_rate_mbps(dc_int_w_rate(w)), 10000);
	CHECK_EQ("int codec: qlen in 32-byte units (floor)", dc_int_w_qlen(w), 123456 / 32);
	CHECK_EQ("int codec: ts in 256 ns units, modulo 2^20",
		 dc_int_w_ts(w), (987654321 / 256) & ((1 << 20) - 1));
	CHECK_EQ("int codec: tx in 64-byte units, modulo 2^22",
		 dc_int_w_tx(w), (123456789 / 64) & ((1 << 22) - 1));
	dc_int_store_be64(be, w);
	CHECK("int codec: big-endian on the wire", be[0] == (__u8)(w >> 56) && be[7] == (__u8)w,
	      "byte order");
	CHECK_EQ("int codec: load inverts store", dc_int_load_be64(be), w);
	h.qlen_bytes = 100ULL << 20; /* 100 MiB: beyond 18 bits × 32 B */
	CHECK_EQ("int codec: qlen saturates at 8 MiB - 32",
		 dc_int_w_qlen(dc_int_hop_encode(&h)) * DC_INT_QLEN_UNIT_BYTES,
		 (DC_INT_QLEN_MAX) * DC_INT_QLEN_UNIT_BYTES);
	h.qlen_bytes = 0;
	h.rate_mbps = 0;
	dc_int_hop_decode(dc_int_hop_encode(&h), NULL, &d);
	CHECK("int codec: first decode is never ts 0 (0 = no sample)", d.ts_ns != 0, "ts 0");
	CHECK_EQ("int codec: unknown rate decodes to 0", d.rate_mbps, 0);
}

/* Consecutive samples across the wire fields' wrap decode to exact deltas. */
static void test_unwrap(void)
{
	struct dc_int_hop_in h = { .rate_mbps = 1000, .ts_ns = DC_INT_TS_WRAP_NS - 2560,
				   .tx_bytes = DC_INT_TX_WRAP_BYTES - 640 };
	struct dc_int_hop a, b, c;

	dc_int_hop_decode(dc_int_hop_encode(&h), NULL, &a);
	h.ts_ns += 25600; /* crosses the 268 ms wrap */
	h.tx_bytes += 6400; /* crosses the 256 MiB wrap */
	dc_int_hop_decode(dc_int_hop_encode(&h), &a, &b);
	CHECK_EQ("int codec: ts delta across the wrap", b.ts_ns - a.ts_ns, 25600);
	CHECK_EQ("int codec: tx delta across the wrap", b.tx_bytes - a.tx_bytes, 6400);
	h.ts_ns += 100000000; /* 100 ms later: still less than one wrap */
	h.tx_bytes += 12800000; /* a multiple of the 64-byte unit */
	dc_int_hop_decode(dc_int_hop_encode(&h), &b, &c);
	CHECK_EQ("int codec: 100 ms step decoded exactly", c.ts_ns - b.ts_ns, 100000000);
	CHECK_EQ("int codec: 12.8 MB step decoded exactly", c.tx_bytes - b.tx_bytes, 12800000);
}

static void test_check(void)
{
	__u8 o[40] = { DC_INT_OPT_TYPE, 36, 0, 0 };

	o[2] = dc_int_b2(0);
	o[3] = dc_int_b3(2, 5);
	CHECK_EQ("int codec: valid option", dc_int_check(o, 36), DC_INT_OK);
	CHECK_EQ("int codec: hops and path", dc_int_hops(o[3]) * 16 + dc_int_path(o[3]), 2 * 16 + 5);
	CHECK_EQ("int codec: slots of 36 bytes", dc_int_slots(36), 4);
	CHECK_EQ("int codec: slots of 12 bytes", dc_int_slots(12), 1);
	CHECK_EQ("int codec: 13 bytes is no INT length", dc_int_slots(13), 0);
	CHECK_EQ("int codec: 44 bytes does not fit", dc_int_slots(44), 0);
	CHECK_EQ("int codec: option longer than the header", dc_int_check(o, 20), DC_INT_BAD_LEN);
	o[1] = 14;
	CHECK_EQ("int codec: length not 4+8k", dc_int_check(o, 36), DC_INT_BAD_LEN);
	o[1] = 20;
	o[3] = dc_int_b3(3, 0);
	CHECK_EQ("int codec: pointer beyond the slots", dc_int_check(o, 20), DC_INT_BAD_HOPS);
	o[3] = dc_int_b3(2, 0);
	o[2] = (__u8)(2 << 5);
	CHECK_EQ("int codec: unknown version", dc_int_check(o, 20), DC_INT_BAD_VERSION);
	o[0] = 0x07; /* record route */
	CHECK_EQ("int codec: other options are not ours", dc_int_check(o, 20), DC_INT_NONE);
	CHECK_EQ("int codec: no options", dc_int_check(o, 0), DC_INT_NONE);
	/* The tag-only form (Ethereal): length 4, no slots, P only. */
	{
		__u8 t[4] = { DC_INT_OPT_TYPE, 4, dc_int_b2(0), dc_int_b3(0, 3) };

		CHECK_EQ("int codec: tag-only option", dc_int_check(t, 4), DC_INT_TAG);
		CHECK_EQ("int codec: tag-only option followed by others", dc_int_check(t, 8), DC_INT_TAG);
		CHECK_EQ("int codec: tag cut short is a bad length", dc_int_check(t, 3), DC_INT_BAD_LEN);
		CHECK_EQ("int codec: a tag has no slots", dc_int_slots(4), 0);
		t[3] = dc_int_b3(1, 3);
		CHECK_EQ("int codec: tag with a hop pointer", dc_int_check(t, 4), DC_INT_BAD_HOPS);
		t[3] = dc_int_b3(0, 3);
		t[2] = dc_int_b2(DC_INT_FLAG_ECHO);
		CHECK_EQ("int codec: tag with the echo flag", dc_int_check(t, 4), DC_INT_BAD_HOPS);
		t[2] = (__u8)(3 << 5);
		CHECK_EQ("int codec: tag of another version", dc_int_check(t, 4), DC_INT_BAD_VERSION);
		t[1] = 8;
		t[2] = dc_int_b2(0);
		CHECK_EQ("int codec: length 8 is neither tag nor INT", dc_int_check(t, 8), DC_INT_BAD_LEN);
	}
	CHECK_EQ("int codec: option length clamps to 4 slots", dc_int_opt_len(9), 36);
	CHECK_EQ("int codec: option length at least 1 slot", dc_int_opt_len(0), 12);
	CHECK("int codec: echo, overflow and sampled flags kept, reserved bits dropped, version set",
	      dc_int_b2(DC_INT_FLAG_ECHO | DC_INT_FLAG_OVERFLOW | DC_INT_FLAG_SAMPLED | 0x03) ==
		      ((DC_INT_VERSION << 5) | DC_INT_FLAG_ECHO | DC_INT_FLAG_OVERFLOW | DC_INT_FLAG_SAMPLED),
	      "b2");
}

static void test_ip_csum(void)
{
	/* A textbook header (RFC 1071 style example): checksum 0xb861. */
	__u8 h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		       0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };

	CHECK_EQ("int codec: IPv4 header checksum", dc_ip_csum(h, 20), 0xb861);
	h[10] = 0xb8;
	h[11] = 0x61;
	CHECK_EQ("int codec: a valid header sums to zero", dc_ip_csum(h, 20), 0);
}

/* dc_int_sample_due: the sampling rule on worked inputs. */
static void test_sample_due(void)
{
	struct dc_int_dst_cfg off = { .slots = 4 };
	struct dc_int_dst_cfg on = { .slots = 4, .sample_us = 100 };
	struct dc_int_dst_cfg adapt = { .slots = 4, .sample_us = 100, .sample_qlen_bytes = 5000 };
	__u64 t = 1000000000ULL;

	CHECK("sample: off tags every segment", dc_int_sample_due(&off, t, t, 0), "not due");
	CHECK("sample: a flow never tagged is due", dc_int_sample_due(&on, t, 0, 0), "not due");
	CHECK("sample: 99 µs after the last: not due", !dc_int_sample_due(&on, t + 99000, t, 0), "due");
	CHECK("sample: 100 µs after the last: due", dc_int_sample_due(&on, t + 100000, t, 0), "not due");
	CHECK("sample: a queue without sample_qlen_bytes changes nothing",
	      !dc_int_sample_due(&on, t + 1000, t, 1U << 20), "due");
	CHECK("sample: queue 5001 > 5000: due at once", dc_int_sample_due(&adapt, t + 1000, t, 5001), "not due");
	CHECK("sample: queue 5000, not above: not due", !dc_int_sample_due(&adapt, t + 1000, t, 5000), "due");
	/* the interval in 64 bits: 1 s = 10^9 ns does not overflow 32 bits' worth */
	on.sample_us = 1000000;
	CHECK("sample: 1 s interval, 0.999 s later: not due", !dc_int_sample_due(&on, t + 999000000ULL, t, 0), "due");
	CHECK("sample: 1 s interval, 1 s later: due", dc_int_sample_due(&on, t + 1000000000ULL, t, 0), "not due");
}

/* dc_int_giveup: a flow proves its path with one probe, then tags every
 * segment; one that gets no echo back stops getting the option for
 * doubling periods and probes with one segment; an echo resets it. */
static void test_giveup(void)
{
	struct dc_int_samp s = {};
	__u64 t = 1000000000ULL, ms = 1000000ULL, now;
	int i;

	CHECK("giveup: 0 ms never gives up", dc_int_giveup(&s, 0, t + 1000 * ms, 0) == DC_INT_GU_TAG, "gave up");
	CHECK_EQ("giveup: 0 ms leaves the state alone", s.unechoed_ns + s.off_until_ns, 0);
	CHECK("giveup: a new flow's first segment is a probe", dc_int_giveup(&s, 20, t, 0) == DC_INT_GU_TAG,
	      "not tagged");
	CHECK("giveup: the next waits for its echo", dc_int_giveup(&s, 20, t + 1 * ms, 0) == DC_INT_GU_OFF,
	      "not off");
	/* the echo of the probe arrives 0.5 ms later: every segment from now on */
	CHECK("giveup: the probe's echo proves the path", dc_int_giveup(&s, 20, t + 2 * ms, t + ms / 2) == DC_INT_GU_TAG,
	      "not tagged");
	CHECK_EQ("giveup: proven", s.proven, 1);
	CHECK_EQ("giveup: the first unechoed segment is kept", s.unechoed_ns, t + 2 * ms);
	CHECK("giveup: a proven flow tags while it waits", dc_int_giveup(&s, 20, t + 10 * ms, 0) == DC_INT_GU_TAG,
	      "not tagged");
	CHECK_EQ("giveup: still the first unechoed", s.unechoed_ns, t + 2 * ms);
	CHECK("giveup: an echo older than the first unechoed segment does not count",
	      dc_int_giveup(&s, 20, t + 22 * ms - 1, t + ms) == DC_INT_GU_TAG, "not tagged");
	CHECK("giveup: 20 ms without an echo: gives up", dc_int_giveup(&s, 20, t + 22 * ms, t + ms) == DC_INT_GU_GAVE_UP,
	      "did not give up");
	CHECK_EQ("giveup: first off period is giveup_ms", s.off_until_ns, t + 42 * ms);
	CHECK_EQ("giveup: no longer proven", s.proven, 0);
	CHECK("giveup: off within the period", dc_int_giveup(&s, 20, t + 41 * ms, t + ms) == DC_INT_GU_OFF, "not off");
	CHECK("giveup: one probe after it", dc_int_giveup(&s, 20, t + 42 * ms, t + ms) == DC_INT_GU_TAG, "not tagged");
	CHECK("giveup: then off until its echo", dc_int_giveup(&s, 20, t + 43 * ms, t + ms) == DC_INT_GU_OFF, "not off");
	CHECK("giveup: a lost probe gives up again", dc_int_giveup(&s, 20, t + 62 * ms, t + ms) == DC_INT_GU_GAVE_UP,
	      "did not give up");
	CHECK_EQ("giveup: second off period doubles", s.off_until_ns, t + 102 * ms);
	/* the period stops doubling at 64 × giveup_ms */
	for (i = 0; i < 10; i++) {
		now = s.off_until_ns;
		dc_int_giveup(&s, 20, now, 0);
		dc_int_giveup(&s, 20, now + 20 * ms, 0);
	}
	CHECK_EQ("giveup: off period capped at 64 x giveup_ms", s.off_until_ns - (now + 20 * ms), 64 * 20 * ms);
	/* a probe's echo after give-ups resets everything */
	now = s.off_until_ns;
	dc_int_giveup(&s, 20, now, 0);
	CHECK("giveup: an echoed probe ends the give-up", dc_int_giveup(&s, 20, now + ms, now + ms / 2) == DC_INT_GU_TAG,
	      "not tagged");
	CHECK_EQ("giveup: the echo resets the count", s.offs, 0);
	CHECK_EQ("giveup: and the off period", s.off_until_ns, 0);
}

int main(void)
{
	test_giveup();
	test_sample_due();
	test_rate_codes();
	test_pack();
	test_unwrap();
	test_check();
	test_ip_csum();
	return check_failed;
}
