// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU pinned counters and CPU hotplug.
 *
 * Counters are created and released only in process context, with no
 * hotplug lock held: creating a tracepoint, kprobe or uprobe based perf
 * event takes event_mutex and then, through the static key of the
 * tracepoint, cpu_hotplug_lock, so doing it in a hotplug callback (which
 * runs under cpu_hotplug_lock) inverts the kernel's order. What runs on
 * the CPU itself is only the cheap part, with interrupts off:
 *
 *   arm      take the baselines, set td_cpu.active (IPI from process context)
 *   disarm   clear td_cpu.active (IPI, or the offline callback)
 *
 * td_cpus_lock serialises every creation, release, arm and the
 * td_collecting flag. START registers a dynamic cpuhp state without
 * calling it, marks the CPUs online at that moment as pending (under
 * cpus_read_lock, so the set is exact) and syncs them itself: it creates
 * the counters of every pending CPU first and arms them only if all were
 * created, so a START that fails (reporting the first failure) has armed
 * no CPU and left nothing in any ring. Afterwards:
 *
 *   online callback   (the CPU's hotplug thread, cpu_hotplug_lock held)
 *                     bump td_cpu.hp_gen to odd, mark the CPU pending,
 *                     queue td_cpus_work; takes no lock of ours
 *   offline callback  (same) disarm, wait for the CPU's wake-up work if
 *                     queued (td_rings_sync_wakeup()), bump hp_gen to
 *                     even, mark pending, queue td_cpus_work
 *   td_cpus_work      (process context) for each pending CPU: disarm and
 *                     release its old counters, and if it is up, create new
 *                     ones and arm it; a failure leaves the CPU idle
 *
 * hp_gen changes at every online and offline of the CPU, so a sync that
 * sampled it before creating counters knows whether the CPU went down in
 * between: the arm IPI arms only if hp_gen is still the sampled value
 * (counters created before an offline are dead: perf detached them), and
 * an -ENODEV from perf_event_create_kernel_counter() with a changed hp_gen
 * is the race, not an error. A CPU that came back meanwhile is pending
 * again and synced by the next run of the work.
 *
 * Counters are released only when their CPU cannot be reading them: after
 * a disarm IPI returned (the probe runs with interrupts off on its own
 * CPU), or when that IPI found the CPU offline. The arm and disarm IPIs
 * are sent under cpus_read_lock() (never held while counters are created
 * or released), so the CPU is then either fully up or fully down, and a
 * CPU that is down ran its offline callback, which disarmed it.
 *
 * STOP clears td_collecting (no work arms anything afterwards), disarms
 * every online CPU with one IPI each, waits for the wake-up work of those
 * whose is still queued (none may stay queued on a CPU that goes offline
 * without our callback) and removes the cpuhp state without calling it.
 * Releasing the counters and detaching the probe are left to
 * td_release_work, which START, CONFIGURE and module exit flush first.
 * Nothing waits for an RCU grace period there: a probe call still running
 * after the disarm sees td_cpu.active clear and touches nothing else (see
 * td_probe.c); td_counters_sync() waits for it before rings or the module
 * go away.
 *
 * Groups and rotation
 * -------------------
 * With groups (include/uapi/linux/topdown.h, "Groups and rotation") every
 * (group, position) gets a pinned counter of its own, group 0's enabled
 * and the others created disabled, so that only the current group's hold
 * hardware counters (START thus checks that perf takes every event).
 * Each turn of a group makes its counters anew (td_counter_renew()), so
 * that they never take a hardware counter from another user's event.
 * The probe reads td_cpu.ev[], the current group's.
 * Each armed CPU runs a deferrable delayed work item on itself
 * (td_rot_work_fn, queued by the arm IPI, every td.rot_jiffies): it
 *
 *   1. with IRQs off: ends the old group's statistics period, makes the
 *      new group current (.nr, the record's group bits; td_cpu.ev empty
 *      until step 3) and holds every counter in resync, flags
 *      TOPDOWN_REC_ROTATED on;
 *   2. perf_event_disable() of the old group's counters, then makes the
 *      new group's anew, enabled (td_counter_renew(); software ones are
 *      perf_event_enable()d), and releases the ones they replace. Both take perf's context
 *      mutex (so they cannot run in the probe) and, the counters being
 *      this CPU's, run their cross-call locally. Any slice that ends
 *      meanwhile (the work may block or be preempted) is a ROTATED record:
 *      zero deltas, every error bit, never a delta of a half-switched
 *      group;
 *   3. with IRQs off: points td_cpu.ev at the new group's counters,
 *      releases the hold and forces a resync of them.
 *
 * The slice of the task the work preempted ended before step 1, measured
 * whole by the old group; the slice that ends after step 3 (the work's
 * own, normally) re-reads the new baselines and is the ROTATED record
 * that settles the change; the next slice is whole again. The next change
 * waits for both to end (td_rot_ready(): the work, due, tries again a
 * tick later): the worker may run the work again before it switches out,
 * when the timer expired meanwhile, and two changes in one slice would
 * skip a group's turn without a record of it. Nothing is
 * added to the probe's path: the group's bits come with the flags it
 * already ORs in, and per-group statistics are kept per period (td_probe.c).
 *
 * The work never takes td_cpus_lock nor the hotplug lock: the offline
 * callback and td_cpu_put() cancel it synchronously, after the disarm has
 * cleared td_cpu.rot_on (it requeues itself only while that is set), and
 * before any counter is released; so it only runs on its own CPU, and
 * only while the counters exist. td_cpu.rot_lock keeps the retry work off
 * a CPU while it changes group: the retry re-enables only the current
 * group's counters in error, never another group's.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "td_compat.h"
