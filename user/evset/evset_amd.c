// SPDX-License-Identifier: GPL-2.0
/*
 * AMD event sets: PipelineL1 of tools/perf/pmu-events/arch/x86/amdzen4 and
 * amdzen5 (pipeline.json), with SMT contention as a fifth class. Event
 * select bits 8-11 go into config bits 32-35, so event 0x1a0 umask u is
 * 0x1000000a0 | u << 8. The type is the "cpu" PMU's sysfs type.
 *
 * Zen 3 and older have no dispatch-slot events: no set here, the generic
 * set (IPC) is used and `tdctl list` says why.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "evset/evset_priv.h"

#define AMD_RAW(ev, umask) \
	(((uint64_t)(ev) & 0xff) | ((uint64_t)(ev) >> 8 & 0xf) << 32 | \
	 (uint64_t)(umask) << 8)

const char *td_amd_core_name(unsigned int family, unsigned int model)
{
	switch (family) {
	case 0x17:
		return model < 0x30 ? "Zen/Zen+" : "Zen 2";
	case 0x19:
		/* amdzen3: models 0x00-0x0f and 0x20-0x5f (mapfile.csv) */
		if (model < 0x10 || (model >= 0x20 && model < 0x60))
			return "Zen 3";
		return "Zen 4";
	case 0x1a:
		return "Zen 5";
	}
	return NULL;
}

enum { Z_CYCLES, Z_DISP, Z_RET_OPS, Z_FE, Z_BE, Z_SMT, Z_NR };

/*
 *   S          = width * ls_not_halted_cyc
 *   frontend   = de_no_dispatch_per_slot.no_ops_from_frontend / S
 *   bad spec   = (de_src_op_disp.all - ex_ret_ops) / S
 *   backend    = de_no_dispatch_per_slot.backend_stalls / S
 *   smt        = de_no_dispatch_per_slot.smt_contention / S
 *   retiring   = ex_ret_ops / S
 */
static void decode_zen(const struct td_decoder *d, const uint64_t *c,
		       struct td_metrics *out)
{
	unsigned __int128 S = (unsigned __int128)d->slots *
			      td_cnt(d, c, Z_CYCLES);
	__int128 ret = td_cnt(d, c, Z_RET_OPS);

	td_put_ratio(out, "retiring", ret, S, true);
	td_put_ratio(out, "bad_speculation",
		     (__int128)td_cnt(d, c, Z_DISP) - ret, S, true);
	td_put_ratio(out, "frontend_bound", td_cnt(d, c, Z_FE), S, true);
	td_put_ratio(out, "backend_bound", td_cnt(d, c, Z_BE), S, true);
	td_put_ratio(out, "smt_contention", td_cnt(d, c, Z_SMT), S, true);
}

static const struct td_family fam_zen = {
	.name = "amd_pipeline_l1", .nr_roles = Z_NR, .decode = decode_zen,
};

/* Aliases: the names of tools/perf/pmu-events/arch/x86/amdzen4 and
 * amdzen5 (linux 6.12; 6.1 has no Zen 4/5 tables), and perf's generic
 * cycles, which the kernel maps to event 0x76 (arch/x86/events/amd/core.c).
 */
#define ZEV(n, role, ev, umask, enc, al) \
	{ n, role, TD_EV_RAW, TD_PMU_MAIN, AMD_RAW(ev, umask), enc, al, false }

/* Same encodings on Zen 4 (amdzen4/pipeline.json) and Zen 5 (decode.json);
 * six events for six core counters.
 */
