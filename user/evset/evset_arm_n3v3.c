// SPDX-License-Identifier: GPL-2.0
/*
 * Neoverse N3 and V3 (evset_arm.c has the other Arm sets): perf 7.3's own
 * Level 1 and metric groups for them, from
 * tools/perf/pmu-events/arch/arm64/arm/neoverse-n3/metrics.json and
 * neoverse-v3/metrics.json of linux-source-7.3, which the mapfile gives
 * parts 0xd8e (N3) and 0xd83 (V3AE). The event numbers are those JSON
 * directories' (stall.json, spec_operation.json, ...).
 *
 *   arm_neoverse_n3   part 0xd8e, width 5
 *   arm_neoverse_v3   parts 0xd84 (V3) and 0xd83 (V3AE), width 10
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "evset/evset_arm.h"

/* ---- Level 1 ----------------------------------------------------------- */

enum {
	F_CYCLES, F_OP_RETIRED, F_OP_SPEC, F_STALL_SLOT, F_STALL_SLOT_FE,
	F_STALL_SLOT_BE, F_FLUSH, F_NR
};

/*
 * perf 7.3's Level 1 of N3 and V3, W the core's width written into the
 * JSON (5 on N3, 10 on V3: the set's def_slots), slots perf's #slots
 * (caps/slots, the label's slots=, W without caps/slots):
 *   frontend  = STALL_SLOT_FRONTEND / (W * CPU_CYCLES)
 *               - STALL_FRONTEND_FLUSH / CPU_CYCLES
 *   bad spec  = (1 - STALL_SLOT / (W * CPU_CYCLES))
 *               * (1 - OP_RETIRED / OP_SPEC)
 *               + STALL_FRONTEND_FLUSH / CPU_CYCLES
 *   retiring  = OP_RETIRED / OP_SPEC
 *               * (1 - STALL_SLOT / (slots * CPU_CYCLES))
 *   backend   = STALL_SLOT_BACKEND / (slots * CPU_CYCLES)
 * frontend and bad speculation override arm64/sbsa.json's, retiring and
 * backend are sbsa.json's: the cycles the front end spends refilling
 * after a flush move from frontend to bad speculation.
 */
static void decode_stall_flush(const struct td_decoder *d, const uint64_t *c,
			       struct td_metrics *out)
{
	const struct td_set *s = d->family;
	uint64_t cyc = td_cnt(d, c, F_CYCLES);
	uint64_t opr = td_cnt(d, c, F_OP_RETIRED);
	uint64_t ops = td_cnt(d, c, F_OP_SPEC);
	uint64_t st = td_cnt(d, c, F_STALL_SLOT);
	uint64_t flush = td_cnt(d, c, F_FLUSH);
	__int128 w = s->def_slots;
	__int128 fe = td_cnt(d, c, F_STALL_SLOT_FE);
	__int128 sw = w * cyc;
	__int128 S = (__int128)d->slots * cyc;
	long double ratio = ops ? (long double)opr / ops : 0;
	bool ok = S && sw && ops;

	td_put_value(out, "retiring",
		     S ? ratio * (1 - (long double)st / (long double)S) : 0,
		     ok, true);
	td_put_value(out, "bad_speculation",
		     sw ? (1 - (long double)st / (long double)sw) * (1 - ratio) +
		     (long double)flush / cyc : 0, ok, true);
	td_put_ratio(out, "frontend_bound", fe - w * flush, sw, true);
	td_put_ratio(out, "backend_bound", td_cnt(d, c, F_STALL_SLOT_BE), S,
		     true);
}

static const struct td_family fam_stall_flush = {
	.name = "arm_stall_flush", .nr_roles = F_NR,
	.decode = decode_stall_flush,
};

/* STALL_FRONTEND_FLUSH takes the sixth counter: no INST_RETIRED, no IPC
 * (as on V1).
 */
