// SPDX-License-Identifier: GPL-2.0
/*
 * Arm event sets. Event numbers are the architectural PMUv3 common events
 * (tools/perf/pmu-events/arch/arm64/common-and-microarch.json); the type is
 * the core PMU's sysfs type (armv8_pmuv3*), config the event number.
 *
 *   arm_neoverse_n2   Neoverse N2: STALL_SLOT Level 1, 5 slots, with the
 *                     STALL_SLOT_FRONTEND/STALL_SLOT erratum correction
 *                     before r0p3 (seed 003; neoverse-n2-v2/metrics.json)
 *   arm_neoverse_v1   Neoverse V1: Level 1 with the BR_MIS_PRED term of
 *                     neoverse-v1/metrics.json, 8 slots
 *   arm_neoverse_v2   Neoverse V2: the plain SBSA Level 1
 *                     (arm64/sbsa.json), slots from caps/slots
 *   arm_stall_cycles  Neoverse N1 and other cores without STALL_SLOT:
 *                     share of cycles stalled in front/back end (not
 *                     TopDown slots)
 *
 * Neoverse N3 and V3, which perf 7.3 gives a Level 1 of their own, are
 * evset_arm_n3v3.c's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "evset/evset_arm.h"

#define ARM_CPU_CYCLES		0x11
#define ARM_INST_RETIRED	0x08
#define ARM_BR_MIS_PRED		0x10
#define ARM_STALL_FRONTEND	0x23
#define ARM_STALL_BACKEND	0x24
#define ARM_OP_RETIRED		0x3a
#define ARM_OP_SPEC		0x3b
#define ARM_STALL_SLOT_BACKEND	0x3d
#define ARM_STALL_SLOT_FRONTEND	0x3e
#define ARM_STALL_SLOT		0x3f

static const struct {
	unsigned int impl, part;
	const char *name;
} arm_parts[] = {
	{ ARM_IMPL_ARM, 0xd03, "Cortex-A53" },
	{ ARM_IMPL_ARM, 0xd05, "Cortex-A55" },
	{ ARM_IMPL_ARM, 0xd07, "Cortex-A57" },
	{ ARM_IMPL_ARM, 0xd08, "Cortex-A72" },
	{ ARM_IMPL_ARM, 0xd0b, "Cortex-A76" },
	{ ARM_IMPL_ARM, PART_NEOVERSE_N1, "Neoverse N1" },
	{ ARM_IMPL_ARM, 0xd0d, "Cortex-A77" },
	{ ARM_IMPL_ARM, PART_NEOVERSE_V1, "Neoverse V1" },
	{ ARM_IMPL_ARM, 0xd41, "Cortex-A78" },
	{ ARM_IMPL_ARM, 0xd44, "Cortex-X1" },
	{ ARM_IMPL_ARM, PART_NEOVERSE_N2, "Neoverse N2" },
	{ ARM_IMPL_ARM, PART_NEOVERSE_E1, "Neoverse E1" },
	{ ARM_IMPL_ARM, PART_NEOVERSE_V2, "Neoverse V2" },
	{ ARM_IMPL_ARM, PART_NEOVERSE_V3AE, "Neoverse V3AE" },
	{ ARM_IMPL_ARM, PART_NEOVERSE_V3, "Neoverse V3" },
	{ ARM_IMPL_ARM, PART_NEOVERSE_N3, "Neoverse N3" },
	{ 0x00, 0x051, "QEMU -cpu max" },
};

const char *td_arm_part_name(unsigned int implementer, unsigned int part)
{
	for (size_t i = 0; i < sizeof(arm_parts) / sizeof(arm_parts[0]); i++)
		if (arm_parts[i].impl == implementer &&
		    arm_parts[i].part == part)
			return arm_parts[i].name;
	return NULL;
}

/* Roles of the STALL_SLOT family. */
enum {
	A_CYCLES, A_OP_RETIRED, A_OP_SPEC, A_STALL_SLOT, A_STALL_SLOT_FE,
	A_STALL_SLOT_BE, A_INST_RETIRED, A_BR_MIS_PRED, A_NR
};

/*
 * Level 1 from STALL_SLOT events (arm64/sbsa.json):
 *   S         = slots * CPU_CYCLES
 *   frontend  = STALL_SLOT_FRONTEND / S
 *   backend   = STALL_SLOT_BACKEND / S
 *   retiring  = OP_RETIRED / OP_SPEC * (1 - STALL_SLOT / S)
 *   bad spec  = (1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / S)
 * N2 before r0p3 (sets with rev=): STALL_SLOT_FRONTEND and STALL_SLOT
 * each count one CPU_CYCLES too many, subtract it (seed 003).
 * V1 (sets with BR_MIS_PRED): 4 * BR_MIS_PRED / CPU_CYCLES moves from
 * frontend to bad speculation (neoverse-v1/metrics.json).
 */
