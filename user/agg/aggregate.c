// SPDX-License-Identifier: GPL-2.0
/*
 * Buckets of records: a hash table keyed by the fields of --by. See aggregate.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"
#include "base/hash.h"
#include "agg/aggregate.h"

/* ---- buckets ---------------------------------------------------------- */

void td_agg_init(struct td_agg *a, enum td_by by)
{
	memset(a, 0, sizeof(*a));
	a->by = by;
}

/* ---- event groups: sums and clusters ---------------------------------- */

/* A cluster being built: one row's slices on one CPU in the CPU's current
 * period (between two rotations), all of one group.
 */
struct td_open_cl {
	uint32_t row;		/* row index + 1, 0: empty slot */
	uint32_t slices;
	double z[TD_EST_DIM];	/* time, the group's counts */
};

static inline struct td_grow *grow_of(const struct td_agg *a, size_t i)
{
	return (struct td_grow *)(a->grows + i * a->grow_size);
}

int td_agg_groups(struct td_agg *a, const struct topdown_config *cfg)
{
	int ng = cfg->nr_groups ? (int)cfg->nr_groups : 1;

	if (ng > TOPDOWN_MAX_GROUPS || !cfg->nr_events ||
	    cfg->nr_events > (cfg->nr_groups ? TOPDOWN_MAX_POOL :
			      TOPDOWN_MAX_EVENTS))
		return -1;
	a->gcfg = *cfg;
	if (cfg->nr_groups == 1) {
		/* One group: its delta order is the pool's (what the
		 * estimator reads of gcfg: nr_events and the groups).
		 */
		a->gcfg.nr_events = cfg->groups[0].nr_events;
		a->gcfg.nr_groups = 0;
		cfg = &a->gcfg;
	}
	a->nr_groups = ng;
	for (int g = 0; g < ng; g++) {
		int k = cfg->nr_groups ? (int)cfg->groups[g].nr_events :
			(int)cfg->nr_events;

		if (k < 1 || k > TOPDOWN_MAX_EVENTS)
			return -1;
		a->group_events[g] = k;
	}
	a->grow_size = offsetof(struct td_grow, g) +
		       ng * sizeof(struct td_gsum);
	a->total_grow = calloc(1, a->grow_size);
	if (!a->total_grow)
		return -1;
	if (a->cap) {
		a->grows = calloc(a->cap, a->grow_size);
		if (!a->grows)
			return -1;
	}
	return 0;
}

const struct td_grow *td_agg_grow(const struct td_agg *a,
				  const struct td_bucket *row)
{
	if (!a->nr_groups)
		return NULL;
	if (row == &a->total)
		return a->total_grow;
	if (row < a->bucket || row >= a->bucket + a->n)
		return NULL;
	return grow_of(a, row - a->bucket);
}

/* A closed cluster joins its row's group. */
static void fold(struct td_agg *a, struct td_grow *gr, int group,
		 const struct td_open_cl *o)
{
	if (o->slices)
		td_mom_add(&gr->g[group].mom, 1 + a->group_events[group], o->z);
}

static void close_cpu(struct td_agg *a, struct td_cl_cpu *cc)
{
	if (cc->group < 0)
		return;
	for (uint32_t u = 0; u < cc->nr_used; u++) {
		struct td_open_cl *o = &cc->slot[cc->used[u]];

		fold(a, grow_of(a, o->row - 1), cc->group, o);
		memset(o, 0, sizeof(*o));
	}
	cc->nr_used = 0;
	if (cc->total) {
		fold(a, a->total_grow, cc->group, cc->total);
		memset(cc->total, 0, sizeof(*cc->total));
	}
}

