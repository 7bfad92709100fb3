// SPDX-License-Identifier: GPL-2.0
/*
 * Intel event sets. Raw configs are (umask << 8) | event, plus
 * (cmask << 24) where the pmu-events JSON has a CounterMask, on the core
 * PMU's sysfs type ("cpu", or cpu_core / cpu_atom on hybrid parts).
 * Cycles and instructions go through PERF_TYPE_HARDWARE so that they land
 * on the fixed counters and leave the general ones to the raw events.
 *
 * SLOTS + PERF_METRICS cannot be used: they need a group led by SLOTS and
 * kernel counters cannot be grouped. Icelake and later therefore use the
 * general-counter TOPDOWN.*_SLOTS events instead.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>

#include "evset/evset_intel.h"

static const struct {
	unsigned int model;
	const char *name;
} intel_models[] = {
	{ 0x2a, "Sandy Bridge" }, { 0x2d, "Sandy Bridge-EP" },
	{ 0x3a, "Ivy Bridge" }, { 0x3e, "Ivy Bridge-EP" },
	{ 0x3c, "Haswell" }, { 0x45, "Haswell-ULT" }, { 0x46, "Haswell-GT3e" },
	{ 0x3f, "Haswell-X" }, { 0x3d, "Broadwell" }, { 0x47, "Broadwell-H" },
	{ 0x4f, "Broadwell-X" }, { 0x56, "Broadwell-DE" },
	{ 0x4e, "Skylake-U/Y" }, { 0x5e, "Skylake-H/S" },
	{ 0x55, "Skylake-SP/Cascade Lake" },
	{ 0x8e, "Kaby/Coffee/Whiskey Lake (mobile)" },
	{ 0x9e, "Kaby/Coffee Lake" }, { 0xa5, "Comet Lake" },
	{ 0xa6, "Comet Lake-U" },
	{ 0x7d, "Ice Lake" }, { 0x7e, "Ice Lake-U/Y" },
	{ 0x6a, "Ice Lake-SP" }, { 0x6c, "Ice Lake-D" },
	{ 0x8c, "Tiger Lake-U" }, { 0x8d, "Tiger Lake-H" },
	{ 0xa7, "Rocket Lake" },
	{ 0x8f, "Sapphire Rapids" }, { 0xcf, "Emerald Rapids" },
	{ 0xad, "Granite Rapids" }, { 0xae, "Granite Rapids-D" },
	{ 0x97, "Alder Lake" }, { 0x9a, "Alder Lake-P" },
	{ 0xb7, "Raptor Lake" }, { 0xba, "Raptor Lake-P" },
	{ 0xbf, "Raptor Lake-S" },
	{ 0xaa, "Meteor Lake" }, { 0xac, "Meteor Lake-S" },
};

const char *td_intel_model_name(unsigned int model)
{
	for (size_t i = 0; i < sizeof(intel_models) / sizeof(*intel_models);
	     i++)
		if (intel_models[i].model == model)
			return intel_models[i].name;
	return NULL;
}

bool td_is_intel6(const struct td_cpu_info *ci)
{
	return ci->arch == TD_ARCH_X86 && !strcmp(ci->vendor, "GenuineIntel") &&
	       ci->has_fms && ci->family == 6;
}

bool td_intel_in_list(unsigned int model, const unsigned int *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i] == model)
			return true;
	return false;
}

/* Common match: Intel family 6, model in the list, PMU(s) present. */
int td_intel_match_models(const struct td_set *s, const struct td_cpu_info *ci,
			  char *why, size_t n, const unsigned int *models,
			  int nmodels, const char *what)
{
	const char *name = td_intel_model_name(ci->model);
	int pmu = ci->main_pmu >= 0 ? ci->main_pmu : ci->core_pmu;

	if (!td_is_intel6(ci) || !td_intel_in_list(ci->model, models, nmodels)) {
		if (td_is_intel6(ci))
			snprintf(why, n, "Intel model 0x%x is not one of %s",
				 ci->model, s->name);
		else
			snprintf(why, n, "not an Intel family 6 CPU");
		return TD_FIT_NO;
	}
	if (pmu < 0) {
		snprintf(why, n, "Intel model 0x%x but no core PMU", ci->model);
		return TD_FIT_NO;
	}
	snprintf(why, n, "Intel %s (family 6 model 0x%x) on PMU %s: %s",
		 name ? name : "?", ci->model, ci->pmu[pmu].name, what);
	return TD_FIT_AUTO;
}

