/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event sets and the detected CPU as the commands read them (tdctl
 * list shows them, decode looks events up in them, completion names
 * them): the table of sets with their events, titles, formulas and
 * sources, what td_detect() found, and the formatting helpers of both.
 * The formula families and the decoders' helpers stay in evset_priv.h.
 */
#ifndef TDCTL_EVSET_SETS_H
#define TDCTL_EVSET_SETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evset/evset.h"

#define TD_MAX_PMUS		64
#define TD_PMU_NAME_LEN		64

/* One /sys/bus/event_source/devices/<name> entry. */
struct td_pmu {
	char name[TD_PMU_NAME_LEN];
	uint32_t type;
	bool core;		/* a CPU core PMU (cpu, cpu_core, armv8_...) */
	bool has_cpus;		/* a "cpus" file was there */
	int nr_cpus;		/* CPUs in cpus[] */
	uint64_t cpus[TD_CPU_WORDS];
	bool has_slots;		/* a caps/slots file was there */
	unsigned int slots;	/* caps/slots, 0 if absent or zero */
	char pmu_name[32];	/* caps/pmu_name, "" if absent */
};

enum td_arch {
	TD_ARCH_UNKNOWN,
	TD_ARCH_X86,
	TD_ARCH_ARM64,
};

struct td_cpu_info {
	enum td_arch arch;
	char vendor[32];	/* x86 vendor_id ("GenuineIntel"), "" on arm */
	char model_name[96];	/* x86 "model name", "" if absent */
	bool has_fms;
	unsigned int family, model, stepping;
	bool has_midr;
	char midr_src[24];	/* "midr_el1" or "/proc/cpuinfo" */
	uint32_t midr;
	unsigned int implementer, variant, part, revision;
	bool midr_mixed;	/* not every CPU reports the same MIDR */
	int nr_cpus;		/* possible CPU ids: highest + 1 */
	uint64_t possible[TD_CPU_WORDS];
	int nr_pmus;
	struct td_pmu pmu[TD_MAX_PMUS];
	int main_pmu;		/* "cpu" or the first Arm core PMU, -1 */
	int core_pmu;		/* x86 hybrid cpu_core, -1 */
	int atom_pmu;		/* x86 hybrid cpu_atom, -1 */
};

/* How a template event gets its perf type. */
enum td_ev_kind {
	TD_EV_HW,		/* PERF_TYPE_HARDWARE, config = PERF_COUNT_HW_* */
	TD_EV_SW,		/* PERF_TYPE_SOFTWARE, config = PERF_COUNT_SW_* */
	TD_EV_RAW,		/* the selected PMU's sysfs type, raw config */
};

enum td_pmu_sel {
	TD_PMU_ANY,		/* HW/SW events: no particular PMU */
	TD_PMU_MAIN,		/* cpu / armv8_pmuv3* */
	TD_PMU_CORE,		/* cpu_core on hybrid */
	TD_PMU_ATOM,		/* cpu_atom on hybrid */
};

struct td_ev_tmpl {
	const char *name;	/* unique within the set, < TOPDOWN_NAME_LEN */
	int role;		/* the family's role index */
	enum td_ev_kind kind;
	enum td_pmu_sel pmu;
	uint64_t config;
	const char *encoding;	/* human-readable, for `tdctl list` */
	/* Other names of the same count, as perf prints them for the CPUs
	 * of the set (its pmu-events JSON names and the kernel's generic
	 * names), space-separated; matched case-insensitively. NULL: none.
	 */
	const char *aliases;
	/* `tdctl decode` does not require its count: the metrics that read
	 * it (IPC; AMD's fifth class smt_contention; Arm's
	 * sve_all_percentage) are left out without it.
	 */
	bool optional;
};

/* Score of a set on a machine. */
#define TD_FIT_NO	0	/* cannot be used here */
#define TD_FIT_MANUAL	1	/* works if asked for by name */
#define TD_FIT_AUTO	2	/* the specific set for this CPU */

struct td_set;
struct td_family;	/* the formula: evset_priv.h */
struct td_ratio;	/* a metric of a group of ratios: evset_priv.h */

typedef int (*td_match_fn)(const struct td_set *s,
			   const struct td_cpu_info *ci, char *why, size_t n);
typedef void (*td_decode_fn)(const struct td_decoder *d,
			     const uint64_t *c, struct td_metrics *out);

/*
 * A group of a set below Level 1 (evset.h, "Levels and groups"). Its
 * events are templates of their own (roles of its family); an event of
 * the same name in two groups of a set is the same event (same kind,
 * PMU and config: the host tests check it). groups[0] is the Level 1
 * group: every event of the set's Level 1 list, and its family computes
 * the set's Level 1 metrics first, as the set's own family does.
 */
/* Groups a set may have; a configuration takes at most
 * TOPDOWN_MAX_GROUPS of them (a selection of more is refused).
 */
#define TD_MAX_SET_GROUPS	16

struct td_grp {
	const char *name;	/* "backend", unique in the set */
	const char *id;		/* in the label's g=, 1..3 characters */
	int level;		/* 1: groups[0]; 2 */
	bool in_level2;		/* --level 2 includes it (else only -M) */
	const char *aliases;	/* more -M names (seed 003's), ' '-separated */
	const struct td_family *fam;
	int nr_events;
	const struct td_ev_tmpl *ev;
	const char *anchor;	/* the event normalising it */
	const char *formula;	/* one line for `tdctl list` */
	/* Offered on this CPU? NULL: wherever the set fits. */
	bool (*offered)(const struct td_cpu_info *ci, char *why, size_t n);
	/* td_fam_ratios: its metrics, each a ratio of its counts */
	int nr_ratios;
	const struct td_ratio *ratios;
};