#include "td_internal.h"

/* Nests inside td.lock; perf and tracepoint locks nest inside it. */
static DEFINE_MUTEX(td_cpus_lock);
static bool td_collecting;		/* td_cpus_lock */
static struct cpumask td_pending;	/* atomic bitops */
static struct cpumask td_start_arm;	/* START's CPUs to arm; td_cpus_lock */

static void td_cpus_work_fn(struct work_struct *work);
static DECLARE_WORK(td_cpus_work, td_cpus_work_fn);

/*
 * Counters in error. A pinned counter that finds every hardware counter of
 * its CPU taken (by other pinned events: the NMI watchdog, perf stat -a
 * with :D, a guest's vPMU) is put in PERF_EVENT_STATE_ERROR by perf, on
 * 6.1 as on 6.12, and perf never schedules it again by itself: only
 * perf_event_enable() clears the error and reschedules it (which puts it
 * back in error if the counters are still taken). The probe must not call
 * it (it takes perf's context mutex), so td_retry_work does, for each
 * counter it finds in error. A scan with nothing in error only reads two
 * words per counter.
 *
 * Every ERROR -> ACTIVE transition of our counters is such a
 * perf_event_enable(): before it, an IPI marks the events for a resync on
 * their CPU (td_cpu.resync), so the probe re-reads their baselines at the
 * next switch and reports that slice with the error bit (td_read()). The
 * probe alone would miss a counter that went to ERROR and came back
 * between two switches of its CPU (an older pinned event enabled and
 * closed again while the CPU idles), and report a delta across the gap.
 *
 * Each retry reschedules the whole perf context of that CPU, other users'
 * events included, and costs an IPI: a CPU whose counters stay in error
 * (a hypervisor that exposes fewer counters) backs off. Its first
 * TD_RETRY_STEADY retries come every retry_ms (a perf stat -a that held
 * the counters for a few seconds is over by then); after that, each
 * retry that leaves a counter in error doubles the wait, up to
 * retry_max_ms. A recovery, or nothing in error, resets it. STATUS
 * reports the retries and the current wait (topdown_cpu_stats.retries,
 * .retry_delay_ms).
 */
#define TD_RETRY_STEADY		8
static unsigned int retry_ms = 1000;
module_param(retry_ms, uint, 0644);
MODULE_PARM_DESC(retry_ms,
		 "period in ms of the retry of counters perf could not schedule (default 1000, min 10)");

static unsigned int retry_max_ms = 60000;
module_param(retry_max_ms, uint, 0644);
MODULE_PARM_DESC(retry_max_ms,
		 "longest wait in ms between retries of a CPU's counters that stay in error (default 60000, at least retry_ms)");

/*
 * An isolated CPU (isolcpus=, nohz_full=) gets no work or IPI of ours
 * while it counts: it keeps group 0 and its counters in error stay so.
 * isolated_work=1 treats it as any other (read when a CPU is armed), for
 * an operator who isolates CPUs from the scheduler but wants every group
 * measured there.
 */
static bool isolated_work;
module_param(isolated_work, bool, 0644);
MODULE_PARM_DESC(isolated_work,
		 "rotate groups and retry counters on isolated CPUs too, read at START (default off: they count group 0 and get no work of topdown's)");

bool td_cpu_spared(unsigned int cpu)
{
	return td_cpu_isolated(cpu) && !READ_ONCE(isolated_work);
}

static void td_retry_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(td_retry_work, td_retry_work_fn);

static unsigned int td_retry_period(void)
{
	return max(READ_ONCE(retry_ms), 10U);
}

static void td_retry_queue(void)
{
	queue_delayed_work(td_wq(), &td_retry_work,
			   msecs_to_jiffies(td_retry_period()));
}

/* A retry's counters for the probe of their CPU (td_cpu_retry_ipi()). */
struct td_retry {
	u32 errors;			/* positions retried */
	struct perf_event *ev[TOPDOWN_MAX_EVENTS];	/* new, or NULL: kept */
};

/*
 * The next switch on @c's CPU re-reads the baselines of the events
 * retried, and reads the new counters of those that were renewed. On the
 * CPU with IRQs off, or while it is offline (disarmed: nothing reads them).
 */
static void td_retry_install(struct td_cpu *c, const struct td_retry *r)
{
	u32 i;

	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		if (r->ev[i])
			c->ev[i] = r->ev[i];
	c->resync |= r->errors;
}

static void td_cpu_retry_ipi(void *info)
{
	td_retry_install(this_cpu_ptr(td_cpus), info);
}

static bool td_ev_in_error(struct perf_event *ev)
{
	return READ_ONCE(ev->state) == PERF_EVENT_STATE_ERROR;
}

