// SPDX-License-Identifier: GPL-2.0
/*
 * The trace's counter tracks (export/trace.h): per thread, counter
 * events of IPC and the TopDown fractions once per interval, when a
 * value moved, or at every slice; with rotated groups, per interval the
 * groups' coverage and the series' errors (report's estimator). The
 * threads' table is here too: its keys come from the records, so it is
 * a keyed hash (base/hash.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "export/trace_priv.h"

static size_t tr_slot(const struct tr_threads *h, uint64_t key)
{
	size_t i = td_hash2(key, 0) & (h->nslots - 1);

	while (h->slot[i] && h->t[h->slot[i] - 1].key != key)
		i = (i + 1) & (h->nslots - 1);
	return i;
}

struct tr_thread *tr_thread(struct tr_threads *h, uint64_t key)
{
	size_t i;

	if ((h->n + 1) * 2 > h->nslots) {
		size_t ns = h->nslots ? h->nslots * 2 : 1024;
		uint32_t *slot = calloc(ns, sizeof(*slot));

		if (!slot || ns > UINT32_MAX) {
			free(slot);
			h->oom = true;
			return NULL;
		}
		free(h->slot);
		h->slot = slot;
		h->nslots = ns;
		for (size_t k = 0; k < h->n; k++)
			h->slot[tr_slot(h, h->t[k].key)] = k + 1;
	}
	i = tr_slot(h, key);
	if (h->slot[i])
		return &h->t[h->slot[i] - 1];
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 1024;
		struct tr_thread *nt = realloc(h->t, cap * sizeof(*nt));

		if (!nt) {
			h->oom = true;
			return NULL;
		}
		h->t = nt;
		h->cap = cap;
	}
	memset(&h->t[h->n], 0, sizeof(h->t[h->n]));
	h->t[h->n].key = key;
	h->slot[i] = ++h->n;
	return &h->t[h->n - 1];
}

const struct tr_thread *tr_find(const struct tr_threads *h, uint64_t key)
{
	size_t i;

	if (!h->nslots)
		return NULL;
	i = tr_slot(h, key);
	return h->slot[i] ? &h->t[h->slot[i] - 1] : NULL;
}

void tr_threads_free(struct tr_threads *h)
{
	free(h->t);
	free(h->slot);
}

/* The counter series: IPC and the TopDown Level 1 fractions. */
static const char *const series_names[TR_SERIES] = {
	"ipc", "retiring", "bad_speculation", "frontend_bound",
	"backend_bound",
};

/* The series of a metric (0: IPC, 1-4: the fractions), or -1. */
static int series_of(const char *name)
{
	for (int i = 0; i < TR_SERIES; i++)
		if (!strcmp(name, series_names[i]))
			return i;
	return -1;
}

int tr_counters_init(struct tr_out *o, const struct td_trace_src *s,
		     const struct td_trace_opts *opt)
{
	o->gd = &s->vc->gd;
	for (int k = 0; k < TR_SERIES; k++) {
		int g, idx;

		o->series_group[k] = td_gdecoder_find(o->gd, series_names[k],
						      &g, &idx) ? g : -1;
		o->series_index[k] = o->series_group[k] < 0 ? -1 : idx;
	}
	if (opt->counters != TD_TRACE_CNT_INTERVAL)
		return 0;
	td_agg_init(&o->est, TD_BY_TASK);
	if (td_agg_groups(&o->est, s->cfg))
		return -1;
	o->est_on = true;
	for (int g = 0; g < o->gd->nr_groups; g++) {
		o->estd.dec[g] = &o->gd->g[g].dec;
		td_est_decoder_fn(&o->est_fn[g], &o->estd, g);
	}
	return 0;
}

/* Rotated groups: the series whose home is group g (a mask). */
unsigned int tr_group_series(const struct tr_out *o, uint32_t g)
{
	unsigned int mask = 0;

	for (int k = 0; k < TR_SERIES; k++)
		if (o->series_group[k] == (int)g)
			mask |= 1u << k;
	return mask;
}

