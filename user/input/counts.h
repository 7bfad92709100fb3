/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counts tdctl decode reads, from outside: EVENT=COUNT arguments, or
 * lines on stdin as perf stat (-j, -x SEP, plain, -I) or tdctl (JSON
 * lines, dump --json) print them; perfstat.c describes each form.
 *
 *   perfstat.c  the parsers, summed into struct decode_in: one sum per
 *               interval of perf stat -I, or one for the whole input
 *   pool.c      the events the input may name (the set's, or the pool
 *               of the groups --level 2 or -M take) and, once read, the
 *               groups kept and the intervals that lack a count
 *   slices.c    the slices of a dump --json of a record file with event
 *               groups, each told to the caller with its group, to
 *               estimate from as report does (struct decode_slice)
 *
 * Every parser of outside input has a fuzz target: these are
 * selftests/fuzz/fuzz_decode.c's (through cmd/decode.c's decode_run()).
 */
#ifndef TDCTL_INPUT_COUNTS_H
#define TDCTL_INPUT_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/topdown.h>

#include "evset/sets.h"

/* perf stat -I prints its time first as %lu.%09lu: room for it. */
#define IVL_TIME_LEN	32

/* The counts of one interval of perf stat -I, or of the whole input. */
struct decode_ivl {
	char time[IVL_TIME_LEN];	/* perf's text; "" without -I */
	uint64_t counts[TOPDOWN_MAX_POOL];
	bool seen[TOPDOWN_MAX_POOL];
	int lines;			/* lines that gave counts */
};

/* perfstat.c's sums of perf's counts before they go into the intervals */
struct perf_count;
/* slices.c's names of a dump's events, looked up once */
struct slice_name;

/*
 * One slice of tdctl dump --json of a record file with event groups (a
 * slice with a "group"): measured by one group, which counted its events
 * only, or rotated (no group). Such slices are not summed into the
 * intervals: each is handed to decode_in.slice, in the dump's order, to
 * estimate from as report does (coverage, error: agg/estimate.h).
 */
struct decode_slice {
	uint32_t cpu, pid, tid;
	uint64_t time_ns, duration_ns;
	/* The group of decode_in_events() (0 without groups: the set's
	 * events) whose events the slice counted, in that group's order;
	 * -1: none of them (rotated, or another group of the set).
	 */
	int group;
	bool rotated;
	bool error;		/* a count of the slice could not be read */
	uint32_t unread;	/* bit j: delta[j] could not be read */
	uint64_t delta[TOPDOWN_MAX_EVENTS];
};

/*
 * What was read. The caller sets s, level, mg, sep and timed = -1, then
 * the events (decode_in_events()); the parsers fill the rest, and
 * decode_in_free() frees what they allocated.
 */
struct decode_in {
	const struct td_set *s;
	int level;		/* --level (0: 1) */
	const char *mg;		/* -M GROUP[,GROUP..], or NULL */
	/* the events: the set's, or the pool of its groups */
	int nr_ev;
	const struct td_ev_tmpl *ev[TOPDOWN_MAX_POOL];
	/* the groups taken (none: the set's events), as decode_in_events()
	 * gave them, with the set's group of each
	 */
	int nr_groups;
	struct topdown_group groups[TOPDOWN_MAX_GROUPS];
	const struct td_grp *grp[TOPDOWN_MAX_GROUPS];
	/* A dump of a file with groups: each slice, to slice(slice_ctx, s)
	 * (set by the caller); how many were read, rotated, of a group not
	 * taken; the names of its events seen (slices.c).
	 */
	void (*slice)(void *ctx, const struct decode_slice *s);
	void *slice_ctx;
	int slices, rotated, other_group;
	struct slice_name *sn;
	int nr_sn, sn_cap;
	struct perf_count *pc;	/* hash table, open addressing */
	size_t pc_cap, pc_used;
	struct decode_ivl *ivl;	/* one, or one per perf stat -I interval */
	int nivl, ivl_cap;
	int timed;		/* -1 not yet known, 0 no times, 1 -I times */
	bool seen[TOPDOWN_MAX_POOL];	/* in any interval */
	char sep[16];		/* perf stat -x separator */
	int lines;		/* lines that gave counts */
	int skipped;		/* perf lines of other events */
	int unreadable;		/* dump slices with a count not read */
	bool scaled;		/* perf scaled a count (multiplexing) */
	bool zeroed[TOPDOWN_MAX_POOL];	/* <not counted> taken as 0 */
	char where[64];		/* "stdin line N: " */
};

/* The names of in's events, a list for a message, whole (td_str_add()):
 * malloc()ed, NULL if out of memory. decode_named(list) is what the
 * message shows.
 */
char *decode_in_names(const struct decode_in *in);
const char *decode_named(const char *list);

/* The counts of EVENT=COUNT arguments argv[0..argc), one interval; each
 * event at most once. 0, or -1 after p_err().
 */
int decode_in_args(struct decode_in *in, int argc, char **argv);

/* The counts of stdin's lines, in any of the forms (perfstat.c). 0, or
 * -1 after p_err(), also when no line gave a count of in's events.
 */
int decode_in_read(struct decode_in *in);

void decode_in_free(struct decode_in *in);

/* pool.c */

/*
 * The events of the selection (level, mg): the set's Level 1 events, or
 * the pool of the groups it takes (group 0's events first) and their
 * composition: groups[0..*nr_groups), their ids ("a,b") in ids. 0, or -1
 * after p_err().
 */
int decode_in_events(struct decode_in *in, int level, const char *mg,
		     struct topdown_group *groups, int *nr_groups,
		     char *ids, size_t idlen);

/* Keep the groups k of g[0 .. *nr_groups) with keep[k] (their ids in
 * ids); error if none is left. 0, or -1 after p_err().
 */
int decode_in_keep_groups(const struct decode_in *in, struct topdown_group *g,
			  int *nr_groups, char *ids, size_t idlen,
			  const bool *keep);

/* The metrics left out: those that read a count given nowhere. */
struct decode_leftout {
	int n;
	const char *name[TD_MAX_TREE];
};

bool decode_left_out(const struct decode_leftout *lo, const char *name);

/*
 * Which metrics the counts given decide (td_gdecode_needs()), group by
 * group of gd (every group taken; names[] its pool, the optional events
 * given nowhere left out): a group none of whose metrics they decide is
 * left out (keep[k] false); the other groups' metrics that read a count
 * given nowhere go into lo. Each is said, say(ctx, text), with exactly
 * the events it lacks.
 */
void decode_in_given(const struct decode_in *in, const struct td_gdecoder *gd,
		     const char names[][TOPDOWN_NAME_LEN], bool *keep,
		     struct decode_leftout *lo,
		     void (*say)(void *ctx, const char *text), void *ctx);

/* Does interval iv lack a count the formulas of the groups g (without
 * groups: the set's) need and another interval has? *list is then those
 * events (malloc()ed; NULL if out of memory).
 */
bool decode_in_missing(const struct decode_in *in, const struct decode_ivl *iv,
		       const struct topdown_group *g, int nr_groups,
		       const char *ids, char **list);

#endif
