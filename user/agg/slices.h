/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Estimates from slices given one at a time, outside a record file: the
 * slices of a dump --json of a file with event groups that tdctl decode
 * reads (input/counts.h, struct decode_slice). They go, in the dump's
 * order, into an aggregation of one row as the records of a
 * configuration of the groups decoded (td_agg_groups()), so that each
 * metric is estimated from its group's slices exactly as report
 * estimates a row (agg/estimate.h): the clusters are a CPU's slices
 * between two changes of group or rotations, the slices of a group not
 * decoded are in the time and in no group's counts (as another group's
 * are in report), a rotated slice ends its CPU's cluster, and a slice
 * with a count not read is in the time only.
 */
#ifndef TDCTL_AGG_SLICES_H
#define TDCTL_AGG_SLICES_H

#include <stdbool.h>

#include "agg/aggregate.h"
#include "agg/estimate.h"
#include "input/counts.h"

struct td_slices {
	struct td_agg a;
	int nr_groups;		/* the groups decoded (1: the set's events) */
	bool oom;
};

/*
 * For the groups of decode_in_events() (nr_groups 0: one group of the
 * nr_pool events). 0, or -1 out of memory.
 */
int td_slices_init(struct td_slices *s, const struct topdown_group *groups,
		   int nr_groups, int nr_pool);
/* One slice; s->oom once memory ran out. */
void td_slices_add(struct td_slices *s, const struct decode_slice *ds);
/* After the last slice: the clusters still open are closed. */
void td_slices_finish(struct td_slices *s);
/* The slices of group g read whole. */
uint64_t td_slices_read(const struct td_slices *s, int g);
/*
 * The metrics of group g as dec (that group's decoder) gives them, each
 * estimated with its coverage and error: out[0 .. the decoder's
 * metrics), at most TD_EST_MAX_METRICS. Returns how many.
 */
int td_slices_metrics(const struct td_slices *s, int g,
		      const struct td_decoder *dec, struct td_estimate *out);
void td_slices_free(struct td_slices *s);

#endif
