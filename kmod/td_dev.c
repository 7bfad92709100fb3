// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/topdown: open, ioctls, mmap of the rings, poll.
 *
 * Every ioctl is dispatched to one small function; the state changes
 * (CONFIGURE, START, STOP) are td_collection.c's, the rings' mapping and
 * poll state td_ring.c's. This file checks what user space passes and
 * copies results back. Nothing user space passes is trusted: sizes, flags, reserved fields,
 * strings, CPU masks, mmap offsets, lengths and protections are checked
 * before anything is changed, so a refused call leaves the collection as
 * it was.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "td_compat.h"
#include "td_internal.h"

/*
 * The records carry host pids and tgids in memory shared by every reader,
 * so they cannot be translated per reader: a process that sees another
 * pid namespace than the initial one gets no access at all. Checked where
 * access is obtained, open() and mmap(); the mappings are not inherited
 * across fork() (VM_DONTCOPY, td_rings_mmap()), so a child in a new pid
 * namespace has to map the rings itself, and is refused then.
 */
static bool td_pid_ns_ok(void)
{
	return task_active_pid_ns(current) == &init_pid_ns;
}

static int td_open(struct inode *inode, struct file *file)
{
	if (!perfmon_capable())
		return -EPERM;
	if (!td_pid_ns_ok())
		return -EACCES;
	return nonseekable_open(inode, file);
}

static int td_release(struct inode *inode, struct file *file)
{
	td_rings_forget_reader(file);
	return 0;
}

static bool td_str_terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len);
}

/* Copy and check one event's CPU bitmap into @mask. */
static int td_copy_cpus(const struct topdown_event *e, struct cpumask *mask)
{
	unsigned int nbits = e->cpus_size * BITS_PER_BYTE;
	unsigned long *bits;
	unsigned int cpu;
	u64 *arr;
	int ret = 0;

	if (e->cpus_size % sizeof(u64) || e->cpus_size > TOPDOWN_CPUMASK_MAX_BYTES)
		return -EINVAL;
	arr = memdup_user(u64_to_user_ptr(e->cpus_ptr), e->cpus_size);
	if (IS_ERR(arr))
		return PTR_ERR(arr);
	bits = bitmap_zalloc(nbits, GFP_KERNEL);
	if (!bits) {
		kfree(arr);
		return -ENOMEM;
	}
	/* The ABI bitmap is an array of u64, whatever the word size. */
	bitmap_from_arr64(bits, arr, nbits);
	cpumask_clear(mask);
	for_each_set_bit(cpu, bits, nbits) {
		if (cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
			ret = -EINVAL;
			break;
		}
		cpumask_set_cpu(cpu, mask);
	}
	if (!ret && cpumask_empty(mask))
		ret = -EINVAL;
	bitmap_free(bits);
	kfree(arr);
	return ret;
}

#ifdef TD_TEST_HOOKS
/*
 * Test builds only (kmod/Kbuild, TD_TEST_HOOKS): one more PMU type that
 * td_check_pmu() accepts without asking perf, for the selftests' simulated
 * PMU (which has no hardware context) and their tracepoint event. Never in
 * a shipped module: it switches the PMU policy off for that type.
 */
static int test_pmu_type = -1;
module_param(test_pmu_type, int, 0644);
MODULE_PARM_DESC(test_pmu_type,
		 "test build only: also accept events of this PMU type (the selftests' simulated PMU, their tracepoint event); default -1, none");

static bool td_test_pmu(u32 type)
{
	int t = READ_ONCE(test_pmu_type);

	return t >= 0 && type == (u32)t;
}
#else
static bool td_test_pmu(u32 type)
{
	return false;
}
#endif

/*
 * Only core CPU PMUs and software events are counted: the probe reads
 * every counter at every context switch under the runqueue lock, which
 * uncore PMUs (slow, shared reads) and tracepoint, breakpoint, kprobe and
 * uprobe events (which trace rather than count, and take user pointers
 * in config1) are not made for. The fixed hardware, cache and raw types
 * reach only PMUs that take them as CPU events (perf offers extended
 * hardware types only to PMUs that declare them). For a dynamic type,
 * a disabled probe counter with the event's config, and config1 and
 * config2 cleared so that no PMU follows a pointer in them, shows which
 * PMU it is: one perf schedules in the hardware context, as it does
 * core PMUs, is accepted.
 */
