/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Estimates from rotated event groups, with their coverage and error
 * (Documentation/design.rst, "Estimates from rotated groups").
 *
 * A configuration with groups (include/uapi/linux/topdown.h, "Groups and
 * rotation") measures each slice with one group, or with none (a rotated
 * slice, or one with an unreadable counter). For one row (a task, a
 * process, a cgroup, ...) a group therefore saw a sample of the row's
 * time. The sampling unit is the cluster: the row's slices on one CPU
 * between two rotations of that CPU, all measured by the same group.
 * For every group a row keeps its exact sums and, streamed cluster by
 * cluster, the means and co-moments of the clusters' (time, count_0 ..
 * count_k-1) vectors (Welford's update, Chan's merge), which is all the
 * estimators below need: they run on a file as on a live stream.
 *
 *  - a count: ratio estimator with the anchor (an event every group
 *    counts) as the auxiliary variable where there is one, else time, from
 *    every group that counts the event: Y * T / t (Y the summed count, t
 *    the time those groups measured, T the row's time);
 *  - a metric of one group: the metric function of that group's counts,
 *    each scaled to the row's time (a ratio of two of the group's events
 *    is the ratio of their sums over the same slices);
 *  - the error: one standard error by the delta method over the clusters,
 *    with the finite-population correction (1 - coverage);
 *  - coverage: the share of the row's time the group(s) measured.
 */
#ifndef TDCTL_ESTIMATE_H
#define TDCTL_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/topdown.h>

/* A cluster's vector: its time (ns), then the group's counts. */
#define TD_EST_DIM	(1 + TOPDOWN_MAX_EVENTS)
#define TD_EST_TRI	(TD_EST_DIM * (TD_EST_DIM + 1) / 2)

/* Below this many clusters an estimate is unknown (see design.rst for
 * the calibration that chose it).
 */
#define TD_EST_MIN_CLUSTERS	8

/* Means and co-moments (sums of products of deviations from the mean)
 * of n vectors of dims entries; m2 packed upper triangle, row by row.
 */
struct td_moments {
	uint64_t n;
	double mean[TD_EST_DIM];
	double m2[TD_EST_TRI];
};

/* Index of (i, j), i <= j < dims, in td_moments.m2. */
static inline int td_mom_idx(int i, int j, int dims)
{
	return i * dims - i * (i - 1) / 2 + (j - i);
}

void td_mom_add(struct td_moments *m, int dims, const double *z);
void td_mom_merge(struct td_moments *dst, const struct td_moments *src,
		  int dims);
/* Sample covariance of entries i and j (n - 1 in the denominator; 0 for
 * fewer than 2 vectors).
 */
double td_mom_cov(const struct td_moments *m, int dims, int i, int j);

/* One group of one row. */
struct td_gsum {
	uint64_t slices;	/* slices the group measured */
	uint64_t time_ns;	/* ... and their time */
	uint64_t errors;	/* slices of the group with an unreadable
				 * counter: in the row's time, in no group's
				 */
	uint64_t error_ns;
	uint64_t counts[TOPDOWN_MAX_EVENTS];	/* summed, the group's order */
	struct td_moments mom;	/* of the clusters: dims 1 + nr events */
};

/* What the groups of a row add to it. */
struct td_grow {
	uint64_t rotated;	/* rotated slices: no group measured them */
	uint64_t rotated_ns;
	struct td_gsum g[TOPDOWN_MAX_GROUPS];	/* nr_groups used */
};

enum td_est_kind {
	TD_EST_UNKNOWN,		/* too few clusters, or not computable */
	TD_EST_EXACT,		/* measured all the time: no error */
	TD_EST_ESTIMATED,	/* value +- error */
};

struct td_estimate {
	enum td_est_kind kind;
	double value;		/* NAN when unknown */
	double coverage;	/* 0..1, share of the row's time measured */
	double error;		/* one standard error in value's unit; 0 when
				 * exact, NAN when unknown
				 */
	uint64_t clusters;	/* sampling units behind it */
};

/*
 * Metrics computed from one group's counts (the decoder of the event set
 * provides them). counts[j] is the group's j-th event, time_ns the time
 * they cover; fills out[i] and valid[i] for i < nr. The estimator calls
 * it with the group's counts scaled to the row's time, then again with
 * each count and the time moved a little (numerical derivatives), so it
 * must be a smooth function of them (ratios, differences of ratios, ...)
 * and must not keep state. Which group serves which metric is the
 * caller's choice (a metric from the group that measures all its events
 * and its anchor).
 */
struct td_est_fn {
	int nr;
	void (*fn)(const void *ctx, int group, const double *counts,
		   int nr_counts, double time_ns, double *out, bool *valid);
	const void *ctx;
};

#define TD_EST_MAX_METRICS	32

/*
 * The metrics of event set decoders (evset/evset.h, td_decode(), which
 * computes in integers from uint64_t counts) as a td_est_fn: one decoder
 * per group, the group's counts in its delta order. The counts are
 * scaled so that the largest is about 2^50 before they are rounded: the
 * decoders' metrics are ratios of counts (TopDown shares, per cycle, per
 * 1000 instructions), which scaling leaves unchanged, while the small
 * steps of the numerical derivatives survive the rounding. nr is the
 * number of metrics the decoder gives (td_est_decoder_fn()).
 */
struct td_decoder;

struct td_est_decoders {
	const struct td_decoder *dec[TOPDOWN_MAX_GROUPS];
};

void td_est_decode(const void *ctx, int group, const double *counts,
		   int nr_counts, double time_ns, double *out, bool *valid);
/* fn for group g of d (ctx d, nr from a decode of nothing). */
void td_est_decoder_fn(struct td_est_fn *fn, const struct td_est_decoders *d,
		       int group);

/* Low level, on the sums of a row (what serve or top can keep):
 * row_ns is the row's whole time (slices of every group, rotated and
 * error slices included).
 */
void td_est_count_sums(const struct td_grow *gr, const struct topdown_config *cfg,
		       uint64_t row_ns, unsigned int pool_event,
		       struct td_estimate *out);
void td_est_metrics_sums(const struct td_gsum *gs, int group, int nr_counts,
			 uint64_t row_ns, const struct td_est_fn *fn,
			 struct td_estimate *out);

struct td_agg;
struct td_bucket;

/* On a row of an aggregation with groups (td_agg_groups(), after
 * td_agg_finish()). For a count, cfg's pool entry e from every group
 * that has it; for metrics, out[0 .. fn->nr - 1]. A row of an
 * aggregation without groups gives TD_EST_UNKNOWN.
 */
void td_est_count(const struct td_agg *a, const struct td_bucket *row,
		  unsigned int pool_event, struct td_estimate *out);
void td_est_metrics(const struct td_agg *a, const struct td_bucket *row,
		    int group, const struct td_est_fn *fn,
		    struct td_estimate *out);

#endif