/* ---- before Icelake: 4 slots per cycle --------------------------------- */

enum { P_CYCLES, P_INST, P_IDQ, P_RET_SLOTS, P_ISSUED, P_RECOVERY, P_NR };

/*
 * Seed 002 / perf's pre-Icelake TopDown:
 *   S         = 4 * cycles
 *   frontend  = IDQ_UOPS_NOT_DELIVERED.CORE / S
 *   retiring  = UOPS_RETIRED.RETIRE_SLOTS / S
 *   bad spec  = (UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS
 *                + 4 * INT_MISC.RECOVERY_CYCLES) / S
 *   backend   = 1 - (frontend + bad spec + retiring)
 */
static void decode_4wide(const struct td_decoder *d, const uint64_t *c,
			 struct td_metrics *out)
{
	uint64_t cyc = td_cnt(d, c, P_CYCLES);
	unsigned __int128 S = (unsigned __int128)d->slots * cyc;
	__int128 idq = td_cnt(d, c, P_IDQ);
	__int128 ret = td_cnt(d, c, P_RET_SLOTS);
	__int128 bad = (__int128)td_cnt(d, c, P_ISSUED) - ret +
		       (__int128)d->slots * td_cnt(d, c, P_RECOVERY);

	td_put_ratio(out, "retiring", ret, S, true);
	td_put_ratio(out, "bad_speculation", bad, S, true);
	td_put_ratio(out, "frontend_bound", idq, S, true);
	td_put_ratio(out, "backend_bound", (__int128)S - idq - ret - bad, S,
		     true);
	if (td_has(d, P_INST))
		td_put_ipc(out, td_cnt(d, c, P_INST), cyc);
}

static const struct td_family fam_4wide = {
	.name = "intel_4wide", .nr_roles = P_NR, .decode = decode_4wide,
};

static const struct td_ev_tmpl snb_ev[] = {
	HW("cycles", P_CYCLES, PERF_COUNT_HW_CPU_CYCLES,
	   "PERF_TYPE_HARDWARE/CPU_CYCLES", CYCLES_ALIASES, false),
	HW("instructions", P_INST, PERF_COUNT_HW_INSTRUCTIONS,
	   "PERF_TYPE_HARDWARE/INSTRUCTIONS", INST_ALIASES, true),
	RW("IDQ_UOPS_NOT_DELIVERED.CORE", P_IDQ, TD_PMU_MAIN,
	   RAW(0x9c, 0x01, 0), "event=0x9c,umask=0x01", "topdown-fetch-bubbles"),
	RW("UOPS_RETIRED.RETIRE_SLOTS", P_RET_SLOTS, TD_PMU_MAIN,
	   RAW(0xc2, 0x02, 0), "event=0xc2,umask=0x02",
	   "topdown-slots-retired"),
	RW("UOPS_ISSUED.ANY", P_ISSUED, TD_PMU_MAIN, RAW(0x0e, 0x01, 0),
	   "event=0x0e,umask=0x01", "topdown-slots-issued"),
	RW("INT_MISC.RECOVERY_CYCLES", P_RECOVERY, TD_PMU_MAIN,
	   RAW(0x0d, 0x03, 1), "event=0x0d,umask=0x03,cmask=1", NULL),
};

