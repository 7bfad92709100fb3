// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the event sets: detection on fake sysfs trees, the
 * automatic and the requested choice, the label, and every decoder with
 * hand-computed numbers, edge cases and the published seed-003 measurement.
 * Prints TAP, one line per case.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evset/evset_priv.h"
#include "fixtures.h"
#include "testlib.h"

static const char *tmproot;
static char fxroot[FX_NR][512];

static void make_fixtures(void)
{
	tmproot = tap_tmpdir();
	for (int i = 0; i < FX_NR; i++) {
		snprintf(fxroot[i], sizeof(fxroot[i]), "%s/%s", tmproot,
			 fx_names[i]);
		if (fx_make(fxroot[i], i)) {
			fprintf(stderr, "cannot make fixture %s\n",
				fx_names[i]);
			exit(2);
		}
	}
}

/* ---- helpers ----------------------------------------------------------- */

static struct td_cpu_info *detect(enum fx fx)
{
	char err[256];
	struct td_cpu_info *ci = td_detect(fxroot[fx], err, sizeof(err));

	if (!ci)
		diag("td_detect(%s): %s", fx_names[fx], err);
	return ci;
}

/* Decoder for a set with its events in table order. */
static bool decoder_for(struct td_decoder *d, const char *label)
{
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN] = { { 0 } };
	char set[64], err[256];
	const struct td_set *s;

	if (sscanf(label, "set=%63[^ ]", set) != 1)
		set[0] = '\0';
	s = td_set_find(set);
	if (!s)
		return false;
	for (int i = 0; i < s->nr_events; i++)
		snprintf(names[i], sizeof(names[i]), "%s", s->ev[i].name);
	if (td_decoder_from_label(d, label, (const char (*)[32])names,
				  s->nr_events, err, sizeof(err))) {
		diag("decoder %s: %s", label, err);
		return false;
	}
	return true;
}

static const struct td_metric *metric(const struct td_metrics *m,
				      const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->m[i].name, name))
			return &m->m[i];
	return NULL;
}

static bool near(const struct td_metrics *m, const char *name, double want)
{
	const struct td_metric *x = metric(m, name);

	if (!x || !x->valid) {
		diag("%s: %s", name, x ? "not valid" : "missing");
		return false;
	}
	if (fabs(x->value - want) > 1e-9) {
		diag("%s = %.12f, want %.12f", name, x->value, want);
		return false;
	}
	return true;
}

/* Value rounded to one decimal of a percent, as perf prints it. */
static bool pct1(const struct td_metrics *m, const char *name,
		 const char *want)
{
	const struct td_metric *x = metric(m, name);
	char got[32];

	if (!x || !x->valid)
		return false;
	snprintf(got, sizeof(got), "%.1f", x->value * 100.0);
	if (strcmp(got, want))
		diag("%s printed %s%%, want %s%%", name, got, want);
	return !strcmp(got, want);
}

/* Decode a set's events given in table order. */
static bool run(const char *label, const uint64_t *c, struct td_metrics *m)
{
	struct td_decoder d;

	memset(m, 0, sizeof(*m));
	if (!decoder_for(&d, label))
		return false;
	td_decode(&d, c, m);
	return true;
}

static bool all_l1(const struct td_metrics *m, double ret, double bad,
		   double fe, double be)
{
	return near(m, "retiring", ret) & near(m, "bad_speculation", bad) &
	       near(m, "frontend_bound", fe) & near(m, "backend_bound", be);
}

/* ---- cpulist ----------------------------------------------------------- */

static void test_cpulist(void)
{
	uint64_t b[TD_CPU_WORDS];
	char buf[64];

	ok(td_parse_cpulist("0-7,16-23\n", b, TD_CPU_WORDS) == 16 &&
	   b[0] == 0xff00ffull, "cpulist 0-7,16-23");
	ok(td_parse_cpulist("5", b, TD_CPU_WORDS) == 1 && b[0] == 0x20,
	   "cpulist single CPU without newline");
	ok(td_parse_cpulist("\n", b, TD_CPU_WORDS) == 0, "cpulist empty");
	ok(td_parse_cpulist("8191", b, TD_CPU_WORDS) == 1 &&
	   b[TD_CPU_WORDS - 1] >> 63, "cpulist highest CPU");
	ok(td_parse_cpulist("8192", b, TD_CPU_WORDS) < 0,
	   "cpulist rejects CPU >= 8192");
	ok(td_parse_cpulist("3-1", b, TD_CPU_WORDS) < 0 &&
	   td_parse_cpulist("1,,2", b, TD_CPU_WORDS) < 0 &&
	   td_parse_cpulist("1-", b, TD_CPU_WORDS) < 0 &&
	   td_parse_cpulist(" 1", b, TD_CPU_WORDS) < 0 &&
	   td_parse_cpulist("1,", b, TD_CPU_WORDS) < 0 &&
	   td_parse_cpulist("0x1", b, TD_CPU_WORDS) < 0 &&
	   td_parse_cpulist("1\n\n", b, TD_CPU_WORDS) < 0,
	   "cpulist rejects malformed lists");
	td_parse_cpulist("0-3,5,7-8", b, TD_CPU_WORDS);
	ok(!strcmp(td_format_cpulist(b, TD_CPU_WORDS, buf, sizeof(buf)),
		   "0-3,5,7-8"), "cpulist formats back");
}

/* ---- detection & automatic choice -------------------------------------- */

struct autocase {
	enum fx fx;
	const char *set;
	const char *label;
	int nr_events;
	const char *why_has;	/* substring of the reason */
};

static const struct autocase autocases[] = {
	{ FX_SKX, "intel_skl", "set=intel_skl slots=4", 6, "Skylake" },
	{ FX_BDW, "intel_snb", "set=intel_snb slots=4", 6, "Broadwell" },
	{ FX_ICX, "intel_icl", "set=intel_icl", 6, "Ice Lake" },
	{ FX_SPR, "intel_spr", "set=intel_spr", 8, "Sapphire" },
	{ FX_ADL, "intel_adl_hybrid", "set=intel_adl_hybrid", 8,
	  "cpu_atom (type 10, CPUs 16-23)" },
	{ FX_ZEN3, "generic", "set=generic", 2, "no dispatch-slot events" },
	{ FX_ZEN4, "amd_zen4", "set=amd_zen4 slots=6", 6, "Zen 4" },
	{ FX_ZEN5, "amd_zen5", "set=amd_zen5 slots=8", 6, "Zen 5" },
	{ FX_N1, "arm_stall_cycles", "set=arm_stall_cycles", 4,
	  "no STALL_SLOT" },
	{ FX_N2R0P0, "arm_neoverse_n2", "set=arm_neoverse_n2 slots=5 rev=r0p0",
	  7, "correction on" },
	{ FX_N2R0P3, "arm_neoverse_n2", "set=arm_neoverse_n2 slots=5 rev=r0p3",
	  7, "correction off" },
	{ FX_V1, "arm_neoverse_v1", "set=arm_neoverse_v1 slots=8", 7,
	  "Neoverse V1" },
	{ FX_V2, "arm_neoverse_v2", "set=arm_neoverse_v2 slots=8", 7,
	  "Neoverse V2" },
	{ FX_QEMU_ARM, "generic", "set=generic", 2, "part 0x051" },
	{ FX_QEMU_X86, "software", "set=software", 1, "no hardware PMU" },
	{ FX_TGL, "intel_icl", "set=intel_icl", 6, "Tiger Lake" },
	{ FX_SNB, "intel_snb", "set=intel_snb slots=4", 6, "Sandy Bridge" },
	{ FX_ADL_PCORE, "intel_icl", "set=intel_icl", 6, "Alder Lake" },
	{ FX_V3, "arm_neoverse_v3", "set=arm_neoverse_v3 slots=8", 7,
	  "width 10 (perf 7.3)" },
	{ FX_N3, "arm_neoverse_n3", "set=arm_neoverse_n3 slots=5", 7,
	  "Neoverse N3 r0p1" },
};

static bool plan_sane(const struct td_plan *p)
{
	for (int i = 0; i < p->nr_events; i++) {
		if (!p->ev[i].name[0])
			return false;
		for (int j = 0; j < i; j++)
			if (!strcmp(p->ev[i].name, p->ev[j].name))
				return false;
	}
	return p->nr_events >= 1 && p->nr_events <= TOPDOWN_MAX_EVENTS &&
	       strlen(p->label) < TOPDOWN_LABEL_LEN && p->why[0];
}

static void test_auto(void)
{
	for (size_t i = 0; i < sizeof(autocases) / sizeof(*autocases); i++) {
		const struct autocase *a = &autocases[i];
		struct td_cpu_info *ci = detect(a->fx);
		char err[512], names[8][32];
		struct td_decoder d;
		struct td_plan p;
		bool good;

		if (!ci) {
			ok(false, "%s: detect", fx_names[a->fx]);
			continue;
		}
		good = !td_plan_for(ci, NULL, &p, err, sizeof(err));
		if (!good)
			diag("%s", err);
		good = good && !strcmp(p.set, a->set) &&
		       !strcmp(p.label, a->label) &&
		       p.nr_events == a->nr_events && plan_sane(&p) &&
		       strstr(p.why, a->why_has);
		if (!good)
			diag("got set=%s label='%s' n=%d why='%s'", p.set,
			     p.label, p.nr_events, p.why);
		ok(good, "%s: picks %s", fx_names[a->fx], a->set);

		for (int k = 0; k < p.nr_events; k++)
			memcpy(names[k], p.ev[k].name, 32);
		ok(!td_decoder_from_label(&d, p.label,
					  (const char (*)[32])names,
					  p.nr_events, err, sizeof(err)) &&
		   !strcmp(d.set, a->set),
		   "%s: its label and event names give a decoder",
		   fx_names[a->fx]);
		td_cpu_info_free(ci);
	}
}

