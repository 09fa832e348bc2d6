// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The PFC simulator (loader/sim/simpfc.c) on random settings of both
 * algorithms, each with the smallest headroom it accepts (exactly the
 * bytes in flight after a pause, 2 x delay x slot bytes): no lossless
 * packet is lost, every pause is resumed, headroom use stays within the
 * bytes in flight, every packet is sent or dropped, and the cores count
 * nothing once the switch is empty.  With less headroom than that (set
 * behind the check's back) lossless packets are lost: the bound is tight.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "rand.h"
#include "sim/simpfc.h"

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))
#define Q32(x) ((__u64)((x) * 4294967296.0 + 0.5))

static void random_cfg(struct dc_simpfc_cfg *c, __u64 *s, unsigned int k)
{
	static const __u32 slot_bytes[] = { 1500, 3000, 9000 };
	static const double alphas[] = { 0.25, 1, 4 };
	static const double gammas[] = { 0, 0.9, 0.99, 0.999 };

	dc_simpfc_defaults(c);
	c->alg = k % 2 ? DC_SIMPFC_SONIC : DC_SIMPFC_REVERIE;
	c->nports = 2 + (__u32)dc_rand_below(s, 23);
	c->link_delay = 1 + (__u32)dc_rand_below(s, 12);
	c->slot_bytes = slot_bytes[dc_rand_below(s, 3)];
	c->mtu = dc_rand_below(s, 2) ? 1500 : c->slot_bytes;
	c->load = dc_rand_unit(s) * 0.9;
	c->alpha_ll_q16 = Q16(alphas[dc_rand_below(s, 3)]);
	c->alpha_ly_q16 = Q16(alphas[dc_rand_below(s, 3)]);
	c->gamma_q32 = Q32(gammas[dc_rand_below(s, 4)]);
	c->xon_offset = dc_rand_below(s, 2) ? 3000 : 0;
	c->incast_frac = 0.1 + dc_rand_unit(s) * 0.9;
	c->incast_senders = 1 + (__u32)dc_rand_below(s, 20);
	c->incast_period = 200 + (__u32)dc_rand_below(s, 1000);
	c->slots = 6000;
	c->drain_slots = 100000000;	/* until empty */
	c->seed = k + 1;
	c->hdrm_queue_bytes = 2ULL * c->link_delay * c->slot_bytes;
}

int main(void)
{
	struct dc_simpfc_cfg c, c2;
	struct dc_simpfc_result r, r2;
	struct dc_err err = { 0 };
	__u64 s = 42, pauses = 0;
	unsigned int k, bad = 0, ran = 0;
	char name[256];
	int rc;

	for (k = 0; k < 40; k++) {
		__u64 inflight;

		random_cfg(&c, &s, k);
		inflight = c.hdrm_queue_bytes;
		rc = dc_simpfc_prepare(&c, &err);
		if (rc) {
			/* a few draws leave no shared pool: refused, not run */
			CHECK("simpfc: a refused draw says why", rc == EXIT_USAGE && dc_err_is_set(&err),
			      "rc %d", rc);
			dc_err_clear(&err);
			continue;
		}
		rc = dc_simpfc_run(&c, &r, &err);
		ran++;
		if (rc || r.ll_drops || !r.drained || r.end_counted_bytes || r.pauses != r.resumes ||
		    r.ll_arrivals != r.ll_sent_pkts || r.ly_arrivals != r.ly_sent_pkts + r.ly_drops ||
		    r.hdrm_queue_max_bytes > inflight ||
		    r.hdrm_max_bytes > c.hdrm_queue_bytes * c.nports || r.incasts != r.incasts_done) {
			bad++;
			snprintf(name, sizeof(name),
				 "simpfc draw %u (%s, %u ports, delay %u, slot %u B, mtu %u): rc %d, lossless drops %llu, drained %d, counted %llu, pauses %llu/%llu, ll %llu/%llu, ly %llu = %llu + %llu, hdrm %llu of %llu, incasts %llu/%llu",
				 k, dc_simpfc_alg_name(c.alg), c.nports, c.link_delay, c.slot_bytes, c.mtu,
				 rc, (unsigned long long)r.ll_drops, r.drained,
				 (unsigned long long)r.end_counted_bytes, (unsigned long long)r.pauses,
				 (unsigned long long)r.resumes, (unsigned long long)r.ll_arrivals,
				 (unsigned long long)r.ll_sent_pkts, (unsigned long long)r.ly_arrivals,
				 (unsigned long long)r.ly_sent_pkts, (unsigned long long)r.ly_drops,
				 (unsigned long long)r.hdrm_queue_max_bytes, (unsigned long long)inflight,
				 (unsigned long long)r.incasts_done, (unsigned long long)r.incasts);
			CHECK(name, 0, "see above");
		}
		pauses += r.pauses;
	}
	snprintf(name, sizeof(name),
		 "simpfc: %u random runs at the smallest headroom (%llu pauses): no lossless loss, all resumed, headroom within 2 x delay x rate, packets conserved, counters back to 0",
		 ran, (unsigned long long)pauses);
	CHECK(name, bad == 0 && ran >= 30 && pauses > 100, "%u bad of %u", bad, ran);

	/* The bound is tight: one slot less of headroom than in flight loses
	 * lossless packets (the check refuses it; set after the check). */
	dc_simpfc_defaults(&c);
	c.link_delay = 4;
	c.slots = 20000;
	c.load = 0.8;
	c.hdrm_queue_bytes = 2ULL * 4 * 1500 - 1500;
	rc = dc_simpfc_prepare(&c, &err);
	CHECK("simpfc: headroom below 2 x delay x rate is refused, naming it",
	      rc == EXIT_USAGE && strstr(err.msg, "below what arrives after a pause"), "rc %d: %s", rc,
	      err.msg);
	dc_err_clear(&err);
	for (k = 0; k < 2; k++) {
		__u64 drops = 0, seed;

		for (seed = 1; seed <= 4; seed++) {
			dc_simpfc_defaults(&c);
			c.alg = k ? DC_SIMPFC_SONIC : DC_SIMPFC_REVERIE;
			c.link_delay = 4;
			c.slots = 20000;
			c.lossy = false;	/* senders busy with lossless only */
			c.incast_period = 300;
			c.seed = seed;
			rc = dc_simpfc_prepare(&c, &err);
			c.hdrm_queue_bytes = 2ULL * 4 * 1500 - 1500;
			rc |= dc_simpfc_run(&c, &r, &err);
			drops += rc ? 0 : r.ll_drops;
		}
		snprintf(name, sizeof(name),
			 "simpfc: %s with one slot less headroom than in flight loses %llu lossless packets (4 seeds)",
			 dc_simpfc_alg_name(c.alg), (unsigned long long)drops);
		CHECK(name, drops > 0, "drops %llu", (unsigned long long)drops);
	}

	/* A seed gives the same run. */
	dc_simpfc_defaults(&c);
	c.slots = 5000;
	c.seed = 9;
	c2 = c;
	rc = dc_simpfc_prepare(&c, &err) | dc_simpfc_prepare(&c2, &err);
	rc |= dc_simpfc_run(&c, &r, &err) | dc_simpfc_run(&c2, &r2, &err);
	CHECK("simpfc: a seed gives the same run", rc == 0 && !memcmp(&r, &r2, sizeof(r)), "rc %d", rc);
	return check_failed;
}
