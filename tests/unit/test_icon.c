// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * ICON's core (include/dcbpf/icon.h): Eq. 3.1 and the pause of the
 * thesis' worked example (10 MSS, RTT 120 us, n = 1 -> 125 MB/s, 12 us
 * spacing, 10.8 us pause at 10 Gbit/s) and its n = 26 case; IA-ICON's
 * n = 1; the option written and read back; malformed options (every byte
 * wrong in turn, short buffers, n = 0) refused with their reason.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/icon.h"

/* RTT 120 us as the kernel keeps it: srtt_us << 3. */
#define SRTT8_120US (120 * 8)

static void rate(void)
{
	__u64 r1 = dc_icon_rate_Bps(10 * 1500, SRTT8_120US, 1);
	__u64 r26 = dc_icon_rate_Bps(10 * 1500, SRTT8_120US, 26);

	CHECK_EQ("Eq. 3.1: 15000 B / 120 us, n 1 = 125,000,000 B/s", r1, 125000000);
	CHECK_EQ("spacing 1500 B at 125 MB/s = 12 us", dc_icon_spacing_ns(1500, r1), 12000);
	CHECK_EQ("pause at 10 Gbit/s = 12 - 1.2 = 10.8 us", dc_icon_pause_ns(1500, r1, 10000), 10800);
	CHECK_EQ("n 26: 15000 B / (120 us * 26) = 4,807,692 B/s", r26, 4807692);
	CHECK_EQ("n 26: spacing 312 us", dc_icon_spacing_ns(1500, r26), 312000);
	CHECK_EQ("n 26: pause 310.8 us", dc_icon_pause_ns(1500, r26, 10000), 310800);
	CHECK_RANGE("n 26: the 26 senders together send one window per RTT", 26 * r26, r1 - 26, r1);
	CHECK_EQ("IA-ICON: n 0 (no option) paces as n 1", dc_icon_rate_Bps(15000, SRTT8_120US, 0), r1);
	CHECK_EQ("IA-ICON: dc_icon_n_eff(0) = 1", dc_icon_n_eff(0), 1);
	CHECK_EQ("dc_icon_n_eff(26) = 26", dc_icon_n_eff(26), 26);
	CHECK_EQ("no RTT sample yet: no cap (0)", dc_icon_rate_Bps(15000, 0, 1), 0);
	CHECK_EQ("pause 0 when the rate is the link's", dc_icon_pause_ns(1500, 1250000000, 10000), 0);
	/* a large window and a small RTT: no overflow */
	CHECK_EQ("64 MB window over 8 us, n 65535", dc_icon_rate_Bps(64ULL << 20, 64, 65535),
		 (64ULL << 20) * 1000000ULL / (8ULL * 65535));
}

static void option(void)
{
	__u8 b[DC_ICON_OPT_LEN + 4], flags = 0xaa;
	int i, rc;

	dc_icon_opt_write(b, 26, 0);
	CHECK("written bytes: 254 8 dc 1c 01 00 00 1a",
	      b[0] == 254 && b[1] == 8 && b[2] == 0xdc && b[3] == 0x1c && b[4] == 1 && b[5] == 0 &&
	      b[6] == 0 && b[7] == 26, "%02x %02x %02x %02x %02x %02x %02x %02x", b[0], b[1], b[2], b[3],
	      b[4], b[5], b[6], b[7]);
	CHECK_EQ("round trip: n 26", dc_icon_opt_parse(b, DC_ICON_OPT_LEN, &flags), 26);
	CHECK_EQ("round trip: flags 0", flags, 0);
	dc_icon_opt_write(b, 65535, DC_ICON_F_UPDATE);
	CHECK_EQ("round trip: n 65535", dc_icon_opt_parse(b, DC_ICON_OPT_LEN, &flags), 65535);
	CHECK_EQ("round trip: update flag", flags, DC_ICON_F_UPDATE);
	dc_icon_opt_write(b, 300, 0);
	CHECK_EQ("n 300 (both bytes)", dc_icon_opt_parse(b, DC_ICON_OPT_LEN, &flags), 300);

	/* malformed: each field wrong in turn; flags untouched */
	for (i = 0; i < DC_ICON_OPT_LEN; i++) {
		static const int want[DC_ICON_OPT_LEN] = { -DC_ICON_BAD_KIND, -DC_ICON_BAD_LEN,
			-DC_ICON_BAD_EXID, -DC_ICON_BAD_EXID, -DC_ICON_BAD_VERSION, 0, 0, 0 };
		char name[64];

		if (!want[i])
			continue;
		dc_icon_opt_write(b, 26, 0);
		b[i] ^= 0x40;
		flags = 0xaa;
		rc = dc_icon_opt_parse(b, DC_ICON_OPT_LEN, &flags);
		snprintf(name, sizeof(name), "malformed: byte %d changed -> reason %d", i, -want[i]);
		CHECK(name, rc == want[i] && flags == 0xaa, "rc %d flags %#x", rc, flags);
	}
	dc_icon_opt_write(b, 0, 0);
	flags = 0xaa;
	rc = dc_icon_opt_parse(b, DC_ICON_OPT_LEN, &flags);
	CHECK("malformed: n 0 refused", rc == -DC_ICON_BAD_N && flags == 0xaa, "rc %d", rc);
	dc_icon_opt_write(b, 26, 0);
	for (i = 0; i < DC_ICON_OPT_LEN; i++) {
		rc = dc_icon_opt_parse(b, i, &flags);
		if (rc != -DC_ICON_BAD_SHORT)
			break;
	}
	CHECK_EQ("malformed: every length below 8 refused as short", i, DC_ICON_OPT_LEN);
	/* a longer option of the same kind (another experiment's) is not ours */
	dc_icon_opt_write(b, 26, 0);
	b[1] = 12;
	CHECK_EQ("length byte 12 refused even with 12 bytes given", dc_icon_opt_parse(b, 12, &flags),
		 -DC_ICON_BAD_LEN);
	/* extra bytes after a good option (the buffer was larger) are fine */
	dc_icon_opt_write(b, 7, 0);
	CHECK_EQ("a good option in a longer buffer", dc_icon_opt_parse(b, 12, &flags), 7);
}

int main(void)
{
	rate();
	option();
	return check_failed;
}
