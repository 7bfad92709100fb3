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

#include "evset/evset_priv.h"

#define RAW(ev, umask, cmask) \
	((uint64_t)(ev) | (uint64_t)(umask) << 8 | (uint64_t)(cmask) << 24)
/* ... with the edge-detect bit (18) of IA32_PERFEVTSELx */
#define RAW_EDGE(ev, umask, cmask) (RAW(ev, umask, cmask) | 1ull << 18)

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

static bool is_intel6(const struct td_cpu_info *ci)
{
	return ci->arch == TD_ARCH_X86 && !strcmp(ci->vendor, "GenuineIntel") &&
	       ci->has_fms && ci->family == 6;
}

static bool in_list(unsigned int model, const unsigned int *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i] == model)
			return true;
	return false;
}

/* Common match: Intel family 6, model in the list, PMU(s) present. */
static int match_models(const struct td_set *s, const struct td_cpu_info *ci,
			char *why, size_t n, const unsigned int *models,
			int nmodels, const char *what)
{
	const char *name = td_intel_model_name(ci->model);
	int pmu = ci->main_pmu >= 0 ? ci->main_pmu : ci->core_pmu;

	if (!is_intel6(ci) || !in_list(ci->model, models, nmodels)) {
		if (is_intel6(ci))
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

/*
 * Aliases: perf's names of the same count for the CPUs of the set. The
 * JSON names are those of tools/perf/pmu-events/arch/x86/CPU/ JSON
 * (linux 6.1 and 6.12; selftests/host/test_perf_json.py checks them);
 * cycles/instructions are perf's generic hardware events (and the JSON's
 * fixed-counter names); topdown-slots-issued, -slots-retired and
 * -fetch-bubbles are the kernel's sysfs aliases of the same raw events
 * (arch/x86/events/intel/core.c), printed unscaled by perf stat.
 * "opt": only IPC reads the count, `tdctl decode` does not require it.
 */
#define HW(n, role, cfg, enc, al, opt) \
	{ n, role, TD_EV_HW, TD_PMU_ANY, cfg, enc, al, opt }
#define RW(n, role, pmu, cfg, enc, al) \
	{ n, role, TD_EV_RAW, pmu, cfg, enc, al, false }
#define CYCLES_ALIASES "cpu-cycles CPU_CLK_UNHALTED.THREAD CPU_CLK_UNHALTED.THREAD_P CPU_CLK_UNHALTED.CORE"
#define INST_ALIASES "INST_RETIRED.ANY INST_RETIRED.ANY_P"

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
	return match_models(s, ci, why, n, snb_models,
			    sizeof(snb_models) / sizeof(*snb_models),
			    "pre-Icelake TopDown L1, 4 slots per cycle");
}

static int match_skl(const struct td_set *s, const struct td_cpu_info *ci,
		     char *why, size_t n)
{
	return match_models(s, ci, why, n, skl_models,
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
static const struct td_metric_info intel_minfo[] = {
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

#define INTEL_MINFO .nr_minfo = sizeof(intel_minfo) / sizeof(intel_minfo[0]), \
	.minfo = intel_minfo

/* A ratio num / den of long doubles, !valid when den is 0. */
static void put_ld(struct td_metrics *out, const char *name, long double num,
		   long double den)
{
	td_put_value(out, name, den ? num / den : 0, den != 0, true);
}

/* The names are perf's, shortened to TOPDOWN_NAME_LEN where needed (the
 * alias is then perf's full name); cmask= in a name is perf's event term
 * (cpu@EVENT\,cmask\=N@ in its metric expressions).
 */
#define CYC0_ALIASES "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE"
#define EV_CYC0(role, cmask) \
	RW("IDQ_NOT_DELIV.CYCLES_0_UOPS", role, TD_PMU_MAIN, \
	   RAW(0x9c, 0x01, cmask), "event=0x9c,umask=0x01,cmask=" #cmask, \
	   CYC0_ALIASES)

/* Before Icelake, slots = 4 * cycles (d->slots). */
enum { F_CYCLES, F_INST, F_IDQ, F_CYC0, F_RET, F_MACRO, F_ISSUED, F_MS, F_NR };

/*
 *   fetch_latency   = 4 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE
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
 * INST_RETIRED.ANY) / slots, light = retiring - heavy.
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

#define EV_CYCLES(role, opt) HW("cycles", role, PERF_COUNT_HW_CPU_CYCLES, \
	"PERF_TYPE_HARDWARE/CPU_CYCLES", CYCLES_ALIASES, opt)
#define EV_INST(role, opt) HW("instructions", role, \
	PERF_COUNT_HW_INSTRUCTIONS, "PERF_TYPE_HARDWARE/INSTRUCTIONS", \
	INST_ALIASES, opt)
#define EV_IDQ(role) RW("IDQ_UOPS_NOT_DELIVERED.CORE", role, TD_PMU_MAIN, \
	RAW(0x9c, 0x01, 0), "event=0x9c,umask=0x01", "topdown-fetch-bubbles")
#define EV_RETIRE_SLOTS(role) RW("UOPS_RETIRED.RETIRE_SLOTS", role, \
	TD_PMU_MAIN, RAW(0xc2, 0x02, 0), "event=0xc2,umask=0x02", \
	"topdown-slots-retired")
#define EV_ISSUED(role, al) RW("UOPS_ISSUED.ANY", role, TD_PMU_MAIN, \
	RAW(0x0e, 0x01, 0), "event=0x0e,umask=0x01", al)
#define EV_MS(role) RW("IDQ.MS_UOPS", role, TD_PMU_MAIN, RAW(0x79, 0x30, 0), \
	"event=0x79,umask=0x30", NULL)

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
		     "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE / slots; "
		     "fetch_bandwidth = IDQ_UOPS_NOT_DELIVERED.CORE / slots - "
		     "fetch_latency; heavy_operations = "
		     "(UOPS_RETIRED.RETIRE_SLOTS + UOPS_RETIRED.MACRO_FUSED - "
		     "INST_RETIRED.ANY) / slots; light_operations = "
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
		     "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE / slots; "
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

/* ---- Icelake and later: TOPDOWN.SLOTS_P on a general counter ---------- */

enum { S_SLOTS, S_IDQ, S_RET, S_BE, S_CYCLES, S_INST, S_NR };

/*
 *   frontend  = IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS
 *   retiring  = UOPS_RETIRED.SLOTS / SLOTS
 *   backend   = TOPDOWN.BACKEND_BOUND_SLOTS / SLOTS
 *   bad spec  = 1 - (frontend + retiring + backend)
 */
static void decode_slots(const struct td_decoder *d, const uint64_t *c,
			 struct td_metrics *out)
{
	uint64_t slots = td_cnt(d, c, S_SLOTS);
	__int128 fe = td_cnt(d, c, S_IDQ);
	__int128 ret = td_cnt(d, c, S_RET);
	__int128 be = td_cnt(d, c, S_BE);

	td_put_ratio(out, "retiring", ret, slots, true);
	td_put_ratio(out, "bad_speculation", (__int128)slots - fe - ret - be,
		     slots, true);
	td_put_ratio(out, "frontend_bound", fe, slots, true);
	td_put_ratio(out, "backend_bound", be, slots, true);
	if (td_has(d, S_INST) && td_has(d, S_CYCLES))
		td_put_ipc(out, td_cnt(d, c, S_INST), td_cnt(d, c, S_CYCLES));
}

static const struct td_family fam_slots = {
	.name = "intel_slots", .nr_roles = S_NR, .decode = decode_slots,
};

static const struct td_ev_tmpl icl_ev[] = {
	HW("cycles", S_CYCLES, PERF_COUNT_HW_CPU_CYCLES,
	   "PERF_TYPE_HARDWARE/CPU_CYCLES", CYCLES_ALIASES, true),
	HW("instructions", S_INST, PERF_COUNT_HW_INSTRUCTIONS,
	   "PERF_TYPE_HARDWARE/INSTRUCTIONS", INST_ALIASES, true),
	RW("TOPDOWN.SLOTS_P", S_SLOTS, TD_PMU_MAIN, RAW(0xa4, 0x01, 0),
	   "event=0xa4,umask=0x01", "TOPDOWN.SLOTS slots"),
	RW("IDQ_UOPS_NOT_DELIVERED.CORE", S_IDQ, TD_PMU_MAIN,
	   RAW(0x9c, 0x01, 0), "event=0x9c,umask=0x01",
	   "IDQ_BUBBLES.CORE topdown-fe-bound"),
	RW("UOPS_RETIRED.SLOTS", S_RET, TD_PMU_MAIN, RAW(0xc2, 0x02, 0),
	   "event=0xc2,umask=0x02", "topdown-retiring"),
	RW("TOPDOWN.BACKEND_BOUND_SLOTS", S_BE, TD_PMU_MAIN,
	   RAW(0xa4, 0x02, 0), "event=0xa4,umask=0x02", "topdown-be-bound"),
};

static const unsigned int icl_models[] = {
	0x7d, 0x7e, 0x6a, 0x6c, 0x8c, 0x8d, 0xa7, 0x8f, 0xcf, 0xad, 0xae,
	0x97, 0x9a, 0xb7, 0xba, 0xbf,
};

static int match_icl(const struct td_set *s, const struct td_cpu_info *ci,
		     char *why, size_t n)
{
	int fit = match_models(s, ci, why, n, icl_models,
			       sizeof(icl_models) / sizeof(*icl_models),
			       "TopDown L1 from TOPDOWN.SLOTS_P and general-counter slot events");

	if (fit == TD_FIT_AUTO && ci->main_pmu < 0 && ci->atom_pmu >= 0) {
		snprintf(why, n,
			 "hybrid Intel model 0x%x: this set counts only on the cpu_core CPUs",
			 ci->model);
		return TD_FIT_MANUAL;
	}
	return fit;
}

/* ---- Icelake Level 2 ----------------------------------------------------
 *
 * perf's icelake, icelakex, tigerlake and rocketlake TopdownL2 (5-wide:
 * the 5 of fetch_latency), with INT_MISC.UOP_DROPPING and the
 * INT_MISC.CLEARS_COUNT / RECOVERY_CYCLES term of backend_bound at 0 as
 * in Level 1. Alder Lake's and Sapphire Rapids' Level 2 are made of
 * PERF_METRICS events (topdown-fetch-lat, -mem-bound...): not offered
 * there (intel_spr has its own Level 2).
 */
#define ICL_WIDTH 5

enum { S_CYC0 = S_NR, S_G0_NR };

/* Group 0: Level 1 as the set computes it, then
 *   fetch_latency   = 5 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE
 *                     / SLOTS
 *   fetch_bandwidth = frontend_bound - fetch_latency
 */
static void decode_icl_l1(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	uint64_t slots = td_cnt(d, c, S_SLOTS);
	__int128 lat = (__int128)ICL_WIDTH * td_cnt(d, c, S_CYC0);

	decode_slots(d, c, out);
	td_put_ratio(out, "fetch_latency", lat, slots, true);
	td_put_ratio(out, "fetch_bandwidth",
		     (__int128)td_cnt(d, c, S_IDQ) - lat, slots, true);
}

static const struct td_family fam_icl_l1 = {
	.name = "intel_icl_l1", .nr_roles = S_G0_NR, .decode = decode_icl_l1,
};

enum { B_SLOTS, B_IDQ, B_RET, B_BE, B_BRM, B_MC, B_NR };

/*
 *   bad_speculation    = (SLOTS - frontend - retiring - backend) / SLOTS
 *   branch_mispredicts = BR_MISP_RETIRED.ALL_BRANCHES /
 *                        (BR_MISP_RETIRED.ALL_BRANCHES + MACHINE_CLEARS.COUNT)
 *                        * bad_speculation
 *   machine_clears     = bad_speculation - branch_mispredicts
 */
static void decode_icl_bs(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	uint64_t slots = td_cnt(d, c, B_SLOTS);
	__int128 bad = (__int128)slots - td_cnt(d, c, B_IDQ) -
		       td_cnt(d, c, B_RET) - td_cnt(d, c, B_BE);
	long double brm = td_cnt(d, c, B_BRM);
	long double all = brm + td_cnt(d, c, B_MC);
	long double share = all ? brm / all : 0;

	put_ld(out, "branch_mispredicts", share * (long double)bad,
	       all ? (long double)slots : 0);
	put_ld(out, "machine_clears", (1 - share) * (long double)bad,
	       all ? (long double)slots : 0);
}

static const struct td_family fam_icl_bs = {
	.name = "intel_icl_bs", .nr_roles = B_NR, .decode = decode_icl_bs,
};

enum { K_SLOTS, K_BE, K_RET, K_MEM, K_STORES, K_STALLS, K_P1, K_P2, K_NR };

/*
 *   memory_bound = (CYCLE_ACTIVITY.STALLS_MEM_ANY +
 *                   EXE_ACTIVITY.BOUND_ON_STORES) /
 *                  (CYCLE_ACTIVITY.STALLS_TOTAL + EXE_ACTIVITY.1_PORTS_UTIL
 *                   + retiring * EXE_ACTIVITY.2_PORTS_UTIL +
 *                   EXE_ACTIVITY.BOUND_ON_STORES) * backend_bound
 *   core_bound   = backend_bound - memory_bound
 */
static void decode_icl_be(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	long double slots = td_cnt(d, c, K_SLOTS);
	long double ret = slots ? td_cnt(d, c, K_RET) / slots : 0;
	long double stores = td_cnt(d, c, K_STORES);
	long double den = td_cnt(d, c, K_STALLS) + (long double)td_cnt(d, c, K_P1) +
			  ret * td_cnt(d, c, K_P2) + stores;
	long double share = den ? (td_cnt(d, c, K_MEM) + stores) / den : 0;
	long double be = td_cnt(d, c, K_BE);
	bool ok = slots && den;

	put_ld(out, "memory_bound", share * be, ok ? slots : 0);
	put_ld(out, "core_bound", (1 - share) * be, ok ? slots : 0);
}

static const struct td_family fam_icl_be = {
	.name = "intel_icl_be", .nr_roles = K_NR, .decode = decode_icl_be,
};

enum { H_SLOTS, H_RET, H_ISSUED, H_MS, H_DEC0, H_DEC0_C1, H_MITE, H_NR2 };

/*
 *   heavy_operations = UOPS_RETIRED.SLOTS / UOPS_ISSUED.ANY * IDQ.MS_UOPS
 *                      / SLOTS (perf's microcode_sequencer) + retiring *
 *                      (UOPS_DECODED.DEC0 - UOPS_DECODED.DEC0,cmask=1) /
 *                      IDQ.MITE_UOPS
 *   light_operations = retiring - heavy_operations
 */
static void decode_icl_re(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	long double slots = td_cnt(d, c, H_SLOTS);
	long double ret = td_cnt(d, c, H_RET);
	long double iss = td_cnt(d, c, H_ISSUED);
	long double mite = td_cnt(d, c, H_MITE);
	bool ok = slots && iss && mite;
	long double heavy = 0;

	if (ok)
		heavy = ret / iss * td_cnt(d, c, H_MS) / slots +
			ret / slots * ((long double)td_cnt(d, c, H_DEC0) -
				       (long double)td_cnt(d, c, H_DEC0_C1)) /
			mite;
	td_put_value(out, "heavy_operations", heavy, ok, true);
	td_put_value(out, "light_operations", ok ? ret / slots - heavy : 0,
		     ok, true);
}

static const struct td_family fam_icl_re = {
	.name = "intel_icl_re", .nr_roles = H_NR2, .decode = decode_icl_re,
};

#define EV_SLOTS_P(role) RW("TOPDOWN.SLOTS_P", role, TD_PMU_MAIN, \
	RAW(0xa4, 0x01, 0), "event=0xa4,umask=0x01", "TOPDOWN.SLOTS slots")
#define EV_IDQ_ICL(role) RW("IDQ_UOPS_NOT_DELIVERED.CORE", role, TD_PMU_MAIN, \
	RAW(0x9c, 0x01, 0), "event=0x9c,umask=0x01", \
	"IDQ_BUBBLES.CORE topdown-fe-bound")
#define EV_RET_ICL(role) RW("UOPS_RETIRED.SLOTS", role, TD_PMU_MAIN, \
	RAW(0xc2, 0x02, 0), "event=0xc2,umask=0x02", "topdown-retiring")
#define EV_BE_ICL(role) RW("TOPDOWN.BACKEND_BOUND_SLOTS", role, TD_PMU_MAIN, \
	RAW(0xa4, 0x02, 0), "event=0xa4,umask=0x02", "topdown-be-bound")