static void decode_stall_slot(const struct td_decoder *d, const uint64_t *c,
			      struct td_metrics *out)
{
	const struct td_set *s = d->family;
	uint64_t cyc = td_cnt(d, c, A_CYCLES);
	uint64_t opr = td_cnt(d, c, A_OP_RETIRED);
	uint64_t ops = td_cnt(d, c, A_OP_SPEC);
	unsigned __int128 S = (unsigned __int128)d->slots * cyc;
	__int128 fe = td_cnt(d, c, A_STALL_SLOT_FE);
	__int128 st = td_cnt(d, c, A_STALL_SLOT);
	__int128 br = 0;
	long double ratio, busy;
	bool ok;

	if (s->has_rev && d->revision < s->rev_fixed) {
		fe -= cyc;
		st -= cyc;
	}
	if (td_has(d, A_BR_MIS_PRED))
		br = (__int128)4 * d->slots * td_cnt(d, c, A_BR_MIS_PRED);

	ok = S && ops;
	ratio = ops ? (long double)opr / ops : 0;
	busy = S ? (long double)((__int128)S - st) / (long double)S : 0;
	td_put_value(out, "retiring", ratio * busy, ok, true);
	td_put_value(out, "bad_speculation",
		     (1 - ratio) * busy +
		     (S ? (long double)br / (long double)S : 0), ok, true);
	td_put_ratio(out, "frontend_bound", fe - br, S, true);
	td_put_ratio(out, "backend_bound", td_cnt(d, c, A_STALL_SLOT_BE), S,
		     true);
	if (td_has(d, A_INST_RETIRED))
		td_put_ipc(out, td_cnt(d, c, A_INST_RETIRED), cyc);
}

static const struct td_family fam_stall_slot = {
	.name = "arm_stall_slot", .nr_roles = A_NR,
	.decode = decode_stall_slot,
};

static const struct td_ev_tmpl n2_ev[] = {
	EV_CYCLES(A_CYCLES),
	EV(OP_RETIRED, A_OP_RETIRED, 0x3a),
	EV(OP_SPEC, A_OP_SPEC, 0x3b),
	EV(STALL_SLOT, A_STALL_SLOT, 0x3f),
	EV(STALL_SLOT_FRONTEND, A_STALL_SLOT_FE, 0x3e),
	EV(STALL_SLOT_BACKEND, A_STALL_SLOT_BE, 0x3d),
	EV_INST(A_INST_RETIRED),
};

/* V1 has 6 counters + the cycle counter: BR_MIS_PRED replaces
 * INST_RETIRED, so no IPC.
 */
static const struct td_ev_tmpl v1_ev[] = {
	EV_CYCLES(A_CYCLES),
	EV(OP_RETIRED, A_OP_RETIRED, 0x3a),
	EV(OP_SPEC, A_OP_SPEC, 0x3b),
	EV(STALL_SLOT, A_STALL_SLOT, 0x3f),
	EV(STALL_SLOT_FRONTEND, A_STALL_SLOT_FE, 0x3e),
	EV(STALL_SLOT_BACKEND, A_STALL_SLOT_BE, 0x3d),
	EVA(BR_MIS_PRED, A_BR_MIS_PRED, 0x10, "branch-misses", false),
};

/* ---- drill-down groups ---------------------------------------------------
 *
 * Arm's stage 2 for Neoverse N2 and V2: the metric groups of perf's
 * arm64/arm/neoverse-n2-v2/metrics.json (linux 6.12, and 7.3's
 * sve_all_percentage; 6.1's neoverse-n2 has none), which seed 003's
 * authors upstreamed as TLB, cache, branch and instruction mix: miss
 * ratios, MPKI and shares of the speculatively
 * executed instructions. They explain Level 1 rather than divide it (no
 * parent). Each group counts CPU_CYCLES (on the cycle counter) and its
 * denominators: INST_RETIRED (MPKI), the accesses (ratios), INST_SPEC
 * (the mix).
 */
