// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task totals (TOPDOWN_CONFIG_TOTALS, "Totals" in the UAPI header):
 * the sums of every task's slices, kept by the sched_switch probe, so that
 * they are exact whatever the rings' reader does.
 *
 * The pool is an open-addressing table of td_totals.nr entries (a power of
 * two) keyed by the task_struct's address, searched from hash_ptr() over
 * at most TD_TOT_PROBES slots. A slot's key only goes from 0 (free) to a
 * task, from a task to the task | TD_TOT_EXITED after its last slice, and
 * from an exited task to a new one (the claim, a cmpxchg, folds the old
 * sums into the claiming CPU's OTHER entry): never back to 0 until the
 * next START makes a new pool. So a search that meets a free slot knows
 * the task is not further on, and a task's entry never moves. A new task
 * takes the first exited slot that a copy begun after the exit has read,
 * or else the first free one, or else the first exited one: an exited
 * task's sums are folded unread only when there is no other room.
 *
 * Writers: a task's entry is written by the CPU the task leaves, at each of
 * its switches: one CPU at a time, as a task runs on one CPU at a time,
 * and the claim of a slot is exclusive. A CPU's OTHER entry is written
 * only on that CPU. All of it in the probe, IRQs off. Each
 * entry has a sequence count for TOPDOWN_IOC_TOTALS, which reads it from
 * process context: a writer never waits, a reader retries.
 *
 * The task at an address may have exited unseen (its last slice on a CPU
 * that was not counting): its entry keeps the address, and the next task
 * allocated there finds it. The task's start time tells them apart, and
 * the old sums are folded as an exited task's.
 */
#include <linux/hash.h>
#include <linux/kref.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "td_compat.h"
#include "td_internal.h"

/* Slots a task's search looks at, from its hash on. */
#define TD_TOT_PROBES	32
/* In a slot's key: the task's last slice has ended (it exited). */
#define TD_TOT_EXITED	1UL

/*
 * One entry: the fields of struct topdown_total that change, then per
 * group g, at v[td_totals.off[g]]: slices, time_ns, the deltas of its
 * td.grp_nr[g] events.
 */
struct td_tot {
	seqcount_t seq;
	u32 cpu;
	u32 exit_read;		/* td_totals.reads at its last slice */
	unsigned long key;	/* the task | TD_TOT_EXITED, 0: free */
	u64 start_ns;
	u32 pid;
	u32 tgid;
	u64 cgroup_id;
	u64 cgroup_moves;
	char comm[TOPDOWN_COMM_LEN];
	u64 slices;
	u64 time_ns;
	u64 unmeasured_ns;
	u64 v[];
};

struct td_totals {
	struct kref ref;
	u32 nr;			/* task entries, a power of two */
	u32 bits;		/* ilog2(nr) */
	u32 esize;		/* bytes of an entry */
	atomic_t reads;		/* TOPDOWN_IOC_TOTALS copies begun */
	u32 nr_groups;
	u32 grp_nr[TOPDOWN_MAX_GROUPS];
	u32 off[TOPDOWN_MAX_GROUPS];
	u32 nv;			/* u64 of v[] */
	atomic64_t generation;	/* folds of a task's entry */
	atomic64_t no_room;
	atomic64_t reclaimed;
	u8 *cpus;		/* per possible CPU: its OTHER entry */
	u8 *pool;		/* nr entries */
};

static struct td_tot *td_tot_at(const struct td_totals *t, u8 *base, u32 i)
{
	return (struct td_tot *)(base + (size_t)i * t->esize);
}

/* The TOPDOWN_TOTAL_OTHER entry of @cpu. */
static struct td_tot *td_tot_other(const struct td_totals *t, int cpu)
{
	return td_tot_at(t, t->cpus, cpu);
}

/* Process context, td.lock held: a zeroed pool for the configuration. */
struct td_totals *td_totals_alloc(const struct topdown_config *cfg)
{
	struct td_totals *t;
	size_t bytes;
	u32 g, nv = 0;

	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return ERR_PTR(-ENOMEM);
	kref_init(&t->ref);
	t->nr = cfg->totals_tasks;
	t->bits = ilog2(t->nr);
	t->nr_groups = td.nr_groups;
	for (g = 0; g < t->nr_groups; g++) {
		t->grp_nr[g] = td.grp_nr[g];
		t->off[g] = nv;
		nv += 2 + t->grp_nr[g];
	}
	t->nv = nv;
	/* Cache lines of their own: neighbours are written by other CPUs. */
	t->esize = ALIGN(struct_size((struct td_tot *)NULL, v, nv), SMP_CACHE_BYTES);
	bytes = (size_t)t->esize * (t->nr + nr_cpu_ids);
	t->cpus = kvzalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!t->cpus) {
		kfree(t);
		return ERR_PTR(-ENOMEM);
	}
	t->pool = t->cpus + (size_t)t->esize * nr_cpu_ids;
	return t;
}