static const struct td_ev_tmpl icl_l1_ev[] = {
	EV_CYCLES(S_CYCLES, true),
	EV_INST(S_INST, true),
	EV_SLOTS_P(S_SLOTS),
	EV_IDQ_ICL(S_IDQ),
	EV_RET_ICL(S_RET),
	EV_BE_ICL(S_BE),
	EV_CYC0(S_CYC0, 5),
};

static const struct td_ev_tmpl icl_bs_ev[] = {
	EV_SLOTS_P(B_SLOTS),
	EV_IDQ_ICL(B_IDQ),
	EV_RET_ICL(B_RET),
	EV_BE_ICL(B_BE),
	RW("BR_MISP_RETIRED.ALL_BRANCHES", B_BRM, TD_PMU_MAIN,
	   RAW(0xc5, 0x00, 0), "event=0xc5", NULL),
	RW("MACHINE_CLEARS.COUNT", B_MC, TD_PMU_MAIN, RAW_EDGE(0xc3, 0x01, 1),
	   "event=0xc3,umask=0x01,cmask=1,edge=1", NULL),
};

static const struct td_ev_tmpl icl_be_ev[] = {
	EV_SLOTS_P(K_SLOTS),
	EV_BE_ICL(K_BE),
	EV_RET_ICL(K_RET),
	RW("CYCLE_ACTIVITY.STALLS_MEM_ANY", K_MEM, TD_PMU_MAIN,
	   RAW(0xa3, 0x14, 20), "event=0xa3,umask=0x14,cmask=20", NULL),
	RW("EXE_ACTIVITY.BOUND_ON_STORES", K_STORES, TD_PMU_MAIN,
	   RAW(0xa6, 0x40, 2), "event=0xa6,umask=0x40,cmask=2", NULL),
	RW("CYCLE_ACTIVITY.STALLS_TOTAL", K_STALLS, TD_PMU_MAIN,
	   RAW(0xa3, 0x04, 4), "event=0xa3,umask=0x04,cmask=4", NULL),
	RW("EXE_ACTIVITY.1_PORTS_UTIL", K_P1, TD_PMU_MAIN, RAW(0xa6, 0x02, 0),
	   "event=0xa6,umask=0x02", NULL),
	RW("EXE_ACTIVITY.2_PORTS_UTIL", K_P2, TD_PMU_MAIN, RAW(0xa6, 0x04, 0),
	   "event=0xa6,umask=0x04", NULL),
};

