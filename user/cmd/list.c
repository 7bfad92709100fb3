// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl list - what this machine is, every event set, the one in use; or,
 * with --set, the one asked for alone, on any machine (a set that does
 * not fit here is shown from its table with the reason).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "evset/sets.h"
#include "output/emit.h"
#include "cli/tdctl.h"

const struct td_opt list_opts[] = {
	{ "set", 's', 's', TD_ARG_SET, "SET", "show SET", 0 },
	{ "events", 'e', 'e', TD_ARG_SET, "SET",
	  "the same as --set (load -e also takes a set's name)", 0 },
	{ "root", 0, 'R', TD_ARG_DIR, "DIR", "read /proc and /sys under DIR", 0 },
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char list_desc[] =
	"Show the detected CPU and PMUs, every event set tdctl knows,\n"
	"and the set it would use with its events; with --set, only SET\n"
	"(any of them, on any machine: whether it fits here, and why).\n";

static const char *arch_name(enum td_arch a)
{
	switch (a) {
	case TD_ARCH_X86:
		return "x86_64";
	case TD_ARCH_ARM64:
		return "arm64";
	case TD_ARCH_UNKNOWN:
		break;
	}
	return "unknown";
}

static void cpu_line(const struct td_cpu_info *ci, char *buf, size_t n)
{
	char rev[16];
	const char *name;

	if (ci->arch == TD_ARCH_X86 && ci->has_fms) {
		name = !strcmp(ci->vendor, "GenuineIntel") && ci->family == 6 ?
		       td_intel_model_name(ci->model) :
		       !strcmp(ci->vendor, "AuthenticAMD") ?
		       td_amd_core_name(ci->family, ci->model) : NULL;
		snprintf(buf, n, "%s family 0x%x model 0x%x stepping %u%s%s%s",
			 ci->vendor, ci->family, ci->model, ci->stepping,
			 name ? " (" : "", name ? name : "", name ? ")" : "");
	} else if (ci->has_midr) {
		name = td_arm_part_name(ci->implementer, ci->part);
		td_format_revision(ci->variant << 4 | ci->revision, rev,
				   sizeof(rev));
		snprintf(buf, n,
			 "implementer 0x%02x part 0x%03x %s%s%s%s, MIDR 0x%08x from %s%s",
			 ci->implementer, ci->part, rev, name ? " (" : "",
			 name ? name : "", name ? ")" : "", ci->midr,
			 ci->midr_src,
			 ci->midr_mixed ? " (CPUs differ)" : "");
	} else {
		snprintf(buf, n, "not identified");
	}
}

static const char *fit_name(int fit, bool chosen)
{
	if (chosen)
		return "chosen";
	return fit >= TD_FIT_MANUAL ? "yes" : "no";
}

/* Where a template event is counted, for a set shown without a plan. */
static const char *tmpl_pmu(const struct td_ev_tmpl *t)
{
	if (t->kind == TD_EV_HW)
		return "hardware";
	if (t->kind == TD_EV_SW)
		return "software";
	switch (t->pmu) {
	case TD_PMU_CORE:
		return "cpu_core";
	case TD_PMU_ATOM:
		return "cpu_atom";
	case TD_PMU_MAIN:
	case TD_PMU_ANY:
		break;
	}
	return "core PMU";
}

/* name: the words of s (separated by any of seps) as an array of
 * strings, [] for NULL or none.
 */
static void json_words(json_writer_t *w, const char *name, const char *s,
		       const char *seps)
{
	jsonw_name(w, name);
	jsonw_start_array(w);
	while (s && *s) {
		size_t n = strcspn(s, seps);

		if (n)
			jsonw_string_n(w, s, n);
		s += n;
		s += strspn(s, seps);
	}
	jsonw_end_array(w);
}

/* One row per event set, through the row emitter: "sets" of the JSON
 * output, the rows of the CSV output; "chosen" marks the set in use (or
 * --set SET where it fits: p is its plan, NULL where it does not). only:
 * SET's row alone.
 */
static void list_sets(const struct td_cpu_info *ci, const struct td_plan *p,
		      const struct td_set *ps, bool only)
{
	enum { L_NAME, L_EVENTS, L_FITS, L_CHOSEN, L_TITLE, L_METRICS,
	       L_REASON, L_MGROUPS, L_NR };
	static const struct td_field f[L_NR] = {
		[L_NAME] = { .name = "name", .in = TD_IN_JSON | TD_IN_CSV },
		[L_EVENTS] = { .name = "events", .in = TD_IN_JSON | TD_IN_CSV },
		[L_FITS] = { .name = "fits", .in = TD_IN_JSON | TD_IN_CSV },
		[L_CHOSEN] = { .name = "chosen", .in = TD_IN_JSON | TD_IN_CSV },
		[L_TITLE] = { .name = "title", .in = TD_IN_JSON | TD_IN_CSV },
		[L_METRICS] = { .name = "metrics", .in = TD_IN_JSON | TD_IN_CSV },
		[L_REASON] = { .name = "reason", .in = TD_IN_JSON | TD_IN_CSV },
		[L_MGROUPS] = { .name = "metric_groups",
				.in = TD_IN_JSON | TD_IN_CSV },
	};
	struct td_emit e;
	char buf[512];

	td_emit_init(&e, stdout);
	td_emit_header(&e, f, L_NR, NULL);
	td_emit_list_begin(&e, "sets");
	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];
		int fit;

		if (only && s != ps)
			continue;
		fit = td_set_fit(s, ci, buf, sizeof(buf));
		td_emit_begin(&e, NULL, NULL);
		td_emit_str(&e, &f[L_NAME], s->name, SIZE_MAX);
		td_emit_uint(&e, &f[L_EVENTS], (uint64_t)s->nr_events);
		td_emit_bool(&e, &f[L_FITS], fit >= TD_FIT_MANUAL);
		td_emit_bool(&e, &f[L_CHOSEN], p && s == ps);
		td_emit_str(&e, &f[L_TITLE], s->title, SIZE_MAX);
		/* lists: arrays in JSON, words in a CSV field */
		if (td_emit_json(&e))
			json_words(td_emit_json(&e), "metrics", s->metrics, " ");
		else
			td_emit_str(&e, &f[L_METRICS], s->metrics, SIZE_MAX);
		td_emit_str(&e, &f[L_REASON], buf, SIZE_MAX);
		td_set_metric_groups(s, false, ";", buf, sizeof(buf));
		if (td_emit_json(&e))
			json_words(td_emit_json(&e), "metric_groups", buf, ";");
		else
			td_emit_str(&e, &f[L_MGROUPS], buf, SIZE_MAX);
		td_emit_end(&e);
	}
	td_emit_list_end(&e);
}

