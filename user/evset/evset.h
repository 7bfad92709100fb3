/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event sets: which events tdctl programs on which CPUs, and how the raw
 * deltas of a record turn into the TopDown breakdown. This is the policy
 * half of topdown; the module only counts what it is told.
 *
 *   detect  - what CPU/PMUs this machine has (td_detect)
 *   plan    - which set to use and the concrete events for the module
 *             (td_plan_for), with a human-readable reason
 *   label   - the plan is summarised in the module's opaque config label
 *             (e.g. "set=arm_neoverse_n2 slots=5 rev=r0p0"), so any later
 *             reader can rebuild the decoder (td_decoder_from_label)
 *   decode  - counts -> metrics (td_decode), from summed 64-bit deltas
 */
#ifndef TDCTL_EVSET_H
#define TDCTL_EVSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/topdown.h>

#define TD_MAX_CPUS		8192
#define TD_CPU_WORDS		(TD_MAX_CPUS / 64)
#define TD_MAX_METRICS		24

/* What td_detect() found; the layout is private to evset.c & friends. */
struct td_cpu_info;

/* Allocate and fill from the machine. root is "" for the live system or a
 * directory holding a fake /proc and /sys for tests. NULL on error with a
 * message in err.
 */
struct td_cpu_info *td_detect(const char *root, char *err, size_t errlen);
void td_cpu_info_free(struct td_cpu_info *ci);

/* Pool entry i (0 .. cfg->nr_events - 1) of a configuration: events[i]
 * or more_events[i - TOPDOWN_MAX_EVENTS] (include/uapi/linux/topdown.h,
 * "Groups and rotation").
 */
static inline struct topdown_event *td_pool_event(struct topdown_config *c,
						  unsigned int i)
{
	return i < TOPDOWN_MAX_EVENTS ? &c->events[i] :
	       &c->more_events[i - TOPDOWN_MAX_EVENTS];
}

static inline const struct topdown_event *
td_pool_event_c(const struct topdown_config *c, unsigned int i)
{
	return i < TOPDOWN_MAX_EVENTS ? &c->events[i] :
	       &c->more_events[i - TOPDOWN_MAX_EVENTS];
}

/* One concrete event for the module. */
struct td_evsel {
	char name[TOPDOWN_NAME_LEN];
	uint32_t type;		/* perf type id, resolved from sysfs */
	uint32_t flags;		/* TOPDOWN_EVENT_* */
	uint64_t config, config1, config2;
	bool all_cpus;		/* true: cpus[] is ignored */
	uint64_t cpus[TD_CPU_WORDS];
};

/* Events counted together (include/uapi/linux/topdown.h, "Groups and
 * rotation"): indexes into td_plan.ev[], in the order of a record's
 * delta[] for this group.
 */
struct td_plan_group {
	char name[TOPDOWN_NAME_LEN];	/* e.g. perf's metric group it serves */
	int nr;
	int ev[TOPDOWN_MAX_EVENTS];
};

struct td_plan {
	char set[TOPDOWN_NAME_LEN];	/* the set's name */
	char label[TOPDOWN_LABEL_LEN];	/* goes into topdown_config.label */
	/* one line: why this set (a fit's reason of 256 and a prefix) */
	char why[288];
	int nr_events;			/* events, or the pool with groups */
	struct td_evsel ev[TOPDOWN_MAX_POOL];
	/* 0: one group of ev[0 .. nr_events - 1] (Level 1, no rotation) */
	int nr_groups;
	struct td_plan_group groups[TOPDOWN_MAX_GROUPS];
	unsigned int rotate_ms;		/* 0: the module's default */
};

/* Pick a set (set_name NULL: automatically) and resolve its events for
 * this machine. Returns 0, or -1 with a message in err (unknown name, set
 * that does not fit this CPU: the message lists the valid ones).
 * Level 1 only: the plan has no groups (td_plan_select() with sel NULL).
 */
int td_plan_for(const struct td_cpu_info *ci, const char *set_name,
		struct td_plan *plan, char *err, size_t errlen);

