/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export/trace_priv.h: what the trace writer's files share (trace.c: the
 * slices, metadata and the size's estimate; trace_counters.c: the
 * threads' counter tracks). export/'s own, never included outside it.
 */
#ifndef TDCTL_EXPORT_TRACE_PRIV_H
#define TDCTL_EXPORT_TRACE_PRIV_H

#include <math.h>
#include <string.h>

#include "export/trace.h"
#include "agg/estimate.h"
#include "output/fmt.h"
#include "output/json_writer.h"

#define TR_CPU_PID	(1u << 22)	/* PID_MAX_LIMIT: above any real pid */

static inline const struct topdown_record *
tr_rec(const struct td_trace_src *s, uint64_t i, struct topdown_record *tmp)
{
	if (s->recs)
		return &s->recs[i];
	td_file_record(s->f, i, tmp);
	return tmp;
}

/* The counter series: IPC and the TopDown Level 1 fractions. */
#define TR_SERIES	5
#define TR_ALL_SERIES	((1u << TR_SERIES) - 1)

/*
 * (tgid, tid) -> the last comm seen: the metadata events at the end, in
 * the order the threads were first seen. The keys come from the file: a
 * keyed hash (base/hash.h) over an index of the entries.
 */

struct tr_thread {
	uint64_t key;		/* tgid << 32 | tid */
	char comm[TOPDOWN_COMM_LEN];
	/* its counter track: the values last written (--counters change),
	 * the counts of its interval (--counters interval)
	 */
	double last[TR_SERIES];
	unsigned int written;	/* bit i: last[i] was written */
	bool in_interval;
	uint64_t interval;	/* its index: (start - base) / interval_ns */
	uint64_t sum[TOPDOWN_MAX_EVENTS];
	/* rotated groups: per group, its slices' summed deltas and time in
	 * the interval; the thread's time in it (every slice)
	 */
	uint64_t gsum[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
	uint64_t gtime[TOPDOWN_MAX_GROUPS];
	uint64_t time;
};

struct tr_threads {
	struct tr_thread *t;	/* in insertion order */
	size_t n, cap;
	uint32_t *slot;		/* index + 1 into t, 0: empty */
	size_t nslots;		/* a power of two */
	bool oom;
};

/* A slice whose thread has a counter track (or, for the estimator's
 * clusters, any slice shown: not track): its record and start.
 */
struct tr_cslice {
	uint64_t start;
	uint64_t index;
	bool track;
};

struct tr_out {
	struct td_buf b;
	uint64_t base;			/* ns of ts 0 */
	const char *version;		/* the generator's */
	char ev_json[TOPDOWN_MAX_POOL][6 * TOPDOWN_NAME_LEN + 4];
	int ev_len[TOPDOWN_MAX_POOL];
	/* rotated groups: the home group of each counter series (-1: none
	 * computes it), the decoders (NULL: raw counts only)
	 */
	const struct td_gdecoder *gd;
	int series_group[TR_SERIES];
	/* ... and, with --counters interval, the series' index in their
	 * group's metrics, and the interval's slices by thread (est_interval)
	 * for the estimator's errors (agg/estimate.h, as report's)
	 */
	int series_index[TR_SERIES];
	bool est_on;
	uint64_t est_interval;
	struct td_agg est;
	struct td_est_decoders estd;
	struct td_est_fn est_fn[TOPDOWN_MAX_GROUPS];
	/* counts */
	uint64_t slices, short_skipped, filtered, outside, clipped, lost_events;
	uint64_t counters;
};

static inline void put_str(struct td_buf *b, const char *s)
{
	td_buf_mem(b, s, strlen(s));
}

/* A JSON string of s[0..n) (NUL-terminated earlier or not). */
static inline void put_jstr(struct td_buf *b, const char *s, size_t n)
{
	n = strnlen(s, n);
	td_buf_need(b, 6 * n + 2);
	b->p += jsonw_escape(b->p, s, n);
}

/* ns since base as microseconds with three decimals: exact. */
static inline void put_us(struct tr_out *o, uint64_t ns)
{
	uint64_t rel = ns - o->base;

	td_buf_u64(&o->b, rel / 1000, 0);
	td_buf_char(&o->b, '.');
	td_buf_digits(&o->b, rel % 1000, 3);
}

/* The shortest text that reads back as v, as every JSON number of
 * tdctl (tdctl(8), COLUMNS).
 */
static inline void put_num(struct td_buf *b, double v)
{
	td_buf_shortest(b, v);
}

/* Group g's metrics from its deltas (delta[j]: its j-th event). */
static inline void group_decode(const struct td_gdecoder *gd, uint32_t g,
				const uint64_t *delta, struct td_metrics *m)
{
	m->n = 0;
	if (gd && g < (uint32_t)gd->nr_groups)
		td_gdecode(gd, (int)g, delta, m);
}

/* Rotated groups: a slice's group if one measured it whole, else -1. */
static inline int measured_by(const struct td_trace_src *s,
			      const struct topdown_record *r)
{
	uint32_t g = TOPDOWN_REC_GROUP(r->flags);

	if (g >= s->cfg->nr_groups || g >= TOPDOWN_MAX_GROUPS ||
	    (r->flags & (TOPDOWN_REC_ROTATED | TOPDOWN_REC_ERROR_MASK)))
		return -1;
	return (int)g;
}

/* The thread table, (tgid, tid) -> tr_thread (trace_counters.c): the
 * thread of key, added if new (NULL and h->oom: out of memory); the
 * thread of key if there is one; the table's memory freed.
 */
struct tr_thread *tr_thread(struct tr_threads *h, uint64_t key);
const struct tr_thread *tr_find(const struct tr_threads *h, uint64_t key);
void tr_threads_free(struct tr_threads *h);

/* Rotated groups: o's series (their home groups, -1: none computes
 * it) and, with --counters interval, the estimator's aggregation. 0, or
 * -1: out of memory.
 */
int tr_counters_init(struct tr_out *o, const struct td_trace_src *s,
		     const struct td_trace_opts *opt);
/* Rotated groups: the series whose home is group g (a mask). */
unsigned int tr_group_series(const struct tr_out *o, uint32_t g);
/* The counter tracks of the slices cs[0..n) (sorted here by start);
 * out of memory: th->oom.
 */
void tr_put_counters(struct tr_out *o, const struct td_trace_src *s,
		     const struct td_decoder *dec, struct tr_threads *th,
		     struct tr_cslice *cs, size_t n,
		     const struct td_trace_opts *opt);

#endif
