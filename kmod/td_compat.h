/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, in one place. Everything else in the module
 * calls these wrappers and contains no LINUX_VERSION_CODE tests.
 */
#ifndef TD_COMPAT_H
#define TD_COMPAT_H

#include <linux/version.h>
#include <linux/bitmap.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/workqueue.h>

/* vm_flags became read-only with accessors in 6.3. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static inline void td_vm_flags_set(struct vm_area_struct *vma, vm_flags_t f)
{
	vm_flags_set(vma, f);
}

static inline void td_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t f)
{
	vm_flags_clear(vma, f);
}
#else
static inline void td_vm_flags_set(struct vm_area_struct *vma, vm_flags_t f)
{
	vma->vm_flags |= f;
}

static inline void td_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t f)
{
	vma->vm_flags &= ~f;
}
#endif

/*
 * The sched_switch tracepoint gained prev_state in 5.18. TD_SWITCH_ARGS is
 * the probe's parameter list. The probe does not use prev_state: see
 * td_probe_sched_switch() for why it reads the task's state instead.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define TD_SWITCH_ARGS void *data, bool preempt, struct task_struct *prev, \
		       struct task_struct *next, unsigned int prev_state
#else
#define TD_SWITCH_ARGS void *data, bool preempt, struct task_struct *prev, \
		       struct task_struct *next
#endif

/*
 * Needing no wrapper, on 6.1 and 6.12 alike: no .llseek (no_llseek is gone
 * in 6.12; nonseekable_open() makes vfs_llseek() return -ESPIPE on both),
 * and the probe's read of a pinned per-CPU counter as
 * perf_event_read_local() reads it.
 */

/*
 * A CPU the kernel keeps its own work off: isolcpus= (or isolcpus=domain)
 * or nohz_full=. cpu_is_isolated() (6.1) means only the first on 7.x and
 * does not exist on 5.10, where the types are HK_FLAG_* bits.
 */
#ifdef TD_HAVE_HK_TYPE
static inline bool td_cpu_isolated(int cpu)
{
	return !housekeeping_test_cpu(cpu, HK_TYPE_DOMAIN) ||
	       !housekeeping_test_cpu(cpu, HK_TYPE_TICK);
}
#else
static inline bool td_cpu_isolated(int cpu)
{
	return !housekeeping_test_cpu(cpu, HK_FLAG_DOMAIN) ||
	       !housekeeping_test_cpu(cpu, HK_FLAG_TICK);
}
#endif

/*
 * perf_allow_cpu(): what perf_event_open() asks of a CPU-wide event
 * (perf_event_paranoid > 0 without CAP_PERFMON, then the LSM hook
 * security_perf_event_open(PERF_SECURITY_CPU)). Exported as a function in
 * 7.x (checked in Debian's 7.3 source); before, an inline over symbols
 * that are not exported (6.1, 6.12), so a module cannot ask.
 */
#ifdef TD_HAVE_PERF_ALLOW_CPU
static inline int td_perf_allow_cpu(void)
{
	return perf_allow_cpu();
}
#else
static inline int td_perf_allow_cpu(void)
{
	return 0;
}
#endif

/*
 * perf_allow_kernel(): what perf_event_open() asks before it counts in
 * kernel mode (perf_event_paranoid > 1 without CAP_PERFMON, then the LSM
 * hook security_perf_event_open(PERF_SECURITY_KERNEL)). 6.1 has it only
 * as an inline over symbols that are not exported, so a module cannot
 * ask; 6.12 exports int perf_allow_kernel(void) (checked in Debian's
 * 6.12.117 headers and kernel/events/core.c). Kernels between the two,
 * which exported it with a perf_event_attr argument, are not handled.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static inline int td_perf_allow_kernel(void)
{
	return perf_allow_kernel();
}
#else
static inline int td_perf_allow_kernel(void)
{
	return 0;
}
#endif

/*
 * 5.10 (Debian 11's kernel) lacks four things the module uses; each is
 * defined here as the later kernel has it. Checked against Debian's
 * 5.10.262 headers.
 *
 * bitmap_from_arr64() and bitmap_to_arr64(): added in 5.19. On a 64-bit
 * kernel (the only ones built here) a bitmap is an array of u64, and the
 * later kernel's definitions are these macros of bitmap_copy_clear_tail().
 * Tested as the macros themselves, not the version: distribution kernels
 * older than 5.19 may have them backported.
 */
