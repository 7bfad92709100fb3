// SPDX-License-Identifier: GPL-2.0
/*
 * Groups of records: a hash table keyed by the grouping's fields. See aggregate.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"
#include "base/hash.h"
#include "group/aggregate.h"

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
bool matches(enum td_by by, const struct td_group *g, const struct key *k)
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

/* Keys come from files: a keyed hash (base/hash.h), so that no file can
 * make every group collide.
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
void add_to(struct td_group *restrict g, const struct topdown_record *restrict r)
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
			g->slices = 0;
			g->runtime_ns = 0;
			g->read_errors = 0;
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