static const struct td_metric_info arm_minfo[] = {
	ARM_L1("retiring", "retiring"),
	ARM_L1("bad_speculation", "bad_speculation"),
	ARM_L1("frontend_bound", "frontend_bound"),
	ARM_L1("backend_bound", "backend_bound"),
	{ "ipc", "ipc", "General", NULL, 1, TD_UNIT_PER_CYCLE, false },
	ARM_PKI("dtlb_mpki", "dtlb_mpki", "MPKI;DTLB_Effectiveness"),
	ARM_M("dtlb_walk_ratio", "dtlb_walk_ratio",
	      "Miss_Ratio;DTLB_Effectiveness", TD_UNIT_SHARE),
	ARM_M("l1d_tlb_miss_ratio", "l1d_tlb_miss_ratio",
	      "Miss_Ratio;DTLB_Effectiveness", TD_UNIT_SHARE),
	ARM_PKI("l1d_tlb_mpki", "l1d_tlb_mpki", "MPKI;DTLB_Effectiveness"),
	ARM_M("l2_tlb_miss_ratio", "l2_tlb_miss_ratio",
	      "Miss_Ratio;ITLB_Effectiveness;DTLB_Effectiveness",
	      TD_UNIT_SHARE),
	ARM_PKI("l2_tlb_mpki", "l2_tlb_mpki", "MPKI;ITLB_Effectiveness;DTLB_Effectiveness"),
	ARM_PKI("itlb_mpki", "itlb_mpki", "MPKI;ITLB_Effectiveness"),
	ARM_M("itlb_walk_ratio", "itlb_walk_ratio",
	      "Miss_Ratio;ITLB_Effectiveness", TD_UNIT_SHARE),
	ARM_M("l1i_tlb_miss_ratio", "l1i_tlb_miss_ratio",
	      "Miss_Ratio;ITLB_Effectiveness", TD_UNIT_SHARE),
	ARM_PKI("l1i_tlb_mpki", "l1i_tlb_mpki", "MPKI;ITLB_Effectiveness"),
	ARM_M("branch_misprediction_ratio", "branch_misprediction_ratio",
	      "Miss_Ratio;Branch_Effectiveness", TD_UNIT_SHARE),
	ARM_PKI("branch_mpki", "branch_mpki", "MPKI;Branch_Effectiveness"),
	ARM_PKI("branch_pki", "branch_pki", "MPKI;Branch_Effectiveness"),
	ARM_M("l1d_cache_miss_ratio", "l1d_cache_miss_ratio",
	      "Miss_Ratio;L1D_Cache_Effectiveness", TD_UNIT_SHARE),
	ARM_PKI("l1d_cache_mpki", "l1d_cache_mpki", "MPKI;L1D_Cache_Effectiveness"),
	ARM_M("l1i_cache_miss_ratio", "l1i_cache_miss_ratio",
	      "Miss_Ratio;L1I_Cache_Effectiveness", TD_UNIT_SHARE),
	ARM_PKI("l1i_cache_mpki", "l1i_cache_mpki", "MPKI;L1I_Cache_Effectiveness"),
	ARM_M("l2_cache_miss_ratio", "l2_cache_miss_ratio",
	      "Miss_Ratio;L2_Cache_Effectiveness", TD_UNIT_SHARE),
	ARM_PKI("l2_cache_mpki", "l2_cache_mpki", "MPKI;L2_Cache_Effectiveness"),
	ARM_M("ll_cache_read_hit_ratio", "ll_cache_read_hit_ratio",
	      "LL_Cache_Effectiveness", TD_UNIT_SHARE),
	ARM_M("ll_cache_read_miss_ratio", "ll_cache_read_miss_ratio",
	      "Miss_Ratio;LL_Cache_Effectiveness", TD_UNIT_SHARE),
	ARM_PKI("ll_cache_read_mpki", "ll_cache_read_mpki", "MPKI;LL_Cache_Effectiveness"),
	ARM_PKI("l3d_cache_mpki", "l3d_cache_mpki", "MPKI;L3_Cache_Effectiveness"),
	ARM_M("l3d_cache_miss_ratio", "l3d_cache_miss_rate",
	      "Miss_Ratio;L3_Cache_Effectiveness", TD_UNIT_SHARE),
	ARM_M("frontend_stalled_cycles", "frontend_stalled_cycles",
	      "Cycle_Accounting", TD_UNIT_CYCLES),
	ARM_M("backend_stalled_cycles", "backend_stalled_cycles",
	      "Cycle_Accounting", TD_UNIT_CYCLES),
	ARM_M("load_percentage", "load_percentage", "Operation_Mix",
	      TD_UNIT_SHARE),
	ARM_M("store_percentage", "store_percentage", "Operation_Mix",
	      TD_UNIT_SHARE),
	ARM_M("integer_dp_percentage", "integer_dp_percentage",
	      "Operation_Mix", TD_UNIT_SHARE),
	ARM_M("simd_percentage", "simd_percentage", "Operation_Mix",
	      TD_UNIT_SHARE),
	ARM_M("scalar_fp_percentage", "scalar_fp_percentage", "Operation_Mix",
	      TD_UNIT_SHARE),
	ARM_M("branch_percentage", "branch_percentage", "Operation_Mix",
	      TD_UNIT_SHARE),
	ARM_M("crypto_percentage", "crypto_percentage", "Operation_Mix",
	      TD_UNIT_SHARE),
	ARM_M("branch_immed_spec_rate", "branch_immed_spec_rate",
	      "Operation_Mix", TD_UNIT_SHARE),
	ARM_M("branch_return_spec_rate", "branch_return_spec_rate",
	      "Operation_Mix", TD_UNIT_SHARE),
	ARM_M("branch_indirect_spec_rate", "branch_indirect_spec_rate",
	      "Operation_Mix", TD_UNIT_SHARE),
	ARM_M("sve_all_percentage", "sve_all_percentage", "Operation_Mix",
	      TD_UNIT_SHARE),
};