static const struct td_evsel *find_ev(const struct td_plan *p,
				      const char *name)
{
	for (int i = 0; i < p->nr_events; i++)
		if (!strcmp(p->ev[i].name, name))
			return &p->ev[i];
	return NULL;
}

static void test_plans(void)
{
	const struct td_evsel *e, *e2;
	struct td_cpu_info *ci;
	char err[512];
	struct td_plan p;

	ci = detect(FX_SKX);
	td_plan_for(ci, NULL, &p, err, sizeof(err));
	e = find_ev(&p, "INT_MISC.RECOVERY_CYCLES");
	e2 = find_ev(&p, "cycles");
	ok(e && e->type == 4 && e->config == 0x010d && e->all_cpus && e2 &&
	   e2->type == 0 && e2->config == 0,
	   "skylake: raw events on cpu type 4, cycles as PERF_TYPE_HARDWARE");
	td_cpu_info_free(ci);

	ci = detect(FX_BDW);
	td_plan_for(ci, NULL, &p, err, sizeof(err));
	e = find_ev(&p, "INT_MISC.RECOVERY_CYCLES");
	ok(e && e->config == 0x0100030d,
	   "broadwell: INT_MISC.RECOVERY_CYCLES umask 3 cmask 1");
	td_cpu_info_free(ci);

	ci = detect(FX_ADL);
	td_plan_for(ci, NULL, &p, err, sizeof(err));
	e = find_ev(&p, "core/TOPDOWN.SLOTS_P");
	e2 = find_ev(&p, "atom/TOPDOWN_RETIRING.ALL");
	ok(e && e2 && e->type == 4 && !e->all_cpus && e->cpus[0] == 0xffff &&
	   e2->type == 10 && !e2->all_cpus && e2->cpus[0] == 0xff0000 &&
	   e2->config == 0xc2,
	   "alderlake: core events on cpu_core 0-15, atom on cpu_atom 16-23");
	ok(!td_plan_for(ci, "intel_icl", &p, err, sizeof(err)) &&
	   p.ev[2].type == 4 && !p.ev[2].all_cpus,
	   "alderlake: intel_icl by name counts on cpu_core only");
	ok(td_plan_for(ci, "intel_skl", &p, err, sizeof(err)) &&
	   strstr(err, "does not fit") && strstr(err, "intel_adl_hybrid"),
	   "alderlake: intel_skl refused, valid ones listed");
	td_cpu_info_free(ci);

	ci = detect(FX_ZEN4);
	td_plan_for(ci, NULL, &p, err, sizeof(err));
	e = find_ev(&p, "de_no_dispatch.backend_stalls");
	e2 = find_ev(&p, "de_src_op_disp.all");
	ok(e && e->config == 0x100001ea0ull && e->type == 4 && e2 &&
	   e2->config == 0x7aa, "zen4: event 0x1a0 bits 8-11 in config 32-35");
	td_cpu_info_free(ci);

	ci = detect(FX_N2R0P0);
	td_plan_for(ci, NULL, &p, err, sizeof(err));
	e = find_ev(&p, "STALL_SLOT_FRONTEND");
	ok(e && e->type == 8 && e->config == 0x3e && e->all_cpus,
	   "n2: armv8_pmuv3_0 type 8, STALL_SLOT_FRONTEND 0x3e");
	ok(td_plan_for(ci, "amd_zen4", &p, err, sizeof(err)) &&
	   strstr(err, "arm_neoverse_n2") && strstr(err, "generic"),
	   "n2: amd_zen4 refused with the list of valid sets");
	ok(td_plan_for(ci, "no_such_set", &p, err, sizeof(err)) &&
	   strstr(err, "unknown event set"), "n2: unknown set name refused");
	td_cpu_info_free(ci);

	ci = detect(FX_QEMU_ARM);
	ok(ci && ci->has_midr && ci->implementer == 0 && ci->part == 0x51 &&
	   ci->pmu[ci->main_pmu].has_slots && !ci->pmu[ci->main_pmu].slots,
	   "qemu arm64: MIDR implementer 0 part 0x051, caps/slots 0");
	ok(!td_plan_for(ci, "arm_neoverse_n2", &p, err, sizeof(err)) &&
	   !strcmp(p.label, "set=arm_neoverse_n2 slots=5 rev=r0p0"),
	   "qemu arm64: arm_neoverse_n2 by name (default 5 slots)");
	ok(!td_plan_for(ci, "software", &p, err, sizeof(err)) &&
	   p.ev[0].type == 1 && p.ev[0].config == 0,
	   "qemu arm64: software by name is cpu-clock");
	td_cpu_info_free(ci);

	ci = detect(FX_QEMU_X86);
	ok(td_plan_for(ci, "generic", &p, err, sizeof(err)) &&
	   strstr(err, "no hardware PMU"),
	   "qemu x86: generic refused without a PMU");
	td_cpu_info_free(ci);

	ci = detect(FX_ZEN3);
	ok(ci && ci->main_pmu >= 0 && ci->family == 0x19 &&
	   ci->model == 0x21, "zen3: family/model from /proc/cpuinfo");
	td_cpu_info_free(ci);
}

static void test_detect_misc(void)
{
	char root[600], err[256];
	struct td_cpu_info *ci;

	/* MIDR from sysfs wins over /proc/cpuinfo. */
	snprintf(root, sizeof(root), "%s/midr_override", tmproot);
	fx_make(root, FX_N2R0P0);
	fx_write(root,
		 "sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
		 "0x00000000410fd493\n");
	ci = td_detect(root, err, sizeof(err));
	ok(ci && ci->revision == 3 && ci->midr_mixed,
	   "detect: midr_el1 read per CPU, mixed MIDRs noticed");
	td_cpu_info_free(ci);

	/* No sysfs MIDR: /proc/cpuinfo fields. */
	snprintf(root, sizeof(root), "%s/cpuinfo_only", tmproot);
	fx_make(root, FX_V1);
	for (int i = 0; i < 4; i++) {
		char rel[128], path[800];

		snprintf(rel, sizeof(rel),
			 "sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
			 i);
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		unlink(path);
	}
	ci = td_detect(root, err, sizeof(err));
	ok(ci && ci->has_midr && ci->part == 0xd40 && ci->variant == 1 &&
	   ci->revision == 1 && !strcmp(ci->midr_src, "/proc/cpuinfo"),
	   "detect: arm MIDR from /proc/cpuinfo when sysfs lacks it");
	td_cpu_info_free(ci);

	/* A malformed cpus file is ignored, not half-parsed. */
	snprintf(root, sizeof(root), "%s/badcpus", tmproot);
	fx_make(root, FX_ADL);
	fx_write(root, "sys/bus/event_source/devices/cpu_atom/cpus",
		 "16-23,x\n");
	ci = td_detect(root, err, sizeof(err));
	ok(ci && ci->atom_pmu >= 0 && !ci->pmu[ci->atom_pmu].has_cpus &&
	   td_set_fit(&td_set_intel_adl_hybrid, ci, NULL, 0) == TD_FIT_NO,
	   "detect: bad cpulist rejected, hybrid set then refused");
	td_cpu_info_free(ci);

	snprintf(root, sizeof(root), "%s/empty", tmproot);
	fx_write(root, "nothing", "");
	ci = td_detect(root, err, sizeof(err));
	ok(!ci && err[0], "detect: empty root is an error with a message");
	td_cpu_info_free(ci);
}

/* ---- labels ------------------------------------------------------------ */