/* Skylake moved INT_MISC.RECOVERY_CYCLES to umask 0x01 without cmask. */
static const struct td_ev_tmpl skl_ev[] = {
	HW("cycles", P_CYCLES, PERF_COUNT_HW_CPU_CYCLES,
	   "PERF_TYPE_HARDWARE/CPU_CYCLES", CYCLES_ALIASES, false),
	HW("instructions", P_INST, PERF_COUNT_HW_INSTRUCTIONS,
	   "PERF_TYPE_HARDWARE/INSTRUCTIONS", INST_ALIASES, true),
	RW("IDQ_UOPS_NOT_DELIVERED.CORE", P_IDQ, TD_PMU_MAIN,
	   RAW(0x9c, 0x01, 0), "event=0x9c,umask=0x01", "topdown-fetch-bubbles"),
	RW("UOPS_RETIRED.RETIRE_SLOTS", P_RET_SLOTS, TD_PMU_MAIN,
	   RAW(0xc2, 0x02, 0), "event=0xc2,umask=0x02",
	   "topdown-slots-retired"),
	RW("UOPS_ISSUED.ANY", P_ISSUED, TD_PMU_MAIN, RAW(0x0e, 0x01, 0),
	   "event=0x0e,umask=0x01", "topdown-slots-issued"),
	RW("INT_MISC.RECOVERY_CYCLES", P_RECOVERY, TD_PMU_MAIN,
	   RAW(0x0d, 0x01, 0), "event=0x0d,umask=0x01", NULL),
};

static const unsigned int snb_models[] = {
	0x2a, 0x2d, 0x3a, 0x3e, 0x3c, 0x45, 0x46, 0x3f, 0x3d, 0x47, 0x4f, 0x56,
};

static const unsigned int skl_models[] = {
	0x4e, 0x5e, 0x55, 0x8e, 0x9e, 0xa5, 0xa6,
};

static int match_snb(const struct td_set *s, const struct td_cpu_info *ci,
		     char *why, size_t n)
{
	return td_intel_match_models(s, ci, why, n, snb_models,
				     sizeof(snb_models) / sizeof(*snb_models),
				     "pre-Icelake TopDown L1, 4 slots per cycle");
}

static int match_skl(const struct td_set *s, const struct td_cpu_info *ci,
		     char *why, size_t n)
{
	return td_intel_match_models(s, ci, why, n, skl_models,
				     sizeof(skl_models) / sizeof(*skl_models),
				     "pre-Icelake TopDown L1, 4 slots per cycle");
}

/* ---- Level 2 ------------------------------------------------------------
 *
 * perf's TopdownL2 of tools/perf/pmu-events/arch/x86/CPU/ metrics JSON
 * (linux 6.1 and 6.12: test_perf_json.py evaluates them), with the
 * differences of Level 1 (SMT off; on Icelake the general-counter slot
 * events for PERF_METRICS) and without perf's clamps (max(0, ...),
 * min(cycles, ...)): a value outside 0..1 is shown as counted and
 * flagged, as in Level 1. Each group counts the Level 1 events its
 * metrics are shares of, and its own slots (or cycles, times the width).
 */
