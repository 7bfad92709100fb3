/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve's counters as the Prometheus text format 0.0.4 or OpenMetrics
 * 1.0 (the scraper's Accept header chooses): the metric families, their
 * HELP, TYPE and UNIT lines, the label values, escaped.
 *
 * The counters are monotonic: serve only adds to them, and a series once
 * exported stays, so no sample ever goes backwards. The label values
 * are valid UTF-8 whatever the bytes they come from, and two different
 * paths or comms never give one value.
 */
#ifndef TDCTL_EXPORT_OPENMETRICS_H
#define TDCTL_EXPORT_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/topdown.h>

#include "agg/aggregate.h"

#define TD_OM_LABEL_MAX	512	/* a series' label values, escaped */
#define TD_OM_PATH_MAX	4096	/* a cgroup path's bytes shown (PATH_MAX) */

/* One exported series (a bucket of --by: a cgroup, process or comm):
 * its label values and its counters.
 */
struct td_om_series {
	char labels[TD_OM_LABEL_MAX];	/* e.g. cgroup="/system.slice" */
	uint64_t slices, runtime_ns, read_errors;
	uint64_t counts[TOPDOWN_MAX_EVENTS];
};

/* Rotated event groups: per group of the configuration, the time it
 * measured and its events' counts (in the group's order).
 */
struct td_om_gx {
	uint64_t ns[TOPDOWN_MAX_GROUPS];
	uint64_t c[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
};

/* What /metrics shows of the rings: the series and the event set. */
struct td_om_counters {
	struct td_om_series *series;	/* series[0] is "other" */
	size_t n, max_series;	/* n <= max_series + 1 */
	char set[TOPDOWN_NAME_LEN * 2];
	/* the events by pool entry (delta order without rotation) */
	char ev_label[TOPDOWN_MAX_POOL][TOPDOWN_NAME_LEN * 6 + 1];
	const char *ev_kind[TOPDOWN_MAX_POOL];	/* ",cpu_kind=..." or "" */
	uint32_t nr_ev;
	/* rotated groups (2 or more; 0: none): the configuration's groups,
	 * their label values (the label's group ids, else their index),
	 * and per exported series the sums of each event group (gx[i] for
	 * series[i])
	 */
	uint32_t nr_egroups;
	struct topdown_group egroup[TOPDOWN_MAX_GROUPS];
	char eg_label[TOPDOWN_MAX_GROUPS][16];
	struct td_om_gx *gx;
	uint64_t *lost;		/* per CPU */
	int lost_cpus;
	uint64_t records;
	unsigned int slots;	/* the TopDown formula's slot width, 0: none */
};

/* One scrape's text, grown as it is written (oom: it could not be). */
struct td_om_out {
	char *p;
	size_t len, cap;
	bool oom;
};

/* One scrape: what it shows beside the counters. */
struct td_om_scrape {
	bool om;		/* OpenMetrics 1.0, else the text format */
	bool up;		/* the rings are read: their families too */
	const char *state;	/* the collection's: unloaded, idle, ... */
	const char *by;		/* the key of --by: cgroup, process or comm */
	const char *version;	/* the exporter's */
	const char *counts;	/* where the counters come from: "totals"
				 * (the module's), "records" or ""
				 */
	uint64_t t0_ns;		/* the scrape's start (td_now_ns()) */
};

/* s[0..n) (up to a NUL) as a label value into dst (cap bytes, NUL
 * ended): backslash, double quote and newline escaped, valid UTF-8 as it
 * is, other bytes not printable ASCII as \\xHH. Its length.
 */
size_t td_om_label(char *dst, size_t cap, const char *s, size_t n);
/* A cgroup's path as a label value, never the same for two paths. */
void td_om_cgroup_label(char *dst, size_t cap, const char *path);
/* The event set's labels of the rings' configuration vc (label: the
 * configuration's, for a set that does not decode).
 */
void td_om_events(struct td_om_counters *c, const struct td_view_cfg *vc,
		  const char *label);
/* Every family of c and sc into o. */
void td_om_write(struct td_om_out *o, const struct td_om_counters *c,
		 const struct td_om_scrape *sc);

#endif