static int td_check_pmu(const struct topdown_event *e, const struct cpumask *cpus)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = e->type,
		.config = e->config,
		.disabled = 1,
		.exclude_user = !!(e->flags & TOPDOWN_EVENT_EXCLUDE_USER),
		.exclude_kernel = !!(e->flags & TOPDOWN_EVENT_EXCLUDE_KERNEL),
	};
	struct perf_event *ev;
	unsigned int cpu;
	bool core;

	if (td_test_pmu(e->type))
		return 0;
	switch (e->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return 0;
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		return -EOPNOTSUPP;
	}
	/* On one of the event's CPUs: a hybrid part's PMUs cover some each. */
	cpu = cpus ? cpumask_any_and(cpus, cpu_online_mask) : nr_cpu_ids;
	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev)) {
		switch (PTR_ERR(ev)) {
		case -ENOENT:		/* no PMU takes this type */
			return -ENOENT;
		case -EINVAL:		/* its PMU refused the event */
		case -EOPNOTSUPP:
			return -EOPNOTSUPP;
		}
		/* Not about the PMU: ENOMEM, EBUSY, a security module's EACCES. */
		return PTR_ERR(ev);
	}
	core = ev->pmu->task_ctx_nr == perf_hw_context;
	perf_event_release_kernel(ev);
	return core ? 0 : -EOPNOTSUPP;
}

static int td_check_event(const struct topdown_event *e)
{
	if (e->flags & ~TOPDOWN_EVENT_FLAGS_ALL || e->__reserved)
		return -EINVAL;
	if (!td_str_terminated(e->name, sizeof(e->name)))
		return -EINVAL;
	if (!e->cpus_ptr != !e->cpus_size)
		return -EINVAL;
	return 0;
}

/*
 * The groups of a configuration ("Groups and rotation"): nr_groups up to
 * TOPDOWN_MAX_GROUPS; each group 1 .. TOPDOWN_MAX_EVENTS distinct pool
 * indexes below nr_events, no flags, zero past its events; groups past
 * nr_groups zero; every pool entry in some group; rotate_ms 0 below two
 * groups, else 0 (the default, resolved here) or within its bounds.
 */
static int td_check_groups(struct topdown_config *cfg)
{
	u64 used = 0;
	u32 g, j;

	if (cfg->nr_groups > TOPDOWN_MAX_GROUPS)
		return -EINVAL;
	for (g = 0; g < TOPDOWN_MAX_GROUPS; g++) {
		const struct topdown_group *grp = &cfg->groups[g];
		u64 mine = 0;

		if (g >= cfg->nr_groups) {
			if (memchr_inv(grp, 0, sizeof(*grp)))
				return -EINVAL;
			continue;
		}
		if (grp->nr_events < 1 || grp->nr_events > TOPDOWN_MAX_EVENTS ||
		    grp->flags)
			return -EINVAL;
		for (j = 0; j < TOPDOWN_MAX_EVENTS; j++) {
			u32 p = grp->events[j];

			if (j >= grp->nr_events) {
				if (p)
					return -EINVAL;
				continue;
			}
			if (p >= cfg->nr_events || mine & BIT_ULL(p))
				return -EINVAL;
			mine |= BIT_ULL(p);
		}
		used |= mine;
	}
	if (cfg->nr_groups && used != GENMASK_ULL(cfg->nr_events - 1, 0))
		return -EINVAL;
	if (cfg->nr_groups < 2)
		return cfg->rotate_ms ? -EINVAL : 0;
	if (!cfg->rotate_ms)
		cfg->rotate_ms = TOPDOWN_ROTATE_DEFAULT_MS;
	if (cfg->rotate_ms < TOPDOWN_ROTATE_MIN_MS ||
	    cfg->rotate_ms > TOPDOWN_ROTATE_MAX_MS)
		return -EINVAL;
	return 0;
}