static const struct td_ev_tmpl n3v3_ev[] = {
	EV_CYCLES(F_CYCLES),
	EV(OP_RETIRED, F_OP_RETIRED, 0x3a),
	EV(OP_SPEC, F_OP_SPEC, 0x3b),
	EV(STALL_SLOT, F_STALL_SLOT, 0x3f),
	EV(STALL_SLOT_FRONTEND, F_STALL_SLOT_FE, 0x3e),
	EV(STALL_SLOT_BACKEND, F_STALL_SLOT_BE, 0x3d),
	EV(STALL_FRONTEND_FLUSH, F_FLUSH, 0x8162),
};

/* ---- metrics ------------------------------------------------------------
 *
 * perf 7.3's metrics of both cores that tdctl's groups compute, with
 * their names and metric groups. Topdown_Frontend and Topdown_Backend
 * are shares of stalled cycles (perf: "percent of cycles") that explain
 * Level 1 without dividing it: no parent, as Arm's other drill-down
 * metrics.
 */
#define CYC(n, grp) ARM_M(n, n, grp, TD_UNIT_CYCLES)
#define SHR(n, grp) ARM_M(n, n, grp, TD_UNIT_SHARE)
#define PKI(n, grp) ARM_PKI(n, n, grp)

static const struct td_metric_info n3v3_minfo[] = {
	ARM_L1("retiring", "retiring"),
	ARM_L1("bad_speculation", "bad_speculation"),
	ARM_L1("frontend_bound", "frontend_bound"),
	ARM_L1("backend_bound", "backend_bound"),
	CYC("frontend_stalled_cycles", "Cycle_Accounting"),
	CYC("frontend_core_bound", "Topdown_Frontend"),
	CYC("frontend_mem_bound", "Topdown_Frontend"),
	CYC("frontend_core_flow_bound", "Topdown_Frontend"),
	CYC("frontend_core_flush_bound", "Topdown_Frontend"),
	CYC("frontend_mem_cache_bound", "Topdown_Frontend"),
	CYC("frontend_mem_tlb_bound", "Topdown_Frontend"),
	CYC("frontend_cache_l1i_bound", "Topdown_Frontend"),
	CYC("frontend_cache_l2i_bound", "Topdown_Frontend"),
	CYC("backend_stalled_cycles", "Cycle_Accounting"),
	CYC("backend_busy_bound", "Topdown_Backend"),
	CYC("backend_core_bound", "Topdown_Backend"),
	CYC("backend_mem_bound", "Topdown_Backend"),
	CYC("backend_core_rename_bound", "Topdown_Backend"),
	CYC("backend_mem_cache_bound", "Topdown_Backend"),
	CYC("backend_mem_store_bound", "Topdown_Backend"),
	CYC("backend_mem_tlb_bound", "Topdown_Backend"),
	CYC("backend_cache_l1d_bound", "Topdown_Backend"),
	CYC("backend_cache_l2d_bound", "Topdown_Backend"),
	PKI("dtlb_mpki", "MPKI;DTLB_Effectiveness"),
	SHR("dtlb_walk_ratio", "Miss_Ratio;DTLB_Effectiveness"),
	SHR("l1d_tlb_miss_ratio", "Miss_Ratio;DTLB_Effectiveness"),
	PKI("l1d_tlb_mpki", "MPKI;DTLB_Effectiveness"),
	SHR("l2_tlb_miss_ratio",
	    "Miss_Ratio;ITLB_Effectiveness;DTLB_Effectiveness"),
	PKI("l2_tlb_mpki", "MPKI;ITLB_Effectiveness;DTLB_Effectiveness"),
	PKI("itlb_mpki", "MPKI;ITLB_Effectiveness"),
	SHR("itlb_walk_ratio", "Miss_Ratio;ITLB_Effectiveness"),
	SHR("l1i_tlb_miss_ratio", "Miss_Ratio;ITLB_Effectiveness"),
	PKI("l1i_tlb_mpki", "MPKI;ITLB_Effectiveness"),
	SHR("branch_misprediction_ratio", "Miss_Ratio;Branch_Effectiveness"),
	PKI("branch_mpki", "MPKI;Branch_Effectiveness"),
	SHR("branch_direct_ratio", "Branch_Effectiveness"),
	SHR("branch_indirect_ratio", "Branch_Effectiveness"),
	SHR("branch_return_ratio", "Branch_Effectiveness"),
	SHR("l1d_cache_miss_ratio", "Miss_Ratio;L1D_Cache_Effectiveness"),
	PKI("l1d_cache_mpki", "MPKI;L1D_Cache_Effectiveness"),
	SHR("l1i_cache_miss_ratio", "Miss_Ratio;L1I_Cache_Effectiveness"),
	PKI("l1i_cache_mpki", "MPKI;L1I_Cache_Effectiveness"),
	SHR("l2_cache_miss_ratio", "Miss_Ratio;L2_Cache_Effectiveness"),
	PKI("l2_cache_mpki", "MPKI;L2_Cache_Effectiveness"),
	SHR("ll_cache_read_hit_ratio", "LL_Cache_Effectiveness"),
	SHR("ll_cache_read_miss_ratio", "Miss_Ratio;LL_Cache_Effectiveness"),
	PKI("ll_cache_read_mpki", "MPKI;LL_Cache_Effectiveness"),
	SHR("load_percentage", "Operation_Mix"),
	SHR("store_percentage", "Operation_Mix"),
	SHR("integer_dp_percentage", "Operation_Mix"),
	SHR("simd_percentage", "Operation_Mix"),
	SHR("scalar_fp_percentage", "Operation_Mix"),
	SHR("branch_percentage", "Operation_Mix"),
	SHR("crypto_percentage", "Operation_Mix"),
	SHR("barrier_percentage", "Operation_Mix"),
	SHR("sve_all_percentage", "Operation_Mix"),
};