#define ARM_MINFO .nr_minfo = sizeof(arm_minfo) / sizeof(arm_minfo[0]), \
	.minfo = arm_minfo

enum { D_CYC, D_INST, D_L1D_TLB, D_L1D_TLB_R, D_WALK, D_L2_TLB, D_L2_TLB_R };

const struct td_ev_tmpl td_arm_dtlb_ev[] = {
	EV_ANCHOR(D_CYC), EV_INSTR(D_INST),
	GEV(L1D_TLB, D_L1D_TLB, 0x25), GEV(L1D_TLB_REFILL, D_L1D_TLB_R, 0x05),
	GEV(DTLB_WALK, D_WALK, 0x34), GEV(L2D_TLB, D_L2_TLB, 0x2f),
	GEV(L2D_TLB_REFILL, D_L2_TLB_R, 0x2d),
};

const struct td_ratio td_arm_dtlb_r[] = {
	R("dtlb_mpki", D_WALK, D_INST, 1000),
	R("dtlb_walk_ratio", D_WALK, D_L1D_TLB, 1),
	R("l1d_tlb_miss_ratio", D_L1D_TLB_R, D_L1D_TLB, 1),
	R("l1d_tlb_mpki", D_L1D_TLB_R, D_INST, 1000),
	R("l2_tlb_miss_ratio", D_L2_TLB_R, D_L2_TLB, 1),
	R("l2_tlb_mpki", D_L2_TLB_R, D_INST, 1000),
};

enum { I_CYC, I_INST, I_L1I_TLB, I_L1I_TLB_R, I_WALK, I_BR, I_BR_MIS };

static const struct td_ev_tmpl itlb_ev[] = {
	EV_ANCHOR(I_CYC), EV_INSTR(I_INST),
	GEV(L1I_TLB, I_L1I_TLB, 0x26), GEV(L1I_TLB_REFILL, I_L1I_TLB_R, 0x02),
	GEV(ITLB_WALK, I_WALK, 0x35), GEV(BR_RETIRED, I_BR, 0x21),
	GEV(BR_MIS_PRED_RETIRED, I_BR_MIS, 0x22),
};

static const struct td_ratio itlb_r[] = {
	R("itlb_mpki", I_WALK, I_INST, 1000),
	R("itlb_walk_ratio", I_WALK, I_L1I_TLB, 1),
	R("l1i_tlb_miss_ratio", I_L1I_TLB_R, I_L1I_TLB, 1),
	R("l1i_tlb_mpki", I_L1I_TLB_R, I_INST, 1000),
	R("branch_misprediction_ratio", I_BR_MIS, I_BR, 1),
	R("branch_mpki", I_BR_MIS, I_INST, 1000),
	R("branch_pki", I_BR, I_INST, 1000),
};

enum { C_CYC, C_INST, C_L1D, C_L1D_R, C_L1I, C_L1I_R };

const struct td_ev_tmpl td_arm_l1c_ev[] = {
	EV_ANCHOR(C_CYC), EV_INSTR(C_INST),
	GEV(L1D_CACHE, C_L1D, 0x04), GEV(L1D_CACHE_REFILL, C_L1D_R, 0x03),
	GEV(L1I_CACHE, C_L1I, 0x14), GEV(L1I_CACHE_REFILL, C_L1I_R, 0x01),
};

