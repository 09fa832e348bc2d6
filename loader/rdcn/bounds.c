// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the rotor model's theorems say for a design (`dcbpf rdcn bounds`,
 * docs/rdcn.md).  Thesis: V. Addanki, "Adaptive Protocols and
 * Reconfigurable Optical Interconnects for Datacenter Networks", Ch. 7
 * (Mars: Theorems 15-19, Corollary 1, Table 7.1), Ch. 8 (Vermilion:
 * Theorem 22), Ch. 9 (Theorems 24-25, Corollary 2).  User space only:
 * logarithms and the Lambert W function in double precision.
 */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "rdcn/rdcn.h"

double dc_rb_lambert_wm1(double x)
{
	double w;
	int i;

	if (!(x >= -1.0 / M_E) || x >= 0)
		return NAN;
	if (x - (-1.0 / M_E) < 1e-15)
		return -1.0;
	/* start: the branch-point series near -1/e, the asymptote near 0 */
	if (x < -0.25)
		w = -1.0 - sqrt(2.0 * (1.0 + M_E * x));
	else
		w = log(-x) - log(-log(-x));
	for (i = 0; i < 50; i++) {	/* Halley's iteration on w·e^w - x */
		double ew = exp(w), f = w * ew - x, step;

		step = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
		w -= step;
		if (fabs(step) < 1e-14 * fabs(w))
			break;
	}
	return w;
}

int dc_rb_d_delay(__u32 ntors, __u32 nup, double slot_ns, double delay_ns, double *k, double *d_real,
		  __u32 *d, struct dc_err *err)
{
	/* Theorem 18: d = e^{-W(k)}, k = -2·ln(n_t)·Δ / (n_u·L), solving
	 * L = 2·log_d(n_t)·d·Δ / n_u; of the two real roots the larger
	 * (the W_{-1} branch), floored as the theorem states. */
	double w;

	*k = -2.0 * log((double)ntors) * slot_ns / ((double)nup * delay_ns);
	if (*k < -1.0 / M_E)
		return dc_err_set(err, EXIT_USAGE,
				  "Theorem 18: no degree meets a delay of %.0f ns: it needs at least "
				  "2e·ln(n_t)·Δ/n_u = %.0f ns",
				  delay_ns, 2.0 * M_E * log((double)ntors) * slot_ns / nup);
	w = dc_rb_lambert_wm1(*k);
	*d_real = exp(-w);
	*d = (__u32)floor(*d_real + 1e-9);
	return 0;
}

int dc_rb_compute(const struct dc_rb_in *in, struct dc_rb_out *o, struct dc_err *err)
{
	double c = in->link_bps, delta = in->slot_ns, logd, gam;
	bool stat;
	__u32 d = in->d, g;
	int rc;

	memset(o, 0, sizeof(*o));
	if (in->ntors < 2 || in->ntors > 1000000)
		return dc_err_set(err, EXIT_USAGE, "tors %u: at least 2", in->ntors);
	if (!in->nup || in->nup > in->ntors)
		return dc_err_set(err, EXIT_USAGE, "uplinks %u: 1..tors", in->nup);
	if (!(delta > 0) || !(c > 0))
		return dc_err_set(err, EXIT_USAGE, "the slot and the link rate must be above 0");
	if (!(in->reconf_ns >= 0) || in->reconf_ns >= delta)
		return dc_err_set(err, EXIT_USAGE, "reconfiguration %.0f ns: must be below the slot (%.0f ns)",
				  in->reconf_ns, delta);
	if (in->delay_ns > 0) {
		rc = dc_rb_d_delay(in->ntors, in->nup, delta, in->delay_ns, &o->k18, &o->d18_real, &o->d18, err);
		if (rc && !d)
			return rc;
		if (rc)
			dc_err_clear(err);
		o->have_d18 = !rc;
		if (o->have_d18 && o->d18 > in->ntors)
			o->d18 = in->ntors;
	}
	if (in->buf_bytes > 0) {
		/* Theorem 19: d = ⌊B / (c·Δ)⌋, B per ToR */
		double v = floor(in->buf_bytes * 8.0 / (c * delta * 1e-9) + 1e-9);

		o->d19 = v > in->ntors ? in->ntors : (__u32)v;
		o->have_d19 = true;
	}
	if (!d) {
		/* Mars: the largest degree within both the delay and the buffer */
		if (o->have_d18 && o->have_d19)
			d = o->d18 < o->d19 ? o->d18 : o->d19;
		else if (o->have_d18)
			d = o->d18;
		else if (o->have_d19)
			d = o->d19;
		else
			return dc_err_set(err, EXIT_USAGE, "give the degree, a buffer or a delay budget");
	}
	if (d < 2 || d > in->ntors)
		return dc_err_set(err, EXIT_USAGE, "degree %u: must be 2..tors (%u)", d, in->ntors);
	if (d < in->nup)
		return dc_err_set(err, EXIT_USAGE, "degree %u is below the %u uplinks", d, in->nup);
	o->d = d;
	g = (d + in->nup - 1) / in->nup;
	o->period = g;
	/* A period of one slot is a static graph: nothing waits for a circuit
	 * (Table 7.1, design 1: delay and buffer ≈ 0). */
	stat = g == 1;
	logd = log((double)in->ntors) / log((double)d);
	o->diameter = (__u32)ceil(logd - 1e-9);
	/* Theorem 17 (VLB doubles the route length): θ* = 1/ARL */
	o->arl = 2.0 * logd;
	o->theta_star = 1.0 / o->arl;
	if (o->theta_star > 0.5)
		o->theta_star = 0.5;
	/* Theorems 15 and 17: ARD = ARL·Γ·Δ */
	o->delay_ns = stat ? 0 : o->arl * g * delta;
	/* Theorem 19: c·d·Δ per ToR for θ* */
	o->buf_need_bytes = stat ? 0 : c * d * delta * 1e-9 / 8.0;
	/* Theorem 16: B ≥ θ·n_u·c·ARD per ToR (saturated demand) */
	if (in->buf_bytes > 0 && !stat)
		o->theta_buf = in->buf_bytes * 8.0 / (in->nup * c * o->delay_ns * 1e-9);
	else
		o->theta_buf = o->theta_star;
	o->theta = o->theta_buf < o->theta_star ? o->theta_buf : o->theta_star;
	o->duty = 1.0 - in->reconf_ns / delta;
	o->theta_eff = o->theta * o->duty;
	if (in->k) {
		/* Theorem 22: (k-1)/k·(1 - Δ_r), Δ_r a fraction of the slot */
		o->verm_theta = (double)(in->k - 1) / in->k * o->duty;
	}
	if (in->gamma) {
		double h = 0;
		__u32 r;

		gam = in->gamma;
		for (r = 1; r <= in->gamma; r++)
			h += 1.0 / r;
		/* Theorems 24, 25; Corollary 2 (uniform over 1..γ) */
		o->cons_det = fmax(0.5, (gam - 1) / gam);
		o->rob_det = 1.0 / (2 * gam);
		o->cons_rand = 1.0 + 1.0 / (2 * gam) - h / gam;
		o->rob_rand = h / (2 * gam);
	}
	return 0;
}