/* ---- groups -------------------------------------------------------------
 *
 * Each within 6 event counters and the cycle counter; the stall groups
 * count CPU_CYCLES and the stall count their shares are of, as perf's
 * -M Topdown_Frontend does.
 */

/* a / (b + c) and (a + b) / c */
#define RS(n, a, b, c) { n, { a, -1, -1 }, { 1, 0, 0 }, { b, c }, 1 }
#define RP(n, a, b, c) { n, { a, b, -1 }, { 1, 1, 0 }, { c, -1 }, 1 }

enum { FC_CYC, FC_STALL, FC_CPU, FC_FLOW, FC_FLUSH, FC_MEM };

static const struct td_ev_tmpl fcore_ev[] = {
	EV_CYCLES(FC_CYC),
	EVA(STALL_FRONTEND, FC_STALL, 0x23, "stalled-cycles-frontend", false),
	GEV(STALL_FRONTEND_CPUBOUND, FC_CPU, 0x8160),
	GEV(STALL_FRONTEND_FLOW, FC_FLOW, 0x8161),
	GEV(STALL_FRONTEND_FLUSH, FC_FLUSH, 0x8162),
	GEV(STALL_FRONTEND_MEMBOUND, FC_MEM, 0x8158),
};

static const struct td_ratio fcore_r[] = {
	R("frontend_stalled_cycles", FC_STALL, FC_CYC, 1),
	R("frontend_core_bound", FC_CPU, FC_STALL, 1),
	R("frontend_mem_bound", FC_MEM, FC_STALL, 1),
	R("frontend_core_flow_bound", FC_FLOW, FC_CPU, 1),
	R("frontend_core_flush_bound", FC_FLUSH, FC_CPU, 1),
};

enum { FM_CYC, FM_MEM, FM_L1I, FM_L2, FM_TLB };

static const struct td_ev_tmpl fmem_ev[] = {
	EV_ANCHOR(FM_CYC),
	GEV(STALL_FRONTEND_MEMBOUND, FM_MEM, 0x8158),
	GEV(STALL_FRONTEND_L1I, FM_L1I, 0x8159),
	GEV(STALL_FRONTEND_MEM, FM_L2, 0x815b),
	GEV(STALL_FRONTEND_TLB, FM_TLB, 0x815c),
};

