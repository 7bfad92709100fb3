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
	char why[256];			/* one line: why this set */
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
 */
int td_plan_for(const struct td_cpu_info *ci, const char *set_name,
		struct td_plan *plan, char *err, size_t errlen);

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

#endif
