// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of user/live/totals.c, the readers' side of the module's
 * totals, against a module played here: this file defines td_dev_status()
 * and td_dev_totals() (live/device.h), which return the entries the test
 * sets, so the archive's device.c is not linked. From the UAPI header's
 * "Totals" section: a task's entry grows, an exited task's entry is
 * folded whole into a CPU's OTHER entry (generation counts the folds), a
 * moved task counts cgroup_moves. Checked: the running differences that
 * serve adds up (td_totals_track_step()) sum to what the entries grew
 * by, folds included, never twice; stat's differences since the start
 * (td_totals_track_diff()) keep a folded task seen exited and say why
 * when a task was folded unseen or moved cgroup; top's rows of each
 * interval (td_totals_rows(), td_totals_track_rebase()) are the
 * interval's, exact or not by what happened in it, the idle tasks
 * summed with --by cgroup whatever was folded; and the rules of stat and
 * top (td_totals_unusable()). Prints TAP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "live/collect.h"
#include "live/device.h"
#include "live/totals.h"
#include "tap.h"

#define NCPU	2
#define MAXE	16

/* The module as the test plays it: OTHER entries, then tasks. */
static struct {
	struct topdown_total e[MAXE];
	uint32_t ntasks;
	uint64_t generation;
	uint32_t entry_size;
} mod;

int td_dev_status(int fd, struct topdown_status *st)
{
	(void)fd;
	memset(st, 0, sizeof(*st));
	st->nr_cpus = NCPU;
	return 0;
}

int td_dev_totals(int fd, struct topdown_totals *q, struct topdown_total **buf,
		  uint32_t *cap, uint32_t *n)
{
	(void)fd;
	memset(q, 0, sizeof(*q));
	*n = NCPU + mod.ntasks;
	if (*n > *cap) {
		struct topdown_total *b = realloc(*buf, *n * sizeof(*b));

		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = *n;
	}
	/* What was there before is overwritten, as the module does. */
	memset(*buf, 0x5a, *cap * sizeof(**buf));
	memcpy(*buf, mod.e, *n * sizeof(**buf));
	q->nr_entries = *n;
	q->nr_tasks = mod.ntasks;
	q->generation = mod.generation;
	q->entry_size = mod.entry_size;
	return 0;
}

static void reset(void)
{
	memset(&mod, 0, sizeof(mod));
	mod.entry_size = sizeof(struct topdown_total);
	for (int c = 0; c < NCPU; c++) {
		mod.e[c].kind = TOPDOWN_TOTAL_OTHER;
		mod.e[c].cpu = c;
	}
}

static struct topdown_total *task(uint32_t pid)
{
	for (uint32_t i = NCPU; i < NCPU + mod.ntasks; i++)
		if (mod.e[i].pid == pid)
			return &mod.e[i];
	return NULL;
}

static struct topdown_total *add_task(uint32_t pid, uint64_t cgroup)
{
	struct topdown_total *e = &mod.e[NCPU + mod.ntasks++];

	memset(e, 0, sizeof(*e));
	e->kind = TOPDOWN_TOTAL_TASK;
	e->pid = pid;
	e->tgid = pid;
	e->start_ns = 1000 + pid;
	e->cgroup_id = cgroup;
	snprintf(e->comm, sizeof(e->comm), "t%u", pid);
	return e;
}

/* n slices of 10 ns and count 7 each, measured by group 0. */
static void slices(struct topdown_total *e, uint64_t n)
{
	e->slices += n;
	e->time_ns += 10 * n;
	e->grp_slices[0] += n;
	e->grp_time_ns[0] += 10 * n;
	e->grp_delta[0][0] += 7 * n;
}

/* The module folds @pid's entry into CPU @cpu's OTHER and frees it. */
static void fold(uint32_t pid, int cpu)
{
	struct topdown_total *e = task(pid), *o = &mod.e[cpu];

	o->slices += e->slices;
	o->time_ns += e->time_ns;
	o->grp_slices[0] += e->grp_slices[0];
	o->grp_time_ns[0] += e->grp_time_ns[0];
	o->grp_delta[0][0] += e->grp_delta[0][0];
	*e = mod.e[NCPU + --mod.ntasks];
	mod.generation++;
}

/* What td_totals_track_step() gave, per pid (0: OTHER). */
static struct {
	uint64_t slices[16], count[16];
	int calls;
} got;