const struct td_ratio td_arm_l1c_r[] = {
	R("l1d_cache_miss_ratio", C_L1D_R, C_L1D, 1),
	R("l1d_cache_mpki", C_L1D_R, C_INST, 1000),
	R("l1i_cache_miss_ratio", C_L1I_R, C_L1I, 1),
	R("l1i_cache_mpki", C_L1I_R, C_INST, 1000),
};

enum { L_CYC, L_INST, L_L2D, L_L2D_R, L_LL_RD, L_LL_MISS };

const struct td_ev_tmpl td_arm_l2c_ev[] = {
	EV_ANCHOR(L_CYC), EV_INSTR(L_INST),
	GEV(L2D_CACHE, L_L2D, 0x16), GEV(L2D_CACHE_REFILL, L_L2D_R, 0x17),
	GEV(LL_CACHE_RD, L_LL_RD, 0x36), GEV(LL_CACHE_MISS_RD, L_LL_MISS, 0x37),
};

const struct td_ratio td_arm_l2c_r[] = {
	R("l2_cache_miss_ratio", L_L2D_R, L_L2D, 1),
	R("l2_cache_mpki", L_L2D_R, L_INST, 1000),
	R2("ll_cache_read_hit_ratio", L_LL_RD, -1, L_LL_MISS, L_LL_RD, 1),
	R("ll_cache_read_miss_ratio", L_LL_MISS, L_LL_RD, 1),
	R("ll_cache_read_mpki", L_LL_MISS, L_INST, 1000),
};

enum { T_CYC, T_INST, T_L3D, T_L3D_R, T_STALL_FE, T_STALL_BE };

static const struct td_ev_tmpl l3c_ev[] = {
	EV_CYCLES(T_CYC), EV_INSTR(T_INST),
	GEV(L3D_CACHE, T_L3D, 0x2b), GEV(L3D_CACHE_REFILL, T_L3D_R, 0x2a),
	EVA(STALL_FRONTEND, T_STALL_FE, 0x23, "stalled-cycles-frontend", false),
	EVA(STALL_BACKEND, T_STALL_BE, 0x24, "stalled-cycles-backend", false),
};

static const struct td_ratio l3c_r[] = {
	R("l3d_cache_mpki", T_L3D_R, T_INST, 1000),
	R("l3d_cache_miss_ratio", T_L3D_R, T_L3D, 1),
	R("frontend_stalled_cycles", T_STALL_FE, T_CYC, 1),
	R("backend_stalled_cycles", T_STALL_BE, T_CYC, 1),
};

enum { X_CYC, X_SPEC, X_LD, X_ST, X_DP, X_ASE, X_VFP };

static const struct td_ev_tmpl mix1_ev[] = {
	EV_ANCHOR(X_CYC), GEV(INST_SPEC, X_SPEC, 0x1b),
	GEV(LD_SPEC, X_LD, 0x70), GEV(ST_SPEC, X_ST, 0x71),
	GEV(DP_SPEC, X_DP, 0x73), GEV(ASE_SPEC, X_ASE, 0x74),
	GEV(VFP_SPEC, X_VFP, 0x75),
};

static const struct td_ratio mix1_r[] = {
	R("load_percentage", X_LD, X_SPEC, 1),
	R("store_percentage", X_ST, X_SPEC, 1),
	R("integer_dp_percentage", X_DP, X_SPEC, 1),
	R("simd_percentage", X_ASE, X_SPEC, 1),
	R("scalar_fp_percentage", X_VFP, X_SPEC, 1),
};

enum { Y_CYC, Y_SPEC, Y_IMMED, Y_INDIRECT, Y_RETURN, Y_CRYPTO, Y_SVE };

/* SVE_INST_SPEC (sve_all_percentage, perf 7.3's Operation_Mix) is optional:
 * perf 6.12's -M Operation_Mix does not count it, and the group's other
 * metrics are decoded without it.
 */
static const struct td_ev_tmpl mix2_ev[] = {
	EV_ANCHOR(Y_CYC), GEV(INST_SPEC, Y_SPEC, 0x1b),
	GEV(BR_IMMED_SPEC, Y_IMMED, 0x78), GEV(BR_INDIRECT_SPEC, Y_INDIRECT, 0x7a),
	GEV(BR_RETURN_SPEC, Y_RETURN, 0x79), GEV(CRYPTO_SPEC, Y_CRYPTO, 0x77),
	EVA(SVE_INST_SPEC, Y_SVE, 0x8006, NULL, true),
};

