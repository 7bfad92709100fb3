// SPDX-License-Identifier: GPL-2.0
/*
 * Columns of an aggregation and the order of its rows. See aggregate.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"
#include "base/str.h"
#include "agg/aggregate.h"
#include "output/text.h"
#include "output/vocab.h"

/* ---- views ------------------------------------------------------------ */

int td_cycles_event(const struct topdown_config *cfg)
{
	for (uint32_t i = 0; i < cfg->nr_events && i < TOPDOWN_MAX_POOL; i++)
		if (strcasestr(td_pool_event_c(cfg, i)->name, "cyc"))
			return i;
	return 0;
}

const char *const td_l1_names[4] = {
	"retiring", "bad_speculation", "frontend_bound", "backend_bound",
};

static void add_col(struct td_view *v, enum td_col_kind kind, int idx,
		    const char *name)
{
	if (v->nr_cols < TD_MAX_COLS)
		v->col[v->nr_cols++] = (struct td_col){ kind, idx, name };
}

/* The key columns of --by, then slices, run time and the counts. */
static void add_cols(struct td_view *v, enum td_by by)
{
	switch (by) {
	case TD_BY_TASK:
		add_col(v, TD_COL_PID, 0, "pid");
		add_col(v, TD_COL_TID, 0, "tid");
		add_col(v, TD_COL_COMM, 0, "comm");
		break;
	case TD_BY_PROCESS:
		add_col(v, TD_COL_PID, 0, "pid");
		add_col(v, TD_COL_COMM, 0, "comm");
		break;
	case TD_BY_COMM:
		add_col(v, TD_COL_COMM, 0, "comm");
		break;
	case TD_BY_CGROUP:
		add_col(v, TD_COL_CGROUP, 0, "cgroup_id");
		break;
	default:
		add_col(v, TD_COL_CPU, 0, "cpu");
		break;
	}
	v->nr_keys = v->nr_cols;
	add_col(v, TD_COL_SLICES, 0, "slices");
	add_col(v, TD_COL_RUNTIME, 0, "runtime_ns");
	for (int i = 0; i < v->nr_events; i++)
		add_col(v, TD_COL_EVENT, i, v->event_names[i]);
	for (int i = 0; i < v->nr_metrics; i++)
		add_col(v, TD_COL_METRIC, i, v->metric_names[i]);
	v->sort_col = td_view_col(v, "cycles");
}

static void view_base(struct td_view *v, enum td_by by,
		      const struct topdown_config *cfg)
{
	memset(v, 0, sizeof(*v));
	for (int i = 0; i < 4; i++)
		v->l1[i] = -1;
	v->by = by;
	v->cfg = cfg;
	v->nr_events = (int)cfg->nr_events;
	if (v->nr_events > TOPDOWN_MAX_POOL)
		v->nr_events = TOPDOWN_MAX_POOL;
	for (int i = 0; i < v->nr_events; i++)
		v->event_names[i] = td_pool_event_c(cfg, (unsigned int)i)->name;
}

static void put_metric(struct td_view *v, const char *name)
{
	int i = v->nr_metrics++;

	v->metric_names[i] = name;
	v->metric_fraction[i] = td_metric_is_fraction(name);
	v->metric_voc[i] = td_voc_find(name);
	v->metric_parent[i] = -1;
	for (int k = 0; k < 4; k++)
		if (!strcmp(name, td_l1_names[k]))
			v->l1[k] = i;
}

void td_view_init(struct td_view *v, enum td_by by,
		  const struct topdown_config *cfg,
		  const struct td_decoder *dec)
{
	uint64_t zero[TOPDOWN_MAX_EVENTS] = { 0 };
	struct td_metrics m;

	view_base(v, by, cfg);
	if (v->nr_events > TOPDOWN_MAX_EVENTS)
		v->nr_events = TOPDOWN_MAX_EVENTS;
	v->dec = dec;
	if (dec) {
		/* The metric names, from a decode of nothing. */
		td_decode(dec, zero, &m);
		for (int i = 0; i < m.n && i < TD_VIEW_MAX_METRICS; i++) {
			v->metric_index[v->nr_metrics] = i;
			put_metric(v, m.m[i].name);
		}
		/* Rows with unreadable counts: estimates from the slices
		 * that were read, as a group's (one group, group 0).
		 */
		v->estd.dec[0] = dec;
		td_est_decoder_fn(&v->est_fn[0], &v->estd, 0);
	}
	add_cols(v, by);
}