const struct td_metric_info td_intel_minfo[] = {
	{ "retiring", "tma_retiring",
	  "BvUW;Default;TmaL1;TopdownL1;tma_L1_group", NULL, 1,
	  TD_UNIT_SLOTS, true },
	{ "bad_speculation", "tma_bad_speculation",
	  "Default;TmaL1;TopdownL1;tma_L1_group", NULL, 1, TD_UNIT_SLOTS,
	  true },
	{ "frontend_bound", "tma_frontend_bound",
	  "BvFB;BvIO;Default;PGO;TmaL1;TopdownL1;tma_L1_group", NULL, 1,
	  TD_UNIT_SLOTS, true },
	{ "backend_bound", "tma_backend_bound",
	  "BvOB;Default;TmaL1;TopdownL1;tma_L1_group", NULL, 1,
	  TD_UNIT_SLOTS, true },
	{ "ipc", NULL, NULL, NULL, 1, TD_UNIT_PER_CYCLE, false },
	{ "fetch_latency", "tma_fetch_latency",
	  "Frontend;TmaL2;TopdownL2;tma_L2_group;tma_frontend_bound_group",
	  "frontend_bound", 2, TD_UNIT_SLOTS, true },
	{ "fetch_bandwidth", "tma_fetch_bandwidth",
	  "FetchBW;Frontend;TmaL2;TopdownL2;tma_L2_group;"
	  "tma_frontend_bound_group;tma_issueFB",
	  "frontend_bound", 2, TD_UNIT_SLOTS, true },
	{ "branch_mispredicts", "tma_branch_mispredicts",
	  "BadSpec;BrMispredicts;BvMP;TmaL2;TopdownL2;tma_L2_group;"
	  "tma_bad_speculation_group;tma_issueBM",
	  "bad_speculation", 2, TD_UNIT_SLOTS, true },
	{ "machine_clears", "tma_machine_clears",
	  "BadSpec;BvMS;MachineClears;TmaL2;TopdownL2;tma_L2_group;"
	  "tma_bad_speculation_group;tma_issueMC;tma_issueSyncxn",
	  "bad_speculation", 2, TD_UNIT_SLOTS, true },
	{ "memory_bound", "tma_memory_bound",
	  "Backend;TmaL2;TopdownL2;tma_L2_group;tma_backend_bound_group",
	  "backend_bound", 2, TD_UNIT_SLOTS, true },
	{ "core_bound", "tma_core_bound",
	  "Backend;Compute;TmaL2;TopdownL2;tma_L2_group;"
	  "tma_backend_bound_group",
	  "backend_bound", 2, TD_UNIT_SLOTS, true },
	{ "heavy_operations", "tma_heavy_operations",
	  "Retire;TmaL2;TopdownL2;tma_L2_group;tma_retiring_group",
	  "retiring", 2, TD_UNIT_SLOTS, true },
	{ "light_operations", "tma_light_operations",
	  "Retire;TmaL2;TopdownL2;tma_L2_group;tma_retiring_group",
	  "retiring", 2, TD_UNIT_SLOTS, true },
};

/* A ratio num / den of long doubles, !valid when den is 0. */
void td_put_ld(struct td_metrics *out, const char *name, long double num,
	       long double den)
{
	td_put_value(out, name, den ? num / den : 0, den != 0, true);
}

/* Before Icelake, slots = 4 * cycles (d->slots). */
enum { F_CYCLES, F_INST, F_IDQ, F_CYC0, F_RET, F_MACRO, F_ISSUED, F_MS, F_NR };

/*
 *   fetch_latency   = 4 * IDQ_NOT_DELIV.CYCLES_0_UOPS
 *                     / slots (sandybridge..haswell: min(cycles, ...))
 *   fetch_bandwidth = frontend_bound - fetch_latency
 */
static void put_fetch_4wide(const struct td_decoder *d, const uint64_t *c,
			    struct td_metrics *out)
{
	unsigned __int128 S = (unsigned __int128)d->slots *
			      td_cnt(d, c, F_CYCLES);
	__int128 lat = (__int128)d->slots * td_cnt(d, c, F_CYC0);

	td_put_ratio(out, "fetch_latency", lat, S, true);
	td_put_ratio(out, "fetch_bandwidth",
		     (__int128)td_cnt(d, c, F_IDQ) - lat, S, true);
}

/* Skylake: heavy = (UOPS_RETIRED.RETIRE_SLOTS + UOPS_RETIRED.MACRO_FUSED -
 * instructions) / slots, light = retiring - heavy.
 */
static void decode_skl_fr(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	unsigned __int128 S = (unsigned __int128)d->slots *
			      td_cnt(d, c, F_CYCLES);
	__int128 ret = td_cnt(d, c, F_RET);
	__int128 heavy = ret + td_cnt(d, c, F_MACRO) - td_cnt(d, c, F_INST);

	put_fetch_4wide(d, c, out);
	td_put_ratio(out, "heavy_operations", heavy, S, true);
	td_put_ratio(out, "light_operations", ret - heavy, S, true);
}

static const struct td_family fam_skl_fr = {
	.name = "intel_skl_fr", .nr_roles = F_NR, .decode = decode_skl_fr,
};

