/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd/'s own: what tdctl decode's command (decode.c: options, input,
 * decoding) hands its output (decode_out.c: the bottleneck marks, JSON and
 * CSV through the row emitter, plain text). decode.c calls decode_out.c,
 * never the other way.
 */
#ifndef TDCTL_CMD_DECODE_PRIV_H
#define TDCTL_CMD_DECODE_PRIV_H

#include <stdbool.h>

#include "evset/sets.h"
#include "agg/slices.h"
#include "input/counts.h"

#define MAX_NOTES	32

/* What ran: every assumption behind the numbers, printed with them. */
struct notes {
	int n;
	char *s[MAX_NOTES];	/* malloc()ed: whole, whatever they list */
};

/* One metric decoded, in the order of the hierarchy. */
struct out_metric {
	const struct td_metric_info *info;
	struct td_metric m;
	int depth;
	struct td_estimate est;	/* a dump with groups: m estimated */
};

/* One result: the metrics of interval k (of all the input without -I),
 * each group's from the counts of its own events.
 */
struct result {
	const struct decode_ivl *ivl;
	bool l1_left_out;	/* a Level-1 class: no bottleneck mark */
	bool est;		/* estimates (a dump with groups): m[].est */
	/* the metrics left out for want of counts: null in JSON; so are
	 * the set's own (td_set.metrics, space-separated) that an optional
	 * event not given left out
	 */
	const struct decode_leftout *lo;
	const char *set_metrics;
	int n;
	struct out_metric m[TD_MAX_TREE];
};

/* The decoder of the groups chosen and the order of their metrics. */
struct decoded {
	struct td_gdecoder gd;
	int nr_tree;
	struct td_tree_node tree[TD_MAX_TREE];
	struct decode_leftout lo;
	bool keep[TOPDOWN_MAX_GROUPS];
	/* a dump of a file with groups: its slices, each group's estimates
	 * (group orig[i] of decode_in_events() is gd's i)
	 */
	const struct decode_in *in;
	struct td_slices sl;
	bool sl_on;
	int orig[TOPDOWN_MAX_GROUPS];
};

/*
 * The output of decode_run(): the results r[0..nr) of the groups of dd
 * decoded under label, with the input's totals (in) and the notes nt.
 * JSON and CSV through the row emitter (decode_rows()), or the plain
 * table (decode_plain()).
 */
void decode_rows(const struct decoded *dd, const char *label,
		 const struct result *r, int nr,
		 const struct decode_in *in, const struct notes *nt);
void decode_plain(const struct decoded *dd, const char *label,
		  const struct result *r, int nr,
		  const struct decode_in *in, const struct notes *nt);

#endif /* TDCTL_CMD_DECODE_PRIV_H */