static void on_step(const struct topdown_total *d, void *ctx)
{
	uint32_t pid = d->kind == TOPDOWN_TOTAL_OTHER ? 0 : d->pid;

	(void)ctx;
	got.slices[pid] += d->slices;
	got.count[pid] += d->grp_delta[0][0];
	got.calls++;
}

static void test_step(void)
{
	struct td_totals_track t;
	uint64_t sum = 0;

	reset();
	slices(add_task(1, 5), 10);
	slices(add_task(2, 5), 5);
	slices(&mod.e[0], 3);		/* idle */
	ok(!td_totals_track_start(&t, -1, td_total_match_all, NULL), "step: the first snapshot");

	/* 1 runs on, 2 runs 3 more and is folded unseen, 3 is born, idle 2. */
	slices(task(1), 5);
	slices(task(2), 3);
	task(2)->kind = TOPDOWN_TOTAL_EXITED;
	fold(2, 1);
	slices(add_task(3, 5), 4);
	slices(&mod.e[0], 2);
	memset(&got, 0, sizeof(got));
	ok(!td_totals_track_step(&t, on_step, NULL), "step: the next one");
	for (int i = 0; i < 16; i++)
		sum += got.slices[i];
	ok(got.slices[1] == 5 && got.count[1] == 35,
	   "step: task 1 grew by 5 slices, count 35 (%llu, %llu)",
	   (unsigned long long)got.slices[1], (unsigned long long)got.count[1]);
	ok(got.slices[3] == 4, "step: task 3, born since, all its 4 slices (%llu)",
	   (unsigned long long)got.slices[3]);
	ok(got.slices[2] == 0, "step: task 2, folded, nothing as itself (%llu)",
	   (unsigned long long)got.slices[2]);
	ok(got.slices[0] == 5 && got.count[0] == 35,
	   "step: OTHER has task 2's 3 unseen slices and 2 idle, not its 5 seen (%llu, %llu)",
	   (unsigned long long)got.slices[0], (unsigned long long)got.count[0]);
	ok(sum == 14, "step: the differences add up to what the entries grew by (14: %llu)",
	   (unsigned long long)sum);

	/* Nothing changed: nothing given. */
	memset(&got, 0, sizeof(got));
	ok(!td_totals_track_step(&t, on_step, NULL) && got.calls == 0,
	   "step: no slice since, no difference (%d calls)", got.calls);

	/* Configured again: the generation goes back. */
	mod.generation = 0;
	ok(td_totals_track_step(&t, on_step, NULL) == -ESTALE,
	   "step: a generation that went back is -ESTALE");
	td_totals_track_free(&t);
}

/* What td_totals_track_diff() gave, per pid. */
static uint64_t diff_slices[16];

static void on_diff(const struct topdown_record *r, uint64_t n, uint64_t unmeasured,
		    void *ctx)
{
	(void)unmeasured;
	(void)ctx;
	if (!(r->flags & TOPDOWN_REC_IDLE) && r->pid < 16)
		diff_slices[r->pid] += n;
}

static void test_diff(void)
{
	struct td_totals_track t;

	/* A task seen exited and then folded keeps its slices. */
	reset();
	slices(add_task(1, 5), 2);
	td_totals_track_start(&t, -1, td_total_match_all, NULL);
	slices(task(1), 6);
	task(1)->kind = TOPDOWN_TOTAL_EXITED;
	td_totals_track_update(&t);
	fold(1, 0);
	slices(add_task(2, 5), 1);
	td_totals_track_update(&t);
	memset(diff_slices, 0, sizeof(diff_slices));
	td_totals_track_diff(&t, false, 1, on_diff, NULL);
	ok(!t.why && diff_slices[1] == 6 && diff_slices[2] == 1,
	   "diff: a task seen exited, then folded, keeps its 6 slices (%llu; %s)",
	   (unsigned long long)diff_slices[1], t.why ? t.why : "exact");
	td_totals_track_free(&t);

	/* A task born and folded between two snapshots: not exact. */
	reset();
	slices(add_task(1, 5), 2);
	td_totals_track_start(&t, -1, td_total_match_all, NULL);
	slices(add_task(2, 5), 3);
	fold(2, 0);
	td_totals_track_update(&t);
	ok(t.why, "diff: a task born and folded unseen: not exact (%s)",
	   t.why ? t.why : "exact");
	td_totals_track_free(&t);

	/* A task that moves cgroup is counted in moved. */
	reset();
	slices(add_task(1, 5), 2);
	slices(add_task(2, 5), 2);
	td_totals_track_start(&t, -1, td_total_match_all, NULL);
	slices(task(1), 1);
	task(1)->cgroup_id = 6;
	task(1)->cgroup_moves = 1;
	slices(task(2), 4);
	td_totals_track_update(&t);
	ok(t.moved == 1 && !t.moves_unknown, "diff: one task moved cgroup (moved %llu)",
	   (unsigned long long)t.moved);
	td_totals_track_free(&t);

	/* A module whose entries have no cgroup_moves: it is not known. */
	reset();
	mod.entry_size = TOPDOWN_TOTAL_SIZE_VER0;
	slices(add_task(1, 5), 2);
	td_totals_track_start(&t, -1, td_total_match_all, NULL);
	td_totals_track_update(&t);
	ok(t.moves_unknown, "diff: VER0 entries: whether a task moved is not known");
	td_totals_track_free(&t);
}

