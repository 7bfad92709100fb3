// SPDX-License-Identifier: GPL-2.0
/* The module's per-task totals for a reader (see totals.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/bpf/bpf.h"
#include "live/collect.h"
#include "live/device.h"
#include "live/totals.h"

/* Task entries by (pid, start_ns), through pointers to them. */
static int cmp_task(const void *x, const void *y)
{
	const struct topdown_total *p = *(const struct topdown_total *const *)x;
	const struct topdown_total *q = *(const struct topdown_total *const *)y;

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->start_ns != q->start_ns)
		return p->start_ns < q->start_ns ? -1 : 1;
	return 0;
}

static uint32_t nr_tasks(const struct td_totals_snap *s)
{
	return s->n - s->nr_cpus;
}

static const struct topdown_total **tasks(const struct td_totals_snap *s)
{
	return s->ix;
}

/* The entry of @key's task among @n sorted ones, or NULL. */
static const struct topdown_total *find(const struct topdown_total *key,
					const struct topdown_total **v,
					uint32_t n)
{
	const struct topdown_total *const *p;

	p = n ? bsearch(&key, v, n, sizeof(*v), cmp_task) : NULL;
	return p ? *p : NULL;
}

/*
 * @fn(now, was, @ctx) for each task of @now or @was, the two snapshots
 * walked together in (pid, start_ns) order: NULL for the snapshot that
 * does not have it. One pass, not a search per task.
 */
static void pair_walk(const struct td_totals_snap *now, const struct td_totals_snap *was,
		      void (*fn)(struct td_totals_track *t, const struct topdown_total *now,
				 const struct topdown_total *was, void *ctx),
		      struct td_totals_track *t, void *ctx)
{
	uint32_t i = 0, j = 0, n = nr_tasks(now), w = nr_tasks(was);

	while (i < n || j < w) {
		const struct topdown_total *a = i < n ? tasks(now)[i] : NULL;
		const struct topdown_total *b = j < w ? tasks(was)[j] : NULL;
		int c = !a ? 1 : !b ? -1 : cmp_task(&a, &b);

		fn(t, c <= 0 ? a : NULL, c >= 0 ? b : NULL, ctx);
		i += c <= 0;
		j += c >= 0;
	}
}

static void snap_free(struct td_totals_snap *s)
{
	free(s->e);
	free(s->ix);
	memset(s, 0, sizeof(*s));
}

/*
 * A snapshot whose entries did not move while it was read (a few tries),
 * into @t's spare entries if it has some.
 */
static int snap(struct td_totals_track *t, int fd, struct td_totals_snap *s)
{
	struct topdown_status st;
	int ret;

	memset(s, 0, sizeof(*s));
	s->e = t->spare;
	s->cap = t->spare_cap;
	t->spare = NULL;
	t->spare_cap = 0;
	for (int tries = 0; tries < 4; tries++) {
		if (t->bpf) {
			ret = td_bpf_totals_read(t->bpf, &s->q, &s->e, &s->cap,
						 &s->n, &s->nr_cpus);
		} else {
			ret = td_dev_status(fd, &st);
			if (!ret)
				ret = td_dev_totals(fd, &s->q, &s->e, &s->cap, &s->n);
			s->nr_cpus = st.nr_cpus;
		}
		if (ret) {
			snap_free(s);
			return ret;
		}
		if (s->n < s->nr_cpus) {
			snap_free(s);
			return -EPROTO;
		}
		if (!(s->q.flags & TOPDOWN_TOTALS_MOVED)) {
			/* Pointers sorted, not the entries (hundreds of bytes). */
			s->ix = malloc((nr_tasks(s) + 1) * sizeof(*s->ix));
			if (!s->ix) {
				snap_free(s);
				return -ENOMEM;
			}
			for (uint32_t i = 0; i < nr_tasks(s); i++)
				s->ix[i] = &s->e[s->nr_cpus + i];
			qsort(s->ix, nr_tasks(s), sizeof(*s->ix), cmp_task);
			return 0;
		}
	}
	snap_free(s);
	return -EAGAIN;
}