/* Events of @c in PERF_EVENT_STATE_ERROR. */
static u32 td_cpu_errors(struct td_cpu *c)
{
	u32 i, errors = 0;

	for (i = 0; i < c->nr; i++)
		if (c->ev[i] && td_ev_in_error(c->ev[i]))
			errors |= BIT(i);
	return errors;
}

/*
 * A counter of pool entry @p on @cpu, created disabled unless @enabled.
 * Process context, no hotplug lock held by the caller's CPU going down.
 */
static struct perf_event *td_counter_create(u32 p, unsigned int cpu,
					    bool enabled)
{
	struct perf_event_attr attr = td.attr[p];

	attr.disabled = !enabled;
	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}

/*
 * Counters of other users come first. perf schedules a CPU's pinned
 * events in the order they were installed, oldest first, whether they
 * were enabled or not, and every enable reschedules them all: enabling a
 * counter made at START would take the hardware counter of any pinned
 * event another user opened since, and put that one in error for good.
 * So where topdown would enable a counter that competes for a hardware
 * counter (a group's turn, a retry of a counter in error), it replaces
 * it with a new one, created enabled: perf installs and schedules it in
 * one step, after every event already there, so it gets a hardware
 * counter only if one is free after them (created disabled and enabled
 * later, it would be older than an event another user opened in between
 * and take that one's counter). Events of perf's software context
 * (software events, the test builds' tracepoint) never lack a counter,
 * and making one takes the hotplug lock (a static key), which the
 * rotation work must not: they are kept and re-enabled.
 *
 * Process context, @c's rot_lock held; the caller makes the probe read
 * the new counter (group @g's position @i), then releases the one
 * returned. Returns NULL when it kept the old one (software, or perf
 * could not create a new one: the old one stays as it is, and its slices
 * read as errors until the group's next turn or retry). Makes no counter
 * where there was none.
 */
static bool td_ev_is_sw(struct td_cpu *c, u32 g, u32 i)
{
	struct perf_event *ev = c->gev[g][i];

	return ev && ev->pmu->task_ctx_nr == perf_sw_context;
}

static struct perf_event *td_counter_renew(struct td_cpu *c, unsigned int cpu,
					   u32 g, u32 i)
{
	struct perf_event *old = c->gev[g][i], *ev;
	u32 p = td.grp_ev[g][i];

	if (!old || td_ev_is_sw(c, g, i))
		return NULL;
	ev = td_counter_create(p, cpu, true);
	if (IS_ERR(ev))
		return NULL;
	c->gev[g][i] = ev;
	return old;
}

/* The wait after @fails retries in a row left a counter in error. */
static unsigned int td_retry_wait(unsigned int fails)
{
	unsigned int period = td_retry_period();
	unsigned int most = max(READ_ONCE(retry_max_ms), period);

	if (fails <= TD_RETRY_STEADY)
		return period;
	fails -= TD_RETRY_STEADY;
	if (fails >= 31 || period > most >> fails)
		return most;
	return period << fails;
}

/*
 * td_cpus_lock, the hotplug read lock and the CPU's rot_lock held:
 * retry @cpu's counters in error (its current group's) by making them
 * anew (td_counter_renew(); software ones are re-enabled), or back off.
 */
static void td_cpu_retry_locked(unsigned int cpu)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);
	u32 errors = td_cpu_errors(c), i;
	struct perf_event *stale[TOPDOWN_MAX_EVENTS] = { };
	struct td_retry r = { .errors = errors };
	unsigned int wait;

	if (!errors) {
		c->retry_fails = 0;
		WRITE_ONCE(c->retry_delay_ms, 0);
		return;
	}
	if (c->retry_fails > TD_RETRY_STEADY && time_before(jiffies, c->retry_at))
		return;
	for (i = 0; i < c->nr; i++) {
		if (!(errors & BIT(i)))
			continue;
		stale[i] = td_counter_renew(c, cpu, c->grp, i);
		if (stale[i])
			r.ev[i] = c->gev[c->grp][i];
	}
	/*
	 * The probe reads the new counters from the next switch on. An
	 * offline CPU (-ENXIO) was disarmed by its callback: nothing reads
	 * them there, and perf skips the enable.
	 */
	if (smp_call_function_single(cpu, td_cpu_retry_ipi, &r, 1))
		td_retry_install(c, &r);
	for (i = 0; i < c->nr; i++) {
		if (!(errors & BIT(i)))
			continue;
		if (stale[i])
			perf_event_release_kernel(stale[i]);
		else if (td_ev_is_sw(c, c->grp, i))
			perf_event_enable(c->ev[i]);
		else
			continue;	/* not made anew: stays in error */
		WRITE_ONCE(c->retries, c->retries + 1);
		if (READ_ONCE(c->ev[i]->state) == PERF_EVENT_STATE_ACTIVE)
			WRITE_ONCE(c->recoveries, c->recoveries + 1);
	}
	if (!td_cpu_errors(c)) {
		c->retry_fails = 0;
		WRITE_ONCE(c->retry_delay_ms, 0);
		return;
	}
	if (c->retry_fails < UINT_MAX)
		c->retry_fails++;
	wait = td_retry_wait(c->retry_fails);
	WRITE_ONCE(c->retry_delay_ms, wait);
	c->retry_at = jiffies + msecs_to_jiffies(wait);
}