static int td_ioctl_configure(struct topdown_config __user *uarg)
{
	struct topdown_config *cfg;
	struct cpumask *masks = NULL;
	bool all[TOPDOWN_MAX_POOL] = { };	/* copied whole by td_configure() */
	u32 usize, ring, wm, i;
	int ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < TOPDOWN_CONFIG_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	ret = copy_struct_from_user(cfg, sizeof(*cfg), uarg, usize);
	if (ret)
		goto out;

	ret = -EINVAL;
	if (cfg->flags & ~TOPDOWN_CONFIG_FLAGS_ALL || cfg->__reserved ||
	    cfg->__reserved2)
		goto out;
	if (!(cfg->flags & TOPDOWN_CONFIG_TOTALS)) {
		if (cfg->totals_tasks)
			goto out;
	} else if (!cfg->totals_tasks) {
		cfg->totals_tasks = TOPDOWN_TOTALS_DEFAULT_TASKS;
	} else if (!is_power_of_2(cfg->totals_tasks) ||
		   cfg->totals_tasks < TOPDOWN_TOTALS_MIN_TASKS ||
		   cfg->totals_tasks > TOPDOWN_TOTALS_MAX_TASKS) {
		goto out;
	}
	/* With groups, nr_events counts the pool. */
	if (cfg->nr_groups > TOPDOWN_MAX_GROUPS || cfg->nr_events < 1 ||
	    cfg->nr_events > td_cfg_pool_max(cfg))
		goto out;
	if (!td_str_terminated(cfg->label, sizeof(cfg->label)))
		goto out;
	ring = cfg->ring_size ? cfg->ring_size : TOPDOWN_RING_DEFAULT_SIZE;
	if (!is_power_of_2(ring) || ring < TOPDOWN_RING_MIN_SIZE ||
	    ring > TOPDOWN_RING_MAX_SIZE || ring < PAGE_SIZE)
		goto out;
	wm = cfg->watermark ? cfg->watermark : ring / 4;
	if (wm > ring)
		goto out;
	for (i = 0; i < TOPDOWN_MAX_POOL; i++) {
		const struct topdown_event *e = td_cfg_ev(cfg, i);

		if (i >= cfg->nr_events) {
			ret = -EINVAL;
			if (memchr_inv(e, 0, sizeof(*e)))
				goto out;
			continue;
		}
		ret = td_check_event(e);
		if (ret)
			goto out;
	}
	ret = td_check_groups(cfg);
	if (ret)
		goto out;

	/* Masks go to a scratch copy: a refused call changes nothing. */
	ret = -ENOMEM;
	masks = kcalloc(cfg->nr_events, cpumask_size(), GFP_KERNEL);
	if (!masks)
		goto out;
	for (i = 0; i < cfg->nr_events; i++) {
		struct topdown_event *e = td_cfg_ev(cfg, i);
		struct cpumask *m = td_mask_at(masks, i);

		all[i] = !e->cpus_size;
		if (!all[i]) {
			ret = td_copy_cpus(e, m);
			if (ret)
				goto out;
		}
		e->cpus_ptr = 0;
	}
	/* Last: the only check that asks perf. */
	for (i = 0; i < cfg->nr_events; i++) {
		ret = td_check_pmu(td_cfg_ev(cfg, i),
				   all[i] ? NULL : td_mask_at(masks, i));
		if (ret)
			goto out;
	}

	cfg->size = sizeof(*cfg);
	cfg->ring_size = ring;
	cfg->watermark = wm;
	ret = td_configure(cfg, masks, all);
out:
	kfree(masks);
	kfree(cfg);
	return ret;
}

/*
 * STATUS and GET_CONFIG copy to user memory only after dropping td.lock:
 * a fault on that memory takes mmap_lock, and td_mmap() runs with
 * mmap_lock held and then takes td.lock, so copying under td.lock could
 * deadlock against an mmap() of the same process (userfaultfd makes that
 * a certainty, not just a race).
 */