static void test_labels(void)
{
	static const char *const bad[] = {
		"", "set=", "set=nope", "slots=5 set=generic",
		"set=generic slots=5", "set=arm_neoverse_n2 slots=0",
		"set=arm_neoverse_n2 slots=abc", "set=arm_neoverse_n2 slots=05",
		"set=arm_neoverse_n2 slots=256",
		"set=arm_neoverse_n2 rev=r0p", "set=arm_neoverse_n2 rev=r16p0",
		"set=arm_neoverse_n2 rev=R0P0", "set=arm_neoverse_n2  slots=5",
		"set=arm_neoverse_n2 slots=5 ", " set=arm_neoverse_n2",
		"set=arm_neoverse_n2 foo=1",
		"set=arm_neoverse_n2 slots=5 slots=5",
		"set=amd_zen4 rev=r0p0", "set=arm_neoverse_n2 slots",
	};
	char names[8][32] = { { 0 } };
	struct td_decoder d;
	char err[256];
	int rejected = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const struct td_set *s = &td_set_arm_neoverse_n2;

		for (int k = 0; k < s->nr_events; k++)
			snprintf(names[k], 32, "%s", s->ev[k].name);
		if (td_decoder_from_label(&d, bad[i],
					  (const char (*)[32])names,
					  s->nr_events, err, sizeof(err)))
			rejected++;
		else
			diag("accepted bad label '%s'", bad[i]);
	}
	ok(rejected == (int)(sizeof(bad) / sizeof(*bad)),
	   "label: %d malformed labels rejected", rejected);

	ok(decoder_for(&d, "set=arm_neoverse_n2 slots=4 rev=r1p2") &&
	   d.slots == 4 && d.revision == 0x12,
	   "label: slots and rev parsed");
	ok(decoder_for(&d, "set=arm_neoverse_n2") && d.slots == 5 &&
	   d.revision == 0, "label: defaults when params are absent");

	/* Names must be the set's, each once; order is free. */
	{
		const struct td_set *s = &td_set_intel_skl;
		char n2[8][32] = { { 0 } };

		for (int k = 0; k < s->nr_events; k++)
			snprintf(n2[k], 32, "%s",
				 s->ev[s->nr_events - 1 - k].name);
		ok(!td_decoder_from_label(&d, "set=intel_skl slots=4",
					  (const char (*)[32])n2,
					  s->nr_events, err, sizeof(err)) &&
		   d.idx[0] == s->nr_events - 1,
		   "label: events in any order map to their roles");
		snprintf(n2[0], 32, "%s", n2[1]);
		ok(td_decoder_from_label(&d, "set=intel_skl slots=4",
					 (const char (*)[32])n2,
					 s->nr_events, err, sizeof(err)) != 0,
		   "label: duplicate event name refused (%s)", err);
		ok(td_decoder_from_label(&d, "set=intel_skl slots=4",
					 (const char (*)[32])n2, 5, err,
					 sizeof(err)) != 0,
		   "label: wrong event count refused");
		snprintf(n2[0], 32, "cycles_x");
		ok(td_decoder_from_label(&d, "set=intel_skl slots=4",
					 (const char (*)[32])n2,
					 s->nr_events, err, sizeof(err)) != 0,
		   "label: unknown event name refused");
	}
}

/* ---- decoders ---------------------------------------------------------- */

static void test_decode_sets(void)
{
	struct td_metrics m;

	{	/* cycles, instructions */
		uint64_t c[] = { 1000, 2500 };

		ok(run("set=generic", c, &m) && m.n == 1 &&
		   near(&m, "ipc", 2.5), "generic: ipc only");
	}
	{
		uint64_t c[] = { 123456 };

		ok(run("set=software", c, &m) && m.n == 0,
		   "software: no metrics");
	}
	{	/* cycles, inst, IDQ, RETIRE_SLOTS, ISSUED, RECOVERY */
		uint64_t c[] = { 1000, 1200, 800, 1600, 1800, 50 };

		ok(run("set=intel_skl slots=4", c, &m) &&
		   all_l1(&m, 0.4, 0.1, 0.2, 0.3) && near(&m, "ipc", 1.2),
		   "intel_skl: hand-computed L1 (seed 002 formula)");
		ok(run("set=intel_snb slots=4", c, &m) &&
		   all_l1(&m, 0.4, 0.1, 0.2, 0.3),
		   "intel_snb: same formula");
	}
	{	/* cycles, inst, SLOTS, IDQ, RET, BE */
		uint64_t c[] = { 1000, 1500, 5000, 1000, 2000, 1500 };

		ok(run("set=intel_icl", c, &m) &&
		   all_l1(&m, 0.4, 0.1, 0.2, 0.3) && near(&m, "ipc", 1.5),
		   "intel_icl: hand-computed L1, bad speculation derived");
	}
	{	/* SLOTS IDQ RET BE BAD BRM MEM HEAVY */
		uint64_t c[] = { 6000, 1200, 2400, 1800, 600, 420, 1200, 600 };

		ok(run("set=intel_spr", c, &m) &&
		   all_l1(&m, 0.4, 0.1, 0.2, 0.3) &&
		   near(&m, "branch_mispredicts", 0.07) &&
		   near(&m, "machine_clears", 0.03) &&
		   near(&m, "memory_bound", 0.2) &&
		   near(&m, "core_bound", 0.1) &&
		   near(&m, "heavy_operations", 0.1) &&
		   near(&m, "light_operations", 0.3) && m.n == 10,
		   "intel_spr: hand-computed L1 and L2");
	}
	{	/* core SLOTS IDQ RET BE, atom FE BAD BE RET */
		uint64_t core[] = { 6000, 1200, 2400, 1800, 0, 0, 0, 0 };
		uint64_t atom[] = { 0, 0, 0, 0, 100, 50, 150, 200 };
		uint64_t sum[8];

		ok(run("set=intel_adl_hybrid", core, &m) &&
		   all_l1(&m, 0.4, 0.1, 0.2, 0.3),
		   "intel_adl_hybrid: record from a core CPU");
		ok(run("set=intel_adl_hybrid", atom, &m) &&
		   all_l1(&m, 0.4, 0.1, 0.2, 0.3),
		   "intel_adl_hybrid: record from an atom CPU");
		atom[4] = 400;	/* atom: fe 400 bad 50 be 150 ret 200 */
		for (int i = 0; i < 8; i++)
			sum[i] = core[i] + atom[i];
		ok(run("set=intel_adl_hybrid", sum, &m) &&
		   all_l1(&m, 2600.0 / 6800, 650.0 / 6800, 1600.0 / 6800,
			  1950.0 / 6800),
		   "intel_adl_hybrid: summed core+atom counts are slot-weighted");
	}
	{	/* cyc disp ret_ops fe be smt */
		uint64_t c[] = { 1000, 3000, 2400, 1200, 1500, 300 };

		ok(run("set=amd_zen4 slots=6", c, &m) &&
		   all_l1(&m, 0.4, 0.1, 0.2, 0.25) &&
		   near(&m, "smt_contention", 0.05) && !metric(&m, "ipc"),
		   "amd_zen4: hand-computed PipelineL1 with smt_contention");
		ok(run("set=amd_zen5 slots=8", c, &m) &&
		   all_l1(&m, 0.3, 0.075, 0.15, 0.1875) &&
		   near(&m, "smt_contention", 0.0375),
		   "amd_zen5: 8 dispatch slots");
	}
	{	/* cyc opr ops stall fe be inst */
		uint64_t c[] = { 1000, 900, 1000, 2500, 1000, 1500, 800 };
		uint64_t c0[] = { 1000, 900, 1000, 3500, 2000, 1500, 800 };

		ok(run("set=arm_neoverse_n2 slots=5 rev=r0p3", c, &m) &&
		   all_l1(&m, 0.45, 0.05, 0.2, 0.3) && near(&m, "ipc", 0.8),
		   "arm_neoverse_n2 r0p3: no correction");
		ok(run("set=arm_neoverse_n2 slots=5 rev=r0p0", c0, &m) &&
		   all_l1(&m, 0.45, 0.05, 0.2, 0.3),
		   "arm_neoverse_n2 r0p0: one CPU_CYCLES taken off FE and STALL_SLOT");
		ok(run("set=arm_neoverse_n2 slots=5 rev=r1p0", c, &m) &&
		   all_l1(&m, 0.45, 0.05, 0.2, 0.3),
		   "arm_neoverse_n2 r1p0: no correction");
		ok(run("set=arm_neoverse_v2 slots=5", c, &m) &&
		   all_l1(&m, 0.45, 0.05, 0.2, 0.3),
		   "arm_neoverse_v2: SBSA formula");
	}
	{	/* cyc opr ops stall fe be flush */
		uint64_t c[] = { 1000, 900, 1000, 2500, 1000, 1500, 50 };
		uint64_t v[] = { 1000, 900, 1000, 5000, 2000, 3000, 50 };

		ok(run("set=arm_neoverse_n3 slots=5", c, &m) &&
		   all_l1(&m, 0.45, 0.1, 0.15, 0.3) && m.n == 4,
		   "arm_neoverse_n3: FLUSH / CPU_CYCLES moves from frontend to bad speculation");
		ok(run("set=arm_neoverse_n3 slots=8", c, &m) &&
		   all_l1(&m, 0.61875, 0.1, 0.15, 0.1875),
		   "arm_neoverse_n3: frontend and bad speculation over width 5, retiring and backend over slots");
		ok(run("set=arm_neoverse_v3 slots=10", v, &m) &&
		   all_l1(&m, 0.45, 0.1, 0.15, 0.3),
		   "arm_neoverse_v3: width 10");
		ok(run("set=arm_neoverse_v3", v, &m) &&
		   all_l1(&m, 0.45, 0.1, 0.15, 0.3),
		   "arm_neoverse_v3: slots default to the width");
	}
	{	/* cyc opr ops stall fe be br_mis_pred */
		uint64_t c[] = { 1000, 900, 1000, 4000, 2000, 2000, 10 };

		ok(run("set=arm_neoverse_v1 slots=8", c, &m) &&
		   all_l1(&m, 0.45, 0.09, 0.21, 0.25) && !metric(&m, "ipc"),
		   "arm_neoverse_v1: BR_MIS_PRED term moves 4/cycle to bad speculation");
	}
	{	/* cyc stall_fe stall_be inst */
		uint64_t c[] = { 1000, 300, 450, 700 };

		ok(run("set=arm_stall_cycles", c, &m) &&
		   near(&m, "frontend_stalled_cycles", 0.3) &&
		   near(&m, "backend_stalled_cycles", 0.45) &&
		   near(&m, "ipc", 0.7) && !metric(&m, "retiring"),
		   "arm_stall_cycles: stalled-cycle shares, no TopDown names");
	}
}