/*
 * What to count below Level 1 (tdctl load --level, -M). A set's groups
 * are listed by td_set_groups(); see "Levels and groups" below.
 *   level 1, no metric groups: Level 1 alone, no groups, no rotation
 *                              (the plan of td_plan_for())
 *   level 2:                   group 0 and every group of the set that
 *                              Level 2 includes
 *   metric_groups "A,B":       group 0 and every group with a metric in
 *                              one of perf's metric groups A, B (perf's
 *                              names, any case: TopdownL2,
 *                              tma_backend_bound_group, PipelineL2,
 *                              DTLB_Effectiveness...); both add up
 * The plan then has nr_groups >= 1, its pool in ev[] (group 0's events
 * first), and a label with g= naming the groups (td_gdecoder_init).
 */
struct td_select {
	int level;			/* 0 or 1: Level 1; 2 */
	const char *metric_groups;	/* comma-separated, NULL: none */
	unsigned int rotate_ms;		/* into td_plan.rotate_ms */
};

/* td_plan_for() with a selection (sel NULL: Level 1). A selection the
 * set cannot serve here (no such metric group, groups this CPU model
 * lacks, more than TOPDOWN_MAX_GROUPS groups or TOPDOWN_MAX_POOL events)
 * is refused with the reason and what would work.
 */
int td_plan_select(const struct td_cpu_info *ci, const char *set_name,
		   const struct td_select *sel, struct td_plan *plan,
		   char *err, size_t errlen);

/* An event set of that name exists (whether or not it fits here). */
bool td_set_exists(const char *name);

/* Resolve perf's event syntax (tdctl load --events: "cycles,instructions:u",
 * "rNNNN", "PMU/event=..,umask=../", ...) for this machine into a plan of
 * set "events" whose label tells readers what the counts decode to. root
 * as for td_detect() (the PMUs' format/ and events/ files are read there).
 * Returns 0, or -1 with a message in err.
 */
int td_plan_events(const struct td_cpu_info *ci, const char *root,
		   const char *spec, struct td_plan *plan, char *err,
		   size_t errlen);

/* perf's hardware and software event names, i from 0 until NULL (for
 * completion).
 */
const char *td_event_name(int i);

struct td_metric {
	const char *name;	/* e.g. "retiring", "ipc", "frontend_bound" */
	double value;		/* fractions in 0..1 for TopDown classes */
	bool flagged;		/* outside its valid range (skid), shown as is */
	bool valid;		/* false: not computable (e.g. zero cycles) */
};

struct td_metrics {
	int n;
	struct td_metric m[TD_MAX_METRICS];
};

/* A decoder for counts in a known event order. */
struct td_decoder {
	const void *family;	/* private */
	int nr_events;
	int idx[TOPDOWN_MAX_EVENTS];	/* private: role -> position */
	unsigned int slots;
	unsigned int revision;	/* private: e.g. Arm rXpY as (X << 4) | Y */
	char set[TOPDOWN_NAME_LEN];
	const void *grp;	/* private: the group decoded, NULL: the set */
};

/* Build a decoder from a config label and the event names in the order
 * the module counts them. An unknown or malformed label gives -1 and a
 * message; the caller can still show raw counts.
 */
int td_decoder_from_label(struct td_decoder *d, const char *label,
			  const char names[][TOPDOWN_NAME_LEN], int nr,
			  char *err, size_t errlen);

/* The same for counts given by hand (`tdctl decode`): an event that no
 * TopDown metric reads (td_ev_tmpl.optional) may be missing from names
 * (an empty name); the metrics that need it are left out.
 */
int td_decoder_partial(struct td_decoder *d, const char *label,
		       const char names[][TOPDOWN_NAME_LEN], int nr,
		       char *err, size_t errlen);

/* Is the metric a share of slots or cycles (printed as a percentage,
 * flagged outside 0..1)? Every TopDown class is; ipc, the one ratio the
 * decoders produce (td_put_ipc), is not.
 */
bool td_metric_is_fraction(const char *name);

/* counts[i] is the (summed) delta of event i. Never fails: metrics that
 * cannot be computed are marked !valid.
 */
void td_decode(const struct td_decoder *d, const uint64_t *counts,
	       struct td_metrics *out);

