// SPDX-License-Identifier: GPL-2.0
/*
 * AMD event sets: PipelineL1 of tools/perf/pmu-events/arch/x86/amdzen4 and
 * amdzen5 (pipeline.json), with SMT contention as a fifth class. Zen 6
 * (amdzen6, linux 7.3) has amdzen5's formulas and width: amd_zen5 is its
 * set. Event
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
/* ... with a counter mask (PERF_CTL bits 24-31, as Intel's) */
#define AMD_RAW_CMASK(ev, umask, cmask) \
	(AMD_RAW(ev, umask) | (uint64_t)(cmask) << 24)

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
		/* amdzen5: models 0x00-0x2f, 0x40-0x4f and 0x60-0x7f, the
		 * others amdzen6 (mapfile.csv, linux 7.3)
		 */
		if (model < 0x30 || (model >= 0x40 && model < 0x50) ||
		    (model >= 0x60 && model < 0x80))
			return "Zen 5";
		return "Zen 6";
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
	if (td_has(d, Z_SMT))
		td_put_ratio(out, "smt_contention", td_cnt(d, c, Z_SMT), S,
			     true);
}

static const struct td_family fam_zen = {
	.name = "amd_pipeline_l1", .nr_roles = Z_NR, .decode = decode_zen,
};

/* Aliases: the names of tools/perf/pmu-events/arch/x86/amdzen4 and
 * amdzen5 (linux 6.12; 6.1 has no Zen 4/5 tables) and amdzen6 (linux 7.3),
 * and perf's generic
 * cycles, which the kernel maps to event 0x76 (arch/x86/events/amd/core.c).
 */
#define ZEV(n, role, ev, umask, enc, al) \
	{ n, role, TD_EV_RAW, TD_PMU_MAIN, AMD_RAW(ev, umask), enc, al, false }

/* Same encodings on Zen 4 (amdzen4/pipeline.json) and Zen 5 (decode.json);
 * six events for six core counters. smt_contention is optional for
 * `tdctl decode` (perf stat -M PipelineL2 does not count it): without
 * its count the four other classes are decoded.
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
	{ "de_no_dispatch.smt_contention", Z_SMT, TD_EV_RAW, TD_PMU_MAIN,
	  AMD_RAW(0x1a0, 0x60), "event=0x1a0,umask=0x60",
	  "de_no_dispatch_per_slot.smt_contention", true },
};

/* ---- PipelineL2 ----------------------------------------------------------
 *
 * perf's PipelineL2 of amdzen4 and amdzen5 pipeline.json (linux 6.12),
 * under tdctl's names of the TopDown tree (perf's per set in the tables
 * below). Each group counts ls_not_halted_cyc (its slots: width * cycles)
 * and the Level 1 events of the classes it divides. Zen 4 and 5 differ in
 * the width (the cmask of the latency event) and in the event of
 * pipeline restarts.
 */
#define ZEN_MINFO(n, pn, grp, par) \
	{ n, pn, grp, par, par ? 2 : 1, TD_UNIT_SLOTS, true }
#define ZEN_L2(cls) "PipelineL2;" cls "_group"

static const struct td_metric_info zen4_minfo[] = {
	ZEN_MINFO("retiring", "retiring", "PipelineL1", NULL),
	ZEN_MINFO("bad_speculation", "bad_speculation", "PipelineL1", NULL),
	ZEN_MINFO("frontend_bound", "frontend_bound", "PipelineL1", NULL),
	ZEN_MINFO("backend_bound", "backend_bound", "PipelineL1", NULL),
	ZEN_MINFO("smt_contention", "smt_contention", "PipelineL1", NULL),
	ZEN_MINFO("fetch_latency", "frontend_bound_latency",
		  ZEN_L2("frontend_bound"), "frontend_bound"),
	ZEN_MINFO("fetch_bandwidth", "frontend_bound_bandwidth",
		  ZEN_L2("frontend_bound"), "frontend_bound"),
	ZEN_MINFO("branch_mispredicts", "bad_speculation_mispredicts",
		  ZEN_L2("bad_speculation"), "bad_speculation"),
	ZEN_MINFO("machine_clears", "bad_speculation_pipeline_restarts",
		  ZEN_L2("bad_speculation"), "bad_speculation"),
	ZEN_MINFO("memory_bound", "backend_bound_memory",
		  ZEN_L2("backend_bound"), "backend_bound"),
	ZEN_MINFO("core_bound", "backend_bound_cpu", ZEN_L2("backend_bound"),
		  "backend_bound"),
	ZEN_MINFO("heavy_operations", "retiring_microcode",
		  ZEN_L2("retiring"), "retiring"),
	ZEN_MINFO("light_operations", "retiring_fastpath", ZEN_L2("retiring"),
		  "retiring"),
};

