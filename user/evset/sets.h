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
	/* No TopDown metric reads it (only IPC): `tdctl decode` does not
	 * require its count.
	 */
	bool optional;
};

/* Score of a set on a machine. */
#define TD_FIT_NO	0	/* cannot be used here */
#define TD_FIT_MANUAL	1	/* works if asked for by name */
#define TD_FIT_AUTO	2	/* the specific set for this CPU */

struct td_set;
struct td_family;	/* the formula: evset_priv.h */

typedef int (*td_match_fn)(const struct td_set *s,
			   const struct td_cpu_info *ci, char *why, size_t n);
typedef void (*td_decode_fn)(const struct td_decoder *d,
			     const uint64_t *c, struct td_metrics *out);

struct td_set {
	const char *name;
	const char *title;	/* one line for `tdctl list` */
	const char *metrics;	/* what it yields */
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

/* rXpY <-> (X << 4) | Y */
int td_parse_revision(const char *s, unsigned int *rev);
void td_format_revision(unsigned int rev, char *buf, size_t len);

#endif
