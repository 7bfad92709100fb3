// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl decode's output (decode.c decodes, then calls here): the
 * bottleneck path marked as every table marks it, JSON and CSV through
 * the row emitter, and the plain text, one metric a line or, with perf
 * stat -I input, a row per interval.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "cmd/decode_priv.h"
#include "output/emit.h"
#include "output/text.h"
#include "output/vocab.h"

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

void decode_rows(const struct decoded *dd, const char *label,
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
void decode_plain(const struct decoded *dd, const char *label,
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