static int td_ioctl_get_config(struct topdown_config __user *uarg)
{
	u32 words = BITS_TO_U64(nr_cpu_ids), need = words * sizeof(u64);
	bool all[TOPDOWN_MAX_POOL];
	struct topdown_config *in, *out;
	u32 usize, i, nr_events;
	u64 *arrs;
	int ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < TOPDOWN_CONFIG_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	in = kzalloc(sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	arrs = kcalloc(TOPDOWN_MAX_POOL * words, sizeof(u64), GFP_KERNEL);
	ret = -ENOMEM;
	if (!in || !out || !arrs)
		goto free;
	/* Only the cpus_ptr/cpus_size buffers of the input are used. */
	ret = copy_from_user(in, uarg, min_t(u32, usize, sizeof(*in))) ? -EFAULT : 0;
	if (ret)
		goto free;

	mutex_lock(&td.lock);
	ret = -ENODATA;
	if (td.state == TOPDOWN_STATE_IDLE) {
		mutex_unlock(&td.lock);
		goto free;
	}
	/* A VER0 struct cannot say what a grouped record's deltas count. */
	ret = -EOVERFLOW;
	if (td.cfg.nr_groups && usize < TOPDOWN_CONFIG_SIZE_VER1) {
		mutex_unlock(&td.lock);
		goto free;
	}
	*out = td.cfg;
	nr_events = td.nr_events;
	for (i = 0; i < nr_events; i++) {
		all[i] = td.ev_all_cpus[i];
		if (!all[i])
			bitmap_to_arr64(arrs + i * words,
					cpumask_bits(td.ev_cpus[i]), nr_cpu_ids);
	}
	mutex_unlock(&td.lock);

	/* Each event's CPU bitmap goes to the buffer offered, if any. */
	ret = 0;
	for (i = 0; i < nr_events && !ret; i++) {
		struct topdown_event *o = td_cfg_ev(out, i);
		const struct topdown_event *e = td_cfg_ev(in, i);

		o->cpus_ptr = 0;
		o->cpus_size = 0;
		if (all[i])
			continue;
		o->cpus_size = need;
		if (!e->cpus_ptr || e->cpus_size < need)
			continue;
		if (copy_to_user(u64_to_user_ptr(e->cpus_ptr), arrs + i * words, need))
			ret = -EFAULT;
		else
			o->cpus_ptr = e->cpus_ptr;
	}
	if (!ret && copy_to_user(uarg, out, min_t(u32, usize, sizeof(*out))))
		ret = -EFAULT;
free:
	kfree(arrs);
	kfree(in);
	kfree(out);
	return ret;
}

/*
 * td.lock held, configured but not running (never started, or stopped):
 * no counter exists; each event configured for @cpu reads
 * TOPDOWN_EVSTATE_OFF, the others TOPDOWN_EVSTATE_NONE.
 */
static void td_fill_stopped_states(int cpu, struct topdown_cpu_stats *s)
{
	u32 cur = per_cpu_ptr(td_cpus, cpu)->grp, g, i;

	for (g = 0; g < td.nr_groups; g++) {
		for (i = 0; i < td.grp_nr[g]; i++) {
			u32 p = td.grp_ev[g][i];

			s->grp_ev_state[g][i] =
				td.ev_all_cpus[p] || cpumask_test_cpu(cpu, td.ev_cpus[p]) ?
				TOPDOWN_EVSTATE_OFF : TOPDOWN_EVSTATE_NONE;
		}
	}
	/* The positions of the group that counted last. */
	memcpy(s->ev_state, s->grp_ev_state[cur < td.nr_groups ? cur : 0],
	       sizeof(s->ev_state));
}

static void td_fill_cpu_stats(struct topdown_cpu_stats *s, int cpu)
{
	struct td_cpu *c = per_cpu_ptr(td_cpus, cpu);
	u32 i;

	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	if (!cpu_possible(cpu))
		return;
	if (cpu_online(cpu))
		s->flags |= TOPDOWN_CPU_ONLINE;
	if (READ_ONCE(c->active))
		s->flags |= TOPDOWN_CPU_COUNTING;
	/* What the CPU was armed with; else what START would arm it with. */
	if (READ_ONCE(c->active) ? READ_ONCE(c->isolated) : td_cpu_spared(cpu))
		s->flags |= TOPDOWN_CPU_ISOLATED;
	if (td.state == TOPDOWN_STATE_RUNNING)
		td_counters_ev_state(cpu, s);
	else if (td.state == TOPDOWN_STATE_CONFIGURED)
		td_fill_stopped_states(cpu, s);
	if (!c->ring)
		return;
	td_counters_grp_stats(cpu, s);
	s->records = READ_ONCE(c->records);
	s->lost = READ_ONCE(c->lost);
	s->read_errors = READ_ONCE(c->read_errors);
	s->probe_count = READ_ONCE(c->probe_count);
	s->probe_ns = READ_ONCE(c->probe_ns);
	s->producer_pos = READ_ONCE(c->pos);
	s->arm_errors = READ_ONCE(c->arm_errors);
	s->recoveries = READ_ONCE(c->recoveries);
	s->retries = READ_ONCE(c->retries);
	if (td.state == TOPDOWN_STATE_RUNNING)
		s->retry_delay_ms = READ_ONCE(c->retry_delay_ms);
	for (i = 0; i < TOPDOWN_MAX_EVENTS; i++)
		s->ev_error_slices[i] = READ_ONCE(c->ev_err[i]);
}

/*
 * Copy @n stats entries to user space as the caller knows them: entries
 * @usize bytes apart, each the leading min(@usize, ours) bytes of struct
 * topdown_cpu_stats; the bytes of a larger entry past ours are left as
 * they are ("ABI growth" in the UAPI header).
 */
static int td_copy_stats(u64 uptr, const struct topdown_cpu_stats *stats,
			 u32 n, u32 usize)
{
	size_t len = min_t(size_t, usize, sizeof(*stats));
	u32 i;

	if (usize == sizeof(*stats))
		return copy_to_user(u64_to_user_ptr(uptr), stats,
				    (size_t)n * usize) ? -EFAULT : 0;
	for (i = 0; i < n; i++)
		if (copy_to_user(u64_to_user_ptr(uptr + (u64)i * usize),
				 &stats[i], len))
			return -EFAULT;
	return 0;
}

static int td_ioctl_status(struct topdown_status __user *uarg)
{
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;
	u32 usize, usize_stats, n, i;
	int ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < TOPDOWN_STATUS_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&st, sizeof(st), uarg, usize);
	if (ret)
		return ret;
	/* The entry's size is the authority, as a struct's size is. */
	if (st.stats_ptr && st.stats_size < TOPDOWN_CPU_STATS_SIZE_VER0)
		return -EINVAL;
	if (st.stats_ptr && st.stats_size > PAGE_SIZE)
		return -E2BIG;
	n = st.stats_ptr ? min_t(u32, st.nr_stats, nr_cpu_ids) : 0;
	if (n) {
		stats = kvcalloc(n, sizeof(*stats), GFP_KERNEL);
		if (!stats)
			return -ENOMEM;
	}

	mutex_lock(&td.lock);
	/* The number of bytes written back: the caller's size or ours. */
	st.size = min_t(u32, usize, sizeof(st));
	st.state = td.state;
	st.abi_version = TOPDOWN_ABI_VERSION;
	st.nr_cpus = nr_cpu_ids;
	st.nr_stats = n;
	usize_stats = st.stats_size;
	/* The bytes written per entry: the caller's size or ours. */
	st.stats_size = st.stats_ptr ? min_t(u32, usize_stats, sizeof(*stats)) :
		sizeof(*stats);
	st.record_size = TOPDOWN_RECORD_SIZE;
	st.reader = !!READ_ONCE(td.reader);	/* under td_rings_lock */
	st.start_ns = td.start_ns;
	st.stop_ns = td.stop_ns;
	st.error_code = td.err_code;
	st.error_event = td.err_event;
	st.error_cpu = td.err_cpu;
	st.__reserved = 0;
	for (i = 0; i < n; i++)
		td_fill_cpu_stats(&stats[i], i);
	mutex_unlock(&td.lock);

	/* Copied out without td.lock: see td_ioctl_get_config(). */
	if (n)
		ret = td_copy_stats(st.stats_ptr, stats, n, usize_stats);
	kvfree(stats);
	if (!ret && copy_to_user(uarg, &st, min_t(u32, usize, sizeof(st))))
		ret = -EFAULT;
	return ret;
}

