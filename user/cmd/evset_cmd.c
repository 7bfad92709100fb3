// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl list    - what this machine is, every event set, the one in use
 * tdctl decode  - TopDown breakdown from counts given by hand or as JSON
 *                 lines on stdin, to check numbers from another tool
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evset/evset_priv.h"
#include "cli/tdctl.h"

/* ---- list ------------------------------------------------------------- */

const struct td_opt list_opts[] = {
	{ "events", 'e', 'e', TD_ARG_SET, "SET", "show SET" },
	{ "root", 0, 'R', TD_ARG_DIR, "DIR", "read /proc and /sys under DIR" },
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char list_desc[] =
	"Show the detected CPU and PMUs, every event set tdctl knows,\n"
	"and the set it would use (or SET) with its resolved events.\n";

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

static void list_json(const struct td_cpu_info *ci, const struct td_plan *p,
		      const struct td_set *ps)
{
	char buf[512], rev[16];

	jsonw_start_object(json_wtr);
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

	jsonw_name(json_wtr, "sets");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];
		int fit = td_set_fit(s, ci, buf, sizeof(buf));

		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", s->name);
		jsonw_uint_field(json_wtr, "events", s->nr_events);
		jsonw_bool_field(json_wtr, "fits", fit >= TD_FIT_MANUAL);
		jsonw_bool_field(json_wtr, "chosen", s == ps);
		jsonw_string_field(json_wtr, "title", s->title);
		jsonw_string_field(json_wtr, "metrics", s->metrics);
		jsonw_string_field(json_wtr, "reason", buf);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);

	jsonw_name(json_wtr, "selected");
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "set", p->set);
	jsonw_string_field(json_wtr, "why", p->why);
	jsonw_string_field(json_wtr, "label", p->label);
	jsonw_name(json_wtr, "events");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < p->nr_events; i++) {
		const struct td_evsel *e = &p->ev[i];

		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", e->name);
		jsonw_uint_field(json_wtr, "type", e->type);
		jsonw_uint_field(json_wtr, "config", e->config);
		jsonw_bool_field(json_wtr, "all_cpus", e->all_cpus);
		if (!e->all_cpus)
			jsonw_string_field(json_wtr, "cpus",
					   td_format_cpulist(e->cpus,
							     TD_CPU_WORDS, buf,
							     sizeof(buf)));
		jsonw_string_field(json_wtr, "encoding", ps->ev[i].encoding);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	jsonw_end_object(json_wtr);
	jsonw_end_object(json_wtr);
}

/* CSV: one row per event set, the "sets" of the JSON output; "chosen"
 * marks the set in use (or --events SET).
 */
static void list_csv(const struct td_cpu_info *ci, const struct td_set *ps)
{
	static const char *const fields[] = {
		"name", "events", "fits", "chosen", "title", "metrics",
		"reason", NULL,
	};
	struct csv_writer w;
	char buf[512];

	csvw_init(&w, stdout);
	csvw_header(&w, fields);
	for (int i = 0; i < td_nr_sets; i++) {
		const struct td_set *s = td_sets[i];
		int fit = td_set_fit(s, ci, buf, sizeof(buf));

		csvw_str(&w, s->name);
		csvw_uint(&w, s->nr_events);
		csvw_bool(&w, fit >= TD_FIT_MANUAL);
		csvw_bool(&w, s == ps);
		csvw_str(&w, s->title);
		csvw_str(&w, s->metrics);
		csvw_str(&w, buf);
		csvw_end_row(&w);
	}
}

static int core_pmus(const struct td_cpu_info *ci)
{
	int n = 0;

	for (int i = 0; i < ci->nr_pmus; i++)
		n += ci->pmu[i].core;
	return n;
}

static void list_plain(const struct td_cpu_info *ci, const struct td_plan *p,
		       const struct td_set *ps)
{
	char buf[512], cpus[256];

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
			printf(" cpus %s", td_format_cpulist(pm->cpus,
				TD_CPU_WORDS, cpus, sizeof(cpus)));
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

	printf("\nUsing %s: %s\n", p->set, p->why);
	printf("Metrics: %s\n", ps->metrics);
	printf("Label: %s\n", p->label);
	printf("Events:\n");
	for (int i = 0; i < p->nr_events; i++) {
		const struct td_evsel *e = &p->ev[i];

		printf("  %-30s type %-3u config 0x%-10llx %-12s %s\n", e->name,
		       e->type, (unsigned long long)e->config,
		       e->all_cpus ? "all cpus" :
		       td_format_cpulist(e->cpus, TD_CPU_WORDS, cpus,
					 sizeof(cpus)),
		       ps->ev[i].encoding);
	}
}