static const struct td_metric_info zen5_minfo[] = {
	ZEN_MINFO("retiring", "retiring", "PipelineL1", NULL),
	ZEN_MINFO("bad_speculation", "bad_speculation", "PipelineL1", NULL),
	ZEN_MINFO("frontend_bound", "frontend_bound", "PipelineL1", NULL),
	ZEN_MINFO("backend_bound", "backend_bound", "PipelineL1", NULL),
	ZEN_MINFO("smt_contention", "smt_contention", "PipelineL1", NULL),
	ZEN_MINFO("fetch_latency", "frontend_bound_by_latency",
		  ZEN_L2("frontend_bound"), "frontend_bound"),
	ZEN_MINFO("fetch_bandwidth", "frontend_bound_by_bandwidth",
		  ZEN_L2("frontend_bound"), "frontend_bound"),
	ZEN_MINFO("branch_mispredicts", "bad_speculation_from_mispredicts",
		  ZEN_L2("bad_speculation"), "bad_speculation"),
	ZEN_MINFO("machine_clears", "bad_speculation_from_pipeline_restarts",
		  ZEN_L2("bad_speculation"), "bad_speculation"),
	ZEN_MINFO("memory_bound", "backend_bound_by_memory",
		  ZEN_L2("backend_bound"), "backend_bound"),
	ZEN_MINFO("core_bound", "backend_bound_by_cpu",
		  ZEN_L2("backend_bound"), "backend_bound"),
	ZEN_MINFO("heavy_operations", "retiring_from_microcode",
		  ZEN_L2("retiring"), "retiring"),
	ZEN_MINFO("light_operations", "retiring_from_fastpath",
		  ZEN_L2("retiring"), "retiring"),
};

enum { ZF_CYCLES, ZF_FE, ZF_FE_LAT, ZF_BE, ZF_LOAD_NC, ZF_NC, ZF_NR };

/*
 *   fetch_latency   = width * no_ops_from_frontend,cmask=width / slots
 *   fetch_bandwidth = (no_ops_from_frontend - width *
 *                      no_ops_from_frontend,cmask=width) / slots
 *   memory_bound    = backend_bound * ex_no_retire.load_not_complete /
 *                     ex_no_retire.not_complete
 *   core_bound      = backend_bound * (1 - the same ratio)
 */
static void decode_zen_fb(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	long double nc = td_cnt(d, c, ZF_NC);
	long double share = nc ? td_cnt(d, c, ZF_LOAD_NC) / nc : 0;
	long double be = td_cnt(d, c, ZF_BE);
	__int128 lat = (__int128)d->slots * td_cnt(d, c, ZF_FE_LAT);
	unsigned __int128 S = (unsigned __int128)d->slots *
			      td_cnt(d, c, ZF_CYCLES);
	bool ok = S && nc;

	td_put_ratio(out, "fetch_latency", lat, S, true);
	td_put_ratio(out, "fetch_bandwidth", (__int128)td_cnt(d, c, ZF_FE) - lat,
		     S, true);
	td_put_value(out, "memory_bound", ok ? be * share / S : 0, ok, true);
	td_put_value(out, "core_bound", ok ? be * (1 - share) / S : 0, ok,
		     true);
}

static const struct td_family fam_zen_fb = {
	.name = "amd_pipeline_l2_fb", .nr_roles = ZF_NR,
	.decode = decode_zen_fb,
};

enum { ZB_CYCLES, ZB_DISP, ZB_RET, ZB_BRN, ZB_RESYNC, ZB_UCODE, ZB_NR };

/*
 *   branch_mispredicts = bad_speculation * ex_ret_brn_misp /
 *                        (ex_ret_brn_misp + restarts)
 *   machine_clears     = bad_speculation * restarts /
 *                        (ex_ret_brn_misp + restarts)
 *   heavy_operations   = retiring * ex_ret_ucode_ops / ex_ret_ops
 *   light_operations   = retiring * (1 - the same ratio)
 * restarts: Zen 4 resyncs_or_nc_redirects, Zen 5 bp_redirects.resync
 * (Zen 6: bp_fe_redir.resync, the same encoding).
 */
static void decode_zen_br(const struct td_decoder *d, const uint64_t *c,
			  struct td_metrics *out)
{
	long double S = (long double)d->slots * td_cnt(d, c, ZB_CYCLES);
	long double ret = td_cnt(d, c, ZB_RET);
	long double bad = (long double)((__int128)td_cnt(d, c, ZB_DISP) -
					td_cnt(d, c, ZB_RET));
	long double brn = td_cnt(d, c, ZB_BRN), rs = td_cnt(d, c, ZB_RESYNC);
	long double uc = ret ? td_cnt(d, c, ZB_UCODE) / ret : 0;
	bool ok = S && brn + rs;