static void td_totals_release(struct kref *ref)
{
	struct td_totals *t = container_of(ref, struct td_totals, ref);

	kvfree(t->cpus);
	kfree(t);
}

void td_totals_put(struct td_totals *t)
{
	if (t)
		kref_put(&t->ref, td_totals_release);
}

/* Probe context, @e's only writer, in its write section: one slice. */
static __always_inline void td_tot_sum(const struct td_totals *t, struct td_tot *e,
				       u32 flags, const u64 *delta, u64 dur)
{
	u32 g = TOPDOWN_REC_GROUP(flags), j, n;
	u64 *v;

	e->slices++;
	e->time_ns += dur;
	if (unlikely(flags & (TOPDOWN_REC_ERROR_MASK | TOPDOWN_REC_ROTATED) ||
		     g >= t->nr_groups)) {
		e->unmeasured_ns += dur;
	} else {
		v = e->v + t->off[g];
		n = t->grp_nr[g];	/* once: the stores below may alias it */
		v[0]++;
		v[1] += dur;
		v += 2;
		for (j = 0; j < n; j++)
			v[j] += delta[j];
	}
}

/* Probe context: add one slice to @e (its only writer now). */
static __always_inline void td_tot_add(const struct td_totals *t, struct td_tot *e,
				       u32 flags, const u64 *delta, u64 dur)
{
	raw_write_seqcount_begin(&e->seq);
	td_tot_sum(t, e, flags, delta, dur);
	raw_write_seqcount_end(&e->seq);
}

/* Probe context: @from's sums into @to (this CPU's OTHER entry). */
static noinline void td_tot_fold(const struct td_totals *t, struct td_tot *to,
				 const struct td_tot *from)
{
	u32 i;

	raw_write_seqcount_begin(&to->seq);
	to->slices += from->slices;
	to->time_ns += from->time_ns;
	to->unmeasured_ns += from->unmeasured_ns;
	for (i = 0; i < t->nv; i++)
		to->v[i] += from->v[i];
	raw_write_seqcount_end(&to->seq);
}

/*
 * Probe context: @e (claimed, this CPU its only writer) becomes @p's,
 * its old sums, if any, folded into @other first.
 */
static noinline void td_tot_take(struct td_totals *t, struct td_tot *e,
				 struct td_tot *other, struct task_struct *p,
				 bool had_sums)
{
	if (had_sums) {
		td_tot_fold(t, other, e);
		atomic64_inc(&t->generation);
	}
	raw_write_seqcount_begin(&e->seq);
	e->start_ns = p->start_time;
	e->slices = 0;
	e->cgroup_moves = 0;
	e->time_ns = 0;
	e->unmeasured_ns = 0;
	memset(e->v, 0, t->nv * sizeof(u64));
	raw_write_seqcount_end(&e->seq);
}

/*
 * Probe context: @p's entry, a new one claimed if it has none (NULL: no
 * room within TD_TOT_PROBES slots).
 */
static struct td_tot *td_tot_find(struct td_totals *t, struct task_struct *p,
				  struct td_tot *other)
{
	unsigned long key = (unsigned long)p, k, old, unread_old;
	u32 mask = t->nr - 1, first = hash_ptr(p, t->bits), i, n, reads;
	struct td_tot *e, *room, *unread;
	int tries;