static const char *unit_name(enum td_unit u)
{
	switch (u) {
	case TD_UNIT_SLOTS:
		return "slots";
	case TD_UNIT_CYCLES:
		return "cycles";
	case TD_UNIT_SHARE:
		return "share";
	case TD_UNIT_PER_CYCLE:
		return "per_cycle";
	case TD_UNIT_PKI:
		return "per_kilo_instructions";
	}
	return "?";
}

static void json_tmpl(const struct td_ev_tmpl *t)
{
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "name", t->name);
	jsonw_string_field(json_wtr, "pmu", tmpl_pmu(t));
	jsonw_uint_field(json_wtr, "config", t->config);
	jsonw_string_field(json_wtr, "encoding", t->encoding);
	json_words(json_wtr, "aliases", t->aliases, " ");
	jsonw_bool_field(json_wtr, "optional", t->optional);
	jsonw_end_object(json_wtr);
}

static void json_str_or_null(const char *name, const char *v)
{
	if (v)
		jsonw_string_field(json_wtr, name, v);
	else
		jsonw_null_field(json_wtr, name);
}

/* The set's levels: its groups, their metrics, the counter budget. */
static void list_groups_json(const struct td_cpu_info *ci,
			     const struct td_set *s)
{
	char why[256];

	jsonw_name(json_wtr, "groups");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < s->nr_groups; i++) {
		const struct td_grp *g = &s->groups[i];
		struct td_group_desc d;

		td_set_group(s->name, i, &d);
		why[0] = '\0';
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", g->name);
		jsonw_string_field(json_wtr, "id", g->id);
		jsonw_uint_field(json_wtr, "level", g->level);
		jsonw_bool_field(json_wtr, "in_level2", d.in_level2);
		jsonw_bool_field(json_wtr, "offered",
				 !g->offered || g->offered(ci, why, sizeof(why)));
		if (why[0])
			jsonw_string_field(json_wtr, "not_offered", why);
		json_words(json_wtr, "perf_groups", d.perf_groups, ";");
		json_words(json_wtr, "aliases", g->aliases, " ");
		jsonw_string_field(json_wtr, "anchor", g->anchor);
		jsonw_uint_field(json_wtr, "general_counters",
				 d.general_counters);
		jsonw_string_field(json_wtr, "formula", g->formula);
		jsonw_name(json_wtr, "events");
		jsonw_start_array(json_wtr);
		for (int k = 0; k < g->nr_events; k++)
			json_tmpl(&g->ev[k]);
		jsonw_end_array(json_wtr);
		jsonw_name(json_wtr, "metrics");
		jsonw_start_array(json_wtr);
		for (int k = 0; k < d.nr_metrics; k++)
			jsonw_string(json_wtr, d.metrics[k]->name);
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	jsonw_name(json_wtr, "metric_info");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < s->nr_minfo; i++) {
		const struct td_metric_info *m = &s->minfo[i];

		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", m->name);
		json_str_or_null("perf_name", m->perf_name);
		json_words(json_wtr, "perf_groups", m->perf_groups, ";");
		json_str_or_null("parent", m->parent);
		jsonw_uint_field(json_wtr, "level", m->level);
		jsonw_string_field(json_wtr, "unit", unit_name(m->unit));
		jsonw_bool_field(json_wtr, "fraction", m->fraction);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	if (s->gp_counters) {
		jsonw_name(json_wtr, "counter_budget");
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "general", s->gp_counters);
		jsonw_bool_field(json_wtr, "hardware_on_fixed", s->hw_fixed);
		if (s->cycle_counter)
			jsonw_uint_field(json_wtr, "cycle_counter_event",
					 s->cycle_counter);
		jsonw_string_field(json_wtr, "source", s->budget);
		jsonw_end_object(json_wtr);
	}
}