void td_agg_finish(struct td_agg *a)
{
	struct td_moments *tm;

	for (uint32_t c = 0; c < a->nr_cl; c++)
		close_cpu(a, &a->cl[c]);
	if (a->nr_groups != 1)
		return;
	/* One group: the total's units are its rows' slices (Chan's
	 * merge is exact), gathered here rather than slice by slice.
	 */
	tm = &a->total_grow->g[0].mom;
	memset(tm, 0, sizeof(*tm));
	for (size_t i = 0; i < a->n; i++)
		td_mom_merge(tm, &grow_of(a, i)->g[0].mom,
			     1 + a->group_events[0]);
}

static void free_cl(struct td_agg *a)
{
	for (uint32_t c = 0; c < a->nr_cl; c++) {
		free(a->cl[c].used);
		free(a->cl[c].slot);
		free(a->cl[c].total);
	}
	free(a->cl);
	a->cl = NULL;
	a->nr_cl = 0;
}

static inline uint32_t row_hash(uint32_t row, uint32_t nslots)
{
	/* Row indexes are ours, dense and small: nothing to flood. */
	return (row * 0x9e3779b1u) & (nslots - 1);
}

static bool cl_grow(struct td_cl_cpu *cc)
{
	uint32_t n = cc->nslots ? 2 * cc->nslots : 16;
	struct td_open_cl *slot = calloc(n, sizeof(*slot));
	uint32_t *used = malloc(n / 2 * sizeof(*used));

	if (!slot || !used) {
		free(slot);
		free(used);
		return false;
	}
	for (uint32_t u = 0; u < cc->nr_used; u++) {
		const struct td_open_cl *o = &cc->slot[cc->used[u]];
		uint32_t s = row_hash(o->row, n);

		while (slot[s].row)
			s = (s + 1) & (n - 1);
		slot[s] = *o;
		used[u] = s;
	}
	free(cc->slot);
	free(cc->used);
	cc->slot = slot;
	cc->used = used;
	cc->nslots = n;
	return true;
}

/* The open cluster of row (index + 1) on this CPU, a new one if none. */
static struct td_open_cl *cl_get(struct td_cl_cpu *cc, uint32_t row)
{
	uint32_t s;

	if (2 * (cc->nr_used + 1) > cc->nslots && !cl_grow(cc))
		return NULL;
	s = row_hash(row, cc->nslots);
	while (cc->slot[s].row) {
		if (cc->slot[s].row == row)
			return &cc->slot[s];
		s = (s + 1) & (cc->nslots - 1);
	}
	cc->slot[s].row = row;
	cc->used[cc->nr_used++] = s;
	return &cc->slot[s];
}

static struct td_cl_cpu *cl_cpu(struct td_agg *a, uint32_t cpu)
{
	if (cpu >= a->nr_cl) {
		uint32_t n = cpu + 1 > 2 * a->nr_cl ? cpu + 1 : 2 * a->nr_cl;
		struct td_cl_cpu *cl = realloc(a->cl, n * sizeof(*cl));

		if (!cl)
			return NULL;
		memset(cl + a->nr_cl, 0, (n - a->nr_cl) * sizeof(*cl));
		for (uint32_t c = a->nr_cl; c < n; c++)
			cl[c].group = -1;
		a->cl = cl;
		a->nr_cl = n;
	}
	if (!a->cl[cpu].total) {
		a->cl[cpu].total = calloc(1, sizeof(*a->cl[cpu].total));
		if (!a->cl[cpu].total)
			return NULL;
	}
	return &a->cl[cpu];
}

static void add_slice(struct td_grow *gr, int group, int k,
		      const struct topdown_record *r, struct td_open_cl *o)
{
	struct td_gsum *gs = &gr->g[group];

	gs->slices++;
	gs->time_ns += r->duration_ns;
	o->slices++;
	o->z[0] += (double)r->duration_ns;
	for (int j = 0; j < k; j++) {
		gs->counts[j] += r->delta[j];
		o->z[1 + j] += (double)r->delta[j];
	}
}

/* Without rotation: a slice read whole, a sampling unit of its own (the
 * total's moments: td_agg_finish()).
 */