static const struct td_ratio fmem_r[] = {
	RP("frontend_mem_cache_bound", FM_L1I, FM_L2, FM_MEM),
	R("frontend_mem_tlb_bound", FM_TLB, FM_MEM, 1),
	RS("frontend_cache_l1i_bound", FM_L1I, FM_L1I, FM_L2),
	RS("frontend_cache_l2i_bound", FM_L2, FM_L1I, FM_L2),
};

enum { BC_CYC, BC_STALL, BC_BUSY, BC_CPU, BC_RENAME, BC_MEM };

static const struct td_ev_tmpl bcore_ev[] = {
	EV_CYCLES(BC_CYC),
	EVA(STALL_BACKEND, BC_STALL, 0x24, "stalled-cycles-backend", false),
	GEV(STALL_BACKEND_BUSY, BC_BUSY, 0x816b),
	GEV(STALL_BACKEND_CPUBOUND, BC_CPU, 0x816a),
	GEV(STALL_BACKEND_RENAME, BC_RENAME, 0x816d),
	GEV(STALL_BACKEND_MEMBOUND, BC_MEM, 0x8164),
};

static const struct td_ratio bcore_r[] = {
	R("backend_stalled_cycles", BC_STALL, BC_CYC, 1),
	R("backend_busy_bound", BC_BUSY, BC_STALL, 1),
	R("backend_core_bound", BC_CPU, BC_STALL, 1),
	R("backend_mem_bound", BC_MEM, BC_STALL, 1),
	R("backend_core_rename_bound", BC_RENAME, BC_CPU, 1),
};

enum { BM_CYC, BM_MEM, BM_L1D, BM_L2, BM_ST, BM_TLB };

static const struct td_ev_tmpl bmem_ev[] = {
	EV_ANCHOR(BM_CYC),
	GEV(STALL_BACKEND_MEMBOUND, BM_MEM, 0x8164),
	GEV(STALL_BACKEND_L1D, BM_L1D, 0x8165),
	GEV(STALL_BACKEND_MEM, BM_L2, 0x4005),
	GEV(STALL_BACKEND_ST, BM_ST, 0x8168),
	GEV(STALL_BACKEND_TLB, BM_TLB, 0x8167),
};

static const struct td_ratio bmem_r[] = {
	RP("backend_mem_cache_bound", BM_L1D, BM_L2, BM_MEM),
	R("backend_mem_store_bound", BM_ST, BM_MEM, 1),
	R("backend_mem_tlb_bound", BM_TLB, BM_MEM, 1),
	RS("backend_cache_l1d_bound", BM_L1D, BM_L1D, BM_L2),
	RS("backend_cache_l2d_bound", BM_L2, BM_L1D, BM_L2),
};

enum { I_CYC, I_INST, I_L1I_TLB, I_L1I_TLB_R, I_WALK };

static const struct td_ev_tmpl itlb_ev[] = {
	EV_ANCHOR(I_CYC), EV_INSTR(I_INST),
	GEV(L1I_TLB, I_L1I_TLB, 0x26), GEV(L1I_TLB_REFILL, I_L1I_TLB_R, 0x02),
	GEV(ITLB_WALK, I_WALK, 0x35),
};

static const struct td_ratio itlb_r[] = {
	R("itlb_mpki", I_WALK, I_INST, 1000),
	R("itlb_walk_ratio", I_WALK, I_L1I_TLB, 1),
	R("l1i_tlb_miss_ratio", I_L1I_TLB_R, I_L1I_TLB, 1),
	R("l1i_tlb_mpki", I_L1I_TLB_R, I_INST, 1000),
};

enum { B_CYC, B_INST, B_BR, B_MIS, B_IMMED, B_IND, B_RET };

