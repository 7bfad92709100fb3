/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's per-task totals (TOPDOWN_IOC_TOTALS, "Totals" in the UAPI
 * header) as a reader uses them: a snapshot at the start of a session,
 * more while it runs, and what every task did since the start, exact
 * whatever the rings lost, or why not.
 *
 * The module folds an exited task's entry into a CPU's entry for slices
 * of no task when a new task needs its room. A fold loses nothing the
 * reader has already seen whole: an entry seen exited. A task seen alive
 * and then folded, or born and folded between two snapshots (the
 * generation counts more folds than the entries seen to go), or a task
 * that found no room makes the sums of the target's tasks inexact if it
 * was one of them; the first two are known only for tasks seen, so any
 * of the last two makes the whole inexact.
 */
#ifndef TDCTL_TOTALS_H
#define TDCTL_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/topdown.h>

#include "agg/aggregate.h"

struct td_live;

/* How often a reader takes a snapshot while collecting: often enough
 * that a task's entry is seen before the module folds it.
 */
#define TD_TOTALS_EVERY_MS	100

struct td_totals_snap {
	struct topdown_totals q;
	struct topdown_total *e;	/* 1 per CPU (OTHER), then tasks */
	uint32_t cap;			/* entries e has room for */
	const struct topdown_total **ix; /* the tasks' entries, sorted by
					  * (pid, start_ns)
					  */
	uint32_t n;
	uint32_t nr_cpus;
};

/* Does a task (a record of its fields) belong to the reader's target? */
typedef bool (*td_total_match_fn)(const struct topdown_record *r, void *ctx);

struct td_bpf_totals;
struct td_reader;

struct td_totals_track {
	int fd;				/* the module's device, or */
	struct td_bpf_totals *bpf;	/* the BPF backend's pool */
	struct td_totals_snap base;	/* at the start */
	struct td_totals_snap last;	/* the latest */
	struct topdown_total *gone;	/* entries seen, folded since */
	struct topdown_total *spare;	/* the entries of a snapshot replaced, */
	uint32_t spare_cap;		/* for the next (td_dev_totals()) */
	uint32_t nr_gone, cap_gone;
	uint64_t folds;			/* generation's growth since base */
	uint64_t moved;			/* tasks that changed cgroup since
					 * base (their totals are all in
					 * the last one's)
					 */
	bool moves_unknown;		/* a module without cgroup_moves */
	const char *why;		/* the first reason not to be exact */
	char why_buf[96];
	td_total_match_fn match;
	void *ctx;
};

/* Every task is of the target (the match of a reader of every task). */
bool td_total_match_all(const struct topdown_record *r, void *ctx);

/* Take the first snapshot of the module's totals at @fd: 0, -ENODATA
 * when the module keeps none, or another -errno.
 */
int td_totals_track_start(struct td_totals_track *t, int fd,
			  td_total_match_fn match, void *ctx);
/* The same for the backend of the reader @rd, the module or BPF. */
int td_totals_track_open(struct td_totals_track *t, const struct td_reader *rd,
			 td_total_match_fn match, void *ctx);
/* Another snapshot (while collecting: often enough that entries are seen
 * before they are folded). A failure sets t->why.
 */
void td_totals_track_update(struct td_totals_track *t);
void td_totals_track_free(struct td_totals_track *t);

/* The idle tasks in td_totals_track_diff(): not, one per CPU, or summed. */
enum td_totals_idle {
	TD_TOTALS_IDLE_NONE, TD_TOTALS_IDLE_PER_CPU, TD_TOTALS_IDLE_SUMMED,
};

/*
 * For every task with slices since the start (the latest snapshot's and
 * those folded since), fn gets a record holding the task's fields at its
 * last slice, its time and group 0's deltas summed since the start (no
 * flag but TOPDOWN_REC_IDLE), the number of those slices, and the slices
 * of them no group measured whole (a rotated group's, or with an
 * unreadable counter: not in the record's sums). With idle, the idle
 * tasks come as pid 0 (TOPDOWN_REC_IDLE, in cgroup root_cgroup), from
 * the CPUs' entries for slices of no task. PER_CPU: one on each CPU,
 * from its entry, which is theirs alone when nothing was folded:
 * otherwise t->why says that the idle tasks' share is not known. SUMMED:
 * one, on CPU 0, what the CPUs' entries grew by less the entries folded
 * since (seen whole: otherwise t->why says so).
 */
typedef void (*td_total_fn)(const struct topdown_record *r, uint64_t slices,
			    uint64_t unmeasured, void *ctx);
void td_totals_track_diff(struct td_totals_track *t, enum td_totals_idle idle,
			  uint64_t root_cgroup, td_total_fn fn, void *ctx);

/*
 * Another snapshot, and what changed since the one before it, for a
 * reader that keeps running sums (serve): fn gets, for each task with
 * slices since then, the difference of its entry (every field counting
 * up: slices, times, every group's sums; the others as now), then once
 * the difference of the CPUs' TOPDOWN_TOTAL_OTHER entries together (kind
 * OTHER, the rest 0) less what fn had of the tasks folded since: the
 * idle tasks' slices and those of tasks that found no room or were
 * folded before a snapshot saw their last slices. So the differences
 * add up to the CPUs' growth, exactly. 0, or -errno when
 * the totals could not be read (-ESTALE: the module was configured
 * again); the snapshot before stays then.
 */
typedef void (*td_total_step_fn)(const struct topdown_total *d, void *ctx);
int td_totals_track_step(struct td_totals_track *t, td_total_step_fn fn,
			 void *ctx);

/*
 * The rows of a live session (stat, top) from the totals: why the totals
 * cannot stand for the records of @l (its backend, its groups) with the
 * filters @f and --by @by, or NULL (also when the module keeps none: see
 * td_totals_begin()).
 */
const char *td_totals_unusable(const struct td_live *l,
			       const struct td_filter *f, enum td_by by);
/*
 * Start tracking the totals for those rows when the module keeps them:
 * true when tracked; else false and *why says why they cannot be used,
 * NULL when the module keeps none.
 */
bool td_totals_begin(struct td_totals_track *t, const struct td_live *l,
		     const struct td_filter *f, enum td_by by,
		     td_total_match_fn match, void *ctx, const char **why);
/*
 * Another snapshot, and the rows of what the target's tasks (t->match)
 * did since the base one added to @a (td_agg_init()ed for its --by, and
 * td_view_agg()), each task in the cgroup of its last slice: NULL when
 * they are exact, else why not (the rows are then not to be shown). With
 * idle, the idle tasks' rows too: one per CPU, which folds since the
 * base make unknown, or with --by cgroup one, the root cgroup's, which
 * they do not. cgroups: the rows or the target are cgroups, so a task of
 * the target that moved to another cgroup makes them inexact.
 */
const char *td_totals_rows(struct td_totals_track *t, struct td_agg *a,
			   bool idle, uint64_t root_cgroup, bool cgroups);
/*
 * The latest snapshot becomes the base: what comes next is counted from
 * it, and t->why and the moves are forgotten (top's intervals). 0, or
 * -ENOMEM.
 */
int td_totals_track_rebase(struct td_totals_track *t);

#endif
