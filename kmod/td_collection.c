// SPDX-License-Identifier: GPL-2.0
/*
 * The collection's state machine (see td_main.c for the object model):
 *
 *   IDLE --CONFIGURE--> CONFIGURED --START--> RUNNING --STOP--> CONFIGURED
 *
 * Every transition runs here, under td.lock; td_dev.c has checked what
 * user space passed before it calls in. CONFIGURE replaces the rings
 * (td_ring.c), START and STOP create and release the counters and attach
 * and detach the probe (td_counters.c).
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "td_compat.h"
#include "td_internal.h"

/*
 * td.lock held, not running: the groups of @cfg (validated), or one group
 * of the events in their order without groups.
 */
static void td_configure_groups(const struct topdown_config *cfg)
{
	u32 g, i;

	memset(td.grp_nr, 0, sizeof(td.grp_nr));
	memset(td.grp_ev, 0, sizeof(td.grp_ev));
	if (!cfg->nr_groups) {
		td.nr_groups = 1;
		td.grp_nr[0] = cfg->nr_events;
		for (i = 0; i < cfg->nr_events; i++)
			td.grp_ev[0][i] = i;
	} else {
		td.nr_groups = cfg->nr_groups;
		for (g = 0; g < cfg->nr_groups; g++) {
			td.grp_nr[g] = cfg->groups[g].nr_events;
			memcpy(td.grp_ev[g], cfg->groups[g].events,
			       sizeof(td.grp_ev[g]));
		}
	}
	td.grp_width = 0;
	for (g = 0; g < td.nr_groups; g++)
		td.grp_width = max(td.grp_width, td.grp_nr[g]);
	/*
	 * The rotation work runs just after a tick and requeues itself then;
	 * the timer wheel fires a timer one tick after its expiry (round up
	 * "to prevent early expiry", calc_index() of 6.1 and 6.12), so the
	 * delay is one tick short of the interval: rotate_ms in whole ticks,
	 * at least two (rotate_ms is 0 without 2 groups).
	 */
	td.rot_jiffies = max(msecs_to_jiffies(cfg->rotate_ms), 2UL) - 1;
}

/*
 * Process context. Make @cfg (validated: ring_size, watermark and
 * rotate_ms resolved, cpus_ptr cleared) the configuration, @masks (one per
 * pool entry, td_mask_at()) the entries' CPUs unless @all[i], with new
 * empty rings.
 * -EBUSY while running or while the old rings are mapped; a refused call
 * changes nothing.
 */
int td_configure(const struct topdown_config *cfg, struct cpumask *masks,
		 const bool *all)
{
	void **rings;
	u32 i;
	int ret;

	mutex_lock(&td.lock);
	ret = -EBUSY;
	if (td.state == TOPDOWN_STATE_RUNNING)
		goto unlock;
	/* The last STOP's probe calls are over before the rings are freed. */
	td_counters_sync();
	/* The new rings first: a failed allocation leaves the old ones. */
	rings = td_rings_alloc(cfg->ring_size);
	if (IS_ERR(rings)) {
		ret = PTR_ERR(rings);
		goto unlock;
	}
	/* td_rings_mmap() counts new maps under td_rings_lock only. */
	mutex_lock(&td_rings_lock);
	if (atomic_read(&td.nr_maps)) {
		mutex_unlock(&td_rings_lock);
		td_rings_discard(rings);
		goto unlock;
	}
	for (i = 0; i < cfg->nr_events; i++)
		cpumask_copy(td.ev_cpus[i], td_mask_at(masks, i));
	td.cfg = *cfg;
	td_configure_groups(cfg);
	/* The last collection's totals are of the old configuration. */
	td_totals_put(td.totals);
	td.totals = NULL;
	td.nr_events = cfg->nr_events;
	td.ring_size = cfg->ring_size;
	td.watermark = cfg->watermark;
	td.overwrite = cfg->flags & TOPDOWN_OVERFLOW_OVERWRITE;
	memcpy(td.ev_all_cpus, all, sizeof(td.ev_all_cpus));
	td_rings_install(rings);
	WRITE_ONCE(td.state, TOPDOWN_STATE_CONFIGURED);
	ret = 0;
	mutex_unlock(&td_rings_lock);
unlock:
	mutex_unlock(&td.lock);
	return ret;
}

