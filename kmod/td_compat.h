/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, in one place. Everything else in the module
 * calls these wrappers and contains no LINUX_VERSION_CODE tests.
 */
#ifndef TD_COMPAT_H
#define TD_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/sched.h>

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

#endif /* TD_COMPAT_H */