/* p is NULL for a set asked for with --set that does not fit this
 * machine; why says so. only: the set asked for alone ("sets" holds its
 * entry, no "detected").
 */
static void list_json(const struct td_cpu_info *ci, const struct td_plan *p,
		      const struct td_set *ps, const char *why, bool only)
{
	char buf[512], rev[16];

	jsonw_start_object(json_wtr);
	if (only)
		goto sets;
	jsonw_name(json_wtr, "detected");
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "arch", arch_name(ci->arch));
	cpu_line(ci, buf, sizeof(buf));
	jsonw_string_field(json_wtr, "cpu", buf);
	if (ci->arch == TD_ARCH_X86) {
		jsonw_string_field(json_wtr, "vendor", ci->vendor);
		jsonw_uint_field(json_wtr, "family", ci->family);
		jsonw_uint_field(json_wtr, "model", ci->model);
		jsonw_uint_field(json_wtr, "stepping", ci->stepping);
		jsonw_string_field(json_wtr, "model_name", ci->model_name);
	}
	if (ci->has_midr) {
		jsonw_uint_field(json_wtr, "midr", ci->midr);
		jsonw_string_field(json_wtr, "midr_source", ci->midr_src);
		jsonw_uint_field(json_wtr, "implementer", ci->implementer);
		jsonw_uint_field(json_wtr, "part", ci->part);
		td_format_revision(ci->variant << 4 | ci->revision, rev,
				   sizeof(rev));
		jsonw_string_field(json_wtr, "revision", rev);
		jsonw_bool_field(json_wtr, "midr_mixed", ci->midr_mixed);
	}
	jsonw_uint_field(json_wtr, "nr_cpus", ci->nr_cpus);
	jsonw_string_field(json_wtr, "cpus",
			   td_format_cpulist(ci->possible, TD_CPU_WORDS, buf,
					     sizeof(buf)));
	jsonw_name(json_wtr, "pmus");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < ci->nr_pmus; i++) {
		const struct td_pmu *pm = &ci->pmu[i];

		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", pm->name);
		jsonw_uint_field(json_wtr, "type", pm->type);
		jsonw_bool_field(json_wtr, "core", pm->core);
		if (pm->has_cpus)
			jsonw_string_field(json_wtr, "cpus",
					   td_format_cpulist(pm->cpus,
							     TD_CPU_WORDS, buf,
							     sizeof(buf)));
		else
			jsonw_null_field(json_wtr, "cpus");
		if (pm->has_slots)
			jsonw_uint_field(json_wtr, "slots", pm->slots);
		if (pm->pmu_name[0])
			jsonw_string_field(json_wtr, "pmu_name", pm->pmu_name);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	jsonw_end_object(json_wtr);

sets:
	list_sets(ci, p, ps, only);

	jsonw_name(json_wtr, "selected");
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "set", ps->name);
	jsonw_bool_field(json_wtr, "fits", p);
	jsonw_string_field(json_wtr, "why", p ? p->why : why);
	if (p)
		jsonw_string_field(json_wtr, "label", p->label);
	else
		jsonw_null_field(json_wtr, "label");
	jsonw_string_field(json_wtr, "formula", ps->formula);
	jsonw_string_field(json_wtr, "source", ps->source);
	jsonw_name(json_wtr, "events");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < ps->nr_events; i++) {
		const struct td_ev_tmpl *t = &ps->ev[i];
		const struct td_evsel *e = p ? &p->ev[i] : NULL;

		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", t->name);
		jsonw_string_field(json_wtr, "pmu", tmpl_pmu(t));
		if (e)
			jsonw_uint_field(json_wtr, "type", e->type);
		else if (t->kind == TD_EV_RAW)
			jsonw_null_field(json_wtr, "type");
		else
			jsonw_uint_field(json_wtr, "type",
					 t->kind == TD_EV_HW ?
					 PERF_TYPE_HARDWARE :
					 PERF_TYPE_SOFTWARE);
		jsonw_uint_field(json_wtr, "config", t->config);
		if (e) {
			jsonw_bool_field(json_wtr, "all_cpus", e->all_cpus);
			if (!e->all_cpus) {
				td_format_cpulist(e->cpus, TD_CPU_WORDS, buf,
						  sizeof(buf));
				jsonw_string_field(json_wtr, "cpus", buf);
			}
		}
		jsonw_string_field(json_wtr, "encoding", t->encoding);
		json_words(json_wtr, "aliases", t->aliases, " ");
		jsonw_bool_field(json_wtr, "optional", t->optional);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	list_groups_json(ci, ps);
	jsonw_end_object(json_wtr);
	jsonw_end_object(json_wtr);
}