struct td_set {
	const char *name;
	const char *title;	/* one line for `tdctl list` */
	/* what it yields: metric names, space-separated ("" none) */
	const char *metrics;
	const struct td_family *fam;
	int nr_events;
	const struct td_ev_tmpl *ev;
	unsigned int def_slots;	/* 0: the label carries no slots= */
	bool slots_from_caps;	/* take the width from the PMU's caps/slots */
	bool has_rev;		/* the label carries rev=rXpY */
	unsigned int rev_fixed;	/* has_rev: the first revision without the
				 * erratum the formula corrects
				 */
	const char *rev_rule;	/* has_rev: the correction, one phrase */
	td_match_fn match;
	const char *formula;	/* one line: the formula and its source */
	const char *source;	/* where the encodings come from */
	const char *anchor;	/* the Level 1 event normalising it, NULL */
	/* Below Level 1: the metrics of the set (Level 1 and 2, with perf's
	 * names), its groups (groups[0] the Level 1 group), and the counter
	 * budget the groups are made for: general-purpose counters per
	 * hardware thread, plus cycles/instructions on fixed counters
	 * (hw_fixed: PERF_TYPE_HARDWARE events; cycle_counter: the raw
	 * event on Arm's cycle counter).
	 */
	int nr_minfo;
	const struct td_metric_info *minfo;
	int nr_groups;		/* <= TD_MAX_SET_GROUPS */
	const struct td_grp *groups;
	int gp_counters;
	bool hw_fixed;
	uint64_t cycle_counter;
	const char *budget;	/* where gp_counters comes from */
};

/* The table, in order of preference (most specific first). */
extern const struct td_set *const td_sets[];
extern const int td_nr_sets;

const struct td_set *td_set_find(const char *name);
/* The position in s of the event called name (len bytes): its name or
 * one of its aliases, case-insensitively, also as perf prints it with a
 * PMU ("cpu_core/TOPDOWN.SLOTS_P/", "armv8_pmuv3_0/cpu_cycles/") and
 * modifiers (":u"). -1 if none.
 */
int td_set_event_index(const struct td_set *s, const char *name,
		       size_t len);
int td_set_fit(const struct td_set *s, const struct td_cpu_info *ci,
	       char *why, size_t n);

/* Slot width a set uses on this machine (0: the set takes none). */
unsigned int td_set_slots(const struct td_set *s,
			  const struct td_cpu_info *ci);

/* A hardware core PMU exists; *name gets its name. */
bool td_has_hw_pmu(const struct td_cpu_info *ci, const char **name);

/* Vendor notes used for `tdctl list` and the reasons. */
const char *td_intel_model_name(unsigned int model);
const char *td_arm_part_name(unsigned int implementer, unsigned int part);
const char *td_amd_core_name(unsigned int family, unsigned int model);

/* Parse a cpulist ("0-3,8,10-11\n") strictly into bits. Returns the number
 * of CPUs, or -1 on any syntax error or CPU >= TD_MAX_CPUS.
 */
int td_parse_cpulist(const char *s, uint64_t *bits, int nwords);
/* Format bits as a cpulist into buf; returns buf. */
char *td_format_cpulist(const uint64_t *bits, int nwords, char *buf,
			size_t len);

/* Is w (n bytes) one of the items of list, separated by any of seps
 * (case-insensitive)?
 */
bool td_in_list(const char *list, const char *seps, const char *w, size_t n);
/* perf's metric groups s's groups serve (with aliases: and the names
 * seed 003 gave them), each once, separated by sep.
 */
void td_set_metric_groups(const struct td_set *s, bool aliases,
			  const char *sep, char *buf, size_t len);
/* The group of s whose label id is id (len bytes), or NULL. */
const struct td_grp *td_grp_find(const struct td_set *s, const char *id,
				 size_t len);
/* Does the template take a general-purpose counter of s's budget? */
bool td_tmpl_takes_gp(const struct td_set *s, const struct td_ev_tmpl *t);
/* Is t (a template of the set or of one of its groups) called name
 * (len bytes), or given by its encoding, as td_set_event_index() matches
 * names and encodings?
 */
bool td_tmpl_is(const struct td_ev_tmpl *t, const char *name, size_t len);
/* The groups of s a selection takes: want[0 .. TD_MAX_SET_GROUPS - 1];
 * ci NULL: whatever the CPU (`tdctl decode`). 0, 1 when the selection is
 * Level 1 alone, -1 with err (also when it takes more than
 * TOPDOWN_MAX_GROUPS groups: one configuration's).
 */
int td_select_groups(const struct td_cpu_info *ci, const struct td_set *s,
		     const struct td_select *sel, bool *want, char *err,
		     size_t errlen);
/* The metric info of name in s (its table first), or NULL. */
const struct td_metric_info *td_set_metric_info(const struct td_set *s,
						const char *name);
/* The gdecoder, partial as td_decoder_partial() (`tdctl decode`). */
int td_gdecoder_build(struct td_gdecoder *gd, const char *label,
		      const char pool[][TOPDOWN_NAME_LEN], int nr_pool,
		      const struct topdown_group *groups, int nr_groups,
		      bool partial, char *err, size_t errlen);

/* rXpY <-> (X << 4) | Y */
int td_parse_revision(const char *s, unsigned int *rev);
void td_format_revision(unsigned int rev, char *buf, size_t len);

#endif
