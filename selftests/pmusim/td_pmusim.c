// SPDX-License-Identifier: GPL-2.0
/*
 * td_pmusim - a simulated PMU for the topdown selftests. Test-only: it is
 * built into build/<arch>/selftests/ and loaded in the QEMU guests, never
 * installed.
 *
 * It registers a perf PMU named "td_pmusim" (dynamic type id, see
 * /sys/bus/event_source/devices/td_pmusim/type) whose counters advance by
 * exactly known amounts, so that every number topdown records can be
 * checked against ground truth. See selftests/pmusim/README.
 *
 * Counting model
 * --------------
 * Every CPU has SIM_NR_COUNTERS raw 64-bit counters. They change only
 *
 *   - when a task writes "N" to debugfs td_pmusim/work: N units of work
 *     are added to the counters of the CPU it runs on, counter i growing
 *     by N * rate[i] of the profile of the task's comm (interrupts off,
 *     so the task is still current on that CPU when the next context
 *     switch reads the counters: the work is attributed to it exactly);
 *   - at each tick of the optional background timer (debugfs noise, a
 *     period in microseconds): one unit of the "*" profile is added on
 *     the CPU it fires on, unless the interrupted task has a profile of
 *     its own, so profiled tasks only ever count their own work (by the
 *     comm at that tick: one caught inside a rename, half-written, has
 *     no profile; see the README);
 *   - with debugfs read_tick set, at each pmu->read() of counter 0: one
 *     unit of the "*" profile, under the same rule, before the value is
 *     taken. Every slice of an unprofiled task then counts something,
 *     the short first one after START included.
 *
 * A perf event reads its CPU's raw counter; event->count grows by the
 * difference since the previous read, as for a hardware counter. The
 * raw value returned by the first pmu->read() of each event (topdown's
 * baseline at START) and by the latest one are kept per CPU and counter
 * (debugfs reads), so that a test can tell exactly how much the counters
 * grew between the first and the last read of a collection.
 *
 * Layouts
 * -------
 * The layout says which perf attributes the PMU accepts and on which
 * counter each lands, with the encodings of a real vendor PMU, so that
 * tdctl's real event plans can be programmed on it unchanged (the tests
 * present this PMU's type as the vendor's PMU in a fake sysfs). "index"
 * accepts config 0..7 of its own type. In intel_skl, cycles and
 * instructions are PERF_TYPE_HARDWARE events, which reach this PMU only
 * where no real core PMU takes them (the x86-64 TCG guest). arm_n2_r0p0
 * models Neoverse N2 erratum SDEN1982442: STALL_SLOT and
 * STALL_SLOT_FRONTEND also count every CPU_CYCLES increment. "any" (no
 * events listed) accepts every config of its own type and every
 * PERF_TYPE_HARDWARE event that reaches it, on counter config % 8: a
 * vendor's whole event list (Level 2 pools have more events than there
 * are counters) can be programmed, with counts that are exact per counter
 * but alias unrelated events, so its metrics mean nothing.
 *
 * Contexts and locking
 * --------------------
 * sim_lock (raw, IRQ-safe) protects the profiles and the layout choice.
 * The raw counters of a CPU are written only on that CPU with interrupts
 * off (work writes, the timer) and read by the pmu callbacks, which perf
 * calls on the event's CPU with interrupts off. Nothing here sleeps in
 * the pmu callbacks or the timer. The layout cannot change while any
 * event exists; every event holds a module reference (pmu.module).
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "td_compat.h"

#define SIM_NR_COUNTERS		8
#define SIM_NR_PROFILES		8
#define SIM_MAX_UNITS		1000000000ULL
#define SIM_MAX_RATE		1000000ULL
#define SIM_CMD_MAX		512
#define SIM_BG_COMM		"*"

enum sim_kind {
	SIM_OWN,		/* attr.type == this PMU's type */
	SIM_HW,			/* PERF_TYPE_HARDWARE */
};

struct sim_event_desc {
	const char *name;
	enum sim_kind kind;
	u64 config;
	int plus;		/* also counts this counter's increments, or -1 */
};

