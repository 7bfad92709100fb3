// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl timeline: the slices of a record file (or of a live collection of
 * --duration seconds) as Chrome Trace Event Format JSON, which
 * ui.perfetto.dev and chrome://tracing load.
 *
 * Tracks (Documentation/man/tdctl-timeline.rst is the reference):
 *   - one synthetic process "CPUs", pid TL_CPU_PID, whose thread
 *     TL_CPU_PID + 1 + n is "CPU n": an X (complete) event per slice
 *     on CPU n, named by the task's comm, with its pid/tid, cgroup, counts
 *     and metrics as args; lost records as instant (i) events there.
 *     Linux pids stay below 2^22 (PID_MAX_LIMIT), so these ids never
 *     collide with a real one.
 *   - per thread of each real process: counter (C) events named "tid N"
 *     with IPC and the TopDown fractions as their series (--counters):
 *     once per interval of the slices in it (the default), when a value
 *     moved by more than a threshold since the thread's last one, at
 *     every slice, or none. With rotated groups, per interval also
 *     "tid N coverage" (the share each group measured) and "tid N
 *     error" (each series' standard error, report's estimator).
 *   - process_name / thread_name metadata (M) for every pid and tid used.
 * Timestamps are microseconds since the earliest slice start (or the
 * recording's start), written with all nine decimal digits of the
 * nanosecond values as three decimals.
 *
 * Before anything is written, the trace's size is estimated from the
 * slices it will show (size_check()): above --max-size (by default what
 * a browser can open) a warning says so and what makes it smaller.
 *
 * The trace goes to standard output, and so through every command's -o
 * FILE (base/'s output helper, td_outfile_open(): a regular file by a
 * temporary file renamed over it at the end, so a failure never leaves a
 * half-written FILE behind; a device or FIFO in place).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hash.h"
#include "live/cgpath.h"
#include "live/collect.h"
#include "evset/evset.h"
#include "group/aggregate.h"
#include "output/fmt.h"
#include "output/text.h"
#include "cli/tdctl.h"
#include "file/lost.h"
#include "file/tdfile.h"

#define TL_CPU_PID	(1u << 22)	/* PID_MAX_LIMIT: above any real pid */

const struct td_opt timeline_opts[] = {
	{ "input", 'i', 'i', TD_ARG_FILE, "FILE",
	  "the record file (default " TD_DEFAULT_FILE "; - for stdin)", 0 },
	TD_OPT_FORCE,
	{ "min-slice", 0, 'm', TD_ARG_NUM, "US",
	  "leave out slices shorter than US microseconds", 0 },
	TD_OPT_FILTERS,
	{ "duration", 0, 'D', TD_ARG_NUM, "S",
	  "record every task live for S seconds instead of reading a file", 0 },
	{ "counters", 0, 'c', TD_ARG_WORD, "MODE",
	  "per-thread counter events: interval[:S] (one per S seconds, the "
	  "default, S 0.1), change[:T] (when a value moves by more than T, "
	  "0.05), slice or none", 0 },
	{ "max-size", 0, 'Z', TD_ARG_NUM, "SIZE",
	  "warn before writing a trace estimated above SIZE bytes (K, M, G: "
	  "binary; default 512M, what a browser opens; 0: never)", 0 },
	TD_OPT_OUT_JSON,
	TD_OPT_OUT_FILE,
	TD_OPT_HELP,
	TD_OPT_END,
};

static const char timeline_desc[] =
	"Write the slices of a record file of 'tdctl record' (or, with\n"
	"--duration, of every task for S seconds, read live from the rings)\n"
	"as a Chrome Trace Event Format JSON file for ui.perfetto.dev or\n"
	"chrome://tracing: a track per CPU with one slice per time slice,\n"
	"named by comm, with its pid, tid, cgroup, counts and TopDown\n"
	"fractions; per-thread counter tracks of IPC and the TopDown\n"
	"fractions (--counters: per interval, the default, when they\n"
	"change, at every slice, or none); lost records as instant events.\n";

/* Where the records come from: a checked record file or a live buffer. */
struct tl_src {
	/* The configuration as the records show it (td_view_cfg_init()):
	 * without rotation, cfg's events in delta order and dec; with
	 * rotated groups, the pool, its groups and their decoders (gd).
	 */
	const struct td_view_cfg *vc;
	const struct topdown_config *cfg;	/* &vc->cfg */
	uint32_t nr_cpus;
	const uint64_t *lost;		/* per CPU, NULL: none known */
	uint64_t start_ns, stop_ns, start_realtime_ns;
	bool cgroup_paths;		/* ids of this boot: show paths */
	bool all_tasks;			/* no selection: seq gaps are losses */
	const struct td_file *f;	/* NULL: recs */
	const struct topdown_record *recs;
	uint64_t n;
	const char *what;		/* the file name, or "live" */
};

static inline const struct topdown_record *
tl_rec(const struct tl_src *s, uint64_t i, struct topdown_record *tmp)
{
	if (s->recs)
		return &s->recs[i];
	td_file_record(s->f, i, tmp);
	return tmp;
}

/*
 * (tgid, tid) -> the last comm seen: the metadata events at the end, in
 * the order the threads were first seen. The keys come from the file: a
 * keyed hash (base/hash.h) over an index of the entries.
 */
/* The counter series: IPC and the TopDown Level 1 fractions. */
#define TL_SERIES	5

struct tl_thread {
	uint64_t key;		/* tgid << 32 | tid */
	char comm[TOPDOWN_COMM_LEN];
	/* its counter track: the values last written (--counters change),
	 * the counts of its interval (--counters interval)
	 */
	double last[TL_SERIES];
	unsigned int written;	/* bit i: last[i] was written */
	bool in_bucket;
	uint64_t bucket;
	uint64_t sum[TOPDOWN_MAX_EVENTS];
	/* rotated groups: per group, its slices' summed deltas and time in
	 * the interval; the thread's time in it (every slice)
	 */
	uint64_t gsum[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
	uint64_t gtime[TOPDOWN_MAX_GROUPS];
	uint64_t time;
};

struct tl_threads {
	struct tl_thread *t;	/* in insertion order */
	size_t n, cap;
	uint32_t *slot;		/* index + 1 into t, 0: empty */
	size_t nslots;		/* a power of two */
	bool oom;
};

static size_t tl_slot(const struct tl_threads *h, uint64_t key)
{
	size_t i = td_hash2(key, 0) & (h->nslots - 1);

	while (h->slot[i] && h->t[h->slot[i] - 1].key != key)
		i = (i + 1) & (h->nslots - 1);
	return i;
}

static struct tl_thread *tl_thread(struct tl_threads *h, uint64_t key)
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
			h->slot[tl_slot(h, h->t[k].key)] = k + 1;
	}
	i = tl_slot(h, key);
	if (h->slot[i])
		return &h->t[h->slot[i] - 1];
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 1024;
		struct tl_thread *nt = realloc(h->t, cap * sizeof(*nt));

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

static const struct tl_thread *tl_find(const struct tl_threads *h,
				       uint64_t key)
{
	size_t i;

	if (!h->nslots)
		return NULL;
	i = tl_slot(h, key);
	return h->slot[i] ? &h->t[h->slot[i] - 1] : NULL;
}

static void tl_threads_free(struct tl_threads *h)
{
	free(h->t);
	free(h->slot);
}

enum tl_counters {
	TL_CNT_CHANGE,		/* when a value moves by more than threshold */
	TL_CNT_SLICE,		/* at every slice */
	TL_CNT_INTERVAL,	/* once per thread per interval_ns */
	TL_CNT_NONE,
};

struct tl_opts {
	uint64_t min_ns;
	struct td_filter filter;	/* --from/--to too */
	enum tl_counters counters;
	double threshold;		/* TL_CNT_CHANGE */
	uint64_t interval_ns;		/* TL_CNT_INTERVAL */
	uint64_t max_size;		/* warn above it, 0: never */
};

/* Browsers read a JSON trace as one string: V8's hold 2^29 - 24
 * characters (tdctl-timeline(8), SIZE). The default of --max-size.
 */
#define TL_MAX_SIZE		(512ull << 20)
/* A counter event, for the estimate (SIZE: about 190 bytes). */
#define TL_COUNTER_BYTES	190
/* Slices formatted to measure their mean size. */
#define TL_SAMPLE		1024

/* A slice whose thread has a counter track (or, for the estimator's
 * clusters, any slice shown: not track): its record and start.
 */
struct tl_cslice {
	uint64_t start;
	uint64_t index;
	bool track;
};

struct tl_out {
	struct td_buf b;
	uint64_t base;			/* ns of ts 0 */
	char ev_json[TOPDOWN_MAX_POOL][6 * TOPDOWN_NAME_LEN + 4];
	int ev_len[TOPDOWN_MAX_POOL];
	/* rotated groups: the home group of each counter series (-1: none
	 * computes it), the decoders (NULL: raw counts only)
	 */
	const struct td_gdecoder *gd;
	int series_group[TL_SERIES];
	/* ... and, with --counters interval, the series' index in their
	 * group's metrics, and the interval's slices by thread (est_bucket)
	 * for the estimator's errors (group/estimate.h, as report's)
	 */
	int series_index[TL_SERIES];
	bool est_on;
	uint64_t est_bucket;
	struct td_agg est;
	struct td_est_decoders estd;
	struct td_est_fn est_fn[TOPDOWN_MAX_GROUPS];
	/* counts */
	uint64_t slices, short_skipped, outside, clipped, lost_events;
	uint64_t counters;
};

static void put_str(struct td_buf *b, const char *s)
{
	td_buf_mem(b, s, strlen(s));
}

/* A JSON string of s[0..n) (NUL-terminated earlier or not). */
static void put_jstr(struct td_buf *b, const char *s, size_t n)
{
	n = strnlen(s, n);
	td_buf_need(b, 6 * n + 2);
	b->p += jsonw_escape(b->p, s, n);
}

/* A comm as a JSON string of its text (output/text.h). */
static void put_jcomm(struct td_buf *b, const char *comm)
{
	char t[TD_TEXT_SIZE(TOPDOWN_COMM_LEN)];

	put_jstr(b, t, td_text(t, comm, TOPDOWN_COMM_LEN, NULL));
}

/* ns since base as microseconds with three decimals: exact. */
static void put_us(struct tl_out *o, uint64_t ns)
{
	uint64_t rel = ns - o->base;

	td_buf_u64(&o->b, rel / 1000, 0);
	td_buf_char(&o->b, '.');
	td_buf_digits(&o->b, rel % 1000, 3);
}

static void put_num(struct td_buf *b, double v)
{
	if (fabs(v) < 1e9)
		td_buf_fixed(b, v, 6, 0);
	else
		td_buf_g17(b, v);
}

/* The counter series: IPC and the TopDown Level 1 fractions. */
static const char *const series_names[TL_SERIES] = {
	"ipc", "retiring", "bad_speculation", "frontend_bound",
	"backend_bound",
};

/* The series of a metric (0: IPC, 1-4: the fractions), or -1. */
static int series_of(const char *name)
{
	for (int i = 0; i < TL_SERIES; i++)
		if (!strcmp(name, series_names[i]))
			return i;
	return -1;
}

static void put_lost(struct tl_out *o, uint32_t cpu, uint64_t ns,
		     uint64_t count, const char *why)
{
	struct td_buf *b = &o->b;

	put_str(b, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":");
	td_buf_u64(b, TL_CPU_PID, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, TL_CPU_PID + 1 + (uint64_t)cpu, 0);
	put_str(b, ",\"ts\":");
	put_us(o, ns);
	put_str(b, ",\"name\":\"lost ");
	td_buf_u64(b, count, 0);
	put_str(b, count == 1 ? " record" : " records");
	put_str(b, "\",\"cat\":\"lost\",\"args\":{\"lost\":");
	td_buf_u64(b, count, 0);
	put_str(b, ",\"why\":\"");
	put_str(b, why);
	put_str(b, "\"}}");
	o->lost_events++;
}

/* ,"metrics":{...}: the valid, finite metrics of m. */
static void put_metrics(struct td_buf *b, const struct td_metrics *m)
{
	bool any = false;

	put_str(b, ",\"metrics\":{");
	for (int i = 0; i < m->n; i++) {
		if (!m->m[i].valid || !isfinite(m->m[i].value))
			continue;
		if (any)
			td_buf_char(b, ',');
		any = true;
		td_buf_char(b, '"');
		put_str(b, m->m[i].name);
		put_str(b, "\":");
		put_num(b, m->m[i].value);
	}
	td_buf_char(b, '}');
}

/*
 * ,"counts":{...}: delta[j] for j < n under the name of pool entry
 * pool[j] (pool NULL: entry j, a configuration without rotation), null
 * where its error bit says it could not be read.
 */
static void put_counts(struct tl_out *o, const struct topdown_record *r,
		       const __u8 *pool, uint32_t n)
{
	struct td_buf *b = &o->b;

	put_str(b, ",\"counts\":{");
	for (uint32_t j = 0; j < n; j++) {
		uint32_t p = pool ? pool[j] : j;

		if (p >= TOPDOWN_MAX_POOL)
			continue;	/* the file parser refuses these */
		if (j)
			td_buf_char(b, ',');
		td_buf_mem(b, o->ev_json[p], (size_t)o->ev_len[p]);
		td_buf_char(b, ':');
		if (r->flags & (1u << j))
			put_str(b, "null");	/* unreadable */
		else
			td_buf_u64(b, r->delta[j], 0);
	}
	td_buf_char(b, '}');
}

/* Group g's metrics from its deltas (delta[j]: its j-th event). */
static void group_decode(const struct td_gdecoder *gd, uint32_t g,
			 const uint64_t *delta, struct td_metrics *m)
{
	m->n = 0;
	if (gd && g < (uint32_t)gd->nr_groups)
		td_gdecode(gd, (int)g, delta, m);
}

/*
 * Rotated groups: the slice's group (TOPDOWN_REC_GROUP(); for a rotated
 * slice, which no group measured, the group its CPU moved to), its name,
 * the counts of that group's events by pool name (null: unreadable) and
 * the metrics that group computes from them alone; none for a rotated
 * slice, nor for one with an unreadable counter.
 */
static void put_group_slice(struct tl_out *o, const struct tl_src *s,
			    const struct topdown_record *r)
{
	struct td_buf *b = &o->b;
	uint32_t g = TOPDOWN_REC_GROUP(r->flags);
	const struct topdown_group *grp;
	uint64_t delta[TOPDOWN_MAX_EVENTS];
	struct td_metrics m;

	if (g >= s->cfg->nr_groups || g >= TOPDOWN_MAX_GROUPS) {
		/* the file parser refuses these */
		put_str(b, ",\"group\":null,\"counts\":{}");
		return;
	}
	grp = &s->cfg->groups[g];
	put_str(b, ",\"group\":");
	td_buf_u64(b, g, 0);
	if (o->gd) {
		put_str(b, ",\"group_name\":");
		put_jstr(b, o->gd->g[g].name, sizeof(o->gd->g[g].name));
	}
	if (r->flags & TOPDOWN_REC_ROTATED) {
		put_str(b, ",\"rotated\":true,\"counts\":{}");
		return;
	}
	put_counts(o, r, grp->events,
		   grp->nr_events < TOPDOWN_MAX_EVENTS ? grp->nr_events :
		   TOPDOWN_MAX_EVENTS);
	if (!o->gd || (r->flags & TOPDOWN_REC_ERROR_MASK))
		return;
	for (int j = 0; j < TOPDOWN_MAX_EVENTS; j++)
		delta[j] = r->delta[j];
	group_decode(o->gd, g, delta, &m);
	put_metrics(b, &m);
}

/* One slice: its X event on the CPU track and its thread's C event. */
static void put_slice(struct tl_out *o, const struct tl_src *s,
		      const struct td_decoder *dec,
		      const struct topdown_record *r, uint64_t start)
{
	struct td_buf *b = &o->b;
	const char *cg = s->cgroup_paths && r->cgroup_id ?
			 td_cgroup_path(r->cgroup_id) : NULL;
	struct td_metrics m;

	put_str(b, ",\n{\"ph\":\"X\",\"pid\":");
	td_buf_u64(b, TL_CPU_PID, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, TL_CPU_PID + 1 + (uint64_t)r->cpu, 0);
	put_str(b, ",\"ts\":");
	put_us(o, start);
	put_str(b, ",\"dur\":");
	td_buf_u64(b, (r->time_ns - start) / 1000, 0);
	td_buf_char(b, '.');
	td_buf_digits(b, (r->time_ns - start) % 1000, 3);
	put_str(b, ",\"name\":");
	put_jcomm(b, r->comm);
	put_str(b, (r->flags & TOPDOWN_REC_IDLE) ? ",\"cat\":\"idle\"" :
		",\"cat\":\"task\"");
	put_str(b, ",\"args\":{\"pid\":");
	td_buf_u64(b, r->tgid, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, r->pid, 0);
	put_str(b, ",\"cgroup_id\":");
	td_buf_u64(b, r->cgroup_id, 0);
	if (cg) {
		put_str(b, ",\"cgroup\":");
		put_jstr(b, cg, strlen(cg));
	}
	if (r->flags & TOPDOWN_REC_PREEMPTED)
		put_str(b, ",\"preempted\":true");
	if (r->flags & TOPDOWN_REC_FIRST)
		put_str(b, ",\"first\":true");
	if (s->vc->rotated) {
		put_group_slice(o, s, r);
		put_str(b, "}}");
		o->slices++;
		return;
	}
	put_counts(o, r, NULL, s->cfg->nr_events);
	/* none if a counter was unreadable, as with rotated groups */
	if (dec && !(r->flags & TOPDOWN_REC_ERROR_MASK)) {
		uint64_t cnt[TOPDOWN_MAX_EVENTS];

		for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
			cnt[e] = r->delta[e];
		td_decode(dec, cnt, &m);
		put_metrics(b, &m);
	}
	put_str(b, "}}");
	o->slices++;
}

/* Does r's thread get a counter track? Not the idle task, nor a slice
 * with an unreadable counter. With rotated groups every slice of a
 * thread goes to put_counters(), which counts those that no group
 * measured in the thread's time only.
 */
static bool has_counters(const struct tl_src *s, const struct topdown_record *r)
{
	return r->pid && !(r->flags & TOPDOWN_REC_IDLE) &&
	       (s->vc->rotated || !(r->flags & TOPDOWN_REC_ERROR_MASK));
}

#define TL_ALL_SERIES	((1u << TL_SERIES) - 1)

/* Rotated groups: the series whose home is group g (a mask). */
static unsigned int group_series(const struct tl_out *o, uint32_t g)
{
	unsigned int mask = 0;

	for (int k = 0; k < TL_SERIES; k++)
		if (o->series_group[k] == (int)g)
			mask |= 1u << k;
	return mask;
}

/* A counter event of thread tgid/tid at ns, named "tid N" and the rest
 * of its name (with the closing quote, and more fields), up to its args.
 */
static void put_counter_head(struct tl_out *o, uint32_t tgid, uint32_t tid,
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
static void put_series(struct tl_out *o, uint32_t tgid, uint32_t tid,
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
static void put_counter(struct tl_out *o, uint32_t tgid, uint32_t tid,
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
static bool changed(struct tl_thread *t, const struct td_metrics *m,
		    double threshold, unsigned int mask)
{
	double v[TL_SERIES];
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
	for (int k = 0; k < TL_SERIES; k++)
		if (has & 1u << k)
			t->last[k] = v[k];
	t->written = (t->written & ~mask) | has;
	return true;
}

static int by_start(const void *a, const void *b)
{
	const struct tl_cslice *x = a, *y = b;

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
static void put_errors(struct tl_out *o, const struct tl_thread *t,
		       uint64_t ns, const struct td_metrics *all)
{
	struct td_estimate est[TOPDOWN_MAX_GROUPS][TD_EST_MAX_METRICS];
	bool done[TOPDOWN_MAX_GROUPS] = { false };
	uint32_t tgid = (uint32_t)(t->key >> 32), tid = (uint32_t)t->key;
	struct topdown_record key = { .pid = tid, .tgid = tgid };
	const struct td_group *row;
	struct td_buf *b = &o->b;
	bool any = false;

	if (!o->est_on || t->bucket != o->est_bucket)
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
static void flush_groups(struct tl_out *o, struct tl_thread *t, uint64_t ns)
{
	const struct td_gdecoder *gd = o->gd;
	struct td_buf *b = &o->b;
	struct td_metrics all = { 0 }, m;
	uint32_t tid = (uint32_t)t->key;

	for (int g = 0; g < gd->nr_groups; g++) {
		unsigned int mask = group_series(o, (uint32_t)g);

		if (!t->gtime[g] || !mask)
			continue;
		group_decode(gd, (uint32_t)g, t->gsum[g], &m);
		for (int i = 0; i < m.n && all.n < TD_MAX_METRICS; i++) {
			int k = series_of(m.m[i].name);

			if (k >= 0 && (mask & 1u << k))
				all.m[all.n++] = m.m[i];
		}
	}
	put_counter(o, (uint32_t)(t->key >> 32), tid, ns, &all, TL_ALL_SERIES);
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
static void flush_bucket(struct tl_out *o, const struct td_decoder *dec,
			 struct tl_thread *t, uint64_t interval_ns)
{
	struct td_metrics m;

	if (!t->in_bucket)
		return;
	if (o->gd) {
		flush_groups(o, t, o->base + t->bucket * interval_ns);
	} else {
		td_decode(dec, t->sum, &m);
		put_counter(o, (uint32_t)(t->key >> 32), (uint32_t)t->key,
			    o->base + t->bucket * interval_ns, &m,
			    TL_ALL_SERIES);
		memset(t->sum, 0, sizeof(t->sum));
	}
	t->in_bucket = false;
}

/* Rotated groups: a slice's group if one measured it whole, else -1. */
static int measured_by(const struct tl_src *s, const struct topdown_record *r)
{
	uint32_t g = TOPDOWN_REC_GROUP(r->flags);

	if (g >= s->cfg->nr_groups || g >= TOPDOWN_MAX_GROUPS ||
	    (r->flags & (TOPDOWN_REC_ROTATED | TOPDOWN_REC_ERROR_MASK)))
		return -1;
	return (int)g;
}

/*
 * Rotated groups, --counters interval: the interval of o->est ends.
 * Every thread with slices in it has a row there: their counter events,
 * then the next interval starts empty.
 */
static void flush_est(struct tl_out *o, const struct td_decoder *dec,
		      struct tl_threads *th, uint64_t interval_ns)
{
	td_agg_finish(&o->est);
	for (size_t i = 0; i < o->est.n; i++) {
		const struct td_group *row = &o->est.g[i];
		const struct tl_thread *f =
			tl_find(th, (uint64_t)row->pid << 32 | row->tid);
		struct tl_thread *t = f ? &th->t[f - th->t] : NULL;

		if (t && t->in_bucket && t->bucket == o->est_bucket)
			flush_bucket(o, dec, t, interval_ns);
	}
	td_agg_clear(&o->est);
}

/* The counter tracks of the slices cs[0..n), in time order. */
static void put_counters(struct tl_out *o, const struct tl_src *s,
			 const struct td_decoder *dec, struct tl_threads *th,
			 struct tl_cslice *cs, size_t n,
			 const struct tl_opts *opt)
{
	uint64_t cnt[TOPDOWN_MAX_EVENTS];
	struct topdown_record tmp;
	struct td_metrics m;
	unsigned int mask;
	int g;

	qsort(cs, n, sizeof(*cs), by_start);
	for (size_t i = 0; i < n; i++) {
		const struct topdown_record *r = tl_rec(s, cs[i].index, &tmp);
		struct tl_thread *t = NULL;
		uint64_t k;

		if (cs[i].track) {
			t = tl_thread(th, (uint64_t)r->tgid << 32 | r->pid);
			if (!t)
				return;	/* out of memory: th->oom says so */
		}
		g = o->gd ? measured_by(s, r) : -1;
		if (opt->counters == TL_CNT_INTERVAL) {
			k = (cs[i].start - o->base) / opt->interval_ns;
			if (o->est_on) {
				if (o->est.n && k != o->est_bucket)
					flush_est(o, dec, th, opt->interval_ns);
				o->est_bucket = k;
				if (!td_agg_add(&o->est, r)) {
					th->oom = true;
					return;
				}
			}
			if (!cs[i].track)
				continue;
			if (t->in_bucket && t->bucket != k)
				flush_bucket(o, dec, t, opt->interval_ns);
			t->in_bucket = true;
			t->bucket = k;
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
			mask = g < 0 ? 0 : group_series(o, (uint32_t)g);
			if (!mask)
				continue;
			group_decode(o->gd, (uint32_t)g, cnt, &m);
		} else {
			mask = TL_ALL_SERIES;
			td_decode(dec, cnt, &m);
		}
		if (opt->counters == TL_CNT_SLICE ||
		    changed(t, &m, opt->threshold, mask))
			put_counter(o, r->tgid, r->pid, cs[i].start, &m, mask);
	}
	if (o->est_on && o->est.n)
		flush_est(o, dec, th, opt->interval_ns);
	for (size_t k = 0; opt->counters == TL_CNT_INTERVAL && k < th->n; k++)
		flush_bucket(o, dec, &th->t[k], opt->interval_ns);
}

/* Metadata naming a track: comm is a task's comm, or "CPU n". */
static void put_meta(struct td_buf *b, const char *what, uint64_t pid,
		     uint64_t tid, const char *comm)
{
	put_str(b, ",\n{\"ph\":\"M\",\"pid\":");
	td_buf_u64(b, pid, 0);
	put_str(b, ",\"tid\":");
	td_buf_u64(b, tid, 0);
	put_str(b, ",\"name\":\"");
	put_str(b, what);
	put_str(b, "\",\"args\":{\"name\":");
	put_jcomm(b, comm);
	put_str(b, "}}");
}

/* Rotated groups: "rotate_ms" and "groups": [{"group": g, "name",
 * "id" (when the label decodes), "events": [pool names]}, ...].
 */
static void put_groups(struct tl_out *o, const struct tl_src *s)
{
	struct td_buf *b = &o->b;

	put_str(b, ",\"rotate_ms\":");
	td_buf_u64(b, s->cfg->rotate_ms, 0);
	put_str(b, ",\"groups\":[");
	for (uint32_t g = 0; g < s->cfg->nr_groups && g < TOPDOWN_MAX_GROUPS;
	     g++) {
		const struct topdown_group *grp = &s->cfg->groups[g];

		put_str(b, g ? ",{\"group\":" : "{\"group\":");
		td_buf_u64(b, g, 0);
		if (o->gd) {
			put_str(b, ",\"name\":");
			put_jstr(b, o->gd->g[g].name, sizeof(o->gd->g[g].name));
			put_str(b, ",\"id\":");
			put_jstr(b, o->gd->g[g].id, sizeof(o->gd->g[g].id));
		}
		put_str(b, ",\"events\":[");
		for (uint32_t j = 0; j < grp->nr_events &&
		     j < TOPDOWN_MAX_EVENTS; j++) {
			uint32_t p = grp->events[j];

			if (p >= TOPDOWN_MAX_POOL)
				continue;
			if (j)
				td_buf_char(b, ',');
			td_buf_mem(b, o->ev_json[p], (size_t)o->ev_len[p]);
		}
		put_str(b, "]}");
	}
	td_buf_char(b, ']');
}

static void put_other(struct tl_out *o, const struct tl_src *s,
		      const struct td_file_meta *m, uint64_t records)
{
	struct td_buf *b = &o->b;

	put_str(b, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tdctl timeline ");
	put_str(b, tdctl_version);
	put_str(b, "\",\"source\":");
	put_jstr(b, s->what, strlen(s->what));
	if (m) {
		put_str(b, ",\"host\":");
		put_jstr(b, m->host, sizeof(m->host));
		put_str(b, ",\"arch\":");
		put_jstr(b, m->arch, sizeof(m->arch));
		put_str(b, ",\"kernel\":");
		put_jstr(b, m->kernel, sizeof(m->kernel));
		put_str(b, ",\"cpu\":");
		put_jstr(b, m->cpu, sizeof(m->cpu));
	}
	put_str(b, ",\"label\":");
	put_jstr(b, s->cfg->label, sizeof(s->cfg->label));
	if (s->vc->rotated)
		put_groups(o, s);
	put_str(b, ",\"ts0_monotonic_ns\":\"");
	td_buf_u64(b, o->base, 0);
	put_str(b, "\",\"start_realtime_ns\":\"");
	td_buf_u64(b, s->start_realtime_ns, 0);
	put_str(b, "\",\"records\":\"");
	td_buf_u64(b, records, 0);
	put_str(b, "\"},\n\"traceEvents\":[\n");
}

/* A size in bytes as text: "1.4 GiB", "512 MiB", "900 bytes". */
static const char *size_text(char *buf, uint64_t v)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double x = (double)v;
	int u = -1;

	while (x >= 1024 && u < 3) {
		x /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, 32, "%llu bytes", (unsigned long long)v);
	else
		snprintf(buf, 32, x < 10 && x != (double)(uint64_t)x ?
			 "%.1f %s" : "%.0f %s", x, unit[u]);
	return buf;
}

/*
 * Before anything is written: the trace's size from the number of
 * slices it will show (shown, tracked of them with a counter track) and
 * the mean size of up to TL_SAMPLE of them, spread over the file,
 * formatted into o's buffer and dropped. --counters slice adds a counter
 * event per tracked slice; interval and change add fewer, not counted
 * (the estimate is then a floor). Above opt->max_size: a warning that
 * names what makes the trace smaller.
 */
static void size_check(struct tl_out *o, const struct tl_src *s,
		       const struct td_filter *filter,
		       const struct tl_opts *opt, uint64_t shown,
		       uint64_t tracked)
{
	const struct td_decoder *dec = s->vc->can_decode && !s->vc->rotated ?
				       &s->vc->dec : NULL;
	uint64_t step = shown / TL_SAMPLE + 1, k = 0, n = 0, bytes = 0;
	uint64_t last = 0, each, est, fit;
	struct topdown_record tmp;
	char a[32], b[32], c[48] = "";

	if (!opt->max_size || !shown)
		return;
	for (uint64_t i = 0; i < s->n && n < TL_SAMPLE; i++) {
		const struct topdown_record *r = tl_rec(s, i, &tmp);
		uint64_t start = r->duration_ns > r->time_ns ? 0 :
				 r->time_ns - r->duration_ns;
		char *p0 = o->b.p;

		if (r->cpu >= s->nr_cpus || !td_filter_match(filter, r) ||
		    r->duration_ns < opt->min_ns || k++ % step)
			continue;
		put_slice(o, s, dec, r, start);
		bytes += (uint64_t)(o->b.p - p0);
		o->b.p = p0;
		n++;
	}
	o->slices = 0;
	if (!n)
		return;
	each = (bytes + n - 1) / n;
	if (opt->counters == TL_CNT_SLICE && s->vc->can_decode)
		last = tracked * TL_COUNTER_BYTES;
	est = shown * each + last;
	if (est <= opt->max_size)
		return;
	fit = opt->max_size / (each + last / shown);
	if (last)
		snprintf(c, sizeof(c), " and %llu counter events",
			 (unsigned long long)tracked);
	p_warn("the trace will be about %s (%llu slices of about %llu bytes%s), more than --max-size (%s): browsers cannot open a JSON trace over about 512 MiB (tdctl-timeline(8), SIZE). About %llu slices fit: make it smaller with --from/--to, --min-slice, --pid, --tid, --cpu, --cgroup, --comm or --counters none",
	       size_text(a, est), (unsigned long long)shown,
	       (unsigned long long)each,
	       c,
	       size_text(b, opt->max_size), (unsigned long long)fit);
}

/* Write the whole trace into out. 0, or -1 after p_err(). */
static int write_trace(FILE *out, const struct tl_src *s,
		       const struct td_file_meta *meta,
		       const struct tl_opts *opt)
{
	const struct td_decoder *dec = &s->vc->dec;
	bool can_decode = s->vc->can_decode;
	uint64_t *last_end = calloc(s->nr_cpus + 1, sizeof(uint64_t));
	bool *used = calloc(s->nr_cpus + 1, sizeof(bool));
	struct td_gaps gaps = { 0 };
	struct tl_threads th = { 0 }, named = { 0 };
	struct tl_cslice *cs = NULL;
	size_t ncs = 0, cs_cap = 0;
	uint64_t shown = 0, tracked = 0;
	bool track;
	struct topdown_record tmp;
	struct td_filter filter;
	uint64_t from, to;
	struct tl_out *o = calloc(1, sizeof(*o));
	int ret = -1;

	if (!last_end || !used || !o ||
	    td_gaps_init(&gaps, s->nr_cpus, s->lost, s->all_tasks) ||
	    td_buf_init(&o->b, out)) {
		p_err("out of memory");
		goto out;
	}
	for (uint32_t e = 0; e < s->cfg->nr_events && e < TOPDOWN_MAX_POOL; e++) {
		const char *name = td_pool_event_c(s->cfg, e)->name;

		o->ev_len[e] = (int)jsonw_escape(o->ev_json[e], name,
						 strnlen(name, TOPDOWN_NAME_LEN));
	}
	if (s->vc->rotated && can_decode) {
		o->gd = &s->vc->gd;
		for (int k = 0; k < TL_SERIES; k++) {
			int g, idx;

			o->series_group[k] = td_gdecoder_find(o->gd,
							      series_names[k],
							      &g, &idx) ? g : -1;
			o->series_index[k] = o->series_group[k] < 0 ? -1 : idx;
		}
		if (opt->counters == TL_CNT_INTERVAL) {
			td_agg_init(&o->est, TD_BY_TASK);
			if (td_agg_groups(&o->est, s->cfg)) {
				p_err("out of memory");
				goto out;
			}
			o->est_on = true;
			for (int g = 0; g < o->gd->nr_groups; g++) {
				o->estd.dec[g] = &o->gd->g[g].dec;
				td_est_decoder_fn(&o->est_fn[g], &o->estd, g);
			}
		}
	}
	/* The filters, --from and --to in seconds into the recording. */
	filter = opt->filter;
	filter.base_ns = s->start_ns;
	td_filter_window(&filter, &from, &to);
	/* ts 0: the earliest slice start (a first slice can begin before
	 * the recording did), so that every ts is positive; the slices
	 * shown, for the size's estimate.
	 */
	o->base = s->start_ns;
	for (uint64_t i = 0; i < s->n; i++) {
		const struct topdown_record *r = tl_rec(s, i, &tmp);
		uint64_t st = r->duration_ns > r->time_ns ? 0 :
			      r->time_ns - r->duration_ns;

		if (st < o->base)
			o->base = st;
		if (r->cpu < s->nr_cpus && td_filter_match(&filter, r) &&
		    r->duration_ns >= opt->min_ns) {
			int g = o->gd ? measured_by(s, r) : 0;

			shown++;
			/* --counters slice: an event per slice of a
			 * thread (with rotation, measured by a group
			 * with a series)
			 */
			if (has_counters(s, r) && g >= 0 &&
			    (!o->gd || group_series(o, (uint32_t)g)))
				tracked++;
		}
	}
	size_check(o, s, &filter, opt, shown, tracked);
	put_other(o, s, meta, s->n);

	put_str(&o->b, "{\"ph\":\"M\",\"pid\":");
	td_buf_u64(&o->b, TL_CPU_PID, 0);
	put_str(&o->b, ",\"tid\":");
	td_buf_u64(&o->b, TL_CPU_PID, 0);
	put_str(&o->b, ",\"name\":\"process_name\",\"args\":{\"name\":\"CPUs\"}}");

	for (uint64_t i = 0; i < s->n && !th.oom; i++) {
		const struct topdown_record *r = tl_rec(s, i, &tmp);
		uint32_t c = r->cpu;
		uint64_t start = r->duration_ns > r->time_ns ? 0 :
				 r->time_ns - r->duration_ns, gap;

		if (!(i & 0xffff) && td_signal) {
			p_err("interrupted: no trace written");
			goto out;
		}

		if (c >= s->nr_cpus)
			continue;	/* the file parser refuses these */
		used[c] = true;
		/* Records lost in a gap of the CPU's sequence (file/lost.h). */
		gap = td_gaps_before(&gaps, r);
		if (gap && start >= from && start < to)
			put_lost(o, c, start, gap, "ring full");
		if (!td_filter_match(&filter, r)) {
			o->outside++;
			continue;
		}
		if (r->duration_ns < opt->min_ns) {
			o->short_skipped++;
			continue;
		}
		/* Slices of one CPU never overlap; a damaged file's would
		 * break the track's nesting, so they are cut.
		 */
		if (start < last_end[c]) {
			if (r->time_ns < last_end[c]) {
				o->clipped++;
				continue;
			}
			start = last_end[c];
		}
		last_end[c] = r->time_ns;
		put_slice(o, s, can_decode && !s->vc->rotated ? dec : NULL, r,
			  start);
		if (r->pid && !(r->flags & TOPDOWN_REC_IDLE)) {
			struct tl_thread *t =
				tl_thread(&th, (uint64_t)r->tgid << 32 | r->pid);

			if (t)
				memcpy(t->comm, r->comm, TOPDOWN_COMM_LEN);
		}
		/* its counter event, once every slice is known; with
		 * errors, every slice for the estimator's clusters
		 */
		track = can_decode && opt->counters != TL_CNT_NONE &&
			has_counters(s, r);
		if (track || o->est_on) {
			if (ncs == cs_cap) {
				size_t cap = cs_cap ? 2 * cs_cap : 4096;
				struct tl_cslice *n = realloc(cs, cap * sizeof(*n));

				if (!n) {
					th.oom = true;
					break;
				}
				cs = n;
				cs_cap = cap;
			}
			cs[ncs++] = (struct tl_cslice){ start, i, track };
		}
	}
	if (!th.oom && ncs)
		put_counters(o, s, dec, &th, cs, ncs, opt);
	if (th.oom) {
		p_err("out of memory");
		goto out;
	}
	/* What the trailer counts beyond the gaps: lost, at the end. */
	for (uint32_t c = 0; c < s->nr_cpus; c++)
		if (td_gaps_rest(&gaps, c)) {
			put_lost(o, c, s->stop_ns > o->base ? s->stop_ns : o->base,
				 td_gaps_rest(&gaps, c), "time unknown");
			used[c] = true;	/* its track needs its name */
		}
	for (uint32_t c = 0; c < s->nr_cpus; c++) {
		char name[24];

		if (!used[c])
			continue;
		snprintf(name, sizeof(name), "CPU %u", c);
		put_meta(&o->b, "thread_name", TL_CPU_PID, TL_CPU_PID + 1 + c,
			 name);
		put_str(&o->b, ",\n{\"ph\":\"M\",\"pid\":");
		td_buf_u64(&o->b, TL_CPU_PID, 0);
		put_str(&o->b, ",\"tid\":");
		td_buf_u64(&o->b, TL_CPU_PID + 1 + c, 0);
		put_str(&o->b, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":");
		td_buf_u64(&o->b, c, 0);
		put_str(&o->b, "}}");
	}
	/* A process is named after its main thread, else its first thread
	 * in the table.
	 */
	for (size_t k = 0; k < th.n; k++) {
		const struct tl_thread *t = &th.t[k];
		uint32_t tgid = (uint32_t)(t->key >> 32), tid = (uint32_t)t->key;
		const struct tl_thread *main_t;

		put_meta(&o->b, "thread_name", tgid, tid, t->comm);
		main_t = tl_find(&th, (uint64_t)tgid << 32 | tgid);
		if (main_t && main_t != t)
			continue;
		if (!main_t) {
			struct tl_thread *p = tl_thread(&named, tgid | 1ull << 63);

			if (!p || p->comm[0])
				continue;
			p->comm[0] = 1;
		}
		put_meta(&o->b, "process_name", tgid, tgid, t->comm);
	}
	if (named.oom) {
		p_err("out of memory");
		goto out;
	}
	put_str(&o->b, "\n]}\n");
	if (td_buf_close(&o->b)) {
		p_err("writing the trace: %s", strerror(errno));
		goto out_nobuf;
	}
	if (o->clipped)
		p_warn("%llu slices overlapped earlier ones of their CPU and were left out",
		       (unsigned long long)o->clipped);
	p_info("%llu slices, %llu counter events, %llu lost-record events; %llu outside the window, %llu shorter than --min-slice",
	       (unsigned long long)o->slices,
	       (unsigned long long)o->counters,
	       (unsigned long long)o->lost_events,
	       (unsigned long long)o->outside,
	       (unsigned long long)o->short_skipped);
	ret = 0;
	goto out_nobuf;
out:
	if (o)
		td_buf_close(&o->b);
out_nobuf:
	tl_threads_free(&th);
	tl_threads_free(&named);
	free(cs);
	free(last_end);
	td_gaps_free(&gaps);
	free(used);
	if (o)
		td_agg_free(&o->est);
	free(o);
	return ret;
}

/* ---- live: every task for --duration seconds ---------------------------- */

struct tl_live {
	struct td_live live;
	struct td_target tgt;
	struct topdown_record *recs;
	uint64_t n, cap;
	bool oom;
};

static void tl_on_record(const struct topdown_record *r, void *ctx)
{
	struct tl_live *c = ctx;

	if (c->oom)
		return;
	if (c->n == c->cap) {
		uint64_t ncap = c->cap ? c->cap * 2 : 65536;
		struct topdown_record *n = realloc(c->recs, ncap * sizeof(*n));

		if (!n) {
			c->oom = true;
			c->live.stop = true;
			return;
		}
		c->recs = n;
		c->cap = ncap;
	}
	c->recs[c->n++] = *r;
}

/* --max-size SIZE: bytes, or K, M, G (binary) after the number. */
static int parse_size(const char *opt, const char *arg, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end != arg && *end && !end[1])
		shift = *end == 'K' || *end == 'k' ? 10 :
			*end == 'M' || *end == 'm' ? 20 :
			*end == 'G' || *end == 'g' ? 30 : -1;
	else if (*end)
		shift = -1;
	if (errno || end == arg || *arg == '-' || shift < 0 ||
	    v > (UINT64_MAX >> shift)) {
		p_usage_error("%s: '%s' is not a size (a number of bytes, K, M or G after it)",
			      opt, arg);
		return -1;
	}
	*out = (uint64_t)v << shift;
	return 0;
}

/* --counters change[:T] | slice | interval[:S] | none */
static int parse_counters(const char *arg, struct tl_opts *opt)
{
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	unsigned long long ns;
	char *end;

	if (len == 6 && !strncmp(arg, "change", 6)) {
		opt->counters = TL_CNT_CHANGE;
		if (!colon)
			return 0;
		errno = 0;
		opt->threshold = strtod(colon + 1, &end);
		if (!errno && end != colon + 1 && !*end &&
		    opt->threshold >= 0 && opt->threshold <= 10)
			return 0;
		p_err("--counters change:T: T is a number from 0 to 10 (a fraction's change, or IPC's relative one), not '%s'",
		      colon + 1);
		return -1;
	}
	if (len == 8 && !strncmp(arg, "interval", 8)) {
		opt->counters = TL_CNT_INTERVAL;
		if (!colon)
			return 0;
		if (parse_seconds("--counters interval", colon + 1, 3600, &ns))
			return -1;
		if (!ns) {
			p_err("--counters interval:S: S must be more than 0");
			return -1;
		}
		opt->interval_ns = ns;
		return 0;
	}
	if (!colon && !strcmp(arg, "slice")) {
		opt->counters = TL_CNT_SLICE;
		return 0;
	}
	if (!colon && !strcmp(arg, "none")) {
		opt->counters = TL_CNT_NONE;
		return 0;
	}
	p_err("--counters: '%s' is not change[:T], slice, interval[:S] or none",
	      arg);
	return -1;
}

int do_timeline(int argc, char **argv)
{
	const char *in = NULL;
	struct tl_opts opt = { .counters = TL_CNT_INTERVAL, .threshold = 0.05,
			       .interval_ns = 100000000,
			       .max_size = TL_MAX_SIZE };
	struct tl_live *lv = NULL;
	struct td_view_cfg *vc = NULL;
	const struct topdown_config *cfg = NULL;
	struct td_file_image img = { 0 };
	struct td_file f = { 0 };
	struct tl_src src = { 0 };
	struct td_lost lost;
	unsigned long long v, dur = 0;
	bool loaded = false, force = false;
	struct td_getopt g;
	int o, ret = -1;

	/* ^C from the start (-o's temporary file exists once the options
	 * are read): no trace, the temporary file removed, any old trace
	 * kept.
	 */
	td_catch_signals();
	td_filter_init(&opt.filter);
	td_getopt_build(&g, "timeline", timeline_desc);
	while ((o = td_getopt_next(&g, argc, argv)) >= 0) {
		int r = td_filter_opt(&opt.filter, o, optarg);

		if (r < 0)
			return -1;
		if (r)
			continue;
		switch (o) {
		case 'i':
			in = optarg;
			break;
		case 'm':
			if (parse_u64("--min-slice", optarg, 1000000000ull, &v))
				return -1;
			opt.min_ns = v * 1000;
			break;
		case 'c':
			if (parse_counters(optarg, &opt))
				return -1;
			break;
		case 'D':
			if (parse_seconds("--duration", optarg, 86400, &dur))
				return -1;
			if (!dur) {
				p_err("--duration must be more than 0");
				return -1;
			}
			break;
		case 'F':
			force = true;
			break;
		case 'Z':
			if (parse_size("--max-size", optarg, &opt.max_size))
				return -1;
			break;
		}
	}
	o = td_getopt_end(o, argc, argv, false);
	if (o <= 0)
		return o;
	if (in && dur) {
		p_usage_error("-i FILE and --duration exclude each other");
		return -1;
	}
	if (force && dur) {
		p_usage_error("--force reads a record file, --duration the rings");
		return -1;
	}
	if (td_filter_check(&opt.filter))
		return -1;
	if (!in && !dur)
		in = TD_DEFAULT_FILE;

	if (in) {
		if (td_input_load(in, NULL, &img, &f, NULL, NULL,
				  TD_FILE_GROUPS | (force ? TD_FILE_SALVAGE : 0)))
			return -1;
		loaded = true;
		cfg = &f.meta.cfg;
		src.nr_cpus = f.meta.nr_cpus;
		src.lost = f.interrupted ? NULL : f.meta.lost;
		td_file_lost(&f, &lost);
		td_lost_warn(&lost, "while recording");
		src.start_ns = f.meta.start_ns;
		src.stop_ns = f.meta.stop_ns;
		src.start_realtime_ns = f.meta.start_realtime_ns;
		src.f = &f;
		src.recs = td_file_records(&f);
		src.n = f.nr_records;
		src.what = in;
		src.all_tasks = !strcmp(f.meta.target, "all tasks");
	} else {
		lv = calloc(1, sizeof(*lv));
		if (!lv) {
			p_err("out of memory");
			return -1;
		}
		td_target_init(&lv->tgt);
		lv->tgt.duration_ns = dur;
		if (td_live_open(&lv->live, &lv->tgt, tl_on_record, lv))
			goto out;
		td_live_run(&lv->live, &(struct td_run){
			.duration_ns = dur, .key_fd = -1 });
		if (lv->oom) {
			p_err("out of memory after %llu records",
			      (unsigned long long)lv->n);
			goto out;
		}
		src.nr_cpus = (uint32_t)lv->live.rd.nr_cpus;
		src.lost = lv->live.lost;
		src.start_ns = lv->live.start_ns;
		src.stop_ns = td_now_ns();
		src.start_realtime_ns = lv->live.start_real_ns;
		src.cgroup_paths = true;
		src.all_tasks = true;
		src.recs = lv->recs;
		src.n = lv->n;
		src.what = "live";
	}

	/* The live collection has its view of the rings' configuration. */
	if (lv) {
		src.vc = lv->live.vc;
	} else {
		vc = malloc(sizeof(*vc));
		if (!vc) {
			p_err("out of memory");
			goto out;
		}
		if (td_view_cfg_init(vc, cfg))
			goto out;
		src.vc = vc;
	}
	src.cfg = &src.vc->cfg;
	/* A live collection ended at the first ^C: a second one stops the
	 * writing.
	 */
	if (lv)
		td_signal = 0;
	if (write_trace(stdout, &src, loaded ? &f.meta : NULL, &opt))
		goto out;
	ret = 0;
out:
	free(vc);
	if (loaded)
		td_file_unload(&img, &f);
	if (lv) {
		td_live_close(&lv->live);
		td_target_cleanup(&lv->tgt);
		free(lv->recs);
		free(lv);
	}
	return ret;
}