static const struct td_ratio mix2_r[] = {
	R2("branch_percentage", Y_IMMED, 1, Y_INDIRECT, Y_SPEC, 1),
	R("crypto_percentage", Y_CRYPTO, Y_SPEC, 1),
	R("branch_immed_spec_rate", Y_IMMED, Y_SPEC, 1),
	R("branch_return_spec_rate", Y_RETURN, Y_SPEC, 1),
	R("branch_indirect_spec_rate", Y_INDIRECT, Y_SPEC, 1),
	R("sve_all_percentage", Y_SVE, Y_SPEC, 1),
};

static const struct td_grp arm_groups[] = {
	{ .name = "topdown", .id = "l1", .level = 1, .fam = &fam_stall_slot,
	  .nr_events = 7, .ev = n2_ev, .anchor = "CPU_CYCLES",
	  .formula = "Level 1 (this set's formula)" },
	ARM_GRP_DTLB(true),
	RGRP("itlb_branch", "ib", true, "TLB Branch", itlb_ev, itlb_r,
	     "CPU_CYCLES",
	     "ITLB: as DTLB over L1I_TLB; branch: BR_MIS_PRED_RETIRED / "
	     "BR_RETIRED, per 1000 INST_RETIRED"),
	ARM_GRP_L1C(true),
	ARM_GRP_L2C(true),
	RGRP("l3_cache_stalls", "c3", true, "Cache", l3c_ev, l3c_r,
	     "CPU_CYCLES",
	     "L3D: refills / accesses, MPKI; STALL_FRONTEND and STALL_BACKEND "
	     "/ CPU_CYCLES"),
	RGRP("op_mix", "m1", false, "InstructionMix", mix1_ev, mix1_r,
	     "CPU_CYCLES", "LD_SPEC, ST_SPEC, DP_SPEC, ASE_SPEC, VFP_SPEC / "
	     "INST_SPEC"),
	RGRP("branch_mix", "m2", false, "InstructionMix", mix2_ev, mix2_r,
	     "CPU_CYCLES", "BR_IMMED_SPEC, BR_INDIRECT_SPEC, BR_RETURN_SPEC, "
	     "CRYPTO_SPEC, SVE_INST_SPEC / INST_SPEC"),
};

#define ARM_GROUPS .nr_groups = sizeof(arm_groups) / sizeof(arm_groups[0]), \
	.groups = arm_groups, .gp_counters = 6, .cycle_counter = ARM_CPU_CYCLES, \
	.budget = "6 event counters and the cycle counter (Arm Neoverse N2 " \
		  "and V2 Technical Reference Manuals, PMCR_EL0.N)"

static bool arm_main_pmu(const struct td_cpu_info *ci, const char **name)
{
	int i = ci->main_pmu;

	if (ci->arch != TD_ARCH_ARM64 || i < 0 ||
	    strncmp(ci->pmu[i].name, "armv", 4))
		return false;
	*name = ci->pmu[i].name;
	return true;
}

static void describe(const struct td_cpu_info *ci, char *buf, size_t n)
{
	const char *part = td_arm_part_name(ci->implementer, ci->part);
	char rev[16];

	td_format_revision(ci->variant << 4 | ci->revision, rev, sizeof(rev));
	snprintf(buf, n, "%s %s (MIDR 0x%08x from %s)",
		 part ? part : "unknown Arm core", rev, ci->midr,
		 ci->midr_src);
}

/* td_arm_match_parts(): evset_arm.h */
int td_arm_match_parts(const struct td_set *s, const struct td_cpu_info *ci,
		       char *why, size_t n, const unsigned int *parts,
		       int nparts)
{
	const char *pmu;
	char d[128];
	bool mine = false;

	if (!arm_main_pmu(ci, &pmu)) {
		snprintf(why, n, "needs an Arm core PMU (armv8_pmuv3*)");
		return TD_FIT_NO;
	}
	describe(ci, d, sizeof(d));
	for (int i = 0; i < nparts; i++)
		if (ci->has_midr && ci->implementer == ARM_IMPL_ARM &&
		    ci->part == parts[i])
			mine = true;
	if (mine && !ci->midr_mixed) {
		char extra[80] = "";

		if (s->has_rev)
			snprintf(extra, sizeof(extra),
				 "; erratum correction %s (%s r0p3)",
				 (ci->variant << 4 | ci->revision) < s->rev_fixed ?
				 "on" : "off",
				 (ci->variant << 4 | ci->revision) < s->rev_fixed ?
				 "before" : "at or after");
		snprintf(why, n,
			 "%s on PMU %s: STALL_SLOT TopDown L1, slots=%u%s%s",
			 d, pmu, td_set_slots(s, ci),
			 ci->pmu[ci->main_pmu].slots ? " (caps/slots)" :
			 " (default, no caps/slots)", extra);
		return TD_FIT_AUTO;
	}
	if (ci->pmu[ci->main_pmu].has_slots) {
		snprintf(why, n,
			 "%s%s: PMU %s has caps/slots, formula not validated for this core",
			 d, ci->midr_mixed ? " (CPUs differ)" : "", pmu);
		return TD_FIT_MANUAL;
	}
	snprintf(why, n, "%s: PMU %s has no caps/slots (no STALL_SLOT events)",
		 d, pmu);
	return TD_FIT_NO;
}