/* @s, replaced: its entries kept as @t's spare ones, the rest freed. */
static void snap_retire(struct td_totals_track *t, struct td_totals_snap *s)
{
	free(t->spare);
	t->spare = s->e;
	t->spare_cap = s->cap;
	s->e = NULL;
	snap_free(s);
}

/* dst: a copy of src, its own index. */
static int snap_copy(struct td_totals_snap *dst, const struct td_totals_snap *src)
{
	*dst = *src;
	dst->cap = src->n ? src->n : 1;
	dst->e = malloc(dst->cap * sizeof(*dst->e));
	dst->ix = malloc((nr_tasks(src) + 1) * sizeof(*dst->ix));
	if (!dst->e || !dst->ix) {
		snap_free(dst);
		return -ENOMEM;
	}
	memcpy(dst->e, src->e, src->n * sizeof(*dst->e));
	for (uint32_t i = 0; i < nr_tasks(src); i++)
		dst->ix[i] = dst->e + (src->ix[i] - src->e);
	return 0;
}

static void set_why(struct td_totals_track *t, const char *why)
{
	if (!t->why)
		t->why = why;
}

static void set_err(struct td_totals_track *t, int err)
{
	snprintf(t->why_buf, sizeof(t->why_buf), "reading the totals: %s",
		 strerror(-err));
	set_why(t, t->why_buf);
}

bool td_total_match_all(const struct topdown_record *r, void *ctx)
{
	(void)r;
	(void)ctx;
	return true;
}

/* The first snapshot of @t (fd or bpf set). */
static int track_start(struct td_totals_track *t, td_total_match_fn match,
		       void *ctx)
{
	int ret;

	t->match = match;
	t->ctx = ctx;
	ret = snap(t, t->fd, &t->base);
	if (ret)
		return ret;
	/* A copy: a fold between two snapshots would go unseen. */
	ret = snap_copy(&t->last, &t->base);
	if (ret)
		snap_free(&t->base);
	return ret;
}

int td_totals_track_start(struct td_totals_track *t, int fd,
			  td_total_match_fn match, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->fd = fd;
	return track_start(t, match, ctx);
}

int td_totals_track_open(struct td_totals_track *t, const struct td_reader *rd,
			 td_total_match_fn match, void *ctx)
{
	int ret;

	if (!rd->bpf)
		return td_totals_track_start(t, rd->fd, match, ctx);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	ret = td_bpf_totals_open(&t->bpf);
	if (!ret)
		ret = track_start(t, match, ctx);
	if (ret) {
		td_bpf_totals_close(t->bpf);
		t->bpf = NULL;
	}
	return ret;
}

int td_totals_track_rebase(struct td_totals_track *t)
{
	struct td_totals_snap s;
	int ret = snap_copy(&s, &t->last);

	if (ret)
		return ret;
	snap_retire(t, &t->base);
	t->base = s;
	t->nr_gone = 0;
	t->folds = 0;
	t->moved = 0;
	t->why = NULL;
	return 0;
}

static bool is_target(struct td_totals_track *t, const struct topdown_total *e)
{
	struct topdown_record r = { .pid = e->pid, .tgid = e->tgid,
				    .cgroup_id = e->cgroup_id, .cpu = e->cpu };

	return t->match(&r, t->ctx);
}

static bool keep_gone(struct td_totals_track *t, const struct topdown_total *e)
{
	if (t->nr_gone == t->cap_gone) {
		uint32_t cap = t->cap_gone ? 2 * t->cap_gone : 64;
		struct topdown_total *g = realloc(t->gone, cap * sizeof(*g));

		if (!g)
			return false;
		t->gone = g;
		t->cap_gone = cap;
	}
	t->gone[t->nr_gone++] = *e;
	return true;
}