/* A counter event of thread tgid/tid at ns, named "tid N" and the rest
 * of its name (with the closing quote, and more fields), up to its args.
 */
static void put_counter_head(struct tr_out *o, uint32_t tgid, uint32_t tid,
			     uint64_t ns, const char *name_rest)
{
	struct td_buf *b = &o->b;

	put_str(b, ",\n{\"ph\":\"C\",\"pid\":");
	td_buf_u64(b, tgid, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, tid, 0);
	put_str(b, ",\"ts\":");
	put_us(o, ns);
	put_str(b, ",\"name\":\"tid ");
	td_buf_u64(b, tid, 0);
	put_str(b, name_rest);
	put_str(b, ",\"args\":{");
}

/* One series "name":v of a counter event, after the event's head (the
 * first: *any false) or a comma.
 */
static void put_series(struct tr_out *o, uint32_t tgid, uint32_t tid,
		       uint64_t ns, const char *name_rest, bool *any,
		       const char *name, double v)
{
	struct td_buf *b = &o->b;

	if (!*any)
		put_counter_head(o, tgid, tid, ns, name_rest);
	else
		td_buf_char(b, ',');
	*any = true;
	td_buf_char(b, '"');
	put_str(b, name);
	put_str(b, "\":");
	put_num(b, v);
}

/* A counter event of thread tgid/tid at ns: the series of mask m has. */
static void put_counter(struct tr_out *o, uint32_t tgid, uint32_t tid,
			uint64_t ns, const struct td_metrics *m,
			unsigned int mask)
{
	struct td_buf *b = &o->b;
	bool any = false;

	for (int i = 0; i < m->n; i++) {
		int k = series_of(m->m[i].name);

		if (!m->m[i].valid || !isfinite(m->m[i].value) || k < 0 ||
		    !(mask & 1u << k))
			continue;
		put_series(o, tgid, tid, ns, "\"", &any, m->m[i].name,
			   m->m[i].value);
	}
	if (any) {
		put_str(b, "}}");
		o->counters++;
	}
}

/* --counters change: did a series of m (of those in mask: with rotated
 * groups, the series of the group that measured the slice) move by more
 * than threshold (absolute for the fractions, relative for IPC) since
 * t's last event, or appear or go? Then t remembers m's values.
 */
static bool changed(struct tr_thread *t, const struct td_metrics *m,
		    double threshold, unsigned int mask)
{
	double v[TR_SERIES];
	unsigned int has = 0;
	bool moved = false;

	for (int i = 0; i < m->n; i++) {
		int k = series_of(m->m[i].name);

		if (k < 0 || !(mask & 1u << k) || !m->m[i].valid ||
		    !isfinite(m->m[i].value))
			continue;
		v[k] = m->m[i].value;
		has |= 1u << k;
		if (!(t->written & 1u << k))
			continue;
		if (fabs(v[k] - t->last[k]) >
		    (k ? threshold : threshold * fabs(t->last[k])))
			moved = true;
	}
	if (!moved && has == (t->written & mask))
		return false;
	for (int k = 0; k < TR_SERIES; k++)
		if (has & 1u << k)
			t->last[k] = v[k];
	t->written = (t->written & ~mask) | has;
	return true;
}