struct sim_layout {
	const char *name;
	int nr;
	struct sim_event_desc ev[SIM_NR_COUNTERS];
};

#define OWN(n, c)	{ n, SIM_OWN, c, -1 }
#define HWE(n, c)	{ n, SIM_HW, c, -1 }

static const struct sim_layout sim_layouts[] = {
	{ "index", 8, {
		OWN("ev0", 0), OWN("ev1", 1), OWN("ev2", 2), OWN("ev3", 3),
		OWN("ev4", 4), OWN("ev5", 5), OWN("ev6", 6), OWN("ev7", 7),
	} },
	/* skylakex pipeline.json/frontend.json: (umask << 8) | event */
	{ "intel_skl", 6, {
		HWE("cycles", PERF_COUNT_HW_CPU_CYCLES),
		HWE("instructions", PERF_COUNT_HW_INSTRUCTIONS),
		OWN("IDQ_UOPS_NOT_DELIVERED.CORE", 0x019c),
		OWN("UOPS_RETIRED.RETIRE_SLOTS", 0x02c2),
		OWN("UOPS_ISSUED.ANY", 0x010e),
		OWN("INT_MISC.RECOVERY_CYCLES", 0x010d),
	} },
	/*
	 * AMD raw configs: event bits 0-7 at config 0-7, the umask at 8-15,
	 * event bits 8-11 at config 32-35 (event 0x1a0 -> 0x1000000a0).
	 */
	{ "amd_zen4", 6, {
		OWN("ls_not_halted_cyc", 0x76),			/* 0x76 */
		OWN("de_src_op_disp.all", 0x7aa),		/* 0xaa/0x07 */
		OWN("ex_ret_ops", 0xc1),			/* 0xc1 */
		OWN("de_no_dispatch.no_ops_from_fe", 0x1000001a0),	/* 0x1a0/0x01 */
		OWN("de_no_dispatch.backend_stalls", 0x100001ea0),	/* 0x1a0/0x1e */
		OWN("de_no_dispatch.smt_contention", 0x1000060a0),	/* 0x1a0/0x60 */
	} },
	{ "any", 0, { } },
	/* Arm common-and-microarch.json event numbers. */
	{ "arm_n2_r0p0", 7, {
		OWN("CPU_CYCLES", 0x11),
		OWN("OP_RETIRED", 0x3a),
		OWN("OP_SPEC", 0x3b),
		{ "STALL_SLOT", SIM_OWN, 0x3f, 0 },
		{ "STALL_SLOT_FRONTEND", SIM_OWN, 0x3e, 0 },
		OWN("STALL_SLOT_BACKEND", 0x3d),
		OWN("INST_RETIRED", 0x08),
	} },
	{ "arm_n2_r0p3", 7, {
		OWN("CPU_CYCLES", 0x11),
		OWN("OP_RETIRED", 0x3a),
		OWN("OP_SPEC", 0x3b),
		OWN("STALL_SLOT", 0x3f),
		OWN("STALL_SLOT_FRONTEND", 0x3e),
		OWN("STALL_SLOT_BACKEND", 0x3d),
		OWN("INST_RETIRED", 0x08),
	} },
};

struct sim_profile {
	char comm[TASK_COMM_LEN];
	u64 rate[SIM_NR_COUNTERS];
	u64 units;		/* work units counted with this profile */
};

struct sim_cpu {
	u64 count[SIM_NR_COUNTERS];	/* this CPU only, interrupts off */
	u64 units;		/* work units done on this CPU */
	u64 ticks;		/* background ticks that counted */
	u64 reads;		/* pmu->read() calls */
	u64 first[SIM_NR_COUNTERS];	/* value at an event's first read */
	u64 last[SIM_NR_COUNTERS];	/* value at the latest read */
	struct hrtimer timer;
	/* pmu->add() and ->del(), on this CPU with interrupts off. */
	int max_active;		/* events on the PMU at once, -1: any number */
	int active;		/* events on the PMU now */
	u64 adds;		/* pmu->add() calls */
	u64 refused;		/* ... refused because max_active were on */
};

