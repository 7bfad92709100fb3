// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl decode - the TopDown breakdown of counts given by hand, as JSON
 * lines, or as perf stat printed them, to check numbers from another tool.
 *
 * The counts are read by input/ (input/counts.h, whose perfstat.c says
 * which forms it takes); here are the options, the decoding of every
 * interval's counts with the set's formulas and the output.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "cli/tdctl.h"
#include "evset/sets.h"
#include "agg/slices.h"
#include "input/counts.h"
#include "output/emit.h"
#include "output/text.h"
#include "output/vocab.h"

const struct td_opt decode_opts[] = {
	{ "set", 's', 's', TD_ARG_SET, "NAME", "the event set", 0 },
	{ "level", 0, 'L', TD_ARG_NUM, "N",
	  "1 (default) or 2: the set's Level 2 groups too", 0 },
	{ "metrics", 'M', 'M', TD_ARG_WORD, "GROUP[,GROUP..]",
	  "perf's metric groups (perf stat -M): the set's groups for them", 0 },
	{ "slots", 'S', 'S', TD_ARG_NUM, "N", "slot width", 0 },
	{ "revision", 'r', 'r', TD_ARG_WORD, "rXpY", "CPU revision", 0 },
	{ "field-separator", 'x', 'x', TD_ARG_WORD, "SEP",
	  "stdin is perf stat -x SEP output (default ,)", 0 },
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

#define MAX_NOTES	32

static const char decode_desc[] =
	"TopDown breakdown of the given counts with the formula of event set\n"
	"NAME (see 'tdctl list'); with --level 2 or -M, of its groups below\n"
	"Level 1 too, each metric under tdctl's and perf's name. Counts are\n"
	"EVENT=COUNT arguments or, without them, lines on stdin: tdctl's JSON lines ({\"EVENT\": COUNT, ...} or\n"
	"'tdctl dump --json' slices, summed), or perf stat output as printed:\n"
	"'perf stat -j', 'perf stat -x SEP' (give the same -x here; ',' by\n"
	"default) or plain 'perf stat'; with perf stat -I, one result per\n"
	"interval. EVENT is the set's name or perf's name for it, in any case,\n"
	"with or without a PMU ('cpu_core/topdown.slots_p/'), or its raw\n"
	"encoding as 'tdctl list' shows it or perf prints it ('r01a4',\n"
	"'cpu/event=0xa4,umask=0x01/'); COUNT may have digit groups, a\n"
	"fraction or an exponent (1,000,000  1e6  1000000.0). Every metric\n"
	"whose counts are given is computed; the others are left out, each\n"
	"named with the counts it lacks. The output names the formula and\n"
	"every assumption it made (slot width, revision).\n";
static char *all_set_names(void)
{
	char *list = NULL;

	for (int i = 0; i < td_nr_sets; i++)
		if (!td_str_add(&list, "%s%s", i ? ", " : "",
				td_sets[i]->name)) {
			free(list);
			return NULL;
		}
	return list;
}

/* ---- what ran --------------------------------------------------------- */

struct notes {
	int n;
	char *s[MAX_NOTES];	/* malloc()ed: whole, whatever they list */
};

static void note(struct notes *nt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct notes *nt, const char *fmt, ...)
{
	va_list ap;

	if (nt->n >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&nt->s[nt->n], fmt, ap) >= 0)
		nt->n++;
	va_end(ap);
}

static void notes_free(struct notes *nt)
{
	for (int i = 0; i < nt->n; i++)
		free(nt->s[i]);
	nt->n = 0;
}

/* decode_in_given()'s notes. */
static void say(void *ctx, const char *text)
{
	note(ctx, "%s", text);
}

/* Every assumption behind the numbers, and how to choose otherwise. */
static void assumptions(const struct decode_in *in, const struct td_decoder *d,
			bool slots_given, bool rev_given, struct notes *nt)
{
	const struct td_set *s = in->s;
	char rev[16], fixed[16];

	if (s->def_slots)
		note(nt, slots_given ? "slot width %u (--slots)" :
		     "slot width %u, the set's default (give the CPU's with --slots N; "
		     "'tdctl list' shows a live machine's)", d->slots);
	if (s->has_rev) {
		bool on = d->revision < s->rev_fixed;

		td_format_revision(d->revision, rev, sizeof(rev));
		td_format_revision(s->rev_fixed, fixed, sizeof(fixed));
		note(nt,
		     "revision %s%s: erratum correction %s (%s; --revision %s or later turns it off)",
		     rev, rev_given ? "" : " assumed, no --revision",
		     on ? "ON" : "off", s->rev_rule, fixed);
	}
	for (int i = 0; i < in->nr_ev; i++)
		if (!in->seen[i] && in->ev[i]->optional)
			note(nt,
			     "no count for %s: the metrics that need it are left out",
			     in->ev[i]->name);
	for (int i = 0; i < in->nr_ev; i++)
		if (in->zeroed[i])
			note(nt,
			     "perf did not count %s (<not counted>): taken as 0, "
			     "the task did not run on that PMU's CPUs",
			     in->ev[i]->name);
	if (in->scaled)
		note(nt,
		     "perf scaled some counts (the counter ran part of the time): "
		     "the ratios assume the events behaved alike while not counted");
	if (in->unreadable)
		note(nt,
		     "%d dump slice%s with a count that could not be read (null) left out",
		     in->unreadable, in->unreadable == 1 ? "" : "s");
	if (in->slices)
		note(nt,
		     "a file with event groups: each metric estimated from its group's slices as tdctl report does: "
		     "value, one standard error, coverage (the share of the %d slices' time its group measured with every count read)",
		     in->slices);
	if (in->rotated)
		note(nt, "%d rotated slice%s: measured by no group, in the time only",
		     in->rotated, in->rotated == 1 ? "" : "s");
	if (in->other_group)
		note(nt, "%d slice%s of groups not decoded here: in the time only",
		     in->other_group, in->other_group == 1 ? "" : "s");
}