int do_list(int argc, char **argv)
{
	const char *root = "", *set = NULL;
	struct td_getopt g;
	struct td_cpu_info *ci;
	struct td_plan plan;
	char err[768];
	int opt;

	td_getopt_build(&g, "list", list_desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		switch (opt) {
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
	if (td_plan_for(ci, set, &plan, err, sizeof(err))) {
		p_err("%s", err);
		td_cpu_info_free(ci);
		return -1;
	}
	if (json_output)
		list_json(ci, &plan, td_set_find(plan.set));
	else if (csv_output)
		list_csv(ci, td_set_find(plan.set));
	else
		list_plain(ci, &plan, td_set_find(plan.set));
	td_cpu_info_free(ci);
	return 0;
}

/* ---- decode ----------------------------------------------------------- */

const struct td_opt decode_opts[] = {
	{ "set", 's', 's', TD_ARG_SET, "NAME", "the event set" },
	{ "slots", 'S', 'S', TD_ARG_NUM, "N", "slot width" },
	{ "revision", 'r', 'r', TD_ARG_WORD, "rXpY", "CPU revision" },
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char *decode_desc(void)
{
	static char desc[512];

	snprintf(desc, sizeof(desc),
		 "TopDown breakdown of the given counts with NAME's formula (see\n"
		 "'%s list'). Without EVENT=COUNT arguments, reads JSON lines from\n"
		 "stdin, one object per line mapping every event name of the set to\n"
		 "its count, e.g. {\"cycles\": 1000, \"instructions\": 800}; the lines\n"
		 "are summed (as records are) and decoded once.\n", bin_name);
	return desc;
}

static void set_names(char *buf, size_t n, const struct td_set *s)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; s && i < s->nr_events && pos < n; i++)
		pos += snprintf(buf + pos, n - pos, "%s%s", i ? ", " : "",
				s->ev[i].name);
}

static void all_set_names(char *buf, size_t n)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < td_nr_sets && pos < n; i++)
		pos += snprintf(buf + pos, n - pos, "%s%s", i ? ", " : "",
				td_sets[i]->name);
}

static int event_index(const struct td_set *s, const char *name, size_t len)
{
	for (int i = 0; i < s->nr_events; i++)
		if (strlen(s->ev[i].name) == len &&
		    !strncmp(s->ev[i].name, name, len))
			return i;
	return -1;
}

static int add_count(const struct td_set *s, uint64_t *counts, bool *seen,
		     const char *name, size_t len, unsigned long long v,
		     const char *where)
{
	char names[512];
	int i = event_index(s, name, len);

	if (i < 0) {
		set_names(names, sizeof(names), s);
		p_err("%sunknown event '%.*s' for set %s (its events: %s)",
		      where, (int)len, name, s->name, names);
		return -1;
	}
	if (seen[i]) {
		p_err("%sevent %s given twice", where, s->ev[i].name);
		return -1;
	}
	if (counts[i] + v < counts[i]) {
		p_err("%sthe sum of %s overflows 64 bits", where,
		      s->ev[i].name);
		return -1;
	}
	seen[i] = true;
	counts[i] += v;
	return 0;
}