	/* litmus: totals-claim begin */
	reads = atomic_read(&t->reads);
	for (tries = 0; tries < 2; tries++) {
		room = NULL;
		unread = NULL;
		old = 0;
		unread_old = 0;
		for (n = 0, i = first; n < TD_TOT_PROBES; n++, i = (i + 1) & mask) {
			e = td_tot_at(t, t->pool, i);
			/* Pairs with the release of an exit: its sums are in. */
			k = smp_load_acquire(&e->key);
			if (k == key) {
				if (likely(e->start_ns == p->start_time))
					return e;
				/* An earlier task at this address, exited unseen. */
				td_tot_take(t, e, other, p, true);
				atomic64_inc(&t->reclaimed);
				return e;
			}
			if (!k) {
				if (!room)
					room = e;
				break;
			}
			if (!(k & TD_TOT_EXITED) || room)
				continue;
			/*
			 * A hint only: a stale value picks other room, and the
			 * reader says when an entry was folded unread.
			 */
			if (reads - data_race(e->exit_read) >= 2) {
				room = e;
				old = k;
			} else if (!unread) {
				unread = e;
				unread_old = k;
			}
		}
		if (!room) {
			room = unread;
			old = unread_old;
		}
		if (!room)
			return NULL;
		/* Another CPU may claim the same slot for its task: one wins. */
		if (cmpxchg(&room->key, old, key) == old) {
			td_tot_take(t, room, other, p, old != 0);
			if (old)
				atomic64_inc(&t->reclaimed);
			return room;
		}
	}
	/* litmus: totals-claim end */
	return NULL;
}

/*
 * Probe context (IRQs off, on @cpu): one slice of @p, its record's @flags
 * and @delta, @dur long, in @cgroup_id.
 */
void td_totals_slice(struct task_struct *p, int cpu, u32 flags,
		     const u64 *delta, u64 dur, u64 cgroup_id)
{
	struct td_totals *t = td.totals;
	struct td_tot *other = td_tot_other(t, cpu), *e;

	if (is_idle_task(p)) {
		td_tot_add(t, other, flags, delta, dur);
		return;
	}
	e = td_tot_find(t, p, other);
	if (unlikely(!e)) {
		atomic64_inc(&t->no_room);
		td_tot_add(t, other, flags, delta, dur);
		return;
	}
	/* Who it is now, with the sums it has now. */
	/* litmus: totals-exit begin */
	raw_write_seqcount_begin(&e->seq);
	e->cpu = cpu;
	e->pid = p->pid;
	e->tgid = p->tgid;
	if (e->slices && e->cgroup_id != cgroup_id)
		e->cgroup_moves++;
	e->cgroup_id = cgroup_id;
	memcpy(e->comm, p->comm, TOPDOWN_COMM_LEN);
	td_tot_sum(t, e, flags, delta, dur);
	raw_write_seqcount_end(&e->seq);
	/* Its last slice: readable as EXITED until a task needs the room. */
	if (td_task_dead(p)) {
		e->exit_read = atomic_read(&t->reads);
		/*
		 * Pairs with td_tot_find()'s load-acquire of the key: the CPU
		 * that reclaims the slot folds these sums, all of them.
		 */
		smp_store_release(&e->key, (unsigned long)p | TD_TOT_EXITED);
	}
	/* litmus: totals-exit end */
}

/*
 * Process context: @e copied consistently into @out; false if it has no
 * slice (free, or just claimed: a claim changes the key before the
 * claiming CPU clears the entry, so the key and the sums of a slot being
 * claimed may be of two tasks; the fold that comes with reclaiming an
 * exited task's slot bumps td_totals.generation, which the caller
 * checks).
 */
static bool td_tot_read(const struct td_totals *t, const struct td_tot *e,
			struct td_tot *buf, struct topdown_total *out)
{
	unsigned int seq;
	unsigned long key;
	u32 g, j;

