// SPDX-License-Identifier: GPL-2.0
/*
 * Estimates from rotated event groups: counts by the ratio estimator,
 * metrics from one group's counts, standard errors by the delta method
 * over clusters. See estimate.h and Documentation/design.rst.
 */
#include <math.h>
#include <string.h>

#include "evset/evset.h"
#include "agg/aggregate.h"
#include "agg/estimate.h"

/* ---- estimates -------------------------------------------------------- */

static void unknown(struct td_estimate *e, double coverage, uint64_t n)
{
	e->kind = TD_EST_UNKNOWN;
	e->value = NAN;
	e->error = NAN;
	e->coverage = coverage;
	e->clusters = n;
}

/* Index of pool entry @e in group @g, or -1. */
static int group_index(const struct topdown_config *cfg, int g, unsigned int e)
{
	int k = cfg->nr_groups ? (int)cfg->groups[g].nr_events :
		(int)cfg->nr_events;

	for (int i = 0; i < k; i++)
		if ((cfg->nr_groups ? cfg->groups[g].events[i] :
		     (unsigned int)i) == e)
			return i;
	return -1;
}

/* The first pool entry every group counts (the anchor), or -1. */
static int anchor_event(const struct topdown_config *cfg)
{
	if (cfg->nr_groups < 2)
		return -1;
	for (unsigned int e = 0; e < cfg->nr_events; e++) {
		int g = 0;

		while (g < (int)cfg->nr_groups && group_index(cfg, g, e) >= 0)
			g++;
		if (g == (int)cfg->nr_groups)
			return (int)e;
	}
	return -1;
}

/* Group @gs's moments of dims (i, j) of its 1 + @k, into a 2-dim set. */
static void mom_pair(const struct td_gsum *gs, int k, int i, int j,
		     struct td_moments *two)
{
	int dims = 1 + k;

	memset(two, 0, sizeof(*two));
	two->n = gs->mom.n;
	two->mean[0] = gs->mom.mean[i];
	two->mean[1] = gs->mom.mean[j];
	two->m2[td_mom_idx(0, 0, 2)] = gs->mom.m2[td_mom_idx(i, i, dims)];
	two->m2[td_mom_idx(0, 1, 2)] = gs->mom.m2[td_mom_idx(i < j ? i : j,
							     i < j ? j : i, dims)];
	two->m2[td_mom_idx(1, 1, 2)] = gs->mom.m2[td_mom_idx(j, j, dims)];
}

/* S_yy - 2 R S_xy + R^2 S_xx of a 2-dim set (x, y). */
static double resid(const struct td_moments *m, double R)
{
	return td_mom_cov(m, 2, 1, 1) - 2 * R * td_mom_cov(m, 2, 0, 1) +
	       R * R * td_mom_cov(m, 2, 0, 0);
}

/*
 * The count of pool entry e over the row's time T.
 *
 * With an anchor (a pool entry every group counts) and e not counted by
 * every group: Y / a * A^, a the anchor's count in the slices of the
 * groups that count e, A^ = A * T / t_M the anchor's total, A and t_M
 * its count and the time of every group's slices. Its variance: the
 * ratio Y / a's, sampled from the measured slices, plus the anchor
 * total's extrapolation to the slices no group measured:
 *	A^^2 (1 - t/t_M) n (S_yy - 2 R S_ay + R^2 S_aa) / a^2
 *	+ R^2 (1 - t_M/T) n_M (T/t_M)^2 (S_aa - 2 R_a S_ta + R_a^2 S_tt),
 * R = Y/a, R_a = A/t_M.
 *
 * Otherwise: Y * T / t, Y and t summed over those groups' clusters. Its
 * variance by the delta method (the classical ratio estimator's):
 *	(1 - t/T) * n * (T/t)^2 * (S_yy - 2 R S_ty + R^2 S_tt), R = Y/t,
 * S the clusters' sample covariances.
 */
void td_est_count_sums(const struct td_grow *gr, const struct topdown_config *cfg,
		       uint64_t row_ns, unsigned int pool_event,
		       struct td_estimate *out)
{
	struct td_moments pool, pool_a, all;
	uint64_t y = 0, t = 0, a = 0, A = 0, tM = 0;
	int ngroups = cfg->nr_groups ? (int)cfg->nr_groups : 1;
	int anchor = anchor_event(cfg), in = 0;
	double T = (double)row_ns, cov, R, var;

