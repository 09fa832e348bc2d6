// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * include/dcbpf/vlqd.h on the host: the data plane's time-driven virtual
 * LQD makes the same threshold updates as the shared core dc_cred_arrival
 * when no time passes, drains by rate × time (and only by whole bytes) or
 * by the port's real departures under the departures and hybrid rules,
 * recounts a drifted Γ, and folds the EWMA features as documented.
 */
#include <string.h>
#include "check.h"
#include "dcbpf/vlqd.h"
#include "rfgen.h"

int main(void)
{
	struct dc_sw_cred c;
	__u64 T[DC_SW_PORTS_MAX], gamma = 0, now = 1000000;
	uint64_t seed = 7;
	unsigned int k, diff = 0, vdrops = 0, i;

	/* 1. frozen time: 20 000 random arrivals, byte sizes, 6 ports, B = 100 000 */
	memset(&c, 0, sizeof(c));
	memset(T, 0, sizeof(T));
	for (k = 0; k < 20000; k++) {
		__u32 port = rfgen_below(&seed, 6), len = 64 + rfgen_below(&seed, 1451);
		__u64 before = T[port];

		dc_vlqd_arrival(&c, port, 1000, 100000, len, now, DC_DRAIN_TIME, NULL);
		dc_cred_arrival(T, &gamma, DC_SW_PORTS_MAX, port, 100000, len);
		if (T[port] == before)
			vdrops++;
		for (i = 0; i < DC_SW_PORTS_MAX; i++)
			diff += c.T_bytes[i] != T[i];
		diff += c.gamma_bytes != gamma;
	}
	CHECK("vlqd: with no time passing, 20 000 arrivals update T and Γ exactly as dc_cred_arrival",
	      diff == 0, "%u differences", diff);
	CHECK("vlqd: the sequence exercised the virtual buffer's limit (virtual drops occurred)",
	      vdrops > 100 && gamma <= 100000, "%u virtual drops, Γ %llu", vdrops,
	      (unsigned long long)gamma);

	/* 2. drain: 1 Gbit/s = 125 bytes/µs */
	memset(&c, 0, sizeof(c));
	dc_vlqd_arrival(&c, 2, 1000, 100000, 50000, now, DC_DRAIN_TIME, NULL);
	dc_vlqd_arrival(&c, 2, 1000, 100000, 1000, now + 100000, DC_DRAIN_TIME, NULL);	/* 100 µs later */
	CHECK_EQ("vlqd: 100 µs at 1 Gbit/s drains 12 500 bytes before the next arrival joins",
		 c.T_bytes[2], 50000 - 12500 + 1000);
	dc_vlqd_arrival(&c, 2, 1000, 100000, 0, now + 100007, DC_DRAIN_TIME, NULL);	/* 7 ns: 0.875 byte */
	CHECK("vlqd: a gap shorter than one byte drains nothing and keeps the drain clock",
	      c.T_bytes[2] == 38500 && c.drain_ns[2] == now + 100000, "T %llu clock %llu",
	      (unsigned long long)c.T_bytes[2], (unsigned long long)c.drain_ns[2]);
	dc_vlqd_arrival(&c, 2, 1000, 100000, 0, now + 100016, DC_DRAIN_TIME, NULL);	/* 16 ns since the clock: 2 bytes */
	CHECK_EQ("vlqd: the next gap counts from the kept clock (2 bytes in 16 ns)", c.T_bytes[2], 38498);
	dc_vlqd_arrival(&c, 2, 1000, 100000, 0, now + 10000000, DC_DRAIN_TIME, NULL);
	CHECK("vlqd: a long idle period empties the queue, never below 0",
	      c.T_bytes[2] == 0 && c.gamma_bytes == 0, "T %llu Γ %llu",
	      (unsigned long long)c.T_bytes[2], (unsigned long long)c.gamma_bytes);

	/* 3. Γ drifted high (lost concurrent updates): recounted when it looks full */
	memset(&c, 0, sizeof(c));
	c.T_bytes[0] = 30000;
	c.T_bytes[1] = 10000;
	c.gamma_bytes = 99900;
	c.drain_ns[0] = c.drain_ns[1] = now;
	dc_vlqd_arrival(&c, 1, 1000, 100000, 1000, now, DC_DRAIN_TIME, NULL);
	CHECK("vlqd: a drifted Γ is recounted (41 000) instead of a virtual drop",
	      c.gamma_bytes == 41000 && c.T_bytes[1] == 11000, "Γ %llu T1 %llu",
	      (unsigned long long)c.gamma_bytes, (unsigned long long)c.T_bytes[1]);

	/* 3b. drain rules with port records: the port sent 3 000 bytes in
	 * 100 µs (time × rate would say 12 500) */
	{
		struct dc_vlqd_obs o[DC_SW_PORTS_MAX];

		memset(o, 0, sizeof(o));
		o[2].tx_bytes = 900000;
		o[2].q_bytes = 20000;
		memset(&c, 0, sizeof(c));
		dc_vlqd_arrival(&c, 2, 1000, 100000, 50000, now, DC_DRAIN_HYBRID, o);
		o[2].tx_bytes += 3000;
		dc_vlqd_arrival(&c, 2, 1000, 100000, 1000, now + 100000, DC_DRAIN_HYBRID, o);
		CHECK_EQ("hybrid: backlogged, T_i drains by the real departures (50 000 − 3 000 + 1 000)",
			 c.T_bytes[2], 48000);
		dc_vlqd_arrival(&c, 2, 1000, 100000, 0, now + 200000, DC_DRAIN_HYBRID, o);
		CHECK("hybrid: backlogged with no departures: T_i kept, both clocks moved",
		      c.T_bytes[2] == 48000 && c.drain_ns[2] == now + 200000 && c.drain_tx[2] == 903000,
		      "T %llu clock %llu tx %llu", (unsigned long long)c.T_bytes[2],
		      (unsigned long long)c.drain_ns[2], (unsigned long long)c.drain_tx[2]);
		o[2].q_bytes = 0;
		dc_vlqd_arrival(&c, 2, 1000, 100000, 0, now + 300000, DC_DRAIN_HYBRID, o);
		CHECK_EQ("hybrid: idle, T_i drains by time × rate from the moved clock (12 500 in 100 µs)",
			 c.T_bytes[2], 48000 - 12500);
		o[2].tx_bytes += 20000;	/* a shaper's burst: more than the rate in 100 µs */
		dc_vlqd_arrival(&c, 2, 1000, 100000, 0, now + 400000, DC_DRAIN_HYBRID, o);
		CHECK_EQ("hybrid: idle, at least what really left (20 000 > 12 500)", c.T_bytes[2],
			 48000 - 12500 - 20000);
		o[2].tx_bytes = 100;	/* qdisc replaced: counters restart */
		o[2].q_bytes = 5000;
		dc_vlqd_arrival(&c, 2, 1000, 100000, 0, now + 500000, DC_DRAIN_HYBRID, o);
		CHECK("hybrid: a departure counter that went back counts as none, and is followed",
		      c.T_bytes[2] == 15500 && c.drain_tx[2] == 100, "T %llu tx %llu",
		      (unsigned long long)c.T_bytes[2], (unsigned long long)c.drain_tx[2]);

		/* the same backlogged 100 µs under time: 12 500 drained regardless */
		memset(&c, 0, sizeof(c));
		o[2].tx_bytes = 900000;
		o[2].q_bytes = 20000;
		dc_vlqd_arrival(&c, 2, 1000, 100000, 50000, now, DC_DRAIN_TIME, o);
		o[2].tx_bytes += 3000;
		dc_vlqd_arrival(&c, 2, 1000, 100000, 1000, now + 100000, DC_DRAIN_TIME, o);
		CHECK_EQ("time: the port records are ignored (50 000 − 12 500 + 1 000)", c.T_bytes[2],
			 38500);

		/* departures: by what left while backlogged, emptied with the real queue */
		memset(&c, 0, sizeof(c));
		o[2].tx_bytes = 900000;
		dc_vlqd_arrival(&c, 2, 1000, 100000, 50000, now, DC_DRAIN_DEPART, o);
		o[2].tx_bytes += 3000;
		dc_vlqd_arrival(&c, 2, 1000, 100000, 0, now + 100000, DC_DRAIN_DEPART, o);
		CHECK_EQ("departures: backlogged, T_i drains by the departures", c.T_bytes[2], 47000);
		o[2].q_bytes = 0;
		dc_vlqd_arrival(&c, 2, 1000, 100000, 1000, now + 100001, DC_DRAIN_DEPART, o);
		CHECK("departures: the real queue empty → T_i emptied, then the arrival joins",
		      c.T_bytes[2] == 1000 && c.gamma_bytes == 1000, "T %llu Γ %llu",
		      (unsigned long long)c.T_bytes[2], (unsigned long long)c.gamma_bytes);

		/* the sync drains each port by its own record: port 0 sent 10 000,
		 * port 1 is idle (time: 12 500), port 3 stalled (kept) */
		memset(&c, 0, sizeof(c));
		memset(o, 0, sizeof(o));
		for (i = 0; i < 4; i++) {
			c.T_bytes[i] = 20000;
			c.drain_ns[i] = now;
			c.rate_mbps[i] = 1000;
			c.drain_tx[i] = o[i].tx_bytes = 1000000;
			o[i].q_bytes = 20000;
		}
		o[0].tx_bytes += 10000;
		o[1].q_bytes = 0;
		c.T_bytes[2] = 0;
		dc_vlqd_sync(&c, now + 100000, DC_DRAIN_HYBRID, o);
		CHECK("hybrid sync: each port by its own record (T 10 000, 7 500, 0, 20 000; Γ 37 500)",
		      c.T_bytes[0] == 10000 && c.T_bytes[1] == 7500 && c.T_bytes[2] == 0 &&
		      c.T_bytes[3] == 20000 && c.gamma_bytes == 37500, "%llu %llu %llu %llu Γ %llu",
		      (unsigned long long)c.T_bytes[0], (unsigned long long)c.T_bytes[1],
		      (unsigned long long)c.T_bytes[2], (unsigned long long)c.T_bytes[3],
		      (unsigned long long)c.gamma_bytes);
	}

	/* 4. features: first sample replaces, then time-weighted towards x */
	{
		__u32 x[DC_RF_FEATURES];

		memset(&c, 0, sizeof(c));
		dc_cred_features(&c, 3, 8000, 20000, 50000, now, x);
		CHECK("features: the first sample of a queue replaces its averages",
		      x[DC_RF_F_QLEN] == 8000 && x[DC_RF_F_OCC] == 20000 &&
		      x[DC_RF_F_QLEN_EWMA] == 8000 && x[DC_RF_F_OCC_EWMA] == 20000, "%u %u %u %u",
		      x[0], x[1], x[2], x[3]);
		dc_cred_features(&c, 3, 0, 0, 50000, now + 12500, x);
		CHECK("features: a quarter period later the EWMAs moved a quarter of the way (6 000, 15 000)",
		      x[DC_RF_F_QLEN_EWMA] == 6000 && x[DC_RF_F_OCC_EWMA] == 15000, "%u %u", x[2], x[3]);
		dc_cred_features(&c, 3, 100000, 100000, 50000, now, x);
		CHECK("features: a clock reading behind the last update folds in with weight 0",
		      x[DC_RF_F_QLEN_EWMA] == 6000 && x[DC_RF_F_OCC_EWMA] == 15000, "%u %u", x[2], x[3]);
	}

	/* 5. the safeguard's bounds agree with the scan they replace */
	{
		unsigned int bad = 0;

		for (k = 0; k < 20000; k++) {
			__u64 q[4], Q = 0, longest = 0, B = 100000, b;
			__u32 n = 4, me = rfgen_below(&seed, 4);

			for (i = 0; i < 4; i++) {
				q[i] = rfgen_below(&seed, 40000);
				Q += q[i];
				longest = q[i] > longest ? q[i] : longest;
			}
			b = dc_cred_longest_bound(q[me], Q, n, B);
			if (b != DC_U64_MAX && dc_cred_safeguard(b, n, B) != dc_cred_safeguard(longest, n, B))
				bad++;
		}
		CHECK("safeguard bound: where it decides, it decides as max_j q_j would (20 000 states)",
		      bad == 0, "%u disagree", bad);
	}
	return check_failed;
}
