// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU pinned counters and CPU hotplug.
 *
 * START registers a dynamic cpuhp state; its online callback runs on each
 * CPU (in that CPU's hotplug thread, process context) for every CPU that
 * is online now and every CPU that comes online later, and creates that
 * CPU's counters. The offline callback, on the CPU going down, disarms the
 * probe there and frees the counters. STOP removes the state, which runs
 * the offline callback on every online CPU.
 *
 * The probe and the arm/disarm steps run on the same CPU with interrupts
 * off, which is what serialises them: once td_cpu_disarm() has cleared
 * td_cpu.active with interrupts off, no probe on that CPU can still be
 * looking at its counters.
 */
#include <linux/cpuhotplug.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/perf_event.h>
#include <linux/smp.h>

#include "td_internal.h"

static void td_counters_release(struct td_cpu *c)
{
	int i;

	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
		if (c->ev[i]) {
			perf_event_release_kernel(c->ev[i]);
			c->ev[i] = NULL;
		}
	}
}

/* Take baselines and let the probe run on this CPU. */
static void td_cpu_arm(struct td_cpu *c)
{
	u64 scratch[TOPDOWN_MAX_EVENTS];
	unsigned long flags;
	u32 errors;

	local_irq_save(flags);
	c->resync = 0;
	td_probe_read(c, scratch, &errors);
	/* Counters not active yet are re-based on their first good read. */
	c->resync = errors;
	c->last_ns = ktime_get_mono_fast_ns();
	c->first = true;
	WRITE_ONCE(c->active, true);
	local_irq_restore(flags);
}

static void td_cpu_disarm(struct td_cpu *c)
{
	unsigned long flags;

	local_irq_save(flags);
	WRITE_ONCE(c->active, false);
	local_irq_restore(flags);
}

static int td_cpu_online(unsigned int cpu)
{
	struct td_cpu *c = per_cpu_ptr(&td_cpus, cpu);
	u32 i;

	/* AP hotplug states run on the CPU they are for. */
	if (WARN_ON_ONCE(cpu != raw_smp_processor_id()))
		return td.starting ? -EINVAL : 0;

	for (i = 0; i < td.nr_events; i++) {
		struct perf_event *ev;

		if (!td.ev_all_cpus[i] && !cpumask_test_cpu(cpu, td.ev_cpus[i]))
			continue;
		ev = perf_event_create_kernel_counter(&td.attr[i], cpu, NULL,
						      NULL, NULL);
		if (IS_ERR(ev)) {
			int err = PTR_ERR(ev);

			td_counters_release(c);
			if (!td.starting) {
				/* Never fail a CPU coming online because of us. */
				return 0;
			}
			td.err_code = err;
			td.err_event = i;
			td.err_cpu = cpu;
			return err;
		}
		c->ev[i] = ev;
	}
	td_cpu_arm(c);
	return 0;
}

static int td_cpu_offline(unsigned int cpu)
{
	struct td_cpu *c = per_cpu_ptr(&td_cpus, cpu);

	td_cpu_disarm(c);
	td_counters_release(c);
	return 0;
}

static void td_build_attrs(void)
{
	u32 i;

	for (i = 0; i < td.nr_events; i++) {
		const struct topdown_event *e = &td.cfg.events[i];
		struct perf_event_attr *a = &td.attr[i];

		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = e->type;
		a->config = e->config;
		a->config1 = e->config1;
		a->config2 = e->config2;
		a->pinned = 1;
		a->exclude_user = !!(e->flags & TOPDOWN_EVENT_EXCLUDE_USER);
		a->exclude_kernel = !!(e->flags & TOPDOWN_EVENT_EXCLUDE_KERNEL);
	}
}

/* Process context, td.lock held, state CONFIGURED. */
int td_counters_start(void)
{
	int ret;

	td_build_attrs();
	td.err_code = 0;
	td.err_event = -1;
	td.err_cpu = -1;

	ret = td_probe_attach();
	if (ret) {
		td.err_code = ret;
		return ret;
	}

	td.starting = true;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "topdown:online",
				td_cpu_online, td_cpu_offline);
	td.starting = false;
	if (ret < 0) {
		/* cpuhp has already torn down the CPUs it brought up. */
		if (!td.err_code)
			td.err_code = ret;
		td_probe_detach();
		td_rings_sync_wakeups();
		return ret;
	}
	td.hp_state = ret;
	return 0;
}

/* Process context, td.lock held, state RUNNING. */
void td_counters_stop(void)
{
	cpuhp_remove_state(td.hp_state);
	td.hp_state = 0;
	td_probe_detach();
	td_rings_sync_wakeups();
}