static int check_all_seen(const struct td_set *s, const bool *seen,
			  const char *where)
{
	char miss[512];
	size_t pos = 0;

	miss[0] = '\0';
	for (int i = 0; i < s->nr_events; i++)
		if (!seen[i] && pos < sizeof(miss))
			pos += snprintf(miss + pos, sizeof(miss) - pos, "%s%s",
					pos ? ", " : "", s->ev[i].name);
	if (!pos)
		return 0;
	p_err("%smissing counts for set %s: %s", where, s->name, miss);
	return -1;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/*
 * One input line: a flat JSON object of "event name": non-negative
 * integer. Names may use the escapes \" \\ \/; nothing else is accepted.
 */
static int parse_json_line(const struct td_set *s, const char *line,
			   uint64_t *counts, const char *where)
{
	bool seen[TOPDOWN_MAX_EVENTS] = { false };
	const char *p = skip_ws(line);
	bool first = true;

	if (*p++ != '{')
		goto bad;
	for (;;) {
		char name[TOPDOWN_NAME_LEN * 2];
		unsigned long long v = 0;
		size_t len = 0;

		p = skip_ws(p);
		if (*p == '}' && first) {
			p++;
			break;
		}
		if (*p++ != '"')
			goto bad;
		while (*p != '"') {
			char ch = *p++;

			if (!ch || (unsigned char)ch < 0x20)
				goto bad;
			if (ch == '\\') {
				ch = *p++;
				if (ch != '"' && ch != '\\' && ch != '/')
					goto bad;
			}
			if (len >= sizeof(name) - 1)
				goto bad;
			name[len++] = ch;
		}
		p = skip_ws(p + 1);
		if (*p++ != ':')
			goto bad;
		p = skip_ws(p);
		if (!isdigit((unsigned char)*p) ||
		    (p[0] == '0' && isdigit((unsigned char)p[1])))
			goto bad;
		while (isdigit((unsigned char)*p)) {
			unsigned int dgt = *p++ - '0';

			if (v > (~0ull - dgt) / 10) {
				p_err("%scount of '%.*s' exceeds 64 bits",
				      where, (int)len, name);
				return -1;
			}
			v = v * 10 + dgt;
		}
		if (*p == '.' || *p == 'e' || *p == 'E')
			goto bad;
		if (add_count(s, counts, seen, name, len, v, where))
			return -1;
		first = false;
		p = skip_ws(p);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p++ != '}')
			goto bad;
		break;
	}
	if (*skip_ws(p))
		goto bad;
	return check_all_seen(s, seen, where);
bad:
	p_err("%snot a flat JSON object of \"EVENT\": COUNT (non-negative integers)",
	      where);
	return -1;
}

static int read_stdin(const struct td_set *s, uint64_t *counts, int *lines)
{
	char *line = NULL, where[64];
	size_t cap = 0;
	int lineno = 0, ret = 0;

	*lines = 0;
	while (getline(&line, &cap, stdin) >= 0) {
		const char *p = skip_ws(line);

		lineno++;
		if (!*p || *p == '#')
			continue;
		snprintf(where, sizeof(where), "stdin line %d: ", lineno);
		if (parse_json_line(s, line, counts, where)) {
			ret = -1;
			break;
		}
		(*lines)++;
	}
	free(line);
	if (!ret && !*lines) {
		p_err("decode: no counts on the command line and none on stdin");
		ret = -1;
	}
	return ret;
}

static bool is_fraction(const char *name)
{
	return strcmp(name, "ipc");
}

static void decode_json(const struct td_decoder *d, const char *label,
			const struct td_metrics *m, int lines)
{
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "set", d->set);
	jsonw_string_field(json_wtr, "label", label);
	if (lines)
		jsonw_uint_field(json_wtr, "lines", lines);
	jsonw_name(json_wtr, "metrics");
	jsonw_start_object(json_wtr);
	for (int i = 0; i < m->n; i++) {
		if (m->m[i].valid)
			jsonw_float_field(json_wtr, m->m[i].name,
					  m->m[i].value);
		else
			jsonw_null_field(json_wtr, m->m[i].name);
	}
	jsonw_end_object(json_wtr);
	jsonw_name(json_wtr, "flagged");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < m->n; i++)
		if (m->m[i].flagged)
			jsonw_string(json_wtr, m->m[i].name);
	jsonw_end_array(json_wtr);
	jsonw_end_object(json_wtr);
}

/* CSV: set, label, lines (empty without stdin), one column per metric
 * (empty when not computable), then flagged: the names of the metrics
 * outside 0..100%, space-separated.
 */
static void decode_csv(const struct td_decoder *d, const char *label,
		       const struct td_metrics *m, int lines)
{
	struct csv_writer w;
	char flagged[TD_MAX_METRICS * (TOPDOWN_NAME_LEN + 1) + 1] = "";

	csvw_init(&w, stdout);
	csvw_name(&w, "set");
	csvw_name(&w, "label");
	csvw_name(&w, "lines");
	for (int i = 0; i < m->n; i++)
		csvw_name(&w, m->m[i].name);
	csvw_name(&w, "flagged");
	csvw_end_row(&w);
	csvw_str(&w, d->set);
	csvw_str(&w, label);
	if (lines)
		csvw_uint(&w, lines);
	else
		csvw_empty(&w);
	for (int i = 0; i < m->n; i++) {
		if (m->m[i].valid)
			csvw_float(&w, m->m[i].value);
		else
			csvw_empty(&w);
		if (m->m[i].flagged)
			snprintf(flagged + strlen(flagged),
				 sizeof(flagged) - strlen(flagged), "%s%s",
				 *flagged ? " " : "", m->m[i].name);
	}
	csvw_str(&w, flagged);
	csvw_end_row(&w);
}

