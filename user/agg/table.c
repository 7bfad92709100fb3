// SPDX-License-Identifier: GPL-2.0
/*
 * The buckets of a view through the row emitter: one description of the
 * fields, one writer of each row, for plain tables, JSON and CSV. See
 * aggregate.h.
 */
#include <stdlib.h>
#include <string.h>

#include "agg/aggregate.h"
#include "output/text.h"
#include "output/vocab.h"

/* Plain columns, left to right: time, keys, slices, run time, metrics,
 * event counts.
 */
enum { COL_TIME, COL_KEY };

struct table {
	struct td_field f[3 * TD_MAX_COLS + 8];
	int n;
	/* fields by role */
	int type, time, cgroup_path, cgroup, read_errors, rotated, run_ns;
	int idle_cpu;	/* --by task, process: JSON and CSV "cpu" */
	int run_plain;
	bool est;			/* coverage and error fields */
	struct td_field label;		/* plain: "total" over the keys */
	int col_field[TD_MAX_COLS];	/* view column -> field */
	/* rotated groups: view column -> its coverage and error fields
	 * (JSON and CSV; a table shows both in the value's cell)
	 */
	int cov_field[TD_MAX_COLS], err_field[TD_MAX_COLS];
	char cov_name[TD_MAX_COLS][TOPDOWN_NAME_LEN + 16];
	char err_name[TD_MAX_COLS][TOPDOWN_NAME_LEN + 16];
	int key_width;			/* plain: the keys and their spaces */
};

static struct td_field *add(struct table *t, const char *name,
			    const char *title, unsigned int in, int col,
			    int width)
{
	struct td_field *f = &t->f[t->n++];

	*f = (struct td_field){ .name = name, .title = title, .in = in,
				.col = col, .width = width };
	return f;
}

/* A metric's title: the vocabulary's, as every command titles it
 * (td_voc_metric_title(): BACKEND.MEM_BOUND for a Level 2 class).
 */
static const char *metric_title(const struct td_view *v, int idx)
{
	return td_voc_metric_title(v->metric_names[idx], v->event_names,
				   v->nr_events);
}

/* Rotated groups: the coverage and error of view column i for JSON and
 * CSV (objects "coverage" and "error" keyed as the counts and metrics;
 * columns NAME_coverage, NAME_error).
 */