/* event->hw.flags: pmu->read() has been called for this event. */
#define SIM_EVENT_READ		0x1

static DEFINE_PER_CPU(struct sim_cpu, sim_cpus);

static DEFINE_RAW_SPINLOCK(sim_lock);
static const struct sim_layout *sim_layout = &sim_layouts[0];
static struct sim_profile sim_profiles[SIM_NR_PROFILES];
static int sim_nr_profiles;
static atomic_t sim_nr_events = ATOMIC_INIT(0);

static int sim_init_error;		/* event_init's errno for our type, 0: none */
static DEFINE_MUTEX(sim_noise_mutex);	/* serialises noise on/off */
static u64 sim_noise_ns;		/* 0: off */
static bool sim_read_tick;

static struct dentry *sim_dir;
static struct pmu sim_pmu;

/* ---- counting ------------------------------------------------------- */

/* sim_lock held. The profile of @comm, or NULL. */
static struct sim_profile *sim_find_profile(const char *comm)
{
	int i;

	for (i = 0; i < sim_nr_profiles; i++)
		if (!strncmp(sim_profiles[i].comm, comm, TASK_COMM_LEN))
			return &sim_profiles[i];
	return NULL;
}

/* sim_lock held, interrupts off: @units of @p on this CPU. */
static void sim_count_units(struct sim_cpu *c, const struct sim_profile *p,
			    u64 units)
{
	const struct sim_layout *l = sim_layout;
	int i;

	for (i = 0; i < SIM_NR_COUNTERS; i++) {
		u64 inc = units * p->rate[i];

		if (i < l->nr && l->ev[i].plus >= 0)
			inc += units * p->rate[l->ev[i].plus];
		WRITE_ONCE(c->count[i], c->count[i] + inc);
	}
}

/*
 * Interrupts off: one unit of the background profile on this CPU, unless
 * the current task has a profile of its own.
 */
static void sim_background_unit(void)
{
	struct sim_cpu *c = this_cpu_ptr(&sim_cpus);
	struct sim_profile *bg;

	raw_spin_lock(&sim_lock);
	bg = sim_find_profile(SIM_BG_COMM);
	if (bg && !sim_find_profile(current->comm)) {
		sim_count_units(c, bg, 1);
		bg->units++;
		WRITE_ONCE(c->ticks, c->ticks + 1);
	}
	raw_spin_unlock(&sim_lock);
}

static enum hrtimer_restart sim_tick(struct hrtimer *t)
{
	u64 period = READ_ONCE(sim_noise_ns);

	if (!period)		/* being stopped */
		return HRTIMER_NORESTART;
	sim_background_unit();
	hrtimer_forward_now(t, ns_to_ktime(period));
	return HRTIMER_RESTART;
}

/* On each online CPU (IPI): start its pinned timer. */
static void sim_noise_start_cpu(void *unused)
{
	struct sim_cpu *c = this_cpu_ptr(&sim_cpus);

	hrtimer_start(&c->timer, ns_to_ktime(READ_ONCE(sim_noise_ns)),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/* sim_noise_mutex held. Returns with no timer callback running. */
static void sim_noise_stop(void)
{
	int cpu;

	WRITE_ONCE(sim_noise_ns, 0);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&sim_cpus, cpu)->timer);
}

/* ---- the PMU -------------------------------------------------------- */

static void sim_event_destroy(struct perf_event *event)
{
	atomic_dec(&sim_nr_events);
}

static int sim_lookup(const struct sim_layout *l, enum sim_kind kind, u64 config)
{
	int i;

	if (!l->nr)		/* "any" */
		return (int)(config % SIM_NR_COUNTERS);
	for (i = 0; i < l->nr; i++)
		if (l->ev[i].kind == kind && l->ev[i].config == config)
			return i;
	return -1;
}

