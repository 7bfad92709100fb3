// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings. Each ring is one zeroed vmalloc() area:
 *
 *   page 0   struct topdown_ring_consumer   written by the reader only
 *   page 1   struct topdown_ring_producer   written by the probe only
 *   page 2.. data, td.ring_size bytes        written by the probe only
 *
 * The probe keeps its own producer position (td_cpu.pos) and never reads
 * anything back from the mapped pages except consumer_pos, which it treats
 * as an untrusted hint for "how much space is free". The probe's two steps,
 * td_ring_reserve() and td_ring_write(), are inline in td_internal.h so
 * that the scheduler path makes no calls for them.
 *
 * User space maps the rings through mmap() of /dev/topdown: the consumer
 * page read-write by the single reader, everything else read-only
 * (td_rings_mmap()). A mapping is counted in td.nr_maps for as long as it
 * exists; the rings are replaced or freed only when there is none.
 */
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "td_compat.h"
#include "td_internal.h"

/*
 * Protects the rings' lifetime (and td.ring_size, td.watermark, the
 * IDLE/configured distinction of td.state), the mapping count's 0 -> 1
 * step and td.reader. Nests inside td.lock; taken without it by mmap()
 * (called with mmap_lock held, see td_rings_mmap()), poll() (see
 * td_rings_poll()) and release(). Nothing that may fault or take
 * cpu_hotplug_lock runs under it.
 */
DEFINE_MUTEX(td_rings_lock);

static void td_wake_fn(struct irq_work *work)
{
	/* litmus: wake-fn begin */
	wake_up_interruptible_all(&td.wq);
	/* litmus: wake-fn end */
}

static size_t td_ring_bytes(u32 ring_size)
{
	return (size_t)TD_RING_HDR_PAGES * PAGE_SIZE + ring_size;
}

/*
 * Process context, td.lock held: the rings of a new configuration, one per
 * possible CPU, not yet in use (td_rings_install() or td_rings_discard()).
 */
void **td_rings_alloc(u32 ring_size)
{
	unsigned long pages = td_ring_bytes(ring_size) >> PAGE_SHIFT;
	void **rings;
	int cpu;

	/* Refuse rather than push the machine into reclaim or OOM. */
	if (pages * num_possible_cpus() > totalram_pages() / 8)
		return ERR_PTR(-ENOMEM);
	rings = kcalloc(nr_cpu_ids, sizeof(*rings), GFP_KERNEL_ACCOUNT);
	if (!rings)
		return ERR_PTR(-ENOMEM);
	for_each_possible_cpu(cpu) {
		/*
		 * Zeroed (mapped to user space). A shortage fails CONFIGURE
		 * with ENOMEM instead of invoking the OOM killer: vmalloc
		 * allocates the pages with these flags (kvmalloc_node()
		 * documents __GFP_RETRY_MAYFAIL as supported). Charged to
		 * the caller's memory cgroup (__GFP_ACCOUNT), as BPF maps
		 * are: a CONFIGURE over the cgroup's limit fails with ENOMEM.
		 * Not vmalloc_user(), which takes no flags; the pages are
		 * mapped one by one (td_ring_remap()), as
		 * remap_vmalloc_range() would.
		 */
		rings[cpu] = __vmalloc(td_ring_bytes(ring_size),
				       GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				       __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
		if (!rings[cpu]) {
			td_rings_discard(rings);
			return ERR_PTR(-ENOMEM);
		}
	}
	return rings;
}

/* Free rings td_rings_alloc() returned that were never installed. */
void td_rings_discard(void **rings)
{
	int cpu;

	for_each_possible_cpu(cpu)
		vfree(rings[cpu]);
	kfree(rings);
}

/*
 * Process context, td.lock and td_rings_lock held, not running, no
 * mappings, td.cfg and td.ring_size already the new configuration's:
 * free the old rings and put the new ones in their place.
 */
void td_rings_install(void **rings)
{
	int cpu;

	lockdep_assert_held(&td_rings_lock);
	td_rings_free();
	for_each_possible_cpu(cpu) {
		struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);
		void *ring = rings[cpu];

		c->ring = ring;
		c->cons = ring;
		c->prod = ring + PAGE_SIZE;
		c->data = ring + TD_RING_HDR_PAGES * PAGE_SIZE;
		c->prod->data_size = td.ring_size;
		c->prod->record_size = TOPDOWN_RECORD_SIZE;
		c->prod->cpu = cpu;
		c->prod->flags = td.cfg.flags;
		c->pos = 0;
		c->seq = 0;
		c->records = 0;
		c->lost = 0;
		c->read_errors = 0;
		c->probe_count = 0;
		c->probe_ns = 0;
		memset(c->ev_err, 0, sizeof(c->ev_err));
		c->arm_errors = 0;
		c->recoveries = 0;
		/* Not running: no probe, no rotation work on this CPU. */
		WRITE_ONCE(c->grp, 0);
		c->measuring = false;
		c->base_records = 0;
		c->base_read_errors = 0;
		memset(c->base_ev_err, 0, sizeof(c->base_ev_err));
		memset(c->grp_records, 0, sizeof(c->grp_records));
		memset(c->grp_time_ns, 0, sizeof(c->grp_time_ns));
		memset(c->grp_errors, 0, sizeof(c->grp_errors));
		memset(c->grp_ev_err, 0, sizeof(c->grp_ev_err));
		c->rotations = 0;
		c->rotation_ns = 0;
		c->retries = 0;
	}
	kfree(rings);
}