static void add_unit(struct td_grow *gr, struct td_grow *tg, int k,
		     const struct topdown_record *r)
{
	struct td_gsum *gs = &gr->g[0], *ts = &tg->g[0];
	double z[TD_EST_DIM];

	gs->slices++;
	ts->slices++;
	gs->time_ns += r->duration_ns;
	ts->time_ns += r->duration_ns;
	z[0] = (double)r->duration_ns;
	for (int j = 0; j < k; j++) {
		gs->counts[j] += r->delta[j];
		ts->counts[j] += r->delta[j];
		z[1 + j] = (double)r->delta[j];
	}
	td_mom_add(&gs->mom, 1 + k, z);
}

/* A slice with an unreadable counter: in the row's time, in no group's. */
static void add_error(struct td_grow *gr, struct td_grow *tg, int g,
		      const struct topdown_record *r)
{
	gr->g[g].errors++;
	gr->g[g].error_ns += r->duration_ns;
	tg->g[g].errors++;
	tg->g[g].error_ns += r->duration_ns;
}

/*
 * A record of row i with groups. A CPU's period ends at a rotated slice
 * (of any row) or where the group changes (the rotated slice may belong
 * to a task that was not recorded): its open clusters close then.
 * Rotated slices and slices with an unreadable counter are in the row's
 * time and in no group's. Without rotation (one group) each slice is a
 * cluster of its own.
 */
static bool add_groups(struct td_agg *a, size_t i,
		       const struct topdown_record *r)
{
	int g = a->gcfg.nr_groups ? (int)TOPDOWN_REC_GROUP(r->flags) : 0;
	struct td_grow *gr = grow_of(a, i), *tg = a->total_grow;
	struct td_cl_cpu *cc;
	struct td_open_cl *o;

	if (g >= a->nr_groups)
		return true;	/* not from this configuration */
	if (a->nr_groups == 1 && !(r->flags & TOPDOWN_REC_ROTATED)) {
		if (r->flags & TOPDOWN_REC_ERROR_MASK) {
			add_error(gr, tg, 0, r);
			return true;
		}
		add_unit(gr, tg, a->group_events[0], r);
		return true;
	}
	cc = cl_cpu(a, r->cpu);
	if (!cc)
		return false;
	if (r->flags & TOPDOWN_REC_ROTATED) {
		close_cpu(a, cc);
		cc->group = g;
		gr->rotated++;
		gr->rotated_ns += r->duration_ns;
		tg->rotated++;
		tg->rotated_ns += r->duration_ns;
		return true;
	}
	if (cc->group != g) {
		close_cpu(a, cc);
		cc->group = g;
	}
	if (r->flags & TOPDOWN_REC_ERROR_MASK) {
		add_error(gr, tg, g, r);
		return true;
	}
	o = cl_get(cc, (uint32_t)i + 1);
	if (!o)
		return false;
	add_slice(gr, g, a->group_events[g], r, o);
	add_slice(tg, g, a->group_events[g], r, cc->total);
	return true;
}

void td_agg_clear(struct td_agg *a)
{
	a->n = 0;
	if (a->slot)
		memset(a->slot, 0, a->nslots * sizeof(*a->slot));
	memset(&a->total, 0, sizeof(a->total));
	a->oom = false;
	if (a->nr_groups) {
		for (uint32_t c = 0; c < a->nr_cl; c++) {
			struct td_cl_cpu *cc = &a->cl[c];

			for (uint32_t u = 0; u < cc->nr_used; u++)
				memset(&cc->slot[cc->used[u]], 0,
				       sizeof(cc->slot[0]));
			cc->nr_used = 0;
			cc->group = -1;
			if (cc->total)
				memset(cc->total, 0, sizeof(*cc->total));
		}
		memset(a->total_grow, 0, a->grow_size);
	}
}