static int sim_event_init(struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;
	enum sim_kind kind;
	unsigned long flags;
	int idx;

	if (attr->type == sim_pmu.type)
		kind = SIM_OWN;
	else if (attr->type == PERF_TYPE_HARDWARE)
		kind = SIM_HW;
	else
		return -ENOENT;
	if (kind == SIM_OWN && READ_ONCE(sim_init_error))
		return -READ_ONCE(sim_init_error);

	raw_spin_lock_irqsave(&sim_lock, flags);
	idx = sim_lookup(sim_layout, kind, attr->config);
	raw_spin_unlock_irqrestore(&sim_lock, flags);
	if (idx < 0)	/* a hardware event is someone else's to take */
		return kind == SIM_HW ? -ENOENT : -EINVAL;

	if (event->cpu < 0)		/* per-CPU counters only */
		return -EINVAL;
	if (is_sampling_event(event) || has_branch_stack(event))
		return -EOPNOTSUPP;
	if (attr->config1 || attr->config2)
		return -EINVAL;

	raw_spin_lock_irqsave(&sim_lock, flags);
	/* The layout may have changed meanwhile: look again. */
	idx = sim_lookup(sim_layout, kind, attr->config);
	if (idx >= 0)
		atomic_inc(&sim_nr_events);
	raw_spin_unlock_irqrestore(&sim_lock, flags);
	if (idx < 0)
		return kind == SIM_HW ? -ENOENT : -EINVAL;

	event->hw.idx = idx;
	event->hw.config = attr->config;
	event->hw.flags = 0;
	event->destroy = sim_event_destroy;
	return 0;
}

static u64 sim_raw(struct perf_event *event)
{
	return READ_ONCE(per_cpu_ptr(&sim_cpus, event->cpu)->count[event->hw.idx]);
}

/* Fold the raw counter's growth since the last update into the event. */
static u64 sim_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 now = sim_raw(event);
	u64 prev = local64_xchg(&hwc->prev_count, now);

	local64_add(now - prev, &event->count);
	return now;
}

/* pmu->read(): on the event's CPU, interrupts off (perf's rule). */
static void sim_read(struct perf_event *event)
{
	struct sim_cpu *c = per_cpu_ptr(&sim_cpus, event->cpu);
	struct hw_perf_event *hwc = &event->hw;
	int idx = hwc->idx;
	u64 now;

	if (!idx && READ_ONCE(sim_read_tick) && event->cpu == smp_processor_id())
		sim_background_unit();
	now = sim_update(event);
	if (!(hwc->flags & SIM_EVENT_READ)) {
		hwc->flags |= SIM_EVENT_READ;
		WRITE_ONCE(c->first[idx], now);
	}
	WRITE_ONCE(c->last[idx], now);
	WRITE_ONCE(c->reads, c->reads + 1);
}

static void sim_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	local64_set(&hwc->prev_count, sim_raw(event));
	hwc->state = 0;
}

static void sim_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	if (flags & PERF_EF_UPDATE)
		sim_update(event);
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

/* On the event's CPU, interrupts off; refused while max_active are on. */
static int sim_add(struct perf_event *event, int flags)
{
	struct sim_cpu *c = this_cpu_ptr(&sim_cpus);
	int max = READ_ONCE(c->max_active);

	WRITE_ONCE(c->adds, c->adds + 1);
	if (max >= 0 && c->active >= max) {
		WRITE_ONCE(c->refused, c->refused + 1);
		return -EAGAIN;
	}
	c->active++;
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		sim_start(event, PERF_EF_RELOAD);
	return 0;
}

static void sim_del(struct perf_event *event, int flags)
{
	sim_stop(event, PERF_EF_UPDATE);
	this_cpu_ptr(&sim_cpus)->active--;
}

PMU_FORMAT_ATTR(event, "config:0-63");

static struct attribute *sim_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group sim_format_group = {
	.name = "format",
	.attrs = sim_format_attrs,
};

static const struct attribute_group *sim_attr_groups[] = {
	&sim_format_group,
	NULL,
};

static struct pmu sim_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT,
	.attr_groups	= sim_attr_groups,
	.event_init	= sim_event_init,
	.add		= sim_add,
	.del		= sim_del,
	.start		= sim_start,
	.stop		= sim_stop,
	.read		= sim_read,
};

/* ---- debugfs -------------------------------------------------------- */

