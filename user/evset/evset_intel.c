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
	   RAW(0x9c, 0x01, 0), "event=0x9c,umask=0x01", "IDQ_BUBBLES.CORE"),
	RW("UOPS_RETIRED.SLOTS", S_RET, TD_PMU_MAIN, RAW(0xc2, 0x02, 0),
	   "event=0xc2,umask=0x02", NULL),
	RW("TOPDOWN.BACKEND_BOUND_SLOTS", S_BE, TD_PMU_MAIN,
	   RAW(0xa4, 0x02, 0), "event=0xa4,umask=0x02", NULL),
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
		"graniterapids, linux 6.1 and 6.12",
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
};