/*
 * Process context, td.lock held, not running: every CPU is disarmed, so no
 * probe call uses a ring any more. The callers also call td_counters_sync()
 * first (not under td_rings_lock: it flushes work that takes
 * cpu_hotplug_lock), so that ring memory is never freed while a probe
 * call that started before STOP may still run.
 */
void td_rings_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);

		if (!c->ring)
			continue;
		/* litmus: rings-free begin */
		vfree(c->ring);
		/* litmus: rings-free end */
		c->ring = NULL;
		c->cons = NULL;
		c->prod = NULL;
		c->data = NULL;
	}
}

/*
 * Module init: the wake-up work of every possible CPU. Initialised once,
 * never while it may be queued: the work, td_wake_fn() and td.wq are the
 * module's own and never freed, and td_wake_fn() touches no ring, so
 * neither STOP nor CONFIGURE has to wait for a wake-up in flight; module
 * exit does (td_rings_sync_wakeups()), and nothing may stay queued on a
 * CPU that goes offline (td_rings_sync_wakeup()).
 */
void td_rings_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(td_cpus, cpu)->wake_work,
			      td_wake_fn);
}

/*
 * Process context, @cpu disarmed (nothing queues its wake-up any more)
 * and unable to go offline meanwhile (its own offline callback, or
 * cpus_read_lock() held): wait for its wake-up work if it is queued or
 * running. On PREEMPT_RT the work runs in the CPU's irq_work thread,
 * which is parked while the CPU is offline: a work left queued then would
 * stay busy until the CPU returns, and module exit's irq_work_sync()
 * would sleep that long. Only for a busy work: irq_work_sync() of a
 * thread-run work also waits for an RCU grace period (see
 * td_rings_sync_wakeups()).
 */
void td_rings_sync_wakeup(unsigned int cpu)
{
	struct irq_work *w = &per_cpu_ptr(td_cpus, cpu)->wake_work;

	if (irq_work_is_busy(w))
		irq_work_sync(w);
}

/*
 * Module exit, every CPU disarmed and the probe synced (nothing queues a
 * wake-up any more): wait until no CPU's wake-up work is queued or
 * running. None is queued on an offline CPU: a CPU going offline while
 * collecting syncs its own (td_cpu_offline()), STOP syncs those of the
 * CPUs online then (td_counters_disarm()), and nothing queues one
 * afterwards.
 *
 * irq_work_sync() busy-waits where the work runs in hard interrupt
 * context. On PREEMPT_RT (ours runs in the per-CPU irq_work thread there:
 * it wakes a wait queue, whose lock sleeps on RT) and on architectures
 * without an irq_work interrupt it sleeps until the busy bit clears and
 * then, since commit 91840be8f710 ("irq_work: Fix use-after-free in
 * irq_work_single() on PREEMPT_RT", in the stable 6.1 and 6.12 series;
 * the guests' 6.1.192 and 6.12.117 have it), waits for an RCU grace
 * period, because irq_work_single() still touches the work after
 * clearing that bit, now inside an RCU read-side section. A work that
 * was not busy here may have just run too: what covers that is module
 * unload's own grace period (free_module() calls synchronize_rcu() before
 * it frees the module's per-CPU data, where the works are), so no grace
 * period is waited for here. Before that commit, irq_work_single() touched
 * the work outside any RCU read-side section, a window of a few
 * instructions that no caller could close.
 */
void td_rings_sync_wakeups(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		td_rings_sync_wakeup(cpu);
}

/* Process context, td_rings_lock held: does some ring hold min_unread bytes? */
static bool td_rings_readable(u64 min_unread)
{
	int cpu;

	lockdep_assert_held(&td_rings_lock);
	for_each_possible_cpu(cpu) {
		struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);

		if (!c->ring)
			continue;
		/* litmus: rings-readable begin */
		if (READ_ONCE(c->pos) - READ_ONCE(c->cons->consumer_pos) >=
		    min_unread)
			return true;
		/* litmus: rings-readable end */
	}
	return false;
}

/*
 * poll() of /dev/topdown. Not under td.lock: START and STOP hold it while
 * counters are created or released for every CPU, which can take long on
 * a loaded machine, and a reader blocked here meanwhile could not drain
 * rings that are already filling. td_rings_lock only keeps the rings from
 * being freed or reallocated under us.
 */
