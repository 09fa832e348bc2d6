/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Credence and FollowLQD in the data plane: the virtual LQD of
 * struct dc_sw_cred (include/dcbpf/switch.h) driven by real time and the
 * real ports' departures, and the prediction's EWMA features.  The
 * per-arrival decision itself is the shared core in admit.h
 * (dc_cred_arrival, dc_cred_decide); this header
 * only adds what a timeslot-free data plane needs around it.  Pure and
 * host-testable (tests/unit/test_vlqd.c); bpf/switch.bpf.c calls it.
 *
 * Drain rule (docs/admission.md, "Drain rule"): FollowLQD drains every
 * virtual queue by what its port can send per timeslot.  Here a queue
 * drains by rate × elapsed time, by the real port's departures, or by the
 * departures while the real queue is backlogged and time otherwise
 * (dc_sw_cfg.cred_drain, dc_vlqd_drain), lazily: the arriving packet's
 * own queue on every arrival, all queues only when the virtual buffer
 * looks full (Γ + len > B), which is the only time the other queues'
 * lengths matter (to pick the virtual LQD's victim).  That sweep also recounts Γ = Σ T_i
 * from scratch, so updates lost to concurrent CPUs (no lock, see
 * "Races") cannot accumulate.
 */
#ifndef DCBPF_VLQD_H
#define DCBPF_VLQD_H

#include "admit.h"
#include "forest.h"
#include "switch.h"

/* EWMA period when no model is loaded (features are still kept for
 * capture): about two base RTTs of the emulated fabric, as ABM's period. */
#define DC_CRED_EWMA_DEFAULT_NS (100ULL * 1000)

/* What the queue tracker last recorded of a port's root qdisc
 * (struct dc_sw_port): bytes dequeued ever, and the backlog. */
struct dc_vlqd_obs {
	__u64 tx_bytes;
	__u64 q_bytes;
};

/*
 * Drain T_i by what port i sent since drain_ns[i], under rule mode (enum
 * dc_cred_drain):
 *   TIME    rate × elapsed time.  A gap too short to send one byte leaves
 *           the clock alone, so frequent arrivals cannot round every drain
 *           down to nothing.
 *   DEPART  the bytes the real port dequeued since drain_tx[i]; T_i empties
 *           when the real queue is empty (else T_i would keep whatever the
 *           real queue never held).
 *   HYBRID  the real departures while the real queue is backlogged: a port
 *           that sends less than its configured rate (a shaper's timer, a
 *           busy CPU) then drains T_i as slowly as q_i, so q_i cannot
 *           outgrow T_i.  While the real queue is idle the virtual port still
 *           sends at line rate (rate × time), at least what really left.
 * A departure counter behind drain_tx[i] (qdisc replaced) counts as none.
 */
DC_INLINE void dc_vlqd_drain(struct dc_sw_cred *c, __u32 i, __u64 now, __u32 mode, __u64 tx,
			     __u64 q)
{
	__u64 last, sent, dep;
	bool timed;

	i &= DC_SW_PORTS_MAX - 1;
	last = c->drain_ns[i];
	if (now <= last)
		return;
	dep = tx > c->drain_tx[i] ? tx - c->drain_tx[i] : 0;
	if (!last || !c->T_bytes[i]) {
		/* an empty virtual queue has nothing to send */
		c->drain_ns[i] = now;
		c->drain_tx[i] = tx;
		return;
	}
	timed = mode == DC_DRAIN_TIME || (mode == DC_DRAIN_HYBRID && !q);
	if (timed) {
		sent = dc_bytes_in_ns(c->rate_mbps[i], now - last);
		if (mode == DC_DRAIN_HYBRID && dep > sent)
			sent = dep;
		if (!sent)
			return;
	} else {
		/* the departures account for the whole gap, so the clock moves
		 * even when nothing left (a stalled port) */
		sent = mode == DC_DRAIN_DEPART && !q ? c->T_bytes[i] : dep;
	}
	c->drain_ns[i] = now;
	c->drain_tx[i] = tx;
	if (sent)
		dc_cred_depart(c->T_bytes, &c->gamma_bytes, i, sent);
}

/* Every queue up to date, Γ recounted.  obs: DC_SW_PORTS_MAX records
 * (NULL: none observed, as under DC_DRAIN_TIME). */
DC_INLINE void dc_vlqd_sync(struct dc_sw_cred *c, __u64 now, __u32 mode,
			    const struct dc_vlqd_obs *obs)
{
	__u64 g = 0;
	__u32 j;

	for (j = 0; j < DC_SW_PORTS_MAX; j++) {
		dc_vlqd_drain(c, j, now, mode, obs ? obs[j].tx_bytes : 0, obs ? obs[j].q_bytes : 0);
		g += c->T_bytes[j];
	}
	c->gamma_bytes = g;
}

/*
 * FollowLQD's threshold update for an arrival of len bytes to port i at
 * time now, split around the search for room so the XDP program can run
 * that search with bpf_loop:
 *   dc_vlqd_prepare   drain (and when the virtual buffer looks full, sync);
 *                     returns true if room must be searched for
 *   dc_cred_room_step rounds until it returns other than DC_CRED_MORE
 *   dc_cred_take      if the result is DC_CRED_ROOM
 * dc_vlqd_arrival chains them (host, tests) and returns T_i after it.
 * tx and q are port i's record (tx_bytes, backlog); all (host only: the
 * BPF sync reads the port records itself) every port's, for the sync.
 * Scalars, not a record on the stack: the XDP program's call chain is
 * near the verifier's 512-byte stack limit.
 */
DC_INLINE bool dc_vlqd_prepare(struct dc_sw_cred *c, __u32 i, __u32 rate_mbps, __u64 B, __u32 len,
			       __u64 now, __u32 mode, __u64 tx, __u64 q,
			       const struct dc_vlqd_obs *all)
{
	i &= DC_SW_PORTS_MAX - 1;
	c->rate_mbps[i] = rate_mbps;
	dc_vlqd_drain(c, i, now, mode, tx, q);
	if (c->gamma_bytes + len <= B)
		return false;
#ifdef __bpf__
	(void)all;
	DC_VLQD_SYNC(c, now, mode);	/* the BPF program's bpf_loop form of dc_vlqd_sync */
#else
	dc_vlqd_sync(c, now, mode, all);
#endif
	return c->gamma_bytes + len > B;
}

DC_INLINE __u64 dc_vlqd_arrival(struct dc_sw_cred *c, __u32 i, __u32 rate_mbps, __u64 B,
				__u32 len, __u64 now, __u32 mode, const struct dc_vlqd_obs *all)
{
	i &= DC_SW_PORTS_MAX - 1;
	if (dc_vlqd_prepare(c, i, rate_mbps, B, len, now, mode, all ? all[i].tx_bytes : 0,
			    all ? all[i].q_bytes : 0, all))
		dc_cred_arrival(c->T_bytes, &c->gamma_bytes, DC_SW_PORTS_MAX, i, B, len);
	else
		dc_cred_take(c->T_bytes, &c->gamma_bytes, i, len);
	return c->T_bytes[i];
}

/*
 * The prediction's features for an arrival to port i (forest.h): q_i and
 * Q before the packet, and their EWMAs after folding this sample in with
 * the time since the previous one (dc_rf_ewma; the first sample of a
 * queue replaces its average).  A CPU whose clock reading is behind the
 * last update folds in with weight 0.
 */
DC_INLINE void dc_cred_features(struct dc_sw_cred *c, __u32 i, __u64 q, __u64 Q, __u64 period_ns,
				__u64 now, __u32 x[DC_RF_FEATURES])
{
	__u64 last;

	i &= DC_SW_PORTS_MAX - 1;
	x[DC_RF_F_QLEN] = dc_rf_feat(q);
	x[DC_RF_F_OCC] = dc_rf_feat(Q);
	last = c->q_ewma_ns[i];
	c->q_ewma_bytes[i] = dc_rf_ewma(c->q_ewma_bytes[i], x[DC_RF_F_QLEN],
					!last ? period_ns : now > last ? now - last : 0, period_ns);
	c->q_ewma_ns[i] = now;
	last = c->occ_ewma_ns;
	c->occ_ewma_bytes = dc_rf_ewma(c->occ_ewma_bytes, x[DC_RF_F_OCC],
				       !last ? period_ns : now > last ? now - last : 0, period_ns);
	c->occ_ewma_ns = now;
	x[DC_RF_F_QLEN_EWMA] = c->q_ewma_bytes[i];
	x[DC_RF_F_OCC_EWMA] = c->occ_ewma_bytes;
}

/*
 * Credence's safeguard needs max_j q_j only when it is undecided: Q ≥
 * max_j q_j ≥ q_i, so Q·N < B already proves "below B/N" and q_i·N ≥ B
 * disproves it.  Returns a value with the same safeguard outcome as the
 * longest queue, or DC_U64_MAX when the caller must scan the queues.
 */
DC_INLINE __u64 dc_cred_longest_bound(__u64 q, __u64 Q, __u32 n, __u64 B)
{
	if (dc_cred_safeguard(Q, n, B))
		return Q;
	if (!dc_cred_safeguard(q, n, B))
		return q;
	return DC_U64_MAX;
}

#endif
