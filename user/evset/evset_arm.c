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
 *   arm_neoverse_v2   Neoverse V2, V3, N3: the plain SBSA Level 1
 *                     (arm64/sbsa.json), slots from caps/slots
 *   arm_stall_cycles  Neoverse N1 and other cores without STALL_SLOT:
 *                     share of cycles stalled in front/back end (not
 *                     TopDown slots)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "evset/evset_priv.h"

#define ARM_IMPL_ARM		0x41

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

#define PART_NEOVERSE_N1	0xd0c
#define PART_NEOVERSE_N2	0xd49
#define PART_NEOVERSE_V1	0xd40
#define PART_NEOVERSE_V2	0xd4f
#define PART_NEOVERSE_V3	0xd84
#define PART_NEOVERSE_N3	0xd8e
#define PART_NEOVERSE_E1	0xd4a

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

/*
 * Sets built on STALL_SLOT: automatic only on the listed parts; anywhere
 * else with a PMU that has caps/slots (PMUv3.4+) they can be asked for by
 * name (the events exist, the formula is not validated for that core).
 */
static int match_slot_set(const struct td_set *s,
			  const struct td_cpu_info *ci, char *why, size_t n,
			  const unsigned int *parts, int nparts)
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
static const unsigned int v2_parts[] = {
	PART_NEOVERSE_V2, PART_NEOVERSE_V3, PART_NEOVERSE_N3,
};

static int match_n2(const struct td_set *s, const struct td_cpu_info *ci,
		    char *why, size_t n)
{
	return match_slot_set(s, ci, why, n, n2_parts, 1);
}

static int match_v1(const struct td_set *s, const struct td_cpu_info *ci,
		    char *why, size_t n)
{
	return match_slot_set(s, ci, why, n, v1_parts, 1);
}

static int match_v2(const struct td_set *s, const struct td_cpu_info *ci,
		    char *why, size_t n)
{
	return match_slot_set(s, ci, why, n, v2_parts, 3);
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
		"arm/neoverse-n2-v2 in 6.12)",
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
	.title = "Arm Neoverse V2/V3/N3: STALL_SLOT Level 1 (SBSA formula)",
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
		"common-and-microarch.json; arm/neoverse-n2-v2 in 6.12; V3 and "
		"N3 are in neither 6.1 nor 6.12: Arm PMUv3 architecture, the "
		"same common event numbers)",
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