static int td_ioctl_totals(struct topdown_totals __user *uarg)
{
	struct topdown_totals q;
	struct td_totals *t;
	u32 usize, len;
	int ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < TOPDOWN_TOTALS_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&q, sizeof(q), uarg, usize);
	if (ret)
		return ret;
	if (q.flags)
		return -EINVAL;
	if (q.entries_ptr && q.entry_size < TOPDOWN_TOTAL_SIZE_VER0)
		return -EINVAL;
	if (q.entries_ptr && q.entry_size > PAGE_SIZE)
		return -E2BIG;
	if (!q.entries_ptr)
		q.nr_entries = 0;
	len = q.entries_ptr ? min_t(u32, q.entry_size, sizeof(struct topdown_total)) :
		sizeof(struct topdown_total);

	mutex_lock(&td.lock);
	t = td_totals_get();
	mutex_unlock(&td.lock);
	if (!t)
		return -ENODATA;
	/* Without td.lock (see td_ioctl_get_config()): the reference holds them. */
	ret = td_totals_copy(t, &q, u64_to_user_ptr(q.entries_ptr), q.nr_entries,
			     q.entry_size, len);
	td_totals_put(t);
	if (ret)
		return ret;
	q.size = min_t(u32, usize, sizeof(q));
	q.entry_size = len;
	if (copy_to_user(uarg, &q, q.size))
		return -EFAULT;
	return 0;
}