/* ---- Levels and groups ------------------------------------------------
 *
 * Below Level 1 a set has more events than the PMU has counters, so it
 * counts them in groups that the module rotates between slices
 * (include/uapi/linux/topdown.h, "Groups and rotation"). The contract
 * every reader builds on:
 *
 *  - A configuration has groups 0 .. nr_groups - 1; one without groups
 *    (nr_groups 0, every VER0 configuration) is one group of all its
 *    events. A record belongs to group TOPDOWN_REC_GROUP(flags), and its
 *    delta[j] counts that group's j-th event.
 *  - Each metric has exactly one group, its home: it is computed from
 *    the counts of that group alone (the deltas of that group's records,
 *    summed over the same slices), normalised by that group's own anchor
 *    (slots or cycles, counted in the group). Nothing here combines two
 *    groups, scales a count or estimates coverage or error: that is the
 *    reader's (the deltas of one group, summed, go to td_gdecode()).
 *  - Group 0 is the Level 1 group: it holds the set's Level 1 events and
 *    is the home of the Level 1 metrics (and of Level 2 metrics whose
 *    events fit beside them). A Level 2 group holds the Level 1 events of
 *    the class its metrics are shares of, so that it normalises itself,
 *    as toplev does: e.g. intel_icl's backend group counts
 *    TOPDOWN.SLOTS_P and TOPDOWN.BACKEND_BOUND_SLOTS beside the memory
 *    events, and memory_bound comes out as perf computes it, from that
 *    group alone.
 *  - The label (set=NAME [slots=N] [rev=rXpY] g=ID,ID,...) names the
 *    set's groups in configuration order (the Level 1 group first in a
 *    plan, td_plan_select()); with the pool's event names and
 *    the groups' composition (both in the configuration) any reader
 *    rebuilds the decoders: td_gdecoder_init(). A label without g= is a
 *    configuration without groups; td_decoder_from_label() refuses a g=
 *    label (its records must be told apart by group first).
 *  - Metrics: struct td_metric_info. A Level 2 metric with a parent is a
 *    share of the pipeline slots that is part of its Level 1 parent class
 *    (perf's and toplev's tree): on the same slices, children sum to the
 *    parent; measured by different groups they need not. A Level 2 metric
 *    without parent is a drill-down (Arm's stage 2 groups: miss ratios,
 *    MPKI, operation mix) that explains, not divides, Level 1.
 */

/* What a metric is a number of. */
enum td_unit {
	TD_UNIT_SLOTS,		/* share of the pipeline slots (TopDown) */
	TD_UNIT_CYCLES,		/* share of the cycles */
	TD_UNIT_SHARE,		/* share of another count (miss ratio, mix) */
	TD_UNIT_PER_CYCLE,	/* per cycle (ipc) */
	TD_UNIT_PKI,		/* per 1000 instructions (MPKI) */
};

struct td_metric_info {
	const char *name;	/* tdctl's, e.g. "fetch_latency" */
	const char *perf_name;	/* perf's MetricName for this set's CPUs
				 * ("tma_fetch_latency"), NULL: none
				 */
	const char *perf_groups;/* perf's MetricGroup of it, ';'-separated
				 * (what -M selects it by), NULL: none
				 */
	const char *parent;	/* the Level 1 class it is a share of, NULL */
	int level;		/* 1 or 2 */
	enum td_unit unit;
	bool fraction;		/* 0..1: printed as a percentage, flagged
				 * outside (SLOTS, CYCLES, SHARE)
				 */
};

/* Level 1 and every known metric, by name (NULL if unknown). */
const struct td_metric_info *td_metric_info(const char *name);

#define TD_MAX_GROUP_METRICS	16

/* One group of a configuration, as td_gdecoder_init() rebuilt it. */
struct td_gd_group {
	char name[TOPDOWN_NAME_LEN];	/* the set's group ("backend") */
	char id[8];			/* its label id ("be") */
	int level;			/* 1: group 0; 2 */
	int nr_events;
	int pool[TOPDOWN_MAX_EVENTS];	/* delta[j] counts pool entry pool[j] */
	int anchor;			/* j of the event that normalises the
					 * group (slots, cycles), -1: none
					 */
	int nr_metrics;			/* what td_gdecode() gives, in order */
	const struct td_metric_info *metrics[TD_MAX_GROUP_METRICS];
	struct td_decoder dec;		/* private */
};

