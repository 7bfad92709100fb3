/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregating records into buckets (one per task, process, comm, cgroup
 * or CPU: --by) and printing the buckets as a table, JSON or CSV: what
 * stat, report and top share.
 *
 *   by.c         --by KEY, the filters of dump and report
 *   aggregate.c  the buckets: a hash table keyed by the fields of --by;
 *                with event groups also per event group sums and the
 *                clusters the estimator needs (td_agg_groups())
 *   estimate.c   estimates, coverage and error from those (estimate.h)
 *   slices.c     the same of slices given one at a time (decode's dump)
 *   view.c       the columns of an aggregation and the order of the rows
 *   table.c      the rows through the row emitter (output/emit.h)
 *
 * A bucket sums the raw deltas of its records; metrics are decoded from
 * those sums (td_decode), never averaged from per-slice percentages.
 */
#ifndef TDCTL_AGGREGATE_H
#define TDCTL_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/topdown.h>

#include "evset/evset.h"
#include "agg/estimate.h"
#include "output/emit.h"

struct td_voc;

enum td_by { TD_BY_TASK, TD_BY_PROCESS, TD_BY_COMM, TD_BY_CGROUP, TD_BY_CPU,
	     TD_BY_NR };

extern const char *const td_by_names[TD_BY_NR];
/* 0, or -1 after p_err() listing the valid names. */
int td_by_parse(const char *opt, const char *s, enum td_by *by);

/*
 * The one filter set of every command that reads records (report, dump,
 * top, timeline; stat and record take -p as their target): lists of
 * process ids (-p/--pid: a process or a thread), thread ids (--tid),
 * CPUs (--cpu), cgroup ids or paths (--cgroup), a comm (--comm), and a
 * window --from S --to S in seconds into the recording (the time base
 * every command prints: td_filter.base_ns is the recording's or the
 * collection's start). A slice is kept when it matches every filter
 * given, and any value of a list; a window keeps the slices that end
 * after --from and start before --to.
 */
#define TD_FILTER_MAX	64
struct td_filter {
	uint64_t pid[TD_FILTER_MAX], tid[TD_FILTER_MAX];
	uint64_t cpu[TD_FILTER_MAX], cgroup[TD_FILTER_MAX];
	int nr_pids, nr_tids, nr_cpus, nr_cgroups;
	const char *comm;	/* NULL: any */
	uint64_t from_ns, to_ns;	/* after base_ns */
	bool from_set, to_set;
	uint64_t base_ns;	/* set by the reader: time_s 0 */
	bool any;		/* a filter was given */
};

/* The ids td_filter_opt() takes (the CLI's TD_OPT_FILTERS). */
enum {
	TD_FILTER_PID = 'p', TD_FILTER_CPU = 0x300, TD_FILTER_COMM,
	TD_FILTER_TID, TD_FILTER_CGROUP, TD_FILTER_FROM, TD_FILTER_TO,
};

void td_filter_init(struct td_filter *f);
/* 1 if id was a filter option, 0 if not, -1 after p_err(). */
int td_filter_opt(struct td_filter *f, int id, const char *arg);
/* After the options: --to later than --from. 0, or -1 after a usage
 * error.
 */
int td_filter_check(const struct td_filter *f);
/* Warn about --cpu values that a recording of nr_cpus CPUs cannot have. */
void td_filter_warn_cpus(const struct td_filter *f, uint32_t nr_cpus);
/* The window in absolute nanoseconds (saturating): [*from, *to). */
void td_filter_window(const struct td_filter *f, uint64_t *from,
		      uint64_t *to);
bool td_filter_match(const struct td_filter *f, const struct topdown_record *r);

/* The records of one key of --by, summed: a row of the tables. */
struct td_bucket {
	uint32_t pid;		/* process (tgid) */
	uint32_t tid;		/* thread (TD_BY_TASK) */
	uint32_t cpu;		/* TD_BY_CPU */
	uint64_t cgroup_id;	/* TD_BY_CGROUP */
	char comm[TOPDOWN_COMM_LEN + 1];
	bool comm_main;		/* comm is the process's main thread's */
	uint64_t slices;
	uint64_t runtime_ns;
	uint64_t read_errors;	/* slices with a counter that was unreadable
				 * (rotated ones are not read errors)
				 */
	uint64_t rotated;	/* rotated slices: measured by no event group */
	uint64_t counts[TOPDOWN_MAX_EVENTS];
};

struct td_open_cl;

/* The clusters being built on one CPU (td_agg_groups()). */
struct td_cl_cpu {
	int group;		/* of the CPU's current period, -1: none yet */
	uint32_t nr_used;
	uint32_t *used;		/* slots holding an open cluster */
	struct td_open_cl *slot;	/* by row: open addressing */
	uint32_t nslots;
	struct td_open_cl *total;	/* the total row's */
};

struct td_agg {
	enum td_by by;
	struct td_bucket *bucket;
	size_t n, cap;
	uint32_t *slot;		/* hash index: bucket index + 1, 0 empty */
	size_t nslots;
	struct td_bucket total;
	bool oom;
	/* With td_agg_groups(): per event group sums of each row
	 * (td_agg_grow()), the clusters open on each CPU. nr_groups 0: off.
	 */
	int nr_groups;
	int group_events[TOPDOWN_MAX_GROUPS];
	struct topdown_config gcfg;	/* nr_events, groups (the pool) */
	size_t grow_size;		/* bytes per row */
	uint8_t *grows;			/* cap rows */
	struct td_grow *total_grow;
	struct td_cl_cpu *cl;
	uint32_t nr_cl;
};

void td_agg_init(struct td_agg *a, enum td_by by);
/*
 * Also keep, per row and event group of cfg, the group's sums and its
 * clusters (estimate.h); cfg without groups, or with one (which never
 * rotates), is one group of its events in delta order, and each of its
 * slices is a sampling unit of its own (there are no rotations to
 * delimit clusters). Slices with an unreadable counter are left out of
 * the group's sums as rotated ones are: in the row's time, in no
 * group's. Call after td_agg_init(), before the first record. -1 if out
 * of memory. The rows' counts[] stay the sums of delta[j] whatever the
 * group (an unreadable delta being 0), for the raw views.
 */
int td_agg_groups(struct td_agg *a, const struct topdown_config *cfg);
/* The event groups' part of a row (or of &a->total); NULL without
 * td_agg_groups().
 */
const struct td_grow *td_agg_grow(const struct td_agg *a,
				  const struct td_bucket *row);
/*
 * Close the clusters still open (at the end of a file, of an interval):
 * the estimates only see closed clusters. Records added later start new
 * ones. Nothing to do without td_agg_groups().
 */
void td_agg_finish(struct td_agg *a);
/* Add a record to its bucket and to the total; false if out of memory. */
bool td_agg_add(struct td_agg *a, const struct topdown_record *r);
/*
 * Add the sums of @slices slices of one task (a task's totals kept by
 * the module): r has the task's fields, no flag but TOPDOWN_REC_IDLE, its
 * duration_ns and
 * delta[] are the sums, every slice measured whole. Only without
 * rotated groups: the rows' counts are then exact sums, and no estimate
 * needs the slices one by one. False if out of memory (a->oom), or
 * (a->oom false) with rotated groups or a flag in r.
 */
bool td_agg_add_sum(struct td_agg *a, const struct topdown_record *r,
		    uint64_t slices);
/* The bucket r would be added to, or NULL if it has none yet. */
const struct td_bucket *td_agg_find(const struct td_agg *a,
				    const struct topdown_record *r);
/* Add src's buckets and total into dst (src's open clusters as closed
 * ones); false if out of memory. With event groups, both have the same
 * config.
 */
bool td_agg_merge(struct td_agg *dst, const struct td_agg *src);
/* Forget every bucket (keeps the memory), e.g. after each interval. */
void td_agg_clear(struct td_agg *a);
void td_agg_free(struct td_agg *a);

/* Columns of a table. */
enum td_col_kind {
	TD_COL_PID, TD_COL_TID, TD_COL_COMM, TD_COL_CGROUP, TD_COL_CPU,
	TD_COL_SLICES, TD_COL_RUNTIME, TD_COL_EVENT, TD_COL_METRIC,
};

struct td_col {
	enum td_col_kind kind;
	int idx;		/* event or metric index */
	const char *name;	/* JSON/CSV name; plain tables upper-case
				 * the fixed columns' titles
				 */
};

/* Metrics of a view: a set's Level 1 (td_decode()), or the metrics of
 * every group of a rotated configuration (td_gdecoder_tree()).
 */
#define TD_VIEW_MAX_METRICS	TD_MAX_TREE
#define TD_MAX_COLS	(8 + TOPDOWN_MAX_POOL + TD_VIEW_MAX_METRICS)

/* The ids td_table_opt() takes: --metric-only and --big-num of stat,
 * report and top (the CLI's TD_OPT_TABLE).
 */
enum { TD_TABLE_METRIC_ONLY = 'M', TD_TABLE_BIG_NUM = 'G' };

struct td_table_opts {
	bool metric_only;	/* no event counts */
	bool big_num;		/* plain: 1,234,567 */
};

/* 1 if id was one of those (set in o), 0 if not. */
int td_table_opt(struct td_table_opts *o, int id);

/*
 * A count or metric of a row, as every format shows it. Without rotation
 * (td_view.gd NULL) counts are exact sums and metrics are decoded from
 * them (valid: computable); with rotated groups both are estimates
 * (agg/estimate.h): valid false is unknown (never 0), estimated is a
 * value that was not measured all the time, with its error and coverage.
 */
struct td_val {
	double value;
	double error;		/* estimated: one standard error, same unit */
	double coverage;	/* rotated: the share of the row's run time
				 * its group(s) measured; 1 otherwise
				 */
	bool valid;
	bool estimated;
	bool flagged;		/* a fraction outside 0..1 */
};

struct td_row_vals {
	struct td_val count[TOPDOWN_MAX_POOL];
	struct td_val metric[TD_VIEW_MAX_METRICS];
	int mark[2];		/* the bottleneck path: metric indexes of the
				 * largest Level-1 class and of its largest
				 * child, -1 where none
				 */
};

struct td_view {
	enum td_by by;
	const struct topdown_config *cfg;
	const struct td_decoder *dec;	/* NULL: raw counts only */
	int nr_events;			/* count columns: the pool */
	const char *event_names[TOPDOWN_MAX_POOL];
	int nr_metrics;
	const char *metric_names[TD_VIEW_MAX_METRICS];
	int l1[4];		/* the TopDown Level-1 metrics (retiring,
				 * bad_speculation, frontend_bound,
				 * backend_bound), -1 where the set has none
				 */
	bool metric_fraction[TD_VIEW_MAX_METRICS];	/* as a percentage */
	/* the vocabulary's entry of each (output/vocab.h), NULL: none */
	const struct td_voc *metric_voc[TD_VIEW_MAX_METRICS];
	/* Rotated groups (td_view_init_cfg() of a configuration with two or
	 * more groups): every metric from its home group's slices, with its
	 * depth in the hierarchy (1: a Level 2 class under metric parent[]),
	 * estimated with coverage and error. NULL: no rotation.
	 */
	const struct td_gdecoder *gd;
	int metric_group[TD_VIEW_MAX_METRICS];
	int metric_index[TD_VIEW_MAX_METRICS];
	int metric_depth[TD_VIEW_MAX_METRICS];
	int metric_parent[TD_VIEW_MAX_METRICS];	/* -1: none */
	struct td_est_decoders estd;
	struct td_est_fn est_fn[TOPDOWN_MAX_GROUPS];
	/* Without rotation: a row with a slice whose counter could not be
	 * read is estimated from its other slices, as one group's
	 * (est_fn[0], metric_index[]); est_fields: JSON and CSV have the
	 * coverage and error of every value (td_view_note_errors()).
	 */
	bool est_fields;
	struct td_col col[TD_MAX_COLS];
	int nr_cols;
	int nr_keys;		/* the first nr_keys columns identify a bucket */
	int sort_col;
	bool ascending;
	size_t limit;		/* rows to print, 0: all */
	/* top: counts in one unit per column (K/M/G), run time as %CPU of
	 * interval_ns, the Level-1 metrics' short titles, lines cut at
	 * width.
	 */
	bool compact;
	uint64_t interval_ns;
	int width;
	struct td_table_opts opts;
	/* --by cgroup on the live system: the cgroup v2 path of an id, NULL
	 * where it does not resolve (live/cgpath.h); NULL for a record file.
	 */
	const char *(*cgroup_path)(uint64_t id);
};

/* Columns for this --by, config and decoder (NULL if none); sorted
 * by the "cycles" event (td_cycles_event), descending.
 */
void td_view_init(struct td_view *v, enum td_by by,
		  const struct topdown_config *cfg,
		  const struct td_decoder *dec);

/*
 * The decoders of a configuration as its label and events say, for a
 * view (td_view_init_cfg()). Without groups, or with one (which never
 * rotates: its records are those of a configuration of the group's
 * events in delta order), cfg is that configuration and dec its decoder;
 * with two or more groups, gd. can_decode false: the label does not
 * decode here (a warning said so; raw counts only).
 */
struct td_view_cfg {
	struct topdown_config cfg;
	bool rotated;
	bool can_decode;
	struct td_decoder dec;
	struct td_gdecoder gd;
};

/* Fill vc from cfg; 0, or -1 after p_err() (a configuration that is
 * not one: bad groups).
 */
int td_view_cfg_init(struct td_view_cfg *vc, const struct topdown_config *cfg);

/*
 * The view of vc (which must outlive it): td_view_init() without
 * rotation; with rotated groups, the pool's counts and the hierarchy of
 * every group's metrics (td_gdecoder_tree()), estimated. max_level 1
 * leaves the metrics below Level 1 out (0: all).
 */
void td_view_init_cfg(struct td_view *v, enum td_by by,
		      const struct td_view_cfg *vc, int max_level);

/* What td_agg_add() needs for this view: td_agg_groups() (a view
 * without rotation as one group, whose estimates leave out the slices
 * with an unreadable counter). 0, or -1 out of memory.
 */
int td_view_agg(const struct td_view *v, struct td_agg *a);
/*
 * Before printing a: once a slice with an unreadable counter is in it,
 * the view's JSON and CSV have coverage and error as a rotated view's
 * (and keep them: a CSV header is printed once). True when they have.
 */
bool td_view_note_errors(struct td_view *v, const struct td_agg *a);

/* The counts and metrics of row (of a or its total), and the bottleneck
 * path. With rotated groups, call td_agg_finish() first.
 */
void td_view_values(const struct td_view *v, const struct td_agg *a,
		    const struct td_bucket *row, struct td_row_vals *out);
/* Index of the event to sort by: the first whose name contains "cyc"
 * (cycles, CPU_CYCLES, ls_not_halted_cyc), else the first event (e.g.
 * cpu-clock of the software set).
 */
int td_cycles_event(const struct topdown_config *cfg);
/* Column by name: an event's or metric's name, a column's plain title
 * as the tables print it (in any case: IPC, BACKEND.MEM_BOUND, RUN_MS,
 * %CPU), its JSON name (pid, slices, runtime_ns, ...) or time, cgroup,
 * cycles (the sort event). -1 if none.
 */
int td_view_col(const struct td_view *v, const char *name);

/* --sort NAME (NULL: keep the default, td_view_col()): key columns sort
 * ascending, the others descending. -1 after p_err() listing every word
 * it takes, by column.
 */
int td_view_sort_by(struct td_view *v, const char *name);

/* The TopDown Level-1 metric names, in td_view.l1 order. */
extern const char *const td_l1_names[4];

/* The buckets in display order (malloc()ed array of n pointers). */
const struct td_bucket **td_view_sort(const struct td_view *v,
				      const struct td_agg *a, size_t *n);

/* td_table_out.legend: the marks' legend under a plain table. */
enum td_legend {
	TD_LEGEND_TOTAL,	/* with the total row, not compact (report, stat) */
	TD_LEGEND_FULL,		/* always, report's lines (top --batch) */
	TD_LEGEND_LINE,		/* one line of short ones, cut at the view's
				 * width, clearing to its end (top on a
				 * terminal)
				 */
};

struct td_table_out {
	bool header;		/* the header first (plain, CSV) */
	bool total;		/* plain: the total row (JSON, CSV: always) */
	enum td_legend legend;
	unsigned int time_in;	/* TD_IN_* formats with a time_s column */
	double time_s;
};

/* The buckets in the output format (output/emit.h): a plain table, CSV
 * ("type,[time_s,]keys...,slices,runtime_ns,read_errors,events...,
 * metrics...": the buckets' rows, of type "group" (the CSV's word for
 * them, an interface), then one of type "total"; the
 * cgroup key is two fields, cgroup_id and cgroup, the path or empty),
 * or JSON ("rows": [...], "total": {...} in the object being written).
 *
 * Plain tables show metrics before the event counts and mark the largest
 * TopDown Level-1 class of each row with '*', the likely bottleneck (as
 * toplev marks it); in top (compact), the Level-1 classes have short
 * titles (RETIRING, BAD_SPEC, FRONTEND, BACKEND) unless an event has that
 * name, every other column its full name.
 */
void td_table_print(FILE *f, const struct td_view *v, const struct td_agg *a,
		    const struct td_table_out *o);

#endif