/* One metric decoded, in the order of the hierarchy. */
struct out_metric {
	const struct td_metric_info *info;
	struct td_metric m;
	int depth;
	struct td_estimate est;	/* a dump with groups: m estimated */
};

/* One result: the metrics of interval k (of all the input without -I),
 * each group's from the counts of its own events.
 */
struct result {
	const struct decode_ivl *ivl;
	bool l1_left_out;	/* a Level-1 class: no bottleneck mark */
	bool est;		/* estimates (a dump with groups): m[].est */
	/* the metrics left out for want of counts: null in JSON; so are
	 * the set's own (td_set.metrics, space-separated) that an optional
	 * event not given left out
	 */
	const struct decode_leftout *lo;
	const char *set_metrics;
	int n;
	struct out_metric m[TD_MAX_TREE];
};

/* The decoder of the groups chosen and the order of their metrics. */
struct decoded {
	struct td_gdecoder gd;
	int nr_tree;
	struct td_tree_node tree[TD_MAX_TREE];
	struct decode_leftout lo;
	bool keep[TOPDOWN_MAX_GROUPS];
	/* a dump of a file with groups: its slices, each group's estimates
	 * (group orig[i] of decode_in_events() is gd's i)
	 */
	const struct decode_in *in;
	struct td_slices sl;
	bool sl_on;
	int orig[TOPDOWN_MAX_GROUPS];
};

/* decode_in.slice: a slice of a dump of a file with groups. */
static void on_slice(void *ctx, const struct decode_slice *s)
{
	struct decoded *dd = ctx;

	if (!dd->sl_on) {
		dd->sl_on = true;
		td_slices_init(&dd->sl, dd->in->groups, dd->in->nr_groups,
			       dd->in->nr_ev);
	}
	td_slices_add(&dd->sl, s);
}

/* A dump with groups: a group without a slice read whole is left out
 * (keep[k] false), said so.
 */
static void sliced_groups(struct decoded *dd, const struct decode_in *in,
			  struct notes *nt)
{
	td_slices_finish(&dd->sl);
	for (int k = 0; k < dd->sl.nr_groups; k++) {
		dd->keep[k] = td_slices_read(&dd->sl, k) > 0;
		if (!dd->keep[k] && in->nr_groups)
			note(nt, "group %s left out: the dump has no slice of it %s",
			     in->grp[k]->name, "with every count read");
	}
}

/* The estimates of the metrics of a dump with groups, in the order of the
 * tree: each from its group's slices (agg/slices.h).
 */
static void slices_result(const struct decoded *dd, const struct decode_ivl *iv,
			  struct result *r)
{
	struct td_estimate est[TOPDOWN_MAX_GROUPS][TD_EST_MAX_METRICS];
	int nr[TOPDOWN_MAX_GROUPS];

	r->ivl = iv;
	r->n = 0;
	r->l1_left_out = false;
	r->lo = NULL;
	r->set_metrics = NULL;
	r->est = true;
	for (int g = 0; g < dd->gd.nr_groups; g++)
		nr[g] = td_slices_metrics(&dd->sl, dd->orig[g],
					  &dd->gd.g[g].dec, est[g]);
	for (int i = 0; i < dd->nr_tree && i < TD_MAX_TREE; i++) {
		const struct td_tree_node *t = &dd->tree[i];
		struct out_metric *o = &r->m[r->n];
		const struct td_estimate *x;

		if (t->index >= nr[t->group])
			continue;
		x = &est[t->group][t->index];
		o->info = t->info;
		o->depth = t->depth;
		o->est = *x;
		o->m.name = t->info->name;
		o->m.valid = x->kind != TD_EST_UNKNOWN;
		o->m.value = o->m.valid ? x->value : 0;
		o->m.flagged = o->m.valid && td_metric_is_fraction(o->m.name) &&
			       (x->value < 0 || x->value > 1);
		r->n++;
	}
}