static const struct td_ev_tmpl icl_re_ev[] = {
	EV_SLOTS_P(H_SLOTS),
	EV_RET_ICL(H_RET),
	EV_ISSUED(H_ISSUED, NULL),
	EV_MS(H_MS),
	RW("UOPS_DECODED.DEC0", H_DEC0, TD_PMU_MAIN, RAW(0x56, 0x01, 0),
	   "event=0x56,umask=0x01", NULL),
	RW("UOPS_DECODED.DEC0,cmask=1", H_DEC0_C1, TD_PMU_MAIN,
	   RAW(0x56, 0x01, 1), "event=0x56,umask=0x01,cmask=1",
	   "UOPS_DECODED.DEC0,cmask=0x1"),
	RW("IDQ.MITE_UOPS", H_MITE, TD_PMU_MAIN, RAW(0x79, 0x04, 0),
	   "event=0x79,umask=0x04", NULL),
};

/* perf's icelake, icelakex, tigerlake, rocketlake (mapfile.csv) */
static const unsigned int icl_l2_models[] = {
	0x7d, 0x7e, 0x6a, 0x6c, 0x8c, 0x8d, 0xa7,
};

static bool icl_l2_offered(const struct td_cpu_info *ci, char *why, size_t n)
{
	if (is_intel6(ci) && in_list(ci->model, icl_l2_models,
				     sizeof(icl_l2_models) /
				     sizeof(*icl_l2_models)))
		return true;
	snprintf(why, n,
		 "Level 2 of intel_icl is Ice Lake's, Tiger Lake's and Rocket Lake's (models 7d 7e 6a 6c 8c 8d a7), not model 0x%x's",
		 ci->model);
	return false;
}