/* err may quote the file's label and names: their text (output/text.h). */
static void raw_counts_warn(const char *err)
{
	char text[TD_TEXT_SIZE(512)];

	td_text(text, err, 512, NULL);
	p_warn("showing raw counts only: %s", text);
}

int td_view_cfg_init(struct td_view_cfg *vc, const struct topdown_config *cfg)
{
	uint32_t ng = cfg->size >= TOPDOWN_CONFIG_SIZE_VER1 ||
		      !cfg->size ? cfg->nr_groups : 0;
	char names[TOPDOWN_MAX_EVENTS][TOPDOWN_NAME_LEN];
	char err[512];

	memset(vc, 0, sizeof(*vc));
	vc->cfg = *cfg;
	if (ng > TOPDOWN_MAX_GROUPS) {
		p_err("a configuration with %u event groups (at most %d)", ng,
		      TOPDOWN_MAX_GROUPS);
		return -1;
	}
	if (ng >= 2) {
		vc->cfg.size = sizeof(vc->cfg);
		vc->rotated = true;
		if (td_gdecoder_from_config(&vc->gd, &vc->cfg, err,
					    sizeof(err))) {
			raw_counts_warn(err);
			return 0;
		}
		vc->can_decode = true;
		return 0;
	}
	if (ng == 1) {
		/* One group: its events in delta order, as a configuration
		 * without groups (what the record file writer does too).
		 */
		const struct topdown_group *grp = &cfg->groups[0];

		if (!grp->nr_events || grp->nr_events > TOPDOWN_MAX_EVENTS) {
			p_err("an event group of %u events", grp->nr_events);
			return -1;
		}
		memset(vc->cfg.events, 0, sizeof(vc->cfg.events));
		for (uint32_t j = 0; j < grp->nr_events; j++) {
			if (grp->events[j] >= cfg->nr_events ||
			    grp->events[j] >= TOPDOWN_MAX_POOL) {
				p_err("event group 0 names pool entry %u of %u",
				      grp->events[j], cfg->nr_events);
				return -1;
			}
			vc->cfg.events[j] = *td_pool_event_c(cfg, grp->events[j]);
		}
		vc->cfg.nr_events = grp->nr_events;
		vc->cfg.nr_groups = 0;
		vc->cfg.rotate_ms = 0;
		memset(vc->cfg.more_events, 0, sizeof(vc->cfg.more_events));
		memset(vc->cfg.groups, 0, sizeof(vc->cfg.groups));
		/* A label with g= (a plan's) decodes through its group. */
		if (!td_gdecoder_from_config(&vc->gd, cfg, err, sizeof(err)) &&
		    vc->gd.grouped) {
			vc->dec = vc->gd.g[0].dec;
			vc->can_decode = true;
			return 0;
		}
	}
	if (vc->cfg.nr_events > TOPDOWN_MAX_EVENTS) {
		p_err("a configuration of %u events without groups",
		      vc->cfg.nr_events);
		return -1;
	}
	memset(names, 0, sizeof(names));
	for (uint32_t i = 0; i < vc->cfg.nr_events; i++)
		memcpy(names[i], vc->cfg.events[i].name, TOPDOWN_NAME_LEN);
	if (!td_decoder_from_label(&vc->dec, vc->cfg.label,
				   (const char (*)[TOPDOWN_NAME_LEN])names,
				   (int)vc->cfg.nr_events, err, sizeof(err))) {
		vc->can_decode = true;
		return 0;
	}
	raw_counts_warn(err);
	return 0;
}