/* The row of pid (cpu: the idle task's) in a, or NULL. */
static const struct td_bucket *row(const struct td_agg *a, uint32_t pid,
				   uint32_t cpu, uint64_t cgroup)
{
	struct topdown_record r = { .pid = pid, .tgid = pid, .cpu = cpu,
				    .cgroup_id = cgroup };

	return td_agg_find(a, &r);
}

static uint64_t row_slices(const struct td_agg *a, uint32_t pid, uint32_t cpu,
			   uint64_t cgroup)
{
	const struct td_bucket *b = row(a, pid, cpu, cgroup);

	return b ? b->slices : 0;
}

/* One interval of top: its rows from the totals, then the next's start. */
static const char *next_rows(struct td_totals_track *t, struct td_agg *a)
{
	const char *why;

	td_agg_clear(a);
	why = td_totals_rows(t, a, true, 1, a->by == TD_BY_CGROUP);
	ok(!td_totals_track_rebase(t), "rows: the last snapshot becomes the start of what follows");
	return why;
}

static void test_rows(void)
{
	struct td_totals_track t;
	struct td_agg a;
	const char *why;

	/* --by task: each interval's slices, the idle tasks' per CPU. */
	reset();
	slices(add_task(1, 5), 10);
	slices(&mod.e[1], 4);
	td_agg_init(&a, TD_BY_TASK);
	ok(!td_totals_track_start(&t, -1, td_total_match_all, NULL),
	   "rows: the first snapshot");
	slices(task(1), 5);
	slices(add_task(2, 5), 3);
	slices(&mod.e[0], 2);
	why = next_rows(&t, &a);
	ok(!why && row_slices(&a, 1, 0, 0) == 5 && row_slices(&a, 2, 0, 0) == 3 &&
	   row_slices(&a, 0, 0, 0) == 2 && !row(&a, 0, 1, 0) && a.total.slices == 10,
	   "rows: interval 1 exact, task 1 5 slices, task 2 3, CPU 0 idle 2 (%llu %llu %llu; %s)",
	   (unsigned long long)row_slices(&a, 1, 0, 0),
	   (unsigned long long)row_slices(&a, 2, 0, 0),
	   (unsigned long long)row_slices(&a, 0, 0, 0), why ? why : "exact");
	ok(row(&a, 1, 0, 0) && row(&a, 1, 0, 0)->counts[0] == 35 &&
	   row(&a, 1, 0, 0)->runtime_ns == 50,
	   "rows: task 1's counts and run time are the interval's (35, 50 ns)");

	/* 2 exits, seen; then folded while 1 runs: interval 2 has each once. */
	slices(task(2), 1);
	task(2)->kind = TOPDOWN_TOTAL_EXITED;
	td_totals_track_update(&t);
	fold(2, 1);
	slices(task(1), 7);
	slices(&mod.e[1], 6);
	why = next_rows(&t, &a);
	ok(row_slices(&a, 1, 0, 0) == 7 && row_slices(&a, 2, 0, 0) == 1,
	   "rows: interval 2, task 2 seen exited then folded: its last slice, none before (%llu)",
	   (unsigned long long)row_slices(&a, 2, 0, 0));
	/* ... but the fold makes the idle tasks' split by CPU unknown. */
	ok(why && strstr(why, "idle"), "rows: interval 2 by task, a fold: %s",
	   why ? why : "exact");

	/* Interval 3: nothing folded, exact again (why is the interval's). */
	slices(task(1), 2);
	slices(&mod.e[1], 1);
	why = next_rows(&t, &a);
	ok(!why && row_slices(&a, 1, 0, 0) == 2 && row_slices(&a, 0, 1, 0) == 1 &&
	   !row(&a, 2, 0, 0),
	   "rows: interval 3 exact again: task 1 2 slices, CPU 1 idle 1 (%s)",
	   why ? why : "exact");

	/* Interval 4: a task born and folded unseen: not exact. */
	slices(add_task(3, 5), 2);
	task(3)->kind = TOPDOWN_TOTAL_EXITED;
	fold(3, 0);
	why = next_rows(&t, &a);
	ok(why && strstr(why, "folded"), "rows: interval 4, a task folded unseen: %s",
	   why ? why : "exact");
	td_totals_track_free(&t);
	td_agg_free(&a);
}