/*
 * td_cpus_lock held: the retry, not while the CPU changes group. The
 * hotplug lock before rot_lock: the offline callback waits, under the
 * hotplug lock, for the rotation work, which takes rot_lock.
 */
static void td_cpu_retry(unsigned int cpu)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);

	/* Set by the arm IPI, under td_cpus_lock: no IPIs into it. */
	if (c->isolated)
		return;
	cpus_read_lock();
	mutex_lock(&c->rot_lock);
	td_cpu_retry_locked(cpu);
	mutex_unlock(&c->rot_lock);
	cpus_read_unlock();
}

/* Retry every CPU's counters in error when due; requeue while collecting. */
static void td_retry_work_fn(struct work_struct *work)
{
	unsigned int cpu;

	mutex_lock(&td_cpus_lock);
	if (!td_collecting)
		goto out;
	for_each_possible_cpu(cpu)
		td_cpu_retry(cpu);
	td_retry_queue();
out:
	mutex_unlock(&td_cpus_lock);
}

static u8 td_evstate(struct perf_event *ev)
{
	if (!ev)
		return TOPDOWN_EVSTATE_NONE;
	switch (READ_ONCE(ev->state)) {
	case PERF_EVENT_STATE_ACTIVE:
		return TOPDOWN_EVSTATE_COUNTING;
	case PERF_EVENT_STATE_INACTIVE:
		return TOPDOWN_EVSTATE_MULTIPLEXED;
	case PERF_EVENT_STATE_ERROR:
		return TOPDOWN_EVSTATE_ERROR;
	default:	/* OFF, EXIT, DEAD and 6.x's REVOKED */
		return TOPDOWN_EVSTATE_OFF;
	}
}

/*
 * Process context, td.lock held (STATUS): TOPDOWN_EVSTATE_* of @cpu's
 * counters, per position of the current group (ev_state) and per group
 * (grp_ev_state). Under td_cpus_lock, so that none is released meanwhile,
 * and the CPU's rot_lock, so that the current group is not half changed.
 */
void td_counters_ev_state(unsigned int cpu, struct topdown_cpu_stats *s)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);
	u32 g, i;

	lockdep_assert_held(&td.lock);
	mutex_lock(&td_cpus_lock);
	mutex_lock(&c->rot_lock);
	for (i = 0; i < c->nr; i++)
		s->ev_state[i] = td_evstate(c->ev[i]);
	for (g = 0; g < td.nr_groups; g++)
		for (i = 0; i < td.grp_nr[g]; i++)
			s->grp_ev_state[g][i] = td_evstate(c->gev[g][i]);
	mutex_unlock(&c->rot_lock);
	mutex_unlock(&td_cpus_lock);
}

/*
 * Process context (STATUS): the per-group statistics of @cpu, the current
 * group's period included, consistent with each other (td_cpu.grp_seq;
 * the per-CPU counts it adds are read racily, as the others of STATUS).
 */
void td_counters_grp_stats(unsigned int cpu, struct topdown_cpu_stats *s)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);
	unsigned int seq;
	u32 g, i;

	do {
		seq = raw_read_seqcount_begin(&c->grp_seq);
		g = READ_ONCE(c->grp);
		s->cur_group = g;
		s->rotations = READ_ONCE(c->rotations);
		s->rotation_ns = READ_ONCE(c->rotation_ns);
		memcpy(s->grp_records, c->grp_records, sizeof(s->grp_records));
		memcpy(s->grp_time_ns, c->grp_time_ns, sizeof(s->grp_time_ns));
		memcpy(s->grp_error_slices, c->grp_errors,
		       sizeof(s->grp_error_slices));
		memcpy(s->grp_ev_error_slices, c->grp_ev_err,
		       sizeof(s->grp_ev_error_slices));
		/* The period under way (empty once it ended). */
		s->grp_records[g] += READ_ONCE(c->records) - c->base_records;
		s->grp_error_slices[g] += READ_ONCE(c->read_errors) -
					  c->base_read_errors;
		for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
			s->grp_ev_error_slices[g][i] += READ_ONCE(c->ev_err[i]) -
							c->base_ev_err[i];
		if (c->measuring)
			s->grp_time_ns[g] += READ_ONCE(c->last_ns) - c->start_ns;
	} while (read_seqcount_retry(&c->grp_seq, seq));
}

static void td_counters_release(struct td_cpu *c)
{
	u32 g, i;

	lockdep_assert_held(&td_cpus_lock);
	for (g = 0; g < TOPDOWN_MAX_GROUPS; g++) {
		for (i = 0; i < TOPDOWN_MAX_EVENTS; i++) {
			if (c->gev[g][i]) {
				perf_event_release_kernel(c->gev[g][i]);
				c->gev[g][i] = NULL;
			}
		}
	}
	/* Disarmed: the probe does not look; the retry work may. */
	mutex_lock(&c->rot_lock);
	memset(c->ev, 0, sizeof(c->ev));
	c->nr = 0;
	mutex_unlock(&c->rot_lock);
}

