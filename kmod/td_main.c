// SPDX-License-Identifier: GPL-2.0
/*
 * topdown - per-task PMU counter slices, one record per context switch.
 *
 * Object model
 * ------------
 * The module holds exactly one collection (struct td_collection td). It is
 * global: it is not owned by the file that configured or started it, and
 * it lives until it is reconfigured or the module is unloaded.
 *
 *   IDLE --CONFIGURE--> CONFIGURED --START--> RUNNING --STOP--> CONFIGURED
 *
 * The transitions are td_collection.c's; td_dev.c validates what user
 * space passes and calls them. CONFIGURE validates the event list and
 * allocates one ring per possible CPU (td_ring.c). START attaches the
 * sched_switch probe, creates one pinned per-CPU kernel counter per
 * event for each online CPU and arms each CPU (td_counters.c,
 * td_probe.c); a dynamic CPU hotplug state keeps that going for CPUs
 * that come and go: going offline disarms the CPU, coming online queues
 * a work item that creates its counters and arms it. At every context
 * switch the probe of an armed CPU reads the counters of its CPU and
 * writes one struct topdown_record for the task leaving the CPU into
 * that CPU's ring. STOP disarms every CPU with an IPI and removes the
 * hotplug state; a work item then releases the counters and detaches
 * the probe (START, CONFIGURE and module exit wait for it). Nothing
 * waits for the probe calls already under way (a disarmed probe touches
 * nothing) until the rings are freed or the module goes away. A loaded
 * but idle module, or a stopped one once that work has run, has no
 * counters and no probe.
 *
 * User space maps the rings through mmap() of /dev/topdown (td_dev.c,
 * td_ring.c): the consumer page read-write by the single reader,
 * everything else read-only. The ABI, its ordering rules and the ring
 * layout are described in include/uapi/linux/topdown.h.
 *
 * Locking
 * -------
 * td.lock (a mutex) serialises every ioctl and module exit; it protects
 * the configuration and the state. START and STOP take cpu_hotplug_lock
 * under it (the dynamic hotplug state), and perf's own locks order
 * mmap_lock after that, so nothing called with mmap_lock held (mmap) may
 * take td.lock, and nothing under td.lock may touch user memory.
 *
 * td_cpus_lock (td_counters.c) nests inside td.lock and serialises the
 * creation, release and arming of counters: START and STOP take it, and so
 * do the three work items, the hotplug one (td_cpus_work), STOP's release
 * (td_release_work) and the retry of counters in error (td_retry_work),
 * which never take td.lock: START, CONFIGURE and module exit flush the
 * release work under td.lock, and it cancels the hotplug one; STOP
 * cancels the retry work. STATUS takes it (under td.lock) to read the
 * counters' states. Counters are created and released under td_cpus_lock with
 * no hotplug lock held, because perf takes event_mutex and then, for
 * tracepoint, kprobe and uprobe events, cpu_hotplug_lock:
 *
 *   td.lock -> td_cpus_lock -> event_mutex -> tracepoints_mutex
 *                                          -> cpu_hotplug_lock
 *
 * The hotplug callbacks run under cpu_hotplug_lock and therefore take no
 * lock of ours and create nothing: they only disarm, mark the CPU pending
 * and queue the work.
 *
 * td_rings_lock (td_ring.c) nests inside td.lock and protects the ring
 * allocation, the reader and the 0 -> 1 step of td.nr_maps (VMAs counted
 * by vm_ops open/close); mmap, poll and release take only it. The ring
 * memory is freed only when the collection is not running and td.nr_maps
 * is zero, and after td_counters_sync(), which is called before
 * td_rings_lock is taken (it flushes the release work, which takes
 * cpu_hotplug_lock).
 *
 * Calls between the files go one way only:
 *
 *   td_main -> td_dev -> td_collection -> td_counters -> td_probe
 *                   \-------------------------\-> td_ring <-/
 *
 * Per-CPU state (struct td_cpu) the probe uses is not locked: it is
 * written only on its own CPU with interrupts off, by the probe and by the
 * arm/disarm steps (an IPI, or the offline callback), so those exclude each
 * other; the counter pointers change only while the CPU is disarmed. The
 * statistics in it are read racily (READ_ONCE) by STATUS.
 *
 * Contexts
 * --------
 *   ioctl, mmap, poll, open, release   process context, may sleep
 *   module init/exit                   process context, may sleep
 *   td_cpu_online/td_cpu_offline       the CPU's hotplug thread on that CPU,
 *                                      cpu_hotplug_lock held by the hotplug
 *                                      operation: no locks of ours, no perf;
 *                                      offline may sleep (irq_work_sync())
 *   td_cpus_work_fn                    workqueue (unbound), may sleep
 *   td_release_work_fn                 workqueue (unbound), may sleep
 *   td_retry_work_fn                   workqueue (unbound, delayed), may
 *                                      sleep: perf_event_enable()
 *   td_cpu_arm_ipi/td_cpu_disarm_ipi   IPI on the CPU concerned, IRQs off
 *   td_probe_sched_switch              scheduler: IRQs off, rq lock held;
 *                                      no sleeping, locks, printk, wake-ups
 *   td_wake_fn                         irq_work (hard IRQ, or the irq_work
 *                                      thread on PREEMPT_RT): wakes pollers
 */
