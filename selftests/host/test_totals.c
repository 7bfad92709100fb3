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
 * when a task was folded unseen or moved cgroup. Prints TAP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int td_dev_totals(int fd, struct topdown_totals *q, struct topdown_total **out,
		  uint32_t *n)
{
	(void)fd;
	memset(q, 0, sizeof(*q));
	*n = NCPU + mod.ntasks;
	*out = calloc(*n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, mod.e, *n * sizeof(**out));
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

static bool all(const struct topdown_record *r, void *ctx)
{
	(void)r;
	(void)ctx;
	return true;
}

static void test_step(void)
{
	struct td_totals_track t;
	uint64_t sum = 0;

	reset();
	slices(add_task(1, 5), 10);
	slices(add_task(2, 5), 5);
	slices(&mod.e[0], 3);		/* idle */
	ok(!td_totals_track_start(&t, -1, all, NULL), "step: the first snapshot");

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
	td_totals_track_start(&t, -1, all, NULL);
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
	td_totals_track_start(&t, -1, all, NULL);
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
	td_totals_track_start(&t, -1, all, NULL);
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
	td_totals_track_start(&t, -1, all, NULL);
	td_totals_track_update(&t);
	ok(t.moves_unknown, "diff: VER0 entries: whether a task moved is not known");
	td_totals_track_free(&t);
}

int main(void)
{
	test_step();
	test_diff();
	return tap_done();
}