static const struct td_ev_tmpl br_ev[] = {
	EV_ANCHOR(B_CYC), EV_INSTR(B_INST),
	GEV(BR_RETIRED, B_BR, 0x21), GEV(BR_MIS_PRED_RETIRED, B_MIS, 0x22),
	GEV(BR_IMMED_RETIRED, B_IMMED, 0x0d), GEV(BR_IND_RETIRED, B_IND, 0x811d),
	GEV(BR_RETURN_RETIRED, B_RET, 0x0e),
};

static const struct td_ratio br_r[] = {
	R("branch_misprediction_ratio", B_MIS, B_BR, 1),
	R("branch_mpki", B_MIS, B_INST, 1000),
	R("branch_direct_ratio", B_IMMED, B_BR, 1),
	R("branch_indirect_ratio", B_IND, B_BR, 1),
	R("branch_return_ratio", B_RET, B_BR, 1),
};

enum { X_CYC, X_SPEC, X_LD, X_ST, X_ASE, X_VFP, X_CRYPTO };

static const struct td_ev_tmpl mix_ev[] = {
	EV_ANCHOR(X_CYC), GEV(INST_SPEC, X_SPEC, 0x1b),
	GEV(LD_SPEC, X_LD, 0x70), GEV(ST_SPEC, X_ST, 0x71),
	GEV(ASE_SPEC, X_ASE, 0x74), GEV(VFP_SPEC, X_VFP, 0x75),
	GEV(CRYPTO_SPEC, X_CRYPTO, 0x77),
};

static const struct td_ratio mix_r[] = {
	R("load_percentage", X_LD, X_SPEC, 1),
	R("store_percentage", X_ST, X_SPEC, 1),
	R("simd_percentage", X_ASE, X_SPEC, 1),
	R("scalar_fp_percentage", X_VFP, X_SPEC, 1),
	R("crypto_percentage", X_CRYPTO, X_SPEC, 1),
};

/* Where N3 and V3 differ (perf 7.3): N3 counts a branch by PC_WRITE_SPEC
 * and takes DSB_SPEC out of DP_SPEC, V3 adds BR_IMMED_SPEC and
 * BR_INDIRECT_SPEC and counts DP_SPEC as it is.
 */
enum { Y_CYC, Y_SPEC, Y_DP, Y_SVE, Y_A, Y_B };

static const struct td_ev_tmpl n3_int_ev[] = {
	EV_ANCHOR(Y_CYC), GEV(INST_SPEC, Y_SPEC, 0x1b),
	GEV(DP_SPEC, Y_DP, 0x73), GEV(SVE_INST_SPEC, Y_SVE, 0x8006),
	GEV(DSB_SPEC, Y_A, 0x7d), GEV(PC_WRITE_SPEC, Y_B, 0x76),
};

static const struct td_ratio n3_int_r[] = {
	R2("integer_dp_percentage", Y_DP, -1, Y_A, Y_SPEC, 1),
	R("branch_percentage", Y_B, Y_SPEC, 1),
	R("sve_all_percentage", Y_SVE, Y_SPEC, 1),
};

static const struct td_ev_tmpl v3_int_ev[] = {
	EV_ANCHOR(Y_CYC), GEV(INST_SPEC, Y_SPEC, 0x1b),
	GEV(DP_SPEC, Y_DP, 0x73), GEV(SVE_INST_SPEC, Y_SVE, 0x8006),
	GEV(BR_IMMED_SPEC, Y_A, 0x78), GEV(BR_INDIRECT_SPEC, Y_B, 0x7a),
};

static const struct td_ratio v3_int_r[] = {
	R("integer_dp_percentage", Y_DP, Y_SPEC, 1),
	R2("branch_percentage", Y_A, 1, Y_B, Y_SPEC, 1),
	R("sve_all_percentage", Y_SVE, Y_SPEC, 1),
};

enum { Z_CYC, Z_SPEC, Z_ISB, Z_DSB, Z_DMB };

static const struct td_ev_tmpl bar_ev[] = {
	EV_ANCHOR(Z_CYC), GEV(INST_SPEC, Z_SPEC, 0x1b),
	GEV(ISB_SPEC, Z_ISB, 0x7c), GEV(DSB_SPEC, Z_DSB, 0x7d),
	GEV(DMB_SPEC, Z_DMB, 0x7e),
};