/*
 * On the CPU, IRQs off: the last change settled and a slice ended after
 * the settling one (at arm: a slice of group 0 ended), so that the current
 * group measured a slice of its turn. The worker can run the work again
 * before it switches out: the timer may expire while it still runs (a
 * vCPU that did not run for ticks, a long work item before it), and a
 * change then would skip a group with no record of its turn.
 */
static bool td_rot_ready(const struct td_cpu *c)
{
	lockdep_assert_irqs_disabled();
	return c->rot_phase == TD_ROT_NONE &&
	       (s64)(c->probe_count - c->rot_next) >= 0;
}

/*
 * @ev's group's turn began (made anew, or enabled). A counter that had no
 * hardware counter the last time its group ran (@was_error: the one it
 * replaced, or @ev itself, perf_event_disable() leaving an event in
 * error as it is) is retried by this, counted as the retry work counts
 * its own (STATUS retries, recoveries).
 */
static void td_rot_count(struct td_cpu *c, struct perf_event *ev,
			 bool was_error)
{
	if (!was_error)
		return;
	WRITE_ONCE(c->retries, c->retries + 1);
	if (READ_ONCE(ev->state) == PERF_EVENT_STATE_ACTIVE)
		WRITE_ONCE(c->recoveries, c->recoveries + 1);
}

static void td_rot_enable(struct td_cpu *c, struct perf_event *ev,
			  bool was_error)
{
	perf_event_enable(ev);
	td_rot_count(c, ev, was_error);
}

/*
 * The rotation work of one CPU (see "Groups and rotation" above): on that
 * CPU, its counters alive (cancelled before they are released). A change
 * that is due but not ready (td_rot_ready()) is tried again a tick later.
 */
static void td_rot_work_fn(struct work_struct *work)
{
	struct td_cpu *c = container_of(to_delayed_work(work), struct td_cpu,
					rot_work);
	struct perf_event *stale[TOPDOWN_MAX_EVENTS] = { };
	u32 old, new, i;
	bool changing, wait;
	u64 t0;

	mutex_lock(&c->rot_lock);
	local_irq_disable();
	old = c->grp;
	new = old + 1 < td.nr_groups ? old + 1 : 0;
	/* Bound to its CPU; a work that ran elsewhere must not touch it. */
	changing = READ_ONCE(c->rot_on) && c->active &&
		   !WARN_ON_ONCE(this_cpu_ptr(td_cpus) != c);
	wait = changing && !td_rot_ready(c);
	changing = changing && !wait;
	t0 = ktime_get_mono_fast_ns();
	if (changing) {
		/*
		 * 1. The new group is current, everything held in resync;
		 * the probe reads no counter until step 3 (its slices
		 * meanwhile are ROTATED).
		 */
		raw_write_seqcount_begin(&c->grp_seq);
		td_grp_period_end(c);
		WRITE_ONCE(c->grp, new);	/* STATUS reads these racily */
		c->nr = td.grp_nr[new];
		memset(c->ev, 0, sizeof(c->ev));
		c->hold = GENMASK(c->nr - 1, 0);
		c->resync = c->hold;
		c->grp_flags = TD_REC_GROUP(new) | TOPDOWN_REC_ROTATED;
		c->rec_flags = (c->rec_flags & TOPDOWN_REC_FIRST) | c->grp_flags;
		c->rot_phase = TD_ROT_CHANGING;
		WRITE_ONCE(c->rotations, c->rotations + 1);
		raw_write_seqcount_end(&c->grp_seq);
	}
	local_irq_enable();
	if (wait)
		goto requeue;
	if (!changing)
		goto out;

	/*
	 * 2. Free the old group's hardware counters, then take what is free
	 * after every other user's: the new group's made anew, enabled
	 * (td_counter_renew()); software ones enabled. A counter perf could
	 * not make anew stays as it was, disabled (its slices read as
	 * errors), rather than take an older place.
	 */
	for (i = 0; i < td.grp_nr[old]; i++)
		if (c->gev[old][i])
			perf_event_disable(c->gev[old][i]);
	for (i = 0; i < td.grp_nr[new]; i++) {
		struct perf_event *ev;

		stale[i] = td_counter_renew(c, smp_processor_id(), new, i);
		ev = c->gev[new][i];
		if (stale[i])
			td_rot_count(c, ev, td_ev_in_error(stale[i]));
		else if (ev && td_ev_is_sw(c, new, i))
			td_rot_enable(c, ev, td_ev_in_error(ev));
	}

	/* 3. The probe reads them; the next slice re-reads the baselines. */
	local_irq_disable();
	memcpy(c->ev, c->gev[new], sizeof(c->ev));
	c->resync = c->hold;
	c->hold = 0;
	c->rot_phase = TD_ROT_COMMITTED;
	WRITE_ONCE(c->rotation_ns, c->rotation_ns + ktime_get_mono_fast_ns() - t0);
	local_irq_enable();
	for (i = 0; i < td.grp_nr[new]; i++)
		if (stale[i])
			perf_event_release_kernel(stale[i]);
requeue:
	if (READ_ONCE(c->rot_on))
		queue_delayed_work_on(smp_processor_id(), td_percpu_wq(),
				      &c->rot_work, wait ? 1 : td.rot_jiffies);
out:
	mutex_unlock(&c->rot_lock);
}