static void decode_plain(const struct td_decoder *d, const char *label,
			 const struct td_metrics *m, int lines)
{
	bool flagged = false, invalid = false;

	printf("set %s (%s)", d->set, label);
	if (lines)
		printf(", %d input line%s summed", lines, lines == 1 ? "" : "s");
	printf("\n");
	if (!m->n)
		printf("  no TopDown metrics for this set\n");
	for (int i = 0; i < m->n; i++) {
		const struct td_metric *x = &m->m[i];

		printf("  %-24s ", x->name);
		if (!x->valid) {
			printf("%8s", "n/a");
			invalid = true;
		} else if (is_fraction(x->name)) {
			printf("%7.1f%%", x->value * 100.0);
		} else {
			printf("%8.2f", x->value);
		}
		if (x->flagged) {
			printf("  !");
			flagged = true;
		}
		printf("\n");
	}
	if (flagged)
		printf("! outside 0..100%% (counting skid): shown as computed, not clamped\n");
	if (invalid)
		printf("n/a: not computable from these counts (zero denominator)\n");
}

int do_decode(int argc, char **argv)
{
	struct td_getopt g;
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN];
	const char *setname = NULL, *slots = NULL, *rev = NULL;
	uint64_t counts[TOPDOWN_MAX_EVENTS] = { 0 };
	bool seen[TOPDOWN_MAX_EVENTS] = { false };
	char label[TOPDOWN_LABEL_LEN + 64], err[512];
	const struct td_set *s;
	struct td_metrics m;
	struct td_decoder d;
	int opt, lines = 0, n;

	td_getopt_build(&g, "decode", decode_desc());
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		switch (opt) {
		case 's':
			setname = optarg;
			break;
		case 'S':
			slots = optarg;
			break;
		case 'r':
			rev = optarg;
			break;
		}
	}
	opt = td_getopt_end(opt, argc, argv, true);
	if (opt <= 0)
		return opt;
	if (!setname) {
		all_set_names(err, sizeof(err));
		p_err("decode: --set NAME is required (one of: %s)", err);
		return -1;
	}
	s = td_set_find(setname);
	if (!s) {
		all_set_names(err, sizeof(err));
		p_err("decode: unknown event set '%s' (known: %s)", setname,
		      err);
		return -1;
	}
	n = snprintf(label, sizeof(label), "set=%s%s%s%s%s", s->name,
		     slots ? " slots=" : "", slots ? slots : "",
		     rev ? " rev=" : "", rev ? rev : "");
	if (n < 0 || n >= TOPDOWN_LABEL_LEN) {
		p_err("decode: --slots/--revision too long");
		return -1;
	}

	memset(names, 0, sizeof(names));
	for (int i = 0; i < s->nr_events; i++)
		snprintf(names[i], sizeof(names[i]), "%s", s->ev[i].name);
	if (td_decoder_from_label(&d, label, (const char (*)[32])names,
				  s->nr_events, err, sizeof(err))) {
		p_err("decode: %s", err);
		return -1;
	}

	if (optind < argc) {
		for (int a = optind; a < argc; a++) {
			const char *eq = strchr(argv[a], '=');
			unsigned long long v;

			if (!eq || eq == argv[a]) {
				p_err("decode: '%s' is not EVENT=COUNT",
				      argv[a]);
				return -1;
			}
			if (event_index(s, argv[a], eq - argv[a]) < 0) {
				set_names(err, sizeof(err), s);
				p_err("decode: unknown event '%.*s' for set %s (its events: %s)",
				      (int)(eq - argv[a]), argv[a], s->name,
				      err);
				return -1;
			}
			if (parse_u64(argv[a], eq + 1, ~0ull, &v))
				return -1;
			if (add_count(s, counts, seen, argv[a], eq - argv[a],
				      v, "decode: "))
				return -1;
		}
		if (check_all_seen(s, seen, "decode: "))
			return -1;
	} else if (read_stdin(s, counts, &lines)) {
		return -1;
	}

	td_decode(&d, counts, &m);
	if (json_output)
		decode_json(&d, label, &m, lines);
	else if (csv_output)
		decode_csv(&d, label, &m, lines);
	else
		decode_plain(&d, label, &m, lines);
	return 0;
}