static const struct td_grp icl_groups[] = {
	{ .name = "topdown", .id = "l1", .level = 1, .fam = &fam_icl_l1,
	  .nr_events = 7, .ev = icl_l1_ev, .anchor = "TOPDOWN.SLOTS_P",
	  .offered = icl_l2_offered,
	  .formula = "Level 1 (this set's formula); fetch_latency = 5 * "
		     "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE / "
		     "TOPDOWN.SLOTS_P; fetch_bandwidth = frontend_bound - "
		     "fetch_latency" },
	{ .name = "bad_speculation", .id = "bs", .level = 2,
	  .in_level2 = true, .fam = &fam_icl_bs, .nr_events = 6,
	  .ev = icl_bs_ev, .anchor = "TOPDOWN.SLOTS_P",
	  .offered = icl_l2_offered,
	  .formula = "bad_speculation as Level 1; branch_mispredicts = "
		     "BR_MISP_RETIRED.ALL_BRANCHES / (BR_MISP_RETIRED.ALL_BRANCHES "
		     "+ MACHINE_CLEARS.COUNT) * bad_speculation; machine_clears "
		     "= bad_speculation - branch_mispredicts" },
	{ .name = "backend", .id = "be", .level = 2, .in_level2 = true,
	  .fam = &fam_icl_be, .nr_events = 8, .ev = icl_be_ev,
	  .anchor = "TOPDOWN.SLOTS_P", .offered = icl_l2_offered,
	  .formula = "memory_bound = (CYCLE_ACTIVITY.STALLS_MEM_ANY + "
		     "EXE_ACTIVITY.BOUND_ON_STORES) / (CYCLE_ACTIVITY.STALLS_TOTAL "
		     "+ EXE_ACTIVITY.1_PORTS_UTIL + retiring * "
		     "EXE_ACTIVITY.2_PORTS_UTIL + EXE_ACTIVITY.BOUND_ON_STORES) * "
		     "backend_bound; core_bound = backend_bound - memory_bound" },
	{ .name = "retiring", .id = "re", .level = 2, .in_level2 = true,
	  .fam = &fam_icl_re, .nr_events = 7, .ev = icl_re_ev,
	  .anchor = "TOPDOWN.SLOTS_P", .offered = icl_l2_offered,
	  .formula = "heavy_operations = UOPS_RETIRED.SLOTS / UOPS_ISSUED.ANY "
		     "* IDQ.MS_UOPS / TOPDOWN.SLOTS_P + retiring * "
		     "(UOPS_DECODED.DEC0 - UOPS_DECODED.DEC0,cmask=1) / "
		     "IDQ.MITE_UOPS; light_operations = retiring - "
		     "heavy_operations" },
};