/* Copy a user command into a NUL-terminated, newline-stripped buffer. */
static char *sim_get_cmd(const char __user *ubuf, size_t len)
{
	char *buf;

	if (!len || len >= SIM_CMD_MAX)
		return ERR_PTR(-EINVAL);
	buf = memdup_user_nul(ubuf, len);
	return buf;
}

/* work: "N" adds N units of the writer's profile on the CPU it runs on. */
static ssize_t sim_work_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct sim_profile none = { }, *p;
	struct sim_cpu *c;
	unsigned long flags;
	char *buf;
	u64 units;
	int ret;

	buf = sim_get_cmd(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = kstrtou64(strim(buf), 10, &units);
	kfree(buf);
	if (ret)
		return ret;
	if (!units || units > SIM_MAX_UNITS)
		return -ERANGE;

	raw_spin_lock_irqsave(&sim_lock, flags);
	p = sim_find_profile(current->comm);
	c = this_cpu_ptr(&sim_cpus);
	sim_count_units(c, p ? p : &none, units);
	if (p)
		p->units += units;
	WRITE_ONCE(c->units, c->units + units);
	raw_spin_unlock_irqrestore(&sim_lock, flags);
	return len;
}

static const struct file_operations sim_work_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= sim_work_write,
	.llseek	= noop_llseek,
};

/*
 * sigsleep: writing "N" sends SIGUSR1 to the writer (which must handle
 * it), then N times spins SIM_SIGSLEEP_SPIN_US and calls schedule() in
 * TASK_INTERRUPTIBLE. With the signal pending, __schedule() does not
 * dequeue the task: it makes it TASK_RUNNING again and keeps it on the
 * runqueue, although the sched_switch tracepoint's prev_state says
 * TASK_INTERRUPTIBLE on 6.1. Whenever another task is picked, that is a
 * context switch of a task that is still runnable: what topdown must
 * flag TOPDOWN_REC_PREEMPTED. The spin makes a low-weight writer (nice
 * 19) lose the pick to a competing task on its CPU.
 */
#define SIM_SIGSLEEP_SPIN_US	200
#define SIM_SIGSLEEP_MAX	100000

static ssize_t sim_sigsleep_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	unsigned int n, i;
	char *buf;
	int ret;

	buf = sim_get_cmd(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = kstrtouint(strim(buf), 10, &n);
	kfree(buf);
	if (ret)
		return ret;
	if (!n || n > SIM_SIGSLEEP_MAX)
		return -ERANGE;
	send_sig(SIGUSR1, current, 1);
	for (i = 0; i < n; i++) {
		udelay(SIM_SIGSLEEP_SPIN_US);
		set_current_state(TASK_INTERRUPTIBLE);
		schedule();
	}
	return len;
}

static const struct file_operations sim_sigsleep_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= sim_sigsleep_write,
	.llseek	= noop_llseek,
};

/* sim_lock held: counter index of @name in the layout, or "evN". */
static int sim_counter_by_name(const char *name)
{
	const struct sim_layout *l = sim_layout;
	unsigned int n;
	int i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->ev[i].name, name))
			return i;
	if (name[0] == 'e' && name[1] == 'v' && !kstrtouint(name + 2, 10, &n) &&
	    n < SIM_NR_COUNTERS)
		return n;
	return -1;
}

/*
 * profiles: "comm=NAME COUNTER=RATE ..." sets (or replaces) the profile of
 * tasks called NAME ("*": the background timer's); COUNTER is a name of
 * the current layout or evN; unnamed counters get rate 0. "clear" drops
 * every profile.
 */