static const unsigned int n2_parts[] = { PART_NEOVERSE_N2 };
static const unsigned int v1_parts[] = { PART_NEOVERSE_V1 };
static const unsigned int v2_parts[] = { PART_NEOVERSE_V2 };

static int match_n2(const struct td_set *s, const struct td_cpu_info *ci,
		    char *why, size_t n)
{
	return td_arm_match_parts(s, ci, why, n, n2_parts, 1);
}

static int match_v1(const struct td_set *s, const struct td_cpu_info *ci,
		    char *why, size_t n)
{
	return td_arm_match_parts(s, ci, why, n, v1_parts, 1);
}

static int match_v2(const struct td_set *s, const struct td_cpu_info *ci,
		    char *why, size_t n)
{
	return td_arm_match_parts(s, ci, why, n, v2_parts, 1);
}

const struct td_set td_set_arm_neoverse_n2 = {
	.name = "arm_neoverse_n2",
	.title = "Arm Neoverse N2: STALL_SLOT Level 1, erratum fix before r0p3",
	.metrics = "retiring bad_speculation frontend_bound backend_bound ipc",
	.fam = &fam_stall_slot,
	.nr_events = 7,
	.ev = n2_ev,
	.def_slots = 5,
	.slots_from_caps = true,
	.has_rev = true,
	.rev_fixed = 0x03,
	.rev_rule = "STALL_SLOT and STALL_SLOT_FRONTEND less CPU_CYCLES before r0p3",
	.match = match_n2,
	.formula = "Arm STALL_SLOT TopDown L1 (perf arm64 sbsa.json): slots = width "
		"* CPU_CYCLES; frontend = STALL_SLOT_FRONTEND / slots; backend = "
		"STALL_SLOT_BACKEND / slots; retiring = OP_RETIRED / OP_SPEC * "
		"(1 - STALL_SLOT / slots); bad_speculation = (1 - OP_RETIRED / "
		"OP_SPEC) * (1 - STALL_SLOT / slots); before r0p3 STALL_SLOT and "
		"STALL_SLOT_FRONTEND less CPU_CYCLES (erratum); without the "
		"BR_MIS_PRED terms of perf 6.12",
	.source = "Arm PMUv3 common event numbers (perf pmu-events arm64 "
		"common-and-microarch.json, arm/neoverse-n2 in 6.1, "
		"arm/neoverse-n2-v2 in 6.12 and 7.3)",
	.anchor = "CPU_CYCLES",
	ARM_MINFO,
	ARM_GROUPS,
};

const struct td_set td_set_arm_neoverse_v1 = {
	.name = "arm_neoverse_v1",
	.title = "Arm Neoverse V1: STALL_SLOT Level 1 with BR_MIS_PRED term",
	.metrics = "retiring bad_speculation frontend_bound backend_bound",
	.fam = &fam_stall_slot,
	.nr_events = 7,
	.ev = v1_ev,
	.def_slots = 8,
	.slots_from_caps = true,
	.match = match_v1,
	.formula = "Arm STALL_SLOT TopDown L1 with perf neoverse-v1 metrics.json: "
		"as arm_neoverse_n2 without erratum, 4 * BR_MIS_PRED / "
		"CPU_CYCLES moved from frontend to bad_speculation",
	.source = "Arm PMUv3 common event numbers (perf pmu-events arm64 "
		"common-and-microarch.json, arm/neoverse-v1 in 6.1 and 6.12)",
};

