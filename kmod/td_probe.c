// SPDX-License-Identifier: GPL-2.0
/*
 * The sched_switch probe: one record per finished time slice.
 *
 * Runs inside __schedule() with interrupts off and the runqueue lock held.
 * It must not sleep, take locks, print or wake anybody; wake-ups are
 * deferred through irq_work (td_ring_write). It touches only the state of
 * the CPU it runs on.
 */
#include <linux/cgroup.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "td_compat.h"
#include "td_internal.h"

static struct tracepoint *td_tp_switch;
/* Detached, but calls under way not waited for yet; see td_probe_detach(). */
static bool td_probe_unsynced;

/*
 * Time accounting of the probe itself (STATUS probe_count/probe_ns). It
 * costs one clock read per switch; off, probe_ns stays 0 and only the
 * invocations are counted. Exists so the accounting's cost can be measured.
 */
static bool probe_time __read_mostly = true;
module_param(probe_time, bool, 0644);
MODULE_PARM_DESC(probe_time, "account the time spent in the probe (default: on)");

/*
 * The slow half of td_read(): some counter is not active here (perf could
 * not schedule it, or it failed) or has just come back. A counter that is
 * not active reports 0 and sets its error bit; its baseline is re-read
 * when it comes back, and that first slice also reports 0 with its error
 * bit, so no delta ever spans the gap. While the CPU changes group, every
 * counter is held in resync (td_cpu.hold): no slice then has a delta.
 */
static noinline u32 td_read_resync(struct td_cpu *c, u64 *delta, u32 pending,
				   u32 failed)
{
	u32 rebased = pending & ~failed;
	u32 i;

	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		if (rebased & BIT(i))
			delta[i] = 0;
	c->resync = failed | c->hold;
	return failed | rebased;
}

/*
 * Read the counters of this CPU into delta[]; returns the error bits.
 *
 * This is what perf_event_read_local() does for a pinned, per-CPU,
 * non-inherited event read on its own CPU with interrupts off; that
 * function is not exported to modules. Inlined into the probe: the fast
 * path is one pass over the events with no stores besides delta[] and
 * the new baselines.
 */
static __always_inline u32 td_read(struct td_cpu *c, u64 *delta, int cpu)
{
	/*
	 * Up to the largest group's events: a ring slot may hold a record of
	 * a larger group from the last lap, and unused deltas must read 0.
	 */
	u32 n = c->width, pending = c->resync, failed = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		struct perf_event *ev = c->ev[i];
		u64 val;

		if (!ev) {	/* not configured on this CPU, or past the group */
			delta[i] = 0;
			continue;
		}
		if (unlikely(READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ||
			     READ_ONCE(ev->oncpu) != cpu)) {
			failed |= BIT(i);
			delta[i] = 0;
			continue;
		}
		ev->pmu->read(ev);
		val = local64_read(&ev->count);
		delta[i] = val - c->last[i];
		c->last[i] = val;
	}
	if (unlikely(pending | failed))
		return td_read_resync(c, delta, pending, failed);
	return 0;
}

/* For td_cpu_arm(): take the baselines (IRQs off, on this CPU). */
void td_probe_read(struct td_cpu *c, u64 *delta, u32 *errors)
{
	*errors = td_read(c, delta, smp_processor_id());
}

/* A slice with unreadable counters: per CPU and per event statistics. */
static noinline void td_count_errors(struct td_cpu *c, u32 errors)
{
	u32 i;

	td_stat_add(&c->read_errors, 1);
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		if (errors & BIT(i))
			td_stat_add(&c->ev_err[i], 1);
}

/*
 * Per-group statistics by period (td_cpu.grp_seq's fields): a period of
 * the current group begins at the end of the slice in which it started
 * counting (arm, or the ROTATED slice of a group change) and ends at the
 * end of its last slice (disarm, or the start of a group change). What
 * the per-CPU counts grew by meanwhile is the group's. On this CPU, IRQs
 * off, inside a write section of grp_seq.
 */
void td_grp_period_begin(struct td_cpu *c, u64 start_ns)
{
	c->measuring = true;
	c->start_ns = start_ns;
}