	memset(&pool, 0, sizeof(pool));
	memset(&pool_a, 0, sizeof(pool_a));
	memset(&all, 0, sizeof(all));
	for (int g = 0; g < ngroups; g++) {
		const struct td_gsum *gs = &gr->g[g];
		int k = cfg->nr_groups ? (int)cfg->groups[g].nr_events :
			(int)cfg->nr_events;
		int j = group_index(cfg, g, pool_event);
		int ja = anchor >= 0 ? group_index(cfg, g, (unsigned int)anchor) : -1;
		struct td_moments two;

		if (ja >= 0) {
			A += gs->counts[ja];
			tM += gs->time_ns;
			mom_pair(gs, k, 0, 1 + ja, &two);
			td_mom_merge(&all, &two, 2);
		}
		if (j < 0)
			continue;
		in++;
		y += gs->counts[j];
		t += gs->time_ns;
		/* The group's (time, count j) moments, merged into the pool. */
		mom_pair(gs, k, 0, 1 + j, &two);
		td_mom_merge(&pool, &two, 2);
		if (ja >= 0) {
			a += gs->counts[ja];
			mom_pair(gs, k, 1 + ja, 1 + j, &two);
			td_mom_merge(&pool_a, &two, 2);
		}
	}
	if (!row_ns || !t) {
		unknown(out, 0, pool.n);
		return;
	}
	cov = (double)t / T;
	out->coverage = cov;
	out->clusters = pool.n;
	if (t == row_ns) {
		out->kind = TD_EST_EXACT;
		out->value = (double)y;
		out->error = 0;
		return;
	}
	if (pool.n < TD_EST_MIN_CLUSTERS) {
		unknown(out, cov, pool.n);
		return;
	}
	out->kind = TD_EST_ESTIMATED;
	if (anchor >= 0 && in < ngroups && a > 0 && tM > 0) {
		double Ahat = (double)A * (T / (double)tM);
		double Ra = (double)A / (double)tM, v1, v2;

		R = (double)y / (double)a;
		v1 = Ahat * Ahat * (1 - (double)t / (double)tM) *
		     (double)pool_a.n * resid(&pool_a, R) / ((double)a * a);
		v2 = R * R * (1 - (double)tM / T) * (double)all.n *
		     (T / tM) * (T / tM) * resid(&all, Ra);
		var = (v1 > 0 ? v1 : 0) + (v2 > 0 ? v2 : 0);
		out->value = R * Ahat;
		out->error = sqrt(var);
		return;
	}
	R = (double)y / (double)t;
	var = (1 - cov) * (double)pool.n * (T / t) * (T / t) * resid(&pool, R);
	out->value = (double)y * (T / t);
	out->error = var > 0 ? sqrt(var) : 0;
}

/* F(Z): the metrics at the group's sums Z = (time, counts), each count
 * scaled to the row's time T. F is unchanged when Z is scaled, which is
 * what lets the delta method work on sums as on means.
 */
static void eval(const struct td_est_fn *fn, int group, const double *z,
		 int k, double T, double *out, bool *valid)
{
	double c[TOPDOWN_MAX_EVENTS];

	for (int j = 0; j < k; j++)
		c[j] = z[0] > 0 ? z[1 + j] * (T / z[0]) : 0;
	for (int i = 0; i < fn->nr; i++)
		valid[i] = false;
	fn->fn(fn->ctx, group, c, k, T, out, valid);
}

/*
 * Metrics of one group: F(Z) above, and var F = (1 - t/T) * n * g' S g,
 * g the gradient of F at the sums (central differences, relative step
 * 1e-5), S the clusters' sample covariance matrix.
 */
void td_est_metrics_sums(const struct td_gsum *gs, int group, int k,
			 uint64_t row_ns, const struct td_est_fn *fn,
			 struct td_estimate *out)
{
	double z[TD_EST_DIM], val[TD_EST_MAX_METRICS];
	double grad[TD_EST_MAX_METRICS][TD_EST_DIM];
	bool valid[TD_EST_MAX_METRICS], gok[TD_EST_MAX_METRICS];
	bool need[TD_EST_MAX_METRICS];
	double T = (double)row_ns, cov;
	int dims = 1 + k, nr = fn->nr < TD_EST_MAX_METRICS ? fn->nr :
		   TD_EST_MAX_METRICS;
	uint64_t n = gs->mom.n;