static int sim_profile_cmd(char *cmd)
{
	struct sim_profile np = { };
	char *tok, *val, *names[SIM_NR_COUNTERS + 1];
	u64 vals[SIM_NR_COUNTERS + 1];
	struct sim_profile *p;
	unsigned long flags;
	int i, n = 0, ret = 0;

	cmd = strim(cmd);
	if (!strcmp(cmd, "clear")) {
		raw_spin_lock_irqsave(&sim_lock, flags);
		sim_nr_profiles = 0;
		memset(sim_profiles, 0, sizeof(sim_profiles));
		raw_spin_unlock_irqrestore(&sim_lock, flags);
		return 0;
	}
	while ((tok = strsep(&cmd, " \t")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val || val == tok)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "comm")) {
			if (!*val || strlen(val) >= TASK_COMM_LEN || np.comm[0])
				return -EINVAL;
			strscpy(np.comm, val, sizeof(np.comm));
			continue;
		}
		if (n == ARRAY_SIZE(names))
			return -E2BIG;
		if (kstrtou64(val, 10, &vals[n]) || vals[n] > SIM_MAX_RATE)
			return -EINVAL;
		names[n++] = tok;
	}
	if (!np.comm[0])
		return -EINVAL;

	raw_spin_lock_irqsave(&sim_lock, flags);
	for (i = 0; i < n; i++) {
		int idx = sim_counter_by_name(names[i]);

		if (idx < 0) {
			ret = -ENOENT;
			goto unlock;
		}
		np.rate[idx] = vals[i];
	}
	p = sim_find_profile(np.comm);
	if (!p) {
		if (sim_nr_profiles == SIM_NR_PROFILES) {
			ret = -ENOSPC;
			goto unlock;
		}
		p = &sim_profiles[sim_nr_profiles++];
	}
	np.units = p->units;
	*p = np;
unlock:
	raw_spin_unlock_irqrestore(&sim_lock, flags);
	return ret;
}

static ssize_t sim_profiles_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char *buf = sim_get_cmd(ubuf, len);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = sim_profile_cmd(buf);
	kfree(buf);
	return ret ? ret : len;
}

static int sim_profiles_show(struct seq_file *m, void *v)
{
	struct sim_profile *copy;
	unsigned long flags;
	int i, j, n;

	copy = kcalloc(SIM_NR_PROFILES, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	raw_spin_lock_irqsave(&sim_lock, flags);
	n = sim_nr_profiles;
	memcpy(copy, sim_profiles, n * sizeof(*copy));
	raw_spin_unlock_irqrestore(&sim_lock, flags);
	for (i = 0; i < n; i++) {
		seq_printf(m, "comm=%s units=%llu", copy[i].comm, copy[i].units);
		for (j = 0; j < SIM_NR_COUNTERS; j++)
			seq_printf(m, " %llu", copy[i].rate[j]);
		seq_putc(m, '\n');
	}
	kfree(copy);
	return 0;
}

static int sim_profiles_open(struct inode *inode, struct file *file)
{
	return single_open(file, sim_profiles_show, NULL);
}

static const struct file_operations sim_profiles_fops = {
	.owner		= THIS_MODULE,
	.open		= sim_profiles_open,
	.read		= seq_read,
	.write		= sim_profiles_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* layout: the name of a layout; EBUSY while any event exists. */
static ssize_t sim_layout_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char *buf = sim_get_cmd(ubuf, len);
	unsigned long flags;
	const char *name;
	int i, ret = -ENOENT;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	name = strim(buf);
	for (i = 0; i < ARRAY_SIZE(sim_layouts); i++) {
		if (strcmp(sim_layouts[i].name, name))
			continue;
		raw_spin_lock_irqsave(&sim_lock, flags);
		if (atomic_read(&sim_nr_events)) {
			ret = -EBUSY;
		} else {
			sim_layout = &sim_layouts[i];
			ret = 0;
		}
		raw_spin_unlock_irqrestore(&sim_lock, flags);
		break;
	}
	kfree(buf);
	return ret ? ret : len;
}

static int sim_layout_show(struct seq_file *m, void *v)
{
	const struct sim_layout *l;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&sim_lock, flags);
	l = sim_layout;		/* the layouts themselves are constant */
	raw_spin_unlock_irqrestore(&sim_lock, flags);
	seq_printf(m, "%s\n", l->name);
	for (i = 0; i < l->nr; i++)
		seq_printf(m, "%d %s %s 0x%llx%s\n", i, l->ev[i].name,
			   l->ev[i].kind == SIM_HW ? "hardware" : "td_pmusim",
			   l->ev[i].config,
			   l->ev[i].plus >= 0 ? " +erratum" : "");
	return 0;
}