/* The metrics of one interval's counts, in the order of the tree. */
static void decode_result(const struct decoded *dd, const struct decode_ivl *iv,
			  const struct decode_leftout *lo, struct result *r)
{
	r->ivl = iv;
	r->n = 0;
	r->l1_left_out = false;
	r->lo = lo;
	r->set_metrics = dd->in ? dd->in->s->metrics : NULL;
	for (int i = 0; i < dd->nr_tree && i < TD_MAX_TREE; i++) {
		const struct td_tree_node *t = &dd->tree[i];
		const struct td_gd_group *gg = &dd->gd.g[t->group];
		uint64_t delta[TOPDOWN_MAX_EVENTS] = { 0 };
		struct td_metrics m;

		for (int j = 0; j < gg->nr_events; j++)
			delta[j] = iv->counts[gg->pool[j]];
		td_gdecode(&dd->gd, t->group, delta, &m);
		if (t->index >= m.n)
			continue;
		if (decode_left_out(lo, m.m[t->index].name)) {
			const struct td_voc *v = td_voc_find(m.m[t->index].name);

			r->l1_left_out |= v && (v->flags & TD_VOC_BOTTLENECK);
			continue;
		}
		r->m[r->n].info = t->info;
		r->m[r->n].m = m.m[t->index];
		r->m[r->n].depth = t->depth;
		r->n++;
	}
}

/* The bottleneck path of r (td_voc_path(), as report marks it): none
 * when a Level-1 class was left out (the largest may be that one).
 */
static void bottleneck(const struct result *r, int mark[2])
{
	const struct td_voc *voc[TD_MAX_TREE];
	double value[TD_MAX_TREE];
	bool valid[TD_MAX_TREE];

	mark[0] = -1;
	mark[1] = -1;
	if (r->l1_left_out)
		return;
	for (int i = 0; i < r->n; i++) {
		voc[i] = td_voc_find(r->m[i].m.name);
		value[i] = r->m[i].m.value;
		valid[i] = r->m[i].m.valid;
	}
	td_voc_path(voc, value, valid, r->n, mark);
}

/* A cell of the plain output, as every table's: TD_VOC_MARK before the
 * value v of the bottleneck path, then v (the flag after it is printed
 * after the column).
 */
static const char *marked(char *buf, size_t n, const char *v, int i,
			  const int mark[2])
{
	snprintf(buf, n, "%s%s", i == mark[0] || i == mark[1] ? "*" : "", v);
	return buf;
}

/* Is name (len bytes) one of r's metrics, or of its left-out ones? */
static bool in_result(const struct result *r, const char *name, size_t len)
{
	for (int i = 0; i < r->n; i++)
		if (strlen(r->m[i].m.name) == len &&
		    !strncmp(r->m[i].m.name, name, len))
			return true;
	for (int i = 0; r->lo && i < r->lo->n; i++)
		if (strlen(r->lo->name[i]) == len &&
		    !strncmp(r->lo->name[i], name, len))
			return true;
	return false;
}

/* "metrics" (null when not computable: also a metric left out for want
 * of its counts, which the plain output leaves out and names in a note),
 * "perf_metrics" (the same values under perf's names, for the metrics
 * perf has) and "flagged" of r.
 */
/*
 * The metrics of a result, in order: those decoded (valid or not), then
 * those left out for want of counts, then the set's own that an optional
 * event not given left out. JSON's "metrics" keys and CSV's columns, so
 * that both name every metric, null (an empty CSV field) where there is
 * no value.
 */
struct metric_cols {
	int n;
	const char *name[2 * TD_MAX_TREE];
	char word[TD_MAX_TREE][64];	/* the set's own, cut out */
};

static void metric_cols(const struct result *r, struct metric_cols *c)
{
	int nw = 0;

	c->n = 0;
	for (int i = 0; i < r->n; i++)
		c->name[c->n++] = r->m[i].m.name;
	for (int i = 0; r->lo && i < r->lo->n && c->n < 2 * TD_MAX_TREE; i++) {
		const char *nm = r->lo->name[i];
		bool seen = false;

		for (int k = 0; k < r->n && !seen; k++)
			seen = !strcmp(r->m[k].m.name, nm);
		if (!seen)
			c->name[c->n++] = nm;
	}
	for (const char *s = r->set_metrics; s && *s;) {
		size_t n = strcspn(s, " ");

		if (n && n < sizeof(c->word[0]) && !in_result(r, s, n) &&
		    nw < TD_MAX_TREE && c->n < 2 * TD_MAX_TREE) {
			memcpy(c->word[nw], s, n);
			c->word[nw][n] = '\0';
			c->name[c->n++] = c->word[nw++];
		}
		s += n;
		s += strspn(s, " ");
	}
}