/* Module init: the rotation work and lock of every possible CPU. */
void td_counters_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);

		INIT_DEFERRABLE_WORK(&c->rot_work, td_rot_work_fn);
		mutex_init(&c->rot_lock);
		seqcount_init(&c->grp_seq);
	}
}

/*
 * On the CPU, IRQs off: group 0 first, take baselines and let the probe
 * run here; with groups, start the rotation.
 */
static void td_cpu_arm(struct td_cpu *c)
{
	u64 scratch[TOPDOWN_MAX_EVENTS];
	u32 errors;

	lockdep_assert_irqs_disabled();
	WRITE_ONCE(c->grp, 0);
	c->nr = td.grp_nr[0];
	c->width = td.grp_width;
	memcpy(c->ev, c->gev[0], sizeof(c->ev));
	c->hold = 0;
	c->resync = 0;
	td_probe_read(c, scratch, &errors);
	/* Counters not active yet are re-based on their first good read. */
	c->resync = errors;
	WRITE_ONCE(c->arm_errors, errors);	/* STATUS reads it racily */
	WRITE_ONCE(c->last_ns, ktime_get_mono_fast_ns());	/* as the probe's */
	c->grp_flags = TD_REC_GROUP(0);
	c->rec_flags = c->grp_flags | TOPDOWN_REC_FIRST;
	c->rot_phase = TD_ROT_NONE;
	c->rot_next = c->probe_count + 1;	/* group 0 measures a slice */
	WRITE_ONCE(c->isolated, td_cpu_spared(smp_processor_id()));
	raw_write_seqcount_begin(&c->grp_seq);
	td_grp_period_end(c);	/* nothing since the last disarm */
	td_grp_period_begin(c, c->last_ns);
	raw_write_seqcount_end(&c->grp_seq);
	WRITE_ONCE(c->active, true);
	/* An isolated CPU counts group 0 and gets no work of ours. */
	if (td.nr_groups > 1 && !c->isolated) {
		WRITE_ONCE(c->rot_on, true);
		queue_delayed_work_on(smp_processor_id(), td_percpu_wq(),
				      &c->rot_work, td.rot_jiffies);
	}
}

/* IPI: arm this CPU unless it went offline since @info's hp_gen. */
static void td_cpu_arm_ipi(void *info)
{
	struct td_cpu *c = this_cpu_ptr(td_cpus);
	unsigned int *gen = info;

	if (READ_ONCE(c->hp_gen) != *gen) {
		*gen = ~*gen;	/* tell the caller: not armed */
		return;
	}
	td_cpu_arm(c);
}

/*
 * On the CPU: the probe no longer touches this CPU's counters or ring, the
 * current group's statistics period ends, and the rotation work stops
 * requeueing itself (whoever disarms then cancels it).
 */
static void td_cpu_disarm_ipi(void *info)
{
	struct td_cpu *c = this_cpu_ptr(td_cpus);
	unsigned long flags;

	/* litmus: cpu-disarm begin */
	local_irq_save(flags);
	if (c->active) {
		raw_write_seqcount_begin(&c->grp_seq);
		td_grp_period_end(c);
		raw_write_seqcount_end(&c->grp_seq);
	}
	WRITE_ONCE(c->active, false);
	WRITE_ONCE(c->rot_on, false);
	local_irq_restore(flags);
	/* litmus: cpu-disarm end */
}

/*
 * Disarm @cpu, wait for its rotation work and release its counters. The
 * IPI is sent under cpus_read_lock(), so the CPU is either fully online
 * or fully offline; offline (-ENXIO), its offline callback has disarmed
 * it and cancelled the work, and that hotplug operation is ordered before
 * us by the lock.
 */
static void td_cpu_put(unsigned int cpu)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);

	lockdep_assert_held(&td_cpus_lock);
	cpus_read_lock();
	smp_call_function_single(cpu, td_cpu_disarm_ipi, NULL, 1);
	cpus_read_unlock();
	cancel_delayed_work_sync(&c->rot_work);
	td_counters_release(c);
}

/*
 * First half of a CPU's sync: release @cpu's old counters, and if the CPU
 * is up create new ones, leaving it disarmed. Returns 0, or the error of
 * the first counter perf refused while the CPU stayed up (then *@err_event
 * is its index and the CPU is left without counters). *@arm tells whether
 * td_cpu_sync_arm() is to arm it: the CPU was up, with the hotplug
 * generation sampled in td_cpu.sync_gen.
 */
