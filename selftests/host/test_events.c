// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of perf's event syntax (tdctl load --events): named
 * hardware, software and cache events, rNNNN, PMU/terms/ encoded through
 * sysfs format/ files of fake trees in a temporary directory, events/
 * aliases, event-set names, the u/k modifiers, every refusal, the label
 * and the decoder it gives (IPC, a set's formula over a reordered
 * collection). Prints TAP, one line per case.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "evset/evset_priv.h"
#include "fixtures.h"
#include "tap.h"

static const char *tmproot;

#define DEV "sys/bus/event_source/devices/"

static const char *make_root(enum fx fx)
{
	static char root[FX_NR][512];

	snprintf(root[fx], sizeof(root[fx]), "%s/%s", tmproot, fx_names[fx]);
	if (fx_make(root[fx], fx)) {
		fprintf(stderr, "cannot make fixture %s\n", fx_names[fx]);
		exit(2);
	}
	return root[fx];
}

/* perf's x86 core PMU format (arch/x86/events/intel/core.c). */
static void x86_formats(const char *root, const char *pmu)
{
	static const char *const f[][2] = {
		{ "event", "config:0-7\n" }, { "umask", "config:8-15\n" },
		{ "edge", "config:18\n" }, { "pc", "config:19\n" },
		{ "any", "config:21\n" }, { "inv", "config:23\n" },
		{ "cmask", "config:24-31\n" }, { "ldlat", "config1:0-15\n" },
		{ "split", "config:0-3,32-35\n" },
	};
	char rel[256];

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(rel, sizeof(rel), DEV "%s/format/%s", pmu, f[i][0]);
		fx_write(root, rel, f[i][1]);
	}
	snprintf(rel, sizeof(rel), DEV "%s/events/cpu-cycles", pmu);
	fx_write(root, rel, "event=0x3c\n");
	snprintf(rel, sizeof(rel), DEV "%s/events/topdown-slots", pmu);
	fx_write(root, rel, "event=0x00,umask=0x4\n");
	snprintf(rel, sizeof(rel), DEV "%s/events/cpu-cycles.scale", pmu);
	fx_write(root, rel, "1\n");
}

static uint64_t td_rand_below_test(uint64_t *s, uint64_t n)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s % n;
}

static struct td_cpu_info *detect(const char *root)
{
	char err[256];
	struct td_cpu_info *ci = td_detect(root, err, sizeof(err));

	if (!ci) {
		fprintf(stderr, "td_detect(%s): %s\n", root, err);
		exit(2);
	}
	return ci;
}

/* Parse spec; check nr, label and, for the first event, its fields. */
static void expect_ok(const struct td_cpu_info *ci, const char *root,
		      const char *spec, int nr, uint32_t type, uint64_t config,
		      uint32_t flags, const char *label)
{
	struct td_plan p;
	char err[512] = "";
	int r = td_plan_events(ci, root, spec, &p, err, sizeof(err));

	if (!ok(!r && p.nr_events == nr && p.ev[0].type == type &&
		p.ev[0].config == config && p.ev[0].flags == flags &&
		(!label || !strcmp(p.label, label)) &&
		!strcmp(p.set, "events"),
		"'%s': %d events, type %u config 0x%llx flags %u%s%s", spec, nr,
		type, (unsigned long long)config, flags,
		label ? ", label " : "", label ? label : ""))
		diag("got r=%d '%s' nr=%d type %u config 0x%llx flags %u label '%s'",
		     r, err, p.nr_events, p.ev[0].type,
		     (unsigned long long)p.ev[0].config, p.ev[0].flags, p.label);
}

static void expect_err(const struct td_cpu_info *ci, const char *root,
		       const char *spec, const char *want)
{
	struct td_plan p;
	char err[512] = "";
	int r = td_plan_events(ci, root, spec, &p, err, sizeof(err));

	if (!ok(r == -1 && strstr(err, want), "'%s' refused: ...%s...", spec,
		want))
		diag("got r=%d '%s'", r, err);
}

/* The plan of set name, written as PMU/config=..,name=../ events in the
 * order given by perm, parsed back: the label must say "of=name".
 */
