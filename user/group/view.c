// SPDX-License-Identifier: GPL-2.0
/*
 * Columns of a grouping and the order of its rows. See aggregate.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"
#include "group/aggregate.h"

/* ---- views ------------------------------------------------------------ */

int td_cycles_event(const struct topdown_config *cfg)
{
	for (uint32_t i = 0; i < cfg->nr_events; i++)
		if (strcasestr(cfg->events[i].name, "cyc"))
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

void td_view_init(struct td_view *v, enum td_by by,
		  const struct topdown_config *cfg,
		  const struct td_decoder *dec)
{
	uint64_t zero[TOPDOWN_MAX_EVENTS] = { 0 };
	struct td_metrics m;

	memset(v, 0, sizeof(*v));
	for (int i = 0; i < 4; i++)
		v->l1[i] = -1;
	v->by = by;
	v->cfg = cfg;
	v->dec = dec;
	if (dec) {
		/* The metric names, from a decode of nothing. */
		td_decode(dec, zero, &m);
		v->nr_metrics = m.n;
		for (int i = 0; i < m.n; i++) {
			v->metric_names[i] = m.m[i].name;
			v->metric_fraction[i] = td_metric_is_fraction(m.m[i].name);
			for (int k = 0; k < 4; k++)
				if (!strcmp(m.m[i].name, td_l1_names[k]))
					v->l1[k] = i;
		}
	}
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
	for (uint32_t i = 0; i < cfg->nr_events; i++)
		add_col(v, TD_COL_EVENT, i, cfg->events[i].name);
	for (int i = 0; i < v->nr_metrics; i++)
		add_col(v, TD_COL_METRIC, i, v->metric_names[i]);
	v->sort_col = td_view_col(v, "cycles");
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

int td_view_col(const struct td_view *v, const char *name)
{
	static const struct {
		const char *alias;
		enum td_col_kind kind;
	} alias[] = {
		{ "pid", TD_COL_PID }, { "tid", TD_COL_TID },
		{ "comm", TD_COL_COMM }, { "cgroup", TD_COL_CGROUP },
		{ "cpu", TD_COL_CPU }, { "slices", TD_COL_SLICES },
		{ "time", TD_COL_RUNTIME },
	};

	for (int i = 0; i < v->nr_cols; i++)
		if (!strcmp(v->col[i].name, name))
			return i;
	if (!strcmp(name, "cycles")) {
		int ev = td_cycles_event(v->cfg);

		for (int i = 0; i < v->nr_cols; i++)
			if (v->col[i].kind == TD_COL_EVENT &&
			    v->col[i].idx == ev)
				return i;
	}
	for (size_t a = 0; a < sizeof(alias) / sizeof(alias[0]); a++) {
		if (strcmp(alias[a].alias, name))
			continue;
		for (int i = 0; i < v->nr_cols; i++)
			if (v->col[i].kind == alias[a].kind)
				return i;
	}
	return -1;
}

int td_view_sort_by(struct td_view *v, const char *name)
{
	int col;

	if (!name)
		return 0;
	col = td_view_col(v, name);
	if (col < 0) {
		char list[512] = "time, slices";
		size_t pos = strlen(list);

		for (int i = 0; i < v->nr_cols && pos < sizeof(list); i++)
			if (v->col[i].kind == TD_COL_EVENT ||
			    v->col[i].kind == TD_COL_METRIC ||
			    i < v->nr_keys)
				pos += snprintf(list + pos, sizeof(list) - pos,
						", %s", v->col[i].name);
		p_usage_error("cannot sort by '%s': no such column (%s)", name,
			      list);
		return -1;
	}
	v->sort_col = col;
	v->ascending = col < v->nr_keys;
	return 0;
}

struct sort_item {
	const struct td_group *g;
	double val;		/* numeric sort value */
};

static const struct td_view *sort_view;

static double metric_value(const struct td_view *v, const struct td_group *g,
			   int idx, bool *valid)
{
	struct td_metrics m;

	td_decode(v->dec, g->counts, &m);
	*valid = idx < m.n && m.m[idx].valid;
	return *valid ? m.m[idx].value : 0;
}

static double col_value(const struct td_view *v, const struct td_col *c,
			const struct td_group *g)
{
	bool valid;
	double x;

	switch (c->kind) {
	case TD_COL_PID:
		return g->pid;
	case TD_COL_TID:
		return g->tid;
	case TD_COL_CGROUP:
		return (double)g->cgroup_id;
	case TD_COL_CPU:
		return g->cpu;
	case TD_COL_SLICES:
		return (double)g->slices;
	case TD_COL_RUNTIME:
		return (double)g->runtime_ns;
	case TD_COL_EVENT:
		return (double)g->counts[c->idx];
	case TD_COL_METRIC:
		x = metric_value(v, g, c->idx, &valid);
		return valid ? x : -1e300;	/* invalid sorts last */
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
		r = strcmp(a->g->comm, b->g->comm);
	else if (a->val != b->val)
		r = a->val < b->val ? -1 : 1;
	if (!v->ascending)
		r = -r;
	if (r)
		return r;
	if (a->g->runtime_ns != b->g->runtime_ns)
		return a->g->runtime_ns > b->g->runtime_ns ? -1 : 1;
	if (a->g->pid != b->g->pid)
		return a->g->pid < b->g->pid ? -1 : 1;
	if (a->g->tid != b->g->tid)
		return a->g->tid < b->g->tid ? -1 : 1;
	if (a->g->cpu != b->g->cpu)
		return a->g->cpu < b->g->cpu ? -1 : 1;
	if (a->g->cgroup_id != b->g->cgroup_id)
		return a->g->cgroup_id < b->g->cgroup_id ? -1 : 1;
	return strcmp(a->g->comm, b->g->comm);
}

const struct td_group **td_view_sort(const struct td_view *v,
				     const struct td_agg *a, size_t *n)
{
	struct sort_item *it = calloc(a->n ? a->n : 1, sizeof(*it));
	const struct td_group **out = calloc(a->n ? a->n : 1, sizeof(*out));
	int sc = v->sort_col >= 0 && v->sort_col < v->nr_cols ? v->sort_col : 0;

	*n = 0;
	if (!it || !out) {
		free(it);
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < a->n; i++) {
		it[i].g = &a->g[i];
		it[i].val = col_value(v, &v->col[sc], &a->g[i]);
	}
	sort_view = v;
	qsort(it, a->n, sizeof(*it), cmp_items);
	for (size_t i = 0; i < a->n; i++)
		out[i] = it[i].g;
	free(it);
	*n = v->limit && v->limit < a->n ? v->limit : a->n;
	return out;
}