static int sim_layout_open(struct inode *inode, struct file *file)
{
	return single_open(file, sim_layout_show, NULL);
}

static const struct file_operations sim_layout_fops = {
	.owner		= THIS_MODULE,
	.open		= sim_layout_open,
	.read		= seq_read,
	.write		= sim_layout_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* noise: background timer period in microseconds, 0 to stop it. */
static ssize_t sim_noise_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char *buf = sim_get_cmd(ubuf, len);
	u64 us;
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = kstrtou64(strim(buf), 10, &us);
	kfree(buf);
	if (ret)
		return ret;
	if (us && (us < 100 || us > USEC_PER_SEC))
		return -ERANGE;

	mutex_lock(&sim_noise_mutex);
	sim_noise_stop();
	if (us) {
		WRITE_ONCE(sim_noise_ns, us * NSEC_PER_USEC);
		cpus_read_lock();
		on_each_cpu(sim_noise_start_cpu, NULL, 1);
		cpus_read_unlock();
	}
	mutex_unlock(&sim_noise_mutex);
	return len;
}

static int sim_noise_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%llu\n", READ_ONCE(sim_noise_ns) / NSEC_PER_USEC);
	return 0;
}

static int sim_noise_open(struct inode *inode, struct file *file)
{
	return single_open(file, sim_noise_show, NULL);
}

static const struct file_operations sim_noise_fops = {
	.owner		= THIS_MODULE,
	.open		= sim_noise_open,
	.read		= seq_read,
	.write		= sim_noise_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* read_tick: 1 to add a background unit at every read of counter 0. */
static ssize_t sim_read_tick_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	bool on;
	int ret = kstrtobool_from_user(ubuf, len, &on);

	if (ret)
		return ret;
	WRITE_ONCE(sim_read_tick, on);
	return len;
}

static int sim_read_tick_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", READ_ONCE(sim_read_tick));
	return 0;
}

static int sim_read_tick_open(struct inode *inode, struct file *file)
{
	return single_open(file, sim_read_tick_show, NULL);
}

static const struct file_operations sim_read_tick_fops = {
	.owner		= THIS_MODULE,
	.open		= sim_read_tick_open,
	.read		= seq_read,
	.write		= sim_read_tick_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* init_error: an errno (1 .. 4095) event_init returns for our type; 0 off. */
static ssize_t sim_init_error_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	unsigned int err;
	int ret = kstrtouint_from_user(ubuf, len, 10, &err);

	if (ret)
		return ret;
	if (err >= MAX_ERRNO)
		return -ERANGE;
	WRITE_ONCE(sim_init_error, err);
	return len;
}

static int sim_init_error_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", READ_ONCE(sim_init_error));
	return 0;
}

static int sim_init_error_open(struct inode *inode, struct file *file)
{
	return single_open(file, sim_init_error_show, NULL);
}

static const struct file_operations sim_init_error_fops = {
	.owner		= THIS_MODULE,
	.open		= sim_init_error_open,
	.read		= seq_read,
	.write		= sim_init_error_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/*
 * capacity: write "CPU MAX": at most MAX events on that CPU's PMU at once
 * (-1: any number); pmu->add() refuses more, as a PMU whose counters are
 * all taken does (a pinned event then goes to perf's ERROR state). Takes
 * effect at the next add; events already on stay. Read: one line per CPU,
 * "cpu N max M active A adds X refused R".
 */
static ssize_t sim_capacity_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	unsigned int cpu;
	char *buf;
	int max;

	buf = sim_get_cmd(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (sscanf(buf, "%u %d", &cpu, &max) != 2 || cpu >= nr_cpu_ids ||
	    !cpu_possible(cpu) || max < -1) {
		kfree(buf);
		return -EINVAL;
	}
	kfree(buf);
	WRITE_ONCE(per_cpu_ptr(&sim_cpus, cpu)->max_active, max);
	return len;
}

static int sim_capacity_show(struct seq_file *m, void *v)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sim_cpu *c = per_cpu_ptr(&sim_cpus, cpu);

		seq_printf(m, "cpu %d max %d active %d adds %llu refused %llu\n", cpu,
			   READ_ONCE(c->max_active), READ_ONCE(c->active),
			   READ_ONCE(c->adds), READ_ONCE(c->refused));
	}
	return 0;
}