static int td_cpu_sync_create(unsigned int cpu, int *err_event, bool *arm)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);
	unsigned int gen;
	u32 g, i;

	lockdep_assert_held(&td_cpus_lock);
	*arm = false;
	td_cpu_put(cpu);
	c->retry_fails = 0;
	WRITE_ONCE(c->retry_delay_ms, 0);
	/* Pairs with the callbacks' store-release. */
	gen = smp_load_acquire(&c->hp_gen);
	if (!(gen & 1))
		return 0;	/* down: nothing to count until it is back */

	/* Group 0's counters enabled, the other groups' created disabled. */
	for (g = 0; g < td.nr_groups; g++) {
		for (i = 0; i < td.grp_nr[g]; i++) {
			u32 p = td.grp_ev[g][i];
			struct perf_event *ev;

			if (!td.ev_all_cpus[p] && !cpumask_test_cpu(cpu, td.ev_cpus[p]))
				continue;
			ev = td_counter_create(p, cpu, g == 0);
			if (IS_ERR(ev)) {
				td_counters_release(c);
				/* The CPU went down meanwhile: not the event's fault. */
				if (smp_load_acquire(&c->hp_gen) != gen)
					return 0;
				*err_event = p;
				return PTR_ERR(ev);
			}
			c->gev[g][i] = ev;
		}
	}
	c->sync_gen = gen;
	*arm = true;
	return 0;
}

/* Second half: arm @cpu, whose counters td_cpu_sync_create() made. */
static void td_cpu_sync_arm(unsigned int cpu)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);
	unsigned int gen = c->sync_gen;
	int ret;

	lockdep_assert_held(&td_cpus_lock);
	cpus_read_lock();
	ret = smp_call_function_single(cpu, td_cpu_arm_ipi, &gen, 1);
	cpus_read_unlock();
	if (ret || gen != c->sync_gen)
		td_counters_release(c);	/* went down: pending again if back */
}

/*
 * Bring @cpu's counters up to date with its hotplug state: release the old
 * ones, and if the CPU is up create new ones and arm it. Returns 0, or the
 * error of the first counter perf refused while the CPU stayed up (then
 * *@err_event is its index and the CPU is left disarmed, without counters).
 */
static int td_cpu_sync(unsigned int cpu, int *err_event)
{
	bool arm;
	int ret;

	ret = td_cpu_sync_create(cpu, err_event, &arm);
	if (!ret && arm)
		td_cpu_sync_arm(cpu);
	return ret;
}

/* Sync every pending CPU. */
static void td_cpus_work_fn(struct work_struct *work)
{
	unsigned int cpu;
	int err_event;

	mutex_lock(&td_cpus_lock);
	for_each_possible_cpu(cpu) {
		if (!READ_ONCE(td_collecting))
			break;
		if (!cpumask_test_and_clear_cpu(cpu, &td_pending))
			continue;
		/* Never fail a CPU coming online: it just does not count. */
		td_cpu_sync(cpu, &err_event);
	}
	mutex_unlock(&td_cpus_lock);
}

/*
 * Hotplug callbacks: cpu_hotplug_lock is held, so no counter is created or
 * released here (see the top of this file) and none of our locks is taken.
 * AP states run on the CPU they are for.
 */
static int td_cpu_online(unsigned int cpu)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);

	WARN_ON_ONCE(cpu != raw_smp_processor_id());
	/* Odd: up. Pairs with td_cpu_sync()'s load-acquire. */
	smp_store_release(&c->hp_gen, (c->hp_gen + 1) | 1);
	cpumask_set_cpu(cpu, &td_pending);
	queue_work(td_wq(), &td_cpus_work);
	return 0;
}

static int td_cpu_offline(unsigned int cpu)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);

	if (WARN_ON_ONCE(cpu != raw_smp_processor_id()))
		smp_call_function_single(cpu, td_cpu_disarm_ipi, NULL, 1);
	else
		td_cpu_disarm_ipi(NULL);
	/*
	 * Before the workqueue unbinds this CPU's workers (a lower hotplug
	 * state): the rotation work must not run anywhere else. It takes
	 * neither the hotplug lock nor td_cpus_lock.
	 */
	cancel_delayed_work_sync(&c->rot_work);
	/* No wake-up left queued while the CPU (its irq_work thread) is down. */
	td_rings_sync_wakeup(cpu);
	/* After the disarm: whoever sees the new hp_gen may free counters. */
	smp_store_release(&c->hp_gen, (c->hp_gen | 1) + 1);
	cpumask_set_cpu(cpu, &td_pending);
	queue_work(td_wq(), &td_cpus_work);
	return 0;
}

static void td_build_attrs(void)
{
	u32 i;

	for (i = 0; i < td.nr_events; i++) {
		const struct topdown_event *e = td_cfg_ev(&td.cfg, i);
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

/*
 * Register the hotplug state and take the set of online CPUs under one
 * cpus_read_lock(): every CPU is then either pending now or will run the
 * online callback later, and hp_gen tells up from down exactly.
 */
static int td_hotplug_register(void)
{
	unsigned int cpu;
	int ret;

	lockdep_assert_held(&td_cpus_lock);
	cpus_read_lock();
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
						   "topdown:online",
						   td_cpu_online,
						   td_cpu_offline);
	if (ret >= 0) {
		for_each_possible_cpu(cpu) {
			struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);
			unsigned int up = cpu_online(cpu);

			/* No callback runs now: plain stores suffice. */
			if ((c->hp_gen & 1) != up)
				WRITE_ONCE(c->hp_gen, c->hp_gen + 1);
		}
		cpumask_copy(&td_pending, cpu_online_mask);
	}
	cpus_read_unlock();
	return ret;
}