void td_agg_free(struct td_agg *a)
{
	free(a->bucket);
	free(a->slot);
	free(a->grows);
	free(a->total_grow);
	free_cl(a);
	memset(a, 0, sizeof(*a));
}

/*
 * What identifies a bucket: the thread (task) or process id, the CPU (of
 * the idle tasks, which are all pid 0, and of TD_BY_CPU), the cgroup, or
 * the comm. The hash and the comparison read only the fields of the
 * key (--by), straight from the record, so adding a record builds nothing.
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

static void bucket_key(enum td_by by, const struct td_bucket *b, struct key *k)
{
	k->cgroup_id = by == TD_BY_CGROUP ? b->cgroup_id : 0;
	k->id = by == TD_BY_TASK ? b->tid : by == TD_BY_PROCESS ? b->pid : 0;
	k->cpu = b->cpu;
	k->comm = by == TD_BY_COMM ? b->comm : NULL;
}

static inline __attribute__((always_inline))
bool matches(enum td_by by, const struct td_bucket *b, const struct key *k)
{
	switch (by) {
	case TD_BY_TASK:
		return b->tid == k->id && b->cpu == k->cpu;
	case TD_BY_PROCESS:
		return b->pid == k->id && b->cpu == k->cpu;
	case TD_BY_COMM:
		return !strncmp(b->comm, k->comm, TOPDOWN_COMM_LEN);
	case TD_BY_CGROUP:
		return b->cgroup_id == k->cgroup_id;
	default:
		return b->cpu == k->cpu;
	}
}

/* Keys come from files: a keyed hash (base/hash.h), so that no file can
 * make every bucket collide.
 */
static inline __attribute__((always_inline))
uint64_t hash_key(enum td_by by, const struct key *k)
{
	uint64_t w[2] = { 0, 0 };

	if (by == TD_BY_COMM) {
		/* the comm, NUL-padded as copy_comm() leaves it */
		char c[TOPDOWN_COMM_LEN] = { 0 };

		_Static_assert(sizeof(c) == sizeof(w), "a comm is two words");
		for (int i = 0; i < TOPDOWN_COMM_LEN && k->comm[i]; i++)
			c[i] = k->comm[i];
		memcpy(w, c, sizeof(w));
		return td_hash2(w[0], w[1]);
	}
	return td_hash2(k->cgroup_id, (uint64_t)k->cpu << 32 | k->id);
}