static int core_pmus(const struct td_cpu_info *ci)
{
	int n = 0;

	for (int i = 0; i < ci->nr_pmus; i++)
		n += ci->pmu[i].core;
	return n;
}

/* The groups below Level 1 and what selects them. */
static void list_groups_plain(const struct td_cpu_info *ci,
			      const struct td_set *s)
{
	char why[256];

	if (!s->nr_groups) {
		printf("Below Level 1: no groups (--level 2 and -M refused)\n");
		return;
	}
	printf("Groups below Level 1, rotated (--level 2: those of level 1 and 2;\n"
	       "-M GROUP: group 0 and those with a metric in perf's GROUP):\n");
	for (int i = 0; i < s->nr_groups; i++) {
		const struct td_grp *g = &s->groups[i];
		struct td_group_desc d;

		td_set_group(s->name, i, &d);
		why[0] = '\0';
		printf("  %-3s %-18s level %s  %d event%s (%d general counter%s)%s%s\n",
		       g->id, g->name, i ? (d.in_level2 ? "2 " : "-M") : "1 ",
		       g->nr_events, g->nr_events == 1 ? "" : "s",
		       d.general_counters, d.general_counters == 1 ? "" : "s",
		       !g->offered || g->offered(ci, why, sizeof(why)) ? "" :
		       "  NOT HERE: ", why);
		printf("      metrics:");
		for (int k = 0; k < d.nr_metrics; k++)
			printf(" %s", d.metrics[k]->name);
		printf("\n      -M: %s%s%s%s\n", d.perf_groups,
		       g->aliases ? " (seed 003: " : "",
		       g->aliases ? g->aliases : "", g->aliases ? ")" : "");
	}
	printf("Counter budget: %s\n", s->budget);
}