void td_view_init_cfg(struct td_view *v, enum td_by by,
		      const struct td_view_cfg *vc, int max_level)
{
	struct td_tree_node tree[TD_MAX_TREE];
	int n;

	if (!vc->rotated) {
		td_view_init(v, by, &vc->cfg, vc->can_decode ? &vc->dec : NULL);
		return;
	}
	view_base(v, by, &vc->cfg);
	v->gd = &vc->gd;
	if (vc->can_decode) {
		n = td_gdecoder_tree(&vc->gd, tree, TD_MAX_TREE);
		for (int i = 0; i < n && i < TD_MAX_TREE &&
		     v->nr_metrics < TD_VIEW_MAX_METRICS; i++) {
			int k = v->nr_metrics;

			if (max_level == 1 && tree[i].info->level > 1)
				continue;
			put_metric(v, tree[i].info->name);
			v->metric_group[k] = tree[i].group;
			v->metric_index[k] = tree[i].index;
			v->metric_depth[k] = tree[i].depth;
			if (!tree[i].depth || !tree[i].info->parent)
				continue;
			for (int p = k - 1; p >= 0; p--)
				if (!strcmp(v->metric_names[p],
					    tree[i].info->parent)) {
					v->metric_parent[k] = p;
					break;
				}
		}
		for (int g = 0; g < vc->gd.nr_groups; g++) {
			v->estd.dec[g] = &vc->gd.g[g].dec;
			td_est_decoder_fn(&v->est_fn[g], &v->estd, g);
		}
	}
	add_cols(v, by);
}

int td_view_agg(const struct td_view *v, struct td_agg *a)
{
	return td_agg_groups(a, v->cfg);
}

bool td_view_note_errors(struct td_view *v, const struct td_agg *a)
{
	const struct td_grow *gr = td_agg_grow(a, &a->total);

	for (int g = 0; gr && !v->gd && g < a->nr_groups; g++)
		if (gr->g[g].errors)
			v->est_fields = true;
	return v->gd || v->est_fields;
}

static void val_exact(struct td_val *x, double v, bool valid)
{
	*x = (struct td_val){ .value = valid ? v : 0, .coverage = 1,
			      .valid = valid };
}

static void val_est(struct td_val *x, const struct td_estimate *e)
{
	*x = (struct td_val){ .value = e->value, .error = e->error,
			      .coverage = e->coverage,
			      .valid = e->kind != TD_EST_UNKNOWN,
			      .estimated = e->kind == TD_EST_ESTIMATED };
	if (!x->valid) {
		x->value = 0;
		x->error = 0;
	}
}

/* The bottleneck path (td_voc_path()): the largest valid Level-1 class,
 * then its largest valid Level 2 class shown.
 */
static void mark_path(const struct td_view *v, struct td_row_vals *o)
{
	double value[TD_VIEW_MAX_METRICS];
	bool valid[TD_VIEW_MAX_METRICS];

	for (int i = 0; i < v->nr_metrics; i++) {
		value[i] = o->metric[i].value;
		valid[i] = o->metric[i].valid;
	}
	td_voc_path(v->metric_voc, value, valid, v->nr_metrics, o->mark);
}

void td_view_values(const struct td_view *v, const struct td_agg *a,
		    const struct td_bucket *row, struct td_row_vals *out)
{
	struct td_estimate est[TOPDOWN_MAX_GROUPS][TD_EST_MAX_METRICS];
	bool done[TOPDOWN_MAX_GROUPS] = { false };
	const struct td_grow *gr = td_agg_grow(a, row);
	struct td_metrics m = { 0 };

	/* Exact: every slice of the row read (the group path below leaves
	 * the others out, as it leaves out rotated slices).
	 */
	if (!v->gd && (!gr || !gr->g[0].errors)) {
		for (int i = 0; i < v->nr_events; i++)
			val_exact(&out->count[i], (double)row->counts[i], true);
		if (v->dec)
			td_decode(v->dec, row->counts, &m);
		for (int i = 0; i < v->nr_metrics; i++) {
			val_exact(&out->metric[i], i < m.n ? m.m[i].value : 0,
				  i < m.n && m.m[i].valid);
			out->metric[i].flagged = i < m.n && m.m[i].flagged;
		}
		mark_path(v, out);
		return;
	}
	/* Estimates: with rotated groups, or from the slices read. */
	for (int i = 0; i < v->nr_events; i++) {
		td_est_count(a, row, (unsigned int)i, &est[0][0]);
		val_est(&out->count[i], &est[0][0]);
	}
	for (int i = 0; i < v->nr_metrics; i++) {
		int g = v->metric_group[i], k = v->metric_index[i];
		struct td_val *x = &out->metric[i];

		if (!done[g]) {
			td_est_metrics(a, row, g, &v->est_fn[g], est[g]);
			done[g] = true;
		}
		if (k < v->est_fn[g].nr) {
			val_est(x, &est[g][k]);
		} else {
			memset(x, 0, sizeof(*x));
			x->coverage = est[g][0].coverage;
		}
		x->flagged = x->valid && v->metric_fraction[i] &&
			     (x->value < 0 || x->value > 1);
	}
	mark_path(v, out);
}