static void add_est_fields(struct table *t, const struct td_view *v)
{
	static const char *const obj[2] = { "coverage", "error" };

	for (int k = 0; k < 2; k++) {
		for (int i = v->nr_keys; i < v->nr_cols; i++) {
			const struct td_col *c = &v->col[i];
			char *name = k ? t->err_name[i] : t->cov_name[i];
			struct td_field *f;

			if (t->col_field[i] < 0 || (c->kind != TD_COL_EVENT &&
						    c->kind != TD_COL_METRIC))
				continue;
			(k ? t->err_field : t->cov_field)[i] = t->n;
			f = add(t, c->name, NULL, TD_IN_JSON, -1, 0);
			f->object = obj[k];
			/* CSV: its own column, NAME_coverage, NAME_error */
			snprintf(name, TOPDOWN_NAME_LEN + 16, "%s_%s", c->name,
				 obj[k]);
			f = add(t, name, NULL, TD_IN_CSV, -1, 0);
		}
	}
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static void build(struct table *t, const struct td_view *v,
		  const struct td_table_out *o)
{
	char title[TD_TEXT_SIZE(TOPDOWN_NAME_LEN)];
	int nr_keys = 0, mcol, ecol;
	struct td_field *f;
	size_t cols;
	const char *name;

	memset(t, 0, sizeof(*t));
	t->est = v->gd || v->est_fields;
	t->time = -1;
	t->rotated = -1;
	t->cgroup_path = -1;
	t->cgroup = -1;
	t->type = t->n;
	add(t, "type", NULL, TD_IN_CSV, -1, 0);
	if (o->time_in) {
		t->time = t->n;
		add(t, "time_s", NULL, o->time_in & (TD_IN_CSV | TD_IN_PLAIN),
		    COL_TIME, 10);
	}
	for (int i = 0; i < v->nr_cols; i++)
		t->col_field[i] = -1;
	for (int i = 0; i < v->nr_keys; i++) {
		const struct td_col *c = &v->col[i];
		int col = COL_KEY + nr_keys++;

		t->col_field[i] = t->n;
		switch (c->kind) {
		case TD_COL_PID:
		case TD_COL_TID:
			add(t, c->name, td_voc_title(c->name), TD_IN_ALL, col,
			    7);
			break;
		case TD_COL_COMM:
			add(t, c->name, td_voc_title(c->name), TD_IN_ALL, col,
			    -16);
			break;
		case TD_COL_CGROUP:
			/* JSON and CSV: the id and the path; a table: the
			 * path where it resolves, else the id.
			 */
			add(t, c->name, td_voc_title(c->name), v->cgroup_path ?
			    TD_IN_JSON | TD_IN_CSV : TD_IN_ALL, col, 10);
			t->cgroup = t->n;
			add(t, "cgroup", NULL, TD_IN_JSON | TD_IN_CSV, -1, 0);
			if (v->cgroup_path) {
				t->cgroup_path = t->n;
				add(t, "cgroup", td_voc_title("cgroup"),
				    TD_IN_PLAIN, col, -24);
			}
			break;
		default:
			/* At least as wide as "total" (the total row). */
			add(t, c->name, td_voc_title(c->name), TD_IN_ALL, col,
			    5);
			break;
		}
		/* The key's plain column: the first field, or the path. */
		t->key_width += (nr_keys > 1) + abs(t->f[t->cgroup_path >= 0 &&
			c->kind == TD_COL_CGROUP ? t->cgroup_path :
			t->col_field[i]].width);
	}
	/* Each CPU has its idle task, pid 0: its rows' key is the CPU too
	 * (null for the other tasks); a table tells them by comm.
	 */
	t->idle_cpu = -1;
	if (v->by == TD_BY_TASK || v->by == TD_BY_PROCESS) {
		t->idle_cpu = t->n;
		add(t, "cpu", NULL, TD_IN_JSON | TD_IN_CSV, -1, 0);
	}
	t->label = (struct td_field){ .name = "total", .in = TD_IN_PLAIN,
				      .col = COL_KEY, .width = -t->key_width };
	mcol = COL_KEY + nr_keys + 2;
	ecol = mcol + v->nr_metrics;
	for (int i = 0; i < v->nr_cols; i++) {
		t->cov_field[i] = -1;
		t->err_field[i] = -1;
	}
	for (int i = v->nr_keys; i < v->nr_cols; i++) {
		const struct td_col *c = &v->col[i];
		int w;

		t->col_field[i] = t->n;
		switch (c->kind) {
		case TD_COL_SLICES:
			f = add(t, c->name, td_voc_title(c->name), TD_IN_ALL,
				COL_KEY + nr_keys, v->compact ? 6 : 8);
			f->flags = TD_FIELD_COUNT;
			if (v->opts.big_num)
				f->width += 2;
			/* runtime_ns and read_errors for programs, the run
			 * time in ms (or %CPU) for people.
			 */
			break;
		case TD_COL_RUNTIME:
			t->run_ns = t->n;
			add(t, c->name, NULL, TD_IN_JSON | TD_IN_CSV, -1, 0);
			t->read_errors = t->n;
			add(t, "read_errors", NULL, TD_IN_JSON | TD_IN_CSV,
			    -1, 0);
			if (v->gd) {
				t->rotated = t->n;
				add(t, "rotated_slices", NULL,
				    TD_IN_JSON | TD_IN_CSV, -1, 0);
			}
			t->run_plain = t->n;
			t->col_field[i] = t->n;
			/* top: %CPU of the interval */
			name = v->compact && v->interval_ns ? "cpu_percent" :
			       c->name;
			f = add(t, name, td_voc_title(name), TD_IN_PLAIN,
				COL_KEY + nr_keys + 1, v->compact ? 6 : 11);
			f->prec = td_voc_prec(name);
			break;
		case TD_COL_EVENT:
			if (v->opts.metric_only) {
				t->col_field[i] = -1;
				break;
			}
			/* its title is the text of the name (text.h) */
			td_text(title, c->name, strnlen(c->name,
							TOPDOWN_NAME_LEN), &cols);
			w = (int)cols;
			f = add(t, c->name, NULL, TD_IN_ALL, ecol + c->idx,
				max_int(w, t->est ? (v->opts.big_num ? 34 : 28) :
					v->compact ? 8 :
					v->opts.big_num ? 17 : 13));
			f->object = "counts";
			f->flags = TD_FIELD_COUNT;
			break;
		case TD_COL_METRIC:
			f = add(t, c->name, metric_title(v, c->idx), TD_IN_ALL,
				mcol + c->idx, 0);
			w = (int)strlen(f->title);
			/* rotated: "*-58.7±12.2% [33%]!" (± one column) */
			f->width = max_int(w, t->est ? 20 : v->compact ?
					   (v->metric_fraction[c->idx] ? 7 : 5) :
					   8);
			f->object = "metrics";
			f->prec = td_voc_prec(c->name);
			if (v->metric_fraction[c->idx])
				f->flags = TD_FIELD_PERCENT;
			break;
		default:
			break;
		}
	}
	if (t->est)
		add_est_fields(t, v);
}

static uint64_t count_of(const struct td_col *c,
			 const struct td_bucket *b)
{
	return c->kind == TD_COL_SLICES ? b->slices : b->counts[c->idx];
}

/* The width of x, with thousands separators if big_num. */
static int digits(uint64_t x, bool big_num)
{
	int n = 1;

	while (x >= 10) {
		x /= 10;
		n++;
	}
	return big_num ? n + (n - 1) / 3 : n;
}

/* top: one unit per count column, the smallest in which its largest
 * value fits the column (a count that fits as it is keeps no unit).
 */
static void choose_units(struct table *t, const struct td_view *v,
			 const struct td_bucket **rows, size_t n,
			 const struct td_bucket *total)
{
	for (int i = v->nr_keys; i < v->nr_cols; i++) {
		const struct td_col *c = &v->col[i];
		struct td_field *f;
		uint64_t max = total ? count_of(c, total) : 0;
		double d;
		int unit = 0;

		if (t->col_field[i] < 0 ||
		    (c->kind != TD_COL_SLICES && c->kind != TD_COL_EVENT))
			continue;
		f = &t->f[t->col_field[i]];
		for (size_t r = 0; r < n; r++)
			if (count_of(c, rows[r]) > max)
				max = count_of(c, rows[r]);
		if (digits(max, v->opts.big_num) <= f->width)
			continue;
		/* --big-num: every count with thousands separators, the
		 * column as wide as that takes, never a unit beside them
		 */
		if (v->opts.big_num) {
			f->width = digits(max, true);
			continue;
		}
		/* "%.1f" and the unit letter: int part < 10^(width - 3) */
		d = (double)max;
		do {
			d /= 1000;
			unit++;
		} while (unit < 6 && digits((uint64_t)(d + 0.05), false) >
			 f->width - 3);
		f->unit = unit;
	}
}

/* JSON and CSV of a value of a rotated configuration: unknown is null
 * (an empty CSV field), never 0; an exact count stays an integer.
 */
static void emit_val(struct td_emit *e, const struct td_field *f,
		     const struct td_val *x, bool count)
{
	if (count && x->valid && !x->estimated && x->value >= 0 &&
	    x->value < 18446744073709551616.0)
		td_emit_uint(e, f, (uint64_t)x->value);
	else
		td_emit_float(e, f, x->value, x->valid);
}

/* An estimated count as an integer, with --big-num's thousands
 * separators as the exact counts have them.
 */
static void count_text(char *s, size_t n, double v, bool big_num)
{
	if (big_num && v >= 0 && v < 18446744073709551616.0 && n >= 27)
		td_big_num(s, (uint64_t)(v + 0.5));
	else
		snprintf(s, n, "%.0f", v);
}

/* A table's cell of a rotated configuration: the value, then for one
 * not measured all the time "±error [coverage]"; "unknown [coverage]"
 * when it cannot be estimated.
 */
static void plain_est(struct td_emit *e, const struct td_field *f,
		      const struct td_val *x, bool count)
{
	char v[48], err[40], s[TD_EMIT_CELL];
	bool pct = f->flags & TD_FIELD_PERCENT;

	if (!x->valid) {
		snprintf(s, sizeof(s), "unknown [%.0f%%]", 100 * x->coverage);
		td_emit_word(e, f, s);
		return;
	}
	if (count) {
		count_text(v, sizeof(v), x->value, e->big_num);
		count_text(err, sizeof(err), x->error, e->big_num);
	} else if (pct) {
		snprintf(v, sizeof(v), "%.*f", f->prec, 100 * x->value);
		snprintf(err, sizeof(err), "%.*f", f->prec, 100 * x->error);
	} else {
		snprintf(v, sizeof(v), "%.*f", f->prec, x->value);
		snprintf(err, sizeof(err), "%.*f", f->prec, x->error);
	}
	if (!x->estimated)
		snprintf(s, sizeof(s), "%s%s", v, pct ? "%" : "");
	else
		snprintf(s, sizeof(s), "%s%s%s%s [%.0f%%]", v, td_pm(), err,
			 pct ? "%" : "", 100 * x->coverage);
	td_emit_uword(e, f, s);
}

/* Returns the marks shown: 1 a class marked '*', 16 a Level 2 class too
 * (the path), 2 a fraction '!', 4 an estimate or an unknown (rotated
 * groups).
 */
static int row(struct td_emit *e, const struct table *t,
	       const struct td_view *v, const struct td_agg *a,
	       const struct td_bucket *b, const struct td_table_out *o,
	       bool is_total, struct td_row_vals *x)
{
	const struct td_field *f = t->f;
	const struct td_val *val;
	char s[32];
	int shown = 0;

	td_emit_begin(e, is_total ? "total" : NULL, NULL);
	td_emit_word(e, &f[t->type], is_total ? "total" : "group");
	if (t->time >= 0 && e->fmt == TD_EMIT_PLAIN) {
		snprintf(s, sizeof(s), "%.3f", o->time_s);
		td_emit_word(e, &f[t->time], s);
	} else if (t->time >= 0) {
		td_emit_float(e, &f[t->time], o->time_s, true);	/* a number */
	}
	for (int i = 0; i < v->nr_keys; i++) {
		const struct td_field *k = &f[t->col_field[i]];
		const char *path;

		if (is_total) {
			/* CSV: empty keys; JSON: none; a table: "total". */
			td_emit_skip(e, k);
			if (v->col[i].kind == TD_COL_CGROUP)
				td_emit_skip(e, &f[t->cgroup]);
			continue;
		}
		switch (v->col[i].kind) {
		case TD_COL_PID:
			td_emit_uint(e, k, b->pid);
			break;
		case TD_COL_TID:
			td_emit_uint(e, k, b->tid);
			break;
		case TD_COL_COMM:
			td_emit_text(e, k, b->comm, TOPDOWN_COMM_LEN);
			break;
		case TD_COL_CGROUP:
			td_emit_uint(e, k, b->cgroup_id);
			path = v->cgroup_path ? v->cgroup_path(b->cgroup_id) :
			       NULL;
			if (path)
				td_emit_str(e, &f[t->cgroup], path, SIZE_MAX);
			else
				td_emit_null(e, &f[t->cgroup]);
			if (t->cgroup_path < 0)
				break;
			if (path) {
				td_emit_str(e, &f[t->cgroup_path], path,
					    SIZE_MAX);
			} else {
				snprintf(s, sizeof(s), "%llu",
					 (unsigned long long)b->cgroup_id);
				td_emit_word(e, &f[t->cgroup_path], s);
			}
			break;
		default:
			td_emit_uint(e, k, b->cpu);
			break;
		}
	}
	if (t->idle_cpu >= 0 && is_total)
		td_emit_skip(e, &f[t->idle_cpu]);
	else if (t->idle_cpu >= 0 && (v->by == TD_BY_TASK ? b->tid : b->pid))
		td_emit_null(e, &f[t->idle_cpu]);
	else if (t->idle_cpu >= 0)
		td_emit_uint(e, &f[t->idle_cpu], b->cpu);
	if (is_total)
		td_emit_word(e, &t->label, "total");
	td_view_values(v, a, b, x);
	for (int i = v->nr_keys; i < v->nr_cols; i++) {
		const struct td_col *c = &v->col[i];
		int fi = t->col_field[i];

		switch (c->kind) {
		case TD_COL_SLICES:
			td_emit_uint(e, &f[fi], b->slices);
			break;
		case TD_COL_RUNTIME:
			td_emit_uint(e, &f[t->run_ns], b->runtime_ns);
			td_emit_uint(e, &f[t->read_errors], b->read_errors);
			if (t->rotated >= 0)
				td_emit_uint(e, &f[t->rotated], b->rotated);
			td_emit_float(e, &f[t->run_plain],
				      v->compact && v->interval_ns ?
				      100.0 * b->runtime_ns / v->interval_ns :
				      b->runtime_ns / 1e6, true);
			break;
		case TD_COL_EVENT:
			if (fi < 0)
				break;
			if (c->idx == 0)
				td_emit_object(e, "counts");
			val = &x->count[c->idx];
			if (!v->gd && !val->estimated && val->valid) {
				td_emit_uint(e, &f[fi], b->counts[c->idx]);
				break;
			}
			if (e->fmt == TD_EMIT_PLAIN)
				plain_est(e, &f[fi], val, true);
			else
				emit_val(e, &f[fi], val, true);
			if (val->estimated || !val->valid)
				shown |= 4;
			break;
		case TD_COL_METRIC:
			if (c->idx == 0)
				td_emit_object(e, "metrics");
			val = &x->metric[c->idx];
			if (c->idx == x->mark[0] || c->idx == x->mark[1])
				td_emit_mark(e, TD_VOC_MARK);
			if (val->flagged) {
				td_emit_flag(e, TD_VOC_FLAG);
				shown |= 2;
			}
			/* Without rotation only a row with an unreadable
			 * count has estimates (or unknowns: too few slices).
			 */
			if (!v->gd && !val->estimated &&
			    (val->valid || val->coverage >= 1)) {
				td_emit_float(e, &f[fi], val->value,
					      val->valid);
				break;
			}
			if (val->estimated || !val->valid)
				shown |= 4;
			if (e->fmt == TD_EMIT_PLAIN)
				plain_est(e, &f[fi], val, false);
			else
				emit_val(e, &f[fi], val, false);
			break;
		default:
			break;
		}
	}
	/* JSON: "metrics" is there (maybe empty) even without a decoder. */
	if (!v->nr_metrics)
		td_emit_object(e, "metrics");
	/* Rotated groups: the coverage, then the error of every count and
	 * metric (JSON objects keyed as "counts" and "metrics", CSV columns
	 * NAME_coverage and NAME_error); unknown errors are null.
	 */
	for (int k = 0; t->est && k < 2; k++) {
		td_emit_object(e, k ? "error" : "coverage");
		for (int i = v->nr_keys; i < v->nr_cols; i++) {
			const struct td_col *c = &v->col[i];
			int fi = k ? t->err_field[i] : t->cov_field[i];

			if (fi < 0)
				continue;
			val = c->kind == TD_COL_EVENT ? &x->count[c->idx] :
			      &x->metric[c->idx];
			for (int j = 0; j < 2; j++) {
				if (!k)
					td_emit_float(e, &f[fi + j],
						      val->coverage, true);
				else
					td_emit_float(e, &f[fi + j],
						      val->error, val->valid);
			}
		}
	}
	td_emit_end(e);
	return shown | (x->mark[0] >= 0) | (x->mark[1] >= 0 ? 16 : 0);
}

/* Rotated groups: is metric m a Level 2 class counted by another group
 * than its parent, so estimated over other slices (its parent's Level 2
 * classes then need not add up to it; event-sets.rst)?
 */
static bool apart(const struct td_view *v, int m)
{
	int p = v->gd ? v->metric_parent[m] : -1;

	return p >= 0 && v->metric_group[m] != v->metric_group[p];
}

/*
 * JSON, rotated groups: "level2": {CHILD: {"parent": P, "same_slices":
 * false when CHILD's group is not P's}, ...} for the Level 2 classes
 * shown. 8 if one is apart(), for the legend, with the titles of their
 * parents in who ("RETIRING.*, BACKEND.*").
 */
static int level2(struct td_emit *e, struct table *t, const struct td_view *v,
		  char *who, size_t size)
{
	bool any = false, seen[TD_VIEW_MAX_METRICS] = { false };
	size_t len = 0;
	int marked = 0;

	who[0] = '\0';
	for (int i = v->nr_keys; v->gd && i < v->nr_cols; i++) {
		const struct td_col *c = &v->col[i];
		int p;

		if (t->col_field[i] < 0 || c->kind != TD_COL_METRIC ||
		    v->metric_parent[c->idx] < 0)
			continue;
		p = v->metric_parent[c->idx];
		if (apart(v, c->idx) && !seen[p] && len < size) {
			seen[p] = true;
			marked = 8;
			len += (size_t)snprintf(who + len, size - len, "%s%s.*",
						len ? ", " : "",
						metric_title(v, p));
		}
		if (e->fmt != TD_EMIT_JSON)
			continue;
		if (!any) {
			jsonw_name(e->jw, "level2");
			jsonw_start_object(e->jw);
			any = true;
		}
		jsonw_name(e->jw, v->metric_names[c->idx]);
		jsonw_start_object(e->jw);
		jsonw_string_field(e->jw, "parent", v->metric_names[p]);
		jsonw_bool_field(e->jw, "same_slices", !apart(v, c->idx));
		jsonw_end_object(e->jw);
	}
	if (any)
		jsonw_end_object(e->jw);
	return marked;
}

/* top on a terminal: the legends of marked in short on one line, cut
 * at the view's width (in columns), then clear to its end.
 */
static void legend_line(FILE *out, const struct td_view *v, int marked,
			const char *who)
{
	char line[512];
	size_t len = 0;
	int cols = 0;

	line[0] = '\0';
#define LEGEND_ADD(...) \
	(len += (size_t)snprintf(line + len, len < sizeof(line) ? \
				 sizeof(line) - len : 0, __VA_ARGS__))
	if (marked & 1)
		LEGEND_ADD("%s", marked & 16 ? TD_VOC_SHORT_PATH :
			   TD_VOC_SHORT_MARK);
	if (marked & 2)
		LEGEND_ADD("%s%s", len ? "  " : "", TD_VOC_SHORT_FLAG);
	if (marked & 4)
		LEGEND_ADD("%s%s  %s", len ? "  " : "",
			   td_locale_text(TD_VOC_SHORT_EST),
			   TD_VOC_SHORT_UNKNOWN);
	if (marked & 8)
		LEGEND_ADD("%s%s %s", len ? "  " : "", who, TD_VOC_SHORT_LEVEL2);
#undef LEGEND_ADD
	/* cut at the width: a column per character, UTF-8 kept whole */
	for (len = 0; line[len]; len++) {
		if (((unsigned char)line[len] & 0xc0) == 0x80)
			continue;
		if (v->width > 0 && cols++ >= v->width)
			break;
	}
	fprintf(out, "%.*s\033[K\n", (int)len, line);
}

void td_table_print(FILE *out, const struct td_view *v, const struct td_agg *a,
		    const struct td_table_out *o)
{
	const struct td_bucket **rows;
	struct table *t = malloc(sizeof(*t));
	struct td_row_vals *x = malloc(sizeof(*x));
	struct td_emit *e = malloc(sizeof(*e));
	char who[256];
	int marked = 0;
	size_t n = 0;

	if (!t || !x || !e) {
		free(t);
		free(x);
		free(e);
		return;
	}
	build(t, v, o);
	td_emit_init(e, out);
	e->width = v->width;
	e->big_num = v->opts.big_num;
	rows = td_view_sort(v, a, &n);
	if (v->compact && !v->gd)
		choose_units(t, v, rows, n, o->total ? &a->total : NULL);
	if (o->header)
		td_emit_header(e, t->f, t->n, NULL);
	td_emit_list_begin(e, "rows");
	for (size_t i = 0; rows && i < n; i++)
		marked |= row(e, t, v, a, rows[i], o, false, x);
	td_emit_list_end(e);
	free(rows);
	if (o->total || e->fmt != TD_EMIT_PLAIN)
		marked |= row(e, t, v, a, &a->total, o, true, x);
	marked |= level2(e, t, v, who, sizeof(who));
	/* The marks' legends under a table of report and stat, and of
	 * each snapshot of top: on a terminal one line of short ones.
	 */
	if (marked && e->fmt == TD_EMIT_PLAIN &&
	    ((o->legend == TD_LEGEND_TOTAL && o->total && !v->compact) ||
	     o->legend == TD_LEGEND_FULL)) {
		fprintf(out, "\n");
		if (marked & 1)
			fprintf(out, "%s\n", marked & 16 ? TD_VOC_LEGEND_PATH :
				TD_VOC_LEGEND_MARK);
		if (marked & 2)
			fprintf(out, "%s\n", TD_VOC_LEGEND_FLAG);
		if (marked & 4)
			fprintf(out, "%s\n%s\n", td_locale_text(TD_VOC_LEGEND_EST),
				TD_VOC_LEGEND_UNKNOWN);
		if (marked & 8)
			fprintf(out, "%s %s\n", who, TD_VOC_LEGEND_LEVEL2);
	} else if (marked && e->fmt == TD_EMIT_PLAIN &&
		   o->legend == TD_LEGEND_LINE) {
		legend_line(out, v, marked, who);
	}
	free(t);
	free(x);
	free(e);
}
