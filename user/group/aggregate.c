// SPDX-License-Identifier: GPL-2.0
/*
 * Groups of records and their tables. See aggregate.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "group/aggregate.h"
#include "live/cgpath.h"
#include "base/common.h"
#include "output/text.h"

const char *const td_by_names[TD_BY_NR] = {
	[TD_BY_TASK] = "task",
	[TD_BY_PROCESS] = "process",
	[TD_BY_COMM] = "comm",
	[TD_BY_CGROUP] = "cgroup",
	[TD_BY_CPU] = "cpu",
};

int td_by_parse(const char *opt, const char *s, enum td_by *by)
{
	for (int i = 0; i < TD_BY_NR; i++) {
		if (!strcmp(s, td_by_names[i])) {
			*by = i;
			return 0;
		}
	}
	p_err("invalid value '%s' for %s (expected task, process, comm, cgroup or cpu)",
	      s, opt);
	return -1;
}

void td_filter_init(struct td_filter *f)
{
	f->cpu = -1;
	f->pid = -1;
	f->comm = NULL;
}

int td_filter_opt(struct td_filter *f, int id, const char *arg)
{
	unsigned long long v;

	switch (id) {
	case TD_FILTER_CPU:
		if (parse_u64("--cpu", arg, TD_MAX_CPUS - 1, &v))
			return -1;
		f->cpu = (long)v;
		return 1;
	case TD_FILTER_PID:
		if (parse_u64("--pid", arg, 0x7fffffff, &v))
			return -1;
		f->pid = (long)v;
		return 1;
	case TD_FILTER_COMM:
		if (strlen(arg) >= TOPDOWN_COMM_LEN) {
			p_err("--comm '%s' is longer than a comm (%d characters)",
			      arg, TOPDOWN_COMM_LEN - 1);
			return -1;
		}
		f->comm = arg;
		return 1;
	}
	return 0;
}

bool td_filter_match(const struct td_filter *f, const struct topdown_record *r)
{
	if (f->cpu >= 0 && r->cpu != (uint32_t)f->cpu)
		return false;
	if (f->pid >= 0 && r->pid != (uint32_t)f->pid &&
	    r->tgid != (uint32_t)f->pid)
		return false;
	if (f->comm && strncmp(r->comm, f->comm, TOPDOWN_COMM_LEN))
		return false;
	return true;
}

/* ---- groups ----------------------------------------------------------- */

void td_agg_init(struct td_agg *a, enum td_by by)
{
	memset(a, 0, sizeof(*a));
	a->by = by;
}

void td_agg_clear(struct td_agg *a)
{
	a->n = 0;
	if (a->slot)
		memset(a->slot, 0, a->nslots * sizeof(*a->slot));
	memset(&a->total, 0, sizeof(a->total));
	a->oom = false;
}

void td_agg_free(struct td_agg *a)
{
	free(a->g);
	free(a->slot);
	memset(a, 0, sizeof(*a));
}

/*
 * What identifies a group: the thread (task) or process id, the CPU (of
 * the idle tasks, which are all pid 0, and of TD_BY_CPU), the cgroup, or
 * the comm. The hash and the comparison read only the fields of the
 * grouping, straight from the record, so adding a record builds nothing.
 */
struct key {
	uint64_t cgroup_id;
	uint32_t id;
	uint32_t cpu;
	const char *comm;	/* NUL-terminated or TOPDOWN_COMM_LEN long */
};

static void rec_key(enum td_by by, const struct topdown_record *r,
		    struct key *k)
{
	k->cgroup_id = 0;
	k->id = 0;
	k->cpu = 0;
	k->comm = NULL;
	switch (by) {
	case TD_BY_TASK:
		k->id = r->pid;
		k->cpu = r->pid ? 0 : r->cpu;
		break;
	case TD_BY_PROCESS:
		k->id = r->tgid;
		k->cpu = r->tgid ? 0 : r->cpu;
		break;
	case TD_BY_COMM:
		k->comm = r->comm;
		break;
	case TD_BY_CGROUP:
		k->cgroup_id = r->cgroup_id;
		break;
	case TD_BY_CPU:
		k->cpu = r->cpu;
		break;
	case TD_BY_NR:
		break;
	}
}