	do {
		seq = raw_read_seqcount_begin(&e->seq);
		key = READ_ONCE(e->key);
		memcpy(buf, e, t->esize);
	} while (read_seqcount_retry(&e->seq, seq));
	memset(out, 0, sizeof(*out));
	out->cpu = buf->cpu;
	out->pid = buf->pid;
	out->tgid = buf->tgid;
	out->start_ns = buf->start_ns;
	out->cgroup_id = buf->cgroup_id;
	out->cgroup_moves = buf->cgroup_moves;
	memcpy(out->comm, buf->comm, sizeof(out->comm));
	out->slices = buf->slices;
	out->time_ns = buf->time_ns;
	out->unmeasured_ns = buf->unmeasured_ns;
	for (g = 0; g < t->nr_groups; g++) {
		const u64 *v = buf->v + t->off[g];

		out->grp_slices[g] = v[0];
		out->grp_time_ns[g] = v[1];
		for (j = 0; j < t->grp_nr[g]; j++)
			out->grp_delta[g][j] = v[2 + j];
	}
	out->kind = key & TD_TOT_EXITED ? TOPDOWN_TOTAL_EXITED : TOPDOWN_TOTAL_TASK;
	return key && buf->slices;
}

/* One pass of td_totals_copy(). */
static int td_totals_pass(struct td_totals *t, struct topdown_totals *q,
			  void __user *to, u32 cap, u32 stride, u32 len,
			  struct td_tot *buf, struct topdown_total *out)
{
	u32 i, written = 0, tasks = 0;
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		td_tot_read(t, td_tot_other(t, cpu), buf, out);
		out->kind = TOPDOWN_TOTAL_OTHER;
		out->cpu = cpu;
		out->pid = 0;
		out->tgid = 0;
		out->start_ns = 0;
		out->cgroup_id = 0;
		memset(out->comm, 0, sizeof(out->comm));
		if (written < cap &&
		    copy_to_user(to + (size_t)written++ * stride, out, len))
			return -EFAULT;
	}
	for (i = 0; i < t->nr; i++) {
		const struct td_tot *e = td_tot_at(t, t->pool, i);

		if (!READ_ONCE(e->key) || !td_tot_read(t, e, buf, out))
			continue;
		tasks++;
		if (written < cap &&
		    copy_to_user(to + (size_t)written++ * stride, out, len))
			return -EFAULT;
		if (!(i & 255))
			cond_resched();
	}
	q->nr_entries = written;
	q->nr_tasks = tasks;
	return 0;
}

/* Passes of td_totals_copy() while entries keep being folded. */
#define TD_TOT_PASSES	4

/*
 * Process context, no lock: TOPDOWN_IOC_TOTALS of @t (a reference held):
 * the CPUs' entries, then the tasks', each into @to at @stride (@len bytes
 * each) while @cap lasts, and @q's counts. Again while an entry was folded
 * during the pass, a few times: @q->generation is the value before the
 * last pass, and TOPDOWN_TOTALS_MOVED says it changed during it.
 */
int td_totals_copy(struct td_totals *t, struct topdown_totals *q,
		   void __user *to, u32 cap, u32 stride, u32 len)
{
	struct topdown_total *out;
	struct td_tot *buf;
	int pass, ret = 0;
	u64 gen;

	out = kmalloc(sizeof(*out), GFP_KERNEL);
	buf = kmalloc(t->esize, GFP_KERNEL);
	if (!out || !buf) {
		ret = -ENOMEM;
		goto free;
	}
	q->flags = 0;
	if (cap)
		atomic_inc(&t->reads);
	for (pass = 0; pass < TD_TOT_PASSES; pass++) {
		gen = atomic64_read(&t->generation);
		ret = td_totals_pass(t, q, to, cap, stride, len, buf, out);
		if (ret || atomic64_read(&t->generation) == gen)
			break;
	}
	if (!ret && pass == TD_TOT_PASSES)
		q->flags = TOPDOWN_TOTALS_MOVED;
	q->generation = gen;
	q->pool_tasks = t->nr;
	q->no_room = atomic64_read(&t->no_room);
	q->reclaimed = atomic64_read(&t->reclaimed);
free:
	kfree(buf);
	kfree(out);
	return ret;
}

/* Process context, td.lock held: a reference to the totals, or NULL. */
struct td_totals *td_totals_get(void)
{
	struct td_totals *t = td.totals;

	lockdep_assert_held(&td.lock);
	if (t)
		kref_get(&t->ref);
	return t;
}
