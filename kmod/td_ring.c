// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings. Each ring is one vmalloc_user() area:
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
 */
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "td_internal.h"

static void td_wake_fn(struct irq_work *work)
{
	wake_up_interruptible_all(&td.wq);
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
	rings = kcalloc(nr_cpu_ids, sizeof(*rings), GFP_KERNEL);
	if (!rings)
		return ERR_PTR(-ENOMEM);
	for_each_possible_cpu(cpu) {
		rings[cpu] = vmalloc_user(td_ring_bytes(ring_size));
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

	td_rings_free();
	for_each_possible_cpu(cpu) {
		struct td_cpu *c = per_cpu_ptr(&td_cpus, cpu);
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
		init_irq_work(&c->wake_work, td_wake_fn);
	}
	kfree(rings);
}

/*
 * Process context, td.lock held, not running: every CPU is disarmed, so no
 * probe call uses a ring any more. The callers also call td_probe_sync()
 * first (not under td_rings_lock: it flushes work that takes
 * cpu_hotplug_lock), so that ring memory is never freed while a probe
 * call that started before STOP may still run.
 */
void td_rings_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *c = per_cpu_ptr(&td_cpus, cpu);

		if (!c->ring)
			continue;
		irq_work_sync(&c->wake_work);
		vfree(c->ring);
		c->ring = NULL;
		c->cons = NULL;
		c->prod = NULL;
		c->data = NULL;
	}
}

/* Wait for wake-ups the probe may have queued before it was detached. */
void td_rings_sync_wakeups(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *c = per_cpu_ptr(&td_cpus, cpu);

		if (c->ring)
			irq_work_sync(&c->wake_work);
	}
}

/* Process context, td_rings_lock held: does some ring hold min_unread bytes? */
bool td_rings_readable(u64 min_unread)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *c = per_cpu_ptr(&td_cpus, cpu);

		if (!c->ring)
			continue;
		if (READ_ONCE(c->pos) - READ_ONCE(c->cons->consumer_pos) >=
		    min_unread)
			return true;
	}
	return false;
}