#include <linux/module.h>

#include "td_internal.h"

struct td_cpu __percpu *td_cpus __read_mostly;

struct td_collection td = {
	.lock = __MUTEX_INITIALIZER(td.lock),
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(td.wq),
	.state = TOPDOWN_STATE_IDLE,
	.err_event = -1,
	.err_cpu = -1,
};

static void td_free_masks(void)
{
	int i;

	for (i = 0; i < TOPDOWN_MAX_POOL; i++)
		free_cpumask_var(td.ev_cpus[i]);
}

/* Cache lines [first, last] of a field of struct td_collection. */
#define TD_LINE(f)	(offsetof(struct td_collection, f) / SMP_CACHE_BYTES)
#define TD_LAST_LINE(f)	((offsetofend(struct td_collection, f) - 1) / SMP_CACHE_BYTES)

/*
 * What the probe reads at every context switch (nr_events .. overwrite)
 * shares no cache line with what ioctls write (lock .. err_cpu) nor with
 * what mmap, munmap, poll and the wake-ups write (nr_maps .. wq): a build
 * that breaks the grouping of struct td_collection fails here.
 */
static void __init td_check_layout(void)
{
	BUILD_BUG_ON(TD_LINE(nr_events) <= TD_LAST_LINE(err_cpu));
	BUILD_BUG_ON(TD_LAST_LINE(overwrite) != TD_LINE(nr_events));
	BUILD_BUG_ON(TD_LINE(nr_maps) <= TD_LAST_LINE(overwrite));
	BUILD_BUG_ON(offsetof(struct td_collection, lock) != 0);
	BUILD_BUG_ON(offsetof(struct td_collection, nr_maps) >
		     offsetof(struct td_collection, wq));
}

static int __init td_init(void)
{
	int i, ret;

	td_check_layout();
	ret = td_probe_init();
	if (ret) {
		pr_err("topdown: sched_switch tracepoint not found\n");
		return ret;
	}
	/* Zeroed, as static per-CPU data would be. */
	td_cpus = alloc_percpu(struct td_cpu);
	if (!td_cpus)
		return -ENOMEM;
	td_rings_init();
	td_counters_init();
	for (i = 0; i < TOPDOWN_MAX_POOL; i++) {
		if (!zalloc_cpumask_var(&td.ev_cpus[i], GFP_KERNEL)) {
			ret = -ENOMEM;
			goto err;
		}
	}
	ret = td_dev_register();
	if (ret)
		goto err;
	return 0;
err:
	td_free_masks();
	free_percpu(td_cpus);
	return ret;
}

static void __exit td_exit(void)
{
	/* No file is open (module refcount), so nothing is mapped. */
	td_dev_unregister();
	td_collection_exit();
	td_free_masks();
	free_percpu(td_cpus);
}

module_init(td_init);
module_exit(td_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-task TopDown counter slices at every context switch");
MODULE_AUTHOR("The topdown developers");
/* From kmod/Kbuild: the sources' version (scripts/version.sh). */
MODULE_VERSION(TD_VERSION);