/* td_totals_track_update() of one task, as it is @now and @was before. */
static void update_task(struct td_totals_track *t, const struct topdown_total *now,
			const struct topdown_total *was, void *ctx)
{
	uint64_t *seen = ctx;

	/* The entries of the last snapshot that are gone were folded. */
	if (!now) {
		(*seen)++;
		if (was->kind != TOPDOWN_TOTAL_EXITED && is_target(t, was))
			set_why(t, "a task's totals were folded to make room before "
				"its last slices were read (load --totals-tasks "
				"makes the pool larger)");
		if (!keep_gone(t, was))
			set_why(t, "out of memory");
		return;
	}
	/* Tasks that moved to another cgroup since the last snapshot. */
	if ((now->cgroup_moves != (was ? was->cgroup_moves : 0) ||
	     (was && was->cgroup_id != now->cgroup_id)) &&
	    (is_target(t, now) || (was && is_target(t, was))))
		t->moved++;
}

void td_totals_track_update(struct td_totals_track *t)
{
	struct td_totals_snap s;
	uint64_t seen = 0;
	int ret = snap(t, t->fd, &s);

	if (ret) {
		set_err(t, ret);
		return;
	}
	if (s.nr_cpus != t->last.nr_cpus || s.q.generation < t->last.q.generation) {
		set_why(t, "the module was configured again");
		snap_free(&s);
		return;
	}
	pair_walk(&s, &t->last, update_task, t, &seen);
	if (s.q.entry_size < TOPDOWN_TOTAL_SIZE_VER1)
		t->moves_unknown = true;
	if (s.q.generation - t->last.q.generation > seen)
		set_why(t, "tasks that started and exited between two reads were "
			"folded to make room (load --totals-tasks makes the pool "
			"larger)");
	if (s.q.no_room != t->last.q.no_room)
		set_why(t, "tasks found no room in the pool of totals (load "
			"--totals-tasks makes it larger)");
	t->folds += s.q.generation - t->last.q.generation;
	snap_retire(t, &t->last);
	t->last = s;
}

void td_totals_track_free(struct td_totals_track *t)
{
	snap_free(&t->base);
	snap_free(&t->last);
	free(t->spare);
	t->spare = NULL;
	t->spare_cap = 0;
	td_bpf_totals_close(t->bpf);
	t->bpf = NULL;
	free(t->gone);
	t->gone = NULL;
	t->nr_gone = 0;
	t->cap_gone = 0;
}

/* e - base (base NULL: e) into r and fn. */
static void emit(const struct topdown_total *e, const struct topdown_total *base,
		 struct topdown_record *r, td_total_fn fn, void *ctx)
{
	uint64_t slices = e->slices, measured = e->grp_slices[0];

	if (base) {
		slices -= base->slices;
		measured -= base->grp_slices[0];
	}
	if (!slices)
		return;
	r->cpu = e->cpu;
	r->duration_ns = e->time_ns - (base ? base->time_ns : 0);
	for (int j = 0; j < TOPDOWN_MAX_EVENTS; j++)
		r->delta[j] = e->grp_delta[0][j] -
			      (base ? base->grp_delta[0][j] : 0);
	fn(r, slices, slices - measured, ctx);
}

static void emit_task(const struct td_totals_track *t,
		      const struct topdown_total *e, td_total_fn fn, void *ctx)
{
	struct topdown_record r;

	memset(&r, 0, sizeof(r));
	r.pid = e->pid;
	r.tgid = e->tgid;
	r.cgroup_id = e->cgroup_id;
	memcpy(r.comm, e->comm, sizeof(r.comm));
	emit(e, find(e, tasks(&t->base), nr_tasks(&t->base)), &r, fn, ctx);
}

/* *d += e - b, or *d -= e (sub). */
static void acc(__u64 *d, __u64 e, __u64 b, bool sub)
{
	*d = sub ? *d - e : *d + e - b;
}

