// SPDX-License-Identifier: GPL-2.0
/*
 * Intel event sets of Icelake and later (evset_intel.c has the models,
 * the sets before Icelake and perf's Level 2 metrics): the general-
 * counter TOPDOWN.*_SLOTS events, Sapphire Rapids' Level 1 + 2, and the
 * hybrid parts' cpu_core and cpu_atom.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "evset/evset_intel.h"

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
	int fit = td_intel_match_models(s, ci, why, n, icl_models,
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
 *   fetch_latency   = 5 * IDQ_NOT_DELIV.CYCLES_0_UOPS
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

	td_put_ld(out, "branch_mispredicts", share * (long double)bad,
		  all ? (long double)slots : 0);
	td_put_ld(out, "machine_clears", (1 - share) * (long double)bad,
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

	td_put_ld(out, "memory_bound", share * be, ok ? slots : 0);
	td_put_ld(out, "core_bound", (1 - share) * be, ok ? slots : 0);
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
	if (td_is_intel6(ci) &&
	    td_intel_in_list(ci->model, icl_l2_models,
			     sizeof(icl_l2_models) / sizeof(*icl_l2_models)))
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
		     "IDQ_NOT_DELIV.CYCLES_0_UOPS / "
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
	return td_intel_match_models(s, ci, why, n, spr_models,
				     sizeof(spr_models) / sizeof(*spr_models),
				     "TopDown L1 + L2 from general-counter slot events");
}

const struct td_set td_set_intel_spr = {
	.name = "intel_spr",
	.title = "Intel Sapphire Rapids+: TopDown L1 and L2 from slot events",
	.metrics = "retiring bad_speculation frontend_bound backend_bound "
		   "branch_mispredicts machine_clears memory_bound core_bound "
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

	fit = td_intel_match_models(s, ci, why, n, adl_models,
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