int td_table_opt(struct td_table_opts *o, int id)
{
	switch (id) {
	case TD_TABLE_METRIC_ONLY:
		o->metric_only = true;
		return 1;
	case TD_TABLE_BIG_NUM:
		o->big_num = true;
		return 1;
	}
	return 0;
}

/* The words --sort takes for view column i (at most 5 in w): its plain
 * titles first (as the tables print it: RUN_MS in report and stat,
 * %CPU in top), then its JSON name and the older words (time, cycles,
 * cgroup, cpu); the number.
 */
static int col_words(const struct td_view *v, int i, const char **w)
{
	const struct td_col *c = &v->col[i];
	int n = 0;

	switch (c->kind) {
	case TD_COL_METRIC:
		w[n++] = td_voc_metric_title(c->name, v->event_names,
					     v->nr_events);
		break;
	case TD_COL_EVENT:
		break;
	case TD_COL_RUNTIME:
		w[n++] = td_voc_title(c->name);
		w[n++] = td_voc_title("cpu_percent");
		break;
	default:
		w[n++] = td_voc_title(c->name);
		break;
	}
	w[n++] = c->name;
	if (c->kind == TD_COL_RUNTIME)
		w[n++] = "time";
	else if (c->kind == TD_COL_CGROUP)
		w[n++] = "cgroup";
	else if (c->kind == TD_COL_EVENT && c->idx == td_cycles_event(v->cfg))
		w[n++] = "cycles";
	return n;
}

/* May --sort take view column i (keys, slices, run time, counts,
 * metrics)?
 */
static bool sortable(const struct td_view *v, int i)
{
	return i < v->nr_keys || v->col[i].kind == TD_COL_SLICES ||
	       v->col[i].kind == TD_COL_RUNTIME ||
	       v->col[i].kind == TD_COL_EVENT ||
	       v->col[i].kind == TD_COL_METRIC;
}

int td_view_col(const struct td_view *v, const char *name)
{
	const char *w[5];

	/* a name first: an event may be named as another column's title */
	for (int i = 0; i < v->nr_cols; i++)
		if (!strcmp(v->col[i].name, name))
			return i;
	for (int i = 0; i < v->nr_cols; i++) {
		int n = sortable(v, i) ? col_words(v, i, w) : 0;

		for (int k = 0; k < n; k++)
			if (td_voc_is(name, w[k], NULL))
				return i;
	}
	return -1;
}

/* The words of view column i for the list of --sort's error, '|'
 * between, those that differ only in case once. False: out of memory.
 */
static bool list_words(char **list, const struct td_view *v, int i)
{
	const char *w[5];
	int n = col_words(v, i, w);
	bool whole = true;

	for (int k = 0; k < n && whole; k++) {
		bool dup = false;

		for (int j = 0; j < k; j++)
			dup |= !strcasecmp(w[j], w[k]);
		if (!dup)
			whole = td_str_add(list, "%s%s",
					   k ? "|" : *list ? ", " : "", w[k]);
	}
	return whole;
}

int td_view_sort_by(struct td_view *v, const char *name)
{
	char *list = NULL;
	bool whole = true;
	int col;

	if (!name)
		return 0;
	col = td_view_col(v, name);
	if (col >= 0) {
		v->sort_col = col;
		v->ascending = col < v->nr_keys;
		return 0;
	}
	/* Every word it takes, by column: run time and slices first, then
	 * the keys, the counts and the metrics, as the tables show them.
	 */
	for (int pass = 0; pass < 3 && whole; pass++) {
		for (int i = 0; i < v->nr_cols && whole; i++) {
			enum td_col_kind kd = v->col[i].kind;
			int p = kd == TD_COL_RUNTIME ? 0 :
				kd == TD_COL_SLICES ? 1 : 2;

			if (p == pass && sortable(v, i))
				whole = list_words(&list, v, i);
		}
	}
	p_usage_error("cannot sort by '%s': no such column (%s)", name,
		      whole && list ? list : "out of memory");
	free(list);
	return -1;
}