static void set_roundtrip(const struct td_cpu_info *ci, const char *root,
			  const char *name, const int *perm,
			  const char *want_label, int nchecks)
{
	struct td_decoder ds, de;
	struct td_metrics ms, me;
	struct td_plan sp, ep;
	char spec[2048] = "", err[512] = "";
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN];
	uint64_t seed = 42;
	bool same = true;
	int r;

	if (td_plan_for(ci, name, &sp, err, sizeof(err))) {
		ok(false, "set %s plans here: %s", name, err);
		return;
	}
	for (int i = 0; i < sp.nr_events; i++) {
		const struct td_evsel *e = &sp.ev[perm[i]];
		const char *pmu = NULL;
		size_t l = strlen(spec);

		for (int k = 0; k < ci->nr_pmus; k++)
			if (ci->pmu[k].type == e->type)
				pmu = ci->pmu[k].name;
		if (e->type == PERF_TYPE_HARDWARE)	/* cycles, instructions */
			snprintf(spec + l, sizeof(spec) - l, "%s%s",
				 i ? "," : "", td_event_name((int)e->config + 1));
		else
			snprintf(spec + l, sizeof(spec) - l,
				 "%s%s/config=0x%llx,name=ev%d/", i ? "," : "",
				 pmu, (unsigned long long)e->config, perm[i]);
	}
	r = td_plan_events(ci, root, spec, &ep, err, sizeof(err));
	if (!ok(!r && !strcmp(ep.label, want_label),
		"set %s reordered: label '%s'", name, want_label)) {
		diag("spec %s: r=%d '%s' label '%s'", spec, r, err, ep.label);
		return;
	}
	/* Same counts, set order and collection order: same metrics. */
	for (int i = 0; i < sp.nr_events; i++)
		memcpy(names[i], sp.ev[i].name, TOPDOWN_NAME_LEN);
	r = td_decoder_from_label(&ds, sp.label,
				  (const char (*)[TOPDOWN_NAME_LEN])names,
				  sp.nr_events, err, sizeof(err));
	r |= td_decoder_from_label(&de, ep.label, NULL, ep.nr_events, err,
				   sizeof(err));
	if (!ok(!r, "set %s: both labels decode", name)) {
		diag("%s", err);
		return;
	}
	for (int round = 0; round < nchecks; round++) {
		uint64_t cs[TOPDOWN_MAX_EVENTS], ce[TOPDOWN_MAX_EVENTS];

		for (int i = 0; i < sp.nr_events; i++)
			cs[i] = 1000000 + td_rand_below_test(&seed, 1000000);
		for (int i = 0; i < sp.nr_events; i++)
			ce[i] = cs[perm[i]];
		td_decode(&ds, cs, &ms);
		td_decode(&de, ce, &me);
		same &= ms.n == me.n && ms.n > 0;
		for (int k = 0; same && k < ms.n; k++)
			same &= !strcmp(ms.m[k].name, me.m[k].name) &&
				ms.m[k].valid == me.m[k].valid &&
				ms.m[k].value == me.m[k].value;
	}
	ok(same, "set %s: the collection decodes like the set (%d metrics, %d random count "
		 "vectors)",
	   name, ms.n, nchecks);
}

