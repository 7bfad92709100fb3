// SPDX-License-Identifier: GPL-2.0
/*
 * The sched_switch probe: one record per finished time slice.
 *
 * Runs inside __schedule() with interrupts off and the runqueue lock held.
 * It must not sleep, take locks, print or wake anybody; wake-ups are
 * deferred through irq_work (td_ring_write). It touches only the state of
 * the CPU it runs on.
 */
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "td_compat.h"
#include "td_internal.h"

static struct tracepoint *td_tp_switch;

/*
 * Time accounting of the probe itself (STATUS probe_count/probe_ns). It
 * costs one clock read per switch; off, probe_ns stays 0 and only the
 * invocations are counted. Exists so the accounting's cost can be measured.
 */
static bool probe_time = true;
module_param(probe_time, bool, 0644);
MODULE_PARM_DESC(probe_time, "account the time spent in the probe (default: on)");

/*
 * Read the counters of this CPU into delta[]. A counter that is not active
 * here (perf could not schedule it, or it failed) reports 0 and sets its
 * error bit; its baseline is re-read when it comes back, so the next delta
 * never spans the gap.
 *
 * This is what perf_event_read_local() does for a pinned, per-CPU,
 * non-inherited event read on its own CPU with interrupts off; that
 * function is not exported to modules.
 */
void td_probe_read(struct td_cpu *c, u64 *delta, u32 *errors)
{
	int cpu = smp_processor_id();
	u32 i;

	*errors = 0;
	for (i = 0; i < td.nr_events; i++) {
		struct perf_event *ev = c->ev[i];
		u64 val;

		delta[i] = 0;
		if (!ev)	/* event not configured on this CPU */
			continue;
		if (READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ||
		    READ_ONCE(ev->oncpu) != cpu) {
			*errors |= BIT(i);
			c->resync |= BIT(i);
			continue;
		}
		ev->pmu->read(ev);
		val = local64_read(&ev->count);
		if (c->resync & BIT(i)) {
			c->resync &= ~BIT(i);
			*errors |= BIT(i);
		} else {
			delta[i] = val - c->last[i];
		}
		c->last[i] = val;
	}
}

static void td_probe_sched_switch(TD_SWITCH_ARGS)
{
	struct td_cpu *c = this_cpu_ptr(&td_cpus);
	u64 scratch[TOPDOWN_MAX_EVENTS];
	struct topdown_record *rec;
	u64 now, end;
	u32 errors;

	if (!READ_ONCE(c->active))
		return;

	now = ktime_get_mono_fast_ns();
	rec = td_ring_reserve(c);
	td_probe_read(c, rec ? rec->delta : scratch, &errors);
	if (errors)
		c->read_errors++;
	if (rec) {
		u32 flags = errors;

		if (preempt || td_prev_running(prev))
			flags |= TOPDOWN_REC_PREEMPTED;
		if (c->first)
			flags |= TOPDOWN_REC_FIRST;
		if (is_idle_task(prev))
			flags |= TOPDOWN_REC_IDLE;
		rec->time_ns = now;
		rec->duration_ns = now - c->last_ns;
		rec->cgroup_id = td_task_cgroup_id(prev);
		rec->cpu = smp_processor_id();
		rec->pid = prev->pid;
		rec->tgid = prev->tgid;
		rec->flags = flags;
		memcpy(rec->comm, prev->comm, TOPDOWN_COMM_LEN);
		td_ring_write(c, rec);
	}
	c->first = false;
	c->last_ns = now;

	if (READ_ONCE(probe_time)) {
		end = ktime_get_mono_fast_ns();
		c->probe_ns += end - now;
	}
	c->probe_count++;
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

/* Process context, td.lock held. On return no probe is running anywhere. */
void td_probe_detach(void)
{
	tracepoint_probe_unregister(td_tp_switch,
				    (void *)td_probe_sched_switch, NULL);
	tracepoint_synchronize_unregister();
}