#define ICL_BUDGET .gp_counters = 8, .hw_fixed = true, \
	.budget = "8 general-purpose counters per hardware thread from Ice " \
		  "Lake on (CPUID leaf 0AH EAX[15:8], Intel SDM vol. 3B), " \
		  "cycles and instructions on fixed counters"

const struct td_set td_set_intel_icl = {
	.name = "intel_icl",
	.title = "Intel Icelake+ big cores: TopDown L1 from slot events",
	.metrics = "retiring bad_speculation frontend_bound backend_bound ipc",
	.fam = &fam_slots,
	.nr_events = 6,
	.ev = icl_ev,
	.match = match_icl,
	.formula = "Intel Icelake+ TopDown L1 from general-counter slot events (not "
		"PERF_METRICS): frontend = IDQ_UOPS_NOT_DELIVERED.CORE / "
		"TOPDOWN.SLOTS_P; retiring = UOPS_RETIRED.SLOTS / "
		"TOPDOWN.SLOTS_P; backend = TOPDOWN.BACKEND_BOUND_SLOTS / "
		"TOPDOWN.SLOTS_P; bad_speculation = the rest",
	.source = "perf pmu-events x86/icelake, icelakex, tigerlake, rocketlake, "
		"sapphirerapids, alderlake (cpu_core), linux 6.1 and 6.12",
	.anchor = "TOPDOWN.SLOTS_P",
	INTEL_MINFO,
	.nr_groups = sizeof(icl_groups) / sizeof(icl_groups[0]),
	.groups = icl_groups,
	ICL_BUDGET,
};

