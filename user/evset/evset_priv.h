/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private half of the event-set code: the formula families, the sets of
 * each vendor file, the helpers of the decoders and of detection, shared
 * by the files of evset/. Nothing outside evset/ includes this (the host
 * tests excepted; make lint checks it); what the commands read of the
 * sets and of the detected CPU is evset/sets.h.
 */
#ifndef TDCTL_EVSET_PRIV_H
#define TDCTL_EVSET_PRIV_H

#include "evset/evset.h"
#include "evset/sets.h"

/* A formula family: one decoder, the roles it reads. */
struct td_family {
	const char *name;
	int nr_roles;
	td_decode_fn decode;
};

/*
 * A metric of a group's counts, for groups of plain ratios
 * (td_fam_ratios): (sign[0] * num[0] + sign[1] * num[1] + ...) * scale /
 * (den[0] + den[1]), of roles; the terms end at the first -1 (num[0] and
 * den[0] are always there).
 */
#define TD_RATIO_TERMS	3

struct td_ratio {
	const char *name;
	int num[TD_RATIO_TERMS];
	int sign[TD_RATIO_TERMS];	/* 1 or -1 */
	int den[2];
	unsigned int scale;
};

/* The family of groups whose metrics are their td_grp.ratios. */
extern const struct td_family td_fam_ratios;

/* The sets, defined in the per-vendor files. */
extern const struct td_set td_set_intel_snb, td_set_intel_skl,
	td_set_intel_icl, td_set_intel_spr, td_set_intel_adl_hybrid,
	td_set_amd_zen4, td_set_amd_zen5, td_set_arm_neoverse_n2,
	td_set_arm_neoverse_v1, td_set_arm_neoverse_v2,
	td_set_arm_neoverse_n3, td_set_arm_neoverse_v3,
	td_set_arm_stall_cycles, td_set_generic, td_set_software;

/* The PMU a template's TD_PMU_* selects on this machine, or NULL. */
const struct td_pmu *td_sel_pmu(const struct td_cpu_info *ci,
				enum td_pmu_sel sel);
/* The PMU counts on every possible CPU (no cpus file, or all of them). */
bool td_pmu_covers_all(const struct td_cpu_info *ci, const struct td_pmu *p);

/* The pseudo set of an --events collection (events.c), not in td_sets. */
extern const struct td_set td_set_events;

/* A name perf knows for this CPU (case-insensitive): an alias in a core
 * PMU's events/ directory under root, or an event of a set that fits.
 * The hook for further tables of perf's names. 0 with e's type, config*
 * and CPUs set, or -1 with a message in err.
 */
int td_event_alias(const struct td_cpu_info *ci, const char *root,
		   const char *name, struct td_evsel *e, char *err,
		   size_t errlen);

/* The plan of set s (evset.c): its name and label (td_plan_label), then
 * its events without groups (td_plan_set); plan->why is left as it is.
 * 0, or -1 with err.
 */
int td_plan_label(const struct td_cpu_info *ci, const struct td_set *s,
		  struct td_plan *plan, char *err, size_t errlen);
int td_plan_set(const struct td_cpu_info *ci, const struct td_set *s,
		struct td_plan *plan, char *err, size_t errlen);
/* The decoder of a set's label, not "set=events" (evset.c; plan.c's
 * td_decoder_from_label() takes both): partial as td_decoder_partial().
 */
int td_set_decoder(struct td_decoder *d, const char *label,
		   const char names[][TOPDOWN_NAME_LEN], int nr, bool partial,
		   char *err, size_t errlen);

/* One event of perf's syntax (tok, modified in place) into e, its name
 * the text as written or its name= term (event_parse.c): 0, or -1 with a
 * message in err.
 */
int td_parse_event(const struct td_cpu_info *ci, const char *root,
		   char *tok, struct td_evsel *e, char *err, size_t errlen);

/* The decoder of a "set=events ..." label for nr events (events.c). */
int td_events_decoder(struct td_decoder *d, const char *label, int nr,
		      char *err, size_t errlen);

/* The groups of a selection into plan (label and set already there):
 * 0, 1 when the selection is Level 1 alone (no groups), -1 with err.
 */
int td_plan_groups(const struct td_cpu_info *ci, const struct td_set *s,
		   const struct td_select *sel, struct td_plan *plan,
		   char *err, size_t errlen);
/* Resolve a template's perf type and CPUs on this machine. */
int td_tmpl_resolve(const struct td_cpu_info *ci, const struct td_set *s,
		    const struct td_ev_tmpl *t, struct td_evsel *e, char *err,
		    size_t errlen);

/* Label items of a set's label (evset.c). */
struct td_label {
	const struct td_set *s;
	bool have_slots, have_rev;
	unsigned int slots, rev;
	int nr_groups;			/* ids in g=, 0: none */
	const struct td_grp *groups[TOPDOWN_MAX_GROUPS];
};

int td_label_parse(const char *label, struct td_label *l, char *err,
		   size_t errlen);
/* A well-formed "set=events ..." label (evset/events.c decodes it). */
bool td_label_is_events(const char *label, char *err, size_t errlen);
/* Map names (nr, in counting order) onto the roles of the templates ev
 * (nev): d->idx[role] = position. partial: an optional template may be
 * missing (an empty name). 0, or -1 with a message.
 */
int td_decoder_map(struct td_decoder *d, const char *what,
		   const struct td_ev_tmpl *ev, int nev,
		   const char names[][TOPDOWN_NAME_LEN], int nr, bool partial,
		   char *err, size_t errlen);
/* Set d's label parameters (slots, revision) and set from l. */
void td_decoder_params(struct td_decoder *d, const struct td_label *l);

/* Helpers for decoders. */
static inline bool td_has(const struct td_decoder *d, int role)
{
	return d->idx[role] >= 0;
}

static inline uint64_t td_cnt(const struct td_decoder *d, const uint64_t *c,
			      int role)
{
	return d->idx[role] >= 0 ? c[d->idx[role]] : 0;
}

/* Append a metric num/den (exact 128-bit integers). TopDown fractions are
 * flagged when outside [0, 1]; den == 0 makes it !valid.
 */
void td_put_ratio(struct td_metrics *out, const char *name, __int128 num,
		  unsigned __int128 den, bool fraction);
/* Append a metric computed in long double. */
void td_put_value(struct td_metrics *out, const char *name, long double v,
		  bool valid, bool fraction);
/* "ipc" = instructions / cycles. */
void td_put_ipc(struct td_metrics *out, uint64_t instructions,
		uint64_t cycles);

#endif