static bool rehash(struct td_agg *a, size_t nslots)
{
	uint32_t *slot = calloc(nslots, sizeof(*slot));
	struct key k;

	if (!slot)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		size_t s;

		bucket_key(a->by, &a->bucket[i], &k);
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

/* The bucket of key k; a new, zeroed one (*is_new) if there is none. */
static inline __attribute__((always_inline))
struct td_bucket *lookup(struct td_agg *a, const struct key *k, bool *is_new)
{
	size_t s;

	*is_new = false;
	if (2 * (a->n + 1) > a->nslots &&
	    !rehash(a, a->nslots ? 2 * a->nslots : 256))
		return NULL;
	s = hash_key(a->by, k) & (a->nslots - 1);
	while (a->slot[s]) {
		struct td_bucket *b = &a->bucket[a->slot[s] - 1];

		if (matches(a->by, b, k))
			return b;
		s = (s + 1) & (a->nslots - 1);
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 128;
		struct td_bucket *b = realloc(a->bucket, cap * sizeof(*b));

		if (!b)
			return NULL;
		a->bucket = b;
		if (a->nr_groups) {
			uint8_t *gr = realloc(a->grows, cap * a->grow_size);

			if (!gr)
				return NULL;
			a->grows = gr;
		}
		a->cap = cap;
	}
	memset(&a->bucket[a->n], 0, sizeof(a->bucket[a->n]));
	if (a->nr_groups)
		memset(grow_of(a, a->n), 0, a->grow_size);
	a->slot[s] = ++a->n;
	*is_new = true;
	return &a->bucket[a->n - 1];
}

static inline __attribute__((always_inline))
void add_to(struct td_bucket *restrict b, const struct topdown_record *restrict r)
{
	b->slices++;
	b->runtime_ns += r->duration_ns;
	/* A rotated slice carries every error bit of its new group: it was
	 * measured by none, not unreadable.
	 */
	if (r->flags & TOPDOWN_REC_ROTATED)
		b->rotated++;
	else if (r->flags & TOPDOWN_REC_ERROR_MASK)
		b->read_errors++;
#pragma GCC unroll 8
	for (int i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		b->counts[i] += r->delta[i];
}

static void sum_into(struct td_bucket *b, const struct td_bucket *s)
{
	b->slices += s->slices;
	b->runtime_ns += s->runtime_ns;
	b->read_errors += s->read_errors;
	b->rotated += s->rotated;
	for (int i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		b->counts[i] += s->counts[i];
}

/* A comm as strncpy() leaves it in a zeroed bucket: NUL-padded. */
static void copy_comm(char *dst, const char *src)
{
	int i = 0;

	for (; i < TOPDOWN_COMM_LEN && src[i]; i++)
		dst[i] = src[i];
	for (; i < TOPDOWN_COMM_LEN; i++)
		dst[i] = '\0';
}

const struct td_bucket *td_agg_find(const struct td_agg *a,
				    const struct topdown_record *r)
{
	struct key k;
	size_t s;

	if (!a->nslots)
		return NULL;
	rec_key(a->by, r, &k);
	s = hash_key(a->by, &k) & (a->nslots - 1);
	while (a->slot[s]) {
		const struct td_bucket *b = &a->bucket[a->slot[s] - 1];

		if (matches(a->by, b, &k))
			return b;
		s = (s + 1) & (a->nslots - 1);
	}
	return NULL;
}

/* The row of r, made with r's key fields if new, named as r is. */
static struct td_bucket *row_of(struct td_agg *a, const struct topdown_record *r)
{
	struct td_bucket *b;
	bool main_thread = r->pid == r->tgid, is_new;
	struct key k;

	rec_key(a->by, r, &k);
	b = lookup(a, &k, &is_new);
	if (!b) {
		a->oom = true;
		return NULL;
	}
	if (is_new) {
		/* The key fields, as the first record of the bucket has them. */
		switch (a->by) {
		case TD_BY_TASK:
			b->tid = r->pid;
			b->pid = r->tgid;
			b->cpu = k.cpu;
			break;
		case TD_BY_PROCESS:
			b->pid = r->tgid;
			b->cpu = k.cpu;
			break;
		case TD_BY_COMM:
			copy_comm(b->comm, r->comm);
			break;
		case TD_BY_CGROUP:
			b->cgroup_id = r->cgroup_id;
			break;
		default:
			b->cpu = r->cpu;
			break;
		}
	}
	/* A process is named after its main thread when that was seen. */
	if (a->by != TD_BY_COMM && (main_thread || !b->comm_main)) {
		if (memcmp(b->comm, r->comm, TOPDOWN_COMM_LEN))
			copy_comm(b->comm, r->comm);
		b->comm_main = main_thread;
	}
	return b;
}

bool td_agg_add(struct td_agg *a, const struct topdown_record *r)
{
	struct td_bucket *b = row_of(a, r);

	if (!b)
		return false;
	add_to(b, r);
	add_to(&a->total, r);
	if (a->nr_groups && !add_groups(a, b - a->bucket, r)) {
		a->oom = true;
		return false;
	}
	return true;
}

/* n slices of one record's sums: in the row's, the total's and group 0's. */
static void add_sum(struct td_bucket *b, struct td_gsum *gs,
		    const struct topdown_record *r, uint64_t n, int k)
{
	b->slices += n;
	b->runtime_ns += r->duration_ns;
	for (int i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		b->counts[i] += r->delta[i];
	if (!gs)
		return;
	gs->slices += n;
	gs->time_ns += r->duration_ns;
	for (int j = 0; j < k; j++)
		gs->counts[j] += r->delta[j];
}

bool td_agg_add_sum(struct td_agg *a, const struct topdown_record *r,
		    uint64_t slices)
{
	struct td_bucket *b;
	int k;

	if (a->nr_groups > 1 || (r->flags & ~TOPDOWN_REC_IDLE))
		return false;	/* not such a sum: estimates need slices */
	b = row_of(a, r);
	if (!b)
		return false;
	k = a->nr_groups ? a->group_events[0] : 0;
	add_sum(b, a->nr_groups ? &grow_of(a, b - a->bucket)->g[0] : NULL, r,
		slices, k);
	add_sum(&a->total, a->nr_groups ? &a->total_grow->g[0] : NULL, r,
		slices, k);
	return true;
}

static void merge_grow(const struct td_agg *a, struct td_grow *d,
		       const struct td_grow *s)
{
	d->rotated += s->rotated;
	d->rotated_ns += s->rotated_ns;
	for (int g = 0; g < a->nr_groups; g++) {
		struct td_gsum *dg = &d->g[g];
		const struct td_gsum *sg = &s->g[g];

		dg->slices += sg->slices;
		dg->time_ns += sg->time_ns;
		dg->errors += sg->errors;
		dg->error_ns += sg->error_ns;
		for (int j = 0; j < TOPDOWN_MAX_EVENTS; j++)
			dg->counts[j] += sg->counts[j];
		td_mom_merge(&dg->mom, &sg->mom, 1 + a->group_events[g]);
	}
}

/* src's open clusters, closed into dst's rows (map: src row -> dst row). */
static void merge_open(struct td_agg *dst, const struct td_agg *src,
		       const size_t *map)
{
	for (uint32_t c = 0; c < src->nr_cl; c++) {
		const struct td_cl_cpu *cc = &src->cl[c];

		if (cc->group < 0)
			continue;
		for (uint32_t u = 0; u < cc->nr_used; u++) {
			const struct td_open_cl *o = &cc->slot[cc->used[u]];

			fold(dst, grow_of(dst, map[o->row - 1]), cc->group, o);
		}
		if (cc->total)
			fold(dst, dst->total_grow, cc->group, cc->total);
	}
}

bool td_agg_merge(struct td_agg *dst, const struct td_agg *src)
{
	bool groups = dst->nr_groups && dst->nr_groups == src->nr_groups;
	size_t *map = NULL;

	if (groups && src->n) {
		map = malloc(src->n * sizeof(*map));
		if (!map) {
			dst->oom = true;
			return false;
		}
	}
	for (size_t i = 0; i < src->n; i++) {
		const struct td_bucket *sb = &src->bucket[i];
		struct td_bucket *b;
		bool is_new;
		struct key k;

		bucket_key(dst->by, sb, &k);
		b = lookup(dst, &k, &is_new);
		if (!b) {
			free(map);
			dst->oom = true;
			return false;
		}
		if (is_new) {
			/* The key only: a new bucket starts from zero. */
			*b = *sb;
			b->slices = 0;
			b->runtime_ns = 0;
			b->read_errors = 0;
			b->rotated = 0;
			memset(b->counts, 0, sizeof(b->counts));
		}
		if (sb->comm_main || !b->comm_main) {
			memcpy(b->comm, sb->comm, sizeof(b->comm));
			b->comm_main = sb->comm_main;
		}
		sum_into(b, sb);
		if (groups) {
			map[i] = b - dst->bucket;
			merge_grow(dst, grow_of(dst, map[i]), grow_of(src, i));
		}
	}
	sum_into(&dst->total, &src->total);
	if (groups) {
		merge_grow(dst, dst->total_grow, src->total_grow);
		merge_open(dst, src, map);
	}
	free(map);
	return true;
}