int main(void)
{
	const char *skx, *n2, *adl, *zen4, *qx86;
	struct td_cpu_info *ci;
	struct td_plan p;
	char err[512];

	tmproot = tap_tmpdir();

	/* ---- x86 Skylake server: cpu with perf's format files ---- */
	skx = make_root(FX_SKX);
	x86_formats(skx, "cpu");
	ci = detect(skx);
	expect_ok(ci, skx, "cycles,instructions", 2, PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_CPU_CYCLES, 0, "set=events ipc=10");
	expect_ok(ci, skx, "instructions:u", 1, PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_INSTRUCTIONS, TOPDOWN_EVENT_EXCLUDE_KERNEL,
		  "set=events");
	expect_ok(ci, skx, "cpu-cycles:k", 1, PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_CPU_CYCLES, TOPDOWN_EVENT_EXCLUDE_USER, NULL);
	expect_ok(ci, skx, "Instructions:uk", 1, PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_INSTRUCTIONS, 0, NULL);
	expect_ok(ci, skx, "instructions:ku", 1, PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_INSTRUCTIONS, 0, NULL);
	expect_ok(ci, skx, "instructions:u,cycles:u", 2, PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_INSTRUCTIONS, TOPDOWN_EVENT_EXCLUDE_KERNEL,
		  "set=events ipc=01");
	expect_ok(ci, skx, "instructions:u,cycles", 2, PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_INSTRUCTIONS, TOPDOWN_EVENT_EXCLUDE_KERNEL,
		  "set=events");
	expect_ok(ci, skx, "branch-misses,ref-cycles,stalled-cycles-backend",
		  3, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, NULL);
	expect_ok(ci, skx, "cpu-clock,task-clock,page-faults,cs", 4,
		  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, "set=events");
	expect_ok(ci, skx, "context-switches:k", 1, PERF_TYPE_SOFTWARE,
		  PERF_COUNT_SW_CONTEXT_SWITCHES, TOPDOWN_EVENT_EXCLUDE_USER,
		  NULL);
	expect_ok(ci, skx, "L1-dcache-load-misses", 1, PERF_TYPE_HW_CACHE,
		  PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
		  PERF_COUNT_HW_CACHE_RESULT_MISS << 16, 0, NULL);
	expect_ok(ci, skx, "dTLB-stores", 1, PERF_TYPE_HW_CACHE,
		  PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_WRITE << 8,
		  0, NULL);
	expect_ok(ci, skx, "LLC-prefetch-misses:u", 1, PERF_TYPE_HW_CACHE,
		  PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_PREFETCH << 8 |
		  PERF_COUNT_HW_CACHE_RESULT_MISS << 16,
		  TOPDOWN_EVENT_EXCLUDE_KERNEL, NULL);
	expect_ok(ci, skx, "r1a8", 1, PERF_TYPE_RAW, 0x1a8, 0, NULL);
	expect_ok(ci, skx, "r01C2:u", 1, PERF_TYPE_RAW, 0x1c2,
		  TOPDOWN_EVENT_EXCLUDE_KERNEL, NULL);
	expect_ok(ci, skx, "cpu/event=0x3c,umask=1,cmask=2,edge,inv,name=c/", 1, 4,
		  0x3c | 1 << 8 | 1 << 18 | 1 << 23 | 2u << 24, 0, NULL);
	expect_ok(ci, skx, "cpu/event=0xc0,any=1/u", 1, 4, 0xc0 | 1 << 21,
		  TOPDOWN_EVENT_EXCLUDE_KERNEL, NULL);
	expect_ok(ci, skx, "cpu/event=0xc0/:k", 1, 4, 0xc0,
		  TOPDOWN_EVENT_EXCLUDE_USER, NULL);
	expect_ok(ci, skx, "cpu/split=0xff/", 1, 4, 0xfull | 0xfull << 32, 0,
		  NULL);
	expect_ok(ci, skx, "cpu/config=0x1234,config2=7/", 1, 4, 0x1234, 0,
		  NULL);
	expect_ok(ci, skx, "cpu/cpu-cycles/", 1, 4, 0x3c, 0, NULL);
	expect_ok(ci, skx, "cpu/topdown-slots/", 1, 4, 0x400, 0, NULL);
	expect_ok(ci, skx, "CPU-Cycles", 1, PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_CPU_CYCLES, 0, NULL);
	expect_ok(ci, skx, "topdown-slots:u", 1, 4, 0x400,
		  TOPDOWN_EVENT_EXCLUDE_KERNEL, NULL);
	/* Raw cycles and instructions of the CPU's PMU give IPC too. */
	expect_ok(ci, skx, "cpu/event=0x3c/,r00c0", 2, 4, 0x3c, 0,
		  "set=events ipc=10");
	ok(!td_plan_events(ci, skx, "cpu/event=0x3c,umask=0,name=cyc/,cpu/ldlat=3/",
			   &p, err, sizeof(err)) &&
	   !strcmp(p.ev[0].name, "cyc") && p.ev[1].config1 == 3 &&
	   !strcmp(p.ev[1].name, "cpu/ldlat=3/") && p.ev[0].all_cpus,
	   "name= names the event, other names are the event as written, config1 terms");

	expect_err(ci, skx, "cpu/event=0x100/", "too big for event");
	expect_err(ci, skx, "cpu/foo=1/", "no term 'foo'");
	expect_err(ci, skx, "cpu/foo=1/", "umask");
	expect_err(ci, skx, "cpu/event=0x3c,event=1/", "another term");
	expect_err(ci, skx, "cpu/event=zz/", "bad value 'zz'");
	expect_err(ci, skx, "cpu/event=0x3c", "not closed");
	expect_err(ci, skx, "cpu//", "no terms");
	expect_err(ci, skx, "cpu/event=1,,umask=1/", "empty term");
	expect_err(ci, skx, "cpu/period=1000/", "does not sample");
	expect_err(ci, skx, "cpu/event=1/p", "modifier 'p'");
	expect_err(ci, skx, "uncore_imc_0/event=1/", "not a core CPU PMU");
	expect_err(ci, skx, "tracepoint/event=1/", "not a core CPU PMU");
	expect_err(ci, skx, "nopmu/event=1/", "no PMU 'nopmu'");
	/* Groups are accepted (the kernel rotates them); a broken one is not. */
	expect_err(ci, skx, "{cycles,instructions", "without its '}'");
	expect_err(ci, skx, "cycles:p", "modifier 'p'");
	expect_err(ci, skx, "cycles:h", "modifier 'h'");
	expect_err(ci, skx, "cycles:uu", "given twice");
	expect_err(ci, skx, "sched:sched_switch", "tracepoint");
	expect_err(ci, skx, "mem:0x1000", "breakpoints");
	expect_err(ci, skx, "cycles,,instructions", "empty event");
	expect_err(ci, skx, "cycles,", "empty event");
	expect_err(ci, skx, ",cycles", "empty event");
	expect_err(ci, skx, "", "no events");
	expect_err(ci, skx, "cycles,cycles", "given twice");
	expect_err(ci, skx, "bogus_event", "unknown event 'bogus_event'");
	expect_err(ci, skx, "rxyz", "unknown event 'rxyz'");
	expect_err(ci, skx, "bpf-output", "not a counter");
	expect_err(ci, skx, "cycles instructions", "blanks");
	expect_err(ci, skx,
		   "r1,r2,r3,r4,r5,r6,r7,r8,r9", "at most 8");
	expect_err(ci, skx, "cpu/event=0x3c,umask=0x01,cmask=0x01,edge/",
		   "name=");
	expect_err(ci, skx, "cpu/event=1,name=a_name_of_more_than_31_bytes_here/",
		   "longer than 31");
	set_roundtrip(ci, skx, "intel_skl", (const int[]){ 4, 2, 0, 1, 5, 3 },
		      "set=events of=intel_skl slots=4 map=231504", 200);
	td_cpu_info_free(ci);

	/* ---- Neoverse N2 r0p0: armv8_pmuv3_0, event names of the set ---- */
	n2 = make_root(FX_N2R0P0);
	fx_write(n2, DEV "armv8_pmuv3_0/format/event", "config:0-15\n");
	fx_write(n2, DEV "armv8_pmuv3_0/format/long", "config1:0\n");
	fx_write(n2, DEV "armv8_pmuv3_0/events/cpu_cycles", "event=0x0011\n");
	fx_write(n2, DEV "armv8_pmuv3_0/events/inst_retired", "event=0x0008\n");
	ci = detect(n2);
	expect_ok(ci, n2, "armv8_pmuv3_0/event=0x11/,armv8_pmuv3_0/event=0x8/",
		  2, 8, 0x11, 0, "set=events ipc=10");
	expect_ok(ci, n2, "cpu_cycles:u,INST_RETIRED:u", 2, 8, 0x11,
		  TOPDOWN_EVENT_EXCLUDE_KERNEL, "set=events ipc=10");
	expect_ok(ci, n2, "stall_slot_frontend", 1, 8, 0x3e, 0, NULL);
	/* rNNNN goes to the CPU's own PMU: r11 is CPU_CYCLES. */
	expect_ok(ci, n2, "r11,instructions", 2, PERF_TYPE_RAW, 0x11, 0,
		  "set=events ipc=10");
	expect_ok(ci, n2, "armv8_pmuv3_0/event=0x3f,long/", 1, 8, 0x3f, 0,
		  NULL);
	expect_err(ci, n2, "armv8_pmuv3_0/event=0x10000/", "at most 0xffff");
	expect_err(ci, n2, "arm_cmn_0/event=1/", "not a core CPU PMU");
	expect_err(ci, n2, "armv8_pmuv3_0/umask=1/", "its format terms: ");
	set_roundtrip(ci, n2, "arm_neoverse_n2",
		      (const int[]){ 6, 5, 4, 3, 2, 1, 0 },
		      "set=events of=arm_neoverse_n2 slots=5 rev=r0p0 map=6543210",
		      200);
	/* Not every event of the set: no set formula, IPC if it can. */
	expect_ok(ci, n2, "cpu_cycles,op_retired,op_spec,stall_slot,inst_retired",
		  5, 8, 0x11, 0, "set=events ipc=40");
	td_cpu_info_free(ci);

	/* ---- Alder Lake: a PMU that covers some CPUs only ---- */
	adl = make_root(FX_ADL);
	x86_formats(adl, "cpu_atom");
	ci = detect(adl);
	ok(!td_plan_events(ci, adl, "cpu_atom/event=0x3c/,cycles", &p, err,
			   sizeof(err)) &&
	   p.ev[0].type == 10 && !p.ev[0].all_cpus &&
	   p.ev[0].cpus[0] == 0xff0000 && p.ev[1].all_cpus,
	   "cpu_atom/.../ counts on cpu_atom's CPUs (16-23) only");
	td_cpu_info_free(ci);

	/* ---- Zen 4: perf's names of the set's events ---- */
	zen4 = make_root(FX_ZEN4);
	x86_formats(zen4, "cpu");
	ci = detect(zen4);
	/* amdzen4/pipeline.json: event 0x1a0 umask 0x1e, bits 8-11 of the
	 * event in config bits 32-35
	 */
	expect_ok(ci, zen4, "de_no_dispatch_per_slot.backend_stalls", 1, 4,
		  0x100001ea0ull, 0, NULL);
	ok(!td_plan_events(ci, zen4, "de_no_dispatch_per_slot.smt_contention:u",
			   &p, err, sizeof(err)) &&
	   !strcmp(p.ev[0].name, "de_no_dispatch.smt_contention"),
	   "perf's name longer than 31 bytes: the set's name for the module (%s)",
	   p.ev[0].name);
	expect_ok(ci, zen4, "DE_NO_DISPATCH.NO_OPS_FROM_FE:u", 1, 4,
		  0x1000001a0ull, TOPDOWN_EVENT_EXCLUDE_KERNEL, NULL);
	td_cpu_info_free(ci);

	/* ---- QEMU x86 TCG: no hardware PMU in sysfs ---- */
	qx86 = make_root(FX_QEMU_X86);
	ci = detect(qx86);
	expect_ok(ci, qx86, "cpu-clock,page-faults:u", 2, PERF_TYPE_SOFTWARE,
		  PERF_COUNT_SW_CPU_CLOCK, 0, "set=events");
	expect_err(ci, qx86, "cpu/event=0x3c/", "no PMU 'cpu'");
	expect_err(ci, qx86, "kprobe/event=1/", "not a core CPU PMU");
	expect_err(ci, qx86, "CPU_CYCLES", "unknown event");
	td_cpu_info_free(ci);

	/* ---- the decoder of "set=events" labels ---- */
	{
		static const struct {
			const char *label;
			int nr;
			bool good;
		} labels[] = {
			{ "set=events", 3, true },
			{ "set=events ipc=10", 2, true },
			{ "set=events ipc=02", 3, true },
			{ "set=events ipc=11", 2, false },
			{ "set=events ipc=12", 2, false },
			{ "set=events ipc=1", 2, false },
			{ "set=events bogus=1", 2, false },
			{ "set=events ipc=10 ipc=10", 2, false },
			{ "set=events of=nope map=0", 2, false },
			{ "set=events of=generic", 2, false },
			{ "set=events of=generic map=10", 2, true },
			{ "set=events of=generic map=100", 3, false },
			{ "set=events map=01", 2, false },
			{ "set=events of=generic map=10 slots=4", 2, false },
			{ "set=events  ipc=10", 2, false },
			{ "set=events ipc=10", 0, false },
		};

		for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
			struct td_decoder d;
			int r = td_decoder_from_label(&d, labels[i].label, NULL,
						      labels[i].nr, err,
						      sizeof(err));

			if (!ok(!r == labels[i].good,
				"label '%s' with %d events %s",
				labels[i].label, labels[i].nr,
				labels[i].good ? "decodes" : "is refused"))
				diag("r=%d %s", r, err);
		}
	}
	{
		struct td_decoder d;
		struct td_metrics m;
		uint64_t c[3] = { 500, 3000, 1000 };

		td_decoder_from_label(&d, "set=events ipc=21", NULL, 3, err,
				      sizeof(err));
		td_decode(&d, c, &m);
		ok(m.n == 1 && !strcmp(m.m[0].name, "ipc") && m.m[0].valid &&
		   fabs(m.m[0].value - 1000.0 / 3000.0) < 1e-12 &&
		   !strcmp(d.set, "events"),
		   "ipc=21: ipc = count 2 / count 1");
		td_decoder_from_label(&d, "set=events", NULL, 3, err,
				      sizeof(err));
		td_decode(&d, c, &m);
		ok(m.n == 0, "set=events alone: counts, no metrics");
	}

	return tap_done();
}
