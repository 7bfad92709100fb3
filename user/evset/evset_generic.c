// SPDX-License-Identifier: GPL-2.0
/*
 * The two fallback sets: "generic" (architectural cycles and instructions
 * through PERF_TYPE_HARDWARE, IPC only) for a CPU with a hardware PMU but
 * no vendor set, and "software" (cpu-clock) for a machine without a PMU.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>

#include "evset/evset_priv.h"

/* Is there a hardware core PMU at all? */
bool td_has_hw_pmu(const struct td_cpu_info *ci, const char **name)
{
	int i = ci->main_pmu >= 0 ? ci->main_pmu :
		ci->core_pmu >= 0 ? ci->core_pmu : ci->atom_pmu;

	if (i < 0)
		return false;
	if (name)
		*name = ci->pmu[i].name;
	return true;
}

/* Why no vendor set was chosen, by vendor. */
static void no_vendor_reason(const struct td_cpu_info *ci, char *buf,
			     size_t n)
{
	if (ci->arch == TD_ARCH_X86 && !strcmp(ci->vendor, "AuthenticAMD")) {
		const char *core = td_amd_core_name(ci->family, ci->model);

		if (ci->family < 0x19 || (core && !strcmp(core, "Zen 3")))
			snprintf(buf, n,
				 "AMD family 0x%x model 0x%x (%s) has no dispatch-slot events, so no TopDown",
				 ci->family, ci->model, core ? core : "pre-Zen 3");
		else
			snprintf(buf, n,
				 "no event set for AMD family 0x%x model 0x%x",
				 ci->family, ci->model);
	} else if (ci->arch == TD_ARCH_X86) {
		snprintf(buf, n, "no event set for %s family %u model 0x%x",
			 ci->vendor, ci->family, ci->model);
	} else if (ci->arch == TD_ARCH_ARM64 && ci->has_midr) {
		const char *part = td_arm_part_name(ci->implementer, ci->part);

		snprintf(buf, n,
			 "no event set for Arm implementer 0x%02x part 0x%03x%s%s%s (STALL_SLOT events and caps/slots are not trusted on unknown cores)",
			 ci->implementer, ci->part, part ? " (" : "",
			 part ? part : "", part ? ")" : "");
	} else {
		snprintf(buf, n, "CPU model not known");
	}
}

static int match_generic(const struct td_set *s, const struct td_cpu_info *ci,
			 char *why, size_t n)
{
	const char *pmu;
	char r[200];

	(void)s;
	if (!td_has_hw_pmu(ci, &pmu)) {
		snprintf(why, n, "no hardware PMU");
		return TD_FIT_NO;
	}
	no_vendor_reason(ci, r, sizeof(r));
	snprintf(why, n,
		 "%s; hardware PMU '%s' present: generic cycles+instructions, IPC only, no TopDown",
		 r, pmu);
	return TD_FIT_AUTO;
}

static int match_software(const struct td_set *s,
			  const struct td_cpu_info *ci, char *why, size_t n)
{
	const char *pmu;

	(void)s;
	if (td_has_hw_pmu(ci, &pmu)) {
		snprintf(why, n,
			 "software clock only (a hardware PMU '%s' exists)",
			 pmu);
		return TD_FIT_MANUAL;
	}
	snprintf(why, n,
		 "no hardware PMU (no cpu, cpu_core, cpu_atom or armv8_* in /sys/bus/event_source/devices): software cpu-clock, no TopDown metrics");
	return TD_FIT_AUTO;
}

enum { G_CYCLES, G_INSTRUCTIONS, G_NR };

static void decode_ipc(const struct td_decoder *d, const uint64_t *c,
		       struct td_metrics *out)
{
	td_put_ipc(out, td_cnt(d, c, G_INSTRUCTIONS), td_cnt(d, c, G_CYCLES));
}

static void decode_none(const struct td_decoder *d, const uint64_t *c,
			struct td_metrics *out)
{
	(void)d;
	(void)c;
	(void)out;
}

static const struct td_family fam_ipc = {
	.name = "ipc", .nr_roles = G_NR, .decode = decode_ipc,
};

static const struct td_family fam_none = {
	.name = "none", .nr_roles = 1, .decode = decode_none,
};

static const struct td_ev_tmpl generic_ev[] = {
	{ "cycles", G_CYCLES, TD_EV_HW, TD_PMU_ANY,
	  PERF_COUNT_HW_CPU_CYCLES, "PERF_TYPE_HARDWARE/CPU_CYCLES", "cpu-cycles",
	  false },
	{ "instructions", G_INSTRUCTIONS, TD_EV_HW, TD_PMU_ANY,
	  PERF_COUNT_HW_INSTRUCTIONS, "PERF_TYPE_HARDWARE/INSTRUCTIONS", NULL,
	  false },
};

const struct td_set td_set_generic = {
	.name = "generic",
	.title = "architectural cycles and instructions, any hardware PMU",
	.metrics = "ipc",
	.fam = &fam_ipc,
	.nr_events = 2,
	.ev = generic_ev,
	.match = match_generic,
	.formula = "ipc = instructions / cycles (perf generic hardware events)",
	.source = "perf generic hardware events (PERF_TYPE_HARDWARE, "
		"include/uapi/linux/perf_event.h)",
};

static const struct td_ev_tmpl software_ev[] = {
	{ "cpu-clock", 0, TD_EV_SW, TD_PMU_ANY, PERF_COUNT_SW_CPU_CLOCK,
	  "PERF_TYPE_SOFTWARE/CPU_CLOCK", NULL, false },
};

const struct td_set td_set_software = {
	.name = "software",
	.title = "cpu-clock only, for machines without a PMU",
	.metrics = "",		/* no TopDown without a PMU */
	.fam = &fam_none,
	.nr_events = 1,
	.ev = software_ev,
	.match = match_software,
	.formula = "none (no TopDown without a PMU)",
	.source = "perf software event cpu-clock (PERF_TYPE_SOFTWARE)",
};