static void list_plain(const struct td_cpu_info *ci, const struct td_plan *p,
		       const struct td_set *ps, const char *why, bool only)
{
	char buf[512], cpus[256];

	if (only)
		goto set;
	printf("Detected\n");
	printf("  arch:   %s\n", arch_name(ci->arch));
	cpu_line(ci, buf, sizeof(buf));
	printf("  cpu:    %s\n", buf);
	if (ci->model_name[0])
		printf("  name:   %s\n", ci->model_name);
	printf("  cpus:   %s (%d possible ids)\n",
	       td_format_cpulist(ci->possible, TD_CPU_WORDS, cpus,
				 sizeof(cpus)), ci->nr_cpus);
	printf("  PMUs:  ");
	for (int i = 0, n = 0; i < ci->nr_pmus; i++) {
		const struct td_pmu *pm = &ci->pmu[i];

		if (!pm->core)
			continue;
		printf("%s %s type %u", n++ ? "\n         " : "", pm->name,
		       pm->type);
		if (pm->has_cpus)
			printf(" cpus %s", td_format_cpulist(pm->cpus, TD_CPU_WORDS,
							     cpus, sizeof(cpus)));
		else
			printf(" all cpus");
		if (pm->has_slots)
			printf(" caps/slots %u", pm->slots);
	}
	if (!td_has_hw_pmu(ci, NULL))
		printf(" no hardware core PMU");
	printf("\n  other:  %d more event sources (software, uncore, ...)\n",
	       ci->nr_pmus - core_pmus(ci));

	printf("\nEvent sets\n");
	printf("  %-18s %3s  %-6s  %s\n", "NAME", "EV", "HERE", "WHAT");
	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];
		int fit = td_set_fit(s, ci, NULL, 0);

		printf("%c %-18s %3d  %-6s  %s\n", s == ps ? '*' : ' ',
		       s->name, s->nr_events, fit_name(fit, s == ps),
		       s->title);
	}
	printf("\n");
set:
	if (p)
		printf("Using %s: %s\n", p->set, p->why);
	else
		printf("Set %s, not usable here: %s\n", ps->name, why);
	printf("Metrics: %s\n", *ps->metrics ? ps->metrics :
	       "none (no TopDown without a PMU)");
	printf("Formula: %s\n", ps->formula);
	printf("Encodings: %s\n", ps->source);
	if (p)
		printf("Label: %s\n", p->label);
	printf("Events:\n");
	for (int i = 0; i < ps->nr_events; i++) {
		const struct td_ev_tmpl *t = &ps->ev[i];
		const struct td_evsel *e = p ? &p->ev[i] : NULL;

		if (e)
			printf("  %-30s type %-3u config 0x%-10llx %-12s %s",
			       e->name, e->type,
			       (unsigned long long)e->config,
			       e->all_cpus ? "all cpus" :
			       td_format_cpulist(e->cpus, TD_CPU_WORDS, cpus,
						 sizeof(cpus)),
			       t->encoding);
		else
			printf("  %-30s %-8s config 0x%-10llx %s", t->name,
			       tmpl_pmu(t), (unsigned long long)t->config,
			       t->encoding);
		if (t->aliases)
			printf("  (perf: %s)", t->aliases);
		if (t->optional)
			printf("  [optional]");
		printf("\n");
	}
	for (int i = 0; i < ps->nr_events; i++)
		if (ps->ev[i].optional) {
			printf("  [optional]: decode does without its count"
			       " and leaves out the metrics that read it\n");
			break;
		}
	list_groups_plain(ci, ps);
}

int do_list(int argc, char **argv)
{
	const char *root = "", *set = NULL;
	const struct td_set *ps;
	struct td_cpu_info *ci;
	struct td_plan plan, *pp;
	struct td_getopt g;
	char err[768];
	int opt;

	td_getopt_build(&g, "list", list_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		switch (opt) {
		case 's':
		case 'e':
			set = optarg;
			break;
		case 'R':
			root = optarg;
			break;
		}
	}
	opt = td_getopt_end(opt, argc, argv, false);
	if (opt <= 0)
		return opt;
	ci = td_detect(root, err, sizeof(err));
	if (!ci) {
		p_err("%s", err);
		return -1;
	}
	ps = set ? td_set_find(set) : NULL;
	if (td_plan_for(ci, set, &plan, err, sizeof(err)) && !ps) {
		/* No such set: the value of -s is wrong (a usage error). */
		if (set)
			p_usage_error("%s", err);
		else
			p_err("%s", err);
		td_cpu_info_free(ci);
		return -1;
	}
	/* A known set that does not fit: shown all the same, with why. */
	pp = ps && strcmp(plan.set, ps->name) ? NULL : &plan;
	if (!ps)
		ps = td_set_find(plan.set);
	if (json_output)
		list_json(ci, pp, ps, err, set);
	else if (csv_output)
		list_sets(ci, pp, ps, set);
	else
		list_plain(ci, pp, ps, err, set);
	td_cpu_info_free(ci);
	return 0;
}
