/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Arm event sets' files share (evset_arm.c: the parts, the
 * Neoverse N2, V1 and V2 sets, the cycle-based set; evset_arm_n3v3.c:
 * Neoverse N3 and V3): part numbers, event templates, ratios and the
 * drill-down groups, matching by MIDR part.
 */
#ifndef TD_EVSET_ARM_H
#define TD_EVSET_ARM_H

#include <stdbool.h>
#include <stddef.h>

#include "evset/evset_priv.h"

#define ARM_IMPL_ARM		0x41

/* MIDR part numbers (arch/arm64/include/asm/cputype.h) */
#define PART_NEOVERSE_N1	0xd0c
#define PART_NEOVERSE_N2	0xd49
#define PART_NEOVERSE_V1	0xd40
#define PART_NEOVERSE_V2	0xd4f
#define PART_NEOVERSE_V3AE	0xd83
#define PART_NEOVERSE_V3	0xd84
#define PART_NEOVERSE_N3	0xd8e
#define PART_NEOVERSE_E1	0xd4a

/*
 * The names are those of the PMUv3 common events, which perf prints as
 * given ("CPU_CYCLES", "cpu_cycles": matched case-insensitively). al:
 * perf's generic hardware events that the kernel maps to the same event
 * number (armv8_pmuv3_perf_map, arch/arm64/kernel/perf_event.c in 6.1,
 * drivers/perf/arm_pmuv3.c in 6.12). opt: only IPC reads the count.
 */
#define EVA(n, role, cfg, al, opt) \
	{ #n, role, TD_EV_RAW, TD_PMU_MAIN, cfg, "event=" #cfg, al, opt }
#define EV(n, role, cfg) EVA(n, role, cfg, NULL, false)
#define EV_CYCLES(role) EVA(CPU_CYCLES, role, 0x11, "cycles cpu-cycles", false)
#define EV_INST(role) EVA(INST_RETIRED, role, 0x08, "instructions", true)

/* Events of a drill-down group: role = position in the group;
 * INST_RETIRED is a denominator here, not optional.
 */
#define GEV(n, role, cfg) EV(n, role, cfg)
#define EV_INSTR(role) EVA(INST_RETIRED, role, 0x08, "instructions", false)
/* CPU_CYCLES where no metric reads it: the group's anchor, which `tdctl
 * decode` does not require (perf stat -M DTLB_Effectiveness has none)
 */
#define EV_ANCHOR(role) EVA(CPU_CYCLES, role, 0x11, "cycles cpu-cycles", true)

/* r(name, numerator, denominator, scale), r2 with a second term */
#define R(n, a, d, sc) { n, { a, -1, -1 }, { 1, 0, 0 }, { d, -1 }, sc }
#define R2(n, a, sg, b, d, sc) \
	{ n, { a, b, -1 }, { 1, sg, 0 }, { d, -1 }, sc }

/* Metric descriptions: a drill-down share, a count per 1000
 * instructions, a Level 1 class.
 */
#define ARM_M(n, pn, grp, u) { n, pn, grp, NULL, 2, u, true }
#define ARM_PKI(n, pn, grp) { n, pn, grp, NULL, 2, TD_UNIT_PKI, false }
#define ARM_L1(n, pn) { n, pn, "Default;TopdownL1", NULL, 1, TD_UNIT_SLOTS, true }

/* A Level 2 group of ratios (td_fam_ratios). */
#define RGRP(nm, i, l2, al, evs, rs, anc, f) \
	{ .name = nm, .id = i, .level = 2, .in_level2 = l2, .aliases = al, \
	  .fam = &td_fam_ratios, .nr_events = sizeof(evs) / sizeof(evs[0]), \
	  .ev = evs, .anchor = anc, .formula = f, \
	  .nr_ratios = sizeof(rs) / sizeof(rs[0]), .ratios = rs }

/* Drill-down groups of perf's neoverse-n2-v2 metrics that N3 and V3
 * have as they are (evset_arm.c): data TLB, L1 caches, L2 and last-level
 * cache.
 */
extern const struct td_ev_tmpl td_arm_dtlb_ev[7];
extern const struct td_ratio td_arm_dtlb_r[6];
extern const struct td_ev_tmpl td_arm_l1c_ev[6];
extern const struct td_ratio td_arm_l1c_r[4];
extern const struct td_ev_tmpl td_arm_l2c_ev[6];
extern const struct td_ratio td_arm_l2c_r[5];

/* Those groups (in_level2: --level 2 takes it). */
#define ARM_GRP_DTLB(l2) \
	RGRP("dtlb", "dt", l2, "TLB", td_arm_dtlb_ev, td_arm_dtlb_r, \
	     "CPU_CYCLES", \
	     "MPKI = 1000 * refills or walks / INST_RETIRED; ratios = refills " \
	     "or walks / L1D_TLB or L2D_TLB accesses")
#define ARM_GRP_L1C(l2) \
	RGRP("l1_cache", "c1", l2, "Cache", td_arm_l1c_ev, td_arm_l1c_r, \
	     "CPU_CYCLES", \
	     "refills / accesses and 1000 * refills / INST_RETIRED, L1D and L1I")
#define ARM_GRP_L2C(l2) \
	RGRP("l2_ll_cache", "c2", l2, "Cache", td_arm_l2c_ev, td_arm_l2c_r, \
	     "CPU_CYCLES", \
	     "L2D: refills / accesses, MPKI; last level: (LL_CACHE_RD - " \
	     "LL_CACHE_MISS_RD) / LL_CACHE_RD, misses / reads, MPKI")

/*
 * A set built on STALL_SLOT: automatic on the Arm (0x41) parts listed
 * (nparts of them) when every CPU has the same MIDR; anywhere else with
 * a PMU that has caps/slots (PMUv3.4+) it can be asked for by name (the
 * events exist, the formula is not validated for that core).
 */
int td_arm_match_parts(const struct td_set *s, const struct td_cpu_info *ci,
		       char *why, size_t n, const unsigned int *parts,
		       int nparts);

#endif