	if (!row_ns || !gs->time_ns || k < 1 || k > TOPDOWN_MAX_EVENTS) {
		for (int i = 0; i < nr; i++)
			unknown(&out[i], 0, n);
		return;
	}
	cov = (double)gs->time_ns / T;
	z[0] = (double)gs->time_ns;
	for (int j = 0; j < k; j++)
		z[1 + j] = (double)gs->counts[j];
	eval(fn, group, z, k, T, val, valid);
	for (int i = 0; i < nr; i++) {
		out[i].coverage = cov;
		out[i].clusters = n;
		need[i] = false;
		if (!valid[i] || !isfinite(val[i])) {
			unknown(&out[i], cov, n);
		} else if (gs->time_ns == row_ns) {
			out[i].kind = TD_EST_EXACT;
			out[i].value = val[i];
			out[i].error = 0;
		} else if (n < TD_EST_MIN_CLUSTERS) {
			unknown(&out[i], cov, n);
		} else {
			need[i] = true;
		}
		gok[i] = need[i];
		memset(grad[i], 0, sizeof(grad[i]));
	}
	for (int a = 0; a < dims; a++) {
		double zp[TD_EST_DIM], zm[TD_EST_DIM];
		double vp[TD_EST_MAX_METRICS], vm[TD_EST_MAX_METRICS];
		bool okp[TD_EST_MAX_METRICS], okm[TD_EST_MAX_METRICS];
		double h = z[a] / 100000;	/* relative step 1e-5 */

		/* A count that is 0 in every cluster has no variance. */
		if (!(h > 0))
			continue;
		memcpy(zp, z, sizeof(zp));
		memcpy(zm, z, sizeof(zm));
		zp[a] += h;
		zm[a] -= h;
		eval(fn, group, zp, k, T, vp, okp);
		eval(fn, group, zm, k, T, vm, okm);
		for (int i = 0; i < nr; i++) {
			if (!gok[i])
				continue;
			if (okp[i] && okm[i])
				grad[i][a] = (vp[i] - vm[i]) / (2 * h);
			else if (okp[i])
				grad[i][a] = (vp[i] - val[i]) / h;
			else if (okm[i])
				grad[i][a] = (val[i] - vm[i]) / h;
			else
				gok[i] = false;
			if (gok[i] && !isfinite(grad[i][a]))
				gok[i] = false;
		}
	}
	for (int i = 0; i < nr; i++) {
		double var = 0;

		if (!need[i])
			continue;
		if (!gok[i]) {		/* no derivative: no error */
			unknown(&out[i], cov, n);
			continue;
		}
		for (int a = 0; a < dims; a++)
			for (int b = 0; b < dims; b++)
				var += grad[i][a] * grad[i][b] *
				       td_mom_cov(&gs->mom, dims, a, b);
		var *= (1 - cov) * (double)n;
		out[i].kind = TD_EST_ESTIMATED;
		out[i].value = val[i];
		out[i].error = var > 0 ? sqrt(var) : 0;
	}
}

/* ---- event set decoders ----------------------------------------------- */

void td_est_decode(const void *ctx, int group, const double *counts,
		   int k, double time_ns, double *out, bool *valid)
{
	const struct td_est_decoders *d = ctx;
	uint64_t c[TOPDOWN_MAX_EVENTS] = { 0 };
	double max = 0, scale;
	struct td_metrics m;

	(void)time_ns;
	for (int j = 0; j < k; j++)
		max = fmax(max, counts[j]);
	/* 2^50: room for the decoders' products by small constants. */
	scale = max > 0 ? 1125899906842624.0 / max : 1;
	for (int j = 0; j < k && j < TOPDOWN_MAX_EVENTS; j++)
		c[j] = counts[j] > 0 ? (uint64_t)llround(counts[j] * scale) : 0;
	td_decode(d->dec[group], c, &m);
	for (int i = 0; i < m.n && i < TD_EST_MAX_METRICS; i++) {
		out[i] = m.m[i].value;
		valid[i] = m.m[i].valid;
	}
}

void td_est_decoder_fn(struct td_est_fn *fn, const struct td_est_decoders *d,
		       int group)
{
	uint64_t zero[TOPDOWN_MAX_EVENTS] = { 0 };
	struct td_metrics m;

	td_decode(d->dec[group], zero, &m);
	fn->nr = m.n < TD_EST_MAX_METRICS ? m.n : TD_EST_MAX_METRICS;
	fn->fn = td_est_decode;
	fn->ctx = d;
}

/* ---- on an aggregation ------------------------------------------------ */

void td_est_count(const struct td_agg *a, const struct td_bucket *row,
		  unsigned int pool_event, struct td_estimate *out)
{
	const struct td_grow *gr = td_agg_grow(a, row);

	if (!gr || pool_event >= a->gcfg.nr_events) {
		unknown(out, 0, 0);
		return;
	}
	td_est_count_sums(gr, &a->gcfg, row->runtime_ns, pool_event, out);
}

void td_est_metrics(const struct td_agg *a, const struct td_bucket *row,
		    int group, const struct td_est_fn *fn,
		    struct td_estimate *out)
{
	const struct td_grow *gr = td_agg_grow(a, row);

	if (!gr || group < 0 || group >= a->nr_groups) {
		for (int i = 0; i < fn->nr && i < TD_EST_MAX_METRICS; i++)
			unknown(&out[i], 0, 0);
		return;
	}
	td_est_metrics_sums(&gr->g[group], group, a->group_events[group],
			    row->runtime_ns, fn, out);
}