/* The perf stat -M topdownl1 output of seed 003 (Neoverse N2, Yitian 710). */
static void test_seed003(void)
{
	/* Each perf metric group had its own cpu_cycles reading. */
	const uint64_t cyc_rb = 3922334305ull, cyc_fe = 3922227771ull;
	const uint64_t cyc_be = 3922584678ull;
	const uint64_t stall = 22679591134ull, op_spec = 854404256ull;
	const uint64_t op_ret = 853521883ull, fe = 8492337939ull;
	const uint64_t be = 14317243430ull;
	const char *l = "set=arm_neoverse_n2 slots=5 rev=r0p0";
	struct td_metrics m;

	{
		uint64_t c[] = { cyc_rb, op_ret, op_spec, stall, fe, be, 0 };

		ok(run(l, c, &m) && pct1(&m, "retiring", "4.4") &&
		   pct1(&m, "bad_speculation", "0.0"),
		   "seed 003: retiring 4.4%%, bad speculation 0.0%%");
	}
	{
		uint64_t c[] = { cyc_fe, op_ret, op_spec, stall, fe, be, 0 };

		ok(run(l, c, &m) && pct1(&m, "frontend_bound", "23.3"),
		   "seed 003: frontend bound 23.3%%");
	}
	{
		uint64_t c[] = { cyc_be, op_ret, op_spec, stall, fe, be, 0 };

		ok(run(l, c, &m) && pct1(&m, "backend_bound", "73.0"),
		   "seed 003: backend bound 73.0%%");
	}
	{	/* One cycles value for all, as tdctl records it. */
		uint64_t c[] = { cyc_rb, op_ret, op_spec, stall, fe, be, 0 };

		ok(run(l, c, &m) && pct1(&m, "retiring", "4.4") &&
		   pct1(&m, "bad_speculation", "0.0") &&
		   pct1(&m, "frontend_bound", "23.3") &&
		   pct1(&m, "backend_bound", "73.0"),
		   "seed 003: all four from one cycles count");
	}
	{	/* Without the correction frontend would be 43.3%. */
		uint64_t c[] = { cyc_fe, op_ret, op_spec, stall, fe, be, 0 };

		ok(run("set=arm_neoverse_n2 slots=5 rev=r0p3", c, &m) &&
		   pct1(&m, "frontend_bound", "43.3"),
		   "seed 003: uncorrected formula gives perf's 43.3%% bug");
	}
}

static void test_edges(void)
{
	struct td_metrics m;

	{
		uint64_t c[7] = { 0, 5, 5, 5, 5, 5, 5 };
		bool none_valid = true;

		run("set=arm_neoverse_n2 slots=5 rev=r0p3", c, &m);
		for (int i = 0; i < m.n; i++)
			none_valid &= !m.m[i].valid && !m.m[i].flagged;
		ok(m.n == 5 && none_valid,
		   "zero cycles: every metric present but not valid");
	}
	{
		uint64_t c[6] = { 0 };

		run("set=intel_icl", c, &m);
		ok(m.n == 5 && !metric(&m, "retiring")->valid &&
		   !metric(&m, "ipc")->valid, "intel_icl: all-zero record");
	}
	{	/* op_spec 0 but cycles fine: retiring/bad invalid only */
		uint64_t c[7] = { 1000, 0, 0, 2500, 1000, 1500, 0 };

		run("set=arm_neoverse_n2 slots=5 rev=r0p3", c, &m);
		ok(!metric(&m, "retiring")->valid &&
		   metric(&m, "frontend_bound")->valid &&
		   near(&m, "frontend_bound", 0.2),
		   "zero OP_SPEC: retiring not computable, frontend still is");
	}
	{	/* skid: STALL_SLOT_FRONTEND below CPU_CYCLES before r0p3 */
		uint64_t c[7] = { 1000, 900, 1000, 2500, 900, 1500, 0 };
		const struct td_metric *fe;

		run("set=arm_neoverse_n2 slots=5 rev=r0p0", c, &m);
		fe = metric(&m, "frontend_bound");
		ok(fe && fe->valid && fe->flagged &&
		   fabs(fe->value - (-100.0 / 5000)) < 1e-12,
		   "skid: negative frontend shown as computed (-2.0%%) and flagged");
	}
	{	/* skid above 100% */
		uint64_t c[6] = { 1000, 1000, 5000, 1000, 2000, 6000 };
		const struct td_metric *be, *bad;

		run("set=intel_icl", c, &m);
		be = metric(&m, "backend_bound");
		bad = metric(&m, "bad_speculation");
		ok(be->flagged && fabs(be->value - 1.2) < 1e-12 &&
		   bad->flagged && fabs(bad->value + 0.8) < 1e-12 &&
		   !metric(&m, "retiring")->flagged,
		   "skid: backend 120%% and bad speculation -80%% flagged, retiring not");
	}
	{	/* counter wrap: a delta that went "negative" is ~2^64 */
		uint64_t c[6] = { 1000, 1000, 5000, UINT64_MAX - 4, 2000,
				  1500 };
		const struct td_metric *fe;

		run("set=intel_icl", c, &m);
		fe = metric(&m, "frontend_bound");
		ok(fe->valid && fe->flagged && isfinite(fe->value) &&
		   fe->value > 1e15, "wrap: huge delta decoded, finite, flagged");
	}
	{	/* 64-bit extremes: slots * cycles does not overflow */
		uint64_t big = UINT64_MAX;
		uint64_t c[7] = { big, big, big, big, big / 5 * 2, big / 5,
				  big };

		run("set=arm_neoverse_n2 slots=5 rev=r0p3", c, &m);
		ok(near(&m, "retiring", 0.8) && near(&m, "bad_speculation", 0) &&
		   fabs(metric(&m, "frontend_bound")->value - 0.08) < 1e-12 &&
		   fabs(metric(&m, "backend_bound")->value - 0.04) < 1e-12 &&
		   near(&m, "ipc", 1.0),
		   "64-bit extremes: products kept in 128 bits");
	}
	{	/* Zen: slots * 2^64 cycles */
		uint64_t big = UINT64_MAX;
		uint64_t c[6] = { big, big, big, big, big, big };

		run("set=amd_zen5 slots=8", c, &m);
		ok(fabs(metric(&m, "retiring")->value - 0.125) < 1e-12 &&
		   near(&m, "bad_speculation", 0),
		   "zen5: 8 * UINT64_MAX cycles exact");
	}
	{	/* aggregation is on raw counts, not on percentages */
		uint64_t a[6] = { 1000, 0, 4000, 400, 2000, 1000 };
		uint64_t b[6] = { 3000, 0, 1000, 500, 100, 200 };
		uint64_t s[6];

		for (int i = 0; i < 6; i++)
			s[i] = a[i] + b[i];
		run("set=intel_icl", s, &m);
		ok(near(&m, "frontend_bound", 900.0 / 5000) &&
		   near(&m, "retiring", 2100.0 / 5000),
		   "aggregation: summed deltas, formula applied once");
	}
	{
		struct td_decoder d = { 0 };
		uint64_t c[1] = { 1 };

		m.n = 7;
		td_decode(&d, c, &m);
		ok(m.n == 0, "decode with an empty decoder gives nothing");
	}
}

static void test_table(void)
{
	bool good = true;

	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];

		if (s->nr_events < 1 || s->nr_events > TOPDOWN_MAX_EVENTS ||
		    strlen(s->name) >= TOPDOWN_NAME_LEN ||
		    s->fam->nr_roles > TOPDOWN_MAX_EVENTS)
			good = false;
		for (int k = 0; k < s->nr_events; k++) {
			if (strlen(s->ev[k].name) >= TOPDOWN_NAME_LEN ||
			    s->ev[k].role >= s->fam->nr_roles)
				good = false;
			for (int j = 0; j < k; j++)
				if (!strcmp(s->ev[k].name, s->ev[j].name) ||
				    s->ev[k].role == s->ev[j].role)
					good = false;
		}
		if (td_set_find(s->name) != s)
			good = false;
	}
	ok(good, "table: %d sets, names short and unique, <= 8 events",
	   td_nr_sets);
}

/* td_metric_is_fraction() is the one rule of the printers (percentage or
 * number); the decoders flag a metric outside 0..1 only when it is a
 * fraction. They must agree: on random counts, every valid value outside
 * 0..1 is flagged exactly when the rule says fraction (ipc above 1 is
 * not flagged, a TopDown class below 0 or above 1 is), and values inside
 * are never flagged.
 */
