/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared declarations of the topdown module. See td_main.c for the object
 * model, the locking rules and the context of every entry point.
 */
#ifndef TD_INTERNAL_H
#define TD_INTERNAL_H

#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/seqlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/linux/topdown.h>

#define TD_RING_HDR_PAGES	TOPDOWN_RING_DATA_PAGE

/*
 * Per-CPU state. @active, the baselines and everything the probe writes
 * are written only on this CPU with interrupts off: by the probe, by the
 * arm/disarm steps of td_counters.c (an IPI, or the offline callback) and
 * by the two steps of a group change (the rotation work, on this CPU), so
 * no lock is needed between them. @gev[][] is written by process context
 * under td_cpus_lock (td_counters.c), and only while this CPU is disarmed
 * and its rotation work is idle.
 */
struct td_cpu {
	/* Set while the probe may use the counters and ring of this CPU. */
	bool active;
	/*
	 * Bumped by the hotplug callbacks (on this CPU) at every online (to
	 * odd) and offline (to even) while collecting, and set to match
	 * cpu_online() at START; see td_counters.c.
	 */
	unsigned int hp_gen;
	/* hp_gen when its counters were created; process context, td_cpus_lock */
	unsigned int sync_gen;
	u32 nr;			/* events of the current group */
	u32 width;		/* deltas written: the largest group's events */
	u32 rec_flags;		/* group bits, FIRST, ROTATED of the next record */
	u32 grp_flags;		/* rec_flags after that record */
	u8 resync;		/* events whose baseline must be re-read */
	u8 hold;		/* events kept in resync while the group changes */
	/* The current group's, NULL past them up to @width. */
	struct perf_event *ev[TOPDOWN_MAX_EVENTS];
	u64 last[TOPDOWN_MAX_EVENTS];
	u64 last_ns;

	/* Ring: allocated at configure time, for every possible CPU. */
	void *ring;		/* vmalloc(): consumer, producer, data */
	struct topdown_ring_consumer *cons;
	struct topdown_ring_producer *prod;
	u8 *data;
	u64 pos;		/* private producer position */
	u64 wake_pos;		/* pos at the last wake-up queued */
	u64 seq;

	/*
	 * Statistics, probe-owned (td_stat_add(); arm_errors by the arm
	 * step), read racily by STATUS with READ_ONCE().
	 */
	u64 records;
	u64 lost;
	u64 read_errors;
	u64 probe_count;
	u64 probe_ns;
	u64 ev_err[TOPDOWN_MAX_EVENTS];	/* slices event i could not be read */
	u8 arm_errors;		/* events without a counter when armed */

	/* Written by the retry work under td_cpus_lock, read racily. */
	u64 recoveries;
	u64 retries;		/* perf_event_enable() of counters in error */
	unsigned int retry_delay_ms;	/* wait between retries; 0: no error */
	unsigned int retry_fails;	/* retries in a row that left an error */
	unsigned long retry_at;	/* jiffies: next retry while backing off */

	struct irq_work wake_work;