/* @name's metric in @r, or NULL (left out). */
static const struct td_metric *result_metric(const struct result *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->m[i].m.name, name))
			return &r->m[i].m;
	return NULL;
}

static void json_metrics(json_writer_t *w, const struct result *r)
{
	struct metric_cols c;

	metric_cols(r, &c);
	jsonw_name(w, "metrics");
	jsonw_start_object(w);
	for (int i = 0; i < c.n; i++) {
		const struct td_metric *x = result_metric(r, c.name[i]);

		if (x && x->valid)
			jsonw_float_field(w, x->name, x->value);
		else
			jsonw_null_field(w, c.name[i]);
	}
	jsonw_end_object(w);
	jsonw_name(w, "perf_metrics");
	jsonw_start_object(w);
	for (int i = 0; i < r->n; i++) {
		const struct td_metric *x = &r->m[i].m;
		const char *pn = r->m[i].info ? r->m[i].info->perf_name : NULL;

		if (!pn)
			continue;
		if (x->valid)
			jsonw_float_field(w, pn, x->value);
		else
			jsonw_null_field(w, pn);
	}
	jsonw_end_object(w);
	jsonw_name(w, "flagged");
	jsonw_start_array(w);
	for (int i = 0; i < r->n; i++)
		if (r->m[i].m.flagged)
			jsonw_string(w, r->m[i].m.name);
	jsonw_end_array(w);
	if (!r->est)
		return;
	/* estimates, keyed as "metrics" (report's "coverage" and "error") */
	jsonw_name(w, "coverage");
	jsonw_start_object(w);
	for (int i = 0; i < r->n; i++)
		jsonw_float_field(w, r->m[i].m.name, r->m[i].est.coverage);
	jsonw_end_object(w);
	jsonw_name(w, "error");
	jsonw_start_object(w);
	for (int i = 0; i < r->n; i++)
		if (r->m[i].est.kind == TD_EST_UNKNOWN)
			jsonw_null_field(w, r->m[i].m.name);
		else
			jsonw_float_field(w, r->m[i].m.name, r->m[i].est.error);
	jsonw_end_object(w);
}