struct td_gdecoder {
	char set[TOPDOWN_NAME_LEN];
	bool grouped;		/* false: no groups (nr_groups 0), one
				 * group 0 of every event
				 */
	int nr_pool;
	char pool[TOPDOWN_MAX_POOL][TOPDOWN_NAME_LEN];
	int nr_groups;		/* >= 1 */
	struct td_gd_group g[TOPDOWN_MAX_GROUPS];
};

/*
 * Rebuild the decoders of a configuration: its label, its pool's event
 * names (pool[i] is pool entry i: events[i], then more_events[]), and
 * its groups (nr_groups 0: one group of every pool entry, as VER0). 0,
 * or -1 with a message (unknown set, a group that is not one of the
 * set's, events missing or extra); the caller can still show raw counts.
 */
int td_gdecoder_init(struct td_gdecoder *gd, const char *label,
		     const char pool[][TOPDOWN_NAME_LEN], int nr_pool,
		     const struct topdown_group *groups, int nr_groups,
		     char *err, size_t errlen);

/* The same from a configuration as the module holds it (size tells VER0
 * from VER1; names are read from events[] and more_events[]).
 */
int td_gdecoder_from_config(struct td_gdecoder *gd,
			    const struct topdown_config *cfg,
			    char *err, size_t errlen);

/*
 * Group g's metrics from its summed deltas (delta[j]: the group's j-th
 * event, TOPDOWN_MAX_EVENTS entries readable). out->m[i] is the metric
 * gd->g[g].metrics[i]; it is !valid where its anchor or another
 * denominator is 0. Never fails; g out of range gives no metrics.
 */
void td_gdecode(const struct td_gdecoder *gd, int g, const uint64_t *delta,
		struct td_metrics *out);

/*
 * Which of group g's metrics need counts that are missing: bit j of
 * missing is the group's j-th event, without a count (delta[j] is not
 * read). out gets the metrics as td_gdecode() gives them, needs[i]
 * (TD_MAX_METRICS entries) the missing events metric i reads: 0 when the
 * counts given decide it (out->m[i] is then its value). A decoder is a
 * function of its counts, so a metric reads an event when its value or
 * validity moves with that count alone: each missing count is tried at
 * 0, below and above the counts given, the others held. Returns out->n.
 */
int td_gdecode_needs(const struct td_gdecoder *gd, int g, const uint64_t *delta,
		     uint32_t missing, struct td_metrics *out, uint32_t *needs);

/* The metric of that name in this configuration: its info and home group
 * (*group, *index into g[*group].metrics). NULL if no group computes it.
 */
const struct td_metric_info *td_gdecoder_find(const struct td_gdecoder *gd,
					      const char *name, int *group,
					      int *index);

/* The hierarchy, for tables: every metric of the configuration once, in
 * display order. Each Level 1 metric of the Level 1 group (group 0 in a
 * plan; in its order) comes with depth 0, followed by its Level 2
 * children (depth 1, whatever their group); then the drill-down metrics
 * (Level 2 without parent, depth 0) group by group.
 */
struct td_tree_node {
	int group;		/* home group */
	int index;		/* into gd->g[group].metrics */
	int depth;		/* 0 or 1 */
	const struct td_metric_info *info;
};

#define TD_MAX_TREE	(TOPDOWN_MAX_GROUPS * TD_MAX_GROUP_METRICS)

/* Fills up to max nodes; returns how many there are. */
int td_gdecoder_tree(const struct td_gdecoder *gd, struct td_tree_node *nodes,
		     int max);

/* The groups of a set, for `tdctl list` (i from 0 until it returns -1):
 * name, label id, level (1: group 0; 2), whether --level 2 includes it
 * (else only -M does), perf's metric groups it serves (';'-separated,
 * from its metrics), its events and metrics.
 */
struct td_group_desc {
	const char *name;
	const char *id;
	int level;
	bool in_level2;
	char perf_groups[512];
	const char *anchor;	/* the event that normalises it */
	int general_counters;	/* general-purpose counters it takes */
	const char *formula;	/* one line */
	int nr_events;
	const char *events[TOPDOWN_MAX_EVENTS];
	int nr_metrics;
	const struct td_metric_info *metrics[TD_MAX_GROUP_METRICS];
};

int td_set_group(const char *set, int i, struct td_group_desc *out);

#endif