/* ---- Sapphire Rapids and later: Level 1 + Level 2 ---------------------- */

enum {
	R_SLOTS, R_IDQ, R_RET, R_BE, R_BAD, R_BRM, R_MEM, R_HEAVY, R_NR
};

/*
 *   Level 1: frontend = IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS, retiring =
 *   UOPS_RETIRED.SLOTS / SLOTS, backend = TOPDOWN.BACKEND_BOUND_SLOTS /
 *   SLOTS, bad speculation = TOPDOWN.BAD_SPEC_SLOTS / SLOTS (all measured;
 *   their sum is not forced to 1).
 *   Level 2: branch_mispredicts = BR_MISPREDICT_SLOTS / SLOTS,
 *   machine_clears = bad - branch_mispredicts, memory_bound =
 *   MEMORY_BOUND_SLOTS / SLOTS, core_bound = backend - memory_bound,
 *   heavy_operations = UOPS_RETIRED.HEAVY / SLOTS, light_operations =
 *   retiring - heavy_operations.
 */
static void decode_spr(const struct td_decoder *d, const uint64_t *c,
		       struct td_metrics *out)
{
	uint64_t slots = td_cnt(d, c, R_SLOTS);
	__int128 fe = td_cnt(d, c, R_IDQ);
	__int128 ret = td_cnt(d, c, R_RET);
	__int128 be = td_cnt(d, c, R_BE);
	__int128 bad = td_cnt(d, c, R_BAD);
	__int128 brm = td_cnt(d, c, R_BRM);
	__int128 mem = td_cnt(d, c, R_MEM);
	__int128 heavy = td_cnt(d, c, R_HEAVY);

	td_put_ratio(out, "retiring", ret, slots, true);
	td_put_ratio(out, "bad_speculation", bad, slots, true);
	td_put_ratio(out, "frontend_bound", fe, slots, true);
	td_put_ratio(out, "backend_bound", be, slots, true);
	td_put_ratio(out, "branch_mispredicts", brm, slots, true);
	td_put_ratio(out, "machine_clears", bad - brm, slots, true);
	td_put_ratio(out, "memory_bound", mem, slots, true);
	td_put_ratio(out, "core_bound", be - mem, slots, true);
	td_put_ratio(out, "heavy_operations", heavy, slots, true);
	td_put_ratio(out, "light_operations", ret - heavy, slots, true);
}

static const struct td_family fam_spr = {
	.name = "intel_spr", .nr_roles = R_NR, .decode = decode_spr,
};