static const struct td_ev_tmpl zen_ev[] = {
	ZEV("ls_not_halted_cyc", Z_CYCLES, 0x76, 0x00, "event=0x76",
	    "cycles cpu-cycles"),
	ZEV("de_src_op_disp.all", Z_DISP, 0xaa, 0x07,
	    "event=0xaa,umask=0x07", NULL),
	ZEV("ex_ret_ops", Z_RET_OPS, 0xc1, 0x00, "event=0xc1", NULL),
	ZEV("de_no_dispatch.no_ops_from_fe", Z_FE, 0x1a0, 0x01,
	    "event=0x1a0,umask=0x01",
	    "de_no_dispatch_per_slot.no_ops_from_frontend"),
	ZEV("de_no_dispatch.backend_stalls", Z_BE, 0x1a0, 0x1e,
	    "event=0x1a0,umask=0x1e",
	    "de_no_dispatch_per_slot.backend_stalls"),
	ZEV("de_no_dispatch.smt_contention", Z_SMT, 0x1a0, 0x60,
	    "event=0x1a0,umask=0x60",
	    "de_no_dispatch_per_slot.smt_contention"),
};

static int match_zen(const struct td_set *s, const struct td_cpu_info *ci,
		     char *why, size_t n, const char *core, unsigned int width)
{
	const char *name;

	if (ci->arch != TD_ARCH_X86 || strcmp(ci->vendor, "AuthenticAMD") ||
	    !ci->has_fms) {
		snprintf(why, n, "not an AMD CPU");
		return TD_FIT_NO;
	}
	name = td_amd_core_name(ci->family, ci->model);
	if (!name || strcmp(name, core)) {
		snprintf(why, n, "AMD family 0x%x model 0x%x is %s, not %s%s",
			 ci->family, ci->model, name ? name : "unknown", core,
			 name && (!strcmp(name, "Zen 3") ||
				  ci->family < 0x19) ?
			 " (no dispatch-slot events)" : "");
		return TD_FIT_NO;
	}
	if (ci->main_pmu < 0) {
		snprintf(why, n, "%s but no cpu PMU", core);
		return TD_FIT_NO;
	}
	(void)s;
	snprintf(why, n,
		 "AMD %s (family 0x%x model 0x%x) on PMU %s: PipelineL1, %u dispatch slots, SMT contention as a fifth class",
		 core, ci->family, ci->model, ci->pmu[ci->main_pmu].name,
		 width);
	return TD_FIT_AUTO;
}

static int match_zen4(const struct td_set *s, const struct td_cpu_info *ci,
		      char *why, size_t n)
{
	return match_zen(s, ci, why, n, "Zen 4", 6);
}

static int match_zen5(const struct td_set *s, const struct td_cpu_info *ci,
		      char *why, size_t n)
{
	return match_zen(s, ci, why, n, "Zen 5", 8);
}

const struct td_set td_set_amd_zen4 = {
	.name = "amd_zen4",
	.title = "AMD Zen 4: PipelineL1, 6 dispatch slots, SMT contention",
	.metrics = "retiring bad_speculation frontend_bound backend_bound smt_contention",
	.fam = &fam_zen,
	.nr_events = 6,
	.ev = zen_ev,
	.def_slots = 6,
	.match = match_zen4,
	.formula = "AMD PipelineL1 (perf amdzen4 pipeline.json): slots = width * "
		"ls_not_halted_cyc; each class its de_no_dispatch_per_slot count "
		"/ slots; bad_speculation = (de_src_op_disp.all - ex_ret_ops) / "
		"slots; retiring = ex_ret_ops / slots",
	.source = "perf pmu-events x86/amdzen4, linux 6.12 (6.1 has no Zen 4 tables)",
};

const struct td_set td_set_amd_zen5 = {
	.name = "amd_zen5",
	.title = "AMD Zen 5: PipelineL1, 8 dispatch slots, SMT contention",
	.metrics = "retiring bad_speculation frontend_bound backend_bound smt_contention",
	.fam = &fam_zen,
	.nr_events = 6,
	.ev = zen_ev,
	.def_slots = 8,
	.match = match_zen5,
	.formula = "AMD PipelineL1 (perf amdzen5 pipeline.json): slots = width * "
		"ls_not_halted_cyc; each class its de_no_dispatch_per_slot count "
		"/ slots; bad_speculation = (de_src_op_disp.all - ex_ret_ops) / "
		"slots; retiring = ex_ret_ops / slots",
	.source = "perf pmu-events x86/amdzen5, linux 6.12 (6.1 has no Zen 5 tables)",
};