/*
 * Release every counter and detach the probe. Every CPU is disarmed and no
 * callback of ours runs any more (td_counters_disarm()). The work item STOP
 * queues, or a failed START directly; td.lock is held by whoever queued it
 * until it is queued, and START, CONFIGURE and module exit flush it under
 * td.lock (td_counters_flush()), so the probe's state is serialised too.
 */
static void td_counters_release_all(void)
{
	unsigned int cpu;

	/* Nothing queues it any more. */
	cancel_work_sync(&td_cpus_work);
	mutex_lock(&td_cpus_lock);
	for_each_possible_cpu(cpu)
		td_counters_release(per_cpu_ptr(td_cpus, cpu));
	cpumask_clear(&td_pending);
	mutex_unlock(&td_cpus_lock);
	td_probe_detach();
}

static void td_release_work_fn(struct work_struct *work)
{
	td_counters_release_all();
}

static DECLARE_WORK(td_release_work, td_release_work_fn);

/*
 * Process context, td.lock held, state RUNNING or a START being undone.
 * On return no CPU is armed and no callback of ours can run; the counters
 * and the probe are still there, harmless, for td_counters_release_all().
 */
static void td_counters_disarm(void)
{
	unsigned int cpu;

	lockdep_assert_held(&td.lock);
	mutex_lock(&td_cpus_lock);
	WRITE_ONCE(td_collecting, false);	/* nothing is armed from now on */
	mutex_unlock(&td_cpus_lock);
	/* It no longer requeues itself; it takes td_cpus_lock. */
	cancel_delayed_work_sync(&td_retry_work);

	/*
	 * Offline CPUs were disarmed by their offline callback. With the
	 * hotplug lock held no CPU is half-way: the IPIs reach every CPU
	 * that may be armed, and none is left pending in a CPU going down.
	 * Nor is a wake-up: each online CPU's is waited for (if queued)
	 * before any of them can go offline without our callback.
	 */
	cpus_read_lock();
	on_each_cpu(td_cpu_disarm_ipi, NULL, 1);
	for_each_online_cpu(cpu)
		td_rings_sync_wakeup(cpu);
	cpuhp_remove_state_nocalls_cpuslocked(td.hp_state);
	cpus_read_unlock();
	td.hp_state = 0;
	/* Every rot_on is clear: no rotation work queues itself again. */
	for_each_possible_cpu(cpu)
		cancel_delayed_work_sync(&per_cpu_ptr(td_cpus, cpu)->rot_work);
}

/*
 * Process context, td.lock held: on return the counters of the last STOP
 * are released and the probe detached.
 */
static void td_counters_flush(void)
{
	lockdep_assert_held(&td.lock);
	flush_work(&td_release_work);
}

/*
 * Process context, td.lock held, not running: as td_counters_flush(), and
 * no probe call is running on return either (before rings are freed or
 * the module goes away).
 */
void td_counters_sync(void)
{
	td_counters_flush();
	td_probe_sync();
}

/* Process context, td.lock held, state CONFIGURED. */
int td_counters_start(void)
{
	unsigned int cpu;
	int ret;

	lockdep_assert_held(&td.lock);
	td_counters_flush();
	td_build_attrs();
	td.err_code = 0;
	td.err_event = -1;
	td.err_cpu = -1;

	ret = td_probe_attach();
	if (ret) {
		td.err_code = ret;
		return ret;
	}

	mutex_lock(&td_cpus_lock);
	ret = td_hotplug_register();
	if (ret < 0) {
		mutex_unlock(&td_cpus_lock);
		td.err_code = ret;
		td_probe_detach();
		return ret;
	}
	td.hp_state = ret;
	WRITE_ONCE(td_collecting, true);
	ret = 0;
	/*
	 * Every CPU's counters first, then the arming: a START that fails
	 * on some CPU has armed none, so it leaves no record, sequence
	 * number or statistic behind in any ring.
	 */
	cpumask_clear(&td_start_arm);
	for_each_possible_cpu(cpu) {
		int err_event;
		bool arm;

		if (!cpumask_test_and_clear_cpu(cpu, &td_pending))
			continue;
		ret = td_cpu_sync_create(cpu, &err_event, &arm);
		if (ret) {
			td.err_code = ret;
			td.err_event = err_event;
			td.err_cpu = cpu;
			break;
		}
		if (arm)
			cpumask_set_cpu(cpu, &td_start_arm);
	}
	if (!ret) {
		for_each_cpu(cpu, &td_start_arm)
			td_cpu_sync_arm(cpu);
		td_retry_queue();
	} else {
		/*
		 * Before td_cpus_lock is let go: the hotplug work may be
		 * queued (a CPU came or went), and must arm nothing.
		 */
		WRITE_ONCE(td_collecting, false);
	}
	mutex_unlock(&td_cpus_lock);
	if (ret) {
		td_counters_disarm();
		td_counters_release_all();
	}
	return ret;
}

/*
 * Process context, td.lock held, state RUNNING. Only the disarm is done
 * here: releasing counters (perf IPIs and mutexes) and unregistering the
 * probe (text patching) are left to a work item, so that a STOP under load
 * does as little as possible on the caller's CPU time.
 */
void td_counters_stop(void)
{
	td_counters_disarm();
	queue_work(td_wq(), &td_release_work);
}
