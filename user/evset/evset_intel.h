/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Intel event sets' files share (evset_intel.c: the models, the
 * sets before Icelake and Level 2's metrics; evset_intel_icl.c: Icelake
 * and later, hybrid parts): raw encodings, event templates, matching.
 */
#ifndef TD_EVSET_INTEL_H
#define TD_EVSET_INTEL_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/perf_event.h>

#include "evset/evset_priv.h"

#define RAW(ev, umask, cmask) \
	((uint64_t)(ev) | (uint64_t)(umask) << 8 | (uint64_t)(cmask) << 24)

/* ... with the edge-detect bit (18) of IA32_PERFEVTSELx */
#define RAW_EDGE(ev, umask, cmask) (RAW(ev, umask, cmask) | 1ull << 18)

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

#define INTEL_MINFO .nr_minfo = sizeof(td_intel_minfo) / sizeof(td_intel_minfo[0]), \
	.minfo = td_intel_minfo

/* The names are perf's, shortened to TOPDOWN_NAME_LEN where needed (the
 * alias is then perf's full name); cmask= in a name is perf's event term
 * (cpu@EVENT\,cmask\=N@ in its metric expressions).
 */
#define CYC0_ALIASES "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE"

#define EV_CYC0(role, cmask) \
	RW("IDQ_NOT_DELIV.CYCLES_0_UOPS", role, TD_PMU_MAIN, \
	   RAW(0x9c, 0x01, cmask), "event=0x9c,umask=0x01,cmask=" #cmask, \
	   CYC0_ALIASES)

#define EV_CYCLES(role, opt) HW("cycles", role, PERF_COUNT_HW_CPU_CYCLES, \
	"PERF_TYPE_HARDWARE/CPU_CYCLES", CYCLES_ALIASES, opt)

#define EV_INST(role, opt) HW("instructions", role, \
	PERF_COUNT_HW_INSTRUCTIONS, "PERF_TYPE_HARDWARE/INSTRUCTIONS", \
	INST_ALIASES, opt)

#define EV_ISSUED(role, al) RW("UOPS_ISSUED.ANY", role, TD_PMU_MAIN, \
	RAW(0x0e, 0x01, 0), "event=0x0e,umask=0x01", al)

#define EV_MS(role) RW("IDQ.MS_UOPS", role, TD_PMU_MAIN, RAW(0x79, 0x30, 0), \
	"event=0x79,umask=0x30", NULL)

/* perf's TopdownL2 metrics of every Intel set (evset_intel.c). */
extern const struct td_metric_info td_intel_minfo[13];

/* An Intel family 6 CPU. */
bool td_is_intel6(const struct td_cpu_info *ci);
/* model is one of list's n. */
bool td_intel_in_list(unsigned int model, const unsigned int *list, int n);
/* Common match: Intel family 6, model in the list, PMU(s) present. */
int td_intel_match_models(const struct td_set *s, const struct td_cpu_info *ci,
			  char *why, size_t n, const unsigned int *models,
			  int nmodels, const char *what);
/* A ratio num / den of long doubles, !valid when den is 0. */
void td_put_ld(struct td_metrics *out, const char *name, long double num,
	       long double den);

#endif