static void test_metric_kinds(void)
{
	static const unsigned int slots[] = { 0, 4, 5, 6, 8 };
	int sets = 0, bad = 0, ratio_out = 0, share_out = 0;

	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];
		char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN] = { { 0 } };
		char label[128], err[256];
		struct td_decoder d;
		size_t j;

		for (int k = 0; k < s->nr_events; k++)
			snprintf(names[k], sizeof(names[k]), "%s",
				 s->ev[k].name);
		for (j = 0; j < sizeof(slots) / sizeof(slots[0]); j++) {
			snprintf(label, sizeof(label), slots[j] ?
				 "set=%s slots=%u" : "set=%s", s->name,
				 slots[j]);
			if (!td_decoder_from_label(&d, label,
						   (const char (*)[32])names,
						   s->nr_events, err,
						   sizeof(err)))
				break;
		}
		if (j == sizeof(slots) / sizeof(slots[0])) {
			diag("%s: no label decodes (%s)", s->name, err);
			bad++;
			continue;
		}
		sets++;
		for (int t = 0; t < 2000; t++) {
			uint64_t c[TOPDOWN_MAX_EVENTS];
			struct td_metrics m;

			for (int k = 0; k < TOPDOWN_MAX_EVENTS; k++)
				c[k] = rnd() % 1000000;
			td_decode(&d, c, &m);
			for (int k = 0; k < m.n; k++) {
				const struct td_metric *x = &m.m[k];
				bool frac = td_metric_is_fraction(x->name);
				bool out = x->value < 0 || x->value > 1;

				if (!x->valid)
					continue;
				if (out)
					frac ? share_out++ : ratio_out++;
				if (x->flagged != (out && frac)) {
					if (bad++ < 5)
						diag("%s: %s = %g flagged=%d",
						     s->name, x->name,
						     x->value, x->flagged);
				}
			}
		}
	}
	ok(!bad && sets == td_nr_sets && ratio_out && share_out,
	   "metric kinds: %d sets, flagged outside 0..1 exactly where "
	   "td_metric_is_fraction() (%d fractions, %d ratios outside)",
	   sets, share_out, ratio_out);
}

/* ---- levels and groups (evset.h, "Levels and groups") ------------------ */

/* A configuration of set's groups ids ("l1,be"), from the tables through
 * td_set_group(): pool names and groups, as a plan would lay them out.
 */
struct gcfg {
	int nr_pool, nr_groups;
	char pool[TOPDOWN_MAX_POOL][TOPDOWN_NAME_LEN];
	struct topdown_group groups[TOPDOWN_MAX_GROUPS];
};

static bool make_gcfg(const char *set, const char *ids, struct gcfg *c)
{
	struct td_group_desc gd;

	memset(c, 0, sizeof(*c));
	for (int i = 0; !td_set_group(set, i, &gd); i++) {
		char want[8];
		struct topdown_group *g;

		snprintf(want, sizeof(want), ",%s,", gd.id);
		{
			char list[64];

			snprintf(list, sizeof(list), ",%s,", ids);
			if (!strstr(list, want))
				continue;
		}
		g = &c->groups[c->nr_groups++];
		g->nr_events = gd.nr_events;
		for (int k = 0; k < gd.nr_events; k++) {
			int e = 0;

			while (e < c->nr_pool && strcmp(c->pool[e], gd.events[k]))
				e++;
			if (e == c->nr_pool)
				snprintf(c->pool[c->nr_pool++], TOPDOWN_NAME_LEN,
					 "%s", gd.events[k]);
			g->events[k] = e;
		}
	}
	return c->nr_groups > 0;
}

static bool gdec(struct td_gdecoder *gd, const char *label, const char *set,
		 const char *ids)
{
	struct gcfg c;
	char err[256];

	if (!make_gcfg(set, ids, &c))
		return false;
	if (td_gdecoder_init(gd, label, (const char (*)[32])c.pool, c.nr_pool,
			     c.groups, c.nr_groups, err, sizeof(err))) {
		diag("gdecoder %s: %s", label, err);
		return false;
	}
	return true;
}

/* Decode group g of gd with counts given in the group's event order. */
static bool grun(const struct td_gdecoder *gd, int g, const uint64_t *c,
		 struct td_metrics *m)
{
	uint64_t d[TOPDOWN_MAX_EVENTS] = { 0 };

	memcpy(d, c, sizeof(uint64_t) * gd->g[g].nr_events);
	memset(m, 0, sizeof(*m));
	td_gdecode(gd, g, d, m);
	return m->n == gd->g[g].nr_metrics;
}

static bool same_event(const struct td_ev_tmpl *a, const struct td_ev_tmpl *b)
{
	return a->kind == b->kind && a->pmu == b->pmu && a->config == b->config;
}

static bool td_unit_fraction(enum td_unit u)
{
	return u == TD_UNIT_SLOTS || u == TD_UNIT_CYCLES || u == TD_UNIT_SHARE;
}

static bool one_event_per_name(const struct td_set *s,
			       const struct td_ev_tmpl *t)
{
	for (int h = 0; h < s->nr_groups; h++)
		for (int j = 0; j < s->groups[h].nr_events; j++)
			if (!strcmp(t->name, s->groups[h].ev[j].name) &&
			    !same_event(t, &s->groups[h].ev[j]))
				return false;
	return true;
}

/* Every set's groups against the rules of evset_priv.h and evset.h. */
static void test_group_tables(void)
{
	int sets = 0, groups = 0, bad = 0;

	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];
		const char *home[TD_MAX_TREE];
		int nhome = 0;

		if (!s->nr_groups)
			continue;
		sets++;
		if (s->groups[0].level != 1 || !s->gp_counters || !s->budget ||
		    s->nr_groups > TD_MAX_SET_GROUPS) {
			diag("%s: group 0 not level 1, no budget or too many groups",
			     s->name);
			bad++;
		}
		/* group 0 holds every Level 1 event */
		for (int k = 0; k < s->nr_events; k++) {
			bool found = false;

			for (int j = 0; j < s->groups[0].nr_events; j++)
				if (!strcmp(s->groups[0].ev[j].name,
					    s->ev[k].name) &&
				    same_event(&s->groups[0].ev[j], &s->ev[k]))
					found = true;
			if (!found) {
				diag("%s: group 0 lacks %s", s->name,
				     s->ev[k].name);
				bad++;
			}
		}
		for (int gi = 0; gi < s->nr_groups; gi++) {
			const struct td_grp *g = &s->groups[gi];
			struct td_group_desc gd;
			int gp = 0;
			bool anchor = false;

			groups++;
			if (!g->id || strlen(g->id) < 1 || strlen(g->id) > 3 ||
			    (gi && g->level != 2) ||
			    g->nr_events < 1 || g->nr_events > TOPDOWN_MAX_EVENTS ||
			    g->fam->nr_roles > TOPDOWN_MAX_EVENTS) {
				diag("%s/%s: bad id, level or size", s->name,
				     g->name);
				bad++;
			}
			for (int h = 0; h < gi; h++)
				if (!strcmp(s->groups[h].id, g->id) ||
				    !strcmp(s->groups[h].name, g->name)) {
					diag("%s: group %s twice", s->name,
					     g->id);
					bad++;
				}
			for (int k = 0; k < g->nr_events; k++) {
				const struct td_ev_tmpl *t = &g->ev[k];

				gp += td_tmpl_takes_gp(s, t);
				anchor |= !strcmp(t->name, g->anchor);
				if (strlen(t->name) >= TOPDOWN_NAME_LEN ||
				    t->role >= g->fam->nr_roles) {
					diag("%s/%s: %s bad name or role",
					     s->name, g->name, t->name);
					bad++;
				}
				for (int j = 0; j < k; j++)
					if (!strcmp(t->name, g->ev[j].name) ||
					    t->role == g->ev[j].role) {
						diag("%s/%s: %s twice",
						     s->name, g->name, t->name);
						bad++;
					}
				/* one name, one event, in the whole set */
				if (!one_event_per_name(s, t)) {
					diag("%s: %s differs between groups",
					     s->name, t->name);
					bad++;
				}
			}
			if (gp > s->gp_counters || !anchor) {
				diag("%s/%s: %d general counters of %d, anchor %s",
				     s->name, g->name, gp, s->gp_counters,
				     anchor ? "ok" : "missing");
				bad++;
			}
			if (td_set_group(s->name, gi, &gd) || !gd.nr_metrics ||
			    gd.nr_metrics >= TD_MAX_GROUP_METRICS) {
				diag("%s/%s: no metrics", s->name, g->name);
				bad++;
				continue;
			}
			for (int k = 0; k < gd.nr_metrics; k++) {
				const struct td_metric_info *m = gd.metrics[k];

				for (int h = 0; h < nhome; h++)
					if (!strcmp(home[h], m->name)) {
						diag("%s: %s computed by two groups",
						     s->name, m->name);
						bad++;
					}
				if (nhome < TD_MAX_TREE)
					home[nhome++] = m->name;
				if (m->fraction != td_unit_fraction(m->unit) ||
				    (m->parent && (m->level != 2 ||
						   !td_set_metric_info(s, m->parent) ||
						   td_set_metric_info(s, m->parent)->level != 1)) ||
				    (gi && m->level != 2)) {
					diag("%s: %s: unit, level or parent wrong",
					     s->name, m->name);
					bad++;
				}
			}
		}
		/* group 0 computes Level 1 as the set does, first */
		{
			struct td_decoder d;
			struct td_metrics m1;
			struct td_group_desc gd;
			char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN] = { { 0 } };
			char label[64], err[256];

			for (int k = 0; k < s->nr_events; k++)
				snprintf(names[k], 32, "%s", s->ev[k].name);
			snprintf(label, sizeof(label), "set=%s", s->name);
			td_decoder_from_label(&d, label, (const char (*)[32])names,
					      s->nr_events, err, sizeof(err));
			td_decode(&d, (const uint64_t[8]){ 0 }, &m1);
			td_set_group(s->name, 0, &gd);
			for (int k = 0; k < m1.n; k++)
				if (k >= gd.nr_metrics ||
				    strcmp(gd.metrics[k]->name, m1.m[k].name)) {
					diag("%s: group 0 metric %d is not %s",
					     s->name, k, m1.m[k].name);
					bad++;
				}
		}
	}
	ok(!bad && sets >= 7,
	   "groups: %d sets, %d groups: ids, levels, events within the counter budget, one event per name, one home per metric, group 0 = Level 1 first",
	   sets, groups);
}

