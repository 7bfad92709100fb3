// SPDX-License-Identifier: GPL-2.0
/*
 * Neoverse N3 and V3 (evset_arm.c has the other Arm sets): perf 7.3's own
 * Level 1 for them, from
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

/* Level 1: perf's names and metric groups (sbsa.json) */
static const struct td_metric_info n3v3_minfo[] = {
	ARM_L1("retiring", "retiring"),
	ARM_L1("bad_speculation", "bad_speculation"),
	ARM_L1("frontend_bound", "frontend_bound"),
	ARM_L1("backend_bound", "backend_bound"),
};

#define N3V3_COMMON \
	.metrics = "retiring bad_speculation frontend_bound backend_bound", \
	.fam = &fam_stall_flush, .nr_events = 7, .ev = n3v3_ev, \
	.slots_from_caps = true, .anchor = "CPU_CYCLES", \
	.nr_minfo = sizeof(n3v3_minfo) / sizeof(n3v3_minfo[0]), \
	.minfo = n3v3_minfo

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
};