static void group_key(enum td_by by, const struct td_group *g, struct key *k)
{
	k->cgroup_id = by == TD_BY_CGROUP ? g->cgroup_id : 0;
	k->id = by == TD_BY_TASK ? g->tid : by == TD_BY_PROCESS ? g->pid : 0;
	k->cpu = g->cpu;
	k->comm = by == TD_BY_COMM ? g->comm : NULL;
}

static inline __attribute__((always_inline))
bool matches(enum td_by by, const struct td_group *g,
		    const struct key *k)
{
	switch (by) {
	case TD_BY_TASK:
		return g->tid == k->id && g->cpu == k->cpu;
	case TD_BY_PROCESS:
		return g->pid == k->id && g->cpu == k->cpu;
	case TD_BY_COMM:
		return !strncmp(g->comm, k->comm, TOPDOWN_COMM_LEN);
	case TD_BY_CGROUP:
		return g->cgroup_id == k->cgroup_id;
	default:
		return g->cpu == k->cpu;
	}
}

static inline __attribute__((always_inline))
uint64_t hash_key(enum td_by by, const struct key *k)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (by == TD_BY_COMM) {
		for (int i = 0; i < TOPDOWN_COMM_LEN && k->comm[i]; i++)
			h = (h ^ (unsigned char)k->comm[i]) * 0x100000001b3ull;
	} else {
		h = (h ^ k->id ^ k->cgroup_id ^ (uint64_t)k->cpu << 48) *
		    0x9e3779b97f4a7c15ull;
	}
	return h ^ h >> 29;
}

static bool rehash(struct td_agg *a, size_t nslots)
{
	uint32_t *slot = calloc(nslots, sizeof(*slot));
	struct key k;

	if (!slot)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		size_t s;

		group_key(a->by, &a->g[i], &k);
		s = hash_key(a->by, &k) & (nslots - 1);
		while (slot[s])
			s = (s + 1) & (nslots - 1);
		slot[s] = i + 1;
	}
	free(a->slot);
	a->slot = slot;
	a->nslots = nslots;
	return true;
}

/* The group of key k; a new, zeroed one (*is_new) if there is none. */
static inline __attribute__((always_inline))
struct td_group *lookup(struct td_agg *a, const struct key *k, bool *is_new)
{
	size_t s;

	*is_new = false;
	if (2 * (a->n + 1) > a->nslots &&
	    !rehash(a, a->nslots ? 2 * a->nslots : 256))
		return NULL;
	s = hash_key(a->by, k) & (a->nslots - 1);
	while (a->slot[s]) {
		struct td_group *g = &a->g[a->slot[s] - 1];

		if (matches(a->by, g, k))
			return g;
		s = (s + 1) & (a->nslots - 1);
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 128;
		struct td_group *g = realloc(a->g, cap * sizeof(*g));

		if (!g)
			return NULL;
		a->g = g;
		a->cap = cap;
	}
	memset(&a->g[a->n], 0, sizeof(a->g[a->n]));
	a->slot[s] = ++a->n;
	*is_new = true;
	return &a->g[a->n - 1];
}

