// SPDX-License-Identifier: GPL-2.0
/*
 * tdfloor: the floor under the topdown probe, for `make bench` only.
 *
 * A sched_switch probe that does only what a per-task counter slice cannot
 * do without: read k pinned per-CPU counters the way topdown does (the
 * checks of perf_event_read_local(), pmu->read(), local64_read()) and,
 * with clock=1, read the clock once. It keeps the values and nothing else:
 * no deltas, no record, no ring. With no events and clock=0 it is an empty
 * probe, which measures the tracepoint's own dispatch cost.
 *
 *   insmod tdfloor.ko [ev_type=T,T,...] [ev_config=C,C,...] [clock=0|1]
 *
 * The counters are created on the CPUs online at load time (no hotplug:
 * the benchmark does not take CPUs down). Same kernel API rules as the
 * topdown probe: IRQs off, runqueue lock held, touch only this CPU.
 */
#include <linux/cpu.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#define FL_MAX_EVENTS 8

static int ev_type[FL_MAX_EVENTS];
static int nr_type;
module_param_array(ev_type, int, &nr_type, 0444);
MODULE_PARM_DESC(ev_type, "perf_event_attr.type of each event");

static ulong ev_config[FL_MAX_EVENTS];
static int nr_config;
module_param_array(ev_config, ulong, &nr_config, 0444);
MODULE_PARM_DESC(ev_config, "perf_event_attr.config of each event");

static bool clock;
module_param(clock, bool, 0444);
MODULE_PARM_DESC(clock, "read ktime_get_mono_fast_ns() in the probe");

struct fl_cpu {
	int n;
	struct perf_event *ev[FL_MAX_EVENTS];
	u64 val[FL_MAX_EVENTS];
	u64 now;
	u64 errors;
};

static DEFINE_PER_CPU(struct fl_cpu, fl_cpus);
static struct tracepoint *fl_tp;

static void fl_probe(void *data, bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state)
{
	struct fl_cpu *c = this_cpu_ptr(&fl_cpus);
	int cpu = smp_processor_id();
	int i;

	if (clock)
		c->now = ktime_get_mono_fast_ns();
	for (i = 0; i < c->n; i++) {
		struct perf_event *ev = c->ev[i];

		if (READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ||
		    READ_ONCE(ev->oncpu) != cpu) {
			c->errors++;
			continue;
		}
		ev->pmu->read(ev);
		c->val[i] = local64_read(&ev->count);
	}
}

static void fl_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		fl_tp = tp;
}

static void fl_release(void)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct fl_cpu *c = per_cpu_ptr(&fl_cpus, cpu);

		for (i = 0; i < FL_MAX_EVENTS; i++) {
			if (c->ev[i])
				perf_event_release_kernel(c->ev[i]);
			c->ev[i] = NULL;
		}
		c->n = 0;
	}
}

static int __init fl_init(void)
{
	struct perf_event_attr attr;
	int cpu, i, ret;

	if (nr_type != nr_config) {
		pr_err("tdfloor: ev_type and ev_config differ in length\n");
		return -EINVAL;
	}
	for_each_kernel_tracepoint(fl_find_tp, NULL);
	if (!fl_tp)
		return -ENOENT;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct fl_cpu *c = per_cpu_ptr(&fl_cpus, cpu);

		for (i = 0; i < nr_type; i++) {
			struct perf_event *ev;

			memset(&attr, 0, sizeof(attr));
			attr.size = sizeof(attr);
			attr.type = ev_type[i];
			attr.config = ev_config[i];
			attr.pinned = 1;
			ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
							      NULL, NULL);
			if (IS_ERR(ev)) {
				cpus_read_unlock();
				fl_release();
				return PTR_ERR(ev);
			}
			c->ev[i] = ev;
		}
		c->n = nr_type;
	}
	cpus_read_unlock();

	ret = tracepoint_probe_register(fl_tp, (void *)fl_probe, NULL);
	if (ret)
		fl_release();
	return ret;
}

static void __exit fl_exit(void)
{
	u64 errors = 0;
	int cpu;

	tracepoint_probe_unregister(fl_tp, (void *)fl_probe, NULL);
	tracepoint_synchronize_unregister();
	for_each_possible_cpu(cpu)
		errors += per_cpu_ptr(&fl_cpus, cpu)->errors;
	fl_release();
	pr_info("tdfloor: %llu counter reads failed\n", errors);
}

module_init(fl_init);
module_exit(fl_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Benchmark floor: a sched_switch probe that only reads counters");
