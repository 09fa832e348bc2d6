/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the PowerTCP law tests share: the default configuration, fixed-point and error helpers. */
#ifndef DCBPF_TESTS_PTCPFIX_H
#define DCBPF_TESTS_PTCPFIX_H

#include <math.h>
#include <string.h>

#include "check.h"
#include "dcbpf/powertcp.h"

#define Q(x) ((__u32)((x) * (double)DC_Q16_ONE + 0.5))

static inline struct dc_cc_cfg cfg_default(void)
{
	struct dc_cc_cfg c = {
		.gamma_q16 = DC_DEFAULT_GAMMA_Q16,
		.base_rtt_us = 50,
		.host_bw_mbps = 1000,
		.expected_flows = 10,
		.int_stale_us = DC_DEFAULT_INT_STALE_US,
		.min_cwnd_pkts = 2,
		.pacing = 1,
	};
	return c;
}

static inline double rel_err(double a, double b)
{
	return fabs(a - b) / (b != 0 ? fabs(b) : 1);
}

#endif
