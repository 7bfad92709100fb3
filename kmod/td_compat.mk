# SPDX-License-Identifier: GPL-2.0
# Feature tests of td_compat.h, included by kmod/Kbuild (and by the
# selftests' simulated PMU module): for what kernels older than the
# version that added it may have backported. td_have,HEADER,PATTERN,NAME
# adds -DNAME when the kernel's include/linux/HEADER matches PATTERN.
td_have = $(if $(shell grep -s -e '$(2)' $(srctree)/include/linux/$(1)),-D$(3))
# system_dfl_wq (6.17; in 6.12.y: Debian's 6.12.117 has it).
ccflags-y += $(call td_have,workqueue.h,struct workqueue_struct \*system_dfl_wq;,TD_HAVE_SYSTEM_DFL_WQ)
# system_percpu_wq (6.17; in 6.12.y: Debian's 6.12.117 has it).
ccflags-y += $(call td_have,workqueue.h,struct workqueue_struct \*system_percpu_wq;,TD_HAVE_SYSTEM_PERCPU_WQ)
# irq_work_is_busy() (5.11; in 5.10's PREEMPT_RT patches).
ccflags-y += $(call td_have,irq_work.h,bool irq_work_is_busy,TD_HAVE_IRQ_WORK_IS_BUSY)
# perf_allow_cpu() exported (7.x; before, an inline over unexported symbols).
ccflags-y += $(call td_have,perf_event.h,extern int perf_allow_cpu(void);,TD_HAVE_PERF_ALLOW_CPU)
# enum hk_type (5.18; 5.10 has enum hk_flags, HK_FLAG_*).
ccflags-y += $(call td_have,sched/isolation.h,HK_TYPE_DOMAIN,TD_HAVE_HK_TYPE)
# hrtimer_setup() (6.13; the module does not use hrtimers, pmusim does).
ccflags-y += $(call td_have,hrtimer.h,void hrtimer_setup\b,TD_HAVE_HRTIMER_SETUP)