const struct td_set td_set_arm_neoverse_v2 = {
	.name = "arm_neoverse_v2",
	.title = "Arm Neoverse V2: STALL_SLOT Level 1 (SBSA formula)",
	.metrics = "retiring bad_speculation frontend_bound backend_bound ipc",
	.fam = &fam_stall_slot,
	.nr_events = 7,
	.ev = n2_ev,
	.def_slots = 8,
	.slots_from_caps = true,
	.match = match_v2,
	.formula = "Arm STALL_SLOT TopDown L1 (perf arm64 sbsa.json): slots = width "
		"* CPU_CYCLES; frontend = STALL_SLOT_FRONTEND / slots; backend = "
		"STALL_SLOT_BACKEND / slots; retiring = OP_RETIRED / OP_SPEC * "
		"(1 - STALL_SLOT / slots); bad_speculation = the rest of the "
		"busy slots; without the BR_MIS_PRED terms of perf 6.12",
	.source = "Arm PMUv3 common event numbers (perf pmu-events arm64 "
		"common-and-microarch.json, arm/neoverse-n2-v2 in 6.12 and 7.3)",
	.anchor = "CPU_CYCLES",
	ARM_MINFO,
	ARM_GROUPS,
};

/* ---- cycle-based stall breakdown -------------------------------------- */

enum { C_CYCLES, C_STALL_FE, C_STALL_BE, C_INST_RETIRED, C_NR };

static void decode_stall_cycles(const struct td_decoder *d,
				const uint64_t *c, struct td_metrics *out)
{
	uint64_t cyc = td_cnt(d, c, C_CYCLES);

	td_put_ratio(out, "frontend_stalled_cycles",
		     td_cnt(d, c, C_STALL_FE), cyc, true);
	td_put_ratio(out, "backend_stalled_cycles",
		     td_cnt(d, c, C_STALL_BE), cyc, true);
	if (td_has(d, C_INST_RETIRED))
		td_put_ipc(out, td_cnt(d, c, C_INST_RETIRED), cyc);
}

static const struct td_family fam_stall_cycles = {
	.name = "arm_stall_cycles", .nr_roles = C_NR,
	.decode = decode_stall_cycles,
};

static const struct td_ev_tmpl cyc_ev[] = {
	EV_CYCLES(C_CYCLES),
	EVA(STALL_FRONTEND, C_STALL_FE, 0x23, "stalled-cycles-frontend", false),
	EVA(STALL_BACKEND, C_STALL_BE, 0x24, "stalled-cycles-backend", false),
	EV_INST(C_INST_RETIRED),
};

/* Arm cores known to lack STALL_SLOT (PMUv3 before 3.4). */
static const unsigned int no_slot_parts[] = {
	PART_NEOVERSE_N1, PART_NEOVERSE_E1, 0xd0b, 0xd0d, 0xd41, 0xd44,
};

static int match_stall_cycles(const struct td_set *s,
			      const struct td_cpu_info *ci, char *why,
			      size_t n)
{
	const char *pmu;
	char d[128];

	(void)s;
	if (!arm_main_pmu(ci, &pmu)) {
		snprintf(why, n, "needs an Arm core PMU (armv8_pmuv3*)");
		return TD_FIT_NO;
	}
	describe(ci, d, sizeof(d));
	for (size_t i = 0; i < sizeof(no_slot_parts) / sizeof(*no_slot_parts);
	     i++) {
		if (ci->has_midr && !ci->midr_mixed &&
		    ci->implementer == ARM_IMPL_ARM &&
		    ci->part == no_slot_parts[i]) {
			snprintf(why, n,
				 "%s on PMU %s has no STALL_SLOT events: cycle-based stall breakdown (not TopDown slots)",
				 d, pmu);
			return TD_FIT_AUTO;
		}
	}
	snprintf(why, n,
		 "%s: STALL_FRONTEND/STALL_BACKEND are common events, not validated for this core",
		 d);
	return TD_FIT_MANUAL;
}

const struct td_set td_set_arm_stall_cycles = {
	.name = "arm_stall_cycles",
	.title = "Arm without STALL_SLOT (Neoverse N1...): stalled-cycle shares",
	.metrics = "frontend_stalled_cycles backend_stalled_cycles ipc",
	.fam = &fam_stall_cycles,
	.nr_events = 4,
	.ev = cyc_ev,
	.match = match_stall_cycles,
	.formula = "not TopDown slots: frontend_stalled_cycles = STALL_FRONTEND / "
		"CPU_CYCLES; backend_stalled_cycles = STALL_BACKEND / "
		"CPU_CYCLES; ipc = INST_RETIRED / CPU_CYCLES",
	.source = "Arm PMUv3 common event numbers (perf pmu-events arm64 "
		"common-and-microarch.json, arm/cortex-a76-n1 in 6.1, "
		"arm/neoverse-n1 in 6.12)",
};