	td_put_value(out, "branch_mispredicts",
		     ok ? bad * brn / (brn + rs) / S : 0, ok, true);
	td_put_value(out, "machine_clears", ok ? bad * rs / (brn + rs) / S : 0,
		     ok, true);
	ok = S && ret;
	td_put_value(out, "heavy_operations", ok ? ret / S * uc : 0, ok, true);
	td_put_value(out, "light_operations", ok ? ret / S * (1 - uc) : 0, ok,
		     true);
}

static const struct td_family fam_zen_br = {
	.name = "amd_pipeline_l2_br", .nr_roles = ZB_NR,
	.decode = decode_zen_br,
};

#define ZEV_CYC(role) ZEV("ls_not_halted_cyc", role, 0x76, 0x00, \
	"event=0x76", "cycles cpu-cycles")
#define ZEV_FE(role) ZEV("de_no_dispatch.no_ops_from_fe", role, 0x1a0, \
	0x01, "event=0x1a0,umask=0x01", \
	"de_no_dispatch_per_slot.no_ops_from_frontend")
#define ZEV_BE(role) ZEV("de_no_dispatch.backend_stalls", role, 0x1a0, \
	0x1e, "event=0x1a0,umask=0x1e", \
	"de_no_dispatch_per_slot.backend_stalls")
#define ZEV_DISP(role) ZEV("de_src_op_disp.all", role, 0xaa, 0x07, \
	"event=0xaa,umask=0x07", NULL)
#define ZEV_RET(role) ZEV("ex_ret_ops", role, 0xc1, 0x00, "event=0xc1", NULL)
#define ZEV_FE_LAT(role, w) { "de_no_dispatch.fe,cmask=" #w, role, \
	TD_EV_RAW, TD_PMU_MAIN, AMD_RAW_CMASK(0x1a0, 0x01, w), \
	"event=0x1a0,umask=0x01,cmask=" #w, \
	"de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x" #w " " \
	"de_no_dispatch_per_slot.no_ops_from_frontend,cmask=" #w, false }
#define ZEV_NO_RETIRE(role) \
	ZEV("ex_no_retire.load_not_complete", role, 0xd6, 0xa2, \
	    "event=0xd6,umask=0xa2", NULL)
#define ZEV_NOT_COMPLETE(role) \
	ZEV("ex_no_retire.not_complete", role, 0xd6, 0x02, \
	    "event=0xd6,umask=0x02", NULL)

static const struct td_ev_tmpl zen4_fb_ev[] = {
	ZEV_CYC(ZF_CYCLES), ZEV_FE(ZF_FE), ZEV_FE_LAT(ZF_FE_LAT, 6),
	ZEV_BE(ZF_BE), ZEV_NO_RETIRE(ZF_LOAD_NC), ZEV_NOT_COMPLETE(ZF_NC),
};

static const struct td_ev_tmpl zen5_fb_ev[] = {
	ZEV_CYC(ZF_CYCLES), ZEV_FE(ZF_FE), ZEV_FE_LAT(ZF_FE_LAT, 8),
	ZEV_BE(ZF_BE), ZEV_NO_RETIRE(ZF_LOAD_NC), ZEV_NOT_COMPLETE(ZF_NC),
};

static const struct td_ev_tmpl zen4_br_ev[] = {
	ZEV_CYC(ZB_CYCLES), ZEV_DISP(ZB_DISP), ZEV_RET(ZB_RET),
	ZEV("ex_ret_brn_misp", ZB_BRN, 0xc3, 0x00, "event=0xc3", NULL),
	ZEV("resyncs_or_nc_redirects", ZB_RESYNC, 0x96, 0x00, "event=0x96",
	    NULL),
	ZEV("ex_ret_ucode_ops", ZB_UCODE, 0x1c2, 0x00, "event=0x1c2", NULL),
};

static const struct td_ev_tmpl zen5_br_ev[] = {
	ZEV_CYC(ZB_CYCLES), ZEV_DISP(ZB_DISP), ZEV_RET(ZB_RET),
	ZEV("ex_ret_brn_misp", ZB_BRN, 0xc3, 0x00, "event=0xc3", NULL),
	ZEV("bp_redirects.resync", ZB_RESYNC, 0x9f, 0x01,
	    "event=0x9f,umask=0x01", "bp_fe_redir.resync"),
	ZEV("ex_ret_ucode_ops", ZB_UCODE, 0x1c2, 0x00, "event=0x1c2", NULL),
};