/*
 * td.lock held: may the caller count in kernel mode, as far as a module
 * can ask perf (td_perf_allow_kernel())? Asked only when some event counts
 * in kernel mode, as perf_event_open() does.
 */
static int td_allow_kernel(void)
{
	u32 i;

	lockdep_assert_held(&td.lock);
	for (i = 0; i < td.nr_events; i++)
		if (!(td_cfg_ev(&td.cfg, i)->flags & TOPDOWN_EVENT_EXCLUDE_KERNEL))
			return td_perf_allow_kernel();
	return 0;
}

/*
 * td.lock held, not running: the totals of the collection about to start
 * (new, zeroed), replacing the last one's. A reader of the old ones holds
 * its own reference.
 */
static int td_start_totals(void)
{
	struct td_totals *t;

	lockdep_assert_held(&td.lock);
	if (td.totals) {
		/* No call of the last STOP's probe is left to add to them. */
		td_counters_sync();
		td_totals_put(td.totals);
		td.totals = NULL;
	}
	if (!(td.cfg.flags & TOPDOWN_CONFIG_TOTALS))
		return 0;
	t = td_totals_alloc(&td.cfg);
	if (IS_ERR(t))
		return PTR_ERR(t);
	td.totals = t;
	return 0;
}

/* Process context: CONFIGURED -> RUNNING. */
int td_start(void)
{
	int ret;

	mutex_lock(&td.lock);
	if (td.state == TOPDOWN_STATE_RUNNING)
		ret = -EBUSY;
	else if (td.state != TOPDOWN_STATE_CONFIGURED)
		ret = -ENODATA;
	else
		ret = td_perf_allow_cpu() ?: td_allow_kernel() ?:
		      td_start_totals() ?: td_counters_start();
	if (!ret) {
		/* poll() and STATUS read it without td.lock. */
		WRITE_ONCE(td.state, TOPDOWN_STATE_RUNNING);
		td.start_ns = ktime_get_ns();
	}
	mutex_unlock(&td.lock);
	return ret;
}

/* td.lock held, RUNNING -> CONFIGURED. */
static void td_stop_locked(void)
{
	lockdep_assert_held(&td.lock);
	/* litmus: stop begin */
	td_counters_stop();
	/*
	 * Pairs with td_rings_poll()'s load-acquire: a poll() that sees the
	 * collection stopped sees every record published before the disarm
	 * (whose IPIs returned), so it never reports EPOLLHUP over one.
	 */
	smp_store_release(&td.state, TOPDOWN_STATE_CONFIGURED);
	td.stop_ns = ktime_get_ns();
	/* Let a poller drain what is left. */
	wake_up_interruptible_all(&td.wq);
	/* litmus: stop end */
}

/* Process context: RUNNING -> CONFIGURED. */
int td_stop(void)
{
	int ret = 0;

	mutex_lock(&td.lock);
	if (td.state != TOPDOWN_STATE_RUNNING)
		ret = -EALREADY;
	else
		td_stop_locked();
	mutex_unlock(&td.lock);
	return ret;
}

/*
 * Module exit, the device gone (no file is open, so nothing is mapped):
 * stop, wait for every probe call and wake-up, free the rings -> IDLE.
 */
void td_collection_exit(void)
{
	mutex_lock(&td.lock);
	if (td.state == TOPDOWN_STATE_RUNNING)
		td_stop_locked();
	/* No probe call may still run when the module text goes away. */
	td_counters_sync();
	td_rings_sync_wakeups();
	td_rings_free();
	td_totals_put(td.totals);
	td.totals = NULL;
	WRITE_ONCE(td.state, TOPDOWN_STATE_IDLE);
	mutex_unlock(&td.lock);
}