/*
 * The frozen VER0 layouts: a struct may only grow at its end (see "ABI
 * growth" in the UAPI header).
 */
static_assert(offsetofend(struct topdown_config, events) == TOPDOWN_CONFIG_SIZE_VER0);
static_assert(offsetofend(struct topdown_config, groups) == TOPDOWN_CONFIG_SIZE_VER1);
static_assert(offsetofend(struct topdown_config, __reserved2) == TOPDOWN_CONFIG_SIZE_VER2);
static_assert(sizeof(struct topdown_config) == TOPDOWN_CONFIG_SIZE_VER2);
static_assert(sizeof(struct topdown_total) == TOPDOWN_TOTAL_SIZE_VER1);
static_assert(offsetofend(struct topdown_totals, reclaimed) == TOPDOWN_TOTALS_SIZE_VER0);
static_assert(sizeof(struct topdown_totals) == TOPDOWN_TOTALS_SIZE_VER0);
static_assert(offsetofend(struct topdown_cpu_stats, producer_pos) ==
	      TOPDOWN_CPU_STATS_SIZE_VER0);
static_assert(offsetofend(struct topdown_cpu_stats, ev_error_slices) ==
	      TOPDOWN_CPU_STATS_SIZE_VER1);
static_assert(offsetofend(struct topdown_cpu_stats, __reserved2) ==
	      TOPDOWN_CPU_STATS_SIZE_VER2);
static_assert(offsetofend(struct topdown_cpu_stats, grp_ev_error_slices) ==
	      TOPDOWN_CPU_STATS_SIZE_VER3);
static_assert(sizeof(struct topdown_cpu_stats) == TOPDOWN_CPU_STATS_SIZE_VER3);
/* A group index fits the record's group bits. */
static_assert(TOPDOWN_MAX_GROUPS - 1 <= TOPDOWN_REC_GROUP(TOPDOWN_REC_GROUP_MASK));
static_assert(TOPDOWN_MAX_POOL <= 64);
static_assert(offsetofend(struct topdown_status, __reserved) == TOPDOWN_STATUS_SIZE_VER0);
static_assert(sizeof(struct topdown_status) >= TOPDOWN_STATUS_SIZE_VER0);