static const struct td_ratio bar_r[] = {
	{ "barrier_percentage", { Z_ISB, Z_DSB, Z_DMB }, { 1, 1, 1 },
	  { Z_SPEC, -1 }, 1 },
};

/* --level 2 takes the stall groups (l1 and those four: 23 events);
 * the drill-down groups are -M's.
 */
#define N3V3_GROUPS(int_ev, int_r, int_f) { \
	{ .name = "topdown", .id = "l1", .level = 1, \
	  .fam = &fam_stall_flush, .nr_events = 7, .ev = n3v3_ev, \
	  .anchor = "CPU_CYCLES", .formula = "Level 1 (this set's formula)" }, \
	RGRP("frontend_core", "fc", true, NULL, fcore_ev, fcore_r, \
	     "CPU_CYCLES", "STALL_FRONTEND / CPU_CYCLES; STALL_FRONTEND_" \
	     "CPUBOUND, _MEMBOUND / STALL_FRONTEND; _FLOW, _FLUSH / " \
	     "STALL_FRONTEND_CPUBOUND"), \
	RGRP("frontend_mem", "fm", true, NULL, fmem_ev, fmem_r, \
	     "CPU_CYCLES", "STALL_FRONTEND_L1I + _MEM, _TLB / " \
	     "STALL_FRONTEND_MEMBOUND; _L1I, _MEM / (_L1I + _MEM)"), \
	RGRP("backend_core", "bc", true, NULL, bcore_ev, bcore_r, \
	     "CPU_CYCLES", "STALL_BACKEND / CPU_CYCLES; STALL_BACKEND_BUSY, " \
	     "_CPUBOUND, _MEMBOUND / STALL_BACKEND; _RENAME / " \
	     "STALL_BACKEND_CPUBOUND"), \
	RGRP("backend_mem", "bm", true, NULL, bmem_ev, bmem_r, \
	     "CPU_CYCLES", "STALL_BACKEND_L1D + _MEM, _ST, _TLB / " \
	     "STALL_BACKEND_MEMBOUND; _L1D, _MEM / (_L1D + _MEM)"), \
	ARM_GRP_DTLB(false), \
	RGRP("itlb", "it", false, "TLB", itlb_ev, itlb_r, "CPU_CYCLES", \
	     "as DTLB over L1I_TLB: ITLB_WALK and L1I_TLB_REFILL per access " \
	     "and per 1000 INST_RETIRED"), \
	RGRP("branch", "br", false, "Branch", br_ev, br_r, "CPU_CYCLES", \
	     "BR_MIS_PRED_RETIRED, BR_IMMED_RETIRED, BR_IND_RETIRED, " \
	     "BR_RETURN_RETIRED / BR_RETIRED; mispredictions per 1000 " \
	     "INST_RETIRED"), \
	ARM_GRP_L1C(false), \
	ARM_GRP_L2C(false), \
	RGRP("op_mix", "m1", false, "InstructionMix", mix_ev, mix_r, \
	     "CPU_CYCLES", "LD_SPEC, ST_SPEC, ASE_SPEC, VFP_SPEC, " \
	     "CRYPTO_SPEC / INST_SPEC"), \
	RGRP("int_branch_mix", "m2", false, "InstructionMix", int_ev, int_r, \
	     "CPU_CYCLES", int_f), \
	RGRP("barrier_mix", "m3", false, "InstructionMix", bar_ev, bar_r, \
	     "CPU_CYCLES", "(ISB_SPEC + DSB_SPEC + DMB_SPEC) / INST_SPEC"), \
}

static const struct td_grp n3_groups[] = N3V3_GROUPS(n3_int_ev, n3_int_r,
	"(DP_SPEC - DSB_SPEC), PC_WRITE_SPEC, SVE_INST_SPEC / INST_SPEC");