static int sim_capacity_open(struct inode *inode, struct file *file)
{
	return single_open(file, sim_capacity_show, NULL);
}

static const struct file_operations sim_capacity_fops = {
	.owner		= THIS_MODULE,
	.open		= sim_capacity_open,
	.read		= seq_read,
	.write		= sim_capacity_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* reads: "cpu N first f0 .. f7 last l0 .. l7", one line per CPU. */
static int sim_reads_show(struct seq_file *m, void *v)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct sim_cpu *c = per_cpu_ptr(&sim_cpus, cpu);

		seq_printf(m, "cpu %d first", cpu);
		for (i = 0; i < SIM_NR_COUNTERS; i++)
			seq_printf(m, " %llu", READ_ONCE(c->first[i]));
		seq_puts(m, " last");
		for (i = 0; i < SIM_NR_COUNTERS; i++)
			seq_printf(m, " %llu", READ_ONCE(c->last[i]));
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_reads);

/* counts: "cpu N units U ticks T reads R c0 .. c7", one line per CPU. */
static int sim_counts_show(struct seq_file *m, void *v)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct sim_cpu *c = per_cpu_ptr(&sim_cpus, cpu);

		seq_printf(m, "cpu %d units %llu ticks %llu reads %llu", cpu,
			   READ_ONCE(c->units), READ_ONCE(c->ticks),
			   READ_ONCE(c->reads));
		for (i = 0; i < SIM_NR_COUNTERS; i++)
			seq_printf(m, " %llu", READ_ONCE(c->count[i]));
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_counts);

/* events: perf events that exist on this PMU now. */
static int sim_events_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", atomic_read(&sim_nr_events));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_events);

/* ---- module --------------------------------------------------------- */

static int __init sim_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu)
		td_hrtimer_setup(&per_cpu_ptr(&sim_cpus, cpu)->timer, sim_tick,
				 CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(&sim_cpus, cpu)->max_active = -1;

	ret = perf_pmu_register(&sim_pmu, "td_pmusim", -1);
	if (ret)
		return ret;
	sim_dir = debugfs_create_dir("td_pmusim", NULL);
	debugfs_create_file("work", 0200, sim_dir, NULL, &sim_work_fops);
	debugfs_create_file("sigsleep", 0200, sim_dir, NULL, &sim_sigsleep_fops);
	debugfs_create_file("profiles", 0600, sim_dir, NULL, &sim_profiles_fops);
	debugfs_create_file("layout", 0600, sim_dir, NULL, &sim_layout_fops);
	debugfs_create_file("noise", 0600, sim_dir, NULL, &sim_noise_fops);
	debugfs_create_file("counts", 0400, sim_dir, NULL, &sim_counts_fops);
	debugfs_create_file("events", 0400, sim_dir, NULL, &sim_events_fops);
	debugfs_create_file("read_tick", 0600, sim_dir, NULL, &sim_read_tick_fops);
	debugfs_create_file("reads", 0400, sim_dir, NULL, &sim_reads_fops);
	debugfs_create_file("init_error", 0600, sim_dir, NULL, &sim_init_error_fops);
	debugfs_create_file("capacity", 0600, sim_dir, NULL, &sim_capacity_fops);
	return 0;
}

static void __exit sim_exit(void)
{
	/* No file is open and no event exists (both hold module refs). */
	debugfs_remove_recursive(sim_dir);
	mutex_lock(&sim_noise_mutex);
	sim_noise_stop();
	mutex_unlock(&sim_noise_mutex);
	perf_pmu_unregister(&sim_pmu);
}

module_init(sim_init);
module_exit(sim_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Simulated PMU with exact, per-task counts for the topdown selftests");
MODULE_AUTHOR("The topdown developers");