	/*
	 * Groups (td_counters.c, "Groups and rotation" in the UAPI header).
	 * Every (group, position) has a counter of its own; @ev holds the
	 * current group's. The rotation work changes group on this CPU;
	 * @rot_lock keeps the retry work off the counters meanwhile.
	 */
	struct perf_event *gev[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
	u32 grp;		/* the current group */
	u8 rot_phase;		/* TD_ROT_* */
	/* @probe_count from which the next change may happen (see td_counters.c) */
	u64 rot_next;
	bool rot_on;		/* the rotation work may requeue itself */
	/* Outside the housekeeping CPUs when armed: no rotation nor retry. */
	bool isolated;
	struct delayed_work rot_work;
	struct mutex rot_lock;	/* the retry work off a group change */

	/*
	 * Per-group statistics, kept per period: what the per-CPU counts
	 * above grew by while a group counted is added to its totals when
	 * the period ends (a group change, a disarm), so that the probe
	 * counts nothing per group. Written on this CPU with interrupts
	 * off, under @grp_seq for STATUS.
	 */
	seqcount_t grp_seq;
	bool measuring;		/* the current group's period has begun */
	u64 start_ns;		/* ... at the end of this slice */
	u64 base_records, base_read_errors, base_ev_err[TOPDOWN_MAX_EVENTS];
	u64 grp_records[TOPDOWN_MAX_GROUPS];
	u64 grp_time_ns[TOPDOWN_MAX_GROUPS];
	u64 grp_errors[TOPDOWN_MAX_GROUPS];
	u64 grp_ev_err[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];
	u64 rotations;
	u64 rotation_ns;
};

/* td_cpu.rot_phase: where the CPU is in a group change. */
enum {
	TD_ROT_NONE,		/* counting one group */
	TD_ROT_CHANGING,	/* the work disables the old, enables the new */
	TD_ROT_COMMITTED,	/* done: the next slice ends with a resync */
};

/* A record's group bits. */
#define TD_REC_GROUP(g)		((u32)(g) << TOPDOWN_REC_GROUP_SHIFT)

/*
 * Allocated at module init (alloc_percpu(), td_main.c), not static per-CPU
 * data: modules' static per-CPU data comes out of a small reserve that
 * every loaded module shares (PERCPU_MODULE_RESERVE, 8 KiB), and struct
 * td_cpu alone would take a quarter of it.
 */
extern struct td_cpu __percpu *td_cpus;

/*
 * The one global collection, protected by @lock unless noted. Three groups
 * of fields, each on cache lines of its own (td_check_layout() in
 * td_main.c checks it at build time): what ioctls use, what the probe
 * reads at every context switch (written only while not running), and
 * what mmap, munmap, poll and the wake-ups write while collection runs,
 * so that neither a poller nor an ioctl makes the probe's line bounce.
 */
struct td_collection {
	struct mutex lock;		/* serialises everything below, except: */
	u32 state;			/* TOPDOWN_STATE_* */
	struct topdown_config cfg;	/* validated; cpus_ptr cleared */
	/* The pool (td_cfg_ev()); without groups, the events. */
	struct perf_event_attr attr[TOPDOWN_MAX_POOL];
	cpumask_var_t ev_cpus[TOPDOWN_MAX_POOL];
	bool ev_all_cpus[TOPDOWN_MAX_POOL];
	/* Groups: 1 without them (the events in order). */
	u32 nr_groups;
	u32 grp_nr[TOPDOWN_MAX_GROUPS];
	u32 grp_width;			/* the largest grp_nr */
	u8 grp_ev[TOPDOWN_MAX_GROUPS][TOPDOWN_MAX_EVENTS];	/* pool indexes */
	unsigned long rot_jiffies;	/* with 2 groups or more */
	int hp_state;			/* dynamic cpuhp state while running */
	u64 start_ns, stop_ns;
	int err_code, err_event, err_cpu;

	/* Copied from cfg at configure; read by the probe. */
	u32 nr_events ____cacheline_aligned_in_smp;
	u32 ring_size;
	u32 watermark;
	bool overwrite;
	/* With TOPDOWN_CONFIG_TOTALS, from START to the next START or CONFIGURE. */
	struct td_totals *totals;