static const struct td_ev_tmpl spr_ev[] = {
	RW("TOPDOWN.SLOTS_P", R_SLOTS, TD_PMU_MAIN, RAW(0xa4, 0x01, 0),
	   "event=0xa4,umask=0x01", "TOPDOWN.SLOTS slots"),
	RW("IDQ_UOPS_NOT_DELIVERED.CORE", R_IDQ, TD_PMU_MAIN,
	   RAW(0x9c, 0x01, 0), "event=0x9c,umask=0x01", "IDQ_BUBBLES.CORE"),
	RW("UOPS_RETIRED.SLOTS", R_RET, TD_PMU_MAIN, RAW(0xc2, 0x02, 0),
	   "event=0xc2,umask=0x02", NULL),
	RW("TOPDOWN.BACKEND_BOUND_SLOTS", R_BE, TD_PMU_MAIN,
	   RAW(0xa4, 0x02, 0), "event=0xa4,umask=0x02", NULL),
	RW("TOPDOWN.BAD_SPEC_SLOTS", R_BAD, TD_PMU_MAIN, RAW(0xa4, 0x04, 0),
	   "event=0xa4,umask=0x04", NULL),
	RW("TOPDOWN.BR_MISPREDICT_SLOTS", R_BRM, TD_PMU_MAIN,
	   RAW(0xa4, 0x08, 0), "event=0xa4,umask=0x08", NULL),
	RW("TOPDOWN.MEMORY_BOUND_SLOTS", R_MEM, TD_PMU_MAIN,
	   RAW(0xa4, 0x10, 0), "event=0xa4,umask=0x10", NULL),
	RW("UOPS_RETIRED.HEAVY", R_HEAVY, TD_PMU_MAIN, RAW(0xc2, 0x01, 0),
	   "event=0xc2,umask=0x01", NULL),
};

static const unsigned int spr_models[] = { 0x8f, 0xcf, 0xad, 0xae };

static int match_spr(const struct td_set *s, const struct td_cpu_info *ci,
		     char *why, size_t n)
{
	return match_models(s, ci, why, n, spr_models,
			    sizeof(spr_models) / sizeof(*spr_models),
			    "TopDown L1 + L2 from general-counter slot events");
}

const struct td_set td_set_intel_spr = {
	.name = "intel_spr",
	.title = "Intel Sapphire Rapids+: TopDown L1 and L2 from slot events",
	.metrics = "L1 + branch_mispredicts machine_clears memory_bound core_bound "
		   "heavy_operations light_operations",
	.fam = &fam_spr,
	.nr_events = 8,
	.ev = spr_ev,
	.match = match_spr,
	.formula = "Intel Sapphire Rapids+ TopDown L1 + L2 from general-counter "
		"slot events: each class its TOPDOWN.*_SLOTS (or "
		"UOPS_RETIRED.SLOTS / IDQ_UOPS_NOT_DELIVERED.CORE) count / "
		"TOPDOWN.SLOTS_P, measured, not forced to sum to 1",
	.source = "perf pmu-events x86/sapphirerapids, emeraldrapids, "
		"graniterapids, linux 6.1, 6.12 and 7.3 (Granite Rapids' "
		"TopdownL1/L2 from 7.3)",
	.anchor = "TOPDOWN.SLOTS_P",
	INTEL_MINFO,
	ICL_BUDGET,
};

/* ---- hybrid: Golden Cove on cpu_core, Gracemont on cpu_atom ------------ */

enum {
	H_C_SLOTS, H_C_IDQ, H_C_RET, H_C_BE,
	H_A_FE, H_A_BAD, H_A_BE, H_A_RET, H_NR
};

/*
 * Core CPUs count the four core events, atom CPUs the four atom events;
 * on a CPU of the other kind an event is not created and its delta is 0.
 * Gracemont's four TOPDOWN_*.ALL events split its issue slots, so their
 * sum is the atom slot count (whatever the width). Both halves are added
 * slot for slot:
 *   slots     = core SLOTS_P + (atom FE + BAD + BE + RET)
 *   frontend  = (core IDQ_UOPS_NOT_DELIVERED.CORE + atom FE) / slots
 *   retiring  = (core UOPS_RETIRED.SLOTS + atom RET) / slots
 *   backend   = (core BACKEND_BOUND_SLOTS + atom BE) / slots
 *   bad spec  = (core SLOTS_P - core FE - core RET - core BE + atom BAD)
 *               / slots
 * A record from a core CPU thus decodes with the core formula, one from an
 * atom CPU with the atom one, and a sum over both is slot-weighted.
 */
static void decode_hybrid(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	__int128 cs = td_cnt(d, c, H_C_SLOTS);
	__int128 cfe = td_cnt(d, c, H_C_IDQ), cret = td_cnt(d, c, H_C_RET);
	__int128 cbe = td_cnt(d, c, H_C_BE);
	__int128 afe = td_cnt(d, c, H_A_FE), abad = td_cnt(d, c, H_A_BAD);
	__int128 abe = td_cnt(d, c, H_A_BE), aret = td_cnt(d, c, H_A_RET);
	unsigned __int128 slots = cs + afe + abad + abe + aret;

	td_put_ratio(out, "retiring", cret + aret, slots, true);
	td_put_ratio(out, "bad_speculation", cs - cfe - cret - cbe + abad,
		     slots, true);
	td_put_ratio(out, "frontend_bound", cfe + afe, slots, true);
	td_put_ratio(out, "backend_bound", cbe + abe, slots, true);
}