static void decode_snb_fe(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	put_fetch_4wide(d, c, out);
}

static const struct td_family fam_snb_fe = {
	.name = "intel_snb_fe", .nr_roles = F_NR, .decode = decode_snb_fe,
};

/* Sandy Bridge..Broadwell: heavy = microcode_sequencer =
 * UOPS_RETIRED.RETIRE_SLOTS / UOPS_ISSUED.ANY * IDQ.MS_UOPS / slots.
 */
static void decode_snb_re(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	long double S = (long double)d->slots * td_cnt(d, c, F_CYCLES);
	long double ret = td_cnt(d, c, F_RET);
	long double iss = td_cnt(d, c, F_ISSUED);
	long double heavy = iss ? ret / iss * td_cnt(d, c, F_MS) : 0;
	bool ok = S && iss;

	td_put_value(out, "heavy_operations", ok ? heavy / S : 0, ok, true);
	td_put_value(out, "light_operations", ok ? (ret - heavy) / S : 0, ok,
		     true);
}

static const struct td_family fam_snb_re = {
	.name = "intel_snb_re", .nr_roles = F_NR, .decode = decode_snb_re,
};

#define EV_IDQ(role) RW("IDQ_UOPS_NOT_DELIVERED.CORE", role, TD_PMU_MAIN, \
	RAW(0x9c, 0x01, 0), "event=0x9c,umask=0x01", "topdown-fetch-bubbles")
#define EV_RETIRE_SLOTS(role) RW("UOPS_RETIRED.RETIRE_SLOTS", role, \
	TD_PMU_MAIN, RAW(0xc2, 0x02, 0), "event=0xc2,umask=0x02", \
	"topdown-slots-retired")

static const struct td_ev_tmpl skl_fr_ev[] = {
	EV_CYCLES(F_CYCLES, false),
	EV_INST(F_INST, false),
	EV_IDQ(F_IDQ),
	EV_CYC0(F_CYC0, 4),
	EV_RETIRE_SLOTS(F_RET),
	RW("UOPS_RETIRED.MACRO_FUSED", F_MACRO, TD_PMU_MAIN,
	   RAW(0xc2, 0x04, 0), "event=0xc2,umask=0x04", NULL),
};

static const struct td_ev_tmpl snb_fe_ev[] = {
	EV_CYCLES(F_CYCLES, false),
	EV_IDQ(F_IDQ),
	EV_CYC0(F_CYC0, 4),
};

static const struct td_ev_tmpl snb_re_ev[] = {
	EV_CYCLES(F_CYCLES, false),
	EV_RETIRE_SLOTS(F_RET),
	EV_ISSUED(F_ISSUED, "topdown-slots-issued"),
	EV_MS(F_MS),
};

static const struct td_grp skl_groups[] = {
	{ .name = "topdown", .id = "l1", .level = 1, .fam = &fam_4wide,
	  .nr_events = 6, .ev = skl_ev, .anchor = "cycles",
	  .formula = "Level 1 (this set's formula)" },
	{ .name = "frontend_retiring", .id = "fr", .level = 2,
	  .in_level2 = true, .fam = &fam_skl_fr, .nr_events = 6,
	  .ev = skl_fr_ev, .anchor = "cycles",
	  .formula = "slots = 4 * cycles; fetch_latency = 4 * "
		     "IDQ_NOT_DELIV.CYCLES_0_UOPS / slots; "
		     "fetch_bandwidth = IDQ_UOPS_NOT_DELIVERED.CORE / slots - "
		     "fetch_latency; heavy_operations = "
		     "(UOPS_RETIRED.RETIRE_SLOTS + UOPS_RETIRED.MACRO_FUSED - "
		     "instructions) / slots; light_operations = "
		     "UOPS_RETIRED.RETIRE_SLOTS / slots - heavy_operations" },
};