/* d += e - base (base NULL: d += e); sub: d -= e instead. */
static void total_acc(struct topdown_total *d, const struct topdown_total *e,
		      const struct topdown_total *base, bool sub)
{
	static const struct topdown_total zero;
	const struct topdown_total *b = base ? base : &zero;

	acc(&d->slices, e->slices, b->slices, sub);
	acc(&d->time_ns, e->time_ns, b->time_ns, sub);
	acc(&d->unmeasured_ns, e->unmeasured_ns, b->unmeasured_ns, sub);
	for (int g = 0; g < TOPDOWN_MAX_GROUPS; g++) {
		acc(&d->grp_slices[g], e->grp_slices[g], b->grp_slices[g], sub);
		acc(&d->grp_time_ns[g], e->grp_time_ns[g], b->grp_time_ns[g], sub);
		for (int j = 0; j < TOPDOWN_MAX_EVENTS; j++)
			acc(&d->grp_delta[g][j], e->grp_delta[g][j],
			    b->grp_delta[g][j], sub);
	}
}

/* *o += what the CPUs' OTHER entries grew by from @was to @now. */
static void cpus_grew(struct topdown_total *o, const struct td_totals_snap *now,
		      const struct td_totals_snap *was)
{
	for (uint32_t c = 0; c < now->nr_cpus; c++)
		total_acc(o, &now->e[c], &was->e[c], false);
}

/* The idle task's record of CPU c, with no sums yet. */
static void idle_rec(struct topdown_record *r, uint32_t c, uint64_t root_cgroup)
{
	memset(r, 0, sizeof(*r));
	r->cgroup_id = root_cgroup;
	r->flags = TOPDOWN_REC_IDLE;
	snprintf(r->comm, sizeof(r->comm), "swapper/%u", c % 10000000);
}

/*
 * The idle tasks summed: the CPUs' entries grew by their slices and by
 * every entry folded since the base whole, the ones seen (t->gone) and
 * those that t->why is about.
 */
static void emit_idle_sum(struct td_totals_track *t, uint64_t root_cgroup,
			  td_total_fn fn, void *ctx)
{
	struct topdown_total o;
	struct topdown_record r;

	memset(&o, 0, sizeof(o));
	cpus_grew(&o, &t->last, &t->base);
	for (uint32_t i = 0; i < t->nr_gone; i++)
		total_acc(&o, &t->gone[i], NULL, true);
	if (o.slices >= (uint64_t)1 << 63) {
		/* Below 0: more was subtracted than folded. */
		set_why(t, "the totals of exited tasks were not all folded");
		return;
	}
	idle_rec(&r, 0, root_cgroup);
	emit(&o, NULL, &r, fn, ctx);
}

void td_totals_track_diff(struct td_totals_track *t, enum td_totals_idle idle,
			  uint64_t root_cgroup, td_total_fn fn, void *ctx)
{
	struct topdown_record r;
	bool per_cpu = idle == TD_TOTALS_IDLE_PER_CPU;

	if (per_cpu && t->folds)
		set_why(t, "the idle tasks' slices are not told apart from "
			"exited tasks' folded totals");
	for (uint32_t c = 0; per_cpu && !t->folds && c < t->last.nr_cpus; c++) {
		idle_rec(&r, c, root_cgroup);
		emit(&t->last.e[c], &t->base.e[c], &r, fn, ctx);
	}
	if (idle == TD_TOTALS_IDLE_SUMMED)
		emit_idle_sum(t, root_cgroup, fn, ctx);
	for (uint32_t i = 0; i < nr_tasks(&t->last); i++)
		emit_task(t, tasks(&t->last)[i], fn, ctx);
	for (uint32_t i = 0; i < t->nr_gone; i++)
		emit_task(t, &t->gone[i], fn, ctx);
}

/* ---- the rows of a live session --------------------------------------- */

const char *td_totals_unusable(const struct td_live *l,
			       const struct td_filter *f, enum td_by by)
{
	if (l->vc->rotated)
		return "rotated groups are estimated from their slices";
	if (f->any)
		return "the filters apply to each slice";
	if (by == TD_BY_CPU)
		return "a task's totals are not kept per CPU";
	return NULL;
}