static const struct td_family fam_hybrid = {
	.name = "intel_hybrid", .nr_roles = H_NR, .decode = decode_hybrid,
};

static const struct td_ev_tmpl adl_ev[] = {
	RW("core/TOPDOWN.SLOTS_P", H_C_SLOTS, TD_PMU_CORE,
	   RAW(0xa4, 0x01, 0), "cpu_core event=0xa4,umask=0x01", "TOPDOWN.SLOTS slots"),
	RW("core/IDQ_UOPS_NOT_DELIV.CORE", H_C_IDQ, TD_PMU_CORE,
	   RAW(0x9c, 0x01, 0), "cpu_core event=0x9c,umask=0x01",
	   "IDQ_UOPS_NOT_DELIVERED.CORE IDQ_BUBBLES.CORE"),
	RW("core/UOPS_RETIRED.SLOTS", H_C_RET, TD_PMU_CORE,
	   RAW(0xc2, 0x02, 0), "cpu_core event=0xc2,umask=0x02", NULL),
	RW("core/TOPDOWN.BE_BOUND_SLOTS", H_C_BE, TD_PMU_CORE,
	   RAW(0xa4, 0x02, 0), "cpu_core event=0xa4,umask=0x02",
	   "TOPDOWN.BACKEND_BOUND_SLOTS"),
	RW("atom/TOPDOWN_FE_BOUND.ALL", H_A_FE, TD_PMU_ATOM,
	   RAW(0x71, 0x00, 0), "cpu_atom event=0x71,umask=0x00", NULL),
	RW("atom/TOPDOWN_BAD_SPEC.ALL", H_A_BAD, TD_PMU_ATOM,
	   RAW(0x73, 0x00, 0), "cpu_atom event=0x73,umask=0x00",
	   "TOPDOWN_BAD_SPECULATION.ALL"),
	RW("atom/TOPDOWN_BE_BOUND.ALL", H_A_BE, TD_PMU_ATOM,
	   RAW(0x74, 0x00, 0), "cpu_atom event=0x74,umask=0x00", NULL),
	RW("atom/TOPDOWN_RETIRING.ALL", H_A_RET, TD_PMU_ATOM,
	   RAW(0xc2, 0x00, 0), "cpu_atom event=0xc2,umask=0x00", "UOPS_RETIRED.ALL"),
};

static const unsigned int adl_models[] = { 0x97, 0x9a, 0xb7, 0xba, 0xbf };

static int match_adl(const struct td_set *s, const struct td_cpu_info *ci,
		     char *why, size_t n)
{
	char cores[64], atoms[64];
	int fit;

	fit = match_models(s, ci, why, n, adl_models,
			   sizeof(adl_models) / sizeof(*adl_models), "");
	if (fit == TD_FIT_NO)
		return fit;
	if (ci->core_pmu < 0 || ci->atom_pmu < 0 ||
	    !ci->pmu[ci->core_pmu].has_cpus ||
	    !ci->pmu[ci->atom_pmu].has_cpus) {
		snprintf(why, n,
			 "Intel model 0x%x without both cpu_core and cpu_atom PMUs (with cpus files)",
			 ci->model);
		return TD_FIT_NO;
	}
	td_format_cpulist(ci->pmu[ci->core_pmu].cpus, TD_CPU_WORDS, cores,
			  sizeof(cores));
	td_format_cpulist(ci->pmu[ci->atom_pmu].cpus, TD_CPU_WORDS, atoms,
			  sizeof(atoms));
	snprintf(why, n,
		 "hybrid Intel %s (model 0x%x): Golden Cove events on cpu_core (type %u, CPUs %s), Gracemont events on cpu_atom (type %u, CPUs %s)",
		 td_intel_model_name(ci->model), ci->model,
		 ci->pmu[ci->core_pmu].type, cores,
		 ci->pmu[ci->atom_pmu].type, atoms);
	return TD_FIT_AUTO;
}

const struct td_set td_set_intel_adl_hybrid = {
	.name = "intel_adl_hybrid",
	.title = "Intel Alder/Raptor Lake hybrid: per-PMU TopDown L1",
	.metrics = "retiring bad_speculation frontend_bound backend_bound",
	.fam = &fam_hybrid,
	.nr_events = 8,
	.ev = adl_ev,
	.match = match_adl,
	.formula = "Intel hybrid TopDown L1, slot-weighted over both PMUs: cpu_core "
		"as intel_icl, cpu_atom slots = the sum of its four "
		"TOPDOWN_*.ALL events",
	.source = "perf pmu-events x86/alderlake (cpu_core and cpu_atom units), "
		"linux 6.1 and 6.12",
	INTEL_MINFO,
};