static const struct td_grp snb_groups[] = {
	{ .name = "topdown", .id = "l1", .level = 1, .fam = &fam_4wide,
	  .nr_events = 6, .ev = snb_ev, .anchor = "cycles",
	  .formula = "Level 1 (this set's formula)" },
	{ .name = "frontend", .id = "fe", .level = 2, .in_level2 = true,
	  .fam = &fam_snb_fe, .nr_events = 3, .ev = snb_fe_ev,
	  .anchor = "cycles",
	  .formula = "slots = 4 * cycles; fetch_latency = 4 * "
		     "IDQ_NOT_DELIV.CYCLES_0_UOPS / slots; "
		     "fetch_bandwidth = IDQ_UOPS_NOT_DELIVERED.CORE / slots - "
		     "fetch_latency" },
	{ .name = "retiring", .id = "re", .level = 2, .in_level2 = true,
	  .fam = &fam_snb_re, .nr_events = 4, .ev = snb_re_ev,
	  .anchor = "cycles",
	  .formula = "slots = 4 * cycles; heavy_operations = "
		     "UOPS_RETIRED.RETIRE_SLOTS / UOPS_ISSUED.ANY * IDQ.MS_UOPS "
		     "/ slots (perf's microcode_sequencer); light_operations = "
		     "UOPS_RETIRED.RETIRE_SLOTS / slots - heavy_operations" },
};

#define PRE_ICL_BUDGET .gp_counters = 4, .hw_fixed = true, \
	.budget = "4 general-purpose counters per hardware thread with SMT " \
		  "on (8 with SMT off; CPUID leaf 0AH EAX[15:8], Intel SDM " \
		  "vol. 3B), cycles and instructions on fixed counters"

const struct td_set td_set_intel_snb = {
	.name = "intel_snb",
	.title = "Intel Sandy Bridge..Broadwell: TopDown L1, 4-wide",
	.metrics = "retiring bad_speculation frontend_bound backend_bound ipc",
	.fam = &fam_4wide,
	.nr_events = 6,
	.ev = snb_ev,
	.def_slots = 4,
	.match = match_snb,
	.formula = "Intel TopDown L1 before Icelake (perf tma_*, SMT off): slots = "
		"4 * cycles; frontend = IDQ_UOPS_NOT_DELIVERED.CORE / slots; "
		"retiring = UOPS_RETIRED.RETIRE_SLOTS / slots; bad_speculation = "
		"(UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + 4 * "
		"INT_MISC.RECOVERY_CYCLES) / slots; backend_bound = the rest",
	.source = "perf pmu-events x86/sandybridge, ivybridge, haswell, broadwell "
		"(+ -x/-ep variants), linux 6.1 and 6.12",
	.anchor = "cycles",
	INTEL_MINFO,
	.nr_groups = sizeof(snb_groups) / sizeof(snb_groups[0]),
	.groups = snb_groups,
	PRE_ICL_BUDGET,
};

const struct td_set td_set_intel_skl = {
	.name = "intel_skl",
	.title = "Intel Skylake..Cascade Lake: TopDown L1, 4-wide",
	.metrics = "retiring bad_speculation frontend_bound backend_bound ipc",
	.fam = &fam_4wide,
	.nr_events = 6,
	.ev = skl_ev,
	.def_slots = 4,
	.match = match_skl,
	.formula = "Intel TopDown L1 before Icelake (perf tma_*, SMT off): slots = "
		"4 * cycles; frontend = IDQ_UOPS_NOT_DELIVERED.CORE / slots; "
		"retiring = UOPS_RETIRED.RETIRE_SLOTS / slots; bad_speculation = "
		"(UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + 4 * "
		"INT_MISC.RECOVERY_CYCLES) / slots; backend_bound = the rest",
	.source = "perf pmu-events x86/skylake, skylakex, cascadelakex, linux 6.1 "
		"and 6.12",
	.anchor = "cycles",
	INTEL_MINFO,
	.nr_groups = sizeof(skl_groups) / sizeof(skl_groups[0]),
	.groups = skl_groups,
	PRE_ICL_BUDGET,
};