/* The counts since the last call go to the current group (see above). */
void td_grp_period_end(struct td_cpu *c)
{
	u32 g = c->grp, i;

	c->grp_records[g] += c->records - c->base_records;
	c->base_records = c->records;
	c->grp_errors[g] += c->read_errors - c->base_read_errors;
	c->base_read_errors = c->read_errors;
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
		c->grp_ev_err[g][i] += c->ev_err[i] - c->base_ev_err[i];
		c->base_ev_err[i] = c->ev_err[i];
	}
	if (c->measuring)
		c->grp_time_ns[g] += c->last_ns - c->start_ns;
	c->measuring = false;
}

/*
 * The first slice that ends after a group change completed: it has
 * re-read the new group's baselines (td_cpu.resync), so the next slice is
 * measured whole by the new group. The next change waits for that slice
 * to end too (td_cpu.rot_next: this slice and the next one).
 */
static void td_rot_settle(struct td_cpu *c, u64 now)
{
	raw_write_seqcount_begin(&c->grp_seq);
	td_grp_period_begin(c, now);
	c->rot_phase = TD_ROT_NONE;
	c->rot_next = c->probe_count + 2;
	c->grp_flags = TD_REC_GROUP(c->grp);
	raw_write_seqcount_end(&c->grp_seq);
}

/* Flags that take td_slice_flags(): counter errors, a group change. */
#define TD_SLOW_FLAGS	(TOPDOWN_REC_ERROR_MASK | TOPDOWN_REC_ROTATED)

/*
 * A slice with unreadable counters, or one in which the CPU changed group
 * (TOPDOWN_REC_ROTATED: td_read() returned zero deltas, the counters being
 * held in resync). Returns the record's flags.
 */
static noinline u32 td_slice_flags(struct td_cpu *c, u32 flags, u64 now)
{
	if (!(flags & TOPDOWN_REC_ROTATED)) {
		td_count_errors(c, flags & TOPDOWN_REC_ERROR_MASK);
		return flags;
	}
	/* The change is complete: the next slice is the new group's. */
	if (c->rot_phase == TD_ROT_COMMITTED)
		td_rot_settle(c, now);
	/* No group measured it: every error bit, events of other CPUs too. */
	return flags | GENMASK(c->nr - 1, 0);
}

/*
 * cgroup v2 id of the task leaving the CPU. The probe runs with interrupts
 * off, which is an RCU read-side critical section (a css_set and its
 * cgroup are freed only after a grace period), so rcu_read_lock() is not
 * needed: on a PREEMPT_RCU kernel it is two calls per context switch.
 */
static __always_inline u64 td_prev_cgroup_id(struct task_struct *prev)
{
#ifdef CONFIG_CGROUPS
	return cgroup_id(task_css_set_check(prev, true)->dfl_cgrp);
#else
	return 0;
#endif
}

/*
 * The ring is full (drop mode): the record is lost, but the counters are
 * still read so that the next record's deltas cover only its own slice.
 */
static noinline void td_probe_drop(struct td_cpu *c, struct task_struct *prev,
				   int cpu, u64 now)
{
	u64 scratch[TOPDOWN_MAX_EVENTS];
	u32 flags = td_read(c, scratch, cpu) | c->rec_flags;

	if (unlikely(flags & TD_SLOW_FLAGS))
		flags = td_slice_flags(c, flags, now);
	/* The totals count it all the same. */
	if (td.totals)
		td_totals_slice(prev, cpu, flags, scratch, now - c->last_ns,
				td_prev_cgroup_id(prev));
	/* FIRST waits for a written record; ROTATED is spent. */
	c->rec_flags = c->grp_flags | (c->rec_flags & TOPDOWN_REC_FIRST);
}

/*
 * The hot path, once per context switch on every CPU: one clock read, the
 * counter reads, a 128-byte record and its publication. Nothing on the
 * stack (no canary, no zeroing), the ring slot and the counter reads
 * inlined, the rare cases (ring full, counter errors, a group change) out
 * of line. With groups it reads only the current group's counters (td_cpu
 * .ev, .nr): the same path as one group, and no per-group accounting.
 */