/*
 * An ioctl number without its size bits. The struct's own size field says
 * which version of the struct the caller passes; the size bits only have
 * to cover the VER0 struct.
 */
#define TD_IOC_BASE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/*
 * CONFIGURE, START and STOP change the collection: like write(), they need
 * a file opened for writing. CONFIGURE and START also need the caller, not
 * only the opener, to be allowed to count every CPU in kernel mode: a
 * descriptor handed to a process without CAP_PERFMON reads and stops, but
 * does not start counting.
 */
static int td_may_change(struct file *file, bool starts_counting)
{
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (starts_counting && !perfmon_capable())
		return -EPERM;
	return 0;
}

static long td_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	unsigned int size = _IOC_SIZE(cmd);
	int ret;

	switch (TD_IOC_BASE(cmd)) {
	case TD_IOC_BASE(TOPDOWN_IOC_CONFIGURE):
		if (size < TOPDOWN_CONFIG_SIZE_VER0)
			break;
		ret = td_may_change(file, true);
		return ret ? ret : td_ioctl_configure(uarg);
	case TD_IOC_BASE(TOPDOWN_IOC_GET_CONFIG):
		if (size < TOPDOWN_CONFIG_SIZE_VER0)
			break;
		return td_ioctl_get_config(uarg);
	case TOPDOWN_IOC_START:
		if (size)
			break;
		ret = td_may_change(file, true);
		return ret ? ret : td_start();
	case TOPDOWN_IOC_STOP:
		if (size)
			break;
		ret = td_may_change(file, false);
		return ret ? ret : td_stop();
	case TD_IOC_BASE(TOPDOWN_IOC_STATUS):
		if (size < TOPDOWN_STATUS_SIZE_VER0)
			break;
		return td_ioctl_status(uarg);
	case TD_IOC_BASE(TOPDOWN_IOC_TOTALS):
		if (size < TOPDOWN_TOTALS_SIZE_VER0)
			break;
		return td_ioctl_totals(uarg);
	}
	return -ENOIOCTLCMD;
}

#define TD_PGOFF_CPU_SHIFT	(TOPDOWN_MMAP_CPU_SHIFT - PAGE_SHIFT)

static int td_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long cpu = vma->vm_pgoff >> TD_PGOFF_CPU_SHIFT;
	unsigned long page = vma->vm_pgoff & ((1UL << TD_PGOFF_CPU_SHIFT) - 1);

	/*
	 * MAP_SHARED only. VM_MAYSHARE, not VM_SHARED: the VFS clears
	 * VM_SHARED for a MAP_SHARED mapping of a file opened read-only.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	/* A descriptor passed into another pid namespace: see td_open(). */
	if (!td_pid_ns_ok())
		return -EACCES;
	/*
	 * Mapping needs a file opened for writing, as CONFIGURE, START and
	 * STOP do: a mapping keeps CONFIGURE out (EBUSY), which a read-only
	 * descriptor must not be able to do. EACCES, as mmap() answers a
	 * descriptor whose mode does not allow the mapping.
	 */
	if (!(file->f_mode & FMODE_WRITE))
		return -EACCES;
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;

	/* The rest (offset, length, protection, the reader) under the rings' lock. */
	return td_rings_mmap(file, vma, cpu, page);
}

/* Not under td.lock: see td_rings_poll(). */
static __poll_t td_poll(struct file *file, poll_table *wait)
{
	/* litmus: dev-poll begin */
	poll_wait(file, &td.wq, wait);
	/* litmus: dev-poll end */
	return td_rings_poll();
}

static const struct file_operations td_fops = {
	.owner = THIS_MODULE,
	.open = td_open,
	.release = td_release,
	.unlocked_ioctl = td_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = td_mmap,
	.poll = td_poll,
};

static struct miscdevice td_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "topdown",
	.fops = &td_fops,
	.mode = 0600,
};

int td_dev_register(void)
{
	return misc_register(&td_misc);
}

void td_dev_unregister(void)
{
	misc_deregister(&td_misc);
}