static const struct td_grp v3_groups[] = N3V3_GROUPS(v3_int_ev, v3_int_r,
	"DP_SPEC, BR_IMMED_SPEC + BR_INDIRECT_SPEC, SVE_INST_SPEC / "
	"INST_SPEC");

#define N3V3_COMMON \
	.metrics = "retiring bad_speculation frontend_bound backend_bound", \
	.fam = &fam_stall_flush, .nr_events = 7, .ev = n3v3_ev, \
	.slots_from_caps = true, .anchor = "CPU_CYCLES", \
	.nr_minfo = sizeof(n3v3_minfo) / sizeof(n3v3_minfo[0]), \
	.minfo = n3v3_minfo, .gp_counters = 6, \
	.cycle_counter = 0x11, \
	.budget = "6 event counters and the cycle counter (libpfm4's " \
		  "libpfm_arm_neoverse_v3(3); N3 taken as N2, V2 and V3)"

/* ---- matching ---------------------------------------------------------- */

static int match_width(const struct td_set *s, const struct td_cpu_info *ci,
		       char *why, size_t n, const unsigned int *parts,
		       int nparts)
{
	int fit = td_arm_match_parts(s, ci, why, n, parts, nparts);
	size_t len = strlen(why);

	if (fit == TD_FIT_AUTO)
		snprintf(why + len, n - len,
			 "; frontend and bad speculation over width %u (perf 7.3)",
			 s->def_slots);
	return fit;
}

static const unsigned int n3_parts[] = { PART_NEOVERSE_N3 };
static const unsigned int v3_parts[] = {
	PART_NEOVERSE_V3, PART_NEOVERSE_V3AE,
};

static int match_n3(const struct td_set *s, const struct td_cpu_info *ci,
		    char *why, size_t n)
{
	return match_width(s, ci, why, n, n3_parts, 1);
}

static int match_v3(const struct td_set *s, const struct td_cpu_info *ci,
		    char *why, size_t n)
{
	return match_width(s, ci, why, n, v3_parts, 2);
}

#define N3V3_FORMULA(w) \
	"perf 7.3 neoverse-n3 and neoverse-v3 metrics.json: frontend = " \
	"STALL_SLOT_FRONTEND / (" w " * CPU_CYCLES) - STALL_FRONTEND_FLUSH " \
	"/ CPU_CYCLES; bad_speculation = (1 - STALL_SLOT / (" w " * " \
	"CPU_CYCLES)) * (1 - OP_RETIRED / OP_SPEC) + STALL_FRONTEND_FLUSH " \
	"/ CPU_CYCLES; retiring and backend as sbsa.json over slots * " \
	"CPU_CYCLES (slots: caps/slots, else " w ")"

const struct td_set td_set_arm_neoverse_n3 = {
	.name = "arm_neoverse_n3",
	.title = "Arm Neoverse N3: perf 7.3's Level 1 (STALL_FRONTEND_FLUSH), width 5",
	.def_slots = 5,
	.match = match_n3,
	.formula = N3V3_FORMULA("5"),
	.source = "perf 7.3 pmu-events arm64 arm/neoverse-n3 (mapfile "
		"0x410fd8e0; not in 6.1 or 6.12)",
	N3V3_COMMON,
	.nr_groups = sizeof(n3_groups) / sizeof(n3_groups[0]),
	.groups = n3_groups,
};

const struct td_set td_set_arm_neoverse_v3 = {
	.name = "arm_neoverse_v3",
	.title = "Arm Neoverse V3: perf 7.3's Level 1 (STALL_FRONTEND_FLUSH), width 10",
	.def_slots = 10,
	.match = match_v3,
	.formula = N3V3_FORMULA("10"),
	.source = "perf 7.3 pmu-events arm64 arm/neoverse-v3, which its "
		"mapfile gives V3AE (0x410fd830); V3 (0xd84) is in no perf "
		"version's mapfile: the same core's tables",
	N3V3_COMMON,
	.nr_groups = sizeof(v3_groups) / sizeof(v3_groups[0]),
	.groups = v3_groups,
};