static inline __attribute__((always_inline))
void add_to(struct td_group *restrict g,
		   const struct topdown_record *restrict r)
{
	g->slices++;
	g->runtime_ns += r->duration_ns;
	if (r->flags & TOPDOWN_REC_ERROR_MASK)
		g->read_errors++;
#pragma GCC unroll 8
	for (int i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		g->counts[i] += r->delta[i];
}

static void sum_into(struct td_group *g, const struct td_group *s)
{
	g->slices += s->slices;
	g->runtime_ns += s->runtime_ns;
	g->read_errors += s->read_errors;
	for (int i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		g->counts[i] += s->counts[i];
}

/* A comm as strncpy() leaves it in a zeroed group: NUL-padded. */
static void copy_comm(char *dst, const char *src)
{
	int i = 0;

	for (; i < TOPDOWN_COMM_LEN && src[i]; i++)
		dst[i] = src[i];
	for (; i < TOPDOWN_COMM_LEN; i++)
		dst[i] = '\0';
}

bool td_agg_add(struct td_agg *a, const struct topdown_record *r)
{
	struct td_group *g;
	bool main_thread = r->pid == r->tgid, is_new;
	struct key k;

	rec_key(a->by, r, &k);
	g = lookup(a, &k, &is_new);
	if (!g) {
		a->oom = true;
		return false;
	}
	if (is_new) {
		/* The key fields, as the first record of the group has them. */
		switch (a->by) {
		case TD_BY_TASK:
			g->tid = r->pid;
			g->pid = r->tgid;
			g->cpu = k.cpu;
			break;
		case TD_BY_PROCESS:
			g->pid = r->tgid;
			g->cpu = k.cpu;
			break;
		case TD_BY_COMM:
			copy_comm(g->comm, r->comm);
			break;
		case TD_BY_CGROUP:
			g->cgroup_id = r->cgroup_id;
			break;
		default:
			g->cpu = r->cpu;
			break;
		}
	}
	/* A process is named after its main thread when that was seen. */
	if (a->by != TD_BY_COMM && (main_thread || !g->comm_main)) {
		if (memcmp(g->comm, r->comm, TOPDOWN_COMM_LEN))
			copy_comm(g->comm, r->comm);
		g->comm_main = main_thread;
	}
	add_to(g, r);
	add_to(&a->total, r);
	return true;
}

bool td_agg_merge(struct td_agg *dst, const struct td_agg *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct td_group *sg = &src->g[i];
		struct td_group *g;
		bool is_new;
		struct key k;

		group_key(dst->by, sg, &k);
		g = lookup(dst, &k, &is_new);
		if (!g) {
			dst->oom = true;
			return false;
		}
		if (is_new) {
			/* The key only: a new group starts from zero. */
			*g = *sg;
			g->slices = g->runtime_ns = g->read_errors = 0;
			memset(g->counts, 0, sizeof(g->counts));
		}
		if (sg->comm_main || !g->comm_main) {
			memcpy(g->comm, sg->comm, sizeof(g->comm));
			g->comm_main = sg->comm_main;
		}
		sum_into(g, sg);
	}
	sum_into(&dst->total, &src->total);
	return true;
}

/* ---- views ------------------------------------------------------------ */

int td_cycles_event(const struct topdown_config *cfg)
{
	for (uint32_t i = 0; i < cfg->nr_events; i++)
		if (strcasestr(cfg->events[i].name, "cyc"))
			return i;
	return 0;
}

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
	v->by = by;
	v->cfg = cfg;
	v->dec = dec;
	if (dec) {
		/* The metric names, from a decode of nothing. */
		td_decode(dec, zero, &m);
		v->nr_metrics = m.n;
		for (int i = 0; i < m.n; i++)
			v->metric_names[i] = m.m[i].name;
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
		p_err("cannot sort by '%s': no such column (%s)", name, list);
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

/* ---- plain tables ----------------------------------------------------- */

static bool is_fraction(const char *name)
{
	return strcmp(name, "ipc") && strcmp(name, "cpi");
}

static int col_width(const struct td_view *v, const struct td_col *c)
{
	int w;

	switch (c->kind) {
	case TD_COL_PID:
	case TD_COL_TID:
		return 7;
	case TD_COL_COMM:
		return 16;
	case TD_COL_CGROUP:
		return v->cgroup_paths ? 24 : 10;
	case TD_COL_CPU:
		return 4;
	case TD_COL_SLICES:
		return v->compact ? 6 : 8;
	case TD_COL_RUNTIME:
		return v->compact ? 6 : 11;
	case TD_COL_EVENT:
		if (v->compact)
			return 8;
		w = strlen(c->name);
		return w < 13 ? 13 : w;
	case TD_COL_METRIC:
		w = strlen(c->name);
		if (v->compact)
			return w < 7 ? w : 7;
		return w < 8 ? 8 : w;
	}
	return 8;
}

static const char *col_title(const struct td_view *v, const struct td_col *c)
{
	switch (c->kind) {
	case TD_COL_PID:
		return "PID";
	case TD_COL_TID:
		return "TID";
	case TD_COL_COMM:
		return "COMM";
	case TD_COL_CGROUP:
		return "CGROUP";
	case TD_COL_CPU:
		return "CPU";
	case TD_COL_SLICES:
		return "SLICES";
	case TD_COL_RUNTIME:
		return v->compact && v->interval_ns ? "%CPU" : "RUN_MS";
	default:
		return c->name;
	}
}

/* Short names for the compact (top) headers. */
static void compact_title(const struct td_col *c, char *buf, size_t n,
			  int width)
{
	static const struct {
		const char *name, *abbr;
	} abbr[] = {
		{ "retiring", "RETIR" }, { "bad_speculation", "BADSPEC" },
		{ "frontend_bound", "FRONTND" }, { "backend_bound", "BACKEND" },
		{ "ipc", "IPC" }, { "cpi", "CPI" },
		{ "instructions", "INSTR" },
	};

	for (size_t i = 0; i < sizeof(abbr) / sizeof(abbr[0]); i++) {
		if (!strcmp(c->name, abbr[i].name)) {
			snprintf(buf, n, "%s", abbr[i].abbr);
			return;
		}
	}
	/* The tail of a long name is the telling part (core/X.Y). */
	if ((int)strlen(c->name) > width)
		snprintf(buf, n, "%s", c->name + strlen(c->name) - width);
	else
		snprintf(buf, n, "%s", c->name);
}

/* A count in at most 8 characters: 12345678, 123.4M, 12.3G. */
static void scaled(uint64_t x, char *buf, size_t n)
{
	static const char unit[] = "KMGTPE";
	double d = (double)x;
	int u = -1;

	if (x < 10000000ull) {
		snprintf(buf, n, "%llu", (unsigned long long)x);
		return;
	}
	while (d >= 1000 && u < 5) {
		d /= 1000;
		u++;
	}
	snprintf(buf, n, "%.1f%c", d, unit[u]);
}

/* One cell, padded to its width, into buf. */
static void cell(const struct td_view *v, const struct td_col *c,
		 const struct td_group *g, char *buf, size_t n)
{
	int w = col_width(v, c);
	const char *path;
	char s[64];
	bool valid;
	double x;

	switch (c->kind) {
	case TD_COL_PID:
		snprintf(buf, n, "%*u", w, g->pid);
		return;
	case TD_COL_TID:
		snprintf(buf, n, "%*u", w, g->tid);
		return;
	case TD_COL_COMM: {
		char t[TD_TEXT_SIZE(TOPDOWN_COMM_LEN)];
		size_t cols, len = td_text(t, g->comm, TOPDOWN_COMM_LEN, &cols);

		/* w characters wide: UTF-8 takes more bytes than columns */
		snprintf(buf, n, "%-*s", w + (int)(len - cols), t);
		return;
	}
	case TD_COL_CGROUP:
		path = v->cgroup_paths ? td_cgroup_path(g->cgroup_id) : NULL;
		if (path)	/* a longer path pushes the rest of its row */
			snprintf(buf, n, "%-*s", w, path);
		else if (v->cgroup_paths)
			snprintf(buf, n, "%-*llu", w,
				 (unsigned long long)g->cgroup_id);
		else
			snprintf(buf, n, "%*llu", w,
				 (unsigned long long)g->cgroup_id);
		return;
	case TD_COL_CPU:
		snprintf(buf, n, "%*u", w, g->cpu);
		return;
	case TD_COL_SLICES:
		if (v->compact) {
			scaled(g->slices, s, sizeof(s));
			snprintf(buf, n, "%*s", w, s);
		} else {
			snprintf(buf, n, "%*llu", w,
				 (unsigned long long)g->slices);
		}
		return;
	case TD_COL_RUNTIME:
		if (v->compact && v->interval_ns)
			snprintf(buf, n, "%*.1f", w,
				 100.0 * g->runtime_ns / v->interval_ns);
		else
			snprintf(buf, n, "%*.3f", w, g->runtime_ns / 1e6);
		return;
	case TD_COL_EVENT:
		if (v->compact) {
			scaled(g->counts[c->idx], s, sizeof(s));
			snprintf(buf, n, "%*s", w, s);
		} else {
			snprintf(buf, n, "%*llu", w,
				 (unsigned long long)g->counts[c->idx]);
		}
		return;
	case TD_COL_METRIC:
		x = metric_value(v, g, c->idx, &valid);
		if (!valid)
			snprintf(buf, n, "%*s", w, "-");
		else if (is_fraction(c->name))
			snprintf(buf, n, "%*.1f%%", w - 1, 100.0 * x);
		else
			snprintf(buf, n, "%*.*f", w, v->compact ? 2 : 3, x);
		return;
	}
}

/* Append to a line, respecting the view's width (0: unlimited). */
static void put(const struct td_view *v, char *line, size_t n, const char *s)
{
	size_t len = strlen(line);
	size_t max = v->width > 0 && (size_t)v->width < n ? (size_t)v->width : n - 1;

	if (len >= max)
		return;
	snprintf(line + len, max - len + 1, "%s", s);
}

void td_print_header(FILE *f, const struct td_view *v, const char *prefix)
{
	char line[1024] = "", t[64], buf[96];

	if (prefix)
		put(v, line, sizeof(line), prefix);
	for (int i = 0; i < v->nr_cols; i++) {
		const struct td_col *c = &v->col[i];
		int w = col_width(v, c);
		const char *title = col_title(v, c);

		if (v->compact && (c->kind == TD_COL_EVENT ||
				   c->kind == TD_COL_METRIC)) {
			compact_title(c, t, sizeof(t), w);
			title = t;
		}
		/* Text columns are left-aligned, numbers right-aligned. */
		snprintf(buf, sizeof(buf), "%s%*.*s", i ? " " : "",
			 c->kind == TD_COL_COMM || (c->kind == TD_COL_CGROUP &&
			 v->cgroup_paths) ? -w : w, w, title);
		put(v, line, sizeof(line), buf);
	}
	fprintf(f, "%s\n", line);
}

static void print_row(FILE *f, const struct td_view *v,
		      const struct td_group *g, const char *prefix,
		      bool is_total)
{
	char line[1024] = "", buf[96];
	int key_w = 0;

	if (prefix)
		put(v, line, sizeof(line), prefix);
	for (int i = 0; i < v->nr_cols; i++) {
		const struct td_col *c = &v->col[i];

		if (is_total && i < v->nr_keys) {
			key_w += col_width(v, c) + (i ? 1 : 0);
			if (i == v->nr_keys - 1) {
				snprintf(buf, sizeof(buf), "%-*s", key_w,
					 "total");
				put(v, line, sizeof(line), buf);
			}
			continue;
		}
		if (i)
			put(v, line, sizeof(line), " ");
		cell(v, c, g, buf, sizeof(buf));
		put(v, line, sizeof(line), buf);
	}
	fprintf(f, "%s\n", line);
}

void td_print_rows(FILE *f, const struct td_view *v, const struct td_agg *a,
		   const char *prefix, bool total)
{
	const struct td_group **rows;
	size_t n;

	rows = td_view_sort(v, a, &n);
	for (size_t i = 0; rows && i < n; i++)
		print_row(f, v, rows[i], prefix, false);
	free(rows);
	if (total)
		print_row(f, v, &a->total, prefix, true);
}

/* ---- CSV and JSON ----------------------------------------------------- */

static void csv_str(FILE *f, const char *s)
{
	csv_quote(f, s, SIZE_MAX);
}

void td_print_csv_header(FILE *f, const struct td_view *v, bool with_time)
{
	fprintf(f, "type%s", with_time ? ",time_s" : "");
	for (int i = 0; i < v->nr_cols; i++) {
		fprintf(f, ",%s", v->col[i].name);
		if (v->col[i].kind == TD_COL_RUNTIME)
			fprintf(f, ",read_errors");
		if (v->col[i].kind == TD_COL_CGROUP)
			fprintf(f, ",cgroup");
	}
	fputc('\n', f);
}

static void csv_row(FILE *f, const struct td_view *v, const struct td_group *g,
		    const char *time_s, bool is_total)
{
	char t[TD_TEXT_SIZE(TOPDOWN_COMM_LEN)];
	const char *path;
	bool valid;
	double x;

	fprintf(f, "%s", is_total ? "total" : "group");
	if (time_s)
		fprintf(f, ",%s", time_s);
	for (int i = 0; i < v->nr_cols; i++) {
		const struct td_col *c = &v->col[i];

		fputc(',', f);
		if (is_total && i < v->nr_keys) {
			if (c->kind == TD_COL_CGROUP)
				fputc(',', f);
			continue;
		}
		switch (c->kind) {
		case TD_COL_PID:
			fprintf(f, "%u", g->pid);
			break;
		case TD_COL_TID:
			fprintf(f, "%u", g->tid);
			break;
		case TD_COL_COMM:
			td_text(t, g->comm, TOPDOWN_COMM_LEN, NULL);
			csv_str(f, t);
			break;
		case TD_COL_CGROUP:
			fprintf(f, "%llu,", (unsigned long long)g->cgroup_id);
			path = v->cgroup_paths ? td_cgroup_path(g->cgroup_id) :
			       NULL;
			if (path)
				csv_str(f, path);
			break;
		case TD_COL_CPU:
			fprintf(f, "%u", g->cpu);
			break;
		case TD_COL_SLICES:
			fprintf(f, "%llu", (unsigned long long)g->slices);
			break;
		case TD_COL_RUNTIME:
			fprintf(f, "%llu,%llu", (unsigned long long)g->runtime_ns,
				(unsigned long long)g->read_errors);
			break;
		case TD_COL_EVENT:
			fprintf(f, "%llu", (unsigned long long)g->counts[c->idx]);
			break;
		case TD_COL_METRIC:
			x = metric_value(v, g, c->idx, &valid);
			if (valid)
				fprintf(f, "%.6f", x);
			break;
		}
	}
	fputc('\n', f);
}

void td_print_csv(FILE *f, const struct td_view *v, const struct td_agg *a,
		  const char *time_s)
{
	const struct td_group **rows;
	size_t n;

	rows = td_view_sort(v, a, &n);
	for (size_t i = 0; rows && i < n; i++)
		csv_row(f, v, rows[i], time_s, false);
	free(rows);
	csv_row(f, v, &a->total, time_s, true);
}

static void json_group(json_writer_t *w, const struct td_view *v,
		       const struct td_group *g, bool is_total)
{
	char t[TD_TEXT_SIZE(TOPDOWN_COMM_LEN)];
	struct td_metrics m = { 0 };
	const char *path;

	jsonw_start_object(w);
	for (int i = 0; !is_total && i < v->nr_keys; i++) {
		const struct td_col *c = &v->col[i];

		switch (c->kind) {
		case TD_COL_PID:
			jsonw_uint_field(w, "pid", g->pid);
			break;
		case TD_COL_TID:
			jsonw_uint_field(w, "tid", g->tid);
			break;
		case TD_COL_COMM:
			td_text(t, g->comm, TOPDOWN_COMM_LEN, NULL);
			jsonw_string_field(w, "comm", t);
			break;
		case TD_COL_CGROUP:
			jsonw_uint_field(w, "cgroup_id", g->cgroup_id);
			path = v->cgroup_paths ?
			       td_cgroup_path(g->cgroup_id) : NULL;
			if (path)
				jsonw_string_field(w, "cgroup", path);
			else
				jsonw_null_field(w, "cgroup");
			break;
		default:
			jsonw_uint_field(w, "cpu", g->cpu);
			break;
		}
	}
	jsonw_uint_field(w, "slices", g->slices);
	jsonw_uint_field(w, "runtime_ns", g->runtime_ns);
	jsonw_uint_field(w, "read_errors", g->read_errors);
	jsonw_name(w, "counts");
	jsonw_start_object(w);
	for (uint32_t i = 0; i < v->cfg->nr_events; i++)
		jsonw_uint_field(w, v->cfg->events[i].name, g->counts[i]);
	jsonw_end_object(w);
	if (v->dec)
		td_decode(v->dec, g->counts, &m);
	jsonw_name(w, "metrics");
	jsonw_start_object(w);
	for (int i = 0; i < m.n; i++) {
		if (m.m[i].valid)
			jsonw_float_field(w, m.m[i].name, m.m[i].value);
		else
			jsonw_null_field(w, m.m[i].name);
	}
	jsonw_end_object(w);
	jsonw_end_object(w);
}

void td_print_json(json_writer_t *w, const struct td_view *v,
		   const struct td_agg *a)
{
	const struct td_group **rows;
	size_t n;

	rows = td_view_sort(v, a, &n);
	jsonw_name(w, "rows");
	jsonw_start_array(w);
	for (size_t i = 0; rows && i < n; i++)
		json_group(w, v, rows[i], false);
	jsonw_end_array(w);
	free(rows);
	jsonw_name(w, "total");
	json_group(w, v, &a->total, true);
}