static void test_group_plans(void)
{
	static const struct {
		enum fx fx;
		const char *set;
		int level;
		const char *mg;
		const char *label;	/* NULL: refused, err has why */
		const char *why;
	} cases[] = {
		{ FX_ICX, NULL, 2, NULL, "set=intel_icl g=l1,bs,be,re", NULL },
		{ FX_ICX, NULL, 1, "tma_backend_bound_group",
		  "set=intel_icl g=l1,be", NULL },
		{ FX_ICX, NULL, 0, "tma_frontend_bound_group",
		  "set=intel_icl g=l1", NULL },
		{ FX_ICX, NULL, 0, "TopdownL1", "set=intel_icl", NULL },
		{ FX_ICX, NULL, 0, "topdownl2,TopdownL1",
		  "set=intel_icl g=l1,bs,be,re", NULL },
		{ FX_ICX, NULL, 0, "nonsense", NULL, "tma_backend_bound_group" },
		{ FX_ICX, NULL, 3, NULL, NULL, "levels 1 and 2" },
		{ FX_SPR, "intel_icl", 2, NULL, NULL, "not model 0x8f" },
		{ FX_SPR, NULL, 2, NULL, NULL, "no groups below Level 1" },
		{ FX_SPR, NULL, 0, "TopdownL1", "set=intel_spr", NULL },
		{ FX_SKX, NULL, 2, NULL, "set=intel_skl slots=4 g=l1,fr", NULL },
		{ FX_BDW, NULL, 2, NULL, "set=intel_snb slots=4 g=l1,fe,re",
		  NULL },
		{ FX_BDW, NULL, 0, "tma_retiring_group",
		  "set=intel_snb slots=4 g=l1,re", NULL },
		{ FX_ZEN4, NULL, 2, NULL, "set=amd_zen4 slots=6 g=l1,fb,br",
		  NULL },
		{ FX_ZEN5, NULL, 0, "backend_bound_group",
		  "set=amd_zen5 slots=8 g=l1,fb", NULL },
		{ FX_ZEN4, NULL, 0, "PipelineL1", "set=amd_zen4 slots=6", NULL },
		{ FX_N2R0P0, NULL, 2, NULL,
		  "set=arm_neoverse_n2 slots=5 rev=r0p0 g=l1,dt,ib,c1,c2,c3",
		  NULL },
		{ FX_N2R0P0, NULL, 0, "TLB",
		  "set=arm_neoverse_n2 slots=5 rev=r0p0 g=l1,dt,ib", NULL },
		{ FX_V2, NULL, 0, "Operation_Mix",
		  "set=arm_neoverse_v2 slots=8 g=l1,m1,m2", NULL },
		{ FX_V2, NULL, 0, "l2_cache_effectiveness,branch_effectiveness",
		  "set=arm_neoverse_v2 slots=8 g=l1,ib,c2", NULL },
		{ FX_V2, NULL, 2, "Operation_Mix", NULL, "more than 32 events" },
		{ FX_N1, NULL, 2, NULL, NULL, "no groups below Level 1" },
		{ FX_TGL, NULL, 2, NULL, "set=intel_icl g=l1,bs,be,re", NULL },
		{ FX_SNB, NULL, 2, NULL, "set=intel_snb slots=4 g=l1,fe,re",
		  NULL },
		{ FX_ADL_PCORE, NULL, 2, NULL, NULL, "not model 0x97" },
		{ FX_ADL_PCORE, NULL, 1, NULL, "set=intel_icl", NULL },
		{ FX_V3, NULL, 2, NULL,
		  "set=arm_neoverse_v3 slots=8 g=l1,fc,fm,bc,bm", NULL },
		{ FX_V3, NULL, 0, "Cycle_Accounting",
		  "set=arm_neoverse_v3 slots=8 g=l1,fc,bc", NULL },
		{ FX_N3, NULL, 0, "TopdownL1", "set=arm_neoverse_n3 slots=5",
		  NULL },
		{ FX_N3, NULL, 0, "Operation_Mix",
		  "set=arm_neoverse_n3 slots=5 g=l1,m1,m2,m3", NULL },
		{ FX_N3, NULL, 0, "topdown_frontend,TLB",
		  "set=arm_neoverse_n3 slots=5 g=l1,fc,fm,dt,it", NULL },
		{ FX_N3, NULL, 0, "TLB,Branch,Cache,Operation_Mix", NULL,
		  "takes 9 groups, more than the 8" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct td_select sel = { .level = cases[i].level,
					 .metric_groups = cases[i].mg,
					 .rotate_ms = 7 };
		struct td_cpu_info *ci = detect(cases[i].fx);
		const char *mg = cases[i].mg ? cases[i].mg : "none";
		struct td_gdecoder gd;
		struct td_plan p;
		char err[512], pool[TOPDOWN_MAX_POOL][32];
		struct topdown_group tg[TOPDOWN_MAX_GROUPS];
		int r;
		bool good;

		if (!ci) {
			ok(false, "plan case %zu: detect", i);
			continue;
		}
		r = td_plan_select(ci, cases[i].set, &sel, &p, err,
				   sizeof(err));
		if (!cases[i].label) {
			ok(r && strstr(err, cases[i].why),
			   "plan %s, level %d, -M %s, refused (%s)",
			   fx_names[cases[i].fx], cases[i].level, mg, err);
			td_cpu_info_free(ci);
			continue;
		}
		good = !r && !strcmp(p.label, cases[i].label);
		if (!good)
			diag("r=%d label '%s' err '%s'", r, p.label, r ? err : "");
		/* the pool and groups make a configuration that decodes */
		memset(tg, 0, sizeof(tg));
		for (int k = 0; k < p.nr_events; k++)
			memcpy(pool[k], p.ev[k].name, 32);
		for (int g = 0; g < p.nr_groups; g++) {
			tg[g].nr_events = p.groups[g].nr;
			for (int k = 0; k < p.groups[g].nr; k++)
				tg[g].events[k] = p.groups[g].ev[k];
		}
		if (good && td_gdecoder_init(&gd, p.label,
					     (const char (*)[32])pool,
					     p.nr_events, tg, p.nr_groups, err,
					     sizeof(err))) {
			diag("gdecoder: %s", err);
			good = false;
		}
		good = good && gd.nr_groups == (p.nr_groups ? p.nr_groups : 1) &&
		       gd.grouped == (p.nr_groups > 0) &&
		       p.nr_events <= TOPDOWN_MAX_POOL &&
		       (p.nr_groups > 1 ? p.rotate_ms == 7 : p.rotate_ms == 0);
		for (int k = 0; good && k < p.nr_events; k++)
			good = p.ev[k].name[0] && (p.ev[k].type != 0 ||
						   !strcmp(p.ev[k].name, "cycles") ||
						   !strcmp(p.ev[k].name,
							   "instructions"));
		ok(good, "plan %s, level %d, -M %s, %s, %d events in %d groups",
		   fx_names[cases[i].fx], cases[i].level, mg, cases[i].label,
		   p.nr_events, p.nr_groups);
		td_cpu_info_free(ci);
	}
}

/* Every metric of every group, hand-computed. */
static void test_group_decode(void)
{
	struct td_gdecoder gd;
	struct td_metrics m;

	if (gdec(&gd, "set=intel_icl g=l1,bs,be,re", "intel_icl",
		 "l1,bs,be,re")) {
		/* cycles inst SLOTS IDQ RET BE CYC0 */
		uint64_t l1[] = { 2000, 3000, 10000, 2000, 3000, 4000, 300 };
		/* SLOTS IDQ RET BE BRM MC */
		uint64_t bs[] = { 10000, 2000, 3000, 4000, 300, 100 };
		/* SLOTS BE RET MEM STORES STALLS P1 P2 */
		uint64_t be[] = { 10000, 4000, 2000, 500, 100, 800, 300, 500 };
		/* SLOTS RET ISSUED MS DEC0 DEC0_C1 MITE */
		uint64_t re[] = { 10000, 4000, 5000, 1000, 3000, 1000, 8000 };

		ok(grun(&gd, 0, l1, &m) && all_l1(&m, 0.3, 0.1, 0.2, 0.4) &&
		   near(&m, "ipc", 1.5) && near(&m, "fetch_latency", 0.15) &&
		   near(&m, "fetch_bandwidth", 0.05) && m.n == 7,
		   "intel_icl group l1: Level 1, fetch latency 5 * 300 / 10000");
		ok(grun(&gd, 1, bs, &m) && near(&m, "branch_mispredicts", 0.075) &&
		   near(&m, "machine_clears", 0.025) && m.n == 2,
		   "intel_icl group bs: 3/4 of the 10%% bad speculation mispredicts");
		ok(grun(&gd, 2, be, &m) &&
		   near(&m, "memory_bound", 0.4 * 600 / 1300) &&
		   near(&m, "core_bound", 0.4 * 700 / 1300) && m.n == 2,
		   "intel_icl group be: memory 600/1300 of the 40%% backend");
		ok(grun(&gd, 3, re, &m) && near(&m, "heavy_operations", 0.18) &&
		   near(&m, "light_operations", 0.22) && m.n == 2,
		   "intel_icl group re: heavy = microcode 8%% + decoder 10%%");
		memset(be, 0, sizeof(be));
		ok(grun(&gd, 2, be, &m) && !m.m[0].valid && !m.m[1].valid,
		   "intel_icl group be: zero slots gives no value, not 0");
	} else {
		ok(false, "intel_icl gdecoder");
	}
	if (gdec(&gd, "set=intel_skl slots=4 g=l1,fr", "intel_skl", "l1,fr")) {
		/* cycles inst IDQ CYC0 RET MACRO */
		uint64_t fr[] = { 1000, 1200, 800, 150, 1600, 100 };

		ok(grun(&gd, 1, fr, &m) && near(&m, "fetch_latency", 0.15) &&
		   near(&m, "fetch_bandwidth", 0.05) &&
		   near(&m, "heavy_operations", 0.125) &&
		   near(&m, "light_operations", 0.275),
		   "intel_skl group fr: fetch 4 * 150 / 4000, heavy (1600 + 100 - 1200) / 4000");
	} else {
		ok(false, "intel_skl gdecoder");
	}
	if (gdec(&gd, "set=intel_snb slots=4 g=l1,fe,re", "intel_snb",
		 "l1,fe,re")) {
		uint64_t fe[] = { 1000, 800, 150 };
		uint64_t re[] = { 1000, 1600, 2000, 400 };

		ok(grun(&gd, 1, fe, &m) && near(&m, "fetch_latency", 0.15) &&
		   near(&m, "fetch_bandwidth", 0.05) && grun(&gd, 2, re, &m) &&
		   near(&m, "heavy_operations", 0.08) &&
		   near(&m, "light_operations", 0.32),
		   "intel_snb groups fe, re: heavy = 1600 / 2000 * 400 / 4000");
	} else {
		ok(false, "intel_snb gdecoder");
	}
	if (gdec(&gd, "set=amd_zen4 slots=6 g=l1,fb,br", "amd_zen4",
		 "l1,fb,br")) {
		/* cyc FE FE_LAT BE LOAD_NC NC */
		uint64_t fb[] = { 1000, 1200, 100, 1800, 300, 1200 };
		/* cyc DISP RET BRN RESYNC UCODE */
		uint64_t br[] = { 1000, 3000, 2400, 30, 10, 240 };

		ok(grun(&gd, 1, fb, &m) && near(&m, "fetch_latency", 0.1) &&
		   near(&m, "fetch_bandwidth", 0.1) &&
		   near(&m, "memory_bound", 0.075) &&
		   near(&m, "core_bound", 0.225),
		   "amd_zen4 group fb: 6 * 100 / 6000 latency, 1/4 of backend memory");
		ok(grun(&gd, 2, br, &m) && near(&m, "branch_mispredicts", 0.075) &&
		   near(&m, "machine_clears", 0.025) &&
		   near(&m, "heavy_operations", 0.04) &&
		   near(&m, "light_operations", 0.36),
		   "amd_zen4 group br: mispredicts 30 of 40 redirects, microcode 10%%");
	} else {
		ok(false, "amd_zen4 gdecoder");
	}
	if (gdec(&gd, "set=amd_zen5 slots=8 g=l1,fb", "amd_zen5", "l1,fb")) {
		uint64_t fb[] = { 1000, 1200, 100, 1800, 300, 1200 };

		ok(grun(&gd, 1, fb, &m) && near(&m, "fetch_latency", 0.1) &&
		   near(&m, "fetch_bandwidth", 0.05),
		   "amd_zen5 group fb: 8-wide, 8 * 100 / 8000");
	} else {
		ok(false, "amd_zen5 gdecoder");
	}
	if (gdec(&gd, "set=arm_neoverse_n2 slots=5 rev=r0p3 g=l1,dt,c2,m2",
		 "arm_neoverse_n2", "l1,dt,c2,m2")) {
		/* cyc inst L1D_TLB L1D_TLB_R WALK L2D_TLB L2D_TLB_R */
		uint64_t dt[] = { 1000, 2000, 500, 50, 10, 40, 4 };
		/* cyc inst L2D L2D_R LL_RD LL_MISS */
		uint64_t c2[] = { 1000, 2000, 400, 100, 100, 30 };
		/* cyc SPEC IMMED INDIRECT RETURN CRYPTO */
		uint64_t m2[] = { 1000, 1000, 100, 20, 15, 0 };

		ok(grun(&gd, 1, dt, &m) && near(&m, "dtlb_mpki", 5) &&
		   near(&m, "dtlb_walk_ratio", 0.02) &&
		   near(&m, "l1d_tlb_miss_ratio", 0.1) &&
		   near(&m, "l1d_tlb_mpki", 25) &&
		   near(&m, "l2_tlb_miss_ratio", 0.1) &&
		   near(&m, "l2_tlb_mpki", 2) && m.n == 6,
		   "arm_neoverse_n2 group dt: MPKI and miss ratios");
		ok(grun(&gd, 2, c2, &m) && near(&m, "l2_cache_miss_ratio", 0.25) &&
		   near(&m, "l2_cache_mpki", 50) &&
		   near(&m, "ll_cache_read_hit_ratio", 0.7) &&
		   near(&m, "ll_cache_read_miss_ratio", 0.3) &&
		   near(&m, "ll_cache_read_mpki", 15),
		   "arm_neoverse_n2 group c2: L2 and last-level cache");
		ok(grun(&gd, 3, m2, &m) && near(&m, "branch_percentage", 0.12) &&
		   near(&m, "branch_return_spec_rate", 0.015) &&
		   near(&m, "crypto_percentage", 0) &&
		   !td_metric_is_fraction("l2_tlb_mpki") &&
		   td_metric_is_fraction("branch_percentage"),
		   "arm_neoverse_n2 group m2: operation mix, fractions vs MPKI");
	} else {
		ok(false, "arm_neoverse_n2 gdecoder");
	}
	if (gdec(&gd, "set=arm_neoverse_n3 slots=5 g=l1,fc,fm,m2,m3",
		 "arm_neoverse_n3", "l1,fc,fm,m2,m3")) {
		/* cyc STALL_FRONTEND _CPUBOUND _FLOW _FLUSH _MEMBOUND */
		uint64_t fc[] = { 1000, 400, 300, 200, 100, 100 };
		/* cyc _MEMBOUND _L1I _MEM _TLB */
		uint64_t fm[] = { 1000, 100, 30, 50, 20 };
		/* cyc INST_SPEC DP SVE DSB PC_WRITE */
		uint64_t m2[] = { 1000, 1000, 300, 10, 20, 120 };
		/* cyc INST_SPEC ISB DSB DMB */
		uint64_t m3[] = { 1000, 1000, 5, 20, 15 };

		ok(grun(&gd, 1, fc, &m) &&
		   near(&m, "frontend_stalled_cycles", 0.4) &&
		   near(&m, "frontend_core_bound", 0.75) &&
		   near(&m, "frontend_mem_bound", 0.25) &&
		   near(&m, "frontend_core_flow_bound", 200.0 / 300) &&
		   near(&m, "frontend_core_flush_bound", 100.0 / 300) &&
		   !td_gdecoder_find(&gd, "frontend_core_bound", NULL,
				     NULL)->parent,
		   "arm_neoverse_n3 group fc: shares of the front end's stalls, no parent");
		ok(grun(&gd, 2, fm, &m) &&
		   near(&m, "frontend_mem_cache_bound", 0.8) &&
		   near(&m, "frontend_mem_tlb_bound", 0.2) &&
		   near(&m, "frontend_cache_l1i_bound", 0.375) &&
		   near(&m, "frontend_cache_l2i_bound", 0.625),
		   "arm_neoverse_n3 group fm: L1I / (L1I + MEM), (L1I + MEM) / MEMBOUND");
		ok(grun(&gd, 3, m2, &m) &&
		   near(&m, "integer_dp_percentage", 0.28) &&
		   near(&m, "branch_percentage", 0.12) &&
		   near(&m, "sve_all_percentage", 0.01) && m.n == 3,
		   "arm_neoverse_n3 group m2: (DP_SPEC - DSB_SPEC), PC_WRITE_SPEC / INST_SPEC");
		ok(grun(&gd, 4, m3, &m) && near(&m, "barrier_percentage", 0.04),
		   "arm_neoverse_n3 group m3: (ISB + DSB + DMB) / INST_SPEC");
	} else {
		ok(false, "arm_neoverse_n3 gdecoder");
	}
	if (gdec(&gd, "set=arm_neoverse_v3 slots=10 g=l1,bm,m2",
		 "arm_neoverse_v3", "l1,bm,m2")) {
		/* cyc _MEMBOUND _L1D _MEM _ST _TLB */
		uint64_t bm[] = { 1000, 200, 60, 40, 50, 50 };
		/* cyc INST_SPEC DP SVE BR_IMMED BR_INDIRECT */
		uint64_t m2[] = { 1000, 1000, 300, 10, 100, 20 };

		ok(grun(&gd, 1, bm, &m) &&
		   near(&m, "backend_mem_cache_bound", 0.5) &&
		   near(&m, "backend_mem_store_bound", 0.25) &&
		   near(&m, "backend_mem_tlb_bound", 0.25) &&
		   near(&m, "backend_cache_l1d_bound", 0.6) &&
		   near(&m, "backend_cache_l2d_bound", 0.4),
		   "arm_neoverse_v3 group bm: shares of the back end's memory stalls");
		ok(grun(&gd, 2, m2, &m) &&
		   near(&m, "integer_dp_percentage", 0.3) &&
		   near(&m, "branch_percentage", 0.12) &&
		   near(&m, "sve_all_percentage", 0.01),
		   "arm_neoverse_v3 group m2: DP_SPEC, (BR_IMMED + BR_INDIRECT) / INST_SPEC");
	} else {
		ok(false, "arm_neoverse_v3 gdecoder");
	}
}

static void test_group_tree(void)
{
	static const char *const want[] = {
		"retiring", "heavy_operations", "light_operations",
		"bad_speculation", "branch_mispredicts", "machine_clears",
		"frontend_bound", "fetch_latency", "fetch_bandwidth",
		"backend_bound", "memory_bound", "core_bound", "ipc",
	};
	static const int depth[] = { 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0 };
	struct td_tree_node t[TD_MAX_TREE];
	struct td_gdecoder gd;
	bool good;
	int n, g = -1, k = -1;

	good = gdec(&gd, "set=intel_icl g=l1,bs,be,re", "intel_icl",
		    "l1,bs,be,re");
	n = good ? td_gdecoder_tree(&gd, t, TD_MAX_TREE) : 0;
	good = n == 13;
	for (int i = 0; good && i < n; i++) {
		good = !strcmp(t[i].info->name, want[i]) &&
		       t[i].depth == depth[i] &&
		       gd.g[t[i].group].metrics[t[i].index] == t[i].info;
		if (!good)
			diag("node %d: %s depth %d", i, t[i].info->name,
			     t[i].depth);
	}
	ok(good, "tree: each Level 1 class, then its Level 2 children from their groups");
	ok(td_gdecoder_find(&gd, "memory_bound", &g, &k) && g == 2 && k == 0 &&
	   !strcmp(td_gdecoder_find(&gd, "memory_bound", NULL, NULL)->perf_name,
		   "tma_memory_bound") &&
	   !strcmp(td_gdecoder_find(&gd, "memory_bound", NULL, NULL)->parent,
		   "backend_bound") &&
	   !td_gdecoder_find(&gd, "smt_contention", NULL, NULL),
	   "find: memory_bound's home is group 2, perf's tma_memory_bound");
	ok(gd.g[2].anchor == 0 && !strcmp(gd.g[2].name, "backend") &&
	   gd.g[2].level == 2 && gd.g[0].level == 1,
	   "groups: name, level and the anchor's position (TOPDOWN.SLOTS_P)");
	good = gdec(&gd, "set=arm_neoverse_v2 slots=8 g=l1,dt", "arm_neoverse_v2",
		    "l1,dt");
	n = good ? td_gdecoder_tree(&gd, t, TD_MAX_TREE) : 0;
	ok(n == 5 + 6 && t[5].depth == 0 && t[5].group == 1 &&
	   !t[5].info->parent && !strcmp(t[4].info->name, "ipc"),
	   "tree: Arm drill-down metrics after Level 1, without parent");
	good = gdec(&gd, "set=amd_zen4 slots=6 g=l1,fb,br", "amd_zen4",
		    "l1,fb,br");
	ok(good && !strcmp(td_gdecoder_find(&gd, "light_operations", NULL,
					    NULL)->perf_name,
			   "retiring_fastpath"),
	   "zen4: tdctl's light_operations is perf's retiring_fastpath");
}

static void test_group_errors(void)
{
	static const struct {
		const char *label, *ids, *set, *why;
	} bad[] = {
		{ "set=intel_icl g=l1,zz", "l1,be", "intel_icl", "not a group" },
		{ "set=intel_icl g=be,l1", "l1,be", "intel_icl", "has 8 events" },
		{ "set=intel_icl g=l1,l1", "l1,be", "intel_icl", "twice" },
		{ "set=intel_icl g=l1,", "l1,be", "intel_icl", "empty group" },
		{ "set=intel_icl g=l1", "l1,be", "intel_icl", "names 1 groups" },
		{ "set=intel_icl g=l1,bs", "l1,be", "intel_icl",
		  "has 6 events" },
		{ "set=intel_icl", "l1,be", "intel_icl", "names none" },
		{ "set=intel_spr g=l1", "l1", "intel_icl", "has no groups" },
		{ "set=intel_icl g=l1,be g=l1,be", "l1,be", "intel_icl",
		  "twice" },
	};
	char err[256], names[8][32] = { { 0 } };
	struct td_gdecoder gd;
	struct td_decoder d;
	struct gcfg c;
	int refused = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_gcfg(bad[i].set, bad[i].ids, &c);
		if (td_gdecoder_init(&gd, bad[i].label,
				     (const char (*)[32])c.pool, c.nr_pool,
				     c.groups, c.nr_groups, err, sizeof(err)) &&
		    strstr(err, bad[i].why))
			refused++;
		else
			diag("'%s' with %s: '%s'", bad[i].label, bad[i].ids, err);
	}
	ok(refused == (int)(sizeof(bad) / sizeof(bad[0])),
	   "gdecoder: %d malformed labels and group mismatches refused with why",
	   refused);

	make_gcfg("intel_icl", "l1,be", &c);
	c.groups[1].events[1] = c.groups[1].events[0];
	ok(td_gdecoder_init(&gd, "set=intel_icl g=l1,be",
			    (const char (*)[32])c.pool, c.nr_pool, c.groups,
			    c.nr_groups, err, sizeof(err)) &&
	   strstr(err, "twice"), "gdecoder: a group counting an event twice (%s)",
	   err);
	make_gcfg("intel_icl", "l1,be", &c);
	c.groups[1].events[7] = 40;
	ok(td_gdecoder_init(&gd, "set=intel_icl g=l1,be",
			    (const char (*)[32])c.pool, c.nr_pool, c.groups,
			    c.nr_groups, err, sizeof(err)) &&
	   strstr(err, "not in the pool"), "gdecoder: pool index out of range");
	make_gcfg("intel_icl", "l1,be", &c);
	for (int k = 0; k < 7; k++)
		memcpy(names[k], c.pool[k], 32);
	ok(td_decoder_from_label(&d, "set=intel_icl g=l1", (const char (*)[32])names,
				 7, err, sizeof(err)) &&
	   strstr(err, "groups"),
	   "td_decoder_from_label refuses a g= label (%s)", err);

	/* a VER0 configuration through td_gdecoder_from_config */
	{
		struct topdown_config cfg;
		const struct td_set *s = &td_set_intel_icl;
		uint64_t cnt[8] = { 1000, 1500, 5000, 1000, 2000, 1500 };
		struct td_metrics m;

		memset(&cfg, 0, sizeof(cfg));
		cfg.size = TOPDOWN_CONFIG_SIZE_VER0;
		cfg.nr_events = s->nr_events;
		snprintf(cfg.label, sizeof(cfg.label), "set=intel_icl");
		for (int k = 0; k < s->nr_events; k++)
			snprintf(cfg.events[k].name, 32, "%s", s->ev[k].name);
		cfg.nr_groups = 3;	/* past size: not read */
		ok(!td_gdecoder_from_config(&gd, &cfg, err, sizeof(err)) &&
		   !gd.grouped && gd.nr_groups == 1 &&
		   gd.g[0].nr_metrics == 5 && gd.g[0].anchor == 2 &&
		   grun(&gd, 0, cnt, &m) && all_l1(&m, 0.4, 0.1, 0.2, 0.3),
		   "from_config: VER0 is one group, decoded as Level 1");
	}
	/* a VER1 configuration with more_events */
	{
		struct topdown_config cfg;

		make_gcfg("arm_neoverse_n2", "l1,dt,ib,c1,c2,c3", &c);
		memset(&cfg, 0, sizeof(cfg));
		cfg.size = TOPDOWN_CONFIG_SIZE_VER1;
		cfg.nr_events = c.nr_pool;
		snprintf(cfg.label, sizeof(cfg.label),
			 "set=arm_neoverse_n2 slots=5 rev=r0p0 g=l1,dt,ib,c1,c2,c3");
		for (int k = 0; k < c.nr_pool; k++)
			memcpy(k < 8 ? cfg.events[k].name :
			       cfg.more_events[k - 8].name, c.pool[k], 32);
		cfg.nr_groups = c.nr_groups;
		memcpy(cfg.groups, c.groups, sizeof(c.groups));
		ok(!td_gdecoder_from_config(&gd, &cfg, err, sizeof(err)) &&
		   gd.grouped && gd.nr_groups == 6 && gd.nr_pool > 8 &&
		   !strcmp(gd.g[5].id, "c3"),
		   "from_config: VER1, %d events in 6 groups (%s)", c.nr_pool,
		   gd.nr_groups == 6 ? "ok" : err);
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	make_fixtures();
	test_cpulist();
	test_table();
	test_auto();
	test_plans();
	test_detect_misc();
	test_labels();
	test_decode_sets();
	test_seed003();
	test_edges();
	test_metric_kinds();
	test_group_tables();
	test_group_plans();
	test_group_decode();
	test_group_tree();
	test_group_errors();
	return tap_done();
}