struct sort_item {
	const struct td_bucket *b;
	double val;		/* numeric sort value */
};

static const struct td_view *sort_view;

static double col_value(const struct td_col *c,
			const struct td_bucket *b, const struct td_row_vals *x)
{
	switch (c->kind) {
	case TD_COL_PID:
		return b->pid;
	case TD_COL_TID:
		return b->tid;
	case TD_COL_CGROUP:
		return (double)b->cgroup_id;
	case TD_COL_CPU:
		return b->cpu;
	case TD_COL_SLICES:
		return (double)b->slices;
	case TD_COL_RUNTIME:
		return (double)b->runtime_ns;
	case TD_COL_EVENT:
		if (!x)
			return (double)b->counts[c->idx];
		/* an estimate; unknown sorts last */
		return x->count[c->idx].valid ? x->count[c->idx].value : -1e300;
	case TD_COL_METRIC:
		return x->metric[c->idx].valid ? x->metric[c->idx].value :
		       -1e300;	/* invalid sorts last */
	case TD_COL_COMM:
		break;
	}
	return 0;
}

/* Tie-breaks keep the order stable: run time, then the key. */
static int cmp_items(const void *pa, const void *pb)
{
	const struct sort_item *a = pa, *b = pb;
	const struct td_view *v = sort_view;
	const struct td_col *c = &v->col[v->sort_col];
	int r = 0;

	if (c->kind == TD_COL_COMM)
		r = strcmp(a->b->comm, b->b->comm);
	else if (a->val != b->val)
		r = a->val < b->val ? -1 : 1;
	if (!v->ascending)
		r = -r;
	if (r)
		return r;
	if (a->b->runtime_ns != b->b->runtime_ns)
		return a->b->runtime_ns > b->b->runtime_ns ? -1 : 1;
	if (a->b->pid != b->b->pid)
		return a->b->pid < b->b->pid ? -1 : 1;
	if (a->b->tid != b->b->tid)
		return a->b->tid < b->b->tid ? -1 : 1;
	if (a->b->cpu != b->b->cpu)
		return a->b->cpu < b->b->cpu ? -1 : 1;
	if (a->b->cgroup_id != b->b->cgroup_id)
		return a->b->cgroup_id < b->b->cgroup_id ? -1 : 1;
	return strcmp(a->b->comm, b->b->comm);
}

const struct td_bucket **td_view_sort(const struct td_view *v,
				      const struct td_agg *a, size_t *n)
{
	struct sort_item *it = calloc(a->n ? a->n : 1, sizeof(*it));
	const struct td_bucket **out = calloc(a->n ? a->n : 1, sizeof(*out));
	int sc = v->sort_col >= 0 && v->sort_col < v->nr_cols ? v->sort_col : 0;
	const struct td_col *c = &v->col[sc];
	struct td_row_vals *x = NULL;
	bool est = v->gd || a->nr_groups;	/* values may be estimates */

	*n = 0;
	if ((c->kind == TD_COL_METRIC || c->kind == TD_COL_EVENT) &&
	    (est || c->kind == TD_COL_METRIC))
		x = malloc(sizeof(*x));
	if (!it || !out || (!x && (c->kind == TD_COL_METRIC ||
				   (est && c->kind == TD_COL_EVENT)))) {
		free(it);
		free(out);
		free(x);
		return NULL;
	}
	for (size_t i = 0; i < a->n; i++) {
		it[i].b = &a->bucket[i];
		if (x)
			td_view_values(v, a, &a->bucket[i], x);
		it[i].val = col_value(c, &a->bucket[i], x);
	}
	free(x);
	sort_view = v;
	qsort(it, a->n, sizeof(*it), cmp_items);
	for (size_t i = 0; i < a->n; i++)
		out[i] = it[i].b;
	free(it);
	*n = v->limit && v->limit < a->n ? v->limit : a->n;
	return out;
}