/* JSON with groups: "groups", each with its name, id and formula. */
static void json_groups(json_writer_t *w, const struct td_gdecoder *gd)
{
	struct td_group_desc g;

	if (!gd->grouped)
		return;
	jsonw_name(w, "groups");
	jsonw_start_array(w);
	for (int i = 0; i < gd->nr_groups; i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", gd->g[i].name);
		jsonw_string_field(w, "id", gd->g[i].id);
		for (int k = 0; !td_set_group(gd->set, k, &g); k++)
			if (!strcmp(g.id, gd->g[i].id))
				jsonw_string_field(w, "formula", g.formula);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/* JSON of perf stat -I input: "intervals": [{"time_s", "lines",
 * "metrics": {...}, "perf_metrics": {...}, "flagged": [...]}, ...].
 */
static void json_intervals(json_writer_t *w, const struct result *r, int nr)
{
	jsonw_name(w, "intervals");
	jsonw_start_array(w);
	for (int k = 0; k < nr; k++) {
		jsonw_start_object(w);
		/* a number, as its shortest text (perf's "1.001000000") */
		jsonw_name(w, "time_s");
		jsonw_float(w, strtod(r[k].ivl->time, NULL));
		jsonw_uint_field(w, "lines", r[k].ivl->lines);
		json_metrics(w, &r[k]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/*
 * JSON and CSV through the row emitter: set, label, lines (null without
 * stdin), the metrics (null when not computable), flagged (the metrics
 * outside 0..100%), formula and assumptions; lists are JSON arrays, and
 * in CSV one field ("flagged" space-separated, "assumptions"
 * "; "-separated). JSON also has the groups decoded, the metrics under
 * perf's names, and how many lines of other events were skipped. With
 * perf stat -I input: in CSV a row per interval, with its time_s after
 * the label and its own lines; in JSON one object whose "intervals"
 * (json_intervals()) replace "metrics", "perf_metrics" and "flagged".
 */
enum {
	DF_SET, DF_LABEL, DF_TIME, DF_LINES, DF_FLAGGED, DF_FORMULA, DF_ASSUME,
	DF_SKIPPED, DF_NR
};

static void decode_rows(const struct decoded *dd, const char *label,
			const struct result *r, int nr,
			const struct decode_in *in, const struct notes *nt)
{
	static const struct td_field f[DF_NR] = {
		[DF_SET] = { .name = "set", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_LABEL] = { .name = "label", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_TIME] = { .name = "time_s", .in = TD_IN_CSV },
		[DF_LINES] = { .name = "lines", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_FLAGGED] = { .name = "flagged", .in = TD_IN_CSV },
		[DF_FORMULA] = { .name = "formula", .in = TD_IN_JSON | TD_IN_CSV },
		[DF_ASSUME] = { .name = "assumptions", .in = TD_IN_CSV },
		[DF_SKIPPED] = { .name = "skipped_lines", .in = TD_IN_JSON },
	};
	const struct result *r0 = &r[0];
	struct td_field hdr[DF_NR + 2 * TD_MAX_TREE], mf[2 * TD_MAX_TREE];
	struct metric_cols mc;
	char flagged[TD_MAX_TREE * (TOPDOWN_NAME_LEN + 1) + 1];
	char *as = NULL;
	bool timed = in->timed > 0;
	json_writer_t *w;
	struct td_emit e;
	int n = 0;

	metric_cols(r0, &mc);
	for (int i = 0; i < mc.n; i++)
		mf[i] = (struct td_field){ .name = mc.name[i],
					   .object = "metrics",
					   .in = TD_IN_CSV };
	/* The CSV header: the fields in row order. */
	for (int i = DF_SET; i <= DF_LINES; i++)
		if (i != DF_TIME || timed)
			hdr[n++] = f[i];
	for (int i = 0; i < mc.n; i++)
		hdr[n++] = mf[i];
	for (int i = DF_FLAGGED; i < DF_NR; i++)
		hdr[n++] = f[i];
	for (int i = 0; i < nt->n; i++)
		if (!td_str_add(&as, "%s%s", i ? "; " : "", nt->s[i]))
			break;

	td_emit_init(&e, stdout);
	td_emit_header(&e, hdr, n, NULL);
	for (int k = 0; k < nr; k++) {
		const struct result *m = &r[k];

		td_emit_begin(&e, NULL, NULL);
		td_emit_str(&e, &f[DF_SET], dd->gd.set, SIZE_MAX);
		td_emit_str(&e, &f[DF_LABEL], label, SIZE_MAX);
		if (timed)
			td_emit_float(&e, &f[DF_TIME],
				      strtod(r[k].ivl->time, NULL), true);
		if (timed && e.fmt == TD_EMIT_CSV)
			td_emit_uint(&e, &f[DF_LINES],
				     (uint64_t)r[k].ivl->lines);
		else if (in->lines)
			td_emit_uint(&e, &f[DF_LINES], (uint64_t)in->lines);
		else
			td_emit_null(&e, &f[DF_LINES]);
		w = td_emit_json(&e);
		if (w) {
			json_groups(w, &dd->gd);
			/* perf stat -I: every interval in this one object */
			if (timed)
				json_intervals(w, r, nr);
			else
				json_metrics(w, m);
		} else {
			for (int i = 0; i < mc.n; i++) {
				const struct td_metric *x = result_metric(m, mc.name[i]);

				if (x)
					td_emit_float(&e, &mf[i], x->value, x->valid);
				else
					td_emit_null(&e, &mf[i]);
			}
			flagged[0] = '\0';
			for (int i = 0; i < m->n; i++)
				if (m->m[i].m.flagged)
					snprintf(flagged + strlen(flagged),
						 sizeof(flagged) - strlen(flagged),
						 "%s%s", *flagged ? " " : "",
						 m->m[i].m.name);
			td_emit_str(&e, &f[DF_FLAGGED], flagged, SIZE_MAX);
		}
		td_emit_str(&e, &f[DF_FORMULA], in->s->formula, SIZE_MAX);
		td_emit_str(&e, &f[DF_ASSUME], as ? as : "", SIZE_MAX);
		w = td_emit_json(&e);
		if (w) {
			jsonw_name(w, "assumptions");
			jsonw_start_array(w);
			for (int i = 0; i < nt->n; i++)
				jsonw_string(w, nt->s[i]);
			jsonw_end_array(w);
		}
		td_emit_uint(&e, &f[DF_SKIPPED], (uint64_t)in->skipped);
		td_emit_end(&e);
		if (e.fmt == TD_EMIT_JSON)
			break;		/* one object */
	}
	free(as);
}

/* A metric's value as the plain output shows it, with the vocabulary's
 * decimals (output/vocab.h); *flagged, *invalid set.
 */
static void plain_value(char *buf, size_t n, const struct td_metric *x,
			bool *flagged, bool *invalid)
{
	if (!x->valid) {
		snprintf(buf, n, "n/a");
		*invalid = true;
	} else if (td_metric_is_fraction(x->name)) {
		snprintf(buf, n, "%.1f%%", x->value * 100.0);
	} else {
		snprintf(buf, n, "%.*f", td_voc_prec(x->name), x->value);
	}
	if (x->flagged)
		*flagged = true;
}

/* An estimate's cell, as report prints it: the value, then for one not
 * measured all the time "±error [coverage]"; "unknown [coverage]" when
 * it cannot be estimated. *est, *unknown set.
 */
static void est_value(char *buf, size_t n, const struct out_metric *o,
		      bool *flagged, bool *est, bool *unknown)
{
	const struct td_estimate *e = &o->est;
	bool pct = td_metric_is_fraction(o->m.name);
	int prec = pct ? 1 : td_voc_prec(o->m.name);
	double k = pct ? 100.0 : 1.0;

	if (e->kind == TD_EST_UNKNOWN) {
		snprintf(buf, n, "unknown [%.0f%%]", 100 * e->coverage);
		*unknown = true;
	} else if (e->kind == TD_EST_EXACT) {
		snprintf(buf, n, "%.*f%s", prec, k * e->value, pct ? "%" : "");
	} else {
		snprintf(buf, n, "%.*f%s%.*f%s [%.0f%%]", prec,
			 k * e->value, td_pm(), prec, k * e->error,
			 pct ? "%" : "",
			 100 * e->coverage);
		*est = true;
	}
	if (o->m.flagged)
		*flagged = true;
}

/* perf stat -I input: a row per interval, its time first (toplev -I),
 * each metric under its title (td_voc_metric_title()), '*' before the
 * values of the interval's bottleneck path and '!' after a fraction
 * outside 0..100%, as in every table. 1 if a '*' was shown, 2 if one on
 * a Level 2 class.
 */
static int plain_intervals(const struct result *r, int nr, bool *flagged,
			   bool *invalid)
{
	const struct result *r0 = &r[0];
	int w[TD_MAX_TREE], shown = 0;
	char v[64], c[72];

	printf("%16s", td_voc_title("time_s"));
	for (int i = 0; i < r0->n; i++) {
		const char *t = td_voc_title(r0->m[i].m.name);

		w[i] = (int)strlen(t);
		if (w[i] < 9)
			w[i] = 9;
		printf("  %*s%s", w[i], t, i + 1 < r0->n ? " " : "");
	}
	printf("\n");
	for (int k = 0; k < nr; k++) {
		const struct result *m = &r[k];
		int mark[2];

		bottleneck(m, mark);
		printf("%16s", r[k].ivl->time);
		for (int i = 0; i < m->n && i < r0->n; i++) {
			const struct td_metric *x = &m->m[i].m;

			plain_value(v, sizeof(v), x, flagged, invalid);
			printf("  %*s%s", w[i], marked(c, sizeof(c), v, i, mark),
			       x->flagged ? "!" : i + 1 < m->n ? " " : "");
			shown |= (i == mark[0]) | (i == mark[1] ? 2 : 0);
		}
		printf("\n");
	}
	return shown;
}

/* The metrics one per line under their titles (output/vocab.h, as every
 * table titles them), in the order of the hierarchy (children indented
 * under their class), with the vocabulary's decimals; '*' before the
 * values of the bottleneck path and '!' after a fraction outside
 * 0..100%, as in every table; perf's name of the metric with groups, and
 * the legend of the marks, as under every table. perf stat -I input: a row per interval
 * (plain_intervals()).
 */
static void decode_plain(const struct decoded *dd, const char *label,
			 const struct result *r, int nr,
			 const struct decode_in *in, const struct notes *nt)
{
	const struct td_gdecoder *gd = &dd->gd;
	bool flagged = false, invalid = false, est = false, unknown = false;
	struct td_group_desc g;
	int mark[2] = { -1, -1 }, shown = 0, w = 8;
	char v[64], c[72];

	printf("set %s (%s)", gd->set, label);
	if (in->slices)
		printf(", %d of %d dump slices read whole, estimated as tdctl report does",
		       in->lines, in->slices);
	else if (in->timed > 0)
		printf(", %d interval%s of perf stat -I (%d input lines)", nr,
		       nr == 1 ? "" : "s", in->lines);
	else if (in->lines)
		printf(", %d input line%s summed", in->lines,
		       in->lines == 1 ? "" : "s");
	if (in->skipped)
		printf(", %d line%s of other events skipped", in->skipped,
		       in->skipped == 1 ? "" : "s");
	printf("\n");
	if (!r[0].n)
		printf("  no TopDown metrics for this set\n");
	else if (in->timed > 0)
		shown = plain_intervals(r, nr, &flagged, &invalid);
	else
		bottleneck(&r[0], mark);
	if (in->timed <= 0)
		shown = (mark[0] >= 0) | (mark[1] >= 0 ? 2 : 0);
	/* estimates: as wide as the widest, aligned on the right */
	for (int i = 0; r[0].est && i < r[0].n; i++) {
		bool f, e, u;

		est_value(v, sizeof(v), &r[0].m[i], &f, &e, &u);
		if ((int)strlen(v) - (e ? 1 : 0) > w)
			w = (int)strlen(v) - (e ? 1 : 0);
	}
	for (int i = 0; in->timed <= 0 && i < r[0].n; i++) {
		const struct td_metric *x = &r[0].m[i].m;
		const struct td_metric_info *mi = r[0].m[i].info;
		int depth = r[0].m[i].depth, pad = w + 1;	/* '*' */

		if (r[0].est) {
			est_value(v, sizeof(v), &r[0].m[i], &flagged, &est,
				  &unknown);
			/* '±' is two bytes, one column */
			pad += !!strstr(v, TD_PM_UTF8);
		} else {
			plain_value(v, sizeof(v), x, &flagged, &invalid);
		}
		printf("  %*s%-*s %*s", 2 * depth, "", 24 - 2 * depth,
		       td_voc_title(x->name), pad,
		       marked(c, sizeof(c), v, i, mark));
		if (x->flagged)
			printf("!");
		if (gd->grouped && mi && mi->perf_name)
			printf("%s  perf: %s", x->flagged ? "" : " ",
			       mi->perf_name);
		printf("\n");
	}
	if (shown)
		printf("%s\n", shown & 2 ? TD_VOC_LEGEND_PATH :
		       TD_VOC_LEGEND_MARK);
	if (flagged)
		printf("%s\n", TD_VOC_LEGEND_FLAG);
	if (est)
		printf("%s\n", td_locale_text(TD_VOC_LEGEND_EST));
	if (unknown)
		printf("%s\n", TD_VOC_LEGEND_UNKNOWN);
	if (invalid)
		printf("n/a: not computable from these counts (zero denominator)\n");
	printf("formula: %s\n", in->s->formula);
	for (int i = 1; gd->grouped && i < gd->nr_groups; i++)
		for (int k = 0; !td_set_group(gd->set, k, &g); k++)
			if (!strcmp(g.id, gd->g[i].id))
				printf("group %s: %s\n", g.name, g.formula);
	for (int i = 0; i < nt->n; i++)
		printf("assumes: %s\n", nt->s[i]);
}

/*
 * Decode the counts of in (its set, --level, -M and separator set) given
 * as EVENT=COUNT arguments argv[0..argc), or without them read from
 * stdin, and print the result (cli/tdctl.h). 0, or -1 after p_err().
 */
int decode_run(struct decode_in *in, const char *slots, const char *rev,
	       int argc, char **argv)
{
	char names[TOPDOWN_MAX_POOL][TOPDOWN_NAME_LEN];
	char label[TOPDOWN_LABEL_LEN + 64], err[512], ids[64];
	struct topdown_group groups[TOPDOWN_MAX_GROUPS];
	struct decoded *dd = NULL;
	struct result *res = NULL;
	struct notes nt = { 0 };
	struct td_decoder d;
	int n, ret = -1, nr_groups;

	if (decode_in_events(in, in->level ? in->level : 1, in->mg, groups,
			     &nr_groups, ids, sizeof(ids)))
		goto out;
	n = snprintf(label, sizeof(label), "set=%s%s%s%s%s%s%s", in->s->name,
		     slots ? " slots=" : "", slots ? slots : "",
		     rev ? " rev=" : "", rev ? rev : "",
		     nr_groups ? " g=" : "", ids);
	if (n < 0 || n >= TOPDOWN_LABEL_LEN) {
		p_err("decode: --slots/--revision too long");
		goto out;
	}
	dd = calloc(1, sizeof(*dd));
	if (!dd) {
		p_err("decode: out of memory");
		goto out;
	}
	/* The label's checks first: a bad --slots/--revision is reported
	 * before any count is read.
	 */
	memset(names, 0, sizeof(names));
	for (int i = 0; i < in->nr_ev; i++)
		snprintf(names[i], sizeof(names[i]), "%s", in->ev[i]->name);
	if (td_gdecoder_build(&dd->gd, label, (const char (*)[32])names,
			      in->nr_ev, nr_groups ? groups : NULL, nr_groups,
			      false, err, sizeof(err))) {
		p_err("decode: %s", err);
		goto out;
	}

	dd->in = in;
	in->slice = on_slice;
	in->slice_ctx = dd;
	if (argc && decode_in_args(in, argc, argv))
		goto out;
	td_parsing_options = false;	/* stdin's lines are input */
	if (!argc && decode_in_read(in))
		goto out;

	/* Every metric whose counts were given: an optional event given
	 * nowhere is left out of the decoders (the metrics that read it
	 * are, said so by assumptions()), the metrics that read another are
	 * left out by decode_in_given(), and with groups a group none of whose
	 * metrics is left (perf stat -M DTLB_Effectiveness has no Level 1
	 * counts), all said so.
	 */
	for (int i = 0; i < in->nr_ev; i++)
		if (!in->seen[i] && in->ev[i]->optional)
			names[i][0] = '\0';
	if (td_gdecoder_build(&dd->gd, label, (const char (*)[32])names,
			      in->nr_ev, nr_groups ? groups : NULL, nr_groups,
			      true, err, sizeof(err))) {
		p_err("decode: %s", err);
		goto out;
	}
	if (dd->sl_on && dd->sl.oom) {
		p_err("decode: out of memory");
		goto out;
	}
	if (dd->sl_on)
		sliced_groups(dd, in, &nt);
	else
		decode_in_given(in, &dd->gd, (const char (*)[32])names,
				dd->keep, &dd->lo, say, &nt);
	for (int k = 0, i = 0; k < (nr_groups ? nr_groups : 1); k++)
		if (dd->keep[k])
			dd->orig[i++] = k;
	if (!nr_groups && !dd->keep[0]) {
		char *list = NULL;

		for (int i = 0; i < in->nr_ev; i++)
			if (!in->seen[i] && !in->ev[i]->optional &&
			    !td_str_add(&list, "%s%s", list ? ", " : "",
					in->ev[i]->name))
				break;
		p_err("decode: missing counts for set %s: %s", in->s->name,
		      decode_named(list));
		free(list);
		goto out;
	}
	if (nr_groups && decode_in_keep_groups(in, groups, &nr_groups, ids,
					       sizeof(ids), dd->keep))
		goto out;
	if (nr_groups)
		snprintf(strstr(label, " g=") + 3,
			 sizeof(label) - (strstr(label, " g=") + 3 - label),
			 "%s", ids);
	/* What the formulas read is required in every interval, once an
	 * interval has it.
	 */
	for (int k = 0; k < in->nivl && !dd->sl_on; k++) {
		char *list;

		if (!decode_in_missing(in, &in->ivl[k], groups, nr_groups, ids,
				       &list))
			continue;
		if (in->timed > 0)
			p_err("decode: missing counts for set %s in interval %s s: %s",
			      in->s->name, in->ivl[k].time, decode_named(list));
		else
			p_err("decode: missing counts for set %s: %s",
			      in->s->name, decode_named(list));
		free(list);
		goto out;
	}
	if (td_gdecoder_build(&dd->gd, label, (const char (*)[32])names,
			      in->nr_ev, nr_groups ? groups : NULL, nr_groups,
			      true, err, sizeof(err))) {
		p_err("decode: %s", err);
		goto out;
	}
	dd->nr_tree = td_gdecoder_tree(&dd->gd, dd->tree, TD_MAX_TREE);
	res = calloc(in->nivl, sizeof(*res));
	if (!res) {
		p_err("decode: out of memory");
		goto out;
	}
	for (int k = 0; k < in->nivl; k++)
		if (dd->sl_on)
			slices_result(dd, &in->ivl[k], &res[k]);
		else
			decode_result(dd, &in->ivl[k], &dd->lo, &res[k]);
	d = dd->gd.g[0].dec;
	assumptions(in, &d, slots, rev, &nt);
	if (json_output || csv_output)
		decode_rows(dd, label, res, in->nivl, in, &nt);
	else
		decode_plain(dd, label, res, in->nivl, in, &nt);
	ret = 0;
out:
	notes_free(&nt);
	free(res);
	if (dd && dd->sl_on)
		td_slices_free(&dd->sl);
	free(dd);
	decode_in_free(in);
	return ret;
}

int do_decode(int argc, char **argv)
{
	const char *setname = NULL, *slots = NULL, *rev = NULL;
	struct decode_in in = { .sep = ",", .timed = -1 };
	unsigned long long level = 1;
	struct td_getopt g;
	char *sets;
	int opt;

	td_getopt_build(&g, "decode", decode_desc);
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
		case 'L':
			if (parse_u64_range("--level", optarg, 1, 2, &level))
				return -1;
			break;
		case 'M':
			in.mg = optarg;
			break;
		case 'x':
			if (!*optarg || strlen(optarg) >= sizeof(in.sep)) {
				p_err("decode: -x needs a separator of 1 to %zu characters",
				      sizeof(in.sep) - 1);
				return -1;
			}
			snprintf(in.sep, sizeof(in.sep), "%s", optarg);
			break;
		}
	}
	opt = td_getopt_end(opt, argc, argv, true);
	if (opt <= 0)
		return opt;
	/* The set, its label and the EVENT=COUNT operands are the command
	 * line: what is wrong with them is a usage error (stdin's lines are
	 * input, checked below).
	 */
	td_parsing_options = true;
	if (!setname) {
		sets = all_set_names();
		p_err("decode: --set NAME is required (one of: %s)",
		      decode_named(sets));
		free(sets);
		return -1;
	}
	in.s = td_set_find(setname);
	if (!in.s) {
		sets = all_set_names();
		p_err("decode: unknown event set '%s' (known: %s)", setname,
		      decode_named(sets));
		free(sets);
		return -1;
	}
	in.level = (int)level;
	return decode_run(&in, slots, rev, argc - optind, argv + optind);
}