static void td_probe_sched_switch(TD_SWITCH_ARGS)
{
	struct td_cpu *c = this_cpu_ptr(td_cpus);
	struct topdown_record *rec;
	u32 flags;
	u64 now;
	int cpu;

	/* litmus: probe-active begin */
	/* Disarmed: touch nothing else (STOP does not wait for this call). */
	if (!READ_ONCE(c->active))
		return;
	/* litmus: probe-active end */

	now = ktime_get_mono_fast_ns();
	cpu = smp_processor_id();
	rec = td_ring_reserve(c);
	if (unlikely(!rec)) {
		td_probe_drop(c, prev, cpu, now);
		goto out;
	}
	/* The slot was written a whole ring ago: fetch it while perf reads. */
	prefetchw(rec);
	prefetchw((void *)rec + TOPDOWN_RECORD_SIZE / 2);
	/* The group's bits, and FIRST or ROTATED once. */
	flags = td_read(c, rec->delta, cpu) | c->rec_flags;
	if (unlikely(flags & TD_SLOW_FLAGS))
		flags = td_slice_flags(c, flags, now);
	/*
	 * Still runnable: preempted, or put back on the runqueue. Not the
	 * tracepoint's prev_state: 6.1's __schedule() samples it before
	 * signal_pending_state() makes a task that was about to block
	 * TASK_RUNNING again (it stays queued), and passes the stale value.
	 * The task's state is what the scheduler did: with the runqueue lock
	 * held and prev still on this CPU, only this __schedule() changes it
	 * to or from TASK_RUNNING (a wake-up of a task that did block waits
	 * for it to leave the CPU).
	 */
	if (preempt || task_is_running(prev))
		flags |= TOPDOWN_REC_PREEMPTED;
	/*
	 * FIRST stays in rec_flags until a record is written: one dropped
	 * because the ring was full does not take the flag along, or no
	 * reader would see where counting started (the dropped ones are the
	 * gap in seq before this record).
	 */
	if (is_idle_task(prev))
		flags |= TOPDOWN_REC_IDLE;
	rec->time_ns = now;
	rec->duration_ns = now - c->last_ns;
	rec->cgroup_id = td_prev_cgroup_id(prev);
	rec->cpu = cpu;
	rec->pid = prev->pid;
	rec->tgid = prev->tgid;
	rec->flags = flags;
	memcpy(rec->comm, prev->comm, TOPDOWN_COMM_LEN);
	if (td.totals)
		td_totals_slice(prev, cpu, flags, rec->delta, rec->duration_ns,
				rec->cgroup_id);
	td_ring_write(c, rec);
	c->rec_flags = c->grp_flags;
out:
	/* STATUS reads it (td_counters_grp_stats()) from another CPU. */
	WRITE_ONCE(c->last_ns, now);
	td_stat_add(&c->probe_count, 1);
	if (READ_ONCE(probe_time))
		td_stat_add(&c->probe_ns, ktime_get_mono_fast_ns() - now);
}

static void td_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		td_tp_switch = tp;
}

/* Module init: find the (unexported) sched_switch tracepoint by name. */
int td_probe_init(void)
{
	for_each_kernel_tracepoint(td_find_tp, NULL);
	return td_tp_switch ? 0 : -ENOENT;
}

/* Process context, td.lock held. */
int td_probe_attach(void)
{
	return tracepoint_probe_register(td_tp_switch,
					 (void *)td_probe_sched_switch, NULL);
}

/*
 * Process context, every CPU disarmed; td.lock held, or STOP's release
 * work, which START, CONFIGURE and exit flush under td.lock before they
 * look at td_probe_unsynced. Does not wait for the probe calls already
 * under way: they see td_cpu.active clear and return without touching
 * anything else. td_probe_sync() waits for them; it is needed only before
 * the module goes away, and the ring memory is freed after it too
 * (td_rings_free()).
 */
void td_probe_detach(void)
{
	/* litmus: probe-detach begin */
	tracepoint_probe_unregister(td_tp_switch,
				    (void *)td_probe_sched_switch, NULL);
	/* litmus: probe-detach end */
	td_probe_unsynced = true;
}

/*
 * Process context, td.lock held, no detach under way (STOP's release work
 * flushed: td_counters_sync()): on return no probe call is running.
 */
void td_probe_sync(void)
{
	lockdep_assert_held(&td.lock);
	if (!td_probe_unsynced)
		return;
	/* litmus: probe-sync begin */
	tracepoint_synchronize_unregister();
	/* litmus: probe-sync end */
	td_probe_unsynced = false;
}