#define ZEN_GROUPS(fb, br, w) { \
	{ .name = "pipeline", .id = "l1", .level = 1, .fam = &fam_zen, \
	  .nr_events = 6, .ev = zen_ev, .anchor = "ls_not_halted_cyc", \
	  .formula = "PipelineL1 (this set's formula)" }, \
	{ .name = "frontend_backend", .id = "fb", .level = 2, \
	  .in_level2 = true, .fam = &fam_zen_fb, .nr_events = 6, .ev = fb, \
	  .anchor = "ls_not_halted_cyc", \
	  .formula = "slots = " #w " * ls_not_halted_cyc; fetch_latency = " \
		     #w " * de_no_dispatch.fe,cmask=" \
		     #w " / slots; fetch_bandwidth = frontend_bound - " \
		     "fetch_latency; memory_bound = backend_bound * " \
		     "ex_no_retire.load_not_complete / ex_no_retire.not_complete; " \
		     "core_bound = backend_bound - memory_bound" }, \
	{ .name = "badspec_retiring", .id = "br", .level = 2, \
	  .in_level2 = true, .fam = &fam_zen_br, .nr_events = 6, .ev = br, \
	  .anchor = "ls_not_halted_cyc", \
	  .formula = "branch_mispredicts = bad_speculation * ex_ret_brn_misp / " \
		     "(ex_ret_brn_misp + pipeline restarts); machine_clears = " \
		     "the rest; heavy_operations = retiring * ex_ret_ucode_ops / " \
		     "ex_ret_ops; light_operations = the rest" }, \
}

static const struct td_grp zen4_groups[] = ZEN_GROUPS(zen4_fb_ev, zen4_br_ev, 6);
static const struct td_grp zen5_groups[] = ZEN_GROUPS(zen5_fb_ev, zen5_br_ev, 8);

#define ZEN_BUDGET .gp_counters = 6, \
	.budget = "6 core performance counters (AMD PPR for family 19h and " \
		  "1Ah; CPUID 0x80000022 EBX[3:0] with PerfMonV2), no fixed " \
		  "counters"

/* core: the core the set is for; also: another one it fits, or NULL */
static int match_zen(const struct td_set *s, const struct td_cpu_info *ci,
		     char *why, size_t n, const char *core, const char *also,
		     unsigned int width)
{
	const char *name;

	if (ci->arch != TD_ARCH_X86 || strcmp(ci->vendor, "AuthenticAMD") ||
	    !ci->has_fms) {
		snprintf(why, n, "not an AMD CPU");
		return TD_FIT_NO;
	}
	name = td_amd_core_name(ci->family, ci->model);
	if (!name || (strcmp(name, core) && (!also || strcmp(name, also)))) {
		snprintf(why, n, "AMD family 0x%x model 0x%x is %s, not %s%s%s%s",
			 ci->family, ci->model, name ? name : "unknown", core,
			 also ? " or " : "", also ? also : "",
			 name && (!strcmp(name, "Zen 3") ||
				  ci->family < 0x19) ?
			 " (no dispatch-slot events)" : "");
		return TD_FIT_NO;
	}
	if (ci->main_pmu < 0) {
		snprintf(why, n, "%s but no cpu PMU", name);
		return TD_FIT_NO;
	}
	(void)s;
	snprintf(why, n,
		 "AMD %s (family 0x%x model 0x%x) on PMU %s: PipelineL1, %u dispatch slots, SMT contention as a fifth class",
		 name, ci->family, ci->model, ci->pmu[ci->main_pmu].name,
		 width);
	return TD_FIT_AUTO;
}

static int match_zen4(const struct td_set *s, const struct td_cpu_info *ci,
		      char *why, size_t n)
{
	return match_zen(s, ci, why, n, "Zen 4", NULL, 6);
}

static int match_zen5(const struct td_set *s, const struct td_cpu_info *ci,
		      char *why, size_t n)
{
	return match_zen(s, ci, why, n, "Zen 5", "Zen 6", 8);
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
	.anchor = "ls_not_halted_cyc",
	.nr_minfo = sizeof(zen4_minfo) / sizeof(zen4_minfo[0]),
	.minfo = zen4_minfo,
	.nr_groups = sizeof(zen4_groups) / sizeof(zen4_groups[0]),
	.groups = zen4_groups,
	ZEN_BUDGET,
};

const struct td_set td_set_amd_zen5 = {
	.name = "amd_zen5",
	.title = "AMD Zen 5 and 6: PipelineL1, 8 dispatch slots, SMT contention",
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
	.source = "perf pmu-events x86/amdzen5, linux 6.12 and 7.3, and "
		"x86/amdzen6, linux 7.3 (6.1 has no Zen 5 tables)",
	.anchor = "ls_not_halted_cyc",
	.nr_minfo = sizeof(zen5_minfo) / sizeof(zen5_minfo[0]),
	.minfo = zen5_minfo,
	.nr_groups = sizeof(zen5_groups) / sizeof(zen5_groups[0]),
	.groups = zen5_groups,
	ZEN_BUDGET,
};