	/* Written by mmap, munmap, poll and wake-ups. */
	atomic_t nr_maps ____cacheline_aligned_in_smp;	/* live VMAs; 0 -> 1 under td_rings_lock */
	struct file *reader;		/* consumer pages holder; td_rings_lock */
	wait_queue_head_t wq;
};

extern struct td_collection td;

/* td_ring.c */
extern struct mutex td_rings_lock;
void **td_rings_alloc(u32 ring_size);
void td_rings_discard(void **rings);
void td_rings_install(void **rings);
void td_rings_free(void);
void td_rings_init(void);
void td_rings_sync_wakeup(unsigned int cpu);
void td_rings_sync_wakeups(void);
__poll_t td_rings_poll(void);
void td_rings_forget_reader(struct file *file);
int td_rings_mmap(struct file *file, struct vm_area_struct *vma,
		  unsigned long cpu, unsigned long page);

/*
 * Probe context: add @n to a statistic of this CPU. The probe is its only
 * writer, so the load needs no marking; the store does, as STATUS loads
 * the statistic concurrently from another CPU.
 */
static inline void td_stat_add(u64 *stat, u64 n)
{
	WRITE_ONCE(*stat, *stat + n);
}

/*
 * Probe context (IRQs off, this CPU). Returns the slot for the next record,
 * or NULL when the ring is full in drop mode; the dropped record still
 * consumes a sequence number so readers see the gap. Inline: it runs at
 * every context switch.
 */
static inline struct topdown_record *td_ring_reserve(struct td_cpu *c)
{
	/* litmus: ring-reserve begin */
	u64 pos = c->pos;

	if (!td.overwrite) {
		/* Pairs with the reader's store-release of consumer_pos. */
		u64 cons = smp_load_acquire(&c->cons->consumer_pos);

		if (unlikely(pos - cons > td.ring_size - TOPDOWN_RECORD_SIZE)) {
			td_stat_add(&c->lost, 1);
			c->seq++;
			WRITE_ONCE(c->prod->lost, c->lost);
			return NULL;
		}
	}
	/*
	 * Overwrite mode: the slot at producer_pos is the one being filled,
	 * and the smp_mb() of the last td_ring_write() on this CPU orders
	 * that publication before the fill's stores (see there).
	 */
	return (struct topdown_record *)(c->data + (pos & (td.ring_size - 1)));
	/* litmus: ring-reserve end */
}

/* Probe context: publish the record filled in the reserved slot. */
static inline void td_ring_write(struct td_cpu *c, struct topdown_record *rec)
{
	/* litmus: ring-write begin */
	u64 old = c->pos, pos = old + TOPDOWN_RECORD_SIZE;
	u64 cons;

	rec->seq = c->seq++;
	WRITE_ONCE(c->pos, pos);	/* poll() reads it: td_rings_readable() */
	td_stat_add(&c->records, 1);
	/* Pairs with the reader's load-acquire of producer_pos. */
	smp_store_release(&c->prod->producer_pos, pos);

	/*
	 * Wake a poller only when unread data crosses the watermark. A
	 * store (the position) then a load (consumer_pos), against the
	 * reader's store of consumer_pos then poll()'s load of the position:
	 * without a full barrier on both sides each can miss the other's
	 * store, and the reader sleeps above the watermark with no wake-up
	 * queued. Pairs with the smp_mb() in td_rings_poll() (between
	 * poll_wait() and its loads of the positions): either this load sees
	 * the reader's consumer_pos and the crossing queues the wake-up, or
	 * that poll() sees this position.
	 *
	 * It also orders this publication before the stores of the next
	 * fill, which in overwrite mode may reuse the slot of a record a
	 * reader is copying: a reader whose copy saw any byte of that fill
	 * sees producer_pos at least at pos in its recheck (its read barrier
	 * between the copy and its second load of producer_pos pairs with
	 * this), and discards the copy. Every fill follows a publication's
	 * barrier (the first one has no record to overwrite), so the fill
	 * needs no write barrier of its own.
	 */
	smp_mb();
	cons = READ_ONCE(c->cons->consumer_pos);
	/*
	 * And again every watermark of records written while the unread data
	 * stays above it, as perf's wakeup_watermark does: an edge-triggered
	 * epoll reader, or one that does not consume, sees new data too.
	 */
	if (unlikely(pos - cons >= td.watermark &&
		     (old - cons < td.watermark ||
		      pos - c->wake_pos >= td.watermark))) {
		c->wake_pos = pos;
		irq_work_queue(&c->wake_work);
	}
	/* litmus: ring-write end */
}

/* Pool entry @i of a configuration ("Groups and rotation"). */
static inline struct topdown_event *td_cfg_ev(struct topdown_config *cfg, u32 i)
{
	return i < TOPDOWN_MAX_EVENTS ? &cfg->events[i] :
	       &cfg->more_events[i - TOPDOWN_MAX_EVENTS];
}

/* Pool entries of a configuration: the events without groups. */
static inline u32 td_cfg_pool_max(const struct topdown_config *cfg)
{
	return cfg->nr_groups ? TOPDOWN_MAX_POOL : TOPDOWN_MAX_EVENTS;
}

/* td_totals.c */
struct td_totals;
struct td_totals *td_totals_alloc(const struct topdown_config *cfg);
struct td_totals *td_totals_get(void);
void td_totals_put(struct td_totals *t);
void td_totals_slice(struct task_struct *p, int cpu, u32 flags,
		     const u64 *delta, u64 dur, u64 cgroup_id);
int td_totals_copy(struct td_totals *t, struct topdown_totals *q,
		   void __user *to, u32 cap, u32 stride, u32 len);

/* td_probe.c */
int td_probe_init(void);
int td_probe_attach(void);
void td_probe_detach(void);
void td_probe_sync(void);
void td_probe_read(struct td_cpu *c, u64 *delta, u32 *errors);
void td_grp_period_begin(struct td_cpu *c, u64 start_ns);
void td_grp_period_end(struct td_cpu *c);

/* td_counters.c */
int td_counters_start(void);
void td_counters_stop(void);
void td_counters_sync(void);
void td_counters_ev_state(unsigned int cpu, struct topdown_cpu_stats *s);
void td_counters_grp_stats(unsigned int cpu, struct topdown_cpu_stats *s);
void td_counters_init(void);
bool td_cpu_spared(unsigned int cpu);

/* td_collection.c: the state machine */
int td_configure(const struct topdown_config *cfg, struct cpumask *masks,
		 const bool *all);
int td_start(void);
int td_stop(void);
void td_collection_exit(void);

/* The i-th of CONFIGURE's pool masks, an array of cpumask_size() each. */
static inline struct cpumask *td_mask_at(struct cpumask *masks, u32 i)
{
	return (void *)masks + i * cpumask_size();
}

/* td_dev.c */
int td_dev_register(void);
void td_dev_unregister(void);

#endif /* TD_INTERNAL_H */