static int by_start(const void *a, const void *b)
{
	const struct tr_cslice *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * "tid N error": one standard error of each series of all (the values
 * t's interval wrote) whose estimate from the interval's clusters is
 * known, 0 where its group measured the whole interval; none for a
 * series with too few clusters (unknown, never 0). The estimator is
 * report's (td_est_metrics() on the interval's aggregation, o->est).
 */
static void put_errors(struct tr_out *o, const struct tr_thread *t,
		       uint64_t ns, const struct td_metrics *all)
{
	struct td_estimate est[TOPDOWN_MAX_GROUPS][TD_EST_MAX_METRICS];
	bool done[TOPDOWN_MAX_GROUPS] = { false };
	uint32_t tgid = (uint32_t)(t->key >> 32), tid = (uint32_t)t->key;
	struct topdown_record key = { .pid = tid, .tgid = tgid };
	const struct td_bucket *row;
	struct td_buf *b = &o->b;
	bool any = false;

	if (!o->est_on || t->interval != o->est_interval)
		return;
	row = td_agg_find(&o->est, &key);
	if (!row || row->pid != tgid)
		return;
	for (int i = 0; i < all->n; i++) {
		int k = series_of(all->m[i].name), g, x;
		const struct td_estimate *e;

		if (k < 0 || !all->m[i].valid || !isfinite(all->m[i].value))
			continue;
		g = o->series_group[k];
		x = o->series_index[k];
		if (g < 0 || x < 0 || x >= o->est_fn[g].nr)
			continue;
		if (!done[g]) {
			td_est_metrics(&o->est, row, g, &o->est_fn[g], est[g]);
			done[g] = true;
		}
		e = &est[g][x];
		if (e->kind == TD_EST_UNKNOWN || !isfinite(e->error))
			continue;
		put_series(o, tgid, tid, ns, " error\",\"cat\":\"error\"", &any,
			   all->m[i].name, e->kind == TD_EST_EXACT ? 0 : e->error);
	}
	if (any) {
		put_str(b, "}}");
		o->counters++;
	}
}

/*
 * Rotated groups, --counters interval: each series of t's interval from
 * the slices of its home group in the interval (the ratio of that group's
 * summed counts, as report computes a metric; left out where the group
 * measured none of them), then "tid N coverage": the share of the
 * thread's time in the interval that each group measured, and "tid N
 * error" (put_errors()).
 */
static void flush_groups(struct tr_out *o, struct tr_thread *t, uint64_t ns)
{
	const struct td_gdecoder *gd = o->gd;
	struct td_buf *b = &o->b;
	struct td_metrics all = { 0 }, m;
	uint32_t tid = (uint32_t)t->key;

	for (int g = 0; g < gd->nr_groups; g++) {
		unsigned int mask = tr_group_series(o, (uint32_t)g);

		if (!t->gtime[g] || !mask)
			continue;
		group_decode(gd, (uint32_t)g, t->gsum[g], &m);
		for (int i = 0; i < m.n && all.n < TD_MAX_METRICS; i++) {
			int k = series_of(m.m[i].name);

			if (k >= 0 && (mask & 1u << k))
				all.m[all.n++] = m.m[i];
		}
	}
	put_counter(o, (uint32_t)(t->key >> 32), tid, ns, &all, TR_ALL_SERIES);
	if (t->time) {
		put_counter_head(o, (uint32_t)(t->key >> 32), tid, ns,
				 " coverage\",\"cat\":\"coverage\"");
		for (int g = 0; g < gd->nr_groups; g++) {
			if (g)
				td_buf_char(b, ',');
			put_jstr(b, gd->g[g].name, sizeof(gd->g[g].name));
			td_buf_char(b, ':');
			put_num(b, (double)t->gtime[g] / (double)t->time);
		}
		put_str(b, "}}");
		o->counters++;
	}
	put_errors(o, t, ns, &all);
	memset(t->gsum, 0, sizeof(t->gsum));
	memset(t->gtime, 0, sizeof(t->gtime));
	t->time = 0;
}

/* --counters interval: t's interval as one event at its start. */
static void flush_interval(struct tr_out *o, const struct td_decoder *dec,
			   struct tr_thread *t, uint64_t interval_ns)
{
	struct td_metrics m;

	if (!t->in_interval)
		return;
	if (o->gd) {
		flush_groups(o, t, o->base + t->interval * interval_ns);
	} else {
		td_decode(dec, t->sum, &m);
		put_counter(o, (uint32_t)(t->key >> 32), (uint32_t)t->key,
			    o->base + t->interval * interval_ns, &m,
			    TR_ALL_SERIES);
		memset(t->sum, 0, sizeof(t->sum));
	}
	t->in_interval = false;
}

/*
 * Rotated groups, --counters interval: the interval of o->est ends.
 * Every thread with slices in it has a row there: their counter events,
 * then the next interval starts empty.
 */
static void flush_est(struct tr_out *o, const struct td_decoder *dec,
		      struct tr_threads *th, uint64_t interval_ns)
{
	td_agg_finish(&o->est);
	for (size_t i = 0; i < o->est.n; i++) {
		const struct td_bucket *row = &o->est.bucket[i];
		const struct tr_thread *f =
			tr_find(th, (uint64_t)row->pid << 32 | row->tid);
		struct tr_thread *t = f ? &th->t[f - th->t] : NULL;

		if (t && t->in_interval && t->interval == o->est_interval)
			flush_interval(o, dec, t, interval_ns);
	}
	td_agg_clear(&o->est);
}

/* The counter tracks of the slices cs[0..n), in time order. */
void tr_put_counters(struct tr_out *o, const struct td_trace_src *s,
		     const struct td_decoder *dec, struct tr_threads *th,
		     struct tr_cslice *cs, size_t n,
		     const struct td_trace_opts *opt)
{
	uint64_t cnt[TOPDOWN_MAX_EVENTS];
	struct topdown_record tmp;
	struct td_metrics m;
	unsigned int mask;
	int g;

	qsort(cs, n, sizeof(*cs), by_start);
	for (size_t i = 0; i < n; i++) {
		const struct topdown_record *r = tr_rec(s, cs[i].index, &tmp);
		struct tr_thread *t = NULL;
		uint64_t k;

		if (cs[i].track) {
			t = tr_thread(th, (uint64_t)r->tgid << 32 | r->pid);
			if (!t)
				return;	/* out of memory: th->oom says so */
		}
		g = o->gd ? measured_by(s, r) : -1;
		if (opt->counters == TD_TRACE_CNT_INTERVAL) {
			k = (cs[i].start - o->base) / opt->interval_ns;
			if (o->est_on) {
				if (o->est.n && k != o->est_interval)
					flush_est(o, dec, th, opt->interval_ns);
				o->est_interval = k;
				if (!td_agg_add(&o->est, r)) {
					th->oom = true;
					return;
				}
			}
			if (!cs[i].track)
				continue;
			if (t->in_interval && t->interval != k)
				flush_interval(o, dec, t, opt->interval_ns);
			t->in_interval = true;
			t->interval = k;
			if (!o->gd) {
				for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
					t->sum[e] += r->delta[e];
				continue;
			}
			t->time += r->time_ns - cs[i].start;
			if (g < 0)
				continue;
			t->gtime[g] += r->time_ns - cs[i].start;
			for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
				t->gsum[g][e] += r->delta[e];
			continue;
		}
		for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
			cnt[e] = r->delta[e];
		if (o->gd) {
			/* the series of the group that measured it */
			mask = g < 0 ? 0 : tr_group_series(o, (uint32_t)g);
			if (!mask)
				continue;
			group_decode(o->gd, (uint32_t)g, cnt, &m);
		} else {
			mask = TR_ALL_SERIES;
			td_decode(dec, cnt, &m);
		}
		if (opt->counters == TD_TRACE_CNT_SLICE ||
		    changed(t, &m, opt->threshold, mask))
			put_counter(o, r->tgid, r->pid, cs[i].start, &m, mask);
	}
	if (o->est_on && o->est.n)
		flush_est(o, dec, th, opt->interval_ns);
	for (size_t k = 0; opt->counters == TD_TRACE_CNT_INTERVAL &&
	     k < th->n; k++)
		flush_interval(o, dec, &th->t[k], opt->interval_ns);
}