static void test_rows_cgroup(void)
{
	struct td_totals_track t;
	struct td_agg a;
	const char *why;

	/* --by cgroup: the idle tasks summed, exact even with folds. */
	reset();
	slices(add_task(1, 5), 2);
	slices(add_task(2, 6), 2);
	td_agg_init(&a, TD_BY_CGROUP);
	td_totals_track_start(&t, -1, td_total_match_all, NULL);
	slices(task(2), 3);
	task(2)->kind = TOPDOWN_TOTAL_EXITED;
	td_totals_track_update(&t);
	fold(2, 0);
	slices(task(1), 4);
	slices(&mod.e[0], 5);
	slices(&mod.e[1], 1);
	why = next_rows(&t, &a);
	ok(!why && row_slices(&a, 0, 0, 5) == 4 && row_slices(&a, 0, 0, 6) == 3 &&
	   row_slices(&a, 0, 0, 1) == 6,
	   "rows by cgroup: a fold, yet exact: cgroups 5 and 6 4 and 3, the root's idle 6 (%llu %llu %llu; %s)",
	   (unsigned long long)row_slices(&a, 0, 0, 5),
	   (unsigned long long)row_slices(&a, 0, 0, 6),
	   (unsigned long long)row_slices(&a, 0, 0, 1), why ? why : "exact");

	/* A task that moves cgroup: that interval is not exact, the next is. */
	slices(task(1), 1);
	task(1)->cgroup_id = 6;
	task(1)->cgroup_moves = 1;
	why = next_rows(&t, &a);
	ok(why && strstr(why, "moved"), "rows by cgroup: a task moved: %s",
	   why ? why : "exact");
	slices(task(1), 2);
	why = next_rows(&t, &a);
	ok(!why && row_slices(&a, 0, 0, 6) == 2 && !row(&a, 0, 0, 5),
	   "rows by cgroup: the next interval, exact in its new cgroup (%s)",
	   why ? why : "exact");
	td_totals_track_free(&t);
	td_agg_free(&a);
}

/* The rules of stat and top: when the totals can stand for the records. */
static void test_unusable(void)
{
	struct td_view_cfg vc;
	struct td_live l;
	struct td_filter f;

	memset(&vc, 0, sizeof(vc));
	memset(&l, 0, sizeof(l));
	l.vc = &vc;
	td_filter_init(&f);
	ok(!td_totals_unusable(&l, &f, TD_BY_TASK) &&
	   !td_totals_unusable(&l, &f, TD_BY_CGROUP) &&
	   !td_totals_unusable(&l, &f, TD_BY_COMM) &&
	   !td_totals_unusable(&l, &f, TD_BY_PROCESS),
	   "unusable: by task, process, comm and cgroup, the totals can be used");
	ok(!!td_totals_unusable(&l, &f, TD_BY_CPU),
	   "unusable: by cpu: %s", td_totals_unusable(&l, &f, TD_BY_CPU));
	vc.rotated = true;
	ok(!!td_totals_unusable(&l, &f, TD_BY_TASK),
	   "unusable: rotated groups: %s", td_totals_unusable(&l, &f, TD_BY_TASK));
	vc.rotated = false;
	td_filter_opt(&f, TD_FILTER_COMM, "x");
	ok(!!td_totals_unusable(&l, &f, TD_BY_TASK),
	   "unusable: a filter: %s", td_totals_unusable(&l, &f, TD_BY_TASK));
}

int main(void)
{
	test_step();
	test_diff();
	test_rows();
	test_rows_cgroup();
	test_unusable();
	return tap_done();
}