__poll_t td_rings_poll(void)
{
	__poll_t mask = 0;
	u32 state;

	/*
	 * The caller registered on td.wq (poll_wait()) and the reader
	 * store-released its consumer_pos before calling poll(); the loads of
	 * the positions below must not be satisfied before either. Pairs with
	 * the smp_mb() in td_ring_write() (between its publication of the
	 * position and its load of consumer_pos): a record that brings a ring
	 * to the watermark is seen here, or its wake-up is queued and finds
	 * the caller on td.wq.
	 */
	/* litmus: rings-poll begin */
	smp_mb();
	mutex_lock(&td_rings_lock);
	/* Pairs with td_stop_locked()'s store-release. */
	state = smp_load_acquire(&td.state);
	/*
	 * While collecting, the watermark decides; once stopped, nothing
	 * more arrives, so any unread record is worth reading, and drained
	 * rings are the end of the data (until the next START).
	 */
	if (state == TOPDOWN_STATE_RUNNING) {
		if (td_rings_readable(td.watermark))
			mask = EPOLLIN | EPOLLRDNORM;
	} else if (state == TOPDOWN_STATE_CONFIGURED) {
		if (td_rings_readable(1))
			mask = EPOLLIN | EPOLLRDNORM;
		else
			mask = EPOLLHUP;
	}
	mutex_unlock(&td_rings_lock);
	/* litmus: rings-poll end */
	return mask;
}

/* release() of /dev/topdown: @file no longer holds the consumer pages. */
void td_rings_forget_reader(struct file *file)
{
	/* litmus: forget-reader begin */
	mutex_lock(&td_rings_lock);
	if (td.reader == file)
		td.reader = NULL;
	mutex_unlock(&td_rings_lock);
	/* litmus: forget-reader end */
}

static void td_vm_open(struct vm_area_struct *vma)
{
	atomic_inc(&td.nr_maps);
}

static void td_vm_close(struct vm_area_struct *vma)
{
	atomic_dec(&td.nr_maps);
}

/* A ring mapping is all or nothing: no partial munmap or mprotect. */
static int td_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct td_vm_ops = {
	.open = td_vm_open,
	.close = td_vm_close,
	.TD_VM_MAY_SPLIT = td_vm_may_split,
};

/*
 * Map @ring's pages from @page on into all of @vma (its length checked),
 * as remap_vmalloc_range() does for a vmalloc_user() area.
 */
static int td_ring_remap(struct vm_area_struct *vma, void *ring,
			 unsigned long page)
{
	void *kaddr = ring + (page << PAGE_SHIFT);
	unsigned long addr;
	int ret;

	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		ret = vm_insert_page(vma, addr, vmalloc_to_page(kaddr));
		if (ret)
			return ret;
		kaddr += PAGE_SIZE;
	}
	return 0;
}

/*
 * mmap() of pages @page.. of @cpu's ring (a possible CPU; the caller
 * checked the mapping's sharing and exec flags): the consumer page alone
 * may be writable, and by one file only, the reader.
 *
 * Not td.lock: we are called with mmap_lock held, and START/STOP take
 * cpu_hotplug_lock under td.lock, which perf's own locks link back to
 * mmap_lock (a lockdep-reported ABBA chain). The rings, their size, the
 * state as far as IDLE goes and the reader are all under td_rings_lock.
 */
int td_rings_mmap(struct file *file, struct vm_area_struct *vma,
		  unsigned long cpu, unsigned long page)
{
	unsigned long len = vma_pages(vma);
	unsigned long ring_pages;
	struct td_cpu *c;
	int ret;

	/* litmus: rings-mmap begin */
	mutex_lock(&td_rings_lock);
	ret = -ENODATA;
	if (td.state == TOPDOWN_STATE_IDLE)
		goto unlock;
	c = per_cpu_ptr(td_cpus, cpu);
	ring_pages = TD_RING_HDR_PAGES + (td.ring_size >> PAGE_SHIFT);
	ret = -EINVAL;
	if (page >= ring_pages || len > ring_pages - page)
		goto unlock;
	if (vma->vm_flags & VM_WRITE) {
		ret = -EPERM;
		if (page != TOPDOWN_RING_CONSUMER_PAGE || len != 1)
			goto unlock;
		ret = -EBUSY;
		if (td.reader && td.reader != file)
			goto unlock;
	} else {
		td_vm_flags_clear(vma, VM_MAYWRITE);
	}
	td_vm_flags_clear(vma, VM_MAYEXEC);
	ret = td_ring_remap(vma, c->ring, page);
	if (ret)
		goto unlock;
	/* Not inherited by fork(): a child maps (and is checked) itself. */
	td_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	if (vma->vm_flags & VM_WRITE)
		td.reader = file;
	vma->vm_ops = &td_vm_ops;
	atomic_inc(&td.nr_maps);
unlock:
	mutex_unlock(&td_rings_lock);
	/* litmus: rings-mmap end */
	return ret;
}