bool td_totals_begin(struct td_totals_track *t, const struct td_live *l,
		     const struct td_filter *f, enum td_by by,
		     td_total_match_fn match, void *ctx, const char **why)
{
	int ret;

	*why = NULL;
	if (!(l->rd.cfg.flags & TOPDOWN_CONFIG_TOTALS))
		return false;
	*why = td_totals_unusable(l, f, by);
	if (*why)
		return false;
	ret = td_totals_track_open(t, &l->rd, match, ctx);
	if (!ret)
		return true;
	set_err(t, ret);
	*why = t->why;
	return false;
}

struct rows_ctx {
	struct td_totals_track *t;
	struct td_agg *a;
	const char *why;
};

static void on_row(const struct topdown_record *r, uint64_t slices,
		   uint64_t unmeasured, void *ctx)
{
	struct rows_ctx *c = ctx;

	if (!c->t->match(r, c->t->ctx))
		return;
	if (unmeasured && !c->why)
		c->why = "slices with an unreadable counter are estimated "
			 "from the others";
	else
		td_agg_add_sum(c->a, r, slices);
}

const char *td_totals_rows(struct td_totals_track *t, struct td_agg *a,
			   bool idle, uint64_t root_cgroup, bool cgroups)
{
	struct rows_ctx c = { .t = t, .a = a };
	enum td_totals_idle how = !idle ? TD_TOTALS_IDLE_NONE :
				  a->by == TD_BY_CGROUP ? TD_TOTALS_IDLE_SUMMED :
				  TD_TOTALS_IDLE_PER_CPU;

	td_totals_track_update(t);
	td_totals_track_diff(t, how, root_cgroup, on_row, &c);
	if (!c.why)
		c.why = t->why;
	/* A task's totals are in the cgroup of its last slice. */
	if (!c.why && cgroups) {
		if (t->moved)
			c.why = "a task moved to another cgroup while counted "
				"(the totals are per task)";
		else if (t->moves_unknown)
			c.why = "the module does not say whether a task moved "
				"to another cgroup";
	}
	if (!c.why && a->oom)
		c.why = "out of memory";
	return c.why;
}

/* ---- running differences ---------------------------------------------- */

struct step {
	td_total_step_fn fn;
	void *ctx;
	struct topdown_total other;	/* what was folded since */
};

/* td_totals_track_step() of one task, as it is @now and @was before. */
static void step_task(struct td_totals_track *t, const struct topdown_total *now,
		      const struct topdown_total *was, void *ctx)
{
	struct step *st = ctx;
	struct topdown_total d;

	(void)t;
	if (!now) {
		total_acc(&st->other, was, NULL, true);
		return;
	}
	memset(&d, 0, sizeof(d));
	total_acc(&d, now, was, false);
	if (!d.slices)
		return;
	d.kind = now->kind;
	d.cpu = now->cpu;
	d.pid = now->pid;
	d.tgid = now->tgid;
	d.start_ns = now->start_ns;
	d.cgroup_id = now->cgroup_id;
	memcpy(d.comm, now->comm, sizeof(d.comm));
	st->fn(&d, st->ctx);
}

int td_totals_track_step(struct td_totals_track *t, td_total_step_fn fn,
			 void *ctx)
{
	struct td_totals_snap s;
	struct step st;
	int ret = snap(t, t->fd, &s);

	if (ret)
		return ret;
	if (s.nr_cpus != t->last.nr_cpus || s.q.generation < t->last.q.generation) {
		snap_free(&s);
		return -ESTALE;
	}
	memset(&st.other, 0, sizeof(st.other));
	st.fn = fn;
	st.ctx = ctx;
	pair_walk(&s, &t->last, step_task, t, &st);
	/*
	 * The OTHER entries grew by what was folded since, whole: of an
	 * entry seen before, the part given to its task then is not theirs
	 * (step_task() took it off).
	 */
	cpus_grew(&st.other, &s, &t->last);
	st.other.kind = TOPDOWN_TOTAL_OTHER;
	/* Never below 0 (each was folded whole), but a counter must not wrap. */
	if (st.other.slices && st.other.slices < (uint64_t)1 << 63)
		fn(&st.other, ctx);
	t->folds += s.q.generation - t->last.q.generation;
	snap_retire(t, &t->last);
	t->last = s;
	return 0;
}