#ifndef bitmap_from_arr64
#if BITS_PER_LONG != 64
#error "topdown on kernels before 5.19 needs a 64-bit kernel"
#endif
#define bitmap_from_arr64(bitmap, buf, nbits)			\
	bitmap_copy_clear_tail((unsigned long *)(bitmap),	\
			       (const unsigned long *)(buf), (nbits))
#define bitmap_to_arr64(buf, bitmap, nbits)			\
	bitmap_copy_clear_tail((unsigned long *)(buf),		\
			       (const unsigned long *)(bitmap), (nbits))
#endif

/*
 * irq_work_is_busy(): added in 5.11 (the irq_work cleanup that moved the
 * flags into ->node.a_flags); 5.10 keeps them in ->flags, which its own
 * irq_work_sync() tests the same way. 5.10's PREEMPT_RT patches add it
 * too, so kmod/Kbuild tests for it (TD_HAVE_IRQ_WORK_IS_BUSY).
 */
#ifndef TD_HAVE_IRQ_WORK_IS_BUSY
static inline bool irq_work_is_busy(struct irq_work *work)
{
	return atomic_read(&work->flags) & IRQ_WORK_BUSY;
}
#endif

/*
 * vm_operations_struct.split was renamed .may_split in 5.11 (same
 * signature). TD_VM_MAY_SPLIT is the member's name.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define TD_VM_MAY_SPLIT may_split
#else
#define TD_VM_MAY_SPLIT split
#endif

/*
 * task_is_running(): a macro added in 5.14, when task_struct.state became
 * __state; before, the same test on ->state. Tested as the macro, for
 * backports as above.
 */
#ifndef task_is_running
#define task_is_running(task) (READ_ONCE((task)->state) == TASK_RUNNING)
#endif

/*
 * td_task_dead(): the task is leaving the CPU for the last time (its
 * final schedule sets TASK_DEAD). task_struct.state became __state in 5.14.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#define td_task_dead(task) (READ_ONCE((task)->__state) == TASK_DEAD)
#else
#define td_task_dead(task) (READ_ONCE((task)->state) == TASK_DEAD)
#endif

/*
 * td_wq(): the workqueue for the module's work that may run on any CPU
 * (counter retries, CPU hotplug, releases). 7.x deprecates
 * system_unbound_wq: queueing on it logs "enqueued on deprecated
 * workqueue. Use system_{percpu|dfl}_wq instead". Its successor
 * system_dfl_wq (6.17) was also backported to stable kernels (Debian's
 * 6.12.117 has it; 6.1 and 5.10 do not), so this is a feature test, not
 * a version test: kmod/Kbuild defines TD_HAVE_SYSTEM_DFL_WQ when the
 * kernel's linux/workqueue.h declares system_dfl_wq.
 */
static inline struct workqueue_struct *td_wq(void)
{
#ifdef TD_HAVE_SYSTEM_DFL_WQ
	return system_dfl_wq;
#else
	return system_unbound_wq;
#endif
}

/*
 * td_percpu_wq(): the workqueue for the module's work bound to a CPU (the
 * rotation work). 7.x deprecates system_wq as it does system_unbound_wq
 * (queueing logs "enqueued on deprecated workqueue"); its successor
 * system_percpu_wq (6.17) is in 6.12.y too (Debian's 6.12.117 has it;
 * 6.1 and 5.10 do not): kmod/Kbuild defines TD_HAVE_SYSTEM_PERCPU_WQ when
 * the kernel's linux/workqueue.h declares it.
 */
static inline struct workqueue_struct *td_percpu_wq(void)
{
#ifdef TD_HAVE_SYSTEM_PERCPU_WQ
	return system_percpu_wq;
#else
	return system_wq;
#endif
}

/*
 * td_hrtimer_setup(): hrtimer_setup() (6.13) sets the callback with the
 * rest and replaced hrtimer_init(), which 7.x no longer has. Used by the
 * selftests' simulated PMU module (selftests/pmusim), whose Kbuild
 * defines TD_HAVE_HRTIMER_SETUP when the kernel's linux/hrtimer.h
 * declares it (Debian's 6.12 does not, 7.3 does).
 */
static inline void td_hrtimer_setup(struct hrtimer *t,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock, enum hrtimer_mode mode)
{
#ifdef TD_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

#endif /* TD_COMPAT_H */
